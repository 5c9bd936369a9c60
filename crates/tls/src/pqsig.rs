//! Seed 003's other post-quantum server certificates (Tables 15–16, Figs
//! 17–18: MAYO, CROSS, UOV, SNOVA, which the seed ran through the OQS
//! provider) in the lab, through rustls: OpenSSL 3.5 has none of them and
//! cannot make or check their certificates, so these combinations run
//! rustls on both sides.
//!
//! - Keys, signatures and verification: liboqs 0.13 (the `oqs` crate, the
//!   pin of the public-key backends).
//! - Certificates: RustCrypto's x509-cert encodes them (v3, 128-bit
//!   serial, the lab's validity, basicConstraints and keyUsage for the CA,
//!   subjectAltName and serverAuth for the server); the issuer's key signs
//!   the TBSCertificate — liboqs for these schemes, OpenSSL when a classical
//!   or ML-DSA CA issues a MAYO server certificate.
//! - The identifiers are the OQS provider's (oqs-provider `ALGORITHMS.md`
//!   at commit 00fde33, July 2026): the X.509 OIDs (public key and
//!   signature alike, no parameters, the key a raw BIT STRING) and the TLS
//!   SignatureScheme code points (0xff32 for MAYO-1, …), so the handshakes
//!   are the ones an OQS-provider peer would make.
//! - rustls: a `SigningKey` that offers its code point, and for the client
//!   webpki verification algorithms for each OID and code point, added to
//!   the client's provider only in these combinations (elsewhere the
//!   ClientHello is unchanged).
//!
//! SNOVA is not here: liboqs 0.13 has no SNOVA (it arrived in liboqs 0.14),
//! and the lab's post-quantum signatures come from liboqs.

use ango_core::{Error, PkAlgorithm, Result};
use rustls::SignatureScheme;

#[cfg(feature = "pq-sigs")]
mod chain;
pub use chain::client_config;

/// Without the pq-sigs feature (the fuzz build): nothing to make.
#[cfg(not(feature = "pq-sigs"))]
mod chain {
    use super::*;
    use std::sync::Arc;

    const NONE: &str = "this build has no post-quantum certificates (ango-tls without pq-sigs)";

    pub(super) fn public_key_len(_: &OqsSig) -> Option<usize> {
        None
    }

    impl PqChain {
        pub fn make(_: PkAlgorithm, _: PkAlgorithm, _: &str) -> Result<PqChain> {
            Err(Error::usage(NONE))
        }

        pub fn server_config(
            &self,
            _: Option<&crate::probe::KeyLines>,
        ) -> Result<Arc<rustls::ServerConfig>> {
            Err(Error::usage(NONE))
        }
    }

    pub fn client_config(
        _: PkAlgorithm,
        _: &[u8],
        _: Option<&crate::probe::KeyLines>,
    ) -> Result<Arc<rustls::ClientConfig>> {
        Err(Error::usage(NONE))
    }
}

fn x509_err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "x509-cert",
        message: e.to_string(),
    }
}

impl OqsSig {
    fn scheme(&self) -> SignatureScheme {
        SignatureScheme::from(self.code_point)
    }
}

/// One signature scheme of the OQS provider.
#[derive(Debug)]
pub struct OqsSig {
    pub alg: PkAlgorithm,
    /// The OQS provider's name.
    pub oqs_name: &'static str,
    #[cfg(feature = "pq-sigs")]
    oqs: oqs::sig::Algorithm,
    /// X.509 OID (dotted) and its DER encoding (tag, length, value).
    pub oid: &'static str,
    oid_der: &'static [u8],
    /// TLS SignatureScheme code point.
    pub code_point: u16,
}

macro_rules! sigs {
    ($($alg:ident, $name:literal, $oqs:ident, $oid:literal, [$($b:literal),*], $cp:literal;)*) => {
        /// The schemes the lab offers through rustls.
        pub static OQS_SIGS: &[OqsSig] = &[$(OqsSig {
            alg: PkAlgorithm::$alg,
            oqs_name: $name,
            oqs: oqs::sig::Algorithm::$oqs,
            oid: $oid,
            oid_der: &[$($b),*],
            code_point: $cp,
        }),*];
    };
}

#[cfg(not(feature = "pq-sigs"))]
/// Without the pq-sigs feature (the fuzz build): no OQS scheme.
pub static OQS_SIGS: &[OqsSig] = &[];

#[cfg(feature = "pq-sigs")]
sigs! {
    Mayo1, "mayo1", Mayo1, "1.3.9999.8.1.3", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x08, 0x01, 0x03], 0xff32;
    Mayo2, "mayo2", Mayo2, "1.3.9999.8.2.3", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x08, 0x02, 0x03], 0xff33;
    CrossRsdp128Balanced, "CROSSrsdp128balanced", CrossRsdp128Balanced, "1.3.6.1.4.1.62245.2.1.1.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x01, 0x02, 0x02], 0xff53;
    CrossRsdp128Fast, "CROSSrsdp128fast", CrossRsdp128Fast, "1.3.6.1.4.1.62245.2.1.2.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x02, 0x02, 0x02], 0xff54;
    CrossRsdp128Small, "CROSSrsdp128small", CrossRsdp128Small, "1.3.6.1.4.1.62245.2.1.3.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x03, 0x02, 0x02], 0xff55;
    CrossRsdpg128Balanced, "CROSSrsdpg128balanced", CrossRsdpg128Balanced, "1.3.6.1.4.1.62245.2.1.10.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x0a, 0x02, 0x02], 0xff5a;
    CrossRsdpg128Fast, "CROSSrsdpg128fast", CrossRsdpg128Fast, "1.3.6.1.4.1.62245.2.1.11.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x0b, 0x02, 0x02], 0xff5b;
    CrossRsdpg128Small, "CROSSrsdpg128small", CrossRsdpg128Small, "1.3.6.1.4.1.62245.2.1.12.2.2",
        [0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xe6, 0x25, 0x02, 0x01, 0x0c, 0x02, 0x02], 0xff5c;
    OvIs, "OV_Is", UovOvIs, "1.3.9999.9.1.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x01, 0x01], 0xff0a;
    OvIp, "OV_Ip", UovOvIp, "1.3.9999.9.2.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x02, 0x01], 0xff0b;
    OvIsPkc, "OV_Is_pkc", UovOvIsPkc, "1.3.9999.9.5.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x05, 0x01], 0xff0e;
    OvIpPkc, "OV_Ip_pkc", UovOvIpPkc, "1.3.9999.9.6.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x06, 0x01], 0xff0f;
    OvIsPkcSkc, "OV_Is_pkc_skc", UovOvIsPkcSkc, "1.3.9999.9.9.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x09, 0x01], 0xff12;
    OvIpPkcSkc, "OV_Ip_pkc_skc", UovOvIpPkcSkc, "1.3.9999.9.10.1", [0x06, 0x06, 0x2b, 0xce, 0x0f, 0x09, 0x0a, 0x01], 0xff13;
}

/// The OQS scheme of `a`, if the lab has it.
pub fn oqs_sig(a: PkAlgorithm) -> Option<&'static OqsSig> {
    OQS_SIGS.iter().find(|s| s.alg == a)
}

/// Why the lab has no certificates of `a`, for the post-quantum schemes
/// seed 003 ran that are not here.
pub fn why_not(a: PkAlgorithm) -> Option<&'static str> {
    matches!(
        a,
        PkAlgorithm::Snova24_5_4 | PkAlgorithm::Snova25_8_3 | PkAlgorithm::Snova37_17_2
    )
    .then_some(
        "liboqs 0.13 (the lab's source of post-quantum signatures) has no SNOVA (added in \
         liboqs 0.14), and neither OpenSSL 3.5 nor rustls has it",
    )
}

/// rustls' limit on one handshake message (`MAX_HANDSHAKE_SIZE`, a
/// constant in rustls 0.23): a larger Certificate message is refused.
pub const RUSTLS_MAX_HANDSHAKE: usize = 0xffff;

/// Why a rustls server cannot send a certificate of `server`, if it
/// cannot: its public key alone, plus the certificate around it (the
/// subject, the CA's signature and the extensions, at most a few KB),
/// would not fit in one handshake message.
pub fn too_large_for_rustls(server: PkAlgorithm) -> Option<String> {
    let s = oqs_sig(server)?;
    let pk = chain::public_key_len(s)?;
    (pk + 2048 > RUSTLS_MAX_HANDSHAKE).then(|| {
        format!(
            "the {server} public key is {pk} bytes, so the server's Certificate message exceeds the \
             {RUSTLS_MAX_HANDSHAKE} bytes rustls accepts in one handshake message \
             (MAX_HANDSHAKE_SIZE, a constant in rustls 0.23)"
        )
    })
}

/// One (CA, server) pair with an OQS scheme on either side.
pub struct PqChain {
    pub ca_alg: PkAlgorithm,
    pub server_alg: PkAlgorithm,
    pub ca_der: Vec<u8>,
    pub server_der: Vec<u8>,
    #[cfg(feature = "pq-sigs")]
    server_key: std::sync::Arc<chain::LabKey>,
}

impl PqChain {
    /// True when the pair needs this module (an OQS scheme on either side).
    pub fn needed(ca: PkAlgorithm, server: PkAlgorithm) -> bool {
        oqs_sig(ca).is_some() || oqs_sig(server).is_some()
    }
}

/// Every pair of a run: OpenSSL's chains for the pairs OpenSSL can make,
/// [`PqChain`]s for those with an OQS scheme.
pub struct LabCerts {
    openssl: crate::certs::Chains,
    pq: Vec<PqChain>,
}

/// One pair's certificates.
pub enum PairCerts<'a> {
    OpenSsl(&'a crate::certs::Issuer, &'a crate::certs::ServerCert),
    Pq(&'a PqChain),
}

impl LabCerts {
    pub fn make(pairs: &[(PkAlgorithm, PkAlgorithm)], host: &str) -> Result<LabCerts> {
        let (pq, classic): (Vec<_>, Vec<_>) =
            pairs.iter().partition(|(ca, s)| PqChain::needed(*ca, *s));
        let mut chains: Vec<PqChain> = Vec::new();
        for (ca, s) in pq {
            if !chains.iter().any(|c| (c.ca_alg, c.server_alg) == (ca, s)) {
                chains.push(PqChain::make(ca, s, host)?);
            }
        }
        Ok(LabCerts {
            openssl: crate::certs::Chains::make(&classic, host)?,
            pq: chains,
        })
    }

    pub fn get(&self, ca: PkAlgorithm, server: PkAlgorithm) -> Option<PairCerts<'_>> {
        if PqChain::needed(ca, server) {
            self.pq
                .iter()
                .find(|c| (c.ca_alg, c.server_alg) == (ca, server))
                .map(PairCerts::Pq)
        } else {
            let (i, s) = self.openssl.get(ca, server)?;
            Some(PairCerts::OpenSsl(i, s))
        }
    }
}

impl PairCerts<'_> {
    pub fn ca_der(&self) -> Result<Vec<u8>> {
        match self {
            PairCerts::OpenSsl(ca, _) => ca.cert.to_der().map_err(x509_err),
            PairCerts::Pq(c) => Ok(c.ca_der.clone()),
        }
    }

    /// DER sizes of the server's and the CA's certificates.
    pub fn sizes(&self) -> (u64, u64) {
        match self {
            PairCerts::OpenSsl(ca, srv) => (
                crate::certs::der_len(&srv.cert) as u64,
                crate::certs::der_len(&ca.cert) as u64,
            ),
            PairCerts::Pq(c) => (c.server_der.len() as u64, c.ca_der.len() as u64),
        }
    }

    /// Whether a client must verify OQS schemes.
    pub fn pq(&self) -> bool {
        matches!(self, PairCerts::Pq(_))
    }
}

/// Whether rustls (aws-lc-rs) signs and verifies certificates of `s`.
pub fn supports_sig(s: PkAlgorithm) -> std::result::Result<(), String> {
    match s {
        PkAlgorithm::Rsa2048
        | PkAlgorithm::Rsa3072
        | PkAlgorithm::P256
        | PkAlgorithm::Ed25519
        | PkAlgorithm::MlDsa44
        | PkAlgorithm::MlDsa65
        | PkAlgorithm::MlDsa87 => Ok(()),
        other if oqs_sig(other).is_some() => Ok(()),
        other => Err(format!(
            "rustls' aws-lc-rs provider has no {other} signatures (rustls signs and verifies RSA, \
             ECDSA, Ed25519 and ML-DSA)"
        )),
    }
}

/// Why OpenSSL cannot take part in a pair with an OQS scheme.
pub fn openssl_lacks(ca: PkAlgorithm, server: PkAlgorithm) -> String {
    let which: Vec<String> = [server, ca]
        .iter()
        .filter_map(|a| oqs_sig(*a).map(|_| a.name().to_string()))
        .collect();
    format!(
        "OpenSSL 3.5 has no {} (seed 003 added it with the OQS provider, which ango does not \
         load); rustls runs it with liboqs on both sides",
        which.join(" or ")
    )
}
