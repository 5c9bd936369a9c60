//! ChaCha20 (RFC 8439) in four variants — portable, SSE2 (4 blocks), AVX2
//! (8 blocks), AVX-512 (16 blocks) — behind one dispatcher, plus HChaCha20
//! and XChaCha20.

/// Rotate each 32-bit word of a 256-bit register left by `n`: two shifts
/// and an OR (AVX2). For the horizontal layout of the AVX2 and AVX-512
/// variants.
#[cfg(target_arch = "x86_64")]
macro_rules! rot_shifts {
    ($x:expr, $n:literal) => {{
        let x = $x;
        _mm256_or_si256(
            _mm256_slli_epi32::<$n>(x),
            _mm256_srli_epi32::<{ 32 - $n }>(x),
        )
    }};
}

/// Rotate each 32-bit word of a 256-bit register left by `n`: one VPROLD
/// (AVX-512VL).
#[cfg(target_arch = "x86_64")]
macro_rules! rot_prold {
    ($x:expr, $n:literal) => {
        _mm256_rol_epi32::<$n>($x)
    };
}

#[cfg(target_arch = "x86_64")]
/// Add the input words (`$init(i)` for word i) to eight blocks' final
/// state `$v` (256-bit registers, vertical layout), pair the 128-bit halves
/// into whole blocks and XOR them into the 512 bytes at `$src`, writing
/// them to `$dst`: eight blocks' finish (the AVX2 code's
/// transposes, shared by the AVX2 and AVX-512 code). Needs AVX2; `$src` and
/// `$dst` each valid for 512 bytes.
macro_rules! finish8 {
    ($v:expr, $init:expr, $src:expr, $dst:expr) => {{
        let (v, init, src, dst): (&mut [__m256i; 16], _, *const u8, *mut u8) =
            (&mut $v, $init, $src, $dst);
        for (i, w) in v.iter_mut().enumerate() {
            *w = _mm256_add_epi32(*w, init(i));
        }
        // t[g][j]: block j's words 4g..4g+3 (low half), block j+4's (high).
        let mut t = [[_mm256_setzero_si256(); 4]; 4];
        for g in 0..4 {
            let (t0, t1, t2, t3) = (v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]);
            let a = _mm256_unpacklo_epi32(t0, t1);
            let b = _mm256_unpacklo_epi32(t2, t3);
            let c = _mm256_unpackhi_epi32(t0, t1);
            let d = _mm256_unpackhi_epi32(t2, t3);
            t[g] = [
                _mm256_unpacklo_epi64(a, b),
                _mm256_unpackhi_epi64(a, b),
                _mm256_unpacklo_epi64(c, d),
                _mm256_unpackhi_epi64(c, d),
            ];
        }
        for j in 0..4 {
            let halves = [
                (64 * j, _mm256_permute2x128_si256::<0x20>(t[0][j], t[1][j])),
                (
                    64 * j + 32,
                    _mm256_permute2x128_si256::<0x20>(t[2][j], t[3][j]),
                ),
                (
                    64 * (j + 4),
                    _mm256_permute2x128_si256::<0x31>(t[0][j], t[1][j]),
                ),
                (
                    64 * (j + 4) + 32,
                    _mm256_permute2x128_si256::<0x31>(t[2][j], t[3][j]),
                ),
            ];
            for (off, ks) in halves {
                // SAFETY: 32 bytes at off < 512 of the source and the
                // destination (the caller's contract); each read before written.
                unsafe {
                    let x = _mm256_xor_si256(_mm256_loadu_si256(src.add(off).cast()), ks);
                    _mm256_storeu_si256(dst.add(off).cast(), x);
                }
            }
        }
    }};
}

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
pub mod portable;
#[cfg(target_arch = "x86_64")]
pub mod sse2;

use crate::cpu;

variants! {
    /// A ChaCha20 variant. The SIMD ones carry the token that proves the
    /// CPU can run them.
    pub enum ChaCha20 ("ChaCha20") {
        portable {
            Portable => "portable",
        }
        x86_64 {
            Sse2(cpu::Sse2) => "sse2" needs ["sse2"] else "CPU lacks SSE2",
            Avx2(cpu::Avx2) => "avx2" needs ["avx2"] else "CPU lacks AVX2",
            Avx512Zmm(cpu::Avx512) => "avx512-zmm" needs ["avx512f"] else "CPU lacks AVX-512F",
            Avx512(cpu::Avx512) => "avx512" needs ["avx512f"] else "CPU lacks AVX-512F",
        }
    }
}

impl ChaCha20 {
    /// The widest variant this CPU can run, by its feature flags (`auto`
    /// without a tuning): AVX-512 (its default layout), AVX2, SSE2,
    /// portable.
    pub fn auto() -> ChaCha20 {
        let av = ChaCha20::available();
        ["avx512", "avx2", "sse2"]
            .iter()
            .find_map(|n| av.iter().copied().find(|c| c.name() == *n))
            .unwrap_or(ChaCha20::Portable)
    }

    /// The AVX-512 code this variant runs, if it is one of the AVX-512
    /// variants.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn wide(self) -> Option<avx512::Wide> {
        match self {
            ChaCha20::Avx512(t) => Some(avx512::Wide::new(t, false)),
            ChaCha20::Avx512Zmm(t) => Some(avx512::Wide::new(t, true)),
            _ => None,
        }
    }

    /// XOR the keystream starting at block `counter` into `buf`.
    pub fn xor_keystream(self, key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
        match self {
            ChaCha20::Portable => portable::xor_keystream(key, counter, nonce, buf),
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Sse2(t) => sse2::xor_keystream(t, key, counter, nonce, buf),
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Avx2(t) => avx2::xor_keystream(t, key, counter, nonce, buf),
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Avx512(t) => {
                avx512::xor_keystream(avx512::Wide::new(t, false), key, counter, nonce, buf)
            }
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Avx512Zmm(t) => {
                avx512::xor_keystream(avx512::Wide::new(t, true), key, counter, nonce, buf)
            }
        }
    }
}

/// HChaCha20 (draft-irtf-cfrg-xchacha §2.2).
pub fn hchacha20(key: &[u8; 32], nonce: &[u8; 16]) -> [u8; 32] {
    portable::hchacha20(key, nonce)
}

/// XChaCha20's subkey and 12-byte nonce for a 24-byte nonce.
pub fn xchacha20_setup(key: &[u8; 32], nonce: &[u8; 24]) -> ([u8; 32], [u8; 12]) {
    let sub = hchacha20(key, nonce[..16].try_into().expect("16 bytes"));
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&nonce[16..]);
    (sub, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn auto_picks_the_widest_variant_this_cpu_runs() {
        let expect = crate::preference::first(&[
            ("avx512", &["avx512f"]),
            ("avx2", &["avx2"]),
            ("sse2", &["sse2"]),
            ("portable", &[]),
        ]);
        assert_eq!(ChaCha20::auto().name(), expect);
    }

    #[test]
    fn every_variant_matches_portable_at_every_length() {
        let key: [u8; 32] = core::array::from_fn(|i| i as u8 * 7 + 1);
        let nonce: [u8; 12] = core::array::from_fn(|i| 0xa0 ^ i as u8);
        let msg: Vec<u8> = (0..4200).map(|i| (i * 31 + 5) as u8).collect();
        for v in ChaCha20::available() {
            for len in (0..1100).chain([2048, 2100, 3071, 4096, 4200]) {
                for counter in [0u32, 1, 0xffff_fffe] {
                    let mut a = msg[..len].to_vec();
                    let mut b = msg[..len].to_vec();
                    portable::xor_keystream(&key, counter, &nonce, &mut a);
                    v.xor_keystream(&key, counter, &nonce, &mut b);
                    assert_eq!(a, b, "{} len {len} counter {counter}", v.name());
                }
            }
        }
    }

    #[test]
    fn rfc8439_2_4_2_every_variant() {
        let key: [u8; 32] = h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
            .try_into()
            .unwrap();
        let nonce: [u8; 12] = h("000000000000004a00000000").try_into().unwrap();
        let pt = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let ct = h("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d");
        for v in ChaCha20::available() {
            let mut b = pt.to_vec();
            v.xor_keystream(&key, 1, &nonce, &mut b);
            assert_eq!(b, ct, "{}", v.name());
        }
    }

    #[test]
    fn unknown_variant_names_the_valid_ones() {
        let e = ChaCha20::by_name("neon").unwrap_err();
        assert!(
            e.contains("portable, sse2, avx2, avx512-zmm, avx512"),
            "{e}"
        );
    }
}
