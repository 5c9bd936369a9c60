//! Command-line options. Values are taken as strings and checked by ango
//! itself, so every bad value gets one line naming the valid choices.

use ango_core::{algo::names, Algorithm, Error, Hw, Operation, Result};
use ango_study::speed::{SpeedSpec, DEFAULT_AAD, DEFAULT_SIZES};
use clap::{Args, Parser, Subcommand};

mod parse;
pub(crate) use parse::{list, parse_num};
pub use parse::{parse_cpu, parse_multi, parse_sizes, parse_sizes_from};

#[derive(Parser, Debug)]
#[command(
    name = "ango",
    version,
    about = "Verify, measure and compare cryptographic algorithms on this machine",
    term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// The main job: the default study, written to a results directory with a report.
    Run(RunArgs),
    /// The symmetric speed study of seed 000 (throughput by message size).
    Speed(SpeedArgs),
    /// The latency study of seed 001: ns per message at every length, every variant and backend.
    Latency(SpeedArgs),
    /// The public-key study of seed 003: KEMs and signatures, every call timed on its own.
    Pk(PkArgs),
    /// The TLS 1.3 handshake lab of seed 003 §4-3 (first part: handshake times per combination).
    Tls(Box<TlsArgs>),
    /// Compare two results directories, or two configurations of one (DIR@hw=on DIR@hw=off).
    Compare(CompareArgs),
    /// Load results directories into the results store (SQLite in the data directory by default,
    /// `--db sqlite:PATH`, or PostgreSQL with `--db postgres://…`), one transaction per run.
    Import(ImportArgs),
    /// An eBACS-style table across machines from the results store (rows × columns of stored points).
    Table(TableArgs),
    /// Regressions on one testbed: its newest run against a baseline run or its stored history
    /// (Mann-Whitney U on the raw samples); exits 1 when something got slower.
    Check(CheckArgs),
    /// Stored points, or one results directory's, as the Bencher Metric Format, CSV or Parquet.
    Export(ExportArgs),
    /// Every algorithm × backend × implementation, available or not (with the reason).
    List(FormatArgs),
    /// What the measurements run on: CPU, flags, frequency policy, kernel, libraries, timers.
    Env(FormatArgs),
    /// Rebuild report.html of a results directory from what it holds.
    Report(ReportArgs),
    /// Run every known-answer test and cross-backend check, and print a pass/fail table.
    Verify(VerifyArgs),
    /// Constant-time checks: valgrind memcheck with secrets marked undefined, and dudect's t-test.
    Ct(CtArgs),
    /// Seed 002's study: cycles per key schedule and per block (chained), beside the throughput per block.
    Cycles(CyclesArgs),
    /// Choose ango's `auto` variants for this CPU by measuring every variant at 16 B … 16 KiB, and
    /// cache the choice per CPU model and microcode.
    Tune(TuneArgs),
    /// Seed 004's record overhead: wire bytes of one TLS record per cipher suite and length.
    #[command(name = "tls-records")]
    TlsRecords(TlsRecordsArgs),
    /// Seed 004's negotiation matrix: client profiles × server cipher-suite policies × TLS versions.
    #[command(name = "tls-policy")]
    TlsPolicy(TlsPolicyArgs),
    /// The server host of a two-host TLS run: serves the lab's certificates to `ango tls --connect`.
    #[command(name = "tls-server")]
    TlsServer(TlsServerArgs),
    /// Internal: measure in a child process with a different environment.
    #[command(name = "__worker", hide = true)]
    Worker,
    /// Internal: one endpoint of `ango tls --bulk`, in its own process.
    #[command(name = "__tls-endpoint", hide = true)]
    TlsEndpoint,
    /// Internal: one public-key operation between two massif snapshots (`ango pk --massif`).
    #[command(name = "__memory-probe", hide = true)]
    MemoryProbe {
        #[arg(long, value_name = "A")]
        algo: String,
        #[arg(long, value_name = "B")]
        backend: String,
        #[arg(long, value_name = "OP")]
        op: String,
        #[arg(long, value_name = "N", default_value_t = 32)]
        message_bytes: usize,
        #[arg(long, value_name = "PATH")]
        window: std::path::PathBuf,
        #[arg(long, default_value_t = 1)]
        calls: usize,
    },
    /// Internal: run constant-time targets under valgrind, one after the other.
    #[command(name = "__ct-worker", hide = true)]
    CtWorker { ids: Vec<String> },
}

#[derive(Args, Debug, Clone)]
pub struct TlsServerArgs {
    /// The control address `ango tls --connect` reaches: IPv4 ADDR:PORT (0.0.0.0 for every
    /// interface; port 0 picks a free one). The TLS port is picked per session and told the client.
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: String,
    /// A file holding a shared key (at least 16 bytes) instead of a token printed at start
    /// [default: none: a fresh token is printed].
    #[arg(long = "key-file", value_name = "PATH")]
    pub key_file: Option<std::path::PathBuf>,
    /// Write the server's results directory here: its pcaps, key log, server.jsonl and
    /// server_timelines.jsonl [default: tls-server-RUN_ID in the current directory].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Do not capture packets.
    #[arg(long = "no-capture")]
    pub no_capture: bool,
    /// End after the first authenticated session.
    #[arg(long)]
    pub once: bool,
    /// Connections per combination whose packets its pcap keeps (the first ones), or all.
    #[arg(long = "pcap-handshakes", value_name = "N|all", default_value = "20")]
    pub pcap_handshakes: String,
    /// Tests: report every time this many ns off (a clock the client must correct).
    #[arg(
        long = "clock-shift-ns",
        value_name = "NS",
        hide = true,
        allow_hyphen_values = true
    )]
    pub clock_shift_ns: Option<String>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct TlsRecordsArgs {
    /// Cipher suites by IANA name, comma-separated, or all [default: the four TLS 1.2 ECDHE-ECDSA
    /// suites of seed 004 and the five TLS 1.3 suites].
    #[arg(long, value_name = "LIST")]
    pub suite: Option<String>,
    /// Plaintext bytes per record, 1 to 16384: a list or START:END:STEP [default:
    /// 1,16,256,1024,16384].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub sizes: Option<String>,
    /// table, json (one record per point), csv, md or html (the report page).
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl with `suite: tls-records`, env.json, the
    /// report, and as root the pcap files and key log) [default: none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct TlsPolicyArgs {
    /// Client profiles, comma-separated, or all: aes-first, chacha-first, openssl-default [default:
    /// all].
    #[arg(long, value_name = "LIST")]
    pub client: Option<String>,
    /// Server policies, comma-separated, or all: client-order, server-aes-first,
    /// server-chacha-first, server-aes-first+prioritize-chacha, rustls [default: all].
    #[arg(long, value_name = "LIST")]
    pub server: Option<String>,
    /// TLS versions: 1.2, 1.3 or both [default: both].
    #[arg(long = "tls-version", value_name = "LIST")]
    pub tls_version: Option<String>,
    /// Bytes per transfer of the bulk measurement behind the costs [default: 16MiB].
    #[arg(long, value_name = "SIZE")]
    pub bulk: Option<String>,
    /// Timed transfers per suite of that measurement [default: 3].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub repeats: Option<String>,
    /// Take the costs from the tls-bulk records of this results directory instead [default: none:
    /// measured in this run].
    #[arg(long = "costs-from", value_name = "DIR")]
    pub costs_from: Option<std::path::PathBuf>,
    /// Negotiate only; no costs.
    #[arg(long = "no-cost")]
    pub no_cost: bool,
    /// table, json, csv or md.
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl with `suite: tls-policy` and the `tls-bulk`
    /// records behind the costs, env.json, the report) [default: none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct CyclesArgs {
    /// Algorithms, comma-separated: ECB of a 128-bit block cipher or mugi [default: every key size
    /// of the CRYPTREC set, plus aes-128-ecb and aes-256-ecb for reference].
    #[arg(long, value_name = "LIST")]
    pub algo: Option<String>,
    /// Backends, comma-separated [default: every backend that provides the algorithm].
    #[arg(long, value_name = "LIST")]
    pub backend: Option<String>,
    /// Variants of ango's own code: all, auto, or names like camellia/table64-nct [default: all].
    #[arg(long = "impl", value_name = "LIST")]
    pub impls: Option<String>,
    /// Calls per sample [default: calibrated so a sample lasts 4 ms, 1 ms with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub iterations: Option<String>,
    /// Fewer and shorter samples (11 of 1 ms instead of 31 of 4 ms).
    #[arg(long)]
    pub quick: bool,
    /// table, json (one record per point), csv, md or html (the report page).
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl with `suite: cycles`, env.json) [default:
    /// none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct CtArgs {
    /// Targets: all, or implementations (aes/bitsliced, ghash/ctmul, aes/ttable-nct+ghash/4bit-nct,
    /// …), algorithms (aes-128-gcm) or backends (openssl) [default: all].
    #[arg(long = "impl", value_name = "LIST")]
    pub impl_: Option<String>,
    /// 20 000 measurements per dudect run instead of 200 000.
    #[arg(long)]
    pub quick: bool,
    /// table, json (one record per target), csv, md or html (the report page).
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl with `suite: ct`, events.jsonl, env.json,
    /// the report) [default: none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct SpeedArgs {
    /// Algorithms, comma-separated [default: all eleven].
    #[arg(long, value_name = "LIST")]
    pub algo: Option<String>,
    /// Backends, comma-separated [default: every backend that provides the algorithm].
    #[arg(long, value_name = "LIST")]
    pub backend: Option<String>,
    /// Message sizes in bytes: a list (16,64,256) or a range START:END:STEP [default:
    /// 16,64,256,1024,8192,16384; latency: 0:4096:16].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub sizes: Option<String>,
    /// Associated data per AEAD message, bytes (13 = a TLS record header) [default: 13].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub aad: Option<String>,
    /// encrypt, decrypt or both.
    #[arg(long, value_name = "OP", default_value = "encrypt")]
    pub op: String,
    /// on, off (AES-NI, PCLMULQDQ, VAES, VPCLMULQDQ removed), both, seed000 (seed 000's exact
    /// mask), all, or a list [default: on; run: both].
    #[arg(long, value_name = "HW")]
    pub hw: Option<String>,
    /// Seconds of sampling per point and implementation (those of one algorithm sample in
    /// turn) [default: 0.5; run 0.2; 0.08 with --quick (run 0.04); latency 0.05, 0.01 with
    /// --quick].
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    pub time: Option<String>,
    /// Exact number of samples per point, instead of --time [default: none: as many as --time
    /// allows].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub samples: Option<String>,
    /// kbps (1000s of bytes/s, as openssl speed), MBps, Gbps, cpb or ns [default: kbps; latency:
    /// ns].
    #[arg(long, value_name = "UNIT")]
    pub unit: Option<String>,
    /// table, json, csv, md or html (the self-contained report page).
    #[arg(long, value_name = "FORMAT", default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl, env.json, report.html) [default: none: print
    /// only; run: ango-results/DATE-HOST].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Short points (0.08 s each), for a first look.
    #[arg(long)]
    pub quick: bool,
    /// Variants of ango's own primitives: auto (per size class the variant a tuning measured
    /// fastest on this CPU), all (every named variant), or names like chacha20/sse2 (see `ango
    /// list`) [default: auto; latency: all].
    #[arg(long = "impl", value_name = "LIST")]
    pub impls: Option<String>,
    /// Give a point whose implementations' paired ratios are not yet steady (95% interval within
    /// ±1%) when its time is up up to N more times its time [default: 2; 0 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub retries: Option<String>,
    /// Pin the measurement (and its worker processes) to this CPU [default: none: unpinned].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub cpu: Option<String>,
    /// Measure every point with N workers at once, each pinned to its own CPU (like `openssl speed
    /// -multi`), after one worker alone: aggregate, per-worker and scaling figures. No number:
    /// every CPU this process may run on. In `ango run`: the workers of its multi-core pass
    /// [default: one worker; run: every CPU].
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "all")]
    pub multi: Option<String>,
    /// Do not tune: ango's `auto` runs the variant the CPU's feature flags pick, at every size
    /// [default: tuned, from the cache of `ango tune` or measured at the start].
    #[arg(long = "no-tune")]
    pub no_tune: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct TuneArgs {
    /// Algorithms, comma-separated [default: every algorithm of ango's with more than one
    /// variant that runs here].
    #[arg(long, value_name = "LIST")]
    pub algo: Option<String>,
    /// Shorter measurements.
    #[arg(long)]
    pub quick: bool,
    /// Print the cached tuning of this CPU and build without measuring (exit 1 if there is none).
    #[arg(long)]
    pub cached: bool,
    /// table, json, csv, md or html (a page of the choices).
    #[arg(long, default_value = "table")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub speed: SpeedArgs,
    /// Calls per public-key point in the run's public-key study (each point stops after 3 s,
    /// 0.5 s with --quick) [default: 300, 30 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub pk_iterations: Option<String>,
    /// Leave the public-key study out of the run.
    #[arg(long)]
    pub no_pk: bool,
    /// Leave the public-key study's memory pass (suite pk-memory) out of the run.
    #[arg(long)]
    pub no_memory: bool,
    /// Leave the TLS handshake lab out of the run.
    #[arg(long)]
    pub no_tls: bool,
    /// Leave the constant-time checks (`ango ct --quick`) out of the run.
    #[arg(long)]
    pub no_ct: bool,
    /// Leave seed 002's cycle study (`ango cycles`) out of the run.
    #[arg(long)]
    pub no_cycles: bool,
    /// Leave the multi-core pass (the AEADs at 16 KiB on every CPU at once) out of the run.
    #[arg(long)]
    pub no_multi: bool,
    /// Leave the symmetric speed study out of the run.
    #[arg(long)]
    pub no_speed: bool,
    /// Leave seed 001's latency study (`ango latency`) out of the run.
    #[arg(long)]
    pub no_latency: bool,
    /// Leave seed 004's record overhead (`ango tls-records`) out of the run.
    #[arg(long)]
    pub no_tls_records: bool,
    /// Leave seed 004's bulk throughput (`ango tls --bulk`) out of the run; the policy matrix
    /// then goes unpriced.
    #[arg(long)]
    pub no_bulk: bool,
    /// Leave seed 004's negotiation matrix (`ango tls-policy`) out of the run.
    #[arg(long)]
    pub no_policy: bool,
    /// Handshakes per combination in the run's TLS lab [default: 200, 50 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub tls_handshakes: Option<String>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct TlsArgs {
    /// Key-exchange groups: x25519, ml-kem-512, ml-kem-768, ml-kem-1024, x25519mlkem768 [default:
    /// all five; --quick: x25519, x25519mlkem768].
    #[arg(long, value_name = "LIST")]
    pub groups: Option<String>,
    /// Server certificate signatures: rsa-2048, rsa-3072, p-256, ed25519, ml-dsa-44/65/87, and
    /// through rustls with liboqs mayo-1, mayo-2, cross-rsdp(g)-128-balanced/fast/small, ov-is, ov-ip,
    /// ov-is-pkc, ov-ip-pkc, ov-is-pkc-skc, ov-ip-pkc-skc [default: rsa-2048, rsa-3072, p-256,
    /// ml-dsa-44; --quick: rsa-2048, ml-dsa-44].
    #[arg(long = "server-sig", value_name = "LIST")]
    pub server_sig: Option<String>,
    /// CA signatures (same choices) [default: rsa-2048, rsa-3072, p-256, ml-dsa-44; --quick: p-256].
    #[arg(long = "ca-sig", value_name = "LIST")]
    pub ca_sig: Option<String>,
    /// Handshakes per combination, each on a fresh TCP connection [default: 1000; 50 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub handshakes: Option<String>,
    /// Round-trip time of the emulated link (half each way), e.g. 1ms, 20ms, 0 [default: 1ms].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub rtt: Option<String>,
    /// Jitter of each one-way delay (uniform ±) [default: 0].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub jitter: Option<String>,
    /// Packet loss in percent, each direction [default: 0].
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub loss: Option<String>,
    /// Link rate, e.g. 100mbit [default: unlimited].
    #[arg(long, value_name = "RATE")]
    pub rate: Option<String>,
    /// Link MTU in bytes [default: the interface's own, 1500 on a veth pair].
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub mtu: Option<String>,
    /// TCP congestion control in both namespaces (e.g. cubic, reno, bbr) [default: the kernel's].
    #[arg(long, value_name = "NAME")]
    pub cc: Option<String>,
    /// Run on 127.0.0.1 without namespaces or link emulation (no root needed).
    #[arg(long)]
    pub loopback: bool,
    /// table, json, csv, md or html (the self-contained report page).
    #[arg(long, value_name = "FORMAT", default_value = "table")]
    pub format: String,
    /// Write a results directory here [default: none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// A small matrix (x25519 and x25519mlkem768 × rsa-2048 and ml-dsa-44 by p-256), 50 handshakes.
    #[arg(long)]
    pub quick: bool,
    /// What emulates delay, jitter and loss: auto (the kernel's netem where it exists, else ango's relay), netem or relay.
    #[arg(long, value_name = "auto|netem|relay", default_value = "auto")]
    pub emulator: String,
    /// Do not capture packets (no wire times, phases or flight sizes).
    #[arg(long = "no-capture")]
    pub no_capture: bool,
    /// Handshakes per combination whose packets are kept as pcap files in
    /// the results directory (the first ones; every handshake is analysed), or all.
    #[arg(long = "pcap-handshakes", value_name = "N|all", default_value = "20")]
    pub pcap_handshakes: String,
    /// The client's TLS stack(s): openssl, rustls, or both (every pairing with --server-stack)
    /// [default: openssl].
    #[arg(long = "client-stack", value_name = "LIST")]
    pub client_stack: Option<String>,
    /// The server's TLS stack(s): openssl, rustls, or both [default: openssl].
    #[arg(long = "server-stack", value_name = "LIST")]
    pub server_stack: Option<String>,
    /// Bulk mode (seed 004): send this many application bytes over one TLS connection per
    /// suite and repeat, e.g. 64MiB, and report CPU time per byte on each side and MB/s
    /// [default: none: the handshake lab].
    #[arg(long, value_name = "SIZE")]
    pub bulk: Option<String>,
    /// Bulk mode: cipher suites by IANA name, comma-separated, or all [default: the four TLS 1.2
    /// ECDHE-ECDSA suites of seed 004 and the five TLS 1.3 suites].
    #[arg(long, value_name = "LIST")]
    pub suite: Option<String>,
    /// Bulk mode: the client process's hardware setting(s): on, off, seed000 (each one a
    /// `speed --hw` setting, applied through OPENSSL_ia32cap), comma-separated [default: on,off].
    #[arg(long = "client-hw", value_name = "LIST")]
    pub client_hw: Option<String>,
    /// Bulk mode: the server process's hardware setting(s), as --client-hw [default: on].
    #[arg(long = "server-hw", value_name = "LIST")]
    pub server_hw: Option<String>,
    /// Bulk mode: timed transfers per suite [default: 5].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub repeats: Option<String>,
    /// Bulk mode: how long a transfer may make no progress before it is an error [default: 30s].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub timeout: Option<String>,
    /// Two hosts: be the client of an `ango tls-server` at ADDR:PORT (its control address);
    /// the handshakes cross the real network between the two machines [default: none: the
    /// one-host lab].
    #[arg(long, value_name = "ADDR:PORT")]
    pub connect: Option<String>,
    /// With --connect: the token the tls-server printed at start [default: the ANGO_TLS_TOKEN
    /// environment variable].
    #[arg(long, value_name = "HEX")]
    pub token: Option<String>,
    /// With --connect: the shared key file the tls-server was started with, instead of a token
    /// [default: none].
    #[arg(long = "key-file", value_name = "PATH")]
    pub key_file: Option<std::path::PathBuf>,
}

impl TlsArgs {
    pub fn spec(&self, run_id: &str) -> Result<ango_tls::run::TlsSpec> {
        use ango_core::PkAlgorithm;
        use ango_tls::run;
        let bulk_only = self.bulk_only();
        if !bulk_only.is_empty() {
            return Err(Error::usage(format!(
                "{} apply to --bulk SIZE only (e.g. --bulk 64MiB); the handshake matrix takes \
                 --groups, --server-sig, --ca-sig and --handshakes",
                bulk_only.join(", ")
            )));
        }
        let algos = |flag: &str,
                     s: Option<&str>,
                     default: &[PkAlgorithm],
                     quick: &[PkAlgorithm],
                     ok: &[PkAlgorithm]|
         -> Result<Vec<PkAlgorithm>> {
            let v = match s {
                None if self.quick => quick.to_vec(),
                None => default.to_vec(),
                Some(s) => {
                    ango_core::algo::list_items(s, flag, &names(ok.iter().map(|a| a.name())))?;
                    PkAlgorithm::parse_list(s)?
                }
            };
            for a in &v {
                if let Some(why) = ango_tls::pqsig::why_not(*a) {
                    return Err(Error::usage(format!(
                        "{flag}: no {a} certificates here: {why}; valid: {}",
                        names(ok.iter().map(|a| a.name()))
                    )));
                }
                if !ok.contains(a) {
                    return Err(Error::usage(format!(
                        "{flag}: '{a}' is not offered here; valid: {}",
                        names(ok.iter().map(|a| a.name()))
                    )));
                }
            }
            Ok(v)
        };
        let groups = algos(
            "--groups",
            self.groups.as_deref(),
            run::DEFAULT_GROUPS,
            &[PkAlgorithm::X25519, PkAlgorithm::X25519MlKem768],
            ango_tls::handshake::GROUPS,
        )?;
        // OpenSSL's signatures and the OQS schemes rustls runs with liboqs.
        let lab_sigs: Vec<PkAlgorithm> = ango_tls::certs::SUPPORTED
            .iter()
            .copied()
            .chain(ango_tls::pqsig::OQS_SIGS.iter().map(|s| s.alg))
            .collect();
        let server_sigs = algos(
            "--server-sig",
            self.server_sig.as_deref(),
            run::DEFAULT_SIGS,
            &[PkAlgorithm::Rsa2048, PkAlgorithm::MlDsa44],
            &lab_sigs,
        )?;
        let ca_sigs = algos(
            "--ca-sig",
            self.ca_sig.as_deref(),
            run::DEFAULT_SIGS,
            &[PkAlgorithm::P256],
            &lab_sigs,
        )?;
        let handshakes = match &self.handshakes {
            Some(s) => parse_num("--handshakes", s, 1usize, 10_000_000)?,
            None if self.quick => 50,
            None => 1000,
        };
        let link = self.link("1ms")?;
        let stacks = |flag: &str, v: &Option<String>| match v {
            Some(s) => ango_tls::rustls_stack::Stack::parse_list(flag, s),
            None => Ok(vec![ango_tls::rustls_stack::Stack::OpenSsl]),
        };
        let client_stacks = stacks("--client-stack", &self.client_stack)?;
        let server_stacks = stacks("--server-stack", &self.server_stack)?;
        ango_report::export::Format::parse(&self.format)?;
        let spec = run::TlsSpec {
            run_id: run_id.to_string(),
            groups,
            server_sigs,
            ca_sigs,
            handshakes,
            link,
            client_stacks,
            server_stacks,
            loopback: self.loopback,
            capture: !self.no_capture,
            capture_dir: self.out.clone(),
            pcap_handshakes: match self.pcap_handshakes.as_str() {
                "all" => None,
                s => Some(parse_num("--pcap-handshakes", s, 0usize, 10_000_000).map_err(|_| {
                    Error::usage(format!(
                        "invalid --pcap-handshakes '{s}'; give a number of handshakes (0 keeps no pcap) or all"
                    ))
                })?),
            },
        };
        check_tls_matrix(&spec)?;
        Ok(spec)
    }

    /// The link options (`--rtt` defaulting to `default_rtt`, `--jitter`,
    /// `--loss`, `--rate`, `--mtu`, `--cc`, `--emulator`), checked against
    /// `--loopback`.
    pub fn link(&self, default_rtt: &str) -> Result<ango_tls::link::LinkOpts> {
        use ango_tls::run;
        let rtt = run::parse_duration("--rtt", self.rtt.as_deref().unwrap_or(default_rtt))?;
        let jitter = match &self.jitter {
            Some(s) => run::parse_duration("--jitter", s)?,
            None => std::time::Duration::ZERO,
        };
        let loss_pct = match &self.loss {
            Some(s) => parse_num("--loss", s, 0.0f64, 100.0)?,
            None => 0.0,
        };
        let rate_bps = self.rate.as_deref().map(run::parse_rate).transpose()?;
        let mtu = match &self.mtu {
            Some(s) => Some(parse_num("--mtu", s, 576u32, 65_535)?),
            None => None,
        };
        if let Some(cc) = &self.cc {
            let avail =
                std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
                    .unwrap_or_default();
            if !avail.split_whitespace().any(|a| a == cc) {
                return Err(Error::usage(format!(
                    "invalid --cc '{cc}'; valid here: {} (others need their kernel module loaded)",
                    avail.split_whitespace().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        if self.loopback
            && (self.rtt.is_some()
                || self.loss.is_some()
                || self.rate.is_some()
                || self.jitter.is_some()
                || self.mtu.is_some()
                || self.cc.is_some())
        {
            return Err(Error::usage(
                "--loopback has no link to emulate; drop --rtt, --jitter, --loss, --rate, --mtu and --cc, or drop --loopback",
            ));
        }
        Ok(ango_tls::link::LinkOpts {
            delay: rtt / 2,
            jitter,
            loss_pct,
            rate_bps,
            mtu,
            congestion_control: self.cc.clone(),
            emulator: ango_tls::link::Emulator::parse(&self.emulator).ok_or_else(|| {
                Error::usage(format!(
                    "invalid --emulator '{}'; valid: auto, netem, relay",
                    self.emulator
                ))
            })?,
        })
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct PkArgs {
    /// Algorithms, comma-separated, or all, default, kem, sig [default: default, seed 003's set and
    /// the additions].
    #[arg(long, value_name = "LIST")]
    pub algo: Option<String>,
    /// Backends, comma-separated [default: every public-key backend built in].
    #[arg(long, value_name = "LIST")]
    pub backend: Option<String>,
    /// Operations: keygen, encaps, decaps, sign, verify, or all.
    #[arg(long, value_name = "LIST", default_value = "all")]
    pub ops: String,
    /// Calls timed per point, each on its own; one more is made first and dropped [default: 1000;
    /// 50 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub iterations: Option<String>,
    /// Length of the signed message in bytes (random bytes; the schemes hash it themselves)
    /// [default: 32].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub message_bytes: Option<String>,
    /// Longest time one point may take; it stops early, says so, and keeps what it measured
    /// [default: 60 seconds].
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    pub max_time: Option<String>,
    /// table, json, csv, md or html (the self-contained report page).
    #[arg(long, value_name = "FORMAT", default_value = "table")]
    pub format: String,
    /// Write a results directory here (results.jsonl, pk-samples.jsonl, env.json, report.html)
    /// [default: none: print only].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// 50 calls per point, for a first look.
    #[arg(long)]
    pub quick: bool,
    /// How each operation is timed: operation (contexts and parsed keys made
    /// before the clock and reused, as openssl speed does), api-call (each
    /// call sets up for itself), or both (one record each; tables show
    /// operation).
    #[arg(long, value_name = "WHICH", default_value = "both")]
    pub timing: String,
    /// Time every operation with N workers at once, each pinned to its own CPU with its own
    /// instance, after one worker alone: aggregate operations per second, per worker and scaling.
    /// No number: every CPU this process may run on [default: one worker].
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "all")]
    pub multi: Option<String>,
    /// Also measure the memory of every operation (suite pk-memory): the peak stack and heap of
    /// one call, maxima and medians over --memory-calls calls, as timing: operation makes them.
    #[arg(long)]
    pub memory: bool,
    /// Calls per point of the memory pass, after 3 warm-up calls [default: 100; 10 with --quick].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub memory_calls: Option<String>,
    /// With --memory: run every point again under valgrind massif (--stacks=yes), one process per
    /// point, and state the agreement (slow: minutes).
    #[arg(long)]
    pub massif: bool,
}

impl PkArgs {
    /// The memory pass that `--memory` asks for, after the pk study of
    /// `pk`; None without it. `--memory` with `--multi` or `--timing
    /// api-call`, and `--memory-calls` or `--massif` without `--memory`,
    /// are refused.
    pub fn memory_spec(
        &self,
        pk: &ango_study::pk::PkSpec,
    ) -> Result<Option<ango_study::pk_memory::PkMemorySpec>> {
        use ango_study::pk_memory as m;
        if !self.memory {
            if self.memory_calls.is_some() || self.massif {
                return Err(Error::usage(format!(
                    "{} needs --memory (the memory pass it sets up)",
                    if self.massif {
                        "--massif"
                    } else {
                        "--memory-calls"
                    }
                )));
            }
            return Ok(None);
        }
        if self.multi.is_some() {
            return Err(Error::usage(
                "--memory cannot be combined with --multi: the heap counters are the process's, \
                 so one call is measured at a time; run the memory pass without --multi",
            ));
        }
        if !pk.timings.contains(&ango_core::Timing::Operation) {
            return Err(Error::usage(
                "--memory cannot be combined with --timing api-call: the memory pass measures the \
                 calls timing: operation makes; use --timing operation or both",
            ));
        }
        let calls = match &self.memory_calls {
            Some(s) => parse_num("--memory-calls", s, 1usize, 1_000_000)?,
            None if self.quick => m::QUICK_CALLS,
            None => m::DEFAULT_CALLS,
        };
        let massif = if self.massif {
            Some(std::env::current_exe().map_err(|e| {
                Error::io(
                    "--massif: the path of this executable (the probe massif runs)",
                    e,
                )
            })?)
        } else {
            None
        };
        Ok(Some(m::PkMemorySpec {
            pk: pk.clone(),
            calls,
            massif,
        }))
    }

    /// Check every option and build the study's spec.
    pub fn spec(&self, run_id: &str) -> Result<ango_study::pk::PkSpec> {
        use ango_core::{PkAlgorithm, PkOp};
        use ango_study::pk;
        let algorithms = PkAlgorithm::parse_list(self.algo.as_deref().unwrap_or("default"))?;
        let catalog = ango_backends::catalog();
        // By default every provider with a public-key entry.
        let providers = match &self.backend {
            None => catalog
                .providers
                .iter()
                .copied()
                .filter(|p| {
                    catalog.entries.iter().any(|e| {
                        std::ptr::eq(e.provider, *p)
                            && matches!(e.algorithm, ango_core::AlgorithmId::Pk(_))
                    })
                })
                .collect(),
            Some(s) => catalog.providers_named(s)?,
        };
        let ops = PkOp::parse_list(&self.ops)?;
        let iterations = match &self.iterations {
            Some(s) => parse_num("--iterations", s, 1usize, 10_000_000)?,
            None if self.quick => pk::QUICK_ITERATIONS,
            None => pk::DEFAULT_ITERATIONS,
        };
        let message_bytes = match &self.message_bytes {
            Some(s) => parse_num("--message-bytes", s, 0usize, 1 << 26)?,
            None => pk::DEFAULT_MESSAGE_BYTES,
        };
        let max_seconds = match &self.max_time {
            Some(s) => parse_num("--max-time", s, 0.001f64, 86_400.0)?,
            None => pk::DEFAULT_MAX_SECONDS,
        };
        ango_report::export::Format::parse(&self.format)?;
        let spec = pk::PkSpec {
            run_id: run_id.to_string(),
            algorithms,
            providers,
            ops,
            iterations,
            message_bytes,
            max_seconds,
            timings: ango_core::Timing::parse_list(&self.timing)?,
            multi: match &self.multi {
                Some(m) => parse_multi(m, None)?,
                None => Vec::new(),
            },
        };
        check_pk_plan(&spec)?;
        Ok(spec)
    }
}

/// A handshake matrix must have a combination the chosen stacks can run:
/// the error says why none can, and what rustls offers.
fn check_tls_matrix(spec: &ango_tls::run::TlsSpec) -> Result<()> {
    if ango_study::tls::combinations(spec) > 0 {
        return Ok(());
    }
    let why = spec
        .client_stacks
        .iter()
        .flat_map(|&c| spec.server_stacks.iter().map(move |&s| (c, s)))
        .find_map(|(c, s)| {
            ango_tls::run::unsupported(c, s, spec.groups[0], spec.server_sigs[0], spec.ca_sigs[0])
        })
        .unwrap_or_default();
    Err(Error::usage(format!(
        "nothing in this request can run: {why}; rustls offers x25519, ml-kem-768, \
         ml-kem-1024 and x25519mlkem768 with rsa, p-256, ed25519 and ml-dsa certificates, and \
         (with --client-stack rustls --server-stack rustls) MAYO, CROSS and the UOV variants \
         whose keys fit its 64 KiB handshake messages"
    )))
}

/// A public-key request must leave something to measure: the error says
/// why nothing is (no backend has the pair, or no operation applies).
fn check_pk_plan(spec: &ango_study::pk::PkSpec) -> Result<()> {
    let plan = spec.plan()?;
    if plan.points() > 0 {
        return Ok(());
    }
    let ops_apply = spec
        .algorithms
        .iter()
        .any(|x| x.ops().iter().any(|o| spec.ops.contains(o)));
    if ops_apply {
        let why: Vec<String> = plan
            .skip
            .iter()
            .map(|(b, x, r)| format!("{b} {x}: {r}"))
            .collect();
        return Err(Error::usage(format!(
            "nothing to measure: {}; valid backends per algorithm: see `ango list`",
            why.join("; ")
        )));
    }
    let has: Vec<String> = spec
        .algorithms
        .iter()
        .map(|x| {
            let ops: Vec<&str> = x.ops().iter().map(|o| o.name()).collect();
            format!("{x}: {}", ops.join(", "))
        })
        .collect();
    Err(Error::usage(format!(
        "none of --ops applies to the chosen algorithms; valid: {}",
        has.join("; ")
    )))
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// DIR or DIR@key=value[,key=value] (keys: hw, backend, op, algorithm, size); a stored run
    /// as run:RUN_ID or testbed:T (its newest run) in place of DIR.
    pub a: String,
    /// DIR, run:RUN_ID or testbed:T, with @key=value[,key=value] filters.
    pub b: String,
    #[arg(long, value_name = "URL", help = DB_HELP)]
    pub db: Option<String>,
    /// table, json, csv, md or html (a page of the table).
    #[arg(long, default_value = "table")]
    pub format: String,
}

/// `--db`: the store, when not the default.
const DB_HELP: &str =
    "The results store: sqlite:PATH or postgres://USER@HOST/DB [default: $ANGO_DB, else \
     sqlite:$XDG_DATA_HOME/ango/results.sqlite, i.e. ~/.local/share/ango/results.sqlite]";

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Results directories (made by `ango run` or any measuring command with --out).
    #[arg(value_name = "DIR")]
    pub dirs: Vec<std::path::PathBuf>,
    #[arg(long, value_name = "URL", help = DB_HELP)]
    pub db: Option<String>,
    /// The host name the runs are filed under [default: each run's env.json hostname].
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Leave out the raw samples (smaller; `ango check` then compares intervals only).
    #[arg(long)]
    pub no_samples: bool,
}

#[derive(Args, Debug)]
pub struct TableArgs {
    #[arg(long, value_name = "URL", help = DB_HELP)]
    pub db: Option<String>,
    /// Which points: KEY=VALUE[,KEY=VALUE...], a value may list alternatives with `|` (keys:
    /// testbed, host, run, suite, metric, algorithm, operation, backend, implementation, hw,
    /// size, workers, library_version, arch, cpu) [default: every stored point].
    #[arg(long = "where", value_name = "FILTERS")]
    pub where_: Option<String>,
    /// The key(s) of the rows, comma-separated.
    #[arg(long, default_value = "testbed", value_name = "KEYS")]
    pub rows: String,
    /// The key(s) of the columns, comma-separated.
    #[arg(long, default_value = "backend", value_name = "KEYS")]
    pub cols: String,
    /// The figure shown: latency, throughput, peak-stack, peak-heap, allocations, max-abs-t,
    /// overhead or cost [default: latency where the points have it].
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// table, json, csv, md or html (a page with a machine × implementation chart).
    #[arg(long, default_value = "table")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[arg(long, value_name = "URL", help = DB_HELP)]
    pub db: Option<String>,
    /// The testbed (its fingerprint from env.json, or a unique prefix).
    #[arg(long, value_name = "T")]
    pub testbed: String,
    /// What to compare with: a run id (or unique prefix), `previous`, `history` or `history:N`.
    #[arg(long, value_name = "SELECTOR")]
    pub baseline: String,
    /// The run checked [default: the testbed's newest].
    #[arg(long, value_name = "RUN_ID")]
    pub run: Option<String>,
    /// The smallest change, in percent, that counts as slower or faster.
    #[arg(long, default_value_t = 5.0, value_name = "PCT")]
    pub min_change: f64,
    /// The false discovery rate the p-values are held to (Benjamini–Hochberg).
    #[arg(long, default_value_t = 0.05, value_name = "LEVEL")]
    pub alpha: f64,
    /// Which points (as `ango table --where`) [default: every point of the two runs].
    #[arg(long = "where", value_name = "FILTERS")]
    pub where_: Option<String>,
    /// table or json.
    #[arg(long, default_value = "table")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A results directory to export [default: the store, --db].
    #[arg(value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    #[arg(long, value_name = "URL", help = DB_HELP)]
    pub db: Option<String>,
    /// Which stored points (as `ango table --where`) [default: every stored point].
    #[arg(long = "where", value_name = "FILTERS")]
    pub where_: Option<String>,
    /// bmf (Bencher Metric Format: one run, the newest of the selection's testbed), csv or parquet.
    #[arg(long, value_name = "FORMAT")]
    pub format: String,
    /// Write to this new file [default: standard output, unless it is a terminal and the format
    /// is parquet].
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// table, json, csv, md or html (a page of the table).
    #[arg(long, default_value = "table")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Run a Wycheproof test file, or every .json file of a directory
    /// (upstream's testvectors_v1 files: AEAD, X25519, ECDSA, Ed25519,
    /// RSA-PSS, ML-DSA, ML-KEM), against every backend and variant that
    /// provides its algorithms, instead of the built-in checks [default: none].
    #[arg(long, value_name = "FILE.json|DIR", conflicts_with = "vectors")]
    pub wycheproof: Option<std::path::PathBuf>,
    /// Run a vector file in ango's own text format (that of vectors/*.txt:
    /// `[algorithm]` sections, `KEY = hex` lines, cases separated by blank
    /// lines, a `# Source:` header) against every implementation of each
    /// algorithm it names, instead of the built-in checks [default: none].
    #[arg(long, value_name = "FILE")]
    pub vectors: Option<std::path::PathBuf>,
    /// table, json (one object per check; with --wycheproof one per file and
    /// implementation), csv, md or html (a page of the checks).
    #[arg(long, default_value = "table")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results directory.
    pub dir: std::path::PathBuf,
    /// html (rewrite the directory's report.html and findings.jsonl, and
    /// print the page's path), or table, json, csv or md (print the
    /// directory's records; nothing is written).
    #[arg(long, value_name = "FORMAT", default_value = "html")]
    pub format: String,
    /// Print how the claim with this id (a finding's `id`, as the report's
    /// verdict table and findings.jsonl give it) was derived: its value,
    /// verdict and the records it was computed from. Nothing is written
    /// [default: none: write the report].
    #[arg(long, value_name = "ID")]
    pub claim: Option<String>,
}

impl SpeedArgs {
    /// The latency study's spec: default ChaCha20 at 0..4096 step 16, every
    /// variant, short points, hw on.
    pub fn latency_spec(&self, run_id: &str) -> Result<SpeedSpec> {
        let mut a = self.clone();
        a.algo.get_or_insert_with(|| "chacha20".into());
        a.impls.get_or_insert_with(|| "all".into());
        if a.time.is_none() && a.samples.is_none() {
            a.time = Some(if a.quick {
                "0.01".into()
            } else {
                "0.05".into()
            });
        }
        if a.multi.is_some() {
            return Err(Error::usage(
                "--multi is for `ango speed` and `ango run`; the latency study runs one worker",
            ));
        }
        let sizes = parse_sizes_from(a.sizes.as_deref().unwrap_or("0:4096:16"), 0)?;
        a.sizes = Some("16".into()); // validated separately: 0 is allowed here
        let mut spec = a.spec(run_id, "on")?;
        spec.sizes = sizes;
        spec.suite = ango_core::SuiteId::Latency;
        if spec.hw != vec![Hw::On] {
            return Err(Error::usage("the latency study runs with --hw on only"));
        }
        spec.validate()?;
        Ok(spec)
    }

    /// Check every option and build the study's spec; nothing is written
    /// before this succeeds.
    pub fn spec(&self, run_id: &str, default_hw: &str) -> Result<SpeedSpec> {
        let algorithms = match &self.algo {
            None => Algorithm::DEFAULT_SPEED.to_vec(),
            Some(s) => {
                let valid = names(Algorithm::ALL.iter().map(|a| a.name()));
                let v: Vec<Algorithm> = list(s, "--algo", &valid)?
                    .into_iter()
                    .map(Algorithm::parse)
                    .collect::<Result<_>>()?;
                if v.is_empty() {
                    return Err(Error::usage(format!(
                        "--algo is empty; valid: {}",
                        names(Algorithm::ALL.iter().map(|a| a.name()))
                    )));
                }
                v
            }
        };
        let catalog = ango_backends::catalog();
        // By default every provider with a symmetric entry.
        let providers = match &self.backend {
            None => catalog
                .providers
                .iter()
                .copied()
                .filter(|p| {
                    catalog.entries.iter().any(|e| {
                        std::ptr::eq(e.provider, *p)
                            && matches!(e.algorithm, ango_core::AlgorithmId::Sym(_))
                    })
                })
                .collect(),
            Some(s) => catalog.providers_named(s)?,
        };
        let hw = Hw::parse_list(self.hw.as_deref().unwrap_or(default_hw))?;
        let sizes = match &self.sizes {
            None => DEFAULT_SIZES.to_vec(),
            Some(s) => parse_sizes(s)?,
        };
        let aad = match &self.aad {
            None => DEFAULT_AAD,
            Some(s) => parse_num("--aad", s, 0usize, 65_536)?,
        };
        let ops = Operation::parse_list(&self.op)?;
        if let Some(u) = &self.unit {
            ango_report::Unit::parse(u)?;
        }
        if let Some(c) = &self.cpu {
            parse_cpu(c)?;
        }
        let multi = match &self.multi {
            Some(m) => parse_multi(m, self.cpu.as_deref())?,
            None => Vec::new(),
        };
        ango_report::export::Format::parse(&self.format)?;
        let time = match &self.time {
            Some(s) => parse_num("--time", s, 0.001f64, 3600.0)?,
            None if self.quick => 0.08,
            None => 0.5,
        };
        let samples = match &self.samples {
            Some(s) => Some(parse_num("--samples", s, 1usize, 1_000_000)?),
            None => None,
        };
        let retries = match &self.retries {
            Some(s) => parse_num("--retries", s, 0usize, 20)?,
            // A quick look: a noisy point is flagged, not measured again
            // (half of them were measured three times, doubling the pass).
            None if self.quick => 0,
            None => 2,
        };
        let impls: Vec<String> = list(
            self.impls.as_deref().unwrap_or("auto"),
            "--impl",
            "auto, all, or variant names such as chacha20/sse2 (see `ango list`)",
        )?
        .into_iter()
        .map(String::from)
        .collect();
        let (points, skips) =
            ango_study::speed::resolve(catalog, &algorithms, &providers, &impls, &hw)?;
        if points.is_empty() {
            let why: Vec<String> = skips
                .iter()
                .take(3)
                .map(|k| format!("{} {} hw={}: {}", k.backend, k.algorithm, k.hw, k.reason))
                .collect();
            return Err(Error::usage(format!(
                "nothing to measure ({}); see `ango list` for what runs here",
                why.join("; ")
            )));
        }
        let spec = SpeedSpec {
            run_id: run_id.to_string(),
            algorithms,
            points,
            skips,
            hw,
            sizes,
            aad,
            ops,
            time,
            samples,
            retries,
            suite: ango_study::speed::SUITE,
            multi,
        };
        spec.validate()?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option that takes a value shows its default in `--help`:
    /// clap's own `[default: …]`, or one written in its help text (what
    /// happens without it, when that is not a plain value).
    #[test]
    fn every_option_shows_its_default() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let mut missing = Vec::new();
        for sub in cli.get_subcommands().filter(|c| !c.is_hide_set()) {
            for a in sub.get_arguments() {
                let takes_value = a.get_action().takes_values();
                if !takes_value || a.is_positional() || a.is_required_set() || a.is_hide_set() {
                    continue;
                }
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                if a.get_default_values().is_empty() && !help.contains("[default: ") {
                    missing.push(format!("{} --{}", sub.get_name(), a.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "no default shown: {missing:?}");
    }

    /// Every help text fits 100 columns: clap wraps it at that width,
    /// whatever the terminal (or none).
    #[test]
    fn help_fits_100_columns() {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        cli.build();
        let mut texts = vec![cli.render_help().to_string()];
        for sub in cli.get_subcommands_mut() {
            texts.push(sub.render_help().to_string());
        }
        assert!(texts.len() > 10);
        for t in &texts {
            for l in t.lines() {
                assert!(
                    l.chars().count() <= 100,
                    "{} columns: {l}",
                    l.chars().count()
                );
            }
        }
    }

    /// `--multi` takes 1 to the number of CPUs, or no number for all, and
    /// refuses `--cpu` beside it.
    #[test]
    fn multi_takes_one_to_every_cpu() {
        let cpus = ango_harness::affinity::allowed_cpus();
        assert_eq!(parse_multi("all", None).unwrap(), cpus);
        assert_eq!(parse_multi("1", None).unwrap(), cpus[..1].to_vec());
        for bad in ["0", "-1", "x", &(cpus.len() + 1).to_string()] {
            let e = parse_multi(bad, None).unwrap_err().to_string();
            assert!(e.contains("valid: 1 to"), "{bad}: {e}");
        }
        let e = parse_multi("all", Some("0")).unwrap_err().to_string();
        assert!(e.contains("--cpu"), "{e}");
    }

    #[test]
    fn sizes_lists_and_ranges() {
        assert_eq!(parse_sizes("64,16,16").unwrap(), vec![16, 64]);
        assert_eq!(parse_sizes("16:64:16").unwrap(), vec![16, 32, 48, 64]);
        for bad in ["0", "-5", "abc", "16:8:1", "1:2", "", "999999999999"] {
            let e = parse_sizes(bad).unwrap_err();
            assert!(e.is_usage() && e.to_string().contains("e.g."), "{bad}: {e}");
        }
    }
}
