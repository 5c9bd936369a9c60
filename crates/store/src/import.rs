//! `ango import`: a results directory into the store, whole or not at all.
//!
//! A directory is read and checked completely before the store is
//! touched; then the run goes in with one transaction. A run already in
//! the store with the same content is left as it is; with other content
//! it is refused (a run is never half-replaced).

use crate::db::{Conn, Value};
use crate::point::{points, Point};
use ango_core::record::{EnvInfo, PkSamples, SampleSet};
use ango_core::results::{self, read_jsonl};
use ango_core::testbed::{describe, testbed_of, Identity};
use ango_core::{Error, Record, RecordKey, Result};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// The files a run's content hash is taken over: what the run measured.
/// `findings.jsonl` and `report.html` are left out: `ango report`
/// rewrites them from these.
pub const HASHED: &[&str] = &[
    results::ENV,
    results::RESULTS,
    results::SAMPLES,
    results::PK_SAMPLES,
    results::TLS_HANDSHAKES,
    results::EVENTS,
];

/// One results directory, read and checked, ready to go into a store.
#[derive(Debug)]
pub struct RunData {
    pub dir: PathBuf,
    pub env: EnvInfo,
    pub testbed: String,
    pub label: String,
    pub content_hash: String,
    pub records: Vec<Record>,
    /// Per point key and metric: the raw samples.
    pub samples: BTreeMap<(String, String), Vec<f64>>,
    pub findings: Vec<serde_json::Value>,
}

fn refuse(dir: &Path, why: impl std::fmt::Display) -> Error {
    Error::data(dir.display(), why)
}

/// Reads `dir` as a finished run. `label` names the host it came from
/// (its env.json's hostname when none is given).
pub fn read_run(dir: &Path, label: Option<&str>, with_samples: bool) -> Result<RunData> {
    if !dir.is_dir() {
        return Err(refuse(dir, "not a directory"));
    }
    let present: Vec<&str> = results::RUN_FILES
        .iter()
        .copied()
        .filter(|f| dir.join(f).is_file())
        .collect();
    if present.is_empty() {
        let runs_below = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().join(results::ENV).is_file())
                    .count()
            })
            .unwrap_or(0);
        if runs_below > 0 {
            return Err(refuse(
                dir,
                format!(
                    "not a results directory, but it holds {runs_below}: give them ({}/*/)",
                    dir.display()
                ),
            ));
        }
        return Err(refuse(
            dir,
            format!(
                "not an ango results directory: none of {} is there",
                results::RUN_FILES.join(", ")
            ),
        ));
    }
    let env_text = std::fs::read_to_string(dir.join(results::ENV)).map_err(|e| {
        refuse(
            dir,
            format!(
                "truncated: {} cannot be read ({e}); a run writes it first",
                results::ENV
            ),
        )
    })?;
    let env: EnvInfo = serde_json::from_str(&env_text).map_err(|e| {
        refuse(
            dir,
            format!("{} is not an ango environment record: {e}", results::ENV),
        )
    })?;
    if env.run_id.is_empty() {
        return Err(refuse(dir, format!("{} has no run_id", results::ENV)));
    }
    if !env.testbed.is_empty() && env.ended.is_none() {
        return Err(refuse(
            dir,
            format!(
                "unfinished: {} has no end time (the run is still going, or was killed before it \
                 ended); import it once it has ended",
                results::ENV
            ),
        ));
    }
    let lines = read_jsonl::<serde_json::Value>(&dir.join(results::RESULTS))?;
    if lines.partial_tail {
        return Err(refuse(
            dir,
            format!(
                "truncated: {} ends in a cut line (a write interrupted by a crash)",
                results::RESULTS
            ),
        ));
    }
    if let Some(n) = lines.bad_lines.first() {
        return Err(refuse(
            dir,
            format!("{} line {n} is not JSON", results::RESULTS),
        ));
    }
    let mut records = Vec::with_capacity(lines.items.len());
    for (i, v) in lines.items.into_iter().enumerate() {
        let r = Record::from_value(v).map_err(|e| {
            refuse(
                dir,
                format!(
                    "{} line {}: {e} (written by another version of ango, or not by ango)",
                    results::RESULTS,
                    i + 1
                ),
            )
        })?;
        let run = record_run_id(&r);
        if run != env.run_id {
            return Err(refuse(
                dir,
                format!(
                    "{} line {} belongs to run {run}, {} to run {}: two runs mixed in one directory",
                    results::RESULTS,
                    i + 1,
                    results::ENV,
                    env.run_id
                ),
            ));
        }
        records.push(r);
    }
    if records.is_empty() {
        return Err(refuse(
            dir,
            format!("{} holds no records: nothing to import", results::RESULTS),
        ));
    }
    let mut keys = std::collections::HashSet::new();
    for r in &records {
        if !keys.insert(r.key()) {
            return Err(refuse(dir, format!("two records have the key {}", r.key())));
        }
    }
    let samples = if with_samples {
        read_samples(dir, &records)?
    } else {
        BTreeMap::new()
    };
    let findings = read_jsonl::<serde_json::Value>(&dir.join(results::FINDINGS))?.items;
    Ok(RunData {
        dir: dir.to_path_buf(),
        testbed: testbed_of(&env),
        label: label.map_or_else(|| env.hostname.clone(), str::to_string),
        content_hash: content_hash(dir)?,
        env,
        records,
        samples,
        findings,
    })
}

fn record_run_id(r: &Record) -> &str {
    match r {
        Record::Speed(x) => &x.head.run_id,
        Record::Pk(x) => &x.head.run_id,
        Record::PkMemory(x) => &x.head.run_id,
        Record::Tls(x) => &x.head.run_id,
        Record::Ct(x) => &x.head.run_id,
        Record::Cycles(x) => &x.head.run_id,
        Record::TlsRecords(x) => &x.head.run_id,
        Record::TlsBulk(x) => &x.head.run_id,
        Record::TlsPolicy(x) => &x.head.run_id,
    }
}

/// SHA-256 over each hashed file's name, length and bytes.
pub fn content_hash(dir: &Path) -> Result<String> {
    let mut h = Sha256::new();
    for f in HASHED {
        let bytes = match std::fs::read(dir.join(f)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("reading {}", dir.join(f).display()), e)),
        };
        h.update(f.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex::encode(h.finalize()))
}

/// The raw samples of the run's latency points, matched to their records:
/// a speed sample set to the record of the same algorithm, operation,
/// backend, hw, size and workers (and implementation, where the sample
/// set names it) in the same order; a public-key one by its key fields;
/// a TLS combination's handshake times by group and signatures, in order.
fn read_samples(dir: &Path, records: &[Record]) -> Result<BTreeMap<(String, String), Vec<f64>>> {
    let mut out = BTreeMap::new();
    let mut speed: HashMap<String, VecDeque<String>> = HashMap::new();
    let mut speed_impl: HashMap<String, VecDeque<String>> = HashMap::new();
    let mut pk: HashMap<String, String> = HashMap::new();
    let mut tls: HashMap<String, VecDeque<String>> = HashMap::new();
    for r in records {
        match r {
            Record::Speed(s) => {
                let g = format!(
                    "{}/{}/{}/{}/{}/{}/{}",
                    s.head.suite,
                    s.algorithm,
                    s.operation,
                    s.backend,
                    s.hw,
                    s.size_bytes,
                    s.workers
                );
                speed.entry(g.clone()).or_default().push_back(r.key());
                speed_impl
                    .entry(format!("{g}/{}", s.implementation))
                    .or_default()
                    .push_back(r.key());
            }
            Record::Tls(t) => {
                tls.entry(format!("{}/{}/{}", t.group, t.server_sig, t.ca_sig))
                    .or_default()
                    .push_back(r.key());
            }
            Record::Pk(p) => {
                let g = format!(
                    "{}/{}/{}/{}/{}",
                    p.algorithm,
                    p.who(),
                    p.operation,
                    p.timing,
                    p.workers
                );
                pk.insert(g, r.key());
            }
            _ => {}
        }
    }
    let sets = read_jsonl::<serde_json::Value>(&dir.join(results::SAMPLES))?;
    for v in sets.items {
        let implementation = v["implementation"].as_str().unwrap_or("").to_string();
        let Ok(s) = serde_json::from_value::<SampleSet>(v) else {
            continue;
        };
        let g = format!(
            "{}/{}/{}/{}/{}/{}/{}",
            s.suite, s.algorithm, s.operation, s.backend, s.hw, s.size_bytes, s.workers
        );
        let key = if implementation.is_empty() {
            speed.get_mut(&g).and_then(|q| q.pop_front())
        } else {
            speed_impl
                .get_mut(&format!("{g}/{implementation}"))
                .and_then(|q| q.pop_front())
        };
        if let Some(k) = key {
            out.insert((k, "latency".to_string()), s.sample_ns);
        }
    }
    let sets = read_jsonl::<PkSamples>(&dir.join(results::PK_SAMPLES))?;
    for s in sets.items {
        let g = format!(
            "{}/{}/{}/{}/{}",
            s.algorithm,
            ango_core::record::who(&s.backend, s.variant.as_deref()),
            s.operation,
            s.timing,
            s.workers
        );
        if let Some(k) = pk.get(&g) {
            out.insert((k.clone(), "latency".to_string()), s.sample_ns);
        }
    }
    // A TLS combination's handshake times, matched by group and
    // signatures in file order (the lines name no stacks).
    let sets = read_jsonl::<serde_json::Value>(&dir.join(results::TLS_HANDSHAKES))?;
    for v in sets.items {
        let g = format!(
            "{}/{}/{}",
            v["group"].as_str().unwrap_or(""),
            v["server_sig"].as_str().unwrap_or(""),
            v["ca_sig"].as_str().unwrap_or("")
        );
        let Some(times) = v["handshake_ns"].as_array() else {
            continue;
        };
        let times: Vec<f64> = times.iter().filter_map(|x| x.as_f64()).collect();
        if let Some(k) = tls.get_mut(&g).and_then(|q| q.pop_front()) {
            out.insert((k, "latency".to_string()), times);
        }
    }
    Ok(out)
}

/// What importing one run did.
#[derive(Clone, Debug, PartialEq)]
pub enum Imported {
    /// It went in: its run id, testbed and how many points.
    New {
        run_id: String,
        testbed: String,
        points: usize,
        samples: usize,
        findings: usize,
    },
    /// The same run with the same content was there already.
    Unchanged { run_id: String },
}

const POINT_COLUMNS: &[&str] = &[
    "run_id",
    "key",
    "metric",
    "suite",
    "algorithm",
    "operation",
    "backend",
    "implementation",
    "hw",
    "size_bytes",
    "workers",
    "library_version",
    "unit",
    "better",
    "median",
    "q1",
    "q3",
    "ci95_low",
    "ci95_high",
    "samples",
    "cycles_per_op",
    "cycles_per_byte",
    "record",
];

/// `INSERT INTO table (columns) VALUES ($1, …), (…)` for `rows` rows.
fn insert_sql(table: &str, columns: &[&str], rows: usize) -> String {
    let mut s = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
    let n = columns.len();
    for r in 0..rows {
        if r > 0 {
            s.push_str(", ");
        }
        s.push('(');
        for c in 0..n {
            if c > 0 {
                s.push_str(", ");
            }
            s.push_str(&format!("${}", r * n + c + 1));
        }
        s.push(')');
    }
    s
}

/// Inserts `rows` (each `columns.len()` values) in statements of up to
/// 100 rows.
fn insert_rows(
    c: &mut dyn Conn,
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Value>>,
) -> Result<()> {
    for chunk in rows.chunks(100) {
        let sql = insert_sql(table, columns, chunk.len());
        let params: Vec<Value> = chunk.iter().flatten().cloned().collect();
        c.exec(&sql, &params)?;
    }
    Ok(())
}

fn point_row(run_id: &str, p: &Point, record: &str) -> Vec<Value> {
    vec![
        run_id.into(),
        (&p.key).into(),
        p.metric.into(),
        (&p.suite).into(),
        (&p.algorithm).into(),
        (&p.operation).into(),
        (&p.backend).into(),
        (&p.implementation).into(),
        (&p.hw).into(),
        p.size_bytes.into(),
        p.workers.into(),
        (&p.library_version).into(),
        p.unit.into(),
        p.better.name().into(),
        p.median.into(),
        p.q1.into(),
        p.q3.into(),
        p.ci95_low.into(),
        p.ci95_high.into(),
        p.samples.into(),
        p.cycles_per_op.into(),
        p.cycles_per_byte.into(),
        record.into(),
    ]
}

/// Puts one read run into the store, in one transaction.
pub fn import(c: &mut dyn Conn, run: &RunData) -> Result<Imported> {
    let run_id = run.env.run_id.clone();
    let have = c.query(
        "SELECT content_hash FROM runs WHERE run_id = $1",
        &[Value::from(&run_id)],
    )?;
    if let Some(row) = have.first() {
        let hash = row[0].text();
        if hash == run.content_hash {
            return Ok(Imported::Unchanged { run_id });
        }
        return Err(refuse(
            &run.dir,
            format!(
                "run {run_id} is in the store already with other content (hash {} there, {} \
                 here): the directory changed after it was imported, or two runs share an id; \
                 nothing was written",
                &hash[..hash.len().min(12)],
                &run.content_hash[..12]
            ),
        ));
    }
    c.batch("BEGIN")?;
    match write_run(c, run) {
        Ok(done) => {
            c.batch("COMMIT")?;
            Ok(done)
        }
        Err(e) => {
            let _ = c.batch("ROLLBACK");
            Err(e)
        }
    }
}

fn write_run(c: &mut dyn Conn, run: &RunData) -> Result<Imported> {
    let e = &run.env;
    let id = Identity::of(e);
    c.exec(
        "INSERT INTO testbeds (testbed, arch, cpu_vendor, cpu_family, cpu_model_number, \
         cpu_stepping, cpu_model, microcode, dispatch_flags, cores, threads, memory_bytes, \
         virtualization, frequency_governor, boost, description) VALUES ($1, $2, $3, $4, $5, $6, \
         $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (testbed) DO NOTHING",
        &[
            (&run.testbed).into(),
            (&id.arch).into(),
            (&id.cpu_vendor).into(),
            id.cpu_family.map(|x| x as i64).into(),
            id.cpu_model_number.map(|x| x as i64).into(),
            id.cpu_stepping.map(|x| x as i64).into(),
            (&id.cpu_model).into(),
            id.microcode.clone().into(),
            id.dispatch_flags.join(" ").into(),
            (id.cores as u64).into(),
            (id.threads as u64).into(),
            e.memory_bytes.into(),
            (&id.virtualization).into(),
            id.frequency_governor.clone().into(),
            id.boost.clone().into(),
            describe(e).into(),
        ],
    )?;
    let mut rows = Vec::new();
    let mut n_points = 0;
    for r in &run.records {
        let json = serde_json::to_string(r).map_err(|x| Error::data(run.dir.display(), x))?;
        for p in points(r) {
            rows.push(point_row(&e.run_id, &p, &json));
            n_points += 1;
        }
    }
    c.exec(
        "INSERT INTO runs (run_id, content_hash, testbed, host, label, started, ended, \
         interrupted, kernel, os, ango_version, command, cycle_source, tsc_hz, source, imported, \
         points, env) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
         $16, $17, $18)",
        &[
            (&e.run_id).into(),
            (&run.content_hash).into(),
            (&run.testbed).into(),
            (&e.hostname).into(),
            (&run.label).into(),
            (&e.time).into(),
            e.ended.clone().into(),
            e.interrupted.into(),
            (&e.kernel).into(),
            (&e.os).into(),
            (&e.ango_version).into(),
            (&e.command).into(),
            (&e.cycle_source).into(),
            e.tsc_hz_measured.into(),
            run.dir.display().to_string().into(),
            ango_core::results::utc_now().0.into(),
            (n_points as u64).into(),
            serde_json::to_string(e)
                .map_err(|x| Error::data(run.dir.display(), x))?
                .into(),
        ],
    )?;
    let libraries: Vec<Vec<Value>> = {
        let mut seen = std::collections::BTreeMap::new();
        for (name, version) in &e.libraries {
            seen.entry(name.clone()).or_insert_with(|| version.clone());
        }
        seen.into_iter()
            .map(|(n, v)| vec![(&e.run_id).into(), n.into(), v.into()])
            .collect()
    };
    insert_rows(c, "libraries", &["run_id", "name", "version"], libraries)?;
    insert_rows(c, "points", POINT_COLUMNS, rows)?;
    let samples: Vec<Vec<Value>> = run
        .samples
        .iter()
        .map(|((key, metric), v)| {
            vec![
                (&e.run_id).into(),
                key.into(),
                metric.into(),
                serde_json::to_string(v).unwrap_or_default().into(),
            ]
        })
        .collect();
    let n_samples = samples.len();
    insert_rows(
        c,
        "samples",
        &["run_id", "key", "metric", "sample_values"],
        samples,
    )?;
    let findings: Vec<Vec<Value>> = run
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let s = |k: &str| Value::from(f[k].as_str().unwrap_or(""));
            vec![
                (&e.run_id).into(),
                (i as u64).into(),
                s("id"),
                s("seed"),
                s("section"),
                s("claim"),
                s("verdict"),
                f["measured"].as_f64().into(),
                f["ci95_low"].as_f64().into(),
                f["ci95_high"].as_f64().into(),
                s("unit"),
                f.to_string().into(),
            ]
        })
        .collect();
    let n_findings = findings.len();
    insert_rows(
        c,
        "findings",
        &[
            "run_id",
            "seq",
            "id",
            "seed",
            "section",
            "claim",
            "verdict",
            "measured",
            "ci95_low",
            "ci95_high",
            "unit",
            "record",
        ],
        findings,
    )?;
    Ok(Imported::New {
        run_id: e.run_id.clone(),
        testbed: run.testbed.clone(),
        points: n_points,
        samples: n_samples,
        findings: n_findings,
    })
}
