//! AES with VAES on 512-bit registers (AVX-512): four blocks per register,
//! four registers (sixteen blocks) in flight for ECB and CTR; what is left
//! after the last whole 256 bytes goes to the 256-bit VAES code. Constant
//! time, like AES-NI, whose key schedule it shares.

use super::aesni::Keys;
use super::vaes;
use crate::cpu::Vaes512;
use core::arch::x86_64::*;

/// Bytes per step: four registers of four blocks.
pub(crate) const STEP: usize = 256;

#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
pub(crate) fn load_keys(k: &[[u8; 16]; 15]) -> [__m512i; 15] {
    core::array::from_fn(|i| {
        // SAFETY: unaligned 16-byte load from a 16-byte array.
        let key = unsafe { _mm_loadu_si128(k[i].as_ptr().cast()) };
        _mm512_broadcast_i32x4(key)
    })
}

#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
fn rounds(rk: &[__m512i; 15], nr: usize, b: &mut [__m512i; 4], decrypt: bool) {
    for x in b.iter_mut() {
        *x = _mm512_xor_si512(*x, rk[0]);
    }
    for k in &rk[1..nr] {
        for x in b.iter_mut() {
            *x = if decrypt {
                _mm512_aesdec_epi128(*x, *k)
            } else {
                _mm512_aesenc_epi128(*x, *k)
            };
        }
    }
    for x in b.iter_mut() {
        *x = if decrypt {
            _mm512_aesdeclast_epi128(*x, rk[nr])
        } else {
            _mm512_aesenclast_epi128(*x, rk[nr])
        };
    }
}

/// Reverses the bytes of each 128-bit quarter.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
pub(crate) fn rev() -> __m512i {
    _mm512_broadcast_i32x4(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ))
}

/// Counter blocks `iv` .. `iv`+3 in the four quarters, byte-reversed so the
/// big-endian last word is each quarter's low 32-bit lane.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
pub(crate) fn counters(iv: &[u8; 16]) -> __m512i {
    // SAFETY: 16-byte load from a 16-byte array.
    let b = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
    _mm512_add_epi32(
        _mm512_shuffle_epi8(b, rev()),
        _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0),
    )
}

/// Encrypt the 256-byte `c` in place with the next sixteen counter blocks
/// (inc32: the last word wraps mod 2^32).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
pub(crate) fn ctr_step(rk: &[__m512i; 15], nr: usize, ctr: &mut __m512i, c: &mut [u8]) {
    assert!(c.len() >= STEP);
    let p = c.as_mut_ptr();
    // SAFETY: STEP bytes at `p` (checked above), read and written through
    // the one pointer.
    unsafe { ctr_step_raw(rk, nr, ctr, p, p) }
}

/// [`ctr_step`] from `src` to `dst`, which are the same buffer or do not
/// overlap.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing STEP bytes.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
pub(crate) unsafe fn ctr_step_raw(
    rk: &[__m512i; 15],
    nr: usize,
    ctr: &mut __m512i,
    src: *const u8,
    dst: *mut u8,
) {
    let four = _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4);
    let rev = rev();
    let mut b: [__m512i; 4] = core::array::from_fn(|_| {
        let x = _mm512_shuffle_epi8(*ctr, rev);
        *ctr = _mm512_add_epi32(*ctr, four);
        x
    });
    rounds(rk, nr, &mut b, false);
    for (i, x) in b.iter().enumerate() {
        // SAFETY: each access is 64 bytes inside the STEP the caller vouches
        // for; each piece is read before it is written.
        unsafe {
            let v = _mm512_loadu_si512(src.add(64 * i).cast());
            _mm512_storeu_si512(dst.add(64 * i).cast(), _mm512_xor_si512(v, *x));
        }
    }
}

#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
fn ecb(k: &Keys, buf: &mut [u8], decrypt: bool) -> usize {
    let rk = load_keys(if decrypt { &k.dec } else { &k.enc });
    let mut done = 0;
    for c in buf.chunks_exact_mut(STEP) {
        let p = c.as_mut_ptr();
        // SAFETY: `c` is 256 bytes; every 64-byte access stays inside it.
        let mut b: [__m512i; 4] =
            core::array::from_fn(|i| unsafe { _mm512_loadu_si512(p.add(64 * i).cast()) });
        rounds(&rk, k.rounds, &mut b, decrypt);
        for (i, x) in b.iter().enumerate() {
            // SAFETY: as above.
            unsafe { _mm512_storeu_si512(p.add(64 * i).cast(), *x) };
        }
        done += STEP;
    }
    done
}

#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
fn ctr(k: &Keys, iv: &[u8; 16], buf: &mut [u8]) -> usize {
    let rk = load_keys(&k.enc);
    let mut c = counters(iv);
    let mut done = 0;
    for chunk in buf.chunks_exact_mut(STEP) {
        ctr_step(&rk, k.rounds, &mut c, chunk);
        done += STEP;
    }
    done
}

pub fn encrypt_blocks(t: Vaes512, k: &Keys, buf: &mut [u8]) {
    if buf.len() < STEP {
        return vaes::encrypt_blocks(t.vaes(), k, buf);
    }
    // SAFETY: the Vaes512 token exists only when the CPU has VAES, AES-NI
    // and AVX-512F/BW.
    let done = unsafe { ecb(k, buf, false) };
    vaes::encrypt_blocks(t.vaes(), k, &mut buf[done..]);
}

pub fn decrypt_blocks(t: Vaes512, k: &Keys, buf: &mut [u8]) {
    if buf.len() < STEP {
        return vaes::decrypt_blocks(t.vaes(), k, buf);
    }
    // SAFETY: as above.
    let done = unsafe { ecb(k, buf, true) };
    vaes::decrypt_blocks(t.vaes(), k, &mut buf[done..]);
}

pub fn ctr_xor(t: Vaes512, k: &Keys, iv: &[u8; 16], buf: &mut [u8], inc32: bool) {
    if buf.len() < STEP || (!inc32 && super::low_word_carries(iv, buf.len())) {
        return vaes::ctr_xor(t.vaes(), k, iv, buf, inc32);
    }
    // SAFETY: as above.
    let done = unsafe { ctr(k, iv, buf) };
    let next = super::add32(iv, done / 16);
    vaes::ctr_xor(t.vaes(), k, &next, &mut buf[done..], inc32);
}
