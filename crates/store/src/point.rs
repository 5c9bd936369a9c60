//! The rows of the store's `points` table: each record of a run gives one
//! row per figure it measures (its `metric`), with the columns a table
//! across machines selects and groups on, and the record's own JSON kept
//! whole beside them.

use ango_core::{Record, RecordKey, Stats};

/// Whether a smaller or a larger figure is the better one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

impl Better {
    pub fn name(self) -> &'static str {
        match self {
            Better::Lower => "lower",
            Better::Higher => "higher",
        }
    }

    pub fn of(s: &str) -> Better {
        if s == "higher" {
            Better::Higher
        } else {
            Better::Lower
        }
    }
}

/// One figure of one record.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The record's key in its run ([`RecordKey`]).
    pub key: String,
    pub suite: String,
    pub algorithm: String,
    pub operation: String,
    /// The backend with its variant, as tables name it (`libcrux[avx2]`).
    pub backend: String,
    pub implementation: String,
    pub hw: String,
    /// Message or payload bytes, where the figure is per message.
    pub size_bytes: Option<u64>,
    pub workers: u64,
    pub library_version: String,
    /// `latency`, `throughput`, `peak-stack`, `peak-heap`, `allocations`,
    /// `max-abs-t`, `overhead`, `cost`.
    pub metric: &'static str,
    /// `ns`, `B/s`, `B`, `allocations`, `t`, `ns/B`.
    pub unit: &'static str,
    pub better: Better,
    pub median: Option<f64>,
    pub q1: Option<f64>,
    pub q3: Option<f64>,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    /// How many samples the figures are over.
    pub samples: Option<u64>,
    /// Cycles per operation and per byte, where the run had a cycle
    /// source (TSC cycles on x86: see the run's `cycle_source`).
    pub cycles_per_op: Option<f64>,
    pub cycles_per_byte: Option<f64>,
}

/// Every metric a point can have, for the error that names them.
pub const METRICS: &[&str] = &[
    "latency",
    "throughput",
    "peak-stack",
    "peak-heap",
    "allocations",
    "max-abs-t",
    "overhead",
    "cost",
];

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Point {
    fn blank(r: &Record, metric: &'static str, unit: &'static str, better: Better) -> Point {
        Point {
            key: r.key(),
            suite: r.suite().to_string(),
            algorithm: String::new(),
            operation: String::new(),
            backend: String::new(),
            implementation: String::new(),
            hw: String::new(),
            size_bytes: None,
            workers: 1,
            library_version: String::new(),
            metric,
            unit,
            better,
            median: None,
            q1: None,
            q3: None,
            ci95_low: None,
            ci95_high: None,
            samples: None,
            cycles_per_op: None,
            cycles_per_byte: None,
        }
    }

    fn stats(mut self, s: &Stats, n: u64) -> Point {
        self.median = finite(s.median);
        self.q1 = finite(s.q1);
        self.q3 = finite(s.q3);
        self.ci95_low = finite(s.ci95_low);
        self.ci95_high = finite(s.ci95_high);
        self.samples = Some(n);
        self
    }

    /// A figure with no spread: the median alone, its maximum as the top.
    fn count(mut self, median: u64, max: u64, n: u64) -> Point {
        self.median = Some(median as f64);
        self.q3 = Some(max as f64);
        self.samples = Some(n);
        self
    }
}

/// The rows of one record.
pub fn points(r: &Record) -> Vec<Point> {
    use Better::*;
    match r {
        Record::Speed(s) => {
            let mut p = Point::blank(r, "latency", "ns", Lower).stats(&s.stats, s.samples);
            p.algorithm = s.algorithm.clone();
            p.operation = s.operation.clone();
            p.backend = s.backend.clone();
            p.implementation = s.implementation.clone();
            p.hw = s.hw.clone();
            p.size_bytes = Some(s.size_bytes);
            p.workers = s.workers as u64;
            p.library_version = s.library_version.clone();
            p.cycles_per_op = s.cycles_per_op;
            p.cycles_per_byte = s.cycles_per_byte;
            vec![p]
        }
        Record::Pk(k) => {
            let mut p = Point::blank(r, "latency", "ns", Lower).stats(&k.stats, k.iterations);
            p.algorithm = k.algorithm.clone();
            p.operation = k.operation.clone();
            p.backend = k.who();
            p.implementation = k.implementation.clone();
            p.hw = k.timing.clone();
            p.size_bytes = k.message_bytes;
            p.workers = k.workers as u64;
            p.library_version = k.library_version.clone();
            p.cycles_per_op = k.cycles_per_op;
            vec![p]
        }
        Record::PkMemory(m) => {
            let base = |metric, unit| {
                let mut p = Point::blank(r, metric, unit, Lower);
                p.algorithm = m.algorithm.clone();
                p.operation = m.operation.clone();
                p.backend = m.who();
                p.implementation = m.implementation.clone();
                p.library_version = m.library_version.clone();
                p
            };
            vec![
                base("peak-stack", "B").count(
                    m.peak_stack_bytes_median,
                    m.peak_stack_bytes,
                    m.calls,
                ),
                base("peak-heap", "B").count(m.peak_heap_bytes_median, m.peak_heap_bytes, m.calls),
                base("allocations", "allocations").count(
                    m.allocations_median,
                    m.allocations,
                    m.calls,
                ),
            ]
        }
        Record::Tls(t) => {
            let mut p = Point::blank(r, "latency", "ns", Lower);
            if let Some(s) = &t.handshake_ns {
                p = p.stats(s, t.handshakes);
            }
            p.algorithm = t.group.clone();
            p.operation = format!("handshake/{}/{}", t.server_sig, t.ca_sig);
            p.backend = format!("{}-{}", t.client_stack, t.server_stack);
            p.hw = format!("rtt={:.0}us", t.rtt_asked_ns / 1e3);
            p.library_version = t.library_version.clone();
            vec![p]
        }
        Record::Ct(c) => {
            let mut p = Point::blank(r, "max-abs-t", "t", Lower);
            p.algorithm = c.algorithm.clone();
            p.operation = c.verdict.name().to_string();
            p.backend = c.backend.clone();
            p.implementation = c.implementation.clone();
            p.size_bytes = Some(c.input_bytes as u64);
            p.median = finite(c.max_abs_t);
            p.samples = Some(c.measurements as u64);
            vec![p]
        }
        Record::Cycles(c) => {
            let mut p = Point::blank(r, "latency", "ns", Lower).stats(&c.stats, c.samples);
            p.algorithm = c.algorithm.clone();
            p.operation = format!(
                "{}/{}",
                c.operation,
                if c.chained { "chained" } else { "throughput" }
            );
            p.backend = c.backend.clone();
            p.implementation = c.implementation.clone();
            p.library_version = c.library_version.clone();
            p.cycles_per_op = c.cycles_per_op;
            vec![p]
        }
        Record::TlsRecords(t) => {
            let mut p = Point::blank(r, "overhead", "B", Lower);
            p.algorithm = t.cipher_suite.clone();
            p.operation = t.tls_version.clone();
            p.backend = format!("{}-{}", t.client_stack, t.server_stack);
            p.size_bytes = Some(t.plaintext_bytes);
            p.median = Some(t.overhead_bytes as f64);
            p.samples = Some(1);
            vec![p]
        }
        Record::TlsBulk(t) => {
            let mut p = Point::blank(r, "throughput", "B/s", Higher);
            p.algorithm = t.cipher_suite.clone();
            p.operation = t.direction.clone();
            p.backend = format!("{}-{}", t.client_stack, t.server_stack);
            p.hw = format!("client-{}/server-{}", t.client_hw, t.server_hw);
            p.size_bytes = Some(t.bytes);
            p.median = finite(t.bytes_per_second);
            p.q1 = finite(t.bytes_per_second_q1);
            p.q3 = finite(t.bytes_per_second_q3);
            p.samples = Some(t.repeats as u64);
            vec![p]
        }
        Record::TlsPolicy(t) => {
            let mut p = Point::blank(r, "cost", "ns/B", Lower);
            p.algorithm = t.negotiated_suite.clone();
            p.operation = format!("{}/{}", t.client_profile, t.server_policy);
            p.backend = format!("{}-{}", t.client_stack, t.server_stack);
            p.hw = t.client_hw.clone();
            p.median = t.client_cost_ns_per_byte;
            p.samples = Some(1);
            vec![p]
        }
    }
}

/// The throughput a latency point stands for: bytes per second for a
/// point with a message size, operations per second otherwise; its
/// interval is the latency's, turned over.
pub fn throughput(p: &Point) -> Option<(f64, Option<f64>, Option<f64>, &'static str)> {
    if p.metric != "latency" {
        return None;
    }
    let per = |ns: Option<f64>| ns.filter(|x| *x > 0.0).map(|ns| 1e9 / ns);
    match p.size_bytes.filter(|s| *s > 0 && p.suite != "pk") {
        Some(size) => {
            let s = size as f64;
            Some((
                per(p.median)? * s,
                per(p.ci95_high).map(|x| x * s),
                per(p.ci95_low).map(|x| x * s),
                "B/s",
            ))
        }
        None => Some((per(p.median)?, per(p.ci95_high), per(p.ci95_low), "op/s")),
    }
}
