//! The suites' exporters of a run, in one list, and what goes through all
//! of them: a run in any format, its report page and its findings.

use crate::data::ReportData;
use crate::export::*;
use crate::formats::Format;
use ango_core::{Finding, PkRecord, SpeedRecord, SuiteId};

/// The order in which a run's suites are shown, the seeds' order.
const SHOWN: [SuiteId; 10] = [
    SuiteId::Speed,
    SuiteId::Latency,
    SuiteId::Cycles,
    SuiteId::Pk,
    SuiteId::PkMemory,
    SuiteId::Tls,
    SuiteId::TlsRecords,
    SuiteId::TlsBulk,
    SuiteId::TlsPolicy,
    SuiteId::Ct,
];

/// The exporters of a run's data, in the seeds' order: speed (and its
/// multi-core figures), latency, cycles, public-key (and its multi-core
/// figures), TLS, the seed-004 suites, constant-time.
pub fn suites(d: &ReportData) -> Vec<Box<dyn Exporter + '_>> {
    SHOWN.into_iter().flat_map(|id| exporters(d, id)).collect()
}

/// The exporters of suite `id`. The match is exhaustive, so a new suite
/// does not compile until it says how it is shown.
fn exporters(d: &ReportData, id: SuiteId) -> Vec<Box<dyn Exporter + '_>> {
    let r = &d.records;
    let speed_of = |keep: fn(&SpeedRecord) -> bool| -> Vec<SpeedRecord> {
        r.speed.iter().filter(|x| keep(x)).cloned().collect()
    };
    let pk_of = |multi: bool| -> Vec<PkRecord> {
        r.pk.iter()
            .filter(|x| (x.workers > 1) == multi)
            .cloned()
            .collect()
    };
    match id {
        SuiteId::Speed => vec![
            Box::new(Speed(speed_of(|x| {
                x.workers <= 1 && x.head.suite != SuiteId::Latency
            }))),
            Box::new(Multi {
                records: speed_of(|x| x.workers > 1),
                variant_providers: d.variant_providers.clone(),
            }),
        ],
        SuiteId::Latency => vec![Box::new(Latency(speed_of(|x| {
            x.workers <= 1 && x.head.suite == SuiteId::Latency
        })))],
        SuiteId::Cycles => vec![Box::new(Cycles(&r.cycles))],
        SuiteId::Pk => vec![
            Box::new(Pk {
                records: pk_of(false),
                samples: d
                    .pk_samples
                    .iter()
                    .filter(|s| s.workers <= 1)
                    .cloned()
                    .collect(),
            }),
            Box::new(PkMulti(pk_of(true))),
        ],
        SuiteId::PkMemory => vec![Box::new(crate::pk_memory::PkMemory {
            records: r.pk_memory.clone(),
            pk: pk_of(false),
        })],
        SuiteId::Tls => vec![Box::new(Tls(&r.tls))],
        SuiteId::TlsRecords => vec![Box::new(TlsRecords {
            records: &r.tls_records,
            offers: &d.suite_offers,
        })],
        SuiteId::TlsBulk => vec![Box::new(TlsBulk(&r.tls_bulk))],
        SuiteId::TlsPolicy => vec![Box::new(TlsPolicy(&r.tls_policy))],
        SuiteId::Ct => vec![Box::new(Ct(&r.ct))],
    }
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
    crate::page::page(d, &suites(d), &findings(d))
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
    unique_ids(&mut out);
    out
}

/// Every finding gets an id, unique in the run: one without (an older
/// record's) is named from its seed, section and claim; a repeated one
/// gets `-2`, `-3`, … in the order met.
fn unique_ids(findings: &mut [Finding]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for f in findings.iter_mut() {
        if f.id.is_empty() {
            f.id = ango_core::finding::slug(&format!("{}-{}-{}", f.seed, f.section, f.claim));
        }
        let n = seen.entry(f.id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.id = format!("{}-{n}", f.id);
        }
    }
}
