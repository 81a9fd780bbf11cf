//! One OpenCode message read as the records mcscope builds from: its parts as
//! blocks, when it was made and sent, and its usage.

use super::*;

/// A tool part the user refused (1.18.33 `failToolCall`: a
/// `PermissionRejectedError` or `QuestionRejectedError` sets `blocked`).
pub(super) fn rejected(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str) == Some("tool")
        && p.pointer("/state/status").and_then(Value::as_str) == Some("error")
        && p.pointer("/state/error")
            .and_then(Value::as_str)
            .is_some_and(|e| {
                e.starts_with("The user rejected permission to use this specific tool call.")
                    || e.starts_with("The user dismissed this question")
            })
}

/// The `compaction` part among a message's parts.
pub(super) fn compaction_part(parts: &[(String, Value)]) -> Option<&Value> {
    parts
        .iter()
        .map(|(_, p)| p)
        .find(|p| p.get("type").and_then(Value::as_str) == Some("compaction"))
}

/// Whether assistant message `m` is a `!command` the user ran (1.18.33
/// `SessionPrompt.shellImpl`: a user message holding only the synthetic note
/// "The following tool was executed by the user", and an assistant with no
/// `finish` holding the shell's part), which sends no model request.
pub(super) fn shell_run(m: &Value, parent: &[(String, Value)]) -> bool {
    m.get("finish").is_none_or(Value::is_null)
        && m.get("error").is_none_or(Value::is_null)
        && !parent.is_empty()
        && parent.iter().all(|(_, p)| {
            p.get("type").and_then(Value::as_str) == Some("text")
                && p.get("synthetic") == Some(&Value::Bool(true))
                && p.get("text").and_then(Value::as_str) == Some(SUBTASK_NOTE)
        })
}

/// Whether a part is of `kind` (`step-start`, `tool`, …).
pub(super) fn is_part(p: &Value, kind: &str) -> bool {
    p.get("type").and_then(Value::as_str) == Some(kind)
}

/// SPEC §17.O.2: a request that was aborted before it finished: a
/// `step-start`, no `step-finish`, and a `MessageAbortedError`.
pub(super) fn aborted_unfinished(m: &Value, parts: &[(String, Value)]) -> bool {
    m.pointer("/error/name").and_then(Value::as_str) == Some("MessageAbortedError")
        && parts.iter().any(|(_, p)| is_part(p, "step-start"))
        && !parts.iter().any(|(_, p)| is_part(p, "step-finish"))
}

/// Whether a later request leaves assistant message `m` out (1.18.33
/// `toModelMessages`: `if(V.info.error&&!(aborted&&V.parts.some(not step-start
/// or reasoning)))continue`).
pub(super) fn unsent(m: &Value, parts: &[(String, Value)]) -> bool {
    let Some(e) = m.get("error").filter(|e| !e.is_null()) else {
        return false;
    };
    let aborted = e.get("name").and_then(Value::as_str) == Some("MessageAbortedError");
    let content = parts.iter().any(|(_, p)| {
        !matches!(
            p.get("type").and_then(Value::as_str),
            Some("step-start" | "reasoning")
        )
    });
    !(aborted && content)
}

/// Whether a record is sent, and then whether it is an assistant's: 1.18.33
/// `toModelMessages` sends no user message left with no part
/// (`if(X.parts.length>0)`); it still counts as a turn.
pub(super) fn sent_as(record: &Value, body: &Value) -> Option<bool> {
    let kind = record.get("type").and_then(Value::as_str);
    let empty = body["content"].as_array().is_some_and(Vec::is_empty);
    (!(kind == Some("user") && empty)).then_some(kind == Some("assistant"))
}

/// A message's `time.created`.
pub(super) fn created_of(m: &Value) -> Option<i64> {
    m.pointer("/time/created").and_then(Value::as_i64)
}

/// A message's `time.completed`, else its `time.created`.
pub(super) fn completed_of(m: &Value) -> Option<i64> {
    m.pointer("/time/completed")
        .and_then(Value::as_i64)
        .or(created_of(m))
}

/// A message's records as the reader parses them, each with the body the wire
/// sends: a user message's; an assistant message's, and the results after it.
pub(super) fn records_of(
    m: &Value,
    parts: &[(String, Value)],
    id: &str,
    version: &Option<String>,
    file_paths: &mut HashMap<String, String>,
) -> Vec<(Value, Value)> {
    match m.get("role").and_then(Value::as_str) {
        Some("user") => {
            let body = json!({"role": "user", "content": user_blocks(parts)});
            vec![(record("user", created_of(m), version, body.clone()), body)]
        }
        Some("assistant") => {
            let at = completed_of(m);
            // 1.18.33 `toModelMessages` leaves out a failed response (an
            // aborted one only when it has nothing but reasoning): its
            // request was sent and billed, its content is in no later one.
            let (blocks, results) = if unsent(m, parts) {
                (Vec::new(), Vec::new())
            } else {
                assistant_blocks(parts, file_paths)
            };
            let mut body = Map::new();
            body.insert("role".into(), "assistant".into());
            body.insert("content".into(), Value::Array(blocks));
            let wire = Value::Object(body.clone());
            body.insert("id".into(), Value::String(id.to_string()));
            if let Some(model) = m.get("modelID").filter(|v| v.is_string()) {
                body.insert("model".into(), model.clone());
            }
            // An aborted request (a `step-start`, no `step-finish`, a
            // `MessageAbortedError`) was sent, but its usage is unknown (SPEC
            // §17.O.2): its zeros are no count.
            if let Some(usage) = usage(m).filter(|_| !aborted_unfinished(m, parts)) {
                body.insert("usage".into(), usage);
            }
            let mut out = vec![(record("assistant", at, version, Value::Object(body)), wire)];
            if !results.is_empty() {
                let body = json!({"role": "user", "content": results});
                out.push((record("user", at, version, body.clone()), body));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Milliseconds since the epoch as a record's RFC 3339 `timestamp`.
pub(super) fn timestamp(ms: Option<i64>) -> Option<String> {
    let ts = chrono::DateTime::from_timestamp_millis(ms?)?;
    Some(ts.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// Whether `m` is the summary of a compaction that completed: a summary
/// assistant (`summary: true`, `finish` set, no `error`); its `parentID` names
/// the compaction's user message (1.3.2 `filterCompacted`, reference §1.4).
pub(super) fn completes_compaction(m: &Value) -> bool {
    m.get("role").and_then(Value::as_str) == Some("assistant")
        && m.get("summary").and_then(Value::as_bool) == Some(true)
        && m.get("finish").is_some_and(|f| !f.is_null())
        && m.get("error").is_none_or(Value::is_null)
}

/// A user message's blocks as 1.18.33 `toModelMessages` sends them: its
/// texts (not `ignored`, not empty), files (not `text/plain` or
/// `application/x-directory`, whose content is in a text part), a
/// compaction's ask and a subtask's note.
pub(super) fn user_blocks(parts: &[(String, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (_, p) in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") if p.get("ignored").and_then(Value::as_bool) != Some(true) => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    out.push(json!({"type": "text", "text": text}));
                }
            }
            Some("file") => {
                let mime = p.get("mime").and_then(Value::as_str).unwrap_or_default();
                if mime == "text/plain" || mime == "application/x-directory" {
                    continue;
                }
                let url = p.get("url").and_then(Value::as_str).unwrap_or_default();
                if mime.starts_with("image/") {
                    out.push(json!({"type": "image", "source": {"type": "url", "url": url}}));
                } else {
                    let name = p.get("filename").and_then(Value::as_str).unwrap_or(url);
                    out.push(json!({"type": "text", "text": format!("[file {name} ({mime})]")}));
                }
            }
            Some("compaction") => out.push(json!({"type": "text", "text": COMPACTION_ASK})),
            Some("subtask") => out.push(json!({"type": "text", "text": SUBTASK_NOTE})),
            _ => {}
        }
    }
    out
}

/// An assistant message's blocks (text, reasoning, tool calls, in part order)
/// and the tool results that follow it (reference §1.4: a completed part's
/// `state.output`; an error part's `state.error`; a pending or running part
/// reads "[Tool execution was interrupted]"). The stored output is kept even
/// when the part is marked `time.compacted`: the mark is evidence of OpenCode's
/// own prune (SPEC §14), the text it cleared is what it had before.
pub(super) fn assistant_blocks(
    parts: &[(String, Value)],
    file_paths: &mut HashMap<String, String>,
) -> (Vec<Value>, Vec<Value>) {
    let mut blocks = Vec::new();
    let mut results = Vec::new();
    for (_, p) in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
            }
            Some("reasoning") => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    blocks.push(json!({"type": "thinking", "thinking": text}));
                }
            }
            Some("tool") => {
                let call_id = p
                    .get("callID")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let tool = p.get("tool").and_then(Value::as_str).unwrap_or_default();
                let state = p.get("state").cloned().unwrap_or(Value::Null);
                let input = state.get("input").cloned().unwrap_or_else(|| json!({}));
                if let Some(fp) = input.get("filePath").and_then(Value::as_str) {
                    file_paths.insert(call_id.clone(), fp.to_string());
                }
                blocks
                    .push(json!({"type": "tool_use", "id": call_id, "name": tool, "input": input}));
                let (content, is_error) = match state.get("status").and_then(Value::as_str) {
                    Some("completed") => (state.get("output").cloned().unwrap_or_default(), false),
                    // An interrupted tool's output so far is sent as its
                    // output (1.18.33: `metadata.interrupted===!0`); it stays
                    // an error part, which prune never counts.
                    Some("error") => match state.pointer("/metadata/interrupted") {
                        Some(Value::Bool(true))
                            if state
                                .pointer("/metadata/output")
                                .is_some_and(Value::is_string) =>
                        {
                            (
                                state
                                    .pointer("/metadata/output")
                                    .cloned()
                                    .unwrap_or_default(),
                                true,
                            )
                        }
                        _ => (state.get("error").cloned().unwrap_or_default(), true),
                    },
                    _ => (Value::String(INTERRUPTED.into()), true),
                };
                let content = match content {
                    Value::String(s) => Value::String(s),
                    Value::Null => Value::String(String::new()),
                    other => Value::String(other.to_string()),
                };
                let mut r =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if is_error {
                    r["is_error"] = Value::Bool(true);
                }
                results.push(r);
            }
            _ => {}
        }
    }
    (blocks, results)
}

/// An assistant message's `tokens` as a response's usage (see [`usage`]).
pub(in crate::load::opencode) fn usage_of(m: &Value) -> Option<crate::session::Usage> {
    let u = usage(m)?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(crate::session::Usage {
        input_tokens: n("input_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
        output_tokens: n("output_tokens"),
        ..Default::default()
    })
}

/// The counts of `tokens` the bill reads.
pub(super) const TOKEN_FIELDS: [&str; 5] = [
    "/input",
    "/output",
    "/reasoning",
    "/cache/read",
    "/cache/write",
];

/// An assistant message's `tokens` as Messages API usage (SPEC §14, §9a):
/// input (OpenCode's figure leaves the cache out), cache writes and reads, and
/// output with the reasoning tokens (OpenCode bills reasoning at the output
/// price). None when the message has no `tokens` object.
pub(super) fn usage(m: &Value) -> Option<Value> {
    let t = m.get("tokens").filter(|t| t.is_object())?;
    // A count of the wrong shape makes the usage unknown (warned about in
    // `usage_warnings`), never 0.
    if fields::counts_malformed(t, &TOKEN_FIELDS) {
        return None;
    }
    let n = |p: &str| t.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    // A failed request: OpenCode makes the message before the stream, with
    // every count 0. That is no usage recorded (an unknown, not a cold read).
    let all_zero = [
        "/input",
        "/output",
        "/reasoning",
        "/cache/read",
        "/cache/write",
    ]
    .iter()
    .all(|p| n(p) == 0);
    if all_zero && m.get("error").is_some_and(|e| !e.is_null()) {
        return None;
    }
    Some(json!({
        "input_tokens": n("/input"),
        "cache_creation_input_tokens": n("/cache/write"),
        "cache_read_input_tokens": n("/cache/read"),
        "output_tokens": n("/output") + n("/reasoning"),
    }))
}
