//! `ango export`: stored points (or one results directory's) as the
//! Bencher Metric Format, CSV, or Parquet.
//!
//! BMF names each benchmark `suite/algorithm/operation/backend[variant]/size`
//! (the size left out where a point has none) and gives it the measures
//! `latency` (ns, Bencher's built-in), `throughput` (operations per
//! second, Bencher's built-in unit), `bytes-per-second` for points with
//! a message size, and a point's other figures under their own metric
//! names; `lower_value` and `upper_value` are the 95% interval of the
//! median. BMF has no machine in it (Bencher's testbed is given beside
//! it), so a BMF export holds one run: the newest of one testbed.

use crate::import::RunData;
use crate::point::{points, throughput, Point};
use crate::select::Row;
use ango_core::testbed::describe;
use ango_core::{Error, Result};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

/// The formats `--format` takes.
pub const FORMATS: &str = "bmf, csv, parquet";

/// The rows of one results directory, as the store would give them.
pub fn run_rows(run: &RunData) -> Vec<Row> {
    let e = &run.env;
    run.records
        .iter()
        .flat_map(points)
        .map(|p| Row {
            point: p,
            run_id: e.run_id.clone(),
            testbed: run.testbed.clone(),
            host: run.label.clone(),
            started: e.time.clone(),
            kernel: e.kernel.clone(),
            cycle_source: e.cycle_source.clone(),
            testbed_description: describe(e),
            arch: e.arch.clone(),
            cpu_model: e.cpu_model.clone(),
        })
        .collect()
}

/// What tells a point apart from the others of its name's first four
/// parts: the implementation where a backend has several, an hw or
/// timing other than the default, several workers.
fn variant(p: &Point) -> Vec<String> {
    let mut v = Vec::new();
    let several = matches!(p.suite.as_str(), "speed" | "latency" | "cycles" | "ct")
        && !p.implementation.is_empty()
        && !matches!(p.implementation.as_str(), "evp");
    if several {
        v.push(p.implementation.clone());
    }
    match (p.suite.as_str(), p.hw.as_str()) {
        (_, "") | ("speed" | "latency", "on") | ("pk", "operation") => {}
        ("pk", t) => v.push(format!("timing={t}")),
        ("speed" | "latency", h) => v.push(format!("hw={h}")),
        ("tls", "rtt=1000us") => {}
        (_, h) => v.push(h.to_string()),
    }
    if p.workers > 1 {
        v.push(format!("workers={}", p.workers));
    }
    v
}

/// `suite/algorithm/operation/backend[variant]/size`.
pub fn bmf_name(p: &Point) -> String {
    let v = variant(p);
    let backend = if v.is_empty() {
        p.backend.clone()
    } else if p.backend.ends_with(']') {
        // A public-key backend already names its variant (`libcrux[avx2]`).
        format!("{},{}]", &p.backend[..p.backend.len() - 1], v.join(","))
    } else {
        format!("{}[{}]", p.backend, v.join(","))
    };
    let mut name = format!("{}/{}/{}/{}", p.suite, p.algorithm, p.operation, backend);
    if let Some(s) = p.size_bytes {
        name.push_str(&format!("/{s}"));
    }
    name
}

fn metric(value: f64, lo: Option<f64>, hi: Option<f64>) -> Json {
    let mut m = Map::new();
    m.insert("value".into(), json!(value));
    if let (Some(lo), Some(hi)) = (lo, hi) {
        if lo.is_finite() && hi.is_finite() {
            m.insert("lower_value".into(), json!(lo.min(value)));
            m.insert("upper_value".into(), json!(hi.max(value)));
        }
    }
    Json::Object(m)
}

/// The BMF document of `rows`, which must come from one run.
pub fn bmf(rows: &[Row]) -> Result<String> {
    let runs: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.run_id.as_str()).collect();
    if runs.len() > 1 {
        return Err(Error::usage(format!(
            "BMF holds one run, and the selection has {}: add --where run=… (or testbed=…, which \
             exports that testbed's newest run); runs: {}",
            runs.len(),
            runs.into_iter().take(8).collect::<Vec<_>>().join(", ")
        )));
    }
    // A name two records would share (a combination the name's parts do
    // not tell apart) is replaced by the records' own keys.
    let mut owners: BTreeMap<String, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for r in rows {
        owners
            .entry(bmf_name(&r.point))
            .or_default()
            .insert(r.point.key.as_str());
    }
    let mut out: BTreeMap<String, Map<String, Json>> = BTreeMap::new();
    for r in rows {
        let p = &r.point;
        let Some(median) = p.median else { continue };
        let mut name = bmf_name(p);
        if owners[&name].len() > 1 {
            name = p.key.clone();
        }
        let entry = out.entry(name).or_default();
        if p.metric == "latency" {
            entry.insert("latency".into(), metric(median, p.ci95_low, p.ci95_high));
            if let Some((t, lo, hi, unit)) = throughput(p) {
                if unit == "B/s" {
                    entry.insert("bytes-per-second".into(), metric(t, lo, hi));
                    let size = p.size_bytes.unwrap_or(1).max(1) as f64;
                    entry.insert(
                        "throughput".into(),
                        metric(t / size, lo.map(|x| x / size), hi.map(|x| x / size)),
                    );
                } else {
                    entry.insert("throughput".into(), metric(t, lo, hi));
                }
            }
        } else {
            entry.insert(p.metric.into(), metric(median, p.ci95_low, p.ci95_high));
        }
    }
    let doc: Map<String, Json> = out.into_iter().map(|(k, v)| (k, Json::Object(v))).collect();
    Ok(serde_json::to_string_pretty(&Json::Object(doc)).expect("JSON serialises") + "\n")
}

/// The newest run of each testbed among `rows`, when they are of one
/// testbed; all of them otherwise (for BMF to refuse with the list).
pub fn newest_run(rows: Vec<Row>) -> Vec<Row> {
    let testbeds: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r.testbed.as_str()).collect();
    if testbeds.len() != 1 {
        return rows;
    }
    let Some(last) = rows.last().map(|r| r.run_id.clone()) else {
        return rows;
    };
    rows.into_iter().filter(|r| r.run_id == last).collect()
}

/// The kinds of an exported column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Real,
}

/// The columns of the CSV and Parquet exports, in order, with their kinds.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("run_id", Kind::Text),
    ("testbed", Kind::Text),
    ("host", Kind::Text),
    ("started", Kind::Text),
    ("suite", Kind::Text),
    ("key", Kind::Text),
    ("metric", Kind::Text),
    ("unit", Kind::Text),
    ("better", Kind::Text),
    ("algorithm", Kind::Text),
    ("operation", Kind::Text),
    ("backend", Kind::Text),
    ("implementation", Kind::Text),
    ("hw", Kind::Text),
    ("size_bytes", Kind::Int),
    ("workers", Kind::Int),
    ("library_version", Kind::Text),
    ("median", Kind::Real),
    ("q1", Kind::Real),
    ("q3", Kind::Real),
    ("ci95_low", Kind::Real),
    ("ci95_high", Kind::Real),
    ("samples", Kind::Int),
    ("cycles_per_op", Kind::Real),
    ("cycles_per_byte", Kind::Real),
];

/// One exported row's fields: text, or a number (`None`: empty/null).
pub enum Field {
    Text(String),
    Int(Option<i64>),
    Real(Option<f64>),
}

pub fn fields(r: &Row) -> Vec<Field> {
    let p = &r.point;
    let t = |s: &str| Field::Text(s.to_string());
    vec![
        t(&r.run_id),
        t(&r.testbed),
        t(&r.host),
        t(&r.started),
        t(&p.suite),
        t(&p.key),
        t(p.metric),
        t(p.unit),
        t(p.better.name()),
        t(&p.algorithm),
        t(&p.operation),
        t(&p.backend),
        t(&p.implementation),
        t(&p.hw),
        Field::Int(p.size_bytes.map(|x| x as i64)),
        Field::Int(Some(p.workers as i64)),
        t(&p.library_version),
        Field::Real(p.median),
        Field::Real(p.q1),
        Field::Real(p.q3),
        Field::Real(p.ci95_low),
        Field::Real(p.ci95_high),
        Field::Int(p.samples.map(|x| x as i64)),
        Field::Real(p.cycles_per_op),
        Field::Real(p.cycles_per_byte),
    ]
}

pub fn csv(rows: &[Row]) -> String {
    let mut out = COLUMNS.iter().map(|c| c.0).collect::<Vec<_>>().join(",") + "\n";
    for r in rows {
        let line: Vec<String> = fields(r)
            .into_iter()
            .map(|f| match f {
                Field::Text(s) => ango_core::csv::field(&s),
                Field::Int(i) => i.map_or(String::new(), |x| x.to_string()),
                Field::Real(x) => x.map_or(String::new(), |x| format!("{x}")),
            })
            .collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Column `col` of `table` as Parquet writes an optional column: the
/// values present, and a definition level per row (1 present, 0 null).
#[cfg(feature = "parquet")]
fn optional<T>(
    table: &[Vec<Field>],
    col: usize,
    pick: impl Fn(&Field) -> Option<T>,
) -> (Vec<T>, Vec<i16>) {
    let mut vals = Vec::new();
    let mut def = Vec::new();
    for r in table {
        match pick(&r[col]) {
            Some(x) => {
                vals.push(x);
                def.push(1);
            }
            None => def.push(0),
        }
    }
    (vals, def)
}

/// The rows as a Parquet file (one row group; text as UTF-8 byte
/// arrays, numbers as optional INT64 and DOUBLE).
#[cfg(feature = "parquet")]
pub fn parquet(rows: &[Row]) -> Result<Vec<u8>> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    let mut schema = String::from("message ango_points {\n");
    for (name, kind) in COLUMNS {
        schema.push_str(&match kind {
            Kind::Text => format!("  REQUIRED BYTE_ARRAY {name} (UTF8);\n"),
            Kind::Int => format!("  OPTIONAL INT64 {name};\n"),
            Kind::Real => format!("  OPTIONAL DOUBLE {name};\n"),
        });
    }
    schema.push('}');
    let pe = |e: parquet::errors::ParquetError| Error::data("parquet", e);
    let schema = Arc::new(parse_message_type(&schema).map_err(pe)?);
    let props = Arc::new(WriterProperties::builder().build());
    let mut buf = Vec::new();
    {
        let mut w = SerializedFileWriter::new(&mut buf, schema, props).map_err(pe)?;
        let table: Vec<Vec<Field>> = rows.iter().map(fields).collect();
        let mut rg = w.next_row_group().map_err(pe)?;
        let mut col = 0;
        while let Some(mut cw) = rg.next_column().map_err(pe)? {
            match COLUMNS[col].1 {
                Kind::Text => {
                    let v: Vec<ByteArray> = table
                        .iter()
                        .map(|r| match &r[col] {
                            Field::Text(s) => ByteArray::from(s.as_str()),
                            _ => ByteArray::from(""),
                        })
                        .collect();
                    cw.typed::<ByteArrayType>()
                        .write_batch(&v, None, None)
                        .map_err(pe)?;
                }
                Kind::Int => {
                    let (vals, def) = optional(&table, col, |f| match f {
                        Field::Int(x) => *x,
                        _ => None,
                    });
                    cw.typed::<Int64Type>()
                        .write_batch(&vals, Some(&def), None)
                        .map_err(pe)?;
                }
                Kind::Real => {
                    let (vals, def) = optional(&table, col, |f| match f {
                        Field::Real(x) => *x,
                        _ => None,
                    });
                    cw.typed::<DoubleType>()
                        .write_batch(&vals, Some(&def), None)
                        .map_err(pe)?;
                }
            }
            cw.close().map_err(pe)?;
            col += 1;
        }
        rg.close().map_err(pe)?;
        w.close().map_err(pe)?;
    }
    Ok(buf)
}
