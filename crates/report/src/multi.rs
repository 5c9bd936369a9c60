//! The multi-core figures (`--multi`, `ango run`'s multi-core pass): per
//! point, one worker alone, then N at once, each pinned to its own CPU —
//! the aggregate, every worker, and the scaling efficiency, each with its
//! interval.

use crate::svg::escape;
use crate::table::{cell, Table};
use ango_core::{MultiCore, PkRecord, SpeedRecord};

/// What a rate counts: bytes (shown as MB/s) or operations (ops/s).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    Bytes,
    Ops,
}

impl Rate {
    fn fmt(self, per_second: f64) -> String {
        let v = match self {
            Rate::Bytes => per_second / 1e6,
            Rate::Ops => per_second,
        };
        if v >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    }
    fn caption(self) -> &'static str {
        match self {
            Rate::Bytes => "MB/s (10^6 bytes/s)",
            Rate::Ops => "operations/s",
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// One multi-core point, whichever study measured it.
pub struct Row<'a> {
    pub algorithm: String,
    pub implementation: String,
    pub op: String,
    /// Message bytes (speed) or "-".
    pub size: String,
    pub workers: u32,
    pub noisy: bool,
    pub m: &'a MultiCore,
}

/// The speed records measured by several workers, in the order measured.
pub fn speed_rows<'a>(records: &'a [SpeedRecord], variant_providers: &[String]) -> Vec<Row<'a>> {
    records
        .iter()
        .filter_map(|r| {
            r.multi.as_ref().map(|m| Row {
                algorithm: r.algorithm.clone(),
                implementation: crate::formats::point_label(r, variant_providers).0,
                op: r.operation.clone(),
                size: r.size_bytes.to_string(),
                workers: r.workers,
                noisy: r.noisy,
                m,
            })
        })
        .collect()
}

/// The public-key records measured by several workers.
pub fn pk_rows(records: &[PkRecord]) -> Vec<Row<'_>> {
    records
        .iter()
        .filter_map(|r| {
            r.multi.as_ref().map(|m| Row {
                algorithm: r.algorithm.clone(),
                implementation: format!("{} ({})", r.who(), r.timing),
                op: r.operation.clone(),
                size: "-".into(),
                workers: r.workers,
                noisy: r.stats.robust_cv > ango_harness::stats::NOISY_ROBUST_CV,
                m,
            })
        })
        .collect()
}

/// The table of the terminal and of Markdown: one row per point, its 95%
/// intervals and workers on the line below (listed after the table in
/// Markdown).
fn table_of(rows: &[Row<'_>], rate: Rate) -> Table {
    let cells = rows
        .iter()
        .map(|r| {
            columns(r, rate, false)
                .into_iter()
                .enumerate()
                .map(|(i, v)| cell(v, if i < 3 { "" } else { "n" }))
                .collect()
        })
        .collect();
    let mut t = Table::new(
        "",
        &[
            "algorithm",
            "implementation",
            "op",
            "size",
            "N",
            "one",
            "N workers",
            "scaling",
        ],
        cells,
    );
    t.squeeze = Some(1);
    for (i, r) in rows.iter().enumerate() {
        let m = r.m;
        let per: Vec<String> = m
            .per_worker
            .iter()
            .map(|f| {
                format!(
                    "CPU {} {} (CV {})",
                    f.cpu,
                    rate.fmt(f.per_second),
                    pct(f.robust_cv)
                )
            })
            .collect();
        t.under.push((
            i,
            format!(
                "95%: N workers {}-{}, scaling {}-{}; each: {}; one alone: CPU {} (CV {}){}",
                rate.fmt(m.aggregate_ci95_low),
                rate.fmt(m.aggregate_ci95_high),
                pct(m.scaling_efficiency_ci95_low),
                pct(m.scaling_efficiency_ci95_high),
                per.join(", "),
                m.single.cpu,
                pct(m.single.robust_cv),
                if r.noisy { "; noisy" } else { "" }
            ),
        ));
    }
    t
}

/// One line per point (under 100 columns), its workers on the line below.
pub fn table(rows: &[Row<'_>], rate: Rate) -> String {
    if rows.is_empty() {
        return "no multi-core points measured\n".into();
    }
    format!(
        "Multi-core {}: one worker alone, then N at once, each pinned to its own CPU;\n\
         scaling = N workers / (N x one worker); 95% intervals on the line below\n{}",
        rate.caption(),
        crate::formats::fit(&table_of(rows, rate).text())
    )
}

/// The HTML section: one table, every worker in its cell.
pub fn html(rows: &[Row<'_>], rate: Rate, title: &str) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<h3>{}</h3><p>Each point is measured by one worker alone, then by N workers at once, \
         each pinned to its own CPU and measuring over the same window (like <code>openssl \
         speed -multi</code>). Scaling efficiency is the N workers' aggregate over N times the \
         one worker: 100% is perfect scaling. Rates in {}; intervals are 95%.</p>\
         <div class=\"scroll\"><table><tr><th>algorithm</th><th>implementation</th><th>op</th>\
         <th>size</th><th>N</th><th>one worker</th><th>N workers [95%]</th><th>scaling [95%]</th>\
         <th>per worker (robust CV)</th></tr>",
        escape(title),
        escape(rate.caption())
    );
    for r in rows {
        let m = r.m;
        let per: Vec<String> = m
            .per_worker
            .iter()
            .map(|f| {
                format!(
                    "CPU {}: {} ({})",
                    f.cpu,
                    rate.fmt(f.per_second),
                    pct(f.robust_cv)
                )
            })
            .collect();
        let c = columns(r, rate, true);
        let cells: String = c
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let class = if i >= 3 { " class=\"n\"" } else { "" };
                format!("<td{class}>{}</td>", escape(v))
            })
            .collect();
        out.push_str(&format!(
            "<tr{}>{cells}<td>{}</td></tr>",
            if r.noisy { " class=\"noisy\"" } else { "" },
            escape(&per.join("; "))
        ));
    }
    out.push_str("</table></div>");
    out
}

/// Markdown: the same table, the intervals after it.
pub fn markdown(rows: &[Row<'_>], rate: Rate) -> String {
    format!(
        "Rates in {}.\n\n{}",
        rate.caption(),
        table_of(rows, rate).md()
    )
}

/// One row's columns: algorithm, implementation, op, size, N, one worker,
/// N workers, scaling — the last two with their 95% intervals in brackets
/// when `intervals` (HTML, Markdown; the terminal prints them on the line
/// below).
fn columns(r: &Row<'_>, rate: Rate, intervals: bool) -> [String; 8] {
    let m = r.m;
    let (aggregate, scaling) = (rate.fmt(m.aggregate_per_second), pct(m.scaling_efficiency));
    let (aggregate, scaling) = if intervals {
        (
            format!(
                "{aggregate} [{}–{}]",
                rate.fmt(m.aggregate_ci95_low),
                rate.fmt(m.aggregate_ci95_high)
            ),
            format!(
                "{scaling} [{}–{}]",
                pct(m.scaling_efficiency_ci95_low),
                pct(m.scaling_efficiency_ci95_high)
            ),
        )
    } else {
        (aggregate, scaling)
    };
    [
        r.algorithm.clone(),
        r.implementation.clone(),
        r.op.clone(),
        r.size.clone(),
        r.workers.to_string(),
        rate.fmt(m.single.per_second),
        aggregate,
        scaling,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::WorkerFigure;

    fn fig(cpu: usize, ns: f64) -> WorkerFigure {
        WorkerFigure {
            cpu,
            median_ns: ns,
            ci95_low_ns: ns * 0.99,
            ci95_high_ns: ns * 1.01,
            robust_cv: 0.01,
            samples: 100,
            per_second: 16384.0 * 1e9 / ns,
        }
    }

    #[test]
    fn scaling_is_aggregate_over_n_single_with_a_conservative_interval() {
        // One worker: 1000 ns per 16 KiB; two workers at 1000 and 1250 ns.
        let m = MultiCore::from(
            fig(0, 1000.0),
            vec![fig(0, 1000.0), fig(1, 1250.0)],
            16384.0,
        );
        let one = 16384.0 * 1e9 / 1000.0;
        assert!((m.aggregate_per_second - one * (1.0 + 0.8)).abs() < 1e-3 * one);
        assert!((m.scaling_efficiency - 0.9).abs() < 1e-9);
        assert!(m.scaling_efficiency_ci95_low < 0.9 && m.scaling_efficiency_ci95_high > 0.9);
        assert!(m.aggregate_ci95_low < m.aggregate_per_second);
        assert!(m.aggregate_ci95_high > m.aggregate_per_second);
        assert_eq!(m.cpus, vec![0, 1]);
    }

    #[test]
    fn the_table_fits_100_columns() {
        let mut r: SpeedRecord = serde_json::from_value(serde_json::json!({
            "schema": 2, "run_id": "r", "suite": "speed", "algorithm": "xchacha20-poly1305",
            "operation": "encrypt", "backend": "ango", "implementation": "chacha20/avx2+poly1305/avx2",
            "hw": "on", "ia32cap": null, "library_cpu_view": null, "size_bytes": 16384,
            "aad_bytes": 13, "samples": 200, "iterations_per_sample": 10,
            "median_ns": 1.0, "q1_ns": 1.0, "q3_ns": 1.0, "mean_ns": 1.0, "sd_ns": 0.0,
            "min_ns": 1.0, "max_ns": 1.0, "p95_ns": 1.0, "p99_ns": 1.0, "robust_cv": 0.0,
            "ci95_low_ns": 1.0, "ci95_high_ns": 1.0, "bytes_per_second": 1.0,
            "cycles_per_byte": null, "cycles_per_op": null, "cycle_source": "tsc",
            "timer_overhead_ns": 20.0, "noisy": false, "attempts": 1, "warnings": [],
            "kat": "pass", "method": "m", "time": "t", "workers": 2
        }))
        .unwrap();
        r.multi = Some(MultiCore::from(
            fig(0, 1000.0),
            vec![fig(0, 1010.0), fig(1, 1020.0)],
            16384.0,
        ));
        let recs = [r];
        let t = table(&speed_rows(&recs, &["ango".into()]), Rate::Bytes);
        for l in t.lines() {
            assert!(
                l.chars().count() <= 100,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        assert!(
            t.contains("xchacha20-poly1305") && t.contains("CPU 1"),
            "{t}"
        );
    }
}
