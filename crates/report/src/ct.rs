//! The report's constant-time section: one row per target of `ango ct`
//! (or `ango run`'s short pass), every memcheck finding listed.

use crate::svg::escape;
use crate::table::{cell, Table};
use ango_core::ct::{CtRecord, Verdict};
use std::fmt::Write as _;

/// The section, or nothing when the run has no constant-time records.
pub fn section(records: &[CtRecord]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h3 id=\"own-ct\">Constant-time checks</h3><p>Two checks per target. <b>memcheck</b>: the target runs \
         under valgrind with its key and input marked undefined (nonces and lengths are public), \
         so every branch and memory index that depends on them is reported with its source \
         line; valgrind 3.19 cannot run VAES-256, VPCLMULQDQ-256, AVX-512 or GFNI code, so \
         those targets rely on the second check (and on memcheck of their parts). <b>dudect</b>: \
         Welch's t between a fixed input and random inputs, TSC ticks per call, on all \
         measurements and on dudect's cropped subsets; |t| above the threshold is measured \
         again before it is called a leak.</p>",
    );
    let controls: Vec<&CtRecord> = records.iter().filter(|r| r.control.is_some()).collect();
    let broken: Vec<&&CtRecord> = controls
        .iter()
        .filter(|r| r.control != Some(r.verdict))
        .collect();
    if !controls.is_empty() {
        let _ = write!(
            out,
            "<p class=\"{}\">Positive controls: {} of {} as they must be (T-table AES, FIPS S-box \
             AES and 4-bit GHASH leak; bitsliced AES and ctmul GHASH are constant-time){}</p>",
            if broken.is_empty() { "" } else { "noisy" },
            controls.len() - broken.len(),
            controls.len(),
            if broken.is_empty() {
                String::new()
            } else {
                format!(
                    ". The check is broken here: {}",
                    escape(
                        &broken
                            .iter()
                            .map(|r| format!("{} came out {}", r.implementation, r.verdict.name()))
                            .collect::<Vec<_>>()
                            .join("; ")
                    )
                )
            }
        );
    }
    out.push_str(
        "<table><tr><th>algorithm</th><th>backend</th><th>implementation</th><th>memcheck</th>\
         <th>max |t|</th><th>measurements</th><th>verdict</th><th>what memcheck found, or why it did not run</th></tr>",
    );
    for r in records {
        let mut why: Vec<String> = r.memcheck_findings.clone();
        if r.memcheck == "not-run" {
            why.push(r.memcheck_detail.clone());
        }
        if !r.parts_flagged.is_empty() {
            why.push(format!(
                "leaks through its parts, flagged by memcheck on their own: {}",
                r.parts_flagged.join(", ")
            ));
        }
        if let Some(first) = r.first_max_abs_t {
            why.push(format!(
                "dudect: first run |t| = {first:.2}, measured again: {:.2}",
                r.max_abs_t
            ));
        }
        if r.label_agrees == Some(false) {
            why.push("the name's -nct disagrees with the verdict".into());
        }
        let class = match r.verdict {
            Verdict::Leaks => " class=\"noisy\"",
            _ => "",
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td{class}>{}</td><td>{}</td></tr>",
            escape(&r.algorithm),
            escape(&r.backend),
            escape(&r.label()),
            escape(&r.memcheck),
            r.max_abs_t,
            r.measurements,
            r.verdict.name(),
            escape(&why.join("; "))
        );
    }
    out.push_str("</table>");
    out
}

/// The columns of the text, CSV and Markdown forms.
const COLUMNS: [&str; 7] = [
    "algorithm",
    "backend",
    "implementation",
    "memcheck",
    "max |t|",
    "measurements",
    "verdict",
];

fn cells(r: &CtRecord) -> [String; 7] {
    [
        r.algorithm.clone(),
        r.backend.clone(),
        r.label(),
        r.memcheck.clone(),
        format!("{:.2}", r.max_abs_t),
        r.measurements.to_string(),
        r.verdict.name().to_string(),
    ]
}

/// The table of the terminal and of Markdown: a row per target, what
/// memcheck found under it.
pub fn table(records: &[CtRecord]) -> Table {
    let rows = records
        .iter()
        .map(|r| {
            let [a, b, c, d, t, n, v] = cells(r);
            vec![
                cell(a, ""),
                cell(b, ""),
                cell(c, ""),
                cell(d, ""),
                cell(t, "n"),
                cell(n, "n"),
                cell(v, ""),
            ]
        })
        .collect();
    let mut t = Table::new("", &COLUMNS, rows);
    t.squeeze = Some(2);
    for (i, r) in records.iter().enumerate() {
        for f in &r.memcheck_findings {
            t.under.push((i, format!("memcheck: {f}")));
        }
        if !r.parts_flagged.is_empty() {
            t.under.push((
                i,
                format!("leaks through its parts: {}", r.parts_flagged.join(", ")),
            ));
        }
    }
    t
}

/// The terminal table, with what memcheck found under each row.
pub fn text_table(records: &[CtRecord]) -> String {
    table(records).text()
}

pub fn csv(records: &[CtRecord]) -> String {
    let q = ango_core::csv::field;
    let mut out = COLUMNS.join(",") + ",memcheck_findings\n";
    for r in records {
        let mut row: Vec<String> = cells(r).iter().map(|c| q(c)).collect();
        row.push(q(&r.memcheck_findings.join("; ")));
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

pub fn markdown(records: &[CtRecord]) -> String {
    table(records).md()
}

/// The positive controls as a finding: the check sees the leaks it must
/// see and passes the code that must pass.
pub fn findings(records: &[CtRecord]) -> Vec<ango_core::Finding> {
    let controls: Vec<&CtRecord> = records.iter().filter(|r| r.control.is_some()).collect();
    if controls.is_empty() {
        return Vec::new();
    }
    let wrong: Vec<String> = controls
        .iter()
        .filter(|r| r.control != Some(r.verdict))
        .map(|r| format!("{} came out {}", r.implementation, r.verdict.name()))
        .collect();
    vec![ango_core::Finding::new(
        "ct",
        "001",
        "",
        "bitsliced AES and table-free GHASH are constant time; the table-based AES and GHASH are not",
    )
    .id("ct-controls", &[])
    .anchor(crate::anchor::CT)
    .from(controls.iter().map(|r| ango_core::RecordKey::key(*r)))
    .value((controls.len() - wrong.len()) as f64, "controls as expected")
    .verdict(if wrong.is_empty() {
        ango_core::finding::Verdict::Holds
    } else {
        ango_core::finding::Verdict::DoesNotHold
    })
    .explain(if wrong.is_empty() {
        format!(
            "{} positive controls came out as they must (memcheck and dudect)",
            controls.len()
        )
    } else {
        format!("the check is broken here: {}", wrong.join("; "))
    })]
}
