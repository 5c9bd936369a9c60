//! Seed 002's measurement (`ango cycles`): the key schedule, encryption and
//! decryption of one block, each call's output the next call's input, a
//! large number of times per sample, repeated into samples; cycles from the
//! cycle counter (named as such: TSC ticks here) and ns. Beside each chained
//! (latency) figure, the throughput figure per block of the same
//! implementation over many independent blocks (ECB over 16 KiB), so what
//! pipelining buys shows.
//!
//! Nothing is timed before the pair has passed its known-answer tests in
//! this run.

use ango_core::cycles::CyclesRecord;
use ango_core::{Algorithm, AlgorithmId, Entry, Error, Result};
use ango_harness::cycles::{CycleCounter, CycleSource};
use ango_harness::stats::Summary;
use std::time::Instant;

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::Cycles;

/// Bytes of the throughput point beside each chained one.
pub const THROUGHPUT_BYTES: usize = 16 * 1024;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Operations per sample; None calibrates so a sample lasts at least
    /// `min_sample_ms`.
    pub iterations: Option<u64>,
    pub samples: usize,
    pub min_sample_ms: f64,
}

impl Plan {
    pub fn full() -> Plan {
        Plan {
            iterations: None,
            samples: 31,
            min_sample_ms: 4.0,
        }
    }

    pub fn quick() -> Plan {
        Plan {
            iterations: None,
            samples: 11,
            min_sample_ms: 1.0,
        }
    }
}

/// This CPU's L1 data cache in bytes (sysfs; None where it is not told).
pub fn l1d_bytes() -> Option<u64> {
    for i in 0..8 {
        let d = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{d}/{f}")).ok();
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        if level.trim() == "1" && kind.trim() == "Data" {
            let s = size.trim();
            let (n, mul) = match s.strip_suffix('K') {
                Some(n) => (n, 1024),
                None => (s, 1),
            };
            return n.parse::<u64>().ok().map(|n| n * mul);
        }
    }
    None
}

/// One sample of `iters` calls of `op`, after a short warm-up (the other
/// points sampled in between may have evicted its tables): ns and counter
/// ticks per call.
fn one_sample(cc: &CycleCounter, iters: u64, warm: u64, op: &mut dyn FnMut(u64)) -> (f64, f64) {
    op(warm);
    let t0 = Instant::now();
    let c0 = cc.read();
    op(iters);
    let c1 = cc.read();
    let dt = t0.elapsed().as_nanos() as f64;
    (dt / iters as f64, c1.wrapping_sub(c0) as f64 / iters as f64)
}

/// Calls per sample: the plan's, or doubled from 256 until one sample
/// lasts `min_sample_ms`.
fn calibrate(plan: &Plan, op: &mut dyn FnMut(u64)) -> u64 {
    if let Some(n) = plan.iterations {
        return n.max(1);
    }
    let mut n = 256u64;
    loop {
        let t0 = Instant::now();
        op(n);
        if t0.elapsed().as_secs_f64() * 1e3 >= plan.min_sample_ms || n >= 1 << 30 {
            return n;
        }
        n *= 2;
    }
}

/// What one timed point is.
#[derive(Clone, Copy)]
struct Point {
    operation: &'static str,
    chained: bool,
    chain: &'static str,
    unit: &'static str,
}

/// One point ready to be sampled: its timed call (owning its own keyed
/// instance, so points of several implementations can be sampled in
/// turn), its calibrated size and the samples taken so far.
pub struct Prepared {
    point: Point,
    algo: Algorithm,
    backend: String,
    implementation: String,
    path: String,
    library_version: String,
    table_bytes: Option<u64>,
    kat: String,
    op: Box<dyn FnMut(u64)>,
    iters: u64,
    blocks_per_call: u64,
    ns: Vec<f64>,
    cycles: Vec<f64>,
}

/// Build and calibrate the points of one entry: chained key schedule,
/// encryption and decryption, and the throughput of encryption over
/// independent blocks. `kat` is the known-answer result the caller checked
/// in this run.
pub fn prepare(e: &Entry, plan: &Plan, kat: &str) -> Result<Vec<Prepared>> {
    let AlgorithmId::Sym(algo) = e.algorithm else {
        return Err(Error::usage(format!("{}: not a symmetric cipher", e.id())));
    };
    if !algo.cycles_capable() {
        return Err(Error::usage(format!(
            "{algo}: ango cycles times ECB of a 128-bit block cipher or MUGI"
        )));
    }
    let stream = algo == Algorithm::Mugi;
    let key: Vec<u8> = (0..algo.key_len() as u8)
        .map(|i| i.wrapping_mul(37) ^ 0x5a)
        .collect();
    let mut probe = e.cipher(&key)?;
    let Some(ops) = probe.block_ops() else {
        return Err(Error::Unsupported(format!(
            "{}: no one-block call to time",
            e.label()
        )));
    };
    let path = ops.path();
    let hides_schedule = !ops.schedule_bytes(&mut [0u8; 32]);
    let unit = if stream {
        "128 bits of keystream"
    } else {
        "block"
    };
    let points = [
        Point {
            operation: "key-schedule",
            chained: true,
            chain: match (stream, hides_schedule) {
                (true, _) => "keystream",
                (false, true) => "via-one-block",
                (false, false) => "expanded-key",
            },
            unit: "key schedule",
        },
        Point {
            operation: "encrypt",
            chained: true,
            chain: if stream { "keystream" } else { "ciphertext" },
            unit,
        },
        Point {
            operation: "decrypt",
            chained: true,
            chain: if stream { "keystream" } else { "ciphertext" },
            unit,
        },
        Point {
            operation: "encrypt",
            chained: false,
            chain: "none",
            unit,
        },
    ];
    let mut out = Vec::new();
    for p in points {
        // MUGI decrypts with the encryption it is: one figure is enough.
        if stream && p.operation == "decrypt" {
            continue;
        }
        let mut cipher = e.cipher(&key)?;
        let mut k = key.clone();
        let mut block = [0x3cu8; 16];
        let mut buf = vec![0xa5u8; THROUGHPUT_BYTES];
        let iv = vec![0u8; algo.nonce_len()];
        let mut op: Box<dyn FnMut(u64)> = match (p.operation, p.chained) {
            ("key-schedule", _) => Box::new(move |n| {
                let ops = cipher.block_ops().expect("checked above");
                for _ in 0..n {
                    let _ = ops.set_key(&k);
                    if !ops.schedule_bytes(&mut k) {
                        let mut b = [0u8; 16];
                        ops.encrypt_block(&mut b);
                        for (i, x) in k.iter_mut().enumerate() {
                            *x = b[i % 16];
                        }
                    }
                }
                std::hint::black_box(&k);
            }),
            ("encrypt", true) => Box::new(move |n| {
                let ops = cipher.block_ops().expect("checked above");
                for _ in 0..n {
                    ops.encrypt_block(&mut block);
                }
                std::hint::black_box(&block);
            }),
            ("decrypt", _) => Box::new(move |n| {
                let ops = cipher.block_ops().expect("checked above");
                for _ in 0..n {
                    ops.decrypt_block(&mut block);
                }
                std::hint::black_box(&block);
            }),
            _ => {
                // Throughput: ECB (or MUGI's keystream) over many blocks,
                // one call per THROUGHPUT_BYTES; the figure is per block.
                Box::new(move |n| {
                    let calls = n.div_ceil((THROUGHPUT_BYTES / 16) as u64);
                    for _ in 0..calls {
                        let _ = cipher.encrypt(&iv, &mut buf);
                    }
                    std::hint::black_box(&buf);
                })
            }
        };
        let blocks_per_call = if p.chained {
            1
        } else {
            (THROUGHPUT_BYTES / 16) as u64
        };
        // Warm up, then size the samples.
        op(blocks_per_call.max(1024));
        let iters = calibrate(plan, &mut *op);
        let iters = iters.div_ceil(blocks_per_call) * blocks_per_call;
        out.push(Prepared {
            point: p,
            algo,
            backend: e.provider.name.into(),
            implementation: if e.provider.has_variants {
                e.variant.clone()
            } else {
                e.implementation.clone()
            },
            path: path.clone(),
            library_version: (e.provider.version)(),
            table_bytes: table_bytes_of(e),
            kat: kat.into(),
            op,
            iters,
            blocks_per_call,
            ns: Vec::with_capacity(plan.samples),
            cycles: Vec::with_capacity(plan.samples),
        });
    }
    Ok(out)
}

/// Take `samples` samples of every point in turn — one of each, then the
/// next round — so a busy spell of the machine touches every point alike
/// and the implementations' ratios stay fair. False if interrupted (the
/// samples taken so far are kept).
pub fn sample_in_turn(points: &mut [Prepared], cc: &CycleCounter, samples: usize) -> bool {
    for _ in 0..samples {
        for p in points.iter_mut() {
            if ango_harness::measure::stop_requested() {
                return false;
            }
            let warm = (p.iters / 32).div_ceil(p.blocks_per_call) * p.blocks_per_call;
            let (ns, cy) = one_sample(cc, p.iters, warm, &mut *p.op);
            p.ns.push(ns);
            if cc.source() != CycleSource::None {
                p.cycles.push(cy);
            }
        }
    }
    true
}

/// The record of a sampled point; None if it has fewer than two samples
/// (an interruption before its second round).
pub fn finish(p: Prepared, plan: &Plan, cc: &CycleCounter, run_id: &str) -> Option<CyclesRecord> {
    if p.ns.len() < 2 {
        return None;
    }
    let s = Summary::of(&p.ns)?;
    let cycles = Summary::of(&p.cycles).map(|c| c.median);
    let stats = s.stats();
    let noisy = stats.robust_cv > 0.05;
    let mut warnings = Vec::new();
    if noisy {
        warnings.push(format!(
            "robust CV {:.1}% > 5%: the machine was busy",
            stats.robust_cv * 100.0
        ));
    }
    if p.ns.len() < plan.samples {
        warnings.push(format!(
            "interrupted after {} of {} samples",
            p.ns.len(),
            plan.samples
        ));
    }
    let pt = p.point;
    if pt.chain == "via-one-block" {
        warnings.push(
            "the library hides its expanded key: each key schedule is chained through one \
             block encrypted under the new key, which the figure includes"
                .into(),
        );
    }
    let iters = p.iters;
    Some(CyclesRecord {
        head: ango_core::Header::new(SUITE, run_id),
        algorithm: p.algo.name().into(),
        cipher: p.algo.cipher_name().into(),
        backend: p.backend,
        implementation: p.implementation,
        path: p.path,
        library_version: p.library_version,
        key_bits: (p.algo.key_len() * 8) as u32,
        operation: pt.operation.into(),
        chained: pt.chained,
        chain: pt.chain.into(),
        unit: pt.unit.into(),
        iterations: iters,
        samples: p.ns.len() as u64,
        stats,
        cycles_per_op: cycles,
        cycle_source: cc.source().name().into(),
        table_bytes: p.table_bytes,
        l1d_bytes: l1d_bytes(),
        kat: p.kat,
        noisy,
        warnings,
        method: if pt.chained {
            format!(
                "seed 002's chained loop: {iters} calls per sample, {} samples taken in turn \
                 with the other implementations of {}, each output the next input (chain: {})",
                p.ns.len(),
                p.algo.name(),
                pt.chain
            )
        } else {
            format!(
                "throughput: {} calls of {THROUGHPUT_BYTES} B per sample, {} samples taken in \
                 turn with the other implementations of {}, per block",
                iters / p.blocks_per_call,
                p.ns.len(),
                p.algo.name()
            )
        },
        time: ango_core::results::utc_now().0,
    })
}

/// Measure one entry on its own (its four points sampled in turn).
pub fn measure(
    e: &Entry,
    plan: &Plan,
    cc: &CycleCounter,
    run_id: &str,
    kat: &str,
) -> Result<Vec<CyclesRecord>> {
    let mut ps = prepare(e, plan, kat)?;
    if !sample_in_turn(&mut ps, cc, plan.samples) {
        return Err(Error::usage("interrupted"));
    }
    Ok(ps
        .into_iter()
        .filter_map(|p| finish(p, plan, cc, run_id))
        .collect())
}

/// An ango variant's table bytes (from its row in `ango_prims`); None for
/// libraries.
fn table_bytes_of(e: &Entry) -> Option<u64> {
    if !e.provider.has_variants {
        return None;
    }
    let (cipher, name) = e.variant.split_once('/')?;
    if cipher == "mugi" {
        return ango_prims::cryptrec::MUGI
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.table_bytes as u64);
    }
    if cipher == "aes" {
        return ango_prims::aes::table_bytes(name).map(|b| b as u64);
    }
    ango_prims::cryptrec::block_variants(cipher)?
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.table_bytes as u64)
}

/// What `ango cycles` measures by default: seed 002's ciphers, every key
/// size, and AES-128/256 for reference.
pub fn default_algorithms() -> Vec<Algorithm> {
    let mut v = Algorithm::CRYPTREC.to_vec();
    v.extend([Algorithm::Aes128Ecb, Algorithm::Aes256Ecb]);
    v
}

/// The suite: the algorithms asked for, the catalog entries to time (ids),
/// what cannot be measured here and why, and the plan.
pub struct CyclesSpec {
    pub algorithms: Vec<Algorithm>,
    pub entries: Vec<String>,
    pub skips: Vec<String>,
    pub plan: Plan,
}

impl CyclesSpec {
    /// The algorithms of the spec that nothing here implements (seed 002's
    /// blocked ciphers), as the line under the tables; None if every one
    /// ran.
    pub fn not_measured(&self) -> Option<String> {
        let blocked: Vec<&str> = self
            .algorithms
            .iter()
            .filter(|a| {
                ango_backends::catalog()
                    .runnable(AlgorithmId::Sym(**a))
                    .is_empty()
            })
            .map(|a| a.name())
            .collect();
        (!blocked.is_empty()).then(|| {
            format!(
                "Not measured (no implementation runs here; `ango list` says why): {}",
                blocked.join(", ")
            )
        })
    }
}

impl crate::Suite for CyclesSpec {
    fn id(&self) -> ango_core::SuiteId {
        SUITE
    }
    /// Up to four points per implementation: key schedule, encryption,
    /// decryption and the throughput beside them.
    fn points(&self) -> Result<usize> {
        Ok(self.entries.len() * 4)
    }
    fn verifies(&self) -> &'static str {
        "known answers and Wycheproof of every implementation before it is timed"
    }
    /// Check and time every entry, keeping each record the moment it is
    /// made. The implementations of one algorithm are sampled in turn (one
    /// sample of each, round after round), so their ratios are taken side
    /// by side; records are kept when the algorithm is done. An entry that
    /// fails its checks is a failed check of the run, never timed.
    fn run(&self, cx: &mut crate::Context) -> Result<bool> {
        let catalog = ango_backends::catalog();
        let cc = CycleCounter::open();
        cx.say(format!(
            "ango: seed 002's cycle study, {} implementations (chained key schedule, encryption, \
             decryption; throughput beside)",
            self.entries.len()
        ))?;
        for s in &self.skips {
            cx.say(format!("ango: not measured: {s}"))?;
        }
        let mut groups: Vec<(AlgorithmId, Vec<&Entry>)> = Vec::new();
        for id in &self.entries {
            let e = catalog.entry(id)?;
            match groups.iter_mut().find(|(a, _)| *a == e.algorithm) {
                Some((_, v)) => v.push(e),
                None => groups.push((e.algorithm, vec![e])),
            }
        }
        for (algo_id, entries) in groups {
            let AlgorithmId::Sym(algo) = algo_id else {
                continue;
            };
            let mut points = Vec::new();
            for e in entries {
                if cx.stopped() {
                    return Ok(true);
                }
                let checked = ango_verify::kat::before_timing(&ango_core::EntryBackend(e), algo)?;
                if !checked.ok() {
                    let mut m =
                        format!("{} {}: {} — not timed", e.label(), algo, checked.summary());
                    for f in &checked.kat.failures {
                        m.push_str(&format!("\n    {f}"));
                    }
                    cx.failed(SUITE, m)?;
                    continue;
                }
                cx.say(format!(
                    "ango: timing {} {} ({})",
                    algo,
                    e.label(),
                    checked.summary()
                ))?;
                match prepare(e, &self.plan, &checked.kat.summary()) {
                    Ok(ps) => points.extend(ps),
                    Err(Error::Unsupported(m)) => cx.say(format!("ango: not measured: {m}"))?,
                    Err(e) => return Err(e),
                }
            }
            if !points.is_empty() {
                cx.say(format!(
                    "ango: sampling {algo}: {} points in turn, {} rounds",
                    points.len(),
                    self.plan.samples
                ))?;
            }
            let finished = sample_in_turn(&mut points, &cc, self.plan.samples);
            for p in points {
                if let Some(r) = finish(p, &self.plan, &cc, cx.run_id) {
                    cx.record(r, String::new())?;
                }
            }
            if !finished {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
