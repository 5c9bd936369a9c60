//! One handshake's timeline: where each TCP and TLS event happened on the
//! wire at each end, the phases of seed 003's legend, the flights' sizes
//! and segments, and OpenSSL's in-process times beside them.
//!
//! Points of seed 003's figure 19 and their names here (wire times from the
//! captures; a message's time is that of its **last** byte, when it has
//! wholly left or wholly arrived; its first byte's time is kept too):
//!
//! | fig. 19 | name | seen at |
//! |---|---|---|
//! | 1 | `syn_sent` | client |
//! | A | `syn_rcvd` | server |
//! | B | `syn_ack_sent` | server |
//! | 2 | `syn_ack_rcvd` | client |
//! | 3 | `ack_sent` | client |
//! | C | `ack_rcvd` | server |
//! | 4 | `client_hello_sent` | client |
//! | D | `client_hello_rcvd` | server |
//! | E | `server_hello_sent` | server |
//! | 5 | `server_hello_rcvd` | client |
//! | F | `certificate_sent` | server |
//! | 6 | `certificate_rcvd` | client |
//! | G | `certificate_verify_sent` | server |
//! | 7 | `certificate_verify_rcvd` | client |
//! | H | `finished_sent` | server |
//! | 8 | `finished_rcvd` | client |
//! | 9 | `client_finished_sent` | client |
//! | I | `client_finished_rcvd` | server |

use crate::capture::{Conn, Dir, View};
use crate::handshake::{ClientObs, ServerObs};
use crate::probe::{MsgEvent, TcpInfo};
use crate::tls13::{self, Dissected, HsMsg};
use serde::Serialize;
use std::collections::BTreeMap;

/// Handshake types.
const CLIENT_HELLO: u8 = 1;
const SERVER_HELLO: u8 = 2;
const CERTIFICATE: u8 = 11;
const CERTIFICATE_VERIFY: u8 = 15;
const FINISHED: u8 = 20;

/// Each phase of the legend as (name, from point, to point).
pub const PHASES: [(&str, &str, &str); 18] = [
    ("syn_sending", "syn_sent", "syn_rcvd"),
    ("syn_rcv_to_ack_syn_send", "syn_rcvd", "syn_ack_sent"),
    ("ack_syn_sending", "syn_ack_sent", "syn_ack_rcvd"),
    ("ack_syn_send_to_ack_send", "syn_ack_rcvd", "ack_sent"),
    (
        "ack_send_to_client_hello_send",
        "ack_sent",
        "client_hello_sent",
    ),
    (
        "client_hello_sending",
        "client_hello_sent",
        "client_hello_rcvd",
    ),
    (
        "client_hello_rcv_to_server_hello_send",
        "client_hello_rcvd",
        "server_hello_sent",
    ),
    (
        "server_hello_sending",
        "server_hello_sent",
        "server_hello_rcvd",
    ),
    (
        "server_hello_rcv_to_certificate_rcv",
        "server_hello_rcvd",
        "certificate_rcvd",
    ),
    (
        "certificate_rcv_to_certificate_verify_rcv",
        "certificate_rcvd",
        "certificate_verify_rcvd",
    ),
    (
        "certificate_verify_rcv_to_finished_rcv",
        "certificate_verify_rcvd",
        "finished_rcvd",
    ),
    (
        "finished_rcv_to_finished_send",
        "finished_rcvd",
        "client_finished_sent",
    ),
    ("ack_sending", "ack_sent", "ack_rcvd"),
    (
        "ack_rcv_to_client_hello_rcv",
        "ack_rcvd",
        "client_hello_rcvd",
    ),
    (
        "server_hello_send_to_certificate_send",
        "server_hello_sent",
        "certificate_sent",
    ),
    (
        "certificate_send_to_certificate_verify_send",
        "certificate_sent",
        "certificate_verify_sent",
    ),
    (
        "certificate_verify_send_to_finished_send",
        "certificate_verify_sent",
        "finished_sent",
    ),
    ("finished_sending", "finished_sent", "finished_rcvd"),
];

/// The points seen at the client (the table above); the others are seen
/// at the server.
pub const CLIENT_POINTS: [&str; 9] = [
    "syn_sent",
    "syn_ack_rcvd",
    "ack_sent",
    "client_hello_sent",
    "server_hello_rcvd",
    "certificate_rcvd",
    "certificate_verify_rcvd",
    "finished_rcvd",
    "client_finished_sent",
];

/// The phases that start on one host and end on the other: between two
/// hosts these carry the uncertainty of the clocks' offset.
pub fn cross_host_phases() -> Vec<&'static str> {
    let at_client = |p: &str| CLIENT_POINTS.contains(&p);
    PHASES
        .iter()
        .filter(|(_, a, b)| at_client(a) != at_client(b))
        .map(|(p, _, _)| *p)
        .collect()
}

/// Wire times of one handshake message, ns after the client's SYN.
#[derive(Clone, Debug, Serialize)]
pub struct MsgTimes {
    /// `client` or `server`: who sent it.
    pub from: &'static str,
    pub name: &'static str,
    /// Stream offsets [start, end) of the message in its direction.
    pub start: u64,
    pub end: u64,
    pub sent_first_ns: Option<i64>,
    pub sent_last_ns: Option<i64>,
    pub rcvd_first_ns: Option<i64>,
    pub rcvd_last_ns: Option<i64>,
}

/// One OpenSSL message-callback event, ns after the client's SYN.
#[derive(Clone, Debug, Serialize)]
pub struct CallbackTime {
    pub name: &'static str,
    /// True when OpenSSL wrote it, false when it read it.
    pub sent: bool,
    pub t_ns: i64,
}

/// Sizes of the flights.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Flights {
    /// Server: TCP payload bytes from its first byte to the end of the
    /// record holding its Finished, and the segments it sent for them.
    pub server_bytes: Option<u64>,
    pub server_segments: Option<u32>,
    /// Client: segments of the ClientHello flight and of the Finished
    /// flight.
    pub client_segments: Option<u32>,
    pub client_finished_segments: Option<u32>,
}

/// Everything known of one handshake. Times are ns after `t0_ns`.
#[derive(Clone, Debug, Serialize)]
pub struct Timeline {
    pub index: usize,
    pub client_port: u16,
    /// `CLOCK_REALTIME` ns of the client's SYN on the wire (or of
    /// `connect()` without a capture).
    pub t0_ns: u64,
    /// Client view, `connect()` to the end of the handshake (monotonic).
    pub handshake_ns: f64,
    /// Wire times of the points of figure 19 (see the module docs).
    pub points_ns: BTreeMap<&'static str, i64>,
    /// Phases of the legend (differences of points).
    pub phases_ns: BTreeMap<&'static str, i64>,
    pub messages: Vec<MsgTimes>,
    pub flights: Flights,
    pub retransmissions_c2s: u32,
    pub retransmissions_s2c: u32,
    pub openssl_client: Vec<CallbackTime>,
    pub openssl_server: Vec<CallbackTime>,
    pub tcp_client: Option<TcpInfo>,
    pub tcp_server_at_accept: Option<TcpInfo>,
    pub tcp_server_after: Option<TcpInfo>,
    /// Why some points are missing, if they are.
    pub problems: Vec<String>,
}

impl Timeline {
    /// Whether every point of both views was found.
    pub fn complete(&self) -> bool {
        PHASES
            .iter()
            .all(|(n, _, _)| self.phases_ns.contains_key(n))
    }
}

fn rel(t: Option<u64>, t0: u64) -> Option<i64> {
    t.map(|t| t as i64 - t0 as i64)
}

/// Byte `offset` of `dir` as seen in `view`, relative to `t0`.
fn at(view: &View, dir: Dir, offset: u64, t0: u64) -> Option<i64> {
    rel(view.time_of(dir, offset), t0)
}

fn first_msg(msgs: &[HsMsg], typ: u8) -> Option<&HsMsg> {
    msgs.iter().find(|m| m.typ == typ)
}

/// End of the record that holds stream byte `offset`.
fn record_end(records: &[tls13::Record], offset: u64) -> Option<u64> {
    records
        .iter()
        .find(|r| r.start <= offset && offset < r.start + u64::from(r.len))
        .map(|r| r.start + u64::from(r.len))
}

fn callbacks(events: &[MsgEvent], t0: u64) -> Vec<CallbackTime> {
    events
        .iter()
        .map(|e| CallbackTime {
            name: match (e.content_type, e.hs_type) {
                (22, Some(t)) => tls13::hs_name(t),
                (20, _) => "ChangeCipherSpec",
                (21, _) => "Alert",
                _ => "other",
            },
            sent: e.sent,
            t_ns: e.t_ns as i64 - t0 as i64,
        })
        .collect()
}

/// Time of the first callback for handshake type `typ` written (`sent`)
/// or read.
fn callback_at(events: &[MsgEvent], typ: u8, sent: bool) -> Option<u64> {
    events
        .iter()
        .find(|e| e.content_type == 22 && e.hs_type == Some(typ) && e.sent == sent)
        .map(|e| e.t_ns)
}

/// In-process intervals of one handshake (the `openssl_ns` medians).
pub fn openssl_intervals(client: &[MsgEvent], server: &[MsgEvent]) -> BTreeMap<&'static str, i64> {
    let mut m = BTreeMap::new();
    let d = |a: Option<u64>, b: Option<u64>| Some(b? as i64 - a? as i64);
    let pairs = [
        (
            "client_sh_read_to_finished_write",
            d(
                callback_at(client, SERVER_HELLO, false),
                callback_at(client, FINISHED, true),
            ),
        ),
        (
            "server_ch_read_to_finished_write",
            d(
                callback_at(server, CLIENT_HELLO, false),
                callback_at(server, FINISHED, true),
            ),
        ),
        (
            "server_sh_write_to_finished_write",
            d(
                callback_at(server, SERVER_HELLO, true),
                callback_at(server, FINISHED, true),
            ),
        ),
    ];
    for (k, v) in pairs {
        if let Some(v) = v {
            m.insert(k, v);
        }
    }
    m
}

/// Builds the timeline of handshake `index` from what the client and the
/// server observed and, when there is a capture, its connection and the
/// dissected TLS records.
pub fn build(
    index: usize,
    client: &ClientObs,
    server: Option<&ServerObs>,
    wire: Option<(&Conn, &Dissected)>,
) -> Timeline {
    let t0 = wire
        .and_then(|(c, _)| c.client_view.syn.or(c.server_view.syn))
        .unwrap_or(client.start_ns);
    let server_events: &[MsgEvent] = server.map_or(&[], |s| &s.events);
    let mut tl = Timeline {
        index,
        client_port: client.local_port,
        t0_ns: t0,
        handshake_ns: client.handshake.as_nanos() as f64,
        points_ns: BTreeMap::new(),
        phases_ns: BTreeMap::new(),
        messages: Vec::new(),
        flights: Flights::default(),
        retransmissions_c2s: 0,
        retransmissions_s2c: 0,
        openssl_client: callbacks(&client.events, t0),
        openssl_server: callbacks(server_events, t0),
        tcp_client: client.tcp.clone(),
        tcp_server_at_accept: server.and_then(|s| s.tcp_at_accept.clone()),
        tcp_server_after: server.and_then(|s| s.tcp_after.clone()),
        problems: Vec::new(),
    };
    if server.is_none() {
        tl.problems
            .push("the server's observation of this connection is missing".into());
    }
    let Some((conn, dis)) = wire else {
        tl.problems.push("no capture of this connection".into());
        return tl;
    };
    tl.problems.extend(dis.problems.iter().cloned());
    let (cv, sv) = (&conn.client_view, &conn.server_view);
    tl.retransmissions_c2s = sv
        .retransmissions(Dir::ClientToServer)
        .max(cv.retransmissions(Dir::ClientToServer));
    tl.retransmissions_s2c = sv
        .retransmissions(Dir::ServerToClient)
        .max(cv.retransmissions(Dir::ServerToClient));

    let mut points: Vec<(&'static str, Option<i64>)> = vec![
        ("syn_sent", rel(cv.syn, t0)),
        ("syn_rcvd", rel(sv.syn, t0)),
        ("syn_ack_sent", rel(sv.syn_ack, t0)),
        ("syn_ack_rcvd", rel(cv.syn_ack, t0)),
        ("ack_sent", rel(cv.ack, t0)),
        ("ack_rcvd", rel(sv.ack, t0)),
    ];
    // Every handshake message of both directions, in stream order.
    let mut messages: Vec<MsgTimes> = Vec::new();
    for (dir, from, msgs, sender, receiver) in [
        (Dir::ClientToServer, "client", &dis.c2s, cv, sv),
        (Dir::ServerToClient, "server", &dis.s2c, sv, cv),
    ] {
        for m in msgs {
            let last = m.end.saturating_sub(1);
            messages.push(MsgTimes {
                from,
                name: tls13::hs_name(m.typ),
                start: m.start,
                end: m.end,
                sent_first_ns: at(sender, dir, m.start, t0),
                sent_last_ns: at(sender, dir, last, t0),
                rcvd_first_ns: at(receiver, dir, m.start, t0),
                rcvd_last_ns: at(receiver, dir, last, t0),
            });
        }
    }
    // (sender, type, sent-point name, received-point name): the first such
    // message's last byte.
    let wanted = [
        (
            "client",
            CLIENT_HELLO,
            "client_hello_sent",
            "client_hello_rcvd",
        ),
        (
            "server",
            SERVER_HELLO,
            "server_hello_sent",
            "server_hello_rcvd",
        ),
        (
            "server",
            CERTIFICATE,
            "certificate_sent",
            "certificate_rcvd",
        ),
        (
            "server",
            CERTIFICATE_VERIFY,
            "certificate_verify_sent",
            "certificate_verify_rcvd",
        ),
        ("server", FINISHED, "finished_sent", "finished_rcvd"),
        (
            "client",
            FINISHED,
            "client_finished_sent",
            "client_finished_rcvd",
        ),
    ];
    for (from, typ, sent_name, rcvd_name) in wanted {
        let m = messages
            .iter()
            .find(|m| m.from == from && m.name == tls13::hs_name(typ));
        points.push((sent_name, m.and_then(|m| m.sent_last_ns)));
        points.push((rcvd_name, m.and_then(|m| m.rcvd_last_ns)));
    }
    tl.messages = messages;
    tl.messages
        .sort_by_key(|m| m.sent_first_ns.unwrap_or(i64::MAX));
    for (name, t) in points {
        match t {
            Some(t) => {
                tl.points_ns.insert(name, t);
            }
            None => tl.problems.push(format!("no wire time for {name}")),
        }
    }
    for (phase, from, to) in PHASES {
        if let (Some(a), Some(b)) = (tl.points_ns.get(from), tl.points_ns.get(to)) {
            tl.phases_ns.insert(phase, b - a);
        }
    }

    // Flights.
    if let Some(fin) = first_msg(&dis.s2c, FINISHED) {
        if let Some(end) = record_end(&dis.s2c_records, fin.end.saturating_sub(1)) {
            tl.flights.server_bytes = Some(end);
            tl.flights.server_segments = Some(sv.segments_in(Dir::ServerToClient, 0, end).0);
        }
    }
    if let Some(ch) = first_msg(&dis.c2s, CLIENT_HELLO) {
        if let Some(ch_end) = record_end(&dis.c2s_records, ch.end.saturating_sub(1)) {
            tl.flights.client_segments = Some(cv.segments_in(Dir::ClientToServer, 0, ch_end).0);
            if let Some(fin) = first_msg(&dis.c2s, FINISHED) {
                if let Some(end) = record_end(&dis.c2s_records, fin.end.saturating_sub(1)) {
                    tl.flights.client_finished_segments =
                        Some(cv.segments_in(Dir::ClientToServer, ch_end, end).0);
                }
            }
        }
    }
    tl
}

/// The server's half of a timeline, from the server's own capture (a
/// server on its own host): its points after its SYN received, the phases
/// between two of them, and its OpenSSL events.
pub fn build_server_view(index: usize, server: &ServerObs, wire: (&Conn, &Dissected)) -> Timeline {
    let stand_in = ClientObs {
        handshake: std::time::Duration::ZERO,
        start_ns: wire.0.server_view.syn.unwrap_or(server.accepted_ns),
        local_port: server.peer_port,
        events: Vec::new(),
        tcp: None,
    };
    let mut tl = build(index, &stand_in, Some(server), Some(wire));
    for p in CLIENT_POINTS {
        tl.points_ns.remove(p);
    }
    let points = &tl.points_ns;
    tl.phases_ns.retain(|ph, _| {
        PHASES
            .iter()
            .any(|(n, a, b)| n == ph && points.contains_key(a) && points.contains_key(b))
    });
    tl.problems.retain(|m| {
        !CLIENT_POINTS
            .iter()
            .any(|p| m == &format!("no wire time for {p}"))
    });
    tl.handshake_ns = 0.0;
    tl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_host_phases_are_the_sendings() {
        assert_eq!(
            cross_host_phases(),
            [
                "syn_sending",
                "ack_syn_sending",
                "client_hello_sending",
                "server_hello_sending",
                "ack_sending",
                "finished_sending"
            ]
        );
    }

    #[test]
    fn phases_are_the_two_legends() {
        let mut legend: Vec<&str> = ango_core::TLS_CLIENT_VIEW
            .iter()
            .chain(ango_core::TLS_SERVER_VIEW.iter())
            .copied()
            .collect();
        legend.sort_unstable();
        legend.dedup();
        let mut ours: Vec<&str> = PHASES.iter().map(|(p, _, _)| *p).collect();
        ours.sort_unstable();
        assert_eq!(ours, legend);
        // Each view is a chain of points from syn_sent to client_finished_sent.
        for view in [ango_core::TLS_CLIENT_VIEW, ango_core::TLS_SERVER_VIEW] {
            let mut at = "syn_sent";
            for name in view {
                let (_, from, to) = PHASES.iter().find(|(p, _, _)| *p == name).unwrap();
                assert_eq!(*from, at, "{name}");
                at = to;
            }
            assert_eq!(at, "client_finished_sent");
        }
    }
}
