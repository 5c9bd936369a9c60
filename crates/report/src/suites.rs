//! The suites' exporters of a run, in one list, and what goes through all
//! of them: a run in any format, its report page and its findings.

use crate::data::ReportData;
use crate::export::*;
use crate::formats::Format;
use ango_core::{Finding, PkRecord, SpeedRecord};

/// The exporters of a run's data, in the seeds' order: speed (and its
/// multi-core figures), latency, cycles, public-key, TLS, constant-time (speed and latency records share
/// `records`, told apart by `suite`).
pub fn suites(d: &ReportData) -> Vec<Box<dyn Exporter + '_>> {
    let (multi, single): (Vec<SpeedRecord>, Vec<SpeedRecord>) =
        d.records.iter().cloned().partition(|r| r.workers > 1);
    let (speed, latency): (Vec<SpeedRecord>, Vec<SpeedRecord>) = single
        .into_iter()
        .partition(|r| r.suite != ango_core::SuiteId::Latency);
    let (pk_multi, pk_single): (Vec<PkRecord>, Vec<PkRecord>) =
        d.pk_records.iter().cloned().partition(|r| r.workers > 1);
    vec![
        Box::new(Speed(speed)),
        Box::new(Multi {
            records: multi,
            variant_providers: d.variant_providers.clone(),
        }),
        Box::new(Latency(latency)),
        Box::new(Cycles(&d.cycles_records)),
        Box::new(Pk {
            records: pk_single,
            samples: d
                .pk_samples
                .iter()
                .filter(|s| s.workers <= 1)
                .cloned()
                .collect(),
        }),
        Box::new(PkMulti(pk_multi)),
        Box::new(Tls(&d.tls_records)),
        Box::new(TlsRecords {
            records: &d.tls_records_records,
            offers: &d.suite_offers,
        }),
        Box::new(TlsBulk(&d.tls_bulk_records)),
        Box::new(TlsPolicy(&d.tls_policy_records)),
        Box::new(Ct(&d.ct_records)),
    ]
}

/// A run's data in `format`: the HTML page, one JSON array of every
/// record, or each suite that has records in turn (under its title when
/// there are several). Nothing measured prints the speed suite's empty
/// form ("no points measured", `[]`, the CSV header).
pub fn render(d: &ReportData, format: Format, style: &Style) -> String {
    if format == Format::Html {
        return page(d);
    }
    let all = suites(d);
    let shown: Vec<&dyn Exporter> = match all.iter().filter(|e| !e.is_empty()).count() {
        0 => vec![all[0].as_ref()],
        _ => all
            .iter()
            .filter(|e| !e.is_empty())
            .map(|e| e.as_ref())
            .collect(),
    };
    if format == Format::Json {
        let v: Vec<serde_json::Value> = shown.iter().flat_map(|e| e.values()).collect();
        return json_array(&v);
    }
    let several = shown.len() > 1;
    let mut out = String::new();
    for (i, e) in shown.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match format {
            Format::Table => {
                if several {
                    out.push_str(&format!("{}\n", e.title()));
                }
                out.push_str(&crate::formats::fit(&e.table(style)));
            }
            Format::Md => {
                if several {
                    out.push_str(&format!("## {}\n\n", e.title()));
                }
                out.push_str(&e.md(style));
            }
            // Each suite's CSV has its own header row; blocks are separated
            // by one empty line.
            _ => out.push_str(&e.csv()),
        }
    }
    out
}

/// The self-contained report page of a run.
pub fn page(d: &ReportData) -> String {
    crate::html::page(d, &suites(d), &findings(d))
}

/// Every finding of a run, as `findings.jsonl` holds them: the known
/// library defects first, then the speed, latency and public-key studies'.
pub fn findings(d: &ReportData) -> Vec<Finding> {
    let style = Style {
        variant_providers: d.variant_providers.clone(),
        ..Style::default()
    };
    let mut out = crate::findings::defects_in_events(&d.events);
    for e in suites(d) {
        out.extend(e.findings(&style));
    }
    out
}
