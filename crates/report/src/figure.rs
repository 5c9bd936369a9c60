//! Every chart of the page as a figure: at most [`MAX_SERIES`] series a
//! chart (more are split into facets of that many, "part i of n"), its
//! caption, and a table view of the same numbers folded under it. Each
//! figure says how many series it draws (`data-series`), so the page can
//! be checked.

use crate::svg::{band_chart, bar_chart, escape, line_chart, Bar, Chart, Series};
use crate::table::{cell, Table};
use std::fmt::Write;

/// The most series one chart draws.
pub const MAX_SERIES: usize = 8;

/// A number for a table view: at most four significant digits.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// The figure around one chart's SVG: its id (on the first facet), how
/// many series it draws, its caption and its table view.
pub fn figure(id: Option<&str>, svg: &str, series: usize, caption: &str, view: &Table) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<figure class=\"chart\"{} data-series=\"{series}\">{svg}<figcaption>{}</figcaption>\
         <details class=\"table-view\"><summary>Table view</summary><div class=\"scroll\">{}</div>\
         </details></figure>",
        id.map(|i| format!(" id=\"{}\"", escape(i)))
            .unwrap_or_default(),
        caption,
        view.html_table()
    );
    out
}

/// The caption of facet `i` of `n`.
fn part(caption: &str, i: usize, n: usize) -> String {
    if n > 1 {
        format!("{caption} (part {} of {n})", i + 1)
    } else {
        caption.to_string()
    }
}

/// The table view of a chart of lines: a row per x, a column per series,
/// each cell the median with its whisker or band in brackets.
fn lines_view(c: &Chart) -> Table {
    let mut xs: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut head = vec![c.x_label.clone()];
    head.extend(
        c.series
            .iter()
            .map(|s| format!("{} ({})", s.label, c.y_label)),
    );
    let rows = xs
        .iter()
        .map(|&x| {
            let mut row = vec![cell(num(x), "n")];
            row.extend(c.series.iter().map(|s| {
                let t = s
                    .points
                    .iter()
                    .find(|p| p.0 == x)
                    .map_or("-".into(), |p| match p.2 {
                        Some((lo, hi)) => format!("{} [{}–{}]", num(p.1), num(lo), num(hi)),
                        None => num(p.1),
                    });
                cell(t, "n")
            }));
            row
        })
        .collect();
    Table {
        title: String::new(),
        head,
        rows,
        ..Table::default()
    }
}

/// How a chart of lines draws its axes.
#[derive(Clone, Copy)]
pub enum Axes {
    /// Logarithmic x (sizes over decades) and y ([`line_chart`]).
    Log,
    /// Linear from zero, each series over its band ([`band_chart`]).
    Linear,
}

/// A chart of lines as figures of at most [`MAX_SERIES`] series each.
pub fn lines(id: &str, c: Chart, axes: Axes, caption: &str) -> String {
    let n = c.series.len().div_ceil(MAX_SERIES).max(1);
    let Chart {
        title,
        x_label,
        y_label,
        series,
    } = c;
    let mut groups: Vec<Vec<Series>> = Vec::new();
    for s in series {
        match groups.last_mut() {
            Some(g) if g.len() < MAX_SERIES => g.push(s),
            _ => groups.push(vec![s]),
        }
    }
    if groups.is_empty() {
        groups.push(Vec::new());
    }
    let mut out = String::new();
    for (i, g) in groups.into_iter().enumerate() {
        let k = g.len();
        let chart = Chart {
            title: if n > 1 {
                format!("{title} ({}/{n})", i + 1)
            } else {
                title.clone()
            },
            x_label: x_label.clone(),
            y_label: y_label.clone(),
            series: g,
        };
        let svg = match axes {
            Axes::Log => line_chart(&chart),
            Axes::Linear => band_chart(&chart),
        };
        out.push_str(&figure(
            (i == 0).then_some(id),
            &svg,
            k,
            &part(caption, i, n),
            &lines_view(&chart),
        ));
    }
    out
}

/// A bar chart as figures of at most [`MAX_SERIES`] series (colours)
/// each; the table view has a row per bar and a column per series.
pub fn bars(
    id: &str,
    title: &str,
    x_label: &str,
    series: &[&str],
    bars: &[Bar],
    mark: Option<(f64, String)>,
    caption: &str,
) -> String {
    let chunks: Vec<&[&str]> = if series.is_empty() {
        vec![&[][..]]
    } else {
        series.chunks(MAX_SERIES).collect()
    };
    let n = chunks.len();
    let mut out = String::new();
    for (i, names) in chunks.iter().enumerate() {
        let base = i * MAX_SERIES;
        let facet: Vec<Bar> = bars
            .iter()
            .map(|b| Bar {
                label: b.label.clone(),
                values: b
                    .values
                    .iter()
                    .filter(|(s, _)| (base..base + names.len()).contains(s))
                    .map(|&(s, v)| (s - base, v))
                    .collect(),
            })
            .filter(|b| !b.values.is_empty())
            .collect();
        let t = if n > 1 {
            format!("{title} ({}/{n})", i + 1)
        } else {
            title.to_string()
        };
        let svg = bar_chart(&t, x_label, names, &facet, mark.clone());
        let mut head = vec!["".to_string()];
        head.extend(names.iter().map(|s| format!("{s} ({x_label})")));
        let rows = facet
            .iter()
            .map(|b| {
                let mut row = vec![cell(&b.label, "")];
                row.extend((0..names.len()).map(|s| {
                    cell(
                        b.values
                            .iter()
                            .find(|v| v.0 == s)
                            .map_or("-".into(), |v| num(v.1)),
                        "n",
                    )
                }));
                row
            })
            .collect();
        let view = Table {
            title: String::new(),
            head,
            rows,
            ..Table::default()
        };
        out.push_str(&figure(
            (i == 0).then_some(id),
            &svg,
            names.len(),
            &part(caption, i, n),
            &view,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::PALETTE;

    fn series(n: usize) -> Vec<Series> {
        (0..n)
            .map(|i| Series {
                label: format!("s{i}"),
                color: PALETTE[i % PALETTE.len()],
                style: 0,
                points: vec![
                    (16.0, 1.0 + i as f64, Some((0.5, 2.0))),
                    (1024.0, 10.0, None),
                ],
            })
            .collect()
    }

    #[test]
    fn more_than_eight_series_are_split_and_every_figure_has_its_table() {
        let c = Chart {
            title: "t".into(),
            x_label: "bytes".into(),
            y_label: "MB/s".into(),
            series: series(11),
        };
        let html = lines("fig", c, Axes::Log, "cap");
        assert_eq!(html.matches("<figure class=\"chart\"").count(), 2);
        assert!(html.contains("data-series=\"8\"") && html.contains("data-series=\"3\""));
        assert_eq!(html.matches("class=\"table-view\"").count(), 2);
        assert_eq!(html.matches("id=\"fig\"").count(), 1);
        assert!(html.contains("cap (part 2 of 2)"));
        assert!(
            html.contains("<td class=\"n\">1.00 [0.5000–2.00]</td>"),
            "{html}"
        );
        let b = bars(
            "b",
            "t",
            "ns",
            &["a", "b", "c", "d", "e", "f", "g", "h", "i"],
            &[Bar {
                label: "x".into(),
                values: (0..9).map(|i| (i, i as f64)).collect(),
            }],
            None,
            "cap",
        );
        assert_eq!(b.matches("<figure class=\"chart\"").count(), 2);
        assert!(b.contains("data-series=\"1\"") && b.contains("<th>i (ns)</th>"));
    }
}
