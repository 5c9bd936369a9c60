//! Poly1305 with AVX2: four blocks at a time in four 64-bit lanes of 26-bit
//! limbs, each lane multiplied by r^4, and the last group by
//! (r^4, r^3, r^2, r) so the lanes sum to the sequential result:
//! (h + m0)·r^4 + m1·r^3 + m2·r^2 + m3·r. Shorter stretches and the final
//! reduction use the 26-bit scalar code. Constant time.

use super::radix26::{block_limbs, carry, mul_limbs, Poly1305 as Scalar};
use crate::cpu::Avx2;
use core::arch::x86_64::*;

#[derive(Clone)]
pub struct Poly1305 {
    inner: Scalar,
    /// r, r^2, r^3, r^4 as 26-bit limbs, computed on the first stretch of
    /// four blocks (short messages never pay for them).
    pows: Option<[[u32; 5]; 4]>,
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

/// One multiply-and-carry of the lane vectors a (5 limbs) by r (5 limbs,
/// with s = 5·r).
#[target_feature(enable = "avx2")]
fn mul(a: &[__m256i; 5], r: &[__m256i; 5], s: &[__m256i; 5]) -> [__m256i; 5] {
    let m = |x: __m256i, y: __m256i| _mm256_mul_epu32(x, y);
    let add = |x: __m256i, y: __m256i| _mm256_add_epi64(x, y);
    let d0 = add(
        add(
            add(m(a[0], r[0]), m(a[1], s[4])),
            add(m(a[2], s[3]), m(a[3], s[2])),
        ),
        m(a[4], s[1]),
    );
    let d1 = add(
        add(
            add(m(a[0], r[1]), m(a[1], r[0])),
            add(m(a[2], s[4]), m(a[3], s[3])),
        ),
        m(a[4], s[2]),
    );
    let d2 = add(
        add(
            add(m(a[0], r[2]), m(a[1], r[1])),
            add(m(a[2], r[0]), m(a[3], s[4])),
        ),
        m(a[4], s[3]),
    );
    let d3 = add(
        add(
            add(m(a[0], r[3]), m(a[1], r[2])),
            add(m(a[2], r[1]), m(a[3], r[0])),
        ),
        m(a[4], s[4]),
    );
    let d4 = add(
        add(
            add(m(a[0], r[4]), m(a[1], r[3])),
            add(m(a[2], r[2]), m(a[3], r[1])),
        ),
        m(a[4], r[0]),
    );
    let mask = _mm256_set1_epi64x(M26);
    let mut d = [d0, d1, d2, d3, d4];
    for i in 0..4 {
        d[i + 1] = add(d[i + 1], _mm256_srli_epi64::<26>(d[i]));
        d[i] = _mm256_and_si256(d[i], mask);
    }
    let c = _mm256_srli_epi64::<26>(d[4]);
    d[4] = _mm256_and_si256(d[4], mask);
    d[0] = add(d[0], add(c, _mm256_slli_epi64::<2>(c)));
    d[1] = add(d[1], _mm256_srli_epi64::<26>(d[0]));
    d[0] = _mm256_and_si256(d[0], mask);
    d
}

/// Absorb `data` (a multiple of 64 bytes, at least 64) into `h`.
#[target_feature(enable = "avx2")]
fn groups(h: &mut [u32; 5], pows: &[[u32; 5]; 4], data: &[u8]) {
    let r4 = pows[3];
    let splat =
        |p: [u32; 5]| -> [__m256i; 5] { core::array::from_fn(|i| _mm256_set1_epi64x(p[i] as i64)) };
    let five = |v: [__m256i; 5]| -> [__m256i; 5] {
        core::array::from_fn(|i| _mm256_add_epi64(v[i], _mm256_slli_epi64::<2>(v[i])))
    };
    let rl = splat(r4);
    let sl = five(rl);
    // The last group multiplies lane j by r^(4-j).
    let rf: [__m256i; 5] = core::array::from_fn(|i| lanes([pows[3], pows[2], pows[1], pows[0]], i));
    let sf = five(rf);
    let mut a: [__m256i; 5] = core::array::from_fn(|i| _mm256_set_epi64x(0, 0, 0, h[i] as i64));
    let n = data.len() / 64;
    for (g, chunk) in data.chunks_exact(64).enumerate() {
        let m: [[u32; 5]; 4] = core::array::from_fn(|j| block_limbs(&chunk[16 * j..16 * j + 16]));
        for i in 0..5 {
            a[i] = _mm256_add_epi64(a[i], lanes(m, i));
        }
        a = if g + 1 < n {
            mul(&a, &rl, &sl)
        } else {
            mul(&a, &rf, &sf)
        };
    }
    let mut sum = [0u64; 5];
    for i in 0..5 {
        let mut l = [0u64; 4];
        // SAFETY: 32-byte unaligned store into a 32-byte array.
        unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), a[i]) };
        sum[i] = l.iter().sum();
    }
    *h = carry(sum);
}

impl Poly1305 {
    pub fn new(token: Avx2, key: &[u8; 32]) -> Poly1305 {
        Poly1305 {
            inner: Scalar::new(key),
            pows: None,
            token,
        }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        // Complete a partial block with the scalar code first.
        if self.inner.buf_len > 0 {
            let take = (16 - self.inner.buf_len).min(data.len());
            self.inner.update(&data[..take]);
            data = &data[take..];
        }
        let bulk = data.len() / 64 * 64;
        if bulk > 0 {
            let r = self.inner.r;
            let pows = *self.pows.get_or_insert_with(|| {
                let r2 = mul_limbs(r, r);
                let r3 = mul_limbs(r2, r);
                [r, r2, r3, mul_limbs(r3, r)]
            });
            let _ = self.token;
            // SAFETY: the Avx2 token exists only when the CPU has AVX2.
            unsafe { groups(&mut self.inner.h, &pows, &data[..bulk]) };
        }
        self.inner.update(&data[bulk..]);
    }

    pub fn finalize(self) -> [u8; 16] {
        self.inner.finalize()
    }
}
