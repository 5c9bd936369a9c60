//! Statistics of one point's samples.
//!
//! Quartiles use linear interpolation between order statistics (Hyndman &
//! Fan type 7, the default of R and NumPy). The 95% confidence interval of
//! the median is distribution-free: the pair of order statistics
//! `x(j), x(n-j+1)` with the largest `j` for which the Binomial(n, 1/2)
//! tail gives coverage of at least 95%.

use serde::{Deserialize, Serialize};

/// Robust CV above which a point is flagged noisy.
pub const NOISY_ROBUST_CV: f64 = 0.05;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator).
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    pub p95: f64,
    pub p99: f64,
    /// (Q3 - Q1) / median.
    pub robust_cv: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Actual coverage of [ci95_low, ci95_high]; below 0.95 when n < 6.
    pub ci_coverage: f64,
}

impl Summary {
    /// Summarise samples. Returns `None` for an empty slice or NaNs.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut v = samples.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let median = quantile_sorted(&v, 0.5);
        let q1 = quantile_sorted(&v, 0.25);
        let q3 = quantile_sorted(&v, 0.75);
        let (lo, hi, coverage) = median_ci_sorted(&v, 0.95);
        Some(Summary {
            n,
            median,
            q1,
            q3,
            mean,
            sd,
            min: v[0],
            max: v[n - 1],
            p95: quantile_sorted(&v, 0.95),
            p99: quantile_sorted(&v, 0.99),
            robust_cv: if median != 0.0 {
                (q3 - q1) / median
            } else {
                0.0
            },
            ci95_low: lo,
            ci95_high: hi,
            ci_coverage: coverage,
        })
    }

    /// The figures a record carries.
    pub fn stats(&self) -> ango_core::Stats {
        ango_core::Stats {
            median: self.median,
            q1: self.q1,
            q3: self.q3,
            mean: self.mean,
            sd: self.sd,
            min: self.min,
            max: self.max,
            p95: self.p95,
            p99: self.p99,
            robust_cv: self.robust_cv,
            ci95_low: self.ci95_low,
            ci95_high: self.ci95_high,
        }
    }

    pub fn noisy(&self) -> bool {
        self.robust_cv > NOISY_ROBUST_CV
    }
}

/// Quantile `p` in [0, 1] of sorted data, type 7 interpolation.
pub fn quantile_sorted(v: &[f64], p: f64) -> f64 {
    assert!(!v.is_empty());
    let h = (v.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// Distribution-free confidence interval of the median of sorted data.
/// Returns (low, high, achieved coverage).
pub fn median_ci_sorted(v: &[f64], level: f64) -> (f64, f64, f64) {
    let n = v.len();
    let alpha_half = (1.0 - level) / 2.0;
    // cdf[k] = P(X <= k) for X ~ Binomial(n, 1/2), computed in log space.
    let ln2n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut cdf = 0.0f64;
    // Largest j (1-based) with P(X <= j - 1) <= alpha/2.
    let mut best_j = 0usize;
    let mut best_tail = 0.0;
    for k in 0..n {
        cdf += (ln_choose - ln2n).exp();
        if cdf <= alpha_half {
            best_j = k + 1;
            best_tail = cdf;
        } else {
            break;
        }
        ln_choose += ((n - k) as f64).ln() - ((k + 1) as f64).ln();
    }
    if best_j == 0 {
        // Too few samples for the level: the full range, with its coverage.
        let coverage = 1.0 - 2.0 * (-ln2n).exp();
        return (v[0], v[n - 1], coverage);
    }
    (v[best_j - 1], v[n - best_j], 1.0 - 2.0 * best_tail)
}

/// The ratio a/b of two medians with a conservative interval from the two
/// medians' confidence intervals: [a_lo / b_hi, a_hi / b_lo].
pub fn ratio_interval(a: (f64, f64, f64), b: (f64, f64, f64)) -> (f64, f64, f64) {
    let (am, alo, ahi) = a;
    let (bm, blo, bhi) = b;
    (am / bm, alo / bhi, ahi / blo)
}

/// The ratio of two implementations' times taken in the same rounds, with
/// its 95% interval: the Hodges-Lehmann estimate over the per-round log
/// ratios (the median of their Walsh averages), and the interval that
/// inverts the Wilcoxon signed-rank test (exact below 60 rounds, the normal
/// approximation above). A spell of noise that slows one round shifts that
/// round's ratio only; the estimate ignores up to 29% of rounds gone wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedRatio {
    /// Rounds that gave both a sample.
    pub n: usize,
    pub ratio: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// The interval's actual coverage (below 0.95 for fewer than 6 rounds,
    /// where it is the whole range).
    pub coverage: f64,
}

/// The estimator's name as records give it.
pub const PAIRED_ESTIMATOR: &str = "hodges-lehmann";

/// `num[i] / den[i]` round by round ([`PairedRatio`]); the two are cut to the
/// shorter. None without a round or with a time that is not positive.
pub fn paired_ratio(num: &[f64], den: &[f64]) -> Option<PairedRatio> {
    let n = num.len().min(den.len());
    if n == 0 {
        return None;
    }
    let mut d = Vec::with_capacity(n);
    for (a, b) in num.iter().zip(den) {
        if !(a.is_finite() && b.is_finite() && *a > 0.0 && *b > 0.0) {
            return None;
        }
        d.push((a / b).ln());
    }
    d.sort_by(f64::total_cmp);
    let m = n * (n + 1) / 2;
    let centre = if m % 2 == 1 {
        walsh_kth(&d, m.div_ceil(2))
    } else {
        0.5 * (walsh_kth(&d, m / 2) + walsh_kth(&d, m / 2 + 1))
    };
    let (k, coverage) = signed_rank_k(n, 0.95);
    let (lo, hi) = (walsh_kth(&d, k), walsh_kth(&d, m + 1 - k));
    Some(PairedRatio {
        n,
        ratio: centre.exp(),
        ci95_low: lo.exp(),
        ci95_high: hi.exp(),
        coverage,
    })
}

impl PairedRatio {
    /// Half the interval's width relative to the estimate (0.01: ±1%).
    pub fn half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / (2.0 * self.ratio)
    }
}

/// The `k`-th smallest (1-based) of the Walsh averages (d_i + d_j) / 2,
/// i <= j, of sorted `d`, without listing all n(n+1)/2 of them: bisection
/// on the value, counting the averages at or below it in one pass, then
/// the largest average at or below the bound found.
fn walsh_kth(d: &[f64], k: usize) -> f64 {
    let n = d.len();
    // Averages with d_i + d_j <= 2v, i <= j.
    let count = |v: f64| -> usize {
        let t = 2.0 * v;
        let mut c = 0usize;
        let mut j = n; // one past the last j with d_i + d_j <= t
        for i in 0..n {
            while j > i && d[i] + d[j - 1] > t {
                j -= 1;
            }
            if j <= i {
                break;
            }
            c += j - i;
        }
        c
    };
    let (mut lo, mut hi) = (d[0], d[n - 1]);
    if count(lo) >= k {
        return lo;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count(mid) >= k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // The largest Walsh average at or below `hi`: the k-th one itself.
    let t = 2.0 * hi;
    let mut best = f64::NEG_INFINITY;
    let mut j = n;
    for i in 0..n {
        while j > i && d[i] + d[j - 1] > t {
            j -= 1;
        }
        if j <= i {
            break;
        }
        best = best.max(0.5 * (d[i] + d[j - 1]));
    }
    best
}

/// The rank of the lower end of the signed-rank interval at `level` for
/// `n` rounds (the upper end is the n(n+1)/2 + 1 - k-th average), and its
/// coverage: the largest k with P(T <= k - 1) <= (1 - level) / 2, T the
/// signed-rank statistic under symmetry about the centre.
fn signed_rank_k(n: usize, level: f64) -> (usize, f64) {
    let m = n * (n + 1) / 2;
    let alpha_half = (1.0 - level) / 2.0;
    if n > 60 {
        let sd = ((n * (n + 1) * (2 * n + 1)) as f64 / 24.0).sqrt();
        let k = (m as f64 / 2.0 - 1.959_963_984_540_054 * sd)
            .floor()
            .max(1.0) as usize;
        return (k, level);
    }
    // P(T = s) by adding ranks 1..=n one at a time, each in or out.
    let mut p = vec![0.0f64; m + 1];
    p[0] = 1.0;
    for r in 1..=n {
        for s in (r..=r * (r + 1) / 2).rev() {
            p[s] = 0.5 * p[s] + 0.5 * p[s - r];
        }
        for x in p.iter_mut().take(r) {
            *x *= 0.5;
        }
    }
    let (mut cdf, mut k, mut tail) = (0.0, 0usize, 0.0);
    for (s, ps) in p.iter().enumerate() {
        cdf += ps;
        if cdf <= alpha_half + 1e-12 {
            k = s + 1;
            tail = cdf;
        } else {
            break;
        }
    }
    if k == 0 {
        // Too few rounds for the level: the whole range.
        return (1, 1.0 - 2.0 * p[0]);
    }
    // Hollander & Wolfe's [W_(C), W_(M + 1 - C)], C = k.
    (k, 1.0 - 2.0 * tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn known_sample_matches_r_type7() {
        // R: quantile(c(1,2,3,4,5,6,7,8,9,10), c(.25,.5,.75)) = 3.25 5.5 7.75
        let s = Summary::of(&[10.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0, 5.0]).unwrap();
        assert!(close(s.q1, 3.25) && close(s.median, 5.5) && close(s.q3, 7.75));
        assert!(close(s.mean, 5.5));
        // sd(1:10) = 3.0276503540974917
        assert!(close(s.sd, 3.0276503540974917), "{}", s.sd);
        assert!(close(s.robust_cv, (7.75 - 3.25) / 5.5));
        assert_eq!((s.min, s.max), (1.0, 10.0));
    }

    #[test]
    fn odd_count_median_is_middle_value() {
        let s = Summary::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(s.median, 2.0);
        assert_eq!(s.q1, 1.5);
        assert_eq!(s.q3, 2.5);
    }

    #[test]
    fn median_ci_order_statistics() {
        // n = 10: P(X <= 1) = 11/1024 = 0.0107 <= 0.025, P(X <= 2) = 56/1024 > 0.025,
        // so the interval is [x(2), x(9)] with coverage 1 - 22/1024.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let (lo, hi, cov) = median_ci_sorted(&v, 0.95);
        assert_eq!((lo, hi), (2.0, 9.0));
        assert!(close(cov, 1.0 - 22.0 / 1024.0));
        // n = 100: the textbook answer is [x(40), x(61)].
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let (lo, hi, cov) = median_ci_sorted(&v, 0.95);
        assert_eq!((lo, hi), (40.0, 61.0));
        assert!(cov >= 0.95);
        // n = 5 cannot reach 95%: full range, coverage 1 - 2/32.
        let (lo, hi, cov) = median_ci_sorted(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!((lo, hi), (1.0, 5.0));
        assert!(close(cov, 1.0 - 2.0 / 32.0));
    }

    #[test]
    fn large_n_does_not_underflow() {
        let v: Vec<f64> = (0..5000).map(f64::from).collect();
        let (lo, hi, cov) = median_ci_sorted(&v, 0.95);
        assert!(lo < 2499.5 && hi > 2499.5 && lo > 2400.0 && hi < 2600.0);
        assert!((0.95..0.96).contains(&cov));
    }

    #[test]
    fn empty_and_nan_rejected() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn noisy_flag() {
        let quiet = Summary::of(&[100.0, 100.5, 101.0, 99.5, 100.2]).unwrap();
        assert!(!quiet.noisy());
        let loud = Summary::of(&[100.0, 130.0, 80.0, 150.0, 60.0]).unwrap();
        assert!(loud.noisy());
    }

    #[test]
    fn ratio_interval_is_conservative() {
        let (r, lo, hi) = ratio_interval((10.0, 9.0, 11.0), (5.0, 4.0, 6.0));
        assert_eq!(r, 2.0);
        assert!(close(lo, 1.5) && close(hi, 11.0 / 4.0));
    }

    #[test]
    fn walsh_selection_matches_listing_every_average() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1usize, 2, 3, 7, 30, 101] {
            let mut d: Vec<f64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 1000) as f64 / 100.0 - 5.0
                })
                .collect();
            d.sort_by(f64::total_cmp);
            let mut all = Vec::new();
            for i in 0..n {
                for j in i..n {
                    all.push((d[i] + d[j]) / 2.0);
                }
            }
            all.sort_by(f64::total_cmp);
            for k in [1, all.len() / 3 + 1, all.len().div_ceil(2), all.len()] {
                assert!(close(walsh_kth(&d, k), all[k - 1]), "n {n} k {k}");
            }
        }
    }

    #[test]
    fn signed_rank_interval_ranks_match_the_tables() {
        // n = 10: P(T <= 8) = 25/1024 <= 0.025 < P(T <= 9) = 30/1024, so
        // the interval is [W_(9), W_(47)] (Hollander & Wolfe, Table A.4).
        let (k, cov) = signed_rank_k(10, 0.95);
        assert_eq!(k, 9);
        assert!(close(cov, 1.0 - 50.0 / 1024.0));
        // n = 20: the lower critical value is 52 (P(T <= 52) = 0.0242).
        assert_eq!(signed_rank_k(20, 0.95).0, 53);
        // Five rounds cannot reach 95%: the whole range.
        assert_eq!(signed_rank_k(5, 0.95), (1, 1.0 - 2.0 / 32.0));
        // Exact and normal agree closely where they meet.
        let (k60, _) = signed_rank_k(60, 0.95);
        let (k61, _) = signed_rank_k(61, 0.95);
        assert!(k61 > k60 && k61 - k60 < 40, "{k60} {k61}");
    }

    #[test]
    fn paired_ratio_sees_through_spells_that_hit_both() {
        // B takes 1.25x A's time in every round, while the machine's speed
        // changes from round to round by up to 3x: the per-round ratio is
        // exact, the two medians' intervals are wide.
        let speed: Vec<f64> = (0..200)
            .map(|i| 1.0 + 2.0 * ((i * 37 % 101) as f64 / 100.0))
            .collect();
        let a: Vec<f64> = speed.iter().map(|s| 100.0 * s).collect();
        let b: Vec<f64> = speed.iter().map(|s| 125.0 * s).collect();
        let r = paired_ratio(&b, &a).unwrap();
        assert_eq!(r.n, 200);
        assert!(close(r.ratio, 1.25) && close(r.ci95_low, 1.25) && close(r.ci95_high, 1.25));
        let (sa, sb) = (Summary::of(&a).unwrap(), Summary::of(&b).unwrap());
        let (_, lo, hi) = ratio_interval(
            (sb.median, sb.ci95_low, sb.ci95_high),
            (sa.median, sa.ci95_low, sa.ci95_high),
        );
        assert!(hi - lo > 0.2, "{lo} {hi}");
        // One round in five hit on one side only moves the estimate little.
        let b2: Vec<f64> = b
            .iter()
            .enumerate()
            .map(|(i, x)| if i % 5 == 0 { x * 3.0 } else { *x })
            .collect();
        let r2 = paired_ratio(&b2, &a).unwrap();
        assert!(r2.ratio > 1.2499 && r2.ratio < 1.30, "{r2:?}");
        assert!(r2.ci95_low <= r2.ratio && r2.ratio <= r2.ci95_high);
        assert!(paired_ratio(&[], &[]).is_none());
        assert!(paired_ratio(&[1.0, 0.0], &[1.0, 1.0]).is_none());
    }
}
