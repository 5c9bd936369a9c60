//! GHASH with VPCLMULQDQ: the carry-less multiply on 256-bit registers, two
//! blocks per register, sixteen blocks aggregated per step:
//! Y' = (Y+X1)·H^16 + X2·H^15 + ... + X16·H, the sixteen 256-bit products
//! summed and reduced once (the reduction of the PCLMULQDQ variant). Each
//! product takes three multiplies, not four (Karatsuba: the middle term is
//! (x_lo+x_hi)(h_lo+h_hi) + lo + hi, with h_lo+h_hi kept with the key and
//! the lo and hi added once per step), as the Linux kernel's and
//! BoringSSL's VAES/AVX2 GCM do: VPCLMULQDQ on 256 bits issues once every
//! two cycles on AMD Zen 3, so the multiplies set GHASH's pace. Up to 48
//! blocks left over are absorbed with one reduction too ([`Agg`]), the
//! powers read from where their blocks lie from the end. Constant time.

use super::pclmul;
use crate::cpu::Vpclmul;
use core::arch::x86_64::*;

/// Bytes per aggregated step.
pub const STEP: usize = 256;

#[derive(Clone)]
pub struct Key {
    /// H^48, H^47, ..., H^1, byte-reversed like the PCLMULQDQ variant's
    /// values, then 16 zero bytes: H^j at byte [`at`]`(j)`. The 256-bit
    /// code reads H^16..H^1 (register i at at(16)+32i, H^(16-2i) in its low
    /// half); the stitched 512-bit GCM reads H^32..H^1 (register i at
    /// at(32)+64i, H^(32-4i) lowest); [`Agg`] reads pairs at any block
    /// offset (a lone last block beside the zeros).
    pub(crate) powers: [u8; POWERS],
    /// For each power above, h_lo+h_hi in both 64-bit halves (Karatsuba's
    /// middle factor), at the same offsets.
    pub(crate) xpowers: [u8; POWERS],
}

/// The most blocks one aggregation takes ([`Agg`]): the 512-bit AES-GCM
/// code's last window of sixteen 256-byte steps with a leftover of up to 15
/// blocks and the length block (272), and room beside them for an AAD of
/// up to 8 blocks (a first window that is not the last takes up to 24); or
/// a short message's AAD, text and length block. The key's power tables
/// hold this many powers (2 × 4.5 KB).
pub(crate) const MAX_BLOCKS: usize = 280;

/// Bytes of a power table: the powers and a zero slot.
const POWERS: usize = 16 * (MAX_BLOCKS + 1);

/// Where H^j (1 ≤ j ≤ MAX_BLOCKS) lies in the power tables.
pub(crate) const fn at(j: usize) -> usize {
    16 * (MAX_BLOCKS - j)
}

#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
fn new_key(_t: Vpclmul, h: &[u8; 16]) -> Key {
    let h1 = pclmul::load(h);
    let mut p = [h1; MAX_BLOCKS];
    for i in 1..8 {
        p[i] = pclmul::mul(p[i - 1], h1);
    }
    // Then eight independent chains, each multiplying by H^8, which the
    // core overlaps: a key takes 2.1 µs (Zen 4; one chain by H, 3.1 µs;
    // with 72 powers, before the 512-bit code's 4 KiB windows, 1.0 µs).
    for i in 8..MAX_BLOCKS {
        p[i] = pclmul::mul(p[i - 8], p[7]);
    }
    let mut powers = [0u8; POWERS];
    let mut xpowers = [0u8; POWERS];
    for (j, (o, x)) in powers
        .chunks_exact_mut(16)
        .zip(xpowers.chunks_exact_mut(16))
        .take(MAX_BLOCKS)
        .enumerate()
    {
        let v = p[MAX_BLOCKS - 1 - j];
        let halves = _mm_xor_si128(v, _mm_shuffle_epi32::<0x4e>(v));
        // SAFETY: 16-byte stores into 16-byte chunks.
        unsafe {
            _mm_storeu_si128(o.as_mut_ptr().cast(), v);
            _mm_storeu_si128(x.as_mut_ptr().cast(), halves);
        }
    }
    Key { powers, xpowers }
}

/// The two powers (and their Karatsuba factors) at byte `at` of the tables.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
fn power_pair(k: &Key, at: usize) -> (__m256i, __m256i) {
    assert!(at + 32 <= POWERS);
    // SAFETY: 32-byte loads inside both tables (checked above).
    unsafe {
        (
            _mm256_loadu_si256(k.powers.as_ptr().add(at).cast()),
            _mm256_loadu_si256(k.xpowers.as_ptr().add(at).cast()),
        )
    }
}

/// H^j (1 ≤ j ≤ [`MAX_BLOCKS`]) and its Karatsuba factor, for 128-bit code.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
pub(crate) fn power128(k: &Key, j: usize) -> (__m128i, __m128i) {
    assert!((1..=MAX_BLOCKS).contains(&j));
    let o = at(j);
    // SAFETY: 16-byte loads inside both tables (at(j) + 16 ≤ POWERS).
    unsafe {
        (
            _mm_loadu_si128(k.powers.as_ptr().add(o).cast()),
            _mm_loadu_si128(k.xpowers.as_ptr().add(o).cast()),
        )
    }
}

/// The low, Karatsuba-middle and high products of two blocks' sums.
#[derive(Clone, Copy)]
struct Sums {
    lo: __m256i,
    mid: __m256i,
    hi: __m256i,
}

impl Sums {
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    fn new() -> Sums {
        let z = _mm256_setzero_si256();
        Sums {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Add the products of the two (byte-reversed) blocks `x` by the two
    /// powers `h`, whose Karatsuba factors are `hx`: three multiplies.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    fn add(&mut self, x: __m256i, (h, hx): (__m256i, __m256i)) {
        let xx = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
        self.lo = _mm256_xor_si256(self.lo, _mm256_clmulepi64_epi128::<0x00>(x, h));
        self.hi = _mm256_xor_si256(self.hi, _mm256_clmulepi64_epi128::<0x11>(x, h));
        self.mid = _mm256_xor_si256(self.mid, _mm256_clmulepi64_epi128::<0x00>(xx, hx));
    }

    /// The reduced sum: the new hash state.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    fn reduce(&self) -> __m128i {
        let mid = _mm256_xor_si256(self.mid, _mm256_xor_si256(self.lo, self.hi));
        finish(self.lo, mid, self.hi)
    }
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
pub(crate) fn step(k: &Key, acc: __m128i, blocks: &[u8]) -> __m128i {
    assert!(blocks.len() >= STEP);
    let rev = rev256();
    let p = blocks.as_ptr();
    let mut sums = Sums::new();
    for i in 0..STEP / 32 {
        // SAFETY: 32-byte load inside the STEP bytes checked above.
        let mut x = _mm256_shuffle_epi8(unsafe { _mm256_loadu_si256(p.add(32 * i).cast()) }, rev);
        if i == 0 {
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(acc));
        }
        sums.add(x, power_pair(k, at(16) + 32 * i));
    }
    sums.reduce()
}

/// One aggregation of 1 to [`MAX_BLOCKS`] blocks with one reduction,
/// Y' = (Y+X1)·H^r + X2·H^(r-1) + ... + Xr·H, the blocks given in order
/// and read straight from where they lie or passed in registers (a short
/// piece is read with [`crate::load_partial`], never copied into a buffer
/// first: a wide load of bytes that narrower stores just wrote waits for
/// them to reach the cache).
pub(crate) struct Agg<'k> {
    k: &'k Key,
    sums: Sums,
    /// Blocks still to come, this one included: its power.
    left: usize,
    /// The state, added to the first block, then zero.
    acc: __m128i,
}

impl<'k> Agg<'k> {
    /// An aggregation of `blocks` blocks into the state `acc`.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn new(k: &'k Key, acc: __m128i, blocks: usize) -> Agg<'k> {
        assert!((1..=MAX_BLOCKS).contains(&blocks));
        Agg {
            k,
            sums: Sums::new(),
            left: blocks,
            acc,
        }
    }

    /// Add `n` (1 or 2) byte-reversed blocks: the first in the low half.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    fn add(&mut self, x: __m256i, n: usize) {
        assert!(self.left >= n);
        let x = _mm256_xor_si256(x, _mm256_zextsi128_si256(self.acc));
        self.acc = _mm_setzero_si128();
        // The block `left` from the end takes H^left; a lone block's other
        // half is zero (H^0 is the zero slot when left is 1).
        self.sums.add(x, power_pair(self.k, at(self.left)));
        self.left -= n;
    }

    /// Add two blocks, as they lie in memory.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn pair(&mut self, x: __m256i) {
        self.add(_mm256_shuffle_epi8(x, rev256()), 2);
    }

    /// Add one block, as it lies in memory.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn one(&mut self, x: __m128i) {
        self.add(_mm256_zextsi128_si256(pclmul::bswap(x)), 1);
    }

    /// Add `data` zero-padded to whole blocks.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn padded(&mut self, data: &[u8]) {
        let mut pairs = data.chunks_exact(32);
        for p in &mut pairs {
            // SAFETY: 32-byte load from a 32-byte chunk.
            self.pair(unsafe { _mm256_loadu_si256(p.as_ptr().cast()) });
        }
        for piece in pairs.remainder().chunks(16) {
            self.one(crate::load_block(piece));
        }
    }

    /// Blocks still to come.
    #[inline]
    pub(crate) fn left(&self) -> usize {
        self.left
    }

    /// For 512-bit code that multiplies blocks elsewhere: where the powers
    /// of the next `n` blocks begin in the key's tables (H^left ..
    /// H^(left-n+1), in the blocks' order, `16 * n` bytes), and the state to
    /// add to the first of them (zero after the first call). The `n` count
    /// as added; their products come back through [`Self::add_sums`].
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> (usize, __m128i) {
        assert!(self.left >= n);
        let o = at(self.left);
        self.left -= n;
        // SAFETY: SSE2 is part of the x86_64 baseline.
        (
            o,
            core::mem::replace(&mut self.acc, unsafe { _mm_setzero_si128() }),
        )
    }

    /// For 512-bit code that continues this aggregation elsewhere: the
    /// blocks still to come, the state to add to the first of them (zero
    /// once added) and the sums so far (low, Karatsuba-middle, high); this
    /// aggregation is left empty.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn split(&mut self) -> (usize, __m128i, [__m256i; 3]) {
        let s = core::mem::replace(&mut self.sums, Sums::new());
        let acc = core::mem::replace(&mut self.acc, _mm_setzero_si128());
        (core::mem::take(&mut self.left), acc, [s.lo, s.mid, s.hi])
    }

    /// An aggregation continued from sums computed elsewhere, with `left`
    /// (1 to [`MAX_BLOCKS`]) blocks still to come and its state added.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn resume(k: &'k Key, left: usize, [lo, mid, hi]: [__m256i; 3]) -> Agg<'k> {
        assert!((1..=MAX_BLOCKS).contains(&left));
        Agg {
            k,
            sums: Sums { lo, mid, hi },
            left,
            acc: _mm_setzero_si128(),
        }
    }

    /// Add low, Karatsuba-middle and high products summed elsewhere (each
    /// 128-bit half a partial sum, as this aggregation's own).
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn add_sums(&mut self, lo: __m256i, mid: __m256i, hi: __m256i) {
        let s = &mut self.sums;
        s.lo = _mm256_xor_si256(s.lo, lo);
        s.mid = _mm256_xor_si256(s.mid, mid);
        s.hi = _mm256_xor_si256(s.hi, hi);
    }

    /// The reduced sum, once every block announced has come: the new state.
    #[inline]
    #[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
    pub(crate) fn finish(&self) -> __m128i {
        assert_eq!(self.left, 0);
        self.sums.reduce()
    }
}

/// Absorb `data` zero-padded to whole blocks into `acc`: whole steps, then
/// what is left with one reduction.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(crate) fn absorb_padded(k: &Key, mut acc: __m128i, data: &[u8]) -> __m128i {
    let mut chunks = data.chunks_exact(STEP);
    for c in &mut chunks {
        acc = step(k, acc, c);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut agg = Agg::new(k, acc, rest.len().div_ceil(16));
        agg.padded(rest);
        acc = agg.finish();
    }
    acc
}

#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
fn padded_inner(k: &Key, y: &mut [u8; 16], data: &[u8]) {
    *y = pclmul::store(absorb_padded(k, pclmul::load(y), data));
}

impl Key {
    pub fn new(t: Vpclmul, h: &[u8; 16]) -> Key {
        // SAFETY: the Vpclmul token exists only when the CPU has VPCLMULQDQ,
        // AVX2, PCLMULQDQ and SSSE3.
        unsafe { new_key(t, h) }
    }

    /// Absorb `data` zero-padded to whole blocks, the leftover blocks and
    /// the padded last one with a single reduction.
    pub fn update_padded(&self, _t: Vpclmul, y: &mut [u8; 16], data: &[u8]) {
        if data.is_empty() {
            return;
        }
        // SAFETY: as in `new`.
        unsafe { padded_inner(self, y, data) }
    }
}
