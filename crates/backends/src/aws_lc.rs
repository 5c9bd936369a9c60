//! AWS-LC through `aws-lc-rs` (rustls' default provider). Its C symbols are
//! prefixed, so it links beside the vendored OpenSSL.
//!
//! How each call reaches the library: AEADs through `LessSafeKey`, sealing
//! in place (`seal_in_place_separate_tag`) and opening out of place
//! (`open_separate_gather`, no copy); AES-CTR and AES-ECB through
//! `cipher::EncryptingKey`/`DecryptingKey` (`less_safe_encrypt` with the
//! caller's counter block); X25519 through `agreement::PrivateKey`, which,
//! unlike ring's, can be kept and reused, so it serves as seed 003's KEM;
//! ML-KEM through `kem::DecapsulationKey`/`EncapsulationKey` (a peer key is
//! imported with `EncapsulationKey::new`, which rejects a key AWS-LC cannot
//! parse); signatures through `signature::*KeyPair`. Verification `api-call`
//! goes through `UnparsedPublicKey` (the key is parsed in every call);
//! `operation` parses it once into a `ParsedPublicKey` before the clock.
//!
//! `--hw off` and `seed000`: AWS-LC reads `OPENSSL_ia32cap` once at
//! start-up, like OpenSSL, so those points run in a worker started with
//! the mask, and the worker reads AWS-LC's own capability words back
//! (`library_cpu_view` of every record) as the proof that it took effect.

use ango_core::pk::prepared;
use crate::{LESS_SAFE_KEY, LESS_SAFE_KEY_LENGTHS};
use ango_core::{
    Aead, AeadLengths, Algorithm, Backend, Cipher, Entry, Error, Hw, PkAlgorithm, PkBackend, PkKind, PkOp,
    Prepared, Provider, Result, SizeEntry, Unavailable,
};
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey,
};
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{self as sig, KeyPair as _, VerificationAlgorithm};

const NAME: &str = "aws-lc";
/// The Rust binding, pinned exactly in Cargo.toml.
const BINDING: &str = "aws-lc-rs 1.19.0";

provider_errors!(NAME);

/// "AWS-LC 5.x.y (aws-lc-rs 1.19.0)": the library's own version string,
/// read from the linked library.
fn version() -> String {
    format!("AWS-LC {} ({BINDING})", aws_lc_rs::awslc_version())
}

pub struct AwsLc;

struct LcAead(LessSafeKey);

impl Aead for LcAead {
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
        // Out of place, straight from the ciphertext: no copy.
        self.0
            .open_separate_gather(n, Aad::from(aad), ct, tag, out)
            .map_err(|_| Error::AuthFailed)
    }
}

/// AES-CTR or AES-ECB: the key in both directions.
struct LcCipher {
    enc: EncryptingKey,
    dec: DecryptingKey,
    ctr: bool,
}

impl LcCipher {
    fn contexts(&self, iv: &[u8]) -> Result<(EncryptionContext, DecryptionContext)> {
        if !self.ctr {
            return Ok((EncryptionContext::None, DecryptionContext::None));
        }
        let iv: [u8; 16] = iv
            .try_into()
            .map_err(|_| err("CTR needs a 16-byte initial counter block"))?;
        Ok((
            EncryptionContext::Iv128(FixedLength::from(iv)),
            DecryptionContext::Iv128(FixedLength::from(iv)),
        ))
    }
}

impl Cipher for LcCipher {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let (e, _) = self.contexts(iv)?;
        self.enc
            .less_safe_encrypt(buf, e)
            .map(|_| ())
            .map_err(|_| err("encryption failed (ECB needs whole blocks)"))
    }
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let (_, d) = self.contexts(iv)?;
        self.dec
            .decrypt(buf, d)
            .map(|_| ())
            .map_err(|_| err("decryption failed (ECB needs whole blocks)"))
    }
}

#[cfg(target_arch = "x86_64")]
fn vaes512() -> bool {
    std::arch::is_x86_feature_detected!("vaes")
        && std::arch::is_x86_feature_detected!("vpclmulqdq")
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

#[cfg(not(target_arch = "x86_64"))]
fn vaes512() -> bool {
    false
}

/// AWS-LC's view of the CPU: the four words of its `OPENSSL_ia32cap_P`
/// (0/1: CPUID.1 EDX/ECX, 2/3: CPUID.7 EBX/ECX) after it applied
/// `OPENSSL_ia32cap`, which it reads once, at start-up, in the same
/// format as OpenSSL (two 64-bit values, `~` to clear bits). The symbol
/// carries aws-lc-sys' prefix, which Cargo.toml pins (`=0.47.0`).
#[cfg(target_arch = "x86_64")]
fn ia32cap_words() -> [u32; 4] {
    extern "C" {
        // crypto/fipsmodule/cpucap/cpucap.c: uint32_t OPENSSL_ia32cap_P[4].
        static aws_lc_0_47_0_OPENSSL_ia32cap_P: [u32; 4];
    }
    aws_lc_rs::init();
    // SAFETY: FFI read of a 4-word AWS-LC global, written only by its
    // one-time CPU set-up, which aws_lc_rs::init() above has completed.
    unsafe { std::ptr::addr_of!(aws_lc_0_47_0_OPENSSL_ia32cap_P).read_volatile() }
}

/// The features that choose AWS-LC's AES-GCM and ChaCha20 code which
/// AWS-LC uses, as its capability words say after `OPENSSL_ia32cap`.
#[cfg(target_arch = "x86_64")]
pub fn ia32cap_features() -> Vec<&'static str> {
    let w = ia32cap_words();
    let bit = |word: usize, b: u32| w[word] >> b & 1 == 1;
    [
        ("aes-ni", bit(1, 25)),
        ("pclmulqdq", bit(1, 1)),
        ("ssse3", bit(1, 9)),
        ("avx", bit(1, 28)),
        ("movbe", bit(1, 22)),
        ("avx2", bit(2, 5)),
        ("avx512f", bit(2, 16)),
        ("vaes", bit(3, 9)),
        ("vpclmulqdq", bit(3, 10)),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(n, _)| *n)
    .collect()
}

#[cfg(not(target_arch = "x86_64"))]
pub fn ia32cap_features() -> Vec<&'static str> {
    Vec::new()
}

/// The capability words as `OPENSSL_ia32cap` would spell them, and the
/// features among them that choose AWS-LC's AES-GCM and ChaCha20 code.
#[cfg(target_arch = "x86_64")]
fn cpu_view() -> Option<String> {
    let w = ia32cap_words();
    Some(format!(
        "0x{:08x}{:08x}:0x{:08x}{:08x} [{}]",
        w[1],
        w[0],
        w[3],
        w[2],
        ia32cap_features().join(",")
    ))
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_view() -> Option<String> {
    None
}

/// `hw off` and `seed000` run in a worker started with the same
/// `OPENSSL_ia32cap` mask as OpenSSL's; `cpu_view` read in that worker is
/// the proof it took effect.
fn worker_env(hw: Hw) -> Option<ango_core::catalog::WorkerEnv> {
    match hw.ia32cap() {
        Some(v) => Some(vec![("OPENSSL_ia32cap", v.to_string())]),
        // A user's own OPENSSL_ia32cap must not leak into "on" points.
        None if std::env::var_os("OPENSSL_ia32cap").is_some() => {
            Some(vec![("OPENSSL_ia32cap", String::new())])
        }
        None => None,
    }
}

impl Backend for AwsLc {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        version()
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if let Some(n) = algo.library_note() {
            return Err(Unavailable(n));
        }
        use Algorithm::*;
        match algo {
            Aes128Gcm | Aes256Gcm | ChaCha20Poly1305 | Aes128Ctr | Aes256Ctr | Aes128Ecb
            | Aes256Ecb => {}
            _ => {
                return Err(Unavailable(format!(
                    "aws-lc-rs exposes no {algo} (it has AES-GCM, ChaCha20-Poly1305, AES-CTR and \
                     AES-ECB)"
                )))
            }
        }
        match hw {
            Hw::On => Ok(()),
            _ if cfg!(target_arch = "x86_64") => Ok(()),
            _ => Err(Unavailable(
                "OPENSSL_ia32cap masks exist on x86_64 only".into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        use Algorithm::*;
        let gcm = if vaes512() {
            "VAES-AVX512 where AWS-LC's capability words allow it, as on this CPU with hw on"
        } else {
            "AWS-LC's CPU dispatch"
        };
        match algo {
            Aes128Gcm | Aes256Gcm => format!("{BINDING} LessSafeKey {algo} ({gcm})"),
            ChaCha20Poly1305 => format!("{BINDING} LessSafeKey CHACHA20_POLY1305"),
            Aes128Ctr | Aes256Ctr => format!("{BINDING} cipher::EncryptingKey::ctr"),
            Aes128Ecb | Aes256Ecb => format!("{BINDING} cipher::EncryptingKey::ecb"),
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
            Algorithm::Aes128Gcm => &aws_lc_rs::aead::AES_128_GCM,
            Algorithm::Aes256Gcm => &aws_lc_rs::aead::AES_256_GCM,
            Algorithm::ChaCha20Poly1305 => &aws_lc_rs::aead::CHACHA20_POLY1305,
            _ => return Err(err(format!("{algo} is not an AEAD of aws-lc-rs"))),
        };
        AeadLengths::fixed(NAME, algo, (nonce_len, tag_len), LESS_SAFE_KEY_LENGTHS)?;
        let k = UnboundKey::new(alg, key).map_err(|_| err(format!("{algo}: bad key length")))?;
        Ok(Box::new(LcAead(LessSafeKey::new(k))))
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        use Algorithm::*;
        let (alg, ctr) = match algo {
            Aes128Ctr => (&aws_lc_rs::cipher::AES_128, true),
            Aes256Ctr => (&aws_lc_rs::cipher::AES_256, true),
            Aes128Ecb => (&aws_lc_rs::cipher::AES_128, false),
            Aes256Ecb => (&aws_lc_rs::cipher::AES_256, false),
            _ => return Err(err(format!("{algo} is not a cipher of aws-lc-rs"))),
        };
        let unbound = || UnboundCipherKey::new(alg, key).map_err(|_| err("bad key length"));
        let (enc, dec) = if ctr {
            (
                EncryptingKey::ctr(unbound()?),
                DecryptingKey::ctr(unbound()?),
            )
        } else {
            (
                EncryptingKey::ecb(unbound()?),
                DecryptingKey::ecb(unbound()?),
            )
        };
        Ok(Box::new(LcCipher {
            enc: enc.map_err(|_| err("cipher key"))?,
            dec: dec.map_err(|_| err("cipher key"))?,
            ctr,
        }))
    }
}

// ---------------------------------------------------------------------------
// Public key

pub struct AwsLcPk;

fn kem_alg(a: PkAlgorithm) -> Option<&'static aws_lc_rs::kem::Algorithm> {
    Some(match a {
        PkAlgorithm::MlKem512 => &aws_lc_rs::kem::ML_KEM_512,
        PkAlgorithm::MlKem768 => &aws_lc_rs::kem::ML_KEM_768,
        PkAlgorithm::MlKem1024 => &aws_lc_rs::kem::ML_KEM_1024,
        _ => return None,
    })
}

/// ML-KEM-512/768/1024.
struct MlKem {
    alg: &'static aws_lc_rs::kem::Algorithm,
    dk: Option<aws_lc_rs::kem::DecapsulationKey>,
    peer: Option<aws_lc_rs::kem::EncapsulationKey>,
}

impl ango_core::Kem for MlKem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let dk = aws_lc_rs::kem::DecapsulationKey::generate(self.alg)
            .map_err(|_| err("ML-KEM keygen"))?;
        let pk = dk
            .encapsulation_key()
            .and_then(|ek| ek.key_bytes())
            .map_err(|_| err("ML-KEM public key"))?
            .as_ref()
            .to_vec();
        self.dk = Some(dk);
        Ok(pk)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        let ek = aws_lc_rs::kem::EncapsulationKey::new(self.alg, pk)
            .map_err(|e| err(format!("invalid ML-KEM public key: {e}")))?;
        self.peer = Some(ek);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let ek = self.peer.as_ref().ok_or_else(no_peer)?;
        let (ct, ss) = ek.encapsulate().map_err(|_| err("ML-KEM encaps"))?;
        Ok((ct.as_ref().to_vec(), ss.as_ref().to_vec()))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let dk = self.dk.as_ref().ok_or_else(no_key)?;
        let ss = dk
            .decapsulate(aws_lc_rs::kem::Ciphertext::from(ct))
            .map_err(|_| err("ML-KEM decaps (wrong ciphertext length?)"))?;
        Ok(ss.as_ref().to_vec())
    }

    /// The FIPS 203 decapsulation key (its expanded encoding).
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.dk = None;
        let dk = aws_lc_rs::kem::DecapsulationKey::new(self.alg, sk)
            .map_err(|e| err(format!("invalid ML-KEM secret key: {e}")))?;
        self.dk = Some(dk);
        Ok(())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let dk = self.dk.as_ref().ok_or_else(no_key)?;
        let sk = dk.key_bytes().map_err(|_| err("ML-KEM secret key"))?;
        Ok(vec![SizeEntry::new("secret_key", "raw", sk.as_ref().len())])
    }
}

/// X25519 as seed 003's KEM: a kept `agreement::PrivateKey`.
#[derive(Default)]
struct X25519 {
    sk: Option<aws_lc_rs::agreement::PrivateKey>,
    peer: Option<Vec<u8>>,
}

fn x25519_agree(sk: &aws_lc_rs::agreement::PrivateKey, pk: &[u8]) -> Result<Vec<u8>> {
    let peer = aws_lc_rs::agreement::UnparsedPublicKey::new(&aws_lc_rs::agreement::X25519, pk);
    aws_lc_rs::agreement::agree(sk, peer, err("X25519: invalid public key"), |s| {
        Ok(s.to_vec())
    })
}

impl ango_core::Kem for X25519 {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let sk = aws_lc_rs::agreement::PrivateKey::generate(&aws_lc_rs::agreement::X25519)
            .map_err(|_| err("X25519 keygen"))?;
        let pk = sk
            .compute_public_key()
            .map_err(|_| err("X25519 public key"))?
            .as_ref()
            .to_vec();
        self.sk = Some(sk);
        Ok(pk)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = Some(crate::pk::bytes32("X25519 public key", pk).map_err(err)?);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let peer = self.peer.as_ref().ok_or_else(no_peer)?;
        let eph = aws_lc_rs::agreement::PrivateKey::generate(&aws_lc_rs::agreement::X25519)
            .map_err(|_| err("X25519 keygen"))?;
        let ct = eph
            .compute_public_key()
            .map_err(|_| err("X25519 public key"))?
            .as_ref()
            .to_vec();
        Ok((ct, x25519_agree(&eph, peer)?))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        x25519_agree(sk, ct)
    }

    /// The 32-byte private scalar (RFC 7748).
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.sk = None;
        let k =
            aws_lc_rs::agreement::PrivateKey::from_private_key(&aws_lc_rs::agreement::X25519, sk)
                .map_err(|_| err("invalid X25519 private key"))?;
        self.sk = Some(k);
        Ok(())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        self.sk.as_ref().ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new("secret_key", "raw", 32)])
    }
}

/// A key pair of one of the signature schemes.
enum KeyPair {
    Ed25519(sig::Ed25519KeyPair),
    Ecdsa(sig::EcdsaKeyPair),
    Rsa(sig::RsaKeyPair),
    MlDsa(sig::PqdsaKeyPair),
}

/// Every signature scheme: Ed25519, ECDSA P-256 (DER), RSA-PSS SHA-256
/// (salt 32, e = 65537; SPKI keys), ML-DSA-44/65/87 (hedged).
struct Signer {
    algo: PkAlgorithm,
    kp: Option<KeyPair>,
    peer: Option<Vec<u8>>,
}

impl Signer {
    fn verify_alg(&self) -> &'static dyn VerificationAlgorithm {
        match self.algo {
            PkAlgorithm::Ed25519 => &sig::ED25519,
            PkAlgorithm::P256 => &sig::ECDSA_P256_SHA256_ASN1,
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => &sig::RSA_PSS_2048_8192_SHA256,
            PkAlgorithm::MlDsa44 => &sig::ML_DSA_44,
            PkAlgorithm::MlDsa65 => &sig::ML_DSA_65,
            _ => &sig::ML_DSA_87,
        }
    }
}

fn der<T: AsRef<[u8]>>(
    r: std::result::Result<T, aws_lc_rs::error::Unspecified>,
) -> Result<Vec<u8>> {
    r.map(|d| d.as_ref().to_vec())
        .map_err(|_| err("DER encoding"))
}

impl ango_core::Signer for Signer {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let e = |what: &str| err(format!("{what} keygen"));
        let (kp, pk) = match self.algo {
            PkAlgorithm::Ed25519 => {
                let kp = sig::Ed25519KeyPair::generate().map_err(|_| e("Ed25519"))?;
                let pk = kp.public_key().as_ref().to_vec();
                (KeyPair::Ed25519(kp), pk)
            }
            PkAlgorithm::P256 => {
                let kp = sig::EcdsaKeyPair::generate(&sig::ECDSA_P256_SHA256_ASN1_SIGNING)
                    .map_err(|_| e("P-256"))?;
                let pk = der(kp.public_key().as_der().map(|d| d.as_ref().to_vec()))?;
                (KeyPair::Ecdsa(kp), pk)
            }
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => {
                let size = if self.algo == PkAlgorithm::Rsa2048 {
                    aws_lc_rs::rsa::KeySize::Rsa2048
                } else {
                    aws_lc_rs::rsa::KeySize::Rsa3072
                };
                let kp = sig::RsaKeyPair::generate(size).map_err(|_| e("RSA"))?;
                let pk = der(kp.public_key().as_der().map(|d| d.as_ref().to_vec()))?;
                (KeyPair::Rsa(kp), pk)
            }
            a => {
                let alg = match a {
                    PkAlgorithm::MlDsa44 => &sig::ML_DSA_44_SIGNING,
                    PkAlgorithm::MlDsa65 => &sig::ML_DSA_65_SIGNING,
                    _ => &sig::ML_DSA_87_SIGNING,
                };
                let kp = sig::PqdsaKeyPair::generate(alg).map_err(|_| e("ML-DSA"))?;
                let pk = kp.public_key().as_ref().to_vec();
                (KeyPair::MlDsa(kp), pk)
            }
        };
        self.kp = Some(kp);
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let e = || err("sign");
        Ok(match self.kp.as_ref().ok_or_else(no_key)? {
            KeyPair::Ed25519(kp) => kp.sign(msg).as_ref().to_vec(),
            KeyPair::Ecdsa(kp) => kp
                .sign(&SystemRandom::new(), msg)
                .map_err(|_| e())?
                .as_ref()
                .to_vec(),
            KeyPair::Rsa(kp) => {
                let mut s = vec![0u8; kp.public_modulus_len()];
                kp.sign(&sig::RSA_PSS_SHA256, &SystemRandom::new(), msg, &mut s)
                    .map_err(|_| e())?;
                s
            }
            KeyPair::MlDsa(kp) => {
                let mut s = vec![0u8; kp.algorithm().signature_len()];
                let n = kp.sign(msg, &mut s).map_err(|_| e())?;
                s.truncate(n);
                s
            }
        })
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        // Parsed once here only to refuse a bad key early; `verify` parses
        // it again, as the library's one-shot verify does.
        sig::ParsedPublicKey::new(self.verify_alg(), pk)
            .map_err(|e| err(format!("invalid {} public key: {e}", self.algo.label())))?;
        self.peer = Some(pk.to_vec());
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        Ok(sig::UnparsedPublicKey::new(self.verify_alg(), pk)
            .verify(msg, s)
            .is_ok())
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        Ok(match self.kp.as_ref().ok_or_else(no_key)? {
            KeyPair::Ed25519(kp) => vec![SizeEntry::new(
                "secret_key",
                "pkcs8-der",
                der(kp.to_pkcs8v1())?.len(),
            )],
            KeyPair::Ecdsa(kp) => vec![SizeEntry::new(
                "secret_key",
                "pkcs8-der",
                der(kp.to_pkcs8v1())?.len(),
            )],
            KeyPair::Rsa(kp) => vec![SizeEntry::new(
                "secret_key",
                "pkcs8-der",
                kp.as_der()
                    .map(|d| d.as_ref().len())
                    .map_err(|_| err("DER encoding"))?,
            )],
            KeyPair::MlDsa(kp) => vec![SizeEntry::new(
                "secret_key",
                "pkcs8-der",
                kp.private_key()
                    .as_der()
                    .map(|d| d.as_ref().len())
                    .map_err(|_| err("DER encoding"))?,
            )],
        })
    }

    fn signature_encoding(&self) -> &'static str {
        match self.algo {
            PkAlgorithm::P256 => "x962-der",
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => "rsa-pss-sha256",
            _ => "raw",
        }
    }

    fn public_key_encoding(&self) -> &'static str {
        match self.algo {
            PkAlgorithm::P256 | PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => "spki-der",
            _ => "raw",
        }
    }

    /// Verification with the public key parsed before the clock; signing
    /// has no per-call set-up to hoist.
    fn prepare(&mut self, op: PkOp, msg: &[u8], s: &[u8]) -> Result<Option<Prepared<'_>>> {
        if op != PkOp::Verify {
            return Ok(None);
        }
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        let parsed = sig::ParsedPublicKey::new(self.verify_alg(), pk)
            .map_err(|e| err(format!("public key: {e}")))?;
        let (msg, s) = (msg.to_vec(), s.to_vec());
        Ok(Some(prepared(1, move |out| {
            out[0] = u8::from(parsed.verify_sig(&msg, &s).is_ok());
            Ok(1)
        })))
    }
}

impl PkBackend for AwsLcPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        version()
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        use PkAlgorithm::*;
        match algo {
            X25519 | MlKem512 | MlKem768 | MlKem1024 | Rsa2048 | Rsa3072 | P256 | Ed25519
            | MlDsa44 | MlDsa65 | MlDsa87 => Ok(()),
            _ => Err(Unavailable(format!(
                "aws-lc-rs exposes no {} (it has X25519, ML-KEM, ECDSA, Ed25519, RSA and ML-DSA)",
                algo.family()
            ))),
        }
    }

    fn implementation(&self, algo: PkAlgorithm) -> String {
        use PkAlgorithm::*;
        let what = match algo {
            X25519 => "agreement::PrivateKey X25519 (ephemeral-static DH as a KEM)".to_string(),
            MlKem512 | MlKem768 | MlKem1024 => format!("kem::DecapsulationKey {}", algo.label()),
            Rsa2048 | Rsa3072 => "RsaKeyPair RSA_PSS_SHA256 (salt 32)".into(),
            P256 => "EcdsaKeyPair ECDSA_P256_SHA256_ASN1".into(),
            Ed25519 => "Ed25519KeyPair".into(),
            MlDsa44 | MlDsa65 | MlDsa87 => format!("PqdsaKeyPair {} (hedged)", algo.label()),
            _ => return "none".into(),
        };
        format!("{BINDING} {what}")
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Kem>> {
        if algo.kind() != PkKind::Kem {
            return Err(err(format!("{algo} is not a KEM")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        if algo == PkAlgorithm::X25519 {
            return Ok(Box::new(X25519::default()));
        }
        let alg = kem_alg(algo).ok_or_else(|| err(format!("{algo}: no KEM")))?;
        Ok(Box::new(MlKem {
            alg,
            dk: None,
            peer: None,
        }))
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn ango_core::Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(err(format!("{algo} is not a signature algorithm")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(Box::new(Signer {
            algo,
            kp: None,
            peer: None,
        }))
    }
}

/// AWS-LC as a provider: its AEADs, AES modes, KEMs and signatures.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version,
    worker_env,
    cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_entries() -> Vec<Entry> {
    let mut v = ango_core::catalog::entries_of_backend(&PROVIDER, &AwsLc);
    v.extend(ango_core::catalog::entries_of_pk_backend(
        &PROVIDER, &AwsLcPk,
    ));
    v
}
