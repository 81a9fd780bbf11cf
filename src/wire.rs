//! Request bodies (SPEC §6): the local request as recorded, and the wire payload
//! after microcompaction, delivered by `rewrite` or by `cache-edits`.
//!
//! Records are re-read from the file here, one message at a time, so the session
//! model never holds their content.

use crate::load::{self, PLACEHOLDER};
use crate::policy::Delivery;
use crate::policy::engine::EditBlock;
use crate::session::{Harness, Part, PieceLen, Request, Role, Session};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The request as the transcript holds it: no clearing at all.
    Local,
    /// What the harness sends.
    Wire,
}

/// What the wire builder needs from a plan at one request.
pub struct Clearings<'a> {
    pub delivery: Delivery,
    /// Whether result `i` (index into `Session::results`) is cleared in this wire.
    pub result_cleared: &'a dyn Fn(usize) -> bool,
    /// Whether result `i`'s nested media (`functionResponse.parts`) is stripped.
    pub result_stripped: &'a dyn Fn(usize) -> bool,
    pub media_cleared: &'a dyn Fn(usize) -> bool,
    /// `cache_edits` blocks created up to this request.
    pub edits: &'a [EditBlock],
    /// Qwen `/compress-fast` drops thought parts from the wire.
    pub drop_thoughts: bool,
    /// Delivery `server` (the `api` preset): what the server's edits change.
    pub server: Option<&'a ServerEdits>,
}

/// What the `api` preset sends and what the server does with it (SPEC §11).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerEdits {
    /// `context_management.edits`, as the client sends them.
    pub edits: Vec<Value>,
    /// What a cleared result reads in the server view.
    pub placeholder: String,
    /// Assistant messages whose thinking blocks the server drops.
    pub thinking: HashSet<usize>,
    /// Tool uses whose input the server clears.
    pub inputs: HashSet<String>,
}

impl ServerEdits {
    fn context_management(&self) -> Value {
        json!({"edits": self.edits})
    }
}

/// Builds the body of request `req`.
pub fn build(s: &Session, req: &Request, side: Side, c: &Clearings<'_>) -> std::io::Result<Value> {
    let mut messages = read_messages(s, req)?;
    if side == Side::Wire {
        apply(s, req, &mut messages, c);
    }
    let mut out = body(s, messages);
    // The client's request carries the edits; the server view is what the
    // model is given after them.
    if let (Side::Local, Some(server)) = (side, c.server) {
        out["context_management"] = server.context_management();
    }
    Ok(out)
}

/// Every message of the session as the API sees it, in order, one at a time.
pub fn each_message(s: &Session, mut f: impl FnMut(usize, Value)) -> std::io::Result<()> {
    let file = std::fs::File::open(&s.path)?;
    for m in 0..s.messages.len() {
        f(m, message_from(&file, s, m)?);
    }
    Ok(())
}

/// The local messages of one view, as read so far (stepping through a session
/// reads each record once).
#[derive(Debug, Default)]
pub struct MessageCache {
    view_start: usize,
    messages: Vec<Value>,
}

impl MessageCache {
    /// The request's local messages, read as needed and lent out.
    fn slice(&mut self, s: &Session, req: &Request) -> std::io::Result<&[Value]> {
        if self.view_start != req.view_start {
            self.view_start = req.view_start;
            self.messages.clear();
        }
        let have = self.view_start + self.messages.len();
        if have < req.end {
            let file = std::fs::File::open(&s.path)?;
            for m in have..req.end {
                self.messages.push(message_from(&file, s, m)?);
            }
        }
        Ok(&self.messages[..req.end - req.view_start])
    }
}

/// Both bodies of `req` printed as pretty JSON (as `to_string_pretty` prints the
/// bodies `build` gives), and the wire's estimated tokens from message `from`:
/// what the TUI shows. The local side is printed from the cache, not copied.
pub fn print_both(
    s: &Session,
    req: &Request,
    c: &Clearings<'_>,
    cache: &mut MessageCache,
    tokens_from_message: Option<usize>,
) -> std::io::Result<(String, String, Option<u64>)> {
    let local = cache.slice(s, req)?;
    let mut wire = local.to_vec();
    apply(s, req, &mut wire, c);
    let tokens = tokens_from_message.map(|at| tokens_of(wire.get(at..).unwrap_or(&[])));
    let model = s.model.clone().map(Value::String).unwrap_or(Value::Null);
    let context_management = c.server.map(ServerEdits::context_management);
    let pretty = |messages: &[Value], extra: Option<&Value>| {
        serde_json::to_string_pretty(&BodyRef {
            harness: s.harness,
            model: &model,
            messages,
            context_management: extra,
        })
        .unwrap_or_default()
    };
    Ok((
        pretty(local, context_management.as_ref()),
        pretty(&wire, None),
        tokens,
    ))
}

/// A body over borrowed messages; serializes as `body` builds it.
struct BodyRef<'a> {
    harness: Harness,
    model: &'a Value,
    messages: &'a [Value],
    /// The `api` preset's local side: `context_management` after the messages.
    context_management: Option<&'a Value>,
}

impl serde::Serialize for BodyRef<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(None)?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry(self.harness.rules().wire.messages, self.messages)?;
        if let Some(cm) = self.context_management {
            map.serialize_entry("context_management", cm)?;
        }
        map.end()
    }
}

fn body(s: &Session, messages: Vec<Value>) -> Value {
    let model = s.model.clone().map(Value::String).unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("model".into(), model);
    out.insert(
        s.harness.rules().wire.messages.into(),
        Value::Array(messages),
    );
    Value::Object(out)
}

/// The messages of a request's view, read from the file (kept open) in order.
fn read_messages(s: &Session, req: &Request) -> std::io::Result<Vec<Value>> {
    let file = std::fs::File::open(&s.path)?;
    (req.view_start..req.end)
        .map(|m| message_from(&file, s, m))
        .collect()
}

/// One message as the API sees it: Claude `{role, content}`, Qwen `{role, parts}`.
fn message_from(file: &std::fs::File, s: &Session, m: usize) -> std::io::Result<Value> {
    let msg = &s.messages[m];
    let mut pieces: Vec<Value> = Vec::new();
    let shape = s.harness.rules().wire;
    let key = shape.content;
    for part in &msg.parts {
        let value = match part {
            Part::Record { offset, len, .. } => {
                // Only `message` is read: the rest (toolUseResult…) is skipped unparsed.
                #[derive(serde::Deserialize)]
                struct Record {
                    #[serde(default)]
                    message: Value,
                }
                let bytes = load::read_span(file, *offset, *len)?;
                match serde_json::from_slice::<Record>(&bytes) {
                    Ok(r) => r.message,
                    // Deeper than serde's recursion limit, or changed since loading:
                    // show the message as unreadable rather than fail the request.
                    Err(e) => unreadable_message(s.harness, msg.first_line, &e),
                }
            }
            Part::Inline(v) => (**v).clone(),
        };
        pieces.push(value.get(key).cloned().unwrap_or(Value::Null));
    }
    let role = match msg.role {
        Role::User => shape.user_role,
        Role::Assistant => shape.assistant_role,
    };
    let content = if pieces.len() == 1 && pieces[0].is_string() {
        pieces.pop().unwrap_or(Value::Null)
    } else {
        let mut blocks = Vec::new();
        for p in pieces {
            match p {
                Value::Array(a) => blocks.extend(a),
                Value::String(text) if s.harness == Harness::Claude => {
                    blocks.push(json!({"type": "text", "text": text}))
                }
                Value::Null => {}
                other => blocks.push(other),
            }
        }
        Value::Array(blocks)
    };
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    out.insert(key.into(), content);
    Ok(Value::Object(out))
}

/// Whether a content block is a tool result as the loaders count them.
pub fn is_tool_result(harness: Harness, block: &Value) -> bool {
    match harness {
        Harness::Claude => {
            block.get("type").and_then(Value::as_str) == Some("tool_result")
                && block.get("tool_use_id").is_some_and(Value::is_string)
        }
        Harness::Qwen => {
            !block.get("functionCall").is_some_and(Value::is_object)
                && block
                    .get("functionResponse")
                    .is_some_and(|r| r.is_object() && r.get("id").is_some_and(Value::is_string))
        }
    }
}

fn is_top_level_media(block: &Value) -> bool {
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

fn blocks_mut(harness: Harness, msg: &mut Value) -> Option<&mut Vec<Value>> {
    msg.get_mut(harness.rules().wire.content)
        .and_then(Value::as_array_mut)
}

fn apply(s: &Session, req: &Request, messages: &mut [Value], c: &Clearings<'_>) {
    if let (Some(server), Harness::Claude) = (c.server, s.harness) {
        server_view(s, req, messages, c, server);
        return;
    }
    let rewrite = c.delivery == Delivery::Rewrite || s.harness == Harness::Qwen;
    if rewrite {
        for (i, msg) in messages.iter_mut().enumerate() {
            let m = req.view_start + i;
            let mut results = s.results_in(m, m + 1);
            let mut media = s.media_in(m, m + 1);
            let Some(blocks) = blocks_mut(s.harness, msg) else {
                continue;
            };
            for block in blocks.iter_mut() {
                if is_tool_result(s.harness, block) {
                    if let Some(r) = results.next() {
                        if (c.result_cleared)(r) {
                            clear_block(s.harness, block);
                        } else if (c.result_stripped)(r)
                            && let Some(resp) = block
                                .get_mut("functionResponse")
                                .and_then(Value::as_object_mut)
                        {
                            resp.remove("parts");
                        }
                    }
                } else if s.harness == Harness::Qwen
                    && is_top_level_media(block)
                    && let Some(k) = media.next()
                    && (c.media_cleared)(k)
                {
                    *block = json!({"text": media_placeholder(block)});
                }
            }
        }
    }
    if c.drop_thoughts && s.harness == Harness::Qwen {
        drop_thoughts(messages);
    }
    if c.delivery == Delivery::CacheEdits && s.harness == Harness::Claude {
        cache_edits(s, req, messages, c.edits);
    }
}

/// The request after the server's edits (SPEC §11): cleared results read the
/// placeholder, cleared inputs are emptied, cleared thinking is dropped.
fn server_view(
    s: &Session,
    req: &Request,
    messages: &mut [Value],
    c: &Clearings<'_>,
    server: &ServerEdits,
) {
    for (i, msg) in messages.iter_mut().enumerate() {
        let m = req.view_start + i;
        let mut results = s.results_in(m, m + 1);
        let Some(blocks) = blocks_mut(Harness::Claude, msg) else {
            continue;
        };
        if server.thinking.contains(&m) {
            blocks.retain(|b| {
                !matches!(
                    b.get("type").and_then(Value::as_str),
                    Some("thinking" | "redacted_thinking")
                )
            });
        }
        for block in blocks.iter_mut() {
            if is_tool_result(Harness::Claude, block) {
                if let Some(r) = results.next()
                    && (c.result_cleared)(r)
                {
                    block["content"] = Value::String(server.placeholder.clone());
                }
            } else if block.get("type").and_then(Value::as_str) == Some("tool_use")
                && block
                    .get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| server.inputs.contains(id))
            {
                block["input"] = json!({});
            }
        }
    }
}

fn clear_block(harness: Harness, block: &mut Value) {
    match harness {
        Harness::Claude => {
            block["content"] = Value::String(PLACEHOLDER.into());
        }
        Harness::Qwen => {
            // The whole response goes, nested media included.
            block["functionResponse"]["response"] = json!({"output": PLACEHOLDER});
            if let Some(resp) = block["functionResponse"].as_object_mut() {
                resp.remove("parts");
            }
        }
    }
}

/// `/compress-fast` drops thought parts; a model turn left empty goes too.
fn drop_thoughts(messages: &mut [Value]) {
    for msg in messages.iter_mut() {
        if msg.get("role").and_then(Value::as_str) != Some("model") {
            continue;
        }
        if let Some(parts) = blocks_mut(Harness::Qwen, msg) {
            // Only thought text goes; a call or a response is never a thought.
            parts.retain(|p| {
                p.get("thought").and_then(Value::as_bool) != Some(true)
                    || p.get("functionCall").is_some()
                    || p.get("functionResponse").is_some()
            });
        }
    }
}

/// Claude's cached microcompact (claude.ts `addCacheBreakpoints`): one cache_control
/// on the last message, pinned and new `cache_edits` blocks, then `cache_reference`
/// on every tool_result strictly before the last cache_control message.
fn cache_edits(s: &Session, req: &Request, messages: &mut [Value], edits: &[EditBlock]) {
    let Some(last) = messages.len().checked_sub(1) else {
        return;
    };
    let content = &mut messages[last]["content"];
    if let Value::String(text) = content {
        *content = json!([{"type": "text", "text": text.clone()}]);
    }
    if let Some(block) = content.as_array_mut().and_then(|a| a.last_mut()) {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut seen: HashSet<String> = HashSet::new();
    for e in edits
        .iter()
        .filter(|e| e.at <= req.index && e.msg >= req.view_start && e.msg < req.end)
    {
        let refs: Vec<Value> = e
            .results
            .iter()
            .map(|&r| s.results[r].id.clone())
            .filter(|id| seen.insert(id.clone()))
            .map(|id| json!({"type": "delete", "cache_reference": id}))
            .collect();
        if refs.is_empty() {
            continue;
        }
        let msg = &mut messages[e.msg - req.view_start];
        if let Value::String(text) = &msg["content"] {
            msg["content"] = json!([{"type": "text", "text": text.clone()}]);
        }
        if let Some(blocks) = msg["content"].as_array_mut() {
            insert_after_tool_results(blocks, json!({"type": "cache_edits", "edits": refs}));
        }
    }
    for msg in messages[..last].iter_mut() {
        if msg.get("role").and_then(Value::as_str) != Some("user") {
            continue;
        }
        if let Some(blocks) = msg["content"].as_array_mut() {
            for b in blocks
                .iter_mut()
                .filter(|b| is_tool_result(Harness::Claude, b))
            {
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

/// Estimated tokens of every message of the session as recorded (no clearing),
/// read in one pass: `tokens_from` of a body is the sum of its messages' figures.
pub fn local_message_tokens(s: &Session) -> std::io::Result<Vec<u64>> {
    message_tokens(s, true)
}

/// As [`local_message_tokens`]; with `measured` false every message is built and
/// written (the exact way the sizes measured while loading must agree with).
pub fn message_tokens(s: &Session, measured: bool) -> std::io::Result<Vec<u64>> {
    if s.messages.is_empty() {
        return Ok(Vec::new());
    }
    use rayon::prelude::*;
    // Chunks of messages on every core, each reading with its own handle.
    let ids: Vec<usize> = (0..s.messages.len()).collect();
    let chunks: Vec<std::io::Result<Vec<u64>>> =
        ids.par_chunks(256)
            .map(|chunk| {
                let file = std::fs::File::open(&s.path)?;
                chunk
                    .iter()
                    .map(
                        |&m| match measured.then(|| measured_tokens(s, m)).flatten() {
                            Some(t) => Ok(t),
                            None => message_from(&file, s, m)
                                .map(|v| tokens_of(std::slice::from_ref(&v))),
                        },
                    )
                    .collect()
            })
            .collect();
    let mut out = Vec::with_capacity(s.messages.len());
    for c in chunks {
        out.extend(c?);
    }
    Ok(out)
}

/// The estimated tokens of message `m` as `message_from` would write it, from
/// the sizes the loader measured (`None` when one of its records was not
/// measured: the caller builds it).
fn measured_tokens(s: &Session, m: usize) -> Option<u64> {
    measured_written(s, m, &|_| false).map(|w| w.div_ceil(4))
}

/// The estimated tokens of Claude message `m` in a `rewrite` wire that clears
/// the results `cleared` says, from the measured sizes: each cleared result's
/// content reads the placeholder instead. `None`: not measured, or not Claude.
pub fn measured_rewrite_tokens(
    s: &Session,
    m: usize,
    cleared: &dyn Fn(usize) -> bool,
) -> Option<u64> {
    if s.harness != Harness::Claude {
        return None;
    }
    measured_written(s, m, cleared).map(|w| w.div_ceil(4))
}

/// The written UTF-16 length of message `m` with the results `cleared` says
/// cleared as `apply` clears a Claude result (its `content` set to the
/// placeholder, added at the end when absent).
fn measured_written(s: &Session, m: usize, cleared: &dyn Fn(usize) -> bool) -> Option<u64> {
    let msg = &s.messages[m];
    let shape = s.harness.rules().wire;
    let mut pieces = Vec::with_capacity(msg.parts.len());
    for part in &msg.parts {
        match part {
            Part::Record { piece, .. } => pieces.push((*piece)?),
            Part::Inline(_) => return None,
        }
    }
    let content = match pieces.as_slice() {
        [PieceLen::Str(len)] => *len,
        _ => {
            let (mut count, mut elements) = (0u64, 0u64);
            for p in pieces {
                let (c, e) = match p {
                    PieceLen::Arr { count, elements } => (count, elements),
                    // `{"type":"text","text":` + the string + `}`
                    PieceLen::Str(len) if s.harness == Harness::Claude => (1, 23 + len),
                    PieceLen::Str(len) | PieceLen::Other(len) => (1, len),
                    PieceLen::Missing => (0, 0),
                };
                count += c;
                elements += e;
            }
            2 + elements + count.saturating_sub(1)
        }
    };
    let role = match msg.role {
        Role::User => shape.user_role,
        Role::Assistant => shape.assistant_role,
    };
    // `{"role":"` + role + `","` + key + `":` + content + `}`
    let mut written = 9 + role.len() as u64 + 3 + shape.content.len() as u64 + 2 + content + 1;
    // The placeholder is plain ASCII: its written form is itself and two quotes.
    let placeholder = PLACEHOLDER.len() as u64 + 2;
    let mut results = s.results_in(m, m + 1);
    'blocks: for part in &msg.parts {
        let Part::Record { result_sizes, .. } = part else {
            continue;
        };
        for size in result_sizes {
            let Some(r) = results.next() else {
                break 'blocks;
            };
            if cleared(r) {
                // An absent `content` is added as `,"content":` and the placeholder.
                written = written + placeholder - size.unwrap_or(0);
                if size.is_none() {
                    written += 11;
                }
            }
        }
    }
    Some(written)
}

/// Estimated tokens of message `m` in the wire of a `rewrite` request (SPEC §6):
/// what `tokens_from` counts for it when `c` is that request's clearings. A
/// rewritten message depends only on its own results and media (and on thoughts
/// dropped), so one message is built alone.
pub fn wire_message_tokens(
    s: &Session,
    req: &Request,
    m: usize,
    c: &Clearings<'_>,
) -> std::io::Result<u64> {
    let file = std::fs::File::open(&s.path)?;
    let mut one = vec![message_from(&file, s, m)?];
    let alone = Request {
        view_start: m,
        end: m + 1,
        ..req.clone()
    };
    apply(s, &alone, &mut one, c);
    Ok(tokens_of(&one))
}

/// Estimated tokens of messages `from..` of a body: a quarter of their JSON length.
pub fn tokens_from(body: &Value, from: usize) -> u64 {
    let list = body
        .get("messages")
        .or_else(|| body.get("contents"))
        .and_then(Value::as_array);
    list.map(|l| tokens_of(l.get(from..).unwrap_or(&[])))
        .unwrap_or(0)
}

/// Estimated tokens of messages: a quarter of each one's JSON length, rounded up.
fn tokens_of(messages: &[Value]) -> u64 {
    messages.iter().map(|m| json_utf16_len(m).div_ceil(4)).sum()
}

/// UTF-16 units of a value's compact JSON (what `to_string` gives), counted as
/// it is written: no string is built.
fn json_utf16_len(v: &Value) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            // serde_json writes whole UTF-8 sequences: a lead byte is one unit,
            // a 4-byte sequence two.
            self.0 += buf
                .iter()
                .map(|&b| u64::from(b & 0xC0 != 0x80) + u64::from(b >= 0xF0))
                .sum::<u64>();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    match serde_json::to_writer(&mut c, v) {
        Ok(()) => c.0,
        Err(_) => crate::load::raw::utf16_len_str(&v.to_string()),
    }
}

/// A stand-in for a record the wire builder could not read back.
fn unreadable_message(harness: Harness, line: usize, e: &serde_json::Error) -> Value {
    let text = format!(
        "[mcscope: the record near line {line} could not be read back: {}]",
        crate::load::json_error_text(e)
    );
    match harness {
        Harness::Claude => json!({"content": [{"type": "text", "text": text}]}),
        Harness::Qwen => json!({"parts": [{"text": text}]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_count_utf16_units_of_the_compact_json() {
        // {"a":"é😀"}: 6 ASCII + é (1 unit) + 😀 (2 units) + 2 = 11 units → 3 tokens.
        let v = json!({"a": "é😀"});
        assert_eq!(
            json_utf16_len(&v),
            crate::load::raw::utf16_len_str(&v.to_string())
        );
        assert_eq!(json_utf16_len(&v), 11);
        assert_eq!(tokens_of(&[v.clone(), v]), 6);
    }

    #[test]
    fn media_placeholders_clean_the_mime_as_qwen_does() {
        let ph = |v: Value| media_placeholder(&v);
        assert_eq!(
            ph(json!({"inlineData": {"mimeType": " image/\r\n\tpng [x] "}})),
            "[Old inline media cleared: image/ png x]"
        );
        assert_eq!(
            ph(json!({"fileData": {"mimeType": "application/pdf"}})),
            "[Old inline media cleared: application/pdf]"
        );
        assert_eq!(
            ph(json!({"inlineData": {}})),
            "[Old inline media cleared: application/octet-stream]"
        );
        let long = "a".repeat(200);
        assert_eq!(
            ph(json!({"inlineData": {"mimeType": long}})),
            format!("[Old inline media cleared: {}]", "a".repeat(128))
        );
    }

    #[test]
    fn edits_go_after_the_last_tool_result_with_a_dot_when_last() {
        let mut c = vec![json!({"type": "tool_result", "tool_use_id": "a"})];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c[1]["type"], "cache_edits");
        assert_eq!(c[2], json!({"type": "text", "text": "."}));

        let mut c = vec![
            json!({"type": "tool_result", "tool_use_id": "a"}),
            json!({"type": "text", "text": "go on"}),
        ];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c.len(), 3);
        assert_eq!(c[1]["type"], "cache_edits");

        let mut c = vec![
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b"}),
        ];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c[1]["type"], "cache_edits");
        assert_eq!(c[2]["text"], "b");
    }
}
