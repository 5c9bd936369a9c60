//! `suite: pk-memory`: seed 003's per-operation tables with the memory of
//! one call beside its time and the sizes of what it makes, a log-log
//! chart of time against peak memory, the massif cross-check, and the
//! findings about memory.

use crate::export::{Exporter, Style};
use crate::figure::{figure, num, MAX_SERIES};
use crate::pk::fmt_ns;
use crate::svg::{escape, line_chart, Chart, Series, PALETTE};
use crate::table::{cell, csv_line, Cell, Table};
use ango_core::{Finding, PkAlgorithm, PkMemoryRecord, PkRecord, RecordKey, Timing, Verdict};
use std::fmt::Write;

/// The anchor of the memory section.
pub const ANCHOR: &str = "s003-pk-memory";

/// The memory records of a run and its pk records (for the time of each
/// operation).
pub struct PkMemory {
    pub records: Vec<PkMemoryRecord>,
    pub pk: Vec<PkRecord>,
}

use ango_core::pk_memory::bytes;

fn order(r: &PkMemoryRecord) -> (usize, String) {
    let a = PkAlgorithm::parse(&r.algorithm)
        .ok()
        .and_then(|a| PkAlgorithm::ALL.iter().position(|x| *x == a))
        .unwrap_or(usize::MAX);
    (a, r.who())
}

fn sorted(records: &[PkMemoryRecord]) -> Vec<&PkMemoryRecord> {
    let mut v: Vec<&PkMemoryRecord> = records.iter().collect();
    v.sort_by_key(|r| order(r));
    v
}

fn label(r: &PkMemoryRecord) -> String {
    crate::pk::point_label(&r.algorithm, &r.who())
}

impl PkMemory {
    /// The timed record of the same point (`timing: operation`, one
    /// worker).
    fn time(&self, r: &PkMemoryRecord) -> Option<&PkRecord> {
        self.pk.iter().find(|p| {
            p.algorithm == r.algorithm
                && p.operation == r.operation
                && p.who() == r.who()
                && p.workers <= 1
                && p.timing == Timing::Operation.name()
        })
    }

    fn massif_any(&self) -> bool {
        self.records.iter().any(|r| r.massif.is_some())
    }

    /// Seed 003's layout, one table per operation, with memory columns:
    /// maxima over the calls, with the median call's beside them where it
    /// differs (`compact`, for the terminal: maxima only).
    fn tables(&self, compact: bool) -> Vec<Table> {
        let mm = |max: u64, med: u64, f: fn(u64) -> String| {
            if compact {
                f(max)
            } else {
                max_med(max, med, f)
            }
        };
        let mut out = Vec::new();
        for (kind, op, title) in crate::pk::SEED_OPS {
            let rows: Vec<Vec<Cell>> = sorted(&self.records)
                .into_iter()
                .filter(|r| r.kind == *kind && r.operation == *op)
                .map(|r| {
                    vec![
                        cell(label(r), ""),
                        cell(
                            self.time(r).map_or("-".into(), |p| fmt_ns(p.stats.median)),
                            "n",
                        ),
                        cell(
                            mm(r.peak_stack_bytes, r.peak_stack_bytes_median, bytes),
                            "n",
                        ),
                        cell(mm(r.peak_heap_bytes, r.peak_heap_bytes_median, bytes), "n"),
                        cell(
                            mm(r.allocations, r.allocations_median, |x| x.to_string()),
                            "n",
                        ),
                        cell(made(r), ""),
                    ]
                })
                .collect();
            if rows.is_empty() {
                continue;
            }
            let head = [
                "algorithm [backend]",
                "median time",
                "stack",
                "heap",
                "allocs",
                "it makes (B)",
            ];
            out.push(Table::new(
                format!("{title}: memory of one call"),
                &head,
                rows,
            ));
        }
        if self.massif_any() {
            out.push(self.massif_table());
        }
        out
    }

    /// ango's figures beside massif's, per point massif ran.
    fn massif_table(&self) -> Table {
        let rows = sorted(&self.records)
            .into_iter()
            .filter_map(|r| r.massif.as_ref().map(|m| (r, m)))
            .map(|(r, m)| {
                let ratio = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
                let or = |x: Option<u64>| x.map_or("-".into(), bytes);
                if !m.ran {
                    return vec![
                        cell(format!("{} {}", label(r), r.operation), ""),
                        cell(bytes(r.peak_stack_bytes), "n"),
                        cell("-", "n"),
                        cell("-", "n"),
                        cell(bytes(r.peak_heap_bytes), "n"),
                        cell("-", "n"),
                        cell(format!("- ({})", m.note), ""),
                    ];
                }
                vec![
                    cell(format!("{} {}", label(r), r.operation), ""),
                    cell(bytes(r.peak_stack_bytes), "n"),
                    cell(or(m.peak_stack_bytes), "n"),
                    cell(ratio(m.stack_ratio), "n"),
                    cell(bytes(r.peak_heap_bytes), "n"),
                    cell(or(m.peak_heap_bytes), "n"),
                    cell(ratio(m.heap_ratio), "n"),
                ]
            })
            .collect();
        Table::new(
            "The same calls under valgrind massif (massif ÷ ango)",
            &["point", "stack", "massif", "×", "heap", "massif", "×"],
            rows,
        )
    }

    fn notes(&self) -> Vec<String> {
        let Some(r) = self.records.first() else {
            return Vec::new();
        };
        let mut v = vec![
            format!("How: {}.", r.method),
            "The stack figures are exact for the paths the calls took, not a worst case over \
             every path."
                .to_string(),
        ];
        // Each library's own part of `unseen`, libraries with the same
        // text together; the part every library shares, once.
        let mut by: Vec<(String, Vec<String>)> = Vec::new();
        let mut shared = String::new();
        for r in &self.records {
            let (own, rest) = r.unseen.split_once("; ").unwrap_or((&r.unseen, ""));
            shared = rest.to_string();
            match by.iter_mut().find(|(t, _)| t == own) {
                Some((_, libs)) if !libs.contains(&r.backend) => libs.push(r.backend.clone()),
                Some(_) => {}
                None => by.push((own.to_string(), vec![r.backend.clone()])),
            }
        }
        let mut unseen: Vec<String> = by
            .iter()
            .map(|(t, libs)| format!("{}: {t}", libs.join(", ")))
            .collect();
        if !shared.is_empty() {
            unseen.push(format!("every library: {shared}"));
        }
        v.push(format!(
            "What the heap figures do not see: {}.",
            unseen.join("; ")
        ));
        v
    }

    /// The chart: median time against peak memory (stack + heap), log-log,
    /// a series per algorithm family (at most eight).
    fn chart(&self) -> String {
        let mut groups: Vec<(String, Vec<ChartPoint>)> = Vec::new();
        for r in sorted(&self.records) {
            let Some(p) = self.time(r) else { continue };
            let g = group(&r.algorithm);
            let point = (
                p.stats.median / 1e3,
                (r.peak_stack_bytes + r.peak_heap_bytes) as f64,
                format!("{} {}", label(r), r.operation),
            );
            match groups.iter_mut().find(|(n, _)| *n == g) {
                Some((_, v)) => v.push(point),
                None => groups.push((g, vec![point])),
            }
        }
        if groups.is_empty() {
            return String::new();
        }
        groups.truncate(MAX_SERIES);
        let chart = Chart {
            title: "Time against peak memory of one call".into(),
            x_label: "median time per call (µs, log)".into(),
            y_label: "peak stack + heap (bytes, log)".into(),
            series: groups
                .iter()
                .enumerate()
                .map(|(i, (name, pts))| Series {
                    label: name.clone(),
                    color: PALETTE[i % PALETTE.len()],
                    style: 3,
                    points: pts.iter().map(|p| (p.0, p.1, None)).collect(),
                })
                .collect(),
        };
        let rows = groups
            .iter()
            .flat_map(|(g, pts)| {
                pts.iter().map(move |p| {
                    vec![
                        cell(g.clone(), ""),
                        cell(p.2.clone(), ""),
                        cell(num(p.0), "n"),
                        cell(bytes(p.1 as u64), "n"),
                    ]
                })
            })
            .collect();
        let view = Table::new(
            "",
            &["family", "point", "median µs", "peak stack + heap"],
            rows,
        );
        figure(
            Some(&format!("{ANCHOR}-chart")),
            &line_chart(&chart),
            chart.series.len(),
            "Each point is one operation of one library: its median time (timing: operation) \
             against the peak stack plus peak heap of one call (maxima over the calls). Both \
             axes are logarithmic.",
            &view,
        )
    }
}

/// One point of the chart: (µs, bytes, what it is).
type ChartPoint = (f64, f64, String);

/// A family for the chart's series (at most eight).
fn group(algorithm: &str) -> String {
    match PkAlgorithm::parse(algorithm).map(|a| a.family()) {
        Ok("ECDH") | Ok("hybrid") | Ok("ML-KEM") => "KEMs".into(),
        Ok("RSA") | Ok("ECDSA") | Ok("EdDSA") => "RSA, ECDSA, EdDSA".into(),
        Ok(f) => f.to_string(),
        Err(_) => algorithm.to_string(),
    }
}

/// A maximum over the calls, with the median call's figure beside it
/// when it differs.
fn max_med(max: u64, med: u64, f: fn(u64) -> String) -> String {
    if max == med {
        f(max)
    } else {
        format!("{} (median {})", f(max), f(med))
    }
}

/// The raw sizes of what the operation makes (key generation: the key
/// pair; encapsulation and decapsulation: the ciphertext; signing and
/// verification: the signature).
fn made(r: &PkMemoryRecord) -> String {
    let objects: &[(&str, &str)] = match r.operation.as_str() {
        "keygen" => &[("public_key", "pk"), ("secret_key", "sk")],
        "encaps" | "decaps" => &[("ciphertext", "ct")],
        _ => &[("signature", "sig")],
    };
    objects
        .iter()
        .filter_map(|(obj, short)| {
            r.sizes
                .iter()
                .find(|s| s.object == *obj)
                .map(|s| format!("{short} {}", s.bytes))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

const CSV_FIELDS: &[&str] = &[
    "run_id",
    "algorithm",
    "kind",
    "operation",
    "backend",
    "variant",
    "implementation",
    "library_version",
    "calls",
    "warmup",
    "peak_stack_bytes",
    "peak_stack_bytes_median",
    "peak_heap_bytes",
    "peak_heap_bytes_median",
    "allocations",
    "allocations_median",
    "stack_floor_bytes",
];

impl Exporter for PkMemory {
    fn part(&self) -> &'static str {
        "003"
    }
    fn suite(&self) -> &'static str {
        "pk-memory"
    }
    fn title(&self) -> &'static str {
        "Memory of every public-key operation (pk --memory)"
    }
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    fn table(&self, _style: &Style) -> String {
        let mut out: Vec<String> = self.tables(true).iter().map(Table::text).collect();
        let mut notes = vec![
            "Stack, heap and allocations are the maxima over the calls; the medians are in the \
             records (--format json or csv) and the report."
                .to_string(),
        ];
        notes.extend(self.notes());
        out.push(notes.join("\n") + "\n");
        out.join("\n")
    }
    fn values(&self) -> Vec<serde_json::Value> {
        self.records
            .iter()
            .map(|r| serde_json::to_value(r).expect("records serialise"))
            .collect()
    }
    fn csv(&self) -> String {
        let mut out = csv_line(CSV_FIELDS.iter().copied().chain([
            "massif_peak_stack_bytes",
            "massif_peak_heap_bytes",
            "sizes",
        ]));
        for r in sorted(&self.records) {
            let v = serde_json::to_value(r).expect("record serialises");
            let mut fields: Vec<String> = CSV_FIELDS
                .iter()
                .map(|f| crate::formats::json_text(&v[*f]))
                .collect();
            let m = r.massif.as_ref();
            fields.push(
                m.and_then(|m| m.peak_stack_bytes)
                    .map_or(String::new(), |x| x.to_string()),
            );
            fields.push(
                m.and_then(|m| m.peak_heap_bytes)
                    .map_or(String::new(), |x| x.to_string()),
            );
            fields.push(
                r.sizes
                    .iter()
                    .map(|s| format!("{}:{}={}", s.object, s.encoding, s.bytes))
                    .collect::<Vec<_>>()
                    .join(";"),
            );
            out.push_str(&csv_line(fields.iter().map(|s| s.as_str())));
        }
        out
    }
    fn md(&self, _style: &Style) -> String {
        let mut out: Vec<String> = self.tables(false).iter().map(Table::md).collect();
        out.push(self.notes().join("\n\n") + "\n");
        out.join("\n")
    }
    fn html(&self, _style: &Style) -> String {
        let mut out =
            format!("<section id=\"{ANCHOR}\"><h3>Memory of one call: peak stack and heap</h3>");
        out.push_str(&self.chart());
        for t in self.tables(false) {
            let _ = write!(out, "<div class=\"scroll\">{}</div>", t.html());
        }
        for n in self.notes() {
            let _ = write!(out, "<p class=\"note\">{}</p>", escape(&n));
        }
        out.push_str("</section>");
        out
    }
    fn findings(&self, _style: &Style) -> Vec<Finding> {
        findings(&self.records)
    }
}

/// Below this many bytes ango's and massif's figures are not compared.
const MASSIF_FLOOR: u64 = 1024;

/// Peak stack plus peak heap of one call (maxima).
fn peak(r: &PkMemoryRecord) -> u64 {
    r.peak_stack_bytes + r.peak_heap_bytes
}

/// ango's readings of the memory records.
pub fn findings(records: &[PkMemoryRecord]) -> Vec<Finding> {
    let mut out = Vec::new();
    if records.is_empty() {
        return out;
    }
    let new = |claim: &str| Finding::new("pk-memory", "ango", "", claim).anchor(ANCHOR);
    // The standard post-quantum defaults within 64 KiB.
    let pq: Vec<&PkMemoryRecord> = records
        .iter()
        .filter(|r| r.algorithm.starts_with("ml-kem") || r.algorithm.starts_with("ml-dsa"))
        .collect();
    if let Some(top) = pq.iter().max_by_key(|r| peak(r)) {
        let limit = 64 * 1024;
        out.push(
            new("every ML-KEM and ML-DSA operation of every library measured fits in 64 KiB of stack and heap together")
                .id("pk-memory-pq-64k", &[])
                .from(pq.iter().map(|r| r.key()))
                .value(peak(top) as f64 / 1024.0, "KiB")
                .verdict(if peak(top) <= limit {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "The largest is {} {}: {} of stack and {} of heap at most, over {} calls; \
                     {} of the {} (algorithm, library, operation) points need more than 64 KiB.",
                    label(top),
                    top.operation,
                    bytes(top.peak_stack_bytes),
                    bytes(top.peak_heap_bytes),
                    top.calls,
                    pq.iter().filter(|r| peak(r) > limit).count(),
                    pq.len()
                )),
        );
    }
    // How far libraries differ in the memory of one operation.
    let mut spreads: Vec<(f64, &PkMemoryRecord, &PkMemoryRecord)> = Vec::new();
    for r in records {
        let same: Vec<&PkMemoryRecord> = records
            .iter()
            .filter(|x| x.algorithm == r.algorithm && x.operation == r.operation)
            .collect();
        if same.len() < 2 || !std::ptr::eq(same[0], r) {
            continue;
        }
        let lo = same.iter().min_by_key(|x| peak(x)).expect("two or more");
        let hi = same.iter().max_by_key(|x| peak(x)).expect("two or more");
        spreads.push((peak(hi) as f64 / peak(lo).max(1) as f64, hi, lo));
    }
    spreads.sort_by(|a, b| b.0.total_cmp(&a.0));
    if let Some(&(ratio, hi, lo)) = spreads.first() {
        let top: Vec<String> = spreads
            .iter()
            .take(3)
            .map(|(x, h, l)| {
                format!(
                    "{} {}: {} {} against {} {} ({x:.1}×)",
                    h.algorithm,
                    h.operation,
                    h.who(),
                    bytes(peak(h)),
                    l.who(),
                    bytes(peak(l))
                )
            })
            .collect();
        out.push(
            new("libraries differ by more than 10× in the memory one operation needs")
                .id("pk-memory-spread", &[])
                .from([hi.key(), lo.key()])
                .value(ratio, "×")
                .verdict(if ratio > 10.0 {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "Peak stack plus peak heap of one call, the largest library over the \
                     smallest, for each (algorithm, operation) that two or more libraries \
                     have ({} of them); the widest: {}.",
                    spreads.len(),
                    top.join("; ")
                )),
        );
    }
    // ML-DSA signing's rejection loop and the memory of each call.
    let sign: Vec<&PkMemoryRecord> = records
        .iter()
        .filter(|r| r.algorithm.starts_with("ml-dsa") && r.operation == "sign")
        .collect();
    if !sign.is_empty() {
        let vary = |r: &PkMemoryRecord| {
            let med = r.peak_stack_bytes_median + r.peak_heap_bytes_median;
            peak(r) as f64 / med.max(1) as f64
        };
        let top = sign
            .iter()
            .max_by(|a, b| vary(a).total_cmp(&vary(b)))
            .expect("not empty");
        out.push(
            new("ML-DSA signing needs the same memory on every call, however many times its rejection loop runs (largest call within 1% of the median)")
                .id("pk-memory-mldsa-sign-calls", &[])
                .from(sign.iter().map(|r| r.key()))
                .value(vary(top), "×")
                .verdict(if vary(top) <= 1.01 {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "Largest call over the median call (stack + heap), for {} ML-DSA signers; \
                     the most varied is {}: {} at most against {} in the median call.",
                    sign.len(),
                    label(top),
                    bytes(peak(top)),
                    bytes(top.peak_stack_bytes_median + top.peak_heap_bytes_median)
                )),
        );
    }
    // The massif cross-check.
    let checked: Vec<&PkMemoryRecord> = records
        .iter()
        .filter(|r| r.massif.as_ref().is_some_and(|m| m.ran))
        .collect();
    if !checked.is_empty() {
        // Figures under 1 KiB are not compared: there glibc's chunk
        // rounding (ango counts usable sizes, massif requested ones) and
        // massif's sampling of short-lived blocks decide the ratio.
        let within = |x: Option<f64>, ango: u64| {
            ango < MASSIF_FLOOR || x.is_none_or(|x| (0.9..=1.1).contains(&x))
        };
        let agree = checked
            .iter()
            .filter(|r| {
                let m = r.massif.as_ref().expect("checked");
                within(m.stack_ratio, r.peak_stack_bytes) && within(m.heap_ratio, r.peak_heap_bytes)
            })
            .count();
        let off: Vec<String> = checked
            .iter()
            .filter_map(|r| {
                let m = r.massif.as_ref().expect("checked");
                let mut v = Vec::new();
                if !within(m.stack_ratio, r.peak_stack_bytes) {
                    v.push(format!("stack {:.2}", m.stack_ratio.unwrap_or(0.0)));
                }
                if !within(m.heap_ratio, r.peak_heap_bytes) {
                    v.push(format!("heap {:.2}", m.heap_ratio.unwrap_or(0.0)));
                }
                (!v.is_empty()).then(|| format!("{} {} ({})", label(r), r.operation, v.join(", ")))
            })
            .collect();
        let skipped = records
            .iter()
            .filter(|r| r.massif.as_ref().is_some_and(|m| !m.ran))
            .count();
        let share = agree as f64 / checked.len() as f64;
        out.push(
            new("valgrind massif agrees with ango's figures within 10% (stack and heap)")
                .id("pk-memory-massif", &[])
                .from(checked.iter().map(|r| r.key()))
                .value(share * 100.0, "%")
                .verdict(if agree == checked.len() {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "{agree} of {} points checked under massif agree within 10% on both the \
                     stack and the heap (figures under 1 KiB, and a zero on either side, are not \
                     compared); {skipped} could not run under valgrind.{}",
                    checked.len(),
                    if off.is_empty() {
                        String::new()
                    } else {
                        format!(" Outside: {}.", off.join("; "))
                    }
                )),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::{Header, MassifCheck, SuiteId};

    fn rec(algo: &str, backend: &str, op: &str, stack: u64, heap: u64) -> PkMemoryRecord {
        PkMemoryRecord {
            head: Header::new(SuiteId::PkMemory, "r"),
            library_version: String::new(),
            algorithm: algo.into(),
            kind: if op == "sign" { "sig" } else { "kem" }.into(),
            operation: op.into(),
            backend: backend.into(),
            variant: None,
            implementation: String::new(),
            calls: 10,
            warmup: 3,
            peak_stack_bytes: stack,
            peak_stack_bytes_median: stack,
            peak_heap_bytes: heap,
            peak_heap_bytes_median: heap,
            allocations: 1,
            allocations_median: 1,
            stack_floor_bytes: 200,
            sizes: vec![ango_core::SizeEntry::new("public_key", "raw", 1184)],
            unseen: "x".into(),
            massif: None,
            warnings: Vec::new(),
            method: "m".into(),
            time: String::new(),
        }
    }

    #[test]
    fn findings_read_the_largest_point_the_spread_and_massif() {
        let mut a = rec("ml-kem-768", "liboqs", "keygen", 12_000, 3_600);
        a.massif = Some(MassifCheck {
            ran: true,
            peak_stack_bytes: Some(12_500),
            peak_heap_bytes: Some(3_600),
            stack_ratio: Some(12_500.0 / 12_000.0),
            heap_ratio: Some(1.0),
            note: String::new(),
        });
        let b = rec("ml-kem-768", "rustcrypto", "keygen", 200_000, 0);
        let f = findings(&[a, b]);
        let by = |id: &str| f.iter().find(|x| x.id == format!("ango-{id}")).unwrap();
        assert_eq!(by("pk-memory-pq-64k").verdict, Verdict::DoesNotHold);
        let s = by("pk-memory-spread");
        assert!((s.value.unwrap() - 200_000.0 / 15_600.0).abs() < 1e-9);
        assert_eq!(s.verdict, Verdict::Holds);
        assert_eq!(by("pk-memory-massif").verdict, Verdict::Holds);
    }

    #[test]
    fn the_table_is_seed_003s_layout_with_memory_columns() {
        let m = PkMemory {
            records: vec![rec("ml-kem-768", "liboqs", "keygen", 12_000, 3_600)],
            pk: Vec::new(),
        };
        let t = m.table(&Style::default());
        assert!(
            t.contains("KEM key generation (seed 003 Table 2): memory of one call"),
            "{t}"
        );
        assert!(
            t.contains("11.7 KiB") && t.contains("3.5 KiB") && t.contains("pk 1184"),
            "{t}"
        );
        assert!(m
            .csv()
            .starts_with("run_id,algorithm,kind,operation,backend"));
    }
}
