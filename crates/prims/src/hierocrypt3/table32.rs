//! Hierocrypt-3 with seed 002's 32-bit tables (§2.4.3-2.4.4):
//! - mdsL_ST: S and mdsL merged, four 8→32-bit tables (column i of mdsL
//!   times S(x)), so an XS-box's first half is four lookups;
//! - MDSH_ST: the second S and MDSH merged. MDSH is binary at the byte
//!   level, so each (input byte, output column) pair contributes S(x) to
//!   some of the column's bytes: a 4-byte pattern. The 64 pairs have only
//!   seven distinct non-zero patterns (the seed's count, checked in a
//!   test), one 8→32-bit table each.
//!
//! Decryption has the same shape (the equivalent inverse cipher): tables
//! of S⁻¹∘mdsL⁻¹ and S⁻¹∘MDSH⁻¹ and the key schedule's transformed keys.
//! NOT constant time: the tables are indexed by secret bytes.

use super::spec::{cmul, l_column, INV_SBOX, MH, MH_INV, ML, ML_INV, SBOX};
use super::{DataPath, Keys};

/// S (or S⁻¹) then mdsL (or its inverse): T[i][x] = column i × s(x).
const fn l_tables(m: &[[u8; 4]; 4], sbox: &[u8; 256]) -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    let mut i = 0;
    while i < 4 {
        let mut x = 0;
        while x < 256 {
            t[i][x] = l_column(m, i, sbox[x]);
            x += 1;
        }
        i += 1;
    }
    t
}

pub(super) static L_ST: [[u32; 256]; 4] = l_tables(&ML, &SBOX);
pub(super) static L_ST_INV: [[u32; 256]; 4] = l_tables(&ML_INV, &INV_SBOX);

/// The byte pattern of input byte q (column q/4, byte q%4) in output
/// column i of MDSH (or its inverse): 0xff where S(x) lands, 0 elsewhere.
pub(super) const fn mask(m: &[[u8; 4]; 4], i: usize, q: usize) -> u32 {
    cmul(m[i][q / 4], 0xff << (24 - 8 * (q % 4)))
}

/// The distinct non-zero patterns of a matrix and, per (output column,
/// input byte), which one (`NONE` for none).
pub(super) struct Patterns {
    pub pats: [u32; 16],
    pub count: usize,
    pub idx: [[u8; 16]; 4],
}

pub(super) const NONE: u8 = u8::MAX;

pub(super) const fn patterns(m: &[[u8; 4]; 4]) -> Patterns {
    let mut p = Patterns {
        pats: [0; 16],
        count: 0,
        idx: [[NONE; 16]; 4],
    };
    let mut i = 0;
    while i < 4 {
        let mut q = 0;
        while q < 16 {
            let v = mask(m, i, q);
            if v != 0 {
                let mut k = 0;
                while k < p.count && p.pats[k] != v {
                    k += 1;
                }
                if k == p.count {
                    p.pats[k] = v;
                    p.count += 1;
                }
                p.idx[i][q] = k as u8;
            }
            q += 1;
        }
        i += 1;
    }
    p
}

const H_PATS: Patterns = patterns(&MH);
const H_PATS_INV: Patterns = patterns(&MH_INV);
/// MDSH's distinct patterns: seven (the seed's count; `patterns` finds
/// them and a test checks the number), and MDSH⁻¹'s.
const NH: usize = H_PATS.count;
const NH_INV: usize = H_PATS_INV.count;

/// MDSH_ST: the pattern's bytes set to s(x).
const fn h_tables<const N: usize>(p: &Patterns, sbox: &[u8; 256]) -> [[u32; 256]; N] {
    let mut t = [[0u32; 256]; N];
    let mut k = 0;
    while k < N {
        let mut x = 0;
        while x < 256 {
            t[k][x] = p.pats[k] & (sbox[x] as u32 * 0x0101_0101);
            x += 1;
        }
        k += 1;
    }
    t
}

static H_ST: [[u32; 256]; NH] = h_tables(&H_PATS, &SBOX);
static H_ST_INV: [[u32; 256]; NH_INV] = h_tables(&H_PATS_INV, &INV_SBOX);

pub const TABLE_BYTES: usize = 2 * 4 * 1024 + (NH + NH_INV) * 1024 + 2 * 256;

/// The first half of the four XS-boxes: key, S∘mdsL by table, key.
#[inline(always)]
pub(super) fn first_half(
    lt: &[[u32; 256]; 4],
    x: [u32; 4],
    a: &[u32; 4],
    b: &[u32; 4],
) -> [u32; 4] {
    core::array::from_fn(|j| {
        let t = x[j] ^ a[j];
        lt[0][(t >> 24) as usize]
            ^ lt[1][(t >> 16) as usize & 0xff]
            ^ lt[2][(t >> 8) as usize & 0xff]
            ^ lt[3][t as usize & 0xff]
            ^ b[j]
    })
}

/// The second S layer and MDSH (or their inverses) by the pattern tables.
#[inline(always)]
fn second_half<const N: usize>(ht: &[[u32; 256]; N], p: &Patterns, y: [u32; 4]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for (i, o) in out.iter_mut().enumerate() {
        for q in 0..16 {
            let k = p.idx[i][q];
            if k != NONE {
                let byte = (y[q / 4] >> (24 - 8 * (q % 4))) as u8;
                *o ^= ht[k as usize][byte as usize];
            }
        }
    }
    out
}

/// The last round's second S layer and final key.
#[inline(always)]
pub(super) fn last(sbox: &[u8; 256], y: [u32; 4], k: &[u32; 4]) -> [u32; 4] {
    core::array::from_fn(|j| {
        u32::from_be_bytes(y[j].to_be_bytes().map(|b| sbox[b as usize])) ^ k[j]
    })
}

pub struct Tables32;

impl DataPath for Tables32 {
    fn encrypt(k: &Keys, mut x: [u32; 4]) -> [u32; 4] {
        for r in 0..k.t - 1 {
            x = second_half(&H_ST, &H_PATS, first_half(&L_ST, x, &k.a[r], &k.b[r]));
        }
        let y = first_half(&L_ST, x, &k.a[k.t - 1], &k.b[k.t - 1]);
        last(&SBOX, y, &k.a[k.t])
    }

    fn decrypt(k: &Keys, mut x: [u32; 4]) -> [u32; 4] {
        for r in 0..k.t - 1 {
            x = second_half(
                &H_ST_INV,
                &H_PATS_INV,
                first_half(&L_ST_INV, x, &k.da[r], &k.db[r]),
            );
        }
        let y = first_half(&L_ST_INV, x, &k.da[k.t - 1], &k.db[k.t - 1]);
        last(&INV_SBOX, y, &k.da[k.t])
    }
}

pub type Key = super::Key<Tables32>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 002 §2.4.4: MDSH's 64 column vectors have seven distinct
    /// kinds.
    #[test]
    fn mdsh_has_seven_column_patterns() {
        assert_eq!(NH, 7);
    }
}
