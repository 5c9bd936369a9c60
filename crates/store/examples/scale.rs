//! The store at scale (a benchmark, not a test): imports synthetic runs
//! into a store and times the import of each run, then a cross-machine
//! table query.
//!
//!   cargo run --release -p ango-store --features postgres --example scale -- \
//!       --db sqlite:/tmp/scale.sqlite [--runs 1000] [--points 2000] [--machines 100]
//!
//! Each run is a results directory written as ango writes one (env.json,
//! results.jsonl, samples.jsonl with 21 samples per point, a finding),
//! read, checked and imported exactly as `ango import` does, then
//! deleted. The machines are `--machines` testbeds, each with
//! runs / machines runs; a run's points are 20 backends × 10 algorithms
//! × 10 sizes (for 2,000 points). The table query is `ango table
//! --where algorithm=…,size=… --rows testbed --cols backend`: one row per
//! machine, one column per backend (100 × 20 with the defaults).

use ango_store::cross;
use ango_store::db::{self, Url};
use ango_store::import;
use ango_store::select::parse_where;
use ango_store::synth::{write_run, Machine, SpeedPoint};
use std::time::Instant;

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    ango_harness::stats::quantile_sorted(v, 0.5)
}

const BACKENDS: [&str; 20] = [
    "b00", "b01", "b02", "b03", "b04", "b05", "b06", "b07", "b08", "b09", "b10", "b11", "b12",
    "b13", "b14", "b15", "b16", "b17", "b18", "b19",
];
const ALGORITHMS: [&str; 10] = [
    "aes-128-gcm",
    "aes-256-gcm",
    "aes-128-ccm",
    "aes-256-ccm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    "aes-128-ctr",
    "aes-256-ctr",
    "aes-128-ecb",
    "chacha20",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let url = Url::parse(&arg(&args, "--db", "sqlite:/tmp/ango-scale.sqlite")).unwrap();
    let runs: usize = arg(&args, "--runs", "1000").parse().unwrap();
    let points: usize = arg(&args, "--points", "2000").parse().unwrap();
    let machines: usize = arg(&args, "--machines", "100").parse().unwrap();
    let sizes: Vec<u64> = (0..points.div_ceil(200)).map(|i| 16u64 << i).collect();
    let tmp = std::env::temp_dir().join(format!("ango-scale-{}", std::process::id()));
    let mut c = db::open(&url).unwrap();
    let mut write_s = Vec::new();
    let mut import_s = Vec::new();
    let started = Instant::now();
    for r in 0..runs {
        let m = r % machines;
        let machine = Machine::new(
            &format!("host-{m:03}"),
            &format!("Synthetic CPU {m}"),
            m as u32,
        );
        let id = format!(
            "2026{:02}{:02}T{:06}Z-host-{m:03}",
            1 + (r / machines) % 12,
            1 + r % 28,
            r
        );
        let time = format!("2026-12-01T00:00:{:02}Z+{r}", r % 60);
        let mut ps = Vec::with_capacity(points);
        'outer: for (ai, a) in ALGORITHMS.iter().enumerate() {
            for &size in &sizes {
                for (bi, b) in BACKENDS.iter().enumerate() {
                    if ps.len() == points {
                        break 'outer;
                    }
                    let base = size as f64
                        * (0.2 + 0.05 * bi as f64 + 0.1 * ai as f64)
                        * (1.0 + 0.01 * m as f64);
                    ps.push(SpeedPoint {
                        algorithm: a,
                        backend: b,
                        implementation: "evp",
                        size,
                        samples: (0..21)
                            .map(|i| base * (1.0 + 0.001 * ((i * 7 + r) % 11) as f64))
                            .collect(),
                    });
                }
            }
        }
        let dir = tmp.join(&id);
        let t = Instant::now();
        write_run(&dir, &machine, &id, &time, &ps).unwrap();
        write_s.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let run = import::read_run(&dir, None, true).unwrap();
        import::import(c.as_mut(), &run).unwrap();
        import_s.push(t.elapsed().as_secs_f64());
        std::fs::remove_dir_all(&dir).unwrap();
        if (r + 1) % 100 == 0 {
            eprintln!(
                "{} runs in {:.0} s; last import {:.3} s",
                r + 1,
                started.elapsed().as_secs_f64(),
                import_s[r]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let size = match &url {
        Url::Sqlite(p) => {
            c.batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
            std::fs::metadata(p)
                .map(|m| m.len() as f64)
                .unwrap_or(f64::NAN)
        }
        Url::Postgres(_) => c
            .query("SELECT pg_database_size(current_database())", &[])
            .unwrap()[0][0]
            .real()
            .unwrap_or(f64::NAN),
    };
    let spec = cross::Spec {
        filters: parse_where(&format!(
            "algorithm={},size={}",
            ALGORITHMS[0],
            sizes[sizes.len() / 2]
        ))
        .unwrap(),
        rows: vec!["testbed".into()],
        cols: vec!["backend".into()],
        metric: None,
    };
    let mut query_s = Vec::new();
    let mut shape = (0, 0, 0);
    for _ in 0..5 {
        let t = Instant::now();
        let table = cross::table(c.as_mut(), &spec).unwrap();
        query_s.push(t.elapsed().as_secs_f64());
        shape = (table.rows.len(), table.cols.len(), table.cells.len());
    }
    let total: f64 = import_s.iter().sum();
    println!(
        "store {} ({}): {runs} runs × {points} points on {machines} testbeds",
        url.shown(),
        c.kind()
    );
    println!(
        "import per run: median {:.3} s, max {:.3} s, total {:.0} s (writing the synthetic \
         directories, not counted: median {:.3} s)",
        median(&mut import_s.clone()),
        import_s.iter().cloned().fold(0.0, f64::max),
        total,
        median(&mut write_s)
    );
    println!("database size: {:.2} GB", size / 1e9);
    println!(
        "table query, {} rows × {} columns ({} cells): median {:.3} s of 5",
        shape.0,
        shape.1,
        shape.2,
        median(&mut query_s)
    );
}
