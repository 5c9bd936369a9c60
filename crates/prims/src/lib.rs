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
pub mod auth;
pub mod block;
pub mod camellia;
pub mod ccm;
pub mod chacha20;
pub mod cipherunicorn_a;
pub mod cpu;
pub mod cryptrec;
pub mod gcm;
pub mod ghash;
pub mod hierocrypt3;
#[cfg(target_arch = "x86_64")]
mod io;
pub mod mugi;
pub mod poly1305;
pub mod sc2000;

/// The 0 to 16 bytes of `d` zero-padded to a block, as two little-endian
/// words, read with overlapping loads straight from `d`. Copying a short
/// piece into a zeroed buffer and loading the buffer whole costs more: the
/// wide load of bytes that narrower stores just wrote cannot take them from
/// the store queue and waits until they reach the cache (about 20 ns per
/// message on AMD Zen 4). Branches on the length only.
#[inline(always)]
pub(crate) fn le_partial(d: &[u8]) -> (u64, u64) {
    let n = d.len();
    assert!(n <= 16);
    let rd8 = |i: usize| u64::from_le_bytes(d[i..i + 8].try_into().expect("8 bytes"));
    let rd4 = |i: usize| u64::from(u32::from_le_bytes(d[i..i + 4].try_into().expect("4 bytes")));
    match n {
        8..=16 => (
            rd8(0),
            if n == 8 {
                0
            } else {
                rd8(n - 8) >> (8 * (16 - n))
            },
        ),
        4..=7 => (rd4(0) | (rd4(n - 4) << (8 * (n - 4))), 0),
        1..=3 => {
            let b = |i: usize| u64::from(d[i]) << (8 * i);
            (b(0) | b(n / 2) | b(n - 1), 0)
        }
        _ => (0, 0),
    }
}

/// [`le_partial`] in a vector register (the bytes in memory order).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn load_partial(d: &[u8]) -> core::arch::x86_64::__m128i {
    let (lo, hi) = le_partial(d);
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { core::arch::x86_64::_mm_set_epi64x(hi as i64, lo as i64) }
}

/// A piece of 1 to 16 bytes as a block, zero-padded: one load when whole,
/// else [`load_partial`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn load_block(piece: &[u8]) -> core::arch::x86_64::__m128i {
    if piece.len() == 16 {
        // SAFETY: 16-byte load from a 16-byte piece; SSE2 is part of the
        // x86_64 baseline.
        unsafe { core::arch::x86_64::_mm_loadu_si128(piece.as_ptr().cast()) }
    } else {
        load_partial(piece)
    }
}

/// Write the first `out.len()` (at most 16) bytes of `x` to `out`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn store_partial(out: &mut [u8], x: core::arch::x86_64::__m128i) {
    let mut b = [0u8; 16];
    // SAFETY: one 16-byte store into a 16-byte array (the copy below then
    // reads inside that one store).
    unsafe { core::arch::x86_64::_mm_storeu_si128(b.as_mut_ptr().cast(), x) };
    let n = out.len();
    out.copy_from_slice(&b[..n]);
}

/// XOR `ks` into the `n` (1 to 16) bytes at `src`, write them to `dst`
/// (the same bytes, or apart), and return the result zero-padded: a whole
/// block with one load and one store, a partial one read in place
/// ([`le_partial`]) and stored from a register ([`store_partial`]).
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn xor_block(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ks: core::arch::x86_64::__m128i,
) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::*;
    assert!((1..=16).contains(&n));
    if n == 16 {
        // SAFETY: 16 bytes at both (the caller's `n`), read before written;
        // SSE2 is part of the x86_64 baseline.
        unsafe {
            let x = _mm_xor_si128(_mm_loadu_si128(src.cast()), ks);
            _mm_storeu_si128(dst.cast(), x);
            x
        }
    } else {
        // SAFETY: `n` bytes of the source; the view ends before the store.
        let piece = unsafe { core::slice::from_raw_parts(src, n) };
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let x = unsafe {
            let keep = _mm_cmpgt_epi8(
                _mm_set1_epi8(n as i8),
                _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            );
            _mm_and_si128(_mm_xor_si128(load_partial(piece), ks), keep)
        };
        // SAFETY: `n` bytes of the destination.
        store_partial(unsafe { core::slice::from_raw_parts_mut(dst, n) }, x);
        x
    }
}

#[cfg(test)]
mod partial_tests {
    #[test]
    fn le_partial_reads_every_length_zero_padded() {
        let d: Vec<u8> = (1..=16).collect();
        for n in 0..=16 {
            let mut b = [0u8; 16];
            b[..n].copy_from_slice(&d[..n]);
            let want = (
                u64::from_le_bytes(b[..8].try_into().unwrap()),
                u64::from_le_bytes(b[8..].try_into().unwrap()),
            );
            assert_eq!(super::le_partial(&d[..n]), want, "length {n}");
        }
    }
}

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
