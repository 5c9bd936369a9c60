//! TLS 1.3 endpoints with OpenSSL 3.5 (the library of the symmetric and
//! public-key studies): a server that keeps serving, one handshake per
//! fresh TCP connection, and a client that makes handshakes one after
//! another, each timed from `connect()` to the end of its handshake.
//!
//! The key-exchange group is set per combination on both sides (the client
//! offers only that group, so its key share is the one measured); the
//! server's certificate and key decide its signature; the client trusts
//! only the combination's CA and verifies the chain and the host name.

use crate::certs::ServerCert;
use crate::probe::{self, KeyLines};
use ango_core::{Error, PkAlgorithm, Result};
use openssl::ssl::{
    HandshakeError, Ssl, SslAcceptor, SslConnector, SslContext, SslMethod, SslVerifyMode,
    SslVersion,
};
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::X509;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "openssl",
        message: e.to_string(),
    }
}

pub use crate::obs::{ClientObs, ServerObs, GROUPS, HOST};

/// OpenSSL's TLS group name of a key exchange.
pub fn group_name(a: PkAlgorithm) -> Result<&'static str> {
    Ok(match a {
        PkAlgorithm::X25519 => "X25519",
        PkAlgorithm::MlKem512 => "MLKEM512",
        PkAlgorithm::MlKem768 => "MLKEM768",
        PkAlgorithm::MlKem1024 => "MLKEM1024",
        PkAlgorithm::X25519MlKem768 => "X25519MLKEM768",
        other => {
            return Err(Error::usage(format!(
                "'{other}' is not a TLS key-exchange group here; valid: x25519, ml-kem-512, \
                 ml-kem-768, ml-kem-1024, x25519mlkem768"
            )))
        }
    })
}

/// A server context for one server certificate: TLS 1.3 only, every lab
/// group, the server's whole flight sent as OpenSSL does by default. Only
/// the leaf is sent: the client holds the root (as with a public CA, the
/// root is not sent).
pub fn server_context(server: &ServerCert) -> Result<SslContext> {
    server_context_logging(server, None)
}

/// [`server_context`] whose sessions' secrets also go to `keys` (a server
/// on its own host, which dissects its own captures).
pub fn server_context_logging(server: &ServerCert, keys: Option<&KeyLines>) -> Result<SslContext> {
    let mut b = SslAcceptor::mozilla_modern_v5(SslMethod::tls_server()).map_err(err)?;
    b.set_min_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    let groups: Vec<&str> = GROUPS
        .iter()
        .map(|g| group_name(*g))
        .collect::<Result<_>>()?;
    b.set_groups_list(&groups.join(":")).map_err(err)?;
    b.set_certificate(&server.cert).map_err(err)?;
    b.set_private_key(&server.key).map_err(err)?;
    b.check_private_key().map_err(err)?;
    probe::install_msg_callback(&mut b);
    if let Some(k) = keys {
        k.install(&mut b);
    }
    Ok(b.build().into_context())
}

/// A client context for one group and CA: TLS 1.3 only, only that group
/// offered, only that CA trusted, chain and host name verified; the
/// sessions' secrets go to `keys` if given.
pub fn client_context(
    group: PkAlgorithm,
    ca: &X509,
    keys: Option<&KeyLines>,
) -> Result<SslContext> {
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(err)?;
    b.set_min_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_groups_list(group_name(group)?).map_err(err)?;
    let mut store = X509StoreBuilder::new().map_err(err)?;
    store.add_cert(ca.clone()).map_err(err)?;
    b.set_cert_store(store.build());
    b.set_verify(SslVerifyMode::PEER);
    probe::install_msg_callback(&mut b);
    if let Some(k) = keys {
        k.install(&mut b);
    }
    Ok(b.build().into_context())
}

/// A server's TLS side: OpenSSL's context or rustls' configuration.
#[derive(Clone)]
pub enum ServerTls {
    OpenSsl(SslContext),
    Rustls(Arc<rustls::ServerConfig>),
}

impl From<SslContext> for ServerTls {
    fn from(c: SslContext) -> Self {
        ServerTls::OpenSsl(c)
    }
}

/// A client's TLS side.
#[derive(Clone)]
pub enum ClientTls {
    OpenSsl(SslContext),
    Rustls(Arc<rustls::ClientConfig>),
}

/// One client handshake with either stack (see [`handshake_once`]).
pub fn handshake_with(c: &ClientTls, addr: SocketAddr) -> std::result::Result<ClientObs, String> {
    match c {
        ClientTls::OpenSsl(ctx) => handshake_once(ctx, addr),
        ClientTls::Rustls(cfg) => crate::rustls_stack::handshake_once(cfg, addr),
    }
}

/// The server: accepts until stopped, one handshake per connection. Bad
/// attempts (garbage, a truncated ClientHello, a client that disconnects
/// midway) are counted and the server goes on.
pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    pub handshakes: Arc<AtomicU64>,
    pub bad_attempts: Arc<AtomicU64>,
    observed: Arc<Mutex<Vec<ServerObs>>>,
    tls: Arc<Mutex<ServerTls>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serve on `listener` (already bound, in the server's namespace).
    pub fn start(listener: TcpListener, tls: impl Into<ServerTls>) -> Result<Server> {
        let tls = tls.into();
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("server address", e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::io("server socket", e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let handshakes = Arc::new(AtomicU64::new(0));
        let bad = Arc::new(AtomicU64::new(0));
        let observed: Arc<Mutex<Vec<ServerObs>>> = Arc::default();
        let tls = Arc::new(Mutex::new(tls));
        let (s, h, b, o, t) = (
            stop.clone(),
            handshakes.clone(),
            bad.clone(),
            observed.clone(),
            tls.clone(),
        );
        let thread = std::thread::spawn(move || {
            let mut pfd = libc::pollfd {
                fd: listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            while !s.load(Ordering::Relaxed) {
                // Wake the moment a connection arrives (no polling sleep
                // inside a timed handshake); the time-out only lets `stop`
                // be seen.
                // SAFETY: one valid pollfd for the listener's open socket.
                let r = unsafe { libc::poll(&mut pfd, 1, 50) };
                if r <= 0 {
                    continue;
                }
                match listener.accept() {
                    Ok((stream, peer)) => {
                        let tls = t.lock().unwrap_or_else(PoisonError::into_inner).clone();
                        let obs = match &tls {
                            ServerTls::OpenSsl(ctx) => serve_one(ctx, stream, peer.port()),
                            ServerTls::Rustls(cfg) => {
                                crate::rustls_stack::serve_one(cfg, stream, peer.port())
                            }
                        };
                        if obs.error.is_none() {
                            h.fetch_add(1, Ordering::Relaxed);
                        } else {
                            b.fetch_add(1, Ordering::Relaxed);
                        }
                        o.lock().unwrap_or_else(PoisonError::into_inner).push(obs);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        });
        Ok(Server {
            addr,
            stop,
            handshakes,
            bad_attempts: bad,
            observed,
            tls,
            thread: Some(thread),
        })
    }

    /// Serves the connections accepted from now on with `tls` (another
    /// certificate on the same port).
    pub fn set_tls(&self, tls: impl Into<ServerTls>) {
        *self.tls.lock().unwrap_or_else(PoisonError::into_inner) = tls.into();
    }

    /// What the server observed of each connection since the last call.
    pub fn take_observations(&self) -> Vec<ServerObs> {
        std::mem::take(&mut *self.observed.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.halt();
    }
}

fn serve_one(ctx: &SslContext, stream: TcpStream, peer_port: u16) -> ServerObs {
    let mut obs = ServerObs {
        peer_port,
        accepted_ns: probe::realtime_ns(),
        events: Vec::new(),
        tcp_at_accept: probe::tcp_info(stream.as_raw_fd()).ok(),
        tcp_after: None,
        error: None,
        writes: Vec::new(),
    };
    let fd = stream.as_raw_fd();
    let setup = || -> std::result::Result<Ssl, String> {
        stream.set_nonblocking(false).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .map_err(|e| e.to_string())?;
        Ssl::new(ctx).map_err(|e| e.to_string())
    };
    let mut ssl = match setup() {
        Ok(s) => s,
        Err(e) => {
            obs.error = Some(e);
            return obs;
        }
    };
    let log = probe::attach_log(&mut ssl);
    // Its write calls show OpenSSL's flushes of its handshake buffer.
    let result = ssl.accept(probe::LoggedWrites::new(stream));
    obs.tcp_after = probe::tcp_info(fd).ok();
    obs.events = probe::drain(&log);
    let mut tls = match result {
        Ok(t) => t,
        Err(e) => {
            obs.error = Some(handshake_error(e, false));
            return obs;
        }
    };
    obs.writes = std::mem::take(&mut tls.get_mut().writes);
    // Wait for the client's close so the connection ends cleanly.
    let mut b = [0u8; 1];
    let _ = tls.read(&mut b);
    let _ = tls.shutdown();
    obs
}

/// One line for a failed handshake; the client adds the result of its
/// chain verification.
fn handshake_error<S>(e: HandshakeError<S>, with_verify: bool) -> String {
    match e {
        HandshakeError::SetupFailure(e) => e.to_string(),
        HandshakeError::Failure(m) if with_verify => format!(
            "{} (verify: {})",
            m.error(),
            m.ssl().verify_result().error_string()
        ),
        HandshakeError::Failure(m) => m.error().to_string(),
        HandshakeError::WouldBlock(_) => "would block".into(),
    }
}

/// One client handshake on a fresh TCP connection: the time from
/// `connect()` to the end of the handshake and what the client observed,
/// or the error.
pub fn handshake_once(
    ctx: &SslContext,
    addr: SocketAddr,
) -> std::result::Result<ClientObs, String> {
    let start_ns = probe::realtime_ns();
    let t0 = Instant::now();
    let stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let local_port = stream.local_addr().map(|a| a.port()).unwrap_or(0);
    let fd = stream.as_raw_fd();
    let mut ssl = Ssl::new(ctx).map_err(|e| e.to_string())?;
    ssl.set_hostname(HOST).map_err(|e| e.to_string())?;
    ssl.param_mut().set_host(HOST).map_err(|e| e.to_string())?;
    let log = probe::attach_log(&mut ssl);
    let mut tls = ssl.connect(stream).map_err(|e| handshake_error(e, true))?;
    let handshake = t0.elapsed();
    let tcp = probe::tcp_info(fd).ok();
    let _ = tls.shutdown();
    let _ = tls.get_mut().flush();
    Ok(ClientObs {
        handshake,
        start_ns,
        local_port,
        events: probe::drain(&log),
        tcp,
    })
}

impl crate::pqsig::PairCerts<'_> {
    /// The server side of this pair with `stack`, its session secrets to
    /// `keys` if given.
    pub fn server_tls(
        &self,
        stack: crate::rustls_stack::Stack,
        keys: Option<&KeyLines>,
    ) -> Result<ServerTls> {
        use crate::rustls_stack::Stack;
        Ok(match (self, stack) {
            (crate::pqsig::PairCerts::OpenSsl(_, srv), Stack::OpenSsl) => {
                server_context_logging(srv, keys)?.into()
            }
            (crate::pqsig::PairCerts::OpenSsl(_, srv), Stack::Rustls) => {
                ServerTls::Rustls(crate::rustls_stack::server_config_logging(srv, keys)?)
            }
            (crate::pqsig::PairCerts::Pq(c), Stack::Rustls) => {
                ServerTls::Rustls(c.server_config(keys)?)
            }
            (crate::pqsig::PairCerts::Pq(c), Stack::OpenSsl) => {
                return Err(Error::usage(crate::pqsig::openssl_lacks(
                    c.ca_alg,
                    c.server_alg,
                )))
            }
        })
    }
}

/// A client for one pair: TLS 1.3, only `group`, only the pair's CA; a
/// rustls client also verifies the OQS schemes when the pair has one.
pub fn client_tls(
    stack: crate::rustls_stack::Stack,
    group: PkAlgorithm,
    ca_der: &[u8],
    pq: bool,
    keys: &KeyLines,
) -> Result<ClientTls> {
    use crate::rustls_stack::Stack;
    let x509 = || openssl::x509::X509::from_der(ca_der).map_err(err);
    Ok(match (stack, pq) {
        (Stack::Rustls, true) => {
            ClientTls::Rustls(crate::pqsig::client_config(group, ca_der, Some(keys))?)
        }
        (Stack::Rustls, false) => ClientTls::Rustls(crate::rustls_stack::client_config(
            group,
            &x509()?,
            Some(keys),
        )?),
        (Stack::OpenSsl, false) => ClientTls::OpenSsl(client_context(group, &x509()?, Some(keys))?),
        (Stack::OpenSsl, true) => {
            return Err(Error::usage(
                "OpenSSL 3.5 cannot verify the OQS schemes; rustls runs them",
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs;

    #[test]
    fn handshakes_verify_the_chain_and_fail_with_a_wrong_ca() {
        let ca = certs::new_ca(PkAlgorithm::P256).unwrap();
        let other = certs::new_ca(PkAlgorithm::P256).unwrap();
        let srv = certs::issue_server(&ca, PkAlgorithm::MlDsa44, HOST).unwrap();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = Server::start(l, server_context(&srv).unwrap()).unwrap();
        for g in GROUPS {
            let keys = KeyLines::default();
            let ctx = client_context(*g, &ca.cert, Some(&keys)).unwrap();
            let o = handshake_once(&ctx, server.addr).unwrap();
            assert!(o.handshake > Duration::ZERO, "{g}");
            // The client wrote ClientHello and Finished and read the
            // server's five messages, in order.
            let sent: Vec<u8> = o
                .events
                .iter()
                .filter(|e| e.sent)
                .filter_map(|e| e.hs_type)
                .collect();
            let read: Vec<u8> = o
                .events
                .iter()
                .filter(|e| !e.sent)
                .filter_map(|e| e.hs_type)
                .collect();
            assert_eq!(sent, [1, 20], "{g}");
            assert_eq!(&read[..5], [2, 8, 11, 15, 20], "{g}");
            assert!(o.events.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
            let tcp = o.tcp.unwrap();
            assert!(tcp.snd_mss > 0 && tcp.snd_cwnd > 0 && !tcp.congestion_control.is_empty());
            let lines = keys.take();
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("SERVER_HANDSHAKE_TRAFFIC_SECRET ")),
                "{lines:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(100));
        let seen = server.take_observations();
        assert_eq!(seen.len(), GROUPS.len());
        for o in &seen {
            assert!(o.error.is_none(), "{o:?}");
            let sent: Vec<u8> = o
                .events
                .iter()
                .filter(|e| e.sent)
                .filter_map(|e| e.hs_type)
                .collect();
            assert_eq!(&sent[..5], [2, 8, 11, 15, 20]);
            assert_eq!(
                o.tcp_at_accept.as_ref().unwrap().snd_cwnd,
                10,
                "initial window"
            );
        }
        let bad = client_context(PkAlgorithm::X25519, &other.cert, None).unwrap();
        let e = handshake_once(&bad, server.addr).unwrap_err();
        assert!(e.contains("verify"), "{e}");
        // Garbage, a truncated ClientHello and a client that leaves midway:
        // counted, and the server goes on.
        let mut s = TcpStream::connect(server.addr).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        drop(s);
        let mut s = TcpStream::connect(server.addr).unwrap();
        s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01])
            .unwrap();
        drop(s);
        drop(TcpStream::connect(server.addr).unwrap());
        let ok = client_context(PkAlgorithm::MlKem768, &ca.cert, None).unwrap();
        handshake_once(&ok, server.addr).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(server.bad_attempts.load(Ordering::Relaxed) >= 4);
        assert_eq!(server.handshakes.load(Ordering::Relaxed), 6);
        server.stop();
    }
}
