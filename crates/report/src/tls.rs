//! Presenting the TLS 1.3 handshake lab (`ango tls`): seed 003's tables as
//! text for the terminal and as HTML for the report, and inline SVG charts —
//! the stacked bars of the handshake's phases in the client's and the
//! server's view (seed 003 Figs 8 and 13–16) and the server flight's size
//! against its time (Figs 9–12). Every name taken from a record is escaped
//! before it reaches the page.

use crate::anchor;
use crate::svg::{escape, nice_step, PALETTE};
use crate::table::{cell, Cell, Table};
use ango_core::{TlsRecord, TLS_CLIENT_VIEW, TLS_SERVER_VIEW};
use std::fmt::Write;

mod charts;
use charts::{flight_charts, phase_chart, view_total};

/// OpenSSL's default write buffer: a server flight larger than this leaves
/// in more than one write (seed 003's coloured cells of Tables 10–12).
const WRITE_BUFFER: f64 = 4096.0;
/// Linux's initial congestion window, in segments, assumed when a record
/// could not read the server's.
const DEFAULT_CWND: f64 = 10.0;

/// The markers of the tables, explained once per output.
const MARKERS: &str = "* server flight over 4096 B (OpenSSL's write buffer); \
† more server segments than its initial congestion window (the rest waits for an ACK); \
!n n handshakes failed; ~ cut short by Ctrl-C";

/// Colour families of seed 003's legend (its Table 13).
#[derive(Clone, Copy, PartialEq)]
enum Family {
    /// Green: transmission on the wire.
    Wire,
    /// Grey: the TCP layer.
    Tcp,
    /// Blue: client processing, or waiting for client data.
    Client,
    /// Red: server processing.
    Server,
    /// Yellow: waiting for server data.
    WaitServer,
}

impl Family {
    /// The seed hatches red and yellow segments for legibility.
    fn hatched(self) -> bool {
        matches!(self, Family::Server | Family::WaitServer)
    }
}

/// One phase of the legend: its key in `phases_ns`, the seed's label, its
/// family and its colour (distinct shades within a family).
type Phase = (&'static str, &'static str, Family, &'static str);

/// Every phase of [`TLS_CLIENT_VIEW`] and [`TLS_SERVER_VIEW`], by family.
#[rustfmt::skip]
const PHASES: [Phase; 18] = [
    ("syn_sending", "SYN sending", Family::Wire, "#00441b"),
    ("ack_syn_sending", "ACK/SYN sending", Family::Wire, "#1b7837"),
    ("ack_sending", "ACK sending", Family::Wire, "#41ab5d"),
    ("client_hello_sending", "Client Hello sending", Family::Wire, "#74c476"),
    ("server_hello_sending", "Server Hello sending", Family::Wire, "#a1d99b"),
    ("finished_sending", "Finished sending", Family::Wire, "#c7e9c0"),
    ("syn_rcv_to_ack_syn_send", "SYN rcv -> ACK/SYN send", Family::Tcp, "#525252"),
    ("ack_syn_send_to_ack_send", "ACK/SYN send -> ACK send", Family::Tcp, "#969696"),
    ("ack_send_to_client_hello_send", "ACK send -> Client Hello send", Family::Tcp, "#cccccc"),
    ("ack_rcv_to_client_hello_rcv", "ACK rcv -> Client Hello rcv", Family::Client, "#2171b5"),
    ("finished_rcv_to_finished_send", "Finished rcv -> Finished send", Family::Client, "#9ecae1"),
    ("client_hello_rcv_to_server_hello_send", "Client Hello rcv -> Server Hello send", Family::Server, "#67000d"),
    ("server_hello_send_to_certificate_send", "Server Hello send -> Certificate send", Family::Server, "#cb181d"),
    ("certificate_send_to_certificate_verify_send", "Certificate send -> Certificate Verify send", Family::Server, "#fb6a4a"),
    ("certificate_verify_send_to_finished_send", "Certificate Verify send -> Finished send", Family::Server, "#fcbba1"),
    ("server_hello_rcv_to_certificate_rcv", "Server Hello rcv -> Certificate rcv", Family::WaitServer, "#b8860b"),
    ("certificate_rcv_to_certificate_verify_rcv", "Certificate rcv -> Certificate Verify rcv", Family::WaitServer, "#f2c80f"),
    ("certificate_verify_rcv_to_finished_rcv", "Certificate Verify rcv -> Finished rcv", Family::WaitServer, "#fbe88a"),
];

fn phase(key: &str) -> Option<&'static Phase> {
    PHASES.iter().find(|p| p.0 == key)
}

/// The seed's legend label of a phase key of `phases_ns` (e.g.
/// `client_hello_rcv_to_server_hello_send` → "Client Hello rcv -> Server
/// Hello send"); "unknown phase" for a key outside the legend.
pub fn legend_label(key: &str) -> &'static str {
    phase(key).map_or("unknown phase", |p| p.1)
}

/// Nanoseconds as milliseconds with three decimals.
fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// A median count: whole when it is, else with one decimal.
fn count(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The distinct values of a field, in order of first appearance.
fn distinct<'a>(
    records: impl IntoIterator<Item = &'a TlsRecord>,
    f: impl Fn(&'a TlsRecord) -> &'a str,
) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for r in records {
        if !v.contains(&f(r)) {
            v.push(f(r));
        }
    }
    v
}

/// "server / CA", the name of a combination within a group.
fn pair(r: &TlsRecord) -> String {
    format!("{} / {}", r.server_sig, r.ca_sig)
}

/// The server's initial congestion window of a record, segments.
fn cwnd(r: &TlsRecord) -> f64 {
    r.tcp.server_initial_cwnd.unwrap_or(DEFAULT_CWND)
}

fn over_buffer(r: &TlsRecord) -> bool {
    r.server_flight_bytes.is_some_and(|b| b > WRITE_BUFFER)
}

fn over_cwnd(r: &TlsRecord) -> bool {
    r.server_flight_segments.is_some_and(|s| s > cwnd(r))
}

/// The flight markers of a record's cells (`*` and `†`), padded to two
/// characters so the numbers of a column stay aligned.
fn marks(r: &TlsRecord) -> String {
    let m = match (over_buffer(r), over_cwnd(r)) {
        (true, true) => "*†",
        (true, false) => "*",
        (false, true) => "†",
        (false, false) => "",
    };
    format!("{m:<2}")
}

/// The link, RTT and TCP settings of a run, from its first record.
/// The two-host setting: the server, the RTT, the clocks' offset.
fn two_host_summary(records: &[TlsRecord]) -> Option<String> {
    let hosts: Vec<&ango_core::TlsTwoHost> =
        records.iter().filter_map(|r| r.two_host.as_ref()).collect();
    let h = hosts.first()?;
    let offsets: Vec<f64> = hosts.iter().map(|h| h.clock_offset_ns).collect();
    let (lo, hi) = offsets
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let worst = hosts
        .iter()
        .map(|h| h.clock_offset_uncertainty_ns)
        .fold(0.0, f64::max);
    let rtts: Vec<f64> = records.iter().filter_map(|r| r.rtt_ns).collect();
    let rtt = ango_harness::stats::Summary::of(&rtts).map(|s| s.median);
    Some(format!(
        "Two hosts: this client → tls-server {} (host {}, its run {}); RTT {} (median round trip \
         of the control connection's clock samples); server clock minus client clock {} ms, \
         each combination's estimate within ± {} ms (NTP-style over the control connection, the \
         least-delay sample before and after it); the phases {} cross between the hosts and carry \
         that uncertainty, every other phase is a difference on one host's clock; the server {}",
        h.server,
        h.server_host,
        h.server_run_id,
        rtt.map_or_else(|| "not measured".into(), |x| format!("{} ms", ms(x))),
        if hi - lo < 1000.0 {
            ms(lo)
        } else {
            format!("{} to {}", ms(lo), ms(hi))
        },
        ms(worst),
        h.cross_host_phases.join(", "),
        if h.server_captured {
            "captured its own packets (its pcaps are beside the client's)"
        } else {
            "did not capture (not root): its points and the phases that need them are missing"
        }
    ))
}

fn link_summary(records: &[TlsRecord]) -> String {
    let Some(r) = records.first() else {
        return String::new();
    };
    if let Some(s) = two_host_summary(records) {
        return s;
    }
    let mut s = format!(
        "Link {}: RTT asked {} ms, achieved {}",
        r.link,
        ms(r.rtt_asked_ns),
        r.rtt_ns
            .map_or_else(|| "not measured".into(), |x| format!("{} ms", ms(x)))
    );
    if r.rtt_ns.is_some() {
        s.push_str(" (median of TCP echoes between the namespaces before the handshakes");
        if let Some(b) = r.rtt_base_ns {
            let _ = write!(s, "; path without added delay {} ms", ms(b));
        }
        if let Some(d) = r.link_delay_ns {
            let _ = write!(s, ", one-way delay added {} ms", ms(d));
        }
        s.push(')');
    }
    let _ = write!(
        s,
        "; congestion control {}; server MSS {}; server initial cwnd {} (TCP_INFO)",
        if r.tcp.congestion_control.is_empty() {
            "unknown"
        } else {
            &r.tcp.congestion_control
        },
        r.tcp
            .server_mss
            .map_or_else(|| "unknown".into(), |m| format!("{m:.0} B")),
        r.tcp.server_initial_cwnd.map_or_else(
            || format!("unknown ({DEFAULT_CWND:.0} segments assumed)"),
            |c| format!("{} segments", count(c))
        )
    );
    s
}

/// A server signature (rows) × CA signature (columns) table of the records
/// of `group` (all records when `None`), one cell each from `make`.
fn grid(
    title: String,
    records: &[TlsRecord],
    group: Option<&str>,
    make: impl Fn(&TlsRecord) -> Cell,
) -> Table {
    let chosen: Vec<&TlsRecord> = records
        .iter()
        .filter(|r| group.is_none_or(|g| r.group == g))
        .collect();
    let cas = distinct(chosen.iter().copied(), |r| &r.ca_sig);
    let mut head = vec!["server \\ CA".to_string()];
    head.extend(cas.iter().map(|c| c.to_string()));
    let rows = distinct(chosen.iter().copied(), |r| &r.server_sig)
        .into_iter()
        .map(|s| {
            let mut row = vec![cell(s, "")];
            row.extend(cas.iter().map(|c| {
                chosen
                    .iter()
                    .find(|r| r.server_sig == s && r.ca_sig == *c)
                    .map_or_else(|| cell("-", "n"), |r| make(r))
            }));
            row
        })
        .collect();
    Table {
        title,
        head,
        rows,
        ..Table::default()
    }
}

/// The HTML class of a record's number: failed, flight over the write
/// buffer (coloured as the seed colours those cells), or plain.
fn class(r: &TlsRecord) -> &'static str {
    if r.failures > 0 || r.handshake_ns.is_none() {
        "n fail"
    } else if over_buffer(r) {
        "n noisy"
    } else {
        "n"
    }
}

/// The flight markers followed by the failure and cut-short markers, for
/// the handshake-time cells.
fn outcome(r: &TlsRecord) -> String {
    let mut s = marks(r);
    if r.failures > 0 || r.cut_short {
        s.truncate(s.trim_end().len());
    }
    if r.failures > 0 {
        let _ = write!(s, " !{}", r.failures);
    }
    if r.cut_short {
        s.push_str(" ~");
    }
    s
}

/// Every table of the section, in order.
fn tables(records: &[TlsRecord]) -> Vec<Table> {
    let groups = distinct(records, |r| &r.group);
    let mut out = Vec::new();
    for g in &groups {
        out.push(grid(
            format!("Handshake time, client view (connect() to the end of the handshake), median [p95] ms: group {g}"),
            records,
            Some(g),
            |r| {
                let t = r.handshake_ns.as_ref().map_or_else(
                    || "no handshake".to_string(),
                    |q| format!("{} [{}]", ms(q.median), ms(q.p95)),
                );
                cell(format!("{t}{}", outcome(r)), class(r))
            },
        ));
    }
    let rows = records
        .iter()
        .map(|r| {
            let q = |f: fn(&ango_core::Stats) -> f64| {
                cell(
                    r.handshake_ns.as_ref().map_or("-".into(), |x| ms(f(x))),
                    class(r),
                )
            };
            let opt = |v: Option<f64>| cell(v.map_or("-".into(), count), "n");
            vec![
                cell(&r.group, ""),
                cell(&r.server_sig, ""),
                cell(&r.ca_sig, ""),
                cell(r.handshakes.to_string(), "n"),
                cell(
                    r.failures.to_string(),
                    if r.failures > 0 { "n fail" } else { "n" },
                ),
                q(|x| x.mean),
                q(|x| x.median),
                q(|x| x.p95),
                opt(r.server_flight_bytes),
                opt(r.server_flight_segments),
                cell(outcome(r).trim(), ""),
            ]
        })
        .collect();
    out.push(Table {
        title: "Every combination: handshake time, client view".into(),
        head: "group,server,CA,handshakes,failed,mean ms,median ms,p95 ms,flight B,segments,notes"
            .split(',')
            .map(String::from)
            .collect(),
        rows,
        ..Table::default()
    });
    for g in &groups {
        out.push(grid(
            format!("Client time from ServerHello received to its Finished sent (wire, 5 -> 9), median ms (seed 003 Tables 10-12): group {g}"),
            records,
            Some(g),
            |r| {
                let t = r.client_sh_rcv_to_finished_send_ns.map_or("-".into(), ms);
                cell(format!("{t}{}", marks(r)), class(r))
            },
        ));
    }
    for g in &groups {
        out.push(grid(
            format!("Server TCP segments from ServerHello to Finished (flight bytes, and an OpenSSL server's write calls), medians (seed 003 Table 9): group {g}"),
            records,
            Some(g),
            |r| {
                let t = match (r.server_flight_segments, r.server_flight_bytes) {
                    (Some(s), Some(b)) => format!("{} ({} B)", count(s), count(b)),
                    (Some(s), None) => count(s),
                    (None, Some(b)) => format!("- ({} B)", count(b)),
                    (None, None) => "-".into(),
                };
                let w = r
                    .server_flight_writes
                    .map_or(String::new(), |w| format!(", {} write{}", count(w), if w == 1.0 { "" } else { "s" }));
                cell(format!("{t}{w}{}", marks(r)), class(r))
            },
        ));
    }
    out.push(grid(
        "Server certificate, DER bytes (seed 003 Table 15)".into(),
        records,
        None,
        |r| cell(r.server_cert_bytes.to_string(), "n"),
    ));
    let cas = distinct(records, |r| &r.ca_sig);
    let mut ca_row = vec![cell("CA certificate", "")];
    ca_row.extend(cas.iter().map(|c| {
        let b = records
            .iter()
            .find(|r| r.ca_sig == *c)
            .map_or(0, |r| r.ca_cert_bytes);
        cell(b.to_string(), "n")
    }));
    out.push(Table {
        title: "Root CA certificate, DER bytes (seed 003 Table 14; held by the client, not sent)"
            .into(),
        head: std::iter::once("CA".to_string())
            .chain(cas.iter().map(|c| c.to_string()))
            .collect(),
        rows: vec![ca_row],
        ..Table::default()
    });
    out
}

/// Failures, cut-short combinations and capture problems, one line each.
fn notes(records: &[TlsRecord]) -> Vec<String> {
    let mut out = Vec::new();
    for r in records {
        let name = format!("{} {} by CA {}", r.group, r.server_sig, r.ca_sig);
        if r.failures > 0 {
            out.push(format!(
                "{name}: {} of {} handshakes failed{}",
                r.failures,
                r.handshakes,
                r.failure_examples
                    .first()
                    .map(|e| format!(" (e.g. {e})"))
                    .unwrap_or_default()
            ));
        }
        if r.cut_short {
            out.push(format!(
                "{name}: cut short by Ctrl-C after {} handshakes",
                r.handshakes
            ));
        }
        let c = &r.capture;
        if c.handshakes_timed < c.handshakes_in_pcap || !c.problems.is_empty() || c.kernel_drops > 0
        {
            out.push(format!(
                "{name}: {} of {} captured handshakes timed on the wire, {} packets dropped by the kernel{}",
                c.handshakes_timed,
                c.handshakes_in_pcap,
                c.kernel_drops,
                if c.problems.is_empty() {
                    String::new()
                } else {
                    format!(": {}", c.problems.join("; "))
                }
            ));
        }
        if r.tcp.retransmissions_c2s + r.tcp.retransmissions_s2c > 0 {
            out.push(format!(
                "{name}: retransmitted segments, client to server {}, server to client {}",
                r.tcp.retransmissions_c2s, r.tcp.retransmissions_s2c
            ));
        }
    }
    out
}

/// Plain-text tables for the terminal (`ango tls`): the link, handshake
/// times per combination, seed 003's Tables 9–12 and 14–15, and notes.
/// `openssl → rustls`: the client's and the server's stack.
pub fn stacks(r: &TlsRecord) -> String {
    format!("{} → {}", r.client_stack, r.server_stack)
}

/// The records per stack pairing, OpenSSL on both sides first.
fn by_pairing(records: &[TlsRecord]) -> Vec<(String, Vec<TlsRecord>)> {
    // The stacks, and the round trip when the run asked for several.
    let mut rtts: Vec<u64> = records.iter().map(|r| r.rtt_asked_ns as u64).collect();
    rtts.sort_unstable();
    rtts.dedup();
    let key = |r: &TlsRecord| {
        if rtts.len() > 1 {
            format!("{}, {:.0} ms RTT", stacks(r), r.rtt_asked_ns / 1e6)
        } else {
            stacks(r)
        }
    };
    let mut keys: Vec<String> = Vec::new();
    for r in records {
        let k = key(r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort_by_key(|k| !k.starts_with("openssl → openssl"));
    keys.into_iter()
        .map(|k| {
            let rs = records.iter().filter(|r| key(r) == k).cloned().collect();
            (k, rs)
        })
        .collect()
}

/// The stack comparison (issue 13): per (group, server, CA) the median
/// handshake and the seed's two in-flight intervals on the wire, one
/// column per stack pairing. Empty with one pairing.
fn stack_comparison(records: &[TlsRecord]) -> Option<Table> {
    let pairings = by_pairing(records);
    if pairings.len() < 2 {
        return None;
    }
    let mut combos: Vec<(String, String, String)> = Vec::new();
    for r in records {
        let k = (r.group.clone(), r.server_sig.clone(), r.ca_sig.clone());
        if !combos.contains(&k) {
            combos.push(k);
        }
    }
    let mut header = vec!["group".to_string(), "server".to_string(), "CA".to_string()];
    header.extend(pairings.iter().map(|(k, _)| k.clone()));
    let rows = combos
        .iter()
        .map(|(g, sv, ca)| {
            let mut row = vec![
                cell(g.clone(), ""),
                cell(sv.clone(), ""),
                cell(ca.clone(), ""),
            ];
            for (_, rs) in &pairings {
                let r = rs
                    .iter()
                    .find(|r| &r.group == g && &r.server_sig == sv && &r.ca_sig == ca);
                row.push(match r {
                    Some(r) => cell(
                        format!(
                            "{} ({} / {})",
                            r.handshake_ns
                                .as_ref()
                                .map_or_else(|| "-".into(), |q| ms(q.median)),
                            r.client_sh_rcv_to_finished_send_ns
                                .map_or_else(|| "-".into(), ms),
                            r.server_sh_send_to_finished_send_ns
                                .map_or_else(|| "-".into(), ms)
                        ),
                        class(r),
                    ),
                    None => cell("not run", ""),
                });
            }
            row
        })
        .collect();
    Some(Table {
        title: "Stack comparison: median handshake, ms (client SH received → Finished sent / \
                server SH sent → Finished sent, on the wire)"
            .into(),
        head: header,
        rows,
        ..Table::default()
    })
}

pub fn text_tables(records: &[TlsRecord]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let pairings = by_pairing(records);
    if pairings.len() > 1 {
        let mut out = String::new();
        for (k, rs) in &pairings {
            let _ = writeln!(out, "=== client → server stacks: {k} ===");
            out.push_str(&text_tables(rs));
            out.push('\n');
        }
        if let Some(t) = stack_comparison(records) {
            out.push_str(&t.text());
        }
        return out;
    }
    let mut out = format!(
        "TLS 1.3 handshakes: {} combinations\n{}\n{MARKERS}\n",
        records.len(),
        link_summary(records)
    );
    for t in tables(records) {
        out.push('\n');
        out.push_str(&t.text());
    }
    let n = notes(records);
    if !n.is_empty() {
        out.push_str("\nNotes:\n");
        for x in n {
            let _ = writeln!(out, "  - {x}");
        }
    }
    out
}

/// The tables of [`text_tables`] in Markdown, with the link and notes.
pub fn markdown(records: &[TlsRecord]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let pairings = by_pairing(records);
    if pairings.len() > 1 {
        let mut out = String::new();
        for (k, rs) in &pairings {
            let _ = writeln!(out, "# Stacks {k}\n");
            out.push_str(&markdown(rs));
            out.push('\n');
        }
        if let Some(t) = stack_comparison(records) {
            out.push_str(&t.md());
        }
        return out;
    }
    let mut out = format!(
        "## TLS 1.3 handshakes: {} combinations\n\n{}\n\n{MARKERS}\n",
        records.len(),
        link_summary(records)
    );
    for t in tables(records) {
        out.push('\n');
        out.push_str(&t.md());
    }
    let n = notes(records);
    if !n.is_empty() {
        out.push_str("\nNotes:\n\n");
        for x in n {
            let _ = writeln!(out, "- {x}");
        }
    }
    out
}

/// The records as CSV: one row per combination with its handshake times,
/// flights and every phase median.
pub fn csv(records: &[TlsRecord]) -> String {
    // Every phase once: the client view, then the server's own.
    let phases: Vec<&str> = TLS_CLIENT_VIEW
        .iter()
        .chain(
            TLS_SERVER_VIEW
                .iter()
                .filter(|k| !TLS_CLIENT_VIEW.contains(k)),
        )
        .copied()
        .collect();
    let mut out = String::from("group,server_sig,ca_sig,handshakes,failures,median_ns,q1_ns,q3_ns,p95_ns,mean_ns,client_sh_rcv_to_finished_send_ns,server_sh_send_to_finished_send_ns,server_flight_bytes,server_flight_segments,client_flight_segments,cert_chain_bytes,rtt_ns,link");
    for p in &phases {
        let _ = write!(out, ",{p}_ns");
    }
    out.push_str(",client_stack,server_stack\n");
    let f = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    for r in records {
        let q = r.handshake_ns.as_ref();
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.group,
            r.server_sig,
            r.ca_sig,
            r.handshakes,
            r.failures,
            f(q.map(|q| q.median)),
            f(q.map(|q| q.q1)),
            f(q.map(|q| q.q3)),
            f(q.map(|q| q.p95)),
            f(q.map(|q| q.mean)),
            f(r.client_sh_rcv_to_finished_send_ns),
            f(r.server_sh_send_to_finished_send_ns),
            f(r.server_flight_bytes),
            f(r.server_flight_segments),
            f(r.client_flight_segments),
            r.cert_chain_bytes,
            f(r.rtt_ns),
            r.link
        );
        for p in &phases {
            let _ = write!(out, ",{}", f(r.phases_ns.get(*p).copied()));
        }
        let _ = writeln!(out, ",{},{}", r.client_stack, r.server_stack);
    }
    out
}

/// The report's TLS section: the link, the stacked phase bars per group,
/// the flight charts, the tables of [`text_tables`] as HTML, and notes.
/// Empty when there is no record.
pub fn html_section(records: &[TlsRecord]) -> String {
    format!("{}{}", seed_section(records), stacks_section(records))
}

/// Seed 003's part: the first pairing (OpenSSL on both sides when it ran)
/// open, a pass over another round trip (the congestion window's) folded.
pub fn seed_section(records: &[TlsRecord]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let pairings = by_pairing(records);
    let base_rtt = pairings[0].1.first().map(|r| r.rtt_asked_ns);
    let mut out = String::new();
    for (i, (k, rs)) in pairings.iter().enumerate() {
        let other_rtt = rs.first().map(|r| r.rtt_asked_ns) != base_rtt;
        if i == 0 {
            let title = if pairings.len() == 1 {
                "TLS 1.3 handshakes".to_string()
            } else {
                format!("TLS 1.3 handshakes, stacks {k}")
            };
            out.push_str(&pairing_section(rs, &title, true));
        } else if other_rtt {
            let _ = write!(
                out,
                "<details id=\"{}\" class=\"pairing\"><summary>The congestion window: stacks {} \
                 ({} combinations, flights within and beyond the initial window)</summary>{}</details>",
                anchor::TLS_CWND,
                escape(k),
                rs.len(),
                pairing_section(rs, &format!("TLS 1.3 handshakes, stacks {k}"), false)
            );
        }
    }
    out
}

/// ango's own part: the other stack pairings (folded) and the comparison
/// of the stacks.
pub fn stacks_section(records: &[TlsRecord]) -> String {
    let pairings = by_pairing(records);
    if pairings.len() < 2 {
        return String::new();
    }
    let base_rtt = pairings[0].1.first().map(|r| r.rtt_asked_ns);
    let mut out = String::from(
        "<h3 id=\"tls-stacks\">TLS stacks: rustls beside OpenSSL</h3><p>The same \
         combinations with each pairing of client and server stack, one run. A rustls side's \
         in-process times come from ango's I/O loop around rustls (flight resolution), OpenSSL's \
         from its message callback.</p>",
    );
    let same_rtt: Vec<TlsRecord> = records
        .iter()
        .filter(|r| Some(r.rtt_asked_ns) == base_rtt)
        .cloned()
        .collect();
    if let Some(t) = stack_comparison(&same_rtt) {
        out.push_str(&t.html());
    }
    for (k, rs) in pairings.iter().skip(1) {
        if rs.first().map(|r| r.rtt_asked_ns) != base_rtt {
            continue;
        }
        let _ = write!(
            out,
            "<details class=\"pairing\"><summary>TLS 1.3 handshakes, stacks {} ({} \
             combinations)</summary>{}</details>",
            escape(k),
            rs.len(),
            pairing_section(rs, &format!("TLS 1.3 handshakes, stacks {k}"), false)
        );
    }
    out
}

/// One pairing's (stacks and round trip) charts and tables; the first
/// carries the anchors the findings link to.
fn pairing_section(records: &[TlsRecord], title: &str, first: bool) -> String {
    let link = link_summary(records);
    let mut out = format!(
        "<h3>{}</h3><p>{} combinations. {}.</p><p>{}. In the tables, yellow cells: server flight over 4096 B; red: failures.</p>",
        escape(title),
        records.len(),
        escape(&link),
        escape(MARKERS)
    );
    let _ = write!(
        out,
        "<h4 id=\"{}\">Phases of the handshake (seed 003 Figs 8, 13-16)</h4>",
        if first { anchor::TLS_PHASES } else { "" }
    );
    let axis = records
        .iter()
        .flat_map(|r| {
            [
                view_total(r, &TLS_CLIENT_VIEW),
                view_total(r, &TLS_SERVER_VIEW),
            ]
        })
        .fold(0.0, f64::max);
    if axis > 0.0 {
        for (i, g) in distinct(records, |r| &r.group).into_iter().enumerate() {
            let rows: Vec<&TlsRecord> = records.iter().filter(|r| r.group == g).collect();
            out.push_str(&phase_chart(g, &rows, axis, 2 * i, &link, true));
            out.push_str(&phase_chart(g, &rows, axis, 2 * i + 1, &link, false));
        }
    } else {
        out.push_str("<p>No wire timeline in any combination (the captures were not possible, e.g. loopback without root): no phase chart.</p>");
    }
    let _ = write!(
        out,
        "<h4 id=\"{}\">Server flight (seed 003 Figs 9-12, Table 9)</h4>",
        if first { anchor::TLS_FLIGHTS } else { "" }
    );
    out.push_str(&flight_charts(records, &link));
    for t in tables(records) {
        out.push_str(&t.html());
    }
    let n = notes(records);
    if !n.is_empty() {
        out.push_str("<h4>Failures and capture notes</h4><ul>");
        for x in n {
            let _ = write!(out, "<li>{}</li>", escape(&x));
        }
        out.push_str("</ul>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::{Stats, TlsCapture, TlsTcp};
    use std::collections::BTreeMap;

    /// A complete record: every phase 0.1 ms, flight `bytes` in `segs`
    /// segments, cwnd 10, MSS 1448, veth link at 2 ms.
    fn rec(group: &str, server: &str, ca: &str, bytes: f64, segs: f64) -> TlsRecord {
        let phases: BTreeMap<String, f64> = TLS_CLIENT_VIEW
            .iter()
            .chain(TLS_SERVER_VIEW.iter())
            .map(|k| (k.to_string(), 100_000.0))
            .collect();
        TlsRecord {
            head: ango_core::Header {
                schema: 1,
                schema_version: 1,
                suite: ango_core::SuiteId::Tls,
                run_id: "t".into(),
            },
            library_version: String::new(),
            client_stack: "openssl".into(),
            server_stack: "openssl".into(),
            client_library_version: String::new(),
            server_library_version: String::new(),
            group: group.into(),
            server_sig: server.into(),
            ca_sig: ca.into(),
            handshakes: 100,
            failures: 0,
            failure_examples: vec![],
            handshake_ns: Some(Stats {
                median: 3_690_000.0,
                q1: 3_600_000.0,
                q3: 3_800_000.0,
                p95: 4_100_000.0,
                mean: 3_700_000.0,
                ..Stats::constant(3_690_000.0)
            }),
            phases_ns: phases,
            client_sh_rcv_to_finished_send_ns: Some(572_286.0),
            server_sh_send_to_finished_send_ns: Some(120_000.0),
            openssl_ns: BTreeMap::new(),
            rustls_io_ns: BTreeMap::new(),
            server_flight_bytes: Some(bytes),
            server_flight_segments: Some(segs),
            client_flight_segments: Some(1.0),
            client_finished_segments: Some(1.0),
            server_flight_writes: None,
            server_first_write_bytes: None,
            server_write_gap_ns: None,
            tcp: TlsTcp {
                server_mss: Some(1448.0),
                client_mss: Some(1448.0),
                server_initial_cwnd: Some(10.0),
                server_cwnd_after: Some(10.0),
                retransmissions_c2s: 0,
                retransmissions_s2c: 0,
                congestion_control: "cubic".into(),
            },
            capture: TlsCapture {
                handshakes_in_pcap: 100,
                handshakes_timed: 100,
                ..TlsCapture::default()
            },
            cert_chain_bytes: 952,
            server_cert_bytes: 952,
            ca_cert_bytes: if ca == "ml-dsa-44" { 4198 } else { 998 },
            rtt_ns: Some(2_010_000.0),
            rtt_asked_ns: 2_000_000.0,
            rtt_base_ns: Some(60_000.0),
            link_delay_ns: Some(975_000.0),
            link: "veth".into(),
            server_bad_attempts: 0,
            cut_short: false,
            two_host: None,
            method: String::new(),
            time: String::new(),
        }
    }

    fn sample() -> Vec<TlsRecord> {
        let mut v = vec![
            rec("x25519", "rsa-2048", "rsa-2048", 2500.0, 2.0),
            rec("x25519", "rsa-2048", "ml-dsa-44", 6000.0, 6.0),
            rec("x25519", "ml-dsa-44", "rsa-2048", 9000.0, 9.0),
            rec("ml-kem-768", "rsa-2048", "rsa-2048", 3600.0, 3.0),
            rec("ml-kem-768", "ml-dsa-44", "ml-dsa-44", 16000.0, 12.0),
        ];
        v[2].failures = 2;
        v[2].failure_examples = vec!["alert <bad>".into()];
        v[3].cut_short = true;
        v[4].server_cert_bytes = 4152;
        v
    }

    #[test]
    fn csv_has_a_row_per_combination_and_every_phase() {
        let rs = sample();
        let csv = csv(&rs);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), rs.len() + 1);
        let head: Vec<&str> = lines[0].split(',').collect();
        // Every phase of both views once, after the fixed columns, then
        // the two stacks.
        assert_eq!(head.len(), 18 + 18 + 2);
        assert_eq!(head[head.len() - 2..], ["client_stack", "server_stack"]);
        for k in TLS_CLIENT_VIEW.iter().chain(TLS_SERVER_VIEW.iter()) {
            assert_eq!(head.iter().filter(|h| **h == format!("{k}_ns")).count(), 1);
        }
        for l in &lines[1..] {
            assert_eq!(l.split(',').count(), head.len(), "{l}");
        }
        assert!(lines[1].starts_with("x25519,rsa-2048,rsa-2048,"));
    }

    #[test]
    fn markdown_tables_have_aligned_rows() {
        let md = markdown(&sample());
        assert!(md.starts_with("## TLS 1.3 handshakes: 5 combinations"));
        let mut tables = 0;
        for block in md.split("\n\n").filter(|b| b.starts_with('|')) {
            tables += 1;
            let cols: Vec<usize> = block
                .lines()
                .map(|l| {
                    l.matches(" |").count() + l.matches("-|").count() + l.matches(":|").count()
                })
                .collect();
            assert!(cols.windows(2).all(|w| w[0] == w[1]), "{block}");
        }
        assert!(tables >= 3, "{md}");
        assert!(markdown(&[]).is_empty());
    }

    /// Every `<svg>` is closed and the tags inside it are balanced.
    fn assert_balanced_svg(html: &str) {
        assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
        for chunk in html.split("<svg").skip(1) {
            let body = &chunk[..chunk.find("</svg>").expect("closed svg")];
            let mut stack: Vec<&str> = Vec::new();
            for tag in body.split('<').skip(1) {
                let end = tag.find('>').expect("tag ends");
                let inner = &tag[..end];
                if inner.ends_with('/') {
                    continue;
                }
                let name = inner.split_whitespace().next().unwrap_or("");
                match name.strip_prefix('/') {
                    Some(closing) => assert_eq!(stack.pop(), Some(closing), "in {body}"),
                    None => stack.push(name),
                }
            }
            assert!(stack.is_empty(), "unclosed {stack:?}");
        }
    }

    #[test]
    fn legend_covers_both_views() {
        for k in TLS_CLIENT_VIEW.iter().chain(TLS_SERVER_VIEW.iter()) {
            assert_ne!(legend_label(k), "unknown phase", "{k}");
        }
        let mut labels: Vec<&str> = PHASES.iter().map(|p| p.1).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), PHASES.len());
        assert_eq!(
            legend_label("client_hello_rcv_to_server_hello_send"),
            "Client Hello rcv -> Server Hello send"
        );
        assert_eq!(legend_label("nope"), "unknown phase");
        let family = |k| phase(k).map(|p| p.2);
        assert!(family("finished_sending") == Some(Family::Wire));
        assert!(family("ack_send_to_client_hello_send") == Some(Family::Tcp));
        assert!(family("certificate_rcv_to_certificate_verify_rcv") == Some(Family::WaitServer));
    }

    #[test]
    fn text_has_the_seed_tables_and_markers() {
        let t = text_tables(&sample());
        assert!(
            t.contains("Link veth: RTT asked 2.000 ms, achieved 2.010 ms"),
            "{t}"
        );
        assert!(
            t.contains(
                "congestion control cubic; server MSS 1448 B; server initial cwnd 10 segments"
            ),
            "{t}"
        );
        // Table 9: segments with bytes, the 4096 B and cwnd markers.
        assert!(t.contains("2 (2500 B)"), "{t}");
        assert!(t.contains("6 (6000 B)*"), "{t}");
        assert!(t.contains("12 (16000 B)*†"), "{t}");
        assert!(t.contains("* server flight over 4096 B"), "{t}");
        // Handshake time, failures and cut-short; Tables 10-12.
        assert!(t.contains("3.690 [4.100]"), "{t}");
        assert!(t.contains("!2"), "{t}");
        assert!(t.contains("3.690 [4.100] ~"), "{t}");
        assert!(t.contains("0.572"), "{t}");
        assert!(
            t.contains("2 of 100 handshakes failed (e.g. alert <bad>)"),
            "{t}"
        );
        assert!(
            t.contains("cut short by Ctrl-C after 100 handshakes"),
            "{t}"
        );
        // Mean, median and p95 per combination; certificate sizes.
        let flat: Vec<&str> = t
            .lines()
            .find(|l| l.starts_with("x25519 "))
            .map(|l| l.split_whitespace().collect())
            .unwrap_or_default();
        assert_eq!(
            flat,
            [
                "x25519", "rsa-2048", "rsa-2048", "100", "0", "3.700", "3.690", "4.100", "2500",
                "2"
            ]
        );
        assert!(
            t.contains("4152") && t.contains("4198") && t.contains("998"),
            "{t}"
        );
        assert_eq!(t.matches("group x25519").count(), 3, "{t}");
    }

    #[test]
    fn html_has_one_phase_chart_per_group_and_both_thresholds() {
        let mut v = sample();
        v[0].group = "x<y&z".into();
        let h = html_section(&v);
        assert!(h.starts_with("<h3>TLS 1.3 handshakes</h3>"));
        // Each group's two views, eight and seven series.
        assert_eq!(
            h.matches("handshake phases, client view</title>").count(),
            3,
            "{h}"
        );
        assert_eq!(
            h.matches("handshake phases, server view</title>").count(),
            3,
            "{h}"
        );
        assert_eq!(h.matches("data-series=\"8\"").count(), 3, "{h}");
        assert_eq!(h.matches("data-series=\"7\"").count(), 3, "{h}");
        assert!(h.contains(&format!("id=\"{}\"", crate::anchor::TLS_FLIGHTS)));
        assert!(h.contains("OpenSSL write buffer 4096 B"));
        assert!(h.contains("initial window 10 segments (14480 B)"));
        assert!(h.contains("Client Hello rcv -&gt; Server Hello send"));
        assert!(h.contains("x&lt;y&amp;z") && !h.contains("x<y"));
        assert!(h.contains("alert &lt;bad&gt;") && !h.contains("<bad>"));
        assert!(h.contains("class=\"n noisy\"") && h.contains("class=\"n fail\""));
        assert_eq!(h.matches("<svg").count(), 3 * 2 + 2);
        assert_balanced_svg(&h);
        assert_eq!(html_section(&[]), "");
    }

    #[test]
    fn missing_data_is_said_not_drawn() {
        let mut bare = rec("x25519", "p-256", "p-256", 0.0, 0.0);
        bare.phases_ns.clear();
        bare.handshake_ns = None;
        bare.failures = 100;
        bare.client_sh_rcv_to_finished_send_ns = None;
        bare.server_sh_send_to_finished_send_ns = None;
        bare.server_flight_bytes = None;
        bare.server_flight_segments = None;
        bare.tcp = TlsTcp::default();
        bare.rtt_ns = None;
        bare.rtt_base_ns = None;
        bare.link_delay_ns = None;
        bare.link = "loopback".into();
        let only = [bare.clone()];
        let t = text_tables(&only);
        assert!(
            t.contains("no handshake !100") && t.contains("achieved not measured"),
            "{t}"
        );
        assert!(t.contains("unknown (10 segments assumed)"), "{t}");
        let h = html_section(&only);
        assert!(h.contains("No wire timeline in any combination"), "{h}");
        assert!(h.contains("no combination has a captured flight"), "{h}");
        assert_balanced_svg(&h);

        let mut partial = rec("x25519", "rsa-2048", "rsa-2048", 2500.0, 2.0);
        partial
            .phases_ns
            .insert("server_hello_sending".into(), -5_000.0);
        partial.phases_ns.remove("finished_sending");
        partial.tcp.server_mss = None;
        let h = html_section(&[partial, bare]);
        assert_eq!(
            h.matches("handshake phases, client view</title>").count(),
            1
        );
        assert!(h.contains("Not drawn, missing or negative"), "{h}");
        assert!(h.contains("Server Hello sending (-0.005 ms)"), "{h}");
        assert!(h.contains("Finished sending (missing)"), "{h}");
        assert!(h.contains("No wire timeline (captures not possible"), "{h}");
        assert!(h.contains("The server's MSS is unknown"), "{h}");
        assert!(
            h.contains("1 of 2 combinations have no captured flight"),
            "{h}"
        );
        assert_balanced_svg(&h);
    }

    #[test]
    fn far_thresholds_are_left_out() {
        let mut v = vec![rec("x25519", "rsa-2048", "rsa-2048", 2500.0, 2.0)];
        v[0].tcp.server_mss = Some(65483.0);
        let h = html_section(&v);
        assert!(
            h.contains("lies far right of the points and is not drawn"),
            "{h}"
        );
        assert!(h.contains("OpenSSL write buffer 4096 B"));
    }
}
