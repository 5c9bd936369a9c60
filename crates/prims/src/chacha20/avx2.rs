//! ChaCha20 with 256-bit vectors (AVX2): eight blocks in parallel in the
//! vertical layout, byte-shuffle rotations for 16 and 8, and a transpose
//! that pairs 128-bit halves. A tail shorter than eight blocks is finished
//! by the SSE2 variant (four blocks) and then the portable code.

use super::{portable, sse2};
use crate::cpu::{Avx2, Sse2};
use core::arch::x86_64::*;

macro_rules! rotl {
    ($x:expr, 16, $r16:ident, $r8:ident) => {
        _mm256_shuffle_epi8($x, $r16)
    };
    ($x:expr, 8, $r16:ident, $r8:ident) => {
        _mm256_shuffle_epi8($x, $r8)
    };
    ($x:expr, $n:literal, $r16:ident, $r8:ident) => {
        _mm256_or_si256(
            _mm256_slli_epi32::<$n>($x),
            _mm256_srli_epi32::<{ 32 - $n }>($x),
        )
    };
}

macro_rules! qr {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal, $r16:ident, $r8:ident) => {
        $v[$a] = _mm256_add_epi32($v[$a], $v[$b]);
        $v[$d] = rotl!(_mm256_xor_si256($v[$d], $v[$a]), 16, $r16, $r8);
        $v[$c] = _mm256_add_epi32($v[$c], $v[$d]);
        $v[$b] = rotl!(_mm256_xor_si256($v[$b], $v[$c]), 12, $r16, $r8);
        $v[$a] = _mm256_add_epi32($v[$a], $v[$b]);
        $v[$d] = rotl!(_mm256_xor_si256($v[$d], $v[$a]), 8, $r16, $r8);
        $v[$c] = _mm256_add_epi32($v[$c], $v[$d]);
        $v[$b] = rotl!(_mm256_xor_si256($v[$b], $v[$c]), 7, $r16, $r8);
    };
}

/// XOR eight keystream blocks (counters state[12] .. +7) into `buf`
/// (exactly 512 bytes).
#[target_feature(enable = "avx2")]
fn eight_blocks(state: &[u32; 16], buf: &mut [u8; 512]) {
    eight_blocks_with(state, buf, |_| {});
}

/// As [`eight_blocks`], calling `between(i)` after double round i (0..10):
/// work that does not use the vector units (a scalar Poly1305) placed
/// there runs beside the rounds instead of after them.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn eight_blocks_with(
    state: &[u32; 16],
    buf: &mut [u8; 512],
    mut between: impl FnMut(usize),
) {
    let r16 = _mm256_set_epi8(
        13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10, 5, 4,
        7, 6, 1, 0, 3, 2,
    );
    let r8 = _mm256_set_epi8(
        14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3, 14, 13, 12, 15, 10, 9, 8, 11, 6, 5,
        4, 7, 2, 1, 0, 3,
    );
    let mut init = [_mm256_setzero_si256(); 16];
    for (i, w) in state.iter().enumerate() {
        init[i] = _mm256_set1_epi32(*w as i32);
    }
    init[12] = _mm256_add_epi32(init[12], _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    let mut v = init;
    for dr in 0..10 {
        qr!(v, 0, 4, 8, 12, r16, r8);
        qr!(v, 1, 5, 9, 13, r16, r8);
        qr!(v, 2, 6, 10, 14, r16, r8);
        qr!(v, 3, 7, 11, 15, r16, r8);
        qr!(v, 0, 5, 10, 15, r16, r8);
        qr!(v, 1, 6, 11, 12, r16, r8);
        qr!(v, 2, 7, 8, 13, r16, r8);
        qr!(v, 3, 4, 9, 14, r16, r8);
        between(dr);
    }
    for i in 0..16 {
        v[i] = _mm256_add_epi32(v[i], init[i]);
    }
    // Per group g of four words: t[j] holds block j's words in its low half
    // and block j+4's in its high half.
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
            let p = buf[off..off + 32].as_mut_ptr().cast::<__m256i>();
            // SAFETY: p points to 32 bytes inside `buf` (the slice above is
            // bounds-checked); unaligned loads and stores are allowed.
            unsafe { _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), ks)) };
        }
    }
}

/// XOR the keystream from block `counter` into `buf`.
pub fn xor_keystream(_token: Avx2, key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
    let mut st = portable::init_state(key, counter, nonce);
    let mut chunks = buf.chunks_exact_mut(512);
    for chunk in &mut chunks {
        let chunk: &mut [u8; 512] = chunk.try_into().expect("512 bytes");
        // SAFETY: the Avx2 token exists only when the CPU has AVX2.
        unsafe { eight_blocks(&st, chunk) };
        st[12] = st[12].wrapping_add(8);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        match Sse2::detect() {
            Some(t) => sse2::xor_keystream(t, key, st[12], nonce, rest),
            None => portable::xor_keystream(key, st[12], nonce, rest),
        }
    }
}
