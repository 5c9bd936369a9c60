//! `ango import`, `ango table`, `ango check` and `ango export`: the
//! results store (ango-store) from the command line.

use crate::args::{CheckArgs, ExportArgs, ImportArgs, TableArgs};
use ango_core::{Error, Result};
use ango_report::export::Format;
use ango_report::table::{cell, Table};
use ango_store::check::{self, Baseline};
use ango_store::cross::{self, Cross};
use ango_store::db::{self, Url};
use ango_store::import::{self, Imported};
use ango_store::select::{self, parse_where};
use serde_json::json;
use std::io::Write;

/// `--db`, or the default store.
pub(crate) fn store_url(db: &Option<String>) -> Result<Url> {
    match db {
        Some(s) => Url::parse(s),
        None => Url::default_store(),
    }
}

pub(crate) fn import_cmd(a: &ImportArgs) -> Result<i32> {
    if a.dirs.is_empty() {
        return Err(Error::usage(
            "ango import: give one or more results directories (DIR...)",
        ));
    }
    let url = store_url(&a.db)?;
    // Every directory is read and checked before the store is opened, so
    // that a bad one costs nothing; each good one then goes in whole.
    let mut refused = 0;
    let mut runs = Vec::new();
    for d in &a.dirs {
        match import::read_run(d, a.label.as_deref(), !a.no_samples) {
            Ok(r) => runs.push(r),
            Err(e) => {
                refused += 1;
                eprintln!("refused: {e}");
            }
        }
    }
    let mut c = db::open(&url)?;
    let (mut new, mut same) = (0, 0);
    for run in &runs {
        match import::import(c.as_mut(), run) {
            Ok(Imported::New {
                run_id,
                testbed,
                points,
                samples,
                findings,
            }) => {
                new += 1;
                say!(
                    "imported {}: run {run_id} (testbed {testbed}, host {}): {points} points, \
                     {samples} sample sets, {findings} findings",
                    run.dir.display(),
                    run.label
                );
            }
            Ok(Imported::Unchanged { run_id }) => {
                same += 1;
                say!(
                    "unchanged {}: run {run_id} is in the store with the same content",
                    run.dir.display()
                );
            }
            Err(e) if e.is_usage() => {
                refused += 1;
                eprintln!("refused: {e}");
            }
            Err(e) => return Err(e),
        }
    }
    say!(
        "{}: {new} imported, {same} unchanged, {refused} refused",
        url.shown()
    );
    Ok(if refused > 0 { 2 } else { 0 })
}

fn keys(s: &str) -> Vec<String> {
    s.split(',')
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

/// A figure in its unit, scaled for reading.
pub(crate) fn show(v: f64, unit: &str) -> String {
    let scaled = |v: f64, steps: &[(f64, &str)]| {
        let (d, u) = steps
            .iter()
            .rev()
            .find(|(d, _)| v.abs() >= *d)
            .copied()
            .unwrap_or(steps[0]);
        let x = v / d;
        let digits = if x.abs() >= 100.0 {
            0
        } else if x.abs() >= 10.0 {
            1
        } else {
            2
        };
        format!("{x:.digits$} {u}")
    };
    match unit {
        "ns" => scaled(v, &[(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")]),
        "B/s" => scaled(
            v,
            &[(1.0, "B/s"), (1e3, "kB/s"), (1e6, "MB/s"), (1e9, "GB/s")],
        ),
        "op/s" => scaled(v, &[(1.0, "op/s"), (1e3, "kop/s"), (1e6, "Mop/s")]),
        "B" => scaled(v, &[(1.0, "B"), (1024.0, "KiB"), (1048576.0, "MiB")]),
        u => format!("{v:.3} {u}"),
    }
}

fn cross_tables(t: &Cross) -> Vec<Table> {
    let corner = t.row_keys.join(" · ");
    let mut head = vec![corner.as_str()];
    head.extend(t.cols.iter().map(String::as_str));
    let mut grid = Vec::new();
    for (ri, r) in t.rows.iter().enumerate() {
        let mut row = vec![cell(r, "")];
        for ci in 0..t.cols.len() {
            row.push(match t.cells.get(&(ri, ci)) {
                Some(c) => {
                    let mut s = show(c.median, &t.unit);
                    if let (Some(a), Some(b)) = (c.q1, c.q3) {
                        let (a, b) = (a.min(b), a.max(b));
                        if c.median != 0.0 {
                            s.push_str(&format!(" (IQR {:.1}%)", (b - a) / c.median.abs() * 100.0));
                        }
                    }
                    cell(s, "n")
                }
                None => cell("", "n"),
            });
        }
        grid.push(row);
    }
    let title = format!(
        "{} ({}, {} better): rows {}, columns {}",
        t.metric,
        t.unit,
        t.better.name(),
        t.row_keys.join(", "),
        t.col_keys.join(", ")
    );
    let grid = Table::new(title, &head, grid);
    let mut detail = Vec::new();
    for ((ri, ci), c) in &t.cells {
        detail.push(vec![
            cell(&t.rows[*ri], ""),
            cell(&t.cols[*ci], ""),
            cell(show(c.median, &t.unit), "n"),
            cell(
                match (c.q1, c.q3) {
                    (Some(a), Some(b)) => {
                        format!("{} – {}", show(a.min(b), &t.unit), show(a.max(b), &t.unit))
                    }
                    _ => String::new(),
                },
                "n",
            ),
            cell(c.samples.map_or(String::new(), |n| n.to_string()), "n"),
            cell(
                c.cycles_per_byte
                    .map(|x| format!("{x:.2}"))
                    .or_else(|| c.cycles_per_op.map(|x| format!("{x:.0} /op")))
                    .unwrap_or_default(),
                "n",
            ),
            cell(&c.library_version, ""),
            cell(&c.run_id, ""),
        ]);
    }
    let mut detail = Table::new(
        "Each cell: median, interquartile range, samples, cycles per byte (per operation where \
         there is no size), library version and the run it came from",
        &[
            "row", "column", "median", "IQR", "samples", "cycles/B", "library", "run",
        ],
        detail,
    );
    detail.squeeze = Some(6);
    let testbeds = Table::labels(
        "Testbeds",
        &["testbed", "machine"],
        t.testbeds
            .iter()
            .map(|(a, b)| vec![a.clone(), b.clone()])
            .collect(),
    );
    vec![grid, detail, testbeds]
}

fn cross_json(t: &Cross) -> serde_json::Value {
    json!({
        "metric": t.metric,
        "unit": t.unit,
        "better": t.better.name(),
        "rows_by": t.row_keys,
        "cols_by": t.col_keys,
        "rows": t.rows,
        "cols": t.cols,
        "cells": t.cells.iter().map(|((r, c), x)| json!({
            "row": t.rows[*r], "col": t.cols[*c], "median": x.median, "q1": x.q1, "q3": x.q3,
            "ci95_low": x.ci95_low, "ci95_high": x.ci95_high, "samples": x.samples,
            "library_version": x.library_version, "cycles_per_byte": x.cycles_per_byte,
            "cycles_per_op": x.cycles_per_op, "cycle_source": x.cycle_source,
            "run_id": x.run_id, "testbed": x.testbed, "key": x.key,
        })).collect::<Vec<_>>(),
        "testbeds": t.testbeds.iter().map(|(a, b)| json!({"testbed": a, "machine": b})).collect::<Vec<_>>(),
        "notes": t.notes,
    })
}

/// The machine × implementation chart of a table: a bar group per row,
/// a colour per column.
fn cross_chart(t: &Cross) -> String {
    use ango_report::svg::Bar;
    let series: Vec<&str> = t.cols.iter().map(String::as_str).collect();
    let bars: Vec<Bar> = t
        .rows
        .iter()
        .enumerate()
        .map(|(ri, r)| Bar {
            label: r.clone(),
            values: (0..t.cols.len())
                .filter_map(|ci| t.cells.get(&(ri, ci)).map(|c| (ci, c.median)))
                .collect(),
        })
        .collect();
    ango_report::figure::bars(
        "table-chart",
        &format!("{} by {}", t.metric, t.row_keys.join(", ")),
        &format!("{}, {} is better", t.unit, t.better.name()),
        &series,
        &bars,
        None,
        "Each group is a row of the table (a machine, by default); each colour a column. \
         Differences between machines are described, not tested.",
    )
}

pub(crate) fn table_cmd(a: &TableArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let spec = cross::Spec {
        filters: parse_where(a.where_.as_deref().unwrap_or(""))?,
        rows: keys(&a.rows),
        cols: keys(&a.cols),
        metric: a.metric.clone(),
    };
    if spec.rows.is_empty() || spec.cols.is_empty() {
        return Err(Error::usage(format!(
            "--rows and --cols need at least one key each; valid: {}",
            select::key_names()
        )));
    }
    let mut c = db::open(&store_url(&a.db)?)?;
    let t = cross::table(c.as_mut(), &spec)?;
    let tables = cross_tables(&t);
    let notes = || {
        t.notes
            .iter()
            .map(|n| format!("- {n}\n"))
            .collect::<String>()
    };
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&cross_json(&t)).expect("JSON serialises")
        ),
        Format::Csv => print!("{}", tables[1].csv()),
        Format::Table => {
            // Tables as they are: wrapping would break their columns.
            for tb in &tables {
                println!("{}", tb.text());
            }
            print!("{}", ango_report::formats::fit(&notes()));
        }
        Format::Md => print!(
            "{}\n{}",
            ango_report::table::render("ango table", &tables, format),
            notes()
        ),
        Format::Html => {
            let mut body = tables[0].html();
            body.push_str(&cross_chart(&t));
            body.push_str(&ango_report::svg::bullet_list(&t.notes));
            body.push_str(&tables[1].html());
            body.push_str(&tables[2].html());
            print!("{}", ango_report::table::page("ango table", &body));
        }
    }
    Ok(0)
}

pub(crate) fn check_cmd(a: &CheckArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    if !matches!(format, Format::Table | Format::Json) {
        return Err(Error::usage(format!(
            "ango check --format {}: valid: table, json",
            a.format
        )));
    }
    if !(a.min_change >= 0.0 && a.min_change.is_finite()) {
        return Err(Error::usage(format!(
            "--min-change {}: give a percentage, 0 or more",
            a.min_change
        )));
    }
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        return Err(Error::usage(format!(
            "--alpha {}: give a level between 0 and 1 (e.g. 0.05)",
            a.alpha
        )));
    }
    let spec = check::Spec {
        testbed: a.testbed.clone(),
        candidate: a.run.clone(),
        baseline: Baseline::parse(&a.baseline)?,
        min_change: a.min_change / 100.0,
        alpha: a.alpha,
        filters: parse_where(a.where_.as_deref().unwrap_or(""))?,
    };
    let mut c = db::open(&store_url(&a.db)?)?;
    let o = check::check(c.as_mut(), &spec)?;
    let code = if o.regressions() > 0 { 1 } else { 0 };
    if format == Format::Json {
        let v = json!({
            "testbed": o.testbed, "machine": o.testbed_description, "candidate": o.candidate,
            "baseline_runs": o.baseline_runs, "min_change": spec.min_change, "alpha": spec.alpha,
            "regressions": o.regressions(), "only_candidate": o.only_candidate,
            "only_baseline": o.only_baseline, "notes": o.notes,
            "changes": o.changes.iter().map(|ch| json!({
                "key": ch.key, "metric": ch.metric, "unit": ch.unit, "baseline": ch.baseline,
                "candidate": ch.candidate, "change": ch.change, "test": ch.test, "p": ch.p,
                "p_adjusted": ch.p_adjusted, "n_baseline": ch.n_baseline,
                "n_candidate": ch.n_candidate, "verdict": ch.verdict.name(),
            })).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("JSON serialises")
        );
        return Ok(code);
    }
    say!(
        "testbed {} ({}): run {} against {}",
        o.testbed,
        o.testbed_description,
        o.candidate,
        match o.baseline_runs.as_slice() {
            [one] => format!("run {one}"),
            many => format!(
                "{} earlier runs ({} … {})",
                many.len(),
                many[0],
                many[many.len() - 1]
            ),
        }
    );
    let mut shown: Vec<&check::Change> = o
        .changes
        .iter()
        .filter(|c| matches!(c.verdict, check::Verdict::Slower | check::Verdict::Faster))
        .collect();
    shown.sort_by(|a, b| b.change.abs().total_cmp(&a.change.abs()));
    let rows: Vec<Vec<ango_report::table::Cell>> = shown
        .iter()
        .map(|ch| {
            vec![
                cell(ch.verdict.name(), ""),
                cell(&ch.key, ""),
                cell(&ch.metric, ""),
                cell(show(ch.baseline, &ch.unit), "n"),
                cell(show(ch.candidate, &ch.unit), "n"),
                cell(format!("{:+.1}%", ch.change * 100.0), "n"),
                cell(ch.p.map_or("-".into(), |p| format!("{p:.2e}")), "n"),
                cell(
                    ch.p_adjusted.map_or("-".into(), |p| format!("{p:.2e}")),
                    "n",
                ),
                cell(format!("{}/{}", ch.n_baseline, ch.n_candidate), "n"),
                cell(
                    match ch.test.as_str() {
                        "mann-whitney (exact)" => "U exact",
                        "mann-whitney (normal approximation)" => "U normal",
                        _ => "intervals",
                    },
                    "",
                ),
            ]
        })
        .collect();
    if !rows.is_empty() {
        let mut t = Table::new(
            "What changed",
            &[
                "verdict", "point", "metric", "baseline", "now", "change", "p", "p (FDR)",
                "samples", "test",
            ],
            rows,
        );
        t.squeeze = Some(1);
        print!("{}", t.text());
        say!(
            "p: two-sided Mann-Whitney U on the raw samples (U exact or normal approximation); \
             p (FDR): Benjamini–Hochberg over all {} points tested; intervals: the 95% intervals \
             of the medians do not overlap (fewer than {} samples on a side)",
            o.changes.iter().filter(|c| c.p.is_some()).count(),
            check::MIN_SAMPLES
        );
    }
    let count = |v: check::Verdict| o.changes.iter().filter(|c| c.verdict == v).count();
    say!(
        "{} compared: {} slower, {} faster, {} changed by less than {:.1}%, {} the same; {} only \
         in the candidate, {} only in the baseline",
        o.changes.len(),
        count(check::Verdict::Slower),
        count(check::Verdict::Faster),
        count(check::Verdict::Negligible),
        a.min_change,
        count(check::Verdict::Same),
        o.only_candidate,
        o.only_baseline
    );
    for n in &o.notes {
        say!("note: {n}");
    }
    Ok(code)
}

pub(crate) fn export_cmd(a: &ExportArgs) -> Result<i32> {
    let rows = match (&a.dir, &a.db) {
        (Some(_), Some(_)) => {
            return Err(Error::usage(
                "ango export: give a results directory or --db, not both",
            ))
        }
        (Some(d), None) => {
            if a.where_.is_some() {
                return Err(Error::usage(
                    "ango export DIR: --where selects from a store; export a directory whole, \
                     or import it and use --db",
                ));
            }
            ango_store::export::run_rows(&import::read_run(d, None, false)?)
        }
        (None, _) => {
            let mut c = db::open(&store_url(&a.db)?)?;
            let rows = select::rows(c.as_mut(), &parse_where(a.where_.as_deref().unwrap_or(""))?)?;
            if rows.is_empty() {
                return Err(Error::usage(
                    "no stored point matches --where (or the store is empty: `ango import DIR` \
                     first)",
                ));
            }
            rows
        }
    };
    let n = rows.len();
    let bytes: Vec<u8> = match a.format.as_str() {
        "bmf" => {
            let rows = if a.dir.is_some() {
                rows
            } else {
                ango_store::export::newest_run(rows)
            };
            ango_store::export::bmf(&rows)?.into_bytes()
        }
        "csv" => ango_store::export::csv(&rows).into_bytes(),
        #[cfg(feature = "parquet")]
        "parquet" => {
            use std::io::IsTerminal;
            if a.out.is_none() && std::io::stdout().is_terminal() {
                return Err(Error::usage(
                    "--format parquet writes a binary file: give --out FILE, or redirect \
                     standard output",
                ));
            }
            ango_store::export::parquet(&rows)?
        }
        #[cfg(not(feature = "parquet"))]
        "parquet" => {
            return Err(Error::usage(
                "--format parquet: this ango was built without Parquet; build it with \
                 `--features parquet` (scripts/ango does), or use csv",
            ))
        }
        f => {
            return Err(Error::usage(format!(
                "--format {f}: unknown; valid: {}",
                ango_store::export::FORMATS
            )))
        }
    };
    match &a.out {
        Some(p) => {
            if p.exists() {
                return Err(Error::usage(format!(
                    "--out {}: exists; give a new file (an export never overwrites one)",
                    p.display()
                )));
            }
            std::fs::write(p, &bytes)
                .map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
            eprintln!("wrote {} ({n} points)", p.display());
        }
        None => std::io::stdout()
            .write_all(&bytes)
            .map_err(|e| Error::io("writing standard output", e))?,
    }
    Ok(0)
}
