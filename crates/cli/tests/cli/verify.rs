//! `ango verify` and `list`: known answers, Wycheproof files and directories, the known defects.

use crate::common::*;

#[test]
fn list_env_and_verify() {
    let a = ango().arg("list").assert().success();
    let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(s.contains("rustcrypto") && s.contains("unavailable") && s.contains("rustcrypto-soft"));
    let a = ango().args(["env", "--format", "json"]).assert().success();
    let e: ango_core::EnvInfo = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert!(
        e.libraries
            .iter()
            .any(|(n, v)| n == "openssl" && v.starts_with("OpenSSL 3.5.")),
        "{:?}",
        e.libraries
    );
    assert!(["perf", "tsc", "none"].contains(&e.cycle_source.as_str()));
    // Everything passes except liboqs 0.13's ML-DSA AVX2 verifier, whose
    // two defects are listed in vectors/known-defects.toml: they are shown
    // (every case id) and verify still exits 0. Any other failure fails here.
    let a = ango().arg("verify").assert().success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    if let Some(l) = out.lines().find(|l| l.contains("FAIL")) {
        panic!("unexpected failure: {l}\n{out}");
    }
    assert!(out.ends_with("\n0 failed\n"), "{out}");
    let known = out
        .split("Known library defects")
        .nth(1)
        .unwrap_or_else(|| panic!("no known-defects summary\n{out}"));
    for (n, use_hint) in [("44", 147), ("65", 161), ("87", 174)] {
        assert!(
            known.contains(&format!("liboqs ml-dsa-{n} fails verification"))
                && known.contains(&format!("mldsa_{n}_verify_test.json#{use_hint}"))
                && known.contains("pq-crystals/dilithium#113"),
            "{known}"
        );
    }
    assert!(
        out.contains("x25519_test.json 264/264") && out.contains("mlkem_768_test.json 193/193"),
        "{out}"
    );
    // The symmetric checks before timing run Wycheproof's AEAD files too;
    // LibTomCrypt's ChaCha20-Poly1305 fails one case, a known defect.
    assert!(
        out.contains("Wycheproof chacha20_poly1305_test.json 325/325")
            && out.contains("Wycheproof xchacha20_poly1305_test.json")
            && out.contains("Wycheproof aes_ccm_test.json"),
        "{out}"
    );
    assert!(
        known.contains("libtomcrypt chacha20-poly1305 fails verification")
            && known.contains("chacha20_poly1305_test.json#3"),
        "{known}"
    );
}

#[test]
fn a_symmetric_known_defect_is_shown_first_and_not_timed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let a = ango()
        .args([
            "speed",
            "--algo",
            "chacha20-poly1305",
            "--backend",
            "libtomcrypt,openssl",
            "--sizes",
            "64",
            "--time",
            "0.02",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    let first = out.lines().next().unwrap_or("");
    assert!(first.starts_with("Known library defects"), "{out}");
    assert!(
        out.contains("libtomcrypt chacha20-poly1305 fails verification")
            && out.contains("chacha20_poly1305_test.json#3"),
        "{out}"
    );
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert!(results.lines().count() >= 1, "{results}");
    assert!(
        !results.contains("\"backend\":\"libtomcrypt\""),
        "{results}"
    );
    let findings = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    assert_eq!(
        findings
            .lines()
            .filter(|l| l.contains("libtomcrypt-chachapoly-empty-message-aad"))
            .count(),
        1,
        "{findings}"
    );
}

#[test]
fn verify_runs_wycheproof_files_against_every_implementation() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let a = ango()
        .args([
            "verify",
            "--wycheproof",
            &format!("{data}chacha20_poly1305_sample.json"),
        ])
        .assert()
        .success();
    let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        s.contains("openssl")
            && s.contains("rustcrypto")
            && s.contains("ango[chacha20/portable+poly1305/radix26]"),
        "{s}"
    );
    assert!(s.contains("\n0 failed"), "{s}");
    // A file whose "valid" case is not: every implementation must fail it.
    let a = ango()
        .args([
            "verify",
            "--wycheproof",
            &format!("{data}chacha20_poly1305_wrong.json"),
        ])
        .assert()
        .code(1);
    let s = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(s.contains("failed: tcId 6 (valid)"), "{s}");
    rejects(
        &["verify", "--wycheproof", "/nonexistent.json"],
        "Wycheproof test file",
    );
}

#[test]
fn an_unexplained_failure_fails_verify_beside_the_known_defects() {
    // Corrupt one case the known defects do not list (a valid signature's
    // last byte) in a copy that keeps the file's name: the defects stay
    // explained, the corrupted case is a failure of its own and exit is 1.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/wycheproof");
    let name = "mldsa_44_verify_test.json";
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(name)).unwrap()).unwrap();
    let t = v["testGroups"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|g| g["tests"].as_array_mut().unwrap().iter_mut())
        .find(|t| t["result"] == "valid" && t["tcId"] != 147)
        .unwrap();
    let id = t["tcId"].as_u64().unwrap();
    let mut sig = hex::decode(t["sig"].as_str().unwrap()).unwrap();
    *sig.last_mut().unwrap() ^= 1;
    t["sig"] = hex::encode(sig).into();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(name), v.to_string()).unwrap();
    let a = ango()
        .args(["verify", "--wycheproof"])
        .arg(tmp.path().join(name))
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(out.contains(&format!("[{name}#{id}]")), "{out}");
    assert!(out.contains("liboqs ml-dsa-44 fails verification"), "{out}");
    // The file as it is: only the known defects fail, exit 0.
    let a = ango()
        .args(["verify", "--wycheproof"])
        .arg(root.join(name))
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        out.contains("Known library defects") && out.ends_with("\n0 failed\n"),
        "{out}"
    );
}

#[test]
fn wycheproof_directory_accounts_for_every_case_of_every_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/wycheproof");
    let a = ango()
        .args(["verify", "--format", "json", "--wycheproof"])
        .arg(&root)
        .assert()
        .success();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let mut files: Vec<&str> = v.iter().map(|r| r["file"].as_str().unwrap()).collect();
    files.dedup();
    assert_eq!(files.len(), 36, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        let n = serde_json::from_str::<serde_json::Value>(&text).unwrap()["numberOfTests"]
            .as_u64()
            .unwrap();
        let runs: Vec<&serde_json::Value> = v.iter().filter(|r| r["file"] == *f).collect();
        // At least one implementation runs the file's cases.
        assert!(
            runs.iter()
                .any(|r| r["passed"].as_u64().unwrap() + r["failed"].as_u64().unwrap() > 0),
            "{f}"
        );
        for r in runs {
            for k in [
                "algorithm",
                "backend",
                "implementation",
                "cases",
                "passed",
                "failed",
                "skipped",
                "skip_reasons",
                "failed_ids",
                "known_defect",
            ] {
                assert!(r.get(k).is_some(), "{f}: no {k} in {r}");
            }
            let (p, fl, sk) = (
                r["passed"].as_u64().unwrap(),
                r["failed"].as_u64().unwrap(),
                r["skipped"].as_u64().unwrap(),
            );
            assert_eq!(r["cases"].as_u64().unwrap(), n, "{f}");
            assert_eq!(p + fl + sk, n, "{f}: {r}");
            let reasons: u64 = r["skip_reasons"]
                .as_object()
                .unwrap()
                .values()
                .map(|x| x.as_u64().unwrap())
                .sum();
            assert_eq!(reasons, sk, "{f}: {r}");
            assert_eq!(r["failed_ids"].as_array().unwrap().len() as u64, fl, "{f}");
            // Every failure here is a known library defect.
            assert!(fl == 0 || r["known_defect"].is_string(), "{f}: {r}");
        }
    }
    // docs/schema.md documents exactly these fields.
    assert_documented("`ango verify --wycheproof PATH --format json`", &v[0]);
    // AES-GCM: every implementation skips the AES-192 groups by name, and
    // an implementation that takes only 96-bit nonces skips the valid
    // cases of other lengths with the reason; invalid-parameter cases are
    // run (refused at the API counts as rejected).
    let gcm: Vec<&serde_json::Value> = v
        .iter()
        .filter(|r| r["file"] == "aes_gcm_test.json" && r["backend"] == "ring")
        .collect();
    let reasons = gcm[0]["skip_reasons"].as_object().unwrap();
    assert_eq!(
        reasons["AES-GCM with 192-bit keys: not an algorithm ango has"],
        103
    );
    assert!(reasons
        .keys()
        .any(|k| k.starts_with("its API refuses a 64-bit nonce")));
}

#[test]
fn wycheproof_refuses_what_it_does_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let unknown = tmp.path().join("dsa_test.json");
    std::fs::write(
        &unknown,
        r#"{"algorithm":"DSA","schema":"dsa_verify_schema.json","numberOfTests":0,"testGroups":[]}"#,
    )
    .unwrap();
    rejects(
        &["verify", "--wycheproof", unknown.to_str().unwrap()],
        "mlkem_encaps_test_schema.json",
    );
    let siv = tmp.path().join("aes_gcm_siv_test.json");
    std::fs::write(
        &siv,
        r#"{"algorithm":"AES-GCM-SIV","schema":"aead_test_schema_v1.json","numberOfTests":1,"testGroups":[{"keySize":128,"tests":[{"tcId":1,"key":"00","iv":"00","aad":"","msg":"","ct":"","tag":"00","result":"valid","flags":[]}]}]}"#,
    )
    .unwrap();
    rejects(
        &["verify", "--wycheproof", siv.to_str().unwrap()],
        "not an algorithm ango has",
    );
    // In a directory the files it reads are run and the others named; the
    // exit status says not everything was read.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/wycheproof");
    std::fs::copy(
        root.join("x25519_test.json"),
        tmp.path().join("x25519_test.json"),
    )
    .unwrap();
    let a = ango()
        .args(["verify", "--wycheproof"])
        .arg(tmp.path())
        .assert()
        .code(2);
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        out.contains("x25519_test.json (xdh_comp_schema_v1.json, 518 cases)"),
        "{out}"
    );
    assert!(
        out.contains("not read: ") && out.contains("dsa_verify_schema.json"),
        "{out}"
    );
    rejects(
        &["verify", "--format", "yaml"],
        "table, json, csv, md, html",
    );
}

#[test]
fn pk_wycheproof_file_runs_against_every_backend() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/wycheproof");
    let a = ango()
        .args(["verify", "--wycheproof"])
        .arg(root.join("ecdsa_secp256r1_sha256_test.json"))
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        out.contains("p-256") && out.contains("openssl") && out.contains("rustcrypto"),
        "{out}"
    );
    assert!(out.contains("\n0 failed"), "{out}");
}

#[test]
fn schema_doc_matches_the_finding() {
    let f = ango_core::Finding::new("speed", "000", "§5.4", "claim");
    assert_documented("Finding fields", &serde_json::to_value(&f).unwrap());
}

/// `ango verify --vectors FILE`: a vector file of the user's own, run
/// against every implementation of its algorithms; a wrong value fails
/// (exit 1) naming the case, an unreadable or malformed file is exit 2.
#[test]
fn verify_vectors_file() {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors");
    let out = ango()
        .args(["verify", "--vectors", &format!("{repo}/camellia.txt")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for who in [
        "openssl",
        "rustcrypto",
        "libgcrypt",
        "ango[camellia/reference-nct]",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("camellia-128-ecb") && l.contains(who) && l.contains("1/1")),
            "{who}: {text}"
        );
    }
    assert!(text.contains("# Source: RFC 3713"), "{text}");
    assert!(text.contains("0 failed"), "{text}");

    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("mine.txt");
    std::fs::write(
        &bad,
        "# Source: a user's file\n\n[sc2000-128-ecb]\n# wrong on purpose\nKEY = 00000000000000000000000000000000\nIV = \nIN = 00000000000000000000000000000000\nOUT = 00000000000000000000000000000000\n",
    )
    .unwrap();
    let out = ango()
        .args(["verify", "--vectors", bad.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("wrong on purpose"), "{text}");
    assert!(text.contains("FAIL"), "{text}");

    let unknown = tmp.path().join("unknown.txt");
    std::fs::write(&unknown, "# Source: x\n\n[rot13-ecb]\nKEY = 00\n").unwrap();
    rejects(
        &["verify", "--vectors", unknown.to_str().unwrap()],
        "camellia-128-ecb",
    );
    rejects(
        &[
            "verify",
            "--vectors",
            tmp.path().join("missing.txt").to_str().unwrap(),
        ],
        "missing.txt",
    );
    // A wrong key length, an odd number of hex digits: one line naming
    // the file, the line and what is valid.
    let short = tmp.path().join("short.txt");
    std::fs::write(
        &short,
        "# Source: x\n\n[hierocrypt3-256-ecb]\nKEY = 00\nIV = \nIN = 00\nOUT = 00\n",
    )
    .unwrap();
    rejects(
        &["verify", "--vectors", short.to_str().unwrap()],
        "short.txt:4: KEY is 1 bytes; hierocrypt3-256-ecb takes 32-byte keys",
    );
    let odd = tmp.path().join("odd.txt");
    std::fs::write(
        &odd,
        "# Source: x\n\n[mugi]\nKEY = 000102030405060708090a0b0c0d0e0f\nIV = 123\n",
    )
    .unwrap();
    rejects(
        &["verify", "--vectors", odd.to_str().unwrap()],
        "odd.txt:5: IV has an odd number of hex digits; a value is whole bytes",
    );
    // A file that checks nothing here does not pass.
    let prims = tmp.path().join("prims.txt");
    std::fs::write(
        &prims,
        "# Source: x\n\n[poly1305]\nKEY = 00\nIN = \nTAG = 00\n",
    )
    .unwrap();
    rejects(
        &["verify", "--vectors", prims.to_str().unwrap()],
        "nothing was checked; algorithms that run here: ",
    );
}

/// Seed 002's new ciphers through `ango verify --vectors` with their files:
/// every variant passes every case, and CIPHERUNICORN-A's file says it is
/// not official test data.
#[test]
fn verify_vectors_of_the_cryptrec_ciphers() {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors");
    for (file, algo, variants, cases) in [
        ("hierocrypt3.txt", "hierocrypt3-256-ecb", 3, 640),
        ("mugi.txt", "mugi", 4, 5),
        (
            "cipherunicorn-a-crosscheck.txt",
            "cipherunicorn-a-192-ecb",
            2,
            14,
        ),
    ] {
        let out = ango()
            .args(["verify", "--vectors", &format!("{repo}/{file}")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        let ok = format!("{cases}/{cases}");
        let rows = text
            .lines()
            .filter(|l| l.starts_with(algo) && l.contains("ango[") && l.contains(&ok))
            .count();
        // Each portable variant and the automatic choice (and the GFNI
        // Hierocrypt-3 where the CPU has it), none failing.
        assert!(rows > variants, "{file}: {text}");
        assert!(!text.contains("FAIL"), "{file}: {text}");
        assert!(text.contains("0 failed"), "{text}");
    }
    let out = ango().args(["list", "--format", "csv"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("cipherunicorn-a-128-ecb,ango")
                && l.contains("no official test data exist")),
        "{text}"
    );
}

#[test]
fn list_env_verify_and_compare_take_every_format() {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors");
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let vectors = format!("{repo}/camellia.txt");
    let (a, b) = (format!("{data}/v1-speed-a"), format!("{data}/v1-speed-b"));
    let cases: [(&[&str], &str); 4] = [
        (&["list"], "implementation_or_reason"),
        (&["env"], "what"),
        (&["verify", "--vectors", &vectors], "camellia-128-ecb"),
        (&["compare", &a, &b], "A MB/s"),
    ];
    for (args, needle) in cases {
        for (fmt, shape) in [("csv", ","), ("md", "|---|"), ("html", "<!DOCTYPE html>")] {
            let out = ango().args(args).args(["--format", fmt]).assert().success();
            let s = String::from_utf8_lossy(&out.get_output().stdout).to_string();
            assert!(
                s.contains(needle) && s.contains(shape),
                "{args:?} {fmt}: {s}"
            );
            if fmt == "html" {
                assert!(!s.contains("<script"), "{args:?}: a page without scripts");
            }
        }
        let out = ango()
            .args(args)
            .args(["--format", "json"])
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert!(v.is_array() || v.is_object(), "{args:?}: {v}");
    }
    // verify's JSON: one object per check, with its status.
    let out = ango()
        .args(["verify", "--vectors", &vectors, "--format", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .any(|r| r["implementation"] == "openssl" && r["status"] == "pass"),
        "{v}"
    );
}
