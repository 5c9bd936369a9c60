//! Events a suite emits as it goes: the checks before timing, the points
//! with their samples, skips, notes and errors. The parent process turns
//! them into records, progress and events.jsonl; a worker process writes
//! them to stdout, one JSON object per line; the report reads them back
//! typed from events.jsonl.

use crate::record::SampleSet;
use crate::{
    Algorithm, CaseCounts, DefectMatch, Hw, PkAlgorithm, PkRecord, PkSamples, Record, SpeedRecord,
    TlsRecord,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Known-answer tests of one (backend, algorithm, hw), before timing.
    Kat {
        backend: String,
        algorithm: Algorithm,
        hw: Hw,
        /// Whether the pair was timed: its known answers and Wycheproof's
        /// cases passed.
        ok: bool,
        summary: String,
        /// The cases of `summary` as numbers: known answers, Wycheproof
        /// cases and the cross-library comparisons (absent from events
        /// written before this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counts: Option<CaseCounts>,
        /// Failures no known library defect explains.
        #[serde(default)]
        failures: Vec<String>,
        library_cpu_view: Option<String>,
        /// Known library defects that explain the other failures, each with
        /// every failing case id (the pair is not timed).
        #[serde(default)]
        known: Vec<DefectMatch>,
        /// Known defects of this library version that did not reproduce.
        #[serde(default)]
        not_reproduced: Vec<String>,
    },
    /// One measured point, with all its samples.
    Point {
        record: Box<SpeedRecord>,
        samples: Box<SampleSet>,
    },
    /// A combination that cannot be measured here.
    Skip {
        backend: String,
        algorithm: Algorithm,
        hw: Hw,
        reason: String,
    },
    Error {
        message: String,
    },
    /// Something the run could not do and why (a combination a TLS stack
    /// lacks), said once and kept with the results.
    Note {
        suite: String,
        message: String,
    },
    /// Checks of one public-key (backend, algorithm), before timing. The
    /// pair is timed only when `ok` (nothing failed).
    PkCheck {
        backend: String,
        algorithm: PkAlgorithm,
        ok: bool,
        summary: String,
        /// The cases of `summary` as numbers (absent from events written
        /// before this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counts: Option<CaseCounts>,
        /// Failures no known library defect explains.
        #[serde(default)]
        failures: Vec<String>,
        /// The library's exact version string.
        #[serde(default)]
        version: String,
        /// Known library defects that explain the other failures, each with
        /// every failing case id.
        #[serde(default)]
        known: Vec<DefectMatch>,
        /// Known defects of this library version that did not reproduce.
        #[serde(default)]
        not_reproduced: Vec<String>,
    },
    /// One measured public-key point, with every kept call's time.
    PkPoint {
        record: Box<PkRecord>,
        samples: Box<PkSamples>,
    },
    /// One combination of the TLS lab: its record, the client view of
    /// every handshake (null for a failed one) and every handshake's
    /// timeline; `of` is how many combinations the run has.
    TlsPoint {
        record: Box<TlsRecord>,
        handshake_ns: Vec<Option<f64>>,
        timelines: Vec<serde_json::Value>,
        of: usize,
    },
    /// A public-key (backend, algorithm) that cannot be measured here.
    PkSkip {
        backend: String,
        algorithm: PkAlgorithm,
        reason: String,
    },
    /// One record of a suite whose points carry no samples file (cycles,
    /// ct, tls-records, tls-bulk, tls-policy), with its progress line.
    Record {
        record: Box<Record>,
        line: String,
    },
    /// What a suite is doing, for the progress on stderr (not kept).
    Progress {
        message: String,
    },
    /// A check that failed before timing in a suite without `kat` events
    /// (an implementation `cycles` does not time): counted as a failed
    /// check of the run, and kept.
    Failed {
        suite: String,
        message: String,
    },
}

impl Event {
    /// A `kat` event whose pair was not timed for a reason no known library
    /// defect explains. A known defect alone is shown and not timed, but is
    /// no failure of the run.
    pub fn is_kat_failure(&self) -> bool {
        matches!(
            self,
            Event::Kat { ok: false, failures, known, .. }
                if !failures.is_empty() || known.is_empty()
        )
    }
}
