//! What every command that measures shares: a run id, a results directory
//! with its environment record, the interrupt handler, the presentation
//! written beside the records, loading a results directory back, and the
//! exit status of an interrupted run.

use crate::sink::ParentSink;
use ango_core::results::{utc_now, ResultsDir, ENV, FINDINGS, REPORT, RESULTS};
use ango_core::{EnvInfo, Error, Result, SuiteId};
use ango_harness::CycleCounter;
use ango_report::data::ReportData;
use ango_report::export::Format;
use ango_study::{Context, Event, Sink, Suite};

pub(crate) fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if ango_harness::measure::stop_requested() {
            // A second Ctrl-C: leave at once; every finished point is on
            // disk. The TLS lab's namespaces go first.
            ango_tls::lab::remove_all_of_this_process();
            std::process::exit(130);
        }
        ango_harness::measure::STOP.store(true, std::sync::atomic::Ordering::SeqCst);
    });
}

/// The environment record for a run.
pub fn capture_env(run_id: &str) -> EnvInfo {
    let cc = CycleCounter::open();
    let mut e = ango_harness::env::capture(&cc);
    e.run_id = run_id.to_string();
    e.ango_version = env!("CARGO_PKG_VERSION").to_string();
    e.time = utc_now().0;
    e.rustc = env!("ANGO_RUSTC_VERSION").to_string();
    let catalog = ango_backends::catalog();
    e.libraries = catalog
        .providers
        .iter()
        .map(|p| (p.name.to_string(), (p.version)()))
        .collect();
    // What the library that reports its own view of the CPU sees.
    e.openssl_ia32cap_on = catalog
        .providers
        .iter()
        .find_map(|p| (p.cpu_view)())
        .map(|v| match std::env::var("OPENSSL_ia32cap") {
            Ok(mask) => format!("{v} (this process has OPENSSL_ia32cap={mask}; hw=on points run in a child without it)"),
            Err(_) => v,
        });
    e.command = std::env::args().collect::<Vec<_>>().join(" ");
    e.testbed = ango_core::testbed::Identity::of(&e).fingerprint();
    e
}

/// The report's note for a run Ctrl-C stopped.
pub(crate) fn interrupted_notes(interrupted: bool) -> Vec<String> {
    if interrupted {
        vec![
            "This run was interrupted: the report shows the points measured before it stopped."
                .into(),
        ]
    } else {
        Vec::new()
    }
}

/// A new run's id: its UTC start time and this host's name.
pub(crate) fn new_run_id() -> String {
    let (ts, _) = utc_now();
    format!(
        "{}-{}",
        ts.replace([':', '-'], ""),
        ango_harness::env::hostname()
    )
}

/// The start of a run whose options were checked: its results directory
/// (made new, if asked), the Ctrl-C handler, and the environment (written
/// to env.json).
pub(crate) fn start_run(
    out: &Option<std::path::PathBuf>,
    run_id: &str,
) -> Result<(Option<ResultsDir>, EnvInfo)> {
    let dir = match out {
        Some(p) => Some(ResultsDir::create_new(p)?),
        None => None,
    };
    install_interrupt_handler();
    let env = capture_env(run_id);
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
    }
    Ok((dir, env))
}

/// Where a measuring command writes its results directory.
pub(crate) enum Out {
    /// Nowhere: the records go to stdout only.
    None,
    /// `--out DIR` (made new; an existing directory is refused).
    Given(std::path::PathBuf),
    /// `ango-results/<date>-<host>` (`ango run` without `--out`).
    Default,
}

impl Out {
    pub(crate) fn given(p: &Option<std::path::PathBuf>) -> Out {
        match p {
            Some(p) => Out::Given(p.clone()),
            None => Out::None,
        }
    }
}

/// ango's `auto` variants to choose for this CPU before anything is
/// timed.
pub(crate) struct Tune {
    pub algorithms: Vec<ango_core::Algorithm>,
    pub quick: bool,
    /// `--no-tune`: keep the feature flags' default.
    pub off: bool,
}

/// A measuring command once its options are checked: the suites it runs
/// and how. [`execute`] does the rest, the same way for every command.
pub(crate) struct Job {
    pub run_id: String,
    pub out: Out,
    pub suites: Vec<Box<dyn Suite>>,
    /// The CPU the whole run is pinned to (`--cpu`, `--multi 1`).
    pub pin: Option<usize>,
    pub tune: Option<Tune>,
    /// Watch the machine's noise over the run (env.json's `noise`).
    pub noise: bool,
    /// `ango run`: a suite that fails is said and the next one runs.
    pub keep_going: bool,
    pub format: Format,
    /// How the records are shown; its cycle label and note come from the
    /// run's cycle source.
    pub style: ango_report::export::Style,
    /// stdout shows only this suite's records (the report has them all).
    pub only: Option<SuiteId>,
}

impl Job {
    /// A job of one command's suites: no pinning, tuning or noise watch,
    /// stopping at the first suite that fails, every record on stdout.
    pub(crate) fn new(
        run_id: String,
        out: Out,
        suites: Vec<Box<dyn Suite>>,
        format: Format,
    ) -> Job {
        Job {
            run_id,
            out,
            suites,
            pin: None,
            tune: None,
            noise: false,
            keep_going: false,
            format,
            style: ango_report::export::Style {
                variant_providers: variant_providers(),
                ..Default::default()
            },
            only: None,
        }
    }
}

/// How a job ended.
pub(crate) struct Done {
    pub code: i32,
    pub data: ReportData,
    /// The seconds each suite took.
    pub seconds: Vec<ango_core::record::SuiteTime>,
    pub dir: Option<std::path::PathBuf>,
}

/// Runs a job: the results directory (made new) and env.json, the Ctrl-C
/// handler, pinning, the noise watch, the tuning of `auto`, the suites
/// through the one driver loop into the one writer, the presentation
/// beside the records, stdout and the exit status.
pub(crate) fn execute(job: Job) -> Result<Done> {
    let mut total = 0;
    for s in &job.suites {
        total += s.points()?;
    }
    let dir = match &job.out {
        Out::None => None,
        Out::Given(p) => Some(ResultsDir::create_new(p)?),
        Out::Default => {
            let (_, date) = utc_now();
            Some(ResultsDir::create_default(
                std::path::Path::new("ango-results"),
                &date,
                &ango_harness::env::hostname(),
            )?)
        }
    };
    install_interrupt_handler();
    if let Some(cpu) = job.pin {
        ango_harness::affinity::pin(cpu)
            .map_err(|e| Error::io(format!("cannot pin to CPU {cpu}"), e))?;
    }
    let mut env = capture_env(&job.run_id);
    env.pinned_cpu = job.pin;
    let noise = job.noise.then(ango_harness::noise::NoiseWatch::start);
    env.noise = noise.as_ref().map(|n| n.so_far());
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
        esay!(
            "ango: writing {} ({total} points planned)",
            d.path.display()
        );
    }
    if let Some(t) = job.tune.as_ref().filter(|t| !t.algorithms.is_empty()) {
        match tune_for_run(t)? {
            Some(v) => {
                env.tuning = Some(v);
                if let Some(d) = &dir {
                    d.write_json(ENV, &env)?;
                }
            }
            None => {
                esay!("ango: interrupted while tuning; nothing was measured");
                return Ok(Done {
                    code: 130,
                    data: ReportData::default(),
                    seconds: Vec::new(),
                    dir: dir.map(|d| d.path),
                });
            }
        }
    }
    let mut style = job.style;
    if env.cycle_source == "tsc" {
        style.cycle_label = "TSC cycles".into();
        style.cycle_note = Some(env.cycle_source_note.clone());
    }
    let started = std::time::Instant::now();
    let mut sink = ParentSink::new(dir, total);
    let outcome = run_suites(&job.suites, &mut sink, &job.run_id, job.keep_going)?;
    if let Some(n) = noise {
        env.noise = Some(n.finish());
    }
    let seconds = outcome.seconds.clone();
    let (code, data) = finish_run(env, &sink, outcome, job.format, &style, job.only)?;
    esay!(
        "ango: {} points in {:.1} s{}",
        data.records.len(),
        started.elapsed().as_secs_f64(),
        match &sink.dir {
            Some(d) => format!(
                "; records in {}, report: {}",
                d.path.join(RESULTS).display(),
                d.path.join(REPORT).display()
            ),
            None => String::new(),
        }
    );
    Ok(Done {
        code,
        data,
        seconds,
        dir: sink.dir.map(|d| d.path),
    })
}

/// Tune `auto` for the job's algorithms (cache first), saying what it
/// does; the tuning as env.json holds it, or None when Ctrl-C stopped it.
/// With `--no-tune` nothing is measured and `auto` keeps the feature
/// flags' default.
fn tune_for_run(t: &Tune) -> Result<Option<serde_json::Value>> {
    if t.off {
        ango_backends::prims::set_auto_table(None);
        return Ok(Some(serde_json::json!({
            "source": "features",
            "summary": "--no-tune: auto runs the variant the CPU's feature flags pick, at every size",
        })));
    }
    let opts = ango_study::tune::TuneOptions {
        algorithms: t.algorithms.clone(),
        quick: t.quick,
        fresh: false,
        cache: true,
    };
    let tuning = ango_study::tune::prepare(&opts, &mut |m| esay!("ango: {m}"))?;
    Ok(tuning.map(|t| {
        esay!("ango: auto variants {}", t.summary);
        serde_json::to_value(&t).expect("a tuning serialises")
    }))
}

/// The lab's namespaces need root; `--loopback` does not.
pub(crate) fn lab_needs_root(loopback: bool) -> Result<()> {
    // SAFETY: geteuid has no preconditions.
    if !loopback && unsafe { libc::geteuid() } != 0 {
        return Err(Error::usage(
            "the TLS lab makes network namespaces and needs root; run as root, or add --loopback \
             (127.0.0.1, no namespaces, no link emulation)",
        ));
    }
    Ok(())
}

/// Exit status 130 after saying what an interrupted run kept, if it was
/// interrupted.
pub(crate) fn interrupted_exit(interrupted: bool, kept: usize, what: &str) -> Option<i32> {
    interrupted.then(|| {
        esay!("ango: interrupted; the {kept} {what} so far are kept");
        130
    })
}

/// The notes among a run's events (combinations a TLS stack lacks).
pub(crate) fn event_notes(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Note { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// What a run presents: its records, events and notes.
pub(crate) fn report_data(
    env: Option<EnvInfo>,
    sink: &ParentSink,
    interrupted: bool,
) -> ReportData {
    let mut notes = interrupted_notes(interrupted);
    notes.extend(event_notes(&sink.events));
    ReportData {
        env,
        suite_offers: suite_offers(&sink.records),
        records: sink.records.clone(),
        pk_samples: sink.pk_samples.clone(),
        events: sink.events.clone(),
        notes,
        variant_providers: variant_providers(),
    }
}

/// The suites each client profile offers, shown beside tls-records'
/// figures when there are any.
pub(crate) fn suite_offers(records: &ango_core::Records) -> Vec<ango_core::SuiteOffer> {
    if records.tls_records.is_empty() {
        Vec::new()
    } else {
        ango_tls::records::chacha_offers()
    }
}

/// How a list of suites ended.
pub(crate) struct Outcome {
    /// Ctrl-C stopped it.
    pub interrupted: bool,
    /// The seconds each suite took (the passes of one suite added up).
    pub seconds: Vec<ango_core::record::SuiteTime>,
    /// The error that stopped a command's suite (its records so far are
    /// kept and presented first).
    pub error: Option<Error>,
}

/// The one driver's loop: each suite in turn, with the run's context,
/// every record into `sink` (results.jsonl's one writer). Stale lab
/// namespaces are removed before the first TLS suite. With `keep_going`
/// (`ango run`) a suite that fails is an error of the run, said and kept,
/// and the next suite runs; otherwise the failure ends the list.
pub(crate) fn run_suites(
    suites: &[Box<dyn Suite>],
    sink: &mut ParentSink,
    run_id: &str,
    keep_going: bool,
) -> Result<Outcome> {
    let mut out = Outcome {
        interrupted: false,
        seconds: Vec::new(),
        error: None,
    };
    let dir = sink.dir.as_ref().map(|d| d.path.clone());
    let mut lab_cleaned = false;
    for suite in suites {
        if matches!(suite.id(), SuiteId::Tls | SuiteId::TlsBulk) && !lab_cleaned {
            lab_cleaned = true;
            clean_stale_labs();
        }
        esay!(
            "ango: {}: {} points planned; it checks {}",
            suite.name(),
            suite.points()?,
            suite.verifies()
        );
        let since = std::time::Instant::now();
        let mut cx = Context {
            sink: &mut *sink,
            run_id,
            dir: dir.as_deref(),
            stop: &ango_harness::measure::STOP,
        };
        let result = suite.run(&mut cx);
        let seconds = since.elapsed().as_secs_f64();
        let name = suite.name();
        match out.seconds.iter_mut().find(|t| t.suite == name) {
            Some(t) => t.seconds += seconds,
            None => out.seconds.push(ango_core::record::SuiteTime {
                suite: name.clone(),
                seconds,
            }),
        }
        match result {
            Ok(stopped) => out.interrupted = stopped,
            Err(e) if keep_going => {
                let message = format!("the {name} suite stopped: {e}");
                sink.event(Event::Note {
                    suite: suite.id().to_string(),
                    message: message.clone(),
                })?;
                sink.event(Event::Error { message })?;
            }
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
        if out.interrupted {
            break;
        }
    }
    Ok(out)
}

/// The end of a command that ran suites: env.json with each suite's time
/// and the run's noise, the presentation beside the records, the known
/// defects, the records in `format` on stdout; the exit status (130 when
/// interrupted, 1 after a failed check or error) or the error that
/// stopped the suite. `only` limits stdout to one suite's records (the
/// report has them all).
pub(crate) fn finish_run(
    mut env: EnvInfo,
    sink: &ParentSink,
    outcome: Outcome,
    format: Format,
    style: &ango_report::export::Style,
    only: Option<SuiteId>,
) -> Result<(i32, ReportData)> {
    env.suite_seconds = outcome.seconds;
    env.ended = Some(utc_now().0);
    env.interrupted = outcome.interrupted;
    if let Some(d) = &sink.dir {
        d.write_json(ENV, &env)?;
    }
    let mut data = report_data(Some(env), sink, outcome.interrupted);
    if let Some(e) = &outcome.error {
        data.notes
            .push(format!("the run stopped with an error: {e}"));
    }
    if let Some(d) = &sink.dir {
        write_presentation(d, &data)?;
    }
    sink.print_defects(format == Format::Table);
    match only {
        Some(suite) => {
            let mut shown = ReportData {
                suite_offers: data.suite_offers.clone(),
                variant_providers: data.variant_providers.clone(),
                ..Default::default()
            };
            for r in data.records.of(suite) {
                shown.records.push(r);
            }
            print!("{}", ango_report::suites::render(&shown, format, style));
        }
        None => print!("{}", ango_report::suites::render(&data, format, style)),
    }
    if let Some(e) = outcome.error {
        return Err(e);
    }
    Ok((sink.finish(outcome.interrupted), data))
}

/// The providers of the catalog that have several named variants.
pub(crate) fn variant_providers() -> Vec<String> {
    ango_backends::catalog()
        .providers
        .iter()
        .filter(|p| p.has_variants)
        .map(|p| p.name.to_string())
        .collect()
}

/// What a results directory presents, written from its records and events
/// (at the end of a run, and again by `ango report`): `findings.jsonl`,
/// one finding per line, and `report.html`.
pub(crate) fn write_presentation(
    d: &ResultsDir,
    data: &ango_report::data::ReportData,
) -> Result<()> {
    let findings = ango_report::suites::findings(data);
    let text: String = findings
        .iter()
        .map(|f| serde_json::to_string(f).expect("a finding serialises") + "\n")
        .collect();
    d.write_text(FINDINGS, &text)?;
    d.write_text(REPORT, &ango_report::suites::page(data))
}

/// results.jsonl holds both studies' records: split them by `suite`.
pub(crate) struct Loaded {
    pub(crate) records: ango_core::Records,
    pub(crate) notes: Vec<String>,
}

pub(crate) fn load_results(d: &ResultsDir) -> Result<Loaded> {
    let lines = d.read_lines::<serde_json::Value>(RESULTS)?;
    let mut out = Loaded {
        records: ango_core::Records::default(),
        notes: Vec::new(),
    };
    let mut bad = lines.bad_lines.clone();
    for (i, v) in lines.items.into_iter().enumerate() {
        match ango_core::Record::from_value(v) {
            Ok(r) => out.records.push(r),
            Err(_) => bad.push(i + 1),
        }
    }
    if lines.partial_tail {
        out.notes.push(
            "results.jsonl ended in a cut line (a write interrupted by a crash); it was left out."
                .to_string(),
        );
    }
    if !bad.is_empty() {
        out.notes.push(format!(
            "results.jsonl lines {bad:?} did not parse and were left out."
        ));
    }
    Ok(out)
}

/// Runs the TLS lab, writing each combination's record, handshake times
/// and timelines the moment it is done; returns the records and whether
/// Ctrl-C stopped it.
/// Remove stale namespaces of crashed earlier runs (said once), before a
/// TLS study runs.
pub(crate) fn clean_stale_labs() {
    let removed = ango_tls::lab::cleanup_stale();
    if removed > 0 {
        esay!("ango: removed {removed} stale namespaces of earlier runs");
    }
}
