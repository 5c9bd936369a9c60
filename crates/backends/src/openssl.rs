//! OpenSSL 3.5 (built from source by the `openssl` crate's `vendored`
//! feature) through EVP.
//!
//! Each instance holds one encryption and one decryption context keyed at
//! construction; an operation re-initialises only the nonce, so a message
//! costs what a TLS record costs a server that keeps its contexts: nonce set
//! up, (CCM) length, AAD, data, final, tag. Hardware settings other than
//! `on` are applied through `OPENSSL_ia32cap`, which libcrypto reads once at
//! start-up: such points run in a child process (see [`Backend::child_env`]).

use ango_core::{
    AeadLengths,
    Aead, Algorithm, Backend, Cipher, Entry, Error, Hw, Provider, Result, Unavailable,
};
use foreign_types::ForeignTypeRef;
use openssl::cipher::Cipher as EvpCipher;
use openssl::cipher_ctx::{CipherCtx, CipherCtxRef};

const NAME: &str = "openssl";

pub struct OpenSsl;

fn err(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: NAME,
        message: e.to_string().lines().next().unwrap_or_default().to_string(),
    }
}

/// OpenSSL's cipher name; None for what OpenSSL lacks.
fn evp_name(algo: Algorithm) -> Option<&'static str> {
    Some(match algo {
        Algorithm::Aes128Gcm => "AES-128-GCM",
        Algorithm::Aes256Gcm => "AES-256-GCM",
        Algorithm::Aes128Ccm => "AES-128-CCM",
        Algorithm::Aes256Ccm => "AES-256-CCM",
        Algorithm::ChaCha20Poly1305 => "ChaCha20-Poly1305",
        Algorithm::Aes128Ecb => "AES-128-ECB",
        Algorithm::Aes256Ecb => "AES-256-ECB",
        Algorithm::ChaCha20 => "ChaCha20",
        Algorithm::Aes128Ctr => "AES-128-CTR",
        Algorithm::Aes256Ctr => "AES-256-CTR",
        Algorithm::Camellia128Ecb => "CAMELLIA-128-ECB",
        Algorithm::Camellia192Ecb => "CAMELLIA-192-ECB",
        Algorithm::Camellia256Ecb => "CAMELLIA-256-ECB",
        Algorithm::Camellia128Ctr => "CAMELLIA-128-CTR",
        Algorithm::Camellia256Ctr => "CAMELLIA-256-CTR",
        _ => return None,
    })
}

/// Why OpenSSL has no `algo`.
fn lacks(algo: Algorithm) -> String {
    algo.library_note().unwrap_or_else(|| NO_XCHACHA.into())
}

fn is_camellia_ecb(algo: Algorithm) -> bool {
    matches!(
        algo,
        Algorithm::Camellia128Ecb | Algorithm::Camellia192Ecb | Algorithm::Camellia256Ecb
    )
}

/// libcrypto's `CAMELLIA_KEY` (openssl/camellia.h): 68 words of round keys
/// in a union with a double, then the number of 6-round groups.
#[repr(C, align(8))]
struct CamelliaKey {
    rd_key: [u32; 68],
    grand_rounds: std::os::raw::c_int,
}

// libcrypto's one-block Camellia calls (deprecated since 3.0, still
// exported): the cmll-x86_64 assembly under EVP, without EVP's per-call
// work, for `ango cycles`.
extern "C" {
    fn Camellia_set_key(
        user_key: *const u8,
        bits: std::os::raw::c_int,
        key: *mut CamelliaKey,
    ) -> std::os::raw::c_int;
    fn Camellia_encrypt(inp: *const u8, out: *mut u8, key: *const CamelliaKey);
    fn Camellia_decrypt(inp: *const u8, out: *mut u8, key: *const CamelliaKey);
}

/// Camellia through libcrypto's one-block calls.
struct RawCamellia(Box<CamelliaKey>);

impl RawCamellia {
    fn new(key: &[u8]) -> Result<RawCamellia> {
        let mut k = Box::new(CamelliaKey {
            rd_key: [0; 68],
            grand_rounds: 0,
        });
        // SAFETY: key is valid for its length (16, 24 or 32 bytes, checked
        // by the caller); k is a valid CAMELLIA_KEY.
        let rc = unsafe { Camellia_set_key(key.as_ptr(), (key.len() * 8) as _, &mut *k) };
        if rc != 0 {
            return Err(err("Camellia_set_key refused the key"));
        }
        Ok(RawCamellia(k))
    }
}

/// The EVP cipher of `algo`, or why there is none.
fn fetch(algo: Algorithm) -> Result<EvpCipher> {
    let name = evp_name(algo).ok_or_else(|| err(lacks(algo)))?;
    EvpCipher::fetch(None, name, None).map_err(err)
}

const NO_XCHACHA: &str = "OpenSSL 3.5 has no XChaCha20-Poly1305 (only the 12-byte-nonce \
     ChaCha20-Poly1305 of RFC 8439)";

fn is_ccm(algo: Algorithm) -> bool {
    matches!(algo, Algorithm::Aes128Ccm | Algorithm::Aes256Ccm)
}

/// EVP_CipherUpdate with `out` possibly equal to `inp` (EVP allows exact
/// overlap). Returns the number of bytes written.
fn update_raw(ctx: &mut CipherCtxRef, inp: *const u8, out: *mut u8, len: usize) -> Result<usize> {
    let inl = libc::c_int::try_from(len).map_err(|_| err("message too long for EVP"))?;
    let mut outl: libc::c_int = 0;
    // SAFETY: FFI. `inp` and `out` point to `len` valid bytes (the callers pass
    // a slice's pointer and its length, or two slices of equal length); EVP
    // permits out == inp for these ciphers, padding is off, so at most `len`
    // bytes are written; ctx is a live, initialised context.
    let rc = unsafe { openssl_sys::EVP_CipherUpdate(ctx.as_ptr(), out, &mut outl, inp, inl) };
    if rc != 1 {
        openssl::error::ErrorStack::get(); // clear the queue
        return Err(Error::AuthFailed);
    }
    Ok(outl as usize)
}

struct OsslAead {
    enc: CipherCtx,
    dec: CipherCtx,
    ccm: bool,
    lengths: AeadLengths,
    _cipher: EvpCipher,
}

impl OsslAead {
    fn new(algo: Algorithm, key: &[u8], nonce_len: usize, tag_len: usize) -> Result<Self> {
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
        }
        let cipher = fetch(algo)?;
        let ccm = is_ccm(algo);
        let mk = |encrypt: bool| -> Result<CipherCtx> {
            let mut c = CipherCtx::new().map_err(err)?;
            if encrypt {
                c.encrypt_init(Some(&cipher), None, None).map_err(err)?;
            } else {
                c.decrypt_init(Some(&cipher), None, None).map_err(err)?;
            }
            if nonce_len != c.iv_length() {
                c.set_iv_length(nonce_len).map_err(err)?;
            }
            if ccm {
                c.set_tag_length(tag_len).map_err(err)?;
            } else if tag_len != 16 && algo == Algorithm::ChaCha20Poly1305 {
                return Err(err("chacha20-poly1305 tags are 16 bytes"));
            }
            if encrypt {
                c.encrypt_init(None, Some(key), None).map_err(err)?;
            } else {
                c.decrypt_init(None, Some(key), None).map_err(err)?;
            }
            Ok(c)
        };
        Ok(OsslAead {
            enc: mk(true)?,
            dec: mk(false)?,
            ccm,
            lengths: AeadLengths::new(nonce_len, tag_len),
            _cipher: cipher,
        })
    }
}

impl Aead for OsslAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths.seal(NAME, nonce, tag)?;
        let c = &mut self.enc;
        c.encrypt_init(None, None, Some(nonce)).map_err(err)?;
        if self.ccm {
            c.set_data_len(buf.len()).map_err(err)?;
        }
        if !aad.is_empty() {
            c.cipher_update(aad, None).map_err(err)?;
        }
        if !buf.is_empty() || self.ccm {
            let p = buf.as_mut_ptr();
            update_raw(c, p, p, buf.len()).map_err(|_| err("EVP_EncryptUpdate failed"))?;
        }
        let mut fin = [0u8; 32];
        c.cipher_final(&mut fin).map_err(err)?;
        c.tag(tag).map_err(err)
    }

    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        self.lengths.open(NAME, nonce, ct, tag, out)?;
        let c = &mut self.dec;
        c.decrypt_init(None, None, Some(nonce)).map_err(err)?;
        if self.ccm {
            c.set_tag(tag).map_err(err)?;
            c.set_data_len(ct.len()).map_err(err)?;
        }
        if !aad.is_empty() {
            c.cipher_update(aad, None).map_err(err)?;
        }
        if !ct.is_empty() || self.ccm {
            // CCM verifies the tag here.
            update_raw(c, ct.as_ptr(), out.as_mut_ptr(), ct.len())?;
        }
        if !self.ccm {
            c.set_tag(tag).map_err(err)?;
            let mut fin = [0u8; 32];
            if c.cipher_final(&mut fin).is_err() {
                return Err(Error::AuthFailed);
            }
        }
        Ok(())
    }
}

struct OsslCipher {
    enc: CipherCtx,
    dec: CipherCtx,
    _cipher: EvpCipher,
    /// Camellia-ECB: the same code's one-block calls, for `ango cycles`.
    raw: Option<RawCamellia>,
}

impl OsslCipher {
    fn new(algo: Algorithm, key: &[u8]) -> Result<Self> {
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
        }
        let cipher = fetch(algo)?;
        let mut enc = CipherCtx::new().map_err(err)?;
        enc.encrypt_init(Some(&cipher), Some(key), None)
            .map_err(err)?;
        enc.set_padding(false);
        let mut dec = CipherCtx::new().map_err(err)?;
        dec.decrypt_init(Some(&cipher), Some(key), None)
            .map_err(err)?;
        dec.set_padding(false);
        let raw = if is_camellia_ecb(algo) {
            Some(RawCamellia::new(key)?)
        } else {
            None
        };
        Ok(OsslCipher {
            enc,
            dec,
            _cipher: cipher,
            raw,
        })
    }
}

impl Cipher for OsslCipher {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if !iv.is_empty() {
            self.enc.encrypt_init(None, None, Some(iv)).map_err(err)?;
        }
        let p = buf.as_mut_ptr();
        update_raw(&mut self.enc, p, p, buf.len()).map_err(|_| err("EVP_EncryptUpdate failed"))?;
        Ok(())
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if !iv.is_empty() {
            self.dec.decrypt_init(None, None, Some(iv)).map_err(err)?;
        }
        let p = buf.as_mut_ptr();
        update_raw(&mut self.dec, p, p, buf.len()).map_err(|_| err("EVP_DecryptUpdate failed"))?;
        Ok(())
    }

    fn block_ops(&mut self) -> Option<&mut dyn ango_core::BlockOps> {
        self.raw.as_mut().map(|r| r as &mut dyn ango_core::BlockOps)
    }
}

impl ango_core::BlockOps for RawCamellia {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // SAFETY: as in RawCamellia::new; the length is the instance's.
        let rc = unsafe { Camellia_set_key(key.as_ptr(), (key.len() * 8) as _, &mut *self.0) };
        if rc != 0 {
            return Err(err("Camellia_set_key refused the key"));
        }
        Ok(())
    }

    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        let p = block.as_mut_ptr();
        // SAFETY: one 16-byte block in place (the C code reads the whole
        // block before writing) under a key set by Camellia_set_key.
        unsafe { Camellia_encrypt(p, p, &*self.0) }
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        let p = block.as_mut_ptr();
        // SAFETY: as in encrypt_block.
        unsafe { Camellia_decrypt(p, p, &*self.0) }
    }

    fn schedule_bytes(&self, out: &mut [u8]) -> bool {
        for (i, b) in out.iter_mut().enumerate().take(32) {
            *b = self.0.rd_key[i / 4].to_le_bytes()[i % 4];
        }
        true
    }

    fn path(&self) -> String {
        "Camellia_encrypt (libcrypto cmll-x86_64 assembly, tables-nct)".into()
    }
}

/// libcrypto's view of the CPU: the ten words of `OPENSSL_ia32cap_P`
/// (0/1: CPUID.1 EDX/ECX, 2/3: CPUID.7 EBX/ECX, 4-9: further leaves) as
/// OpenSSL has them after applying `OPENSSL_ia32cap`.
#[cfg(target_arch = "x86_64")]
pub fn ia32cap_words() -> [u32; 10] {
    extern "C" {
        // Defined in libcrypto (crypto/cpuid.c) as an array of
        // OPENSSL_IA32CAP_P_MAX_INDEXES unsigned ints: 10 in OpenSSL 3.5,
        // the line openssl-src is pinned to.
        static OPENSSL_ia32cap_P: [u32; 10];
    }
    openssl::init();
    // SAFETY: FFI read of a libcrypto global that is at least 4 words long and
    // is written only during OpenSSL's one-time CPU set-up, which
    // openssl::init() above has completed.
    unsafe { std::ptr::addr_of!(OPENSSL_ia32cap_P).read_volatile() }
}

#[cfg(not(target_arch = "x86_64"))]
pub fn ia32cap_words() -> [u32; 10] {
    [0; 10]
}

/// The features that matter here which libcrypto uses, as its capability
/// words say after `OPENSSL_ia32cap` was applied.
pub fn ia32cap_features() -> Vec<&'static str> {
    let w = ia32cap_words();
    let bit = |word: usize, b: u32| w[word] >> b & 1 == 1;
    [
        ("aes-ni", bit(1, 25)),
        ("pclmulqdq", bit(1, 1)),
        ("ssse3", bit(1, 9)),
        ("avx", bit(1, 28)),
        ("avx2", bit(2, 5)),
        ("bmi2", bit(2, 8)),
        ("adx", bit(2, 19)),
        ("sha", bit(2, 29)),
        ("avx512f", bit(2, 16)),
        ("vaes", bit(3, 9)),
        ("vpclmulqdq", bit(3, 10)),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(n, _)| *n)
    .collect()
}

/// The capability words as `OPENSSL_ia32cap` would spell them, plus the
/// decoded features that matter here.
pub fn ia32cap_summary() -> String {
    let w = ia32cap_words();
    let words: Vec<String> = (0..5)
        .map(|i| format!("0x{:08x}{:08x}", w[2 * i + 1], w[2 * i]))
        .collect();
    format!("{} [{}]", words.join(":"), ia32cap_features().join(","))
}

impl Backend for OpenSsl {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        openssl::version::version().to_string()
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if hw != Hw::On && !cfg!(target_arch = "x86_64") {
            return Err(Unavailable(
                "OPENSSL_ia32cap masks exist on x86_64 only".into(),
            ));
        }
        let Some(name) = evp_name(algo) else {
            return Err(Unavailable(lacks(algo)));
        };
        EvpCipher::fetch(None, name, None)
            .map(|_| ())
            .map_err(|e| Unavailable(format!("EVP_CIPHER_fetch failed: {e}")))
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        // The hardware setting is its own field of every record; what the
        // library saw under it is `library_cpu_view`.
        if algo.cipher_name() == "camellia" {
            // OpenSSL's x86_64 Camellia is one assembly file with no
            // capability switch: every setting runs it.
            return "evp (cmll-x86_64 assembly, tables-nct)".into();
        }
        "evp".into()
    }

    fn cpu_view(&self) -> Option<String> {
        cfg!(target_arch = "x86_64").then(ia32cap_summary)
    }

    fn child_env(&self, hw: Hw) -> Option<Vec<(&'static str, String)>> {
        match hw.ia32cap() {
            Some(v) => Some(vec![("OPENSSL_ia32cap", v.to_string())]),
            // A user's own OPENSSL_ia32cap must not leak into "on" points.
            None if std::env::var_os("OPENSSL_ia32cap").is_some() => {
                Some(vec![("OPENSSL_ia32cap", String::new())])
            }
            None => None,
        }
    }

    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        Ok(Box::new(OsslAead::new(algo, key, nonce_len, tag_len)?))
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        Ok(Box::new(OsslCipher::new(algo, key)?))
    }
}

/// OpenSSL 3.5 as a provider: every symmetric algorithm it has (through
/// EVP, under every hardware setting, each applied in a worker process by
/// `OPENSSL_ia32cap`) and every public-key one.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: provider_worker_env,
    cpu_view: provider_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_version() -> String {
    OpenSsl.version()
}

fn provider_worker_env(hw: Hw) -> Option<Vec<(&'static str, String)>> {
    OpenSsl.child_env(hw)
}

fn provider_cpu_view() -> Option<String> {
    OpenSsl.cpu_view()
}

fn provider_entries() -> Vec<Entry> {
    let mut v = ango_core::catalog::entries_of_backend(&PROVIDER, &OpenSsl);
    v.extend(ango_core::catalog::entries_of_pk_backend(
        &PROVIDER,
        &crate::pk::openssl::OpenSslPk,
    ));
    v
}
