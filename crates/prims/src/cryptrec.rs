//! Seed 002's CRYPTREC ciphers: which variants each has, as rows of data
//! (see [`crate::block`]), and the ciphers ango cannot implement with why.

use crate::block::{BlockVariant, StreamVariant};

/// The block ciphers and their variant tables, by the name algorithms
/// start with (`camellia-128-ecb` → `camellia`).
pub const BLOCK_CIPHERS: &[(&str, &[BlockVariant])] = &[
    ("camellia", crate::camellia::VARIANTS),
    ("sc2000", crate::sc2000::VARIANTS),
];

/// MUGI's variants.
pub const MUGI: &[StreamVariant] = &[];

/// Seed 002's ciphers that ango has no verified implementation of, with
/// why (shown by `ango list`).
pub const BLOCKED: &[(&str, &str)] = &[
    (
        "hierocrypt3",
        "blocked: Toshiba's specification (CRYPTREC 08_02espec.pdf, NESSIE edition) is \
         reachable only as its title and contents pages here; NESSIE's test vectors alone \
         cannot define the S-box or the key schedule, and a third-party implementation is \
         not a specification",
    ),
    (
        "cipherunicorn-a",
        "blocked: NEC's specification (CRYPTREC 07_02espec.pdf) and its test data are not \
         reachable here; reviews give the structure but not the S-boxes, and third-party \
         ports disagree on A3",
    ),
    (
        "mugi",
        "blocked: Hitachi's specification (Ver. 1.3, CRYPTREC 10_02espec.pdf; Ver. 1.2 \
         mugi_spe.pdf) is reachable only as its title and contents pages here, and its \
         Appendix C test vectors with it",
    ),
];

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
