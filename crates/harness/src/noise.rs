//! How noisy the machine is while a run measures: the hypervisor's steal
//! time from /proc/stat over the run, and a fixed calibration loop timed
//! before and after it. A reader of a run uses them to judge how small a
//! difference the run can resolve; the paired ratios of each point say it
//! exactly for that point.

use crate::stats::Summary;
use ango_core::record::{Noise, NoiseProbe};
use std::time::Instant;

/// The whole machine's CPU time so far, in jiffies: (steal, total), from
/// the `cpu` line of /proc/stat (steal is its eighth field). None where the
/// file or the field is missing.
pub fn steal_counters() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_steal(&stat)
}

fn parse_steal(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]:
    // guest time is already counted in user, so it is left out of the total.
    let steal = *v.get(7)?;
    let total: u64 = v.iter().take(8).sum();
    Some((steal, total))
}

/// One unit of the fixed loop: a chain of dependent multiply-adds, the same
/// work on every machine and in every run.
fn unit() -> u64 {
    let mut x = std::hint::black_box(0x9e37_79b9_7f4a_7c15u64);
    for _ in 0..100_000 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    std::hint::black_box(x)
}

/// Time the fixed loop `samples` times (after one untimed run): its median
/// and spread.
pub fn probe(samples: usize) -> NoiseProbe {
    unit();
    let ns: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let t = Instant::now();
            unit();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    let s = Summary::of(&ns).expect("finite times");
    NoiseProbe {
        samples: s.n as u64,
        median_ns: s.median,
        robust_cv: s.robust_cv,
        min_ns: s.min,
        max_ns: s.max,
    }
}

/// Samples of the fixed loop before and after a run (about 20 ms each).
pub const PROBE_SAMPLES: usize = 101;

/// What a run records of the machine's noise: started before the first
/// point, finished after the last.
pub struct NoiseWatch {
    steal0: Option<(u64, u64)>,
    before: NoiseProbe,
}

impl NoiseWatch {
    pub fn start() -> NoiseWatch {
        NoiseWatch {
            steal0: steal_counters(),
            before: probe(PROBE_SAMPLES),
        }
    }

    /// The figures before the run, with the run's end still to come (what
    /// env.json holds while the run goes on).
    pub fn so_far(&self) -> Noise {
        Noise::from_parts(None, Some(self.before.clone()), None)
    }

    pub fn finish(&self) -> Noise {
        let after = probe(PROBE_SAMPLES);
        let steal = match (self.steal0, steal_counters()) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                Some(100.0 * s1.saturating_sub(s0) as f64 / (t1 - t0) as f64)
            }
            _ => None,
        };
        Noise::from_parts(steal, Some(self.before.clone()), Some(after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_field_and_guest_time_is_not_counted_twice() {
        let stat = "cpu  100 5 20 800 10 0 3 12 50 0\ncpu0 50 2 10 400 5 0 1 6 25 0\n";
        assert_eq!(parse_steal(stat), Some((12, 950)));
        // An old kernel without the steal field.
        assert_eq!(parse_steal("cpu  100 5 20 800 10 0 3\n"), None);
        assert_eq!(parse_steal("intr 5\n"), None);
    }

    #[test]
    fn the_probe_times_the_loop_and_the_watch_reports_before_and_after() {
        let p = probe(9);
        assert_eq!(p.samples, 9);
        assert!(p.median_ns > 0.0 && p.min_ns <= p.median_ns && p.median_ns <= p.max_ns);
        let w = NoiseWatch::start();
        assert!(w.so_far().after.is_none());
        // Long enough for the kernel's counters to move (they tick at
        // USER_HZ).
        std::thread::sleep(std::time::Duration::from_millis(120));
        let n = w.finish();
        assert!(n.before.is_some() && n.after.is_some());
        if std::path::Path::new("/proc/stat").exists() {
            let s = n.steal_percent.expect("steal time on Linux");
            assert!((0.0..=100.0).contains(&s), "{s}");
        }
        assert!(!n.summary.is_empty());
    }
}
