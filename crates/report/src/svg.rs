//! Inline SVG line charts with logarithmic axes. Text uses the generic
//! `sans-serif` family and is anchored, never measured, so a chart looks the
//! same whatever fonts the viewing machine has.

use std::fmt::Write;

/// (x, y, optional (low, high) whisker).
pub type Point = (f64, f64, Option<(f64, f64)>);

pub struct Series {
    pub label: String,
    pub color: &'static str,
    /// 0 solid, 1 dashed, 2 dotted, 3 points only (a scatter).
    pub style: u8,
    pub points: Vec<Point>,
}

pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

pub const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22", "#393b79", "#ad494a",
];

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An axis label: at most three decimals, no trailing zeros, k and M for
/// thousands and millions ("1.5k", "20M", "0.25").
fn fmt_num(v: f64) -> String {
    let trim = |x: f64| {
        let t = format!("{x:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if v >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

/// One legend entry: a line in the series' style (a dot for a scatter's)
/// and its label.
fn legend(out: &mut String, lx: f64, ly: f64, s: &Series) {
    if s.style == 3 {
        let _ = write!(
            out,
            r#"<circle cx="{}" cy="{ly}" r="3" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            lx + 11.0,
            s.color,
            lx + 28.0,
            ly + 4.0,
            escape(&s.label)
        );
        return;
    }
    let _ = write!(
        out,
        r#"<line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" stroke="{}" stroke-width="2"{}/><text x="{}" y="{}">{}</text>"#,
        lx + 22.0,
        s.color,
        dash_attr(s.style),
        lx + 28.0,
        ly + 4.0,
        escape(&s.label)
    );
}

/// The SVG attribute for a line style (0 solid, 1 dashed, 2 dotted; 3, a
/// scatter's points, draws no line).
fn dash_attr(style: u8) -> &'static str {
    match style {
        0 => "",
        1 => r#" stroke-dasharray="6 3""#,
        _ => r#" stroke-dasharray="2 3""#,
    }
}

/// Render a chart: x on a log2 axis (message sizes), y on a log10 axis.
pub fn line_chart(c: &Chart) -> String {
    let (w, h) = (760.0, 380.0);
    let (ml, mr, mt, mb) = (70.0, 250.0, 34.0, 48.0);
    let pw = w - ml - mr;
    let ph = h - mt - mb;
    let pts = c.series.iter().flat_map(|s| s.points.iter());
    let xs: Vec<f64> = pts.clone().map(|p| p.0).filter(|x| *x > 0.0).collect();
    let ys: Vec<f64> = pts
        .flat_map(|p| {
            let mut v = vec![p.1];
            if let Some((lo, hi)) = p.2 {
                v.extend([lo, hi]);
            }
            v
        })
        .filter(|y| *y > 0.0 && y.is_finite())
        .collect();
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="11" role="img"><title>{}</title><rect width="{w}" height="{h}" fill="white"/>"#,
        escape(&c.title)
    );
    let _ = write!(
        out,
        r#"<text x="{}" y="20" font-size="14" font-weight="bold">{}</text>"#,
        ml,
        escape(&c.title)
    );
    if xs.is_empty() || ys.is_empty() {
        out.push_str(r#"<text x="80" y="100">no data</text></svg>"#);
        return out;
    }
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::MAX, f64::min).log2(),
        xs.iter().cloned().fold(f64::MIN, f64::max).log2(),
    );
    let (x0, x1) = if x1 - x0 < 1e-9 {
        (x0 - 1.0, x1 + 1.0)
    } else {
        (x0, x1)
    };
    // The y range snaps to the 1-2-5 ticks around the data.
    let nice = |v: f64, up: bool| -> f64 {
        let d = v.log10().floor();
        let steps = [1.0, 2.0, 5.0, 10.0];
        let m = v / 10f64.powf(d);
        let pick = if up {
            steps
                .iter()
                .copied()
                .find(|s| *s >= m - 1e-9)
                .unwrap_or(10.0)
        } else {
            steps
                .iter()
                .rev()
                .copied()
                .find(|s| *s <= m + 1e-9)
                .unwrap_or(1.0)
        };
        (pick * 10f64.powf(d)).log10()
    };
    let y0 = nice(ys.iter().cloned().fold(f64::MAX, f64::min), false);
    let y1 = nice(ys.iter().cloned().fold(f64::MIN, f64::max), true).max(y0 + 0.3);
    let px = |x: f64| ml + (x.log2() - x0) / (x1 - x0) * pw;
    let py = |y: f64| mt + ph - (y.log10() - y0) / (y1 - y0) * ph;

    // Grid and y ticks at 1, 2, 5 per decade.
    let mut d = y0.floor() as i32;
    while d <= y1.ceil() as i32 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(d);
            if v.log10() > y1 + 1e-9 || v.log10() < y0 - 1e-9 {
                continue;
            }
            let y = py(v);
            let major = m == 1.0;
            let _ = write!(
                out,
                r##"<line x1="{ml}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="{}" />"##,
                ml + pw,
                if major { "#ccc" } else { "#eee" }
            );
            let _ = write!(
                out,
                r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
                ml - 6.0,
                y + 4.0,
                fmt_num(v)
            );
        }
        d += 1;
    }
    let mut sizes: Vec<f64> = xs.clone();
    sizes.sort_by(|a, b| a.partial_cmp(b).unwrap());
    sizes.dedup();
    // Many distinct x values (a scatter's): ticks at 1, 2 and 5 per decade
    // instead of one per value.
    if sizes.len() > 16 {
        let (lo, hi) = (sizes[0], sizes[sizes.len() - 1]);
        let mut ticks = Vec::new();
        let mut d = lo.log10().floor() as i32;
        while 10f64.powi(d) <= hi * 1.000_001 {
            for m in [1.0, 2.0, 5.0] {
                let v = m * 10f64.powi(d);
                if v >= lo * 0.999_999 && v <= hi * 1.000_001 {
                    ticks.push(v);
                }
            }
            d += 1;
        }
        sizes = ticks;
    }
    let step = (sizes.len() / 12).max(1);
    for (i, s) in sizes.iter().enumerate() {
        let x = px(*s);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{mt}" y2="{}" stroke="#eee"/>"##,
            mt + ph
        );
        if i % step == 0 {
            let _ = write!(
                out,
                r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                mt + ph + 16.0,
                fmt_num(*s)
            );
        }
    }
    let _ = write!(
        out,
        r##"<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
    );
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        ml + pw / 2.0,
        h - 10.0,
        escape(&c.x_label)
    );
    let _ = write!(
        out,
        r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        mt + ph / 2.0,
        escape(&c.y_label)
    );

    for (i, s) in c.series.iter().enumerate() {
        let mut p: Vec<&Point> = s.points.iter().filter(|p| p.0 > 0.0 && p.1 > 0.0).collect();
        p.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        let dash = dash_attr(s.style);
        let path: Vec<String> = p
            .iter()
            .map(|q| format!("{:.1},{:.1}", px(q.0), py(q.1)))
            .collect();
        // Style 3 is a scatter: points only.
        if s.style != 3 {
            let _ = write!(
                out,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.8"{dash} points="{}"><title>{}</title></polyline>"#,
                s.color,
                path.join(" "),
                escape(&s.label)
            );
        }
        for q in &p {
            if let Some((lo, hi)) = q.2 {
                if lo > 0.0 && hi > 0.0 {
                    let _ = write!(
                        out,
                        r#"<line x1="{x:.1}" x2="{x:.1}" y1="{:.1}" y2="{:.1}" stroke="{}" stroke-width="1"/>"#,
                        py(lo),
                        py(hi),
                        s.color,
                        x = px(q.0)
                    );
                }
            }
            let _ = write!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.6" fill="{}"><title>{}: {} → {:.4}</title></circle>"#,
                px(q.0),
                py(q.1),
                s.color,
                escape(&s.label),
                q.0,
                q.1
            );
        }
        legend(&mut out, ml + pw + 12.0, mt + 6.0 + i as f64 * 16.0, s);
    }
    out.push_str("</svg>");
    out
}

/// A "nice" tick step (1, 2 or 5 × 10^k) giving about `n` ticks over `range`.
pub(crate) fn nice_step(range: f64, n: f64) -> f64 {
    let raw = (range / n).max(f64::MIN_POSITIVE);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// A chart with linear axes from zero, each series drawn as a line over a
/// translucent band spanning its (low, high) values — latency against
/// message length with the 95% interval of each median, as seed 001 draws it.
pub fn band_chart(c: &Chart) -> String {
    let (w, h) = (760.0, 380.0);
    let (ml, mr, mt, mb) = (70.0, 250.0, 34.0, 48.0);
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let pts = || c.series.iter().flat_map(|s| s.points.iter());
    let xmax = pts().map(|p| p.0).fold(0.0f64, f64::max).max(1.0);
    let ymax = pts()
        .map(|p| p.2.map_or(p.1, |b| b.1).max(p.1))
        .fold(0.0f64, f64::max)
        .max(1.0);
    let (xs, ys) = (nice_step(xmax, 8.0), nice_step(ymax, 6.0));
    let (x1, y1) = ((xmax / xs).ceil() * xs, (ymax / ys).ceil() * ys);
    let px = |x: f64| ml + x / x1 * pw;
    let py = |y: f64| mt + ph - y / y1 * ph;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="11" role="img"><title>{t}</title><rect width="{w}" height="{h}" fill="white"/><text x="{ml}" y="20" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(&c.title)
    );
    let mut y = 0.0;
    while y <= y1 + 1e-9 {
        let _ = write!(
            out,
            r##"<line x1="{ml}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            ml + pw,
            py(y),
            py(y),
            ml - 6.0,
            py(y) + 4.0,
            fmt_num(y)
        );
        y += ys;
    }
    let mut x = 0.0;
    while x <= x1 + 1e-9 {
        let _ = write!(
            out,
            r##"<line x1="{:.1}" x2="{:.1}" y1="{mt}" y2="{}" stroke="#f0f0f0"/><text x="{:.1}" y="{}" text-anchor="middle">{}</text>"##,
            px(x),
            px(x),
            mt + ph,
            px(x),
            mt + ph + 16.0,
            fmt_num(x)
        );
        x += xs;
    }
    let _ = write!(
        out,
        r##"<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#444"/><text x="{}" y="{}" text-anchor="middle">{}</text><text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>"##,
        ml + pw / 2.0,
        h - 10.0,
        escape(&c.x_label),
        mt + ph / 2.0,
        escape(&c.y_label)
    );
    for (i, s) in c.series.iter().enumerate() {
        let mut p: Vec<&Point> = s.points.iter().collect();
        p.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        let upper: Vec<String> = p
            .iter()
            .map(|q| format!("{:.1},{:.1}", px(q.0), py(q.2.map_or(q.1, |b| b.1))))
            .collect();
        let lower: Vec<String> = p
            .iter()
            .rev()
            .map(|q| format!("{:.1},{:.1}", px(q.0), py(q.2.map_or(q.1, |b| b.0))))
            .collect();
        let _ = write!(
            out,
            r#"<polygon points="{} {}" fill="{}" fill-opacity="0.18" stroke="none"/>"#,
            upper.join(" "),
            lower.join(" "),
            s.color
        );
        let line: Vec<String> = p
            .iter()
            .map(|q| format!("{:.1},{:.1}", px(q.0), py(q.1)))
            .collect();
        let dash = dash_attr(s.style);
        let _ = write!(
            out,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.5"{dash} points="{}"><title>{}</title></polyline>"#,
            s.color,
            line.join(" "),
            escape(&s.label)
        );
        legend(&mut out, ml + pw + 12.0, mt + 6.0 + i as f64 * 16.0, s);
    }
    out.push_str("</svg>");
    out
}

/// An HTML list of `items`, escaped.
pub fn bullet_list(items: &[String]) -> String {
    let mut out = String::from("<ul>");
    for i in items {
        let _ = write!(out, "<li>{}</li>", escape(i));
    }
    out.push_str("</ul>");
    out
}

/// One bar of a chart: its label, value and colour index.
pub struct Bar {
    pub label: String,
    pub values: Vec<(usize, f64)>,
}

/// A horizontal grouped bar chart on a linear axis from 0; `series`
/// names the colours; `mark` draws a labelled vertical line (the L1d size).
pub fn bar_chart(
    title: &str,
    x_label: &str,
    series: &[&str],
    bars: &[Bar],
    mark: Option<(f64, String)>,
) -> String {
    let per = series.len().max(1) as f64;
    let bar_h = 11.0;
    let group_h = per * bar_h + 8.0;
    let (ml, mr, mt) = (330.0, 70.0, 46.0);
    let w = 900.0;
    let pw = w - ml - mr;
    let h = mt + group_h * bars.len() as f64 + 44.0;
    let max = bars
        .iter()
        .flat_map(|b| b.values.iter().map(|v| v.1))
        .chain(mark.as_ref().map(|m| m.0))
        .fold(0.0f64, f64::max)
        .max(1.0);
    let px = |v: f64| ml + v / max * pw;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="11" role="img"><title>{t}</title><rect width="{w}" height="{h}" fill="white"/><text x="10" y="18" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(title)
    );
    let mut lx = ml;
    for (i, s) in series.iter().enumerate() {
        let _ = write!(
            out,
            r#"<rect x="{lx}" y="28" width="10" height="10" fill="{}"/><text x="{}" y="37">{}</text>"#,
            PALETTE[i % PALETTE.len()],
            lx + 14.0,
            escape(s)
        );
        lx += 24.0 + 6.5 * s.chars().count() as f64;
    }
    for (g, b) in bars.iter().enumerate() {
        let y0 = mt + g as f64 * group_h;
        let _ = write!(
            out,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            ml - 6.0,
            y0 + per * bar_h / 2.0 + 4.0,
            escape(&b.label)
        );
        for (k, &(si, v)) in b.values.iter().enumerate() {
            let y = y0 + k as f64 * bar_h;
            let _ = write!(
                out,
                r#"<rect x="{ml}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {v:.0}</title></rect><text x="{:.1}" y="{:.1}" font-size="10">{v:.0}</text>"#,
                (px(v) - ml).max(0.5),
                bar_h - 1.0,
                PALETTE[si % PALETTE.len()],
                escape(series.get(si).copied().unwrap_or("")),
                px(v) + 3.0,
                y + bar_h - 2.0
            );
        }
    }
    let bottom = mt + group_h * bars.len() as f64;
    let _ = write!(
        out,
        r##"<line x1="{ml}" x2="{ml}" y1="{mt}" y2="{bottom}" stroke="#444"/><line x1="{ml}" x2="{}" y1="{bottom}" y2="{bottom}" stroke="#444"/><text x="{}" y="{}" text-anchor="middle">{}</text>"##,
        ml + pw,
        ml + pw / 2.0,
        bottom + 30.0,
        escape(x_label)
    );
    if let Some((v, l)) = mark {
        let x = px(v);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{mt}" y2="{bottom}" stroke="#d62728" stroke-dasharray="5 3"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="#d62728">{}</text>"##,
            bottom + 14.0,
            escape(&l)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn band_chart_draws_a_band_per_series() {
        let c = super::Chart {
            title: "t".into(),
            x_label: "bytes".into(),
            y_label: "ns".into(),
            series: vec![super::Series {
                label: "a".into(),
                color: super::PALETTE[0],
                style: 0,
                points: vec![
                    (0.0, 10.0, Some((9.0, 11.0))),
                    (4096.0, 900.0, Some((880.0, 930.0))),
                ],
            }],
        };
        let s = super::band_chart(&c);
        assert_eq!(s.matches("<polygon").count(), 1);
        assert!(s.contains("<polyline") && s.ends_with("</svg>"));
        assert_eq!(super::nice_step(4096.0, 8.0), 1000.0);
        assert_eq!(super::fmt_num(1500.0), "1.5k");
        assert_eq!(super::fmt_num(20e6), "20M");
        assert_eq!(super::fmt_num(0.1 + 0.2), "0.3");
        assert_eq!(super::fmt_num(16.0), "16");
    }

    use super::*;

    #[test]
    fn chart_is_well_formed_and_escapes() {
        let c = Chart {
            title: "a<b".into(),
            x_label: "bytes".into(),
            y_label: "MB/s".into(),
            series: vec![Series {
                label: "x&y".into(),
                color: PALETTE[0],
                style: 1,
                points: vec![(16.0, 100.0, Some((90.0, 110.0))), (16384.0, 2000.0, None)],
            }],
        };
        let s = line_chart(&c);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert!(s.contains("a&lt;b") && s.contains("x&amp;y"));
        assert!(!s.contains("a<b"));
        assert!(s.contains("<polyline"));
    }

    #[test]
    fn empty_chart_says_so() {
        let c = Chart {
            title: "t".into(),
            x_label: String::new(),
            y_label: String::new(),
            series: vec![],
        };
        assert!(line_chart(&c).contains("no data"));
    }
}
