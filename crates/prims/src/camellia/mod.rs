//! Camellia (RFC 3713; NTT and Mitsubishi Electric), seed 002's first
//! cipher, one file per variant as its techniques name them:
//! - `reference-nct`: byte-oriented, straight from RFC 3713;
//! - `table32-nct`: S-box and P-function merged into 8→32-bit tables on
//!   32-bit words (the specification's C.2.7 form (5));
//! - `table64-nct`: 8→64-bit tables on 64-bit words, without the subkeys
//!   the 64-bit schedule duplicates (seed 002 §2.2.4).
//!
//! - `bitsliced`: 64 blocks on 64-bit bit planes, the S-boxes as a circuit
//!   in the specification's own field (portable, constant time);
//! - `aesni`, `aesni-avx2`, `vaes-avx2`: the S-boxes through AESENCLAST
//!   (VAESENCLAST on whole 256-bit registers for the last), Camellia's
//!   S-box being affine-equivalent to AES's (`affine.rs`), 16 or 32 blocks
//!   byte-sliced in flight;
//! - `gfni-avx2`, `gfni-avx512`: the same maps through GF2P8AFFINEQB and
//!   GF2P8AFFINEINVQB, 32 or 64 blocks in flight.
//!
//! The `-nct` variants index tables with secret data: NOT constant time.
//! The others read no memory table at a secret index.

#[cfg(target_arch = "x86_64")]
pub mod aesni;
pub mod affine;
pub mod bitsliced;
#[cfg(target_arch = "x86_64")]
pub mod gfni;
pub mod reference;
pub mod table32;
pub mod table64;

use crate::block::{block_cipher_of, boxed, everywhere, BlockVariant};

block_cipher_of!(reference::Key, table32::Key, table64::Key);
block_cipher_of!(batch: bitsliced::Key);
#[cfg(target_arch = "x86_64")]
block_cipher_of!(batch: aesni::Key, aesni::KeyAvx2, aesni::KeyVaes, gfni::KeyAvx2, gfni::KeyAvx512);

/// Camellia's variants, slowest first: the last one a CPU runs is the
/// automatic choice.
pub const VARIANTS: &[BlockVariant] = &[
    BlockVariant {
        name: "reference-nct",
        needs: &[],
        available: everywhere,
        table_bytes: reference::TABLE_BYTES,
        about: "RFC 3713 byte by byte: SBOX1 as a table, F, FL, FL^-1",
        make: |k| boxed(reference::Key::new(k)),
    },
    BlockVariant {
        name: "bitsliced",
        needs: &[],
        available: everywhere,
        table_bytes: bitsliced::TABLE_BYTES,
        about: "64 blocks on u64 bit planes, S-boxes as a circuit: constant time, portable",
        make: |k| boxed(bitsliced::Key::new(k)),
    },
    BlockVariant {
        name: "table32-nct",
        needs: &[],
        available: everywhere,
        table_bytes: table32::TABLE_BYTES,
        about: "S and P merged into four 8→32-bit tables, 32-bit words, rounds inlined",
        make: |k| boxed(table32::Key::new(k)),
    },
    BlockVariant {
        name: "table64-nct",
        needs: &[],
        available: everywhere,
        table_bytes: table64::TABLE_BYTES,
        about: "eight 8→64-bit SP tables, 64-bit words, duplicated subkeys dropped",
        make: |k| boxed(table64::Key::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "aesni",
        needs: &["aes", "ssse3", "avx"],
        available: aesni::available,
        table_bytes: aesni::TABLE_BYTES,
        about: "S-boxes through AESENCLAST with affine nibble shuffles, 16 blocks in flight",
        make: |k| boxed(aesni::Key::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "aesni-avx2",
        needs: &["aes", "avx2"],
        available: aesni::available_avx2,
        table_bytes: aesni::TABLE_BYTES,
        about: "AESENCLAST on both 128-bit halves of AVX2 registers, 32 blocks in flight",
        make: |k| boxed(aesni::KeyAvx2::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "vaes-avx2",
        needs: &["vaes", "aes", "avx2"],
        available: aesni::available_vaes,
        table_bytes: aesni::TABLE_BYTES,
        about: "one VAESENCLAST per 256-bit register for the S-boxes, 32 blocks in flight",
        make: |k| boxed(aesni::KeyVaes::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "gfni-avx2",
        needs: &["gfni", "avx2"],
        available: gfni::available_avx2,
        table_bytes: gfni::TABLE_BYTES,
        about: "GF2P8AFFINEQB + GF2P8AFFINEINVQB on AVX2, 32 blocks in flight",
        make: |k| boxed(gfni::KeyAvx2::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "gfni-avx512",
        needs: &["gfni", "avx512f", "avx512bw"],
        available: gfni::available_avx512,
        table_bytes: gfni::TABLE_BYTES,
        about: "GF2P8AFFINEQB + GF2P8AFFINEINVQB on AVX-512, 64 blocks in flight",
        make: |k| boxed(gfni::KeyAvx512::new(k)),
    },
];
