//! The recorded bill (SPEC §9a, §15.16) and a folder's summary lines (§9a,
//! §15.2) through the real binary. The expected figures are summed here from
//! the transcripts with serde_json alone, independently of mcscope's loader.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn run(args: &[&str], env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = run(args, &[]);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Σ of a transcript's main-thread usage, one response per message.id +
/// requestId (the last line's usage), `<synthetic>` left out: [input, output,
/// 5m writes, 1h writes, reads, responses].
fn sums(path: &Path) -> [u64; 6] {
    let text = std::fs::read_to_string(path).unwrap();
    let mut order: Vec<String> = Vec::new();
    let mut last: std::collections::HashMap<String, Value> = Default::default();
    for (n, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["type"] != "assistant" || v["isSidechain"] == true || v["message"]["usage"].is_null() {
            continue;
        }
        if v["message"]["model"] == "<synthetic>" {
            continue;
        }
        let key = match (v["message"]["id"].as_str(), v["requestId"].as_str()) {
            (Some(a), Some(b)) => format!("{a}/{b}"),
            _ => format!("line {n}"),
        };
        if !last.contains_key(&key) {
            order.push(key.clone());
        }
        last.insert(key, v["message"]["usage"].clone());
    }
    let mut s = [0u64; 6];
    for k in &order {
        let u = &last[k];
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let w = n(&u["cache_creation_input_tokens"]);
        let w1 = n(&u["cache_creation"]["ephemeral_1h_input_tokens"]);
        s[0] += n(&u["input_tokens"]);
        s[1] += n(&u["output_tokens"]);
        s[2] += w - w1;
        s[3] += w1;
        s[4] += n(&u["cache_read_input_tokens"]);
        s[5] += 1;
    }
    s
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-6)
}

/// SPEC §15.16: `plan`, `timeline` and `evidence` JSON carry the same
/// `session.recorded`, `compare` the same per session; its tokens are the
/// transcript's sums and its dollars the claude-opus-4-6 row's
/// (5 / 6.25 / 10 / 0.50 / 25 per million).
#[test]
fn t15_16_every_schema_carries_the_same_recorded_bill() {
    let [input, output, w5, w1, read, responses] =
        sums(&Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO));
    let plan = json_of(&["plan", DEMO, "--format", "json"]);
    let r = &plan["session"]["recorded"];
    assert_eq!(r["responses"], json!(responses));
    assert_eq!(
        [
            &r["input"],
            &r["output"],
            &r["cache_write_5m"],
            &r["cache_write_1h"],
            &r["cache_read"]
        ],
        [
            &json!(input),
            &json!(output),
            &json!(w5),
            &json!(w1),
            &json!(read)
        ]
    );
    let usd = (input as f64 * 5.0
        + output as f64 * 25.0
        + w5 as f64 * 6.25
        + w1 as f64 * 10.0
        + read as f64 * 0.5)
        / 1e6;
    assert!(close(&r["usd"], usd), "{} vs {usd}", r["usd"]);
    let hit = read as f64 / (input + w5 + w1 + read) as f64;
    assert_eq!(r["hit_rate"], json!((hit * 1e4).round() / 1e4));
    // The demo's one observed break (evidence) and what it cost against a read:
    // its writes are 1-hour ones, so at the 1-hour write rate, 10.
    let ev = json_of(&["evidence", DEMO, "--format", "json"]);
    let drops: Vec<u64> = ev["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| q["observed_break"]["drop"].as_u64())
        .collect();
    assert_eq!(r["observed_breaks"], json!(drops.len()));
    assert_eq!(drops.len(), 1);
    assert!(close(&r["break_usd"], drops[0] as f64 * (10.0 - 0.5) / 1e6));
    assert_eq!(r["subagents"], Value::Null);
    assert_eq!(&ev["session"]["recorded"], r);
    let tl = json_of(&["timeline", DEMO, "--format", "json"]);
    assert_eq!(&tl["session"]["recorded"], r);
    let cmp = json_of(&["compare", DEMO, "--policy", "idle", "-j", "-q"]);
    assert_eq!(&cmp["sessions"][0]["recorded"], r);
    // The folder's sums carry what they leave out (SPEC §18.5): nothing here.
    let mut sums = cmp["recorded"].clone();
    let unpriced = sums.as_object_mut().unwrap().remove("unpriced").unwrap();
    assert_eq!(unpriced, json!({"responses": 0, "models": []}));
    assert_eq!(&sums, r);
    assert_eq!(cmp["sessions"][0]["price"]["output"], json!(25.0));
    // Text: the bill first, in the SPEC's words.
    let (_, text, _) = run(&["compare", DEMO, "--policy", "idle"], &[]);
    let line = text.lines().nth(1).unwrap();
    // `evidence` text prints the same line under its summary.
    let (_, ev_text, _) = run(&["evidence", DEMO], &[]);
    assert!(ev_text.lines().any(|l| l == line), "{ev_text}");
    assert_eq!(
        line,
        format!(
            "recorded: ${usd:.2} · hit rate {:.1} % · 1 observed break, ${:.2}",
            hit * 100.0,
            drops[0] as f64 * 9.5 / 1e6
        )
    );
}

/// SPEC §15.16: `--price-output` and the config key `output` override the
/// output rate, and only the recorded bill reads it.
#[test]
fn t15_16_price_output_overrides_the_output_rate() {
    let [_, output, ..] = sums(&Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO));
    let base = json_of(&["compare", DEMO, "--policy", "idle", "-j", "-q"]);
    let more = json_of(&[
        "compare",
        DEMO,
        "--policy",
        "idle",
        "-j",
        "-q",
        "--price-output",
        "125",
    ]);
    assert_eq!(more["sessions"][0]["price"]["output"], json!(125.0));
    let grew =
        more["recorded"]["usd"].as_f64().unwrap() - base["recorded"]["usd"].as_f64().unwrap();
    assert!((grew - output as f64 * 100.0 / 1e6).abs() < 2e-6, "{grew}");
    assert_eq!(more["rows"][0]["delta_usd"], base["rows"][0]["delta_usd"]);
    // The config's row for the model's prefix, with `output`.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[prices.\"claude-opus-4-6\"]\ninput = 5\nwrite_5m = 6.25\nwrite_1h = 10\nread = 0.5\noutput = 125\n",
    )
    .unwrap();
    let (code, out, err) = run(
        &["compare", DEMO, "--policy", "idle", "-j", "-q"],
        &[("MCSCOPE_CONFIG", &cfg)],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["recorded"]["usd"], more["recorded"]["usd"]);
    // A negative rate is refused, as every price.
    let (code, _, _) = run(&["compare", DEMO, "--price-output", "-1"], &[]);
    assert_eq!(code, 2);
}

/// One line of a main-thread Claude record of session `sid`.
fn rec(sid: &str, n: usize, kind: &str, side: bool, extra: Value) -> String {
    let mut r = json!({"parentUuid": null, "isSidechain": side, "type": kind,
        "uuid": format!("{sid}-{n}"), "timestamp": format!("2026-11-02T10:{n:02}:00.000Z"),
        "sessionId": sid, "version": "2.1.17", "cwd": "/r"});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r.to_string()
}

fn prompt(sid: &str, n: usize, side: bool) -> String {
    rec(
        sid,
        n,
        "user",
        side,
        json!({"message": {"role": "user", "content": "go"}}),
    )
}

fn resp(sid: &str, n: usize, side: bool, id: &str, rq: &str, model: &str, input: u64) -> String {
    rec(
        sid,
        n,
        "assistant",
        side,
        json!({"requestId": rq, "message": {"id": id, "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "output_tokens": 10,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    )
}

fn write(p: &Path, lines: &[String]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, lines.join("\n") + "\n").unwrap();
}

/// SPEC §9a: a session's sub-agent files (`<session>/subagents/`) are billed
/// beside it, a response the main file holds counted once; a folder's text
/// prints one line per kind of skipped or unpriced session with a count, `-v`
/// lists them, and JSON's `skipped` names each with its reason (§15.2).
#[test]
fn t9a_folder_bills_subagents_and_summarises_what_it_skips() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sonnet = "claude-sonnet-4-5";
    write(
        &d.join("s1.jsonl"),
        &[
            prompt("s1", 1, false),
            resp("s1", 2, false, "m1", "q1", sonnet, 1000),
            prompt("s1", 3, false),
            resp("s1", 4, false, "m2", "q2", sonnet, 2000),
        ],
    );
    write(
        &d.join("s1/subagents/agent-a.jsonl"),
        &[
            prompt("s1", 1, true),
            resp("s1", 2, true, "a1", "qa1", sonnet, 300),
            // The main thread's response again: not counted twice.
            resp("s1", 3, true, "m2", "q2", sonnet, 2000),
        ],
    );
    // A second session whose model has no price: compared, dollars unknown.
    write(
        &d.join("s2.jsonl"),
        &[
            prompt("s2", 1, false),
            resp("s2", 2, false, "x1", "qx1", "mystery-model", 50),
        ],
    );
    // Two empty files and a summary-only one: skipped.
    std::fs::write(d.join("e1.jsonl"), "").unwrap();
    std::fs::write(d.join("e2.jsonl"), "\n").unwrap();
    write(
        &d.join("sum.jsonl"),
        &[json!({"type": "summary", "summary": "x"}).to_string()],
    );
    let folder = d.to_str().unwrap();
    let v = json_of(&["compare", folder, "--policy", "idle", "-j", "-q"]);
    let s1 = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"].as_str().unwrap().ends_with("s1.jsonl"))
        .unwrap();
    assert_eq!(s1["recorded"]["input"], json!(3000));
    assert_eq!(s1["recorded"]["subagents"]["responses"], json!(1));
    assert_eq!(s1["recorded"]["subagents"]["input"], json!(300));
    // The sums: 3,050 main-thread input tokens; one session unpriced: its
    // dollars are left out, never the others' (SPEC §18.5).
    assert_eq!(v["recorded"]["input"], json!(3050));
    assert_eq!(v["recorded"]["responses"], json!(3));
    assert!(v["recorded"]["usd"].is_number(), "{}", v["recorded"]);
    assert!(v["recorded"]["unpriced"]["responses"].as_u64().unwrap() > 0);
    assert_eq!(
        v["recorded"]["unpriced"]["models"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(v["recorded"]["subagents"]["input"], json!(300));
    let reasons: HashSet<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let p = s["path"].as_str().unwrap();
            let name = Path::new(p)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            (name, s["reason"].as_str().unwrap().to_string())
        })
        .collect();
    let want: HashSet<(String, String)> = [
        ("e1.jsonl", "empty"),
        ("e2.jsonl", "empty"),
        ("sum.jsonl", "summary_only"),
        ("s2.jsonl", "unpriced"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(reasons, want);
    // Text: one line per kind with its count, no file named.
    let (code, text, err) = run(&["compare", folder, "--policy", "idle"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  2 sessions compared (-v lists them)\n"),
        "{text}"
    );
    assert!(
        text.contains("  skipped 2 files (empty) (-v lists them)\n"),
        "{text}"
    );
    assert!(
        text.contains("  skipped 1 file (summary_only) (-v lists them)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  1 session without a price (unpriced): its dollars are unknown (-v lists them)\n"
        ),
        "{text}"
    );
    assert!(
        !text.contains("e1.jsonl") && !text.contains("s2.jsonl"),
        "{text}"
    );
    assert!(err.contains("mcscope: skipped 2 files (empty)"), "{err}");
    assert!(!err.contains("e1.jsonl"), "{err}");
    // -v: each named under its kind.
    let (_, text, err) = run(&["compare", folder, "--policy", "idle", "-v"], &[]);
    assert!(text.contains("  skipped 2 files (empty)\n"), "{text}");
    assert!(
        text.contains("e1.jsonl: ") && text.contains("e2.jsonl: "),
        "{text}"
    );
    assert!(
        text.contains("s1.jsonl (claude, claude-sonnet-4-5, 2 requests)"),
        "{text}"
    );
    assert!(err.contains("e1.jsonl"), "{err}");
}
