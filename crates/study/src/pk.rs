//! The public-key study of seed 003 §4-1 and §4-2: key generation,
//! encapsulation and decapsulation of KEMs, key generation, signing and
//! verification of signatures, every call timed on its own (a distribution,
//! not a batch mean), the first call of each operation dropped.
//!
//! Each (algorithm, backend) is checked before it is timed: a round trip,
//! tampered inputs rejected, ML-KEM's implicit rejection, and the sizes of
//! what it produced. A failing pair is reported and not timed.

use crate::event::{Event, Sink};
use ango_core::pk::{PkAlgorithm, PkBackend, PkInstance as Inst, PkOp, Timing};
use ango_core::{AlgorithmId, EntryBackend, Error, PkRecord, PkSamples, Provider, Result};
use ango_harness::measure::{stop_requested, timer_overhead_ns};
use ango_harness::stats::Summary;
use ango_harness::CycleCounter;
use ango_verify::cross::Rng;
use ango_verify::pk::{all_checks, cross_checks, donor, summary_line, Donor};
use std::time::{Duration, Instant};

pub const SUITE: ango_core::SuiteId = ango_core::SuiteId::Pk;
pub const DEFAULT_ITERATIONS: usize = 1000;
pub const QUICK_ITERATIONS: usize = 50;
pub const DEFAULT_MESSAGE_BYTES: usize = 32;
/// Longest time one point may take before it stops early (and says so).
pub const DEFAULT_MAX_SECONDS: f64 = 60.0;

pub use ango_core::record::{message_note, X25519_NOTE};

#[derive(Clone, Debug)]
pub struct PkSpec {
    pub run_id: String,
    pub algorithms: Vec<PkAlgorithm>,
    /// The providers asked for (resolved at the command line).
    pub providers: Vec<&'static Provider>,
    pub ops: Vec<PkOp>,
    /// Calls kept per point; one more is made first and dropped.
    pub iterations: usize,
    pub message_bytes: usize,
    /// A point stops after this long even if fewer calls were made.
    pub max_seconds: f64,
    /// How each operation is timed: `operation`, `api-call` or both (one
    /// record each).
    pub timings: Vec<Timing>,
    /// `--multi`: the CPU of each worker. With two or more, each operation
    /// is timed by one worker on the first, then by all at once (each its
    /// own instance, keys and `iterations` calls, started together), and
    /// one record with `workers` = their number is kept. Empty: one worker.
    pub multi: Vec<usize>,
}

impl PkSpec {
    /// The (backend, algorithm) pairs to measure and those that cannot be,
    /// with the reason.
    pub fn plan(&self) -> Result<PkPlan> {
        let mut plan = PkPlan {
            timings: self.timings.len(),
            ..PkPlan::default()
        };
        let catalog = ango_backends::catalog();
        for &a in &self.algorithms {
            for p in &self.providers {
                let mut entries = catalog.of_provider(AlgorithmId::Pk(a), p).peekable();
                if entries.peek().is_none() {
                    plan.skip
                        .push((p.name.to_string(), a, format!("{} has no {a}", p.name)));
                }
                for e in entries {
                    match &e.available {
                        Ok(()) => {
                            let wanted = |o: &PkOp| self.ops.contains(o);
                            for line in e.untimed_lines(|o| wanted(&o)) {
                                plan.skip.push((e.label(), a, line));
                            }
                            let ops: Vec<PkOp> = a
                                .ops()
                                .iter()
                                .copied()
                                .filter(wanted)
                                .filter(|o| e.untimed.iter().all(|(u, _)| u != o))
                                .collect();
                            if !ops.is_empty() {
                                plan.run.push((EntryBackend(e), a, ops));
                            }
                        }
                        Err(why) => plan.skip.push((p.name.to_string(), a, why.clone())),
                    }
                }
            }
        }
        Ok(plan)
    }
}

#[derive(Default)]
pub struct PkPlan {
    pub run: Vec<(EntryBackend<'static>, PkAlgorithm, Vec<PkOp>)>,
    pub skip: Vec<(String, PkAlgorithm, String)>,
    /// How many timings each operation is measured with.
    pub timings: usize,
}

impl PkPlan {
    pub fn points(&self) -> usize {
        self.run.iter().map(|(_, _, ops)| ops.len()).sum::<usize>() * self.timings
    }
}

/// The event of one pair's checks, its failures divided between known
/// library defects (`vectors/known-defects.toml`) and the rest.
pub fn check_event(b: &EntryBackend, a: PkAlgorithm, c: &ango_verify::pk::Checked) -> Event {
    let e = ango_verify::pk::explain(b, a, c);
    Event::PkCheck {
        backend: b.0.label(),
        algorithm: a,
        ok: c.failures.is_empty(),
        summary: summary_line(c),
        counts: Some(ango_verify::pk::case_counts(c)),
        failures: e.unexplained.iter().map(|f| f.text.clone()).collect(),
        version: b.version(),
        known: e.known,
        not_reproduced: e.not_reproduced,
    }
}

/// Run `call` between two readings of the clock and the cycle counter:
/// (its result, ns, cycles).
fn timed<T>(cc: &CycleCounter, call: impl FnOnce() -> T) -> (T, f64, u64) {
    let c0 = cc.read();
    let t0 = Instant::now();
    let out = call();
    let t = t0.elapsed();
    let c1 = cc.read();
    (out, t.as_nanos() as f64, c1.wrapping_sub(c0))
}

/// Time one call per iteration (plus one dropped first call), each on its
/// own: `step` times its call with [`timed`] and checks the output after
/// the clock has stopped (so neither the check nor freeing the output is
/// timed), returning (ns, cycles). Stops early at `max` or on Ctrl-C.
fn time_calls(
    iterations: usize,
    max: Duration,
    mut step: impl FnMut() -> Result<(f64, u64)>,
) -> Result<(Vec<f64>, Vec<u64>, bool)> {
    let mut ns = Vec::with_capacity(iterations + 1);
    let mut cy = Vec::with_capacity(iterations + 1);
    let start = Instant::now();
    let mut cut = false;
    for i in 0..=iterations {
        if stop_requested() {
            cut = true;
            break;
        }
        if i > 1 && start.elapsed() > max {
            cut = true;
            break;
        }
        let (n, c) = step()?;
        ns.push(n);
        cy.push(c);
    }
    Ok((ns, cy, cut))
}

/// One timed API call whose output must pass `check` (else `failure`).
fn checked<T>(
    cc: &CycleCounter,
    call: impl FnOnce() -> Result<T>,
    check: impl FnOnce(T) -> bool,
    failure: &str,
) -> Result<(f64, u64)> {
    let (out, n, c) = timed(cc, call);
    if !check(out?) {
        return Err(Error::Kat(failure.into()));
    }
    Ok((n, c))
}

pub struct PkOutcome {
    pub interrupted: bool,
}

/// Run the study, emitting events as results arrive.
pub fn run(spec: &PkSpec, sink: &mut dyn Sink) -> Result<PkOutcome> {
    let plan = spec.plan()?;
    for (backend, algorithm, reason) in &plan.skip {
        sink.event(Event::PkSkip {
            backend: backend.clone(),
            algorithm: *algorithm,
            reason: reason.clone(),
        })?;
    }
    let cc = CycleCounter::open();
    let overhead = timer_overhead_ns(&cc);
    // New each run: the clock and the process id seed the checks' tampering
    // positions and the signed message.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ (u64::from(std::process::id()) << 32);
    let mut rng = Rng::new(seed);
    let max = Duration::from_secs_f64(spec.max_seconds);
    let mut msg = vec![0u8; spec.message_bytes];
    rng.fill(&mut msg);
    let mut crossed: Vec<PkAlgorithm> = Vec::new();
    for (_, a, _) in &plan.run {
        if crossed.contains(a) {
            continue;
        }
        crossed.push(*a);
        let entries: Vec<&EntryBackend> = plan
            .run
            .iter()
            .filter(|(_, x, _)| x == a)
            .map(|(b, _, _)| b)
            .collect();
        if entries.len() < 2 {
            continue;
        }
        let bs: Vec<&dyn PkBackend> = entries.iter().map(|b| *b as &dyn PkBackend).collect();
        let (passed, failures) = cross_checks(&bs, *a);
        let names: Vec<String> = entries.iter().map(|b| b.0.label()).collect();
        sink.event(Event::PkCheck {
            backend: format!("cross-library {}", names.join("/")),
            algorithm: *a,
            ok: failures.is_empty(),
            summary: if failures.is_empty() {
                format!("pass {passed}/{passed} ordered pairs")
            } else {
                format!(
                    "FAIL {}/{} ordered pairs",
                    failures.len(),
                    passed + failures.len()
                )
            },
            counts: Some(ango_core::CaseCounts::new(passed, failures.len(), 0)),
            failures,
            version: String::new(),
            known: Vec::new(),
            not_reproduced: Vec::new(),
        })?;
    }
    for (b, a, ops) in &plan.run {
        if stop_requested() {
            return Ok(PkOutcome { interrupted: true });
        }
        let checked = all_checks(b, *a, &mut rng);
        // Failures that only an `input-check` known defect explains (an
        // unchecked key; valid inputs give right results) do not stop it.
        let ok = checked.failures.is_empty()
            || ango_verify::pk::explain(b, *a, &checked).only_input_checks();
        let summary = summary_line(&checked);
        let sizes = checked.sizes.clone();
        sink.event(check_event(b, *a, &checked))?;
        if !ok {
            continue;
        }
        let mut inst = Inst::new(b, *a)?;
        // A verify-only signer (ring's RSA) verifies key pairs and
        // signatures made by another provider, named in each record.
        let mut maker = donor(b, *a)?;
        let source = maker.as_ref().map(|(_, name)| name.clone());
        let library_version = b.version();
        for (op, timing) in ops
            .iter()
            .flat_map(|&op| spec.timings.iter().map(move |&t| (op, t)))
        {
            if stop_requested() {
                return Ok(PkOutcome { interrupted: true });
            }
            let measured = if spec.multi.len() > 1 {
                on_workers(b, *a, op, timing, &msg, spec.iterations, max, &spec.multi)
            } else {
                measure_op(
                    &mut inst,
                    &mut maker,
                    op,
                    timing,
                    &msg,
                    &cc,
                    spec.iterations,
                    max,
                )
                .map(|m| (m, None))
            };
            let ((ns, cy, cut, hoisted), multi) = match measured {
                Ok(x) => x,
                Err(_) if stop_requested() => return Ok(PkOutcome { interrupted: true }),
                Err(e) => {
                    sink.event(Event::Error {
                        message: format!("{} {} {op} ({timing}): {e}", b.0.label(), a),
                    })?;
                    continue;
                }
            };
            if ns.len() < 2 {
                // Interrupted before anything was kept.
                return Ok(PkOutcome { interrupted: true });
            }
            let kept_ns = ns[1..].to_vec();
            let kept_cy = cy[1..].to_vec();
            let s = Summary::of(&kept_ns).ok_or_else(|| Error::Kat("no samples".into()))?;
            let mut warnings = Vec::new();
            if cut && kept_ns.len() < spec.iterations {
                warnings.push(format!(
                    "stopped after {} of {} calls ({} s limit per point or Ctrl-C)",
                    kept_ns.len(),
                    spec.iterations,
                    spec.max_seconds
                ));
            }
            let mut cys: Vec<f64> = kept_cy.iter().map(|&c| c as f64).collect();
            cys.sort_by(|x, y| x.partial_cmp(y).expect("finite"));
            let cycles = (cc.source() != ango_harness::CycleSource::None)
                .then(|| ango_harness::stats::quantile_sorted(&cys, 0.5));
            let (now, _) = ango_core::results::utc_now();
            let mut record = PkRecord {
                head: ango_core::Header::new(SUITE, spec.run_id.clone()),
                library_version: library_version.clone(),
                timing: timing.name().into(),
                algorithm: a.name().into(),
                kind: a.kind().name().into(),
                operation: op.name().into(),
                backend: b.name().into(),
                variant: b.0.provider.has_variants.then(|| b.0.variant.clone()),
                implementation: b.implementation(*a),
                iterations: kept_ns.len() as u64,
                dropped: 1,
                message_bytes: matches!(op, PkOp::Sign | PkOp::Verify)
                    .then_some(spec.message_bytes as u64),
                stats: s.stats(),
                cycles_per_op: cycles,
                cycle_source: cc.source().name().into(),
                timer_overhead_ns: overhead,
                sizes: sizes.clone(),
                verify: summary.clone(),
                note: (*a == PkAlgorithm::X25519 && op != PkOp::Keygen)
                    .then(|| X25519_NOTE.to_string()),
                warnings,
                method: format!(
                    "each call timed on its own with the monotonic clock ({} calls, the first \
                     dropped); {}; {}",
                    kept_ns.len() + 1,
                    if hoisted && *a == PkAlgorithm::X25519 && op == PkOp::Encaps {
                        "timing: operation (the key-generation context is reused; the \
                         derivation context belongs to each new ephemeral key, so it is made \
                         per call, as any X25519 client must)"
                    } else {
                        timing_note(timing, hoisted)
                    },
                    if let Some(src) = &source {
                        format!(
                            "{}; the key pair and signature verified were made by {src} ({} \
                             makes no {a} keys)",
                            message_note(spec.message_bytes),
                            b.0.label()
                        )
                    } else if matches!(op, PkOp::Sign | PkOp::Verify) {
                        message_note(spec.message_bytes)
                    } else {
                        "inputs fixed before timing (one key pair, one ciphertext)".into()
                    }
                ),
                time: now,
                workers: 1,
                multi: None,
            };
            if let Some(m) = multi {
                record.workers = m.per_worker.len() as u32;
                record.method.push_str(&format!(
                    "; {} workers at once, each pinned to its own CPU ({}) with its own instance \
                     and {} calls, started together, after one worker alone on CPU {}; the \
                     statistics pool every worker's calls",
                    m.per_worker.len(),
                    m.cpus
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    spec.iterations,
                    m.single.cpu
                ));
                record.multi = Some(m);
            }
            let samples = PkSamples {
                run_id: spec.run_id.clone(),
                algorithm: a.name().into(),
                operation: op.name().into(),
                timing: timing.name().into(),
                backend: b.name().into(),
                variant: b.0.provider.has_variants.then(|| b.0.variant.clone()),
                sample_ns: kept_ns,
                sample_cycles: (cc.source() != ango_harness::CycleSource::None).then_some(kept_cy),
                workers: record.workers,
            };
            sink.event(Event::PkPoint {
                record: Box::new(record),
                samples: Box::new(samples),
            })?;
            if cut && stop_requested() {
                return Ok(PkOutcome { interrupted: true });
            }
        }
    }
    Ok(PkOutcome { interrupted: false })
}

/// A worker's figure from its kept calls (the first dropped).
fn figure(cpu: usize, m: &Measured) -> Result<ango_core::WorkerFigure> {
    let s = Summary::of(m.0.get(1..).unwrap_or_default())
        .ok_or_else(|| Error::Kat("a worker kept no calls".into()))?;
    Ok(ango_core::WorkerFigure {
        cpu,
        median_ns: s.median,
        ci95_low_ns: s.ci95_low,
        ci95_high_ns: s.ci95_high,
        robust_cv: s.robust_cv,
        samples: s.n as u64,
        per_second: if s.median > 0.0 { 1e9 / s.median } else { 0.0 },
    })
}

/// `--multi`: time `op` with one worker on `cpus[0]`, then with one worker
/// per CPU at once. Returns the pooled calls (one dropped first call, then
/// every worker's kept calls, worker after worker; cut short if any was)
/// and the multi-core figures.
#[allow(clippy::too_many_arguments)]
fn on_workers(
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    timing: Timing,
    msg: &[u8],
    iterations: usize,
    max: Duration,
    cpus: &[usize],
) -> Result<(Measured, Option<ango_core::MultiCore>)> {
    let one = workers(b, a, op, timing, msg, iterations, max, &cpus[..1])?;
    let many = workers(b, a, op, timing, msg, iterations, max, cpus)?;
    let single = figure(cpus[0], &one[0])?;
    let figs = many
        .iter()
        .zip(cpus)
        .map(|(m, &c)| figure(c, m))
        .collect::<Result<Vec<_>>>()?;
    let mut ns = vec![many[0].0[0]];
    let mut cy = vec![many[0].1.first().copied().unwrap_or(0)];
    for m in &many {
        ns.extend_from_slice(&m.0[1..]);
        cy.extend_from_slice(m.1.get(1..).unwrap_or_default());
    }
    let cut = many.iter().any(|m| m.2);
    let hoisted = many[0].3;
    Ok((
        (ns, cy, cut, hoisted),
        Some(ango_core::MultiCore::from(single, figs, 1.0)),
    ))
}

/// A worker's start: pinned to `cpu`, with its own instance and donor.
fn prepare_worker(b: &EntryBackend<'static>, a: PkAlgorithm, cpu: usize) -> Result<(Inst, Donor)> {
    ango_harness::affinity::pin_thread(cpu)
        .map_err(|e| Error::io(format!("--multi: cannot pin a worker to CPU {cpu}"), e))?;
    Ok((Inst::new(b, a)?, donor(b, a)?))
}

/// One thread per CPU of `cpus`, pinned to it, each with its own instance
/// (and donor), timing `op` once all are ready.
#[allow(clippy::too_many_arguments)]
fn workers(
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    timing: Timing,
    msg: &[u8],
    iterations: usize,
    max: Duration,
    cpus: &[usize],
) -> Result<Vec<Measured>> {
    let ready = std::sync::Barrier::new(cpus.len());
    let out: Vec<Result<Measured>> = std::thread::scope(|s| {
        let hs: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let ready = &ready;
                s.spawn(move || {
                    // A worker that fails to prepare still meets the others
                    // at the barrier.
                    let prepared = prepare_worker(b, a, cpu);
                    ready.wait();
                    let (mut inst, mut maker) = prepared?;
                    // A counter per thread: a perf counter counts only the
                    // thread that opened it.
                    let cc = CycleCounter::open();
                    measure_op(&mut inst, &mut maker, op, timing, msg, &cc, iterations, max)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a public-key worker panicked"))
            .collect()
    });
    let out = out.into_iter().collect::<Result<Vec<_>>>()?;
    if out.iter().any(|m| m.0.len() < 2) {
        return Err(Error::Kat(
            "a worker was stopped before it kept a call (Ctrl-C)".into(),
        ));
    }
    Ok(out)
}

/// What a record's timing means, in its method.
pub fn timing_note(t: Timing, hoisted: bool) -> &'static str {
    match (t, hoisted) {
        (Timing::Operation, true) => {
            "timing: operation (contexts, fetched algorithms and parsed keys made before the \
             clock and reused; only the operation is timed, as openssl speed does)"
        }
        (Timing::Operation, false) => {
            "timing: operation (this library's calls have no per-call set-up to hoist, so it \
             times the same calls as api-call)"
        }
        (Timing::ApiCall, _) => {
            "timing: api-call (each call makes its own context, with OpenSSL its implicit \
             algorithm fetch, and returns the encoded output, as a program that sets up per \
             call pays)"
        }
    }
}

/// The check of operations whose output needs none.
fn any<T>(_: T) -> bool {
    true
}

/// Samples of one operation: (ns, cycles, cut short, whether per-call
/// set-up was hoisted out of the timed call).
type Measured = (Vec<f64>, Vec<u64>, bool, bool);

/// The inputs of `op`, made before anything is measured: a key pair, the
/// peer key, a ciphertext (with its secret) or a signature, whichever `op`
/// needs: (ciphertext, shared secret, signature).
fn inputs(
    inst: &mut Inst,
    maker: &mut Donor,
    op: PkOp,
    msg: &[u8],
) -> Result<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    Ok(match (&mut *inst, op) {
        (Inst::Kem(k), PkOp::Encaps | PkOp::Decaps) => {
            let pk = k.keygen()?;
            k.set_peer(&pk)?;
            let (ct, ss) = k.encaps()?;
            (ct, ss, Vec::new())
        }
        (Inst::Sig(s), PkOp::Sign | PkOp::Verify) => {
            let (pk, sig) = match maker {
                Some((m, _)) => (m.keygen()?, m.sign(msg)?),
                None => (s.keygen()?, s.sign(msg)?),
            };
            s.set_peer(&pk)?;
            (Vec::new(), Vec::new(), sig)
        }
        _ => Default::default(),
    })
}

/// Hand `f` one call of `op` at a time, made as `timing: operation` makes
/// it (the library's prepared operation where it has one, else its API
/// call), its inputs made first; each call checks its output as a timed
/// call does (decaps: the encapsulated secret; verify: accepted).
pub(crate) fn with_call<R>(
    inst: &mut Inst,
    maker: &mut Donor,
    op: PkOp,
    msg: &[u8],
    f: impl FnOnce(&mut dyn FnMut() -> Result<()>) -> Result<R>,
) -> Result<R> {
    let (ct, ss, sig) = inputs(inst, maker, op, msg)?;
    let wrong = |what: &str| Error::Kat(format!("{what} while its memory was measured"));
    {
        let prepared = match &mut *inst {
            Inst::Kem(k) => k.prepare(op, &ct)?,
            Inst::Sig(s) => s.prepare(op, msg, &sig)?,
        };
        if let Some(mut p) = prepared {
            let want: Option<&[u8]> = match op {
                PkOp::Decaps => Some(&ss),
                PkOp::Verify => Some(&[1]),
                _ => None,
            };
            return f(&mut || {
                p.run()?;
                match want {
                    Some(w) if p.output() != w => {
                        Err(wrong("a prepared operation gave a wrong output"))
                    }
                    _ => Ok(()),
                }
            });
        }
    }
    match (&mut *inst, op) {
        (Inst::Kem(k), PkOp::Keygen) => f(&mut || k.keygen().map(drop)),
        (Inst::Kem(k), PkOp::Encaps) => f(&mut || k.encaps().map(drop)),
        (Inst::Kem(k), PkOp::Decaps) => f(&mut || {
            if k.decaps(&ct)? != ss {
                return Err(wrong("decaps returned a wrong secret"));
            }
            Ok(())
        }),
        (Inst::Sig(s), PkOp::Keygen) => f(&mut || s.keygen().map(drop)),
        (Inst::Sig(s), PkOp::Sign) => f(&mut || s.sign(msg).map(drop)),
        (Inst::Sig(s), PkOp::Verify) => f(&mut || {
            if !s.verify(msg, &sig)? {
                return Err(wrong("verify rejected a valid signature"));
            }
            Ok(())
        }),
        (_, op) => Err(Error::usage(format!("operation {op} does not apply here"))),
    }
}

/// Set up the inputs of `op` (untimed) and time it, with `timing`'s
/// calls: the library's prepared operation, or the whole API call.
#[allow(clippy::too_many_arguments)]
fn measure_op(
    inst: &mut Inst,
    maker: &mut Donor,
    op: PkOp,
    timing: Timing,
    msg: &[u8],
    cc: &CycleCounter,
    iterations: usize,
    max: Duration,
) -> Result<Measured> {
    let tag = |r: Result<(Vec<f64>, Vec<u64>, bool)>, hoisted: bool| {
        r.map(|(n, c, cut)| (n, c, cut, hoisted))
    };
    let (ct, ss, sig) = inputs(inst, maker, op, msg)?;
    // What the output must be (decaps: the encapsulated secret; verify:
    // accepted); other outputs need no check.
    let (want, failure): (Option<Vec<u8>>, &str) = match op {
        PkOp::Decaps => (
            Some(ss.clone()),
            "decaps returned a wrong secret while timed",
        ),
        PkOp::Verify => (
            Some(vec![1]),
            "verify rejected a valid signature while timed",
        ),
        _ => (None, ""),
    };
    let ok = |got: &[u8]| want.as_deref().is_none_or(|w| w == got);
    if timing == Timing::Operation {
        let prepared = match &mut *inst {
            Inst::Kem(k) => k.prepare(op, &ct)?,
            Inst::Sig(s) => s.prepare(op, msg, &sig)?,
        };
        if let Some(mut p) = prepared {
            let r = time_calls(iterations, max, || {
                let (r, n, c) = timed(cc, || p.run());
                r?;
                if !ok(p.output()) {
                    return Err(Error::Kat(failure.into()));
                }
                Ok((n, c))
            });
            return tag(r, true);
        }
    }
    let r = match (&mut *inst, op) {
        (Inst::Kem(k), PkOp::Keygen) => {
            let r = time_calls(iterations, max, || checked(cc, || k.keygen(), any, ""));
            // The last key pair made while timed is the kept one.
            k.keygen()?;
            r
        }
        (Inst::Kem(k), PkOp::Encaps) => {
            time_calls(iterations, max, || checked(cc, || k.encaps(), any, ""))
        }
        (Inst::Kem(k), PkOp::Decaps) => time_calls(iterations, max, || {
            checked(cc, || k.decaps(&ct), |got| ok(&got), failure)
        }),
        (Inst::Sig(s), PkOp::Keygen) => {
            let r = time_calls(iterations, max, || checked(cc, || s.keygen(), any, ""));
            s.keygen()?;
            r
        }
        (Inst::Sig(s), PkOp::Sign) => {
            time_calls(iterations, max, || checked(cc, || s.sign(msg), any, ""))
        }
        (Inst::Sig(s), PkOp::Verify) => time_calls(iterations, max, || {
            checked(cc, || s.verify(msg, &sig), |good| good, failure)
        }),
        (_, op) => Err(Error::usage(format!("operation {op} does not apply here"))),
    };
    tag(r, false)
}
