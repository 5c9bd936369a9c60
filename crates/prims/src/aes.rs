//! AES-128/192/256 (FIPS 197) in three variants, with the ECB and CTR
//! (SP 800-38A) modes:
//! - `fips-sbox-nct`: byte-oriented, the 8-bit S-box as a table (slow, the
//!   textbook way; NOT constant time);
//! - `ttable-nct`: four 8→32-bit tables per direction (fast in software; NOT
//!   constant time: table indices are secret);
//! - `bitsliced`: eight blocks at once on bit planes, no table (constant
//!   time, portable; `aes/bitsliced.rs`);
//! - `aesni`: the AES instructions, eight blocks in flight for ECB and CTR;
//! - `vaes`: the AES instructions on 256-bit registers, sixteen blocks in
//!   flight;
//! - `vaes512`: the same on 512-bit registers (AVX-512), four blocks each.
//!
//! The two table variants say "nct" (not constant time) in their names so
//! every record and table carries it.

#[cfg(target_arch = "x86_64")]
pub mod aesni;
pub mod bitsliced;
pub mod fips_sbox;
pub mod ttable;
#[cfg(target_arch = "x86_64")]
pub mod vaes;
#[cfg(target_arch = "x86_64")]
pub mod vaes512;

use crate::cpu;

const fn xtime(x: u8) -> u8 {
    (x << 1) ^ (0x1b & 0u8.wrapping_sub(x >> 7))
}

/// GF(2^8) multiplication (for building tables at compile time).
pub(crate) const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

const fn ginv(x: u8) -> u8 {
    // x^254 = x^-1 in GF(2^8) (and 0 for 0).
    let mut r = 1u8;
    let mut base = x;
    let mut e = 254u32;
    while e > 0 {
        if e & 1 == 1 {
            r = gmul(r, base);
        }
        base = gmul(base, base);
        e >>= 1;
    }
    r
}

/// The S-box, computed from its definition (FIPS 197 §5.1.1): inversion in
/// GF(2^8) followed by the affine transformation.
pub const SBOX: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = ginv(i as u8);
        t[i] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        i += 1;
    }
    t
};

pub const INV_SBOX: [u8; 256] = crate::cryptrec::invert(&SBOX);

/// Round keys as bytes, in the order FIPS 197 and the AES instructions use.
#[derive(Clone)]
pub struct KeySchedule {
    pub rounds: usize,
    pub rk: [[u8; 16]; 15],
}

/// FIPS 197 §5.2 key expansion with a given SubWord (a table for the table
/// variants; the AES instruction for `aesni`, so no secret indexes a table).
pub fn expand_key(key: &[u8], sub_word: impl Fn(u32) -> u32) -> Option<KeySchedule> {
    let nk = match key.len() {
        16 => 4,
        24 => 6,
        32 => 8,
        _ => return None,
    };
    let rounds = nk + 6;
    let mut w = [0u32; 60];
    for i in 0..nk {
        w[i] = u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    }
    let mut rcon: u8 = 1;
    for i in nk..4 * (rounds + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t.rotate_left(8)) ^ (u32::from(rcon) << 24);
            rcon = xtime(rcon);
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    let mut rk = [[0u8; 16]; 15];
    for r in 0..=rounds {
        for c in 0..4 {
            rk[r][4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_be_bytes());
        }
    }
    Some(KeySchedule { rounds, rk })
}

/// SubWord through the S-box table (not constant time).
pub fn sub_word_table(w: u32) -> u32 {
    u32::from_be_bytes(w.to_be_bytes().map(|b| SBOX[b as usize]))
}

variants! {
    /// An AES variant.
    pub enum Aes ("AES") {
        portable {
            FipsSbox => "fips-sbox-nct",
            TTable => "ttable-nct",
            Bitsliced => "bitsliced",
        }
        x86_64 {
            AesNi(cpu::AesNi) => "aesni" needs ["aes"] else "CPU lacks AES-NI",
            Vaes(cpu::Vaes) => "vaes" needs ["vaes", "avx2"] else "CPU lacks VAES with AVX2",
            Vaes512(cpu::Vaes512) => "vaes512" needs ["vaes", "avx512f", "avx512bw"]
                else "CPU lacks VAES with AVX-512F/BW",
        }
    }
}

/// Bytes of lookup tables a variant reads (`ango cycles` sets them beside
/// the L1 data cache): the S-boxes of `fips-sbox-nct`, the eight 1 KiB
/// T-tables and the two S-boxes of `ttable-nct`, none elsewhere.
pub fn table_bytes(variant: &str) -> Option<usize> {
    match variant {
        "fips-sbox-nct" => Some(2 * 256),
        "ttable-nct" => Some(8 * 1024 + 2 * 256),
        v if VARIANTS.contains(&v) => Some(0),
        _ => None,
    }
}

impl Aes {
    /// The best variant here: VAES, else AES-NI, else the T-tables.
    pub fn auto() -> Aes {
        let av = Aes::available();
        ["vaes512", "vaes", "aesni"]
            .iter()
            .find_map(|n| av.iter().copied().find(|a| a.name() == *n))
            .unwrap_or(Aes::TTable)
    }

    /// Expand `key` (16, 24 or 32 bytes) for this variant.
    pub fn key(self, key: &[u8]) -> Option<AesKey> {
        let ks = match self {
            #[cfg(target_arch = "x86_64")]
            Aes::AesNi(t) => expand_key(key, |w| aesni::sub_word(t, w))?,
            #[cfg(target_arch = "x86_64")]
            Aes::Vaes(t) => expand_key(key, |w| aesni::sub_word(t.aesni(), w))?,
            #[cfg(target_arch = "x86_64")]
            Aes::Vaes512(t) => expand_key(key, |w| aesni::sub_word(t.vaes().aesni(), w))?,
            Aes::Bitsliced => expand_key(key, bitsliced::sub_word)?,
            _ => expand_key(key, sub_word_table)?,
        };
        let inner = match self {
            Aes::FipsSbox => Inner::FipsSbox(ks),
            Aes::TTable => Inner::TTable(ttable::Keys::new(&ks)),
            Aes::Bitsliced => Inner::Bitsliced(bitsliced::Keys::new(&ks)),
            #[cfg(target_arch = "x86_64")]
            Aes::AesNi(t) => Inner::AesNi(t, aesni::Keys::new(t, &ks)),
            #[cfg(target_arch = "x86_64")]
            Aes::Vaes(t) => Inner::Vaes(t, aesni::Keys::new(t.aesni(), &ks)),
            #[cfg(target_arch = "x86_64")]
            Aes::Vaes512(t) => Inner::Vaes512(t, aesni::Keys::new(t.vaes().aesni(), &ks)),
        };
        Some(AesKey {
            variant: self,
            inner,
        })
    }
}

#[derive(Clone)]
enum Inner {
    FipsSbox(KeySchedule),
    TTable(ttable::Keys),
    Bitsliced(bitsliced::Keys),
    #[cfg(target_arch = "x86_64")]
    AesNi(cpu::AesNi, aesni::Keys),
    #[cfg(target_arch = "x86_64")]
    Vaes(cpu::Vaes, aesni::Keys),
    #[cfg(target_arch = "x86_64")]
    Vaes512(cpu::Vaes512, aesni::Keys),
}

/// An expanded key of one variant.
#[derive(Clone)]
pub struct AesKey {
    pub variant: Aes,
    inner: Inner,
}

impl AesKey {
    /// Encrypt whole blocks in place (ECB). Panics if `buf` is not a
    /// multiple of 16 bytes.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) {
        assert!(buf.len().is_multiple_of(16), "ECB needs whole blocks");
        match &self.inner {
            Inner::FipsSbox(ks) => buf
                .chunks_exact_mut(16)
                .for_each(|b| fips_sbox::encrypt_block(ks, b.try_into().expect("16"))),
            Inner::TTable(k) => buf
                .chunks_exact_mut(16)
                .for_each(|b| k.encrypt_block(b.try_into().expect("16"))),
            Inner::Bitsliced(k) => k.apply_blocks(buf, false),
            #[cfg(target_arch = "x86_64")]
            Inner::AesNi(t, k) => aesni::encrypt_blocks(*t, k, buf),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(t, k) => vaes::encrypt_blocks(*t, k, buf),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes512(t, k) => vaes512::encrypt_blocks(*t, k, buf),
        }
    }

    /// Decrypt whole blocks in place (ECB).
    pub fn decrypt_blocks(&self, buf: &mut [u8]) {
        assert!(buf.len().is_multiple_of(16), "ECB needs whole blocks");
        match &self.inner {
            Inner::FipsSbox(ks) => buf
                .chunks_exact_mut(16)
                .for_each(|b| fips_sbox::decrypt_block(ks, b.try_into().expect("16"))),
            Inner::TTable(k) => buf
                .chunks_exact_mut(16)
                .for_each(|b| k.decrypt_block(b.try_into().expect("16"))),
            Inner::Bitsliced(k) => k.apply_blocks(buf, true),
            #[cfg(target_arch = "x86_64")]
            Inner::AesNi(t, k) => aesni::decrypt_blocks(*t, k, buf),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(t, k) => vaes::decrypt_blocks(*t, k, buf),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes512(t, k) => vaes512::decrypt_blocks(*t, k, buf),
        }
    }

    /// CTR mode (SP 800-38A §6.5) with the whole 128-bit block as a
    /// big-endian counter, as OpenSSL's and RustCrypto's Ctr128BE do.
    pub fn ctr_xor(&self, iv: &[u8; 16], buf: &mut [u8]) {
        self.ctr_xor_with(iv, buf, false)
    }

    /// CTR with GCM's inc32 (SP 800-38D §6.2): only the last 32 bits count,
    /// wrapping modulo 2^32.
    pub fn ctr32_xor(&self, iv: &[u8; 16], buf: &mut [u8]) {
        self.ctr_xor_with(iv, buf, true)
    }

    fn ctr_xor_with(&self, iv: &[u8; 16], buf: &mut [u8], inc32: bool) {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::AesNi(t, k) => aesni::ctr_xor(*t, k, iv, buf, inc32),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(t, k) => vaes::ctr_xor(*t, k, iv, buf, inc32),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes512(t, k) => vaes512::ctr_xor(*t, k, iv, buf, inc32),
            Inner::Bitsliced(k) => k.ctr_xor(iv, buf, inc32),
            _ => {
                let mut ctr = u128::from_be_bytes(*iv);
                for chunk in buf.chunks_mut(16) {
                    let mut ks = ctr.to_be_bytes();
                    self.encrypt_blocks(&mut ks);
                    chunk.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
                    ctr = next_counter(ctr, inc32);
                }
            }
        }
    }

    /// The AES-NI keys of a variant with the AES instructions (AES-NI,
    /// VAES, VAES-512), for code that runs one block chain on them (CCM).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn ni_keys(&self) -> Option<(cpu::AesNi, &aesni::Keys)> {
        match &self.inner {
            Inner::AesNi(t, k) => Some((*t, k)),
            Inner::Vaes(t, k) => Some((t.aesni(), k)),
            Inner::Vaes512(t, k) => Some((t.vaes().aesni(), k)),
            _ => None,
        }
    }

    /// The VAES variants' keys, for the stitched GCM.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn vaes_keys(&self) -> Option<(Width, &aesni::Keys)> {
        match &self.inner {
            Inner::Vaes(t, k) => Some((Width::Ymm(*t), k)),
            Inner::Vaes512(t, k) => Some((Width::Zmm(*t), k)),
            _ => None,
        }
    }

    /// Encrypt one block (GCM's H and tag mask, CCM's CBC-MAC).
    pub fn encrypt_block(&self, b: &mut [u8; 16]) {
        self.encrypt_blocks(b);
    }
}

/// The register width of a VAES variant.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) enum Width {
    Ymm(cpu::Vaes),
    Zmm(cpu::Vaes512),
}

/// Would a 128-bit counter starting at `iv` carry out of its low 32-bit
/// word within `len` bytes? (If not, inc32 and +1 agree on them.)
pub(crate) fn low_word_carries(iv: &[u8; 16], len: usize) -> bool {
    let low = u64::from(u32::from_be_bytes(iv[12..].try_into().expect("4 bytes")));
    low + len.div_ceil(16) as u64 > 1 << 32
}

/// The counter block `n` blocks on, counting in the last word only (mod
/// 2^32), as GCM's inc32 does. The block is written with one 16-byte
/// store: the vector code loads it whole, and a load no single store can
/// forward (the copy's stores and the last word's) waits until every
/// store before it reaches the cache — after a message's text, tens of
/// them (sealing 1,040 bytes with AES-128-GCM, Zen 4: 197 -> 182 ns).
pub(crate) fn add32(c: &[u8; 16], n: usize) -> [u8; 16] {
    let lo = u64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(c[8..].try_into().expect("8 bytes"));
    let w = ((hi >> 32) as u32).swap_bytes().wrapping_add(n as u32);
    let hi = (hi & 0xffff_ffff) | u64::from(w.swap_bytes()) << 32;
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let mut out = [0u8; 16];
        // SAFETY: SSE2 is part of the x86_64 baseline; one 16-byte store
        // into a 16-byte array.
        unsafe {
            _mm_storeu_si128(
                out.as_mut_ptr().cast(),
                _mm_set_epi64x(hi as i64, lo as i64),
            )
        };
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    (u128::from(lo) | u128::from(hi) << 64).to_le_bytes()
}

/// The next counter block: +1 on the whole block, or on its last 32 bits.
#[inline(always)]
pub(crate) fn next_counter(ctr: u128, inc32: bool) -> u128 {
    if inc32 {
        (ctr & !0xffff_ffff) | u128::from((ctr as u32).wrapping_add(1))
    } else {
        ctr.wrapping_add(1)
    }
}

impl AesKey {}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn sbox_from_its_definition_matches_fips197() {
        // FIPS 197 Figure 7: S(00) = 63, S(01) = 7c, S(53) = ed, S(ff) = 16.
        assert_eq!(
            [SBOX[0], SBOX[1], SBOX[0x53], SBOX[0xff]],
            [0x63, 0x7c, 0xed, 0x16]
        );
        assert_eq!(INV_SBOX[0x63], 0);
    }

    #[test]
    fn key_expansion_fips197_a1_a3() {
        // A.1: w[43] = b6630ca6; A.3: w[59] = 706c631e.
        let k128 = expand_key(&h("2b7e151628aed2a6abf7158809cf4f3c"), sub_word_table).unwrap();
        assert_eq!(&k128.rk[10][12..], &h("b6630ca6")[..]);
        let k256 = expand_key(
            &h("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
            sub_word_table,
        )
        .unwrap();
        assert_eq!(&k256.rk[14][12..], &h("706c631e")[..]);
    }

    #[test]
    fn fips197_c1_c2_c3_every_variant() {
        let pt = h("00112233445566778899aabbccddeeff");
        for (key, ct) in [
            (
                "000102030405060708090a0b0c0d0e0f",
                "69c4e0d86a7b0430d8cdb78070b4c55a",
            ),
            (
                "000102030405060708090a0b0c0d0e0f1011121314151617",
                "dda97ca4864cdfe06eaf70a0ec0d7191",
            ),
            (
                "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
                "8ea2b7ca516745bfeafc49904b496089",
            ),
        ] {
            for v in Aes::available() {
                let k = v.key(&h(key)).unwrap();
                let mut b = pt.clone();
                k.encrypt_blocks(&mut b);
                assert_eq!(b, h(ct), "{} {key}", v.name());
                k.decrypt_blocks(&mut b);
                assert_eq!(b, pt, "{} decrypt", v.name());
            }
        }
    }

    #[test]
    fn variants_agree_on_many_blocks_and_ctr_lengths() {
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(29) ^ 0x5a).collect();
        let data: Vec<u8> = (0..16 * 41).map(|i| (i * 7 + 3) as u8).collect();
        // The first counter carries out of its low word at once (the slow
        // path of the vector variants); the second never does.
        let carry: [u8; 16] = core::array::from_fn(|i| if i < 12 { i as u8 } else { 0xff });
        let plain: [u8; 16] = core::array::from_fn(|i| (i * 37) as u8);
        for klen in [16, 24, 32] {
            let reference = Aes::FipsSbox.key(&key[..klen]).unwrap();
            for v in Aes::available() {
                let k = v.key(&key[..klen]).unwrap();
                for blocks in [1, 2, 3, 7, 8, 9, 15, 16, 17, 18, 41] {
                    let (mut a, mut b) =
                        (data[..16 * blocks].to_vec(), data[..16 * blocks].to_vec());
                    reference.encrypt_blocks(&mut a);
                    k.encrypt_blocks(&mut b);
                    assert_eq!(a, b, "{} ecb {klen} {blocks}", v.name());
                    k.decrypt_blocks(&mut b);
                    assert_eq!(b, &data[..16 * blocks]);
                }
                for iv in [carry, plain] {
                    for len in [0, 1, 15, 16, 17, 127, 128, 129, 300, 16 * 41] {
                        let (mut a, mut b) = (data[..len].to_vec(), data[..len].to_vec());
                        reference.ctr_xor(&iv, &mut a);
                        k.ctr_xor(&iv, &mut b);
                        assert_eq!(a, b, "{} ctr {klen} {len} {iv:02x?}", v.name());
                    }
                }
            }
        }
    }

    #[test]
    fn ctr32_wraps_the_last_word_only_in_every_variant() {
        let key = [7u8; 16];
        let mut iv = [0x11u8; 16];
        iv[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xfd]);
        let data = vec![0u8; 16 * 40];
        // Reference: block i uses counter (iv with last word + i mod 2^32).
        let r = Aes::FipsSbox.key(&key).unwrap();
        let mut want = Vec::new();
        for i in 0..40u32 {
            let mut b = iv;
            let w = u32::from_be_bytes([0xff, 0xff, 0xff, 0xfd]).wrapping_add(i);
            b[12..].copy_from_slice(&w.to_be_bytes());
            r.encrypt_blocks(&mut b);
            want.extend_from_slice(&b);
        }
        for v in Aes::available() {
            let mut got = data.clone();
            v.key(&key).unwrap().ctr32_xor(&iv, &mut got);
            assert_eq!(got, want, "{}", v.name());
        }
    }

    #[test]
    fn auto_is_vaes_then_aesni_where_the_cpu_has_them() {
        let expect = crate::preference::first(&[
            ("vaes512", &["vaes", "avx512f", "avx512bw"]),
            ("vaes", &["vaes", "avx2"]),
            ("aesni", &["aes"]),
            ("ttable-nct", &[]),
        ]);
        assert_eq!(Aes::auto().name(), expect);
    }

    #[test]
    fn add32_counts_in_the_last_word_only() {
        let c: [u8; 16] = core::array::from_fn(|i| 0xa0 + i as u8);
        let mut wraps = c;
        wraps[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xfe]);
        for (from, n, last) in [
            (c, 0, [0xac, 0xad, 0xae, 0xaf]),
            (c, 1, [0xac, 0xad, 0xae, 0xb0]),
            (c, 0x51, [0xac, 0xad, 0xaf, 0x00]),
            (wraps, 1, [0xff, 0xff, 0xff, 0xff]),
            (wraps, 3, [0, 0, 0, 1]),
            (wraps, (1 << 32) + 2, [0, 0, 0, 0]),
        ] {
            let got = add32(&from, n);
            assert_eq!(got[..12], from[..12], "{n}");
            assert_eq!(got[12..], last, "{n}");
        }
    }
}
