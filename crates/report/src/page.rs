//! The report page: a dashboard on the first screen (one row per seed
//! with how many of its claims hold, do not hold or cannot be measured
//! here), every claim in one line with its value and a link to what shows
//! it, ango's own checks in a compact table, then one section per seed in
//! the seeds' order and the sections of ango's own. Every part iterates
//! the suites' exporters, so a new suite appears by implementing its part.

use crate::anchor;
use crate::data::ReportData;
use crate::export::{Exporter, Style};
use crate::seeds::{Seed, OWN, SEEDS};
use crate::svg::escape;
use crate::table::CSS;
use ango_core::{Finding, Verdict};
use std::fmt::Write;

/// (holds, does not hold, not measurable) among `findings`.
pub fn counts<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> (usize, usize, usize) {
    let mut c = (0, 0, 0);
    for f in findings {
        match f.verdict {
            Verdict::Holds => c.0 += 1,
            Verdict::DoesNotHold => c.1 += 1,
            Verdict::NotMeasurable => c.2 += 1,
        }
    }
    c
}

/// The claims of seed `id`.
fn of_seed<'a>(findings: &'a [Finding], id: &str) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.seed == id).collect()
}

/// A verdict as a coloured badge.
fn badge(v: Verdict) -> String {
    let text = match v {
        Verdict::Holds => "holds",
        Verdict::DoesNotHold => "does not hold",
        Verdict::NotMeasurable => "not measurable",
    };
    format!("<span class=\"badge {}\">{text}</span>", v.name())
}

/// A count cell that links to the claims it counts when there are any.
fn count_cell(n: usize, class: &str, link: &str) -> String {
    if n == 0 {
        "<td class=\"n\">0</td>".to_string()
    } else {
        format!("<td class=\"n {class}\"><a href=\"#{link}\">{n}</a></td>")
    }
}

/// The run's first line: its id, size, time and machine.
fn header(d: &ReportData) -> String {
    let run_id = d
        .env
        .as_ref()
        .map(|e| e.run_id.clone())
        .filter(|r| !r.is_empty())
        .or_else(|| {
            d.records
                .keyed()
                .first()
                .map(|(_, r)| record_run_id(r).to_string())
        })
        .unwrap_or_default();
    let mut out = format!(
        "<header><h1>ango report</h1><p class=\"run\">Run <code>{}</code>: {} points{}. \
         <a href=\"#{}\">every claim</a> · <a href=\"#{}\">ango's checks</a> · \
         <a href=\"#machine\">the machine</a></p>",
        escape(&run_id),
        d.records.len(),
        d.env
            .as_ref()
            .map(|e| format!(", {} on {}", escape(&e.time), escape(&e.cpu_model)))
            .unwrap_or_default(),
        anchor::VERDICTS,
        anchor::OWN_CHECKS
    );
    for n in &d.notes {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape(n));
    }
    out.push_str("</header>");
    out
}

fn record_run_id(r: &ango_core::Record) -> &str {
    use ango_core::Record as R;
    match r {
        R::Speed(r) => &r.head.run_id,
        R::Pk(r) => &r.head.run_id,
        R::PkMemory(r) => &r.head.run_id,
        R::Tls(r) => &r.head.run_id,
        R::Ct(r) => &r.head.run_id,
        R::Cycles(r) => &r.head.run_id,
        R::TlsRecords(r) => &r.head.run_id,
        R::TlsBulk(r) => &r.head.run_id,
        R::TlsPolicy(r) => &r.head.run_id,
    }
}

/// The dashboard: a row per seed, then ango's own checks.
fn dashboard(d: &ReportData, findings: &[Finding]) -> String {
    let mut out = format!(
        "<section id=\"{}\"><h2>What this machine said about each seed</h2><div class=\"scroll\">\
         <table class=\"dash\"><tr><th>seed</th><th class=\"title\">what it studied</th><th>holds</th>\
         <th>does not hold</th><th>not measurable</th></tr>",
        anchor::DASHBOARD
    );
    for s in &SEEDS {
        let fs = of_seed(findings, s.id);
        let (h, n, m) = counts(fs.iter().copied());
        let claims = format!("claims-{}", s.id);
        let _ = write!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"title\"><a href=\"#{}\">{}</a></td>{}{}{}</tr>",
            anchor::seed(s.id),
            s.id,
            anchor::seed(s.id),
            escape(s.title),
            count_cell(h, "holds", &claims),
            count_cell(n, "does-not-hold", &claims),
            count_cell(m, "not-measurable", &claims),
        );
    }
    let own = of_seed(findings, OWN);
    let defects = own.iter().filter(|f| f.suite == "verify").count();
    let (h, n, m) = counts(own.iter().copied().filter(|f| f.suite != "verify"));
    let _ = write!(
        out,
        "<tr><td><a href=\"#{}\">ango</a></td><td class=\"title\"><a href=\"#{}\">its own checks</a>: {} library \
         defect{} met, {}</td>{}{}{}</tr></table></div>",
        anchor::OWN_CHECKS,
        anchor::OWN_CHECKS,
        defects,
        if defects == 1 { "" } else { "s" },
        verified_line(d),
        count_cell(h, "holds", anchor::OWN_CHECKS),
        count_cell(n, "does-not-hold", anchor::OWN_CHECKS),
        count_cell(m, "not-measurable", anchor::OWN_CHECKS),
    );
    out.push_str("</section>");
    out
}

/// What was verified before timing, in a few words.
fn verified_line(d: &ReportData) -> String {
    let v = crate::summary::verified(&d.events);
    if v.pairs == 0 {
        return "nothing verified in this run".into();
    }
    format!(
        "{} of {} (implementation, algorithm, setting) pairs passed every case before timing",
        v.pairs_ok, v.pairs
    )
}

/// One claim's row: its verdict, the claim in one line (the explanation
/// and the records behind it fold out), the value, and a link to the
/// table or chart that shows it.
fn claim_row(f: &Finding) -> String {
    let sources = if f.sources.is_empty() {
        String::new()
    } else {
        let mut keys: String = f
            .sources
            .iter()
            .take(12)
            .map(|k| format!("<li><code>{}</code></li>", escape(k)))
            .collect();
        if f.sources.len() > 12 {
            let _ = write!(keys, "<li>… {} more</li>", f.sources.len() - 12);
        }
        format!(
            "<p>From {} record{}:</p><ul class=\"keys\">{keys}</ul>",
            f.sources.len(),
            if f.sources.len() == 1 { "" } else { "s" }
        )
    };
    let link = if f.anchor.is_empty() {
        String::new()
    } else {
        format!("<a href=\"#{}\">shown</a>", escape(&f.anchor))
    };
    format!(
        "<tr id=\"claim-{id}\" class=\"{v}\"><td>{badge}</td><td class=\"claim\"><details>\
         <summary>{src}: {claim}</summary><p>{expl}</p>{sources}<p class=\"derive\"><code>ango \
         report DIR --claim {id}</code></p></details></td><td class=\"n\">{value}</td>\
         <td>{link}</td></tr>",
        id = escape(&f.id),
        v = f.verdict.name(),
        badge = badge(f.verdict),
        src = escape(&f.source()),
        claim = escape(&f.claim),
        expl = escape(&f.explanation),
        value = escape(&f.value_text()),
    )
}

/// Every seed claim, by seed, one line each.
fn verdict_table(findings: &[Finding]) -> String {
    let mut out = format!(
        "<section id=\"{}\"><h2>Every claim of the seeds, checked here</h2><p>A claim in one \
         line: open it for what was measured and the records it was computed from; \
         <i>shown</i> goes to the table or chart.</p>",
        anchor::VERDICTS
    );
    for s in &SEEDS {
        let fs = of_seed(findings, s.id);
        let _ = write!(
            out,
            "<h3 id=\"claims-{}\">Seed {} — {}</h3>",
            s.id,
            s.id,
            escape(s.title)
        );
        if fs.is_empty() {
            out.push_str(
                "<p>No claim of this seed was checked in this run (its suite did not run).</p>",
            );
            continue;
        }
        out.push_str(&claims_table(&fs));
    }
    out.push_str("</section>");
    out
}

fn claims_table(fs: &[&Finding]) -> String {
    let mut out = String::from(
        "<table class=\"verdicts\"><colgroup><col class=\"c-verdict\"><col class=\"c-claim\">\
         <col class=\"c-value\"><col class=\"c-link\"></colgroup><tr><th>verdict</th>\
         <th>claim</th><th>measured [95%]</th><th></th></tr>",
    );
    for f in fs {
        out.push_str(&claim_row(f));
    }
    out.push_str("</table>");
    out
}

/// ango's own checks: the library defects met (one line each, the cases
/// and the long explanation folded), then its readings of the run.
fn own_checks(d: &ReportData, findings: &[Finding]) -> String {
    let mut out = format!(
        "<section id=\"{}\"><h2>ango's own checks</h2><p>{}.</p>",
        anchor::OWN_CHECKS,
        escape(&verified_line(d))
    );
    let met = crate::findings::defects_met(&d.events);
    if met.is_empty() {
        out.push_str("<p>No known library defect was met in this run.</p>");
    } else {
        let version = |backend: &str| {
            let provider = backend.split('[').next().unwrap_or(backend);
            d.env
                .as_ref()
                .and_then(|e| e.libraries.iter().find(|(n, _)| n == provider))
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let _ = write!(
            out,
            "<h3>Library defects met</h3><p>Each failed verification here for a reason listed in \
             <code>vectors/known-defects.toml</code>; such a pair is never timed, but for an \
             <i>input-check</i> one (an unchecked input; right results on valid inputs).</p>\
             <table class=\"defects\"><colgroup><col class=\"c-lib\"><col class=\"c-ver\">\
             <col class=\"c-alg\"><col class=\"c-defect\"><col class=\"c-cases\">\
             <col class=\"c-cite\"></colgroup><tr><th>library</th><th>version</th>\
             <th>algorithm</th><th>defect</th><th>failing cases</th><th>citation</th></tr>"
        );
        for x in &met {
            let first =
                x.m.description
                    .split(&[':', ';'][..])
                    .next()
                    .unwrap_or(&x.m.description);
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><details><summary>{}</summary><p>{}</p>\
                 <p><i>{} {}</i>; {}.</p><p class=\"cases\">{}</p></details></td>\
                 <td class=\"n\">{}</td><td>{}</td></tr>",
                escape(x.backend),
                escape(&version(x.backend)),
                escape(x.algorithm),
                escape(first),
                escape(&x.m.description),
                escape(x.m.category.name()),
                escape(&x.m.id),
                escape(x.m.timing_note()),
                escape(&ango_core::finding::short_cases(&x.m.cases)),
                x.m.cases.len(),
                escape(&x.m.citation),
            );
        }
        out.push_str("</table>");
    }
    let readings: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.seed == OWN && f.suite != "verify")
        .collect();
    if !readings.is_empty() {
        out.push_str("<h3>Readings of the run</h3>");
        out.push_str(&claims_table(&readings));
    }
    out.push_str("</section>");
    out
}

/// One seed's section: what the seed did and found, then each suite's
/// reproduction of its tables and figures.
fn seed_section(s: &Seed, suites: &[Box<dyn Exporter + '_>], style: &Style) -> String {
    let body: String = suites.iter().map(|e| e.html_for(s.id, style)).collect();
    format!(
        "<section id=\"{}\" class=\"seed\"><h2>Seed {} — {}</h2><p class=\"what\">{}</p>{}</section>",
        anchor::seed(s.id),
        s.id,
        escape(s.title),
        s.what,
        if body.is_empty() {
            "<p>Not measured in this run: its suite did not run.</p>".to_string()
        } else {
            body
        }
    )
}

/// The whole page.
pub fn page(d: &ReportData, suites: &[Box<dyn Exporter + '_>], findings: &[Finding]) -> String {
    let style = Style {
        variant_providers: d.variant_providers.clone(),
        ..Style::default()
    };
    let mut out = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>ango report</title><style>{CSS}</style></head><body>"
    );
    out.push_str(&header(d));
    out.push_str(&dashboard(d, findings));
    out.push_str(&verdict_table(findings));
    out.push_str(&own_checks(d, findings));
    for s in &SEEDS {
        out.push_str(&seed_section(s, suites, &style));
    }
    let own: String = suites.iter().map(|e| e.html_for(OWN, &style)).collect();
    let _ = write!(
        out,
        "<section id=\"{}\" class=\"own\"><h2>ango's own: constant time, multi-core, how the \
         numbers were taken, the machine</h2>{own}{}</section>",
        anchor::seed(OWN),
        crate::html::method_events_machine(d)
    );
    out.push_str("</body></html>\n");
    out
}
