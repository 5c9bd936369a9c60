//! `ango tls-records` as text, Markdown, CSV and its section of the
//! report: the wire bytes of one application record per cipher suite and
//! plaintext length, the overhead in bytes and percent, a chart of the
//! overhead against the record size, seed 004's 1-byte comparison checked,
//! and seed 004's table of the seven ChaCha20-Poly1305 suites with the
//! stacks here that offer each.

use crate::anchor;
use crate::svg::{escape, Chart, Series, PALETTE};
use crate::table::{cell as table_cell, Table};
use ango_core::finding::Verdict;
use ango_core::tls_records::{SuiteOffer, TlsRecordsRecord};
use ango_core::{Finding, RecordKey};
use std::fmt::Write as _;

/// The (version, suite) rows of the records, in order.
fn rows(rs: &[TlsRecordsRecord]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for r in rs {
        let k = (r.tls_version.clone(), r.cipher_suite.clone());
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// The plaintext lengths measured, ascending.
fn sizes(rs: &[TlsRecordsRecord]) -> Vec<u64> {
    let mut v: Vec<u64> = rs.iter().map(|r| r.plaintext_bytes).collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn find<'a>(
    rs: &'a [TlsRecordsRecord],
    version: &str,
    suite: &str,
    n: u64,
) -> Option<&'a TlsRecordsRecord> {
    rs.iter()
        .find(|r| r.tls_version == version && r.cipher_suite == suite && r.plaintext_bytes == n)
}

/// `wire (+overhead)` of a point.
fn cell(r: Option<&TlsRecordsRecord>) -> String {
    r.map_or_else(
        || "-".into(),
        |r| format!("{} (+{})", r.wire_bytes, r.overhead_bytes),
    )
}

/// The notes every output carries: how the bytes were read, the security
/// level of CCM_8.
fn notes(rs: &[TlsRecordsRecord]) -> Vec<String> {
    let mut v = Vec::new();
    if rs.iter().any(|r| r.capture == "af-packet") {
        v.push(
            "Read from a packet capture on lo (the pcap files and key log are in the results \
             directory when one is written)."
                .to_string(),
        );
    }
    if rs.iter().any(|r| r.capture == "relay") {
        v.push(
            "Read from a TCP relay between client and server that records what each direction \
             carries (not root: no packet capture); the bytes are the TCP payload a capture \
             would show."
                .to_string(),
        );
    }
    v.push(
        "TLS 1.2's record is the client's only application_data record; TLS 1.3's was opened \
         with the key log's client traffic secret and its plaintext length checked."
            .to_string(),
    );
    let levels: Vec<String> = rs
        .iter()
        .filter(|r| r.security_level == 0)
        .map(|r| r.cipher_suite.clone())
        .fold(Vec::new(), |mut v, s| {
            if !v.contains(&s) {
                v.push(s);
            }
            v
        });
    if !levels.is_empty() {
        v.push(format!(
            "{} ran at OpenSSL security level 0 (its 64-bit tag is below the default level); \
             every other suite at the library's default.",
            levels.join(", ")
        ));
    }
    v
}

/// Seed 004 §4.3: a 1-byte TLS 1.2 record is 30 bytes with AES-GCM (its
/// 8-byte explicit nonce) and 22 with ChaCha20-Poly1305.
pub fn findings(rs: &[TlsRecordsRecord]) -> Vec<Finding> {
    let gcm = find(rs, "1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 1);
    let chacha = find(
        rs,
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        1,
    );
    let f = Finding::new(
        "tls-records",
        "004",
        "§4.3",
        "a TLS 1.2 record carrying 1 byte is 30 bytes with AES-GCM and 22 with ChaCha20-Poly1305",
    )
    .id("record-overhead", &[])
    .anchor(anchor::TLS_RECORDS)
    .from(gcm.iter().chain(chacha.iter()).map(|r| r.key()));
    vec![match (gcm, chacha) {
        (Some(g), Some(c)) => f
            .value((g.wire_bytes as f64) - (c.wire_bytes as f64), "bytes")
            .verdict(if g.wire_bytes == 30 && c.wire_bytes == 22 {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            })
            .explain(format!(
                "captured here: AES-128-GCM {} bytes, ChaCha20-Poly1305 {} bytes (5-byte header, \
                 1 byte, 16-byte tag, and GCM's 8-byte explicit nonce); the value is the \
                 difference",
                g.wire_bytes, c.wire_bytes
            )),
        _ => f.explain(
            "needs TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 and \
             TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 at 1 byte, not both in this run",
        ),
    }]
}

/// A (version, suite) row per line, a column per plaintext length, each
/// cell from `of`.
fn by_size(
    title: &str,
    rs: &[TlsRecordsRecord],
    of: impl Fn(&TlsRecordsRecord) -> String,
) -> Table {
    let sizes = sizes(rs);
    let mut head = vec!["TLS".to_string(), "cipher suite".to_string()];
    head.extend(sizes.iter().map(|n| format!("{n} B")));
    let rows = rows(rs)
        .into_iter()
        .map(|(v, suite)| {
            let mut row = vec![table_cell(&v, ""), table_cell(&suite, "")];
            row.extend(sizes.iter().map(|&n| {
                table_cell(find(rs, &v, &suite, n).map_or_else(|| "-".into(), &of), "n")
            }));
            row
        })
        .collect();
    Table {
        title: title.into(),
        head,
        rows,
        ..Table::default()
    }
}

/// The wire bytes (overhead) and the overhead in percent, by size.
fn tables(rs: &[TlsRecordsRecord]) -> [Table; 2] {
    [
        by_size(
            "Wire bytes of one application record (header + fragment), and its overhead over \
             the plaintext, as captured:",
            rs,
            |r| cell(Some(r)),
        ),
        by_size("Overhead in percent of the plaintext:", rs, |r| {
            format!("{:.2}%", r.overhead_percent)
        }),
    ]
}

/// Seed 004 §1.5's seven ChaCha20-Poly1305 suites, and who offers each
/// here.
fn offers_table(offers: &[SuiteOffer]) -> Table {
    let rows = offers
        .iter()
        .map(|o| {
            vec![
                o.code.clone(),
                o.iana.clone(),
                o.seed.clone(),
                if o.offered_by.is_empty() {
                    "none".to_string()
                } else {
                    o.offered_by.join(", ")
                },
            ]
        })
        .collect();
    Table::labels(
        "Seed 004 §1.5: the seven ChaCha20-Poly1305 suites (RFC 7905) and the stacks here that \
         offer each (seed: O = OpenSSL 1.1.0, F = Firefox, C = Chrome, in 2016):",
        &["code", "IANA name", "seed (2016)", "offered here by"],
        rows,
    )
}

/// The terminal tables.
pub fn text(rs: &[TlsRecordsRecord], offers: &[SuiteOffer]) -> String {
    let [wire, percent] = tables(rs);
    let mut s = wire.text();
    s.push('\n');
    s.push_str(&percent.text());
    for n in notes(rs) {
        let _ = writeln!(s, "  {n}");
    }
    let f = findings(rs);
    let _ = writeln!(s, "\nSeed 004's finding, checked here:");
    s.push_str(&crate::findings::text(&f));
    if !offers.is_empty() {
        s.push('\n');
        s.push_str(&offers_table(offers).text());
    }
    s
}

/// The report's section, or nothing without records.
pub fn section(rs: &[TlsRecordsRecord], offers: &[SuiteOffer]) -> String {
    if rs.is_empty() {
        return String::new();
    }
    let sizes = sizes(rs);
    let mut out = String::from(
        "<h3 id=\"s004-records\">TLS record overhead (seed 004 §4.3)</h3><p>The bytes one application-data record takes \
         on the wire — its 5-byte header and fragment — for each cipher suite and plaintext \
         length, read from the captured connection (not computed), and the overhead over the \
         plaintext.</p>",
    );
    let series: Vec<Series> = rows(rs)
        .iter()
        .enumerate()
        .map(|(i, (v, suite))| Series {
            label: format!("TLS {v} {suite}"),
            color: PALETTE[i % PALETTE.len()],
            style: if v == "1.3" { 0 } else { 1 },
            points: rs
                .iter()
                .filter(|r| &r.tls_version == v && &r.cipher_suite == suite)
                .map(|r| (r.plaintext_bytes as f64, r.overhead_percent.max(1e-3), None))
                .collect(),
        })
        .collect();
    out.push_str(&crate::figure::lines(
        "s004-records-chart",
        Chart {
            title: "TLS record overhead vs record size".into(),
            x_label: "plaintext bytes in the record".into(),
            y_label: "overhead, % of plaintext".into(),
            series,
        },
        crate::figure::Axes::Log,
        "Overhead of one record in percent of its plaintext against the plaintext length (log \
         scales); dashed: TLS 1.2.",
    ));
    out.push_str("<table><tr><th>TLS</th><th>cipher suite</th>");
    for n in &sizes {
        let _ = write!(out, "<th>{n} B<br>wire (+overhead), %</th>");
    }
    out.push_str("</tr>");
    for (v, suite) in rows(rs) {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            escape(&v),
            escape(&suite)
        );
        for &n in &sizes {
            match find(rs, &v, &suite, n) {
                Some(r) => {
                    let _ = write!(
                        out,
                        "<td class=\"n\">{} (+{}), {:.2}%</td>",
                        r.wire_bytes, r.overhead_bytes, r.overhead_percent
                    );
                }
                None => out.push_str("<td>–</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    out.push_str(&crate::svg::bullet_list(&notes(rs)));
    if !offers.is_empty() {
        let _ = write!(
            out,
            "<h4>The seven ChaCha20-Poly1305 suites (seed 004 §1.5, RFC 7905)</h4>{}",
            offers_table(offers).html_table()
        );
    }
    out
}

const CSV_HEADER: &str = "tls_version,cipher_suite,cipher_suite_code,negotiated_suite,plaintext_bytes,wire_bytes,overhead_bytes,overhead_percent,client_stack,server_stack,capture,identified_by,security_level";

pub fn csv(rs: &[TlsRecordsRecord]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in rs {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{:.4},{},{},{},{},{}",
            r.tls_version,
            r.cipher_suite,
            r.cipher_suite_code,
            r.negotiated_suite,
            r.plaintext_bytes,
            r.wire_bytes,
            r.overhead_bytes,
            r.overhead_percent,
            r.client_stack,
            r.server_stack,
            r.capture,
            r.identified_by,
            r.security_level
        );
    }
    out
}

pub fn markdown(rs: &[TlsRecordsRecord]) -> String {
    let [wire, percent] = tables(rs);
    let mut out = wire.md();
    out.push('\n');
    out.push_str(&percent.md());
    for n in notes(rs) {
        let _ = writeln!(out, "\n{n}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(v: &str, suite: &str, n: u64, wire: u64) -> TlsRecordsRecord {
        TlsRecordsRecord {
            head: ango_core::Header::new(ango_core::SuiteId::TlsRecords, "r"),
            tls_version: v.into(),
            cipher_suite: suite.into(),
            cipher_suite_code: "0x0000".into(),
            negotiated_suite: suite.into(),
            plaintext_bytes: n,
            wire_bytes: wire,
            overhead_bytes: wire - n,
            overhead_percent: 100.0 * (wire - n) as f64 / n as f64,
            client_stack: "openssl".into(),
            server_stack: "openssl".into(),
            client_library_version: String::new(),
            server_library_version: String::new(),
            capture: "relay".into(),
            identified_by: "outer-type".into(),
            security_level: 2,
            pcap: None,
            time: String::new(),
        }
    }

    #[test]
    fn seed_004_comparison_and_tables() {
        let rs = vec![
            rec("1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 1, 30),
            rec(
                "1.2",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
                1,
                22,
            ),
            rec(
                "1.2",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
                16,
                37,
            ),
        ];
        let f = findings(&rs);
        assert_eq!(f[0].verdict, Verdict::Holds);
        assert_eq!(f[0].value, Some(8.0));
        let t = text(&rs, &[]);
        assert!(t.contains("30 (+29)"), "{t}");
        assert!(t.contains("2900.00%"), "{t}");
        assert!(section(&rs, &[]).contains("<svg"));
        let mut wrong = rs.clone();
        wrong[0].wire_bytes = 26;
        assert_eq!(findings(&wrong)[0].verdict, Verdict::DoesNotHold);
        assert!(findings(&rs[1..])[0].verdict == Verdict::NotMeasurable);
    }
}
