//! Camellia-128/192/256, "64-bit fast": the S- and P-functions merged into
//! eight 8→64-bit tables, so the F-function is eight lookups XORed together,
//! as in NTT and Mitsubishi Electric's "Specification of Camellia — a 128-bit
//! Block Cipher" (version 2.0, September 26, 2001), Appendix C.2.7, "64-bit
//! processor", equation (3):
//!
//! ```text
//! SP1(y) = (s1, s1, s1,  0, s1,  0,  0, s1)(y)   SP5(y) = ( 0, s2, s2, s2,  0, s2, s2, s2)(y)
//! SP2(y) = ( 0, s2, s2, s2, s2, s2,  0,  0)(y)   SP6(y) = (s3,  0, s3, s3, s3,  0, s3, s3)(y)
//! SP3(y) = (s3,  0, s3, s3,  0, s3, s3,  0)(y)   SP7(y) = (s4, s4,  0, s4, s4, s4,  0, s4)(y)
//! SP4(y) = (s4, s4,  0, s4,  0,  0, s4, s4)(y)   SP8(y) = (s1, s1, s1,  0, s1, s1, s1,  0)(y)
//! (z'1, ..., z'8) = SP1(y1) ^ SP2(y2) ^ ... ^ SP8(y8)
//! ```
//!
//! Each SPi is built at compile time as P applied to s(y) alone in byte i,
//! with P, SBOX1 and s2 = s1 <<< 1, s3 = s1 <<< 7, s4(x) = s1(x <<< 1) as in
//! RFC 3713 §2.4.1. The data and the key schedule (RFC 3713 §2.2) work on
//! 64-bit words; rounds are written out by macros (no loop).
//!
//! The stored schedule holds every subkey once (seed 002; kl1, kl2, ... are
//! the specification's names of the RFC's ke1, ke2, ...): for 128-bit keys
//! k15 = (KA <<< 94)L = (KA <<< 30)R = kl2 and k16 = kl1, for 192/256-bit
//! keys k19 = (KR <<< 94)L = kl2 and k20 = kl1, so k15/k16 (k19/k20) are not
//! stored and those rounds read kl2 and kl1. 24 words (192 bytes) for
//! 128-bit keys, 32 words (256 bytes) for 192/256-bit keys; decryption reads
//! the same words in the reverse order (RFC 3713 §2.3.3). The key schedule
//! also uses the specification's C.1.3 (XOR cancellation when computing KA)
//! and C.1.5 ((kl5, kl6) = (k11, k12) <<< 32).
//!
//! Lookup tables: 8 × 256 × 8 = 16384 bytes (SBOX1 is used only at compile
//! time to build them).
//!
//! NOT constant time: table indices depend on the key and the data.

// SBOX1 of RFC 3713 §2.4.1 (used only to build the tables), kept once in
// `reference.rs`.
use super::reference::SBOX1;

/// The P-function of RFC 3713 §2.4.1 (y1..y8 from t1..t8).
const fn p(t: [u8; 8]) -> [u8; 8] {
    let [t1, t2, t3, t4, t5, t6, t7, t8] = t;
    [
        t1 ^ t3 ^ t4 ^ t6 ^ t7 ^ t8,
        t1 ^ t2 ^ t4 ^ t5 ^ t7 ^ t8,
        t1 ^ t2 ^ t3 ^ t5 ^ t6 ^ t8,
        t2 ^ t3 ^ t4 ^ t5 ^ t6 ^ t7,
        t1 ^ t2 ^ t6 ^ t7 ^ t8,
        t2 ^ t3 ^ t5 ^ t7 ^ t8,
        t3 ^ t4 ^ t5 ^ t6 ^ t8,
        t1 ^ t4 ^ t5 ^ t6 ^ t7,
    ]
}

/// SP(i+1) of equation (3): P of the S-box output of byte `i` alone. The
/// S-function applies s1, s2, s3, s4, s2, s3, s4, s1 to bytes 1..8.
const fn sp_table(i: usize) -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut y = 0;
    while y < 256 {
        let s = match i {
            0 | 7 => SBOX1[y],
            1 | 4 => SBOX1[y].rotate_left(1),
            2 | 5 => SBOX1[y].rotate_left(7),
            _ => SBOX1[(y as u8).rotate_left(1) as usize],
        };
        let mut z = [0u8; 8];
        z[i] = s;
        t[y] = u64::from_be_bytes(p(z));
        y += 1;
    }
    t
}

static SP: [[u64; 256]; 8] = [
    sp_table(0),
    sp_table(1),
    sp_table(2),
    sp_table(3),
    sp_table(4),
    sp_table(5),
    sp_table(6),
    sp_table(7),
];

/// Bytes of lookup tables: SP1..SP8.
pub const TABLE_BYTES: usize = core::mem::size_of::<[[u64; 256]; 8]>();

/// Sigma1..Sigma6 (RFC 3713 §2.2).
const SIGMA: [u64; 6] = [
    0xA09E667F3BCC908B,
    0xB67AE8584CAA73B2,
    0xC6EF372FE94F82BE,
    0x54FF53A5F1D36F1C,
    0x10E527FADE682D1D,
    0xB05688C2B3E6C1FD,
];

/// F(x, k): eight lookups of y1..y8 = the bytes of x ^ k, XORed.
#[inline(always)]
fn f(x: u64, k: u64) -> u64 {
    let y = x ^ k;
    SP[0][(y >> 56) as usize]
        ^ SP[1][(y >> 48) as u8 as usize]
        ^ SP[2][(y >> 40) as u8 as usize]
        ^ SP[3][(y >> 32) as u8 as usize]
        ^ SP[4][(y >> 24) as u8 as usize]
        ^ SP[5][(y >> 16) as u8 as usize]
        ^ SP[6][(y >> 8) as u8 as usize]
        ^ SP[7][y as u8 as usize]
}

/// FL (RFC 3713 §2.4.2) on a 64-bit word.
#[inline(always)]
fn fl(x: u64, k: u64) -> u64 {
    let mut x1 = (x >> 32) as u32;
    let mut x2 = x as u32;
    x2 ^= (x1 & (k >> 32) as u32).rotate_left(1);
    x1 ^= x2 | k as u32;
    ((x1 as u64) << 32) | x2 as u64
}

/// FLINV (RFC 3713 §2.4.2) on a 64-bit word.
#[inline(always)]
fn flinv(y: u64, k: u64) -> u64 {
    let mut y1 = (y >> 32) as u32;
    let mut y2 = y as u32;
    y1 ^= y2 | k as u32;
    y2 ^= (y1 & (k >> 32) as u32).rotate_left(1);
    ((y1 as u64) << 32) | y2 as u64
}

/// Six rounds, D2 ^= F(D1, sk[a]), D1 ^= F(D2, sk[b]), ...
macro_rules! six_rounds {
    ($d1:ident, $d2:ident, $sk:ident, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr) => {
        $d2 ^= f($d1, $sk[$a]);
        $d1 ^= f($d2, $sk[$b]);
        $d2 ^= f($d1, $sk[$c]);
        $d1 ^= f($d2, $sk[$d]);
        $d2 ^= f($d1, $sk[$e]);
        $d1 ^= f($d2, $sk[$f]);
    };
}

/// D1 = FL(D1, sk[a]), D2 = FLINV(D2, sk[b]).
macro_rules! fl_layer {
    ($d1:ident, $d2:ident, $sk:ident, $a:expr, $b:expr) => {
        $d1 = fl($d1, $sk[$a]);
        $d2 = flinv($d2, $sk[$b]);
    };
}

/// `(hi, lo) <<< n` for a 128-bit value as two 64-bit words, 0 <= n < 128.
fn rot(x: (u64, u64), n: u32) -> (u64, u64) {
    let (a, b) = if n >= 64 { (x.1, x.0) } else { x };
    let n = n % 64;
    if n == 0 {
        (a, b)
    } else {
        ((a << n) | (b >> (64 - n)), (b << n) | (a >> (64 - n)))
    }
}

// Where each subkey lives in `sk` (kl = the RFC's ke). The round and FL
// subkeys come first, in the order encryption uses them; the whitening keys
// kw1..kw4 last (kw1 || kw2 is KL, the key itself, so a schedule that began
// with them would hand `schedule_bytes` the key back).
//
// Both sizes: k1..k6 at 0..=5, kl1 kl2 at 6 and 7, k7..k12 at 8..=13,
// kl3 kl4 at 14 and 15.
const KL1: usize = 6;
const KL2: usize = 7;
// 128-bit keys: k13 k14 at 16 and 17, k15 = kl2 and k16 = kl1 not stored,
// k17 k18 at 18 and 19, kw1..kw4 at 20..=23.
const S_KW: usize = 20;
// 192/256-bit keys: k13..k18 at 16..=21, kl5 kl6 at 22 and 23, k19 = kl2
// and k20 = kl1 not stored, k21..k24 at 24..=27, kw1..kw4 at 28..=31.
const L_KW: usize = 28;

/// The subkeys, each stored once: 24 (128-bit keys) or 32 words used.
#[derive(Clone)]
pub struct Key {
    sk: [u64; 32],
    long: bool,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let w = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&key[8 * i..8 * i + 8]);
            u64::from_be_bytes(b)
        };
        let kl = (w(0), w(1));
        let kr = match key.len() {
            16 => (0, 0),
            24 => (w(2), !w(2)),
            _ => (w(2), w(3)), // 32 bytes
        };
        let long = key.len() != 16;

        // KA, with C.1.3: the input of the third round is
        // (KRL ^ F(KLR ^ R, Sigma2), R), R = KRR ^ F(KLL ^ KRL, Sigma1).
        let mut d2 = kr.1 ^ f(kl.0 ^ kr.0, SIGMA[0]);
        let mut d1 = kr.0 ^ f(kl.1 ^ d2, SIGMA[1]);
        d2 ^= f(d1, SIGMA[2]);
        d1 ^= f(d2, SIGMA[3]);
        let ka = (d1, d2);

        let mut sk = [0u64; 32];
        if !long {
            (sk[0], sk[1]) = ka; // k1 k2
            (sk[2], sk[3]) = rot(kl, 15); // k3 k4
            (sk[4], sk[5]) = rot(ka, 15); // k5 k6
            (sk[KL1], sk[KL2]) = rot(ka, 30); // kl1 kl2; k16 k15 too
            (sk[8], sk[9]) = rot(kl, 45); // k7 k8
            sk[10] = rot(ka, 45).0; // k9
            sk[11] = rot(kl, 60).1; // k10
            (sk[12], sk[13]) = rot(ka, 60); // k11 k12
            (sk[14], sk[15]) = rot(kl, 77); // kl3 kl4
            (sk[16], sk[17]) = rot(kl, 94); // k13 k14
            (sk[18], sk[19]) = rot(kl, 111); // k17 k18
            (sk[S_KW], sk[S_KW + 1]) = kl; // kw1 kw2
            (sk[S_KW + 2], sk[S_KW + 3]) = rot(ka, 111); // kw3 kw4
        } else {
            // KB: two rounds on KA ^ KR with Sigma5 and Sigma6.
            let d2 = (ka.1 ^ kr.1) ^ f(ka.0 ^ kr.0, SIGMA[4]);
            let d1 = (ka.0 ^ kr.0) ^ f(d2, SIGMA[5]);
            let kb = (d1, d2);
            (sk[0], sk[1]) = kb; // k1 k2
            (sk[2], sk[3]) = rot(kr, 15); // k3 k4
            (sk[4], sk[5]) = rot(ka, 15); // k5 k6
            (sk[KL1], sk[KL2]) = rot(kr, 30); // kl1 kl2; k20 k19 too
            (sk[8], sk[9]) = rot(kb, 30); // k7 k8
            (sk[10], sk[11]) = rot(kl, 45); // k9 k10
            let (k11, k12) = rot(ka, 45);
            (sk[12], sk[13]) = (k11, k12); // k11 k12
            (sk[14], sk[15]) = rot(kl, 60); // kl3 kl4
            (sk[16], sk[17]) = rot(kr, 60); // k13 k14
            (sk[18], sk[19]) = rot(kb, 60); // k15 k16
            (sk[20], sk[21]) = rot(kl, 77); // k17 k18

            // C.1.5: (kl5, kl6) = (k11, k12) <<< 32 = KA <<< 77.
            sk[22] = (k11 << 32) | (k12 >> 32); // kl5
            sk[23] = (k12 << 32) | (k11 >> 32); // kl6
            (sk[24], sk[25]) = rot(ka, 94); // k21 k22
            (sk[26], sk[27]) = rot(kl, 111); // k23 k24
            (sk[L_KW], sk[L_KW + 1]) = kl; // kw1 kw2
            (sk[L_KW + 2], sk[L_KW + 3]) = rot(kb, 111); // kw3 kw4
        }
        Some(Key { sk, long })
    }

    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        let sk = &self.sk;
        let (mut d1, mut d2) = load(block);
        if self.long {
            d1 ^= sk[L_KW]; // kw1
            d2 ^= sk[L_KW + 1]; // kw2
        } else {
            d1 ^= sk[S_KW];
            d2 ^= sk[S_KW + 1];
        }
        six_rounds!(d1, d2, sk, 0, 1, 2, 3, 4, 5);
        fl_layer!(d1, d2, sk, KL1, KL2);
        six_rounds!(d1, d2, sk, 8, 9, 10, 11, 12, 13);
        fl_layer!(d1, d2, sk, 14, 15);
        if self.long {
            six_rounds!(d1, d2, sk, 16, 17, 18, 19, 20, 21);
            fl_layer!(d1, d2, sk, 22, 23);
            // k19 = kl2, k20 = kl1.
            six_rounds!(d1, d2, sk, KL2, KL1, 24, 25, 26, 27);
            d2 ^= sk[L_KW + 2]; // kw3
            d1 ^= sk[L_KW + 3]; // kw4
        } else {
            // k15 = kl2, k16 = kl1.
            six_rounds!(d1, d2, sk, 16, 17, KL2, KL1, 18, 19);
            d2 ^= sk[S_KW + 2];
            d1 ^= sk[S_KW + 3];
        }
        store(block, d2, d1);
    }

    /// RFC 3713 §2.3.3: encryption with the subkeys swapped end for end.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let sk = &self.sk;
        let (mut d1, mut d2) = load(block);
        let w = if self.long {
            d1 ^= sk[L_KW + 2]; // kw3
            d2 ^= sk[L_KW + 3]; // kw4
            six_rounds!(d1, d2, sk, 27, 26, 25, 24, KL1, KL2);
            fl_layer!(d1, d2, sk, 23, 22);
            six_rounds!(d1, d2, sk, 21, 20, 19, 18, 17, 16);
            L_KW
        } else {
            d1 ^= sk[S_KW + 2];
            d2 ^= sk[S_KW + 3];
            six_rounds!(d1, d2, sk, 19, 18, KL1, KL2, 17, 16);
            S_KW
        };
        fl_layer!(d1, d2, sk, 15, 14);
        six_rounds!(d1, d2, sk, 13, 12, 11, 10, 9, 8);
        fl_layer!(d1, d2, sk, KL2, KL1);
        six_rounds!(d1, d2, sk, 5, 4, 3, 2, 1, 0);
        d2 ^= sk[w]; // kw1
        d1 ^= sk[w + 1]; // kw2
        store(block, d2, d1);
    }

    /// The first four stored words, k1 k2 k3 k4, big-endian.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for i in 0..4 {
            out[8 * i..8 * i + 8].copy_from_slice(&self.sk[i].to_be_bytes());
        }
        out
    }
}

fn load(block: &[u8; 16]) -> (u64, u64) {
    let m = u128::from_be_bytes(*block);
    ((m >> 64) as u64, m as u64)
}

fn store(block: &mut [u8; 16], hi: u64, lo: u64) {
    *block = (((hi as u128) << 64) | lo as u128).to_be_bytes();
}
