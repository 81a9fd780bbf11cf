//! Silent misreadings (issue 21, items 5 and 6), through the real binary: a
//! record with a field of the wrong shape is kept with a warning in
//! `session.warnings`, a comparison whose ids could not all be read never
//! agrees, u64-scale usage never wraps or panics (the tests run the debug
//! build, where an overflow panics), values that make no sense are usage errors
//! (exit 2), and an empty tool id can be explained. Every fixture is written by
//! the test itself into a temp dir.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A Claude Code transcript of raw records: `rec` adds the base fields.
#[derive(Default)]
struct Tx(Vec<Value>);

impl Tx {
    fn rec(&mut self, mut v: Value) -> &mut Self {
        let n = self.0.len();
        let base = json!({"parentUuid": null, "isSidechain": false, "cwd": "/repo", "sessionId": "s",
                          "version": "2.1.20", "uuid": format!("u{n}"),
                          "timestamp": format!("2026-01-01T00:{n:02}:00.000Z")});
        for (k, x) in base.as_object().unwrap() {
            v.as_object_mut().unwrap().entry(k).or_insert(x.clone());
        }
        self.0.push(v);
        self
    }

    fn prompt(&mut self) -> &mut Self {
        self.rec(json!({"type": "user", "message": {"role": "user", "content": "go on"}}))
    }

    /// A response with one Bash call (`id`) and this usage.
    fn call(&mut self, msg: &str, id: &str, usage: Value) -> &mut Self {
        self.rec(json!({"type": "assistant", "message": {"id": msg, "role": "assistant",
            "model": "claude-sonnet-4-5", "usage": usage,
            "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}]}}))
    }

    fn result(&mut self, id: &str, chars: usize) -> &mut Self {
        self.rec(
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(chars)}]}}),
        )
    }

    fn answer(&mut self, msg: &str, usage: Value) -> &mut Self {
        self.rec(
            json!({"type": "assistant", "message": {"id": msg, "role": "assistant",
            "model": "claude-sonnet-4-5", "usage": usage,
            "content": [{"type": "text", "text": "done"}]}}),
        )
    }

    fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let text: Vec<String> = self.0.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n") + "\n").unwrap();
        path
    }
}

fn usage(input: u64, write: u64, read: u64) -> Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": write,
           "cache_read_input_tokens": read, "output_tokens": 5})
}

/// `mcscope ARGS` with a config file of our own (none unless `config` is given).
fn run_with(args: &[&str], config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .env("MCSCOPE_CONFIG", config)
        .output()
        .unwrap()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_with(args, &dir.join("no-config.toml"))
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A budget-writer boundary (before request 2) whose ids hold a number, with a
/// float `preTokens` and a negative `tokensSaved`.
fn odd_boundary(dir: &Path) -> PathBuf {
    let mut tx = Tx::default();
    tx.prompt()
        .call("m1", "toolu_a", usage(10, 0, 100))
        .result("toolu_a", 5000)
        .rec(json!({"type": "system", "subtype": "microcompact_boundary",
            "content": "Context microcompacted",
            "microcompactMetadata": {"trigger": "auto", "preTokens": 1.5, "tokensSaved": -4,
                                     "compactedToolIds": ["toolu_a", 7],
                                     "clearedAttachmentUUIDs": []}}))
        .answer("m2", usage(10, 0, 100));
    tx.write(dir, "odd-boundary.jsonl")
}

#[test]
fn a_boundary_with_odd_fields_keeps_its_ids_warns_and_never_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let s = odd_boundary(dir.path());
    let ev = json_of(&run(
        dir.path(),
        &["evidence", p(&s), "--policy", "budget", "--format", "json"],
    ));
    let warnings = ev["session"]["warnings"].as_array().unwrap();
    let texts: Vec<&str> = warnings
        .iter()
        .map(|w| w["text"].as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 3, "{texts:?}");
    for w in warnings {
        assert_eq!(w["id"], "malformed_record_field");
        assert_eq!(w["line"], 4, "the boundary's line");
    }
    assert!(
        texts[0].contains("compactedToolIds holds 1 entry"),
        "{texts:?}"
    );
    assert!(
        texts[1].contains("preTokens is a fractional number (1.5)"),
        "{texts:?}"
    );
    assert!(
        texts[2].contains("tokensSaved is a negative number (-4)"),
        "{texts:?}"
    );
    // The record is kept: its string id, the budget writer (preTokens > 0 as
    // written), the request after it; its counts unknown.
    let rows = ev["requests"].as_array().unwrap();
    let mc = rows
        .iter()
        .find_map(|r| r["microcompact"].as_object())
        .expect("the record is attached");
    assert_eq!(mc["writer"], "budget");
    assert_eq!(mc["compacted_tool_ids"], json!(["toolu_a"]));
    assert_eq!(
        (&mc["pre_tokens"], &mc["tokens_saved"]),
        (&Value::Null, &Value::Null)
    );
    assert_ne!(mc["agrees"], json!(true), "{mc:?}");
    assert_eq!(ev["counts"]["agrees"], 0);
    // Every schema's session carries the same warnings (SPEC §15.2).
    for args in [
        vec!["plan", p(&s), "--format", "json"],
        vec!["timeline", p(&s), "--format", "json"],
        vec!["explain", p(&s), "toolu_a", "--format", "json"],
    ] {
        let v = json_of(&run(dir.path(), &args));
        assert_eq!(
            v["session"]["warnings"].as_array().map(Vec::len),
            Some(3),
            "{args:?}"
        );
    }
    // And the text forms say so.
    let out = run(dir.path(), &["evidence", p(&s), "--policy", "budget"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "warning (malformed_record_field): line 4: microcompactMetadata.compactedToolIds"
        ),
        "{text}"
    );
    assert!(!text.contains(": agrees"), "{text}");
}

#[test]
fn a_boundary_whose_id_list_is_unreadable_is_unknown_not_agrees() {
    // All the record's readable ids match the plan's: with one more entry that
    // is not a string, the comparison is unknown (null), never `agrees`.
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt()
        .call("m1", "toolu_a", usage(10, 0, 100))
        .result("toolu_a", 5000)
        .answer("m2", usage(10, 0, 100))
        .rec(json!({"type": "system", "subtype": "microcompact_boundary",
            "content": "Context microcompacted",
            "microcompactMetadata": {"trigger": "auto", "preTokens": 0, "tokensSaved": 10,
                                     "compactedToolIds": [{"id": "toolu_z"}]}}))
        .prompt()
        .answer("m3", usage(10, 0, 100));
    let s = tx.write(dir.path(), "unreadable.jsonl");
    let ev = json_of(&run(dir.path(), &["evidence", p(&s), "--format", "json"]));
    let mc = ev["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| r["microcompact"].as_object())
        .expect("attached");
    assert_eq!(mc["compacted_tool_ids"], json!([]));
    assert_eq!(mc["agrees"], Value::Null, "{mc:?}");
    assert_eq!(ev["counts"]["agrees"], 0);
    assert_eq!(ev["session"]["warnings"][0]["line"], 5);
}

#[test]
fn unreadable_usage_counters_are_unknown_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt()
        .call("m1", "toolu_a", usage(10, 0, 100))
        .result("toolu_a", 10)
        .answer(
            "m2",
            json!({"input_tokens": 10, "cache_read_input_tokens": 2.5e19, "output_tokens": 1}),
        );
    let s = tx.write(dir.path(), "odd-usage.jsonl");
    let ev = json_of(&run(dir.path(), &["evidence", p(&s), "--format", "json"]));
    let w = &ev["session"]["warnings"];
    assert_eq!(w.as_array().map(Vec::len), Some(1), "{w}");
    assert_eq!(w[0]["line"], 4);
    assert!(
        w[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("message.usage.cache_read_input_tokens is a fractional number"),
        "{w}"
    );
    // Request 1's usage is read; request 2's is unknown (not a 0 read).
    let rows = ev["requests"].as_array().unwrap();
    assert_eq!(rows[0]["usage"]["cache_read"], 100);
    assert!(
        rows.iter().all(|r| r["index"] != 2 || r["usage"].is_null()),
        "{rows:?}"
    );
}

#[test]
fn qwen_usage_counters_of_the_wrong_shape_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/qwen-memory/session.jsonl");
    let mut lines = Vec::new();
    let mut first = None;
    for (i, l) in std::fs::read_to_string(src).unwrap().lines().enumerate() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        if v.get("usageMetadata").is_some() && first.is_none() {
            v["usageMetadata"]["promptTokenCount"] = json!(-1);
            first = Some(i + 1);
        }
        lines.push(v.to_string());
    }
    let s = dir.path().join("qwen.jsonl");
    std::fs::write(&s, lines.join("\n") + "\n").unwrap();
    let v = json_of(&run(dir.path(), &["plan", p(&s), "--format", "json"]));
    let w = &v["session"]["warnings"];
    assert_eq!(w.as_array().map(Vec::len), Some(1), "{w}");
    assert_eq!(w[0]["line"], json!(first.unwrap()));
    assert!(
        w[0]["text"]
            .as_str()
            .unwrap()
            .contains("promptTokenCount is a negative number (-1)")
    );
}

/// A Qwen functionCall / functionResponse whose id is not a string is left out
/// with a warning naming the line, never silently.
#[test]
fn qwen_ids_of_the_wrong_shape_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/qwen-memory/session.jsonl");
    let mut lines = Vec::new();
    let (mut call_line, mut result_line) = (None, None);
    for (i, l) in std::fs::read_to_string(src).unwrap().lines().enumerate() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        if let Some(parts) = v["message"]["parts"].as_array_mut() {
            for part in parts {
                if call_line.is_none() && part.get("functionCall").is_some() {
                    part["functionCall"]["id"] = json!(7);
                    call_line = Some(i + 1);
                } else if result_line.is_none()
                    && call_line.is_some()
                    && part.get("functionResponse").is_some()
                {
                    part["functionResponse"]["id"] = json!(["x"]);
                    result_line = Some(i + 1);
                }
            }
        }
        lines.push(v.to_string());
    }
    let s = dir.path().join("qwen.jsonl");
    std::fs::write(&s, lines.join("\n") + "\n").unwrap();
    let v = json_of(&run(dir.path(), &["plan", p(&s), "--format", "json"]));
    let w = v["session"]["warnings"].as_array().unwrap();
    let at = |line: Option<usize>, text: &str| {
        w.iter().any(|x| {
            x["line"] == json!(line.unwrap()) && x["text"].as_str().unwrap().contains(text)
        })
    };
    assert!(at(call_line, "a functionCall's id is a number"), "{w:?}");
    assert!(
        at(result_line, "a functionResponse's id is an array"),
        "{w:?}"
    );
    assert!(w.iter().all(|x| x["id"] == "malformed_record_field"));
}

/// Usage counts near 2^64: sums saturate, the break rule holds, nothing panics.
fn u64_scale(dir: &Path) -> PathBuf {
    const E: u64 = 1_300_000_000_000_000_000;
    let max = json!({"input_tokens": u64::MAX, "cache_creation_input_tokens": u64::MAX,
                     "cache_read_input_tokens": u64::MAX, "output_tokens": u64::MAX,
                     "cache_creation": {"ephemeral_5m_input_tokens": u64::MAX,
                                        "ephemeral_1h_input_tokens": u64::MAX},
                     "cache_deleted_input_tokens": u64::MAX});
    let mut tx = Tx::default();
    tx.prompt()
        .call("m1", "toolu_a", usage(10, E / 2, E / 2))
        .result("toolu_a", 5000)
        // 2,000 tokens fewer than expected out of 1.3e18: no break.
        .call("m2", "toolu_b", usage(10, 5, E - 2000))
        .result("toolu_b", 5000)
        .rec(json!({"type": "assistant", "message": {"id": "m3", "role": "assistant",
            "model": "claude-sonnet-4-5", "usage": max,
            "context_management": {"applied_edits": [
                {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1, "cleared_input_tokens": u64::MAX},
                {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1, "cleared_input_tokens": u64::MAX}]},
            "content": [{"type": "text", "text": "done"}]}}))
        .prompt()
        .answer("m4", usage(0, 0, 0));
    tx.write(dir, "u64.jsonl")
}

#[test]
fn u64_scale_usage_never_wraps_and_a_small_drop_is_no_break() {
    let dir = tempfile::tempdir().unwrap();
    let s = u64_scale(dir.path());
    let ev = json_of(&run(dir.path(), &["evidence", p(&s), "--format", "json"]));
    let rows = ev["requests"].as_array().unwrap();
    let at = |k: u64| rows.iter().find(|r| r["index"] == k).unwrap();
    assert_eq!(
        at(2)["usage"]["cache_read"],
        json!(1_300_000_000_000_000_000u64 - 2000)
    );
    assert_eq!(at(2)["observed_break"], Value::Null, "{}", at(2));
    // From u64::MAX to 0 is a break, its drop the whole expectation (saturated).
    assert_eq!(at(4)["observed_break"]["expected"], json!(u64::MAX));
    assert_eq!(at(4)["observed_break"]["drop"], json!(u64::MAX));
    assert!(ev["session"]["warnings"].as_array().unwrap().is_empty());
    // Every command and preset reads the same numbers without a panic.
    let sp = p(&s);
    for args in [
        vec!["plan", sp, "--format", "json"],
        vec!["timeline", sp, "--format", "json"],
        vec!["timeline", sp, "--policy", "count"],
        vec!["timeline", sp, "--policy", "budget"],
        vec!["plan", sp, "--preset", "api", "--format", "json"],
        vec!["timeline", sp, "--preset", "api"],
        vec!["evidence", sp, "--preset", "api"],
        vec!["explain", sp, "toolu_a"],
        vec!["wire", sp],
        vec!["compare", sp, "--format", "json"],
        vec!["compare", sp, "--format", "html"],
    ] {
        let out = run(dir.path(), &args);
        assert!(
            out.status.success(),
            "{args:?}: exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Exit 2 with one line from clap or mcscope naming the value.
fn refused(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(err.contains(what), "{what}: {err}");
}

#[test]
fn nonsense_values_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = odd_boundary(dir.path());
    let sp = p(&s);
    for (args, what) in [
        (
            vec!["plan", sp, "--gap-minutes", "NaN"],
            "'NaN' for '--gap-minutes",
        ),
        (
            vec!["timeline", sp, "--gap-minutes", "inf"],
            "'inf' for '--gap-minutes",
        ),
        (
            vec!["plan", sp, "--memory-root", "project="],
            "'project=' for '--memory-root",
        ),
        (
            vec!["compare", sp, "--memory-root", "user="],
            "'user=' for '--memory-root",
        ),
        (
            vec!["compare", sp, "--price-read=-1"],
            "'-1' for '--price-read",
        ),
        (
            vec!["compare", sp, "--price-input", "NaN"],
            "'NaN' for '--price-input",
        ),
        (
            vec!["compare", sp, "--gap-minutes", "5,NaN"],
            "cannot read \"NaN\"",
        ),
    ] {
        refused(&run(dir.path(), &args), what);
    }
    // A negative gap still disables the idle rule.
    assert!(
        run(dir.path(), &["plan", sp, "--gap-minutes", "-1"])
            .status
            .success()
    );
}

#[test]
fn nonsense_values_in_the_config_and_the_sidecar_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = odd_boundary(dir.path());
    let config = dir.path().join("config.toml");
    for (text, what) in [
        (
            "[policy]\ngap_threshold_minutes = nan\n",
            "[policy] gap_threshold_minutes = NaN",
        ),
        (
            "[policy.claude]\ngap_threshold_minutes = -inf\n",
            "[claude] gap_threshold_minutes = -inf",
        ),
        (
            "[prices.\"claude-x\"]\ninput = -1.0\nwrite_5m = 1.0\nwrite_1h = 1.0\nread = 1.0\n",
            "input = -1",
        ),
        (
            "[memory_roots]\nproject = \"\"\n",
            "[memory_roots] project = \"\": an empty folder",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        refused(&run_with(&["plan", p(&s)], &config), what);
    }
    let sidecar = dir.path().join("odd-boundary.mcscope.json");
    std::fs::write(&sidecar, r#"{"memory_roots": {"project": ""}}"#).unwrap();
    refused(
        &run(dir.path(), &["plan", p(&s)]),
        "memory_roots: project = \"\": an empty folder",
    );
}

#[test]
fn an_empty_tool_id_can_be_explained() {
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt()
        .call("m1", "", usage(10, 0, 100))
        .result("", 5000)
        .call("m2", "toolu_b", usage(10, 0, 100))
        .result("toolu_b", 5000)
        .answer("m3", usage(10, 0, 100));
    let s = tx.write(dir.path(), "empty-id.jsonl");
    // The forced plan clears it at the last request...
    let plan = json_of(&run(
        dir.path(),
        &[
            "plan",
            p(&s),
            "--policy",
            "forced",
            "--keep-recent",
            "1",
            "--format",
            "json",
        ],
    ));
    assert!(
        plan["cleared"].as_array().unwrap().contains(&json!("")),
        "{}",
        plan["cleared"]
    );
    // ...and explain names it.
    let e = json_of(&run(
        dir.path(),
        &[
            "explain",
            p(&s),
            "",
            "--policy",
            "forced",
            "--keep-recent",
            "1",
            "--format",
            "json",
        ],
    ));
    assert_eq!(e["tool_use_id"], "");
    assert_eq!(e["tool"], "Bash");
    assert!(!e["requests"].as_array().unwrap().is_empty());
    // Without such a result, an empty id still asks for one.
    let mut other = Tx::default();
    other
        .prompt()
        .call("m1", "toolu_a", usage(1, 0, 0))
        .result("toolu_a", 10);
    let o = other.write(dir.path(), "no-empty.jsonl");
    refused(
        &run(dir.path(), &["explain", p(&o), ""]),
        "give a tool result id",
    );
}

/// Issue 41 item 4: a price or threshold that overflows the arithmetic
/// (`1e308`: the totals became `$inf`) is refused where it is read, exit 2,
/// naming the key or flag.
#[test]
fn safe_io_4_prices_and_thresholds_that_overflow_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = odd_boundary(dir.path());
    let sp = p(&s);
    for (args, what) in [
        (
            vec!["compare", sp, "--price-input", "1e308"],
            "'1e308' for '--price-input",
        ),
        (
            vec!["plan", sp, "--gap-minutes", "1e308"],
            "'1e308' for '--gap-minutes",
        ),
    ] {
        refused(&run(dir.path(), &args), what);
    }
    let config = dir.path().join("config.toml");
    for (text, what) in [
        (
            "[prices.\"claude-x\"]\ninput = 1e308\nwrite_5m = 1.0\nwrite_1h = 1.0\nread = 1.0\n",
            "input = 1e308: expected a price of 0 to 1e6 USD per million tokens",
        ),
        (
            "[policy]\ngap_threshold_minutes = 1e308\n",
            "[policy] gap_threshold_minutes = 1e308: expected a finite number of minutes",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        refused(&run_with(&["plan", p(&s)], &config), what);
    }
    // The largest price still gives finite totals.
    assert!(
        run(dir.path(), &["compare", sp, "--price-input", "1e6", "-j"])
            .status
            .success()
    );
}

/// Issue 41 item 4: a count past what any session holds (`--keep-recent
/// 4294967295` overflowed `keep + 15` and crashed a debug build) is refused
/// where it is read, from a flag or the config, the key named.
#[test]
fn safe_io_4_counts_that_overflow_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = odd_boundary(dir.path());
    let sp = p(&s);
    for flag in ["--keep-recent", "--trigger", "--min-trigger-tool-uses"] {
        let out = run(dir.path(), &["timeline", sp, flag, "4294967295"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(&format!("'4294967295' for '{flag}")), "{err}");
    }
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[policy]\nkeep_recent = 4294967295\n").unwrap();
    refused(
        &run_with(&["plan", p(&s)], &config),
        "keep_recent: more than 1000000000",
    );
    // The largest count is read, and nothing overflows.
    assert!(
        run(dir.path(), &["timeline", sp, "--keep-recent", "1000000000"])
            .status
            .success()
    );
}
