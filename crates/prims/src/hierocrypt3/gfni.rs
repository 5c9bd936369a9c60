//! Hierocrypt-3 without lookup tables, one block in an XMM register, by
//! GFNI. The S-box is s(x) = π(x)^247 ⊕ 0x07 in GF(2^8) mod 0x163, and
//! x^247 = (x^-1)^8, so s = L ∘ inv ∘ π ⊕ 7 with π a bit permutation and L
//! (x ↦ x^8) linear. The field is isomorphic to AES's by a linear φ
//! (z ↦ a root of z^8+z^6+z^5+z+1 in AES's field, found at compile time),
//! so s(x) = (L∘φ⁻¹)·inv_AES(φ∘π·x) ⊕ 7: GF2P8AFFINEQB with φ∘π, then
//! GF2P8AFFINEINVQB with L∘φ⁻¹ and 7; s⁻¹ the same way. mdsL's products by
//! its four coefficients are GF(2)-linear maps (four GF2P8AFFINEQB), its
//! circulant structure three byte shuffles within the columns; MDSH, binary
//! at the byte level, is sixteen shuffles (one per diagonal of its 16×16
//! byte matrix, a zero where the diagonal has none) and XORs. Decryption
//! is the direct inverse with the same keys.
//!
//! Constant time: no table, no branch and no memory index depends on the
//! key or the data; the key schedule's F_σ goes through the same S-box
//! (the 8 bytes in a register) and skips the decryption keys of the table
//! variants (which would index tables).

use super::spec::{gmul, MH, MH_INV, ML, ML_INV};
use super::table32::mask;
use super::{expand_with, Keys};
use crate::camellia::affine::Affine;

/// Bytes of lookup tables indexed by key or data: none.
pub const TABLE_BYTES: usize = 0;

/// x^e in GF(2^8) mod 0x163.
const fn pow163(x: u8, e: u32) -> u8 {
    let mut r = 1u8;
    let mut i = 0;
    while i < e {
        r = gmul(r, x);
        i += 1;
    }
    r
}

/// A linear map from the images of the basis bytes 1 << j.
const fn linear(f: &[u8; 8]) -> Affine {
    Affine { m: *f, c: 0 }
}

/// The root of z^8+z^6+z^5+z+1 in AES's field with the smallest value.
const ROOT: u8 = {
    use crate::camellia::affine::gf_mul;
    let mut g = 2u16;
    let mut found = 0u8;
    while g < 256 && found == 0 {
        let x = g as u8;
        let p2 = gf_mul(x, x);
        let p4 = gf_mul(p2, p2);
        let p5 = gf_mul(p4, x);
        let p6 = gf_mul(p4, p2);
        let p8 = gf_mul(p4, p4);
        if p8 ^ p6 ^ p5 ^ x ^ 1 == 0 {
            found = x;
        }
        g += 1;
    }
    found
};

/// φ: Σ b_j z^j ↦ Σ b_j ROOT^j (0x163's field into AES's).
const PHI: Affine = {
    use crate::camellia::affine::gf_mul;
    let mut m = [0u8; 8];
    let mut p = 1u8;
    let mut j = 0;
    while j < 8 {
        m[j] = p;
        p = gf_mul(p, ROOT);
        j += 1;
    }
    linear(&m)
};

/// The inverse of a bijective linear map (by search on the basis).
const fn inverse(a: &Affine) -> Affine {
    let mut m = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let mut x = 0u16;
        while x < 256 {
            if a.linear(x as u8) == 1 << j {
                m[j] = x as u8;
            }
            x += 1;
        }
        j += 1;
    }
    linear(&m)
}

const PHI_INV: Affine = inverse(&PHI);

/// π: output bit i (1 = most significant) from input bit [3 7 5 8 6 2 4 1][i].
const PI: Affine = {
    const SRC: [u32; 8] = [3, 7, 5, 8, 6, 2, 4, 1];
    let mut m = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        // Input bit number SRC[i] (MSB = 1) is bit 8 - SRC[i] from the LSB.
        m[(8 - SRC[i]) as usize] |= 1 << (7 - i);
        i += 1;
    }
    linear(&m)
};

/// x ↦ x^e in 0x163's field for e a power of two (linear).
const fn frobenius(e: u32) -> Affine {
    let mut m = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        m[j] = pow163(1 << j, e);
        j += 1;
    }
    linear(&m)
}

/// s: PRE then AES's inversion then POST (with its constant 7).
const PRE: Affine = PI.then(&PHI);
const POST: Affine = {
    let l = PHI_INV.then(&frobenius(8));
    Affine { m: l.m, c: 7 }
};
/// s⁻¹: y ↦ φ(L⁻¹(y ⊕ 7)), inversion, then π⁻¹∘φ⁻¹.
const PRE_INV: Affine = {
    let l = frobenius(32).then(&PHI);
    Affine {
        m: l.m,
        c: l.linear(7),
    }
};
const POST_INV: Affine = PHI_INV.then(&inverse(&PI));

/// Multiplication by a constant of 0x163's field.
const fn times(c: u8) -> Affine {
    let mut m = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        m[j] = gmul(c, 1 << j);
        j += 1;
    }
    linear(&m)
}

/// mdsL's (or its inverse's) products by its first row, as GFNI operands.
const fn row_matrices(m: &[[u8; 4]; 4]) -> [u64; 4] {
    [
        times(m[0][0]).gfni_matrix(),
        times(m[0][1]).gfni_matrix(),
        times(m[0][2]).gfni_matrix(),
        times(m[0][3]).gfni_matrix(),
    ]
}

const L_MUL: [u64; 4] = row_matrices(&ML);
const L_INV_MUL: [u64; 4] = row_matrices(&ML_INV);

/// R_k: lane 4j+i takes lane 4j+(i+k) mod 4 (x_{i+k} in column j).
const fn rotations() -> [[u8; 16]; 4] {
    let mut r = [[0u8; 16]; 4];
    let mut k = 0;
    while k < 4 {
        let mut l = 0;
        while l < 16 {
            r[k][l] = (4 * (l / 4) + (l % 4 + k) % 4) as u8;
            l += 1;
        }
        k += 1;
    }
    r
}

const ROT: [[u8; 16]; 4] = rotations();

/// MDSH's diagonals: shuffle d puts input lane (o + d) mod 16 in output
/// lane o where the byte matrix has a one there, 0x80 (zero) elsewhere.
const fn diagonals(m: &[[u8; 4]; 4]) -> [[u8; 16]; 16] {
    let mut t = [[0x80u8; 16]; 16];
    let mut d = 0;
    while d < 16 {
        let mut o = 0;
        while o < 16 {
            let q = (o + d) % 16;
            if (mask(m, o / 4, q) >> (24 - 8 * (o % 4))) & 0xff != 0 {
                t[d][o] = q as u8;
            }
            o += 1;
        }
        d += 1;
    }
    t
}

const H_DIAG: [[u8; 16]; 16] = diagonals(&MH);
const H_INV_DIAG: [[u8; 16]; 16] = diagonals(&MH_INV);

/// Needs GFNI and SSSE3.
pub fn available() -> Result<(), &'static str> {
    if !std::arch::is_x86_feature_detected!("gfni") {
        return Err("needs GFNI");
    }
    if !std::arch::is_x86_feature_detected!("ssse3") {
        return Err("needs SSSE3");
    }
    Ok(())
}

mod hw {
    use super::*;
    use core::arch::x86_64::*;

    const PRE_C: i32 = PRE.c as i32;
    const POST_C: i32 = POST.c as i32;
    const PRE_INV_C: i32 = PRE_INV.c as i32;
    const POST_INV_C: i32 = POST_INV.c as i32;

    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    fn q(m: u64) -> __m128i {
        _mm_set1_epi64x(m as i64)
    }

    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    fn v(b: &[u8; 16]) -> __m128i {
        // SAFETY: a 16-byte array is 16 readable bytes; loadu has no
        // alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    pub(super) fn s(x: __m128i) -> __m128i {
        let y = _mm_gf2p8affine_epi64_epi8::<PRE_C>(x, q(PRE.gfni_matrix()));
        _mm_gf2p8affineinv_epi64_epi8::<POST_C>(y, q(POST.gfni_matrix()))
    }

    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    fn s_inv(x: __m128i) -> __m128i {
        let y = _mm_gf2p8affine_epi64_epi8::<PRE_INV_C>(x, q(PRE_INV.gfni_matrix()));
        _mm_gf2p8affineinv_epi64_epi8::<POST_INV_C>(y, q(POST_INV.gfni_matrix()))
    }

    /// mdsL (or its inverse) on the four columns.
    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    fn l(x: __m128i, mul: &[u64; 4]) -> __m128i {
        let mut y = _mm_gf2p8affine_epi64_epi8::<0>(x, q(mul[0]));
        for k in 1..4 {
            let p = _mm_gf2p8affine_epi64_epi8::<0>(x, q(mul[k]));
            y = _mm_xor_si128(y, _mm_shuffle_epi8(p, v(&ROT[k])));
        }
        y
    }

    /// MDSH (or its inverse) by its diagonals.
    #[inline]
    #[target_feature(enable = "gfni,ssse3,sse2")]
    fn h(x: __m128i, diag: &[[u8; 16]; 16]) -> __m128i {
        let mut y = _mm_setzero_si128();
        for d in diag {
            y = _mm_xor_si128(y, _mm_shuffle_epi8(x, v(d)));
        }
        y
    }

    #[target_feature(enable = "gfni,ssse3,sse2")]
    pub(super) fn encrypt(k: &RoundKeys, b: &mut [u8; 16]) {
        let mut x = v(b);
        for r in 0..k.t {
            x = s(_mm_xor_si128(x, v(&k.a[r])));
            x = s(_mm_xor_si128(l(x, &L_MUL), v(&k.b[r])));
            if r + 1 < k.t {
                x = h(x, &H_DIAG);
            }
        }
        x = _mm_xor_si128(x, v(&k.a[k.t]));
        // SAFETY: 16 writable bytes; storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
    }

    #[target_feature(enable = "gfni,ssse3,sse2")]
    pub(super) fn decrypt(k: &RoundKeys, b: &mut [u8; 16]) {
        let mut x = _mm_xor_si128(v(b), v(&k.a[k.t]));
        for r in (0..k.t).rev() {
            if r + 1 < k.t {
                x = h(x, &H_INV_DIAG);
            }
            x = _mm_xor_si128(s_inv(x), v(&k.b[r]));
            x = _mm_xor_si128(s_inv(l(x, &L_INV_MUL)), v(&k.a[r]));
        }
        // SAFETY: 16 writable bytes; storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
    }

    /// The S-box on the 8 bytes of a word (the key schedule's F_σ).
    #[target_feature(enable = "gfni,ssse3,sse2")]
    pub(super) fn s64(x: u64) -> u64 {
        _mm_cvtsi128_si64(s(_mm_cvtsi64_si128(x as i64))) as u64
    }
}

/// The round keys as the bytes the register loads.
#[derive(Clone)]
pub struct RoundKeys {
    t: usize,
    a: [[u8; 16]; 9],
    b: [[u8; 16]; 9],
}

fn bytes(k: &[u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(k) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// The keyed cipher (made only where [`available`] holds).
pub struct Key {
    k: RoundKeys,
}

impl Key {
    pub fn new(key: &[u8]) -> Option<Key> {
        available().ok()?;
        // SAFETY: GFNI and SSSE3 are present (checked above).
        let sbox = |x: u64| unsafe { hw::s64(x) };
        let k: Keys = expand_with(key, sbox, false)?;
        Some(Key {
            k: RoundKeys {
                t: k.t,
                a: k.a.map(|x| bytes(&x)),
                b: k.b.map(|x| bytes(&x)),
            },
        })
    }

    pub fn encrypt_block(&self, b: &mut [u8; 16]) {
        // SAFETY: a Key exists only where GFNI and SSSE3 are present.
        unsafe { hw::encrypt(&self.k, b) }
    }

    pub fn decrypt_block(&self, b: &mut [u8; 16]) {
        // SAFETY: as above.
        unsafe { hw::decrypt(&self.k, b) }
    }

    /// A_1 ‖ B_1.
    pub fn schedule_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        out[..16].copy_from_slice(&self.k.a[0]);
        out[16..].copy_from_slice(&self.k.b[0]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camellia::affine::gf_inv;
    use crate::hierocrypt3::spec::{INV_SBOX, SBOX};

    /// The decomposition through AES's inversion gives the S-box and its
    /// inverse entry for entry (portable: no GFNI needed).
    #[test]
    fn s_box_through_aes_inversion() {
        assert_ne!(ROOT, 0);
        for x in 0..=255u8 {
            assert_eq!(
                POST.apply(gf_inv(PRE.apply(x))),
                SBOX[x as usize],
                "{x:#04x}"
            );
            assert_eq!(
                POST_INV.apply(gf_inv(PRE_INV.apply(x))),
                INV_SBOX[x as usize]
            );
        }
    }
}
