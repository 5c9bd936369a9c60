//! One function per subcommand: wiring only.

use crate::args::{
    Cli, Cmd, CompareArgs, CtArgs, FormatArgs, PkArgs, ReportArgs, RunArgs, SpeedArgs, TlsArgs,
};
use crate::sink::{ParentSink, EVENTS, PK_SAMPLES};
use ango_core::results::{utc_now, ResultsDir, ENV, FINDINGS, REPORT, RESULTS};
use ango_core::{
    Algorithm, AlgorithmId, EntryBackend, EnvInfo, Error, Hw, PkRecord, PkSamples, Result,
    SpeedRecord, TlsRecord,
};
use ango_harness::CycleCounter;
use ango_report::compare::{self, Selector};
use ango_report::export::{self, Format, Style};
use ango_report::html::ReportData;
use ango_report::Unit;
use ango_study::speed::{self, SpeedSpec};
use ango_study::Study;
use std::io::Read;
use std::path::Path;

pub fn dispatch(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Run(a) => run(&a.speed, Mode::Run, Some(&a)),
        Cmd::Pk(a) => pk_cmd(&a),
        Cmd::Tls(a) => tls_cmd(&a),
        Cmd::Speed(a) => run(&a, Mode::Speed, None),
        Cmd::Latency(a) => run(&a, Mode::Latency, None),
        Cmd::Compare(a) => compare_cmd(&a),
        Cmd::List(a) => list(&a),
        Cmd::Env(a) => env_cmd(&a),
        Cmd::Report(a) => report_cmd(&a).map(|_| 0),
        Cmd::Verify(a) => {
            check_format(&a.format)?;
            if let Some(p) = &a.vectors {
                if a.format == "json" {
                    return Err(Error::usage(
                        "--format json goes with --wycheproof PATH; --vectors prints a table",
                    ));
                }
                return verify_vectors(p);
            }
            match &a.wycheproof {
                Some(p) => verify_wycheproof(p, a.format == "json"),
                None if a.format == "json" => Err(Error::usage(
                    "--format json goes with --wycheproof PATH; the built-in checks print a table",
                )),
                None => verify(),
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
        Cmd::CtWorker { ids } => ango_study::ct::memcheck_worker(&ids).map(|()| 0),
    }
}

fn check_format(f: &str) -> Result<()> {
    match f {
        "table" | "json" => Ok(()),
        _ => Err(Error::usage(format!(
            "unknown format '{f}'; valid: table, json"
        ))),
    }
}

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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Speed,
    Latency,
}

/// `ango run`'s budget (it finishes in about 10 minutes on two cores):
/// seconds per speed point, calls and seconds per public-key point,
/// handshakes per TLS combination. The commands' own defaults are larger.
const RUN_SPEED_SECONDS: &str = "0.2";
const RUN_PK_ITERATIONS: &str = "300";
const RUN_PK_SECONDS: &str = "3";
const RUN_TLS_HANDSHAKES: &str = "200";
/// `ango run --quick`'s (about two minutes).
const RUN_QUICK_SPEED_SECONDS: &str = "0.04";
const RUN_QUICK_PK_ITERATIONS: &str = "30";
const RUN_QUICK_PK_SECONDS: &str = "0.5";

/// The smaller matrix of `ango run`'s other TLS stack pairings (the CA
/// signs with P-256).
const TLS_PAIRING_GROUPS: &str = "x25519,x25519mlkem768";
const TLS_PAIRING_SIGS: &str = "p-256,ml-dsa-44";

/// The latency study's lengths in `ango run`: seed 001's range at a
/// coarser step than `ango latency`'s 16, to keep the run short.
const LATENCY_RUN_SIZES: &str = "0:4096:64";

fn run(a: &SpeedArgs, mode: Mode, run_args: Option<&RunArgs>) -> Result<i32> {
    let is_run = mode == Mode::Run;
    let (ts, date) = utc_now();
    let host = ango_harness::env::hostname();
    let run_id = format!("{}-{}", ts.replace([':', '-'], ""), host);
    // Validate everything before anything is written.
    let mut spec: SpeedSpec = match mode {
        Mode::Latency => a.latency_spec(&run_id)?,
        Mode::Run => {
            // The run's budget: shorter points than `ango speed`'s 0.5 s.
            let mut ra = a.clone();
            if ra.time.is_none() && ra.samples.is_none() {
                ra.time = Some(
                    if ra.quick {
                        RUN_QUICK_SPEED_SECONDS
                    } else {
                        RUN_SPEED_SECONDS
                    }
                    .into(),
                );
            }
            ra.spec(&run_id, "both")?
        }
        Mode::Speed => a.spec(&run_id, "on")?,
    };
    // In `ango run`, `--multi` sets the workers of the run's own multi-core
    // pass (below), not of its speed study.
    if is_run {
        spec.multi.clear();
    }
    let unit = Unit::parse(a.unit.as_deref().unwrap_or(if mode == Mode::Latency {
        "ns"
    } else {
        "kbps"
    }))?;
    let format = Format::parse(&a.format)?;
    let mut total = spec.points.len() * spec.points_per_triple();
    // `ango run` adds the public-key study (validated here too).
    let pk_spec = match run_args {
        Some(r) if !r.no_pk => {
            let pa = PkArgs {
                ops: "all".into(),
                format: a.format.clone(),
                iterations: r.pk_iterations.clone().or_else(|| {
                    Some(String::from(if a.quick {
                        RUN_QUICK_PK_ITERATIONS
                    } else {
                        RUN_PK_ITERATIONS
                    }))
                }),
                quick: a.quick,
                max_time: Some(if a.quick {
                    RUN_QUICK_PK_SECONDS.into()
                } else {
                    RUN_PK_SECONDS.into()
                }),
                timing: "both".into(),
                ..PkArgs::default()
            };
            let ps = pa.spec(&run_id)?;
            total += ps.plan()?.points();
            Some(ps)
        }
        _ => None,
    };

    // `ango run` adds the TLS lab: seed 003's matrix, or a small one with
    // --quick; on 127.0.0.1 when not root (no namespaces without root).
    let tls_spec = match run_args {
        Some(r) if !r.no_tls => {
            // SAFETY: geteuid has no preconditions.
            let root = unsafe { libc::geteuid() } == 0;
            let ta = TlsArgs {
                quick: a.quick,
                handshakes: r
                    .tls_handshakes
                    .clone()
                    .or_else(|| (!a.quick).then(|| RUN_TLS_HANDSHAKES.into())),
                loopback: !root,
                format: "table".into(),
                pcap_handshakes: "20".into(),
                emulator: "auto".into(),
                ..TlsArgs::default()
            };
            let ts = ta.spec(&run_id)?;
            total += ts.groups.len() * ts.server_sigs.len() * ts.ca_sigs.len();
            // The other stack pairings over a smaller matrix: rustls as the
            // client of both servers, and OpenSSL as rustls's client.
            let mut pairings = Vec::new();
            for (client, server) in [("rustls", "openssl,rustls"), ("openssl", "rustls")] {
                let p = TlsArgs {
                    groups: Some(TLS_PAIRING_GROUPS.into()),
                    server_sig: Some(TLS_PAIRING_SIGS.into()),
                    ca_sig: Some("p-256".into()),
                    client_stack: Some(client.into()),
                    server_stack: Some(server.into()),
                    ..ta.clone()
                }
                .spec(&run_id)?;
                total += p.groups.len()
                    * p.server_sigs.len()
                    * p.ca_sigs.len()
                    * p.client_stacks.len()
                    * p.server_stacks.len();
                pairings.push(p);
            }
            Some((ts, pairings))
        }
        _ => None,
    };

    // `ango run` adds seed 001's latency study, with its own defaults.
    let latency_spec = match run_args {
        Some(r) if !r.no_latency => {
            let la = SpeedArgs {
                algo: None,
                backend: None,
                sizes: Some(LATENCY_RUN_SIZES.into()),
                aad: None,
                op: "encrypt".into(),
                hw: None,
                time: None,
                samples: None,
                unit: None,
                impls: None,
                retries: None,
                multi: None,
                ..a.clone()
            };
            let ls = la.latency_spec(&run_id)?;
            total += ls.points.len() * ls.points_per_triple();
            Some(ls)
        }
        _ => None,
    };

    // `ango run` adds a multi-core pass: the AEADs at 16 KiB, one worker
    // per CPU (or `--multi N`), after one worker alone.
    let mut multi_note = None;
    let multi_spec = match run_args {
        Some(r) if !r.no_multi => {
            let cpus = match (&a.multi, &a.cpu) {
                (Some(m), _) => crate::args::parse_multi(m, a.cpu.as_deref())?,
                (None, Some(_)) => Vec::new(),
                (None, None) => crate::args::parse_multi("all", None)?,
            };
            let aeads: Vec<&str> = spec
                .algorithms
                .iter()
                .filter(|x| x.kind() == ango_core::Kind::Aead)
                .map(|x| x.name())
                .collect();
            if cpus.len() < 2 || aeads.is_empty() {
                multi_note = Some(if a.cpu.is_some() {
                    "no multi-core pass: --cpu pins the run to one CPU"
                } else if aeads.is_empty() {
                    "no multi-core pass: no AEAD among the run's algorithms"
                } else {
                    "no multi-core pass: this process may run on one CPU only"
                });
                None
            } else {
                let ma = SpeedArgs {
                    algo: Some(aeads.join(",")),
                    sizes: Some(ango_study::speed::MULTI_SIZE.to_string()),
                    hw: Some("on".into()),
                    op: "encrypt".into(),
                    multi: None,
                    cpu: None,
                    ..a.clone()
                };
                let mut ms = ma.spec(&run_id, "on")?;
                ms.multi = cpus;
                total += ms.points.len() * ms.points_per_triple();
                Some(ms)
            }
        }
        _ => None,
    };

    // `ango run` adds seed 002's cycle study (`ango cycles`, its defaults).
    let cycles_spec = match run_args {
        Some(r) if !r.no_cycles => Some(
            crate::args::CyclesArgs {
                quick: a.quick,
                format: "table".into(),
                ..Default::default()
            }
            .spec()?,
        ),
        _ => None,
    };
    total += cycles_spec.as_ref().map_or(0, |c| c.entries.len() * 4);

    // `ango run` ends with the constant-time checks' short pass.
    let ct_targets = match run_args {
        Some(r) if !r.no_ct => ango_study::ct::targets(),
        _ => Vec::new(),
    };
    total += ct_targets.len();

    let dir = match (&a.out, is_run) {
        (Some(p), _) => Some(ResultsDir::create_new(p)?),
        (None, true) => Some(ResultsDir::create_default(
            Path::new("ango-results"),
            &date,
            &host,
        )?),
        (None, false) => None,
    };
    install_interrupt_handler();
    let pinned = match &a.cpu {
        Some(c) => {
            let cpu = crate::args::parse_cpu(c)?;
            ango_harness::affinity::pin(cpu)
                .map_err(|e| Error::io(format!("cannot pin to CPU {cpu}"), e))?;
            Some(cpu)
        }
        // `--multi 1`: one worker, pinned like `--cpu`.
        None => match spec.multi.as_slice() {
            &[cpu] => {
                ango_harness::affinity::pin(cpu)
                    .map_err(|e| Error::io(format!("cannot pin to CPU {cpu}"), e))?;
                Some(cpu)
            }
            _ => None,
        },
    };
    let mut env = capture_env(&run_id);
    env.pinned_cpu = pinned;
    let noise = ango_harness::noise::NoiseWatch::start();
    env.noise = Some(noise.so_far());
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
        esay!(
            "ango: writing {} ({} points planned)",
            d.path.display(),
            total
        );
    }
    // ango's `auto` variants, chosen for this CPU before anything is timed.
    let mut planned: Vec<&ango_study::speed::Planned> = Vec::new();
    if !run_args.is_some_and(|r| r.no_speed) {
        planned.extend(&spec.points);
    }
    for s in [&latency_spec, &multi_spec].into_iter().flatten() {
        planned.extend(&s.points);
    }
    let auto_algos = auto_algorithms(&planned);
    if !auto_algos.is_empty() {
        match tune_for_run(&auto_algos, a.quick, a.no_tune)? {
            Some(t) => {
                env.tuning = Some(t);
                if let Some(d) = &dir {
                    d.write_json(ENV, &env)?;
                }
            }
            None => {
                esay!("ango: interrupted while tuning; nothing was measured");
                return Ok(130);
            }
        }
    }
    let cycle_label = if env.cycle_source == "tsc" {
        "TSC cycles"
    } else {
        "cycles"
    };
    let mut sink = ParentSink::new(dir, total);
    // The studies of this command, one after the other into one sink.
    let tls_loopback = tls_spec.as_ref().is_some_and(|(t, _)| t.loopback);
    let mut studies: Vec<Box<dyn Study>> = Vec::new();
    if !run_args.is_some_and(|r| r.no_speed) {
        studies.push(Box::new(spec.clone()));
    }
    if let Some(ms) = multi_spec {
        studies.push(Box::new(ms));
    }
    if let Some(ls) = latency_spec {
        studies.push(Box::new(ls));
    }
    if let Some(n) = multi_note {
        esay!("ango: {n}");
    }
    if let Some(ps) = pk_spec {
        studies.push(Box::new(ps));
    }
    if let Some((ts, pairings)) = tls_spec {
        for mut t in std::iter::once(ts).chain(pairings) {
            if let Some(d) = &sink.dir {
                t.capture_dir = Some(d.path.clone());
            }
            studies.push(Box::new(t));
        }
    }
    let mut interrupted = false;
    let mut suite_seconds: Vec<ango_core::record::SuiteTime> = Vec::new();
    // Several passes of one suite (the TLS lab's stack pairings) add up.
    let mut took = |suite: &str, since: std::time::Instant| {
        let seconds = since.elapsed().as_secs_f64();
        match suite_seconds.iter_mut().find(|t| t.suite == suite) {
            Some(t) => t.seconds += seconds,
            None => suite_seconds.push(ango_core::record::SuiteTime {
                suite: suite.into(),
                seconds,
            }),
        }
    };
    let mut lab_said = false;
    for study in &studies {
        let since = std::time::Instant::now();
        if study.suite() == ango_tls::run::SUITE && !lab_said {
            lab_said = true;
            clean_stale_labs();
            if tls_loopback {
                esay!("ango: not root, so the TLS lab runs on 127.0.0.1 without namespaces, link emulation or captures");
            }
        }
        interrupted = study.run(&mut sink)?;
        took(&study.name(), since);
        if interrupted {
            break;
        }
    }
    let mut cycles_records = Vec::new();
    if let (false, Some(cs)) = (interrupted, &cycles_spec) {
        esay!(
            "ango: seed 002's cycle study, {} implementations (chained key schedule, encryption, \
             decryption; throughput beside)",
            cs.entries.len()
        );
        let since = std::time::Instant::now();
        let (rs, failed, stopped) =
            crate::cycles::measure_all(cs, &run_id, sink.dir.as_ref(), true)?;
        took("cycles", since);
        sink.kat_failures += failed;
        sink.done += rs.len();
        cycles_records = rs;
        interrupted = stopped;
    }
    if !interrupted && !ct_targets.is_empty() {
        let since = std::time::Instant::now();
        interrupted = run_ct_pass(&ct_targets, &run_id, &mut sink)?;
        took("ct", since);
    }
    let mut seed004 = crate::run004::Seed004::default();
    if let (false, Some(r)) = (interrupted, run_args) {
        let parts = crate::run004::Parts {
            records: !r.no_tls_records,
            bulk: !r.no_bulk,
            policy: !r.no_policy,
        };
        if parts.records || parts.bulk || parts.policy {
            seed004 = crate::run004::run(&run_id, sink.dir.as_ref(), a.quick, &parts)?;
            interrupted = seed004.interrupted;
            for (suite, seconds) in &seed004.seconds {
                suite_seconds.push(ango_core::record::SuiteTime {
                    suite: suite.clone(),
                    seconds: *seconds,
                });
            }
            sink.done += seed004.records.len() + seed004.bulk.len() + seed004.policy.len();
        }
    }
    env.suite_seconds = suite_seconds;
    env.noise = Some(noise.finish());
    if let Some(d) = &sink.dir {
        d.write_json(ENV, &env)?;
    }
    let mut data = report_data(Some(env.clone()), &sink, interrupted);
    data.cycles_records = cycles_records;
    data.tls_records_records = seed004.records;
    data.tls_bulk_records = seed004.bulk;
    data.tls_policy_records = seed004.policy;
    data.suite_offers = seed004.offers;
    data.notes.extend(seed004.notes);
    if let Some(d) = &sink.dir {
        write_presentation(d, &data)?;
    }
    sink.print_defects(format == Format::Table);
    let style = Style {
        unit: Some(unit),
        cycle_label: cycle_label.into(),
        cycle_note: (env.cycle_source == "tsc").then(|| env.cycle_source_note.clone()),
        table_findings: mode != Mode::Speed,
        variant_providers: variant_providers(),
    };
    print!("{}", export::render(&data, format, &style));
    if let (Format::Table, Some(cs)) = (format, &cycles_spec) {
        if let Some(l) = crate::cycles::not_measured(cs) {
            print!("{}", ango_report::formats::fit(&format!("  {l}\n")));
        }
    }
    // `ango run` ends with the verdicts on the seeds' claims.
    if is_run && format == Format::Table {
        print!(
            "{}",
            ango_report::formats::fit(&ango_report::summary::text(
                &ango_report::findings::of_run(&data),
                100
            ))
        );
    }
    if is_run {
        let parts: Vec<String> = env
            .suite_seconds
            .iter()
            .map(|t| format!("{} {:.0} s", t.suite, t.seconds))
            .collect();
        let total: f64 = env.suite_seconds.iter().map(|t| t.seconds).sum();
        esay!(
            "ango: time per suite: {}; {:.1} min in all",
            parts.join(", "),
            total / 60.0
        );
    }
    if let Some(d) = &sink.dir {
        esay!(
            "ango: {} points in {}; report: {}",
            sink.records.len()
                + sink.pk_records.len()
                + sink.tls_records.len()
                + sink.ct_records.len()
                + data.cycles_records.len(),
            d.path.join(RESULTS).display(),
            d.path.join(REPORT).display()
        );
    }
    Ok(sink.finish(interrupted))
}

/// The algorithms whose ango `auto` is among `planned`.
fn auto_algorithms(planned: &[&ango_study::speed::Planned]) -> Vec<Algorithm> {
    let catalog = ango_backends::catalog();
    let mut v = Vec::new();
    for p in planned {
        if let Ok(e) = catalog.entry(&p.entry) {
            if let (true, AlgorithmId::Sym(a)) = (
                e.provider.name == ango_backends::prims::PROVIDER.name && e.variant == "auto",
                e.algorithm,
            ) {
                if !v.contains(&a) {
                    v.push(a);
                }
            }
        }
    }
    v
}

/// Tune `auto` for `algos` (cache first), saying what it does; the
/// tuning as env.json holds it, or None when Ctrl-C stopped it. With
/// `--no-tune` nothing is measured and `auto` keeps the feature flags'
/// default.
fn tune_for_run(
    algos: &[Algorithm],
    quick: bool,
    no_tune: bool,
) -> Result<Option<serde_json::Value>> {
    if no_tune {
        ango_backends::prims::set_auto_table(None);
        return Ok(Some(serde_json::json!({
            "source": "features",
            "summary": "--no-tune: auto runs the variant the CPU's feature flags pick, at every size",
        })));
    }
    let opts = ango_study::tune::TuneOptions {
        algorithms: algos.to_vec(),
        quick,
        fresh: false,
        cache: true,
    };
    let t = ango_study::tune::prepare(&opts, &mut |m| esay!("ango: {m}"))?;
    Ok(t.map(|t| {
        esay!("ango: auto variants {}", t.summary);
        serde_json::to_value(&t).expect("a tuning serialises")
    }))
}

/// `ango tune`: measure (or, with `--cached`, read back) the choice of
/// `auto` for this CPU and build, cache it and print it.
fn tune_cmd(a: &crate::args::TuneArgs) -> Result<i32> {
    let format = match a.format.as_str() {
        "table" | "json" => a.format.as_str(),
        f => {
            return Err(Error::usage(format!(
                "unknown format '{f}'; valid: table, json"
            )))
        }
    };
    let algos: Vec<Algorithm> = match &a.algo {
        None => Algorithm::ALL.to_vec(),
        Some(s) => {
            let mut v = Vec::new();
            for n in s.split(',') {
                let n = n.trim();
                if n.is_empty() {
                    return Err(Error::usage(
                        "--algo has an empty item; give algorithm names separated by commas",
                    ));
                }
                let x = Algorithm::parse(n)?;
                if !v.contains(&x) {
                    v.push(x);
                }
            }
            v
        }
    };
    let tunable = ango_study::tune::tunable(&algos);
    if tunable.is_empty() {
        return Err(Error::usage(format!(
            "ango has no variant of {} that runs here; valid: {}",
            algos
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(", "),
            ango_study::tune::tunable(Algorithm::ALL)
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    install_interrupt_handler();
    let opts = ango_study::tune::TuneOptions {
        algorithms: tunable,
        quick: a.quick,
        fresh: !a.cached,
        cache: true,
    };
    if a.cached {
        // Read back only: a missing algorithm is not measured.
        let cpu = ango_study::tune::CpuId::here();
        let file = ango_study::tune::cache_dir().map(|d| d.join(format!("{}.json", cpu.key())));
        let t = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| serde_json::from_str::<ango_study::tune::Tuning>(&t).ok())
            .filter(|t| t.build == ango_study::tune::build_id());
        return match t {
            Some(t) => {
                print_tuning(&t, format);
                Ok(0)
            }
            None => {
                eprintln!(
                    "ango: no tuning of this CPU ({}) and build cached{}",
                    cpu.key(),
                    file.map(|f| format!(" in {}", f.display()))
                        .unwrap_or_default()
                );
                Ok(1)
            }
        };
    }
    match ango_study::tune::prepare(&opts, &mut |m| esay!("ango: {m}"))? {
        Some(t) => {
            print_tuning(&t, format);
            Ok(0)
        }
        None => {
            eprintln!("ango: interrupted; nothing was cached");
            Ok(130)
        }
    }
}

fn print_tuning(t: &ango_study::tune::Tuning, format: &str) {
    if format == "json" {
        println!(
            "{}",
            serde_json::to_string_pretty(t).expect("a tuning serialises")
        );
    } else {
        print!("{}", ango_study::tune::text(t));
    }
}

/// `ango run`'s constant-time pass: every target, memcheck where valgrind
/// runs it, dudect with `--quick`'s measurements; each record kept as it
/// comes. Returns whether Ctrl-C stopped it.
fn run_ct_pass(
    targets: &[ango_study::ct::Target],
    run_id: &str,
    sink: &mut ParentSink,
) -> Result<bool> {
    let exe = ango_harness::env::own_exe().map_err(|e| Error::io("the ango executable", e))?;
    let mut cache = ango_study::ct::MemcheckCache::new();
    // The run checks every target: their parts are among them.
    let all_ct = targets;
    // Memcheck first, on every CPU at once (it times nothing), then the
    // timed dudect checks one at a time.
    let jobs = ango_harness::affinity::allowed_cpus().len().max(1);
    esay!(
        "ango: memcheck of {} targets under valgrind, {jobs} at a time",
        targets.len()
    );
    ango_study::ct::memcheck_all(targets, &exe, &mut cache, jobs);
    esay!(
        "ango: constant-time checks, {} targets (memcheck under valgrind, dudect {} measurements)",
        targets.len(),
        CT_MEASUREMENTS[1]
    );
    for t in targets {
        if ango_harness::measure::stop_requested() {
            return Ok(true);
        }
        let r = ango_study::ct::check(
            t,
            all_ct,
            CT_MEASUREMENTS[1],
            Some(&exe),
            run_id,
            &mut cache,
        )?;
        esay!(
            "[{}/{}] ct {} {} {}: memcheck {}, max |t| {:.2}: {}",
            sink.done + 1,
            sink.total,
            r.algorithm,
            r.backend,
            r.label(),
            r.memcheck,
            r.max_abs_t,
            r.verdict.name()
        );
        sink.ct_record(r)?;
    }
    let code = ct_verdict(&sink.ct_records, false);
    if code != 0 {
        sink.errors += 1;
    }
    Ok(false)
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
fn event_notes(events: &[serde_json::Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "note")
        .filter_map(|e| e["message"].as_str().map(String::from))
        .collect()
}

/// What a run presents: its records, events and notes.
fn report_data(env: Option<EnvInfo>, sink: &ParentSink, interrupted: bool) -> ReportData {
    let mut notes = interrupted_notes(interrupted);
    notes.extend(event_notes(&sink.events));
    ReportData {
        env,
        records: sink.records.clone(),
        pk_records: sink.pk_records.clone(),
        pk_samples: sink.pk_samples.clone(),
        tls_records: sink.tls_records.clone(),
        ct_records: sink.ct_records.clone(),
        cycles_records: Vec::new(),
        tls_records_records: Vec::new(),
        tls_bulk_records: Vec::new(),
        tls_policy_records: Vec::new(),
        suite_offers: Vec::new(),
        events: sink.events.clone(),
        notes,
        variant_providers: variant_providers(),
    }
}

/// The providers of the catalog that have several named variants.
fn variant_providers() -> Vec<String> {
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
    data: &ango_report::html::ReportData,
) -> Result<()> {
    let findings = ango_report::findings::of_run(data);
    let text: String = findings
        .iter()
        .map(|f| serde_json::to_string(f).expect("a finding serialises") + "\n")
        .collect();
    d.write_text(FINDINGS, &text)?;
    d.write_text(REPORT, &ango_report::html::render(data))
}

/// results.jsonl holds both studies' records: split them by `suite`.
struct Loaded {
    speed: Vec<SpeedRecord>,
    pk: Vec<PkRecord>,
    tls: Vec<TlsRecord>,
    ct: Vec<ango_core::ct::CtRecord>,
    cycles: Vec<ango_core::cycles::CyclesRecord>,
    tls_records: Vec<ango_core::TlsRecordsRecord>,
    tls_bulk: Vec<ango_core::TlsBulkRecord>,
    tls_policy: Vec<ango_core::TlsPolicyRecord>,
    notes: Vec<String>,
}

fn load_results(d: &ResultsDir) -> Result<Loaded> {
    let lines = d.read_lines::<serde_json::Value>(RESULTS)?;
    let mut out = Loaded {
        speed: Vec::new(),
        pk: Vec::new(),
        tls: Vec::new(),
        ct: Vec::new(),
        cycles: Vec::new(),
        tls_records: Vec::new(),
        tls_bulk: Vec::new(),
        tls_policy: Vec::new(),
        notes: Vec::new(),
    };
    let mut bad = lines.bad_lines.clone();
    for (i, v) in lines.items.into_iter().enumerate() {
        let ok = if v["suite"] == "pk" {
            serde_json::from_value::<PkRecord>(v)
                .map(|r| out.pk.push(r))
                .is_ok()
        } else if v["suite"] == "tls" {
            serde_json::from_value::<TlsRecord>(v)
                .map(|r| out.tls.push(r))
                .is_ok()
        } else if v["suite"] == "ct" {
            serde_json::from_value::<ango_core::ct::CtRecord>(v)
                .map(|r| out.ct.push(r))
                .is_ok()
        } else if v["suite"] == "tls-records" {
            serde_json::from_value::<ango_core::TlsRecordsRecord>(v)
                .map(|r| out.tls_records.push(r))
                .is_ok()
        } else if v["suite"] == "tls-bulk" {
            serde_json::from_value::<ango_core::TlsBulkRecord>(v)
                .map(|r| out.tls_bulk.push(r))
                .is_ok()
        } else if v["suite"] == "tls-policy" {
            serde_json::from_value::<ango_core::TlsPolicyRecord>(v)
                .map(|r| out.tls_policy.push(r))
                .is_ok()
        } else if v["suite"] == "cycles" {
            serde_json::from_value::<ango_core::cycles::CyclesRecord>(v)
                .map(|r| out.cycles.push(r))
                .is_ok()
        } else {
            serde_json::from_value::<SpeedRecord>(v)
                .map(|r| out.speed.push(r))
                .is_ok()
        };
        if !ok {
            bad.push(i + 1);
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

fn tls_cmd(a: &TlsArgs) -> Result<i32> {
    crate::tls_remote::check_connect_flags(a)?;
    let connect = crate::tls_remote::connect_spec(a)?;
    if a.bulk.is_some() {
        return crate::tls_bulk::tls_bulk_cmd(a);
    }
    let bulk_only = a.bulk_only();
    if !bulk_only.is_empty() {
        return Err(Error::usage(format!(
            "{} apply to --bulk SIZE only (e.g. --bulk 64MiB); the handshake matrix takes \
             --groups, --server-sig, --ca-sig and --handshakes",
            bulk_only.join(", ")
        )));
    }
    let (ts, _date) = utc_now();
    let host = ango_harness::env::hostname();
    let run_id = format!("{}-{}", ts.replace([':', '-'], ""), host);
    let spec = a.spec(&run_id)?;
    if ango_study::tls::combinations(&spec) == 0 {
        let why = spec
            .client_stacks
            .iter()
            .flat_map(|&c| spec.server_stacks.iter().map(move |&s| (c, s)))
            .find_map(|(c, s)| {
                ango_tls::run::unsupported(
                    c,
                    s,
                    spec.groups[0],
                    spec.server_sigs[0],
                    spec.ca_sigs[0],
                )
            })
            .unwrap_or_default();
        return Err(Error::usage(format!(
            "nothing in this request can run: {why}; rustls offers x25519, ml-kem-768, \
             ml-kem-1024 and x25519mlkem768 with rsa, p-256, ed25519 and ml-dsa certificates, and \
             (with --client-stack rustls --server-stack rustls) MAYO, CROSS and the UOV variants \
             whose keys fit its 64 KiB handshake messages"
        )));
    }
    let format = Format::parse(&a.format)?;
    if connect.is_none() {
        lab_needs_root(spec.loopback)?;
    }
    let dir = match &a.out {
        Some(p) => Some(ResultsDir::create_new(p)?),
        None => None,
    };
    install_interrupt_handler();
    let env = capture_env(&run_id);
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
    }
    let started = std::time::Instant::now();
    let mut sink = ParentSink::new(dir, 0);
    let interrupted = match &connect {
        Some(to) => ango_study::tls::run_connect(&spec, to, &mut sink)?,
        None => {
            clean_stale_labs();
            Study::run(&spec, &mut sink)?
        }
    };
    let data = report_data(Some(env), &sink, interrupted);
    if let Some(d) = &sink.dir {
        write_presentation(d, &data)?;
    }
    print!("{}", export::render(&data, format, &Style::default()));
    let records = &data.tls_records;
    esay!(
        "ango: {} combinations in {:.1} s",
        records.len(),
        started.elapsed().as_secs_f64()
    );
    if interrupted {
        esay!(
            "ango: interrupted; the {} combinations measured so far are kept",
            records.len()
        );
        return Ok(130);
    }
    Ok(if records.iter().any(|r| r.failures > 0) {
        1
    } else {
        0
    })
}

fn pk_cmd(a: &PkArgs) -> Result<i32> {
    let (ts, _date) = utc_now();
    let host = ango_harness::env::hostname();
    let run_id = format!("{}-{}", ts.replace([':', '-'], ""), host);
    let spec = a.spec(&run_id)?;
    let format = Format::parse(&a.format)?;
    let plan = spec.plan()?;
    let ops_apply = spec
        .algorithms
        .iter()
        .any(|x| x.ops().iter().any(|o| spec.ops.contains(o)));
    if plan.points() == 0 {
        if ops_apply {
            let why: Vec<String> = plan
                .skip
                .iter()
                .map(|(b, x, r)| format!("{b} {x}: {r}"))
                .collect();
            return Err(Error::usage(format!(
                "nothing to measure: {}; valid backends per algorithm: see `ango list`",
                why.join("; ")
            )));
        }
        let has: Vec<String> = spec
            .algorithms
            .iter()
            .map(|x| {
                format!(
                    "{x}: {}",
                    x.ops()
                        .iter()
                        .map(|o| o.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        return Err(Error::usage(format!(
            "none of --ops applies to the chosen algorithms; valid: {}",
            has.join("; ")
        )));
    }
    let dir = match &a.out {
        Some(p) => Some(ResultsDir::create_new(p)?),
        None => None,
    };
    install_interrupt_handler();
    let mut env = capture_env(&run_id);
    // `--multi 1`: one worker, pinned.
    if let &[cpu] = spec.multi.as_slice() {
        ango_harness::affinity::pin(cpu)
            .map_err(|e| Error::io(format!("cannot pin to CPU {cpu}"), e))?;
        env.pinned_cpu = Some(cpu);
    }
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
        esay!(
            "ango: writing {} ({} points planned)",
            d.path.display(),
            plan.points()
        );
    }
    let started = std::time::Instant::now();
    let mut sink = ParentSink::new(dir, plan.points());
    let outcome = ango_study::pk::run(&spec, &mut sink)?;
    let data = report_data(Some(env), &sink, outcome.interrupted);
    if let Some(d) = &sink.dir {
        write_presentation(d, &data)?;
    }
    sink.print_defects(format == Format::Table);
    print!("{}", export::render(&data, format, &Style::default()));
    esay!(
        "ango: {} public-key points in {:.1} s",
        sink.pk_records.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(d) = &sink.dir {
        esay!(
            "ango: records in {}, per-call times in {}, report: {}",
            d.path.join(RESULTS).display(),
            d.path.join(PK_SAMPLES).display(),
            d.path.join(REPORT).display()
        );
    }
    Ok(sink.finish(outcome.interrupted))
}

/// `ango report DIR`: the page and findings rebuilt from the directory's
/// files (html), or its records printed in another format.
fn report_cmd(a: &ReportArgs) -> Result<()> {
    let format = Format::parse(&a.format)?;
    let d = ResultsDir::open(&a.dir)?;
    let loaded = load_results(&d)?;
    let events = d.read_lines::<serde_json::Value>(EVENTS)?;
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
        records: loaded.speed,
        pk_records: loaded.pk,
        tls_records: loaded.tls,
        ct_records: loaded.ct,
        cycles_records: loaded.cycles,
        suite_offers: if loaded.tls_records.is_empty() {
            Vec::new()
        } else {
            ango_tls::records::chacha_offers()
        },
        tls_records_records: loaded.tls_records,
        tls_bulk_records: loaded.tls_bulk,
        tls_policy_records: loaded.tls_policy,
        pk_samples: pk_samples.items,
        events: events.items,
        notes,
        variant_providers: variant_providers(),
    };
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
        print!("{}", export::render(&data, format, &style));
    }
    Ok(())
}

fn load(sel: &Selector) -> Result<Vec<SpeedRecord>> {
    let d = ResultsDir::open(&sel.path)?;
    Ok(load_results(&d)?.speed)
}

fn compare_cmd(a: &CompareArgs) -> Result<i32> {
    check_format(&a.format)?;
    let sa = Selector::parse(&a.a)?;
    let sb = Selector::parse(&a.b)?;
    let ra = load(&sa)?;
    let rb = load(&sb)?;
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
    if a.format == "json" {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("rows serialise")
        );
    } else {
        print!(
            "{}",
            ango_report::formats::fit(&compare::table(&rows, &a.a, &a.b))
        );
    }
    Ok(0)
}

fn list(a: &FormatArgs) -> Result<i32> {
    check_format(&a.format)?;
    let catalog = ango_backends::catalog();
    let mut rows = Vec::new();
    let mut row = |algo: &str, backend: &str, hw: &str, status: &str, detail: String| {
        rows.push(serde_json::json!({
            "algorithm": algo, "backend": backend, "hw": hw,
            "status": status, "implementation_or_reason": detail,
        }));
    };
    for algo in AlgorithmId::all() {
        for p in &catalog.providers {
            let entries: Vec<&ango_core::Entry> = catalog.of_provider(algo, p).collect();
            if entries.is_empty() {
                row(
                    algo.name(),
                    p.name,
                    "-",
                    "unavailable",
                    format!("{} has no {algo}", p.name),
                );
            }
            for e in entries {
                match algo {
                    AlgorithmId::Sym(a) => {
                        for &hw in Hw::ALL {
                            // A provider's variants are listed under hw=on;
                            // the other settings name the automatic one.
                            if p.has_variants && hw != Hw::On && !e.auto {
                                continue;
                            }
                            let (status, detail) = match e.runs(hw) {
                                Ok(()) if p.has_variants && e.auto => (
                                    "available",
                                    format!(
                                        "auto: a variant per size class, measured at the start \
                                         of a run or by `ango tune`; without a tuning {} \
                                         (--impl auto)",
                                        ango_backends::prims::default_variant(a)
                                            .unwrap_or_default()
                                    ),
                                ),
                                Ok(()) if p.has_variants => (
                                    "available",
                                    format!("{} (--impl {})", e.implementation, e.variant),
                                ),
                                Err(why)
                                    if p.has_variants
                                        && e.available.is_err()
                                        && !e.needs.is_empty() =>
                                {
                                    (
                                        "unavailable",
                                        format!(
                                            "{}: {why} (needs {})",
                                            e.variant,
                                            e.needs.join(", ")
                                        ),
                                    )
                                }
                                Ok(()) => match known_sym_defects_of(e) {
                                    Some(why) => ("fails", format!("{}: {why}", e.implementation)),
                                    None => ("available", e.implementation.clone()),
                                },
                                Err(why) if p.has_variants && e.available.is_err() => {
                                    ("unavailable", format!("{}: {why}", e.variant))
                                }
                                Err(why) => ("unavailable", why),
                            };
                            row(algo.name(), p.name, hw.name(), status, detail);
                        }
                    }
                    AlgorithmId::Pk(pa) => {
                        let (status, detail) = match &e.available {
                            Ok(()) => match known_defects_of(&EntryBackend(e), pa) {
                                Some(why) => ("fails", format!("{}: {why}", e.implementation)),
                                None => ("available", with_untimed(e)),
                            },
                            Err(why) => ("unavailable", why.clone()),
                        };
                        row(algo.name(), p.name, "-", status, detail);
                    }
                }
            }
        }
        for (b, why) in &catalog.not_built {
            row(algo.name(), b, "any", "unavailable", why.to_string());
        }
    }
    if a.format == "json" {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("serialises")
        );
        return Ok(0);
    }
    println!(
        "{:<24} {:<11} {:<8} {:<12} implementation / reason",
        "algorithm", "backend", "hw", "status"
    );
    // The last column wraps under itself: every line within 100 columns.
    let indent = " ".repeat(24 + 1 + 11 + 1 + 8 + 1 + 12 + 1);
    for r in &rows {
        let line = format!(
            "{:<24} {:<11} {:<8} {:<12} {}",
            r["algorithm"].as_str().unwrap_or(""),
            r["backend"].as_str().unwrap_or(""),
            r["hw"].as_str().unwrap_or(""),
            r["status"].as_str().unwrap_or(""),
            r["implementation_or_reason"].as_str().unwrap_or("")
        );
        println!("{}", wrap_under(&line, &indent));
    }
    for p in &catalog.providers {
        if let Some(v) = (p.cpu_view)() {
            print!(
                "{}",
                ango_report::formats::fit(&format!("{} sees: {v}\n", p.name))
            );
        }
    }
    Ok(0)
}

/// An entry's implementation, with the operations it never times and why
/// (ring's X25519 decapsulation, its RSA key generation and signing).
fn with_untimed(e: &ango_core::Entry) -> String {
    let mut s = e.implementation.clone();
    for line in e.untimed_lines(|_| true) {
        s.push_str("; ");
        s.push_str(&line);
    }
    s
}

/// For a pair that a known library defect may concern (by provider,
/// version and algorithm), run its checks: "fails verification: …" with
/// every failing case id when it reproduces, a note when it does not.
fn known_defects_of(b: &dyn ango_core::PkBackend, a: ango_core::PkAlgorithm) -> Option<String> {
    if !ango_verify::defects::concerns(&b.label(), &b.version(), a.name()) {
        return None;
    }
    let mut rng = ango_verify::cross::Rng::new(0x6c69_7374);
    let c = ango_verify::pk::all_checks(b, a, &mut rng);
    defect_text(&ango_verify::pk::explain(b, a, &c))
}

/// As [`known_defects_of`], for a symmetric entry: its checks before
/// timing (known answers and Wycheproof) when a known defect may concern it.
fn known_sym_defects_of(e: &ango_core::Entry) -> Option<String> {
    let AlgorithmId::Sym(a) = e.algorithm else {
        return None;
    };
    if !ango_verify::defects::concerns_entry(e, a.name()) {
        return None;
    }
    let c = ango_verify::kat::before_timing(&EntryBackend(e), a).ok()?;
    defect_text(&c.explained)
}

/// "fails verification: …" for each known defect that reproduced (every
/// case id) and for the failures none explains; None when nothing failed.
fn defect_text(e: &ango_verify::defects::Explained) -> Option<String> {
    let mut parts: Vec<String> = e
        .known
        .iter()
        .map(|m| {
            format!(
                "fails verification: {} (cases {})",
                m.detail(),
                ango_core::finding::short_cases(&m.cases)
            )
        })
        .collect();
    if !e.unexplained.is_empty() {
        parts.push(format!(
            "fails verification: {} other cases ({})",
            e.unexplained.len(),
            e.unexplained
                .iter()
                .map(|f| f.case.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("; "))
}

fn env_cmd(a: &FormatArgs) -> Result<i32> {
    check_format(&a.format)?;
    let e = capture_env("");
    if a.format == "json" {
        println!("{}", serde_json::to_string_pretty(&e).expect("serialises"));
        return Ok(0);
    }
    for (k, v) in ango_report::html::env_lines(&e) {
        println!("{}", wrap_under(&format!("{k:<22} {v}"), &" ".repeat(23)));
    }
    Ok(0)
}

/// A table row whose last column runs long: wrapped to the terminal's 100
/// columns, its continuation lines starting under that column (`indent`,
/// as wide as the columns before it); a word longer than the room left is
/// cut. A row whose earlier columns overflow is wrapped as any text.
fn wrap_under(line: &str, indent: &str) -> String {
    let w = ango_report::formats::TERMINAL_WIDTH;
    let n = indent.chars().count();
    if line.chars().count() <= w {
        return line.to_string();
    }
    let head: String = line.chars().take(n).collect();
    if !head.ends_with(' ') || n >= w {
        return ango_report::formats::fit(line).trim_end().to_string();
    }
    let room = w - n;
    let tail: String = line.chars().skip(n).collect();
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in tail.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let (cl, wl) = (cur.chars().count(), word.chars().count());
            if cl + wl + usize::from(cl > 0) <= room {
                if cl > 0 {
                    cur.push(' ');
                }
                cur.push_str(&word);
                break;
            }
            if cl > 0 {
                lines.push(std::mem::take(&mut cur));
                continue;
            }
            lines.push(word.chars().take(room).collect());
            word = word.chars().skip(room).collect();
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    head + &lines.join(&format!("\n{indent}"))
}

fn verify_wycheproof(path: &Path, json: bool) -> Result<i32> {
    use ango_verify::wycheproof_suite as suite;
    let files = suite::files_of(path)?;
    let single = files.len() == 1 && !path.is_dir();
    let mut reports = Vec::new();
    let mut refused = Vec::new();
    for p in &files {
        // Case ids name the file by its base name, as the known-defects
        // list does.
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string());
        let text = std::fs::read_to_string(p).map_err(|e| {
            Error::usage(format!(
                "cannot read {}: {e}; give a Wycheproof test file (.json)",
                p.display()
            ))
        })?;
        let file = match suite::load(&name, &text) {
            Ok(f) => f,
            Err(e) if single => return Err(e),
            Err(e) => {
                refused.push(e.to_string());
                continue;
            }
        };
        let rs = suite::run_file(ango_backends::catalog(), &name, &file);
        if !json {
            print_file_reports(&name, &file, &rs);
        }
        reports.push((name, rs));
    }
    let all: Vec<&suite::FileReport> = reports.iter().flat_map(|(_, r)| r).collect();
    let failed: usize = all.iter().map(|r| r.unexplained.len()).sum();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&all).expect("reports serialise")
        );
        for r in &refused {
            esay!("ango: not read: {r}");
        }
        return Ok(if failed > 0 {
            1
        } else if refused.is_empty() {
            0
        } else {
            2
        });
    }
    let mut known = Known::default();
    for r in &all {
        if let Some(k) = &r.known_defect {
            known.met.push(format!("{}: {k}", r.file));
        }
        known.gone.extend(r.not_reproduced.iter().cloned());
    }
    known.gone.sort();
    known.gone.dedup();
    println!(
        "\n{} files read, {} cases, {} implementation runs",
        reports.len(),
        all.iter()
            .map(|r| (&r.file, r.cases))
            .collect::<std::collections::BTreeMap<_, _>>()
            .values()
            .sum::<usize>(),
        all.len()
    );
    for r in &refused {
        println!("not read: {r}");
    }
    let code = print_verdict(failed, &known)?;
    Ok(if code == 0 && !refused.is_empty() {
        2
    } else {
        code
    })
}

/// One file's table: per implementation its counts, the reasons of its
/// skips, and every failed case (none cut).
fn print_file_reports(
    name: &str,
    file: &ango_verify::wycheproof_suite::Loaded,
    rs: &[ango_verify::wycheproof_suite::FileReport],
) {
    say!(
        "\n{name} ({}, {} cases)",
        file.schema(),
        file.number_of_tests()
    );
    if rs.is_empty() {
        say!("  no implementation of its algorithms runs here");
        return;
    }
    // Columns as wide as their entries (within 100 columns for every file
    // ango has; a longer row wraps).
    use ango_report::formats::col_width;
    let lw = col_width(rs.iter().map(|r| r.label.as_str()), 16);
    let aw = col_width(rs.iter().map(|r| r.algorithm.as_str()), 9);
    say!(
        "  {:<lw$} {:<aw$} {:>6} {:>6} {:>6} {:>10}",
        "backend[variant]",
        "algorithm",
        "pass",
        "fail",
        "skip",
        "acceptable"
    );
    for r in rs {
        say!(
            "  {:<lw$} {:<aw$} {:>6} {:>6} {:>6} {:>10}",
            r.label,
            r.algorithm,
            r.passed,
            r.failed,
            r.skipped,
            r.acceptable
        );
        for (why, n) in &r.skip_reasons {
            say!("      skipped {n}: {why}");
        }
        if let Some(k) = &r.known_defect {
            say!("      known defect: {k}");
        }
        let unexplained: Vec<String> = r
            .unexplained
            .iter()
            .map(|f| format!("{} [{}]", f.text, f.case))
            .collect();
        print_failures(&unexplained);
    }
}

/// `ango verify --vectors FILE`: a vector file in ango's own format run
/// against every implementation of each algorithm it names, with the
/// table and exit codes of the built-in checks (1 when a case fails, 2
/// for a file that cannot be read or parsed).
fn verify_vectors(path: &Path) -> Result<i32> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::data(path.display(), format!("cannot read the vector file: {e}")))?;
    let file = ango_verify::vectors::parse(&path.display().to_string(), &text)?;
    if file.cases.is_empty() {
        return Err(Error::data(
            path.display(),
            "no cases: a vector file has [algorithm] sections with KEY = hex lines",
        ));
    }
    for s in &file.sources {
        say!("# Source: {s}");
    }
    let cases: Vec<(String, ango_verify::vectors::Case)> = file
        .cases
        .into_iter()
        .map(|c| (file.path.clone(), c))
        .collect();
    let mut sections: Vec<&str> = Vec::new();
    for (_, c) in &cases {
        if !sections.contains(&c.section.as_str()) {
            sections.push(&c.section);
        }
    }
    say!(
        "{:<24} {:<44} cases of {}",
        "algorithm",
        "backend[variant]",
        path.display()
    );
    let (mut failed, mut ran) = (0, 0);
    let catalog = ango_backends::catalog();
    for sec in sections {
        let n = cases.iter().filter(|(_, c)| c.section == sec).count();
        let Some(a) = cases
            .iter()
            .find(|(_, c)| c.section == sec)
            .and_then(|(_, c)| c.algorithm)
        else {
            say!(
                "{sec:<24} {:<44} not run: {n} cases of a primitive below ango's algorithms \
                 (its own tests check them)",
                "ango"
            );
            continue;
        };
        for e in catalog.of(AlgorithmId::Sym(a)) {
            if let Err(why) = &e.available {
                say!("{:<24} {:<44} unavailable: {why}", a.name(), e.label());
            }
        }
        for imp in catalog.runnable(AlgorithmId::Sym(a)) {
            let r = ango_verify::kat::run_cases(&EntryBackend(imp), a, &cases);
            ran += 1;
            let status = if r.failed == 0 && r.passed > 0 {
                ""
            } else {
                failed += 1;
                "FAIL "
            };
            let mut line = format!("{status}{}/{}", r.passed, r.passed + r.failed);
            if r.skipped > 0 {
                line.push_str(&format!(" ({} skipped)", r.skipped));
            }
            say!("{:<24} {:<44} {line}", a.name(), imp.label());
            for f in r.failures.iter().chain(r.skips.iter()) {
                say!("    {f}");
            }
        }
    }
    if ran == 0 {
        say!(
            "
no implementation of the file's algorithms runs here"
        );
    }
    say!(
        "
{failed} failed"
    );
    Ok(if failed == 0 { 0 } else { 1 })
}

/// Every failed case of a Wycheproof file, one line each, none cut.
fn print_failures(failures: &[String]) {
    for f in failures {
        say!("      failed: {f}");
    }
}

fn verify() -> Result<i32> {
    let mut failed = 0;
    let mut known = Known::default();
    say!(
        "{:<18} {:<44} known-answer tests; Wycheproof (the checks before timing)",
        "algorithm",
        "backend[variant]"
    );
    for &a in Algorithm::ALL {
        let catalog = ango_backends::catalog();
        for e in catalog.of(AlgorithmId::Sym(a)) {
            if let Err(why) = &e.available {
                say!("{:<18} {:<44} unavailable: {why}", a.name(), e.label());
            }
        }
        for imp in catalog.runnable(AlgorithmId::Sym(a)) {
            let label = imp.label();
            let r = ango_verify::kat::before_timing(&EntryBackend(imp), a)?;
            let status = if r.ok() {
                ""
            } else if r.only_known_defects() {
                "KNOWN DEFECT "
            } else {
                failed += 1;
                "FAIL "
            };
            say!("{:<18} {:<44} {status}{}", a.name(), label, r.summary());
            for f in &r.kat.failures {
                say!("    {f}");
            }
            report_explained(&r.explained, &label, a.name(), &mut known);
        }
    }
    say!(
        "\n{:<18} agreement of every backend and variant (300 random messages, 0..4096 B, AAD 0..64 B)",
        "algorithm"
    );
    for &a in Algorithm::ALL {
        let d: Vec<(String, Result<u64>)> = ango_backends::catalog()
            .runnable(AlgorithmId::Sym(a))
            .into_iter()
            .map(|imp| {
                let d = ango_verify::cross::digest(&EntryBackend(imp), a, 300, 4096, 0xa460);
                (imp.label(), d)
            })
            .collect();
        let vals: Vec<u64> = d
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok().copied())
            .collect();
        let agree = vals.len() == d.len() && vals.windows(2).all(|w| w[0] == w[1]);
        if !agree {
            failed += 1;
        }
        let parts: Vec<String> = d
            .iter()
            .map(|(n, r)| match r {
                Ok(h) => format!("{n}={h:016x}"),
                Err(e) => format!("{n}: {e}"),
            })
            .collect();
        say!(
            "{:<18} {} {}",
            a.name(),
            if agree { "pass" } else { "FAIL" },
            parts.join(" ")
        );
    }
    say!(
        "\n{:<18} placement: the same output at buffer offsets 0..15, open leaves its inputs alone",
        "algorithm"
    );
    for &a in Algorithm::ALL {
        let imps = ango_backends::catalog().runnable(AlgorithmId::Sym(a));
        let mut bad = Vec::new();
        for imp in &imps {
            if let Err(e) = ango_verify::cross::placement(&EntryBackend(imp), a, 20, 0x51de) {
                bad.push(format!("{}: {e}", imp.label()));
            }
        }
        failed += bad.len();
        if bad.is_empty() {
            say!("{:<18} pass ({} implementations)", a.name(), imps.len());
        } else {
            say!("{:<18} FAIL {}", a.name(), bad.join("; "));
        }
    }
    failed += verify_pk(&mut known);
    print_verdict(failed, &known)
}

/// The known library defects a verification met, one line each: those
/// that failed as listed, and those that no longer reproduce.
#[derive(Default)]
struct Known {
    met: Vec<String>,
    gone: Vec<String>,
}

/// Print a check's failures divided between known library defects (also
/// added to `known`) and the rest, every case id.
fn report_explained(
    e: &ango_verify::defects::Explained,
    backend: &str,
    algorithm: &str,
    known: &mut Known,
) {
    for m in &e.known {
        let line = m.line(backend, algorithm);
        say!("    {line}");
        known.met.push(format!("{line}; {}", m.timing_note()));
    }
    for f in &e.unexplained {
        say!("    {} [{}]", f.text, f.case);
    }
    for n in &e.not_reproduced {
        say!("    {n}");
        known.gone.push(n.clone());
    }
}

/// The end of a verification: the known library defects first, in plain
/// words, then the count of failures no known defect explains (exit 1 when
/// there are any).
fn print_verdict(failed: usize, known: &Known) -> Result<i32> {
    for (title, lines) in [
        (
            "Known library defects (shown; not failures of ango):",
            &known.met,
        ),
        (
            "Known library defects that no longer reproduce here:",
            &known.gone,
        ),
    ] {
        if !lines.is_empty() {
            say!("\n{title}");
            for k in lines {
                say!("  {k}");
            }
        }
    }
    say!("\n{failed} failed");
    Ok(if failed == 0 { 0 } else { 1 })
}

/// The public-key half of `ango verify`: the checks `ango pk` runs before
/// timing, for every algorithm and backend. Returns the number of failures
/// no known library defect explains; the known defects met (and those that
/// no longer reproduce) are added to `known`, one line each.
fn verify_pk(known: &mut Known) -> usize {
    use ango_core::PkAlgorithm;
    let mut failed = 0;
    say!(
        "\n{:<24} {:<17} public-key checks (round trip, tampering, sizes) and Wycheproof",
        "algorithm",
        "backend"
    );
    let mut rng = ango_verify::cross::Rng::new(0x706b_7665_7269);
    for &a in PkAlgorithm::ALL {
        let mut avail: Vec<EntryBackend> = Vec::new();
        for entry in ango_backends::catalog().of(AlgorithmId::Pk(a)) {
            if let Err(why) = &entry.available {
                say!("{:<24} {:<17} unavailable: {why}", a.name(), entry.label());
                continue;
            }
            avail.push(EntryBackend(entry));
            let b = avail.last().expect("just pushed");
            let checked = ango_verify::pk::all_checks(b, a, &mut rng);
            let e = ango_verify::pk::explain(b, a, &checked);
            let status = if checked.failures.is_empty() {
                "pass"
            } else if e.all_explained() {
                "KNOWN DEFECT"
            } else {
                "FAIL"
            };
            failed += usize::from(!e.all_explained());
            say!(
                "{:<24} {:<17} {status} {}/{} checks{}",
                a.name(),
                b.0.label(),
                checked.passed,
                checked.passed + checked.failures.len(),
                if checked.summary.is_empty() {
                    String::new()
                } else {
                    format!("; Wycheproof {}", checked.summary.join(", "))
                }
            );
            report_explained(&e, &b.0.label(), a.name(), known);
        }
        if avail.len() >= 2 {
            let refs: Vec<&dyn ango_core::PkBackend> = avail
                .iter()
                .map(|b| b as &dyn ango_core::PkBackend)
                .collect();
            let (passed, fails) = ango_verify::pk::cross_checks(&refs, a);
            failed += usize::from(!fails.is_empty());
            say!(
                "{:<24} {:<17} {} {}/{} ordered pairs of libraries agree",
                a.name(),
                "cross",
                if fails.is_empty() { "pass" } else { "FAIL" },
                passed,
                passed + fails.len()
            );
            for f in &fails {
                say!("    {f}");
            }
        }
    }
    failed
}

/// The child side of a hardware-setting point: spec on stdin, events on stdout.
/// Measurements per dudect run: full, and `--quick` (also `ango run`'s pass).
pub(crate) const CT_MEASUREMENTS: [usize; 2] = [200_000, 20_000];

fn ct_cmd(a: &CtArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let targets = ango_study::ct::select(ango_study::ct::targets(), a.impl_.as_deref())?;
    let n = CT_MEASUREMENTS[usize::from(a.quick)];
    let table = format == Format::Table;
    let (run_id, _) = utc_now();
    let records = ct_pass(&targets, n, true, &run_id, table)?;
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&records).expect("records serialise")
        );
    } else if !table {
        let data = ReportData {
            ct_records: records.clone(),
            ..Default::default()
        };
        print_exported(&data, format);
    }
    Ok(ct_verdict(&records, table))
}

/// A suite's records in CSV, Markdown or the HTML page, through the
/// exporters (the suites whose table and JSON output are their own).
pub(crate) fn print_exported(data: &ReportData, format: Format) {
    print!(
        "{}",
        ango_report::export::render(data, format, &ango_report::export::Style::default())
    );
}

/// Check `targets`, printing a line per target when `show`; memcheck runs
/// where valgrind can run the target (`memcheck` false: dudect only).
pub(crate) fn ct_pass(
    targets: &[ango_study::ct::Target],
    n: usize,
    memcheck: bool,
    run_id: &str,
    show: bool,
) -> Result<Vec<ango_study::ct::CtRecord>> {
    let exe = ango_harness::env::own_exe().map_err(|e| Error::io("the ango executable", e))?;
    if show {
        say!(
            "constant-time checks: memcheck (valgrind, key and input marked secret) and dudect \
             ({n} measurements per run, |t| > {} is a leak, re-measured once)",
            ango_study::ct::THRESHOLD
        );
        say!(
            "{:<20} {:<10} {:<44} {:<9} {:>8} {:<14}",
            "algorithm",
            "backend",
            "implementation",
            "memcheck",
            "max |t|",
            "verdict"
        );
    }
    let mut out = Vec::new();
    let mut cache = ango_study::ct::MemcheckCache::new();
    // A selection's compositions are judged by parts it may leave out.
    let all_ct = ango_study::ct::targets();
    if memcheck {
        // Memcheck on every CPU first (it times nothing): the selection and
        // the parts by which the compositions valgrind cannot run are judged.
        let mut wanted: Vec<ango_study::ct::Target> = targets.to_vec();
        for t in targets.iter().filter(|t| t.memcheck_blocker().is_some()) {
            for id in t.parts() {
                if let Some(p) = all_ct.iter().find(|x| x.id == id) {
                    if !wanted.iter().any(|w| w.id == p.id) {
                        wanted.push(p.clone());
                    }
                }
            }
        }
        let jobs = ango_harness::affinity::allowed_cpus().len().max(1);
        ango_study::ct::memcheck_all(&wanted, &exe, &mut cache, jobs);
    }
    for t in targets {
        let r = ango_study::ct::check(
            t,
            &all_ct,
            n,
            memcheck.then_some(exe.as_path()),
            run_id,
            &mut cache,
        )?;
        if show {
            say!(
                "{:<20} {:<10} {:<44} {:<9} {:>8.2} {:<14}{}",
                r.algorithm,
                r.backend,
                r.label(),
                r.memcheck,
                r.max_abs_t,
                r.verdict.name(),
                match r.label_agrees {
                    Some(false) => "  (its name's -nct disagrees)",
                    _ => "",
                }
            );
            if r.memcheck == "not-run" {
                say!("    memcheck not run: {}", r.memcheck_detail);
            }
            for f in &r.memcheck_findings {
                say!("    memcheck: {f}");
            }
            if !r.parts_flagged.is_empty() {
                say!(
                    "    leaks through its parts, which memcheck flags on their own: {}",
                    r.parts_flagged.join(", ")
                );
            }
            if let Some(first) = r.first_max_abs_t {
                say!(
                    "    first run crossed ({first:.2}); measured again: {:.2}",
                    r.max_abs_t
                );
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The end of a constant-time pass: the positive controls (exit 1 if one
/// came out wrong: the check is broken here) and the labels.
pub(crate) fn ct_verdict(records: &[ango_study::ct::CtRecord], show: bool) -> i32 {
    let broken = ango_study::ct::broken_controls(records);
    let labels: Vec<&ango_study::ct::CtRecord> = records
        .iter()
        .filter(|r| r.label_agrees == Some(false))
        .collect();
    let show_line = |s: String| {
        if show {
            say!("{s}");
        } else {
            esay!("{s}");
        }
    };
    for r in &labels {
        show_line(format!(
            "label: {} {} is {} but its name {}",
            r.algorithm,
            r.implementation,
            r.verdict.name(),
            if r.implementation.contains("-nct") {
                "says -nct (not constant time)"
            } else {
                "lacks -nct"
            }
        ));
    }
    let controls = records.iter().filter(|r| r.control.is_some()).count();
    if broken.is_empty() {
        if controls > 0 {
            show_line(format!(
                "\npositive controls: {controls} of {controls} as they must be (table AES and GHASH leak, bitsliced AES and ctmul GHASH constant-time)"
            ));
        }
        0
    } else {
        show_line("\nTHE CHECK IS BROKEN HERE: positive controls came out wrong:".to_string());
        for b in &broken {
            show_line(format!("  {b}"));
        }
        1
    }
}

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
