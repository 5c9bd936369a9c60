//! `ango tls-policy` as text, Markdown, CSV and its section of the report:
//! the negotiation matrix (client profile × server policy, per TLS
//! version) with what each outcome costs the client, coloured by how far
//! it is from the cheapest suite both sides offered, BoringSSL's
//! equal-preference rule applied to the measured offers, and seed 004
//! §6's claims checked.

use crate::anchor;
use crate::svg::escape;
use crate::table::{cell as table_cell, Table};
use ango_core::finding::Verdict;
use ango_core::tls_records::equal_preference as rule;
use ango_core::{Finding, RecordKey, TlsPolicyRecord};
use std::fmt::Write as _;

fn ordered(mut v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in v.drain(..) {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn versions(rs: &[TlsPolicyRecord]) -> Vec<String> {
    ordered(rs.iter().map(|r| r.tls_version.clone()).collect())
}

fn clients(rs: &[TlsPolicyRecord]) -> Vec<String> {
    ordered(rs.iter().map(|r| r.client_profile.clone()).collect())
}

fn policies(rs: &[TlsPolicyRecord]) -> Vec<String> {
    ordered(rs.iter().map(|r| r.server_policy.clone()).collect())
}

fn find<'a>(
    rs: &'a [TlsPolicyRecord],
    v: &str,
    client: &str,
    policy: &str,
) -> Option<&'a TlsPolicyRecord> {
    rs.iter()
        .find(|r| r.tls_version == v && r.client_profile == client && r.server_policy == policy)
}

/// `AES-128-GCM`, `AES-256-GCM`, `ChaCha20-Poly1305` for the suites in
/// play, else the IANA name.
pub fn short(iana: &str) -> String {
    if iana.contains("CHACHA20_POLY1305") {
        "ChaCha20-Poly1305".into()
    } else if iana.contains("AES_128_GCM") {
        "AES-128-GCM".into()
    } else if iana.contains("AES_256_GCM") {
        "AES-256-GCM".into()
    } else {
        iana.into()
    }
}

/// How many times the cheapest suite's cost the outcome costs.
fn excess(r: &TlsPolicyRecord) -> Option<f64> {
    Some(r.client_cost_ns_per_byte? / r.best_cost_ns_per_byte?)
}

fn cell(r: Option<&TlsPolicyRecord>) -> String {
    let Some(r) = r else {
        return "-".into();
    };
    match (r.client_cost_ns_per_byte, excess(r)) {
        (Some(c), Some(x)) if x > 1.05 => {
            format!("{} {c:.2} ns/B ({x:.1}× best)", short(&r.negotiated_suite))
        }
        (Some(c), _) => format!("{} {c:.2} ns/B", short(&r.negotiated_suite)),
        _ => short(&r.negotiated_suite),
    }
}

/// For each measured policy, the clients of `v` whose outcome equals what
/// the equal-preference rule gives for their offer.
fn agreement(rs: &[TlsPolicyRecord], v: &str) -> Vec<(String, Vec<String>)> {
    policies(rs)
        .into_iter()
        .map(|p| {
            let agree = clients(rs)
                .into_iter()
                .filter(|c| {
                    find(rs, v, c, &p).is_some_and(|r| {
                        rule(v, &r.client_offer).is_some_and(|s| s == r.negotiated_suite)
                    })
                })
                .collect();
            (p, agree)
        })
        .collect()
}

/// "client-order (all 3 clients), server-aes-first (aes-first)".
fn agreement_text(rs: &[TlsPolicyRecord], v: &str) -> String {
    let n = clients(rs).len();
    let parts: Vec<String> = agreement(rs, v)
        .into_iter()
        .filter(|(_, a)| !a.is_empty())
        .map(|(p, a)| {
            if a.len() == n {
                format!("{p} (every client)")
            } else {
                format!("{p} ({})", a.join(", "))
            }
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join("; ")
    }
}

/// The version the findings are judged in: TLS 1.3 if measured.
fn judged(rs: &[TlsPolicyRecord]) -> Option<String> {
    let v = versions(rs);
    v.iter()
        .find(|v| *v == "1.3")
        .or_else(|| v.first())
        .cloned()
}

/// Seed 004 §6.2 and §6.3.
pub fn findings(rs: &[TlsPolicyRecord]) -> Vec<Finding> {
    let f_server = Finding::new(
        "tls-policy",
        "004",
        "§6.2",
        "with the server's order deciding, a server that puts ChaCha20-Poly1305 first gives it \
         to clients with and without AES instructions alike",
    )
    .id("server-chacha-first", &[])
    .anchor(anchor::TLS_POLICY)
    .from(rs.iter().map(|r| r.key()));
    let f_only = Finding::new(
        "tls-policy",
        "004",
        "§6.3",
        "in OpenSSL the only way to give both kinds of client their best suite is not to use \
         the server's order",
    )
    .id("client-order-only", &[])
    .anchor(anchor::TLS_POLICY)
    .from(rs.iter().map(|r| r.key()));
    let Some(v) = judged(rs) else {
        return vec![
            f_server.explain("no handshakes in this run"),
            f_only.explain("no handshakes in this run"),
        ];
    };
    let get = |c: &str, p: &str| find(rs, &v, c, p);
    let a = match (
        get("aes-first", "server-chacha-first"),
        get("chacha-first", "server-chacha-first"),
    ) {
        (Some(a), Some(c)) => {
            let both = short(&a.negotiated_suite) == "ChaCha20-Poly1305"
                && short(&c.negotiated_suite) == "ChaCha20-Poly1305";
            let f = f_server
                .verdict(if both {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "TLS {v}: the AES-first client got {}, the ChaCha-first client {}{}",
                    a.negotiated_suite,
                    c.negotiated_suite,
                    excess(a).map_or_else(String::new, |x| format!(
                        "; the AES-first client pays {x:.2}× the CPU per byte of its best suite"
                    ))
                ));
            match excess(a) {
                Some(x) => f.value(x, "× the AES client's cheapest suite"),
                None => f,
            }
        }
        _ => f_server
            .explain("needs the aes-first and chacha-first clients against server-chacha-first"),
    };
    // Which policies that use the server's order give both clients their
    // cheapest suite (within 5 %)?
    let best_for_both = |p: &str| {
        ["aes-first", "chacha-first"].iter().all(|c| {
            get(c, p).is_some_and(|r| {
                excess(r).map_or(r.best_suite.as_deref() == Some(&r.negotiated_suite), |x| {
                    x <= 1.05
                })
            })
        })
    };
    let server_order: Vec<String> = policies(rs)
        .into_iter()
        .filter(|p| {
            rs.iter().any(|r| {
                &r.server_policy == p
                    && r.server_options
                        .iter()
                        .any(|o| o == "cipher-server-preference")
            })
        })
        .collect();
    let measured = ["aes-first", "chacha-first"]
        .iter()
        .all(|c| server_order.iter().any(|p| get(c, p).is_some()));
    let b = if !measured || get("aes-first", "client-order").is_none() {
        f_only.explain(
            "needs the aes-first and chacha-first clients against client-order and the \
             server-order policies",
        )
    } else {
        let good: Vec<&String> = server_order.iter().filter(|p| best_for_both(p)).collect();
        let client_ok = best_for_both("client-order");
        f_only
            .verdict(if good.is_empty() && client_ok {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            })
            .explain(format!(
                "TLS {v} with {}: client-order gives both their cheapest suite: {}; server-order \
                 policies that do: {}",
                rs.first().map_or("", |r| r.server_library_version.as_str()),
                if client_ok { "yes" } else { "no" },
                if good.is_empty() {
                    "none".to_string()
                } else {
                    good.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
    };
    vec![a, b]
}

fn notes(rs: &[TlsPolicyRecord]) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(r) = rs.first() {
        let stacks = ordered(
            rs.iter()
                .flat_map(|r| {
                    [
                        format!("{} client {}", r.client_stack, r.client_library_version),
                        format!("{} server {}", r.server_stack, r.server_library_version),
                    ]
                })
                .collect(),
        );
        v.push(format!(
            "Each cell is one handshake on 127.0.0.1 ({}); the client's offer was read from its \
             ClientHello. Costs: the client's CPU time per byte for the negotiated suite, from \
             {}; the chacha-first client's with hw off (no AES instructions, emulated), the \
             others' with hw on.",
            stacks.join("; "),
            if r.cost_source.is_empty() {
                "nothing (costs not measured)"
            } else {
                r.cost_source.as_str()
            }
        ));
    }
    for ver in versions(rs) {
        v.push(format!(
            "TLS {ver}: BoringSSL's equal-preference groups (kept by AWS-LC's libssl, not built \
             into ango: aws-lc-sys builds libssl only with its CMake builder and bindgen), with \
             [AES-128-GCM|ChaCha20-Poly1305]:AES-256-GCM — the server's order between groups, \
             the client's within one — would give {}; measured policies with the same outcome: \
             {}.",
            clients(rs)
                .iter()
                .filter_map(|c| {
                    let r = find(rs, &ver, c, rs.first()?.server_policy.as_str())?;
                    Some(format!(
                        "{c} {}",
                        rule(&ver, &r.client_offer).map_or_else(|| "nothing".into(), short)
                    ))
                })
                .collect::<Vec<_>>()
                .join(", "),
            agreement_text(rs, &ver)
        ));
    }
    v
}

/// Per TLS version, the matrix of client profiles × server policies: the
/// suite negotiated and its cost to the client.
fn tables(rs: &[TlsPolicyRecord]) -> Vec<Table> {
    let ps = policies(rs);
    let mut head = vec!["client \\ server"];
    head.extend(ps.iter().map(String::as_str));
    versions(rs)
        .into_iter()
        .map(|v| {
            let rows = clients(rs)
                .into_iter()
                .map(|c| {
                    let mut row = vec![table_cell(&c, "")];
                    row.extend(
                        ps.iter()
                            .map(|p| table_cell(cell(find(rs, &v, &c, p)), "n")),
                    );
                    row
                })
                .collect();
            Table::new(
                format!("TLS {v}: negotiated suite and its cost to the client (CPU per byte):"),
                &head,
                rows,
            )
        })
        .collect()
}

/// The terminal tables.
pub fn text(rs: &[TlsPolicyRecord]) -> String {
    let mut s = String::new();
    for t in tables(rs) {
        s.push_str(&t.text());
        s.push('\n');
    }
    for n in notes(rs) {
        let _ = writeln!(s, "  {n}");
    }
    let _ = writeln!(s, "\nSeed 004's findings, checked here:");
    s.push_str(&crate::findings::text(&findings(rs)));
    s
}

/// Background of a cell: green for the cheapest suite (within 5 %),
/// amber up to 2×, red beyond, grey without a cost.
fn colour(r: &TlsPolicyRecord) -> &'static str {
    match excess(r) {
        Some(x) if x <= 1.05 => "#d9f2d9",
        Some(x) if x <= 2.0 => "#fff0c2",
        Some(_) => "#f8d0d0",
        None => "#eeeeee",
    }
}

/// The report's section, or nothing without records.
pub fn section(rs: &[TlsPolicyRecord]) -> String {
    if rs.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h3 id=\"s004-policy\">TLS cipher-suite policies (seed 004 §6)</h3><p>What each server policy makes each \
         kind of client negotiate, and what the negotiated suite costs that client per byte. \
         Green: the client's cheapest suite among those both sides offer; amber: up to twice \
         its cost; red: more.</p>",
    );
    let ps = policies(rs);
    for v in versions(rs) {
        let _ = write!(
            out,
            "<h4>TLS {}</h4><table><tr><th>client \\ server</th>",
            escape(&v)
        );
        for p in &ps {
            let _ = write!(out, "<th>{}</th>", escape(p));
        }
        out.push_str("<th>equal-preference rule (not measured)</th></tr>");
        for c in clients(rs) {
            let _ = write!(out, "<tr><td>{}</td>", escape(&c));
            let mut offer: Vec<String> = Vec::new();
            for p in &ps {
                match find(rs, &v, &c, p) {
                    Some(r) => {
                        offer.clone_from(&r.client_offer);
                        let _ = write!(
                            out,
                            "<td style=\"background:{}\">{}</td>",
                            colour(r),
                            escape(&cell(Some(r)))
                        );
                    }
                    None => out.push_str("<td>–</td>"),
                }
            }
            let _ = write!(
                out,
                "<td><i>{}</i></td></tr>",
                escape(&rule(&v, &offer).map_or_else(|| "nothing".into(), short))
            );
        }
        out.push_str("</table>");
    }
    out.push_str(&crate::svg::bullet_list(&notes(rs)));
    out
}

const CSV_HEADER: &str = "tls_version,client_profile,server_policy,negotiated_suite,client_hw,client_cost_ns_per_byte,best_suite,best_cost_ns_per_byte,server_options,client_stack,server_stack";

pub fn csv(rs: &[TlsPolicyRecord]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    let num = |x: Option<f64>| x.map_or_else(String::new, |x| format!("{x:.4}"));
    for r in rs {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{}",
            r.tls_version,
            r.client_profile,
            r.server_policy,
            r.negotiated_suite,
            r.client_hw,
            num(r.client_cost_ns_per_byte),
            r.best_suite.as_deref().unwrap_or(""),
            num(r.best_cost_ns_per_byte),
            r.server_options.join(" "),
            r.client_stack,
            r.server_stack
        );
    }
    out
}

pub fn markdown(rs: &[TlsPolicyRecord]) -> String {
    let mut out = String::new();
    for t in tables(rs) {
        out.push_str(&t.md());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(c: &str, p: &str, agreed: &str, cost: f64, best: f64) -> TlsPolicyRecord {
        TlsPolicyRecord {
            head: ango_core::Header::new(ango_core::SuiteId::TlsPolicy, "r"),
            client_profile: c.into(),
            client_offer: if c == "aes-first" {
                vec![
                    "TLS_AES_128_GCM_SHA256".into(),
                    "TLS_CHACHA20_POLY1305_SHA256".into(),
                ]
            } else {
                vec![
                    "TLS_CHACHA20_POLY1305_SHA256".into(),
                    "TLS_AES_128_GCM_SHA256".into(),
                ]
            },
            server_policy: p.into(),
            server_order: vec![],
            server_options: if p == "client-order" {
                vec![]
            } else {
                vec!["cipher-server-preference".into()]
            },
            tls_version: "1.3".into(),
            negotiated_suite: agreed.into(),
            client_hw: "on".into(),
            client_cost_ns_per_byte: Some(cost),
            best_suite: Some(agreed.into()),
            best_cost_ns_per_byte: Some(best),
            cost_source: "test".into(),
            client_stack: "openssl".into(),
            server_stack: "openssl".into(),
            client_library_version: "OpenSSL 3.5".into(),
            server_library_version: "OpenSSL 3.5".into(),
            time: String::new(),
        }
    }

    #[test]
    fn matrix_and_seed_claims() {
        let a = "TLS_AES_128_GCM_SHA256";
        let c = "TLS_CHACHA20_POLY1305_SHA256";
        let rs = vec![
            rec("aes-first", "client-order", a, 0.5, 0.5),
            rec("chacha-first", "client-order", c, 1.0, 1.0),
            rec("aes-first", "server-chacha-first", c, 1.0, 0.5),
            rec("chacha-first", "server-chacha-first", c, 1.0, 1.0),
            rec(
                "aes-first",
                "server-aes-first+prioritize-chacha",
                a,
                0.5,
                0.5,
            ),
            rec(
                "chacha-first",
                "server-aes-first+prioritize-chacha",
                c,
                1.0,
                1.0,
            ),
        ];
        let f = findings(&rs);
        assert_eq!(f[0].verdict, Verdict::Holds);
        assert_eq!(f[0].value, Some(2.0));
        // PRIORITIZE_CHACHA serves both with the server's order.
        assert_eq!(f[1].verdict, Verdict::DoesNotHold);
        assert_eq!(findings(&rs[..4])[1].verdict, Verdict::Holds);
        let t = text(&rs);
        assert!(t.contains("ChaCha20-Poly1305 1.00 ns/B (2.0× best)"), "{t}");
        assert!(
            t.contains(
                "client-order (every client); server-chacha-first (chacha-first); \
                 server-aes-first+prioritize-chacha (every client)"
            ),
            "{t}"
        );
        let h = section(&rs);
        assert!(h.contains("#fff0c2") && h.contains("#d9f2d9"), "{h}");
        assert_eq!(csv(&rs).lines().count(), 7);
    }
}
