//! MUGI with F's S-box and MixColumns merged into four 8→32-bit tables,
//! one per byte position of a half (the AES T-table technique): each half
//! of F is four lookups and three XORs, F's shuffle two masks. The buffer's
//! words are moved every round as in the reference. NOT constant time:
//! the tables are indexed by secret bytes.

use super::reference::{FFunction, Moving};
use super::{m_column, shuffle};
use crate::aes::SBOX;

/// T[i][x] = M's column i times S(x).
static T: [[u32; 256]; 4] = {
    let mut t = [[0u32; 256]; 4];
    let mut i = 0;
    while i < 4 {
        let mut x = 0;
        while x < 256 {
            t[i][x] = m_column(i, SBOX[x]);
            x += 1;
        }
        i += 1;
    }
    t
};

/// F by the four 32-bit tables.
pub struct T32;

impl FFunction for T32 {
    #[inline(always)]
    fn f(x: u64, b: u64) -> u64 {
        let o = x ^ b;
        let half = |h: u32| {
            T[0][(h >> 24) as usize]
                ^ T[1][(h >> 16) as usize & 0xff]
                ^ T[2][(h >> 8) as usize & 0xff]
                ^ T[3][h as usize & 0xff]
        };
        shuffle(half((o >> 32) as u32), half(o as u32))
    }
}

pub type Mugi = Moving<T32>;
