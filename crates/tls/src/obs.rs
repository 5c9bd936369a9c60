//! What the lab's two TLS stacks share: the host name, the groups, and what
//! each side observed of one handshake.

use crate::probe::{MsgEvent, TcpInfo};
use ango_core::PkAlgorithm;
use std::time::Duration;

/// The host name in every server certificate and the client's check.
pub const HOST: &str = "server.ango.test";

/// Every group the lab offers on the server side.
pub const GROUPS: &[PkAlgorithm] = &[
    PkAlgorithm::X25519,
    PkAlgorithm::MlKem512,
    PkAlgorithm::MlKem768,
    PkAlgorithm::MlKem1024,
    PkAlgorithm::X25519MlKem768,
];

/// What the server saw of one connection.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ServerObs {
    /// The client's TCP port (joins this to the client's view).
    pub peer_port: u16,
    /// `CLOCK_REALTIME` ns when `accept()` returned.
    pub accepted_ns: u64,
    /// OpenSSL's message callback, in order.
    pub events: Vec<MsgEvent>,
    /// `TCP_INFO` right after `accept()` (the initial window) and after
    /// the handshake.
    pub tcp_at_accept: Option<TcpInfo>,
    pub tcp_after: Option<TcpInfo>,
    /// Why the attempt was bad, if it was.
    pub error: Option<String>,
}

/// What the client saw of one successful handshake.
#[derive(Clone, Debug)]
pub struct ClientObs {
    /// `connect()` to the end of the handshake (monotonic clock).
    pub handshake: Duration,
    /// `CLOCK_REALTIME` ns just before `connect()`.
    pub start_ns: u64,
    /// The client's TCP port.
    pub local_port: u16,
    /// OpenSSL's message callback, in order.
    pub events: Vec<MsgEvent>,
    /// `TCP_INFO` at the end of the handshake.
    pub tcp: Option<TcpInfo>,
}
