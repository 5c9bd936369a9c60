//! CCM on the AES instructions in one pass. The CBC-MAC is one chain of
//! block encryptions, each waiting for the last: its latency (rounds × the
//! AESENC latency) sets the pace, and the AES unit sits mostly idle. So each
//! MAC block's rounds are issued in lockstep with one counter block's
//! (sealing: the same block's; opening: the next block's, whose plaintext
//! the MAC needs first), and the counter blocks cost next to nothing.
//! The round keys stay in registers; the AAD is absorbed without a copy;
//! every round count is its own unrolled code. Constant time like AES-NI.

use super::{aad_blocks, b0, ctr_block};
use crate::aes::aesni::Keys;
use crate::cpu::AesNi;
use core::arch::x86_64::*;

/// Counter blocks from counter block 0: its first eight bytes (flags,
/// nonce) fixed, the count in the last eight, big-endian (SP 800-38C's
/// q <= 8 count bytes; the payload check keeps it from reaching the nonce).
#[derive(Clone, Copy)]
struct Counter {
    high: i64,
    count: u64,
}

impl Counter {
    fn new(block0: &[u8; 16]) -> Counter {
        Counter {
            high: i64::from_le_bytes(block0[..8].try_into().expect("8 bytes")),
            count: u64::from_be_bytes(block0[8..].try_into().expect("8 bytes")),
        }
    }

    /// Counter block `i` as a vector.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn block(self, i: u64) -> __m128i {
        _mm_set_epi64x(self.count.wrapping_add(i).swap_bytes() as i64, self.high)
    }
}

#[inline]
#[target_feature(enable = "aes,sse2")]
fn load(b: &[u8; 16]) -> __m128i {
    // SAFETY: 16-byte load from a 16-byte array.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// One block through `NR` rounds.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn one<const NR: usize>(rk: &[__m128i; 15], x: __m128i) -> __m128i {
    let mut x = _mm_xor_si128(x, rk[0]);
    for k in &rk[1..NR] {
        x = _mm_aesenc_si128(x, *k);
    }
    _mm_aesenclast_si128(x, rk[NR])
}

/// The CBC-MAC chain, held one round short: `z` is the state before the
/// last round of the block absorbed last. The next block's input
/// (y XOR m, whitened with round key 0) is then that last round with the
/// key rk[NR] XOR rk[0] XOR m — made off the chain — so each block costs
/// the chain exactly its rounds, no XOR between them.
#[derive(Clone, Copy)]
struct Mac {
    z: __m128i,
    /// rk[NR] XOR rk[0].
    kx: __m128i,
}

impl Mac {
    /// The chain after `first` (B0).
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn new<const NR: usize>(rk: &[__m128i; 15], first: __m128i) -> Mac {
        let mut z = _mm_xor_si128(first, rk[0]);
        for k in &rk[1..NR] {
            z = _mm_aesenc_si128(z, *k);
        }
        Mac {
            z,
            kx: _mm_xor_si128(rk[NR], rk[0]),
        }
    }

    /// The next block's first step: the last round of the one before,
    /// joined to this block and its whitening.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn enter(self, m: __m128i) -> __m128i {
        _mm_aesenclast_si128(self.z, _mm_xor_si128(self.kx, m))
    }

    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn absorb<const NR: usize>(&mut self, rk: &[__m128i; 15], m: __m128i) {
        let mut z = self.enter(m);
        for k in &rk[1..NR] {
            z = _mm_aesenc_si128(z, *k);
        }
        self.z = z;
    }

    /// Absorb `m` while encrypting the counter block `c`, round by round
    /// together: the keystream block.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn absorb_beside<const NR: usize>(
        &mut self,
        rk: &[__m128i; 15],
        m: __m128i,
        c: __m128i,
    ) -> __m128i {
        let mut z = self.enter(m);
        let mut c = _mm_xor_si128(c, rk[0]);
        for k in &rk[1..NR] {
            z = _mm_aesenc_si128(z, *k);
            c = _mm_aesenc_si128(c, *k);
        }
        self.z = z;
        _mm_aesenclast_si128(c, rk[NR])
    }

    /// The CBC-MAC T.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn finish<const NR: usize>(self, rk: &[__m128i; 15]) -> __m128i {
        _mm_aesenclast_si128(self.z, rk[NR])
    }
}

/// The MAC after B0 and the AAD, and the tag mask S0.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn start<const NR: usize>(
    rk: &[__m128i; 15],
    nonce: &[u8],
    aad: &[u8],
    len: usize,
    tag_len: usize,
) -> (Mac, __m128i) {
    let s0 = one::<NR>(rk, load(&ctr_block(nonce, 0)));
    let mut mac = Mac::new::<NR>(rk, load(&b0(nonce, aad.len(), len, tag_len)));
    aad_blocks(aad, |b| mac.absorb::<NR>(rk, load(b)));
    (mac, s0)
}

/// Seal `len` bytes from `src` to `dst` (the same buffer or apart): the
/// masked tag block.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes.
#[target_feature(enable = "aes,sse2")]
unsafe fn seal_nr<const NR: usize>(
    k: &Keys,
    nonce: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag_len: usize,
) -> [u8; 16] {
    let rk: [__m128i; 15] = core::array::from_fn(|i| load(&k.enc[i]));
    let (mut mac, s0) = start::<NR>(&rk, nonce, aad, len, tag_len);
    let ctr = Counter::new(&ctr_block(nonce, 0));
    let mut i = 1u64;
    let whole = len / 16 * 16;
    let mut off = 0;
    while off < whole {
        // SAFETY: off + 16 <= whole <= len: inside both buffers; each block
        // is read before it is written.
        unsafe {
            let p = _mm_loadu_si128(src.add(off).cast());
            let ks = mac.absorb_beside::<NR>(&rk, p, ctr.block(i));
            _mm_storeu_si128(dst.add(off).cast(), _mm_xor_si128(p, ks));
        }
        i += 1;
        off += 16;
    }
    if off < len {
        let r = len - off;
        let mut b = [0u8; 16];
        // SAFETY: the last r bytes of both buffers.
        unsafe { core::ptr::copy_nonoverlapping(src.add(off), b.as_mut_ptr(), r) };
        let p = load(&b);
        let ks = mac.absorb_beside::<NR>(&rk, p, ctr.block(i));
        // SAFETY: 16-byte store into a 16-byte array.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), _mm_xor_si128(p, ks)) };
        // SAFETY: as above.
        unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(off), r) };
    }
    tag_block(mac.finish::<NR>(&rk), s0)
}

/// Open `len` bytes from `src` to `dst` (the same buffer or apart): the
/// masked tag block the caller compares. Each block's keystream is made a
/// block ahead, beside the MAC of the block before.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes.
#[target_feature(enable = "aes,sse2")]
unsafe fn open_nr<const NR: usize>(
    k: &Keys,
    nonce: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag_len: usize,
) -> [u8; 16] {
    let rk: [__m128i; 15] = core::array::from_fn(|i| load(&k.enc[i]));
    let ctr = Counter::new(&ctr_block(nonce, 0));
    let (mut mac, s0) = start::<NR>(&rk, nonce, aad, len, tag_len);
    if len == 0 {
        return tag_block(mac.finish::<NR>(&rk), s0);
    }
    let mut ks = one::<NR>(&rk, ctr.block(1));
    let mut i = 2u64;
    let whole = len / 16 * 16;
    // Whole blocks but the last block of the text (whole or not), whose
    // MAC goes without a next keystream.
    let last = if whole == len { whole - 16 } else { whole };
    let mut off = 0;
    while off < last {
        // SAFETY: off + 16 <= last <= len: inside both buffers; each block
        // is read before it is written.
        unsafe {
            let p = _mm_xor_si128(_mm_loadu_si128(src.add(off).cast()), ks);
            _mm_storeu_si128(dst.add(off).cast(), p);
            ks = mac.absorb_beside::<NR>(&rk, p, ctr.block(i));
        }
        i += 1;
        off += 16;
    }
    // The last block: r = 1..=16 bytes.
    let r = len - off;
    let mut b = [0u8; 16];
    // SAFETY: the last r bytes of both buffers.
    unsafe { core::ptr::copy_nonoverlapping(src.add(off), b.as_mut_ptr(), r) };
    let mut p = [0u8; 16];
    // SAFETY: 16-byte store into a 16-byte array.
    unsafe { _mm_storeu_si128(p.as_mut_ptr().cast(), _mm_xor_si128(load(&b), ks)) };
    // The MAC takes the plaintext zero-padded, not the keystream's tail.
    p[r..].fill(0);
    // SAFETY: as above.
    unsafe { core::ptr::copy_nonoverlapping(p.as_ptr(), dst.add(off), r) };
    mac.absorb::<NR>(&rk, load(&p));
    tag_block(mac.finish::<NR>(&rk), s0)
}

/// T XOR S0 as bytes.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn tag_block(t: __m128i, s0: __m128i) -> [u8; 16] {
    let mut tag = [0u8; 16];
    // SAFETY: 16-byte store into a 16-byte array.
    unsafe { _mm_storeu_si128(tag.as_mut_ptr().cast(), _mm_xor_si128(t, s0)) };
    tag
}

/// Seal `buf` in place: the masked tag block (its first `tag_len` bytes
/// are the tag). The caller has checked the nonce, tag and payload lengths.
pub(super) fn seal(
    _t: AesNi,
    k: &Keys,
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag_len: usize,
) -> [u8; 16] {
    let (p, len) = (buf.as_mut_ptr(), buf.len());
    // SAFETY: the AesNi token exists only when the CPU has AES-NI and SSE2;
    // `buf` is valid for its length.
    unsafe {
        match k.rounds {
            10 => seal_nr::<10>(k, nonce, aad, p, p, len, tag_len),
            12 => seal_nr::<12>(k, nonce, aad, p, p, len, tag_len),
            _ => seal_nr::<14>(k, nonce, aad, p, p, len, tag_len),
        }
    }
}

/// Open `len` bytes from `src` into `dst` (the same buffer or apart): the
/// masked tag block to compare.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; they are the same
/// pointer or do not overlap.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn open(
    _t: AesNi,
    k: &Keys,
    nonce: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag_len: usize,
) -> [u8; 16] {
    // SAFETY: the AesNi token proves the CPU features; the buffers are the
    // caller's contract.
    unsafe {
        match k.rounds {
            10 => open_nr::<10>(k, nonce, aad, src, dst, len, tag_len),
            12 => open_nr::<12>(k, nonce, aad, src, dst, len, tag_len),
            _ => open_nr::<14>(k, nonce, aad, src, dst, len, tag_len),
        }
    }
}
