//! `ango speed`, `ango latency` and `ango run` (every seed's study in one
//! results directory), and `ango tune`.

use crate::args::{PkArgs, RunArgs, SpeedArgs, TlsArgs};
use crate::driver::*;

use ango_core::{Algorithm, AlgorithmId, Error, Result};
use ango_report::export::{Format, Style};
use ango_report::Unit;
use ango_study::speed::SpeedSpec;
use ango_study::Suite;

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

/// The combinations of `ango run`'s congestion-window pass (seed 003
/// §4-3): server and CA signatures whose flights fall within (P-256, 3
/// segments) and beyond (CROSS, 11 to 20 segments) the initial window of
/// 10 segments, over a 20 ms round trip.
pub(crate) const TLS_CWND_SIGS: &str = "p-256,cross-rsdp-128-small";
pub(crate) const TLS_CWND_RTT: &str = "20ms";
pub(crate) const TLS_CWND_HANDSHAKES: &str = "30";
pub(crate) const TLS_CWND_HANDSHAKES_QUICK: &str = "10";

/// The latency study's lengths in `ango run`: seed 001's range at a
/// coarser step than `ango latency`'s 16, to keep the run short.
pub(crate) const LATENCY_RUN_SIZES: &str = "0:4096:64";

pub(crate) fn run(a: &SpeedArgs, mode: Mode, run_args: Option<&RunArgs>) -> Result<i32> {
    let is_run = mode == Mode::Run;
    let run_id = new_run_id();
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
                memory: !r.no_memory,
                ..PkArgs::default()
            };
            let ps = pa.spec(&run_id)?;
            let ms = pa.memory_spec(&ps)?;
            if ms.is_some() {
                crate::memhook::bind_now();
            }
            Some((ps, ms))
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
                pairings.push(p);
            }
            // Seed 003 §4-3's congestion window: flights within and beyond
            // the server's initial window of 10 segments over a link whose
            // RTT dwarfs the server's own time (rustls on both sides: the
            // large CROSS signatures; the window is the kernel's).
            if root {
                pairings.push(
                    TlsArgs {
                        groups: Some("x25519".into()),
                        server_sig: Some(TLS_CWND_SIGS.into()),
                        ca_sig: Some(TLS_CWND_SIGS.into()),
                        client_stack: Some("rustls".into()),
                        server_stack: Some("rustls".into()),
                        rtt: Some(TLS_CWND_RTT.into()),
                        handshakes: Some(
                            if a.quick {
                                TLS_CWND_HANDSHAKES_QUICK
                            } else {
                                TLS_CWND_HANDSHAKES
                            }
                            .into(),
                        ),
                        ..ta.clone()
                    }
                    .spec(&run_id)?,
                );
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
                Some(ms)
            }
        }
        _ => None,
    };

    // `ango run` adds seed 002's cycle study (`ango cycles`, its defaults),
    // the constant-time checks' short pass and seed 004's suites.
    let mut later: Vec<Box<dyn Suite>> = Vec::new();
    let mut cycles_blocked = None;
    if let Some(r) = run_args {
        if !r.no_cycles {
            let cs = crate::args::CyclesArgs {
                quick: a.quick,
                format: "table".into(),
                ..Default::default()
            }
            .spec()?;
            cycles_blocked = cs.not_measured();
            later.push(Box::new(cs));
        }
        if !r.no_ct {
            later.push(Box::new(ango_study::ct_pass::CtPass {
                targets: ango_study::ct::targets(),
                measurements: ango_study::ct_pass::MEASUREMENTS[1],
                memcheck: true,
            }));
        }
        later.extend(seed004_suites(r, &run_id, a.quick)?);
    }

    // ango's `auto` variants (chosen for this CPU before anything is timed).
    let mut planned: Vec<&ango_study::speed::Planned> = Vec::new();
    if !run_args.is_some_and(|r| r.no_speed) {
        planned.extend(&spec.points);
    }
    for s in [&latency_spec, &multi_spec].into_iter().flatten() {
        planned.extend(&s.points);
    }
    let auto_algos = auto_algorithms(&planned);
    // The suites of this command, one after the other into one sink; the
    // total planned is theirs.
    let tls_loopback = tls_spec.as_ref().is_some_and(|(t, _)| t.loopback);
    let mut suites: Vec<Box<dyn Suite>> = Vec::new();
    if !run_args.is_some_and(|r| r.no_speed) {
        suites.push(Box::new(spec.clone()));
    }
    if let Some(ms) = multi_spec {
        suites.push(Box::new(ms));
    }
    if let Some(ls) = latency_spec {
        suites.push(Box::new(ls));
    }
    if let Some(n) = multi_note {
        esay!("ango: {n}");
    }
    if let Some((ps, ms)) = pk_spec {
        suites.push(Box::new(ps));
        if let Some(ms) = ms {
            suites.push(Box::new(ms));
        }
    }
    if let Some((ts, pairings)) = tls_spec {
        if tls_loopback {
            esay!("ango: not root, so the TLS lab runs on 127.0.0.1 without namespaces, link emulation or captures");
        }
        for t in std::iter::once(ts).chain(pairings) {
            suites.push(Box::new(t));
        }
    }
    suites.extend(later);
    let pin = match &a.cpu {
        Some(c) => Some(crate::args::parse_cpu(c)?),
        // `--multi 1`: one worker, pinned like `--cpu`.
        None => match spec.multi.as_slice() {
            &[cpu] => Some(cpu),
            _ => None,
        },
    };
    let done = execute(Job {
        run_id,
        out: match (&a.out, is_run) {
            (Some(p), _) => Out::Given(p.clone()),
            (None, true) => Out::Default,
            (None, false) => Out::None,
        },
        suites,
        pin,
        tune: Some(Tune {
            algorithms: auto_algos,
            quick: a.quick,
            off: a.no_tune,
        }),
        noise: true,
        keep_going: is_run,
        format,
        style: Style {
            unit: Some(unit),
            table_findings: mode != Mode::Speed,
            variant_providers: variant_providers(),
            ..Style::default()
        },
        only: None,
    })?;
    if let (Format::Table, Some(l)) = (format, &cycles_blocked) {
        print!("{}", ango_report::formats::fit(&format!("  {l}\n")));
    }
    // `ango run` ends with the page's dashboard.
    if is_run && format == Format::Table && done.code != 130 {
        print!(
            "{}",
            ango_report::summary::dashboard_text(
                &ango_report::suites::findings(&done.data),
                &done.data.events,
                ango_report::formats::TERMINAL_WIDTH
            )
        );
    }
    if is_run {
        let parts: Vec<String> = done
            .seconds
            .iter()
            .map(|t| format!("{} {:.0} s", t.suite, t.seconds))
            .collect();
        let total: f64 = done.seconds.iter().map(|t| t.seconds).sum();
        esay!(
            "ango: time per suite: {}; {:.1} min in all",
            parts.join(", "),
            total / 60.0
        );
    }
    Ok(done.code)
}

/// Bytes and repeats of the run's bulk measurement (`--quick`: fewer).
fn bulk_size(quick: bool) -> (&'static str, &'static str) {
    if quick {
        ("4MiB", "1")
    } else {
        ("16MiB", "3")
    }
}

/// `ango run`'s seed 004 suites: the record overhead, the bulk throughput
/// with and without AES instructions, and the negotiation matrix priced by
/// that bulk measurement (over 127.0.0.1 when not root).
fn seed004_suites(r: &RunArgs, run_id: &str, quick: bool) -> Result<Vec<Box<dyn Suite>>> {
    let mut v: Vec<Box<dyn Suite>> = Vec::new();
    if !r.no_tls_records {
        let spec = crate::args::TlsRecordsArgs {
            format: "table".into(),
            ..Default::default()
        }
        .spec(run_id)?;
        v.push(Box::new(spec));
    }
    let (bytes, repeats) = bulk_size(quick);
    if !r.no_bulk || !r.no_policy {
        let spec = TlsArgs {
            bulk: Some(bytes.into()),
            repeats: Some(repeats.into()),
            loopback: !ango_tls::lab::is_root(),
            format: "table".into(),
            pcap_handshakes: "20".into(),
            emulator: "auto".into(),
            ..Default::default()
        }
        .bulk_spec(run_id)?;
        v.push(Box::new(spec));
    }
    if !r.no_policy {
        use ango_tls::policy;
        v.push(Box::new(ango_study::seed004::PolicySuite {
            spec: policy::PolicySpec {
                run_id: run_id.into(),
                versions: vec!["1.2", "1.3"],
                profiles: policy::PROFILES.to_vec(),
                policies: policy::POLICIES.to_vec(),
            },
            costs: ango_study::seed004::Costs::Earlier(format!(
                "the tls-bulk records of this run ({bytes} × {repeats})"
            )),
        }));
    }
    Ok(v)
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

/// `ango tune`: measure (or, with `--cached`, read back) the choice of
/// `auto` for this CPU and build, cache it and print it.
pub(crate) fn tune_cmd(a: &crate::args::TuneArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
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

pub(crate) fn print_tuning(t: &ango_study::tune::Tuning, format: Format) {
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(t).expect("a tuning serialises")
        ),
        Format::Table => print!("{}", ango_study::tune::text(t)),
        _ => {
            let rows = t
                .choices
                .iter()
                .map(|c| {
                    vec![
                        c.algorithm.name().to_string(),
                        c.operation.name().to_string(),
                        c.class_bytes.to_string(),
                        c.chosen.clone(),
                        c.default.clone(),
                        c.runner_up.clone().unwrap_or_default(),
                        c.margin.map(|m| format!("{m:.3}")).unwrap_or_default(),
                        c.margin_ci95_low
                            .map(|m| format!("{m:.3}"))
                            .unwrap_or_default(),
                        c.margin_ci95_high
                            .map(|m| format!("{m:.3}"))
                            .unwrap_or_default(),
                        c.kept_default.to_string(),
                        c.source.clone(),
                    ]
                })
                .collect();
            let table = ango_report::table::Table::labels(
                format!("auto on {} ({}): {}", t.cpu.model_name, t.key, t.summary),
                &[
                    "algorithm",
                    "operation",
                    "class_bytes",
                    "chosen",
                    "default",
                    "runner_up",
                    "margin",
                    "margin_ci95_low",
                    "margin_ci95_high",
                    "kept_default",
                    "source",
                ],
                rows,
            );
            print!(
                "{}",
                ango_report::table::render("ango tune", &[table], format)
            );
        }
    }
}
