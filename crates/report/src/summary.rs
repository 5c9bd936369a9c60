//! The report's opening screen and the end of the terminal output: what was
//! verified, the library defects found, the verdicts on the seeds' claims,
//! and the fastest implementation of each algorithm.

use crate::data::ReportData;
use crate::formats::wrap;
use crate::svg::escape;
use ango_core::event::Event;
use ango_core::{Finding, SpeedRecord, Verdict};
use std::fmt::Write;

/// What the run verified before timing, from its check events.
#[derive(Debug, Default, PartialEq)]
pub struct Verified {
    /// (implementation, algorithm, setting) pairs checked, and how many
    /// passed every case.
    pub pairs: usize,
    pub pairs_ok: usize,
    /// Cases (known answers, Wycheproof cases, cross checks) passed.
    pub cases: u64,
    /// Vector sets named in the checks (known answers, Wycheproof files).
    pub wycheproof_pairs: usize,
    /// Distinct implementations (backend labels).
    pub implementations: usize,
}

/// Adds up the run's check events (`kat`, `pk_check`) into [`Verified`]:
/// the cases each passed from its `counts` (events written before checks
/// carried their counts have none, and add no cases).
pub fn verified(events: &[Event]) -> Verified {
    let mut v = Verified::default();
    let mut labels: Vec<&str> = Vec::new();
    for e in events {
        let (backend, ok, s, counts) = match e {
            Event::Kat {
                backend,
                ok,
                summary,
                counts,
                ..
            }
            | Event::PkCheck {
                backend,
                ok,
                summary,
                counts,
                ..
            } => (backend.as_str(), *ok, summary.as_str(), counts),
            _ => continue,
        };
        v.cases += counts.map_or(0, |c| c.passed);
        if backend.starts_with("cross-library") {
            continue;
        }
        v.pairs += 1;
        if ok {
            v.pairs_ok += 1;
        }
        if s.contains("Wycheproof") {
            v.wycheproof_pairs += 1;
        }
        if !labels.contains(&backend) {
            labels.push(backend);
        }
    }
    v.implementations = labels.len();
    v
}

/// The fastest implementation of each algorithm (hw on, encryption, one
/// worker) at the smallest and the largest size measured: (algorithm,
/// size, fastest label, its MB/s, runner-up label, how many times faster
/// the first is: their paired ratio where they were sampled in turn).
pub fn fastest(records: &[SpeedRecord]) -> Vec<(String, u64, String, f64, String, f64)> {
    let shown: Vec<&SpeedRecord> = records
        .iter()
        .filter(|r| r.workers <= 1 && r.hw == "on" && r.operation == "encrypt")
        .filter(|r| r.head.suite != ango_core::SuiteId::Latency)
        .collect();
    let mut algos: Vec<&str> = Vec::new();
    for r in &shown {
        if !algos.contains(&r.algorithm.as_str()) {
            algos.push(&r.algorithm);
        }
    }
    algos.sort_by_key(|a| {
        ango_core::Algorithm::parse(a)
            .ok()
            .and_then(|x| ango_core::Algorithm::ALL.iter().position(|&y| y == x))
            .unwrap_or(usize::MAX)
    });
    let label = |r: &SpeedRecord| {
        if r.backend == "ango" {
            format!("ango {}", r.implementation)
        } else {
            r.backend.clone()
        }
    };
    let mut out = Vec::new();
    for a in algos {
        let of: Vec<&&SpeedRecord> = shown.iter().filter(|r| r.algorithm == a).collect();
        let (Some(lo), Some(hi)) = (
            of.iter().map(|r| r.size_bytes).min(),
            of.iter().map(|r| r.size_bytes).max(),
        ) else {
            continue;
        };
        let mut sizes = vec![lo];
        if hi != lo {
            sizes.push(hi);
        }
        for size in sizes {
            let mut at: Vec<&&&SpeedRecord> = of.iter().filter(|r| r.size_bytes == size).collect();
            at.sort_by(|x, y| y.bytes_per_second.total_cmp(&x.bytes_per_second));
            let Some(first) = at.first() else { continue };
            // The paired ratio where the two were sampled in turn.
            let (second, ratio) = match at.get(1) {
                Some(s) if s.bytes_per_second > 0.0 => {
                    (label(s), crate::findings::speedup(first, s).0)
                }
                _ => (String::new(), 0.0),
            };
            out.push((
                a.to_string(),
                size,
                label(first),
                first.bytes_per_second / 1e6,
                second,
                ratio,
            ));
        }
    }
    out
}

fn verdict_counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |v: Verdict| findings.iter().filter(|f| f.verdict == v).count();
    (
        n(Verdict::Holds),
        n(Verdict::DoesNotHold),
        n(Verdict::NotMeasurable),
    )
}

/// The seeds' claims only (not ango's own readings or the defects).
fn seed_findings(findings: &[Finding]) -> Vec<&Finding> {
    findings.iter().filter(|f| f.seed != "ango").collect()
}

/// The opening section of the page.
pub fn html(d: &ReportData, findings: &[Finding]) -> String {
    let mut out = String::from("<section id=\"summary\"><h2>Summary</h2>");
    let v = verified(&d.events);
    if v.pairs > 0 {
        let _ = write!(
            out,
            "<p><b>Verified before timing</b>, in the process that then timed it: {} \
             (implementation, algorithm, setting) pairs of {} implementations, {} passing every \
             case; {} cases passed in all (known answers, {} pairs with their Wycheproof file, \
             cross-implementation checks).{}</p>",
            v.pairs,
            v.implementations,
            v.pairs_ok,
            group(v.cases),
            v.wycheproof_pairs,
            if v.pairs_ok < v.pairs {
                format!(
                    " <b>{} failed</b> and were not timed: see the defects below and the checks \
                     at the end.",
                    v.pairs - v.pairs_ok
                )
            } else {
                String::new()
            }
        );
    }
    let defects: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.suite == "verify" && f.seed == "ango")
        .collect();
    if !defects.is_empty() {
        out.push_str(
            "<p class=\"defects\"><b>Library defects found in this run</b> (never timed):</p><ul>",
        );
        for f in &defects {
            let _ = write!(
                out,
                "<li>{} — {}</li>",
                escape(&f.claim),
                escape(&f.explanation)
            );
        }
        out.push_str("</ul>");
    }
    let seeds = seed_findings(findings);
    if !seeds.is_empty() {
        let owned: Vec<Finding> = seeds.iter().map(|f| (*f).clone()).collect();
        let (h, n, m) = verdict_counts(&owned);
        let _ = write!(
            out,
            "<p><b>The seeds' claims on this machine</b>: {h} hold, {n} do not hold, {m} cannot \
             be measured here.</p><div class=\"scroll\"><table class=\"verdicts\"><tr>\
             <th>verdict</th><th>seed</th><th>claim</th><th>measured here [95%]</th></tr>"
        );
        for f in &seeds {
            let _ = write!(
                out,
                "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
                f.verdict,
                f.verdict,
                escape(&f.source()),
                escape(&f.claim),
                escape(&f.value_text())
            );
        }
        out.push_str("</table></div>");
    }
    let fast = fastest(&d.records.speed);
    if !fast.is_empty() {
        out.push_str(
            "<p><b>Fastest implementation per algorithm</b> (hw on, encryption, one core; MB/s \
             are 10<sup>6</sup> bytes/s):</p><div class=\"scroll\"><table><tr><th>algorithm</th>\
             <th>size</th><th>fastest</th><th>MB/s</th><th>next</th><th>lead</th></tr>",
        );
        for (a, size, first, mbps, second, ratio) in &fast {
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
                 <td>{}</td><td class=\"n\">{}</td></tr>",
                escape(a),
                size_text(*size),
                escape(first),
                mb(*mbps),
                escape(second),
                if *ratio > 0.0 {
                    format!("{ratio:.2}×")
                } else {
                    "–".into()
                }
            );
        }
        out.push_str("</table></div>");
    }
    out.push_str("</section>");
    out
}

/// The verdicts at the end of the terminal output: one entry per claim,
/// wrapped to `width` columns.
pub fn text(findings: &[Finding], width: usize) -> String {
    let seeds = seed_findings(findings);
    let defects: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.suite == "verify" && f.seed == "ango")
        .collect();
    if seeds.is_empty() && defects.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nVerdicts on the seeds' claims (this machine):\n");
    for f in &defects {
        out.push_str(&wrap(&format!("[defect] {}", f.claim), width, "    "));
    }
    for f in &seeds {
        let value = if f.value.is_some() {
            format!(": {}", f.value_text())
        } else {
            String::new()
        };
        out.push_str(&wrap(
            &format!("[{}] {} {}{value}", f.verdict, f.source(), f.claim),
            width,
            "    ",
        ));
    }
    let owned: Vec<Finding> = seeds.iter().map(|f| (*f).clone()).collect();
    let (h, n, m) = verdict_counts(&owned);
    out.push_str(&format!(
        "{h} hold, {n} do not hold, {m} not measurable here; every explanation is in \
         findings.jsonl and the report.\n"
    ));
    out
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn size_text(b: u64) -> String {
    if b >= 1024 && b.is_multiple_of(1024) {
        format!("{} KiB", b / 1024)
    } else {
        format!("{b} B")
    }
}

fn mb(v: f64) -> String {
    if v >= 100.0 {
        group(v.round() as u64)
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_counts_are_added_never_read_from_the_summary() {
        // As events.jsonl holds them (the lines a run writes).
        let lines = [
            r#"{"type": "kat", "backend": "openssl", "algorithm": "aes-128-gcm", "hw": "on", "ok": true, "summary": "pass 10/10; Wycheproof aes_gcm_test 316/316", "counts": {"passed": 326, "failed": 0, "skipped": 1}, "failures": [], "library_cpu_view": null}"#,
            r#"{"type": "kat", "backend": "ring", "algorithm": "aes-128-gcm", "hw": "on", "ok": true, "summary": "pass 10/10", "counts": {"passed": 10, "failed": 0, "skipped": 0}, "failures": [], "library_cpu_view": null}"#,
            r#"{"type": "pk_check", "backend": "liboqs", "algorithm": "ml-dsa-44", "ok": false, "summary": "FAIL 3/50", "counts": {"passed": 47, "failed": 3, "skipped": 0}, "failures": ["x"]}"#,
            // Written before checks carried counts: a pair, no cases.
            r#"{"type": "kat", "backend": "old", "algorithm": "aes-128-gcm", "hw": "on", "ok": true, "summary": "pass 99/99", "failures": [], "library_cpu_view": null}"#,
            r#"{"type": "pk_check", "backend": "cross-library a/b", "algorithm": "x25519", "ok": true, "summary": "pass 2/2 ordered pairs", "counts": {"passed": 2, "failed": 0, "skipped": 0}, "failures": []}"#,
            r#"{"type": "skip", "backend": "ring", "algorithm": "aes-128-ccm", "hw": "on", "reason": "none"}"#,
        ];
        let ev: Vec<Event> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let v = verified(&ev);
        assert_eq!(
            v,
            Verified {
                pairs: 4,
                pairs_ok: 3,
                cases: 326 + 10 + 47 + 2,
                wycheproof_pairs: 1,
                implementations: 4
            }
        );
    }

    #[test]
    fn wrapped_lines_fit_and_keep_every_word() {
        let s = "[holds] seed 000 §5.4 with AES-NI, AES-128-GCM is faster than ChaCha20-Poly1305 \
                 (seed: 1.4–3×): 2.41 (2.38–2.44) ×";
        let w = wrap(s, 40, "    ");
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        let words: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(words, s.split_whitespace().collect::<Vec<_>>());
    }
}
