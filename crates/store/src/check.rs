//! `ango check`: what got slower or faster on one testbed between a
//! candidate run and a baseline (one run, the run before, or the stored
//! history), point by point.
//!
//! A point is compared with the Mann-Whitney U test on its raw samples
//! when both sides have at least [`MIN_SAMPLES`]; otherwise by whether
//! the two 95% intervals of the median overlap. The p-values of all the
//! points tested are adjusted together (Benjamini–Hochberg), because a
//! check compares thousands of points at once and 5% of them would come
//! out "significant" by chance. A change counts only when it is
//! significant *and* at least `--min-change` in size (pyperf's habit: a
//! real 0.3% difference is not a regression anyone acts on).

use crate::db::Conn;
use crate::mwu;
use crate::point::Better;
use crate::select::{self, Filter, Row};
use ango_core::{Error, Result};
use ango_harness::stats::quantile_sorted;
use std::collections::BTreeMap;

/// The fewest raw samples on each side for the rank test.
pub const MIN_SAMPLES: usize = 9;

/// What the candidate is compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// One stored run (its id, or a unique prefix).
    Run(String),
    /// The testbed's run just before the candidate.
    Previous,
    /// The testbed's runs before the candidate (the last N, or all).
    History(Option<usize>),
}

pub const BASELINE_FORMS: &str = "RUN_ID (or a unique prefix), previous, history, history:N";

impl Baseline {
    pub fn parse(s: &str) -> Result<Baseline> {
        match s {
            "" => Err(Error::usage(format!(
                "--baseline: empty; valid: {BASELINE_FORMS}"
            ))),
            "previous" => Ok(Baseline::Previous),
            "history" => Ok(Baseline::History(None)),
            s => match s.strip_prefix("history:") {
                Some(n) => match n.parse::<usize>() {
                    Ok(n) if n > 0 => Ok(Baseline::History(Some(n))),
                    _ => Err(Error::usage(format!(
                        "--baseline {s}: N must be a whole number above 0; valid: {BASELINE_FORMS}"
                    ))),
                },
                None => Ok(Baseline::Run(
                    s.strip_prefix("run:").unwrap_or(s).to_string(),
                )),
            },
        }
    }
}

#[derive(Clone, Debug)]
pub struct Spec {
    /// The testbed's fingerprint, or a unique prefix of it.
    pub testbed: String,
    /// The run checked; the testbed's newest when none.
    pub candidate: Option<String>,
    pub baseline: Baseline,
    /// The smallest change that counts, as a fraction (0.05 = 5%).
    pub min_change: f64,
    /// The false discovery rate the adjusted p-values are held to.
    pub alpha: f64,
    pub filters: Vec<Filter>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Slower,
    Faster,
    /// Significant, but smaller than `--min-change`.
    Negligible,
    /// No significant difference.
    Same,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Negligible => "negligible",
            Verdict::Same => "same",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Change {
    pub key: String,
    pub metric: String,
    pub unit: String,
    pub baseline: f64,
    pub candidate: f64,
    /// candidate / baseline − 1.
    pub change: f64,
    /// `mann-whitney (exact)`, `mann-whitney (normal approximation)`
    /// or `interval overlap`.
    pub test: String,
    pub p: Option<f64>,
    pub p_adjusted: Option<f64>,
    pub n_baseline: usize,
    pub n_candidate: usize,
    pub verdict: Verdict,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub testbed: String,
    pub testbed_description: String,
    pub candidate: String,
    pub baseline_runs: Vec<String>,
    pub changes: Vec<Change>,
    /// Points of the candidate the baseline lacks, and the reverse.
    pub only_candidate: usize,
    pub only_baseline: usize,
    /// What differs between the sides besides the code (kernel, library
    /// versions).
    pub notes: Vec<String>,
}

impl Outcome {
    pub fn regressions(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| c.verdict == Verdict::Slower)
            .count()
    }
}

/// The testbed a prefix names: exactly one.
pub fn resolve_testbed(c: &mut dyn Conn, prefix: &str) -> Result<(String, String)> {
    let all = c.query(
        "SELECT testbed, description FROM testbeds ORDER BY testbed",
        &[],
    )?;
    let hits: Vec<&Vec<crate::Value>> = all
        .iter()
        .filter(|r| r[0].text().starts_with(prefix))
        .collect();
    let list = || {
        all.iter()
            .map(|r| format!("{} ({})", r[0].text(), r[1].text()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match hits.as_slice() {
        [one] => Ok((one[0].text(), one[1].text())),
        [] if all.is_empty() => Err(Error::usage(
            "the store holds no runs yet; `ango import DIR` first",
        )),
        [] => Err(Error::usage(format!(
            "--testbed {prefix}: no such testbed; valid: {}",
            list()
        ))),
        _ => Err(Error::usage(format!(
            "--testbed {prefix}: names {} testbeds; give more of it: {}",
            hits.len(),
            list()
        ))),
    }
}

/// The testbed's runs, oldest first: (run_id, started, kernel).
fn runs_of(c: &mut dyn Conn, testbed: &str) -> Result<Vec<(String, String, String)>> {
    Ok(c.query(
        "SELECT run_id, started, kernel FROM runs WHERE testbed = $1 ORDER BY started, run_id",
        &[testbed.into()],
    )?
    .into_iter()
    .map(|r| (r[0].text(), r[1].text(), r[2].text()))
    .collect())
}

fn pick_run(runs: &[(String, String, String)], id: &str, what: &str) -> Result<usize> {
    let hits: Vec<usize> = (0..runs.len())
        .filter(|i| runs[*i].0.starts_with(id))
        .collect();
    let list = || {
        runs.iter()
            .map(|r| r.0.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::usage(format!(
            "{what} {id}: no run of this testbed has that id; its runs: {}",
            list()
        ))),
        _ => Err(Error::usage(format!(
            "{what} {id}: names {} runs of this testbed; give more of it: {}",
            hits.len(),
            list()
        ))),
    }
}

pub fn check(c: &mut dyn Conn, spec: &Spec) -> Result<Outcome> {
    let (testbed, description) = resolve_testbed(c, &spec.testbed)?;
    let runs = runs_of(c, &testbed)?;
    let cand = match &spec.candidate {
        Some(id) => pick_run(&runs, id, "--run")?,
        None => runs.len() - 1,
    };
    let base: Vec<usize> = match &spec.baseline {
        Baseline::Run(id) => {
            let b = pick_run(&runs, id, "--baseline")?;
            if b == cand {
                return Err(Error::usage(format!(
                    "--baseline {id} is the run checked ({}); name another run, previous or history",
                    runs[cand].0
                )));
            }
            vec![b]
        }
        Baseline::Previous | Baseline::History(_) if cand == 0 => {
            return Err(Error::usage(format!(
                "run {} is the testbed's first: there is no earlier run to compare it with; \
                 import one, or name a --baseline run",
                runs[cand].0
            )))
        }
        Baseline::Previous => vec![cand - 1],
        Baseline::History(n) => {
            let from = n.map_or(0, |n| cand.saturating_sub(n));
            (from..cand).collect()
        }
    };
    let mut notes = Vec::new();
    for b in &base {
        if runs[*b].2 != runs[cand].2 {
            notes.push(format!(
                "kernel {} in baseline run {}, {} in the candidate: a kernel change can move \
                 figures too",
                runs[*b].2, runs[*b].0, runs[cand].2
            ));
        }
    }
    let mut filters = spec.filters.clone();
    filters.push(Filter {
        key: "testbed".into(),
        column: "r.testbed",
        values: vec![testbed.clone()],
    });
    let rows = select::rows(c, &filters)?;
    let base_ids: Vec<&str> = base.iter().map(|b| runs[*b].0.as_str()).collect();
    let cand_id = runs[cand].0.clone();
    let mut cand_points: BTreeMap<(String, String), &Row> = BTreeMap::new();
    let mut base_points: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in &rows {
        let k = (r.point.key.clone(), r.point.metric.to_string());
        if r.run_id == cand_id {
            cand_points.insert(k, r);
        } else if base_ids.contains(&r.run_id.as_str()) {
            base_points.entry(k).or_default().push(r);
        }
    }
    let mut versions = BTreeMap::new();
    let mut changes = Vec::new();
    let mut tested = Vec::new();
    for (k, cr) in &cand_points {
        let Some(brs) = base_points.get(k) else {
            continue;
        };
        let last = brs.last().expect("a listed baseline point");
        if last.point.library_version != cr.point.library_version {
            versions.insert(
                cr.point.backend.clone(),
                (
                    last.point.library_version.clone(),
                    cr.point.library_version.clone(),
                ),
            );
        }
        let (Some(cm), Some(_)) = (cr.point.median, last.point.median) else {
            continue;
        };
        let mut medians: Vec<f64> = brs.iter().filter_map(|r| r.point.median).collect();
        medians.sort_by(f64::total_cmp);
        let bm = quantile_sorted(&medians, 0.5);
        let cs = select::samples(c, &cr.run_id, &k.0, &k.1)?.unwrap_or_default();
        let mut bs = Vec::new();
        for r in brs {
            bs.extend(select::samples(c, &r.run_id, &k.0, &k.1)?.unwrap_or_default());
        }
        let change = if bm != 0.0 { cm / bm - 1.0 } else { 0.0 };
        let mut ch = Change {
            key: k.0.clone(),
            metric: k.1.clone(),
            unit: cr.point.unit.to_string(),
            baseline: bm,
            candidate: cm,
            change,
            test: String::new(),
            p: None,
            p_adjusted: None,
            n_baseline: bs.len(),
            n_candidate: cs.len(),
            verdict: Verdict::Same,
        };
        let significant_overlap;
        if cs.len() >= MIN_SAMPLES && bs.len() >= MIN_SAMPLES {
            let t = mwu::test(&bs, &cs).expect("both sides have samples");
            ch.test = format!("mann-whitney ({})", t.method.name());
            ch.p = Some(t.p);
            tested.push(changes.len());
            significant_overlap = false;
        } else {
            ch.test = "interval overlap".into();
            let (bl, bh) = (last.point.ci95_low, last.point.ci95_high);
            let (cl, chh) = (cr.point.ci95_low, cr.point.ci95_high);
            significant_overlap = match (bl, bh, cl, chh) {
                (Some(bl), Some(bh), Some(cl), Some(chh)) => chh < bl || cl > bh,
                // No intervals (counts, byte sizes): any change is one.
                _ => cm != bm,
            };
            ch.n_baseline = ch.n_baseline.max(last.point.samples.unwrap_or(0) as usize);
        }
        changes.push((ch, significant_overlap, cr.point.better));
    }
    let ps: Vec<f64> = tested
        .iter()
        .map(|i| changes[*i].0.p.unwrap_or(1.0))
        .collect();
    for (i, adj) in tested.iter().zip(mwu::bh_adjust(&ps)) {
        changes[*i].0.p_adjusted = Some(adj);
    }
    let mut out = Vec::with_capacity(changes.len());
    for (mut ch, overlap_sig, better) in changes {
        let significant = match ch.p_adjusted {
            Some(p) => p < spec.alpha,
            None => overlap_sig,
        };
        let worse = match better {
            Better::Lower => ch.change > 0.0,
            Better::Higher => ch.change < 0.0,
        };
        ch.verdict = if !significant {
            Verdict::Same
        } else if ch.change.abs() < spec.min_change {
            Verdict::Negligible
        } else if worse {
            Verdict::Slower
        } else {
            Verdict::Faster
        };
        out.push(ch);
    }
    for (backend, (a, b)) in versions {
        notes.push(format!(
            "{backend}: library {a} in the baseline, {b} in the candidate"
        ));
    }
    let only_candidate = cand_points
        .keys()
        .filter(|k| !base_points.contains_key(*k))
        .count();
    let only_baseline = base_points
        .keys()
        .filter(|k| !cand_points.contains_key(*k))
        .count();
    Ok(Outcome {
        testbed,
        testbed_description: description,
        candidate: cand_id,
        baseline_runs: base_ids.iter().map(|s| s.to_string()).collect(),
        changes: out,
        only_candidate,
        only_baseline,
        notes,
    })
}
