//! ango's studies. Each study chooses its points, verifies every
//! implementation before timing it, measures with the harness and emits
//! [`event::Event`]s as results arrive.

pub mod ct;
pub mod cycles;
pub mod event;
pub mod pk;
pub mod speed;
pub mod tls;
pub mod tune;

pub use event::{Event, Sink};

use ango_core::Result;

/// A study behind the one event/sink interface: the speed and latency
/// studies (a [`speed::SpeedSpec`]), the public-key study
/// ([`pk::PkSpec`]) and the TLS lab ([`ango_tls::run::TlsSpec`]). A run is
/// a list of studies measured one after the other into one sink.
pub trait Study {
    /// The `suite` of its records.
    fn suite(&self) -> ango_core::SuiteId;
    /// Its name among the run's suites (for the time each took): the suite,
    /// unless a pass of it has a name of its own.
    fn name(&self) -> String {
        self.suite().to_string()
    }
    /// How many points (records) it plans.
    fn points(&self) -> Result<usize>;
    /// Measure, sending every event to `sink`; true when Ctrl-C stopped it.
    fn run(&self, sink: &mut dyn Sink) -> Result<bool>;
}

impl Study for speed::SpeedSpec {
    fn suite(&self) -> ango_core::SuiteId {
        self.suite
    }
    fn name(&self) -> String {
        if self.multi.len() > 1 {
            "multi".into()
        } else {
            self.suite.to_string()
        }
    }
    fn points(&self) -> Result<usize> {
        Ok(self.points.len() * self.points_per_triple())
    }
    fn run(&self, sink: &mut dyn Sink) -> Result<bool> {
        Ok(speed::run(self, sink, false)?.interrupted)
    }
}

impl Study for pk::PkSpec {
    fn suite(&self) -> ango_core::SuiteId {
        pk::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(self.plan()?.points())
    }
    fn run(&self, sink: &mut dyn Sink) -> Result<bool> {
        Ok(pk::run(self, sink)?.interrupted)
    }
}

impl Study for ango_tls::run::TlsSpec {
    fn suite(&self) -> ango_core::SuiteId {
        ango_tls::run::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(tls::combinations(self))
    }
    fn run(&self, sink: &mut dyn Sink) -> Result<bool> {
        tls::run(self, sink)
    }
}
