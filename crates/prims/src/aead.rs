//! ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305
//! (draft-irtf-cfrg-xchacha §2.3), built from any pair of variants.

#[cfg(target_arch = "x86_64")]
pub(crate) mod short;
#[cfg(target_arch = "x86_64")]
mod stitched;

#[cfg(target_arch = "x86_64")]
use crate::chacha20::avx512;
use crate::chacha20::{xchacha20_setup, ChaCha20};
#[cfg(target_arch = "x86_64")]
use crate::io::Io;
use crate::poly1305::Poly1305;

pub use crate::auth::{ct_eq, ct_eq_slices, AuthError};

/// ChaCha20-Poly1305 with a chosen ChaCha20 and Poly1305 variant.
#[derive(Clone)]
pub struct ChaCha20Poly1305 {
    key: [u8; 32],
    chacha: ChaCha20,
    poly: Poly1305,
}

const ZEROS: [u8; 16] = [0; 16];

/// XOR `ks` into `buf` (as far as the shorter goes).
#[cfg(target_arch = "x86_64")]
fn xor_into(buf: &mut [u8], ks: &[u8]) {
    buf.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
}

/// XOR `ks` into `src`, writing to `dst` (as far as the shortest goes).
#[cfg(target_arch = "x86_64")]
fn xor_to(dst: &mut [u8], src: &[u8], ks: &[u8]) {
    dst.iter_mut()
        .zip(src.iter().zip(ks))
        .for_each(|(d, (s, k))| *d = s ^ k);
}

/// The wide code's layout of a text of `len` bytes: the bytes in whole
/// 1024-byte chunks, how many bytes of the tail after them ride in the
/// first call (all of a tail up to [`avx512::CARRIED`] bytes; its first
/// `CARRIED` where the tail is longer than 512 bytes, which alone would
/// take a sixteen-block call, and the rest at most [`CARRY_REST`]), and the
/// tail's first keystream block.
#[cfg(target_arch = "x86_64")]
fn wide_layout(len: usize) -> (usize, usize, u32) {
    use crate::chacha20::avx512::CARRIED;
    let whole = len / 1024 * 1024;
    let tail = len - whole;
    let carry = match tail {
        _ if whole == 0 => 0,
        t if t <= CARRIED => t,
        t if t > 512 && t - CARRIED <= CARRY_REST => CARRIED,
        _ => 0,
    };
    (whole, carry, 1 + (whole / 64) as u32)
}

/// A tail of 513 bytes up to this many more than the first call carries
/// leaves only this many for the AVX2 code after the first call instead of
/// a sixteen-block call of its own: side by side, best of 3×9, sealing/
/// opening 1,537 bytes 713/768 → 692/730 ns, 1,600 bytes 731/782 →
/// 707/731, 1,728 bytes 739/790 → 716/762. Not below (carrying 448 costs
/// ~100 ns more in the first call than the key alone, more than the AVX2
/// code saves: 1,473 bytes 667/709 → 718/753) nor above (1,984 bytes
/// 756/814 → 825/856 with 512 here).
#[cfg(target_arch = "x86_64")]
const CARRY_REST: usize = 256;

/// The IFMA Poly1305 keyed with `otk`, the AAD absorbed and padded.
#[cfg(target_arch = "x86_64")]
fn ifma_start(t: crate::cpu::Ifma, otk: &[u8; 32], aad: &[u8]) -> crate::poly1305::ifma::Poly1305 {
    let mut mac = crate::poly1305::ifma::Poly1305::new(t, otk);
    mac.update(aad);
    mac.update(&ZEROS[..(16 - aad.len() % 16) % 16]);
    mac
}

/// The tag: the ciphertext not yet absorbed (`rest`, from a multiple of 16
/// bytes in), its whole 128-byte groups, then its tail and the length
/// block as one more group.
#[cfg(target_arch = "x86_64")]
fn ifma_finish(
    mut mac: crate::poly1305::ifma::Poly1305,
    rest: &[u8],
    aad_len: usize,
    ct_len: usize,
) -> [u8; 16] {
    let whole = rest.len() / 128 * 128;
    mac.update(&rest[..whole]);
    mac.finish_aead(&rest[whole..], &lens(aad_len, ct_len))
}

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

/// The AVX-512 pair (AVX-512 ChaCha20, IFMA Poly1305) takes the register
/// path up to 704 bytes (448 without AVX-512VL), one sixteen-block call
/// (the one-time key and the whole text) up to 960 bytes, and its wide
/// code above (`seal_wide`): the text's first 1024 bytes from one
/// sixteen-block call that also makes the one-time key, and a tail of up
/// to 448 bytes after the whole 1024-byte chunks, in the horizontal layout
/// beside it (a separate short call for the key cost its whole chain of
/// dependent steps, ~100 ns, before anything else); then the other chunks.
/// Sealing with 13 bytes of AAD on the 2-core AMD EPYC (Zen 4), best of
/// nine runs of many calls, the wide code against what ran before it (the
/// stitched AVX2 code from 961 bytes, from 2 KiB a short call for the key,
/// the text from block 1): 1 KiB 530 against 602 ns, 1088 bytes 552
/// against 725, 1152 bytes 579 against 746, 1920 bytes 866 against 1004,
/// 2 KiB 826 against 886, 2176 bytes 884 against 1012, 4 KiB 1.39 against
/// 1.44 µs.
///
/// Its MAC is the IFMA one from this many bytes of MAC input (AAD, text,
/// padding and lengths), the radix-2^64 one below. Side by side with 13
/// bytes of AAD, after the IFMA code's set-up went into registers and its
/// head and tail blocks to the radix-2^64 code (sealing/opening, best of
/// 3×9, scalar MAC against IFMA): 752 bytes 453/459 against 466/485 ns,
/// 768 bytes 453/469 against 439/474, 896 bytes 484/496 against 449/474,
/// 1 KiB 498/538 against 444/493, 1088 bytes 517/553 against 474/510.
const IFMA_FROM: usize = 832;

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
    /// AVX-512), sixteen (the AVX-512 pair, for a text past the register
    /// path and up to 960 bytes: above, its wide code runs instead). None
    /// for the portable code, which gains nothing from it (its one-time key
    /// is a block of its own).
    fn first_span(&self, len: usize) -> Option<usize> {
        let need = 64 + len;
        #[cfg(target_arch = "x86_64")]
        if let (Some(_), Poly1305::Ifma(_)) = (self.chacha.wide(), self.poly) {
            if len > short::TEXT {
                // One sixteen-block call: the key and the whole text.
                return Some(FIRST_MAX);
            }
        }
        // The AVX-512 code runs what is under 1 KiB on the AVX2 code.
        let name = match self.chacha {
            #[cfg(target_arch = "x86_64")]
            ChaCha20::Avx512(_) | ChaCha20::Avx512Zmm(_) => "avx2",
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
        // takes it below [`IFMA_FROM`]. Lengths only decide it.
        #[cfg(target_arch = "x86_64")]
        let total = aad.len() + ct.len() + 48;
        let poly = match self.poly {
            Poly1305::Avx2(_) if total < crate::poly1305::avx2::VECTOR_FROM => Poly1305::Radix64,
            Poly1305::Ifma(_) if total < IFMA_FROM => Poly1305::Radix64,
            p => p,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let poly = self.poly;
        if let Poly1305::Radix64 = poly {
            // Whole padded blocks straight into the scalar code, without
            // its buffer.
            let mut mac = crate::poly1305::radix64::Poly1305::new(otk);
            mac.padded(aad);
            mac.padded_long(ct);
            mac.blocks(&lens(aad.len(), ct.len()));
            return mac.finalize();
        }
        #[cfg(target_arch = "x86_64")]
        if let Poly1305::Ifma(t) = poly {
            // The whole 128-byte groups of the text, then its tail and the
            // length block as one more group (the scalar code took them a
            // block at a time, one multiply after another: opening 976
            // bytes took 533 ns against 487 for 1,024, a micro-benchmark's
            // best of 9 on Zen 4).
            return ifma_finish(ifma_start(t, otk, aad), ct, aad.len(), ct.len());
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
    /// always for that pair from 512 bytes, and for the AVX2 pair from 512
    /// to [`STITCHED_UP_TO`] bytes.
    #[cfg(target_arch = "x86_64")]
    fn stitched(&self, len: usize) -> Option<crate::cpu::Avx2> {
        match (self.chacha, self.poly) {
            (ChaCha20::Avx2(t), Poly1305::Radix64) if len >= stitched::CHUNK => Some(t),
            (ChaCha20::Avx2(t), Poly1305::Avx2(_))
                if (stitched::CHUNK..=STITCHED_UP_TO).contains(&len) =>
            {
                Some(t)
            }
            _ => None,
        }
    }

    /// The register path for messages of up to 448 bytes, 704 with
    /// AVX-512VL (AVX2 ChaCha20, radix-2^64 Poly1305), if this pair takes
    /// it: the AVX2 and AVX-512 ChaCha20 (which runs such a message on the
    /// AVX2 code) with the Poly1305 variants that run a short input on the
    /// radix-2^64 code.
    #[cfg(target_arch = "x86_64")]
    fn short(&self, len: usize) -> Option<crate::cpu::Avx2> {
        match (self.chacha, self.poly) {
            (
                ChaCha20::Avx2(_) | ChaCha20::Avx512(_) | ChaCha20::Avx512Zmm(_),
                Poly1305::Avx2(_) | Poly1305::Ifma(_) | Poly1305::Radix64,
            ) if len <= short::text_max() => crate::cpu::Avx2::detect(),
            _ => None,
        }
    }

    /// The AVX-512 pair's wide code, for a text of more than 960 bytes.
    #[cfg(target_arch = "x86_64")]
    fn wide(&self, len: usize) -> Option<avx512::Wide> {
        match (self.chacha.wide(), self.poly) {
            (Some(w), Poly1305::Ifma(_)) if len > FIRST_MAX - 64 => Some(w),
            _ => None,
        }
    }

    /// The IFMA token, if the wide code's 2 KiB stretches take the MAC
    /// stitched into their rounds for a text of `len` bytes: a stretch
    /// after the first 1024 bytes that can take it (opening, any; sealing,
    /// one with 1,280 bytes of ciphertext before it: from 4 KiB), and BMI2
    /// (MULX).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn pairs(&self, len: usize, sealing: bool) -> Option<crate::cpu::Ifma> {
        let from = if sealing { 4 * 1024 } else { 3 * 1024 };
        // The `avx512-zmm` variant leaves the MAC to the vector code.
        let stitch = self.chacha.wide().is_some_and(|w| !w.zmm);
        match self.poly {
            Poly1305::Ifma(t)
                if stitch
                    && wide_layout(len).0 >= from
                    && std::arch::is_x86_feature_detected!("bmi2") =>
            {
                Some(t)
            }
            _ => None,
        }
    }

    /// The wide code with the MAC stitched into its 2 KiB stretches
    /// ([`avx512::pair_mac`]: 1,280 bytes of ciphertext in the radix-2^64
    /// code's two chains beside each stretch's rounds), the rest of the MAC
    /// on the IFMA code after: sealing `out` in place (`src` None), or
    /// opening `src` into `out`; the tag over the ciphertext. The first
    /// 1024 bytes and the tail as in [`Self::seal_wide`]; then, with an
    /// odd count of whole chunks after the first, one of them on its own
    /// (when sealing, the first stretch then has 2 KiB of ciphertext before
    /// it); then the stretches, each taking the next 1,280 bytes of MAC
    /// input where they are ciphertext already (when opening, all of them).
    #[cfg(target_arch = "x86_64")]
    fn through_pairs(
        &self,
        t: avx512::Wide,
        ti: crate::cpu::Ifma,
        nonce: &[u8; 12],
        aad: &[u8],
        src: Option<&[u8]>,
        out: &mut [u8],
    ) -> [u8; 16] {
        let key = &self.key;
        let len = out.len();
        let (whole, carry, tc) = wide_layout(len);
        let later = (whole - 1024) / 1024;
        let rest_counter = tc + (carry / 64) as u32;
        let (chunks, tail) = out.split_at_mut(whole);
        let (carried, rest) = tail.split_at_mut(carry);
        let first: &mut [u8; 1024] = (&mut chunks[..1024]).try_into().expect("1024 bytes");
        let from = src.map(|c| {
            let head: &[u8; 1024] = c[..1024].try_into().expect("1024 bytes");
            (head, &c[whole..whole + carry])
        });
        let otk = avx512::first_and_key_from(t, key, nonce, from, first, tc, carried);
        let mut pos = 1024;
        match src {
            Some(c) => {
                avx512::xor_keystream_into(t, key, rest_counter, nonce, &c[whole + carry..], rest);
                if later % 2 == 1 {
                    let (c, o) = (&c[1024..2048], &mut chunks[1024..2048]);
                    avx512::xor_keystream_into(t, key, 17, nonce, c, o);
                }
            }
            None => {
                avx512::xor_keystream(t, key, rest_counter, nonce, rest);
                if later % 2 == 1 {
                    avx512::xor_keystream(t, key, 17, nonce, &mut chunks[1024..2048]);
                }
            }
        }
        if later % 2 == 1 {
            pos = 2048;
        }
        let mut mac = ifma_start(ti, &otk, aad);
        let mut sm = avx512::StitchMac::new(&mut mac).expect("BMI2 detected");
        let mut st = crate::chacha20::portable::init_state(key, 0, nonce);
        let mut m = 0;
        let src_chunks = src.map(|c| &c[..whole]);
        for _ in 0..later / 2 {
            st[12] = 1 + (pos / 64) as u32;
            if src.is_some() || m + avx512::MAC_SPAN <= pos {
                avx512::pair_mac(t.token, &st, src_chunks, chunks, pos, m, &mut sm);
                m += avx512::MAC_SPAN;
            } else {
                avx512::xor_keystream(t, key, st[12], nonce, &mut chunks[pos..pos + 2048]);
            }
            pos += 2048;
        }
        mac.set_h(sm.h);
        ifma_finish(mac, &src.unwrap_or(out)[m..], aad.len(), len)
    }

    /// Opening in place with the MAC stitched into the wide code's 2 KiB
    /// stretches (from another buffer: [`Self::through_pairs`]): the first
    /// 1024 bytes' and the carried tail's keystream held aside (as
    /// [`Self::open_wide`] does); the first 1024 + 768·n bytes of the
    /// ciphertext (n stretches) into the IFMA MAC, so that each stretch's
    /// 1,280 bytes of MAC input, read in its rounds, lie at or past the
    /// bytes it decrypts (still ciphertext); the stretches from byte 1024;
    /// the rest of the MAC on the IFMA code. On a wrong tag the stretches
    /// are put back (the same keystream again); else the rest is decrypted.
    #[cfg(target_arch = "x86_64")]
    fn open_pairs(
        &self,
        t: avx512::Wide,
        ti: crate::cpu::Ifma,
        nonce: &[u8; 12],
        aad: &[u8],
        tag: &[u8; 16],
        buf: &mut [u8],
    ) -> Result<(), AuthError> {
        let key = &self.key;
        let len = buf.len();
        let (whole, carry, tc) = wide_layout(len);
        let n = (whole - 1024) / 2048;
        let mut ks = [0u8; FIRST_MAX + avx512::CARRIED];
        let (first, tks) = ks.split_at_mut(FIRST_MAX);
        let first: &mut [u8; 1024] = first.try_into().expect("1024 bytes");
        let otk = avx512::first_and_key(t, key, nonce, first, tc, &mut tks[..carry]);
        let mut mac = ifma_start(ti, &otk, aad);
        let ahead = 1024 + 768 * n;
        mac.update(&buf[..ahead]);
        let mut sm = avx512::StitchMac::new(&mut mac).expect("BMI2 detected");
        let mut st = crate::chacha20::portable::init_state(key, 0, nonce);
        let (mut m, mut pos) = (ahead, 1024);
        for _ in 0..n {
            st[12] = 1 + (pos / 64) as u32;
            avx512::pair_mac(t.token, &st, None, buf, pos, m, &mut sm);
            (m, pos) = (m + avx512::MAC_SPAN, pos + 2048);
        }
        debug_assert_eq!(m, pos);
        mac.set_h(sm.h);
        if !ct_eq(&ifma_finish(mac, &buf[m..], aad.len(), len), tag) {
            avx512::xor_keystream(t, key, 17, nonce, &mut buf[1024..pos]);
            return Err(AuthError);
        }
        let (o, ot) = buf.split_at_mut(whole);
        let (carried, rest) = ot.split_at_mut(carry);
        xor_into(&mut o[..1024], first);
        xor_into(carried, tks);
        avx512::xor_keystream(t, key, 1 + (pos / 64) as u32, nonce, &mut o[pos..]);
        avx512::xor_keystream(t, key, tc + (carry / 64) as u32, nonce, rest);
        Ok(())
    }

    /// Sealing with the wide code: the text's first 1024 bytes (keystream
    /// blocks 1 to 16) from one sixteen-block call that also makes the
    /// one-time key and, when it is at most [`avx512::CARRIED`] bytes, the
    /// text's tail after its whole 1024-byte chunks (in the horizontal
    /// layout, beside the sixteen blocks); then the other chunks, the tail
    /// if not carried, and the MAC.
    #[cfg(target_arch = "x86_64")]
    fn seal_wide(&self, t: avx512::Wide, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        if let Some(ti) = self.pairs(buf.len(), true) {
            return self.through_pairs(t, ti, nonce, aad, None, buf);
        }
        let key = &self.key;
        let (whole, carry, tc) = wide_layout(buf.len());
        let otk = if whole == 0 {
            let mut ks = [0u8; FIRST_MAX];
            let otk = avx512::first_and_key(t, key, nonce, &mut ks, tc, &mut []);
            xor_into(buf, &ks);
            otk
        } else {
            let (chunks, tail) = buf.split_at_mut(whole);
            let (first, later) = chunks.split_at_mut(1024);
            let first: &mut [u8; 1024] = first.try_into().expect("1024 bytes");
            let (carried, rest) = tail.split_at_mut(carry);
            let otk = avx512::first_and_key(t, key, nonce, first, tc, carried);
            avx512::xor_keystream(t, key, 17, nonce, later);
            avx512::xor_keystream(t, key, tc + (carry / 64) as u32, nonce, rest);
            otk
        };
        self.mac(&otk, aad, buf)
    }

    /// Opening with the wide code, in place (`ct` None: `out` holds the
    /// ciphertext) or from `ct` into `out` (as long). From a text of 1024
    /// bytes into another buffer, as sealing, the MAC after (the output
    /// takes the ciphertext on a wrong tag); else (in place, or a text under
    /// 1024 bytes) the first call as in [`Self::seal_wide`], its keystream
    /// held aside; the MAC over the ciphertext; only if the tag verifies
    /// anything written to `out`.
    #[cfg(target_arch = "x86_64")]
    fn open_wide(
        &self,
        t: avx512::Wide,
        nonce: &[u8; 12],
        aad: &[u8],
        ct: Option<&[u8]>,
        tag: &[u8; 16],
        out: &mut [u8],
    ) -> Result<(), AuthError> {
        if let Some(ti) = self.pairs(out.len(), false) {
            let Some(c) = ct else {
                return self.open_pairs(t, ti, nonce, aad, tag, out);
            };
            if !ct_eq(&self.through_pairs(t, ti, nonce, aad, Some(c), out), tag) {
                out.copy_from_slice(c);
                return Err(AuthError);
            }
            return Ok(());
        }
        let key = &self.key;
        let len = out.len();
        let (whole, carry, tc) = wide_layout(len);
        let rest_counter = tc + (carry / 64) as u32;
        if let (Some(c), true) = (ct, whole > 0) {
            // From one buffer into another: decrypted straight through (the
            // ciphertext stays there for the MAC), and on a wrong tag the
            // output takes the ciphertext: it holds no plaintext.
            let (o, ot) = out.split_at_mut(whole);
            let (c0, crest) = c.split_at(whole);
            let (of, olater) = o.split_at_mut(1024);
            let of: &mut [u8; 1024] = of.try_into().expect("1024 bytes");
            let cf: &[u8; 1024] = c0[..1024].try_into().expect("1024 bytes");
            let (carried, rest) = ot.split_at_mut(carry);
            let (ccarry, crest) = crest.split_at(carry);
            let otk =
                avx512::first_and_key_from(t, key, nonce, Some((cf, ccarry)), of, tc, carried);
            avx512::xor_keystream_into(t, key, 17, nonce, &c0[1024..], olater);
            avx512::xor_keystream_into(t, key, rest_counter, nonce, crest, rest);
            if !ct_eq(&self.mac(&otk, aad, c), tag) {
                out.copy_from_slice(c);
                return Err(AuthError);
            }
            return Ok(());
        }
        let mut ks = [0u8; FIRST_MAX + avx512::CARRIED];
        let (first, tks) = ks.split_at_mut(FIRST_MAX);
        let first: &mut [u8; 1024] = first.try_into().expect("1024 bytes");
        let otk = avx512::first_and_key(t, key, nonce, first, tc, &mut tks[..carry]);
        if !ct_eq(&self.mac(&otk, aad, ct.unwrap_or(out)), tag) {
            return Err(AuthError);
        }
        let head = len.min(1024);
        let (o, ot) = out.split_at_mut(whole.max(head));
        match ct {
            None => xor_into(o, first),
            Some(c) => xor_to(o, c, first),
        }
        if whole > 0 {
            // In place (into another buffer, a text this long went
            // straight through above).
            avx512::xor_keystream(t, key, 17, nonce, &mut o[1024..]);
            let (carried, rest) = ot.split_at_mut(carry);
            xor_into(carried, tks);
            avx512::xor_keystream(t, key, rest_counter, nonce, rest);
        }
        Ok(())
    }

    /// Verify `tag` over `ct` and decrypt it into `out` (as long), without
    /// first copying it there where the wide code runs; on a wrong tag
    /// `out` holds no plaintext (it is as it was, or holds the ciphertext).
    pub fn open_into(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8; 16],
        out: &mut [u8],
    ) -> Result<(), AuthError> {
        assert_eq!(ct.len(), out.len(), "ciphertext and output lengths");
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.short(ct.len()) {
            return short::open(t, &self.key, nonce, aad, &mut Io::between(ct, out), tag);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide(ct.len()) {
            return self.open_wide(t, nonce, aad, Some(ct), tag, out);
        }
        out.copy_from_slice(ct);
        self.open(nonce, aad, out, tag)
    }

    /// Encrypt `buf` in place and return the tag.
    pub fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.short(buf.len()) {
            return short::seal(t, &self.key, nonce, aad, buf);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide(buf.len()) {
            return self.seal_wide(t, nonce, aad, buf);
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
            return short::open(t, &self.key, nonce, aad, &mut Io::in_place(buf), tag);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide(buf.len()) {
            return self.open_wide(t, nonce, aad, None, tag, buf);
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

    /// As [`ChaCha20Poly1305::open_into`].
    pub fn open_into(
        &self,
        nonce: &[u8; 24],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8; 16],
        out: &mut [u8],
    ) -> Result<(), AuthError> {
        let (a, n) = self.inner(nonce);
        a.open_into(&n, aad, ct, tag, out)
    }
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
        // (AVX2 with radix64; the AVX2 pair up to 4096), the AVX-512 pair's
        // one sixteen-block call up to 960 and its wide code above (a tail
        // of up to 448 bytes after the whole 1024-byte chunks carried in the
        // first call, of 513 to 704 its first 448 there and the rest after it,
        // a longer one after it; the IFMA MAC from 832 bytes of MAC input, 772
        // bytes of text with this test's AAD of len % 40, its last group
        // taking the text's last 0 to 112 bytes and the length block, or
        // the scalar code one block of 113 to 127 first; from 3 KiB its 2 KiB
        // stretches with the MAC stitched in, after an odd or even count of
        // whole chunks, the first stretch's MAC taken or not when sealing,
        // with tails carried, after, or none):
        // every variant pair gives the portable/radix26 result around every
        // limit.
        let key = [0x42u8; 32];
        let nonce = [7u8; 12];
        let data: Vec<u8> = (0..12500).map(|i| (i * 7 + 3) as u8).collect();
        let reference = ChaCha20Poly1305::new(&key, ChaCha20::Portable, Poly1305::Radix26);
        // Around the first call's limits (64, 192 and 320: AVX2's two, four
        // and six horizontal blocks; 448: eight vertical ones, or eight
        // horizontal ones on the register path up to 448; with AVX-512VL
        // ten and twelve up to 576 and 704), the rest's 512-byte chunks
        // after those 448 bytes, and the stitched path's 512-byte chunks
        // (one, two, with and without a tail).
        let lens = (0..=600usize)
            .filter(|l| {
                l % 13 == 0
                    || (60..=70).contains(l)
                    || (180..=200).contains(l)
                    || (310..=330).contains(l)
                    || (440..=520).contains(l)
                    || (570..=580).contains(l)
            })
            .chain([
                639, 640, 641, 700, 703, 704, 705, 706, 771, 772, 773, 959, 960, 961, 1023, 1024,
                1025, 1087, 1088, 1089, 1120, 1121, 1136, 1137, 1139, 1140, 1152, 1153, 1215, 1216,
                1217, 1344, 1345, 1472, 1473, 1536, 1537, 1600, 1601, 1727, 1728, 1729, 1730, 2047,
                2048, 2049, 2061, 2239, 2240, 2241, 2368, 2369, 2495, 2496, 2497, 2561, 2751, 2752,
                2753, 3071, 3072, 3073, 4095, 4096, 4097, 4099, 4544, 4545, 5119, 5120, 5121, 6143,
                6144, 6592, 7168, 7617, 8191, 8192, 8640, 9216, 9920, 10240, 11264, 11277, 12288,
                12289, 12500,
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
                    // Into another buffer: the plaintext there, the
                    // ciphertext untouched; refused, no plaintext there.
                    let mut out = vec![0xa5u8; len];
                    a.open_into(&nonce, aad, &want, &t, &mut out).unwrap();
                    assert_eq!(
                        out,
                        &data[..len],
                        "{} len {len}: open_into",
                        a.variant_name()
                    );
                    let mut out = vec![0xa5u8; len];
                    assert_eq!(
                        a.open_into(&nonce, aad, &want, &bad, &mut out),
                        Err(AuthError)
                    );
                    assert!(
                        out.iter().zip(&want).all(|(o, c)| *o == 0xa5 || o == c),
                        "{} len {len}: refused open_into",
                        a.variant_name()
                    );
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
