//! ChaCha20 with 512-bit vectors (AVX-512F): sixteen blocks in parallel in
//! the vertical layout, native rotations (VPROLD), a 4×4 transpose inside
//! each 128-bit lane and a 4×4 transpose of 128-bit lanes across registers.
//! The "512-bit ChaCha20" seed 001 names as future work. Whole 2 KiB
//! stretches go through two sixteen-block sets at once (`thirty_two`),
//! whose double rounds interleave. A tail of more than eight blocks takes
//! one more sixteen-block call (its keystream partly used); shorter tails
//! go to the AVX2 variant.

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

/// Add the input words (`$init(i)` for word i) to the sixteen blocks'
/// final state `$v` (vertical layout), transpose to whole blocks and XOR
/// them into the 1024 bytes at `$src`, writing them to `$dst` (a macro, not
/// a function, so that it is always inlined: a call passes the sixteen
/// registers through memory). Needs AVX-512F; `$src` and `$dst` each valid
/// for 1024 bytes (the same, or apart), `$v` a mutable place.
macro_rules! finish {
    ($v:expr, $init:expr, $src:expr, $dst:expr) => {{
        let (v, init, src, dst): (&mut [__m512i; 16], _, *const u8, *mut u8) =
            (&mut $v, $init, $src, $dst);
        for (i, w) in v.iter_mut().enumerate() {
            *w = _mm512_add_epi32(*w, init(i));
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
    }};
}

/// [`finish!`] for both sets of [`thirty_two`] (the first set's final
/// state `$x`, the second's `$parked`, the counter offsets `$counters`):
/// the 2048 bytes at `$src` XORed to `$dst`.
macro_rules! finish_two {
    ($x:expr, $parked:expr, $state:expr, $counters:expr, $src:expr, $dst:expr) => {{
        let (state, counters, src, dst): (&[u32; 16], [__m512i; 2], *const u8, *mut u8) =
            ($state, $counters, $src, $dst);
        let word = |i: usize| _mm512_set1_epi32(state[i] as i32);
        let init = |set: usize| {
            move |i: usize| match i {
                12 => _mm512_add_epi32(word(12), counters[set]),
                _ => word(i),
            }
        };
        finish!($x, init(0), src, dst);
        // SAFETY: 1024 bytes on, still inside (the caller's contract).
        let (src, dst) = unsafe { (src.add(1024), dst.add(1024)) };
        finish!($parked, init(1), src, dst);
    }};
}

/// [`thirty_two`]'s two sets' counter offsets (blocks 0..15 and 16..31),
/// added to word 12.
#[target_feature(enable = "avx512f")]
fn set_counters() -> [__m512i; 2] {
    [
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        _mm512_set_epi32(
            31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
        ),
    ]
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
    finish!(v, |i: usize| init[i], src, dst);
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

/// One step of four quarter rounds of one register set, as assembly text:
/// a += b, d ^= a, d <<<= r for each (a, b, d), the four interleaved.
macro_rules! arx4 {
    ($p:literal, $r:literal, $(($a:literal, $b:literal, $d:literal)),*) => {
        concat!(
            $("vpaddd {", $p, $a, "}, {", $p, $a, "}, {", $p, $b, "}\n",)*
            $("vpxord {", $p, $d, "}, {", $p, $d, "}, {", $p, $a, "}\n",)*
            $("vprold {", $p, $d, "}, {", $p, $d, "}, ", $r, "\n",)*
        )
    };
    // Registers named in the text (ymm16..31, which no operand of ymm_reg
    // reaches).
    (lit $r:literal, $(($a:literal, $b:literal, $d:literal)),*) => {
        concat!(
            $("vpaddd ", $a, ", ", $a, ", ", $b, "\n",)*
            $("vpxord ", $d, ", ", $d, ", ", $a, "\n",)*
            $("vprold ", $d, ", ", $d, ", ", $r, "\n",)*
        )
    };
}

/// Four quarter rounds (a, b, c, d) of one register set, as assembly text.
macro_rules! round4 {
    ($p:literal, $(($a:literal, $b:literal, $c:literal, $d:literal)),*) => {
        concat!(
            arx4!($p, 16, $(($a, $b, $d)),*),
            arx4!($p, 12, $(($c, $d, $b)),*),
            arx4!($p, 8, $(($a, $b, $d)),*),
            arx4!($p, 7, $(($c, $d, $b)),*),
        )
    };
    (lit $(($a:literal, $b:literal, $c:literal, $d:literal)),*) => {
        concat!(
            arx4!(lit 16, $(($a, $b, $d)),*),
            arx4!(lit 12, $(($c, $d, $b)),*),
            arx4!(lit 8, $(($a, $b, $d)),*),
            arx4!(lit 7, $(($c, $d, $b)),*),
        )
    };
}

/// Broadcast the sixteen words at register `$st` into set `$p`'s
/// registers, as assembly text.
macro_rules! broadcast16 {
    ($p:literal, $st:literal) => {
        concat!(
            broadcast16!(@ $p, $st, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        )
    };
    (raw $p:literal, $st:literal) => {
        broadcast16!(@raw $p, $st, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    };
    (@ $p:literal, $st:literal, $($i:literal),*) => {
        concat!($("vpbroadcastd {", $p, $i, "}, dword ptr [{", $st, "} + 4 * ", $i, "]\n",)*)
    };
    (@raw $p:literal, $st:literal, $($i:literal),*) => {
        concat!($("vpbroadcastd {", $p, $i, "}, dword ptr [", $st, " + 4 * ", $i, "]\n",)*)
    };
}

/// Copy set `$q`'s registers into set `$p`'s but for word 12, as assembly
/// text.
macro_rules! copy15 {
    ($p:literal, $q:literal) => {
        copy15!(@ $p, $q, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15)
    };
    (@ $p:literal, $q:literal, $($i:literal),*) => {
        concat!($("vmovdqa64 {", $p, $i, "}, {", $q, $i, "}\n",)*)
    };
}

/// Store set `$p`'s sixteen registers to the 1024 bytes at register `$at`,
/// as assembly text.
macro_rules! park16 {
    ($p:literal, $at:literal) => {
        park16!(@ $p, $at, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    };
    (raw $p:literal, $at:literal) => {
        park16!(@raw $p, $at, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    };
    (@ $p:literal, $at:literal, $($i:literal),*) => {
        concat!($("vmovdqu64 [{", $at, "} + 64 * ", $i, "], {", $p, $i, "}\n",)*)
    };
    (@raw $p:literal, $at:literal, $($i:literal),*) => {
        concat!($("vmovdqu64 [", $at, " + 64 * ", $i, "], {", $p, $i, "}\n",)*)
    };
}

/// [`sixteen_halves`]' moves of its second set (ymm16..31, named in the
/// text): copied from the first set's registers but for word 12 (`copy`),
/// or stored to the 512 bytes at register `$at` (`park`), as assembly text.
macro_rules! half16 {
    (copy) => {
        half16!(@copy (0, 16), (1, 17), (2, 18), (3, 19), (4, 20), (5, 21), (6, 22), (7, 23),
            (8, 24), (9, 25), (10, 26), (11, 27), (13, 29), (14, 30), (15, 31))
    };
    (park $at:literal) => {
        half16!(@park $at, (0, 16), (1, 17), (2, 18), (3, 19), (4, 20), (5, 21), (6, 22),
            (7, 23), (8, 24), (9, 25), (10, 26), (11, 27), (12, 28), (13, 29), (14, 30), (15, 31))
    };
    (@copy $(($i:literal, $r:literal)),*) => {
        concat!($("vmovdqa64 ymm", $r, ", {x", $i, "}\n",)*)
    };
    (@park $at:literal, $(($i:literal, $r:literal)),*) => {
        concat!($("vmovdqu64 [{", $at, "} + 32 * ", $i, "], ymm", $r, "\n",)*)
    };
}

/// XOR sixteen keystream blocks (counters state[12] .. +15) into the 1024
/// bytes at `src`, writing them to `dst`: two sets of eight in the
/// vertical layout in 256-bit registers (AVX-512VL: 32 of them, and
/// VPROLD), their rounds alternating as [`thirty_two`]'s do. Zen 4 runs
/// 256-bit operations at twice the rate of 512-bit ones, so sixteen blocks
/// as two sets of eight (eight chains a round) take less time than as one
/// set of sixteen (four chains, waiting on their latency).
///
/// # Safety
/// AVX-512F and AVX-512VL; `src` and `dst` each valid for 1024 bytes (the
/// same, or apart).
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn sixteen_halves(state: &[u32; 16], src: *const u8, dst: *mut u8) {
    let counters: [__m256i; 2] = [
        _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
        _mm256_set_epi32(15, 14, 13, 12, 11, 10, 9, 8),
    ];
    let mut x = [_mm256_setzero_si256(); 16];
    let mut parked = [_mm256_setzero_si256(); 16];
    let pk = parked.as_mut_ptr();
    // SAFETY: AVX-512F and VL (this function requires them); the assembly
    // reads the 64 bytes of `state` and the 64 of `counters`, works in the
    // 32 vector registers' 256-bit halves, and writes the 512 bytes of
    // `parked`.
    unsafe {
        core::arch::asm!(
            broadcast16!("x", "st"),
            "vpaddd {x12}, {x12}, [{k}]",
            "vpbroadcastd ymm28, dword ptr [{st} + 48]",
            "vpaddd ymm28, ymm28, [{k} + 32]",
            half16!(copy),
            "2:",
            round4!("x", (0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)),
            round4!(lit ("ymm16", "ymm20", "ymm24", "ymm28"), ("ymm17", "ymm21", "ymm25", "ymm29"),
                ("ymm18", "ymm22", "ymm26", "ymm30"), ("ymm19", "ymm23", "ymm27", "ymm31")),
            round4!("x", (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)),
            round4!(lit ("ymm16", "ymm21", "ymm26", "ymm31"), ("ymm17", "ymm22", "ymm27", "ymm28"),
                ("ymm18", "ymm23", "ymm24", "ymm29"), ("ymm19", "ymm20", "ymm25", "ymm30")),
            "dec {n:e}",
            "jnz 2b",
            half16!(park "pk"),
            n = inout(reg) 10u32 => _,
            st = in(reg) state.as_ptr(),
            k = in(reg) counters.as_ptr(),
            pk = in(reg) pk,
            x0 = out(ymm_reg) x[0], x1 = out(ymm_reg) x[1],
            x2 = out(ymm_reg) x[2], x3 = out(ymm_reg) x[3],
            x4 = out(ymm_reg) x[4], x5 = out(ymm_reg) x[5],
            x6 = out(ymm_reg) x[6], x7 = out(ymm_reg) x[7],
            x8 = out(ymm_reg) x[8], x9 = out(ymm_reg) x[9],
            x10 = out(ymm_reg) x[10], x11 = out(ymm_reg) x[11],
            x12 = out(ymm_reg) x[12], x13 = out(ymm_reg) x[13],
            x14 = out(ymm_reg) x[14], x15 = out(ymm_reg) x[15],
            out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
            out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
            out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
            out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
            options(nostack),
        );
    }
    let word = |i: usize| _mm256_set1_epi32(state[i] as i32);
    let init = |set: usize| {
        move |i: usize| match i {
            12 => _mm256_add_epi32(word(12), counters[set]),
            _ => word(i),
        }
    };
    // The caller's contract: 1024 bytes at each.
    finish8!(x, init(0), src, dst);
    // SAFETY: 512 bytes on, still inside (the caller's contract).
    let (src, dst) = unsafe { (src.add(512), dst.add(512)) };
    finish8!(parked, init(1), src, dst);
}

/// The assembly of [`thirty_two`] and [`thirty_two_mac`]: `head` (which
/// sets set x's sixteen registers and word 12 of set y), set y copied from
/// x, then ten double rounds of the two sets, each set's column and
/// diagonal rounds alternating with the other's and `between` placed before
/// each (the MAC's blocks, or nothing); `tail` counts the loop and parks
/// set y. Set x's registers end in `$x`; the other operands follow.
macro_rules! two_sets_asm {
    (
        $x:ident,
        head: [$($head:tt)*],
        between: [$($between:tt)*],
        tail: [$($tail:tt)*],
        $($operands:tt)*
    ) => {
        core::arch::asm!(
            $($head)*
            copy15!("y", "x"),
            "2:",
            $($between)*
            round4!("x", (0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)),
            $($between)*
            round4!("y", (0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)),
            $($between)*
            round4!("x", (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)),
            $($between)*
            round4!("y", (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)),
            $($tail)*
            $($operands)*
            x0 = out(zmm_reg) $x[0], x1 = out(zmm_reg) $x[1],
            x2 = out(zmm_reg) $x[2], x3 = out(zmm_reg) $x[3],
            x4 = out(zmm_reg) $x[4], x5 = out(zmm_reg) $x[5],
            x6 = out(zmm_reg) $x[6], x7 = out(zmm_reg) $x[7],
            x8 = out(zmm_reg) $x[8], x9 = out(zmm_reg) $x[9],
            x10 = out(zmm_reg) $x[10], x11 = out(zmm_reg) $x[11],
            x12 = out(zmm_reg) $x[12], x13 = out(zmm_reg) $x[13],
            x14 = out(zmm_reg) $x[14], x15 = out(zmm_reg) $x[15],
            y0 = out(zmm_reg) _, y1 = out(zmm_reg) _,
            y2 = out(zmm_reg) _, y3 = out(zmm_reg) _,
            y4 = out(zmm_reg) _, y5 = out(zmm_reg) _,
            y6 = out(zmm_reg) _, y7 = out(zmm_reg) _,
            y8 = out(zmm_reg) _, y9 = out(zmm_reg) _,
            y10 = out(zmm_reg) _, y11 = out(zmm_reg) _,
            y12 = out(zmm_reg) _, y13 = out(zmm_reg) _,
            y14 = out(zmm_reg) _, y15 = out(zmm_reg) _,
            options(nostack),
        )
    };
}

/// XOR thirty-two keystream blocks (counters state[12] .. +31) into the
/// 2048 bytes at `src`, writing them to `dst`: two sets of sixteen in the
/// vertical layout, in all 32 vector registers, each set's column and
/// diagonal rounds alternating with the other's. One set's four quarter
/// rounds are four dependent chains (a rotation's latency is two cycles
/// on Zen 4), too few to fill the core's two 512-bit operations a cycle;
/// eight are nearly enough (measured alone on the 2-core AMD EPYC, Zen 4:
/// ten double rounds of two sets in 1,071–1,106 cycles against 1,204–1,278
/// for two sets one after the other). The double rounds are assembly
/// because the compiler, given the same sequence as intrinsics, spilled
/// six registers in the loop; the assembly also broadcasts the input words
/// (so no value from before it is live across it) and stores the second
/// set's final state before it ends (so the first set's transposes have
/// registers: left to the compiler, both sets and the input words went to
/// the stack, some sixty 512-bit stores at two cycles each, which ate the
/// gain). The transposes are the sixteen-block code's. Against two
/// sixteen-block calls, best of 9: ChaCha20 2 KiB 390 → 347 ns, 8 KiB
/// 1,546 → 1,359.
///
/// # Safety
/// AVX-512F; `src` and `dst` each valid for 2048 bytes (the same, or
/// apart).
#[target_feature(enable = "avx512f")]
unsafe fn thirty_two(state: &[u32; 16], src: *const u8, dst: *mut u8) {
    // Both sets' counter offsets, added to word 12 by the assembly.
    let counters = set_counters();
    let mut x = [_mm512_setzero_si512(); 16];
    // The second set's final state, stored by the assembly so the first
    // set's transposes have registers to work in.
    let mut parked = [_mm512_setzero_si512(); 16];
    let pk = parked.as_mut_ptr();
    // SAFETY: AVX-512F (this function requires it); the assembly reads the
    // 64 bytes of `state` and the 128 of `counters`, works in the 32
    // registers, and writes the 1024 bytes of `parked`. The input words are
    // broadcast inside it so that no value computed before it is live
    // across it (every register is taken there).
    unsafe {
        two_sets_asm!(
            x,
            head: [
                broadcast16!("x", "st"),
                "vpaddd {x12}, {x12}, [{k}]",
                "vpbroadcastd {y12}, dword ptr [{st} + 48]",
                "vpaddd {y12}, {y12}, [{k} + 64]",
            ],
            between: [],
            tail: ["dec {n:e}", "jnz 2b", park16!("y", "pk"),],
            n = inout(reg) 10u32 => _,
            st = in(reg) state.as_ptr(),
            k = in(reg) counters.as_ptr(),
            pk = in(reg) pk,
        );
    }
    // The caller's contract: 2048 bytes at each.
    finish_two!(x, parked, state, counters, src, dst);
}

/// Poly1305 blocks each of [`thirty_two_mac`]'s two chains takes: one
/// before each of the forty rounds (ten double rounds of two sets).
pub(crate) const CHAIN_BLOCKS: usize = 40;

/// MAC input bytes one [`thirty_two_mac`] call absorbs (both chains).
pub(crate) const MAC_SPAN: usize = 32 * CHAIN_BLOCKS;

/// The stitched MAC between [`pair_mac`] calls: the radix-2^64 Poly1305's
/// key words (r0, r1, s1), r^[`CHAIN_BLOCKS`] (to join a call's two chains)
/// and the accumulator. Made only where the CPU has BMI2 (MULX).
pub(crate) struct StitchMac {
    key: [u64; 3],
    r_chain: [u64; 3],
    pub(crate) h: [u64; 3],
}

impl StitchMac {
    /// From the IFMA MAC (its radix-2^64 code's key and accumulator, and
    /// r^[`CHAIN_BLOCKS`] from its powers), if the CPU has BMI2.
    pub(crate) fn new(mac: &mut crate::poly1305::ifma::Poly1305) -> Option<StitchMac> {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return None;
        }
        let r_chain = mac.power_words(CHAIN_BLOCKS);
        let inner = mac.scalar();
        Some(StitchMac {
            key: inner.key_words(),
            r_chain,
            h: inner.h,
        })
    }
}

/// XOR keystream blocks `st[12]` .. +31 into the 2048 bytes at `at` of
/// `dst` (read from `src` at the same place if given, else in place) while
/// absorbing the [`MAC_SPAN`] bytes at `mac_at` of the source (`src`, or
/// `dst` as it was before the call) into `mac`: the first half into a
/// chain from its accumulator, the second into one from zero, joined as
/// h·r^40 + second.
pub(crate) fn pair_mac(
    _token: Avx512,
    st: &[u32; 16],
    src: Option<&[u8]>,
    dst: &mut [u8],
    at: usize,
    mac_at: usize,
    mac: &mut StitchMac,
) {
    assert!(at + 2048 <= dst.len() && mac_at + MAC_SPAN <= dst.len());
    let d = dst.as_mut_ptr();
    let s = match src {
        Some(s) => {
            assert_eq!(s.len(), dst.len());
            s.as_ptr()
        }
        None => d.cast_const(),
    };
    let mut chains = [mac.h, [0u64; 3]];
    // SAFETY: the Avx512 token exists only when the CPU has AVX-512F, a
    // StitchMac only when it has BMI2; 2048 bytes from `at` and MAC_SPAN
    // from `mac_at` lie inside both buffers (asserted, same length); the
    // MAC's bytes are read before the call writes (its contract), so they
    // may lie in the bytes it writes in place.
    unsafe {
        let at2 = [s.add(mac_at), s.add(mac_at + MAC_SPAN / 2)];
        thirty_two_mac(st, s.add(at), d.add(at), mac.key, at2, &mut chains);
    }
    let [a, b] = chains;
    mac.h = crate::poly1305::radix64::mul_add(a, mac.r_chain, b);
}

/// One Poly1305 block of the radix-2^64 code's step ([`radix64`]'s
/// `Poly1305::step`: h = (h + m)·r, partly reduced) for the chain in
/// registers `$h0`, `$h1`, `$h2`, the block at `$p`, as assembly text. r0,
/// r1 and s1 are at `{ctx}` + 24, 32, 40; `{t0}`..`{t3}` and rdx are
/// scratch. Thirty instructions, a chain of ~15 cycles from one block to
/// the next (the products on the integer multiplier, not the vector units).
///
/// [`radix64`]: crate::poly1305::radix64
#[rustfmt::skip]
macro_rules! mac_block {
    ($h0:literal, $h1:literal, $h2:literal, $p:literal) => {
        concat!(
            "add {", $h0, "}, qword ptr [", $p, "]\n",
            "adc {", $h1, "}, qword ptr [", $p, " + 8]\n",
            "adc {", $h2, "}, 1\n",
            "mov rdx, {", $h0, "}\n",
            // d0 = h0·r0 + h1·s1 in t1:t0; d1 = h0·r1 + h1·r0 + h2·s1 in
            // h0:t2; d2 = h2·r0.
            "mulx {t1}, {t0}, qword ptr [{ctx} + 24]\n",
            "mulx {", $h0, "}, {t2}, qword ptr [{ctx} + 32]\n",
            "mov rdx, {", $h1, "}\n",
            "mulx {", $h1, "}, {t3}, qword ptr [{ctx} + 40]\n",
            "add {t0}, {t3}\n",
            "adc {t1}, {", $h1, "}\n",
            "mulx {", $h1, "}, {t3}, qword ptr [{ctx} + 24]\n",
            "add {t2}, {t3}\n",
            "adc {", $h0, "}, {", $h1, "}\n",
            "mov rdx, {", $h2, "}\n",
            "imul rdx, qword ptr [{ctx} + 40]\n",
            "imul {", $h2, "}, qword ptr [{ctx} + 24]\n",
            "add {t2}, rdx\n",
            "adc {", $h0, "}, 0\n",
            // d1 += d0 >> 64; d2 += d1 >> 64 (in h0).
            "add {t2}, {t1}\n",
            "adc {", $h0, "}, {", $h2, "}\n",
            // Fold the bits from 2^130 up: c = (d2 & !3) + (d2 >> 2).
            "mov {", $h2, "}, {", $h0, "}\n",
            "and {", $h2, "}, 3\n",
            "mov rdx, {", $h0, "}\n",
            "shr rdx, 2\n",
            "and {", $h0, "}, -4\n",
            "add {", $h0, "}, rdx\n",
            "add {", $h0, "}, {t0}\n",
            "mov {", $h1, "}, {t2}\n",
            "adc {", $h1, "}, 0\n",
            "adc {", $h2, "}, 0\n",
        )
    };
}

/// One block of each of the two chains (the first at `{pa}`, the second
/// at `{pb}`), both pointers moved on a block, as assembly text.
macro_rules! mac_pair {
    () => {
        concat!(
            mac_block!("a0", "a1", "a2", "{pa}"),
            mac_block!("b0", "b1", "b2", "{pb}"),
            "lea {pa}, [{pa} + 16]\n",
            "lea {pb}, [{pb} + 16]\n",
        )
    };
}

/// [`thirty_two`] with Poly1305 between its double rounds: [`CHAIN_BLOCKS`]
/// blocks from `pa` into the chain `a` and as many from `pb` into the
/// chain `b` (`[pa, pb]`, `[a, b]`), each by the radix-2^64 code's step
/// with the clamped r (`key`: r0, r1, s1) — one block of each chain before
/// each set's round, so the MAC, on the integer units, runs beside the
/// vector rounds instead of after them. The MAC alone is slower than the
/// rounds (assembly micro-benchmarks, medians of 31 at ~3.65 GHz): one
/// chain absorbed 64 blocks in ~940 cycles (its latency), two side by
/// side 64 each in ~1,430 (the integer units' throughput), against
/// ~1,100 for the double rounds; so a call takes what fits beside them
/// and the IFMA code the rest. Measured alone (sixteen
/// KiB of ChaCha20 in eight calls, a micro-benchmark's median of 31 on the
/// 2-core AMD EPYC, Zen 4): no MAC 2,703 ns; 40 blocks a chain 2,834
/// (1,280 bytes a call: 10 KiB for ~130 ns, against ~650 for the IFMA
/// code), 44 2,939, 48 3,038–3,151, 64 3,590; all 16 KiB by the IFMA code
/// after the keystream 3,753.
///
/// # Safety
/// AVX-512F and BMI2; `src` and `dst` each valid for 2048 bytes (the same,
/// or apart); `pa` and `pb` each valid for reads of 640 bytes, written by
/// no one during the call (they may lie in `src` where it is `dst`: the
/// MAC reads its blocks in the loop, before the keystream is written).
#[target_feature(enable = "avx512f,bmi2")]
pub(crate) unsafe fn thirty_two_mac(
    state: &[u32; 16],
    src: *const u8,
    dst: *mut u8,
    key: [u64; 3],
    [pa, pb]: [*const u8; 2],
    [a, b]: &mut [[u64; 3]; 2],
) {
    let counters = set_counters();
    let mut x = [_mm512_setzero_si512(); 16];
    let mut parked = [_mm512_setzero_si512(); 16];
    // The assembly's memory (every general register is taken in its loop):
    // the state's, the counters' and the parked set's addresses, r0, r1, s1
    // and the loop count.
    let mut ctx: [u64; 7] = [
        state.as_ptr() as u64,
        counters.as_ptr() as u64,
        parked.as_mut_ptr() as u64,
        key[0],
        key[1],
        key[2],
        10,
    ];
    let ([a0, a1, a2], [b0, b1, b2]) = (a, b);
    // SAFETY: AVX-512F and BMI2 (this function requires them); the
    // assembly reads the 64 bytes of `state`, the 128 of `counters`, the
    // 640 at each of `pa` and `pb` (the caller's contract), and `ctx`;
    // writes the 1024 bytes of `parked` and `ctx`'s loop count.
    unsafe {
        two_sets_asm!(
            x,
            head: [
                "mov rdx, qword ptr [{ctx}]",
                broadcast16!(raw "x", "rdx"),
                "vpbroadcastd {y12}, dword ptr [rdx + 48]",
                "mov rdx, qword ptr [{ctx} + 8]",
                "vpaddd {x12}, {x12}, [rdx]",
                "vpaddd {y12}, {y12}, [rdx + 64]",
            ],
            between: [mac_pair!(),],
            tail: [
                "dec qword ptr [{ctx} + 48]",
                "jnz 2b",
                "mov rdx, qword ptr [{ctx} + 16]",
                park16!(raw "y", "rdx"),
            ],
            ctx = in(reg) ctx.as_mut_ptr(),
            pa = inout(reg) pa => _,
            pb = inout(reg) pb => _,
            a0 = inout(reg) *a0, a1 = inout(reg) *a1, a2 = inout(reg) *a2,
            b0 = inout(reg) *b0, b1 = inout(reg) *b1, b2 = inout(reg) *b2,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            out("rdx") _,
        );
    }
    // The caller's contract: 2048 bytes at each.
    finish_two!(x, parked, state, counters, src, dst);
}

/// XOR sixteen keystream blocks (counters state[12] .. +15) into the 1024
/// bytes at `src`, writing them to `dst`: as two sets of eight in 256-bit
/// registers where the CPU has AVX-512VL ([`sixteen_halves`]; one KiB
/// 194 → 172 ns, a micro-benchmark's median of 31 on the 2-core AMD EPYC,
/// Zen 4), else as one set of sixteen.
///
/// # Safety
/// AVX-512F; `src` and `dst` each valid for 1024 bytes (the same, or
/// apart).
#[target_feature(enable = "avx512f")]
unsafe fn sixteen_any(zmm: bool, state: &[u32; 16], src: *const u8, dst: *mut u8) {
    // SAFETY: AVX-512F (this function requires it), VL where detected; the
    // caller's 1024 bytes at each pointer.
    unsafe {
        match crate::cpu::Avx512Vl::detect().filter(|_| !zmm) {
            Some(_) => sixteen_halves(state, src, dst),
            None => sixteen::<0>(state, src, dst, &[], &mut []),
        }
    }
}

/// XOR sixteen keystream blocks (counters state[12] .. +15) into `buf`.
#[target_feature(enable = "avx512f")]
fn sixteen_blocks(zmm: bool, state: &[u32; 16], buf: &mut [u8; 1024]) {
    let p = buf.as_mut_ptr();
    // SAFETY: the 1024 bytes of `buf`, read and written through one pointer.
    unsafe { sixteen_any(zmm, state, p, p) }
}

/// The AVX-512 code as a ChaCha20 variant runs it: its token, and whether
/// sixteen blocks go in one set of 512-bit registers (`zmm`, the
/// `avx512-zmm` variant) or, where the CPU has AVX-512VL, as two sets of
/// eight in 256-bit registers (`avx512`). Zen 4 splits each 512-bit
/// operation in two and issues 256-bit ones at twice the rate, so the
/// halves win there (one KiB 194 → 172 ns); a core with full-width
/// 512-bit units (Intel's since Skylake-SP: two 512-bit operations a cycle
/// on ports 0+1 and 5, against three 256-bit ones) does more per cycle in
/// zmm, and the `avx512-zmm` variant also leaves the MAC to the vector
/// IFMA code instead of stitching the scalar one into the rounds, whose
/// multiplies share those ports there. Which is faster on the CPU at hand
/// is measured (`ango tune`), not assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide {
    pub(crate) token: Avx512,
    pub(crate) zmm: bool,
}

impl Wide {
    pub fn new(token: Avx512, zmm: bool) -> Wide {
        Wide { token, zmm }
    }
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
    token: Wide,
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
    w: Wide,
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
    let vl = crate::cpu::Avx512Vl::detect().filter(|_| !w.zmm);
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
    token: Wide,
    key: &[u8; 32],
    counter: u32,
    nonce: &[u8; 12],
    src: &[u8],
    dst: &mut [u8],
) {
    assert_eq!(src.len(), dst.len());
    let mut st = portable::init_state(key, counter, nonce);
    let pairs = src.len() / 2048 * 2048;
    for at in (0..pairs).step_by(2048) {
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F;
        // 2048 bytes from `at` < pairs lie inside both slices (same length).
        unsafe { thirty_two(&st, src[at..].as_ptr(), dst[at..].as_mut_ptr()) };
        st[12] = st[12].wrapping_add(32);
    }
    let whole = src.len() / 1024 * 1024;
    for at in (pairs..whole).step_by(1024) {
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F;
        // 1024 bytes from `at` < whole lie inside both slices (same length).
        unsafe { sixteen_any(token.zmm, &st, src[at..].as_ptr(), dst[at..].as_mut_ptr()) };
        st[12] = st[12].wrapping_add(16);
    }
    dst[whole..].copy_from_slice(&src[whole..]);
    xor_keystream(token, key, st[12], nonce, &mut dst[whole..]);
}

/// XOR the keystream from block `counter` into `buf`.
pub fn xor_keystream(w: Wide, key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
    let mut st = portable::init_state(key, counter, nonce);
    let mut pairs = buf.chunks_exact_mut(2048);
    for pair in &mut pairs {
        let p = pair.as_mut_ptr();
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F;
        // the 2048 bytes of `pair`, read and written through one pointer.
        unsafe { thirty_two(&st, p, p) };
        st[12] = st[12].wrapping_add(32);
    }
    let mut chunks = pairs.into_remainder().chunks_exact_mut(1024);
    for chunk in &mut chunks {
        let chunk: &mut [u8; 1024] = chunk.try_into().expect("1024 bytes");
        // SAFETY: the Avx512 token exists only when the CPU has AVX-512F.
        unsafe { sixteen_blocks(w.zmm, &st, chunk) };
        st[12] = st[12].wrapping_add(16);
    }
    let rest = chunks.into_remainder();
    if rest.len() > 512 {
        // More than eight blocks left: one more sixteen-block call, its
        // keystream partly used, costs less than the AVX2 code's eight
        // vertical blocks and a horizontal tail after them.
        let mut ks = [0u8; 1024];
        // SAFETY: as above.
        unsafe { sixteen_blocks(w.zmm, &st, &mut ks) };
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

    /// The AVX-512F token, or (on a CPU without it) None after checking
    /// that the variant is refused.
    fn avx512_or_refused() -> Option<Avx512> {
        crate::cpu::present_or_refused(
            Avx512::detect(),
            "AVX-512F",
            crate::chacha20::ChaCha20::by_name("avx512").map(drop),
        )
    }

    /// Block `counter` of the keystream, from the portable code.
    fn block(key: &[u8; 32], nonce: &[u8; 12], counter: u32) -> [u8; 64] {
        let mut b = [0u8; 64];
        portable::xor_keystream(key, counter, nonce, &mut b);
        b
    }

    /// Each of `got` (in place, apart) is `src` XORed with the keystream
    /// from block `start`, one block at a time.
    fn each_block(key: &[u8; 32], nonce: &[u8; 12], start: u32, src: &[u8], got: [&[u8]; 2]) {
        for j in 0..src.len() / 64 {
            let ks = block(key, nonce, start.wrapping_add(j as u32));
            let want: Vec<u8> = src[64 * j..64 * j + 64]
                .iter()
                .zip(ks)
                .map(|(a, b)| a ^ b)
                .collect();
            for (g, how) in got.iter().zip(["in place", "apart"]) {
                assert_eq!(
                    &g[64 * j..64 * j + 64],
                    &want[..],
                    "start {start} block {j} {how}"
                );
            }
        }
    }

    #[test]
    fn thirty_two_gives_every_block_in_place_and_apart() {
        let Some(t) = avx512_or_refused() else {
            return;
        };
        let key: [u8; 32] = core::array::from_fn(|i| (i * 11 + 3) as u8);
        let nonce = [5u8; 12];
        // Counters that wrap inside the first set, between the sets, inside
        // the second, and none.
        for start in [u32::MAX - 3, u32::MAX - 15, u32::MAX - 20, 1, 7] {
            let st = portable::init_state(&key, start, &nonce);
            let src: Vec<u8> = (0..2048).map(|i| (i * 37 % 251) as u8).collect();
            let mut inplace = src.clone();
            let mut apart = vec![0xa5u8; 2048];
            // SAFETY: AVX-512F checked above; 2048 bytes at each pointer.
            unsafe {
                thirty_two(&st, inplace.as_ptr(), inplace.as_mut_ptr());
                thirty_two(&st, src.as_ptr(), apart.as_mut_ptr());
            }
            each_block(&key, &nonce, start, &src, [&inplace, &apart]);
        }
        // Through the public calls: every length from 2 KiB to 5 KiB in
        // steps that cross the pairs, the single chunks and the tails.
        // Both layouts of the sixteen-block code.
        for zmm in [false, true] {
            let w = Wide::new(t, zmm);
            for len in (2048..=5 * 1024 + 64).step_by(448).chain([1024, 1600]) {
                let mut fast = vec![0u8; len];
                let mut slow = vec![0u8; len];
                xor_keystream(w, &key, 9, &nonce, &mut fast);
                portable::xor_keystream(&key, 9, &nonce, &mut slow);
                assert_eq!(fast, slow, "len {len} zmm {zmm}");
                let src: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let mut into = vec![0u8; len];
                xor_keystream_into(w, &key, 9, &nonce, &src, &mut into);
                let want: Vec<u8> = src.iter().zip(&slow).map(|(a, b)| a ^ b).collect();
                assert_eq!(into, want, "into, len {len} zmm {zmm}");
            }
        }
    }

    #[test]
    fn thirty_two_with_the_mac_gives_every_block_and_both_chains() {
        use crate::poly1305::radix64::Poly1305 as Mac;
        let bmi2 = std::arch::is_x86_feature_detected!("bmi2").then_some(());
        // Without BMI2 the AEAD must not take the stitched pairs (MULX).
        let bmi2_refused = match (
            crate::chacha20::ChaCha20::by_name("avx512"),
            crate::poly1305::Poly1305::by_name("ifma"),
        ) {
            (Ok(c), Ok(p))
                if crate::aead::ChaCha20Poly1305::new(&[0; 32], c, p)
                    .pairs(8192, false)
                    .is_some() =>
            {
                Ok(())
            }
            _ => Err("CPU lacks BMI2 (or AVX-512F/IFMA): the stitched pairs are not taken"),
        };
        if avx512_or_refused().is_none()
            || crate::cpu::present_or_refused(bmi2, "BMI2", bmi2_refused).is_none()
        {
            return;
        }
        let nonce = [3u8; 12];
        // Keys with r's words large (all ones, clamped) and mixed; chains
        // that start from a full accumulator and from zero; the MAC input
        // the ChaCha20 source itself (read before it is written) and apart.
        for (ki, key) in [[0xffu8; 32], core::array::from_fn(|i| (i * 13 + 5) as u8)]
            .into_iter()
            .enumerate()
        {
            let mac = Mac::new(&key);
            let st = portable::init_state(&key, 40 + ki as u32, &nonce);
            let src: Vec<u8> = (0..2048).map(|i| (i * 29 % 253) as u8 ^ 0xff).collect();
            let other: Vec<u8> = (0..2048).map(|i| (i * 7 + ki) as u8).collect();
            let mut want = src.clone();
            // SAFETY: AVX-512F checked above; 2048 bytes through one pointer.
            unsafe { thirty_two(&st, want.as_ptr(), want.as_mut_ptr()) };
            for (inplace, starts) in [
                (true, [[u64::MAX, u64::MAX, 4], [0; 3]]),
                (false, [[1, 2, 3], [7, 0, 1]]),
            ] {
                let mut buf = src.clone();
                let mut out = vec![0u8; 2048];
                // The second chain's blocks from byte 1100 (apart from the
                // first's 640).
                let (pa, pb) = match inplace {
                    true => (buf.as_ptr(), buf[1100..].as_ptr()),
                    false => (other.as_ptr(), other[1100..].as_ptr()),
                };
                let mut chains = starts;
                // SAFETY: AVX-512F and BMI2 checked above; 2048 bytes at the
                // ChaCha20 pointers, 640 at each MAC pointer.
                unsafe {
                    let d = if inplace {
                        buf.as_mut_ptr()
                    } else {
                        out.as_mut_ptr()
                    };
                    thirty_two_mac(&st, buf.as_ptr(), d, mac.key_words(), [pa, pb], &mut chains);
                }
                let [a, b] = chains;
                let got = if inplace { &buf } else { &out };
                assert_eq!(got, &want, "keystream, key {ki}, in place {inplace}");
                let macced = if inplace { &src } else { &other };
                let chain = |mut h: [u64; 3], d: &[u8]| {
                    for m in d.chunks_exact(16) {
                        let w = |o: usize| u64::from_le_bytes(m[o..o + 8].try_into().unwrap());
                        h = mac.step(h, w(0), w(8), 1);
                    }
                    h
                };
                let n = 16 * CHAIN_BLOCKS;
                assert_eq!(a, chain(starts[0], &macced[..n]), "chain a, key {ki}");
                assert_eq!(
                    b,
                    chain(starts[1], &macced[1100..1100 + n]),
                    "chain b, key {ki}"
                );
            }
        }
    }

    #[test]
    fn sixteen_halves_gives_every_block_in_place_and_apart() {
        // Without AVX-512VL the short AEAD path must stop at 448 bytes.
        let vl_refused = if crate::aead::short::text_max() == crate::aead::short::TEXT {
            Err("CPU lacks AVX-512VL: the short AEAD path stops at 448 bytes")
        } else {
            Ok(())
        };
        if avx512_or_refused().is_none()
            || crate::cpu::present_or_refused(
                crate::cpu::Avx512Vl::detect(),
                "AVX-512VL",
                vl_refused,
            )
            .is_none()
        {
            return;
        }
        let key: [u8; 32] = core::array::from_fn(|i| (i * 5 + 9) as u8);
        let nonce = [4u8; 12];
        // Counters that wrap inside the first set, between the sets, inside
        // the second, and none.
        for start in [u32::MAX - 3, u32::MAX - 7, u32::MAX - 11, 1] {
            let st = portable::init_state(&key, start, &nonce);
            let src: Vec<u8> = (0..1024).map(|i| (i * 41 % 251) as u8).collect();
            let (mut inplace, mut apart) = (src.clone(), vec![0x5au8; 1024]);
            // SAFETY: AVX-512F and VL checked above; 1024 bytes at each.
            unsafe {
                sixteen_halves(&st, inplace.as_ptr(), inplace.as_mut_ptr());
                sixteen_halves(&st, src.as_ptr(), apart.as_mut_ptr());
            }
            each_block(&key, &nonce, start, &src, [&inplace, &apart]);
        }
    }

    #[test]
    fn sixteen_with_horizontal_sets_gives_every_block() {
        // Both rotations of the horizontal sets (shifts, and VPROLD where
        // the CPU has AVX-512VL), one, two and four sets, counters anywhere
        // (wrapping modulo 2^32 as the vertical blocks' do).
        if avx512_or_refused().is_none() {
            return;
        }
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
