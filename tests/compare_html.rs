//! `mcscope compare PATH --format html -o FILE`, rendered by a real headless
//! browser (Chromium `--dump-dom`): the table cells it shows are the rows of
//! `compare --format json` run separately, and the chart has one point per
//! request for the current and the recommended setting, each at the recorded
//! prompt size (`evidence --format json`) less the tokens the setting keeps
//! out of the wire (`timeline --format json` with that setting's flags), and
//! the recommended setting's stacked area of what fills the window holds
//! that timeline's `context` (SPEC §12).
//!
//! Skips with a note unless `MCSCOPE_REQUIRE_CHROMIUM=1` (set by `.ci/run`
//! after installing Debian's `chromium`); with it, a missing browser fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn required() -> bool {
    std::env::var("MCSCOPE_REQUIRE_CHROMIUM").as_deref() == Ok("1")
}

fn mcscope(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&mcscope(args)).unwrap()
}

/// The page as the browser's DOM after loading it.
fn dump_dom(page: &Path, profile: &Path) -> String {
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (MCSCOPE_REQUIRE_CHROMIUM=1)");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The text of every `<td>` of each `<tr data-row=…>`, in order.
fn table_rows(dom: &str) -> Vec<(usize, Vec<String>)> {
    dom.split("<tr data-row=\"")
        .skip(1)
        .map(|chunk| {
            let row: usize = chunk[..chunk.find('"').unwrap()].parse().unwrap();
            let body = &chunk[..chunk.find("</tr>").unwrap()];
            let cells = body
                .split("<td")
                .skip(1)
                .map(|c| {
                    let start = c.find('>').unwrap() + 1;
                    let end = c.find("</td>").unwrap();
                    c[start..end].replace("&amp;", "&")
                })
                .collect();
            (row, cells)
        })
        .collect()
}

/// The chart's points of one series: (request, tokens).
fn points(dom: &str, series: &str) -> Vec<(usize, u64)> {
    let attr = |tag: &str, name: &str| -> String {
        let at = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        tag[at..at + tag[at..].find('"').unwrap()].to_string()
    };
    dom.split("<circle")
        .skip(1)
        .map(|c| &c[..c.find('>').unwrap()])
        .filter(|tag| tag.contains(&format!("data-series=\"{series}\"")))
        .map(|tag| {
            (
                attr(tag, "data-k").parse().unwrap(),
                attr(tag, "data-tokens").parse().unwrap(),
            )
        })
        .collect()
}

/// `timeline` flags that run a row's setting (its §7 policy object).
fn flags(policy: &Value) -> Vec<String> {
    let mut f = vec![
        "--policy".to_string(),
        policy["kind"].as_str().unwrap().into(),
    ];
    for (key, flag) in [
        ("keep_recent", "--keep-recent"),
        ("gap_threshold_minutes", "--gap-minutes"),
        ("size_threshold", "--size-threshold"),
        ("trigger_threshold", "--trigger"),
    ] {
        if let Some(v) = policy.get(key).filter(|v| v.is_number()) {
            f.push(flag.into());
            f.push(v.to_string());
        }
    }
    f.push("--delivery".into());
    f.push(policy["delivery"].as_str().unwrap().into());
    f
}

/// P(k) − `in_wire_tokens[k]` at every request, from the CLI's own JSON.
fn simulated(path: &str, setting: &[String]) -> Vec<(usize, u64)> {
    let ev = json(&["evidence", path, "--format", "json"]);
    let mut args = vec!["timeline", path, "--format", "json"];
    args.extend(setting.iter().map(String::as_str));
    let tl = json(&args);
    ev["requests"]
        .as_array()
        .unwrap()
        .iter()
        .zip(tl["requests"].as_array().unwrap())
        .filter(|(e, _)| e["usage"].is_object())
        .map(|(e, t)| {
            let u = &e["usage"];
            let p = u["input"].as_u64().unwrap()
                + u["cache_write"].as_u64().unwrap_or(0)
                + u["cache_read"].as_u64().unwrap();
            let k = t["index"].as_u64().unwrap() as usize;
            assert_eq!(e["index"], t["index"]);
            (k, p.saturating_sub(t["in_wire_tokens"].as_u64().unwrap()))
        })
        .collect()
}

#[test]
fn the_html_page_in_a_real_browser_shows_the_json_rows_and_a_point_per_request() {
    if !required() {
        eprintln!(
            "compare_html: skipped (set MCSCOPE_REQUIRE_CHROMIUM=1 with Debian's chromium installed to run it)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for path in [
        "sample-sessions/claude-demo.jsonl",
        "sample-sessions/claude-size.jsonl",
    ] {
        let page = dir.path().join("page.html");
        let shown = page.to_str().unwrap();
        mcscope(&["compare", path, "--format", "html", "-o", shown]);
        let html = std::fs::read_to_string(&page).unwrap();
        // Self-contained: no script, nothing fetched.
        assert!(!html.contains("<script"), "{path}");
        let outside_svg_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(!outside_svg_ns.contains("http"), "{path}: nothing to fetch");
        let dom = dump_dom(&page, &dir.path().join("profile"));
        let cmp = json(&["compare", path, "--format", "json"]);
        let rows = cmp["rows"].as_array().unwrap();
        let shown = table_rows(&dom);
        assert_eq!(
            shown.len(),
            rows.len(),
            "{path}: one table row per JSON row"
        );
        let rec = cmp["recommended"].as_u64().map(|i| i as usize);
        for (i, (row, cells)) in shown.iter().enumerate() {
            let r = &rows[i];
            assert_eq!(*row, i);
            let mark = if Some(i) == rec { "*" } else { "" };
            assert_eq!(cells[0], format!("{i}{mark}"), "{path} row {i}");
            assert!(
                cells[1].contains(r["policy"]["kind"].as_str().unwrap()),
                "{path} row {i}: {cells:?}"
            );
            let num = |s: &str| -> u64 { s.replace(',', "").parse().unwrap() };
            assert_eq!(
                num(&cells[2]),
                r["fires"].as_u64().unwrap(),
                "{path} row {i}"
            );
            assert_eq!(num(&cells[3]), r["cleared_results"].as_u64().unwrap());
            assert_eq!(num(&cells[4]), r["tokens_not_sent"].as_u64().unwrap());
            assert_eq!(num(&cells[5]), r["cache_breaks"].as_u64().unwrap());
            assert_eq!(num(&cells[6]), r["tokens_rewritten"].as_u64().unwrap());
            assert_eq!(num(&cells[7]), r["later_used"].as_u64().unwrap());
            match r["delta_usd"].as_f64() {
                Some(x) => {
                    let y: f64 = cells[8].parse().unwrap();
                    assert!((x - y).abs() < 5e-7, "{path} row {i}: {x} vs {y}");
                }
                None => assert_eq!(cells[8], "?"),
            }
        }
        // The chart: one point per request of each setting, at P(k) − in_wire.
        let requests = cmp["sessions"][0]["requests"].as_u64().unwrap() as usize;
        let current = simulated(path, &[]);
        assert_eq!(current.len(), requests, "{path}: every request has usage");
        assert_eq!(points(&dom, "sim-current"), current, "{path}");
        let rec = &rows[rec.unwrap()]["policy"];
        let recommended = simulated(path, &flags(rec));
        assert_eq!(points(&dom, "sim-recommended"), recommended, "{path}");
        assert_eq!(points(&dom, "recorded").len(), requests);
        // The recommended setting clears something somewhere: its line differs.
        assert_ne!(current, recommended, "{path}");
        // What fills the window (SPEC §12): the recommended row's stacked
        // area, a layer per tool and per kind, holds `timeline --format
        // json`'s `context` at every request.
        let mut args = vec!["timeline", path, "--format", "json"];
        let setting = flags(rec);
        args.extend(setting.iter().map(String::as_str));
        let tl = json(&args);
        let layers = context_layers(&dom);
        assert!(
            layers.iter().any(|(n, _)| n.starts_with("tool_results.")),
            "{path}: {layers:?}"
        );
        let mut tools_seen = 0;
        for (i, r) in tl["requests"].as_array().unwrap().iter().enumerate() {
            let c = &r["context"];
            for (name, values) in &layers {
                let want = match name.strip_prefix("tool_results.") {
                    Some(tool) => c["tool_results"]
                        .get(tool)
                        .map_or(0, |v| v.as_u64().unwrap()),
                    None if name == "unattributed" => {
                        c[name.as_str()].as_i64().map_or(0, |u| u.max(0) as u64)
                    }
                    None => c[name.as_str()].as_u64().unwrap(),
                };
                assert_eq!(values[i], want, "{path} request {} layer {name}", i + 1);
            }
            let tools = c["tool_results"].as_object().unwrap();
            for t in tools.keys() {
                assert!(
                    layers
                        .iter()
                        .any(|(n, _)| *n == format!("tool_results.{t}"))
                );
            }
            tools_seen += tools.len();
        }
        assert!(tools_seen > 0, "{path}");
        // Two settings that clear differently fill the window differently.
        let cur = json(&["timeline", path, "--format", "json"]);
        assert_ne!(
            cur["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| &r["context"])
                .collect::<Vec<_>>(),
            tl["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| &r["context"])
                .collect::<Vec<_>>(),
            "{path}"
        );
    }
}

/// The context chart's layers as the browser holds them: (name, values per request).
fn context_layers(dom: &str) -> Vec<(String, Vec<u64>)> {
    let attr = |tag: &str, name: &str| -> String {
        let at = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        tag[at..at + tag[at..].find('"').unwrap()].to_string()
    };
    dom.split("<path class=\"ctx-area\"")
        .skip(1)
        .map(|c| &c[..c.find('>').unwrap()])
        .map(|tag| {
            let values = attr(tag, "data-values")
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            (attr(tag, "data-layer"), values)
        })
        .collect()
}

/// Without a browser: the page goes to stdout without `-o`; a folder gets the
/// table of its summed rows and says why there is no chart.
#[test]
fn html_without_a_browser_stdout_and_a_folder() {
    let page = mcscope(&[
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--format",
        "html",
    ]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    let rows = json(&[
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(
        page.matches("<tr data-row=").count(),
        rows["rows"].as_array().unwrap().len()
    );
    // SPEC §9a: the baseline is the table's first row, labelled as what happened.
    let first = page.split("<tr data-row=\"0\"").nth(1).unwrap();
    let first = &first[..first.find("</tr>").unwrap()];
    assert!(first.starts_with(" class=\"baseline\""), "{first}");
    assert!(first.contains("recorded: what happened"), "{first}");
    assert!(page.contains("<svg"));
    let dir = tempfile::tempdir().unwrap();
    for f in ["claude-demo.jsonl", "claude-size.jsonl"] {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("sample-sessions")
                .join(f),
            dir.path().join(f),
        )
        .unwrap();
    }
    let folder = dir.path().to_str().unwrap();
    let page = mcscope(&["compare", folder, "--format", "html"]);
    assert!(!page.contains("<svg"));
    assert!(page.contains(
        "The per-request chart is drawn for one session; this page compares 2 sessions."
    ));
    let rows = json(&["compare", folder, "--format", "json"]);
    assert_eq!(
        page.matches("<tr data-row=").count(),
        rows["rows"].as_array().unwrap().len()
    );
}

/// `-o` never writes over the session it reads.
#[test]
fn o_refuses_to_overwrite_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl"),
        &f,
    )
    .unwrap();
    let before = std::fs::read(&f).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args([
            "compare",
            f.to_str().unwrap(),
            "--format",
            "html",
            "-o",
            f.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to write") && err.contains("which mcscope is reading"),
        "{err}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
}
