//! `ango tls --bulk SIZE` (seed 004): application-data throughput over one
//! TLS connection per cipher suite, with each endpoint's CPU time per byte.
//!
//! Seed 004 argues that a client without AES instructions (ARM phones of
//! 2016) is about three times faster with ChaCha20-Poly1305. On an x86
//! machine that client is *emulated*: each endpoint runs in its own process
//! (`ango __tls-endpoint`), pinned to its own core, started with the
//! `OPENSSL_ia32cap` mask of its `--client-hw` / `--server-hw` setting, so
//! libcrypto in that process alone runs without AES-NI and carry-less
//! multiply (`off`) or with seed 000's mask (`seed000`). Each process reads
//! back the CPU features its libcrypto actually uses and the record carries
//! them.
//!
//! One transfer is one TCP connection: handshake (not timed), the client
//! asks for `bytes`, the server writes them in 16 KiB records, the client
//! reads them all. The client times its wall clock from the request to the
//! last byte and reads its thread's CPU time around the same span; the
//! server reads its thread's CPU time around its writes and hands it over
//! on the same connection when the client says it is done. An untimed
//! warm-up transfer of every suite comes first; then the repeats, each one
//! going through every suite in turn so the suites see the same machine.
//!
//! As root the two processes live in the lab's two network namespaces (a
//! veth pair, no emulated delay unless asked); without root, or with
//! `--loopback`, both on 127.0.0.1.

use crate::certs;
use crate::handshake::HOST;
use crate::lab::{Lab, Side};
use crate::link::LinkOpts;
use crate::records::{self, CipherSuite};
use crate::rustls_stack::{self, Stack};
use ango_core::{Error, Hw, PkAlgorithm, Result, TlsBulkRecord};
use openssl::pkey::PKey;
use openssl::ssl::{
    Ssl, SslContext, SslContextBuilder, SslMethod, SslOptions, SslVerifyMode, SslVersion,
};
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::X509;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::TlsBulk;

/// The hidden subcommand that runs one endpoint.
pub const ENDPOINT_CMD: &str = "__tls-endpoint";

/// Timed transfers per suite unless asked.
pub const DEFAULT_REPEATS: u32 = 5;

/// How long a transfer may go without progress before it is called
/// stalled, unless asked.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest transfer one request may ask for (the client's request is
/// checked by the server: a peer asking for more is refused).
pub const MAX_BYTES: u64 = 64 << 30;

/// Plaintext per write: one full TLS record.
const CHUNK: usize = 16384;

/// The warm-up transfer's size (or `bytes` if smaller).
const WARM_UP: u64 = 4 << 20;

/// Which way the bytes go.
pub const DIRECTION: &str = "server-to-client";

#[derive(Clone, Debug)]
pub struct BulkSpec {
    pub run_id: String,
    pub suites: Vec<CipherSuite>,
    pub bytes: u64,
    pub repeats: u32,
    pub client_hw: Vec<Hw>,
    pub server_hw: Vec<Hw>,
    pub link: LinkOpts,
    /// 127.0.0.1, no namespaces.
    pub loopback: bool,
    pub timeout: Duration,
    /// The TLS stacks of each side; every pairing is measured.
    pub client_stacks: Vec<Stack>,
    pub server_stacks: Vec<Stack>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Server,
    Client,
}

/// One transfer the client makes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    pub code: u16,
    pub bytes: u64,
    pub timed: bool,
}

/// What an endpoint process is told, as one JSON line on its stdin. The
/// stdin stays open: when it closes the endpoint exits, so no endpoint
/// outlives the run that started it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EndpointSpec {
    pub role: Role,
    /// The network namespace to enter first (`ip netns` name).
    pub netns: Option<String>,
    /// The core to pin the process to.
    pub core: Option<usize>,
    /// Server: the address to listen on (port 0: any). Client: the server.
    pub addr: SocketAddr,
    /// Server: its certificate and key (PEM). Client: the CA (PEM).
    pub cert_pem: String,
    pub key_pem: String,
    pub jobs: Vec<Job>,
    pub timeout_ms: u64,
    /// `openssl` or `rustls`.
    pub stack: String,
}

/// What an endpoint prints, one JSON object per line on its stdout.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Ready {
        port: u16,
        cpu_features: String,
        library_version: String,
    },
    Done {
        code: u16,
        timed: bool,
        negotiated: String,
        bytes: u64,
        wall_ns: u64,
        client_cpu_ns: u64,
        client_user_ns: u64,
        server_cpu_ns: u64,
        server_user_ns: u64,
    },
    Error {
        message: String,
    },
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "openssl",
        message: e.to_string(),
    }
}

/// This thread's CPU time (user + system) and its user part, in ns.
fn thread_cpu() -> (u64, u64) {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: FFI; clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    // SAFETY: FFI; rusage is plain data, zero-initialised, and getrusage
    // writes one through a valid pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let total = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
    let user = ru.ru_utime.tv_sec as u64 * 1_000_000_000 + ru.ru_utime.tv_usec as u64 * 1000;
    (total, user)
}

fn suite_by_code(code: u16) -> Option<&'static CipherSuite> {
    records::SUITES.iter().find(|s| s.code == code)
}

/// The server's context: TLS 1.2 and 1.3, every suite of
/// [`records::SUITES`] (the client's one offer decides), no session tickets
/// (nothing but the transfer after the handshake), security level 0 so
/// that TLS_AES_128_CCM_8_SHA256 is allowed when a client offers it.
fn server_ctx(cert_pem: &str, key_pem: &str) -> Result<SslContext> {
    let mut b = SslContextBuilder::new(SslMethod::tls_server()).map_err(err)?;
    b.set_min_proto_version(Some(SslVersion::TLS1_2))
        .map_err(err)?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))
        .map_err(err)?;
    b.set_security_level(0);
    let (v13, v12): (Vec<_>, Vec<_>) = records::SUITES.iter().partition(|s| s.tls13());
    let names = |v: Vec<&CipherSuite>| v.iter().map(|s| s.openssl).collect::<Vec<_>>().join(":");
    b.set_cipher_list(&names(v12)).map_err(err)?;
    b.set_ciphersuites(&names(v13)).map_err(err)?;
    b.set_options(SslOptions::NO_TICKET);
    b.set_num_tickets(0).map_err(err)?;
    let cert = X509::from_pem(cert_pem.as_bytes()).map_err(err)?;
    let key = PKey::private_key_from_pem(key_pem.as_bytes()).map_err(err)?;
    b.set_certificate(&cert).map_err(err)?;
    b.set_private_key(&key).map_err(err)?;
    b.check_private_key().map_err(err)?;
    Ok(b.build())
}

/// A rustls server for the bulk transfers: TLS 1.2 and 1.3, every suite
/// its provider has, no session tickets.
fn rustls_server(cert_pem: &str, key_pem: &str) -> Result<Arc<rustls::ServerConfig>> {
    let cert = X509::from_pem(cert_pem.as_bytes())
        .and_then(|c| c.to_der())
        .map_err(err)?;
    let key = PKey::private_key_from_pem(key_pem.as_bytes())
        .and_then(|k| k.private_key_to_pkcs8())
        .map_err(err)?;
    let mut p = rustls::crypto::aws_lc_rs::default_provider();
    p.cipher_suites = rustls::crypto::aws_lc_rs::ALL_CIPHER_SUITES.to_vec();
    let mut cfg = rustls_stack::server_config_with(
        p,
        &[rustls_stack::version(false), rustls_stack::version(true)],
        cert,
        key,
    )?;
    cfg.send_tls13_tickets = 0;
    Ok(Arc::new(cfg))
}

/// A rustls client offering `s` alone, in its version alone, verifying
/// the chain and host name, no resumption.
fn rustls_client(s: &CipherSuite, ca_pem: &str) -> Result<Arc<rustls::ClientConfig>> {
    let suite = rustls_stack::suite(s.code)
        .ok_or_else(|| Error::usage(format!("rustls has no {}", s.iana)))?;
    let mut p = rustls::crypto::aws_lc_rs::default_provider();
    p.cipher_suites = vec![suite];
    let ca = X509::from_pem(ca_pem.as_bytes())
        .and_then(|c| c.to_der())
        .map_err(err)?;
    Ok(Arc::new(rustls_stack::client_config_with(
        p,
        &[rustls_stack::version(s.tls13())],
        ca,
    )?))
}

/// A client context offering `s` alone, in its version alone, verifying
/// the chain to the CA and the host name.
fn client_ctx(s: &CipherSuite, ca_pem: &str) -> Result<SslContext> {
    let mut b = SslContextBuilder::new(SslMethod::tls_client()).map_err(err)?;
    records::only(&mut b, s)?;
    let mut store = X509StoreBuilder::new().map_err(err)?;
    store
        .add_cert(X509::from_pem(ca_pem.as_bytes()).map_err(err)?)
        .map_err(err)?;
    b.set_cert_store(store.build());
    b.set_verify(SslVerifyMode::PEER);
    Ok(b.build())
}

fn stalled(e: std::io::Error, what: &str, timeout: Duration) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "{what} stalled: nothing moved for {} s",
                timeout.as_secs_f64()
            ),
        ),
        _ => std::io::Error::new(e.kind(), format!("{what}: {e}")),
    }
}

fn ssl_io(e: openssl::ssl::HandshakeError<TcpStream>) -> std::io::Error {
    use openssl::ssl::HandshakeError;
    match e {
        HandshakeError::Failure(m) => match m.into_error().into_io_error() {
            Ok(io) => io,
            Err(e) => std::io::Error::other(e.to_string()),
        },
        HandshakeError::WouldBlock(_) => std::io::Error::new(
            std::io::ErrorKind::WouldBlock,
            "the handshake did not finish",
        ),
        HandshakeError::SetupFailure(e) => std::io::Error::other(e.to_string()),
    }
}

/// A server's TLS side.
pub enum ServerSide {
    OpenSsl(SslContext),
    Rustls(Arc<rustls::ServerConfig>),
}

/// Serves one connection: handshake, the request, the transfer, then this
/// thread's CPU time of the transfer when the client is done.
fn serve_one(side: &ServerSide, tcp: TcpStream, timeout: Duration) -> std::io::Result<()> {
    tcp.set_read_timeout(Some(timeout))?;
    tcp.set_write_timeout(Some(timeout))?;
    tcp.set_nodelay(true)?;
    match side {
        ServerSide::OpenSsl(ctx) => {
            let ssl = Ssl::new(ctx).map_err(std::io::Error::other)?;
            let mut s = ssl
                .accept(tcp)
                .map_err(|e| stalled(ssl_io(e), "handshake", timeout))?;
            serve_stream(&mut s, timeout)?;
            let _ = s.shutdown();
        }
        ServerSide::Rustls(cfg) => {
            let conn = rustls::ServerConnection::new(cfg.clone()).map_err(std::io::Error::other)?;
            let mut s = rustls::StreamOwned::new(conn, crate::rustls_stack::Sock(tcp));
            while s.conn.is_handshaking() {
                s.conn
                    .complete_io(&mut s.sock)
                    .map_err(|e| stalled(e, "handshake", timeout))?;
            }
            serve_stream(&mut s, timeout)?;
            s.conn.send_close_notify();
            let _ = s.conn.complete_io(&mut s.sock);
        }
    }
    Ok(())
}

/// The server's part after the handshake.
fn serve_stream<S: Read + Write>(s: &mut S, timeout: Duration) -> std::io::Result<()> {
    let mut req = [0u8; 8];
    s.read_exact(&mut req)
        .map_err(|e| stalled(e, "request", timeout))?;
    let n = u64::from_le_bytes(req);
    if n == 0 || n > MAX_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a request for {n} bytes; 1 to {MAX_BYTES} are served"),
        ));
    }
    let buf = vec![0x5a_u8; CHUNK];
    let (c0, u0) = thread_cpu();
    let mut left = n;
    while left > 0 {
        let k = left.min(CHUNK as u64) as usize;
        s.write_all(&buf[..k])
            .map_err(|e| stalled(e, "transfer", timeout))?;
        left -= k as u64;
    }
    s.flush().map_err(|e| stalled(e, "transfer", timeout))?;
    let (c1, u1) = thread_cpu();
    let mut done = [0u8; 1];
    s.read_exact(&mut done)
        .map_err(|e| stalled(e, "end of transfer", timeout))?;
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&(c1 - c0).to_le_bytes());
    out[8..].copy_from_slice(&(u1.saturating_sub(u0)).to_le_bytes());
    s.write_all(&out)?;
    s.flush()?;
    Ok(())
}

/// The server's loop: one connection at a time (the endpoint owns one
/// core). A connection that fails — garbage, a truncated ClientHello, a
/// client that vanishes mid-transfer, a stall — is reported on stderr and
/// the loop goes on.
pub fn serve(listener: &TcpListener, side: &ServerSide, timeout: Duration) {
    for conn in listener.incoming() {
        let r = conn.and_then(|tcp| serve_one(side, tcp, timeout));
        if let Err(e) = r {
            eprintln!("ango tls server: a connection ended early: {e}");
        }
    }
}

/// A client's TLS side.
pub enum ClientSide {
    OpenSsl(SslContext),
    Rustls(Arc<rustls::ClientConfig>),
}

/// One transfer as the client.
fn transfer(side: &ClientSide, to: SocketAddr, job: &Job, timeout: Duration) -> Result<Event> {
    let what = |e: std::io::Error| Error::Io {
        context: format!("TLS bulk transfer to {to}"),
        source: e,
    };
    let tcp = TcpStream::connect_timeout(&to, timeout).map_err(what)?;
    tcp.set_read_timeout(Some(timeout)).map_err(what)?;
    tcp.set_write_timeout(Some(timeout)).map_err(what)?;
    tcp.set_nodelay(true).map_err(what)?;
    match side {
        ClientSide::OpenSsl(ctx) => {
            let mut ssl = Ssl::new(ctx).map_err(err)?;
            ssl.set_hostname(HOST).map_err(err)?;
            ssl.param_mut().set_host(HOST).map_err(err)?;
            let mut s = ssl
                .connect(tcp)
                .map_err(|e| what(stalled(ssl_io(e), "handshake", timeout)))?;
            let negotiated = s
                .ssl()
                .current_cipher()
                .and_then(|c| c.standard_name())
                .unwrap_or("unknown")
                .to_string();
            let ev = client_stream(&mut s, negotiated, job, timeout).map_err(what)?;
            let _ = s.shutdown();
            Ok(ev)
        }
        ClientSide::Rustls(cfg) => {
            let name = rustls::pki_types::ServerName::try_from(HOST).map_err(err)?;
            let conn = rustls::ClientConnection::new(cfg.clone(), name).map_err(err)?;
            let mut s = rustls::StreamOwned::new(conn, crate::rustls_stack::Sock(tcp));
            while s.conn.is_handshaking() {
                s.conn
                    .complete_io(&mut s.sock)
                    .map_err(|e| what(stalled(e, "handshake", timeout)))?;
            }
            let negotiated = s.conn.negotiated_cipher_suite().map_or_else(
                || "unknown".into(),
                |c| records::iana_name(u16::from(c.suite())),
            );
            let ev = client_stream(&mut s, negotiated, job, timeout).map_err(what)?;
            s.conn.send_close_notify();
            let _ = s.conn.complete_io(&mut s.sock);
            Ok(ev)
        }
    }
}

/// The client's part after the handshake.
fn client_stream<S: Read + Write>(
    s: &mut S,
    negotiated: String,
    job: &Job,
    timeout: Duration,
) -> std::io::Result<Event> {
    let mut buf = vec![0u8; CHUNK];
    let (c0, u0) = thread_cpu();
    let t0 = Instant::now();
    s.write_all(&job.bytes.to_le_bytes())
        .and_then(|()| s.flush())
        .map_err(|e| stalled(e, "request", timeout))?;
    let mut got = 0u64;
    while got < job.bytes {
        let k = s
            .read(&mut buf)
            .map_err(|e| stalled(e, "transfer", timeout))?;
        if k == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the server closed after {got} of {} bytes", job.bytes),
            ));
        }
        got += k as u64;
    }
    let wall = t0.elapsed();
    let (c1, u1) = thread_cpu();
    s.write_all(&[1]).and_then(|()| s.flush())?;
    let mut theirs = [0u8; 16];
    s.read_exact(&mut theirs)
        .map_err(|e| stalled(e, "the server's CPU time", timeout))?;
    let word = |i: usize| u64::from_le_bytes(theirs[i..i + 8].try_into().expect("8 bytes"));
    Ok(Event::Done {
        code: job.code,
        timed: job.timed,
        negotiated,
        bytes: got,
        wall_ns: wall.as_nanos() as u64,
        client_cpu_ns: c1 - c0,
        client_user_ns: u1.saturating_sub(u0),
        server_cpu_ns: word(0),
        server_user_ns: word(8),
    })
}

fn say(ev: &Event) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{}",
        serde_json::to_string(ev).expect("events serialise")
    );
    let _ = out.flush();
}

/// The endpoint process (`ango __tls-endpoint`): reads its spec from the
/// first line of stdin, enters its namespace, pins itself, and serves or
/// runs its jobs. Returns the exit status.
pub fn endpoint_main() -> Result<i32> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) only sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("endpoint spec", e))?;
    let spec: EndpointSpec = serde_json::from_str(&line).map_err(|e| Error::Data {
        path: "endpoint spec".into(),
        message: e.to_string(),
    })?;
    // The lifeline: the parent holds the other end of stdin.
    std::thread::spawn(|| {
        let mut b = [0u8; 64];
        loop {
            match std::io::stdin().read(&mut b) {
                Ok(0) | Err(_) => std::process::exit(0),
                Ok(_) => {}
            }
        }
    });
    if let Some(ns) = &spec.netns {
        crate::lab::enter_netns(ns).map_err(|e| Error::io(format!("namespace {ns}"), e))?;
    }
    if let Some(c) = spec.core {
        ango_harness::affinity::pin(c).map_err(|e| Error::io(format!("pinning to CPU {c}"), e))?;
    }
    openssl::init();
    let rustls = spec.stack == Stack::Rustls.name();
    let (cpu_features, library_version) = if rustls {
        (
            ango_backends::aws_lc::ia32cap_features().join(" "),
            Stack::Rustls.library_version(),
        )
    } else {
        (
            ango_backends::openssl::ia32cap_features().join(" "),
            Stack::OpenSsl.library_version(),
        )
    };
    let timeout = Duration::from_millis(spec.timeout_ms.max(1));
    match spec.role {
        Role::Server => {
            let side = if rustls {
                ServerSide::Rustls(rustls_server(&spec.cert_pem, &spec.key_pem)?)
            } else {
                ServerSide::OpenSsl(server_ctx(&spec.cert_pem, &spec.key_pem)?)
            };
            let listener =
                TcpListener::bind(spec.addr).map_err(|e| Error::io("server socket", e))?;
            let port = listener
                .local_addr()
                .map_err(|e| Error::io("server socket", e))?
                .port();
            say(&Event::Ready {
                port,
                cpu_features,
                library_version,
            });
            serve(&listener, &side, timeout);
            Ok(0)
        }
        Role::Client => {
            say(&Event::Ready {
                port: 0,
                cpu_features,
                library_version,
            });
            let mut ctxs: BTreeMap<u16, ClientSide> = BTreeMap::new();
            for job in &spec.jobs {
                let s = suite_by_code(job.code)
                    .ok_or_else(|| Error::usage(format!("unknown suite 0x{:04X}", job.code)))?;
                if let std::collections::btree_map::Entry::Vacant(e) = ctxs.entry(job.code) {
                    e.insert(if rustls {
                        ClientSide::Rustls(rustls_client(s, &spec.cert_pem)?)
                    } else {
                        ClientSide::OpenSsl(client_ctx(s, &spec.cert_pem)?)
                    });
                }
                match transfer(&ctxs[&job.code], spec.addr, job, timeout) {
                    Ok(ev) => say(&ev),
                    Err(e) => {
                        say(&Event::Error {
                            message: format!("{}: {e}", s.iana),
                        });
                        return Ok(1);
                    }
                }
            }
            Ok(0)
        }
    }
}

/// A running endpoint process; killed and reaped on drop.
struct Endpoint {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
    role: Role,
}

impl Endpoint {
    fn spawn(spec: &EndpointSpec, hw: Hw) -> Result<Endpoint> {
        let exe = ango_harness::env::own_exe().map_err(|e| Error::io("ango's executable", e))?;
        let mut cmd = Command::new(exe);
        cmd.arg(ENDPOINT_CMD)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        match hw.ia32cap() {
            Some(mask) => cmd.env("OPENSSL_ia32cap", mask),
            None => cmd.env_remove("OPENSSL_ia32cap"),
        };
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::io("starting a TLS endpoint", e))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let line = serde_json::to_string(spec).expect("spec serialises");
        let mut ep = Endpoint {
            child,
            stdin: None,
            out,
            role: spec.role,
        };
        writeln!(stdin, "{line}").map_err(|e| Error::io("starting a TLS endpoint", e))?;
        ep.stdin = Some(stdin);
        Ok(ep)
    }

    /// The next event, or `None` when the endpoint has exited.
    fn next(&mut self) -> Result<Option<Event>> {
        let mut line = String::new();
        let n = self
            .out
            .read_line(&mut line)
            .map_err(|e| Error::io("reading a TLS endpoint", e))?;
        if n == 0 {
            return Ok(None);
        }
        serde_json::from_str(&line)
            .map(Some)
            .map_err(|e| Error::Data {
                path: format!("{:?} endpoint output", self.role),
                message: format!("{e}: {line}"),
            })
    }

    fn ready(&mut self) -> Result<(u16, String, String)> {
        match self.next()? {
            Some(Event::Ready {
                port,
                cpu_features,
                library_version,
            }) => Ok((port, cpu_features, library_version)),
            Some(Event::Error { message }) => Err(Error::usage(format!("tls --bulk: {message}"))),
            other => Err(Error::usage(format!(
                "tls --bulk: the {:?} endpoint did not start (status {:?}, said {other:?})",
                self.role,
                self.child.wait().ok()
            ))),
        }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The samples of one suite.
#[derive(Default)]
struct Samples {
    negotiated: String,
    rate: Vec<f64>,
    ccpu: Vec<f64>,
    cuser: Vec<f64>,
    scpu: Vec<f64>,
    suser: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    ango_harness::stats::Summary::of(v).map_or(f64::NAN, |s| s.median)
}

/// A P-256 CA and server certificate made for this run, as PEM: the
/// server's certificate, its key (PKCS#8) and the CA's certificate.
fn pems() -> Result<(String, String, String)> {
    let ca = certs::new_ca(PkAlgorithm::P256)?;
    let server = certs::issue_server(&ca, PkAlgorithm::P256, HOST)?;
    let pem = |r: std::result::Result<Vec<u8>, openssl::error::ErrorStack>| -> Result<String> {
        Ok(String::from_utf8_lossy(&r.map_err(err)?).into_owned())
    };
    Ok((
        pem(server.cert.to_pem())?,
        pem(server.key.private_key_to_pem_pkcs8())?,
        pem(ca.cert.to_pem())?,
    ))
}

/// Runs the study; `emit` gets one record per (suite, client hw, server
/// hw) as soon as its repeats are done. Returns whether `stop` cut it
/// short (then the points with at least two repeats are emitted too).
pub fn run(
    spec: &BulkSpec,
    stop: &dyn Fn() -> bool,
    emit: &mut dyn FnMut(TlsBulkRecord) -> Result<()>,
    note: &mut dyn FnMut(String),
) -> Result<bool> {
    let (cert_pem, key_pem, ca_pem) = pems()?;
    let lab = if spec.loopback {
        None
    } else {
        Some(Lab::create(&spec.link).map_err(|e| Error::io("creating the TLS lab", e))?)
    };
    let (server_ip, client_ns, server_ns, link) = match &lab {
        Some(l) => (
            std::net::IpAddr::V4(l.server_addr()),
            Some(l.ns_name(Side::Client).to_string()),
            Some(l.ns_name(Side::Server).to_string()),
            l.link_kind().to_string(),
        ),
        None => (
            std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            None,
            None,
            "loopback".to_string(),
        ),
    };
    let cores = ango_harness::affinity::allowed_cpus();
    let client_core = cores.first().copied();
    let server_core = cores.get(1).or(cores.first()).copied();
    let timeout_ms = spec.timeout.as_millis() as u64;
    for &sst in &spec.server_stacks {
        for &cst in &spec.client_stacks {
            let rustls = cst == Stack::Rustls || sst == Stack::Rustls;
            let suites: Vec<CipherSuite> = spec
                .suites
                .iter()
                .filter(|s| {
                    let ok = !rustls || rustls_stack::suite(s.code).is_some();
                    if !ok {
                        note(format!(
                            "skipped {} with a {} client and a {} server: rustls has no CCM suites",
                            s.iana,
                            cst.name(),
                            sst.name()
                        ));
                    }
                    ok
                })
                .copied()
                .collect();
            if suites.is_empty() {
                continue;
            }
            let mut jobs: Vec<Job> = suites
                .iter()
                .map(|s| Job {
                    code: s.code,
                    bytes: spec.bytes.min(WARM_UP),
                    timed: false,
                })
                .collect();
            for _ in 0..spec.repeats {
                jobs.extend(suites.iter().map(|s| Job {
                    code: s.code,
                    bytes: spec.bytes,
                    timed: true,
                }));
            }
            for &shw in &spec.server_hw {
                for &chw in &spec.client_hw {
                    if stop() {
                        return Ok(true);
                    }
                    let mut srv = Endpoint::spawn(
                        &EndpointSpec {
                            role: Role::Server,
                            netns: server_ns.clone(),
                            core: server_core,
                            addr: SocketAddr::new(server_ip, 0),
                            cert_pem: cert_pem.clone(),
                            key_pem: key_pem.clone(),
                            jobs: Vec::new(),
                            timeout_ms,
                            stack: sst.name().into(),
                        },
                        shw,
                    )?;
                    let (port, server_features, server_version) = srv.ready()?;
                    let mut cli = Endpoint::spawn(
                        &EndpointSpec {
                            role: Role::Client,
                            netns: client_ns.clone(),
                            core: client_core,
                            addr: SocketAddr::new(server_ip, port),
                            cert_pem: ca_pem.clone(),
                            key_pem: String::new(),
                            jobs: jobs.clone(),
                            timeout_ms,
                            stack: cst.name().into(),
                        },
                        chw,
                    )?;
                    let (_, client_features, client_version) = cli.ready()?;
                    let mut samples: BTreeMap<u16, Samples> = BTreeMap::new();
                    let mut failure = None;
                    let mut interrupted = false;
                    loop {
                        if stop() {
                            interrupted = true;
                            break;
                        }
                        match cli.next() {
                            Ok(Some(Event::Done {
                                code,
                                timed,
                                negotiated,
                                bytes,
                                wall_ns,
                                client_cpu_ns,
                                client_user_ns,
                                server_cpu_ns,
                                server_user_ns,
                            })) => {
                                let s = samples.entry(code).or_default();
                                s.negotiated = negotiated;
                                if timed {
                                    let b = bytes as f64;
                                    s.rate.push(b / (wall_ns.max(1) as f64 * 1e-9));
                                    s.ccpu.push(client_cpu_ns as f64 / b);
                                    s.cuser.push(client_user_ns as f64 / b);
                                    s.scpu.push(server_cpu_ns as f64 / b);
                                    s.suser.push(server_user_ns as f64 / b);
                                }
                            }
                            Ok(Some(Event::Error { message })) => {
                                failure = Some(message);
                                break;
                            }
                            Ok(Some(Event::Ready { .. })) => {}
                            Ok(None) => break,
                            Err(e) => {
                                failure = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    // An interrupted run (Ctrl-C reaches the endpoints too) ends
                    // its client early: keep what has two or more repeats.
                    let interrupted = interrupted || stop();
                    // A stack that settles on another suite than the one offered
                    // would make the point a lie: it is an error, not a record.
                    let mismatch: Vec<u16> = suites
                        .iter()
                        .filter(|x| samples.get(&x.code).is_some_and(|s| s.negotiated != x.iana))
                        .map(|x| x.code)
                        .collect();
                    for &code in &mismatch {
                        let s = &samples[&code];
                        let iana = suite_by_code(code).map_or("?", |x| x.iana);
                        failure.get_or_insert(format!(
                            "asked for {iana} alone, the connection settled on {}",
                            s.negotiated
                        ));
                        samples.remove(&code);
                    }
                    let complete = |s: &Samples| {
                        if interrupted || failure.is_some() {
                            s.rate.len() >= 2
                        } else {
                            s.rate.len() == spec.repeats as usize
                        }
                    };
                    for suite in &suites {
                        let Some(s) = samples.get(&suite.code).filter(|s| complete(s)) else {
                            continue;
                        };
                        let rate = ango_harness::stats::Summary::of(&s.rate).expect("samples");
                        emit(TlsBulkRecord {
                            head: ango_core::Header::new(SUITE, spec.run_id.clone()),
                            tls_version: suite.version.into(),
                            cipher_suite: suite.iana.into(),
                            cipher_suite_code: format!("0x{:04X}", suite.code),
                            negotiated_suite: s.negotiated.clone(),
                            client_hw: chw.name().into(),
                            server_hw: shw.name().into(),
                            client_cpu_features: client_features.clone(),
                            server_cpu_features: server_features.clone(),
                            bytes: spec.bytes,
                            direction: DIRECTION.into(),
                            repeats: s.rate.len() as u32,
                            bytes_per_second: rate.median,
                            bytes_per_second_q1: rate.q1,
                            bytes_per_second_q3: rate.q3,
                            client_cpu_ns_per_byte: median(&s.ccpu),
                            server_cpu_ns_per_byte: median(&s.scpu),
                            client_user_ns_per_byte: median(&s.cuser),
                            server_user_ns_per_byte: median(&s.suser),
                            client_core,
                            server_core,
                            link: link.clone(),
                            rtt_ms: 2.0 * spec.link.delay.as_secs_f64() * 1e3,
                            client_stack: cst.name().into(),
                            server_stack: sst.name().into(),
                            client_library_version: client_version.clone(),
                            server_library_version: server_version.clone(),
                            time: ango_core::results::utc_now().0,
                        })?;
                    }
                    drop(cli);
                    drop(srv);
                    if interrupted {
                        return Ok(true);
                    }
                    if let Some(m) = failure {
                        return Err(Error::Backend {
                            backend: "tls-bulk",
                            message: format!(
                                "{} client hw {}, {} server hw {}: {m}",
                                cst.name(),
                                chw.name(),
                                sst.name(),
                                shw.name()
                            ),
                        });
                    }
                }
            }
        }
    }
    drop(lab);
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn suite(name: &str) -> &'static CipherSuite {
        records::SUITES.iter().find(|s| s.iana == name).unwrap()
    }

    /// The server keeps serving after garbage, a truncated ClientHello, a
    /// request it refuses and a client that vanishes mid-transfer; then a
    /// real transfer works and its figures add up.
    #[test]
    fn server_survives_bad_peers_and_transfers() {
        let (cert, key, ca) = pems().unwrap();
        let ctx = ServerSide::OpenSsl(server_ctx(&cert, &key).unwrap());
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let timeout = Duration::from_secs(2);
        std::thread::spawn(move || serve(&listener, &ctx, timeout));
        // Garbage.
        let mut t = TcpStream::connect(addr).unwrap();
        t.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        drop(t);
        // A ClientHello record header promising more than is sent.
        let mut t = TcpStream::connect(addr).unwrap();
        t.write_all(&[22, 3, 1, 0x02, 0x00, 1, 0, 1]).unwrap();
        drop(t);
        let gcm = suite("TLS_AES_128_GCM_SHA256");
        let cctx = client_ctx(gcm, &ca).unwrap();
        // A request the server refuses, then a client that vanishes
        // after the handshake and its request.
        for n in [0u64, MAX_BYTES + 1, 1 << 30] {
            let tcp = TcpStream::connect(addr).unwrap();
            let mut ssl = Ssl::new(&cctx).unwrap();
            ssl.set_hostname(HOST).unwrap();
            let mut s = ssl.connect(tcp).unwrap();
            s.write_all(&n.to_le_bytes()).unwrap();
            let mut b = [0u8; 100];
            if n == 1 << 30 {
                s.read_exact(&mut b).unwrap();
            }
            drop(s);
        }
        for name in [
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_CCM",
        ] {
            let c = suite(name);
            let job = Job {
                code: c.code,
                bytes: 1 << 20,
                timed: true,
            };
            let cctx = ClientSide::OpenSsl(client_ctx(c, &ca).unwrap());
            let Event::Done {
                negotiated,
                bytes,
                wall_ns,
                client_cpu_ns,
                server_cpu_ns,
                ..
            } = transfer(&cctx, addr, &job, timeout).unwrap()
            else {
                panic!("not a transfer")
            };
            assert_eq!(negotiated, name);
            assert_eq!(bytes, 1 << 20);
            assert!(wall_ns > 0 && client_cpu_ns > 0 && server_cpu_ns > 0);
        }
    }

    /// A peer that accepts and then says nothing: the client gives up
    /// after its timeout with an error that says so.
    #[test]
    fn a_stalled_transfer_is_a_clear_error() {
        let (_, _, ca) = pems().unwrap();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let hold = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            std::thread::sleep(Duration::from_secs(2));
            drop(s);
        });
        let c = suite("TLS_AES_128_GCM_SHA256");
        let job = Job {
            code: c.code,
            bytes: 1 << 20,
            timed: true,
        };
        let t0 = Instant::now();
        let e = transfer(
            &ClientSide::OpenSsl(client_ctx(c, &ca).unwrap()),
            addr,
            &job,
            Duration::from_millis(300),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("handshake stalled"), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(2));
        hold.join().unwrap();
    }
}
