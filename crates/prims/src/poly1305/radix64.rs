//! Poly1305 with two 64-bit limbs and a small third (h = h0 + h1·2^64 +
//! h2·2^128, h2 a few bits), four 64×64→128-bit products per block — the
//! layout of OpenSSL's x86_64 scalar code, written here from RFC 8439 and
//! the arithmetic below. With r1 a multiple of 4 (clamping), 2^130 ≡ 5
//! turns h1·r1·2^128 into h1·s1 and h2·r1·2^192 into h2·s1·2^64, where
//! s1 = r1 + r1/4:
//!
//! d0 = h0·r0 + h1·s1, d1 = h0·r1 + h1·r0 + h2·s1, d2 = h2·r0,
//!
//! then carried (d1 += d0 >> 64, d2 += d1 >> 64) and folded (the bits of d2
//! above 2 times 5 back into h0). Every figure fits: r0, r1 < 2^60, h2 < 8.
//! Its products run on the integer multiplier, not the vector units, so
//! stitched beside a vector ChaCha20 the two proceed side by side
//! (`aead::stitched`). Constant time: the final reduction selects with a
//! mask, never a branch.

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// h·p + b modulo 2^130 − 5, partly reduced (the top word below 8), for
/// any h, b with a top word below 16 and p below 2^131 (a power of r): the
/// whole product in five words, the bits from 2^130 up folded back times 5
/// twice. Not the per-block multiply, whose clamped r makes it cheaper.
#[inline(always)]
pub(crate) fn mul_add(h: [u64; 3], p: [u64; 3], b: [u64; 3]) -> [u64; 3] {
    let w = |x: u64| u128::from(x);
    let lo = |x: u128| x as u64 as u128;
    let (a00, a01) = (w(h[0]) * w(p[0]), w(h[0]) * w(p[1]));
    let (a10, a11) = (w(h[1]) * w(p[0]), w(h[1]) * w(p[1]));
    let c = w(b[0]) + lo(a00);
    let w0 = c as u64;
    let c = (c >> 64) + w(b[1]) + (a00 >> 64) + lo(a01) + lo(a10);
    let w1 = c as u64;
    let c = (c >> 64)
        + w(b[2])
        + (a01 >> 64)
        + (a10 >> 64)
        + lo(a11)
        + w(h[0]) * w(p[2])
        + w(h[2]) * w(p[0]);
    let w2 = c as u64;
    let c = (c >> 64) + (a11 >> 64) + w(h[1]) * w(p[2]) + w(h[2]) * w(p[1]);
    let w3 = c as u64;
    let w4 = (c >> 64) as u64 + h[2] * p[2];
    // Bits from 2^130 up: H = w >> 130; h ≡ (w mod 2^130) + 5·H.
    let (t0, t1, t2) = ((w2 >> 2) | (w3 << 62), (w3 >> 2) | (w4 << 62), w4 >> 2);
    let c = w(w0) + w(t0) * 5;
    let n0 = c as u64;
    let c = (c >> 64) + w(w1) + w(t1) * 5;
    let n1 = c as u64;
    let n2 = (c >> 64) as u64 + (w2 & 3) + t2 * 5;
    // n2 is at most a few hundred: fold its bits from 2^130 once more.
    let c = w(n0) + w((n2 >> 2) * 5);
    let n0 = c as u64;
    let c = w(n1) + (c >> 64);
    [n0, c as u64, (n2 & 3) + (c >> 64) as u64]
}

/// From this many bytes [`Poly1305::padded_long`] takes two chains: below,
/// r^m costs about what the shorter chains save (on the 2-core AMD EPYC,
/// Zen 4, side by side, the key set up and r^m made each time: 512 bytes
/// 136.6 ns one chain against 135.3 two, 704 bytes 189–193 against
/// 189–202, 1 KiB 278 against 239–243).
pub(crate) const TWO_CHAINS_FROM: usize = 768;

#[derive(Clone)]
pub struct Poly1305 {
    pub(crate) h: [u64; 3],
    r0: u64,
    r1: u64,
    s1: u64,
    pad: [u64; 2],
    pub(crate) buf: [u8; 16],
    pub(crate) buf_len: usize,
}

impl Poly1305 {
    /// A MAC keyed with a one-time 32-byte key (r ‖ s).
    #[inline(always)]
    pub fn new(key: &[u8; 32]) -> Poly1305 {
        let r0 = le64(&key[0..]) & 0x0fff_fffc_0fff_ffff;
        let r1 = le64(&key[8..]) & 0x0fff_fffc_0fff_fffc;
        Poly1305 {
            h: [0; 3],
            r0,
            r1,
            s1: r1 + (r1 >> 2),
            pad: [le64(&key[16..]), le64(&key[24..])],
            buf: [0; 16],
            buf_len: 0,
        }
    }

    /// Absorb one 16-byte block (`hibit` 1 for a whole block, 0 for the
    /// padded last one, whose 1 byte is in `m`).
    #[inline(always)]
    pub(crate) fn block(&mut self, m: &[u8], hibit: u64) {
        self.words(le64(&m[0..]), le64(&m[8..]), hibit);
    }

    /// [`Self::block`] for a block given as its two little-endian words.
    #[inline(always)]
    pub(crate) fn words(&mut self, m0: u64, m1: u64, hibit: u64) {
        self.h = self.step(self.h, m0, m1, hibit);
    }

    /// (h + m)·r for an accumulator `h` of this key's (the MAC's own, or a
    /// second chain beside it: [`Self::two_chains`]).
    #[inline(always)]
    pub(crate) fn step(&self, h: [u64; 3], m0: u64, m1: u64, hibit: u64) -> [u64; 3] {
        let [h0, h1, h2] = h;
        // h += m (with the 2^128 bit).
        let t = u128::from(h0) + u128::from(m0);
        let h0 = t as u64;
        let t = u128::from(h1) + u128::from(m1) + (t >> 64);
        let h1 = t as u64;
        let h2 = h2 + (t >> 64) as u64 + hibit;
        // h·r.
        let (r0, r1, s1) = (
            u128::from(self.r0),
            u128::from(self.r1),
            u128::from(self.s1),
        );
        let d0 = u128::from(h0) * r0 + u128::from(h1) * s1;
        let d1 = u128::from(h0) * r1 + u128::from(h1) * r0 + u128::from(h2 * self.s1);
        // h2 is a few bits and r0 < 2^60: d2 and the fold below fit 64
        // bits (d2 < 2^63 + 2^61, c < 1.25·d2), so no 128-bit multiply.
        let d2 = h2 * self.r0;
        // Carry and fold the bits from 2^130 up (2^130 ≡ 5):
        // c = (d2 >> 2)·5, as (d2 with its low two bits cleared) + (d2 >> 2).
        let d1 = d1 + (d0 >> 64);
        let d2 = d2 + (d1 >> 64) as u64;
        let c = (d2 & !3) + (d2 >> 2);
        let t = u128::from(d0 as u64) + u128::from(c);
        let n0 = t as u64;
        let t = u128::from(d1 as u64) + (t >> 64);
        let n1 = t as u64;
        let n2 = (d2 & 3) + (t >> 64) as u64;
        [n0, n1, n2]
    }

    /// r0, r1 and s1 = r1 + r1/4 (the clamped r's words), for code that
    /// runs [`Self::step`] itself (the stitched AVX-512 ChaCha20's).
    pub(crate) fn key_words(&self) -> [u64; 3] {
        [self.r0, self.r1, self.s1]
    }

    /// r^k (k ≥ 1) by squaring and multiplying, for [`Self::two_chains`].
    pub(crate) fn power(&self, k: usize) -> [u64; 3] {
        assert!(k >= 1);
        let r = [self.r0, self.r1, 0];
        let mut acc: Option<[u64; 3]> = None;
        let mut sq = r;
        let mut k = k;
        loop {
            if k & 1 == 1 {
                acc = Some(acc.map_or(sq, |a| mul_add(a, sq, [0; 3])));
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            sq = mul_add(sq, sq, [0; 3]);
        }
        acc.expect("k >= 1")
    }

    /// Absorb whole blocks of `data` (a multiple of 16 bytes) in two chains
    /// side by side: the first ⌈n/2⌉ blocks into the accumulator, the other
    /// m = ⌊n/2⌋ into a second one from zero, then h = h·`rm` + second
    /// (`rm` = r^m from [`Self::power`]; unused for fewer than two blocks).
    /// Each block's multiply waits on the one before; two chains overlap
    /// them, at the cost of r^m (a few general multiplies, independent of
    /// the blocks).
    #[inline(always)]
    pub(crate) fn two_chains(&mut self, data: &[u8], rm: &[u64; 3]) {
        let n = data.len() / 16;
        let m = n / 2;
        let (first, second) = data[..16 * n].split_at(16 * (n - m));
        let (mut a, mut b) = (self.h, [0u64; 3]);
        for (x, y) in first.chunks_exact(16).zip(second.chunks_exact(16)) {
            a = self.step(a, le64(x), le64(&x[8..]), 1);
            b = self.step(b, le64(y), le64(&y[8..]), 1);
        }
        if n - m > m {
            let x = &first[16 * m..];
            a = self.step(a, le64(x), le64(&x[8..]), 1);
        }
        self.h = if m > 0 { mul_add(a, *rm, b) } else { a };
    }

    /// [`Self::padded`], the whole blocks of a long `data` (from
    /// [`TWO_CHAINS_FROM`] bytes) in [`Self::two_chains`].
    #[inline(always)]
    pub(crate) fn padded_long(&mut self, data: &[u8]) {
        if data.len() < TWO_CHAINS_FROM {
            return self.padded(data);
        }
        let whole = data.len() / 16 * 16;
        let rm = self.power(whole / 32);
        self.two_chains(&data[..whole], &rm);
        self.padded(&data[whole..]);
    }

    /// Absorb whole blocks of `data` (a multiple of 16 bytes), no buffer.
    #[inline(always)]
    pub(crate) fn blocks(&mut self, data: &[u8]) {
        for m in data.chunks_exact(16) {
            self.block(m, 1);
        }
    }

    /// Absorb `data` zero-padded to whole blocks, as ChaCha20-Poly1305
    /// (RFC 8439 §2.8) pads the AAD and the ciphertext; no buffer (the
    /// buffered bytes must be none).
    #[inline(always)]
    pub(crate) fn padded(&mut self, data: &[u8]) {
        debug_assert_eq!(self.buf_len, 0);
        let whole = data.len() / 16 * 16;
        self.blocks(&data[..whole]);
        if whole < data.len() {
            let (m0, m1) = crate::le_partial(&data[whole..]);
            self.words(m0, m1, 1);
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        let (mut buf, mut len) = (self.buf, self.buf_len);
        super::buffered(&mut buf, &mut len, data, |b| self.block(b, 1));
        (self.buf, self.buf_len) = (buf, len);
    }

    #[inline(always)]
    pub fn finalize(mut self) -> [u8; 16] {
        if self.buf_len > 0 {
            let mut b = [0u8; 16];
            b[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
            b[self.buf_len] = 1;
            self.block(&b, 0);
        }
        let [h0, h1, h2] = self.h;
        // h < 2^131 here: fold once more so h < 2^130 + small.
        let c = (h2 >> 2) * 5;
        let t = u128::from(h0) + u128::from(c);
        let h0 = t as u64;
        let t = u128::from(h1) + (t >> 64);
        let h1 = t as u64;
        let h2 = (h2 & 3) + (t >> 64) as u64;
        // g = h + 5 − 2^130; keep g if it did not borrow (h ≥ p).
        let t = u128::from(h0) + 5;
        let g0 = t as u64;
        let t = u128::from(h1) + (t >> 64);
        let g1 = t as u64;
        let g2 = (h2 + (t >> 64) as u64).wrapping_sub(4);
        // All ones if no borrow. The mask passes through black_box so that
        // the compiler cannot turn the select into a branch or a
        // conditional move on secret data.
        let keep_g = core::hint::black_box((g2 >> 63).wrapping_sub(1));
        let h0 = (h0 & !keep_g) | (g0 & keep_g);
        let h1 = (h1 & !keep_g) | (g1 & keep_g);
        // h + pad mod 2^128.
        let t = u128::from(h0) + u128::from(self.pad[0]);
        let lo = t as u64;
        let hi = h1.wrapping_add(self.pad[1]).wrapping_add((t >> 64) as u64);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&lo.to_le_bytes());
        out[8..].copy_from_slice(&hi.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_chains_and_powers_agree_with_one_chain() {
        // Every block count up to 70 (odd and even halves, none, one), keys
        // with r's limbs large and small, and accumulators that start
        // non-zero: the tag through two chains joined by r^m equals the
        // one-chain tag.
        let data: Vec<u8> = (0..71 * 16).map(|i| (i * 131 + 7) as u8).collect();
        for key in [[0xffu8; 32], core::array::from_fn(|i| (i * 29 + 1) as u8)] {
            for n in 0..=70usize {
                let mut one = Poly1305::new(&key);
                one.blocks(&data[..16]);
                let mut two = one.clone();
                one.blocks(&data[16..16 + 16 * n]);
                let rm = two.power((n / 2).max(1));
                two.two_chains(&data[16..16 + 16 * n], &rm);
                assert_eq!(one.finalize(), two.finalize(), "{n} blocks");
            }
            // r^k by squaring against k multiplies by r (equal modulo p:
            // the same tag from either accumulator).
            let mac = Poly1305::new(&key);
            let mut x = [1u64, 0, 0];
            for k in 1..=40 {
                x = mac.step(x, 0, 0, 0);
                let (mut a, mut b) = (mac.clone(), mac.clone());
                (a.h, b.h) = (x, mac.power(k));
                assert_eq!(a.finalize(), b.finalize(), "r^{k}");
            }
        }
    }
}
