//! GHASH with VPCLMULQDQ: the carry-less multiply on 256-bit registers, two
//! blocks per register, sixteen blocks aggregated per step:
//! Y' = (Y+X1)·H^16 + X2·H^15 + ... + X16·H, the sixteen 256-bit products
//! summed and reduced once (the reduction of the PCLMULQDQ variant).
//! Fewer than sixteen blocks go to the PCLMULQDQ code. Constant time.

use super::pclmul;
use crate::cpu::Vpclmul;
use core::arch::x86_64::*;

/// Bytes per aggregated step.
pub const STEP: usize = 256;

#[derive(Clone)]
pub struct Key {
    small: pclmul::Key,
    /// H^32, H^31, ..., H^1, byte-reversed like the PCLMULQDQ variant's
    /// values. The 256-bit code reads H^16..H^1 (register i at byte
    /// 256+32i, H^(16-2i) in its low half); the stitched 512-bit GCM reads
    /// all 32 (register i at byte 64i, H^(32-4i) lowest).
    pub(crate) powers: [u8; 512],
}

#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
fn new_key(t: Vpclmul, h: &[u8; 16]) -> Key {
    let h1 = pclmul::load(h);
    let mut p = [h1; 32];
    for i in 1..32 {
        p[i] = pclmul::mul(p[i - 1], h1);
    }
    let mut powers = [0u8; 512];
    for (j, o) in powers.chunks_exact_mut(16).enumerate() {
        // SAFETY: 16-byte store into a 16-byte chunk.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), p[31 - j]) };
    }
    Key {
        small: pclmul::Key::new(t.pclmul(), h),
        powers,
    }
}

/// The key's powers in registers.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(crate) fn powers(k: &Key) -> [__m256i; 8] {
    // SAFETY: unaligned 32-byte loads inside the 512-byte array.
    core::array::from_fn(|i| unsafe {
        _mm256_loadu_si256(k.powers[256 + 32 * i..].as_ptr().cast())
    })
}

/// Reverses the bytes of each 128-bit half (the blocks' byte order to the
/// reflected one the multiplies use).
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(crate) fn rev256() -> __m256i {
    _mm256_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
        12, 13, 14, 15,
    )
}

/// Sum the two halves of the accumulated low, middle and high products and
/// reduce once: the new hash state.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(crate) fn finish(lo: __m256i, mid: __m256i, hi: __m256i) -> __m128i {
    let fold =
        |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let (lo, mid, hi) = (fold(lo), fold(mid), fold(hi));
    pclmul::reduce(
        _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
        _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
    )
}

/// Absorb the 256 bytes at `blocks` into the (byte-reversed) state `acc`.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(crate) fn step(h: &[__m256i; 8], acc: __m128i, blocks: &[u8]) -> __m128i {
    assert!(blocks.len() >= STEP);
    let rev = rev256();
    let p = blocks.as_ptr();
    let mut lo = _mm256_setzero_si256();
    let mut mid = lo;
    let mut hi = lo;
    for (i, k) in h.iter().enumerate() {
        // SAFETY: 32-byte load inside the STEP bytes checked above.
        let mut x = _mm256_shuffle_epi8(unsafe { _mm256_loadu_si256(p.add(32 * i).cast()) }, rev);
        if i == 0 {
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(acc));
        }
        lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(x, *k));
        hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(x, *k));
        mid = _mm256_xor_si256(
            mid,
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x01>(x, *k),
                _mm256_clmulepi64_epi128::<0x10>(x, *k),
            ),
        );
    }
    finish(lo, mid, hi)
}

#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
fn update_inner(t: Vpclmul, k: &Key, y: &mut [u8; 16], blocks: &[u8]) {
    let h = powers(k);
    let mut acc = pclmul::load(y);
    let mut chunks = blocks.chunks_exact(STEP);
    for c in &mut chunks {
        acc = step(&h, acc, c);
    }
    *y = pclmul::store(acc);
    k.small.update(t.pclmul(), y, chunks.remainder());
}

impl Key {
    pub fn new(t: Vpclmul, h: &[u8; 16]) -> Key {
        // SAFETY: the Vpclmul token exists only when the CPU has VPCLMULQDQ,
        // AVX2, PCLMULQDQ and SSSE3.
        unsafe { new_key(t, h) }
    }

    /// Absorb whole 16-byte blocks into the hash state `y`.
    pub fn update(&self, t: Vpclmul, y: &mut [u8; 16], blocks: &[u8]) {
        if blocks.len() < STEP {
            return self.small_update(t, y, blocks);
        }
        // SAFETY: as in `new`.
        unsafe { update_inner(t, self, y, blocks) }
    }

    /// Absorb fewer than sixteen blocks (the PCLMULQDQ code).
    pub fn small_update(&self, t: Vpclmul, y: &mut [u8; 16], blocks: &[u8]) {
        self.small.update(t.pclmul(), y, blocks);
    }
}
