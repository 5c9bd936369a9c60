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
use crate::stats::Summary;
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
}

impl Plan {
    pub fn with_time(secs: f64) -> Plan {
        Plan {
            warmup: Duration::from_secs_f64((secs * 0.1).clamp(0.005, 0.2)),
            time: Duration::from_secs_f64(secs),
            samples: None,
            min_samples: 10,
            max_samples: 100_000,
            min_sample: Duration::from_micros(500),
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

/// Measure `op` under `plan`.
pub fn measure<E>(
    plan: &Plan,
    cc: &CycleCounter,
    mut op: impl FnMut() -> Result<(), E>,
) -> Result<Measured, MeasureError<E>> {
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

    let per_sample = est * iters as f64;
    let n = match plan.samples {
        Some(n) => n.max(1),
        None => ((plan.time.as_secs_f64() / per_sample) as usize)
            .clamp(plan.min_samples, plan.max_samples),
    };

    let overhead = timer_overhead_ns(cc);
    let mut sample_ns = Vec::with_capacity(n);
    let mut sample_cycles = Vec::with_capacity(n);
    for _ in 0..n {
        if stop_requested() {
            return Err(MeasureError::Interrupted);
        }
        let t0 = Instant::now();
        let c0 = cc.read();
        for _ in 0..iters {
            op().map_err(MeasureError::Op)?;
        }
        let c1 = cc.read();
        let dt = t0.elapsed();
        sample_ns.push(dt.as_nanos() as f64 / iters as f64);
        if cc.source() != CycleSource::None {
            sample_cycles.push(c1.wrapping_sub(c0) as f64 / iters as f64);
        }
    }
    let ns = Summary::of(&sample_ns).expect("at least one finite sample");
    let cycles = Summary::of(&sample_cycles);
    Ok(Measured {
        sample_ns,
        sample_cycles,
        iterations_per_sample: iters,
        ns,
        cycles,
        cycle_source: cc.source(),
        timer_overhead_ns: overhead,
    })
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
    fn op_error_stops_measurement() {
        let cc = CycleCounter::open();
        let r = measure(&Plan::with_time(0.01), &cc, || Err::<(), _>("boom"));
        assert!(matches!(r, Err(MeasureError::Op("boom"))));
    }
}
