//! The TLS 1.3 handshake lab of seed 003 §4-3: two hosts on this machine
//! (network namespaces joined by a veth pair or by ango's own emulated link,
//! a relay between TUN devices that delays, drops and paces packets),
//! certificates made at run time for every (CA signature, server
//! signature) pair, and OpenSSL 3.5 endpoints that time each handshake.

pub mod bulk;
pub mod capture;
pub mod certs;
pub mod control;
pub mod fuzz_readers;
pub mod handshake;
pub mod lab;
pub mod link;
pub mod obs;
pub mod policy;
#[cfg_attr(not(feature = "pq-sigs"), allow(dead_code, unused_macros))]
pub mod pqsig;
pub mod probe;
pub mod records;
pub mod remote;
pub mod run;
pub mod rustls_stack;
pub mod timeline;
pub mod tls13;
