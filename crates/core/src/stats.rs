//! [`Stats`]: the statistics of one measured point, the same type in every
//! record kind. Speed, latency and public-key records carry it flattened
//! (`median_ns`, `q1_ns`, … beside the record's other fields); a TLS
//! record's `handshake_ns` carries it as an object with unsuffixed names
//! (`median`, `q1`, …), as it always has ([`plain`]).
//!
//! How the figures are computed (quantile rule, the median's interval) is
//! in `ango-harness`'s `stats` module, which makes them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Statistics of a set of times, in nanoseconds (per operation, per call or
/// per handshake, as the record says). A figure that a record written by an
/// older ango lacks is NaN (written back as `null`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    #[serde(rename = "median_ns")]
    pub median: f64,
    #[serde(rename = "q1_ns")]
    pub q1: f64,
    #[serde(rename = "q3_ns")]
    pub q3: f64,
    #[serde(rename = "mean_ns")]
    pub mean: f64,
    /// Sample standard deviation.
    #[serde(rename = "sd_ns")]
    pub sd: f64,
    #[serde(rename = "min_ns")]
    pub min: f64,
    #[serde(rename = "max_ns")]
    pub max: f64,
    /// 95th and 99th percentiles; NaN in speed records written before
    /// schema 2.
    #[serde(rename = "p95_ns", default = "nan", deserialize_with = "f64_or_null")]
    pub p95: f64,
    #[serde(rename = "p99_ns", default = "nan", deserialize_with = "f64_or_null")]
    pub p99: f64,
    /// (Q3 − Q1) / median.
    pub robust_cv: f64,
    /// Distribution-free 95% confidence interval of the median.
    #[serde(rename = "ci95_low_ns")]
    pub ci95_low: f64,
    #[serde(rename = "ci95_high_ns")]
    pub ci95_high: f64,
}

impl Default for Stats {
    fn default() -> Stats {
        Stats::constant(f64::NAN)
    }
}

impl Stats {
    /// Every figure equal to `v` (a point measured once; test data).
    pub fn constant(v: f64) -> Stats {
        Stats {
            median: v,
            q1: v,
            q3: v,
            mean: v,
            sd: 0.0,
            min: v,
            max: v,
            p95: v,
            p99: v,
            robust_cv: 0.0,
            ci95_low: v,
            ci95_high: v,
        }
    }

    /// The median with its 95% interval: `(median, low, high)`.
    pub fn median_ci(&self) -> (f64, f64, f64) {
        (self.median, self.ci95_low, self.ci95_high)
    }
}

fn nan() -> f64 {
    f64::NAN
}

fn f64_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// [`Stats`] as an object with unsuffixed names (`median, q1, q3, p95,
/// mean, sd, min, max, p99, robust_cv, ci95_low, ci95_high`): the form of a
/// TLS record's `handshake_ns`. Records written before schema 2 have only
/// the first five; the rest load as NaN.
pub mod plain {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Plain {
        median: f64,
        q1: f64,
        q3: f64,
        p95: f64,
        mean: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        sd: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        min: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        max: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        p99: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        robust_cv: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        ci95_low: f64,
        #[serde(default = "nan", deserialize_with = "f64_or_null")]
        ci95_high: f64,
    }

    pub fn serialize<S: Serializer>(v: &Option<Stats>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref()
            .map(|x| Plain {
                median: x.median,
                q1: x.q1,
                q3: x.q3,
                p95: x.p95,
                mean: x.mean,
                sd: x.sd,
                min: x.min,
                max: x.max,
                p99: x.p99,
                robust_cv: x.robust_cv,
                ci95_low: x.ci95_low,
                ci95_high: x.ci95_high,
            })
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Stats>, D::Error> {
        Ok(Option::<Plain>::deserialize(d)?.map(|p| Stats {
            median: p.median,
            q1: p.q1,
            q3: p.q3,
            mean: p.mean,
            sd: p.sd,
            min: p.min,
            max: p.max,
            p95: p.p95,
            p99: p.p99,
            robust_cv: p.robust_cv,
            ci95_low: p.ci95_low,
            ci95_high: p.ci95_high,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Flat {
        a: u32,
        #[serde(flatten)]
        stats: Stats,
    }

    #[derive(Serialize, Deserialize)]
    struct Tls {
        #[serde(with = "plain", default)]
        handshake_ns: Option<Stats>,
    }

    #[test]
    fn flattened_names_are_the_schema_names() {
        let v = serde_json::to_value(Flat {
            a: 1,
            stats: Stats::constant(2.0),
        })
        .unwrap();
        for k in [
            "median_ns",
            "q1_ns",
            "q3_ns",
            "mean_ns",
            "sd_ns",
            "min_ns",
            "max_ns",
            "p95_ns",
            "p99_ns",
            "robust_cv",
            "ci95_low_ns",
            "ci95_high_ns",
        ] {
            assert!(v.get(k).is_some(), "{k} missing from {v}");
        }
        assert_eq!(v["a"], 1);
    }

    #[test]
    fn a_record_without_percentiles_loads_them_as_nan() {
        let f: Flat = serde_json::from_str(
            r#"{"a":1,"median_ns":5,"q1_ns":4,"q3_ns":6,"mean_ns":5.5,"sd_ns":1,"min_ns":3,"max_ns":9,"robust_cv":0.4,"ci95_low_ns":4.5,"ci95_high_ns":5.5}"#,
        )
        .unwrap();
        assert_eq!(f.stats.median, 5.0);
        assert!(f.stats.p95.is_nan() && f.stats.p99.is_nan());
        // Written back, a missing figure is null and loads again.
        let again: Flat = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
        assert!(again.stats.p95.is_nan());
        assert_eq!(again.stats.ci95_high, 5.5);
    }

    #[test]
    fn tls_form_keeps_its_unsuffixed_names() {
        let old: Tls = serde_json::from_str(
            r#"{"handshake_ns":{"median":2,"q1":1,"q3":3,"p95":4,"mean":2.5}}"#,
        )
        .unwrap();
        let s = old.handshake_ns.unwrap();
        assert_eq!(
            (s.median, s.q1, s.q3, s.p95, s.mean),
            (2.0, 1.0, 3.0, 4.0, 2.5)
        );
        assert!(s.sd.is_nan());
        let v = serde_json::to_value(Tls {
            handshake_ns: Some(Stats::constant(7.0)),
        })
        .unwrap();
        assert_eq!(v["handshake_ns"]["median"], 7.0);
        assert_eq!(v["handshake_ns"]["ci95_high"], 7.0);
        assert!(v["handshake_ns"].get("median_ns").is_none());
        let none: Tls = serde_json::from_str(r#"{"handshake_ns":null}"#).unwrap();
        assert!(none.handshake_ns.is_none());
    }
}
