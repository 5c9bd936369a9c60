//! `ango import`, `table`, `check`, `export` and `compare run:` on
//! synthetic runs and on version-1 directories, the fan-out recipe's
//! import step, and their refusals.

use crate::common::*;
use ango_store::synth::{write_run, Machine, SpeedPoint};
use std::path::PathBuf;

fn samples(m: f64) -> Vec<f64> {
    (0..15)
        .map(|i| m * (1.0 + 0.003 * (((i * 7) % 5) as f64 - 2.0)))
        .collect()
}

/// Runs of one machine: `scale` multiplies the AES-GCM times.
fn run(dir: &Path, m: &Machine, id: &str, time: &str, scale: f64) {
    let points: Vec<SpeedPoint> = [("openssl", "evp", 1000.0), ("ango", "auto", 900.0)]
        .into_iter()
        .flat_map(|(b, i, t)| {
            [
                SpeedPoint {
                    algorithm: "aes-128-gcm",
                    backend: b,
                    implementation: i,
                    size: 16384,
                    samples: samples(t * scale),
                },
                SpeedPoint {
                    algorithm: "chacha20-poly1305",
                    backend: b,
                    implementation: i,
                    size: 16384,
                    samples: samples(t * 2.0),
                },
            ]
        })
        .collect();
    write_run(dir, m, id, time, &points).unwrap();
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    db: String,
    testbed: String,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let m = Machine::new("ci-1", "AMD EPYC 9R14", 17);
    run(
        &root.join("r1"),
        &m,
        "20261201T000000Z-ci-1",
        "2026-12-01T00:00:00Z",
        1.0,
    );
    run(
        &root.join("r2"),
        &m,
        "20261202T000000Z-ci-1",
        "2026-12-02T00:00:00Z",
        1.25,
    );
    let testbed = m.env("x", "t").testbed;
    let db = format!("sqlite:{}", root.join("store.sqlite").display());
    Fixture {
        db,
        testbed,
        root,
        _tmp: tmp,
    }
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

/// `ango ARGS --db DB`, which must exit with `code`; its standard output.
fn on_store(db: &str, args: &[&str], code: i32) -> String {
    stdout(&ango().args(args).args(["--db", db]).assert().code(code))
}

/// The recipes' import step over `fetched` into `db`.
fn import_fetched(fetched: &Path, db: &str) -> std::process::Output {
    std::process::Command::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/recipes/import-fetched.sh"),
    )
    .arg(fetched)
    .args(["--db", db])
    .env("ANGO", env!("CARGO_BIN_EXE_ango"))
    .output()
    .unwrap()
}

#[test]
fn import_is_idempotent_and_refuses_what_is_not_a_finished_run() {
    let f = fixture();
    let r1 = f.root.join("r1");
    let a = ango()
        .args(["import", "--db", &f.db])
        .arg(&r1)
        .arg(f.root.join("r2"))
        .assert()
        .code(0);
    let out = flat(&stdout(&a));
    assert!(out.contains("imported"), "{out}");
    assert!(out.contains("2 imported, 0 unchanged, 0 refused"), "{out}");
    let a = ango()
        .args(["import", "--db", &f.db])
        .arg(&r1)
        .assert()
        .code(0);
    assert!(flat(&stdout(&a)).contains("0 imported, 1 unchanged, 0 refused"));
    // A foreign directory beside a good one: the good one is imported,
    // the foreign one refused on one line, exit 2.
    let foreign = f.root.join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("data.csv"), "a,b\n").unwrap();
    let a = ango()
        .args(["import", "--db", &f.db])
        .arg(&foreign)
        .arg(&r1)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("refused: ") && err.contains("not an ango results directory"),
        "{err}"
    );
    assert!(flat(&stdout(&a)).contains("0 imported, 1 unchanged, 1 refused"));
    // Version-1 directories (no testbed, no end time) still load.
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1-speed-a");
    let a = ango()
        .args(["import", "--db", &f.db])
        .arg(&v1)
        .assert()
        .code(0);
    assert!(flat(&stdout(&a)).contains("1 imported"), "{}", stdout(&a));
    // Bad store URLs, keys and formats: one line naming the valid choices.
    let db = f.db.as_str();
    let tb = f.testbed.as_str();
    for (args, says) in [
        (
            &["import", "--db", "mysql://x", "d"][..],
            "valid: sqlite:PATH or postgres://",
        ),
        (&["import", "--db", "sqlite:", "d"], "no path after sqlite:"),
        (
            &["table", "--db", db, "--rows", "colour"],
            "--rows colour: unknown key; valid: testbed",
        ),
        (
            &["table", "--db", db, "--where", "colour=red"],
            "unknown key 'colour'",
        ),
        (
            &["table", "--db", db, "--format", "pdf"],
            "valid: table, json, csv, md, html",
        ),
        (
            &["export", "--db", db, "--format", "xml"],
            "valid: bmf, csv, parquet",
        ),
        (
            &[
                "check",
                "--db",
                db,
                "--testbed",
                "zzzz",
                "--baseline",
                "previous",
            ],
            "--testbed zzzz: no such testbed; valid: ",
        ),
        (
            &[
                "check",
                "--db",
                db,
                "--testbed",
                tb,
                "--baseline",
                "history:0",
            ],
            "N must be a whole number above 0",
        ),
    ] {
        rejects(args, says);
    }
}

#[test]
fn a_default_store_lives_in_the_data_directory() {
    let f = fixture();
    let data = f.root.join("data");
    ango()
        .env("XDG_DATA_HOME", &data)
        .env_remove("ANGO_DB")
        .arg("import")
        .arg(f.root.join("r1"))
        .assert()
        .code(0);
    assert!(data.join("ango/results.sqlite").is_file());
}

#[test]
fn table_check_export_and_compare_read_the_store() {
    let f = fixture();
    let (r1, r2) = (f.root.join("r1"), f.root.join("r2"));
    on_store(
        &f.db,
        &["import", r1.to_str().unwrap(), r2.to_str().unwrap()],
        0,
    );
    // The table: one row per run here (one testbed), a column per backend.
    let gcm = ["table", "--where", "algorithm=aes-128-gcm"];
    let t: serde_json::Value = serde_json::from_str(&on_store(
        &f.db,
        &[&gcm[..], &["--rows", "run", "--format", "json"]].concat(),
        0,
    ))
    .unwrap();
    assert_eq!(t["cols"], serde_json::json!(["ango", "openssl"]));
    assert_eq!(t["cells"].as_array().unwrap().len(), 4);
    let cell = &t["cells"][3];
    assert_eq!(cell["row"], "20261202T000000Z-ci-1");
    assert_eq!(cell["median"], 1250.0);
    assert_eq!(cell["samples"], 15);
    assert_eq!(cell["library_version"], "openssl 1.0");
    let html = on_store(&f.db, &[&gcm[..], &["--format", "html"]].concat(), 0);
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<svg"),
        "{html}"
    );
    // The check: AES-GCM 25% slower on both backends, ChaCha the same.
    let tb = &f.testbed[..8];
    let check = ["check", "--testbed", tb, "--baseline", "previous"];
    let c: serde_json::Value = serde_json::from_str(&on_store(
        &f.db,
        &[&check[..], &["--format", "json"]].concat(),
        1,
    ))
    .unwrap();
    assert_eq!(c["regressions"], 2);
    for ch in c["changes"].as_array().unwrap() {
        if ch["key"].as_str().unwrap().contains("aes-128-gcm") {
            assert_eq!(ch["verdict"], "slower", "{ch}");
            assert!((ch["change"].as_f64().unwrap() - 0.25).abs() < 1e-9);
            assert_eq!(ch["test"], "mann-whitney (normal approximation)");
            assert!(ch["p"].as_f64().unwrap() < 1e-4, "{ch}");
        } else {
            assert_eq!(ch["verdict"], "same", "{ch}");
        }
    }
    let text = flat(&on_store(&f.db, &check, 1));
    assert!(text.contains("slower speed/aes-128-gcm"), "{text}");
    assert!(text.contains("4 compared: 2 slower, 0 faster"), "{text}");
    // Checked the other way round, nothing got slower: exit 0.
    let back = [
        "check",
        "--testbed",
        tb,
        "--baseline",
        "20261202",
        "--run",
        "20261201",
    ];
    on_store(&f.db, &back, 0);
    // A testbed's first run has nothing before it.
    rejects(
        &[&check[..], &["--run", "20261201", "--db", &f.db]].concat(),
        "is the testbed's first",
    );
    // Export: BMF of the testbed's newest run; CSV of everything.
    let where_tb = format!("testbed={}", f.testbed);
    let bmf: serde_json::Value = serde_json::from_str(&on_store(
        &f.db,
        &["export", "--where", &where_tb, "--format", "bmf"],
        0,
    ))
    .unwrap();
    assert_eq!(
        bmf["speed/aes-128-gcm/encrypt/openssl/16384"]["latency"]["value"],
        1250.0
    );
    let csv = on_store(&f.db, &["export", "--format", "csv"], 0);
    assert_eq!(csv.lines().count(), 9);
    // Parquet to a redirected standard output, and to a new file only.
    let pq = ango()
        .args(["export", "--db", &f.db, "--format", "parquet"])
        .assert()
        .code(0);
    assert!(pq.get_output().stdout.starts_with(b"PAR1"));
    let file = f.root.join("points.parquet");
    let out = [
        "export",
        "--format",
        "parquet",
        "--out",
        file.to_str().unwrap(),
    ];
    on_store(&f.db, &out, 0);
    assert!(std::fs::read(&file).unwrap().ends_with(b"PAR1"));
    rejects(
        &[&out[..], &["--db", &f.db]].concat(),
        "exists; give a new file",
    );
    // compare reads stored runs by id prefix or testbed.
    let newest = format!("testbed:{}", &f.testbed[..6]);
    let rows: serde_json::Value = serde_json::from_str(&on_store(
        &f.db,
        &["compare", "run:20261201", &newest, "--format", "json"],
        0,
    ))
    .unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 4);
    rejects(
        &["compare", "--db", &f.db, "run:2026", "run:20261201"],
        "names 2 runs",
    );
}

/// The fan-out recipes' import step over two fetched hosts: one archived
/// run, one directory, each filed under its host's name.
#[test]
fn the_recipe_import_step_files_runs_under_their_hosts() {
    let f = fixture();
    let fetched = f.root.join("fetched");
    let a = fetched.join("bench-a");
    let b = fetched.join("bench-b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let st = std::process::Command::new("tar")
        .arg("-czf")
        .arg(a.join("run-20261201.tar.gz"))
        .arg("-C")
        .arg(&f.root)
        .arg("r1")
        .status()
        .unwrap();
    assert!(st.success());
    copy_dir(&f.root.join("r2"), &b.join("run"));
    let out = import_fetched(&fetched, &f.db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = on_store(
        &f.db,
        &[
            "table",
            "--where",
            "algorithm=chacha20-poly1305",
            "--rows",
            "host",
            "--format",
            "csv",
        ],
        0,
    );
    assert!(
        csv.contains("bench-a,ango,") && csv.contains("bench-b,openssl,"),
        "{csv}"
    );
    // Run again: everything is unchanged.
    let again = import_fetched(&fetched, &f.db);
    assert!(again.status.success());
    assert_eq!(
        flat(&String::from_utf8_lossy(&again.stdout))
            .matches("1 unchanged")
            .count(),
        2
    );
}

/// The commands on a PostgreSQL store print what they print on SQLite.
#[cfg(feature = "postgres")]
#[test]
#[ignore = "needs a PostgreSQL server: scripts/test runs the tests under pg_virtualenv, which starts one"]
fn the_commands_give_the_same_output_on_postgresql() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (Some(host), Some(user)) = (var("PGHOST"), var("PGUSER")) else {
        panic!("no PostgreSQL server: PGHOST and PGUSER are not set; run under pg_virtualenv");
    };
    let port = var("PGPORT").unwrap_or_else(|| "5432".into());
    let pass = var("PGPASSWORD")
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let base = format!("postgres://{user}{pass}@{host}:{port}");
    let name = format!("ango_cli_{}", std::process::id());
    let st = std::process::Command::new("psql")
        .args(["-q", "-c", &format!("CREATE DATABASE {name}")])
        .status()
        .unwrap();
    assert!(st.success());
    let pg = format!("{base}/{name}");
    let f = fixture();
    let run = |db: &str, args: &[&str]| {
        let mut c = ango();
        c.args(args).args(["--db", db]);
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    for db in [f.db.as_str(), pg.as_str()] {
        let (code, _) = run(
            db,
            &[
                "import",
                f.root.join("r1").to_str().unwrap(),
                f.root.join("r2").to_str().unwrap(),
            ],
        );
        assert_eq!(code, Some(0));
    }
    for args in [
        &[
            "table",
            "--where",
            "algorithm=aes-128-gcm",
            "--rows",
            "run",
            "--format",
            "json",
        ][..],
        &[
            "check",
            "--testbed",
            &f.testbed,
            "--baseline",
            "previous",
            "--format",
            "json",
        ],
        &["export", "--format", "csv"],
        &[
            "export",
            "--where",
            "run=20261201T000000Z-ci-1",
            "--format",
            "bmf",
        ],
    ] {
        let lite = run(&f.db, args);
        let post = run(&pg, args);
        assert_eq!(lite.0, post.0, "{args:?}");
        // The import time and the store's name aside, the same output.
        assert_eq!(lite.1, post.1, "{args:?}");
    }
}
