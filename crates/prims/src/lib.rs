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

pub mod aead;
pub mod aes;
pub mod ccm;
pub mod chacha20;
pub mod cpu;
pub mod gcm;
pub mod ghash;
pub mod poly1305;

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
