//! Poly1305 (RFC 8439 §2.5): 26-bit limbs with 32×32→64 products (the
//! 32-bit way), 44-bit limbs with 64×64→128 products, two 64-bit limbs with
//! 64×64→128 products (the integer multiplier's layout, which ango's
//! ChaCha20-Poly1305 stitches beside vector ChaCha20), AVX2 and AVX-512
//! IFMA.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod ifma;
pub mod radix26;
pub mod radix44;
pub mod radix64;

use crate::cpu;

/// Feed `data` through the 16-byte buffer `buf` (holding `len` bytes),
/// handing every whole block to `block`; what is left stays buffered.
pub(crate) fn buffered(
    buf: &mut [u8; 16],
    len: &mut usize,
    mut data: &[u8],
    mut block: impl FnMut(&[u8; 16]),
) {
    if *len > 0 {
        let take = (16 - *len).min(data.len());
        buf[*len..*len + take].copy_from_slice(&data[..take]);
        *len += take;
        data = &data[take..];
        if *len < 16 {
            return;
        }
        block(buf);
        *len = 0;
    }
    let mut chunks = data.chunks_exact(16);
    for m in &mut chunks {
        block(m.try_into().expect("16 bytes"));
    }
    let rest = chunks.remainder();
    buf[..rest.len()].copy_from_slice(rest);
    *len = rest.len();
}

/// How a vector variant takes `data` when its scalar code holds `buf_len`
/// buffered bytes: (bytes that complete the buffered block, whole
/// `group`-byte groups for the vector code, the rest). The first and last
/// go to the scalar code.
pub(crate) fn split_for_groups(buf_len: usize, data: &[u8], group: usize) -> (&[u8], &[u8], &[u8]) {
    let take = if buf_len > 0 {
        (16 - buf_len).min(data.len())
    } else {
        0
    };
    let (head, rest) = data.split_at(take);
    let (bulk, tail) = rest.split_at(rest.len() / group * group);
    (head, bulk, tail)
}

variants! {
    /// A Poly1305 variant.
    pub enum Poly1305 ("Poly1305") {
        portable {
            Radix26 => "radix26",
            Radix44 => "radix44",
            Radix64 => "radix64",
        }
        x86_64 {
            Avx2(cpu::Avx2) => "avx2" needs ["avx2"] else "CPU lacks AVX2",
            Ifma(cpu::Ifma) => "ifma" needs ["avx512f", "avx512ifma"] else "CPU lacks AVX-512F with IFMA",
        }
    }
}

impl Poly1305 {
    /// The best variant here: IFMA, else AVX2, else 64-bit limbs on 64-bit
    /// targets.
    pub fn auto() -> Poly1305 {
        for name in ["ifma", "avx2"] {
            if let Ok(v) = Poly1305::by_name(name) {
                return v;
            }
        }
        if cfg!(target_pointer_width = "64") {
            Poly1305::Radix44
        } else {
            Poly1305::Radix26
        }
    }

    /// A MAC in progress, of this variant.
    pub fn start(self, key: &[u8; 32]) -> Mac {
        match self {
            Poly1305::Radix26 => Mac::R26(radix26::Poly1305::new(key)),
            Poly1305::Radix44 => Mac::R44(radix44::Poly1305::new(key)),
            Poly1305::Radix64 => Mac::R64(radix64::Poly1305::new(key)),
            #[cfg(target_arch = "x86_64")]
            Poly1305::Avx2(t) => Mac::Avx2(avx2::Poly1305::new(t, key)),
            #[cfg(target_arch = "x86_64")]
            Poly1305::Ifma(t) => Mac::Ifma(ifma::Poly1305::new(t, key)),
        }
    }

    /// One-shot MAC.
    pub fn mac(self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let mut m = self.start(key);
        m.update(msg);
        m.finalize()
    }
}

/// A running Poly1305 computation. (Unboxed on purpose: a message's MAC
/// must not cost an allocation.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Mac {
    R26(radix26::Poly1305),
    R44(radix44::Poly1305),
    R64(radix64::Poly1305),
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Poly1305),
    #[cfg(target_arch = "x86_64")]
    Ifma(ifma::Poly1305),
}

impl Mac {
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Mac::R26(p) => p.update(data),
            Mac::R44(p) => p.update(data),
            Mac::R64(p) => p.update(data),
            #[cfg(target_arch = "x86_64")]
            Mac::Avx2(p) => p.update(data),
            #[cfg(target_arch = "x86_64")]
            Mac::Ifma(p) => p.update(data),
        }
    }

    pub fn finalize(self) -> [u8; 16] {
        match self {
            Mac::R26(p) => p.finalize(),
            Mac::R44(p) => p.finalize(),
            Mac::R64(p) => p.finalize(),
            #[cfg(target_arch = "x86_64")]
            Mac::Avx2(p) => p.finalize(),
            #[cfg(target_arch = "x86_64")]
            Mac::Ifma(p) => p.finalize(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn auto_is_ifma_then_avx2_where_the_cpu_has_them() {
        let expect = crate::preference::first(&[
            ("ifma", &["avx512f", "avx512ifma"]),
            ("avx2", &["avx2"]),
            ("radix44", &[]),
        ]);
        assert_eq!(Poly1305::auto().name(), expect);
    }

    #[test]
    fn rfc8439_2_5_2_both_variants() {
        let key: [u8; 32] = h("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
            .try_into()
            .unwrap();
        let msg = b"Cryptographic Forum Research Group";
        for v in Poly1305::available() {
            assert_eq!(
                v.mac(&key, msg).to_vec(),
                h("a8061dc1305136c6c22b8baf0c0127a9"),
                "{}",
                v.name()
            );
        }
    }

    /// A xorshift64 stream from `seed` (test data, not randomness).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn variants_agree_over_many_groups_at_the_limbs_limits() {
        // The vector variants' loops (IFMA: pairs of eight-block groups, an
        // odd group alone, the last two by their own powers) over up to
        // 41 groups, with all-ones keys and blocks (every limb at its
        // largest, so the carries and the 5·2^10 wrap at their bounds) and
        // with random ones.
        let mut next = xorshift(0x0dd0_b1a5_e5e5_u64);
        for groups in [1usize, 2, 3, 4, 5, 8, 15, 16, 17, 40, 41] {
            for extra in [0usize, 16, 127] {
                let len = 128 * groups + extra;
                for ones in [true, false] {
                    let byte = |n: u64| if ones { 0xff } else { n as u8 };
                    let key: [u8; 32] = core::array::from_fn(|_| byte(next()));
                    let msg: Vec<u8> = (0..len).map(|_| byte(next())).collect();
                    let want = Poly1305::Radix26.mac(&key, &msg);
                    for v in Poly1305::available() {
                        assert_eq!(v.mac(&key, &msg), want, "{} len {len}", v.name());
                    }
                }
            }
        }
    }

    #[test]
    fn variants_agree_on_edge_values_and_split_updates() {
        // Keys and messages with all-ones bytes push every limb to its limit
        // and exercise the final reduction (h >= p).
        let mut next = xorshift(0x1234_5678_9abc_def0u64);
        for round in 0..400 {
            let key: [u8; 32] =
                core::array::from_fn(|_| if round % 3 == 0 { 0xff } else { next() as u8 });
            let len = (next() % 1400) as usize;
            let msg: Vec<u8> = (0..len)
                .map(|_| if round % 2 == 0 { 0xff } else { next() as u8 })
                .collect();
            let a = Poly1305::Radix26.mac(&key, &msg);
            for v in Poly1305::available() {
                assert_eq!(v.mac(&key, &msg), a, "{} round {round} len {len}", v.name());
            }
            let split = (next() as usize) % (len + 1);
            for v in Poly1305::available() {
                let mut m = v.start(&key);
                m.update(&msg[..split]);
                m.update(&msg[split..]);
                assert_eq!(m.finalize(), a, "{} split {split}", v.name());
            }
            // Small pieces: the AVX2 code moves from its 64-bit to its
            // 26-bit limbs with bytes still buffered.
            let piece = round % 17 + 1;
            for v in Poly1305::available() {
                let mut m = v.start(&key);
                msg.chunks(piece).for_each(|c| m.update(c));
                assert_eq!(m.finalize(), a, "{} pieces of {piece}", v.name());
            }
        }
    }
}
