//! The TLS 1.3 handshake lab of seed 003 §4-3 as a study: the lab itself
//! (namespaces, link, endpoints, captures, timelines) is ango-tls; this
//! emits each combination through the sink like every other study.

use crate::event::{Event, Sink};
use ango_core::Result;
use ango_tls::run::TlsSpec;

/// How many combinations `spec` measures.
pub fn combinations(spec: &TlsSpec) -> usize {
    spec.groups.len() * spec.server_sigs.len() * spec.ca_sigs.len()
}

/// Run the lab, sending each combination (record, handshake times,
/// timelines) to `sink` the moment it is done. Returns whether Ctrl-C
/// stopped it.
pub fn run(spec: &TlsSpec, sink: &mut dyn Sink) -> Result<bool> {
    let of = combinations(spec);
    let stop = || ango_harness::measure::stop_requested();
    ango_tls::run::run(spec, &stop, &mut |r, times, timelines| {
        let timelines = timelines
            .iter()
            .map(|t| serde_json::to_value(t).expect("a timeline serialises"))
            .collect();
        sink.event(Event::TlsPoint {
            record: Box::new(r),
            handshake_ns: times,
            timelines,
            of,
        })
    })
}
