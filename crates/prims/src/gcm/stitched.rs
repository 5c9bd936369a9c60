//! AES-GCM with VAES and VPCLMULQDQ stitched into one pass: each 256-byte
//! step encrypts sixteen counter blocks and hashes sixteen ciphertext
//! blocks (when sealing, those of the step before; when opening, its own),
//! so the AES rounds of one and the carry-less multiplies of the other
//! share the core. Two widths, as the AES variant says: `vaes` with 256-bit
//! registers, `vaes512` with 512-bit registers (AVX-512). The whole message
//! is one call: E(K, J0) is started first, the AAD is hashed first (or,
//! when all fits, in the last aggregation; with 512-bit steps, an AAD of
//! one block with the first step), the whole steps stitched, then
//! the leftover text's keystream comes from one batch of AES rounds, and
//! the last step, the leftover text (from registers: a short piece is
//! never copied into a buffer and reloaded, which stalls the load until the
//! narrower stores reach the cache), the length block (and the AAD) are
//! hashed with one reduction. Sealing and opening 512 to 1,023 bytes with
//! AVX-512 take no stitched step: their 256-byte steps, in 512-bit
//! registers, are all hashed in that last aggregation (`seal_mid`,
//! `open_mid`). Constant time: no branch or index depends on the key or
//! the data, only on lengths.

use super::{len_block, Io};
use crate::aead::{ct_eq_slices, AuthError};
use crate::aes::aesni::Keys;
use crate::aes::{add32, vaes, vaes512, Width};
use crate::cpu::Vpclmul;
use crate::ghash::{pclmul, vpclmul};
use core::arch::x86_64::*;

pub(crate) const STEP: usize = vpclmul::STEP;
/// The 512-bit code's step: 32 blocks, hashed with one reduction.
const WIDE: usize = 512;

/// Encrypt each whole step of `buf` with `enc` and hash it with `hash`
/// while the next one is encrypted (step i-1 hashed after step i is
/// encrypted); the last step is hashed only if `hash_last`. Returns the
/// bytes encrypted.
#[inline(always)]
fn pipelined<const S: usize>(
    buf: &mut [u8],
    hash_last: bool,
    mut enc: impl FnMut(&mut [u8]),
    mut hash: impl FnMut(&[u8]),
) -> usize {
    let n = buf.len() / S;
    for i in 0..n {
        let (prev, cur) = buf.split_at_mut(i * S);
        enc(&mut cur[..S]);
        if i > 0 {
            hash(&prev[(i - 1) * S..]);
        }
    }
    if n > 0 && hash_last {
        hash(&buf[(n - 1) * S..]);
    }
    n * S
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
    let done = pipelined::<STEP>(
        buf,
        false,
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

/// The key's 32 powers in 512-bit registers (register i: H^(32-4i)
/// lowest), and beside each its Karatsuba factors.
type Powers512 = [(__m512i, __m512i); 8];

#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn powers512(g: &vpclmul::Key, top: usize) -> Powers512 {
    assert!((32..=vpclmul::MAX_BLOCKS).contains(&top));
    let o = vpclmul::at(top);
    // SAFETY: unaligned 64-byte loads inside the two tables (at(top) + 512
    // lies within them: H^top .. H^(top-31)).
    core::array::from_fn(|i| unsafe {
        (
            _mm512_loadu_si512(g.powers[o + 64 * i..].as_ptr().cast()),
            _mm512_loadu_si512(g.xpowers[o + 64 * i..].as_ptr().cast()),
        )
    })
}

/// The three Karatsuba sums of a 512-bit aggregation (each 128-bit
/// quarter a separate partial sum).
#[derive(Clone, Copy)]
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

    /// Add register `i` (blocks 4i..4i+4) of the 32 at `p`, multiplied by
    /// its powers; register 0 takes the hash state `acc` first.
    ///
    /// # Safety
    /// `p` must be valid for reading WIDE bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    unsafe fn add(&mut self, hp: &Powers512, rev: __m512i, acc: __m128i, p: *const u8, i: usize) {
        // SAFETY: 64-byte load inside the WIDE bytes the caller vouches for.
        self.add_reg(
            hp,
            rev,
            acc,
            unsafe { _mm512_loadu_si512(p.add(64 * i).cast()) },
            i,
        );
    }

    /// [`Self::add`] with register `i` already loaded (as in memory).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn add_reg(&mut self, hp: &Powers512, rev: __m512i, acc: __m128i, raw: __m512i, i: usize) {
        let (k, kx) = hp[i];
        let mut x = _mm512_shuffle_epi8(raw, rev);
        if i == 0 {
            x = _mm512_xor_si512(x, _mm512_zextsi128_si512(acc));
        }
        self.product(x, k, kx);
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

    /// The reduced hash state, with `lead` (one block before the 32) and
    /// `trail` (one after them) added, each a block in memory order with
    /// its power of H and that power's Karatsuba factor.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
    fn finish(self, lead: Lead, trail: Lead) -> __m128i {
        let Sums {
            mut lo,
            mut mid,
            mut hi,
        } = self;
        for (b, (h, hx)) in [lead, trail].into_iter().flatten() {
            let x = pclmul::bswap(b);
            let xx = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
            let z = |v: __m128i| _mm512_zextsi128_si512(v);
            lo = _mm512_xor_si512(lo, z(_mm_clmulepi64_si128::<0x00>(x, h)));
            hi = _mm512_xor_si512(hi, z(_mm_clmulepi64_si128::<0x11>(x, h)));
            mid = _mm512_xor_si512(mid, z(_mm_clmulepi64_si128::<0x00>(xx, hx)));
        }
        let mid = _mm512_xor_si512(mid, _mm512_xor_si512(lo, hi));
        let fold = |v: __m512i| {
            _mm_xor_si128(
                _mm_xor_si128(
                    _mm512_extracti32x4_epi32::<0>(v),
                    _mm512_extracti32x4_epi32::<1>(v),
                ),
                _mm_xor_si128(
                    _mm512_extracti32x4_epi32::<2>(v),
                    _mm512_extracti32x4_epi32::<3>(v),
                ),
            )
        };
        // The middle products join the low and high halves in every quarter
        // first (byte shifts stay within quarters), then two folds.
        let lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
        let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
        pclmul::reduce(fold(lo), fold(hi))
    }
}

/// Absorb the WIDE bytes at `blocks` into `acc`: 32 blocks, one reduction,
/// three multiplies per four blocks (Karatsuba, as the 256-bit code); with
/// `lead`, one block before the 32: a message's AAD of up to 16 bytes
/// hashed with its first step, not on its own first; with `trail`, one
/// after them: the length block hashed with a message's last step (`hp`
/// then H^33 .. H^2), not after it with a reduction of its own.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn hash512(
    hp: &Powers512,
    rev: __m512i,
    acc: __m128i,
    blocks: &[u8],
    lead: Lead,
    trail: Lead,
) -> __m128i {
    assert!(blocks.len() >= WIDE);
    let mut s = Sums::zero();
    for i in 0..8 {
        // SAFETY: WIDE bytes at the pointer (checked above).
        unsafe { s.add(hp, rev, acc, blocks.as_ptr(), i) };
    }
    s.finish(lead, trail)
}

/// The hashing one 512-byte step carries beside its AES rounds: 32 blocks
/// into `acc` (with `lead`, see [`Sums::finish`]) — those at `blocks`, or
/// with None the step's own text (decryption: the ciphertext it reads).
struct Carry {
    blocks: Option<*const u8>,
    acc: __m128i,
    lead: Lead,
}

/// One 512-byte step, 512-bit registers: the 32 next counter blocks
/// encrypted and XORed from `src` into `dst`, and, with `h`, 32 blocks
/// hashed — one register's three multiplies after each of the first eight
/// rounds, the reduction after the ninth — so that the carry-less
/// multiplies fill the gaps of the AES rounds. (The other way, a step is
/// two four-register calls of rounds, then the hash as a call of its own.
/// The two builds side by side on Zen 4, run in turn, best of nine, 16 KiB:
/// AES-256 sealing 1684-1703 ns that way, 1648-1670 this way, opening
/// 1653-1668 and 1569-1579; but AES-128 sealing 1429-1438 that way and
/// 1549-1600 this way (1634-1652 against 1775-1858 in a noisy hour), so
/// AES-128 seals the other way; its opening, 1380-1389 against 1408-1449,
/// stays here: this way reads the ciphertext once, first (see below). On
/// Zen 4 a VPCLMULQDQ issues once every two cycles on a pipe VAES also
/// uses, and a step needs 24 of them.)
/// The last round's key is XORed with the text first, so the last round
/// gives the output. Returns the new hash state if `h`.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing WIDE bytes (the
/// same buffer or apart), `h`'s blocks for reading WIDE bytes; every read
/// of the step comes before its writes.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn step512(
    rk: &[__m512i; 15],
    nr: usize,
    hp: &Powers512,
    ctr: &mut __m512i,
    src: *const u8,
    dst: *mut u8,
    h: Option<Carry>,
) -> Option<__m128i> {
    let rev = vaes512::rev();
    let mut b: [__m512i; 8] = core::array::from_fn(|j| {
        let c = _mm512_add_epi32(*ctr, _mm512_set4_epi32(0, 0, 0, 4 * j as i32));
        _mm512_xor_si512(_mm512_shuffle_epi8(c, rev), rk[0])
    });
    *ctr = _mm512_add_epi32(*ctr, _mm512_set4_epi32(0, 0, 0, 32));
    // SAFETY: 64-byte load inside the WIDE bytes at `src`.
    let load = |j: usize| unsafe { _mm512_loadu_si512(src.add(64 * j).cast()) };
    // Decrypting, the step's text (the ciphertext it hashes) is read once,
    // first: read after the step's stores began, into another buffer, a
    // read could wait on a store it only seems to depend on (the same
    // address bits below 4 KiB: 16 KiB, the output 64 bytes off the input
    // modulo 4 KiB, took 1777 ns against 1474 at 0 bytes off, AES-128).
    // Sealing reads it last (fewer registers held through the rounds).
    let own = matches!(h, Some(Carry { blocks: None, .. }));
    let text: [__m512i; 8] = if own {
        core::array::from_fn(load)
    } else {
        [_mm512_setzero_si512(); 8]
    };
    let mut s = Sums::zero();
    for r in 1..9 {
        for x in b.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, rk[r]);
        }
        if let Some(c) = &h {
            match c.blocks {
                // SAFETY: the caller vouches for WIDE bytes at `p`.
                Some(p) => unsafe { s.add(hp, rev, c.acc, p, r - 1) },
                None => s.add_reg(hp, rev, c.acc, text[r - 1], r - 1),
            }
        }
    }
    let acc = h.map(|h| s.finish(h.lead, None));
    for k in &rk[9..nr] {
        for x in b.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, *k);
        }
    }
    for (j, (x, t)) in b.iter().zip(text).enumerate() {
        let v = if own { t } else { load(j) };
        let out = _mm512_aesenclast_epi128(*x, _mm512_xor_si512(rk[nr], v));
        // SAFETY: 64-byte store inside the WIDE bytes at `dst`; all of the
        // step's reads came before.
        unsafe { _mm512_storeu_si512(dst.add(64 * j).cast(), out) };
    }
    acc
}

/// A block hashed beside a step's 32 (in memory order), and its power of
/// H with that power's Karatsuba factor.
type Lead = Option<(__m128i, (__m128i, __m128i))>;

/// The extra blocks of a message's 512-byte steps, with their powers of
/// H: the AAD block hashed with the first step (`lead`), the length block
/// hashed with the last (`trail`, H^1; the last step's 32 blocks then take
/// H^33 .. H^2, see [`last_powers`], and `lead` the power above them).
#[inline]
#[target_feature(enable = "pclmulqdq,sse2,ssse3")]
fn extras(
    g: &vpclmul::Key,
    steps: usize,
    lead: Option<__m128i>,
    trail: Option<__m128i>,
) -> (Lead, Lead) {
    let top = if trail.is_some() && steps == 1 {
        34
    } else {
        33
    };
    let lead = lead.map(|a| (a, vpclmul::power128(g, top)));
    let trail = trail.map(|t| (t, vpclmul::power128(g, 1)));
    (lead, trail)
}

/// The powers of H for the last step: `hp` (H^32 .. H^1), or H^33 .. H^2
/// with a trail. Loaded only for that step: the other steps keep `hp` in
/// registers beside the round keys (31 of the 32).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn last_powers(g: &vpclmul::Key, hp: &Powers512, trail: Lead) -> Powers512 {
    if trail.is_some() {
        powers512(g, 33)
    } else {
        *hp
    }
}

/// 512-bit registers: each step's counter blocks encrypted with the step
/// before hashed beside them; `lead`, the AAD block hashed with the first
/// step (`acc` then zero); `trail`, the length block: the text is a whole
/// number of steps and the last is hashed after them with it. Without
/// `trail` the last step is left unhashed for the caller's last
/// aggregation ([`seal_wide_tail`]).
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal512(
    k: &Keys,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    acc: __m128i,
    buf: &mut [u8],
    lead: Option<__m128i>,
    trail: Option<__m128i>,
) -> Steps {
    let rk = vaes512::load_keys(&k.enc);
    let n = buf.len() / WIDE;
    let hash_last = trail.is_some();
    let hp = powers512(g, 32);
    let (mut lead, trail) = extras(g, n, lead, trail);
    let mut c = vaes512::counters(ctr);
    let mut acc = acc;
    if k.rounds == 10 {
        // AES-128 seals faster with the rounds and the hash as calls of
        // their own than with the interleaved step (see `step512`).
        let enc = |cur: &mut [u8]| {
            vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[..STEP]);
            vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[STEP..]);
        };
        let rev = vaes512::rev();
        let hash = |prev: &[u8]| acc = hash512(&hp, rev, acc, prev, lead.take(), None);
        let done = pipelined::<WIDE>(buf, false, enc, hash);
        if n > 0 && hash_last {
            let last = &buf[(n - 1) * WIDE..];
            acc = hash512(
                &last_powers(g, &hp, trail),
                rev,
                acc,
                last,
                lead.take(),
                trail,
            );
        }
        return (done, acc);
    }
    let p = buf.as_mut_ptr();
    if n > 0 {
        // SAFETY: the first WIDE bytes of `buf`, in place.
        unsafe { step512(&rk, k.rounds, &hp, &mut c, p, p, None) };
    }
    for i in 1..n {
        // SAFETY: step i's WIDE bytes of `buf` in place; step i-1's bytes
        // (hashed) lie just before them and are not written.
        let a = unsafe {
            let cur = p.add(i * WIDE);
            let h = Carry {
                blocks: Some(cur.sub(WIDE)),
                acc,
                lead: lead.take(),
            };
            step512(&rk, k.rounds, &hp, &mut c, cur, cur, Some(h))
        };
        acc = a.expect("hashed");
    }
    if n > 0 && hash_last {
        acc = hash512(
            &last_powers(g, &hp, trail),
            vaes512::rev(),
            acc,
            &buf[(n - 1) * WIDE..],
            lead.take(),
            trail,
        );
    }
    (n * WIDE, acc)
}

/// Decryption, 512-bit registers: 32 blocks hashed and decrypted per step
/// (`lead` as in [`seal512`]; the length block joining the last step, as
/// there, made opening 1 KiB slower here: 158 -> 167 ns, AES-128, Zen 4).
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open512(
    k: &Keys,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    acc: __m128i,
    io: &mut Io,
    lead: Option<__m128i>,
) -> Steps {
    let rk = vaes512::load_keys(&k.enc);
    let done = io.len / WIDE * WIDE;
    let hp = powers512(g, 32);
    let (mut lead, _) = extras(g, done / WIDE, lead, None);
    let mut c = vaes512::counters(ctr);
    let mut acc = acc;
    for at in (0..done).step_by(WIDE) {
        let (src, dst) = io.at(at);
        let h = Carry {
            blocks: None,
            acc,
            lead: lead.take(),
        };
        // SAFETY: WIDE bytes from `at` lie inside both buffers; the step
        // reads them (hash and text) before it writes.
        let a = unsafe { step512(&rk, k.rounds, &hp, &mut c, src, dst, Some(h)) };
        acc = a.expect("hashed");
    }
    (done, acc)
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
        let (o, acc) = agg.take_quad();
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
    let half =
        |v: __m512i| _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    agg.add_sums(half(s.lo), half(s.mid), half(s.hi));
    taken
}

/// How a message's AAD is hashed: with the held step, the leftover text
/// and the length block in one aggregation when it all fits (no step hashed
/// before the held one, at most [`vpclmul::MAX_BLOCKS`] blocks in all),
/// else first, on its own.
fn aad_joins_tail(aad: usize, text: usize) -> bool {
    text < 2 * STEP && aad.div_ceil(16) + text.div_ceil(16) < vpclmul::MAX_BLOCKS
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
    /// The AAD joins the last aggregation (else it is in `acc` already,
    /// or in `lead`).
    joined: bool,
    /// The AAD (up to 16 bytes), to be hashed with the first 512-byte
    /// step.
    lead: Option<__m128i>,
    acc: __m128i,
    /// The first counter block of the text.
    ctr: [u8; 16],
}

#[inline]
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn begin(
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    text: usize,
    wide: bool,
    join: bool,
) -> Begun {
    let rk = vaes::enc_keys(k);
    let ek0 = ek0(&rk, k.rounds, j0);
    let joined = join || aad_joins_tail(aad.len(), text);
    // With 512-bit steps, an AAD of one block joins the first step's hash
    // (a separate hash and reduction of 13 bytes cost 12 ns of a 1 KiB
    // message on Zen 4).
    let lead = (wide && (1..=16).contains(&aad.len())).then(|| crate::load_block(aad));
    let mut acc = _mm_setzero_si128();
    if !joined && lead.is_none() {
        acc = vpclmul::absorb_padded(g, acc, aad);
    }
    Begun {
        rk,
        ek0,
        text,
        joined,
        lead,
        acc,
        ctr: add32(j0, 1),
    }
}

#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal_inner(
    wide: bool,
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // The 512-bit steps from two whole 512-byte steps; from 512 bytes up
    // to them the 256-byte steps in 512-bit registers with one reduction
    // (`seal_mid`). (The 512-bit steps there, one and a tail, sealed slower
    // than the 256-bit code: 960 bytes AES-256 212 -> 199 ns, 768 bytes
    // 180 -> 167, Zen 4; `seal_mid` beat both.)
    let mid = wide && buf.len() >= WIDE && buf.len() < 2 * WIDE;
    let wide = wide && buf.len() >= 2 * WIDE;
    // `seal_mid` takes a short AAD into its one aggregation.
    let join = mid && aad.len().div_ceil(16) + buf.len().div_ceil(16) < vpclmul::MAX_BLOCKS;
    let b = begin(k, g, j0, aad, buf.len(), wide, join);
    if mid {
        // SAFETY: `mid` is set only with the Vaes512 token (AVX-512F/BW).
        return unsafe { seal_mid(k, g, &b, aad, buf) };
    }
    let (rk, ek0, text, joined, ctr) = (b.rk, b.ek0, b.text, b.joined, b.ctr);
    let mut acc = b.acc;
    // A whole number of 512-byte steps: the length block joins the last.
    let whole = wide && text % WIDE == 0;
    let trail = whole.then(|| len_block(aad.len(), text));
    // `done` bytes encrypted, of which the last `held` not yet hashed.
    let done;
    (done, acc) = if wide {
        // SAFETY: `wide` is set only with the Vaes512 token: the CPU has
        // AVX-512F/BW besides this function's features.
        unsafe { seal512(k, g, &ctr, acc, buf, b.lead, trail) }
    } else {
        seal256(&rk, k.rounds, g, &ctr, acc, buf)
    };
    if whole {
        return tag_of(acc, ek0);
    }
    if wide {
        // SAFETY: as above.
        return unsafe { seal_wide_tail(k, g, &rk, &ctr, acc, ek0, aad.len(), buf, done) };
    }
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

/// Sealing 512 to 1,023 bytes with 512-bit registers: its whole 256-byte
/// steps encrypted four blocks per register, each hashed (four blocks per
/// multiply: 512-bit loads of 512-bit stores) while the next is encrypted,
/// the rest's keystream, and all of it — the AAD when it fits, the steps,
/// the rest from registers, the length block — in one aggregation with one
/// reduction (the 256-bit code reduces after every step, and the AAD
/// before them). Side by side on Zen 4, best of 3×9, against the 256-bit
/// code: AES-128 sealing 576 bytes 135 -> 124 ns, 832 bytes 165 -> 141,
/// 1,008 bytes 177 -> 162; AES-256 576 bytes 153 -> 133, 896 bytes 184 ->
/// 162; then the AAD joining: 576 bytes 120 -> 107 (AES-128), 1,008 bytes
/// 176 -> 161 (AES-256). Exactly 512 bytes came here later, from one
/// 512-bit step hashed on its own: AES-128 112 -> 98 ns, AES-256 127 -> 106.
///
/// # Safety
/// The CPU must have AVX-512F/BW besides this function's features.
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn seal_mid(k: &Keys, g: &vpclmul::Key, b: &Begun, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let text = buf.len();
    assert!((WIDE..2 * WIDE).contains(&text) && b.lead.is_none());
    let rk = vaes512::load_keys(&k.enc);
    let mut c = vaes512::counters(&b.ctr);
    let n = text / STEP;
    let rest = text - n * STEP;
    let aad_blocks = if b.joined { aad.len().div_ceil(16) } else { 0 };
    let mut agg = vpclmul::Agg::new(g, b.acc, aad_blocks + text.div_ceil(16) + 1);
    if b.joined {
        agg.padded(aad);
    }
    for i in 0..n {
        vaes512::ctr_step(&rk, k.rounds, &mut c, &mut buf[i * STEP..(i + 1) * STEP]);
        if i > 0 {
            let taken = agg_quads(&mut agg, g, &buf[(i - 1) * STEP..i * STEP]);
            assert_eq!(taken, STEP);
        }
    }
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

/// The end of sealing with 512-bit steps and a leftover (`done` bytes in
/// whole steps, at least two, the last not yet hashed): one more 256-byte
/// step if at least that much is left, the rest's keystream, then one
/// aggregation with one reduction — the held 512-byte step four blocks per
/// multiply (its 512-bit stores forward to these 512-bit loads), the
/// 256-byte step, the rest from registers and the length block. The rest's
/// AES rounds are issued before the held step's multiplies, so the two
/// overlap. (Hashed on its own first, as before, the held step took a
/// reduction of its own and the rest waited for it: side by side on Zen 4,
/// best of 3×9, AES-128 sealing 1,040 bytes 183 -> 173 ns, 1,152 bytes 187
/// -> 176, 1,312 bytes 213 -> 197, 1,568 bytes 226 -> 209; AES-256 about
/// as much. Taking this way for 513-1,023 bytes too, one 512-byte step
/// then the tail, was slower than the 256-bit code there: 896 bytes 166 ->
/// 178 ns.)
///
/// # Safety
/// The CPU must have AVX-512F/BW besides this function's features.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
unsafe fn seal_wide_tail(
    k: &Keys,
    g: &vpclmul::Key,
    rk: &[__m256i; 15],
    ctr: &[u8; 16],
    acc: __m128i,
    ek0: __m256i,
    aad_len: usize,
    buf: &mut [u8],
    done: usize,
) -> [u8; 16] {
    let text = buf.len();
    assert!(done >= 2 * WIDE && done.is_multiple_of(WIDE) && text - done < WIDE);
    let mut c = vaes::counters(&add32(ctr, done / 16));
    let mut end = done;
    if text - end >= STEP {
        vaes::ctr256(rk, k.rounds, &mut c, &mut buf[end..end + STEP]);
        end += STEP;
    }
    let rest = text - end;
    let ks = (rest > 0).then(|| vaes::keystream(rk, k.rounds, &mut c, rest.div_ceil(32)));
    let blocks = WIDE / 16 + (end - done) / 16 + rest.div_ceil(16) + 1;
    let mut agg = vpclmul::Agg::new(g, acc, blocks);
    let (head, tail) = buf.split_at_mut(end);
    let held = &head[done - WIDE..];
    let taken = agg_quads(&mut agg, g, &held[..WIDE]);
    agg.padded(&held[taken..]);
    if let Some(ks) = ks {
        xor_leftover(&ks, tail, &mut agg);
    }
    agg.one(len_block(aad_len, text));
    tag_of(agg.finish(), ek0)
}

#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open_inner(
    wide: bool,
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    io: &mut Io,
    tag: &[u8],
) -> Result<(), AuthError> {
    let zmm = wide;
    // As in sealing: from 512 bytes up to two whole 512-byte steps, the
    // 256-byte steps in 512-bit registers with one reduction (`open_mid`).
    let mid = zmm && io.len >= WIDE && io.len < 2 * WIDE;
    let wide = wide && io.len >= 2 * WIDE;
    let join = mid && aad.len().div_ceil(16) + io.len.div_ceil(16) < vpclmul::MAX_BLOCKS;
    let b = begin(k, g, j0, aad, io.len, wide, join);
    if mid {
        // SAFETY: `mid` is set only with the Vaes512 token (AVX-512F/BW).
        return unsafe { open_mid(k, g, &b, aad, io, tag) };
    }
    let (rk, ek0, text, joined, ctr) = (b.rk, b.ek0, b.text, b.joined, b.ctr);
    let mut acc = b.acc;
    // `done` bytes hashed and decrypted; the next step, if whole, is held
    // for the last aggregation.
    let done;
    (done, acc) = if wide {
        // SAFETY: as in `seal_inner`.
        unsafe { open512(k, g, &ctr, acc, io, b.lead) }
    } else {
        open256(&rk, k.rounds, g, &ctr, acc, io)
    };
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

/// Opening 512 to 1,023 bytes with 512-bit registers, [`seal_mid`]'s
/// counterpart: each 256-byte step of ciphertext hashed (four blocks per
/// multiply) and then decrypted, four blocks per register — the hash reads
/// the ciphertext, so the multiplies of a step and its AES rounds run side
/// by side — then the rest hashed and decrypted, and all of it (the AAD
/// when it fits, the steps, the rest, the length block) reduced once. The
/// text is decrypted before the tag is checked and encrypted again if it
/// fails, as in [`open_inner`]. Side by side on Zen 4, best of 3×9,
/// against one stitched 512-byte step and the rest hashed, then decrypted:
/// AES-128 576 bytes 135 -> 123 ns, 768 bytes 140 -> 123, 896 bytes 161 ->
/// 138; AES-256 576 bytes 151 -> 134, 800 bytes 178 -> 146, 1,008 bytes
/// 198 -> 167.
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
    let text = io.len;
    assert!((WIDE..2 * WIDE).contains(&text) && b.lead.is_none());
    let rk = vaes512::load_keys(&k.enc);
    let mut c = vaes512::counters(&b.ctr);
    let n = text / STEP;
    let rest = text - n * STEP;
    let aad_blocks = if b.joined { aad.len().div_ceil(16) } else { 0 };
    let mut agg = vpclmul::Agg::new(g, b.acc, aad_blocks + text.div_ceil(16) + 1);
    if b.joined {
        agg.padded(aad);
    }
    // The rest's keystream first, so its rounds run beside the steps
    // (opening 832 bytes, AES-256, 157 -> 148 ns on Zen 4).
    let mut c2 = vaes::counters(&add32(&b.ctr, n * STEP / 16));
    let ks = (rest > 0).then(|| vaes::keystream(&b.rk, k.rounds, &mut c2, rest.div_ceil(32)));
    for i in 0..n {
        let taken = agg_quads(&mut agg, g, io.src(i * STEP, STEP));
        assert_eq!(taken, STEP);
        let (src, dst) = io.at(i * STEP);
        // SAFETY: the STEP bytes at `i * STEP` lie inside both buffers
        // (n * STEP <= text); hashed above before they are written.
        unsafe { vaes512::ctr_step_raw(&rk, k.rounds, &mut c, src, dst) };
    }
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
