//! The self-contained report page: no scripts, no network, no web fonts;
//! charts are inline SVG.

use crate::data::ReportData;
use crate::svg::escape;
use ango_core::event::Event;
use ango_core::EnvInfo;
use std::fmt::Write;

fn events_section(events: &[Event]) -> String {
    let mut out = String::new();
    let mut kats = String::new();
    let mut skips: Vec<String> = Vec::new();
    let mut errors = String::new();
    for e in events {
        match e {
            Event::Kat {
                backend,
                algorithm,
                hw,
                ok,
                summary,
                failures,
                library_cpu_view,
                known,
                ..
            } => {
                let mut detail: String = failures
                    .iter()
                    .map(|x| format!("<br>{}", escape(x)))
                    .collect();
                for m in known {
                    detail.push_str(&format!(
                        "<br>known library defect {} (not timed)",
                        escape(&m.id)
                    ));
                }
                let _ = write!(
                    kats,
                    "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td><code>{}</code></td></tr>",
                    if *ok { "ok" } else { "fail" },
                    escape(backend),
                    escape(algorithm.name()),
                    escape(hw.name()),
                    escape(summary),
                    detail,
                    escape(library_cpu_view.as_deref().unwrap_or("–"))
                );
            }
            Event::Skip {
                backend,
                hw,
                reason,
                ..
            } => {
                let line = format!("{backend} hw={hw}: {reason}");
                if !skips.contains(&line) {
                    skips.push(line);
                }
            }
            Event::Error { message } => {
                let _ = write!(errors, "<li>{}</li>", escape(message));
            }
            _ => {}
        }
    }
    if !kats.is_empty() {
        out.push_str("<details id=\"checks\"><summary>Known-answer tests and Wycheproof of every pair (run before timing, in the same process)</summary><div class=\"scroll\"><table><tr><th>backend</th><th>algorithm</th><th>hw</th><th>result</th><th>what the library saw</th></tr>");
        out.push_str(&kats);
        out.push_str("</table></div></details>");
    }
    if !skips.is_empty() {
        out.push_str("<details><summary>Not measured here</summary><ul>");
        for l in &skips {
            let _ = write!(out, "<li>{}</li>", escape(l));
        }
        out.push_str("</ul></details>");
    }
    if !errors.is_empty() {
        out.push_str("<h3>Errors</h3><ul>");
        out.push_str(&errors);
        out.push_str("</ul>");
    }
    out
}

/// The environment as labelled lines (shared by `ango env` and the report).
pub fn env_lines(env: &EnvInfo) -> Vec<(String, String)> {
    let or = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
    let mut rows: Vec<(String, String)> = vec![
        ("host".into(), env.hostname.clone()),
        ("cpu".into(), env.cpu_model.clone()),
        ("vendor".into(), env.cpu_vendor.clone()),
        ("logical cpus".into(), env.logical_cpus.to_string()),
        ("virtual machine".into(), env.hypervisor.to_string()),
        ("crypto flags".into(), env.crypto_flags.join(" ")),
        (
            "frequency governor".into(),
            or(&env.frequency_governor, "not readable (no cpufreq)"),
        ),
        ("boost".into(), or(&env.boost, "not readable")),
        ("kernel".into(), env.kernel.clone()),
        ("os".into(), env.os.clone()),
        ("compiler".into(), env.rustc.clone()),
        (
            "clock".into(),
            format!(
                "{} (resolution {} ns, read overhead {:.0} ns)",
                env.clock, env.clock_resolution_ns, env.timer_overhead_ns
            ),
        ),
        (
            "timing loop".into(),
            format!(
                "{:.2} ns per iteration around an empty operation",
                env.loop_overhead_ns
            ),
        ),
        (
            "cycle source".into(),
            format!("{} — {}", env.cycle_source, env.cycle_source_note),
        ),
        (
            "tsc".into(),
            format!(
                "{} MHz measured, invariant: {}",
                env.tsc_hz_measured
                    .map_or_else(|| "-".into(), |h| format!("{:.1}", h / 1e6)),
                env.tsc_invariant
            ),
        ),
        (
            "openssl sees (hw on)".into(),
            or(&env.openssl_ia32cap_on, "-"),
        ),
        (
            "pinned to cpu".into(),
            env.pinned_cpu
                .map_or_else(|| "no (the scheduler chose)".into(), |c| c.to_string()),
        ),
    ];
    if let Some(n) = env.noise.as_ref().filter(|n| !n.summary.is_empty()) {
        rows.push(("noise".into(), n.summary.clone()));
    }
    if let Some(t) = &env.tuning {
        if let Some(line) = t.get("summary").and_then(|v| v.as_str()) {
            rows.push(("auto variants".into(), line.to_string()));
        }
    }
    for (n, v) in &env.libraries {
        rows.push((format!("library {n}"), v.clone()));
    }
    if !env.command.is_empty() {
        rows.push(("command".into(), env.command.clone()));
    }
    rows
}

fn env_section(env: &EnvInfo) -> String {
    let mut out = String::from("<h3 id=\"machine\">The machine</h3><div class=\"scroll\"><table>");
    let rows = env_lines(env);
    for (k, v) in rows {
        let _ = write!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(&k),
            escape(&v)
        );
    }
    out.push_str("</table></div>");
    if let Some(t) = &env.tuning {
        out.push_str(&tuning_html(t));
    }
    out
}

/// How `auto` was chosen on this CPU (env.json's `tuning`): per algorithm
/// and operation, the variant of each size class and the runner-up's time
/// over it.
fn tuning_html(t: &serde_json::Value) -> String {
    let Some(choices) = t["choices"].as_array().filter(|c| !c.is_empty()) else {
        return String::new();
    };
    let mut classes: Vec<u64> = choices
        .iter()
        .filter_map(|c| c["class_bytes"].as_u64())
        .collect();
    classes.sort();
    classes.dedup();
    let mut out = String::from(
        "<details id=\"tuning\"><summary>How ango's auto variants were chosen here</summary><p>Every \
         constant-time variant measured side by side at each size class; the fastest runs that \
         class, unless the feature flags' default (=) was not measurably slower. Beside each \
         choice: the runner-up's time over it (paired).</p><div class=\"scroll\"><table><tr>\
         <th>algorithm</th><th>operation</th>",
    );
    for c in &classes {
        let _ = write!(out, "<th>{c} B</th>");
    }
    out.push_str("</tr>");
    let mut seen: Vec<(String, String)> = Vec::new();
    for c in choices {
        let key = (
            c["algorithm"].as_str().unwrap_or("").to_string(),
            c["operation"].as_str().unwrap_or("").to_string(),
        );
        if seen.contains(&key) {
            continue;
        }
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            escape(&key.0),
            escape(&key.1)
        );
        for class in &classes {
            let cell = choices.iter().find(|x| {
                x["algorithm"] == key.0.as_str()
                    && x["operation"] == key.1.as_str()
                    && x["class_bytes"].as_u64() == Some(*class)
            });
            match cell {
                Some(x) => {
                    let chosen = x["chosen"].as_str().unwrap_or("");
                    let mark = if x["default"].as_str() == Some(chosen) {
                        "= "
                    } else {
                        ""
                    };
                    let margin = x["margin"]
                        .as_f64()
                        .map(|m| format!(" ({m:.2}×)"))
                        .unwrap_or_default();
                    let _ = write!(out, "<td>{mark}{}{margin}</td>", escape(chosen));
                }
                None => out.push_str("<td>-</td>"),
            }
        }
        out.push_str("</tr>");
        seen.push(key);
    }
    out.push_str("</table></div></details>");
    out
}

const METHOD: &str = "<h3 id=\"method\">How the numbers were taken</h3><ul>\
<li>Correctness first: each (algorithm, backend, hardware setting) passes its known-answer vectors (RFC 8439, FIPS 197, SP 800-38A/C, the GCM specification, Wycheproof) in the very process that times it; a failure is reported and the pair is not timed. Every point also round-trips one message of its own size before timing.</li>\
<li>One operation is one complete operation on one message. AEAD encryption: a fresh 96-bit counter nonce, the associated data (13 bytes by default, as a TLS record), the data in place, final, the 16-byte tag. AEAD decryption: the same record opened into a separate buffer with its tag verified. No streaming-update shortcut for any mode, so CCM is timed as a user pays for it — the mistake seed 000 §5.3.3 found in <code>openssl speed</code> (one Init for many Updates) cannot happen. Keys are expanded once, outside the timing.</li>\
<li>Samples: a warm-up (10% of the point's time), then iterations per sample calibrated so a sample lasts at least 0.5 ms (thousands of times the clock's resolution and read cost), then many samples, all kept in <code>samples.jsonl</code>. Statistics: median, quartiles (type 7), mean, SD, min, max, robust CV = IQR ÷ median (a point above 5% is flagged noisy and measured again, up to twice by default; the steadiest attempt is kept and every attempt's median is listed with the point), and a distribution-free 95% confidence interval of the median from order statistics.</li>\
<li>Time is CLOCK_MONOTONIC. Cycles come from the hardware counter via perf_event_open where the kernel offers one; otherwise from the time-stamp counter, and are then labelled TSC cycles: on this kind of machine the TSC ticks at a fixed rate that need not equal the core clock.</li>\
<li>Hardware settings for OpenSSL are applied with <code>OPENSSL_ia32cap</code>, which libcrypto reads once at start-up, so such points run in a child process; the table of known-answer tests shows the capability words libcrypto actually saw. <b>hw=off</b> is <code>~0x200000200000000:~0x60000000000:~0:~0:~0</code>: it clears exactly the AES and carry-less-multiply instructions — AES-NI (bit 57) and PCLMULQDQ (bit 33) and their vector forms VAES and VPCLMULQDQ (bits 41 and 42 of the second word; OpenSSL 3.5 selects its VAES/AVX-512 AES-GCM by those bits, so on a CPU with AVX-512 clearing AES-NI alone leaves AES-GCM in hardware) — and keeps every other capability word (OpenSSL 3.5 zeroes the word pairs the variable does not name, hence the trailing <code>:~0</code> parts). <b>hw=seed000</b> is seed 000's <code>~0x200000200000000</code>: without a ':' part OpenSSL also zeroes its extended capability word (AVX2, BMI2, ADX, VAES, …), which slows ChaCha20-Poly1305 too — why the seed saw it 'speed up with AES-NI' on AVX2 machines but not on the AVX2-less Xeon. RustCrypto chooses its code path at run time with no switch, so it is measured with hw on only.</li>\
<li>Against <code>openssl speed</code>: OpenSSL 3.5's <code>speed -evp</code> picks its per-message AEAD loop only for GCM, CCM, OCB and SIV modes (and that loop re-keys every message); ChaCha20-Poly1305 is a stream-cipher mode to it, so even with <code>-aead</code> it is timed as one endless stream of Update calls — no nonce, no Poly1305 one-time key, no AAD, no tag per message — the same kind of shortcut seed 000 §5.3.3 found for CCM. Expect ango's ChaCha20-Poly1305 to be lower than <code>openssl speed</code>'s by the per-message set-up (about a fifth at 8 KiB here), and its AES-GCM slightly higher (no re-keying).</li>\
<li>This machine may be shared and noisy: compare ratios measured side by side in one run (<code>ango compare</code>), not absolute figures across runs.</li></ul>";

/// The end of the page: how the numbers were taken, the checks and
/// events of the run, and the machine.
pub fn method_events_machine(d: &ReportData) -> String {
    let mut out = String::from(METHOD);
    out.push_str(&events_section(&d.events));
    if let Some(env) = &d.env {
        out.push_str(&env_section(env));
    }
    out
}
