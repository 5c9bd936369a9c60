//! AES as FIPS 197 writes it: a byte state, the 8-bit S-box as a table,
//! ShiftRows, MixColumns with xtime — the slow textbook way of seed 001
//! §4.2. NOT constant time: SubBytes indexes a table with secret bytes.

use super::{KeySchedule, INV_SBOX, SBOX};

/// Multiply by x in GF(2^8), without a branch.
#[inline(always)]
fn xtime(x: u8) -> u8 {
    (x << 1) ^ (0x1b & 0u8.wrapping_sub(x >> 7))
}

/// Multiply in GF(2^8) (b is a public constant here).
#[inline(always)]
fn mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        p ^= a & 0u8.wrapping_sub(b & 1);
        a = xtime(a);
        b >>= 1;
    }
    p
}

fn add_round_key(s: &mut [u8; 16], rk: &[u8; 16]) {
    for (x, k) in s.iter_mut().zip(rk) {
        *x ^= k;
    }
}

fn shift_rows(s: &mut [u8; 16]) {
    let t = *s;
    for c in 0..4 {
        for r in 0..4 {
            s[4 * c + r] = t[4 * ((c + r) % 4) + r];
        }
    }
}

fn inv_shift_rows(s: &mut [u8; 16]) {
    let t = *s;
    for c in 0..4 {
        for r in 0..4 {
            s[4 * ((c + r) % 4) + r] = t[4 * c + r];
        }
    }
}

fn mix_columns(s: &mut [u8; 16]) {
    for c in s.chunks_exact_mut(4) {
        let [a0, a1, a2, a3] = [c[0], c[1], c[2], c[3]];
        c[0] = xtime(a0) ^ (xtime(a1) ^ a1) ^ a2 ^ a3;
        c[1] = a0 ^ xtime(a1) ^ (xtime(a2) ^ a2) ^ a3;
        c[2] = a0 ^ a1 ^ xtime(a2) ^ (xtime(a3) ^ a3);
        c[3] = (xtime(a0) ^ a0) ^ a1 ^ a2 ^ xtime(a3);
    }
}

fn inv_mix_columns(s: &mut [u8; 16]) {
    for c in s.chunks_exact_mut(4) {
        let [a0, a1, a2, a3] = [c[0], c[1], c[2], c[3]];
        c[0] = mul(a0, 14) ^ mul(a1, 11) ^ mul(a2, 13) ^ mul(a3, 9);
        c[1] = mul(a0, 9) ^ mul(a1, 14) ^ mul(a2, 11) ^ mul(a3, 13);
        c[2] = mul(a0, 13) ^ mul(a1, 9) ^ mul(a2, 14) ^ mul(a3, 11);
        c[3] = mul(a0, 11) ^ mul(a1, 13) ^ mul(a2, 9) ^ mul(a3, 14);
    }
}

pub fn encrypt_block(ks: &KeySchedule, b: &mut [u8; 16]) {
    let nr = ks.rounds;
    add_round_key(b, &ks.rk[0]);
    for r in 1..=nr {
        for x in b.iter_mut() {
            *x = SBOX[*x as usize];
        }
        shift_rows(b);
        if r != nr {
            mix_columns(b);
        }
        add_round_key(b, &ks.rk[r]);
    }
}

pub fn decrypt_block(ks: &KeySchedule, b: &mut [u8; 16]) {
    let nr = ks.rounds;
    add_round_key(b, &ks.rk[nr]);
    for r in (0..nr).rev() {
        inv_shift_rows(b);
        for x in b.iter_mut() {
            *x = INV_SBOX[*x as usize];
        }
        add_round_key(b, &ks.rk[r]);
        if r != 0 {
            inv_mix_columns(b);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gf_mul_matches_fips197_4_2() {
        // FIPS 197 §4.2: {57} • {83} = {c1}; §4.2.1: {57} • {13} = {fe}.
        assert_eq!(super::mul(0x57, 0x83), 0xc1);
        assert_eq!(super::mul(0x57, 0x13), 0xfe);
    }
}
