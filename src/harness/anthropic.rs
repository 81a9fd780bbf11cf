//! The Messages API body dialect (SPEC §6, §11): `tool_result` blocks, the
//! placeholder a cleared one reads, and a text message. Claude Code and the
//! `api` preset write it; `wire` applies `cache_edits` and the server's view
//! on top of these blocks.

use serde_json::{Value, json};

/// Whether a content block is a tool result as the loaders count them.
pub fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
        && block.get("tool_use_id").is_some_and(Value::is_string)
}

/// A cleared result's content is the placeholder (`microCompact.ts`).
pub fn clear_block(block: &mut Value) {
    block["content"] = Value::String(super::CLEARED.into());
}

/// A message body holding one text block.
pub fn text_body(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}
