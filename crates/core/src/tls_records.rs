//! The record of one point of `ango tls-records` (`suite: tls-records` in
//! results.jsonl): the bytes one TLS application-data record takes on the
//! wire for a cipher suite and a plaintext length (seed 004's record
//! overhead), read from the captured connection.

use crate::Header;
use serde::{Deserialize, Serialize};

/// One (TLS version, cipher suite, plaintext length) point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsRecordsRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// `1.2` or `1.3`.
    pub tls_version: String,
    /// IANA name, e.g. `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`.
    pub cipher_suite: String,
    /// Its two-byte code point, e.g. `0xC02B`.
    pub cipher_suite_code: String,
    /// The suite the server's ServerHello selected, read from the capture
    /// (IANA name; equals `cipher_suite` unless a stack substituted one).
    pub negotiated_suite: String,
    /// Application bytes in the record (one `write` of this many bytes).
    pub plaintext_bytes: u64,
    /// Bytes of the record on the wire: its 5-byte header and fragment, as
    /// captured.
    pub wire_bytes: u64,
    /// `wire_bytes - plaintext_bytes`.
    pub overhead_bytes: u64,
    /// `100 * overhead_bytes / plaintext_bytes`.
    pub overhead_percent: f64,
    /// `openssl` (the TLS stack of each side).
    pub client_stack: String,
    pub server_stack: String,
    pub client_library_version: String,
    pub server_library_version: String,
    /// How the connection's bytes were read: `af-packet` (a packet capture
    /// on the loopback interface, root) or `relay` (a TCP relay between the
    /// two endpoints that records what each direction carries, without
    /// root).
    pub capture: String,
    /// How the record was told apart from the handshake: `outer-type`
    /// (TLS 1.2: the client's only application_data record) or
    /// `decrypted` (TLS 1.3: opened with the key log's client traffic
    /// secret, inner content type application_data and the plaintext
    /// length checked).
    pub identified_by: String,
    /// OpenSSL security level the suite ran at (0 for
    /// TLS_AES_128_CCM_8_SHA256, whose 64-bit tag is below the default
    /// level; the default level otherwise).
    pub security_level: u32,
    /// The pcap file of the connection in the results directory, if kept.
    pub pcap: Option<String>,
    pub time: String,
}

/// One row of seed 004's table of the ChaCha20-Poly1305 suites: which of
/// the TLS stacks here offer the suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteOffer {
    /// `0xCCA8`.
    pub code: String,
    pub iana: String,
    /// What seed 004 (2016) lists: O OpenSSL 1.1.0, F Firefox, C Chrome.
    pub seed: String,
    /// The stacks of this ango build that offer it (`openssl`, …).
    pub offered_by: Vec<String>,
}

/// One (TLS version, cipher suite, client hw, server hw) point of `ango tls
/// --bulk` (`suite: tls-bulk`): application-data throughput over one TLS
/// connection per repeat, each endpoint in its own process pinned to its
/// own core, with its own `OPENSSL_ia32cap`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsBulkRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// `1.2` or `1.3`.
    pub tls_version: String,
    /// IANA name, e.g. `TLS_CHACHA20_POLY1305_SHA256`.
    pub cipher_suite: String,
    /// Its code point, e.g. `0x1303`.
    pub cipher_suite_code: String,
    /// The suite the connection settled on as the client's stack reports
    /// it (IANA name; equals `cipher_suite`).
    pub negotiated_suite: String,
    /// `speed --hw` setting of the client's process: `on`, `off`, `seed000`.
    pub client_hw: String,
    pub server_hw: String,
    /// The CPU features each endpoint's library actually used (read in that
    /// process after its mask was applied), e.g. `aes-ni pclmulqdq avx2`.
    pub client_cpu_features: String,
    pub server_cpu_features: String,
    /// Application bytes per transfer (one connection per repeat).
    pub bytes: u64,
    /// Which way the bytes went: `server-to-client` (the server encrypts,
    /// the client decrypts, as in a download).
    pub direction: String,
    /// Timed transfers (an untimed warm-up transfer precedes the first).
    pub repeats: u32,
    /// Median over the repeats of `bytes` ÷ the client's wall time from its
    /// request to the last byte read.
    pub bytes_per_second: f64,
    pub bytes_per_second_q1: f64,
    pub bytes_per_second_q3: f64,
    /// Median over the repeats of the client thread's CPU time (user +
    /// system) during the transfer ÷ `bytes`.
    pub client_cpu_ns_per_byte: f64,
    /// The same for the server's thread (its writes of the transfer).
    pub server_cpu_ns_per_byte: f64,
    /// The user-space part of those CPU times (the cipher runs there; the
    /// rest is the kernel's TCP).
    pub client_user_ns_per_byte: f64,
    pub server_user_ns_per_byte: f64,
    /// The cores the two processes were pinned to (equal when the machine
    /// lets this run use only one).
    pub client_core: Option<usize>,
    pub server_core: Option<usize>,
    /// `loopback` (127.0.0.1, no namespaces) or the lab's link kind
    /// (`veth`, `veth-netem`, `tun-relay`).
    pub link: String,
    /// The emulated round-trip time, 0 when none was asked.
    pub rtt_ms: f64,
    /// `openssl` (the TLS stack of each side).
    pub client_stack: String,
    pub server_stack: String,
    pub client_library_version: String,
    pub server_library_version: String,
    pub time: String,
}

/// One handshake of `ango tls-policy` (`suite: tls-policy`): which cipher
/// suite a client profile and a server policy settle on in one TLS
/// version, and what that suite costs that client per byte.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsPolicyRecord {
    /// `schema`, `schema_version`, `suite` and `run_id`: what every line
    /// of results.jsonl starts with.
    #[serde(flatten)]
    pub head: Header,
    /// `aes-first`, `chacha-first` or `openssl-default`.
    pub client_profile: String,
    /// The suites of the client's ClientHello in its order (IANA names, as
    /// the server's ClientHello callback read them).
    pub client_offer: Vec<String>,
    /// `client-order`, `server-aes-first`, `server-chacha-first` or
    /// `server-aes-first+prioritize-chacha`.
    pub server_policy: String,
    /// The server's suites in its order (IANA names).
    pub server_order: Vec<String>,
    /// The OpenSSL options behind the policy: `cipher-server-preference`,
    /// `prioritize-chacha`.
    pub server_options: Vec<String>,
    /// `1.2` or `1.3`.
    pub tls_version: String,
    /// The suite the handshake settled on (IANA name).
    pub negotiated_suite: String,
    /// The hardware setting the client profile stands for (`on`: a client
    /// with AES instructions, `off`: one without).
    pub client_hw: String,
    /// The client's CPU time per byte for the negotiated suite under
    /// `client_hw`, from the bulk measurement named in `cost_source`
    /// (none if that suite was not measured).
    pub client_cost_ns_per_byte: Option<f64>,
    /// The cheapest suite this client could have had among those both
    /// sides offer, and its cost.
    pub best_suite: Option<String>,
    pub best_cost_ns_per_byte: Option<f64>,
    /// Where the costs come from, e.g. `tls --bulk 16 MiB × 3 in this run`.
    pub cost_source: String,
    pub client_stack: String,
    pub server_stack: String,
    pub client_library_version: String,
    pub server_library_version: String,
    pub time: String,
}

/// BoringSSL's equal-preference rule (kept by AWS-LC's libssl) for the
/// server list `[AES-128-GCM|CHACHA20-POLY1305]:AES-256-GCM` that seed 004
/// §6.3 inferred at Google's front end, applied to a client's offer (IANA
/// names in its order) in TLS `version` (`1.2`: the ECDHE-ECDSA suites):
/// the group comes first and within it the client's order decides; then
/// AES-256-GCM. `None` if the offer has none of them.
pub fn equal_preference(version: &str, offer: &[String]) -> Option<&'static str> {
    let (a128, chacha, a256) = if version == "1.2" {
        (
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        )
    } else {
        (
            "TLS_AES_128_GCM_SHA256",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_AES_256_GCM_SHA384",
        )
    };
    offer
        .iter()
        .find_map(|o| [a128, chacha].into_iter().find(|g| *g == o.as_str()))
        .or_else(|| offer.iter().any(|o| o == a256).then_some(a256))
}
