//! AES-CCM (SP 800-38C) from any AES variant: CBC-MAC over the formatted
//! B0 ‖ encoded AAD ‖ payload, then CTR from counter block 1, the tag
//! masked with counter block 0. Nonce 7..=13 bytes, tag 4..=16 (even).

use crate::aead::{ct_eq_slices, AuthError};
use crate::aes::{Aes, AesKey};

#[derive(Clone)]
pub struct Ccm {
    aes: AesKey,
}

fn valid(nonce_len: usize, tag_len: usize) -> bool {
    (7..=13).contains(&nonce_len) && (4..=16).contains(&tag_len) && tag_len.is_multiple_of(2)
}

impl Ccm {
    pub fn new(aes: Aes, key: &[u8]) -> Option<Ccm> {
        Some(Ccm { aes: aes.key(key)? })
    }

    pub fn variant_name(&self) -> String {
        format!("aes/{}", self.aes.variant.name())
    }

    /// Counter block i: flags (q - 1) ‖ nonce ‖ [i]_q.
    fn ctr_block(nonce: &[u8], i: u64) -> [u8; 16] {
        let q = 15 - nonce.len();
        let mut b = [0u8; 16];
        b[0] = (q - 1) as u8;
        b[1..1 + nonce.len()].copy_from_slice(nonce);
        let ib = i.to_be_bytes();
        b[16 - q.min(8)..].copy_from_slice(&ib[8 - q.min(8)..]);
        b
    }

    /// The CBC-MAC T (unmasked, full block).
    fn mac(&self, nonce: &[u8], aad: &[u8], payload: &[u8], tag_len: usize) -> [u8; 16] {
        let q = 15 - nonce.len();
        let mut y = [0u8; 16];
        y[0] = (if aad.is_empty() { 0 } else { 0x40 })
            | (((tag_len - 2) / 2) << 3) as u8
            | (q - 1) as u8;
        y[1..1 + nonce.len()].copy_from_slice(nonce);
        let plen = (payload.len() as u64).to_be_bytes();
        y[16 - q.min(8)..].copy_from_slice(&plen[8 - q.min(8)..]);
        self.aes.encrypt_block(&mut y);
        let absorb = |data: &[u8], y: &mut [u8; 16]| {
            for chunk in data.chunks(16) {
                for (a, b) in y.iter_mut().zip(chunk) {
                    *a ^= b;
                }
                self.aes.encrypt_block(y);
            }
        };
        if !aad.is_empty() {
            // SP 800-38C A.2.2: the length of the associated data, then the
            // data, zero-padded to whole blocks.
            let mut enc: Vec<u8> = Vec::with_capacity(aad.len() + 10);
            let a = aad.len() as u64;
            if a < 0xff00 {
                enc.extend_from_slice(&(a as u16).to_be_bytes());
            } else if a <= u64::from(u32::MAX) {
                enc.extend_from_slice(&[0xff, 0xfe]);
                enc.extend_from_slice(&(a as u32).to_be_bytes());
            } else {
                enc.extend_from_slice(&[0xff, 0xff]);
                enc.extend_from_slice(&a.to_be_bytes());
            }
            enc.extend_from_slice(aad);
            absorb(&enc, &mut y);
        }
        absorb(payload, &mut y);
        y
    }

    /// Encrypt `buf` in place and write the tag (its length is the tag
    /// length). Returns false for an unsupported nonce or tag length.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> bool {
        if !valid(nonce.len(), tag.len()) {
            return false;
        }
        let t = self.mac(nonce, aad, buf, tag.len());
        self.aes.ctr_xor(&Self::ctr_block(nonce, 1), buf);
        let mut s0 = Self::ctr_block(nonce, 0);
        self.aes.encrypt_block(&mut s0);
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
        if !valid(nonce.len(), tag.len()) {
            return Err(AuthError);
        }
        self.aes.ctr_xor(&Self::ctr_block(nonce, 1), buf);
        let t = self.mac(nonce, aad, buf, tag.len());
        let mut s0 = Self::ctr_block(nonce, 0);
        self.aes.encrypt_block(&mut s0);
        let expect: Vec<u8> = (0..tag.len()).map(|i| t[i] ^ s0[i]).collect();
        if !ct_eq_slices(&expect, tag) {
            self.aes.ctr_xor(&Self::ctr_block(nonce, 1), buf);
            return Err(AuthError);
        }
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
}
