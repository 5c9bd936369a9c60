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
}
