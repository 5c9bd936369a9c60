//! Findings and failed checks as data.
//!
//! A [`Finding`] is one claim checked on this machine: a seed's reading, a
//! measured value with its 95% interval, and a verdict. Every suite adds its
//! findings through this type; `findings.jsonl` holds one per line and every
//! exporter renders them.
//!
//! A [`CaseFailure`] is one failed verification case with a stable id, so a
//! failure can be matched against the known library defects
//! (`vectors/known-defects.toml`); a [`DefectMatch`] is such a match.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether a claim held on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    DoesNotHold,
    /// The run did not measure what the claim needs (a missing setting,
    /// a pair not available here), or the interval is too wide to say.
    NotMeasurable,
}

impl Verdict {
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does-not-hold",
            Verdict::NotMeasurable => "not-measurable",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One plain finding of a run (a line of `findings.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub schema_version: u32,
    /// The suite that drew it: `speed`, `pk`, `tls`, `verify`.
    pub suite: String,
    /// The seed the claim comes from (`000`, `003`, …), or `ango` for a
    /// reading of ango's own (a known library defect, a noisy machine).
    pub seed: String,
    /// Where in the seed (`§5.3.3`, `Table 10`), empty if none.
    pub section: String,
    /// The claim as the seed makes it, in words.
    pub claim: String,
    /// The value measured here (a ratio, a time, a count); None when the
    /// finding is not a number. Written as `measured` (read also as
    /// `value`, its name before schema 2's findings were verdicts).
    #[serde(rename = "measured", alias = "value")]
    pub value: Option<f64>,
    /// The 95% interval of `value`, when it has one.
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    /// Unit of `value`: `ratio`, `ms`, `µs`, `MB/s`, `cases`, …
    pub unit: String,
    pub verdict: Verdict,
    /// What was measured and what it means, in one or two sentences.
    pub explanation: String,
    /// The claim's id in its run, stable across runs of the same
    /// selection: `<seed>-<topic>[-<qualifiers>]` (`000-aesni-gcm-aes-128-gcm-openssl`).
    /// `ango report DIR --claim ID` prints how it was derived. Empty in
    /// findings written before ids existed.
    #[serde(default)]
    pub id: String,
    /// The id of the element of the report page (a table or a chart) that
    /// shows what it was computed from; empty for none.
    #[serde(default)]
    pub anchor: String,
    /// The records it was computed from, by their keys (`Record::key`).
    #[serde(default)]
    pub sources: Vec<String>,
}

impl Finding {
    /// A finding with no interval; set the rest with the builder methods.
    pub fn new(suite: &str, seed: &str, section: &str, claim: impl Into<String>) -> Finding {
        Finding {
            schema_version: crate::record::SCHEMA_VERSION,
            suite: suite.into(),
            seed: seed.into(),
            section: section.into(),
            claim: claim.into(),
            value: None,
            ci95_low: None,
            ci95_high: None,
            unit: String::new(),
            verdict: Verdict::NotMeasurable,
            explanation: String::new(),
            id: String::new(),
            anchor: String::new(),
            sources: Vec::new(),
        }
    }

    /// Its id: the seed, then `topic` and each qualifier, lower-case, with
    /// anything but letters, digits and `.` made `-`.
    pub fn id(mut self, topic: &str, qualifiers: &[&str]) -> Finding {
        let mut parts = vec![self.seed.as_str(), topic];
        parts.extend(qualifiers.iter().copied().filter(|q| !q.is_empty()));
        self.id = slug(&parts.join("-"));
        self
    }

    /// The element of the report page that shows it.
    pub fn anchor(mut self, anchor: &str) -> Finding {
        self.anchor = anchor.into();
        self
    }

    /// The keys of the records it was computed from.
    pub fn from<I: IntoIterator<Item = String>>(mut self, keys: I) -> Finding {
        self.sources.extend(keys);
        self.sources.dedup();
        self
    }

    pub fn value(mut self, v: f64, unit: &str) -> Finding {
        self.value = Some(v);
        self.unit = unit.into();
        self
    }

    pub fn interval(mut self, lo: f64, hi: f64) -> Finding {
        self.ci95_low = Some(lo);
        self.ci95_high = Some(hi);
        self
    }

    pub fn verdict(mut self, v: Verdict) -> Finding {
        self.verdict = v;
        self
    }

    pub fn explain(mut self, text: impl Into<String>) -> Finding {
        self.explanation = text.into();
        self
    }

    /// The value with its interval, as tables show it: `2.41 (2.38–2.44) ratio`.
    pub fn value_text(&self) -> String {
        let Some(v) = self.value else {
            return "-".into();
        };
        let num = |x: f64| {
            if x.abs() >= 100.0 {
                format!("{x:.0}")
            } else if x.abs() >= 10.0 {
                format!("{x:.1}")
            } else {
                format!("{x:.2}")
            }
        };
        let mut s = num(v);
        if let (Some(lo), Some(hi)) = (self.ci95_low, self.ci95_high) {
            s.push_str(&format!(" ({}–{})", num(lo), num(hi)));
        }
        if !self.unit.is_empty() {
            s.push(' ');
            s.push_str(&self.unit);
        }
        s
    }

    /// The seed and section, e.g. `seed 000 §5.3.3`, or `ango`.
    pub fn source(&self) -> String {
        let mut s = if self.seed == "ango" {
            "ango".to_string()
        } else {
            format!("seed {}", self.seed)
        };
        if !self.section.is_empty() {
            s.push(' ');
            s.push_str(&self.section);
        }
        s
    }
}

/// `s` lower-cased, every run of characters other than letters, digits and
/// `.` made one `-` (no `-` at either end): a claim id or an anchor.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// One failed verification case, with an id stable across runs:
/// `<file>#<tcId>` for a Wycheproof case (`mldsa_44_verify_test.json#147`),
/// `check:<what>` for one of ango's own checks.
/// How many cases of a check passed, failed and were skipped (counted, not
/// judged), as numbers: a report adds them up, never reads them back from
/// the check's one-line summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseCounts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl CaseCounts {
    pub fn new(passed: usize, failed: usize, skipped: usize) -> CaseCounts {
        CaseCounts {
            passed: passed as u64,
            failed: failed as u64,
            skipped: skipped as u64,
        }
    }
}

impl std::ops::Add for CaseCounts {
    type Output = CaseCounts;
    fn add(self, o: CaseCounts) -> CaseCounts {
        CaseCounts {
            passed: self.passed + o.passed,
            failed: self.failed + o.failed,
            skipped: self.skipped + o.skipped,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseFailure {
    pub case: String,
    pub text: String,
}

impl CaseFailure {
    pub fn new(case: impl Into<String>, text: impl Into<String>) -> CaseFailure {
        CaseFailure {
            case: case.into(),
            text: text.into(),
        }
    }
}

/// What kind of known problem a library has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DefectCategory {
    /// The library computes a wrong result.
    Defect,
    /// The library's API cannot express what the case asks (not a wrong
    /// result).
    ApiLimit,
    /// The library accepts an input its standard requires refused (an
    /// unchecked key) while its results on valid inputs are right: shown
    /// like any defect, and the pair is still timed.
    InputCheck,
}

impl DefectCategory {
    pub const fn name(self) -> &'static str {
        match self {
            DefectCategory::Defect => "defect",
            DefectCategory::ApiLimit => "api-limit",
            DefectCategory::InputCheck => "input-check",
        }
    }
}

/// A known library defect that explains some of a check's failures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefectMatch {
    /// The defect's id in `vectors/known-defects.toml`.
    pub id: String,
    pub category: DefectCategory,
    pub description: String,
    pub citation: String,
    /// The failing case ids it explains here, every one of them.
    pub cases: Vec<String>,
}

impl DefectMatch {
    /// What fails and why, with its id and citation:
    /// `<description> [defect <id>; <citation>]`.
    pub fn detail(&self) -> String {
        format!(
            "{} [{} {}; {}]",
            self.description,
            self.category.name(),
            self.id,
            self.citation
        )
    }

    /// One line for terminals: what fails, why, and every case id.
    /// What the defect means for timing, for the end of its line.
    pub fn timing_note(&self) -> &'static str {
        match self.category {
            DefectCategory::InputCheck => "still timed (results on valid inputs are right)",
            _ => "not timed",
        }
    }

    pub fn line(&self, provider: &str, algorithm: &str) -> String {
        format!(
            "{provider} {algorithm} fails verification: {} ({} cases: {})",
            self.detail(),
            self.cases.len(),
            short_cases(&self.cases)
        )
    }
}

/// Case ids, with a shared file prefix written once per file:
/// `mldsa_44_verify_test.json#3,5,147`.
pub fn short_cases(cases: &[String]) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for c in cases {
        let (file, id) = match c.rsplit_once('#') {
            Some((f, i)) => (f.to_string(), i.to_string()),
            None => (String::new(), c.clone()),
        };
        match groups.iter_mut().find(|(f, _)| *f == file) {
            Some((_, ids)) => ids.push(id),
            None => groups.push((file, vec![id])),
        }
    }
    groups
        .into_iter()
        .map(|(f, ids)| {
            if f.is_empty() {
                ids.join(", ")
            } else {
                format!("{f}#{}", ids.join(","))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_serialise_as_documented() {
        for (v, s) in [
            (Verdict::Holds, "\"holds\""),
            (Verdict::DoesNotHold, "\"does-not-hold\""),
            (Verdict::NotMeasurable, "\"not-measurable\""),
        ] {
            assert_eq!(serde_json::to_string(&v).unwrap(), s);
            assert_eq!(v.name(), &s[1..s.len() - 1]);
        }
        assert_eq!(
            serde_json::to_string(&DefectCategory::ApiLimit).unwrap(),
            "\"api-limit\""
        );
    }

    #[test]
    fn value_text_and_cases() {
        let f = Finding::new("speed", "000", "§4", "x")
            .value(2.4149, "ratio")
            .interval(2.38, 2.44);
        assert_eq!(f.value_text(), "2.41 (2.38–2.44) ratio");
        assert_eq!(f.source(), "seed 000 §4");
        let c: Vec<String> = ["a.json#1", "a.json#7", "b.json#2", "check:x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(short_cases(&c), "a.json#1,7; b.json#2; check:x");
    }
}
