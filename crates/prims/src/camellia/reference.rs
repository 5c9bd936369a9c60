//! Camellia-128/192/256 exactly as RFC 3713 (April 2004) writes it — the
//! slow, easy-to-check reference variant:
//! - §2.2 key schedule: KL and KR from the key, KA and KB by the F-function
//!   with the constants Sigma1..Sigma6, the subkeys kw1..kw4, k1..k18 (k24)
//!   and ke1..ke4 (ke6) as halves of KL, KR, KA, KB rotated by the amounts
//!   of the RFC's list (128-bit values kept as `u128`, so `KL <<< n` is
//!   `u128::rotate_left`);
//! - §2.3.1/§2.3.2 encryption: the 18- or 24-round Feistel network with
//!   FL/FLINV after every sixth round, pre- and post-whitening;
//! - §2.3.3 decryption: the same procedure with the subkeys swapped;
//! - §2.4.1 F-function on the eight bytes t1..t8 (SBOX1 as the RFC's table,
//!   SBOX2..SBOX4 derived from it by the RFC's rotations, then the byte
//!   equations for y1..y8), §2.4.2 FL and FLINV.
//!
//! Lookup tables: SBOX1 only, 256 bytes (SBOX2..SBOX4 are computed from it).
//!
//! NOT constant time: table indices depend on the key and the data.

/// SBOX1, transcribed from RFC 3713 §2.4.1 (the table is decimal there;
/// rows 0x00..0xf0, columns 0..f).
pub(crate) const SBOX1: [u8; 256] = [
    112, 130, 44, 236, 179, 39, 192, 229, 228, 133, 87, 53, 234, 12, 174, 65, //
    35, 239, 107, 147, 69, 25, 165, 33, 237, 14, 79, 78, 29, 101, 146, 189, //
    134, 184, 175, 143, 124, 235, 31, 206, 62, 48, 220, 95, 94, 197, 11, 26, //
    166, 225, 57, 202, 213, 71, 93, 61, 217, 1, 90, 214, 81, 86, 108, 77, //
    139, 13, 154, 102, 251, 204, 176, 45, 116, 18, 43, 32, 240, 177, 132, 153, //
    223, 76, 203, 194, 52, 126, 118, 5, 109, 183, 169, 49, 209, 23, 4, 215, //
    20, 88, 58, 97, 222, 27, 17, 28, 50, 15, 156, 22, 83, 24, 242, 34, //
    254, 68, 207, 178, 195, 181, 122, 145, 36, 8, 232, 168, 96, 252, 105, 80, //
    170, 208, 160, 125, 161, 137, 98, 151, 84, 91, 30, 149, 224, 255, 100, 210, //
    16, 196, 0, 72, 163, 247, 117, 219, 138, 3, 230, 218, 9, 63, 221, 148, //
    135, 92, 131, 2, 205, 74, 144, 51, 115, 103, 246, 243, 157, 127, 191, 226, //
    82, 155, 216, 38, 200, 55, 198, 59, 129, 150, 111, 75, 19, 190, 99, 46, //
    233, 121, 167, 140, 159, 110, 188, 142, 41, 245, 249, 182, 47, 253, 180, 89, //
    120, 152, 6, 106, 231, 70, 113, 186, 212, 37, 171, 66, 136, 162, 141, 250, //
    114, 7, 185, 85, 248, 238, 172, 10, 54, 73, 42, 104, 60, 56, 241, 164, //
    64, 40, 211, 123, 187, 201, 67, 193, 21, 227, 173, 244, 119, 199, 128, 158, //
];

/// Bytes of lookup tables: SBOX1.
pub const TABLE_BYTES: usize = core::mem::size_of::<[u8; 256]>();

/// Sigma1..Sigma6 (RFC 3713 §2.2).
const SIGMA: [u64; 6] = [
    0xA09E667F3BCC908B,
    0xB67AE8584CAA73B2,
    0xC6EF372FE94F82BE,
    0x54FF53A5F1D36F1C,
    0x10E527FADE682D1D,
    0xB05688C2B3E6C1FD,
];

const MASK64: u128 = 0xffff_ffff_ffff_ffff;

fn sbox1(x: u8) -> u8 {
    SBOX1[x as usize]
}

/// SBOX2[x] = SBOX1[x] <<< 1.
fn sbox2(x: u8) -> u8 {
    sbox1(x).rotate_left(1)
}

/// SBOX3[x] = SBOX1[x] <<< 7.
fn sbox3(x: u8) -> u8 {
    sbox1(x).rotate_left(7)
}

/// SBOX4[x] = SBOX1[x <<< 1].
fn sbox4(x: u8) -> u8 {
    sbox1(x.rotate_left(1))
}

/// F(F_IN, KE), RFC 3713 §2.4.1.
fn f(f_in: u64, ke: u64) -> u64 {
    let x = f_in ^ ke;
    let t = x.to_be_bytes(); // t1 (x >> 56) .. t8 (x & MASK8)
    let t1 = sbox1(t[0]);
    let t2 = sbox2(t[1]);
    let t3 = sbox3(t[2]);
    let t4 = sbox4(t[3]);
    let t5 = sbox2(t[4]);
    let t6 = sbox3(t[5]);
    let t7 = sbox4(t[6]);
    let t8 = sbox1(t[7]);
    let y1 = t1 ^ t3 ^ t4 ^ t6 ^ t7 ^ t8;
    let y2 = t1 ^ t2 ^ t4 ^ t5 ^ t7 ^ t8;
    let y3 = t1 ^ t2 ^ t3 ^ t5 ^ t6 ^ t8;
    let y4 = t2 ^ t3 ^ t4 ^ t5 ^ t6 ^ t7;
    let y5 = t1 ^ t2 ^ t6 ^ t7 ^ t8;
    let y6 = t2 ^ t3 ^ t5 ^ t7 ^ t8;
    let y7 = t3 ^ t4 ^ t5 ^ t6 ^ t8;
    let y8 = t1 ^ t4 ^ t5 ^ t6 ^ t7;
    u64::from_be_bytes([y1, y2, y3, y4, y5, y6, y7, y8])
}

/// FL(FL_IN, KE), RFC 3713 §2.4.2.
fn fl(fl_in: u64, ke: u64) -> u64 {
    let mut x1 = (fl_in >> 32) as u32;
    let mut x2 = fl_in as u32;
    let k1 = (ke >> 32) as u32;
    let k2 = ke as u32;
    x2 ^= (x1 & k1).rotate_left(1);
    x1 ^= x2 | k2;
    ((x1 as u64) << 32) | x2 as u64
}

/// FLINV(FLINV_IN, KE), RFC 3713 §2.4.2: the inverse of FL.
fn flinv(flinv_in: u64, ke: u64) -> u64 {
    let mut y1 = (flinv_in >> 32) as u32;
    let mut y2 = flinv_in as u32;
    let k1 = (ke >> 32) as u32;
    let k2 = ke as u32;
    y1 ^= y2 | k2;
    y2 ^= (y1 & k1).rotate_left(1);
    ((y1 as u64) << 32) | y2 as u64
}

/// The left half, `(X <<< n) >> 64`.
fn hi(x: u128, n: u32) -> u64 {
    (x.rotate_left(n) >> 64) as u64
}

/// The right half, `(X <<< n) & MASK64`.
fn lo(x: u128, n: u32) -> u64 {
    (x.rotate_left(n) & MASK64) as u64
}

/// The subkeys under the RFC's names (index 0 is k1, ke1, kw1), stored
/// round subkeys first.
#[derive(Clone)]
pub struct Key {
    k: [u64; 24],
    ke: [u64; 6],
    kw: [u64; 4],
    /// 18 rounds for 128-bit keys, 24 for 192- and 256-bit keys.
    rounds: usize,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&key[8 * i..8 * i + 8]);
            u64::from_be_bytes(b)
        };
        let kl = ((word(0) as u128) << 64) | word(1) as u128;
        // §2.2: KR = 0; ((K & MASK64) << 64) | ~(K & MASK64); K & MASK128.
        let kr = match key.len() {
            16 => 0u128,
            24 => ((word(2) as u128) << 64) | !word(2) as u128,
            _ => ((word(2) as u128) << 64) | word(3) as u128, // 32 bytes
        };

        let mut d1 = ((kl ^ kr) >> 64) as u64;
        let mut d2 = ((kl ^ kr) & MASK64) as u64;
        d2 ^= f(d1, SIGMA[0]);
        d1 ^= f(d2, SIGMA[1]);
        d1 ^= (kl >> 64) as u64;
        d2 ^= (kl & MASK64) as u64;
        d2 ^= f(d1, SIGMA[2]);
        d1 ^= f(d2, SIGMA[3]);
        let ka = ((d1 as u128) << 64) | d2 as u128;
        let mut d1 = ((ka ^ kr) >> 64) as u64;
        let mut d2 = ((ka ^ kr) & MASK64) as u64;
        d2 ^= f(d1, SIGMA[4]);
        d1 ^= f(d2, SIGMA[5]);
        let kb = ((d1 as u128) << 64) | d2 as u128;

        let mut kw = [0u64; 4];
        let mut k = [0u64; 24];
        let mut ke = [0u64; 6];
        let rounds;
        if key.len() == 16 {
            rounds = 18;
            kw[0] = hi(kl, 0);
            kw[1] = lo(kl, 0);
            k[0] = hi(ka, 0);
            k[1] = lo(ka, 0);
            k[2] = hi(kl, 15);
            k[3] = lo(kl, 15);
            k[4] = hi(ka, 15);
            k[5] = lo(ka, 15);
            ke[0] = hi(ka, 30);
            ke[1] = lo(ka, 30);
            k[6] = hi(kl, 45);
            k[7] = lo(kl, 45);
            k[8] = hi(ka, 45);
            k[9] = lo(kl, 60);
            k[10] = hi(ka, 60);
            k[11] = lo(ka, 60);
            ke[2] = hi(kl, 77);
            ke[3] = lo(kl, 77);
            k[12] = hi(kl, 94);
            k[13] = lo(kl, 94);
            k[14] = hi(ka, 94);
            k[15] = lo(ka, 94);
            k[16] = hi(kl, 111);
            k[17] = lo(kl, 111);
            kw[2] = hi(ka, 111);
            kw[3] = lo(ka, 111);
        } else {
            rounds = 24;
            kw[0] = hi(kl, 0);
            kw[1] = lo(kl, 0);
            k[0] = hi(kb, 0);
            k[1] = lo(kb, 0);
            k[2] = hi(kr, 15);
            k[3] = lo(kr, 15);
            k[4] = hi(ka, 15);
            k[5] = lo(ka, 15);
            ke[0] = hi(kr, 30);
            ke[1] = lo(kr, 30);
            k[6] = hi(kb, 30);
            k[7] = lo(kb, 30);
            k[8] = hi(kl, 45);
            k[9] = lo(kl, 45);
            k[10] = hi(ka, 45);
            k[11] = lo(ka, 45);
            ke[2] = hi(kl, 60);
            ke[3] = lo(kl, 60);
            k[12] = hi(kr, 60);
            k[13] = lo(kr, 60);
            k[14] = hi(kb, 60);
            k[15] = lo(kb, 60);
            k[16] = hi(kl, 77);
            k[17] = lo(kl, 77);
            ke[4] = hi(ka, 77);
            ke[5] = lo(ka, 77);
            k[18] = hi(kr, 94);
            k[19] = lo(kr, 94);
            k[20] = hi(ka, 94);
            k[21] = lo(ka, 94);
            k[22] = hi(kl, 111);
            k[23] = lo(kl, 111);
            kw[2] = hi(kb, 111);
            kw[3] = lo(kb, 111);
        }
        Some(Key { k, ke, kw, rounds })
    }

    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        crypt(block, &self.kw, &self.k, &self.ke, self.rounds);
    }

    /// §2.3.3: encryption with kw1 <-> kw3, kw2 <-> kw4, k_i <-> k_(r+1-i)
    /// and ke_i <-> ke_(m+1-i).
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        let r = self.rounds;
        let m = r / 3 - 2; // 4 or 6 FL-subkeys
        let kw = [self.kw[2], self.kw[3], self.kw[0], self.kw[1]];
        let mut k = [0u64; 24];
        for i in 0..r {
            k[i] = self.k[r - 1 - i];
        }
        let mut ke = [0u64; 6];
        for i in 0..m {
            ke[i] = self.ke[m - 1 - i];
        }
        crypt(block, &kw, &k, &ke, r);
    }

    /// k1, k2, k3, k4, each big-endian: the round subkeys come first in
    /// this variant's storage (kw1 || kw2 is KL, the key itself).
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for i in 0..4 {
            out[8 * i..8 * i + 8].copy_from_slice(&self.k[i].to_be_bytes());
        }
        out
    }
}

/// §2.3.1 (18 rounds) and §2.3.2 (24 rounds).
fn crypt(block: &mut [u8; 16], kw: &[u64; 4], k: &[u64; 24], ke: &[u64; 6], rounds: usize) {
    let m = u128::from_be_bytes(*block);
    let mut d1 = (m >> 64) as u64;
    let mut d2 = (m & MASK64) as u64;
    d1 ^= kw[0]; // Prewhitening
    d2 ^= kw[1];
    for r in 0..rounds {
        // Rounds 1, 3, 5, ... update D2; rounds 2, 4, 6, ... update D1.
        if r % 2 == 0 {
            d2 ^= f(d1, k[r]);
        } else {
            d1 ^= f(d2, k[r]);
        }
        // FL/FLINV after rounds 6, 12 (and 18 for 24 rounds).
        if r % 6 == 5 && r + 1 < rounds {
            let i = (r + 1) / 6 - 1;
            d1 = fl(d1, ke[2 * i]);
            d2 = flinv(d2, ke[2 * i + 1]);
        }
    }
    d2 ^= kw[2]; // Postwhitening
    d1 ^= kw[3];
    let c = ((d2 as u128) << 64) | d1 as u128;
    *block = c.to_be_bytes();
}

#[cfg(test)]
mod tests {
    #[test]
    fn sbox1_example_of_rfc3713_2_4_1() {
        // "For example, SBOX1[0x3d] equals 86."
        assert_eq!(super::sbox1(0x3d), 86);
    }

    #[test]
    fn flinv_inverts_fl() {
        let (x, k) = (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        assert_eq!(super::flinv(super::fl(x, k), k), x);
    }
}
