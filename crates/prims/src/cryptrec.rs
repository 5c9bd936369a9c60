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
