//! Presenting results: the terminal table (shaped like `openssl speed`'s),
//! JSON, CSV and Markdown exports, the self-contained HTML report with inline
//! SVG charts, plain-language findings, and comparisons between runs.

pub mod anchor;
pub mod claim;
pub mod compare;
pub mod ct;
pub mod cycles;
pub mod data;
pub mod export;
pub mod figure;
pub mod findings;
pub mod formats;
pub mod html;
pub mod multi;
pub mod page;
pub mod pk;
pub mod pk_memory;
pub mod seeds;
pub mod speed;
pub mod suites;
pub mod summary;
pub mod svg;
pub mod table;
pub mod tls;
pub mod tls_bulk;
pub mod tls_findings;
pub mod tls_policy;
pub mod tls_records;
pub mod unit;

pub use unit::Unit;
