//! Camellia-128/192/256, "32-bit fast": the S- and P-functions merged into
//! four 8→32-bit tables, the F-function computed on 32-bit halves as in NTT
//! and Mitsubishi Electric's "Specification of Camellia — a 128-bit Block
//! Cipher" (version 2.0, September 26, 2001), Appendix C.2.7, "32-bit
//! processor", equation (5):
//!
//! ```text
//! SP1110(y) = (s1(y), s1(y), s1(y), 0)     SP0222(y) = (0, s2(y), s2(y), s2(y))
//! SP3033(y) = (s3(y), 0, s3(y), s3(y))     SP4404(y) = (s4(y), s4(y), 0, s4(y))
//! D = SP1110(y8) ^ SP0222(y5) ^ SP3033(y6) ^ SP4404(y7)
//! U = SP1110(y1) ^ SP0222(y2) ^ SP3033(y3) ^ SP4404(y4)
//! (z'1, z'2, z'3, z'4) = D ^ U
//! (z'5, z'6, z'7, z'8) = (z'1, z'2, z'3, z'4) ^ (U >>> 8)
//! ```
//!
//! (8 lookups, 8 XORs, 1 rotation per round). The tables are built at
//! compile time from SBOX1 (RFC 3713 §2.4.1) and the definitions s2 = s1 <<< 1,
//! s3 = s1 <<< 7, s4(x) = s1(x <<< 1). Every round, FL/FLINV layer and
//! whitening step is written out by macros (no loop); decryption reads the
//! one stored schedule backwards (RFC 3713 §2.3.3).
//!
//! The key schedule (RFC 3713 §2.2) works on 32-bit words: 128-bit values are
//! `[u32; 4]`, rotations are word moves plus shifts. It uses the XOR
//! cancellation of the specification's C.1.3 (KL is never XORed in and out
//! again: the input of the third key-schedule round is
//! `(KRL ^ F(KLR ^ R, Σ2), R)` with `R = KRR ^ F(KLL ^ KRL, Σ1)`, KR = 0 for
//! 128-bit keys) and, for 192/256-bit keys, C.1.5: (kl5, kl6) — the RFC's
//! ke5, ke6 — are (k11, k12) <<< 32, a move of 32-bit words.
//!
//! Lookup tables: 4 × 256 × 4 = 4096 bytes (SBOX1 is used only at compile
//! time to build them).
//!
//! NOT constant time: table indices depend on the key and the data.

// SBOX1 of RFC 3713 §2.4.1 (used only to build the tables), kept once in
// `reference.rs`.
use super::reference::SBOX1;

/// One of the tables of equation (5): s_`which`(y) in the bytes of `mask`
/// (0xff in a byte of `mask` selects it).
const fn sp_table(which: u8, mask: u32) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut y = 0;
    while y < 256 {
        let s = match which {
            1 => SBOX1[y],
            2 => SBOX1[y].rotate_left(1),
            3 => SBOX1[y].rotate_left(7),
            _ => SBOX1[(y as u8).rotate_left(1) as usize],
        };
        t[y] = (s as u32 * 0x0101_0101) & mask;
        y += 1;
    }
    t
}

static SP1110: [u32; 256] = sp_table(1, 0xffff_ff00);
static SP0222: [u32; 256] = sp_table(2, 0x00ff_ffff);
static SP3033: [u32; 256] = sp_table(3, 0xff00_ffff);
static SP4404: [u32; 256] = sp_table(4, 0xffff_00ff);

/// Bytes of lookup tables: SP1110, SP0222, SP3033, SP4404.
pub const TABLE_BYTES: usize = 4 * core::mem::size_of::<[u32; 256]>();

/// Sigma1..Sigma6 (RFC 3713 §2.2), each as its left and right 32-bit
/// halves, laid out like subkeys so that `round!` can take them.
const SIGMA: [u32; 12] = [
    0xA09E667F, 0x3BCC908B, // Sigma1
    0xB67AE858, 0x4CAA73B2, // Sigma2
    0xC6EF372F, 0xE94F82BE, // Sigma3
    0x54FF53A5, 0xF1D36F1C, // Sigma4
    0x10E527FA, 0xDE682D1D, // Sigma5
    0xB05688C2, 0xB3E6C1FD, // Sigma6
];

/// F(X, k) = P(S(X ^ k)) on the halves (x0, x1) by equation (5).
#[inline(always)]
fn f(x0: u32, x1: u32, k0: u32, k1: u32) -> (u32, u32) {
    let t0 = x0 ^ k0; // y1 y2 y3 y4
    let t1 = x1 ^ k1; // y5 y6 y7 y8
    let u = SP1110[(t0 >> 24) as usize]
        ^ SP0222[(t0 >> 16) as u8 as usize]
        ^ SP3033[(t0 >> 8) as u8 as usize]
        ^ SP4404[t0 as u8 as usize];
    let d = SP1110[t1 as u8 as usize]
        ^ SP0222[(t1 >> 24) as usize]
        ^ SP3033[(t1 >> 16) as u8 as usize]
        ^ SP4404[(t1 >> 8) as u8 as usize];
    let z = d ^ u;
    (z, z ^ u.rotate_right(8))
}

/// `(r0, r1) ^= F((l0, l1), subkey j)`; subkey j is words 2j, 2j+1 of `k`.
macro_rules! round {
    ($l0:ident, $l1:ident, $r0:ident, $r1:ident, $k:ident, $j:expr) => {{
        let (z0, z1) = f($l0, $l1, $k[2 * $j], $k[2 * $j + 1]);
        $r0 ^= z0;
        $r1 ^= z1;
    }};
}

/// Six rounds: D2 ^= F(D1, a), D1 ^= F(D2, b), ... with the subkey indices.
macro_rules! six_rounds {
    ($a0:ident, $a1:ident, $b0:ident, $b1:ident, $k:ident,
     $i1:expr, $i2:expr, $i3:expr, $i4:expr, $i5:expr, $i6:expr) => {
        round!($a0, $a1, $b0, $b1, $k, $i1);
        round!($b0, $b1, $a0, $a1, $k, $i2);
        round!($a0, $a1, $b0, $b1, $k, $i3);
        round!($b0, $b1, $a0, $a1, $k, $i4);
        round!($a0, $a1, $b0, $b1, $k, $i5);
        round!($b0, $b1, $a0, $a1, $k, $i6);
    };
}

/// D1 = FL(D1, subkey i), D2 = FLINV(D2, subkey j) (RFC 3713 §2.4.2).
macro_rules! fl_layer {
    ($a0:ident, $a1:ident, $b0:ident, $b1:ident, $k:ident, $i:expr, $j:expr) => {
        $a1 ^= ($a0 & $k[2 * $i]).rotate_left(1);
        $a0 ^= $a1 | $k[2 * $i + 1];
        $b0 ^= $b1 | $k[2 * $j + 1];
        $b1 ^= ($b0 & $k[2 * $j]).rotate_left(1);
    };
}

/// `x <<< n` for a 128-bit value held as four big-endian-ordered words.
fn rot(x: [u32; 4], n: u32) -> [u32; 4] {
    let w = (n / 32) as usize;
    let b = n % 32;
    let mut out = [0u32; 4];
    for i in 0..4 {
        let a = x[(i + w) % 4];
        let c = x[(i + w + 1) % 4];
        out[i] = if b == 0 {
            a
        } else {
            (a << b) | (c >> (32 - b))
        };
    }
    out
}

/// Where the whitening keys kw1..kw4 start (subkey index) for 128-bit and
/// for 192/256-bit keys.
const S_KW: usize = 22;
const L_KW: usize = 30;

/// The subkeys, 64 bits each as two words (subkey j is words 2j, 2j+1):
/// first the round and FL subkeys in the order encryption uses them, k1..k6,
/// ke1 ke2, k7..k12, ke3 ke4, k13..k18 (and ke5 ke6, k19..k24 for 192/256-bit
/// keys), then kw1..kw4. (kw1 || kw2 is KL, the key itself, so a schedule
/// that began with them would hand `schedule_bytes` the key back.)
#[derive(Clone)]
pub struct Key {
    k: [u32; 68],
    long: bool,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let w = |i: usize| {
            u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
        };
        let kl = [w(0), w(1), w(2), w(3)];
        let kr = match key.len() {
            16 => [0; 4],
            24 => [w(4), w(5), !w(4), !w(5)],
            _ => [w(4), w(5), w(6), w(7)], // 32 bytes
        };
        let long = key.len() != 16;

        // KA (C.1.3: the first two rounds' KL cancels against the XOR of KL).
        let (s0, s1) = f(kl[0] ^ kr[0], kl[1] ^ kr[1], SIGMA[0], SIGMA[1]);
        let (mut d2_0, mut d2_1) = (kr[2] ^ s0, kr[3] ^ s1);
        let (s0, s1) = f(kl[2] ^ d2_0, kl[3] ^ d2_1, SIGMA[2], SIGMA[3]);
        let (mut d1_0, mut d1_1) = (kr[0] ^ s0, kr[1] ^ s1);
        round!(d1_0, d1_1, d2_0, d2_1, SIGMA, 2);
        round!(d2_0, d2_1, d1_0, d1_1, SIGMA, 3);
        let ka = [d1_0, d1_1, d2_0, d2_1];

        let mut k = [0u32; 68];
        let mut put = |j: usize, q: [u32; 4], half: usize| {
            k[2 * j] = q[2 * half];
            k[2 * j + 1] = q[2 * half + 1];
        };
        if !long {
            put(0, ka, 0); // k1
            put(1, ka, 1); // k2
            let t = rot(kl, 15);
            put(2, t, 0); // k3
            put(3, t, 1); // k4
            let t = rot(ka, 15);
            put(4, t, 0); // k5
            put(5, t, 1); // k6
            let t = rot(ka, 30);
            put(6, t, 0); // ke1
            put(7, t, 1); // ke2
            let t = rot(kl, 45);
            put(8, t, 0); // k7
            put(9, t, 1); // k8
            put(10, rot(ka, 45), 0); // k9
            put(11, rot(kl, 60), 1); // k10
            let t = rot(ka, 60);
            put(12, t, 0); // k11
            put(13, t, 1); // k12
            let t = rot(kl, 77);
            put(14, t, 0); // ke3
            put(15, t, 1); // ke4
            let t = rot(kl, 94);
            put(16, t, 0); // k13
            put(17, t, 1); // k14
            let t = rot(ka, 94);
            put(18, t, 0); // k15
            put(19, t, 1); // k16
            let t = rot(kl, 111);
            put(20, t, 0); // k17
            put(21, t, 1); // k18
            let t = rot(ka, 111);
            put(S_KW, kl, 0); // kw1
            put(S_KW + 1, kl, 1); // kw2
            put(S_KW + 2, t, 0); // kw3
            put(S_KW + 3, t, 1); // kw4
        } else {
            // KB: two more rounds on KA ^ KR.
            let (mut b0, mut b1, mut b2, mut b3) =
                (ka[0] ^ kr[0], ka[1] ^ kr[1], ka[2] ^ kr[2], ka[3] ^ kr[3]);
            round!(b0, b1, b2, b3, SIGMA, 4);
            round!(b2, b3, b0, b1, SIGMA, 5);
            let kb = [b0, b1, b2, b3];
            put(0, kb, 0); // k1
            put(1, kb, 1); // k2
            let t = rot(kr, 15);
            put(2, t, 0); // k3
            put(3, t, 1); // k4
            let t = rot(ka, 15);
            put(4, t, 0); // k5
            put(5, t, 1); // k6
            let t = rot(kr, 30);
            put(6, t, 0); // ke1
            put(7, t, 1); // ke2
            let t = rot(kb, 30);
            put(8, t, 0); // k7
            put(9, t, 1); // k8
            let t = rot(kl, 45);
            put(10, t, 0); // k9
            put(11, t, 1); // k10
            let ka45 = rot(ka, 45);
            put(12, ka45, 0); // k11
            put(13, ka45, 1); // k12
            let t = rot(kl, 60);
            put(14, t, 0); // ke3
            put(15, t, 1); // ke4
            let t = rot(kr, 60);
            put(16, t, 0); // k13
            put(17, t, 1); // k14
            let t = rot(kb, 60);
            put(18, t, 0); // k15
            put(19, t, 1); // k16
            let t = rot(kl, 77);
            put(20, t, 0); // k17
            put(21, t, 1); // k18

            // C.1.5: (ke5, ke6) = (k11, k12) <<< 32, i.e. KA <<< 77.
            let t = ka_45_to_77(ka45);
            put(22, t, 0); // ke5
            put(23, t, 1); // ke6
            let t = rot(kr, 94);
            put(24, t, 0); // k19
            put(25, t, 1); // k20
            let t = rot(ka, 94);
            put(26, t, 0); // k21
            put(27, t, 1); // k22
            let t = rot(kl, 111);
            put(28, t, 0); // k23
            put(29, t, 1); // k24
            let t = rot(kb, 111);
            put(L_KW, kl, 0); // kw1
            put(L_KW + 1, kl, 1); // kw2
            put(L_KW + 2, t, 0); // kw3
            put(L_KW + 3, t, 1); // kw4
        }
        Some(Key { k, long })
    }

    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        let k = &self.k;
        let w = 2 * if self.long { L_KW } else { S_KW }; // word of kw1
        let [mut l0, mut l1, mut r0, mut r1] = load(block);
        l0 ^= k[w]; // kw1
        l1 ^= k[w + 1];
        r0 ^= k[w + 2]; // kw2
        r1 ^= k[w + 3];
        six_rounds!(l0, l1, r0, r1, k, 0, 1, 2, 3, 4, 5);
        fl_layer!(l0, l1, r0, r1, k, 6, 7);
        six_rounds!(l0, l1, r0, r1, k, 8, 9, 10, 11, 12, 13);
        fl_layer!(l0, l1, r0, r1, k, 14, 15);
        six_rounds!(l0, l1, r0, r1, k, 16, 17, 18, 19, 20, 21);
        if self.long {
            fl_layer!(l0, l1, r0, r1, k, 22, 23);
            six_rounds!(l0, l1, r0, r1, k, 24, 25, 26, 27, 28, 29);
        }
        // Postwhitening: D2 ^= kw3, D1 ^= kw4; C = D2 || D1.
        r0 ^= k[w + 4];
        r1 ^= k[w + 5];
        l0 ^= k[w + 6];
        l1 ^= k[w + 7];
        store(block, [r0, r1, l0, l1]);
    }

    /// RFC 3713 §2.3.3: the encryption procedure with the subkeys in reverse
    /// order (kw3 kw4 first, kw1 kw2 last, FL with ke4 (ke6) first).
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let k = &self.k;
        let w = 2 * if self.long { L_KW } else { S_KW }; // word of kw1
        let [mut l0, mut l1, mut r0, mut r1] = load(block);
        l0 ^= k[w + 4]; // kw3
        l1 ^= k[w + 5];
        r0 ^= k[w + 6]; // kw4
        r1 ^= k[w + 7];
        if self.long {
            six_rounds!(l0, l1, r0, r1, k, 29, 28, 27, 26, 25, 24);
            fl_layer!(l0, l1, r0, r1, k, 23, 22);
        }
        six_rounds!(l0, l1, r0, r1, k, 21, 20, 19, 18, 17, 16);
        fl_layer!(l0, l1, r0, r1, k, 15, 14);
        six_rounds!(l0, l1, r0, r1, k, 13, 12, 11, 10, 9, 8);
        fl_layer!(l0, l1, r0, r1, k, 7, 6);
        six_rounds!(l0, l1, r0, r1, k, 5, 4, 3, 2, 1, 0);
        r0 ^= k[w]; // kw1
        r1 ^= k[w + 1];
        l0 ^= k[w + 2]; // kw2
        l1 ^= k[w + 3];
        store(block, [r0, r1, l0, l1]);
    }

    /// The first eight stored words, k1 k2 k3 k4, big-endian.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for i in 0..8 {
            out[4 * i..4 * i + 4].copy_from_slice(&self.k[i].to_be_bytes());
        }
        out
    }
}

/// C.1.5: `(KA <<< 45) <<< 32` is a move of words.
fn ka_45_to_77(x: [u32; 4]) -> [u32; 4] {
    [x[1], x[2], x[3], x[0]]
}

fn load(block: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|i| {
        u32::from_be_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ])
    })
}

fn store(block: &mut [u8; 16], w: [u32; 4]) {
    for i in 0..4 {
        block[4 * i..4 * i + 4].copy_from_slice(&w[i].to_be_bytes());
    }
}
