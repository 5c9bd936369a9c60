//! GHASH without tables, constant time (`ctmul`): carry-less
//! multiplication built from integer multiplications whose operands keep
//! only every fourth bit, so that no carry can reach a bit that counts
//! (the "multiplication with holes" BearSSL's ghash_ctmul uses), then
//! Karatsuba up to 128 × 128 bits and the reduction modulo
//! x^128 + x^7 + x^2 + x + 1. Integer multiplication takes the same time
//! for every operand on x86-64 and AArch64, so neither H nor the data
//! drives a branch, an index or a timing.
//!
//! GCM's blocks are bit-reflected (the first bit is x^0); the product is
//! computed on bit-reversed values, so bit i of a u128 is x^i.

/// 32 × 32 → 64-bit carry-less product. Each operand is split into four
/// parts with bits 4 apart; a product of two parts has at most eight terms
/// per bit position, a count below 16 that never carries into the next
/// position of the same residue mod 4.
#[inline(always)]
fn clmul32(a: u32, b: u32) -> u64 {
    const M: [u32; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
    const W: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    let x: [u64; 4] = core::array::from_fn(|i| u64::from(a & M[i]));
    let y: [u64; 4] = core::array::from_fn(|i| u64::from(b & M[i]));
    let z0 = (x[0] * y[0]) ^ (x[1] * y[3]) ^ (x[2] * y[2]) ^ (x[3] * y[1]);
    let z1 = (x[0] * y[1]) ^ (x[1] * y[0]) ^ (x[2] * y[3]) ^ (x[3] * y[2]);
    let z2 = (x[0] * y[2]) ^ (x[1] * y[1]) ^ (x[2] * y[0]) ^ (x[3] * y[3]);
    let z3 = (x[0] * y[3]) ^ (x[1] * y[2]) ^ (x[2] * y[1]) ^ (x[3] * y[0]);
    (z0 & W[0]) | (z1 & W[1]) | (z2 & W[2]) | (z3 & W[3])
}

/// 64 × 64 → 128 bits (Karatsuba over 32-bit halves).
#[inline(always)]
fn clmul64(a: u64, b: u64) -> u128 {
    let (a0, a1) = (a as u32, (a >> 32) as u32);
    let (b0, b1) = (b as u32, (b >> 32) as u32);
    let lo = clmul32(a0, b0);
    let hi = clmul32(a1, b1);
    let mid = clmul32(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    u128::from(lo) ^ (u128::from(mid) << 32) ^ (u128::from(hi) << 64)
}

/// 128 × 128 → 256 bits as (high, low).
#[inline(always)]
fn clmul128(a: u128, b: u128) -> (u128, u128) {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    (hi ^ (mid >> 64), lo ^ (mid << 64))
}

/// hi·x^128 + lo modulo x^128 + x^7 + x^2 + x + 1.
#[inline(always)]
fn reduce(hi: u128, lo: u128) -> u128 {
    // x^128 ≡ x^7 + x^2 + x + 1; the bits of hi·(x^7 + x^2 + x) that pass
    // x^127 are folded once more.
    let over = (hi >> 127) ^ (hi >> 126) ^ (hi >> 121);
    let h = hi ^ over;
    lo ^ h ^ (h << 1) ^ (h << 2) ^ (h << 7)
}

/// The product of two field elements in GCM's bit order.
pub fn mul(x: u128, h_rev: u128) -> u128 {
    let (hi, lo) = clmul128(x.reverse_bits(), h_rev);
    reduce(hi, lo).reverse_bits()
}

#[derive(Clone)]
pub struct Key {
    /// H with bit i the coefficient of x^i.
    h_rev: u128,
}

impl Key {
    /// `h` in GCM's order (u128::from_be_bytes of the block).
    pub fn new(h: u128) -> Key {
        Key {
            h_rev: h.reverse_bits(),
        }
    }

    /// Absorb whole 16-byte blocks into `y`.
    pub fn update(&self, y: &mut u128, blocks: &[u8]) {
        for b in blocks.chunks_exact(16) {
            *y = mul(
                *y ^ u128::from_be_bytes(b.try_into().expect("16")),
                self.h_rev,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clmul32_matches_the_schoolbook_product() {
        let mut x = 0x9e37_79b9u32;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let y = x.rotate_left(11) ^ 0xdead_beef;
            let want = (0..32).fold(0u64, |acc, i| {
                acc ^ ((u64::from(x) << i) & 0u64.wrapping_sub(u64::from((y >> i) & 1)))
            });
            assert_eq!(clmul32(x, y), want);
        }
        assert_eq!(clmul32(!0, !0), 0x5555_5555_5555_5555);
    }

    #[test]
    fn mul_matches_the_bitwise_reference() {
        let mut s = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        for _ in 0..500 {
            s ^= s << 17;
            s ^= s >> 31;
            s ^= s << 9;
            let h = s.rotate_left(37) ^ 0x5a5a;
            assert_eq!(
                mul(s, h.reverse_bits()),
                crate::ghash::soft4bit::mul_bitwise(s, h)
            );
        }
        // Edge cases: zero, one (x^0 is the top bit), all ones.
        let one = 1u128 << 127;
        for h in [0u128, one, !0] {
            assert_eq!(
                mul(!0, h.reverse_bits()),
                crate::ghash::soft4bit::mul_bitwise(!0, h)
            );
            assert_eq!(mul(one, h.reverse_bits()), h);
        }
    }
}
