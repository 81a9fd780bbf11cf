//! The `api` preset through the real binary (SPEC §11): the bundled sample's
//! `plan`, `timeline` and `wire` outputs byte for byte against tests/golden/, the
//! refusals and their one-line errors, and the simulation beside a recorded
//! `applied_edits` on a Claude Code transcript.
//!
//! Regenerate the golden files with `MCSCOPE_BLESS=1 cargo test --test api`, then
//! read the diff before committing it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

// The real binary with no user configuration file (the sidecar and the flags
// only) and a fixed home, so that the default memory roots in the JSON are the
// same on every machine.
use common::bin::{ok, run as mcscope};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const SAMPLE: &str = "sample-sessions/api-agent.json";

fn json_of(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Compares `out` with tests/golden/NAME byte for byte (or writes it when blessing).
fn golden(name: &str, out: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("MCSCOPE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, out).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (MCSCOPE_BLESS=1 writes it)", path.display()));
    if want != out {
        let line = want
            .lines()
            .zip(out.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(out.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n  golden: {:?}\n  output: {:?}",
            path.display(),
            line + 1,
            want.lines().nth(line),
            out.lines().nth(line)
        );
    }
}

#[test]
fn the_samples_plan_timeline_and_wire_are_golden() {
    golden("api-agent.plan.txt", &ok(&["plan", SAMPLE]));
    golden(
        "api-agent.plan.json",
        &ok(&["plan", SAMPLE, "--format", "json"]),
    );
    golden("api-agent.timeline.txt", &ok(&["timeline", SAMPLE]));
    golden(
        "api-agent.timeline.json",
        &ok(&["timeline", SAMPLE, "--format", "json"]),
    );
    // Request 14, where the edit first applies: the server view and the
    // client's request with its context_management.
    golden(
        "api-agent.wire.14.json",
        &ok(&["wire", SAMPLE, "--at", "14"]),
    );
    golden(
        "api-agent.wire.14.local.json",
        &ok(&["wire", SAMPLE, "--at", "14", "--side", "local"]),
    );
}

#[test]
fn the_sample_fires_past_30000_tokens_once_5000_can_be_cleared() {
    // Request 13: the prompt passes 30,000 (estimated) but everything outside
    // the last five uses (and the memory tool) is under 5,000 tokens: blocked.
    let p13 = json_of(&["plan", SAMPLE, "--at", "13", "--format", "json"]);
    assert_eq!(p13["policy"]["kind"], "api");
    assert_eq!(p13["policy"]["preset"], "api");
    assert_eq!(p13["policy"]["delivery"], "server");
    assert_eq!(p13["policy"]["keep_recent"], Value::Null);
    assert_eq!(p13["fired"], false);
    assert_eq!(p13["trigger"], Value::Null);
    let api = &p13["api"];
    assert_eq!(api["input_tokens_source"], "estimate");
    assert!(api["input_tokens"].as_u64().unwrap() > 30_000);
    assert_eq!(api["recorded"], Value::Null);
    assert_eq!(
        api["edits"][0],
        json!({"type": "clear_tool_uses_20250919", "fired": false, "cleared_tool_uses": 0,
               "cleared_input_tokens": 0, "cleared_thinking_turns": null})
    );
    // Request 14: the first large read leaves the window; the seven small
    // non-memory uses and that read go (8 tool uses), the memory tool stays.
    let p14 = json_of(&["plan", SAMPLE, "--at", "14", "--format", "json"]);
    assert_eq!(p14["fired"], true);
    assert_eq!(p14["trigger"], "clear_tool_uses_20250919");
    assert_eq!(p14["api"]["edits"][0]["cleared_tool_uses"], 8);
    let cleared = p14["cleared"].as_array().unwrap();
    assert_eq!(cleared.len(), 8);
    let tool_of = |id: &Value| {
        p14["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| &c["tool_use_id"] == id)
            .map(|c| c["tool"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert!(cleared.iter().all(|id| tool_of(id) != "memory"));
    let saved: u64 = p14["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "cleared")
        .map(|c| c["est_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(p14["api"]["edits"][0]["cleared_input_tokens"], saved);
    assert!(saved >= 5000);
    // The server view replaces those results; the client sends them whole.
    let server = json_of(&["wire", SAMPLE, "--at", "14"]);
    let client = json_of(&["wire", SAMPLE, "--at", "14", "--side", "local"]);
    let result = |body: &Value, id: &Value| {
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|b| b["type"] == "tool_result" && &b["tool_use_id"] == id)
            .unwrap()["content"]
            .clone()
    };
    assert_eq!(
        result(&server, &cleared[0]),
        "[Old tool result content cleared]"
    );
    assert_ne!(
        result(&client, &cleared[0]),
        "[Old tool result content cleared]"
    );
    assert_eq!(
        client["context_management"]["edits"][0]["exclude_tools"],
        json!(["memory"])
    );
    assert!(server.get("context_management").is_none());
}

#[test]
fn the_readings_are_options_and_help_says_so() {
    let (_, help, _) = mcscope(&["plan", "--help"]);
    for flag in [
        "--api-edit",
        "--api-excluded-count-toward-keep",
        "--api-trigger-inclusive",
        "--api-placeholder",
    ] {
        assert!(help.contains(flag), "{flag} in plan --help");
    }
    assert!(help.contains("the documentation leaves open"));
    // A placeholder of one's own reaches the server view.
    let server = json_of(&[
        "wire",
        SAMPLE,
        "--at",
        "14",
        "--api-placeholder",
        "[cleared by the server]",
    ]);
    let text = server.to_string();
    assert!(text.contains("[cleared by the server]"));
    assert!(!text.contains("[Old tool result content cleared]"));
    // Counting the memory tool's two earlier uses toward keep changes nothing
    // at request 14 (both lie outside the window either way), but a flag wins
    // over the sidecar's edits.
    let p = json_of(&[
        "plan",
        SAMPLE,
        "--at",
        "14",
        "--format",
        "json",
        "--api-edit",
        r#"{"type":"clear_tool_uses_20250919","trigger":{"type":"tool_uses","value":3},"keep":{"type":"tool_uses","value":2}}"#,
    ]);
    assert_eq!(p["policy"]["api_edits"][0]["trigger"]["type"], "tool_uses");
    // 15 uses > 3; all but the last 2 (memory included: no exclusion now).
    assert_eq!(p["api"]["edits"][0]["cleared_tool_uses"], 13);
}

#[test]
fn bad_edits_and_a_qwen_session_are_one_line_errors() {
    let (code, _, err) = mcscope(&[
        "plan",
        SAMPLE,
        "--api-edit",
        r#"{"type":"clear_tool_uses_20250919","keep":{"type":"tool_uses","value":"five"}}"#,
    ]);
    assert_eq!(code, 2);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("api_edits[0]: keep.value: expected a whole number"),
        "{err}"
    );
    let (code, _, err) = mcscope(&["plan", SAMPLE, "--api-edit", "{not json"]);
    assert_eq!(code, 2);
    assert!(err.contains("--api-edit \"{not json\": not JSON"), "{err}");
    let (code, _, err) = mcscope(&[
        "plan",
        "sample-sessions/qwen-memory/session.jsonl",
        "--preset",
        "api",
    ]);
    assert_eq!(code, 2);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("qwen sessions are not sent that way"), "{err}");
    // A sidecar's bad edit is named with the sidecar.
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE), &body).unwrap();
    std::fs::write(
        dir.path().join("body.mcscope.json"),
        r#"{"preset": "api", "api_edits": [{"type": "clear_tool_uses_20250919", "exclude_tools": [3]}]}"#,
    )
    .unwrap();
    let (code, _, err) = mcscope(&["plan", body.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("sidecar: api_edits[0]: exclude_tools[0]: expected a tool name, got 3"),
        "{err}"
    );
    // The api preset is delivered by the server only.
    let (code, _, err) = mcscope(&["plan", SAMPLE, "--preset", "api", "--delivery", "rewrite"]);
    assert_eq!(code, 2);
    assert!(err.contains("its delivery is server"), "{err}");
    // A --policy flag leaves the sidecar's api preset for the session's own.
    let p = json_of(&["plan", SAMPLE, "--policy", "count", "--format", "json"]);
    assert_eq!(p["policy"]["preset"], "claude");
    assert!(p.get("api").is_none());
}

/// A Claude Code session whose responses recorded `applied_edits`: the api
/// preset as a what-if, with the record beside the simulation.
fn claude_with_applied_edits(dir: &Path) -> std::path::PathBuf {
    let mut lines = Vec::new();
    let mut n = 0;
    let mut rec = |kind: &str, message: Value, lines: &mut Vec<String>| {
        n += 1;
        lines.push(
            json!({"type": kind, "uuid": format!("u{n}"), "isSidechain": false, "cwd": "/repo",
                   "version": "2.1.90", "timestamp": format!("2026-07-01T10:{:02}:00.000Z", n),
                   "message": message})
            .to_string(),
        );
    };
    rec("user", json!({"role": "user", "content": "go"}), &mut lines);
    for i in 0..6 {
        // Response i+1: the server cleared the results of all but the last 2
        // uses of its request once there were more than 3 (tool_uses trigger 3).
        let uses_in_request = i; // request i+1 holds the calls t0..t(i-1)
        let applied = if uses_in_request > 3 {
            json!([{"type": "clear_tool_uses_20250919", "cleared_tool_uses": uses_in_request - 2,
                    "cleared_input_tokens": 100 * (uses_in_request - 2)}])
        } else {
            json!([])
        };
        rec(
            "assistant",
            json!({"id": format!("m{i}"), "role": "assistant", "model": "claude-sonnet-4-5",
                   "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Read",
                                "input": {"file_path": format!("/repo/{i}")}}],
                   "usage": {"input_tokens": 1000, "output_tokens": 10},
                   "context_management": {"applied_edits": applied}}),
            &mut lines,
        );
        rec(
            "user",
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"),
                                                 "content": "x".repeat(400)}]}),
            &mut lines,
        );
    }
    let path = dir.join("claude.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn a_claude_code_session_is_a_what_if_with_the_record_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = claude_with_applied_edits(dir.path());
    let p = path.to_str().unwrap();
    let edit = r#"{"type":"clear_tool_uses_20250919","trigger":{"type":"tool_uses","value":3},"keep":{"type":"tool_uses","value":2}}"#;
    // Request 6 holds t0..t4: 5 uses > 3, keep 2: t0..t2 go; recorded 3, 300.
    let plan = json_of(&[
        "plan",
        p,
        "--preset",
        "api",
        "--api-edit",
        edit,
        "--at",
        "6",
        "--format",
        "json",
    ]);
    assert_eq!(plan["api"]["input_tokens_source"], "recorded");
    // Recorded P(6) = 1000 plus the 300 the server said it cleared.
    assert_eq!(plan["api"]["input_tokens"], 1300);
    assert_eq!(plan["api"]["edits"][0]["cleared_tool_uses"], 3);
    assert_eq!(plan["api"]["edits"][0]["cleared_input_tokens"], 300);
    assert_eq!(
        plan["api"]["recorded"],
        json!([{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 300}])
    );
    assert_eq!(plan["api"]["agrees"], true);
    assert_eq!(
        plan["api"]["beside_recorded"][0],
        json!({"type": "clear_tool_uses_20250919", "simulated_cleared": 3, "recorded_cleared": 3,
               "simulated_cleared_input_tokens": 300, "recorded_cleared_input_tokens": 300,
               "agrees": true})
    );
    let text = ok(&[
        "plan",
        p,
        "--preset",
        "api",
        "--api-edit",
        edit,
        "--at",
        "6",
    ]);
    assert!(
        text.contains("fired  simulated: 3 tool uses, ~300 tokens  |  recorded: 3 cleared, 300 tokens (agrees)"),
        "{text}"
    );
    // Every response recorded its edits and the simulation agrees with all six;
    // with keep 3 it agrees only where nothing was cleared (requests 1-4).
    let ev = json_of(&[
        "evidence",
        p,
        "--preset",
        "api",
        "--api-edit",
        edit,
        "--format",
        "json",
    ]);
    assert_eq!(ev["counts"]["api_recorded"], 6);
    assert_eq!(ev["counts"]["api_agrees"], 6);
    let keep3 = edit.replace(r#""value":2"#, r#""value":3"#);
    let ev = json_of(&[
        "evidence",
        p,
        "--preset",
        "api",
        "--api-edit",
        &keep3,
        "--format",
        "json",
    ]);
    assert_eq!(ev["counts"]["api_agrees"], 4);
    // The timeline puts the two side by side per request.
    let tl = ok(&["timeline", p, "--preset", "api", "--api-edit", edit]);
    assert!(
        tl.contains("3 uses ~300 tok | rec 3 uses 300 tok ="),
        "{tl}"
    );
}

#[test]
fn compare_takes_api_lists_and_agrees_with_the_timeline() {
    let c = json_of(&[
        "compare",
        SAMPLE,
        "--api-trigger",
        "20000,30000,35000",
        "--api-keep",
        "3,5,10",
        "--format",
        "json",
        "-q",
    ]);
    let rows = c["rows"].as_array().unwrap();
    // The baseline first (SPEC §9a), then the nine settings.
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0]["policy"]["kind"], "recorded");
    let rows = &rows[1..];
    let row = |trigger: u64, keep: u64| {
        rows.iter()
            .find(|r| {
                let e = &r["policy"]["api_edits"][0];
                e["trigger"]["value"] == trigger && e["keep"]["value"] == keep
            })
            .unwrap()
    };
    for r in rows {
        assert_eq!(r["policy"]["kind"], "api");
        // The sidecar's other fields stay: clear_at_least, exclude_tools.
        assert_eq!(
            r["policy"]["api_edits"][0]["exclude_tools"],
            json!(["memory"])
        );
    }
    // The sidecar's own setting (30,000 / 5) totals what its timeline shows.
    let tl = json_of(&["timeline", SAMPLE, "--format", "json"]);
    let reqs = tl["requests"].as_array().unwrap();
    let not_sent: u64 = reqs
        .iter()
        .map(|r| r["in_wire_tokens"].as_u64().unwrap())
        .sum();
    let fires = reqs.iter().filter(|r| r["fired"] == true).count();
    let same = row(30_000, 5);
    assert_eq!(same["tokens_not_sent"], not_sent);
    assert_eq!(same["fires"], fires);
    // Keeping more clears less.
    let n = |r: &Value| r["tokens_not_sent"].as_u64().unwrap();
    assert!(n(row(30_000, 3)) > n(row(30_000, 5)) && n(row(30_000, 5)) > n(row(30_000, 10)));
}

#[test]
fn the_config_file_sets_api_keys_and_names_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[policy]\npreset = \"api\"\n[policy.api]\napi_trigger_inclusive = true\napi_placeholder = \"[gone]\"\n\
         api_edits = [{type = \"clear_thinking_20251015\", keep = \"all\"},\n\
         {type = \"clear_tool_uses_20250919\", trigger = {type = \"tool_uses\", value = 4}}]\n",
    )
    .unwrap();
    let body = Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE);
    let copy = dir.path().join("body.json");
    std::fs::copy(&body, &copy).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(args)
            .env("MCSCOPE_CONFIG", &config)
            .output()
            .unwrap()
    };
    let c = copy.to_str().unwrap();
    let out = run(&["config", "--print", c]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("preset: api"), "{text}");
    assert!(
        text.contains("api_trigger_inclusive = true  (config)"),
        "{text}"
    );
    assert!(
        text.contains("api_placeholder = \"[gone]\"  (config)"),
        "{text}"
    );
    let out = run(&["plan", c, "--format", "json", "--at", "6"]);
    let p: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        p["policy"]["api_edits"][0],
        json!({"type": "clear_thinking_20251015", "keep": "all"})
    );
    // Request 6 holds 7 tool uses; >= 4 fires; keep 3 (the default): 4 cleared.
    assert_eq!(p["api"]["edits"][1]["cleared_tool_uses"], 4);
    assert_eq!(p["api"]["edits"][0]["cleared_thinking_turns"], 0);
    std::fs::write(
        &config,
        "[policy.api]\napi_edits = [{type = \"clear_tool_uses_20250919\", keep = {type = \"turns\", value = 2}}]\n",
    )
    .unwrap();
    let out = run(&["plan", c, "--preset", "api"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("[api] api_edits[0]: keep.type: \"turns\" is not one of"),
        "{err}"
    );
}
