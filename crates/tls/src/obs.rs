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
    /// Each write call the server's TLS stack made to its socket during
    /// the handshake: (`CLOCK_REALTIME` ns at the call, bytes written).
    /// Seen for an OpenSSL server; empty otherwise.
    #[serde(default)]
    pub writes: Vec<(u64, usize)>,
}

impl ServerObs {
    /// The write calls of the server's flight (ServerHello to Finished):
    /// those before the server read the client's Finished, as (count,
    /// bytes of the first, the longest time between two of them). None
    /// when no write was seen.
    pub fn flight_writes(&self) -> Option<(usize, usize, Option<u64>)> {
        const FINISHED: u8 = 20;
        let end = self
            .events
            .iter()
            .find(|e| !e.sent && e.hs_type == Some(FINISHED))
            .map_or(u64::MAX, |e| e.t_ns);
        let w: Vec<&(u64, usize)> = self.writes.iter().filter(|(t, _)| *t < end).collect();
        let first = w.first()?;
        let gap = w.windows(2).map(|p| p[1].0.saturating_sub(p[0].0)).max();
        Some((w.len(), first.1, gap))
    }
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
