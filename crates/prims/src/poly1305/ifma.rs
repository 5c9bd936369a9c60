//! Poly1305 with AVX-512 IFMA: eight blocks at a time in the eight 64-bit
//! lanes of 512-bit registers, as three 44/44/42-bit limbs multiplied with
//! the 52-bit multiply-accumulate instructions (the low and high halves of
//! each product come from VPMADD52LUQ and VPMADD52HUQ). Two accumulators
//! take alternate groups of eight blocks so one's multiply hides the
//! other's latency; every group is multiplied by r^16 except the last of
//! each accumulator, whose lanes take the powers their blocks lie from the
//! end (r^16..r^9 and r^8..r). Shorter stretches and the final reduction use
//! the radix-2^64 scalar code (the powers of r, the 44-bit one). Constant
//! time.

use super::radix44::{mul_limbs, M42, M44};
use super::radix64::Poly1305 as Scalar;
use crate::cpu::Ifma;
use core::arch::x86_64::*;

/// Accumulators in flight.
const SETS: usize = 2;

#[derive(Clone)]
pub struct Poly1305 {
    /// The head and tail blocks, the padding and the final reduction: the
    /// radix-2^64 code (two and a half times as fast per block as the
    /// 44-bit scalar code it replaced); `h` moves to 44-bit limbs for the
    /// groups and back.
    inner: Scalar,
    /// r in 44/44/42-bit limbs.
    r: [u64; 3],
    /// r, r^2, ..., r^8 and r^16 (for two accumulators); the first
    /// `npows` of r..r^8 are computed, r^16 when `npows` is 16.
    pows: [[u64; 3]; 8],
    r16: [u64; 3],
    npows: usize,
    token: Ifma,
}

/// (limbs, 20·limbs) of one vector of field elements.
type Mult = ([__m512i; 3], [__m512i; 3]);

#[target_feature(enable = "avx512f")]
fn mult(r: [__m512i; 3]) -> Mult {
    let twenty =
        |x: __m512i| _mm512_add_epi64(_mm512_slli_epi64::<4>(x), _mm512_slli_epi64::<2>(x));
    (r, [_mm512_setzero_si512(), twenty(r[1]), twenty(r[2])])
}

/// a·r mod 2^130 − 5 in every lane, limbs carried back to 44/44/42 bits
/// plus a little (below 2^45). Products of limbs below 2^52 split at bit
/// 52: the high half of limb i's sum lands 8 bits up in limb i+1, and limb
/// 2's (at 2^140 ≡ 5·2^10) wraps to limb 0 times 5120 — one more
/// multiply-add, exact because that half is below 2^38 (a's limbs below
/// 2^45.1, 2^45.1 and 2^43.3 — carried limbs, or the scalar code's h, plus a
/// block's; r's below 2^44.1, 2^44.1 and 2^42.1: its three products' high
/// halves below 2^35.2, 2^37.2 and 2^35.4), so times 5120 below 2^51. The
/// three carries run side by side, not in a chain: each limb keeps its low
/// bits and takes the carry of the one below (limb 0 five times limb 2's).
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul(a: &[__m512i; 3], m: &Mult) -> [__m512i; 3] {
    let (r, s) = m;
    let z = _mm512_setzero_si512();
    let lo = |x: __m512i, y: __m512i, w: __m512i| _mm512_madd52lo_epu64(x, y, w);
    let hi = |x: __m512i, y: __m512i, w: __m512i| _mm512_madd52hi_epu64(x, y, w);
    let d0l = lo(lo(lo(z, a[0], r[0]), a[1], s[2]), a[2], s[1]);
    let d0h = hi(hi(hi(z, a[0], r[0]), a[1], s[2]), a[2], s[1]);
    let d1l = lo(lo(lo(z, a[0], r[1]), a[1], r[0]), a[2], s[2]);
    let d1h = hi(hi(hi(z, a[0], r[1]), a[1], r[0]), a[2], s[2]);
    let d2l = lo(lo(lo(z, a[0], r[2]), a[1], r[1]), a[2], r[0]);
    let d2h = hi(hi(hi(z, a[0], r[2]), a[1], r[1]), a[2], r[0]);
    let add = |x: __m512i, y: __m512i| _mm512_add_epi64(x, y);
    let d0 = lo(d0l, d2h, _mm512_set1_epi64(5120));
    let d1 = add(d1l, _mm512_slli_epi64::<8>(d0h));
    let d2 = add(d2l, _mm512_slli_epi64::<8>(d1h));
    let m44 = _mm512_set1_epi64(M44 as i64);
    let m42 = _mm512_set1_epi64(M42 as i64);
    let (c0, c1, c2) = (
        _mm512_srli_epi64::<44>(d0),
        _mm512_srli_epi64::<44>(d1),
        _mm512_srli_epi64::<42>(d2),
    );
    [
        add(
            _mm512_and_si512(d0, m44),
            add(c2, _mm512_slli_epi64::<2>(c2)),
        ),
        add(_mm512_and_si512(d1, m44), c0),
        add(_mm512_and_si512(d2, m42), c1),
    ]
}

/// The limbs of eight 16-byte blocks (with the 2^128 bit), block j in
/// lane j.
#[target_feature(enable = "avx512f")]
fn load_blocks(chunk: &[u8]) -> [__m512i; 3] {
    assert!(chunk.len() >= 128);
    // SAFETY: 128 readable bytes (checked above); unaligned loads.
    let (t0, t1) = unsafe {
        let p = chunk.as_ptr();
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
        )
    };
    limbs(t0, t1)
}

/// The limbs of the eight blocks in `t0` (blocks 0-3) and `t1` (4-7).
#[target_feature(enable = "avx512f")]
fn limbs(t0: __m512i, t1: __m512i) -> [__m512i; 3] {
    let lo = _mm512_permutex2var_epi64(t0, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), t1);
    let hi = _mm512_permutex2var_epi64(t0, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), t1);
    let m44 = _mm512_set1_epi64(M44 as i64);
    [
        _mm512_and_si512(lo, m44),
        _mm512_and_si512(
            _mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)),
            m44,
        ),
        _mm512_or_si512(_mm512_srli_epi64::<24>(hi), _mm512_set1_epi64(1 << 40)),
    ]
}

/// r^8..r^1 in lanes 0..7 (lane j takes r^(8-j)), as built in registers.
#[target_feature(enable = "avx512f")]
fn last_powers(pows: &[[u64; 3]; 8]) -> [__m512i; 3] {
    let p = |j: usize, i: usize| pows[j][i] as i64;
    core::array::from_fn(|i| {
        _mm512_set_epi64(
            p(0, i),
            p(1, i),
            p(2, i),
            p(3, i),
            p(4, i),
            p(5, i),
            p(6, i),
            p(7, i),
        )
    })
}

/// The lanes of `a` summed and carried back to 44/44/42-bit limbs.
#[target_feature(enable = "avx512f")]
fn fold(a: [__m512i; 3]) -> [u64; 3] {
    let mut sum: [u64; 3] = core::array::from_fn(|i| _mm512_reduce_add_epi64(a[i]) as u64);
    // Carry the lane sums (each below 2^50) back to 44/44/42 bits.
    let c = sum[0] >> 44;
    sum[0] &= M44;
    sum[1] += c;
    let c = sum[1] >> 44;
    sum[1] &= M44;
    sum[2] += c;
    let c = sum[2] >> 42;
    sum[2] &= M42;
    sum[0] += c * 5;
    let c = sum[0] >> 44;
    sum[0] &= M44;
    sum[1] += c;
    sum
}

/// The last group of ChaCha20-Poly1305's MAC input: `tail` (at most 112
/// bytes, zero-padded to whole blocks) and the length block `lens`, `k` ≤ 8
/// blocks placed in the last `k` lanes so each takes the power it lies
/// from the end (lane j r^(8-j)), `h` entering the first of them. The tail
/// is read with masked loads straight into the lanes (bytes outside it are
/// not read).
#[target_feature(enable = "avx512f,avx512bw,avx512ifma")]
fn last_group(h: [u64; 3], pows: &[[u64; 3]; 8], tail: &[u8], lens: &[u8; 16]) -> [u64; 3] {
    let rem = tail.len();
    assert!(rem <= 112);
    let k = rem.div_ceil(16) + 1;
    let start = 16 * (8 - k);
    // The bits of [a, b) among a register's 64 bytes from byte `at` of the
    // 128 (the tail lies at [start, start + rem)).
    let mask = |at: usize| -> u64 {
        let a = start.clamp(at, at + 64) - at;
        let b = (start + rem).clamp(at, at + 64) - at;
        ((1u128 << b) - (1u128 << a)) as u64
    };
    let base = tail.as_ptr().wrapping_sub(start);
    // SAFETY: the masks select only bytes of `tail` (at offsets 0..rem from
    // its start); masked-off bytes are not accessed. A 16-byte load of
    // `lens`.
    let (t0, t1, l) = unsafe {
        (
            _mm512_maskz_loadu_epi8(mask(0), base.cast()),
            _mm512_maskz_loadu_epi8(mask(64), base.wrapping_add(64).cast()),
            _mm_loadu_si128(lens.as_ptr().cast()),
        )
    };
    let used = (0xffu32 << (8 - k)) as u8;
    let b = limbs(t0, _mm512_inserti32x4::<3>(t1, l));
    let first = 1u8 << (8 - k);
    let a: [__m512i; 3] = core::array::from_fn(|i| {
        _mm512_add_epi64(
            _mm512_maskz_mov_epi64(used, b[i]),
            _mm512_maskz_set1_epi64(first, h[i] as i64),
        )
    });
    fold(mul(&a, &mult(last_powers(pows))))
}

/// Absorb `data` (a multiple of 128 bytes, at least 128) into `h`: one
/// group of eight blocks alone, else two accumulators taking alternate
/// groups. The accumulators and the multipliers stay in registers: the
/// groups before the last two go through the loop in pairs (both multiplied
/// by r^16; `r16` is read only then), then each of the last two by the
/// powers its blocks lie from the end.
#[target_feature(enable = "avx512f,avx512ifma")]
fn groups(h: &mut [u64; 3], pows: &[[u64; 3]; 8], r16: [u64; 3], data: &[u8]) {
    let n = data.len() / 128;
    debug_assert!(n >= 1);
    let bcast = |p: [u64; 3]| mult(p.map(|x| _mm512_set1_epi64(x as i64)));
    // Block j of the last group takes r^(8-j), of the one before r^(16-j):
    // built in registers (no stores to reload), the second by one vector
    // multiply by r^8.
    let last = last_powers(pows);
    let fin0 = mult(last);
    let z = _mm512_setzero_si512();
    let add = |a: [__m512i; 3], m: [__m512i; 3]| -> [__m512i; 3] {
        core::array::from_fn(|i| _mm512_add_epi64(a[i], m[i]))
    };
    // The carried h enters lane 0 of the accumulator that takes group 0.
    let first: [__m512i; 3] =
        core::array::from_fn(|i| _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, h[i] as i64));
    let mut chunks = data.chunks_exact(128);
    let mut next = || load_blocks(chunks.next().expect("a group left"));
    let (a0, a1) = if n == 1 {
        (mul(&add(first, next()), &fin0), [z; 3])
    } else {
        let step = bcast(r16);
        let fin1 = mult(mul(&last, &bcast(pows[7])));
        // Group 0 goes to the accumulator `first`; with an odd count it
        // takes one group alone so the rest pair up.
        let (mut x, mut y) = (first, [z; 3]);
        if n % 2 == 1 {
            x = mul(&add(x, next()), &step);
            core::mem::swap(&mut x, &mut y);
        }
        for _ in 0..(n - 2) / 2 {
            x = mul(&add(x, next()), &step);
            y = mul(&add(y, next()), &step);
        }
        let x = mul(&add(x, next()), &fin1);
        let y = mul(&add(y, next()), &fin0);
        (x, y)
    };
    let sum = fold(core::array::from_fn(|i| _mm512_add_epi64(a0[i], a1[i])));
    *h = sum;
}

/// h (two 64-bit words and a top word below 8, as the radix-2^64 code
/// keeps it) in 44/44/42-bit limbs, the top one below 2^43.
fn to_limbs(h: [u64; 3]) -> [u64; 3] {
    [
        h[0] & M44,
        ((h[0] >> 44) | (h[1] << 20)) & M44,
        (h[1] >> 24) | (h[2] << 40),
    ]
}

/// Limbs of at most 45 bits back to the radix-2^64 code's words (the top
/// word below 8).
fn from_limbs(l: [u64; 3]) -> [u64; 3] {
    let t = u128::from(l[0]) + (u128::from(l[1]) << 44);
    let u = (t >> 64) + (u128::from(l[2]) << 24);
    [t as u64, u as u64, (u >> 64) as u64]
}

impl Poly1305 {
    pub fn new(token: Ifma, key: &[u8; 32]) -> Poly1305 {
        Poly1305 {
            inner: Scalar::new(key),
            r: super::radix44::Poly1305::new(key).r,
            pows: [[0; 3]; 8],
            r16: [0; 3],
            npows: 0,
            token,
        }
    }

    /// r..r^8 (and r^16 when `sets` is 2) computed, once.
    fn powers(&mut self, sets: usize) {
        if self.npows == 0 {
            // A tree, three multiplies deep rather than seven: r^2;
            // r^3 and r^4 from it; r^5..r^8 as r^4 times r..r^4.
            let r = self.r;
            let r2 = mul_limbs(r, r);
            let (r3, r4) = (mul_limbs(r2, r), mul_limbs(r2, r2));
            let low = [r, r2, r3, r4];
            self.pows[..4].copy_from_slice(&low);
            for (p, x) in self.pows[4..8].iter_mut().zip(low) {
                *p = mul_limbs(r4, x);
            }
            self.npows = 8;
        }
        if self.npows < 8 * sets {
            self.r16 = mul_limbs(self.pows[7], self.pows[7]);
            self.npows = 16;
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        let (head, bulk, tail) = super::split_for_groups(self.inner.buf_len, data, 128);
        self.inner.update(head);
        if !bulk.is_empty() {
            self.powers((bulk.len() / 128).min(SETS));
            let _ = self.token;
            let mut h = to_limbs(self.inner.h);
            // SAFETY: the Ifma token exists only when the CPU has AVX-512F
            // and IFMA.
            unsafe { groups(&mut h, &self.pows, self.r16, bulk) };
            self.inner.h = from_limbs(h);
        }
        self.inner.update(tail);
    }

    /// The end of ChaCha20-Poly1305's MAC input after whole blocks (nothing
    /// buffered): `tail` (under 128 bytes) zero-padded to whole blocks, then
    /// the length block, in one vector group, and the tag. (With 113 to
    /// 127 bytes, nine blocks: the first goes to the scalar code.) Where
    /// the CPU lacks AVX-512BW, the scalar code takes it all.
    pub fn finish_aead(mut self, tail: &[u8], lens: &[u8; 16]) -> [u8; 16] {
        assert!(self.inner.buf_len == 0 && tail.len() < 128);
        if !std::arch::is_x86_feature_detected!("avx512bw") {
            self.inner.padded(tail);
            self.inner.blocks(lens);
            return self.inner.finalize();
        }
        let mut tail = tail;
        if tail.len() > 112 {
            self.inner.block(&tail[..16], 1);
            tail = &tail[16..];
        }
        self.powers(1);
        let h = to_limbs(self.inner.h);
        // SAFETY: the Ifma token exists only when the CPU has AVX-512F and
        // IFMA; AVX-512BW was detected above.
        let h = unsafe { last_group(h, &self.pows, tail, lens) };
        self.inner.h = from_limbs(h);
        self.inner.finalize()
    }

    /// The radix-2^64 code inside (its key and accumulator), for the
    /// MAC stitched into the AVX-512 ChaCha20 (`chacha20::avx512::pair_mac`).
    pub(crate) fn scalar(&self) -> &Scalar {
        &self.inner
    }

    /// r^k in the radix-2^64 code's words (the top one small), from the
    /// powers the vector code keeps (computed here if not yet): for the
    /// stitched MAC, r^40 in two multiplies (r^16·r^16·r^8) where squaring
    /// from r takes six.
    pub(crate) fn power_words(&mut self, k: usize) -> [u64; 3] {
        assert!(k >= 1);
        self.powers(SETS);
        let mut k = k;
        let mut acc: Option<[u64; 3]> = None;
        let mut times = |p: [u64; 3]| acc = Some(acc.map_or(p, |a| mul_limbs(a, p)));
        while k >= 16 {
            times(self.r16);
            k -= 16;
        }
        if k > 8 {
            times(self.pows[7]);
            k -= 8;
        }
        if k > 0 {
            times(self.pows[k - 1]);
        }
        from_limbs(acc.expect("k >= 1"))
    }

    /// Set the accumulator (nothing buffered): the stitched MAC's.
    pub(crate) fn set_h(&mut self, h: [u64; 3]) {
        assert_eq!(self.inner.buf_len, 0);
        self.inner.h = h;
    }

    pub fn finalize(self) -> [u8; 16] {
        self.inner.finalize()
    }
}
