//! Everything a report is made from, as loaded from a results directory.

use ango_core::event::Event;
use ango_core::{EnvInfo, Records};

/// Everything a report is made from.
#[derive(Default)]
pub struct ReportData {
    pub env: Option<EnvInfo>,
    /// Every record of results.jsonl, by suite.
    pub records: Records,
    /// The public-key study's per-call samples.
    pub pk_samples: Vec<ango_core::PkSamples>,
    /// Seed 004's ChaCha20-Poly1305 suites and which stacks here offer them.
    pub suite_offers: Vec<ango_core::SuiteOffer>,
    /// The events of events.jsonl (checks before timing, skips, notes,
    /// errors), typed.
    pub events: Vec<Event>,
    /// Notes about the data itself (interrupted run, cut lines).
    pub notes: Vec<String>,
    /// The providers that have several named variants of an algorithm
    /// (from the catalog): their points are labelled by variant.
    pub variant_providers: Vec<String>,
}
