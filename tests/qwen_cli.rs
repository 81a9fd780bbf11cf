//! The Qwen send kinds through the real binary, one test per kind (SPEC §2), on
//! the fixtures of `tests/fixtures/qwen/` (written by its `make.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/qwen")
        .join(name)
}

fn mcscope(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `plan --at K` on the send-kinds fixture: the JSON kind, `begins_turn`, and the
/// text's words for people.
fn check(k: usize, kind: &str, begins_turn: bool, words: &str) {
    let f = fixture("send-kinds.jsonl");
    let f = f.to_str().unwrap();
    let at = k.to_string();
    let (json, code) = mcscope(&["plan", f, "--at", &at, "--format", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["request"]["send_kind"], kind, "request {k}");
    assert_eq!(v["request"]["begins_turn"], begins_turn, "request {k}");
    let (text, code) = mcscope(&["plan", f, "--at", &at]);
    assert_eq!(code, 0);
    assert!(text.contains(words), "request {k}: {text}");
}

#[test]
fn user_query() {
    check(
        1,
        "user_query",
        true,
        "user_query: a prompt: Qwen runs idle, then size",
    );
}

#[test]
fn tool_result() {
    check(
        2,
        "tool_result",
        false,
        "Qwen runs only the size check here",
    );
    // Any tool_result subtype (code_mode_tool_result) is a tool_result send.
    check(
        10,
        "tool_result",
        false,
        "Qwen runs only the size check here",
    );
}

#[test]
fn cron() {
    check(3, "cron", true, "a cron job: Qwen runs idle, then size");
}

#[test]
fn notification() {
    check(
        4,
        "notification",
        true,
        "notification or teammate message: Qwen runs no microcompaction here",
    );
}

#[test]
fn goal() {
    check(
        5,
        "goal",
        true,
        "a goal turn: Qwen runs no microcompaction here",
    );
}

#[test]
fn steer() {
    check(
        6,
        "steer",
        true,
        "if a Stop hook blocked here, Qwen ran the hook rule",
    );
}

#[test]
fn hook() {
    check(
        7,
        "hook",
        true,
        "no input recorded: assumed a hook continuation",
    );
}

#[test]
fn agent_message() {
    check(
        8,
        "agent_message",
        false,
        "agent messages: Qwen runs no microcompaction here",
    );
}

#[test]
fn unknown_subtype_is_a_prompt_and_said() {
    check(
        11,
        "user_query",
        true,
        "unknown input subtype mystery_kind: treated as a prompt",
    );
}

#[test]
fn timeline_lists_every_kind_and_drops_realtime_messages() {
    let f = fixture("send-kinds.jsonl");
    let v = timeline(&f, &[]);
    let kinds: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["send_kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_query",
            "tool_result",
            "cron",
            "notification",
            "goal",
            "steer",
            "hook",
            "agent_message",
            "hook",
            "tool_result",
            "user_query",
            "user_query"
        ]
    );
    // Claude sessions have no send kind.
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let v = timeline(&demo, &[]);
    assert!(v["requests"][0]["send_kind"].is_null());
}

#[test]
fn restart_and_hook_chain() {
    let f = fixture("restart-and-hooks.jsonl");
    let v = timeline(&f, &["--policy", "idle", "--keep-recent", "1"]);
    let rows = v["requests"].as_array().unwrap();
    let fired = fired(&v);
    // The hook chain passes 60 minutes at request 6; after the restart (request
    // 8) there is no completion, so no gap; a hook after a goal runs nothing.
    assert_eq!(fired, [6]);
    assert!(rows[7]["gap_minutes"].is_null());
    assert_eq!(rows[9]["send_kind"], "hook");
}

/// SPEC §2: a restart the send records mark rebuilds the history from the
/// records, whatever the preset simulated: under `--preset claude` the count
/// plan's deletions are undone at the restart (request 8), so it fires again.
#[test]
fn a_restart_undoes_clearings_under_any_preset() {
    let f = fixture("restart-and-hooks.jsonl");
    let v = timeline(
        &f,
        &[
            "--preset",
            "claude",
            "--policy",
            "count",
            "--trigger",
            "1",
            "--keep-recent",
            "1",
        ],
    );
    assert_eq!(fired(&v), [3, 8]);
}

/// `timeline PATH ARGS --format json`, which must succeed, as JSON.
fn timeline(path: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["timeline", path.to_str().unwrap()];
    all.extend(args);
    all.extend(["--format", "json"]);
    let (json, code) = mcscope(&all);
    assert_eq!(code, 0, "{all:?}");
    serde_json::from_str(&json).unwrap()
}

/// The requests of a timeline where a plan fired.
fn fired(timeline: &Value) -> Vec<u64> {
    timeline["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap())
        .collect()
}

#[test]
fn names_bridges_and_media_through_the_binary() {
    let f = fixture("names-and-bridges.jsonl");
    let (json, code) = mcscope(&[
        "plan",
        f.to_str().unwrap(),
        "--policy",
        "forced",
        "--keep-recent",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    let tool = |id: &str| {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool_use_id"] == id)
            .map(|c| (c["tool"].clone(), c["status"].clone()))
            .unwrap()
    };
    assert_eq!(tool("a1").0, "grep_search");
    assert_eq!(tool("a2").0, "read_file");
    assert_eq!(tool("a3").1, "not_compactable");
    assert_eq!(tool("b1"), ("read_file".into(), "cleared".into()));
    assert_eq!(tool("b2").1, "not_compactable");
    assert_eq!(tool("b3").1, "not_compactable");
    assert_eq!(tool("n1").1, "cleared");
    assert_eq!(tool("e1").1, "error_kept");

    let f = fixture("media.jsonl");
    let (json, code) = mcscope(&[
        "plan",
        f.to_str().unwrap(),
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["fired"], true);
    assert_eq!(v["cleared"], serde_json::json!(["r1"]));
    let media: Vec<(String, String)> = v["metadata"]["media"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["list"].as_str().unwrap().into(),
                m["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        media,
        [
            ("media".to_string(), "media_cleared".to_string()),
            ("media".into(), "kept".into()),
            ("nested".into(), "media_cleared".into()),
            ("nested".into(), "kept".into())
        ]
    );
    assert_eq!(v["metadata"]["media"][0]["mime"], "image/png");
    assert_eq!(v["metadata"]["media"][1]["mime"], "application/pdf");
}
