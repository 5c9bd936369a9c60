//! The record of one constant-time check (`suite: ct` in results.jsonl),
//! written by `ango ct` and by `ango run`'s short pass.

use crate::Header;
use serde::{Deserialize, Serialize};

/// What the constant-time checks concluded about one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    ConstantTime,
    Leaks,
    Inconclusive,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::ConstantTime => "constant-time",
            Verdict::Leaks => "leaks",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// One target's result (`suite: ct` in results.jsonl).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CtRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    pub algorithm: String,
    pub backend: String,
    pub implementation: String,
    /// `pass`, `flagged` or `not-run`.
    pub memcheck: String,
    /// Why memcheck did not run, or what it found.
    pub memcheck_detail: String,
    /// Every place memcheck reported, with its source line.
    pub memcheck_findings: Vec<String>,
    /// For a composition valgrind cannot run whole: its parts that memcheck
    /// flagged on their own (they make it leak).
    pub parts_flagged: Vec<String>,
    /// The largest |t| of dudect's tests (the re-test's when there was one).
    pub max_abs_t: f64,
    /// The first run's largest |t| when it crossed the threshold and was
    /// measured again.
    pub first_max_abs_t: Option<f64>,
    /// Measurements per dudect run (two classes together).
    pub measurements: usize,
    pub threshold: f64,
    pub verdict: Verdict,
    /// For a positive control, what it must come out as.
    pub control: Option<Verdict>,
    /// Whether the name's `-nct` (not constant time) agrees with the
    /// verdict (null for library implementations and inconclusive ones).
    pub label_agrees: Option<bool>,
    /// Bytes of secret input per call: 64, or more for a long-message
    /// target (64 for records written before this field existed).
    #[serde(default = "short_input")]
    pub input_bytes: usize,
    pub method: String,
    pub time: String,
}

fn short_input() -> usize {
    64
}

impl CtRecord {
    /// The implementation, with its input's length where it is not the
    /// usual 64 bytes ("chacha20/avx512+poly1305/ifma, 5120 B").
    pub fn label(&self) -> String {
        match self.input_bytes {
            64 => self.implementation.clone(),
            n => format!("{}, {n} B", self.implementation),
        }
    }
}
