//! Poly1305 with three 44/44/42-bit limbs and 64×64→128-bit products (after
//! poly1305-donna-64). Constant time: the final reduction selects with a
//! mask, never a branch.

pub(crate) const M44: u64 = 0x0fff_ffff_ffff;
pub(crate) const M42: u64 = 0x03ff_ffff_ffff;

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

#[derive(Clone)]
pub struct Poly1305 {
    pub(crate) r: [u64; 3],
    s: [u64; 2],
    pub(crate) h: [u64; 3],
    pad: [u64; 2],
    buf: [u8; 16],
    pub(crate) buf_len: usize,
}

/// h·r mod 2^130 − 5 with s = 20·(r1, r2) (2^132 ≡ 20), limbs carried
/// back to 44/44/42 bits (h1 may exceed 2^44 by a little).
fn mul_rs(h: [u64; 3], r: [u64; 3], s: [u64; 2]) -> [u64; 3] {
    let [h0, h1, h2] = h.map(u128::from);
    let [r0, r1, r2] = r.map(u128::from);
    let [s1, s2] = s.map(u128::from);
    let d0 = h0 * r0 + h1 * s2 + h2 * s1;
    let mut d1 = h0 * r1 + h1 * r0 + h2 * s2;
    let mut d2 = h0 * r2 + h1 * r1 + h2 * r0;
    let mut out = [0u64; 3];
    let mut c = (d0 >> 44) as u64;
    out[0] = d0 as u64 & M44;
    d1 += u128::from(c);
    c = (d1 >> 44) as u64;
    out[1] = d1 as u64 & M44;
    d2 += u128::from(c);
    c = (d2 >> 42) as u64;
    out[2] = d2 as u64 & M42;
    out[0] += c * 5;
    c = out[0] >> 44;
    out[0] &= M44;
    out[1] += c;
    out
}

/// a·b mod 2^130 − 5 for any two field elements in 44/44/42-bit limbs
/// (powers of r for the vector variants).
pub(crate) fn mul_limbs(a: [u64; 3], b: [u64; 3]) -> [u64; 3] {
    mul_rs(a, b, [b[1] * 20, b[2] * 20])
}

impl Poly1305 {
    /// A MAC keyed with a one-time 32-byte key (r ‖ s).
    pub fn new(key: &[u8; 32]) -> Poly1305 {
        let t0 = le64(&key[0..]);
        let t1 = le64(&key[8..]);
        let r = [
            t0 & 0x0ffc_0fff_ffff,
            ((t0 >> 44) | (t1 << 20)) & 0x0fff_ffc0_ffff,
            (t1 >> 24) & 0x000f_ffff_fc0f,
        ];
        Poly1305 {
            s: [r[1] * (5 << 2), r[2] * (5 << 2)],
            r,
            h: [0; 3],
            pad: [le64(&key[16..]), le64(&key[24..])],
            buf: [0; 16],
            buf_len: 0,
        }
    }

    fn block(&mut self, m: &[u8; 16], hibit: u64) {
        let t0 = le64(&m[0..]);
        let t1 = le64(&m[8..]);
        let h = &mut self.h;
        h[0] += t0 & M44;
        h[1] += ((t0 >> 44) | (t1 << 20)) & M44;
        h[2] += ((t1 >> 24) & M42) | hibit;
        *h = mul_rs(*h, self.r, self.s);
    }

    pub fn update(&mut self, data: &[u8]) {
        let (mut buf, mut len) = (self.buf, self.buf_len);
        super::buffered(&mut buf, &mut len, data, |b| self.block(b, 1 << 40));
        (self.buf, self.buf_len) = (buf, len);
    }

    pub fn finalize(mut self) -> [u8; 16] {
        if self.buf_len > 0 {
            let mut b = [0u8; 16];
            b[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
            b[self.buf_len] = 1;
            self.block(&b, 0);
        }
        let [mut h0, mut h1, mut h2] = self.h;
        // Two full carry passes.
        for _ in 0..2 {
            let c = h1 >> 44;
            h1 &= M44;
            h2 += c;
            let c = h2 >> 42;
            h2 &= M42;
            h0 += c * 5;
            let c = h0 >> 44;
            h0 &= M44;
            h1 += c;
        }
        // g = h + 5 - 2^130; keep g if it did not borrow (h >= p).
        let mut g0 = h0 + 5;
        let mut c = g0 >> 44;
        g0 &= M44;
        let mut g1 = h1 + c;
        c = g1 >> 44;
        g1 &= M44;
        let g2 = (h2 + c).wrapping_sub(1 << 42);
        let keep_g = (g2 >> 63).wrapping_sub(1); // all ones if no borrow
        h0 = (h0 & !keep_g) | (g0 & keep_g);
        h1 = (h1 & !keep_g) | (g1 & keep_g);
        h2 = (h2 & !keep_g) | (g2 & keep_g);
        // h + pad mod 2^128.
        let [t0, t1] = self.pad;
        h0 += t0 & M44;
        c = h0 >> 44;
        h0 &= M44;
        h1 += (((t0 >> 44) | (t1 << 20)) & M44) + c;
        c = h1 >> 44;
        h1 &= M44;
        h2 += ((t1 >> 24) & M42) + c;
        h2 &= M42;
        let lo = h0 | (h1 << 44);
        let hi = (h1 >> 20) | (h2 << 24);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&lo.to_le_bytes());
        out[8..].copy_from_slice(&hi.to_le_bytes());
        out
    }
}
