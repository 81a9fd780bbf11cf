//! The `budget` plan (SPEC §5): Claude Code's token-budget microcompact, through the real
//! binary. The `microcompact_boundary` records it is checked against are read here with
//! serde_json, independently of mcscope's loader: the sample's (computed by hand by
//! `sample-sessions/make_claude_budget.py`) and the real one in the corpus.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::Claude;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

#[path = "budget/firing.rs"]
mod firing;
#[path = "budget/options.rs"]
mod options;
#[path = "budget/records.rs"]
mod records;
#[path = "budget/versions.rs"]
mod versions;

const SAMPLE: &str = "sample-sessions/claude-budget.jsonl";
const MEMORY: &str = "sample-sessions/qwen-memory/session.jsonl";

fn mcscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// The ids newly cleared at the plan's request, in rank order (plan JSON).
fn newly_cleared(plan: &Value) -> Vec<String> {
    let k = &plan["request"]["index"];
    plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "cleared" && &c["cleared_at"] == k)
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .collect()
}

fn caveat_ids(v: &Value) -> Vec<String> {
    v["caveats"]
        .as_array()
        .unwrap_or_else(|| panic!("no caveats: {v}"))
        .iter()
        .map(|c| {
            assert!(c["text"].as_str().unwrap().len() > 40, "{c}");
            c["id"].as_str().unwrap().to_string()
        })
        .collect()
}

// ---- built sessions -----------------------------------------------------------

/// Sets the recorded usage of the response with this `message.id` to `total` tokens.
fn set_usage(c: &mut Claude, msg_id: &str, total: u64) {
    for line in &mut c.lines {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["message"]["id"] == msg_id {
            v["message"]["usage"] = json!({"input_tokens": 5, "cache_creation_input_tokens": 1000,
                                           "cache_read_input_tokens": total - 1005 - 20,
                                           "output_tokens": 20});
            *line = v.to_string();
        }
    }
}

/// Every record's `version` set to `v` (None: removed).
fn set_version(c: &mut Claude, v: Option<&str>) {
    for line in &mut c.lines {
        let mut r: Value = serde_json::from_str(line).unwrap();
        if let Some(o) = r.as_object_mut() {
            match v {
                Some(v) => {
                    o.insert("version".into(), json!(v));
                }
                None => {
                    o.remove("version");
                }
            }
        }
        *line = r.to_string();
    }
}

/// Four Bash results of 80,000 chars (20,000 tokens each) in one turn, an answer
/// whose recorded usage is `usage`, then a new prompt and its answer.
fn turn_start_session(usage: u64) -> Claude {
    let mut c = Claude::default();
    c.prompt("build and test everything", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 80_000);
    }
    c.answer("all green");
    let answer_id = c
        .lines
        .iter()
        .rev()
        .find_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["message"]["id"].as_str().map(str::to_string)
        })
        .unwrap();
    set_usage(&mut c, &answer_id, usage);
    c.prompt("thanks; and the docs?", 3.0);
    c.answer("the docs build too");
    c
}
