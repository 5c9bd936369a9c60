//! The TLS 1.3 handshake lab: namespaces, stacks, two hosts and their flags.

use crate::common::*;

#[test]
fn schema_doc_matches_the_tls_record() {
    let a = ango()
        .args([
            "tls",
            "--loopback",
            "--groups",
            "x25519",
            "--server-sig",
            "p-256",
            "--ca-sig",
            "p-256",
            "--handshakes",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_documented("TLS record fields", &v[0]);
}

#[cfg(unix)]
#[test]
#[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
fn tls_lab_runs_and_leaves_nothing_behind_even_when_interrupted() {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(euid, 0, "the TLS lab needs root; run as root");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tls");
    let bin = assert_cmd::cargo::cargo_bin("ango");
    let child = std::process::Command::new(&bin)
        .args([
            "tls",
            "--quick",
            "--handshakes",
            "10",
            "--rtt",
            "2ms",
            "--emulator",
            "relay",
            "--format",
            "json",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let v: Vec<serde_json::Value> = serde_json::from_slice(&child.stdout).unwrap();
    assert_eq!(v.len(), 4);
    for r in &v {
        assert_eq!(r["handshakes"], 10);
        assert_eq!(r["failures"], 0);
        assert_eq!(r["link"], "tun-relay");
        let rtt = r["rtt_ns"].as_f64().unwrap();
        assert!((rtt - 2e6).abs() < 0.1 * 2e6, "RTT {rtt} ns for 2 ms asked");
        assert!(
            r["handshake_ns"]["median"].as_f64().unwrap() > 4e6,
            "two round trips at least"
        );
        // Every handshake timed on the wire, every phase of the legend.
        assert_eq!(r["capture"]["handshakes_timed"], 10, "{}", r["capture"]);
        assert_eq!(r["phases_ns"].as_object().unwrap().len(), 18);
        // One way is half the 2 ms RTT: at least 0.8 ms (the delay is
        // applied), under 1.9 ms (not the whole RTT). The userspace relay's
        // wake-ups add to it on a busy machine: 1.65 ms was seen with an
        // `ango run` beside this test on 2 cores.
        for one_way in ["syn_sending", "client_hello_sending", "finished_sending"] {
            let t = r["phases_ns"][one_way].as_f64().unwrap();
            assert!((0.8e6..1.9e6).contains(&t), "{one_way} {t} ns, about 1 ms");
        }
        assert!(r["server_flight_segments"].as_f64().unwrap() >= 1.0);
        assert!(r["client_sh_rcv_to_finished_send_ns"].as_f64().unwrap() > 0.0);
        for side in ["client_pcap", "server_pcap", "keylog"] {
            let f = dir.join(r["capture"][side].as_str().unwrap());
            assert!(std::fs::metadata(&f).unwrap().len() > 24, "{f:?}");
        }
    }
    let lines = std::fs::read_to_string(dir.join("tls-handshakes.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4);
    let timelines = std::fs::read_to_string(dir.join("tls-timelines.jsonl")).unwrap();
    assert_eq!(timelines.lines().count(), 40);
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(report.contains("TLS 1.3 handshakes"));

    // Interrupted in the middle: what was measured is kept, nothing is left.
    let dir2 = tmp.path().join("tls2");
    let mut child = std::process::Command::new(&bin)
        .args(["tls", "--quick", "--handshakes", "400", "--out"])
        .arg(&dir2)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    while std::fs::read_to_string(dir2.join("results.jsonl"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
        < 1
    {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no combination finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !lab_namespaces(pid).is_empty(),
        "the lab exists while running"
    );
    // SAFETY: FFI; sending SIGINT to our own child process.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(lab_namespaces(pid).is_empty(), "{:?}", lab_namespaces(pid));
    assert!(
        std::fs::read_to_string(dir2.join("results.jsonl"))
            .unwrap()
            .lines()
            .count()
            >= 1
    );
}

/// `ango tls` with both stacks on each side: every pairing measured in one
/// run with its stacks and versions in the record; what rustls lacks is
/// skipped with a note; a request of which nothing can run is an error.
#[test]
fn tls_pairs_openssl_and_rustls() {
    let out = ango()
        .args([
            "tls",
            "--loopback",
            "--no-capture",
            "--handshakes",
            "5",
            "--groups",
            "x25519mlkem768,ml-kem-512",
            "--server-sig",
            "ml-dsa-44",
            "--ca-sig",
            "p-256",
            "--client-stack",
            "both",
            "--server-stack",
            "openssl,rustls",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    // x25519mlkem768 in all four pairings, ml-kem-512 with OpenSSL only.
    assert_eq!(v.len(), 5);
    let mut pairs: Vec<String> = Vec::new();
    for r in &v {
        assert_eq!(r["failures"], 0, "{r}");
        assert_eq!(r["handshakes"], 5);
        let p = format!("{}-{}", r["client_stack"], r["server_stack"]);
        for side in ["client", "server"] {
            let stack = r[format!("{side}_stack")].as_str().unwrap();
            let version = r[format!("{side}_library_version")].as_str().unwrap();
            match stack {
                "openssl" => assert!(version.starts_with("OpenSSL 3.5"), "{version}"),
                "rustls" => assert!(version.starts_with("rustls 0.23"), "{version}"),
                s => panic!("stack {s}"),
            }
        }
        if r["group"] == "ml-kem-512" {
            assert_eq!(p, "\"openssl\"-\"openssl\"");
        } else {
            pairs.push(p);
        }
    }
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 4);
    assert_eq!(
        err.matches("note: skipped").count(),
        3,
        "three pairings lack ml-kem-512: {err}"
    );
    let table = ango()
        .args([
            "tls",
            "--loopback",
            "--no-capture",
            "--handshakes",
            "3",
            "--groups",
            "x25519",
            "--server-sig",
            "p-256",
            "--ca-sig",
            "p-256",
            "--client-stack",
            "both",
        ])
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&table.stdout);
    assert!(t.contains("Stack comparison"), "{t}");
    assert!(t.contains("rustls → openssl"), "{t}");
    rejects(
        &[
            "tls",
            "--loopback",
            "--groups",
            "ml-kem-512",
            "--client-stack",
            "rustls",
        ],
        "ml-kem-512",
    );
    rejects(
        &["tls", "--loopback", "--client-stack", "gnutls"],
        "openssl, rustls",
    );
}

/// rustls in the lab: its handshakes are captured in both namespaces and
/// opened with the key log rustls wrote, so every one gets a complete wire
/// timeline like OpenSSL's; the pcaps are named by the stacks.
#[cfg(unix)]
#[test]
#[ignore = "needs root (network namespaces, veth, AF_PACKET): scripts/test runs it as root"]
fn tls_rustls_handshakes_are_timed_on_the_wire() {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(euid, 0, "the TLS lab needs root; run as root");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tls");
    let out = ango()
        .args([
            "tls",
            "--handshakes",
            "10",
            "--groups",
            "x25519mlkem768",
            "--server-sig",
            "ml-dsa-44",
            "--ca-sig",
            "p-256",
            "--client-stack",
            "both",
            "--server-stack",
            "both",
            "--format",
            "json",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.len(), 4);
    for r in &v {
        assert_eq!(r["failures"], 0, "{r}");
        assert_eq!(r["capture"]["handshakes_timed"], 10, "{}", r["capture"]);
        assert_eq!(r["phases_ns"].as_object().unwrap().len(), 18);
        let rustls_sides = ["client_stack", "server_stack"]
            .iter()
            .filter(|k| r[**k] == "rustls")
            .count();
        assert_eq!(
            r["rustls_io_ns"].as_object().unwrap().is_empty(),
            rustls_sides == 0,
            "{r}"
        );
        let pcap = r["capture"]["client_pcap"].as_str().unwrap();
        if rustls_sides > 0 {
            assert!(pcap.contains("rustls"), "{pcap}");
        }
        assert!(std::fs::metadata(dir.join(pcap)).unwrap().len() > 24);
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("TLS stacks: rustls beside OpenSSL"));
}

/// Two processes in two namespaces that share only their link: the
/// server's clock reads 1.5 s ahead, and the client recovers that offset
/// within its stated uncertainty; both ends capture, every handshake has
/// both views, the server keeps its own results.
#[cfg(unix)]
#[test]
#[ignore = "needs root (network namespaces, veth, AF_PACKET): scripts/test runs it as root"]
fn tls_two_hosts_through_tls_server_and_connect() {
    // SAFETY: geteuid has no preconditions.
    assert_eq!(unsafe { libc::geteuid() }, 0, "needs root; run as root");
    let hosts = TwoHosts::new("a");
    let tmp = tempfile::tempdir().unwrap();
    let (sdir, cdir) = (tmp.path().join("server"), tmp.path().join("client"));
    let shift = 1_500_000_000f64;
    let mut cmd = hosts.ango(&hosts.server_ns, false);
    cmd.args(["tls-server", "--listen", "10.199.0.1:4433", "--once"])
        .args(["--clock-shift-ns", "1500000000", "--out"])
        .arg(&sdir);
    let (server, token) = start_tls_server(cmd);
    let v = connect_records(&hosts, &token, &cdir);
    let server = server.finish();
    assert!(
        server.status.success(),
        "{}",
        String::from_utf8_lossy(&server.stderr)
    );
    assert_eq!(v.len(), 8, "2 signatures × 4 stack pairings");
    for r in &v {
        assert_eq!(
            (r["handshakes"].as_u64(), r["failures"].as_u64()),
            (Some(10), Some(0))
        );
        assert_eq!(r["link"], "two-host");
        let h = &r["two_host"];
        let (off, unc) = (
            h["clock_offset_ns"].as_f64().unwrap(),
            h["clock_offset_uncertainty_ns"].as_f64().unwrap(),
        );
        assert!(
            (off - shift).abs() <= unc,
            "offset {off} ± {unc}, shift {shift}"
        );
        assert!(unc < 5e6, "{h}");
        assert_eq!(h["server_captured"], true);
        // Both views of every handshake, on the client's clock.
        assert_eq!(r["capture"]["handshakes_timed"], 10, "{}", r["capture"]);
        let phases = r["phases_ns"].as_object().unwrap();
        assert_eq!(phases.len(), 18);
        for p in h["cross_host_phases"].as_array().unwrap() {
            let t = phases[p.as_str().unwrap()].as_f64().unwrap();
            assert!(t > -unc && t < 50e6, "{p}: {t} ns (± {unc})");
        }
        for side in ["client_pcap", "server_pcap", "keylog"] {
            let f = cdir.join(r["capture"][side].as_str().unwrap());
            assert!(std::fs::metadata(&f).unwrap().len() > 24, "{f:?}");
        }
    }
    // The server's own results: a line per combination, the server's half
    // of every timeline, its pcaps.
    let lines = std::fs::read_to_string(sdir.join("server.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 8);
    for l in lines.lines() {
        let s: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(s["timed_on_the_wire"], 10, "{s}");
        assert!(
            sdir.join(s["server_pcap"].as_str().unwrap()).exists(),
            "{s}"
        );
    }
    let tl = std::fs::read_to_string(sdir.join("server_timelines.jsonl")).unwrap();
    assert_eq!(tl.lines().count(), 80);
    let t: serde_json::Value = serde_json::from_str(tl.lines().next().unwrap()).unwrap();
    let points = t["timeline"]["points_ns"].as_object().unwrap();
    assert!(points.contains_key("client_hello_rcvd") && !points.contains_key("syn_sent"));
}

/// Without root the server serves without captures and says so, on its
/// side and in the client's notes; the client's own view stays whole;
/// Ctrl-C ends the server at once with status 130.
#[cfg(unix)]
#[test]
#[ignore = "needs root to make the namespaces (the server then runs as nobody): scripts/test runs it as root"]
fn tls_server_without_root_serves_without_captures() {
    // SAFETY: geteuid has no preconditions.
    assert_eq!(unsafe { libc::geteuid() }, 0, "needs root; run as root");
    let hosts = TwoHosts::new("b");
    let tmp = tempfile::tempdir().unwrap();
    let sdir = tmp.path().join("server");
    let cdir = tmp.path().join("client");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = hosts.ango(&hosts.server_ns, true);
    cmd.args(["tls-server", "--listen", "10.199.0.1:4433", "--out"])
        .arg(&sdir);
    let (server, token) = start_tls_server(cmd);
    let v = connect_records(&hosts, &token, &cdir);
    assert_eq!(v.len(), 8);
    for r in &v {
        assert_eq!(r["failures"], 0);
        assert_eq!(r["two_host"]["server_captured"], false);
        let phases = r["phases_ns"].as_object().unwrap();
        assert!(
            phases.contains_key("ack_syn_send_to_ack_send"),
            "{phases:?}"
        );
        assert!(
            !phases.contains_key("syn_rcv_to_ack_syn_send"),
            "{phases:?}"
        );
    }
    let events = std::fs::read_to_string(cdir.join("events.jsonl")).unwrap();
    assert!(events.contains("does not run as root"), "{events}");
    // SAFETY: a plain signal to our own child.
    unsafe { libc::kill(server.id() as i32, libc::SIGINT) };
    let t = Instant::now();
    let out = server.finish();
    assert!(t.elapsed() < Duration::from_secs(3));
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not running as root"), "{err}");
}

#[test]
fn two_host_flags_are_checked() {
    let tok = "0123456789abcdef0123456789abcdef";
    rejects(
        &["tls", "--connect", "server:4433", "--token", tok],
        "IPv4 address and port",
    );
    rejects(
        &["tls", "--connect", "[::1]:4433", "--token", tok],
        "IPv6 is not supported",
    );
    rejects(&["tls", "--token", tok], "--connect ADDR:PORT");
    rejects(
        &["tls", "--connect", "10.0.0.1:4433", "--token", "abc"],
        "32 hex digits",
    );
    rejects(
        &[
            "tls",
            "--connect",
            "10.0.0.1:4433",
            "--token",
            tok,
            "--rtt",
            "1ms",
        ],
        "--rtt",
    );
    rejects(
        &[
            "tls",
            "--connect",
            "10.0.0.1:4433",
            "--token",
            tok,
            "--loopback",
        ],
        "--loopback",
    );
    rejects(
        &[
            "tls",
            "--connect",
            "10.0.0.1:4433",
            "--key-file",
            "/nonexistent/key",
        ],
        "--key-file",
    );
    rejects(&["tls-server"], "--listen");
    rejects(&["tls-server", "--listen", "4433"], "0.0.0.0:4433");
    rejects(
        &["tls-server", "--listen", "192.0.2.77:4433"],
        "address of this host",
    );
    rejects(
        &[
            "tls-server",
            "--listen",
            "127.0.0.1:0",
            "--pcap-handshakes",
            "x",
        ],
        "or all",
    );
    // Without the secret in the environment either.
    let a = ango()
        .env_remove("ANGO_TLS_TOKEN")
        .args(["tls", "--connect", "10.0.0.1:4433"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("--token HEX") && err.contains("--key-file"),
        "{err}"
    );
}

/// A client with the wrong token is refused (exit 2) and the server goes on
/// serving; no root needed (loopback, no captures).
#[test]
fn tls_server_refuses_a_wrong_token_and_serves_the_right_one() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ango"));
    cmd.args([
        "tls-server",
        "--listen",
        "127.0.0.1:0",
        "--once",
        "--no-capture",
        "--out",
    ])
    .arg(tmp.path().join("server"));
    let (server, token) = start_tls_server_at(cmd);
    let (child, token, addr) = (server.0, token, server.1);
    let wrong = "ffffffffffffffffffffffffffffffff";
    let a = ango()
        .args(["tls", "--connect", &addr, "--token", wrong, "--quick"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&a.stderr).to_string();
    assert_eq!(a.status.code(), Some(2), "{err}");
    assert!(err.contains("does not hold this token"), "{err}");
    ango()
        .args([
            "tls",
            "--connect",
            &addr,
            "--token",
            &token,
            "--handshakes",
            "3",
        ])
        .args([
            "--groups",
            "x25519",
            "--server-sig",
            "p-256",
            "--ca-sig",
            "p-256",
        ])
        .args(["--no-capture", "--format", "json"])
        .assert()
        .success();
    let out = child.finish();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rejected a control connection"), "{err}");
    assert!(
        err.contains("1 sessions, 1 combinations, 1 unauthenticated"),
        "{err}"
    );
}

/// Seed 003's MAYO/CROSS/UOV server certificates run rustls to rustls with
/// liboqs; OpenSSL-only requests and SNOVA say why not.
#[test]
fn tls_runs_oqs_signatures_through_rustls_and_says_why_not_elsewhere() {
    let a = ango()
        .args(["tls", "--loopback", "--no-capture", "--handshakes", "3"])
        .args([
            "--groups",
            "x25519",
            "--server-sig",
            "mayo-1,ov-ip-pkc,ov-is",
        ])
        .args([
            "--ca-sig",
            "p-256",
            "--client-stack",
            "rustls",
            "--server-stack",
            "rustls",
        ])
        .args(["--format", "json"])
        .assert()
        .success();
    let o = a.get_output();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.len(), 2, "ov-is is skipped");
    for r in &v {
        assert_eq!(r["failures"], 0, "{r}");
        assert_eq!(r["server_stack"], "rustls");
    }
    // The UOV key is in the certificate: tens of KB.
    assert!(
        v[1]["server_cert_bytes"].as_u64().unwrap() > 40_000,
        "{}",
        v[1]
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("MAX_HANDSHAKE_SIZE"), "{err}");
    rejects(
        &["tls", "--loopback", "--server-sig", "snova-24-5-4"],
        "liboqs 0.14",
    );
    rejects(
        &["tls", "--loopback", "--server-sig", "mayo-1"],
        "OpenSSL 3.5 has no mayo-1",
    );
}
