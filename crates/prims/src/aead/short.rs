//! ChaCha20-Poly1305 for messages of up to 448 bytes (704 where the CPU has
//! AVX-512VL) with the AVX2 ChaCha20 and the radix-2^64 Poly1305, in
//! registers: the one-time key and the text's keystream from one
//! horizontal call of one to four register sets (two to eight blocks; up
//! to six sets with AVX-512VL's 32 vector registers), the text XORed and
//! stored from registers and its
//! ciphertext handed to the MAC as words (a partial block read in place,
//! never copied into a buffer), no zeroed keystream buffer, no byte loops. Such a message's time is mostly
//! the latency of one ChaCha20 chain and of the MAC's few blocks; the rest
//! is what this path removes. Constant time: lengths alone decide the path.

use super::AuthError;
use crate::chacha20::avx2;
use crate::cpu::{Avx2, Avx512Vl};
use crate::io::Io;
use crate::poly1305::radix64::Poly1305 as Mac;
use core::arch::x86_64::*;

/// The longest text taken here: the keystream after block 0 of four
/// horizontal register sets (eight blocks).
pub(crate) const TEXT: usize = 448;

/// With AVX-512VL (32 vector registers), six sets: twelve blocks. Sealing
/// and opening with 13 bytes of AAD on the 2-core AMD EPYC (Zen 4), best
/// of nine runs of many calls, against the AVX-512 pair's one
/// sixteen-block call that took 449 to 704 bytes before: 464 bytes 308
/// against 366 ns (sealing), 336 against 371 (opening); 576 bytes 330
/// against 393, 383 against 405; 704 bytes 384 against 434, 424 against
/// 439. Seven and eight sets (to 960 bytes) sealed faster up to 832 bytes
/// but opened slower from 768 (466 against 447 ns).
pub(crate) const TEXT_VL: usize = 704;

/// The MAC keyed with block 0's first 32 bytes (of `ks`, the keystream
/// from block 0) with the AAD absorbed.
#[inline(always)]
fn start(ks: &[u8], aad: &[u8]) -> Mac {
    let otk: &[u8; 32] = ks[..32].try_into().expect("32 bytes");
    let mut mac = Mac::new(otk);
    mac.padded(aad);
    mac
}

/// The keystream for the text's 16-byte piece `i`.
#[inline]
#[target_feature(enable = "avx2")]
fn piece_ks(ks: &[u8], i: usize) -> __m128i {
    let at = 64 + 16 * i;
    assert!(at + 16 <= ks.len());
    // SAFETY: 16-byte load inside the keystream (checked above).
    unsafe { _mm_loadu_si128(ks[at..].as_ptr().cast()) }
}

/// XOR `k` into the piece of 1 to 16 bytes in place; the result's words,
/// zero-padded.
#[inline]
#[target_feature(enable = "avx2")]
fn xor_piece(piece: &mut [u8], k: __m128i) -> (u64, u64) {
    let p = piece.as_mut_ptr();
    // SAFETY: the piece is read and written through the one pointer.
    let x = unsafe { crate::xor_block(p, p, piece.len(), k) };
    (
        _mm_cvtsi128_si64(x) as u64,
        _mm_extract_epi64::<1>(x) as u64,
    )
}

macro_rules! sets_fns {
    ($seal:ident, $open:ident, $features:literal, $blocks:ident) => {
        /// Seal with P register sets of keystream (blocks 0 .. 2P-1).
        #[target_feature(enable = $features)]
        fn $seal<const P: usize>(
            key: &[u8; 32],
            nonce: &[u8; 12],
            aad: &[u8],
            buf: &mut [u8],
        ) -> [u8; 16] {
            let mut ks = [[0u8; 128]; P];
            avx2::$blocks(avx2::rows(key, 0, nonce), &mut ks);
            let ks = ks.as_flattened();
            let mut mac = start(ks, aad);
            for (i, piece) in buf.chunks_mut(16).enumerate() {
                let (m0, m1) = xor_piece(piece, piece_ks(ks, i));
                mac.words(m0, m1, 1);
            }
            mac.blocks(&super::lens(aad.len(), buf.len()));
            mac.finalize()
        }

        /// Open with P register sets of keystream.
        #[target_feature(enable = $features)]
        fn $open<const P: usize>(
            key: &[u8; 32],
            nonce: &[u8; 12],
            aad: &[u8],
            io: &mut Io,
            tag: &[u8; 16],
        ) -> Result<(), AuthError> {
            let len = io.len;
            let mut ks = [[0u8; 128]; P];
            avx2::$blocks(avx2::rows(key, 0, nonce), &mut ks);
            let ks = ks.as_flattened();
            let mut mac = start(ks, aad);
            // Each piece's ciphertext to the MAC, then its plaintext out,
            // so the XORs run beside the MAC's chain; a wrong tag encrypts
            // them again. (Decrypted after the check, they ran after the
            // chain: opening 256 bytes 227 -> 201 ns, 576 bytes 368 -> 337,
            // Zen 4. Written as a helper taking the MAC by reference, the
            // MAC's state went through memory each block, and it was 8%
            // slower than that.)
            for (i, at) in (0..len).step_by(16).enumerate() {
                let n = (len - at).min(16);
                let (m0, m1) = crate::le_partial(io.src(at, n));
                mac.words(m0, m1, 1);
                let (src, dst) = io.at(at);
                // SAFETY: the piece at `at` (1 to 16 bytes) lies inside both
                // buffers; it is read before it is written.
                unsafe { crate::xor_block(src, dst, n, piece_ks(ks, i)) };
            }
            mac.blocks(&super::lens(aad.len(), len));
            if !super::ct_eq(&mac.finalize(), tag) {
                for (i, at) in (0..len).step_by(16).enumerate() {
                    let p = io.dst(at, (len - at).min(16));
                    let q = p.as_mut_ptr();
                    // SAFETY: the piece, read and written through one pointer.
                    unsafe { crate::xor_block(q, q, p.len(), piece_ks(ks, i)) };
                }
                return Err(AuthError);
            }
            Ok(())
        }
    };
}

sets_fns!(seal_sets, open_sets, "avx2", blocks_h);
// The same with VPROLD rotations (AVX-512VL), the ChaCha20 inlined.
sets_fns!(
    seal_sets_vl,
    open_sets_vl,
    "avx2,avx512f,avx512vl",
    blocks_h_vl
);
// The same with the shortest chain (rotations of fresh values as shifts
// and a three-way XOR), for one register set: sealing 16 bytes 105 -> 96
// ns, 64 bytes 119 -> 108 (Zen 4); with two sets its extra instructions
// cost more than the chain saves (192 bytes 157 -> 164).
sets_fns!(
    seal_sets_tern,
    open_sets_tern,
    "avx2,avx512f,avx512vl",
    blocks_h_tern
);

/// Register sets (two blocks each) for block 0 and `len` bytes after it.
fn sets(len: usize) -> usize {
    assert!(len <= TEXT_VL);
    (64 + len).div_ceil(128)
}

/// The longest text taken here on this CPU.
pub(crate) fn text_max() -> usize {
    if Avx512Vl::detect().is_some() {
        TEXT_VL
    } else {
        TEXT
    }
}

/// Encrypt `buf` (at most [`TEXT`] bytes) in place and return the tag.
pub(crate) fn seal(
    _t: Avx2,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // SAFETY: the Avx2 token exists only when the CPU has AVX2, the
    // Avx512Vl one when it also has AVX-512F/VL.
    unsafe {
        match (Avx512Vl::detect(), sets(buf.len())) {
            (Some(_), 1) => seal_sets_tern::<1>(key, nonce, aad, buf),
            (Some(_), 2) => seal_sets_vl::<2>(key, nonce, aad, buf),
            (Some(_), 3) => seal_sets_vl::<3>(key, nonce, aad, buf),
            (Some(_), 4) => seal_sets_vl::<4>(key, nonce, aad, buf),
            (Some(_), 5) => seal_sets_vl::<5>(key, nonce, aad, buf),
            (Some(_), _) => seal_sets_vl::<6>(key, nonce, aad, buf),
            (None, 1) => seal_sets::<1>(key, nonce, aad, buf),
            (None, 2) => seal_sets::<2>(key, nonce, aad, buf),
            (None, 3) => seal_sets::<3>(key, nonce, aad, buf),
            (None, _) => seal_sets::<4>(key, nonce, aad, buf),
        }
    }
}

/// Verify `tag` and decrypt the ciphertext of `io` (at most
/// [`text_max`] bytes; in place, or into another buffer: read there, not
/// copied first); on a wrong tag nothing is written.
pub(crate) fn open(
    _t: Avx2,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    io: &mut Io,
    tag: &[u8; 16],
) -> Result<(), AuthError> {
    // SAFETY: as in `seal`.
    unsafe {
        match (Avx512Vl::detect(), sets(io.len)) {
            (Some(_), 1) => open_sets_tern::<1>(key, nonce, aad, io, tag),
            (Some(_), 2) => open_sets_vl::<2>(key, nonce, aad, io, tag),
            (Some(_), 3) => open_sets_vl::<3>(key, nonce, aad, io, tag),
            (Some(_), 4) => open_sets_vl::<4>(key, nonce, aad, io, tag),
            (Some(_), 5) => open_sets_vl::<5>(key, nonce, aad, io, tag),
            (Some(_), _) => open_sets_vl::<6>(key, nonce, aad, io, tag),
            (None, 1) => open_sets::<1>(key, nonce, aad, io, tag),
            (None, 2) => open_sets::<2>(key, nonce, aad, io, tag),
            (None, 3) => open_sets::<3>(key, nonce, aad, io, tag),
            (None, _) => open_sets::<4>(key, nonce, aad, io, tag),
        }
    }
}
