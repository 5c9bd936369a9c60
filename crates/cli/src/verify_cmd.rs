//! `ango verify`: the built-in checks of every pair, a Wycheproof file or a
//! directory of vectors against every implementation.

use ango_core::{Algorithm, AlgorithmId, EntryBackend, Error, Result};
use ango_report::export::Format;
use std::path::Path;

/// One result of `ango verify`: a check of one implementation (or of an
/// algorithm's implementations together).
#[derive(serde::Serialize)]
pub(crate) struct Row {
    /// `known-answers`, `agreement`, `placement`, `pk`, `pk-cross`,
    /// `vectors` or `wycheproof`.
    pub check: &'static str,
    pub algorithm: String,
    pub implementation: String,
    /// `pass`, `FAIL`, `KNOWN DEFECT`, `unavailable` or `not run`.
    pub status: String,
    /// The counts and every failure, one sentence each.
    pub detail: String,
}

/// Where verification results go: in the table format each line is
/// printed as it comes (a long check shows its progress); in the others
/// the rows are kept and printed at the end.
pub(crate) struct Rows {
    pub format: Format,
    pub rows: Vec<Row>,
}

impl Rows {
    pub(crate) fn new(format: Format) -> Rows {
        Rows {
            format,
            rows: Vec::new(),
        }
    }

    /// A line of the table format alone (headings, totals).
    pub(crate) fn line(&self, text: impl std::fmt::Display) {
        if self.format == Format::Table {
            say!("{text}");
        }
    }

    /// A result: its line in the table format, its row in the others.
    pub(crate) fn row(&mut self, text: impl std::fmt::Display, row: Row) {
        self.line(text);
        self.rows.push(row);
    }

    /// A line under the last result (a failed case): printed in the table
    /// format, added to the last row's detail in the others.
    pub(crate) fn more(&mut self, text: impl std::fmt::Display) {
        self.line(&text);
        if let Some(r) = self.rows.last_mut() {
            let t = text.to_string();
            let t = t.trim();
            if !r.detail.is_empty() {
                r.detail.push_str("; ");
            }
            r.detail.push_str(t);
        }
    }

    /// The rows in the chosen format (nothing more in the table format,
    /// whose lines are out already).
    pub(crate) fn finish(&self, title: &str) {
        match self.format {
            Format::Table => {}
            Format::Json => println!(
                "{}",
                serde_json::to_string_pretty(&self.rows).expect("rows serialise")
            ),
            f => {
                let cells = self
                    .rows
                    .iter()
                    .map(|r| {
                        vec![
                            r.check.to_string(),
                            r.algorithm.clone(),
                            r.implementation.clone(),
                            r.status.clone(),
                            r.detail.clone(),
                        ]
                    })
                    .collect();
                let t = ango_report::table::Table::labels(
                    title,
                    &["check", "algorithm", "implementation", "status", "detail"],
                    cells,
                );
                print!("{}", ango_report::table::render("ango verify", &[t], f));
            }
        }
    }
}

fn row(
    check: &'static str,
    algorithm: &str,
    implementation: &str,
    status: &str,
    detail: impl Into<String>,
) -> Row {
    Row {
        check,
        algorithm: algorithm.to_string(),
        implementation: implementation.to_string(),
        status: status.to_string(),
        detail: detail.into(),
    }
}

pub(crate) fn verify_wycheproof(path: &Path, format: Format) -> Result<i32> {
    let json = format == Format::Json;
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
        if format == Format::Table {
            print_file_reports(&name, &file, &rs);
        }
        reports.push((name, rs));
    }
    let all: Vec<&suite::FileReport> = reports.iter().flat_map(|(_, r)| r).collect();
    let failed: usize = all.iter().map(|r| r.unexplained.len()).sum();
    if !json && format != Format::Table {
        let mut rows = Rows::new(format);
        for r in &all {
            let mut detail = format!(
                "{}: {} passed, {} failed, {} skipped, {} acceptable",
                r.file, r.passed, r.failed, r.skipped, r.acceptable
            );
            for (why, n) in &r.skip_reasons {
                detail.push_str(&format!("; skipped {n}: {why}"));
            }
            if let Some(k) = &r.known_defect {
                detail.push_str(&format!("; known defect: {k}"));
            }
            for f in &r.unexplained {
                detail.push_str(&format!("; failed: {} [{}]", f.text, f.case));
            }
            let status = if !r.unexplained.is_empty() {
                "FAIL"
            } else if r.known_defect.is_some() {
                "KNOWN DEFECT"
            } else {
                "pass"
            };
            rows.rows
                .push(row("wycheproof", &r.algorithm, &r.label, status, detail));
        }
        for r in &refused {
            rows.rows
                .push(row("wycheproof", "", "", "not read", r.clone()));
        }
        rows.finish("Wycheproof files against every implementation");
        return Ok(if failed > 0 {
            1
        } else if refused.is_empty() {
            0
        } else {
            2
        });
    }
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
    let code = print_verdict(&mut Rows::new(Format::Table), failed, &known)?;
    Ok(if code == 0 && !refused.is_empty() {
        2
    } else {
        code
    })
}

/// One file's table: per implementation its counts, the reasons of its
/// skips, and every failed case (none cut).
pub(crate) fn print_file_reports(
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
pub(crate) fn verify_vectors(path: &Path, format: Format) -> Result<i32> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::data(path.display(), format!("cannot read the vector file: {e}")))?;
    let file = ango_verify::vectors::parse(&path.display().to_string(), &text)?;
    if file.cases.is_empty() {
        return Err(Error::data(
            path.display(),
            "no cases: a vector file has [algorithm] sections with KEY = hex lines",
        ));
    }
    // A check that would run nothing must not pass (nor print a table).
    let catalog = ango_backends::catalog();
    let algorithms: Vec<Algorithm> =
        file.cases
            .iter()
            .filter_map(|c| c.algorithm)
            .fold(Vec::new(), |mut v, a| {
                if !v.contains(&a) {
                    v.push(a);
                }
                v
            });
    if algorithms
        .iter()
        .all(|a| catalog.runnable(AlgorithmId::Sym(*a)).is_empty())
    {
        let names: Vec<&str> = algorithms.iter().map(|a| a.name()).collect();
        let runs: Vec<&str> = Algorithm::ALL
            .iter()
            .filter(|a| !catalog.runnable(AlgorithmId::Sym(**a)).is_empty())
            .map(|a| a.name())
            .collect();
        return Err(Error::data(
            path.display(),
            format!(
                "no implementation here runs any of its algorithms ({}): nothing was checked; \
                 algorithms that run here: {}",
                if names.is_empty() {
                    "only primitives".to_string()
                } else {
                    names.join(", ")
                },
                runs.join(", ")
            ),
        ));
    }
    let mut out = Rows::new(format);
    for s in &file.sources {
        out.line(format!("# Source: {s}"));
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
    out.line(format!(
        "{:<24} {:<44} cases of {}",
        "algorithm",
        "backend[variant]",
        path.display()
    ));
    let mut failed = 0;
    for sec in sections {
        let n = cases.iter().filter(|(_, c)| c.section == sec).count();
        let Some(a) = cases
            .iter()
            .find(|(_, c)| c.section == sec)
            .and_then(|(_, c)| c.algorithm)
        else {
            let why = format!(
                "{n} cases of a primitive below ango's algorithms (its own tests check them)"
            );
            out.row(
                format!("{sec:<24} {:<44} not run: {why}", "ango"),
                row("vectors", sec, "ango", "not run", why),
            );
            continue;
        };
        for e in catalog.of(AlgorithmId::Sym(a)) {
            if let Err(why) = &e.available {
                out.row(
                    format!("{:<24} {:<44} unavailable: {why}", a.name(), e.label()),
                    row("vectors", a.name(), &e.label(), "unavailable", why.clone()),
                );
            }
        }
        for imp in catalog.runnable(AlgorithmId::Sym(a)) {
            let r = ango_verify::kat::run_cases(&EntryBackend(imp), a, &cases);
            let ok = r.failed == 0 && r.passed > 0;
            if !ok {
                failed += 1;
            }
            let mut line = format!("{}/{}", r.passed, r.passed + r.failed);
            if r.skipped > 0 {
                line.push_str(&format!(" ({} skipped)", r.skipped));
            }
            out.row(
                format!(
                    "{:<24} {:<44} {}{line}",
                    a.name(),
                    imp.label(),
                    if ok { "" } else { "FAIL " }
                ),
                row(
                    "vectors",
                    a.name(),
                    &imp.label(),
                    if ok { "pass" } else { "FAIL" },
                    line,
                ),
            );
            for f in r.failures.iter().chain(r.skips.iter()) {
                out.more(format!("    {f}"));
            }
        }
        if let Some(how) = a.unofficial_check() {
            out.more(format!("    {a}: {how}"));
        }
    }
    out.line(format!("\n{failed} failed"));
    out.finish(&format!("{} against every implementation", path.display()));
    Ok(if failed == 0 { 0 } else { 1 })
}

/// Every failed case of a Wycheproof file, one line each, none cut.
pub(crate) fn print_failures(failures: &[String]) {
    for f in failures {
        say!("      failed: {f}");
    }
}

pub(crate) fn verify(format: Format) -> Result<i32> {
    let mut out = Rows::new(format);
    let mut failed = 0;
    let mut known = Known::default();
    out.line(format!(
        "{:<18} {:<44} known-answer tests; Wycheproof (the checks before timing)",
        "algorithm", "backend[variant]"
    ));
    for &a in Algorithm::ALL {
        let catalog = ango_backends::catalog();
        for e in catalog.of(AlgorithmId::Sym(a)) {
            if let Err(why) = &e.available {
                out.row(
                    format!("{:<18} {:<44} unavailable: {why}", a.name(), e.label()),
                    row(
                        "known-answers",
                        a.name(),
                        &e.label(),
                        "unavailable",
                        why.clone(),
                    ),
                );
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
            out.row(
                format!("{:<18} {:<44} {status}{}", a.name(), label, r.summary()),
                row(
                    "known-answers",
                    a.name(),
                    &label,
                    match status.trim() {
                        "" => "pass",
                        s => s,
                    },
                    r.summary(),
                ),
            );
            for f in &r.kat.failures {
                out.more(format!("    {f}"));
            }
            report_explained(&mut out, &r.explained, &label, a.name(), &mut known);
        }
        if let Some(how) = a.unofficial_check() {
            out.more(format!("    {a}: {how}"));
        }
    }
    out.line(format!(
        "\n{:<18} agreement of every backend and variant (300 random messages, 0..4096 B, AAD 0..64 B)",
        "algorithm"
    ));
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
        let status = if agree { "pass" } else { "FAIL" };
        out.row(
            format!("{:<18} {status} {}", a.name(), parts.join(" ")),
            row(
                "agreement",
                a.name(),
                &format!("{} implementations", d.len()),
                status,
                parts.join(" "),
            ),
        );
    }
    out.line(format!(
        "\n{:<18} placement: the same output at buffer offsets 0..15, open leaves its inputs alone",
        "algorithm"
    ));
    for &a in Algorithm::ALL {
        let imps = ango_backends::catalog().runnable(AlgorithmId::Sym(a));
        let mut bad = Vec::new();
        for imp in &imps {
            if let Err(e) = ango_verify::cross::placement(&EntryBackend(imp), a, 20, 0x51de) {
                bad.push(format!("{}: {e}", imp.label()));
            }
        }
        failed += bad.len();
        let many = format!("{} implementations", imps.len());
        if bad.is_empty() {
            out.row(
                format!("{:<18} pass ({many})", a.name()),
                row("placement", a.name(), &many, "pass", ""),
            );
        } else {
            out.row(
                format!("{:<18} FAIL {}", a.name(), bad.join("; ")),
                row("placement", a.name(), &many, "FAIL", bad.join("; ")),
            );
        }
    }
    failed += verify_pk(&mut out, &mut known);
    let code = print_verdict(&mut out, failed, &known)?;
    out.finish("The checks before timing, of every implementation here");
    Ok(code)
}

/// The known library defects a verification met, one line each: those
/// that failed as listed, and those that no longer reproduce.
#[derive(Default)]
pub(crate) struct Known {
    met: Vec<String>,
    gone: Vec<String>,
}

/// Print a check's failures divided between known library defects (also
/// added to `known`) and the rest, every case id.
pub(crate) fn report_explained(
    out: &mut Rows,
    e: &ango_verify::defects::Explained,
    backend: &str,
    algorithm: &str,
    known: &mut Known,
) {
    for m in &e.known {
        let line = m.line(backend, algorithm);
        out.more(format!("    {line}"));
        known.met.push(format!("{line}; {}", m.timing_note()));
    }
    for f in &e.unexplained {
        out.more(format!("    {} [{}]", f.text, f.case));
    }
    for n in &e.not_reproduced {
        out.more(format!("    {n}"));
        known.gone.push(n.clone());
    }
}

/// The end of a verification: the known library defects first, in plain
/// words, then the count of failures no known defect explains (exit 1 when
/// there are any).
pub(crate) fn print_verdict(out: &mut Rows, failed: usize, known: &Known) -> Result<i32> {
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
            out.line(format!("\n{title}"));
            for k in lines {
                out.line(format!("  {k}"));
            }
        }
    }
    out.line(format!("\n{failed} failed"));
    Ok(if failed == 0 { 0 } else { 1 })
}

/// The public-key half of `ango verify`: the checks `ango pk` runs before
/// timing, for every algorithm and backend. Returns the number of failures
/// no known library defect explains; the known defects met (and those that
/// no longer reproduce) are added to `known`, one line each.
pub(crate) fn verify_pk(out: &mut Rows, known: &mut Known) -> usize {
    use ango_core::PkAlgorithm;
    let mut failed = 0;
    out.line(format!(
        "\n{:<24} {:<17} public-key checks (round trip, tampering, sizes) and Wycheproof",
        "algorithm", "backend"
    ));
    let mut rng = ango_verify::cross::Rng::new(0x706b_7665_7269);
    for &a in PkAlgorithm::ALL {
        let mut avail: Vec<EntryBackend> = Vec::new();
        for entry in ango_backends::catalog().of(AlgorithmId::Pk(a)) {
            if let Err(why) = &entry.available {
                out.row(
                    format!("{:<24} {:<17} unavailable: {why}", a.name(), entry.label()),
                    row("pk", a.name(), &entry.label(), "unavailable", why.clone()),
                );
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
            let detail = format!(
                "{}/{} checks{}",
                checked.passed,
                checked.passed + checked.failures.len(),
                if checked.summary.is_empty() {
                    String::new()
                } else {
                    format!("; Wycheproof {}", checked.summary.join(", "))
                }
            );
            out.row(
                format!("{:<24} {:<17} {status} {detail}", a.name(), b.0.label()),
                row("pk", a.name(), &b.0.label(), status, detail.clone()),
            );
            report_explained(out, &e, &b.0.label(), a.name(), known);
        }
        if avail.len() >= 2 {
            let refs: Vec<&dyn ango_core::PkBackend> = avail
                .iter()
                .map(|b| b as &dyn ango_core::PkBackend)
                .collect();
            let (passed, fails) = ango_verify::pk::cross_checks(&refs, a);
            failed += usize::from(!fails.is_empty());
            let status = if fails.is_empty() { "pass" } else { "FAIL" };
            let detail = format!(
                "{}/{} ordered pairs of libraries agree",
                passed,
                passed + fails.len()
            );
            out.row(
                format!("{:<24} {:<17} {status} {detail}", a.name(), "cross"),
                row("pk-cross", a.name(), "cross", status, detail.clone()),
            );
            for f in &fails {
                out.more(format!("    {f}"));
            }
        }
    }
    failed
}
