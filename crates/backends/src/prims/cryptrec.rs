//! ango's implementations of seed 002's ciphers as catalog entries: one
//! entry per row of each cipher's variant table (`ango_prims::cryptrec`),
//! ECB and CTR written once over the rows, and the raw block operations
//! `ango cycles` times.

use super::err;
use ango_core::{Algorithm, BlockOps, Cipher, Result};
use ango_prims::block::{BlockCipher128, BlockVariant, Keystream64, StreamVariant};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Ecb,
    Ctr,
}

/// The mode of one of seed 002's block-cipher algorithms.
pub(super) fn mode(algo: Algorithm) -> Mode {
    if algo.name().ends_with("-ctr") {
        Mode::Ctr
    } else {
        Mode::Ecb
    }
}

/// A block cipher of seed 002 in ECB or CTR.
pub(super) struct Block {
    c: Box<dyn BlockCipher128>,
    mode: Mode,
    variant: &'static BlockVariant,
}

impl Block {
    pub(super) fn boxed(
        algo: Algorithm,
        variant: &'static BlockVariant,
        key: &[u8],
    ) -> Result<Box<dyn Cipher>> {
        if key.len() != algo.key_len() {
            return Err(err(format!(
                "{algo}: key must be {} bytes",
                algo.key_len()
            )));
        }
        let c = (variant.make)(key).ok_or_else(|| err(format!("{algo}: bad key length")))?;
        Ok(Box::new(Block {
            c,
            mode: mode(algo),
            variant,
        }))
    }
}

impl Cipher for Block {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            Mode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            Mode::Ecb => {
                self.c.encrypt_blocks(buf);
                Ok(())
            }
            Mode::Ctr => {
                let iv: &[u8; 16] = iv
                    .try_into()
                    .map_err(|_| err("CTR needs a 16-byte counter block"))?;
                self.c.ctr(iv, buf);
                Ok(())
            }
        }
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            Mode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            Mode::Ecb => {
                self.c.decrypt_blocks(buf);
                Ok(())
            }
            Mode::Ctr => self.encrypt(iv, buf),
        }
    }

    fn block_ops(&mut self) -> Option<&mut dyn BlockOps> {
        Some(self)
    }
}

impl BlockOps for Block {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        if self.c.rekey(key) {
            Ok(())
        } else {
            Err(err("key length differs from the instance's"))
        }
    }

    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        self.c.encrypt_block(block)
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        self.c.decrypt_block(block)
    }

    fn schedule_bytes(&self, out: &mut [u8]) -> bool {
        let s = self.c.schedule_bytes();
        let n = out.len().min(32);
        out[..n].copy_from_slice(&s[..n]);
        true
    }

    fn path(&self) -> String {
        format!("{} (ango, {} table bytes)", self.variant.name, self.variant.table_bytes)
    }
}

/// MUGI: the IV of each call is the 16-byte `iv`; the keystream (each
/// 64-bit word big-endian) is XORed into the message.
pub(super) struct Stream {
    s: Box<dyn Keystream64>,
    key: [u8; 16],
    iv: [u8; 16],
    variant: &'static StreamVariant,
}

impl Stream {
    pub(super) fn boxed(variant: &'static StreamVariant, key: &[u8]) -> Result<Box<dyn Cipher>> {
        let key: [u8; 16] = key
            .try_into()
            .map_err(|_| err("mugi: key must be 16 bytes"))?;
        let iv = [0u8; 16];
        Ok(Box::new(Stream {
            s: (variant.make)(&key, &iv),
            key,
            iv,
            variant,
        }))
    }
}

impl Cipher for Stream {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.iv = iv
            .try_into()
            .map_err(|_| err("mugi: IV must be 16 bytes"))?;
        self.s.reinit(&self.key, &self.iv);
        self.s.apply(buf);
        Ok(())
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.encrypt(iv, buf)
    }

    fn block_ops(&mut self) -> Option<&mut dyn BlockOps> {
        Some(self)
    }
}

impl BlockOps for Stream {
    /// MUGI's initialisation (key, then the current IV, then its blank
    /// rounds) is its key schedule.
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key = key
            .try_into()
            .map_err(|_| err("mugi: key must be 16 bytes"))?;
        self.s.reinit(&self.key, &self.iv);
        Ok(())
    }

    /// 128 bits of keystream (two output words) XORed into the block.
    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        let a = self.s.next_u64() ^ u64::from_be_bytes(block[..8].try_into().expect("8"));
        let b = self.s.next_u64() ^ u64::from_be_bytes(block[8..].try_into().expect("8"));
        block[..8].copy_from_slice(&a.to_be_bytes());
        block[8..].copy_from_slice(&b.to_be_bytes());
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        self.encrypt_block(block)
    }

    fn schedule_bytes(&self, out: &mut [u8]) -> bool {
        let s = self.s.state_bytes();
        let n = out.len().min(32);
        out[..n].copy_from_slice(&s[..n]);
        true
    }

    fn path(&self) -> String {
        format!("{} (ango, {} table bytes)", self.variant.name, self.variant.table_bytes)
    }
}
