//! AES-GCM with VAES and VPCLMULQDQ in one pass: each 256-byte step
//! encrypts sixteen counter blocks and hashes sixteen ciphertext blocks
//! (when sealing, those of the step before; when opening, its own), so the
//! AES rounds of one and the carry-less multiplies of the other share the
//! core. Two widths, as the AES variant says: `vaes` with 256-bit
//! registers, `vaes512` with 512-bit registers (AVX-512). The whole message
//! is one call: E(K, J0) is started first, then the steps, then the
//! leftover text's keystream from one batch of AES rounds, whose ciphertext
//! is hashed from registers (a short piece is never copied into a buffer
//! and reloaded, which stalls the load until the narrower stores reach the
//! cache), and the length block.
//!
//! With 256-bit registers (and below 512 bytes) each step is reduced on
//! its own; the last step, the leftover, the length block (and the AAD when
//! all fits) are hashed with one reduction. With 512-bit registers, from
//! 512 bytes (`seal_mid`, `open_mid`), nothing is reduced until a window
//! of [`WIN`] steps ends: each block is multiplied by its own power of H
//! (up to H^[`vpclmul::MAX_BLOCKS`]) and the sums of the whole window are
//! reduced once, so the hash state's chain of dependent multiplies and
//! reductions runs once per 4 KiB instead of once per step; the loop over
//! the steps, its multiplies placed between the AES rounds, is
//! [`wide::run`]. (The windows replaced 512-byte steps, each reduced,
//! with the multiplies placed between the AES rounds: side by side in
//! ango's own latency study on Zen 4, AES-128 sealing 1,024 B 164 -> 130
//! ns, 2,048 B 259 -> 209, 4,096 B 428 -> 366, 16 KiB 1,456 -> 1,303-1,318
//! (two builds); AES-256 1,408 B 240 -> 200, 16 KiB about even.)
//! Constant time: no branch or index depends on the key or the data, only
//! on lengths.

use super::{len_block, wide};
use crate::aes::aesni::Keys;
use crate::aes::{add32, vaes, vaes512, Width};
use crate::auth::{ct_eq_slices, AuthError};
use crate::cpu::Vpclmul;
use crate::ghash::{pclmul, vpclmul};
use crate::io::Io;
use core::arch::x86_64::*;

pub(crate) const STEP: usize = vpclmul::STEP;
/// The shortest text the 512-bit code takes.
const WIDE: usize = 512;
/// Steps of a window: the 256-byte steps hashed into one aggregation
/// (each block by its own power of H) and reduced once. (Eight, with half
/// the power tables, sealed 16 KiB 1.5% slower: AES-128 1,303 -> 1,323 ns,
/// AES-256 1,581 -> 1,616, Zen 4.)
pub(super) const WIN: usize = 16;

/// The blocks of the aggregation of the window that step `j` of a
/// message of `n` steps is hashed in: its steps'; for the first, also the
/// AAD's when it joins (`aad_blocks`); for the last, also the leftover
/// text's (`rest` bytes) and the length block.
fn window(j: usize, n: usize, rest: usize, aad_blocks: usize) -> usize {
    let w = j / WIN;
    let steps = WIN.min(n - w * WIN);
    let first = if w == 0 { aad_blocks } else { 0 };
    let last = if (w + 1) * WIN >= n {
        rest.div_ceil(16) + 1
    } else {
        0
    };
    steps * STEP / 16 + first + last
}

/// Encrypt each whole step of `buf` with `enc` and hash it with `hash`
/// while the next one is encrypted (step i-1 hashed after step i is
/// encrypted); the last step is left unhashed. Returns the bytes
/// encrypted.
#[inline(always)]
fn pipelined(buf: &mut [u8], mut enc: impl FnMut(&mut [u8]), mut hash: impl FnMut(&[u8])) -> usize {
    let n = buf.len() / STEP;
    for i in 0..n {
        let (prev, cur) = buf.split_at_mut(i * STEP);
        enc(&mut cur[..STEP]);
        if i > 0 {
            hash(&prev[(i - 1) * STEP..]);
        }
    }
    n * STEP
}

/// Bytes done by the whole steps, and the hash state after them.
type Steps = (usize, __m128i);

/// 256-bit registers. AVX-512VL, where present, only lends the compiler
/// sixteen more registers (the round keys then stay in them). The last
/// step is encrypted but not hashed: it joins the leftover text and the
/// length block in the last aggregation.
/// (Interleaving the multiplies into the AES rounds by hand, a register
/// after each round, ran at half this speed here: with sixteen ymm
/// registers the eight AES states, the three sums and the products do not
/// fit, and the spills cost more than the overlap gains; the core's own
/// out-of-order window overlaps these two calls well.)
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal256(
    rk: &[__m256i; 15],
    nr: usize,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    acc: __m128i,
    buf: &mut [u8],
) -> Steps {
    let mut c = vaes::counters(ctr);
    let mut acc = acc;
    let done = pipelined(
        buf,
        |cur| vaes::ctr256(rk, nr, &mut c, cur),
        |prev| acc = vpclmul::step(g, acc, prev),
    );
    (done, acc)
}

/// Decryption, 256-bit registers: each step's sixteen ciphertext blocks
/// are hashed, then decrypted, in place or into the output (the ciphertext
/// is there from the start, so no step waits for another), but for the
/// last step, which is left as it is for the last aggregation. Returns the
/// bytes decrypted.
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open256(
    rk: &[__m256i; 15],
    nr: usize,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    acc: __m128i,
    io: &mut Io,
) -> Steps {
    let mut c = vaes::counters(ctr);
    let mut acc = acc;
    let n = (io.len / STEP).saturating_sub(1);
    for at in (0..n * STEP).step_by(STEP) {
        acc = vpclmul::step(g, acc, io.src(at, STEP));
        let (src, dst) = io.at(at);
        // SAFETY: STEP bytes from `at` lie inside both buffers.
        unsafe { vaes::ctr256_raw(rk, nr, &mut c, src, dst) };
    }
    (n * STEP, acc)
}

/// The three Karatsuba sums of a 512-bit aggregation (each 128-bit
/// quarter a separate partial sum).
struct Sums {
    lo: __m512i,
    mid: __m512i,
    hi: __m512i,
}

impl Sums {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn zero() -> Sums {
        let z = _mm512_setzero_si512();
        Sums {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Add the products of four byte-reversed blocks `x` with their powers
    /// `k` (Karatsuba factors `kx`): low, high and middle.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn product(&mut self, x: __m512i, k: __m512i, kx: __m512i) {
        let xx = _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x));
        self.lo = _mm512_xor_si512(self.lo, _mm512_clmulepi64_epi128::<0x00>(x, k));
        self.hi = _mm512_xor_si512(self.hi, _mm512_clmulepi64_epi128::<0x11>(x, k));
        self.mid = _mm512_xor_si512(self.mid, _mm512_clmulepi64_epi128::<0x00>(xx, kx));
    }
}

/// Add the whole 64-byte pieces of the ciphertext `data` (at least
/// [`STEP`] bytes, else none) to `agg` four blocks per multiply (512-bit),
/// as long as four blocks are still announced; returns the bytes taken
/// (the rest goes to `agg` two blocks per multiply). The data must have
/// been written with 512-bit stores or not just written at all: a 512-bit
/// load of bytes that narrower stores just wrote waits for them to reach
/// the cache (sealing's 256-bit steps read this way gained nothing).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn agg_quads(agg: &mut vpclmul::Agg, g: &vpclmul::Key, data: &[u8]) -> usize {
    if data.len() < STEP {
        // A few blocks: the fold back to 256 bits costs more than the
        // multiplies it saves.
        return 0;
    }
    let rev = vaes512::rev();
    let mut s = Sums::zero();
    let mut taken = 0;
    for piece in data.chunks_exact(64) {
        if agg.left() < 4 {
            break;
        }
        let (o, acc) = agg.take(4);
        // SAFETY: a 64-byte load of the piece; 64-byte loads inside the
        // power tables (at(left) + 64 ≤ their length while four blocks
        // are announced: H^left .. H^(left-3)).
        let (raw, k, kx) = unsafe {
            (
                _mm512_loadu_si512(piece.as_ptr().cast()),
                _mm512_loadu_si512(g.powers[o..].as_ptr().cast()),
                _mm512_loadu_si512(g.xpowers[o..].as_ptr().cast()),
            )
        };
        let x = _mm512_xor_si512(_mm512_shuffle_epi8(raw, rev), _mm512_zextsi128_si512(acc));
        s.product(x, k, kx);
        taken += 64;
    }
    let [lo, mid, hi] = wide::halves((s.lo, s.mid, s.hi));
    agg.add_sums(lo, mid, hi);
    taken
}

/// Hash `m` whole steps (the first `m` of the `n` of a message with `rest`
/// bytes after them) in their windows, starting from `agg` (the first
/// window's aggregation, maybe with the AAD in it), while as many steps
/// are encrypted from `src` to `dst` ([`wide::run`]; `seal`) or decrypted;
/// returns the aggregation that the next blocks go into.
///
/// # Safety
/// As [`wide::run`]'s.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
#[allow(clippy::too_many_arguments)]
unsafe fn hash_steps<'k>(
    mut agg: vpclmul::Agg<'k>,
    g: &'k vpclmul::Key,
    rk: &[__m512i; 15],
    nr: usize,
    ctr: &mut __m512i,
    (src, dst, hash): (*const u8, *mut u8, *const u8),
    (m, n, rest): (usize, usize, usize),
    seal: bool,
) -> vpclmul::Agg<'k> {
    assert!(0 < m && m <= n);
    let (left0, acc, s) = agg.split();
    let sums = (
        _mm512_zextsi256_si512(s[0]),
        _mm512_zextsi256_si512(s[1]),
        _mm512_zextsi256_si512(s[2]),
    );
    let left = |t: usize| if t == 0 { left0 } else { window(t, n, rest, 0) };
    let r = wide::Run {
        src,
        dst,
        hash,
        steps: m,
        powers: &g.powers,
        xpowers: &g.xpowers,
    };
    // SAFETY: the caller vouches for the buffers.
    let sums = unsafe {
        match nr {
            10 if seal => wide::run::<10, true>(rk, ctr, &r, acc, sums, left),
            12 if seal => wide::run::<12, true>(rk, ctr, &r, acc, sums, left),
            _ if seal => wide::run::<14, true>(rk, ctr, &r, acc, sums, left),
            10 => wide::run::<10, false>(rk, ctr, &r, acc, sums, left),
            12 => wide::run::<12, false>(rk, ctr, &r, acc, sums, left),
            _ => wide::run::<14, false>(rk, ctr, &r, acc, sums, left),
        }
    };
    if m < n && m.is_multiple_of(WIN) {
        // The next step opens a window.
        return vpclmul::Agg::new(g, wide::reduce(sums), window(m, n, rest, 0));
    }
    let t0 = (m - 1) / WIN * WIN;
    let l = left(t0) - STEP / 16 * (m - t0);
    vpclmul::Agg::resume(g, l, wide::halves(sums))
}

/// How a message's AAD is hashed: with the held step, the leftover text
/// and the length block in one aggregation when it all fits (no step hashed
/// before the held one, at most [`vpclmul::MAX_BLOCKS`] blocks in all),
/// else first, on its own.
fn aad_joins_tail(aad: usize, text: usize) -> bool {
    text < 2 * STEP && aad.div_ceil(16) + text.div_ceil(16) < vpclmul::MAX_BLOCKS
}

/// Whether `seal_mid` and `open_mid` take the AAD into their first
/// window's aggregation (else it is hashed first, with a reduction of its
/// own).
fn mid_joins(aad: usize, text: usize) -> bool {
    let (n, rest) = (text / STEP, text % STEP);
    aad.div_ceil(16) + window(0, n, rest, 0) <= vpclmul::MAX_BLOCKS
}

/// The blocks of the last aggregation: the AAD if it joins, the held step,
/// the leftover text, the length block.
fn tail_blocks(aad: usize, joined: bool, held: usize, rest: usize) -> usize {
    usize::from(joined) * aad.div_ceil(16) + held / 16 + rest.div_ceil(16) + 1
}

/// XOR the keystream `ks` into the leftover `rest` in registers, handing
/// the result (zero-padded) to `agg`: whole pairs of blocks as pairs.
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn xor_leftover(ks: &[__m256i; 8], rest: &mut [u8], agg: &mut vpclmul::Agg) {
    let p = rest.as_mut_ptr();
    // SAFETY: `rest` is read and written through the one pointer.
    unsafe { xor_leftover_raw(ks, p, p, rest.len(), Some(agg)) }
}

/// [`xor_leftover`] from `src` to `dst` (the same buffer or apart); the
/// result goes to `agg` if given.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing `n` (< 256)
/// bytes.
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn xor_leftover_raw(
    ks: &[__m256i; 8],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    mut agg: Option<&mut vpclmul::Agg>,
) {
    assert!(n < STEP);
    let whole = n / 32;
    for (i, k) in ks.iter().enumerate().take(whole) {
        // SAFETY: the 32 bytes at 32i < n lie inside both buffers (the
        // caller's `n`), read before written.
        let x = unsafe {
            let x = _mm256_xor_si256(_mm256_loadu_si256(src.add(32 * i).cast()), *k);
            _mm256_storeu_si256(dst.add(32 * i).cast(), x);
            x
        };
        if let Some(a) = agg.as_deref_mut() {
            a.pair(x);
        }
    }
    let at = 32 * whole;
    if n > at {
        let k = ks[whole];
        let halves = [_mm256_castsi256_si128(k), _mm256_extracti128_si256::<1>(k)];
        for (j, h) in halves.into_iter().enumerate() {
            let from = at + 16 * j;
            if from < n {
                // SAFETY: the piece at `from` (up to 16 bytes) lies inside
                // both buffers.
                let x = unsafe {
                    crate::xor_block(src.add(from), dst.add(from), (n - from).min(16), h)
                };
                if let Some(a) = agg.as_deref_mut() {
                    a.one(x);
                }
            }
        }
    }
}

/// The full tag: the hash state's bytes XOR E(K, J0).
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn tag_of(acc: __m128i, ek0: __m256i) -> [u8; 16] {
    let t = _mm_xor_si128(pclmul::bswap(acc), _mm256_castsi256_si128(ek0));
    let mut out = [0u8; 16];
    // SAFETY: 16-byte store into a 16-byte array.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), t) };
    out
}

/// E(K, J0) in both halves of a register, started first so that its
/// rounds run beside everything after.
#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn ek0(rk: &[__m256i; 15], nr: usize, j0: &[u8; 16]) -> __m256i {
    // SAFETY: 16-byte load from a 16-byte array.
    let mut b = [_mm256_broadcastsi128_si256(unsafe {
        _mm_loadu_si128(j0.as_ptr().cast())
    })];
    vaes::rounds(rk, nr, &mut b, false);
    b[0]
}

/// What sealing and opening start from.
struct Begun {
    rk: [__m256i; 15],
    /// E(K, J0), its rounds started first.
    ek0: __m256i,
    text: usize,
    /// The AAD joins an aggregation (else it is in `acc` already).
    joined: bool,
    acc: __m128i,
    /// The first counter block of the text.
    ctr: [u8; 16],
}

#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn begin(k: &Keys, g: &vpclmul::Key, j0: &[u8; 16], aad: &[u8], text: usize, join: bool) -> Begun {
    let rk = vaes::enc_keys(k);
    let ek0 = ek0(&rk, k.rounds, j0);
    let joined = join || aad_joins_tail(aad.len(), text);
    let mut acc = _mm_setzero_si128();
    if !joined {
        acc = vpclmul::absorb_padded(g, acc, aad);
    }
    Begun {
        rk,
        ek0,
        text,
        joined,
        acc,
        ctr: add32(j0, 1),
    }
}

#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal_inner(
    zmm: bool,
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // From 512 bytes, with 512-bit registers, `seal_mid`.
    let mid = zmm && buf.len() >= WIDE;
    let join = mid && mid_joins(aad.len(), buf.len());
    let b = begin(k, g, j0, aad, buf.len(), join);
    if mid {
        // SAFETY: `mid` is set only with the Vaes512 token (AVX-512F/BW).
        return unsafe { seal_mid(k, g, &b, aad, buf) };
    }
    let (rk, ek0, text, joined, ctr) = (b.rk, b.ek0, b.text, b.joined, b.ctr);
    let (done, acc) = seal256(&rk, k.rounds, g, &ctr, b.acc, buf);
    // 256-byte steps leave less than one step after the held one.
    let held = if done == 0 { 0 } else { STEP };
    let mut c = vaes::counters(&add32(&ctr, done / 16));
    let (head, rest) = buf.split_at_mut(done);
    let mut agg = vpclmul::Agg::new(g, acc, tail_blocks(aad.len(), joined, held, rest.len()));
    if joined {
        agg.padded(aad);
    }
    agg.padded(&head[done - held..]);
    if !rest.is_empty() {
        // The leftover's ciphertext goes to the hash from registers.
        let ks = vaes::keystream(&rk, k.rounds, &mut c, rest.len().div_ceil(32));
        xor_leftover(&ks, rest, &mut agg);
    }
    agg.one(len_block(aad.len(), text));
    tag_of(agg.finish(), ek0)
}

/// Sealing from 512 bytes with 512-bit registers: the whole 256-byte
/// steps encrypted four blocks per register, each hashed (four blocks per
/// multiply: 512-bit loads of 512-bit stores) while the next is encrypted,
/// into its window's aggregation, then the rest's keystream, and the last
/// window with the rest from registers and the length block; the AAD joins
/// the first window's aggregation when it fits. (For 512 to 1,023 bytes,
/// against the 256-bit code, side by side on Zen 4, best of 3×9: AES-128
/// 576 bytes 135 -> 124 ns, 1,008 bytes 177 -> 162; AES-256 576 bytes 153
/// -> 133, 896 bytes 184 -> 162; then the AAD joining: 576 bytes 120 -> 107,
/// AES-128.)
///
/// # Safety
/// The CPU must have AVX-512F/BW besides this function's features.
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn seal_mid(k: &Keys, g: &vpclmul::Key, b: &Begun, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let text = buf.len();
    assert!(text >= WIDE);
    let rk = vaes512::load_keys(&k.enc);
    let mut c = vaes512::counters(&b.ctr);
    let n = text / STEP;
    let rest = text - n * STEP;
    let aad_blocks = if b.joined { aad.len().div_ceil(16) } else { 0 };
    let mut agg = vpclmul::Agg::new(g, b.acc, window(0, n, rest, aad_blocks));
    if b.joined {
        agg.padded(aad);
    }
    // Step 0 encrypted; then step j hashed while step j + 1 is encrypted,
    // up to the last step, hashed below with the rest.
    vaes512::ctr_step(&rk, k.rounds, &mut c, &mut buf[..STEP]);
    let p = buf.as_mut_ptr();
    // SAFETY: steps 1 .. n are encrypted in place and steps 0 .. n - 1
    // hashed, inside `buf` (n * STEP <= text); step 0 was encrypted above.
    let mut agg = unsafe {
        let at = p.add(STEP);
        hash_steps(
            agg,
            g,
            &rk,
            k.rounds,
            &mut c,
            (at, at, p),
            (n - 1, n, rest),
            true,
        )
    };
    let mut c2 = vaes::counters(&add32(&b.ctr, n * STEP / 16));
    let ks = (rest > 0).then(|| vaes::keystream(&b.rk, k.rounds, &mut c2, rest.div_ceil(32)));
    let taken = agg_quads(&mut agg, g, &buf[(n - 1) * STEP..n * STEP]);
    assert_eq!(taken, STEP);
    if let Some(ks) = ks {
        xor_leftover(&ks, &mut buf[n * STEP..], &mut agg);
    }
    agg.one(len_block(aad.len(), text));
    tag_of(agg.finish(), b.ek0)
}

#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open_inner(
    zmm: bool,
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    io: &mut Io,
    tag: &[u8],
) -> Result<(), AuthError> {
    // As in sealing: from 512 bytes, with 512-bit registers, `open_mid`.
    let mid = zmm && io.len >= WIDE;
    let join = mid && mid_joins(aad.len(), io.len);
    let b = begin(k, g, j0, aad, io.len, join);
    if mid {
        // SAFETY: `mid` is set only with the Vaes512 token (AVX-512F/BW).
        return unsafe { open_mid(k, g, &b, aad, io, tag) };
    }
    let (rk, ek0, text, joined, ctr) = (b.rk, b.ek0, b.text, b.joined, b.ctr);
    // `done` bytes hashed and decrypted; the next step, if whole, is held
    // for the last aggregation.
    let (done, acc) = open256(&rk, k.rounds, g, &ctr, b.acc, io);
    let held = if text - done >= STEP { STEP } else { 0 };
    let rest = text - done - held;
    let mut agg = vpclmul::Agg::new(g, acc, tail_blocks(aad.len(), joined, held, rest));
    if joined {
        agg.padded(aad);
    }
    // The rest's keystream first; then the tail hashed and decrypted, its
    // multiplies beside its AES rounds (the hash reads the ciphertext
    // before the decryption writes it).
    let mut c = vaes::counters(&add32(&ctr, (done + held) / 16));
    let ks = (rest > 0).then(|| vaes::keystream(&rk, k.rounds, &mut c, rest.div_ceil(32)));
    let mut tail = io.src(done, text - done);
    if zmm {
        // SAFETY: `zmm` is set only with the Vaes512 token (AVX-512F/BW).
        tail = &tail[unsafe { agg_quads(&mut agg, g, tail) }..];
    }
    agg.padded(tail);
    if held > 0 {
        let mut c = vaes::counters(&add32(&ctr, done / 16));
        let (src, dst) = io.at(done);
        // SAFETY: the held STEP bytes lie inside both buffers, hashed above.
        unsafe { vaes::ctr256_raw(&rk, k.rounds, &mut c, src, dst) };
    }
    if let Some(ks) = ks {
        let (src, dst) = io.at(done + held);
        // SAFETY: the `rest` bytes after the held step lie inside both
        // buffers, hashed above.
        unsafe { xor_leftover_raw(&ks, src, dst, rest, None) };
    }
    agg.one(len_block(aad.len(), text));
    let expect = tag_of(agg.finish(), ek0);
    if !ct_eq_slices(&expect[..tag.len()], tag) {
        // Encrypt what was decrypted again: the same keystream.
        vaes::ctr(k, &ctr, io.dst(0, text), true);
        return Err(AuthError);
    }
    Ok(())
}

/// Opening from 512 bytes with 512-bit registers, [`seal_mid`]'s
/// counterpart: each 256-byte step of ciphertext hashed (four blocks per
/// multiply) into its window's aggregation and then decrypted, four blocks
/// per register — the hash reads the ciphertext, so the multiplies of a
/// step and its AES rounds run side by side — then the rest hashed and
/// decrypted, the last window with the length block. The text is decrypted
/// before the tag is checked and encrypted again if it fails, as in
/// [`open_inner`]. (For 512 to 1,023 bytes, against one stitched 512-byte
/// step and the rest hashed, then decrypted, side by side on Zen 4, best of
/// 3×9: AES-128 576 bytes 135 -> 123 ns, 896 bytes 161 -> 138; AES-256 800
/// bytes 178 -> 146, 1,008 bytes 198 -> 167.)
///
/// # Safety
/// The CPU must have AVX-512F/BW besides this function's features.
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn open_mid(
    k: &Keys,
    g: &vpclmul::Key,
    b: &Begun,
    aad: &[u8],
    io: &mut Io,
    tag: &[u8],
) -> Result<(), AuthError> {
    // The set-up repeats `seal_mid`'s: as one helper returning it, the
    // aggregation went through memory and a message took 25-30 ns longer.
    let text = io.len;
    assert!(text >= WIDE);
    let rk = vaes512::load_keys(&k.enc);
    let mut c = vaes512::counters(&b.ctr);
    let n = text / STEP;
    let rest = text - n * STEP;
    let aad_blocks = if b.joined { aad.len().div_ceil(16) } else { 0 };
    let mut agg = vpclmul::Agg::new(g, b.acc, window(0, n, rest, aad_blocks));
    if b.joined {
        agg.padded(aad);
    }
    // The rest's keystream first, so its rounds run beside the steps
    // (opening 832 bytes, AES-256, 157 -> 148 ns on Zen 4).
    let mut c2 = vaes::counters(&add32(&b.ctr, n * STEP / 16));
    let ks = (rest > 0).then(|| vaes::keystream(&b.rk, k.rounds, &mut c2, rest.div_ceil(32)));
    let (src, dst) = io.at(0);
    // SAFETY: the n steps lie inside both buffers (n * STEP <= text); each
    // step's ciphertext is hashed before its stores.
    let mut agg = unsafe {
        hash_steps(
            agg,
            g,
            &rk,
            k.rounds,
            &mut c,
            (src, dst, src),
            (n, n, rest),
            false,
        )
    };
    if let Some(ks) = ks {
        agg.padded(io.src(n * STEP, rest));
        let (src, dst) = io.at(n * STEP);
        // SAFETY: the `rest` bytes after the steps lie inside both buffers.
        unsafe { xor_leftover_raw(&ks, src, dst, rest, None) };
    }
    agg.one(len_block(aad.len(), text));
    let expect = tag_of(agg.finish(), b.ek0);
    if !ct_eq_slices(&expect[..tag.len()], tag) {
        // Encrypt what was decrypted again: the same keystream.
        vaes::ctr(k, &b.ctr, io.dst(0, text), true);
        return Err(AuthError);
    }
    Ok(())
}

/// The key material of the one-pass code: the AES round keys at a VAES
/// width and the GHASH powers (the tokens prove the CPU runs them).
#[derive(Clone, Copy)]
pub struct KeyRefs<'a> {
    pub w: Width,
    /// Proof of VPCLMULQDQ (the Width's VAES token does not imply it).
    pub u: Vpclmul,
    pub k: &'a Keys,
    pub g: &'a vpclmul::Key,
}

/// Encrypt `buf` in place and return the full 16-byte tag, for the
/// message whose pre-counter block is `j0`.
pub fn seal(keys: KeyRefs, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    if super::short::applies(aad.len(), buf.len()) {
        return super::short::seal(keys, j0, aad, buf);
    }
    let KeyRefs { w, u, k, g } = keys;
    let _ = u;
    // SAFETY: the tokens exist only when the CPU has VAES, AVX2, AES-NI,
    // VPCLMULQDQ, PCLMULQDQ, SSSE3 (and for Zmm AVX-512F/BW).
    unsafe { seal_inner(matches!(w, Width::Zmm(_)), k, g, j0, aad, buf) }
}

/// Verify the tag (1 to 16 bytes, checked by the caller) and decrypt the
/// ciphertext of `io` (in place, or into another buffer); on a wrong tag
/// the output holds what it would hold had the ciphertext been copied
/// there: what was decrypted is encrypted again.
pub(crate) fn open(
    keys: KeyRefs,
    j0: &[u8; 16],
    aad: &[u8],
    io: &mut Io,
    tag: &[u8],
) -> Result<(), AuthError> {
    if super::short::applies(aad.len(), io.len) {
        return super::short::open(keys, j0, aad, io, tag);
    }
    let KeyRefs { w, u, k, g } = keys;
    let _ = u;
    // SAFETY: as in `seal`.
    unsafe { open_inner(matches!(w, Width::Zmm(_)), k, g, j0, aad, io, tag) }
}
