//! The ids of the report page's elements that findings link to: each
//! finding's `anchor` is one of these, and the section that draws the
//! table or chart gives it that id.

use ango_core::finding::slug;

/// The dashboard, its verdict table and ango's own checks.
pub const DASHBOARD: &str = "dashboard";
pub const VERDICTS: &str = "verdicts";
pub const OWN_CHECKS: &str = "own-checks";

/// A seed's section (`000` … `004`), or ango's own (`ango`).
pub fn seed(id: &str) -> String {
    format!("seed-{id}")
}

/// Seed 000's tables of one library (its Tables 5.5–5.20 shape).
pub fn speed_lib(backend: &str) -> String {
    format!("s000-lib-{}", slug(backend))
}
/// Seed 000's throughput charts.
pub const SPEED_CHARTS: &str = "s000-charts";
/// The fastest implementation per algorithm.
pub const SPEED_FASTEST: &str = "s000-fastest";
/// ango's own code against the fastest library, paired.
pub const SPEED_PAIRED: &str = "s000-paired";
/// Every speed point with its interval and robust CV.
pub const SPEED_ALL: &str = "s000-all";

/// Seed 001's latency chart of one algorithm.
pub fn latency(algorithm: &str) -> String {
    format!("s001-{}", slug(algorithm))
}

/// Seed 002's Tables 4 and 5.
pub const CYCLES_TABLE4: &str = "s002-table4";
pub const CYCLES_TABLE5: &str = "s002-table5";

/// Seed 003's table of one public-key operation (`kem-keygen`, …).
pub fn pk_op(kind: &str, op: &str) -> String {
    format!("s003-{}-{}", slug(kind), slug(op))
}
/// Seed 003's distribution charts and full statistics.
pub const PK_ALL: &str = "s003-pk-all";
/// Seed 003's handshake tables (phases, flights, packets).
pub const TLS_FLIGHTS: &str = "s003-tls-flights";
pub const TLS_PHASES: &str = "s003-tls-phases";
/// Seed 003's congestion-window pass (flights within and beyond the
/// initial window over a long round trip).
pub const TLS_CWND: &str = "s003-tls-cwnd";

/// Seed 004's tables.
pub const TLS_RECORDS: &str = "s004-records";
pub const TLS_BULK: &str = "s004-bulk";
pub const TLS_POLICY: &str = "s004-policy";
pub const SPEED_004: &str = "s004-speed";

/// ango's constant-time checks.
pub const CT: &str = "own-ct";
