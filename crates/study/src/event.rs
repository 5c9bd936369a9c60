//! Events a study emits as it goes. The parent process turns them into
//! records and progress; a worker process writes them to stdout, one JSON
//! object per line.

pub use ango_core::event::Event;
use ango_core::{Records, Result};
use std::io::Write;

pub trait Sink {
    fn event(&mut self, e: Event) -> Result<()>;
    /// The records this sink has kept so far in this run (a later suite
    /// reads an earlier one's, as tls-policy prices with tls-bulk's);
    /// None for a sink that keeps none.
    fn earlier(&self) -> Option<&Records> {
        None
    }
}

/// The worker's sink: one line per event on stdout, written whole.
pub struct StdoutSink;

impl Sink for StdoutSink {
    fn event(&mut self, e: Event) -> Result<()> {
        let mut line = serde_json::to_string(&e).expect("event serialises");
        line.push('\n');
        let mut out = std::io::stdout().lock();
        out.write_all(line.as_bytes())
            .and_then(|_| out.flush())
            .map_err(|e| ango_core::Error::io("worker stdout", e))
    }
}

/// A sink that keeps every event in memory (tests).
#[derive(Default)]
pub struct VecSink(pub Vec<Event>);

impl Sink for VecSink {
    fn event(&mut self, e: Event) -> Result<()> {
        self.0.push(e);
        Ok(())
    }
}
