//! Seed 002's ciphers as data: each cipher is a table of variant rows
//! ([`BlockVariant`], [`StreamVariant`]) — name, CPU features, table bytes,
//! constructor — and every variant file exposes the same small interface
//! (`Key::new`, `encrypt_block`, `decrypt_block`, `schedule_bytes`; MUGI:
//! `Mugi::new`, `next_u64`). The ECB and CTR modes, the catalog entries and
//! the cycle measurements are written once, over these rows.

/// One keyed instance of a 128-bit block cipher.
pub trait BlockCipher128: Send {
    fn encrypt_block(&self, block: &mut [u8; 16]);
    fn decrypt_block(&self, block: &mut [u8; 16]);

    /// Run the key schedule again in place (the chained key-schedule
    /// measurement: no allocation between two schedules). False if `key`
    /// has another length than the instance's.
    fn rekey(&mut self, key: &[u8]) -> bool;

    /// The first 32 bytes of the expanded key in the variant's storage
    /// order (the next key of a chained key-schedule measurement).
    fn schedule_bytes(&self) -> [u8; 32];

    /// ECB over whole blocks; variants with many blocks in flight override
    /// it.
    fn encrypt_blocks(&self, buf: &mut [u8]) {
        for b in buf.chunks_exact_mut(16) {
            self.encrypt_block(b.try_into().expect("16 bytes"));
        }
    }

    fn decrypt_blocks(&self, buf: &mut [u8]) {
        for b in buf.chunks_exact_mut(16) {
            self.decrypt_block(b.try_into().expect("16 bytes"));
        }
    }

    /// CTR (SP 800-38A): the keystream of counter blocks from `iv`, the
    /// whole block incremented as a 128-bit big-endian integer (OpenSSL's
    /// and RFC 5528's layout for messages under 2^32 blocks), XORed into
    /// `buf`. Counter blocks go through [`Self::encrypt_blocks`] 64 at a
    /// time, so a variant with many blocks in flight speeds CTR up too.
    fn ctr(&self, iv: &[u8; 16], buf: &mut [u8]) {
        let mut ctr = u128::from_be_bytes(*iv);
        let mut ks = [0u8; 1024];
        for chunk in buf.chunks_mut(1024) {
            let n = chunk.len().div_ceil(16);
            for i in 0..n {
                ks[16 * i..16 * i + 16].copy_from_slice(&ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            self.encrypt_blocks(&mut ks[..16 * n]);
            for (b, k) in chunk.iter_mut().zip(ks.iter()) {
                *b ^= k;
            }
        }
    }
}

/// Implements [`BlockCipher128`] for a variant module's `Key` (its
/// inherent `new`, `encrypt_block`, `decrypt_block`, `schedule_bytes`).
macro_rules! block_cipher_of {
    // Variants with many blocks in flight: their own ECB over whole runs.
    (batch: $($m:path),+ $(,)?) => {$(
        $crate::block::block_cipher_of!(@one $m, {
            fn encrypt_blocks(&self, buf: &mut [u8]) {
                <$m>::encrypt_blocks(self, buf)
            }
            fn decrypt_blocks(&self, buf: &mut [u8]) {
                <$m>::decrypt_blocks(self, buf)
            }
        });
    )+};
    ($($m:path),+ $(,)?) => {$(
        $crate::block::block_cipher_of!(@one $m, {});
    )+};
    (@one $m:path, { $($extra:tt)* }) => {
        impl $crate::block::BlockCipher128 for $m {
            fn encrypt_block(&self, block: &mut [u8; 16]) {
                <$m>::encrypt_block(self, block)
            }
            fn decrypt_block(&self, block: &mut [u8; 16]) {
                <$m>::decrypt_block(self, block)
            }
            fn rekey(&mut self, key: &[u8]) -> bool {
                match <$m>::new(key) {
                    Some(k) => {
                        *self = k;
                        true
                    }
                    None => false,
                }
            }
            fn schedule_bytes(&self) -> [u8; 32] {
                <$m>::schedule_bytes(self)
            }
            $($extra)*
        }
    };
}
pub(crate) use block_cipher_of;

/// A keyed block cipher from its key, None for a key length the cipher
/// lacks.
pub type MakeBlock = fn(&[u8]) -> Option<Box<dyn BlockCipher128>>;

/// One implementation of a block cipher: a row of its cipher's table.
#[derive(Clone, Copy)]
pub struct BlockVariant {
    /// `reference-nct`, `table64-nct`, `aesni`, … (`-nct`: table indices
    /// depend on secrets).
    pub name: &'static str,
    /// CPU features it needs (none for portable code).
    pub needs: &'static [&'static str],
    /// Whether it runs on this CPU, and why not.
    pub available: fn() -> Result<(), &'static str>,
    /// Bytes of lookup tables it reads (seed 002 sets them beside the
    /// L1 data cache).
    pub table_bytes: usize,
    /// The technique in one line, for `ango list` and the report.
    pub about: &'static str,
    pub make: MakeBlock,
}

impl std::fmt::Debug for BlockVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A variant's keyed instance as the catalog's trait object (None for a
/// key length the cipher lacks).
pub(crate) fn boxed<K: BlockCipher128 + 'static>(k: Option<K>) -> Option<Box<dyn BlockCipher128>> {
    k.map(|k| Box::new(k) as Box<dyn BlockCipher128>)
}

/// Portable code runs everywhere.
pub fn everywhere() -> Result<(), &'static str> {
    Ok(())
}

/// A keyed 64-bit-word keystream generator (MUGI).
pub trait Keystream64: Send {
    /// The next output word.
    fn next_u64(&mut self) -> u64;
    /// Re-initialise in place with a new key and IV (the chained
    /// initialisation measurement).
    fn reinit(&mut self, key: &[u8; 16], iv: &[u8; 16]);
    /// 32 bytes of the state (the next key and IV of a chained
    /// initialisation measurement).
    fn state_bytes(&self) -> [u8; 32];

    /// XOR the keystream into `buf`, each word big-endian; a partial last
    /// word is used for its first bytes and the rest dropped (one message
    /// per instance).
    fn apply(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let w = self.next_u64().to_be_bytes();
            for (b, k) in chunk.iter_mut().zip(w.iter()) {
                *b ^= k;
            }
        }
    }
}

/// A keyed keystream generator from key and IV.
pub type MakeStream = fn(&[u8; 16], &[u8; 16]) -> Box<dyn Keystream64>;

/// One implementation of a stream cipher.
#[derive(Clone, Copy)]
pub struct StreamVariant {
    pub name: &'static str,
    pub needs: &'static [&'static str],
    pub available: fn() -> Result<(), &'static str>,
    pub table_bytes: usize,
    pub about: &'static str,
    pub make: MakeStream,
}

impl std::fmt::Debug for StreamVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}
