//! How a claim's verdict was derived: `ango report DIR --claim ID` prints
//! the finding with the records it was computed from, each with the
//! figures the finding read.

use crate::formats::wrap;
use ango_core::{Finding, Record, Records};

/// One record's figures in a line: what a finding reads of it.
pub fn summary(r: &Record) -> String {
    let ns = |x: f64| {
        if x >= 1e6 {
            format!("{:.3} ms", x / 1e6)
        } else if x >= 1e3 {
            format!("{:.2} µs", x / 1e3)
        } else {
            format!("{x:.1} ns")
        }
    };
    match r {
        Record::Speed(r) => {
            let mut s = format!(
                "median {} [{}–{}] a message, {:.1} MB/s, robust CV {:.1}%, {} samples",
                ns(r.stats.median),
                ns(r.stats.ci95_low),
                ns(r.stats.ci95_high),
                r.bytes_per_second / 1e6,
                r.stats.robust_cv * 100.0,
                r.samples
            );
            if let Some(p) = &r.paired {
                let vs: Vec<String> =
                    p.vs.iter()
                        .map(|v| {
                            format!(
                                "{} {} {:.3} [{:.3}–{:.3}]",
                                v.backend, v.implementation, v.ratio, v.ci95_low, v.ci95_high
                            )
                        })
                        .collect();
                s.push_str(&format!(
                    "; paired over {} rounds ({}): {}",
                    p.rounds,
                    p.estimator,
                    vs.join(", ")
                ));
            }
            s
        }
        Record::Pk(r) => format!(
            "median {} [{}–{}], p99 {}, robust CV {:.1}%, {} calls",
            ns(r.stats.median),
            ns(r.stats.ci95_low),
            ns(r.stats.ci95_high),
            ns(r.stats.p99),
            r.stats.robust_cv * 100.0,
            r.iterations
        ),
        Record::PkMemory(r) => format!(
            "peak stack {} B (median {}), peak heap {} B (median {}), {} allocations (median \
             {}), {} calls",
            r.peak_stack_bytes,
            r.peak_stack_bytes_median,
            r.peak_heap_bytes,
            r.peak_heap_bytes_median,
            r.allocations,
            r.allocations_median,
            r.calls
        ),
        Record::Tls(r) => format!(
            "{} handshakes ({} failed); server flight {} B in {} segments{}; ServerHello sent to \
             Finished sent {}; RTT {}",
            r.handshakes,
            r.failures,
            r.server_flight_bytes
                .map_or("?".into(), |b| format!("{b:.0}")),
            r.server_flight_segments
                .map_or("?".into(), |s| format!("{s:.0}")),
            r.server_flight_writes.map_or(String::new(), |w| format!(
                ", {w:.0} write calls (the first {} B, then a gap of {})",
                r.server_first_write_bytes
                    .map_or("?".into(), |b| format!("{b:.0}")),
                r.server_write_gap_ns.map_or("–".into(), ns)
            )),
            r.server_sh_send_to_finished_send_ns.map_or("?".into(), ns),
            r.rtt_ns.map_or("?".into(), ns)
        ),
        Record::Ct(r) => format!(
            "memcheck {}, max |t| {:.2} over {} measurements: {}",
            r.memcheck,
            r.max_abs_t,
            r.measurements,
            r.verdict.name()
        ),
        Record::Cycles(r) => format!(
            "median {:.0} {} per {} ({}), robust CV {:.1}%",
            r.cycles_per_op.unwrap_or(r.stats.median),
            if r.cycles_per_op.is_some() {
                r.cycle_source.as_str()
            } else {
                "ns"
            },
            r.unit,
            r.chain,
            r.stats.robust_cv * 100.0
        ),
        Record::TlsRecords(r) => format!(
            "{} B of plaintext in {} B on the wire (+{} B, {:.2}%)",
            r.plaintext_bytes, r.wire_bytes, r.overhead_bytes, r.overhead_percent
        ),
        Record::TlsBulk(r) => format!(
            "{:.0} MB/s [{:.0}–{:.0}]; client CPU {:.3} ns/B, server {:.3} ns/B",
            r.bytes_per_second / 1e6,
            r.bytes_per_second_q1 / 1e6,
            r.bytes_per_second_q3 / 1e6,
            r.client_cpu_ns_per_byte,
            r.server_cpu_ns_per_byte
        ),
        Record::TlsPolicy(r) => format!(
            "negotiated {}; client cost {}",
            r.negotiated_suite,
            r.client_cost_ns_per_byte
                .map_or("unknown".into(), |c| format!("{c:.3} ns/B"))
        ),
    }
}

/// The claim's derivation, for the terminal (lines of at most `width`
/// columns): the claim and its verdict, the value with its interval, how
/// it was measured, and each record it was computed from.
pub fn derivation(f: &Finding, records: &Records, width: usize) -> String {
    let mut out = String::new();
    out.push_str(&wrap(
        &format!("claim {} ({}): {}", f.id, f.source(), f.claim),
        width,
        "    ",
    ));
    out.push_str(&wrap(
        &format!(
            "verdict: {}{}",
            f.verdict,
            if f.value.is_some() {
                format!("; measured {}", f.value_text())
            } else {
                String::new()
            }
        ),
        width,
        "    ",
    ));
    if !f.explanation.is_empty() {
        out.push_str(&wrap(&format!("how: {}", f.explanation), width, "    "));
    }
    let keyed = records.keyed();
    if f.sources.is_empty() {
        out.push_str("from: no records (a reading of the run's checks)\n");
    } else {
        out.push_str(&format!("from {} records:\n", f.sources.len()));
        for k in &f.sources {
            match keyed.iter().find(|(key, _)| key == k) {
                Some((_, r)) => {
                    out.push_str(&wrap(&format!("- {k}: {}", summary(r)), width, "    "))
                }
                None => out.push_str(&wrap(
                    &format!("- {k}: not in this directory's results.jsonl"),
                    width,
                    "    ",
                )),
            }
        }
    }
    if !f.anchor.is_empty() {
        out.push_str(&format!("shown on the page at report.html#{}\n", f.anchor));
    }
    out
}

/// Keys of `records` matching the record each has: a sanity aid for the
/// tests (every source a finding names is a record of the run).
pub fn missing_sources<'a>(f: &'a Finding, records: &Records) -> Vec<&'a str> {
    let keys: Vec<String> = records.keyed().into_iter().map(|(k, _)| k).collect();
    f.sources
        .iter()
        .filter(|s| !keys.contains(s))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::RecordKey;

    #[test]
    fn a_claim_names_its_records_and_their_figures() {
        let v = serde_json::json!({
            "schema": 2, "schema_version": 2, "suite": "cycles", "run_id": "r",
            "algorithm": "camellia-128-ecb", "cipher": "camellia", "backend": "ango",
            "implementation": "camellia/table64-nct", "path": "", "library_version": "",
            "key_bits": 128, "operation": "encrypt", "chained": true, "chain": "ciphertext",
            "unit": "block", "iterations": 1000, "samples": 11,
            "median_ns": 80.0, "q1_ns": 1.0, "q3_ns": 1.0, "mean_ns": 1.0, "sd_ns": 0.0,
            "min_ns": 1.0, "max_ns": 1.0, "robust_cv": 0.0, "ci95_low_ns": 1.0,
            "ci95_high_ns": 1.0, "cycles_per_op": 200.0, "cycle_source": "tsc",
            "table_bytes": 4096, "l1d_bytes": 32768, "kat": "pass 6/6", "noisy": false,
            "warnings": [], "method": "", "time": ""
        });
        let r = Record::from_value(v).unwrap();
        let mut all = Records::default();
        all.push(r.clone());
        let f = Finding::new("cycles", "002", "Table 5", "a claim")
            .id("topic", &["camellia-128-ecb"])
            .anchor("s002-table5")
            .from([r.key(), "cycles/none".to_string()])
            .value(1.25, "ratio");
        assert_eq!(f.id, "002-topic-camellia-128-ecb");
        let d = derivation(&f, &all, 100);
        assert!(d.lines().all(|l| l.chars().count() <= 100), "{d}");
        let flat = d.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("claim 002-topic-camellia-128-ecb (seed 002 Table 5)"),
            "{d}"
        );
        assert!(
            flat.contains("median 200 tsc per block (ciphertext)"),
            "{d}"
        );
        assert!(flat.contains("cycles/none: not in this directory"), "{d}");
        assert_eq!(missing_sources(&f, &all), ["cycles/none"]);
    }
}
