//! The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: whether one
//! sample tends to be larger than the other, without assuming a
//! distribution. Exact p from the distribution of U when the samples are
//! small and have no ties; otherwise the normal approximation with the
//! tie correction of the variance and a continuity correction (as
//! `scipy.stats.mannwhitneyu(..., method="asymptotic")`).

/// How the p-value was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Exact,
    Normal,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Normal => "normal approximation",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Test {
    /// U of the first sample: the pairs (x, y) with x > y, ties counting ½.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    pub method: Method,
}

/// Above this many values in all (or with any tie) the normal
/// approximation is used; at or below it, the exact distribution.
pub const EXACT_MAX: usize = 40;

/// Midranks of `x ++ y` (1-based) and the tie groups' sizes.
fn ranks(x: &[f64], y: &[f64]) -> (f64, Vec<usize>) {
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|v| (*v, true))
        .chain(y.iter().map(|v| (*v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank_x = 0.0;
    let mut ties = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for a in &all[i..=j] {
            if a.1 {
                rank_x += mid;
            }
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (rank_x, ties)
}

/// The two-sided test of `x` against `y`; `None` when either is empty.
pub fn test(x: &[f64], y: &[f64]) -> Option<Test> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let (r1, ties) = ranks(x, y);
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    if ties.is_empty() && n1 + n2 <= EXACT_MAX {
        return Some(Test {
            u,
            p: exact_p(u, n1, n2),
            method: Method::Exact,
        });
    }
    Some(Test {
        u,
        p: normal_p(u, n1, n2, &ties),
        method: Method::Normal,
    })
}

/// The normal approximation's two-sided p, with the tie correction and a
/// continuity correction of ½.
pub fn normal_p(u: f64, n1: usize, n2: usize, ties: &[usize]) -> f64 {
    let (a, b) = (n1 as f64, n2 as f64);
    let n = a + b;
    let mean = a * b / 2.0;
    let tie: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum();
    let var = a * b / 12.0 * ((n + 1.0) - tie / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * normal_sf(z)).min(1.0)
}

/// The exact two-sided p: twice the probability of a U at least as far
/// from its mean, from the count of arrangements with each U.
pub fn exact_p(u: f64, n1: usize, n2: usize) -> f64 {
    let max = n1 * n2;
    // counts[m][u]: arrangements of m values of x among the first values
    // with statistic u, built up one y at a time (the recurrence
    // f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u)).
    let mut f = vec![vec![0f64; max + 1]; n1 + 1];
    // With zero ys, each m has one arrangement, U = 0.
    for row in f.iter_mut() {
        row[0] = 1.0;
    }
    for j in 1..=n2 {
        let mut g = vec![vec![0f64; max + 1]; n1 + 1];
        g[0][0] = 1.0;
        for i in 1..=n1 {
            for v in 0..=i * j {
                let mut c = f[i][v];
                if v >= j {
                    c += g[i - 1][v - j];
                }
                g[i][v] = c;
            }
        }
        f = g;
    }
    let total: f64 = f[n1].iter().sum();
    let lo = u.min(max as f64 - u).floor() as usize;
    let tail: f64 = f[n1][..=lo].iter().sum();
    (2.0 * tail / total).min(1.0)
}

/// P(Z > z) for a standard normal Z.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// Benjamini–Hochberg adjusted p-values (the false discovery rate over
/// many comparisons), in the order given.
pub fn bh_adjust(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|a, b| p[*b].total_cmp(&p[*a]));
    let mut out = vec![1.0; m];
    let mut running = 1.0f64;
    for (k, &i) in idx.iter().enumerate() {
        let rank = m - k;
        running = running.min(p[i] * m as f64 / rank as f64);
        out[i] = running.min(1.0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(a: i32, b: i32) -> Vec<f64> {
        (a..b).map(|x| x as f64).collect()
    }

    #[test]
    fn normal_approximation_matches_scipy() {
        // scipy.stats.mannwhitneyu(range(10), range(20, 30),
        // method="asymptotic") gives U = 0, p = 1.8267e-4.
        let (x, y) = (range(0, 10), range(20, 30));
        let (r1, ties) = ranks(&x, &y);
        let u = r1 - 55.0;
        assert_eq!(u, 0.0);
        let p = normal_p(u, 10, 10, &ties);
        assert!((p - 1.8267e-4).abs() < 2e-7, "{p}");
        // Symmetric in the order of the samples.
        let t = test(&range(0, 50), &range(20, 70)).unwrap();
        let s = test(&range(20, 70), &range(0, 50)).unwrap();
        assert_eq!(t.method, Method::Normal);
        assert!((t.p - s.p).abs() < 1e-15 && (t.u + s.u - 2500.0).abs() < 1e-9);
    }

    #[test]
    fn exact_p_matches_the_counted_distribution() {
        // Complete separation of 10 and 10: 2 of C(20, 10) = 184756
        // arrangements are as extreme.
        let t = test(&range(0, 10), &range(20, 30)).unwrap();
        assert_eq!(t.method, Method::Exact);
        assert!((t.p - 2.0 / 184_756.0).abs() < 1e-15, "{}", t.p);
        // n1 = n2 = 3, U = 1: P(U <= 1) = 2/20, two-sided 0.2
        // (scipy.stats.mannwhitneyu([1,2,4],[3,5,6], method="exact")).
        let t = test(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]).unwrap();
        assert_eq!(t.u, 1.0);
        assert!((t.p - 0.2).abs() < 1e-12, "{}", t.p);
        // Interleaved: U = 3 of 9, P(U <= 3) = 7/20, two-sided 0.7.
        let t = test(&[1.0, 2.0, 3.0], &[1.5, 2.5, 3.5]).unwrap();
        assert_eq!(t.u, 3.0);
        assert!((t.p - 0.7).abs() < 1e-12, "{}", t.p);
        // Ties send it to the normal approximation.
        assert_eq!(
            test(&[1.0, 1.0], &[1.0, 2.0]).unwrap().method,
            Method::Normal
        );
        assert!(test(&[], &[1.0]).is_none());
    }

    #[test]
    fn normal_tail_and_fdr() {
        assert!((normal_sf(1.959_963_985) - 0.025).abs() < 1e-10);
        assert!((normal_sf(-1.959_963_985) - 0.975).abs() < 1e-10);
        assert!((normal_sf(0.0) - 0.5).abs() < 1e-9);
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.5), "BH")
        // = 0.04, 0.05333333, 0.05333333, 0.5
        let a = bh_adjust(&[0.01, 0.04, 0.03, 0.5]);
        for (x, y) in a.iter().zip([0.04, 0.053_333_333, 0.053_333_333, 0.5]) {
            assert!((x - y).abs() < 1e-8, "{a:?}");
        }
    }
}
