//! `ango ct` and the constant-time pass of `ango run`.

use crate::args::CtArgs;
use crate::driver::*;
use crate::sink::ParentSink;
use ango_core::results::utc_now;
use ango_core::{Error, Result};
use ango_report::data::ReportData;
use ango_report::export::Format;

/// Measurements per dudect run: full, and `--quick` (also `ango run`'s pass).
pub(crate) const CT_MEASUREMENTS: [usize; 2] = [200_000, 20_000];

/// `ango run`'s constant-time pass: every target, memcheck where valgrind
/// runs it, dudect with `--quick`'s measurements; each record kept as it
/// comes. Returns whether Ctrl-C stopped it.
pub(crate) fn run_ct_pass(
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

pub(crate) fn ct_cmd(a: &CtArgs) -> Result<i32> {
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
            records: ango_core::Records {
                ct: records.clone(),
                ..Default::default()
            },
            ..Default::default()
        };
        print_exported(&data, format);
    }
    Ok(ct_verdict(&records, table))
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
