//! liboqs (through the `oqs` crate 0.11, which bundles liboqs 0.13.0) as a
//! public-key backend: ML-KEM, ML-DSA, MAYO, CROSS and UOV.
//!
//! Every key, ciphertext and signature is liboqs's raw byte string, which is
//! the standard's encoding (FIPS 203 `ek`/`dk` and ciphertext, FIPS 204
//! `pk`/`sk`/signature, the NIST round-2 submissions' byte strings for the
//! others), so keys cross-check with the other backends.
//!
//! - ML-KEM: the secret key is the expanded FIPS 203 decapsulation key
//!   (2400 bytes for ML-KEM-768), not the 64-byte seed. Decapsulating a
//!   tampered ciphertext returns the implicit-rejection secret. For
//!   known-answer tests, `keygen_from_seed` takes the 64-byte d‖z
//!   (`OQS_KEM_keypair_derand`) and `import_secret` the expanded key, which
//!   liboqs's decapsulation rejects (an error, not implicit rejection) if
//!   its stored H(ek) does not match its embedded ek (FIPS 203 7.3).
//! - ML-DSA: pure ML-DSA with the empty context string (liboqs's
//!   `OQS_SIG_sign`). liboqs signs *hedged*: the 32-byte `rnd` comes from its
//!   random source, so two signatures of one message differ (FIPS 204's
//!   default, randomized variant; the test `ml_dsa_signing_is_hedged` checks it).
//! - All the signature schemes here have fixed-length signatures; `verify`
//!   rejects (`Ok(false)`) any other length before calling liboqs.
//!
//! liboqs 0.13 has no SLH-DSA (FIPS 205; only round-3 SPHINCS+) and no SNOVA
//! (added in liboqs 0.14), and no classical algorithms at all.
//!
//! The crate is named `::oqs` with a leading `::` throughout: this module is
//! itself called `oqs`.

use ango_core::pk::{Kem, PkAlgorithm, PkBackend, PkKind, Signer, SizeEntry};
use ango_core::traits::Unavailable;
use ango_core::{Error, Result};
use std::sync::Once;

use ::oqs::kem::Algorithm as KemAlg;
use ::oqs::sig::Algorithm as SigAlg;

const BACKEND: &str = "liboqs";
/// The `oqs` crate's version (it has no run-time accessor for it).
const OQS_CRATE_VERSION: &str = "0.11.0";

const WHY_CLASSICAL: &str = "liboqs provides post-quantum algorithms only";
const WHY_SLH_DSA: &str = "liboqs 0.13 has SPHINCS+ (round 3), not FIPS 205 SLH-DSA";
const WHY_SNOVA: &str = "liboqs 0.13 (the oqs crate 0.11) has no SNOVA (added in liboqs 0.14)";
const WHY_DISABLED: &str = "not enabled in this liboqs build";

/// liboqs's public-key algorithms.
pub struct LibOqs;

/// `OQS_init`, once per process (the `oqs` crate guards it too).
fn init() {
    static INIT: Once = Once::new();
    INIT.call_once(::oqs::init);
}

/// The liboqs version string, from `OQS_version()` at run time.
fn liboqs_version() -> String {
    init();
    // SAFETY: OQS_version takes no arguments and returns a pointer to the
    // static NUL-terminated string literal OQS_VERSION_TEXT, valid for the
    // whole program; it is only read here.
    let v = unsafe { std::ffi::CStr::from_ptr(::oqs::ffi::common::OQS_version()) };
    v.to_string_lossy().into_owned()
}

fn backend_err(message: impl Into<String>) -> Error {
    Error::Backend {
        backend: BACKEND,
        message: message.into(),
    }
}

fn oqs_err(what: &str, algo: &str, e: ::oqs::Error) -> Error {
    backend_err(format!("{what} {algo} failed: {e} ({e:?})"))
}

/// The liboqs algorithm behind a canonical name.
#[derive(Clone, Copy, Debug)]
enum OqsAlg {
    Kem(KemAlg),
    Sig(SigAlg),
}

impl OqsAlg {
    fn is_enabled(self) -> bool {
        match self {
            OqsAlg::Kem(a) => a.is_enabled(),
            OqsAlg::Sig(a) => a.is_enabled(),
        }
    }

    /// liboqs's name ("ML-KEM-768", "cross-rsdp-128-fast", "OV-Is").
    fn name(self) -> &'static str {
        match self {
            OqsAlg::Kem(a) => a.name(),
            OqsAlg::Sig(a) => a.name(),
        }
    }
}

/// Map a canonical name to liboqs's algorithm, or say why liboqs has none.
fn oqs_alg(algo: PkAlgorithm) -> Result<OqsAlg, &'static str> {
    use PkAlgorithm as P;
    Ok(match algo {
        P::MlKem512 => OqsAlg::Kem(KemAlg::MlKem512),
        P::MlKem768 => OqsAlg::Kem(KemAlg::MlKem768),
        P::MlKem1024 => OqsAlg::Kem(KemAlg::MlKem1024),
        P::MlDsa44 => OqsAlg::Sig(SigAlg::MlDsa44),
        P::MlDsa65 => OqsAlg::Sig(SigAlg::MlDsa65),
        P::MlDsa87 => OqsAlg::Sig(SigAlg::MlDsa87),
        P::Mayo1 => OqsAlg::Sig(SigAlg::Mayo1),
        P::Mayo2 => OqsAlg::Sig(SigAlg::Mayo2),
        P::CrossRsdp128Balanced => OqsAlg::Sig(SigAlg::CrossRsdp128Balanced),
        P::CrossRsdp128Fast => OqsAlg::Sig(SigAlg::CrossRsdp128Fast),
        P::CrossRsdp128Small => OqsAlg::Sig(SigAlg::CrossRsdp128Small),
        P::CrossRsdpg128Balanced => OqsAlg::Sig(SigAlg::CrossRsdpg128Balanced),
        P::CrossRsdpg128Fast => OqsAlg::Sig(SigAlg::CrossRsdpg128Fast),
        P::CrossRsdpg128Small => OqsAlg::Sig(SigAlg::CrossRsdpg128Small),
        P::OvIs => OqsAlg::Sig(SigAlg::UovOvIs),
        P::OvIp => OqsAlg::Sig(SigAlg::UovOvIp),
        P::OvIsPkc => OqsAlg::Sig(SigAlg::UovOvIsPkc),
        P::OvIpPkc => OqsAlg::Sig(SigAlg::UovOvIpPkc),
        P::OvIsPkcSkc => OqsAlg::Sig(SigAlg::UovOvIsPkcSkc),
        P::OvIpPkcSkc => OqsAlg::Sig(SigAlg::UovOvIpPkcSkc),
        P::X25519 | P::X25519MlKem768 | P::Rsa2048 | P::Rsa3072 | P::P256 | P::Ed25519 => {
            return Err(WHY_CLASSICAL)
        }
        P::SlhDsaSha2_128f => return Err(WHY_SLH_DSA),
        P::Snova24_5_4 | P::Snova25_8_3 | P::Snova37_17_2 => return Err(WHY_SNOVA),
    })
}

/// The liboqs algorithm for `algo` if this build has it.
fn enabled_alg(algo: PkAlgorithm) -> Result<OqsAlg, Unavailable> {
    let a = oqs_alg(algo).map_err(|why| Unavailable(why.into()))?;
    if a.is_enabled() {
        Ok(a)
    } else {
        Err(Unavailable(WHY_DISABLED.into()))
    }
}

impl PkBackend for LibOqs {
    fn name(&self) -> &'static str {
        BACKEND
    }

    fn version(&self) -> String {
        format!(
            "liboqs {} (oqs crate {OQS_CRATE_VERSION})",
            liboqs_version()
        )
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        enabled_alg(algo).map(|_| ())
    }

    fn implementation(&self, algo: PkAlgorithm) -> String {
        match oqs_alg(algo) {
            Ok(a @ OqsAlg::Sig(SigAlg::MlDsa44 | SigAlg::MlDsa65 | SigAlg::MlDsa87)) => {
                format!("OQS {} (pure, empty context, hedged signing)", a.name())
            }
            Ok(a) => format!("OQS {}", a.name()),
            Err(_) => "n/a".into(),
        }
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn Kem>> {
        if algo.kind() != PkKind::Kem {
            return Err(backend_err(format!(
                "{algo} is a signature algorithm, not a KEM"
            )));
        }
        let alg = match enabled_alg(algo) {
            Ok(OqsAlg::Kem(a)) => a,
            Ok(OqsAlg::Sig(_)) => unreachable!("{algo} maps to a liboqs signature"),
            Err(Unavailable(why)) => return Err(backend_err(format!("{algo}: {why}"))),
        };
        init();
        let kem = ::oqs::kem::Kem::new(alg).map_err(|e| oqs_err("OQS_KEM_new", alg.name(), e))?;
        Ok(Box::new(OqsKem {
            kem,
            name: alg.name(),
            sk: None,
            peer: None,
        }))
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(backend_err(format!(
                "{algo} is a KEM, not a signature algorithm"
            )));
        }
        let alg = match enabled_alg(algo) {
            Ok(OqsAlg::Sig(a)) => a,
            Ok(OqsAlg::Kem(_)) => unreachable!("{algo} maps to a liboqs KEM"),
            Err(Unavailable(why)) => return Err(backend_err(format!("{algo}: {why}"))),
        };
        init();
        let sig = ::oqs::sig::Sig::new(alg).map_err(|e| oqs_err("OQS_SIG_new", alg.name(), e))?;
        let sig_len = sig.length_signature();
        Ok(Box::new(OqsSigner {
            sig,
            sig_len,
            name: alg.name(),
            sk: None,
            peer: None,
        }))
    }
}

/// One liboqs KEM: the `OQS_KEM` object, the kept secret key and the peer's
/// length-checked public key.
struct OqsKem {
    kem: ::oqs::kem::Kem,
    name: &'static str,
    sk: Option<::oqs::kem::SecretKey>,
    peer: Option<::oqs::kem::PublicKey>,
}

impl Kem for OqsKem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let (pk, sk) = self
            .kem
            .keypair()
            .map_err(|e| oqs_err("keygen", self.name, e))?;
        self.sk = Some(sk);
        Ok(pk.into_vec())
    }

    /// Checks the length, then encapsulates once to the key so that a key
    /// liboqs rejects (ML-KEM's FIPS 203 modulus check) fails here, as it
    /// does at import in the other backends, and not in timed `encaps`.
    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let pk = self.kem.public_key_from_bytes(pk).ok_or_else(|| {
            backend_err(format!(
                "{} public key is {} bytes, expected {}",
                self.name,
                pk.len(),
                self.kem.length_public_key()
            ))
        })?;
        self.kem
            .encapsulate(pk)
            .map_err(|e| oqs_err("public key check (encapsulate)", self.name, e))?;
        self.peer = Some(pk.to_owned());
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let pk = self
            .peer
            .as_ref()
            .ok_or_else(|| backend_err("encaps: no peer public key (call set_peer)"))?;
        let (ct, ss) = self
            .kem
            .encapsulate(pk)
            .map_err(|e| oqs_err("encapsulate", self.name, e))?;
        Ok((ct.into_vec(), ss.into_vec()))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let sk = self
            .sk
            .as_ref()
            .ok_or_else(|| backend_err("decaps: no key pair (call keygen)"))?;
        let ct = self.kem.ciphertext_from_bytes(ct).ok_or_else(|| {
            backend_err(format!(
                "{} ciphertext is {} bytes, expected {}",
                self.name,
                ct.len(),
                self.kem.length_ciphertext()
            ))
        })?;
        let ss = self
            .kem
            .decapsulate(sk, ct)
            .map_err(|e| oqs_err("decapsulate", self.name, e))?;
        Ok(ss.into_vec())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self
            .sk
            .as_ref()
            .ok_or_else(|| backend_err("key_sizes: no key pair (call keygen)"))?;
        Ok(vec![SizeEntry::new("secret_key", "raw", sk.len())])
    }

    fn export_secret(&self) -> Result<Vec<u8>> {
        let sk = self
            .sk
            .as_ref()
            .ok_or_else(|| backend_err("no key pair (call keygen)"))?;
        Ok(sk.as_ref().to_vec())
    }

    /// `OQS_KEM_keypair_derand`. For ML-KEM the seed is FIPS 203's d‖z
    /// as is: mlkem-native (liboqs 0.13's ML-KEM) expands the first 32
    /// bytes as d (G(d‖k)) and stores the last 32 as z in the key.
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        self.sk = None;
        let want = self.kem.length_keypair_seed();
        if want == 0 {
            return Err(Error::Unsupported(format!(
                "key generation from a seed ({} in liboqs)",
                self.name
            )));
        }
        let seed = self.kem.keypair_seed_from_bytes(seed).ok_or_else(|| {
            backend_err(format!(
                "{} key-generation seed is {} bytes, expected {want}",
                self.name,
                seed.len()
            ))
        })?;
        let (pk, sk) = self
            .kem
            .keypair_derand(seed)
            .map_err(|e| oqs_err("keygen from seed", self.name, e))?;
        self.sk = Some(sk);
        Ok(pk.into_vec())
    }

    /// Checks the length, then decapsulates once (an all-zero ciphertext)
    /// so that a key liboqs rejects fails here and not in timed `decaps`:
    /// liboqs's ML-KEM decapsulation applies FIPS 203's hash check (the
    /// stored H(ek) must match the embedded ek) and returns an error.
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.sk = None;
        let sk = self.kem.secret_key_from_bytes(sk).ok_or_else(|| {
            backend_err(format!(
                "{} secret key is {} bytes, expected {}",
                self.name,
                sk.len(),
                self.kem.length_secret_key()
            ))
        })?;
        let zero_ct = vec![0u8; self.kem.length_ciphertext()];
        let ct = self
            .kem
            .ciphertext_from_bytes(&zero_ct)
            .expect("the ciphertext has liboqs's length");
        self.kem
            .decapsulate(sk, ct)
            .map_err(|e| oqs_err("secret key check (decapsulate)", self.name, e))?;
        self.sk = Some(sk.to_owned());
        Ok(())
    }
}

/// One liboqs signature scheme: the `OQS_SIG` object, the kept secret key
/// and the peer's length-checked public key.
struct OqsSigner {
    sig: ::oqs::sig::Sig,
    /// The (fixed) signature length.
    sig_len: usize,
    name: &'static str,
    sk: Option<::oqs::sig::SecretKey>,
    peer: Option<::oqs::sig::PublicKey>,
}

impl Signer for OqsSigner {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let (pk, sk) = self
            .sig
            .keypair()
            .map_err(|e| oqs_err("keygen", self.name, e))?;
        self.sk = Some(sk);
        Ok(pk.into_vec())
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self
            .sk
            .as_ref()
            .ok_or_else(|| backend_err("sign: no key pair (call keygen)"))?;
        let s = self
            .sig
            .sign(msg, sk)
            .map_err(|e| oqs_err("sign", self.name, e))?;
        Ok(s.into_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let pk = self.sig.public_key_from_bytes(pk).ok_or_else(|| {
            backend_err(format!(
                "{} public key is {} bytes, expected {}",
                self.name,
                pk.len(),
                self.sig.length_public_key()
            ))
        })?;
        self.peer = Some(pk.to_owned());
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        self.verify_ctx(msg, &[], sig)
    }

    /// `OQS_SIG_verify`, or `OQS_SIG_verify_with_ctx_str` with a context
    /// (for schemes that take one).
    fn verify_ctx(&mut self, msg: &[u8], ctx: &[u8], sig: &[u8]) -> Result<bool> {
        if !ctx.is_empty() && !self.sig.has_ctx_str_support() {
            return Err(Error::Unsupported(
                "verification with a context string".into(),
            ));
        }
        let pk = self
            .peer
            .as_ref()
            .ok_or_else(|| backend_err("verify: no peer public key (call set_peer)"))?;
        // Every scheme here has fixed-length signatures: any other length is
        // invalid, and liboqs need not see it.
        if sig.len() != self.sig_len {
            return Ok(false);
        }
        let Some(sig) = self.sig.signature_from_bytes(sig) else {
            return Ok(false);
        };
        // liboqs reports a rejected signature as OQS_ERROR, which the crate
        // cannot tell from another failure; the inputs are checked above.
        Ok(if ctx.is_empty() {
            self.sig.verify(msg, sig, pk).is_ok()
        } else {
            self.sig.verify_with_ctx_str(msg, sig, ctx, pk).is_ok()
        })
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self
            .sk
            .as_ref()
            .ok_or_else(|| backend_err("key_sizes: no key pair (call keygen)"))?;
        Ok(vec![SizeEntry::new("secret_key", "raw", sk.len())])
    }
}

/// liboqs 0.13 (the `oqs` crate's vendored build) as a provider: its KEMs
/// and signatures.
pub static PROVIDER: ango_core::Provider = ango_core::Provider {
    name: BACKEND,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_version() -> String {
    LibOqs.version()
}

fn provider_entries() -> Vec<ango_core::Entry> {
    ango_core::catalog::entries_of_pk_backend(&PROVIDER, &LibOqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn available() -> Vec<PkAlgorithm> {
        PkAlgorithm::ALL
            .iter()
            .copied()
            .filter(|a| LibOqs.availability(*a).is_ok())
            .collect()
    }

    #[test]
    fn version_comes_from_liboqs() {
        let v = LibOqs.version();
        assert!(v.starts_with("liboqs 0.13.0 (oqs crate 0.11.0)"), "{v}");
        assert_eq!(LibOqs.name(), "liboqs");
    }

    #[test]
    fn availability_and_reasons() {
        use PkAlgorithm as P;
        let want = [
            P::MlKem512,
            P::MlKem768,
            P::MlKem1024,
            P::MlDsa44,
            P::MlDsa65,
            P::MlDsa87,
            P::Mayo1,
            P::Mayo2,
            P::CrossRsdp128Balanced,
            P::CrossRsdp128Fast,
            P::CrossRsdp128Small,
            P::CrossRsdpg128Balanced,
            P::CrossRsdpg128Fast,
            P::CrossRsdpg128Small,
            P::OvIs,
            P::OvIp,
            P::OvIsPkc,
            P::OvIpPkc,
            P::OvIsPkcSkc,
            P::OvIpPkcSkc,
        ];
        assert_eq!(available(), want.to_vec());
        let why = |a| LibOqs.availability(a).unwrap_err().0;
        for a in [
            P::X25519,
            P::X25519MlKem768,
            P::Rsa2048,
            P::Rsa3072,
            P::P256,
            P::Ed25519,
        ] {
            assert_eq!(why(a), WHY_CLASSICAL);
            assert_eq!(LibOqs.implementation(a), "n/a");
        }
        assert!(why(P::SlhDsaSha2_128f).contains("SPHINCS+"));
        for a in [P::Snova24_5_4, P::Snova25_8_3, P::Snova37_17_2] {
            assert!(why(a).contains("SNOVA"));
        }
        assert_eq!(LibOqs.implementation(P::MlKem768), "OQS ML-KEM-768");
        assert_eq!(LibOqs.implementation(P::OvIs), "OQS OV-Is");
        assert!(LibOqs
            .implementation(P::MlDsa65)
            .starts_with("OQS ML-DSA-65 ("));
        assert!(LibOqs.kem(P::MlDsa44).is_err());
        assert!(LibOqs.signer(P::MlKem768).is_err());
        assert!(LibOqs.kem(P::X25519).is_err());
        assert!(LibOqs.signer(P::SlhDsaSha2_128f).is_err());
    }

    #[test]
    fn kem_round_trips() {
        for algo in available().into_iter().filter(|a| a.kind() == PkKind::Kem) {
            let mut alice = LibOqs.kem(algo).unwrap();
            let mut bob = LibOqs.kem(algo).unwrap();
            assert!(bob.encaps().is_err(), "{algo}: encaps without a peer");
            assert!(
                alice.decaps(&[0; 1088]).is_err(),
                "{algo}: decaps without keys"
            );
            let pk = alice.keygen().unwrap();
            assert!(bob.set_peer(&pk[1..]).is_err(), "{algo}: short pk");
            bob.set_peer(&pk).unwrap();
            let (ct, ss) = bob.encaps().unwrap();
            assert_eq!(alice.decaps(&ct).unwrap(), ss, "{algo}");
            let (ct2, ss2) = bob.encaps().unwrap();
            assert_ne!(ct, ct2, "{algo}: encaps is randomized");
            assert_eq!(alice.decaps(&ct2).unwrap(), ss2, "{algo}");

            let mut bad = ct.clone();
            bad[ct.len() / 2] ^= 1;
            let rej = alice.decaps(&bad).unwrap();
            assert_eq!(rej.len(), ss.len());
            assert_ne!(rej, ss, "{algo}: implicit rejection");
            assert!(alice.decaps(&ct[..ct.len() - 1]).is_err(), "{algo}");
            let mut long = ct.clone();
            long.push(0);
            assert!(alice.decaps(&long).is_err(), "{algo}");

            let sk = alice.key_sizes().unwrap();
            assert_eq!(sk.len(), 1);
            assert_eq!(
                (sk[0].object.as_str(), sk[0].encoding.as_str()),
                ("secret_key", "raw")
            );
        }
    }

    #[test]
    fn ml_kem_sizes() {
        for (algo, pk_len, sk_len, ct_len) in [
            (PkAlgorithm::MlKem512, 800, 1632, 768),
            (PkAlgorithm::MlKem768, 1184, 2400, 1088),
            (PkAlgorithm::MlKem1024, 1568, 3168, 1568),
        ] {
            let mut k = LibOqs.kem(algo).unwrap();
            let pk = k.keygen().unwrap();
            assert_eq!(pk.len(), pk_len, "{algo}");
            assert_eq!(
                k.key_sizes().unwrap(),
                vec![SizeEntry::new("secret_key", "raw", sk_len)]
            );
            k.set_peer(&pk).unwrap();
            let (ct, ss) = k.encaps().unwrap();
            assert_eq!((ct.len(), ss.len()), (ct_len, 32), "{algo}");
        }
    }

    #[test]
    fn ml_kem_set_peer_checks_the_modulus() {
        // FIPS 203 7.2: an encapsulation key with a coefficient >= q is
        // rejected; liboqs does it in encaps, so set_peer sees it.
        for algo in [
            PkAlgorithm::MlKem512,
            PkAlgorithm::MlKem768,
            PkAlgorithm::MlKem1024,
        ] {
            let mut k = LibOqs.kem(algo).unwrap();
            let mut pk = k.keygen().unwrap();
            pk[0] = 0xff;
            pk[1] |= 0x0f;
            assert!(k.set_peer(&pk).is_err(), "{algo}");
            assert!(k.encaps().is_err(), "{algo}: no peer kept");
        }
    }

    /// Wycheproof `mlkem_768_test.json`, tcId 1 (valid): the seed d‖z.
    const KEYGEN_SEED: &str = concat!(
        "cbfc4405d1b2a3a386c94c25e0f2d5f5ee92cb0388ff4d6aa04223086d51c3fd24752da14c9fc3b8",
        "ae0d9e4a8b1016b8d8fc69e229c03ea2ef08a4ae0cffc37f",
    );
    const KEYGEN_EK: &str = concat!(
        "8b9a7354e8c1c17a9898f96caf99bba1c625ae0983c4d26e60c12f59bc25d756182b17979e713fff",
        "129e6c336a2317770380858129cb91a902ea5455ca076c20e4158f393aa2783053d8acf92c3286a1",
        "0436d72af3e8903ce22f8cbab18b1309aca205aa8a3da45807e5b60e6967a640a713a5b81b0d82bc",
        "406934e3c88910cc06f09a68bce991009bb56ae233296218ff5baf1f475390b8b7494a4e08364598",
        "5437f2495a073222fea058e1672034151a2e14c2cbcb4ad9068c8e7bcb02886c4087c14bd8823ec6",
        "6393fb2e12326b38e655dcab1c13cb2931358715c8be5153293229cc994a5702b7295a6a4a73249a",
        "c5a30a32a6b91dca768c177d8fa59054e548bee40257db6962a83b64ec6de0d3be7b1812c5d99e7a",
        "38cf54eaa8413aa0bd02bf374461f29c2b6aea56f7d33e10dbbc75bb1bf6b555213aac33e652443a",
        "186a618b6e9a293919693f1673ea159d0ee52c92d53e9a5cbd5f4c44419b5493f0286efcb9b5a2ad",
        "56a713c4f61ed431aa987805a90475391ccd4c7a28d884bf1a926b7675b9208897a89a6384c154ac",
        "ca3521c32a994949b2e80b2ff2518c0bbd34184cda443de498a05dfba9ce701bb914179a0188be0b",
        "cda6fbc2cd93afb042481b4a84d821160a1b0ade8bcb97dbaf681547cce0bca674151a261a21aa04",
        "fda318c921c38425b775b995cd7b4eb6369f0b211da186594de815fa3b53a68043e1946468a5899b",
        "90578ad49397306f71acab67c258fa17a31893b72d22151ce1afee150fe550bffde8a24fe4740dd4",
        "3f387c7ad20b5cca5997879536c3071574901147727341c1a6fc8043e6454903e88217f0c92b9a4a",
        "c54a86e7909390878a35ba18c1e26b13049f41c522bc049d74db6f76caba39f23d8f07abc26a07a1",
        "caba71cb5c12fbc20a715450b2228d17b2ba985cfe2496b033b55f300baf992964388a5422298f62",
        "7ba567730ddb03a195806a5c23a1d315481c52814b0681ea3c804b02c90688c2fbbce9b17d230a42",
        "f8b865417c9e93347f5ff624879962747c7eed886acd48a994b22064ca499c69aa4825be60260d12",
        "f63102799828b3ccebaa4340b749605017eb4598ff13a634500a48470de9078a34106267d25a0b14",
        "4d8cdb1a4d527692153da013c0ab27ae2ca955e7c66238746022d50630892933a05c283a9f4c00c9",
        "f984646f75471081722ed3404ce60fed4a06702b8728b62d920b3224206ab0a4694f9c18e3162b52",
        "9c16af04b87b4a61cd53a757906d67a139629585d423a3b0986f29c95984e2095ea4608784b0b31c",
        "20cbc36cfd60b773389fe5a8c0958211a35b2c45f21f51a08693c19bfc388c2d677a214ccc5a7cb0",
        "b67030fd6987503c91b0f2646985a9048489dd882bd4141f5419554eb738fa7333c5c57a4ce5541f",
        "d6b8ad454c2dea67ad1c6f848c0a44a1872e40a17d987075d762ba5aaa21d435dd079b989a8ee21a",
        "2ce898934a98a02d5b381c302a2d76948fa65de15666f57750d580ae1a541c700692dd0b0a6799b5",
        "cdb893413bb89bb65182f219a4bc3c80b43bb591bcd05ac6e9a366552558ed5c5fbe7b4acfc7b233",
        "72094f6a87f26c0c46646c55a888871324fea7536e586a5149b9b707c86ea076486a6822b9bbf59f",
        "bfcaedc13284b9813cabdd526e326a6832d3b36efc3102ef",
    );
    const KEYGEN_C: &str = concat!(
        "00e96c44eb5f5380d80b4cb05d608971a28fbe838b912b558bf9676c6c67c9692ed6ea063fc47b70",
        "d5d6004825c269b9cb8e68b5728d67f44844d97686a11154e3cbd4a6f9e47524d93d851bdce480d7",
        "762ded09be53d17cce3ee28dc5a06911c062b99b218355dd5822108c55e2c67f7ea0b74b6189b33b",
        "4589d8ff9d0c867d13edaaf1c5f724675320beda3e6acc673c048fa04a1b30f899227d5a555e08a4",
        "12a47b7db75eb118a8844a71b186880426f6bb6e77186d18e753cbcce93c9fb76c729875b4d473ee",
        "ca8dab9941969faef04df9ce3178e7341eab416d28bb7aee12bfb8f4c3df814eff45a0187329079a",
        "cfc41a8e8dba7b08d111f02e37a1d2b69e57eef808fcc6ae23385534a420a93dfb6a95c73e2f1016",
        "177c4fe9d3ced769e277293aaceded6d07efc7890eaa885bd1e73f9e5da2b9cfda0d44cbc9090705",
        "ac2ce3e7bcd7775b593c706e45ddc97d3a65d9b7e73673f9473df5bfec689671f73e7f6ee77c730a",
        "8ebda1f0b2c112a71904d6f28a51d8d479f8323fb485e722f5c4d5857e95989a9cbaf273efd04fc3",
        "cbde98baa9969e095e88accecfbd12ef2155497a5b15fe91a70d1106b91a568363bfc2d6736cc813",
        "8cbc41ddf1e54fd40511e27d89e2c26c027b63c156e2bbb998faaed3d72186f0cc626dad39a782dc",
        "da2087fd13a9498e10b41b685646a227ea1166a5632c195983f4aba2b718b4074030d57126d34c38",
        "349892007acbea9e393b967dc3146b270f080a1f0bee90d65a095a6352a7718ed1717a8025a2bd38",
        "c66d120baf4247676a1fe044a57ce268c078f8ff46cc26fe4f9c7a03d6467adacb8418d26273662b",
        "ce1f7bc00b906e0088e95dc0fb419e2232e85aac77b9e7cd563e604de5e1d3e9693dcd3b19865cf4",
        "250773691e7e0af9c2755cd31f49d1f96708f3ba2f0b98184525abb869e12d5cea0ac1740181a875",
        "035300b05a54b8d42ee3b4ae92b06e43cd807e2b096c977f23c61ef8c989c52ed83754076dea1323",
        "f639250bef61bdf903bf7961cec89ba6942d9d0647ac9c8195d93ed8abcedf25754644035719a5a0",
        "a1c8c0798912726a9a8258e4c10ae7485322ed9ba331f6f090c4b492a4fcf53d753cd34f28ec0443",
        "fce0724f43c89a3942169d5099a8f7430f38691ebce2e3fe4f600d82c7ccedf60673f8e5d4c1a9f8",
        "4b8b5b23f5ed63defb6a7205e0a8b105bdc6ff4568fc78cb4456b02fedb7f4c48f6fd6b69216a331",
        "9821039db40e19a31a0b0c9d471d5a7a73865d26f8be3595525b1ec4a8579efd07ea98e2602e2bff",
        "dfd8febc5c7b4c736d326b5030ccc6faf9420a9c156a8f4516b9fff675459dfdcd4ef85d7adbdffd",
        "60f4a39628e399cc752c2e99ab2f431dc765e7c9d206bfe32649fbef4ef48b1d7936fc74766d7243",
        "50ee2245a8d5f23fbc6c7ed8b57168ce1e864e49d7f8c475dcda140bd42473825b3c72eb8c547801",
        "88813011e1962a503f9b516e13226de6375b204733b0192183c8f55e870e61cf8947c3191790bc0b",
        "657bc43aebc9d86c",
    );
    const KEYGEN_K: &str = "76c10bb1d86d96d7eb18e298363e51f7728e113f455df7d15017940ed3541451";
    /// Wycheproof `mlkem_768_semi_expanded_decaps_test.json`, tcId 1 (valid).
    const DECAPS_DK: &str = concat!(
        "79aa9d810589b8e80bc0799bf1eb8b866a6b5c8bbf99881be0025eb98902d282b432bb5174bc4e56",
        "6b6cf8dbca18ca9a5894c589331fb1361625977d1f9210e8db618fd1c12a999d3ed2907270761d8a",
        "88262c696e9c6b08b7950d9171e2409fceba0ce0e54776532a3750c6126728fa364df2118f6497b9",
        "a6a68694b99ce4715935a57e02ec2103dc64efa0cae986b6dc78a01fb712c549b795c14540e3a65e",
        "fb6f77566835dcccb89449ca0b192909cc97fc33c995cad7694cdb819ed807afe32b182d5c45da0b",
        "1c26b73abaa3ba870cb73baaa86b1027a9d973df15b0d6cca7e1bc40cb017c571c709e8cad89c8b5",
        "2db10afc164efa45029686746e8913b13ab234e4529303580f0653f80514f938951e1b964b769c13",
        "ab01373aad41d8ba0df3589b1338bde96e73e187b425310b48c9a6e948916703f116978ef9698b09",
        "1307d9a7c8052cd6487d82720524b0b8ee5a8924d630feba52cd79c0f3973adc10b40f24695b5701",
        "8a66acae33782bb2344afc877e8c81b8598d1835503e8a84a58c134336b3b7083407756053474456",
        "a43dd0b5c3e14aad8dba324e6c8e2aca55c566a4d62b7450e6bdb8a13c1a47c22b863b37d1c74b39",
        "99be70ca9b34677740b13d0469db433d71805a4c78686cb231bfc66868721335ea5fe787917f450d",
        "6a456f3fcac3b5e79c9fa68b4aa2b9b85c3509da787c31551565402802aceaf99bda268a1ca4435d",
        "1a9801380d8cabb45aa7204e5678de9c1b4293ab8435a90d60bda5c2c5b560cbfe19a0268ab1c298",
        "85c25c2e9f4354602464160017e5447a5c5407fb212faca62dbae54aed7b553ae22143e20e74b02b",
        "2612ccf3a45e23b43b16b8c5dd666bb1cc681d947ab3c80da0665ace802b74894a4f19617ce68273",
        "67666117a71b0c6d2d4561ad627521c9035b49a353d2c42dbc484ce833ddd1877d04b4174041d985",
        "b16c0c6a9193b35fa66d559a7bcfe28a17415f002c89fba47ee033085ce14241d825fc22486e804d",
        "07fa59fb41072c64b73d9b8d3d3a81cce787bcb05b893b36c6d38f211996e2fcbeef29af07cc1b54",
        "f7c829a4cbdbf07390d31ef3a25870486e97b15454386a5ae712bbf3ada33622001748c2211b73e5",
        "80e0677d5d7aab732c0c570a7083b6aa19a51f87030253689d6ada6f374370938c5fd78c0f10d74c",
        "3563757f4a7ba29193ce2a472e4205c9272f7ad7bb83dcbaf120a156194f798cb080429971c6728f",
        "127f8a089cde945a1a3111c9a27784d87384513931934a224595657268ed875d820917bc42b2d707",
        "49b270532a2294167cc4ac8ba83302a08b67167b3284d456aa0937385968cd4eb96b4ae79f54db1e",
        "5194915ed03d307c25dcd00595f710272519c8636a6f883cb6599e23da1f45f41e853684b1dc72cd",
        "f430fd1308535577ae3a7e84054e517160842635a0699ebf2970305c39bad1cb338164f5b1239837",
        "a389998a459b9290c11d54b8448596721386b7dd190b4a24a7f9b97eb9c7188f57008043754c4883",
        "f2e42e9e6c579442152e500c9480a1d9bcc0773b0fffd484c9078d46c30dfc74b8a7a17f799a1ea3",
        "8554298ca224a0c4e976161fe7115ab55add0cbabaf0361fa355ca39001f3104254a797885c63b14",
        "40aa389c65340ef33520cc039aa8d749ae7095ba8485a2444f80700741327c363a457b8538b13b6e",
        "d6f13c29b232518c704e1286a74867d3aab607295d1a7483876593dce803b1fa42656cbb535531d3",
        "b76d18f930f3d19df4a02d4c6888d5596b3fb382257a41e3e252eb4865d9105e87d7888f643485f5",
        "b300bd755e2705e9d366c73786eda71d10b1516461c8d1cb91cf9721498672128c935e04512e0722",
        "3772b806871123b08c4059a7a75415c4ba85fd07603d38613e01b9867203c3a12a19f84efb9b8e69",
        "7b3581455833cc48439533520cad13bbb01171863641b32e2231f8870e50655b9c258cb547ada7d7",
        "8722acce5a89cbbbdb16273c776c76a453aa7a1e93a1035094e9fb5f7909755671384141cfc2680f",
        "4f7751f9a1c1dfb7b9e563581eb9752555b1ab1865a7690123664a6e560f8407bef86bc4da18c008",
        "c6864a4758bca62da5a18baa331c897b49fcb02c2b471521632f59f1cf03166862b124a1ac3581f3",
        "bf8a351ec79c87428463364b0b3bd15d359760d9ab8fabb17be9078741a1a29afc5aa478772ecb3e",
        "33e0b081195c12e5c159434d29bc29ab120d6d184e116846da879b6bf8a9b96702612613a9aa214e",
        "4ba2b7b1ba7fb408d1541d8983b50a0cbb4e08467f3572c49b4dc82aa4a11aa26a850970689b4ee9",
        "aa9487b60ed65362571785b44c3dec3282b9897843a68c437a2c381b66095fff79597ff107cdcb18",
        "13b100eda23dbdf6a239f404b48a57da66234ba7c070f569f0f8b9e125ac888707f1707d2b456289",
        "3a27e4dc5ba91b72b65b7357ba5c3c339fea9c3e78b421f431c314421e51176834e59e2b899a99c3",
        "8e484792d3bc2873e87842d3c55f684a4a940c6a63a2a168a3eb3368fbe83f8de53524e787c18242",
        "1ab28617b120d00978111bb58e01b0efb463d3eb769fc66e4a59b94af6a7abe454e960ae3e0b3b4e",
        "6b913bb73ffc7b2b345377b9251bc6613a74d01877541b8cc3138f299a6f2728aaeb89c5d208a347",
        "1f71a8864a9bcc530580251a6741535a62d8a0e171812bf98846a2840570499db41932640488487b",
        "108c72d42b7a7dc544b971a32fda8066769cb4700905e2265b7a4370d8c03ee27f8c1976a499c134",
        "c82512413778f884b1771a9e7987321890c64aa19cd78f4d1923f5949448048fa5e7135a9343db66",
        "91e6b18056779044667115fbc1443b6e74a923279586cf27629ae285ca100e1062ccf56c96b9d720",
        "eda92e81b8ae1994a508588a50330f73d46f998199f738701146a4ddb41e785c988fc51eb71b8e49",
        "275b7f7ba5e59300ae12ca0fd152d039c76df0526ce34dbeaba17d11a6b0060ca61401cec35fe9b1",
        "75e27517a41c4b8a07056fc10ec6f62677f62b76840bd91a9520c4a819c83d80430941247a596462",
        "96ccbea7dc1ab30170de38624e8a33b4c2ba2dc97bf73a71d9ac35a480a83f1bb1e1c4777409d0a0",
        "65782a1a707b068d4bf2205101202fcbc71ab94b2929cb44e2c547ec10b5a72d8c8759fb2920adc8",
        "0b85713975414b7b20b983e848d3a0c3bc433bbf26b700a1a40322a84de5c87eb9877ad68abe9886",
        "f7db6989964002ea566cc616463b17e0e783e5a96217a2006d3ae406763c50457d1481402aafc7e2",
        "3f43f9d1d7c0af7060ac1daa9ecb0e6707f81a8b0e266a3ee92d3a63cdae5cff921905544c9dd797",
        "a849e1d054180eca0000000000000000000000000000000000000000000000000000000000000000",
    );
    const DECAPS_C: &str = concat!(
        "1708d1877e99d8910d48df9625973d7954e187b29405a4ccad6d287becda31215debb762add5881c",
        "f7af0dc6deaac229e8716e64058785680ef96baf05a51ffcd7f969214f07ad69e3ea71ba334b3cf0",
        "aafb010f902df78a459a3311806c095141f341578ce44dc5b2068708f06df7632dfdee9c862ba2a4",
        "6fe5d4cdf01a234998c43fad4d861ab3db4befab842f070413545ac1a46f9a144360954c73c4e7a5",
        "befe51c41e10600ec723a25f602888cb2834c6e2b9543863d1e8789d011608e139f1b6f88d59d74a",
        "5a73fe5748b500554db2dd232e6f8b12b0016a4bf6c795542a73408553d4fdecb1180cd4e7f0adfb",
        "3a882e17953eac46ba59798fc6bec1fd5c64d458b693427f8b878b5024d284244887a1901cb3f2ae",
        "ff996fb9179cc141bd140d20cb8ad6f43849582fb80aabdfca969dbb75a5cc8f2a27b1b562dc52da",
        "9b4caa479bf0676718245eb0889ce3eec4e209b0de3ac318e080e3e78917e836161bc6a392f869b2",
        "34fcf2ff74b6170cb4180816b476dc08f174a2502af1b02f027e28b562b336410868399fe3b16aa8",
        "119cebbcc3c82cbdbfb3048a2c16eabc27d685a37f8764e097958ea04bd89b085eac32fa292dd388",
        "7b3a51d5a79fa0e98922201a30d798b3701edd119515662d2ce03b9f95a527432c70594ff4763b52",
        "807b6f330c8371304ff31693a80265e3e746ac8a5b604671422f60652e794f3216adc6aaabd11e74",
        "eb48eb17f4e9dc32c5d7045b47fa107ce17457a21bceb57981b227456ff4b17c08a98c9e560a3883",
        "a20bbdc2a07d535c666b1ac85e23bfe7694ae185e25f1311ef9f52227f107d199258266189ed3010",
        "380e8ab8a2f819eff5e0063be138fd3e73299fb78bd61a6846322b9f76391dcf5eb8b7fb09504721",
        "74e0d95c4ee294a03c8901a4cf8716ebb1f86eec56f48daf5c0dc4a2b3e99fc9fc8c1fdd1dea4681",
        "aca7a3a769de0fe815d5729ce7f5c0e443d096570e8439ec69998878103546a469b10f5763dced2d",
        "68a6e801953d22b881d343bc755fc87e9b921984f9f5c588fe372816c82ef6193aae99f56ad6a498",
        "434058d3005cc70f9db222e3e61d5a1533f919f78130c653a5d77509657ce010b4327c3b10974ae7",
        "b7f60d7236ee00fe99e841b840c8d2fbaed2918e8c3cefdc8cb359790217335820c60e1ad80a79e3",
        "e7ce7298db9cb7b17337fe7f93b34d132af1e23e89a2bb142fbb72ad8209125edc610b89afef33e7",
        "f63d146f5e76abd6fc519ba662c34f16bd325fae403c35d0458d77035382e1a1980e12823c20363d",
        "db5c776a4d9358f57ef287522cfa2f12092447e7aa91f09de74377b83db250506ff8d278e028c24a",
        "bae0397e8b8394da66bdba138aea35a06a740b4d9879c5dea207faa3a1f5001fc6bc2a5b31d88033",
        "8dc3c50e3a17f36de19e580c98cdfdddc0bd3bfd5b4331b8205a9b7c90fb0995573fc49f86d45a85",
        "cb105f79954844236acc7e72e9b42fbcffce53edb4fbd767eb8b4eda3a77d6b8036edd883189da22",
        "7ecafeaea0d49a31",
    );
    const DECAPS_K: &str = "b4d29cd55bab43e16554b74b9098cdfce583996c968bcd2cfd1ad9455e351fbf";

    fn hex(s: &str) -> Vec<u8> {
        assert_eq!(s.len() % 2, 0);
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn ml_kem_768_keygen_from_seed_wycheproof() {
        let mut k = LibOqs.kem(PkAlgorithm::MlKem768).unwrap();
        let seed = hex(KEYGEN_SEED);
        assert_eq!(k.keygen_from_seed(&seed).unwrap(), hex(KEYGEN_EK));
        assert_eq!(k.decaps(&hex(KEYGEN_C)).unwrap(), hex(KEYGEN_K));
        assert_eq!(
            k.key_sizes().unwrap(),
            vec![SizeEntry::new("secret_key", "raw", 2400)]
        );
        // Deterministic: the same seed gives the same key again.
        assert_eq!(k.keygen_from_seed(&seed).unwrap(), hex(KEYGEN_EK));
        // A wrong seed length is an error and leaves no key pair.
        for n in [0, 32, 63, 65] {
            assert!(k.keygen_from_seed(&vec![7; n]).is_err(), "{n} bytes");
            assert!(k.decaps(&hex(KEYGEN_C)).is_err(), "{n}: no key kept");
        }
    }

    #[test]
    fn ml_kem_keygen_from_seed_all_sizes() {
        for (algo, pk_len) in [
            (PkAlgorithm::MlKem512, 800),
            (PkAlgorithm::MlKem768, 1184),
            (PkAlgorithm::MlKem1024, 1568),
        ] {
            let seed: Vec<u8> = (0..64).collect();
            let mut a = LibOqs.kem(algo).unwrap();
            let pk = a.keygen_from_seed(&seed).unwrap();
            assert_eq!(pk.len(), pk_len, "{algo}");
            let mut b = LibOqs.kem(algo).unwrap();
            assert_eq!(b.keygen_from_seed(&seed).unwrap(), pk, "{algo}");
            let mut other = seed.clone();
            other[40] ^= 1; // z only: the same ek
            assert_eq!(b.keygen_from_seed(&other).unwrap(), pk, "{algo}: z");
            other[3] ^= 1; // d: another ek
            assert_ne!(b.keygen_from_seed(&other).unwrap(), pk, "{algo}: d");
            b.set_peer(&pk).unwrap();
            let (ct, ss) = b.encaps().unwrap();
            assert_eq!(a.decaps(&ct).unwrap(), ss, "{algo}");
            assert!(a.keygen_from_seed(&seed[..63]).is_err(), "{algo}");
        }
    }

    #[test]
    fn ml_kem_768_import_secret_wycheproof() {
        let mut k = LibOqs.kem(PkAlgorithm::MlKem768).unwrap();
        let dk = hex(DECAPS_DK);
        k.import_secret(&dk).unwrap();
        assert_eq!(k.decaps(&hex(DECAPS_C)).unwrap(), hex(DECAPS_K));
        assert_eq!(
            k.key_sizes().unwrap(),
            vec![SizeEntry::new("secret_key", "raw", 2400)]
        );
        // The same file's invalid tests 2-7, derived from test 1.
        let c = hex(DECAPS_C);
        // tcId 2, 3: ciphertext 1087 or 1089 bytes.
        assert!(k.decaps(&c[..1087]).is_err());
        assert!(k.decaps(&[&c[..], &[0]].concat()).is_err());
        // tcId 4, 5: dk 2399 or 2401 bytes.
        assert!(k.import_secret(&dk[..2399]).is_err());
        assert!(k.decaps(&c).is_err(), "no key kept");
        assert!(k.import_secret(&[&dk[..], &[0]].concat()).is_err());
        // tcId 6: the stored H(ek) altered (dk[2336] ^= 1).
        let mut bad = dk.clone();
        bad[2336] ^= 1;
        assert!(k.import_secret(&bad).is_err(), "hash check");
        // tcId 7: the embedded ek altered (dk[1152] = !dk[1152]).
        let mut bad = dk.clone();
        bad[1152] = !bad[1152];
        assert!(k.import_secret(&bad).is_err(), "embedded ek");
        assert!(k.decaps(&c).is_err(), "no key kept");
    }

    #[test]
    fn ml_kem_import_secret_round_trips() {
        // A key from keygen_from_seed survives export and import; a key
        // whose stored H(ek) is altered is refused by liboqs's decaps.
        for algo in [
            PkAlgorithm::MlKem512,
            PkAlgorithm::MlKem768,
            PkAlgorithm::MlKem1024,
        ] {
            let Ok(OqsAlg::Kem(a)) = oqs_alg(algo) else {
                panic!("{algo}")
            };
            let raw = ::oqs::kem::Kem::new(a).unwrap();
            let (pk, sk) = raw.keypair().unwrap();
            let (ct, ss) = raw.encapsulate(&pk).unwrap();
            let sk = sk.into_vec();
            let mut k = LibOqs.kem(algo).unwrap();
            k.import_secret(&sk).unwrap();
            assert_eq!(k.decaps(ct.as_ref()).unwrap(), ss.into_vec(), "{algo}");
            let mut bad = sk.clone();
            let h = sk.len() - 64;
            bad[h + 31] ^= 0x80;
            assert!(k.import_secret(&bad).is_err(), "{algo}: hash check");
            // The raw liboqs call reports it as OQS_ERROR.
            let bad = raw.secret_key_from_bytes(&bad).unwrap();
            assert!(raw.decapsulate(bad, &ct).is_err(), "{algo}");
            assert!(k.import_secret(&sk[1..]).is_err(), "{algo}: length");
        }
    }

    #[test]
    fn signatures_sign_and_verify() {
        let msg = b"ango liboqs signature test message".to_vec();
        for algo in available().into_iter().filter(|a| a.kind() == PkKind::Sig) {
            let mut s = LibOqs.signer(algo).unwrap();
            let mut v = LibOqs.signer(algo).unwrap();
            assert!(s.sign(&msg).is_err(), "{algo}: sign without keys");
            assert!(
                v.verify(&msg, &[0; 96]).is_err(),
                "{algo}: verify without a peer"
            );
            let pk = s.keygen().unwrap();
            assert!(v.set_peer(&pk[..pk.len() - 1]).is_err(), "{algo}: short pk");
            v.set_peer(&pk).unwrap();
            assert_eq!(
                (s.public_key_encoding(), s.signature_encoding()),
                ("raw", "raw")
            );

            let sig = s.sign(&msg).unwrap();
            assert!(v.verify(&msg, &sig).unwrap(), "{algo}: valid");
            assert!(
                v.verify(&msg, &s.sign(&msg).unwrap()).unwrap(),
                "{algo}: again"
            );
            assert!(
                v.verify(b"", &s.sign(b"").unwrap()).unwrap(),
                "{algo}: empty msg"
            );

            let mut m = msg.clone();
            m[3] ^= 0x10;
            assert!(!v.verify(&m, &sig).unwrap(), "{algo}: flipped message bit");
            for pos in [0, sig.len() / 2, sig.len() - 1] {
                let mut bad = sig.clone();
                bad[pos] ^= 0x01;
                assert!(
                    !v.verify(&msg, &bad).unwrap(),
                    "{algo}: flipped sig bit {pos}"
                );
            }
            assert!(
                !v.verify(&msg, &sig[..sig.len() - 1]).unwrap(),
                "{algo}: truncated"
            );
            assert!(!v.verify(&msg, &[]).unwrap(), "{algo}: empty sig");
            let mut long = sig.clone();
            long.push(0);
            assert!(!v.verify(&msg, &long).unwrap(), "{algo}: extended");
            let garbage: Vec<u8> = (0..sig.len()).map(|i| (i * 131 + 7) as u8).collect();
            assert!(!v.verify(&msg, &garbage).unwrap(), "{algo}: garbage");
            assert!(
                !v.verify(&msg, &vec![0; sig.len()]).unwrap(),
                "{algo}: zeros"
            );

            // Another key pair's signature does not verify.
            let mut other = LibOqs.signer(algo).unwrap();
            other.keygen().unwrap();
            assert!(
                !v.verify(&msg, &other.sign(&msg).unwrap()).unwrap(),
                "{algo}"
            );

            let sk = s.key_sizes().unwrap();
            assert_eq!(sk.len(), 1);
            assert_eq!(
                (sk[0].object.as_str(), sk[0].encoding.as_str()),
                ("secret_key", "raw")
            );
        }
    }

    #[test]
    fn signature_sizes() {
        use PkAlgorithm as P;
        for (algo, pk_len, sk_len, sig_len) in [
            (P::MlDsa44, 1312, 2560, 2420),
            (P::MlDsa65, 1952, 4032, 3309),
            (P::MlDsa87, 2592, 4896, 4627),
            (P::Mayo1, 1420, 24, 454),
            (P::CrossRsdp128Fast, 77, 32, 18432),
            (P::OvIs, 412160, 348704, 96),
        ] {
            let mut s = LibOqs.signer(algo).unwrap();
            let pk = s.keygen().unwrap();
            assert_eq!(pk.len(), pk_len, "{algo}");
            assert_eq!(
                s.key_sizes().unwrap(),
                vec![SizeEntry::new("secret_key", "raw", sk_len)]
            );
            assert_eq!(s.sign(b"size").unwrap().len(), sig_len, "{algo}");
        }
    }

    #[test]
    fn signatures_have_the_fixed_length() {
        // `verify` relies on it.
        for algo in available().into_iter().filter(|a| a.kind() == PkKind::Sig) {
            let Ok(OqsAlg::Sig(a)) = oqs_alg(algo) else {
                panic!("{algo}")
            };
            let want = ::oqs::sig::Sig::new(a).unwrap().length_signature();
            let mut s = LibOqs.signer(algo).unwrap();
            s.keygen().unwrap();
            for msg in [&b""[..], b"x", &[0xa5; 1000]] {
                assert_eq!(s.sign(msg).unwrap().len(), want, "{algo}");
            }
        }
    }

    #[test]
    fn ml_dsa_signing_is_hedged() {
        for algo in [
            PkAlgorithm::MlDsa44,
            PkAlgorithm::MlDsa65,
            PkAlgorithm::MlDsa87,
        ] {
            let mut s = LibOqs.signer(algo).unwrap();
            s.keygen().unwrap();
            assert_ne!(s.sign(b"m").unwrap(), s.sign(b"m").unwrap(), "{algo}");
        }
    }
}
