//! `--where KEY=VALUE,...`: which stored points a command reads, and the
//! query that reads them with their run's testbed and time.

use crate::db::{Conn, Value};
use crate::point::{Better, Point};
use ango_core::{Error, Result};

/// The keys `--where`, `--rows` and `--cols` know, with the column each
/// reads.
pub const KEYS: &[(&str, &str)] = &[
    ("testbed", "r.testbed"),
    ("host", "r.label"),
    ("run", "r.run_id"),
    ("suite", "p.suite"),
    ("metric", "p.metric"),
    ("algorithm", "p.algorithm"),
    ("operation", "p.operation"),
    ("backend", "p.backend"),
    ("implementation", "p.implementation"),
    ("hw", "p.hw"),
    ("size", "p.size_bytes"),
    ("workers", "p.workers"),
    ("library_version", "p.library_version"),
    ("arch", "t.arch"),
    ("cpu", "t.cpu_model"),
];

/// The names `KEYS` answers to (with the short forms other commands take).
pub fn column(key: &str) -> Option<&'static str> {
    let key = match key {
        "algo" => "algorithm",
        "op" => "operation",
        "impl" => "implementation",
        "label" => "host",
        "run_id" => "run",
        "size_bytes" => "size",
        // A public-key point's timing (`operation`, `api-call`) is its hw column.
        "timing" => "hw",
        k => k,
    };
    KEYS.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
}

pub fn key_names() -> String {
    KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// One `KEY=VALUE` filter; `VALUE` may list several values with `|`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub key: String,
    pub column: &'static str,
    pub values: Vec<String>,
}

/// Parses `KEY=VALUE[,KEY=VALUE...]`.
pub fn parse_where(s: &str) -> Result<Vec<Filter>> {
    let mut out = Vec::new();
    for kv in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            Error::usage(format!(
                "--where: '{kv}' is not KEY=VALUE; keys: {}",
                key_names()
            ))
        })?;
        let column = column(k.trim()).ok_or_else(|| {
            Error::usage(format!(
                "--where: unknown key '{}'; valid: {}",
                k.trim(),
                key_names()
            ))
        })?;
        out.push(Filter {
            key: k.trim().to_string(),
            column,
            values: v.split('|').map(|x| x.trim().to_string()).collect(),
        });
    }
    Ok(out)
}

/// A stored point with the run it came from.
#[derive(Clone, Debug)]
pub struct Row {
    pub point: Point,
    pub run_id: String,
    pub testbed: String,
    pub host: String,
    pub started: String,
    pub kernel: String,
    pub cycle_source: String,
    pub testbed_description: String,
    pub arch: String,
    pub cpu_model: String,
}

const SELECT: &str = "SELECT p.key, p.suite, p.algorithm, p.operation, p.backend, \
    p.implementation, p.hw, p.size_bytes, p.workers, p.library_version, p.metric, p.unit, \
    p.better, p.median, p.q1, p.q3, p.ci95_low, p.ci95_high, p.samples, p.cycles_per_op, \
    p.cycles_per_byte, r.run_id, r.testbed, r.label, r.started, r.kernel, r.cycle_source, \
    t.description, t.arch, t.cpu_model FROM points p JOIN runs r ON p.run_id = r.run_id JOIN testbeds t ON \
    r.testbed = t.testbed";

fn metric_name(s: &str) -> &'static str {
    crate::point::METRICS
        .iter()
        .find(|m| **m == s)
        .copied()
        .unwrap_or("latency")
}

fn unit_name(s: &str) -> &'static str {
    ["ns", "B/s", "B", "allocations", "t", "ns/B", "op/s"]
        .into_iter()
        .find(|m| *m == s)
        .unwrap_or("")
}

/// The points `filters` select, oldest run first. A filter on `size`
/// or `workers` compares numbers; the others text.
pub fn rows(c: &mut dyn Conn, filters: &[Filter]) -> Result<Vec<Row>> {
    let mut sql = SELECT.to_string();
    let mut params = Vec::new();
    for (i, f) in filters.iter().enumerate() {
        sql.push_str(if i == 0 { " WHERE " } else { " AND " });
        let numeric = matches!(f.column, "p.size_bytes" | "p.workers");
        let mut alts = Vec::new();
        for v in &f.values {
            // A testbed is also found by a prefix of its fingerprint.
            let (op, value) = if f.column == "r.testbed" {
                ("LIKE", Value::Text(format!("{v}%")))
            } else if numeric {
                let n = v.parse().map_err(|_| {
                    Error::usage(format!("--where {}={v}: not a whole number", f.key))
                })?;
                ("=", Value::Int(n))
            } else {
                ("=", Value::from(v))
            };
            params.push(value);
            alts.push(format!("{} {op} ${}", f.column, params.len()));
        }
        sql.push_str(&format!("({})", alts.join(" OR ")));
    }
    sql.push_str(" ORDER BY r.started, r.run_id, p.key, p.metric");
    let out = c.query(&sql, &params)?;
    Ok(out.into_iter().map(row).collect())
}

fn row(v: Vec<Value>) -> Row {
    let t = |i: usize| v[i].text();
    let f = |i: usize| v[i].real();
    Row {
        point: Point {
            key: t(0),
            suite: t(1),
            algorithm: t(2),
            operation: t(3),
            backend: t(4),
            implementation: t(5),
            hw: t(6),
            size_bytes: v[7].int().map(|x| x as u64),
            workers: v[8].int().unwrap_or(1) as u64,
            library_version: t(9),
            metric: metric_name(&t(10)),
            unit: unit_name(&t(11)),
            better: Better::of(&t(12)),
            median: f(13),
            q1: f(14),
            q3: f(15),
            ci95_low: f(16),
            ci95_high: f(17),
            samples: v[18].int().map(|x| x as u64),
            cycles_per_op: f(19),
            cycles_per_byte: f(20),
        },
        run_id: t(21),
        testbed: t(22),
        host: t(23),
        started: t(24),
        kernel: t(25),
        cycle_source: t(26),
        testbed_description: t(27),
        arch: t(28),
        cpu_model: t(29),
    }
}

/// The value of `key` ([`KEYS`]) for a row.
pub fn value(r: &Row, key: &str) -> String {
    let p = &r.point;
    match column(key).unwrap_or("") {
        "r.testbed" => r.testbed.clone(),
        "r.label" => r.host.clone(),
        "r.run_id" => r.run_id.clone(),
        "p.suite" => p.suite.clone(),
        "p.metric" => p.metric.to_string(),
        "p.algorithm" => p.algorithm.clone(),
        "p.operation" => p.operation.clone(),
        "p.backend" => p.backend.clone(),
        "p.implementation" => p.implementation.clone(),
        "p.hw" => p.hw.clone(),
        "p.size_bytes" => p.size_bytes.map_or(String::new(), |s| s.to_string()),
        "p.workers" => p.workers.to_string(),
        "p.library_version" => p.library_version.clone(),
        "t.arch" => r.arch.clone(),
        "t.cpu_model" => r.cpu_model.clone(),
        _ => String::new(),
    }
}

/// The raw samples of one stored point, if the store has them.
pub fn samples(
    c: &mut dyn Conn,
    run_id: &str,
    key: &str,
    metric: &str,
) -> Result<Option<Vec<f64>>> {
    let out = c.query(
        "SELECT sample_values FROM samples WHERE run_id = $1 AND key = $2 AND metric = $3",
        &[run_id.into(), key.into(), metric.into()],
    )?;
    Ok(match out.first() {
        Some(r) => serde_json::from_str(&r[0].text()).ok(),
        None => None,
    })
}

/// The run a `run:ID` (a unique prefix of a run id) or `testbed:T` (that
/// testbed's newest run; a prefix of the fingerprint) selector names.
pub fn resolve_run(c: &mut dyn Conn, selector: &str) -> Result<String> {
    let (sql, what, v) = if let Some(id) = selector.strip_prefix("run:") {
        (
            "SELECT run_id FROM runs WHERE run_id LIKE $1 ORDER BY started, run_id",
            "run",
            id,
        )
    } else if let Some(t) = selector.strip_prefix("testbed:") {
        (
            "SELECT run_id, testbed FROM runs WHERE testbed LIKE $1 ORDER BY started, run_id",
            "testbed",
            t,
        )
    } else {
        return Err(Error::usage(format!(
            "'{selector}': a store selector is run:RUN_ID or testbed:T"
        )));
    };
    if v.is_empty() {
        return Err(Error::usage(format!(
            "'{selector}': nothing after the colon"
        )));
    }
    let hits = c.query(sql, &[Value::Text(format!("{v}%"))])?;
    match (what, hits.as_slice()) {
        (_, []) => Err(Error::usage(format!(
            "'{selector}': no {what} in the store starts with {v}"
        ))),
        ("run", [one]) => Ok(one[0].text()),
        ("run", many) => Err(Error::usage(format!(
            "'{selector}' names {} runs; give more of the id: {}",
            many.len(),
            many.iter()
                .map(|r| r[0].text())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        (_, many) => {
            let testbeds: std::collections::BTreeSet<String> =
                many.iter().map(|r| r[1].text()).collect();
            if testbeds.len() > 1 {
                return Err(Error::usage(format!(
                    "'{selector}' names {} testbeds; give more of it: {}",
                    testbeds.len(),
                    testbeds.into_iter().collect::<Vec<_>>().join(", ")
                )));
            }
            Ok(many[many.len() - 1][0].text())
        }
    }
}

/// The records of one stored run, of the given suites, as written in its
/// results.jsonl (one per record, not per metric).
pub fn run_records(
    c: &mut dyn Conn,
    run_id: &str,
    suites: &[&str],
) -> Result<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    for s in suites {
        let rows = c.query(
            "SELECT record FROM points WHERE run_id = $1 AND suite = $2 AND metric = $3 ORDER BY key",
            &[run_id.into(), (*s).into(), "latency".into()],
        )?;
        for r in rows {
            let v = serde_json::from_str(&r[0].text())
                .map_err(|e| Error::data(format!("store record of {run_id}"), e))?;
            out.push(v);
        }
    }
    Ok(out)
}
