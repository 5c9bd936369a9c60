//! Poly1305 with five 26-bit limbs and 32×32→64-bit products: the way
//! 32-bit code does it (after poly1305-donna-32). Constant time: the final
//! reduction selects with a mask, never a branch.

const M26: u32 = 0x03ff_ffff;

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

#[derive(Clone)]
pub struct Poly1305 {
    pub(crate) r: [u32; 5],
    s: [u32; 4],
    pub(crate) h: [u32; 5],
    pad: [u32; 4],
    pub(crate) buf: [u8; 16],
    pub(crate) buf_len: usize,
}

/// a · b mod 2^130 - 5 on 26-bit limbs (partially reduced, like `h`).
pub(crate) fn mul_limbs(a: [u32; 5], b: [u32; 5]) -> [u32; 5] {
    let [a0, a1, a2, a3, a4] = a.map(u64::from);
    let [b0, b1, b2, b3, b4] = b.map(u64::from);
    let (s1, s2, s3, s4) = (b1 * 5, b2 * 5, b3 * 5, b4 * 5);
    let d = [
        a0 * b0 + a1 * s4 + a2 * s3 + a3 * s2 + a4 * s1,
        a0 * b1 + a1 * b0 + a2 * s4 + a3 * s3 + a4 * s2,
        a0 * b2 + a1 * b1 + a2 * b0 + a3 * s4 + a4 * s3,
        a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + a4 * s4,
        a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0,
    ];
    carry(d)
}

/// Carry 64-bit limb sums back to 26-bit limbs (h1 may exceed 2^26 by a
/// little, as after every block).
pub(crate) fn carry(mut d: [u64; 5]) -> [u32; 5] {
    let mut h = [0u32; 5];
    for i in 0..4 {
        d[i + 1] += d[i] >> 26;
        h[i] = d[i] as u32 & M26;
    }
    let c = d[4] >> 26;
    h[4] = d[4] as u32 & M26;
    let h0 = u64::from(h[0]) + c * 5;
    h[0] = h0 as u32 & M26;
    h[1] += (h0 >> 26) as u32;
    h
}

impl Poly1305 {
    /// A MAC keyed with a one-time 32-byte key (r ‖ s).
    pub fn new(key: &[u8; 32]) -> Poly1305 {
        let r = [
            le32(&key[0..]) & 0x03ff_ffff,
            (le32(&key[3..]) >> 2) & 0x03ff_ff03,
            (le32(&key[6..]) >> 4) & 0x03ff_c0ff,
            (le32(&key[9..]) >> 6) & 0x03f0_3fff,
            (le32(&key[12..]) >> 8) & 0x000f_ffff,
        ];
        Poly1305 {
            s: [r[1] * 5, r[2] * 5, r[3] * 5, r[4] * 5],
            r,
            h: [0; 5],
            pad: [
                le32(&key[16..]),
                le32(&key[20..]),
                le32(&key[24..]),
                le32(&key[28..]),
            ],
            buf: [0; 16],
            buf_len: 0,
        }
    }

    pub(crate) fn block(&mut self, m: &[u8; 16], hibit: u32) {
        let [r0, r1, r2, r3, r4] = self.r.map(u64::from);
        let [s1, s2, s3, s4] = self.s.map(u64::from);
        let h = &mut self.h;
        h[0] += le32(&m[0..]) & M26;
        h[1] += (le32(&m[3..]) >> 2) & M26;
        h[2] += (le32(&m[6..]) >> 4) & M26;
        h[3] += (le32(&m[9..]) >> 6) & M26;
        h[4] += (le32(&m[12..]) >> 8) | hibit;
        let [h0, h1, h2, h3, h4] = h.map(u64::from);
        let d0 = h0 * r0 + h1 * s4 + h2 * s3 + h3 * s2 + h4 * s1;
        let mut d1 = h0 * r1 + h1 * r0 + h2 * s4 + h3 * s3 + h4 * s2;
        let mut d2 = h0 * r2 + h1 * r1 + h2 * r0 + h3 * s4 + h4 * s3;
        let mut d3 = h0 * r3 + h1 * r2 + h2 * r1 + h3 * r0 + h4 * s4;
        let mut d4 = h0 * r4 + h1 * r3 + h2 * r2 + h3 * r1 + h4 * r0;
        let mut c = d0 >> 26;
        h[0] = d0 as u32 & M26;
        d1 += c;
        c = d1 >> 26;
        h[1] = d1 as u32 & M26;
        d2 += c;
        c = d2 >> 26;
        h[2] = d2 as u32 & M26;
        d3 += c;
        c = d3 >> 26;
        h[3] = d3 as u32 & M26;
        d4 += c;
        c = d4 >> 26;
        h[4] = d4 as u32 & M26;
        h[0] += c as u32 * 5;
        let c = h[0] >> 26;
        h[0] &= M26;
        h[1] += c;
    }

    pub fn update(&mut self, data: &[u8]) {
        let (mut buf, mut len) = (self.buf, self.buf_len);
        super::buffered(&mut buf, &mut len, data, |b| self.block(b, 1 << 24));
        (self.buf, self.buf_len) = (buf, len);
    }

    pub fn finalize(mut self) -> [u8; 16] {
        if self.buf_len > 0 {
            let mut b = [0u8; 16];
            b[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
            b[self.buf_len] = 1;
            self.block(&b, 0);
        }
        let mut h = self.h;
        let mut c = h[1] >> 26;
        h[1] &= M26;
        for i in 2..5 {
            h[i] += c;
            c = h[i] >> 26;
            h[i] &= M26;
        }
        h[0] += c * 5;
        c = h[0] >> 26;
        h[0] &= M26;
        h[1] += c;
        // g = h + 5 - 2^130; keep g if it did not borrow (h >= p).
        let mut g = [0u32; 5];
        g[0] = h[0] + 5;
        c = g[0] >> 26;
        g[0] &= M26;
        for i in 1..4 {
            g[i] = h[i] + c;
            c = g[i] >> 26;
            g[i] &= M26;
        }
        g[4] = (h[4] + c).wrapping_sub(1 << 26);
        // Bit 31 of g[4] is set exactly when the subtraction borrowed.
        // All ones if no borrow. The mask passes through black_box so the
        // compiler cannot see it is 0 or !0: without it LLVM turned the
        // select below into a jump on the borrow (`js`), a branch on the
        // secret accumulator that ango's memcheck check found.
        let keep_g = core::hint::black_box((g[4] >> 31).wrapping_sub(1));
        for i in 0..5 {
            h[i] = (h[i] & !keep_g) | (g[i] & keep_g);
        }
        let w0 = h[0] | (h[1] << 26);
        let w1 = (h[1] >> 6) | (h[2] << 20);
        let w2 = (h[2] >> 12) | (h[3] << 14);
        let w3 = (h[3] >> 18) | (h[4] << 8);
        let mut out = [0u8; 16];
        let mut f: u64 = 0;
        for (i, (w, p)) in [w0, w1, w2, w3].iter().zip(self.pad.iter()).enumerate() {
            f = u64::from(*w) + u64::from(*p) + (f >> 32);
            out[4 * i..4 * i + 4].copy_from_slice(&(f as u32).to_le_bytes());
        }
        out
    }
}
