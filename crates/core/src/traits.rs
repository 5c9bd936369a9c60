//! The uniform API every implementation satisfies (the SUPERCOP habit: a
//! library wrapper is an implementation like any other).

use crate::algo::{Algorithm, Hw};
use crate::error::{Error, Result};

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

/// The nonce and tag lengths an AEAD instance was made for, and the one
/// check of a call's buffers that every provider's adapter makes first
/// (the FFI adapters' safety rests on it: after it, every buffer has the
/// length the library will read or write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AeadLengths {
    pub nonce: usize,
    pub tag: usize,
}

impl AeadLengths {
    pub const fn new(nonce: usize, tag: usize) -> AeadLengths {
        AeadLengths { nonce, tag }
    }

    /// For a library whose `algo` takes one nonce and tag length
    /// (`fixed`): the instance's lengths when `asked` are those, else the
    /// error that names them.
    pub fn fixed(
        backend: &'static str,
        algo: Algorithm,
        asked: (usize, usize),
        fixed: (usize, usize),
    ) -> Result<AeadLengths> {
        if asked != fixed {
            return Err(Error::Backend {
                backend,
                message: format!(
                    "{backend}'s {algo} takes only a {}-byte nonce and a {}-byte tag",
                    fixed.0, fixed.1
                ),
            });
        }
        Ok(AeadLengths::new(fixed.0, fixed.1))
    }

    /// Before a seal: a nonce or tag buffer of another length is the
    /// caller's error.
    pub fn seal(self, backend: &'static str, nonce: &[u8], tag: &[u8]) -> Result<()> {
        if nonce.len() != self.nonce || tag.len() != self.tag {
            return Err(self.mismatch(backend, nonce.len(), tag.len()));
        }
        Ok(())
    }

    /// Before an open: a nonce of another length, or an output that is not
    /// the ciphertext's length, is the caller's error; a tag of another
    /// length fails authentication (a truncated tag is a forgery, as
    /// Wycheproof's invalid cases expect).
    pub fn open(
        self,
        backend: &'static str,
        nonce: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &[u8],
    ) -> Result<()> {
        if nonce.len() != self.nonce {
            return Err(self.mismatch(backend, nonce.len(), self.tag));
        }
        if out.len() != ct.len() {
            return Err(Error::Backend {
                backend,
                message: format!(
                    "the output ({} bytes) must have the ciphertext's length ({} bytes)",
                    out.len(),
                    ct.len()
                ),
            });
        }
        if tag.len() != self.tag {
            return Err(Error::AuthFailed);
        }
        Ok(())
    }

    fn mismatch(self, backend: &'static str, nonce: usize, tag: usize) -> Error {
        Error::Backend {
            backend,
            message: format!(
                "this instance takes a {}-byte nonce and a {}-byte tag, not {nonce} and {tag}",
                self.nonce, self.tag
            ),
        }
    }
}

/// A keyed unauthenticated cipher (ECB, CTR, ChaCha20).
pub trait Cipher {
    /// Encrypt `buf` in place starting from `iv` (empty for ECB).
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()>;
    /// Decrypt `buf` in place starting from `iv`.
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()>;

    /// The raw block function under the mode, for `ango cycles` (seed
    /// 002's chained timing); None when the implementation has none to
    /// offer.
    fn block_ops(&mut self) -> Option<&mut dyn BlockOps> {
        None
    }
}

/// A block cipher's raw operations on one 16-byte block (or, for a stream
/// cipher, one 128-bit step of its keystream), with its key schedule: what
/// seed 002 times, one call after another with each output the next input.
pub trait BlockOps {
    /// Run the key schedule again with `key` (same length as the first).
    fn set_key(&mut self, key: &[u8]) -> Result<()>;
    fn encrypt_block(&mut self, block: &mut [u8; 16]);
    fn decrypt_block(&mut self, block: &mut [u8; 16]);
    /// Write the first bytes of the expanded key into `out` (the next key
    /// of a chained key-schedule measurement). False when the library keeps
    /// its expanded key out of reach: the chain then goes through one block
    /// encrypted under the new key, and the figure says so.
    fn schedule_bytes(&self, out: &mut [u8]) -> bool;
    /// How the block function is reached (`Camellia_encrypt`, …).
    fn path(&self) -> String;
}

/// Why an (algorithm, backend, hw) combination cannot be measured here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable(pub String);

/// A library's per-algorithm interface: the measuring and checking code
/// takes it. Providers make their catalog entries from it (or implement
/// entries directly, as ango's own variants do), and
/// [`crate::EntryBackend`] presents any entry through it.
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

    /// How checks and findings name it: the provider, with the variant for
    /// a provider that has several (`ango[aes/vaes512+ghash/vpclmul512]`).
    fn label(&self) -> String {
        self.name().to_string()
    }

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_other_than_the_instance_are_refused_and_a_short_tag_is_a_forgery() {
        let l = AeadLengths::new(12, 16);
        assert!(l.seal("x", &[0; 12], &[0; 16]).is_ok());
        let e = l.seal("x", &[0; 8], &[0; 16]).unwrap_err().to_string();
        assert!(
            e.contains("12-byte nonce and a 16-byte tag, not 8 and 16"),
            "{e}"
        );
        assert!(l.seal("x", &[0; 12], &[0; 12]).is_err());
        assert!(l.open("x", &[0; 12], &[0; 5], &[0; 16], &[0; 5]).is_ok());
        assert!(matches!(
            l.open("x", &[0; 12], &[0; 5], &[0; 15], &[0; 5]),
            Err(Error::AuthFailed)
        ));
        assert!(matches!(
            l.open("x", &[0; 24], &[0; 5], &[0; 16], &[0; 5]),
            Err(Error::Backend { .. })
        ));
        let e = l
            .open("x", &[0; 12], &[0; 5], &[0; 16], &[0; 4])
            .unwrap_err();
        assert!(e.to_string().contains("ciphertext's length"), "{e}");
    }
}
