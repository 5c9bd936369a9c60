//! What the AEAD and the public-key Wycheproof readers share: the verdict of
//! one case, the count of a file's verdicts, the cases' flags, and the AEAD
//! schema names (which the public-key reader's unknown-schema error names
//! too).

use serde_json::Value;

/// The schemas the AEAD reader handles (upstream's current name, and the one
/// of its files before testvectors_v1).
pub const AEAD_SCHEMAS: &[&str] = &["aead_test_schema_v1.json", "aead_test_schema.json"];

/// A test's Wycheproof flags (what it probes).
pub fn flags_of(t: &Value) -> Vec<String> {
    t["flags"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// What one implementation did with one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// As Wycheproof expects (`acceptable`: the case may go either way).
    Pass { acceptable: bool },
    /// Not as expected, with what happened.
    Fail(String),
    /// Not run: the implementation's API lacks what the case needs.
    Skip(String),
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Judged and as expected (acceptable cases included).
    pub passed: usize,
    pub failed: usize,
    pub acceptable: usize,
    /// Cases the backend cannot run, by reason.
    pub skipped: usize,
    pub skip_reasons: std::collections::BTreeMap<String, usize>,
    pub failures: Vec<String>,
    /// The tcId of each entry of `failures`.
    pub failed_ids: Vec<u64>,
    /// The tcId of every case judged (passed or failed; not the acceptable
    /// or skipped ones).
    pub judged_ids: Vec<u64>,
}

impl Outcome {
    /// Count one case's verdict.
    pub fn add(&mut self, c_id: u64, result: &str, flags: &[String], v: Verdict) {
        match v {
            Verdict::Pass { acceptable } => {
                self.passed += 1;
                if acceptable {
                    self.acceptable += 1;
                } else {
                    self.judged_ids.push(c_id);
                }
            }
            Verdict::Skip(why) => {
                self.skipped += 1;
                *self.skip_reasons.entry(why).or_default() += 1;
            }
            Verdict::Fail(what) => {
                self.failed += 1;
                self.judged_ids.push(c_id);
                self.failed_ids.push(c_id);
                self.failures.push(if flags.is_empty() {
                    format!("tcId {c_id} ({result}): {what}")
                } else {
                    format!("tcId {c_id} ({result}, {}): {what}", flags.join("+"))
                });
            }
        }
    }
}
