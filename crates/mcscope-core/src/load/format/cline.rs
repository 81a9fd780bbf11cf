//! Cline's task folders (SPEC §17.K.1): a folder `tasks/<taskId>/` or any of
//! its four files is the task. Not followed (read it again instead).

use super::super::{LoadError, cline};
use super::{FormatLoader, LightCounter, LightRecord, LightSeen, LightTally};
use crate::session::{Format, Session};
use serde_json::Value;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

pub(super) struct ClineTask;

impl FormatLoader for ClineTask {
    fn format(&self) -> Format {
        Format::ClineTask
    }

    /// One of a task's files by its name (reference §1: `GlobalFileNames`),
    /// holding JSON, in a folder that holds the history: the history is an
    /// array on one line, which no record stage reads.
    fn sniff_name(&self, path: &Path, head: &[u8]) -> bool {
        let json = crate::load::encoding::strip_bom(head)
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'[' || b == b'{');
        json && cline::task_dir(path).is_some()
    }

    fn folder_session(&self, dir: &Path) -> Option<PathBuf> {
        let file = dir.join(cline::HISTORY);
        (dir.is_dir() && file.is_file()).then_some(file)
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        drop(file);
        cline::load(path, self.format())
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err("a Cline task cannot be followed yet (read it again instead)")
    }

    /// Cline 4.1+ keeps its sessions in the SDK's store, `<data>/db/sessions.db`
    /// beside `<data>/sessions/` (v4.1.12 `sdk/packages/shared/src/storage/
    /// paths.ts`: `resolveDbDataDir`, `resolveSessionDataDir`), which is not
    /// read yet (SPEC §18.4). Asked of a data folder and of its `tasks`.
    fn unread_store(&self, dir: &Path) -> Option<String> {
        let data = match dir.file_name() {
            Some(n) if n == "tasks" => dir.parent()?,
            _ => dir,
        };
        let db = data.join("db").join("sessions.db");
        db.is_file().then(|| {
            format!(
                "Cline 4.1+ sessions are not read yet ({} holds them)",
                db.display()
            )
        })
    }

    /// The picker's light pass reads the history whole (one line of JSON).
    fn light_whole(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == cline::HISTORY)
    }

    /// The history as lines the light pass counts: a marker, then each
    /// message with its content at the top level.
    fn light_lines(&self, bytes: &[u8]) -> Option<Vec<String>> {
        let v: Value = serde_json::from_slice(crate::load::encoding::strip_bom(bytes)).ok()?;
        let messages = v.as_array()?;
        let mut lines = vec![serde_json::json!({"type": MARKER}).to_string()];
        for (i, m) in messages.iter().enumerate() {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
            let content = match m.get("content") {
                Some(Value::String(t)) => serde_json::json!([{"type": "text", "text": t}]),
                Some(c) => c.clone(),
                None => Value::Array(Vec::new()),
            };
            lines.push(
                serde_json::json!({"type": role, "id": format!("m{i}"), "content": content})
                    .to_string(),
            );
        }
        Some(lines)
    }

    fn light_counter(&self, record: &LightRecord<'_>) -> Option<Box<dyn LightCounter>> {
        (record.kind == MARKER).then(|| Box::new(LightCount::default()) as Box<dyn LightCounter>)
    }

    fn light_claims(&self, seen: &LightSeen, _path: &Path) -> bool {
        seen.counted_by == Some(self.format())
    }

    /// A task's files are named for what they hold, not for a sub-agent.
    fn subagent_by_path(&self) -> bool {
        false
    }

    /// The picker and `compare` list a task by its history.
    fn listed(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == cline::HISTORY)
    }
}

/// The first line the light pass reads of a history (`light_lines`).
const MARKER: &str = "cline-task";

/// The picker's count of a task's history, as its loader counts: an
/// assistant message is a response; a `tool_result` block or a text block
/// with a `[tool …] Result:` header is a result; the prompt is the first
/// user message's `<task>`.
#[derive(Default)]
struct LightCount {
    prompted: bool,
}

impl LightCounter for LightCount {
    fn record(&mut self, rec: &LightRecord<'_>, main: &mut dyn LightTally) {
        match rec.kind {
            "assistant" => {
                main.message();
                main.response();
            }
            "user" => {
                main.message();
                let blocks: Vec<Value> = rec
                    .content
                    .and_then(|c| serde_json::from_str(c.get()).ok())
                    .unwrap_or_default();
                let mut results = 0;
                let mut prompt = None;
                for b in &blocks {
                    let text = b.get("text").and_then(Value::as_str);
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_result") => results += 1,
                        Some("text") if text.is_some_and(cline::is_result_text) => results += 1,
                        Some("text") if prompt.is_none() => prompt = text,
                        _ => {}
                    }
                }
                let text = (!self.prompted)
                    .then(|| prompt.map(cline::task_text))
                    .flatten();
                self.prompted |= text.is_some();
                main.user(results, text.as_deref());
            }
            _ => {}
        }
    }

    fn subagent(&self) -> bool {
        false
    }
}
