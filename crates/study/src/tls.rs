//! The TLS 1.3 handshake lab of seed 003 §4-3 as a study: the lab itself
//! (namespaces, link, endpoints, captures, timelines) is ango-tls; this
//! emits each combination through the sink like every other study.

use crate::event::{Event, Sink};
use ango_core::Result;
use ango_tls::run::TlsSpec;

/// How many combinations `spec` measures (those a stack lacks are
/// skipped with a note, not counted).
pub fn combinations(spec: &TlsSpec) -> usize {
    let mut n = 0;
    for &ca in &spec.ca_sigs {
        for &srv in &spec.server_sigs {
            for &s in &spec.server_stacks {
                for &c in &spec.client_stacks {
                    for &g in &spec.groups {
                        if ango_tls::run::unsupported(c, s, g, srv, ca).is_none() {
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    n
}

/// Run the lab, sending each combination (record, handshake times,
/// timelines) to `sink` the moment it is done. Returns whether Ctrl-C
/// stopped it.
pub fn run(spec: &TlsSpec, sink: &mut dyn Sink) -> Result<bool> {
    with_sink(spec, sink, |emit, note| {
        let stop = || ango_harness::measure::stop_requested();
        ango_tls::run::run(spec, &stop, emit, note)
    })
}

/// The client side of a two-host run against an `ango tls-server`,
/// through the sink like [`run`].
pub fn run_connect(
    spec: &TlsSpec,
    to: &ango_tls::remote::ConnectSpec,
    sink: &mut dyn Sink,
) -> Result<bool> {
    with_sink(spec, sink, |emit, note| {
        let stop = || ango_harness::measure::stop_requested();
        ango_tls::remote::run_connect(spec, to, &stop, emit, note)
    })
}

type Emit<'a> = dyn FnMut(ango_core::TlsRecord, Vec<Option<f64>>, Vec<ango_tls::timeline::Timeline>) -> Result<()>
    + 'a;

/// Runs `body` with an emitter that sends each combination to `sink`, and
/// notes sent before the combination they came before.
fn with_sink(
    spec: &TlsSpec,
    sink: &mut dyn Sink,
    body: impl FnOnce(&mut Emit<'_>, &mut dyn FnMut(String)) -> Result<bool>,
) -> Result<bool> {
    let of = combinations(spec);
    let notes: std::cell::RefCell<Vec<String>> = std::cell::RefCell::default();
    let r = body(
        &mut |r, times, timelines| {
            let pending: Vec<String> = notes.borrow_mut().drain(..).collect();
            for message in pending {
                sink.event(Event::Note {
                    suite: ango_tls::run::SUITE.to_string(),
                    message,
                })?;
            }
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
        },
        &mut |n| notes.borrow_mut().push(n),
    );
    for message in notes.into_inner() {
        sink.event(Event::Note {
            suite: ango_tls::run::SUITE.to_string(),
            message,
        })?;
    }
    r
}
