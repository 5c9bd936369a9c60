//! MUGI (Hitachi), seed 002's stream cipher: a PANAMA-like keystream
//! generator over 64-bit units, a 3-unit state `a` updated by an SPN
//! Feistel `rho` (two F functions built from AES's S-box and MixColumns
//! matrix) and a 16-unit buffer `b` updated linearly by `lambda`.
//!
//! Implemented from the description in `../shared/specs/mugi/` (Hitachi's
//! specification Ver. 1.2/1.3 chapters 3-5 as reconstructed there: the PDF
//! itself could not be read) and checked against the specification's
//! Appendix C Examples 1 and 2 (`vectors/mugi.txt`), every intermediate
//! state of Example 2 in a unit test of `reference`.
//!
//! One file per variant:
//! - `reference-nct`: straight from the description; F by S-box lookups
//!   and MixColumns computed with xtime, the buffer's words moved one place
//!   every round;
//! - `table32-nct`: S-box and MixColumns merged into four 8→32-bit tables
//!   (the AES T-table technique) per half of F, words still moved;
//! - `table64-nct`: seed 002's 64-bit design: eight 8→64-bit tables that
//!   also carry F's final byte shuffle (F is eight lookups and seven XORs),
//!   and the buffer rotated by an index instead of moving its words (16
//!   rounds unrolled so the index is a constant in each);
//! - `table64-moving-nct`: the same tables with the words moved, so the
//!   index technique's own effect can be read off beside it.
//!
//! - `aesni`: no tables, constant time: F as one AESENC (MUGI's S-box and
//!   matrix are AES's), the buffer rotated by an index.
//!
//! The `-nct` variants index tables with secret data: NOT constant time.

#[cfg(target_arch = "x86_64")]
pub mod aesni;
pub mod reference;
pub mod table32;
pub mod table64;

use crate::block::{everywhere, Keystream64, StreamVariant};

/// The constants of the specification §4.7.4 (frac(√2), frac(√3), frac(√5)
/// × 2^64).
pub const C: [u64; 3] = [0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B];

/// The key (or IV) input's third unit: `(x0 <<< 7) ^ (x1 >>> 7) ^ C0`.
#[inline(always)]
pub(crate) fn input_a2(x0: u64, x1: u64) -> u64 {
    x0.rotate_left(7) ^ x1.rotate_right(7) ^ C[0]
}

/// The two 64-bit units of 16 big-endian bytes.
#[inline(always)]
pub(crate) fn units(x: &[u8; 16]) -> [u64; 2] {
    [
        u64::from_be_bytes(x[..8].try_into().expect("8")),
        u64::from_be_bytes(x[8..].try_into().expect("8")),
    ]
}

/// Multiply by x in GF(2^8) mod x^8+x^4+x^3+x+1 (0x11b).
pub(crate) const fn xtime(x: u8) -> u8 {
    (x << 1) ^ (0x1b & 0u8.wrapping_sub(x >> 7))
}

/// MixColumns' contribution of input byte `i` (0..4) of a half of F, with
/// value `s` after the S-box, as the 32-bit column Q0‖Q1‖Q2‖Q3 (Q0 most
/// significant): column i of M = [02 03 01 01; 01 02 03 01; 01 01 02 03;
/// 03 01 01 02].
pub(crate) const fn m_column(i: usize, s: u8) -> u32 {
    let (s1, s2) = (s as u32, xtime(s) as u32);
    let s3 = s1 ^ s2;
    let col = match i {
        0 => [s2, s1, s1, s3],
        1 => [s3, s2, s1, s1],
        2 => [s1, s3, s2, s1],
        _ => [s1, s1, s3, s2],
    };
    (col[0] << 24) | (col[1] << 16) | (col[2] << 8) | col[3]
}

/// F's output from its two halves QH = Q0..Q3 and QL = Q4..Q7: the bytes
/// Q4 Q5 Q2 Q3 Q0 Q1 Q6 Q7, most significant first.
#[inline(always)]
pub(crate) const fn shuffle(qh: u32, ql: u32) -> u64 {
    let hi = (ql & 0xffff_0000) | (qh & 0x0000_ffff);
    let lo = (qh & 0xffff_0000) | (ql & 0x0000_ffff);
    ((hi as u64) << 32) | lo as u64
}

/// A keystream that goes on across calls of any length: the bytes of
/// `apply(a); apply(b)` are those of `apply(a ‖ b)` (each unit
/// big-endian).
pub struct Bytes {
    gen: Box<dyn Keystream64>,
    word: [u8; 8],
    used: usize,
}

impl Bytes {
    pub fn new(gen: Box<dyn Keystream64>) -> Bytes {
        Bytes {
            gen,
            word: [0; 8],
            used: 8,
        }
    }

    /// XOR the next `buf.len()` keystream bytes into `buf`.
    pub fn apply(&mut self, buf: &mut [u8]) {
        for b in buf {
            if self.used == 8 {
                self.word = self.gen.next_u64().to_be_bytes();
                self.used = 0;
            }
            *b ^= self.word[self.used];
            self.used += 1;
        }
    }
}

/// MUGI's variants, slowest first: the last one a CPU runs is the
/// automatic choice (AES-NI's where the CPU has it: no table, and the
/// fastest here).
pub const VARIANTS: &[StreamVariant] = &[
    StreamVariant {
        name: "reference-nct",
        needs: &[],
        available: everywhere,
        // The AES S-box.
        table_bytes: 256,
        about: "the specification's description: S-box lookups, MixColumns by xtime, buffer \
                words moved every round",
        make: |k, iv| Box::new(reference::Mugi::new(k, iv)),
    },
    StreamVariant {
        name: "table32-nct",
        needs: &[],
        available: everywhere,
        // Four 8→32-bit S∘M tables.
        table_bytes: 4 * 256 * 4,
        about: "S-box and MixColumns merged into four 8→32-bit tables, buffer words moved",
        make: |k, iv| Box::new(table32::Mugi::new(k, iv)),
    },
    StreamVariant {
        name: "table64-moving-nct",
        needs: &[],
        available: everywhere,
        table_bytes: 8 * 256 * 8,
        about: "seed 002's eight 8→64-bit tables (S, M and F's shuffle merged), buffer words \
                moved: the index rotation's control",
        make: |k, iv| Box::new(table64::MugiMoving::new(k, iv)),
    },
    StreamVariant {
        name: "table64-nct",
        needs: &[],
        available: everywhere,
        // Eight 8→64-bit tables.
        table_bytes: 8 * 256 * 8,
        about: "seed 002: eight 8→64-bit tables (S, M and F's shuffle merged), buffer rotated \
                by an index (16 rounds unrolled), 64-bit units",
        make: |k, iv| Box::new(table64::Mugi::new(k, iv)),
    },
    #[cfg(target_arch = "x86_64")]
    StreamVariant {
        name: "aesni",
        needs: &["aes", "ssse3"],
        available: aesni::available,
        table_bytes: 0,
        about: "constant time: F as one AESENC (AES's S-box and MixColumns are MUGI's), buffer \
                rotated by an index",
        make: |k, iv| Box::new(aesni::Mugi::new(k, iv)),
    },
];

/// The 32 state bytes the chained initialisation measurement feeds back:
/// a0, a1, a2 and the buffer's b0, big-endian.
pub(crate) fn state_bytes(a: &[u64; 3], b0: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(8).zip([a[0], a[1], a[2], b0]) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// F's matrix is AES's MixColumns: FIPS 197 §5.1.3's example column
    /// db 13 53 45 → 8e 4d a1 bc.
    #[test]
    fn m_is_mixcolumns() {
        let p = [0xdbu8, 0x13, 0x53, 0x45];
        let q = (0..4).fold(0u32, |q, i| q ^ m_column(i, p[i]));
        assert_eq!(q, 0x8e4d_a1bc);
    }

    /// Bytes given in pieces are the bytes given at once, for every
    /// variant.
    #[test]
    fn keystream_split_into_calls_is_the_same() {
        let key: [u8; 16] = core::array::from_fn(|i| i as u8);
        let iv: [u8; 16] = core::array::from_fn(|i| 0xf0u8.wrapping_sub(16 * i as u8));
        for v in VARIANTS {
            let mut whole = vec![0u8; 301];
            Bytes::new((v.make)(&key, &iv)).apply(&mut whole);
            let mut parts = vec![0u8; 301];
            let mut g = Bytes::new((v.make)(&key, &iv));
            let mut at = 0;
            for n in [0usize, 1, 7, 8, 9, 3, 64, 100, 109] {
                g.apply(&mut parts[at..at + n]);
                at += n;
            }
            assert_eq!(at, 301);
            assert_eq!(whole, parts, "{}", v.name);
        }
    }
}
