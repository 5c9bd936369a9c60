//! MUGI's F without tables: its S-box and matrix are AES's SubBytes and
//! MixColumns, so one AESENC with a zero round key computes both halves
//! of F. The eight bytes of X ⊕ B are placed (PSHUFB) where AES's
//! ShiftRows brings P0..P3 into column 0 and P4..P7 into column 1; AESENC
//! then gives Q0..Q3 and Q4..Q7 in those columns, and a second PSHUFB
//! makes F's shuffle Q4 Q5 Q2 Q3 Q0 Q1 Q6 Q7. The buffer is rotated by an
//! index as in `table64`.
//!
//! Constant time: no table and no branch on the key, IV or state.

use super::reference::FFunction;
use super::table64::Rotating;

/// Needs AES-NI and SSSE3.
pub fn available() -> Result<(), &'static str> {
    if !std::arch::is_x86_feature_detected!("aes") {
        return Err("needs AES-NI");
    }
    if !std::arch::is_x86_feature_detected!("ssse3") {
        return Err("needs SSSE3");
    }
    Ok(())
}

/// Lane k of the AES state takes lane PRE[k] of the word (lane 0 its least
/// significant byte, so O_i is lane 7 - i); 0x80 clears a lane. O0..O3 go
/// to lanes 0, 5, 10, 15 and O4..O7 to 4, 9, 14, 3: ShiftRows moves them
/// into columns 0 and 1.
const PRE: [u8; 16] = [
    7, 0x80, 0x80, 0, 3, 6, 0x80, 0x80, 0x80, 2, 5, 0x80, 0x80, 0x80, 1, 4,
];
/// Y's byte j (most significant first: Q4 Q5 Q2 Q3 Q0 Q1 Q6 Q7) to lane
/// 7 - j; Q_i is lane i after AESENC.
const POST: [u8; 16] = [
    7, 6, 1, 0, 3, 2, 5, 4, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
];

/// F by one AESENC.
pub struct AesNi;

#[target_feature(enable = "aes,ssse3,sse2")]
fn f_aesni(o: u64) -> u64 {
    use core::arch::x86_64::*;
    // SAFETY: PRE and POST are 16-byte arrays; loadu has no alignment
    // requirement.
    let (pre, post) = unsafe {
        (
            _mm_loadu_si128(PRE.as_ptr().cast()),
            _mm_loadu_si128(POST.as_ptr().cast()),
        )
    };
    let s = _mm_shuffle_epi8(_mm_cvtsi64_si128(o as i64), pre);
    let q = _mm_aesenc_si128(s, _mm_setzero_si128());
    _mm_cvtsi128_si64(_mm_shuffle_epi8(q, post)) as u64
}

impl FFunction for AesNi {
    #[inline(always)]
    fn f(x: u64, b: u64) -> u64 {
        // SAFETY: a generator with this F is made only through its row of
        // VARIANTS, whose `available` checked AES-NI and SSSE3 first.
        unsafe { f_aesni(x ^ b) }
    }
}

pub type Mugi = Rotating<AesNi>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mugi::reference::Computed;

    /// F by AESENC equals F as the description computes it.
    #[test]
    fn f_by_aesenc_is_f() {
        if let Err(why) = available() {
            eprintln!("skipped on this CPU: {why}");
            return;
        }
        let mut x = 0x0123_4567_89ab_cdefu64;
        for i in 0..1000u64 {
            x = x.rotate_left(13) ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let b = x.wrapping_mul(3) ^ i;
            assert_eq!(AesNi::f(x, b), Computed::f(x, b), "{x:#x} {b:#x}");
        }
    }
}
