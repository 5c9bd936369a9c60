//! Camellia-128/192/256 with GFNI, byte-sliced, in two widths:
//! - `KeyAvx2`: 256-bit registers (AVX2 + GFNI), 32 blocks per batch;
//! - `KeyAvx512`: 512-bit registers (AVX-512F/BW + GFNI), 64 blocks per
//!   batch (a last batch of at most 32 blocks goes through the AVX2 code).
//!
//! Technique: the blocks of a batch are transposed so that register j
//! holds byte j of every block (a 16×16 byte transpose inside each 128-bit
//! lane, `affine::byte_sliced!`); the rounds of RFC 3713 §2.3 then work on
//! whole registers. Each S-box of the F-function is two instructions on a
//! register: GF2P8AFFINEQB with the input map `pre` of `affine.rs`, then
//! GF2P8AFFINEINVQB, which inverts in AES's field GF(2)[x]/(x^8 + x^4 +
//! x^3 + x + 1) and applies the output map `inv_post`
//! (s(x) = inv_post(inv(pre(x))), derived in affine.rs). The subkey bytes
//! are broadcast and XORed; the P-function is 30 register XORs; FL and
//! FL⁻¹ are AND/OR/XOR with the 32-bit rotation done bytewise (each byte
//! doubled, OR the next byte's top bit, which one more GF2P8AFFINEQB moves
//! to bit 0).
//!
//! Blocks per batch: 32 (AVX2), 64 (AVX-512); `encrypt_block` runs a
//! batch with one live block.
//!
//! Lookup tables: none, 0 bytes. The matrices are instruction operands
//! (constants), nothing is indexed by key or data.
//!
//! Constant time: no branch and no memory index depends on the key or the
//! data; the only branches are on the key length and the buffer length.
//! The key schedule's F goes through the same S-box code (`f_scalar`,
//! every lane the same value), its rotations are fixed.
//!
//! Testing: besides the hardware runs (when the CPU has the features), the
//! byte-sliced code also runs on a portable model of the instructions
//! (`model`, from the Intel SDM's pseudo-code of GF2P8AFFINEQB,
//! GF2P8AFFINEINVQB and PUNPCKLBW/PUNPCKHBW) and, on AVX2 CPUs without
//! GFNI, as the real AVX2 code with only the two GFNI instructions modelled
//! (`avx2::emulated`).

use super::affine::{self, Subkeys};

/// Bytes of lookup tables indexed by key or data: none.
pub const TABLE_BYTES: usize = 0;

/// GF2P8AFFINEQB operands (matrix, constant) of s1..s4's input maps.
const PRE: [u64; 4] = [
    affine::S1.pre.gfni_matrix(),
    affine::S2.pre.gfni_matrix(),
    affine::S3.pre.gfni_matrix(),
    affine::S4.pre.gfni_matrix(),
];
const PRE_C: [i32; 4] = [
    affine::S1.pre.c as i32,
    affine::S2.pre.c as i32,
    affine::S3.pre.c as i32,
    affine::S4.pre.c as i32,
];
/// GF2P8AFFINEINVQB operands of s1..s4's output maps.
const POST: [u64; 4] = [
    affine::S1.inv_post.gfni_matrix(),
    affine::S2.inv_post.gfni_matrix(),
    affine::S3.inv_post.gfni_matrix(),
    affine::S4.inv_post.gfni_matrix(),
];
const POST_C: [i32; 4] = [
    affine::S1.inv_post.c as i32,
    affine::S2.inv_post.c as i32,
    affine::S3.inv_post.c as i32,
    affine::S4.inv_post.c as i32,
];
/// Each byte's bit 7 to bit 0, the other bits cleared.
const MSB: u64 = affine::Affine {
    m: [0, 0, 0, 0, 0, 0, 0, 1],
    c: 0,
}
.gfni_matrix();

/// Needs AVX2 and GFNI.
pub fn available_avx2() -> Result<(), &'static str> {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return Err("needs AVX2");
    }
    if !std::arch::is_x86_feature_detected!("gfni") {
        return Err("needs GFNI");
    }
    Ok(())
}

/// Needs AVX-512F, AVX-512BW and GFNI (and AVX2, for a short last batch).
pub fn available_avx512() -> Result<(), &'static str> {
    if !std::arch::is_x86_feature_detected!("avx512f")
        || !std::arch::is_x86_feature_detected!("avx512bw")
    {
        return Err("needs AVX-512F and AVX-512BW");
    }
    available_avx2()
}

/// s1..s4 (F's S-boxes) and `msb` from the module's `aff` (GF2P8AFFINEQB)
/// and `aff_inv` (GF2P8AFFINEINVQB).
macro_rules! gfni_sboxes {
    ($(#[$attr:meta])*) => {
        $(#[$attr])*
        #[inline]
        fn s1(x: V) -> V {
            aff_inv::<{ POST[0] }, { POST_C[0] }>(aff::<{ PRE[0] }, { PRE_C[0] }>(x))
        }

        $(#[$attr])*
        #[inline]
        fn s2(x: V) -> V {
            aff_inv::<{ POST[1] }, { POST_C[1] }>(aff::<{ PRE[1] }, { PRE_C[1] }>(x))
        }

        $(#[$attr])*
        #[inline]
        fn s3(x: V) -> V {
            aff_inv::<{ POST[2] }, { POST_C[2] }>(aff::<{ PRE[2] }, { PRE_C[2] }>(x))
        }

        $(#[$attr])*
        #[inline]
        fn s4(x: V) -> V {
            aff_inv::<{ POST[3] }, { POST_C[3] }>(aff::<{ PRE[3] }, { PRE_C[3] }>(x))
        }

        $(#[$attr])*
        #[inline]
        fn msb(x: V) -> V {
            aff::<MSB, 0>(x)
        }
    };
}

/// 256-bit registers: 32 blocks per batch.
mod avx2 {
    use super::{MSB, POST, POST_C, PRE, PRE_C};
    use core::arch::x86_64::*;

    type V = __m256i;

    #[inline]
    #[target_feature(enable = "avx2")]
    fn xor(a: V, b: V) -> V {
        _mm256_xor_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn and(a: V, b: V) -> V {
        _mm256_and_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn or(a: V, b: V) -> V {
        _mm256_or_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn splat(b: u8) -> V {
        _mm256_set1_epi8(b as i8)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn shl1(a: V) -> V {
        _mm256_add_epi8(a, a)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn unpacklo8(a: V, b: V) -> V {
        _mm256_unpacklo_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn unpackhi8(a: V, b: V) -> V {
        _mm256_unpackhi_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane0(a: V) -> u8 {
        _mm_cvtsi128_si32(_mm256_castsi256_si128(a)) as u8
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_state(b: &[u8; 512]) -> [V; 16] {
        let mut s = [_mm256_setzero_si256(); 16];
        for r in 0..16 {
            // SAFETY: bytes 32r..32r + 32 lie inside the 512-byte batch.
            s[r] = unsafe { _mm256_loadu_si256(b.as_ptr().add(32 * r).cast()) };
        }
        s
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_state(s: &[V; 16], b: &mut [u8; 512]) {
        for r in 0..16 {
            // SAFETY: bytes 32r..32r + 32 lie inside the 512-byte batch.
            unsafe { _mm256_storeu_si256(b.as_mut_ptr().add(32 * r).cast(), s[r]) };
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,gfni")]
    fn aff<const M: u64, const C: i32>(x: V) -> V {
        _mm256_gf2p8affine_epi64_epi8::<C>(x, _mm256_set1_epi64x(M as i64))
    }

    #[inline]
    #[target_feature(enable = "avx2,gfni")]
    fn aff_inv<const M: u64, const C: i32>(x: V) -> V {
        _mm256_gf2p8affineinv_epi64_epi8::<C>(x, _mm256_set1_epi64x(M as i64))
    }

    gfni_sboxes!(#[target_feature(enable = "avx2,gfni")]);
    super::affine::byte_sliced!(#[target_feature(enable = "avx2,gfni")]);

    /// The AVX2 code with only GF2P8AFFINEQB and GF2P8AFFINEINVQB taken
    /// from the model, so that it runs (in tests) on AVX2 CPUs without
    /// GFNI.
    #[cfg(test)]
    pub(super) mod emulated {
        use super::super::model::affine_byte;
        use super::super::{MSB, POST, POST_C, PRE, PRE_C};
        use super::{and, lane0, load_state, or, shl1, splat, store_state, unpackhi8, unpacklo8};
        use super::{xor, V};
        use core::arch::x86_64::*;

        #[target_feature(enable = "avx2")]
        fn bytewise(x: V, f: impl Fn(u8) -> u8) -> V {
            let mut b = [0u8; 32];
            // SAFETY: 32-byte store into and load from a 32-byte array.
            unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), x) };
            for v in b.iter_mut() {
                *v = f(*v);
            }
            // SAFETY: as above.
            unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
        }

        #[target_feature(enable = "avx2")]
        fn aff<const M: u64, const C: i32>(x: V) -> V {
            bytewise(x, |v| affine_byte(M, v, C as u8))
        }

        #[target_feature(enable = "avx2")]
        fn aff_inv<const M: u64, const C: i32>(x: V) -> V {
            bytewise(x, |v| {
                affine_byte(M, super::super::affine::gf_inv(v), C as u8)
            })
        }

        gfni_sboxes!(#[target_feature(enable = "avx2")]);
        super::super::affine::byte_sliced!(#[target_feature(enable = "avx2")]);
    }
}

/// 512-bit registers: 64 blocks per batch.
mod avx512 {
    use super::{MSB, POST, POST_C, PRE, PRE_C};
    use core::arch::x86_64::*;

    type V = __m512i;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn xor(a: V, b: V) -> V {
        _mm512_xor_si512(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn and(a: V, b: V) -> V {
        _mm512_and_si512(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn or(a: V, b: V) -> V {
        _mm512_or_si512(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn splat(b: u8) -> V {
        _mm512_set1_epi8(b as i8)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn shl1(a: V) -> V {
        _mm512_add_epi8(a, a)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn unpacklo8(a: V, b: V) -> V {
        _mm512_unpacklo_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn unpackhi8(a: V, b: V) -> V {
        _mm512_unpackhi_epi8(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn lane0(a: V) -> u8 {
        _mm_cvtsi128_si32(_mm512_castsi512_si128(a)) as u8
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn load_state(b: &[u8; 1024]) -> [V; 16] {
        let mut s = [_mm512_setzero_si512(); 16];
        for r in 0..16 {
            // SAFETY: bytes 64r..64r + 64 lie inside the 1024-byte batch.
            s[r] = unsafe { _mm512_loadu_si512(b.as_ptr().add(64 * r).cast()) };
        }
        s
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn store_state(s: &[V; 16], b: &mut [u8; 1024]) {
        for r in 0..16 {
            // SAFETY: bytes 64r..64r + 64 lie inside the 1024-byte batch.
            unsafe { _mm512_storeu_si512(b.as_mut_ptr().add(64 * r).cast(), s[r]) };
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,gfni")]
    fn aff<const M: u64, const C: i32>(x: V) -> V {
        _mm512_gf2p8affine_epi64_epi8::<C>(x, _mm512_set1_epi64(M as i64))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,gfni")]
    fn aff_inv<const M: u64, const C: i32>(x: V) -> V {
        _mm512_gf2p8affineinv_epi64_epi8::<C>(x, _mm512_set1_epi64(M as i64))
    }

    gfni_sboxes!(#[target_feature(enable = "avx512f,avx512bw,gfni")]);
    super::affine::byte_sliced!(#[target_feature(enable = "avx512f,avx512bw,gfni")]);
}

super::affine::key_type!(
    /// Camellia with GFNI on 256-bit registers (32 blocks per batch).
    KeyAvx2, avx2, available_avx2, 32, "AVX2 and GFNI"
);

/// Camellia with GFNI on 512-bit registers (64 blocks per batch).
#[derive(Clone)]
pub struct KeyAvx512 {
    sk: Subkeys,
}

impl KeyAvx512 {
    /// Blocks per batch.
    pub const BLOCKS: usize = 64;

    /// None unless key.len() is 16, 24 or 32 and the CPU has AVX-512F,
    /// AVX-512BW, AVX2 and GFNI.
    pub fn new(key: &[u8]) -> Option<KeyAvx512> {
        available_avx512().ok()?;
        // SAFETY: available_avx512() has just found AVX-512F/BW and GFNI.
        let sk = Subkeys::new(key, |x, k| unsafe { avx512::f_scalar(x, k) })?;
        Some(KeyAvx512 { sk })
    }

    fn blocks(&self, buf: &mut [u8], decrypt: bool) {
        let ks = self.sk.list(decrypt);
        let whole = buf.len() / (16 * Self::BLOCKS) * (16 * Self::BLOCKS);
        let (head, tail) = buf.split_at_mut(whole);
        // SAFETY: a KeyAvx512 is only made by new(), after
        // available_avx512() found AVX-512F/BW, AVX2 and GFNI.
        unsafe {
            avx512::blocks(head, ks, self.sk.groups);
            if tail.len() <= 16 * KeyAvx2::BLOCKS {
                avx2::blocks(tail, ks, self.sk.groups);
            } else {
                avx512::blocks(tail, ks, self.sk.groups);
            }
        }
    }

    /// ECB encryption of the whole blocks of `buf`, in place.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) {
        self.blocks(buf, false);
    }

    /// ECB decryption of the whole blocks of `buf`, in place.
    pub fn decrypt_blocks(&self, buf: &mut [u8]) {
        self.blocks(buf, true);
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

/// A portable model of the instructions the byte-sliced code uses, on
/// 64-byte registers, and the byte-sliced code expanded over it, so that
/// the algorithm (transpose, F, P, FL, subkey order, S-box operands) is
/// tested on any CPU. Semantics from the Intel SDM's pseudo-code.
#[cfg(test)]
mod model {
    use super::super::affine::{self, Subkeys};
    use super::{MSB, POST, POST_C, PRE, PRE_C};

    type V = [u8; 64];

    /// GF2P8AFFINEQB's affine_byte: result bit i = parity(matrix byte 7 − i
    /// AND x) XOR imm8 bit i.
    pub(super) fn affine_byte(m: u64, x: u8, imm: u8) -> u8 {
        let mut r = 0u8;
        for i in 0..8 {
            let row = (m >> (8 * (7 - i))) as u8;
            r |= (((row & x).count_ones() & 1) as u8) << i;
        }
        r ^ imm
    }

    fn map(a: V, f: impl Fn(u8) -> u8) -> V {
        core::array::from_fn(|i| f(a[i]))
    }

    fn xor(a: V, b: V) -> V {
        core::array::from_fn(|i| a[i] ^ b[i])
    }

    fn and(a: V, b: V) -> V {
        core::array::from_fn(|i| a[i] & b[i])
    }

    fn or(a: V, b: V) -> V {
        core::array::from_fn(|i| a[i] | b[i])
    }

    fn splat(b: u8) -> V {
        [b; 64]
    }

    /// PADDB a, a.
    fn shl1(a: V) -> V {
        map(a, |v| v.wrapping_add(v))
    }

    /// PUNPCKLBW per 128-bit lane: a0 b0 a1 b1 .. a7 b7.
    fn unpacklo8(a: V, b: V) -> V {
        core::array::from_fn(|i| {
            let (lane, k) = (i / 16 * 16, i % 16);
            if k % 2 == 0 {
                a[lane + k / 2]
            } else {
                b[lane + k / 2]
            }
        })
    }

    /// PUNPCKHBW per 128-bit lane: a8 b8 .. a15 b15.
    fn unpackhi8(a: V, b: V) -> V {
        core::array::from_fn(|i| {
            let (lane, k) = (i / 16 * 16, i % 16);
            if k % 2 == 0 {
                a[lane + 8 + k / 2]
            } else {
                b[lane + 8 + k / 2]
            }
        })
    }

    fn lane0(a: V) -> u8 {
        a[0]
    }

    fn load_state(b: &[u8; 1024]) -> [V; 16] {
        core::array::from_fn(|r| b[64 * r..64 * r + 64].try_into().expect("64"))
    }

    fn store_state(s: &[V; 16], b: &mut [u8; 1024]) {
        for r in 0..16 {
            b[64 * r..64 * r + 64].copy_from_slice(&s[r]);
        }
    }

    fn aff<const M: u64, const C: i32>(x: V) -> V {
        map(x, |v| affine_byte(M, v, C as u8))
    }

    fn aff_inv<const M: u64, const C: i32>(x: V) -> V {
        map(x, |v| affine_byte(M, affine::gf_inv(v), C as u8))
    }

    gfni_sboxes!();
    affine::byte_sliced!();

    pub(super) fn subkeys(key: &[u8]) -> Option<Subkeys> {
        Subkeys::new(key, f_scalar)
    }

    pub(super) fn ecb(sk: &Subkeys, buf: &mut [u8], decrypt: bool) {
        blocks(buf, sk.list(decrypt), sk.groups);
    }

    #[test]
    fn model_sboxes_are_camellias() {
        for x in 0..=255u8 {
            let sb = |d: &affine::Decomposition| d.eval(x);
            assert_eq!(s1(splat(x))[5], sb(&affine::S1));
            assert_eq!(s2(splat(x))[5], sb(&affine::S2));
            assert_eq!(s3(splat(x))[5], sb(&affine::S3));
            assert_eq!(s4(splat(x))[5], sb(&affine::S4));
            assert_eq!(msb(splat(x))[7], x >> 7);
        }
    }
}

/// Test access (for the crate's tests and the external driver) to the
/// byte-sliced code on the model and to the AVX2 code with modelled GFNI.
#[cfg(test)]
pub(crate) mod testing {
    use super::super::affine::Subkeys;

    /// Key schedule and ECB on the portable model (any CPU).
    pub(crate) fn model_subkeys(key: &[u8]) -> Option<Subkeys> {
        super::model::subkeys(key)
    }

    pub(crate) fn model_ecb(sk: &Subkeys, buf: &mut [u8], decrypt: bool) {
        super::model::ecb(sk, buf, decrypt)
    }

    /// The same with the AVX2 code, GFNI modelled; None without AVX2.
    pub(crate) fn avx2_emulated_subkeys(key: &[u8]) -> Option<Subkeys> {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return None;
        }
        Subkeys::new(key, |x, k| {
            // SAFETY: AVX2 was just detected; the emulated code needs
            // nothing else.
            unsafe { super::avx2::emulated::f_scalar(x, k) }
        })
    }

    /// Panics (assert) without AVX2: only call with subkeys from
    /// `avx2_emulated_subkeys`.
    pub(crate) fn avx2_emulated_ecb(sk: &Subkeys, buf: &mut [u8], decrypt: bool) {
        assert!(std::arch::is_x86_feature_detected!("avx2"));
        // SAFETY: AVX2 was just detected.
        unsafe { super::avx2::emulated::blocks(buf, sk.list(decrypt), sk.groups) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;

    /// xorshift64*, for test data only.
    fn rng(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn fill(state: &mut u64, buf: &mut [u8]) {
        for b in buf.iter_mut() {
            *b = rng(state) as u8;
        }
    }

    /// ECB by the reference variant.
    fn reference_ecb(key: &[u8], buf: &mut [u8], decrypt: bool) {
        let k = reference::Key::new(key).expect("key");
        for c in buf.chunks_exact_mut(16) {
            let b: &mut [u8; 16] = c.try_into().expect("16");
            if decrypt {
                k.decrypt_block(b)
            } else {
                k.encrypt_block(b)
            }
        }
    }

    /// Random keys of each length and buffers of 1..=n blocks (plus a
    /// stray partial block, which must be left alone) through `ecb`,
    /// compared with the reference variant both ways.
    fn agrees(
        n: usize,
        subkeys: impl Fn(&[u8]) -> Option<Subkeys>,
        ecb: impl Fn(&Subkeys, &mut [u8], bool),
    ) {
        let mut st = 0x0123_4567_89ab_cdef;
        for len in [16, 24, 32] {
            for blocks in (1..=n).step_by(7).chain([n, n - 1]) {
                let mut key = vec![0u8; len];
                fill(&mut st, &mut key);
                let sk = subkeys(&key).expect("key");
                let r = reference::Key::new(&key).expect("key");
                assert_eq!(sk.schedule_bytes(), r.schedule_bytes());
                let mut pt = vec![0u8; 16 * blocks + 5];
                fill(&mut st, &mut pt);
                let mut want = pt.clone();
                reference_ecb(&key, &mut want[..16 * blocks], false);
                let mut got = pt.clone();
                ecb(&sk, &mut got, false);
                assert_eq!(got, want, "encrypt, {len}-byte key, {blocks} blocks");
                ecb(&sk, &mut got, true);
                assert_eq!(got, pt, "decrypt, {len}-byte key, {blocks} blocks");
            }
        }
    }

    #[test]
    fn model_agrees_with_reference() {
        agrees(130, testing::model_subkeys, testing::model_ecb);
    }

    #[test]
    fn avx2_with_modelled_gfni_agrees_with_reference() {
        let avx2 = std::arch::is_x86_feature_detected!("avx2").then_some(());
        if crate::cpu::present_or_refused(avx2, "AVX2", available_avx2()).is_none() {
            return;
        }
        agrees(
            70,
            testing::avx2_emulated_subkeys,
            testing::avx2_emulated_ecb,
        );
    }

    #[test]
    fn hardware_agrees_with_reference() {
        let mut ran = false;
        if available_avx2().is_ok() {
            let key = |k: &[u8]| KeyAvx2::new(k).map(|k| k.sk);
            // SAFETY: available_avx2() succeeded.
            agrees(70, key, |sk, buf, d| unsafe {
                avx2::blocks(buf, sk.list(d), sk.groups)
            });
            ran = true;
        }
        if available_avx512().is_ok() {
            let key = |k: &[u8]| KeyAvx512::new(k).map(|k| k.sk);
            // SAFETY: available_avx512() succeeded.
            agrees(130, key, |sk, buf, d| unsafe {
                avx512::blocks(buf, sk.list(d), sk.groups)
            });
            ran = true;
        }
        if !ran {
            // Not a pass by skipping: the keys of both variants must be
            // refused where the CPU cannot run them.
            assert!(KeyAvx2::new(&[1; 16]).is_none() && KeyAvx512::new(&[1; 16]).is_none());
            eprintln!(
                "skipped the hardware part ({:?}, {:?}); checked instead that both keys are refused",
                available_avx2(),
                available_avx512()
            );
        }
    }
}
