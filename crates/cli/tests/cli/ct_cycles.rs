//! The constant-time checks and seed 002's cycle study.

use crate::common::*;

/// Needs valgrind (scripts/setup installs it): without it the positive
/// controls cannot all come out right and the command says the check is
/// broken, which fails this test.
#[test]
fn ct_sees_the_table_leaks_and_passes_the_constant_time_code() {
    let a = ango()
        .args([
            "ct",
            "--quick",
            "--format",
            "json",
            "--impl",
            "aes-128,ghash,aes/bitsliced+ghash/ctmul,poly1305/radix26,camellia/bitsliced,\
             camellia/table32-nct,sc2000/table64-nct",
        ])
        .assert();
    let out = a.get_output();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let find = |imp: &str| {
        v.iter()
            .find(|r| r["implementation"] == imp)
            .unwrap_or_else(|| panic!("no {imp} in {v:?}"))
    };
    for (imp, verdict, memcheck) in [
        ("aes/ttable-nct", "leaks", "flagged"),
        ("aes/fips-sbox-nct", "leaks", "flagged"),
        ("ghash/4bit-nct", "leaks", "flagged"),
        ("aes/bitsliced", "constant-time", "pass"),
        ("ghash/ctmul", "constant-time", "pass"),
        ("aes/bitsliced+ghash/ctmul", "constant-time", "pass"),
        // The branch LLVM made of radix26's final select is gone.
        ("poly1305/radix26", "constant-time", "pass"),
        // Seed 002's ciphers: the bitsliced Camellia passes, the table ones
        // are flagged by memcheck (dudect alone misses SC2000's tables).
        ("camellia/bitsliced", "constant-time", "pass"),
        ("camellia/table32-nct", "leaks", "flagged"),
        ("sc2000/table64-nct", "leaks", "flagged"),
    ] {
        let r = find(imp);
        // dudect on a shared machine may cross once and not again
        // (inconclusive) for constant-time code; memcheck must pass it.
        if verdict == "constant-time" && r["verdict"] == "inconclusive" {
            assert!(r["max_abs_t"].as_f64().unwrap() <= 4.5, "{r}");
        } else {
            assert_eq!(r["verdict"], verdict, "{r}");
        }
        assert_eq!(r["memcheck"], memcheck, "{r}");
        assert_eq!(r["suite"], "ct");
        assert!(r["measurements"].as_u64().unwrap() >= 20_000);
    }
    // Memcheck names the table lookup's source line.
    assert!(
        find("aes/ttable-nct")["memcheck_findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().contains("ttable.rs:")),
        "{}",
        find("aes/ttable-nct")
    );
    // Code valgrind cannot run is not-run with the reason, where the CPU has it.
    if let Some(r) = v.iter().find(|r| r["implementation"] == "aes/vaes512") {
        assert_eq!(r["memcheck"], "not-run");
        assert!(r["memcheck_detail"].as_str().unwrap().contains("AVX-512"));
    }
    // Every record documents its fields in docs/schema.md.
    assert_documented("Constant-time record fields", &v[0]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    rejects(&["ct", "--impl", "aes/rot13"], "aes/bitsliced");
    rejects(&["ct", "--format", "xml"], "table, json, csv, md, html");
}

/// `ango ct --out DIR` writes a results directory like every other
/// command: its records through the run's one writer, env.json under the
/// same run id, the report; and never into another run's directory.
#[test]
fn ct_out_writes_a_results_directory_with_one_run_id() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ct");
    let out = ango()
        .args(["ct", "--quick", "--impl", "aes/bitsliced", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("env.json")).unwrap()).unwrap();
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // aes/bitsliced and the compositions built on it.
    assert!(records.len() >= 2, "{lines}");
    for r in &records {
        assert_eq!(r["suite"], "ct");
        assert_eq!(r["run_id"], env["run_id"], "{r}");
    }
    assert!(env["run_id"].as_str().unwrap().contains('-'), "{env}");
    assert!(env["suite_seconds"][0]["suite"] == "ct", "{env}");
    assert!(std::fs::read_to_string(dir.join("report.html"))
        .unwrap()
        .contains("Constant-time checks"));
    // Each target's progress line is counted against the plan.
    assert!(
        stderr.contains(&format!(
            "[1/{}] ct aes-128 ango aes/bitsliced",
            records.len()
        )),
        "{stderr}"
    );
    // The same directory again is refused: a run never writes into another's.
    let again = ango()
        .args(["ct", "--quick", "--impl", "aes/bitsliced", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.join("results.jsonl")).unwrap(),
        lines
    );
}

/// `ango cycles`: seed 002's records (chained key schedule, encryption and
/// decryption, the throughput point beside them), documented in
/// docs/schema.md; bad input refused.
#[test]
fn cycles_records_and_bad_input() {
    let out = ango()
        .args([
            "cycles",
            "--algo",
            "camellia-128-ecb,sc2000-256-ecb",
            "--backend",
            "ango,openssl",
            "--impl",
            "camellia/table64-nct,sc2000/table32-nct",
            "--iterations",
            "2000",
            "--quick",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let find = |alg: &str, imp: &str, op: &str, chained: bool| {
        v.iter()
            .find(|r| {
                r["algorithm"] == alg
                    && r["implementation"].as_str().unwrap().starts_with(imp)
                    && r["operation"] == op
                    && r["chained"] == chained
            })
            .unwrap_or_else(|| panic!("no {alg} {imp} {op} {chained}"))
    };
    for (alg, imp) in [
        ("camellia-128-ecb", "camellia/table64-nct"),
        ("sc2000-256-ecb", "sc2000/table32-nct"),
    ] {
        let ks = find(alg, imp, "key-schedule", true);
        assert_eq!(ks["chain"], "expanded-key");
        assert_eq!(ks["iterations"], 2000);
        assert!(ks["median_ns"].as_f64().unwrap() > 0.0);
        assert!(ks["kat"].as_str().unwrap().starts_with("pass"));
        assert!(ks["table_bytes"].as_u64().unwrap() > 0);
        let enc = find(alg, imp, "encrypt", true);
        assert_eq!(enc["chain"], "ciphertext");
        assert_eq!(enc["unit"], "block");
        find(alg, imp, "decrypt", true);
        assert_eq!(find(alg, imp, "encrypt", false)["chain"], "none");
    }
    assert_eq!(v[0]["key_bits"], 128);
    // OpenSSL's one-block calls expose its expanded key; it has no SC2000.
    let o = find("camellia-128-ecb", "evp", "key-schedule", true);
    assert_eq!(o["backend"], "openssl");
    assert_eq!(o["chain"], "expanded-key");
    assert!(!v
        .iter()
        .any(|r| r["backend"] == "openssl" && r["cipher"] == "sc2000"));
    assert_documented("Cycle record fields", &v[0]);

    // With --out: the records, the report's cycle section (Tables 4 and 5,
    // the chart, table bytes beside L1d) and the seed's findings checked.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cyc");
    let out = ango()
        .args([
            "cycles",
            "--algo",
            "camellia-128-ecb",
            "--backend",
            "ango",
            "--impl",
            "camellia/table32-nct,camellia/table64-nct",
            "--iterations",
            "500",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Table 4 (seed 002)"), "{text}");
    assert!(text.contains("64-bit fast beats 32-bit fast"), "{text}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for part in [
        "Cycle study (seed 002)",
        "Table 5",
        "<svg",
        "L1 data cache",
        "WOW64",
    ] {
        assert!(html.contains(part), "{part}");
    }
    let findings = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    let claims: Vec<serde_json::Value> = findings
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|f: &serde_json::Value| f["suite"] == "cycles")
        .collect();
    assert_eq!(claims.len(), 2, "{findings}");
    assert!(claims.iter().all(|f| f["seed"] == "002"));

    rejects(&["cycles", "--algo", "aes-128-gcm"], "camellia-128-ecb");
    rejects(&["cycles", "--algo", "rot13"], "sc2000-128-ecb");
    rejects(&["cycles", "--iterations", "0"], "--iterations");
    rejects(
        &["cycles", "--impl", "camellia/rot13"],
        "camellia/table64-nct",
    );
    rejects(&["cycles", "--format", "xml"], "table, json, csv, md, html");
}

/// `ct`, `cycles` and `tls-records` print every format their exporters
/// have, not only table and JSON: CSV with its header row, Markdown with
/// '|' inside a cell escaped, the HTML page.
#[test]
fn ct_cycles_and_tls_records_print_all_five_formats() {
    let cases: [(&[&str], &str, &str); 3] = [
        (
            &["ct", "--impl", "aes/bitsliced", "--quick"],
            "algorithm,backend,implementation",
            "| max \\|t\\| |",
        ),
        (
            &[
                "cycles",
                "--quick",
                "--algo",
                "camellia-128-ecb",
                "--backend",
                "ango",
            ],
            "algorithm,cipher,backend,implementation",
            "| ",
        ),
        (
            &[
                "tls-records",
                "--suite",
                "TLS_AES_128_GCM_SHA256",
                "--sizes",
                "1",
            ],
            "tls_version,cipher_suite",
            "| TLS | cipher suite |",
        ),
    ];
    for (args, csv, md) in cases {
        for (fmt, needle) in [("csv", csv), ("md", md), ("html", "<!DOCTYPE html>")] {
            let a = ango().args(args).args(["--format", fmt]).assert().success();
            let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
            assert!(s.contains(needle), "{args:?} {fmt}: {s}");
        }
    }
}
