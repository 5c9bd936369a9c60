//! One function per subcommand: wiring only.

use crate::args::{Cli, Cmd, CompareArgs, PkArgs, ReportArgs, TlsArgs};
use crate::ct_cmd::ct_cmd;
use crate::driver::*;
use crate::list_cmd::{env_cmd, list};
use crate::run_cmd::{run, tune_cmd, Mode};
use crate::sink::{EVENTS, PK_SAMPLES};
use crate::verify_cmd::*;
use ango_core::results::{ResultsDir, ENV, REPORT};
use ango_core::{EnvInfo, Error, PkSamples, Result, SpeedRecord};
use ango_report::compare::{self, Selector};
use ango_report::data::ReportData;
use ango_report::export::{Format, Style};
use ango_study::speed::{self, SpeedSpec};
use ango_study::Suite;
use std::io::Read;

pub fn dispatch(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Run(a) => run(&a.speed, Mode::Run, Some(&a)),
        Cmd::Pk(a) => pk_cmd(&a),
        Cmd::Tls(a) => tls_cmd(&a),
        Cmd::Speed(a) => run(&a, Mode::Speed, None),
        Cmd::Latency(a) => run(&a, Mode::Latency, None),
        Cmd::Compare(a) => compare_cmd(&a),
        Cmd::Import(a) => crate::store_cmd::import_cmd(&a),
        Cmd::Table(a) => crate::store_cmd::table_cmd(&a),
        Cmd::Check(a) => crate::store_cmd::check_cmd(&a),
        Cmd::Export(a) => crate::store_cmd::export_cmd(&a),
        Cmd::List(a) => list(&a),
        Cmd::Env(a) => env_cmd(&a),
        Cmd::Report(a) => report_cmd(&a).map(|_| 0),
        Cmd::Verify(a) => {
            let format = Format::parse(&a.format)?;
            match (&a.vectors, &a.wycheproof) {
                (Some(p), _) => verify_vectors(p, format),
                (None, Some(p)) => verify_wycheproof(p, format),
                (None, None) => verify(format),
            }
        }
        Cmd::Worker => worker(),
        Cmd::Ct(a) => ct_cmd(&a),
        Cmd::Cycles(a) => crate::cycles::cycles_cmd(&a),
        Cmd::Tune(a) => tune_cmd(&a),
        Cmd::TlsRecords(a) => crate::tls_records::tls_records_cmd(&a),
        Cmd::TlsPolicy(a) => crate::tls_policy::tls_policy_cmd(&a),
        Cmd::TlsServer(a) => crate::tls_remote::tls_server_cmd(&a),
        Cmd::TlsEndpoint => ango_tls::bulk::endpoint_main(),
        Cmd::MemoryProbe {
            algo,
            backend,
            op,
            message_bytes,
            window,
            calls,
        } => ango_study::pk_memory::probe(
            &backend,
            ango_core::PkAlgorithm::parse(&algo)?,
            ango_core::PkOp::parse_list(&op)?[0],
            message_bytes,
            &window,
            calls,
        )
        .map(|()| 0),
        Cmd::CtWorker { ids } => ango_study::ct::memcheck_worker(&ids).map(|()| 0),
    }
}

fn tls_cmd(a: &TlsArgs) -> Result<i32> {
    crate::tls_remote::check_connect_flags(a)?;
    let connect = crate::tls_remote::connect_spec(a)?;
    if a.bulk.is_some() {
        return crate::tls_bulk::tls_bulk_cmd(a);
    }
    let run_id = new_run_id();
    let spec = a.spec(&run_id)?;
    let format = Format::parse(&a.format)?;
    let suite: Box<dyn Suite> = match connect {
        Some(to) => Box::new(ango_study::TlsConnect { spec, to }),
        None => {
            lab_needs_root(spec.loopback)?;
            Box::new(spec)
        }
    };
    let done = execute(Job::new(run_id, Out::given(&a.out), vec![suite], format))?;
    // A combination whose handshakes failed fails the command.
    Ok(match done.code {
        0 if done.data.records.tls.iter().any(|r| r.failures > 0) => 1,
        c => c,
    })
}

fn pk_cmd(a: &PkArgs) -> Result<i32> {
    let run_id = new_run_id();
    let spec = a.spec(&run_id)?;
    let memory = a.memory_spec(&spec)?;
    if memory.is_some() {
        crate::memhook::bind_now();
    }
    let format = Format::parse(&a.format)?;
    let pin = match spec.multi.as_slice() {
        &[cpu] => Some(cpu),
        _ => None,
    };
    let mut suites: Vec<Box<dyn Suite>> = vec![Box::new(spec)];
    if let Some(m) = memory {
        suites.push(Box::new(m));
    }
    let job = Job {
        // `--multi 1`: one worker, pinned.
        pin,
        ..Job::new(run_id, Out::given(&a.out), suites, format)
    };
    let done = execute(job)?;
    if let Some(d) = &done.dir {
        esay!("ango: per-call times in {}", d.join(PK_SAMPLES).display());
    }
    Ok(done.code)
}

/// `ango report DIR`: the page and findings rebuilt from the directory's
/// files (html), or its records printed in another format.
fn report_cmd(a: &ReportArgs) -> Result<()> {
    let format = Format::parse(&a.format)?;
    let d = ResultsDir::open(&a.dir)?;
    let loaded = load_results(&d)?;
    let all = loaded.records;
    let events = d.read_lines::<ango_core::event::Event>(EVENTS)?;
    if !events.bad_lines.is_empty() {
        esay!(
            "note: events.jsonl lines {:?} are no event this version knows; they were left out",
            events.bad_lines
        );
    }
    let pk_samples = d.read_lines::<PkSamples>(PK_SAMPLES)?;
    let env: Option<EnvInfo> = d.read_json(ENV)?;
    let notes = loaded.notes;
    for n in &notes {
        esay!("note: {n}");
    }
    let mut notes = notes;
    notes.extend(event_notes(&events.items));
    let data = ReportData {
        env,
        suite_offers: if all.tls_records.is_empty() {
            Vec::new()
        } else {
            ango_tls::records::chacha_offers()
        },
        records: all,
        pk_samples: pk_samples.items,
        events: events.items,
        notes,
        variant_providers: variant_providers(),
    };
    if let Some(id) = &a.claim {
        let findings = ango_report::suites::findings(&data);
        let Some(f) = findings.iter().find(|f| &f.id == id) else {
            let ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
            return Err(Error::usage(if ids.is_empty() {
                format!("no claim '{id}': {} has no findings", a.dir.display())
            } else {
                format!(
                    "no claim '{id}' in {}; valid: {}",
                    a.dir.display(),
                    ids.join(", ")
                )
            }));
        };
        print!(
            "{}",
            ango_report::claim::derivation(f, &data.records, ango_report::formats::TERMINAL_WIDTH)
        );
        return Ok(());
    }
    if format == Format::Html {
        write_presentation(&d, &data)?;
        println!("{}", d.path.join(REPORT).display());
    } else {
        let style = Style {
            cycle_label: match data.env.as_ref().map(|e| e.cycle_source.as_str()) {
                Some("tsc") => "TSC cycles".into(),
                _ => "cycles".into(),
            },
            variant_providers: variant_providers(),
            ..Style::default()
        };
        print!("{}", ango_report::suites::render(&data, format, &style));
    }
    Ok(())
}

/// The speed records a selector names: a results directory's, or a
/// stored run's (`run:ID`, `testbed:T`).
fn load(sel: &Selector, db: &Option<String>) -> Result<Vec<SpeedRecord>> {
    let text = sel.path.to_string_lossy();
    if text.starts_with("run:") || text.starts_with("testbed:") {
        let mut c = ango_store::db::open(&crate::store_cmd::store_url(db)?)?;
        let run = ango_store::select::resolve_run(c.as_mut(), &text)?;
        return ango_store::select::run_records(c.as_mut(), &run, &["speed", "latency"])?
            .into_iter()
            .map(|v| serde_json::from_value(v).map_err(|e| Error::data(&*text, e)))
            .collect();
    }
    let d = ResultsDir::open(&sel.path)?;
    Ok(load_results(&d)?.records.speed)
}

fn compare_cmd(a: &CompareArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let sa = Selector::parse(&a.a)?;
    let sb = Selector::parse(&a.b)?;
    let ra = load(&sa, &a.db)?;
    let rb = load(&sb, &a.db)?;
    sa.check(&ra, "A")?;
    sb.check(&rb, "B")?;
    let rows = compare::compare(&ra, &sa, &rb, &sb);
    if rows.is_empty() {
        return Err(Error::usage(format!(
            "nothing to compare: {} and {} share no (algorithm, backend, hw, op, size) once \
             filtered; filter keys: {}",
            a.a,
            a.b,
            compare::FILTER_KEYS
        )));
    }
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("rows serialise")
        ),
        Format::Table => print!(
            "{}",
            ango_report::formats::fit(&compare::table(&rows, &a.a, &a.b))
        ),
        _ => print!(
            "{}",
            ango_report::table::render(
                "ango compare",
                &[compare::as_table(&rows, &a.a, &a.b)],
                format
            )
        ),
    }
    Ok(0)
}

/// The child side of a hardware-setting point: spec on stdin, events on stdout.
fn worker() -> Result<i32> {
    install_interrupt_handler();
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| Error::io("worker stdin", e))?;
    let spec: SpeedSpec = serde_json::from_str(&text).map_err(|e| Error::data("worker spec", e))?;
    let outcome = speed::run(&spec, &mut ango_study::event::StdoutSink, true)?;
    Ok(if outcome.interrupted { 130 } else { 0 })
}
