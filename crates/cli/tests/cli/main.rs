//! The `ango` command on good and bad input, its records, and what an
//! interrupted run leaves behind.
//!
//! One module per suite; the helpers they share are in `common`.

mod bad_input;
mod common;
mod ct_cycles;
mod pk;
mod report;
mod seed004;
mod speed;
mod store;
mod tls;
mod verify;
