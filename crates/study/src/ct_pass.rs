//! The constant-time suite (`ango ct`, and the last pass of `ango run`)
//! behind the one [`Suite`] interface: memcheck of every target valgrind
//! can run (and of the parts by which the compositions it cannot run are
//! judged), then dudect one target at a time; the positive controls at the
//! end say whether the check works on this machine at all.

use crate::ct::{self, CtRecord, Target};
use crate::{Context, Suite};
use ango_core::{Error, Result, SuiteId};

/// Measurements per dudect run: full, and `--quick` (also `ango run`'s).
pub const MEASUREMENTS: [usize; 2] = [200_000, 20_000];

/// The targets to check, dudect's measurements per run, and whether
/// memcheck runs.
pub struct CtPass {
    pub targets: Vec<Target>,
    pub measurements: usize,
    pub memcheck: bool,
}

/// A record's line: its verdict, with what memcheck found under it.
fn line(r: &CtRecord) -> String {
    let mut l = format!(
        "ct {} {} {}: memcheck {}, max |t| {:.2}: {}{}",
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
        l.push_str(&format!("\n    memcheck not run: {}", r.memcheck_detail));
    }
    for f in &r.memcheck_findings {
        l.push_str(&format!("\n    memcheck: {f}"));
    }
    if !r.parts_flagged.is_empty() {
        l.push_str(&format!(
            "\n    leaks through its parts, which memcheck flags on their own: {}",
            r.parts_flagged.join(", ")
        ));
    }
    if let Some(first) = r.first_max_abs_t {
        l.push_str(&format!(
            "\n    first run crossed ({first:.2}); measured again: {:.2}",
            r.max_abs_t
        ));
    }
    l
}

/// What the end of a pass says: each ango implementation whose `-nct`
/// label disagrees with its verdict, and the positive controls (the
/// broken ones separately: they make the run fail).
pub fn verdict_lines(records: &[CtRecord]) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    for r in records.iter().filter(|r| r.label_agrees == Some(false)) {
        lines.push(format!(
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
    let broken = ct::broken_controls(records);
    let controls = records.iter().filter(|r| r.control.is_some()).count();
    if broken.is_empty() && controls > 0 {
        lines.push(format!(
            "positive controls: {controls} of {controls} as they must be (table AES and GHASH \
             leak, bitsliced AES and ctmul GHASH constant-time)"
        ));
    }
    (lines, broken)
}

impl Suite for CtPass {
    fn id(&self) -> SuiteId {
        SuiteId::Ct
    }
    fn points(&self) -> Result<usize> {
        Ok(self.targets.len())
    }
    fn verifies(&self) -> &'static str {
        "that the positive controls come out as they must (table AES and GHASH leak, bitsliced \
         AES and ctmul GHASH do not)"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        let exe = ango_harness::env::own_exe().map_err(|e| Error::io("the ango executable", e))?;
        let mut cache = ct::MemcheckCache::new();
        // A selection's compositions are judged by parts it may leave out.
        let all = ct::targets();
        if self.memcheck {
            let mut wanted: Vec<Target> = self.targets.clone();
            for t in self
                .targets
                .iter()
                .filter(|t| t.memcheck_blocker().is_some())
            {
                for id in t.parts() {
                    if let Some(p) = all.iter().find(|x| x.id == id) {
                        if !wanted.iter().any(|w| w.id == p.id) {
                            wanted.push(p.clone());
                        }
                    }
                }
            }
            // Memcheck first, on every CPU at once (it times nothing), then
            // the timed dudect checks one at a time.
            let jobs = ango_harness::affinity::allowed_cpus().len().max(1);
            cx.say(format!(
                "ango: memcheck of {} targets under valgrind, {jobs} at a time",
                wanted.len()
            ))?;
            ct::memcheck_all(&wanted, &exe, &mut cache, jobs);
        }
        cx.say(format!(
            "ango: constant-time checks, {} targets (memcheck {}, dudect {} measurements per run, \
             |t| > {} is a leak, re-measured once)",
            self.targets.len(),
            if self.memcheck {
                "under valgrind, key and input marked secret"
            } else {
                "left out"
            },
            self.measurements,
            ct::THRESHOLD
        ))?;
        let mut made = Vec::new();
        for t in &self.targets {
            if cx.stopped() {
                return Ok(true);
            }
            let r = ct::check(
                t,
                &all,
                self.measurements,
                self.memcheck.then_some(exe.as_path()),
                cx.run_id,
                &mut cache,
            )?;
            let l = line(&r);
            made.push(r.clone());
            cx.record(r, l)?;
        }
        let (lines, broken) = verdict_lines(&made);
        for l in lines {
            cx.say(l)?;
        }
        for b in broken {
            cx.sink.event(crate::Event::Error {
                message: format!(
                    "THE CHECK IS BROKEN HERE: a positive control came out wrong: {b}"
                ),
            })?;
        }
        Ok(false)
    }
}
