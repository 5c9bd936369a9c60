//! The one interface every suite implements. A suite knows its id, how many
//! points (records) it plans, what it verifies before timing, and how to
//! run with a [`Context`]: the sink every event and record goes to, the
//! run id, the results directory, the stop flag and the records earlier
//! suites of the same run have made. `ango run` is a list of suites run in
//! turn by one driver; each command runs a list of one (or two).

use crate::{Event, Sink};
use ango_core::{Record, Records, Result, SuiteId};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a suite runs with.
pub struct Context<'a> {
    /// Every event and record of the run, in order.
    pub sink: &'a mut dyn Sink,
    pub run_id: &'a str,
    /// The run's results directory, if it has one (captures go under it).
    pub dir: Option<&'a Path>,
    /// Set by Ctrl-C: finish the point in hand, keep it, and stop.
    pub stop: &'a AtomicBool,
}

impl Context<'_> {
    /// True once Ctrl-C asked the run to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Keep one record (results.jsonl, through the run's one writer), with
    /// the progress line said for it.
    pub fn record(&mut self, r: impl Into<Record>, line: String) -> Result<()> {
        self.sink.event(Event::Record {
            record: Box::new(r.into()),
            line,
        })
    }

    /// Say what the suite is doing (stderr; not kept).
    pub fn say(&mut self, message: impl Into<String>) -> Result<()> {
        self.sink.event(Event::Progress {
            message: message.into(),
        })
    }

    /// Something the run could not do and why, kept with the results.
    pub fn note(&mut self, suite: SuiteId, message: impl Into<String>) -> Result<()> {
        self.sink.event(Event::Note {
            suite: suite.to_string(),
            message: message.into(),
        })
    }

    /// A check that failed before timing: a failed check of the run.
    pub fn failed(&mut self, suite: SuiteId, message: impl Into<String>) -> Result<()> {
        self.sink.event(Event::Failed {
            suite: suite.to_string(),
            message: message.into(),
        })
    }

    /// The records made so far in this run (none when the sink keeps none).
    pub fn earlier(&self) -> Option<&Records> {
        self.sink.earlier()
    }
}

/// One suite of ango (speed, latency, pk, tls, cycles, ct, tls-records,
/// tls-bulk, tls-policy), whatever its options.
pub trait Suite {
    /// The `suite` of its records.
    fn id(&self) -> SuiteId;
    /// Its name among the run's suites (for the time each took): the id,
    /// unless a pass of it has a name of its own.
    fn name(&self) -> String {
        self.id().to_string()
    }
    /// How many points (records) it plans.
    fn points(&self) -> Result<usize>;
    /// What it checks before anything is timed, in a few words.
    fn verifies(&self) -> &'static str;
    /// Measure, sending every event and record to `cx.sink`; true when
    /// Ctrl-C stopped it (every record made so far is kept).
    fn run(&self, cx: &mut Context) -> Result<bool>;
}
