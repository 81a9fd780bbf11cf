//! A Claude Code transcript with every kind of evidence (SPEC §10), shared by the
//! evidence tests through the binary and the TUI's evidence tests.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub const T0_MIN: i64 = 1_780_000_000_000;

pub fn iso_min(min: f64) -> String {
    chrono::DateTime::from_timestamp_millis(T0_MIN + (min * 60_000.0) as i64)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

#[derive(Default)]
pub struct Tx {
    lines: Vec<Value>,
}

impl Tx {
    pub fn rec(&mut self, kind: &str, min: f64, extra: Value) -> &mut Self {
        let n = self.lines.len() + 1;
        // Each record is the child of the one before it, as Claude Code writes them.
        let parent = self.lines.last().map(|l| l["uuid"].clone());
        let mut r = json!({"parentUuid": parent, "isSidechain": false, "type": kind,
            "uuid": format!("u-{n}"), "timestamp": iso_min(min), "sessionId": "s",
            "version": "2.1.17", "cwd": "/r"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        self.lines.push(r);
        self
    }
    pub fn prompt(&mut self, min: f64) -> &mut Self {
        self.rec(
            "user",
            min,
            json!({"message": {"role": "user", "content": "go on"}}),
        )
    }
    pub fn result(&mut self, id: &str, min: f64) -> &mut Self {
        self.rec(
            "user",
            min,
            json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(4000)}]}}),
        )
    }
    pub fn response(
        &mut self,
        id: &str,
        min: f64,
        usage: Value,
        call: Option<&str>,
        extra: Value,
    ) -> &mut Self {
        let content = match call {
            Some(c) => {
                json!([{"type": "tool_use", "id": c, "name": "Bash", "input": {"command": "ls"}}])
            }
            None => json!([{"type": "text", "text": "done"}]),
        };
        let mut message = json!({"id": id, "type": "message", "role": "assistant",
            "model": "claude-opus-4-5", "content": content, "usage": usage});
        for (k, v) in extra.as_object().unwrap() {
            message[k] = v.clone();
        }
        self.rec("assistant", min, json!({ "message": message }))
    }
    pub fn boundary(&mut self, min: f64, pre: u64, saved: u64, ids: &[&str]) -> &mut Self {
        self.rec(
            "system",
            min,
            json!({"subtype": "microcompact_boundary", "content": "Context microcompacted",
            "microcompactMetadata": {"trigger": "auto", "preTokens": pre, "tokensSaved": saved,
                "compactedToolIds": ids, "clearedAttachmentUUIDs": []}}),
        )
    }
    pub fn write(&self, dir: &Path) -> PathBuf {
        let p = dir.join("evidence.jsonl");
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        std::fs::write(&p, text.join("\n") + "\n").unwrap();
        p
    }
}

pub fn usage(write: u64, read: u64, deleted: u64) -> Value {
    json!({"input_tokens": 5, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
           "output_tokens": 50, "cache_deleted_input_tokens": deleted,
           "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0}})
}

/// Four requests:
/// 1. m1 writes 40,000 (5-minute cache) and calls a.
/// 2. a budget record (preTokens 140,000) precedes m2, its child; m2 reads 40,000
///    (E = 0 + 40,000: no break), writes 1,000, calls b.
/// 3. m3 reads 11,000 where E = 40,000 + 1,000 = 41,000 (below 38,950, drop 30,000):
///    a break; cache deletions grew 0 → 2,000 and a cached record (preTokens 0) after
///    m3 names [a]: the count plan (trigger 1, keep 1) newly clears a there (a and b
///    active, a sent and outside the last 1). m3 writes 30,000, calls c.
/// 4. a prompt 9.5 minutes after m3 (≥ 5 minutes: the cache expired); m4 reads 0
///    where E = 11,000 + 30,000 = 41,000: a break; a cached record after m4 names [c],
///    but count newly clears b there (c is in the request's last message: not sent);
///    the server applied one clear_tool_uses edit.
pub fn evidence_session(dir: &Path) -> PathBuf {
    let mut tx = evidence_tx();
    tx.boundary(10.2, 0, 1000, &["c"]);
    tx.write(dir)
}

/// [`evidence_session`] up to m4's response: its last record (the cached
/// record naming [c]) left for the caller to add, or not.
pub fn evidence_tx() -> Tx {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(40_000, 0, 0), Some("a"), json!({}))
        .result("a", 0.2)
        .boundary(0.25, 140_000, 30_000, &["x"])
        .response("m2", 0.3, usage(1000, 40_000, 0), Some("b"), json!({}))
        .result("b", 0.4)
        .response("m3", 0.5, usage(30_000, 11_000, 2000), Some("c"), json!({}))
        .boundary(0.55, 0, 2000, &["a"])
        .result("c", 0.6)
        .prompt(10.0)
        .response(
            "m4",
            10.1,
            usage(41_000, 0, 2000),
            None,
            json!({"context_management": {"applied_edits": [
                {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1, "cleared_input_tokens": 500}]}}),
        );
    tx
}
