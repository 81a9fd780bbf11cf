//! The Messages API body dialect (SPEC §6, §11): `tool_result` blocks, the
//! placeholder a cleared one reads, a text message, Claude's `cache_edits`
//! and what the server's edits do to a block. Claude Code and the `api` preset
//! write it; `wire` decides which results and messages these apply to.

use serde_json::{Value, json};
use std::borrow::Cow;

/// Whether a content block is a tool result as the loaders count them.
pub fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
        && block.get("tool_use_id").is_some_and(Value::is_string)
}

/// A cleared result's content is the harness's placeholder (`microCompact.ts`:
/// `[Old tool result content cleared]`; Cline's notice).
pub fn clear_block(block: &mut Value, placeholder: &str) {
    block["content"] = Value::String(placeholder.into());
}

/// A message body holding one text block.
pub fn text_body(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// The id of a `tool_use` block.
pub fn tool_use_id(block: &Value) -> Option<&str> {
    (block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .then(|| block.get("id").and_then(Value::as_str))
        .flatten()
}

/// Drops a message's thinking blocks (`thinking`, `redacted_thinking`).
pub fn drop_thinking(blocks: &mut Vec<Value>) {
    blocks.retain(|b| {
        !matches!(
            b.get("type").and_then(Value::as_str),
            Some("thinking" | "redacted_thinking")
        )
    });
}

/// A result the server's edit cleared reads its placeholder (SPEC §11).
pub fn server_clear(block: &mut Value, placeholder: &str) {
    block["content"] = Value::String(placeholder.to_string());
}

/// A tool use whose input the server's edit cleared (`clear_tool_inputs`).
pub fn clear_input(block: &mut Value) {
    block["input"] = json!({});
}

/// Claude's cached microcompact (claude.ts `addCacheBreakpoints`): one
/// cache_control on the last message, a `cache_edits` block of deletions at
/// each message of `deletes` (its position among `messages`, the ids it
/// deletes), then `cache_reference` on every tool_result strictly before the
/// last cache_control message.
pub fn place_cache_edits(messages: &mut [Cow<'_, Value>], deletes: &[(usize, Vec<String>)]) {
    let Some(last) = messages.len().checked_sub(1) else {
        return;
    };
    let content = &mut messages[last].to_mut()["content"];
    if let Value::String(text) = content {
        *content = json!([{"type": "text", "text": text.clone()}]);
    }
    if let Some(block) = content.as_array_mut().and_then(|a| a.last_mut()) {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    for (at, ids) in deletes {
        let refs: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "delete", "cache_reference": id}))
            .collect();
        let msg = messages[*at].to_mut();
        if let Value::String(text) = &msg["content"] {
            msg["content"] = json!([{"type": "text", "text": text.clone()}]);
        }
        if let Some(blocks) = msg["content"].as_array_mut() {
            insert_after_tool_results(blocks, json!({"type": "cache_edits", "edits": refs}));
        }
    }
    for msg in messages[..last].iter_mut() {
        let has_results = msg.get("role").and_then(Value::as_str) == Some("user")
            && msg["content"]
                .as_array()
                .is_some_and(|b| b.iter().any(is_tool_result));
        if !has_results {
            continue;
        }
        if let Some(blocks) = msg.to_mut()["content"].as_array_mut() {
            for b in blocks.iter_mut().filter(|b| is_tool_result(b)) {
                let id = b["tool_use_id"].clone();
                b["cache_reference"] = id;
            }
        }
    }
}

/// contentArray.ts `insertBlockAfterToolResults`.
pub fn insert_after_tool_results(content: &mut Vec<Value>, block: Value) {
    let last_result = content
        .iter()
        .rposition(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
    match last_result {
        Some(i) => {
            content.insert(i + 1, block);
            if i + 1 == content.len() - 1 {
                // Some APIs require the prompt not to end with non-text content.
                content.push(json!({"type": "text", "text": "."}));
            }
        }
        None => {
            let at = content.len().saturating_sub(1);
            content.insert(at, block);
        }
    }
}

/// The content of a block that is the tool result `id` (null when it has none).
pub fn result_content<'a>(m: &'a serde_json::Map<String, Value>, id: &str) -> Option<&'a Value> {
    (m.get("type").and_then(Value::as_str) == Some("tool_result")
        && m.get("tool_use_id").and_then(Value::as_str) == Some(id))
    .then(|| m.get("content").unwrap_or(&Value::Null))
}

/// What a content block is (SPEC §15.17): text, thinking (a redacted one's
/// `data`), a `tool_use` and its input, an image or document, or other.
pub fn block(b: &Value) -> super::Block<'_> {
    use super::Block;
    let str_of = |key: &str| b.get(key).and_then(Value::as_str).unwrap_or_default();
    match b.get("type").and_then(Value::as_str) {
        Some("text") => Block::Text(str_of("text")),
        Some("thinking") => Block::Thinking(str_of("thinking")),
        Some("redacted_thinking") => Block::Thinking(str_of("data")),
        Some("tool_use") => Block::Call {
            id: Some(str_of("id")),
            input: b.get("input").map(Value::to_string).unwrap_or_default(),
        },
        Some("image" | "document") => Block::Media { placeholder: None },
        _ => Block::Other,
    }
}
