//! Hierocrypt-3 on 64-bit words: the first half of each XS-box by the
//! mdsL_ST tables of `table32`, the second S layer and MDSH merged into
//! one 8→128-bit table per input byte (sixteen, each entry two 64-bit
//! words: columns 0-1 and 2-3), so MDSH is 16 lookups of two words instead
//! of the pattern tables' 64 of one. 64 KiB a direction, beyond L1, as
//! seed 002 found its 64-bit tables to be. NOT constant time: the tables
//! are indexed by secret bytes.

use super::spec::{INV_SBOX, MH, MH_INV, SBOX};
use super::table32::{first_half, last, mask, L_ST, L_ST_INV};
use super::{DataPath, Keys};

/// U[q][x]: MDSH (or its inverse) of s(x) in byte q, as two words: byte
/// q's pattern in each output column (MDSH is binary at the byte level)
/// filled with s(x).
const fn wide(m: &[[u8; 4]; 4], sbox: &[u8; 256]) -> [[[u64; 2]; 256]; 16] {
    let mut t = [[[0u64; 2]; 256]; 16];
    let mut q = 0;
    while q < 16 {
        let lo = (mask(m, 0, q) as u64) << 32 | mask(m, 1, q) as u64;
        let hi = (mask(m, 2, q) as u64) << 32 | mask(m, 3, q) as u64;
        let mut x = 0;
        while x < 256 {
            let s = sbox[x] as u64 * 0x0101_0101_0101_0101;
            t[q][x] = [lo & s, hi & s];
            x += 1;
        }
        q += 1;
    }
    t
}

static H_WIDE: [[[u64; 2]; 256]; 16] = wide(&MH, &SBOX);
static H_WIDE_INV: [[[u64; 2]; 256]; 16] = wide(&MH_INV, &INV_SBOX);

pub const TABLE_BYTES: usize = 2 * (16 * 256 * 16 + 4 * 1024) + 2 * 256;

#[inline(always)]
fn second_half(ht: &[[[u64; 2]; 256]; 16], y: [u32; 4]) -> [u32; 4] {
    let (mut lo, mut hi) = (0u64, 0u64);
    for q in 0..16 {
        let e = &ht[q][((y[q / 4] >> (24 - 8 * (q % 4))) & 0xff) as usize];
        lo ^= e[0];
        hi ^= e[1];
    }
    [(lo >> 32) as u32, lo as u32, (hi >> 32) as u32, hi as u32]
}

pub struct Tables64;

impl DataPath for Tables64 {
    fn encrypt(k: &Keys, mut x: [u32; 4]) -> [u32; 4] {
        for r in 0..k.t - 1 {
            x = second_half(&H_WIDE, first_half(&L_ST, x, &k.a[r], &k.b[r]));
        }
        let y = first_half(&L_ST, x, &k.a[k.t - 1], &k.b[k.t - 1]);
        last(&SBOX, y, &k.a[k.t])
    }

    fn decrypt(k: &Keys, mut x: [u32; 4]) -> [u32; 4] {
        for r in 0..k.t - 1 {
            x = second_half(&H_WIDE_INV, first_half(&L_ST_INV, x, &k.da[r], &k.db[r]));
        }
        let y = first_half(&L_ST_INV, x, &k.da[k.t - 1], &k.db[k.t - 1]);
        last(&INV_SBOX, y, &k.da[k.t])
    }
}

pub type Key = super::Key<Tables64>;
