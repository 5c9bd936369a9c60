//! One table, written once and shown in every format: aligned text for the
//! terminal, Markdown, CSV, and HTML in the report's style (a section of
//! the report, or a page of its own for the commands that print tables).

use crate::svg::escape;
use std::fmt::Write;

/// The style of the report and of every page a command prints.
pub(crate) const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px}\
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}.noisy{background:#fff3cd}\
.fail{background:#f8d7da}.ok{background:#d4edda}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}\
figure{margin:1em 0}figcaption{font-size:12px;color:#555}li{margin:.25em 0}\
tr.holds td:first-child{background:#d4edda}tr.does-not-hold td:first-child{background:#f8d7da}\
tr.not-measurable td:first-child{background:#eee}h2.defects{color:#842029}\
.scroll{overflow-x:auto;max-width:100%}p.defects{color:#842029}\
table{display:block;overflow-x:auto;max-width:100%}td.n{white-space:nowrap}\
svg{max-width:100%;height:auto}figure svg{width:100%}\
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:0 1em}";

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

/// A table rendered both as text and as HTML.
pub struct Table {
    pub title: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// Aligned columns: labels left, numbers right.
    pub fn text(&self) -> String {
        let mut w: Vec<usize> = self.head.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                if let Some(x) = w.get_mut(i) {
                    *x = (*x).max(c.text.chars().count());
                }
            }
        }
        // A column is aligned as its first row's cell: labels left.
        let first = self.rows.first();
        let left: Vec<bool> = (0..w.len())
            .map(|i| {
                first
                    .and_then(|r| r.get(i))
                    .is_none_or(|c| c.class.is_empty())
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let parts: Vec<String> = cells
                .iter()
                .zip(w.iter().zip(&left))
                .map(|(t, (w, left))| {
                    if *left {
                        format!("{t:<w$}")
                    } else {
                        format!("{t:>w$}")
                    }
                })
                .collect();
            format!("{}\n", parts.join("  ").trim_end())
        };
        let mut out = format!("{}\n", self.title);
        out.push_str(&line(self.head.iter().map(String::as_str).collect()));
        for row in &self.rows {
            out.push_str(&line(row.iter().map(|c| c.text.as_str()).collect()));
        }
        out
    }

    /// A `###` title and a Markdown table (labels left, numbers right).
    pub fn md(&self) -> String {
        let esc = |t: &str| t.replace('|', "\\|");
        let mut out = format!("### {}\n\n|", self.title);
        for h in &self.head {
            let _ = write!(out, " {} |", esc(h));
        }
        out.push_str("\n|");
        let first = self.rows.first();
        for i in 0..self.head.len() {
            let left = first
                .and_then(|r| r.get(i))
                .is_none_or(|c| c.class.is_empty());
            out.push_str(if left { "---|" } else { "---:|" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for c in row {
                let _ = write!(out, " {} |", esc(&c.text));
            }
            out.push('\n');
        }
        out
    }

    /// An `<h3>` title and a table in the page's style.
    pub fn html(&self) -> String {
        let mut out = format!("<h3>{}</h3><table><tr>", escape(&self.title));
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
        out
    }
}

impl Table {
    /// A table of labels (every cell left-aligned).
    pub fn labels(title: impl Into<String>, head: &[&str], rows: Vec<Vec<String>>) -> Table {
        Table {
            title: title.into(),
            head: head.iter().map(|h| h.to_string()).collect(),
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(|t| cell(t, "")).collect())
                .collect(),
        }
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
    let v: Vec<String> = fields
        .into_iter()
        .map(|f| {
            if f.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.to_string()
            }
        })
        .collect();
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
