//! Correctness before speed: vector files, known-answer tests, and checks that
//! every backend of an algorithm agrees with every other.

pub mod cross;
pub mod defects;
pub mod differential;
pub mod kat;
pub mod pk;
pub mod vectors;
pub mod wycheproof;
pub mod wycheproof_common;
pub mod wycheproof_pk;
pub mod wycheproof_suite;

pub use kat::KatReport;
