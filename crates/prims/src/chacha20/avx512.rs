//! ChaCha20 with 512-bit vectors (AVX-512F): sixteen blocks in parallel in
//! the vertical layout, native rotations (VPROLD), a 4×4 transpose inside
//! each 128-bit lane and a 4×4 transpose of 128-bit lanes across registers.
//! The "512-bit ChaCha20" seed 001 names as future work. A tail of more
//! than eight blocks takes one more sixteen-block call (its keystream
//! partly used); shorter tails go to the AVX2 variant.

use super::{avx2, portable, sse2};
use crate::cpu::{Avx2, Avx512, Sse2};
use core::arch::x86_64::*;

macro_rules! qr {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal) => {
        $v[$a] = _mm512_add_epi32($v[$a], $v[$b]);
        $v[$d] = _mm512_rol_epi32::<16>(_mm512_xor_si512($v[$d], $v[$a]));
        $v[$c] = _mm512_add_epi32($v[$c], $v[$d]);
        $v[$b] = _mm512_rol_epi32::<12>(_mm512_xor_si512($v[$b], $v[$c]));
        $v[$a] = _mm512_add_epi32($v[$a], $v[$b]);
        $v[$d] = _mm512_rol_epi32::<8>(_mm512_xor_si512($v[$d], $v[$a]));
        $v[$c] = _mm512_add_epi32($v[$c], $v[$d]);
        $v[$b] = _mm512_rol_epi32::<7>(_mm512_xor_si512($v[$b], $v[$c]));
    };
}

/// XOR sixteen keystream blocks (counters state[12] .. +15) into `buf`
/// (exactly 1024 bytes).
#[target_feature(enable = "avx512f")]
fn sixteen_blocks(state: &[u32; 16], buf: &mut [u8; 1024]) {
    let mut init = [_mm512_setzero_si512(); 16];
    for (i, w) in state.iter().enumerate() {
        init[i] = _mm512_set1_epi32(*w as i32);
    }
    init[12] = _mm512_add_epi32(
        init[12],
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    );
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
        v[i] = _mm512_add_epi32(v[i], init[i]);
    }
    // t[g][j]: in 128-bit lane L, block 4L+j's words 4g..4g+3.
    let mut t = [[_mm512_setzero_si512(); 4]; 4];
    for g in 0..4 {
        let (t0, t1, t2, t3) = (v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]);
        let a = _mm512_unpacklo_epi32(t0, t1);
        let b = _mm512_unpacklo_epi32(t2, t3);
        let c = _mm512_unpackhi_epi32(t0, t1);
        let d = _mm512_unpackhi_epi32(t2, t3);
        t[g] = [
            _mm512_unpacklo_epi64(a, b),
            _mm512_unpackhi_epi64(a, b),
            _mm512_unpacklo_epi64(c, d),
            _mm512_unpackhi_epi64(c, d),
        ];
    }
    for j in 0..4 {
        let a = _mm512_shuffle_i32x4::<0x44>(t[0][j], t[1][j]);
        let b = _mm512_shuffle_i32x4::<0x44>(t[2][j], t[3][j]);
        let c = _mm512_shuffle_i32x4::<0xee>(t[0][j], t[1][j]);
        let d = _mm512_shuffle_i32x4::<0xee>(t[2][j], t[3][j]);
        let blocks = [
            (j, _mm512_shuffle_i32x4::<0x88>(a, b)),
            (4 + j, _mm512_shuffle_i32x4::<0xdd>(a, b)),
            (8 + j, _mm512_shuffle_i32x4::<0x88>(c, d)),
            (12 + j, _mm512_shuffle_i32x4::<0xdd>(c, d)),
        ];
        for (blk, ks) in blocks {
            let p = buf[64 * blk..64 * blk + 64].as_mut_ptr();
            // SAFETY: p points to 64 bytes inside `buf` (the slice above is
            // bounds-checked); unaligned loads and stores are allowed.
            unsafe {
                let x = _mm512_xor_si512(_mm512_loadu_si512(p.cast()), ks);
                _mm512_storeu_si512(p.cast(), x);
            }
        }
    }
}

/// XOR the keystream from block `counter` into `buf`.
pub fn xor_keystream(
    _token: Avx512,
    key: &[u8; 32],
    counter: u32,
    nonce: &[u8; 12],
    buf: &mut [u8],
) {
    let mut st = portable::init_state(key, counter, nonce);
    let mut chunks = buf.chunks_exact_mut(1024);
    for chunk in &mut chunks {
        let chunk: &mut [u8; 1024] = chunk.try_into().expect("1024 bytes");
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F.
        unsafe { sixteen_blocks(&st, chunk) };
        st[12] = st[12].wrapping_add(16);
    }
    let rest = chunks.into_remainder();
    if rest.len() > 512 {
        // More than eight blocks left: one more sixteen-block call, its
        // keystream partly used, costs less than the AVX2 code's eight
        // vertical blocks and a horizontal tail after them.
        let mut ks = [0u8; 1024];
        // SAFETY: as above.
        unsafe { sixteen_blocks(&st, &mut ks) };
        rest.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
    } else if !rest.is_empty() {
        match (Avx2::detect(), Sse2::detect()) {
            (Some(t), _) => avx2::xor_keystream(t, key, st[12], nonce, rest),
            (None, Some(t)) => sse2::xor_keystream(t, key, st[12], nonce, rest),
            _ => portable::xor_keystream(key, st[12], nonce, rest),
        }
    }
}
