//! AES-CCM (SP 800-38C) from any AES variant: CBC-MAC over the formatted
//! B0 ‖ encoded AAD ‖ payload, then CTR from counter block 1, the tag
//! masked with counter block 0. Nonce 7..=13 bytes, tag 4..=16 (even), a
//! payload shorter than 2^(8q) bytes (q = 15 − nonce length).
//!
//! The variants with the AES instructions take [`ni`]: one pass in which
//! each block's CBC-MAC rounds and CTR rounds are interleaved, so the
//! counter blocks run in the shadow of the MAC chain's latency; the others
//! the plain two passes below, block by block through the variant.

#[cfg(target_arch = "x86_64")]
mod ni;

use crate::aes::{Aes, AesKey};
use crate::auth::{ct_eq_slices, AuthError};

#[derive(Clone)]
pub struct Ccm {
    aes: AesKey,
}

fn valid(nonce_len: usize, tag_len: usize) -> bool {
    (7..=13).contains(&nonce_len) && (4..=16).contains(&tag_len) && tag_len.is_multiple_of(2)
}

/// Does a payload of `len` bytes fit the length field of a `nonce_len`-byte
/// nonce (q = 15 − nonce_len bytes; SP 800-38C A.1: len < 2^(8q))?
fn fits(nonce_len: usize, len: usize) -> bool {
    let q = 15 - nonce_len;
    q >= 8 || (len as u64) < 1u64 << (8 * q)
}

/// B0: flags (Adata, the tag length, q − 1) ‖ nonce ‖ the payload length
/// in q bytes.
pub(crate) fn b0(nonce: &[u8], aad_len: usize, payload_len: usize, tag_len: usize) -> [u8; 16] {
    let q = 15 - nonce.len();
    let mut y = [0u8; 16];
    y[0] = (if aad_len == 0 { 0 } else { 0x40 }) | (((tag_len - 2) / 2) << 3) as u8 | (q - 1) as u8;
    y[1..1 + nonce.len()].copy_from_slice(nonce);
    let plen = (payload_len as u64).to_be_bytes();
    y[16 - q.min(8)..].copy_from_slice(&plen[8 - q.min(8)..]);
    y
}

/// Counter block i: flags (q − 1) ‖ nonce ‖ [i]_q.
pub(crate) fn ctr_block(nonce: &[u8], i: u64) -> [u8; 16] {
    let q = 15 - nonce.len();
    let mut b = [0u8; 16];
    b[0] = (q - 1) as u8;
    b[1..1 + nonce.len()].copy_from_slice(nonce);
    let ib = i.to_be_bytes();
    b[16 - q.min(8)..].copy_from_slice(&ib[8 - q.min(8)..]);
    b
}

/// SP 800-38C A.2.2: the encoded AAD length (2, 6 or 10 bytes) in `out`,
/// returning how many bytes it took.
fn aad_len_prefix(a: usize, out: &mut [u8; 10]) -> usize {
    let a = a as u64;
    if a < 0xff00 {
        out[..2].copy_from_slice(&(a as u16).to_be_bytes());
        2
    } else if a <= u64::from(u32::MAX) {
        out[..2].copy_from_slice(&[0xff, 0xfe]);
        out[2..6].copy_from_slice(&(a as u32).to_be_bytes());
        6
    } else {
        out[..2].copy_from_slice(&[0xff, 0xff]);
        out[2..10].copy_from_slice(&a.to_be_bytes());
        10
    }
}

/// The encoded AAD (its length prefix, the data, zeros to a whole block)
/// as blocks, handed one at a time to `absorb`, with no copy of the data.
pub(crate) fn aad_blocks(aad: &[u8], mut absorb: impl FnMut(&[u8; 16])) {
    if aad.is_empty() {
        return;
    }
    let mut prefix = [0u8; 10];
    let n = aad_len_prefix(aad.len(), &mut prefix);
    let mut first = [0u8; 16];
    first[..n].copy_from_slice(&prefix[..n]);
    let take = aad.len().min(16 - n);
    first[n..n + take].copy_from_slice(&aad[..take]);
    absorb(&first);
    let mut rest = aad[take..].chunks_exact(16);
    for c in &mut rest {
        absorb(c.try_into().expect("16 bytes"));
    }
    let tail = rest.remainder();
    if !tail.is_empty() {
        let mut b = [0u8; 16];
        b[..tail.len()].copy_from_slice(tail);
        absorb(&b);
    }
}

impl Ccm {
    pub fn new(aes: Aes, key: &[u8]) -> Option<Ccm> {
        Some(Ccm { aes: aes.key(key)? })
    }

    pub fn variant_name(&self) -> String {
        format!("aes/{}", self.aes.variant.name())
    }

    /// The CBC-MAC T (unmasked, full block), block by block.
    fn mac(&self, nonce: &[u8], aad: &[u8], payload: &[u8], tag_len: usize) -> [u8; 16] {
        let mut y = b0(nonce, aad.len(), payload.len(), tag_len);
        self.aes.encrypt_block(&mut y);
        let mut absorb = |data: &[u8]| {
            for (a, b) in y.iter_mut().zip(data) {
                *a ^= b;
            }
            self.aes.encrypt_block(&mut y);
        };
        aad_blocks(aad, |b| absorb(b));
        for chunk in payload.chunks(16) {
            absorb(chunk);
        }
        y
    }

    /// The tag mask S0 = E(counter block 0).
    fn s0(&self, nonce: &[u8]) -> [u8; 16] {
        let mut s0 = ctr_block(nonce, 0);
        self.aes.encrypt_block(&mut s0);
        s0
    }

    /// Encrypt `buf` in place and write the tag (its length is the tag
    /// length). Returns false for an unsupported nonce or tag length, or a
    /// payload too long for the nonce's length field.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> bool {
        if !valid(nonce.len(), tag.len()) || !fits(nonce.len(), buf.len()) {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some((t, k)) = self.aes.ni_keys() {
            let full = ni::seal(t, k, nonce, aad, buf, tag.len());
            tag.copy_from_slice(&full[..tag.len()]);
            return true;
        }
        let t = self.mac(nonce, aad, buf, tag.len());
        self.aes.ctr_xor(&ctr_block(nonce, 1), buf);
        let s0 = self.s0(nonce);
        for (i, x) in tag.iter_mut().enumerate() {
            *x = t[i] ^ s0[i];
        }
        true
    }

    /// Decrypt and verify in place; on a wrong tag `buf` is restored to the
    /// ciphertext and an error returned.
    pub fn open(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), AuthError> {
        if !valid(nonce.len(), tag.len()) || !fits(nonce.len(), buf.len()) {
            return Err(AuthError);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some((t, k)) = self.aes.ni_keys() {
            let p = buf.as_mut_ptr();
            // SAFETY: source and destination are the same valid buffer.
            let full = unsafe { ni::open(t, k, nonce, aad, p, p, buf.len(), tag.len()) };
            if !ct_eq_slices(&full[..tag.len()], tag) {
                self.aes.ctr_xor(&ctr_block(nonce, 1), buf);
                return Err(AuthError);
            }
            return Ok(());
        }
        self.aes.ctr_xor(&ctr_block(nonce, 1), buf);
        let t = self.mac(nonce, aad, buf, tag.len());
        let s0 = self.s0(nonce);
        let expect: Vec<u8> = (0..tag.len()).map(|i| t[i] ^ s0[i]).collect();
        if !ct_eq_slices(&expect, tag) {
            self.aes.ctr_xor(&ctr_block(nonce, 1), buf);
            return Err(AuthError);
        }
        Ok(())
    }

    /// Decrypt `ct` into `out` (as long) and verify; on a wrong tag `out`
    /// holds the ciphertext, no plaintext.
    pub fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), AuthError> {
        assert_eq!(ct.len(), out.len(), "ciphertext and output lengths");
        #[cfg(target_arch = "x86_64")]
        if let Some((t, k)) = self.aes.ni_keys() {
            if !valid(nonce.len(), tag.len()) || !fits(nonce.len(), ct.len()) {
                out.copy_from_slice(ct);
                return Err(AuthError);
            }
            // SAFETY: `ct` and `out` are valid for ct.len() bytes and, one
            // shared and one exclusive borrow, do not overlap.
            let full = unsafe {
                ni::open(
                    t,
                    k,
                    nonce,
                    aad,
                    ct.as_ptr(),
                    out.as_mut_ptr(),
                    ct.len(),
                    tag.len(),
                )
            };
            if !ct_eq_slices(&full[..tag.len()], tag) {
                out.copy_from_slice(ct);
                return Err(AuthError);
            }
            return Ok(());
        }
        out.copy_from_slice(ct);
        self.open(nonce, aad, out, tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn sp800_38c_example_1_every_variant() {
        for a in Aes::available() {
            let c = Ccm::new(a, &h("404142434445464748494a4b4c4d4e4f")).unwrap();
            let mut b = h("20212223");
            let mut t = [0u8; 4];
            assert!(c.seal(&h("10111213141516"), &h("0001020304050607"), &mut b, &mut t));
            assert_eq!(b, h("7162015b"), "{}", c.variant_name());
            assert_eq!(t.to_vec(), h("4dac255d"));
            c.open(&h("10111213141516"), &h("0001020304050607"), &mut b, &t)
                .unwrap();
            assert_eq!(b, h("20212223"));
        }
    }

    /// The one-pass code of the AES-instruction variants against the
    /// two-pass code of the portable ones, at every payload length around
    /// the block boundaries, AAD lengths across the prefix's block and the
    /// 0xff00 boundary of its encoding, every nonce and tag length; then
    /// opening in place and into another buffer, and a wrong tag.
    #[test]
    fn the_one_pass_code_matches_the_two_pass_code() {
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(41) ^ 0x3c).collect();
        let data: Vec<u8> = (0..70_000u32).map(|i| (i * 131 + 7) as u8).collect();
        let fast: Vec<Aes> = Aes::available()
            .into_iter()
            .filter(|a| ["aesni", "vaes", "vaes512"].contains(&a.name()))
            .collect();
        for klen in [16, 24, 32] {
            let slow = Ccm::new(Aes::TTable, &key[..klen]).unwrap();
            for &a in &fast {
                let c = Ccm::new(a, &key[..klen]).unwrap();
                let cases = (0..=70)
                    .chain([127, 128, 129, 1000, 4096, 4111])
                    .flat_map(|len| [(len, 13usize, 7usize, 16usize), (len, 0, 13, 8)])
                    .chain([(33, 14, 12, 4), (33, 0xff00 + 3, 10, 10), (17, 16, 8, 14)]);
                for (len, aad_len, nonce_len, tag_len) in cases {
                    let nonce = &data[100..100 + nonce_len];
                    let aad = &data[1000..1000 + aad_len];
                    let msg = &data[5000..5000 + len];
                    let (mut want, mut got) = (msg.to_vec(), msg.to_vec());
                    let (mut tw, mut tg) = (vec![0u8; tag_len], vec![0u8; tag_len]);
                    let what = format!(
                        "{} k{klen} len {len} aad {aad_len} n {nonce_len} t {tag_len}",
                        a.name()
                    );
                    assert!(slow.seal(nonce, aad, &mut want, &mut tw));
                    assert!(c.seal(nonce, aad, &mut got, &mut tg));
                    assert_eq!((&got, &tg), (&want, &tw), "{what}");
                    let mut out = vec![0u8; len];
                    c.open_into(nonce, aad, &got, &tg, &mut out).unwrap();
                    assert_eq!(out, msg, "{what}");
                    let mut inplace = got.clone();
                    c.open(nonce, aad, &mut inplace, &tg).unwrap();
                    assert_eq!(inplace, msg, "{what}");
                    let mut bad = tg.clone();
                    bad[0] ^= 1;
                    let mut out = vec![0u8; len];
                    assert!(c.open_into(nonce, aad, &got, &bad, &mut out).is_err());
                    assert_eq!(out, got, "{what}: no plaintext after a wrong tag");
                    let mut inplace = got.clone();
                    assert!(c.open(nonce, aad, &mut inplace, &bad).is_err());
                    assert_eq!(inplace, got, "{what}");
                }
            }
        }
    }

    #[test]
    fn a_payload_too_long_for_the_length_field_is_refused() {
        // A 13-byte nonce leaves q = 2: at most 65 535 bytes.
        for a in Aes::available() {
            let c = Ccm::new(a, &[9u8; 16]).unwrap();
            let mut big = vec![0u8; 65_536];
            let mut tag = [0u8; 16];
            assert!(!c.seal(&[1u8; 13], b"", &mut big, &mut tag), "{}", a.name());
            assert!(c.open(&[1u8; 13], b"", &mut big, &tag).is_err());
            let mut ok = vec![0u8; 65_535];
            assert!(c.seal(&[1u8; 13], b"", &mut ok, &mut tag));
        }
    }
}
