//! Tables of the TLS lab: the handshake time of every combination laid out
//! as seed 003's Tables 10–12 (one table per group, server signature by CA
//! signature), and the certificate sizes (Tables 14–15).

use crate::run::TlsRecord;
use std::fmt::Write;

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// The distinct values of a field, in first-seen order.
fn distinct(records: &[TlsRecord], f: impl Fn(&TlsRecord) -> &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in records {
        if !v.iter().any(|x| x == f(r)) {
            v.push(f(r).to_string());
        }
    }
    v
}

/// Every table, as text.
pub fn table(records: &[TlsRecord]) -> String {
    let mut out = String::new();
    if records.is_empty() {
        return out;
    }
    let groups = distinct(records, |r| &r.group);
    let servers = distinct(records, |r| &r.server_sig);
    let cas = distinct(records, |r| &r.ca_sig);
    if let Some(r) = records.first() {
        let _ = writeln!(
            out,
            "Link: {}; RTT asked {} ms, measured {} (median of TCP echoes before the run)",
            r.link,
            ms(r.rtt_asked_ns),
            r.rtt_ns
                .map(|x| format!("{} ms", ms(x)))
                .unwrap_or_else(|| "-".into())
        );
    }
    for g in &groups {
        let _ = writeln!(
            out,
            "\nHandshake time, client view (connect() to the end of the handshake), median ms [p95]: group {g}"
        );
        let _ = write!(out, "{:<14}", "server \\ CA");
        for c in &cas {
            let _ = write!(out, " {:>20}", c);
        }
        out.push('\n');
        for s in &servers {
            let _ = write!(out, "{s:<14}");
            for c in &cas {
                let cell = records
                    .iter()
                    .find(|r| &r.group == g && &r.server_sig == s && &r.ca_sig == c)
                    .map(|r| match &r.handshake_ns {
                        Some(q) => format!(
                            "{} [{}]{}",
                            ms(q.median),
                            ms(q.p95),
                            if r.failures > 0 {
                                "!"
                            } else if r.cut_short {
                                "*"
                            } else {
                                ""
                            }
                        ),
                        None => "failed".into(),
                    })
                    .unwrap_or_default();
                let _ = write!(out, " {cell:>20}");
            }
            out.push('\n');
        }
    }
    if records.iter().any(|r| r.cut_short) {
        out.push_str("\n* cut short by Ctrl-C: fewer handshakes than asked\n");
    }
    let fails: Vec<&TlsRecord> = records.iter().filter(|r| r.failures > 0).collect();
    if !fails.is_empty() {
        out.push_str("\n! failures (not retried):\n");
        for r in fails {
            let _ = writeln!(
                out,
                "  {} {} by {}: {} of {} ({})",
                r.group,
                r.server_sig,
                r.ca_sig,
                r.failures,
                r.handshakes,
                r.failure_examples.first().cloned().unwrap_or_default()
            );
        }
    }
    out.push_str("\nCertificate sizes, DER bytes (seed Tables 14-15)\n");
    let _ = write!(out, "{:<14}", "server \\ CA");
    for c in &cas {
        let _ = write!(out, " {c:>12}");
    }
    out.push('\n');
    for s in &servers {
        let _ = write!(out, "{s:<14}");
        for c in &cas {
            let v = records
                .iter()
                .find(|r| &r.server_sig == s && &r.ca_sig == c)
                .map(|r| r.server_cert_bytes.to_string())
                .unwrap_or_default();
            let _ = write!(out, " {v:>12}");
        }
        out.push('\n');
    }
    let _ = write!(out, "{:<14}", "CA (root)");
    for c in &cas {
        let v = records
            .iter()
            .find(|r| &r.ca_sig == c)
            .map(|r| r.ca_cert_bytes.to_string())
            .unwrap_or_default();
        let _ = write!(out, " {v:>12}");
    }
    out.push('\n');
    out
}
