//! Small transcript builders for rule tests: real record shapes, made-up content.
#![allow(dead_code)]

pub mod bin;
pub mod evidence;

use mcscope::analysis::{self, PlanAt, Setup};
use mcscope::cli::{self, Opts};
use mcscope::policy::engine::Status;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub const T0: i64 = 1_780_000_000_000;

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A Claude Code transcript under construction.
pub struct Claude {
    pub lines: Vec<String>,
    t: i64,
    n: usize,
    pub cwd: String,
    version: String,
}

impl Default for Claude {
    fn default() -> Self {
        Claude {
            lines: Vec::new(),
            t: T0,
            n: 0,
            cwd: "/repo".into(),
            version: "2.1.88".into(),
        }
    }
}

impl Claude {
    fn base(&mut self, kind: &str, minutes: f64) -> serde_json::Map<String, Value> {
        self.t += (minutes * 60_000.0) as i64 + 1000;
        self.n += 1;
        let mut m = serde_json::Map::new();
        m.insert("parentUuid".into(), Value::Null);
        m.insert("isSidechain".into(), json!(false));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(self.cwd));
        m.insert("sessionId".into(), json!("s-1"));
        m.insert("version".into(), json!(self.version));
        m.insert("type".into(), json!(kind));
        m.insert("uuid".into(), json!(format!("u-{}", self.n)));
        m.insert("timestamp".into(), json!(iso(self.t)));
        m
    }

    pub fn push(&mut self, v: serde_json::Map<String, Value>) -> &mut Self {
        self.lines.push(Value::Object(v).to_string());
        self
    }

    /// A typed prompt `minutes` after the previous record.
    pub fn prompt(&mut self, text: &str, minutes: f64) -> &mut Self {
        let mut r = self.base("user", minutes);
        r.insert("message".into(), json!({"role": "user", "content": text}));
        self.push(r)
    }

    /// One response holding the given tool calls (id, tool, input).
    pub fn calls(&mut self, msg_id: &str, calls: &[(&str, &str, Value)]) -> &mut Self {
        for (id, tool, input) in calls {
            let mut r = self.base("assistant", 0.0);
            r.insert(
                "message".into(),
                json!({"id": msg_id, "type": "message", "role": "assistant", "model": "claude-test",
                       "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}],
                       "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}}),
            );
            self.push(r);
        }
        self
    }

    pub fn call(&mut self, id: &str, tool: &str, input: Value) -> &mut Self {
        let msg = format!("msg_{id}");
        self.calls(&msg, &[(id, tool, input)])
    }

    pub fn read(&mut self, id: &str, path: &str) -> &mut Self {
        self.call(id, "Read", json!({"file_path": path}))
            .result(id, &format!("contents of {path} ").repeat(20))
    }

    pub fn bash(&mut self, id: &str, chars: usize) -> &mut Self {
        self.call(id, "Bash", json!({"command": "make"}))
            .result(id, &"x".repeat(chars))
    }

    pub fn result(&mut self, id: &str, content: &str) -> &mut Self {
        self.result_full(id, json!(content), false, 0.0)
    }

    pub fn result_full(
        &mut self,
        id: &str,
        content: Value,
        is_error: bool,
        minutes: f64,
    ) -> &mut Self {
        let mut r = self.base("user", minutes);
        let mut block = json!({"tool_use_id": id, "type": "tool_result", "content": content});
        if is_error {
            block["is_error"] = json!(true);
        }
        r.insert(
            "message".into(),
            json!({"role": "user", "content": [block]}),
        );
        self.push(r)
    }

    pub fn answer(&mut self, text: &str) -> &mut Self {
        let id = format!("msg_answer_{}", self.n);
        let mut r = self.base("assistant", 0.0);
        r.insert(
            "message".into(),
            json!({"id": id, "type": "message", "role": "assistant", "model": "claude-test",
                   "content": [{"type": "text", "text": text}],
                   "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}}),
        );
        self.push(r)
    }

    /// One response of a thinking block and a text block (two lines, one id);
    /// `message` keys (usage, context_management) go on both lines.
    pub fn thinking_answer(&mut self, thinking: &str, text: &str, message: Value) -> &mut Self {
        let id = format!("msg_think_{}", self.n);
        for block in [
            json!({"type": "thinking", "thinking": thinking, "signature": "sig"}),
            json!({"type": "text", "text": text}),
        ] {
            let mut r = self.base("assistant", 0.0);
            let mut m = json!({"id": id, "type": "message", "role": "assistant",
                "model": "claude-test", "content": [block],
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}});
            for (k, v) in message.as_object().into_iter().flatten() {
                m[k] = v.clone();
            }
            r.insert("message".into(), m);
            self.push(r);
        }
        self
    }

    /// An `attachment` record `minutes` after the previous one (SPEC §13.E).
    pub fn attachment(&mut self, attachment: Value, minutes: f64) -> &mut Self {
        let mut r = self.base("attachment", minutes);
        r.insert("attachment".into(), attachment);
        self.push(r)
    }

    /// A `tool_results_cut` attachment naming `ids` with this stand-in.
    pub fn cut(&mut self, ids: &[&str], stand_in: &str, minutes: f64) -> &mut Self {
        self.attachment(
            json!({"type": "tool_results_cut", "callIds": ids, "standIn": stand_in,
                   "roughTokens": 1000}),
            minutes,
        )
    }

    /// Every later record carries this `version`.
    pub fn version(&mut self, v: &str) -> &mut Self {
        self.version = v.to_string();
        self
    }

    pub fn boundary(&mut self) -> &mut Self {
        let mut r = self.base("system", 0.0);
        r.insert("subtype".into(), json!("compact_boundary"));
        r.insert("content".into(), json!("Conversation compacted"));
        r.insert(
            "compactMetadata".into(),
            json!({"trigger": "auto", "preTokens": 1000}),
        );
        self.push(r);
        let mut s = self.base("user", 0.0);
        s.insert("isCompactSummary".into(), json!(true));
        s.insert(
            "message".into(),
            json!({"role": "user", "content": "This session is being continued from a previous conversation."}),
        );
        self.push(s)
    }

    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, self.lines.join("\n") + "\n").unwrap();
        p
    }
}

/// A Qwen Code chat record under construction.
pub struct Qwen {
    pub lines: Vec<String>,
    t: i64,
    n: usize,
    pub cwd: String,
    /// The `version` written on the next records (a change is a restart).
    pub version: String,
}

impl Default for Qwen {
    fn default() -> Self {
        Qwen {
            lines: Vec::new(),
            t: T0,
            n: 0,
            cwd: "/repo".into(),
            version: "0.15.6".into(),
        }
    }
}

impl Qwen {
    fn rec(&mut self, kind: &str, minutes: f64, message: Value) -> &mut Self {
        self.record(kind, minutes, json!({"message": message}))
    }

    /// Any record `minutes` after the previous one: the base fields, then `fields`
    /// (`subtype`, `message`, `systemPayload`, … in the order given).
    pub fn record(&mut self, kind: &str, minutes: f64, fields: Value) -> &mut Self {
        self.t += (minutes * 60_000.0) as i64 + 1000;
        self.n += 1;
        let mut r = json!({"uuid": format!("q-{}", self.n), "parentUuid": null, "sessionId": "s",
                       "timestamp": iso(self.t), "type": kind, "cwd": self.cwd,
                       "version": self.version});
        for (k, v) in fields.as_object().cloned().unwrap_or_default() {
            r[k] = v;
        }
        self.lines.push(r.to_string());
        self
    }

    /// A user-role record of a subtype (`cron`, `notification`, `goal_runtime`, …).
    pub fn input(&mut self, subtype: &str, text: &str, minutes: f64) -> &mut Self {
        self.record(
            "user",
            minutes,
            json!({"subtype": subtype, "message": {"role": "user", "parts": [{"text": text}]}}),
        )
    }

    /// A tool_result record holding this `functionResponse` object.
    pub fn response(&mut self, response: Value) -> &mut Self {
        self.rec(
            "tool_result",
            0.0,
            json!({"role": "user", "parts": [{"functionResponse": response}]}),
        )
    }

    pub fn prompt(&mut self, text: &str, minutes: f64) -> &mut Self {
        self.rec(
            "user",
            minutes,
            json!({"role": "user", "parts": [{"text": text}]}),
        )
    }

    /// One assistant record with these calls (id, name, args).
    pub fn calls(&mut self, calls: &[(&str, &str, Value)]) -> &mut Self {
        let parts: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"functionCall": {"id": id, "name": name, "args": args}}))
            .collect();
        self.rec("assistant", 0.0, json!({"role": "model", "parts": parts}))
    }

    pub fn result(&mut self, id: &str, name: &str, output: &str) -> &mut Self {
        self.rec(
            "tool_result",
            0.0,
            json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": name, "response": {"output": output}}}]}),
        )
    }

    pub fn error(&mut self, id: &str, name: &str, error: &str) -> &mut Self {
        self.rec(
            "tool_result",
            0.0,
            json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": name, "response": {"error": error}}}]}),
        )
    }

    pub fn read(&mut self, id: &str, path: &str) -> &mut Self {
        self.calls(&[(id, "read_file", json!({"file_path": path}))])
            .result(id, "read_file", &format!("contents of {path} ").repeat(20))
    }

    pub fn shell(&mut self, id: &str, chars: usize) -> &mut Self {
        self.calls(&[(id, "run_shell_command", json!({"command": "make"}))])
            .result(id, "run_shell_command", &"y".repeat(chars))
    }

    pub fn answer(&mut self, text: &str) -> &mut Self {
        self.rec(
            "assistant",
            0.0,
            json!({"role": "model", "parts": [{"text": text}]}),
        )
    }

    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, self.lines.join("\n") + "\n").unwrap();
        p
    }
}

pub fn setup(path: &Path, opts: Opts) -> Setup {
    cli::setup(path, &opts).unwrap_or_else(|e| panic!("setup {}: {e}", path.display()))
}

pub fn plan(setup: &Setup, k: usize) -> PlanAt {
    analysis::plan_at(setup, k).unwrap()
}

pub fn last(setup: &Setup) -> PlanAt {
    plan(setup, setup.session.requests.len())
}

/// The status of the (first) result with this id.
pub fn status(setup: &Setup, p: &PlanAt, id: &str) -> Status {
    p.candidates
        .iter()
        .find(|c| setup.session.results[c.result].id == id)
        .unwrap_or_else(|| panic!("no candidate {id}"))
        .status
}

pub fn ids(setup: &Setup, p: &PlanAt, st: Status) -> Vec<String> {
    p.ids_with(&setup.session, st)
}

/// Token counts of the wrong shape (issue 41 item 4), each with the words a
/// `malformed_record_field` warning names it by: never read as 0.
pub fn wrong_shaped_counts() -> Vec<(Value, &'static str)> {
    vec![
        (json!(-3), "a negative number (-3)"),
        (json!("12"), "a string"),
        (json!(1e308), "a number past 2^64"),
        (
            serde_json::from_str::<Value>("18446744073709551616").unwrap(),
            "a number past 2^64",
        ),
    ]
}
