//! LibTomCrypt 1.18.2 (Debian's libtomcrypt-dev, linked dynamically), the
//! library seed 001 measured its own code against (its Table 1 baseline):
//! ChaCha20, ChaCha20-Poly1305, AES-128/256-ECB/CTR/GCM/CCM.
//!
//! How each call reaches the library: a small C shim (`ltc/ango_ltc.c`)
//! keeps LibTomCrypt's keyed states, whose layouts only its headers know,
//! and calls its own functions on them. The key is scheduled once per key:
//! GCM through a kept `gcm_state` (`gcm_init` once, then per message
//! `gcm_reset`, `gcm_add_iv`, `gcm_add_aad`, `gcm_process`, `gcm_done`, the
//! tag compared with its `mem_neq`); CCM through `ccm_memory` with the
//! pre-scheduled key (`uskey`); ChaCha20-Poly1305 through
//! `chacha20poly1305_init`, `setiv`, `add_aad`, `encrypt`/`decrypt`, `done`
//! per message (its `done` wipes the state, key included, so the state
//! cannot be kept between messages; this is what its
//! `chacha20poly1305_memory` does); ECB through `ecb_start` once and `ecb_encrypt`; CTR through
//! `ctr_start` once and `ctr_setiv` + `ctr_encrypt` per message (full
//! 128-bit big-endian counter); ChaCha20 through `chacha_setup` once and
//! `chacha_ivctr32` + `chacha_crypt`. Sealing works in place; opening is
//! out of place.
//!
//! LibTomCrypt 1.18 has no AES-NI, PCLMULQDQ or SIMD code: its AES is
//! table-based (T-tables, not constant time) and its GHASH uses 8-bit
//! tables (`LTC_GCM_TABLES`), so its implementation says `-nct` like ango's
//! own table-based variants. With no hardware path, `--hw off` and
//! `seed000` run the very same code as `on`; they are offered.

use ango_core::{
    AeadLengths,
    Aead, Algorithm, Backend, Cipher, Entry, Error, Hw, Provider, Result, Unavailable,
};
use std::os::raw::{c_char, c_int, c_ulong};

const NAME: &str = "libtomcrypt";

#[repr(C)]
struct Ltc {
    _opaque: [u8; 0],
}

extern "C" {
    fn ango_ltc_version() -> *const c_char;
    fn ango_ltc_error(err: c_int) -> *const c_char;
    fn ango_ltc_new(
        kind: c_int,
        key: *const u8,
        keylen: c_ulong,
        taglen: c_ulong,
        err: *mut c_int,
    ) -> *mut Ltc;
    fn ango_ltc_free(c: *mut Ltc);
    fn ango_ltc_seal(
        c: *mut Ltc,
        nonce: *const u8,
        nlen: c_ulong,
        aad: *const u8,
        alen: c_ulong,
        buf: *mut u8,
        len: c_ulong,
        tag: *mut u8,
    ) -> c_int;
    fn ango_ltc_open(
        c: *mut Ltc,
        nonce: *const u8,
        nlen: c_ulong,
        aad: *const u8,
        alen: c_ulong,
        ct: *const u8,
        len: c_ulong,
        tag: *const u8,
        out: *mut u8,
    ) -> c_int;
    fn ango_ltc_crypt(
        c: *mut Ltc,
        decrypt: c_int,
        iv: *const u8,
        ivlen: c_ulong,
        buf: *mut u8,
        len: c_ulong,
    ) -> c_int;
}

const K_GCM: c_int = 0;
const K_CCM: c_int = 1;
const K_CHACHAPOLY: c_int = 2;
const K_ECB: c_int = 3;
const K_CTR: c_int = 4;
const K_CHACHA: c_int = 5;
const CRYPT_OK: c_int = 0;

provider_errors!(NAME);

fn ltc_err(what: &str, code: c_int) -> Error {
    // SAFETY: FFI; error_to_string returns a static NUL-terminated string
    // for every code.
    let s = unsafe { std::ffi::CStr::from_ptr(ango_ltc_error(code)) };
    err(format!("{what}: {}", s.to_string_lossy()))
}

fn version() -> String {
    // SAFETY: FFI; returns the static SCRYPT version string of the headers
    // the shim was compiled against (Debian's, the library linked).
    let v = unsafe { std::ffi::CStr::from_ptr(ango_ltc_version()) };
    format!("LibTomCrypt {}", v.to_string_lossy())
}

/// One keyed LibTomCrypt state, freed (and zeroed) on drop.
struct State(*mut Ltc);

// SAFETY: the state is owned by one instance and only used through &mut.
unsafe impl Send for State {}

impl State {
    fn new(kind: c_int, key: &[u8], taglen: usize) -> Result<State> {
        let mut code: c_int = CRYPT_OK;
        // SAFETY: FFI; key is read for its length, `code` is written.
        let p = unsafe {
            ango_ltc_new(
                kind,
                key.as_ptr(),
                key.len() as c_ulong,
                taglen as c_ulong,
                &mut code,
            )
        };
        if p.is_null() {
            return Err(ltc_err("key set-up", code));
        }
        Ok(State(p))
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // SAFETY: FFI; the pointer came from ango_ltc_new and is freed once.
        unsafe { ango_ltc_free(self.0) }
    }
}

struct LtcAead {
    st: State,
    lengths: AeadLengths,
}

impl Aead for LtcAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths.seal(NAME, nonce, tag)?;
        // SAFETY: FFI; every buffer is passed with its own length (the tag
        // has the instance's tag length, which the state writes: checked
        // above).
        let rc = unsafe {
            ango_ltc_seal(
                self.st.0,
                nonce.as_ptr(),
                nonce.len() as c_ulong,
                aad.as_ptr(),
                aad.len() as c_ulong,
                buf.as_mut_ptr(),
                buf.len() as c_ulong,
                tag.as_mut_ptr(),
            )
        };
        if rc != CRYPT_OK {
            return Err(ltc_err("encryption", rc));
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
        self.lengths.open(NAME, nonce, ct, tag, out)?;
        // SAFETY: FFI; `out` has the ciphertext's length, the tag the
        // instance's tag length (both checked above).
        let rc = unsafe {
            ango_ltc_open(
                self.st.0,
                nonce.as_ptr(),
                nonce.len() as c_ulong,
                aad.as_ptr(),
                aad.len() as c_ulong,
                ct.as_ptr(),
                ct.len() as c_ulong,
                tag.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        if rc == CRYPT_OK {
            Ok(())
        } else {
            Err(Error::AuthFailed)
        }
    }
}

struct LtcCipher {
    st: State,
    iv_len: usize,
}

impl LtcCipher {
    fn run(&mut self, decrypt: bool, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != self.iv_len {
            return Err(err(format!("the IV is {} bytes here", self.iv_len)));
        }
        // SAFETY: FFI; the IV and buffer are passed with their lengths.
        let rc = unsafe {
            ango_ltc_crypt(
                self.st.0,
                c_int::from(decrypt),
                iv.as_ptr(),
                iv.len() as c_ulong,
                buf.as_mut_ptr(),
                buf.len() as c_ulong,
            )
        };
        if rc != CRYPT_OK {
            return Err(ltc_err("cipher", rc));
        }
        Ok(())
    }
}

impl Cipher for LtcCipher {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.run(false, iv, buf)
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.run(true, iv, buf)
    }
}

pub struct LibTomCrypt;

impl Backend for LibTomCrypt {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        version()
    }

    fn availability(&self, algo: Algorithm, _hw: Hw) -> Result<(), Unavailable> {
        if let Some(n) = algo.library_note() {
            return Err(Unavailable(n));
        }
        use Algorithm::*;
        match algo {
            XChaCha20Poly1305 => Err(Unavailable(
                "LibTomCrypt 1.18 has no XChaCha20-Poly1305".into(),
            )),
            a if a.cipher_name() == "camellia" => Err(Unavailable(
                "LibTomCrypt 1.18's Camellia is not wired into ango (its Camellia is measured \
                 through OpenSSL, RustCrypto and libgcrypt)"
                    .into(),
            )),
            // No hardware path: every setting runs the same code.
            _ => Ok(()),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        use Algorithm::*;
        match algo {
            Aes128Gcm | Aes256Gcm => {
                "gcm_state: aes T-tables-nct + GHASH 8-bit tables-nct (no AES-NI)".into()
            }
            Aes128Ccm | Aes256Ccm => "ccm_memory, pre-scheduled key: aes T-tables-nct".into(),
            Aes128Ecb | Aes256Ecb => "ecb_encrypt: aes T-tables-nct".into(),
            Aes128Ctr | Aes256Ctr => "ctr_encrypt: aes T-tables-nct".into(),
            ChaCha20Poly1305 => "chacha20poly1305_init..done per message (portable C)".into(),
            ChaCha20 => "chacha_crypt (portable C)".into(),
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
        use Algorithm::*;
        let kind = match algo {
            Aes128Gcm | Aes256Gcm => K_GCM,
            Aes128Ccm | Aes256Ccm => K_CCM,
            ChaCha20Poly1305 => K_CHACHAPOLY,
            _ => return Err(err(format!("{algo} is not an AEAD of LibTomCrypt"))),
        };
        let ok = match kind {
            K_GCM => nonce_len > 0 && (1..=16).contains(&tag_len),
            K_CCM => {
                (7..=13).contains(&nonce_len)
                    && (4..=16).contains(&tag_len)
                    && tag_len.is_multiple_of(2)
            }
            _ => nonce_len == 12 && tag_len == 16,
        };
        if !ok || key.len() != algo.key_len() {
            return Err(err(format!(
                "{algo}: LibTomCrypt takes no {nonce_len}-byte nonce, {tag_len}-byte tag or \
                 {}-byte key",
                key.len()
            )));
        }
        Ok(Box::new(LtcAead {
            st: State::new(kind, key, tag_len)?,
            lengths: AeadLengths::new(nonce_len, tag_len),
        }))
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        use Algorithm::*;
        let (kind, iv_len) = match algo {
            Aes128Ecb | Aes256Ecb => (K_ECB, 0),
            Aes128Ctr | Aes256Ctr => (K_CTR, 16),
            ChaCha20 => (K_CHACHA, 16),
            _ => return Err(err(format!("{algo} is not a cipher of LibTomCrypt"))),
        };
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: the key is {} bytes", algo.key_len())));
        }
        Ok(Box::new(LtcCipher {
            st: State::new(kind, key, 0)?,
            iv_len,
        }))
    }
}

/// LibTomCrypt as a provider: its symmetric algorithms.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_entries() -> Vec<Entry> {
    ango_core::catalog::entries_of_backend(&PROVIDER, &LibTomCrypt)
}
