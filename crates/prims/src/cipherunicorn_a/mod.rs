//! CIPHERUNICORN-A (NEC), seed 002's second cipher: a 16-round Feistel
//! network on two 64-bit halves whose round function runs two strands of
//! 32-bit mini-rounds (ten in the main strand, the last two chosen by the
//! temporary-key strand) built from integer multiplication, the 8→32-bit
//! function T_n (the four S-boxes on byte n of a word) and the linear A3.
//!
//! Implemented from `../shared/specs/cipherunicorn-a/` (NEC's CRYPTREC
//! specification 07_02espec.pdf could not be read; the reconstruction there
//! names its sources) and Robshaw's CRYPTREC review (2001) for A3, the MT
//! function and the round function's figure. NO OFFICIAL TEST DATA EXIST
//! anywhere reachable (the cipher never went through NESSIE): what is
//! checked instead is the S-boxes against their algebraic definition,
//! Robshaw's worked example of A3, 42 cases computed by running an
//! independent implementation (Jither/cryptopunk's, in the rotation form of
//! A3: `vectors/cipherunicorn-a-crosscheck.txt`), decryption against
//! encryption, and the variants against each other. `ango list` and `ango
//! verify` say so (`Algorithm::unofficial_check`).
//!
//! One file per variant, as seed 002 §2.3 builds them:
//! - `reference-nct`: T_n as four 8→8-bit S-box lookups assembled into a
//!   word, as the description writes it;
//! - `table32-nct`: seed 002's technique: T_n as one 8→32-bit table
//!   (T[x] = S0[x]‖S1[x]‖S2[x]‖S3[x]), one lookup instead of four.
//!
//! Both have every round and mini-round written out. Seed 002 has no
//! 64-bit variant of this cipher (its data path is 32-bit multiplications
//! and T_n on 32-bit words; only A3 is a 64-bit operation, done on one
//! word here in both). NOT constant time: the S-boxes are tables indexed
//! by secret bytes, and the last two mini-rounds pick their source byte by
//! a secret.

pub mod reference;
mod spec;
pub mod table32;

pub use spec::a3;
use spec::{C0, C1, MT_MUL};

use crate::block::{block_cipher_of, boxed, everywhere, BlockVariant};

/// How a variant computes T_n(x): the four S-boxes of byte n of x (n = 0
/// the most significant).
pub trait TFunction: Send + 'static {
    fn t(b: u8) -> u32;
}

/// T_n(x) for a byte position n (0..4) that may be a secret.
#[inline(always)]
fn tn<T: TFunction>(n: u32, x: u32) -> u32 {
    T::t((x >> (24 - 8 * n)) as u8)
}

/// The expanded key: pre- and post-whitening words and 16 rounds of four
/// words (FKa, SKa, FKb, SKb).
#[derive(Clone)]
pub struct Keys {
    ik: [u32; 8],
    rk: [[u32; 4]; 16],
}

/// MT(x0, x1): x0 ← x0 · 0x01010101; x1 ← x1 ⊕ T_0(x0).
#[inline(always)]
fn mt<T: TFunction>(w: &mut [u32], i: usize, j: usize) {
    w[i] = w[i].wrapping_mul(MT_MUL);
    w[j] ^= tn::<T>(0, w[i]);
}

/// The key schedule (the reconstruction's §"Key schedule", Robshaw §4.4,
/// Khovratovich 2012 ch. 5): MT over the key's LINE words in a ring, three
/// blank passes, then nine blocks of 8 blank steps and 8 steps that each
/// give one word; 72 words in all.
fn expand<T: TFunction>(key: &[u8]) -> Option<Keys> {
    if !matches!(key.len(), 16 | 24 | 32) {
        return None;
    }
    let line = key.len() / 4;
    let mut w = [0u32; 8];
    for (x, c) in w.iter_mut().zip(key.chunks_exact(4)) {
        *x = u32::from_be_bytes(c.try_into().expect("4"));
    }
    let w = &mut w[..line];
    for _ in 0..3 {
        for j in 0..line {
            mt::<T>(w, j, (j + 1) % line);
        }
    }
    let mut wk = [0u32; 72];
    let mut n = 0;
    for i in (0..144).step_by(16) {
        for j in i..i + 16 {
            mt::<T>(w, j % line, (j + 1) % line);
            if j >= i + 8 {
                wk[n] = w[(j + 1) % line];
                n += 1;
            }
        }
    }
    let mut k = Keys {
        ik: [
            wk[0], wk[18], wk[36], wk[54], wk[17], wk[35], wk[53], wk[71],
        ],
        rk: [[0; 4]; 16],
    };
    for (r, rk) in k.rk.iter_mut().enumerate() {
        *rk = [wk[1 + r], wk[19 + r], wk[37 + r], wk[55 + r]];
    }
    Some(k)
}

/// The round function F(XL, XR) with the round's keys (FKa, SKa, FKb,
/// SKb): the temporary-key strand (Computation II) and the main strand
/// (Computation I), every mini-round written out.
#[inline(always)]
fn f<T: TFunction>(xl: u32, xr: u32, k: &[u32; 4]) -> (u32, u32) {
    let [fka, ska, fkb, skb] = *k;
    // Computation II: the temporary key.
    let mut k0 = xr.wrapping_add(ska).wrapping_mul(C0);
    let mut k1 = xl.wrapping_add(skb);
    k1 ^= tn::<T>(0, k0);
    k1 = k1.wrapping_mul(C1);
    k0 ^= tn::<T>(0, k1);
    k0 = k0.wrapping_mul(C1);
    k1 ^= tn::<T>(0, k0);
    k1 = k1.wrapping_mul(C0);
    k0 ^= tn::<T>(0, k1);
    k1 ^= tn::<T>(1, k0);
    k0 ^= tn::<T>(1, k1);
    // Computation I: key addition, A3, ten mini-rounds.
    let (mut x0, mut x1) = a3(xl.wrapping_add(fka), xr.wrapping_add(fkb));
    x0 = x0.wrapping_mul(C0);
    x1 ^= tn::<T>(0, x0);
    x1 = x1.wrapping_mul(C1);
    x0 ^= tn::<T>(0, x1);
    x1 ^= tn::<T>(1, x0);
    x0 ^= tn::<T>(1, x1);
    x1 ^= tn::<T>(2, x0);
    x0 ^= tn::<T>(2, x1);
    x1 ^= tn::<T>(3, x0);
    x0 ^= tn::<T>(3, x1);
    // The last two take their source byte from the temporary key.
    x1 ^= tn::<T>((k1 >> 2) & 3, x0);
    x0 ^= tn::<T>(k1 & 3, x1);
    (x0 ^ k0, x1 ^ k0)
}

/// The 16 Feistel rounds between the whitenings (no swap after the last);
/// decryption takes the round keys in reverse and the whitenings swapped.
#[inline(always)]
fn crypt<T: TFunction>(k: &Keys, b: &mut [u8; 16], decrypt: bool) {
    let mut w = [0u32; 4];
    for (x, c) in w.iter_mut().zip(b.chunks_exact(4)) {
        *x = u32::from_be_bytes(c.try_into().expect("4"));
    }
    let (pre, post) = if decrypt {
        (&k.ik[4..], &k.ik[..4])
    } else {
        (&k.ik[..4], &k.ik[4..])
    };
    for (x, p) in w.iter_mut().zip(pre) {
        *x = x.wrapping_add(*p);
    }
    macro_rules! rounds {
        ($($r:literal)+) => {$(
            let rk = &k.rk[if decrypt { 15 - $r } else { $r }];
            let (f0, f1) = f::<T>(w[2], w[3], rk);
            if $r == 15 {
                w[0] ^= f0;
                w[1] ^= f1;
            } else {
                w = [w[2], w[3], w[0] ^ f0, w[1] ^ f1];
            }
        )+};
    }
    rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    for (x, p) in w.iter_mut().zip(post) {
        *x = x.wrapping_sub(*p);
    }
    for (c, x) in b.chunks_exact_mut(4).zip(w) {
        c.copy_from_slice(&x.to_be_bytes());
    }
}

/// One variant's keyed cipher.
pub struct Key<T> {
    k: Keys,
    t: std::marker::PhantomData<T>,
}

impl<T: TFunction> Key<T> {
    pub fn new(key: &[u8]) -> Option<Self> {
        Some(Key {
            k: expand::<T>(key)?,
            t: std::marker::PhantomData,
        })
    }

    pub fn encrypt_block(&self, b: &mut [u8; 16]) {
        crypt::<T>(&self.k, b, false)
    }

    pub fn decrypt_block(&self, b: &mut [u8; 16]) {
        crypt::<T>(&self.k, b, true)
    }

    /// The pre-whitening words, then the first round's keys.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        let words = self.k.ik[..4].iter().chain(self.k.rk[0].iter());
        for (o, w) in out.chunks_exact_mut(4).zip(words) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

block_cipher_of!(reference::Key, table32::Key);

/// CIPHERUNICORN-A's variants, slowest first: the last one a CPU runs is
/// the automatic choice.
pub const VARIANTS: &[BlockVariant] = &[
    BlockVariant {
        name: "reference-nct",
        needs: &[],
        available: everywhere,
        // S0..S3.
        table_bytes: 4 * 256,
        about: "NEC's description: T_n as four S-box lookups, no official test data (checked \
                by the S-boxes' definition, A3's worked example, round trips, agreement)",
        make: |k| boxed(reference::Key::new(k)),
    },
    BlockVariant {
        name: "table32-nct",
        needs: &[],
        available: everywhere,
        // T[x] = S0‖S1‖S2‖S3.
        table_bytes: 256 * 4,
        about: "seed 002: T_n as one 8→32-bit table, rounds and mini-rounds inlined; no \
                official test data",
        make: |k| boxed(table32::Key::new(k)),
    },
];
