//! Terminal table, JSON, CSV and Markdown exports of speed records.

use crate::unit::Unit;
use ango_core::{Algorithm, SpeedRecord};
use std::collections::BTreeMap;

pub use crate::export::Format;

/// The identity of a table row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowKey {
    pub algo_order: usize,
    pub algorithm: String,
    pub backend: String,
    pub hw: String,
    pub operation: String,
    pub implementation: String,
}

impl RowKey {
    pub fn of(r: &SpeedRecord) -> RowKey {
        RowKey {
            algo_order: Algorithm::parse(&r.algorithm)
                .ok()
                .and_then(|a| Algorithm::ALL.iter().position(|&b| b == a))
                .unwrap_or(usize::MAX),
            algorithm: r.algorithm.clone(),
            backend: r.backend.clone(),
            hw: r.hw.clone(),
            operation: r.operation.clone(),
            implementation: r.implementation.clone(),
        }
    }

    /// The row's label; `show_impl` adds the implementation (when one
    /// backend has several in the table).
    pub fn label_with(&self, show_op: bool, show_impl: bool) -> String {
        let mut s = format!("{} {} hw={}", self.algorithm, self.backend, self.hw);
        if show_impl {
            s.push_str(&format!(" [{}]", self.implementation));
        }
        if show_op {
            s.push(' ');
            s.push_str(&self.operation);
        }
        s
    }
}

/// Records grouped into rows (algorithm, backend, hw, op) by size; the last
/// record of a key wins (a repeated point in an appended file).
/// A row: its key and its points by size.
pub type Row<'a> = (RowKey, BTreeMap<u64, &'a SpeedRecord>);

pub fn rows(records: &[SpeedRecord]) -> (Vec<u64>, Vec<Row<'_>>) {
    let mut m: BTreeMap<RowKey, BTreeMap<u64, &SpeedRecord>> = BTreeMap::new();
    let mut sizes = std::collections::BTreeSet::new();
    for r in records {
        sizes.insert(r.size_bytes);
        m.entry(RowKey::of(r)).or_default().insert(r.size_bytes, r);
    }
    (sizes.into_iter().collect(), m.into_iter().collect())
}

/// Row labels: the operation is shown when not every row encrypts, the
/// implementation when one (algorithm, backend) has several.
pub fn labels(rows: &[Row<'_>]) -> Vec<String> {
    let show_op = rows.iter().any(|(k, _)| k.operation != "encrypt");
    rows.iter()
        .map(|(k, _)| {
            let several = rows.iter().any(|(o, _)| {
                o.algorithm == k.algorithm
                    && o.backend == k.backend
                    && o.implementation != k.implementation
            });
            k.label_with(show_op, several)
        })
        .collect()
}

/// The `openssl speed`-shaped table: rows algorithm/backend, columns sizes.
pub fn table(records: &[SpeedRecord], unit: Unit, cycle_label: &str) -> String {
    let (sizes, rows) = rows(records);
    if rows.is_empty() {
        return "no points measured\n".into();
    }
    let labels = labels(&rows);
    let w0 = labels.iter().map(String::len).max().unwrap_or(4).max(4);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, by)| {
            sizes
                .iter()
                .map(|s| {
                    by.get(s)
                        .and_then(|r| {
                            unit.value(r).map(|v| {
                                let mut c = unit.fmt(v);
                                if r.noisy {
                                    c.push('~');
                                }
                                c
                            })
                        })
                        .unwrap_or_else(|| "-".into())
                })
                .collect()
        })
        .collect();
    let heads: Vec<String> = sizes.iter().map(|s| format!("{s} bytes")).collect();
    let widths: Vec<usize> = (0..sizes.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].len())
                .chain([heads[i].len()])
                .max()
                .unwrap_or(8)
                + 2
        })
        .collect();
    let mut out = String::new();
    out.push_str(&unit.caption(cycle_label));
    out.push_str(" Medians; '~' marks a noisy point (robust CV > 5%).\n");
    out.push_str(&format!("{:<w0$}", "type"));
    for (h, w) in heads.iter().zip(&widths) {
        out.push_str(&format!("{h:>w$}"));
    }
    out.push('\n');
    for (label, row) in labels.iter().zip(&cells) {
        out.push_str(&format!("{label:<w0$}"));
        for (c, w) in row.iter().zip(&widths) {
            out.push_str(&format!("{c:>w$}"));
        }
        out.push('\n');
    }
    out
}

/// Robust CV per point, in the same layout (shown under the table).
pub fn cv_table(records: &[SpeedRecord]) -> String {
    let (sizes, rows) = rows(records);
    let labels = labels(&rows);
    let w0 = labels.iter().map(String::len).max().unwrap_or(4).max(4);
    let mut out = format!("{:<w0$}", "robust CV (IQR/median)");
    for s in &sizes {
        out.push_str(&format!("{:>13}", format!("{s} bytes")));
    }
    out.push('\n');
    for (label, (_, by)) in labels.iter().zip(&rows) {
        out.push_str(&format!("{label:<w0$}"));
        for s in &sizes {
            let c = by
                .get(s)
                .map(|r| format!("{:.2}%", r.stats.robust_cv * 100.0))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!("{c:>13}"));
        }
        out.push('\n');
    }
    out
}

pub fn json(records: &[SpeedRecord]) -> String {
    let mut s = serde_json::to_string_pretty(records).expect("records serialise");
    s.push('\n');
    s
}

const CSV_FIELDS: &[&str] = &[
    "run_id",
    "suite",
    "algorithm",
    "operation",
    "backend",
    "implementation",
    "hw",
    "size_bytes",
    "aad_bytes",
    "samples",
    "iterations_per_sample",
    "median_ns",
    "q1_ns",
    "q3_ns",
    "mean_ns",
    "sd_ns",
    "min_ns",
    "max_ns",
    "robust_cv",
    "ci95_low_ns",
    "ci95_high_ns",
    "bytes_per_second",
    "cycles_per_byte",
    "cycles_per_op",
    "cycle_source",
    "noisy",
    "kat",
];

fn csv_cell(v: &serde_json::Value) -> String {
    let s = match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

pub fn csv(records: &[SpeedRecord]) -> String {
    let mut out = CSV_FIELDS.join(",");
    out.push('\n');
    for r in records {
        let v = serde_json::to_value(r).expect("record serialises");
        let line: Vec<String> = CSV_FIELDS.iter().map(|f| csv_cell(&v[*f])).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Markdown: the table with each cell's median and 95% interval.
pub fn markdown(records: &[SpeedRecord], unit: Unit, cycle_label: &str) -> String {
    let (sizes, rows) = rows(records);
    let labels = labels(&rows);
    let mut out = format!(
        "{} Median [95% CI of the median].\n\n",
        unit.caption(cycle_label)
    );
    out.push_str("| type |");
    for s in &sizes {
        out.push_str(&format!(" {s} bytes |"));
    }
    out.push_str("\n|---|");
    for _ in &sizes {
        out.push_str("---:|");
    }
    out.push('\n');
    for ((_, by), label) in rows.iter().zip(&labels) {
        out.push_str(&format!("| {label} |"));
        for s in &sizes {
            let c = by
                .get(s)
                .and_then(|r| {
                    let v = unit.value(r)?;
                    Some(match unit.interval(r) {
                        Some((lo, hi)) => {
                            format!("{} [{}–{}]", unit.fmt(v), unit.fmt(lo), unit.fmt(hi))
                        }
                        None => unit.fmt(v),
                    })
                })
                .unwrap_or_else(|| "–".into());
            out.push_str(&format!(" {c} |"));
        }
        out.push('\n');
    }
    out
}
