//! Poly1305 with AVX2: four blocks at a time in four 64-bit lanes of 26-bit
//! limbs, each lane multiplied by r^4, and the last group by
//! (r^4, r^3, r^2, r) so the lanes sum to the sequential result:
//! (h + m0)·r^4 + m1·r^3 + m2·r^2 + m3·r. Shorter stretches and the final
//! reduction use the 26-bit scalar code. A message starts on the
//! radix-2^64 scalar code, which is faster for the first few hundred bytes
//! (a short message never pays for the vector set-up), and moves to the
//! 26-bit limbs once [`VECTOR_FROM`] bytes have come in, as OpenSSL's AVX2
//! code does. Constant time: the move depends on lengths only.

use super::radix26::{carry, mul_limbs, Poly1305 as Scalar};
use super::radix64::Poly1305 as Small;

/// Bytes after which the vector code takes over.
pub const VECTOR_FROM: usize = 512;

/// h = h0 + h1·2^64 + h2·2^128 (h2 a few bits) as five 26-bit limbs (the
/// top one up to 2^27, which the 26-bit code's products still hold).
fn limbs26(h: [u64; 3]) -> [u32; 5] {
    const M: u64 = 0x03ff_ffff;
    let [h0, h1, h2] = h;
    [
        (h0 & M) as u32,
        ((h0 >> 26) & M) as u32,
        (((h0 >> 52) | (h1 << 12)) & M) as u32,
        ((h1 >> 14) & M) as u32,
        ((h1 >> 40) | (h2 << 24)) as u32,
    ]
}
use crate::cpu::Avx2;
use core::arch::x86_64::*;

#[derive(Clone)]
pub struct Poly1305 {
    /// The message so far while it is short (under [`VECTOR_FROM`] bytes).
    small: Option<Small>,
    seen: usize,
    inner: Scalar,
    /// r, r^2, ..., r^16 as 26-bit limbs; the first `npows` are computed,
    /// as many as the longest stretch so far needed (short messages never
    /// pay for them).
    pows: [[u32; 5]; 4 * LANES_SETS],
    npows: usize,
    token: Avx2,
}

const M26: i64 = 0x03ff_ffff;

#[target_feature(enable = "avx2")]
fn lanes(v: [[u32; 5]; 4], limb: usize) -> __m256i {
    _mm256_set_epi64x(
        v[3][limb] as i64,
        v[2][limb] as i64,
        v[1][limb] as i64,
        v[0][limb] as i64,
    )
}

/// One multiply of the lane vectors a (5 limbs) by r (5 limbs, with
/// s = 5·r), then a lazy carry: two interleaved chains that leave every
/// limb below 2^27, small enough for the next round's 32-bit multiplies.
#[target_feature(enable = "avx2")]
fn mul(a: &[__m256i; 5], r: &[__m256i; 5], s: &[__m256i; 5]) -> [__m256i; 5] {
    let m = |x: __m256i, y: __m256i| _mm256_mul_epu32(x, y);
    let add = |x: __m256i, y: __m256i| _mm256_add_epi64(x, y);
    let dot = |p: [(__m256i, __m256i); 5]| {
        add(
            add(
                add(m(p[0].0, p[0].1), m(p[1].0, p[1].1)),
                add(m(p[2].0, p[2].1), m(p[3].0, p[3].1)),
            ),
            m(p[4].0, p[4].1),
        )
    };
    let mut d0 = dot([
        (a[0], r[0]),
        (a[1], s[4]),
        (a[2], s[3]),
        (a[3], s[2]),
        (a[4], s[1]),
    ]);
    let mut d1 = dot([
        (a[0], r[1]),
        (a[1], r[0]),
        (a[2], s[4]),
        (a[3], s[3]),
        (a[4], s[2]),
    ]);
    let mut d2 = dot([
        (a[0], r[2]),
        (a[1], r[1]),
        (a[2], r[0]),
        (a[3], s[4]),
        (a[4], s[3]),
    ]);
    let mut d3 = dot([
        (a[0], r[3]),
        (a[1], r[2]),
        (a[2], r[1]),
        (a[3], r[0]),
        (a[4], s[4]),
    ]);
    let mut d4 = dot([
        (a[0], r[4]),
        (a[1], r[3]),
        (a[2], r[2]),
        (a[3], r[1]),
        (a[4], r[0]),
    ]);
    let mask = _mm256_set1_epi64x(M26);
    let hi = |x: __m256i| _mm256_srli_epi64::<26>(x);
    let lo = |x: __m256i| _mm256_and_si256(x, mask);
    let c = hi(d3);
    d3 = lo(d3);
    d4 = add(d4, c);
    let c = hi(d0);
    d0 = lo(d0);
    d1 = add(d1, c);
    let c = hi(d4);
    d4 = lo(d4);
    d0 = add(d0, add(c, _mm256_slli_epi64::<2>(c)));
    let c = hi(d1);
    d1 = lo(d1);
    d2 = add(d2, c);
    let c = hi(d2);
    d2 = lo(d2);
    d3 = add(d3, c);
    let c = hi(d0);
    d0 = lo(d0);
    d1 = add(d1, c);
    let c = hi(d3);
    d3 = lo(d3);
    d4 = add(d4, c);
    [d0, d1, d2, d3, d4]
}

/// The 26-bit limbs of four 16-byte blocks (with the 2^128 bit) straight
/// from memory. Lanes hold blocks 0, 2, 1, 3 (the order unpack leaves them
/// in), so the last group's powers are laid out to match.
#[target_feature(enable = "avx2")]
fn load_blocks(chunk: &[u8]) -> [__m256i; 5] {
    assert!(chunk.len() >= 64);
    // SAFETY: 64 readable bytes (checked above); unaligned loads.
    let (t0, t1) = unsafe {
        let p = chunk.as_ptr();
        (
            _mm256_loadu_si256(p.cast()),
            _mm256_loadu_si256(p.add(32).cast()),
        )
    };
    let lo = _mm256_unpacklo_epi64(t0, t1);
    let hi = _mm256_unpackhi_epi64(t0, t1);
    let mask = _mm256_set1_epi64x(M26);
    [
        _mm256_and_si256(lo, mask),
        _mm256_and_si256(_mm256_srli_epi64::<26>(lo), mask),
        _mm256_and_si256(
            _mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)),
            mask,
        ),
        _mm256_and_si256(_mm256_srli_epi64::<14>(hi), mask),
        _mm256_or_si256(_mm256_srli_epi64::<40>(hi), _mm256_set1_epi64x(1 << 24)),
    ]
}

/// Most accumulators in flight: with one, every group waits for the
/// previous group's multiply-and-carry; four hide that latency.
const LANES_SETS: usize = 4;

/// Absorb `data` (a multiple of 64 bytes, at least 64) into `h`, with `k`
/// interleaved accumulators. Group i goes to accumulator i mod k; every
/// group is multiplied by r^(4k) except each accumulator's last, which is
/// multiplied by the powers its blocks lie from the end:
/// r^(4d+4-j) for block j of the group d groups from the end.
#[target_feature(enable = "avx2")]
fn groups(h: &mut [u32; 5], pows: &[[u32; 5]; 4 * LANES_SETS], k: usize, data: &[u8]) {
    let five = |v: [__m256i; 5]| -> [__m256i; 5] {
        core::array::from_fn(|i| _mm256_add_epi64(v[i], _mm256_slli_epi64::<2>(v[i])))
    };
    let rl: [__m256i; 5] = core::array::from_fn(|i| _mm256_set1_epi64x(pows[4 * k - 1][i] as i64));
    let sl = five(rl);
    // Lanes hold blocks 0, 2, 1, 3 of a group.
    let fin: [([__m256i; 5], [__m256i; 5]); LANES_SETS] = core::array::from_fn(|d| {
        let d = d.min(k - 1);
        let p = |j: usize| pows[4 * d + 3 - j];
        let r = core::array::from_fn(|i| lanes([p(0), p(2), p(1), p(3)], i));
        (r, five(r))
    });
    let zero = _mm256_setzero_si256();
    let mut acc = [[zero; 5]; LANES_SETS];
    acc[0] = core::array::from_fn(|i| _mm256_set_epi64x(0, 0, 0, h[i] as i64));
    let n = data.len() / 64;
    // The accumulator of group g is g mod k, kept as a wrapping counter (a
    // division per group would cost as much as the group's multiply).
    let mut ai = 0;
    for (g, chunk) in data.chunks_exact(64).enumerate() {
        let m = load_blocks(chunk);
        let a = &mut acc[ai];
        ai += 1;
        if ai == k {
            ai = 0;
        }
        for i in 0..5 {
            a[i] = _mm256_add_epi64(a[i], m[i]);
        }
        let d = n - 1 - g;
        *a = if d >= k {
            mul(a, &rl, &sl)
        } else {
            mul(a, &fin[d].0, &fin[d].1)
        };
    }
    let mut sum = [0u64; 5];
    for a in &acc[..k] {
        for i in 0..5 {
            let mut l = [0u64; 4];
            // SAFETY: 32-byte unaligned store into a 32-byte array.
            unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), a[i]) };
            sum[i] += l.iter().sum::<u64>();
        }
    }
    *h = carry(sum);
}

impl Poly1305 {
    pub fn new(token: Avx2, key: &[u8; 32]) -> Poly1305 {
        Poly1305 {
            small: Some(Small::new(key)),
            seen: 0,
            inner: Scalar::new(key),
            pows: [[0; 5]; 4 * LANES_SETS],
            npows: 0,
            token,
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        if let Some(small) = &mut self.small {
            self.seen += data.len();
            if self.seen < VECTOR_FROM {
                small.update(data);
                return;
            }
            // Long enough: carry h and the buffered bytes over to the
            // 26-bit limbs.
            let small = self.small.take().expect("checked above");
            self.inner.h = limbs26(small.h);
            self.inner.update(&small.buf[..small.buf_len]);
        }
        let (head, bulk, tail) = super::split_for_groups(self.inner.buf_len, data, 64);
        self.inner.update(head);
        if !bulk.is_empty() {
            // Each accumulator beyond the first costs four more powers of r
            // (four scalar multiplies) per message: worth it only when it
            // has at least four groups of its own to hide latency over.
            let k = (bulk.len() / 256).clamp(1, LANES_SETS);
            if self.npows < 4 * k {
                if self.npows == 0 {
                    self.pows[0] = self.inner.r;
                    self.npows = 1;
                }
                for i in self.npows..4 * k {
                    self.pows[i] = mul_limbs(self.pows[i - 1], self.inner.r);
                }
                self.npows = 4 * k;
            }
            let _ = self.token;
            // SAFETY: the Avx2 token exists only when the CPU has AVX2.
            unsafe { groups(&mut self.inner.h, &self.pows, k, bulk) };
        }
        self.inner.update(tail);
    }

    pub fn finalize(self) -> [u8; 16] {
        match self.small {
            Some(small) => small.finalize(),
            None => self.inner.finalize(),
        }
    }
}
