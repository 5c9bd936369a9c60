//! The suites a run is made of, each by one name: the `suite` of every
//! record in results.jsonl (kebab-case, as docs/schema.md spells it) and of
//! `suite_seconds` in env.json.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One suite of ango: the study that drew a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuiteId {
    /// Symmetric throughput across message sizes (seeds 000, 001).
    Speed,
    /// Short-message latency of every variant (seed 001).
    Latency,
    /// Cycles per byte of the CRYPTREC ciphers (seed 002).
    Cycles,
    /// KEMs and signatures alone (seed 003).
    Pk,
    /// Peak stack and heap of every public-key operation.
    PkMemory,
    /// TLS 1.3 handshakes timed message by message (seed 003).
    Tls,
    /// TLS record overhead per cipher suite and size (seed 004).
    TlsRecords,
    /// TLS bulk throughput per suite and hardware setting (seed 004).
    TlsBulk,
    /// Cipher-suite negotiation between policies (seed 004).
    TlsPolicy,
    /// Constant-time checks of ango's own code.
    Ct,
}

impl SuiteId {
    /// Every suite, in the order `ango run` runs them.
    pub const ALL: [SuiteId; 10] = [
        SuiteId::Speed,
        SuiteId::Latency,
        SuiteId::Pk,
        SuiteId::PkMemory,
        SuiteId::Tls,
        SuiteId::TlsRecords,
        SuiteId::TlsBulk,
        SuiteId::TlsPolicy,
        SuiteId::Cycles,
        SuiteId::Ct,
    ];

    /// The suite's name, as written in records.
    pub const fn as_str(self) -> &'static str {
        match self {
            SuiteId::Speed => "speed",
            SuiteId::Latency => "latency",
            SuiteId::Cycles => "cycles",
            SuiteId::Pk => "pk",
            SuiteId::PkMemory => "pk-memory",
            SuiteId::Tls => "tls",
            SuiteId::TlsRecords => "tls-records",
            SuiteId::TlsBulk => "tls-bulk",
            SuiteId::TlsPolicy => "tls-policy",
            SuiteId::Ct => "ct",
        }
    }

    /// The suite named `s`, if there is one.
    pub fn of(s: &str) -> Option<SuiteId> {
        SuiteId::ALL.into_iter().find(|id| id.as_str() == s)
    }
}

impl fmt::Display for SuiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SuiteId {
    type Err = Error;

    fn from_str(s: &str) -> Result<SuiteId> {
        SuiteId::of(s).ok_or_else(|| {
            let valid: Vec<&str> = SuiteId::ALL.iter().map(|id| id.as_str()).collect();
            Error::usage(format!("unknown suite '{s}'; valid: {}", valid.join(", ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_documented_kebab_case_ones() {
        let names: Vec<String> = SuiteId::ALL
            .iter()
            .map(|id| serde_json::to_string(id).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "\"speed\"",
                "\"latency\"",
                "\"pk\"",
                "\"pk-memory\"",
                "\"tls\"",
                "\"tls-records\"",
                "\"tls-bulk\"",
                "\"tls-policy\"",
                "\"cycles\"",
                "\"ct\"",
            ]
        );
        for id in SuiteId::ALL {
            let back: SuiteId = serde_json::from_str(&format!("\"{id}\"")).unwrap();
            assert_eq!(back, id);
            assert_eq!(id.as_str().parse::<SuiteId>().unwrap(), id);
        }
    }

    #[test]
    fn an_unknown_suite_is_refused_naming_the_valid_ones() {
        let e = "tls_bulk".parse::<SuiteId>().unwrap_err().to_string();
        assert!(e.contains("unknown suite 'tls_bulk'"), "{e}");
        assert!(e.contains("tls-bulk") && e.contains("ct"), "{e}");
        assert!(serde_json::from_str::<SuiteId>("\"verify\"").is_err());
        assert!(serde_json::from_str::<SuiteId>("\"\"").is_err());
    }
}
