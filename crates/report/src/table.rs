//! One table, written once and shown in every format: aligned text for the
//! terminal, Markdown, CSV, and HTML in the report's style (a section of
//! the report, or a page of its own for the commands that print tables).

use crate::svg::escape;
use std::fmt::Write;

/// The style of the report and of every page a command prints.
pub(crate) const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:1.2em auto;padding:0 1em;color:#222;line-height:1.35}\
h1{margin:.2em 0;font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.15em}\
header p.run{margin:.2em 0 .6em}p.note{background:#fff3cd;padding:.3em .6em;margin:.3em 0}\
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th{background:#f3f3f3}.noisy{background:#fff3cd}\
.fail{background:#f8d7da}.ok{background:#d4edda}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}\
figure{margin:1em 0;break-inside:avoid}figcaption{font-size:12px;color:#555}li{margin:.25em 0}\
.scroll{overflow-x:auto;max-width:100%}table{display:block;overflow-x:auto;max-width:100%}\
svg{max-width:100%;height:auto}figure svg{width:100%}\
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(480px,100%),1fr));gap:0 1em}\
.badge{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;white-space:nowrap}\
.badge.holds{background:#d4edda;color:#155724}.badge.does-not-hold{background:#f8d7da;color:#842029}\
.badge.not-measurable{background:#e2e3e5;color:#41464b}\
td.holds a{color:#155724;font-weight:bold}td.does-not-hold a{color:#842029;font-weight:bold}td.not-measurable a{color:#41464b;font-weight:bold}\
table.dash{display:table;width:100%}table.dash td:nth-child(2){width:70%}\
table.verdicts,table.defects{display:table;table-layout:fixed;width:100%}\
col.c-verdict{width:8.5em}col.c-value{width:12em}col.c-link{width:4em}\
col.c-lib{width:9em}col.c-ver{width:11em}col.c-alg{width:9em}col.c-cases{width:5em}col.c-cite{width:14em}\
td.claim,table.defects td{overflow:hidden}table.defects td{white-space:nowrap;text-overflow:ellipsis}table.defects td:has(details[open]){white-space:normal}td.claim summary,table.defects summary{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer}\
td.claim details[open] summary,table.defects details[open] summary{white-space:normal}\
table.verdicts td.n{white-space:normal}p.cases,ul.keys{font-size:12px;overflow-wrap:anywhere}p.derive{font-size:12px;color:#555}\
\
details.table-view{margin:.2em 0 1em}details.table-view summary{font-size:12px;color:#555;cursor:pointer}\
li code,p code,td code{overflow-wrap:anywhere}p.what{background:#f6f8fa;border-left:3px solid #9ab;padding:.5em .8em}\
@media (max-width:700px){body{padding:0 .4em;font-size:14px}col.c-verdict{width:6.5em}col.c-value{width:7em}col.c-link{width:3.5em}\
table.dash .title{display:none}col.c-ver,col.c-cite{width:6em}col.c-lib,col.c-alg{width:5.5em}}\
@media print{body{max-width:none}a{color:inherit;text-decoration:none}details.table-view{display:none}section{break-before:auto}h2{break-after:avoid}}";

/// One table cell; `class` is its HTML class: empty for a label, `n`
/// (numeric, right-aligned) possibly with `noisy` or `fail` for a number.
pub struct Cell {
    pub text: String,
    pub class: &'static str,
}

/// A cell: a label when `class` is empty, else a number.
pub fn cell(text: impl Into<String>, class: &'static str) -> Cell {
    Cell {
        text: text.into(),
        class,
    }
}

/// A table, written once: [`Table::text`] for the terminal, [`Table::md`]
/// and [`Table::html`] from the same cells.
#[derive(Default)]
pub struct Table {
    /// Its heading; none when empty.
    pub title: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// Lines that belong to one row (what memcheck found there): under
    /// their row in the text form, listed after the table in the others.
    pub under: Vec<(usize, String)>,
    /// The column the text form may cut (with "…") so that the table fits
    /// the terminal's 100 columns; the other forms have it whole.
    pub squeeze: Option<usize>,
}

impl Table {
    /// A table with these headings and rows.
    pub fn new(title: impl Into<String>, head: &[&str], rows: Vec<Vec<Cell>>) -> Table {
        Table {
            title: title.into(),
            head: head.iter().map(|h| h.to_string()).collect(),
            rows,
            ..Table::default()
        }
    }

    /// A table of labels (every cell left-aligned).
    pub fn labels(title: impl Into<String>, head: &[&str], rows: Vec<Vec<String>>) -> Table {
        let rows = rows
            .into_iter()
            .map(|r| r.into_iter().map(|t| cell(t, "")).collect())
            .collect();
        Table::new(title, head, rows)
    }

    /// Whether column `i` is of labels (left-aligned): as its first row's
    /// cell is.
    fn left(&self, i: usize) -> bool {
        self.rows
            .first()
            .and_then(|r| r.get(i))
            .is_none_or(|c| c.class.is_empty())
    }

    /// Aligned columns, labels left and numbers right, within the
    /// terminal's width when a column may be cut; each row's lines under
    /// it, indented.
    pub fn text(&self) -> String {
        let n = self.head.len();
        let mut w: Vec<usize> = self.head.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, c) in row.iter().enumerate().take(n) {
                w[i] = w[i].max(c.text.chars().count());
            }
        }
        if let Some(k) = self.squeeze.filter(|&k| k < n) {
            let others: usize = w
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, x)| x + 2)
                .sum();
            let room = crate::formats::TERMINAL_WIDTH.saturating_sub(others);
            w[k] = w[k].min(room).max(self.head[k].chars().count()).max(12);
        }
        let line = |cells: Vec<&str>| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let wi = w[i];
                    let t = if Some(i) == self.squeeze && t.chars().count() > wi {
                        let cut: String = t.chars().take(wi.saturating_sub(1)).collect();
                        format!("{cut}…")
                    } else {
                        t.to_string()
                    };
                    if self.left(i) {
                        format!("{t:<wi$}")
                    } else {
                        format!("{t:>wi$}")
                    }
                })
                .collect();
            format!("{}\n", parts.join("  ").trim_end())
        };
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(&self.title);
            out.push('\n');
        }
        out.push_str(&line(self.head.iter().map(String::as_str).collect()));
        for (i, row) in self.rows.iter().enumerate() {
            out.push_str(&line(row.iter().take(n).map(|c| c.text.as_str()).collect()));
            for (_, u) in self.under.iter().filter(|(r, _)| *r == i) {
                let _ = writeln!(out, "    {u}");
            }
        }
        out
    }

    /// A `###` title and a Markdown table (labels left, numbers right),
    /// the rows' lines after it.
    pub fn md(&self) -> String {
        let esc = |t: &str| t.replace('|', "\\|");
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = write!(out, "### {}\n\n", self.title);
        }
        out.push('|');
        for h in &self.head {
            let _ = write!(out, " {} |", esc(h));
        }
        out.push_str("\n|");
        for i in 0..self.head.len() {
            out.push_str(if self.left(i) { "---|" } else { "---:|" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for c in row {
                let _ = write!(out, " {} |", esc(&c.text));
            }
            out.push('\n');
        }
        if !self.under.is_empty() {
            out.push('\n');
            for (r, u) in &self.under {
                let label = self.rows[*r].first().map_or("", |c| c.text.as_str());
                let _ = writeln!(out, "- {}: {}", esc(label), esc(u));
            }
        }
        out
    }

    /// An `<h4>` title and a table in the page's style, the rows' lines
    /// after it.
    pub fn html(&self) -> String {
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = write!(out, "<h4>{}</h4>", escape(&self.title));
        }
        out.push_str(&self.html_table());
        out
    }

    /// The table alone, for a section that writes its own heading.
    pub fn html_table(&self) -> String {
        let mut out = String::from("<table><tr>");
        for h in &self.head {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>");
        for row in &self.rows {
            out.push_str("<tr>");
            for c in row {
                if c.class.is_empty() {
                    let _ = write!(out, "<td>{}</td>", escape(&c.text));
                } else {
                    let _ = write!(out, "<td class=\"{}\">{}</td>", c.class, escape(&c.text));
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
        if !self.under.is_empty() {
            out.push_str("<ul>");
            for (r, u) in &self.under {
                let label = self.rows[*r].first().map_or("", |c| c.text.as_str());
                let _ = write!(out, "<li>{}: {}</li>", escape(label), escape(u));
            }
            out.push_str("</ul>");
        }
        out
    }

    /// RFC 4180 CSV: a header line, then one line per row; a field with a
    /// comma, a quote or a line break is quoted.
    pub fn csv(&self) -> String {
        let mut out = csv_line(self.head.iter().map(String::as_str));
        for row in &self.rows {
            out.push_str(&csv_line(row.iter().map(|c| c.text.as_str())));
        }
        out
    }
}

/// One CSV line of `fields`.
pub fn csv_line<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let v: Vec<String> = fields.into_iter().map(ango_core::csv::field).collect();
    format!("{}\r\n", v.join(","))
}

/// Tables in one of the formats every table-printing command takes: text,
/// Markdown, CSV (the tables one after another, a blank line between) or a
/// self-contained HTML page in the report's style. JSON is the command's
/// own (its records or rows as objects).
pub fn render(title: &str, tables: &[Table], format: crate::formats::Format) -> String {
    use crate::formats::Format;
    let join = |f: &dyn Fn(&Table) -> String, sep: &str| {
        tables.iter().map(f).collect::<Vec<_>>().join(sep)
    };
    match format {
        Format::Table | Format::Json => join(&|t| t.text(), "\n"),
        Format::Md => format!("## {}\n\n{}", title, join(&|t| t.md(), "\n")),
        Format::Csv => join(&|t| t.csv(), "\r\n"),
        Format::Html => page(title, &join(&|t| t.html(), "")),
    }
}

/// A self-contained page (inline CSS, no scripts, no network) holding
/// `body`, in the report's style.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>{css}</style></head><body><h1>{t}</h1>{body}</body></html>\n",
        t = escape(title),
        css = CSS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_table_in_every_format() {
        let t = Table::labels(
            "Choices",
            &["name", "value"],
            vec![
                vec!["a,b".into(), "say \"hi\"".into()],
                vec!["<x>".into(), "1|2".into()],
            ],
        );
        assert_eq!(
            t.csv(),
            "name,value\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n<x>,1|2\r\n"
        );
        assert!(t.md().contains("| <x> | 1\\|2 |"), "{}", t.md());
        let html = render(
            "ango list",
            std::slice::from_ref(&t),
            crate::formats::Format::Html,
        );
        assert!(
            html.starts_with("<!DOCTYPE html>") && html.contains("&lt;x&gt;"),
            "{html}"
        );
        assert!(!html.contains("<script"));
        let text = t.text();
        assert!(text.starts_with("Choices\nname"), "{text}");
    }
}
