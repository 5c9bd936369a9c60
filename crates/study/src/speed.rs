//! The symmetric speed study of seed 000: every chosen (hw setting, backend,
//! algorithm) is verified by its known-answer vectors in this process, then
//! each (operation, size) point is measured and emitted as it finishes.
//!
//! Points whose hardware setting needs a different process environment
//! (OpenSSL reads `OPENSSL_ia32cap` once, at start-up) run in a child
//! process: `ango __worker` reads the spec on stdin and writes one event per
//! line on stdout, which the parent records as they arrive.

use crate::event::{Event, Sink};
use ango_core::record::SampleSet;
use ango_core::{
    Aead, Algorithm, AlgorithmId, Backend, Catalog, Cipher, EntryBackend, Error, Hw, Kind,
    Operation, Provider, Result, SpeedRecord,
};
use ango_harness::measure::{self, MeasureError, Plan};
use ango_harness::CycleCounter;
use ango_verify::cross::Rng;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

mod multi;
pub use multi::measure_multi;
use multi::multi_record;

pub const DEFAULT_SIZES: &[usize] = &[16, 64, 256, 1024, 8192, 16384];
pub const DEFAULT_AAD: usize = 13;
/// The message size of `ango run`'s multi-core pass.
pub const MULTI_SIZE: usize = 16384;
pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::Speed;

/// What to measure. Serialised to the worker process as is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpeedSpec {
    pub run_id: String,
    pub algorithms: Vec<Algorithm>,
    /// The catalog entries to measure, by id, each under a hardware
    /// setting: resolved once, at the command line ([`resolve`]).
    pub points: Vec<Planned>,
    /// What was asked but cannot be measured here, with the reason.
    #[serde(default)]
    pub skips: Vec<Skipped>,
    pub hw: Vec<Hw>,
    pub sizes: Vec<usize>,
    pub aad: usize,
    pub ops: Vec<Operation>,
    /// Seconds of sampling per point (unless `samples` is set).
    pub time: f64,
    pub samples: Option<usize>,
    /// How many times a noisy point (robust CV above the threshold) is
    /// measured again; the steadiest attempt is kept and all are reported.
    #[serde(default)]
    pub retries: usize,
    /// "speed" (throughput study of seed 000) or "latency" (seed 001: time
    /// per message at every length).
    #[serde(default = "speed_suite")]
    pub suite: ango_core::SuiteId,
    /// `--multi`: the CPU of each worker. With two or more, every point is
    /// measured by one worker on the first, then by all at once, and one
    /// record with `workers` = their number is kept. Empty: one worker.
    #[serde(default)]
    pub multi: Vec<usize>,
}

fn speed_suite() -> ango_core::SuiteId {
    SUITE
}

/// One entry to measure under one hardware setting.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    /// The catalog entry's id.
    pub entry: String,
    pub hw: Hw,
}

/// A combination that cannot be measured here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub backend: String,
    pub algorithm: Algorithm,
    pub hw: Hw,
    pub reason: String,
}

/// Resolve the command line's names into catalog entries: for every
/// hardware setting, provider and algorithm, the provider's single entry,
/// or for a provider with variants those `impls` selects (`auto`: the best
/// this CPU runs; `all`; a variant name or a component of one). A provider
/// that lacks an algorithm, an entry that does not run here or not under a
/// setting, is a skip with its reason; an `--impl` pattern that selects
/// nothing is a usage error naming the valid ones.
pub fn resolve(
    catalog: &Catalog,
    algorithms: &[Algorithm],
    providers: &[&'static Provider],
    impls: &[String],
    hws: &[Hw],
) -> Result<(Vec<Planned>, Vec<Skipped>)> {
    if impls.is_empty() {
        return Err(Error::usage(
            "--impl is empty; valid: auto, all, or a variant name from `ango list`",
        ));
    }
    let mut known: Vec<&str> = Vec::new();
    for &a in algorithms {
        for p in providers.iter().filter(|p| p.has_variants) {
            for e in catalog.of_provider(AlgorithmId::Sym(a), p) {
                if !known.contains(&e.variant.as_str()) {
                    known.push(&e.variant);
                }
            }
        }
    }
    for i in impls {
        if i != "auto" && i != "all" && !known.iter().any(|k| impl_matches(i, k)) {
            return Err(Error::usage(format!(
                "no implementation '{i}' for the chosen algorithms; valid: auto, all, {}",
                known.join(", ")
            )));
        }
    }
    let (mut run, mut skip) = (Vec::new(), Vec::new());
    for &hw in hws {
        for p in providers {
            for &a in algorithms {
                let entries: Vec<_> = catalog.of_provider(AlgorithmId::Sym(a), p).collect();
                if entries.is_empty() {
                    skip.push(Skipped {
                        backend: p.name.into(),
                        algorithm: a,
                        hw,
                        reason: format!("{} has no {a}", p.name),
                    });
                    continue;
                }
                // The automatic variant first, as a plain `--backend` run
                // would measure it, then the named ones.
                let mut entries = entries;
                entries.sort_by_key(|e| !e.auto);
                for e in entries {
                    let chosen = !p.has_variants
                        || impls.iter().any(|i| {
                            (i == "auto" && e.auto && e.available.is_ok())
                                || (i != "auto" && impl_matches(i, &e.variant))
                        });
                    if !chosen {
                        continue;
                    }
                    match e.runs(hw) {
                        Ok(()) => {
                            let planned = Planned { entry: e.id(), hw };
                            if !run.contains(&planned) {
                                run.push(planned);
                            }
                        }
                        Err(why) => skip.push(Skipped {
                            backend: p.name.into(),
                            algorithm: a,
                            hw,
                            reason: if p.has_variants && e.available.is_err() {
                                format!("{}: {why}", e.variant)
                            } else {
                                why
                            },
                        }),
                    }
                }
            }
        }
    }
    Ok((run, skip))
}

/// Does `pattern` (from `--impl`) select the variant `name`?
/// `all` is every named variant (not `auto`, which runs one of them).
pub fn impl_matches(pattern: &str, name: &str) -> bool {
    (pattern == "all" && name != "auto") || pattern == name || name.split('+').any(|c| c == pattern)
}

impl SpeedSpec {
    /// How each group of a point is sampled: `samples` rounds exactly, or
    /// rounds until the group's ratios are steady within
    /// [`measure::STEADY_WITHIN`] or `time` per member is spent, `retries`
    /// more times while they are not.
    pub fn plan(&self) -> Plan {
        let plan = match self.samples {
            Some(n) => Plan {
                warmup: std::time::Duration::from_millis(20),
                steady_within: None,
                ..Plan::with_samples(n)
            },
            None => Plan::with_time(self.time),
        };
        Plan {
            budgets: self.retries + 1,
            ..plan
        }
    }

    /// Check the spec against the algorithms' constraints (ECB needs whole
    /// blocks). Returns a usage error naming the problem.
    pub fn validate(&self) -> Result<()> {
        for &a in &self.algorithms {
            let bm = a.block_multiple();
            if let Some(s) = self.sizes.iter().find(|&&s| s % bm != 0) {
                return Err(Error::usage(format!(
                    "size {s} is not a multiple of {bm} bytes, which {a} needs; use sizes like 16,64,256"
                )));
            }
        }
        Ok(())
    }

    pub fn points_per_triple(&self) -> usize {
        self.sizes.len() * self.ops.len()
    }
}

/// Run the study, sending every event to `sink`. `in_child` is set in the
/// worker process (never spawn again there).
pub fn run(spec: &SpeedSpec, sink: &mut dyn Sink, in_child: bool) -> Result<RunOutcome> {
    spec.validate()?;
    let catalog = ango_backends::catalog();
    for k in &spec.skips {
        sink.event(Event::Skip {
            backend: k.backend.clone(),
            algorithm: k.algorithm,
            hw: k.hw,
            reason: k.reason.clone(),
        })?;
    }
    let cc = CycleCounter::open();
    let mut outcome = RunOutcome::default();
    // Algorithm by algorithm and setting by setting, every entry of it
    // measured side by side: one sample of each in turn, point by point,
    // so the ratios between them are taken over the same seconds. Entries
    // whose setting needs another process environment are measured side by
    // side in a worker with that environment, one worker per environment.
    for &a in &spec.algorithms {
        for &hw in &spec.hw {
            let mut local = Vec::new();
            let mut children: Vec<(ango_core::catalog::WorkerEnv, Vec<Planned>)> = Vec::new();
            for planned in spec.points.iter().filter(|p| p.hw == hw) {
                let entry = catalog.entry(&planned.entry)?;
                if entry.algorithm != AlgorithmId::Sym(a) {
                    continue;
                }
                match (entry.provider.worker_env)(hw) {
                    Some(env) if !in_child => match children.iter_mut().find(|(e, _)| *e == env) {
                        Some((_, group)) => group.push(planned.clone()),
                        None => children.push((env, vec![planned.clone()])),
                    },
                    _ => local.push(EntryBackend(entry)),
                }
            }
            let mut runs: Vec<RunOutcome> = Vec::new();
            if !local.is_empty() {
                let group: Vec<&dyn Backend> = local.iter().map(|b| b as &dyn Backend).collect();
                runs.push(run_local(spec, &group, hw, a, &cc, sink)?);
            }
            for (env, points) in children {
                if runs.last().is_some_and(|r| r.interrupted) {
                    break;
                }
                let sub = SpeedSpec {
                    algorithms: vec![a],
                    points,
                    skips: Vec::new(),
                    hw: vec![hw],
                    ..spec.clone()
                };
                runs.push(run_child(&sub, &env, sink)?);
            }
            for r in runs {
                outcome.points += r.points;
                outcome.kat_failures += r.kat_failures;
                if r.interrupted {
                    outcome.interrupted = true;
                }
            }
            if outcome.interrupted {
                return Ok(outcome);
            }
        }
    }
    Ok(outcome)
}

#[derive(Default, Debug, Clone, Copy)]
pub struct RunOutcome {
    pub points: usize,
    pub kat_failures: usize,
    pub interrupted: bool,
}

fn run_child(
    spec: &SpeedSpec,
    env: &[(&'static str, String)],
    sink: &mut dyn Sink,
) -> Result<RunOutcome> {
    let exe =
        ango_harness::env::own_exe().map_err(|e| Error::io("cannot find ango's own binary", e))?;
    let mut cmd = Command::new(exe);
    cmd.arg("__worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io("cannot start worker process", e))?;
    {
        let mut stdin = child.stdin.take().expect("piped");
        let text = serde_json::to_string(spec).expect("spec serialises");
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| Error::io("cannot send spec to worker", e))?;
    }
    let stdout = child.stdout.take().expect("piped");
    let mut outcome = RunOutcome::default();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        match serde_json::from_str::<Event>(&line) {
            Ok(ev) => {
                match &ev {
                    Event::Point { .. } => outcome.points += 1,
                    ev if ev.is_kat_failure() => outcome.kat_failures += 1,
                    _ => {}
                }
                sink.event(ev)?;
            }
            Err(_) => continue, // a line cut by an interrupted worker
        }
    }
    let status = child.wait().map_err(|e| Error::io("worker", e))?;
    if measure::stop_requested() {
        outcome.interrupted = true;
    } else if !status.success() {
        sink.event(Event::Error {
            message: format!("worker process for {:?} ended with {status}", spec.hw),
        })?;
    }
    Ok(outcome)
}

/// Verify then measure `group`, the entries of one algorithm under one
/// setting, in this process: each entry's known answers first (one that
/// fails is not timed), then point by point every entry that passed, side
/// by side ([`measure_in_turn`]).
fn run_local(
    spec: &SpeedSpec,
    group: &[&dyn Backend],
    hw: Hw,
    a: Algorithm,
    cc: &CycleCounter,
    sink: &mut dyn Sink,
) -> Result<RunOutcome> {
    let mut outcome = RunOutcome::default();
    let plan = spec.plan();
    // (backend, its known-answer summary, its CPU view)
    let mut checked_ok = Vec::new();
    for &b in group {
        let cpu_view = b.cpu_view();
        let checked = ango_verify::kat::before_timing(b, a)?;
        let mut kat_summary = checked.summary();
        // `auto` sends each size class to its chosen variant: each of them
        // passes its own checks before `auto` is timed (the vectors'
        // lengths need not reach every class).
        let mut parts_ok = true;
        if b.name() == ango_backends::prims::PROVIDER.name && b.implementation(a, hw) == "auto" {
            let parts = ango_backends::prims::auto_constituents(a);
            let mut failed = Vec::new();
            for e in &parts {
                let c = ango_verify::kat::before_timing(&EntryBackend(e), a)?;
                if !c.ok() {
                    failed.push(format!("{}: {}", e.variant, c.summary()));
                }
            }
            parts_ok = failed.is_empty();
            kat_summary.push_str(&format!(
                "; the variants it runs here ({}): {}",
                parts
                    .iter()
                    .map(|e| e.variant.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                if parts_ok {
                    "each passes the same checks".to_string()
                } else {
                    format!("failed: {}", failed.join("; "))
                }
            ));
        }
        sink.event(Event::Kat {
            backend: b.label(),
            algorithm: a,
            hw,
            ok: checked.ok() && parts_ok,
            summary: kat_summary.clone(),
            counts: Some(checked.counts()),
            failures: checked.unexplained(),
            library_cpu_view: cpu_view.clone(),
            known: checked.explained.known.clone(),
            not_reproduced: checked.explained.not_reproduced.clone(),
        })?;
        if checked.ok() && parts_ok {
            checked_ok.push((b, kat_summary, cpu_view));
        } else if !parts_ok || !checked.only_known_defects() {
            // A known library defect is shown, not timed, and is not a
            // failure of the run.
            outcome.kat_failures += 1;
        }
    }
    if checked_ok.is_empty() {
        return Ok(outcome);
    }
    let backends: Vec<&dyn Backend> = checked_ok.iter().map(|(b, _, _)| *b).collect();
    for &op in &spec.ops {
        for &size in &spec.sizes {
            if measure::stop_requested() {
                outcome.interrupted = true;
                return Ok(outcome);
            }
            let measured: Vec<std::result::Result<(SpeedRecord, SampleSet), MeasureError<Error>>> =
                if spec.multi.len() > 1 {
                    // Each entry's workers take every CPU: one entry at a time.
                    checked_ok
                        .iter()
                        .map(|(b, kat, view)| {
                            measure_multi(*b, a, op, size, spec.aad, &plan, &spec.multi).map(
                                |(one, many)| {
                                    multi_record(
                                        spec,
                                        *b,
                                        (a, op, hw, size),
                                        kat,
                                        view.clone(),
                                        &one,
                                        &many,
                                    )
                                },
                            )
                        })
                        .collect()
                } else {
                    let at = Point {
                        a,
                        op,
                        size,
                        aad: spec.aad,
                    };
                    let group = match measure_group(&backends, at, &plan, cc) {
                        Ok(g) => g,
                        Err(MeasureError::Interrupted) => {
                            outcome.interrupted = true;
                            return Ok(outcome);
                        }
                        Err(MeasureError::Op(e)) => return Err(e),
                        Err(MeasureError::Pin(e)) => {
                            return Err(Error::Usage(format!("cannot pin to {e}")))
                        }
                    };
                    let paired = paired_blocks(&backends, (a, hw), &group, &plan);
                    let GroupRun {
                        results,
                        rounds,
                        budgets_used,
                        ..
                    } = group;
                    results
                        .into_iter()
                        .zip(&checked_ok)
                        .zip(paired)
                        .map(|((r, (b, kat, view)), paired)| {
                            r.map(|m| {
                                point_record(
                                    spec,
                                    *b,
                                    (a, op, hw, size),
                                    kat,
                                    view.clone(),
                                    &m,
                                    (rounds, budgets_used, paired),
                                    backends.len(),
                                )
                            })
                            .map_err(MeasureError::Op)
                        })
                        .collect()
                };
            for (r, b) in measured.into_iter().zip(&backends) {
                match r {
                    Ok((record, samples)) => {
                        sink.event(Event::Point {
                            record: Box::new(record),
                            samples: Box::new(samples),
                        })?;
                        outcome.points += 1;
                    }
                    Err(MeasureError::Interrupted) => {
                        outcome.interrupted = true;
                        return Ok(outcome);
                    }
                    Err(MeasureError::Op(e)) => sink.event(Event::Error {
                        message: format!("{} {a} {op} {size} B hw={hw}: {e}", b.name()),
                    })?,
                    Err(MeasureError::Pin(e)) if spec.multi.len() > 1 => {
                        return Err(Error::Usage(format!("--multi: cannot pin a worker to {e}")))
                    }
                    Err(MeasureError::Pin(e)) => {
                        return Err(Error::Usage(format!("cannot pin to {e}")))
                    }
                }
            }
        }
    }
    Ok(outcome)
}

/// The record of a point measured by one worker, side by side with the
/// `beside` - 1 other members of its group: its samples, the time budgets
/// its group's rounds took, and its paired ratios to the others.
#[allow(clippy::too_many_arguments)]
fn point_record(
    spec: &SpeedSpec,
    b: &dyn Backend,
    (a, op, hw, size): (Algorithm, Operation, Hw, usize),
    kat: &str,
    cpu_view: Option<String>,
    m: &measure::Measured,
    (rounds, budgets, paired): (usize, usize, Option<ango_core::Paired>),
    beside: usize,
) -> (SpeedRecord, SampleSet) {
    let (mut record, samples) = to_record(spec, b, a, op, hw, size, kat, cpu_view, m);
    record.attempts = budgets as u64;
    if beside > 1 {
        let steady = paired.as_ref().is_some_and(|p| p.steady);
        record.method.push_str(&format!(
            "; sampled in turn with the {} other implementation{} of this algorithm and \
             setting, one sample of each per round, {rounds} rounds{}",
            beside - 1,
            if beside == 2 { "" } else { "s" },
            match (paired.as_ref().and_then(|p| p.steady_within), steady) {
                (Some(w), true) => format!(
                    " (until every ratio to the fastest was within ±{:.0}%)",
                    w * 100.0
                ),
                _ => String::new(),
            }
        ));
        if let Some(p) = paired.as_ref().filter(|p| !p.steady) {
            if let Some(w) = p.steady_within {
                record.warnings.push(format!(
                    "ratios not steady within ±{:.0}% after {rounds} rounds ({budgets} time \
                     budget{})",
                    w * 100.0,
                    if budgets == 1 { "" } else { "s" }
                ));
            }
        }
    }
    record.paired = paired;
    (record, samples)
}

/// A message buffer whose data starts on a 64-byte boundary (a cache line),
/// as `openssl speed` and real record buffers have them: a 512-bit vector
/// load that straddles two lines costs more, and where a `Vec` happens to
/// start would otherwise decide the figure.
pub struct Aligned {
    store: Vec<u8>,
    off: usize,
    len: usize,
}

impl Aligned {
    pub fn from(data: &[u8]) -> Aligned {
        let mut store = vec![0u8; data.len() + 64];
        let off = store.as_ptr().align_offset(64);
        store[off..off + data.len()].copy_from_slice(data);
        Aligned {
            store,
            off,
            len: data.len(),
        }
    }
}

impl std::ops::Deref for Aligned {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.store[self.off..self.off + self.len]
    }
}

impl std::ops::DerefMut for Aligned {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.store[self.off..self.off + self.len]
    }
}

/// A point of the study: algorithm, operation, message and AAD bytes.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub a: Algorithm,
    pub op: Operation,
    pub size: usize,
    pub aad: usize,
}

/// A point of every member of a group, measured side by side: one result
/// per member, in order (one that could not be prepared or failed carries
/// its error), every measured one with `rounds` samples taken round by
/// round with the others'.
pub struct GroupRun {
    pub results: Vec<Result<measure::Measured>>,
    pub rounds: usize,
    pub steady: bool,
    pub budgets_used: usize,
    /// Round by round, whether it fell in a spell ([`ango_harness::noise::disturbed_rounds`]).
    pub disturbed: Vec<bool>,
}

/// Measure a point of every backend of `group` side by side
/// ([`measure::measure_in_turn`]): rounds until their ratios are steady or
/// the plan's time budgets are spent. A backend that fails does not stop
/// the others.
pub fn measure_group(
    group: &[&dyn Backend],
    at: Point,
    plan: &Plan,
    cc: &CycleCounter,
) -> std::result::Result<GroupRun, MeasureError<Error>> {
    let prepared: Vec<Result<PointOp>> = group
        .iter()
        .map(|&b| prepare_point(b, at.a, at.op, at.size, at.aad))
        .collect();
    let mut ops = Vec::new();
    let mut failed = Vec::new();
    for (i, p) in prepared.into_iter().enumerate() {
        match p {
            Ok(f) => ops.push(f),
            Err(e) => failed.push((i, e)),
        }
    }
    let run = measure::measure_in_turn(plan, cc, &mut ops)?;
    let mut measured = run.results.into_iter();
    let mut failed = failed.into_iter().peekable();
    let results = (0..group.len())
        .map(|i| match failed.next_if(|(j, _)| *j == i) {
            Some((_, e)) => Err(e),
            None => measured.next().expect("one result per prepared operation"),
        })
        .collect();
    Ok(GroupRun {
        results,
        rounds: run.rounds,
        steady: run.steady,
        budgets_used: run.budgets_used,
        disturbed: run.disturbed,
    })
}

/// Every measured member's [`Paired`](ango_core::Paired) block: its
/// Hodges-Lehmann ratio to each other measured member (the other's time
/// over its own, round by round), over the rounds outside spells when
/// there are enough of them ([`measure::quiet_rounds`]).
/// None for a member measured alone.
pub fn paired_blocks(
    group: &[&dyn Backend],
    (a, hw): (Algorithm, Hw),
    run: &GroupRun,
    plan: &Plan,
) -> Vec<Option<ango_core::Paired>> {
    use ango_harness::stats::{paired_ratio, PAIRED_ESTIMATOR};
    let used = measure::quiet_rounds(&run.disturbed);
    let rounds_used = used.as_ref().map_or(run.rounds, Vec::len);
    let ok: Vec<(usize, Vec<f64>)> = run
        .results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.as_ref()
                .ok()
                .map(|m| (i, measure::at_rounds(&m.sample_ns, used.as_deref())))
        })
        .collect();
    (0..group.len())
        .map(|i| {
            let mine = &ok.iter().find(|(j, _)| *j == i)?.1;
            let vs: Vec<ango_core::PairedVs> = ok
                .iter()
                .filter(|(j, _)| *j != i)
                .filter_map(|(j, other)| {
                    let j = *j;
                    let r = paired_ratio(other, mine)?;
                    Some(ango_core::PairedVs {
                        backend: group[j].name().into(),
                        implementation: group[j].implementation(a, hw),
                        ratio: r.ratio,
                        ci95_low: r.ci95_low,
                        ci95_high: r.ci95_high,
                    })
                })
                .collect();
            (!vs.is_empty()).then(|| ango_core::Paired {
                estimator: PAIRED_ESTIMATOR.into(),
                rounds: run.rounds as u64,
                rounds_disturbed: run.disturbed.iter().filter(|&&d| d).count() as u64,
                rounds_used: rounds_used as u64,
                steady: run.steady,
                steady_within: plan.steady_within,
                vs,
            })
        })
        .collect()
}

/// Put a fresh 64-bit message counter into the last 8 bytes of `nonce`.
fn set_counter(nonce: &mut [u8], ctr: u64) {
    let n = nonce.len();
    if n >= 8 {
        nonce[n - 8..].copy_from_slice(&ctr.to_be_bytes());
    }
}

/// One operation of a point, ready to time: owns its instance and buffers.
pub type PointOp<'a> = Box<dyn FnMut() -> Result<()> + 'a>;

/// Prepare one point: one complete operation on one message per call,
/// after a round trip at this very size has been checked.
pub fn prepare_point<'a>(
    b: &'a dyn Backend,
    a: Algorithm,
    op: Operation,
    size: usize,
    aad_len: usize,
) -> Result<PointOp<'a>> {
    let mut rng = Rng::new(0x5eed ^ size as u64);
    let mut key = vec![0u8; a.key_len()];
    rng.fill(&mut key);
    let mut msg = vec![0u8; size];
    rng.fill(&mut msg);
    let mut nonce = vec![0u8; a.nonce_len()];
    rng.fill(&mut nonce);
    match a.kind() {
        Kind::Aead => {
            let mut aad = vec![0u8; aad_len];
            rng.fill(&mut aad);
            let mut inst: Box<dyn Aead> = b.aead(a, &key, a.nonce_len(), a.tag_len())?;
            let mut tag = vec![0u8; a.tag_len()];
            // Round trip at this very size before timing.
            let mut ct = Aligned::from(&msg);
            inst.seal(&nonce, &aad, &mut ct, &mut tag)?;
            let mut back = Aligned::from(&vec![0u8; size]);
            inst.open(&nonce, &aad, &ct, &tag, &mut back)?;
            if *back != *msg {
                return Err(Error::Kat(format!(
                    "round trip at {size} bytes gave a different message"
                )));
            }
            let f: PointOp<'a> = match op {
                Operation::Encrypt => {
                    let mut ctr = 0u64;
                    let mut buf = Aligned::from(&msg);
                    Box::new(move || {
                        ctr = ctr.wrapping_add(1);
                        set_counter(&mut nonce, ctr);
                        inst.seal(&nonce, &aad, &mut buf, &mut tag)
                    })
                }
                Operation::Decrypt => {
                    Box::new(move || inst.open(&nonce, &aad, &ct, &tag, &mut back))
                }
            };
            Ok(f)
        }
        Kind::Cipher => {
            let mut inst: Box<dyn Cipher> = b.cipher(a, &key)?;
            if a == Algorithm::ChaCha20 {
                nonce[..4].fill(0);
            }
            let mut buf = Aligned::from(&msg);
            inst.encrypt(&nonce, &mut buf)?;
            inst.decrypt(&nonce, &mut buf)?;
            if *buf != *msg {
                return Err(Error::Kat(format!(
                    "round trip at {size} bytes gave a different message"
                )));
            }
            let mut ctr = 0u64;
            let fresh_iv = a.nonce_len() > 0;
            Ok(Box::new(move || {
                if fresh_iv {
                    ctr = ctr.wrapping_add(1);
                    // CTR: the message counter sits in the IV's upper half so
                    // the block counter in the lower half never wraps.
                    let at = if a == Algorithm::ChaCha20 { 4 } else { 0 };
                    nonce[at..at + 8].copy_from_slice(&ctr.to_be_bytes());
                }
                match op {
                    Operation::Encrypt => inst.encrypt(&nonce, &mut buf),
                    Operation::Decrypt => inst.decrypt(&nonce, &mut buf),
                }
            }))
        }
    }
}

/// The method sentence stored with each record and shown in the report.
pub fn method(a: Algorithm, op: Operation, aad: usize) -> String {
    match (a.kind(), op) {
        (Kind::Aead, Operation::Encrypt) => format!(
            "one complete seal per message: fresh {}-byte counter nonce, {aad}-byte AAD, in-place \
             encryption, final, {}-byte tag; key schedule once, outside the timing",
            a.nonce_len(),
            a.tag_len()
        ),
        (Kind::Aead, Operation::Decrypt) => format!(
            "one complete open per message: nonce, {aad}-byte AAD, ciphertext decrypted into a \
             separate buffer, {}-byte tag verified (a rejected tag aborts the point); key \
             schedule once, outside the timing",
            a.tag_len()
        ),
        (Kind::Cipher, _) => {
            let verb = match op {
                Operation::Encrypt => "encrypted",
                Operation::Decrypt => "decrypted",
            };
            if a.nonce_len() == 0 {
                format!("one message {verb} in place, whole blocks, no padding; key schedule once, outside the timing")
            } else {
                format!("one message {verb} in place from a fresh IV; key schedule once, outside the timing")
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn to_record(
    spec: &SpeedSpec,
    b: &dyn Backend,
    a: Algorithm,
    op: Operation,
    hw: Hw,
    size: usize,
    kat: &str,
    cpu_view: Option<String>,
    m: &measure::Measured,
) -> (SpeedRecord, SampleSet) {
    let s = &m.ns;
    let mut warnings = Vec::new();
    if s.noisy() {
        warnings.push(format!(
            "noisy: robust CV {:.1}% > {:.0}%",
            s.robust_cv * 100.0,
            ango_harness::stats::NOISY_ROBUST_CV * 100.0
        ));
    }
    if s.ci_coverage < 0.95 {
        warnings.push(format!(
            "only {} samples: the median's interval covers {:.1}%, not 95%",
            s.n,
            s.ci_coverage * 100.0
        ));
    }
    let cycles_per_op = m.cycles.as_ref().map(|c| c.median);
    let (time, _) = ango_core::results::utc_now();
    let record = SpeedRecord {
        head: ango_core::Header::new(spec.suite, spec.run_id.clone()),
        library_version: b.version(),
        algorithm: a.name().into(),
        operation: op.name().into(),
        backend: b.name().into(),
        implementation: b.implementation(a, hw),
        hw: hw.name().into(),
        ia32cap: hw.ia32cap().map(String::from),
        library_cpu_view: cpu_view,
        size_bytes: size as u64,
        aad_bytes: if a.kind() == Kind::Aead {
            spec.aad as u64
        } else {
            0
        },
        samples: s.n as u64,
        iterations_per_sample: m.iterations_per_sample,
        stats: s.stats(),
        bytes_per_second: if s.median > 0.0 {
            size as f64 * 1e9 / s.median
        } else {
            0.0
        },
        cycles_per_byte: cycles_per_op.filter(|_| size > 0).map(|c| c / size as f64),
        cycles_per_op,
        cycle_source: m.cycle_source.name().into(),
        timer_overhead_ns: m.timer_overhead_ns,
        noisy: s.noisy(),
        attempts: 1,
        warnings,
        kat: kat.into(),
        method: method(a, op, spec.aad),
        time,
        workers: 1,
        multi: None,
        paired: None,
        auto: (b.name() == ango_backends::prims::PROVIDER.name
            && b.implementation(a, hw) == "auto")
            .then(|| ango_backends::prims::auto_pick(a, op, size)),
    };
    let samples = SampleSet {
        run_id: spec.run_id.clone(),
        suite: spec.suite,
        algorithm: a.name().into(),
        operation: op.name().into(),
        backend: b.name().into(),
        implementation: record.implementation.clone(),
        hw: hw.name().into(),
        size_bytes: size as u64,
        iterations_per_sample: m.iterations_per_sample,
        sample_ns: m.sample_ns.clone(),
        workers: 1,
    };
    (record, samples)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::Unavailable;
    use std::time::{Duration, Instant};

    struct JitteryAead(u64);

    impl Aead for JitteryAead {
        fn seal(&mut self, _: &[u8], _: &[u8], _: &mut [u8], _: &mut [u8]) -> Result<()> {
            // Runs of 16 fast calls, then 16 slow ones: samples of a few
            // calls each land in one run or the other.
            self.0 += 1;
            let wait = if (self.0 / 16).is_multiple_of(2) {
                2
            } else {
                40
            };
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(wait) {}
            Ok(())
        }
        fn open(&mut self, _: &[u8], _: &[u8], ct: &[u8], _: &[u8], out: &mut [u8]) -> Result<()> {
            out.copy_from_slice(ct);
            Ok(())
        }
    }

    /// A test backend named `0` whose AEAD instances `1` makes.
    struct Fake(&'static str, fn() -> Box<dyn Aead>);

    impl Backend for Fake {
        fn name(&self) -> &'static str {
            self.0
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn availability(&self, _: Algorithm, _: Hw) -> Result<(), Unavailable> {
            Ok(())
        }
        fn implementation(&self, _: Algorithm, _: Hw) -> String {
            "test".into()
        }
        fn aead(&self, _: Algorithm, _: &[u8], _: usize, _: usize) -> Result<Box<dyn Aead>> {
            Ok((self.1)())
        }
        fn cipher(&self, _: Algorithm, _: &[u8]) -> Result<Box<dyn Cipher>> {
            Err(Error::usage("no ciphers"))
        }
    }

    /// Takes 2 µs or 40 µs in turn: always noisy.
    const JITTERY: Fake = Fake("jittery", || Box::new(JitteryAead(1)));
    /// Always the same few nanoseconds.
    const STEADY: Fake = Fake("steady", || Box::new(SteadyAead));

    fn plan() -> Plan {
        Plan {
            samples: Some(30),
            min_sample: Duration::from_micros(50),
            warmup: Duration::from_millis(1),
            ..Plan::with_time(0.01)
        }
    }

    /// The point the group tests measure: AES-128-GCM sealing 64 bytes.
    fn gcm_64() -> Point {
        Point {
            a: Algorithm::Aes128Gcm,
            op: Operation::Encrypt,
            size: 64,
            aad: 13,
        }
    }

    struct SteadyAead;

    impl Aead for SteadyAead {
        fn seal(&mut self, _: &[u8], _: &[u8], buf: &mut [u8], _: &mut [u8]) -> Result<()> {
            std::hint::black_box(buf);
            Ok(())
        }
        fn open(&mut self, _: &[u8], _: &[u8], ct: &[u8], _: &[u8], out: &mut [u8]) -> Result<()> {
            out.copy_from_slice(ct);
            Ok(())
        }
    }

    #[test]
    fn a_group_is_measured_round_by_round_with_paired_ratios() {
        let cc = CycleCounter::open();
        let at = gcm_64();
        let a = at.a;
        let group: [&dyn Backend; 2] = [&STEADY, &JITTERY];
        let run = measure_group(&group, at, &plan(), &cc).unwrap();
        assert_eq!(run.rounds, 30);
        let (steady, jittery) = (
            run.results[0].as_ref().unwrap(),
            run.results[1].as_ref().unwrap(),
        );
        assert_eq!((steady.sample_ns.len(), jittery.sample_ns.len()), (30, 30));
        assert!(steady.ns.median < jittery.ns.median);
        // Each gets the other's time over its own, round by round.
        let paired = paired_blocks(&group, (a, Hw::On), &run, &plan());
        let (ps, pj) = (paired[0].as_ref().unwrap(), paired[1].as_ref().unwrap());
        assert_eq!((ps.vs.len(), pj.vs.len()), (1, 1));
        assert_eq!(ps.vs[0].backend, "jittery");
        assert_eq!(pj.vs[0].backend, "steady");
        assert!(
            ps.vs[0].ratio > 1.0 && pj.vs[0].ratio < 1.0,
            "{ps:?} {pj:?}"
        );
        assert!(ps.vs[0].ci95_low <= ps.vs[0].ratio && ps.vs[0].ratio <= ps.vs[0].ci95_high);
        assert!((ps.vs[0].ratio * pj.vs[0].ratio - 1.0).abs() < 1e-9);
        assert_eq!((ps.estimator.as_str(), ps.rounds), ("hodges-lehmann", 30));
        // A member measured alone has no ratios.
        let alone = measure_group(&[&STEADY], at, &plan(), &cc).unwrap();
        assert!(paired_blocks(&[&STEADY], (a, Hw::On), &alone, &plan())[0].is_none());
    }

    #[test]
    fn the_paired_ratios_leave_out_the_rounds_of_a_spell() {
        let cc = CycleCounter::open();
        let at = gcm_64();
        let a = at.a;
        let group: [&dyn Backend; 2] = [&STEADY, &JITTERY];
        let mut run = measure_group(&group, at, &plan(), &cc).unwrap();
        assert_eq!(run.disturbed.len(), 30);
        // Rounds 0-19 quiet with jittery twice as slow; 20-29 in a spell
        // that slows it five times (a third of the rounds: more than the
        // Hodges-Lehmann estimate shrugs off).
        run.results[0].as_mut().unwrap().sample_ns = vec![10.0; 30];
        run.results[1].as_mut().unwrap().sample_ns =
            (0..30).map(|r| if r < 20 { 20.0 } else { 50.0 }).collect();
        run.disturbed = (0..30).map(|r| r >= 20).collect();
        let p = paired_blocks(&group, (a, Hw::On), &run, &plan());
        let ps = p[0].as_ref().unwrap();
        assert_eq!(
            (ps.rounds, ps.rounds_disturbed, ps.rounds_used),
            (30, 10, 20)
        );
        assert!((ps.vs[0].ratio - 2.0).abs() < 1e-12, "{ps:?}");
        // Every round counted, the spell moves the ratio (to the square
        // root of 10, the mixed pairs' average).
        run.disturbed = vec![false; 30];
        let p = paired_blocks(&group, (a, Hw::On), &run, &plan());
        let ps = p[0].as_ref().unwrap();
        assert_eq!((ps.rounds_disturbed, ps.rounds_used), (0, 30));
        assert!(ps.vs[0].ratio > 3.0, "{ps:?}");
        // Fewer than 20 quiet rounds: all are used.
        run.disturbed = (0..30).map(|r| r >= 19).collect();
        let p = paired_blocks(&group, (a, Hw::On), &run, &plan());
        let ps = p[0].as_ref().unwrap();
        assert_eq!((ps.rounds_disturbed, ps.rounds_used), (11, 30));
    }

    #[test]
    fn a_group_that_is_not_steady_spends_its_retries_and_says_so() {
        let cc = CycleCounter::open();
        let at = gcm_64();
        let group: [&dyn Backend; 2] = [&STEADY, &JITTERY];
        let timed = |budgets: usize| Plan {
            samples: None,
            min_samples: 5,
            steady_within: Some(1e-9),
            budgets,
            ..plan()
        };
        for budgets in [1, 3] {
            let run = measure_group(&group, at, &timed(budgets), &cc).unwrap();
            assert!(!run.steady);
            assert_eq!(run.budgets_used, budgets);
        }
        // Steady early: a loose bar after the fewest rounds allowed.
        let loose = Plan {
            steady_within: Some(10.0),
            ..timed(3)
        };
        let run = measure_group(&group, at, &loose, &cc).unwrap();
        assert!(run.steady);
        assert_eq!(run.budgets_used, 1);
    }

    #[test]
    fn a_pair_that_fails_its_known_answers_is_not_timed() {
        // Jittery's seal leaves the plaintext as it is: every vector fails.
        let spec = SpeedSpec {
            run_id: "t".into(),
            algorithms: vec![Algorithm::Aes128Gcm],
            points: vec![],
            skips: vec![],
            hw: vec![Hw::On],
            sizes: vec![64],
            aad: 13,
            ops: vec![Operation::Encrypt],
            time: 0.01,
            samples: Some(3),
            retries: 0,
            suite: SUITE,
            multi: vec![],
        };
        let cc = CycleCounter::open();
        let mut sink = crate::event::VecSink::default();
        let out = run_local(
            &spec,
            &[&JITTERY],
            Hw::On,
            Algorithm::Aes128Gcm,
            &cc,
            &mut sink,
        )
        .unwrap();
        assert_eq!((out.points, out.kat_failures), (0, 1));
        assert!(sink
            .0
            .iter()
            .any(|e| matches!(e, Event::Kat { ok: false, .. })));
        assert!(!sink.0.iter().any(|e| matches!(e, Event::Point { .. })));
    }

    #[test]
    fn ecb_sizes_must_be_whole_blocks() {
        let spec = SpeedSpec {
            run_id: "t".into(),
            algorithms: vec![Algorithm::Aes128Ecb],
            points: vec![],
            skips: vec![],
            hw: vec![Hw::On],
            sizes: vec![16, 20],
            aad: 13,
            ops: vec![Operation::Encrypt],
            time: 0.01,
            samples: None,
            retries: 0,
            suite: SUITE,
            multi: vec![],
        };
        assert!(spec
            .validate()
            .unwrap_err()
            .to_string()
            .contains("multiple of 16"));
    }

    #[test]
    fn names_resolve_once_into_entries_and_skips() {
        let c = ango_backends::catalog();
        let providers: Vec<&'static Provider> = c.providers.clone();
        let algos = [Algorithm::Aes128Gcm, Algorithm::XChaCha20Poly1305];
        let (run, skip) =
            resolve(c, &algos, &providers, &["auto".into()], &[Hw::On, Hw::Off]).unwrap();
        // Every planned id names a catalog entry of a chosen algorithm that
        // runs under its setting.
        for p in &run {
            let e = c.entry(&p.entry).unwrap();
            assert!(e.runs(p.hw).is_ok(), "{p:?}");
            assert!(algos.iter().any(|&a| e.algorithm == AlgorithmId::Sym(a)));
        }
        // A provider with variants gives its automatic one (once per
        // setting it runs under); a provider without the algorithm is a
        // skip with a note, as is a setting an entry cannot take.
        let has = |p: &Provider| {
            algos
                .iter()
                .all(|&a| c.of_provider(AlgorithmId::Sym(a), p).next().is_some())
        };
        for p in providers.iter().filter(|p| p.has_variants && has(p)) {
            let autos = run
                .iter()
                .filter(|x| c.entry(&x.entry).unwrap().provider.name == p.name)
                .count();
            assert_eq!(autos, algos.len(), "{}", p.name);
            assert!(skip.iter().any(|k| k.backend == p.name && k.hw == Hw::Off));
        }
        for p in providers.iter().filter(|p| !p.has_variants || !has(p)) {
            for &a in &algos {
                let planned = run.iter().any(|x| {
                    let e = c.entry(&x.entry).unwrap();
                    e.provider.name == p.name && e.algorithm == AlgorithmId::Sym(a)
                });
                let skipped = skip.iter().any(|k| k.backend == p.name && k.algorithm == a);
                assert!(planned || skipped, "{} {a}: neither run nor skip", p.name);
            }
        }
        // An --impl pattern that selects nothing names the valid ones.
        let e = resolve(c, &algos, &providers, &["chacha20/avx9".into()], &[Hw::On])
            .unwrap_err()
            .to_string();
        assert!(e.contains("chacha20/portable+poly1305/radix26"), "{e}");
        assert!(resolve(c, &algos, &providers, &[], &[Hw::On]).is_err());
    }
}
