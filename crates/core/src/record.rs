//! The record schema: one JSON object per measured point, one per line of
//! `results.jsonl`. Documented field by field in `docs/schema.md`; bump
//! [`SCHEMA_VERSION`] when a field changes meaning.

use serde::{Deserialize, Serialize};

pub const SCHEMA_VERSION: u32 = 1;

/// One measured point of the symmetric speed study.
///
/// All `*_ns` fields are nanoseconds per operation (one message), taken from
/// the monotonic clock; statistics are over the samples, each sample being
/// the mean of `iterations_per_sample` back-to-back operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpeedRecord {
    pub schema: u32,
    pub run_id: String,
    /// "speed" for this study.
    pub suite: String,
    pub algorithm: String,
    /// "encrypt" (AEAD seal) or "decrypt" (AEAD open with tag check).
    pub operation: String,
    pub backend: String,
    pub implementation: String,
    /// "on", "off" or "seed000".
    pub hw: String,
    /// The OPENSSL_ia32cap value the point ran under, if any.
    pub ia32cap: Option<String>,
    /// The CPU features the library reported seeing while this point ran
    /// (OpenSSL: its capability words and decoded flags).
    pub library_cpu_view: Option<String>,
    pub size_bytes: u64,
    pub aad_bytes: u64,
    pub samples: u64,
    pub iterations_per_sample: u64,
    pub median_ns: f64,
    pub q1_ns: f64,
    pub q3_ns: f64,
    pub mean_ns: f64,
    pub sd_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    /// (Q3 - Q1) / median.
    pub robust_cv: f64,
    /// 95% confidence interval of the median, from order statistics.
    pub ci95_low_ns: f64,
    pub ci95_high_ns: f64,
    /// size_bytes / median time.
    pub bytes_per_second: f64,
    /// Median cycles per byte; null for size 0 or when no cycle source exists.
    pub cycles_per_byte: Option<f64>,
    /// Median cycles per operation (message).
    pub cycles_per_op: Option<f64>,
    /// "perf" (hardware core cycles), "tsc" (time-stamp counter ticks, which
    /// need not equal core cycles) or "none".
    pub cycle_source: String,
    /// Cost of reading the clocks around one sample, in ns (not subtracted;
    /// samples are calibrated to last far longer).
    pub timer_overhead_ns: f64,
    /// Set when robust_cv exceeds the noise threshold.
    pub noisy: bool,
    /// How many times the point was measured (more than 1 when it was
    /// noisy and re-measured; the steadiest attempt is the one recorded).
    pub attempts: u64,
    /// Human-readable warnings about this point.
    pub warnings: Vec<String>,
    /// Known-answer tests passed by this (algorithm, backend, hw) in this
    /// run before timing, e.g. "pass 6/6".
    pub kat: String,
    /// How the point was measured, in words.
    pub method: String,
    /// RFC 3339 UTC time the point finished.
    pub time: String,
}

/// The per-sample times of one point, kept beside the statistics in
/// `samples.jsonl` (same run_id and key fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleSet {
    pub run_id: String,
    pub suite: String,
    pub algorithm: String,
    pub operation: String,
    pub backend: String,
    pub hw: String,
    pub size_bytes: u64,
    pub iterations_per_sample: u64,
    /// ns per operation, one entry per sample, in measurement order.
    pub sample_ns: Vec<f64>,
}

/// What the run was measured on (`env.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvInfo {
    pub schema: u32,
    pub run_id: String,
    pub ango_version: String,
    pub hostname: String,
    pub time: String,
    pub cpu_model: String,
    pub cpu_vendor: String,
    pub logical_cpus: usize,
    /// CPU flags relevant to crypto (aes, pclmulqdq, avx2, vaes, ...).
    pub crypto_flags: Vec<String>,
    /// Every flag /proc/cpuinfo lists.
    pub all_flags: Vec<String>,
    pub hypervisor: bool,
    pub frequency_governor: Option<String>,
    pub boost: Option<String>,
    pub scaling_max_khz: Option<u64>,
    pub kernel: String,
    pub os: String,
    pub rustc: String,
    pub libraries: Vec<(String, String)>,
    /// "perf", "tsc" or "none".
    pub cycle_source: String,
    pub cycle_source_note: String,
    pub tsc_hz_measured: Option<f64>,
    pub tsc_invariant: bool,
    pub clock: String,
    pub clock_resolution_ns: f64,
    pub timer_overhead_ns: f64,
    /// Cost of one iteration of the timing loop around an empty operation
    /// (the closure call), in ns: what every per-operation figure includes
    /// beyond the operation itself.
    pub loop_overhead_ns: f64,
    /// The OPENSSL_ia32cap capability words OpenSSL sees with hw on.
    pub openssl_ia32cap_on: Option<String>,
    /// The CPU the run was pinned to (`--cpu`), if any.
    pub pinned_cpu: Option<usize>,
    /// The command line that made the run.
    pub command: String,
}

/// One public-key point: an (algorithm, backend, operation) of `ango pk`,
/// every call timed on its own. One JSON line per point in
/// `results.jsonl`; the kept per-call times are in `pk-samples.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PkRecord {
    pub schema: u32,
    pub run_id: String,
    /// Always `pk`.
    pub suite: String,
    pub algorithm: String,
    /// `kem` or `sig`.
    pub kind: String,
    pub operation: String,
    pub backend: String,
    pub implementation: String,
    /// Calls timed and kept (after dropping the first `dropped`).
    pub iterations: u64,
    /// Calls timed and dropped (the first, warm-up call).
    pub dropped: u64,
    /// Message length for sign and verify (random bytes, new per run).
    pub message_bytes: Option<u64>,
    pub median_ns: f64,
    pub q1_ns: f64,
    pub q3_ns: f64,
    pub mean_ns: f64,
    pub sd_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub p95_ns: f64,
    pub p99_ns: f64,
    pub robust_cv: f64,
    pub ci95_low_ns: f64,
    pub ci95_high_ns: f64,
    /// Median cycles per call (see `cycle_source`).
    pub cycles_per_op: Option<f64>,
    pub cycle_source: String,
    pub timer_overhead_ns: f64,
    /// Sizes of this algorithm's objects as this backend encodes them.
    pub sizes: Vec<crate::pk::SizeEntry>,
    /// Outcome of the checks run before timing, e.g. `pass 6/6`.
    pub verify: String,
    /// What the operation means when it is not the literal one (X25519's
    /// encaps and decaps).
    pub note: Option<String>,
    pub warnings: Vec<String>,
    pub method: String,
    pub time: String,
}

/// Every kept per-call time of one public-key point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PkSamples {
    pub run_id: String,
    pub algorithm: String,
    pub operation: String,
    pub backend: String,
    /// Nanoseconds per call, in the order measured.
    pub sample_ns: Vec<f64>,
    /// Cycles per call (same order), when a cycle source was available.
    pub sample_cycles: Option<Vec<u64>>,
}
