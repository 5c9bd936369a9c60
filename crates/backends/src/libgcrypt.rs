//! libgcrypt (Debian's libgcrypt20-dev, installed by scripts/setup, linked
//! dynamically): Camellia-128/192/256 in ECB and CTR.
//!
//! libgcrypt's Camellia is NTT's own code (`cipher/camellia.c` says so):
//! seed 002's "NTT optimised code" row. Its one-block function is that C
//! code (8→32-bit tables: not constant time); libgcrypt 1.10 adds bulk
//! paths for whole runs of blocks in CTR (and other chaining modes) —
//! AES-NI/AVX (16 blocks), AES-NI/AVX2 and VAES/AVX2 (32 blocks) — picked
//! from its hardware-feature list, which this module reads
//! (`gcry_get_config(0, "hwflist")`) to label which path ran. ECB goes one
//! block at a time through the C code.
//!
//! Each call is `gcry_cipher_encrypt`/`decrypt` on a handle opened once per
//! key (`gcry_cipher_open`, `gcry_cipher_setkey`; CTR: `gcry_cipher_setctr`
//! per message).

use ango_core::{
    Aead, Algorithm, Backend, BlockOps, Cipher, Entry, Hw, Provider, Result, Unavailable,
};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

const NAME: &str = "libgcrypt";

type GcryError = c_uint;

#[repr(C)]
struct Handle {
    _opaque: [u8; 0],
}

const GCRY_CIPHER_CAMELLIA128: c_int = 310;
const GCRY_CIPHER_CAMELLIA192: c_int = 311;
const GCRY_CIPHER_CAMELLIA256: c_int = 312;
const GCRY_CIPHER_MODE_ECB: c_int = 1;
const GCRY_CIPHER_MODE_CTR: c_int = 6;
const GCRYCTL_DISABLE_SECMEM: c_int = 37;
const GCRYCTL_INITIALIZATION_FINISHED: c_int = 38;

#[link(name = "gcrypt")]
extern "C" {
    fn gcry_check_version(req: *const c_char) -> *const c_char;
    fn gcry_control(cmd: c_int, ...) -> GcryError;
    fn gcry_get_config(mode: c_int, what: *const c_char) -> *mut c_char;
    fn gcry_free(p: *mut c_void);
    fn gcry_strerror(err: GcryError) -> *const c_char;
    fn gcry_cipher_open(hd: *mut *mut Handle, algo: c_int, mode: c_int, flags: c_uint)
        -> GcryError;
    fn gcry_cipher_close(hd: *mut Handle);
    fn gcry_cipher_setkey(hd: *mut Handle, key: *const c_void, len: usize) -> GcryError;
    fn gcry_cipher_setctr(hd: *mut Handle, ctr: *const c_void, len: usize) -> GcryError;
    fn gcry_cipher_encrypt(
        hd: *mut Handle,
        out: *mut c_void,
        outsize: usize,
        inp: *const c_void,
        inlen: usize,
    ) -> GcryError;
    fn gcry_cipher_decrypt(
        hd: *mut Handle,
        out: *mut c_void,
        outsize: usize,
        inp: *const c_void,
        inlen: usize,
    ) -> GcryError;
}

provider_errors!(NAME);

fn check(rc: GcryError, what: &str) -> Result<()> {
    if rc == 0 {
        return Ok(());
    }
    // SAFETY: gcry_strerror returns a pointer to a static NUL-terminated
    // string for any code.
    let msg = unsafe { CStr::from_ptr(gcry_strerror(rc)) };
    Err(err(format!("{what}: {}", msg.to_string_lossy())))
}

/// The library's version, initialising it once (as its manual requires
/// before any other call): no secure memory (ango's keys are test keys).
fn init() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        // SAFETY: initialisation calls from the manual, made once; a null
        // requirement returns the version string (static).
        unsafe {
            let v = gcry_check_version(std::ptr::null());
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0 as c_int);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0 as c_int);
            if v.is_null() {
                String::from("unknown")
            } else {
                CStr::from_ptr(v).to_string_lossy().into_owned()
            }
        }
    })
}

/// libgcrypt's hardware-feature list (`intel-aesni:intel-avx2:…`).
pub fn hwflist() -> String {
    init();
    // SAFETY: gcry_get_config returns a malloc'd NUL-terminated string (or
    // null), freed with gcry_free.
    unsafe {
        let p = gcry_get_config(0, c"hwflist".as_ptr());
        if p.is_null() {
            return String::new();
        }
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        gcry_free(p.cast());
        s.trim()
            .trim_start_matches("hwflist:")
            .trim_end_matches(':')
            .to_string()
    }
}

/// Which Camellia code runs for a mode, from the hardware-feature list
/// (libgcrypt 1.10's `camellia-glue.c` choices).
fn camellia_path(ctr: bool) -> String {
    if !ctr {
        return "ECB one block per call: camellia.c (NTT's C, 8→32-bit tables-nct)".into();
    }
    let h = hwflist();
    let has = |f: &str| h.split(':').any(|x| x == f);
    let bulk = if has("intel-vaes-vpclmul") && has("intel-avx2") && has("intel-aesni") {
        "vaes-avx2, 32 blocks in flight"
    } else if has("intel-aesni") && has("intel-avx2") {
        "aesni-avx2, 32 blocks in flight"
    } else if has("intel-aesni") && has("intel-avx") {
        "aesni-avx, 16 blocks in flight"
    } else {
        "none"
    };
    format!("CTR bulk: {bulk}; the blocks left over through camellia.c (NTT's C, tables-nct)")
}

fn algo_id(algo: Algorithm) -> Option<(c_int, c_int)> {
    use Algorithm::*;
    Some(match algo {
        Camellia128Ecb => (GCRY_CIPHER_CAMELLIA128, GCRY_CIPHER_MODE_ECB),
        Camellia192Ecb => (GCRY_CIPHER_CAMELLIA192, GCRY_CIPHER_MODE_ECB),
        Camellia256Ecb => (GCRY_CIPHER_CAMELLIA256, GCRY_CIPHER_MODE_ECB),
        Camellia128Ctr => (GCRY_CIPHER_CAMELLIA128, GCRY_CIPHER_MODE_CTR),
        Camellia256Ctr => (GCRY_CIPHER_CAMELLIA256, GCRY_CIPHER_MODE_CTR),
        _ => return None,
    })
}

/// One open cipher handle, keyed.
struct Gcry {
    hd: *mut Handle,
    ctr: bool,
}

// SAFETY: a handle is used by one thread at a time (the owner); libgcrypt
// handles carry no thread affinity.
unsafe impl Send for Gcry {}

impl Drop for Gcry {
    fn drop(&mut self) {
        // SAFETY: hd came from gcry_cipher_open and is closed once.
        unsafe { gcry_cipher_close(self.hd) }
    }
}

impl Gcry {
    fn new(algo: Algorithm, key: &[u8]) -> Result<Gcry> {
        init();
        let (id, mode) = algo_id(algo).ok_or_else(|| err(format!("{algo}: not offered")))?;
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
        }
        let mut hd: *mut Handle = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the algorithm and mode are valid ids.
        let rc = unsafe { gcry_cipher_open(&mut hd, id, mode, 0) };
        check(rc, "gcry_cipher_open")?;
        let g = Gcry {
            hd,
            ctr: mode == GCRY_CIPHER_MODE_CTR,
        };
        g.setkey(key)?;
        Ok(g)
    }

    fn setkey(&self, key: &[u8]) -> Result<()> {
        // SAFETY: key is valid for key.len() bytes; hd is open.
        let rc = unsafe { gcry_cipher_setkey(self.hd, key.as_ptr().cast(), key.len()) };
        check(rc, "gcry_cipher_setkey")
    }

    fn crypt(&mut self, decrypt: bool, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if self.ctr {
            if iv.len() != 16 {
                return Err(err("CTR needs a 16-byte counter block"));
            }
            // SAFETY: iv is 16 valid bytes; hd is open.
            let rc = unsafe { gcry_cipher_setctr(self.hd, iv.as_ptr().cast(), 16) };
            check(rc, "gcry_cipher_setctr")?;
        } else if !buf.len().is_multiple_of(16) {
            return Err(err("ECB input must be whole blocks"));
        }
        let f = if decrypt {
            gcry_cipher_decrypt
        } else {
            gcry_cipher_encrypt
        };
        // SAFETY: in-place operation (null input) on buf's valid bytes.
        let rc = unsafe { f(self.hd, buf.as_mut_ptr().cast(), buf.len(), std::ptr::null(), 0) };
        check(rc, "gcry_cipher_encrypt")
    }
}

impl Cipher for Gcry {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.crypt(false, iv, buf)
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.crypt(true, iv, buf)
    }

    fn block_ops(&mut self) -> Option<&mut dyn BlockOps> {
        if self.ctr {
            None
        } else {
            Some(self)
        }
    }
}

/// libgcrypt has no one-block call: a block goes through
/// `gcry_cipher_encrypt` on the ECB handle (its API's cost included).
impl BlockOps for Gcry {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.setkey(key)
    }

    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        // SAFETY: in place on 16 valid bytes; the handle is ECB.
        unsafe { gcry_cipher_encrypt(self.hd, block.as_mut_ptr().cast(), 16, std::ptr::null(), 0) };
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        // SAFETY: in place on 16 valid bytes; the handle is ECB.
        unsafe { gcry_cipher_decrypt(self.hd, block.as_mut_ptr().cast(), 16, std::ptr::null(), 0) };
    }

    /// The expanded key lives in the handle's private context.
    fn schedule_bytes(&self, _out: &mut [u8]) -> bool {
        false
    }

    fn path(&self) -> String {
        "gcry_cipher_encrypt on an ECB handle: camellia.c (NTT's C, tables-nct)".into()
    }
}

pub struct Libgcrypt;

impl Backend for Libgcrypt {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        format!("libgcrypt {}", init())
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if algo_id(algo).is_none() {
            return Err(Unavailable(match algo.library_note() {
                Some(n) => n,
                None => "ango measures libgcrypt's Camellia only".into(),
            }));
        }
        match hw {
            Hw::On => Ok(()),
            _ => Err(Unavailable(
                "libgcrypt's hardware paths are chosen by its own feature list, not OPENSSL_ia32cap"
                    .into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        match algo_id(algo) {
            Some((_, mode)) => camellia_path(mode == GCRY_CIPHER_MODE_CTR),
            None => "none".into(),
        }
    }

    fn aead(&self, algo: Algorithm, _: &[u8], _: usize, _: usize) -> Result<Box<dyn Aead>> {
        Err(err(format!("{algo}: ango measures libgcrypt's Camellia only")))
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        Ok(Box::new(Gcry::new(algo, key)?))
    }
}

/// libgcrypt as a provider: its Camellia.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: provider_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_version() -> String {
    Libgcrypt.version()
}

fn provider_cpu_view() -> Option<String> {
    Some(format!("libgcrypt hwflist: {}", hwflist()))
}

fn provider_entries() -> Vec<Entry> {
    ango_core::catalog::entries_of_backend(&PROVIDER, &Libgcrypt)
}
