//! The parent process's sink: records each point the moment it arrives
//! (results.jsonl, samples.jsonl, events.jsonl) and shows progress. Every
//! record of every suite reaches results.jsonl through its one writer,
//! [`ParentSink::keep`].

use ango_core::results::{ResultsDir, RESULTS, SAMPLES};
use ango_core::{Record, Records, Result};
use ango_study::{Event, Sink};

pub use ango_core::results::{EVENTS, PK_SAMPLES, TLS_HANDSHAKES, TLS_TIMELINES};

pub struct ParentSink {
    pub dir: Option<ResultsDir>,
    /// Every record of the run so far, by suite.
    pub records: Records,
    pub pk_samples: Vec<ango_core::PkSamples>,
    /// The run's events as events.jsonl holds them.
    pub events: Vec<Event>,
    pub total: usize,
    pub done: usize,
    pub kat_failures: usize,
    pub errors: usize,
    pub quiet: bool,
    /// Known library defects met in this run: (backend, algorithm, match).
    pub known_defects: Vec<(String, String, ango_core::DefectMatch)>,
    /// Known defects that no longer reproduce.
    pub not_reproduced: Vec<String>,
}

impl ParentSink {
    pub fn new(dir: Option<ResultsDir>, total: usize) -> ParentSink {
        ParentSink {
            dir,
            records: Records::default(),
            pk_samples: Vec::new(),
            events: Vec::new(),
            total,
            done: 0,
            kat_failures: 0,
            errors: 0,
            quiet: false,
            known_defects: Vec::new(),
            not_reproduced: Vec::new(),
        }
    }

    /// Keep a known defect met, once per (backend, algorithm, defect).
    fn note_defect(&mut self, backend: &str, algorithm: &str, m: &ango_core::DefectMatch) {
        if !self
            .known_defects
            .iter()
            .any(|(b, a, k)| b == backend && a == algorithm && k.id == m.id)
        {
            self.known_defects
                .push((backend.to_string(), algorithm.to_string(), m.clone()));
        }
    }

    /// The known library defects met in this run, in plain words, one
    /// line each (the first lines of the end-of-run summary).
    pub fn defect_lines(&self) -> Vec<String> {
        self.known_defects
            .iter()
            .map(|(b, a, m)| format!("{}; {}", m.line(b, a), m.timing_note()))
            .collect()
    }

    /// The known library defects met, first in the summary: on stdout
    /// before the tables, or on stderr when stdout carries JSON or CSV.
    /// Known defects that no longer reproduce follow under their own
    /// heading (those pairs passed and were timed).
    pub fn print_defects(&self, on_stdout: bool) {
        let mut text = String::new();
        let lines = self.defect_lines();
        if !lines.is_empty() {
            text.push_str(
                "Known library defects (never timed, but for input-check ones that give right results on valid inputs):\n",
            );
            for l in lines {
                text.push_str(&format!("  {l}\n"));
            }
        }
        if !self.not_reproduced.is_empty() {
            text.push_str("Known library defects that no longer reproduce (timed as usual):\n");
            for l in &self.not_reproduced {
                text.push_str(&format!("  {l}\n"));
            }
        }
        if text.is_empty() {
            return;
        }
        // Each defect is one long line: wrapped to the terminal's 100 columns.
        let text = ango_report::formats::fit(&text);
        if on_stdout {
            println!("{text}");
        } else {
            eprint!("{text}");
        }
    }

    /// The one writer of results.jsonl: appends `r` the moment it is
    /// made, counts it done and keeps it.
    pub fn keep(&mut self, r: impl Into<Record>) -> Result<()> {
        let r = r.into();
        if let Some(d) = &self.dir {
            d.append(RESULTS, &r)?;
        }
        self.done += 1;
        self.records.push(r);
        Ok(())
    }

    /// The `[n/total]` in front of the progress line of the point about
    /// to be kept.
    fn counter(&self) -> String {
        let w = self.total.to_string().len();
        format!("[{:>w$}/{}]", self.done + 1, self.total)
    }

    pub fn finish(&self, interrupted: bool) -> i32 {
        if interrupted {
            eprintln!(
                "ango: interrupted; the {} points measured so far are kept",
                self.records.len()
            );
            return 130;
        }
        if self.kat_failures > 0 || self.errors > 0 {
            eprintln!(
                "ango: {} failed checks (known-answer, Wycheproof, cross-library), {} errors \
                 (see above); failed pairs were not timed",
                self.kat_failures, self.errors
            );
            return 1;
        }
        0
    }

    /// A progress line (or a few) on stderr, wrapped to the terminal's
    /// 100 columns like everything else ango prints.
    fn say(&self, line: &str) {
        if !self.quiet {
            esay!("{line}");
        }
    }

    fn log_event(&mut self, ev: &Event) -> Result<()> {
        if let Some(d) = &self.dir {
            d.append(EVENTS, ev)?;
        }
        self.events.push(ev.clone());
        Ok(())
    }
}

impl Sink for ParentSink {
    fn earlier(&self) -> Option<&Records> {
        Some(&self.records)
    }

    fn event(&mut self, ev: Event) -> Result<()> {
        match ev {
            Event::Point { record, samples } => {
                if let Some(d) = &self.dir {
                    d.append(SAMPLES, &*samples)?;
                }
                self.say(&format!(
                    "{} {:<18} {:<10} hw={:<7} {:<7} {:>6} B  {:>9.1} MB/s  cv {:>5.2}%{}",
                    self.counter(),
                    record.algorithm,
                    record.backend,
                    record.hw,
                    record.operation,
                    record.size_bytes,
                    record.bytes_per_second / 1e6,
                    record.stats.robust_cv * 100.0,
                    match &record.multi {
                        // On a line of its own: the aligned columns above
                        // keep within 100 columns.
                        Some(m) => format!(
                            "\n      {} workers at once, scaling {:.1}%{}",
                            record.workers,
                            m.scaling_efficiency * 100.0,
                            if record.noisy { " (noisy)" } else { "" }
                        ),
                        None if record.noisy => "  (noisy)".into(),
                        None => String::new(),
                    }
                ));
                self.keep(*record)?;
            }
            ref e @ Event::Kat {
                ref backend,
                algorithm,
                hw,
                ok,
                ref summary,
                ref failures,
                ref library_cpu_view,
                ref known,
                ref not_reproduced,
                ..
            } => {
                let mut line = format!("verify {backend} {algorithm} hw={hw}: {summary}");
                if hw != ango_core::Hw::On {
                    if let Some(v) = library_cpu_view {
                        line.push_str(&format!(" (library sees {v})"));
                    }
                }
                for m in known {
                    line.push_str(&format!("\n    {}", m.line(backend, algorithm.name())));
                    self.note_defect(backend, algorithm.name(), m);
                }
                for f in failures {
                    line.push_str(&format!("\n    {f}"));
                }
                for n in not_reproduced {
                    line.push_str(&format!("\n    {n}"));
                    if !self.not_reproduced.contains(n) {
                        self.not_reproduced.push(n.clone());
                    }
                }
                if e.is_kat_failure() {
                    self.kat_failures += 1;
                    line.push_str("\n    not timed");
                } else if !ok {
                    line.push_str(
                        "\n    not timed (a known library defect, not a failure of ango)",
                    );
                }
                self.say(&line);
                self.log_event(e)?;
            }
            ref e @ Event::Note { ref message, .. } => {
                self.say(&format!("note: {message}"));
                self.log_event(e)?;
            }
            ref e @ Event::Skip {
                ref backend,
                algorithm,
                hw,
                ref reason,
            } => {
                // Once per (backend, hw, reason): the same reason for every
                // algorithm (ango's variants under hw=off) is said once.
                let first = !self.events.iter().any(|v| {
                    matches!(v, Event::Skip { backend: b, hw: h, reason: r, .. }
                        if b == backend && *h == hw && r == reason)
                });
                if first {
                    self.say(&format!("skip {backend} {algorithm} hw={hw}: {reason}"));
                }
                self.log_event(e)?;
            }
            Event::PkPoint { record, samples } => {
                if let Some(d) = &self.dir {
                    d.append(PK_SAMPLES, &*samples)?;
                }
                self.say(&format!(
                    "{} {:<24} {:<10} {:<7} {:<9} median {:>12}  robust cv {:>6.2}%  ({} calls){}",
                    self.counter(),
                    record.algorithm,
                    record.backend,
                    record.operation,
                    record.timing,
                    ango_report::pk::fmt_ns(record.stats.median),
                    record.stats.robust_cv * 100.0,
                    record.iterations,
                    match &record.multi {
                        Some(m) => format!(
                            "  {} workers {:.0} ops/s, scaling {:.1}%",
                            record.workers,
                            m.aggregate_per_second,
                            m.scaling_efficiency * 100.0
                        ),
                        None if record.warnings.is_empty() => String::new(),
                        None => "  (cut short)".into(),
                    }
                ));
                self.keep(*record)?;
                self.pk_samples.push(*samples);
            }
            ref e @ Event::PkCheck {
                ref backend,
                algorithm,
                ok,
                ref summary,
                ref failures,
                ref known,
                ref not_reproduced,
                ..
            } => {
                let mut line = format!("check {backend} {algorithm}: {summary}");
                for m in known {
                    line.push_str(&format!("\n    {}", m.line(backend, algorithm.name())));
                    self.note_defect(backend, algorithm.name(), m);
                }
                for f in failures {
                    line.push_str(&format!("\n    {f}"));
                }
                for n in not_reproduced {
                    line.push_str(&format!("\n    {n}"));
                    self.not_reproduced.push(n.clone());
                }
                if !failures.is_empty() {
                    self.kat_failures += 1;
                }
                if !ok {
                    line.push_str(if backend.starts_with("cross-library") {
                        "\n    the libraries disagree (each is still timed if its own checks pass)"
                    } else if failures.is_empty()
                        && known
                            .iter()
                            .all(|m| m.category == ango_core::DefectCategory::InputCheck)
                    {
                        "\n    timed: its known defects are input-check ones (right results on valid inputs)"
                    } else if failures.is_empty() {
                        "\n    not timed (a known library defect, not a failure of ango)"
                    } else {
                        "\n    not timed"
                    });
                }
                self.say(&line);
                self.log_event(e)?;
            }
            Event::TlsPoint {
                record: r,
                handshake_ns,
                timelines,
                of: _,
            } => {
                if let Some(d) = &self.dir {
                    let key = serde_json::json!({
                        "run_id": r.head.run_id, "group": r.group, "server_sig": r.server_sig,
                        "ca_sig": r.ca_sig,
                    });
                    let mut h = key.clone();
                    h["handshake_ns"] = serde_json::json!(handshake_ns);
                    d.append(TLS_HANDSHAKES, &h)?;
                    for t in timelines {
                        let mut line = key.clone();
                        line["timeline"] = t;
                        d.append(TLS_TIMELINES, &line)?;
                    }
                }
                let ms =
                    |x: Option<f64>| x.map(ango_report::pk::fmt_ns).unwrap_or_else(|| "-".into());
                self.say(&format!(
                    "{} {:<15} server {:<10} CA {:<10} median {:>9} p95 {:>9}  SH→Fin {:>9}  flight {} B/{} seg  failures {}",
                    self.counter(),
                    r.group,
                    r.server_sig,
                    r.ca_sig,
                    ms(r.handshake_ns.as_ref().map(|q| q.median)),
                    ms(r.handshake_ns.as_ref().map(|q| q.p95)),
                    ms(r.client_sh_rcv_to_finished_send_ns),
                    r.server_flight_bytes.map_or("-".into(), |b| format!("{b:.0}")),
                    r.server_flight_segments.map_or("-".into(), |b| format!("{b:.0}")),
                    r.failures,
                ));
                self.keep(*r)?;
            }
            Event::Record { record, line } => {
                if !line.is_empty() {
                    self.say(&format!("{} {line}", self.counter()));
                }
                self.keep(*record)?;
            }
            Event::Progress { message } => self.say(&message),
            ref e @ Event::Failed { ref message, .. } => {
                // Said even when quiet: a failed check is never hidden.
                esay!("ango: {message}");
                self.kat_failures += 1;
                self.log_event(e)?;
            }
            ref e @ Event::PkSkip {
                ref backend,
                algorithm,
                ref reason,
            } => {
                self.say(&format!("skip {backend} {algorithm}: {reason}"));
                self.log_event(e)?;
            }
            ref e @ Event::Error { ref message } => {
                self.errors += 1;
                self.say(&format!("error: {message}"));
                self.log_event(e)?;
            }
        }
        Ok(())
    }
}
