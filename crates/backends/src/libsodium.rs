//! libsodium, built from the source `libsodium-sys-stable` bundles (never
//! its `fetch-latest` feature): ChaCha20-Poly1305 (IETF),
//! XChaCha20-Poly1305, AES-256-GCM where the CPU has AES-NI and PCLMULQDQ,
//! X25519, Ed25519 and ML-KEM-768.
//!
//! How each call reaches the library: the detached AEAD calls, sealing in
//! place (libsodium allows `c == m`) and opening out of place (no copy);
//! AES-256-GCM through its precomputed state (`beforenm` once per key, then
//! `encrypt_detached_afternm` / `decrypt_detached_afternm`, libsodium's
//! fastest form). X25519 as seed 003's KEM through `crypto_scalarmult`
//! (which refuses an all-zero shared secret), Ed25519 through
//! `crypto_sign_ed25519_detached` / `_verify_detached`, ML-KEM-768 through
//! `crypto_kem_mlkem768_*` (libsodium has no decapsulation-key check: the
//! adapter applies FIPS 203 §7.3's H(ek) check to an imported key, as a
//! caller must; keys from its own keygen and timed calls are not checked).
//! libsodium keeps no per-key state for these
//! public-key calls, so `operation` and `api-call` time the same call.
//!
//! libsodium chooses its ChaCha20, Poly1305 and AES-GCM code by CPUID with
//! no switch to turn features off, so `--hw off` is not offered.

use ango_core::{
    AeadLengths,
    Aead, Algorithm, Backend, Cipher, Entry, Error, Hw, Kem, PkAlgorithm, PkBackend, PkKind,
    Provider, Result, Signer, SizeEntry, Unavailable,
};
use libsodium_sys as ffi;

const NAME: &str = "libsodium";
/// The Rust crate that bundles and builds it, pinned exactly.
const BINDING: &str = "libsodium-sys-stable 1.24.3";

provider_errors!(NAME);

/// `sodium_init` once per process (it picks the CPU-specific code).
fn init() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: FFI; sodium_init is thread-safe and idempotent, returning 0
    // (first call), 1 (already initialised) or -1 (failure).
    *OK.get_or_init(|| unsafe { ffi::sodium_init() } >= 0)
}

/// "libsodium 1.0.22 (libsodium-sys-stable 1.24.3)", the version read from
/// the linked library.
fn version() -> String {
    // SAFETY: FFI; sodium_version_string returns a static NUL-terminated
    // string.
    let v = unsafe { std::ffi::CStr::from_ptr(ffi::sodium_version_string()) };
    format!("libsodium {} ({BINDING})", v.to_string_lossy())
}

fn random(buf: &mut [u8]) {
    init();
    // SAFETY: FFI; writes exactly buf.len() bytes into buf.
    unsafe { ffi::randombytes_buf(buf.as_mut_ptr().cast(), buf.len()) }
}

fn aes_gcm_available() -> bool {
    // SAFETY: FFI; a pure query after sodium_init.
    init() && unsafe { ffi::crypto_aead_aes256gcm_is_available() } == 1
}

#[cfg(target_arch = "x86_64")]
fn has(f: &str) -> bool {
    match f {
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "ssse3" => std::arch::is_x86_feature_detected!("ssse3"),
        "sse2" => std::arch::is_x86_feature_detected!("sse2"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn has(_f: &str) -> bool {
    false
}

/// The ChaCha20 and Poly1305 code libsodium's run-time dispatch picks here
/// (crypto_stream/chacha20 and crypto_onetimeauth/poly1305 pick by CPUID).
fn chacha_path() -> String {
    let c = if has("avx512f") {
        "chacha20 AVX-512"
    } else if has("avx2") {
        "chacha20 AVX2"
    } else if has("ssse3") {
        "chacha20 SSSE3"
    } else {
        "chacha20 ref"
    };
    let p = if has("sse2") {
        "poly1305 SSE2"
    } else {
        "poly1305 donna"
    };
    format!("{c}, {p}")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    ChaCha,
    XChaCha,
    AesGcm,
}

struct SodiumAead {
    kind: Kind,
    key: [u8; 32],
    /// AES-256-GCM's expanded key and GHASH table (`beforenm`).
    aes: Option<Box<ffi::crypto_aead_aes256gcm_state>>,
}

impl SodiumAead {
    fn lengths(&self) -> AeadLengths {
        AeadLengths::new(if self.kind == Kind::XChaCha { 24 } else { 12 }, 16)
    }
}

impl Aead for SodiumAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths().seal(NAME, nonce, tag)?;
        let mut maclen: std::os::raw::c_ulonglong = 0;
        let (c, m, n) = (buf.as_mut_ptr(), buf.as_ptr(), buf.len() as u64);
        let (ad, adlen) = (aad.as_ptr(), aad.len() as u64);
        // SAFETY: FFI; libsodium allows the ciphertext to overwrite the
        // message in place (c == m); `tag` has the 16 bytes written, the
        // nonce has its algorithm's length (all three checked above), the key 32
        // bytes, and `aes` was set up by beforenm for this key.
        let rc = unsafe {
            match self.kind {
                Kind::ChaCha => ffi::crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                    c,
                    tag.as_mut_ptr(),
                    &mut maclen,
                    m,
                    n,
                    ad,
                    adlen,
                    std::ptr::null(),
                    nonce.as_ptr(),
                    self.key.as_ptr(),
                ),
                Kind::XChaCha => ffi::crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
                    c,
                    tag.as_mut_ptr(),
                    &mut maclen,
                    m,
                    n,
                    ad,
                    adlen,
                    std::ptr::null(),
                    nonce.as_ptr(),
                    self.key.as_ptr(),
                ),
                Kind::AesGcm => ffi::crypto_aead_aes256gcm_encrypt_detached_afternm(
                    c,
                    tag.as_mut_ptr(),
                    &mut maclen,
                    m,
                    n,
                    ad,
                    adlen,
                    std::ptr::null(),
                    nonce.as_ptr(),
                    &**self.aes.as_ref().expect("set up with the key"),
                ),
            }
        };
        if rc != 0 {
            return Err(err(format!("encryption returned {rc}")));
        }
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
        self.lengths().open(NAME, nonce, ct, tag, out)?;
        let (m, c, n) = (out.as_mut_ptr(), ct.as_ptr(), ct.len() as u64);
        let (ad, adlen) = (aad.as_ptr(), aad.len() as u64);
        // SAFETY: FFI; `out` has the ciphertext's length, `tag` 16 bytes,
        // the nonce its algorithm's length, the key 32 bytes; the state was
        // set up by beforenm.
        let rc = unsafe {
            match self.kind {
                Kind::ChaCha => ffi::crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                    m,
                    std::ptr::null_mut(),
                    c,
                    n,
                    tag.as_ptr(),
                    ad,
                    adlen,
                    nonce.as_ptr(),
                    self.key.as_ptr(),
                ),
                Kind::XChaCha => ffi::crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                    m,
                    std::ptr::null_mut(),
                    c,
                    n,
                    tag.as_ptr(),
                    ad,
                    adlen,
                    nonce.as_ptr(),
                    self.key.as_ptr(),
                ),
                Kind::AesGcm => ffi::crypto_aead_aes256gcm_decrypt_detached_afternm(
                    m,
                    std::ptr::null_mut(),
                    c,
                    n,
                    tag.as_ptr(),
                    ad,
                    adlen,
                    nonce.as_ptr(),
                    &**self.aes.as_ref().expect("set up with the key"),
                ),
            }
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(Error::AuthFailed)
        }
    }
}

pub struct Sodium;

impl Backend for Sodium {
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
        match algo {
            Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => {}
            Algorithm::Aes256Gcm if aes_gcm_available() => {}
            Algorithm::Aes256Gcm => {
                return Err(Unavailable(
                    "libsodium's AES-256-GCM needs AES-NI and PCLMULQDQ, which this CPU lacks"
                        .into(),
                ))
            }
            _ => {
                return Err(Unavailable(format!(
                    "libsodium has no {algo} (it has ChaCha20-Poly1305, XChaCha20-Poly1305 and \
                     AES-256-GCM)"
                )))
            }
        }
        if !init() {
            return Err(Unavailable("sodium_init failed".into()));
        }
        match hw {
            Hw::On => Ok(()),
            _ => Err(Unavailable(
                "libsodium picks its code by CPUID with no switch to turn features off".into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        match algo {
            Algorithm::ChaCha20Poly1305 => format!(
                "crypto_aead_chacha20poly1305_ietf_*_detached ({})",
                chacha_path()
            ),
            Algorithm::XChaCha20Poly1305 => format!(
                "crypto_aead_xchacha20poly1305_ietf_*_detached ({})",
                chacha_path()
            ),
            Algorithm::Aes256Gcm => {
                "crypto_aead_aes256gcm_*_detached_afternm (AES-NI + PCLMULQDQ, 8 blocks at a time)"
                    .into()
            }
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
        let kind = match algo {
            Algorithm::ChaCha20Poly1305 => Kind::ChaCha,
            Algorithm::XChaCha20Poly1305 => Kind::XChaCha,
            Algorithm::Aes256Gcm if aes_gcm_available() => Kind::AesGcm,
            _ => return Err(err(format!("{algo} is not an AEAD of libsodium here"))),
        };
        if !init() {
            return Err(err("sodium_init failed"));
        }
        let key: [u8; 32] = key
            .try_into()
            .map_err(|_| err(format!("{algo}: the key is 32 bytes")))?;
        let want = if kind == Kind::XChaCha { 24 } else { 12 };
        AeadLengths::fixed(NAME, algo, (nonce_len, tag_len), (want, 16))?;
        let aes = if kind == Kind::AesGcm {
            let mut st = Box::new(ffi::crypto_aead_aes256gcm_state_ { opaque: [0u8; 512] });
            // SAFETY: FFI; `st` is a 16-byte aligned state of the size the
            // header declares, `key` 32 bytes.
            let rc = unsafe { ffi::crypto_aead_aes256gcm_beforenm(&mut *st, key.as_ptr()) };
            if rc != 0 {
                return Err(err(format!("aes256gcm_beforenm returned {rc}")));
            }
            Some(st)
        } else {
            None
        };
        Ok(Box::new(SodiumAead { kind, key, aes }))
    }

    fn cipher(&self, algo: Algorithm, _key: &[u8]) -> Result<Box<dyn Cipher>> {
        Err(err(format!("libsodium has no {algo} here")))
    }
}

// ---------------------------------------------------------------------------
// Public key

/// X25519 as seed 003's KEM: `encaps` makes an ephemeral key pair and the
/// shared secret with the peer's key, `decaps` the shared secret of the
/// kept key with the ciphertext (the peer's ephemeral public key).
#[derive(Default)]
struct X25519 {
    sk: Option<[u8; 32]>,
    peer: Option<[u8; 32]>,
}

fn x25519(sk: &[u8; 32], pk: &[u8; 32]) -> Result<Vec<u8>> {
    let mut ss = [0u8; 32];
    // SAFETY: FFI; all three buffers are 32 bytes.
    let rc =
        unsafe { ffi::crypto_scalarmult_curve25519(ss.as_mut_ptr(), sk.as_ptr(), pk.as_ptr()) };
    if rc != 0 {
        return Err(err(
            "crypto_scalarmult refused the point (all-zero shared secret)",
        ));
    }
    Ok(ss.to_vec())
}

fn x25519_base(sk: &[u8; 32]) -> [u8; 32] {
    let mut pk = [0u8; 32];
    // SAFETY: FFI; both buffers are 32 bytes.
    unsafe { ffi::crypto_scalarmult_curve25519_base(pk.as_mut_ptr(), sk.as_ptr()) };
    pk
}

impl Kem for X25519 {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let mut sk = [0u8; 32];
        random(&mut sk);
        self.sk = Some(sk);
        Ok(x25519_base(&sk).to_vec())
    }

    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.sk = Some(
            sk.try_into()
                .map_err(|_| err("X25519 secret key: 32 bytes"))?,
        );
        Ok(())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = Some(
            pk.try_into()
                .map_err(|_| err("X25519 public key: 32 bytes"))?,
        );
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let peer = self.peer.ok_or_else(no_peer)?;
        let mut esk = [0u8; 32];
        random(&mut esk);
        let ss = x25519(&esk, &peer)?;
        Ok((x25519_base(&esk).to_vec(), ss))
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.ok_or_else(no_key)?;
        let ct: [u8; 32] = ct
            .try_into()
            .map_err(|_| err("X25519 ciphertext: 32 bytes"))?;
        x25519(&sk, &ct)
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        self.sk.ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new("secret_key", "raw", 32)])
    }
}

const MLKEM_PK: usize = ffi::crypto_kem_mlkem768_PUBLICKEYBYTES as usize;
const MLKEM_SK: usize = ffi::crypto_kem_mlkem768_SECRETKEYBYTES as usize;
const MLKEM_CT: usize = ffi::crypto_kem_mlkem768_CIPHERTEXTBYTES as usize;
const MLKEM_SEED: usize = ffi::crypto_kem_mlkem768_SEEDBYTES as usize;

#[derive(Default)]
struct MlKem768 {
    sk: Option<Vec<u8>>,
    peer: Option<Vec<u8>>,
}

impl Kem for MlKem768 {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        init();
        self.sk = None;
        let (mut pk, mut sk) = (vec![0u8; MLKEM_PK], vec![0u8; MLKEM_SK]);
        // SAFETY: FFI; both buffers have the sizes the header declares.
        let rc = unsafe { ffi::crypto_kem_mlkem768_keypair(pk.as_mut_ptr(), sk.as_mut_ptr()) };
        if rc != 0 {
            return Err(err(format!("mlkem768_keypair returned {rc}")));
        }
        self.sk = Some(sk);
        Ok(pk)
    }

    /// ML-KEM.KeyGen_internal(d, z) from the 64-byte d‖z.
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        init();
        self.sk = None;
        if seed.len() != MLKEM_SEED {
            return Err(err(format!("ML-KEM-768 seed: {MLKEM_SEED} bytes")));
        }
        let (mut pk, mut sk) = (vec![0u8; MLKEM_PK], vec![0u8; MLKEM_SK]);
        // SAFETY: FFI; buffers of the declared sizes, seed SEEDBYTES long.
        let rc = unsafe {
            ffi::crypto_kem_mlkem768_seed_keypair(pk.as_mut_ptr(), sk.as_mut_ptr(), seed.as_ptr())
        };
        if rc != 0 {
            return Err(err(format!("mlkem768_seed_keypair returned {rc}")));
        }
        self.sk = Some(sk);
        Ok(pk)
    }

    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.sk = None;
        if sk.len() != MLKEM_SK {
            return Err(err(format!("ML-KEM-768 secret key: {MLKEM_SK} bytes")));
        }
        // libsodium has no decapsulation-key check: FIPS 203 §7.3's, as any
        // caller importing a key must run it.
        if !crate::pk::mlkem_dk_hash_ok(sk) {
            return Err(err(format!("ML-KEM-768 {}", crate::pk::DK_HASH_REFUSED)));
        }
        self.sk = Some(sk.to_vec());
        Ok(())
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        if pk.len() != MLKEM_PK {
            return Err(err(format!("ML-KEM-768 public key: {MLKEM_PK} bytes")));
        }
        self.peer = Some(pk.to_vec());
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        let (mut ct, mut ss) = (vec![0u8; MLKEM_CT], vec![0u8; 32]);
        // SAFETY: FFI; buffers of the declared sizes (pk checked in
        // set_peer).
        let rc =
            unsafe { ffi::crypto_kem_mlkem768_enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) };
        if rc != 0 {
            return Err(err(format!("mlkem768_enc refused the public key ({rc})")));
        }
        Ok((ct, ss))
    }

    /// `crypto_kem_mlkem768_enc_deterministic`, its seed FIPS 203's m.
    fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        if m.len() != 32 {
            return Err(err("ML-KEM-768 m: 32 bytes"));
        }
        let (mut ct, mut ss) = (vec![0u8; MLKEM_CT], vec![0u8; 32]);
        // SAFETY: FFI; buffers of the declared sizes (pk checked in
        // set_peer), m the 32 bytes the function reads.
        let rc = unsafe {
            ffi::crypto_kem_mlkem768_enc_deterministic(
                ct.as_mut_ptr(),
                ss.as_mut_ptr(),
                pk.as_ptr(),
                m.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(err(format!(
                "mlkem768_enc_deterministic refused the public key ({rc})"
            )));
        }
        Ok((ct, ss))
    }

    fn export_secret(&self) -> Result<Vec<u8>> {
        self.sk.clone().ok_or_else(no_key)
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        if ct.len() != MLKEM_CT {
            return Err(err(format!("ML-KEM-768 ciphertext: {MLKEM_CT} bytes")));
        }
        let mut ss = vec![0u8; 32];
        // SAFETY: FFI; buffers of the declared sizes (checked above and at
        // keygen/import).
        let rc = unsafe { ffi::crypto_kem_mlkem768_dec(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) };
        if rc != 0 {
            return Err(err(format!(
                "mlkem768_dec refused the key or ciphertext ({rc})"
            )));
        }
        Ok(ss)
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new(
            "secret_key",
            "fips203-expanded",
            sk.len(),
        )])
    }
}

#[derive(Default)]
struct Ed25519 {
    sk: Option<[u8; 64]>,
    peer: Option<[u8; 32]>,
}

impl Signer for Ed25519 {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        init();
        let (mut pk, mut sk) = ([0u8; 32], [0u8; 64]);
        // SAFETY: FFI; 32- and 64-byte buffers as the header declares.
        let rc = unsafe { ffi::crypto_sign_ed25519_keypair(pk.as_mut_ptr(), sk.as_mut_ptr()) };
        if rc != 0 {
            return Err(err("ed25519_keypair failed"));
        }
        self.sk = Some(sk);
        Ok(pk.to_vec())
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let sk = self.sk.as_ref().ok_or_else(no_key)?;
        let mut sig = vec![0u8; 64];
        // SAFETY: FFI; a 64-byte signature buffer, the message read for its
        // length, the 64-byte secret key.
        let rc = unsafe {
            ffi::crypto_sign_ed25519_detached(
                sig.as_mut_ptr(),
                std::ptr::null_mut(),
                msg.as_ptr(),
                msg.len() as u64,
                sk.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(err("ed25519_detached failed"));
        }
        Ok(sig)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        self.peer = None;
        self.peer = Some(
            pk.try_into()
                .map_err(|_| err("Ed25519 public key: 32 bytes"))?,
        );
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
        if s.len() != 64 {
            return Ok(false);
        }
        // SAFETY: FFI; a 64-byte signature, the message read for its length,
        // the 32-byte public key.
        let rc = unsafe {
            ffi::crypto_sign_ed25519_verify_detached(
                s.as_ptr(),
                msg.as_ptr(),
                msg.len() as u64,
                pk.as_ptr(),
            )
        };
        Ok(rc == 0)
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        self.sk.ok_or_else(no_key)?;
        Ok(vec![SizeEntry::new(
            "secret_key",
            "seed-and-public-key",
            64,
        )])
    }
}

pub struct SodiumPk;

impl PkBackend for SodiumPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        version()
    }

    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable> {
        match algo {
            PkAlgorithm::X25519 | PkAlgorithm::MlKem768 | PkAlgorithm::Ed25519 => {
                if init() {
                    Ok(())
                } else {
                    Err(Unavailable("sodium_init failed".into()))
                }
            }
            _ => Err(Unavailable(format!(
                "libsodium has no {} (it has X25519, Ed25519 and ML-KEM-768)",
                algo.label()
            ))),
        }
    }

    fn implementation(&self, algo: PkAlgorithm) -> String {
        match algo {
            PkAlgorithm::X25519 => "crypto_scalarmult_curve25519 (as seed 003's KEM)".into(),
            PkAlgorithm::MlKem768 => "crypto_kem_mlkem768_*".into(),
            PkAlgorithm::Ed25519 => "crypto_sign_ed25519_*_detached".into(),
            _ => "none".into(),
        }
    }

    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn Kem>> {
        self.availability(algo).map_err(|u| err(u.0))?;
        match algo {
            PkAlgorithm::X25519 => Ok(Box::new(X25519::default())),
            PkAlgorithm::MlKem768 => Ok(Box::new(MlKem768::default())),
            _ => Err(err(format!("{algo} is not a KEM of libsodium"))),
        }
    }

    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn Signer>> {
        if algo.kind() != PkKind::Sig {
            return Err(err(format!("{algo} is not a signature algorithm")));
        }
        self.availability(algo).map_err(|u| err(u.0))?;
        Ok(Box::new(Ed25519::default()))
    }
}

/// libsodium as a provider: its AEADs and its public-key algorithms.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_entries() -> Vec<Entry> {
    let mut v = ango_core::catalog::entries_of_backend(&PROVIDER, &Sodium);
    v.extend(ango_core::catalog::entries_of_pk_backend(
        &PROVIDER, &SodiumPk,
    ));
    v
}
