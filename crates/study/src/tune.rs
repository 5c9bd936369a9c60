//! Choosing ango's `auto` variants for the CPU at hand by measuring them
//! (`ango tune`, and the start of every run that measures `auto`).
//!
//! Feature flags say what a CPU can run, not what it runs fastest: the
//! 512-bit code that wins on one x86 core loses on another, and a variant
//! with the best long-message loop can have the worst fixed cost. So for
//! every algorithm, every variant that runs here and is meant to be
//! constant time (the default among them) is measured side by side, paired
//! ([`crate::speed::measure_group`]), in two stages:
//! 1. every candidate at 16 B and 16 KiB, both operations; one more than
//!    [`PRUNE_SLOWER`] times slower than the fastest at both lengths in
//!    both operations is left out (and named);
//! 2. the rest at every size class ([`prims::CLASSES`], 16 B … 16 KiB),
//!    each operation on its own: the fastest median is chosen, unless the
//!    default is not measurably slower (its paired ratio's interval reaches
//!    1), in which case the default stays.
//!
//! Each (operation, class) then runs its choice ([`prims::AutoTable`]).
//! The choice is cached per CPU (vendor, family, model, stepping,
//! microcode) and build of ango in the user's cache directory; a run reads
//! it back, measuring only what is missing. These measurements choose; no
//! point of a run is one of them.

use crate::speed::{measure_group, Point};
use ango_backends::prims::{self, AutoRow, AutoTable, CLASSES};
use ango_core::{Algorithm, EntryBackend, Error, Operation, Result};
use ango_harness::measure::{MeasureError, Plan};
use ango_harness::CycleCounter;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// A candidate this many times slower than the fastest at both ends of
/// stage 1, in both operations, is not measured at every class.
pub const PRUNE_SLOWER: f64 = 1.5;

/// The CPU a tuning is for, from /proc/cpuinfo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuId {
    pub vendor: String,
    pub family: String,
    pub model: String,
    pub stepping: String,
    pub microcode: String,
    pub model_name: String,
}

impl CpuId {
    pub fn here() -> CpuId {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |k: &str| {
            info.lines()
                .find_map(|l| {
                    let (key, v) = l.split_once(':')?;
                    (key.trim() == k).then(|| v.trim().to_string())
                })
                .unwrap_or_else(|| "unknown".into())
        };
        CpuId {
            vendor: field("vendor_id"),
            family: field("cpu family"),
            model: field("model"),
            stepping: field("stepping"),
            microcode: field("microcode"),
            model_name: field("model name"),
        }
    }

    /// The cache key: vendor, family, model, stepping and microcode.
    pub fn key(&self) -> String {
        let slug = |s: &str| -> String {
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect()
        };
        format!(
            "{}-f{}-m{}-s{}-u{}",
            slug(&self.vendor),
            slug(&self.family),
            slug(&self.model),
            slug(&self.stepping),
            slug(&self.microcode)
        )
    }
}

/// The build of ango that measured: a hash of its own executable, so a
/// rebuilt binary (whose code may run at other speeds) measures again.
pub fn build_id() -> String {
    use std::hash::Hasher;
    use std::io::Read;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let Ok(path) = ango_harness::env::own_exe() else {
        return "unknown".into();
    };
    let Ok(mut f) = std::fs::File::open(path) else {
        return "unknown".into();
    };
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.write(&buf[..n]),
            Err(_) => return "unknown".into(),
        }
    }
    format!("{}-{:016x}", env!("CARGO_PKG_VERSION"), h.finish())
}

/// Where tunings are cached: `$XDG_CACHE_HOME/ango/tune`, else
/// `$HOME/.cache/ango/tune`.
pub fn cache_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
    };
    Some(base.join("ango").join("tune"))
}

/// One variant's median at one point of the tuning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub variant: String,
    pub median_ns: f64,
}

/// The choice for one (algorithm, operation, size class).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub class_bytes: u64,
    pub chosen: String,
    /// The variant the CPU's feature flags pick.
    pub default: String,
    /// Every candidate measured at this class, fastest first.
    pub candidates: Vec<Candidate>,
    /// The next fastest, and its time over the chosen one's (paired, with
    /// its 95% interval): how much the choice buys.
    pub runner_up: Option<String>,
    pub margin: Option<f64>,
    pub margin_ci95_low: Option<f64>,
    pub margin_ci95_high: Option<f64>,
    /// The fastest was not measurably faster than the default, which
    /// therefore stays.
    pub kept_default: bool,
    pub rounds: u64,
    /// `measured` (by this tuning) or `cache` (read back).
    pub source: String,
}

/// A candidate left out after stage 1, with why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pruned {
    pub algorithm: Algorithm,
    pub variant: String,
    pub reason: String,
}

/// A tuning: what env.json's `tuning` holds and the cache file stores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    pub key: String,
    pub cpu: CpuId,
    pub build: String,
    /// `measured`, `cache`, or `cache+measured` (some algorithms read back,
    /// the others measured now).
    pub source: String,
    pub file: Option<String>,
    pub measured_at: String,
    /// Seconds the measuring took (0 when everything came from the cache).
    pub seconds: f64,
    pub choices: Vec<Choice>,
    pub pruned: Vec<Pruned>,
    pub summary: String,
}

impl Tuning {
    /// The table `auto` follows.
    pub fn table(&self) -> AutoTable {
        let mut rows: Vec<AutoRow> = Vec::new();
        for c in &self.choices {
            let i = match rows
                .iter()
                .position(|r| r.algorithm == c.algorithm && r.operation == c.operation)
            {
                Some(i) => i,
                None => {
                    rows.push(AutoRow {
                        algorithm: c.algorithm,
                        operation: c.operation,
                        variants: vec![String::new(); CLASSES.len()],
                        source: c.source.clone(),
                    });
                    rows.len() - 1
                }
            };
            if let Some(k) = CLASSES.iter().position(|&b| b as u64 == c.class_bytes) {
                rows[i].variants[k] = c.chosen.clone();
            }
        }
        rows.retain(|r| r.variants.iter().all(|v| !v.is_empty()));
        AutoTable { rows }
    }

    fn algorithms(&self) -> Vec<Algorithm> {
        let mut v: Vec<Algorithm> = Vec::new();
        for c in &self.choices {
            if !v.contains(&c.algorithm) {
                v.push(c.algorithm);
            }
        }
        v
    }

    /// Has every (operation, class) of `a`.
    fn covers(&self, a: Algorithm) -> bool {
        [Operation::Encrypt, Operation::Decrypt].iter().all(|&op| {
            CLASSES.iter().all(|&b| {
                self.choices
                    .iter()
                    .any(|c| c.algorithm == a && c.operation == op && c.class_bytes == b as u64)
            })
        })
    }

    fn summarise(&mut self) {
        let off_default = self
            .choices
            .iter()
            .filter(|c| c.chosen != c.default)
            .count();
        self.summary = format!(
            "{} ({}) for {} algorithm{}: {} of {} (operation, size class) choices differ from \
             the feature flags' default; cache key {}",
            match self.source.as_str() {
                "cache" => "read back from the cache",
                "measured" => "measured at the start of the run",
                _ => "partly read back, partly measured",
            },
            self.file.as_deref().unwrap_or("not cached"),
            self.algorithms().len(),
            if self.algorithms().len() == 1 {
                ""
            } else {
                "s"
            },
            off_default,
            self.choices.len(),
            self.key
        );
    }
}

/// How to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub algorithms: Vec<Algorithm>,
    /// Shorter measurements (`--quick`).
    pub quick: bool,
    /// Measure even what the cache has (`ango tune`).
    pub fresh: bool,
    /// Read and write the cache.
    pub cache: bool,
}

/// The algorithms of `wanted` whose `auto` has more than one candidate
/// (the others have nothing to choose).
pub fn tunable(wanted: &[Algorithm]) -> Vec<Algorithm> {
    wanted
        .iter()
        .copied()
        .filter(|&a| prims::default_variant(a).is_some())
        .collect()
}

fn plan(quick: bool) -> Plan {
    let secs = if quick { 0.008 } else { 0.025 };
    Plan {
        warmup: Duration::from_millis(if quick { 2 } else { 5 }),
        min_sample: Duration::from_micros(if quick { 100 } else { 200 }),
        min_samples: 10,
        budgets: 1,
        ..Plan::with_time(secs)
    }
}

/// Tune `opts.algorithms` (those with candidates): read the cache, measure
/// what it lacks (reporting each algorithm to `say`), write the cache back,
/// and set the table `auto` follows. Ok(None) when Ctrl-C stopped it.
pub fn prepare(opts: &TuneOptions, say: &mut dyn FnMut(&str)) -> Result<Option<Tuning>> {
    let cpu = CpuId::here();
    let key = cpu.key();
    let build = build_id();
    let file = cache_dir().map(|d| d.join(format!("{key}.json")));
    let cached: Option<Tuning> = match (&file, opts.cache) {
        (Some(f), true) => std::fs::read_to_string(f)
            .ok()
            .and_then(|t| serde_json::from_str::<Tuning>(&t).ok())
            .filter(|t| t.build == build && t.key == key),
        _ => None,
    };
    let wanted = tunable(&opts.algorithms);
    let mut choices: Vec<Choice> = Vec::new();
    let mut pruned: Vec<Pruned> = Vec::new();
    let mut from_cache = 0usize;
    let mut missing = Vec::new();
    for &a in &wanted {
        match &cached {
            Some(c) if !opts.fresh && c.covers(a) => {
                from_cache += 1;
                choices.extend(c.choices.iter().filter(|x| x.algorithm == a).cloned().map(
                    |mut x| {
                        x.source = "cache".into();
                        x
                    },
                ));
                pruned.extend(c.pruned.iter().filter(|p| p.algorithm == a).cloned());
            }
            _ => missing.push(a),
        }
    }
    let started = std::time::Instant::now();
    let cc = CycleCounter::open();
    for &a in &missing {
        say(&format!(
            "tuning {a}: {} candidates",
            prims::auto_candidates(a).len()
        ));
        match tune_algorithm(a, opts.quick, &cc)? {
            Some((c, p)) => {
                choices.extend(c);
                pruned.extend(p);
            }
            None => return Ok(None),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let source = match (from_cache, missing.len()) {
        (_, 0) => "cache",
        (0, _) => "measured",
        _ => "cache+measured",
    };
    let mut t = Tuning {
        key,
        cpu,
        build,
        source: source.into(),
        file: file.as_ref().map(|f| f.display().to_string()),
        measured_at: ango_core::results::utc_now().0,
        seconds,
        choices,
        pruned,
        summary: String::new(),
    };
    if let (Some(f), true, false) = (&file, opts.cache, missing.is_empty()) {
        // Keep what the cache had of other algorithms.
        let mut stored = t.clone();
        if let Some(c) = &cached {
            for a in c.algorithms() {
                if !stored.algorithms().contains(&a) && c.covers(a) {
                    stored
                        .choices
                        .extend(c.choices.iter().filter(|x| x.algorithm == a).cloned());
                    stored
                        .pruned
                        .extend(c.pruned.iter().filter(|p| p.algorithm == a).cloned());
                }
            }
        }
        for c in &mut stored.choices {
            c.source = "measured".into();
        }
        stored.source = "measured".into();
        stored.summarise();
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let tmp = f.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(&stored).expect("a tuning serialises");
        if std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, f))
            .is_err()
        {
            say(&format!("cannot write the tuning cache {}", f.display()));
        }
    }
    if !opts.cache {
        t.file = None;
    }
    t.summarise();
    prims::set_auto_table(Some(t.table()));
    Ok(Some(t))
}

/// The medians of one group run, by candidate (None for one that failed).
fn medians(run: &crate::speed::GroupRun) -> Vec<Option<f64>> {
    run.results
        .iter()
        .map(|r| r.as_ref().ok().map(|m| m.ns.median))
        .collect()
}

/// Measure `a`'s candidates: stage 1 at both ends, stage 2 at every class
/// with those left. None when interrupted.
#[allow(clippy::type_complexity)]
fn tune_algorithm(
    a: Algorithm,
    quick: bool,
    cc: &CycleCounter,
) -> Result<Option<(Vec<Choice>, Vec<Pruned>)>> {
    let catalog = ango_backends::catalog();
    let default = prims::default_variant(a).expect("tunable");
    let mut pruned = Vec::new();
    // Only candidates that pass their known answers here are measured.
    let mut names = Vec::new();
    for v in prims::auto_candidates(a) {
        let e = catalog.entry(&format!("{}/{}/{v}", prims::PROVIDER.name, a.name()))?;
        let checked = ango_verify::kat::before_timing(&EntryBackend(e), a)?;
        if checked.ok() {
            names.push(v);
        } else {
            pruned.push(Pruned {
                algorithm: a,
                variant: v,
                reason: format!("fails its checks: {}", checked.summary()),
            });
        }
    }
    let entries: Vec<EntryBackend> = names
        .iter()
        .map(|v| {
            catalog
                .entry(&format!("{}/{}/{v}", prims::PROVIDER.name, a.name()))
                .map(EntryBackend)
        })
        .collect::<Result<_>>()?;
    let plan = plan(quick);
    let aad = crate::speed::DEFAULT_AAD;
    let ops = [Operation::Encrypt, Operation::Decrypt];
    let run = |group: &[&dyn ango_core::Backend], op: Operation, size: usize| {
        let at = Point { a, op, size, aad };
        match measure_group(group, at, &plan, cc) {
            Ok(r) => Ok(Some(r)),
            Err(MeasureError::Interrupted) => Ok(None),
            Err(MeasureError::Op(e)) => Err(e),
            Err(MeasureError::Pin(e)) => Err(Error::Usage(format!("cannot pin to {e}"))),
        }
    };
    // Stage 1.
    let all: Vec<&dyn ango_core::Backend> = entries
        .iter()
        .map(|e| e as &dyn ango_core::Backend)
        .collect();
    let mut keep = vec![names.len() <= 2; names.len()];
    if names.len() > 2 {
        let ends = [CLASSES[0], CLASSES[CLASSES.len() - 1]];
        let mut worst_gap = vec![f64::INFINITY; names.len()];
        for &op in &ops {
            for &size in &ends {
                let Some(r) = run(&all, op, size)? else {
                    return Ok(None);
                };
                let m = medians(&r);
                let best = m.iter().flatten().fold(f64::INFINITY, |x, &y| x.min(y));
                for (i, mi) in m.iter().enumerate() {
                    if let Some(mi) = mi {
                        worst_gap[i] = worst_gap[i].min(mi / best);
                    }
                }
            }
        }
        for (i, g) in worst_gap.iter().enumerate() {
            keep[i] = *g <= PRUNE_SLOWER || names[i] == default;
            if !keep[i] {
                pruned.push(Pruned {
                    algorithm: a,
                    variant: names[i].clone(),
                    reason: if g.is_finite() {
                        format!("≥ {g:.2}× the fastest at 16 B and 16 KiB")
                    } else {
                        "failed when measured".into()
                    },
                });
            }
        }
    }
    // Stage 2.
    let left: Vec<usize> = (0..names.len()).filter(|&i| keep[i]).collect();
    let group: Vec<&dyn ango_core::Backend> = left.iter().map(|&i| all[i]).collect();
    let mut choices = Vec::new();
    for &op in &ops {
        for &size in &CLASSES {
            let one = group.len() == 1;
            let r = if one {
                None
            } else {
                let Some(r) = run(&group, op, size)? else {
                    return Ok(None);
                };
                Some(r)
            };
            choices.push(choose(a, op, size, &default, &left, &names, r.as_ref()));
        }
    }
    Ok(Some((choices, pruned)))
}

/// The choice at one (operation, class) from its group run (None: a single
/// candidate, chosen unmeasured).
fn choose(
    a: Algorithm,
    op: Operation,
    size: usize,
    default: &str,
    left: &[usize],
    names: &[String],
    run: Option<&crate::speed::GroupRun>,
) -> Choice {
    use ango_harness::stats::paired_ratio;
    let mut c = Choice {
        algorithm: a,
        operation: op,
        class_bytes: size as u64,
        chosen: default.to_string(),
        default: default.to_string(),
        candidates: Vec::new(),
        runner_up: None,
        margin: None,
        margin_ci95_low: None,
        margin_ci95_high: None,
        kept_default: false,
        rounds: 0,
        source: "measured".into(),
    };
    let Some(run) = run else {
        if let Some(&i) = left.first() {
            c.chosen = names[i].clone();
        }
        return c;
    };
    c.rounds = run.rounds as u64;
    // Paired ratios over the rounds outside spells.
    let quiet = ango_harness::measure::quiet_rounds(&run.disturbed);
    let at = |m: &ango_harness::Measured| {
        ango_harness::measure::at_rounds(&m.sample_ns, quiet.as_deref())
    };
    let mut ranked: Vec<(usize, &ango_harness::Measured)> = run
        .results
        .iter()
        .enumerate()
        .filter_map(|(j, r)| r.as_ref().ok().map(|m| (j, m)))
        .collect();
    ranked.sort_by(|x, y| x.1.ns.median.total_cmp(&y.1.ns.median));
    c.candidates = ranked
        .iter()
        .map(|(j, m)| Candidate {
            variant: names[left[*j]].clone(),
            median_ns: m.ns.median,
        })
        .collect();
    let Some(&(best_j, best)) = ranked.first() else {
        return c;
    };
    let name = |j: usize| names[left[j]].clone();
    c.chosen = name(best_j);
    // The default stays unless it is measurably slower.
    if c.chosen != default {
        if let Some(&(_, dm)) = ranked.iter().find(|(j, _)| name(*j) == default) {
            let slower = paired_ratio(&at(dm), &at(best));
            if slower.is_none_or(|r| r.ci95_low <= 1.0) {
                c.chosen = default.to_string();
                c.kept_default = true;
            }
        }
    }
    let chosen_m = ranked
        .iter()
        .find(|(j, _)| name(*j) == c.chosen)
        .map(|(_, m)| *m)
        .expect("the chosen one was measured");
    if let Some(&(rj, rm)) = ranked.iter().find(|(j, _)| name(*j) != c.chosen) {
        c.runner_up = Some(name(rj));
        if let Some(r) = paired_ratio(&at(rm), &at(chosen_m)) {
            c.margin = Some(r.ratio);
            c.margin_ci95_low = Some(r.ci95_low);
            c.margin_ci95_high = Some(r.ci95_high);
        }
    }
    c
}

/// The terminal view of a tuning: one line per (algorithm, operation), the
/// variant of each class (`=` where it is the default), then the pruned.
pub fn text(t: &Tuning) -> String {
    let mut out = format!(
        "Tuning for {} (family {}, model {}, stepping {}, microcode {}); {}\n",
        t.cpu.model_name, t.cpu.family, t.cpu.model, t.cpu.stepping, t.cpu.microcode, t.source
    );
    if let Some(f) = &t.file {
        out.push_str(&format!("cache: {f}\n"));
    }
    if t.seconds > 0.0 {
        out.push_str(&format!("measured in {:.1} s\n", t.seconds));
    }
    out.push_str(
        "Per size class: the variant chosen, and the runner-up's time over it (paired, 95% \
         interval); '=' marks the feature flags' default, '(kept)' a default kept because the \
         fastest was not measurably faster.\n",
    );
    let mut last = None;
    for c in &t.choices {
        if last != Some((c.algorithm, c.operation)) {
            last = Some((c.algorithm, c.operation));
            out.push_str(&format!(
                "{} {} (default {})\n",
                c.algorithm,
                c.operation.name(),
                c.default
            ));
        }
        let margin = match (c.margin, c.margin_ci95_low, c.margin_ci95_high) {
            (Some(m), Some(lo), Some(hi)) => format!(
                "{m:.2}× [{lo:.2}–{hi:.2}] over {}",
                c.runner_up.as_deref().unwrap_or("-")
            ),
            _ => "only candidate".into(),
        };
        out.push_str(&format!(
            "  {:>6} B  {}{}  {margin}{}\n",
            c.class_bytes,
            if c.chosen == c.default { "= " } else { "  " },
            c.chosen,
            if c.kept_default { " (kept)" } else { "" }
        ));
    }
    let mut algos: Vec<Algorithm> = Vec::new();
    for p in &t.pruned {
        if !algos.contains(&p.algorithm) {
            algos.push(p.algorithm);
        }
    }
    for a in algos {
        let parts: Vec<String> = t
            .pruned
            .iter()
            .filter(|p| p.algorithm == a)
            .map(|p| format!("{} ({})", p.variant, p.reason))
            .collect();
        out.push_str(&format!(
            "{a}, not measured at every class: {}\n",
            parts.join("; ")
        ));
    }
    fit_lines(&out)
}

/// Lines no wider than 100 characters: a longer one breaks at its last
/// space before the limit and goes on indented.
fn fit_lines(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let mut rest: String = line.to_string();
        let mut first = true;
        loop {
            let limit = if first { 100 } else { 94 };
            let lead = if first { "" } else { "      " };
            if rest.chars().count() <= limit {
                out.push_str(&format!("{lead}{rest}\n"));
                break;
            }
            let cut: String = rest.chars().take(limit).collect();
            let at = cut.rfind(' ').filter(|&i| i > 0).unwrap_or(cut.len());
            out.push_str(&format!("{lead}{}\n", &rest[..at]));
            rest = rest[at..].trim_start().to_string();
            first = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_names_the_cpu_and_is_a_file_name() {
        let c = CpuId {
            vendor: "AuthenticAMD".into(),
            family: "25".into(),
            model: "17".into(),
            stepping: "1".into(),
            microcode: "0x1000065".into(),
            model_name: "AMD EPYC".into(),
        };
        assert_eq!(c.key(), "AuthenticAMD-f25-m17-s1-u0x1000065");
        let here = CpuId::here().key();
        assert!(here
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "-_".contains(ch)));
    }

    #[test]
    fn a_tuning_chooses_per_class_caches_and_is_read_back() {
        let dir = std::env::temp_dir().join(format!("ango-tune-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // No other test of this crate reads the cache directory.
        std::env::set_var("XDG_CACHE_HOME", &dir);
        let opts = TuneOptions {
            algorithms: vec![Algorithm::Aes128Ctr],
            quick: true,
            fresh: false,
            cache: true,
        };
        let t = prepare(&opts, &mut |_| {}).unwrap().unwrap();
        assert_eq!(t.source, "measured");
        // Both operations at every class, each naming a candidate.
        assert_eq!(t.choices.len(), 2 * CLASSES.len());
        let cands = prims::auto_candidates(Algorithm::Aes128Ctr);
        for c in &t.choices {
            assert!(cands.contains(&c.chosen), "{c:?}");
            assert!(!c.chosen.contains("nct"));
        }
        let table = t.table();
        assert_eq!(table.rows.len(), 2);
        assert_eq!(prims::auto_table().as_deref(), Some(&table));
        // Read back, measuring nothing.
        let again = prepare(&opts, &mut |_| panic!("measured again"))
            .unwrap()
            .unwrap();
        assert_eq!(again.source, "cache");
        let variants = |t: &AutoTable| -> Vec<Vec<String>> {
            t.rows.iter().map(|r| r.variants.clone()).collect()
        };
        assert_eq!(variants(&again.table()), variants(&table));
        assert!(again.table().rows.iter().all(|r| r.source == "cache"));
        let file = again.file.clone().unwrap();
        assert!(file.starts_with(dir.to_str().unwrap()), "{file}");
        // Another algorithm joins the same file; the first stays.
        let more = TuneOptions {
            algorithms: vec![Algorithm::Aes128Ctr, Algorithm::Aes128Ecb],
            ..opts.clone()
        };
        let both = prepare(&more, &mut |_| {}).unwrap().unwrap();
        assert_eq!(both.source, "cache+measured");
        let stored: Tuning =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert!(stored.covers(Algorithm::Aes128Ctr) && stored.covers(Algorithm::Aes128Ecb));
        // A record of `auto` names the variant of its class.
        let pick = prims::auto_pick(Algorithm::Aes128Ecb, Operation::Decrypt, 300);
        assert_eq!(pick.class_bytes, 256);
        assert_eq!(pick.chosen_by, "measured");
        prims::set_auto_table(None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
