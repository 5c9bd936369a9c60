//! `ango table`: an eBACS-style table across machines — one row per
//! value of `--rows` (by default the testbed), one column per value of
//! `--cols` (by default the backend), a stored point in each cell with
//! its median, interquartile range, sample count and library version,
//! and cycles per byte where the run had a cycle source.
//!
//! Each cell takes the newest run of its testbed that measured it. A
//! cell that would still hold several points (two message sizes, say)
//! is an error naming what differs, not a silent pick. Differences
//! between machines are described, never tested: they are different
//! machines, and no test on two runs tells what a fleet would do.

use crate::db::Conn;
use crate::point::{throughput, Better, METRICS};
use crate::select::{self, Filter, Row, KEYS};
use ango_core::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
pub struct Spec {
    pub filters: Vec<Filter>,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// The figure shown; `latency` where the selection has it, else the
    /// selection's only metric.
    pub metric: Option<String>,
}

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub median: f64,
    pub q1: Option<f64>,
    pub q3: Option<f64>,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub samples: Option<u64>,
    pub library_version: String,
    pub cycles_per_byte: Option<f64>,
    pub cycles_per_op: Option<f64>,
    pub cycle_source: String,
    pub run_id: String,
    pub testbed: String,
    pub key: String,
}

#[derive(Clone, Debug)]
pub struct Cross {
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub row_keys: Vec<String>,
    pub col_keys: Vec<String>,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// `(row, column)` → cell.
    pub cells: BTreeMap<(usize, usize), Cell>,
    /// Each testbed in the table: fingerprint and description.
    pub testbeds: Vec<(String, String)>,
    /// What the table leaves to the reader: e.g. that cycles are TSC
    /// cycles, and the spread of each column across rows.
    pub notes: Vec<String>,
}

fn check_keys(keys: &[String], flag: &str) -> Result<()> {
    for k in keys {
        if select::column(k).is_none() {
            return Err(Error::usage(format!(
                "{flag} {k}: unknown key; valid: {}",
                select::key_names()
            )));
        }
    }
    Ok(())
}

fn label(r: &Row, keys: &[String]) -> String {
    keys.iter()
        .map(|k| {
            let v = select::value(r, k);
            if v.is_empty() {
                "-".to_string()
            } else {
                v
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Orders labels naturally: numbers as numbers (16 before 1024).
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}

pub fn table(c: &mut dyn Conn, spec: &Spec) -> Result<Cross> {
    check_keys(&spec.rows, "--rows")?;
    check_keys(&spec.cols, "--cols")?;
    if let Some(m) = &spec.metric {
        if !METRICS.contains(&m.as_str()) {
            return Err(Error::usage(format!(
                "--metric {m}: unknown; valid: {}",
                METRICS.join(", ")
            )));
        }
    }
    let all = select::rows(c, &spec.filters)?;
    if all.is_empty() {
        return Err(Error::usage(
            "no stored point matches --where (or the store is empty: `ango import DIR` first)",
        ));
    }
    let have: BTreeSet<&str> = all.iter().map(|r| r.point.metric).collect();
    let metric = match &spec.metric {
        Some(m) if m == "throughput" && have.contains("latency") => "throughput".to_string(),
        Some(m) if have.contains(m.as_str()) => m.clone(),
        Some(m) => {
            return Err(Error::usage(format!(
                "--metric {m}: the selection has none; it has {}",
                have.iter().copied().collect::<Vec<_>>().join(", ")
            )))
        }
        None if have.contains("latency") => "latency".to_string(),
        None if have.len() == 1 => have.iter().next().expect("one").to_string(),
        None => {
            return Err(Error::usage(format!(
                "the selection has several metrics ({}); choose one with --metric",
                have.iter().copied().collect::<Vec<_>>().join(", ")
            )))
        }
    };
    let source_metric = if metric == "throughput" && have.contains("latency") {
        "latency"
    } else {
        metric.as_str()
    };
    let picked: Vec<&Row> = all
        .iter()
        .filter(|r| r.point.metric == source_metric && r.point.median.is_some())
        .collect();
    // Per cell and testbed, the newest run (rows come oldest first).
    let mut newest: BTreeMap<(String, String, String), &str> = BTreeMap::new();
    for r in &picked {
        newest.insert(
            (
                label(r, &spec.rows),
                label(r, &spec.cols),
                r.testbed.clone(),
            ),
            &r.run_id,
        );
    }
    let mut cells_raw: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in &picked {
        let (rl, cl) = (label(r, &spec.rows), label(r, &spec.cols));
        if newest[&(rl.clone(), cl.clone(), r.testbed.clone())] == r.run_id {
            cells_raw.entry((rl, cl)).or_default().push(r);
        }
    }
    for ((rl, cl), points) in &cells_raw {
        if points.len() > 1 {
            let differs: Vec<String> = KEYS
                .iter()
                .filter_map(|(k, _)| {
                    let vals: BTreeSet<String> =
                        points.iter().map(|p| select::value(p, k)).collect();
                    (vals.len() > 1 && *k != "run" && *k != "cpu").then(|| {
                        let mut vals: Vec<String> = vals.into_iter().collect();
                        vals.sort_by(|a, b| natural(a, b));
                        vals.truncate(6);
                        format!("{k} ({})", vals.join(", "))
                    })
                })
                .collect();
            return Err(Error::usage(format!(
                "cell [{rl}] × [{cl}] holds {} points that differ in {}: narrow it with --where \
                 (e.g. --where {}=…) or add that key to --rows or --cols",
                points.len(),
                if differs.is_empty() {
                    "their keys".to_string()
                } else {
                    differs.join(", ")
                },
                differs
                    .first()
                    .and_then(|d| d.split(' ').next())
                    .unwrap_or("size")
            )));
        }
    }
    let mut rows: Vec<String> = cells_raw.keys().map(|k| k.0.clone()).collect();
    let mut cols: Vec<String> = cells_raw.keys().map(|k| k.1.clone()).collect();
    rows.sort_by(|a, b| natural(a, b));
    rows.dedup();
    cols.sort_by(|a, b| natural(a, b));
    cols.dedup();
    let first = picked[0];
    let (unit, better) = if metric == "throughput" && source_metric == "latency" {
        (
            throughput(&first.point).map_or("B/s", |t| t.3).to_string(),
            Better::Higher,
        )
    } else {
        (first.point.unit.to_string(), first.point.better)
    };
    let mut cells = BTreeMap::new();
    let mut testbeds = BTreeMap::new();
    let mut tsc = false;
    for ((rl, cl), points) in cells_raw {
        let r = points[0];
        let p = &r.point;
        testbeds.insert(r.testbed.clone(), r.testbed_description.clone());
        let (median, q1, q3, lo, hi) = if metric == "throughput" && source_metric == "latency" {
            let Some((m, lo, hi, _)) = throughput(p) else {
                continue;
            };
            let turn = |ns: Option<f64>| {
                let (m2, ..) = throughput(&crate::point::Point {
                    median: ns,
                    ..p.clone()
                })?;
                Some(m2)
            };
            (m, turn(p.q3), turn(p.q1), lo, hi)
        } else {
            (
                p.median.expect("picked points have a median"),
                p.q1,
                p.q3,
                p.ci95_low,
                p.ci95_high,
            )
        };
        let cpb = p.cycles_per_byte.or_else(|| {
            let size = p.size_bytes.filter(|s| *s > 0 && p.suite != "pk")?;
            Some(p.cycles_per_op? / size as f64)
        });
        tsc |= r.cycle_source == "tsc" && (cpb.is_some() || p.cycles_per_op.is_some());
        let ri = rows.iter().position(|x| *x == rl).expect("a row label");
        let ci = cols.iter().position(|x| *x == cl).expect("a column label");
        cells.insert(
            (ri, ci),
            Cell {
                median,
                q1,
                q3,
                ci95_low: lo,
                ci95_high: hi,
                samples: p.samples,
                library_version: p.library_version.clone(),
                cycles_per_byte: cpb,
                cycles_per_op: p.cycles_per_op,
                cycle_source: r.cycle_source.clone(),
                run_id: r.run_id.clone(),
                testbed: r.testbed.clone(),
                key: p.key.clone(),
            },
        );
    }
    let mut notes = Vec::new();
    if tsc {
        notes.push(
            "cycles are TSC cycles where the run's cycle source was the TSC (it ticks at a fixed \
             rate, not the core clock): compare them within one machine, not across machines"
                .to_string(),
        );
    }
    // Describe each column's spread across the machines of the rows.
    let machines = spec.rows.iter().any(|k| {
        matches!(
            select::column(k),
            Some("r.testbed" | "r.label" | "t.arch" | "t.cpu_model")
        )
    });
    for (ci, col) in cols.iter().enumerate().filter(|_| machines) {
        let vals: Vec<(usize, f64)> = (0..rows.len())
            .filter_map(|ri| cells.get(&(ri, ci)).map(|c| (ri, c.median)))
            .collect();
        if vals.len() < 2 {
            continue;
        }
        // A figure's cost: smaller is better either way.
        let cost = |v: f64| if better == Better::Lower { v } else { -v };
        let first_by = |key: &dyn Fn(f64) -> f64| {
            vals.iter()
                .copied()
                .min_by(|a, b| key(a.1).total_cmp(&key(b.1)))
                .expect("two values")
        };
        let best = first_by(&cost);
        let worst = first_by(&|v| -cost(v));
        let ratio = if better == Better::Lower {
            worst.1 / best.1
        } else {
            best.1 / worst.1
        };
        notes.push(format!(
            "{col}: best on {}, {ratio:.2}× apart from {} (described, not tested: different \
             machines)",
            rows[best.0], rows[worst.0]
        ));
    }
    Ok(Cross {
        metric,
        unit,
        better,
        row_keys: spec.rows.clone(),
        col_keys: spec.cols.clone(),
        rows,
        cols,
        cells,
        testbeds: testbeds.into_iter().collect(),
        notes,
    })
}
