//! GHASH with Shoup's 4-bit tables (as in OpenSSL's gcm_gmult_4bit): sixteen
//! multiples of H, one lookup per nibble of the running hash. NOT constant
//! time: the table index depends on secret data.
//!
//! Elements are u128 with GCM's bit order: the most significant bit is the
//! coefficient of x^0, the least significant that of x^127.

/// x^128 = 1 + x + x^2 + x^7, in GCM's bit order.
const R: u128 = 0xe1 << 120;

/// Multiply by x.
fn mul_x(v: u128) -> u128 {
    (v >> 1) ^ (R & 0u128.wrapping_sub(v & 1))
}

/// Reduction of the four bits shifted out when multiplying by x^4.
const REM4: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut i = 0;
    while i < 16 {
        let mut v = i as u128;
        let mut k = 0;
        while k < 4 {
            v = (v >> 1) ^ if v & 1 == 1 { R } else { 0 };
            k += 1;
        }
        t[i] = v;
        i += 1;
    }
    t
};

/// The bitwise product (SP 800-38D Algorithm 1), constant time; the
/// reference the table method is tested against.
pub fn mul_bitwise(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        z ^= v & 0u128.wrapping_sub((x >> (127 - i)) & 1);
        v = mul_x(v);
    }
    z
}

#[derive(Clone)]
pub struct Key {
    table: [u128; 16],
}

impl Key {
    pub fn new(h: u128) -> Key {
        let mut t = [0u128; 16];
        t[8] = h;
        t[4] = mul_x(t[8]);
        t[2] = mul_x(t[4]);
        t[1] = mul_x(t[2]);
        for i in [3usize, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15] {
            let hi = 1 << (usize::BITS - 1 - i.leading_zeros());
            t[i] = t[hi] ^ t[i - hi];
        }
        Key { table: t }
    }

    /// x · H.
    pub fn mul(&self, x: u128) -> u128 {
        let mut z = 0u128;
        for k in (0..32).rev() {
            let rem = (z & 0xf) as usize;
            z = (z >> 4) ^ REM4[rem] ^ self.table[((x >> (124 - 4 * k)) & 0xf) as usize];
        }
        z
    }

    /// Absorb whole 16-byte blocks into `y`.
    pub fn update(&self, y: &mut u128, blocks: &[u8]) {
        for b in blocks.chunks_exact(16) {
            *y = self.mul(*y ^ u128::from_be_bytes(b.try_into().expect("16")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_method_matches_the_bitwise_definition() {
        let mut s = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        for _ in 0..200 {
            s = s.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x55;
            let h = s.rotate_left(64) ^ 0xdead_beef;
            let k = Key::new(h);
            assert_eq!(k.mul(s), mul_bitwise(s, h));
        }
        // x^0 is the identity.
        assert_eq!(mul_bitwise(1 << 127, 0x1234), 0x1234);
    }
}
