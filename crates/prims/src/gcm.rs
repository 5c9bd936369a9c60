//! AES-GCM (SP 800-38D) from any AES variant and any GHASH variant. VAES
//! with VPCLMULQDQ encrypts in one stitched pass (`gcm/stitched.rs`).

#[cfg(target_arch = "x86_64")]
mod short;
#[cfg(target_arch = "x86_64")]
mod stitched;
#[cfg(target_arch = "x86_64")]
mod wide;

use crate::aes::{Aes, AesKey};
use crate::auth::{ct_eq_slices, AuthError};
use crate::ghash::{Ghash, GhashKey};
#[cfg(target_arch = "x86_64")]
use crate::io::Io;

/// GCM's length block (the AAD's and the text's lengths in bits,
/// big-endian) in a register, for the VAES paths.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn len_block(aad: usize, text: usize) -> core::arch::x86_64::__m128i {
    let a = ((aad as u64) * 8).to_be_bytes();
    let t = ((text as u64) * 8).to_be_bytes();
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { core::arch::x86_64::_mm_set_epi64x(i64::from_le_bytes(t), i64::from_le_bytes(a)) }
}

/// J0 of a 12-byte IV (IV || 0x00000001). On x86_64 written with one
/// 16-byte store, so that the AES code's 16-byte load of it is forwarded
/// from that store: built piece by piece, the load waited on a failed
/// store-to-load forwarding, and a 16-byte message took 14 ns longer to
/// seal (AES-256, 39 ns against 25, Zen 4).
#[inline(always)]
fn j0_of_12(iv: &[u8]) -> [u8; 16] {
    // Read as RFC 5116's nonce layout (§3.2): a 4-byte fixed field, then
    // an 8-byte counter — the one a sender has just written.
    let fixed = u64::from(u32::from_le_bytes(iv[..4].try_into().expect("12-byte IV")));
    let counter = u64::from_le_bytes(iv[4..12].try_into().expect("12-byte IV"));
    let lo = fixed | counter << 32;
    let hi = counter >> 32 | 1 << 56;
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let mut j0 = [0u8; 16];
        // SAFETY: SSE2 is part of the x86_64 baseline; one 16-byte store
        // into a 16-byte array.
        unsafe { _mm_storeu_si128(j0.as_mut_ptr().cast(), _mm_set_epi64x(hi as i64, lo as i64)) };
        j0
    }
    #[cfg(not(target_arch = "x86_64"))]
    (u128::from(lo) | u128::from(hi) << 64).to_le_bytes()
}

/// Longest text and AAD of the short-message path.
const SHORT: usize = 64;
const SHORT_AAD: usize = 32;

#[derive(Clone)]
pub struct Gcm {
    aes: AesKey,
    ghash: GhashKey,
}

impl Gcm {
    /// `key` is 16, 24 or 32 bytes.
    pub fn new(aes: Aes, ghash: Ghash, key: &[u8]) -> Option<Gcm> {
        let aes = aes.key(key)?;
        let mut h = [0u8; 16];
        aes.encrypt_block(&mut h);
        Some(Gcm {
            ghash: ghash.key(&h),
            aes,
        })
    }

    pub fn variant_name(&self) -> String {
        let g = match &self.ghash {
            GhashKey::Soft(_) => "4bit-nct",
            GhashKey::Ctmul(_) => "ctmul",
            #[cfg(target_arch = "x86_64")]
            GhashKey::Pclmul(..) => "pclmul",
            #[cfg(target_arch = "x86_64")]
            GhashKey::Vpclmul(..) => "vpclmul",
        };
        format!("aes/{}+ghash/{g}", self.aes.variant.name())
    }

    fn j0(&self, iv: &[u8]) -> [u8; 16] {
        if iv.len() == 12 {
            return j0_of_12(iv);
        }
        let mut j0 = [0u8; 16];
        self.ghash.update_padded(&mut j0, iv);
        let mut len = [0u8; 16];
        len[8..].copy_from_slice(&((iv.len() as u64) * 8).to_be_bytes());
        self.ghash.update_padded(&mut j0, &len);
        j0
    }

    /// The tag from the GHASH state `s` of the AAD and ciphertext.
    fn finish_tag(&self, j0: &[u8; 16], mut s: [u8; 16], aad: usize, ct: usize) -> [u8; 16] {
        let mut len = [0u8; 16];
        len[..8].copy_from_slice(&((aad as u64) * 8).to_be_bytes());
        len[8..].copy_from_slice(&((ct as u64) * 8).to_be_bytes());
        self.ghash.update_padded(&mut s, &len);
        let mut ek = *j0;
        self.aes.encrypt_block(&mut ek);
        core::array::from_fn(|i| s[i] ^ ek[i])
    }

    /// The VAES and VPCLMULQDQ code's key material, where this pair has it:
    /// then the whole message is one stitched call.
    #[cfg(target_arch = "x86_64")]
    fn stitched(&self) -> Option<stitched::KeyRefs<'_>> {
        match (self.aes.vaes_keys(), &self.ghash) {
            (Some((w, k)), GhashKey::Vpclmul(u, g)) => Some(stitched::KeyRefs { w, u: *u, k, g }),
            _ => None,
        }
    }

    fn inc32(j0: &[u8; 16]) -> [u8; 16] {
        crate::aes::add32(j0, 1)
    }

    /// E(K, J0) followed by the keystream for `len` (≤ SHORT) bytes, from
    /// one call into the AES code.
    fn short_keystream(&self, j0: &[u8; 16], len: usize) -> [u8; 16 + SHORT] {
        let mut ks = [0u8; 16 + SHORT];
        self.aes
            .ctr32_xor(j0, &mut ks[..16 + len.next_multiple_of(16)]);
        ks
    }

    /// The GHASH state of the padded AAD, padded ciphertext and length
    /// block (AAD ≤ SHORT_AAD, ciphertext ≤ SHORT), from one call into the
    /// GHASH code.
    fn short_ghash(&self, aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let mut g = [0u8; SHORT_AAD + SHORT + 16];
        let a = aad.len().next_multiple_of(16);
        let c = ct.len().next_multiple_of(16);
        g[..aad.len()].copy_from_slice(aad);
        g[a..a + ct.len()].copy_from_slice(ct);
        g[a + c..a + c + 8].copy_from_slice(&((aad.len() as u64) * 8).to_be_bytes());
        g[a + c + 8..a + c + 16].copy_from_slice(&((ct.len() as u64) * 8).to_be_bytes());
        let mut s = [0u8; 16];
        self.ghash.update_padded(&mut s, &g[..a + c + 16]);
        s
    }

    /// Short messages (a 12-byte IV, AAD ≤ SHORT_AAD, text ≤ SHORT): one
    /// AES call and one GHASH call instead of five.
    fn is_short(iv: &[u8], aad: &[u8], buf: &[u8]) -> bool {
        iv.len() == 12 && aad.len() <= SHORT_AAD && buf.len() <= SHORT
    }

    /// Encrypt `buf` in place; write `tag.len()` (4..=16) bytes of tag.
    pub fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let j0 = self.j0(iv);
        #[cfg(target_arch = "x86_64")]
        if let Some(keys) = self.stitched() {
            let t = stitched::seal(keys, &j0, aad, buf);
            let n = tag.len();
            tag.copy_from_slice(&t[..n]);
            return;
        }
        if Self::is_short(iv, aad, buf) {
            let ks = self.short_keystream(&j0, buf.len());
            buf.iter_mut().zip(&ks[16..]).for_each(|(b, k)| *b ^= k);
            let s = self.short_ghash(aad, buf);
            for (i, t) in tag.iter_mut().enumerate() {
                *t = s[i] ^ ks[i];
            }
            return;
        }
        let mut s = [0u8; 16];
        self.ghash.update_padded(&mut s, aad);
        self.aes.ctr32_xor(&Self::inc32(&j0), buf);
        self.ghash.update_padded(&mut s, buf);
        let t = self.finish_tag(&j0, s, aad.len(), buf.len());
        let n = tag.len();
        tag.copy_from_slice(&t[..n]);
    }

    /// Verify and decrypt `ct` into `out` (as long), without first copying
    /// it there where the one-pass code runs; on failure `out` holds no
    /// plaintext (what was decrypted is encrypted again: the ciphertext).
    pub fn open_into(
        &self,
        iv: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), AuthError> {
        assert_eq!(ct.len(), out.len(), "ciphertext and output lengths");
        #[cfg(target_arch = "x86_64")]
        if let Some(keys) = self.stitched() {
            if tag.is_empty() || tag.len() > 16 {
                return Err(AuthError);
            }
            let j0 = self.j0(iv);
            return stitched::open(keys, &j0, aad, &mut Io::between(ct, out), tag);
        }
        out.copy_from_slice(ct);
        self.open(iv, aad, out, tag)
    }

    /// Verify and decrypt in place; `buf` is untouched on failure.
    pub fn open(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), AuthError> {
        let j0 = self.j0(iv);
        #[cfg(target_arch = "x86_64")]
        if let Some(keys) = self.stitched() {
            if tag.is_empty() || tag.len() > 16 {
                return Err(AuthError);
            }
            return stitched::open(keys, &j0, aad, &mut Io::in_place(buf), tag);
        }
        if Self::is_short(iv, aad, buf) {
            let ks = self.short_keystream(&j0, buf.len());
            let s = self.short_ghash(aad, buf);
            let t: [u8; 16] = core::array::from_fn(|i| s[i] ^ ks[i]);
            if tag.is_empty() || tag.len() > 16 || !ct_eq_slices(&t[..tag.len()], tag) {
                return Err(AuthError);
            }
            buf.iter_mut().zip(&ks[16..]).for_each(|(b, k)| *b ^= k);
            return Ok(());
        }
        if tag.is_empty() || tag.len() > 16 {
            return Err(AuthError);
        }
        // Hash, then decrypt only if the tag verifies: the buffer is as it
        // came on failure.
        let mut s = [0u8; 16];
        self.ghash.update_padded(&mut s, aad);
        self.ghash.update_padded(&mut s, buf);
        let t = self.finish_tag(&j0, s, aad.len(), buf.len());
        if !ct_eq_slices(&t[..tag.len()], tag) {
            return Err(AuthError);
        }
        self.aes.ctr32_xor(&Self::inc32(&j0), buf);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn gcm_spec_test_case_4_every_pair() {
        let key = h("feffe9928665731c6d6a8f9467308308");
        let iv = h("cafebabefacedbaddecaf888");
        let aad = h("feedfacedeadbeeffeedfacedeadbeefabaddad2");
        let pt = h("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39");
        let ct = h("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091");
        let tag = h("5bc94fbc3221a5db94fae95ae7121a47");
        for a in Aes::available() {
            for g in Ghash::available() {
                let gcm = Gcm::new(a, g, &key).unwrap();
                let mut b = pt.clone();
                let mut t = [0u8; 16];
                gcm.seal(&iv, &aad, &mut b, &mut t);
                assert_eq!(b, ct, "{}", gcm.variant_name());
                assert_eq!(t.to_vec(), tag, "{}", gcm.variant_name());
                gcm.open(&iv, &aad, &mut b, &t).unwrap();
                assert_eq!(b, pt);
            }
        }
    }

    #[test]
    fn ghash_variants_agree_on_many_lengths() {
        let key = h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        let data: Vec<u8> = (0..700).map(|i| (i * 13 + 1) as u8).collect();
        let gs = Ghash::available();
        for len in [
            0usize, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 700,
        ] {
            let tags: Vec<[u8; 16]> = gs
                .iter()
                .map(|g| {
                    let gcm = Gcm::new(Aes::auto(), *g, &key).unwrap();
                    let mut b = data[..len].to_vec();
                    let mut t = [0u8; 16];
                    gcm.seal(&data[..12], &data[100..100 + len.min(77)], &mut b, &mut t);
                    t
                })
                .collect();
            assert!(tags.windows(2).all(|w| w[0] == w[1]), "len {len}");
        }
    }

    #[test]
    fn every_pair_agrees_across_stitched_steps() {
        // Lengths around the short-message limits (64, 128 and 208 bytes of
        // text, 32 of AAD), the 256-byte steps and 4 KiB windows of the
        // VAES+VPCLMULQDQ passes, with AAD on both sides of the short limit,
        // against the T-table/4-bit-table pair.
        let key = h("00112233445566778899aabbccddeeff0123456789abcdef0011223344556677");
        // (From 512 bytes the 512-bit code hashes 4 KiB windows of 256-byte
        // steps, each reduced once: 4,367 and 8,463 bytes span two and three
        // windows. The AAD joins the first window's aggregation when all of
        // it fits MAX_BLOCKS (280): at 4,351 bytes, one window with 15
        // leftover blocks and the length block, AAD of 240 bytes and more
        // does not. Below 512 bytes it joins the last aggregation when that
        // fits; other AAD is hashed first.)
        let data: Vec<u8> = (0..9000).map(|i| (i * 31 + 7) as u8).collect();
        let ivs = [
            h("0a0b0c0d0e0f101112131415"),
            h("0a0b0c0d0e0f1011"),
            data[8800..8860].to_vec(),
        ];
        for (klen, iv) in [16, 24, 32]
            .into_iter()
            .flat_map(|k| ivs.iter().map(move |iv| (k, iv)))
        {
            let reference = Gcm::new(Aes::TTable, Ghash::Soft4bit, &key[..klen]).unwrap();
            for len in [
                0usize, 1, 15, 16, 17, 33, 63, 64, 65, 127, 128, 129, 208, 209, 240, 255, 256, 257,
                272, 288, 300, 496, 511, 512, 513, 528, 767, 768, 769, 1008, 1023, 1024, 1039,
                1056, 1280, 1300, 1535, 1536, 1552, 1791, 2047, 4096, 4099, 4351, 4367, 8463,
            ] {
                for aad in [0, 13, 17, 32, 33, 240, 255, 256, 300].map(|n| &data[8400..8400 + n]) {
                    let mut want = data[..len].to_vec();
                    let mut want_tag = [0u8; 16];
                    reference.seal(iv, aad, &mut want, &mut want_tag);
                    for a in Aes::available() {
                        for g in Ghash::available() {
                            let gcm = Gcm::new(a, g, &key[..klen]).unwrap();
                            let mut b = data[..len].to_vec();
                            let mut t = [0u8; 16];
                            gcm.seal(iv, aad, &mut b, &mut t);
                            let name = gcm.variant_name();
                            assert_eq!(b, want, "{name} {klen} {len}");
                            assert_eq!(t, want_tag, "{name} {klen} {len}");
                            // A wrong tag is refused and leaves the
                            // ciphertext as it was (the one-pass open puts
                            // back what it decrypted).
                            let mut bad = t;
                            bad[len % 16] ^= 0x80;
                            assert!(gcm.open(iv, aad, &mut b, &bad).is_err());
                            assert_eq!(b, want, "{name} {klen} {len}: refused open");
                            // A truncated tag: its prefix verifies, a
                            // wrong prefix does not.
                            let short = 4 + len % 13;
                            let mut bad = t;
                            bad[short - 1] ^= 1;
                            assert!(gcm.open(iv, aad, &mut b, &bad[..short]).is_err());
                            assert_eq!(b, want, "{name} {klen} {len}: refused open");
                            gcm.open(iv, aad, &mut b, &t[..short]).unwrap();
                            assert_eq!(b, &data[..len], "{name} {klen} {len}");
                            b.copy_from_slice(&want);
                            gcm.open(iv, aad, &mut b, &t).unwrap();
                            assert_eq!(b, &data[..len], "{name} {klen} {len}");
                            // Into another buffer: the plaintext there, the
                            // ciphertext untouched; refused, no plaintext
                            // there (each byte as it was, or ciphertext).
                            let mut out = vec![0u8; len];
                            gcm.open_into(iv, aad, &want, &t, &mut out).unwrap();
                            assert_eq!(out, &data[..len], "{name} {klen} {len}: open_into");
                            let mut out = vec![0u8; len];
                            let mut bad = t;
                            bad[len % 16] ^= 0x80;
                            assert!(gcm.open_into(iv, aad, &want, &bad, &mut out).is_err());
                            assert!(
                                out.iter().zip(&want).all(|(o, c)| *o == 0 || o == c),
                                "{name} {klen} {len}: refused open_into"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn inc32_wraps_within_the_last_word() {
        let c = Gcm::inc32(&[0xff; 16]);
        assert_eq!(&c[..12], &[0xff; 12]);
        assert_eq!(&c[12..], &[0, 0, 0, 0]);
    }
}
