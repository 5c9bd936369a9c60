//! The TLS section's inline SVG charts: the stacked phase bars per group (seed 003 Figs 8, 13–16) and the server flight's size against its time (Figs 9–12).

use super::*;

/// Sum of a view's drawable phases (finite, not negative), ns.
pub(super) fn view_total(r: &TlsRecord, view: &[&str]) -> f64 {
    view.iter()
        .filter_map(|k| r.phases_ns.get(*k))
        .filter(|v| v.is_finite() && **v >= 0.0)
        .sum()
}

/// Tick values and labels for a linear axis from 0 covering `max`.
fn ticks(max: f64, n: f64) -> (f64, Vec<(f64, String)>) {
    let step = nice_step(max.max(f64::MIN_POSITIVE), n);
    let steps = (max / step).ceil().max(1.0) as usize;
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let t = (0..=steps)
        .map(|i| {
            let v = i as f64 * step;
            (v, format!("{v:.decimals$}"))
        })
        .collect();
    (steps as f64 * step, t)
}

/// A rectangle in a phase's colour, hatched for the red and yellow
/// families (pattern `tls-hatch-{id}`), with an optional tooltip.
fn swatch(s: &mut String, (x, y, w, h): (f64, f64, f64, f64), p: &Phase, id: usize, tip: &str) {
    let title = if tip.is_empty() {
        String::new()
    } else {
        format!("<title>{}</title>", escape(tip))
    };
    let _ = write!(
        s,
        r#"<rect x="{x:.2}" y="{y:.1}" width="{w:.2}" height="{h}" fill="{}">{title}</rect>"#,
        p.3
    );
    if p.2.hatched() {
        let _ = write!(
            s,
            r#"<rect x="{x:.2}" y="{y:.1}" width="{w:.2}" height="{h}" fill="url(#tls-hatch-{id})" pointer-events="none"/>"#
        );
    }
}

/// A segment the phase chart draws: its legend label, the phases of
/// seed 003's legend it adds up, and the phase whose colour it takes.
type Drawn = (&'static str, &'static [&'static str], &'static str);

/// The client's view as drawn: the TCP handshake's five phases as one
/// segment (the table view has each), so a chart has eight series.
const CLIENT_DRAWN: [Drawn; 8] = [
    (
        "TCP handshake (SYN sending -> Client Hello send)",
        TLS_CLIENT_VIEW.split_at(5).0,
        "ack_syn_send_to_ack_send",
    ),
    (
        "Client Hello sending",
        &["client_hello_sending"],
        "client_hello_sending",
    ),
    (
        "Client Hello rcv -> Server Hello send",
        &["client_hello_rcv_to_server_hello_send"],
        "client_hello_rcv_to_server_hello_send",
    ),
    (
        "Server Hello sending",
        &["server_hello_sending"],
        "server_hello_sending",
    ),
    (
        "Server Hello rcv -> Certificate rcv",
        &["server_hello_rcv_to_certificate_rcv"],
        "server_hello_rcv_to_certificate_rcv",
    ),
    (
        "Certificate rcv -> Certificate Verify rcv",
        &["certificate_rcv_to_certificate_verify_rcv"],
        "certificate_rcv_to_certificate_verify_rcv",
    ),
    (
        "Certificate Verify rcv -> Finished rcv",
        &["certificate_verify_rcv_to_finished_rcv"],
        "certificate_verify_rcv_to_finished_rcv",
    ),
    (
        "Finished rcv -> Finished send",
        &["finished_rcv_to_finished_send"],
        "finished_rcv_to_finished_send",
    ),
];

/// The server's view as drawn: the TCP handshake and the Client Hello's
/// arrival as one segment.
const SERVER_DRAWN: [Drawn; 7] = [
    (
        "TCP handshake (SYN sending -> Client Hello rcv)",
        TLS_SERVER_VIEW.split_at(6).0,
        "ack_syn_send_to_ack_send",
    ),
    (
        "Client Hello rcv -> Server Hello send",
        &["client_hello_rcv_to_server_hello_send"],
        "client_hello_rcv_to_server_hello_send",
    ),
    (
        "Server Hello send -> Certificate send",
        &["server_hello_send_to_certificate_send"],
        "server_hello_send_to_certificate_send",
    ),
    (
        "Certificate send -> Certificate Verify send",
        &["certificate_send_to_certificate_verify_send"],
        "certificate_send_to_certificate_verify_send",
    ),
    (
        "Certificate Verify send -> Finished send",
        &["certificate_verify_send_to_finished_send"],
        "certificate_verify_send_to_finished_send",
    ),
    (
        "Finished sending",
        &["finished_sending"],
        "finished_sending",
    ),
    (
        "Finished rcv -> Finished send",
        &["finished_rcv_to_finished_send"],
        "finished_rcv_to_finished_send",
    ),
];

/// One view of one group's handshakes as stacked bars (seed 003 Figs 8
/// and 13–16): a bar per combination, segments in the legend's order, on
/// a shared axis of `axis_ns`; a figure with its table view (every phase
/// of the legend, ms). `id` keeps the hatch pattern's id unique.
pub(super) fn phase_chart(
    group: &str,
    rows: &[&TlsRecord],
    axis_ns: f64,
    id: usize,
    link: &str,
    client: bool,
) -> String {
    let (drawn, view, name): (&[Drawn], &[&str], &str) = if client {
        (&CLIENT_DRAWN, &TLS_CLIENT_VIEW, "client")
    } else {
        (&SERVER_DRAWN, &TLS_SERVER_VIEW, "server")
    };
    let (width, left, right, top, bar, row) = (940.0, 250.0, 60.0, 40.0, 13.0, 20.0);
    let pw = width - left - right;
    let (axis_ms, tick_list) = ticks(axis_ns / 1e6, 8.0);
    let px = |ns: f64| ns / 1e6 / axis_ms * pw;
    let plot_h = row * rows.len() as f64;
    let legend_top = top + plot_h + 52.0;
    let height = legend_top + (drawn.len() as f64 / 2.0).ceil() * 15.0 + 10.0;
    let title = format!("Group {group}: handshake phases, {name} view");
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" font-size="11" role="img"><title>{t}</title><defs><pattern id="tls-hatch-{id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="white" stroke-width="1.5" stroke-opacity="0.6"/></pattern></defs><rect width="{width}" height="{height}" fill="white"/><text x="{left}" y="20" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(&title)
    );
    for (v, label) in &tick_list {
        let x = left + v / axis_ms * pw;
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{:.1}" stroke="#e4e4e4"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
            top + plot_h,
            top + plot_h + 14.0
        );
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">ms since the SYN (sum of the phase medians)</text>"#,
        left + pw / 2.0,
        top + plot_h + 32.0
    );
    let mut untimed = Vec::new();
    let mut skipped = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let y = top + row * i as f64 + 3.0;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + bar - 2.0,
            escape(&pair(r))
        );
        if r.phases_ns.is_empty() {
            untimed.push(pair(r));
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#777">no wire timeline</text>"##,
                left + 4.0,
                y + bar - 2.0
            );
            continue;
        }
        let mut x = left;
        for (label, keys, colour) in drawn {
            let Some(p) = phase(colour) else { continue };
            let mut sum = 0.0;
            for key in *keys {
                match r.phases_ns.get(*key).copied() {
                    Some(ns) if ns.is_finite() && ns >= 0.0 => sum += ns,
                    other => skipped.push(format!(
                        "{} {name} view, {} ({})",
                        pair(r),
                        legend_label(key),
                        other.map_or("missing".into(), |v| format!("{} ms", ms(v)))
                    )),
                }
            }
            let w = px(sum);
            let tip = format!("{}: {label}: {} ms", pair(r), ms(sum));
            swatch(&mut s, (x, y, w, bar), p, id, &tip);
            x += w;
        }
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#333">{}</text>"##,
            x + 3.0,
            y + bar - 2.0,
            ms(view_total(r, view))
        );
    }
    let _ = write!(
        s,
        r##"<line x1="{left}" x2="{left}" y1="{top}" y2="{:.1}" stroke="#444"/>"##,
        top + plot_h
    );
    for (k, (label, _, colour)) in drawn.iter().enumerate() {
        let Some(p) = phase(colour) else { continue };
        let (lx, ly) = (
            20.0 + 460.0 * (k % 2) as f64,
            legend_top + 15.0 * (k / 2) as f64,
        );
        swatch(&mut s, (lx, ly - 9.0, 14.0, 10.0), p, id, "");
        let _ = write!(
            s,
            r#"<text x="{}" y="{ly:.1}">{}</text>"#,
            lx + 19.0,
            escape(label)
        );
    }
    s.push_str("</svg>");
    let mut caption = format!(
        "Group {}: each combination (server signature / CA signature) in the {name}'s view \
         (seed 003 Fig. 19); each segment is the median of that phase over the handshakes \
         timed on the wire (packet captures), so a bar is a sum of medians; the TCP handshake's \
         phases are drawn as one segment (the table view has every phase). Green: on the wire; \
         grey: TCP layer; blue: client processing or waiting for client data; red (hatched): \
         server processing; yellow (hatched): waiting for server data. {}.",
        escape(group),
        escape(link)
    );
    if !untimed.is_empty() {
        let _ = write!(
            caption,
            " No wire timeline (captures not possible or no handshake timed): {}.",
            escape(&untimed.join(", "))
        );
    }
    if !skipped.is_empty() {
        const SHOWN: usize = 12;
        let _ = write!(
            caption,
            " Not drawn, missing or negative: {}{}.",
            escape(&skipped[..skipped.len().min(SHOWN)].join("; ")),
            if skipped.len() > SHOWN {
                format!(" and {} more", skipped.len() - SHOWN)
            } else {
                String::new()
            }
        );
    }
    let mut head = vec!["server / CA".to_string()];
    head.extend(view.iter().map(|k| format!("{} (ms)", legend_label(k))));
    head.push("total (ms)".into());
    let table = Table {
        title: String::new(),
        head,
        rows: rows
            .iter()
            .map(|r| {
                let mut row = vec![cell(pair(r), "")];
                row.extend(
                    view.iter()
                        .map(|k| cell(r.phases_ns.get(*k).map_or("-".into(), |v| ms(*v)), "n")),
                );
                row.push(cell(ms(view_total(r, view)), "n"));
                row
            })
            .collect(),
        ..Table::default()
    };
    crate::figure::figure(None, &s, drawn.len(), &caption, &table)
}

/// A vertical reference line of a scatter chart.
struct Threshold {
    at: f64,
    label: String,
}

/// The points of one key-exchange group: (x, y, the combination's name).
struct Dots {
    label: String,
    color: &'static str,
    dots: Vec<(f64, f64, String)>,
}

/// A scatter chart on linear axes from zero with dashed vertical
/// thresholds. A threshold beyond four times the largest x would squash the
/// points: it is left out and its label returned for the caption. `None`
/// when there is no point.
fn scatter(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Dots],
    lines: &[Threshold],
) -> Option<(String, Vec<String>)> {
    let all = || series.iter().flat_map(|s| s.dots.iter());
    let x_data = all().map(|d| d.0).reduce(f64::max)?;
    let y_data = all().map(|d| d.1).fold(0.0, f64::max);
    let (drawn, omitted): (Vec<&Threshold>, Vec<&Threshold>) =
        lines.iter().partition(|t| t.at <= 4.0 * x_data);
    let x_max = drawn.iter().map(|t| t.at).fold(x_data, f64::max) * 1.05;
    let (x1, x_ticks) = ticks(x_max, 8.0);
    let (y1, y_ticks) = ticks(if y_data > 0.0 { y_data * 1.05 } else { 1.0 }, 6.0);
    let (w, h, ml, mr, mt, mb) = (760.0, 380.0, 70.0, 190.0, 34.0, 48.0);
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let px = |x: f64| ml + x / x1 * pw;
    let py = |y: f64| mt + ph - y / y1 * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="11" role="img"><title>{t}</title><rect width="{w}" height="{h}" fill="white"/><text x="{ml}" y="20" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(title)
    );
    for (v, l) in &y_ticks {
        let _ = write!(
            s,
            r##"<line x1="{ml}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end">{l}</text>"##,
            ml + pw,
            ml - 6.0,
            py(*v) + 4.0,
            y = py(*v)
        );
    }
    for (v, l) in &x_ticks {
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{mt}" y2="{:.1}" stroke="#f0f0f0"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{l}</text>"##,
            mt + ph,
            mt + ph + 16.0,
            x = px(*v)
        );
    }
    let _ = write!(
        s,
        r##"<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#444"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"##,
        ml + pw / 2.0,
        h - 10.0,
        escape(x_label),
        mt + ph / 2.0,
        escape(y_label)
    );
    for (i, t) in drawn.iter().enumerate() {
        let x = px(t.at);
        let (tx, anchor) = if x > ml + 0.7 * pw {
            (x - 4.0, "end")
        } else {
            (x + 4.0, "start")
        };
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{mt}" y2="{:.1}" stroke="#444" stroke-dasharray="6 3"/><text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}" fill="#444">{}</text>"##,
            mt + ph,
            mt + 14.0 + 14.0 * i as f64,
            escape(&t.label)
        );
    }
    for (i, se) in series.iter().enumerate() {
        for (x, y, name) in &se.dots {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{}" fill-opacity="0.85"><title>{} {}: {} → {:.3}</title></circle>"#,
                px(*x),
                py(*y),
                se.color,
                escape(&se.label),
                escape(name),
                count(*x),
                y
            );
        }
        let (lx, ly) = (ml + pw + 14.0, mt + 8.0 + 16.0 * i as f64);
        let _ = write!(
            s,
            r#"<circle cx="{lx:.1}" cy="{ly:.1}" r="4" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            se.color,
            lx + 10.0,
            ly + 4.0,
            escape(&se.label)
        );
    }
    s.push_str("</svg>");
    Some((s, omitted.iter().map(|t| t.label.clone()).collect()))
}

/// Seed 003 Figs 9–12: the server's flight against its time from
/// ServerHello sent to Finished sent, by bytes and by segments.
pub(super) fn flight_charts(records: &[TlsRecord], link: &str) -> String {
    let groups = distinct(records, |r| &r.group);
    let cwnd = records
        .iter()
        .find_map(|r| r.tcp.server_initial_cwnd)
        .unwrap_or(DEFAULT_CWND);
    let mss = records.iter().find_map(|r| r.tcp.server_mss);
    let window = format!("initial window {} segments", count(cwnd));
    let series = |x: fn(&TlsRecord) -> Option<f64>| -> Vec<Dots> {
        groups
            .iter()
            .enumerate()
            .map(|(i, g)| Dots {
                label: g.to_string(),
                color: PALETTE[i % PALETTE.len()],
                dots: records
                    .iter()
                    .filter(|r| r.group == *g)
                    .filter_map(|r| {
                        Some((x(r)?, r.server_sh_send_to_finished_send_ns? / 1e6, pair(r)))
                    })
                    .filter(|d| d.0.is_finite() && d.1.is_finite())
                    .collect(),
            })
            .collect()
    };
    let y_label = "ServerHello sent → Finished sent, ms";
    let missing = records
        .iter()
        .filter(|r| {
            r.server_flight_bytes.is_none() || r.server_sh_send_to_finished_send_ns.is_none()
        })
        .count();
    let mut common = format!(
        "One point per combination, coloured by key-exchange group: the server's flight (TCP payload from ServerHello to the end of the record holding Finished) against the server's time from ServerHello sent to Finished sent (E → H); wire times from the packet captures, medians over the handshakes. Dashed: OpenSSL's 4096-byte write buffer and the server's initial congestion window. {}.",
        escape(link)
    );
    if missing > 0 {
        let _ = write!(
            common,
            " {missing} of {} combinations have no captured flight and are not drawn.",
            records.len()
        );
    }
    let mut out = String::new();
    let mut bytes_lines = vec![Threshold {
        at: WRITE_BUFFER,
        label: "OpenSSL write buffer 4096 B".into(),
    }];
    let mut bytes_note = "";
    match mss {
        Some(m) => bytes_lines.push(Threshold {
            at: cwnd * m,
            label: format!("{window} ({} B)", count(cwnd * m)),
        }),
        None => bytes_note = " The server's MSS is unknown: no initial-window line in bytes.",
    }
    let charts = [
        (
            "Server flight size vs time (seed 003 Figs 9-12)",
            "server flight, bytes",
            series(|r| r.server_flight_bytes),
            bytes_lines,
            bytes_note,
        ),
        (
            "Server flight segments vs time",
            "server flight, TCP segments",
            series(|r| r.server_flight_segments),
            vec![Threshold {
                at: cwnd,
                label: window.clone(),
            }],
            "",
        ),
    ];
    for (title, x_label, dots, lines, note) in &charts {
        match scatter(title, x_label, y_label, dots, lines) {
            Some((svg, omitted)) => {
                let mut caption = common.clone();
                caption.push_str(note);
                for o in omitted {
                    let _ = write!(
                        caption,
                        " {} lies far right of the points and is not drawn.",
                        escape(&o)
                    );
                }
                let view = Table {
                    title: String::new(),
                    head: vec![
                        "group".into(),
                        "server / CA".into(),
                        x_label.to_string(),
                        y_label.into(),
                    ],
                    rows: dots
                        .iter()
                        .flat_map(|d| {
                            d.dots.iter().map(|(x, y, n)| {
                                vec![
                                    cell(&d.label, ""),
                                    cell(n, ""),
                                    cell(crate::figure::num(*x), "n"),
                                    cell(format!("{y:.3}"), "n"),
                                ]
                            })
                        })
                        .collect(),
                    ..Table::default()
                };
                out.push_str(&crate::figure::figure(
                    None,
                    &svg,
                    dots.len(),
                    &caption,
                    &view,
                ));
            }
            None => {
                let _ = write!(
                    out,
                    "<p>{}: no combination has a captured flight and time (captures not possible).</p>",
                    escape(title)
                );
            }
        }
    }
    out
}
