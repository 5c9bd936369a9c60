//! ango's studies. Each study chooses its points, verifies every
//! implementation before timing it, measures with the harness and emits
//! [`event::Event`]s as results arrive.

pub mod ct;
pub mod ct_pass;
pub mod cycles;
pub mod event;
pub mod pk;
pub mod pk_memory;
pub mod seed004;
pub mod speed;
pub mod suite;
pub mod tls;
pub mod tune;

pub use event::{Event, Sink};
pub use suite::{Context, Suite};

use ango_core::Result;

// The suites measured by the studies above, behind the one interface.

impl Suite for speed::SpeedSpec {
    fn id(&self) -> ango_core::SuiteId {
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
    fn verifies(&self) -> &'static str {
        "known answers, Wycheproof and cross-library agreement of every (implementation, hw)"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        Ok(speed::run(self, cx.sink, false)?.interrupted)
    }
}

impl Suite for pk::PkSpec {
    fn id(&self) -> ango_core::SuiteId {
        pk::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(self.plan()?.points())
    }
    fn verifies(&self) -> &'static str {
        "round trips, known answers, Wycheproof and cross-library agreement of every (library, algorithm)"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        Ok(pk::run(self, cx.sink)?.interrupted)
    }
}

impl Suite for ango_tls::run::TlsSpec {
    fn id(&self) -> ango_core::SuiteId {
        ango_tls::run::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(tls::combinations(self))
    }
    fn verifies(&self) -> &'static str {
        "that every handshake completes with the group, signature and certificate chain asked for"
    }
    /// The captures go into the run's directory.
    fn run(&self, cx: &mut Context) -> Result<bool> {
        match (&self.capture_dir, cx.dir) {
            (None, Some(d)) => {
                let mut spec = self.clone();
                spec.capture_dir = Some(d.to_path_buf());
                tls::run(&spec, cx.sink)
            }
            _ => tls::run(self, cx.sink),
        }
    }
}

/// The client side of a two-host TLS run (`ango tls --connect`) against an
/// `ango tls-server`: the same combinations and records as the lab's.
pub struct TlsConnect {
    pub spec: ango_tls::run::TlsSpec,
    pub to: ango_tls::remote::ConnectSpec,
}

impl Suite for TlsConnect {
    fn id(&self) -> ango_core::SuiteId {
        ango_tls::run::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(tls::combinations(&self.spec))
    }
    fn verifies(&self) -> &'static str {
        "that every handshake with the remote server completes with the group, signature and \
         certificate chain asked for"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        tls::run_connect(&self.spec, &self.to, cx.sink)
    }
}
