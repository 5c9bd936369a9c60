//! CIPHERUNICORN-A with seed 002's single 8→32-bit table (§2.3.3): T[x] =
//! S0[x]‖S1[x]‖S2[x]‖S3[x], so T_n is one lookup instead of four. NOT
//! constant time: the table is indexed by secret bytes.

use super::spec::S;
use super::TFunction;

static T: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        t[x] = u32::from_be_bytes([S[0][x], S[1][x], S[2][x], S[3][x]]);
        x += 1;
    }
    t
};

/// T_n by one 8→32-bit lookup.
pub struct Table;

impl TFunction for Table {
    #[inline(always)]
    fn t(b: u8) -> u32 {
        T[b as usize]
    }
}

pub type Key = super::Key<Table>;
