//! Display units and how each is derived from a record.

use ango_core::{Error, Result, SpeedRecord};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// 1000s of bytes per second (what `openssl speed` prints as "k").
    Kbps,
    /// 10^6 bytes per second.
    MBps,
    /// 10^9 bits per second.
    Gbps,
    /// Cycles per byte (from the run's cycle source).
    Cpb,
    /// Nanoseconds per message.
    Ns,
}

impl Unit {
    pub const NAMES: &'static str = "kbps, MBps, Gbps, cpb, ns";

    pub fn parse(s: &str) -> Result<Unit> {
        match s.trim().to_ascii_lowercase().as_str() {
            "kbps" => Ok(Unit::Kbps),
            "mbps" => Ok(Unit::MBps),
            "gbps" => Ok(Unit::Gbps),
            "cpb" => Ok(Unit::Cpb),
            "ns" => Ok(Unit::Ns),
            _ => Err(Error::usage(format!(
                "unknown unit '{s}'; valid: {}",
                Unit::NAMES
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Kbps => "kbps",
            Unit::MBps => "MBps",
            Unit::Gbps => "Gbps",
            Unit::Cpb => "cpb",
            Unit::Ns => "ns",
        }
    }

    /// A sentence saying what the numbers are.
    pub fn caption(self, cycle_label: &str) -> String {
        match self {
            Unit::Kbps => "The 'numbers' are in 1000s of bytes per second processed.".into(),
            Unit::MBps => "The numbers are in MB/s (10^6 bytes per second).".into(),
            Unit::Gbps => "The numbers are in Gbit/s (10^9 bits per second).".into(),
            Unit::Cpb => format!("The numbers are {cycle_label} per byte."),
            Unit::Ns => "The numbers are nanoseconds per message.".into(),
        }
    }

    /// Higher is better for throughput units.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Unit::Kbps | Unit::MBps | Unit::Gbps)
    }

    /// Convert a time per message (ns) for `size` bytes to this unit; cpb
    /// needs the cycles/ns ratio of the point.
    fn convert_ns(self, ns: f64, size: f64, cycles_per_ns: Option<f64>) -> Option<f64> {
        if ns <= 0.0 {
            return None;
        }
        let bps = size * 1e9 / ns;
        match self {
            Unit::Kbps => Some(bps / 1e3),
            Unit::MBps => Some(bps / 1e6),
            Unit::Gbps => Some(bps * 8.0 / 1e9),
            Unit::Ns => Some(ns),
            Unit::Cpb => cycles_per_ns.filter(|_| size > 0.0).map(|c| c * ns / size),
        }
    }

    /// The point's median in this unit.
    pub fn value(self, r: &SpeedRecord) -> Option<f64> {
        match self {
            Unit::Cpb => r.cycles_per_byte,
            _ => self.convert_ns(r.stats.median, r.size_bytes as f64, None),
        }
    }

    /// The 95% interval of the median in this unit, low to high.
    pub fn interval(self, r: &SpeedRecord) -> Option<(f64, f64)> {
        let cpn = r.cycles_per_op.map(|c| c / r.stats.median);
        let a = self.convert_ns(r.stats.ci95_low, r.size_bytes as f64, cpn)?;
        let b = self.convert_ns(r.stats.ci95_high, r.size_bytes as f64, cpn)?;
        Some((a.min(b), a.max(b)))
    }

    /// The interquartile range in this unit, low to high.
    pub fn iqr(self, r: &SpeedRecord) -> Option<(f64, f64)> {
        let cpn = r.cycles_per_op.map(|c| c / r.stats.median);
        let a = self.convert_ns(r.stats.q1, r.size_bytes as f64, cpn)?;
        let b = self.convert_ns(r.stats.q3, r.size_bytes as f64, cpn)?;
        Some((a.min(b), a.max(b)))
    }

    /// Format a value as the table shows it.
    pub fn fmt(self, v: f64) -> String {
        match self {
            Unit::Kbps => format!("{v:.2}k"),
            Unit::MBps => format!("{v:.1}"),
            Unit::Gbps => format!("{v:.3}"),
            Unit::Cpb => format!("{v:.2}"),
            Unit::Ns => format!("{v:.1}"),
        }
    }
}
