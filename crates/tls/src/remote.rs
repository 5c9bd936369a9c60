//! Two real hosts (seed 003 ran its handshakes between two machines about
//! 1 ms apart): `ango tls-server --listen ADDR:PORT` on one, `ango tls
//! --connect ADDR:PORT` on the other.
//!
//! The client drives the matrix over an authenticated, encrypted control
//! connection ([`crate::control`]). For each combination it asks the
//! server to serve that certificate (the server makes the chain and hands
//! the CA certificate over, only to an authenticated client), estimates the
//! clocks' offset, makes its handshakes to the server's TLS port, and then
//! fetches what the server observed of them: its OpenSSL/rustls events and
//! its packets, captured by a kernel filter on the session's TLS port only.
//! The analysis is the one-host lab's ([`crate::run::analyse`]), with the
//! server's times moved onto the client's clock by the estimated offset:
//! a difference of two times of one host is untouched by that move, so
//! each host's phases stay on its own clock, and only the phases from one
//! host to the other carry the offset's uncertainty.
//!
//! The server keeps its own results too: its pcaps, its key log and the
//! server's half of every timeline (`server.jsonl`,
//! `server_timelines.jsonl`), on its own clock.
//!
//! Clock offset, NTP-style: the client sends its time t1, the server
//! stamps t2 on receipt and t3 on reply, the client reads t4; offset =
//! ((t2 − t1) + (t3 − t4)) / 2, delay = (t4 − t1) − (t3 − t2). Of
//! [`CLOCK_SAMPLES`] samples the one with the least delay is kept: its
//! offset is off by at most half its delay (all of the path's asymmetry
//! on one side). Sampled just before and just after each combination;
//! the record has their mean, with half the best delay plus half their
//! difference (drift) as its uncertainty.

use crate::capture::{Capture, CaptureBatch, Packet};
use crate::control::{Channel, Secret};
use crate::handshake::{self, Server, ServerObs, HOST};
use crate::pqsig::LabCerts;
use crate::probe::{self, KeyLines};
use crate::run::{self, Combo, Measured, Setting, TlsRecord, TlsSpec};
use crate::rustls_stack::Stack;
use crate::timeline::{self, Timeline};
use crate::tls13;
use ango_core::{Error, PkAlgorithm, Result, TlsTwoHost};
use ango_harness::stats::Summary;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod client;
pub use client::{run_connect, ConnectSpec};

/// Clock samples per estimate.
pub const CLOCK_SAMPLES: usize = 16;
/// The server's files in its results directory.
pub const SERVER_FILE: &str = "server.jsonl";
pub const SERVER_TIMELINES_FILE: &str = "server_timelines.jsonl";

/// The control protocol's messages (JSON inside the encrypted frames).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Msg {
    /// Server → client, right after authentication.
    Welcome {
        server_host: String,
        run_id: String,
        tls_port: u16,
        captured: bool,
        /// Why the server does not capture, when it does not.
        capture_note: Option<String>,
    },
    /// Client → server: the client's clock.
    Clock {
        t1: u64,
    },
    ClockReply {
        t1: u64,
        t2: u64,
        t3: u64,
    },
    /// Client → server: serve this combination from now on.
    Prepare {
        group: String,
        server_sig: String,
        ca_sig: String,
        server_stack: String,
        /// The client's stack (for the server's own records).
        #[serde(default)]
        client_stack: Option<String>,
    },
    Ready {
        ca_cert_der: String,
        server_cert_bytes: u64,
        ca_cert_bytes: u64,
        server_library_version: String,
    },
    /// Client → server: the combination's handshakes are done.
    Finish {
        connections: usize,
    },
    /// Server → client: what it observed of them (times on its clock).
    Report {
        observations: Vec<ServerObs>,
        /// The captured packets ([`encode_packets`], hex).
        packets: String,
        kernel_drops: u64,
        bad_attempts: u64,
    },
    Error {
        message: String,
    },
    Bye,
}

/// Packets as bytes: per packet its time (u64), direction (u8), length
/// (u32, big-endian) and IP packet.
pub fn encode_packets(packets: &[Packet]) -> String {
    let mut b = Vec::new();
    for p in packets {
        b.extend_from_slice(&p.t_ns.to_be_bytes());
        b.push(u8::from(p.outgoing));
        b.extend_from_slice(&(p.data.len() as u32).to_be_bytes());
        b.extend_from_slice(&p.data);
    }
    hex::encode(b)
}

pub fn decode_packets(s: &str) -> std::result::Result<Vec<Packet>, String> {
    let b = hex::decode(s).map_err(|e| format!("packets: {e}"))?;
    let mut out = Vec::new();
    let mut rest = &b[..];
    while !rest.is_empty() {
        if rest.len() < 13 {
            return Err("packets: a truncated packet header".into());
        }
        let t_ns = u64::from_be_bytes(rest[..8].try_into().expect("8 bytes"));
        let outgoing = rest[8] != 0;
        let n = u32::from_be_bytes(rest[9..13].try_into().expect("4 bytes")) as usize;
        rest = &rest[13..];
        if rest.len() < n {
            return Err("packets: a truncated packet".into());
        }
        out.push(Packet {
            t_ns,
            outgoing,
            data: rest[..n].to_vec(),
        });
        rest = &rest[n..];
    }
    Ok(out)
}

/// One NTP-style sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockSample {
    pub offset_ns: f64,
    pub delay_ns: f64,
}

impl ClockSample {
    pub fn of(t1: u64, t2: u64, t3: u64, t4: u64) -> ClockSample {
        let (t1, t2, t3, t4) = (t1 as f64, t2 as f64, t3 as f64, t4 as f64);
        ClockSample {
            offset_ns: ((t2 - t1) + (t3 - t4)) / 2.0,
            delay_ns: ((t4 - t1) - (t3 - t2)).max(0.0),
        }
    }
}

/// An estimate of server clock minus client clock.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockEstimate {
    pub offset_ns: f64,
    pub uncertainty_ns: f64,
    /// Delay of the best sample.
    pub best_delay_ns: f64,
    /// Every sample's delay.
    pub delays_ns: Vec<f64>,
}

impl ClockEstimate {
    /// The sample with the least delay; `None` without samples.
    pub fn best_of(samples: &[ClockSample]) -> Option<ClockEstimate> {
        let best = samples
            .iter()
            .min_by(|a, b| a.delay_ns.total_cmp(&b.delay_ns))?;
        Some(ClockEstimate {
            offset_ns: best.offset_ns,
            uncertainty_ns: best.delay_ns / 2.0,
            best_delay_ns: best.delay_ns,
            delays_ns: samples.iter().map(|s| s.delay_ns).collect(),
        })
    }

    /// The estimates before and after a combination: their mean, with the
    /// larger half-delay plus half their difference as its uncertainty.
    pub fn around(before: &ClockEstimate, after: &ClockEstimate) -> ClockEstimate {
        let drift = (after.offset_ns - before.offset_ns).abs();
        ClockEstimate {
            offset_ns: (before.offset_ns + after.offset_ns) / 2.0,
            uncertainty_ns: before.uncertainty_ns.max(after.uncertainty_ns) + drift / 2.0,
            best_delay_ns: before.best_delay_ns.min(after.best_delay_ns),
            delays_ns: [&before.delays_ns[..], &after.delays_ns[..]].concat(),
        }
    }
}

fn peer_err(e: String) -> Error {
    Error::io("the tls-server", std::io::Error::other(e))
}

/// TCP keep-alive on a control connection: a peer that vanishes without
/// closing (its host gone) is noticed in about 25 s.
fn keepalive(s: &TcpStream) {
    let fd = s.as_raw_fd();
    for (level, opt, v) in [
        (libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1),
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, 10),
        (libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, 5),
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT, 3),
    ] {
        let v: libc::c_int = v;
        // SAFETY: a valid socket and a c_int option value of the size given.
        unsafe {
            libc::setsockopt(
                fd,
                level,
                opt,
                (&v as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as u32,
            );
        }
    }
}

/// Waits until `fd` is readable (or closed) or `ms` passed.
fn readable(fd: i32, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

/// The interface holding `ip` in this namespace (`None`: no such
/// interface, or `ip` is unspecified).
pub fn interface_of(ip: Ipv4Addr) -> Option<String> {
    if ip.is_unspecified() {
        return None;
    }
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list freed below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return None;
    }
    let mut found = None;
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getifaddrs returned.
        let ifa = unsafe { &*cur };
        if !ifa.ifa_addr.is_null() {
            // SAFETY: a non-null address of the node.
            let family = unsafe { (*ifa.ifa_addr).sa_family };
            if i32::from(family) == libc::AF_INET {
                // SAFETY: an AF_INET address is a sockaddr_in.
                let sin = unsafe { &*ifa.ifa_addr.cast::<libc::sockaddr_in>() };
                if Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)) == ip {
                    // SAFETY: the interface name is a NUL-terminated string.
                    let name = unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) };
                    found = Some(name.to_string_lossy().into_owned());
                    break;
                }
            }
        }
        cur = ifa.ifa_next;
    }
    // SAFETY: the list getifaddrs returned, freed once.
    unsafe { libc::freeifaddrs(head) };
    found
}

/// A capture of one TCP port on the interface holding `ip` (every
/// interface when `ip` is unspecified or on none).
fn capture_port(ip: Ipv4Addr, port: u16) -> std::io::Result<Capture> {
    Capture::start_with(interface_of(ip).as_deref(), Some(port))
}

fn parse_stack(s: &str) -> std::result::Result<Stack, String> {
    match s {
        "openssl" => Ok(Stack::OpenSsl),
        "rustls" => Ok(Stack::Rustls),
        other => Err(format!("unknown stack '{other}'; valid: openssl, rustls")),
    }
}

// ---------------------------------------------------------------- server

/// What `ango tls-server` was asked.
#[derive(Clone, Debug)]
pub struct ServeSpec {
    pub secret: Secret,
    pub run_id: String,
    /// Capture packets (needs root; without it the server says so).
    pub capture: bool,
    /// Its results directory.
    pub dir: Option<PathBuf>,
    /// End after the first authenticated session.
    pub once: bool,
    /// Added to every time the server reports (tests: a clock `ns` off).
    pub clock_shift_ns: i64,
    /// Connections per combination whose packets its pcap keeps.
    pub pcap_handshakes: Option<usize>,
}

/// What a server did.
#[derive(Clone, Debug, Default)]
pub struct ServeSummary {
    pub sessions: u64,
    pub rejected: u64,
    pub combinations: u64,
}

fn shifted(t: u64, shift: i64) -> u64 {
    t.saturating_add_signed(shift)
}

/// Serves sessions on `listener` (the control port) until `stop` (or,
/// with `once`, until the first authenticated session ends). A peer that
/// does not authenticate is logged and dropped; a session whose control
/// connection drops or whose client vanishes ends, and the next is
/// served. One session at a time; others wait in the listen queue.
pub fn serve(
    listener: TcpListener,
    spec: &ServeSpec,
    stop: &(dyn Fn() -> bool + Sync),
    log: &mut dyn FnMut(String),
) -> Result<ServeSummary> {
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::io("control socket", e))?;
    if let Some(d) = &spec.dir {
        std::fs::create_dir_all(d.join(run::CAPTURE_DIR))
            .map_err(|e| Error::io("creating the capture directory", e))?;
    }
    let mut chains: HashMap<(PkAlgorithm, PkAlgorithm), LabCerts> = HashMap::new();
    let mut summary = ServeSummary::default();
    while !stop() {
        if !readable(listener.as_raw_fd(), 200) {
            continue;
        }
        let (stream, peer) = match listener.accept() {
            Ok(a) => a,
            Err(_) => continue,
        };
        let _ = stream.set_nonblocking(false);
        keepalive(&stream);
        let Some(ch) = Channel::accept(stream, &spec.secret)? else {
            summary.rejected += 1;
            log(format!(
                "rejected a control connection from {peer}: it did not authenticate"
            ));
            continue;
        };
        summary.sessions += 1;
        let n = summary.sessions;
        log(format!("session {n}: {peer} authenticated"));
        let mut s = match Session::open(ch, n, spec) {
            Ok(s) => s,
            Err(e) => {
                log(format!("session {n}: could not start: {e}"));
                continue;
            }
        };
        let end = s.serve(&mut chains, stop, log);
        summary.combinations += s.combinations;
        match end {
            Ok(()) => log(format!(
                "session {n}: done ({} combinations)",
                s.combinations
            )),
            Err(e) => log(format!(
                "session {n}: ended after {} combinations: {e}",
                s.combinations
            )),
        }
        drop(s);
        if spec.once {
            break;
        }
    }
    Ok(summary)
}

struct Session<'a> {
    spec: &'a ServeSpec,
    n: u64,
    ch: Channel,
    peer: SocketAddr,
    tls_addr: SocketAddrV4,
    listener: Option<TcpListener>,
    server: Option<Server>,
    capture: Option<Capture>,
    keys: KeyLines,
    keylog: tls13::KeyLog,
    current: Option<(Combo, u64)>,
    combinations: u64,
}

impl<'a> Session<'a> {
    fn open(ch: Channel, n: u64, spec: &'a ServeSpec) -> Result<Session<'a>> {
        let local = ch
            .stream()
            .local_addr()
            .map_err(|e| Error::io("control socket", e))?;
        let peer = ch
            .stream()
            .peer_addr()
            .map_err(|e| Error::io("control socket", e))?;
        let SocketAddr::V4(local) = local else {
            return Err(peer_err("the control connection is not IPv4".into()));
        };
        let listener = TcpListener::bind((*local.ip(), 0))
            .map_err(|e| Error::io("binding the TLS port", e))?;
        let tls_port = listener
            .local_addr()
            .map_err(|e| Error::io("the TLS port", e))?
            .port();
        let tls_addr = SocketAddrV4::new(*local.ip(), tls_port);
        let (capture, capture_note) = if !spec.capture {
            (
                None,
                Some("the server was started with --no-capture".to_string()),
            )
        } else if !crate::lab::is_root() {
            (
                None,
                Some("the server does not run as root, so it cannot capture packets".into()),
            )
        } else {
            match capture_port(*local.ip(), tls_port) {
                Ok(c) => (Some(c), None),
                Err(e) => (None, Some(format!("the server's capture failed: {e}"))),
            }
        };
        let mut s = Session {
            spec,
            n,
            ch,
            peer,
            tls_addr,
            listener: Some(listener),
            server: None,
            capture,
            keys: KeyLines::default(),
            keylog: tls13::KeyLog::new(),
            current: None,
            combinations: 0,
        };
        s.ch.send(&Msg::Welcome {
            server_host: ango_harness::env::hostname(),
            run_id: spec.run_id.clone(),
            tls_port,
            captured: s.capture.is_some(),
            capture_note,
        })?;
        Ok(s)
    }

    fn serve(
        &mut self,
        chains: &mut HashMap<(PkAlgorithm, PkAlgorithm), LabCerts>,
        stop: &(dyn Fn() -> bool + Sync),
        log: &mut dyn FnMut(String),
    ) -> Result<()> {
        let fd = self.ch.stream().as_raw_fd();
        loop {
            if stop() {
                return Err(peer_err("the server was interrupted".into()));
            }
            if !readable(fd, 200) {
                continue;
            }
            let msg: Msg = self.ch.recv()?;
            let t2 = shifted(probe::realtime_ns(), self.spec.clock_shift_ns);
            match msg {
                Msg::Clock { t1 } => {
                    let t3 = shifted(probe::realtime_ns(), self.spec.clock_shift_ns);
                    self.ch.send(&Msg::ClockReply { t1, t2, t3 })?;
                }
                Msg::Prepare {
                    group,
                    server_sig,
                    ca_sig,
                    server_stack,
                    client_stack,
                } => match self.prepare(
                    chains,
                    [&group, &server_sig, &ca_sig, &server_stack],
                    client_stack.as_deref(),
                ) {
                    Ok(ready) => self.ch.send(&ready)?,
                    Err(message) => self.ch.send(&Msg::Error { message })?,
                },
                Msg::Finish { connections } => {
                    let report = self.finish(connections, log)?;
                    self.ch.send(&report)?;
                }
                Msg::Bye => return Ok(()),
                other => {
                    self.ch.send(&Msg::Error {
                        message: format!("unexpected message {other:?}"),
                    })?;
                }
            }
        }
    }

    fn prepare(
        &mut self,
        chains: &mut HashMap<(PkAlgorithm, PkAlgorithm), LabCerts>,
        [group, server_sig, ca_sig, server_stack]: [&str; 4],
        client_stack: Option<&str>,
    ) -> std::result::Result<Msg, String> {
        let p = |s: &str| PkAlgorithm::parse(s).map_err(|e| e.to_string());
        let (g, srv_alg, ca_alg) = (p(group)?, p(server_sig)?, p(ca_sig)?);
        let stack = parse_stack(server_stack)?;
        let client = parse_stack(client_stack.unwrap_or("openssl"))?;
        handshake::group_name(g).map_err(|e| e.to_string())?;
        if stack == Stack::Rustls {
            crate::pqsig::supports_sig(srv_alg)?;
            crate::rustls_stack::kx_group(g)?;
        }
        if let std::collections::hash_map::Entry::Vacant(e) = chains.entry((ca_alg, srv_alg)) {
            e.insert(LabCerts::make(&[(ca_alg, srv_alg)], HOST).map_err(|e| e.to_string())?);
        }
        let certs = chains[&(ca_alg, srv_alg)]
            .get(ca_alg, srv_alg)
            .ok_or("no chain was made")?;
        let tls = certs
            .server_tls(stack, Some(&self.keys))
            .map_err(|e| e.to_string())?;
        match (&self.server, self.listener.take()) {
            (Some(s), _) => s.set_tls(tls),
            (None, Some(l)) => {
                self.server = Some(Server::start(l, tls).map_err(|e| e.to_string())?);
            }
            (None, None) => return Err("the TLS port is gone".into()),
        }
        let server = self.server.as_ref().expect("started above");
        // What came before (earlier combinations' closing packets) is not
        // this combination's.
        server.take_observations();
        if let Some(c) = &self.capture {
            c.take().map_err(|e| e.to_string())?;
        }
        let bad = server
            .bad_attempts
            .load(std::sync::atomic::Ordering::Relaxed);
        self.current = Some((
            Combo {
                group: g,
                srv: srv_alg,
                ca: ca_alg,
                client,
                server: stack,
            },
            bad,
        ));
        let (server_cert_bytes, ca_cert_bytes) = certs.sizes();
        Ok(Msg::Ready {
            ca_cert_der: hex::encode(certs.ca_der().map_err(|e| e.to_string())?),
            server_cert_bytes,
            ca_cert_bytes,
            server_library_version: stack.library_version(),
        })
    }

    fn finish(&mut self, connections: usize, log: &mut dyn FnMut(String)) -> Result<Msg> {
        let (Some(server), Some((combo, bad_before))) = (&self.server, self.current.take()) else {
            return Ok(Msg::Error {
                message: "finish without a prepared combination".into(),
            });
        };
        let mut seen = run::server_observations(server, connections);
        let bad = server
            .bad_attempts
            .load(std::sync::atomic::Ordering::Relaxed)
            - bad_before;
        let batch = match &self.capture {
            Some(c) => Some(c.take().map_err(|e| Error::io("reading the capture", e))?),
            None => None,
        };
        let dir = self.spec.dir.as_deref();
        // Session and combination in the name: one session may serve a
        // combination twice, and sessions follow one another.
        let name = combo.capture_name("server").replacen(
            &format!("{}/", run::CAPTURE_DIR),
            &format!(
                "{}/s{}-{:03}_",
                run::CAPTURE_DIR,
                self.n,
                self.combinations + 1
            ),
            1,
        );
        let keys_dir = dir.map(|d| d.to_path_buf());
        run::absorb_keys(&self.keys, &mut self.keylog, keys_dir.as_deref())?;
        let own = own_view(
            &seen,
            batch.as_ref(),
            self.tls_addr,
            &self.keylog,
            self.spec.pcap_handshakes,
        );
        self.combinations += 1;
        log(format!(
            "session {}: {} {} by {} ({}): {} connections, {} bad, {}",
            self.n,
            combo.group,
            combo.srv,
            combo.ca,
            combo.server.name(),
            seen.len(),
            bad,
            match &batch {
                Some(_) => format!("{} with every server point on the wire", own.complete),
                None => "not captured".into(),
            }
        ));
        if let Some(d) = dir {
            let pcap = match &batch {
                Some(b) => {
                    run::write_pcap_of(&d.join(&name), &b.packets, &own.pcap_ports)?;
                    Some(name)
                }
                None => None,
            };
            let line = serde_json::json!({
                "session": self.n,
                "client": self.peer.to_string(),
                "group": combo.group.name(),
                "server_sig": combo.srv.name(),
                "ca_sig": combo.ca.name(),
                "server_stack": combo.server.name(),
                "client_stack": combo.client.name(),
                "server_library_version": combo.server.library_version(),
                "connections": seen.len(),
                "bad_attempts": bad,
                "captured": batch.is_some(),
                "server_pcap": pcap,
                "keylog": batch.as_ref().map(|_| run::KEYLOG_FILE),
                "timed_on_the_wire": own.complete,
                "phases_ns": own.phases_ns,
                "clock": "this host's CLOCK_REALTIME",
                "time": ango_core::results::utc_now().0,
            });
            append_json(&d.join(SERVER_FILE), &line)?;
            for tl in &own.timelines {
                let line = serde_json::json!({
                    "session": self.n,
                    "group": combo.group.name(),
                    "server_sig": combo.srv.name(),
                    "ca_sig": combo.ca.name(),
                    "server_stack": combo.server.name(),
                    "client_stack": combo.client.name(),
                    "timeline": tl,
                });
                append_json(&d.join(SERVER_TIMELINES_FILE), &line)?;
            }
        }
        // The client gets them on this server's clock (shifted in tests).
        let shift = self.spec.clock_shift_ns;
        for o in &mut seen {
            o.accepted_ns = shifted(o.accepted_ns, shift);
            for e in &mut o.events {
                e.t_ns = shifted(e.t_ns, shift);
            }
        }
        let (packets, kernel_drops) = match batch {
            Some(mut b) => {
                for p in &mut b.packets {
                    p.t_ns = shifted(p.t_ns, shift);
                }
                (encode_packets(&b.packets), b.kernel_drops)
            }
            None => (String::new(), 0),
        };
        Ok(Msg::Report {
            observations: seen,
            packets,
            kernel_drops,
            bad_attempts: bad,
        })
    }
}

fn append_json(path: &Path, v: &serde_json::Value) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    writeln!(f, "{v}").map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// The server's half of a combination's timelines.
struct OwnView {
    timelines: Vec<Timeline>,
    complete: usize,
    phases_ns: BTreeMap<&'static str, f64>,
    pcap_ports: HashSet<u16>,
}

fn own_view(
    seen: &[ServerObs],
    batch: Option<&CaptureBatch>,
    tls_addr: SocketAddrV4,
    keylog: &tls13::KeyLog,
    pcap_handshakes: Option<usize>,
) -> OwnView {
    let ok: Vec<&ServerObs> = seen.iter().filter(|o| o.error.is_none()).collect();
    let pcap_ports = seen
        .iter()
        .take(pcap_handshakes.unwrap_or(usize::MAX))
        .map(|o| o.peer_port)
        .collect();
    let mut timelines = Vec::new();
    if let Some(b) = batch {
        let conns = crate::capture::connections(&[&b.packets], tls_addr);
        let by_port: HashMap<u16, _> = conns.iter().map(|c| (c.client.port(), c)).collect();
        for (i, o) in ok.iter().enumerate() {
            if let Some(c) = by_port.get(&o.peer_port) {
                let dis = tls13::dissect(&c.c2s, &c.s2c, keylog);
                timelines.push(timeline::build_server_view(i, o, (c, &dis)));
            }
        }
    }
    let server_phases: Vec<&str> = timeline::PHASES
        .iter()
        .filter(|(_, a, b)| {
            !timeline::CLIENT_POINTS.contains(a) && !timeline::CLIENT_POINTS.contains(b)
        })
        .map(|(p, _, _)| *p)
        .collect();
    let complete = timelines
        .iter()
        .filter(|t| server_phases.iter().all(|p| t.phases_ns.contains_key(p)))
        .count();
    let mut phases_ns = BTreeMap::new();
    for (p, _, _) in timeline::PHASES {
        if !server_phases.contains(&p) {
            continue;
        }
        let v: Vec<f64> = timelines
            .iter()
            .filter_map(|t| t.phases_ns.get(p).map(|&v| v as f64))
            .collect();
        if let Some(s) = Summary::of(&v) {
            phases_ns.insert(p, s.median);
        }
    }
    OwnView {
        timelines,
        complete,
        phases_ns,
        pcap_ports,
    }
}

// ---------------------------------------------------------------- client

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_offset_is_recovered_within_its_bound() {
        // Server 5 s ahead; 300 µs out, 100 µs back (asymmetric path),
        // 20 µs in the server.
        let t1 = 1_000_000_000_000u64;
        let (out, back, inside) = (300_000u64, 100_000u64, 20_000u64);
        let shift = 5_000_000_000u64;
        let t2 = t1 + out + shift;
        let t3 = t2 + inside;
        let t4 = t1 + out + inside + back;
        let s = ClockSample::of(t1, t2, t3, t4);
        assert_eq!(s.delay_ns, (out + back) as f64);
        // The error is half the asymmetry, within half the delay.
        assert_eq!(s.offset_ns, shift as f64 + (out as f64 - back as f64) / 2.0);
        let e = ClockEstimate::best_of(&[
            ClockSample {
                offset_ns: 7.0,
                delay_ns: 9e6,
            },
            s,
        ])
        .unwrap();
        assert!((e.offset_ns - shift as f64).abs() <= e.uncertainty_ns);
        // Drift between before and after widens the bound.
        let later = ClockEstimate {
            offset_ns: e.offset_ns + 1000.0,
            ..e.clone()
        };
        let both = ClockEstimate::around(&e, &later);
        assert_eq!(both.offset_ns, e.offset_ns + 500.0);
        assert_eq!(both.uncertainty_ns, e.uncertainty_ns + 500.0);
        assert_eq!(both.delays_ns.len(), 4);
    }

    #[test]
    fn packets_survive_the_wire_and_truncation_is_an_error() {
        let ps = vec![
            Packet {
                t_ns: 42,
                outgoing: true,
                data: vec![0x45, 1, 2],
            },
            Packet {
                t_ns: u64::MAX,
                outgoing: false,
                data: Vec::new(),
            },
        ];
        let s = encode_packets(&ps);
        assert_eq!(decode_packets(&s).unwrap(), ps);
        assert!(decode_packets(&s[..s.len() - 2]).is_err());
        assert!(decode_packets("zz").is_err());
    }

    fn small_spec(capture: bool) -> TlsSpec {
        TlsSpec {
            run_id: "t".into(),
            groups: vec![PkAlgorithm::X25519],
            server_sigs: vec![PkAlgorithm::P256, PkAlgorithm::MlDsa44],
            ca_sigs: vec![PkAlgorithm::P256],
            handshakes: 4,
            link: crate::link::LinkOpts::default(),
            loopback: true,
            capture,
            capture_dir: None,
            pcap_handshakes: None,
            client_stacks: vec![Stack::OpenSsl, Stack::Rustls],
            server_stacks: vec![Stack::OpenSsl],
        }
    }

    /// A server on 127.0.0.1 whose clock reads 3 s ahead keeps serving
    /// through garbage, a wrong token, a client that drops its control
    /// connection mid-combination after a truncated ClientHello, and then
    /// serves a whole matrix whose offset comes back within its bound.
    #[test]
    fn a_server_survives_bad_peers_and_its_clock_offset_is_recovered() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (secret, token) = Secret::new_token().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(addr) = listener.local_addr().unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("ango-tls-server-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let shift: i64 = 3_000_000_007;
        let spec = ServeSpec {
            secret: secret.clone(),
            run_id: "srv".into(),
            capture: false,
            dir: Some(dir.clone()),
            once: false,
            clock_shift_ns: shift,
            pcap_handshakes: None,
        };
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let server = std::thread::spawn(move || {
            let mut log = Vec::new();
            let s = serve(listener, &spec, &|| d.load(Ordering::Relaxed), &mut |l| {
                log.push(l)
            })
            .unwrap();
            (s, log)
        });
        // Garbage, then a wrong token.
        TcpStream::connect(addr)
            .unwrap()
            .write_all(b"GET / HTTP/1.0\r\n\r\n")
            .unwrap();
        let (wrong, _) = Secret::new_token().unwrap();
        let e = Channel::connect(TcpStream::connect(addr).unwrap(), &wrong)
            .err()
            .unwrap();
        assert!(e.is_usage(), "{e}");
        // An authenticated client that prepares, sends half a ClientHello
        // to the TLS port and vanishes with its control connection.
        {
            let mut ch = Channel::connect(TcpStream::connect(addr).unwrap(), &secret).unwrap();
            let Msg::Welcome { tls_port, .. } = ch.recv().unwrap() else {
                panic!("no welcome")
            };
            ch.send(&Msg::Prepare {
                group: "x25519".into(),
                server_sig: "p-256".into(),
                ca_sig: "p-256".into(),
                server_stack: "openssl".into(),
                client_stack: None,
            })
            .unwrap();
            assert!(matches!(ch.recv::<Msg>().unwrap(), Msg::Ready { .. }));
            let mut t = TcpStream::connect((Ipv4Addr::LOCALHOST, tls_port)).unwrap();
            t.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00])
                .unwrap();
        }
        // A real run.
        let to = ConnectSpec {
            addr,
            secret: Secret::from_token(&token).unwrap(),
        };
        let mut recs = Vec::new();
        let mut notes = Vec::new();
        let stopped = run_connect(
            &small_spec(true),
            &to,
            &|| false,
            &mut |r, times, _| {
                assert_eq!(times.len(), 4);
                recs.push(r);
                Ok(())
            },
            &mut |n| notes.push(n),
        )
        .unwrap();
        done.store(true, Ordering::Relaxed);
        let (summary, log) = server.join().unwrap();
        assert!(!stopped);
        assert_eq!(recs.len(), 4, "{notes:?}");
        assert_eq!(summary.rejected, 2, "{log:?}");
        assert_eq!(summary.sessions, 2, "{log:?}");
        assert!(
            log.iter().any(|l| l.starts_with("session 1: ended")),
            "{log:?}"
        );
        // The server does not capture here, and says so.
        assert!(
            notes.iter().any(|n| n.contains("--no-capture")),
            "{notes:?}"
        );
        for r in &recs {
            assert_eq!((r.handshakes, r.failures), (4, 0), "{r:?}");
            let h = r.two_host.as_ref().unwrap();
            assert!(!h.server_captured);
            assert!(
                (h.clock_offset_ns - shift as f64).abs() <= h.clock_offset_uncertainty_ns,
                "{h:?}"
            );
            assert!(h.clock_offset_uncertainty_ns < 50e6, "{h:?}");
            assert_eq!(h.clock_samples, 2 * CLOCK_SAMPLES as u64);
            assert_eq!(r.link, "two-host");
            assert!(r.rtt_ns.unwrap() > 0.0);
        }
        assert_eq!(recs[1].client_stack, "rustls");
        let lines = std::fs::read_to_string(dir.join(SERVER_FILE)).unwrap();
        // The vanished client's combination is not a line: it never finished.
        assert_eq!(lines.lines().count(), 4, "{lines}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_loopback_interface_holds_127_0_0_1() {
        assert_eq!(interface_of(Ipv4Addr::LOCALHOST).as_deref(), Some("lo"));
        assert_eq!(interface_of(Ipv4Addr::UNSPECIFIED), None);
    }
}
