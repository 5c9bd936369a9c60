//! Presenting the public-key study: seed 003's tables (mean, SD, quartiles
//! and robust CV in milliseconds, one table per operation), the full
//! statistics, the sizes table, findings, and the distribution chart.

use crate::anchor;
use crate::svg::escape;
use crate::table::{cell, Cell, Table};
use ango_core::RecordKey;
use ango_core::{Finding, PkAlgorithm, PkRecord, PkSamples, Verdict};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A round duration as an axis labels it: "10 ms", "100 µs", "1 s".
pub fn axis_ns(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let t = format!("{v:.3}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    format!("{t} {unit}")
}

/// A duration in the unit that suits it.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn order(r: &PkRecord) -> (usize, String, usize) {
    let a = PkAlgorithm::parse(&r.algorithm)
        .ok()
        .and_then(|a| PkAlgorithm::ALL.iter().position(|x| *x == a))
        .unwrap_or(usize::MAX);
    let op = ["keygen", "encaps", "decaps", "sign", "verify"]
        .iter()
        .position(|o| *o == r.operation)
        .unwrap_or(9);
    (a, r.who(), op)
}

/// The records tables show: those timed `operation` when there are any
/// (records written before `timing` existed are all `api-call`).
pub fn shown(records: &[PkRecord]) -> Vec<PkRecord> {
    let op: Vec<PkRecord> = records
        .iter()
        .filter(|r| r.timing == "operation")
        .cloned()
        .collect();
    if op.is_empty() {
        records.to_vec()
    } else {
        op
    }
}

/// What the two timings mean, for the terminal and the report.
pub const TIMING_NOTE: &str = "Each operation is timed two ways. operation: contexts, fetched \
algorithms and parsed keys are made before the clock and reused, and only the operation is timed \
(as openssl speed and liboqs' speed_kem do). api-call: each call sets up for itself (OpenSSL: a \
new EVP_PKEY_CTX with its implicit algorithm fetch, the public key exported after key generation) \
as a program that sets up per call pays. Tables show operation; the last table compares the two. \
Which one is used can decide a comparison such as seed 003's 'ML-KEM is faster than X25519'.";

/// Operation against api-call per (algorithm, operation, backend): both
/// medians and the api-call overhead; None unless both were measured.
pub fn timing_table(records: &[PkRecord]) -> Option<Table> {
    let mut rows = Vec::new();
    for r in sorted(records)
        .into_iter()
        .filter(|r| r.timing == "operation")
    {
        let Some(api) = records.iter().find(|x| {
            x.timing == "api-call"
                && x.algorithm == r.algorithm
                && x.operation == r.operation
                && x.who() == r.who()
        }) else {
            continue;
        };
        rows.push(vec![
            cell(label(r), ""),
            cell(&r.operation, ""),
            cell(fmt_ns(r.stats.median), "n"),
            cell(fmt_ns(api.stats.median), "n"),
            cell(format!("{:.2}×", api.stats.median / r.stats.median), "n"),
        ]);
    }
    (!rows.is_empty()).then(|| {
        Table::new(
            "Operation against api-call timing (medians)",
            &[
                "algorithm [backend]",
                "op",
                "operation",
                "api-call",
                "api ÷ op",
            ],
            rows,
        )
    })
}

fn sorted(records: &[PkRecord]) -> Vec<&PkRecord> {
    let mut v: Vec<&PkRecord> = records.iter().collect();
    v.sort_by_key(|r| order(r));
    v
}

fn label(r: &PkRecord) -> String {
    point_label(&r.algorithm, &r.who())
}

/// How tables name a point: the algorithm as seed 003 writes it and who
/// ran it (`ML-KEM-768 [libcrux[avx2]]`).
pub(crate) fn point_label(algorithm: &str, who: &str) -> String {
    let l = PkAlgorithm::parse(algorithm)
        .map(|a| a.label().to_string())
        .unwrap_or_else(|_| algorithm.to_string());
    format!("{l} [{who}]")
}

/// Seed 003's tables of public-key operations: (kind, operation, title).
pub(crate) const SEED_OPS: &[(&str, &str, &str)] = &[
    ("kem", "keygen", "KEM key generation (seed 003 Table 2)"),
    ("kem", "encaps", "Encapsulation (seed 003 Table 3)"),
    ("kem", "decaps", "Decapsulation (seed 003 Table 4)"),
    (
        "sig",
        "keygen",
        "Signature key generation (seed 003 Table 6)",
    ),
    ("sig", "sign", "Signing (seed 003 Table 7)"),
    ("sig", "verify", "Verification (seed 003 Table 8)"),
];

/// Seed 003's layout: one table per operation, times in milliseconds.
pub fn seed_tables(records: &[PkRecord]) -> Vec<Table> {
    let mut out = Vec::new();
    for (kind, op, title) in SEED_OPS {
        let rows: Vec<Vec<Cell>> = sorted(records)
            .into_iter()
            .filter(|r| r.kind == *kind && r.operation == *op)
            .map(|r| {
                let mut v = vec![cell(label(r), "")];
                v.extend(
                    [
                        r.stats.mean,
                        r.stats.sd,
                        r.stats.q1,
                        r.stats.median,
                        r.stats.q3,
                    ]
                    .iter()
                    .map(|x| cell(format!("{:.6}", x / 1e6), "n")),
                );
                v.push(cell(format!("{:.2}%", r.stats.robust_cv * 100.0), "n"));
                v
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push(Table::new(
            format!("{title}, ms"),
            &[
                "algorithm [backend]",
                "mean",
                "SD",
                "Q1",
                "median",
                "Q3",
                "robust CV",
            ],
            rows,
        ));
    }
    out
}

/// Every statistic, one row per point (times in µs).
pub fn full_table(records: &[PkRecord]) -> Table {
    let rows = sorted(records)
        .into_iter()
        .map(|r| {
            let mut v = vec![
                cell(label(r), ""),
                cell(
                    format!(
                        "{}{}",
                        r.operation,
                        if r.warnings.is_empty() {
                            ""
                        } else {
                            " (cut short)"
                        }
                    ),
                    "",
                ),
                cell(r.iterations.to_string(), "n"),
            ];
            v.extend(
                [
                    r.stats.mean,
                    r.stats.sd,
                    r.stats.min,
                    r.stats.q1,
                    r.stats.median,
                    r.stats.q3,
                    r.stats.p95,
                    r.stats.p99,
                    r.stats.max,
                ]
                .iter()
                .map(|x| cell(format!("{:.2}", x / 1e3), "n")),
            );
            v.push(cell(format!("{:.1}%", r.stats.robust_cv * 100.0), "n"));
            v
        })
        .collect();
    Table::new(
        "µs per call",
        &[
            "algorithm [backend]",
            "op",
            "n",
            "mean",
            "SD",
            "min",
            "Q1",
            "median",
            "Q3",
            "p95",
            "p99",
            "max",
            "rCV",
        ],
        rows,
    )
}

/// The sizes of each (algorithm, backend): seed 003 Tables 1, 5 and 16.
pub fn sizes_table(records: &[PkRecord]) -> Table {
    let mut seen: BTreeMap<(usize, String, String), &PkRecord> = BTreeMap::new();
    for r in records {
        let (a, b, _) = order(r);
        seen.entry((a, b, r.algorithm.clone())).or_insert(r);
    }
    let rows = seen
        .values()
        .map(|r| {
            let sizes: Vec<String> = r
                .sizes
                .iter()
                .map(|s| {
                    format!(
                        "{} {} [{}]",
                        s.object.replace('_', " "),
                        s.bytes,
                        s.encoding
                    )
                })
                .collect();
            vec![label(r), sizes.join(", ")]
        })
        .collect();
    Table::labels(
        "Sizes in bytes (encoding in brackets)",
        &["algorithm [backend]", "sizes"],
        rows,
    )
}

/// Every table of the terminal and of Markdown: seed 003's, every
/// statistic, sizes, and operation against api-call timing.
fn tables(all: &[PkRecord]) -> Vec<Table> {
    let records = &shown(all);
    let mut v = seed_tables(records);
    v.push(full_table(records));
    v.push(sizes_table(records));
    v.extend(timing_table(all));
    v
}

const CSV_FIELDS: &[&str] = &[
    "run_id",
    "suite",
    "algorithm",
    "kind",
    "operation",
    "timing",
    "backend",
    "variant",
    "implementation",
    "iterations",
    "dropped",
    "message_bytes",
    "mean_ns",
    "sd_ns",
    "min_ns",
    "q1_ns",
    "median_ns",
    "q3_ns",
    "p95_ns",
    "p99_ns",
    "max_ns",
    "robust_cv",
    "ci95_low_ns",
    "ci95_high_ns",
    "cycles_per_op",
    "cycle_source",
    "verify",
];

pub fn csv(records: &[PkRecord]) -> String {
    let mut out = CSV_FIELDS.join(",");
    out.push_str(",sizes\n");
    for r in sorted(records) {
        let v = serde_json::to_value(r).expect("record serialises");
        let mut line: Vec<String> = CSV_FIELDS
            .iter()
            .map(|f| match &v[*f] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) if s.contains(',') => format!("\"{s}\""),
                serde_json::Value::String(s) => s.clone(),
                o => o.to_string(),
            })
            .collect();
        let sizes: Vec<String> = r
            .sizes
            .iter()
            .map(|s| format!("{}:{}={}", s.object, s.encoding, s.bytes))
            .collect();
        line.push(sizes.join(";"));
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

pub fn markdown(all: &[PkRecord]) -> String {
    tables(all)
        .iter()
        .map(Table::md)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The terminal tables: seed 003's, every statistic, sizes, and operation
/// against api-call timing.
pub fn table(all: &[PkRecord]) -> String {
    tables(all)
        .iter()
        .map(Table::text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn find<'a>(records: &'a [PkRecord], algo: &str, op: &str, backend: &str) -> Option<&'a PkRecord> {
    records
        .iter()
        .find(|r| r.algorithm == algo && r.operation == op && r.who() == backend)
}

/// Seed 003's findings, checked against these records (per backend), on
/// the `operation` timing when it was measured.
pub fn findings(all: &[PkRecord]) -> Vec<Finding> {
    use crate::findings::above;
    use ango_core::{PkAlgorithm as A, PkOp as O, Timing};
    use ango_harness::stats::ratio_interval;
    let family = |r: &PkRecord| A::parse(&r.algorithm).ok().map(A::family);
    let records = &shown(all);
    let t = |r: &PkRecord| (r.stats.median, r.stats.ci95_low, r.stats.ci95_high);
    // The same ratio with api-call timing, when it was measured too.
    let api = |algo: &str, op: &str, b: &str| {
        all.iter().find(|r| {
            r.timing == Timing::ApiCall.name()
                && r.algorithm == algo
                && r.operation == op
                && r.who() == b
        })
    };
    let mut out = Vec::new();
    let mut backends: Vec<String> = records.iter().map(|r| r.who()).collect();
    backends.sort();
    backends.dedup();
    for b in &backends {
        let b = b.as_str();
        let first = out.len();
        for op in [O::Keygen.name(), O::Encaps.name()] {
            let Some(x) = find(records, A::X25519.name(), op, b) else {
                continue;
            };
            for m in A::ALL
                .iter()
                .filter(|a| a.family() == A::MlKem768.family())
                .filter_map(|k| find(records, k.name(), op, b))
            {
                let r = ratio_interval(t(x), t(m));
                let other = match (api(A::X25519.name(), op, b), api(&m.algorithm, op, b)) {
                    (Some(xa), Some(ma)) if x.timing == Timing::Operation.name() => {
                        let ra = ratio_interval(t(xa), t(ma));
                        format!(
                            " With api-call timing the ratio is {:.2} ({:.2}–{:.2}){}.",
                            ra.0,
                            ra.1,
                            ra.2,
                            if above(ra, 1.0) == above(r, 1.0) {
                                ""
                            } else {
                                ": the verdict depends on the timing"
                            }
                        )
                    }
                    _ => String::new(),
                };
                out.push(
                    Finding::new(
                        "pk",
                        "003",
                        "§4-1",
                        format!(
                            "{} {op} is faster than {}'s",
                            m.algorithm,
                            A::X25519.label()
                        ),
                    )
                    .id("mlkem-vs-x25519", &[&m.algorithm, op, b])
                    .anchor(&anchor::pk_op("kem", op))
                    .from([x.key(), m.key()])
                    .value(r.0, "×")
                    .interval(r.1, r.2)
                    .verdict(above(r, 1.0))
                    .explain(format!(
                        "{b}, timing {}: {}'s median ÷ {}'s = {} ÷ {}.{other}",
                        m.timing,
                        A::X25519.label(),
                        m.algorithm,
                        fmt_ns(x.stats.median),
                        fmt_ns(m.stats.median)
                    )),
                );
            }
        }
        let cv = |a: &str, op: &str| find(records, a, op, b).map(|r| r.stats.robust_cv);
        let keygen = O::Keygen.name();
        if let (Some(r2), Some(r3)) = (cv(A::Rsa2048.name(), keygen), cv(A::Rsa3072.name(), keygen))
        {
            let others: Vec<f64> = records
                .iter()
                .filter(|r| {
                    r.who() == b && r.operation == keygen && family(r) != Some(A::Rsa2048.family())
                })
                .map(|r| r.stats.robust_cv)
                .collect();
            if let Some(max_other) = others.iter().cloned().reduce(f64::max) {
                let ratio = r2.min(r3) / max_other;
                out.push(
                    Finding::new(
                        "pk",
                        "003",
                        "§4-2",
                        "RSA key generation varies far more than any other key generation (held here if its robust CV is over 3× the largest other)",
                    )
                    .id("rsa-keygen-spread", &[b])
                    .anchor(&anchor::pk_op("sig", keygen))
                    .from(
                        records
                            .iter()
                            .filter(|r| r.who() == b && r.operation == keygen)
                            .map(|r| r.key()),
                    )
                    .value(ratio, "×")
                    .verdict(if ratio > 3.0 {
                        Verdict::Holds
                    } else {
                        Verdict::DoesNotHold
                    })
                    .explain(format!(
                        "{b}: robust CV {:.1}% ({}) and {:.1}% ({}); the largest of the other algorithms' key generation is {:.1}%.",
                        r2 * 100.0,
                        A::Rsa2048.label(),
                        r3 * 100.0,
                        A::Rsa3072.label(),
                        max_other * 100.0
                    )),
                );
            }
        }
        if let (Some(s), Some(v)) = (
            find(records, A::MlDsa44.name(), O::Sign.name(), b),
            find(records, A::MlDsa44.name(), O::Verify.name(), b),
        ) {
            let tail = |r: &PkRecord| r.stats.p99 / r.stats.median;
            let heavier = tail(s) > tail(v) && s.stats.robust_cv > v.stats.robust_cv;
            out.push(
                Finding::new(
                    "pk",
                    "003",
                    "§4-2",
                    "ML-DSA-44 signing has a longer upper tail than verification (rejection sampling)",
                )
                .id("mldsa-sign-tail", &[b])
                .anchor(anchor::PK_ALL)
                .from([s.key(), v.key()])
                .value(tail(s) / tail(v), "× (p99 ÷ median, sign over verify)")
                .verdict(if heavier {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "{b}: signing p99 ÷ median {:.2}, robust CV {:.1}%; verification p99 ÷ median {:.2}, robust CV {:.1}%.",
                    tail(s),
                    s.stats.robust_cv * 100.0,
                    tail(v),
                    v.stats.robust_cv * 100.0
                )),
            );
        }
        // Each claim is about one backend's figures.
        for f in &mut out[first..] {
            f.claim = format!("[{b}] {}", f.claim);
        }
    }
    out.extend(kem_sizes(records));
    out
}

/// Seed 003 §4-1 after Table 1: ML-KEM's public key, secret key and
/// ciphertext are 20 times X25519's or more. Raw encodings, from the first
/// library (in table order) that has X25519 and every ML-KEM measured.
fn kem_sizes(records: &[PkRecord]) -> Option<Finding> {
    use ango_core::PkAlgorithm as A;
    let raw = |r: &PkRecord, object: &str| {
        r.sizes
            .iter()
            .find(|s| s.object == object && s.encoding == "raw")
            .or_else(|| r.sizes.iter().find(|s| s.object == object))
            .map(|s| s.bytes)
    };
    let x = records.iter().find(|r| r.algorithm == A::X25519.name())?;
    let objects = ["public_key", "secret_key", "ciphertext"];
    let mut ratios: Vec<(f64, String, &PkRecord)> = Vec::new();
    for k in [A::MlKem512, A::MlKem768, A::MlKem1024] {
        let Some(m) = records
            .iter()
            .find(|r| r.algorithm == k.name() && r.backend == x.backend)
            .or_else(|| records.iter().find(|r| r.algorithm == k.name()))
        else {
            continue;
        };
        for o in objects {
            if let (Some(a), Some(b)) = (raw(m, o), raw(x, o)) {
                ratios.push((
                    a as f64 / b as f64,
                    format!("{} {o} {a} B against X25519's {b} B", k.label()),
                    m,
                ));
            }
        }
    }
    let (least, what, m) = ratios
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(r, w, m)| (*r, w.clone(), *m))?;
    Some(
        Finding::new(
            "pk",
            "003",
            "§4-1",
            "ML-KEM's public key, secret key and ciphertext are 20 times X25519's or more",
        )
        .id("kem-sizes", &[])
        .anchor(&anchor::pk_op("kem", "keygen"))
        .from([x.key(), m.key()])
        .value(least, "×")
        .verdict(if least >= 20.0 {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        })
        .explain(format!(
            "The smallest of {} ratios (ML-KEM-512, -768 and -1024 over X25519, raw encodings, \
             {}'s keys): {what}.",
            ratios.len(),
            x.backend
        )),
    )
}

/// Seed 003's Tables 1 and 5 (and 16): the sizes of keys, ciphertexts,
/// shared secrets and signatures of each algorithm, from the real
/// encodings of one library's keys (raw where there is one).
pub fn seed_size_tables(records: &[PkRecord]) -> Vec<Table> {
    let size = |r: &PkRecord, object: &str| {
        let pick = |enc: &str| {
            r.sizes
                .iter()
                .find(|s| s.object == object && s.encoding == enc)
                .map(|s| s.bytes)
        };
        pick("raw")
            .or_else(|| pick("seed"))
            .or_else(|| r.sizes.iter().find(|s| s.object == object).map(|s| s.bytes))
            .map_or_else(|| "-".to_string(), |b| b.to_string())
    };
    let mut out = Vec::new();
    for (kind, title, cols) in [
        (
            "kem",
            "Seed 003's Table 1: public key, secret key, ciphertext and shared secret, bytes",
            &["public_key", "secret_key", "ciphertext", "shared_secret"][..],
        ),
        (
            "sig",
            "Seed 003's Tables 5 and 16: verification key, signing key and signature, bytes",
            &["public_key", "secret_key", "signature"][..],
        ),
    ] {
        let mut seen: Vec<&str> = Vec::new();
        let mut rows = Vec::new();
        for r in sorted(records).into_iter().filter(|r| r.kind == kind) {
            if seen.contains(&r.algorithm.as_str()) {
                continue;
            }
            seen.push(&r.algorithm);
            let l = PkAlgorithm::parse(&r.algorithm)
                .map(|a| a.label().to_string())
                .unwrap_or_else(|_| r.algorithm.clone());
            let mut row = vec![cell(l, "")];
            row.extend(cols.iter().map(|c| cell(size(r, c), "n")));
            row.push(cell(r.who(), ""));
            rows.push(row);
        }
        if rows.is_empty() {
            continue;
        }
        let mut head = vec!["algorithm"];
        head.extend(cols.iter().map(|c| match *c {
            "public_key" if kind == "sig" => "verification key",
            "secret_key" if kind == "sig" => "signing key",
            c => c,
        }));
        head.push("as encoded by");
        let head: Vec<String> = head.iter().map(|h| h.replace('_', " ")).collect();
        out.push(Table {
            title: title.into(),
            head,
            rows,
            ..Table::default()
        });
    }
    out
}

/// Seed 003's Table 17: the mean time of key generation, signing and
/// verification of every signature, ms.
pub fn seed_table17(records: &[PkRecord]) -> Option<Table> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for r in sorted(records).into_iter().filter(|r| r.kind == "sig") {
        let k = (r.algorithm.clone(), r.who());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let rows: Vec<Vec<Cell>> = keys
        .iter()
        .map(|(a, b)| {
            let mean = |op: &str| {
                find(records, a, op, b)
                    .map_or("-".to_string(), |r| format!("{:.6}", r.stats.mean / 1e6))
            };
            let l = PkAlgorithm::parse(a)
                .map(|x| x.label().to_string())
                .unwrap_or_else(|_| a.clone());
            vec![
                cell(format!("{l} [{b}]"), ""),
                cell(mean("keygen"), "n"),
                cell(mean("sign"), "n"),
                cell(mean("verify"), "n"),
            ]
        })
        .collect();
    (!rows.is_empty()).then(|| {
        Table::new(
            "Seed 003's Table 17: mean time of key generation, signing and verification, ms",
            &[
                "algorithm [backend]",
                "key generation",
                "signing",
                "verification",
            ],
            rows,
        )
    })
}

/// The public-key study's part of seed 003's section: seed 003's Tables
/// 1–8 and 16–17, each operation's distribution (its figures 1–7), every
/// statistic and operation against api-call timing (folded).
pub fn html_section(all: &[PkRecord], samples: &[PkSamples]) -> String {
    if all.is_empty() {
        return String::new();
    }
    let records = &shown(all);
    let mut out = String::from("<h3 id=\"s003-pk\">The primitives (seed 003 §4-1, §4-2)</h3>");
    if all.iter().any(|r| r.timing == "operation") {
        let _ = write!(out, "<p>{}</p>", escape(TIMING_NOTE));
    }
    if let Some(n) = records.iter().find_map(|r| r.note.as_ref()) {
        let _ = write!(out, "<p>{}</p>", escape(n));
    }
    if let Some(r) = records.iter().find(|r| r.message_bytes.is_some()) {
        let _ = write!(out, "<p>Method: {}.</p>", escape(&r.method));
    }
    let sizes = seed_size_tables(records);
    let tables = seed_tables(records);
    // The seed's order: Table 1, Tables 2-4, Table 5, Tables 6-8.
    let (kem, sig): (Vec<&Table>, Vec<&Table>) = tables
        .iter()
        .partition(|t| t.title.contains("KEM") || t.title.contains("apsulation"));
    for t in sizes.iter().filter(|t| t.title.contains("Table 1:")) {
        let _ = write!(out, "<div class=\"scroll\">{}</div>", t.html());
    }
    for t in kem
        .iter()
        .chain(
            sizes
                .iter()
                .filter(|t| !t.title.contains("Table 1:"))
                .collect::<Vec<_>>()
                .iter(),
        )
        .chain(sig.iter())
    {
        let id = SEED_OPS
            .iter()
            .find(|(_, _, title)| t.title.starts_with(title))
            .map(|(k, o, _)| anchor::pk_op(k, o));
        let _ = write!(
            out,
            "<div{} class=\"scroll\">{}</div>",
            id.map(|i| format!(" id=\"{i}\"")).unwrap_or_default(),
            t.html()
        );
    }
    if let Some(t) = seed_table17(records) {
        let _ = write!(out, "<div class=\"scroll\">{}</div>", t.html());
    }
    let _ = write!(
        out,
        "<details id=\"{}\" class=\"charts\"><summary>Distributions of each operation's calls \
         (seed 003's figures 1–7)</summary>",
        anchor::PK_ALL
    );
    for (kind, op, title) in SEED_OPS {
        let rows: Vec<(&PkRecord, &PkSamples)> = sorted(records)
            .into_iter()
            .filter(|r| r.kind == *kind && r.operation == *op)
            .filter_map(|r| {
                samples
                    .iter()
                    .find(|s| {
                        s.run_id == r.head.run_id
                            && s.algorithm == r.algorithm
                            && s.operation == r.operation
                            && s.timing == r.timing
                            && s.who() == r.who()
                    })
                    .map(|s| (r, s))
            })
            .collect();
        let n = rows.len().div_ceil(crate::figure::MAX_SERIES);
        for (i, chunk) in rows.chunks(crate::figure::MAX_SERIES).enumerate() {
            let svg = distribution_svg(
                &if n > 1 {
                    format!("{title} ({}/{n})", i + 1)
                } else {
                    title.to_string()
                },
                chunk,
            );
            if svg.is_empty() {
                continue;
            }
            let view = Table::new(
                "",
                &["algorithm [backend]", "calls", "Q1", "median", "Q3", "p99"],
                chunk
                    .iter()
                    .map(|(r, s)| {
                        vec![
                            cell(label(r), ""),
                            cell(s.sample_ns.len().to_string(), "n"),
                            cell(fmt_ns(r.stats.q1), "n"),
                            cell(fmt_ns(r.stats.median), "n"),
                            cell(fmt_ns(r.stats.q3), "n"),
                            cell(fmt_ns(r.stats.p99), "n"),
                        ]
                    })
                    .collect(),
            );
            out.push_str(&crate::figure::figure(
                None,
                &svg,
                chunk.len(),
                &format!(
                    "{}: a histogram of each implementation's calls on a log time axis, its \
                     median marked{}.",
                    escape(title),
                    if n > 1 {
                        format!(" (part {} of {n})", i + 1)
                    } else {
                        String::new()
                    }
                ),
                &view,
            ));
        }
    }
    out.push_str("</details>");
    let _ = write!(
        out,
        "<details><summary>Every statistic of every point, and operation against api-call \
         timing</summary><div class=\"scroll\">{}</div>{}</details>",
        full_table(records).html(),
        timing_table(all).map_or(String::new(), |t| format!(
            "<div class=\"scroll\">{}</div>",
            t.html()
        ))
    );
    out
}

/// A distribution chart of one operation: a row per (algorithm, backend),
/// each a histogram of its calls on a log time axis (the algorithms' times
/// differ by orders of magnitude), with the median marked.
pub fn distribution_svg(title: &str, rows: &[(&PkRecord, &PkSamples)]) -> String {
    let row_h = 34.0;
    let left = 260.0;
    let width = 940.0;
    let plot_w = width - left - 30.0;
    let top = 40.0;
    let height = top + row_h * rows.len() as f64 + 50.0;
    let all: Vec<f64> = rows
        .iter()
        .flat_map(|(_, s)| s.sample_ns.iter().copied())
        .filter(|x| *x > 0.0)
        .collect();
    if all.is_empty() {
        return String::new();
    }
    let lo = all
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let hi = all
        .iter()
        .cloned()
        .fold(0.0, f64::max)
        .log10()
        .ceil()
        .max(lo + 1.0);
    let x = |ns: f64| left + (ns.max(1.0).log10() - lo) / (hi - lo) * plot_w;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="20" font-size="14" font-weight="bold">{}</text>"#,
        left,
        escape(title)
    );
    // Decades.
    let mut d = lo;
    while d <= hi + 1e-9 {
        let xx = left + (d - lo) / (hi - lo) * plot_w;
        let _ = write!(
            s,
            r##"<line x1="{xx:.1}" y1="{top}" x2="{xx:.1}" y2="{:.1}" stroke="#ddd"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            height - 40.0,
            height - 25.0,
            escape(&axis_ns(10f64.powf(d)))
        );
        d += 1.0;
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time per call (log scale); bars: histogram of the calls, line: median</text>"#,
        left + plot_w / 2.0,
        height - 8.0
    );
    let bins = 60usize;
    for (i, (r, smp)) in rows.iter().enumerate() {
        let y0 = top + row_h * i as f64;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            y0 + row_h * 0.6,
            escape(&label(r))
        );
        let mut counts = vec![0usize; bins];
        for &v in &smp.sample_ns {
            let f = (v.max(1.0).log10() - lo) / (hi - lo);
            let b = ((f * bins as f64) as usize).min(bins - 1);
            counts[b] += 1;
        }
        let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
        let bw = plot_w / bins as f64;
        for (b, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let h = (row_h - 6.0) * (c as f64 / max).sqrt();
            let _ = write!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="#4878a8"><title>{c} calls</title></rect>"##,
                left + bw * b as f64,
                y0 + row_h - 3.0 - h,
                bw.max(1.0) - 0.3
            );
        }
        let xm = x(r.stats.median);
        let _ = write!(
            s,
            r##"<line x1="{xm:.1}" y1="{:.1}" x2="{xm:.1}" y2="{:.1}" stroke="#c0392b" stroke-width="2"><title>median {}</title></line>"##,
            y0 + 2.0,
            y0 + row_h - 2.0,
            escape(&fmt_ns(r.stats.median))
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_round() {
        assert_eq!(axis_ns(1e7), "10 ms");
        assert_eq!(axis_ns(1e5), "100 µs");
        assert_eq!(axis_ns(1e9), "1 s");
        assert_eq!(axis_ns(100.0), "100 ns");
        assert_eq!(axis_ns(2.5e6), "2.5 ms");
    }

    fn rec(algo: &str, op: &str, median: f64, cv: f64, p99: f64) -> PkRecord {
        PkRecord {
            head: ango_core::Header {
                schema: 1,
                schema_version: 1,
                suite: ango_core::SuiteId::Pk,
                run_id: "t".into(),
            },
            library_version: String::new(),
            timing: "operation".into(),
            algorithm: algo.into(),
            kind: if algo.starts_with("ml-kem") || algo == "x25519" {
                "kem".into()
            } else {
                "sig".into()
            },
            operation: op.into(),
            backend: "openssl".into(),
            variant: None,
            implementation: "x".into(),
            iterations: 999,
            dropped: 1,
            message_bytes: None,
            stats: ango_core::Stats {
                median,
                q1: median * (1.0 - cv / 2.0),
                q3: median * (1.0 + cv / 2.0),
                mean: median,
                sd: 1.0,
                min: median / 2.0,
                max: p99 * 2.0,
                p95: p99,
                p99,
                robust_cv: cv,
                ci95_low: median,
                ci95_high: median,
            },
            cycles_per_op: None,
            cycle_source: "tsc".into(),
            timer_overhead_ns: 20.0,
            sizes: vec![],
            verify: "pass 5/5".into(),
            note: None,
            warnings: vec![],
            method: String::new(),
            time: String::new(),
            workers: 1,
            multi: None,
        }
    }

    #[test]
    fn the_kem_size_claim_reads_the_smallest_ratio() {
        use ango_core::SizeEntry;
        let mut x = rec("x25519", "keygen", 30_000.0, 0.05, 40_000.0);
        x.sizes = ["public_key", "secret_key", "ciphertext"]
            .iter()
            .map(|o| SizeEntry::new(o, "raw", 32))
            .collect();
        let mut m = rec("ml-kem-512", "keygen", 20_000.0, 0.03, 25_000.0);
        m.sizes = vec![
            SizeEntry::new("public_key", "raw", 800),
            SizeEntry::new("public_key", "spki-der", 822),
            SizeEntry::new("secret_key", "raw", 1632),
            SizeEntry::new("ciphertext", "raw", 768),
        ];
        let f = kem_sizes(&[x.clone(), m.clone()]).unwrap();
        assert_eq!((f.value, f.verdict), (Some(24.0), Verdict::Holds));
        assert!(
            f.explanation.contains("ciphertext 768 B"),
            "{}",
            f.explanation
        );
        m.sizes[3].bytes = 600;
        assert_eq!(kem_sizes(&[x, m]).unwrap().verdict, Verdict::DoesNotHold);
    }

    #[test]
    fn findings_follow_the_numbers() {
        let mut v = vec![
            rec("x25519", "keygen", 30_000.0, 0.05, 40_000.0),
            rec("ml-kem-768", "keygen", 20_000.0, 0.03, 25_000.0),
            rec("rsa-2048", "keygen", 4e7, 0.8, 1e8),
            rec("rsa-3072", "keygen", 1.4e8, 0.9, 3e8),
            rec("ml-dsa-44", "sign", 50_000.0, 0.7, 200_000.0),
            rec("ml-dsa-44", "verify", 20_000.0, 0.02, 22_000.0),
        ];
        let verdicts = |v: &[PkRecord]| -> Vec<(String, Verdict)> {
            findings(v)
                .into_iter()
                .map(|f| (f.claim, f.verdict))
                .collect()
        };
        let f = verdicts(&v);
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f.iter().all(|(_, v)| *v == Verdict::Holds), "{f:?}");
        assert!(
            f[0].0.contains("ml-kem-768 keygen is faster than X25519"),
            "{f:?}"
        );
        v[1].stats.median = 40_000.0;
        v[1].stats.ci95_low = 39_000.0;
        v[1].stats.ci95_high = 41_000.0;
        v[2].stats.robust_cv = 0.05;
        let f = verdicts(&v);
        assert_eq!(f[0].1, Verdict::DoesNotHold, "{f:?}");
        assert_eq!(f[1].1, Verdict::DoesNotHold, "{f:?}");
    }

    #[test]
    fn seed_table_is_in_milliseconds_with_six_decimals() {
        let t = seed_tables(&[rec("ml-kem-768", "keygen", 14_133.0, 0.043, 20_000.0)])[0].text();
        assert!(t.contains("Table 2"), "{t}");
        assert!(t.contains("0.014133"), "{t}");
    }
}
