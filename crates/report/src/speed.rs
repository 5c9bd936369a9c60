//! The speed and latency studies' sections of the report page: findings,
//! the own code against the fastest library, charts and tables.

use crate::formats::{point_label, rows};
use crate::svg::{escape, line_chart, Chart, Series, PALETTE};
use crate::unit::Unit;
use ango_core::{Algorithm, SpeedRecord};
use std::fmt::Write;

fn algo_index(name: &str) -> usize {
    Algorithm::parse(name)
        .ok()
        .and_then(|a| Algorithm::ALL.iter().position(|&b| b == a))
        .unwrap_or(0)
}

fn series_from(records: &[&SpeedRecord], label: String, color: &'static str, style: u8) -> Series {
    let u = Unit::MBps;
    Series {
        label,
        color,
        style,
        points: records
            .iter()
            .filter_map(|r| Some((r.size_bytes as f64, u.value(r)?, u.iqr(r))))
            .collect(),
    }
}

fn distinct<F: Fn(&SpeedRecord) -> String>(rs: &[SpeedRecord], f: F) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in rs {
        let k = f(r);
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// Charts of throughput against size. First, per hardware setting, one
/// line per algorithm: the best implementation at each size (as seed 000's
/// figures compare algorithms). Then small multiples: per algorithm and
/// setting, one line per implementation and operation, so no chart carries
/// more lines than the eye can follow.
fn charts(records: &[SpeedRecord]) -> String {
    let mut out = String::new();
    let hws = distinct(records, |r| r.hw.clone());
    let mut algos = distinct(records, |r| r.algorithm.clone());
    algos.sort_by_key(|a| algo_index(a));
    for hw in &hws {
        for (title, aead) in [("AEADs", true), ("ciphers", false)] {
            let mut series = Vec::new();
            for a in &algos {
                let is_aead = Algorithm::parse(a)
                    .map(|x| x.kind() == ango_core::Kind::Aead)
                    .unwrap_or(false);
                if is_aead != aead {
                    continue;
                }
                // The fastest record at each size.
                let mut best: std::collections::BTreeMap<u64, &SpeedRecord> =
                    std::collections::BTreeMap::new();
                for r in records
                    .iter()
                    .filter(|r| &r.hw == hw && &r.algorithm == a && r.operation == "encrypt")
                {
                    let e = best.entry(r.size_bytes).or_insert(r);
                    if r.bytes_per_second > e.bytes_per_second {
                        *e = r;
                    }
                }
                if best.is_empty() {
                    continue;
                }
                let pts: Vec<&SpeedRecord> = best.into_values().collect();
                series.push(series_from(
                    &pts,
                    a.clone(),
                    PALETTE[algo_index(a) % PALETTE.len()],
                    0,
                ));
            }
            if series.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "<figure>{}<figcaption>Each algorithm's best implementation at each size: median throughput (MB/s, log scale) against message size (bytes, log scale), encryption, hw={}; whiskers span the interquartile range. The charts below show every implementation.</figcaption></figure>",
                line_chart(&Chart {
                    title: format!("{title}, hw={hw}: the fastest here at each size"),
                    x_label: "message size (bytes)".into(),
                    y_label: "MB/s".into(),
                    series,
                }),
                escape(hw)
            );
        }
    }
    out.push_str("<div class=\"grid\">");
    for a in &algos {
        for hw in &hws {
            let combos = distinct(records, |r| {
                format!("{}|{}|{}", r.backend, r.implementation, r.operation)
            });
            let mut series = Vec::new();
            for c in &combos {
                let parts: Vec<&str> = c.split('|').collect();
                let pts: Vec<&SpeedRecord> = records
                    .iter()
                    .filter(|r| {
                        &r.algorithm == a
                            && &r.hw == hw
                            && r.backend == parts[0]
                            && r.implementation == parts[1]
                            && r.operation == parts[2]
                    })
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let several = combos
                    .iter()
                    .filter(|o| o.split('|').next() == Some(parts[0]))
                    .count()
                    > 1;
                let label = match (several, parts[2]) {
                    (true, op) if parts[0] == "ango" => format!("ango {} {op}", parts[1]),
                    (_, op) => format!("{} {op}", parts[0]),
                };
                let i = series.len();
                series.push(series_from(
                    &pts,
                    label,
                    PALETTE[i % PALETTE.len()],
                    u8::from(parts[2] == "decrypt"),
                ));
            }
            if series.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "<figure>{}<figcaption>{}, hw={}: median throughput by implementation; whiskers span the interquartile range; dashed: decryption.</figcaption></figure>",
                line_chart(&Chart {
                    title: format!("{a}, hw={hw}"),
                    x_label: "message size (bytes)".into(),
                    y_label: "MB/s".into(),
                    series,
                }),
                escape(a),
                escape(hw)
            );
        }
    }
    out.push_str("</div>");
    out
}

fn tables(records: &[SpeedRecord]) -> String {
    let mut out = String::new();
    let (sizes, rows) = rows(records);
    let u = Unit::MBps;
    out.push_str("<table><tr><th>algorithm</th><th>backend</th><th>implementation</th><th>hw</th><th>op</th>");
    for s in &sizes {
        let _ = write!(out, "<th>{s} B<br>MB/s [95% CI]<br>robust CV</th>");
    }
    out.push_str("</tr>");
    for (k, by) in &rows {
        let imp = by
            .values()
            .next()
            .map(|r| r.implementation.clone())
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            escape(&k.algorithm),
            escape(&k.backend),
            escape(&imp),
            escape(&k.hw),
            escape(&k.operation)
        );
        for s in &sizes {
            match by.get(s) {
                Some(r) => {
                    let v = u.value(r).unwrap_or(0.0);
                    let (lo, hi) = u.interval(r).unwrap_or((v, v));
                    let _ = write!(
                        out,
                        "<td class=\"n{}\" title=\"{} samples × {} iterations; median {:.1} ns/message\">{:.1} [{:.1}–{:.1}]<br>{:.2}%</td>",
                        if r.noisy { " noisy" } else { "" },
                        r.samples,
                        r.iterations_per_sample,
                        r.stats.median,
                        v,
                        lo,
                        hi,
                        r.stats.robust_cv * 100.0
                    );
                }
                None => out.push_str("<td>–</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    // The seed's own unit, as `openssl speed` prints it.
    let label = records
        .first()
        .map(|r| r.cycle_source.as_str())
        .unwrap_or("none");
    let cyc = if label == "tsc" {
        "TSC cycles"
    } else {
        "cycles"
    };
    let _ = write!(
        out,
        "<h3>As <code>openssl speed</code> prints it</h3><pre>{}</pre><h3>{cyc} per byte</h3><pre>{}</pre>",
        escape(&crate::formats::table(records, Unit::Kbps, cyc)),
        escape(&crate::formats::table(records, Unit::Cpb, cyc))
    );
    out
}

/// The speed study's section: its findings, charts and tables.
pub fn section(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    let mut out = String::new();
    let f = crate::findings::speed(records);
    if !f.is_empty() {
        out.push_str("<h2>Findings</h2>");
        out.push_str(&crate::findings::html(&f));
    }
    out.push_str(&paired_html(records, variant_providers));
    if !records.is_empty() {
        out.push_str("<h2>Charts</h2>");
        out.push_str(&charts(records));
        out.push_str("<h2>Tables</h2>");
        out.push_str(&tables(records));
    }
    out
}

/// The own code against the fastest library, paired (empty without one).
fn paired_html(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    let rows = crate::formats::paired_rows(records, variant_providers);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<h2>Own code against the fastest library</h2><p>{}</p><table><tr><th>point</th>\
         <th>bytes</th><th>× fastest</th><th>95% CI</th><th>library</th><th>rounds</th></tr>",
        escape(crate::formats::PAIRED_NOTE)
    );
    for r in rows {
        let class = if r.ci95_low > 1.0 {
            "ok"
        } else if r.ci95_high < 1.0 {
            "fail"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=n>{}</td><td class=\"n {class}\">{:.2}</td><td class=n>{:.2}–{:.2}</td><td>{}</td><td class=n>{}{}</td></tr>",
            escape(&r.label),
            r.size,
            r.ratio,
            r.ci95_low,
            r.ci95_high,
            escape(&r.library),
            r.rounds,
            if r.steady { "" } else { "*" }
        );
    }
    out.push_str("</table>");
    out
}

/// The latency study's section (seed 001).
pub fn latency_section(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Latency study (seed 001)</h2><p>Nanoseconds per message at each length, median with its 95% confidence interval (bands in the charts), every implementation in one run.</p>");
    out.push_str(&crate::findings::html(&crate::findings::latency(
        records,
        variant_providers,
    )));
    let label = |r: &SpeedRecord| point_label(r, variant_providers).0;
    let own = |l: &str| {
        records
            .iter()
            .any(|r| point_label(r, variant_providers) == (l.to_string(), true))
    };
    let mut algos = distinct(records, |r| r.algorithm.clone());
    algos.sort_by_key(|a| algo_index(a));
    for a in &algos {
        let rs: Vec<&SpeedRecord> = records.iter().filter(|r| &r.algorithm == a).collect();
        let mut labels: Vec<String> = Vec::new();
        for r in &rs {
            if !labels.contains(&label(r)) {
                labels.push(label(r));
            }
        }
        let series: Vec<Series> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| Series {
                label: l.clone(),
                color: PALETTE[i % PALETTE.len()],
                style: if own(l) { 0 } else { 1 },
                points: rs
                    .iter()
                    .filter(|r| &label(r) == l)
                    .map(|r| {
                        (
                            r.size_bytes as f64,
                            r.stats.median,
                            Some((r.stats.ci95_low, r.stats.ci95_high)),
                        )
                    })
                    .collect(),
            })
            .collect();
        let _ = write!(
            out,
            "<figure>{}<figcaption>{}: latency against message length; bands are the 95% confidence intervals of the medians. Dashed: libraries.</figcaption></figure>",
            crate::svg::band_chart(&Chart {
                title: format!("{a}: latency vs message length"),
                x_label: "message length (bytes)".into(),
                y_label: "ns per message".into(),
                series,
            }),
            escape(a)
        );
        // Seed 001's Table 1.
        let sizes: Vec<u64> = [16u64, 64, 512, 1024, 2048, 4096]
            .into_iter()
            .filter(|s| rs.iter().any(|r| r.size_bytes == *s))
            .collect();
        out.push_str("<table><tr><th>implementation</th>");
        for s in &sizes {
            let _ = write!(out, "<th>{s} B<br>ns [95% CI]</th>");
        }
        out.push_str("</tr>");
        for l in &labels {
            let _ = write!(out, "<tr><td>{}</td>", escape(l));
            for s in &sizes {
                match rs.iter().find(|r| &label(r) == l && r.size_bytes == *s) {
                    Some(r) => {
                        let _ = write!(
                            out,
                            "<td class=\"n{}\">{:.1} [{:.1}–{:.1}]</td>",
                            if r.noisy { " noisy" } else { "" },
                            r.stats.median,
                            r.stats.ci95_low,
                            r.stats.ci95_high
                        );
                    }
                    None => out.push_str("<td>–</td>"),
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
    }
    out
}
