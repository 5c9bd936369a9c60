//! `ango tls-records` (seed 004): what one application-data record costs on
//! the wire for each TLS 1.2 and TLS 1.3 cipher suite, at several plaintext
//! lengths. Each point is a fresh connection on the loopback interface: the
//! client writes the plaintext in one `SSL_write` (one record), the server
//! reads it and answers one byte. The record is then found in the
//! client-to-server bytes of the captured connection — not computed from
//! the suite's overhead:
//! - TLS 1.2: the client's only application_data record (its Finished is a
//!   handshake record, its close_notify an alert);
//! - TLS 1.3: every record is application_data on the outside, so the
//!   client's records are opened with the key log's traffic secrets and the
//!   one whose inner type is application_data, with the plaintext's length,
//!   is taken.
//!
//! As root the bytes come from a packet capture on `lo` (written as pcap
//! with the key log when a results directory is given); without root, from
//! a TCP relay between the two endpoints that records what each direction
//! carries (the same bytes TCP delivers).

use crate::capture::{self, Capture};
use crate::certs::{self, Issuer, ServerCert};
use crate::handshake::HOST;
use crate::probe::KeyLines;
use crate::tls13;
use ango_core::{Error, PkAlgorithm, Result, TlsRecordsRecord};
use openssl::ssl::{Ssl, SslContext, SslMethod, SslVerifyMode, SslVersion};
use openssl::x509::store::X509StoreBuilder;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::TlsRecords;

/// Plaintext lengths of seed 004's comparison.
pub const SIZES: &[u64] = &[1, 16, 256, 1024, 16384];

/// Directory of the pcap files and key log, inside the results directory.
pub const CAPTURE_DIR: &str = "captures-records";

/// How long one point may take before it is called stalled.
const TIMEOUT: Duration = Duration::from_secs(10);

const APPLICATION_DATA: u8 = 23;

/// A cipher suite: TLS version, IANA name, code point, OpenSSL's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CipherSuite {
    pub version: &'static str,
    pub iana: &'static str,
    pub code: u16,
    pub openssl: &'static str,
}

impl CipherSuite {
    pub fn tls13(&self) -> bool {
        self.version == "1.3"
    }

    /// OpenSSL's security level for the suite when not the library's
    /// default:
    /// TLS_AES_128_CCM_8_SHA256's 64-bit tag is below the default level.
    pub fn security_level(&self) -> Option<u32> {
        (self.code == 0x1305).then_some(0)
    }
}

const fn cs(
    version: &'static str,
    iana: &'static str,
    code: u16,
    openssl: &'static str,
) -> CipherSuite {
    CipherSuite {
        version,
        iana,
        code,
        openssl,
    }
}

/// The suites `ango tls-records` measures: seed 004's TLS 1.2 ECDHE-ECDSA
/// suites and the five of TLS 1.3 (RFC 8446 §B.4).
pub const SUITES: &[CipherSuite] = &[
    cs(
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02B,
        "ECDHE-ECDSA-AES128-GCM-SHA256",
    ),
    cs(
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02C,
        "ECDHE-ECDSA-AES256-GCM-SHA384",
    ),
    cs(
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9,
        "ECDHE-ECDSA-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CCM",
        0xC0AC,
        "ECDHE-ECDSA-AES128-CCM",
    ),
    cs(
        "1.3",
        "TLS_AES_128_GCM_SHA256",
        0x1301,
        "TLS_AES_128_GCM_SHA256",
    ),
    cs(
        "1.3",
        "TLS_AES_256_GCM_SHA384",
        0x1302,
        "TLS_AES_256_GCM_SHA384",
    ),
    cs(
        "1.3",
        "TLS_CHACHA20_POLY1305_SHA256",
        0x1303,
        "TLS_CHACHA20_POLY1305_SHA256",
    ),
    cs(
        "1.3",
        "TLS_AES_128_CCM_SHA256",
        0x1304,
        "TLS_AES_128_CCM_SHA256",
    ),
    cs(
        "1.3",
        "TLS_AES_128_CCM_8_SHA256",
        0x1305,
        "TLS_AES_128_CCM_8_SHA256",
    ),
];

/// Seed 004's table: the seven ChaCha20-Poly1305 suites of TLS 1.2 (RFC
/// 7905, 0xCCA8–0xCCAE).
pub const CHACHA_SUITES: &[CipherSuite] = &[
    cs(
        "1.2",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA8,
        "ECDHE-RSA-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9,
        "ECDHE-ECDSA-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAA,
        "DHE-RSA-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_PSK_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAB,
        "PSK-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAC,
        "ECDHE-PSK-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAD,
        "DHE-PSK-CHACHA20-POLY1305",
    ),
    cs(
        "1.2",
        "TLS_RSA_PSK_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAE,
        "RSA-PSK-CHACHA20-POLY1305",
    ),
];

/// What seed 004 §1.5 lists for each of [`CHACHA_SUITES`] (O: OpenSSL
/// 1.1.0, F: Firefox, C: Chrome, in 2016).
pub const CHACHA_SEED: [&str; 7] = ["O, F, C", "O, F, C", "O, F", "O", "O", "O", "O"];

/// Seed 004's table as this build offers it.
pub fn chacha_offers() -> Vec<ango_core::SuiteOffer> {
    CHACHA_SUITES
        .iter()
        .zip(CHACHA_SEED)
        .map(|(s, seed)| ango_core::SuiteOffer {
            code: format!("0x{:04X}", s.code),
            iana: s.iana.into(),
            seed: seed.into(),
            offered_by: [
                ("openssl", openssl_offers(s)),
                ("rustls", crate::rustls_stack::suite(s.code).is_some()),
            ]
            .iter()
            .filter(|(_, yes)| *yes)
            .map(|(n, _)| n.to_string())
            .collect(),
        })
        .collect()
}

/// The IANA name of a code point among the suites above, else its hex.
pub fn iana_name(code: u16) -> String {
    SUITES
        .iter()
        .chain(CHACHA_SUITES)
        .find(|s| s.code == code)
        .map_or_else(|| format!("0x{code:04X}"), |s| s.iana.to_string())
}

/// Whether this OpenSSL build offers a TLS 1.2 suite (its cipher string
/// selects something at security level 0).
pub fn openssl_offers(s: &CipherSuite) -> bool {
    let Ok(mut b) = SslContext::builder(SslMethod::tls()) else {
        return false;
    };
    b.set_security_level(0);
    b.set_cipher_list(s.openssl).is_ok()
}

/// The suites named by `list` (IANA names, case-insensitive, or `all`);
/// an unknown name is a usage error naming the valid ones.
pub fn select(list: Option<&str>) -> Result<Vec<CipherSuite>> {
    let Some(list) = list else {
        return Ok(SUITES.to_vec());
    };
    let names = ango_core::algo::list_items(list, "--suite", "all, or IANA suite names")?;
    if names.iter().any(|n| n.eq_ignore_ascii_case("all")) {
        return Ok(SUITES.to_vec());
    }
    let mut out: Vec<CipherSuite> = Vec::new();
    for n in names {
        let Some(s) = SUITES.iter().find(|s| s.iana.eq_ignore_ascii_case(n)) else {
            return Err(Error::usage(format!(
                "unknown --suite '{n}'; valid: all, {}",
                SUITES.iter().map(|s| s.iana).collect::<Vec<_>>().join(", ")
            )));
        };
        if !out.contains(s) {
            out.push(*s);
        }
    }
    Ok(out)
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "openssl",
        message: e.to_string(),
    }
}

/// Restricts a context to `s` alone, in its TLS version alone, at the
/// security level the suite needs.
pub(crate) fn only(b: &mut openssl::ssl::SslContextBuilder, s: &CipherSuite) -> Result<()> {
    let v = if s.tls13() {
        SslVersion::TLS1_3
    } else {
        SslVersion::TLS1_2
    };
    b.set_min_proto_version(Some(v)).map_err(err)?;
    b.set_max_proto_version(Some(v)).map_err(err)?;
    if let Some(l) = s.security_level() {
        b.set_security_level(l);
    }
    if s.tls13() {
        b.set_ciphersuites(s.openssl).map_err(err)?;
    } else {
        b.set_cipher_list(s.openssl).map_err(err)?;
    }
    Ok(())
}

/// Server and client contexts for one suite: only that version and that
/// suite on both sides, the P-256 certificate, the client trusting only
/// the CA and verifying the chain and host name, its secrets to `keys`.
fn contexts(
    s: &CipherSuite,
    server: &ServerCert,
    ca: &Issuer,
    keys: &KeyLines,
) -> Result<(SslContext, SslContext)> {
    let mut sb = SslContext::builder(SslMethod::tls_server()).map_err(err)?;
    let mut cb = SslContext::builder(SslMethod::tls_client()).map_err(err)?;
    only(&mut sb, s)?;
    only(&mut cb, s)?;
    sb.set_certificate(&server.cert).map_err(err)?;
    sb.set_private_key(&server.key).map_err(err)?;
    sb.check_private_key().map_err(err)?;
    let mut store = X509StoreBuilder::new().map_err(err)?;
    store.add_cert(ca.cert.clone()).map_err(err)?;
    cb.set_cert_store(store.build());
    cb.set_verify(SslVerifyMode::PEER);
    keys.install(&mut cb);
    Ok((sb.build(), cb.build()))
}

/// The bytes a relay saw, per direction.
#[derive(Clone, Default)]
struct Seen {
    c2s: Arc<Mutex<Vec<u8>>>,
    s2c: Arc<Mutex<Vec<u8>>>,
}

/// A one-connection TCP relay on 127.0.0.1 in front of `server`, recording
/// what each direction carries. Returns its address and the recordings.
fn start_relay(server: SocketAddr) -> Result<(SocketAddr, Seen, std::thread::JoinHandle<()>)> {
    let front = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| Error::io("relay", e))?;
    let addr = front.local_addr().map_err(|e| Error::io("relay", e))?;
    let seen = Seen::default();
    let s = seen.clone();
    let h = std::thread::spawn(move || {
        let Ok((client, _)) = front.accept() else {
            return;
        };
        let Ok(upstream) = TcpStream::connect(server) else {
            return;
        };
        let pump = |mut from: TcpStream, mut to: TcpStream, log: Arc<Mutex<Vec<u8>>>| {
            std::thread::spawn(move || {
                let _ = from.set_read_timeout(Some(TIMEOUT));
                let mut buf = [0u8; 65536];
                while let Ok(n) = from.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    log.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .extend_from_slice(&buf[..n]);
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to.shutdown(std::net::Shutdown::Write);
            })
        };
        let (Ok(c2), Ok(u2)) = (client.try_clone(), upstream.try_clone()) else {
            return;
        };
        let a = pump(client, u2, s.c2s);
        let b = pump(upstream, c2, s.s2c);
        let _ = a.join();
        let _ = b.join();
    });
    Ok((addr, seen, h))
}

/// One exchange: the server accepts one connection, reads `n` bytes and
/// answers one; the client connects to `to`, writes `n` bytes in one call,
/// reads the answer and closes. Returns the client's local port.
fn exchange(
    sctx: &SslContext,
    cctx: &SslContext,
    listener: TcpListener,
    to: SocketAddr,
    n: usize,
) -> Result<u16> {
    let sctx = sctx.clone();
    let server = std::thread::spawn(move || -> std::result::Result<(), String> {
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let deadline = Instant::now() + TIMEOUT;
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err("no connection came within 10 s".into());
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(e.to_string()),
            }
        };
        stream.set_nonblocking(false).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(TIMEOUT))
            .map_err(|e| e.to_string())?;
        let ssl = Ssl::new(&sctx).map_err(|e| e.to_string())?;
        let mut tls = ssl.accept(stream).map_err(|e| e.to_string())?;
        let mut got = vec![0u8; n];
        tls.read_exact(&mut got).map_err(|e| e.to_string())?;
        tls.write_all(b"k").map_err(|e| e.to_string())?;
        // Until the client's close_notify (or its close).
        let mut rest = [0u8; 64];
        while matches!(tls.read(&mut rest), Ok(k) if k > 0) {}
        let _ = tls.shutdown();
        Ok(())
    });
    let client = || -> Result<u16> {
        let stream =
            TcpStream::connect_timeout(&to, TIMEOUT).map_err(|e| Error::io("connect", e))?;
        let port = stream
            .local_addr()
            .map_err(|e| Error::io("connect", e))?
            .port();
        stream
            .set_read_timeout(Some(TIMEOUT))
            .map_err(|e| Error::io("connect", e))?;
        let mut ssl = Ssl::new(cctx).map_err(err)?;
        ssl.set_hostname(HOST).map_err(err)?;
        ssl.param_mut().set_host(HOST).map_err(err)?;
        let mut tls = ssl.connect(stream).map_err(err)?;
        let payload: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        tls.write_all(&payload).map_err(err)?;
        let mut k = [0u8; 1];
        tls.read_exact(&mut k).map_err(err)?;
        let _ = tls.shutdown();
        Ok(port)
    };
    let port = client();
    let served = server
        .join()
        .map_err(|_| err("the server thread panicked"))?;
    let port = port?;
    served.map_err(|e| err(format!("server: {e}")))?;
    Ok(port)
}

/// Every whole record of a stream: (outer content type, total bytes).
pub fn records_of(stream: &[u8]) -> Vec<(u8, usize)> {
    let mut v = Vec::new();
    let mut at = 0;
    while let Some(h) = stream.get(at..at + 5) {
        let len = 5 + usize::from(u16::from_be_bytes([h[3], h[4]]));
        if at + len > stream.len() {
            break;
        }
        v.push((h[0], len));
        at += len;
    }
    v
}

/// The cipher suite of the first ServerHello of a server-to-client stream.
pub fn server_hello_suite(s2c: &[u8]) -> Option<u16> {
    // Record header (5), handshake header (4), version (2), random (32).
    let h = s2c.get(..5)?;
    if h[0] != 22 {
        return None;
    }
    let body = s2c.get(5..)?;
    if *body.first()? != 2 {
        return None;
    }
    let sid = usize::from(*body.get(4 + 2 + 32)?);
    let at = 4 + 2 + 32 + 1 + sid;
    Some(u16::from_be_bytes([*body.get(at)?, *body.get(at + 1)?]))
}

/// The wire bytes of the client's record carrying the `n` bytes, and how
/// it was told apart.
fn find_record(
    s: &CipherSuite,
    c2s: &[u8],
    s2c: &[u8],
    keylog: &[String],
    n: usize,
) -> std::result::Result<(u64, &'static str), String> {
    if !s.tls13() {
        let app: Vec<usize> = records_of(c2s)
            .into_iter()
            .filter(|r| r.0 == APPLICATION_DATA)
            .map(|r| r.1)
            .collect();
        return match app[..] {
            [len] => Ok((len as u64, "outer-type")),
            _ => Err(format!(
                "expected one application_data record from the client, found {}",
                app.len()
            )),
        };
    }
    let keys = tls13::KeyLog::parse(&keylog.join("\n"));
    let d = tls13::dissect(c2s, s2c, &keys);
    let app: Vec<&tls13::Record> = d
        .c2s_records
        .iter()
        .filter(|r| r.inner_type == Some(APPLICATION_DATA))
        .collect();
    match app[..] {
        [r] if r.content_len == Some(n as u32) => Ok((u64::from(r.len), "decrypted")),
        [r] => Err(format!(
            "the client's application record holds {:?} bytes, not {n}",
            r.content_len
        )),
        _ => Err(format!(
            "expected one application_data record from the client, found {}{}",
            app.len(),
            if d.problems.is_empty() {
                String::new()
            } else {
                format!(" ({})", d.problems.join("; "))
            }
        )),
    }
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct RecordsSpec {
    pub run_id: String,
    pub suites: Vec<CipherSuite>,
    pub sizes: Vec<u64>,
    /// Where the pcap files and the key log go (root only).
    pub capture_dir: Option<std::path::PathBuf>,
}

/// Measure every (suite, size); `emit` gets each record as it is made.
/// A point that fails is an error naming the suite and size.
pub fn run(
    spec: &RecordsSpec,
    stop: &dyn Fn() -> bool,
    emit: &mut dyn FnMut(TlsRecordsRecord) -> Result<()>,
) -> Result<bool> {
    let ca = certs::new_ca(PkAlgorithm::P256)?;
    let server_cert = certs::issue_server(&ca, PkAlgorithm::P256, HOST)?;
    let root = crate::lab::is_root();
    let cap = if root {
        Some(Capture::start("lo").map_err(|e| Error::io("packet capture on lo", e))?)
    } else {
        None
    };
    if let Some(d) = &spec.capture_dir {
        if root {
            std::fs::create_dir_all(d).map_err(|e| Error::io("capture directory", e))?;
        }
    }
    let version = openssl::version::version().to_string();
    let mut all_keys: Vec<String> = Vec::new();
    for s in &spec.suites {
        let keys = KeyLines::default();
        let (sctx, cctx) = contexts(s, &server_cert, &ca, &keys)?;
        for &n in &spec.sizes {
            if stop() {
                return Ok(true);
            }
            let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .map_err(|e| Error::io("server socket", e))?;
            let server_addr = listener
                .local_addr()
                .map_err(|e| Error::io("server socket", e))?;
            let what = format!("{} with {n} bytes", s.iana);
            let (c2s, s2c, pcap) = if let Some(cap) = &cap {
                let _ = cap.take();
                let port = exchange(&sctx, &cctx, listener, server_addr, n as usize)
                    .map_err(|e| Error::usage(format!("tls-records: {what}: {e}")))?;
                std::thread::sleep(Duration::from_millis(20));
                let batch = cap.take().map_err(|e| Error::io("packet capture", e))?;
                let SocketAddr::V4(sv4) = server_addr else {
                    return Err(Error::usage("the loopback server is not IPv4"));
                };
                let conns = capture::connections(&[batch.packets.as_slice()], sv4);
                let conn = conns
                    .into_iter()
                    .find(|c| c.client.port() == port)
                    .ok_or_else(|| {
                        Error::usage(format!(
                            "tls-records: {what}: the connection is not in the capture"
                        ))
                    })?;
                let pcap = match &spec.capture_dir {
                    Some(d) => {
                        let name = format!("{}_{n}.pcap", s.iana);
                        let ports: HashSet<u16> = [port, sv4.port()].into_iter().collect();
                        crate::run::write_pcap_of(&d.join(&name), &batch.packets, &ports)?;
                        Some(format!("{}/{name}", Path::new(CAPTURE_DIR).display()))
                    }
                    None => None,
                };
                (conn.c2s, conn.s2c, pcap)
            } else {
                let (front, seen, relay) = start_relay(server_addr)?;
                exchange(&sctx, &cctx, listener, front, n as usize)
                    .map_err(|e| Error::usage(format!("tls-records: {what}: {e}")))?;
                let _ = relay.join();
                let c2s = seen
                    .c2s
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                let s2c = seen
                    .s2c
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                (c2s, s2c, None)
            };
            let lines = keys.take();
            let (wire, how) = find_record(s, &c2s, &s2c, &lines, n as usize)
                .map_err(|e| Error::usage(format!("tls-records: {what}: {e}")))?;
            all_keys.extend(lines);
            let negotiated = server_hello_suite(&s2c).map_or_else(|| "unknown".into(), iana_name);
            let overhead = wire.saturating_sub(n);
            emit(TlsRecordsRecord {
                head: ango_core::Header::new(SUITE, spec.run_id.clone()),
                tls_version: s.version.into(),
                cipher_suite: s.iana.into(),
                cipher_suite_code: format!("0x{:04X}", s.code),
                negotiated_suite: negotiated,
                plaintext_bytes: n,
                wire_bytes: wire,
                overhead_bytes: overhead,
                overhead_percent: 100.0 * overhead as f64 / n as f64,
                client_stack: "openssl".into(),
                server_stack: "openssl".into(),
                client_library_version: version.clone(),
                server_library_version: version.clone(),
                capture: if cap.is_some() { "af-packet" } else { "relay" }.into(),
                identified_by: how.into(),
                security_level: sctx.security_level(),
                pcap,
                time: ango_core::results::utc_now().0,
            })?;
        }
    }
    if let (Some(d), true) = (&spec.capture_dir, root) {
        let mut text = all_keys.join("\n");
        text.push('\n');
        std::fs::write(d.join("keylog.txt"), text).map_err(|e| Error::io("key log", e))?;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_walk_and_server_hello() {
        let stream = [
            &[22u8, 3, 3, 0, 2, 1, 2][..],
            &[23, 3, 3, 0, 3, 9, 9, 9][..],
            &[21, 3, 3, 0, 9][..], // cut short
        ]
        .concat();
        assert_eq!(records_of(&stream), vec![(22, 7), (23, 8)]);
        let mut hello = vec![22u8, 3, 3, 0, 0, 2, 0, 0, 0, 3, 3];
        hello.extend([7u8; 32]);
        hello.extend([2u8, 0xaa, 0xbb, 0xcc, 0xa9]);
        assert_eq!(server_hello_suite(&hello), Some(0xCCA9));
        assert_eq!(
            iana_name(0xCCA9),
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
        );
        assert!(select(Some("tls_rot13")).is_err());
        assert_eq!(select(None).unwrap().len(), 9);
    }
}
