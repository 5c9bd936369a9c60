//! Hierocrypt-3 (Toshiba), seed 002's third cipher: a nested SPN, each
//! round four keyed 32-bit XS-boxes (S, mdsL, key, S) and the 128-bit
//! diffusion MDSH; 6/7/8 rounds for 128/192/256-bit keys, the last without
//! MDSH and with a final key. Its key schedule runs a 256-bit state
//! forward with σ for the first half of the round keys and back with σ⁻¹
//! for the rest.
//!
//! Implemented from `../shared/specs/hierocrypt3/` (Toshiba's
//! specification could not be read; the reconstruction names its sources)
//! with its worked-out edition, which corrects the reconstruction's two
//! key-padding constants (see `spec::PAD128`), and checked against every
//! NESSIE vector of Sets 1-3 for the three key sizes, both ways
//! (`vectors/hierocrypt3.txt`).
//!
//! One file per variant, as seed 002 §2.4 builds them:
//! - `reference-nct`: straight from the description, byte by byte: S-box
//!   lookups, mdsL by GF(2^8) products, MDSH by its coefficients' maps;
//!   decryption the inverse operations in reverse;
//! - `table32-nct`: the seed's 32-bit technique: S and mdsL merged into
//!   four 8→32-bit mdsL_ST tables, S and MDSH into MDSH_ST tables, one per
//!   distinct 4-byte column pattern of MDSH's 16×16 binary matrix (seven,
//!   as the seed counts); decryption in the same shape with the inverse
//!   tables and transformed keys;
//! - `table64-nct`: 64-bit words: the second S layer and MDSH merged into
//!   sixteen 8→128-bit tables (two 64-bit lookups per byte instead of four
//!   32-bit ones), tables well beyond L1 as the seed's 64-bit variant.
//!
//! - `gfni`: no table, constant time (`ango ct` checks it): the S-box as
//!   an inversion in AES's field between two affine maps, mdsL and MDSH as
//!   affine maps and byte shuffles (see `gfni.rs`).
//!
//! The key schedule is shared (written once, from the description; the
//! GFNI variant runs it with its own S-box). The `-nct` variants are NOT
//! constant time: they index tables with secret bytes.

#[cfg(target_arch = "x86_64")]
pub mod gfni;
pub mod reference;
mod spec;
pub mod table32;
pub mod table64;

use crate::block::{block_cipher_of, boxed, everywhere, BlockVariant};
use spec::{
    cmul, mds_l_by, mdsh, G, G_ORDER, G_PRE, MH_INV, ML_INV_PRODUCTS, PAD128, PAD192, SBOX, T_TURN,
};

/// The S-box on each byte of a word, by the table.
fn sbox64(x: u64) -> u64 {
    u64::from_be_bytes(x.to_be_bytes().map(|b| SBOX[b as usize]))
}

/// F_σ: the S-box on each byte (`sbox`: the table, or GFNI's constant-time
/// form), then P(16) on the 16-bit units (u0..u3 → u0⊕u2, u1⊕u3,
/// u1⊕u2⊕u3, u0⊕u2⊕u3).
fn f_sigma(x: u64, sbox: &impl Fn(u64) -> u64) -> u64 {
    let s = sbox(x);
    let u = |i: u32| (s >> (48 - 16 * i)) & 0xffff;
    let (u0, u1, u2, u3) = (u(0), u(1), u(2), u(3));
    (u0 ^ u2) << 48 | (u1 ^ u3) << 32 | (u1 ^ u2 ^ u3) << 16 | (u0 ^ u2 ^ u3)
}

/// Two MDSH coefficients on the halves of a 64-bit word.
fn halves(hi: u8, lo: u8, w: u64) -> u64 {
    (cmul(hi, (w >> 32) as u32) as u64) << 32 | cmul(lo, w as u32) as u64
}

/// P(32) on (Z3, Z4) and its inverse.
fn p32(z3: u64, z4: u64) -> (u64, u64) {
    let (a, b, c, d) = (z3 >> 32, z3 & 0xffff_ffff, z4 >> 32, z4 & 0xffff_ffff);
    ((a ^ c) << 32 | (b ^ d), (c ^ b ^ d) << 32 | (d ^ a ^ c))
}

fn p32_inv(z3: u64, z4: u64) -> (u64, u64) {
    let (a, b, c, d) = (z3 >> 32, z3 & 0xffff_ffff, z4 >> 32, z4 & 0xffff_ffff);
    let (d, c) = (d ^ a, c ^ b);
    ((a ^ c) << 32 | (b ^ d), c << 32 | d)
}

/// σ, the forward step (M5E on Z3 and Z4, a Feistel step on Z1, Z2).
fn sigma(z: &mut [u64; 4], g: u64, sbox: &impl Fn(u64) -> u64) {
    let z3 = halves(5, 0xe, z[2]) ^ g;
    let z4 = halves(5, 0xe, z[3]);
    *z = [z[1], z[0] ^ f_sigma(z[1] ^ z3, sbox), z3, z4];
}

/// σ⁻¹, the backward step (MB3 = M5E⁻¹).
fn sigma_inv(z: &mut [u64; 4], g: u64, sbox: &impl Fn(u64) -> u64) {
    *z = [
        z[1] ^ f_sigma(z[0] ^ z[2], sbox),
        z[0],
        halves(0xb, 3, z[2] ^ g),
        halves(0xb, 3, z[3]),
    ];
}

/// 128 bits of key as four column words.
fn cols(k1: u64, k2: u64) -> [u32; 4] {
    [(k1 >> 32) as u32, k1 as u32, (k2 >> 32) as u32, k2 as u32]
}

/// The expanded key: for rounds r = 1..T+1 (index r-1) the keys A_r
/// (before the first S layer; A_{T+1} the final key) and B_r (before the
/// second), and the decryption keys of the equivalent inverse cipher.
#[derive(Clone)]
pub struct Keys {
    /// T: 6, 7 or 8.
    pub t: usize,
    pub a: [[u32; 4]; 9],
    pub b: [[u32; 4]; 9],
    /// DA_1 = A_{T+1}, DA_r = MDSH⁻¹(A_{T+2-r}), DA_{T+1} = A_1.
    pub da: [[u32; 4]; 9],
    /// DB_r = mdsL⁻¹(B_{T+1-r}).
    pub db: [[u32; 4]; 9],
}

/// The key schedule: the 256-bit state from the key (and padding), the
/// pre-whitening step, T_TURN forward rounds and the rest backward; each
/// round gives k1..k4, A_r = k1‖k2 and B_r = k3‖k4.
pub fn expand(key: &[u8]) -> Option<Keys> {
    expand_with(key, sbox64, true)
}

/// The key schedule with a given S-box on words, and with the decryption
/// keys of the table variants or without (they index product tables).
pub(crate) fn expand_with(
    key: &[u8],
    sbox: impl Fn(u64) -> u64,
    inverse_keys: bool,
) -> Option<Keys> {
    let size = match key.len() {
        16 => 0,
        24 => 1,
        32 => 2,
        _ => return None,
    };
    let w = |i: usize| u64::from_be_bytes(key[8 * i..8 * i + 8].try_into().expect("8"));
    let mut z = match size {
        0 => [w(0), w(1), w(0), PAD128],
        1 => [w(0), w(1), w(2), PAD192],
        _ => [w(0), w(1), w(2), w(3)],
    };
    let t = 6 + size;
    let mut k = Keys {
        t,
        a: [[0; 4]; 9],
        b: [[0; 4]; 9],
        da: [[0; 4]; 9],
        db: [[0; 4]; 9],
    };
    sigma(&mut z, G_PRE, &sbox);
    for (r, &gi) in G_ORDER[size].iter().enumerate() {
        let g = G[gi];
        let [k1, k2, k3, k4];
        if r < T_TURN[size] {
            let (z1o, z2o) = (z[0], z[1]);
            (z[2], z[3]) = p32(z[2], z[3]);
            sigma(&mut z, g, &sbox);
            let v = f_sigma(z2o ^ z[2], &sbox);
            [k1, k2, k3, k4] = [z1o ^ v, z[2] ^ v, z[3] ^ v, z2o ^ z[3]];
        } else {
            let (z1o, z3o) = (z[0], z[2]);
            let v = f_sigma(z1o ^ z3o, &sbox);
            sigma_inv(&mut z, g, &sbox);
            let (w1, w2) = (z[2], z[3]);
            [k1, k2, k3, k4] = [z3o ^ z[0], w1 ^ v, w2 ^ v, z1o ^ w2];
            (z[2], z[3]) = p32_inv(w1, w2);
        }
        k.a[r] = cols(k1, k2);
        k.b[r] = cols(k3, k4);
    }
    if !inverse_keys {
        return Some(k);
    }
    k.da[0] = k.a[t];
    for r in 2..=t {
        k.da[r - 1] = mdsh(&MH_INV, k.a[t + 1 - r]);
    }
    k.da[t] = k.a[0];
    for r in 1..=t {
        k.db[r - 1] = k.b[t - r].map(|c| mds_l_by(&ML_INV_PRODUCTS, c));
    }
    Some(k)
}

/// A variant's data path over the expanded key, on four column words.
pub trait DataPath: Send + 'static {
    fn encrypt(k: &Keys, x: [u32; 4]) -> [u32; 4];
    fn decrypt(k: &Keys, x: [u32; 4]) -> [u32; 4];
}

/// One variant's keyed cipher.
pub struct Key<D> {
    k: Keys,
    d: std::marker::PhantomData<D>,
}

fn load(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|j| u32::from_be_bytes(b[4 * j..4 * j + 4].try_into().expect("4")))
}

fn store(b: &mut [u8; 16], x: [u32; 4]) {
    for (c, w) in b.chunks_exact_mut(4).zip(x) {
        c.copy_from_slice(&w.to_be_bytes());
    }
}

impl<D: DataPath> Key<D> {
    pub fn new(key: &[u8]) -> Option<Self> {
        Some(Key {
            k: expand(key)?,
            d: std::marker::PhantomData,
        })
    }

    pub fn encrypt_block(&self, b: &mut [u8; 16]) {
        store(b, D::encrypt(&self.k, load(b)))
    }

    pub fn decrypt_block(&self, b: &mut [u8; 16]) {
        store(b, D::decrypt(&self.k, load(b)))
    }

    /// A_1 ‖ B_1.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (o, w) in out
            .chunks_exact_mut(4)
            .zip(self.k.a[0].iter().chain(&self.k.b[0]))
        {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

block_cipher_of!(reference::Key, table32::Key, table64::Key);
#[cfg(target_arch = "x86_64")]
block_cipher_of!(gfni::Key);

/// Hierocrypt-3's variants, slowest first: the last one a CPU runs is the
/// automatic choice (GFNI's where the CPU has it: no table, and the
/// fastest chained on Zen 4).
pub const VARIANTS: &[BlockVariant] = &[
    BlockVariant {
        name: "reference-nct",
        needs: &[],
        available: everywhere,
        // The S-box and its inverse, mdsL's and mdsL⁻¹'s products.
        table_bytes: 2 * 256 + 2 * 1024,
        about: "Toshiba's description: S-box lookups, mdsL by GF(2^8) products (product \
                tables), MDSH by its coefficients' maps",
        make: |k| boxed(reference::Key::new(k)),
    },
    BlockVariant {
        name: "table64-nct",
        needs: &[],
        available: everywhere,
        table_bytes: table64::TABLE_BYTES,
        about: "64-bit words: S∘mdsL tables, S∘MDSH as sixteen 8→128-bit tables (two 64-bit \
                lookups a byte), beyond L1",
        make: |k| boxed(table64::Key::new(k)),
    },
    BlockVariant {
        name: "table32-nct",
        needs: &[],
        available: everywhere,
        table_bytes: table32::TABLE_BYTES,
        about: "seed 002: S∘mdsL as four mdsL_ST tables, S∘MDSH as the seven MDSH_ST column \
                patterns, rounds inlined",
        make: |k| boxed(table32::Key::new(k)),
    },
    #[cfg(target_arch = "x86_64")]
    BlockVariant {
        name: "gfni",
        needs: &["gfni", "ssse3"],
        available: gfni::available,
        table_bytes: gfni::TABLE_BYTES,
        about: "constant time: the S-box through AES's inversion (GF2P8AFFINEQB, \
                GF2P8AFFINEINVQB), mdsL's products as affine maps, MDSH by byte shuffles; no \
                table",
        make: |k| boxed(gfni::Key::new(k)),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The worked edition's key-schedule components (§5) and the round
    /// keys of NESSIE Set 1 vector 0 with a 128-bit key (§6).
    #[test]
    fn key_schedule_components_and_trace() {
        assert_eq!(f_sigma(0, &sbox64), 0x0000_0000_0707_0707);
        assert_eq!(
            f_sigma(0x0001_0203_0405_0607, &sbox64),
            0x9f72_d13e_49b0_1b3c
        );
        assert_eq!(
            f_sigma(0x243f_6a88_85a3_08d3, &sbox64),
            0xbabb_e2cb_9ba8_06cf
        );
        assert_eq!(halves(5, 0xe, 0x0123_4567_89ab_cdef), 0x4445_6744_0089_22ef);
        assert_eq!(halves(0xb, 3, 0x0123_4567_89ab_cdef), 0x4444_4523_2266_ab66);
        let (x, y) = (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344);
        assert_eq!(p32(x, y), (0x3726_e0a6_86d3_7b97, 0x95ca_f1b9_3456_93e2));
        assert_eq!(
            p32_inv(x, y),
            (0xb285_e875_a2ec_111f, 0x96ba_82fd_274f_19cc)
        );
        let k = expand(&hex("80000000000000000000000000000000")).unwrap();
        assert_eq!(k.t, 6);
        assert_eq!(k.a[0], [0xdca08337, 0xda90603b, 0xf11582d3, 0x7f43b1ec]);
        assert_eq!(k.b[0], [0x0987d1b5, 0xc8933f14, 0xb592dd48, 0x1ffd86d9]);
        assert_eq!(k.a[6], [0x44a20ae2, 0x728144be, 0x1a937c43, 0xf5dfc75b]);
        assert_eq!(k.da[1], [0xebc6dba0, 0xf10595a3, 0x2ab328c4, 0x38f1c0e4]);
        assert_eq!(k.db[0], [0x53bf6076, 0x7020bd7e, 0x2f4129a9, 0x05a9a4fc]);
    }
}
