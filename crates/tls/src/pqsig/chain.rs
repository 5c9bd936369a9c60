//! The part of [`super`] that needs liboqs and x509-cert: keys,
//! certificates, rustls signing and verification.

use super::{oqs_sig, x509_err, OqsSig, PqChain, OQS_SIGS};
use crate::probe::KeyLines;
use ango_core::{Error, PkAlgorithm, Result};
use openssl::pkey::{PKey, Private};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{
    AlgorithmIdentifier, CertificateDer, InvalidSignature, SignatureVerificationAlgorithm,
};
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ServerConfig, SignatureScheme};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::der::asn1::{BitString, Ia5String, OctetString};
use x509_cert::der::{Decode, Encode};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName,
};
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{
    AlgorithmIdentifierOwned, DynSignatureAlgorithmIdentifier, EncodePublicKey, ObjectIdentifier,
    SubjectPublicKeyInfoOwned,
};
use x509_cert::time::{Time, Validity};

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "liboqs",
        message: e.to_string(),
    }
}

fn sig_of(s: &OqsSig) -> Result<oqs::sig::Sig> {
    oqs::init();
    oqs::sig::Sig::new(s.oqs).map_err(err)
}

impl OqsSig {
    fn oid(&self) -> ObjectIdentifier {
        ObjectIdentifier::new_unwrap(self.oid)
    }
}

/// Bytes of a public key of `s`.
pub(super) fn public_key_len(s: &OqsSig) -> Option<usize> {
    sig_of(s).ok().map(|x| x.length_public_key())
}

// ------------------------------------------------------------ verification

/// webpki's view of one scheme: public key and signature share the OID.
#[derive(Debug)]
struct Verify(&'static OqsSig);

impl SignatureVerificationAlgorithm for Verify {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> std::result::Result<(), InvalidSignature> {
        let s = sig_of(self.0).map_err(|_| InvalidSignature)?;
        let pk = s
            .public_key_from_bytes(public_key)
            .ok_or(InvalidSignature)?;
        let sig = s.signature_from_bytes(signature).ok_or(InvalidSignature)?;
        s.verify(message, sig, pk).map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        // The DER of the AlgorithmIdentifier's contents: the OID alone.
        AlgorithmIdentifier::from_slice(self.0.oid_der)
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(self.0.oid_der)
    }
}

/// aws-lc-rs' verification algorithms and every OQS scheme (made once).
fn algorithms() -> WebPkiSupportedAlgorithms {
    static ALGS: OnceLock<WebPkiSupportedAlgorithms> = OnceLock::new();
    *ALGS.get_or_init(|| {
        let base = rustls::crypto::aws_lc_rs::default_provider().signature_verification_algorithms;
        let ours: Vec<&'static dyn SignatureVerificationAlgorithm> = OQS_SIGS
            .iter()
            .map(|s| {
                let v: &'static Verify = Box::leak(Box::new(Verify(s)));
                v as &'static dyn SignatureVerificationAlgorithm
            })
            .collect();
        let all: Vec<&'static dyn SignatureVerificationAlgorithm> = base
            .all
            .iter()
            .copied()
            .chain(ours.iter().copied())
            .collect();
        type Entry = (
            SignatureScheme,
            &'static [&'static dyn SignatureVerificationAlgorithm],
        );
        let mut mapping: Vec<Entry> = base.mapping.to_vec();
        for (s, v) in OQS_SIGS.iter().zip(&ours) {
            let one: &'static [&'static dyn SignatureVerificationAlgorithm] =
                Box::leak(vec![*v].into_boxed_slice());
            mapping.push((s.scheme(), one));
        }
        WebPkiSupportedAlgorithms {
            all: Box::leak(all.into_boxed_slice()),
            mapping: Box::leak(mapping.into_boxed_slice()),
        }
    })
}

// ------------------------------------------------------------ keys

/// A key of the lab's post-quantum chains: liboqs for the OQS schemes,
/// OpenSSL for the others (a classical or ML-DSA CA, or server).
pub(crate) enum LabKey {
    Oqs {
        sig: &'static OqsSig,
        pk: Vec<u8>,
        sk: oqs::sig::SecretKey,
    },
    OpenSsl {
        alg: PkAlgorithm,
        key: PKey<Private>,
    },
}

impl LabKey {
    fn new(alg: PkAlgorithm) -> Result<LabKey> {
        Ok(match oqs_sig(alg) {
            Some(sig) => {
                let (pk, sk) = sig_of(sig)?.keypair().map_err(err)?;
                LabKey::Oqs {
                    sig,
                    pk: pk.into_vec(),
                    sk,
                }
            }
            None => LabKey::OpenSsl {
                alg,
                key: crate::certs::generate_key(alg)?,
            },
        })
    }

    fn spki(&self) -> Result<SubjectPublicKeyInfoOwned> {
        match self {
            LabKey::Oqs { sig, pk, .. } => Ok(SubjectPublicKeyInfoOwned {
                algorithm: AlgorithmIdentifierOwned {
                    oid: sig.oid(),
                    parameters: None,
                },
                subject_public_key: BitString::from_bytes(pk).map_err(x509_err)?,
            }),
            LabKey::OpenSsl { key, .. } => {
                let der = key.public_key_to_der().map_err(x509_err)?;
                SubjectPublicKeyInfoOwned::from_der(&der).map_err(x509_err)
            }
        }
    }

    /// The AlgorithmIdentifier of this key's certificate signatures.
    fn signature_algorithm(&self) -> Result<AlgorithmIdentifierOwned> {
        let (oid, null_params) = match self {
            LabKey::Oqs { sig, .. } => (sig.oid(), false),
            LabKey::OpenSsl { alg, .. } => match alg {
                // sha256WithRSAEncryption, parameters NULL (RFC 4055).
                PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => {
                    (ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11"), true)
                }
                // ecdsa-with-SHA256 (RFC 5758), id-Ed25519 (RFC 8410),
                // id-ml-dsa-* (RFC 9881): no parameters.
                PkAlgorithm::P256 => (ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2"), false),
                PkAlgorithm::Ed25519 => (ObjectIdentifier::new_unwrap("1.3.101.112"), false),
                PkAlgorithm::MlDsa44 => (
                    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.3.17"),
                    false,
                ),
                PkAlgorithm::MlDsa65 => (
                    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.3.18"),
                    false,
                ),
                PkAlgorithm::MlDsa87 => (
                    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.3.19"),
                    false,
                ),
                other => {
                    return Err(Error::usage(format!(
                        "{other} cannot sign certificates here"
                    )))
                }
            },
        };
        Ok(AlgorithmIdentifierOwned {
            oid,
            parameters: null_params.then(|| x509_cert::der::asn1::Null.into()),
        })
    }

    /// Signs `msg` as a certificate signature.
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>> {
        match self {
            LabKey::Oqs { sig, sk, .. } => {
                let s = sig_of(sig)?;
                Ok(s.sign(msg, sk).map_err(err)?.into_vec())
            }
            LabKey::OpenSsl { alg, key } => {
                use openssl::hash::MessageDigest;
                use openssl::sign::Signer;
                let mut s = match alg {
                    PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 | PkAlgorithm::P256 => {
                        Signer::new(MessageDigest::sha256(), key)
                    }
                    _ => Signer::new_without_digest(key),
                }
                .map_err(x509_err)?;
                s.sign_oneshot_to_vec(msg).map_err(x509_err)
            }
        }
    }
}

/// The issuer as x509-cert's builder wants it: its public key and its
/// signature algorithm (the signature itself is made by [`LabKey::sign`]).
struct IssuerView {
    spki_der: Vec<u8>,
    alg: AlgorithmIdentifierOwned,
}

#[derive(Clone)]
struct SpkiDer(Vec<u8>);

impl EncodePublicKey for SpkiDer {
    fn to_public_key_der(&self) -> x509_cert::spki::Result<x509_cert::der::Document> {
        Ok(x509_cert::der::Document::try_from(self.0.as_slice())?)
    }
}

impl signature::Keypair for IssuerView {
    type VerifyingKey = SpkiDer;
    fn verifying_key(&self) -> SpkiDer {
        SpkiDer(self.spki_der.clone())
    }
}

impl DynSignatureAlgorithmIdentifier for IssuerView {
    fn signature_algorithm_identifier(&self) -> x509_cert::spki::Result<AlgorithmIdentifierOwned> {
        Ok(self.alg.clone())
    }
}

/// The lab's two certificate kinds.
struct Profile {
    subject: Name,
    issuer: Name,
    ca: bool,
    host: String,
}

fn extension<T: x509_cert::der::oid::AssociatedOid + Encode>(
    value: &T,
    critical: bool,
) -> x509_cert::builder::Result<Extension> {
    Ok(Extension {
        extn_id: T::OID,
        critical,
        extn_value: OctetString::new(value.to_der()?)?,
    })
}

impl BuilderProfile for Profile {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        _spk: x509_cert::spki::SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: x509_cert::spki::SubjectPublicKeyInfoRef<'_>,
        _tbs: &x509_cert::TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        if self.ca {
            Ok(vec![
                extension(
                    &BasicConstraints {
                        ca: true,
                        path_len_constraint: None,
                    },
                    true,
                )?,
                extension(&KeyUsage(KeyUsages::KeyCertSign.into()), true)?,
            ])
        } else {
            let dns = Ia5String::new(&self.host)?;
            Ok(vec![
                extension(&SubjectAltName(vec![GeneralName::DnsName(dns)]), false)?,
                extension(&KeyUsage(KeyUsages::DigitalSignature.into()), true)?,
                // id-kp-serverAuth
                extension(
                    &ExtendedKeyUsage(vec![ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.1")]),
                    false,
                )?,
            ])
        }
    }
}

/// A certificate for `subject_key`, signed by `issuer` (DER).
fn issue(subject_key: &LabKey, profile: Profile, issuer: &LabKey) -> Result<Vec<u8>> {
    let mut serial = [0u8; 16];
    openssl::rand::rand_bytes(&mut serial).map_err(x509_err)?;
    // Positive and always 16 bytes, as the OpenSSL-made certificates.
    serial[0] = (serial[0] & 0x7f) | 0x40;
    let serial = SerialNumber::new(&serial).map_err(x509_err)?;
    let now = SystemTime::now();
    let validity = Validity::new(
        Time::try_from(now - Duration::from_secs(3600)).map_err(x509_err)?,
        Time::try_from(now + Duration::from_secs(7 * 24 * 3600)).map_err(x509_err)?,
    );
    let view = IssuerView {
        spki_der: issuer.spki()?.to_der().map_err(x509_err)?,
        alg: issuer.signature_algorithm()?,
    };
    let mut b = CertificateBuilder::new(profile, serial, validity, subject_key.spki()?)
        .map_err(x509_err)?;
    let tbs = b.finalize(&view).map_err(x509_err)?;
    let sig = issuer.sign(&tbs)?;
    let cert = b
        .assemble(BitString::from_bytes(&sig).map_err(x509_err)?, &view)
        .map_err(x509_err)?;
    cert.to_der().map_err(x509_err)
}

impl PqChain {
    pub fn make(ca_alg: PkAlgorithm, server_alg: PkAlgorithm, host: &str) -> Result<PqChain> {
        let ca_key = LabKey::new(ca_alg)?;
        let ca_name =
            Name::from_str(&format!("CN=ango lab CA {}", ca_alg.name())).map_err(x509_err)?;
        let ca_der = issue(
            &ca_key,
            Profile {
                subject: ca_name.clone(),
                issuer: ca_name.clone(),
                ca: true,
                host: String::new(),
            },
            &ca_key,
        )?;
        let server_key = LabKey::new(server_alg)?;
        let server_der = issue(
            &server_key,
            Profile {
                subject: Name::from_str(&format!("CN={host}")).map_err(x509_err)?,
                issuer: ca_name,
                ca: false,
                host: host.to_string(),
            },
            &ca_key,
        )?;
        Ok(PqChain {
            ca_alg,
            server_alg,
            ca_der,
            server_der,
            server_key: Arc::new(server_key),
        })
    }

    /// A rustls server for this chain: TLS 1.3, every group rustls has.
    pub fn server_config(&self, keys: Option<&KeyLines>) -> Result<Arc<ServerConfig>> {
        let cert = CertificateDer::from(self.server_der.clone());
        let mut cfg = match &*self.server_key {
            LabKey::Oqs { .. } => {
                let key = Arc::new(OqsSigningKey(Arc::clone(&self.server_key)));
                let ck = Arc::new(CertifiedKey::new(vec![cert], key));
                ServerConfig::builder_with_provider(Arc::new(crate::rustls_stack::lab_provider(
                    None,
                )))
                .with_protocol_versions(&[crate::rustls_stack::version(true)])
                .map_err(crate::rustls_stack::err)?
                .with_no_client_auth()
                .with_cert_resolver(Arc::new(Fixed(ck)))
            }
            LabKey::OpenSsl { key, .. } => crate::rustls_stack::server_config_with(
                crate::rustls_stack::lab_provider(None),
                &[crate::rustls_stack::version(true)],
                self.server_der.clone(),
                key.private_key_to_pkcs8().map_err(x509_err)?,
            )?,
        };
        if let Some(k) = keys {
            cfg.key_log = crate::rustls_stack::key_log(k);
        }
        Ok(Arc::new(cfg))
    }
}

/// A rustls client that also verifies the OQS schemes (offered in its
/// signature_algorithms): TLS 1.3, only `group`, only the CA `ca_der`.
pub fn client_config(
    group: PkAlgorithm,
    ca_der: &[u8],
    keys: Option<&KeyLines>,
) -> Result<Arc<ClientConfig>> {
    let mut provider = crate::rustls_stack::lab_provider(Some(group));
    provider.signature_verification_algorithms = algorithms();
    let mut cfg = crate::rustls_stack::client_config_with(
        provider,
        &[crate::rustls_stack::version(true)],
        ca_der.to_vec(),
    )?;
    if let Some(k) = keys {
        cfg.key_log = crate::rustls_stack::key_log(k);
    }
    Ok(Arc::new(cfg))
}

/// rustls' view of an OQS server key.
struct OqsSigningKey(Arc<LabKey>);

impl std::fmt::Debug for OqsSigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            LabKey::Oqs { sig, .. } => write!(f, "OqsSigningKey({})", sig.oqs_name),
            LabKey::OpenSsl { alg, .. } => write!(f, "OqsSigningKey({alg})"),
        }
    }
}

impl rustls::sign::SigningKey for OqsSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn rustls::sign::Signer>> {
        let LabKey::Oqs { sig, .. } = &*self.0 else {
            return None;
        };
        offered.contains(&sig.scheme()).then(|| {
            Box::new(OqsSigner {
                key: Arc::clone(&self.0),
                scheme: sig.scheme(),
            }) as Box<dyn rustls::sign::Signer>
        })
    }

    fn algorithm(&self) -> rustls::SignatureAlgorithm {
        match &*self.0 {
            LabKey::Oqs { sig, .. } => rustls::SignatureAlgorithm::from(sig.code_point as u8),
            LabKey::OpenSsl { .. } => rustls::SignatureAlgorithm::Unknown(0),
        }
    }
}

struct OqsSigner {
    key: Arc<LabKey>,
    scheme: SignatureScheme,
}

impl std::fmt::Debug for OqsSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OqsSigner({:?})", self.scheme)
    }
}

impl rustls::sign::Signer for OqsSigner {
    fn sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, rustls::Error> {
        self.key
            .sign(message)
            .map_err(|e| rustls::Error::General(e.to_string()))
    }

    fn scheme(&self) -> SignatureScheme {
        self.scheme
    }
}

/// The one certificate of a server, whatever the client asks.
#[derive(Debug)]
struct Fixed(Arc<CertifiedKey>);

impl rustls::server::ResolvesServerCert for Fixed {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::client_tls;
    use crate::pqsig::{too_large_for_rustls, why_not, LabCerts};

    #[test]
    fn the_oids_are_their_der() {
        for s in OQS_SIGS {
            assert_eq!(s.oid().to_der().unwrap(), s.oid_der, "{}", s.oqs_name);
            assert_eq!(u16::from(s.scheme()), s.code_point);
            let d = format!("{:?}", s.scheme());
            assert!(
                d.contains("Unknown") || d.contains("0x"),
                "{d}: a named scheme?"
            );
        }
        assert!(why_not(PkAlgorithm::Snova24_5_4).unwrap().contains("0.14"));
        assert!(why_not(PkAlgorithm::Mayo1).is_none());
    }

    #[test]
    fn a_mayo_chain_parses_and_its_signatures_verify() {
        for (ca, srv) in [
            (PkAlgorithm::Mayo1, PkAlgorithm::Mayo1),
            (PkAlgorithm::P256, PkAlgorithm::CrossRsdp128Balanced),
            (PkAlgorithm::OvIsPkc, PkAlgorithm::MlDsa44),
        ] {
            let c = PqChain::make(ca, srv, crate::handshake::HOST).unwrap();
            let cert = x509_cert::Certificate::from_der(&c.server_der).unwrap();
            let ca_cert = x509_cert::Certificate::from_der(&c.ca_der).unwrap();
            assert_eq!(
                cert.tbs_certificate().issuer(),
                ca_cert.tbs_certificate().subject()
            );
            // The server certificate's signature checks with the CA's key
            // (OpenSSL for a classical CA, liboqs otherwise).
            let tbs = cert.tbs_certificate().to_der().unwrap();
            let sig = cert.signature().raw_bytes();
            let ca_pk = ca_cert
                .tbs_certificate()
                .subject_public_key_info()
                .subject_public_key
                .raw_bytes();
            match oqs_sig(ca) {
                Some(s) => Verify(s).verify_signature(ca_pk, &tbs, sig).unwrap(),
                None => {
                    let x = openssl::x509::X509::from_der(&c.ca_der).unwrap();
                    let k = x.public_key().unwrap();
                    let mut v =
                        openssl::sign::Verifier::new(openssl::hash::MessageDigest::sha256(), &k)
                            .unwrap();
                    assert!(v.verify_oneshot(sig, &tbs).unwrap());
                }
            }
        }
    }

    /// Real handshakes, rustls to rustls with liboqs: MAYO-1 by a P-256
    /// CA and CROSS by a MAYO-1 CA succeed; a client trusting another CA
    /// of the same scheme is refused (the chain is really verified).
    #[test]
    fn rustls_handshakes_with_oqs_certificates_verify_their_chain() {
        use crate::handshake::{Server, HOST};
        use crate::rustls_stack::Stack;
        let keys = KeyLines::default();
        for (ca, srv) in [
            (PkAlgorithm::P256, PkAlgorithm::Mayo1),
            (PkAlgorithm::Mayo1, PkAlgorithm::CrossRsdp128Fast),
        ] {
            let certs = LabCerts::make(&[(ca, srv)], HOST).unwrap();
            let pair = certs.get(ca, srv).unwrap();
            assert!(pair.pq());
            assert!(matches!(pair.server_tls(Stack::OpenSsl, None), Err(e) if e.is_usage()));
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let server = Server::start(l, pair.server_tls(Stack::Rustls, None).unwrap()).unwrap();
            let ok = client_tls(
                Stack::Rustls,
                PkAlgorithm::X25519,
                &pair.ca_der().unwrap(),
                true,
                &keys,
            )
            .unwrap();
            let obs = crate::run::handshakes(&ok, server.addr, 3, &|| false);
            assert!(obs.iter().all(|o| o.is_ok()), "{ca}/{srv}: {obs:?}");
            let other = PqChain::make(ca, srv, HOST).unwrap();
            let bad = client_tls(
                Stack::Rustls,
                PkAlgorithm::X25519,
                &other.ca_der,
                true,
                &keys,
            )
            .unwrap();
            let e = crate::run::handshakes(&bad, server.addr, 1, &|| false);
            let e = e[0].as_ref().unwrap_err();
            assert!(
                e.contains("certificate") || e.contains("Certificate"),
                "{e}"
            );
            server.stop();
        }
        assert!(too_large_for_rustls(PkAlgorithm::OvIs).is_some());
        assert!(too_large_for_rustls(PkAlgorithm::OvIpPkc).is_none());
        assert!(too_large_for_rustls(PkAlgorithm::Mayo2).is_none());
    }
}
