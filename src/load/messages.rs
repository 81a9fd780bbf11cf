//! One Anthropic Messages API request body: `{model?, system?, tools?, messages:[…]}`.
//! Its requests are its assistant messages plus the trailing user message (SPEC §6).

use super::LoadError;
use super::builder::{AssistantRecord, Builder, UserRecord};
use super::claude::{self, Msg};
use super::raw;
use crate::session::{Format, Part, Session, ToolCall, ToolResult};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::path::Path;

pub fn load(path: &Path, mut file: File) -> Result<Session, LoadError> {
    let mut text = String::new();
    let unknown = |why: String| LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why,
    };
    file.read_to_string(&mut text)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let body: Value = serde_json::from_str(&text)
        .map_err(|e| unknown(format!("not a Messages API body: {e}")))?;
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| unknown("not a Messages API body: no `messages` array".into()))?;
    let mut b = Builder::new(path, Format::MessagesJson);
    for (i, m) in messages.iter().enumerate() {
        b.s.records += 1;
        let line = i + 1;
        let text = m.to_string();
        let Ok(msg) = serde_json::from_str::<Msg>(&text) else {
            continue;
        };
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let part = Part::Inline(m.clone());
        if role == "assistant" {
            let idx = b.assistant(AssistantRecord {
                part,
                ts: None,
                line,
                response_id: None,
                model: None,
                usage: None,
            });
            for block in raw::elements(msg.content) {
                let Ok(v) = serde_json::from_str::<Value>(block.get()) else {
                    continue;
                };
                if v.get("type").and_then(Value::as_str) != Some("tool_use") {
                    continue;
                }
                let (Some(id), Some(name)) = (
                    v.get("id").and_then(Value::as_str),
                    v.get("name").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let input = v.get("input");
                let field = |k: &str| {
                    input
                        .and_then(|i| i.get(k))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                b.call(ToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    msg: idx,
                    file_path: field("file_path"),
                    legacy_path: None,
                    summary: ["command", "pattern", "url", "query", "path"]
                        .into_iter()
                        .find_map(field),
                    cwd: None,
                });
            }
        } else {
            let blocks: Vec<Value> = m
                .get("content")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let is_result = |v: &Value| {
                v.get("type").and_then(Value::as_str) == Some("tool_result")
                    && v.get("tool_use_id").is_some_and(Value::is_string)
            };
            let idx = b.user(UserRecord {
                part,
                ts: None,
                line,
                is_meta: false,
                has_tool_result: blocks.iter().any(is_result),
            });
            for v in blocks.iter().filter(|v| is_result(v)) {
                let content = v.get("content").map(|c| c.to_string());
                let raw_content = content
                    .as_deref()
                    .and_then(|c| serde_json::value::RawValue::from_string(c.to_string()).ok());
                let measure = claude::measure(raw_content.as_deref());
                b.result(ToolResult {
                    id: v["tool_use_id"].as_str().unwrap_or_default().to_string(),
                    name: None,
                    msg: idx,
                    chars: measure.chars,
                    media: measure.media,
                    est_tokens: measure.est_tokens,
                    is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                    already_cleared: measure.placeholder,
                    line,
                });
            }
        }
    }
    let mut s = b.finish(Vec::new());
    if let Some(model) = body.get("model").and_then(Value::as_str) {
        s.model = Some(model.to_string());
    }
    Ok(s)
}
