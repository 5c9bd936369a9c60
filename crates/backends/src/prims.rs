//! ango's own primitives (crate `ango-prims`) as a backend: ChaCha20 and
//! ChaCha20-Poly1305 with the best variants this CPU runs ("auto"). The
//! other algorithms are not implemented by ango yet and say so.

use ango_core::{Aead, Algorithm, Backend, Cipher, Error, Hw, Result, Unavailable};
use ango_prims::aead::{AuthError, ChaCha20Poly1305};
use ango_prims::chacha20::ChaCha20;
use ango_prims::poly1305::Poly1305;

const NAME: &str = "ango";

pub struct Prims;

fn err(msg: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: NAME,
        message: msg.to_string(),
    }
}

fn key32(key: &[u8]) -> Result<[u8; 32]> {
    key.try_into().map_err(|_| err("key must be 32 bytes"))
}

struct PrimsAead(ChaCha20Poly1305);

impl Aead for PrimsAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let n: &[u8; 12] = nonce
            .try_into()
            .map_err(|_| err("nonce must be 12 bytes"))?;
        let t = self.0.seal(n, aad, buf);
        if tag.len() != 16 {
            return Err(err("tag must be 16 bytes"));
        }
        tag.copy_from_slice(&t);
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
        let n: &[u8; 12] = nonce
            .try_into()
            .map_err(|_| err("nonce must be 12 bytes"))?;
        let t: &[u8; 16] = tag.try_into().map_err(|_| Error::AuthFailed)?;
        out.copy_from_slice(ct);
        self.0
            .open(n, aad, out, t)
            .map_err(|AuthError| Error::AuthFailed)
    }
}

struct PrimsChaCha20 {
    key: [u8; 32],
    v: ChaCha20,
}

impl Cipher for PrimsChaCha20 {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("ChaCha20 IV is 4-byte LE counter + 12-byte nonce"));
        }
        let counter = u32::from_le_bytes(iv[..4].try_into().expect("4 bytes"));
        let nonce: &[u8; 12] = iv[4..].try_into().expect("12 bytes");
        self.v.xor_keystream(&self.key, counter, nonce, buf);
        Ok(())
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.encrypt(iv, buf)
    }
}

impl Backend for Prims {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        format!("ango-prims {}", env!("CARGO_PKG_VERSION"))
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if !matches!(algo, Algorithm::ChaCha20 | Algorithm::ChaCha20Poly1305) {
            return Err(Unavailable(
                "not implemented in ango's own primitives yet".into(),
            ));
        }
        match hw {
            Hw::On => Ok(()),
            _ => Err(Unavailable(
                "ango's variants are chosen by name, not by OPENSSL_ia32cap".into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        match algo {
            Algorithm::ChaCha20Poly1305 => {
                format!(
                    "chacha20/{}+poly1305/{}",
                    ChaCha20::auto().name(),
                    Poly1305::auto().name()
                )
            }
            Algorithm::ChaCha20 => format!("chacha20/{}", ChaCha20::auto().name()),
            _ => "-".into(),
        }
    }

    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        if algo != Algorithm::ChaCha20Poly1305 {
            return Err(err(format!("{algo} is not implemented by ango")));
        }
        if (nonce_len, tag_len) != (12, 16) {
            return Err(err(
                "chacha20-poly1305 takes a 12-byte nonce and 16-byte tag",
            ));
        }
        Ok(Box::new(PrimsAead(ChaCha20Poly1305::new(
            &key32(key)?,
            ChaCha20::auto(),
            Poly1305::auto(),
        ))))
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        if algo != Algorithm::ChaCha20 {
            return Err(err(format!("{algo} is not implemented by ango")));
        }
        Ok(Box::new(PrimsChaCha20 {
            key: key32(key)?,
            v: ChaCha20::auto(),
        }))
    }
}
