//! GHASH (SP 800-38D §6.4) in four variants: Shoup's 4-bit tables
//! (`4bit-nct`, not constant time), carry-less multiplication from integer
//! multiplications without tables (`ctmul`, constant time, portable),
//! PCLMULQDQ with four blocks aggregated (`pclmul`) and VPCLMULQDQ with
//! sixteen (`vpclmul`).

pub mod ctmul;
#[cfg(target_arch = "x86_64")]
pub mod pclmul;
pub mod soft4bit;
#[cfg(target_arch = "x86_64")]
pub mod vpclmul;

use crate::cpu;

variants! {
    /// A GHASH variant.
    pub enum Ghash ("GHASH") {
        portable {
            Soft4bit => "4bit-nct",
            Ctmul => "ctmul",
        }
        x86_64 {
            Pclmul(cpu::Pclmul) => "pclmul" needs ["pclmulqdq"] else "CPU lacks PCLMULQDQ",
            Vpclmul(cpu::Vpclmul) => "vpclmul" needs ["vpclmulqdq", "avx2"]
                else "CPU lacks VPCLMULQDQ with AVX2",
        }
    }
}

impl Ghash {
    pub fn auto() -> Ghash {
        *Ghash::available()
            .last()
            .expect("the 4-bit tables always run")
    }

    pub fn key(self, h: &[u8; 16]) -> GhashKey {
        match self {
            Ghash::Soft4bit => GhashKey::Soft(soft4bit::Key::new(u128::from_be_bytes(*h))),
            Ghash::Ctmul => GhashKey::Ctmul(ctmul::Key::new(u128::from_be_bytes(*h))),
            #[cfg(target_arch = "x86_64")]
            Ghash::Pclmul(t) => GhashKey::Pclmul(t, pclmul::Key::new(t, h)),
            #[cfg(target_arch = "x86_64")]
            Ghash::Vpclmul(t) => GhashKey::Vpclmul(t, vpclmul::Key::new(t, h)),
        }
    }
}

/// GHASH keyed with H. (Unboxed on purpose: made once per key, read on
/// every message.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub enum GhashKey {
    Soft(soft4bit::Key),
    Ctmul(ctmul::Key),
    #[cfg(target_arch = "x86_64")]
    Pclmul(cpu::Pclmul, pclmul::Key),
    #[cfg(target_arch = "x86_64")]
    Vpclmul(cpu::Vpclmul, vpclmul::Key),
}

impl GhashKey {
    /// Absorb `data`, zero-padded to whole blocks, into the state `y`.
    pub fn update_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        let whole = data.len() / 16 * 16;
        let mut tail = [0u8; 16];
        tail[..data.len() - whole].copy_from_slice(&data[whole..]);
        let tail: &[u8] = if whole < data.len() { &tail } else { &[] };
        match self {
            GhashKey::Soft(k) => {
                let mut s = u128::from_be_bytes(*y);
                k.update(&mut s, &data[..whole]);
                k.update(&mut s, tail);
                *y = s.to_be_bytes();
            }
            GhashKey::Ctmul(k) => {
                let mut s = u128::from_be_bytes(*y);
                k.update(&mut s, &data[..whole]);
                k.update(&mut s, tail);
                *y = s.to_be_bytes();
            }
            #[cfg(target_arch = "x86_64")]
            GhashKey::Pclmul(t, k) => {
                k.update(*t, y, &data[..whole]);
                k.update(*t, y, tail);
            }
            #[cfg(target_arch = "x86_64")]
            GhashKey::Vpclmul(t, k) => k.update_padded(*t, y, data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_vpclmul_then_pclmul_where_the_cpu_has_them() {
        let expect = crate::preference::first(&[
            ("vpclmul", &["vpclmulqdq", "avx2"]),
            ("pclmul", &["pclmulqdq"]),
            ("4bit-nct", &[]),
        ]);
        assert_eq!(Ghash::auto().name(), expect);
    }
}
