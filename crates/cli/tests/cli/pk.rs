//! The public-key study: timed calls, samples and untimed operations.

use crate::common::*;

#[test]
fn pk_times_every_call_and_keeps_the_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pk");
    let a = ango()
        .args([
            "pk",
            "--algo",
            "x25519,ml-kem-768,ml-dsa-44,p-256",
            "--backend",
            "openssl,rustcrypto",
            "--iterations",
            "20",
            "--message-bytes",
            "100",
            "--format",
            "json",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let v: Vec<ango_core::PkRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    // 4 algorithms × 2 backends × 3 operations × 2 timings.
    assert_eq!(v.len(), 48, "{}", v.len());
    for t in ["operation", "api-call"] {
        assert_eq!(v.iter().filter(|r| r.timing == t).count(), 24, "{t}");
    }
    // OpenSSL's prepared calls hoist the per-call context; RustCrypto has
    // none to hoist and says so.
    let op = |b: &str| {
        v.iter()
            .find(|r| r.backend == b && r.timing == "operation")
            .unwrap()
    };
    assert!(op("openssl")
        .method
        .contains("made before the clock and reused"));
    assert!(op("rustcrypto")
        .method
        .contains("no per-call set-up to hoist"));
    for r in &v {
        assert_eq!((r.iterations, r.dropped), (20, 1), "{}", r.algorithm);
        assert!(
            r.stats.min <= r.stats.q1
                && r.stats.q1 <= r.stats.median
                && r.stats.median <= r.stats.q3
        );
        assert!(
            r.stats.q3 <= r.stats.p95 && r.stats.p95 <= r.stats.p99 && r.stats.p99 <= r.stats.max
        );
        assert!(
            r.verify.starts_with("pass"),
            "{}: {}",
            r.algorithm,
            r.verify
        );
        let sign = matches!(r.operation.as_str(), "sign" | "verify");
        assert_eq!(r.message_bytes, sign.then_some(100));
    }
    let enc = v
        .iter()
        .find(|r| r.algorithm == "x25519" && r.operation == "encaps")
        .unwrap();
    assert!(enc.note.as_deref().unwrap().contains("ephemeral key pair"));
    let kem = v
        .iter()
        .find(|r| r.algorithm == "ml-kem-768" && r.backend == "openssl")
        .unwrap();
    let size = |o: &str, e: &str| {
        kem.sizes
            .iter()
            .find(|s| s.object == o && s.encoding == e)
            .map(|s| s.bytes)
    };
    assert_eq!(size("public_key", "raw"), Some(1184));
    assert_eq!(size("ciphertext", "raw"), Some(1088));
    assert_eq!(size("secret_key", "raw"), Some(2400));
    let p256 = v.iter().find(|r| r.algorithm == "p-256").unwrap();
    assert!(p256
        .sizes
        .iter()
        .any(|s| s.object == "public_key" && s.encoding == "spki-der" && s.bytes == 91));
    // Every kept call is in pk-samples.jsonl, and the records are in
    // results.jsonl.
    let samples = std::fs::read_to_string(dir.join("pk-samples.jsonl")).unwrap();
    let lines: Vec<ango_core::PkSamples> = samples
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 48);
    assert!(lines.iter().all(|s| s.sample_ns.len() == 20));
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 48);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("The primitives (seed 003")
            && html.contains("Table 7")
            && html.contains("<svg")
    );
    // The report rebuilds from the directory alone.
    std::fs::remove_file(dir.join("report.html")).unwrap();
    ango().arg("report").arg(&dir).assert().success();
    assert!(std::fs::read_to_string(dir.join("report.html"))
        .unwrap()
        .contains("The primitives (seed 003"));
}

#[test]
fn untimed_operations_are_said_and_never_timed() {
    let a = ango()
        .args([
            "pk",
            "--algo",
            "x25519,rsa-2048",
            "--backend",
            "ring",
            "--iterations",
            "5",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: Vec<ango_core::PkRecord> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let ops: Vec<(&str, &str)> = v
        .iter()
        .filter(|r| r.timing == "operation")
        .map(|r| (r.algorithm.as_str(), r.operation.as_str()))
        .collect();
    assert_eq!(
        ops,
        vec![
            ("x25519", "keygen"),
            ("x25519", "encaps"),
            ("rsa-2048", "verify")
        ]
    );
    let rsa = v.iter().find(|r| r.algorithm == "rsa-2048").unwrap();
    assert!(
        rsa.method.contains("were made by openssl") && rsa.verify.contains("made by openssl"),
        "{} / {}",
        rsa.method,
        rsa.verify
    );
    let err = flat(&String::from_utf8_lossy(&a.get_output().stderr));
    assert!(
        err.contains("skip ring x25519: decaps not timed: ")
            && err.contains("skip ring rsa-2048: keygen, sign not timed: "),
        "{err}"
    );
    let list = ango().arg("list").assert().success();
    let out = String::from_utf8_lossy(&list.get_output().stdout).to_string();
    // The row and the lines its last column wraps onto.
    let mut rows = out
        .lines()
        .skip_while(|l| !(l.starts_with("x25519 ") && l.contains(" ring ")));
    let first = rows.next().unwrap();
    let line = flat(
        &std::iter::once(first)
            .chain(rows.take_while(|l| l.starts_with(' ')))
            .collect::<Vec<_>>()
            .join(" "),
    );
    assert!(
        line.contains("available") && line.contains("decaps not timed"),
        "{line}"
    );
}

#[test]
fn schema_doc_matches_the_pk_record() {
    let a = ango()
        .args([
            "pk",
            "--algo",
            "x25519",
            "--backend",
            "openssl",
            "--iterations",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_documented("Public-key record fields", &v[0]);
}

/// `--memory` adds a `pk-memory` record per (algorithm, library,
/// operation) with integer peaks and medians, beside the timed ones; the
/// report has its section and chart.
#[test]
fn pk_memory_records_the_peak_stack_and_heap_of_each_operation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mem");
    let a = ango()
        .args([
            "pk",
            "--algo",
            "ml-kem-768,ed25519",
            "--backend",
            "rustcrypto,openssl",
            "--iterations",
            "5",
            "--memory",
            "--memory-calls",
            "4",
            "--format",
            "json",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let mem: Vec<ango_core::PkMemoryRecord> = v
        .iter()
        .filter(|r| r["suite"] == "pk-memory")
        .map(|r| serde_json::from_value(r.clone()).unwrap())
        .collect();
    // 2 algorithms × 2 libraries × 3 operations.
    assert_eq!(mem.len(), 12, "{mem:?}");
    for r in &mem {
        let what = format!("{} {} {}", r.algorithm, r.backend, r.operation);
        assert_eq!((r.calls, r.warmup), (4, 3), "{what}");
        // Every call needs some stack beyond the measuring frames, and
        // none of these needs a megabyte.
        assert!(
            r.peak_stack_bytes > r.stack_floor_bytes && r.peak_stack_bytes < 1 << 20,
            "{what}: {r:?}"
        );
        assert!(r.peak_stack_bytes_median <= r.peak_stack_bytes, "{what}");
        assert!(r.peak_heap_bytes_median <= r.peak_heap_bytes, "{what}");
        assert!(r.allocations_median <= r.allocations, "{what}");
        assert!(
            !r.sizes.is_empty() && r.method.contains("painted"),
            "{what}"
        );
        assert!(r.method.contains("LD_BIND_NOW=1"), "{what}: {}", r.method);
    }
    // OpenSSL allocates its contexts and outputs on the heap: it is seen.
    assert!(mem
        .iter()
        .any(|r| r.backend == "openssl" && r.allocations > 0 && r.peak_heap_bytes > 0));
    // The fields are integers in the file, as docs/schema.md says.
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(
        lines
            .lines()
            .find(|l| l.contains("\"suite\":\"pk-memory\""))
            .unwrap(),
    )
    .unwrap();
    for f in [
        "peak_stack_bytes",
        "peak_heap_bytes",
        "allocations",
        "peak_stack_bytes_median",
        "peak_heap_bytes_median",
        "allocations_median",
    ] {
        assert!(first[f].is_u64(), "{f}: {}", first[f]);
    }
    assert_documented("Public-key memory record fields", &first);
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("id=\"s003-pk-memory\""), "no memory section");
    assert!(page.contains("Time against peak memory of one call"));
}
