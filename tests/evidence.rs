//! `mcscope evidence` (SPEC §10) through the real binary: what the transcript says
//! happened — usage, observed cache breaks with their explanations, the harness's
//! `microcompact_boundary` records compared with the plan their writer implies, the
//! server's applied edits — in text and JSON, and the same evidence in `timeline` and
//! `plan` JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

mod common;

use common::evidence::*;

fn mcscope(args: &[&str], path: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .arg(path)
        .output()
        .expect("run mcscope");
    assert!(
        out.status.success(),
        "mcscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_of(args: &[&str], path: &Path) -> Value {
    serde_json::from_str(&mcscope(args, path)).unwrap()
}

const COUNT: [&str; 4] = ["--trigger", "1", "--keep-recent", "1"];

#[test]
fn evidence_json_reports_usage_breaks_records_and_edits() {
    let dir = tempfile::tempdir().unwrap();
    let path = evidence_session(dir.path());
    let mut args = vec!["evidence", "--format", "json"];
    args.extend(COUNT);
    let v = json_of(&args, &path);
    assert_eq!(v["schema"], "mcscope.evidence/1");
    // auto runs budget on this version: its caveat is said.
    assert_eq!(v["caveats"][0]["id"], "claude_budget_kill_switch");
    assert_eq!(v["session"]["requests"], 4);
    let reqs = v["requests"].as_array().unwrap();
    let indices: Vec<u64> = reqs.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, [1, 2, 3, 4], "every request has usage");

    assert_eq!(
        reqs[0]["usage"],
        json!({"input": 5, "cache_write": 40000, "cache_read": 0, "cache_write_1h": 0,
               "cache_deleted": 0, "aggregated": false})
    );
    assert_eq!(reqs[0]["observed_break"], Value::Null);
    assert_eq!(
        reqs[1]["observed_break"],
        Value::Null,
        "40,000 read of 40,000"
    );
    // The budget record: attached to request 2 and compared with the budget plan,
    // whose results here are far below its budget: it clears nothing, so the
    // record's id is missing from the simulation.
    assert_eq!(
        reqs[1]["microcompact"],
        json!({"writer": "budget", "compacted_tool_ids": ["x"], "pre_tokens": 140000,
               "tokens_saved": 30000, "agrees": false, "missing": ["x"], "extra": [],
               "absent": []})
    );
    assert_eq!(
        reqs[2]["observed_break"],
        json!({"expected": 41000, "observed": 11000, "drop": 30000, "explanations": ["cache_edits"]})
    );
    assert_eq!(
        reqs[2]["microcompact"],
        json!({"writer": "cached", "compacted_tool_ids": ["a"], "pre_tokens": 0,
               "tokens_saved": 2000, "agrees": true, "missing": [], "extra": [],
               "absent": []})
    );
    assert_eq!(
        reqs[3]["observed_break"],
        json!({"expected": 41000, "observed": 0, "drop": 41000,
               "explanations": ["ttl", "cache_edits", "context_edits"]})
    );
    assert_eq!(reqs[3]["microcompact"]["agrees"], false);
    assert_eq!(reqs[3]["microcompact"]["missing"], json!(["c"]));
    assert_eq!(reqs[3]["microcompact"]["extra"], json!(["b"]));
    assert_eq!(
        reqs[3]["applied_edits"],
        json!([{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1, "cleared_input_tokens": 500}])
    );
    assert_eq!(reqs[3]["compactions"], json!([]));
    assert_eq!(v["counts"]["ttl"], 1);
    assert_eq!(v["counts"]["cache_edits"], 2);
    assert_eq!(v["counts"]["context_edits"], 1);
    assert_eq!(v["counts"]["unexplained"], 0);
    assert_eq!(v["counts"]["plan_rewrite"], 0);
    // SPEC §10: the budget record at request 2 saw no break, so no
    // harness_rewrite; the cached ones are cache_edits.
    assert_eq!(v["counts"]["harness_rewrite"], 0);
    assert_eq!(v["counts"]["boundaries"], 3);
    assert_eq!(v["counts"]["agrees"], 1);
    assert_eq!(v["warnings"], json!([]));
}

#[test]
fn evidence_text_says_each_break_and_record_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let path = evidence_session(dir.path());
    let mut args = vec!["evidence"];
    args.extend(COUNT);
    let text = mcscope(&args, &path);
    assert!(
        text.contains(
            "4 responses with usage, 2 observed cache break(s), 3 microcompact_boundary record(s)"
        ),
        "{text}"
    );
    assert!(
        text.contains("! request 3 at ")
            && text.contains("cache read 11,000 where 41,000 were expected (drop 30,000 tokens)"),
        "{text}"
    );
    assert!(text.contains("ttl: the cache had expired"), "{text}");
    assert!(
        text.contains("context_edits: the server applied context edits"),
        "{text}"
    );
    assert!(
        text.contains(
            "against the budget plan: missing [x] (named by the record, not cleared by the plan)"
        ),
        "{text}"
    );
    assert!(text.contains("against the count plan: agrees"), "{text}");
    assert!(
        text.contains("against the count plan: missing [c] (named by the record, not cleared by the plan); extra [b]"),
        "{text}"
    );
    // The selected plan (auto) is not count: its comparison is shown too.
    assert!(text.contains("against the selected plan (auto):"), "{text}");
    assert!(
        text.contains("breaks by explanation: ttl 1, cache_edits 2, context_edits 1"),
        "{text}"
    );
}

#[test]
fn a_break_nothing_explains_is_said_to_be_unexplained() {
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(50_000, 0, 0), Some("a"), json!({}))
        .result("a", 0.2)
        .response("m2", 0.3, usage(0, 3000, 0), None, json!({}));
    let path = tx.write(dir.path());
    let text = mcscope(&["evidence"], &path);
    assert!(
        text.contains("unexplained: not explained by the transcript (system prompt, tools, betas or server-side eviction are not recorded)"),
        "{text}"
    );
    let v = json_of(&["evidence", "--format", "json"], &path);
    assert_eq!(v["counts"]["unexplained"], 1);
}

#[test]
fn timeline_and_plan_json_carry_the_same_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let path = evidence_session(dir.path());
    let mut args = vec!["timeline", "--format", "json"];
    args.extend(COUNT);
    let t = json_of(&args, &path);
    let mut args = vec!["evidence", "--format", "json"];
    args.extend(COUNT);
    let e = json_of(&args, &path);
    for (row, ev) in t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .zip(e["requests"].as_array().unwrap())
    {
        let mut ev = ev.clone();
        ev.as_object_mut().unwrap().remove("index");
        assert_eq!(row["evidence"], ev, "request {}", row["index"]);
    }
    let mut args = vec!["plan", "--format", "json", "--at", "3"];
    args.extend(COUNT);
    let p = json_of(&args, &path);
    let mut three = e["requests"][2].clone();
    three.as_object_mut().unwrap().remove("index");
    assert_eq!(p["evidence"], three);
    assert!(p.get("fired").is_some());
}

/// The selected plan's simulated prefix break at k is listed beside a break (a
/// what-if, SPEC §18.14: `unexplained` follows it, and it is never counted in
/// "breaks by explanation"), under rewrite delivery only: idle (gap 1 minute,
/// keep 1) clears a at request 3 (the prompt
/// comes 2 minutes after m2), which rewrites a result request 2 sent. The
/// session is 2.1.88 (idle's build; no entrypoint: plausibility null); on the
/// fixture's own 2.1.17 idle is a what-if and explains nothing (SPEC §15.10).
#[test]
fn the_selected_plans_rewrite_explains_a_break_only_under_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.05, usage(20_000, 0, 0), Some("a"), json!({}))
        .result("a", 0.1)
        .response("m2", 0.15, usage(1000, 20_000, 0), Some("b"), json!({}))
        .result("b", 0.2)
        .prompt(2.0)
        // E = 21,000; R = 5,000: a break 2 minutes (< 5) after m2.
        .response("m3", 2.1, usage(16_000, 5000, 0), None, json!({}));
    let path = tx.write(dir.path());
    let old = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, old.replace("\"2.1.17\"", "\"2.1.88\"")).unwrap();
    let idle = [
        "evidence",
        "--format",
        "json",
        "--policy",
        "idle",
        "--gap-minutes",
        "1",
        "--keep-recent",
        "1",
    ];
    let v = json_of(&idle, &path);
    assert_eq!(
        v["requests"][2]["observed_break"]["explanations"],
        json!(["plan_rewrite", "unexplained"])
    );
    assert_eq!(v["counts"]["plan_rewrite"], 0, "never counted");
    assert_eq!(v["counts"]["unexplained"], 1);
    let mut text_args = vec!["evidence"];
    text_args.extend_from_slice(&idle[3..]);
    let text = mcscope(&text_args, &path);
    assert!(text.contains("plan_rewrite: what-if:"), "{text}");
    assert!(
        text.contains("breaks by explanation: unexplained 1"),
        "{text}"
    );
    let p = json_of(
        &[
            "plan",
            "--format",
            "json",
            "--policy",
            "idle",
            "--gap-minutes",
            "1",
            "--keep-recent",
            "1",
        ],
        &path,
    );
    assert_eq!(p["fired"], true);
    assert_eq!(
        p["evidence"]["observed_break"]["explanations"],
        json!(["plan_rewrite", "unexplained"])
    );
    // The same clearing delivered as cache edits keeps the prefix: not an explanation.
    let mut edits = idle.to_vec();
    edits.extend(["--delivery", "cache-edits"]);
    let v = json_of(&edits, &path);
    assert_eq!(
        v["requests"][2]["observed_break"]["explanations"],
        json!(["unexplained"])
    );
    // SPEC §15.10: on 2.1.17 the build had no idle code path: a what-if
    // explains nothing that happened.
    std::fs::write(&path, old).unwrap();
    let v = json_of(&idle, &path);
    assert_eq!(
        v["requests"][2]["observed_break"]["explanations"],
        json!(["unexplained"])
    );
    let p = json_of(
        &["plan", "--format", "json", "--at", "3", "--policy", "idle"],
        &path,
    );
    assert_eq!(p["request"]["harness_could_run"], false);
    assert_eq!(
        p["request"]["harness_could_run_reason"],
        "version_lacks_code"
    );
}
