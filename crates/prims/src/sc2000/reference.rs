//! SC2000-128/192/256 written straight from the designers' description, the
//! slow, easy-to-check reference variant. The specification followed is
//! T. Shimoyama, H. Yanami, K. Yokoyama, M. Takenaka, K. Itoh, J. Yajima,
//! N. Torii and H. Tanaka, "The Block Cipher SC2000", FSE 2001, LNCS 2355,
//! pp. 312–327 (Springer, 2002). The Fujitsu/CRYPTREC specification document
//! (`09_01jspec.pdf`, 2001-09-26) could not be reached, so section numbers are
//! the paper's:
//! - §2 notation: big-endian bit numbering (bit 0 of a value is its most
//!   significant bit), ⊞ ⊟ ⊠ are addition, subtraction and multiplication
//!   modulo 2^32, `≪1` is a rotation left by one bit;
//! - §3.1/§3.2 the encryption and decryption layouts
//!   `I-B-I-R5×R5-I-B-I-R3×R3-…-I-B-I` (7 B layers for a 128-bit key,
//!   8 for 192/256 bits), `×` being the cross connection
//!   (a, b, c, d) → (c, d, a, b);
//! - §3.3 the I function (XOR of four extended keys);
//! - §3.4 the R function: F on (c, d), its two outputs XORed into (a, b);
//!   F = L(M(S(c)), M(S(d))); S splits 32 bits as (6,5,5,5,5,6) for S6/S5;
//!   M is `a0·M[0] ⊕ … ⊕ a31·M[31]`; L(a, b) = ((a ∧ mask) ⊕ b,
//!   (b ∧ ¬mask) ⊕ a);
//! - §3.5 the B/B⁻¹ function: the T function makes thirty-two 4-bit values
//!   out of the bits of (a, b, c, d) (a giving the most significant bit of
//!   each, as Fig. 3's bitslice formulas require), each through S4 (S4i);
//! - §3.6 the key schedule: user keys uk[0..8] (a 128/192-bit key repeated),
//!   the intermediate keys a[i], b[i], c[i], d[i] and the extended keys ek[n]
//!   through the Order and Index tables;
//! - §4 the tables S6, S5, S4, S4i, M, Order and Index (transcribed once, in
//!   spec.rs).
//!
//! Lookup tables: S6 64 + S5 32 + S4 16 + S4i 16 + M 128 = 256 bytes indexed
//! by secret data, plus Order (48 bytes) and Index (36 bytes) indexed only by
//! the extended-key number.
//!
//! NOT constant time: table indices depend on the key and the data.

use super::spec::{INDEX, M, ORDER, S4, S4I, S5, S6};

/// The two masks of the R function (R5 and R3).
const MASK5: u32 = 0x5555_5555;
const MASK3: u32 = 0x3333_3333;

/// S function (§3.4): the 32 bits split as 6, 5, 5, 5, 5, 6 from the most
/// significant end, each piece through S6 or S5, put back in the same place.
fn s(x: u32) -> u32 {
    let s6 = |v: u32| S6[v as usize & 0x3f] as u32;
    let s5 = |v: u32| S5[v as usize & 0x1f] as u32;
    (s6(x >> 26) << 26)
        | (s5(x >> 21) << 21)
        | (s5(x >> 16) << 16)
        | (s5(x >> 11) << 11)
        | (s5(x >> 6) << 6)
        | s6(x)
}

/// M function (§3.4): a0·M[0] ⊕ … ⊕ a31·M[31], a0 the most significant bit.
fn m(x: u32) -> u32 {
    let mut y = 0;
    for i in 0..32 {
        let bit = (x >> (31 - i)) & 1;
        y ^= M[i] & bit.wrapping_neg();
    }
    y
}

/// M(S(x)), the composition the key schedule writes as MS.
fn ms(x: u32) -> u32 {
    m(s(x))
}

/// L function (§3.4): (a, b) → ((a ∧ mask) ⊕ b, (b ∧ ¬mask) ⊕ a).
fn l(a: u32, b: u32, mask: u32) -> (u32, u32) {
    ((a & mask) ^ b, (b & !mask) ^ a)
}

/// F function (§3.4): S then M on each input, then L.
fn f(c: u32, d: u32, mask: u32) -> (u32, u32) {
    l(ms(c), ms(d), mask)
}

/// R function (§3.4, Fig. 2): (a, b, c, d) → (a ⊕ F0(c, d), b ⊕ F1(c, d), c, d).
fn r(x: &mut [u32; 4], mask: u32) {
    let (f0, f1) = f(x[2], x[3], mask);
    x[0] ^= f0;
    x[1] ^= f1;
}

/// Cross connection `×` (§3.1): (a, b, c, d) → (c, d, a, b).
fn cross(x: &mut [u32; 4]) {
    *x = [x[2], x[3], x[0], x[1]];
}

/// `R×R` with the given mask: R, cross connection, R.
fn r_cross_r(x: &mut [u32; 4], mask: u32) {
    r(x, mask);
    cross(x);
    r(x, mask);
}

/// I function (§3.3): XOR of four extended keys.
fn i(x: &mut [u32; 4], k: &[u32]) {
    for j in 0..4 {
        x[j] ^= k[j];
    }
}

/// B function (§3.5) with S4, or B⁻¹ with S4i: T makes the 4-bit value
/// (a_j, b_j, c_j, d_j) for each bit position j (a_j most significant),
/// each goes through the S-box, and T⁻¹ puts the four output bits back in
/// bit position j of the four words.
fn b(x: &mut [u32; 4], sbox: &[u8; 16]) {
    let mut y = [0u32; 4];
    for j in 0..32 {
        let sh = 31 - j;
        let mut v = 0usize;
        for w in 0..4 {
            v = (v << 1) | ((x[w] >> sh) & 1) as usize;
        }
        let o = sbox[v] as u32;
        for w in 0..4 {
            y[w] |= ((o >> (3 - w)) & 1) << sh;
        }
    }
    *x = y;
}

/// SC2000 with an expanded key: the 56 (128-bit key) or 64 (192/256-bit key)
/// extended keys ek[n] of §3.6.
pub struct Key {
    ek: [u32; 64],
    /// Number of B layers: 7 for a 128-bit key, 8 for 192/256 bits.
    layers: usize,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        let (words, layers, num_ekey) = match key.len() {
            16 => (4, 7, 56),
            24 => (6, 8, 64),
            32 => (8, 8, 64),
            _ => return None,
        };
        // §3.6: user keys uk[0..8]; a 128-bit key gives uk[4..8] = uk[0..4],
        // a 192-bit key uk[6] = uk[0], uk[7] = uk[1].
        let mut uk = [0u32; 8];
        for j in 0..words {
            let w = &key[4 * j..4 * j + 4];
            uk[j] = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
        }
        for j in words..8 {
            uk[j] = uk[j - words];
        }

        // Intermediate-key generation function: imkey[X][i] for X = a, b,
        // c, d (0..3) and i = 0..2:
        // X[i] = MS((MS(4i + X) ⊞ MS(uk[2X])) ⊕ (MS(uk[2X + 1]) ⊠ (i + 1))).
        let mut imkey = [[0u32; 3]; 4];
        for ii in 0..3 {
            for xx in 0..4 {
                let t = ms(4 * ii as u32 + xx as u32).wrapping_add(ms(uk[2 * xx]));
                let u = ms(uk[2 * xx + 1]).wrapping_mul(ii as u32 + 1);
                imkey[xx][ii] = ms(t ^ u);
            }
        }

        // Extended-key generation function:
        // ek[n] = ((X[x] ≪1) ⊞ Y[y]) ⊕ (((Z[z] ≪1) ⊟ W[w]) ≪1).
        let mut ek = [0u32; 64];
        for n in 0..num_ekey {
            let s = n % 9;
            let t = (n + n / 36) % 12;
            let o = ORDER[t];
            let ix = INDEX[s];
            let get = |k: usize| imkey[o[k] as usize][ix[k] as usize];
            let lhs = get(0).rotate_left(1).wrapping_add(get(1));
            let rhs = get(2).rotate_left(1).wrapping_sub(get(3)).rotate_left(1);
            ek[n] = lhs ^ rhs;
        }
        Some(Key { ek, layers })
    }

    /// The mask of the `R×R` after B layer `pos` of encryption (§3.1):
    /// R5, R3, R5, … .
    fn mask(pos: usize) -> u32 {
        [MASK5, MASK3][pos % 2]
    }

    /// §3.1: layer `pos` is I with ek[8pos..8pos + 4], B, I with
    /// ek[8pos + 4..8pos + 8], then `R×R` (none after the last layer).
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        let mut x = load(block);
        for pos in 0..self.layers {
            i(&mut x, &self.ek[8 * pos..8 * pos + 4]);
            b(&mut x, &S4);
            i(&mut x, &self.ek[8 * pos + 4..8 * pos + 8]);
            if pos + 1 < self.layers {
                r_cross_r(&mut x, Self::mask(pos));
            }
        }
        store(&x, block);
    }

    /// §3.2: the same layout backwards, B⁻¹ for B, the extended keys of the
    /// I functions in reverse order of their groups of four (R×R is its own
    /// inverse).
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let mut x = load(block);
        for step in 0..self.layers {
            let pos = self.layers - 1 - step;
            i(&mut x, &self.ek[8 * pos + 4..8 * pos + 8]);
            b(&mut x, &S4I);
            i(&mut x, &self.ek[8 * pos..8 * pos + 4]);
            if pos > 0 {
                r_cross_r(&mut x, Self::mask(pos - 1));
            }
        }
        store(&x, block);
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

/// The block as four big-endian 32-bit words (a, b, c, d).
fn load(block: &[u8; 16]) -> [u32; 4] {
    let mut x = [0u32; 4];
    for j in 0..4 {
        x[j] = u32::from_be_bytes([
            block[4 * j],
            block[4 * j + 1],
            block[4 * j + 2],
            block[4 * j + 3],
        ]);
    }
    x
}

fn store(x: &[u32; 4], block: &mut [u8; 16]) {
    for j in 0..4 {
        block[4 * j..4 * j + 4].copy_from_slice(&x[j].to_be_bytes());
    }
}
