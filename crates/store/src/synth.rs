//! Synthetic results directories, for the store's tests and its scale
//! benchmark (`cargo run --release -p ango-store --example scale`): runs
//! shaped exactly as ango writes them (env.json, speed records with
//! their samples, a finding), with medians the caller chooses.

use ango_core::record::EnvInfo;
use ango_core::testbed::Identity;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// One synthetic machine.
#[derive(Clone, Debug)]
pub struct Machine {
    pub host: String,
    pub cpu_model: String,
    pub family: u32,
    pub model: u32,
    pub kernel: String,
}

impl Machine {
    pub fn new(host: &str, cpu_model: &str, model: u32) -> Machine {
        Machine {
            host: host.into(),
            cpu_model: cpu_model.into(),
            family: 25,
            model,
            kernel: "6.1.0-28-amd64".into(),
        }
    }

    pub fn env(&self, run_id: &str, time: &str) -> EnvInfo {
        let mut e = EnvInfo {
            schema: 2,
            run_id: run_id.into(),
            ango_version: "0.1.0".into(),
            hostname: self.host.clone(),
            time: time.into(),
            cpu_model: self.cpu_model.clone(),
            cpu_vendor: "AuthenticAMD".into(),
            logical_cpus: 2,
            crypto_flags: vec!["aes".into(), "avx2".into(), "vaes".into()],
            kernel: self.kernel.clone(),
            os: "Debian GNU/Linux 12 (bookworm)".into(),
            libraries: vec![("openssl".into(), "OpenSSL 3.5.5".into())],
            cycle_source: "tsc".into(),
            arch: "x86_64".into(),
            cpu_family: Some(self.family),
            cpu_model_number: Some(self.model),
            cpu_stepping: Some(1),
            microcode: Some("0x1000065".into()),
            cores: 2,
            threads: 2,
            memory_bytes: Some(24 << 30),
            virtualization: "kvm".into(),
            ended: Some(time.into()),
            ..Default::default()
        };
        e.testbed = Identity::of(&e).fingerprint();
        e
    }
}

/// One speed point: the algorithm, backend, size and the time each of
/// its samples took (ns per message).
pub struct SpeedPoint<'a> {
    pub algorithm: &'a str,
    pub backend: &'a str,
    pub implementation: &'a str,
    pub size: u64,
    pub samples: Vec<f64>,
}

/// The JSON line of a speed record for `p` in run `run_id`.
pub fn speed_record(run_id: &str, p: &SpeedPoint) -> serde_json::Value {
    let mut s = p.samples.clone();
    s.sort_by(f64::total_cmp);
    let m = ango_harness::stats::quantile_sorted(&s, 0.5);
    let q = |f: f64| s[((s.len() - 1) as f64 * f).round() as usize];
    json!({
        "schema": 2, "schema_version": 2, "suite": "speed", "run_id": run_id,
        "library_version": format!("{} 1.0", p.backend),
        "algorithm": p.algorithm, "operation": "encrypt", "backend": p.backend,
        "implementation": p.implementation, "hw": "on", "ia32cap": null,
        "library_cpu_view": null, "size_bytes": p.size, "aad_bytes": 0,
        "samples": p.samples.len(), "iterations_per_sample": 100,
        "median_ns": m, "q1_ns": q(0.25), "q3_ns": q(0.75), "mean_ns": m, "sd_ns": 0.0,
        "min_ns": s[0], "max_ns": s[s.len() - 1], "p95_ns": q(0.95), "p99_ns": q(0.99),
        "robust_cv": 0.01, "ci95_low_ns": q(0.3), "ci95_high_ns": q(0.7),
        "bytes_per_second": p.size as f64 * 1e9 / m, "cycles_per_byte": 2.6 * m / p.size as f64,
        "cycles_per_op": 2.6 * m, "cycle_source": "tsc", "timer_overhead_ns": 20.0,
        "noisy": false, "attempts": 1, "warnings": [], "kat": "pass 1/1", "method": "synthetic",
        "time": "2026-12-05T00:00:00Z"
    })
}

fn line(f: &mut std::fs::File, v: &serde_json::Value) -> std::io::Result<()> {
    f.write_all(format!("{v}\n").as_bytes())
}

/// Writes a finished run of `points` into the new directory `dir`.
pub fn write_run(
    dir: &Path,
    m: &Machine,
    run_id: &str,
    time: &str,
    points: &[SpeedPoint],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let env = m.env(run_id, time);
    std::fs::write(
        dir.join("env.json"),
        serde_json::to_string_pretty(&env).expect("env serialises"),
    )?;
    let mut results = std::fs::File::create(dir.join("results.jsonl"))?;
    let mut samples = std::fs::File::create(dir.join("samples.jsonl"))?;
    for p in points {
        line(&mut results, &speed_record(run_id, p))?;
        line(
            &mut samples,
            &json!({
                "run_id": run_id, "suite": "speed", "algorithm": p.algorithm,
                "operation": "encrypt", "backend": p.backend, "implementation": p.implementation,
                "hw": "on", "size_bytes": p.size, "iterations_per_sample": 100,
                "sample_ns": p.samples, "workers": 1
            }),
        )?;
    }
    let mut findings = std::fs::File::create(dir.join("findings.jsonl"))?;
    line(
        &mut findings,
        &json!({
            "schema_version": 2, "suite": "speed", "seed": "000", "section": "§5",
            "claim": "synthetic", "measured": 1.5, "ci95_low": 1.4, "ci95_high": 1.6,
            "unit": "×", "verdict": "holds", "explanation": "", "id": "000-synthetic",
            "anchor": "", "sources": []
        }),
    )?;
    Ok(())
}
