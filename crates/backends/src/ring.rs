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
//! What ring cannot do here, each said in `ango list`: X25519 keys are
//! ephemeral only (`agree_ephemeral` consumes the private key), so the
//! decapsulation seed 003 times, with a kept key pair, cannot be expressed;
//! RSA key generation does not exist in ring; AES-CCM, AES-CTR/ECB, ChaCha20
//! and XChaCha20-Poly1305 have no public API; and ring picks its code by
//! CPU with no switch, so `--hw off` is not offered.

use ango_core::{
    Aead, Algorithm, Backend, Cipher, Entry, Error, Hw, PkAlgorithm, PkBackend, PkKind, Provider,
    Result, SizeEntry, Unavailable,
};
use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey};
use ring::rand::SystemRandom;
use ring::signature::{self as sig, KeyPair as _};

const NAME: &str = "ring";
/// The exact version Cargo.toml pins (`=`), so this string cannot drift.
const VERSION: &str = "ring 0.17.14";

fn err(msg: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: NAME,
        message: msg.to_string(),
    }
}

pub struct Ring;

struct RingAead(LessSafeKey);

impl Aead for RingAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let n =
            Nonce::try_assume_unique_for_key(nonce).map_err(|_| err("nonce must be 12 bytes"))?;
        if tag.len() != 16 {
            return Err(err("ring's tags are 16 bytes"));
        }
        let t = self
            .0
            .seal_in_place_separate_tag(n, Aad::from(aad), buf)
            .map_err(|_| err("encryption failed"))?;
        tag.copy_from_slice(t.as_ref());
        Ok(())
    }

    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        let n =
            Nonce::try_assume_unique_for_key(nonce).map_err(|_| err("nonce must be 12 bytes"))?;
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
        if (nonce_len, tag_len) != (12, 16) {
            return Err(err(format!(
                "ring's {algo} takes only a 12-byte nonce and a 16-byte tag"
            )));
        }
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

fn no_key() -> Error {
    err("no key pair: call keygen first")
}

fn no_peer() -> Error {
    err("no peer public key: call set_peer first")
}

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
        if pk.len() != 32 {
            return Err(err(format!(
                "Ed25519 public key: expected 32 bytes, got {}",
                pk.len()
            )));
        }
        self.peer = Some(pk.to_vec());
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

impl PkBackend for RingPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        VERSION.into()
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        match algo {
            PkAlgorithm::P256 | PkAlgorithm::Ed25519 => Ok(()),
            PkAlgorithm::X25519 => Err(Unavailable(
                "ring's X25519 keys are ephemeral only (agree_ephemeral consumes the private \
                 key): the decapsulation with a kept key pair that seed 003 times cannot be \
                 expressed"
                    .into(),
            )),
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => Err(Unavailable(
                "ring cannot generate RSA keys (it signs and verifies with keys made elsewhere)"
                    .into(),
            )),
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
            _ => "none".into(),
        }
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Kem>> {
        Err(err(format!("ring has no {algo} KEM here")))
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(err(format!("{algo} is not a signature algorithm")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(match algo {
            PkAlgorithm::P256 => Box::new(P256Signer::default()),
            PkAlgorithm::Ed25519 => Box::new(Ed25519Signer::default()),
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
