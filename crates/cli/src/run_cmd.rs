//! `ango speed`, `ango latency` and `ango run` (every seed's study in one
//! results directory), and `ango tune`.

use crate::args::{PkArgs, RunArgs, SpeedArgs, TlsArgs};
use crate::ct_cmd::run_ct_pass;
use crate::driver::*;
use crate::sink::ParentSink;
use ango_core::results::{utc_now, ResultsDir, ENV, REPORT, RESULTS};
use ango_core::{Algorithm, AlgorithmId, Error, Result};
use ango_report::export::{Format, Style};
use ango_report::Unit;
use ango_study::speed::SpeedSpec;
use ango_study::Study;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Run,
    Speed,
    Latency,
}

/// `ango run`'s budget (it finishes in about 10 minutes on two cores):
/// seconds per speed point, calls and seconds per public-key point,
/// handshakes per TLS combination. The commands' own defaults are larger.
pub(crate) const RUN_SPEED_SECONDS: &str = "0.2";
pub(crate) const RUN_PK_ITERATIONS: &str = "300";
pub(crate) const RUN_PK_SECONDS: &str = "3";
pub(crate) const RUN_TLS_HANDSHAKES: &str = "200";
/// `ango run --quick`'s (about two minutes).
pub(crate) const RUN_QUICK_SPEED_SECONDS: &str = "0.04";
pub(crate) const RUN_QUICK_PK_ITERATIONS: &str = "30";
pub(crate) const RUN_QUICK_PK_SECONDS: &str = "0.5";

/// The smaller matrix of `ango run`'s other TLS stack pairings (the CA
/// signs with P-256).
pub(crate) const TLS_PAIRING_GROUPS: &str = "x25519,x25519mlkem768";
pub(crate) const TLS_PAIRING_SIGS: &str = "p-256,ml-dsa-44";

/// The latency study's lengths in `ango run`: seed 001's range at a
/// coarser step than `ango latency`'s 16, to keep the run short.
pub(crate) const LATENCY_RUN_SIZES: &str = "0:4096:64";

pub(crate) fn run(a: &SpeedArgs, mode: Mode, run_args: Option<&RunArgs>) -> Result<i32> {
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
    data.records.cycles = cycles_records;
    data.records.tls_records = seed004.records;
    data.records.tls_bulk = seed004.bulk;
    data.records.tls_policy = seed004.policy;
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
    print!("{}", ango_report::suites::render(&data, format, &style));
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
                &ango_report::suites::findings(&data),
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
                + data.records.cycles.len(),
            d.path.join(RESULTS).display(),
            d.path.join(REPORT).display()
        );
    }
    Ok(sink.finish(interrupted))
}

/// The algorithms whose ango `auto` is among `planned`.
pub(crate) fn auto_algorithms(planned: &[&ango_study::speed::Planned]) -> Vec<Algorithm> {
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
pub(crate) fn tune_for_run(
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
pub(crate) fn tune_cmd(a: &crate::args::TuneArgs) -> Result<i32> {
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

pub(crate) fn print_tuning(t: &ango_study::tune::Tuning, format: &str) {
    if format == "json" {
        println!(
            "{}",
            serde_json::to_string_pretty(t).expect("a tuning serialises")
        );
    } else {
        print!("{}", ango_study::tune::text(t));
    }
}
