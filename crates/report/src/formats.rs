//! Terminal table, JSON, CSV and Markdown exports of speed records.

use crate::unit::Unit;
use ango_core::{Algorithm, SpeedRecord};
use std::collections::BTreeMap;

/// An output format of the commands that print records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Md,
    /// The self-contained HTML page (the report).
    Html,
}

impl Format {
    pub const NAMES: &'static str = "table, json, csv, md, html";

    pub fn parse(s: &str) -> Result<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "md" | "markdown" => Ok(Format::Md),
            "html" => Ok(Format::Html),
            _ => Err(Error::usage(format!(
                "unknown format '{s}'; valid: {}",
                Format::NAMES
            ))),
        }
    }
}

/// How a latency point is labelled: by variant for a provider that has
/// several (`ango chacha20/avx2`), else by provider; and whether it is such
/// a variant (drawn solid; libraries dashed).
pub fn point_label(r: &SpeedRecord, variant_providers: &[String]) -> (String, bool) {
    if variant_providers.contains(&r.backend) {
        (format!("{} {}", r.backend, r.implementation), true)
    } else {
        (r.backend.clone(), false)
    }
}

/// Word-wrap `s` to `width` columns, continuation lines indented.
pub fn wrap(s: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in s.split_whitespace() {
        let len = line.chars().count();
        if len > 0 && len + 1 + w.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.to_string();
        } else if len > 0 && !line.ends_with(' ') {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.trim().is_empty() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

use ango_core::{Error, Result};

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

/// The widest a terminal table may be.
pub const TERMINAL_WIDTH: usize = 100;

/// A grid of right-aligned cells under a left-aligned label column, in
/// blocks of as many columns as fit `TERMINAL_WIDTH` (a wide sweep of
/// sizes prints as several blocks, each with its header), separated by an
/// empty line.
pub fn grid(corner: &str, heads: &[String], labels: &[String], cells: &[Vec<String>]) -> String {
    let w0 = labels
        .iter()
        .map(|l| l.chars().count())
        .chain([corner.chars().count(), 4])
        .max()
        .unwrap_or(4);
    let widths: Vec<usize> = (0..heads.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([heads[i].chars().count()])
                .max()
                .unwrap_or(8)
                + 2
        })
        .collect();
    // Column groups that fit beside the labels (at least one each).
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    let mut used = w0;
    for (i, w) in widths.iter().enumerate() {
        if i > start && used + w > TERMINAL_WIDTH {
            groups.push(start..i);
            start = i;
            used = w0;
        }
        used += w;
    }
    if start < heads.len() || heads.is_empty() {
        groups.push(start..heads.len());
    }
    let mut out = String::new();
    for (g, cols) in groups.iter().enumerate() {
        if g > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{corner:<w0$}"));
        for i in cols.clone() {
            out.push_str(&format!("{:>w$}", heads[i], w = widths[i]));
        }
        out.push('\n');
        for (label, row) in labels.iter().zip(cells) {
            out.push_str(&format!("{label:<w0$}"));
            for i in cols.clone() {
                out.push_str(&format!("{:>w$}", row[i], w = widths[i]));
            }
            out.push('\n');
        }
    }
    out
}

/// A text column's width: its longest entry (in characters), at least `min`.
pub fn col_width<'a>(entries: impl IntoIterator<Item = &'a str>, min: usize) -> usize {
    entries
        .into_iter()
        .map(|e| e.chars().count())
        .max()
        .unwrap_or(0)
        .max(min)
}

/// Terminal text made to fit `TERMINAL_WIDTH`: a longer line is wrapped at
/// spaces, its continuation indented four more spaces (a word longer than a
/// line is cut).
pub fn fit(text: &str) -> String {
    let w = TERMINAL_WIDTH;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= w {
            out.push_str(line);
            continue;
        }
        let lead_n = body.chars().take_while(|c| *c == ' ').count().min(w / 2);
        let lead = " ".repeat(lead_n);
        let indent = " ".repeat(lead_n + 4);
        let mut cur = lead.clone();
        let mut has_word = false;
        for word in body.split(' ').filter(|x| !x.is_empty()) {
            let mut word: String = word.to_string();
            loop {
                let len = cur.chars().count();
                let wl = word.chars().count();
                let need = wl + usize::from(has_word);
                if len + need <= w {
                    if has_word {
                        cur.push(' ');
                    }
                    cur.push_str(&word);
                    has_word = true;
                    break;
                }
                if has_word {
                    out.push_str(&cur);
                    out.push('\n');
                    cur = indent.clone();
                    has_word = false;
                    continue;
                }
                // Alone on its line and still too long: cut it.
                let room = w.saturating_sub(len).max(1);
                let head: String = word.chars().take(room).collect();
                let rest: String = word.chars().skip(room).collect();
                cur.push_str(&head);
                out.push_str(&cur);
                out.push('\n');
                cur = indent.clone();
                word = rest;
                if word.is_empty() {
                    break;
                }
            }
        }
        if has_word {
            out.push_str(&cur);
            out.push_str(nl);
        } else if nl.is_empty() && out.ends_with('\n') {
            // The text ended without a newline; so does its last piece.
            out.pop();
        }
    }
    out
}

/// The speed matrix, written once for the terminal and Markdown: a row
/// per (algorithm, backend, setting, operation), a column per message
/// size, each cell from `of` ("-" where nothing was measured).
fn matrix(
    records: &[SpeedRecord],
    of: impl Fn(&SpeedRecord) -> Option<String>,
) -> (Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let (sizes, rows) = rows(records);
    let labels = labels(&rows);
    let cells = rows
        .iter()
        .map(|(_, by)| {
            sizes
                .iter()
                .map(|s| by.get(s).and_then(|r| of(r)).unwrap_or_else(|| "-".into()))
                .collect()
        })
        .collect();
    let heads = sizes.iter().map(|s| format!("{s} bytes")).collect();
    (heads, labels, cells)
}

/// The `openssl speed`-shaped table: rows algorithm/backend, columns sizes.
pub fn table(records: &[SpeedRecord], unit: Unit, cycle_label: &str) -> String {
    if records.is_empty() {
        return "no points measured\n".into();
    }
    let (heads, labels, cells) = matrix(records, |r| {
        unit.value(r).map(|v| {
            let mut c = unit.fmt(v);
            if r.noisy {
                c.push('~');
            }
            c
        })
    });
    let mut out = String::new();
    out.push_str(&unit.caption(cycle_label));
    out.push_str("\nMedians; '~' marks a noisy point (robust CV > 5%).\n");
    out.push_str(&grid("type", &heads, &labels, &cells));
    out
}

/// One own point against the fastest library measured beside it.
pub struct PairedRow {
    /// Algorithm, backend (with the implementation where it has several
    /// here), setting and operation.
    pub label: String,
    pub size: u64,
    pub library: String,
    /// The library's time over the own one, per round (above 1: the own
    /// code is faster), with its 95% interval.
    pub ratio: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub rounds: u64,
    pub steady: bool,
}

/// Every own point (a provider with variants) against the fastest library
/// sampled beside it, from its paired ratios, in table order.
pub fn paired_rows(records: &[SpeedRecord], variant_providers: &[String]) -> Vec<PairedRow> {
    let (_, rows) = rows(records);
    let several = |k: &RowKey| {
        rows.iter().any(|(o, _)| {
            o.algorithm == k.algorithm
                && o.backend == k.backend
                && o.implementation != k.implementation
        })
    };
    let mut out = Vec::new();
    for (k, by) in &rows {
        if !variant_providers.contains(&k.backend) {
            continue;
        }
        for (size, r) in by {
            let Some(p) = &r.paired else { continue };
            let Some(lib) =
                p.vs.iter()
                    .filter(|v| !variant_providers.contains(&v.backend))
                    .min_by(|a, b| a.ratio.total_cmp(&b.ratio))
            else {
                continue;
            };
            let mut label = format!("{} {}", k.algorithm, k.backend);
            if several(k) {
                label.push_str(&format!(" [{}]", k.implementation));
            }
            label.push_str(&format!(" hw={} {}", k.hw, k.operation));
            out.push(PairedRow {
                label,
                size: *size,
                library: lib.backend.clone(),
                ratio: lib.ratio,
                ci95_low: lib.ci95_low,
                ci95_high: lib.ci95_high,
                rounds: p.rounds,
                steady: p.steady,
            });
        }
    }
    out
}

/// What the paired table shows, in words.
pub const PAIRED_NOTE: &str = "Own code against the fastest library sampled beside it: the \
    library's time over the own per round (Hodges-Lehmann, 95% interval of the signed-rank test; \
    above 1 the own code is faster). '*': the group's ratios were not yet steady within the \
    asked bound when its time was up.";

/// [`paired_rows`] as a terminal table; empty when there are none.
pub fn paired_table(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    let rows = paired_rows(records, variant_providers);
    if rows.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.size.to_string(),
                format!("{:.2}", r.ratio),
                format!("{:.2}–{:.2}", r.ci95_low, r.ci95_high),
                r.library.clone(),
                format!("{}{}", r.rounds, if r.steady { "" } else { "*" }),
            ]
        })
        .collect();
    let heads: Vec<String> = ["bytes", "× fastest", "95% CI", "library", "rounds"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let mut out = wrap(&format!("{PAIRED_NOTE}\n"), 100, "");
    out.push_str(&grid("point", &heads, &labels, &cells));
    out
}

/// Robust CV per point, in the same layout (shown under the table).
pub fn cv_table(records: &[SpeedRecord]) -> String {
    let (sizes, rows) = rows(records);
    let labels = labels(&rows);
    let heads: Vec<String> = sizes.iter().map(|s| format!("{s} bytes")).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, by)| {
            sizes
                .iter()
                .map(|s| {
                    by.get(s)
                        .map(|r| format!("{:.2}%", r.stats.robust_cv * 100.0))
                        .unwrap_or_else(|| "-".into())
                })
                .collect()
        })
        .collect();
    grid("robust CV (IQR/median)", &heads, &labels, &cells)
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
    "workers",
];

/// A record field as text: a string as it is, null as nothing, anything
/// else as JSON.
pub(crate) fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn csv_cell(v: &serde_json::Value) -> String {
    ango_core::csv::field(&json_text(v))
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
    let (heads, labels, cells) = matrix(records, |r| {
        let v = unit.value(r)?;
        Some(match unit.interval(r) {
            Some((lo, hi)) => format!("{} [{}–{}]", unit.fmt(v), unit.fmt(lo), unit.fmt(hi)),
            None => unit.fmt(v),
        })
    });
    let mut head = vec!["type"];
    head.extend(heads.iter().map(String::as_str));
    let rows = labels
        .into_iter()
        .zip(cells)
        .map(|(l, cs)| {
            let mut row = vec![crate::table::cell(l, "")];
            row.extend(cs.into_iter().map(|c| crate::table::cell(c, "n")));
            row
        })
        .collect();
    format!(
        "{} Median [95% CI of the median].\n\n{}",
        unit.caption(cycle_label),
        crate::table::Table::new("", &head, rows).md()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_wraps_long_lines_and_keeps_short_ones() {
        let short = "a short line\n  indented\n";
        assert_eq!(fit(short), short);
        let long = format!("  {}\nnext\n", vec!["word"; 60].join(" "));
        let f = fit(&long);
        assert!(
            f.lines().all(|l| l.chars().count() <= TERMINAL_WIDTH),
            "{f}"
        );
        assert!(f.lines().nth(1).unwrap().starts_with("      word"), "{f}");
        assert!(f.ends_with("\nnext\n"), "{f}");
        assert_eq!(
            f.split_whitespace().filter(|w| *w == "word").count(),
            60,
            "every word kept"
        );
        let giant = "x".repeat(250);
        let g = fit(&giant);
        assert!(
            g.lines().all(|l| l.chars().count() <= TERMINAL_WIDTH),
            "{g}"
        );
        assert_eq!(g.chars().filter(|c| *c == 'x').count(), 250);
        assert!(!g.ends_with('\n'));
    }

    #[test]
    fn grid_splits_columns_into_blocks_that_fit() {
        let heads: Vec<String> = (0..30).map(|i| format!("{} bytes", 16 * i)).collect();
        let labels = vec!["aes-128-gcm openssl hw=on".to_string(); 3];
        let cells = vec![vec!["123456.78k".to_string(); 30]; 3];
        let g = grid("type", &heads, &labels, &cells);
        assert!(
            g.lines().all(|l| l.chars().count() <= TERMINAL_WIDTH),
            "{g}"
        );
        // Every cell is printed once, every block has its header row.
        assert_eq!(g.matches("123456.78k").count(), 90);
        let blocks = g.split("\n\n").count();
        assert!(blocks > 1);
        assert_eq!(g.matches("type").count(), blocks);
    }
}
