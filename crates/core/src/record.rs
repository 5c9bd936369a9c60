//! The record schema: one JSON object per measured point, one per line of
//! `results.jsonl`. Documented field by field in `docs/schema.md`; bump
//! [`SCHEMA_VERSION`] when a field changes meaning.

use crate::SuiteId;
use serde::{Deserialize, Serialize};

pub const SCHEMA_VERSION: u32 = 2;

/// Records written before `schema_version` existed are version 1.
fn schema_v1() -> u32 {
    1
}

/// What every line of results.jsonl starts with, whatever its suite: the
/// schema's version, the suite that drew the line (which names the record
/// type) and the run it belongs to. Each record type carries it flattened
/// as its first field, so its JSON is `{"schema":2,"schema_version":2,
/// "suite":…,"run_id":…,` and the record's own fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub schema: u32,
    /// The record schema's version (also in `schema`); 1 for records
    /// written before this field existed.
    #[serde(default = "schema_v1")]
    pub schema_version: u32,
    pub suite: SuiteId,
    /// `<UTC time>-<host>` of the run.
    pub run_id: String,
}

impl Header {
    /// The header of a record of `suite` written now, in run `run_id`.
    pub fn new(suite: SuiteId, run_id: impl Into<String>) -> Header {
        Header {
            schema: SCHEMA_VERSION,
            schema_version: SCHEMA_VERSION,
            suite,
            run_id: run_id.into(),
        }
    }
}

/// Records written before `workers` existed were measured by one worker.
fn one_worker() -> u32 {
    1
}

/// Public-key records written before `timing` existed timed each call
/// with its own context: what is now `api-call`.
fn timing_api_call() -> String {
    "api-call".into()
}

/// One measured point of the symmetric speed study.
///
/// All `*_ns` fields are nanoseconds per operation (one message), taken from
/// the monotonic clock; statistics are over the samples, each sample being
/// the mean of `iterations_per_sample` back-to-back operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpeedRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// The exact version string of the library that was measured (ango's
    /// own for its implementations); empty in records written before this
    /// field existed.
    #[serde(default)]
    pub library_version: String,
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
    /// Statistics over the samples, ns per operation: `median_ns, q1_ns,
    /// q3_ns, mean_ns, sd_ns, min_ns, max_ns, p95_ns, p99_ns, robust_cv,
    /// ci95_low_ns, ci95_high_ns` (the 95% interval of the median, from
    /// order statistics).
    #[serde(flatten)]
    pub stats: crate::Stats,
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
    /// How many workers measured this point at once, each on its own CPU
    /// (`--multi`); 1 otherwise. With more than one, `bytes_per_second` is
    /// the aggregate (the sum of every worker's size / median time) and the
    /// statistics are over all workers' samples pooled (time per message on
    /// one worker while all run).
    #[serde(default = "one_worker")]
    pub workers: u32,
    /// With `workers` > 1: each worker's figure, the aggregate and the
    /// scaling against one worker measured just before in the same run.
    #[serde(default)]
    pub multi: Option<MultiCore>,
    /// The ratio of this point to every other implementation measured
    /// beside it, round by round; null when it was measured alone (and in
    /// records written before this field).
    #[serde(default)]
    pub paired: Option<Paired>,
    /// For ango's `auto` implementation: the variant that ran at this size
    /// and how it was chosen; null otherwise.
    #[serde(default)]
    pub auto: Option<AutoPick>,
}

/// A point's ratios to the implementations sampled in turn with it (the
/// same algorithm, operation, size and setting, one sample of each per
/// round): each the other's time per message over this one's, per round,
/// so above 1 this one is faster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// How the per-round ratios are summarised: `hodges-lehmann` (the
    /// median of the Walsh averages of the log ratios, with the interval of
    /// the Wilcoxon signed-rank test).
    pub estimator: String,
    /// Rounds taken (one sample of every member each).
    pub rounds: u64,
    /// Rounds that fell in a spell: most members more than 10% slower than
    /// their usual, the 20th percentile of their samples (0 in older
    /// runs).
    #[serde(default)]
    pub rounds_disturbed: u64,
    /// Rounds the ratios are taken from: the undisturbed ones when at
    /// least 20 are, else all (0 in older runs, which used all).
    #[serde(default)]
    pub rounds_used: u64,
    /// Whether every member's ratio to the group's fastest had a 95%
    /// interval within `steady_within` when the rounds ended.
    pub steady: bool,
    /// The steadiness asked (0.01: ±1%); null when rounds were not cut short
    /// by it (`--samples N`).
    pub steady_within: Option<f64>,
    pub vs: Vec<PairedVs>,
}

/// One ratio of a [`Paired`] block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedVs {
    pub backend: String,
    pub implementation: String,
    /// The other's time over this one's (above 1: this one is faster).
    pub ratio: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

impl SpeedRecord {
    /// This point's paired ratio to `backend` (and `implementation`, when
    /// given): the other's time over this one's, with its interval.
    pub fn paired_to(&self, backend: &str, implementation: Option<&str>) -> Option<&PairedVs> {
        self.paired
            .as_ref()?
            .vs
            .iter()
            .find(|v| v.backend == backend && implementation.is_none_or(|i| v.implementation == i))
    }
}

/// How ango's `auto` implementation chose the variant that ran a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoPick {
    /// The variant that ran (`aes/vaes512+ghash/vpclmul`).
    pub variant: String,
    /// The size class the message fell in: the length the choice was
    /// measured at.
    pub class_bytes: u64,
    /// `measured` (by this run's tuning), `cache` (a tuning of this CPU and
    /// build read back) or `features` (no tuning: the CPU's feature flags).
    pub chosen_by: String,
}

/// The multi-core figures of one point (`--multi`): N workers, each pinned
/// to its own CPU, sampling over the same window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiCore {
    /// The CPU of each worker, in worker order.
    pub cpus: Vec<usize>,
    pub per_worker: Vec<WorkerFigure>,
    /// Sum over workers of size / median time, bytes/s (operations/s in
    /// the public-key study), with the 95% interval from the sums of the
    /// workers' interval ends.
    pub aggregate_per_second: f64,
    pub aggregate_ci95_low: f64,
    pub aggregate_ci95_high: f64,
    /// One worker alone on the first CPU, measured just before the N.
    pub single: WorkerFigure,
    /// aggregate / (workers × single): 1.0 is perfect scaling.
    pub scaling_efficiency: f64,
    pub scaling_efficiency_ci95_low: f64,
    pub scaling_efficiency_ci95_high: f64,
}

/// One worker's figure: its median time per operation with the 95%
/// interval, and the rate it gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerFigure {
    pub cpu: usize,
    pub median_ns: f64,
    pub ci95_low_ns: f64,
    pub ci95_high_ns: f64,
    pub robust_cv: f64,
    pub samples: u64,
    /// Bytes/s (speed) or operations/s (public key) at the median.
    pub per_second: f64,
}

impl MultiCore {
    /// The figures from the one-worker baseline and each worker's (median,
    /// CI low, CI high, robust CV, samples), rate = `units` / time (bytes
    /// per message, or 1 for operations).
    pub fn from(single: WorkerFigure, workers: Vec<WorkerFigure>, units: f64) -> MultiCore {
        let rate = |ns: f64| if ns > 0.0 { units * 1e9 / ns } else { 0.0 };
        let agg: f64 = workers.iter().map(|w| rate(w.median_ns)).sum();
        // Slowest times give the lowest rates.
        let lo: f64 = workers.iter().map(|w| rate(w.ci95_high_ns)).sum();
        let hi: f64 = workers.iter().map(|w| rate(w.ci95_low_ns)).sum();
        let n = workers.len().max(1) as f64;
        let (s, s_lo, s_hi) = (
            rate(single.median_ns),
            rate(single.ci95_high_ns),
            rate(single.ci95_low_ns),
        );
        let eff = |a: f64, b: f64| if b > 0.0 { a / (n * b) } else { 0.0 };
        MultiCore {
            cpus: workers.iter().map(|w| w.cpu).collect(),
            aggregate_per_second: agg,
            aggregate_ci95_low: lo,
            aggregate_ci95_high: hi,
            scaling_efficiency: eff(agg, s),
            scaling_efficiency_ci95_low: eff(lo, s_hi),
            scaling_efficiency_ci95_high: eff(hi, s_lo),
            per_worker: workers,
            single,
        }
    }
}

/// The per-sample times of one point, kept beside the statistics in
/// `samples.jsonl` (same run_id and key fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleSet {
    pub run_id: String,
    pub suite: SuiteId,
    pub algorithm: String,
    pub operation: String,
    pub backend: String,
    /// As in the record (empty in sample sets written before this field:
    /// they are matched to their records by order).
    #[serde(default)]
    pub implementation: String,
    pub hw: String,
    pub size_bytes: u64,
    pub iterations_per_sample: u64,
    /// ns per operation, one entry per sample, in measurement order (with
    /// several workers, worker after worker).
    pub sample_ns: Vec<f64>,
    /// As in the record.
    #[serde(default = "one_worker")]
    pub workers: u32,
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
    /// Wall-clock seconds each suite of the run took, in the order run
    /// (written when the run ends; empty while it runs and in older runs).
    #[serde(default)]
    pub suite_seconds: Vec<SuiteTime>,
    /// How noisy the machine was during the run (null in older runs).
    #[serde(default)]
    pub noise: Option<Noise>,
    /// How ango's `auto` variants were chosen for this CPU (null when the
    /// run measured none of them, and in older runs).
    #[serde(default)]
    pub tuning: Option<serde_json::Value>,
    /// `std::env::consts::ARCH` of the build (`x86_64`, `aarch64`); empty
    /// in runs written before the testbed identity.
    #[serde(default)]
    pub arch: String,
    /// /proc/cpuinfo's `cpu family`, `model` and `stepping` (x86), or the
    /// CPU implementer, part and revision (ARM); null where not given.
    #[serde(default)]
    pub cpu_family: Option<u32>,
    #[serde(default)]
    pub cpu_model_number: Option<u32>,
    #[serde(default)]
    pub cpu_stepping: Option<u32>,
    /// The microcode revision /proc/cpuinfo reports (`0x1000065`).
    #[serde(default)]
    pub microcode: Option<String>,
    /// Physical cores of the machine (every CPU /proc/cpuinfo lists,
    /// not only those this process may run on).
    #[serde(default)]
    pub cores: usize,
    /// Logical CPUs of the machine (/proc/cpuinfo's processors).
    #[serde(default)]
    pub threads: usize,
    /// MemTotal of /proc/meminfo, in bytes.
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    /// The hypervisor as the CPU reports it (`kvm`, `hyperv`, `vmware`,
    /// `xen`, …), `none` on bare metal; empty in older runs.
    #[serde(default)]
    pub virtualization: String,
    /// The testbed's fingerprint: 16 hex digits of a SHA-256 over the
    /// fields [`crate::testbed::Identity`] names. Empty in older runs (the
    /// store derives it from what their env.json has).
    #[serde(default)]
    pub testbed: String,
    /// RFC 3339 UTC time the run ended (null while it runs, in a run
    /// that was killed, and in older runs).
    #[serde(default)]
    pub ended: Option<String>,
    /// The run was stopped by Ctrl-C: its records are what was measured
    /// before.
    #[serde(default)]
    pub interrupted: bool,
}

/// The machine's noise over a run: the hypervisor's steal time, a fixed
/// calibration loop timed before and after, and the share of side-by-side
/// rounds that fell in a spell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// Steal time as a percentage of all CPU time over the run, from
    /// /proc/stat; null where the kernel does not report it, or while the
    /// run goes on.
    pub steal_percent: Option<f64>,
    /// The fixed loop (100,000 dependent multiply-adds) before the first
    /// point and after the last.
    pub before: Option<NoiseProbe>,
    pub after: Option<NoiseProbe>,
    /// Side-by-side rounds the run took (speed and latency groups, ango's
    /// tuning), and how many fell in a spell: most of the group's members
    /// more than 10% slower than their usual (the 20th percentile of their
    /// samples); null while the run goes on and in older runs.
    #[serde(default)]
    pub rounds: Option<u64>,
    #[serde(default)]
    pub rounds_disturbed: Option<u64>,
    /// In words: the probes' spread and drift, and what difference the
    /// run can be trusted to resolve.
    pub summary: String,
}

/// One timing of a fixed probe: `samples` runs of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseProbe {
    pub samples: u64,
    pub median_ns: f64,
    pub robust_cv: f64,
    pub min_ns: f64,
    pub max_ns: f64,
}

impl Noise {
    pub fn from_parts(
        steal_percent: Option<f64>,
        before: Option<NoiseProbe>,
        after: Option<NoiseProbe>,
    ) -> Noise {
        let mut n = Noise {
            steal_percent,
            before,
            after,
            rounds: None,
            rounds_disturbed: None,
            summary: String::new(),
        };
        n.summary = n.summarise();
        n
    }

    /// The same with the run's (rounds, rounds in a spell), the summary
    /// written again.
    pub fn with_rounds(mut self, (rounds, disturbed): (u64, u64)) -> Noise {
        self.rounds = Some(rounds);
        self.rounds_disturbed = Some(disturbed);
        self.summary = self.summarise();
        self
    }

    /// The share of the run's side-by-side rounds that fell in a spell, in
    /// percent (None without rounds).
    pub fn disturbed_percent(&self) -> Option<f64> {
        match (self.rounds, self.rounds_disturbed) {
            (Some(r), Some(d)) if r > 0 => Some(100.0 * d as f64 / r as f64),
            _ => None,
        }
    }

    fn summarise(&self) -> String {
        let (before, after) = (&self.before, &self.after);
        let mut parts = Vec::new();
        if let Some(s) = self.steal_percent {
            parts.push(format!("steal time {s:.2}% of CPU time over the run"));
        }
        let cv = |p: &NoiseProbe| p.robust_cv * 100.0;
        let drift_of = |b: &NoiseProbe, a: &NoiseProbe| (a.median_ns / b.median_ns - 1.0) * 100.0;
        match (before, after) {
            (Some(b), Some(a)) => parts.push(format!(
                "calibration loop robust CV {:.1}% before, {:.1}% after, its median {:+.1}% from \
                 before to after",
                cv(b),
                cv(a),
                drift_of(b, a)
            )),
            (Some(b), None) => parts.push(format!(
                "calibration loop robust CV {:.1}% before the run",
                cv(b)
            )),
            _ => {}
        }
        let disturbed = self.disturbed_percent();
        if let (Some(p), Some(r)) = (disturbed, self.rounds) {
            parts.push(format!(
                "{p:.1}% of the {r} side-by-side rounds fell in a spell (most members of the \
                 group over 10% slower than usual together; left out of the paired ratios where \
                 20 others remain)"
            ));
        }
        let worst = [before, after]
            .iter()
            .filter_map(|p| p.as_ref().map(cv))
            .fold(0.0, f64::max);
        let drift = match (before, after) {
            (Some(b), Some(a)) => drift_of(b, a).abs(),
            _ => 0.0,
        };
        let steal = self.steal_percent.unwrap_or(0.0);
        let spells = disturbed.unwrap_or(0.0);
        let verdict = if worst <= 2.0 && drift <= 2.0 && steal <= 1.0 && spells <= 2.0 {
            "a quiet machine: a 5% difference between two points is likely real even when they \
             were not sampled side by side (a spell over a whole group shows only when the run \
             is repeated)"
        } else if worst <= 5.0 && drift <= 5.0 && steal <= 5.0 && spells <= 10.0 {
            "a somewhat noisy machine: trust a 5% difference only from the paired ratios of \
             implementations sampled side by side"
        } else {
            "a noisy machine: a 5% difference between separately measured points means nothing \
             here; only the paired ratios, with their intervals, compare implementations"
        };
        if !parts.is_empty() {
            parts.push(verdict.into());
        }
        parts.join("; ")
    }
}

/// How long one suite of a run took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteTime {
    /// The suite, or the pass of one with a name of its own (`multi`).
    pub suite: String,
    pub seconds: f64,
}

/// One public-key point: an (algorithm, backend, operation) of `ango pk`,
/// every call timed on its own. One JSON line per point in
/// `results.jsonl`; the kept per-call times are in `pk-samples.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PkRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// The exact version string of the library that was measured (ango's
    /// own for its implementations); empty in records written before this
    /// field existed.
    #[serde(default)]
    pub library_version: String,
    pub algorithm: String,
    /// `kem` or `sig`.
    pub kind: String,
    pub operation: String,
    /// `operation` (contexts, fetched algorithms and parsed keys made before
    /// the clock and reused, as `openssl speed` does) or `api-call` (each
    /// call sets up for itself). `api-call` for records written before this
    /// field existed.
    #[serde(default = "timing_api_call")]
    pub timing: String,
    pub backend: String,
    /// The provider's variant when it has several of this algorithm
    /// (libcrux: `portable`, `avx2`); null otherwise.
    #[serde(default)]
    pub variant: Option<String>,
    pub implementation: String,
    /// Calls timed and kept (after dropping the first `dropped`).
    pub iterations: u64,
    /// Calls timed and dropped (the first, warm-up call).
    pub dropped: u64,
    /// Message length for sign and verify (random bytes, new per run).
    pub message_bytes: Option<u64>,
    /// Statistics over the kept calls, ns per call (flattened: `median_ns`,
    /// `q1_ns`, … `p95_ns`, `p99_ns`, `robust_cv`, `ci95_low_ns`,
    /// `ci95_high_ns`).
    #[serde(flatten)]
    pub stats: crate::Stats,
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
    /// How many workers timed this operation at once, each on its own CPU
    /// (`--multi`); 1 otherwise. With more than one, the statistics pool
    /// every worker's calls and `multi` holds the operations per second.
    #[serde(default = "one_worker")]
    pub workers: u32,
    #[serde(default)]
    pub multi: Option<MultiCore>,
}

/// Every kept per-call time of one public-key point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PkSamples {
    pub run_id: String,
    pub algorithm: String,
    pub operation: String,
    /// As the record's `timing`.
    #[serde(default = "timing_api_call")]
    pub timing: String,
    pub backend: String,
    /// As the record's `variant`.
    #[serde(default)]
    pub variant: Option<String>,
    /// Nanoseconds per call, in the order measured.
    pub sample_ns: Vec<f64>,
    /// Cycles per call (same order), when a cycle source was available.
    pub sample_cycles: Option<Vec<u64>>,
    /// As in the record.
    #[serde(default = "one_worker")]
    pub workers: u32,
}

/// How tables, charts and findings name a point's implementation: the
/// backend, with the variant for a provider that has several
/// (`libcrux[avx2]`).
pub fn who(backend: &str, variant: Option<&str>) -> String {
    match variant {
        Some(v) => format!("{backend}[{v}]"),
        None => backend.to_string(),
    }
}

impl PkRecord {
    /// See [`who`].
    pub fn who(&self) -> String {
        who(&self.backend, self.variant.as_deref())
    }
}

impl PkSamples {
    /// See [`who`].
    pub fn who(&self) -> String {
        who(&self.backend, self.variant.as_deref())
    }
}

/// Seed 003's stacked-bar legend, client view (figure 19: 1 → A → B → 2 →
/// 3 → 4 → D → E → 5 → 6 → 7 → 8 → 9), as snake_case names of its labels.
pub const TLS_CLIENT_VIEW: [&str; 12] = [
    "syn_sending",
    "syn_rcv_to_ack_syn_send",
    "ack_syn_sending",
    "ack_syn_send_to_ack_send",
    "ack_send_to_client_hello_send",
    "client_hello_sending",
    "client_hello_rcv_to_server_hello_send",
    "server_hello_sending",
    "server_hello_rcv_to_certificate_rcv",
    "certificate_rcv_to_certificate_verify_rcv",
    "certificate_verify_rcv_to_finished_rcv",
    "finished_rcv_to_finished_send",
];

/// The same, server view (1 → A → B → 2 → 3 → C → D → E → F → G → H → 8 → 9).
pub const TLS_SERVER_VIEW: [&str; 12] = [
    "syn_sending",
    "syn_rcv_to_ack_syn_send",
    "ack_syn_sending",
    "ack_syn_send_to_ack_send",
    "ack_sending",
    "ack_rcv_to_client_hello_rcv",
    "client_hello_rcv_to_server_hello_send",
    "server_hello_send_to_certificate_send",
    "certificate_send_to_certificate_verify_send",
    "certificate_verify_send_to_finished_send",
    "finished_sending",
    "finished_rcv_to_finished_send",
];

/// TCP as the kernel saw it during one combination's handshakes (medians
/// over handshakes unless said otherwise).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TlsTcp {
    /// MSS the server sends with (`TCP_INFO` `tcpi_snd_mss`).
    pub server_mss: Option<f64>,
    /// MSS the client sends with.
    pub client_mss: Option<f64>,
    /// The server's congestion window in segments right after `accept()`
    /// (the initial window) and after the handshake.
    pub server_initial_cwnd: Option<f64>,
    pub server_cwnd_after: Option<f64>,
    /// Retransmitted segments in all handshakes, per direction (captures).
    pub retransmissions_c2s: u64,
    pub retransmissions_s2c: u64,
    /// Congestion control of the sockets (`TCP_CONGESTION`).
    pub congestion_control: String,
}

/// The captures of one combination.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TlsCapture {
    /// pcap files (nanosecond, raw IP) relative to the results directory,
    /// and the key-log file Wireshark decrypts them with.
    pub client_pcap: Option<String>,
    pub server_pcap: Option<String>,
    pub keylog: Option<String>,
    /// Handshakes whose packets are in the pcap files (the first ones).
    pub handshakes_in_pcap: u64,
    /// Packets captured per side, and packets the kernel dropped.
    pub client_packets: u64,
    pub server_packets: u64,
    pub kernel_drops: u64,
    /// Handshakes whose wire timeline was complete (every point found).
    pub handshakes_timed: u64,
    /// Up to five reasons other handshakes were not timed on the wire.
    pub problems: Vec<String>,
}

/// One combination of the TLS 1.3 handshake lab (`ango tls`): one JSON line
/// of `results.jsonl`. Every handshake's timeline is in
/// `tls-timelines.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// The exact version string of the library that was measured (ango's
    /// own for its implementations); empty in records written before this
    /// field existed.
    #[serde(default)]
    pub library_version: String,
    /// The TLS stack of each side: `openssl` or `rustls` (`openssl` in
    /// records written before rustls joined the lab).
    #[serde(default = "openssl_stack")]
    pub client_stack: String,
    #[serde(default = "openssl_stack")]
    pub server_stack: String,
    /// Each side's exact library version (empty in older records, whose
    /// `library_version` is OpenSSL's).
    #[serde(default)]
    pub client_library_version: String,
    #[serde(default)]
    pub server_library_version: String,
    pub group: String,
    pub server_sig: String,
    pub ca_sig: String,
    /// Handshakes attempted.
    pub handshakes: u64,
    pub failures: u64,
    pub failure_examples: Vec<String>,
    /// Client view: `connect()` to the end of the handshake, successful
    /// handshakes only, as an object with unsuffixed names (`median, q1,
    /// q3, p95, mean, sd, min, max, p99, robust_cv, ci95_low, ci95_high`).
    /// Null if none succeeded.
    #[serde(with = "crate::stats::plain")]
    pub handshake_ns: Option<crate::Stats>,
    /// Median of each phase of seed 003's legend ([`TLS_CLIENT_VIEW`] and
    /// [`TLS_SERVER_VIEW`]), ns, from the wire times of the captures.
    pub phases_ns: std::collections::BTreeMap<String, f64>,
    /// Seed Tables 10–12: client time from ServerHello received to its
    /// Finished sent (wire, 5 → 9), median ns.
    pub client_sh_rcv_to_finished_send_ns: Option<f64>,
    /// Seed Figs 9–12: server time from ServerHello sent to Finished sent
    /// (wire, E → H), median ns.
    pub server_sh_send_to_finished_send_ns: Option<f64>,
    /// In-process times from OpenSSL's message callback, medians, ns
    /// (`client_sh_read_to_finished_write`, `server_ch_read_to_finished_write`,
    /// `server_sh_write_to_finished_write`).
    pub openssl_ns: std::collections::BTreeMap<String, f64>,
    /// The same intervals for a side that runs rustls, from ango's I/O loop
    /// around the connection (flight resolution: a flight's first message
    /// at its first socket write, its last at its last write; a read when
    /// the bytes completing it were processed).
    #[serde(default)]
    pub rustls_io_ns: std::collections::BTreeMap<String, f64>,
    /// Bytes of the server's flight (TCP payload from its first byte to the
    /// end of the record holding its Finished), median.
    pub server_flight_bytes: Option<f64>,
    /// TCP segments the server sent for that flight (seed Table 9), median.
    pub server_flight_segments: Option<f64>,
    /// TCP segments of the client's first flight (ClientHello), median.
    pub client_flight_segments: Option<f64>,
    /// TCP segments of the client's second flight (its Finished), median.
    pub client_finished_segments: Option<f64>,
    /// The server's write calls to its socket for that flight (an OpenSSL
    /// server flushes its 4096-byte handshake write buffer when it fills
    /// and at the end of the flight), median over the handshakes; null
    /// for a server whose writes were not seen (rustls, two hosts, older
    /// records).
    #[serde(default)]
    pub server_flight_writes: Option<f64>,
    /// Bytes of the first of those write calls, median.
    #[serde(default)]
    pub server_first_write_bytes: Option<f64>,
    /// The longest time between two of those write calls (the wait for the
    /// rest of the flight after a full buffer left), median over the
    /// handshakes with more than one write.
    #[serde(default)]
    pub server_write_gap_ns: Option<f64>,
    pub tcp: TlsTcp,
    pub capture: TlsCapture,
    /// DER bytes of the certificates the server sends: its own (the root
    /// CA is held by the client, not sent).
    pub cert_chain_bytes: u64,
    pub server_cert_bytes: u64,
    pub ca_cert_bytes: u64,
    /// RTT measured on the link before the run (median of TCP echoes), and
    /// the RTT asked (2 × one-way delay); null in loopback mode.
    pub rtt_ns: Option<f64>,
    pub rtt_asked_ns: f64,
    /// RTT of the relayed path with no added delay, and the one-way delay
    /// the relay adds after fitting the RTT to the asked one (null without
    /// a relay delay).
    pub rtt_base_ns: Option<f64>,
    pub link_delay_ns: Option<f64>,
    /// `veth`, `tun-relay` or `loopback`.
    pub link: String,
    /// Attempts the server counted as bad during this combination.
    pub server_bad_attempts: u64,
    /// True if Ctrl-C stopped this combination before all its handshakes.
    pub cut_short: bool,
    /// A two-host run (`ango tls --connect`): the server's host, the
    /// offset of its clock and what it captured; null in the one-host lab.
    #[serde(default)]
    pub two_host: Option<TlsTwoHost>,
    pub method: String,
    pub time: String,
}

/// What a two-host record adds: the server is another host, reached over
/// an authenticated control connection, with its own clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsTwoHost {
    /// The server's control address, as given to `--connect`.
    pub server: String,
    /// The server's host name and run id (its own results directory).
    pub server_host: String,
    pub server_run_id: String,
    /// Whether the server captured its packets (it needs root); without
    /// its capture the server-side points and phases are missing.
    pub server_captured: bool,
    /// Server clock minus client clock, ns: the mean of NTP-style estimates
    /// over the control connection just before and just after the
    /// combination (each the sample with the least round-trip delay).
    pub clock_offset_ns: f64,
    /// Bound on the offset's error, ns: half the best sample's round-trip
    /// delay (the most the path's asymmetry can shift it), plus half the
    /// change between the two estimates (drift during the combination).
    pub clock_offset_uncertainty_ns: f64,
    /// Round-trip delay of the best clock sample, ns.
    pub clock_rtt_ns: f64,
    /// Clock samples taken for this combination.
    pub clock_samples: u64,
    /// Phases that start on one host and end on the other: each carries
    /// ± `clock_offset_uncertainty_ns`. Every other phase is a difference
    /// of two times on one host's clock, untouched by the offset.
    pub cross_host_phases: Vec<String>,
}

/// Seed 003's definition of X25519 as a KEM, stated in every X25519 record.
pub const X25519_NOTE: &str = "X25519 as a KEM, as seed 003 defines it: encaps = what a TLS \
     client does (an ephemeral key pair and the shared secret with the peer's public key), \
     decaps = the peer's shared-secret computation (the ciphertext is the ephemeral public key)";

/// What the signed message is, stated in the output.
pub fn message_note(bytes: usize) -> String {
    format!(
        "sign/verify use a message of {bytes} random bytes (new each run), passed whole to the \
         scheme, which hashes it as its standard says (RSA-PSS and ECDSA: SHA-256)"
    )
}

fn openssl_stack() -> String {
    "openssl".into()
}
