//! AES with VAES: the AES round instructions on 256-bit registers, two
//! blocks per register and eight registers (sixteen blocks) in flight for
//! ECB and CTR. Constant time, like AES-NI, whose key schedule it shares.

use super::aesni::Keys;
use crate::cpu::Vaes;
use core::arch::x86_64::*;

#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
fn load_keys(k: &[[u8; 16]; 15]) -> [__m256i; 15] {
    core::array::from_fn(|i| {
        // SAFETY: unaligned 16-byte load from a 16-byte array.
        let key = unsafe { _mm_loadu_si128(k[i].as_ptr().cast()) };
        _mm256_broadcastsi128_si256(key)
    })
}

#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn rounds<const N: usize>(
    rk: &[__m256i; 15],
    nr: usize,
    b: &mut [__m256i; N],
    decrypt: bool,
) {
    for x in b.iter_mut() {
        *x = _mm256_xor_si256(*x, rk[0]);
    }
    for k in &rk[1..nr] {
        for x in b.iter_mut() {
            *x = if decrypt {
                _mm256_aesdec_epi128(*x, *k)
            } else {
                _mm256_aesenc_epi128(*x, *k)
            };
        }
    }
    for x in b.iter_mut() {
        *x = if decrypt {
            _mm256_aesdeclast_epi128(*x, rk[nr])
        } else {
            _mm256_aesenclast_epi128(*x, rk[nr])
        };
    }
}

#[target_feature(enable = "vaes,avx2,aes")]
fn ecb(k: &Keys, buf: &mut [u8], decrypt: bool) {
    let rk = load_keys(if decrypt { &k.dec } else { &k.enc });
    let mut chunks = buf.chunks_exact_mut(256);
    for c in &mut chunks {
        let p = c.as_mut_ptr();
        // SAFETY: `c` is 256 bytes; every 32-byte access stays inside it.
        let mut b: [__m256i; 8] =
            core::array::from_fn(|i| unsafe { _mm256_loadu_si256(p.add(32 * i).cast()) });
        rounds(&rk, k.rounds, &mut b, decrypt);
        for (i, x) in b.iter().enumerate() {
            // SAFETY: as above.
            unsafe { _mm256_storeu_si256(p.add(32 * i).cast(), *x) };
        }
    }
    let rest = chunks.into_remainder();
    let mut pairs = rest.chunks_exact_mut(32);
    for c in &mut pairs {
        let p = c.as_mut_ptr();
        // SAFETY: `c` is 32 bytes.
        let mut b = [unsafe { _mm256_loadu_si256(p.cast()) }];
        rounds(&rk, k.rounds, &mut b, decrypt);
        // SAFETY: `c` is 32 bytes.
        unsafe { _mm256_storeu_si256(p.cast(), b[0]) };
    }
    for c in pairs.into_remainder().chunks_exact_mut(16) {
        let mut two = [0u8; 32];
        two[..16].copy_from_slice(c);
        // SAFETY: 32-byte load from and store to a 32-byte array.
        let mut b = [unsafe { _mm256_loadu_si256(two.as_ptr().cast()) }];
        rounds(&rk, k.rounds, &mut b, decrypt);
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(two.as_mut_ptr().cast(), b[0]) };
        c.copy_from_slice(&two[..16]);
    }
}

pub fn encrypt_blocks(t: Vaes, k: &Keys, buf: &mut [u8]) {
    if buf.len() <= super::aesni::FEW {
        return super::aesni::ecb_few(t.aesni(), k, buf, false);
    }
    // SAFETY: the Vaes token exists only when the CPU has VAES, AVX2, AES-NI.
    unsafe { ecb(k, buf, false) }
}

pub fn decrypt_blocks(t: Vaes, k: &Keys, buf: &mut [u8]) {
    if buf.len() <= super::aesni::FEW {
        return super::aesni::ecb_few(t.aesni(), k, buf, true);
    }
    // SAFETY: as above.
    unsafe { ecb(k, buf, true) }
}

/// Reverses the bytes of each 128-bit half.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
fn rev() -> __m256i {
    _mm256_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
        12, 13, 14, 15,
    )
}

/// Counter blocks kept byte-reversed, so the big-endian last word is the
/// low 32-bit lane and one vector add makes the next two: `iv` and `iv`+1
/// in the two halves.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn counters(iv: &[u8; 16]) -> __m256i {
    // SAFETY: 16-byte load from a 16-byte array.
    let b = unsafe { _mm_loadu_si128(iv.as_ptr().cast()) };
    let c = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(b), rev());
    _mm256_add_epi32(c, _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0))
}

/// The next two counter blocks (inc32: the last word wraps mod 2^32).
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn next2(c: &mut __m256i) -> __m256i {
    let out = _mm256_shuffle_epi8(*c, rev());
    *c = _mm256_add_epi32(*c, _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2));
    out
}

/// The AES round keys in registers.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn enc_keys(k: &Keys) -> [__m256i; 15] {
    load_keys(&k.enc)
}

/// Encrypt the 256-byte `c` in place with the next sixteen counter blocks.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn ctr256(rk: &[__m256i; 15], nr: usize, ctr: &mut __m256i, c: &mut [u8]) {
    assert!(c.len() >= 256);
    let p = c.as_mut_ptr();
    // SAFETY: 256 bytes at `p` (checked above), read and written through
    // the one pointer.
    unsafe { ctr256_raw(rk, nr, ctr, p, p) }
}

/// [`ctr256`] from `src` to `dst`, which are the same buffer or do not
/// overlap.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing 256 bytes.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) unsafe fn ctr256_raw(
    rk: &[__m256i; 15],
    nr: usize,
    ctr: &mut __m256i,
    src: *const u8,
    dst: *mut u8,
) {
    let mut b: [__m256i; 8] = core::array::from_fn(|_| next2(ctr));
    rounds(rk, nr, &mut b, false);
    for (i, x) in b.iter().enumerate() {
        // SAFETY: each access is 32 bytes inside the 256 the caller vouches
        // for; each piece is read before it is written.
        unsafe {
            let v = _mm256_loadu_si256(src.add(32 * i).cast());
            _mm256_storeu_si256(dst.add(32 * i).cast(), _mm256_xor_si256(v, *x));
        }
    }
}

/// CTR. Counters are made two at a time with one vector add on the low
/// word; a 128-bit counter takes the same path unless its low word would
/// carry within this buffer, which the slow path handles.
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn ctr(k: &Keys, iv: &[u8; 16], buf: &mut [u8], inc32: bool) {
    let rk = load_keys(&k.enc);
    if !inc32 && super::low_word_carries(iv, buf.len()) {
        return ctr_carrying(&rk, k.rounds, iv, buf);
    }
    let mut ctr = counters(iv);
    let mut chunks = buf.chunks_exact_mut(256);
    for c in &mut chunks {
        ctr256(&rk, k.rounds, &mut ctr, c);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let pairs = keystream(&rk, k.rounds, &mut ctr, rest.len().div_ceil(32));
        let mut ks = [0u8; 256];
        for (i, x) in pairs.iter().enumerate() {
            // SAFETY: a 32-byte store at 32i < 256 inside `ks`.
            unsafe { _mm256_storeu_si256(ks.as_mut_ptr().add(32 * i).cast(), *x) };
        }
        rest.iter_mut().zip(ks).for_each(|(x, k)| *x ^= k);
    }
}

/// One batch of AES rounds over N pairs of counter blocks from `ctr`.
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
fn pairs<const N: usize>(rk: &[__m256i; 15], nr: usize, ctr: &mut __m256i) -> [__m256i; N] {
    let mut b: [__m256i; N] = core::array::from_fn(|_| next2(ctr));
    rounds(rk, nr, &mut b, false);
    b
}

/// The keystream of `n` (1 to 8) pairs of counter blocks from `ctr`, in
/// registers (pair i in slot i): exactly those pairs, in one batch of AES
/// rounds so their latencies overlap (a message's leftover costs one
/// block's latency, not one per pair).
#[inline]
#[target_feature(enable = "vaes,avx2,aes")]
pub(crate) fn keystream(
    rk: &[__m256i; 15],
    nr: usize,
    ctr: &mut __m256i,
    n: usize,
) -> [__m256i; 8] {
    let mut ks = [_mm256_setzero_si256(); 8];
    macro_rules! take {
        ($($n:literal)*) => {
            match n {
                $($n => ks[..$n].copy_from_slice(&pairs::<$n>(rk, nr, ctr)),)*
                _ => panic!("1 to 8 pairs, not {n}"),
            }
        };
    }
    take!(1 2 3 4 5 6 7 8);
    ks
}

/// 128-bit CTR whose counter carries out of the low word: counters made
/// one at a time.
#[target_feature(enable = "vaes,avx2,aes")]
fn ctr_carrying(rk: &[__m256i; 15], nr: usize, iv: &[u8; 16], buf: &mut [u8]) {
    let mut ctr = u128::from_be_bytes(*iv);
    for c in buf.chunks_mut(32) {
        let mut two = [0u8; 32];
        two[..16].copy_from_slice(&ctr.to_be_bytes());
        ctr = ctr.wrapping_add(1);
        two[16..].copy_from_slice(&ctr.to_be_bytes());
        ctr = ctr.wrapping_add(1);
        // SAFETY: 32-byte load from and store to a 32-byte array.
        let mut b = [unsafe { _mm256_loadu_si256(two.as_ptr().cast()) }];
        rounds(rk, nr, &mut b, false);
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(two.as_mut_ptr().cast(), b[0]) };
        c.iter_mut().zip(two).for_each(|(x, k)| *x ^= k);
    }
}

pub fn ctr_xor(_t: Vaes, k: &Keys, iv: &[u8; 16], buf: &mut [u8], inc32: bool) {
    // SAFETY: the Vaes token exists only when the CPU has VAES, AVX2, AES-NI.
    unsafe { ctr(k, iv, buf, inc32) }
}
