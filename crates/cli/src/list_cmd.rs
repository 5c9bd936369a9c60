//! `ango list` and `ango env`: the catalog and the machine.

use crate::args::FormatArgs;
use crate::driver::*;
use ango_core::{AlgorithmId, EntryBackend, Hw, Result};
use ango_report::export::Format;
use ango_report::table::{render, Table};

pub(crate) fn list(a: &FormatArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
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
                                    match a.unofficial_check() {
                                        Some(how) => format!(
                                            "{} (--impl {}); {how}",
                                            e.implementation, e.variant
                                        ),
                                        None => {
                                            format!("{} (--impl {})", e.implementation, e.variant)
                                        }
                                    },
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
    const COLUMNS: [&str; 5] = [
        "algorithm",
        "backend",
        "hw",
        "status",
        "implementation_or_reason",
    ];
    match format {
        Format::Json => {
            println!(
                "{}",
                serde_json::to_string_pretty(&rows).expect("serialises")
            );
            return Ok(0);
        }
        Format::Table => {}
        _ => {
            let cells = rows
                .iter()
                .map(|r| {
                    COLUMNS
                        .iter()
                        .map(|k| r[k].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .collect();
            let t = Table::labels("What runs here", &COLUMNS, cells);
            print!("{}", render("ango list", &[t], format));
            return Ok(0);
        }
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
pub(crate) fn with_untimed(e: &ango_core::Entry) -> String {
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
pub(crate) fn known_defects_of(
    b: &dyn ango_core::PkBackend,
    a: ango_core::PkAlgorithm,
) -> Option<String> {
    if !ango_verify::defects::concerns(&b.label(), &b.version(), a.name()) {
        return None;
    }
    let mut rng = ango_verify::cross::Rng::new(0x6c69_7374);
    let c = ango_verify::pk::all_checks(b, a, &mut rng);
    defect_text(&ango_verify::pk::explain(b, a, &c))
}

/// As [`known_defects_of`], for a symmetric entry: its checks before
/// timing (known answers and Wycheproof) when a known defect may concern it.
pub(crate) fn known_sym_defects_of(e: &ango_core::Entry) -> Option<String> {
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
pub(crate) fn defect_text(e: &ango_verify::defects::Explained) -> Option<String> {
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

pub(crate) fn env_cmd(a: &FormatArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let e = capture_env("");
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&e).expect("serialises")),
        Format::Table => {
            for (k, v) in ango_report::html::env_lines(&e) {
                println!("{}", wrap_under(&format!("{k:<22} {v}"), &" ".repeat(23)));
            }
        }
        _ => {
            let rows = ango_report::html::env_lines(&e)
                .into_iter()
                .map(|(k, v)| vec![k, v])
                .collect();
            let t = Table::labels("The machine", &["what", "value"], rows);
            print!("{}", render("ango env", &[t], format));
        }
    }
    Ok(0)
}

/// A table row whose last column runs long: wrapped to the terminal's 100
/// columns, its continuation lines starting under that column (`indent`,
/// as wide as the columns before it); a word longer than the room left is
/// cut. A row whose earlier columns overflow is wrapped as any text.
pub(crate) fn wrap_under(line: &str, indent: &str) -> String {
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
