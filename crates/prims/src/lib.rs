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
