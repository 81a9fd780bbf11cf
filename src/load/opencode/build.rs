//! OpenCode messages and parts → the normalized session (reference §1.3–§1.4).

use super::super::RecordSink;
use super::super::claude;
use super::{Row, SessionInfo};
use crate::session::{Diagnostic, Format, Part, Role, Session, SessionWarning};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

/// What a pending or running tool part reads in the wire (reference §1.4:
/// 1.18.33 `toModelMessages`).
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// What OpenCode sends for a user message's `compaction` part (1.3.2 and
/// 1.18.33 `toModelMessages`: `"What did we do so far?"`).
const COMPACTION_ASK: &str = "What did we do so far?";

/// What it sends for a `subtask` part (1.18.33 `toModelMessages`).
const SUBTASK_NOTE: &str = "The following tool was executed by the user";

/// Builds the session from its rows (messages and parts, any order).
pub(super) fn session(
    path: &Path,
    format: Format,
    info: SessionInfo,
    messages: Vec<Row>,
    parts: Vec<Row>,
) -> Session {
    let mut diagnostics = Vec::new();
    let mut warnings = Vec::new();
    let mut messages: Vec<(String, Value)> = messages
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| match r.data {
            Ok(v) => Some((r.id, v)),
            Err(e) => {
                diagnostics.push(row_diagnostic(i + 1, &format!("message {}", r.id), &e));
                None
            }
        })
        .collect();
    // Reference §1.2: ids are time-ordered; the loop reads them in id order.
    messages.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_msg: HashMap<String, Vec<(String, Value)>> = HashMap::new();
    for (i, r) in parts.into_iter().enumerate() {
        match r.data {
            Ok(v) => by_msg
                .entry(r.message_id.unwrap_or_default())
                .or_default()
                .push((r.id, v)),
            Err(e) => diagnostics.push(row_diagnostic(i + 1, &format!("part {}", r.id), &e)),
        }
    }
    for list in by_msg.values_mut() {
        list.sort_by(|a, b| a.0.cmp(&b.0));
    }
    // Reference §1.4: `session.revert` hides the messages from `revert.messageID`
    // on (and, with `partID`, that message's parts from it on) from OpenCode's
    // next request, until the next prompt removes them (`SessionRevert.cleanup`).
    // They are the session's tail, and their requests were sent and billed
    // before the revert (as a rewound Claude branch, SPEC §15.1): they stay,
    // and no request of the file comes after them to leave them out of.
    if let Some(revert) = &info.revert {
        let msg = revert.get("messageID").and_then(Value::as_str);
        let part = revert.get("partID").and_then(Value::as_str);
        if let Some(msg) = msg {
            let hidden = messages
                .iter()
                .filter(|(id, _)| id.as_str() > msg || (part.is_none() && id == msg))
                .count();
            warnings.push(SessionWarning {
                id: "opencode_revert",
                line: None,
                text: match part {
                    None => format!(
                        "the session is reverted to message {msg}: OpenCode's next request leaves out {hidden} message(s), from that one on; their requests were sent and billed, and are shown"
                    ),
                    Some(p) => format!(
                        "the session is reverted to message {msg}, part {p}: OpenCode's next request leaves out that message's parts from {p} on and the {hidden} message(s) after it; their requests were sent and billed, and are shown"
                    ),
                },
            });
        }
    }
    // Reference §1.4: summary assistant → the compaction it completed.
    let completed = completed_compactions(&messages);
    // A completed compaction's user message: its place, its body and time.
    let mut compaction_asks: HashMap<&str, (usize, Value, Option<i64>)> = HashMap::new();
    let version = info.version.clone();
    let mut sink = claude::Sink::for_format(path, format);
    let mut line = 0;
    let mut skipped = Vec::new();
    // `again`: the record is of a message already fed, in the view again
    // (a compaction's retained tail): an assistant record is no response.
    let mut feed = |sink: &mut claude::Sink, record: Value, body: Option<Value>, again: bool| {
        line += 1;
        let text = record.to_string();
        match claude::Sink::parse(&text) {
            Ok(tagged) => {
                let part = Part::Inline(Box::new(body.unwrap_or(Value::Null)));
                if again {
                    sink.apply_inline(tagged, line, part);
                } else {
                    sink.apply_part(tagged, line, part);
                }
            }
            Err(e) => skipped.push(Diagnostic {
                line,
                byte_offset: 0,
                message: format!("record {line} skipped: {e}"),
            }),
        }
    };
    let mut file_paths: HashMap<String, String> = HashMap::new();
    // SPEC §15.14 `recorded.harness_usd`: the sum of the assistant messages'
    // `cost` (reference §1.3), a reverted tail's included (it was billed).
    let mut harness_usd: Option<f64> = None;
    // Reference §1.3, §2.4: each completed part's `state.time.compacted`
    // (callID, ms), and each assistant message's `time.created`, in request order.
    let mut marks: Vec<(String, i64)> = Vec::new();
    let mut assistant_created: Vec<Option<i64>> = Vec::new();
    // Reference §2.3: prune counts every user message as a turn.
    let mut user_messages: Vec<(usize, usize)> = Vec::new();
    let mut summaries: Vec<(usize, usize)> = Vec::new();
    // Per message, the results its own records added; and each result a
    // retained tail repeats in a later view, with the one it repeats.
    let mut msg_results: Vec<(usize, usize)> = Vec::with_capacity(messages.len());
    // Per request (assistant message), whether its prompt loop ended with it
    // (prune runs then), and the requests that are a compaction's summary.
    let mut loop_ends: Vec<bool> = Vec::new();
    let mut summary_requests: Vec<usize> = Vec::new();
    let next_users = next_user_messages(&messages);
    let mut copies: HashMap<usize, usize> = HashMap::new();
    for (i, (id, m)) in messages.iter().enumerate() {
        let none = Vec::new();
        let parts = by_msg.get(id).unwrap_or(&none);
        let first = sink.made().1;
        let records = records_of(m, parts, id, &version, &mut file_paths);
        match m.get("role").and_then(Value::as_str) {
            Some("user") => {
                if completed.values().any(|c| c == id) {
                    let body = records.first().map(|(_, b)| b.clone()).unwrap_or_default();
                    compaction_asks.insert(id, (i, body, created_of(m)));
                }
                user_messages.push(sink.made());
            }
            Some("assistant") => {
                if let Some(c) = m.get("cost").and_then(Value::as_f64) {
                    *harness_usd.get_or_insert(0.0) += c;
                }
                assistant_created.push(created_of(m));
                let next = next_users[i].map(|u| &messages[u].1);
                let next_parts = next_users[i].and_then(|u| by_msg.get(&messages[u].0));
                // The message after it is a user message, or there is none.
                let last_step = next_users[i].is_none_or(|u| u == i + 1);
                loop_ends.push(ends_loop(
                    m,
                    last_step,
                    next,
                    next_parts.map_or(&[][..], Vec::as_slice),
                ));
                if completed.contains_key(id.as_str()) {
                    summary_requests.push(assistant_created.len());
                }
                // Reference §2.3 "Stop": any summary assistant, failed or not.
                if m.get("summary").and_then(Value::as_bool) == Some(true) {
                    summaries.push((user_messages.len(), sink.made().1));
                }
                marks.extend(compacted_marks(parts));
            }
            other => diagnostics.push(Diagnostic {
                line: 0,
                byte_offset: 0,
                message: format!(
                    "message {id} skipped: role {}",
                    other.map_or("absent".into(), |r| format!("{r:?}"))
                ),
            }),
        }
        let wire = records.first().map(|(_, b)| b.clone());
        for (record, body) in records {
            feed(&mut sink, record, Some(body), false);
        }
        msg_results.push((first, sink.made().1));
        // Reference §1.4: the view starts at the last completed compaction
        // (`filterCompacted`), with its user message and this summary at its
        // head. The summary's own request is sent before that, with the view
        // it summarizes and the compaction's prompt (1.3.2
        // `SessionCompaction.process`: `toModelMessages(input.messages)` plus
        // the prompt).
        let Some((c, ask, ask_at)) = completed
            .get(id.as_str())
            .and_then(|c| compaction_asks.get(c.as_str()))
        else {
            continue;
        };
        feed(
            &mut sink,
            json!({"type": "system", "subtype": "compact_boundary"}),
            None,
            false,
        );
        sink.inline(
            Role::User,
            Part::Inline(Box::new(ask.clone())),
            timestamp(*ask_at).as_deref(),
        );
        sink.inline(
            Role::Assistant,
            Part::Inline(Box::new(wire.unwrap_or_default())),
            timestamp(completed_of(m)).as_deref(),
        );
        // 1.18 (`filterCompacted`, grep `if(!z.tail_start_id)break`): a
        // compaction part's `tail_start_id` keeps the messages from there up to
        // the compaction verbatim, after the summary
        // (`[...slice(compaction, summary + 1), ...slice(tail, compaction), ...after]`).
        let tail = messages[*c].0.as_str();
        let tail_start = by_msg
            .get(tail)
            .into_iter()
            .flatten()
            .find_map(|(_, p)| {
                (p.get("type").and_then(Value::as_str) == Some("compaction"))
                    .then(|| p.get("tail_start_id").and_then(Value::as_str))
                    .flatten()
            })
            .and_then(|t| messages[..*c].iter().position(|(id, _)| id == t));
        for j in tail_start.into_iter().flat_map(|t| t..*c) {
            let (tid, tm) = &messages[j];
            let tparts = by_msg.get(tid).unwrap_or(&none);
            let start = sink.made().1;
            for (record, body) in records_of(tm, tparts, tid, &version, &mut file_paths) {
                let again = record.get("type").and_then(Value::as_str) == Some("assistant");
                feed(&mut sink, record, Some(body), again);
            }
            let (from, to) = msg_results[j];
            let end = sink.made().1;
            if end - start == to - from {
                copies.extend((start..end).zip(from..to));
            }
        }
    }
    diagnostics.extend(skipped);
    let mut s = sink.finish(diagnostics);
    s.session_id = Some(info.id.clone());
    s.harness_usd = harness_usd;
    // SPEC §2: a sub-agent session is planned as a what-if (reference §5.7:
    // sub-agent sessions prune themselves; their rows are in the same tables).
    s.subagent_what_if = info.parent_id.is_some();
    for c in &mut s.calls {
        if let Some(p) = file_paths.get(&c.id) {
            c.file_path = Some(p.clone());
        }
    }
    s.warnings.extend(warnings);
    s.user_messages = user_messages;
    s.loop_ends = loop_ends;
    s.summary_requests = summary_requests;
    s.result_copies = copies;
    s.summaries = summaries;
    attach_marks(&mut s, &marks, &assistant_created);
    // SPEC §15.13: OpenCode's own estimate, `round(len / 4)`, is the one its
    // prune decides by; it is the results' `est_tokens` here.
    s.harness_tokens = s.results.iter().map(|r| Some(r.est_tokens)).collect();
    s
}

/// The completed tool parts of a message that carry a prune mark.
fn compacted_marks(parts: &[(String, Value)]) -> Vec<(String, i64)> {
    parts
        .iter()
        .filter(|(_, p)| p.get("type").and_then(Value::as_str) == Some("tool"))
        .filter(|(_, p)| p.pointer("/state/status").and_then(Value::as_str) == Some("completed"))
        .filter_map(|(_, p)| {
            let ms = p.pointer("/state/time/compacted").and_then(Value::as_i64)?;
            let id = p.get("callID").and_then(Value::as_str)?;
            Some((id.to_string(), ms))
        })
        .collect()
}

/// The prune marks as evidence (SPEC §14, §15.14): each belongs to the first
/// request whose assistant `time.created` ≥ its `time.compacted` (reference
/// §5.2: prune runs in the background after a loop, so a request of the next
/// turn may start before it wrote); the marks of one request are one record.
/// A session with a mark has `plan_recorded` on every request (prune was on).
fn attach_marks(s: &mut Session, marks: &[(String, i64)], created: &[Option<i64>]) {
    if marks.is_empty() {
        return;
    }
    // Requests with a response, in order: the k-th is the k-th assistant.
    let responding: Vec<usize> = s
        .requests
        .iter()
        .filter(|r| r.response.is_some())
        .map(|r| r.index)
        .collect();
    let mut by_request: std::collections::BTreeMap<usize, Vec<&str>> = Default::default();
    for (id, ms) in marks {
        let at = created
            .iter()
            .zip(&responding)
            .find(|(c, _)| c.is_some_and(|c| c >= *ms))
            .map_or(s.requests.len() + 1, |(_, &k)| k);
        by_request.entry(at).or_default().push(id);
    }
    for (at, ids) in by_request {
        let segment = s
            .request(at)
            .map_or_else(|| s.requests.last().map_or(0, |r| r.segment), |r| r.segment);
        // OpenCode's own count of what it cleared: `Token.estimate` of each.
        let tokens: u64 = ids
            .iter()
            .filter_map(|id| s.results.iter().rev().find(|r| r.id == *id))
            .map(|r| r.est_tokens)
            .sum();
        s.evidence.push(crate::session::Evidence {
            line: 0,
            before_request: at,
            compacted_tool_ids: ids.iter().map(|id| id.to_string()).collect(),
            ids_complete: true,
            budget_writer: true,
            pre_tokens: None,
            tokens_saved: Some(tokens),
            uuid: None,
            after_request: at.saturating_sub(1),
            segment,
            pruned: true,
            mask: false,
        });
    }
    for r in &mut s.requests {
        r.plan_recorded = true;
    }
}

/// A diagnostic for a row whose `data` could not be read.
fn row_diagnostic(n: usize, what: &str, e: &str) -> Diagnostic {
    Diagnostic {
        line: n,
        byte_offset: 0,
        message: format!("{what} skipped: {e}"),
    }
}

/// A Claude-shaped record around a message body (what the reader parses).
fn record(kind: &str, ms: Option<i64>, version: &Option<String>, message: Value) -> Value {
    let mut r = Map::new();
    r.insert("type".into(), kind.into());
    if let Some(ts) = timestamp(ms) {
        r.insert("timestamp".into(), ts.into());
    }
    if let Some(v) = version {
        r.insert("version".into(), v.clone().into());
    }
    r.insert("message".into(), message);
    Value::Object(r)
}

/// For each message, the first user message after it (its index).
fn next_user_messages(messages: &[(String, Value)]) -> Vec<Option<usize>> {
    let mut out = vec![None; messages.len()];
    let mut next = None;
    for (i, (_, m)) in messages.iter().enumerate().rev() {
        out[i] = next;
        if m.get("role").and_then(Value::as_str) == Some("user") {
            next = Some(i);
        }
    }
    out
}

/// Whether OpenCode's prompt loop ended with assistant message `m`, so that
/// prune ran after it (reference §2.2; 1.18.33 `SessionPrompt.loop`: it breaks
/// when the last assistant's `finish` is not `tool-calls` / `unknown` and no
/// user message is newer, or when a step fails; `prune` is forked after it).
/// `next` is the first user message after `m`, with its parts; `last_step`,
/// whether nothing but a user message follows `m` (what tells a loop's end
/// where a message records no `finish`).
fn ends_loop(
    m: &Value,
    last_step: bool,
    next: Option<&Value>,
    next_parts: &[(String, Value)],
) -> bool {
    if let Some(e) = m.get("error").filter(|e| !e.is_null()) {
        // A failed step stops the loop; an abort interrupts its fiber, and
        // the prune after the loop never runs (1.18.33 `cancel`:
        // `Wl.interrupt(x.run.fiber)`).
        return e.get("name").and_then(Value::as_str) != Some("MessageAbortedError");
    }
    let finished = match m.get("finish").and_then(Value::as_str) {
        Some(f) => f != "tool-calls" && f != "unknown",
        None => last_step,
    };
    if !finished {
        return false;
    }
    let Some(next) = next else {
        return true;
    };
    // A prompt sent while the loop ran joins it: the loop reads it at its
    // next step (`lastUser.id < lastAssistant.id` fails).
    let completed = completed_of(m);
    if let (Some(asked), Some(done)) = (created_of(next), completed)
        && asked < done
    {
        return false;
    }
    // The synthetic message an auto-compaction writes to carry on (1.18.33
    // `SessionCompaction.process`: `synthetic:!0`, `metadata:{compaction_continue:!0}`)
    // continues the same loop.
    let texts: Vec<&Value> = next_parts
        .iter()
        .map(|(_, p)| p)
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .collect();
    let synthetic = !texts.is_empty()
        && texts
            .iter()
            .all(|p| p.get("synthetic").and_then(Value::as_bool) == Some(true));
    !synthetic
}

/// Whether a later request leaves assistant message `m` out (1.18.33
/// `toModelMessages`: `if(V.info.error&&!(aborted&&V.parts.some(not step-start
/// or reasoning)))continue`).
fn unsent(m: &Value, parts: &[(String, Value)]) -> bool {
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

/// A message's `time.created`.
fn created_of(m: &Value) -> Option<i64> {
    m.pointer("/time/created").and_then(Value::as_i64)
}

/// A message's `time.completed`, else its `time.created`.
fn completed_of(m: &Value) -> Option<i64> {
    m.pointer("/time/completed")
        .and_then(Value::as_i64)
        .or(created_of(m))
}

/// A message's records as the reader parses them, each with the body the wire
/// sends: a user message's; an assistant message's, and the results after it.
fn records_of(
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
            if let Some(usage) = usage(m) {
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
fn timestamp(ms: Option<i64>) -> Option<String> {
    let ts = chrono::DateTime::from_timestamp_millis(ms?)?;
    Some(ts.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// The compactions that completed, as summary assistant → user message: a
/// summary assistant (`summary: true`, `finish` set, no `error`) whose
/// `parentID` names the user message (1.3.2 `filterCompacted`, reference §1.4).
fn completed_compactions(messages: &[(String, Value)]) -> HashMap<String, String> {
    messages
        .iter()
        .filter(|(_, m)| {
            m.get("role").and_then(Value::as_str) == Some("assistant")
                && m.get("summary").and_then(Value::as_bool) == Some(true)
                && m.get("finish").is_some_and(|f| !f.is_null())
                && m.get("error").is_none_or(Value::is_null)
        })
        .filter_map(|(id, m)| {
            let parent = m.get("parentID").and_then(Value::as_str)?;
            Some((id.clone(), parent.to_string()))
        })
        .collect()
}

/// A user message's blocks as 1.18.33 `toModelMessages` sends them: its
/// texts (not `ignored`, not empty), files (not `text/plain` or
/// `application/x-directory`, whose content is in a text part), a
/// compaction's ask and a subtask's note.
fn user_blocks(parts: &[(String, Value)]) -> Vec<Value> {
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
fn assistant_blocks(
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
pub(super) fn usage_of(m: &Value) -> Option<crate::session::Usage> {
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

/// An assistant message's `tokens` as Messages API usage (SPEC §14, §9a):
/// input (OpenCode's figure leaves the cache out), cache writes and reads, and
/// output with the reasoning tokens (OpenCode bills reasoning at the output
/// price). None when the message has no `tokens` object.
fn usage(m: &Value) -> Option<Value> {
    let t = m.get("tokens").filter(|t| t.is_object())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §2.2 (1.18.33 `SessionPrompt.loop`): when a loop ends with a
    /// response, so that prune runs after it.
    #[test]
    fn s2_2_which_response_ends_a_loop() {
        let at = |finish: Value, error: Value| {
            json!({"role": "assistant", "finish": finish, "error": error,
                "time": {"created": 100, "completed": 200}})
        };
        let user = |created: i64| json!({"role": "user", "time": {"created": created}});
        let prompt = vec![("p".to_string(), json!({"type": "text", "text": "next"}))];
        let cont = vec![(
            "p".to_string(),
            json!({"type": "text", "text": "Continue", "synthetic": true}),
        )];
        let ok = at(json!("stop"), Value::Null);
        let later = user(300);
        // A finished answer, then a prompt written after it: the loop ended.
        assert!(ends_loop(&ok, true, Some(&later), &prompt));
        assert!(ends_loop(&ok, true, None, &[]));
        // A step that asked for tools, or an unknown finish: it goes on.
        assert!(!ends_loop(
            &at(json!("tool-calls"), Value::Null),
            false,
            Some(&later),
            &prompt
        ));
        assert!(!ends_loop(
            &at(json!("unknown"), Value::Null),
            true,
            Some(&later),
            &prompt
        ));
        // A prompt written while it streamed joins the loop.
        assert!(!ends_loop(&ok, true, Some(&user(150)), &prompt));
        // An auto-compaction's synthetic continue carries the loop on.
        assert!(!ends_loop(&ok, true, Some(&later), &cont));
        // A failed step stops the loop; an abort interrupts it (no prune).
        let failed = at(Value::Null, json!({"name": "APIError"}));
        assert!(ends_loop(&failed, false, Some(&later), &prompt));
        let aborted = at(Value::Null, json!({"name": "MessageAbortedError"}));
        assert!(!ends_loop(&aborted, true, Some(&later), &prompt));
        // No `finish` recorded: a response a user message follows ends it.
        let bare = json!({"role": "assistant", "time": {"created": 100, "completed": 200}});
        assert!(ends_loop(&bare, true, Some(&later), &prompt));
        assert!(!ends_loop(&bare, false, Some(&later), &prompt));
    }
}
