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

macro_rules! sixteen_fn {
    ($(#[$meta:meta])* $name:ident, $features:literal, $rot:ident) => {
$(#[$meta])*
#[target_feature(enable = $features)]
unsafe fn $name<const P: usize>(
    state: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    extra: &[[u32; 2]; P],
    out: &mut [[u8; 128]; P],
) {
    let mut init = [_mm512_setzero_si512(); 16];
    for (i, w) in state.iter().enumerate() {
        init[i] = _mm512_set1_epi32(*w as i32);
    }
    init[12] = _mm512_add_epi32(
        init[12],
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    );
    // The horizontal sets: rows a, b, c, d of two blocks (the low and the
    // high half), at the counters `extra` gives.
    let w = |i: usize| state[i] as i32;
    let row = |i: usize| _mm256_setr_epi32(w(i), w(i + 1), w(i + 2), w(i + 3), w(i), w(i + 1), w(i + 2), w(i + 3));
    let (a0, b0, c0) = (row(0), row(4), row(8));
    let d_init: [__m256i; P] = core::array::from_fn(|i| {
        let [lo, hi] = extra[i].map(|c| c as i32);
        _mm256_setr_epi32(lo, w(13), w(14), w(15), hi, w(13), w(14), w(15))
    });
    let (mut ha, mut hb, mut hc, mut hd) = ([a0; P], [b0; P], [c0; P], d_init);
    macro_rules! hhalf {
        () => {
            for i in 0..P {
                ha[i] = _mm256_add_epi32(ha[i], hb[i]);
                hd[i] = $rot!(_mm256_xor_si256(hd[i], ha[i]), 16);
                hc[i] = _mm256_add_epi32(hc[i], hd[i]);
                hb[i] = $rot!(_mm256_xor_si256(hb[i], hc[i]), 12);
                ha[i] = _mm256_add_epi32(ha[i], hb[i]);
                hd[i] = $rot!(_mm256_xor_si256(hd[i], ha[i]), 8);
                hc[i] = _mm256_add_epi32(hc[i], hd[i]);
                hb[i] = $rot!(_mm256_xor_si256(hb[i], hc[i]), 7);
            }
        };
    }
    let mut v = init;
    for _ in 0..10 {
        qr!(v, 0, 4, 8, 12);
        qr!(v, 1, 5, 9, 13);
        qr!(v, 2, 6, 10, 14);
        qr!(v, 3, 7, 11, 15);
        hhalf!();
        for i in 0..P {
            hb[i] = _mm256_shuffle_epi32::<0x39>(hb[i]);
            hc[i] = _mm256_shuffle_epi32::<0x4e>(hc[i]);
            hd[i] = _mm256_shuffle_epi32::<0x93>(hd[i]);
        }
        qr!(v, 0, 5, 10, 15);
        qr!(v, 1, 6, 11, 12);
        qr!(v, 2, 7, 8, 13);
        qr!(v, 3, 4, 9, 14);
        hhalf!();
        for i in 0..P {
            hb[i] = _mm256_shuffle_epi32::<0x93>(hb[i]);
            hc[i] = _mm256_shuffle_epi32::<0x4e>(hc[i]);
            hd[i] = _mm256_shuffle_epi32::<0x39>(hd[i]);
        }
    }
    for i in 0..P {
        let (a, b) = (_mm256_add_epi32(ha[i], a0), _mm256_add_epi32(hb[i], b0));
        let (c, d) = (_mm256_add_epi32(hc[i], c0), _mm256_add_epi32(hd[i], d_init[i]));
        let p = out[i].as_mut_ptr().cast::<__m256i>();
        // SAFETY: out[i] is 128 bytes: four unaligned 32-byte stores at
        // offsets 0, 32, 64, 96 stay inside it.
        unsafe {
            _mm256_storeu_si256(p, _mm256_permute2x128_si256::<0x20>(a, b));
            _mm256_storeu_si256(p.add(1), _mm256_permute2x128_si256::<0x20>(c, d));
            _mm256_storeu_si256(p.add(2), _mm256_permute2x128_si256::<0x31>(a, b));
            _mm256_storeu_si256(p.add(3), _mm256_permute2x128_si256::<0x31>(c, d));
        }
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
            // SAFETY: 64 bytes at 64·blk < 1024 of the source and the
            // destination (the caller's contract); each read before written.
            unsafe {
                let x = _mm512_xor_si512(_mm512_loadu_si512(src.add(64 * blk).cast()), ks);
                _mm512_storeu_si512(dst.add(64 * blk).cast(), x);
            }
        }
    }
}
    };
}

sixteen_fn!(
    /// XOR sixteen keystream blocks (counters state[12] .. +15) into the
    /// 1024 bytes at `src`, writing them to `dst` (the same bytes or apart:
    /// the caller makes sure both are valid), and write P pairs of blocks
    /// more, in the horizontal layout (pair i at the counters `extra[i]`), to `out`: in
    /// the same double rounds, so the short sets' long chains of dependent
    /// steps run beside the sixteen blocks' wide ones instead of after them.
    sixteen,
    "avx512f",
    rot_shifts
);

sixteen_fn!(
    /// [`sixteen`] with one-instruction rotations in the horizontal sets
    /// (AVX-512VL).
    sixteen_vl,
    "avx512f,avx512vl",
    rot_prold
);

/// XOR sixteen keystream blocks (counters state[12] .. +15) into `buf`.
#[target_feature(enable = "avx512f")]
fn sixteen_blocks(state: &[u32; 16], buf: &mut [u8; 1024]) {
    let p = buf.as_mut_ptr();
    // SAFETY: the 1024 bytes of `buf`, read and written through one pointer.
    unsafe { sixteen::<0>(state, p, p, &[], &mut []) }
}

/// The longest tail [`first_and_key`] carries beside the one-time key:
/// seven blocks, in four horizontal sets with block 0 (sixteen registers
/// besides the sixteen of the vertical blocks). Sealing on the 2-core AMD
/// EPYC (Zen 4), against carrying three blocks (the rest after the
/// sixteen-block calls, on the AVX2 code): 1280 bytes 612 against 650 ns,
/// 1408 bytes 653 against 685, 1472 bytes 694 against 738, 2304 bytes 887
/// against 934.
pub(crate) const CARRIED: usize = 448;

/// ChaCha20-Poly1305's first call, for a text of at least 1024 bytes: XOR
/// keystream blocks 1..=16 into `chunk` (the text's first 1024 bytes, or
/// a buffer to hold the keystream) and the blocks from `tail_counter` into
/// `tail` (at most [`CARRIED`] bytes: the text's end), and return block
/// 0's first 32 bytes (the one-time key) — block 0 and the tail's blocks in
/// the horizontal layout beside the sixteen, so neither waits for the other.
pub(crate) fn first_and_key(
    token: Avx512,
    key: &[u8; 32],
    nonce: &[u8; 12],
    chunk: &mut [u8; 1024],
    tail_counter: u32,
    tail: &mut [u8],
) -> [u8; 32] {
    first_and_key_from(token, key, nonce, None, chunk, tail_counter, tail)
}

/// [`first_and_key`], the text read from `src` (the chunk's 1024 bytes and
/// a tail as long as `tail`) if given, written to `chunk` and `tail`.
pub(crate) fn first_and_key_from(
    _token: Avx512,
    key: &[u8; 32],
    nonce: &[u8; 12],
    src: Option<(&[u8; 1024], &[u8])>,
    chunk: &mut [u8; 1024],
    tail_counter: u32,
    tail: &mut [u8],
) -> [u8; 32] {
    assert!(tail.len() <= CARRIED);
    let st = portable::init_state(key, 1, nonce);
    let t = tail_counter;
    let vl = crate::cpu::Avx512Vl::detect();
    let d = chunk.as_mut_ptr();
    let (s, tail_src) = match src {
        Some((c, ts)) => {
            assert_eq!(ts.len(), tail.len());
            (c.as_ptr(), Some(ts))
        }
        None => (d.cast_const(), None),
    };
    let mut otk = [0u8; 32];
    macro_rules! call {
        ($p:literal, $extra:expr) => {{
            let mut out = [[0u8; 128]; $p];
            // SAFETY: the Avx512 token exists only when the CPU has
            // AVX-512F, the Avx512Vl one when it has AVX-512VL too; `s`
            // and `d` are 1024 bytes each (the same, or apart).
            unsafe {
                match vl {
                    Some(_) => sixteen_vl::<$p>(&st, s, d, &$extra, &mut out),
                    None => sixteen::<$p>(&st, s, d, &$extra, &mut out),
                }
            }
            let ks = out.as_flattened();
            otk.copy_from_slice(&ks[..32]);
            match tail_src {
                Some(ts) => tail
                    .iter_mut()
                    .zip(ts.iter().zip(&ks[64..]))
                    .for_each(|(b, (x, k))| *b = x ^ k),
                None => tail.iter_mut().zip(&ks[64..]).for_each(|(b, k)| *b ^= k),
            }
        }};
    }
    let c = |i: u32| t.wrapping_add(i);
    match tail.len() {
        0..=64 => call!(1, [[0, t]]),
        65..=192 => call!(2, [[0, t], [c(1), c(2)]]),
        193..=320 => call!(3, [[0, t], [c(1), c(2)], [c(3), c(4)]]),
        _ => call!(4, [[0, t], [c(1), c(2)], [c(3), c(4)], [c(5), c(6)]]),
    }
    otk
}

/// XOR the keystream from block `counter` into `src`, writing the result
/// to `dst` (as long): whole 1024-byte chunks read from one and written to
/// the other, a tail copied over and XORed there.
pub(crate) fn xor_keystream_into(
    token: Avx512,
    key: &[u8; 32],
    counter: u32,
    nonce: &[u8; 12],
    src: &[u8],
    dst: &mut [u8],
) {
    assert_eq!(src.len(), dst.len());
    let mut st = portable::init_state(key, counter, nonce);
    let whole = src.len() / 1024 * 1024;
    for at in (0..whole).step_by(1024) {
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F;
        // 1024 bytes from `at` < whole lie inside both slices (same length).
        unsafe {
            sixteen::<0>(
                &st,
                src[at..].as_ptr(),
                dst[at..].as_mut_ptr(),
                &[],
                &mut [],
            )
        };
        st[12] = st[12].wrapping_add(16);
    }
    dst[whole..].copy_from_slice(&src[whole..]);
    xor_keystream(token, key, st[12], nonce, &mut dst[whole..]);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Block `counter` of the keystream, from the portable code.
    fn block(key: &[u8; 32], nonce: &[u8; 12], counter: u32) -> [u8; 64] {
        let mut b = [0u8; 64];
        portable::xor_keystream(key, counter, nonce, &mut b);
        b
    }

    #[test]
    fn sixteen_with_horizontal_sets_gives_every_block() {
        // Both rotations of the horizontal sets (shifts, and VPROLD where
        // the CPU has AVX-512VL), one, two and four sets, counters anywhere
        // (wrapping modulo 2^32 as the vertical blocks' do).
        let Some(_) = Avx512::detect() else { return };
        let key: [u8; 32] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        let nonce = [9u8; 12];
        let st = portable::init_state(&key, u32::MAX - 3, &nonce);
        let check = |buf: &[u8; 1024], out: &[[u8; 128]], extra: &[[u32; 2]]| {
            for j in 0..16 {
                let want = block(&key, &nonce, (u32::MAX - 3).wrapping_add(j as u32));
                assert_eq!(&buf[64 * j..64 * j + 64], &want[..], "vertical block {j}");
            }
            for (o, e) in out.iter().zip(extra) {
                assert_eq!(&o[..64], &block(&key, &nonce, e[0])[..]);
                assert_eq!(&o[64..], &block(&key, &nonce, e[1])[..]);
            }
        };
        let one = [[0, 77]];
        let two = [[5, u32::MAX], [0, 1]];
        let vl = crate::cpu::Avx512Vl::detect();
        for use_vl in [false, true] {
            if use_vl && vl.is_none() {
                continue;
            }
            let (mut buf, mut out1, mut out2) = ([0u8; 1024], [[0u8; 128]; 1], [[0u8; 128]; 2]);
            let p = buf.as_mut_ptr();
            // SAFETY: AVX-512F checked above, VL where used; `buf`'s 1024
            // bytes through one pointer.
            unsafe {
                match use_vl {
                    true => sixteen_vl::<1>(&st, p, p, &one, &mut out1),
                    false => sixteen::<1>(&st, p, p, &one, &mut out1),
                }
            }
            check(&buf, &out1, &one);
            // Into another buffer: the source as it was.
            let zeros = [0u8; 1024];
            let mut buf = [0xeeu8; 1024];
            // SAFETY: as above, from `zeros` to `buf`.
            unsafe {
                match use_vl {
                    true => sixteen_vl::<2>(&st, zeros.as_ptr(), buf.as_mut_ptr(), &two, &mut out2),
                    false => sixteen::<2>(&st, zeros.as_ptr(), buf.as_mut_ptr(), &two, &mut out2),
                }
            }
            check(&buf, &out2, &two);
            assert_eq!(zeros, [0u8; 1024]);
            // Four sets (the most the first call carries).
            let four = [[0, 1], [2, 3], [u32::MAX, 7], [8, 1 << 20]];
            let mut out4 = [[0u8; 128]; 4];
            let mut buf = [0u8; 1024];
            let p = buf.as_mut_ptr();
            // SAFETY: as above.
            unsafe {
                match use_vl {
                    true => sixteen_vl::<4>(&st, p, p, &four, &mut out4),
                    false => sixteen::<4>(&st, p, p, &four, &mut out4),
                }
            }
            check(&buf, &out4, &four);
        }
    }
}
