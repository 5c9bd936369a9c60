//! ango's shared vocabulary: canonical algorithm names, the hardware settings a
//! point is measured under, the traits every backend implements, the record
//! schema written to `results.jsonl`, and the error type.
//!
//! This crate has no crypto dependency: backends (OpenSSL, RustCrypto, ango's
//! own primitives) plug in behind [`traits`].

pub mod algo;
pub mod catalog;
pub mod csv;
pub mod ct;
pub mod cycles;
pub mod error;
pub mod event;
pub mod finding;
pub mod pk;
pub mod pk_memory;
pub mod record;
pub mod records;
pub mod results;
pub mod stats;
pub mod suite;
pub mod testbed;
pub mod tls_records;
pub mod traits;

pub use algo::{Algorithm, Hw, Kind, Operation};
pub use catalog::{AlgorithmId, Catalog, Entry, EntryBackend, Make, Provider};
pub use error::{Error, Result};
pub use finding::{CaseCounts, CaseFailure, DefectCategory, DefectMatch, Finding, Verdict};
pub use pk::{
    Kem, PkAlgorithm, PkBackend, PkInstance, PkKind, PkOp, Prepared, PreparedOp, Signer, SizeEntry,
    Timing,
};
pub use pk_memory::{MassifCheck, PkMemoryRecord};
pub use record::{
    AutoPick, EnvInfo, Header, MultiCore, Paired, PairedVs, PkRecord, PkSamples, SpeedRecord,
    TlsCapture, TlsRecord, TlsTcp, TlsTwoHost, WorkerFigure, SCHEMA_VERSION, TLS_CLIENT_VIEW,
    TLS_SERVER_VIEW,
};
pub use records::{Record, RecordKey, Records};
pub use stats::Stats;
pub use suite::SuiteId;
pub use tls_records::{SuiteOffer, TlsBulkRecord, TlsPolicyRecord, TlsRecordsRecord};
pub use traits::{Aead, AeadLengths, Backend, BlockOps, Cipher, Unavailable};
