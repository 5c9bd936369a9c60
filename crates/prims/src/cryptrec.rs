//! Seed 002's CRYPTREC ciphers: which variants each has, as rows of data
//! (see [`crate::block`]), and the ciphers ango cannot implement with why.

use crate::block::{BlockVariant, StreamVariant};

/// The block ciphers and their variant tables, by the name algorithms
/// start with (`camellia-128-ecb` → `camellia`).
pub const BLOCK_CIPHERS: &[(&str, &[BlockVariant])] = &[
    ("camellia", crate::camellia::VARIANTS),
    ("sc2000", crate::sc2000::VARIANTS),
    ("cipherunicorn-a", crate::cipherunicorn_a::VARIANTS),
    ("hierocrypt3", crate::hierocrypt3::VARIANTS),
];

/// MUGI's variants.
pub const MUGI: &[StreamVariant] = crate::mugi::VARIANTS;

/// Seed 002's ciphers that ango has no verified implementation of, with
/// why (shown by `ango list`): none since the three specifications were
/// reconstructed (`../shared/specs/`).
pub const BLOCKED: &[(&str, &str)] = &[];

/// a·b in GF(2^8) modulo `poly` (with its x^8 bit: 0x163 for
/// Hierocrypt-3, 0x11d.. for CIPHERUNICORN-A's S-boxes). Branches on `b`,
/// so only for public constants or compile-time tables.
pub const fn gf_mul(mut a: u8, mut b: u8, poly: u16) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        let hi = a & 0x80 != 0;
        a <<= 1;
        if hi {
            a ^= (poly & 0xff) as u8;
        }
        b >>= 1;
    }
    r
}

/// The inverse of a byte permutation given as its table (an S-box's
/// inverse).
pub const fn invert(t: &[u8; 256]) -> [u8; 256] {
    let mut inv = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        inv[t[i] as usize] = i as u8;
        i += 1;
    }
    inv
}

/// The variant table of a block cipher, by name.
pub fn block_variants(cipher: &str) -> Option<&'static [BlockVariant]> {
    BLOCK_CIPHERS
        .iter()
        .find(|(c, _)| *c == cipher)
        .map(|(_, v)| *v)
}

/// Why ango has no implementation of `cipher`, if it has none.
pub fn blocked(cipher: &str) -> Option<&'static str> {
    BLOCKED.iter().find(|(c, _)| *c == cipher).map(|(_, w)| *w)
}
