//! AES-GCM with VAES and VPCLMULQDQ stitched into one pass: each 256-byte
//! step encrypts sixteen counter blocks and hashes sixteen ciphertext
//! blocks (when sealing, those of the step before; when opening, its own),
//! so the AES rounds of one and the carry-less multiplies of the other
//! share the core. Two widths, as the AES variant says: `vaes` with 256-bit
//! registers, `vaes512` with 512-bit registers (AVX-512). Constant time: no
//! branch or index depends on the key or the data.

use crate::aes::aesni::Keys;
use crate::aes::{vaes, vaes512, Width};
use crate::cpu::Vpclmul;
use crate::ghash::{pclmul, vpclmul};
use core::arch::x86_64::*;

pub(crate) const STEP: usize = vpclmul::STEP;
/// The 512-bit code's step: 32 blocks, hashed with one reduction.
const WIDE: usize = 512;

/// Run `work(i, prev, cur)` for each whole step i of `buf`: `cur` is step i
/// (to encrypt), `prev` step i-1 (to hash, already encrypted); a last call
/// with i = n hashes the final step. Returns the bytes covered.
#[inline(always)]
fn pipelined<const S: usize>(
    buf: &mut [u8],
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
    if n > 0 {
        hash(&buf[(n - 1) * S..]);
    }
    n * S
}

/// 256-bit registers. AVX-512VL, where present, only lends the compiler
/// sixteen more registers (the round keys and powers then stay in them).
/// (Interleaving the multiplies into the AES rounds by hand, a register
/// after each round, ran at half this speed here: with sixteen ymm
/// registers the eight AES states, the three sums and the products do not
/// fit, and the spills cost more than the overlap gains; the core's own
/// out-of-order window overlaps these two calls well.)
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal256(k: &Keys, g: &vpclmul::Key, ctr: &[u8; 16], y: &mut [u8; 16], buf: &mut [u8]) -> usize {
    let rk = vaes::enc_keys(k);
    let h = vpclmul::powers(g);
    let mut c = vaes::counters(ctr);
    let mut acc = pclmul::load(y);
    let done = pipelined::<STEP>(
        buf,
        |cur| vaes::ctr256(&rk, k.rounds, &mut c, cur),
        |prev| acc = vpclmul::step(&h, acc, prev),
    );
    *y = pclmul::store(acc);
    done
}

/// Decryption, 256-bit registers: each step's sixteen ciphertext blocks
/// are hashed, then decrypted in place (the ciphertext is there from the
/// start, so no step waits for another).
#[target_feature(enable = "vaes,avx2,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open256(k: &Keys, g: &vpclmul::Key, ctr: &[u8; 16], y: &mut [u8; 16], buf: &mut [u8]) -> usize {
    let rk = vaes::enc_keys(k);
    let h = vpclmul::powers(g);
    let mut c = vaes::counters(ctr);
    let mut acc = pclmul::load(y);
    for cur in buf.chunks_exact_mut(STEP) {
        acc = vpclmul::step(&h, acc, cur);
        vaes::ctr256(&rk, k.rounds, &mut c, cur);
    }
    *y = pclmul::store(acc);
    buf.len() / STEP * STEP
}

/// The key's 32 powers in 512-bit registers (register i: H^(32-4i) lowest).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn powers512(g: &vpclmul::Key) -> [__m512i; 8] {
    // SAFETY: unaligned 64-byte loads inside the 512-byte array.
    core::array::from_fn(|i| unsafe { _mm512_loadu_si512(g.powers[64 * i..].as_ptr().cast()) })
}

/// Absorb the WIDE bytes at `blocks` into `acc`: 32 blocks, one reduction.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn hash512(hp: &[__m512i; 8], rev: __m512i, acc: __m128i, blocks: &[u8]) -> __m128i {
    assert!(blocks.len() >= WIDE);
    let p = blocks.as_ptr();
    let z = _mm512_setzero_si512();
    let (mut lo, mut mid, mut hi) = (z, z, z);
    for (i, k) in hp.iter().enumerate() {
        // SAFETY: 64-byte load inside the WIDE bytes checked above.
        let mut x = _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(p.add(64 * i).cast()) }, rev);
        if i == 0 {
            x = _mm512_xor_si512(x, _mm512_zextsi128_si512(acc));
        }
        lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(x, *k));
        hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(x, *k));
        mid = _mm512_xor_si512(
            mid,
            _mm512_xor_si512(
                _mm512_clmulepi64_epi128::<0x01>(x, *k),
                _mm512_clmulepi64_epi128::<0x10>(x, *k),
            ),
        );
    }
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

/// 512-bit registers: four counter blocks and four hashed blocks each.
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn seal512(k: &Keys, g: &vpclmul::Key, ctr: &[u8; 16], y: &mut [u8; 16], buf: &mut [u8]) -> usize {
    let rk = vaes512::load_keys(&k.enc);
    let hp = powers512(g);
    let rev = vaes512::rev();
    let mut c = vaes512::counters(ctr);
    let mut acc = pclmul::load(y);
    let enc = |cur: &mut [u8]| {
        vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[..STEP]);
        vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[STEP..]);
    };
    let hash = |prev: &[u8]| acc = hash512(&hp, rev, acc, prev);
    let done = pipelined::<WIDE>(buf, enc, hash);
    *y = pclmul::store(acc);
    done
}

/// Decryption, 512-bit registers: 32 blocks hashed and decrypted per step.
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,pclmulqdq,ssse3")]
fn open512(k: &Keys, g: &vpclmul::Key, ctr: &[u8; 16], y: &mut [u8; 16], buf: &mut [u8]) -> usize {
    let rk = vaes512::load_keys(&k.enc);
    let hp = powers512(g);
    let rev = vaes512::rev();
    let mut c = vaes512::counters(ctr);
    let mut acc = pclmul::load(y);
    let mut steps = buf.chunks_exact_mut(WIDE);
    for cur in &mut steps {
        acc = hash512(&hp, rev, acc, cur);
        vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[..STEP]);
        vaes512::ctr_step(&rk, k.rounds, &mut c, &mut cur[STEP..]);
    }
    *y = pclmul::store(acc);
    buf.len() / WIDE * WIDE
}

/// Hash the whole steps of the ciphertext `buf` into the GHASH state `y`
/// and decrypt them in place from counter block `ctr`, in one pass;
/// returns the bytes done (a multiple of 256; the caller does the rest).
pub fn open(
    w: Width,
    _u: Vpclmul,
    k: &Keys,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    y: &mut [u8; 16],
    buf: &mut [u8],
) -> usize {
    match w {
        // SAFETY: the tokens exist only when the CPU has VAES, AVX2,
        // AES-NI, VPCLMULQDQ, PCLMULQDQ, SSSE3 (and for Zmm AVX-512F/BW).
        Width::Zmm(_) => unsafe { open512(k, g, ctr, y, buf) },
        // SAFETY: as above.
        Width::Ymm(_) => unsafe { open256(k, g, ctr, y, buf) },
    }
}

/// Encrypt the whole 256-byte steps of `buf` in place from counter block
/// `ctr` and absorb them into the GHASH state `y`; returns the bytes done.
pub fn seal(
    w: Width,
    _u: Vpclmul,
    k: &Keys,
    g: &vpclmul::Key,
    ctr: &[u8; 16],
    y: &mut [u8; 16],
    buf: &mut [u8],
) -> usize {
    match w {
        // SAFETY: the tokens exist only when the CPU has VAES, AVX2,
        // AES-NI, VPCLMULQDQ, PCLMULQDQ, SSSE3 (and for Zmm AVX-512F/BW).
        Width::Zmm(_) => unsafe { seal512(k, g, ctr, y, buf) },
        // SAFETY: as above.
        Width::Ymm(_) => unsafe { seal256(k, g, ctr, y, buf) },
    }
}
