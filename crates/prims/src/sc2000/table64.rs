//! SC2000-128/192/256, "64-bit fast" variant as seed 002 (§2.5) describes
//! the 64-bit implementation: I and B composed into one I-B-I function, the
//! two R functions of `R×R` composed into one R2 function, the S-box
//! lookups merged pairwise into (6+5, 5+5, 5+6) = (11,10,11)-bit indices of
//! the tables S11_M (11-bit input, 32-bit output) and S10_M (10-bit input,
//! 32-bit output) that also contain the M function, and B computed by
//! bitslice logic (no table). The data block and the extended keys are held
//! as two 64-bit words, (a‖b) and (c‖d), so each I function is two XORs and
//! the L function one AND, one rotation and one XOR on 64 bits.
//!
//! The specification followed is the designers' paper, T. Shimoyama et al.,
//! "The Block Cipher SC2000", FSE 2001, LNCS 2355, pp. 312–327 (the
//! Fujitsu/CRYPTREC specification document, whose §6.1.1/§6.1.2/§6.2 seed
//! 002 cites for these techniques, could not be reached):
//! - §3.4, "Software implementation techniques of the F function": the
//!   (11,10,11) lookups with M∘(S6S5), M∘(S5S5), M∘(S5S6), built here at
//!   compile time by `const fn` from S6, S5 and M (§4); the key schedule's
//!   M(S(x)) uses them too;
//! - §3.5 and Fig. 3: the bitslice formulas of B and B⁻¹ (Fig. 3's
//!   `t1 = b̄` in B and `t5 = c̄` in B⁻¹ are NOT b and NOT c; with them the
//!   formulas are exactly S4 and S4i, a the most significant bit);
//! - §3.1/§3.2 the round layout, §3.3 I, §3.4 R/F/L, §3.6 the key schedule.
//!
//! Lookup tables: S11_M 2 × 2048 entries and S10_M 1024 entries of 4 bytes
//! each = 20480 bytes (the paper's "20 KByte"), indexed by secret data; plus
//! EK_SEL (256 bytes: Order and Index of §4 merged per extended key),
//! indexed only by the extended-key number. S6, S5, M, Order and Index are
//! used only at compile time.
//!
//! NOT constant time: table indices depend on the key and the data.

use super::spec::{key_schedule, ms_table};

/// S11_M[0] = M∘(S6S5) on bits 31..21, S11_M[1] = M∘(S5S6) on bits 10..0.
static S11_M: [[u32; 2048]; 2] = [ms_table::<2048>(21), ms_table::<2048>(0)];
/// S10_M = M∘(S5S5) on bits 20..11.
static S10_M: [u32; 1024] = ms_table::<1024>(11);

/// M(S(x)) by three lookups.
#[inline(always)]
fn ms(x: u32) -> u32 {
    S11_M[0][(x >> 21) as usize] ^ S10_M[(x >> 11) as usize & 0x3ff] ^ S11_M[1][x as usize & 0x7ff]
}

/// The L masks as 64-bit words (mask‖¬mask) for R5 and R3.
const MASK5: u64 = 0x5555_5555_aaaa_aaaa;
const MASK3: u64 = 0x3333_3333_cccc_cccc;

/// F (§3.4) on (c‖d): with u = M(S(c)), v = M(S(d)), L gives
/// ((u ∧ mask) ⊕ v)‖((v ∧ ¬mask) ⊕ u) = ((u‖v) ∧ (mask‖¬mask)) ⊕ (v‖u).
#[inline(always)]
fn f(cd: u64, mask: u64) -> u64 {
    let uv = ((ms((cd >> 32) as u32) as u64) << 32) | ms(cd as u32) as u64;
    (uv & mask) ^ uv.rotate_left(32)
}

/// R2 = `R×R` (§3.1, §3.4): (a‖b) ⊕= F(c‖d), cross connection,
/// (c‖d) ⊕= F(a‖b); returns the state after the cross connection.
#[inline(always)]
fn r2([ab, cd]: [u64; 2], mask: u64) -> [u64; 2] {
    let ab = ab ^ f(cd, mask);
    let cd = cd ^ f(ab, mask);
    [cd, ab]
}

/// B (§3.5), Fig. 3's bitslice formulas on the four 32-bit words.
#[inline(always)]
fn b_fn(a: u32, b: u32, c: u32, d: u32) -> [u32; 4] {
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
fn b_inv(a: u32, b: u32, c: u32, d: u32) -> [u32; 4] {
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

#[inline(always)]
fn join(hi: u32, lo: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

/// I-B-I with the extended keys k[4g..4g + 2] before B and k[4g + 2..4g + 4]
/// after it (g = group of eight 32-bit extended keys).
#[inline(always)]
fn ibi([ab, cd]: [u64; 2], k: &[u64; 32], g: usize) -> [u64; 2] {
    let (ab, cd) = (ab ^ k[4 * g], cd ^ k[4 * g + 1]);
    let [e, f, gg, h] = b_fn((ab >> 32) as u32, ab as u32, (cd >> 32) as u32, cd as u32);
    [join(e, f) ^ k[4 * g + 2], join(gg, h) ^ k[4 * g + 3]]
}

/// The inverse of `ibi(·, k, g)`: I, B⁻¹, I.
#[inline(always)]
fn ibi_inv([ab, cd]: [u64; 2], k: &[u64; 32], g: usize) -> [u64; 2] {
    let (ab, cd) = (ab ^ k[4 * g + 2], cd ^ k[4 * g + 3]);
    let [e, f, gg, h] = b_inv((ab >> 32) as u32, ab as u32, (cd >> 32) as u32, cd as u32);
    [join(e, f) ^ k[4 * g], join(gg, h) ^ k[4 * g + 1]]
}

/// SC2000 with its 56 or 64 extended keys (§3.6), stored in pairs:
/// k[j] = ek[2j]‖ek[2j + 1].
pub struct Key {
    k: [u64; 32],
    /// 8 B layers (192/256-bit key) rather than 7 (128-bit key).
    long: bool,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        let mut k = [0u64; 32];
        let long = key_schedule(key, ms, |n, e| k[n / 2] |= (e as u64) << (32 * (1 - n % 2)))?;
        Some(Key { k, long })
    }

    /// (in)-I-B-I-R5×R5-I-B-I-R3×R3-…-I-B-I-(out), §3.1.
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        let k = &self.k;
        let mut x = load(block);
        x = ibi(x, k, 0);
        x = r2(x, MASK5);
        x = ibi(x, k, 1);
        x = r2(x, MASK3);
        x = ibi(x, k, 2);
        x = r2(x, MASK5);
        x = ibi(x, k, 3);
        x = r2(x, MASK3);
        x = ibi(x, k, 4);
        x = r2(x, MASK5);
        x = ibi(x, k, 5);
        x = r2(x, MASK3);
        x = ibi(x, k, 6);
        if self.long {
            x = r2(x, MASK5);
            x = ibi(x, k, 7);
        }
        store(x, block);
    }

    /// The encryption layout backwards (§3.2); R2 is its own inverse.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let k = &self.k;
        let mut x = load(block);
        if self.long {
            x = ibi_inv(x, k, 7);
            x = r2(x, MASK5);
        }
        x = ibi_inv(x, k, 6);
        x = r2(x, MASK3);
        x = ibi_inv(x, k, 5);
        x = r2(x, MASK5);
        x = ibi_inv(x, k, 4);
        x = r2(x, MASK3);
        x = ibi_inv(x, k, 3);
        x = r2(x, MASK5);
        x = ibi_inv(x, k, 2);
        x = r2(x, MASK3);
        x = ibi_inv(x, k, 1);
        x = r2(x, MASK5);
        x = ibi_inv(x, k, 0);
        store(x, block);
    }

    /// k[0..4] big-endian, which is ek[0..8] each big-endian.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for j in 0..4 {
            out[8 * j..8 * j + 8].copy_from_slice(&self.k[j].to_be_bytes());
        }
        out
    }
}

/// The block as (a‖b, c‖d), big-endian.
#[inline(always)]
fn load(block: &[u8; 16]) -> [u64; 2] {
    let w = |j: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&block[8 * j..8 * j + 8]);
        u64::from_be_bytes(b)
    };
    [w(0), w(1)]
}

#[inline(always)]
fn store(x: [u64; 2], block: &mut [u8; 16]) {
    block[..8].copy_from_slice(&x[0].to_be_bytes());
    block[8..].copy_from_slice(&x[1].to_be_bytes());
}
