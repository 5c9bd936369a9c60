//! The uniform API every implementation satisfies (the SUPERCOP habit: a
//! library wrapper is an implementation like any other).

use crate::algo::{Algorithm, Hw};
use crate::error::Result;

/// A keyed AEAD instance. The key schedule is done once, at construction;
/// every call is one complete operation on one message.
pub trait Aead {
    /// Encrypt `buf` in place under `nonce` with associated data `aad`, and
    /// write the tag into `tag` (its length is the instance's tag length).
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()>;

    /// Decrypt `ct` into `out` (same length), verifying `tag`. On a wrong tag
    /// the result is [`crate::Error::AuthFailed`] and `out` must not be used.
    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()>;
}

/// A keyed unauthenticated cipher (ECB, CTR, ChaCha20).
pub trait Cipher {
    /// Encrypt `buf` in place starting from `iv` (empty for ECB).
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()>;
    /// Decrypt `buf` in place starting from `iv`.
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()>;
}

/// Why an (algorithm, backend, hw) combination cannot be measured here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable(pub String);

/// A library or family of implementations. Backends are plain structs; the
/// registry in `ango-backends` lists them as `&'static dyn Backend`.
pub trait Backend: Sync {
    /// Short lower-case name used on the command line and in records.
    fn name(&self) -> &'static str;

    /// Library name and exact version, e.g. "OpenSSL 3.5.5 27 Jan 2026".
    fn version(&self) -> String;

    /// Whether this backend can measure `algo` under `hw` on this machine.
    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable>;

    /// Which code path the backend uses for `algo` under `hw` (shown in
    /// records and `ango list`).
    fn implementation(&self, algo: Algorithm, hw: Hw) -> String;

    /// Whether the `hw` setting must be applied in a child process with a
    /// particular environment (OpenSSL reads `OPENSSL_ia32cap` once, at
    /// start-up). Returns the environment variables to set.
    fn child_env(&self, hw: Hw) -> Option<Vec<(&'static str, String)>> {
        let _ = hw;
        None
    }

    /// The CPU features the library itself sees in this process (for
    /// OpenSSL: its decoded `OPENSSL_ia32cap_P`), the proof that a `hw`
    /// setting took effect.
    fn cpu_view(&self) -> Option<String> {
        None
    }

    /// A keyed AEAD with the given nonce and tag lengths (known-answer tests
    /// use other lengths than measurement). `Err(Unsupported)` if the
    /// backend cannot do those lengths.
    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>>;

    /// A keyed cipher.
    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>>;

    /// The named variants of `algo` this backend has (ango's own
    /// primitives: `chacha20/avx2`, ...), each available here or not with
    /// the reason. Empty for a backend with a single implementation.
    fn variants(&self, algo: Algorithm) -> Vec<Variant> {
        let _ = algo;
        Vec::new()
    }

    /// A keyed AEAD of a named variant.
    fn aead_variant(
        &self,
        algo: Algorithm,
        variant: &str,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        let _ = (key, nonce_len, tag_len);
        Err(crate::Error::usage(format!(
            "{} has no variant '{variant}' of {algo}",
            self.name()
        )))
    }

    /// A keyed cipher of a named variant.
    fn cipher_variant(
        &self,
        algo: Algorithm,
        variant: &str,
        key: &[u8],
    ) -> Result<Box<dyn Cipher>> {
        let _ = key;
        Err(crate::Error::usage(format!(
            "{} has no variant '{variant}' of {algo}",
            self.name()
        )))
    }
}

/// A named variant and whether this machine can run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub available: Result<(), String>,
}

/// A backend pinned to one of its variants: every construction goes to that
/// variant, and `implementation` names it. The harness, the known-answer
/// runner and the cross checks take it like any backend.
pub struct WithVariant<'a> {
    pub inner: &'a dyn Backend,
    pub variant: String,
}

impl Backend for WithVariant<'_> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn version(&self) -> String {
        self.inner.version()
    }
    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        self.inner.availability(algo, hw)?;
        match self
            .inner
            .variants(algo)
            .into_iter()
            .find(|v| v.name == self.variant)
        {
            Some(Variant {
                available: Ok(()), ..
            }) => Ok(()),
            Some(Variant {
                available: Err(why),
                ..
            }) => Err(Unavailable(why)),
            None => Err(Unavailable(format!(
                "no variant '{}' of {algo}",
                self.variant
            ))),
        }
    }
    fn implementation(&self, _algo: Algorithm, _hw: Hw) -> String {
        self.variant.clone()
    }
    fn child_env(&self, hw: Hw) -> Option<Vec<(&'static str, String)>> {
        self.inner.child_env(hw)
    }
    fn cpu_view(&self) -> Option<String> {
        self.inner.cpu_view()
    }
    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        self.inner
            .aead_variant(algo, &self.variant, key, nonce_len, tag_len)
    }
    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        self.inner.cipher_variant(algo, &self.variant, key)
    }
}
