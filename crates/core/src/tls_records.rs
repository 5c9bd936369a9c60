//! The record of one point of `ango tls-records` (`suite: tls-records` in
//! results.jsonl): the bytes one TLS application-data record takes on the
//! wire for a cipher suite and a plaintext length (seed 004's record
//! overhead), read from the captured connection.

use serde::{Deserialize, Serialize};

/// One (TLS version, cipher suite, plaintext length) point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TlsRecordsRecord {
    pub schema: u32,
    pub schema_version: u32,
    /// "tls-records".
    pub suite: String,
    pub run_id: String,
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
