//! Bitsliced AES, constant time: eight blocks at once in the bit-plane
//! representation of Käsper and Schwabe ("Faster and Timing-Attack
//! Resistant AES-GCM", CHES 2009): plane `i` (a `u128`) holds bit `i` of
//! every byte of the eight blocks, byte `L` (FIPS 197's column-major order,
//! `L = 4·column + row`) of block `k` at bit `8·L + k`.
//!
//! No table and no branch sees key or data: SubBytes is computed on the
//! planes as inversion in GF(2^8) (x^254 by four bitsliced multiplications
//! and seven linear squarings) followed by the affine map; ShiftRows is a
//! rotation of each row's lanes, MixColumns a rotation within each 32-bit
//! column plus the bitsliced xtime. (Käsper–Schwabe and Adomnicai–Peyrin's
//! fixslicing use a smaller S-box circuit; this one is derived from the
//! S-box's definition, so it is slower but needs no circuit from
//! elsewhere.) The key schedule runs the same S-box on the planes, so key
//! bytes never index a table either.

use super::KeySchedule;

/// Eight bit planes of eight blocks.
type State = [u128; 8];

/// Blocks per batch.
pub const BLOCKS: usize = 8;

/// Lanes of row `r` (bytes 4c + r), eight bits each.
const fn row_mask(r: usize) -> u128 {
    let mut m = 0u128;
    let mut c = 0;
    while c < 4 {
        m |= 0xffu128 << (8 * (4 * c + r));
        c += 1;
    }
    m
}

const ROW: [u128; 4] = [row_mask(0), row_mask(1), row_mask(2), row_mask(3)];

/// Swap the bits of `a` selected by `mask` with those `shift` places up.
#[inline(always)]
fn delta_swap(a: u64, mask: u64, shift: u32) -> u64 {
    let t = ((a >> shift) ^ a) & mask;
    a ^ t ^ (t << shift)
}

/// Transpose an 8×8 bit matrix held as eight bytes (byte j, bit i ↦ byte
/// i, bit j).
#[inline(always)]
fn transpose8(a: u64) -> u64 {
    let a = delta_swap(a, 0x00aa_00aa_00aa_00aa, 7);
    let a = delta_swap(a, 0x0000_cccc_0000_cccc, 14);
    delta_swap(a, 0x0000_0000_f0f0_f0f0, 28)
}

/// Eight blocks (128 bytes) to planes.
fn pack(blocks: &[u8; 128]) -> State {
    let mut s = [0u128; 8];
    for l in 0..16 {
        // Byte k of `g` is byte l of block k.
        let g = u64::from_le_bytes(core::array::from_fn(|k| blocks[16 * k + l]));
        // Byte i of `t` holds bit i of the eight bytes (bit k: block k).
        let t = transpose8(g);
        for (i, p) in s.iter_mut().enumerate() {
            *p |= u128::from((t >> (8 * i)) as u8) << (8 * l);
        }
    }
    s
}

/// Planes back to eight blocks.
fn unpack(s: &State, blocks: &mut [u8; 128]) {
    for l in 0..16 {
        let t = (0..8).fold(0u64, |t, i| {
            t | u64::from((s[i] >> (8 * l)) as u8) << (8 * i)
        });
        let g = transpose8(t).to_le_bytes();
        for (k, b) in g.iter().enumerate() {
            blocks[16 * k + l] = *b;
        }
    }
}

/// Bitsliced GF(2^8) multiplication modulo x^8 + x^4 + x^3 + x + 1.
#[inline(always)]
fn gf_mul(a: &State, b: &State) -> State {
    let mut c = [0u128; 15];
    for i in 0..8 {
        for j in 0..8 {
            c[i + j] ^= a[i] & b[j];
        }
    }
    reduce(c)
}

/// Squaring is linear in characteristic 2: bit i moves to bit 2i.
#[inline(always)]
fn gf_sq(a: &State) -> State {
    let mut c = [0u128; 15];
    for i in 0..8 {
        c[2 * i] = a[i];
    }
    reduce(c)
}

/// x^k = x^(k-4) + x^(k-5) + x^(k-7) + x^(k-8) for k ≥ 8.
#[inline(always)]
fn reduce(mut c: [u128; 15]) -> State {
    for k in (8..15).rev() {
        let t = c[k];
        c[k - 4] ^= t;
        c[k - 5] ^= t;
        c[k - 7] ^= t;
        c[k - 8] ^= t;
    }
    core::array::from_fn(|i| c[i])
}

/// x^254 (the inverse, and 0 for 0): x^3, x^12, x^15, x^240, x^252, x^254.
fn gf_inv(x: &State) -> State {
    let x2 = gf_sq(x);
    let x3 = gf_mul(&x2, x);
    let x12 = gf_sq(&gf_sq(&x3));
    let x15 = gf_mul(&x12, &x3);
    let mut x240 = x15;
    for _ in 0..4 {
        x240 = gf_sq(&x240);
    }
    let x252 = gf_mul(&x240, &x12);
    gf_mul(&x252, &x2)
}

/// SubBytes: inversion, then b_i ⊕ b_(i+4) ⊕ b_(i+5) ⊕ b_(i+6) ⊕ b_(i+7)
/// ⊕ c_i with c = 0x63 (FIPS 197 §5.1.1).
fn sub_bytes(s: &mut State) {
    let b = gf_inv(s);
    for i in 0..8 {
        let c = if (0x63 >> i) & 1 == 1 { !0u128 } else { 0 };
        s[i] = b[i] ^ b[(i + 4) % 8] ^ b[(i + 5) % 8] ^ b[(i + 6) % 8] ^ b[(i + 7) % 8] ^ c;
    }
}

/// InvSubBytes: the inverse affine map b_(i+2) ⊕ b_(i+5) ⊕ b_(i+7) ⊕ d_i
/// with d = 0x05, then inversion.
fn inv_sub_bytes(s: &mut State) {
    let b = *s;
    let mut a = [0u128; 8];
    for i in 0..8 {
        let d = if (0x05 >> i) & 1 == 1 { !0u128 } else { 0 };
        a[i] = b[(i + 2) % 8] ^ b[(i + 5) % 8] ^ b[(i + 7) % 8] ^ d;
    }
    *s = gf_inv(&a);
}

/// ShiftRows: row r's byte of column c comes from column c + r, i.e. its
/// lanes move down by 4r.
fn shift_rows(s: &mut State) {
    for p in s.iter_mut() {
        let x = *p;
        *p = (x & ROW[0])
            | (x.rotate_right(32) & ROW[1])
            | (x.rotate_right(64) & ROW[2])
            | (x.rotate_right(96) & ROW[3]);
    }
}

fn inv_shift_rows(s: &mut State) {
    for p in s.iter_mut() {
        let x = *p;
        *p = (x & ROW[0])
            | (x.rotate_left(32) & ROW[1])
            | (x.rotate_left(64) & ROW[2])
            | (x.rotate_left(96) & ROW[3]);
    }
}

/// Within each 32-bit column, row r takes row r + k's byte.
#[inline(always)]
fn rot_rows(x: u128, k: u32) -> u128 {
    const LOW: [u128; 4] = [
        !0,
        0x00ff_ffff_00ff_ffff_00ff_ffff_00ff_ffff,
        0x0000_ffff_0000_ffff_0000_ffff_0000_ffff,
        0x0000_00ff_0000_00ff_0000_00ff_0000_00ff,
    ];
    let k = k as usize;
    ((x >> (8 * k)) & LOW[k]) | ((x << (32 - 8 * k)) & !LOW[k])
}

/// Multiplication by x (xtime) of every byte.
#[inline(always)]
fn xtime(a: &State) -> State {
    [
        a[7],
        a[0] ^ a[7],
        a[1],
        a[2] ^ a[7],
        a[3] ^ a[7],
        a[4],
        a[5],
        a[6],
    ]
}

/// MixColumns: out_r = 2(a_r ⊕ a_(r+1)) ⊕ a_(r+1) ⊕ a_(r+2) ⊕ a_(r+3).
fn mix_columns(s: &mut State) {
    let r1: State = core::array::from_fn(|i| rot_rows(s[i], 1));
    let t: State = core::array::from_fn(|i| s[i] ^ r1[i]);
    let x = xtime(&t);
    for i in 0..8 {
        s[i] = x[i] ^ r1[i] ^ rot_rows(s[i], 2) ^ rot_rows(s[i], 3);
    }
}

/// InvMixColumns as MixColumns after adding 4(a_r ⊕ a_(r+2)) to each byte.
fn inv_mix_columns(s: &mut State) {
    let t: State = core::array::from_fn(|i| s[i] ^ rot_rows(s[i], 2));
    let w = xtime(&xtime(&t));
    for i in 0..8 {
        s[i] ^= w[i];
    }
    mix_columns(s);
}

/// A round key repeated over the eight blocks, as planes.
fn round_key_planes(rk: &[u8; 16]) -> State {
    let mut blocks = [0u8; 128];
    for k in 0..8 {
        blocks[16 * k..16 * k + 16].copy_from_slice(rk);
    }
    pack(&blocks)
}

/// SubWord on the planes (the key schedule's S-box, constant time).
pub fn sub_word(w: u32) -> u32 {
    let mut blocks = [0u8; 128];
    blocks[..4].copy_from_slice(&w.to_be_bytes());
    let mut s = pack(&blocks);
    sub_bytes(&mut s);
    unpack(&s, &mut blocks);
    u32::from_be_bytes(blocks[..4].try_into().expect("4"))
}

/// The round keys as planes.
#[derive(Clone)]
pub struct Keys {
    rounds: usize,
    rk: Vec<State>,
}

impl Keys {
    pub fn new(ks: &KeySchedule) -> Keys {
        Keys {
            rounds: ks.rounds,
            rk: ks.rk[..=ks.rounds].iter().map(round_key_planes).collect(),
        }
    }

    fn add(s: &mut State, k: &State) {
        for i in 0..8 {
            s[i] ^= k[i];
        }
    }

    /// Encrypt eight blocks in place.
    pub fn encrypt8(&self, blocks: &mut [u8; 128]) {
        let mut s = pack(blocks);
        Self::add(&mut s, &self.rk[0]);
        for r in 1..self.rounds {
            sub_bytes(&mut s);
            shift_rows(&mut s);
            mix_columns(&mut s);
            Self::add(&mut s, &self.rk[r]);
        }
        sub_bytes(&mut s);
        shift_rows(&mut s);
        Self::add(&mut s, &self.rk[self.rounds]);
        unpack(&s, blocks);
    }

    /// Decrypt eight blocks in place (FIPS 197 §5.3's inverse cipher).
    pub fn decrypt8(&self, blocks: &mut [u8; 128]) {
        let mut s = pack(blocks);
        Self::add(&mut s, &self.rk[self.rounds]);
        for r in (1..self.rounds).rev() {
            inv_shift_rows(&mut s);
            inv_sub_bytes(&mut s);
            Self::add(&mut s, &self.rk[r]);
            inv_mix_columns(&mut s);
        }
        inv_shift_rows(&mut s);
        inv_sub_bytes(&mut s);
        Self::add(&mut s, &self.rk[0]);
        unpack(&s, blocks);
    }

    /// Whole blocks in place, eight at a time (a last partial batch is
    /// padded with zero blocks, computed and dropped).
    pub fn apply_blocks(&self, buf: &mut [u8], decrypt: bool) {
        for chunk in buf.chunks_mut(16 * BLOCKS) {
            let mut b = [0u8; 128];
            b[..chunk.len()].copy_from_slice(chunk);
            if decrypt {
                self.decrypt8(&mut b);
            } else {
                self.encrypt8(&mut b);
            }
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
    }

    /// CTR keystream XOR, eight counter blocks per batch.
    pub fn ctr_xor(&self, iv: &[u8; 16], buf: &mut [u8], inc32: bool) {
        let mut ctr = u128::from_be_bytes(*iv);
        for chunk in buf.chunks_mut(16 * BLOCKS) {
            let mut ks = [0u8; 128];
            for k in 0..BLOCKS {
                ks[16 * k..16 * k + 16].copy_from_slice(&ctr.to_be_bytes());
                ctr = super::next_counter(ctr, inc32);
            }
            self.encrypt8(&mut ks);
            chunk.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_and_unpack_are_inverse_and_put_bits_where_documented() {
        let blocks: [u8; 128] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0x3c);
        let s = pack(&blocks);
        for k in 0..8 {
            for l in 0..16 {
                for i in 0..8 {
                    let bit = (blocks[16 * k + l] >> i) & 1;
                    assert_eq!(((s[i] >> (8 * l + k)) & 1) as u8, bit);
                }
            }
        }
        let mut back = [0u8; 128];
        unpack(&s, &mut back);
        assert_eq!(back, blocks);
    }

    #[test]
    fn sub_bytes_is_the_sbox_and_inv_sub_bytes_its_inverse() {
        // Every byte value through the planes: 256 = two batches.
        for half in 0..2 {
            let blocks: [u8; 128] = core::array::from_fn(|i| (128 * half + i) as u8);
            let mut s = pack(&blocks);
            sub_bytes(&mut s);
            let mut out = [0u8; 128];
            unpack(&s, &mut out);
            for i in 0..128 {
                assert_eq!(
                    out[i],
                    super::super::SBOX[blocks[i] as usize],
                    "{}",
                    blocks[i]
                );
            }
            inv_sub_bytes(&mut s);
            unpack(&s, &mut out);
            assert_eq!(out, blocks);
        }
        assert_eq!(sub_word(0x0001_53ff), 0x637c_ed16);
    }
}
