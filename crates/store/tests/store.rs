//! The store end to end on synthetic runs: import (idempotent, whole or
//! nothing, refusing truncated and foreign directories), the table
//! across machines, the regression check and the exports, against
//! SQLite, and against PostgreSQL with the same golden output.

use ango_store::check::{self, Baseline};
use ango_store::cross;
use ango_store::db::{self, Conn, Url};
use ango_store::import::{self, Imported};
use ango_store::select::{self, parse_where};
use ango_store::synth::{write_run, Machine, SpeedPoint};
use std::path::{Path, PathBuf};

/// A noisy-looking but fixed sample set around `m` ns.
fn samples(m: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| m * (1.0 + 0.004 * (((i * 7919) % 13) as f64 - 6.0) / 6.0))
        .collect()
}

fn points(scale_gcm: f64) -> Vec<SpeedPoint<'static>> {
    let mut v = Vec::new();
    for (backend, base) in [("openssl", 100.0), ("ango", 110.0)] {
        for size in [64u64, 1024] {
            v.push(SpeedPoint {
                algorithm: "aes-128-gcm",
                backend,
                implementation: if backend == "ango" { "auto" } else { "evp" },
                size,
                samples: samples(base * size as f64 / 64.0 * scale_gcm, 21),
            });
            v.push(SpeedPoint {
                algorithm: "chacha20-poly1305",
                backend,
                implementation: if backend == "ango" { "auto" } else { "evp" },
                size,
                samples: samples(base * 1.5 * size as f64 / 64.0, 21),
            });
        }
    }
    v
}

/// Three runs: two of host a (the second with AES-GCM 20% slower), one
/// of host b, a machine twice as slow.
fn fixture(root: &Path) -> Vec<PathBuf> {
    let a = Machine::new("a", "AMD EPYC 9R14", 17);
    let b = Machine::new("b", "AMD EPYC 7R13", 1);
    let d1 = root.join("a1");
    let d2 = root.join("a2");
    let d3 = root.join("b1");
    write_run(
        &d1,
        &a,
        "20261201T000000Z-a",
        "2026-12-01T00:00:00Z",
        &points(1.0),
    )
    .unwrap();
    write_run(
        &d2,
        &a,
        "20261202T000000Z-a",
        "2026-12-02T00:00:00Z",
        &points(1.2),
    )
    .unwrap();
    let slow: Vec<SpeedPoint> = points(1.0)
        .into_iter()
        .map(|mut p| {
            p.samples.iter_mut().for_each(|x| *x *= 2.0);
            p
        })
        .collect();
    write_run(&d3, &b, "20261203T000000Z-b", "2026-12-03T00:00:00Z", &slow).unwrap();
    vec![d1, d2, d3]
}

fn count(c: &mut dyn Conn, table: &str) -> i64 {
    c.query(&format!("SELECT COUNT(*) FROM {table}"), &[])
        .unwrap()[0][0]
        .int()
        .unwrap()
}

/// The rows of every table a run fills.
fn counts(c: &mut dyn Conn) -> Vec<i64> {
    [
        "runs",
        "points",
        "samples",
        "findings",
        "testbeds",
        "libraries",
    ]
    .iter()
    .map(|t| count(c, t))
    .collect()
}

/// Everything the scenario produced, as text: the same on every store.
fn scenario(c: &mut dyn Conn, dirs: &[PathBuf]) -> String {
    let mut out = String::new();
    for d in dirs {
        let run = import::read_run(d, None, true).unwrap();
        match import::import(c, &run).unwrap() {
            Imported::New {
                run_id,
                points,
                samples,
                findings,
                ..
            } => out.push_str(&format!("new {run_id} {points} {samples} {findings}\n")),
            Imported::Unchanged { run_id } => out.push_str(&format!("unchanged {run_id}\n")),
        }
    }
    // Again: nothing changes.
    let before = counts(c);
    for d in dirs {
        let run = import::read_run(d, None, true).unwrap();
        assert_eq!(
            import::import(c, &run).unwrap(),
            Imported::Unchanged {
                run_id: run.env.run_id.clone()
            }
        );
    }
    let after = counts(c);
    assert_eq!(before, after);
    out.push_str(&format!("counts {after:?}\n"));
    // The table across machines: AES-GCM at 1 KiB, testbed × backend.
    let t = cross::table(
        c,
        &cross::Spec {
            filters: parse_where("algorithm=aes-128-gcm,size=1024").unwrap(),
            rows: vec!["host".into()],
            cols: vec!["backend".into()],
            metric: None,
        },
    )
    .unwrap();
    out.push_str(&format!(
        "table {} {} {:?} {:?}\n",
        t.metric, t.unit, t.rows, t.cols
    ));
    for ((r, col), cell) in &t.cells {
        out.push_str(&format!(
            "  {} {} {:.1} {:?} {} {}\n",
            t.rows[*r], t.cols[*col], cell.median, cell.samples, cell.library_version, cell.run_id
        ));
    }
    // The regression check of host a's second run against its first.
    let tb = import::read_run(&dirs[0], None, false).unwrap().testbed;
    let o = check::check(
        c,
        &check::Spec {
            testbed: tb[..6].to_string(),
            candidate: None,
            baseline: Baseline::Previous,
            min_change: 0.05,
            alpha: 0.05,
            filters: Vec::new(),
        },
    )
    .unwrap();
    out.push_str(&format!(
        "check {} vs {:?}: {} regressions\n",
        o.candidate,
        o.baseline_runs,
        o.regressions()
    ));
    for ch in &o.changes {
        out.push_str(&format!(
            "  {} {:+.3} {} {:.3e} {}\n",
            ch.key,
            ch.change,
            ch.verdict.name(),
            ch.p_adjusted.unwrap_or(f64::NAN),
            ch.test
        ));
    }
    out
}

fn check_scenario(text: &str) {
    assert!(text.contains("new 20261201T000000Z-a 8 8 1\n"), "{text}");
    // 3 runs, 24 points, 24 sample sets, 3 findings, 2 testbeds, 3 library rows.
    assert!(text.contains("counts [3, 24, 24, 3, 2, 3]\n"), "{text}");
    assert!(
        text.contains("table latency ns [\"a\", \"b\"] [\"ango\", \"openssl\"]"),
        "{text}"
    );
    // Host a's cell is its newest run's (20% slower): 1600 × 1.2.
    assert!(
        text.contains("  a openssl 1920.0 Some(21) openssl 1.0 20261202T000000Z-a\n"),
        "{text}"
    );
    assert!(
        text.contains("  b openssl 3200.0 Some(21) openssl 1.0 20261203T000000Z-b\n"),
        "{text}"
    );
    assert!(
        text.contains("check 20261202T000000Z-a vs [\"20261201T000000Z-a\"]: 4 regressions"),
        "{text}"
    );
    for line in text.lines().filter(|l| l.contains("speed/aes-128-gcm")) {
        assert!(line.contains("+0.200 slower"), "{line}");
        assert!(
            line.contains("mann-whitney (normal approximation)"),
            "{line}"
        );
    }
    for line in text
        .lines()
        .filter(|l| l.contains("speed/chacha20-poly1305"))
    {
        assert!(line.contains("+0.000 same"), "{line}");
    }
}

#[test]
fn sqlite_store_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let url = Url::parse(&format!("sqlite:{}", tmp.path().join("s.sqlite").display())).unwrap();
    let mut c = db::open(&url).unwrap();
    let text = scenario(c.as_mut(), &dirs);
    check_scenario(&text);
    // Opening it again applies no migration twice.
    let mut c2 = db::open(&url).unwrap();
    assert_eq!(count(c2.as_mut(), "migrations"), 1);
}

#[test]
fn truncated_foreign_and_changed_runs_are_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let url = Url::parse(&format!("sqlite:{}", tmp.path().join("s.sqlite").display())).unwrap();
    let mut c = db::open(&url).unwrap();
    let e = |d: &Path| import::read_run(d, None, true).unwrap_err().to_string();
    // A cut last line.
    let cut = tmp.path().join("cut");
    std::fs::create_dir(&cut).unwrap();
    for f in ["env.json", "results.jsonl"] {
        std::fs::copy(dirs[0].join(f), cut.join(f)).unwrap();
    }
    let mut text = std::fs::read_to_string(cut.join("results.jsonl")).unwrap();
    text.truncate(text.len() - 40);
    std::fs::write(cut.join("results.jsonl"), text).unwrap();
    assert!(
        e(&cut).contains("truncated: results.jsonl ends in a cut line"),
        "{}",
        e(&cut)
    );
    // No env.json.
    std::fs::remove_file(cut.join("env.json")).unwrap();
    assert!(
        e(&cut).contains("truncated: env.json cannot be read"),
        "{}",
        e(&cut)
    );
    // The directory of runs rather than a run.
    let e0 = e(tmp.path());
    assert!(e0.contains("but it holds 3: give them"), "{e0}");
    // Not a run at all.
    let foreign = tmp.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "hello").unwrap();
    assert!(
        e(&foreign).contains("not an ango results directory"),
        "{}",
        e(&foreign)
    );
    // Someone else's JSON in env.json and results.jsonl.
    std::fs::write(foreign.join("env.json"), "{\"machine\": 1}").unwrap();
    assert!(
        e(&foreign).contains("env.json is not an ango environment record"),
        "{}",
        e(&foreign)
    );
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(dirs[0].join("env.json"), other.join("env.json")).unwrap();
    std::fs::write(other.join("results.jsonl"), "{\"suite\": \"verify\"}\n").unwrap();
    assert!(
        e(&other).contains("no known suite 'verify'"),
        "{}",
        e(&other)
    );
    // A run still going (env.json without its end).
    let going = tmp.path().join("going");
    std::fs::create_dir(&going).unwrap();
    std::fs::copy(dirs[0].join("results.jsonl"), going.join("results.jsonl")).unwrap();
    let mut env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dirs[0].join("env.json")).unwrap()).unwrap();
    env["ended"] = serde_json::Value::Null;
    std::fs::write(going.join("env.json"), env.to_string()).unwrap();
    assert!(e(&going).contains("unfinished"), "{}", e(&going));
    // Nothing of these reached the store.
    assert_eq!(count(c.as_mut(), "runs"), 0);
    // A run changed after its import: refused, the store as it was.
    let run = import::read_run(&dirs[0], None, true).unwrap();
    import::import(c.as_mut(), &run).unwrap();
    let points = count(c.as_mut(), "points");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dirs[0].join("results.jsonl"))
        .unwrap();
    let last = std::fs::read_to_string(dirs[1].join("results.jsonl")).unwrap();
    let extra = last
        .lines()
        .next()
        .unwrap()
        .replace("20261202T000000Z-a", "20261201T000000Z-a")
        .replace("\"size_bytes\":64", "\"size_bytes\":65");
    std::io::Write::write_all(&mut f, format!("{extra}\n").as_bytes()).unwrap();
    let changed = import::read_run(&dirs[0], None, true).unwrap();
    let err = import::import(c.as_mut(), &changed)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("in the store already with other content"),
        "{err}"
    );
    assert_eq!(count(c.as_mut(), "points"), points);
    // A failure inside the transaction leaves nothing behind: a run whose
    // testbed row cannot be written (the testbed column made too long by
    // a trigger is not portable; instead drop the table the run needs).
    c.batch("DROP TABLE findings").unwrap();
    let run = import::read_run(&dirs[1], None, true).unwrap();
    assert!(import::import(c.as_mut(), &run).is_err());
    assert_eq!(count(c.as_mut(), "runs"), 1);
    assert_eq!(count(c.as_mut(), "points"), points);
}

#[test]
fn tables_refuse_ambiguous_cells_and_unknown_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let url = Url::parse(&format!("sqlite:{}", tmp.path().join("s.sqlite").display())).unwrap();
    let mut c = db::open(&url).unwrap();
    for d in &dirs {
        import::import(c.as_mut(), &import::read_run(d, None, true).unwrap()).unwrap();
    }
    let spec = |w: &str, rows: &str, cols: &str| cross::Spec {
        filters: parse_where(w).unwrap(),
        rows: vec![rows.into()],
        cols: vec![cols.into()],
        metric: None,
    };
    let e = cross::table(
        c.as_mut(),
        &spec("algorithm=aes-128-gcm", "testbed", "backend"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("differ in size (64, 1024)"), "{e}");
    let e = cross::table(c.as_mut(), &spec("", "colour", "backend"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--rows colour: unknown key; valid: testbed, host"),
        "{e}"
    );
    assert!(parse_where("colour=red")
        .unwrap_err()
        .to_string()
        .contains("unknown key 'colour'"));
    // Throughput turns the times over: 1 KiB in 1600 ns is 640 MB/s.
    let mut s = spec("algorithm=aes-128-gcm,size=1024,host=b", "host", "backend");
    s.metric = Some("throughput".into());
    let t = cross::table(c.as_mut(), &s).unwrap();
    assert_eq!(t.unit, "B/s");
    let cell = &t.cells[&(0, 1)];
    assert!(
        (cell.median - 1024.0 * 1e9 / 3200.0).abs() < 1e-6,
        "{}",
        cell.median
    );
    // Testbeds are found by a prefix of the fingerprint.
    let tb = import::read_run(&dirs[2], None, false).unwrap().testbed;
    let rows = select::rows(
        c.as_mut(),
        &parse_where(&format!("testbed={}", &tb[..5])).unwrap(),
    )
    .unwrap();
    assert_eq!(rows.len(), 8);
}

#[test]
fn exports_validate_and_name_every_point_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let run = import::read_run(&dirs[0], None, true).unwrap();
    let rows = ango_store::export::run_rows(&run);
    let bmf = ango_store::export::bmf(&rows).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&bmf).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/bencher/bmf.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    assert!(v.is_valid(&doc), "{bmf}");
    // The schema is not vacuous: a measure without a value fails it.
    assert!(!v.is_valid(&serde_json::json!({"x": {"latency": {"lower_value": 1.0}}})));
    let obj = doc.as_object().unwrap();
    assert_eq!(obj.len(), 8);
    let p = &obj["speed/aes-128-gcm/encrypt/ango[auto]/1024"];
    assert_eq!(p["latency"]["value"], 1760.0);
    let lat = p["latency"].as_object().unwrap();
    assert!(lat["lower_value"].as_f64() <= lat["value"].as_f64());
    assert!(lat["upper_value"].as_f64() >= lat["value"].as_f64());
    let ops = p["throughput"]["value"].as_f64().unwrap();
    assert!((ops - 1e9 / 1760.0).abs() < 1e-6);
    assert!(obj.contains_key("speed/chacha20-poly1305/encrypt/openssl/64"));
    let csv = ango_store::export::csv(&rows);
    assert!(csv.starts_with("run_id,testbed,host,started,suite,key,metric,"));
    assert_eq!(csv.lines().count(), 9);
    // Two runs are not one BMF document.
    let mut two = rows.clone();
    two.extend(ango_store::export::run_rows(
        &import::read_run(&dirs[1], None, true).unwrap(),
    ));
    assert!(ango_store::export::bmf(&two)
        .unwrap_err()
        .to_string()
        .contains("BMF holds one run"));
    assert_eq!(ango_store::export::newest_run(two).len(), 8);
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_export_reads_back() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let rows = ango_store::export::run_rows(&import::read_run(&dirs[0], None, true).unwrap());
    let bytes = ango_store::export::parquet(&rows).unwrap();
    let r = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
    let meta = r.metadata();
    assert_eq!(meta.file_metadata().num_rows(), 8);
    let schema = meta.file_metadata().schema_descr();
    assert_eq!(schema.num_columns(), ango_store::export::COLUMNS.len());
    assert_eq!(schema.column(17).name(), "median");
}

/// A fresh database on the PostgreSQL server the environment names
/// (`pg_virtualenv` sets PGHOST, PGPORT, PGUSER, PGPASSWORD).
#[cfg(feature = "postgres")]
fn pg_url() -> String {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (Some(host), Some(user)) = (var("PGHOST"), var("PGUSER")) else {
        panic!(
            "no PostgreSQL server: PGHOST and PGUSER are not set; run the tests under \
             pg_virtualenv (scripts/test does), or leave this test ignored"
        );
    };
    let port = var("PGPORT").unwrap_or_else(|| "5432".into());
    let pass = var("PGPASSWORD")
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let base = format!("postgres://{user}{pass}@{host}:{port}");
    let name = format!(
        "ango_test_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
            % 1_000_000_000
    );
    let mut admin = db::Postgres::connect(&format!("{base}/postgres")).unwrap();
    admin.batch(&format!("CREATE DATABASE {name}")).unwrap();
    format!("{base}/{name}")
}

#[cfg(feature = "postgres")]
#[test]
#[ignore = "needs a PostgreSQL server: scripts/test runs the tests under pg_virtualenv, which starts one"]
fn postgres_store_gives_the_same_golden_output_as_sqlite() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = fixture(tmp.path());
    let lite = Url::parse(&format!("sqlite:{}", tmp.path().join("s.sqlite").display())).unwrap();
    let golden = scenario(db::open(&lite).unwrap().as_mut(), &dirs);
    let url = Url::parse(&pg_url()).unwrap();
    let mut c = db::open(&url).unwrap();
    assert_eq!(c.kind(), "postgres");
    let text = scenario(c.as_mut(), &dirs);
    assert_eq!(text, golden);
    check_scenario(&text);
    // A failed import is rolled back there too.
    c.batch("DROP TABLE findings").unwrap();
    let d = tmp.path().join("later");
    write_run(
        &d,
        &Machine::new("c", "Intel Xeon", 207),
        "20261204T000000Z-c",
        "2026-12-04T00:00:00Z",
        &points(1.0),
    )
    .unwrap();
    assert!(import::import(c.as_mut(), &import::read_run(&d, None, true).unwrap()).is_err());
    assert_eq!(count(c.as_mut(), "runs"), 3);
}

#[test]
fn history_baselines_run_prefixes_and_newer_stores() {
    let tmp = tempfile::tempdir().unwrap();
    let m = Machine::new("h", "AMD EPYC 9R14", 17);
    let url = Url::parse(&format!("sqlite:{}", tmp.path().join("s.sqlite").display())).unwrap();
    let mut c = db::open(&url).unwrap();
    // Four steady runs, then one with AES-GCM 10% slower.
    for (i, scale) in [1.0, 1.0, 1.0, 1.0, 1.1].iter().enumerate() {
        let d = tmp.path().join(format!("r{i}"));
        let id = format!("2026120{}T000000Z-h", i + 1);
        write_run(
            &d,
            &m,
            &id,
            &format!("2026-12-0{}T00:00:00Z", i + 1),
            &points(*scale),
        )
        .unwrap();
        import::import(c.as_mut(), &import::read_run(&d, None, true).unwrap()).unwrap();
    }
    let tb = m.env("x", "t").testbed;
    let spec = |baseline: Baseline, min_change: f64| check::Spec {
        testbed: tb.clone(),
        candidate: None,
        baseline,
        min_change,
        alpha: 0.05,
        filters: parse_where("size=1024").unwrap(),
    };
    let o = check::check(c.as_mut(), &spec(Baseline::History(Some(3)), 0.05)).unwrap();
    assert_eq!(
        o.baseline_runs,
        [
            "20261202T000000Z-h",
            "20261203T000000Z-h",
            "20261204T000000Z-h"
        ]
    );
    assert_eq!(o.regressions(), 2);
    // Three runs pooled: 63 samples a side against 21.
    let gcm = o
        .changes
        .iter()
        .find(|c| c.key.contains("aes-128-gcm"))
        .unwrap();
    assert_eq!((gcm.n_baseline, gcm.n_candidate), (63, 21));
    assert!((gcm.change - 0.1).abs() < 1e-9);
    // The same 10% under a 15% bar is negligible: no regression.
    let o = check::check(c.as_mut(), &spec(Baseline::History(None), 0.15)).unwrap();
    assert_eq!(o.baseline_runs.len(), 4);
    assert_eq!(o.regressions(), 0);
    assert!(o
        .changes
        .iter()
        .any(|c| c.verdict == check::Verdict::Negligible));
    // A run named by a prefix; an ambiguous prefix is refused.
    let o = check::check(c.as_mut(), &spec(Baseline::Run("20261201".into()), 0.05)).unwrap();
    assert_eq!(o.baseline_runs, ["20261201T000000Z-h"]);
    let e = check::check(c.as_mut(), &spec(Baseline::Run("2026120".into()), 0.05)).unwrap_err();
    assert!(e.to_string().contains("names 5 runs"), "{e}");
    assert_eq!(
        Baseline::parse("history:3").unwrap(),
        Baseline::History(Some(3))
    );
    assert!(Baseline::parse("history:x").is_err());
    // A store written by a newer ango is refused, not misread.
    c.exec(
        "INSERT INTO migrations (version, description, applied) VALUES ($1, $2, $3)",
        &[99i64.into(), "future".into(), "now".into()],
    )
    .unwrap();
    let e = db::open(&url).err().unwrap().to_string();
    assert!(
        e.contains("migration 99, newer than this ango knows (1)"),
        "{e}"
    );
}
