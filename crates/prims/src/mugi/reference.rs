//! MUGI straight from the specification's description (§4): the state
//! `a` and the buffer `b` as arrays of units, F by S-box lookups and AES's
//! MixColumns computed with xtime, every buffer word moved one place per
//! round as `lambda` is written. The word-moving state machine is generic
//! over F, so `table32-nct` and `table64-moving-nct` differ from this file
//! only in F. NOT constant time: the S-box is a table indexed by secret
//! bytes.

use super::{input_a2, state_bytes, units, xtime, C};
use crate::aes::SBOX;
use crate::block::Keystream64;
use std::marker::PhantomData;

/// MixColumns of one column p0..p3 (p0 the most significant byte).
fn mix(p: [u8; 4]) -> [u8; 4] {
    let d = p.map(xtime);
    [
        d[0] ^ d[1] ^ p[1] ^ p[2] ^ p[3],
        p[0] ^ d[1] ^ d[2] ^ p[2] ^ p[3],
        p[0] ^ p[1] ^ d[2] ^ d[3] ^ p[3],
        d[0] ^ p[0] ^ p[1] ^ p[2] ^ d[3],
    ]
}

/// MUGI's F function, F(X, B) as one variant computes it.
pub trait FFunction: Send + 'static {
    fn f(x: u64, b: u64) -> u64;
}

/// F as the description writes it.
pub struct Computed;

impl FFunction for Computed {
    /// The S-box on every byte of X ⊕ B, MixColumns on each half, the bytes
    /// reordered Q4 Q5 Q2 Q3 Q0 Q1 Q6 Q7.
    fn f(x: u64, b: u64) -> u64 {
        let p = (x ^ b).to_be_bytes().map(|o| SBOX[o as usize]);
        let qh = mix([p[0], p[1], p[2], p[3]]);
        let ql = mix([p[4], p[5], p[6], p[7]]);
        u64::from_be_bytes([ql[0], ql[1], qh[2], qh[3], qh[0], qh[1], ql[2], ql[3]])
    }
}

/// rho: the update of `a`, given the buffer's b4 and b10.
#[inline(always)]
pub(crate) fn rho<F: FFunction>(a: [u64; 3], b4: u64, b10: u64) -> [u64; 3] {
    [
        a[1],
        a[2] ^ F::f(a[1], b4) ^ C[1],
        a[0] ^ F::f(a[1], b10.rotate_left(17)) ^ C[2],
    ]
}

/// Steps 1 and 2 of the initialisation (they never touch the buffer but
/// to fill it): `a` after the key's and the IV's rounds of rho alone, and
/// the buffer b(K).
pub(crate) fn key_and_iv<F: FFunction>(key: &[u8; 16], iv: &[u8; 16]) -> ([u64; 3], [u64; 16]) {
    let mut m = Moving::<F> {
        a: [0; 3],
        b: [0; 16],
        f: PhantomData,
    };
    m.key_input(key);
    m.iv_input(iv);
    (m.a, m.b)
}

/// MUGI's state, the buffer's words moved every round.
pub struct Moving<F> {
    pub(crate) a: [u64; 3],
    pub(crate) b: [u64; 16],
    f: PhantomData<F>,
}

/// The reference: F computed, words moved.
pub type Mugi = Moving<Computed>;

impl<F: FFunction> Moving<F> {
    pub fn new(key: &[u8; 16], iv: &[u8; 16]) -> Self {
        let mut m = Moving {
            a: [0; 3],
            b: [0; 16],
            f: PhantomData,
        };
        m.init(key, iv);
        m
    }

    /// Step 1: the key into `a`, the buffer filled by rho alone.
    pub(crate) fn key_input(&mut self, key: &[u8; 16]) {
        let [k0, k1] = units(key);
        self.a = [k0, k1, input_a2(k0, k1)];
        for i in 0..16 {
            self.a = rho::<F>(self.a, 0, 0);
            self.b[15 - i] = self.a[0];
        }
    }

    /// Step 2: the IV into `a`, mixed by 16 rounds of rho alone.
    pub(crate) fn iv_input(&mut self, iv: &[u8; 16]) {
        let [i0, i1] = units(iv);
        self.a[0] ^= i0;
        self.a[1] ^= i1;
        self.a[2] ^= input_a2(i0, i1);
        for _ in 0..16 {
            self.a = rho::<F>(self.a, 0, 0);
        }
    }

    /// One round: rho and lambda, both from the old state.
    pub(crate) fn update(&mut self) {
        let (a, b) = (self.a, self.b);
        self.a = rho::<F>(a, b[4], b[10]);
        for j in (1..16).rev() {
            self.b[j] = b[j - 1];
        }
        self.b[0] = b[15] ^ a[0];
        self.b[4] = b[3] ^ b[7];
        self.b[10] = b[9] ^ b[13].rotate_left(32);
    }

    fn init(&mut self, key: &[u8; 16], iv: &[u8; 16]) {
        self.key_input(key);
        self.iv_input(iv);
        // Step 3: the whole state mixed by 16 updates.
        for _ in 0..16 {
            self.update();
        }
    }
}

impl<F: FFunction> Keystream64 for Moving<F> {
    fn next_u64(&mut self) -> u64 {
        let out = self.a[2];
        self.update();
        out
    }

    fn reinit(&mut self, key: &[u8; 16], iv: &[u8; 16]) {
        self.init(key, iv);
    }

    fn state_bytes(&self) -> [u8; 32] {
        state_bytes(&self.a, self.b[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<u64> {
        s.split_whitespace()
            .map(|w| u64::from_str_radix(w, 16).unwrap())
            .collect()
    }

    /// Example 2 of the specification's Appendix C
    /// (`../shared/specs/mugi/test-vectors.txt`), every intermediate state.
    #[test]
    fn example_2_every_intermediate_state() {
        let key: [u8; 16] = core::array::from_fn(|i| i as u8);
        let iv: [u8; 16] = core::array::from_fn(|i| 0xf0 - 0x10 * i as u8);
        let mut m = Mugi {
            a: [0; 3],
            b: [0; 16],
            f: PhantomData,
        };
        let [k0, k1] = units(&key);
        assert_eq!(
            [k0, k1, input_a2(k0, k1)].to_vec(),
            words("0001020304050607 08090a0b0c0d0e0f 7498f5f1e727d094")
        );
        m.key_input(&key);
        assert_eq!(
            m.a.to_vec(),
            words("7dea261cb61d4fea eafb528479bb687d eb8189612089ff0b")
        );
        assert_eq!(
            m.b.to_vec(),
            words(
                "7dea261cb61d4fea bfe2485ac2696cc7 c905d08f50fa71db fd5755df9cc0ceb9
                 5cc4835080bc5321 dfbbb88c02c9c80a 591a6857e3112cee 20ead0479e63cdc3
                 2d13c00221057d8d b36b4d944f5d04cb 738177859f3210f6 c08ee4dcb2d08591
                 9c0c2097edb20067 09671cfbcfaa95fb 9724d9144c5d8926 08090a0b0c0d0e0f"
            )
        );
        // The IV's input, before its 16 rounds of rho.
        let [i0, i1] = units(&iv);
        let mut after_iv = m.a;
        after_iv[0] ^= i0;
        after_iv[1] ^= i1;
        after_iv[2] ^= input_a2(i0, i1);
        assert_eq!(
            after_iv.to_vec(),
            words("8d0af6dc06bddf6a 9a9b02c4499b787d f100cffe031d365b")
        );
        m.iv_input(&iv);
        assert_eq!(
            m.a.to_vec(),
            words("4e466dffcb92db48 f5eb67b928359d8b 5d3c31a0af9cd78f")
        );
        for _ in 0..16 {
            m.update();
        }
        assert_eq!(
            m.a.to_vec(),
            words("0ce5a4d1a0cbc0f7 316993816117e50f bc62430614b79b71")
        );
        assert_eq!(
            m.b.to_vec(),
            words(
                "d25c6643a9dabd67 e893c5b5a5b2ff2b ce840df556562dc6 4210def4ccf1b145
                 5eda7c5b0dbf1554 d3e8a809b214218a d42bcb0bb4811480 76d9c281df20192d
                 3dc6c6bc876beb72 39d84df58f8840e2 cd7fe2794367de6c 680920245819a4f5
                 f5e9e609dd8e3cc3 9cf94157cf512603 871323e1d70caa2b 0b6bb4c0466c7aba"
            )
        );
        let out: Vec<u64> = (0..8).map(|_| m.next_u64()).collect();
        assert_eq!(
            out,
            words(
                "bc62430614b79b71 71a66681c35542de 7aba5b4fb80e82d7 0b96982890b6e143
                 4930b5d033157f46 b96ed8499a282645 dbeb1ef16d329b15 34a9192c4ddcf34e"
            )
        );
    }
}
