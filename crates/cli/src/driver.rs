//! What every command that measures shares: a run id, a results directory
//! with its environment record, the interrupt handler, the presentation
//! written beside the records, loading a results directory back, and the
//! exit status of an interrupted run.

use crate::sink::ParentSink;
use ango_core::results::{utc_now, ResultsDir, ENV, FINDINGS, REPORT, RESULTS};
use ango_core::{EnvInfo, Error, Result};
use ango_harness::CycleCounter;
use ango_report::data::ReportData;
use ango_report::export::Format;

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
pub(crate) fn event_notes(events: &[serde_json::Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "note")
        .filter_map(|e| e["message"].as_str().map(String::from))
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
        records: ango_core::Records {
            speed: sink.records.clone(),
            pk: sink.pk_records.clone(),
            tls: sink.tls_records.clone(),
            ct: sink.ct_records.clone(),
            ..Default::default()
        },
        pk_samples: sink.pk_samples.clone(),
        suite_offers: Vec::new(),
        events: sink.events.clone(),
        notes,
        variant_providers: variant_providers(),
    }
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

/// A suite's records in CSV, Markdown or the HTML page, through the
/// exporters (the suites whose table and JSON output are their own).
pub(crate) fn print_exported(data: &ReportData, format: Format) {
    print!(
        "{}",
        ango_report::suites::render(data, format, &ango_report::export::Style::default())
    );
}

/// The formats of the commands that print only a table or JSON.
pub(crate) fn check_format(f: &str) -> Result<()> {
    match f {
        "table" | "json" => Ok(()),
        _ => Err(Error::usage(format!(
            "unknown format '{f}'; valid: table, json"
        ))),
    }
}
