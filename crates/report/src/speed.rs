//! The speed and latency studies' sections of the report page: findings,
//! the own code against the fastest library, charts and tables.

use crate::anchor;
use crate::figure;
use crate::formats::{point_label, rows};
use crate::svg::{escape, Chart, Series, PALETTE};
use crate::table::{cell, Table};
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

/// The figures of seed 000 (its Figs 5.7–5.18): per hardware setting,
/// each algorithm's fastest implementation at each size (one line an
/// algorithm, as the seed compares algorithms); then per algorithm and
/// setting one line per implementation. Encryption, as `openssl speed`
/// measures; at most eight lines a chart.
fn charts(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    let mut out = String::new();
    let enc: Vec<&SpeedRecord> = records
        .iter()
        .filter(|r| r.operation == "encrypt")
        .collect();
    let hws = distinct(records, |r| r.hw.clone());
    let mut algos = distinct(records, |r| r.algorithm.clone());
    algos.sort_by_key(|a| algo_index(a));
    let mut first = true;
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
                for r in enc.iter().filter(|r| &r.hw == hw && &r.algorithm == a) {
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
            out.push_str(&figure::lines(
                &if first {
                    anchor::SPEED_CHARTS.to_string()
                } else {
                    format!("{}-{hw}-{title}", anchor::SPEED_CHARTS).to_lowercase()
                },
                Chart {
                    title: format!("{title}, hw={hw}: the fastest here at each size"),
                    x_label: "message size (bytes)".into(),
                    y_label: "MB/s".into(),
                    series,
                },
                figure::Axes::Log,
                &format!(
                    "Each algorithm's best implementation at each size: median throughput (MB/s, \
                     log scale) against message size (bytes, log scale), encryption, hw={}; \
                     whiskers span the interquartile range.",
                    escape(hw)
                ),
            ));
            first = false;
        }
    }
    let mut each = String::new();
    let mut n = 0;
    for a in &algos {
        for hw in &hws {
            let rs: Vec<&SpeedRecord> = enc
                .iter()
                .copied()
                .filter(|r| &r.algorithm == a && &r.hw == hw)
                .collect();
            let mut labels: Vec<String> = Vec::new();
            for r in &rs {
                let l = point_label(r, variant_providers).0;
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
            let series: Vec<Series> = labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let pts: Vec<&SpeedRecord> = rs
                        .iter()
                        .copied()
                        .filter(|r| &point_label(r, variant_providers).0 == l)
                        .collect();
                    series_from(&pts, l.clone(), PALETTE[i % PALETTE.len()], 0)
                })
                .collect();
            if series.is_empty() {
                continue;
            }
            n += 1;
            each.push_str(&figure::lines(
                &format!("s000-{}-{hw}", ango_core::finding::slug(a)),
                Chart {
                    title: format!("{a}, hw={hw}"),
                    x_label: "message size (bytes)".into(),
                    y_label: "MB/s".into(),
                    series,
                },
                figure::Axes::Log,
                &format!(
                    "{}, hw={}: median throughput of each library (ango: its automatic \
                     variant), encryption; whiskers span the interquartile range.",
                    escape(a),
                    escape(hw)
                ),
            ));
        }
    }
    if n > 0 {
        let _ = write!(
            out,
            "<details class=\"charts\"><summary>Each algorithm by library, every hardware setting \
             ({n} charts)</summary><div class=\"grid\">{each}</div></details>"
        );
    }
    out
}

/// Seed 000's table numbers for a kind of algorithm and a setting.
fn seed_tables_of(aead: bool, hw: &str) -> &'static str {
    match (aead, hw) {
        (true, "on") => "seed 000 Tables 5.5–5.8",
        (false, "on") => "seed 000 Tables 5.9–5.12",
        (true, _) => "seed 000 Tables 5.13–5.16",
        (false, _) => "seed 000 Tables 5.17–5.20",
    }
}

/// One library's tables in seed 000's layout (its Tables 5.5–5.20): per
/// kind (authenticated encryption; block and stream ciphers) and hardware
/// setting, a row per algorithm and a column per message size, in 1000s
/// of bytes per second as `openssl speed` prints them (encryption).
fn library_tables(records: &[&SpeedRecord], backend: &str) -> String {
    let u = Unit::Kbps;
    let mut out = String::new();
    let hws = ["on", "off", "seed000"];
    let mut sizes: Vec<u64> = records.iter().map(|r| r.size_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for hw in hws {
        for aead in [true, false] {
            let mut rows: Vec<(String, &str)> = Vec::new();
            for r in records.iter().filter(|r| {
                r.hw == hw
                    && r.operation == "encrypt"
                    && Algorithm::parse(&r.algorithm)
                        .is_ok_and(|x| (x.kind() == ango_core::Kind::Aead) == aead)
            }) {
                let k = (r.algorithm.clone(), r.implementation.as_str());
                if !rows.contains(&k) {
                    rows.push(k);
                }
            }
            if rows.is_empty() {
                continue;
            }
            rows.sort_by_key(|(a, _)| algo_index(a));
            let several = rows
                .iter()
                .any(|(a, i)| rows.iter().any(|(b, j)| a == b && i != j));
            let mut head = vec!["type".to_string()];
            head.extend(sizes.iter().map(|s| format!("{s} bytes")));
            let table_rows = rows
                .iter()
                .map(|(a, imp)| {
                    let mut row = vec![cell(
                        if several || backend == "ango" {
                            format!("{a} ({imp})")
                        } else {
                            a.clone()
                        },
                        "",
                    )];
                    row.extend(sizes.iter().map(|s| {
                        let r = records.iter().find(|r| {
                            &r.algorithm == a
                                && r.implementation == *imp
                                && r.hw == hw
                                && r.operation == "encrypt"
                                && r.size_bytes == *s
                        });
                        match r.and_then(|r| Some((u.value(r)?, r.noisy))) {
                            Some((v, noisy)) => cell(u.fmt(v), if noisy { "n noisy" } else { "n" }),
                            None => cell("-", "n"),
                        }
                    }));
                    row
                })
                .collect();
            let t = Table {
                title: format!(
                    "{backend}: {}, AES-NI {} ({}), 1000s of bytes per second",
                    if aead {
                        "authenticated encryption"
                    } else {
                        "encryption algorithms"
                    },
                    match hw {
                        "on" => "on",
                        "off" => "off",
                        _ => "off by seed 000's own mask",
                    },
                    seed_tables_of(aead, hw)
                ),
                head,
                rows: table_rows,
                ..Table::default()
            };
            out.push_str(&t.html());
        }
    }
    out
}

/// Seed 000's tables for every library: OpenSSL's (the seed's library)
/// open, the others folded.
fn seed_tables(records: &[SpeedRecord]) -> String {
    let mut backends = distinct(records, |r| r.backend.clone());
    backends.sort_by_key(|b| match b.as_str() {
        "openssl" => 0,
        "ango" => 1,
        _ => 2,
    });
    let mut out = String::from(
        "<h3 id=\"s000-tables\">Seed 000's Tables 5.5–5.20 as measured here</h3><p>The \
         seed's layout: per library, authenticated encryption and the other ciphers, AES-NI on \
         and off, a row per algorithm, a column per message size, in 1000s of bytes per second \
         (encryption, one whole message per operation; yellow: a noisy point). OpenSSL's are \
         open; every other library's fold out.</p>",
    );
    for b in &backends {
        let rs: Vec<&SpeedRecord> = records.iter().filter(|r| &r.backend == b).collect();
        let body = library_tables(&rs, b);
        if body.is_empty() {
            continue;
        }
        if b == "openssl" {
            let _ = write!(
                out,
                "<div id=\"{}\" class=\"scroll\">{body}</div>",
                anchor::speed_lib(b)
            );
        } else {
            let _ = write!(
                out,
                "<details id=\"{}\"><summary>{}</summary><div class=\"scroll\">{body}</div></details>",
                anchor::speed_lib(b),
                escape(b)
            );
        }
    }
    out
}

/// Seed 004's speed comparison (its §3, `openssl speed` at 8 KiB):
/// AES-128-GCM against ChaCha20-Poly1305 at the size closest to 8 KiB, per
/// library and hardware setting, with the paired ratio where both were
/// sampled in turn.
pub fn seed004_speed(records: &[SpeedRecord]) -> String {
    let gcm = Algorithm::Aes128Gcm.name();
    let cp = Algorithm::ChaCha20Poly1305.name();
    let Some(size) = records
        .iter()
        .map(|r| r.size_bytes)
        .min_by_key(|s| s.abs_diff(8192))
    else {
        return String::new();
    };
    let find = |a: &str, b: &str, hw: &str| {
        records.iter().find(|r| {
            r.algorithm == a
                && r.backend == b
                && r.hw == hw
                && r.operation == "encrypt"
                && r.size_bytes == size
                && r.workers <= 1
        })
    };
    let mut rows = Vec::new();
    for b in distinct(records, |r| r.backend.clone()) {
        for hw in ["on", "off", "seed000"] {
            if let (Some(g), Some(c)) = (find(gcm, &b, hw), find(cp, &b, hw)) {
                let (r, lo, hi) = crate::findings::speedup(g, c);
                rows.push(vec![
                    cell(&b, ""),
                    cell(hw, ""),
                    cell(format!("{:.0}", g.bytes_per_second / 1e6), "n"),
                    cell(format!("{:.0}", c.bytes_per_second / 1e6), "n"),
                    cell(format!("{r:.2} [{lo:.2}–{hi:.2}]"), "n"),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let t = Table::new(
        "",
        &[
            "library",
            "hw",
            "AES-128-GCM MB/s",
            "ChaCha20-Poly1305 MB/s",
            "AES-GCM ÷ ChaCha20-Poly1305 time [95%]",
        ],
        rows,
    );
    format!(
        "<h3 id=\"{}\">Seed 004 §3: AES-GCM against ChaCha20-Poly1305 at {size} bytes</h3><p>The \
         seed's <code>openssl speed</code> comparison at 8 KiB, from the speed study's records: \
         above 1 AES-GCM is faster (the seed: about 2× on Haswell with AES instructions, \
         ChaCha20-Poly1305 about 3× without).</p><div class=\"scroll\">{}</div>",
        anchor::SPEED_004,
        t.html_table()
    )
}

/// Every point with its interval and robust CV, and the `openssl speed`
/// and cycles-per-byte layouts as text.
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

/// The speed study's part of seed 000's section: the seed's tables for
/// every library, its figures, the fastest implementation of each
/// algorithm, ango's own code against the fastest library, and every
/// point (folded).
pub fn section(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut out = seed_tables(records);
    let _ = write!(
        out,
        "<h3>Seed 000's figures: throughput by message size</h3>{}",
        charts(records, variant_providers)
    );
    out.push_str(&crate::summary::fastest_html(records));
    out.push_str(&paired_html(records, variant_providers));
    let _ = write!(
        out,
        "<details id=\"{}\"><summary>Every point: MB/s with its 95% interval and robust CV; \
         the layouts of <code>openssl speed</code> and cycles per byte</summary>{}</details>",
        anchor::SPEED_ALL,
        tables(records)
    );
    out
}

/// The own code against the fastest library, paired (empty without one).
fn paired_html(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    let rows = crate::formats::paired_rows(records, variant_providers);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<h3 id=\"{}\">ango's own code against the fastest library</h3><p>{}</p><div class=\"scroll\"><table><tr><th>point</th>\
         <th>bytes</th><th>× fastest</th><th>95% CI</th><th>library</th><th>rounds</th></tr>",
        anchor::SPEED_PAIRED,
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
    out.push_str("</table></div>");
    out
}

/// The latency study's part of seed 001's section: per algorithm, the
/// latency of every implementation against message length (seed 001's
/// figure, bands the 95% intervals), the crossover chart (the portable
/// code's time over each implementation's: above 1 it is faster), and the
/// seed's Table 1 with each median's 95% interval.
pub fn latency_section(records: &[SpeedRecord], variant_providers: &[String]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<p>Nanoseconds per message at each length (encryption), median with its 95% \
         confidence interval, every implementation sampled in turn in one run.</p>",
    );
    let label = |r: &SpeedRecord| point_label(r, variant_providers).0;
    let own = |l: &str| {
        records
            .iter()
            .any(|r| point_label(r, variant_providers) == (l.to_string(), true))
    };
    let mut algos = distinct(records, |r| r.algorithm.clone());
    algos.sort_by_key(|a| algo_index(a));
    for a in &algos {
        let rs: Vec<&SpeedRecord> = records
            .iter()
            .filter(|r| &r.algorithm == a && r.operation == "encrypt")
            .collect();
        let mut labels: Vec<String> = Vec::new();
        for r in &rs {
            if !labels.contains(&label(r)) {
                labels.push(label(r));
            }
        }
        // The portable code first: the crossover's base, drawn in every
        // facet's company.
        labels.sort_by_key(|l| !l.contains("/portable"));
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
        let _ = write!(out, "<h3>{}</h3>", escape(a));
        out.push_str(&figure::lines(
            &anchor::latency(a),
            Chart {
                title: format!("{a}: latency vs message length"),
                x_label: "message length (bytes)".into(),
                y_label: "ns per message".into(),
                series,
            },
            figure::Axes::Linear,
            &format!(
                "{}: latency against message length; bands are the 95% confidence intervals of \
                 the medians. Solid: ango's variants; dashed: libraries.",
                escape(a)
            ),
        ));
        // The crossover: the portable code's time over each other's.
        if let Some(base) = labels.iter().find(|l| l.contains("/portable")) {
            let base_pts: Vec<&&SpeedRecord> = rs.iter().filter(|r| &label(r) == base).collect();
            let series: Vec<Series> = labels
                .iter()
                .filter(|l| *l != base)
                .enumerate()
                .map(|(i, l)| Series {
                    label: l.clone(),
                    color: PALETTE[(i + 1) % PALETTE.len()],
                    style: if own(l) { 0 } else { 1 },
                    points: rs
                        .iter()
                        .filter(|r| &label(r) == l && r.size_bytes > 0)
                        .filter_map(|r| {
                            let b = base_pts.iter().find(|b| b.size_bytes == r.size_bytes)?;
                            Some((r.size_bytes as f64, b.stats.median / r.stats.median, None))
                        })
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            if !series.is_empty() {
                out.push_str(&figure::lines(
                    &format!("{}-crossover", anchor::latency(a)),
                    Chart {
                        title: format!("{a}: {base}'s time over each implementation's"),
                        x_label: "message length (bytes)".into(),
                        y_label: "× faster than portable".into(),
                        series,
                    },
                    figure::Axes::Linear,
                    &format!(
                        "The crossover (seed 001's finding): above 1 an implementation is faster \
                         than {}; where its line crosses 1 is the length from which the \
                         vectorised code wins.",
                        escape(base)
                    ),
                ));
            }
        }
        // Seed 001's Table 1.
        let sizes: Vec<u64> = crate::export::LATENCY_TABLE_SIZES
            .iter()
            .copied()
            .filter(|s| rs.iter().any(|r| r.size_bytes == *s))
            .collect();
        let mut head = vec!["implementation".to_string()];
        head.extend(sizes.iter().map(|s| format!("{s} B, ns [95% CI]")));
        let rows = labels
            .iter()
            .map(|l| {
                let mut row = vec![cell(l, "")];
                row.extend(sizes.iter().map(|s| {
                    match rs.iter().find(|r| &label(r) == l && r.size_bytes == *s) {
                        Some(r) => cell(
                            format!(
                                "{:.1} [{:.1}–{:.1}]",
                                r.stats.median, r.stats.ci95_low, r.stats.ci95_high
                            ),
                            if r.noisy { "n noisy" } else { "n" },
                        ),
                        None => cell("-", "n"),
                    }
                }));
                row
            })
            .collect();
        let t = Table {
            title: format!("Seed 001's Table 1: {a}, latency in ns at its lengths"),
            head,
            rows,
            ..Table::default()
        };
        let _ = write!(out, "<div class=\"scroll\">{}</div>", t.html());
    }
    out
}
