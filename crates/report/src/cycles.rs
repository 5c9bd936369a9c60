//! Seed 002's cycle study as text, Markdown, CSV and its section of the
//! report: Table 4 (cycles per key schedule) and Table 5 (per block,
//! encryption and decryption, chained, with the throughput figure beside),
//! a chart of cycles per block by cipher and implementation, each
//! implementation's table bytes beside this CPU's L1d, and the seed's
//! findings checked here.

use crate::anchor;
use crate::figure;
use crate::svg::{escape, Bar};
use crate::table::{cell as table_cell, Table};
use ango_core::cycles::CyclesRecord;
use ango_core::finding::Verdict;
use ango_core::{Finding, RecordKey};
use std::fmt::Write as _;

/// Seed 002's Core i7 960 x64 figures (its Tables 4 and 5; another
/// machine, shown for reference): (implementation, key schedule
/// 128/192/256, encryption 128/192-256).
pub const SEED_CAMELLIA_X64: &[(&str, [u32; 3], [u32; 2])] = &[
    ("NTT optimised code", [340, 491, 482], [525, 692]),
    ("32-bit fast", [133, 210, 209], [483, 649]),
    ("64-bit fast", [99, 140, 152], [481, 659]),
];

/// Seed 002's Core i7 960 x64 figures for the other four ciphers, from its
/// Table 5 (cycles per block; MUGI per 128 bits of keystream): (cipher,
/// implementation, operation, 128/192/256; None where the seed gives one
/// figure for several key sizes or none). The source's layout merges the
/// rows' cipher labels; each row is placed by its key-size pattern (SC2000
/// 6.5/7.5 rounds, Hierocrypt-3 6/7/8, CIPHERUNICORN-A and MUGI one
/// figure). Its Table 4 rows for these ciphers are not in the text.
pub const SEED_OTHERS_X64: &[(&str, &str, &str, [Option<u32>; 3])] = &[
    (
        "CIPHERUNICORN-A",
        "reference code",
        "encryption",
        [None, Some(1608), None],
    ),
    (
        "CIPHERUNICORN-A",
        "fast",
        "encryption",
        [None, Some(1523), None],
    ),
    (
        "Hierocrypt-3",
        "32-bit fast",
        "encryption",
        [Some(928), Some(1080), Some(1260)],
    ),
    (
        "Hierocrypt-3",
        "64-bit fast",
        "encryption",
        [Some(917), Some(1065), Some(1226)],
    ),
    (
        "Hierocrypt-3",
        "32-bit fast",
        "decryption",
        [Some(1076), Some(1259), Some(1451)],
    ),
    (
        "Hierocrypt-3",
        "64-bit fast",
        "decryption",
        [Some(1042), Some(1223), Some(1409)],
    ),
    (
        "SC2000",
        "32-bit fast",
        "encryption",
        [Some(413), Some(467), None],
    ),
    (
        "MUGI",
        "fast",
        "128 bits of keystream",
        [None, Some(113), None],
    ),
];

/// The seed's Hierocrypt-3 decryption figure of an implementation at a key
/// size.
fn seed_hc3_decrypt(implementation: &str, bits: u32) -> u32 {
    SEED_OTHERS_X64
        .iter()
        .find(|r| r.0 == "Hierocrypt-3" && r.1 == implementation && r.2 == "decryption")
        .and_then(|r| r.3[(bits / 64 - 2) as usize])
        .unwrap_or_default()
}

/// Why seed 002's 32-bit figures have no counterpart here.
pub const NO_32_BIT: &str = "Seed 002's 32-bit platforms (x86, WOW64) are not measured: no \
     32-bit Rust target is installed here, so its 32-bit builds cannot be made.";

const KEY_SIZES: [u32; 3] = [128, 192, 256];

/// The record of one point, if measured.
fn find<'a>(
    rs: &'a [CyclesRecord],
    algo: &str,
    row: &Row,
    op: &str,
    chained: bool,
) -> Option<&'a CyclesRecord> {
    rs.iter().find(|r| {
        r.algorithm == algo
            && r.backend == row.backend
            && r.implementation == row.implementation
            && r.operation == op
            && r.chained == chained
    })
}

/// The figure of a point: counter ticks per operation (`+` when a hidden
/// key schedule was chained through one block), else ns.
fn cell(r: Option<&CyclesRecord>) -> String {
    match r {
        Some(r) => match r.cycles_per_op {
            Some(c) => format!(
                "{c:.0}{}",
                if r.chain == "via-one-block" { "+" } else { "" }
            ),
            None => format!("{:.1}ns", r.stats.median),
        },
        None => "-".into(),
    }
}

/// The median per operation in the records' unit (ticks, else ns).
fn value(r: &CyclesRecord) -> f64 {
    r.cycles_per_op.unwrap_or(r.stats.median)
}

/// One row of the tables: a cipher's implementation.
#[derive(Clone, PartialEq)]
struct Row {
    cipher: String,
    backend: String,
    implementation: String,
}

/// The rows of the records, in order.
fn rows(rs: &[CyclesRecord]) -> Vec<Row> {
    let mut v: Vec<Row> = Vec::new();
    for r in rs {
        let k = Row {
            cipher: r.cipher.clone(),
            backend: r.backend.clone(),
            implementation: r.implementation.clone(),
        };
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// The algorithm of `cipher` with a `bits`-bit key among the records.
fn algo_of(rs: &[CyclesRecord], cipher: &str, bits: u32) -> Option<String> {
    rs.iter()
        .find(|r| r.cipher == cipher && r.key_bits == bits)
        .map(|r| r.algorithm.clone())
}

/// What the figures count.
fn unit(rs: &[CyclesRecord]) -> &'static str {
    match rs.first().map(|r| r.cycle_source.as_str()) {
        Some("perf") => "core cycles",
        Some("tsc") => "TSC ticks (a fixed rate, not the core clock)",
        _ => "ns",
    }
}

/// The same, short (for sentences).
fn unit_short(rs: &[CyclesRecord]) -> &'static str {
    match rs.first().map(|r| r.cycle_source.as_str()) {
        Some("perf") => "cycles",
        Some("tsc") => "TSC ticks",
        _ => "ns",
    }
}

/// Table 4's cells of a row: key schedule at 128/192/256.
fn table4_cells(rs: &[CyclesRecord], row: &Row) -> Vec<String> {
    KEY_SIZES
        .iter()
        .map(|&bits| {
            cell(
                algo_of(rs, &row.cipher, bits)
                    .and_then(|a| find(rs, &a, row, "key-schedule", true)),
            )
        })
        .collect()
}

/// Table 5's cells of a row: encryption / decryption chained / throughput.
fn table5_cells(rs: &[CyclesRecord], row: &Row) -> Vec<String> {
    KEY_SIZES
        .iter()
        .map(|&bits| match algo_of(rs, &row.cipher, bits) {
            None => "-".into(),
            Some(a) => format!(
                "{}/{}/{}",
                cell(find(rs, &a, row, "encrypt", true)),
                cell(find(rs, &a, row, "decrypt", true)),
                cell(find(rs, &a, row, "encrypt", false))
            ),
        })
        .collect()
}

/// Each row's table bytes (ango's own variants only).
fn table_bytes(rs: &[CyclesRecord]) -> Vec<(Row, u64)> {
    rows(rs)
        .into_iter()
        .filter_map(|row| {
            let t = rs
                .iter()
                .find(|r| {
                    r.cipher == row.cipher
                        && r.backend == row.backend
                        && r.implementation == row.implementation
                })
                .and_then(|r| r.table_bytes)?;
            Some((row, t))
        })
        .collect()
}

fn l1d(rs: &[CyclesRecord]) -> Option<u64> {
    rs.iter().find_map(|r| r.l1d_bytes)
}

fn short(i: &str, width: usize) -> String {
    if i.chars().count() > width {
        let t: String = i.chars().take(width.saturating_sub(1)).collect();
        format!("{t}…")
    } else {
        i.to_string()
    }
}

const HIDDEN_NOTE: &str = "+: the library hides its expanded key; chained through one block \
     encrypted under the new key, which the figure includes";

/// A row per implementation, three key-size columns of `cells`.
fn by_key_size(
    title: String,
    heads: [&str; 3],
    rs: &[CyclesRecord],
    cells: fn(&[CyclesRecord], &Row) -> Vec<String>,
) -> Table {
    let rows = rows(rs)
        .iter()
        .map(|row| {
            let mut v = vec![
                table_cell(&row.cipher, ""),
                table_cell(&row.backend, ""),
                table_cell(&row.implementation, ""),
            ];
            v.extend(cells(rs, row).into_iter().map(|c| table_cell(c, "n")));
            v
        })
        .collect();
    let mut t = Table::new(
        title,
        &[
            "cipher",
            "backend",
            "implementation",
            heads[0],
            heads[1],
            heads[2],
        ],
        rows,
    );
    t.squeeze = Some(2);
    t
}

/// Seed 002's Table 4 as measured here.
fn table4(rs: &[CyclesRecord]) -> Table {
    by_key_size(
        format!(
            "Table 4 (seed 002): key schedule, {} per schedule, chained (median)",
            unit(rs)
        ),
        ["128", "192", "256"],
        rs,
        table4_cells,
    )
}

/// Seed 002's Table 5 as measured here, with the throughput beside.
fn table5(rs: &[CyclesRecord]) -> Table {
    by_key_size(
        format!(
            "Table 5 (seed 002): {} per block (MUGI: per 128 bits of keystream), encryption / \
             decryption chained, and encryption over independent blocks (16 KiB ECB) — what \
             pipelining buys",
            unit(rs)
        ),
        ["128 enc/dec/thr", "192 enc/dec/thr", "256 enc/dec/thr"],
        rs,
        table5_cells,
    )
}

/// Each of ango's implementations' table bytes beside this CPU's L1d.
fn bytes_table(rs: &[CyclesRecord]) -> Table {
    let l1d = l1d(rs);
    let rows = table_bytes(rs)
        .into_iter()
        .map(|(row, t)| {
            vec![
                table_cell(row.cipher, ""),
                table_cell(row.backend, ""),
                table_cell(row.implementation, ""),
                table_cell(t.to_string(), "n"),
                table_cell(
                    l1d.map(|l| format!("{:.0}%", 100.0 * t as f64 / l as f64))
                        .unwrap_or_else(|| "-".into()),
                    "n",
                ),
            ]
        })
        .collect();
    let mut t = Table::new(
        format!(
            "Table bytes of each implementation beside this CPU's L1d ({})",
            l1d.map(|b| format!("{} KiB per core", b / 1024))
                .unwrap_or_else(|| "unknown".into())
        ),
        &[
            "cipher",
            "backend",
            "implementation",
            "table bytes",
            "of L1d",
        ],
        rows,
    );
    t.squeeze = Some(2);
    t
}

/// Seed 002's own Camellia figures (another machine).
fn seed_figures() -> Table {
    let rows = SEED_CAMELLIA_X64
        .iter()
        .map(|(n, ks, enc)| {
            let mut v = vec![table_cell(*n, "")];
            v.extend(ks.iter().chain(enc).map(|x| table_cell(x.to_string(), "n")));
            v
        })
        .collect();
    Table::new(
        "Seed 002's own Camellia figures (Core i7 960 x64, clock cycles; another machine, for \
         reference)",
        &[
            "implementation",
            "key schedule 128",
            "192",
            "256",
            "encryption 128",
            "192/256",
        ],
        rows,
    )
}

/// Seed 002's figures for the other ciphers (another machine).
fn seed_other_figures() -> Table {
    let rows = SEED_OTHERS_X64
        .iter()
        .map(|(c, i, op, v)| {
            let mut row = vec![table_cell(*c, ""), table_cell(*i, ""), table_cell(*op, "")];
            row.extend(
                v.iter()
                    .map(|x| table_cell(x.map_or("-".into(), |x| x.to_string()), "n")),
            );
            row
        })
        .collect();
    Table::new(
        "Seed 002's own figures for the other ciphers (Core i7 960 x64, clock cycles per block, \
         Table 5; one figure where the seed gives one for every key size)",
        &["cipher", "implementation", "operation", "128", "192", "256"],
        rows,
    )
}

/// Tables 4 and 5 as measured, the table bytes beside L1d, the seed's
/// findings checked and its own figures, for the terminal.
pub fn text(rs: &[CyclesRecord]) -> String {
    let mut s = table4(rs).text();
    let _ = writeln!(s, "  ({HIDDEN_NOTE})\n");
    s.push_str(&table5(rs).text());
    let bytes = bytes_table(rs);
    if !bytes.rows.is_empty() {
        s.push('\n');
        s.push_str(&bytes.text());
    }
    let f = findings(rs);
    if !f.is_empty() {
        let _ = writeln!(s, "\nSeed 002's findings, checked here:");
        s.push_str(&crate::findings::text(&f));
    }
    s.push('\n');
    s.push_str(&seed_figures().text());
    s.push('\n');
    s.push_str(&seed_other_figures().text());
    let _ = writeln!(s, "  {NO_32_BIT}");
    s
}

/// One of seed 002's "A beats B" claims on ango's two variants of a cipher
/// at a key size: chained `op` of one block, the ratio slow ÷ fast.
/// The texts are the claim, its id topic, the seed's section and the
/// seed's own figures (or "").
fn beats(
    rs: &[CyclesRecord],
    cipher: &str,
    bits: u32,
    [fast, slow]: [&str; 2],
    op: &str,
    [claim, id, section, seed]: [&str; 4],
) -> Option<Finding> {
    let a = algo_of(rs, cipher, bits)?;
    let row = |v: &str| Row {
        cipher: cipher.into(),
        backend: "ango".into(),
        implementation: format!("{cipher}/{v}"),
    };
    let f = find(rs, &a, &row(fast), op, true)?;
    let s = find(rs, &a, &row(slow), op, true)?;
    let (x, y) = (value(f), value(s));
    let what = if op == "decrypt" {
        "decryption"
    } else {
        "encryption"
    };
    Some(
        Finding::new("cycles", "002", section, format!("{claim} ({a} {what})"))
            .id(id, &[&a])
            .anchor(anchor::CYCLES_TABLE5)
            .from([f.key(), s.key()])
            .value(y / x, "ratio")
            .verdict(if x < y {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            })
            .explain(format!(
                "chained {what} of one block, median over samples taken in turn: {fast} {x:.0}, \
             {slow} {y:.0} {} per block{seed}; the ratio is {slow} ÷ {fast} (above 1: {fast} \
             faster)",
                unit_short(rs)
            )),
    )
}

/// Seed 002's claims, checked on these records: "64-bit fast beats 32-bit
/// fast on x64" (chained encryption, per cipher and key size; Hierocrypt-3
/// decryption too), CIPHERUNICORN-A's one-table T_n beats its reference,
/// MUGI's 128 bits of keystream cost less than any block cipher's block,
/// and "the 64-bit Camellia key schedule is the fastest". (The seed's
/// Table 4 rows for the other ciphers are not in its text, so their key
/// schedules carry no claim.)
pub fn findings(rs: &[CyclesRecord]) -> Vec<Finding> {
    let mut out = Vec::new();
    let ticks = unit_short(rs);
    for bits in KEY_SIZES {
        for cipher in [
            "camellia",
            "sc2000",
            "hierocrypt3",
            "cipherunicorn-a",
            "mugi",
        ] {
            let mut pair = |fast: &str, slow: &str, op: &str, texts: [&str; 4]| {
                if let Some(f) = beats(rs, cipher, bits, [fast, slow], op, texts) {
                    out.push(f);
                }
            };
            pair(
                "table64-nct",
                "table32-nct",
                "encrypt",
                [
                    "64-bit fast beats 32-bit fast on x64",
                    "64-vs-32",
                    "Table 5",
                    "",
                ],
            );
            if cipher == "hierocrypt3" {
                // The seed's Table 5 has both ways.
                let seed = format!(
                    " (the seed: {} vs {} cycles)",
                    seed_hc3_decrypt("64-bit fast", bits),
                    seed_hc3_decrypt("32-bit fast", bits)
                );
                pair(
                    "table64-nct",
                    "table32-nct",
                    "decrypt",
                    [
                        "64-bit fast beats 32-bit fast on x64",
                        "64-vs-32-decrypt",
                        "Table 5",
                        &seed,
                    ],
                );
            }
            if cipher == "cipherunicorn-a" {
                // §2.3.3: T_n as one 8→32-bit table (the seed: 1523 vs 1608).
                pair(
                    "table32-nct",
                    "reference-nct",
                    "encrypt",
                    [
                        "T_n as one 8→32-bit table makes the fast implementation beat the \
                         reference code",
                        "fast-vs-reference",
                        "§2.3.3, Table 5",
                        " (the seed: 1523 vs 1608 cycles)",
                    ],
                );
            }
        }
    }
    // MUGI per 128 bits of keystream against every block cipher's block.
    let mugi = rs
        .iter()
        .filter(|r| r.algorithm == "mugi" && r.operation == "encrypt" && r.chained)
        .min_by(|x, y| value(x).total_cmp(&value(y)));
    let blocks: Vec<&CyclesRecord> = rs
        .iter()
        .filter(|r| {
            r.operation == "encrypt"
                && r.chained
                && r.algorithm.ends_with("-128-ecb")
                && !r.algorithm.starts_with("aes-")
        })
        .collect();
    if let Some(m) = mugi {
        // The fastest figure of each block cipher.
        let mut best: Vec<&CyclesRecord> = Vec::new();
        for b in &blocks {
            match best.iter_mut().find(|x| x.algorithm == b.algorithm) {
                Some(x) if value(b) < value(x) => *x = b,
                Some(_) => {}
                None => best.push(b),
            }
        }
        let f = Finding::new(
            "cycles",
            "002",
            "Table 5",
            "MUGI's 128 bits of keystream cost less than one block of any of the block ciphers \
             (128-bit keys)",
        )
        .id("mugi-per-128", &[])
        .anchor(anchor::CYCLES_TABLE5)
        .from(std::iter::once(m.key()).chain(best.iter().map(|r| r.key())));
        out.push(
            match best.iter().min_by(|x, y| value(x).total_cmp(&value(y))) {
                Some(b) => f
                    .value(value(b) / value(m), "ratio")
                    .verdict(if value(m) < value(b) {
                        Verdict::Holds
                    } else {
                        Verdict::DoesNotHold
                    })
                    .explain(format!(
                        "MUGI {} {:.0} {ticks} per 128 bits; the fastest block cipher here {} {} \
                     {:.0} per block, of {} ciphers (the seed: 113 cycles against 413 for \
                     SC2000, its fastest); the ratio is the block cipher's ÷ MUGI's",
                        m.implementation,
                        value(m),
                        b.backend,
                        b.implementation,
                        value(b),
                        best.len()
                    )),
                None => f
                    .verdict(Verdict::NotMeasurable)
                    .explain("no block cipher with a 128-bit key was measured beside MUGI"),
            },
        );
    }
    for bits in KEY_SIZES {
        let Some(a) = algo_of(rs, "camellia", bits) else {
            continue;
        };
        let mut ks: Vec<&CyclesRecord> = rs
            .iter()
            .filter(|r| r.algorithm == a && r.operation == "key-schedule")
            .collect();
        ks.sort_by(|x, y| value(x).total_cmp(&value(y)));
        let Some(best) = ks.first() else { continue };
        let t64 = ks
            .iter()
            .position(|r| r.backend == "ango" && r.implementation == "camellia/table64-nct");
        let f = Finding::new(
            "cycles",
            "002",
            "Table 4",
            format!("the 64-bit Camellia key schedule is the fastest ({a})"),
        )
        .id("key-schedule", &[&a])
        .anchor(anchor::CYCLES_TABLE4)
        .from(ks.iter().map(|r| r.key()));
        let hidden = if best.chain == "via-one-block" {
            " (+ one block: that library hides its expanded key)"
        } else {
            ""
        };
        out.push(match t64 {
            Some(k) => f
                .value((k + 1) as f64, "rank")
                .verdict(if k == 0 {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                })
                .explain(format!(
                    "table64-nct is #{} of {} key schedules here ({:.0} {ticks}); the fastest is \
                     {} {} at {:.0}{hidden}",
                    k + 1,
                    ks.len(),
                    value(ks[k]),
                    best.backend,
                    best.implementation,
                    value(best)
                )),
            None => f
                .verdict(Verdict::NotMeasurable)
                .explain("camellia/table64-nct was not measured in this run"),
        });
    }
    out
}

/// The report's section, or nothing without cycle records.
pub fn section(rs: &[CyclesRecord]) -> String {
    if rs.is_empty() {
        return String::new();
    }
    let unit = unit(rs);
    let mut out = format!(
        "<h3>Cycle study (seed 002)</h3><p>Seed 002's method: the key schedule, encryption and \
         decryption of one block, each call's output the next call's input (so one call's \
         latency, not pipelined throughput), many calls per sample, the implementations of one \
         algorithm sampled in turn; figures are medians in {}. Beside each chained figure, the \
         same implementation's encryption over independent blocks (ECB over 16 KiB), per block: \
         what pipelining buys. Every implementation passed its known-answer tests in this run \
         before it was timed.</p>",
        escape(unit)
    );
    // The chart: per cipher, the smallest key size measured.
    let rows = rows(rs);
    let mut ciphers: Vec<String> = Vec::new();
    for r in &rows {
        if !ciphers.contains(&r.cipher) {
            ciphers.push(r.cipher.clone());
        }
    }
    for c in &ciphers {
        let Some((bits, a)) = KEY_SIZES
            .iter()
            .find_map(|&b| algo_of(rs, c, b).map(|a| (b, a)))
        else {
            continue;
        };
        let bars: Vec<Bar> = rows
            .iter()
            .filter(|r| &r.cipher == c)
            .map(|row| Bar {
                label: format!("{} {}", row.backend, short(&row.implementation, 46)),
                values: [("encrypt", true), ("decrypt", true), ("encrypt", false)]
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (op, ch))| find(rs, &a, row, op, *ch).map(|r| (i, value(r))))
                    .collect(),
            })
            .collect();
        out.push_str(&figure::bars(
            &format!("s002-{}", ango_core::finding::slug(c)),
            &format!("{a}: {} per block by implementation", unit_short(rs)),
            &format!("{unit} per block"),
            &[
                "encrypt, chained",
                "decrypt, chained",
                "encrypt, independent blocks",
            ],
            &bars,
            None,
            &format!(
                "{} ({bits}-bit key): {} per block. Chained encryption and decryption are seed \
                 002's figures (one block's latency); the third bar is the same code over \
                 independent blocks.",
                escape(c),
                escape(unit)
            ),
        ));
    }
    let _ = write!(
        out,
        "<h4 id=\"{}\">Table 4: key schedule</h4><p>{} per key schedule, chained (part of expanded key i \
         is key i+1). {}</p>{}",
        anchor::CYCLES_TABLE4,
        escape(unit),
        escape(HIDDEN_NOTE),
        table4(rs).html_table()
    );
    let _ = write!(
        out,
        "<h4 id=\"{}\">Table 5: encryption and decryption</h4><p>{} per block (MUGI: per 128 bits of \
         keystream): encryption / decryption chained / encryption over independent blocks.</p>{}",
        anchor::CYCLES_TABLE5,
        escape(unit),
        table5(rs).html_table()
    );
    // Table bytes beside L1d.
    let tb = table_bytes(rs);
    if !tb.is_empty() {
        let l1 = l1d(rs);
        let bars: Vec<Bar> = tb
            .iter()
            .map(|(row, t)| Bar {
                label: format!("{} {}", row.backend, short(&row.implementation, 46)),
                values: vec![(0, *t as f64)],
            })
            .collect();
        out.push_str(&figure::bars(
            "s002-table-bytes",
            "Table bytes beside the L1 data cache",
            "bytes",
            &["table bytes"],
            &bars,
            l1.map(|b| (b as f64, format!("L1d {} KiB", b / 1024))),
            &format!(
                "Bytes of lookup tables each of ango's implementations reads, beside this CPU's \
                 L1 data cache ({}). Seed 002 explains its 64-bit Camellia by tables spilling \
                 out of a 16 KB L1.",
                l1.map(|b| format!("{} KiB per core", b / 1024))
                    .unwrap_or_else(|| "size unknown".into())
            ),
        ));
    }
    let _ = write!(
        out,
        "<h4>Seed 002's own figures</h4><p>Core i7 960, x64, clock cycles: another machine, \
         shown for reference only. Camellia, Tables 4 and 5:</p>{}<p>The other ciphers, Table 5 \
         (per block; MUGI per 128 bits of keystream; one figure where the seed gives one for \
         every key size; its Table 4 rows for them are not in its text):</p>{}",
        seed_figures().html_table(),
        seed_other_figures().html_table()
    );
    let _ = write!(out, "<p>{}</p>", escape(NO_32_BIT));
    out
}

const CSV_HEADER: &str = "algorithm,cipher,backend,implementation,key_bits,operation,chained,chain,unit,iterations,samples,median_ns,q1_ns,q3_ns,cycles_per_op,cycle_source,table_bytes,l1d_bytes,kat,noisy";

/// One line per record.
pub fn csv(rs: &[CyclesRecord]) -> String {
    let q = ango_core::csv::field;
    let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = format!("{CSV_HEADER}\n");
    for r in rs {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{:.3},{},{},{},{},{},{}",
            q(&r.algorithm),
            q(&r.cipher),
            q(&r.backend),
            q(&r.implementation),
            r.key_bits,
            r.operation,
            r.chained,
            r.chain,
            q(&r.unit),
            r.iterations,
            r.samples,
            r.stats.median,
            r.stats.q1,
            r.stats.q3,
            r.cycles_per_op
                .map(|c| format!("{c:.1}"))
                .unwrap_or_default(),
            r.cycle_source,
            opt(r.table_bytes),
            opt(r.l1d_bytes),
            q(&r.kat),
            r.noisy
        );
    }
    out
}

/// Tables 4 and 5, the table bytes and seed 002's own figures in
/// Markdown.
pub fn markdown(rs: &[CyclesRecord]) -> String {
    let mut out = table4(rs).md();
    let _ = writeln!(out, "\n{HIDDEN_NOTE}\n");
    out.push_str(&table5(rs).md());
    let bytes = bytes_table(rs);
    if !bytes.rows.is_empty() {
        out.push('\n');
        out.push_str(&bytes.md());
    }
    out.push('\n');
    out.push_str(&seed_figures().md());
    out.push('\n');
    out.push_str(&seed_other_figures().md());
    let _ = writeln!(out, "\n{NO_32_BIT}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(imp: &str, op: &str, chained: bool, cycles: f64) -> CyclesRecord {
        let v = serde_json::json!({
            "schema": 2, "schema_version": 2, "suite": "cycles", "run_id": "r",
            "algorithm": "camellia-128-ecb", "cipher": "camellia", "backend": "ango",
            "implementation": imp, "path": "", "library_version": "", "key_bits": 128,
            "operation": op, "chained": chained, "chain": if chained { "ciphertext" } else { "none" },
            "unit": "block", "iterations": 1000, "samples": 11,
            "median_ns": cycles / 2.4, "q1_ns": 1.0, "q3_ns": 1.0, "mean_ns": 1.0, "sd_ns": 0.0,
            "min_ns": 1.0, "max_ns": 1.0, "robust_cv": 0.0, "ci95_low_ns": 1.0, "ci95_high_ns": 1.0,
            "cycles_per_op": cycles, "cycle_source": "tsc", "table_bytes": 4096,
            "l1d_bytes": 32768, "kat": "pass 6/6", "noisy": false, "warnings": [],
            "method": "", "time": ""
        });
        serde_json::from_value(v).expect("a cycles record")
    }

    #[test]
    fn seed_claims_are_checked_and_the_section_has_its_parts() {
        let rs = vec![
            rec("camellia/table64-nct", "encrypt", true, 200.0),
            rec("camellia/table32-nct", "encrypt", true, 250.0),
            rec("camellia/table64-nct", "key-schedule", true, 150.0),
            rec("camellia/table32-nct", "key-schedule", true, 120.0),
            rec("camellia/table64-nct", "encrypt", false, 180.0),
        ];
        let f = findings(&rs);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].verdict, Verdict::Holds);
        assert!((f[0].value.unwrap() - 1.25).abs() < 1e-9);
        assert_eq!(f[1].verdict, Verdict::DoesNotHold);
        assert_eq!(f[1].value, Some(2.0));
        let html = section(&rs);
        for part in [
            "Table 4",
            "Table 5",
            "<svg",
            "L1d 32 KiB",
            "Core i7 960",
            "WOW64",
        ] {
            assert!(html.contains(part), "{part}");
        }
        let t = text(&rs);
        assert!(t.contains("200/-/180"), "{t}");
        assert_eq!(csv(&rs).lines().count(), 6);
    }
}
