//! ChaCha20-Poly1305 in one pass: the AVX2 ChaCha20 (eight blocks, vector
//! units) with the radix-2^64 Poly1305 (integer multiplier) placed between
//! its double rounds — three blocks of MAC after each of the ten, the last
//! two after — so the MAC of one 512-byte chunk runs beside the
//! encryption of the next instead of after it. Sealing MACs the chunk
//! encrypted before; opening MACs the chunk it will decrypt next (still
//! ciphertext), and a wrong tag puts the decrypted chunks back. Constant
//! time: lengths alone decide the path.
//!
//! It is the pair `chacha20/avx2+poly1305/radix64` from 512 bytes, and
//! the AVX2 pair's (the `auto` pair where there is no AVX-512) from 512 to
//! 4096 bytes (`super::STITCHED_UP_TO` has why). On the 2-core AMD EPYC
//! (Zen 3) this runs on, measured side by side with the separate AVX2 pair
//! (`ango speed --impl auto,chacha20/avx2+poly1305/radix64` before the
//! AVX2 pair took it), in MB/s: at 1 KiB 1067 against 899 (decryption) and
//! 835 against 689 (encryption); at 4 KiB 1587 against 1164 and 1554
//! against 1449; at 16 KiB 1754 against 1666 and 1527 against 1624, but
//! in a later run of every library it reached only 0.66× OpenSSL at 16 KiB
//! (encryption), where the separate pair had reached 0.8×. (An earlier
//! reading that it was slower everywhere came from measuring the two
//! minutes apart on a noisy machine. Making the one-time key beside the
//! first chunk, scalar double rounds between vector ones, made the loop
//! slower here and was left out.)

use super::AuthError;
use crate::chacha20::{avx2, portable};
use crate::cpu::Avx2;
use crate::poly1305::radix64::Poly1305 as Mac;

/// Bytes per stitched chunk: one eight-block ChaCha20 call.
pub(crate) const CHUNK: usize = 512;

/// Poly1305 blocks placed after each double round (30 of a chunk's 32).
const PER_ROUND: usize = 3;

/// The MAC keyed with block 0's first 32 bytes, the AAD absorbed and
/// padded.
fn start(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8]) -> Mac {
    let mut otk = [0u8; 32];
    portable::xor_keystream(key, 0, nonce, &mut otk);
    let mut mac = Mac::new(&otk);
    mac.padded(aad);
    mac
}

/// The rest of the MAC: the text not yet absorbed (`tail`), its padding and
/// the lengths.
fn finish(mut mac: Mac, tail: &[u8], aad_len: usize, ct_len: usize) -> [u8; 16] {
    mac.padded(tail);
    mac.blocks(&super::lens(aad_len, ct_len));
    mac.finalize()
}

/// XOR the keystream into `chunk` while absorbing the 512 bytes of
/// `macced` (none: encryption only).
#[inline]
#[target_feature(enable = "avx2")]
fn chunk(st: &[u32; 16], chunk: &mut [u8; CHUNK], mac: &mut Mac, macced: Option<&[u8]>) {
    match macced {
        Some(m) => {
            avx2::eight_blocks_with(st, chunk, |dr| {
                let at = 16 * PER_ROUND * dr;
                mac.blocks(&m[at..at + 16 * PER_ROUND]);
            });
            mac.blocks(&m[16 * PER_ROUND * 10..CHUNK]);
        }
        None => avx2::eight_blocks_with(st, chunk, |_| {}),
    }
}

#[target_feature(enable = "avx2")]
fn seal_inner(t: Avx2, key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let mut mac = start(key, nonce, aad);
    let mut st = portable::init_state(key, 1, nonce);
    let n = buf.len() / CHUNK;
    for i in 0..n {
        let (before, from) = buf.split_at_mut(i * CHUNK);
        let cur: &mut [u8; CHUNK] = (&mut from[..CHUNK]).try_into().expect("one chunk");
        let prev = i.checked_sub(1).map(|p| &before[p * CHUNK..]);
        chunk(&st, cur, &mut mac, prev);
        st[12] = st[12].wrapping_add(8);
    }
    if n > 0 {
        mac.blocks(&buf[(n - 1) * CHUNK..n * CHUNK]);
    }
    let tail = &mut buf[n * CHUNK..];
    avx2::xor_keystream(t, key, st[12], nonce, tail);
    let ct_len = buf.len();
    finish(mac, &buf[n * CHUNK..], aad.len(), ct_len)
}

#[target_feature(enable = "avx2")]
fn open_inner(
    t: Avx2,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8; 16],
) -> Result<(), AuthError> {
    let mut mac = start(key, nonce, aad);
    let mut st = portable::init_state(key, 1, nonce);
    let n = buf.len() / CHUNK;
    if n > 0 {
        mac.blocks(&buf[..CHUNK]);
    }
    for i in 0..n {
        let (upto, after) = buf.split_at_mut((i + 1) * CHUNK);
        let cur: &mut [u8; CHUNK] = (&mut upto[i * CHUNK..]).try_into().expect("one chunk");
        let next = (i + 1 < n).then(|| &after[..CHUNK]);
        chunk(&st, cur, &mut mac, next);
        st[12] = st[12].wrapping_add(8);
    }
    let expect = finish(mac, &buf[n * CHUNK..], aad.len(), buf.len());
    if !super::ct_eq(&expect, tag) {
        // Put the decrypted chunks back: the same keystream again.
        avx2::xor_keystream(t, key, 1, nonce, &mut buf[..n * CHUNK]);
        return Err(AuthError);
    }
    avx2::xor_keystream(t, key, st[12], nonce, &mut buf[n * CHUNK..]);
    Ok(())
}

/// Encrypt `buf` in place and return the tag.
pub(crate) fn seal(
    t: Avx2,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // SAFETY: the Avx2 token exists only when the CPU has AVX2.
    unsafe { seal_inner(t, key, nonce, aad, buf) }
}

/// Verify and decrypt `buf` in place; on a wrong tag it is left as it came.
pub(crate) fn open(
    t: Avx2,
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8; 16],
) -> Result<(), AuthError> {
    // SAFETY: the Avx2 token exists only when the CPU has AVX2.
    unsafe { open_inner(t, key, nonce, aad, buf, tag) }
}
