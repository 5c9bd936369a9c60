//! `ango tls-policy` (seed 004 §6): what a server's cipher-suite policy
//! makes each kind of client negotiate, and what that costs the client.
//!
//! Clients: one with AES instructions that offers AES-GCM first (Chrome
//! with AES-NI and AVX in the seed), one without that offers
//! ChaCha20-Poly1305 first, and OpenSSL's default client (which does not
//! look at the hardware). Servers: the client's order, the server's order
//! with AES-GCM first, with ChaCha20-Poly1305 first, and AES-GCM first with
//! `SSL_OP_PRIORITIZE_CHACHA` (OpenSSL 1.1.1's answer to the seed's wish:
//! ChaCha20-Poly1305 goes to the top of the server's order when it tops
//! the client's). Each cell is one real handshake on 127.0.0.1; the
//! client's offer is read from its ClientHello by the server. The cost of
//! the negotiated suite comes from a bulk measurement (`tls --bulk`) with
//! the client's hardware setting (`off` for the client without AES
//! instructions), made in the same run unless taken from another.
//!
//! BoringSSL's equal-preference groups (`[A|B]`, which AWS-LC's libssl
//! keeps) are not a server here: aws-lc-sys builds libssl only through its
//! CMake builder with bindgen. [`equal_preference`] applies their rule to
//! each client's measured offer so the report can show which measured
//! policy gives the same outcome.

use crate::certs::{self, Issuer, ServerCert};
use crate::handshake::HOST;
use crate::records::{self, CipherSuite};
use crate::rustls_stack::Stack;
use ango_core::{Error, Hw, PkAlgorithm, Result, TlsBulkRecord, TlsPolicyRecord};
use openssl::ssl::{
    ClientHelloResponse, Ssl, SslContext, SslMethod, SslOptions, SslVerifyMode, SslVersion,
};
use openssl::x509::store::X509StoreBuilder;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::TlsPolicy;

/// The three AEADs in play, by their place in an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aead {
    Aes128Gcm,
    Aes256Gcm,
    Chacha20Poly1305,
}

use Aead::{Aes128Gcm, Aes256Gcm, Chacha20Poly1305};

const AES_FIRST: &[Aead] = &[Aes128Gcm, Aes256Gcm, Chacha20Poly1305];
const CHACHA_FIRST: &[Aead] = &[Chacha20Poly1305, Aes128Gcm, Aes256Gcm];

/// The suite of an AEAD in a TLS version (ECDHE-ECDSA in TLS 1.2).
pub fn suite_of(version: &str, a: Aead) -> &'static CipherSuite {
    let iana = match (version, a) {
        ("1.2", Aes128Gcm) => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        ("1.2", Aes256Gcm) => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        ("1.2", Chacha20Poly1305) => "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        (_, Aes128Gcm) => "TLS_AES_128_GCM_SHA256",
        (_, Aes256Gcm) => "TLS_AES_256_GCM_SHA384",
        (_, Chacha20Poly1305) => "TLS_CHACHA20_POLY1305_SHA256",
    };
    records::SUITES
        .iter()
        .find(|s| s.iana == iana)
        .expect("the AEAD suites are in records::SUITES")
}

/// A kind of client.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub describe: &'static str,
    /// The hardware setting it stands for (its cost is measured so).
    pub hw: Hw,
    /// Its order; `None`: the library's default list.
    pub order: Option<&'static [Aead]>,
}

pub const PROFILES: &[Profile] = &[
    Profile {
        name: "aes-first",
        describe: "a client with AES instructions offering AES-GCM first (Chrome with AES-NI and AVX)",
        hw: Hw::On,
        order: Some(AES_FIRST),
    },
    Profile {
        name: "chacha-first",
        describe: "a client without AES instructions offering ChaCha20-Poly1305 first (Chrome on ARM); its costs are measured with hw off",
        hw: Hw::Off,
        order: Some(CHACHA_FIRST),
    },
    Profile {
        name: "openssl-default",
        describe: "OpenSSL's default client list, which is the same on every CPU",
        hw: Hw::On,
        order: None,
    },
];

/// A server policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub name: &'static str,
    pub describe: &'static str,
    pub order: &'static [Aead],
    /// `SSL_OP_CIPHER_SERVER_PREFERENCE`.
    pub server_preference: bool,
    /// `SSL_OP_PRIORITIZE_CHACHA`.
    pub prioritize_chacha: bool,
    /// The server's TLS stack (`rustls`: its own default configuration;
    /// `order` and the options are then not used).
    pub stack: Stack,
}

pub const POLICIES: &[Policy] = &[
    Policy {
        name: "client-order",
        describe: "the client's order decides (OpenSSL's default)",
        order: AES_FIRST,
        server_preference: false,
        prioritize_chacha: false,
        stack: Stack::OpenSsl,
    },
    Policy {
        name: "server-aes-first",
        describe: "the server's order decides, AES-GCM first (ssl_prefer_server_ciphers on)",
        order: AES_FIRST,
        server_preference: true,
        prioritize_chacha: false,
        stack: Stack::OpenSsl,
    },
    Policy {
        name: "server-chacha-first",
        describe: "the server's order decides, ChaCha20-Poly1305 first",
        order: CHACHA_FIRST,
        server_preference: true,
        prioritize_chacha: false,
        stack: Stack::OpenSsl,
    },
    Policy {
        name: "server-aes-first+prioritize-chacha",
        describe: "the server's order, AES-GCM first, with SSL_OP_PRIORITIZE_CHACHA: ChaCha20-Poly1305 moves to the top when the client lists it first",
        order: AES_FIRST,
        server_preference: true,
        prioritize_chacha: true,
        stack: Stack::OpenSsl,
    },
    Policy {
        name: "rustls",
        describe: "a rustls server as configured by default: its provider's order (AES-256-GCM, AES-128-GCM, ChaCha20-Poly1305), the client's order deciding (ignore_client_order false)",
        order: &[Aes256Gcm, Aes128Gcm, Chacha20Poly1305],
        server_preference: false,
        prioritize_chacha: false,
        stack: Stack::Rustls,
    },
];

/// A suite's IANA name by code point: the lab's names, else rustls' (its
/// TLS 1.3 names without the `13`), else the hex code.
fn name_of(code: u16) -> String {
    let n = records::iana_name(code);
    if !n.starts_with("0x") {
        return n;
    }
    match rustls::CipherSuite::from(code) {
        rustls::CipherSuite::Unknown(_) => n,
        c => format!("{c:?}").replacen("TLS13_", "TLS_", 1),
    }
}

/// A rustls server's own configuration for the policy matrix: its default
/// provider, `version` only, the P-256 certificate.
fn rustls_server(server: &ServerCert, version: &str) -> Result<Arc<rustls::ServerConfig>> {
    Ok(Arc::new(crate::rustls_stack::server_config_with(
        rustls::crypto::aws_lc_rs::default_provider(),
        &[crate::rustls_stack::version(version == "1.3")],
        server.cert.to_der().map_err(err)?,
        server.key.private_key_to_pkcs8().map_err(err)?,
    )?))
}

/// rustls' default server order in `version`, IANA names.
fn rustls_order(version: &str) -> Vec<String> {
    rustls::crypto::aws_lc_rs::DEFAULT_CIPHER_SUITES
        .iter()
        .filter(|c| (version == "1.3") == matches!(c, rustls::SupportedCipherSuite::Tls13(_)))
        .map(|c| name_of(u16::from(c.suite())))
        .collect()
}

pub use ango_core::tls_records::equal_preference;

#[derive(Clone, Debug)]
pub struct PolicySpec {
    pub run_id: String,
    pub versions: Vec<&'static str>,
    pub profiles: Vec<Profile>,
    pub policies: Vec<Policy>,
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "openssl",
        message: e.to_string(),
    }
}

fn version_of(v: &str) -> SslVersion {
    if v == "1.3" {
        SslVersion::TLS1_3
    } else {
        SslVersion::TLS1_2
    }
}

fn names(version: &str, order: &[Aead]) -> Vec<&'static CipherSuite> {
    order.iter().map(|&a| suite_of(version, a)).collect()
}

fn openssl_list(suites: &[&CipherSuite]) -> String {
    suites
        .iter()
        .map(|s| s.openssl)
        .collect::<Vec<_>>()
        .join(":")
}

/// One handshake of `profile` against `policy` in `version`: the client's
/// offer as the server read it from the ClientHello, and the suite agreed.
fn negotiate(
    profile: &Profile,
    policy: &Policy,
    version: &str,
    server: &ServerCert,
    ca: &Issuer,
) -> Result<(Vec<String>, String)> {
    let v = version_of(version);
    let mut sb = SslContext::builder(SslMethod::tls_server()).map_err(err)?;
    sb.set_min_proto_version(Some(v)).map_err(err)?;
    sb.set_max_proto_version(Some(v)).map_err(err)?;
    let order = openssl_list(&names(version, policy.order));
    if version == "1.3" {
        sb.set_ciphersuites(&order).map_err(err)?;
    } else {
        sb.set_cipher_list(&order).map_err(err)?;
    }
    let mut opts = SslOptions::empty();
    if policy.server_preference {
        opts |= SslOptions::CIPHER_SERVER_PREFERENCE;
    }
    if policy.prioritize_chacha {
        opts |= SslOptions::PRIORITIZE_CHACHA;
    }
    sb.set_options(opts);
    sb.set_certificate(&server.cert).map_err(err)?;
    sb.set_private_key(&server.key).map_err(err)?;
    let offer: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = offer.clone();
    sb.set_client_hello_callback(move |ssl, _alert| {
        if let Some(raw) = ssl.client_hello_ciphers() {
            let raw = raw.to_vec();
            let named: Vec<String> = match ssl.bytes_to_cipher_list(&raw, false) {
                Ok(l) => l
                    .suites
                    .iter()
                    .map(|c| c.standard_name().unwrap_or(c.name()).to_string())
                    .collect(),
                Err(_) => raw
                    .chunks(2)
                    .filter(|c| c.len() == 2)
                    .map(|c| records::iana_name(u16::from_be_bytes([c[0], c[1]])))
                    .collect(),
            };
            *seen.lock().unwrap_or_else(PoisonError::into_inner) = named;
        }
        Ok(ClientHelloResponse::SUCCESS)
    });
    let sctx = sb.build();
    let mut cb = SslContext::builder(SslMethod::tls_client()).map_err(err)?;
    cb.set_min_proto_version(Some(v)).map_err(err)?;
    cb.set_max_proto_version(Some(v)).map_err(err)?;
    if let Some(o) = profile.order {
        let list = openssl_list(&names(version, o));
        if version == "1.3" {
            cb.set_ciphersuites(&list).map_err(err)?;
        } else {
            cb.set_cipher_list(&list).map_err(err)?;
        }
    }
    let mut store = X509StoreBuilder::new().map_err(err)?;
    store.add_cert(ca.cert.clone()).map_err(err)?;
    cb.set_cert_store(store.build());
    cb.set_verify(SslVerifyMode::PEER);
    let cctx = cb.build();
    let listener =
        TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| Error::io("server socket", e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("server socket", e))?;
    let timeout = Duration::from_secs(10);
    let rcfg = match policy.stack {
        Stack::Rustls => Some(rustls_server(server, version)?),
        Stack::OpenSsl => None,
    };
    let seen = offer.clone();
    let srv = std::thread::spawn(move || -> std::result::Result<(), String> {
        let (mut tcp, _) = listener.accept().map_err(|e| e.to_string())?;
        tcp.set_read_timeout(Some(timeout))
            .map_err(|e| e.to_string())?;
        let Some(cfg) = rcfg else {
            let ssl = Ssl::new(&sctx).map_err(|e| e.to_string())?;
            let mut s = ssl.accept(tcp).map_err(|e| e.to_string())?;
            let _ = s.shutdown();
            return Ok(());
        };
        // rustls: read the ClientHello first (its offer), then hand the
        // connection the configuration.
        let mut acceptor = rustls::server::Acceptor::default();
        let accepted = loop {
            acceptor.read_tls(&mut tcp).map_err(|e| e.to_string())?;
            if let Some(a) = acceptor.accept().map_err(|(e, _)| e.to_string())? {
                break a;
            }
        };
        *seen.lock().unwrap_or_else(PoisonError::into_inner) = accepted
            .client_hello()
            .cipher_suites()
            .iter()
            .map(|c| name_of(u16::from(*c)))
            .collect();
        let conn = accepted
            .into_connection(cfg)
            .map_err(|(e, _)| e.to_string())?;
        let mut s = rustls::StreamOwned::new(conn, crate::rustls_stack::Sock(tcp));
        while s.conn.is_handshaking() {
            s.conn.complete_io(&mut s.sock).map_err(|e| e.to_string())?;
        }
        s.conn.send_close_notify();
        let _ = s.conn.complete_io(&mut s.sock);
        Ok(())
    });
    let tcp = TcpStream::connect(addr).map_err(|e| Error::io("client socket", e))?;
    tcp.set_read_timeout(Some(timeout))
        .map_err(|e| Error::io("client socket", e))?;
    let mut ssl = Ssl::new(&cctx).map_err(err)?;
    ssl.set_hostname(HOST).map_err(err)?;
    ssl.param_mut().set_host(HOST).map_err(err)?;
    let agreed = ssl.connect(tcp).map(|s| {
        s.ssl()
            .current_cipher()
            .and_then(|c| c.standard_name())
            .unwrap_or("unknown")
            .to_string()
    });
    let server_side = srv.join().unwrap_or_else(|_| Err("panicked".into()));
    let what = format!(
        "{} client vs {} server, TLS {version}",
        profile.name, policy.name
    );
    let agreed = agreed.map_err(|e| err(format!("{what}: the handshake failed: {e}")))?;
    server_side.map_err(|e| err(format!("{what}: the server's side failed: {e}")))?;
    let offer = offer.lock().unwrap_or_else(PoisonError::into_inner).clone();
    Ok((offer, agreed))
}

/// The suites whose cost the matrix needs: every AEAD suite of `versions`.
pub fn cost_suites(versions: &[&str]) -> Vec<CipherSuite> {
    versions
        .iter()
        .flat_map(|v| names(v, AES_FIRST))
        .copied()
        .collect()
}

/// Every cell of the matrix, without costs (see [`with_costs`]).
pub fn run(spec: &PolicySpec, stop: &dyn Fn() -> bool) -> Result<(Vec<TlsPolicyRecord>, bool)> {
    let ca = certs::new_ca(PkAlgorithm::P256)?;
    let server = certs::issue_server(&ca, PkAlgorithm::P256, HOST)?;
    let version = openssl::version::version().to_string();
    let mut out = Vec::new();
    for &v in &spec.versions {
        for profile in &spec.profiles {
            for policy in &spec.policies {
                if stop() {
                    return Ok((out, true));
                }
                let (offer, agreed) = negotiate(profile, policy, v, &server, &ca)?;
                let mut options = Vec::new();
                if policy.stack == Stack::Rustls {
                    options.push("rustls-default".to_string());
                }
                if policy.server_preference {
                    options.push("cipher-server-preference".to_string());
                }
                if policy.prioritize_chacha {
                    options.push("prioritize-chacha".to_string());
                }
                out.push(TlsPolicyRecord {
                    head: ango_core::Header::new(SUITE, spec.run_id.clone()),
                    client_profile: profile.name.into(),
                    client_offer: offer,
                    server_policy: policy.name.into(),
                    server_order: match policy.stack {
                        Stack::Rustls => rustls_order(v),
                        Stack::OpenSsl => names(v, policy.order)
                            .iter()
                            .map(|s| s.iana.to_string())
                            .collect(),
                    },
                    server_options: options,
                    tls_version: v.into(),
                    negotiated_suite: agreed,
                    client_hw: profile.hw.name().into(),
                    client_cost_ns_per_byte: None,
                    best_suite: None,
                    best_cost_ns_per_byte: None,
                    cost_source: String::new(),
                    client_stack: "openssl".into(),
                    server_stack: policy.stack.name().into(),
                    client_library_version: version.clone(),
                    server_library_version: policy.stack.library_version(),
                    time: ango_core::results::utc_now().0,
                });
            }
        }
    }
    Ok((out, false))
}

/// Fills each cell's cost from bulk records (the client's CPU per byte of
/// the negotiated suite under the profile's hardware setting, server hw
/// on where measured) and the cheapest suite both sides offered.
pub fn with_costs(rs: &mut [TlsPolicyRecord], bulk: &[TlsBulkRecord], source: &str) {
    let cost = |suite: &str, hw: &str| {
        bulk.iter()
            .filter(|b| b.cipher_suite == suite && b.client_hw == hw)
            .min_by_key(|b| u8::from(b.server_hw != "on"))
            .map(|b| b.client_cpu_ns_per_byte)
    };
    for r in rs {
        r.cost_source = source.to_string();
        r.client_cost_ns_per_byte = cost(&r.negotiated_suite, &r.client_hw);
        let best = r
            .client_offer
            .iter()
            .filter(|o| r.server_order.contains(o))
            .filter_map(|o| cost(o, &r.client_hw).map(|c| (o.clone(), c)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        r.best_suite = best.as_ref().map(|b| b.0.clone());
        r.best_cost_ns_per_byte = best.map(|b| b.1);
    }
}

/// Parse `--client`, `--server`: names or all.
pub fn select<T: Copy>(
    flag: &str,
    list: Option<&str>,
    all: &[T],
    name: impl Fn(&T) -> &'static str,
) -> Result<Vec<T>> {
    let valid = || {
        std::iter::once("all")
            .chain(all.iter().map(&name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(list) = list else {
        return Ok(all.to_vec());
    };
    let items = ango_core::algo::list_items(list, flag, &valid())?;
    if items.iter().any(|i| i.eq_ignore_ascii_case("all")) {
        return Ok(all.to_vec());
    }
    let mut out: Vec<T> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for i in items {
        let Some(x) = all.iter().find(|x| name(x).eq_ignore_ascii_case(i)) else {
            return Err(Error::usage(format!(
                "unknown {flag} '{i}'; valid: {}",
                valid()
            )));
        };
        if !seen.contains(&name(x)) {
            seen.push(name(x));
            out.push(*x);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_preference_rule() {
        let offer = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // The group decides by the client's order.
        let cc = offer(&[
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
        ]);
        assert_eq!(
            equal_preference("1.3", &cc),
            Some("TLS_CHACHA20_POLY1305_SHA256")
        );
        // AES-256-GCM first in the client's list is not in the group: the
        // group's member the client ranks higher wins.
        let d = offer(&[
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_GCM_SHA256",
        ]);
        assert_eq!(
            equal_preference("1.3", &d),
            Some("TLS_CHACHA20_POLY1305_SHA256")
        );
        assert_eq!(
            equal_preference("1.3", &offer(&["TLS_AES_256_GCM_SHA384"])),
            Some("TLS_AES_256_GCM_SHA384")
        );
        assert_eq!(equal_preference("1.2", &offer(&["x"])), None);
    }

    /// Every policy against every client, in both versions: the outcomes
    /// OpenSSL documents.
    #[test]
    fn the_matrix_follows_openssl_rules() {
        let spec = PolicySpec {
            run_id: "t".into(),
            versions: vec!["1.2", "1.3"],
            profiles: PROFILES.to_vec(),
            policies: POLICIES.to_vec(),
        };
        let (rs, stopped) = run(&spec, &|| false).unwrap();
        assert!(!stopped);
        assert_eq!(rs.len(), 2 * 3 * 5);
        let get = |v: &str, c: &str, p: &str| {
            let r = rs
                .iter()
                .find(|r| r.tls_version == v && r.client_profile == c && r.server_policy == p)
                .unwrap();
            r.negotiated_suite.clone()
        };
        for v in ["1.2", "1.3"] {
            let a128 = suite_of(v, Aes128Gcm).iana;
            let cc = suite_of(v, Chacha20Poly1305).iana;
            assert_eq!(get(v, "aes-first", "client-order"), a128);
            assert_eq!(get(v, "chacha-first", "client-order"), cc);
            assert_eq!(get(v, "chacha-first", "server-aes-first"), a128);
            assert_eq!(get(v, "aes-first", "server-chacha-first"), cc);
            assert_eq!(
                get(v, "chacha-first", "server-aes-first+prioritize-chacha"),
                cc
            );
            assert_eq!(
                get(v, "aes-first", "server-aes-first+prioritize-chacha"),
                a128
            );
            // rustls follows the client's order by default.
            assert_eq!(get(v, "aes-first", "rustls"), a128);
            assert_eq!(get(v, "chacha-first", "rustls"), cc);
        }
        let r = rs.iter().find(|r| r.server_policy == "rustls").unwrap();
        assert_eq!(r.server_stack, "rustls");
        assert!(r.server_library_version.starts_with("rustls"));
        assert!(!r.client_offer.is_empty());
        // The offer is read from the ClientHello, in the client's order.
        let r = rs
            .iter()
            .find(|r| r.tls_version == "1.3" && r.client_profile == "chacha-first")
            .unwrap();
        assert_eq!(r.client_offer[0], "TLS_CHACHA20_POLY1305_SHA256");
    }
}
