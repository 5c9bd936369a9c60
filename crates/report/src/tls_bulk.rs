//! `ango tls --bulk` as text, Markdown, CSV and its section of the report:
//! throughput per cipher suite over one TLS connection with each endpoint's
//! CPU time per byte, per (client hw, server hw) setting, and seed 004's
//! two speed claims checked against the client's CPU time.

use crate::anchor;
use crate::figure;
use crate::svg::Bar;
use crate::table::{cell as table_cell, Table};
use ango_core::finding::Verdict;
use ango_core::{Finding, RecordKey, TlsBulkRecord};
use std::fmt::Write as _;

/// The (version, suite) rows, in the order measured.
fn rows(rs: &[TlsBulkRecord]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for r in rs {
        let k = (r.tls_version.clone(), r.cipher_suite.clone());
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// A column: (client stack, client hw, server stack, server hw).
type Setting = (String, String, String, String);

fn setting(r: &TlsBulkRecord) -> Setting {
    (
        r.client_stack.clone(),
        r.client_hw.clone(),
        r.server_stack.clone(),
        r.server_hw.clone(),
    )
}

/// The columns, in the order measured.
fn settings(rs: &[TlsBulkRecord]) -> Vec<Setting> {
    let mut v: Vec<Setting> = Vec::new();
    for r in rs {
        let k = setting(r);
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// Whether the run had more than one stack pairing.
fn several_stacks(rs: &[TlsBulkRecord]) -> bool {
    rs.iter()
        .any(|r| (&r.client_stack, &r.server_stack) != (&rs[0].client_stack, &rs[0].server_stack))
}

fn label(rs: &[TlsBulkRecord], (cs, c, ss, s): &Setting) -> String {
    if several_stacks(rs) {
        format!("{cs} {c} → {ss} {s}")
    } else {
        format!("client {c} / server {s}")
    }
}

fn find<'a>(
    rs: &'a [TlsBulkRecord],
    (v, suite): &(String, String),
    col: &Setting,
) -> Option<&'a TlsBulkRecord> {
    rs.iter()
        .find(|r| &r.tls_version == v && &r.cipher_suite == suite && &setting(r) == col)
}

/// The records the seed's claims are judged on: OpenSSL on both sides if
/// measured, else the first pairing.
fn primary(rs: &[TlsBulkRecord]) -> Vec<TlsBulkRecord> {
    let both_openssl = rs
        .iter()
        .any(|r| r.client_stack == "openssl" && r.server_stack == "openssl");
    let (c, s) = if both_openssl {
        ("openssl".to_string(), "openssl".to_string())
    } else {
        rs.first()
            .map(|r| (r.client_stack.clone(), r.server_stack.clone()))
            .unwrap_or_default()
    };
    rs.iter()
        .filter(|r| r.client_stack == c && r.server_stack == s)
        .cloned()
        .collect()
}

fn mb(x: f64) -> f64 {
    x / 1e6
}

fn size(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 && b.is_multiple_of(1 << 10) {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// The notes every output carries: what was emulated and how.
fn notes(rs: &[TlsBulkRecord]) -> Vec<String> {
    let mut v = Vec::new();
    let Some(first) = rs.first() else {
        return v;
    };
    v.push(format!(
        "{} per transfer, {}, one TCP connection per transfer (handshake not timed); median of \
         {} transfers per point with quartiles, after one untimed warm-up; the suites take turns \
         within each repeat.",
        size(first.bytes),
        first.direction.replace('-', " "),
        first.repeats
    ));
    let mut versions: Vec<String> = Vec::new();
    for r in rs {
        for (s, v) in [
            (&r.client_stack, &r.client_library_version),
            (&r.server_stack, &r.server_library_version),
        ] {
            let x = format!("{s}: {v}");
            if !versions.contains(&x) {
                versions.push(x);
            }
        }
    }
    v.push(format!(
        "Each endpoint is its own process ({}) pinned to its own core (client CPU {}, server \
         CPU {}), over {}{}.",
        versions.join("; "),
        first
            .client_core
            .map_or_else(|| "any".into(), |c| c.to_string()),
        first
            .server_core
            .map_or_else(|| "any".into(), |c| c.to_string()),
        first.link,
        if first.rtt_ms > 0.0 {
            format!(" with {} ms emulated RTT", first.rtt_ms)
        } else {
            " with no emulated delay".into()
        }
    ));
    if first.client_core.is_some() && first.client_core == first.server_core {
        v.push("This run may use one CPU only: both endpoints shared it.".into());
    }
    if rs
        .iter()
        .any(|r| r.client_hw != "on" || r.server_hw != "on")
    {
        v.push(
            "hw off / seed000 emulate an endpoint without AES instructions on this x86 CPU: \
             that endpoint's process runs with the OPENSSL_ia32cap mask of `speed --hw`, so its \
             libcrypto uses software AES and GHASH. It is not an ARM client; it is the same \
             code path a CPU without AES-NI takes."
                .into(),
        );
    }
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for r in rs {
        for (st, hw, f) in [
            (&r.client_stack, &r.client_hw, &r.client_cpu_features),
            (&r.server_stack, &r.server_hw, &r.server_cpu_features),
        ] {
            let k = (st.clone(), hw.clone(), f.clone());
            if !seen.contains(&k) {
                seen.push(k);
            }
        }
    }
    for (st, hw, f) in seen {
        let lib = if st == "rustls" {
            "AWS-LC (rustls)"
        } else {
            "libcrypto"
        };
        v.push(format!("hw {hw}: {lib} used {f}"));
    }
    v
}

/// A suite's record for a setting, by IANA name, TLS 1.3 first.
fn pick<'a>(rs: &'a [TlsBulkRecord], names: &[&str], client_hw: &str) -> Option<&'a TlsBulkRecord> {
    names.iter().find_map(|n| {
        rs.iter()
            .filter(|r| r.cipher_suite == *n && r.client_hw == client_hw)
            .min_by_key(|r| u8::from(r.server_hw != "on"))
    })
}

const GCM: &[&str] = &[
    "TLS_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
];
const CHACHA: &[&str] = &[
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
];

/// Seed 004 §3: with AES-NI, AES-GCM is about twice as fast as
/// ChaCha20-Poly1305 (3.1 vs 1.6 Gbit/s); without AES instructions (ARM),
/// ChaCha20-Poly1305 is about three times as fast. Judged on the client's
/// CPU time per byte (what limits a client's throughput), same TLS version.
pub fn findings(rs: &[TlsBulkRecord]) -> Vec<Finding> {
    let rs = &primary(rs)[..];
    let pair = |hw: &str| {
        let g = pick(rs, GCM, hw)?;
        let c = rs.iter().find(|r| {
            r.client_hw == hw
                && r.server_hw == g.server_hw
                && r.tls_version == g.tls_version
                && CHACHA.contains(&r.cipher_suite.as_str())
        })?;
        Some((g, c))
    };
    let with = Finding::new(
        "tls-bulk",
        "004",
        "§3",
        "with AES instructions AES-GCM is faster than ChaCha20-Poly1305 (about twice: 3.1 vs 1.6 \
         Gbit/s on Haswell)",
    )
    .id("bulk-with-aes", &[])
    .anchor(anchor::TLS_BULK)
    .from(pair("on").into_iter().flat_map(|(g, c)| [g.key(), c.key()]));
    let without = Finding::new(
        "tls-bulk",
        "004",
        "§3",
        "without AES instructions ChaCha20-Poly1305 is about three times as fast as AES-GCM",
    )
    .id("bulk-without-aes", &[])
    .anchor(anchor::TLS_BULK)
    .from(
        pair("off")
            .into_iter()
            .flat_map(|(g, c)| [g.key(), c.key()]),
    );
    let explain = |g: &TlsBulkRecord, c: &TlsBulkRecord| {
        format!(
            "client CPU per byte over TLS {} (server hw {}): {} {:.3} ns, {} {:.3} ns (user space \
             alone {:.3} vs {:.3}); throughput {:.0} vs {:.0} MB/s",
            g.tls_version,
            g.server_hw,
            g.cipher_suite,
            g.client_cpu_ns_per_byte,
            c.cipher_suite,
            c.client_cpu_ns_per_byte,
            g.client_user_ns_per_byte,
            c.client_user_ns_per_byte,
            mb(g.bytes_per_second),
            mb(c.bytes_per_second)
        )
    };
    let a = match pair("on") {
        Some((g, c)) => {
            let ratio = c.client_cpu_ns_per_byte / g.client_cpu_ns_per_byte;
            with.value(ratio, "× (ChaCha20-Poly1305 ÷ AES-GCM client CPU per byte)")
                .verdict(if ratio > 1.0 {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(explain(g, c))
        }
        None => with.explain("needs AES-128-GCM and ChaCha20-Poly1305 with client hw on"),
    };
    let b = match pair("off").or_else(|| pair("seed000")) {
        Some((g, c)) => {
            let ratio = g.client_cpu_ns_per_byte / c.client_cpu_ns_per_byte;
            without
                .value(ratio, "× (AES-GCM ÷ ChaCha20-Poly1305 client CPU per byte)")
                .verdict(if ratio >= 2.0 {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "{}; the client without AES instructions is emulated (hw {}), judged as \
                     holding from 2×",
                    explain(g, c),
                    g.client_hw
                ))
        }
        None => without.explain(
            "needs AES-128-GCM and ChaCha20-Poly1305 with client hw off or seed000 (--client-hw \
             on,off)",
        ),
    };
    vec![a, b]
}

fn rate_cell(r: Option<&TlsBulkRecord>) -> String {
    r.map_or_else(
        || "-".into(),
        |r| {
            format!(
                "{:.0} [{:.0}–{:.0}]",
                mb(r.bytes_per_second),
                mb(r.bytes_per_second_q1),
                mb(r.bytes_per_second_q3)
            )
        },
    )
}

fn cpu_cell(r: Option<&TlsBulkRecord>) -> String {
    r.map_or_else(
        || "-".into(),
        |r| {
            format!(
                "{:.3} / {:.3}",
                r.client_cpu_ns_per_byte, r.server_cpu_ns_per_byte
            )
        },
    )
}

/// A (version, suite) row per line, a column per setting, each cell
/// from `of`.
fn by_setting(
    title: &str,
    rs: &[TlsBulkRecord],
    of: fn(Option<&TlsBulkRecord>) -> String,
) -> Table {
    let cols = settings(rs);
    let mut head = vec!["TLS".to_string(), "cipher suite".to_string()];
    head.extend(cols.iter().map(|c| label(rs, c)));
    let rows = rows(rs)
        .into_iter()
        .map(|row| {
            let mut v = vec![table_cell(&row.0, ""), table_cell(&row.1, "")];
            v.extend(cols.iter().map(|c| table_cell(of(find(rs, &row, c)), "n")));
            v
        })
        .collect();
    Table {
        title: title.into(),
        head,
        rows,
        ..Table::default()
    }
}

/// The client's and server's CPU time per byte (the main figure), and the
/// throughput.
fn tables(rs: &[TlsBulkRecord]) -> [Table; 2] {
    [
        by_setting(
            "CPU time per byte, client / server (ns/B, median; the main figure):",
            rs,
            cpu_cell,
        ),
        by_setting("Throughput (MB/s, median [quartiles]):", rs, rate_cell),
    ]
}

/// The terminal tables.
pub fn text(rs: &[TlsBulkRecord]) -> String {
    let [cpu, rate] = tables(rs);
    let mut s = cpu.text();
    s.push('\n');
    s.push_str(&rate.text());
    for n in notes(rs) {
        let _ = writeln!(s, "  {n}");
    }
    let _ = writeln!(s, "\nSeed 004's findings, checked here:");
    s.push_str(&crate::findings::text(&findings(rs)));
    s
}

/// The report's section, or nothing without records.
pub fn section(rs: &[TlsBulkRecord]) -> String {
    if rs.is_empty() {
        return String::new();
    }
    let cols = settings(rs);
    let mut out = String::from(
        "<h3>TLS bulk throughput (seed 004)</h3><p>Application data over one TLS connection \
         per cipher suite, each endpoint in its own process with its own hardware setting; the \
         client's CPU time per byte is what a client without AES instructions pays.</p>",
    );
    let names: Vec<String> = cols.iter().map(|c| label(rs, c)).collect();
    let series: Vec<&str> = names.iter().map(String::as_str).collect();
    let bars = |f: &dyn Fn(&TlsBulkRecord) -> f64| -> Vec<Bar> {
        rows(rs)
            .iter()
            .map(|row| Bar {
                label: format!("TLS {} {}", row.0, row.1.trim_start_matches("TLS_")),
                values: cols
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| find(rs, row, c).map(|r| (i, f(r))))
                    .collect(),
            })
            .collect()
    };
    out.push_str(&figure::bars(
        anchor::TLS_BULK,
        "TLS bulk throughput, MB/s",
        "MB/s (median)",
        &series,
        &bars(&|r| mb(r.bytes_per_second)),
        None,
        "Median throughput of one connection per suite and hardware setting.",
    ));
    out.push_str(&figure::bars(
        "s004-bulk-cpu",
        "Client CPU time per MB, µs",
        "µs of client CPU per MB (median)",
        &series,
        &bars(&|r| r.client_cpu_ns_per_byte * 1e3),
        None,
        "The client's CPU time per megabyte (user + system; the kernel's TCP is in it too).",
    ));
    for t in tables(rs) {
        out.push_str(&t.html());
    }
    out.push_str(&crate::svg::bullet_list(&notes(rs)));
    out
}

const CSV_HEADER: &str = "tls_version,cipher_suite,cipher_suite_code,client_hw,server_hw,bytes,repeats,bytes_per_second,bytes_per_second_q1,bytes_per_second_q3,client_cpu_ns_per_byte,server_cpu_ns_per_byte,client_user_ns_per_byte,server_user_ns_per_byte,link,client_stack,server_stack";

pub fn csv(rs: &[TlsBulkRecord]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in rs {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{:.0},{:.0},{:.0},{:.4},{:.4},{:.4},{:.4},{},{},{}",
            r.tls_version,
            r.cipher_suite,
            r.cipher_suite_code,
            r.client_hw,
            r.server_hw,
            r.bytes,
            r.repeats,
            r.bytes_per_second,
            r.bytes_per_second_q1,
            r.bytes_per_second_q3,
            r.client_cpu_ns_per_byte,
            r.server_cpu_ns_per_byte,
            r.client_user_ns_per_byte,
            r.server_user_ns_per_byte,
            r.link,
            r.client_stack,
            r.server_stack
        );
    }
    out
}

pub fn markdown(rs: &[TlsBulkRecord]) -> String {
    let [cpu, rate] = tables(rs);
    let mut out = cpu.md();
    out.push('\n');
    out.push_str(&rate.md());
    for n in notes(rs) {
        let _ = writeln!(out, "\n{n}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(suite: &str, chw: &str, rate: f64, ccpu: f64) -> TlsBulkRecord {
        TlsBulkRecord {
            head: ango_core::Header::new(ango_core::SuiteId::TlsBulk, "r"),
            tls_version: "1.3".into(),
            cipher_suite: suite.into(),
            cipher_suite_code: "0x1301".into(),
            negotiated_suite: suite.into(),
            client_hw: chw.into(),
            server_hw: "on".into(),
            client_cpu_features: "ssse3 avx".into(),
            server_cpu_features: "aes-ni pclmulqdq".into(),
            bytes: 64 << 20,
            direction: "server-to-client".into(),
            repeats: 5,
            bytes_per_second: rate,
            bytes_per_second_q1: rate * 0.9,
            bytes_per_second_q3: rate * 1.1,
            client_cpu_ns_per_byte: ccpu,
            server_cpu_ns_per_byte: 0.5,
            client_user_ns_per_byte: ccpu * 0.8,
            server_user_ns_per_byte: 0.4,
            client_core: Some(0),
            server_core: Some(1),
            link: "veth".into(),
            rtt_ms: 0.0,
            client_stack: "openssl".into(),
            server_stack: "openssl".into(),
            client_library_version: "OpenSSL 3.5".into(),
            server_library_version: "OpenSSL 3.5".into(),
            time: String::new(),
        }
    }

    #[test]
    fn seed_004_claims_and_tables() {
        let gcm = "TLS_AES_128_GCM_SHA256";
        let cc = "TLS_CHACHA20_POLY1305_SHA256";
        let rs = vec![
            rec(gcm, "on", 2.0e9, 0.5),
            rec(cc, "on", 1.0e9, 1.0),
            rec(gcm, "off", 0.2e9, 6.0),
            rec(cc, "off", 1.0e9, 1.5),
        ];
        let f = findings(&rs);
        assert_eq!(f[0].verdict, Verdict::Holds);
        assert_eq!(f[0].value, Some(2.0));
        assert_eq!(f[1].verdict, Verdict::Holds);
        assert_eq!(f[1].value, Some(4.0));
        let t = text(&rs);
        assert!(t.contains("client off / server on"), "{t}");
        assert!(t.contains("2000 [1800–2200]"), "{t}");
        assert!(t.contains("6.000 / 0.500"), "{t}");
        assert!(t.contains("emulate an endpoint without AES"), "{t}");
        assert!(section(&rs).contains("<svg"));
        assert_eq!(csv(&rs).lines().count(), 5);
        let mut slow = rs.clone();
        slow[2].client_cpu_ns_per_byte = 2.0;
        assert_eq!(findings(&slow)[1].verdict, Verdict::DoesNotHold);
        assert_eq!(findings(&rs[..2])[1].verdict, Verdict::NotMeasurable);
    }
}
