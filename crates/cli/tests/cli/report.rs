//! `ango report`: old results directories, every format, the page in a browser.

use crate::common::*;

#[test]
fn v1_results_still_load() {
    // Written by ango at schema version 1 (tests/data/v1-README.md).
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["v1-speed-a", "v1-speed-b", "v1-pk"] {
        let dir = tmp.path().join(name);
        copy_dir(&data.join(name), &dir);
        ango().arg("report").arg(&dir).assert().success();
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(dir.join("findings.jsonl").exists(), "{name}");
        if name == "v1-pk" {
            assert!(html.contains("The primitives (seed 003"), "{name}");
            // Version-1 public-key records were timed per API call.
            let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
            for line in text.lines() {
                let r: ango_core::PkRecord = serde_json::from_str(line).unwrap();
                assert_eq!((r.head.schema_version, r.timing.as_str()), (1, "api-call"));
                assert!(r.library_version.is_empty());
            }
        } else {
            assert!(html.contains("aes-128-gcm"), "{name}");
            let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
            let r: ango_core::SpeedRecord =
                serde_json::from_str(text.lines().next().unwrap()).unwrap();
            assert_eq!(r.head.schema_version, 1);
        }
    }
    let a = ango()
        .arg("compare")
        .arg(data.join("v1-speed-a"))
        .arg(data.join("v1-speed-b"))
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        out.contains("aes-128-gcm") && out.contains("chacha20-poly1305"),
        "{out}"
    );
}

#[test]
fn report_prints_a_directory_in_every_format() {
    // One directory with speed and public-key records (two schema 1
    // fixtures joined): every suite goes through its exporter.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("both");
    copy_dir(&data.join("v1-speed-a"), &dir);
    let pk = std::fs::read_to_string(data.join("v1-pk/results.jsonl")).unwrap();
    let mut results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    results.push_str(&pk);
    std::fs::write(dir.join("results.jsonl"), &results).unwrap();
    let lines = results.lines().count();
    let run = |format: &str| {
        let a = ango()
            .args(["report", "--format", format])
            .arg(&dir)
            .assert()
            .success();
        String::from_utf8_lossy(&a.get_output().stdout).to_string()
    };
    // JSON: one array holding every record of both suites.
    let v: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), lines);
    let suites: std::collections::BTreeSet<&str> =
        arr.iter().map(|r| r["suite"].as_str().unwrap()).collect();
    assert_eq!(suites.into_iter().collect::<Vec<_>>(), ["pk", "speed"]);
    // Table and Markdown: each suite under its title.
    let table = run("table");
    assert!(table.contains("Speed study (seed 000)\n"), "{table}");
    assert!(table.contains("Public-key study (seed 003"), "{table}");
    assert!(table.contains("aes-128-gcm") && table.contains("ml-kem-768"));
    let md = run("md");
    assert!(md.contains("## Speed study (seed 000)") && md.contains("## Public-key study"));
    // CSV: one block per suite, each with its header row and every record.
    let csv = run("csv");
    let blocks: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{csv}");
    assert!(blocks.iter().all(|b| b.starts_with("run_id,suite,")));
    let rows: usize = blocks
        .iter()
        .map(|b| b.trim_end().lines().count() - 1)
        .sum();
    assert_eq!(rows, lines);
    // Printing writes nothing; html (the default) writes the page.
    assert!(!dir.join("report.html").exists());
    assert!(run("html").trim_end().ends_with("report.html"));
    assert!(dir.join("report.html").exists());
    // A format it does not know: one line naming the valid ones, exit 2.
    let a = ango()
        .args(["report", "--format", "xml"])
        .arg(&dir)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("table, json, csv, md, html"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// The report page in a real browser at 1280 px: nothing runs off the page
/// (wide tables scroll inside their own box, charts shrink to the column),
/// the summary opens the page, there is no script in it, and a screenshot
/// has the window's size. The directory holds a speed sweep wide enough to
/// overflow any fixed layout (64 sizes × three backends), a `--multi` pass
/// and the public-key fixture.
#[test]
fn report_fits_the_page_in_a_headless_browser() {
    let browser = headless_browser();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    ango()
        .args([
            "speed",
            "--algo",
            "aes-128-gcm,chacha20-poly1305",
            "--backend",
            "ango,openssl,ring",
            "--sizes",
            "16:1024:16",
            "--samples",
            "3",
            "--quick",
            "--hw",
            "on",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    // A multi-core pass into its own directory, joined to the first.
    let multi = tmp.path().join("multi");
    ango()
        .args([
            "speed",
            "--algo",
            "aes-128-gcm",
            "--backend",
            "ango,openssl",
            "--sizes",
            "16384",
            "--samples",
            "5",
            "--quick",
            "--multi",
            "--out",
        ])
        .arg(&multi)
        .assert()
        .success();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    results.push_str(&std::fs::read_to_string(multi.join("results.jsonl")).unwrap());
    results.push_str(&std::fs::read_to_string(data.join("v1-pk/results.jsonl")).unwrap());
    std::fs::write(dir.join("results.jsonl"), results).unwrap();
    ango().arg("report").arg(&dir).assert().success();
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(!page.contains("<script"), "the page needs no script");
    assert!(page.contains("id=\"dashboard\""));
    assert!(page.contains("Multi-core throughput"));

    // The checks run in a wrapper page that loads the report in a frame of
    // each width: a desktop window and a phone's.
    for (width, screen) in [(1280u64, 900u64), (390, 844)] {
        let v = check_page(&browser, &dir, width, screen);
        // The width less the frame's vertical scrollbar, if it draws one.
        let inner = v["width"].as_u64().unwrap();
        assert!((width - 20..=width).contains(&inner), "{width}: {v}");
        assert!(
            v["scroll_width"].as_u64().unwrap() <= inner,
            "{width}: the page scrolls sideways: {v}"
        );
        assert_eq!(
            v["bad"].as_array().unwrap().len(),
            0,
            "{width}: elements wider than the page: {v}"
        );
        let (top, bottom) = (
            v["dashboard_top"].as_f64().unwrap(),
            v["dashboard_bottom"].as_f64().unwrap(),
        );
        assert!(
            (0.0..300.0).contains(&top) && bottom <= screen as f64,
            "{width}: the dashboard is not on the first screen: {v}"
        );
        assert_eq!(
            v["seed_sections"].as_u64().unwrap(),
            5,
            "{width}: every seed's section: {v}"
        );
        let charts = v["charts"].as_u64().unwrap();
        assert!(charts >= 3, "{width}: {v}");
        assert_eq!(
            v["charts_ok"].as_u64().unwrap(),
            charts,
            "{width}: every chart with at most 8 series and a table view: {v}"
        );
        assert_eq!(
            v["loose_svgs"].as_u64().unwrap(),
            0,
            "{width}: an SVG outside a chart figure: {v}"
        );
        let height = v["height"].as_u64().unwrap();
        assert!((900..200_000).contains(&height), "{v}");
    }

    // A screenshot of the page itself has the window's size.
    let shot = dir.join("shot.png");
    let st = std::process::Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,900",
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", dir.join("report.html").display()))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((w, h), (1280, 900));
}

/// Loads the report of `dir` in a frame `width` px wide and `screen` px
/// high in the headless browser, and returns what the page measured: its
/// width and scroll width, the elements wider than the page (outside a box
/// that scrolls), where the dashboard starts and ends, the seed sections,
/// the charts and those with at most 8 series and a table view, and SVGs
/// outside a chart.
fn check_page(browser: &Path, dir: &Path, width: u64, screen: u64) -> serde_json::Value {
    let wrapper = dir.join(format!("check-{width}.html"));
    std::fs::write(
        &wrapper,
        format!(
            r#"<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="f" src="report.html" style="width:{width}px;height:{screen}px;border:0"></iframe>
<pre id="out">pending</pre>
<script>
document.getElementById('f').onload = function () {{
  var d = this.contentDocument, w = d.documentElement.clientWidth, bad = [];
  d.querySelectorAll('body *').forEach(function (e) {{
    var p = e.parentElement;
    while (p && p !== d.body) {{
      var o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return;
      p = p.parentElement;
    }}
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1) bad.push(e.tagName + ' ' + Math.round(r.right));
  }});
  var dash = d.querySelector('#dashboard table'), charts = d.querySelectorAll('figure.chart'), ok = 0;
  charts.forEach(function (f) {{
    var n = parseInt(f.getAttribute('data-series'), 10);
    if (n >= 1 && n <= 8 && f.querySelector('details.table-view table') && f.querySelector('svg')) ok++;
  }});
  var loose = 0;
  d.querySelectorAll('svg').forEach(function (s) {{ if (!s.closest('figure.chart')) loose++; }});
  var seeds = 0;
  ['000', '001', '002', '003', '004'].forEach(function (s) {{
    var e = d.getElementById('seed-' + s);
    if (e && e.querySelector('h2') && e.querySelector('h2').textContent.indexOf('Seed ' + s + ' \u2014') === 0) seeds++;
  }});
  document.getElementById('out').textContent = JSON.stringify({{
    width: w, scroll_width: d.documentElement.scrollWidth, height: d.documentElement.scrollHeight,
    dashboard_top: dash ? dash.getBoundingClientRect().top : -1,
    dashboard_bottom: dash ? dash.getBoundingClientRect().bottom : 1e9,
    seed_sections: seeds, charts: charts.length, charts_ok: ok, loose_svgs: loose,
    bad: bad.slice(0, 20)
  }});
}};
</script></body></html>"#
        ),
    )
    .unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", wrapper.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no result in the dumped page: {dom:.2000}"));
    serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&"))
        .unwrap_or_else(|e| panic!("{e}: {json}"))
}
