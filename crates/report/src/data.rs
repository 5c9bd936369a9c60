//! Everything a report is made from, as loaded from a results directory.

use ango_core::{EnvInfo, SpeedRecord};

/// Everything a report is made from.
#[derive(Default)]
pub struct ReportData {
    pub env: Option<EnvInfo>,
    pub records: Vec<SpeedRecord>,
    /// The public-key study's records and their per-call samples.
    pub pk_records: Vec<ango_core::PkRecord>,
    pub pk_samples: Vec<ango_core::PkSamples>,
    /// The TLS 1.3 handshake lab's records, one per combination.
    pub tls_records: Vec<ango_core::TlsRecord>,
    /// The constant-time checks' records, one per target.
    pub ct_records: Vec<ango_core::ct::CtRecord>,
    /// Seed 002's cycle study's records (`suite: cycles`).
    pub cycles_records: Vec<ango_core::cycles::CyclesRecord>,
    /// Seed 004's record-overhead records (`suite: tls-records`).
    pub tls_records_records: Vec<ango_core::TlsRecordsRecord>,
    /// Seed 004's bulk-throughput records (`suite: tls-bulk`).
    pub tls_bulk_records: Vec<ango_core::TlsBulkRecord>,
    /// Seed 004's negotiation matrix (`suite: tls-policy`).
    pub tls_policy_records: Vec<ango_core::TlsPolicyRecord>,
    /// Seed 004's ChaCha20-Poly1305 suites and which stacks here offer them.
    pub suite_offers: Vec<ango_core::SuiteOffer>,
    /// Lines of events.jsonl (known-answer results, skips, errors).
    pub events: Vec<serde_json::Value>,
    /// Notes about the data itself (interrupted run, cut lines).
    pub notes: Vec<String>,
    /// The providers that have several named variants of an algorithm
    /// (from the catalog): their points are labelled by variant.
    pub variant_providers: Vec<String>,
}
