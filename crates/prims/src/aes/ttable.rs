//! AES with T-tables: SubBytes, ShiftRows and MixColumns of a round merged
//! into four 8→32-bit table lookups per column (the classic fast software
//! AES, as in LibTomCrypt and seed 002's merged tables). NOT constant time:
//! the table indices are secret, which cache-timing attacks exploit.

use super::{gmul, KeySchedule, INV_SBOX, SBOX};

const fn te0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = SBOX[i];
        t[i] = (gmul(s, 2) as u32) << 24 | (s as u32) << 16 | (s as u32) << 8 | gmul(s, 3) as u32;
        i += 1;
    }
    t
}

const fn td0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = INV_SBOX[i];
        t[i] = (gmul(s, 14) as u32) << 24
            | (gmul(s, 9) as u32) << 16
            | (gmul(s, 13) as u32) << 8
            | gmul(s, 11) as u32;
        i += 1;
    }
    t
}

const fn rot(t: [u32; 256], n: u32) -> [u32; 256] {
    let mut r = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        r[i] = t[i].rotate_right(n);
        i += 1;
    }
    r
}

static TE: [[u32; 256]; 4] = [te0(), rot(te0(), 8), rot(te0(), 16), rot(te0(), 24)];
static TD: [[u32; 256]; 4] = [td0(), rot(td0(), 8), rot(td0(), 16), rot(td0(), 24)];

/// Round keys as big-endian column words, and the equivalent inverse
/// cipher's keys (InvMixColumns applied to the inner round keys).
#[derive(Clone)]
pub struct Keys {
    rounds: usize,
    ek: [u32; 60],
    dk: [u32; 60],
}

fn words(rk: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|c| u32::from_be_bytes(rk[4 * c..4 * c + 4].try_into().expect("4")))
}

/// InvMixColumns of one column word, through Td ∘ S (Td[S[x]] = InvMix of x
/// placed in row 0).
fn inv_mix(w: u32) -> u32 {
    let b = w.to_be_bytes();
    TD[0][SBOX[b[0] as usize] as usize]
        ^ TD[1][SBOX[b[1] as usize] as usize]
        ^ TD[2][SBOX[b[2] as usize] as usize]
        ^ TD[3][SBOX[b[3] as usize] as usize]
}

impl Keys {
    pub fn new(ks: &KeySchedule) -> Keys {
        let nr = ks.rounds;
        let mut ek = [0u32; 60];
        let mut dk = [0u32; 60];
        for r in 0..=nr {
            ek[4 * r..4 * r + 4].copy_from_slice(&words(&ks.rk[r]));
        }
        for r in 0..=nr {
            let src = words(&ks.rk[nr - r]);
            for c in 0..4 {
                dk[4 * r + c] = if r == 0 || r == nr {
                    src[c]
                } else {
                    inv_mix(src[c])
                };
            }
        }
        Keys { rounds: nr, ek, dk }
    }

    pub fn encrypt_block(&self, b: &mut [u8; 16]) {
        let k = &self.ek;
        let mut t = words(b);
        for c in 0..4 {
            t[c] ^= k[c];
        }
        for r in 1..self.rounds {
            let i = |w: u32, sh: u32| ((w >> sh) & 0xff) as usize;
            let mut e = [0u32; 4];
            for c in 0..4 {
                e[c] = TE[0][i(t[c], 24)]
                    ^ TE[1][i(t[(c + 1) % 4], 16)]
                    ^ TE[2][i(t[(c + 2) % 4], 8)]
                    ^ TE[3][i(t[(c + 3) % 4], 0)]
                    ^ k[4 * r + c];
            }
            t = e;
        }
        let r = self.rounds;
        let s = |w: u32, sh: u32| SBOX[((w >> sh) & 0xff) as usize] as u32;
        for c in 0..4 {
            let w = s(t[c], 24) << 24
                | s(t[(c + 1) % 4], 16) << 16
                | s(t[(c + 2) % 4], 8) << 8
                | s(t[(c + 3) % 4], 0);
            b[4 * c..4 * c + 4].copy_from_slice(&(w ^ k[4 * r + c]).to_be_bytes());
        }
    }

    pub fn decrypt_block(&self, b: &mut [u8; 16]) {
        let k = &self.dk;
        let mut t = words(b);
        for c in 0..4 {
            t[c] ^= k[c];
        }
        for r in 1..self.rounds {
            let i = |w: u32, sh: u32| ((w >> sh) & 0xff) as usize;
            let mut d = [0u32; 4];
            for c in 0..4 {
                d[c] = TD[0][i(t[c], 24)]
                    ^ TD[1][i(t[(c + 3) % 4], 16)]
                    ^ TD[2][i(t[(c + 2) % 4], 8)]
                    ^ TD[3][i(t[(c + 1) % 4], 0)]
                    ^ k[4 * r + c];
            }
            t = d;
        }
        let r = self.rounds;
        let s = |w: u32, sh: u32| INV_SBOX[((w >> sh) & 0xff) as usize] as u32;
        for c in 0..4 {
            let w = s(t[c], 24) << 24
                | s(t[(c + 3) % 4], 16) << 16
                | s(t[(c + 2) % 4], 8) << 8
                | s(t[(c + 1) % 4], 0);
            b[4 * c..4 * c + 4].copy_from_slice(&(w ^ k[4 * r + c]).to_be_bytes());
        }
    }
}
