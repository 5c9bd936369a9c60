//! Short AES-GCM messages (text up to 208 bytes, AAD up to 32 bytes) for
//! the VAES and VPCLMULQDQ pair, in 128-bit registers from start to end:
//! E(K, J0) and the text's keystream blocks in one batch of AES-NI rounds,
//! the AAD, the text and the length block hashed with the key's powers
//! (Karatsuba, one reduction), loaded and stored in place — no buffer, no
//! call. The one-pass code's set-up (its round keys broadcast to 256-bit
//! registers, a 256-byte keystream buffer, the calls between its parts)
//! cost more than a 16-byte message's whole work: sealing 16 bytes with 13
//! of AAD took 90 ns that way and 35 ns this way on the 2-core AMD EPYC
//! (Zen 4), 128 bytes 52 ns, 192 bytes 86 ns (107 ns the one-pass way,
//! its leftover blocks taken one at a time; a whole 256 bytes is as fast
//! there). Constant time: no branch or index depends on the key or the
//! data, only on lengths.

use super::len_block;
use crate::aes::aesni::Keys;
use crate::auth::{ct_eq_slices, AuthError};
use crate::ghash::{pclmul, vpclmul};
use crate::io::Io;
use core::arch::x86_64::*;

/// The longest text and AAD taken here. Above 208 bytes of text the
/// one-pass code's 256-bit keystream and two-block multiplies are faster
/// (ango's latency study, side by side on Zen 4, best of 3, AES-256
/// sealing/opening: 240 bytes 93/115 ns here against 82/98 there, 224
/// bytes 79/101 against 78/93; 208 bytes 77/98 against 80/95).
pub(crate) const TEXT: usize = 208;
pub(crate) const AAD: usize = 32;

/// Counter blocks a message of up to [`TEXT`] bytes needs.
const BLOCKS: usize = TEXT.div_ceil(16);

pub(crate) fn applies(aad: usize, text: usize) -> bool {
    aad <= AAD && text <= TEXT
}

/// E(K, J0) then J0+1 .. J0+N-1 (inc32) encrypted, in one batch of rounds,
/// as an array of `$n` blocks (a macro so that every batch is written out
/// where it is used: one the compiler left as a call returned its array
/// through memory and cost the seventeen-block batch 6 ns). Needs AES-NI
/// and SSSE3.
macro_rules! rounds {
    ($k:expr, $j0:expr, $n:expr) => {
        rounds!($k, $j0, $n, 0)
    };
    ($k:expr, $j0:expr, $n:expr, $from:expr) => {{
        let (k, j0): (&Keys, &[u8; 16]) = ($k, $j0);
        // SAFETY: 16-byte load from a 16-byte array.
        let j = unsafe { _mm_loadu_si128(j0.as_ptr().cast()) };
        // Byte-reversed, the big-endian last word is the low 32-bit lane.
        let jr = pclmul::bswap(j);
        // A loop, not a closure: a closure does not take the enclosing
        // function's target features, and the byte swap left as a call in
        // one cost more than the batch.
        let mut b = [_mm_setzero_si128(); $n];
        for (i, x) in b.iter_mut().enumerate() {
            let i = ($from + i) as i32;
            *x = pclmul::bswap(_mm_add_epi32(jr, _mm_set_epi32(0, 0, 0, i)));
        }
        // SAFETY: 16-byte loads from the 16-byte round keys.
        let rk = |i: usize| unsafe { _mm_loadu_si128(k.enc[i].as_ptr().cast()) };
        let k0 = rk(0);
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, k0);
        }
        for r in 1..k.rounds {
            let kr = rk(r);
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, kr);
            }
        }
        let kl = rk(k.rounds);
        for x in b.iter_mut() {
            *x = _mm_aesenclast_si128(*x, kl);
        }
        b
    }};
}

/// [`rounds!`] as a function.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn batch<const N: usize>(k: &Keys, j0: &[u8; 16]) -> [__m128i; N] {
    rounds!(k, j0, N)
}

/// E(K, J0) and the keystream blocks of `text` bytes (slot i + 1 for block
/// i; slots past the text unused).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn keystream(k: &Keys, j0: &[u8; 16], text: usize) -> [__m128i; BLOCKS + 1] {
    let mut out = [_mm_setzero_si128(); BLOCKS + 1];
    // As many blocks as the text needs, in steps of two (a batch of
    // seventeen for 144 bytes cost 14–26 ns more than eleven).
    macro_rules! fill {
        ($n:literal) => {{
            let b: [__m128i; $n] = rounds!(k, j0, $n);
            out[..$n].copy_from_slice(&b);
        }};
    }
    match text {
        0..=16 => fill!(2),
        17..=32 => fill!(3),
        33..=64 => fill!(5),
        65..=96 => fill!(7),
        97..=128 => fill!(9),
        129..=160 => fill!(11),
        161..=192 => fill!(13),
        _ => fill!(14),
    }
    out
}

/// The aggregated products of one GHASH of up to [`vpclmul::MAX_BLOCKS`]
/// blocks, each block taking the power its place from the end gives.
struct Hash<'k> {
    key: &'k vpclmul::Key,
    lo: __m128i,
    mid: __m128i,
    hi: __m128i,
    /// Blocks still to come, this one included.
    left: usize,
}

impl<'k> Hash<'k> {
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
    fn new(key: &'k vpclmul::Key, blocks: usize) -> Hash<'k> {
        let z = _mm_setzero_si128();
        Hash {
            key,
            lo: z,
            mid: z,
            hi: z,
            left: blocks,
        }
    }

    /// Add one block, as it lies in memory (zero-padded).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
    fn add(&mut self, block: __m128i) {
        let x = pclmul::bswap(block);
        let (h, hx) = vpclmul::power128(self.key, self.left);
        self.left -= 1;
        let xx = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
        self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128::<0x00>(x, h));
        self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128::<0x11>(x, h));
        self.mid = _mm_xor_si128(self.mid, _mm_clmulepi64_si128::<0x00>(xx, hx));
    }

    /// Add `data` zero-padded to whole blocks.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
    fn padded(&mut self, data: &[u8]) {
        for piece in data.chunks(16) {
            self.add(crate::load_block(piece));
        }
    }

    /// The reduced sum (the hash state from zero), byte-reversed.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
    fn finish(self) -> __m128i {
        assert_eq!(self.left, 0);
        let mid = _mm_xor_si128(self.mid, _mm_xor_si128(self.lo, self.hi));
        pclmul::reduce(
            _mm_xor_si128(self.lo, _mm_slli_si128::<8>(mid)),
            _mm_xor_si128(self.hi, _mm_srli_si128::<8>(mid)),
        )
    }
}

/// XOR `ks` into the piece of 1 to 16 bytes in place; returns the result
/// zero-padded.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn xor_piece(piece: &mut [u8], ks: __m128i) -> __m128i {
    let p = piece.as_mut_ptr();
    // SAFETY: the piece is read and written through the one pointer.
    unsafe { crate::xor_block(p, p, piece.len(), ks) }
}

fn blocks(aad: usize, text: usize) -> usize {
    aad.div_ceil(16) + text.div_ceil(16) + 1
}

/// The full tag: the hash XOR E(K, J0).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn tag(h: Hash, ek0: __m128i) -> [u8; 16] {
    let t = _mm_xor_si128(pclmul::bswap(h.finish()), ek0);
    let mut out = [0u8; 16];
    // SAFETY: 16-byte store into a 16-byte array.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), t) };
    out
}

/// At most one block of text and one of AAD: straight-line code, every
/// value in a register (the general path below keeps its keystream in an
/// array on the stack and loops over it).
fn one_block(aad: usize, text: usize) -> bool {
    aad <= 16 && text <= 16
}

/// The tag of one block of AAD and one of ciphertext (`x`, zero-padded;
/// either may be absent).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn tag_one(
    g: &vpclmul::Key,
    aad: &[u8],
    x: Option<__m128i>,
    text: usize,
    ek0: __m128i,
) -> [u8; 16] {
    let mut h = Hash::new(g, blocks(aad.len(), text));
    if !aad.is_empty() {
        h.add(crate::load_block(aad));
    }
    if let Some(x) = x {
        h.add(x);
    }
    h.add(len_block(aad.len(), text));
    tag(h, ek0)
}

#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn seal_inner(k: &Keys, g: &vpclmul::Key, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    assert!(applies(aad.len(), buf.len()));
    if one_block(aad.len(), buf.len()) {
        let [ek0, ks] = batch::<2>(k, j0);
        let x = (!buf.is_empty()).then(|| xor_piece(buf, ks));
        return tag_one(g, aad, x, buf.len(), ek0);
    }
    let ks = keystream(k, j0, buf.len());
    let mut h = Hash::new(g, blocks(aad.len(), buf.len()));
    h.padded(aad);
    for (i, piece) in buf.chunks_mut(16).enumerate() {
        let x = xor_piece(piece, ks[i + 1]);
        h.add(x);
    }
    h.add(len_block(aad.len(), buf.len()));
    tag(h, ks[0])
}

#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3")]
fn open_inner(
    k: &Keys,
    g: &vpclmul::Key,
    j0: &[u8; 16],
    aad: &[u8],
    io: &mut Io,
    t: &[u8],
) -> Result<(), AuthError> {
    let len = io.len;
    assert!(applies(aad.len(), len));
    if one_block(aad.len(), len) {
        let [ek0, ks] = batch::<2>(k, j0);
        let x = (len > 0).then(|| crate::load_block(io.src(0, len)));
        let expect = tag_one(g, aad, x, len, ek0);
        if !ct_eq_slices(&expect[..t.len()], t) {
            return Err(AuthError);
        }
        if len > 0 {
            let (src, dst) = io.at(0);
            // SAFETY: the `len` (1 to 16) bytes lie inside both buffers.
            unsafe { crate::xor_block(src, dst, len, ks) };
        }
        return Ok(());
    }
    let ks = keystream(k, j0, len);
    let mut h = Hash::new(g, blocks(aad.len(), len));
    h.padded(aad);
    h.padded(io.src(0, len));
    h.add(len_block(aad.len(), len));
    let expect = tag(h, ks[0]);
    if !ct_eq_slices(&expect[..t.len()], t) {
        return Err(AuthError);
    }
    for (i, at) in (0..len).step_by(16).enumerate() {
        let (src, dst) = io.at(at);
        // SAFETY: the piece at `at` (up to 16 bytes) lies inside both
        // buffers.
        unsafe { crate::xor_block(src, dst, (len - at).min(16), ks[i + 1]) };
    }
    Ok(())
}

/// Seal a message [`applies`] takes; the full 16-byte tag.
pub(crate) fn seal(
    keys: super::stitched::KeyRefs,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let _ = (keys.w, keys.u);
    // SAFETY: the KeyRefs tokens exist only when the CPU has VAES (so
    // AES-NI) and VPCLMULQDQ (so PCLMULQDQ), with SSSE3.
    unsafe { seal_inner(keys.k, keys.g, j0, aad, buf) }
}

/// Verify the tag (1 to 16 bytes) and decrypt a message [`applies`] takes
/// (in place, or into another buffer); on a wrong tag nothing is written.
pub(crate) fn open(
    keys: super::stitched::KeyRefs,
    j0: &[u8; 16],
    aad: &[u8],
    io: &mut Io,
    t: &[u8],
) -> Result<(), AuthError> {
    let _ = (keys.w, keys.u);
    // SAFETY: as in `seal`.
    unsafe { open_inner(keys.k, keys.g, j0, aad, io, t) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::{add32, Aes};

    #[test]
    fn keystream_counters_wrap_within_the_last_word() {
        // A J0 whose last word is about to wrap (any IV but a 12-byte one
        // can give one): block i takes inc32 applied i times.
        for name in ["vaes", "vaes512"] {
            let Ok(a) = Aes::by_name(name) else { continue };
            let key = a.key(&[0x5a; 16]).unwrap();
            let (_, k) = key.vaes_keys().unwrap();
            let mut j0 = [0x11u8; 16];
            // Every batch size (2 to 13 blocks, and 14), the wrap after
            // four blocks (0xfb) and after twelve (0xf3).
            for (last, text) in [0xfbu8, 0xf3]
                .into_iter()
                .flat_map(|l| [1, 16, 17, 32, 64, 96, 128, 160, 192, 193, 208].map(|t| (l, t)))
            {
                j0[12..].copy_from_slice(&[0xff, 0xff, 0xff, last]);
                // SAFETY: the variant is available: the CPU has AES-NI,
                // PCLMULQDQ and SSSE3 beside VAES.
                let ks = unsafe { keystream(k, &j0, text) };
                for i in 0..=text.div_ceil(16) {
                    let mut want = add32(&j0, i);
                    key.encrypt_block(&mut want);
                    let mut got = [0u8; 16];
                    // SAFETY: 16-byte store into a 16-byte array.
                    unsafe { _mm_storeu_si128(got.as_mut_ptr().cast(), ks[i]) };
                    assert_eq!(got, want, "{name} text {text} block {i}");
                }
            }
        }
    }
}
