//! SC2000-128/192/256, "32-bit fast" variant: 32-bit words, the S and M
//! functions merged into four tables indexed (6,10,10,6), the B/B⁻¹
//! function bitsliced, and every round written out inline.
//!
//! The specification followed is the designers' paper, T. Shimoyama et al.,
//! "The Block Cipher SC2000", FSE 2001, LNCS 2355, pp. 312–327 (the
//! Fujitsu/CRYPTREC specification document could not be reached):
//! - §3.4, "Software implementation techniques of the F function": S and M
//!   compose because M is linear, and two consecutive S5 boxes are joined so
//!   M∘S is looked up as (6,10,10,6): M∘S6 (6-bit input, 32-bit output) for
//!   the top and bottom six bits, M∘(S5S5) (10-bit input, 32-bit output) for
//!   bits 25..16 and 15..6. The tables are built at compile time by
//!   `const fn` from S6, S5 and M (§4); the key schedule's M(S(x)) uses them
//!   too;
//! - §3.5 and Fig. 3: B and B⁻¹ as the bitslice formulas of Fig. 3 on the
//!   four 32-bit words (Fig. 3's `t1 = b̄` in B and `t5 = c̄` in B⁻¹ are NOT b
//!   and NOT c; with them the formulas are exactly S4 and S4i, a the most
//!   significant bit);
//! - §3.1/§3.2 the round layout, §3.3 I, §3.4 R/F/L, §3.6 the key schedule,
//!   as in the reference variant.
//!
//! Lookup tables: M∘S6 ×2 (64 entries of 4 bytes each) + M∘(S5S5) ×2 (1024
//! entries of 4 bytes each) = 8704 bytes (the paper rounds it to 9 KByte),
//! all indexed by secret data; plus EK_SEL (256 bytes: Order and Index of
//! §4 merged per extended key), indexed only by the extended-key number.
//! S6, S5, M, Order and Index are used only at compile time.
//!
//! NOT constant time: table indices depend on the key and the data.

use super::spec::{key_schedule, ms_table};

/// M∘S6 for bits 31..26.
static MS6_HI: [u32; 64] = ms_table::<64>(26);
/// M∘(S5S5) for bits 25..16.
static MS10_HI: [u32; 1024] = ms_table::<1024>(16);
/// M∘(S5S5) for bits 15..6.
static MS10_LO: [u32; 1024] = ms_table::<1024>(6);
/// M∘S6 for bits 5..0.
static MS6_LO: [u32; 64] = ms_table::<64>(0);

/// M(S(x)) by four lookups.
#[inline(always)]
fn ms(x: u32) -> u32 {
    MS6_HI[(x >> 26) as usize]
        ^ MS10_HI[(x >> 16) as usize & 0x3ff]
        ^ MS10_LO[(x >> 6) as usize & 0x3ff]
        ^ MS6_LO[x as usize & 0x3f]
}

const MASK5: u32 = 0x5555_5555;
const MASK3: u32 = 0x3333_3333;

/// `R×R` (§3.1, §3.4): R on (a, b) with F(c, d), the cross connection, R
/// again; the cross connection is a renaming, done once at the end.
#[inline(always)]
fn rr(x: [u32; 4], mask: u32) -> [u32; 4] {
    let [mut a, mut b, mut c, mut d] = x;
    let (u, v) = (ms(c), ms(d));
    a ^= (u & mask) ^ v;
    b ^= (v & !mask) ^ u;
    let (u, v) = (ms(a), ms(b));
    c ^= (u & mask) ^ v;
    d ^= (v & !mask) ^ u;
    [c, d, a, b]
}

/// B (§3.5), Fig. 3's bitslice formulas.
#[inline(always)]
fn b_fn([a, b, c, d]: [u32; 4]) -> [u32; 4] {
    let t1 = !b;
    let t2 = a | d;
    let t3 = c ^ t2;
    let t4 = t1 & t3;
    let e = d ^ t4;
    let t6 = t2 ^ e;
    let t7 = a ^ b;
    let t8 = t6 | t7;
    let f = c ^ t8;
    let t10 = c & t3;
    let t11 = t1 ^ t10;
    let t12 = c ^ t4;
    let t13 = t6 & t12;
    let h = t7 ^ t13;
    let t15 = c | h;
    let g = t11 ^ t15;
    [e, f, g, h]
}

/// B⁻¹ (§3.5), Fig. 3's bitslice formulas.
#[inline(always)]
fn b_inv([a, b, c, d]: [u32; 4]) -> [u32; 4] {
    let t1 = c ^ d;
    let t2 = t1 | b;
    let t3 = t2 ^ c;
    let t4 = t3 & a;
    let t5 = !c;
    let t6 = t5 | b;
    let t7 = t6 ^ d;
    let e = t7 ^ t4;
    let t8 = a ^ t6;
    let t9 = t8 | d;
    let g = t9 ^ b;
    let t10 = c ^ g;
    let t11 = t10 | t4;
    let t12 = t11 & t9;
    let f = t12 ^ e;
    let t13 = t6 ^ g;
    let t14 = t13 & t1;
    let h = t14 ^ a;
    [e, f, g, h]
}

/// I-B-I with ek[o..o + 4] and ek[o + 4..o + 8].
#[inline(always)]
fn ibi(x: [u32; 4], ek: &[u32; 64], o: usize) -> [u32; 4] {
    let y = b_fn([
        x[0] ^ ek[o],
        x[1] ^ ek[o + 1],
        x[2] ^ ek[o + 2],
        x[3] ^ ek[o + 3],
    ]);
    [
        y[0] ^ ek[o + 4],
        y[1] ^ ek[o + 5],
        y[2] ^ ek[o + 6],
        y[3] ^ ek[o + 7],
    ]
}

/// The inverse of `ibi(·, ek, o)`: I with ek[o + 4..o + 8], B⁻¹, I with
/// ek[o..o + 4].
#[inline(always)]
fn ibi_inv(x: [u32; 4], ek: &[u32; 64], o: usize) -> [u32; 4] {
    let y = b_inv([
        x[0] ^ ek[o + 4],
        x[1] ^ ek[o + 5],
        x[2] ^ ek[o + 6],
        x[3] ^ ek[o + 7],
    ]);
    [
        y[0] ^ ek[o],
        y[1] ^ ek[o + 1],
        y[2] ^ ek[o + 2],
        y[3] ^ ek[o + 3],
    ]
}

/// SC2000 with its 56 or 64 extended keys (§3.6).
pub struct Key {
    ek: [u32; 64],
    /// 8 B layers (192/256-bit key) rather than 7 (128-bit key).
    long: bool,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        let mut ek = [0u32; 64];
        let long = key_schedule(key, ms, |n, e| ek[n] = e)?;
        Some(Key { ek, long })
    }

    /// (in)-I-B-I-R5×R5-I-B-I-R3×R3-…-I-B-I-(out), §3.1.
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        let ek = &self.ek;
        let mut x = load(block);
        x = ibi(x, ek, 0);
        x = rr(x, MASK5);
        x = ibi(x, ek, 8);
        x = rr(x, MASK3);
        x = ibi(x, ek, 16);
        x = rr(x, MASK5);
        x = ibi(x, ek, 24);
        x = rr(x, MASK3);
        x = ibi(x, ek, 32);
        x = rr(x, MASK5);
        x = ibi(x, ek, 40);
        x = rr(x, MASK3);
        x = ibi(x, ek, 48);
        if self.long {
            x = rr(x, MASK5);
            x = ibi(x, ek, 56);
        }
        store(x, block);
    }

    /// The encryption layout backwards (§3.2); R×R is its own inverse.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let ek = &self.ek;
        let mut x = load(block);
        if self.long {
            x = ibi_inv(x, ek, 56);
            x = rr(x, MASK5);
        }
        x = ibi_inv(x, ek, 48);
        x = rr(x, MASK3);
        x = ibi_inv(x, ek, 40);
        x = rr(x, MASK5);
        x = ibi_inv(x, ek, 32);
        x = rr(x, MASK3);
        x = ibi_inv(x, ek, 24);
        x = rr(x, MASK5);
        x = ibi_inv(x, ek, 16);
        x = rr(x, MASK3);
        x = ibi_inv(x, ek, 8);
        x = rr(x, MASK5);
        x = ibi_inv(x, ek, 0);
        store(x, block);
    }

    /// ek[0..8], each big-endian.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for j in 0..8 {
            out[4 * j..4 * j + 4].copy_from_slice(&self.ek[j].to_be_bytes());
        }
        out
    }
}

#[inline(always)]
fn load(block: &[u8; 16]) -> [u32; 4] {
    let w = |j: usize| {
        u32::from_be_bytes([
            block[4 * j],
            block[4 * j + 1],
            block[4 * j + 2],
            block[4 * j + 3],
        ])
    };
    [w(0), w(1), w(2), w(3)]
}

#[inline(always)]
fn store(x: [u32; 4], block: &mut [u8; 16]) {
    for j in 0..4 {
        block[4 * j..4 * j + 4].copy_from_slice(&x[j].to_be_bytes());
    }
}
