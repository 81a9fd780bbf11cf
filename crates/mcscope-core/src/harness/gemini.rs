//! The Gemini `contents` body dialect (SPEC §5 media, §6): `functionResponse`
//! parts, top-level media parts and their placeholder, thought parts. Qwen Code
//! writes it (`microcompact.ts`, `core/client.ts`).

use serde_json::{Value, json};
use std::borrow::Cow;

/// Whether a part is a tool result as the loaders count them.
pub fn is_tool_result(block: &Value) -> bool {
    !block.get("functionCall").is_some_and(Value::is_object)
        && block
            .get("functionResponse")
            .is_some_and(|r| r.is_object() && r.get("id").is_some_and(Value::is_string))
}

/// The whole response goes, nested media included.
pub fn clear_block(block: &mut Value, placeholder: &str) {
    block["functionResponse"]["response"] = json!({"output": placeholder});
    if let Some(resp) = block["functionResponse"].as_object_mut() {
        resp.remove("parts");
    }
}

/// A message body holding one text part.
pub fn text_body(text: String) -> Value {
    json!({"parts": [{"text": text}]})
}

/// Whether a part is top-level media (not a call's or a response's).
pub fn is_top_level_media(block: &Value) -> bool {
    !block.get("functionCall").is_some_and(Value::is_object)
        && !block.get("functionResponse").is_some_and(Value::is_object)
        && (block.get("inlineData").is_some_and(Value::is_object)
            || block.get("fileData").is_some_and(Value::is_object))
}

/// What Qwen writes over a cleared media part (microcompact.ts): the mime type
/// with runs of CR/LF/TAB made one space, brackets removed, trimmed, and cut to
/// 128 UTF-16 units.
pub fn media_placeholder(block: &Value) -> String {
    let mime = ["inlineData", "fileData"]
        .iter()
        .find_map(|k| block.get(k)?.get("mimeType")?.as_str())
        .unwrap_or("application/octet-stream");
    let mut clean = String::new();
    let mut in_run = false;
    for ch in mime.chars() {
        match ch {
            '\r' | '\n' | '\t' => {
                if !in_run {
                    clean.push(' ');
                }
                in_run = true;
                continue;
            }
            '[' | ']' => {}
            c => clean.push(c),
        }
        in_run = false;
    }
    let mut out = String::new();
    let mut units = 0;
    for ch in clean.trim().chars() {
        units += ch.len_utf16();
        if units > 128 {
            break;
        }
        out.push(ch);
    }
    format!("[Old inline media cleared: {out}]")
}

/// `/compress-fast` drops thought parts; a model turn left empty goes too.
pub fn drop_thoughts(messages: &mut [Cow<'_, Value>]) {
    // Only thought text goes; a call or a response is never a thought.
    let keep = |p: &Value| {
        p.get("thought").and_then(Value::as_bool) != Some(true)
            || p.get("functionCall").is_some()
            || p.get("functionResponse").is_some()
    };
    for msg in messages.iter_mut() {
        let has_thoughts = msg.get("role").and_then(Value::as_str) == Some("model")
            && msg
                .get("parts")
                .and_then(Value::as_array)
                .is_some_and(|parts| !parts.iter().all(keep));
        if !has_thoughts {
            continue;
        }
        if let Some(parts) = msg.to_mut().get_mut("parts").and_then(Value::as_array_mut) {
            parts.retain(keep);
        }
    }
}

/// The output of a part that is the `functionResponse` of call `id` (its
/// `response.output`, else the whole response; null when it has none).
pub fn result_content<'a>(m: &'a serde_json::Map<String, Value>, id: &str) -> Option<&'a Value> {
    let fr = m.get("functionResponse")?;
    (fr.get("id").and_then(Value::as_str) == Some(id)).then(|| {
        let r = fr.get("response").unwrap_or(&Value::Null);
        r.get("output").unwrap_or(r)
    })
}

/// A result whose media the plan stripped keeps its response without `parts`.
pub fn strip_parts(block: &mut Value) {
    if let Some(resp) = block
        .get_mut("functionResponse")
        .and_then(Value::as_object_mut)
    {
        resp.remove("parts");
    }
}

/// What a part is (SPEC §15.17): a `functionCall` and its args, a top-level
/// media part with its placeholder, a thought or text, or other.
pub fn block(b: &Value) -> super::Block<'_> {
    use super::Block;
    if let Some(call) = b.get("functionCall").filter(|c| c.is_object()) {
        Block::Call {
            id: None,
            input: call.get("args").map(Value::to_string).unwrap_or_default(),
        }
    } else if is_top_level_media(b) {
        Block::Media {
            placeholder: Some(media_placeholder(b)),
        }
    } else if let Some(t) = b.get("text").and_then(Value::as_str) {
        if b.get("thought").and_then(Value::as_bool) == Some(true) {
            Block::Thinking(t)
        } else {
            Block::Text(t)
        }
    } else {
        Block::Other
    }
}
