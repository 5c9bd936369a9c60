//! Run-time test PKI for the TLS 1.3 handshake lab.
//!
//! Nothing secret is shipped: every run makes, with OpenSSL 3.5, a self-signed
//! root CA per CA signature algorithm and one server certificate per
//! (CA algorithm, server algorithm) pair. The client trusts only the lab's CA
//! and verifies the chain and host name for real; the DER sizes of the
//! certificates are what seed tables 14–15 report.
//!
//! Certificates are signed the way public CAs sign them: RSA with
//! sha256WithRSAEncryption (PKCS#1 v1.5), P-256 with ecdsa-with-SHA256, and
//! Ed25519 and ML-DSA "pure", with no separate digest (`X509_sign` with a
//! null message digest).

use ango_core::{Error, PkAlgorithm, Result};
use foreign_types::ForeignType;
use openssl::asn1::Asn1Time;
use openssl::bn::{BigNum, MsbOption};
use openssl::ec::{EcGroup, EcKey};
use openssl::error::ErrorStack;
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, PKeyRef, Private};
use openssl::rsa::Rsa;
use openssl::x509::extension::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAlternativeName,
    SubjectKeyIdentifier,
};
use openssl::x509::{X509Builder, X509Name, X509NameBuilder, X509};
use openssl_sys as ffi;
use serde::Serialize;
use std::collections::btree_map::{BTreeMap, Entry};
use std::path::Path;
use std::ptr;
use std::time::{SystemTime, UNIX_EPOCH};

/// The signature algorithms the lab can put in certificates (CA or server),
/// all available in OpenSSL 3.5's default provider.
pub const SUPPORTED: &[PkAlgorithm] = &[
    PkAlgorithm::Rsa2048,
    PkAlgorithm::Rsa3072,
    PkAlgorithm::P256,
    PkAlgorithm::Ed25519,
    PkAlgorithm::MlDsa44,
    PkAlgorithm::MlDsa65,
    PkAlgorithm::MlDsa87,
];

/// Validity starts this long before "now" (clock skew between processes).
const NOT_BEFORE_SLACK_SECS: i64 = 3600;
/// Validity ends this long after "now".
const LIFETIME_SECS: i64 = 7 * 24 * 3600;

/// A self-signed root CA.
#[derive(Clone, Debug)]
pub struct Issuer {
    pub algorithm: PkAlgorithm,
    pub key: PKey<Private>,
    pub cert: X509,
}

/// A server (end-entity) certificate and its key, issued by an [`Issuer`].
#[derive(Clone, Debug)]
pub struct ServerCert {
    pub algorithm: PkAlgorithm,
    pub key: PKey<Private>,
    pub cert: X509,
}

/// DER sizes of one chain (seed tables 14–15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CertSizes {
    pub ca_sig: PkAlgorithm,
    pub server_sig: PkAlgorithm,
    pub ca_cert_der: usize,
    pub server_cert_der: usize,
}

fn openssl_err(what: &str, e: ErrorStack) -> Error {
    Error::Backend {
        backend: "openssl",
        message: format!("{what}: {e}"),
    }
}

fn check_supported(alg: PkAlgorithm) -> Result<()> {
    if SUPPORTED.contains(&alg) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "'{}' cannot sign certificates in the TLS lab; valid: {}",
            alg.name(),
            SUPPORTED
                .iter()
                .map(|a| a.name())
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// A key pair by provider name, for ML-DSA (the public-key backend's
/// key-generation context).
fn keygen_by_name(name: &str) -> std::result::Result<PKey<Private>, ErrorStack> {
    ango_backends::pk::openssl::keygen_ctx(name)?.keygen()
}

/// A fresh key pair for `alg` (RSA with e = 65537, P-256 on prime256v1).
pub(crate) fn generate_key(alg: PkAlgorithm) -> Result<PKey<Private>> {
    check_supported(alg)?;
    let what = format!("{} key generation", alg.name());
    let rsa = |bits: u32| -> std::result::Result<PKey<Private>, ErrorStack> {
        let e = BigNum::from_u32(65537)?;
        PKey::from_rsa(Rsa::generate_with_e(bits, &e)?)
    };
    let key = match alg {
        PkAlgorithm::Rsa2048 => rsa(2048),
        PkAlgorithm::Rsa3072 => rsa(3072),
        PkAlgorithm::P256 => EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)
            .and_then(|g| EcKey::generate(&g))
            .and_then(PKey::from_ec_key),
        PkAlgorithm::Ed25519 => PKey::generate_ed25519(),
        PkAlgorithm::MlDsa44 => keygen_by_name("ML-DSA-44"),
        PkAlgorithm::MlDsa65 => keygen_by_name("ML-DSA-65"),
        PkAlgorithm::MlDsa87 => keygen_by_name("ML-DSA-87"),
        _ => unreachable!("check_supported admitted {alg:?}"),
    };
    key.map_err(|e| openssl_err(&what, e))
}

/// The digest a key of `alg` signs certificates with. The "pure" schemes
/// (Ed25519, ML-DSA) sign the whole TBSCertificate: for them OpenSSL 3.5's
/// `X509_sign` treats `EVP_md_null()` like a NULL digest (checked in the
/// tests: the signature AlgorithmIdentifier is id-Ed25519 / id-ml-dsa-*
/// and the certificate verifies).
fn cert_digest(alg: PkAlgorithm) -> MessageDigest {
    match alg {
        PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 | PkAlgorithm::P256 => MessageDigest::sha256(),
        _ => MessageDigest::null(),
    }
}

fn name_cn(cn: &str) -> std::result::Result<X509Name, ErrorStack> {
    let mut b = X509NameBuilder::new()?;
    b.append_entry_by_nid(Nid::COMMONNAME, cn)?;
    Ok(b.build())
}

/// A v3 certificate skeleton: version, random 128-bit serial, validity
/// now − 1 h … now + 7 days, subject and public key.
fn skeleton(
    subject: &X509Name,
    key: &PKeyRef<Private>,
) -> std::result::Result<X509Builder, ErrorStack> {
    let mut b = X509Builder::new()?;
    b.set_version(2)?;
    // Top bit set: always exactly 128 bits, so the DER size does not vary.
    let mut serial = BigNum::new()?;
    serial.rand(128, MsbOption::ONE, false)?;
    let serial = serial.to_asn1_integer()?;
    b.set_serial_number(&serial)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let not_before = Asn1Time::from_unix((now - NOT_BEFORE_SLACK_SECS) as libc::time_t)?;
    let not_after = Asn1Time::from_unix((now + LIFETIME_SECS) as libc::time_t)?;
    b.set_not_before(&not_before)?;
    b.set_not_after(&not_after)?;
    b.set_subject_name(subject)?;
    b.set_pubkey(key)?;
    Ok(b)
}

/// A self-signed root CA whose key and signature use `alg`.
pub fn new_ca(alg: PkAlgorithm) -> Result<Issuer> {
    let key = generate_key(alg)?;
    let build = || -> std::result::Result<X509, ErrorStack> {
        let subject = name_cn(&format!("ango test CA {}", alg.name()))?;
        let mut b = skeleton(&subject, &key)?;
        b.set_issuer_name(&subject)?;
        b.append_extension(BasicConstraints::new().critical().ca().build()?)?;
        b.append_extension(
            KeyUsage::new()
                .critical()
                .key_cert_sign()
                .crl_sign()
                .build()?,
        )?;
        let ski = SubjectKeyIdentifier::new().build(&b.x509v3_context(None, None))?;
        b.append_extension(ski)?;
        b.sign(&key, cert_digest(alg))?;
        Ok(b.build())
    };
    let cert = build().map_err(|e| openssl_err(&format!("making the {} CA", alg.name()), e))?;
    Ok(Issuer {
        algorithm: alg,
        key,
        cert,
    })
}

/// A server certificate for `host` with an `alg` key, signed by `ca`.
pub fn issue_server(ca: &Issuer, alg: PkAlgorithm, host: &str) -> Result<ServerCert> {
    if host.is_empty() {
        return Err(Error::usage("the server host name must not be empty"));
    }
    let key = generate_key(alg)?;
    let build = || -> std::result::Result<X509, ErrorStack> {
        let subject = name_cn(host)?;
        let mut b = skeleton(&subject, &key)?;
        b.set_issuer_name(ca.cert.subject_name())?;
        b.append_extension(BasicConstraints::new().build()?)?;
        b.append_extension(KeyUsage::new().digital_signature().build()?)?;
        b.append_extension(ExtendedKeyUsage::new().server_auth().build()?)?;
        let san = SubjectAlternativeName::new()
            .dns(host)
            .build(&b.x509v3_context(Some(&ca.cert), None))?;
        b.append_extension(san)?;
        let aki = AuthorityKeyIdentifier::new()
            .keyid(true)
            .build(&b.x509v3_context(Some(&ca.cert), None))?;
        b.append_extension(aki)?;
        b.sign(&ca.key, cert_digest(ca.algorithm))?;
        Ok(b.build())
    };
    let cert = build().map_err(|e| {
        let what = format!(
            "issuing a {} server certificate by the {} CA",
            alg.name(),
            ca.algorithm.name()
        );
        openssl_err(&what, e)
    })?;
    Ok(ServerCert {
        algorithm: alg,
        key,
        cert,
    })
}

/// The DER-encoded size of a certificate, in bytes.
pub fn der_len(cert: &X509) -> usize {
    // SAFETY: `cert` is a valid X509; a NULL output pointer asks i2d for the
    // encoded length only.
    let n = unsafe { ffi::i2d_X509(cert.as_ptr(), ptr::null_mut()) };
    usize::try_from(n).unwrap_or(0)
}

/// The lab's certificates: one CA per CA algorithm (shared by every pair
/// that uses it) and one server certificate per (CA, server) pair.
#[derive(Clone, Debug)]
pub struct Chains {
    host: String,
    /// The pairs in the order they were asked for (duplicates dropped).
    order: Vec<(PkAlgorithm, PkAlgorithm)>,
    cas: BTreeMap<PkAlgorithm, Issuer>,
    servers: BTreeMap<(PkAlgorithm, PkAlgorithm), ServerCert>,
}

impl Chains {
    /// Make the CAs and server certificates for `pairs` of
    /// (CA algorithm, server algorithm), every server named `host`.
    pub fn make(pairs: &[(PkAlgorithm, PkAlgorithm)], host: &str) -> Result<Chains> {
        for &(ca, server) in pairs {
            check_supported(ca)?;
            check_supported(server)?;
        }
        let mut chains = Chains {
            host: host.to_string(),
            order: Vec::new(),
            cas: BTreeMap::new(),
            servers: BTreeMap::new(),
        };
        for &(ca_alg, server_alg) in pairs {
            if chains.servers.contains_key(&(ca_alg, server_alg)) {
                continue;
            }
            let ca = match chains.cas.entry(ca_alg) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(new_ca(ca_alg)?),
            };
            let server = issue_server(ca, server_alg, host)?;
            chains.servers.insert((ca_alg, server_alg), server);
            chains.order.push((ca_alg, server_alg));
        }
        Ok(chains)
    }

    /// The CA and server certificate of one pair.
    pub fn get(&self, ca: PkAlgorithm, server: PkAlgorithm) -> Option<(&Issuer, &ServerCert)> {
        Some((self.cas.get(&ca)?, self.servers.get(&(ca, server))?))
    }

    /// The CA of one CA algorithm.
    pub fn ca(&self, ca: PkAlgorithm) -> Option<&Issuer> {
        self.cas.get(&ca)
    }

    /// The pairs, in the order they were asked for.
    pub fn pairs(&self) -> &[(PkAlgorithm, PkAlgorithm)] {
        &self.order
    }

    /// The host name every server certificate is issued for.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// DER sizes of every chain, in pair order.
    pub fn sizes(&self) -> Vec<CertSizes> {
        self.order
            .iter()
            .map(|&(ca, server)| CertSizes {
                ca_sig: ca,
                server_sig: server,
                ca_cert_der: der_len(&self.cas[&ca].cert),
                server_cert_der: der_len(&self.servers[&(ca, server)].cert),
            })
            .collect()
    }
}

/// Write every CA certificate (`ca-<alg>.pem`) and server certificate
/// (`server-<server>-by-<ca>.pem`) into `dir` as PEM, for inspection with
/// `openssl x509 -text`. Certificates only: keys are never written.
pub fn write_pem(dir: &Path, chains: &Chains) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let write = |file: String, cert: &X509| -> Result<()> {
        let pem = cert
            .to_pem()
            .map_err(|e| openssl_err("PEM-encoding a certificate", e))?;
        let path = dir.join(file);
        std::fs::write(&path, pem).map_err(|e| Error::io(format!("writing {}", path.display()), e))
    };
    for (alg, ca) in &chains.cas {
        write(format!("ca-{}.pem", alg.name()), &ca.cert)?;
    }
    for &(ca, server) in &chains.order {
        write(
            format!("server-{}-by-{}.pem", server.name(), ca.name()),
            &chains.servers[&(ca, server)].cert,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use openssl::ssl::{SslAcceptor, SslConnector, SslMethod, SslVersion};
    use openssl::stack::Stack;
    use openssl::x509::store::{X509Store, X509StoreBuilder};
    use openssl::x509::verify::X509VerifyParam;
    use openssl::x509::X509StoreContext;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    const HOST: &str = "tls-lab.ango.test";

    /// The seed's 4×4 matrix (tables 14–15).
    const SEED: &[PkAlgorithm] = &[
        PkAlgorithm::Rsa2048,
        PkAlgorithm::Rsa3072,
        PkAlgorithm::P256,
        PkAlgorithm::MlDsa44,
    ];

    fn store_with(ca: &X509, host: Option<&str>) -> X509Store {
        let mut b = X509StoreBuilder::new().unwrap();
        b.add_cert(ca.clone()).unwrap();
        if let Some(h) = host {
            let mut p = X509VerifyParam::new().unwrap();
            p.set_host(h).unwrap();
            b.set_param(&p).unwrap();
        }
        b.build()
    }

    fn verifies(ca: &X509, leaf: &X509, host: Option<&str>) -> bool {
        let store = store_with(ca, host);
        let mut ctx = X509StoreContext::new().unwrap();
        ctx.init(&store, leaf, &Stack::new().unwrap(), |c| c.verify_cert())
            .unwrap()
    }

    fn all_pairs(algs: &[PkAlgorithm]) -> Vec<(PkAlgorithm, PkAlgorithm)> {
        algs.iter()
            .flat_map(|&c| algs.iter().map(move |&s| (c, s)))
            .collect()
    }

    #[test]
    fn unsupported_is_usage_error() {
        let e = new_ca(PkAlgorithm::X25519).unwrap_err();
        assert!(e.is_usage(), "{e}");
        assert!(e.to_string().contains("ml-dsa-44"), "{e}");
        let e = Chains::make(&[(PkAlgorithm::MlDsa44, PkAlgorithm::Mayo1)], HOST).unwrap_err();
        assert!(e.is_usage(), "{e}");
    }

    #[test]
    fn ca_shape() {
        for &alg in SUPPORTED {
            let ca = new_ca(alg).unwrap();
            let cn = ca
                .cert
                .subject_name()
                .entries_by_nid(Nid::COMMONNAME)
                .next()
                .unwrap()
                .data()
                .to_string()
                .unwrap();
            assert_eq!(cn, format!("ango test CA {}", alg.name()));
            assert!(ca.cert.subject_key_id().is_some());
            assert_eq!(ca.cert.serial_number().to_bn().unwrap().num_bits(), 128);
            // Self-signed and self-verifying.
            assert!(ca.cert.verify(&ca.key).unwrap());
            assert!(verifies(&ca.cert, &ca.cert, None), "{alg:?}");
            let text = String::from_utf8(ca.cert.to_text().unwrap()).unwrap();
            assert!(text.contains("CA:TRUE"), "{text}");
            assert!(text.contains("Certificate Sign, CRL Sign"), "{text}");
        }
    }

    #[test]
    fn signature_algorithms_in_certs() {
        let want = [
            (PkAlgorithm::Rsa2048, Nid::SHA256WITHRSAENCRYPTION),
            (PkAlgorithm::Rsa3072, Nid::SHA256WITHRSAENCRYPTION),
            (PkAlgorithm::P256, Nid::ECDSA_WITH_SHA256),
            (PkAlgorithm::Ed25519, Nid::from_raw(ffi::NID_ED25519)),
        ];
        for (alg, nid) in want {
            let ca = new_ca(alg).unwrap();
            assert_eq!(ca.cert.signature_algorithm().object().nid(), nid, "{alg:?}");
        }
        for (alg, oid) in [
            (PkAlgorithm::MlDsa44, "2.16.840.1.101.3.4.3.17"),
            (PkAlgorithm::MlDsa65, "2.16.840.1.101.3.4.3.18"),
            (PkAlgorithm::MlDsa87, "2.16.840.1.101.3.4.3.19"),
        ] {
            let ca = new_ca(alg).unwrap();
            let obj = ca.cert.signature_algorithm().object();
            let text = obj.to_string();
            let sn = obj.nid().short_name().unwrap_or("");
            assert!(
                sn.eq_ignore_ascii_case(alg.name())
                    || text.eq_ignore_ascii_case(alg.label())
                    || text == oid,
                "{alg:?}: {text} / {sn}"
            );
        }
    }

    fn check_matrix(algs: &[PkAlgorithm]) -> Chains {
        let pairs = all_pairs(algs);
        let chains = Chains::make(&pairs, HOST).unwrap();
        // One CA per CA algorithm, reused.
        assert_eq!(chains.cas.len(), algs.len());
        let other = Chains::make(&pairs, HOST).unwrap();
        for &(c, s) in &pairs {
            let (ca, server) = chains.get(c, s).unwrap();
            assert_eq!((ca.algorithm, server.algorithm), (c, s));
            assert!(std::ptr::eq(ca, chains.ca(c).unwrap()));
            assert!(verifies(&ca.cert, &server.cert, None), "{c:?}/{s:?}");
            assert!(verifies(&ca.cert, &server.cert, Some(HOST)), "{c:?}/{s:?}");
            assert!(!verifies(&ca.cert, &server.cert, Some("other.ango.test")));
            // Same algorithm and subject name, different key: must fail.
            let (other_ca, _) = other.get(c, s).unwrap();
            assert!(!verifies(&other_ca.cert, &server.cert, None), "{c:?}/{s:?}");
            // A CA of another algorithm: must fail.
            let alien = algs.iter().find(|&&a| a != c).unwrap();
            assert!(!verifies(
                &chains.ca(*alien).unwrap().cert,
                &server.cert,
                None
            ));
            let san = server.cert.subject_alt_names().unwrap();
            let dns: Vec<&str> = san.iter().filter_map(|g| g.dnsname()).collect();
            assert_eq!(dns, [HOST]);
            assert!(server.cert.verify(&ca.key).unwrap());
            let text = String::from_utf8(server.cert.to_text().unwrap()).unwrap();
            for needle in [
                "CA:FALSE",
                "Digital Signature",
                "TLS Web Server Authentication",
            ] {
                assert!(text.contains(needle), "{needle}: {text}");
            }
            assert_eq!(
                server.cert.authority_key_id().unwrap().as_slice(),
                ca.cert.subject_key_id().unwrap().as_slice()
            );
        }
        chains
    }

    fn size_table(chains: &Chains, algs: &[PkAlgorithm]) {
        let sizes = chains.sizes();
        assert_eq!(sizes.len(), algs.len() * algs.len());
        let mut out = String::from("CA \\ server     CA cert");
        for s in algs {
            out += &format!(" {:>10}", s.name());
        }
        for &c in algs {
            out += &format!(
                "\n{:<14} {:>8}",
                c.name(),
                der_len(&chains.ca(c).unwrap().cert)
            );
            for &s in algs {
                let z = sizes
                    .iter()
                    .find(|z| z.ca_sig == c && z.server_sig == s)
                    .unwrap();
                out += &format!(" {:>10}", z.server_cert_der);
            }
        }
        println!("{out}");
    }

    #[test]
    fn seed_matrix_and_sizes() {
        let chains = check_matrix(SEED);
        size_table(&chains, SEED);
        let size = |c, s| {
            let (ca, server) = chains.get(c, s).unwrap();
            (der_len(&ca.cert), der_len(&server.cert))
        };
        let (ca, srv) = size(PkAlgorithm::Rsa2048, PkAlgorithm::Rsa2048);
        assert!((700..=1000).contains(&ca), "{ca}");
        assert!((800..=1000).contains(&srv), "{srv}");
        let (ca, srv) = size(PkAlgorithm::MlDsa44, PkAlgorithm::MlDsa44);
        // 1312-byte key + 2420-byte signature + the rest.
        assert!((3800..=4100).contains(&ca), "{ca}");
        assert!((3900..=4100).contains(&srv), "{srv}");
        let (_, srv) = size(PkAlgorithm::P256, PkAlgorithm::P256);
        assert!((400..=700).contains(&srv), "{srv}");
    }

    /// One TLS 1.3 handshake over a socket pair: the server presents
    /// `server`; the client trusts only `trusted` and checks `host`.
    /// Returns the negotiated version on success, the client's error if not.
    fn handshake(
        trusted: &X509,
        server: &ServerCert,
        host: &str,
    ) -> std::result::Result<String, String> {
        let (cs, ss) = UnixStream::pair().unwrap();
        let mut acc = SslAcceptor::mozilla_modern_v5(SslMethod::tls_server()).unwrap();
        acc.set_max_proto_version(Some(SslVersion::TLS1_3)).unwrap();
        acc.set_private_key(&server.key).unwrap();
        acc.set_certificate(&server.cert).unwrap();
        acc.check_private_key().unwrap();
        let acc = acc.build();
        let srv = std::thread::spawn(move || -> std::result::Result<(), String> {
            let mut s = acc.accept(ss).map_err(|e| e.to_string())?;
            let mut b = [0u8; 4];
            s.read_exact(&mut b).map_err(|e| e.to_string())?;
            s.write_all(&b).map_err(|e| e.to_string())?;
            s.shutdown().ok();
            Ok(())
        });
        let mut con = SslConnector::builder(SslMethod::tls_client()).unwrap();
        con.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
        con.set_max_proto_version(Some(SslVersion::TLS1_3)).unwrap();
        // Only the lab's CA: replace the default verify paths.
        con.set_cert_store(store_with(trusted, None));
        let con = con.build();
        let client = (|| -> std::result::Result<String, String> {
            let mut s = con.connect(host, cs).map_err(|e| e.to_string())?;
            s.write_all(b"ping").map_err(|e| e.to_string())?;
            let mut b = [0u8; 4];
            s.read_exact(&mut b).map_err(|e| e.to_string())?;
            assert_eq!(&b, b"ping");
            let peer = s.ssl().peer_certificate().unwrap();
            assert_eq!(peer.to_der().unwrap(), server.cert.to_der().unwrap());
            Ok(s.ssl().version_str().to_string())
        })();
        let served = srv.join().unwrap();
        if client.is_ok() {
            served.unwrap();
        }
        client
    }

    #[test]
    fn tls13_handshakes() {
        let pairs = [
            (PkAlgorithm::Rsa2048, PkAlgorithm::Rsa2048),
            (PkAlgorithm::P256, PkAlgorithm::MlDsa44),
            (PkAlgorithm::MlDsa44, PkAlgorithm::MlDsa44),
            (PkAlgorithm::Ed25519, PkAlgorithm::MlDsa87),
            (PkAlgorithm::MlDsa65, PkAlgorithm::P256),
        ];
        let chains = Chains::make(&pairs, HOST).unwrap();
        let others = Chains::make(&pairs, HOST).unwrap();
        for (c, s) in pairs {
            let (ca, server) = chains.get(c, s).unwrap();
            assert_eq!(
                handshake(&ca.cert, server, HOST).as_deref(),
                Ok("TLSv1.3"),
                "{c:?}/{s:?}"
            );
            // Another CA of the same algorithm and name: must not connect.
            let (other_ca, _) = others.get(c, s).unwrap();
            let e = handshake(&other_ca.cert, server, HOST).unwrap_err();
            assert!(e.contains("certificate verify failed"), "{c:?}/{s:?}: {e}");
            // Right CA, wrong host name: must not connect.
            let e = handshake(&ca.cert, server, "other.ango.test").unwrap_err();
            assert!(e.contains("certificate verify failed"), "{c:?}/{s:?}: {e}");
        }
    }

    #[test]
    fn pem_files() {
        let pairs = [
            (PkAlgorithm::MlDsa44, PkAlgorithm::Ed25519),
            (PkAlgorithm::MlDsa44, PkAlgorithm::MlDsa44),
        ];
        let chains = Chains::make(&pairs, HOST).unwrap();
        let dir = std::env::temp_dir().join(format!("ango-certs-test-{}", std::process::id()));
        write_pem(&dir, &chains).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "ca-ml-dsa-44.pem",
                "server-ed25519-by-ml-dsa-44.pem",
                "server-ml-dsa-44-by-ml-dsa-44.pem"
            ]
        );
        for n in &names {
            let pem = std::fs::read(dir.join(n)).unwrap();
            assert!(!String::from_utf8_lossy(&pem).contains("PRIVATE"));
            X509::from_pem(&pem).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every CA algorithm × every server algorithm (7×7; ~5 s optimized).
    #[test]
    fn full_matrix() {
        let chains = check_matrix(SUPPORTED);
        size_table(&chains, SUPPORTED);
    }
}
