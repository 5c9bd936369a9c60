//! The lines of results.jsonl as one type: a [`Record`] is one line, told
//! apart by its `suite`, and [`Records`] holds a directory's lines by suite.
//! A new suite is added here once, and every exhaustive match on
//! [`SuiteId`] then names the places that must learn it.

use crate::ct::CtRecord;
use crate::cycles::CyclesRecord;
use crate::pk_memory::PkMemoryRecord;
use crate::{
    PkRecord, SpeedRecord, SuiteId, TlsBulkRecord, TlsPolicyRecord, TlsRecord, TlsRecordsRecord,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One line of results.jsonl. It is written as its inner record, whose
/// `suite` field is the tag, so the JSON is exactly the inner record's.
// A record lives only between reading its line and filing it in Records,
// so the size of the largest variant costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Record {
    /// `suite` `speed` or `latency`.
    Speed(SpeedRecord),
    Pk(PkRecord),
    PkMemory(PkMemoryRecord),
    Tls(TlsRecord),
    Ct(CtRecord),
    Cycles(CyclesRecord),
    TlsRecords(TlsRecordsRecord),
    TlsBulk(TlsBulkRecord),
    TlsPolicy(TlsPolicyRecord),
}

impl Record {
    /// The suite that drew it.
    pub fn suite(&self) -> SuiteId {
        match self {
            Record::Speed(r) => r.head.suite,
            Record::Pk(r) => r.head.suite,
            Record::PkMemory(r) => r.head.suite,
            Record::Tls(r) => r.head.suite,
            Record::Ct(r) => r.head.suite,
            Record::Cycles(r) => r.head.suite,
            Record::TlsRecords(r) => r.head.suite,
            Record::TlsBulk(r) => r.head.suite,
            Record::TlsPolicy(r) => r.head.suite,
        }
    }

    /// Reads one line's JSON value: its `suite` names the record type.
    /// A line without a known suite, or whose fields do not fit it, is an
    /// error that says which.
    pub fn from_value(v: serde_json::Value) -> std::result::Result<Record, String> {
        let name = v["suite"].as_str().unwrap_or_default();
        let Some(suite) = SuiteId::of(name) else {
            return Err(format!("no known suite '{name}'"));
        };
        let e = |e: serde_json::Error| format!("not a {suite} record: {e}");
        Ok(match suite {
            SuiteId::Speed | SuiteId::Latency => {
                Record::Speed(serde_json::from_value(v).map_err(e)?)
            }
            SuiteId::Pk => Record::Pk(serde_json::from_value(v).map_err(e)?),
            SuiteId::PkMemory => Record::PkMemory(serde_json::from_value(v).map_err(e)?),
            SuiteId::Tls => Record::Tls(serde_json::from_value(v).map_err(e)?),
            SuiteId::Ct => Record::Ct(serde_json::from_value(v).map_err(e)?),
            SuiteId::Cycles => Record::Cycles(serde_json::from_value(v).map_err(e)?),
            SuiteId::TlsRecords => Record::TlsRecords(serde_json::from_value(v).map_err(e)?),
            SuiteId::TlsBulk => Record::TlsBulk(serde_json::from_value(v).map_err(e)?),
            SuiteId::TlsPolicy => Record::TlsPolicy(serde_json::from_value(v).map_err(e)?),
        })
    }
}

/// The key of one record: its suite and the fields that tell it apart
/// from the run's other records of that suite, `/`-separated. A finding
/// names the records it was computed from by these keys.
pub trait RecordKey {
    fn key(&self) -> String;
}

impl RecordKey for SpeedRecord {
    fn key(&self) -> String {
        let mut k = format!(
            "{}/{}/{}/{}/hw={}/{}/{}",
            self.head.suite,
            self.algorithm,
            self.backend,
            self.implementation,
            self.hw,
            self.operation,
            self.size_bytes
        );
        if self.workers > 1 {
            k.push_str(&format!("/workers={}", self.workers));
        }
        k
    }
}

impl RecordKey for PkRecord {
    fn key(&self) -> String {
        let mut k = format!(
            "pk/{}/{}/{}/{}",
            self.algorithm,
            self.who(),
            self.operation,
            self.timing
        );
        if self.workers > 1 {
            k.push_str(&format!("/workers={}", self.workers));
        }
        k
    }
}

impl RecordKey for PkMemoryRecord {
    fn key(&self) -> String {
        format!(
            "pk-memory/{}/{}/{}",
            self.algorithm,
            self.who(),
            self.operation
        )
    }
}

impl RecordKey for TlsRecord {
    fn key(&self) -> String {
        format!(
            "tls/{}-{}/{}/{}/{}/rtt={:.0}us",
            self.client_stack,
            self.server_stack,
            self.group,
            self.server_sig,
            self.ca_sig,
            self.rtt_asked_ns / 1e3
        )
    }
}

impl RecordKey for CtRecord {
    fn key(&self) -> String {
        format!("ct/{}/{}/{}", self.algorithm, self.backend, self.label())
    }
}

impl RecordKey for CyclesRecord {
    fn key(&self) -> String {
        format!(
            "cycles/{}/{}/{}/{}/{}",
            self.algorithm,
            self.backend,
            self.implementation,
            self.operation,
            if self.chained {
                "chained"
            } else {
                "throughput"
            }
        )
    }
}

impl RecordKey for TlsRecordsRecord {
    fn key(&self) -> String {
        format!(
            "tls-records/{}/{}/{}",
            self.tls_version, self.cipher_suite, self.plaintext_bytes
        )
    }
}

impl RecordKey for TlsBulkRecord {
    fn key(&self) -> String {
        format!(
            "tls-bulk/{}/{}/client-hw={}/server-hw={}/{}-{}",
            self.tls_version,
            self.cipher_suite,
            self.client_hw,
            self.server_hw,
            self.client_stack,
            self.server_stack
        )
    }
}

impl RecordKey for TlsPolicyRecord {
    fn key(&self) -> String {
        format!(
            "tls-policy/{}/{}/{}",
            self.tls_version, self.client_profile, self.server_policy
        )
    }
}

impl RecordKey for Record {
    fn key(&self) -> String {
        match self {
            Record::Speed(r) => r.key(),
            Record::Pk(r) => r.key(),
            Record::PkMemory(r) => r.key(),
            Record::Tls(r) => r.key(),
            Record::Ct(r) => r.key(),
            Record::Cycles(r) => r.key(),
            Record::TlsRecords(r) => r.key(),
            Record::TlsBulk(r) => r.key(),
            Record::TlsPolicy(r) => r.key(),
        }
    }
}

impl Records {
    /// Every record with its key, in suite order.
    pub fn keyed(&self) -> Vec<(String, Record)> {
        SuiteId::ALL
            .into_iter()
            .filter(|s| *s != SuiteId::Latency)
            .flat_map(|s| self.of_all(s))
            .map(|r| (r.key(), r))
            .collect()
    }

    /// [`Records::of`], speed and latency together for `Speed`.
    fn of_all(&self, suite: SuiteId) -> Vec<Record> {
        match suite {
            SuiteId::Speed => self.speed.iter().cloned().map(Record::Speed).collect(),
            s => self.of(s),
        }
    }
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Record::Speed(r) => r.serialize(s),
            Record::Pk(r) => r.serialize(s),
            Record::PkMemory(r) => r.serialize(s),
            Record::Tls(r) => r.serialize(s),
            Record::Ct(r) => r.serialize(s),
            Record::Cycles(r) => r.serialize(s),
            Record::TlsRecords(r) => r.serialize(s),
            Record::TlsBulk(r) => r.serialize(s),
            Record::TlsPolicy(r) => r.serialize(s),
        }
    }
}

/// Read back as [`Record::from_value`] reads a line (an event that carries
/// a record, from a worker process).
impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Record, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Record::from_value(v).map_err(serde::de::Error::custom)
    }
}

macro_rules! record_from {
    ($($t:ty => $v:ident),* $(,)?) => {
        $(impl From<$t> for Record {
            fn from(r: $t) -> Record {
                Record::$v(r)
            }
        })*
    };
}

record_from!(
    SpeedRecord => Speed,
    PkRecord => Pk,
    PkMemoryRecord => PkMemory,
    TlsRecord => Tls,
    CtRecord => Ct,
    CyclesRecord => Cycles,
    TlsRecordsRecord => TlsRecords,
    TlsBulkRecord => TlsBulk,
    TlsPolicyRecord => TlsPolicy,
);

/// A results directory's records, by suite, each list in file order.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// `speed` and `latency` points.
    pub speed: Vec<SpeedRecord>,
    pub pk: Vec<PkRecord>,
    pub pk_memory: Vec<PkMemoryRecord>,
    pub tls: Vec<TlsRecord>,
    pub ct: Vec<CtRecord>,
    pub cycles: Vec<CyclesRecord>,
    pub tls_records: Vec<TlsRecordsRecord>,
    pub tls_bulk: Vec<TlsBulkRecord>,
    pub tls_policy: Vec<TlsPolicyRecord>,
}

impl Records {
    /// Files `r` under its suite.
    pub fn push(&mut self, r: Record) {
        match r {
            Record::Speed(r) => self.speed.push(r),
            Record::Pk(r) => self.pk.push(r),
            Record::PkMemory(r) => self.pk_memory.push(r),
            Record::Tls(r) => self.tls.push(r),
            Record::Ct(r) => self.ct.push(r),
            Record::Cycles(r) => self.cycles.push(r),
            Record::TlsRecords(r) => self.tls_records.push(r),
            Record::TlsBulk(r) => self.tls_bulk.push(r),
            Record::TlsPolicy(r) => self.tls_policy.push(r),
        }
    }

    /// How many records `suite` has.
    pub fn count(&self, suite: SuiteId) -> usize {
        match suite {
            SuiteId::Speed | SuiteId::Latency => {
                self.speed.iter().filter(|r| r.head.suite == suite).count()
            }
            SuiteId::Pk => self.pk.len(),
            SuiteId::PkMemory => self.pk_memory.len(),
            SuiteId::Tls => self.tls.len(),
            SuiteId::Ct => self.ct.len(),
            SuiteId::Cycles => self.cycles.len(),
            SuiteId::TlsRecords => self.tls_records.len(),
            SuiteId::TlsBulk => self.tls_bulk.len(),
            SuiteId::TlsPolicy => self.tls_policy.len(),
        }
    }

    /// The suites that have records, in [`SuiteId::ALL`]'s order.
    pub fn suites(&self) -> Vec<SuiteId> {
        SuiteId::ALL
            .into_iter()
            .filter(|s| self.count(*s) > 0)
            .collect()
    }

    /// The records of `suite`, in file order.
    pub fn of(&self, suite: SuiteId) -> Vec<Record> {
        fn all<T: Clone + Into<Record>>(v: &[T]) -> Vec<Record> {
            v.iter().cloned().map(Into::into).collect()
        }
        match suite {
            SuiteId::Speed | SuiteId::Latency => self
                .speed
                .iter()
                .filter(|r| r.head.suite == suite)
                .cloned()
                .map(Record::Speed)
                .collect(),
            SuiteId::Pk => all(&self.pk),
            SuiteId::PkMemory => all(&self.pk_memory),
            SuiteId::Tls => all(&self.tls),
            SuiteId::Ct => all(&self.ct),
            SuiteId::Cycles => all(&self.cycles),
            SuiteId::TlsRecords => all(&self.tls_records),
            SuiteId::TlsBulk => all(&self.tls_bulk),
            SuiteId::TlsPolicy => all(&self.tls_policy),
        }
    }

    /// How many records there are in all.
    pub fn len(&self) -> usize {
        self.speed.len()
            + self.pk.len()
            + self.pk_memory.len()
            + self.tls.len()
            + self.ct.len()
            + self.cycles.len()
            + self.tls_records.len()
            + self.tls_bulk.len()
            + self.tls_policy.len()
    }

    /// True when no suite has a record.
    pub fn is_empty(&self) -> bool {
        self.suites().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Header;

    fn cycles_line() -> serde_json::Value {
        serde_json::json!({
            "schema": 2, "schema_version": 2, "suite": "cycles", "run_id": "r",
            "algorithm": "camellia-128-ecb", "cipher": "camellia", "backend": "ango",
            "implementation": "camellia/table64-nct", "path": "", "library_version": "",
            "key_bits": 128, "operation": "encrypt", "chained": true, "chain": "ciphertext",
            "unit": "block", "iterations": 1000, "samples": 11,
            "median_ns": 80.0, "q1_ns": 1.0, "q3_ns": 1.0, "mean_ns": 1.0, "sd_ns": 0.0,
            "min_ns": 1.0, "max_ns": 1.0, "robust_cv": 0.0, "ci95_low_ns": 1.0,
            "ci95_high_ns": 1.0, "cycles_per_op": 200.0, "cycle_source": "tsc",
            "table_bytes": 4096, "l1d_bytes": 32768, "kat": "pass 6/6", "noisy": false,
            "warnings": [], "method": "", "time": ""
        })
    }

    #[test]
    fn a_line_is_read_as_its_suite_and_written_back_unchanged() {
        let v = cycles_line();
        match Record::from_value(v.clone()) {
            Ok(r) => {
                assert_eq!(r.suite(), SuiteId::Cycles);
                let mut all = Records::default();
                all.push(r.clone());
                assert_eq!(all.suites(), [SuiteId::Cycles]);
                assert_eq!(all.count(SuiteId::Cycles), 1);
                assert_eq!(all.count(SuiteId::Speed), 0);
                // Every field the record knows is written back as read.
                let back = serde_json::to_value(&r).unwrap();
                for (k, x) in back.as_object().unwrap() {
                    if let Some(y) = v.get(k) {
                        assert_eq!(x, y, "{k}");
                    }
                }
                assert_eq!(back["suite"], "cycles");
            }
            // The fixture must fit CyclesRecord; if its fields change, the
            // error says which one is missing.
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_record_in_an_event_reads_back_as_its_suite_and_of_lists_it() {
        let r = Record::from_value(cycles_line()).unwrap();
        let text = serde_json::to_string(&r).unwrap();
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back.suite(), SuiteId::Cycles);
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        // A line of no known suite is refused by Deserialize too.
        let e = serde_json::from_str::<Record>(r#"{"suite":"verify"}"#).unwrap_err();
        assert!(e.to_string().contains("no known suite 'verify'"), "{e}");
        let mut all = Records::default();
        all.push(back);
        assert_eq!(all.of(SuiteId::Cycles).len(), 1);
        assert!(all.of(SuiteId::TlsBulk).is_empty());
        assert!(all.of(SuiteId::Speed).is_empty());
    }

    #[test]
    fn every_line_starts_with_the_header_and_version_1_lines_still_read() {
        let r = Record::from_value(cycles_line()).unwrap();
        let text = serde_json::to_string(&r).unwrap();
        assert!(
            text.starts_with(r#"{"schema":2,"schema_version":2,"suite":"cycles","run_id":"r","#),
            "{text}"
        );
        // A version-1 line has no schema_version: it reads as 1.
        let mut v = cycles_line();
        v["schema"] = 1.into();
        v.as_object_mut().unwrap().remove("schema_version");
        let Record::Cycles(c) = Record::from_value(v).unwrap() else {
            panic!("a cycles line read as another suite");
        };
        assert_eq!((c.head.schema, c.head.schema_version), (1, 1));
        assert_eq!(
            c.head,
            Header {
                schema: 1,
                schema_version: 1,
                suite: SuiteId::Cycles,
                run_id: "r".into()
            }
        );
    }

    #[test]
    fn unknown_or_missing_suites_and_misfits_are_errors_that_say_why() {
        let mut v = cycles_line();
        v["suite"] = "verify".into();
        assert_eq!(
            Record::from_value(v).unwrap_err(),
            "no known suite 'verify'"
        );
        let mut v = cycles_line();
        v.as_object_mut().unwrap().remove("suite");
        assert_eq!(Record::from_value(v).unwrap_err(), "no known suite ''");
        let mut v = cycles_line();
        v["suite"] = "pk".into();
        let e = Record::from_value(v).unwrap_err();
        assert!(e.starts_with("not a pk record: "), "{e}");
    }
}
