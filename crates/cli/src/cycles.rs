//! `ango cycles`: seed 002's study — cycles per key schedule (its Table 4)
//! and per block, encryption and decryption (its Table 5), each call's
//! output the next call's input, beside the throughput per block of the
//! same implementation; the implementations' table bytes beside this CPU's
//! L1d; seed 002's findings checked here.

use crate::args::{list, parse_num, CyclesArgs};
use ango_core::algo::names;
use ango_core::cycles::CyclesRecord;
use ango_core::results::{ResultsDir, RESULTS};
use ango_core::{Algorithm, AlgorithmId, EntryBackend, Error, Hw, Result};
use ango_study::cycles::Plan;

/// What `ango cycles` measures by default: seed 002's ciphers, every key
/// size, and AES-128/256 for reference.
pub fn default_algorithms() -> Vec<Algorithm> {
    let mut v = Algorithm::CRYPTREC.to_vec();
    v.extend([Algorithm::Aes128Ecb, Algorithm::Aes256Ecb]);
    v
}

/// The checked options: algorithms, the entries to time, the plan.
pub struct CyclesSpec {
    pub algorithms: Vec<Algorithm>,
    pub entries: Vec<String>,
    pub skips: Vec<String>,
    pub plan: Plan,
}

impl CyclesArgs {
    /// Check every option; nothing is written before this succeeds.
    pub fn spec(&self) -> Result<CyclesSpec> {
        let valid: Vec<&str> = Algorithm::ALL
            .iter()
            .filter(|a| a.cycles_capable())
            .map(|a| a.name())
            .collect();
        let algorithms = match &self.algo {
            None => default_algorithms(),
            Some(s) => {
                let mut v = Vec::new();
                for n in list(s, "--algo", &valid.join(", "))? {
                    let a = Algorithm::parse(n).map_err(|_| {
                        Error::usage(format!(
                            "unknown algorithm '{n}' for ango cycles; valid: {}",
                            valid.join(", ")
                        ))
                    })?;
                    if !a.cycles_capable() {
                        return Err(Error::usage(format!(
                            "ango cycles times one block of ECB or MUGI's keystream, not {a}; \
                             valid: {}",
                            valid.join(", ")
                        )));
                    }
                    if !v.contains(&a) {
                        v.push(a);
                    }
                }
                v
            }
        };
        let catalog = ango_backends::catalog();
        let providers = match &self.backend {
            None => catalog.providers.clone(),
            Some(s) => catalog.providers_named(s)?,
        };
        let impls: Vec<String> = list(
            self.impls.as_deref().unwrap_or("all"),
            "--impl",
            "all, auto, or variant names such as camellia/table64-nct (see `ango list`)",
        )?
        .into_iter()
        .map(String::from)
        .collect();
        let mut plan = if self.quick {
            Plan::quick()
        } else {
            Plan::full()
        };
        if let Some(n) = &self.iterations {
            plan.iterations = Some(parse_num("--iterations", n, 1u64, 1 << 32)?);
        }
        ango_report::export::Format::parse(&self.format)?;
        let (points, skipped) =
            ango_study::speed::resolve(catalog, &algorithms, &providers, &impls, &[Hw::On])?;
        let skips = skipped
            .iter()
            .map(|k| format!("{} {}: {}", k.backend, k.algorithm, k.reason))
            .collect();
        if points.is_empty() {
            return Err(Error::usage(format!(
                "nothing to measure for {}; see `ango list` for what runs here",
                names(algorithms.iter().map(|a| a.name()))
            )));
        }
        Ok(CyclesSpec {
            algorithms,
            entries: points.into_iter().map(|p| p.entry).collect(),
            skips,
            plan,
        })
    }
}

pub fn cycles_cmd(a: &CyclesArgs) -> Result<i32> {
    let spec = a.spec()?;
    use ango_report::export::Format;
    let format = Format::parse(&a.format)?;
    let table = format == Format::Table;
    let run_id = crate::driver::new_run_id();
    let (dir, env) = crate::driver::start_run(&a.out, &run_id)?;
    let (records, failed, interrupted) = measure_all(&spec, &run_id, dir.as_ref(), table)?;
    let data = ango_report::data::ReportData {
        env: Some(env),
        records: ango_core::Records {
            cycles: records.clone(),
            ..Default::default()
        },
        notes: crate::driver::interrupted_notes(interrupted),
        ..Default::default()
    };
    if let Some(d) = &dir {
        crate::driver::write_presentation(d, &data)?;
    }
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&records).expect("records serialise")
        );
    } else if !table {
        crate::driver::print_exported(&data, format);
    } else {
        print!(
            "{}",
            ango_report::formats::fit(&ango_report::cycles::text(&records))
        );
        if let Some(l) = not_measured(&spec) {
            say!("  {l}");
        }
    }
    if let Some(code) =
        crate::driver::interrupted_exit(interrupted, records.len(), "points measured")
    {
        return Ok(code);
    }
    if failed > 0 {
        esay!("ango: {failed} implementations failed their checks and were not timed");
        return Ok(1);
    }
    Ok(0)
}

/// Check and time every entry of `spec`, writing each record the moment
/// it is made. The implementations of one algorithm are sampled in turn
/// (one sample of each, round after round), so their ratios are taken side
/// by side; records are written when the algorithm is done. Returns the
/// records, the number of entries that failed their checks, and whether
/// the run was interrupted (the samples taken so far are kept).
pub fn measure_all(
    spec: &CyclesSpec,
    run_id: &str,
    dir: Option<&ResultsDir>,
    show: bool,
) -> Result<(Vec<CyclesRecord>, usize, bool)> {
    let catalog = ango_backends::catalog();
    let cc = ango_harness::cycles::CycleCounter::open();
    let (mut out, mut failed) = (Vec::new(), 0);
    for s in &spec.skips {
        if show {
            esay!("ango: not measured: {s}");
        }
    }
    let mut groups: Vec<(AlgorithmId, Vec<&ango_core::Entry>)> = Vec::new();
    for id in &spec.entries {
        let e = catalog.entry(id)?;
        match groups.iter_mut().find(|(a, _)| *a == e.algorithm) {
            Some((_, v)) => v.push(e),
            None => groups.push((e.algorithm, vec![e])),
        }
    }
    for (algo_id, entries) in groups {
        let AlgorithmId::Sym(algo) = algo_id else {
            continue;
        };
        let mut points = Vec::new();
        for e in entries {
            if ango_harness::measure::stop_requested() {
                return Ok((out, failed, true));
            }
            let checked = ango_verify::kat::before_timing(&EntryBackend(e), algo)?;
            if !checked.ok() {
                failed += 1;
                esay!(
                    "ango: {} {}: {} — not timed",
                    e.label(),
                    algo,
                    checked.summary()
                );
                for f in &checked.kat.failures {
                    esay!("    {f}");
                }
                continue;
            }
            if show {
                esay!(
                    "ango: timing {} {} ({})",
                    algo,
                    e.label(),
                    checked.summary()
                );
            }
            match ango_study::cycles::prepare(e, &spec.plan, &checked.kat.summary()) {
                Ok(ps) => points.extend(ps),
                Err(Error::Unsupported(m)) => {
                    if show {
                        esay!("ango: not measured: {m}");
                    }
                }
                Err(e) => return Err(e),
            }
        }
        if show && !points.is_empty() {
            esay!(
                "ango: sampling {algo}: {} points in turn, {} rounds",
                points.len(),
                spec.plan.samples
            );
        }
        let finished = ango_study::cycles::sample_in_turn(&mut points, &cc, spec.plan.samples);
        for p in points {
            if let Some(r) = ango_study::cycles::finish(p, &spec.plan, &cc, run_id) {
                if let Some(d) = dir {
                    d.append(RESULTS, &r)?;
                }
                out.push(r);
            }
        }
        if !finished {
            return Ok((out, failed, true));
        }
    }
    Ok((out, failed, false))
}

/// The algorithms of `spec` that nothing here implements (seed 002's
/// blocked ciphers), as the line under the tables; None if every one ran.
pub fn not_measured(spec: &CyclesSpec) -> Option<String> {
    let blocked: Vec<&str> = spec
        .algorithms
        .iter()
        .filter(|a| {
            ango_backends::catalog()
                .runnable(AlgorithmId::Sym(**a))
                .is_empty()
        })
        .map(|a| a.name())
        .collect();
    (!blocked.is_empty()).then(|| {
        format!(
            "Not measured (no implementation runs here; `ango list` says why): {}",
            blocked.join(", ")
        )
    })
}
