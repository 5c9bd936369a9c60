//! The measurement harness: clocks and cycle counters, calibration of
//! iterations per sample, warm-up, sampling, statistics, and what the machine
//! is. Nothing here knows about cryptography: a point is a closure.

pub mod affinity;
pub mod cycles;
pub mod env;
pub mod measure;
pub mod memory;
pub mod noise;
pub mod stats;
pub mod valgrind;

pub use cycles::{CycleCounter, CycleSource};
pub use measure::{measure, Measured, Plan};
pub use stats::Summary;
