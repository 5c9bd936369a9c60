//! The speed and latency studies: their records, formats, variants, tuning and interrupted runs.

use crate::common::*;

#[test]
fn out_never_writes_into_another_runs_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let args = |d: &Path| {
        let mut c = ango();
        c.args([
            "speed",
            "--algo",
            "chacha20",
            "--backend",
            "openssl",
            "--sizes",
            "16",
            "--quick",
            "--out",
        ])
        .arg(d);
        c
    };
    args(&dir).assert().success();
    let before = std::fs::read(dir.join("results.jsonl")).unwrap();
    let env = std::fs::read(dir.join("env.json")).unwrap();
    let a = args(&dir).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("another run's results") && err.contains("results.jsonl"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("results.jsonl")).unwrap(), before);
    assert_eq!(std::fs::read(dir.join("env.json")).unwrap(), env);
    // pk and tls refuse it too; an existing empty directory is fine.
    ango()
        .args([
            "pk",
            "--algo",
            "x25519",
            "--backend",
            "openssl",
            "--quick",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .code(2);
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    args(&empty).assert().success();
}

#[test]
fn terminal_output_fits_100_columns() {
    // What ango prints to a terminal, stdout and stderr, wraps to 100
    // columns: the verification lines and a Wycheproof file's table (its
    // skip reasons), a multi-core pass's progress, the
    // catalogue's reasons, the environment, seed 002's tables (their
    // implementation column cut to fit; the report has it whole), the
    // constant-time table with memcheck's findings.
    let wycheproof = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/wycheproof/aes_gcm_test.json"
    );
    let runs: [&[&str]; 6] = [
        &["verify", "--wycheproof", wycheproof],
        &[
            "speed",
            "--algo",
            "chacha20-poly1305,aes-128-gcm",
            "--backend",
            "ango,openssl",
            "--sizes",
            "1024",
            "--quick",
            "--multi",
        ],
        &["list"],
        &["env"],
        &[
            "cycles",
            "--quick",
            "--algo",
            "camellia-128-ecb,sc2000-128-ecb",
        ],
        &["ct", "--quick", "--impl", "aes-128"],
    ];
    for args in runs {
        let a = ango().args(args).assert();
        let o = a.get_output();
        let mut all = 0;
        for (name, text) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let text = String::from_utf8_lossy(text);
            all += text.lines().count();
            for l in text.lines() {
                let n = l.chars().count();
                assert!(n <= 100, "{args:?} {name}: {n} columns: {l}");
            }
        }
        assert!(all > 3, "{args:?} printed almost nothing");
    }
}

#[test]
fn compare_refuses_filters_that_match_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    ango()
        .args([
            "speed",
            "--algo",
            "chacha20",
            "--backend",
            "openssl,rustcrypto",
            "--sizes",
            "16,64",
            "--quick",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let d = dir.to_str().unwrap();
    let run = |a: &str, b: &str| ango().args(["compare", a, b]).assert();
    let err = |a: &str, b: &str| {
        let x = run(a, b).code(2);
        String::from_utf8_lossy(&x.get_output().stderr).to_string()
    };
    let e = err(d, &format!("{d}@hw=maybe"));
    assert!(
        e.contains("hw=maybe") && e.contains("valid values of hw there: on"),
        "{e}"
    );
    let e = err(&format!("{d}@backend=wolfssl"), d);
    assert!(e.contains("openssl, rustcrypto"), "{e}");
    let e = err(
        &format!("{d}@size=16,backend=openssl"),
        &format!("{d}@size=64,backend=openssl,algo=aes-128-gcm"),
    );
    assert!(e.contains("algorithm=aes-128-gcm"), "{e}");
    // Two backends of one run pair up without their implementations.
    let ok = run(
        &format!("{d}@backend=openssl"),
        &format!("{d}@backend=rustcrypto"),
    )
    .success();
    let out = String::from_utf8_lossy(&ok.get_output().stdout).to_string();
    assert!(
        out.contains("chacha20 openssl/rustcrypto on encrypt 16"),
        "{out}"
    );
    // Garbage is unreadable, not an empty comparison.
    let junk = tmp.path().join("junk");
    std::fs::create_dir(&junk).unwrap();
    std::fs::write(junk.join("results.jsonl"), "not json\n").unwrap();
    run(junk.to_str().unwrap(), d).code(2);
}

#[test]
fn speed_json_has_the_documented_fields() {
    let a = ango()
        .args([
            "speed",
            "--algo",
            "aes-128-gcm,chacha20",
            "--sizes",
            "64,1024",
            "--time",
            "0.02",
            "--format",
            "json",
            "--op",
            "both",
        ])
        .assert()
        .success();
    let v: Vec<ango_core::SpeedRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    // Per algorithm, every provider that runs it here (aes-128-gcm: openssl,
    // rustcrypto, ring, aws-lc, ango; chacha20: openssl, rustcrypto, ango),
    // x 2 sizes x 2 ops.
    let c = ango_backends::catalog();
    let pairs: usize = [
        ango_core::Algorithm::Aes128Gcm,
        ango_core::Algorithm::ChaCha20,
    ]
    .iter()
    .map(|&a| {
        c.providers
            .iter()
            .filter(|p| {
                c.of_provider(ango_core::AlgorithmId::Sym(a), p)
                    .any(|e| e.auto && e.runs(ango_core::Hw::On).is_ok())
            })
            .count()
    })
    .sum();
    assert!(pairs >= 8, "{pairs}");
    assert_eq!(v.len(), pairs * 2 * 2);
    for r in &v {
        assert_eq!(r.head.suite, ango_core::SuiteId::Speed);
        assert!(r.kat.starts_with("pass"), "{}", r.kat);
        assert!(r.stats.q1 <= r.stats.median && r.stats.median <= r.stats.q3);
        assert!(r.stats.ci95_low <= r.stats.median && r.stats.median <= r.stats.ci95_high);
        assert!(r.stats.min <= r.stats.q1 && r.stats.q3 <= r.stats.max);
        assert!(
            (r.bytes_per_second - r.size_bytes as f64 * 1e9 / r.stats.median).abs()
                < 1e-6 * r.bytes_per_second
        );
        assert_eq!(
            r.aad_bytes,
            if r.algorithm == "aes-128-gcm" { 13 } else { 0 }
        );
        if r.cycle_source != "none" {
            assert!(r.cycles_per_byte.unwrap() > 0.0);
        }
    }
}

#[test]
fn every_format_renders() {
    for (fmt, needle) in [
        ("table", "16384 bytes"),
        ("csv", "run_id,suite,algorithm"),
        ("md", "| type |"),
        ("json", "\"median_ns\""),
    ] {
        let a = ango()
            .args([
                "speed",
                "--algo",
                "chacha20-poly1305",
                "--backend",
                "rustcrypto",
                "--sizes",
                "16384",
                "--samples",
                "5",
                "--format",
                fmt,
                "--unit",
                "MBps",
            ])
            .assert()
            .success();
        let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
        assert!(s.contains(needle), "{fmt}: {s}");
    }
}

#[test]
fn hw_off_runs_in_a_child_that_sees_no_aes_ni() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    ango()
        .args([
            "speed",
            "--algo",
            "aes-128-gcm",
            "--backend",
            "openssl",
            "--sizes",
            "1024",
            "--hw",
            "both",
            "--time",
            "0.05",
        ])
        .arg("--out")
        .arg(&dir)
        .assert()
        .success();
    let rs = records(&dir);
    let on = rs.iter().find(|r| r.hw == "on").unwrap();
    let off = rs.iter().find(|r| r.hw == "off").unwrap();
    let view_on = on.library_cpu_view.as_deref().unwrap();
    let view_off = off.library_cpu_view.as_deref().unwrap();
    if view_on.contains("aes-ni") {
        assert!(
            !view_off.contains("aes-ni")
                && !view_off.contains("pclmulqdq")
                && !view_off.contains("vaes"),
            "{view_off}"
        );
        // Nothing else changes: the same flags remain apart from those four.
        let strip = |v: &str| v.split('[').nth(1).unwrap().replace(['[', ']'], "");
        let rest_on: Vec<String> = strip(view_on)
            .split(',')
            .filter(|f| !["aes-ni", "pclmulqdq", "vaes", "vpclmulqdq"].contains(f))
            .map(String::from)
            .collect();
        let rest_off: Vec<String> = strip(view_off).split(',').map(String::from).collect();
        assert_eq!(rest_on, rest_off);
        // And the hardware really is gone: AES-GCM is clearly slower.
        assert!(
            off.stats.median > 1.5 * on.stats.median,
            "off {} on {}",
            off.stats.median,
            on.stats.median
        );
    }
    assert_eq!(
        off.ia32cap.as_deref(),
        Some("~0x200000200000000:~0x60000000000:~0:~0:~0")
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("aes-128-gcm"));
    assert!(
        !html.contains("<script") && !html.contains("https://"),
        "report must be self-contained"
    );
    // compare two configurations inside one directory
    let a = ango()
        .arg("compare")
        .arg(format!("{}@hw=on", dir.display()))
        .arg(format!("{}@hw=off", dir.display()))
        .assert()
        .success();
    let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(s.contains("aes-128-gcm openssl on/off encrypt 1024"), "{s}");
}

#[test]
fn seed000_mask_also_clears_the_extended_word() {
    let a = ango()
        .args([
            "speed",
            "--algo",
            "chacha20",
            "--backend",
            "openssl",
            "--sizes",
            "256",
            "--hw",
            "seed000",
            "--samples",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: Vec<ango_core::SpeedRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let view = v[0].library_cpu_view.as_deref().unwrap();
    assert!(!view.contains("avx2") && !view.contains("aes-ni"), "{view}");
}

#[cfg(unix)]
#[test]
fn interrupted_run_keeps_every_point_and_report_rebuilds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let bin = assert_cmd::cargo::cargo_bin("ango");
    let mut child = std::process::Command::new(bin)
        .args(["run", "--quick", "--time", "0.03", "--out"])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let results = dir.join("results.jsonl");
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(&results)
            .map(|s| s.lines().count())
            .unwrap_or(0);
        if n >= 5 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no points appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: FFI; sending SIGINT to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let rs = records(&dir); // every line whole and parseable
    assert!(rs.len() >= 5);
    assert!(rs.len() < 180, "the run should have stopped early");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("interrupted"));
    // A cut line (as a crash could leave) is ignored by `ango report`.
    std::fs::remove_file(dir.join("report.html")).unwrap();
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&results)
        .unwrap()
        .write_all(b"{\"schema\":1,\"run")
        .unwrap();
    let a = ango().arg("report").arg(&dir).assert().success();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("cut line"));
    assert!(dir.join("report.html").exists());
}

#[test]
fn schema_doc_matches_the_record() {
    let a = ango()
        .args([
            "speed",
            "--algo",
            "aes-128-ctr",
            "--backend",
            "openssl",
            "--sizes",
            "64",
            "--samples",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_documented("Speed record fields", &v[0]);
    // Round trip: JSON -> record -> JSON is the identity.
    let r: ango_core::SpeedRecord = serde_json::from_value(v[0].clone()).unwrap();
    assert_eq!(serde_json::to_value(&r).unwrap(), v[0]);
}

#[test]
fn impl_selects_named_variants_and_auto_is_the_widest() {
    let a = ango()
        .args([
            "speed",
            "--algo",
            "chacha20",
            "--backend",
            "ango",
            "--sizes",
            "512",
        ])
        .args([
            "--samples",
            "3",
            "--format",
            "json",
            "--impl",
            "auto,chacha20/portable,chacha20/sse2",
            "--no-tune",
        ])
        .assert()
        .success();
    let v: Vec<ango_core::SpeedRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let imps: Vec<&str> = v.iter().map(|r| r.implementation.as_str()).collect();
    assert!(
        imps.contains(&"chacha20/portable") && imps.contains(&"chacha20/sse2"),
        "{imps:?}"
    );
    // The preference, stated here; the CPU's flags from the kernel.
    let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let has = |f: &str| {
        flags
            .lines()
            .find(|l| l.starts_with("flags"))
            .is_some_and(|l| l.split_whitespace().any(|x| x == f))
    };
    let auto = [
        ("chacha20/avx512", "avx512f"),
        ("chacha20/avx2", "avx2"),
        ("chacha20/sse2", "sse2"),
    ]
    .into_iter()
    .find(|(_, f)| has(f))
    .map(|(v, _)| v)
    .unwrap_or("chacha20/portable");
    // Untuned, `auto` runs the feature flags' widest variant, and says so.
    assert_eq!(imps[0], "auto", "the auto point comes first: {imps:?}");
    let pick = v[0]
        .auto
        .as_ref()
        .expect("an auto record names its variant");
    assert_eq!(
        (
            pick.variant.as_str(),
            pick.chosen_by.as_str(),
            pick.class_bytes
        ),
        (auto, "features", 256)
    );
    assert!(v[1..].iter().all(|r| r.auto.is_none()));
    for r in &v {
        assert!(r.kat.starts_with("pass"), "{}: {}", r.implementation, r.kat);
    }
}

/// `auto` tuned: measured once for this CPU and build, cached, read back
/// by the next run and by `ango tune --cached`; records name the variant of
/// their class; env.json holds the tuning.
#[test]
fn auto_is_tuned_at_the_start_cached_and_read_back() {
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    let speed = |dir: Option<&std::path::Path>| {
        let mut c = ango();
        c.env("XDG_CACHE_HOME", cache.path()).args([
            "speed",
            "--algo",
            "aes-128-ctr",
            "--backend",
            "ango",
            "--sizes",
            "16,16384",
            "--samples",
            "3",
            "--op",
            "both",
            "--format",
            "json",
        ]);
        if let Some(d) = dir {
            c.arg("--out").arg(d);
        }
        let a = c.assert().success();
        let v: Vec<ango_core::SpeedRecord> =
            serde_json::from_slice(&a.get_output().stdout).unwrap();
        (
            v,
            String::from_utf8_lossy(&a.get_output().stderr).to_string(),
        )
    };
    let (first, said) = speed(Some(&dir));
    assert!(said.contains("tuning aes-128-ctr"), "{said}");
    let candidates = ["aes/aesni", "aes/vaes", "aes/vaes512", "aes/bitsliced"];
    for r in &first {
        let p = r.auto.as_ref().unwrap();
        assert_eq!(p.chosen_by, "measured");
        assert_eq!(p.class_bytes, r.size_bytes);
        assert!(candidates.contains(&p.variant.as_str()), "{p:?}");
        assert!(r.kat.contains("the variants it runs here"), "{}", r.kat);
    }
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("env.json")).unwrap()).unwrap();
    assert_eq!(env["tuning"]["source"], "measured");
    assert_eq!(env["tuning"]["choices"].as_array().unwrap().len(), 12);
    assert!(env["noise"]["before"]["median_ns"].as_f64().unwrap() > 0.0);
    // The next run reads it back.
    let (again, said) = speed(None);
    assert!(!said.contains("tuning aes-128-ctr"), "{said}");
    for (a, b) in first.iter().zip(&again) {
        let (pa, pb) = (a.auto.as_ref().unwrap(), b.auto.as_ref().unwrap());
        assert_eq!(
            (pa.variant.as_str(), pb.chosen_by.as_str()),
            (pb.variant.as_str(), "cache")
        );
    }
    let a = ango()
        .env("XDG_CACHE_HOME", cache.path())
        .args(["tune", "--cached", "--format", "json"])
        .assert()
        .success();
    let t: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert!(t["key"].as_str().unwrap().contains("-f"), "{t}");
    // The other formats: the choices as a table.
    for (fmt, needle) in [
        ("csv", "algorithm,operation,class_bytes,chosen,default"),
        ("md", "| algorithm | operation | class_bytes |"),
        ("html", "<th>chosen</th>"),
    ] {
        let a = ango()
            .env("XDG_CACHE_HOME", cache.path())
            .args(["tune", "--cached", "--format", fmt])
            .assert()
            .success();
        let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
        assert!(
            s.contains(needle) && s.contains("aes-128-ctr"),
            "{fmt}: {s}"
        );
    }
    // Nothing cached elsewhere: exit 1, saying so.
    let empty = tempfile::tempdir().unwrap();
    ango()
        .env("XDG_CACHE_HOME", empty.path())
        .args(["tune", "--cached"])
        .assert()
        .code(1);
    ango()
        .args(["tune", "--algo", "aes-128-gcm,,x"])
        .assert()
        .code(2);
}

#[test]
fn latency_study_covers_every_variant_from_zero_bytes() {
    let a = ango()
        .args([
            "latency",
            "--sizes",
            "0:64:16",
            "--samples",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: Vec<ango_core::SpeedRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert!(v
        .iter()
        .all(|r| r.head.suite == ango_core::SuiteId::Latency && r.algorithm == "chacha20"));
    let sizes: std::collections::BTreeSet<u64> = v.iter().map(|r| r.size_bytes).collect();
    assert_eq!(
        sizes.into_iter().collect::<Vec<_>>(),
        vec![0, 16, 32, 48, 64]
    );
    for imp in ["chacha20/portable", "chacha20/sse2"] {
        assert!(v.iter().any(|r| r.implementation == imp), "{imp} missing");
    }
    assert!(
        v.iter().any(|r| r.backend == "openssl") && v.iter().any(|r| r.backend == "rustcrypto")
    );
    rejects(&["latency", "--sizes", "-1"], "byte counts from 0");
    rejects(&["latency", "--hw", "off"], "--hw on only");
}

#[test]
fn speed_prints_the_report_page_as_html() {
    let a = ango()
        .args([
            "speed",
            "--algo",
            "chacha20",
            "--backend",
            "ango",
            "--sizes",
            "64",
            "--samples",
            "3",
            "--quick",
            "--format",
            "html",
        ])
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    assert!(out.contains("Seed 000's figures") && out.trim_end().ends_with("</html>"));
}
