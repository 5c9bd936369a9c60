//! Camellia-128/192/256 bitsliced, portable and constant time: up to 64
//! blocks at once on bit planes, plane (j, b) holding bit b of byte j of
//! every block of the batch (block k at bit k of a `u64`; smaller batches
//! use `u32`, `u16` or `u8` planes).
//!
//! Technique: the S-boxes are computed on the planes from the algebraic
//! form of NTT and Mitsubishi Electric's "Specification of Camellia"
//! (version 2.0, September 26, 2001), §4.5: s1(x) = h(g(f(x ⊕ 0xc5))) ⊕
//! 0x6e, f and h sparse linear maps (9 XORs each), g the inversion in the
//! spec's field, whose basis is already a tower GF(16)[β]: the element
//! a_l + a_h·β (a_l the low nibble, a_h the high, GF(16) = GF(2)[α]/(α^4 +
//! α + 1)) with β^2 = β + q, q = α^3 + 1 (found from the spec's
//! definition; checked by the tests through the S-boxes). So
//! (a_l + a_h·β)⁻¹ = ((a_l + a_h)·N⁻¹) + (a_h·N⁻¹)·β with the norm
//! N = a_l^2 + a_l·a_h + q·a_h^2 and N⁻¹ = N^14 in GF(16), written as its
//! algebraic normal form: three GF(16) multiplications, one GF(16)
//! inversion and some XORs per byte, the same for every byte position.
//! s2, s3 (output rotated) and s4 (input rotated) are the same circuit
//! with the planes renamed; the constants 0xc5 and 0x6e are folded into
//! the subkey masks and a compile-time constant after the P-function.
//! P is register XORs per bit plane, FL/FL⁻¹ AND/OR/XOR with the 32-bit
//! rotation a renaming of planes. This is the same decomposition as
//! `affine.rs` (affine maps around an inversion), in the spec's own field
//! instead of AES's.
//!
//! A buffer of at most six blocks (and `encrypt_block`) goes block by
//! block through `f_lanes` instead, which bitslices one F across its eight
//! byte positions (plane b = bit b of t1..t8, one byte per plane): one
//! pass of the same S-box circuit for all eight S-boxes, the rotations of
//! s2/s3/s4 as masked moves between neighbouring planes, P on the bytes.
//! The key schedule's F is `f_lanes` too.
//!
//! Blocks per batch: 64 (`u64` planes; a last partial batch takes the
//! narrowest of u8/u16/u32/u64 that holds it; up to six blocks one at a
//! time).
//!
//! Lookup tables: none, 0 bytes.
//!
//! Constant time: only AND, OR, XOR, NOT, fixed shifts and rotations on
//! key and data; subkey bits become all-zero or all-one masks by
//! arithmetic (`0 − bit`); no branch or memory index depends on the key
//! or the data (the only branches are on the key and buffer lengths).

use super::affine::Subkeys;
use core::ops::{BitAnd, BitOr, BitXor, BitXorAssign, Not};

/// Bytes of lookup tables indexed by key or data: none.
pub const TABLE_BYTES: usize = 0;

/// A word of bit planes: bit k belongs to block k of the batch.
trait Word:
    Copy
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + BitXorAssign
    + Not<Output = Self>
{
    /// Blocks per batch.
    const BITS: usize;
    const ZERO: Self;
    /// All ones if bit i of v is set, else zero (arithmetic, no branch).
    fn mask(v: u8, i: usize) -> Self;
    /// Bits 8g..8g + 8.
    fn byte(self, g: usize) -> u8;
    /// Self with `b` ORed in at bits 8g..8g + 8.
    fn or_byte(self, g: usize, b: u8) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            #[inline(always)]
            fn mask(v: u8, i: usize) -> Self {
                (((v >> i) & 1) as $t).wrapping_neg()
            }
            #[inline(always)]
            fn byte(self, g: usize) -> u8 {
                (self >> (8 * g)) as u8
            }
            #[inline(always)]
            fn or_byte(self, g: usize, b: u8) -> Self {
                self | ((b as $t) << (8 * g))
            }
        }
    )*};
}
word!(u8, u16, u32, u64);

/// Eight planes of one byte position (index = bit, 0 least significant).
type Byte<W> = [W; 8];
/// Eight byte positions: one 64-bit half D1 or D2 (byte 0 most
/// significant).
type Half<W> = [Byte<W>; 8];

/// Blocks per full batch.
pub const BLOCKS: usize = 64;

/// Swap the bits of `a` selected by `mask` with those `shift` places up.
#[inline(always)]
fn delta_swap(a: u64, mask: u64, shift: u32) -> u64 {
    let t = ((a >> shift) ^ a) & mask;
    a ^ t ^ (t << shift)
}

/// Transpose an 8×8 bit matrix held as eight bytes (byte j, bit i ↦ byte
/// i, bit j). (The same helper as aes/bitsliced.rs.)
#[inline(always)]
fn transpose8(a: u64) -> u64 {
    let a = delta_swap(a, 0x00aa_00aa_00aa_00aa, 7);
    let a = delta_swap(a, 0x0000_cccc_0000_cccc, 14);
    delta_swap(a, 0x0000_0000_f0f0_f0f0, 28)
}

/// `W::BITS` blocks (16·BITS bytes) to planes: state[j][b] = bit b of byte
/// j of every block.
fn pack<W: Word>(blocks: &[u8]) -> [Byte<W>; 16] {
    let mut s = [[W::ZERO; 8]; 16];
    for j in 0..16 {
        for g in 0..W::BITS / 8 {
            // Byte k of `m` is byte j of block 8g + k.
            let mut m = [0u8; 8];
            for k in 0..8 {
                m[k] = blocks[16 * (8 * g + k) + j];
            }
            // Byte b of `t` holds bit b of those eight bytes (bit k: block
            // 8g + k).
            let t = transpose8(u64::from_le_bytes(m));
            for b in 0..8 {
                s[j][b] = s[j][b].or_byte(g, (t >> (8 * b)) as u8);
            }
        }
    }
    s
}

/// Planes back to blocks.
fn unpack<W: Word>(s: &[Byte<W>; 16], blocks: &mut [u8]) {
    for j in 0..16 {
        for g in 0..W::BITS / 8 {
            let mut t = 0u64;
            for b in 0..8 {
                t |= u64::from(s[j][b].byte(g)) << (8 * b);
            }
            let m = transpose8(t).to_le_bytes();
            for k in 0..8 {
                blocks[16 * (8 * g + k) + j] = m[k];
            }
        }
    }
}

/// The spec's f and h (§4.5, bits a1 = most significant .. a8): output
/// b_k is the XOR of the inputs a_i listed in row k.
const F_ROWS: [&[usize]; 8] = [
    &[6, 2],
    &[7, 1],
    &[8, 5, 3],
    &[8, 3],
    &[7, 4],
    &[5, 2],
    &[8, 1],
    &[6, 4],
];
const H_ROWS: [&[usize]; 8] = [
    &[5, 6, 2],
    &[6, 2],
    &[7, 4],
    &[8, 2],
    &[7, 3],
    &[8, 1],
    &[5, 1],
    &[6, 3],
];

/// A linear map given by spec rows on planes (a_k is plane 8 − k).
#[inline(always)]
fn spec_linear<W: Word>(x: &Byte<W>, rows: &[&[usize]; 8]) -> Byte<W> {
    let mut out = [W::ZERO; 8];
    for (k, row) in rows.iter().enumerate() {
        let mut v = W::ZERO;
        for &i in row.iter() {
            v ^= x[8 - i];
        }
        out[7 - k] = v;
    }
    out
}

type Nibble<W> = [W; 4];

#[inline(always)]
fn xor4<W: Word>(a: Nibble<W>, b: Nibble<W>) -> Nibble<W> {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// a·b in GF(16) = GF(2)[α]/(α^4 + α + 1), bit i the coefficient of α^i.
#[inline(always)]
fn gf16_mul<W: Word>(a: Nibble<W>, b: Nibble<W>) -> Nibble<W> {
    let c0 = a[0] & b[0];
    let c1 = (a[0] & b[1]) ^ (a[1] & b[0]);
    let c2 = (a[0] & b[2]) ^ (a[1] & b[1]) ^ (a[2] & b[0]);
    let c3 = (a[0] & b[3]) ^ (a[1] & b[2]) ^ (a[2] & b[1]) ^ (a[3] & b[0]);
    let c4 = (a[1] & b[3]) ^ (a[2] & b[2]) ^ (a[3] & b[1]);
    let c5 = (a[2] & b[3]) ^ (a[3] & b[2]);
    let c6 = a[3] & b[3];
    // α^4 = α + 1, α^5 = α^2 + α, α^6 = α^3 + α^2.
    [c0 ^ c4, c1 ^ c4 ^ c5, c2 ^ c5 ^ c6, c3 ^ c6]
}

/// a^2 in GF(16): a0 + a1α^2 + a2(α + 1) + a3(α^3 + α^2).
#[inline(always)]
fn gf16_sq<W: Word>(a: Nibble<W>) -> Nibble<W> {
    [a[0] ^ a[2], a[2], a[1] ^ a[3], a[3]]
}

/// q·a with q = α^3 + 1 (a + α^3·a).
#[inline(always)]
fn gf16_mul_q<W: Word>(a: Nibble<W>) -> Nibble<W> {
    [a[0] ^ a[1], a[2], a[3], a[0]]
}

/// a⁻¹ in GF(16) (0 ↦ 0): the algebraic normal form of a^14, factored.
#[inline(always)]
fn gf16_inv<W: Word>(a: Nibble<W>) -> Nibble<W> {
    let [a0, a1, a2, a3] = a;
    let a12 = a1 ^ a2;
    let maj = (a0 & a1) ^ (a2 & (a0 ^ a1));
    [
        a0 ^ a12 ^ a3 ^ (a2 & (a0 | a1)) ^ (a1 & a2 & a3),
        a3 ^ maj ^ (a1 & a3 & !a0),
        a2 ^ a3 ^ (a0 & (a1 ^ (a2 | a3))),
        a12 ^ a3 ^ (a3 & (a0 ^ (a1 | a2))),
    ]
}

/// h(g(f(x))): s1 without its constants 0xc5 and 0x6e.
#[inline(always)]
fn sbox_core<W: Word>(x: &Byte<W>) -> Byte<W> {
    let b = spec_linear(x, &F_ROWS);
    let lo = [b[0], b[1], b[2], b[3]];
    let hi = [b[4], b[5], b[6], b[7]];
    let n = xor4(xor4(gf16_sq(lo), gf16_mul(lo, hi)), gf16_mul_q(gf16_sq(hi)));
    let ni = gf16_inv(n);
    let ol = gf16_mul(xor4(lo, hi), ni);
    let oh = gf16_mul(hi, ni);
    spec_linear(
        &[ol[0], ol[1], ol[2], ol[3], oh[0], oh[1], oh[2], oh[3]],
        &H_ROWS,
    )
}

/// The byte rotated left by n, as planes: plane b takes plane b − n.
#[inline(always)]
fn rotl_planes<W: Word>(x: &Byte<W>, n: usize) -> Byte<W> {
    core::array::from_fn(|b| x[(b + 8 - n) % 8])
}

/// F's byte positions whose S-box is s4 (input rotated left by one).
const S4_AT: [bool; 8] = [false, false, false, true, false, false, true, false];
/// Left rotation of each position's S-box output: s2 by 1, s3 by 7.
const OUT_ROT: [u32; 8] = [0, 1, 7, 0, 1, 7, 0, 0];

/// The P-function on bytes (RFC 3713 §2.4.1).
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

/// P of the S-boxes' output constants (0x6e, rotated for s2 and s3),
/// added after P on the planes.
const P_CONST: [u8; 8] = {
    let mut c = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        c[j] = 0x6eu8.rotate_left(OUT_ROT[j]);
        j += 1;
    }
    p(c)
};

/// `y ^= P(S(x ^ k))`: the F-function of the half `x` XORed into `y`.
#[inline(always)]
fn f_into<W: Word>(x: &Half<W>, k: u64, y: &mut Half<W>) {
    let kb = k.to_be_bytes();
    let mut t = [[W::ZERO; 8]; 8];
    for j in 0..8 {
        // s4(x ^ k) = s1((x ^ k) <<< 1): rotate x and the key byte.
        let (mut v, ek) = if S4_AT[j] {
            (rotl_planes(&x[j], 1), kb[j].rotate_left(1))
        } else {
            (x[j], kb[j])
        };
        let ek = ek ^ 0xc5;
        for b in 0..8 {
            v[b] ^= W::mask(ek, b);
        }
        t[j] = rotl_planes(&sbox_core(&v), OUT_ROT[j] as usize);
    }
    // P per plane, as in affine::byte_sliced!, then its constant.
    for b in 0..8 {
        let a = t[0][b] ^ t[1][b] ^ t[2][b] ^ t[3][b];
        let c = t[4][b] ^ t[5][b] ^ t[6][b] ^ t[7][b];
        let v = [a ^ t[0][b], a ^ t[1][b], a ^ t[2][b], a ^ t[3][b]];
        for j in 0..4 {
            let z = v[(j + 1) % 4] ^ c ^ t[4 + j][b];
            y[j][b] ^= z ^ W::mask(P_CONST[j], b);
            y[4 + j][b] ^= z ^ v[j] ^ W::mask(P_CONST[4 + j], b);
        }
    }
}

/// `x ^= k`.
#[inline(always)]
fn xor_key<W: Word>(x: &mut Half<W>, k: u64) {
    let kb = k.to_be_bytes();
    for j in 0..8 {
        for b in 0..8 {
            x[j][b] ^= W::mask(kb[j], b);
        }
    }
}

/// `(h1 & klL) <<< 1` for the 32-bit word of bytes h[0..4]: bit 0 of byte
/// j comes from bit 7 of byte j + 1.
#[inline(always)]
fn and_rotl1<W: Word>(h: &Half<W>, kb: &[u8; 8]) -> [Byte<W>; 4] {
    let mut t = [[W::ZERO; 8]; 4];
    for j in 0..4 {
        for b in 0..8 {
            t[j][b] = h[j][b] & W::mask(kb[j], b);
        }
    }
    core::array::from_fn(|j| {
        core::array::from_fn(|b| {
            if b == 0 {
                t[(j + 1) % 4][7]
            } else {
                t[j][b - 1]
            }
        })
    })
}

/// FL (RFC 3713 §2.4.2): x2 ^= (x1 & klL) <<< 1, x1 ^= x2 | klR.
fn fl<W: Word>(x: &mut Half<W>, k: u64) {
    let kb = k.to_be_bytes();
    let r = and_rotl1(x, &kb);
    for j in 0..4 {
        for b in 0..8 {
            x[4 + j][b] ^= r[j][b];
        }
    }
    for j in 0..4 {
        for b in 0..8 {
            x[j][b] ^= x[4 + j][b] | W::mask(kb[4 + j], b);
        }
    }
}

/// FL⁻¹ (RFC 3713 §2.4.2): y1 ^= y2 | klR, y2 ^= (y1 & klL) <<< 1.
fn flinv<W: Word>(y: &mut Half<W>, k: u64) {
    let kb = k.to_be_bytes();
    for j in 0..4 {
        for b in 0..8 {
            y[j][b] ^= y[4 + j][b] | W::mask(kb[4 + j], b);
        }
    }
    let r = and_rotl1(y, &kb);
    for j in 0..4 {
        for b in 0..8 {
            y[4 + j][b] ^= r[j][b];
        }
    }
}

/// RFC 3713 §2.3 on `W::BITS` blocks (16·BITS bytes of `blocks`) with an
/// `affine::Subkeys` list (`8·groups + 2` words).
fn batch<W: Word>(blocks: &mut [u8], ks: &[u64], groups: usize) {
    assert_eq!(ks.len(), 8 * groups + 2);
    let s = pack::<W>(blocks);
    let mut l: Half<W> = core::array::from_fn(|j| s[j]);
    let mut r: Half<W> = core::array::from_fn(|j| s[8 + j]);
    xor_key(&mut l, ks[0]);
    xor_key(&mut r, ks[1]);
    let mut i = 2;
    for g in 0..groups {
        for _ in 0..3 {
            f_into(&l, ks[i], &mut r);
            f_into(&r, ks[i + 1], &mut l);
            i += 2;
        }
        if g + 1 < groups {
            fl(&mut l, ks[i]);
            flinv(&mut r, ks[i + 1]);
            i += 2;
        }
    }
    xor_key(&mut r, ks[i]);
    xor_key(&mut l, ks[i + 1]);
    // The output block is D2 || D1.
    let out: [Byte<W>; 16] = core::array::from_fn(|j| if j < 8 { r[j] } else { l[j - 8] });
    unpack(&out, blocks);
}

/// `n` blocks (n ≤ W::BITS) through a zero-padded batch.
fn padded<W: Word>(buf: &mut [u8], ks: &[u64], groups: usize) {
    let mut b = [0u8; 16 * BLOCKS];
    let n = buf.len();
    b[..n].copy_from_slice(buf);
    batch::<W>(&mut b[..16 * W::BITS], ks, groups);
    buf.copy_from_slice(&b[..n]);
}

/// Up to this many blocks go one by one through `crypt1`.
const ONE_BY_ONE: usize = 6;

/// ECB over the whole blocks of `buf`: 64 at a time on u64 planes, a last
/// partial batch on the narrowest planes that hold it, or one block at a
/// time for up to `ONE_BY_ONE` blocks.
fn blocks(buf: &mut [u8], ks: &[u64], groups: usize) {
    let mut chunks = buf.chunks_exact_mut(16 * BLOCKS);
    for c in &mut chunks {
        batch::<u64>(c, ks, groups);
    }
    let rest = chunks.into_remainder();
    let n = rest.len() / 16;
    let rest = &mut rest[..16 * n];
    if n <= ONE_BY_ONE {
        for b in rest.chunks_exact_mut(16) {
            crypt1(b, ks, groups);
        }
    } else if n <= 8 {
        padded::<u8>(rest, ks, groups);
    } else if n <= 16 {
        padded::<u16>(rest, ks, groups);
    } else if n <= 32 {
        padded::<u32>(rest, ks, groups);
    } else {
        padded::<u64>(rest, ks, groups);
    }
}

/// Byte lanes (bit j of every byte) of F's positions 2 and 5 (s2, output
/// rotated left), 3 and 6 (s3, rotated right), 4 and 7 (s4, input rotated
/// left), positions counted from 1 as in RFC 3713.
const LANES_S2: u64 = 0x1212_1212_1212_1212;
const LANES_S3: u64 = 0x2424_2424_2424_2424;
const LANES_S4: u64 = 0x4848_4848_4848_4848;

/// Byte b all ones where bit b of `c` is set: a constant as eight planes.
const fn const_planes(c: u8) -> u64 {
    let mut v = 0u64;
    let mut b = 0;
    while b < 8 {
        if (c >> b) & 1 == 1 {
            v |= 0xff << (8 * b);
        }
        b += 1;
    }
    v
}

/// F(x, k) for one value, bitsliced across its eight bytes: after
/// `transpose8`, byte b of a word is plane b and bit j of it is byte j + 1
/// of F's input, so one pass of `sbox_core` on byte-wide planes computes
/// all eight S-boxes; the rotations of s2, s3 and s4 move bits between
/// neighbouring planes in their lanes only. P works on the bytes.
fn f_lanes(x: u64, k: u64) -> u64 {
    // Byte j (little-endian) = t_(j+1).
    let t = transpose8((x ^ k).swap_bytes());
    // s4: the input rotated left (plane b takes plane b − 1).
    let t = (t & !LANES_S4) | (t.rotate_left(8) & LANES_S4);
    let t = t ^ const_planes(0xc5);
    let planes: Byte<u8> = core::array::from_fn(|b| (t >> (8 * b)) as u8);
    let o = sbox_core(&planes);
    let o = (0..8).fold(0u64, |v, b| v | u64::from(o[b]) << (8 * b));
    // s2: output rotated left; s3: output rotated right.
    let o = (o & !(LANES_S2 | LANES_S3))
        | (o.rotate_left(8) & LANES_S2)
        | (o.rotate_right(8) & LANES_S3);
    let z = transpose8(o).to_le_bytes();
    let z: [u8; 8] = core::array::from_fn(|j| z[j] ^ 0x6eu8.rotate_left(OUT_ROT[j]));
    u64::from_be_bytes(p(z))
}

/// FL (RFC 3713 §2.4.2) on a 64-bit word.
fn fl1(x: u64, k: u64) -> u64 {
    let (mut x1, mut x2) = ((x >> 32) as u32, x as u32);
    x2 ^= (x1 & (k >> 32) as u32).rotate_left(1);
    x1 ^= x2 | k as u32;
    (u64::from(x1) << 32) | u64::from(x2)
}

/// FL⁻¹ (RFC 3713 §2.4.2) on a 64-bit word.
fn flinv1(y: u64, k: u64) -> u64 {
    let (mut y1, mut y2) = ((y >> 32) as u32, y as u32);
    y1 ^= y2 | k as u32;
    y2 ^= (y1 & (k >> 32) as u32).rotate_left(1);
    (u64::from(y1) << 32) | u64::from(y2)
}

/// One block with `f_lanes` (RFC 3713 §2.3), for buffers of a few blocks.
fn crypt1(block: &mut [u8], ks: &[u64], groups: usize) {
    assert_eq!(ks.len(), 8 * groups + 2);
    let m = u128::from_be_bytes(block.try_into().expect("16 bytes"));
    let mut d1 = (m >> 64) as u64 ^ ks[0];
    let mut d2 = m as u64 ^ ks[1];
    let mut i = 2;
    for g in 0..groups {
        for _ in 0..3 {
            d2 ^= f_lanes(d1, ks[i]);
            d1 ^= f_lanes(d2, ks[i + 1]);
            i += 2;
        }
        if g + 1 < groups {
            d1 = fl1(d1, ks[i]);
            d2 = flinv1(d2, ks[i + 1]);
            i += 2;
        }
    }
    d2 ^= ks[i];
    d1 ^= ks[i + 1];
    block.copy_from_slice(&((u128::from(d2) << 64) | u128::from(d1)).to_be_bytes());
}

/// Bitsliced Camellia, 64 blocks per batch.
#[derive(Clone)]
pub struct Key {
    sk: Subkeys,
}

impl Key {
    /// None unless key.len() is 16, 24 or 32.
    pub fn new(key: &[u8]) -> Option<Key> {
        Some(Key {
            sk: Subkeys::new(key, f_lanes)?,
        })
    }

    /// ECB encryption of the whole blocks of `buf`, in place.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) {
        blocks(buf, self.sk.list(false), self.sk.groups);
    }

    /// ECB decryption of the whole blocks of `buf`, in place.
    pub fn decrypt_blocks(&self, buf: &mut [u8]) {
        blocks(buf, self.sk.list(true), self.sk.groups);
    }

    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.encrypt_blocks(block);
    }

    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        self.decrypt_blocks(block);
    }

    /// k1, k2, k3, k4, big-endian (as the other Camellia variants).
    pub fn schedule_bytes(&self) -> [u8; 32] {
        self.sk.schedule_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::affine;
    use super::*;

    /// All 256 inputs of s1..s4 through the planes (u64: 64 lanes, four
    /// batches) against affine.rs's decompositions, which are checked
    /// against RFC 3713's SBOX1.
    #[test]
    fn sboxes_on_planes() {
        for base in (0..256).step_by(64) {
            let x: Byte<u64> = core::array::from_fn(|b| {
                (0..64).fold(0u64, |w, k| w | ((((base + k) >> b) & 1) as u64) << k)
            });
            let c5 = |x: &Byte<u64>| -> Byte<u64> {
                core::array::from_fn(|b| x[b] ^ u64::mask(0xc5, b))
            };
            let out = |y: Byte<u64>, k: usize, c: u8| -> u8 {
                (0..8).fold(0u8, |v, b| v | ((((y[b] >> k) & 1) as u8) << b)) ^ c
            };
            let s1 = sbox_core(&c5(&x));
            let s4 = sbox_core(&c5(&rotl_planes(&x, 1)));
            for k in 0..64 {
                let v = (base + k) as u8;
                assert_eq!(out(s1, k, 0x6e), affine::S1.eval(v), "s1 {v:#04x}");
                let s2 = rotl_planes(&s1, 1);
                assert_eq!(out(s2, k, 0xdc), affine::S2.eval(v), "s2 {v:#04x}");
                let s3 = rotl_planes(&s1, 7);
                assert_eq!(out(s3, k, 0x37), affine::S3.eval(v), "s3 {v:#04x}");
                assert_eq!(out(s4, k, 0x6e), affine::S4.eval(v), "s4 {v:#04x}");
            }
        }
    }

    /// Every path (one by one, u8, u16, u32, u64 planes, whole batches)
    /// against the reference variant, both ways, all key sizes.
    #[test]
    fn agrees_with_reference() {
        let mut st = 0x0123_4567_89ab_cdefu64;
        let mut next = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st as u8
        };
        for len in [16, 24, 32] {
            for n in [1, 2, 6, 7, 8, 9, 16, 17, 32, 33, 64, 65, 130] {
                let key: Vec<u8> = (0..len).map(|_| next()).collect();
                let k = Key::new(&key).expect("key");
                let r = super::super::reference::Key::new(&key).expect("key");
                assert_eq!(k.schedule_bytes(), r.schedule_bytes());
                let pt: Vec<u8> = (0..16 * n).map(|_| next()).collect();
                let mut want = pt.clone();
                for b in want.chunks_exact_mut(16) {
                    r.encrypt_block(b.try_into().expect("16"));
                }
                let mut got = pt.clone();
                k.encrypt_blocks(&mut got);
                assert_eq!(got, want, "{len}-byte key, {n} blocks");
                k.decrypt_blocks(&mut got);
                assert_eq!(got, pt, "{len}-byte key, {n} blocks");
            }
        }
    }

    #[test]
    fn pack_and_unpack_are_inverse() {
        let blocks: Vec<u8> = (0..1024)
            .map(|i| (i as u8).wrapping_mul(151) ^ 0x3c)
            .collect();
        let s = pack::<u64>(&blocks);
        for k in 0..64 {
            for j in 0..16 {
                for b in 0..8 {
                    assert_eq!(((s[j][b] >> k) & 1) as u8, (blocks[16 * k + j] >> b) & 1);
                }
            }
        }
        let mut back = vec![0u8; 1024];
        unpack(&s, &mut back);
        assert_eq!(back, blocks);
    }
}
