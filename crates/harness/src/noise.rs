//! How noisy the machine is while a run measures: the hypervisor's steal
//! time from /proc/stat over the run, a fixed calibration loop timed
//! before and after it, and the share of side-by-side rounds that fell in
//! a spell. A reader of a run uses them to judge how small a difference the
//! run can resolve; the paired ratios of each point say it exactly for
//! that point.
//!
//! Spells. On a shared virtual machine the noise comes in spells of a
//! tenth of a second to a few seconds in which code that reads memory slows
//! down (AES-GCM sealing 64 B from 34 to 45-70 ns on the Zen 4 this was
//! written on) while code that works in registers does not. Over 90 s of
//! alternating timings there, AES-GCM was more than 8% slow in 7.3% of its
//! readings; the calibration loop and eight chains of AESENC (128- and
//! 512-bit) were more than 10% slow in under 2% of theirs and in 4-6% of
//! the AES-GCM timing's slow ones; a dependent walk through 512 KiB, timed
//! after the other timings, was slow in 97% of them. So the calibration
//! loop cannot see a spell, and a walk through memory sees what the code
//! before it left in the caches as much as the spell (inside a group it
//! read differently after each member, and once warmed it saw a third of
//! the spells). A spell shows best in the members themselves: in a round
//! in which most of them are slower than they usually are
//! ([`disturbed_rounds`]). A spell over part of a group is left out of its
//! paired ratios ([`crate::measure::measure_in_turn`]); one over the whole
//! group moves the ratios of its members, which it slows unequally, by as
//! much as 25% between two runs, and only running again can show it.

use crate::stats::Summary;
use ango_core::record::{Noise, NoiseProbe};
use std::sync::atomic::{AtomicU64, Ordering};
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

/// A round is disturbed when most members took this much longer than
/// their usual ([`disturbed_rounds`]).
pub const DISTURBED_ABOVE: f64 = 0.10;

/// The run's side-by-side rounds, and those that fell in a spell.
static ROUNDS: AtomicU64 = AtomicU64::new(0);
static ROUNDS_DISTURBED: AtomicU64 = AtomicU64::new(0);

/// Which rounds of a group fell in a spell. `samples[m][r]` is member
/// `m`'s time in round `r`; a member's usual time is the 20th percentile of
/// its samples (a spell over up to four fifths of the rounds leaves it
/// alone). Round `r` is disturbed when more than half of the members took
/// over 1 + [`DISTURBED_ABOVE`] times their usual in it (both of two): a
/// spell slows them together, while one member's own slow moments (a page
/// fault, a rekeying) are its cost and stay in. A round a member has no
/// sample of is judged on the others. A member alone is never judged: its
/// slow moments cannot be told from a spell.
pub fn disturbed_rounds(samples: &[&[f64]]) -> Vec<bool> {
    let rounds = samples.iter().map(|s| s.len()).max().unwrap_or(0);
    if samples.len() < 2 {
        return vec![false; rounds];
    }
    let usual: Vec<f64> = samples
        .iter()
        .map(|s| {
            let mut v = s.to_vec();
            v.sort_by(f64::total_cmp);
            if v.is_empty() {
                f64::NAN
            } else {
                crate::stats::quantile_sorted(&v, 0.2)
            }
        })
        .collect();
    (0..rounds)
        .map(|r| {
            let mut rel: Vec<f64> = samples
                .iter()
                .zip(&usual)
                .filter_map(|(s, &u)| s.get(r).map(|&x| x / u))
                .filter(|x| x.is_finite())
                .collect();
            if rel.is_empty() {
                return false;
            }
            rel.sort_by(f64::total_cmp);
            // The lower middle: the largest share that still leaves more
            // than half of the members at or above it.
            rel[(rel.len() - 1) / 2] > 1.0 + DISTURBED_ABOVE
        })
        .collect()
}

/// Count a group's rounds into the run's totals.
pub fn count_rounds(disturbed: &[bool]) {
    ROUNDS.fetch_add(disturbed.len() as u64, Ordering::Relaxed);
    ROUNDS_DISTURBED.fetch_add(
        disturbed.iter().filter(|&&d| d).count() as u64,
        Ordering::Relaxed,
    );
}

fn rounds_so_far() -> (u64, u64) {
    (
        ROUNDS.load(Ordering::Relaxed),
        ROUNDS_DISTURBED.load(Ordering::Relaxed),
    )
}

/// What a run records of the machine's noise: started before the first
/// point, finished after the last.
pub struct NoiseWatch {
    steal0: Option<(u64, u64)>,
    before: NoiseProbe,
    rounds0: (u64, u64),
}

impl NoiseWatch {
    pub fn start() -> NoiseWatch {
        NoiseWatch {
            steal0: steal_counters(),
            before: probe(PROBE_SAMPLES),
            rounds0: rounds_so_far(),
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
        let (r, d) = rounds_so_far();
        let rounds = (r - self.rounds0.0, d - self.rounds0.1);
        Noise::from_parts(steal, Some(self.before.clone()), Some(after)).with_rounds(rounds)
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
        assert!(n.rounds.is_some() && n.rounds_disturbed.is_some());
    }

    #[test]
    fn a_round_is_disturbed_when_most_members_are_slow_in_it() {
        // Three members, ten rounds; their usual times 10, 20 and 40.
        let mut a = vec![10.0; 10];
        let mut b = vec![20.0; 10];
        let mut c = vec![40.0; 10];
        // Round 2: two of three 30% slow. Round 5: one alone 50% slow
        // (its own cost, not a spell).
        // Round 7: all 9% slow (under the bound). Round 8: two 11% slow.
        a[2] = 13.0;
        b[2] = 26.0;
        c[5] = 60.0;
        (a[7], b[7], c[7]) = (10.9, 21.8, 43.6);
        (a[8], c[8]) = (11.1, 44.4);
        let d = disturbed_rounds(&[&a, &b, &c]);
        let marked: Vec<usize> = (0..10).filter(|&r| d[r]).collect();
        assert_eq!(marked, vec![2, 8]);
        // A spell over seven of ten rounds still stands out from the usual
        // (the 20th percentile), not from the median.
        let a: Vec<f64> = (0..10).map(|r| if r < 7 { 15.0 } else { 10.0 }).collect();
        let b: Vec<f64> = (0..10).map(|r| if r < 7 { 30.0 } else { 20.0 }).collect();
        let d = disturbed_rounds(&[&a, &b]);
        assert_eq!(d.iter().filter(|&&x| x).count(), 7);
        // A member short of rounds (it failed) is left out of the later
        // ones.
        let short = [10.0, 10.0];
        let d = disturbed_rounds(&[&short, &a, &b]);
        assert_eq!(d.len(), 10);
        assert!(d[2..7].iter().all(|&x| x));
        // Of two, both must be slow.
        let (mut x, y) = (vec![10.0; 5], vec![20.0; 5]);
        x[1] = 20.0;
        assert!(disturbed_rounds(&[&x, &y]).iter().all(|&d| !d));
        assert!(disturbed_rounds(&[]).is_empty());
        // One member alone: its slow rounds are its own.
        assert_eq!(disturbed_rounds(&[&a]), vec![false; 10]);
    }
}
