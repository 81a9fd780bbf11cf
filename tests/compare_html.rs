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

#[path = "common/corpus.rs"]
mod corpus;

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
        table_matches_json(path, &shown, rows, rec);
        // The chart: one point per request of each setting, at P(k) − in_wire.
        let requests = cmp["sessions"][0]["requests"].as_u64().unwrap() as usize;
        let current = simulated(path, &[]);
        assert_eq!(current.len(), requests, "{path}: every request has usage");
        assert_eq!(points(&dom, "sim-current"), current, "{path}");
        assert_eq!(points(&dom, "recorded").len(), requests);
        // Issue #24 item 6, in the browser: the bill first, a `!` mark at each
        // observed break `evidence` reports, a table row per request.
        let bill = mcscope(&["compare", path, "-q"]);
        let bill = bill.lines().nth(1).unwrap();
        assert!(
            dom.find(bill).unwrap() < dom.find("<svg").unwrap(),
            "{path}"
        );
        let ev = json(&["evidence", path, "--format", "json"]);
        let breaks: Vec<u64> = ev["requests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["observed_break"].is_object())
            .map(|r| r["index"].as_u64().unwrap())
            .collect();
        // The demo records one observed break (claude-size none).
        assert_eq!(breaks.len(), usize::from(path.contains("demo")), "{path}");
        for k in &breaks {
            assert!(
                dom.contains(&format!("<g class=\"mark observed-break\" data-k=\"{k}\">")),
                "{path}: request {k}"
            );
        }
        assert_eq!(dom.matches("<tr data-k=").count(), requests, "{path}");
        // SPEC §9a: claude-size has no setting that fires and saves while the
        // harness could run it: no recommended line, the current one's area.
        let Some(rec) = rec.map(|i| &rows[i]["policy"]) else {
            assert!(points(&dom, "sim-recommended").is_empty(), "{path}");
            assert!(dom.contains("no clearing recommended"), "{path}");
            continue;
        };
        let recommended = simulated(path, &flags(rec));
        assert_eq!(points(&dom, "sim-recommended"), recommended, "{path}");
        // The recommended setting clears something somewhere: its line differs.
        assert_ne!(current, recommended, "{path}");
        context_matches_timeline(path, &dom, rec);
    }
}

/// Each table row of the page is its JSON row: the index (starred where
/// recommended), the kind, the totals and Δ.
fn table_matches_json(
    path: &str,
    shown: &[(usize, Vec<String>)],
    rows: &[Value],
    rec: Option<usize>,
) {
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
}

/// What fills the window (SPEC §12): the recommended row's stacked area, a
/// layer per tool and per kind, holds `timeline --format json`'s `context` at
/// every request, and differs from the current setting's.
fn context_matches_timeline(path: &str, dom: &str, rec: &Value) {
    // What fills the window (SPEC §12): the recommended row's stacked
    // area, a layer per tool and per kind, holds `timeline --format
    // json`'s `context` at every request.
    let mut args = vec!["timeline", path, "--format", "json"];
    let setting = flags(rec);
    args.extend(setting.iter().map(String::as_str));
    let tl = json(&args);
    let layers = context_layers(dom);
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

/// The text between `<tag …>` and `</tag>` of every `<tag` that holds `attr`.
fn elements<'a>(html: &'a str, tag: &str, attr: &str) -> Vec<&'a str> {
    html.split(&format!("<{tag} "))
        .skip(1)
        .filter(|c| c[..c.find('>').unwrap()].contains(attr))
        .map(|c| &c[..c.find(&format!("</{tag}>")).unwrap()])
        .collect()
}

/// The cells' text of the per-request table's row for request `k`.
fn request_cells(html: &str, k: usize) -> Vec<String> {
    let row = elements(html, "tr", &format!("data-k=\"{k}\""));
    assert_eq!(row.len(), 1, "request {k}");
    row[0]
        .split("<td")
        .skip(1)
        .map(|c| c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()].to_string())
        .collect()
}

/// Issue #24 item 6, SPEC §9a: the page opens with the recorded bill (the
/// text's line, and the tokens beside it); the chart labels the evidence at
/// its requests — on claude-budget (2.1.17) the observed break at request 7
/// with its explanations and the boundary record with its ids, which agrees —
/// and draws the recorded context over the simulated lines; a row per request
/// under it holds what `evidence` and `timeline` say there.
#[test]
fn html_shows_the_bill_the_evidence_marks_and_a_row_per_request() {
    let path = "sample-sessions/claude-budget.jsonl";
    let page = mcscope(&["compare", path, "--format", "html", "-q"]);
    let text = mcscope(&["compare", path, "-q"]);
    let bill = text.lines().nth(1).unwrap();
    assert!(bill.starts_with("recorded: $"), "{text}");
    let top = &page[..page.find("<h2").unwrap()];
    assert!(
        top.contains(&format!(
            "<p class=\"bill\" id=\"recorded\"><b>{bill}</b></p>"
        )),
        "{top}"
    );
    let main = elements(top, "tr", "data-bill=\"main thread\"");
    assert_eq!(main.len(), 1, "{top}");
    let ev = json(&["evidence", path, "--format", "json"]);
    let r7 = &ev["requests"][6];
    assert_eq!(r7["index"], 7);
    // `!` at 7 with every explanation the evidence gives, in words.
    let brk = elements(&page, "g", "class=\"mark observed-break\" data-k=\"7\"");
    assert_eq!(brk.len(), 1, "{page}");
    assert!(brk[0].contains(">! 7</text>"), "{}", brk[0]);
    let drop = r7["observed_break"]["drop"].as_u64().unwrap();
    assert_eq!(drop, 108_300);
    assert!(brk[0].contains("108,300 tokens fewer read than expected"));
    assert!(brk[0].contains("the harness rewrote old results (a budget microcompact_boundary)"));
    let explanations = r7["observed_break"]["explanations"].as_array().unwrap();
    assert_eq!(explanations.len(), 2);
    // `◇` at 7: the record's ids, and whether it agrees.
    assert_eq!(r7["microcompact"]["agrees"], true);
    let b = elements(&page, "g", "class=\"mark boundary\" data-k=\"7\"");
    assert_eq!(b.len(), 1, "{page}");
    assert!(b[0].contains(">◇ 7 agrees</text>"), "{}", b[0]);
    for id in r7["microcompact"]["compacted_tool_ids"].as_array().unwrap() {
        assert!(b[0].contains(id.as_str().unwrap()), "{id}");
    }
    // Only request 7 holds evidence.
    assert_eq!(page.matches("<g class=\"mark ").count(), 2);
    // The recorded line is drawn last: on top of the simulated ones.
    let svg = &page[page.find("<svg").unwrap()..page.find("</svg>").unwrap()];
    let recorded = svg.find("<polyline class=\"recorded\"").unwrap();
    let current = svg.find("<polyline class=\"sim-current\"").unwrap();
    assert!(
        recorded > current,
        "the recorded line under the simulated one"
    );
    // A row per request: its time, P(k), hit rate, the recorded clearing (the
    // boundary's 3 results, 62,000 tokens, from 7 on) and the break.
    let tl = json(&["timeline", path, "--format", "json"]);
    let requests = tl["requests"].as_array().unwrap();
    assert_eq!(page.matches("<tr data-k=").count(), requests.len());
    assert!(
        !page.contains("<details id=\"per-request\""),
        "10 rows: not folded"
    );
    for (i, r) in requests.iter().enumerate() {
        let k = i + 1;
        let cells = request_cells(&page, k);
        assert_eq!(cells[0], k.to_string());
        let u = &ev["requests"][i]["usage"];
        let p = u["input"].as_u64().unwrap()
            + u["cache_write"].as_u64().unwrap_or(0)
            + u["cache_read"].as_u64().unwrap();
        assert_eq!(cells[2].replace(',', ""), p.to_string(), "request {k}");
        let hit = r["hit_rate"].as_f64().unwrap();
        assert_eq!(cells[3], format!("{:.1} %", hit * 100.0), "request {k}");
        let rc = r["recorded_cleared_tokens"].as_u64().unwrap();
        if k >= 7 {
            assert_eq!(rc, 62_000);
            assert_eq!(cells[4], "3 results, 62,000 tokens", "request {k}");
        } else {
            assert_eq!((rc, cells[4].as_str()), (0, "-"), "request {k}");
        }
        assert_eq!(cells[6].contains("! cache break"), k == 7, "request {k}");
    }
    assert!(request_cells(&page, 7)[6].contains("◇ boundary record naming 3 ids"));
}

/// Issue #24 item 6: a compaction is marked `^` at the request after it, and
/// a long session's per-request table is folded (a real 2.1.x session of the
/// corpus with a `compact_boundary` record).
#[test]
fn html_marks_a_compaction_and_folds_a_long_table() {
    let Some(path) =
        corpus::file("claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    else {
        return;
    };
    let shown = path.to_str().unwrap();
    let page = mcscope(&[
        "compare", shown, "--policy", "idle", "--format", "html", "-q",
    ]);
    let marks = elements(&page, "g", "class=\"mark compaction\"");
    assert!(!marks.is_empty(), "no compaction mark");
    // Its request is the first of a new view (the timeline's `segment`).
    let tl = json(&["timeline", shown, "--policy", "idle", "--format", "json"]);
    let reqs = tl["requests"].as_array().unwrap();
    let first_after: Vec<usize> = (1..reqs.len())
        .filter(|&i| reqs[i]["segment"] != reqs[i - 1]["segment"])
        .map(|i| i + 1)
        .collect();
    for k in &first_after {
        assert!(
            page.contains(&format!("<g class=\"mark compaction\" data-k=\"{k}\">")),
            "request {k}"
        );
        assert!(request_cells(&page, *k)[6].contains("^ compacted before this request"));
    }
    if reqs.len() > 40 {
        assert!(page.contains("<details id=\"per-request\">"), "folded");
    }
}

/// Issue #24 item 6, SPEC §9a: sub-agents are billed beside the main thread
/// at the top of the page.
#[test]
fn html_bills_sub_agents_beside_the_main_thread() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = |uuid: &str, parent: Option<&str>, side: bool, body: serde_json::Value| {
        let mut v = serde_json::json!({
            "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "isSidechain": side,
            "timestamp": "2026-01-01T10:00:00Z", "cwd": "/w", "version": "2.1.88"
        });
        for (k, x) in body.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string()
    };
    let resp = |id: &str, req: &str, input: u64| {
        serde_json::json!({"type": "assistant", "requestId": req, "message": {
            "id": id, "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "output_tokens": 10,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
    };
    let user = serde_json::json!({"type": "user", "message": {"role": "user", "content": "go"}});
    std::fs::write(
        d.join("s1.jsonl"),
        [
            line("u1", None, false, user.clone()),
            line("a1", Some("u1"), false, resp("m1", "q1", 1000)),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    std::fs::create_dir_all(d.join("s1/subagents")).unwrap();
    std::fs::write(
        d.join("s1/subagents/agent-a.jsonl"),
        [
            line("su1", None, true, user),
            line("sa1", Some("su1"), true, resp("x1", "qx1", 300)),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let s1 = d.join("s1.jsonl");
    let page = mcscope(&["compare", s1.to_str().unwrap(), "--format", "html", "-q"]);
    let top = &page[..page.find("<h2").unwrap()];
    assert!(top.contains("sub-agents $"), "{top}");
    let sub = elements(top, "tr", "data-bill=\"sub-agents\"");
    assert_eq!(sub.len(), 1, "{top}");
    // responses, input: the sub-agent's one response of 300 input tokens.
    assert!(sub[0].contains("<td>1</td><td>300</td>"), "{}", sub[0]);
    let main = elements(top, "tr", "data-bill=\"main thread\"");
    assert!(main[0].contains("<td>1</td><td>1,000</td>"), "{}", main[0]);
}

/// `-z` wherever a time is shown (the words issue): the HTML page's
/// per-request table gives each request's time in the display zone, as the
/// text outputs do, not the recorded UTC string.
#[test]
fn the_per_request_table_obeys_the_display_zone() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("c.html");
    let p = page.to_str().unwrap();
    for (zone, shown) in [
        ("Asia/Tokyo", "2026-04-02 18:14:03 JST"),
        ("UTC", "2026-04-02 09:14:03 UTC"),
    ] {
        mcscope(&[
            "compare",
            "sample-sessions/claude-demo.jsonl",
            "--format",
            "html",
            "-z",
            zone,
            "-o",
            p,
        ]);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(
            html.contains(&format!("<td class=\"setting\">{shown}</td>")),
            "{zone}"
        );
        assert!(!html.contains("2026-04-02T09:14:03.118Z"), "{zone}");
    }
}
