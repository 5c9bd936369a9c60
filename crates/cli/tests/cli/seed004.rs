//! Seed 004's suites: tls-records, tls-bulk and tls-policy.

use crate::common::*;

/// `ango tls-records`: each record's wire bytes read from the captured
/// connection — seed 004's 30 (AES-GCM's explicit nonce) vs 22 bytes
/// (ChaCha20-Poly1305) for one byte in TLS 1.2, TLS 1.3's content-type
/// byte, CCM_8's 8-byte tag at security level 0 — and bad input.
#[test]
fn tls_records_reads_the_wire_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rec");
    let out = ango()
        .args([
            "tls-records",
            "--suite",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,\
             TLS_AES_128_GCM_SHA256,TLS_AES_128_CCM_8_SHA256",
            "--sizes",
            "1,16384",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("[holds]"), "{text}");
    assert!(
        text.contains("TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256"),
        "{text}"
    );
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let v: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v.len(), 8);
    let wire = |suite: &str, n: u64| {
        let r = v
            .iter()
            .find(|r| r["cipher_suite"] == suite && r["plaintext_bytes"] == n)
            .unwrap_or_else(|| panic!("no {suite} {n}"));
        assert_eq!(r["negotiated_suite"], suite);
        r["wire_bytes"].as_u64().unwrap()
    };
    // 5-byte header; TLS 1.2 GCM: 8-byte explicit nonce; 16-byte tags;
    // TLS 1.3: one content-type byte; CCM_8: an 8-byte tag.
    assert_eq!(wire("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 1), 30);
    assert_eq!(wire("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 1), 22);
    assert_eq!(wire("TLS_AES_128_GCM_SHA256", 1), 23);
    assert_eq!(wire("TLS_AES_128_GCM_SHA256", 16384), 16406);
    assert_eq!(wire("TLS_AES_128_CCM_8_SHA256", 1), 15);
    for r in &v {
        let level = r["security_level"].as_u64().unwrap();
        assert_eq!(
            level == 0,
            r["cipher_suite"] == "TLS_AES_128_CCM_8_SHA256",
            "{r}"
        );
        let how = if r["tls_version"] == "1.3" {
            "decrypted"
        } else {
            "outer-type"
        };
        assert_eq!(r["identified_by"], how);
    }
    assert_documented("TLS record-overhead record fields", &v[0]);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("TLS record overhead (seed 004 §4.3)"));
    assert!(html.contains("<svg"));
    let findings = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    assert!(findings.contains("\"seed\":\"004\""), "{findings}");

    rejects(
        &["tls-records", "--suite", "TLS_ROT13"],
        "TLS_AES_128_CCM_8_SHA256",
    );
    rejects(&["tls-records", "--sizes", "16385"], "16384");
    rejects(&["tls-records", "--sizes", "0"], "--sizes");
    rejects(
        &["tls-records", "--format", "xml"],
        "table, json, csv, md, html",
    );
}

/// `ango tls --bulk` on 127.0.0.1: each endpoint in its own process with
/// its own hardware setting (read back from its libcrypto), one record per
/// suite × setting with CPU per byte on both sides, the report section,
/// the findings, no endpoint process left; and bad input.
#[cfg(target_os = "linux")]
#[test]
fn tls_bulk_runs_each_endpoint_in_its_own_process() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bulk");
    let mark = format!("bulk-{}", std::process::id());
    let out = ango()
        .env("ANGO_TEST_MARK", &mark)
        .args([
            "tls",
            "--bulk",
            "2MiB",
            "--loopback",
            "--repeats",
            "3",
            "--suite",
            "TLS_AES_128_GCM_SHA256,TLS_CHACHA20_POLY1305_SHA256",
            "--client-hw",
            "on,off",
            "--format",
            "json",
            "--out",
            dir.to_str().unwrap(),
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
    assert_eq!(v.len(), 4);
    let has_aes = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap()
        .split_whitespace()
        .any(|w| w == "aes");
    for r in &v {
        assert_eq!(r["suite"], "tls-bulk");
        assert_eq!(r["negotiated_suite"], r["cipher_suite"]);
        assert_eq!(r["bytes"], 2 << 20);
        assert_eq!(r["repeats"], 3);
        assert_eq!(r["server_hw"], "on");
        assert_eq!(r["link"], "loopback");
        for f in [
            "bytes_per_second",
            "client_cpu_ns_per_byte",
            "server_cpu_ns_per_byte",
        ] {
            assert!(r[f].as_f64().unwrap() > 0.0, "{f}: {r}");
        }
        let q1 = r["bytes_per_second_q1"].as_f64().unwrap();
        let q3 = r["bytes_per_second_q3"].as_f64().unwrap();
        let m = r["bytes_per_second"].as_f64().unwrap();
        assert!(q1 <= m && m <= q3, "{r}");
        // The mask reached the client's process alone.
        let client = r["client_cpu_features"].as_str().unwrap();
        let server = r["server_cpu_features"].as_str().unwrap();
        assert_eq!(
            client.contains("aes-ni"),
            has_aes && r["client_hw"] == "on",
            "{r}"
        );
        assert_eq!(server.contains("aes-ni"), has_aes, "{r}");
    }
    assert_documented("TLS bulk record fields", &v[0]);
    // Software AES-GCM costs the masked client more per byte than AES-NI.
    let cpu = |suite: &str, hw: &str| {
        v.iter()
            .find(|r| r["cipher_suite"] == suite && r["client_hw"] == hw)
            .unwrap()["client_cpu_ns_per_byte"]
            .as_f64()
            .unwrap()
    };
    if has_aes {
        assert!(
            cpu("TLS_AES_128_GCM_SHA256", "off") > 1.5 * cpu("TLS_AES_128_GCM_SHA256", "on"),
            "{v:?}"
        );
    }
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("TLS bulk throughput (seed 004)"));
    assert!(html.contains("<svg"));
    let findings = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    assert!(findings.contains("\"suite\":\"tls-bulk\""), "{findings}");
    assert!(processes_marked(&mark).is_empty(), "endpoints left running");
    // `ango report` rebuilds the section from results.jsonl.
    std::fs::remove_file(dir.join("report.html")).unwrap();
    ango().arg("report").arg(&dir).assert().success();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("TLS bulk throughput (seed 004)"));

    // rustls on either side: its endpoints report AWS-LC's view of the
    // CPU, CCM (which rustls lacks) is skipped with a note.
    let out = ango()
        .args([
            "tls",
            "--bulk",
            "1MiB",
            "--loopback",
            "--repeats",
            "2",
            "--suite",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_AES_128_CCM_SHA256",
            "--client-hw",
            "off",
            "--client-stack",
            "rustls",
            "--server-stack",
            "both",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let err = flat(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("rustls has no CCM suites"), "{err}");
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.len(), 2);
    for r in &v {
        assert_eq!(r["client_stack"], "rustls");
        assert_eq!(r["negotiated_suite"], r["cipher_suite"]);
        assert!(r["client_library_version"]
            .as_str()
            .unwrap()
            .starts_with("rustls 0.23"));
        assert!(!r["client_cpu_features"]
            .as_str()
            .unwrap()
            .contains("aes-ni"));
    }

    rejects(&["tls", "--bulk", "0", "--loopback"], "--bulk");
    rejects(&["tls", "--bulk", "64XB", "--loopback"], "MiB");
    rejects(
        &["tls", "--bulk", "1MiB", "--loopback", "--client-hw", "fast"],
        "seed000",
    );
    rejects(
        &[
            "tls",
            "--bulk",
            "1MiB",
            "--loopback",
            "--suite",
            "TLS_ROT13",
        ],
        "TLS_AES_128_CCM_8_SHA256",
    );
    rejects(
        &["tls", "--bulk", "1MiB", "--loopback", "--groups", "x25519"],
        "--groups",
    );
    rejects(&["tls", "--loopback", "--client-hw", "off"], "--bulk");
    rejects(
        &["tls", "--bulk", "1MiB", "--loopback", "--timeout", "0"],
        "--timeout",
    );
}

/// `ango tls --bulk` in the lab: the endpoints in the two namespaces over
/// the veth pair; interrupted, it keeps what it measured and leaves no
/// namespace and no endpoint process behind.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs root (network namespaces, veth): scripts/test runs it as root"]
fn tls_bulk_in_the_lab_leaves_nothing_behind() {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(euid, 0, "the TLS lab needs root; run as root");
    let tmp = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("ango");
    let mark = format!("bulk-lab-{}", std::process::id());
    let out = std::process::Command::new(&bin)
        .env("ANGO_TEST_MARK", &mark)
        .args([
            "tls",
            "--bulk",
            "1MiB",
            "--repeats",
            "2",
            "--suite",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "--client-hw",
            "seed000",
            "--server-hw",
            "off",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["link"], "veth");
    assert_eq!(v[0]["rtt_ms"], 0.0);
    assert_eq!(v[0]["client_hw"], "seed000");
    assert!(!v[0]["client_cpu_features"]
        .as_str()
        .unwrap()
        .contains("avx2"));
    assert!(processes_marked(&mark).is_empty());

    // Interrupted while transferring.
    let dir = tmp.path().join("bulk");
    let mut child = std::process::Command::new(&bin)
        .env("ANGO_TEST_MARK", &mark)
        .args([
            "tls",
            "--bulk",
            "32MiB",
            "--repeats",
            "50",
            "--client-hw",
            "on,off",
            "--out",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    // Both endpoints are up once the server has served a warm-up.
    while processes_marked(&mark).len() < 3 || lab_namespaces(pid).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no endpoints");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: FFI; sending SIGINT to our own child process.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    assert!(lab_namespaces(pid).is_empty(), "{:?}", lab_namespaces(pid));
    assert!(processes_marked(&mark).is_empty(), "endpoints left running");
    assert!(dir.join("report.html").exists());
}

/// `ango tls-policy`: the negotiation matrix by real handshakes, seed 004
/// §6.2's claim, costs from the bulk measurement of the same run (its
/// records kept beside), `--costs-from` another run, and bad input.
#[test]
fn tls_policy_negotiates_and_prices_each_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pol");
    let out = ango()
        .args([
            "tls-policy",
            "--client",
            "aes-first,chacha-first",
            "--bulk",
            "1MiB",
            "--repeats",
            "2",
            "--format",
            "json",
            "--out",
            dir.to_str().unwrap(),
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
    assert_eq!(v.len(), 2 * 2 * 5);
    let agreed = |ver: &str, c: &str, p: &str| {
        let r = v
            .iter()
            .find(|r| {
                r["tls_version"] == ver && r["client_profile"] == c && r["server_policy"] == p
            })
            .unwrap();
        assert!(r["client_cost_ns_per_byte"].as_f64().unwrap() > 0.0, "{r}");
        r["negotiated_suite"].as_str().unwrap().to_string()
    };
    for ver in ["1.2", "1.3"] {
        let cc = agreed(ver, "chacha-first", "server-chacha-first");
        assert!(cc.contains("CHACHA20"), "{cc}");
        assert_eq!(cc, agreed(ver, "aes-first", "server-chacha-first"));
        assert!(agreed(ver, "chacha-first", "server-aes-first").contains("AES_128_GCM"));
        assert_eq!(
            agreed(ver, "chacha-first", "server-aes-first+prioritize-chacha"),
            cc
        );
        assert_eq!(agreed(ver, "chacha-first", "rustls"), cc);
    }
    let r = &v[0];
    assert_eq!(r["suite"], "tls-policy");
    assert!(!r["client_offer"].as_array().unwrap().is_empty());
    assert_documented("TLS policy record fields", r);
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let bulk = lines.lines().filter(|l| l.contains("\"tls-bulk\"")).count();
    assert_eq!(bulk, 6 * 2, "six suites, client hw on and off");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("TLS cipher-suite policies (seed 004 §6)"));
    assert!(html.contains("TLS bulk throughput (seed 004)"));
    let findings = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    assert!(findings.contains("§6.2"), "{findings}");

    // The costs of another run.
    let text = ango()
        .args(["tls-policy", "--tls-version", "1.3", "--costs-from"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(text.status.success());
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(t.contains("ns/B") && t.contains("[holds]"), "{t}");

    rejects(&["tls-policy", "--client", "arm"], "chacha-first");
    rejects(&["tls-policy", "--server", "random"], "prioritize-chacha");
    rejects(&["tls-policy", "--tls-version", "1.1"], "1.2, 1.3");
    rejects(&["tls-policy", "--no-cost", "--bulk", "1MiB"], "--bulk");
    rejects(
        &["tls-policy", "--costs-from", "/nonexistent-ango-dir"],
        "nonexistent",
    );
}
