//! Plain findings drawn from a run's records, each a [`Finding`]: a seed's
//! claim, the value measured here with its 95% interval, and a verdict.
//! Every ratio compares medians measured in the same run; its interval is
//! the conservative one from the two medians' own intervals
//! ([`ango_harness::stats::ratio_interval`]).

use crate::anchor;
use ango_core::{DefectMatch, Finding, RecordKey, SpeedRecord, Verdict};
use ango_harness::stats::ratio_interval;
use std::fmt::Write as _;

struct Q<'a>(&'a [SpeedRecord]);

impl<'a> Q<'a> {
    fn get(
        &self,
        algo: &str,
        backend: &str,
        hw: &str,
        op: &str,
        size: u64,
    ) -> Option<&'a SpeedRecord> {
        self.0.iter().rev().find(|r| {
            r.algorithm == algo
                && r.backend == backend
                && r.hw == hw
                && r.operation == op
                && r.size_bytes == size
        })
    }
    fn sizes(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.0.iter().map(|r| r.size_bytes).collect();
        v.sort();
        v.dedup();
        v
    }
    fn backends(&self) -> Vec<String> {
        let mut v: Vec<String> = self.0.iter().map(|r| r.backend.clone()).collect();
        v.sort();
        v.dedup();
        v
    }
}

fn mbps(r: &SpeedRecord) -> f64 {
    r.bytes_per_second / 1e6
}

/// The time of `r` as (median, ci low, ci high), ns.
fn t(r: &SpeedRecord) -> (f64, f64, f64) {
    (r.stats.median, r.stats.ci95_low, r.stats.ci95_high)
}

/// How many times faster `fast` is than `slow` (same message size), with
/// its interval: slow's time ÷ fast's time. Two implementations of one
/// point sampled in turn give their paired ratio (round by round, its
/// Hodges-Lehmann interval); any other two the ratio of their medians
/// with the conservative interval from the medians' own.
pub fn speedup(fast: &SpeedRecord, slow: &SpeedRecord) -> (f64, f64, f64) {
    paired(fast, slow).unwrap_or_else(|| ratio_interval(t(slow), t(fast)))
}

/// The paired ratio slow ÷ fast when both are members of one group (same
/// algorithm, operation, size, setting and workers, sampled in turn).
pub fn paired(fast: &SpeedRecord, slow: &SpeedRecord) -> Option<(f64, f64, f64)> {
    let same = fast.algorithm == slow.algorithm
        && fast.operation == slow.operation
        && fast.size_bytes == slow.size_bytes
        && fast.hw == slow.hw
        && fast.workers == slow.workers
        && fast.head.suite == slow.head.suite;
    if !same {
        return None;
    }
    let p = fast.paired_to(&slow.backend, Some(&slow.implementation))?;
    Some((p.ratio, p.ci95_low, p.ci95_high))
}

/// The verdict on "the ratio exceeds `bar`": holds when the whole interval
/// is above it, does not hold when the whole interval is at or below it.
pub fn above(r: (f64, f64, f64), bar: f64) -> Verdict {
    if r.1 > bar {
        Verdict::Holds
    } else if r.2 <= bar {
        Verdict::DoesNotHold
    } else {
        Verdict::NotMeasurable
    }
}

fn ratio_finding(f: Finding, r: (f64, f64, f64), bar: f64) -> Finding {
    f.value(r.0, "×").interval(r.1, r.2).verdict(above(r, bar))
}

/// Findings of the speed study (seed 000), most important first.
pub fn speed(records: &[SpeedRecord]) -> Vec<Finding> {
    use ango_core::Algorithm as A;
    let q = Q(records);
    let mut out = Vec::new();
    let Some(&big) = q.sizes().last() else {
        return out;
    };
    let op = ango_core::Operation::Encrypt.name();
    let new = |section: &str, claim: String| Finding::new("speed", "000", section, claim);
    for b in q.backends() {
        let first = out.len();
        // AES-NI effect.
        for algo in [
            A::Aes128Gcm.name(),
            A::Aes256Gcm.name(),
            A::Aes128Ccm.name(),
            A::Aes256Ccm.name(),
            A::Aes128Ctr.name(),
            A::Aes128Ecb.name(),
        ] {
            if let (Some(on), Some(off)) = (
                q.get(algo, &b, "on", op, big),
                q.get(algo, &b, "off", op, big),
            ) {
                let (claim, bar) = if algo.contains("gcm") {
                    (
                        format!("AES-NI and PCLMULQDQ make {algo} an order of magnitude faster (seed: 12–15×); held here if more than 5×"),
                        5.0,
                    )
                } else {
                    (
                        format!(
                            "AES-NI makes {algo} several times faster; held here if more than 2×"
                        ),
                        2.0,
                    )
                };
                out.push(ratio_finding(new("§5.4", claim), speedup(on, off), bar).id("aesni", &[algo, &b]).anchor(&anchor::speed_lib(&b)).from([on.key(), off.key()]).explain(format!(
                    "{b} {algo} at {big} B, encrypt: {:.0} MB/s with hw=on against {:.0} MB/s with AES-NI and PCLMULQDQ (and VAES, VPCLMULQDQ) removed.",
                    mbps(on),
                    mbps(off)
                )));
            }
        }
        let c = A::ChaCha20Poly1305.name();
        if let (Some(on), Some(off)) = (q.get(c, &b, "on", op, big), q.get(c, &b, "off", op, big)) {
            let r = speedup(off, on);
            let verdict = if r.1 >= 0.9 && r.2 <= 1.1 {
                Verdict::Holds
            } else if r.2 < 0.9 || r.1 > 1.1 {
                Verdict::DoesNotHold
            } else {
                Verdict::NotMeasurable
            };
            out.push(
                new("§5.4", format!("{c} uses neither AES-NI nor PCLMULQDQ, so removing them leaves it within 10%"))
                    .id("chacha-no-aesni", &[&b])
                    .anchor(&anchor::speed_lib(&b))
                    .from([on.key(), off.key()])
                    .value(r.0, "×")
                    .interval(r.1, r.2)
                    .verdict(verdict)
                    .explain(format!(
                        "{b} {c} at {big} B: {:.0} MB/s with AES-NI/PCLMULQDQ off against {:.0} MB/s on (the value is off ÷ on).",
                        mbps(off),
                        mbps(on)
                    )),
            );
        }
        if let (Some(off), Some(s0)) = (
            q.get(c, &b, "off", op, big),
            q.get(c, &b, "seed000", op, big),
        ) {
            out.push(
                ratio_finding(
                    new("§5.4", format!("seed 000's mask (~0x200000200000000, no ':' part) slows {c}, which the seed read as '{c} speeds up with AES-NI'")),
                    speedup(off, s0),
                    1.05,
                )
                .id("seed-mask", &[&b])
                .anchor(&anchor::speed_lib(&b))
                .from([off.key(), s0.key()])
                .explain(format!(
                    "{b} {c} at {big} B: {:.0} MB/s under seed 000's mask against {:.0} MB/s under the precise mask (~0x200000200000000:~0x60000000000:~0:~0:~0). Without a ':' part OpenSSL also clears its extended word (AVX2, BMI2, ADX, VAES).",
                    mbps(s0),
                    mbps(off)
                )),
            );
        }
        for hw in ["on", "off", "seed000"] {
            if let (Some(g), Some(cp)) = (
                q.get(A::Aes128Gcm.name(), &b, hw, op, big),
                q.get(c, &b, hw, op, big),
            ) {
                let (claim, r) = if hw == "on" {
                    (
                        "with AES-NI, AES-128-GCM is faster than ChaCha20-Poly1305 (seed: 1.4–3×)",
                        speedup(g, cp),
                    )
                } else {
                    (
                        "without AES-NI, ChaCha20-Poly1305 is faster than AES-128-GCM (seed: 3–5×)",
                        speedup(cp, g),
                    )
                };
                out.push(
                    ratio_finding(new("§5.4", claim.into()), r, 1.0)
                        .id("gcm-vs-chacha", &[&b, &format!("hw-{hw}")])
                        .anchor(&anchor::speed_lib(&b))
                        .from([g.key(), cp.key()])
                        .explain(format!(
                    "{b} hw={hw} at {big} B: AES-128-GCM {:.0} MB/s, ChaCha20-Poly1305 {:.0} MB/s.",
                    mbps(g),
                    mbps(cp)
                )),
                );
            }
        }
        for (ccm, ctr) in [
            (A::Aes128Ccm.name(), A::Aes128Ctr.name()),
            (A::Aes256Ccm.name(), A::Aes256Ctr.name()),
        ] {
            for hw in ["on", "off"] {
                if let (Some(m), Some(tr)) =
                    (q.get(ccm, &b, hw, op, big), q.get(ctr, &b, hw, op, big))
                {
                    out.push(ratio_finding(
                        new("§5.3.3", format!("{ccm}, timed one whole message per operation, takes longer than {ctr} (CCM is CTR plus a CBC-MAC over the message)")),
                        speedup(tr, m),
                        1.0,
                    ).id("ccm-vs-ctr", &[ccm, &b, &format!("hw-{hw}")]).anchor(&anchor::speed_lib(&b)).from([m.key(), tr.key()]).explain(format!(
                        "{b} hw={hw} at {big} B: {ccm} takes {:.1}× as long as {ctr} ({:.0} vs {:.0} MB/s); seed 000 §5.3.3 found `openssl speed` timing CCM with one Init per many Updates.",
                        tr.bytes_per_second / m.bytes_per_second,
                        mbps(m),
                        mbps(tr)
                    )));
                }
            }
        }
        if let (Some(cp), Some(cc)) = (
            q.get(c, &b, "on", op, big),
            q.get(A::ChaCha20.name(), &b, "on", op, big),
        ) {
            // Share of ChaCha20's throughput lost: 1 - cc_time / cp_time.
            let r = ratio_interval(t(cc), t(cp));
            let cost = |x: f64| (1.0 - x) * 100.0;
            let (v, lo, hi) = (cost(r.0), cost(r.2), cost(r.1));
            let verdict = if lo >= 15.0 && hi <= 45.0 {
                Verdict::Holds
            } else if hi < 15.0 || lo > 45.0 {
                Verdict::DoesNotHold
            } else {
                Verdict::NotMeasurable
            };
            out.push(
                new("§5.4", "adding Poly1305 costs about 30% of ChaCha20's throughput (held here if 15–45%)".into())
                    .id("poly1305-cost", &[&b])
                    .anchor(&anchor::speed_lib(&b))
                    .from([cp.key(), cc.key()])
                    .value(v, "%")
                    .interval(lo, hi)
                    .verdict(verdict)
                    .explain(format!(
                        "{b} hw=on at {big} B: ChaCha20-Poly1305 {:.0} MB/s against ChaCha20 {:.0} MB/s.",
                        mbps(cp),
                        mbps(cc)
                    )),
            );
        }
        // Each claim is about one backend's figures.
        for f in &mut out[first..] {
            f.claim = format!("[{b}] {}", f.claim);
        }
    }
    let backends = q.backends();
    if backends.len() > 1 {
        for algo in [
            A::Aes128Gcm.name(),
            A::ChaCha20Poly1305.name(),
            A::Aes128Ccm.name(),
        ] {
            let v: Vec<&SpeedRecord> = backends
                .iter()
                .filter_map(|b| q.get(algo, b, "on", op, big))
                .collect();
            let (Some(fast), Some(slow)) = (
                v.iter()
                    .max_by(|x, y| x.bytes_per_second.total_cmp(&y.bytes_per_second)),
                v.iter()
                    .min_by(|x, y| x.bytes_per_second.total_cmp(&y.bytes_per_second)),
            ) else {
                continue;
            };
            if v.len() > 1 {
                let parts: Vec<String> = v
                    .iter()
                    .map(|r| format!("{} {:.0} MB/s", r.backend, mbps(r)))
                    .collect();
                out.push(
                    ratio_finding(
                        Finding::new(
                            "speed",
                            "ango",
                            "",
                            format!(
                                "{} is the fastest {algo} here, ahead of {}",
                                fast.backend, slow.backend
                            ),
                        ),
                        speedup(fast, slow),
                        1.0,
                    )
                    .id("fastest", &[algo])
                    .anchor(anchor::SPEED_FASTEST)
                    .from(v.iter().map(|r| r.key()))
                    .explain(format!(
                        "hw=on at {big} B by backend: {}.",
                        parts.join(", ")
                    )),
                );
            }
        }
    }
    // Groups whose paired ratios were not steady when their time was up
    // (each member's record says so; count each group once).
    let distinct = |steady_too: bool| {
        let mut v: Vec<(&str, &str, &str, u64, u32)> = records
            .iter()
            .filter(|r| {
                r.paired
                    .as_ref()
                    .is_some_and(|p| p.steady_within.is_some() && (steady_too || !p.steady))
            })
            .map(|r| {
                (
                    r.algorithm.as_str(),
                    r.operation.as_str(),
                    r.hw.as_str(),
                    r.size_bytes,
                    r.workers,
                )
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let (unsteady, groups) = (distinct(false), distinct(true));
    if !groups.is_empty() {
        let within = records
            .iter()
            .find_map(|r| r.paired.as_ref().and_then(|p| p.steady_within))
            .expect("every group counted has its bound");
        let f = Finding::new(
            "speed",
            "ango",
            "",
            format!(
                "every point's implementations compare steadily (each paired ratio's 95% interval within ±{:.0}%)",
                within * 100.0
            ),
        )
        .id("steady", &[])
        .anchor(anchor::SPEED_PAIRED)
        .value(unsteady.len() as f64, "unsteady points");
        out.push(if unsteady.is_empty() {
            f.verdict(Verdict::Holds).explain(format!(
                "all {} points sampled side by side reached the bound before their time was up.",
                groups.len()
            ))
        } else {
            f.verdict(Verdict::DoesNotHold).explain(format!(
                "{} of {} points sampled side by side had a ratio wider than the bound when their time (and its retries) was up; their ratios are still shown, with their intervals.",
                unsteady.len(),
                groups.len()
            ))
        });
    }
    let noisy = records.iter().filter(|r| r.noisy).count();
    if noisy > 0 {
        out.push(
            Finding::new("speed", "ango", "", "every point is steady (robust CV at most 5%)")
                .id("noisy", &[])
                .anchor(anchor::SPEED_ALL)
                .from(records.iter().filter(|r| r.noisy).map(|r| r.key()))
                .value(noisy as f64, "noisy points")
                .verdict(Verdict::DoesNotHold)
                .explain(format!(
                    "{noisy} of {} points were noisy (robust CV above 5% over all their rounds); their medians are still shown, marked '~' in tables.",
                    records.len()
                )),
        );
    }
    out
}

/// Findings of the latency study (seed 001): where each implementation
/// overtakes the portable variant of ango's own code.
pub fn latency(records: &[SpeedRecord], variant_providers: &[String]) -> Vec<Finding> {
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    let mut algos: Vec<&str> = records.iter().map(|r| r.algorithm.as_str()).collect();
    algos.sort();
    algos.dedup();
    for algo in algos {
        // label -> size -> record
        let mut by: BTreeMap<String, BTreeMap<u64, &SpeedRecord>> = BTreeMap::new();
        for r in records
            .iter()
            .filter(|r| r.algorithm == algo && r.operation == ango_core::Operation::Encrypt.name())
        {
            let label = if variant_providers.contains(&r.backend) {
                r.implementation.clone()
            } else {
                r.backend.clone()
            };
            by.entry(label).or_default().insert(r.size_bytes, r);
        }
        let Some(base) = by
            .keys()
            .filter(|k| k.contains("/portable"))
            .max_by_key(|k| k.contains("radix44"))
            .cloned()
        else {
            continue;
        };
        let base_pts = by[&base].clone();
        for (label, pts) in &by {
            if *label == base {
                continue;
            }
            // (size, its median, the base's median, base ÷ it: the paired
            // ratio where the two were sampled in turn).
            let common: Vec<(u64, f64, f64, f64)> = pts
                .iter()
                .filter_map(|(s, m)| {
                    let b = base_pts.get(s)?;
                    let r = speedup(m, b).0;
                    Some((*s, m.stats.median, b.stats.median, r))
                })
                .collect();
            if common.len() < 2 {
                continue;
            }
            // The smallest length from which this implementation stays faster.
            let mut cross: Option<u64> = None;
            for (s, _, _, r) in common.iter().rev() {
                if *r > 1.0 {
                    cross = Some(*s);
                } else {
                    break;
                }
            }
            let (s0, m0, b0, r0) = common[0];
            let short = if r0 > 1.02 {
                "faster"
            } else if r0 < 1.0 / 1.02 {
                "slower"
            } else {
                "no faster"
            };
            let (text, verdict) = match cross {
                Some(c) if c == s0 => (format!("{label} is faster than {base} at every length measured ({s0} B: {m0:.1} vs {b0:.1} ns)"), Verdict::DoesNotHold),
                Some(c) => (format!(
                    "{label} is {short} than {base} at {s0} B ({m0:.1} vs {b0:.1} ns) and faster from {c} B on"
                ), Verdict::Holds),
                None => (format!("{label} never stays faster than {base} up to the longest length measured"), Verdict::DoesNotHold),
            };
            let mut f = Finding::new(
                "latency",
                "001",
                "Table 1",
                format!("{algo}: {label} loses to the simple {base} on short messages and wins on long ones"),
            )
            .id("crossover", &[algo, label])
            .anchor(&anchor::latency(algo))
            .from(pts.values().chain(base_pts.values()).map(|r| r.key()))
            .verdict(verdict)
            .explain(format!("{algo}: {text}."));
            if let Some(c) = cross {
                f = f.value(c as f64, "B (crossover)");
            }
            out.push(f);
        }
    }
    out
}

/// A known library defect as a finding of ango's own: the pair fails
/// verification and is never timed (an `input-check` one still is).
pub fn defect(backend: &str, algorithm: &str, m: &DefectMatch) -> Finding {
    Finding::new(
        "verify",
        "ango",
        "",
        format!("{backend} {algorithm} passes verification"),
    )
    .id("defect", &[&m.id, backend, algorithm])
    .anchor(anchor::OWN_CHECKS)
    .value(m.cases.len() as f64, "failing cases")
    .verdict(Verdict::DoesNotHold)
    .explain(format!(
        "{}. {}. Cases: {}.",
        m.detail(),
        {
            let t = m.timing_note();
            let mut c = t.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        },
        ango_core::finding::short_cases(&m.cases)
    ))
}

/// A known library defect met in a run, with where it was met.
pub struct Met<'a> {
    pub backend: &'a str,
    pub algorithm: &'a str,
    pub m: &'a DefectMatch,
}

/// The known library defects recorded in a run's events (`pk_check` and
/// `kat` events with matches), in the order met, once per (backend,
/// algorithm, defect): a symmetric pair is checked again under each
/// hardware setting.
pub fn defects_met(events: &[ango_core::event::Event]) -> Vec<Met<'_>> {
    use ango_core::event::Event;
    let mut out: Vec<Met> = Vec::new();
    for e in events {
        let (backend, algorithm, known) = match e {
            Event::Kat {
                backend,
                algorithm,
                known,
                ..
            } => (backend.as_str(), algorithm.name(), known),
            Event::PkCheck {
                backend,
                algorithm,
                known,
                ..
            } => (backend.as_str(), algorithm.name(), known),
            _ => continue,
        };
        for m in known {
            if !out
                .iter()
                .any(|x| x.backend == backend && x.algorithm == algorithm && x.m.id == m.id)
            {
                out.push(Met {
                    backend,
                    algorithm,
                    m,
                });
            }
        }
    }
    out
}

/// The known library defects recorded in a run's events, as findings, in
/// the order met.
pub fn defects_in_events(events: &[ango_core::event::Event]) -> Vec<Finding> {
    defects_met(events)
        .iter()
        .map(|x| defect(x.backend, x.algorithm, x.m))
        .collect()
}

/// Findings as terminal lines: `[holds] claim: value — explanation`.
pub fn text(findings: &[Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        let _ = writeln!(
            s,
            "- [{}] {} ({}){}: {}",
            f.verdict,
            f.claim,
            f.source(),
            if f.value.is_some() {
                format!(" — {}", f.value_text())
            } else {
                String::new()
            },
            f.explanation
        );
    }
    s
}

/// Findings as an HTML table (verdict, claim, source, value, what was
/// measured).
pub fn html(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let e = crate::svg::escape;
    let mut s = String::from(
        "<table class=\"findings\"><tr><th>verdict</th><th>claim</th><th>source</th><th>measured here (95% interval)</th><th>what was measured</th></tr>",
    );
    for f in findings {
        let _ = write!(
            s,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            f.verdict,
            f.verdict,
            e(&f.claim),
            e(&f.source()),
            e(&f.value_text()),
            e(&f.explanation)
        );
    }
    s.push_str("</table>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(algo: &str, hw: &str, bps: f64) -> SpeedRecord {
        let mut r: SpeedRecord = serde_json::from_value(serde_json::json!({
            "schema": 1, "run_id": "t", "suite": "speed", "algorithm": algo, "operation": "encrypt",
            "backend": "openssl", "implementation": "evp", "hw": hw, "ia32cap": null,
            "library_cpu_view": null, "size_bytes": 16384, "aad_bytes": 13, "samples": 10,
            "iterations_per_sample": 1, "median_ns": 1.0, "q1_ns": 1.0, "q3_ns": 1.0, "mean_ns": 1.0,
            "sd_ns": 0.0, "min_ns": 1.0, "max_ns": 1.0, "robust_cv": 0.0, "ci95_low_ns": 1.0,
            "ci95_high_ns": 1.0, "bytes_per_second": 1.0, "cycles_per_byte": null,
            "cycles_per_op": null, "cycle_source": "tsc", "timer_overhead_ns": 20.0, "noisy": false, "attempts": 1,
            "warnings": [], "kat": "pass 1/1", "method": "m", "time": "t"
        }))
        .unwrap();
        r.bytes_per_second = bps;
        r.stats.median = 16384.0 / bps * 1e9;
        r.stats.ci95_low = r.stats.median;
        r.stats.ci95_high = r.stats.median;
        r
    }

    #[test]
    fn verdicts_follow_the_interval() {
        assert_eq!(above((3.0, 2.5, 3.5), 2.0), Verdict::Holds);
        assert_eq!(above((1.8, 1.5, 1.9), 2.0), Verdict::DoesNotHold);
        assert_eq!(above((2.1, 1.9, 2.3), 2.0), Verdict::NotMeasurable);
    }

    #[test]
    fn aes_ni_ratio_and_ccm_vs_ctr() {
        let rs = vec![
            rec("aes-128-gcm", "on", 8e9),
            rec("aes-128-gcm", "off", 1e9),
            rec("aes-128-ccm", "on", 1e9),
            rec("aes-128-ctr", "on", 4e9),
        ];
        let fs = speed(&rs);
        let gcm = fs
            .iter()
            .find(|f| f.claim.contains("aes-128-gcm an order of magnitude"))
            .unwrap();
        assert_eq!(gcm.value, Some(8.0));
        assert_eq!(gcm.verdict, Verdict::Holds);
        let ccm = fs.iter().find(|f| f.section == "§5.3.3").unwrap();
        assert_eq!(ccm.value, Some(4.0));
        assert!(
            ccm.explanation
                .contains("aes-128-ccm takes 4.0× as long as aes-128-ctr"),
            "{}",
            ccm.explanation
        );
        let txt = text(&fs);
        assert!(
            txt.contains("[holds]") && txt.contains("seed 000 §5.4"),
            "{txt}"
        );
    }
}
