//! ChaCha20 with 256-bit vectors (AVX2): eight blocks in parallel in the
//! vertical layout, byte-shuffle rotations for 16 and 8, and a transpose
//! that pairs 128-bit halves. A tail shorter than eight blocks (and a
//! short message) takes the horizontal layout instead: one block's four
//! rows in four registers' 128-bit halves, two blocks per register set,
//! the diagonal round reached by rotating rows within each half; up to
//! four register sets in flight, so a one- or two-block message pays for
//! two blocks, not eight. Where the CPU has AVX-512VL the horizontal code
//! rotates by 12 and 7 with one VPROLD instead of two shifts and an OR:
//! its chain of dependent steps, which sets a short message's time, is two
//! steps shorter per quarter round (two blocks 112 -> 105 ns on Zen 4).
//! (Valgrind reports no AVX-512 to the code it runs, so memcheck runs the
//! shift form.)

use super::portable;
use crate::cpu::Avx2;
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

/// The byte shuffles that rotate each 32-bit word left by 16 and by 8.
#[inline]
#[target_feature(enable = "avx2")]
fn rotation_masks() -> (__m256i, __m256i) {
    let r16 = _mm256_set_epi8(
        13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10, 5, 4,
        7, 6, 1, 0, 3, 2,
    );
    let r8 = _mm256_set_epi8(
        14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3, 14, 13, 12, 15, 10, 9, 8, 11, 6, 5,
        4, 7, 2, 1, 0, 3,
    );
    (r16, r8)
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
    let (r16, r8) = rotation_masks();
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
    let p = buf.as_mut_ptr();
    // The 512 bytes of `buf`, read and written through one pointer.
    finish8!(v, |i: usize| init[i], p, p);
}

/// A block's four rows, as 128-bit registers.
pub(crate) type Rows = [__m128i; 4];

/// The rows of the block `counter` of (`key`, `nonce`), made in registers:
/// the key rows loaded whole, the last row from two words of the nonce
/// (RFC 8439's layout: counter, then the 12-byte nonce). Loaded from a
/// state just written word by word, a row waited on a failed
/// store-to-load forwarding at the head of a short message's chain
/// (ChaCha20-Poly1305 sealing 256 bytes: 218 ns that way, 201 this way,
/// Zen 4).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn rows(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> Rows {
    let s = portable::SIGMA;
    let fixed = u64::from(u32::from_le_bytes(nonce[..4].try_into().expect("4 bytes")));
    let rest = u64::from_le_bytes(nonce[4..].try_into().expect("8 bytes"));
    // SAFETY: 16-byte loads inside the 32-byte key.
    let (b, c) = unsafe {
        (
            _mm_loadu_si128(key.as_ptr().cast()),
            _mm_loadu_si128(key[16..].as_ptr().cast()),
        )
    };
    [
        _mm_setr_epi32(s[0] as i32, s[1] as i32, s[2] as i32, s[3] as i32),
        b,
        c,
        _mm_set_epi64x(rest as i64, (u64::from(counter) | fixed << 32) as i64),
    ]
}

/// `x ^ y` rotated left by `n` (AVX2): byte shuffles for 16 and 8, two
/// shifts and an OR for 12 and 7.
macro_rules! xrot_avx2 {
    ($x:expr, $y:expr, 16, $r16:ident, $r8:ident) => {
        _mm256_shuffle_epi8(_mm256_xor_si256($x, $y), $r16)
    };
    ($x:expr, $y:expr, 8, $r16:ident, $r8:ident) => {
        _mm256_shuffle_epi8(_mm256_xor_si256($x, $y), $r8)
    };
    ($x:expr, $y:expr, $n:literal, $r16:ident, $r8:ident) => {
        rot_shifts!(_mm256_xor_si256($x, $y), $n)
    };
}

/// `x ^ y` rotated left by `n` (AVX-512VL): VPROLD for 12 and 7, the byte
/// shuffles of [`xrot_avx2`] for 16 and 8 (`n` passed on as a token, so
/// that its arms still match the literal).
macro_rules! xrot_vl {
    ($x:expr, $y:expr, 12, $r16:ident, $r8:ident) => {
        rot_prold!(_mm256_xor_si256($x, $y), 12)
    };
    ($x:expr, $y:expr, 7, $r16:ident, $r8:ident) => {
        rot_prold!(_mm256_xor_si256($x, $y), 7)
    };
    ($x:expr, $y:expr, $n:tt, $r16:ident, $r8:ident) => {
        xrot_avx2!($x, $y, $n, $r16, $r8)
    };
}

/// `x ^ y` rotated left by `n` as rot(x) ^ (y << n) ^ (y >> 32-n)
/// (AVX-512VL: VPROLD, and VPTERNLOGD for the three-way XOR). `y` is the
/// value the quarter round has just made, `x` an older one: rot(x) is
/// ready before `y`, and after `y` come two steps of one cycle (the shifts,
/// side by side, then the XOR) instead of an XOR and a rotation of two
/// cycles (VPROLD and VPSHUFB take two on Zen 4). A quarter round's chain
/// is then 12 cycles, not 16; it costs eight more instructions, so it
/// serves one register set, whose time is its chain (with two it was
/// slower).
macro_rules! xrot_tern {
    ($x:expr, $y:expr, $n:literal, $r16:ident, $r8:ident) => {{
        let _ = (&$r16, &$r8);
        let y = $y;
        _mm256_ternarylogic_epi32::<0x96>(
            _mm256_rol_epi32::<$n>($x),
            _mm256_slli_epi32::<$n>(y),
            _mm256_srli_epi32::<{ 32 - $n }>(y),
        )
    }};
}

macro_rules! blocks_h_fn {
    ($(#[$meta:meta])* $name:ident, $features:literal, $xrot:ident) => {
$(#[$meta])*
#[target_feature(enable = $features)]
pub(crate) fn $name<const P: usize>(rows: Rows, out: &mut [[u8; 128]; P]) {
    let (r16, r8) = rotation_masks();
    let [a0, b0, c0, d0] = rows.map(|r| _mm256_broadcastsi128_si256(r));
    // Set i holds blocks 2i (low half) and 2i+1 (high half); the counter
    // wraps modulo 2^32 as the vertical code's does.
    let d_init: [__m256i; P] = core::array::from_fn(|i| {
        _mm256_add_epi32(
            d0,
            _mm256_setr_epi32(2 * i as i32, 0, 0, 0, 2 * i as i32 + 1, 0, 0, 0),
        )
    });
    let (mut a, mut b, mut c, mut d) = ([a0; P], [b0; P], [c0; P], d_init);
    // A quarter round on every lane of every set; the sets are independent,
    // so their chains interleave.
    macro_rules! half {
        () => {
            for i in 0..P {
                a[i] = _mm256_add_epi32(a[i], b[i]);
                d[i] = $xrot!(d[i], a[i], 16, r16, r8);
                c[i] = _mm256_add_epi32(c[i], d[i]);
                b[i] = $xrot!(b[i], c[i], 12, r16, r8);
                a[i] = _mm256_add_epi32(a[i], b[i]);
                d[i] = $xrot!(d[i], a[i], 8, r16, r8);
                c[i] = _mm256_add_epi32(c[i], d[i]);
                b[i] = $xrot!(b[i], c[i], 7, r16, r8);
            }
        };
    }
    for _ in 0..10 {
        // Columns, then the diagonals: rows a, c and d turned (by three,
        // one and two words) so each lane's quarter round meets its
        // diagonal, row b left in place. b's last step ends a quarter
        // round and its next value starts the next one, so turning b
        // (the usual way) lengthened every round's chain of dependent
        // steps by one; a, c and d have steps to spare.
        half!();
        for i in 0..P {
            a[i] = _mm256_shuffle_epi32::<0x93>(a[i]);
            c[i] = _mm256_shuffle_epi32::<0x39>(c[i]);
            d[i] = _mm256_shuffle_epi32::<0x4e>(d[i]);
        }
        half!();
        for i in 0..P {
            a[i] = _mm256_shuffle_epi32::<0x39>(a[i]);
            c[i] = _mm256_shuffle_epi32::<0x93>(c[i]);
            d[i] = _mm256_shuffle_epi32::<0x4e>(d[i]);
        }
    }
    for i in 0..P {
        let (a, b) = (_mm256_add_epi32(a[i], a0), _mm256_add_epi32(b[i], b0));
        let (c, d) = (
            _mm256_add_epi32(c[i], c0),
            _mm256_add_epi32(d[i], d_init[i]),
        );
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
}
    };
}

blocks_h_fn!(
    /// Keystream blocks `rows`' counter .. `+2P-1` in the horizontal
    /// layout, in order, into `out`.
    blocks_h,
    "avx2",
    xrot_avx2
);

blocks_h_fn!(
    /// [`blocks_h`] with one-instruction rotations by 12 and 7 (AVX-512VL):
    /// each quarter round's chain of dependent steps is two steps shorter.
    blocks_h_vl,
    "avx2,avx512f,avx512vl",
    xrot_vl
);

blocks_h_fn!(
    /// [`blocks_h`] with each rotation of a fresh value as two shifts and
    /// a three-way XOR (AVX-512VL; see `xrot_tern`): the shortest chain,
    /// for one register set.
    blocks_h_tern,
    "avx2,avx512f,avx512vl",
    xrot_tern
);

/// XOR the keystream `ks` into `buf` (at most its length), 32 bytes at a
/// time, then eight, then one. The keystream was just stored 32 bytes at a
/// time, and each load of it lies inside one of those stores, so that the
/// store forwards to it: left to the compiler, this loop read it 64 bytes
/// at a time, loads no one store could forward, each of which waited until
/// every store before it reached the cache (the text of the message before
/// it, too).
#[inline]
#[target_feature(enable = "avx2")]
fn xor_in<const P: usize>(ks: &[[u8; 128]; P], buf: &mut [u8]) {
    let ks = ks.as_flattened();
    assert!(buf.len() <= ks.len());
    let mut pieces = buf.chunks_exact_mut(32);
    let mut at = 0;
    for p in &mut pieces {
        // SAFETY: 32-byte loads from the 32-byte piece and from the
        // keystream at the same offset (no shorter than `buf`, checked
        // above), and a 32-byte store to the piece.
        unsafe {
            let k = _mm256_loadu_si256(ks.as_ptr().add(at).cast());
            let x = _mm256_loadu_si256(p.as_ptr().cast());
            _mm256_storeu_si256(p.as_mut_ptr().cast(), _mm256_xor_si256(x, k));
        }
        at += 32;
    }
    let mut words = pieces.into_remainder().chunks_exact_mut(8);
    for w in &mut words {
        let k = u64::from_ne_bytes(ks[at..at + 8].try_into().expect("8 bytes"));
        let x = u64::from_ne_bytes((&*w).try_into().expect("8 bytes")) ^ k;
        w.copy_from_slice(&x.to_ne_bytes());
        at += 8;
    }
    for (b, k) in words.into_remainder().iter_mut().zip(&ks[at..]) {
        *b ^= k;
    }
}

macro_rules! xor_short_fn {
    ($(#[$meta:meta])* $name:ident, $features:literal, $blocks1:ident, $blocks:ident) => {
        $(#[$meta])*
        #[target_feature(enable = $features)]
        fn $name(state: Rows, buf: &mut [u8]) {
            match buf.len() {
                0 => {}
                1..=128 => {
                    let mut ks = [[0u8; 128]; 1];
                    $blocks1(state, &mut ks);
                    xor_in(&ks, buf);
                }
                129..=256 => {
                    let mut ks = [[0u8; 128]; 2];
                    $blocks(state, &mut ks);
                    xor_in(&ks, buf);
                }
                257..=384 => {
                    let mut ks = [[0u8; 128]; 3];
                    $blocks(state, &mut ks);
                    xor_in(&ks, buf);
                }
                _ => {
                    let mut ks = [[0u8; 128]; 4];
                    $blocks(state, &mut ks);
                    xor_in(&ks, buf);
                }
            }
        }
    };
}

xor_short_fn!(
    /// XOR the keystream from block `state[12]` into `buf` (at most 512
    /// bytes) in the horizontal layout: one to four register sets.
    xor_short,
    "avx2",
    blocks_h,
    blocks_h
);

xor_short_fn!(
    /// [`xor_short`] with VPROLD (AVX-512VL); one register set with the
    /// shortest chain ([`blocks_h_tern`]).
    xor_short_vl,
    "avx2,avx512f,avx512vl",
    blocks_h_tern,
    blocks_h_vl
);

/// XOR the keystream from block `counter` into `buf`. The tail after the
/// 512-byte chunks goes first: a short horizontal call is one long chain
/// of dependent steps, and issued before the vertical chunks (wide and
/// independent) it runs beside them instead of after them.
pub fn xor_keystream(_token: Avx2, key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
    let mut st = portable::init_state(key, counter, nonce);
    let whole = buf.len() / 512 * 512;
    let (chunks, rest) = buf.split_at_mut(whole);
    // SAFETY: the Avx2 token exists only when the CPU has AVX2, the
    // Avx512Vl one when it also has AVX-512F/VL. The tail's rows are built
    // in registers: loaded from a copy of the state with its counter word
    // just stored, the 16-byte row waited for every store before it to
    // reach the cache (ChaCha20 500 B 153 -> 146 ns, ChaCha20-Poly1305
    // sealing 1,600 B 707 -> 698, Zen 4).
    unsafe {
        let tail = rows(key, counter.wrapping_add((whole / 64) as u32), nonce);
        match crate::cpu::Avx512Vl::detect() {
            Some(_) => xor_short_vl(tail, rest),
            None => xor_short(tail, rest),
        }
    }
    for chunk in chunks.chunks_exact_mut(512) {
        let chunk: &mut [u8; 512] = chunk.try_into().expect("512 bytes");
        // SAFETY: the Avx2 token exists only when the CPU has AVX2.
        unsafe { eight_blocks(&st, chunk) };
        st[12] = st[12].wrapping_add(8);
    }
}
