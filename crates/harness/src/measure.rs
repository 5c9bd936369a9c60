//! Calibrated sampling of one point.
//!
//! 1. Warm-up: the operation runs back to back for the warm-up time (caches,
//!    branch predictors, frequency ramp), which also estimates its cost.
//! 2. Calibration: iterations per sample are chosen so one sample lasts at
//!    least `min_sample` (far above the clock's resolution and the cost of
//!    reading it), doubling until a timed sample confirms it.
//! 3. Sampling: `samples` samples (or as many as fit in `time`, at least
//!    `min_samples`), each the mean over its iterations; all are kept.

use crate::cycles::{CycleCounter, CycleSource};
use crate::noise;
use crate::stats::{self, quantile_sorted, Summary};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by a signal handler; measurement stops between samples.
pub static STOP: AtomicBool = AtomicBool::new(false);

pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// How long and how often to measure a point.
#[derive(Clone, Debug)]
pub struct Plan {
    pub warmup: Duration,
    /// Time budget for sampling (ignored when `samples` is set).
    pub time: Duration,
    /// Exact number of samples, overriding `time`.
    pub samples: Option<usize>,
    pub min_samples: usize,
    pub max_samples: usize,
    /// Minimum duration of one sample.
    pub min_sample: Duration,
    /// Side by side ([`measure_in_turn`]): stop taking rounds once every
    /// member's paired ratio to the group's fastest has a 95% interval
    /// within this fraction of it either way (0.01: ±1%), after at least
    /// [`MIN_STEADY_ROUNDS`] rounds. None: take every round the time allows.
    pub steady_within: Option<f64>,
    /// Side by side: how many times the time budget may be spent while
    /// the ratios are not yet steady (1: once; `--retries N` gives N + 1).
    pub budgets: usize,
}

/// The fewest rounds after which a group may stop for being steady.
pub const MIN_STEADY_ROUNDS: usize = 20;

/// The default steadiness of a group: every ratio within ±1%.
pub const STEADY_WITHIN: f64 = 0.01;

impl Plan {
    pub fn with_time(secs: f64) -> Plan {
        Plan {
            warmup: Duration::from_secs_f64((secs * 0.1).clamp(0.005, 0.2)),
            time: Duration::from_secs_f64(secs),
            samples: None,
            min_samples: 10,
            max_samples: 100_000,
            min_sample: Duration::from_micros(500),
            steady_within: Some(STEADY_WITHIN),
            budgets: 1,
        }
    }

    pub fn with_samples(n: usize) -> Plan {
        Plan {
            samples: Some(n),
            ..Plan::with_time(0.5)
        }
    }
}

/// One measured point: every sample kept.
#[derive(Clone, Debug)]
pub struct Measured {
    /// ns per operation, one per sample, in order.
    pub sample_ns: Vec<f64>,
    /// cycles per operation, one per sample (empty without a cycle source).
    pub sample_cycles: Vec<f64>,
    pub iterations_per_sample: u64,
    pub ns: Summary,
    pub cycles: Option<Summary>,
    pub cycle_source: CycleSource,
    pub timer_overhead_ns: f64,
}

#[derive(Debug)]
pub enum MeasureError<E> {
    Op(E),
    Interrupted,
    /// A worker could not be pinned to its CPU ([`measure_workers`]).
    Pin(String),
}

/// Median cost in ns of reading the clock and cycle counter around an empty
/// sample.
pub fn timer_overhead_ns(cc: &CycleCounter) -> f64 {
    let mut v: Vec<f64> = (0..501)
        .map(|_| {
            let t0 = Instant::now();
            let c0 = cc.read();
            let c1 = cc.read();
            let t1 = Instant::now();
            std::hint::black_box((c0, c1));
            (t1 - t0).as_nanos() as f64
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[250]
}

/// Warm up and calibrate: the iterations per sample that make one sample
/// last at least `plan.min_sample`, and the estimated seconds per operation.
fn calibrate<E>(
    plan: &Plan,
    op: &mut impl FnMut() -> Result<(), E>,
) -> Result<(u64, f64), MeasureError<E>> {
    // Warm-up, estimating the cost per operation.
    let start = Instant::now();
    let mut warm_iters = 0u64;
    while start.elapsed() < plan.warmup || warm_iters == 0 {
        op().map_err(MeasureError::Op)?;
        warm_iters += 1;
    }
    let est = start.elapsed().as_secs_f64() / warm_iters as f64;
    let target = plan.min_sample.as_secs_f64();
    let mut iters = ((target / est.max(1e-10)).ceil() as u64).max(1);

    // Calibrate: double until one sample is long enough.
    loop {
        if stop_requested() {
            return Err(MeasureError::Interrupted);
        }
        let t0 = Instant::now();
        for _ in 0..iters {
            op().map_err(MeasureError::Op)?;
        }
        if t0.elapsed() >= plan.min_sample {
            break;
        }
        iters *= 2;
    }
    Ok((iters, est))
}

/// When sampling ends: after a number of samples, or at a moment (but not
/// before `min` samples).
#[derive(Clone, Copy)]
enum Until {
    Samples(usize),
    Deadline { at: Instant, min: usize, max: usize },
}

/// Take samples of `iters` operations each.
fn sample<E>(
    until: Until,
    iters: u64,
    cc: &CycleCounter,
    op: &mut impl FnMut() -> Result<(), E>,
) -> Result<Measured, MeasureError<E>> {
    let overhead = timer_overhead_ns(cc);
    let cap = match until {
        Until::Samples(n) => n,
        Until::Deadline { max, .. } => max.min(10_000),
    };
    let mut sample_ns = Vec::with_capacity(cap);
    let mut sample_cycles = Vec::with_capacity(cap);
    loop {
        let done = sample_ns.len();
        let enough = match until {
            Until::Samples(n) => done >= n,
            Until::Deadline { at, min, max } => {
                done >= max || (done >= min && Instant::now() >= at)
            }
        };
        if enough {
            break;
        }
        if stop_requested() {
            return Err(MeasureError::Interrupted);
        }
        let (ns, cycles) = one_sample(iters, cc, op).map_err(MeasureError::Op)?;
        sample_ns.push(ns);
        sample_cycles.extend(cycles);
    }
    Ok(measured(sample_ns, sample_cycles, iters, cc, overhead))
}

/// One sample of `iters` operations: ns per operation, and cycles per
/// operation where there is a cycle source.
fn one_sample<E>(
    iters: u64,
    cc: &CycleCounter,
    op: &mut impl FnMut() -> Result<(), E>,
) -> Result<(f64, Option<f64>), E> {
    let t0 = Instant::now();
    let c0 = cc.read();
    for _ in 0..iters {
        op()?;
    }
    let c1 = cc.read();
    let dt = t0.elapsed();
    let cycles =
        (cc.source() != CycleSource::None).then(|| c1.wrapping_sub(c0) as f64 / iters as f64);
    Ok((dt.as_nanos() as f64 / iters as f64, cycles))
}

fn measured(
    sample_ns: Vec<f64>,
    sample_cycles: Vec<f64>,
    iters: u64,
    cc: &CycleCounter,
    overhead: f64,
) -> Measured {
    let ns = Summary::of(&sample_ns).expect("at least one finite sample");
    let cycles = Summary::of(&sample_cycles);
    Measured {
        sample_ns,
        sample_cycles,
        iterations_per_sample: iters,
        ns,
        cycles,
        cycle_source: cc.source(),
        timer_overhead_ns: overhead,
    }
}

/// Measure `op` under `plan`.
pub fn measure<E>(
    plan: &Plan,
    cc: &CycleCounter,
    mut op: impl FnMut() -> Result<(), E>,
) -> Result<Measured, MeasureError<E>> {
    let (iters, est) = calibrate(plan, &mut op)?;
    let per_sample = est * iters as f64;
    let n = match plan.samples {
        Some(n) => n.max(1),
        None => ((plan.time.as_secs_f64() / per_sample) as usize)
            .clamp(plan.min_samples, plan.max_samples),
    };
    sample(Until::Samples(n), iters, cc, &mut op)
}

/// The result of measuring a group side by side: one result per operation
/// (in order), every successful one with exactly `rounds` samples, sample i
/// of each taken in round i.
#[derive(Debug)]
pub struct InTurn<E> {
    pub results: Vec<Result<Measured, E>>,
    pub rounds: usize,
    /// Whether every ratio to the fastest met `plan.steady_within` when the
    /// rounds ended (false without the setting, or with fewer than two
    /// members measured).
    pub steady: bool,
    /// How many time budgets the rounds took (at most `plan.budgets`).
    pub budgets_used: usize,
    /// Round by round, whether it fell in a spell: most members more than
    /// [`noise::DISTURBED_ABOVE`] slower than usual
    /// ([`noise::disturbed_rounds`]).
    pub disturbed: Vec<bool>,
}

/// The rounds a group's paired ratios are taken from: the undisturbed
/// ones when there are at least [`MIN_STEADY_ROUNDS`] of them and any
/// round was disturbed; None (every round) otherwise.
///
/// ```
/// use ango_harness::measure::quiet_rounds;
/// let mut d = vec![false; 25];
/// d.extend([true; 5]);
/// assert_eq!(quiet_rounds(&d), Some((0..25).collect()));
/// assert_eq!(quiet_rounds(&[false; 30]), None);
/// assert_eq!(quiet_rounds(&[true; 30]), None);
/// ```
pub fn quiet_rounds(disturbed: &[bool]) -> Option<Vec<usize>> {
    let quiet: Vec<usize> = (0..disturbed.len()).filter(|&r| !disturbed[r]).collect();
    (quiet.len() >= MIN_STEADY_ROUNDS && quiet.len() < disturbed.len()).then_some(quiet)
}

/// `v`'s entries at `rounds` (all of `v` for None).
pub fn at_rounds(v: &[f64], rounds: Option<&[usize]>) -> Vec<f64> {
    match rounds {
        Some(r) => r.iter().filter_map(|&i| v.get(i).copied()).collect(),
        None => v.to_vec(),
    }
}

/// Measure several operations side by side, as the ratios between them are
/// read: each is warmed up and calibrated on its own, then the samples are
/// taken in turn, one sample of each per round (the first of each round
/// rotating, and each sample after one untimed call, so no operation always
/// follows the same other one into a cache it left), for the same number of
/// rounds, so a slow spell of the machine falls on all of them alike and
/// the ratio of each round's pair is a fair one.
///
/// Rounds go on until `plan.samples` of them are done, or else until the
/// time is up — as many rounds as fit the slowest operation's samples into
/// `plan.time` (at least `plan.min_samples`), so the whole takes about
/// `plan.time` per operation — or earlier once the group is steady: every
/// member's paired ratio ([`stats::paired_ratio`]) to the fastest has an
/// interval within `plan.steady_within` (checked from
/// [`MIN_STEADY_ROUNDS`] on). A group not steady when its time is up gets
/// more time, up to `plan.budgets` times in all. An operation that fails is
/// left out of the later rounds and its error is returned in its place;
/// only an interruption ends them all.
pub fn measure_in_turn<E, F>(
    plan: &Plan,
    cc: &CycleCounter,
    ops: &mut [F],
) -> Result<InTurn<E>, MeasureError<E>>
where
    F: FnMut() -> Result<(), E>,
{
    struct Turn<E> {
        iters: u64,
        ns: Vec<f64>,
        cycles: Vec<f64>,
        failed: Option<E>,
    }
    let mut turns = Vec::with_capacity(ops.len());
    let mut longest = 0f64;
    for op in ops.iter_mut() {
        let (iters, failed) = match calibrate(plan, op) {
            Ok((iters, est)) => {
                longest = longest.max(est * iters as f64);
                (iters, None)
            }
            Err(MeasureError::Op(e)) => (0, Some(e)),
            Err(e) => return Err(e),
        };
        turns.push(Turn {
            iters,
            ns: Vec::new(),
            cycles: Vec::new(),
            failed,
        });
    }
    let (per_budget, exact) = match plan.samples {
        Some(n) => (n.max(1), true),
        None => (
            ((plan.time.as_secs_f64() / longest.max(1e-9)) as usize)
                .clamp(plan.min_samples, plan.max_samples),
            false,
        ),
    };
    let max_rounds = if exact {
        per_budget
    } else {
        per_budget.saturating_mul(plan.budgets.max(1))
    };
    let overhead = timer_overhead_ns(cc);
    let k = ops.len();
    let disturbed_of = |turns: &[Turn<E>]| -> Vec<bool> {
        let live: Vec<&[f64]> = turns
            .iter()
            .filter(|t| t.failed.is_none())
            .map(|t| t.ns.as_slice())
            .collect();
        noise::disturbed_rounds(&live)
    };
    // Steady needs MIN_STEADY_ROUNDS rounds, and is judged on the
    // undisturbed ones when there are that many.
    let steady_of = |turns: &[Turn<E>]| -> bool {
        let Some(within) = plan.steady_within else {
            return false;
        };
        let disturbed = disturbed_of(turns);
        let quiet = disturbed.iter().filter(|&&d| !d).count();
        // Too few undisturbed rounds yet: more rounds, unless most are
        // disturbed, where waiting would likely only spend the retries and
        // the group is judged on every round.
        if quiet < MIN_STEADY_ROUNDS && 2 * quiet >= disturbed.len() {
            return false;
        }
        let use_rounds = quiet_rounds(&disturbed);
        let kept: Vec<Vec<f64>> = turns
            .iter()
            .filter(|t| t.failed.is_none())
            .map(|t| at_rounds(&t.ns, use_rounds.as_deref()))
            .collect();
        let live: Vec<&Vec<f64>> = kept.iter().collect();
        if live.len() < 2 {
            return false;
        }
        let median = |v: &Vec<f64>| {
            let mut s = v.clone();
            s.sort_by(f64::total_cmp);
            quantile_sorted(&s, 0.5)
        };
        let medians: Vec<f64> = live.iter().map(|v| median(v)).collect();
        let fastest = (0..live.len())
            .min_by(|&a, &b| medians[a].total_cmp(&medians[b]))
            .expect("two or more");
        (0..live.len()).filter(|&i| i != fastest).all(|i| {
            stats::paired_ratio(live[i], live[fastest]).is_some_and(|r| r.half_width() <= within)
        })
    };
    let mut rounds = 0usize;
    let mut steady = false;
    let mut next_check = MIN_STEADY_ROUNDS.max(plan.min_samples);
    while rounds < max_rounds {
        for j in 0..k {
            let i = (rounds + j) % k;
            let t = &mut turns[i];
            if t.failed.is_some() {
                continue;
            }
            if stop_requested() {
                return Err(MeasureError::Interrupted);
            }
            let op = &mut ops[i];
            match op().and_then(|()| one_sample(t.iters, cc, op)) {
                Ok((ns, cycles)) => {
                    t.ns.push(ns);
                    t.cycles.extend(cycles);
                }
                Err(e) => t.failed = Some(e),
            }
        }
        rounds += 1;
        if !exact && rounds >= next_check {
            // Checks grow sparser as rounds grow (every eighth more), so
            // they cost a small share of the time.
            next_check = rounds + (rounds / 8).max(8);
            if steady_of(&turns) {
                steady = true;
                break;
            }
        }
        if !exact && rounds.is_multiple_of(per_budget) && rounds < max_rounds && steady_of(&turns) {
            steady = true;
            break;
        }
    }
    if !steady {
        steady = steady_of(&turns);
    }
    let disturbed = disturbed_of(&turns);
    noise::count_rounds(&disturbed);
    let budgets_used = if exact {
        1
    } else {
        rounds.div_ceil(per_budget).max(1)
    };
    let results = turns
        .into_iter()
        .map(|t| match t.failed {
            Some(e) => Err(e),
            None => Ok(measured(t.ns, t.cycles, t.iters, cc, overhead)),
        })
        .collect();
    Ok(InTurn {
        results,
        rounds,
        steady,
        budgets_used,
        disturbed,
    })
}

/// A worker's start: pinned to `cpu`, its operation made and calibrated.
fn prepare<E, F>(
    plan: &Plan,
    cpu: Option<usize>,
    make: impl FnOnce() -> Result<F, E>,
) -> Result<(F, u64), MeasureError<E>>
where
    F: FnMut() -> Result<(), E>,
{
    if let Some(c) = cpu {
        if let Err(e) = crate::affinity::pin_thread(c) {
            return Err(MeasureError::Pin(format!("CPU {c}: {e}")));
        }
    }
    let mut op = make().map_err(MeasureError::Op)?;
    let (iters, _) = calibrate(plan, &mut op)?;
    Ok((op, iters))
}

/// Measure one operation on several CPUs at once (like `openssl speed
/// -multi`): a thread per entry of `cpus`, pinned to it, builds its own
/// operation with `make(worker)`, warms up and calibrates on its own; then
/// all start sampling together and sample over the same window (until
/// `plan.time` has passed since the common start, or `plan.samples` each),
/// so every worker's figure is taken while all the others run. Returns one
/// [`Measured`] per worker, in the order of `cpus`. The first error of any
/// worker ends every worker and is returned.
pub fn measure_workers<E, F>(
    plan: &Plan,
    cpus: &[usize],
    make: impl Fn(usize) -> Result<F, E> + Sync,
) -> Result<Vec<Measured>, MeasureError<E>>
where
    E: Send,
    F: FnMut() -> Result<(), E>,
{
    use std::sync::{Barrier, Mutex};
    let n = cpus.len().max(1);
    let ready = Barrier::new(n);
    let failed = AtomicBool::new(false);
    let start: Mutex<Option<Instant>> = Mutex::new(None);
    let results: Vec<Result<Measured, MeasureError<E>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|w| {
                let (ready, failed, start, make) = (&ready, &failed, &start, &make);
                let cpu = cpus.get(w).copied();
                s.spawn(move || {
                    // A worker that fails before the common start still
                    // waits at the barrier, so that no other worker waits
                    // for it forever.
                    let prepared = prepare(plan, cpu, || make(w));
                    if prepared.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    ready.wait();
                    let (mut op, iters) = prepared?;
                    if failed.load(Ordering::Relaxed) {
                        return Err(MeasureError::Interrupted);
                    }
                    let at = *start
                        .lock()
                        .expect("no worker panics holding the lock")
                        .get_or_insert_with(|| Instant::now() + plan.time);
                    let until = match plan.samples {
                        Some(k) => Until::Samples(k.max(1)),
                        None => Until::Deadline {
                            at,
                            min: plan.min_samples,
                            max: plan.max_samples,
                        },
                    };
                    // A CycleCounter per thread: a perf counter counts only
                    // the thread that opened it.
                    let cc = CycleCounter::open();
                    let r = sample(until, iters, &cc, &mut op);
                    if r.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a measuring worker panicked"))
            .collect()
    });
    let mut out = Vec::with_capacity(n);
    let mut first_err = None;
    for r in results {
        match r {
            Ok(m) => out.push(m),
            // An Op or Pin error beats the Interrupted of the workers it
            // stopped.
            Err(MeasureError::Interrupted) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    if out.len() < n {
        return Err(MeasureError::Interrupted);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrates_to_min_sample_and_counts_samples() {
        let cc = CycleCounter::open();
        let plan = Plan {
            samples: Some(12),
            min_sample: Duration::from_micros(200),
            warmup: Duration::from_millis(2),
            ..Plan::with_time(0.05)
        };
        let mut calls = 0u64;
        let m = measure::<()>(&plan, &cc, || {
            calls += 1;
            std::hint::black_box(calls);
            Ok(())
        })
        .unwrap();
        assert_eq!(m.sample_ns.len(), 12);
        assert!(m.iterations_per_sample > 1);
        // Each sample lasted at least ~min_sample in total.
        assert!(m.ns.median * m.iterations_per_sample as f64 > 100_000.0);
    }

    #[test]
    fn sleep_is_measured_about_right() {
        let cc = CycleCounter::open();
        let plan = Plan {
            samples: Some(5),
            min_sample: Duration::from_millis(2),
            warmup: Duration::from_millis(2),
            ..Plan::with_time(0.05)
        };
        let m = measure::<()>(&plan, &cc, || {
            std::thread::sleep(Duration::from_millis(2));
            Ok(())
        })
        .unwrap();
        assert!(
            m.ns.median >= 2.0e6 && m.ns.median < 20.0e6,
            "{}",
            m.ns.median
        );
    }

    #[test]
    fn workers_sample_together_on_their_cpus() {
        let cpus = crate::affinity::allowed_cpus();
        let cpus: Vec<usize> = cpus.into_iter().take(2).collect();
        let plan = Plan {
            min_sample: Duration::from_micros(200),
            warmup: Duration::from_millis(2),
            ..Plan::with_time(0.05)
        };
        let out = measure_workers::<(), _>(&plan, &cpus, |_| {
            let mut x = 1u64;
            Ok(move || {
                for _ in 0..100 {
                    x = std::hint::black_box(x.wrapping_mul(3).wrapping_add(1));
                }
                // Each worker runs on the CPU it was pinned to.
                assert_eq!(crate::affinity::allowed_cpus().len(), 1);
                Ok(())
            })
        })
        .unwrap();
        assert_eq!(out.len(), cpus.len());
        for m in &out {
            assert!(
                m.sample_ns.len() >= plan.min_samples,
                "{}",
                m.sample_ns.len()
            );
            assert!(m.ns.median > 0.0);
        }
    }

    #[test]
    fn a_failing_worker_ends_them_all_with_its_error() {
        let cpus = crate::affinity::allowed_cpus();
        let cpus: Vec<usize> = cpus.into_iter().take(2).collect();
        let plan = Plan {
            min_sample: Duration::from_micros(200),
            warmup: Duration::from_millis(2),
            ..Plan::with_time(0.05)
        };
        let r = measure_workers(&plan, &cpus, |w| {
            if w + 1 == cpus.len() {
                Err("no instance")
            } else {
                Ok(|| Ok::<(), &str>(()))
            }
        });
        assert!(matches!(r, Err(MeasureError::Op("no instance"))));
        // A CPU this process may not run on is a pin error, not a hang.
        let r = measure_workers(&plan, &[usize::MAX / 2], |_| Ok(|| Ok::<(), ()>(())));
        assert!(matches!(r, Err(MeasureError::Pin(_))), "{:?}", r.err());
    }

    #[test]
    fn in_turn_samples_every_op_alike_and_keeps_the_others_when_one_fails() {
        let cc = CycleCounter::open();
        let plan = Plan {
            samples: Some(9),
            min_sample: Duration::from_micros(200),
            warmup: Duration::from_millis(2),
            ..Plan::with_time(0.05)
        };
        // A log of which op ran, to see the turns interleave.
        let log = std::cell::RefCell::new(Vec::new());
        let work = |n: u64, tag: usize| {
            let log = &log;
            move || {
                let mut x = 1u64;
                for _ in 0..n {
                    x = std::hint::black_box(x.wrapping_mul(3).wrapping_add(1));
                }
                if log.borrow().last() != Some(&tag) {
                    log.borrow_mut().push(tag);
                }
                Ok::<(), &str>(())
            }
        };
        // Fails once sampling has begun: after calibration the log holds
        // [0, 1]; the first round adds 0 again.
        let fails_later = || {
            if log.borrow().len() > 2 {
                Err("late failure")
            } else {
                Ok(())
            }
        };
        let mut ops: Vec<Box<dyn FnMut() -> Result<(), &'static str> + '_>> = vec![
            Box::new(work(100, 0)),
            Box::new(work(400, 1)),
            Box::new(fails_later),
            Box::new(|| Err("no instance")),
        ];
        let run = measure_in_turn(&plan, &cc, &mut ops).unwrap();
        assert_eq!(run.rounds, 9);
        let out = run.results;
        assert_eq!(out.len(), 4);
        let (a, b) = (out[0].as_ref().unwrap(), out[1].as_ref().unwrap());
        assert_eq!((a.sample_ns.len(), b.sample_ns.len()), (9, 9));
        // Four times the work costs more per call.
        assert!(b.ns.median > a.ns.median, "{} {}", a.ns.median, b.ns.median);
        assert!(matches!(out[2], Err("late failure")));
        assert!(matches!(out[3], Err("no instance")));
        // After calibration (all of 0, then all of 1), the samples take
        // turns: at least one switch per round.
        drop(ops);
        let log = log.into_inner();
        let switches = log.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(switches > 9, "{log:?}");
    }

    #[test]
    fn op_error_stops_measurement() {
        let cc = CycleCounter::open();
        let r = measure(&Plan::with_time(0.01), &cc, || Err::<(), _>("boom"));
        assert!(matches!(r, Err(MeasureError::Op("boom"))));
    }

    #[test]
    fn in_turn_stops_once_the_ratios_are_steady_and_not_before() {
        let cc = CycleCounter::open();
        let work = |n: u64| {
            move || {
                let mut x = 1u64;
                for _ in 0..n {
                    x = std::hint::black_box(x.wrapping_mul(3).wrapping_add(1));
                }
                Ok::<(), ()>(())
            }
        };
        // A budget of thousands of rounds; two steady loads are steady long
        // before it is spent.
        let plan = Plan {
            min_sample: Duration::from_micros(100),
            warmup: Duration::from_millis(2),
            steady_within: Some(0.05),
            ..Plan::with_time(2.0)
        };
        let mut ops = vec![work(200), work(400)];
        let run = measure_in_turn(&plan, &cc, &mut ops).unwrap();
        assert!(run.steady);
        assert!(
            run.rounds >= MIN_STEADY_ROUNDS && run.rounds < 5_000,
            "{}",
            run.rounds
        );
        // Every round was judged.
        assert_eq!(run.disturbed.len(), run.rounds);
        let (a, b) = (
            run.results[0].as_ref().unwrap(),
            run.results[1].as_ref().unwrap(),
        );
        assert_eq!(
            (a.sample_ns.len(), b.sample_ns.len()),
            (run.rounds, run.rounds)
        );
        // Without the setting every round of the budget is taken.
        let plan = Plan {
            steady_within: None,
            ..Plan::with_time(0.02)
        };
        let plan = Plan {
            min_sample: Duration::from_micros(100),
            warmup: Duration::from_millis(2),
            ..plan
        };
        let run = measure_in_turn(&plan, &cc, &mut ops).unwrap();
        assert!(!run.steady);
        assert!(run.rounds >= plan.min_samples);
        assert_eq!(run.budgets_used, 1);
    }
}
