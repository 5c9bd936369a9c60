//! ango's own implementations of the primitives it studies, variant by
//! variant (seed 001 and seed 000 ch. 2): every variant is selectable, and a
//! variant the CPU cannot run is reported, never silently replaced.
//!
//! `unsafe` lives only in the SIMD variants (`#[target_feature]` functions
//! and unaligned loads/stores), reached through [`cpu`] tokens that exist
//! only when the CPU has the feature. Portable code has none. Secrets never
//! choose a branch or a table index in any variant here.

// Index loops mirror the specifications' notation in this crate.
#![allow(clippy::needless_range_loop)]

/// One table per primitive declares its variants: the enum (portable
/// variants plain, x86_64 ones carrying the CPU-feature token that proves
/// they can run), their names, the CPU features each needs, and why a CPU
/// cannot run one. `name`, `by_name`, `needs`, `VARIANTS` and `available`
/// follow from the table; each primitive writes its dispatch and its
/// automatic choice by hand.
macro_rules! variants {
    (
        $(#[$meta:meta])*
        pub enum $E:ident ($what:literal) {
            portable { $( $P:ident => $pname:literal, )+ }
            x86_64 { $( $V:ident($T:ty) => $vname:literal needs [$($need:literal),*] else $why:literal, )+ }
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $E {
            $( $P, )+
            $( #[cfg(target_arch = "x86_64")] $V($T), )+
        }

        /// Every variant name, available here or not, in the table's order.
        pub const VARIANTS: &[&str] = &[$( $pname, )+ $( $vname, )+];

        impl $E {
            pub fn name(self) -> &'static str {
                match self {
                    $( $E::$P => $pname, )+
                    $( #[cfg(target_arch = "x86_64")] $E::$V(_) => $vname, )+
                }
            }

            /// The CPU features the named variant needs (none for the
            /// portable ones).
            pub fn needs(name: &str) -> &'static [&'static str] {
                match name {
                    $( $vname => &[$($need),*], )+
                    _ => &[],
                }
            }

            /// A variant by name, or why it cannot run here.
            pub fn by_name(name: &str) -> Result<$E, String> {
                match name {
                    $( $pname => Ok($E::$P), )+
                    $(
                        #[cfg(target_arch = "x86_64")]
                        $vname => <$T>::detect().map($E::$V).ok_or_else(|| $why.into()),
                        #[cfg(not(target_arch = "x86_64"))]
                        $vname => Err("not an x86_64 CPU".into()),
                    )+
                    _ => Err(format!(
                        "unknown {} variant '{name}'; valid: {}",
                        $what,
                        VARIANTS.join(", ")
                    )),
                }
            }

            /// Every variant this CPU can run, in the table's order.
            pub fn available() -> Vec<$E> {
                VARIANTS
                    .iter()
                    .filter_map(|n| $E::by_name(n).ok())
                    .collect()
            }
        }
    };
}

pub mod aead;
pub mod aes;
pub mod block;
pub mod camellia;
pub mod ccm;
pub mod chacha20;
pub mod cpu;
pub mod cryptrec;
pub mod gcm;
pub mod ghash;
pub mod poly1305;
pub mod sc2000;

/// For tests of the automatic choice: the expected order is stated in each
/// test as data, and what this CPU offers is read from the kernel's
/// `/proc/cpuinfo` flags, not from ango's own detection under test.
#[cfg(test)]
pub(crate) mod preference {
    /// The CPU flags the kernel reports (and so also supports in the OS's
    /// saved state: Linux hides AVX flags it does not enable).
    pub fn cpu_flags() -> Vec<String> {
        let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        text.lines()
            .find(|l| l.starts_with("flags"))
            .and_then(|l| l.split(':').nth(1))
            .map(|f| f.split_whitespace().map(String::from).collect())
            .unwrap_or_default()
    }

    /// The first variant of `order` (most preferred first) whose every
    /// required flag is present.
    pub fn first<'a>(order: &[(&'a str, &[&str])]) -> &'a str {
        let flags = cpu_flags();
        order
            .iter()
            .find(|(_, needs)| {
                cfg!(target_arch = "x86_64") && needs.iter().all(|n| flags.iter().any(|f| f == n))
                    || needs.is_empty()
            })
            .map(|(name, _)| *name)
            .expect("the last choice needs nothing")
    }
}
