//! Camellia-128/192/256 with AES-NI, byte-sliced, in two widths:
//! - `Key`: 128-bit registers (AES-NI + AVX encoding), 16 blocks per batch;
//! - `KeyAvx2`: 256-bit registers (AES-NI + AVX2), 32 blocks per batch,
//!   AESENCLAST run on the two 128-bit halves of each register;
//! - `KeyVaes`: the same with VAES, one VAESENCLAST per 256-bit register
//!   (the instruction libgcrypt's VAES-AVX2 Camellia uses).
//!
//! Technique: the blocks of a batch are transposed so that register j
//! holds byte j of every block (`affine::byte_sliced!`), and the rounds of
//! RFC 3713 §2.3 work on whole registers. Each S-box is
//! s(x) = post(SubBytes(pre(x))) (derived in affine.rs): `pre` and `post`
//! are each two 4-bit PSHUFB lookups (the map of the low nibble, constant
//! included, XOR the map of the high nibble; 16-byte tables held in
//! registers and indexed lane by lane by the shuffle itself), SubBytes is
//! AESENCLAST with a zero round key, whose ShiftRows a third PSHUFB
//! undoes. The P-function is 30 register XORs; FL and FL⁻¹ are
//! AND/OR/XOR with the 32-bit rotation done bytewise (PADDB for the shift,
//! PSRLW and PAND for the carried top bit).
//!
//! Blocks per batch: 16 (`Key`), 32 (`KeyAvx2`, `KeyVaes`); `encrypt_block` runs a
//! batch with one live block.
//!
//! Lookup tables: no memory table is indexed by key or data, 0 bytes. The
//! twelve 16-byte nibble tables are shuffle operands: PSHUFB selects
//! within a register, its time does not depend on the index values.
//!
//! Constant time: no branch and no memory index depends on the key or the
//! data; the only branches are on the key length and the buffer length.
//! The key schedule's F goes through the same S-box code (`f_scalar`,
//! every lane the same value), its rotations are fixed.

use super::affine::{self, Subkeys};

/// Bytes of lookup tables indexed by key or data: none.
pub const TABLE_BYTES: usize = 0;

/// Needs AES-NI and AVX (which brings SSSE3's PSHUFB in VEX form).
pub fn available() -> Result<(), &'static str> {
    if !std::arch::is_x86_feature_detected!("aes") {
        return Err("needs AES-NI");
    }
    if !std::arch::is_x86_feature_detected!("avx") {
        return Err("needs AVX");
    }
    Ok(())
}

/// Needs AES-NI and AVX2.
pub fn available_avx2() -> Result<(), &'static str> {
    available()?;
    if !std::arch::is_x86_feature_detected!("avx2") {
        return Err("needs AVX2");
    }
    Ok(())
}

/// Needs VAES, AES-NI and AVX2.
pub fn available_vaes() -> Result<(), &'static str> {
    available_avx2()?;
    if !std::arch::is_x86_feature_detected!("vaes") {
        return Err("needs VAES");
    }
    Ok(())
}

/// Nibble tables of the four S-boxes' input maps (low nibble with the
/// constant, high nibble) and output maps.
const PRE_LO: [[u8; 16]; 4] = [
    affine::S1.pre.nibble_lo(),
    affine::S2.pre.nibble_lo(),
    affine::S3.pre.nibble_lo(),
    affine::S4.pre.nibble_lo(),
];
const PRE_HI: [[u8; 16]; 4] = [
    affine::S1.pre.nibble_hi(),
    affine::S2.pre.nibble_hi(),
    affine::S3.pre.nibble_hi(),
    affine::S4.pre.nibble_hi(),
];
const POST_LO: [[u8; 16]; 4] = [
    affine::S1.post.nibble_lo(),
    affine::S2.post.nibble_lo(),
    affine::S3.post.nibble_lo(),
    affine::S4.post.nibble_lo(),
];
const POST_HI: [[u8; 16]; 4] = [
    affine::S1.post.nibble_hi(),
    affine::S2.post.nibble_hi(),
    affine::S3.post.nibble_hi(),
    affine::S4.post.nibble_hi(),
];

/// PSHUFB indices undoing AESENCLAST's ShiftRows (FIPS 197 §5.1.2: byte
/// r + 4c of the output is byte r + 4((c + r) mod 4) of the input), so
/// byte m = r + 4c takes byte r + 4((c − r) mod 4).
const INV_SHIFT_ROWS: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut m = 0;
    while m < 16 {
        let (r, c) = (m % 4, m / 4);
        t[m] = (r + 4 * ((c + 4 - r) % 4)) as u8;
        m += 1;
    }
    t
};

mod ni {
    use super::{INV_SHIFT_ROWS, POST_HI, POST_LO, PRE_HI, PRE_LO};
    use core::arch::x86_64::*;

    type V = __m128i;

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn xor(a: V, b: V) -> V {
        _mm_xor_si128(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn and(a: V, b: V) -> V {
        _mm_and_si128(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn or(a: V, b: V) -> V {
        _mm_or_si128(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn splat(b: u8) -> V {
        _mm_set1_epi8(b as i8)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn shl1(a: V) -> V {
        _mm_add_epi8(a, a)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn msb(a: V) -> V {
        _mm_and_si128(_mm_srli_epi16(a, 7), _mm_set1_epi8(1))
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn unpacklo8(a: V, b: V) -> V {
        _mm_unpacklo_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn unpackhi8(a: V, b: V) -> V {
        _mm_unpackhi_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn lane0(a: V) -> u8 {
        _mm_cvtsi128_si32(a) as u8
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn load_state(b: &[u8; 256]) -> [V; 16] {
        let mut s = [_mm_setzero_si128(); 16];
        for r in 0..16 {
            // SAFETY: bytes 16r..16r + 16 lie inside the 256-byte batch.
            s[r] = unsafe { _mm_loadu_si128(b.as_ptr().add(16 * r).cast()) };
        }
        s
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn store_state(s: &[V; 16], b: &mut [u8; 256]) {
        for r in 0..16 {
            // SAFETY: bytes 16r..16r + 16 lie inside the 256-byte batch.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().add(16 * r).cast(), s[r]) };
        }
    }

    /// A 16-byte constant as a register.
    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn reg(t: &[u8; 16]) -> V {
        // SAFETY: 16-byte load from a 16-byte array.
        unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
    }

    /// lo[x & 15] ^ hi[x >> 4] in every byte: two PSHUFB lookups.
    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn nibbles(x: V, lo: &[u8; 16], hi: &[u8; 16]) -> V {
        let m = _mm_set1_epi8(0x0f);
        let l = _mm_and_si128(x, m);
        let h = _mm_and_si128(_mm_srli_epi16(x, 4), m);
        _mm_xor_si128(_mm_shuffle_epi8(reg(lo), l), _mm_shuffle_epi8(reg(hi), h))
    }

    /// S-box `I` (0..3 for s1..s4) on every byte.
    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn sbox<const I: usize>(x: V) -> V {
        let y = nibbles(x, &PRE_LO[I], &PRE_HI[I]);
        let y = _mm_aesenclast_si128(y, _mm_setzero_si128());
        let y = _mm_shuffle_epi8(y, reg(&INV_SHIFT_ROWS));
        nibbles(y, &POST_LO[I], &POST_HI[I])
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn s1(x: V) -> V {
        sbox::<0>(x)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn s2(x: V) -> V {
        sbox::<1>(x)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn s3(x: V) -> V {
        sbox::<2>(x)
    }

    #[inline]
    #[target_feature(enable = "aes,avx")]
    fn s4(x: V) -> V {
        sbox::<3>(x)
    }

    super::affine::byte_sliced!(#[target_feature(enable = "aes,avx")]);

    /// The four S-boxes on all 256 inputs (for the tests).
    #[cfg(test)]
    #[target_feature(enable = "aes,avx")]
    pub(super) fn sbox_tables() -> [[u8; 256]; 4] {
        let mut out = [[0u8; 256]; 4];
        for base in (0..256).step_by(16) {
            let mut x = [0u8; 16];
            for (i, v) in x.iter_mut().enumerate() {
                *v = (base + i) as u8;
            }
            let x = reg(&x);
            for (s, y) in [s1(x), s2(x), s3(x), s4(x)].into_iter().enumerate() {
                // SAFETY: 16-byte store into a 16-byte slice of `out`.
                unsafe { _mm_storeu_si128(out[s][base..base + 16].as_mut_ptr().cast(), y) };
            }
        }
        out
    }
}

/// The same on 256-bit registers, 32 blocks per batch: the shuffles,
/// nibble lookups and XORs work on both 128-bit lanes at once; `$y => $sub`
/// is SubBytes-with-ShiftRows on a whole register (AESENCLAST on each half
/// with AES-NI, one VAESENCLAST with VAES).
macro_rules! ymm_module {
    ($(#[$doc:meta])* $name:ident, $feat:literal, $y:ident => $sub:expr) => {
$(#[$doc])*
mod $name {
    use super::{INV_SHIFT_ROWS, POST_HI, POST_LO, PRE_HI, PRE_LO};
    use core::arch::x86_64::*;

    type V = __m256i;

    #[inline]
    #[target_feature(enable = $feat)]
    fn xor(a: V, b: V) -> V {
        _mm256_xor_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn and(a: V, b: V) -> V {
        _mm256_and_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn or(a: V, b: V) -> V {
        _mm256_or_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn splat(b: u8) -> V {
        _mm256_set1_epi8(b as i8)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn shl1(a: V) -> V {
        _mm256_add_epi8(a, a)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn msb(a: V) -> V {
        _mm256_and_si256(_mm256_srli_epi16(a, 7), _mm256_set1_epi8(1))
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn unpacklo8(a: V, b: V) -> V {
        _mm256_unpacklo_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn unpackhi8(a: V, b: V) -> V {
        _mm256_unpackhi_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn lane0(a: V) -> u8 {
        _mm_cvtsi128_si32(_mm256_castsi256_si128(a)) as u8
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn load_state(b: &[u8; 512]) -> [V; 16] {
        let mut s = [_mm256_setzero_si256(); 16];
        for r in 0..16 {
            // SAFETY: bytes 32r..32r + 32 lie inside the 512-byte batch.
            s[r] = unsafe { _mm256_loadu_si256(b.as_ptr().add(32 * r).cast()) };
        }
        s
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn store_state(s: &[V; 16], b: &mut [u8; 512]) {
        for r in 0..16 {
            // SAFETY: bytes 32r..32r + 32 lie inside the 512-byte batch.
            unsafe { _mm256_storeu_si256(b.as_mut_ptr().add(32 * r).cast(), s[r]) };
        }
    }

    /// A 16-byte constant in both 128-bit lanes.
    #[inline]
    #[target_feature(enable = $feat)]
    fn reg(t: &[u8; 16]) -> V {
        // SAFETY: 16-byte load from a 16-byte array.
        _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr().cast()) })
    }

    /// lo[x & 15] ^ hi[x >> 4] in every byte: two VPSHUFB lookups.
    #[inline]
    #[target_feature(enable = $feat)]
    fn nibbles(x: V, lo: &[u8; 16], hi: &[u8; 16]) -> V {
        let m = _mm256_set1_epi8(0x0f);
        let l = _mm256_and_si256(x, m);
        let h = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
        _mm256_xor_si256(
            _mm256_shuffle_epi8(reg(lo), l),
            _mm256_shuffle_epi8(reg(hi), h),
        )
    }

    /// S-box `I` (0..3 for s1..s4) on every byte.
    #[inline]
    #[target_feature(enable = $feat)]
    fn sbox<const I: usize>(x: V) -> V {
        let $y = nibbles(x, &PRE_LO[I], &PRE_HI[I]);
        let y = $sub;
        let y = _mm256_shuffle_epi8(y, reg(&INV_SHIFT_ROWS));
        nibbles(y, &POST_LO[I], &POST_HI[I])
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn s1(x: V) -> V {
        sbox::<0>(x)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn s2(x: V) -> V {
        sbox::<1>(x)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn s3(x: V) -> V {
        sbox::<2>(x)
    }

    #[inline]
    #[target_feature(enable = $feat)]
    fn s4(x: V) -> V {
        sbox::<3>(x)
    }

    super::affine::byte_sliced!(#[target_feature(enable = $feat)]);
}
    };
}

ymm_module!(
    /// AVX2 with AES-NI: AESENCLAST (128-bit only without VAES) on the two
    /// halves.
    ni2, "aes,avx2", y => {
        let z = _mm_setzero_si128();
        let lo = _mm_aesenclast_si128(_mm256_castsi256_si128(y), z);
        let hi = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(y), z);
        _mm256_set_m128i(hi, lo)
    }
);

ymm_module!(
    /// AVX2 with VAES: one VAESENCLAST on the whole register.
    nv, "vaes,aes,avx2", y => _mm256_aesenclast_epi128(y, _mm256_setzero_si256())
);

super::affine::key_type!(
    /// Camellia with AES-NI, sixteen blocks per batch.
    Key, ni, available, 16, "AES-NI and AVX"
);
super::affine::key_type!(
    /// Camellia with AES-NI and AVX2, 32 blocks per batch.
    KeyAvx2, ni2, available_avx2, 32, "AES-NI and AVX2"
);
super::affine::key_type!(
    /// Camellia with VAES and AVX2, 32 blocks per batch: one VAESENCLAST
    /// per register for the S-boxes.
    KeyVaes, nv, available_vaes, 32, "VAES, AES-NI and AVX2"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inv_shift_rows_undoes_shift_rows() {
        // ShiftRows moves byte r + 4((c + r) mod 4) to r + 4c.
        for m in 0..16 {
            let (r, c) = (m % 4, m / 4);
            let src = r + 4 * ((c + r) % 4);
            assert_eq!(INV_SHIFT_ROWS[src] as usize, m);
        }
    }

    /// Both key types against the reference variant, both ways, all key
    /// sizes, whole and partial batches.
    #[test]
    fn agrees_with_reference() {
        let mut st = 0x0123_4567_89ab_cdefu64;
        let mut next = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st as u8
        };
        let mut ran = false;
        for len in [16, 24, 32] {
            for n in [1, 2, 15, 16, 17, 31, 32, 33, 70] {
                let key: Vec<u8> = (0..len).map(|_| next()).collect();
                let r = super::super::reference::Key::new(&key).expect("key");
                let pt: Vec<u8> = (0..16 * n).map(|_| next()).collect();
                let mut want = pt.clone();
                for b in want.chunks_exact_mut(16) {
                    r.encrypt_block(b.try_into().expect("16"));
                }
                if let Some(k) = Key::new(&key) {
                    assert_eq!(k.schedule_bytes(), r.schedule_bytes());
                    let mut got = pt.clone();
                    k.encrypt_blocks(&mut got);
                    assert_eq!(got, want, "Key, {len}-byte key, {n} blocks");
                    k.decrypt_blocks(&mut got);
                    assert_eq!(got, pt);
                    ran = true;
                }
                if let Some(k) = KeyAvx2::new(&key) {
                    assert_eq!(k.schedule_bytes(), r.schedule_bytes());
                    let mut got = pt.clone();
                    k.encrypt_blocks(&mut got);
                    assert_eq!(got, want, "KeyAvx2, {len}-byte key, {n} blocks");
                    k.decrypt_blocks(&mut got);
                    assert_eq!(got, pt);
                }
                if let Some(k) = KeyVaes::new(&key) {
                    assert_eq!(k.schedule_bytes(), r.schedule_bytes());
                    let mut got = pt.clone();
                    k.encrypt_blocks(&mut got);
                    assert_eq!(got, want, "KeyVaes, {len}-byte key, {n} blocks");
                    k.decrypt_blocks(&mut got);
                    assert_eq!(got, pt);
                }
            }
        }
        if !ran {
            // Not a pass by skipping: the keys must be refused where the
            // CPU cannot run them.
            assert!(Key::new(&[1; 16]).is_none() && KeyVaes::new(&[1; 16]).is_none());
            eprintln!(
                "skipped the hardware part ({:?}); checked instead that the keys are refused",
                available()
            );
        }
    }

    #[test]
    fn sboxes_through_aesenclast() {
        let ni = available().is_ok().then_some(());
        if crate::cpu::present_or_refused(ni, "AES-NI/AVX", available()).is_none() {
            return;
        }
        // SAFETY: available() succeeded.
        let t = unsafe { ni::sbox_tables() };
        for (i, d) in affine::SBOXES.iter().enumerate() {
            for x in 0..=255u8 {
                assert_eq!(t[i][x as usize], d.eval(x), "s{} at {x:#04x}", i + 1);
            }
        }
    }
}
