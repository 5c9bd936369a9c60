//! The record of one cycle measurement (`suite: cycles` in results.jsonl),
//! written by `ango cycles` and by `ango run`: seed 002's method — one
//! operation after another, each output the next input.

use crate::Header;
use serde::{Deserialize, Serialize};

/// One (algorithm, implementation, operation) point of `ango cycles`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CyclesRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    pub algorithm: String,
    /// The cipher the algorithm is a mode of (`camellia`, `mugi`, `aes`).
    pub cipher: String,
    pub backend: String,
    /// The catalog's variant (ango) or code path (libraries).
    pub implementation: String,
    /// How the timed call reaches the code (`Camellia_encrypt`, …).
    pub path: String,
    pub library_version: String,
    pub key_bits: u32,
    /// `key-schedule`, `encrypt` or `decrypt`.
    pub operation: String,
    /// True: each call's output is the next call's input (latency, seed
    /// 002's method). False: the throughput point beside it (many
    /// independent blocks, ECB over `throughput_bytes`).
    pub chained: bool,
    /// How the chain is made: `expanded-key` (part of expanded key i is
    /// key i+1), `via-one-block` (the library hides its expanded key: key
    /// i+1 is a block encrypted under key i, so the figure includes one
    /// block encryption), `ciphertext` (ciphertext i is plaintext i+1),
    /// `keystream` (MUGI's state), `none` (throughput).
    pub chain: String,
    /// What one operation is: `key schedule`, `block` (16 bytes) or
    /// `128 bits of keystream`.
    pub unit: String,
    /// Operations per sample.
    pub iterations: u64,
    pub samples: u64,
    /// Statistics over the samples, ns per operation.
    #[serde(flatten)]
    pub stats: crate::Stats,
    /// Median cycle-counter ticks per operation (per key schedule, per
    /// block, per 128 bits of keystream); null without a counter.
    pub cycles_per_op: Option<f64>,
    /// "perf" (core cycles), "tsc" (time-stamp counter ticks, a fixed
    /// rate that need not be the core clock) or "none".
    pub cycle_source: String,
    /// Bytes of lookup tables the implementation reads (ango's own
    /// variants; null for libraries).
    pub table_bytes: Option<u64>,
    /// This CPU's L1 data cache, bytes (per core).
    pub l1d_bytes: Option<u64>,
    /// Known-answer tests passed before timing, e.g. "pass 6/6".
    pub kat: String,
    pub noisy: bool,
    pub warnings: Vec<String>,
    pub method: String,
    pub time: String,
}
