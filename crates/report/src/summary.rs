//! The report's opening screen and the end of the terminal output: what was
//! verified, the library defects found, the verdicts on the seeds' claims,
//! and the fastest implementation of each algorithm.

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

/// The fastest implementation of each algorithm (hw on, encryption, one
/// core) at the smallest and largest size: a table of seed 000's section.
pub fn fastest_html(records: &[SpeedRecord]) -> String {
    let fast = fastest(records);
    if fast.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<h3 id=\"{}\">The fastest implementation of each algorithm</h3><p>hw on, encryption, \
         one core; MB/s are 10<sup>6</sup> bytes/s; the lead is the paired ratio where the two \
         were sampled in turn.</p><div class=\"scroll\"><table><tr><th>algorithm</th>\
         <th>size</th><th>fastest</th><th>MB/s</th><th>next</th><th>lead</th></tr>",
        crate::anchor::SPEED_FASTEST
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
    out
}

/// At most this many lines in the terminal dashboard.
pub const DASHBOARD_LINES: usize = 40;

/// `s` cut to `width` columns, with "…" where it was cut.
fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The page's dashboard for the terminal, at the end of `ango run`: a
/// line per seed with how many of its claims hold, do not hold or cannot
/// be measured here, ango's own checks, then the claims that do not hold
/// or cannot be measured, one line each, as many as fit; at most
/// [`DASHBOARD_LINES`] lines of at most `width` columns.
pub fn dashboard_text(findings: &[Finding], events: &[Event], width: usize) -> String {
    let mut lines: Vec<String> = vec![
        "What this machine said about each seed (every claim: report.html, findings.jsonl):".into(),
        format!(
            "{:<5} {:>5} {:>13} {:>14}  {}",
            "seed", "holds", "does not hold", "not measurable", "what it studied"
        ),
    ];
    for s in &crate::seeds::SEEDS {
        let (h, n, m) = crate::page::counts(findings.iter().filter(|f| f.seed == s.id));
        lines.push(format!("{:<5} {h:>5} {n:>13} {m:>14}  {}", s.id, s.title));
    }
    let own: Vec<&Finding> = findings.iter().filter(|f| f.seed == "ango").collect();
    let defects = own.iter().filter(|f| f.suite == "verify").count();
    let (h, n, m) = crate::page::counts(own.iter().copied().filter(|f| f.suite != "verify"));
    let v = verified(events);
    lines.push(format!(
        "{:<5} {h:>5} {n:>13} {m:>14}  {} library defects met; {} of {} pairs passed every case",
        "ango", defects, v.pairs_ok, v.pairs
    ));
    let open: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.seed != "ango" && f.verdict != Verdict::Holds)
        .collect();
    if !open.is_empty() {
        lines.push(String::new());
        lines.push(
            "Claims that do not hold or cannot be measured here (ango report DIR --claim ID):"
                .into(),
        );
        // Room for the claims and one closing line.
        let room = DASHBOARD_LINES.saturating_sub(lines.len() + 1);
        let shown = if open.len() <= room {
            open.len()
        } else {
            room.saturating_sub(1)
        };
        for f in &open[..shown] {
            let value = if f.value.is_some() {
                format!(": {}", f.value_text())
            } else {
                String::new()
            };
            let tag = if f.verdict == Verdict::DoesNotHold {
                "no"
            } else {
                "n/m"
            };
            lines.push(format!("[{tag}] {} {}{value}", f.id, f.claim));
        }
        if shown < open.len() {
            lines.push(format!(
                "… and {} more in report.html and findings.jsonl",
                open.len() - shown
            ));
        }
    }
    let mut out = String::from("\n");
    for l in lines.iter().take(DASHBOARD_LINES) {
        out.push_str(&clip(l, width));
        out.push('\n');
    }
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
        let w = crate::formats::wrap(s, 40, "    ");
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        let words: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(words, s.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn the_terminal_dashboard_fits_forty_lines_of_a_hundred_columns() {
        let mut fs = Vec::new();
        for i in 0..90 {
            let seed = ["000", "001", "002", "003", "004", "ango"][i % 6];
            let v = [Verdict::Holds, Verdict::DoesNotHold, Verdict::NotMeasurable][(i / 6) % 3];
            fs.push(
                Finding::new(
                    "speed",
                    seed,
                    "§5.4",
                    format!("claim {i} {}", "long words ".repeat(12)),
                )
                .id("topic", &[&i.to_string()])
                .value(1.5, "×")
                .verdict(v),
            );
        }
        let t = dashboard_text(&fs, &[], 100);
        let lines: Vec<&str> = t.trim_start_matches('\n').lines().collect();
        assert!(lines.len() <= DASHBOARD_LINES, "{t}");
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{t}");
        let row = format!("{:<5} {:>5} {:>13} {:>14}  ChaCha20", "000", 5, 5, 5);
        assert!(lines[2].starts_with(&row), "{t}");
        assert!(
            t.contains("[no] 000-topic-6 claim 6") && t.contains("more in report.html"),
            "{t}"
        );
        // Few claims: every one is listed, no closing count.
        let t = dashboard_text(&fs[..12], &[], 100);
        assert!(!t.contains("more in report.html"), "{t}");
    }
}
