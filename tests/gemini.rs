//! Gemini CLI (SPEC §14, §15.12–13; the reference's sections, as the issue
//! asks): its files as the harness reads them, its tool-output masking, what
//! the file records of it, through the real binary. The samples are made by
//! `sample-sessions/make_gemini_build.py` from the reference's worked example.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;

mod common;

use common::bin::{json, ok, run};
use serde_json::{Value, json};

#[path = "gemini/hostile.rs"]
mod hostile;
#[path = "gemini/masking.rs"]
mod masking;
#[path = "gemini/paths.rs"]
mod paths;
#[path = "gemini/reading.rs"]
mod reading;
#[path = "gemini/tui.rs"]
mod tui;

const BUILD: &str = "sample-sessions/gemini-build.jsonl";
const MASKED: &str = "sample-sessions/gemini-build-masked.jsonl";
const F1: &str = "read_file__read_file_1796030106117_0";
const F2: &str = "run_shell_command__run_shell_command_1796030109874_0";
const F3: &str = "grep_search__grep_search_1796030158702_0";

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A Gemini CLI file written in a temporary folder (line by line).
fn file(name: &str, lines: &[Value]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    let p = p.display().to_string();
    (dir, p)
}

fn header() -> Value {
    json!({"sessionId": "s-1", "projectHash": "h", "startTime": "2026-11-30T09:00:00.000Z",
           "lastUpdated": "2026-11-30T09:00:00.000Z", "kind": "main"})
}

fn user(id: &str, ts: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": ts, "type": "user", "content": [{"text": text}]})
}

fn gemini(id: &str, ts: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": ts, "type": "gemini", "content": text, "thoughts": [],
           "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 3, "total": 118},
           "model": "gemini-2.5-pro"})
}

fn with_calls(id: &str, ts: &str, calls: Value) -> Value {
    let mut g = gemini(id, ts, "");
    g["toolCalls"] = calls;
    g
}

fn big(n: usize) -> String {
    "x".repeat(n)
}
