//! One exporter interface for every suite: each suite (speed, latency,
//! public-key, TLS) presents its records as a terminal table, JSON, CSV,
//! Markdown, its section of the HTML report, and its findings. The
//! commands print through [`render`], the report page and `findings.jsonl`
//! iterate [`suites`]; a new suite adds one [`Exporter`] and nothing else.

pub use crate::formats::Format;
use crate::unit::Unit;
use ango_core::{Finding, PkRecord, PkSamples, SpeedRecord, TlsRecord};

/// How records are shown: the unit of the speed tables, the name of the
/// cycle source, whether terminal tables end with their findings, and the
/// providers whose points are labelled by variant.
#[derive(Clone, Debug)]
pub struct Style {
    /// The unit of the speed and latency tables; each suite's own default
    /// (kbps for speed, ns for latency) when `None`.
    pub unit: Option<Unit>,
    pub cycle_label: String,
    /// A line under the speed tables about the cycle source (TSC ticks).
    pub cycle_note: Option<String>,
    pub table_findings: bool,
    pub variant_providers: Vec<String>,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            unit: None,
            cycle_label: "cycles".into(),
            cycle_note: None,
            table_findings: true,
            variant_providers: Vec::new(),
        }
    }
}

/// One suite's presentation of its records.
pub trait Exporter {
    /// The suite's name, as records spell it (`speed`, `latency`, `pk`, `tls`).
    fn suite(&self) -> &'static str;
    /// The heading of its part of a several-suite output.
    fn title(&self) -> &'static str;
    fn is_empty(&self) -> bool;
    /// The terminal table (with method notes and, when the style asks,
    /// findings).
    fn table(&self, style: &Style) -> String;
    /// Every record as a JSON value (one array element each).
    fn values(&self) -> Vec<serde_json::Value>;
    fn csv(&self) -> String;
    fn md(&self, style: &Style) -> String;
    /// Its section of the HTML report.
    fn html(&self, style: &Style) -> String;
    /// The part of the page its section belongs to: a seed (`000` …
    /// `004`) or ango's own ([`crate::seeds::OWN`]).
    fn part(&self) -> &'static str;
    /// Its contribution to the section of `part`: [`Exporter::html`] in its
    /// own part, nothing elsewhere (a suite whose records answer another
    /// seed too adds to that seed's section here).
    fn html_for(&self, part: &str, style: &Style) -> String {
        if part == self.part() {
            self.html(style)
        } else {
            String::new()
        }
    }
    /// The seeds' claims checked against these records.
    fn findings(&self, style: &Style) -> Vec<Finding>;

    /// A JSON array of the records.
    fn json(&self) -> String {
        json_array(&self.values())
    }
}

pub(crate) fn json_array(v: &[serde_json::Value]) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("records serialise");
    s.push('\n');
    s
}

fn values<T: serde::Serialize>(records: &[T]) -> Vec<serde_json::Value> {
    records
        .iter()
        .map(|r| serde_json::to_value(r).expect("a record serialises"))
        .collect()
}

/// The speed study (seed 000): throughput tables by message size.
pub struct Speed(pub Vec<SpeedRecord>);

/// The speed table, its robust-CV table, the cycle note and (by style)
/// findings: shared by the speed and latency exporters.
fn speed_table(shown: &[SpeedRecord], findings: &[Finding], unit: Unit, style: &Style) -> String {
    let mut out = crate::formats::table(shown, unit, &style.cycle_label);
    if !shown.is_empty() {
        out.push('\n');
        out.push_str(&crate::formats::cv_table(shown));
        let paired = crate::formats::paired_table(shown, &style.variant_providers);
        if !paired.is_empty() {
            out.push('\n');
            out.push_str(&paired);
        }
        if let Some(n) = &style.cycle_note {
            out.push_str(&format!("cycles: {n}\n"));
        }
        if style.table_findings && !findings.is_empty() {
            out.push_str("\nFindings:\n");
            out.push_str(&crate::findings::text(findings));
        }
    }
    out
}

impl Exporter for Speed {
    fn part(&self) -> &'static str {
        "000"
    }
    fn suite(&self) -> &'static str {
        "speed"
    }
    fn title(&self) -> &'static str {
        "Speed study (seed 000)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, style: &Style) -> String {
        speed_table(
            &self.0,
            &self.findings(style),
            style.unit.unwrap_or(Unit::Kbps),
            style,
        )
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(&self.0)
    }
    fn csv(&self) -> String {
        crate::formats::csv(&self.0)
    }
    fn md(&self, style: &Style) -> String {
        crate::formats::markdown(
            &self.0,
            style.unit.unwrap_or(Unit::Kbps),
            &style.cycle_label,
        )
    }
    fn html(&self, style: &Style) -> String {
        crate::speed::section(&self.0, &style.variant_providers)
    }
    /// Seed 004's speed comparison comes from these records too.
    fn html_for(&self, part: &str, style: &Style) -> String {
        match part {
            "000" => self.html(style),
            "004" => crate::speed::seed004_speed(&self.0),
            _ => String::new(),
        }
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::findings::speed(&self.0)
    }
}

/// The latency study (seed 001): time per message at each length.
pub struct Latency(pub Vec<SpeedRecord>);

/// The lengths of seed 001's Table 1, the columns of the latency table.
pub const LATENCY_TABLE_SIZES: &[u64] = &[16, 64, 512, 1024, 2048, 4096];

impl Exporter for Latency {
    fn part(&self) -> &'static str {
        "001"
    }
    fn suite(&self) -> &'static str {
        "latency"
    }
    fn title(&self) -> &'static str {
        "Latency study (seed 001)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, style: &Style) -> String {
        let shown: Vec<SpeedRecord> = self
            .0
            .iter()
            .filter(|r| LATENCY_TABLE_SIZES.contains(&r.size_bytes))
            .cloned()
            .collect();
        let mut out = String::from(
            "Seed 001's Table 1 lengths; every length is in the JSON/CSV output and the report.\n",
        );
        out.push_str(&speed_table(
            &shown,
            &self.findings(style),
            style.unit.unwrap_or(Unit::Ns),
            style,
        ));
        out
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(&self.0)
    }
    fn csv(&self) -> String {
        crate::formats::csv(&self.0)
    }
    fn md(&self, style: &Style) -> String {
        crate::formats::markdown(&self.0, style.unit.unwrap_or(Unit::Ns), &style.cycle_label)
    }
    fn html(&self, style: &Style) -> String {
        crate::speed::latency_section(&self.0, &style.variant_providers)
    }
    fn findings(&self, style: &Style) -> Vec<Finding> {
        crate::findings::latency(&self.0, &style.variant_providers)
    }
}

/// The public-key study (seed 003 §4-1, §4-2).
pub struct Pk {
    pub records: Vec<PkRecord>,
    pub samples: Vec<PkSamples>,
}

impl Exporter for Pk {
    fn part(&self) -> &'static str {
        "003"
    }
    fn suite(&self) -> &'static str {
        "pk"
    }
    fn title(&self) -> &'static str {
        "Public-key study (seed 003 §4-1, §4-2)"
    }
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    fn table(&self, style: &Style) -> String {
        let records = &self.records;
        let mut out = crate::pk::table(records);
        out.push_str(
            "\nMethod: every call timed on its own with the monotonic clock; n calls kept per \
             point after dropping the first; statistics over those calls.\n",
        );
        if records.iter().any(|r| r.timing == "operation") {
            out.push_str(crate::pk::TIMING_NOTE);
            out.push('\n');
        }
        if records.iter().any(|r| r.algorithm == "x25519") {
            out.push_str(&format!("Note: {}\n", ango_core::record::X25519_NOTE));
        }
        if let Some(n) = records.iter().find_map(|r| r.message_bytes) {
            out.push_str(&format!(
                "Note: {}.\n",
                ango_core::record::message_note(n as usize)
            ));
        }
        let f = self.findings(style);
        if style.table_findings && !f.is_empty() {
            out.push_str("\nFindings (seed 003):\n");
            out.push_str(&crate::findings::text(&f));
        }
        out
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(&self.records)
    }
    fn csv(&self) -> String {
        crate::pk::csv(&self.records)
    }
    fn md(&self, _style: &Style) -> String {
        crate::pk::markdown(&self.records)
    }
    fn html(&self, _style: &Style) -> String {
        crate::pk::html_section(&self.records, &self.samples)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::pk::findings(&self.records)
    }
}

/// The TLS 1.3 handshake lab (seed 003 §4-3).
pub struct Tls<'a>(pub &'a [TlsRecord]);

impl Exporter for Tls<'_> {
    fn part(&self) -> &'static str {
        "003"
    }
    fn suite(&self) -> &'static str {
        "tls"
    }
    fn title(&self) -> &'static str {
        "TLS 1.3 handshake lab (seed 003 §4-3)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::tls::text_tables(self.0)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.0)
    }
    fn csv(&self) -> String {
        crate::tls::csv(self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::tls::markdown(self.0)
    }
    fn html(&self, _style: &Style) -> String {
        crate::tls::html_section(self.0)
    }
    /// Seed 003's section has the seed's pairing (and the congestion-window
    /// pass); the other stack pairings and their comparison are ango's own.
    fn html_for(&self, part: &str, _style: &Style) -> String {
        match part {
            "003" => crate::tls::seed_section(self.0),
            crate::seeds::OWN => crate::tls::stacks_section(self.0),
            _ => String::new(),
        }
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::tls_findings::findings(self.0)
    }
}

pub struct Ct<'a>(pub &'a [ango_core::ct::CtRecord]);

impl Exporter for Ct<'_> {
    fn part(&self) -> &'static str {
        "ango"
    }
    fn suite(&self) -> &'static str {
        "ct"
    }
    fn title(&self) -> &'static str {
        "Constant-time checks (memcheck and dudect)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::ct::text_table(self.0)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.0)
    }
    fn csv(&self) -> String {
        crate::ct::csv(self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::ct::markdown(self.0)
    }
    fn html(&self, _style: &Style) -> String {
        crate::ct::section(self.0)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::ct::findings(self.0)
    }
}

/// Seed 004's record overhead.
pub struct TlsRecords<'a> {
    pub records: &'a [ango_core::TlsRecordsRecord],
    pub offers: &'a [ango_core::SuiteOffer],
}

impl Exporter for TlsRecords<'_> {
    fn part(&self) -> &'static str {
        "004"
    }
    fn suite(&self) -> &'static str {
        "tls-records"
    }
    fn title(&self) -> &'static str {
        "TLS record overhead (seed 004)"
    }
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::tls_records::text(self.records, self.offers)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.records)
    }
    fn csv(&self) -> String {
        crate::tls_records::csv(self.records)
    }
    fn md(&self, _style: &Style) -> String {
        crate::tls_records::markdown(self.records)
    }
    fn html(&self, _style: &Style) -> String {
        crate::tls_records::section(self.records, self.offers)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::tls_records::findings(self.records)
    }
}

/// Seed 004's bulk throughput.
pub struct TlsBulk<'a>(pub &'a [ango_core::TlsBulkRecord]);

impl Exporter for TlsBulk<'_> {
    fn part(&self) -> &'static str {
        "004"
    }
    fn suite(&self) -> &'static str {
        "tls-bulk"
    }
    fn title(&self) -> &'static str {
        "TLS bulk throughput (seed 004)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::tls_bulk::text(self.0)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.0)
    }
    fn csv(&self) -> String {
        crate::tls_bulk::csv(self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::tls_bulk::markdown(self.0)
    }
    fn html(&self, _style: &Style) -> String {
        crate::tls_bulk::section(self.0)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::tls_bulk::findings(self.0)
    }
}

/// Seed 004's negotiation matrix.
pub struct TlsPolicy<'a>(pub &'a [ango_core::TlsPolicyRecord]);

impl Exporter for TlsPolicy<'_> {
    fn part(&self) -> &'static str {
        "004"
    }
    fn suite(&self) -> &'static str {
        "tls-policy"
    }
    fn title(&self) -> &'static str {
        "TLS cipher-suite policies (seed 004)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::tls_policy::text(self.0)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.0)
    }
    fn csv(&self) -> String {
        crate::tls_policy::csv(self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::tls_policy::markdown(self.0)
    }
    fn html(&self, _style: &Style) -> String {
        crate::tls_policy::section(self.0)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::tls_policy::findings(self.0)
    }
}

/// Seed 002's cycle study.
pub struct Cycles<'a>(pub &'a [ango_core::cycles::CyclesRecord]);

impl Exporter for Cycles<'_> {
    fn part(&self) -> &'static str {
        "002"
    }
    fn suite(&self) -> &'static str {
        "cycles"
    }
    fn title(&self) -> &'static str {
        "Cycle study (seed 002)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::cycles::text(self.0)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(self.0)
    }
    fn csv(&self) -> String {
        crate::cycles::csv(self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::cycles::markdown(self.0)
    }
    fn html(&self, _style: &Style) -> String {
        crate::cycles::section(self.0)
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        crate::cycles::findings(self.0)
    }
}

/// The multi-core figures (`--multi`): records with `workers` > 1.
pub struct Multi {
    pub records: Vec<SpeedRecord>,
    pub variant_providers: Vec<String>,
}

impl Multi {
    fn rows(&self) -> Vec<crate::multi::Row<'_>> {
        crate::multi::speed_rows(&self.records, &self.variant_providers)
    }
}

impl Exporter for Multi {
    fn part(&self) -> &'static str {
        "ango"
    }
    fn suite(&self) -> &'static str {
        "speed"
    }
    fn title(&self) -> &'static str {
        "Multi-core throughput (--multi)"
    }
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::multi::table(&self.rows(), crate::multi::Rate::Bytes)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(&self.records)
    }
    fn csv(&self) -> String {
        crate::formats::csv(&self.records)
    }
    fn md(&self, _style: &Style) -> String {
        crate::multi::markdown(&self.rows(), crate::multi::Rate::Bytes)
    }
    fn html(&self, _style: &Style) -> String {
        crate::multi::html(
            &self.rows(),
            crate::multi::Rate::Bytes,
            "Multi-core throughput",
        )
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        Vec::new()
    }
}

/// The public-key study's multi-core figures (`pk --multi`).
pub struct PkMulti(pub Vec<PkRecord>);

impl Exporter for PkMulti {
    fn part(&self) -> &'static str {
        "ango"
    }
    fn suite(&self) -> &'static str {
        "pk"
    }
    fn title(&self) -> &'static str {
        "Public-key operations on every core (pk --multi)"
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        crate::multi::table(&crate::multi::pk_rows(&self.0), crate::multi::Rate::Ops)
    }
    fn values(&self) -> Vec<serde_json::Value> {
        values(&self.0)
    }
    fn csv(&self) -> String {
        crate::pk::csv(&self.0)
    }
    fn md(&self, _style: &Style) -> String {
        crate::multi::markdown(&crate::multi::pk_rows(&self.0), crate::multi::Rate::Ops)
    }
    fn html(&self, _style: &Style) -> String {
        crate::multi::html(
            &crate::multi::pk_rows(&self.0),
            crate::multi::Rate::Ops,
            "Public-key operations on every core",
        )
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        Vec::new()
    }
}
