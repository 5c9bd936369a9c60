//! SC2000 (Fujitsu), seed 002's fourth cipher, from the designers' paper
//! (Shimoyama et al., "The Block Cipher SC2000", FSE 2001, LNCS 2355):
//! the CRYPTREC specification document could not be reached, and the
//! official test data are NESSIE's test vectors (`vectors/sc2000.txt`).
//! One file per variant:
//! - `reference-nct`: straight from the paper (S6, S5, S4 tables);
//! - `table32-nct`: S and M merged in the paper's (6,10,10,6) split, B
//!   bitsliced, rounds written out;
//! - `table64-nct`: seed 002's design — one I-B-I function, one R2 function
//!   for two R rounds, the (11,10,11) tables S11_M and S10_M, B bitsliced,
//!   64-bit words.
//!
//! Every variant indexes tables with secret data: NOT constant time.

pub mod reference;
mod spec;
pub mod table32;
pub mod table64;

use crate::block::{block_cipher_of, boxed, everywhere, BlockVariant};

block_cipher_of!(reference::Key, table32::Key, table64::Key);

/// SC2000's variants, slowest first: the last one a CPU runs is the
/// automatic choice.
pub const VARIANTS: &[BlockVariant] = &[
    BlockVariant {
        name: "reference-nct",
        needs: &[],
        available: everywhere,
        // S6, S5, S4, S4^-1 and M as the paper prints them.
        table_bytes: 256,
        about: "FSE 2001 paper's description: S6/S5 lookups, M by its matrix, B by S4",
        make: |k| boxed(reference::Key::new(k)),
    },
    BlockVariant {
        name: "table64-nct",
        needs: &[],
        available: everywhere,
        // S11_M and S10_M (the paper's "20 KByte"), plus the 256-byte
        // key-word order table.
        table_bytes: 20480 + 256,
        about:
            "seed 002: I-B-I and R2 merged, (11,10,11)-bit S∘M tables, B bitsliced, 64-bit words",
        make: |k| boxed(table64::Key::new(k)),
    },
    BlockVariant {
        name: "table32-nct",
        needs: &[],
        available: everywhere,
        // The (6,10,10,6) S∘M tables (the paper's "9 KByte"), plus the
        // 256-byte key-word order table.
        table_bytes: 8704 + 256,
        about: "S and M merged in the (6,10,10,6) split, B bitsliced, rounds inlined",
        make: |k| boxed(table32::Key::new(k)),
    },
];
