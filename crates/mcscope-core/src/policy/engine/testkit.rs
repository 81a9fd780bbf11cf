//! A small Claude Code session for the plan kinds' unit tests: records written
//! as the harness writes them, loaded by the real loader.

use crate::analysis::{PlanAt, Setup};
use crate::policy::{PlanKind, Policy};
use crate::session::HarnessId;
use serde_json::{Value, json};

pub(crate) struct Transcript {
    lines: Vec<String>,
    minute: i64,
    n: usize,
}

impl Transcript {
    pub(crate) fn new() -> Transcript {
        Transcript {
            lines: Vec::new(),
            minute: 0,
            n: 0,
        }
    }

    fn rec(&mut self, kind: &str, minutes: i64, message: Value) -> &mut Self {
        self.minute += minutes;
        self.n += 1;
        let ts = format!(
            "2026-07-01T{:02}:{:02}:{:02}.000Z",
            self.minute / 60,
            self.minute % 60,
            self.n % 60
        );
        let r = json!({"type": kind, "uuid": format!("u{}", self.n), "isSidechain": false,
            "cwd": "/repo", "version": "2.1.90", "timestamp": ts, "message": message});
        self.lines.push(r.to_string());
        self
    }

    pub(crate) fn prompt(&mut self, minutes: i64) -> &mut Self {
        self.rec("user", minutes, json!({"role": "user", "content": "go on"}))
    }

    /// A call of `tool` and its result of `chars` characters; `usage` is the
    /// response's recorded input tokens.
    pub(crate) fn call(&mut self, id: &str, tool: &str, chars: usize, usage: u64) -> &mut Self {
        self.rec(
            "assistant",
            0,
            json!({"id": format!("m{id}"), "role": "assistant", "model": "claude-test",
                "content": [{"type": "tool_use", "id": id, "name": tool,
                             "input": {"file_path": format!("/repo/{id}")}}],
                "usage": {"input_tokens": usage, "output_tokens": 1}}),
        );
        self.rec(
            "user",
            0,
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                                                 "content": "x".repeat(chars)}]}),
        )
    }

    pub(crate) fn answer(&mut self) -> &mut Self {
        let id = format!("a{}", self.n);
        self.rec(
            "assistant",
            0,
            json!({"id": id, "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 10, "output_tokens": 1}}),
        )
    }

    /// The session, loaded by the real loader.
    pub(crate) fn session(&self) -> crate::session::Session {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, self.lines.join("\n") + "\n").unwrap();
        crate::load::load(&path, None).unwrap()
    }

    /// The plan at the last request under `kind` with `tune` applied.
    pub(crate) fn plan(&self, kind: PlanKind, tune: impl FnOnce(&mut Policy)) -> (Setup, PlanAt) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, self.lines.join("\n") + "\n").unwrap();
        let session = crate::load::load(&path, None).unwrap();
        let mut policy = Policy::preset(HarnessId::Claude);
        policy.kind = kind;
        tune(&mut policy);
        let setup = Setup::new(session, policy);
        let k = setup.last_request();
        let plan = crate::analysis::plan_at(&setup, k).unwrap();
        (setup, plan)
    }
}

/// Three calls of 400 chars in one turn (A, B, C), then a prompt 61 minutes
/// later: over the 60-minute gap.
pub(crate) fn three_reads() -> Transcript {
    let mut t = Transcript::new();
    t.prompt(0)
        .call("A", "Read", 400, 10)
        .call("B", "Bash", 400, 10)
        .call("C", "Grep", 400, 10)
        .answer();
    t.prompt(61).answer();
    t
}

pub(crate) fn cleared(setup: &Setup, plan: &PlanAt) -> Vec<String> {
    plan.ids_with(&setup.session, crate::policy::Status::Cleared)
}
