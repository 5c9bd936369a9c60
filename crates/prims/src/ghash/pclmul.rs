//! GHASH with PCLMULQDQ (Gueron–Kounavis, Intel's carry-less
//! multiplication white paper): Karatsuba-free 4-multiply product, a shift
//! left by one for the reflected bit order, and the two-phase reduction.
//! Four blocks are aggregated: Y' = (Y+X1)·H^4 + X2·H^3 + X3·H^2 + X4·H with
//! the four 256-bit products summed and reduced once (a last one to three
//! blocks likewise with H^3, H^2, H). Constant time.

use crate::cpu::Pclmul;
use core::arch::x86_64::*;

#[derive(Clone)]
pub struct Key {
    /// H, H^2, H^3, H^4 as byte-reversed 16-byte values.
    powers: [[u8; 16]; 4],
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn bswap(v: __m128i) -> __m128i {
    _mm_shuffle_epi8(
        v,
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    )
}

/// The 256-bit carry-less product of a and b, as (low, high).
#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn clmul(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x10>(a, b),
        _mm_clmulepi64_si128::<0x01>(a, b),
    );
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    (
        _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
        _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
    )
}

/// Shift the 256-bit (lo, hi) left by one bit and reduce modulo the GCM
/// polynomial (in the byte-reversed, bit-reflected domain).
#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    let c_lo = _mm_srli_epi32::<31>(lo);
    let c_hi = _mm_srli_epi32::<31>(hi);
    let mut lo = _mm_slli_epi32::<1>(lo);
    let mut hi = _mm_slli_epi32::<1>(hi);
    let carry = _mm_srli_si128::<12>(c_lo);
    hi = _mm_or_si128(hi, _mm_slli_si128::<4>(c_hi));
    lo = _mm_or_si128(lo, _mm_slli_si128::<4>(c_lo));
    hi = _mm_or_si128(hi, carry);
    let a = _mm_xor_si128(
        _mm_xor_si128(_mm_slli_epi32::<31>(lo), _mm_slli_epi32::<30>(lo)),
        _mm_slli_epi32::<25>(lo),
    );
    let b = _mm_srli_si128::<4>(a);
    lo = _mm_xor_si128(lo, _mm_slli_si128::<12>(a));
    let c = _mm_xor_si128(
        _mm_xor_si128(_mm_srli_epi32::<1>(lo), _mm_srli_epi32::<2>(lo)),
        _mm_xor_si128(_mm_srli_epi32::<7>(lo), b),
    );
    _mm_xor_si128(hi, _mm_xor_si128(lo, c))
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn load(b: &[u8]) -> __m128i {
    assert!(b.len() >= 16);
    // SAFETY: at least 16 readable bytes (checked above); unaligned load.
    bswap(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn store(v: __m128i) -> [u8; 16] {
    let mut out = [0u8; 16];
    // SAFETY: 16-byte store into a 16-byte array.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), bswap(v)) };
    out
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn mul(a: __m128i, b: __m128i) -> __m128i {
    let (lo, hi) = clmul(a, b);
    reduce(lo, hi)
}

#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
fn new_key(h: &[u8; 16]) -> Key {
    let h1 = load(h);
    let h2 = mul(h1, h1);
    let h3 = mul(h2, h1);
    let h4 = mul(h3, h1);
    let st = |v: __m128i| {
        let mut o = [0u8; 16];
        // SAFETY: 16-byte store into a 16-byte array.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), v) };
        o
    };
    Key {
        powers: [st(h1), st(h2), st(h3), st(h4)],
    }
}

#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
fn update_inner(k: &Key, y: &mut [u8; 16], blocks: &[u8]) {
    // SAFETY: unaligned 16-byte loads from 16-byte arrays.
    let p: [__m128i; 4] =
        core::array::from_fn(|i| unsafe { _mm_loadu_si128(k.powers[i].as_ptr().cast()) });
    let mut acc = load(y);
    let mut chunks = blocks.chunks_exact(64);
    for c in &mut chunks {
        let x1 = _mm_xor_si128(acc, load(&c[0..]));
        let (l1, h1) = clmul(x1, p[3]);
        let (l2, h2) = clmul(load(&c[16..]), p[2]);
        let (l3, h3) = clmul(load(&c[32..]), p[1]);
        let (l4, h4) = clmul(load(&c[48..]), p[0]);
        let lo = _mm_xor_si128(_mm_xor_si128(l1, l2), _mm_xor_si128(l3, l4));
        let hi = _mm_xor_si128(_mm_xor_si128(h1, h2), _mm_xor_si128(h3, h4));
        acc = reduce(lo, hi);
    }
    // One to three blocks left: aggregated too, Y' = (Y+X1)·H^r + … + Xr·H,
    // one reduction (a short message's whole hash is often just this).
    let rest = chunks.remainder();
    let r = rest.len() / 16;
    if r > 0 {
        let mut lo = _mm_setzero_si128();
        let mut hi = lo;
        for (i, b) in rest.chunks_exact(16).enumerate() {
            let mut x = load(b);
            if i == 0 {
                x = _mm_xor_si128(x, acc);
            }
            let (l, h) = clmul(x, p[r - 1 - i]);
            lo = _mm_xor_si128(lo, l);
            hi = _mm_xor_si128(hi, h);
        }
        acc = reduce(lo, hi);
    }
    *y = store(acc);
}

impl Key {
    pub fn new(_t: Pclmul, h: &[u8; 16]) -> Key {
        // SAFETY: the Pclmul token exists only when the CPU has PCLMULQDQ,
        // SSE2 and SSSE3.
        unsafe { new_key(h) }
    }

    /// Absorb whole 16-byte blocks into the hash state `y` (bytes as in
    /// SP 800-38D).
    pub fn update(&self, _t: Pclmul, y: &mut [u8; 16], blocks: &[u8]) {
        // SAFETY: as in `new`.
        unsafe { update_inner(self, y, blocks) }
    }
}
