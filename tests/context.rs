//! SPEC §12 "What fills the window", §15.17: `timeline --format json`'s
//! per-request `context`, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn timeline(path: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("timeline")
        .arg(path)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn sample(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions")
        .join(p)
}

/// P(k) of every request from `evidence --format json` (None without usage).
fn recorded(path: &Path) -> Vec<Option<i64>> {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("evidence")
        .arg(path)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let ev: Value = serde_json::from_slice(&out.stdout).unwrap();
    ev["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let u = &e["usage"];
            u.is_object().then(|| {
                u["input"].as_i64().unwrap()
                    + u["cache_write"].as_i64().unwrap_or(0)
                    + u["cache_read"].as_i64().unwrap()
            })
        })
        .collect()
}

fn attributed(c: &Value) -> i64 {
    let tools: i64 = c["tool_results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    tools
        + ["thinking", "assistant_text", "user_text", "images"]
            .iter()
            .map(|k| c[*k].as_i64().unwrap())
            .sum::<i64>()
}

/// SPEC §12, §15.17 worked through the binary: each block kind in its bucket;
/// forced at the last request, the cleared Read result counts its placeholder
/// (33 characters → 8 tokens) under `Read`.
#[test]
fn spec_12_timeline_json_context_worked() {
    let dir = tempfile::tempdir().unwrap();
    let records = [
        // "hello world!": 12 → 3.
        ("user", json!({"role": "user", "content": "hello world!"})),
        (
            "assistant",
            // thinking 8 → 2, redacted 10 → 3; "done" 1 + input {"file_path":"/a"} 18 → 5.
            json!({"id": "m1", "role": "assistant", "model": "claude-test", "content": [
                {"type": "thinking", "thinking": "abcdefgh", "signature": "s"},
                {"type": "redacted_thinking", "data": "xxxxxxxxxx"},
                {"type": "text", "text": "done"},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}}],
                "usage": {"input_tokens": 5000, "output_tokens": 1}}),
        ),
        (
            "user",
            // 400 → 100 under Read; an image 2000; "ok" 1.
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "text", "text": "ok"}]}),
        ),
        (
            "assistant",
            // "fine" 1 + input {"command":"ls"} 16 → 4.
            json!({"id": "m2", "role": "assistant", "model": "claude-test", "content": [
                {"type": "text", "text": "fine"},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}}],
                "usage": {"input_tokens": 9000, "output_tokens": 1}}),
        ),
        (
            "user",
            // 40 → 10 under Bash.
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t2", "content": "y".repeat(40)}]}),
        ),
        (
            "assistant",
            json!({"id": "m3", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "end"}],
                "usage": {"input_tokens": 9500, "output_tokens": 1}}),
        ),
    ];
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for (i, (kind, message)) in records.iter().enumerate() {
        let uuid = format!("u{i}");
        lines.push(
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
                "cwd": "/repo", "version": "2.1.90", "sessionId": "s",
                "timestamp": format!("2026-07-01T10:{i:02}:00.000Z"), "message": message})
            .to_string(),
        );
        parent = json!(uuid);
    }
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let tl = timeline(&path, &["--policy", "forced", "--keep-recent", "1"]);
    let rows = tl["requests"].as_array().unwrap();
    assert_eq!(
        rows[0]["context"],
        json!({"tool_results": {}, "thinking": 0, "assistant_text": 0, "user_text": 3,
               "images": 0, "unattributed": 4997})
    );
    assert_eq!(
        rows[1]["context"],
        json!({"tool_results": {"Read": 100}, "thinking": 5, "assistant_text": 6,
               "user_text": 4, "images": 2000, "unattributed": 9000 - 2115})
    );
    assert_eq!(rows[2]["cleared"], json!(["t1"]));
    assert_eq!(
        rows[2]["context"],
        json!({"tool_results": {"Bash": 10, "Read": 8}, "thinking": 5, "assistant_text": 11,
               "user_text": 4, "images": 2000, "unattributed": 9500 - 2038})
    );
}

/// Qwen (functionResponse parts): the bridged reads are under `read_file`, an
/// image read counts its 1,600 there; when idle clears two of them, each
/// reads the placeholder (9 tokens); everywhere `unattributed` = P(k) − Σ.
#[test]
fn spec_12_qwen_context_with_function_response_parts() {
    let path = sample("qwen-memory/today.jsonl");
    let tl = timeline(&path, &[]);
    let p = recorded(&path);
    let rows = tl["requests"].as_array().unwrap();
    assert_eq!(rows.len(), p.len());
    for (r, p) in rows.iter().zip(&p) {
        let c = &r["context"];
        assert_eq!(
            c["unattributed"].as_i64(),
            p.map(|p| p - attributed(c)),
            "request {}",
            r["index"]
        );
    }
    // Request 6: idle clears the main.py read and the screenshot read.
    let (five, six) = (&rows[4], &rows[5]);
    assert_eq!(six["newly_cleared"], json!(["call_main", "call_shot"]));
    let read = |r: &Value| r["context"]["tool_results"]["read_file"].as_i64().unwrap();
    let saved = six["tokens_saved"].as_i64().unwrap();
    assert!(saved > 1600, "the image read is among them: {saved}");
    assert_eq!(read(six), read(five) - saved + 2 * 9);
    assert!(
        six["context"]["tool_results"]["grep_search"]
            .as_i64()
            .unwrap()
            > 0
    );
    // No `tool_call` key: the bridge is filed under the tool it called.
    assert!(six["context"]["tool_results"].get("tool_call").is_none());
}

/// The trailing request of a session that ends with a prompt has no usage:
/// `unattributed` is null (SPEC §15.17); the figures are still there. And an
/// estimate above the recorded prompt makes it negative.
#[test]
fn spec_15_17_context_unattributed_negative_and_null_without_usage() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"type": "user", "uuid": "u0", "parentUuid": null, "isSidechain": false,
            "cwd": "/repo", "version": "2.1.90", "sessionId": "s",
            "timestamp": "2026-07-01T10:00:00.000Z",
            "message": {"role": "user", "content": "x".repeat(4000)}}),
        json!({"type": "assistant", "uuid": "u1", "parentUuid": "u0", "isSidechain": false,
            "cwd": "/repo", "version": "2.1.90", "sessionId": "s",
            "timestamp": "2026-07-01T10:01:00.000Z",
            "message": {"id": "m1", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "a"}],
                "usage": {"input_tokens": 600, "output_tokens": 1}}}),
        json!({"type": "user", "uuid": "u2", "parentUuid": "u1", "isSidechain": false,
            "cwd": "/repo", "version": "2.1.90", "sessionId": "s",
            "timestamp": "2026-07-01T10:02:00.000Z",
            "message": {"role": "user", "content": "again"}}),
    ];
    let path = dir.path().join("s.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let tl = timeline(&path, &[]);
    let rows = tl["requests"].as_array().unwrap();
    // 4,000 characters → 1,000 tokens against P = 600.
    assert_eq!(rows[0]["context"]["unattributed"], json!(-400));
    // Request 2 is the unanswered prompt: "a" is 1 → 0 (Math.round(0.25)),
    // "again" 5 → 1; no usage.
    assert_eq!(
        rows[1]["context"],
        json!({"tool_results": {}, "thinking": 0, "assistant_text": 0, "user_text": 1001,
               "images": 0, "unattributed": null})
    );
}
