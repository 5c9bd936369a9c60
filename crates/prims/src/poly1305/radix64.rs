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
        let [h0, h1, h2] = self.h;
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
        self.h = [n0, n1, n2];
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
