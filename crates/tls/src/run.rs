//! The lab run: certificates for every (CA, server) signature pair, the two
//! hosts and their link, then for every combination the handshakes, one
//! fresh TCP connection each, timed from `connect()` to the end of the
//! client's handshake. Failures are counted per combination, never retried.

use crate::capture::{self, Capture, CaptureBatch, Conn, Packet};
use crate::handshake::{self, ClientObs, ClientTls, Server, ServerObs, ServerTls, HOST};
use crate::lab::{Lab, Side};
use crate::link::LinkOpts;
use crate::probe::KeyLines;
use crate::rustls_stack::Stack;
use crate::timeline::{self, Timeline};
use crate::tls13;
use ango_core::{Error, PkAlgorithm, Result, TlsCapture, TlsTcp};
use ango_harness::stats::Summary;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Directory of the pcap files and the key log, inside the results
/// directory.
pub const CAPTURE_DIR: &str = "captures";
/// The key log (NSS format) of every session of the run, beside the pcaps.
pub const KEYLOG_FILE: &str = "captures/keylog.txt";

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::Tls;
/// Seed 003's matrix.
pub const DEFAULT_GROUPS: &[PkAlgorithm] = handshake::GROUPS;
pub const DEFAULT_SIGS: &[PkAlgorithm] = &[
    PkAlgorithm::Rsa2048,
    PkAlgorithm::Rsa3072,
    PkAlgorithm::P256,
    PkAlgorithm::MlDsa44,
];

#[derive(Clone, Debug)]
pub struct TlsSpec {
    pub run_id: String,
    pub groups: Vec<PkAlgorithm>,
    pub server_sigs: Vec<PkAlgorithm>,
    pub ca_sigs: Vec<PkAlgorithm>,
    pub handshakes: usize,
    pub link: LinkOpts,
    /// 127.0.0.1, no namespaces and no link emulation.
    pub loopback: bool,
    /// Capture packets on both sides (needs root, also in loopback mode).
    pub capture: bool,
    /// Where the pcap files and the key log go (none: analysed, not kept).
    pub capture_dir: Option<PathBuf>,
    /// Handshakes per combination whose packets are written to the pcap
    /// files (the first ones; all are analysed); `None`: all.
    pub pcap_handshakes: Option<usize>,
    /// The TLS stacks of each side; every pairing is measured.
    pub client_stacks: Vec<Stack>,
    pub server_stacks: Vec<Stack>,
}

/// Why a stack cannot run a combination, if it cannot: rustls lacks some
/// groups and signatures (a client also verifies the CA's signature).
pub fn unsupported(
    client: Stack,
    server: Stack,
    group: PkAlgorithm,
    srv: PkAlgorithm,
    ca: PkAlgorithm,
) -> Option<String> {
    use crate::pqsig::supports_sig;
    use crate::rustls_stack::kx_group;
    let mut why = Vec::new();
    if let Some(w) = crate::pqsig::why_not(srv).or(crate::pqsig::why_not(ca)) {
        return Some(w.to_string());
    }
    if crate::pqsig::PqChain::needed(ca, srv)
        && (client == Stack::OpenSsl || server == Stack::OpenSsl)
    {
        why.push(crate::pqsig::openssl_lacks(ca, srv));
    }
    if let Some(w) = crate::pqsig::too_large_for_rustls(srv) {
        why.push(w);
    }
    if client == Stack::Rustls || server == Stack::Rustls {
        if let Err(e) = kx_group(group) {
            why.push(e);
        }
    }
    if server == Stack::Rustls {
        if let Err(e) = supports_sig(srv) {
            why.push(format!("server: {e}"));
        }
    }
    if client == Stack::Rustls {
        for s in [srv, ca] {
            if let Err(e) = supports_sig(s) {
                let e = format!("client: {e}");
                if !why.contains(&e) {
                    why.push(e);
                }
            }
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

pub use ango_core::TlsRecord;

/// The (CA, server) pairs of a spec.
fn pairs(spec: &TlsSpec) -> Vec<(PkAlgorithm, PkAlgorithm)> {
    let mut v = Vec::new();
    for &ca in &spec.ca_sigs {
        for &s in &spec.server_sigs {
            v.push((ca, s));
        }
    }
    v
}

/// The packet captures of a run: one per namespace, or one on `lo`.
struct Captures {
    client: Capture,
    server: Option<Capture>,
}

impl Captures {
    fn start(lab: Option<&Lab>) -> std::io::Result<Option<Captures>> {
        match lab {
            Some(l) => {
                let client = l.in_ns(Side::Client, || Capture::start(l.device(Side::Client)))?;
                let server = l.in_ns(Side::Server, || Capture::start(l.device(Side::Server)))?;
                Ok(Some(Captures {
                    client,
                    server: Some(server),
                }))
            }
            // Loopback: one capture sees every packet twice (sent and
            // received); AF_PACKET needs root.
            None if crate::lab::is_root() => Ok(Some(Captures {
                client: Capture::start("lo")?,
                server: None,
            })),
            None => Ok(None),
        }
    }

    /// Everything captured since the last call, per side.
    fn take(&self) -> std::io::Result<(CaptureBatch, Option<CaptureBatch>)> {
        let c = self.client.take()?;
        let s = match &self.server {
            Some(s) => Some(s.take()?),
            None => None,
        };
        Ok((c, s))
    }
}

/// Writes the packets of the connections of `ports` to `path`.
pub(crate) fn write_pcap_of(path: &Path, packets: &[Packet], ports: &HashSet<u16>) -> Result<()> {
    let keep: Vec<Packet> = packets
        .iter()
        .filter(|p| {
            capture::parse_tcp(&p.data)
                .is_some_and(|t| ports.contains(&t.src.port()) || ports.contains(&t.dst.port()))
        })
        .cloned()
        .collect();
    let f = std::fs::File::create(path).map_err(|e| Error::io("writing a capture", e))?;
    capture::write_pcap(std::io::BufWriter::new(f), &keep)
        .map_err(|e| Error::io("writing a capture", e))
}

fn median(v: &[f64]) -> Option<f64> {
    Summary::of(v).map(|s| s.median)
}

/// Medians over the handshakes that have a value.
fn median_of<T>(items: &[T], f: impl Fn(&T) -> Option<f64>) -> Option<f64> {
    median(&items.iter().filter_map(f).collect::<Vec<_>>())
}

/// Waits (at most a second) until the server has reported `n` connections.
pub(crate) fn server_observations(server: &Server, n: usize) -> Vec<ServerObs> {
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    loop {
        seen.extend(server.take_observations());
        if seen.len() >= n || std::time::Instant::now() > deadline {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Run the lab; `emit` gets each combination's record, its handshake times
/// and its timelines the moment it is done; `stop` is polled between
/// handshakes.
pub fn run(
    spec: &TlsSpec,
    stop: &(dyn Fn() -> bool + Sync),
    emit: &mut dyn FnMut(TlsRecord, Vec<Option<f64>>, Vec<Timeline>) -> Result<()>,
    note: &mut dyn FnMut(String),
) -> Result<bool> {
    let chains = crate::pqsig::LabCerts::make(&pairs(spec), HOST)?;
    let lab = if spec.loopback {
        None
    } else {
        Some(Lab::create(&spec.link).map_err(|e| Error::io("creating the lab", e))?)
    };
    let rtt_ns = match &lab {
        Some(l) => {
            let s = l
                .measure_rtt(50)
                .map_err(|e| Error::io("measuring the RTT", e))?;
            let ns: Vec<f64> = s.iter().map(|d| d.as_nanos() as f64).collect();
            median(&ns)
        }
        None => None,
    };
    let calibration = lab.as_ref().and_then(Lab::calibration);
    let (server_ip, link_kind) = match &lab {
        Some(l) => (l.server_addr(), l.link_kind()),
        None => (Ipv4Addr::LOCALHOST, "loopback"),
    };
    let captures = match (&spec.capture_dir, spec.capture) {
        (_, false) => None,
        (dir, true) => {
            if let Some(d) = dir {
                std::fs::create_dir_all(d.join(CAPTURE_DIR))
                    .map_err(|e| Error::io("creating the capture directory", e))?;
            }
            Captures::start(lab.as_ref()).map_err(|e| Error::io("starting the captures", e))?
        }
    };
    let keys = KeyLines::default();
    let mut keylog = tls13::KeyLog::new();
    for &(ca_alg, srv_alg) in &pairs(spec) {
        let certs = chains
            .get(ca_alg, srv_alg)
            .ok_or_else(|| Error::Kat(format!("no chain for {ca_alg}/{srv_alg}")))?;
        let ca_der = certs.ca_der()?;
        let (server_cert_bytes, ca_cert_bytes) = certs.sizes();
        for &server_stack in &spec.server_stacks {
            let runnable: Vec<(Stack, PkAlgorithm)> = spec
                .client_stacks
                .iter()
                .flat_map(|&c| spec.groups.iter().map(move |&g| (c, g)))
                .filter(
                    |&(c, g)| match unsupported(c, server_stack, g, srv_alg, ca_alg) {
                        Some(why) => {
                            note(skip_note(
                                Combo {
                                    group: g,
                                    srv: srv_alg,
                                    ca: ca_alg,
                                    client: c,
                                    server: server_stack,
                                },
                                &why,
                            ));
                            false
                        }
                        None => true,
                    },
                )
                .collect();
            if runnable.is_empty() {
                continue;
            }
            let stls: ServerTls = certs.server_tls(server_stack, None)?;
            let bind = move || TcpListener::bind(SocketAddr::from((server_ip, 0)));
            let listener = match &lab {
                Some(l) => l.in_ns(Side::Server, bind),
                None => bind(),
            }
            .map_err(|e| Error::io("server socket", e))?;
            let server = Server::start(listener, stls)?;
            let addr = server.addr;
            let server_v4 = SocketAddrV4::new(server_ip, addr.port());
            for (client_stack, group) in runnable {
                if stop() {
                    return Ok(true);
                }
                let cctx =
                    crate::handshake::client_tls(client_stack, group, &ca_der, certs.pq(), &keys)?;
                let bad_before = server
                    .bad_attempts
                    .load(std::sync::atomic::Ordering::Relaxed);
                if let Some(c) = &captures {
                    // What came before (the RTT probe, the last combination's
                    // closing packets) is not this combination's.
                    c.take().map_err(|e| Error::io("reading the capture", e))?;
                }
                let n = spec.handshakes;
                let work = move || handshakes(&cctx, addr, n, stop);
                let obs = match &lab {
                    Some(l) => l.in_ns(Side::Client, work),
                    None => work(),
                };
                let server_seen = server_observations(&server, obs.len());
                absorb_keys(&keys, &mut keylog, spec.capture_dir.as_deref())?;
                let batches = match &captures {
                    Some(c) => Some(c.take().map_err(|e| Error::io("reading the capture", e))?),
                    None => None,
                };
                let combo = Combo {
                    group,
                    srv: srv_alg,
                    ca: ca_alg,
                    client: client_stack,
                    server: server_stack,
                };
                let measured = Measured {
                    obs,
                    server_seen,
                    batches,
                    server_v4,
                    server_bad_attempts: server
                        .bad_attempts
                        .load(std::sync::atomic::Ordering::Relaxed)
                        - bad_before,
                    server_library_version: server_stack.library_version(),
                    server_clock_shift_ns: 0,
                };
                let setting = Setting {
                    rtt_ns,
                    rtt_asked_ns: 2.0 * spec.link.delay.as_nanos() as f64,
                    rtt_base_ns: calibration.map(|c| c.base_rtt.as_nanos() as f64),
                    link_delay_ns: calibration.map(|c| c.applied_delay.as_nanos() as f64),
                    link: link_kind.into(),
                    server_cert_bytes,
                    ca_cert_bytes,
                    two_host: None,
                };
                let (rec, times, timelines) = analyse(spec, combo, measured, &keylog, &setting)?;
                emit(rec, times, timelines)?;
            }
            server.stop();
        }
    }
    drop(captures);
    drop(lab);
    Ok(stop())
}

/// The note of a combination a stack cannot run.
pub(crate) fn skip_note(c: Combo, why: &str) -> String {
    format!(
        "skipped {} client → {} server, {} with a {} server by a {} CA: {why}",
        c.client.name(),
        c.server.name(),
        c.group,
        c.srv,
        c.ca
    )
}

/// One combination of the matrix.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Combo {
    pub group: PkAlgorithm,
    pub srv: PkAlgorithm,
    pub ca: PkAlgorithm,
    pub client: Stack,
    pub server: Stack,
}

impl Combo {
    /// Where its captures go (the stacks in the name when either is not
    /// OpenSSL).
    pub fn capture_name(&self, side: &str) -> String {
        let pair = match (self.client, self.server) {
            (Stack::OpenSsl, Stack::OpenSsl) => String::new(),
            (c, s) => format!("_{}-{}", c.name(), s.name()),
        };
        format!(
            "{CAPTURE_DIR}/{}_{}_{}{pair}.{side}.pcap",
            self.group.name(),
            self.srv.name(),
            self.ca.name()
        )
    }
}

/// What was observed of one combination at both ends.
pub(crate) struct Measured {
    pub obs: Vec<std::result::Result<ClientObs, String>>,
    pub server_seen: Vec<ServerObs>,
    /// The client's capture and the server's (`None`: one capture saw both).
    pub batches: Option<(CaptureBatch, Option<CaptureBatch>)>,
    pub server_v4: SocketAddrV4,
    pub server_bad_attempts: u64,
    pub server_library_version: String,
    /// What to add to the server's packet times to have them on the
    /// server's own clock again (its pcap keeps that clock); 0 on one host.
    pub server_clock_shift_ns: i64,
}

/// Where a combination was measured.
pub(crate) struct Setting {
    pub rtt_ns: Option<f64>,
    pub rtt_asked_ns: f64,
    pub rtt_base_ns: Option<f64>,
    pub link_delay_ns: Option<f64>,
    pub link: String,
    pub server_cert_bytes: u64,
    pub ca_cert_bytes: u64,
    pub two_host: Option<ango_core::TlsTwoHost>,
}

/// The key-log lines of the sessions since the last call: into `keylog`
/// (for dissecting) and, with a results directory, into its key log.
pub(crate) fn absorb_keys(
    keys: &KeyLines,
    keylog: &mut tls13::KeyLog,
    dir: Option<&Path>,
) -> Result<()> {
    for line in keys.take() {
        keylog.add_line(&line);
        if let Some(d) = dir {
            append_line(&d.join(KEYLOG_FILE), &line)?;
        }
    }
    Ok(())
}

/// `n` handshakes one after another (fewer when `stop` says so).
pub(crate) fn handshakes(
    cctx: &ClientTls,
    addr: SocketAddr,
    n: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<std::result::Result<ClientObs, String>> {
    let mut obs = Vec::with_capacity(n);
    for _ in 0..n {
        if stop() {
            break;
        }
        obs.push(handshake::handshake_with(cctx, addr));
    }
    obs
}

/// A combination's record, handshake times and timelines from what both
/// ends observed (the analysis of the one-host lab and of two hosts).
pub(crate) fn analyse(
    spec: &TlsSpec,
    combo: Combo,
    m: Measured,
    keylog: &tls13::KeyLog,
    setting: &Setting,
) -> Result<(TlsRecord, Vec<Option<f64>>, Vec<Timeline>)> {
    let mut cap = TlsCapture::default();
    let ok_obs: Vec<&ClientObs> = m.obs.iter().filter_map(|o| o.as_ref().ok()).collect();
    let conns: Vec<Conn> = match &m.batches {
        Some((c, s)) => {
            cap.client_packets = c.packets.len() as u64;
            cap.server_packets = s.as_ref().map_or(c.packets.len(), |s| s.packets.len()) as u64;
            cap.kernel_drops = c.kernel_drops + s.as_ref().map_or(0, |s| s.kernel_drops);
            let mut all: Vec<&[Packet]> = vec![&c.packets];
            if let Some(s) = s {
                all.push(&s.packets);
            }
            capture::connections(&all, m.server_v4)
        }
        None => Vec::new(),
    };
    let by_port: HashMap<u16, &Conn> = conns.iter().map(|c| (c.client.port(), c)).collect();
    let server_by_port: HashMap<u16, &ServerObs> =
        m.server_seen.iter().map(|s| (s.peer_port, s)).collect();
    let mut timelines = Vec::with_capacity(ok_obs.len());
    for (i, o) in ok_obs.iter().enumerate() {
        let conn = by_port.get(&o.local_port).copied();
        let dissected = conn.map(|c| tls13::dissect(&c.c2s, &c.s2c, keylog));
        let wire = conn.zip(dissected.as_ref());
        let tl = timeline::build(i, o, server_by_port.get(&o.local_port).copied(), wire);
        if tl.complete() {
            cap.handshakes_timed += 1;
        } else if cap.problems.len() < 5 {
            if let Some(p) = tl.problems.first() {
                if !cap.problems.contains(p) {
                    cap.problems.push(p.clone());
                }
            }
        }
        timelines.push(tl);
    }
    if let (Some(d), Some((c, s))) = (&spec.capture_dir, &m.batches) {
        let keep: HashSet<u16> = ok_obs
            .iter()
            .take(spec.pcap_handshakes.unwrap_or(usize::MAX))
            .map(|o| o.local_port)
            .collect();
        cap.handshakes_in_pcap = keep.len() as u64;
        let cname = combo.capture_name("client");
        write_pcap_of(&d.join(&cname), &c.packets, &keep)?;
        cap.client_pcap = Some(cname);
        if let Some(s) = s {
            let sname = combo.capture_name("server");
            let own_clock: Vec<Packet> = s
                .packets
                .iter()
                .map(|p| Packet {
                    t_ns: p.t_ns.saturating_add_signed(m.server_clock_shift_ns),
                    ..p.clone()
                })
                .collect();
            write_pcap_of(&d.join(&sname), &own_clock, &keep)?;
            cap.server_pcap = Some(sname);
        }
        cap.keylog = Some(KEYLOG_FILE.into());
    }
    let times: Vec<Option<f64>> = m
        .obs
        .iter()
        .map(|o| o.as_ref().ok().map(|c| c.handshake.as_nanos() as f64))
        .collect();
    let errors: Vec<String> = m
        .obs
        .iter()
        .filter_map(|o| o.as_ref().err().cloned())
        .take(5)
        .collect();
    let ok: Vec<f64> = times.iter().flatten().copied().collect();
    let q = Summary::of(&ok).map(|s| s.stats());
    // The phases of the handshakes with every point of both views; when
    // none has them all (a side without a capture), each phase over the
    // handshakes that have it.
    let mut timed: Vec<&Timeline> = timelines.iter().filter(|t| t.complete()).collect();
    if timed.is_empty() {
        timed = timelines.iter().collect();
    }
    let mut phases_ns = BTreeMap::new();
    for (phase, _, _) in timeline::PHASES {
        if let Some(m) = median_of(&timed, |t| t.phases_ns.get(phase).map(|&v| v as f64)) {
            phases_ns.insert(phase.to_string(), m);
        }
    }
    let point = |t: &&Timeline, a: &str, b: &str| -> Option<f64> {
        Some((t.points_ns.get(b)? - t.points_ns.get(a)?) as f64)
    };
    let mut openssl_ns = BTreeMap::new();
    let mut rustls_io_ns = BTreeMap::new();
    let intervals: Vec<BTreeMap<&str, i64>> = ok_obs
        .iter()
        .map(|o| {
            timeline::openssl_intervals(
                &o.events,
                server_by_port.get(&o.local_port).map_or(&[], |s| &s.events),
            )
        })
        .collect();
    for (k, side) in [
        ("client_sh_read_to_finished_write", combo.client),
        ("server_ch_read_to_finished_write", combo.server),
        ("server_sh_write_to_finished_write", combo.server),
    ] {
        if let Some(m) = median_of(&intervals, |m| m.get(k).map(|&v| v as f64)) {
            match side {
                Stack::OpenSsl => openssl_ns.insert(k.to_string(), m),
                Stack::Rustls => rustls_io_ns.insert(k.to_string(), m),
            };
        }
    }
    let tcp = TlsTcp {
        server_mss: median_of(&m.server_seen, |s| {
            s.tcp_after.as_ref().map(|t| f64::from(t.snd_mss))
        }),
        client_mss: median_of(&ok_obs, |o| o.tcp.as_ref().map(|t| f64::from(t.snd_mss))),
        server_initial_cwnd: median_of(&m.server_seen, |s| {
            s.tcp_at_accept.as_ref().map(|t| f64::from(t.snd_cwnd))
        }),
        server_cwnd_after: median_of(&m.server_seen, |s| {
            s.tcp_after.as_ref().map(|t| f64::from(t.snd_cwnd))
        }),
        retransmissions_c2s: timelines
            .iter()
            .map(|t| u64::from(t.retransmissions_c2s))
            .sum(),
        retransmissions_s2c: timelines
            .iter()
            .map(|t| u64::from(t.retransmissions_s2c))
            .sum(),
        congestion_control: ok_obs
            .iter()
            .find_map(|o| o.tcp.as_ref().map(|t| t.congestion_control.clone()))
            .unwrap_or_default(),
    };
    let rec = TlsRecord {
        head: ango_core::Header::new(SUITE, spec.run_id.clone()),
        library_version: openssl::version::version().to_string(),
        client_stack: combo.client.name().into(),
        server_stack: combo.server.name().into(),
        client_library_version: combo.client.library_version(),
        server_library_version: m.server_library_version.clone(),
        group: combo.group.name().into(),
        server_sig: combo.srv.name().into(),
        ca_sig: combo.ca.name().into(),
        handshakes: m.obs.len() as u64,
        cut_short: m.obs.len() < spec.handshakes,
        failures: (m.obs.len() - ok.len()) as u64,
        failure_examples: errors,
        handshake_ns: q,
        phases_ns,
        client_sh_rcv_to_finished_send_ns: median_of(&timed, |t| {
            point(t, "server_hello_rcvd", "client_finished_sent")
        }),
        server_sh_send_to_finished_send_ns: median_of(&timed, |t| {
            point(t, "server_hello_sent", "finished_sent")
        }),
        openssl_ns,
        rustls_io_ns,
        server_flight_bytes: median_of(&timelines, |t| t.flights.server_bytes.map(|v| v as f64)),
        server_flight_segments: median_of(&timelines, |t| t.flights.server_segments.map(f64::from)),
        client_flight_segments: median_of(&timelines, |t| t.flights.client_segments.map(f64::from)),
        client_finished_segments: median_of(&timelines, |t| {
            t.flights.client_finished_segments.map(f64::from)
        }),
        server_flight_writes: median_of(&m.server_seen, |s| {
            s.flight_writes().map(|(n, _, _)| n as f64)
        }),
        server_first_write_bytes: median_of(&m.server_seen, |s| {
            s.flight_writes().map(|(_, b, _)| b as f64)
        }),
        server_write_gap_ns: median_of(&m.server_seen, |s| {
            s.flight_writes().and_then(|(_, _, g)| g).map(|g| g as f64)
        }),
        tcp,
        capture: cap,
        cert_chain_bytes: setting.server_cert_bytes,
        server_cert_bytes: setting.server_cert_bytes,
        ca_cert_bytes: setting.ca_cert_bytes,
        rtt_ns: setting.rtt_ns,
        rtt_asked_ns: setting.rtt_asked_ns,
        rtt_base_ns: setting.rtt_base_ns,
        link_delay_ns: setting.link_delay_ns,
        link: setting.link.clone(),
        server_bad_attempts: m.server_bad_attempts,
        two_host: setting.two_host.clone(),
        method: METHOD.into(),
        time: ango_core::results::utc_now().0,
    };
    Ok((rec, times, timelines))
}

/// What the record's times are.
const METHOD: &str = "handshake_ns: client view, connect() to the end of SSL_connect (monotonic \
     clock), one fresh TCP connection per handshake, TLS 1.3 only, the client offering only the \
     group measured and trusting only the CA, verifying chain and host name; phases_ns, \
     client_sh_rcv_to_finished_send_ns, server_sh_send_to_finished_send_ns and the flights: \
     wire times from AF_PACKET captures in each namespace (kernel timestamps, CLOCK_REALTIME), \
     a message's time being that of its last byte, TLS records decrypted with the key log; \
     openssl_ns: OpenSSL's message callback (in-process, when a message enters or leaves \
     OpenSSL's buffers; it runs inside the timed handshake, one clock read and one push per \
     message); rustls_io_ns: the same intervals for a rustls side, from ango's I/O loop around \
     rustls (a clock read per socket read or write, flight resolution); a rustls client's \
     handshake_ns ends when its Finished is written to the socket; server_flight_writes, \
     server_first_write_bytes and server_write_gap_ns: an OpenSSL server's write calls to its \
     socket before it read the client's Finished (a clock read per call); all medians over the \
     handshakes";

fn append_line(path: &Path, line: &str) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io("writing the key log", e))?;
    writeln!(f, "{line}").map_err(|e| Error::io("writing the key log", e))
}

/// Parse "1ms", "250us", "0.5ms", "20ms", "0" into a duration.
pub fn parse_duration(flag: &str, s: &str) -> Result<Duration> {
    let t = s.trim().to_ascii_lowercase().replace('µ', "u");
    let bad = || {
        Error::usage(format!(
            "invalid {flag} '{s}'; give a duration like 0, 500us, 1ms, 20ms or 0.2s (at most 10s)"
        ))
    };
    let (num, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t.as_str(), "ms"),
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let ns = match unit {
        "ns" => v,
        "us" => v * 1e3,
        "ms" => v * 1e6,
        "s" => v * 1e9,
        _ => return Err(bad()),
    };
    if !(0.0..=1e10).contains(&ns) || !ns.is_finite() {
        return Err(bad());
    }
    Ok(Duration::from_nanos(ns as u64))
}

/// Parse a rate: "100mbit", "1gbit", "500kbit", or bits per second.
pub fn parse_rate(s: &str) -> Result<u64> {
    let t = s.trim().to_ascii_lowercase();
    let bad = || {
        Error::usage(format!(
            "invalid --rate '{s}'; give bits per second like 10mbit, 100mbit, 1gbit or 500kbit"
        ))
    };
    let (num, mult) = if let Some(n) = t.strip_suffix("gbit") {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix("mbit") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("kbit") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix("bit") {
        (n, 1.0)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let r = v * mult;
    if !(1e3..=1e12).contains(&r) {
        return Err(bad());
    }
    Ok(r as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_rates_parse_or_name_the_form() {
        assert_eq!(
            parse_duration("--rtt", "1ms").unwrap(),
            Duration::from_millis(1)
        );
        assert_eq!(
            parse_duration("--rtt", "500us").unwrap(),
            Duration::from_micros(500)
        );
        assert_eq!(parse_duration("--rtt", "0").unwrap(), Duration::ZERO);
        for b in ["fast", "-1ms", "3parsecs", "20s"] {
            let e = parse_duration("--rtt", b).unwrap_err().to_string();
            assert!(e.contains("1ms"), "{b}: {e}");
        }
        assert_eq!(parse_rate("100mbit").unwrap(), 100_000_000);
        assert!(parse_rate("warp9")
            .unwrap_err()
            .to_string()
            .contains("100mbit"));
    }

    #[test]
    fn loopback_lab_runs_a_small_matrix() {
        loopback_matrix(false);
    }

    /// As root the loopback lab also captures on `lo`: every handshake is
    /// timed on the wire.
    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn loopback_lab_captures_every_handshake_as_root() {
        assert!(crate::lab::is_root(), "capturing needs root; run as root");
        loopback_matrix(true);
    }

    fn loopback_matrix(capture: bool) {
        let spec = TlsSpec {
            run_id: "t".into(),
            groups: vec![PkAlgorithm::X25519, PkAlgorithm::X25519MlKem768],
            server_sigs: vec![PkAlgorithm::MlDsa44],
            ca_sigs: vec![PkAlgorithm::Rsa2048],
            handshakes: 5,
            link: LinkOpts::default(),
            loopback: true,
            capture,
            capture_dir: None,
            pcap_handshakes: None,
            client_stacks: vec![Stack::OpenSsl],
            server_stacks: vec![Stack::OpenSsl],
        };
        let mut recs = Vec::new();
        let mut timelines = Vec::new();
        let stopped = run(
            &spec,
            &|| false,
            &mut |r, t, tl| {
                assert_eq!(t.len(), 5);
                recs.push(r);
                timelines.extend(tl);
                Ok(())
            },
            &mut |n| panic!("nothing is skipped here: {n}"),
        )
        .unwrap();
        assert!(!stopped);
        assert_eq!(recs.len(), 2);
        for r in &recs {
            assert_eq!((r.handshakes, r.failures), (5, 0), "{r:?}");
            assert!(r.handshake_ns.as_ref().unwrap().median > 0.0);
            assert!(r.cert_chain_bytes > 1500, "ML-DSA-44 server cert: {r:?}");
        }
        assert_eq!(timelines.len(), 10);
        if !capture {
            return;
        }
        // Captured on lo: every handshake has every point of both views,
        // and both views add up to the same span (SYN sent to the client's
        // Finished sent).
        for r in &recs {
            assert_eq!(r.capture.handshakes_timed, 5, "{:?}", r.capture);
            assert_eq!(r.phases_ns.len(), timeline::PHASES.len(), "{r:?}");
            assert!(r.server_flight_segments.unwrap() >= 1.0);
            assert!(r.server_flight_bytes.unwrap() > r.cert_chain_bytes as f64);
            assert_eq!(r.tcp.server_initial_cwnd, Some(10.0));
        }
        for t in &timelines {
            assert!(t.complete(), "{:?}", t.problems);
            let sum = |view: &[&str]| -> i64 { view.iter().map(|p| t.phases_ns[p]).sum() };
            let span = t.points_ns["client_finished_sent"] - t.points_ns["syn_sent"];
            assert_eq!(sum(&ango_core::TLS_CLIENT_VIEW), span);
            assert_eq!(sum(&ango_core::TLS_SERVER_VIEW), span);
            assert!(t.points_ns.values().all(|&v| v >= 0), "{:?}", t.points_ns);
            // OpenSSL writes the ServerHello before it reaches the wire.
            let sh_write = t
                .openssl_server
                .iter()
                .find(|e| e.sent && e.name == "ServerHello")
                .unwrap();
            assert!(sh_write.t_ns <= t.points_ns["server_hello_sent"]);
        }
    }
}
