//! Plain-language findings drawn from a run's records, each set beside what
//! seed 000 found. Every ratio compares medians measured in the same run.

use ango_core::SpeedRecord;

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

/// Findings for the speed study, most important first.
pub fn speed(records: &[SpeedRecord]) -> Vec<String> {
    let q = Q(records);
    let mut out = Vec::new();
    let Some(&big) = q.sizes().last() else {
        return out;
    };
    let op = "encrypt";
    for b in q.backends() {
        // AES-NI effect.
        for algo in [
            "aes-128-gcm",
            "aes-256-gcm",
            "aes-128-ccm",
            "aes-256-ccm",
            "aes-128-ctr",
            "aes-128-ecb",
        ] {
            if let (Some(on), Some(off)) = (
                q.get(algo, &b, "on", op, big),
                q.get(algo, &b, "off", op, big),
            ) {
                let seed = if algo.contains("gcm") {
                    " (seed 000: 12–15× for AES-GCM)"
                } else {
                    ""
                };
                out.push(format!(
                    "{b} {algo} at {big} B: {:.1}× slower with AES-NI and PCLMULQDQ off ({:.0} vs {:.0} MB/s){seed}.",
                    on.bytes_per_second / off.bytes_per_second,
                    mbps(on),
                    mbps(off)
                ));
            }
        }
        let c = "chacha20-poly1305";
        if let (Some(on), Some(off)) = (q.get(c, &b, "on", op, big), q.get(c, &b, "off", op, big)) {
            let d = (off.bytes_per_second / on.bytes_per_second - 1.0) * 100.0;
            out.push(format!(
                "{b} {c} at {big} B: {d:+.1}% with AES-NI/PCLMULQDQ off ({:.0} vs {:.0} MB/s) — it uses neither, so the precise mask leaves it alone.",
                mbps(off),
                mbps(on)
            ));
        }
        if let (Some(off), Some(s0)) = (
            q.get(c, &b, "off", op, big),
            q.get(c, &b, "seed000", op, big),
        ) {
            out.push(format!(
                "{b} {c} at {big} B: seed 000's mask (~0x200000200000000, no ':' part) gives {:.0} MB/s against {:.0} MB/s with the precise mask (~0x200000200000000:~0x60000000000:~0:~0:~0): {:.2}×. Without a ':' part OpenSSL also clears its extended word (AVX2, BMI2, ADX, VAES), which is why the seed saw ChaCha20-Poly1305 'speed up with AES-NI' on AVX2 machines.",
                mbps(s0),
                mbps(off),
                off.bytes_per_second / s0.bytes_per_second
            ));
        }
        for hw in ["on", "off", "seed000"] {
            if let (Some(g), Some(cp)) = (
                q.get("aes-128-gcm", &b, hw, op, big),
                q.get(c, &b, hw, op, big),
            ) {
                let r = g.bytes_per_second / cp.bytes_per_second;
                let seed = match hw {
                    "on" => "seed 000: AES-GCM wins 1.4–3× with AES-NI",
                    _ => "seed 000: ChaCha20-Poly1305 wins 3–5× without AES-NI",
                };
                let text = if r >= 1.0 {
                    format!("AES-128-GCM is {r:.2}× faster than ChaCha20-Poly1305")
                } else {
                    format!(
                        "ChaCha20-Poly1305 is {:.2}× faster than AES-128-GCM",
                        1.0 / r
                    )
                };
                out.push(format!("{b} hw={hw} at {big} B: {text} ({seed})."));
            }
        }
        for (ccm, ctr) in [
            ("aes-128-ccm", "aes-128-ctr"),
            ("aes-256-ccm", "aes-256-ctr"),
        ] {
            for hw in ["on", "off"] {
                if let (Some(m), Some(t)) =
                    (q.get(ccm, &b, hw, op, big), q.get(ctr, &b, hw, op, big))
                {
                    out.push(format!(
                        "{b} hw={hw} at {big} B: {ccm} runs at {:.2}× the time of {ctr} ({:.0} vs {:.0} MB/s) — CCM is CTR plus a CBC-MAC over the message, measured here one whole message per operation (seed 000 §5.3.3: `openssl speed` timed CCM with one Init per many Updates).",
                        t.bytes_per_second / m.bytes_per_second,
                        mbps(m),
                        mbps(t)
                    ));
                }
            }
        }
        if let (Some(cp), Some(cc)) = (
            q.get(c, &b, "on", op, big),
            q.get("chacha20", &b, "on", op, big),
        ) {
            out.push(format!(
                "{b} hw=on at {big} B: adding Poly1305 costs {:.0}% of ChaCha20's throughput ({:.0} vs {:.0} MB/s; seed 000 §5.4: about 30%).",
                (1.0 - cp.bytes_per_second / cc.bytes_per_second) * 100.0,
                mbps(cp),
                mbps(cc)
            ));
        }
    }
    let backends = q.backends();
    if backends.len() > 1 {
        for algo in ["aes-128-gcm", "chacha20-poly1305", "aes-128-ccm"] {
            let v: Vec<(String, f64)> = backends
                .iter()
                .filter_map(|b| q.get(algo, b, "on", op, big).map(|r| (b.clone(), mbps(r))))
                .collect();
            if v.len() > 1 {
                let parts: Vec<String> =
                    v.iter().map(|(b, m)| format!("{b} {m:.0} MB/s")).collect();
                out.push(format!(
                    "{algo} hw=on at {big} B by backend: {}.",
                    parts.join(", ")
                ));
            }
        }
    }
    let noisy = records.iter().filter(|r| r.noisy).count();
    if noisy > 0 {
        out.push(format!(
            "{noisy} of {} points were noisy (robust CV above 5%); their medians are still shown, marked '~' in tables.",
            records.len()
        ));
    }
    out
}

/// Findings of the latency study (seed 001): where each implementation
/// overtakes the portable variant of ango's own code.
pub fn latency(records: &[SpeedRecord]) -> Vec<String> {
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    let mut algos: Vec<&str> = records.iter().map(|r| r.algorithm.as_str()).collect();
    algos.sort();
    algos.dedup();
    for algo in algos {
        // label -> size -> median ns
        let mut by: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
        for r in records
            .iter()
            .filter(|r| r.algorithm == algo && r.operation == "encrypt")
        {
            let label = if r.backend == "ango" {
                r.implementation.clone()
            } else {
                r.backend.clone()
            };
            by.entry(label)
                .or_default()
                .insert(r.size_bytes, r.median_ns);
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
            let common: Vec<(u64, f64, f64)> = pts
                .iter()
                .filter_map(|(s, m)| base_pts.get(s).map(|b| (*s, *m, *b)))
                .collect();
            if common.len() < 2 {
                continue;
            }
            // The smallest length from which this implementation stays faster.
            let mut cross: Option<u64> = None;
            for (s, m, b) in common.iter().rev() {
                if m < b {
                    cross = Some(*s);
                } else {
                    break;
                }
            }
            let (s0, m0, b0) = common[0];
            let short = if m0 < b0 * 0.98 {
                "faster"
            } else if m0 > b0 * 1.02 {
                "slower"
            } else {
                "no faster"
            };
            let text = match cross {
                Some(c) if c == s0 => format!("{label} is faster than {base} at every length measured ({s0} B: {m0:.1} vs {b0:.1} ns)"),
                Some(c) => format!(
                    "{label} is {short} than {base} at {s0} B ({m0:.1} vs {b0:.1} ns) and faster from {c} B on"
                ),
                None => format!("{label} never stays faster than {base} up to the longest length measured"),
            };
            out.push(format!("{algo}: {text}."));
        }
    }
    out
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
        r
    }

    #[test]
    fn aes_ni_ratio_and_ccm_vs_ctr() {
        let rs = vec![
            rec("aes-128-gcm", "on", 8e9),
            rec("aes-128-gcm", "off", 1e9),
            rec("aes-128-ccm", "on", 1e9),
            rec("aes-128-ctr", "on", 4e9),
        ];
        let f = speed(&rs).join("\n");
        assert!(f.contains("aes-128-gcm at 16384 B: 8.0× slower"), "{f}");
        assert!(
            f.contains("aes-128-ccm runs at 4.00× the time of aes-128-ctr"),
            "{f}"
        );
    }
}
