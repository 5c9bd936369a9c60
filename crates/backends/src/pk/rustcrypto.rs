//! The RustCrypto public-key backend: pure-Rust ML-KEM, ML-DSA, SLH-DSA,
//! X25519 and Ed25519 (dalek), ECDSA P-256 and RSASSA-PSS.
//!
//! Encodings are those of the other public-key backends, so keys,
//! ciphertexts and signatures can be cross-checked between libraries:
//!
//! - ML-KEM: raw encapsulation key, ciphertext, 32-byte secret (FIPS 203).
//! - X25519 as a KEM (seed 003): `encaps` makes an ephemeral key pair, the
//!   ciphertext is its public key and the secret the DH with the peer key;
//!   `decaps` is the DH of the kept secret with the ciphertext.
//! - X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem): public key and ciphertext
//!   are the ML-KEM-768 part followed by the X25519 part, the secret is the
//!   ML-KEM secret followed by the X25519 secret (64 bytes).
//! - ML-DSA (hedged, empty context), SLH-DSA (randomized), Ed25519: raw keys
//!   and signatures.
//! - ECDSA P-256 with SHA-256: SPKI DER public key, DER (X9.62) signature.
//! - RSA: SPKI DER public key (e = 65537), RSASSA-PSS with SHA-256,
//!   MGF1-SHA-256 and a 32-byte salt.

use ango_core::{Error, PkAlgorithm, PkBackend, PkKind, Result, SizeEntry, Unavailable};
use getrandom::{rand_core::UnwrapErr, SysRng};

use ed25519_dalek::pkcs8::KeypairBytes;
use ml_dsa::{signature::Keypair as _, Generate as _, KeyExport, MlDsaParams};
#[allow(deprecated)] // the FIPS 203 expanded key, measured in `key_sizes`
use ml_kem::ExpandedKeyEncoding;
use ml_kem::{Decapsulate, Encapsulate, FromSeed, TryKeyInit};
// One pkcs8 0.11 crate serves rsa, p256 and ed25519-dalek.
use rsa::pkcs8::{DecodePublicKey as _, EncodePrivateKey as _, EncodePublicKey as _};
use rsa::signature::{RandomizedSigner as _, SignatureEncoding as _, Verifier as _};
use sha2::Sha256;

const NAME: &str = "rustcrypto";

/// The crate versions the Cargo manifest pins; `version()` reports them.
const VERSIONS: &str = "ml-kem 0.3.4, ml-dsa 0.1.2, slh-dsa 0.2.0-rc.5, x25519-dalek 3.0.0, \
                        ed25519-dalek 3.0.0, p256 0.14.0, rsa 0.10.0-rc.20";

/// The public exponent of generated RSA keys.
const RSA_E: u64 = 65537;
/// The RSASSA-PSS salt length (the SHA-256 output length).
const PSS_SALT_LEN: usize = 32;

provider_errors!(NAME);

fn bad_len(what: &str, want: usize, got: usize) -> Error {
    err(format!("{what}: expected {want} bytes, got {got}"))
}

/// The OS random number generator (getrandom); panics if the OS fails.
fn rng() -> UnwrapErr<SysRng> {
    UnwrapErr(SysRng)
}

/// The RustCrypto public-key backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct RustCryptoPk;

impl PkBackend for RustCryptoPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        VERSIONS.to_string()
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        use PkAlgorithm::*;
        match algo {
            X25519 | MlKem512 | MlKem768 | MlKem1024 | X25519MlKem768 | Rsa2048 | Rsa3072
            | P256 | Ed25519 | MlDsa44 | MlDsa65 | MlDsa87 | SlhDsaSha2_128f => Ok(()),
            _ => Err(Unavailable(format!(
                "RustCrypto has no {} implementation (it has ML-KEM, ML-DSA, SLH-DSA, \
                 X25519, Ed25519, ECDSA P-256 and RSA)",
                algo.family()
            ))),
        }
    }

    fn implementation(&self, algo: PkAlgorithm) -> String {
        use PkAlgorithm::*;
        match algo {
            X25519 => "x25519-dalek 3 X25519 (ephemeral-static DH as a KEM)".into(),
            MlKem512 => "ml-kem 0.3 MlKem512".into(),
            MlKem768 => "ml-kem 0.3 MlKem768".into(),
            MlKem1024 => "ml-kem 0.3 MlKem1024".into(),
            X25519MlKem768 => "ml-kem 0.3 MlKem768 + x25519-dalek 3 X25519".into(),
            Rsa2048 | Rsa3072 => "rsa 0.10 RSASSA-PSS SHA-256 (MGF1-SHA-256, salt 32)".into(),
            P256 => "p256 0.14 ECDSA SHA-256 (hedged RFC 6979, DER signature)".into(),
            Ed25519 => "ed25519-dalek 3 Ed25519".into(),
            MlDsa44 => "ml-dsa 0.1 MlDsa44 (hedged)".into(),
            MlDsa65 => "ml-dsa 0.1 MlDsa65 (hedged)".into(),
            MlDsa87 => "ml-dsa 0.1 MlDsa87 (hedged)".into(),
            SlhDsaSha2_128f => "slh-dsa 0.2 Sha2_128f (randomized)".into(),
            _ => "none".into(),
        }
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Kem>> {
        if algo.kind() != PkKind::Kem {
            return Err(err(format!("{algo} is not a KEM")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(match algo {
            PkAlgorithm::X25519 => Box::new(X25519Kem::default()),
            PkAlgorithm::MlKem512 => Box::new(MlKemKem::<ml_kem::MlKem512>::default()),
            PkAlgorithm::MlKem768 => Box::new(MlKemKem::<ml_kem::MlKem768>::default()),
            PkAlgorithm::MlKem1024 => Box::new(MlKemKem::<ml_kem::MlKem1024>::default()),
            PkAlgorithm::X25519MlKem768 => Box::new(HybridKem::default()),
            _ => return Err(err(format!("{algo}: no KEM implementation"))),
        })
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(err(format!("{algo} is not a signature algorithm")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(match algo {
            PkAlgorithm::Rsa2048 => Box::new(RsaSigner::new(2048)),
            PkAlgorithm::Rsa3072 => Box::new(RsaSigner::new(3072)),
            PkAlgorithm::P256 => Box::new(P256Signer::default()),
            PkAlgorithm::Ed25519 => Box::new(Ed25519Signer::default()),
            PkAlgorithm::MlDsa44 => Box::new(MlDsaSigner::<ml_dsa::MlDsa44>::default()),
            PkAlgorithm::MlDsa65 => Box::new(MlDsaSigner::<ml_dsa::MlDsa65>::default()),
            PkAlgorithm::MlDsa87 => Box::new(MlDsaSigner::<ml_dsa::MlDsa87>::default()),
            PkAlgorithm::SlhDsaSha2_128f => Box::new(SlhDsaSigner::default()),
            _ => return Err(err(format!("{algo}: no signature implementation"))),
        })
    }
}

// ---------------------------------------------------------------------------
// ML-KEM

/// ML-KEM-512/768/1024, generic over the `ml_kem` parameter set.
struct MlKemKem<K: ml_kem::Kem> {
    dk: Option<K::DecapsulationKey>,
    /// Whether `dk` has its 64-byte seed (from `keygen` or
    /// `keygen_from_seed`); an imported expanded key has none.
    seeded: bool,
    peer: Option<K::EncapsulationKey>,
}

impl<K: ml_kem::Kem> Default for MlKemKem<K> {
    fn default() -> Self {
        MlKemKem {
            dk: None,
            seeded: false,
            peer: None,
        }
    }
}

/// The crate's derandomized encapsulation, an inherent method of each
/// parameter set's concrete key type.
trait DerandEncaps: ml_kem::Kem {
    fn encaps_derand(ek: &Self::EncapsulationKey, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)>;
}

macro_rules! derand_encaps {
    ($($k:ty),*) => {$(
        impl DerandEncaps for $k {
            fn encaps_derand(ek: &Self::EncapsulationKey, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
                let m = m.try_into().map_err(|_| bad_len("ML-KEM m", 32, m.len()))?;
                let (ct, ss) = ek.encapsulate_deterministic(m);
                Ok((ct.to_vec(), ss.to_vec()))
            }
        }
    )*};
}
derand_encaps!(ml_kem::MlKem512, ml_kem::MlKem768, ml_kem::MlKem1024);

#[allow(deprecated)] // ExpandedKeyEncoding, see `key_sizes`
impl<K> ango_core::Kem for MlKemKem<K>
where
    K: ml_kem::Kem + FromSeed + DerandEncaps,
    K::DecapsulationKey: Decapsulate + ExpandedKeyEncoding + KeyExport,
{
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let (dk, ek) = K::generate_keypair_from_rng(&mut rng());
        self.dk = Some(dk);
        self.seeded = true;
        Ok(ek.to_bytes().to_vec())
    }

    /// ML-KEM.KeyGen_internal(d, z) of FIPS 203 from the 64-byte d‖z.
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        self.dk = None;
        let seed = ml_kem::kem::Seed::<K>::try_from(seed)
            .map_err(|_| bad_len("ML-KEM seed (d||z)", 64, seed.len()))?;
        let (dk, ek) = K::from_seed(&seed);
        self.dk = Some(dk);
        self.seeded = true;
        Ok(ek.to_bytes().to_vec())
    }

    /// The FIPS 203 expanded decapsulation key (dk_PKE ‖ ek ‖ H(ek) ‖ z),
    /// with the §7.3 input checks: its length and H(ek) against the hash
    /// stored in it (the crate's checked constructor also applies the §7.2
    /// modulus check to the embedded ek).
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.dk = None;
        let enc = <&ml_kem::array::Array<
            u8,
            <K::DecapsulationKey as ExpandedKeyEncoding>::EncodedSize,
        >>::try_from(sk)
        .map_err(|_| {
            err(format!(
                "ML-KEM decapsulation key of wrong length ({} bytes)",
                sk.len()
            ))
        })?;
        let dk = K::DecapsulationKey::from_expanded_bytes(enc)
            .map_err(|_| err("invalid ML-KEM decapsulation key (H(ek) or ek check failed)"))?;
        self.dk = Some(dk);
        self.seeded = false;
        Ok(())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let ek = K::EncapsulationKey::new_from_slice(pk).map_err(|_| {
            err(format!(
                "invalid ML-KEM encapsulation key ({} bytes)",
                pk.len()
            ))
        })?;
        self.peer = Some(ek);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let ek = self.peer.as_ref().ok_or_else(no_peer)?;
        let (ct, ss) = ek.encapsulate_with_rng(&mut rng());
        Ok((ct.to_vec(), ss.to_vec()))
    }

    /// ML-KEM.Encaps_internal(ek, m) (the crate's hazmat
    /// `encapsulate_deterministic`).
    fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        let ek = self.peer.as_ref().ok_or_else(no_peer)?;
        K::encaps_derand(ek, m)
    }

    #[allow(deprecated)]
    fn export_secret(&self) -> Result<Vec<u8>> {
        let dk = self.dk.as_ref().ok_or_else(no_key)?;
        Ok(dk.to_expanded_bytes().to_vec())
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let dk = self.dk.as_ref().ok_or_else(no_key)?;
        let ss = dk.decapsulate_slice(ct).map_err(|_| {
            err(format!(
                "ML-KEM ciphertext of wrong length ({} bytes)",
                ct.len()
            ))
        })?;
        Ok(ss.to_vec())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let dk = self.dk.as_ref().ok_or_else(no_key)?;
        // The FIPS 203 decapsulation key (dk || ek || H(ek) || z); the crate
        // deprecates it in favour of the 64-byte seed, but it is the
        // standard's secret-key encoding and what other libraries emit.
        #[allow(deprecated)]
        let expanded = dk.to_expanded_bytes().len();
        let mut sizes = vec![SizeEntry::new("secret_key", "raw", expanded)];
        // An imported expanded key has no seed (and `to_bytes` would panic).
        if self.seeded {
            sizes.push(SizeEntry::new("secret_key", "seed", dk.to_bytes().len()));
        }
        Ok(sizes)
    }
}

// ---------------------------------------------------------------------------
// X25519

/// X25519 Diffie-Hellman; an all-zero (non-contributory) result is an
/// error, as in OpenSSL.
fn x25519_dh(sk: &x25519_dalek::StaticSecret, pk: &x25519_dalek::PublicKey) -> Result<Vec<u8>> {
    let ss = sk.diffie_hellman(pk);
    if !ss.was_contributory() {
        return Err(err(
            "X25519: all-zero shared secret (small-order public key)",
        ));
    }
    Ok(ss.as_bytes().to_vec())
}

fn x25519_public(bytes: &[u8]) -> Result<x25519_dalek::PublicKey> {
    let raw: [u8; 32] = bytes
        .try_into()
        .map_err(|_| bad_len("X25519 public key", 32, bytes.len()))?;
    Ok(x25519_dalek::PublicKey::from(raw))
}

/// X25519 used as a KEM, as seed 003 defines it.
#[derive(Default)]
struct X25519Kem {
    sk: Option<x25519_dalek::StaticSecret>,
    peer: Option<x25519_dalek::PublicKey>,
}

impl ango_core::Kem for X25519Kem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let sk = x25519_dalek::StaticSecret::random_from_rng(&mut rng());
        let pk = x25519_dalek::PublicKey::from(&sk);
        self.sk = Some(sk);
        Ok(pk.as_bytes().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        self.peer = Some(x25519_public(pk)?);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let peer = self.peer.as_ref().ok_or_else(no_peer)?;
        let eph = x25519_dalek::EphemeralSecret::random_from_rng(&mut rng());
        let ct = x25519_dalek::PublicKey::from(&eph);
        let ss = eph.diffie_hellman(peer);
        if !ss.was_contributory() {
            return Err(err(
                "X25519: all-zero shared secret (small-order public key)",
            ));
        }
        Ok((ct.as_bytes().to_vec(), ss.as_bytes().to_vec()))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        x25519_dh(sk, &x25519_public(ct)?)
    }

    /// The 32-byte private scalar (clamped when used, RFC 7748 §5).
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.sk = None;
        let raw: [u8; 32] = sk
            .try_into()
            .map_err(|_| bad_len("X25519 private key", 32, sk.len()))?;
        self.sk = Some(x25519_dalek::StaticSecret::from(raw));
        Ok(())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new(
            "secret_key",
            "raw",
            sk.as_bytes().len(),
        )])
    }
}

// ---------------------------------------------------------------------------
// X25519MLKEM768

/// Lengths of the ML-KEM-768 parts of the hybrid encodings.
const MLKEM768_EK: usize = 1184;
const MLKEM768_CT: usize = 1088;

/// X25519MLKEM768: ML-KEM-768 first, X25519 second, in every encoding.
#[derive(Default)]
struct HybridKem {
    mlkem: MlKemKem<ml_kem::MlKem768>,
    x25519: X25519Kem,
}

impl ango_core::Kem for HybridKem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let mut pk = self.mlkem.keygen()?;
        pk.extend_from_slice(&self.x25519.keygen()?);
        Ok(pk)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        if pk.len() != MLKEM768_EK + 32 {
            return Err(bad_len(
                "X25519MLKEM768 public key",
                MLKEM768_EK + 32,
                pk.len(),
            ));
        }
        let (m, x) = pk.split_at(MLKEM768_EK);
        self.mlkem.set_peer(m)?;
        self.x25519.set_peer(x)
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let (mut ct, mut ss) = self.mlkem.encaps()?;
        let (xct, xss) = self.x25519.encaps()?;
        ct.extend_from_slice(&xct);
        ss.extend_from_slice(&xss);
        Ok((ct, ss))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        if ct.len() != MLKEM768_CT + 32 {
            return Err(bad_len(
                "X25519MLKEM768 ciphertext",
                MLKEM768_CT + 32,
                ct.len(),
            ));
        }
        let (m, x) = ct.split_at(MLKEM768_CT);
        let mut ss = self.mlkem.decaps(m)?;
        ss.extend_from_slice(&self.x25519.decaps(x)?);
        Ok(ss)
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let m = self.mlkem.key_sizes()?;
        let x = self.x25519.key_sizes()?;
        let size = |v: &[SizeEntry], enc: &str| {
            v.iter()
                .find(|e| e.object == "secret_key" && e.encoding == enc)
                .map(|e| e.bytes)
                .ok_or_else(|| err(format!("missing {enc} secret key size")))
        };
        let x_raw = size(&x, "raw")?;
        Ok(vec![
            SizeEntry::new("secret_key", "raw", size(&m, "raw")? + x_raw),
            SizeEntry::new("secret_key", "seed", size(&m, "seed")? + x_raw),
        ])
    }
}

// ---------------------------------------------------------------------------
// ML-DSA

/// ML-DSA-44/65/87, generic over the `ml_dsa` parameter set.
struct MlDsaSigner<P: MlDsaParams> {
    sk: Option<ml_dsa::SigningKey<P>>,
    /// The key known-answer tests sign with (`keygen_from_seed`,
    /// `import_secret`).
    kat: Option<ml_dsa::ExpandedSigningKey<P>>,
    peer: Option<ml_dsa::VerifyingKey<P>>,
}

impl<P: MlDsaParams> Default for MlDsaSigner<P> {
    fn default() -> Self {
        MlDsaSigner {
            sk: None,
            kat: None,
            peer: None,
        }
    }
}

/// Run `f`, turning a panic of the library into an error (ml-dsa's
/// expanded-key decoder documents that malformed keys can panic).
/// The panic message is kept off the terminal while `f` runs (the panic
/// hook is process-wide, so such calls are serialised).
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<T> {
    static QUIET: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = QUIET.lock().unwrap_or_else(|p| p.into_inner());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    r.map_err(|_| err(format!("{what}: the library panicked")))
}

impl<P: MlDsaParams + 'static> ango_core::Signer for MlDsaSigner<P> {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let sk = ml_dsa::SigningKey::<P>::generate_from_rng(&mut rng());
        let pk = sk.verifying_key().encode().to_vec();
        self.sk = Some(sk);
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        // Hedged ML-DSA.Sign (FIPS 204 Algorithm 2, fresh rnd), pure, empty
        // context. `SigningKey`'s own `Signer` impl is the deterministic
        // variant; the randomized one lives on its expanded key.
        let sig = sk
            .expanded_key()
            .sign_randomized(msg, &[], &mut rng())
            .map_err(|e| err(format!("ML-DSA sign: {e}")))?;
        Ok(sig.encode().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let enc = ml_dsa::EncodedVerifyingKey::<P>::try_from(pk).map_err(|_| {
            err(format!(
                "ML-DSA public key of wrong length ({} bytes)",
                pk.len()
            ))
        })?;
        self.peer = Some(ml_dsa::VerifyingKey::<P>::decode(&enc));
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = ml_dsa::Signature::<P>::try_from(sig) else {
            return Ok(false);
        };
        Ok(vk.verify_with_context(msg, &[], &sig))
    }

    fn verify_ctx(&mut self, msg: &[u8], ctx: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = ml_dsa::Signature::<P>::try_from(sig) else {
            return Ok(false);
        };
        Ok(vk.verify_with_context(msg, ctx, &sig))
    }

    /// ML-DSA.KeyGen_internal(ξ) of FIPS 204 (Algorithm 6).
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        self.kat = None;
        let xi = <&ml_dsa::B32>::try_from(seed)
            .map_err(|_| bad_len("ML-DSA seed (ξ)", 32, seed.len()))?;
        let sk = ml_dsa::SigningKey::<P>::from_seed(xi);
        let pk = sk.verifying_key().encode().to_vec();
        self.kat = Some(sk.expanded_key().clone());
        Ok(pk)
    }

    /// FIPS 204's skDecode through the crate's (deprecated, unchecked)
    /// `from_expanded`; only the length is checked by the type.
    #[allow(deprecated)]
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.kat = None;
        let enc = <&ml_dsa::ExpandedSigningKeyBytes<P>>::try_from(sk).map_err(|_| {
            err(format!(
                "ML-DSA signing key of wrong length ({} bytes)",
                sk.len()
            ))
        })?;
        self.kat = Some(no_panic("ML-DSA skDecode", || {
            ml_dsa::ExpandedSigningKey::<P>::from_expanded(enc)
        })?);
        Ok(())
    }

    /// ML-DSA.Sign_internal (FIPS 204 Algorithm 7) on M' = 0 ‖ |ctx| ‖ ctx
    /// ‖ M, as ML-DSA.Sign (Algorithm 2) builds it, with the given rnd.
    fn sign_with(&mut self, msg: &[u8], ctx: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        let sk = self.kat.as_ref().ok_or_else(no_key)?;
        let Ok(n) = u8::try_from(ctx.len()) else {
            return Err(err(format!(
                "ML-DSA context of {} bytes (at most 255)",
                ctx.len()
            )));
        };
        let rnd =
            <&ml_dsa::B32>::try_from(rnd).map_err(|_| bad_len("ML-DSA rnd", 32, rnd.len()))?;
        let sig = no_panic("ML-DSA sign", || {
            sk.sign_internal(&[&[0, n], ctx, msg], rnd)
        })?;
        Ok(sig.encode().to_vec())
    }

    /// The deterministic external-μ signing (`sign_mu_deterministic`); the
    /// crate takes no given rnd with a μ.
    fn sign_mu(&mut self, mu: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        if rnd.iter().any(|&b| b != 0) {
            return Err(Error::Unsupported(
                "signing an external μ with a given non-zero rnd".into(),
            ));
        }
        let sk = self.kat.as_ref().ok_or_else(no_key)?;
        let mu = mu
            .try_into()
            .map_err(|_| bad_len("ML-DSA μ", 64, mu.len()))?;
        let sig = no_panic("ML-DSA sign", || sk.sign_mu_deterministic(mu))?;
        Ok(sig.encode().to_vec())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        // The FIPS 204 skEncode form; deprecated by the crate in favour of
        // the 32-byte seed, measured here because it is the standard's.
        #[allow(deprecated)]
        let expanded = sk.expanded_key().to_expanded().len();
        Ok(vec![
            SizeEntry::new("secret_key", "raw", expanded),
            SizeEntry::new("secret_key", "seed", sk.to_bytes().len()),
        ])
    }
}

// ---------------------------------------------------------------------------
// SLH-DSA

type SlhParams = slh_dsa::Sha2_128f;

/// SLH-DSA-SHA2-128f, pure, randomized (opt_rand from the RNG).
#[derive(Default)]
struct SlhDsaSigner {
    sk: Option<slh_dsa::SigningKey<SlhParams>>,
    peer: Option<slh_dsa::VerifyingKey<SlhParams>>,
}

impl ango_core::Signer for SlhDsaSigner {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let sk = slh_dsa::SigningKey::<SlhParams>::new(&mut rng());
        let pk = sk.verifying_key().to_bytes().to_vec();
        self.sk = Some(sk);
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let sig: slh_dsa::Signature<SlhParams> = sk
            .try_sign_with_rng(&mut rng(), msg)
            .map_err(|e| err(format!("SLH-DSA sign: {e}")))?;
        Ok(sig.to_bytes().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let vk = slh_dsa::VerifyingKey::<SlhParams>::try_from(pk).map_err(|_| {
            err(format!(
                "SLH-DSA public key of wrong length ({} bytes)",
                pk.len()
            ))
        })?;
        self.peer = Some(vk);
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = slh_dsa::Signature::<SlhParams>::try_from(sig) else {
            return Ok(false);
        };
        Ok(vk.verify(msg, &sig).is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new(
            "secret_key",
            "raw",
            sk.to_bytes().len(),
        )])
    }
}

// ---------------------------------------------------------------------------
// Ed25519

/// Ed25519 (pure, RFC 8032).
#[derive(Default)]
struct Ed25519Signer {
    sk: Option<ed25519_dalek::SigningKey>,
    peer: Option<ed25519_dalek::VerifyingKey>,
}

impl ango_core::Signer for Ed25519Signer {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let sk = ed25519_dalek::SigningKey::generate(&mut rng());
        let pk = sk.verifying_key().to_bytes().to_vec();
        self.sk = Some(sk);
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let sig: ed25519_dalek::Signature = ed25519_dalek::Signer::try_sign(sk, msg)
            .map_err(|e| err(format!("Ed25519 sign: {e}")))?;
        Ok(sig.to_bytes().to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let raw: [u8; 32] = pk
            .try_into()
            .map_err(|_| bad_len("Ed25519 public key", 32, pk.len()))?;
        let vk = ed25519_dalek::VerifyingKey::from_bytes(&raw)
            .map_err(|e| err(format!("invalid Ed25519 public key: {e}")))?;
        self.peer = Some(vk);
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = ed25519_dalek::Signature::from_slice(sig) else {
            return Ok(false);
        };
        Ok(vk.verify(msg, &sig).is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        // RFC 8410 OneAsymmetricKey v1 (no public key), the form OpenSSL
        // writes; ed25519-dalek's own `to_pkcs8_der` adds the public key.
        let kp = KeypairBytes {
            secret_key: sk.to_bytes(),
            public_key: None,
        };
        let pkcs8 = kp
            .to_pkcs8_der()
            .map_err(|e| err(format!("Ed25519 PKCS#8: {e}")))?;
        Ok(vec![
            SizeEntry::new("secret_key", "raw", sk.to_bytes().len()),
            SizeEntry::new("secret_key", "pkcs8-der", pkcs8.as_bytes().len()),
        ])
    }
}

// ---------------------------------------------------------------------------
// ECDSA P-256

/// ECDSA over P-256 with SHA-256; DER signatures, SPKI public keys.
#[derive(Default)]
struct P256Signer {
    sk: Option<p256::ecdsa::SigningKey>,
    peer: Option<p256::ecdsa::VerifyingKey>,
}

impl ango_core::Signer for P256Signer {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        use p256::elliptic_curve::Generate as _;
        let sk = p256::ecdsa::SigningKey::generate_from_rng(&mut rng());
        let spki = sk
            .verifying_key()
            .to_public_key_der()
            .map_err(|e| err(format!("P-256 SPKI: {e}")))?;
        self.sk = Some(sk);
        Ok(spki.as_bytes().to_vec())
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        // RFC 6979 nonce with fresh randomness mixed in (hedged), like the
        // randomized nonces of other libraries.
        let sig: p256::ecdsa::DerSignature = sk
            .try_sign_with_rng(&mut rng(), msg)
            .map_err(|e| err(format!("ECDSA sign: {e}")))?;
        Ok(sig.to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let vk = p256::ecdsa::VerifyingKey::from_public_key_der(pk)
            .map_err(|e| err(format!("invalid P-256 SPKI public key: {e}")))?;
        self.peer = Some(vk);
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = p256::ecdsa::DerSignature::try_from(sig) else {
            return Ok(false);
        };
        Ok(vk.verify(msg, &sig).is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let pkcs8 = sk
            .to_pkcs8_der()
            .map_err(|e| err(format!("P-256 PKCS#8: {e}")))?;
        let point = sk.verifying_key().to_sec1_point(false);
        Ok(vec![
            SizeEntry::new("secret_key", "raw", sk.to_bytes().len()),
            SizeEntry::new("secret_key", "pkcs8-der", pkcs8.as_bytes().len()),
            SizeEntry::new("public_key", "sec1-uncompressed", point.as_bytes().len()),
        ])
    }

    fn signature_encoding(&self) -> &'static str {
        "x962-der"
    }

    fn public_key_encoding(&self) -> &'static str {
        "spki-der"
    }
}

// ---------------------------------------------------------------------------
// RSA

/// RSASSA-PSS with SHA-256, MGF1-SHA-256, 32-byte salt; e = 65537.
struct RsaSigner {
    bits: usize,
    sk: Option<rsa::pss::SigningKey<Sha256>>,
    peer: Option<rsa::pss::VerifyingKey<Sha256>>,
}

impl RsaSigner {
    fn new(bits: usize) -> Self {
        RsaSigner {
            bits,
            sk: None,
            peer: None,
        }
    }
}

impl ango_core::Signer for RsaSigner {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let e = rsa::BoxedUint::from(RSA_E);
        let key = rsa::RsaPrivateKey::new_with_exp(&mut rng(), self.bits, e)
            .map_err(|e| err(format!("RSA-{} keygen: {e}", self.bits)))?;
        let spki = key
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| err(format!("RSA SPKI: {e}")))?;
        self.sk = Some(rsa::pss::SigningKey::new_with_salt_len(key, PSS_SALT_LEN));
        Ok(spki.as_bytes().to_vec())
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let sig = sk
            .try_sign_with_rng(&mut rng(), msg)
            .map_err(|e| err(format!("RSA-PSS sign: {e}")))?;
        Ok(sig.to_vec())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let key = rsa::RsaPublicKey::from_public_key_der(pk)
            .map_err(|e| err(format!("invalid RSA SPKI public key: {e}")))?;
        self.peer = Some(rsa::pss::VerifyingKey::new_with_salt_len(key, PSS_SALT_LEN));
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let vk = self.peer.as_ref().ok_or_else(no_peer)?;
        let Ok(sig) = rsa::pss::Signature::try_from(sig) else {
            return Ok(false);
        };
        Ok(vk.verify(msg, &sig).is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let pkcs8 = sk
            .to_pkcs8_der()
            .map_err(|e| err(format!("RSA PKCS#8: {e}")))?;
        Ok(vec![SizeEntry::new(
            "secret_key",
            "pkcs8-der",
            pkcs8.as_bytes().len(),
        )])
    }

    fn signature_encoding(&self) -> &'static str {
        "rsa-pss-sha256"
    }

    fn public_key_encoding(&self) -> &'static str {
        "spki-der"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::{Kem, Signer};

    const MSG: &[u8] = b"ango pk: the message every signature test signs";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn size(sizes: &[SizeEntry], object: &str, encoding: &str) -> usize {
        sizes
            .iter()
            .find(|e| e.object == object && e.encoding == encoding)
            .unwrap_or_else(|| panic!("no {object}/{encoding} in {sizes:?}"))
            .bytes
    }

    fn kem(algo: PkAlgorithm) -> Box<dyn Kem> {
        RustCryptoPk.kem(algo).unwrap()
    }

    fn signer(algo: PkAlgorithm) -> Box<dyn Signer> {
        RustCryptoPk.signer(algo).unwrap()
    }

    /// keygen → set_peer → encaps → decaps, on two instances (receiver and
    /// sender) as in a cross-check; tampering changes the secret. Returns
    /// the key sizes for the caller's checks.
    fn kem_roundtrip(
        algo: PkAlgorithm,
        pk_len: usize,
        ct_len: usize,
        ss_len: usize,
    ) -> Vec<SizeEntry> {
        let mut rx = kem(algo);
        let mut tx = kem(algo);
        let pk = rx.keygen().unwrap();
        assert_eq!(pk.len(), pk_len, "{algo} public key");
        tx.set_peer(&pk).unwrap();
        let (ct, ss) = tx.encaps().unwrap();
        assert_eq!(ct.len(), ct_len, "{algo} ciphertext");
        assert_eq!(ss.len(), ss_len, "{algo} shared secret");
        assert_eq!(rx.decaps(&ct).unwrap(), ss, "{algo} decaps");
        // Repeatable: a second encapsulation gives a fresh ct and secret.
        let (ct2, ss2) = tx.encaps().unwrap();
        assert_ne!(ct2, ct);
        assert_ne!(ss2, ss);
        assert_eq!(rx.decaps(&ct2).unwrap(), ss2);
        // Tampered ciphertext: implicit rejection (ML-KEM) or another point
        // (X25519). Bit 0 of byte 0: X25519 ignores only the top bit.
        let mut bad = ct.clone();
        bad[0] ^= 1;
        assert_ne!(rx.decaps(&bad).unwrap(), ss, "{algo} tampered ct");
        // Wrong lengths are errors, not secrets.
        assert!(rx.decaps(&ct[..ct.len() - 1]).is_err());
        assert!(tx.set_peer(&pk[..pk.len() - 1]).is_err());
        assert!(tx.set_peer(&[pk.clone(), vec![0]].concat()).is_err());
        rx.key_sizes().unwrap()
    }

    /// keygen → sign → set_peer → verify on a second instance; every kind
    /// of bad signature is Ok(false).
    fn sig_roundtrip(
        algo: PkAlgorithm,
        pk_len: usize,
        sig_len: std::ops::RangeInclusive<usize>,
    ) -> Vec<SizeEntry> {
        let mut s = signer(algo);
        let mut v = signer(algo);
        let pk = s.keygen().unwrap();
        assert_eq!(pk.len(), pk_len, "{algo} public key");
        let sig = s.sign(MSG).unwrap();
        assert!(
            sig_len.contains(&sig.len()),
            "{algo} signature {} bytes",
            sig.len()
        );
        v.set_peer(&pk).unwrap();
        assert!(v.verify(MSG, &sig).unwrap(), "{algo} valid signature");
        assert!(v.verify(MSG, &sig).unwrap(), "{algo} verify repeats");

        let mut msg = MSG.to_vec();
        msg[3] ^= 0x10;
        assert!(!v.verify(&msg, &sig).unwrap(), "{algo} flipped message bit");
        for i in [0, sig.len() / 2, sig.len() - 1] {
            let mut bad = sig.clone();
            bad[i] ^= 1;
            assert!(
                !v.verify(MSG, &bad).unwrap(),
                "{algo} flipped signature bit at {i}"
            );
        }
        assert!(
            !v.verify(MSG, &sig[..sig.len() - 1]).unwrap(),
            "{algo} truncated"
        );
        assert!(
            !v.verify(MSG, &[sig.clone(), vec![0]].concat()).unwrap(),
            "{algo} extended"
        );
        assert!(!v.verify(MSG, &[]).unwrap(), "{algo} empty");
        assert!(
            !v.verify(MSG, &vec![0x5a; sig.len()]).unwrap(),
            "{algo} garbage"
        );

        // A key pair of its own does not verify another's signature.
        let other = v.keygen().unwrap();
        v.set_peer(&other).unwrap();
        assert!(!v.verify(MSG, &sig).unwrap(), "{algo} wrong key");

        assert!(
            v.set_peer(&pk[..pk.len() - 1]).is_err(),
            "{algo} short public key"
        );
        s.key_sizes().unwrap()
    }

    #[test]
    fn availability_and_names() {
        let b = RustCryptoPk;
        assert_eq!(b.name(), "rustcrypto");
        assert!(b.version().contains("ml-kem 0.3"));
        for a in PkAlgorithm::ALL {
            let avail = b.availability(*a);
            assert_eq!(avail.is_ok(), PkAlgorithm::DEFAULT.contains(a), "{a}");
            match avail {
                Ok(()) => assert_ne!(b.implementation(*a), "none"),
                Err(Unavailable(why)) => {
                    assert!(why.contains(a.family()), "{why}");
                    assert!(b.kem(*a).is_err() && b.signer(*a).is_err());
                }
            }
        }
        assert!(b.kem(PkAlgorithm::Ed25519).is_err());
        assert!(b.signer(PkAlgorithm::MlKem768).is_err());
    }

    #[test]
    fn errors_before_keygen_and_set_peer() {
        let mut k = kem(PkAlgorithm::MlKem768);
        assert!(k.encaps().is_err());
        assert!(k.decaps(&[0; 1088]).is_err());
        assert!(k.key_sizes().is_err());
        let mut s = signer(PkAlgorithm::Ed25519);
        assert!(s.sign(MSG).is_err());
        assert!(s.verify(MSG, &[0; 64]).is_err());
    }

    #[test]
    fn ml_kem() {
        for (algo, pk, ct, dk) in [
            (PkAlgorithm::MlKem512, 800, 768, 1632),
            (PkAlgorithm::MlKem768, 1184, 1088, 2400),
            (PkAlgorithm::MlKem1024, 1568, 1568, 3168),
        ] {
            let sizes = kem_roundtrip(algo, pk, ct, 32);
            assert_eq!(size(&sizes, "secret_key", "raw"), dk, "{algo}");
            assert_eq!(size(&sizes, "secret_key", "seed"), 64, "{algo}");
            // FIPS 203 §7.2 modulus check: coefficients >= q are refused.
            assert!(kem(algo).set_peer(&vec![0xff; pk]).is_err(), "{algo}");
        }
    }

    #[test]
    fn x25519() {
        let sizes = kem_roundtrip(PkAlgorithm::X25519, 32, 32, 32);
        assert_eq!(size(&sizes, "secret_key", "raw"), 32);
        // A small-order point (all zero) gives an all-zero secret: refused.
        let mut k = kem(PkAlgorithm::X25519);
        k.keygen().unwrap();
        assert!(k.decaps(&[0; 32]).is_err());
    }

    #[test]
    fn x25519_rfc7748_known_answer() {
        // RFC 7748 §6.1.
        let a_sk = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        let a_pk = unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
        let b_sk = unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
        let b_pk = unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
        let k = unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        let secret = |b: &[u8]| x25519_dalek::StaticSecret::from(<[u8; 32]>::try_from(b).unwrap());
        let (a, b) = (secret(&a_sk), secret(&b_sk));
        assert_eq!(
            x25519_dalek::PublicKey::from(&a).as_bytes().as_slice(),
            a_pk
        );
        assert_eq!(
            x25519_dalek::PublicKey::from(&b).as_bytes().as_slice(),
            b_pk
        );
        assert_eq!(x25519_dh(&a, &x25519_public(&b_pk).unwrap()).unwrap(), k);
        assert_eq!(x25519_dh(&b, &x25519_public(&a_pk).unwrap()).unwrap(), k);
        // The KEM's decaps path with Alice's key and Bob's public key as ct.
        let mut kem = X25519Kem {
            sk: Some(a),
            peer: None,
        };
        assert_eq!(ango_core::Kem::decaps(&mut kem, &b_pk).unwrap(), k);
    }

    #[test]
    fn x25519mlkem768() {
        let sizes = kem_roundtrip(PkAlgorithm::X25519MlKem768, 1216, 1120, 64);
        assert_eq!(size(&sizes, "secret_key", "raw"), 2400 + 32);
        assert_eq!(size(&sizes, "secret_key", "seed"), 64 + 32);

        // Order: ML-KEM first. Tampering either half changes only that half.
        let mut rx = kem(PkAlgorithm::X25519MlKem768);
        let mut tx = kem(PkAlgorithm::X25519MlKem768);
        let pk = rx.keygen().unwrap();
        tx.set_peer(&pk).unwrap();
        let (ct, ss) = tx.encaps().unwrap();
        let mut bad = ct.clone();
        bad[0] ^= 1;
        let s = rx.decaps(&bad).unwrap();
        assert!(s[..32] != ss[..32] && s[32..] == ss[32..]);
        let mut bad = ct.clone();
        bad[1088] ^= 1;
        let s = rx.decaps(&bad).unwrap();
        assert!(s[..32] == ss[..32] && s[32..] != ss[32..]);

        // The first half of the public key is a plain ML-KEM-768 key: a
        // ciphertext made by the ML-KEM-768 instance decapsulates in the
        // hybrid to the same first 32 bytes.
        let mut m = kem(PkAlgorithm::MlKem768);
        m.set_peer(&pk[..1184]).unwrap();
        let (mct, mss) = m.encaps().unwrap();
        let x_ct = &ct[1088..];
        let s = rx.decaps(&[mct, x_ct.to_vec()].concat()).unwrap();
        assert_eq!(&s[..32], mss.as_slice());
        assert_eq!(&s[32..], &ss[32..]);
    }

    #[test]
    fn ml_dsa() {
        for (algo, pk, sig, sk) in [
            (PkAlgorithm::MlDsa44, 1312, 2420, 2560),
            (PkAlgorithm::MlDsa65, 1952, 3309, 4032),
            (PkAlgorithm::MlDsa87, 2592, 4627, 4896),
        ] {
            let sizes = sig_roundtrip(algo, pk, sig..=sig);
            assert_eq!(size(&sizes, "secret_key", "raw"), sk, "{algo}");
            assert_eq!(size(&sizes, "secret_key", "seed"), 32, "{algo}");
            let mut s = signer(algo);
            s.keygen().unwrap();
            assert_ne!(s.sign(MSG).unwrap(), s.sign(MSG).unwrap(), "{algo} hedged");
            assert_eq!(s.signature_encoding(), "raw");
            assert_eq!(s.public_key_encoding(), "raw");
        }
    }

    #[test]
    fn slh_dsa() {
        let algo = PkAlgorithm::SlhDsaSha2_128f;
        let sizes = sig_roundtrip(algo, 32, 17088..=17088);
        assert_eq!(size(&sizes, "secret_key", "raw"), 64);
        let mut s = signer(algo);
        s.keygen().unwrap();
        assert_ne!(s.sign(MSG).unwrap(), s.sign(MSG).unwrap(), "randomized");
    }

    #[test]
    fn ed25519() {
        let sizes = sig_roundtrip(PkAlgorithm::Ed25519, 32, 64..=64);
        assert_eq!(size(&sizes, "secret_key", "raw"), 32);
        assert_eq!(size(&sizes, "secret_key", "pkcs8-der"), 48);
        let mut s = signer(PkAlgorithm::Ed25519);
        s.keygen().unwrap();
        assert_eq!(s.sign(MSG).unwrap(), s.sign(MSG).unwrap(), "deterministic");
    }

    #[test]
    fn ed25519_rfc8032_known_answer() {
        // RFC 8032 §7.1 TEST 2 (one-byte message 0x72).
        let sk = unhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
        let pk = unhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
        let sig = unhex(
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da\
             085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        );
        let mut s = Ed25519Signer {
            sk: Some(ed25519_dalek::SigningKey::from_bytes(
                &sk.try_into().unwrap(),
            )),
            peer: None,
        };
        assert_eq!(s.sign(&[0x72]).unwrap(), sig);
        s.set_peer(&pk).unwrap();
        assert!(s.verify(&[0x72], &sig).unwrap());
    }

    #[test]
    fn p256() {
        let sizes = sig_roundtrip(PkAlgorithm::P256, 91, 70..=72);
        assert_eq!(size(&sizes, "secret_key", "raw"), 32);
        assert_eq!(size(&sizes, "secret_key", "pkcs8-der"), 138);
        assert_eq!(size(&sizes, "public_key", "sec1-uncompressed"), 65);
        let mut s = signer(PkAlgorithm::P256);
        let pk = s.keygen().unwrap();
        assert_ne!(s.sign(MSG).unwrap(), s.sign(MSG).unwrap(), "hedged");
        assert_eq!(s.signature_encoding(), "x962-der");
        assert_eq!(s.public_key_encoding(), "spki-der");
        // A high-S signature (as other libraries may emit) verifies.
        let der = s.sign(MSG).unwrap();
        use p256::elliptic_curve::scalar::IsHigh as _;
        let low = p256::ecdsa::Signature::from_der(&der)
            .unwrap()
            .normalize_s();
        let (r, sv) = low.split_scalars();
        let high = p256::ecdsa::Signature::from_scalars(*r, -*sv).unwrap();
        assert!(bool::from(high.s().is_high()));
        s.set_peer(&pk).unwrap();
        assert!(s.verify(MSG, high.to_der().as_bytes()).unwrap());
        assert!(s.verify(MSG, low.to_der().as_bytes()).unwrap());
    }

    #[test]
    fn rsa() {
        for (algo, bits, spki) in [
            (PkAlgorithm::Rsa2048, 2048, 294),
            (PkAlgorithm::Rsa3072, 3072, 422),
        ] {
            let sizes = sig_roundtrip(algo, spki, bits / 8..=bits / 8);
            let pkcs8 = size(&sizes, "secret_key", "pkcs8-der");
            // DER integers lose a byte when their top byte is small (or
            // gain one for a sign byte): the CRT components of a random key
            // move the total by a few bytes from run to run.
            let expect = if bits == 2048 {
                1200..=1225
            } else {
                1775..=1800
            };
            assert!(expect.contains(&pkcs8), "{algo} PKCS#8 {pkcs8} bytes");
            let mut s = signer(algo);
            let pk = s.keygen().unwrap();
            let key = rsa::RsaPublicKey::from_public_key_der(&pk).unwrap();
            use rsa::traits::PublicKeyParts as _;
            assert_eq!(key.e(), &rsa::BoxedUint::from(RSA_E));
            assert_eq!(key.n().bits(), bits as u32);
            assert_ne!(s.sign(MSG).unwrap(), s.sign(MSG).unwrap(), "salted");
            assert_eq!(s.signature_encoding(), "rsa-pss-sha256");
            assert_eq!(s.public_key_encoding(), "spki-der");
            // Salt length 32: an auto-detecting verifier agrees, a verifier
            // insisting on another salt length refuses.
            let sig = rsa::pss::Signature::try_from(s.sign(MSG).unwrap().as_slice()).unwrap();
            let auto = rsa::pss::VerifyingKey::<Sha256>::new_with_auto_salt_len(key.clone());
            assert!(auto.verify(MSG, &sig).is_ok());
            let other = rsa::pss::VerifyingKey::<Sha256>::new_with_salt_len(key, 20);
            assert!(other.verify(MSG, &sig).is_err());
        }
    }

    #[test]
    fn x25519_import_secret_rfc7748() {
        // RFC 7748 §6.1 through the trait: Alice's private key imported,
        // Bob's public key as the "ciphertext".
        let a_sk = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        let b_pk = unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
        let k = unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        let mut x = kem(PkAlgorithm::X25519);
        x.import_secret(&a_sk).unwrap();
        assert_eq!(x.decaps(&b_pk).unwrap(), k);
        assert_eq!(x.decaps(&b_pk).unwrap(), k, "repeatable");
        assert_eq!(size(&x.key_sizes().unwrap(), "secret_key", "raw"), 32);
        // Still non-contributory results are refused with an imported key.
        assert!(x.decaps(&[0; 32]).is_err());
        // A wrong length is an error and leaves no key behind.
        assert!(x.import_secret(&a_sk[..31]).is_err());
        assert!(x.import_secret(&[a_sk.clone(), vec![0]].concat()).is_err());
        assert!(x.decaps(&b_pk).is_err());
        // No seeded key generation for X25519 or the hybrid; no import for
        // the hybrid.
        let unsupported = |r: Result<()>| matches!(r, Err(Error::Unsupported(_)));
        assert!(unsupported(x.keygen_from_seed(&[0; 32]).map(drop)));
        let mut h = kem(PkAlgorithm::X25519MlKem768);
        assert!(unsupported(h.keygen_from_seed(&[0; 96]).map(drop)));
        assert!(unsupported(h.import_secret(&[0; 2432])));
    }

    #[test]
    fn ml_kem_768_keygen_from_seed_wycheproof() {
        let mut k = kem(PkAlgorithm::MlKem768);
        let ek = k.keygen_from_seed(&unhex(WP_KEYGEN_SEED)).unwrap();
        assert_eq!(ek.len(), 1184);
        use sha2::Digest as _;
        assert_eq!(Sha256::digest(&ek).to_vec(), unhex(WP_KEYGEN_EK_SHA256));
        assert_eq!(k.decaps(&unhex(WP_KEYGEN_C)).unwrap(), unhex(WP_KEYGEN_K));
        let sizes = k.key_sizes().unwrap();
        assert_eq!(size(&sizes, "secret_key", "seed"), 64);
        assert_eq!(size(&sizes, "secret_key", "raw"), 2400);
    }

    #[test]
    fn ml_kem_keygen_from_seed_and_import_secret() {
        for (algo, pk, dk_len) in [
            (PkAlgorithm::MlKem512, 800, 1632),
            (PkAlgorithm::MlKem768, 1184, 2400),
            (PkAlgorithm::MlKem1024, 1568, 3168),
        ] {
            let seed: Vec<u8> = (0u8..64).collect();
            let mut a = kem(algo);
            let ek = a.keygen_from_seed(&seed).unwrap();
            assert_eq!(ek.len(), pk, "{algo}");
            assert_eq!(kem(algo).keygen_from_seed(&seed).unwrap(), ek, "{algo}");
            let mut other = seed.clone();
            other[0] ^= 1; // d changes ek
            assert_ne!(kem(algo).keygen_from_seed(&other).unwrap(), ek);
            // Wrong seed lengths are errors and leave no key behind.
            assert!(a.keygen_from_seed(&seed[..63]).is_err(), "{algo}");
            assert!(a
                .keygen_from_seed(&[seed.clone(), vec![0]].concat())
                .is_err());
            assert!(a.key_sizes().is_err(), "{algo} key dropped");
            let ek = a.keygen_from_seed(&seed).unwrap();

            // The expanded form of the seeded key, imported elsewhere,
            // decapsulates to the same secrets.
            let mut tx = kem(algo);
            tx.set_peer(&ek).unwrap();
            let (ct, ss) = tx.encaps().unwrap();
            assert_eq!(a.decaps(&ct).unwrap(), ss, "{algo}");
            #[allow(deprecated)]
            let dk = match algo {
                PkAlgorithm::MlKem512 => {
                    let (d, _) = ml_kem::MlKem512::from_seed(seed.as_slice().try_into().unwrap());
                    d.to_expanded_bytes().to_vec()
                }
                PkAlgorithm::MlKem768 => {
                    let (d, _) = ml_kem::MlKem768::from_seed(seed.as_slice().try_into().unwrap());
                    d.to_expanded_bytes().to_vec()
                }
                _ => {
                    let (d, _) = ml_kem::MlKem1024::from_seed(seed.as_slice().try_into().unwrap());
                    d.to_expanded_bytes().to_vec()
                }
            };
            assert_eq!(dk.len(), dk_len, "{algo}");
            let mut b = kem(algo);
            b.import_secret(&dk).unwrap();
            assert_eq!(b.decaps(&ct).unwrap(), ss, "{algo} imported");
            let mut bad = ct.clone();
            bad[0] ^= 1;
            assert_eq!(b.decaps(&bad).unwrap(), a.decaps(&bad).unwrap(), "{algo} z");
            // An imported key has no seed: key_sizes reports the raw size only.
            let sizes = b.key_sizes().unwrap();
            assert_eq!(size(&sizes, "secret_key", "raw"), dk_len, "{algo}");
            assert!(!sizes.iter().any(|e| e.encoding == "seed"), "{algo}");

            // §7.3 input checks: length, and H(ek) against the stored hash.
            assert!(b.import_secret(&dk[..dk_len - 1]).is_err(), "{algo}");
            assert!(b.decaps(&ct).is_err(), "{algo} key dropped");
            assert!(b.import_secret(&[dk.clone(), vec![0]].concat()).is_err());
            let h_at = dk_len - 64; // dk_PKE || ek || H(ek) || z
            let mut bad = dk.clone();
            bad[h_at] ^= 1;
            assert!(b.import_secret(&bad).is_err(), "{algo} H(ek)");
            let mut bad = dk.clone();
            bad[h_at - 1] ^= 1; // last byte of ek
            assert!(b.import_secret(&bad).is_err(), "{algo} ek");
            // The seed-less key is fine as long as z is the only change.
            let mut z = dk.clone();
            z[dk_len - 1] ^= 1;
            b.import_secret(&z).unwrap();
            assert_eq!(b.decaps(&ct).unwrap(), ss, "{algo} z only rejects");
        }
    }

    #[test]
    fn ml_kem_768_import_secret_wycheproof() {
        // mlkem_768_semi_expanded_decaps_test.json: tcId 1 (valid), and the
        // invalid tcIds 2-7, each tcId 1 with one change.
        let dk = unhex(WP_DECAPS_DK);
        let c = unhex(WP_DECAPS_C);
        let mut k = kem(PkAlgorithm::MlKem768);
        k.import_secret(&dk).unwrap();
        assert_eq!(k.decaps(&c).unwrap(), unhex(WP_DECAPS_K), "tcId 1");
        // tcId 2, 3: ciphertext 1087 / 1089 bytes (appended 0x00).
        assert!(k.decaps(&c[..1087]).is_err(), "tcId 2");
        assert!(k.decaps(&[c.clone(), vec![0]].concat()).is_err(), "tcId 3");
        // tcId 4, 5: decapsulation key 2399 / 2401 bytes (appended 0x00).
        assert!(k.import_secret(&dk[..2399]).is_err(), "tcId 4");
        assert!(
            k.import_secret(&[dk.clone(), vec![0]].concat()).is_err(),
            "tcId 5"
        );
        // tcId 6: corrupted H(ek) (byte 2336 ^ 0x01).
        let mut bad = dk.clone();
        bad[2336] ^= 0x01;
        assert!(k.import_secret(&bad).is_err(), "tcId 6");
        // tcId 7: corrupted embedded ek (byte 1152 ^ 0xff).
        let mut bad = dk.clone();
        bad[1152] ^= 0xff;
        assert!(k.import_secret(&bad).is_err(), "tcId 7");
    }

    // Wycheproof 0.7.0 (crate `wycheproof`), ML-KEM-768 vectors.
    /// `mlkem_768_test.json` tcId 1: the seed d‖z.
    const WP_KEYGEN_SEED: &str = "\
        cbfc4405d1b2a3a386c94c25e0f2d5f5ee92cb0388ff4d6aa04223086d51c3fd24752da14c9fc3b8\
        ae0d9e4a8b1016b8d8fc69e229c03ea2ef08a4ae0cffc37f";
    /// `mlkem_768_test.json` tcId 1: SHA-256 of ek (1184 bytes).
    const WP_KEYGEN_EK_SHA256: &str =
        "67fe2cb60768d55758c67bfd5842692dedb14513d581c48db2cd3adf94568106";
    /// `mlkem_768_test.json` tcId 1: c.
    const WP_KEYGEN_C: &str = "\
        00e96c44eb5f5380d80b4cb05d608971a28fbe838b912b558bf9676c6c67c9692ed6ea063fc47b70\
        d5d6004825c269b9cb8e68b5728d67f44844d97686a11154e3cbd4a6f9e47524d93d851bdce480d7\
        762ded09be53d17cce3ee28dc5a06911c062b99b218355dd5822108c55e2c67f7ea0b74b6189b33b\
        4589d8ff9d0c867d13edaaf1c5f724675320beda3e6acc673c048fa04a1b30f899227d5a555e08a4\
        12a47b7db75eb118a8844a71b186880426f6bb6e77186d18e753cbcce93c9fb76c729875b4d473ee\
        ca8dab9941969faef04df9ce3178e7341eab416d28bb7aee12bfb8f4c3df814eff45a0187329079a\
        cfc41a8e8dba7b08d111f02e37a1d2b69e57eef808fcc6ae23385534a420a93dfb6a95c73e2f1016\
        177c4fe9d3ced769e277293aaceded6d07efc7890eaa885bd1e73f9e5da2b9cfda0d44cbc9090705\
        ac2ce3e7bcd7775b593c706e45ddc97d3a65d9b7e73673f9473df5bfec689671f73e7f6ee77c730a\
        8ebda1f0b2c112a71904d6f28a51d8d479f8323fb485e722f5c4d5857e95989a9cbaf273efd04fc3\
        cbde98baa9969e095e88accecfbd12ef2155497a5b15fe91a70d1106b91a568363bfc2d6736cc813\
        8cbc41ddf1e54fd40511e27d89e2c26c027b63c156e2bbb998faaed3d72186f0cc626dad39a782dc\
        da2087fd13a9498e10b41b685646a227ea1166a5632c195983f4aba2b718b4074030d57126d34c38\
        349892007acbea9e393b967dc3146b270f080a1f0bee90d65a095a6352a7718ed1717a8025a2bd38\
        c66d120baf4247676a1fe044a57ce268c078f8ff46cc26fe4f9c7a03d6467adacb8418d26273662b\
        ce1f7bc00b906e0088e95dc0fb419e2232e85aac77b9e7cd563e604de5e1d3e9693dcd3b19865cf4\
        250773691e7e0af9c2755cd31f49d1f96708f3ba2f0b98184525abb869e12d5cea0ac1740181a875\
        035300b05a54b8d42ee3b4ae92b06e43cd807e2b096c977f23c61ef8c989c52ed83754076dea1323\
        f639250bef61bdf903bf7961cec89ba6942d9d0647ac9c8195d93ed8abcedf25754644035719a5a0\
        a1c8c0798912726a9a8258e4c10ae7485322ed9ba331f6f090c4b492a4fcf53d753cd34f28ec0443\
        fce0724f43c89a3942169d5099a8f7430f38691ebce2e3fe4f600d82c7ccedf60673f8e5d4c1a9f8\
        4b8b5b23f5ed63defb6a7205e0a8b105bdc6ff4568fc78cb4456b02fedb7f4c48f6fd6b69216a331\
        9821039db40e19a31a0b0c9d471d5a7a73865d26f8be3595525b1ec4a8579efd07ea98e2602e2bff\
        dfd8febc5c7b4c736d326b5030ccc6faf9420a9c156a8f4516b9fff675459dfdcd4ef85d7adbdffd\
        60f4a39628e399cc752c2e99ab2f431dc765e7c9d206bfe32649fbef4ef48b1d7936fc74766d7243\
        50ee2245a8d5f23fbc6c7ed8b57168ce1e864e49d7f8c475dcda140bd42473825b3c72eb8c547801\
        88813011e1962a503f9b516e13226de6375b204733b0192183c8f55e870e61cf8947c3191790bc0b\
        657bc43aebc9d86c";
    /// `mlkem_768_test.json` tcId 1: K.
    const WP_KEYGEN_K: &str = "76c10bb1d86d96d7eb18e298363e51f7728e113f455df7d15017940ed3541451";
    /// `mlkem_768_semi_expanded_decaps_test.json` tcId 1: dk (2400 bytes).
    const WP_DECAPS_DK: &str = "\
        79aa9d810589b8e80bc0799bf1eb8b866a6b5c8bbf99881be0025eb98902d282b432bb5174bc4e56\
        6b6cf8dbca18ca9a5894c589331fb1361625977d1f9210e8db618fd1c12a999d3ed2907270761d8a\
        88262c696e9c6b08b7950d9171e2409fceba0ce0e54776532a3750c6126728fa364df2118f6497b9\
        a6a68694b99ce4715935a57e02ec2103dc64efa0cae986b6dc78a01fb712c549b795c14540e3a65e\
        fb6f77566835dcccb89449ca0b192909cc97fc33c995cad7694cdb819ed807afe32b182d5c45da0b\
        1c26b73abaa3ba870cb73baaa86b1027a9d973df15b0d6cca7e1bc40cb017c571c709e8cad89c8b5\
        2db10afc164efa45029686746e8913b13ab234e4529303580f0653f80514f938951e1b964b769c13\
        ab01373aad41d8ba0df3589b1338bde96e73e187b425310b48c9a6e948916703f116978ef9698b09\
        1307d9a7c8052cd6487d82720524b0b8ee5a8924d630feba52cd79c0f3973adc10b40f24695b5701\
        8a66acae33782bb2344afc877e8c81b8598d1835503e8a84a58c134336b3b7083407756053474456\
        a43dd0b5c3e14aad8dba324e6c8e2aca55c566a4d62b7450e6bdb8a13c1a47c22b863b37d1c74b39\
        99be70ca9b34677740b13d0469db433d71805a4c78686cb231bfc66868721335ea5fe787917f450d\
        6a456f3fcac3b5e79c9fa68b4aa2b9b85c3509da787c31551565402802aceaf99bda268a1ca4435d\
        1a9801380d8cabb45aa7204e5678de9c1b4293ab8435a90d60bda5c2c5b560cbfe19a0268ab1c298\
        85c25c2e9f4354602464160017e5447a5c5407fb212faca62dbae54aed7b553ae22143e20e74b02b\
        2612ccf3a45e23b43b16b8c5dd666bb1cc681d947ab3c80da0665ace802b74894a4f19617ce68273\
        67666117a71b0c6d2d4561ad627521c9035b49a353d2c42dbc484ce833ddd1877d04b4174041d985\
        b16c0c6a9193b35fa66d559a7bcfe28a17415f002c89fba47ee033085ce14241d825fc22486e804d\
        07fa59fb41072c64b73d9b8d3d3a81cce787bcb05b893b36c6d38f211996e2fcbeef29af07cc1b54\
        f7c829a4cbdbf07390d31ef3a25870486e97b15454386a5ae712bbf3ada33622001748c2211b73e5\
        80e0677d5d7aab732c0c570a7083b6aa19a51f87030253689d6ada6f374370938c5fd78c0f10d74c\
        3563757f4a7ba29193ce2a472e4205c9272f7ad7bb83dcbaf120a156194f798cb080429971c6728f\
        127f8a089cde945a1a3111c9a27784d87384513931934a224595657268ed875d820917bc42b2d707\
        49b270532a2294167cc4ac8ba83302a08b67167b3284d456aa0937385968cd4eb96b4ae79f54db1e\
        5194915ed03d307c25dcd00595f710272519c8636a6f883cb6599e23da1f45f41e853684b1dc72cd\
        f430fd1308535577ae3a7e84054e517160842635a0699ebf2970305c39bad1cb338164f5b1239837\
        a389998a459b9290c11d54b8448596721386b7dd190b4a24a7f9b97eb9c7188f57008043754c4883\
        f2e42e9e6c579442152e500c9480a1d9bcc0773b0fffd484c9078d46c30dfc74b8a7a17f799a1ea3\
        8554298ca224a0c4e976161fe7115ab55add0cbabaf0361fa355ca39001f3104254a797885c63b14\
        40aa389c65340ef33520cc039aa8d749ae7095ba8485a2444f80700741327c363a457b8538b13b6e\
        d6f13c29b232518c704e1286a74867d3aab607295d1a7483876593dce803b1fa42656cbb535531d3\
        b76d18f930f3d19df4a02d4c6888d5596b3fb382257a41e3e252eb4865d9105e87d7888f643485f5\
        b300bd755e2705e9d366c73786eda71d10b1516461c8d1cb91cf9721498672128c935e04512e0722\
        3772b806871123b08c4059a7a75415c4ba85fd07603d38613e01b9867203c3a12a19f84efb9b8e69\
        7b3581455833cc48439533520cad13bbb01171863641b32e2231f8870e50655b9c258cb547ada7d7\
        8722acce5a89cbbbdb16273c776c76a453aa7a1e93a1035094e9fb5f7909755671384141cfc2680f\
        4f7751f9a1c1dfb7b9e563581eb9752555b1ab1865a7690123664a6e560f8407bef86bc4da18c008\
        c6864a4758bca62da5a18baa331c897b49fcb02c2b471521632f59f1cf03166862b124a1ac3581f3\
        bf8a351ec79c87428463364b0b3bd15d359760d9ab8fabb17be9078741a1a29afc5aa478772ecb3e\
        33e0b081195c12e5c159434d29bc29ab120d6d184e116846da879b6bf8a9b96702612613a9aa214e\
        4ba2b7b1ba7fb408d1541d8983b50a0cbb4e08467f3572c49b4dc82aa4a11aa26a850970689b4ee9\
        aa9487b60ed65362571785b44c3dec3282b9897843a68c437a2c381b66095fff79597ff107cdcb18\
        13b100eda23dbdf6a239f404b48a57da66234ba7c070f569f0f8b9e125ac888707f1707d2b456289\
        3a27e4dc5ba91b72b65b7357ba5c3c339fea9c3e78b421f431c314421e51176834e59e2b899a99c3\
        8e484792d3bc2873e87842d3c55f684a4a940c6a63a2a168a3eb3368fbe83f8de53524e787c18242\
        1ab28617b120d00978111bb58e01b0efb463d3eb769fc66e4a59b94af6a7abe454e960ae3e0b3b4e\
        6b913bb73ffc7b2b345377b9251bc6613a74d01877541b8cc3138f299a6f2728aaeb89c5d208a347\
        1f71a8864a9bcc530580251a6741535a62d8a0e171812bf98846a2840570499db41932640488487b\
        108c72d42b7a7dc544b971a32fda8066769cb4700905e2265b7a4370d8c03ee27f8c1976a499c134\
        c82512413778f884b1771a9e7987321890c64aa19cd78f4d1923f5949448048fa5e7135a9343db66\
        91e6b18056779044667115fbc1443b6e74a923279586cf27629ae285ca100e1062ccf56c96b9d720\
        eda92e81b8ae1994a508588a50330f73d46f998199f738701146a4ddb41e785c988fc51eb71b8e49\
        275b7f7ba5e59300ae12ca0fd152d039c76df0526ce34dbeaba17d11a6b0060ca61401cec35fe9b1\
        75e27517a41c4b8a07056fc10ec6f62677f62b76840bd91a9520c4a819c83d80430941247a596462\
        96ccbea7dc1ab30170de38624e8a33b4c2ba2dc97bf73a71d9ac35a480a83f1bb1e1c4777409d0a0\
        65782a1a707b068d4bf2205101202fcbc71ab94b2929cb44e2c547ec10b5a72d8c8759fb2920adc8\
        0b85713975414b7b20b983e848d3a0c3bc433bbf26b700a1a40322a84de5c87eb9877ad68abe9886\
        f7db6989964002ea566cc616463b17e0e783e5a96217a2006d3ae406763c50457d1481402aafc7e2\
        3f43f9d1d7c0af7060ac1daa9ecb0e6707f81a8b0e266a3ee92d3a63cdae5cff921905544c9dd797\
        a849e1d054180eca0000000000000000000000000000000000000000000000000000000000000000";
    /// `mlkem_768_semi_expanded_decaps_test.json` tcId 1: c.
    const WP_DECAPS_C: &str = "\
        1708d1877e99d8910d48df9625973d7954e187b29405a4ccad6d287becda31215debb762add5881c\
        f7af0dc6deaac229e8716e64058785680ef96baf05a51ffcd7f969214f07ad69e3ea71ba334b3cf0\
        aafb010f902df78a459a3311806c095141f341578ce44dc5b2068708f06df7632dfdee9c862ba2a4\
        6fe5d4cdf01a234998c43fad4d861ab3db4befab842f070413545ac1a46f9a144360954c73c4e7a5\
        befe51c41e10600ec723a25f602888cb2834c6e2b9543863d1e8789d011608e139f1b6f88d59d74a\
        5a73fe5748b500554db2dd232e6f8b12b0016a4bf6c795542a73408553d4fdecb1180cd4e7f0adfb\
        3a882e17953eac46ba59798fc6bec1fd5c64d458b693427f8b878b5024d284244887a1901cb3f2ae\
        ff996fb9179cc141bd140d20cb8ad6f43849582fb80aabdfca969dbb75a5cc8f2a27b1b562dc52da\
        9b4caa479bf0676718245eb0889ce3eec4e209b0de3ac318e080e3e78917e836161bc6a392f869b2\
        34fcf2ff74b6170cb4180816b476dc08f174a2502af1b02f027e28b562b336410868399fe3b16aa8\
        119cebbcc3c82cbdbfb3048a2c16eabc27d685a37f8764e097958ea04bd89b085eac32fa292dd388\
        7b3a51d5a79fa0e98922201a30d798b3701edd119515662d2ce03b9f95a527432c70594ff4763b52\
        807b6f330c8371304ff31693a80265e3e746ac8a5b604671422f60652e794f3216adc6aaabd11e74\
        eb48eb17f4e9dc32c5d7045b47fa107ce17457a21bceb57981b227456ff4b17c08a98c9e560a3883\
        a20bbdc2a07d535c666b1ac85e23bfe7694ae185e25f1311ef9f52227f107d199258266189ed3010\
        380e8ab8a2f819eff5e0063be138fd3e73299fb78bd61a6846322b9f76391dcf5eb8b7fb09504721\
        74e0d95c4ee294a03c8901a4cf8716ebb1f86eec56f48daf5c0dc4a2b3e99fc9fc8c1fdd1dea4681\
        aca7a3a769de0fe815d5729ce7f5c0e443d096570e8439ec69998878103546a469b10f5763dced2d\
        68a6e801953d22b881d343bc755fc87e9b921984f9f5c588fe372816c82ef6193aae99f56ad6a498\
        434058d3005cc70f9db222e3e61d5a1533f919f78130c653a5d77509657ce010b4327c3b10974ae7\
        b7f60d7236ee00fe99e841b840c8d2fbaed2918e8c3cefdc8cb359790217335820c60e1ad80a79e3\
        e7ce7298db9cb7b17337fe7f93b34d132af1e23e89a2bb142fbb72ad8209125edc610b89afef33e7\
        f63d146f5e76abd6fc519ba662c34f16bd325fae403c35d0458d77035382e1a1980e12823c20363d\
        db5c776a4d9358f57ef287522cfa2f12092447e7aa91f09de74377b83db250506ff8d278e028c24a\
        bae0397e8b8394da66bdba138aea35a06a740b4d9879c5dea207faa3a1f5001fc6bc2a5b31d88033\
        8dc3c50e3a17f36de19e580c98cdfdddc0bd3bfd5b4331b8205a9b7c90fb0995573fc49f86d45a85\
        cb105f79954844236acc7e72e9b42fbcffce53edb4fbd767eb8b4eda3a77d6b8036edd883189da22\
        7ecafeaea0d49a31";
    /// `mlkem_768_semi_expanded_decaps_test.json` tcId 1: K.
    const WP_DECAPS_K: &str = "b4d29cd55bab43e16554b74b9098cdfce583996c968bcd2cfd1ad9455e351fbf";
}
