//! The lab's second TLS stack: rustls (with AWS-LC through aws-lc-rs, its
//! default provider) as client and server, beside OpenSSL.
//!
//! rustls has no message callback, so the in-process times come from
//! ango's own I/O loop around the connection: the clock is read when a
//! flight's bytes are written to the socket or when the bytes that
//! complete a flight have been read and processed. The events are given
//! the handshake types of the flight's messages (a server flight's
//! ServerHello at its first write, its Finished at its last) so the
//! timelines read them like OpenSSL's callbacks; their resolution is the
//! flight, not the message. The wire times (captures and the key log,
//! which rustls writes through [`rustls::KeyLog`]) are the same as for
//! OpenSSL.

use crate::certs::ServerCert;
use crate::obs::{ClientObs, ServerObs, HOST};
use crate::probe::{self, KeyLines, MsgEvent};
use ango_core::{Error, PkAlgorithm, Result};
use rustls::crypto::{aws_lc_rs, CryptoProvider, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// rustls and its provider, as pinned in Cargo.toml (rustls has no
/// run-time version string).
pub const VERSION: &str = "rustls 0.23.46 (aws-lc-rs 1.19.0)";

/// A TLS stack of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stack {
    OpenSsl,
    Rustls,
}

impl Stack {
    pub const ALL: &'static [Stack] = &[Stack::OpenSsl, Stack::Rustls];

    pub const fn name(self) -> &'static str {
        match self {
            Stack::OpenSsl => "openssl",
            Stack::Rustls => "rustls",
        }
    }

    /// The stack's exact version.
    pub fn library_version(self) -> String {
        match self {
            Stack::OpenSsl => openssl::version::version().to_string(),
            Stack::Rustls => VERSION.to_string(),
        }
    }

    /// Parse a `--client-stack` / `--server-stack` list: openssl, rustls,
    /// both, comma-separated.
    pub fn parse_list(flag: &str, s: &str) -> Result<Vec<Stack>> {
        let mut v = Vec::new();
        for i in ango_core::algo::list_items(s, flag, "openssl, rustls, both")? {
            let add: &[Stack] = match i.trim().to_ascii_lowercase().as_str() {
                "openssl" => &[Stack::OpenSsl],
                "rustls" => &[Stack::Rustls],
                "both" | "all" => Stack::ALL,
                other => {
                    return Err(Error::usage(format!(
                        "unknown {flag} '{other}'; valid: openssl, rustls, both"
                    )))
                }
            };
            for s in add {
                if !v.contains(s) {
                    v.push(*s);
                }
            }
        }
        Ok(v)
    }
}

/// A TCP socket for rustls that never raises SIGPIPE: rustls writes with
/// `write_vectored`, which std implements with `writev` (no
/// `MSG_NOSIGNAL`), and ango restores SIGPIPE's default action so that
/// `ango … | head` ends quietly. A peer that has gone would then kill the
/// process; through this wrapper every write is std's `send` with
/// `MSG_NOSIGNAL` and a gone peer is an `EPIPE` error.
#[derive(Debug)]
pub struct Sock(pub TcpStream);

impl std::io::Read for Sock {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Sock {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

pub(crate) fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "rustls",
        message: e.to_string(),
    }
}

/// rustls' key-exchange group for a lab group, or why it has none.
pub fn kx_group(g: PkAlgorithm) -> std::result::Result<&'static dyn SupportedKxGroup, String> {
    use aws_lc_rs::kx_group;
    match g {
        PkAlgorithm::X25519 => Ok(kx_group::X25519),
        PkAlgorithm::X25519MlKem768 => Ok(kx_group::X25519MLKEM768),
        PkAlgorithm::MlKem768 => Ok(kx_group::MLKEM768),
        PkAlgorithm::MlKem1024 => Ok(kx_group::MLKEM1024),
        other => Err(format!("rustls has no {other} key-exchange group")),
    }
}

/// The rustls key log, writing NSS key-log lines to `KeyLines`.
#[derive(Debug)]
struct KeyLog(KeyLines);

impl rustls::KeyLog for KeyLog {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        self.0.push(format!(
            "{label} {} {}",
            hex::encode(client_random),
            hex::encode(secret)
        ));
    }
}

/// The lab's provider: aws-lc-rs with only `group` (every group rustls
/// has, for a server, when `None`).
#[cfg_attr(not(feature = "pq-sigs"), allow(dead_code))]
pub(crate) fn lab_provider(group: Option<PkAlgorithm>) -> CryptoProvider {
    let groups = match group {
        Some(g) => crate::obs::GROUPS
            .iter()
            .filter(|&&x| x == g)
            .filter_map(|g| kx_group(*g).ok())
            .collect(),
        None => crate::obs::GROUPS
            .iter()
            .filter_map(|g| kx_group(*g).ok())
            .collect(),
    };
    tls13_provider(groups)
}

/// The rustls key log writing into `keys`.
#[cfg_attr(not(feature = "pq-sigs"), allow(dead_code))]
pub(crate) fn key_log(keys: &KeyLines) -> Arc<dyn rustls::KeyLog> {
    Arc::new(KeyLog(keys.clone()))
}

fn tls13_provider(groups: Vec<&'static dyn SupportedKxGroup>) -> CryptoProvider {
    let mut p = aws_lc_rs::default_provider();
    p.kx_groups = groups;
    p
}

/// rustls' TLS 1.3 or TLS 1.2.
pub fn version(tls13: bool) -> &'static rustls::SupportedProtocolVersion {
    if tls13 {
        &rustls::version::TLS13
    } else {
        &rustls::version::TLS12
    }
}

/// A server with `provider`, `versions`, no client authentication and
/// one certificate (DER, only the leaf sent, as the OpenSSL server does)
/// with its PKCS#8 key.
pub fn server_config_with(
    provider: CryptoProvider,
    versions: &[&'static rustls::SupportedProtocolVersion],
    cert_der: Vec<u8>,
    key_pkcs8: Vec<u8>,
) -> Result<ServerConfig> {
    ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(versions)
        .map_err(err)?
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert_der)],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_pkcs8)),
        )
        .map_err(|e| err(format!("the server's certificate and key: {e}")))
}

/// A client with `provider`, `versions`, only the CA `ca_der` trusted
/// (chain and host name verified), no client authentication, no
/// resumption.
pub fn client_config_with(
    provider: CryptoProvider,
    versions: &[&'static rustls::SupportedProtocolVersion],
    ca_der: Vec<u8>,
) -> Result<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from(ca_der)).map_err(err)?;
    let mut cfg = ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(versions)
        .map_err(err)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.resumption = rustls::client::Resumption::disabled();
    Ok(cfg)
}

/// A server for one certificate: TLS 1.3, every group rustls has.
pub fn server_config(server: &ServerCert) -> Result<Arc<ServerConfig>> {
    server_config_logging(server, None)
}

/// [`server_config`] whose sessions' secrets also go to `keys`.
pub fn server_config_logging(
    server: &ServerCert,
    keys: Option<&KeyLines>,
) -> Result<Arc<ServerConfig>> {
    let groups = crate::obs::GROUPS
        .iter()
        .filter_map(|g| kx_group(*g).ok())
        .collect();
    let mut cfg = server_config_with(
        tls13_provider(groups),
        &[version(true)],
        server.cert.to_der().map_err(err)?,
        server.key.private_key_to_pkcs8().map_err(err)?,
    )?;
    if let Some(k) = keys {
        cfg.key_log = Arc::new(KeyLog(k.clone()));
    }
    Ok(Arc::new(cfg))
}

/// A client for one group and CA: TLS 1.3, only that group offered, only
/// that CA trusted, chain and host name verified, no resumption; the
/// secrets go to `keys` if given.
pub fn client_config(
    group: PkAlgorithm,
    ca: &openssl::x509::X509,
    keys: Option<&KeyLines>,
) -> Result<Arc<ClientConfig>> {
    let g = kx_group(group).map_err(Error::usage)?;
    let mut cfg = client_config_with(
        tls13_provider(vec![g]),
        &[version(true)],
        ca.to_der().map_err(err)?,
    )?;
    if let Some(k) = keys {
        cfg.key_log = Arc::new(KeyLog(k.clone()));
    }
    Ok(Arc::new(cfg))
}

fn hs(t_ns: u64, sent: bool, typ: u8) -> MsgEvent {
    MsgEvent {
        t_ns,
        sent,
        content_type: 22,
        hs_type: Some(typ),
        len: 0,
    }
}

/// One client handshake on a fresh TCP connection, timed from `connect()`
/// to the write of the client's Finished, with the flight events of the
/// I/O loop.
pub fn handshake_once(
    cfg: &Arc<ClientConfig>,
    addr: SocketAddr,
) -> std::result::Result<ClientObs, String> {
    let start_ns = probe::realtime_ns();
    let t0 = Instant::now();
    let tcp =
        TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let local_port = tcp.local_addr().map(|a| a.port()).unwrap_or(0);
    let mut sock = Sock(tcp);
    let name = ServerName::try_from(HOST).map_err(|e| e.to_string())?;
    let mut conn = ClientConnection::new(cfg.clone(), name).map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    let (mut hello_sent, mut sh_read, mut fin_read, mut fin_sent) = (false, false, false, false);
    loop {
        while conn.wants_write() {
            conn.write_tls(&mut sock).map_err(|e| e.to_string())?;
            let t = probe::realtime_ns();
            if !hello_sent {
                events.push(hs(t, true, 1));
                hello_sent = true;
            } else if fin_read && !conn.wants_write() && !fin_sent {
                events.push(hs(t, true, 20));
                fin_sent = true;
            }
        }
        if !conn.is_handshaking() {
            break;
        }
        let n = conn.read_tls(&mut sock).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the server closed the connection during the handshake".into());
        }
        let t = probe::realtime_ns();
        if let Err(e) = conn.process_new_packets() {
            let _ = conn.write_tls(&mut sock);
            return Err(e.to_string());
        }
        if !sh_read && conn.negotiated_cipher_suite().is_some() {
            events.push(hs(t, false, 2));
            sh_read = true;
        }
        if !conn.is_handshaking() && !fin_read {
            events.push(hs(t, false, 20));
            fin_read = true;
        }
    }
    let handshake = t0.elapsed();
    let tcp = probe::tcp_info(sock.0.as_raw_fd()).ok();
    conn.send_close_notify();
    let _ = conn.write_tls(&mut sock);
    let _ = sock.flush();
    Ok(ClientObs {
        handshake,
        start_ns,
        local_port,
        events,
        tcp,
    })
}

/// Serves one connection: the handshake with flight events, then waits
/// for the client's close.
pub fn serve_one(cfg: &Arc<ServerConfig>, tcp: TcpStream, peer_port: u16) -> ServerObs {
    let mut sock = Sock(tcp);
    let mut obs = ServerObs {
        peer_port,
        accepted_ns: probe::realtime_ns(),
        events: Vec::new(),
        tcp_at_accept: probe::tcp_info(sock.0.as_raw_fd()).ok(),
        tcp_after: None,
        error: None,
        writes: Vec::new(),
    };
    let fd = sock.0.as_raw_fd();
    let mut run = || -> std::result::Result<(), String> {
        sock.0.set_nonblocking(false).map_err(|e| e.to_string())?;
        sock.0.set_nodelay(true).map_err(|e| e.to_string())?;
        sock.0
            .set_read_timeout(Some(Duration::from_secs(5)))
            .map_err(|e| e.to_string())?;
        let mut conn = ServerConnection::new(cfg.clone()).map_err(|e| e.to_string())?;
        let (mut ch_read, mut flight_started, mut flight_done) = (false, false, false);
        while conn.is_handshaking() {
            if conn.wants_write() {
                conn.write_tls(&mut sock).map_err(|e| e.to_string())?;
                let t = probe::realtime_ns();
                if !flight_started {
                    obs.events.push(hs(t, true, 2));
                    flight_started = true;
                }
                if !conn.wants_write() && !flight_done {
                    obs.events.push(hs(t, true, 20));
                    flight_done = true;
                }
                continue;
            }
            let n = conn.read_tls(&mut sock).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the client closed the connection during the handshake".into());
            }
            let t = probe::realtime_ns();
            if let Err(e) = conn.process_new_packets() {
                let _ = conn.write_tls(&mut sock);
                return Err(e.to_string());
            }
            if !ch_read && conn.wants_write() {
                obs.events.push(hs(t, false, 1));
                ch_read = true;
            }
            if !conn.is_handshaking() {
                obs.events.push(hs(t, false, 20));
            }
        }
        obs.tcp_after = probe::tcp_info(fd).ok();
        while conn.wants_write() {
            conn.write_tls(&mut sock).map_err(|e| e.to_string())?;
        }
        // Wait for the client's close so the connection ends cleanly.
        let _ = conn.read_tls(&mut sock);
        Ok(())
    };
    if let Err(e) = run() {
        obs.error = Some(e);
    }
    if obs.tcp_after.is_none() {
        obs.tcp_after = probe::tcp_info(fd).ok();
    }
    obs
}

/// The rustls suite with code point `code`, if rustls has it (it has
/// no CCM suites).
pub fn suite(code: u16) -> Option<rustls::SupportedCipherSuite> {
    rustls::crypto::aws_lc_rs::ALL_CIPHER_SUITES
        .iter()
        .find(|c| u16::from(c.suite()) == code)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs;
    use crate::handshake::{client_context, server_context, ClientTls, Server, ServerTls};
    use std::net::TcpListener;
    use std::sync::atomic::Ordering;

    /// Every pairing of the two stacks completes handshakes with a P-256
    /// and an ML-DSA-44 server and the lab's groups, verifying the chain;
    /// rustls' flight events are in order and its key log is complete; a
    /// wrong CA fails; the rustls server survives garbage.
    #[test]
    fn all_four_pairings_handshake() {
        let ca = certs::new_ca(PkAlgorithm::P256).unwrap();
        let other = certs::new_ca(PkAlgorithm::P256).unwrap();
        for sig in [PkAlgorithm::P256, PkAlgorithm::MlDsa44] {
            let srv = certs::issue_server(&ca, sig, HOST).unwrap();
            for &server_stack in Stack::ALL {
                let tls: ServerTls = match server_stack {
                    Stack::OpenSsl => server_context(&srv).unwrap().into(),
                    Stack::Rustls => ServerTls::Rustls(server_config(&srv).unwrap()),
                };
                let server = Server::start(TcpListener::bind("127.0.0.1:0").unwrap(), tls).unwrap();
                for &client_stack in Stack::ALL {
                    for g in [PkAlgorithm::X25519, PkAlgorithm::X25519MlKem768] {
                        let keys = KeyLines::default();
                        let c = match client_stack {
                            Stack::OpenSsl => ClientTls::OpenSsl(
                                client_context(g, &ca.cert, Some(&keys)).unwrap(),
                            ),
                            Stack::Rustls => {
                                ClientTls::Rustls(client_config(g, &ca.cert, Some(&keys)).unwrap())
                            }
                        };
                        let what = format!("{sig} {g} {client_stack:?}→{server_stack:?}");
                        let o = crate::handshake::handshake_with(&c, server.addr)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        assert!(o.handshake > Duration::ZERO);
                        let lines = keys.take();
                        for label in [
                            "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
                            "SERVER_HANDSHAKE_TRAFFIC_SECRET",
                            "CLIENT_TRAFFIC_SECRET_0",
                            "SERVER_TRAFFIC_SECRET_0",
                        ] {
                            assert!(
                                lines.iter().any(|l| l.starts_with(label)),
                                "{what}: {lines:?}"
                            );
                        }
                        if client_stack == Stack::Rustls {
                            let seq: Vec<(bool, u8)> = o
                                .events
                                .iter()
                                .map(|e| (e.sent, e.hs_type.unwrap()))
                                .collect();
                            assert_eq!(
                                seq,
                                [(true, 1), (false, 2), (false, 20), (true, 20)],
                                "{what}"
                            );
                            assert!(o.events.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
                        }
                        let bad = match client_stack {
                            Stack::OpenSsl => {
                                ClientTls::OpenSsl(client_context(g, &other.cert, None).unwrap())
                            }
                            Stack::Rustls => {
                                ClientTls::Rustls(client_config(g, &other.cert, None).unwrap())
                            }
                        };
                        assert!(
                            crate::handshake::handshake_with(&bad, server.addr).is_err(),
                            "{what}: a wrong CA"
                        );
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
                let seen = server.take_observations();
                if server_stack == Stack::Rustls {
                    let ok: Vec<_> = seen.iter().filter(|o| o.error.is_none()).collect();
                    assert_eq!(ok.len(), 4, "{seen:?}");
                    for o in ok {
                        let seq: Vec<(bool, u8)> = o
                            .events
                            .iter()
                            .map(|e| (e.sent, e.hs_type.unwrap()))
                            .collect();
                        assert_eq!(seq, [(false, 1), (true, 2), (true, 20), (false, 20)]);
                    }
                    let mut s = TcpStream::connect(server.addr).unwrap();
                    s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
                    drop(s);
                    let ok = ClientTls::Rustls(
                        client_config(PkAlgorithm::MlKem768, &ca.cert, None).unwrap(),
                    );
                    crate::handshake::handshake_with(&ok, server.addr).unwrap();
                    std::thread::sleep(Duration::from_millis(100));
                    assert!(server.bad_attempts.load(Ordering::Relaxed) >= 5);
                }
                server.stop();
            }
        }
        assert!(kx_group(PkAlgorithm::MlKem512).is_err());
        assert!(crate::pqsig::supports_sig(PkAlgorithm::Snova24_5_4).is_err());
        assert!(crate::pqsig::supports_sig(PkAlgorithm::Mayo1).is_ok());
    }
}
