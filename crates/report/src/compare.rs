//! `ango compare A B`: two results directories, or two configurations of one
//! (`DIR@hw=on` against `DIR@hw=off`), side by side as throughput ratios with
//! an interval.
//!
//! The interval of a ratio is built from the two medians' 95% confidence
//! intervals, [B_low / A_high, B_high / A_low] on times, so it is
//! conservative; a ratio whose interval excludes 1 is marked significant.

use ango_core::{Error, Result, SpeedRecord};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub const FILTER_KEYS: &str = "hw, backend, impl, op, algorithm, size, workers";

/// One side of a comparison: a directory and optional filters.
#[derive(Clone, Debug)]
pub struct Selector {
    pub path: PathBuf,
    pub filters: Vec<(String, String)>,
}

impl Selector {
    /// Parse `DIR` or `DIR@key=value[,key=value...]`.
    pub fn parse(s: &str) -> Result<Selector> {
        let (path, rest) = match s.rsplit_once('@') {
            Some((p, r)) if r.contains('=') => (p, Some(r)),
            _ => (s, None),
        };
        let mut filters = Vec::new();
        if let Some(r) = rest {
            for kv in r.split(',') {
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    Error::usage(format!("bad filter '{kv}' in '{s}'; write DIR@key=value with key one of {FILTER_KEYS}"))
                })?;
                let k = match k.trim() {
                    "hw" => "hw",
                    "backend" => "backend",
                    "op" | "operation" => "operation",
                    "algo" | "algorithm" => "algorithm",
                    "size" => "size_bytes",
                    "impl" | "implementation" => "implementation",
                    "workers" => "workers",
                    other => {
                        return Err(Error::usage(format!(
                            "unknown filter key '{other}'; valid: {FILTER_KEYS}"
                        )))
                    }
                };
                filters.push((k.to_string(), v.trim().to_string()));
            }
        }
        Ok(Selector {
            path: PathBuf::from(path),
            filters,
        })
    }

    fn field(r: &SpeedRecord, k: &str) -> String {
        match k {
            "hw" => r.hw.clone(),
            "backend" => r.backend.clone(),
            "operation" => r.operation.clone(),
            "algorithm" => r.algorithm.clone(),
            "size_bytes" => r.size_bytes.to_string(),
            "implementation" => r.implementation.clone(),
            "workers" => r.workers.to_string(),
            _ => String::new(),
        }
    }

    /// Every filter must match some record of this side, and the side
    /// must have speed records: otherwise one line naming the values it
    /// does have (a typo such as `hw=maybe` is not an empty comparison).
    pub fn check(&self, records: &[SpeedRecord], side: &str) -> Result<()> {
        if records.is_empty() {
            return Err(Error::usage(format!(
                "{side} {}: no speed or latency records to compare (a public-key or TLS run, or an \
                 empty one)",
                self.path.display()
            )));
        }
        for (k, v) in &self.filters {
            if records.iter().any(|r| Selector::field(r, k) == *v) {
                continue;
            }
            let mut have: Vec<String> = records.iter().map(|r| Selector::field(r, k)).collect();
            have.sort();
            have.dedup();
            return Err(Error::usage(format!(
                "{side} {}: no record has {k}={v}; valid values of {k} there: {}",
                self.path.display(),
                have.join(", ")
            )));
        }
        if !records.iter().any(|r| self.keep(r)) {
            return Err(Error::usage(format!(
                "{side} {}: no record matches all of its filters together",
                self.path.display()
            )));
        }
        Ok(())
    }

    pub fn keep(&self, r: &SpeedRecord) -> bool {
        self.filters
            .iter()
            .all(|(k, v)| Selector::field(r, k) == *v)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub algorithm: String,
    pub backend: String,
    pub hw: String,
    pub operation: String,
    pub size_bytes: u64,
    pub a_bytes_per_second: f64,
    pub b_bytes_per_second: f64,
    /// Throughput of A over throughput of B (= B's time / A's time).
    pub ratio: f64,
    pub ratio_low: f64,
    pub ratio_high: f64,
    pub significant: bool,
}

const KEYS: [&str; 7] = [
    "algorithm",
    "backend",
    "implementation",
    "hw",
    "operation",
    "size_bytes",
    "workers",
];

/// Pair up points that agree on every identity field not fixed by a filter.
pub fn compare(a: &[SpeedRecord], sa: &Selector, b: &[SpeedRecord], sb: &Selector) -> Vec<Row> {
    let mut fixed: Vec<&str> = sa
        .filters
        .iter()
        .chain(&sb.filters)
        .map(|(k, _)| k.as_str())
        .collect();
    // Two different backends (`@backend=openssl` against `@backend=ring`)
    // have different implementations by nature: pair them without it.
    let backend_of = |s: &Selector| {
        s.filters
            .iter()
            .find(|(k, _)| k == "backend")
            .map(|(_, v)| v.clone())
    };
    if matches!((backend_of(sa), backend_of(sb)), (Some(x), Some(y)) if x != y) {
        fixed.push("implementation");
    }
    let key = |r: &SpeedRecord| -> Vec<String> {
        KEYS.iter()
            .filter(|k| !fixed.contains(k))
            .map(|k| Selector::field(r, k))
            .collect()
    };
    let index = |rs: &[SpeedRecord], s: &Selector| -> BTreeMap<Vec<String>, SpeedRecord> {
        rs.iter()
            .filter(|r| s.keep(r))
            .map(|r| (key(r), r.clone()))
            .collect()
    };
    let ia = index(a, sa);
    let ib = index(b, sb);
    let mut rows = Vec::new();
    for (k, ra) in &ia {
        let Some(rb) = ib.get(k) else { continue };
        // Throughput ratio A/B is the time ratio B/A.
        let (ratio, lo, hi) = ango_harness::stats::ratio_interval(
            (rb.stats.median, rb.stats.ci95_low, rb.stats.ci95_high),
            (ra.stats.median, ra.stats.ci95_low, ra.stats.ci95_high),
        );
        rows.push(Row {
            algorithm: ra.algorithm.clone(),
            backend: if ra.backend == rb.backend {
                ra.backend.clone()
            } else {
                format!("{}/{}", ra.backend, rb.backend)
            },
            hw: if ra.hw == rb.hw {
                ra.hw.clone()
            } else {
                format!("{}/{}", ra.hw, rb.hw)
            },
            operation: ra.operation.clone(),
            size_bytes: ra.size_bytes,
            a_bytes_per_second: ra.bytes_per_second,
            b_bytes_per_second: rb.bytes_per_second,
            ratio,
            ratio_low: lo,
            ratio_high: hi,
            significant: lo > 1.0 || hi < 1.0,
        });
    }
    rows.sort_by(|x, y| {
        (&x.algorithm, &x.backend, &x.hw, &x.operation, x.size_bytes).cmp(&(
            &y.algorithm,
            &y.backend,
            &y.hw,
            &y.operation,
            y.size_bytes,
        ))
    });
    rows
}

pub fn table(rows: &[Row], a: &str, b: &str) -> String {
    let mut out = format!(
        "A = {a}\nB = {b}\nratio = throughput A / throughput B, [conservative 95% interval from both medians' CIs]; * = interval excludes 1\n"
    );
    out.push_str(&format!(
        "{:<44}{:>12}{:>12}{:>10}  {}\n",
        "algorithm backend hw op size", "A MB/s", "B MB/s", "A/B", "interval"
    ));
    for r in rows {
        let label = format!(
            "{} {} {} {} {}",
            r.algorithm, r.backend, r.hw, r.operation, r.size_bytes
        );
        out.push_str(&format!(
            "{label:<44}{:>12.1}{:>12.1}{:>9.3}{} [{:.3}, {:.3}]\n",
            r.a_bytes_per_second / 1e6,
            r.b_bytes_per_second / 1e6,
            r.ratio,
            if r.significant { "*" } else { " " },
            r.ratio_low,
            r.ratio_high
        ));
    }
    if rows.is_empty() {
        out.push_str(
            "no matching points: the two sides share no (algorithm, backend, hw, op, size)\n",
        );
    }
    out
}

/// The rows as one [`crate::table::Table`] (Markdown, CSV, HTML): A and B
/// named in the title, throughputs in MB/s, the ratio with its interval.
pub fn as_table(rows: &[Row], a: &str, b: &str) -> crate::table::Table {
    use crate::table::{cell, Table};
    Table {
        title: format!("A = {a}, B = {b}: throughput A / throughput B"),
        head: [
            "algorithm",
            "backend",
            "hw",
            "operation",
            "bytes",
            "A MB/s",
            "B MB/s",
            "A/B",
            "ci95 low",
            "ci95 high",
            "interval excludes 1",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    cell(&r.algorithm, ""),
                    cell(&r.backend, ""),
                    cell(&r.hw, ""),
                    cell(&r.operation, ""),
                    cell(r.size_bytes.to_string(), "n"),
                    cell(format!("{:.1}", r.a_bytes_per_second / 1e6), "n"),
                    cell(format!("{:.1}", r.b_bytes_per_second / 1e6), "n"),
                    cell(format!("{:.3}", r.ratio), "n"),
                    cell(format!("{:.3}", r.ratio_low), "n"),
                    cell(format!("{:.3}", r.ratio_high), "n"),
                    cell(if r.significant { "yes" } else { "no" }, ""),
                ]
            })
            .collect(),
        ..Table::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(hw: &str, ns: f64) -> SpeedRecord {
        serde_json::from_value(serde_json::json!({
            "schema": 1, "run_id": "t", "suite": "speed", "algorithm": "aes-128-gcm", "operation": "encrypt",
            "backend": "openssl", "implementation": "evp", "hw": hw, "ia32cap": null,
            "library_cpu_view": null, "size_bytes": 1024, "aad_bytes": 13, "samples": 10,
            "iterations_per_sample": 1, "median_ns": ns, "q1_ns": ns, "q3_ns": ns, "mean_ns": ns,
            "sd_ns": 0.0, "min_ns": ns, "max_ns": ns, "robust_cv": 0.0, "ci95_low_ns": ns * 0.9,
            "ci95_high_ns": ns * 1.1, "bytes_per_second": 1024e9 / ns, "cycles_per_byte": null,
            "cycles_per_op": null, "cycle_source": "tsc", "timer_overhead_ns": 20.0, "noisy": false, "attempts": 1,
            "warnings": [], "kat": "pass 1/1", "method": "m", "time": "t"
        }))
        .unwrap()
    }

    #[test]
    fn selectors_parse() {
        let s = Selector::parse("res/x@hw=off,op=encrypt").unwrap();
        assert_eq!(s.path, PathBuf::from("res/x"));
        assert_eq!(
            s.filters,
            vec![
                ("hw".into(), "off".into()),
                ("operation".into(), "encrypt".into())
            ]
        );
        assert!(Selector::parse("d@colour=red").is_err());
        assert!(Selector::parse("plain/dir").unwrap().filters.is_empty());
    }

    #[test]
    fn hw_on_vs_off_in_one_run() {
        let rs = vec![rec("on", 100.0), rec("off", 800.0)];
        let a = Selector::parse("d@hw=on").unwrap();
        let b = Selector::parse("d@hw=off").unwrap();
        let rows = compare(&rs, &a, &rs, &b);
        assert_eq!(rows.len(), 1);
        assert!((rows[0].ratio - 8.0).abs() < 1e-9);
        assert!((rows[0].ratio_low - 720.0 / 110.0).abs() < 1e-9);
        assert!(rows[0].significant);
    }

    #[test]
    fn equal_points_are_not_significant() {
        let rs = vec![rec("on", 100.0)];
        let s = Selector::parse("d").unwrap();
        let rows = compare(&rs, &s, &rs, &s);
        assert!((rows[0].ratio - 1.0).abs() < 1e-12 && !rows[0].significant);
    }
}
