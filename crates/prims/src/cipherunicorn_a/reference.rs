//! CIPHERUNICORN-A as the description writes T_n: byte n of the word
//! through the four S-boxes, their outputs assembled S0‖S1‖S2‖S3 (four
//! lookups). NOT constant time: the S-boxes are indexed by secret bytes.

use super::spec::S;
use super::TFunction;

/// T_n by four 8→8-bit lookups.
pub struct SBoxes;

impl TFunction for SBoxes {
    #[inline(always)]
    fn t(b: u8) -> u32 {
        let b = b as usize;
        u32::from_be_bytes([S[0][b], S[1][b], S[2][b], S[3][b]])
    }
}

pub type Key = super::Key<SBoxes>;
