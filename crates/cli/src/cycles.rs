//! `ango cycles`: seed 002's study — cycles per key schedule (its Table 4)
//! and per block, encryption and decryption (its Table 5), each call's
//! output the next call's input, beside the throughput per block of the
//! same implementation; the implementations' table bytes beside this CPU's
//! L1d; seed 002's findings checked here.

use crate::args::{list, parse_num, CyclesArgs};
use crate::commands::capture_env;
use ango_core::algo::names;
use ango_core::cycles::CyclesRecord;
use ango_core::results::{utc_now, ResultsDir, ENV, RESULTS};
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
        match self.format.as_str() {
            "table" | "json" => {}
            f => {
                return Err(Error::usage(format!(
                    "unknown format '{f}'; valid: table, json"
                )))
            }
        }
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
    let json = a.format == "json";
    let (ts, _) = utc_now();
    let run_id = format!(
        "{}-{}",
        ts.replace([':', '-'], ""),
        ango_harness::env::hostname()
    );
    let dir = match &a.out {
        Some(p) => Some(ResultsDir::create_new(p)?),
        None => None,
    };
    crate::commands::install_interrupt_handler();
    let env = capture_env(&run_id);
    if let Some(d) = &dir {
        d.write_json(ENV, &env)?;
    }
    let (records, failed, interrupted) = measure_all(&spec, &run_id, dir.as_ref(), !json)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&records).expect("records serialise")
        );
    } else {
        print!("{}", render(&records, &spec));
    }
    if interrupted {
        eprintln!(
            "ango: interrupted; the {} points measured so far are kept",
            records.len()
        );
        return Ok(130);
    }
    if failed > 0 {
        eprintln!("ango: {failed} implementations failed their checks and were not timed");
        return Ok(1);
    }
    Ok(0)
}

/// Check and time every entry of `spec`, writing each record the moment
/// it is made. Returns the records, the number of entries that failed
/// their checks, and whether the run was interrupted.
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
            eprintln!("ango: not measured: {s}");
        }
    }
    for id in &spec.entries {
        if ango_harness::measure::stop_requested() {
            return Ok((out, failed, true));
        }
        let e = catalog.entry(id)?;
        let AlgorithmId::Sym(algo) = e.algorithm else {
            continue;
        };
        let checked = ango_verify::kat::before_timing(&EntryBackend(e), algo)?;
        if !checked.ok() {
            failed += 1;
            eprintln!(
                "ango: {} {}: {} — not timed",
                e.label(),
                algo,
                checked.summary()
            );
            for f in &checked.kat.failures {
                eprintln!("    {f}");
            }
            continue;
        }
        if show {
            eprintln!(
                "ango: timing {} {} ({})",
                algo,
                e.label(),
                checked.summary()
            );
        }
        match ango_study::cycles::measure(e, &spec.plan, &cc, run_id, &checked.kat.summary()) {
            Ok(rs) => {
                for r in rs {
                    if let Some(d) = dir {
                        d.append(RESULTS, &r)?;
                    }
                    out.push(r);
                }
            }
            Err(Error::Usage(m)) if m == "interrupted" => return Ok((out, failed, true)),
            Err(Error::Unsupported(m)) => {
                if show {
                    eprintln!("ango: not measured: {m}");
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok((out, failed, false))
}

/// The record of one point, if measured.
fn find<'a>(
    rs: &'a [CyclesRecord],
    algo: &str,
    backend: &str,
    imp: &str,
    op: &str,
    chained: bool,
) -> Option<&'a CyclesRecord> {
    rs.iter().find(|r| {
        r.algorithm == algo
            && r.backend == backend
            && r.implementation == imp
            && r.operation == op
            && r.chained == chained
    })
}

fn cell(r: Option<&CyclesRecord>) -> String {
    match r {
        Some(r) => match r.cycles_per_op {
            Some(c) => format!(
                "{c:.0}{}",
                if r.chain == "via-one-block" { "+" } else { "" }
            ),
            None => format!("{:.1}ns", r.stats.median),
        },
        None => "-".into(),
    }
}

/// The (cipher, backend, implementation) rows of the records, in order.
fn rows(rs: &[CyclesRecord]) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = Vec::new();
    for r in rs {
        let k = (
            r.cipher.clone(),
            r.backend.clone(),
            r.implementation.clone(),
        );
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// The algorithm of `cipher` with a `bits`-bit key among the records.
fn algo_of(rs: &[CyclesRecord], cipher: &str, bits: u32) -> Option<String> {
    rs.iter()
        .find(|r| r.cipher == cipher && r.key_bits == bits)
        .map(|r| r.algorithm.clone())
}

/// Seed 002's Core i7 960 x64 figures (its Tables 4 and 5; another
/// machine, shown for reference): (implementation, key schedule
/// 128/192/256, encryption 128/192-256).
const SEED_CAMELLIA_X64: &[(&str, [u32; 3], [u32; 2])] = &[
    ("NTT optimised code", [340, 491, 482], [525, 692]),
    ("32-bit fast", [133, 210, 209], [483, 649]),
    ("64-bit fast", [99, 140, 152], [481, 659]),
];

/// Tables 4 and 5 as measured, the table bytes beside L1d, and the seed's
/// findings checked.
pub fn render(rs: &[CyclesRecord], spec: &CyclesSpec) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let source = rs.first().map(|r| r.cycle_source.as_str()).unwrap_or("tsc");
    let unit = if source == "perf" {
        "core cycles"
    } else {
        "TSC ticks (a fixed rate, not the core clock)"
    };
    let rows = rows(rs);
    let _ = writeln!(
        s,
        "Table 4 (seed 002): key schedule, {unit} per schedule, chained (median)"
    );
    let _ = writeln!(
        s,
        "{:<16} {:<10} {:<46} {:>8} {:>8} {:>8}",
        "cipher", "backend", "implementation", "128", "192", "256"
    );
    for (c, b, i) in &rows {
        let cells: Vec<String> = [128, 192, 256]
            .iter()
            .map(|&bits| {
                cell(algo_of(rs, c, bits).and_then(|a| find(rs, &a, b, i, "key-schedule", true)))
            })
            .collect();
        let _ = writeln!(
            s,
            "{c:<16} {b:<10} {:<46} {:>8} {:>8} {:>8}",
            short(i),
            cells[0],
            cells[1],
            cells[2]
        );
    }
    let _ = writeln!(
        s,
        "  (+: the library hides its expanded key; chained through one block encrypted under \
         the new key, which the figure includes)"
    );
    let _ = writeln!(
        s,
        "\nTable 5 (seed 002): {unit} per block (MUGI: per 128 bits of keystream), encryption / \
         decryption chained, and encryption over independent blocks (16 KiB ECB) — what \
         pipelining buys"
    );
    let _ = writeln!(
        s,
        "{:<16} {:<10} {:<46} {:>17} {:>17} {:>17}",
        "cipher",
        "backend",
        "implementation",
        "128 enc/dec/thr",
        "192 enc/dec/thr",
        "256 enc/dec/thr"
    );
    for (c, b, i) in &rows {
        let cells: Vec<String> = [128, 192, 256]
            .iter()
            .map(|&bits| match algo_of(rs, c, bits) {
                None => "-".into(),
                Some(a) => format!(
                    "{}/{}/{}",
                    cell(find(rs, &a, b, i, "encrypt", true)),
                    cell(find(rs, &a, b, i, "decrypt", true)),
                    cell(find(rs, &a, b, i, "encrypt", false))
                ),
            })
            .collect();
        let _ = writeln!(
            s,
            "{c:<16} {b:<10} {:<46} {:>17} {:>17} {:>17}",
            short(i),
            cells[0],
            cells[1],
            cells[2]
        );
    }
    let l1d = rs.iter().find_map(|r| r.l1d_bytes);
    let _ = writeln!(
        s,
        "\nTable bytes of each implementation beside this CPU's L1d ({}):",
        l1d.map(|b| format!("{} KiB per core", b / 1024))
            .unwrap_or_else(|| "unknown".into())
    );
    for (c, b, i) in &rows {
        if let Some(t) = rs
            .iter()
            .find(|r| &r.cipher == c && &r.backend == b && &r.implementation == i)
            .and_then(|r| r.table_bytes)
        {
            let frac = l1d
                .map(|l| format!(" ({:.0}% of L1d)", 100.0 * t as f64 / l as f64))
                .unwrap_or_default();
            let _ = writeln!(s, "  {c:<16} {b:<10} {:<46} {t:>6} B{frac}", short(i));
        }
    }
    let _ = writeln!(s, "\nSeed 002's findings, checked here:");
    for line in findings(rs) {
        let _ = writeln!(s, "  {line}");
    }
    let _ = writeln!(
        s,
        "\nSeed 002's own Camellia figures (Core i7 960 x64, clock cycles; another machine, for \
         reference): key schedule 128/192/256, encryption 128/192-256"
    );
    for (n, ks, enc) in SEED_CAMELLIA_X64 {
        let _ = writeln!(
            s,
            "  {n:<20} {:>5} {:>5} {:>5}   {:>5} {:>5}",
            ks[0], ks[1], ks[2], enc[0], enc[1]
        );
    }
    let _ = writeln!(
        s,
        "  Seed 002's 32-bit platforms (x86, WOW64) are not measured: no 32-bit Rust target is \
         installed here, so its 32-bit builds cannot be made."
    );
    let blocked: Vec<String> = spec
        .algorithms
        .iter()
        .filter(|a| {
            ango_backends::catalog()
                .runnable(AlgorithmId::Sym(**a))
                .is_empty()
        })
        .map(|a| a.name().to_string())
        .collect();
    if !blocked.is_empty() {
        let _ = writeln!(
            s,
            "  Not measured (no implementation runs here; `ango list` says why): {}",
            blocked.join(", ")
        );
    }
    s
}

fn short(i: &str) -> String {
    if i.chars().count() > 46 {
        let t: String = i.chars().take(45).collect();
        format!("{t}…")
    } else {
        i.to_string()
    }
}

/// Seed 002's two claims, checked on these records: "64-bit fast beats
/// 32-bit fast on x64" (chained encryption, per cipher and key size) and
/// "the 64-bit Camellia key schedule is the fastest".
pub fn findings(rs: &[CyclesRecord]) -> Vec<String> {
    let mut out = Vec::new();
    let med = |r: &CyclesRecord| r.cycles_per_op.unwrap_or(r.stats.median);
    for cipher in [
        "camellia",
        "sc2000",
        "hierocrypt3",
        "cipherunicorn-a",
        "mugi",
    ] {
        for bits in [128, 192, 256] {
            let Some(a) = algo_of(rs, cipher, bits) else {
                continue;
            };
            let imp = |v: &str| format!("{cipher}/{v}");
            let (Some(t64), Some(t32)) = (
                find(rs, &a, "ango", &imp("table64-nct"), "encrypt", true),
                find(rs, &a, "ango", &imp("table32-nct"), "encrypt", true),
            ) else {
                continue;
            };
            let (x, y) = (med(t64), med(t32));
            out.push(format!(
                "\"64-bit fast beats 32-bit fast on x64\", {a} encryption: {} here \
                 (table64 {x:.0}, table32 {y:.0}; ×{:.2})",
                if x < y { "holds" } else { "does not hold" },
                y / x
            ));
        }
    }
    for bits in [128, 192, 256] {
        let Some(a) = algo_of(rs, "camellia", bits) else {
            continue;
        };
        let mut ks: Vec<&CyclesRecord> = rs
            .iter()
            .filter(|r| r.algorithm == a && r.operation == "key-schedule")
            .collect();
        ks.sort_by(|x, y| med(x).total_cmp(&med(y)));
        let Some(best) = ks.first() else { continue };
        let t64 = ks
            .iter()
            .position(|r| r.implementation == "camellia/table64-nct");
        out.push(format!(
            "\"64-bit Camellia key schedule fastest\", {a}: {} here (fastest: {} {} {:.0}{})",
            match t64 {
                Some(0) => "holds".to_string(),
                Some(k) => format!("does not hold (table64 is #{} of {})", k + 1, ks.len()),
                None => "not measured".to_string(),
            },
            best.backend,
            best.implementation,
            med(best),
            if best.chain == "via-one-block" {
                "+"
            } else {
                ""
            }
        ));
    }
    out
}
