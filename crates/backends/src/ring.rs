//! ring (rustls' other provider): AES-128/256-GCM and ChaCha20-Poly1305
//! through `LessSafeKey`, Ed25519 and ECDSA P-256 through `signature`.
//!
//! How each call reaches the library: `seal_in_place_separate_tag` encrypts
//! the buffer in place; `open_in_place_separate_tag` decrypts in place, so
//! the ciphertext is first copied into the output buffer (a timed open must
//! start from the ciphertext every call; OpenSSL's out-of-place call does
//! the same work without it). ring verifies through `UnparsedPublicKey`,
//! which parses the public key on every call: it has no prepared form, so
//! `timing: operation` and `api-call` time the same call.
//!
//! X25519 runs through `agreement`: a key pair is an
//! `EphemeralPrivateKey`, which `agree_ephemeral` consumes, so each key
//! pair decapsulates once (as a TLS client's does) and decapsulation is
//! checked but never timed; key generation and encapsulation (a fresh
//! ephemeral key and one agreement) are timed. Known-answer tests give ring
//! a Wycheproof private key through its test RNG (`ring::test::rand`,
//! deprecated and hidden, used for nothing else): ring has no import of an
//! X25519 private key. RSA is verify-only (ring makes no RSA keys): RSASSA-
//! PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt
//! (`RSA_PSS_2048_8192_SHA256`), the key taken from the SubjectPublicKeyInfo
//! other providers hand out; its checks and timings verify key pairs and
//! signatures made by another provider, named in each record.
//!
//! What ring cannot do here, each said in `ango list`: AES-CCM, AES-CTR/ECB,
//! ChaCha20 and XChaCha20-Poly1305 have no public API; and ring picks its
//! code by CPU with no switch, so `--hw off` is not offered.

use crate::{LESS_SAFE_KEY, LESS_SAFE_KEY_LENGTHS};
use ango_core::{
    Aead, AeadLengths, Algorithm, Backend, Cipher, Entry, Error, Hw, PkAlgorithm, PkBackend, PkKind, PkOp,
    Provider, Result, SizeEntry, Unavailable,
};
use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey};
use ring::agreement;
use ring::rand::SystemRandom;
use ring::signature::{self as sig, KeyPair as _};

const NAME: &str = "ring";
/// The exact version Cargo.toml pins (`=`), so this string cannot drift.
const VERSION: &str = "ring 0.17.14";

provider_errors!(NAME);

pub struct Ring;

struct RingAead(LessSafeKey);

impl Aead for RingAead {
    less_safe_key_seal!();

    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        LESS_SAFE_KEY.open(NAME, nonce, ct, tag, out)?;
        let n = Nonce::try_assume_unique_for_key(nonce).map_err(|_| err("nonce length"))?;
        let t = Tag::try_from(tag).map_err(|_| Error::AuthFailed)?;
        // In place: the copy is what a caller holding the ciphertext pays.
        out.copy_from_slice(ct);
        self.0
            .open_in_place_separate_tag(n, Aad::from(aad), t, out, 0..)
            .map(|_| ())
            .map_err(|_| Error::AuthFailed)
    }
}

#[cfg(target_arch = "x86_64")]
fn has(f: &str) -> bool {
    match f {
        "aes" => std::arch::is_x86_feature_detected!("aes"),
        "pclmulqdq" => std::arch::is_x86_feature_detected!("pclmulqdq"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "movbe" => std::arch::is_x86_feature_detected!("movbe"),
        "vaes" => std::arch::is_x86_feature_detected!("vaes"),
        "vpclmulqdq" => std::arch::is_x86_feature_detected!("vpclmulqdq"),
        "ssse3" => std::arch::is_x86_feature_detected!("ssse3"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn has(_f: &str) -> bool {
    false
}

/// The AES-GCM code ring 0.17.14 dispatches to on this CPU (its
/// `aes_gcm::DynKey::new`, with the CPU features as this process sees
/// them).
fn gcm_path() -> &'static str {
    let all = |fs: &[&str]| fs.iter().all(|f| has(f));
    if all(&["aes", "pclmulqdq", "avx", "vaes", "vpclmulqdq", "avx2"]) {
        "VAES+VPCLMULQDQ, AVX2"
    } else if all(&["aes", "pclmulqdq", "avx", "movbe"]) {
        "AES-NI+PCLMULQDQ, AVX+MOVBE stitched"
    } else if all(&["aes", "pclmulqdq"]) {
        "AES-NI+PCLMULQDQ"
    } else if has("ssse3") {
        "vector-permute AES (SSSE3)"
    } else {
        "constant-time fallback"
    }
}

fn chacha_path() -> &'static str {
    if has("avx2") {
        "AVX2"
    } else if has("ssse3") {
        "SSSE3"
    } else {
        "generic"
    }
}

impl Backend for Ring {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        VERSION.into()
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if let Some(n) = algo.library_note() {
            return Err(Unavailable(n));
        }
        match algo {
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm | Algorithm::ChaCha20Poly1305 => {}
            _ => {
                return Err(Unavailable(format!(
                    "ring has no public {algo} API (it has AES-128/256-GCM and ChaCha20-Poly1305)"
                )))
            }
        }
        match hw {
            Hw::On => Ok(()),
            _ => Err(Unavailable(
                "ring picks AES-NI/PCLMULQDQ/VAES by CPU with no switch to turn them off".into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        match algo {
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => {
                format!(
                    "{VERSION} LessSafeKey {} ({})",
                    algo_label(algo),
                    gcm_path()
                )
            }
            Algorithm::ChaCha20Poly1305 => format!(
                "{VERSION} LessSafeKey CHACHA20_POLY1305 ({})",
                chacha_path()
            ),
            _ => "none".into(),
        }
    }

    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        let alg = match algo {
            Algorithm::Aes128Gcm => &ring::aead::AES_128_GCM,
            Algorithm::Aes256Gcm => &ring::aead::AES_256_GCM,
            Algorithm::ChaCha20Poly1305 => &ring::aead::CHACHA20_POLY1305,
            _ => return Err(err(format!("{algo} is not an AEAD of ring"))),
        };
        AeadLengths::fixed(NAME, algo, (nonce_len, tag_len), LESS_SAFE_KEY_LENGTHS)?;
        let k = UnboundKey::new(alg, key).map_err(|_| err(format!("{algo}: bad key length")))?;
        Ok(Box::new(RingAead(LessSafeKey::new(k))))
    }

    fn cipher(&self, algo: Algorithm, _key: &[u8]) -> Result<Box<dyn Cipher>> {
        Err(err(format!("ring has no public {algo} API")))
    }
}

fn algo_label(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Aes128Gcm => "AES_128_GCM",
        Algorithm::Aes256Gcm => "AES_256_GCM",
        _ => "",
    }
}

// ---------------------------------------------------------------------------
// Public key

pub struct RingPk;

/// The DER SubjectPublicKeyInfo prefix of an uncompressed P-256 point
/// (RFC 5480: id-ecPublicKey, prime256v1, a 66-byte BIT STRING).
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// ECDSA P-256 with SHA-256, DER signatures; ring's keys are PKCS#8
/// documents, its public key the uncompressed point (wrapped here in the
/// SPKI every other P-256 provider returns).
#[derive(Default)]
struct P256Signer {
    kp: Option<(sig::EcdsaKeyPair, usize)>,
    peer: Option<Vec<u8>>,
}

impl ango_core::Signer for P256Signer {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let rng = SystemRandom::new();
        let alg = &sig::ECDSA_P256_SHA256_ASN1_SIGNING;
        let doc = sig::EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| err("P-256 keygen"))?;
        let kp = sig::EcdsaKeyPair::from_pkcs8(alg, doc.as_ref(), &rng)
            .map_err(|e| err(format!("P-256 key: {e}")))?;
        let mut spki = P256_SPKI_PREFIX.to_vec();
        spki.extend_from_slice(kp.public_key().as_ref());
        self.kp = Some((kp, doc.as_ref().len()));
        Ok(spki)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let (kp, _) = self.kp.as_ref().ok_or_else(no_key)?;
        let s = kp
            .sign(&SystemRandom::new(), msg)
            .map_err(|_| err("ECDSA sign"))?;
        Ok(s.as_ref().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let point = pk
            .strip_prefix(&P256_SPKI_PREFIX[..])
            .filter(|p| p.len() == 65)
            .ok_or_else(|| err("not a P-256 SubjectPublicKeyInfo with an uncompressed point"))?;
        self.peer = Some(point.to_vec());
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
        let point = self.peer.as_ref().ok_or_else(no_peer)?;
        Ok(
            sig::UnparsedPublicKey::new(&sig::ECDSA_P256_SHA256_ASN1, point)
                .verify(msg, s)
                .is_ok(),
        )
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let (kp, pkcs8) = self.kp.as_ref().ok_or_else(no_key)?;
        Ok(vec![
            SizeEntry::new("secret_key", "pkcs8-der", *pkcs8),
            SizeEntry::new(
                "public_key",
                "sec1-uncompressed",
                kp.public_key().as_ref().len(),
            ),
        ])
    }

    fn signature_encoding(&self) -> &'static str {
        "x962-der"
    }

    fn public_key_encoding(&self) -> &'static str {
        "spki-der"
    }
}

#[derive(Default)]
struct Ed25519Signer {
    kp: Option<(sig::Ed25519KeyPair, usize)>,
    peer: Option<Vec<u8>>,
}

impl ango_core::Signer for Ed25519Signer {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let doc = sig::Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .map_err(|_| err("Ed25519 keygen"))?;
        let kp = sig::Ed25519KeyPair::from_pkcs8(doc.as_ref())
            .map_err(|e| err(format!("Ed25519 key: {e}")))?;
        let pk = kp.public_key().as_ref().to_vec();
        self.kp = Some((kp, doc.as_ref().len()));
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let (kp, _) = self.kp.as_ref().ok_or_else(no_key)?;
        Ok(kp.sign(msg).as_ref().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        self.peer = Some(crate::pk::bytes32("Ed25519 public key", pk).map_err(err)?);
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        Ok(sig::UnparsedPublicKey::new(&sig::ED25519, pk)
            .verify(msg, s)
            .is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let (_, pkcs8) = self.kp.as_ref().ok_or_else(no_key)?;
        // ring writes PKCS#8 v2 (RFC 5958, with the public key).
        Ok(vec![SizeEntry::new("secret_key", "pkcs8v2-der", *pkcs8)])
    }
}

/// X25519 as a KEM: keygen keeps an ephemeral private key, encaps makes a
/// fresh one and agrees with the peer's public value (its public key is the
/// ciphertext), decaps agrees with the kept key, consuming it.
#[derive(Default)]
struct X25519Kem {
    key: Option<agreement::EphemeralPrivateKey>,
    peer: Option<Vec<u8>>,
}

fn x25519_pair(
    rng: &dyn ring::rand::SecureRandom,
) -> Result<(agreement::EphemeralPrivateKey, Vec<u8>)> {
    let k = agreement::EphemeralPrivateKey::generate(&agreement::X25519, rng)
        .map_err(|_| err("X25519 keygen"))?;
    let pk = k
        .compute_public_key()
        .map_err(|_| err("X25519 public key"))?
        .as_ref()
        .to_vec();
    Ok((k, pk))
}

fn x25519_agree(k: agreement::EphemeralPrivateKey, peer: &[u8]) -> Result<Vec<u8>> {
    agreement::agree_ephemeral(
        k,
        &agreement::UnparsedPublicKey::new(&agreement::X25519, peer),
        |s| s.to_vec(),
    )
    .map_err(|_| err("X25519 agreement rejected the public value"))
}

impl ango_core::Kem for X25519Kem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let (k, pk) = x25519_pair(&SystemRandom::new())?;
        self.key = Some(k);
        Ok(pk)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        self.peer = Some(crate::pk::bytes32("X25519 public key", pk).map_err(err)?);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let peer = self.peer.as_ref().ok_or_else(no_peer)?;
        let (k, ct) = x25519_pair(&SystemRandom::new())?;
        Ok((ct, x25519_agree(k, peer)?))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let k = self.key.take().ok_or_else(|| {
            err("no key pair: ring's X25519 private key is used by one agreement; call keygen")
        })?;
        x25519_agree(k, ct)
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        // ring never exposes the private key; it is the 32-byte scalar.
        Ok(vec![SizeEntry::new("secret_key", "raw", 32)])
    }

    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        crate::pk::bytes32("X25519 private key", sk).map_err(err)?;
        // ring imports no X25519 private key; its generate() draws the 32
        // scalar bytes from the RNG, so its test RNG, returning `sk`, makes
        // exactly that key. Known-answer tests only; never timed.
        #[allow(deprecated)]
        let rng = ring::test::rand::FixedSliceRandom { bytes: sk };
        let k = agreement::EphemeralPrivateKey::generate(&agreement::X25519, &rng)
            .map_err(|_| err("X25519 key from bytes"))?;
        self.key = Some(k);
        Ok(())
    }
}

/// rsaEncryption (PKCS #1), the algorithm of an RSA SubjectPublicKeyInfo.
const RSA_ENCRYPTION: spki::ObjectIdentifier =
    spki::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");

/// RSASSA-PSS verification only: ring makes no RSA keys.
#[derive(Default)]
struct RsaVerifier {
    /// The peer's PKCS#1 RSAPublicKey, from its SubjectPublicKeyInfo.
    peer: Option<Vec<u8>>,
}

fn no_rsa_keys() -> Error {
    Error::Unsupported("ring makes no RSA keys and does not sign without one".into())
}

impl ango_core::Signer for RsaVerifier {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        Err(no_rsa_keys())
    }

    fn sign(&mut self, _msg: &[u8]) -> Result<Vec<u8>> {
        Err(no_rsa_keys())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let info = spki::SubjectPublicKeyInfoRef::try_from(pk)
            .map_err(|e| err(format!("RSA public key: not a SubjectPublicKeyInfo ({e})")))?;
        if info.algorithm.oid != RSA_ENCRYPTION {
            return Err(err(format!(
                "RSA public key: algorithm {} is not rsaEncryption",
                info.algorithm.oid
            )));
        }
        let key = info
            .subject_public_key
            .as_bytes()
            .ok_or_else(|| err("RSA public key: BIT STRING with unused bits"))?;
        self.peer = Some(key.to_vec());
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
        let key = self.peer.as_ref().ok_or_else(no_peer)?;
        Ok(
            sig::UnparsedPublicKey::new(&sig::RSA_PSS_2048_8192_SHA256, key)
                .verify(msg, s)
                .is_ok(),
        )
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        Ok(Vec::new())
    }

    fn signature_encoding(&self) -> &'static str {
        "rsa-pss-sha256"
    }

    fn public_key_encoding(&self) -> &'static str {
        "spki-der"
    }
}

impl PkBackend for RingPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        VERSION.into()
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        match algo {
            PkAlgorithm::P256
            | PkAlgorithm::Ed25519
            | PkAlgorithm::X25519
            | PkAlgorithm::Rsa2048
            | PkAlgorithm::Rsa3072 => Ok(()),
            _ => Err(Unavailable(format!(
                "ring has no {} (it has X25519, ECDSA P-256/P-384, Ed25519 and RSA)",
                algo.family()
            ))),
        }
    }

    fn implementation(&self, algo: PkAlgorithm) -> String {
        match algo {
            PkAlgorithm::P256 => format!(
                "{VERSION} ECDSA_P256_SHA256_ASN1 (randomized nonce, DER signature; verify parses the key every call)"
            ),
            PkAlgorithm::Ed25519 => {
                format!("{VERSION} Ed25519 (verify parses the key every call)")
            }
            PkAlgorithm::X25519 => format!(
                "{VERSION} agreement::X25519 (EphemeralPrivateKey + agree_ephemeral; a key pair \
                 decapsulates once)"
            ),
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => format!(
                "{VERSION} RSA_PSS_2048_8192_SHA256 verify only (MGF1-SHA-256, 32-byte salt; \
                 parses the key every call)"
            ),
            _ => "none".into(),
        }
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Kem>> {
        match algo {
            PkAlgorithm::X25519 => Ok(Box::new(X25519Kem::default())),
            _ => Err(err(format!("ring has no {algo} KEM here"))),
        }
    }

    fn untimed_ops(&self, algo: PkAlgorithm) -> Vec<(PkOp, String)> {
        match algo {
            PkAlgorithm::X25519 => vec![(
                PkOp::Decaps,
                "ring's X25519 private key is ephemeral: agree_ephemeral consumes it, so a kept \
                 key pair cannot decapsulate twice (checked once per key pair, never timed)"
                    .into(),
            )],
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => [PkOp::Keygen, PkOp::Sign]
                .into_iter()
                .map(|op| {
                    (
                        op,
                        "ring makes no RSA keys (it signs and verifies with keys made elsewhere); \
                         it is checked and timed verifying another provider's keys and signatures"
                            .into(),
                    )
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(err(format!("{algo} is not a signature algorithm")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(match algo {
            PkAlgorithm::P256 => Box::new(P256Signer::default()),
            PkAlgorithm::Ed25519 => Box::new(Ed25519Signer::default()),
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => Box::new(RsaVerifier::default()),
            _ => return Err(err(format!("{algo}: no signature implementation"))),
        })
    }
}

/// ring as a provider: its AEADs and signatures.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_version() -> String {
    VERSION.into()
}

fn provider_entries() -> Vec<Entry> {
    let mut v = ango_core::catalog::entries_of_backend(&PROVIDER, &Ring);
    v.extend(ango_core::catalog::entries_of_pk_backend(
        &PROVIDER, &RingPk,
    ));
    v
}
