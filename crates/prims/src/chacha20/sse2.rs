//! ChaCha20 with 128-bit vectors (SSE2): four blocks in parallel, one state
//! word of all four blocks per register ("vertical" layout), then a 4×4
//! transpose per group of words. A tail shorter than four blocks goes to the
//! portable code — which is why this variant loses to it on short messages.

use super::portable;
use crate::cpu::Sse2;
use core::arch::x86_64::*;

macro_rules! rotl {
    ($x:expr, $n:literal) => {
        _mm_or_si128(_mm_slli_epi32::<$n>($x), _mm_srli_epi32::<{ 32 - $n }>($x))
    };
}

macro_rules! qr {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal) => {
        $v[$a] = _mm_add_epi32($v[$a], $v[$b]);
        $v[$d] = rotl!(_mm_xor_si128($v[$d], $v[$a]), 16);
        $v[$c] = _mm_add_epi32($v[$c], $v[$d]);
        $v[$b] = rotl!(_mm_xor_si128($v[$b], $v[$c]), 12);
        $v[$a] = _mm_add_epi32($v[$a], $v[$b]);
        $v[$d] = rotl!(_mm_xor_si128($v[$d], $v[$a]), 8);
        $v[$c] = _mm_add_epi32($v[$c], $v[$d]);
        $v[$b] = rotl!(_mm_xor_si128($v[$b], $v[$c]), 7);
    };
}

/// XOR four keystream blocks (counters state[12] .. +3) into `buf`
/// (exactly 256 bytes).
#[target_feature(enable = "sse2")]
fn four_blocks(state: &[u32; 16], buf: &mut [u8; 256]) {
    let mut init = [_mm_setzero_si128(); 16];
    for (i, w) in state.iter().enumerate() {
        init[i] = _mm_set1_epi32(*w as i32);
    }
    init[12] = _mm_add_epi32(init[12], _mm_set_epi32(3, 2, 1, 0));
    let mut v = init;
    for _ in 0..10 {
        qr!(v, 0, 4, 8, 12);
        qr!(v, 1, 5, 9, 13);
        qr!(v, 2, 6, 10, 14);
        qr!(v, 3, 7, 11, 15);
        qr!(v, 0, 5, 10, 15);
        qr!(v, 1, 6, 11, 12);
        qr!(v, 2, 7, 8, 13);
        qr!(v, 3, 4, 9, 14);
    }
    for i in 0..16 {
        v[i] = _mm_add_epi32(v[i], init[i]);
    }
    for g in 0..4 {
        let (t0, t1, t2, t3) = (v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]);
        let a = _mm_unpacklo_epi32(t0, t1);
        let b = _mm_unpacklo_epi32(t2, t3);
        let c = _mm_unpackhi_epi32(t0, t1);
        let d = _mm_unpackhi_epi32(t2, t3);
        let blocks = [
            _mm_unpacklo_epi64(a, b),
            _mm_unpackhi_epi64(a, b),
            _mm_unpacklo_epi64(c, d),
            _mm_unpackhi_epi64(c, d),
        ];
        for (j, ks) in blocks.iter().enumerate() {
            let off = 64 * j + 16 * g;
            let p = buf[off..off + 16].as_mut_ptr().cast::<__m128i>();
            // SAFETY: p points to 16 bytes inside `buf` (the slice above is
            // bounds-checked); unaligned loads and stores are allowed.
            unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *ks)) };
        }
    }
}

/// XOR the keystream from block `counter` into `buf`.
pub fn xor_keystream(_token: Sse2, key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
    let mut st = portable::init_state(key, counter, nonce);
    let mut chunks = buf.chunks_exact_mut(256);
    for chunk in &mut chunks {
        let chunk: &mut [u8; 256] = chunk.try_into().expect("256 bytes");
        // SAFETY: the Sse2 token exists only when the CPU has SSE2.
        unsafe { four_blocks(&st, chunk) };
        st[12] = st[12].wrapping_add(4);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        portable::xor_keystream(key, st[12], nonce, rest);
    }
}
