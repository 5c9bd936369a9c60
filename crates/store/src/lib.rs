//! ango's results store: runs of many machines in one database (SQLite,
//! embedded and the default, or PostgreSQL for a team), with the tables
//! across machines, regression checks and exports built on it.
//!
//! - [`db`]: the two stores behind one interface, and `--db` URLs;
//! - [`schema`]: the portable schema, in numbered migrations;
//! - [`point`]: a record's figures as the rows of `points`;
//! - [`import`]: a results directory into the store, whole or not at all;
//! - [`select`]: `--where` filters and the points they select;
//! - [`cross`]: eBACS-style tables across machines;
//! - [`mwu`] and [`check`]: regressions on one testbed;
//! - [`export`]: the Bencher Metric Format, CSV and Parquet.

pub mod check;
pub mod cross;
pub mod db;
pub mod export;
pub mod import;
pub mod mwu;
pub mod point;
pub mod schema;
pub mod select;
pub mod synth;

pub use db::{open, Conn, Url, Value};
