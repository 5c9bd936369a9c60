//! ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305
//! (draft-irtf-cfrg-xchacha §2.3), built from any pair of variants.

#[cfg(target_arch = "x86_64")]
mod short;
#[cfg(target_arch = "x86_64")]
mod stitched;

use crate::chacha20::{xchacha20_setup, ChaCha20};
use crate::poly1305::Poly1305;

/// The tag did not verify; the buffer was left untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthError;

/// ChaCha20-Poly1305 with a chosen ChaCha20 and Poly1305 variant.
#[derive(Clone)]
pub struct ChaCha20Poly1305 {
    key: [u8; 32],
    chacha: ChaCha20,
    poly: Poly1305,
}

const ZEROS: [u8; 16] = [0; 16];

/// The last Poly1305 block of ChaCha20-Poly1305: the AAD's and the
/// ciphertext's lengths, little-endian.
fn lens(aad: usize, ct: usize) -> [u8; 16] {
    let mut l = [0u8; 16];
    l[..8].copy_from_slice(&(aad as u64).to_le_bytes());
    l[8..].copy_from_slice(&(ct as u64).to_le_bytes());
    l
}

/// The most keystream the first call makes: sixteen blocks (one AVX-512
/// call), the one-time key and up to 960 bytes of the text's keystream.
const FIRST_MAX: usize = 1024;

/// Up to this many bytes the AVX2 pair (AVX2 ChaCha20, AVX2 Poly1305)
/// takes the stitched one-pass code (its ChaCha20 beside the radix-2^64
/// Poly1305) from 512 bytes on, as the AVX2 Poly1305 itself runs its
/// scalar code below 512: measured side by side on the 2-core AMD EPYC
/// (Zen 3) it ran at 1.2× the separate pair at 1 KiB and 1.07–1.36× at
/// 4 KiB, but at 16 KiB from 0.94× to 1.05× in one run and well behind in
/// another (its scalar multiplies share the core with whatever else runs
/// there), where the vector MAC is steadier.
const STITCHED_UP_TO: usize = 4096;

/// From this many bytes the AVX-512 pair (AVX-512 ChaCha20, IFMA Poly1305)
/// runs its own wide code: the one-time key from a short call, then the
/// text from block 1 in sixteen-block calls, then the IFMA MAC. Below, up
/// to 448 bytes it takes the register path, to 960 bytes one sixteen-block
/// call (the key and the whole text) and the scalar MAC, and above that the
/// stitched one-pass code. Sealing with 13 bytes of AAD on the 2-core AMD
/// EPYC (Zen 4), best of nine runs of many calls, against the AVX2 pair
/// (the stitched code from 512 bytes): 512 bytes 386 against 426 ns,
/// 640 bytes 421 against 564, 768 bytes 455 against 602, 1 KiB 615 against
/// 610 (both stitched), 2 KiB 883 against 966, 4 KiB 1.41 against 1.69 µs,
/// 16 KiB 4.7 against 7.7 µs. (The wide code from 640 bytes, before the
/// scalar MAC's 64-bit fold: 1536 bytes 820 against 788 ns; the wide code
/// with 512 bytes of keystream from an AVX2 call first: 1 KiB 780 ns,
/// 16 KiB 4.9 µs.)
const WIDE_FROM: usize = 2048;

impl ChaCha20Poly1305 {
    pub fn new(key: &[u8; 32], chacha: ChaCha20, poly: Poly1305) -> Self {
        ChaCha20Poly1305 {
            key: *key,
            chacha,
            poly,
        }
    }

    /// "chacha20/avx2+poly1305/radix44".
    pub fn variant_name(&self) -> String {
        format!(
            "chacha20/{}+poly1305/{}",
            self.chacha.name(),
            self.poly.name()
        )
    }

    /// The one-time key: the first 32 bytes of keystream block 0.
    fn otk(&self, nonce: &[u8; 12]) -> [u8; 32] {
        let mut otk = [0u8; 32];
        self.chacha.xor_keystream(&self.key, 0, nonce, &mut otk);
        otk
    }

    fn tag(&self, nonce: &[u8; 12], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        self.mac(&self.otk(nonce), aad, ct)
    }

    /// How many keystream bytes (blocks 0, 1, …) one call of the variant
    /// makes first, for a message of `len` bytes: the one-time key and the
    /// message's first `span` − 64 bytes of keystream come from one vector
    /// call, the rest (if any) from block `span`/64 on. Two, four or six
    /// blocks (AVX2's horizontal layout) for short messages, else the
    /// variant's own width: four (SSE2), eight (AVX2's vertical layout,
    /// AVX-512), sixteen (the AVX-512 pair, for a text of up to 960
    /// bytes). None for the portable code, which gains nothing from it
    /// (its one-time key is a block of its own), and for the AVX-512 pair's
    /// wide code.
    fn first_span(&self, len: usize) -> Option<usize> {
        let need = 64 + len;
        if let (ChaCha20::Avx512(_), Poly1305::Ifma(_)) = (self.chacha, self.poly) {
            if len >= WIDE_FROM {
                // Its wide code: the text's blocks in sixteen-block calls.
                return None;
            }
            if len > short::TEXT && len <= FIRST_MAX - 64 {
                // One sixteen-block call: the key and the whole text.
                return Some(FIRST_MAX);
            }
        }
        // The AVX-512 code runs what is under 1 KiB on the AVX2 code.
        let name = match self.chacha {
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Avx512(_) => "avx2",
            c => c.name(),
        };
        match name {
            "portable" => None,
            "avx2" if need <= 128 => Some(128),
            _ if need <= 256 => Some(256),
            "sse2" => Some(256),
            "avx2" if need <= 384 => Some(384),
            _ => Some(512),
        }
    }

    /// XOR the keystream from block 1 into `buf`: its first bytes from
    /// `ks` (blocks 0.. of the first call), the rest from block
    /// `span`/64 on.
    fn xor_after_first(&self, nonce: &[u8; 12], ks: &[u8], span: usize, buf: &mut [u8]) {
        let head = buf.len().min(span - 64);
        let (first, rest) = buf.split_at_mut(head);
        first.iter_mut().zip(&ks[64..]).for_each(|(b, k)| *b ^= k);
        if !rest.is_empty() {
            self.chacha
                .xor_keystream(&self.key, (span / 64) as u32, nonce, rest);
        }
    }

    /// Blocks 0.. of the keystream for a short message: the one-time key
    /// is the first 32 bytes, the message's keystream starts at byte 64.
    fn short_keystream(&self, nonce: &[u8; 12], span: usize) -> [u8; FIRST_MAX] {
        let mut ks = [0u8; FIRST_MAX];
        self.chacha
            .xor_keystream(&self.key, 0, nonce, &mut ks[..span]);
        ks
    }

    fn mac(&self, otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        // The AVX2 Poly1305 runs a short input on its radix-2^64 scalar
        // code; taking that code directly spares the vector state's set-up
        // and moves (a fifth of a 16-byte message's time). The IFMA one
        // takes it below [`WIDE_FROM`]. Lengths only decide it.
        #[cfg(target_arch = "x86_64")]
        let total = aad.len() + ct.len() + 48;
        let poly = match self.poly {
            Poly1305::Avx2(_) if total < crate::poly1305::avx2::VECTOR_FROM => Poly1305::Radix64,
            Poly1305::Ifma(_) if total < WIDE_FROM => Poly1305::Radix64,
            p => p,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let poly = self.poly;
        if let Poly1305::Radix64 = poly {
            // Whole padded blocks straight into the scalar code, without
            // its buffer.
            let mut mac = crate::poly1305::radix64::Poly1305::new(otk);
            mac.padded(aad);
            mac.padded(ct);
            mac.blocks(&lens(aad.len(), ct.len()));
            return mac.finalize();
        }
        let mut mac = poly.start(otk);
        mac.update(aad);
        mac.update(&ZEROS[..(16 - aad.len() % 16) % 16]);
        mac.update(ct);
        mac.update(&ZEROS[..(16 - ct.len() % 16) % 16]);
        mac.update(&lens(aad.len(), ct.len()));
        mac.finalize()
    }

    /// The stitched one-pass code (AVX2 ChaCha20 beside the radix-2^64
    /// Poly1305) for this pair and a message of `len` bytes, if it applies:
    /// always for that pair from 512 bytes, for the AVX2 pair from 512
    /// to [`STITCHED_UP_TO`] bytes, and for the AVX-512 pair from 961 bytes
    /// to below [`WIDE_FROM`].
    #[cfg(target_arch = "x86_64")]
    fn stitched(&self, len: usize) -> Option<crate::cpu::Avx2> {
        match (self.chacha, self.poly) {
            (ChaCha20::Avx2(t), Poly1305::Radix64) if len >= stitched::CHUNK => Some(t),
            (ChaCha20::Avx2(t), Poly1305::Avx2(_))
                if (stitched::CHUNK..=STITCHED_UP_TO).contains(&len) =>
            {
                Some(t)
            }
            (ChaCha20::Avx512(_), Poly1305::Ifma(_))
                if (FIRST_MAX - 64 + 1..WIDE_FROM).contains(&len) =>
            {
                crate::cpu::Avx2::detect()
            }
            _ => None,
        }
    }

    /// The register path for messages of up to 448 bytes (AVX2 ChaCha20,
    /// radix-2^64 Poly1305), if this pair takes it: the AVX2 and AVX-512
    /// ChaCha20 (which runs such a message on the AVX2 code) with the
    /// Poly1305 variants that run a short input on the radix-2^64 code.
    #[cfg(target_arch = "x86_64")]
    fn short(&self, len: usize) -> Option<crate::cpu::Avx2> {
        match (self.chacha, self.poly) {
            (
                ChaCha20::Avx2(_) | ChaCha20::Avx512(_),
                Poly1305::Avx2(_) | Poly1305::Ifma(_) | Poly1305::Radix64,
            ) if len <= short::TEXT => crate::cpu::Avx2::detect(),
            _ => None,
        }
    }

    /// Encrypt `buf` in place and return the tag.
    pub fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.short(buf.len()) {
            return short::seal(t, &self.key, nonce, aad, buf);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.stitched(buf.len()) {
            return stitched::seal(t, &self.key, nonce, aad, buf);
        }
        if let Some(span) = self.first_span(buf.len()) {
            // One vector call makes the one-time key and the first of the
            // keystream.
            let ks = self.short_keystream(nonce, span);
            self.xor_after_first(nonce, &ks, span, buf);
            let otk: [u8; 32] = ks[..32].try_into().expect("32 bytes");
            return self.mac(&otk, aad, buf);
        }
        // The one-time key first: its short chain then runs beside the
        // text's keystream instead of after it.
        let otk = self.otk(nonce);
        self.chacha.xor_keystream(&self.key, 1, nonce, buf);
        self.mac(&otk, aad, buf)
    }

    /// Verify `tag` over `buf` (ciphertext) and decrypt it in place; on a
    /// wrong tag `buf` is left as it was.
    pub fn open(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), AuthError> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.short(buf.len()) {
            return short::open(t, &self.key, nonce, aad, buf, tag);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.stitched(buf.len()) {
            return stitched::open(t, &self.key, nonce, aad, buf, tag);
        }
        if let Some(span) = self.first_span(buf.len()) {
            let ks = self.short_keystream(nonce, span);
            let otk: [u8; 32] = ks[..32].try_into().expect("32 bytes");
            if !ct_eq(&self.mac(&otk, aad, buf), tag) {
                return Err(AuthError);
            }
            self.xor_after_first(nonce, &ks, span, buf);
            return Ok(());
        }
        let expect = self.tag(nonce, aad, buf);
        if !ct_eq(&expect, tag) {
            return Err(AuthError);
        }
        self.chacha.xor_keystream(&self.key, 1, nonce, buf);
        Ok(())
    }
}

/// XChaCha20-Poly1305: a 24-byte nonce, HChaCha20 subkey, then
/// ChaCha20-Poly1305 with nonce 0⁴ ‖ nonce[16..24].
#[derive(Clone)]
pub struct XChaCha20Poly1305 {
    key: [u8; 32],
    chacha: ChaCha20,
    poly: Poly1305,
}

impl XChaCha20Poly1305 {
    pub fn new(key: &[u8; 32], chacha: ChaCha20, poly: Poly1305) -> Self {
        XChaCha20Poly1305 {
            key: *key,
            chacha,
            poly,
        }
    }

    fn inner(&self, nonce: &[u8; 24]) -> (ChaCha20Poly1305, [u8; 12]) {
        let (sub, n) = xchacha20_setup(&self.key, nonce);
        (ChaCha20Poly1305::new(&sub, self.chacha, self.poly), n)
    }

    pub fn seal(&self, nonce: &[u8; 24], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let (a, n) = self.inner(nonce);
        a.seal(&n, aad, buf)
    }

    pub fn open(
        &self,
        nonce: &[u8; 24],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), AuthError> {
        let (a, n) = self.inner(nonce);
        a.open(&n, aad, buf, tag)
    }
}

/// Constant-time equality of two tags: no early exit on the first
/// difference.
pub fn ct_eq(a: &[u8; 16], b: &[u8; 16]) -> bool {
    ct_eq_slices(a, b)
}

/// Constant-time comparison of byte strings (their lengths are public).
pub fn ct_eq_slices(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && std::hint::black_box(a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y))) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn rfc8439_2_8_2_every_pair_of_variants() {
        let key: [u8; 32] = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
            .try_into()
            .unwrap();
        let nonce: [u8; 12] = h("070000004041424344454647").try_into().unwrap();
        let aad = h("50515253c0c1c2c3c4c5c6c7");
        let pt = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let ct = h("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116");
        let tag: [u8; 16] = h("1ae10b594f09e26a7e902ecbd0600691").try_into().unwrap();
        for c in ChaCha20::available() {
            for p in Poly1305::available() {
                let a = ChaCha20Poly1305::new(&key, c, p);
                let mut buf = pt.to_vec();
                assert_eq!(a.seal(&nonce, &aad, &mut buf), tag, "{}", a.variant_name());
                assert_eq!(buf, ct);
                a.open(&nonce, &aad, &mut buf, &tag).unwrap();
                assert_eq!(&buf[..], &pt[..]);
                let mut bad = tag;
                bad[15] ^= 0x80;
                let mut buf2 = ct.clone();
                assert_eq!(a.open(&nonce, &aad, &mut buf2, &bad), Err(AuthError));
                assert_eq!(buf2, ct, "a rejected open must leave the buffer untouched");
            }
        }
    }

    #[test]
    fn short_and_long_paths_agree_at_every_length() {
        // The first vector call (the one-time key and the first of the
        // keystream) and the rest after it, the stitched path from 512
        // (AVX2 with radix64; the AVX2 pair up to 4096, the AVX-512 pair
        // from 961 to below 2048, where its wide code starts; below 961 one
        // sixteen-block call): every variant pair
        // gives the portable/radix26 result around every limit.
        let key = [0x42u8; 32];
        let nonce = [7u8; 12];
        let data: Vec<u8> = (0..4200).map(|i| (i * 7 + 3) as u8).collect();
        let reference = ChaCha20Poly1305::new(&key, ChaCha20::Portable, Poly1305::Radix26);
        // Around the first call's limits (64, 192 and 320: AVX2's two, four
        // and six horizontal blocks; 448: eight vertical ones, or eight
        // horizontal ones on the register path up to 448), the rest's
        // 512-byte chunks after those 448 bytes, and the stitched path's
        // 512-byte chunks (one, two, with and without a tail).
        let lens = (0..=600usize)
            .filter(|l| {
                l % 13 == 0
                    || (60..=70).contains(l)
                    || (180..=200).contains(l)
                    || (310..=330).contains(l)
                    || (440..=520).contains(l)
            })
            .chain([
                639, 640, 641, 959, 960, 961, 1023, 1024, 1025, 1472, 1473, 1536, 1537, 1600, 2047,
                2048, 2049, 2061, 4095, 4096, 4097, 4099,
            ]);
        for len in lens {
            let aad = &data[..len % 40];
            let mut want = data[..len].to_vec();
            let want_tag = reference.seal(&nonce, aad, &mut want);
            for c in ChaCha20::available() {
                for p in Poly1305::available() {
                    let a = ChaCha20Poly1305::new(&key, c, p);
                    let mut b = data[..len].to_vec();
                    let t = a.seal(&nonce, aad, &mut b);
                    assert_eq!((t, &b), (want_tag, &want), "{} len {len}", a.variant_name());
                    let mut bad = t;
                    bad[0] ^= 1;
                    assert_eq!(a.open(&nonce, aad, &mut b, &bad), Err(AuthError));
                    assert_eq!(b, want, "untouched after a refused open");
                    a.open(&nonce, aad, &mut b, &t).unwrap();
                    assert_eq!(b, &data[..len]);
                }
            }
        }
    }

    #[test]
    fn ct_eq_works() {
        let a = [7u8; 16];
        let mut b = a;
        assert!(ct_eq(&a, &b));
        b[9] ^= 1;
        assert!(!ct_eq(&a, &b));
    }
}
