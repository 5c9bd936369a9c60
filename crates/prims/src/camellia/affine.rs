//! Camellia's S-boxes as affine maps around the AES S-box (and around
//! inversion in AES's field), the common ground of the constant-time
//! variants `aesni`, `gfni` and `bitsliced`; also the subkey order those
//! variants share.
//!
//! # Derivation
//!
//! NTT and Mitsubishi Electric's "Specification of Camellia — a 128-bit
//! Block Cipher" (version 2.0, September 26, 2001), §4.5, writes the first
//! S-box algebraically:
//!
//! ```text
//! s1(x) = h(g(f(0xc5 ⊕ x))) ⊕ 0x6e
//! ```
//!
//! with bits a1 (most significant) .. a8 (least significant), the linear
//! maps
//!
//! ```text
//! f: b1 = a6⊕a2  b2 = a7⊕a1  b3 = a8⊕a5⊕a3  b4 = a8⊕a3
//!    b5 = a7⊕a4  b6 = a5⊕a2  b7 = a8⊕a1     b8 = a6⊕a4
//! h: b1 = a5⊕a6⊕a2  b2 = a6⊕a2  b3 = a7⊕a4  b4 = a8⊕a2
//!    b5 = a7⊕a3     b6 = a8⊕a1  b7 = a5⊕a1  b8 = a6⊕a3
//! ```
//!
//! and g the inversion (0 ↦ 0) in GF(2^8) written in the spec's own basis:
//! the byte a1..a8 is the element (a8 + a7α + a6α² + a5α³) +
//! (a4 + a3α + a2α² + a1α³)β, where β is a root of
//! y^8 + y^6 + y^5 + y^3 + 1 and α = β^238 = β^6 + β^5 + β^3 + β^2 (a root
//! of α^4 + α + 1, so the low nibble is an element of GF(16)). Call T the
//! linear map from the spec's basis to the polynomial basis 1, β, ..., β^7.
//!
//! Both y^8 + y^6 + y^5 + y^3 + 1 and AES's x^8 + x^4 + x^3 + x + 1
//! (FIPS 197 §4.2) are irreducible of degree 8, so the two fields are
//! isomorphic: y^8 + y^6 + y^5 + y^3 + 1 has eight roots γ in AES's field
//! (0x12, 0x13, 0x1e, 0x1f, 0x4e, 0x4f, 0xfe, 0xff) and each gives a field
//! isomorphism Φ_γ: β^i ↦ γ^i, linear over GF(2). With U = Φ_γ·T,
//! g = U⁻¹ ∘ inv_AES ∘ U, and AES's SubBytes is SB(y) = M·inv_AES(y) ⊕ 0x63
//! (M the matrix of FIPS 197 §5.1.1), so
//!
//! ```text
//! s1(x) = H·U⁻¹·inv_AES(U·F·x ⊕ U·F·0xc5) ⊕ 0x6e                       (inversion form)
//!       = (H·U⁻¹·M⁻¹)·SB(U·F·x ⊕ U·F·0xc5) ⊕ (H·U⁻¹·M⁻¹·0x63 ⊕ 0x6e)   (SubBytes form)
//! ```
//!
//! The constants below are those for γ = 0x12 (the smallest root; every
//! root works, each giving other matrices). They were computed by a script
//! from the definitions above; the test `derivation_from_the_spec_gives_s1`
//! repeats the computation, and `all_four_sboxes_all_inputs` checks all 256
//! inputs of s1..s4 against reference.rs's SBOX1 (RFC 3713 §2.4.1).
//!
//! The other S-boxes follow from RFC 3713 §2.4.1 (and spec §4.5):
//! s2(x) = s1(x) <<< 1 and s3(x) = s1(x) >>> 1 compose the output maps with
//! a rotation; s4(x) = s1(x <<< 1) composes the input map with one.
//!
//! How the variants use it: `aesni` evaluates `pre` and `post` as two 4-bit
//! PSHUFB lookups each around AESENCLAST (which is SB and ShiftRows);
//! `gfni` evaluates `pre` with GF2P8AFFINEQB and `inv_post` after the
//! inversion with GF2P8AFFINEINVQB; `bitsliced` uses the spec's own form
//! (f, the inversion in the spec's field as GF(16)[β], h) instead.
//!
//! Lookup tables: none at run time (0 bytes); the `const fn`s here build
//! matrices and 16-entry nibble tables at compile time.

/// An affine map on bytes, x ↦ M·x ⊕ c, with bit 0 the least significant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Affine {
    /// The columns of M: `m[j]` is the image of the byte `1 << j`.
    pub m: [u8; 8],
    /// The constant added after the product.
    pub c: u8,
}

impl Affine {
    /// M·x ⊕ c.
    pub const fn apply(&self, x: u8) -> u8 {
        let mut r = self.c;
        let mut j = 0;
        while j < 8 {
            // Constant-time mask: all ones when bit j of x is set.
            r ^= self.m[j] & 0u8.wrapping_sub((x >> j) & 1);
            j += 1;
        }
        r
    }

    /// The linear part, M·x.
    pub const fn linear(&self, x: u8) -> u8 {
        self.apply(x) ^ self.c
    }

    /// `next` after `self`: x ↦ next(self(x)).
    pub const fn then(&self, next: &Affine) -> Affine {
        let mut m = [0u8; 8];
        let mut j = 0;
        while j < 8 {
            m[j] = next.linear(self.m[j]);
            j += 1;
        }
        Affine {
            m,
            c: next.apply(self.c),
        }
    }

    /// x ↦ x <<< n as an affine map.
    pub const fn rotl(n: u32) -> Affine {
        let mut m = [0u8; 8];
        let mut j = 0;
        while j < 8 {
            m[j] = (1u8 << j).rotate_left(n);
            j += 1;
        }
        Affine { m, c: 0 }
    }

    /// The matrix operand of GF2P8AFFINEQB / GF2P8AFFINEINVQB: result bit
    /// i is the parity of (byte 7 − i of the operand) AND x, so byte 7 − i
    /// is row i of M (Intel SDM, GF2P8AFFINEQB "affine_byte").
    pub const fn gfni_matrix(&self) -> u64 {
        let mut q = 0u64;
        let mut i = 0;
        while i < 8 {
            let mut row = 0u8;
            let mut j = 0;
            while j < 8 {
                row |= ((self.m[j] >> i) & 1) << j;
                j += 1;
            }
            q |= (row as u64) << (8 * (7 - i));
            i += 1;
        }
        q
    }

    /// 16-entry table of the map on the low nibble, constant included:
    /// `lo[n] = M·n ⊕ c`.
    pub const fn nibble_lo(&self) -> [u8; 16] {
        let mut t = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            t[n] = self.apply(n as u8);
            n += 1;
        }
        t
    }

    /// 16-entry table of the linear part on the high nibble:
    /// `hi[n] = M·(n << 4)`, so M·x ⊕ c = lo[x & 15] ⊕ hi[x >> 4].
    pub const fn nibble_hi(&self) -> [u8; 16] {
        let mut t = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            t[n] = self.linear((n as u8) << 4);
            n += 1;
        }
        t
    }
}

/// One Camellia S-box in both forms:
/// s(x) = post(SB(pre(x))) = inv_post(inv_AES(pre(x))).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// Into AES's field, before SubBytes or the inversion.
    pub pre: Affine,
    /// After AES's SubBytes (AESENCLAST with a zero key, ShiftRows undone).
    pub post: Affine,
    /// After the bare inversion (GF2P8AFFINEINVQB's own affine step).
    pub inv_post: Affine,
}

impl Decomposition {
    /// The S-box evaluated through its decomposition (for tests and
    /// compile-time use; the AES S-box here is computed, not looked up).
    pub const fn eval(&self, x: u8) -> u8 {
        self.inv_post.apply(gf_inv(self.pre.apply(x)))
    }

    /// The same through SubBytes.
    pub const fn eval_sb(&self, x: u8) -> u8 {
        self.post.apply(aes_sub_byte(self.pre.apply(x)))
    }

    /// `self` with the output rotated left by n.
    const fn out_rotl(&self, n: u32) -> Decomposition {
        Decomposition {
            pre: self.pre,
            post: self.post.then(&Affine::rotl(n)),
            inv_post: self.inv_post.then(&Affine::rotl(n)),
        }
    }

    /// `self` with the input rotated left by n first.
    const fn in_rotl(&self, n: u32) -> Decomposition {
        Decomposition {
            pre: Affine::rotl(n).then(&self.pre),
            post: self.post,
            inv_post: self.inv_post,
        }
    }
}

/// s1, derived above (γ = 0x12): pre = U·F with U·F·0xc5, post =
/// H·U⁻¹·M⁻¹ with H·U⁻¹·M⁻¹·0x63 ⊕ 0x6e, inv_post = H·U⁻¹ with 0x6e.
pub const S1: Decomposition = Decomposition {
    pre: Affine {
        m: [0xb8, 0x03, 0xd9, 0x17, 0x0d, 0x59, 0x84, 0xee],
        c: 0x0b,
    },
    post: Affine {
        m: [0x1d, 0xa1, 0x48, 0x05, 0xe5, 0x4f, 0x1b, 0xca],
        c: 0x86,
    },
    inv_post: Affine {
        m: [0x14, 0x46, 0xfc, 0x7e, 0x66, 0x22, 0x25, 0x3b],
        c: 0x6e,
    },
};

/// s2(x) = s1(x) <<< 1.
pub const S2: Decomposition = S1.out_rotl(1);
/// s3(x) = s1(x) >>> 1 (= <<< 7).
pub const S3: Decomposition = S1.out_rotl(7);
/// s4(x) = s1(x <<< 1).
pub const S4: Decomposition = S1.in_rotl(1);

/// s1..s4 by index 0..3.
pub const SBOXES: [Decomposition; 4] = [S1, S2, S3, S4];

/// Which S-box (index into `SBOXES`) the F-function applies to its bytes
/// t1..t8: s1, s2, s3, s4, s2, s3, s4, s1 (RFC 3713 §2.4.1).
pub const F_SBOX: [usize; 8] = [0, 1, 2, 3, 1, 2, 3, 0];

/// a·b in AES's field GF(2)[x]/(x^8 + x^4 + x^3 + x + 1), no branches.
pub const fn gf_mul(a: u8, b: u8) -> u8 {
    let mut a = a;
    let mut r = 0u8;
    let mut i = 0;
    while i < 8 {
        r ^= a & 0u8.wrapping_sub((b >> i) & 1);
        a = (a << 1) ^ (0x1b & 0u8.wrapping_sub(a >> 7));
        i += 1;
    }
    r
}

/// Inversion in AES's field, 0 ↦ 0 (x^254, fixed square-and-multiply).
pub const fn gf_inv(x: u8) -> u8 {
    // 254 = 2 + 4 + ... + 128: r = x^2 · x^4 · ... · x^128.
    let mut r = 1u8;
    let mut p = x;
    let mut i = 0;
    while i < 7 {
        p = gf_mul(p, p);
        r = gf_mul(r, p);
        i += 1;
    }
    r
}

/// AES's SubBytes on one byte, computed (FIPS 197 §5.1.1).
pub const fn aes_sub_byte(x: u8) -> u8 {
    let b = gf_inv(x);
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
}

/// The subkeys of one key in the order a byte-sliced or bitsliced
/// implementation consumes them, shared by the constant-time variants.
///
/// `enc` is kw1 kw2, k1..k6, ke1 ke2, k7..k12, ke3 ke4, k13..k18,
/// (ke5 ke6, k19..k24,) kw3 kw4 — `8·groups + 2` words, `groups` being the
/// number of six-round blocks (3 or 4). `dec` is the same list for
/// decryption (RFC 3713 §2.3.3: kw1 ↔ kw3, kw2 ↔ kw4, k_i ↔ k_(r+1−i),
/// ke_i ↔ ke_(m+1−i)), which is `enc` read backwards with the two
/// whitening pairs kept in order.
#[derive(Clone)]
pub struct Subkeys {
    pub enc: [u64; 34],
    pub dec: [u64; 34],
    /// 3 for 128-bit keys, 4 for 192- and 256-bit keys.
    pub groups: usize,
}

/// Sigma1..Sigma6 (RFC 3713 §2.2).
const SIGMA: [u64; 6] = [
    0xA09E667F3BCC908B,
    0xB67AE8584CAA73B2,
    0xC6EF372FE94F82BE,
    0x54FF53A5F1D36F1C,
    0x10E527FADE682D1D,
    0xB05688C2B3E6C1FD,
];

impl Subkeys {
    /// RFC 3713 §2.2 with `f` as the F-function (each variant passes its
    /// own constant-time F). None unless key.len() is 16, 24 or 32. Every
    /// step is a fixed rotation, XOR or call of `f`: nothing branches on or
    /// indexes with key bits.
    pub fn new(key: &[u8], mut f: impl FnMut(u64, u64) -> u64) -> Option<Subkeys> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let w = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&key[8 * i..8 * i + 8]);
            u64::from_be_bytes(b)
        };
        let join = |a: u64, b: u64| ((a as u128) << 64) | b as u128;
        let kl = join(w(0), w(1));
        let kr = match key.len() {
            16 => 0,
            24 => join(w(2), !w(2)),
            _ => join(w(2), w(3)),
        };
        let x = kl ^ kr;
        let (mut d1, mut d2) = ((x >> 64) as u64, x as u64);
        d2 ^= f(d1, SIGMA[0]);
        d1 ^= f(d2, SIGMA[1]);
        d1 ^= (kl >> 64) as u64;
        d2 ^= kl as u64;
        d2 ^= f(d1, SIGMA[2]);
        d1 ^= f(d2, SIGMA[3]);
        let ka = join(d1, d2);
        // Halves of a 128-bit value rotated left by n.
        let hl = |v: u128, n: u32| {
            let r = v.rotate_left(n);
            [(r >> 64) as u64, r as u64]
        };
        let mut enc = [0u64; 34];
        let groups;
        let parts: &[[u64; 2]] = if key.len() == 16 {
            groups = 3;
            let k9_k10 = [hl(ka, 45)[0], hl(kl, 60)[1]];
            &[
                hl(kl, 0),   // kw1 kw2
                hl(ka, 0),   // k1 k2
                hl(kl, 15),  // k3 k4
                hl(ka, 15),  // k5 k6
                hl(ka, 30),  // ke1 ke2
                hl(kl, 45),  // k7 k8
                k9_k10,      // k9 = (KA <<< 45)L, k10 = (KL <<< 60)R
                hl(ka, 60),  // k11 k12
                hl(kl, 77),  // ke3 ke4
                hl(kl, 94),  // k13 k14
                hl(ka, 94),  // k15 k16
                hl(kl, 111), // k17 k18
                hl(ka, 111), // kw3 kw4
            ]
        } else {
            let x = ka ^ kr;
            let (mut d1, mut d2) = ((x >> 64) as u64, x as u64);
            d2 ^= f(d1, SIGMA[4]);
            d1 ^= f(d2, SIGMA[5]);
            let kb = join(d1, d2);
            groups = 4;
            &[
                hl(kl, 0),   // kw1 kw2
                hl(kb, 0),   // k1 k2
                hl(kr, 15),  // k3 k4
                hl(ka, 15),  // k5 k6
                hl(kr, 30),  // ke1 ke2
                hl(kb, 30),  // k7 k8
                hl(kl, 45),  // k9 k10
                hl(ka, 45),  // k11 k12
                hl(kl, 60),  // ke3 ke4
                hl(kr, 60),  // k13 k14
                hl(kb, 60),  // k15 k16
                hl(kl, 77),  // k17 k18
                hl(ka, 77),  // ke5 ke6
                hl(kr, 94),  // k19 k20
                hl(ka, 94),  // k21 k22
                hl(kl, 111), // k23 k24
                hl(kb, 111), // kw3 kw4
            ]
        };
        for (i, p) in parts.iter().enumerate() {
            enc[2 * i] = p[0];
            enc[2 * i + 1] = p[1];
        }
        let n = 8 * groups + 2;
        let mut dec = [0u64; 34];
        for i in 0..n {
            dec[i] = enc[n - 1 - i];
        }
        dec.swap(0, 1);
        dec.swap(n - 2, n - 1);
        Some(Subkeys { enc, dec, groups })
    }

    /// k1, k2, k3, k4, big-endian (the order reference.rs, table32.rs and
    /// table64.rs use).
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for i in 0..4 {
            out[8 * i..8 * i + 8].copy_from_slice(&self.enc[2 + i].to_be_bytes());
        }
        out
    }

    /// The subkey list for one direction.
    pub fn list(&self, decrypt: bool) -> &[u64] {
        let n = 8 * self.groups + 2;
        if decrypt {
            &self.dec[..n]
        } else {
            &self.enc[..n]
        }
    }
}

/// The byte-sliced Camellia rounds, written once for the SIMD variants
/// (`aesni`, `gfni`): sixteen registers of type `V`, register j holding
/// byte j (RFC 3713 order, byte 0 the most significant of D1) of every
/// block of the batch, so the F-function's S-boxes work on whole registers
/// and the P-function is XORs of registers. Expanded inside a module that
/// provides, for its register type `V`:
/// - `xor`, `and`, `or` (bitwise), `splat(u8) -> V`, `shl1` (each byte
///   shifted left by one), `msb` (each byte's top bit moved to bit 0),
///   `lane0(V) -> u8` (byte 0);
/// - `s1`..`s4`, the S-boxes on every byte;
/// - `unpacklo8`/`unpackhi8` (PUNPCKLBW/PUNPCKHBW within each 128-bit
///   lane);
/// - `load_state(&[u8; BATCH]) -> [V; 16]` and
///   `store_state(&[V; 16], &mut [u8; BATCH])`, register r = bytes
///   `size_of::<V>()·r ..`.
///
/// The macro's attributes (the target features) go on every function it
/// defines. It defines `BATCH` (bytes per batch), `blocks` (ECB over whole
/// blocks, a partial last batch padded) and `f_scalar` (F on one 64-bit
/// value, for the key schedule). Nothing in it branches on or indexes with
/// key or data; the subkeys are broadcast into registers.
#[cfg(target_arch = "x86_64")]
macro_rules! byte_sliced {
    ($(#[$attr:meta])*) => {
        /// Bytes per batch: sixteen registers, sixteen bytes per block.
        const BATCH: usize = 16 * core::mem::size_of::<V>();

        /// `y ^= P(S(x ^ k))`: the F-function (RFC 3713 §2.4.1) of the
        /// half `x`, XORed into the other half `y`.
        $(#[$attr])*
        #[inline]
        fn f_into(x: &[V; 8], k: u64, y: &mut [V; 8]) {
            let k = k.to_be_bytes();
            let t = [
                s1(xor(x[0], splat(k[0]))),
                s2(xor(x[1], splat(k[1]))),
                s3(xor(x[2], splat(k[2]))),
                s4(xor(x[3], splat(k[3]))),
                s2(xor(x[4], splat(k[4]))),
                s3(xor(x[5], splat(k[5]))),
                s4(xor(x[6], splat(k[6]))),
                s1(xor(x[7], splat(k[7]))),
            ];
            // P with a = t1^t2^t3^t4, b = t5^t6^t7^t8 (1-based):
            // z_j = (a ^ t_(j+1)) ^ (b ^ t_(j+4)), z_(j+4) = z_j ^ (a ^ t_j)
            // for j = 1..4, t_5 meaning t_1 in the first term.
            let a = xor(xor(t[0], t[1]), xor(t[2], t[3]));
            let b = xor(xor(t[4], t[5]), xor(t[6], t[7]));
            let v = [xor(a, t[0]), xor(a, t[1]), xor(a, t[2]), xor(a, t[3])];
            for j in 0..4 {
                let z = xor(v[(j + 1) % 4], xor(b, t[4 + j]));
                y[j] = xor(y[j], z);
                y[4 + j] = xor(y[4 + j], xor(z, v[j]));
            }
        }

        /// `x ^= k` with the subkey's bytes broadcast.
        $(#[$attr])*
        #[inline]
        fn xor_key(x: &mut [V; 8], k: u64) {
            let k = k.to_be_bytes();
            for j in 0..8 {
                x[j] = xor(x[j], splat(k[j]));
            }
        }

        /// `(h1 & klL) <<< 1` for the 32-bit word h1 whose bytes are
        /// `h[0..4]`: bit 0 of byte j comes from bit 7 of byte j + 1.
        $(#[$attr])*
        #[inline]
        fn and_rotl1(h: &[V; 8], k: &[u8; 8]) -> [V; 4] {
            let mut t = [splat(0); 4];
            for j in 0..4 {
                t[j] = and(h[j], splat(k[j]));
            }
            let mut r = [splat(0); 4];
            for j in 0..4 {
                r[j] = or(shl1(t[j]), msb(t[(j + 1) % 4]));
            }
            r
        }

        /// FL (RFC 3713 §2.4.2): x2 ^= (x1 & klL) <<< 1, x1 ^= x2 | klR.
        $(#[$attr])*
        #[inline]
        fn fl(x: &mut [V; 8], k: u64) {
            let k = k.to_be_bytes();
            let r = and_rotl1(x, &k);
            for j in 0..4 {
                x[4 + j] = xor(x[4 + j], r[j]);
            }
            for j in 0..4 {
                x[j] = xor(x[j], or(x[4 + j], splat(k[4 + j])));
            }
        }

        /// FL⁻¹ (RFC 3713 §2.4.2): y1 ^= y2 | klR, y2 ^= (y1 & klL) <<< 1.
        $(#[$attr])*
        #[inline]
        fn flinv(y: &mut [V; 8], k: u64) {
            let k = k.to_be_bytes();
            for j in 0..4 {
                y[j] = xor(y[j], or(y[4 + j], splat(k[4 + j])));
            }
            let r = and_rotl1(y, &k);
            for j in 0..4 {
                y[4 + j] = xor(y[4 + j], r[j]);
            }
        }

        /// 16×16 byte transpose within each 128-bit lane: four rounds of
        /// `s'[2i] = unpacklo8(s[i], s[i + 8])`, `s'[2i + 1] = unpackhi8(..)`.
        /// Each round rotates the 8-bit address (register, byte) left by
        /// one, so four rounds swap its halves: an involution.
        $(#[$attr])*
        #[inline]
        fn transpose(s: &mut [V; 16]) {
            for _ in 0..4 {
                let a = *s;
                for i in 0..8 {
                    s[2 * i] = unpacklo8(a[i], a[i + 8]);
                    s[2 * i + 1] = unpackhi8(a[i], a[i + 8]);
                }
            }
        }

        /// RFC 3713 §2.3.1/§2.3.2 on the byte-sliced state with a subkey
        /// list of `affine::Subkeys` (`8·groups + 2` words); §2.3.3 is the
        /// same with the decryption list.
        $(#[$attr])*
        fn crypt(s: &mut [V; 16], ks: &[u64], groups: usize) {
            assert_eq!(ks.len(), 8 * groups + 2);
            let mut l = [splat(0); 8];
            let mut r = [splat(0); 8];
            for j in 0..8 {
                l[j] = s[j];
                r[j] = s[8 + j];
            }
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
            for j in 0..8 {
                s[j] = r[j];
                s[8 + j] = l[j];
            }
        }

        $(#[$attr])*
        fn batch(b: &mut [u8; BATCH], ks: &[u64], groups: usize) {
            let mut s = load_state(b);
            transpose(&mut s);
            crypt(&mut s, ks, groups);
            transpose(&mut s);
            store_state(&s, b);
        }

        /// ECB over the whole 16-byte blocks of `buf` (a trailing partial
        /// block is left alone); a last partial batch is padded with zero
        /// blocks, computed and dropped.
        $(#[$attr])*
        pub(crate) fn blocks(buf: &mut [u8], ks: &[u64], groups: usize) {
            let mut chunks = buf.chunks_exact_mut(BATCH);
            for c in &mut chunks {
                batch(c.try_into().expect("whole batch"), ks, groups);
            }
            let rest = chunks.into_remainder();
            let n = rest.len() / 16 * 16;
            if n > 0 {
                let mut b = [0u8; BATCH];
                b[..n].copy_from_slice(&rest[..n]);
                batch(&mut b, ks, groups);
                rest[..n].copy_from_slice(&b[..n]);
            }
        }

        /// F(x, k) on one value, every lane the same, through the same
        /// S-box code as the data (the key schedule's F).
        $(#[$attr])*
        pub(crate) fn f_scalar(x: u64, k: u64) -> u64 {
            let xb = x.to_be_bytes();
            let mut xs = [splat(0); 8];
            for j in 0..8 {
                xs[j] = splat(xb[j]);
            }
            let mut y = [splat(0); 8];
            f_into(&xs, k, &mut y);
            let mut out = [0u8; 8];
            for j in 0..8 {
                out[j] = lane0(y[j]);
            }
            u64::from_be_bytes(out)
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use byte_sliced;

/// A Camellia key type over a byte-sliced module (`byte_sliced!`): `new`
/// checks the CPU with `$available`, the key schedule's F and the batches
/// go through the module's `f_scalar` and `blocks`.
#[cfg(target_arch = "x86_64")]
macro_rules! key_type {
    ($(#[$doc:meta])* $name:ident, $module:ident, $available:ident, $blocks:literal, $cpu:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            sk: Subkeys,
        }

        impl $name {
            /// Blocks per batch.
            pub const BLOCKS: usize = $blocks;

            #[doc = concat!("None unless key.len() is 16, 24 or 32 and the CPU has ", $cpu, ".")]
            pub fn new(key: &[u8]) -> Option<$name> {
                $available().ok()?;
                // SAFETY: the availability check has just found the
                // module's CPU features.
                let sk = Subkeys::new(key, |x, k| unsafe { $module::f_scalar(x, k) })?;
                Some($name { sk })
            }

            /// ECB encryption of the whole blocks of `buf`, in place.
            pub fn encrypt_blocks(&self, buf: &mut [u8]) {
                // SAFETY: the key is only made by new(), after the
                // availability check found the module's CPU features.
                unsafe { $module::blocks(buf, self.sk.list(false), self.sk.groups) }
            }

            /// ECB decryption of the whole blocks of `buf`, in place.
            pub fn decrypt_blocks(&self, buf: &mut [u8]) {
                // SAFETY: as in encrypt_blocks.
                unsafe { $module::blocks(buf, self.sk.list(true), self.sk.groups) }
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
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use key_type;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_four_sboxes_all_inputs() {
        let s1 = super::super::reference::SBOX1;
        assert_eq!(s1[0x3d], 86, "RFC 3713's example");
        for x in 0..=255u8 {
            let want = [
                s1[x as usize],
                s1[x as usize].rotate_left(1),
                s1[x as usize].rotate_left(7),
                s1[x.rotate_left(1) as usize],
            ];
            for (i, d) in SBOXES.iter().enumerate() {
                assert_eq!(
                    d.eval_sb(x),
                    want[i],
                    "s{} SubBytes form at {x:#04x}",
                    i + 1
                );
                assert_eq!(d.eval(x), want[i], "s{} inversion form at {x:#04x}", i + 1);
                // The nibble tables and the GFNI matrix encode the same maps.
                for a in [d.pre, d.post, d.inv_post] {
                    let (lo, hi) = (a.nibble_lo(), a.nibble_hi());
                    assert_eq!(lo[(x & 15) as usize] ^ hi[(x >> 4) as usize], a.apply(x));
                    let q = a.gfni_matrix();
                    let mut y = a.c;
                    for bit in 0..8 {
                        let row = (q >> (8 * (7 - bit))) as u8;
                        y ^= (((row & x).count_ones() & 1) as u8) << bit;
                    }
                    assert_eq!(y, a.apply(x));
                }
            }
        }
    }

    #[test]
    fn gfni_matrix_layout_matches_published_constants() {
        // Identity and bit reversal as GF2P8AFFINEQB operands, and AES's
        // affine map (FIPS 197 §5.1.1), whose operand 0xf1e3c78f1f3e7cf8
        // with constant 0x63 makes GF2P8AFFINEINVQB compute SubBytes
        // (Intel's GFNI documentation): checks byte 7 − i = row i.
        let id = Affine::rotl(0);
        assert_eq!(id.gfni_matrix(), 0x0102_0408_1020_4080);
        let rev = Affine {
            m: core::array::from_fn(|j| 0x80 >> j),
            c: 0,
        };
        assert_eq!(rev.gfni_matrix(), 0x8040_2010_0804_0201);
        let aes = Affine {
            m: core::array::from_fn(|j| {
                let b = 1u8 << j;
                b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4)
            }),
            c: 0x63,
        };
        assert_eq!(aes.gfni_matrix(), 0xf1e3_c78f_1f3e_7cf8);
        for x in 0..=255u8 {
            assert_eq!(aes.apply(gf_inv(x)), aes_sub_byte(x));
        }
    }

    #[test]
    fn aes_sbox_spot_values() {
        // FIPS 197 Figure 7: S(0x00) = 0x63, S(0x53) = 0xed, S(0xff) = 0x16.
        assert_eq!(aes_sub_byte(0x00), 0x63);
        assert_eq!(aes_sub_byte(0x53), 0xed);
        assert_eq!(aes_sub_byte(0xff), 0x16);
    }

    /// Multiplication modulo an 8-bit polynomial `poly` (x^8 term included).
    fn pmul(mut a: u16, mut b: u16, poly: u16) -> u16 {
        let mut r = 0;
        while b != 0 {
            if b & 1 == 1 {
                r ^= a;
            }
            b >>= 1;
            a <<= 1;
            if a & 0x100 != 0 {
                a ^= poly;
            }
        }
        r
    }

    fn ppow(a: u16, n: u32, poly: u16) -> u16 {
        (0..n).fold(1, |r, _| pmul(r, a, poly))
    }

    /// Columns of a linear map given as a function.
    fn cols(f: impl Fn(u8) -> u8) -> Affine {
        Affine {
            m: core::array::from_fn(|j| f(1 << j)),
            c: 0,
        }
    }

    fn invert(a: &Affine) -> Affine {
        let mut m = [0u8; 8];
        for v in 0..=255u8 {
            let w = a.linear(v);
            if w.is_power_of_two() {
                m[w.trailing_zeros() as usize] = v;
            }
        }
        Affine { m, c: 0 }
    }

    /// Repeats the derivation of the module comment from the spec's
    /// §4.5 definitions and compares with `S1`.
    #[test]
    fn derivation_from_the_spec_gives_s1() {
        // Bit a_k (k = 1..8, a1 most significant) of x.
        let a = |x: u8, k: u32| (x >> (8 - k)) & 1;
        let from = |b: [u8; 8]| b.iter().fold(0u8, |v, &bit| (v << 1) | bit);
        let f = cols(|x| {
            let a = |k| a(x, k);
            from([
                a(6) ^ a(2),
                a(7) ^ a(1),
                a(8) ^ a(5) ^ a(3),
                a(8) ^ a(3),
                a(7) ^ a(4),
                a(5) ^ a(2),
                a(8) ^ a(1),
                a(6) ^ a(4),
            ])
        });
        let h = cols(|x| {
            let a = |k| a(x, k);
            from([
                a(5) ^ a(6) ^ a(2),
                a(6) ^ a(2),
                a(7) ^ a(4),
                a(8) ^ a(2),
                a(7) ^ a(3),
                a(8) ^ a(1),
                a(5) ^ a(1),
                a(6) ^ a(3),
            ])
        });
        const PB: u16 = 0x169; // β^8 + β^6 + β^5 + β^3 + 1
        const PA: u16 = 0x11b; // x^8 + x^4 + x^3 + x + 1
        let alpha = ppow(2, 238, PB);
        assert_eq!(alpha, 0b0110_1100, "α = β^6 + β^5 + β^3 + β^2");
        assert_eq!(ppow(alpha, 4, PB) ^ alpha ^ 1, 0, "α^4 + α + 1 = 0");
        // T: bit j ↦ α^j, bit 4 + j ↦ α^j·β.
        let t = Affine {
            m: core::array::from_fn(|j| {
                let aj = ppow(alpha, (j % 4) as u32, PB);
                (if j < 4 { aj } else { pmul(aj, 2, PB) }) as u8
            }),
            c: 0,
        };
        // The spec's g reproduces SBOX1 with f and h.
        let s1 = super::super::reference::SBOX1;
        let g = |x: u8| {
            let y = t.linear(x) as u16;
            let inv = if y == 0 { 0 } else { ppow(y, 254, PB) };
            invert(&t).linear(inv as u8)
        };
        for x in 0..=255u8 {
            assert_eq!(h.linear(g(f.linear(x ^ 0xc5))) ^ 0x6e, s1[x as usize]);
        }
        // The roots of β's polynomial in AES's field; the smallest is used.
        let roots: Vec<u16> = (0..256)
            .filter(|&y| ppow(y, 8, PA) ^ ppow(y, 6, PA) ^ ppow(y, 5, PA) ^ ppow(y, 3, PA) ^ 1 == 0)
            .collect();
        assert_eq!(roots, [0x12, 0x13, 0x1e, 0x1f, 0x4e, 0x4f, 0xfe, 0xff]);
        let phi = Affine {
            m: core::array::from_fn(|i| ppow(roots[0], i as u32, PA) as u8),
            c: 0,
        };
        let u = t.then(&phi); // U = Φ·T
        let pre = f.then(&u);
        let pre = Affine {
            m: pre.m,
            c: pre.linear(0xc5),
        };
        let hu = invert(&u).then(&h);
        let m_aes =
            cols(|b| b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4));
        let post = invert(&m_aes).then(&hu);
        let post = Affine {
            m: post.m,
            c: post.linear(0x63) ^ 0x6e,
        };
        let inv_post = Affine { m: hu.m, c: 0x6e };
        assert_eq!(
            S1,
            Decomposition {
                pre,
                post,
                inv_post
            }
        );
        // Every root gives a valid decomposition too.
        for &gamma in &roots {
            let phi = Affine {
                m: core::array::from_fn(|i| ppow(gamma, i as u32, PA) as u8),
                c: 0,
            };
            let u = t.then(&phi);
            let pre = f.then(&u);
            let hu = invert(&u).then(&h);
            for x in 0..=255u8 {
                let y = hu.linear(gf_inv(pre.linear(x) ^ pre.linear(0xc5))) ^ 0x6e;
                assert_eq!(y, s1[x as usize], "γ = {gamma:#x}");
            }
        }
    }

    #[test]
    fn subkey_lists() {
        // With F = 0 the schedule is all rotations of the key; check the
        // list shapes and the decryption order.
        let key: Vec<u8> = (0..32).collect();
        for len in [16, 24, 32] {
            let s = Subkeys::new(&key[..len], |_, _| 0).expect("key");
            let n = 8 * s.groups + 2;
            assert_eq!(n, if len == 16 { 26 } else { 34 });
            let (e, d) = (s.list(false), s.list(true));
            assert_eq!((d[0], d[1]), (e[n - 2], e[n - 1]));
            assert_eq!((d[n - 2], d[n - 1]), (e[0], e[1]));
            for i in 2..n - 2 {
                assert_eq!(d[i], e[n - 1 - i]);
            }
        }
        assert!(Subkeys::new(&key[..15], |_, _| 0).is_none());
    }
}
