//! The lab run: certificates for every (CA, server) signature pair, the two
//! hosts and their link, then for every combination the handshakes, one
//! fresh TCP connection each, timed from `connect()` to the end of the
//! client's handshake. Failures are counted per combination, never retried.

use crate::certs::{self, Chains};
use crate::handshake::{self, client_context, server_context, Server, HOST};
use crate::lab::{Lab, LinkOpts, Side};
use ango_core::{Error, PkAlgorithm, Result};
use ango_harness::stats::Summary;
use serde::{Deserialize, Serialize};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::time::Duration;

pub const SUITE: &str = "tls";
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
}

/// Median, quartiles, p95 and mean of the handshake times, ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub p95: f64,
    pub mean: f64,
}

/// One combination of the lab: one JSON line of results.jsonl.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsRecord {
    pub schema: u32,
    pub run_id: String,
    /// Always `tls`.
    pub suite: String,
    pub group: String,
    pub server_sig: String,
    pub ca_sig: String,
    /// Handshakes attempted.
    pub handshakes: u64,
    /// Handshakes that failed (errors, time-outs); not retried.
    pub failures: u64,
    pub failure_examples: Vec<String>,
    /// Client view: `connect()` to the end of the handshake, successful
    /// handshakes only. Null if none succeeded.
    pub handshake_ns: Option<Quantiles>,
    /// DER bytes of the certificates the server sends: its own (the root
    /// CA is held by the client, not sent).
    pub cert_chain_bytes: u64,
    pub server_cert_bytes: u64,
    pub ca_cert_bytes: u64,
    /// RTT measured on the link before the run (median of TCP echoes), and
    /// the RTT asked (2 × one-way delay); null in loopback mode.
    pub rtt_ns: Option<f64>,
    pub rtt_asked_ns: f64,
    /// RTT of the relayed path with no added delay, and the one-way delay
    /// the relay adds after fitting the RTT to the asked one (null without
    /// a relay delay).
    pub rtt_base_ns: Option<f64>,
    pub link_delay_ns: Option<f64>,
    /// `veth`, `tun-relay` or `loopback`.
    pub link: String,
    /// Attempts the server counted as bad during this combination.
    pub server_bad_attempts: u64,
    /// True if Ctrl-C stopped this combination before all its handshakes.
    pub cut_short: bool,
    pub method: String,
    pub time: String,
}

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

/// Run the lab; `emit` gets each combination's record and its handshake
/// times the moment it is done; `stop` is polled between handshakes.
pub fn run(
    spec: &TlsSpec,
    stop: &(dyn Fn() -> bool + Sync),
    emit: &mut dyn FnMut(TlsRecord, Vec<Option<f64>>) -> Result<()>,
) -> Result<bool> {
    let chains = Chains::make(&pairs(spec), HOST)?;
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
            Summary::of(&ns).map(|s| s.median)
        }
        None => None,
    };
    let calibration = lab.as_ref().and_then(Lab::calibration);
    let (server_ip, link_kind) = match &lab {
        Some(l) => (l.server_addr(), l.link_kind()),
        None => (Ipv4Addr::LOCALHOST, "loopback"),
    };
    for &(ca_alg, srv_alg) in &pairs(spec) {
        let (ca, srv) = chains
            .get(ca_alg, srv_alg)
            .ok_or_else(|| Error::Kat(format!("no chain for {ca_alg}/{srv_alg}")))?;
        let sctx = server_context(srv)?;
        let bind = move || TcpListener::bind(SocketAddr::from((server_ip, 0)));
        let listener = match &lab {
            Some(l) => l.in_ns(Side::Server, bind),
            None => bind(),
        }
        .map_err(|e| Error::io("server socket", e))?;
        let server = Server::start(listener, sctx)?;
        let addr = server.addr;
        for &group in &spec.groups {
            if stop() {
                return Ok(true);
            }
            let cctx = client_context(group, ca)?;
            let bad_before = server
                .bad_attempts
                .load(std::sync::atomic::Ordering::Relaxed);
            let n = spec.handshakes;
            let work = move || {
                let mut times: Vec<Option<f64>> = Vec::with_capacity(n);
                let mut errors: Vec<String> = Vec::new();
                for _ in 0..n {
                    if stop() {
                        break;
                    }
                    match handshake::handshake_once(&cctx, addr) {
                        Ok(t) => times.push(Some(t.as_nanos() as f64)),
                        Err(e) => {
                            times.push(None);
                            if errors.len() < 5 {
                                errors.push(e);
                            }
                        }
                    }
                }
                (times, errors)
            };
            let (times, errors) = match &lab {
                Some(l) => l.in_ns(Side::Client, work),
                None => work(),
            };
            let ok: Vec<f64> = times.iter().flatten().copied().collect();
            let q = Summary::of(&ok).map(|s| Quantiles {
                median: s.median,
                q1: s.q1,
                q3: s.q3,
                p95: s.p95,
                mean: s.mean,
            });
            let server_der = certs::der_len(&srv.cert) as u64;
            let ca_der = certs::der_len(&ca.cert) as u64;
            let rec = TlsRecord {
                schema: ango_core::SCHEMA_VERSION,
                run_id: spec.run_id.clone(),
                suite: SUITE.into(),
                group: group.name().into(),
                server_sig: srv_alg.name().into(),
                ca_sig: ca_alg.name().into(),
                handshakes: times.len() as u64,
                cut_short: times.len() < spec.handshakes,
                failures: (times.len() - ok.len()) as u64,
                failure_examples: errors,
                handshake_ns: q,
                cert_chain_bytes: server_der,
                server_cert_bytes: server_der,
                ca_cert_bytes: ca_der,
                rtt_ns,
                rtt_asked_ns: 2.0 * spec.link.delay.as_nanos() as f64,
                rtt_base_ns: calibration.map(|c| c.base_rtt.as_nanos() as f64),
                link_delay_ns: calibration.map(|c| c.applied_delay.as_nanos() as f64),
                link: link_kind.into(),
                server_bad_attempts: server
                    .bad_attempts
                    .load(std::sync::atomic::Ordering::Relaxed)
                    - bad_before,
                method: "client view: connect() to the end of SSL_connect, one fresh TCP \
                         connection per handshake, TLS 1.3 only, the client offering only the \
                         group measured and trusting only the CA, verifying chain and host name"
                    .into(),
                time: ango_core::results::utc_now().1,
            };
            emit(rec, times)?;
        }
        server.stop();
    }
    drop(lab);
    Ok(stop())
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
        let spec = TlsSpec {
            run_id: "t".into(),
            groups: vec![PkAlgorithm::X25519, PkAlgorithm::X25519MlKem768],
            server_sigs: vec![PkAlgorithm::MlDsa44],
            ca_sigs: vec![PkAlgorithm::Rsa2048],
            handshakes: 5,
            link: LinkOpts::default(),
            loopback: true,
        };
        let mut recs = Vec::new();
        let stopped = run(&spec, &|| false, &mut |r, t| {
            assert_eq!(t.len(), 5);
            recs.push(r);
            Ok(())
        })
        .unwrap();
        assert!(!stopped);
        assert_eq!(recs.len(), 2);
        for r in &recs {
            assert_eq!((r.handshakes, r.failures), (5, 0), "{r:?}");
            assert!(r.handshake_ns.as_ref().unwrap().median > 0.0);
            assert!(r.cert_chain_bytes > 1500, "ML-DSA-44 server cert: {r:?}");
        }
    }
}
