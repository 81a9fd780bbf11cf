//! OpenCode through the real binary (SPEC §14, §15.14; `shared/reference/opencode.md`):
//! one test per rule of the reference, each named after its section, on
//! databases written here with the 1.18.33 schema (reference §1.2) and on the
//! sample `sample-sessions/opencode-build.db` (`scripts/make-opencode-sample.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/screen.rs"]
mod screen;

use common::bin;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[path = "opencode/bodies.rs"]
mod bodies;
#[path = "opencode/commands.rs"]
mod commands;
#[path = "opencode/database.rs"]
mod database;
#[path = "opencode/export.rs"]
mod export;
#[path = "opencode/hostile.rs"]
mod hostile;
#[path = "opencode/marks.rs"]
mod marks;
#[path = "opencode/prune.rs"]
mod prune;
#[path = "opencode/reading.rs"]
mod reading;
#[path = "opencode/scan.rs"]
mod scan;

const SAMPLE: &str = "sample-sessions/opencode-build.db";
const T0: i64 = 1_796_030_102_000;

/// Reference §1.2: the 1.18.33 tables mcscope reads (other columns left out).
const SCHEMA: &str = "
CREATE TABLE `session` ( `id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL,
  `cost` real DEFAULT 0 NOT NULL, `revert` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL );
CREATE TABLE `message` ( `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL );
CREATE TABLE `part` ( `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL );
";

/// A database under construction: messages and parts with ids made like
/// OpenCode's (reference §1.2: time-ordered hex, then a tail).
struct Db {
    conn: Connection,
    path: PathBuf,
    _dir: tempfile::TempDir,
    n: i64,
}

fn id(prefix: &str, n: i64) -> String {
    format!("{prefix}_{:012x}Tail{n:010}", (T0 + n) * 4096 + 1)
}

impl Db {
    fn new() -> Db {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        Db {
            conn,
            path,
            _dir: dir,
            n: 0,
        }
    }

    fn session(&self, id: &str, parent: Option<&str>, revert: Option<Value>) {
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, time_created, time_updated)
                 VALUES (?1, 'p', ?2, 's', '/home/dev/proj', ?3, '1.18.33', ?4, ?5, ?5)",
                rusqlite::params![id, parent, format!("title of {id}"), revert.map(|r| r.to_string()), T0],
            )
            .unwrap();
    }

    fn next(&mut self) -> i64 {
        self.n += 10;
        self.n
    }

    /// A user message with one text part; its id.
    fn user(&mut self, ses: &str, text: &str) -> String {
        let n = self.next();
        let mid = id("msg", n);
        self.message(
            ses,
            &mid,
            json!({"role": "user", "time": {"created": T0 + n}}),
        );
        self.part(ses, &mid, n + 1, json!({"type": "text", "text": text}));
        mid
    }

    /// An assistant message (a request) with `parts`; its id.
    fn assistant(&mut self, ses: &str, parent: &str, extra: Value, parts: Vec<Value>) -> String {
        let n = self.next();
        let mid = id("msg", n);
        let mut data = json!({"role": "assistant", "time": {"created": T0 + n, "completed": T0 + n + 5},
            "parentID": parent, "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build",
            "agent": "build", "cost": 0.01, "finish": "stop",
            "tokens": {"input": 3, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 100}}});
        for (k, v) in extra.as_object().unwrap() {
            data[k] = v.clone();
        }
        self.message(ses, &mid, data);
        for (i, p) in parts.into_iter().enumerate() {
            self.part(ses, &mid, n + 1 + i as i64, p);
        }
        mid
    }

    fn message(&self, ses: &str, mid: &str, data: Value) {
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![mid, ses, T0, data.to_string()],
            )
            .unwrap();
    }

    fn part(&self, ses: &str, mid: &str, n: i64, data: Value) {
        self.conn
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![id("prt", n), mid, ses, T0 + n, data.to_string()],
            )
            .unwrap();
    }

    fn p(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// Message `mid`'s `time.<field>` (`created`, `completed`).
    fn time(&self, mid: &str, field: &str) -> i64 {
        self.conn
            .query_row(
                &format!("SELECT json_extract(data, '$.time.{field}') FROM message WHERE id = ?1"),
                [mid],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// OpenCode's prune mark on the part of call `call`, written at `ms`.
    fn mark(&self, call: &str, ms: i64) {
        self.conn
            .execute(
                "UPDATE part SET data = json_set(data, '$.state.time.compacted', ?1) WHERE json_extract(data, '$.callID') = ?2",
                rusqlite::params![ms, call],
            )
            .unwrap();
    }
}

/// The reason `plan --at k` gives for call `id`'s result.
fn reason(path: &str, extra: &[&str], k: usize, id: &str) -> String {
    let at = k.to_string();
    let mut args = vec!["plan", path, "--at", &at, "-j"];
    args.extend_from_slice(extra);
    let plan = bin::json(&args);
    let c = plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == id)
        .unwrap();
    c["reason"].as_str().unwrap().to_string()
}

fn tool(call: &str, name: &str, output: &str) -> Value {
    json!({"type": "tool", "callID": call, "tool": name, "state": {"status": "completed",
        "input": {"filePath": format!("/home/dev/proj/{call}.ts")}, "output": output, "title": call,
        "metadata": {}, "time": {"start": T0, "end": T0 + 1}}})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// The messages request `k` sends, as (role, [block type or text]).
fn wire(path: &str, extra: &[&str], k: usize) -> Vec<(String, Vec<String>)> {
    let at = k.to_string();
    let mut args = vec!["wire", path, "--at", &at];
    args.extend_from_slice(extra);
    let w = bin::json(&args);
    w["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let blocks = m["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| match b["type"].as_str().unwrap() {
                    "text" => b["text"].as_str().unwrap().to_string(),
                    "tool_use" => format!("use {}", b["id"].as_str().unwrap()),
                    "tool_result" => format!("result {}", b["tool_use_id"].as_str().unwrap()),
                    other => other.to_string(),
                })
                .collect();
            (m["role"].as_str().unwrap().to_string(), blocks)
        })
        .collect()
}

fn timeline(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["timeline", path, "-j"];
    args.extend_from_slice(extra);
    bin::json(&args)
}

/// A one-part tool output of `tokens` tokens by OpenCode's `round(len/4)`.
fn out(tokens: usize) -> String {
    "x".repeat(tokens * 4)
}

/// The ids request `k` sends as the placeholder, from the wire.
fn placeholders(path: &str, extra: &[&str], k: usize) -> Vec<String> {
    let at = k.to_string();
    let mut args = vec!["wire", path, "--at", &at];
    args.extend_from_slice(extra);
    let w = bin::json(&args);
    let mut ids = Vec::new();
    for m in w["messages"].as_array().unwrap() {
        for b in m["content"].as_array().unwrap() {
            if b["type"] == "tool_result" && b["content"] == "[Old tool result content cleared]" {
                ids.push(b["tool_use_id"].as_str().unwrap().to_string());
            }
        }
    }
    ids
}

/// A compaction's user message (with its `compaction` part) and its summary
/// assistant; `failed` gives the summary an error (no new view).
fn compaction(db: &mut Db, ses: &str, failed: bool) {
    let n = db.next();
    let c = id("msg", n);
    db.message(
        ses,
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(ses, &c, n + 1, json!({"type": "compaction", "auto": true}));
    let extra = if failed {
        json!({"summary": true, "error": {"name": "APIError"}})
    } else {
        json!({"summary": true})
    };
    db.assistant(ses, &c, extra, vec![text("the summary")]);
}

/// Turn 1 of the prune tests: a 25,000-token read, then a 40,000-token bash.
fn turn_one(db: &mut Db, ses: &str) {
    let u1 = db.user(ses, "turn 1");
    db.assistant(
        ses,
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant(
        ses,
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "bash", &out(40_000))],
    );
    db.assistant(ses, &u1, json!({}), vec![text("done")]);
}
