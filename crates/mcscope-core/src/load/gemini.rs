//! Gemini CLI chat files (SPEC §14; google-gemini/gemini-cli
//! `services/chatRecordingService.ts`, `utils/sessionUtils.ts`):
//! `~/.gemini/tmp/<project>/chats/session-*.jsonl` (0.39+) and the legacy
//! whole-file `.json` (≤ 0.38).
//!
//! The JSONL file is replayed as the harness's own reader does
//! (`loadConversationRecord`): a repeated message id replaces the earlier
//! record in its place, a `$set.messages` checkpoint rebuilds the list, a
//! `$rewindTo` deletes from that message on. Each `gemini` record with a
//! `model`, at its first appearance, is a response; its request sends the
//! history just before it. A checkpoint that leaves the history as it was but
//! for masked outputs is the harness's masking: the loader keeps the originals
//! (the earlier lines of the append-only file) and records the masking as
//! evidence for the request after it; any other change (a compression, a
//! rewind) starts a new view.

use super::LoadError;
use super::builder::{AssistantRecord, Builder, UserRecord};
use super::claude::fields::{count_warnings, counts_malformed};
use crate::harness::GEMINI;
use crate::harness::gemini_cli as gc;
use crate::session::{
    Diagnostic, Evidence, Format, MakeBody, Part, Role, Session, SessionWarning, ToolCall,
    ToolResult, Usage,
};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;

mod masking;
mod records;
use masking::masking_facts;
use records::{Rec, Records, model_content, owned_model_content};

/// One content of the history as the API is sent it.
#[derive(Debug, Clone)]
struct Content {
    role: Role,
    parts: Vec<Value>,
    ts: Option<String>,
    line: usize,
    /// Where its body is read back from, when it is made of one line of the
    /// file alone (see [`Source`]).
    src: Option<Source>,
}

/// A content of the history as the builder takes it: its parts moved out
/// (the caller keeps no parts of what it gave, `Records::bring`), the rest
/// copied.
fn taken(c: &mut Content) -> Content {
    Content {
        role: c.role,
        parts: std::mem::take(&mut c.parts),
        ts: c.ts.clone(),
        line: c.line,
        src: c.src,
    }
}

/// How a message body is read back (issue 41 item 5: a long session's bodies
/// are not held): the line of the record it is made of (offset and length in
/// the file, a line that parsed as is) and the conversion that makes the body
/// of that record, the same one the loader applied.
type Source = (u64, usize, MakeBody);

/// The body of a `user` (or media `info`) record: its content as parts
/// (`content_parts`, the content moved, not copied).
fn user_body(mut r: Value) -> Value {
    let parts = owned_parts(r.get_mut("content").map(Value::take));
    body_value(Role::User, parts)
}

/// `{"role": …, "parts": parts}`, the parts moved in.
fn body_value(role: Role, parts: Vec<Value>) -> Value {
    object([
        ("role", Value::String(role_name(role).into())),
        ("parts", Value::Array(parts)),
    ])
}

/// An object of these keys and values, in order, the values moved in
/// (`json!` copies what it is given: it serializes it).
fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// The body of a `gemini` record: its model content (`model_content`'s
/// first half, the record's values moved, not copied).
fn model_body(r: Value) -> Value {
    body_value(Role::Assistant, owned_model_content(r).0)
}

/// [`content_parts`] of a content it owns, moved into the parts.
fn owned_parts(v: Option<Value>) -> Vec<Value> {
    match v {
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![object([("text", Value::String(s))])],
        Some(Value::Array(a)) => a
            .into_iter()
            .map(|p| match p {
                Value::String(s) => object([("text", Value::String(s))]),
                other => other,
            })
            .collect(),
        Some(o @ Value::Object(_)) => vec![o],
        _ => Vec::new(),
    }
}

/// A message body: read back from its line where it has one, else held.
fn body(role: Role, parts: &[Value], src: Option<Source>) -> Part {
    let read_back =
        src.and_then(|(offset, len, make)| crate::session::Inline::from_line(offset, len, make));
    Part::Inline(read_back.unwrap_or_else(|| {
        crate::session::Inline::new(json!({"role": role_name(role), "parts": parts}))
    }))
}

/// A part as two histories are compared: masked outputs and thought parts
/// aside, the same content has the same shape.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Text(String),
    Call(String),
    Response(String),
    Other(String),
}

fn shape(c: &Content) -> (Role, Vec<Shape>) {
    let items = c
        .parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .map(|p| {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                Shape::Text(t.to_string())
            } else if let Some(c) = p.get("functionCall") {
                Shape::Call(id_of(c))
            } else if let Some(r) = p.get("functionResponse") {
                Shape::Response(id_of(r))
            } else {
                let mut v = p.clone();
                if let Some(o) = v.as_object_mut() {
                    o.remove("thoughtSignature");
                }
                Shape::Other(v.to_string())
            }
        })
        .collect();
    (c.role, items)
}

/// What the loader keeps of a content it gave the builder: its shape, and
/// whether each of its outputs was masked (its payload is the builder's).
#[derive(Debug, Clone)]
struct Seen {
    shape: (Role, Vec<Shape>),
    masked: Vec<(String, bool)>,
    parts: usize,
}

fn seen(c: &Content) -> Seen {
    Seen {
        shape: shape(c),
        masked: c
            .parts
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .map(|fr| (id_of(fr), gc::is_masked_record(fr)))
            .collect(),
        parts: c.parts.len(),
    }
}

fn id_of(v: &Value) -> String {
    v.get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The output text of a `functionResponse` when it is a string.
fn output_of(fr: &Value) -> Option<&str> {
    fr.get("response")?.get("output")?.as_str()
}

/// The parts of a record's `content` (a string is one text part).
fn content_parts(v: Option<&Value>) -> Vec<Value> {
    owned_parts(v.cloned())
}

/// What one response's usage is (SPEC §15.12): input = input − cached +
/// tool, cache read = cached, output = output + thoughts, no cache writes.
fn usage(t: Option<&Value>) -> Option<Usage> {
    let t = t.filter(|t| t.is_object())?;
    // A count of the wrong shape makes the usage unknown, never 0
    // (`usage_warnings` says which).
    if counts_malformed(t, &TOKEN_FIELDS) {
        return None;
    }
    let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("input")
            .saturating_sub(n("cached"))
            .saturating_add(n("tool")),
        cache_read_input_tokens: n("cached"),
        output_tokens: n("output").saturating_add(n("thoughts")),
        ..Usage::default()
    })
}

/// The counts of a response's `tokens` the bill reads.
const TOKEN_FIELDS: [&str; 5] = ["/input", "/cached", "/tool", "/output", "/thoughts"];

struct Replay {
    b: Builder,
    /// The builder's messages of the current view, as their contents.
    linear: Vec<Seen>,
    /// The message of each response (by record id) and the ids responded.
    response_msg: HashMap<String, usize>,
    /// Originals seen, by tool id (a masked output whose original the file
    /// held earlier is rebuilt from it).
    originals: HashSet<String>,
    /// The line of the last change to the history since the last request.
    changed_at: Option<usize>,
    /// Whether that change was a `$rewindTo` and no checkpoint: a new view
    /// then begins at a rewind, not at a compaction.
    rewound: bool,
    checkpointed: bool,
    /// Masked snippets as the file records them, by tool id (a masking is
    /// recorded once: later histories still hold it).
    recorded_snippets: HashMap<String, String>,
    /// What the masking facts need of each result, in result order, taken
    /// while its part is at hand.
    pending: Vec<Option<masking::Pending>>,
    session_id: Option<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Replay {
    fn new(path: &Path, format: Format) -> Replay {
        let mut b = Builder::new(path, format);
        b.separate_users = true;
        Replay {
            b,
            linear: Vec::new(),
            response_msg: HashMap::new(),
            originals: HashSet::new(),
            changed_at: None,
            rewound: false,
            checkpointed: false,
            recorded_snippets: HashMap::new(),
            pending: Vec::new(),
            session_id: None,
            diagnostics: Vec::new(),
        }
    }

    /// Brings the builder's view to history `h` before a request: what it
    /// adds is appended; masked outputs of the contents it has are a masking;
    /// anything else starts a new view.
    /// False (and nothing done) when `h` is no continuation of the view:
    /// the caller then starts a new one with [`Replay::new_view`].
    fn sync(&mut self, h: &mut [Content], from: usize) -> bool {
        let n = self.linear.len();
        // What comes before `from` is what the last request was compared with.
        let from = from.min(n);
        let same = h.len() >= n && (from..n).all(|i| self.linear[i].shape == shape(&h[i]));
        if !same {
            return false;
        }
        {
            let mut ids = Vec::new();
            for (i, content) in h.iter().enumerate().take(n).skip(from) {
                for p in &content.parts {
                    let Some(fr) = p.get("functionResponse") else {
                        continue;
                    };
                    let id = id_of(fr);
                    let was = self.linear[i]
                        .masked
                        .iter()
                        .find(|(q, _)| *q == id)
                        .map(|(_, m)| *m);
                    if gc::is_masked_record(fr)
                        && was == Some(false)
                        && !self.recorded_snippets.contains_key(&id)
                    {
                        if let Some(o) = output_of(fr) {
                            self.recorded_snippets.insert(id.clone(), o.to_string());
                        }
                        ids.push(id);
                    }
                }
            }
            if !ids.is_empty() {
                let after_request = self.b.s.requests.len();
                self.b.s.evidence.push(Evidence {
                    line: self.changed_at.unwrap_or(0),
                    before_request: after_request + 1,
                    compacted_tool_ids: ids,
                    ids_complete: true,
                    budget_writer: true,
                    pre_tokens: None,
                    tokens_saved: None,
                    uuid: None,
                    after_request,
                    segment: self.b.segment(),
                    mask: true,
                    pruned: false,
                    context_edit: false,
                });
            }
            for c in &mut h[n..] {
                self.push(taken(c));
            }
        }
        self.changed_at = None;
        self.rewound = false;
        self.checkpointed = false;
        true
    }

    /// A history that changed otherwise (a compression, a rewind): a new
    /// view, built from it whole.
    fn new_view(&mut self, h: &mut [Content]) {
        self.b.begin_segment();
        if self.rewound && !self.checkpointed {
            self.b.s.rewind_segments.push(self.b.segment());
        }
        self.linear.clear();
        for c in h {
            self.push(taken(c));
        }
        self.changed_at = None;
        self.rewound = false;
        self.checkpointed = false;
    }

    /// A content of the history that is not a response.
    fn push(&mut self, c: Content) {
        let body = body(c.role, &c.parts, c.src);
        let has_tool_result = c.parts.iter().any(|p| p.get("functionResponse").is_some());
        let idx = match c.role {
            Role::User => self.b.user(UserRecord {
                part: body,
                ts: c.ts.as_deref(),
                line: c.line,
                is_meta: false,
                has_tool_result,
            }),
            Role::Assistant => self
                .b
                .inline(Role::Assistant, body, c.ts.as_deref(), c.line),
        };
        self.parts(idx, &c.parts, c.line, 0);
        self.linear.push(seen(&c));
    }

    /// The calls and results of a message's parts.
    /// `first` is the place of `parts[0]` among the message's parts.
    fn parts(&mut self, idx: usize, parts: &[Value], line: usize, first: usize) {
        for (j, p) in parts.iter().enumerate() {
            let j = first + j;
            if let Some(call) = p.get("functionCall").filter(|c| c.is_object()) {
                let (Some(id), Some(name)) = (
                    call.get("id").and_then(Value::as_str),
                    call.get("name").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let args = call.get("args");
                let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_str);
                self.b.call(ToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    msg: idx,
                    file_path: arg("file_path")
                        .filter(|p| !p.is_empty())
                        .map(str::to_string),
                    legacy_path: arg("absolute_path").map(str::to_string),
                    summary: ["command", "pattern", "url", "query", "dir_path", "path"]
                        .iter()
                        .find_map(|k| arg(k))
                        .map(str::to_string),
                    cwd: None,
                    unparseable: false,
                });
            } else if let Some(fr) = p
                .get("functionResponse")
                .filter(|_| crate::harness::Dialect::Gemini.is_tool_result(p))
            {
                let id = id_of(fr);
                let response = fr.get("response");
                let chars = match output_of(fr) {
                    Some(o) => o.encode_utf16().count() as u64,
                    None => response
                        .filter(|r| !r.is_null())
                        .map_or(0, |r| r.to_string().encode_utf16().count() as u64),
                };
                let media = fr.get("parts").and_then(Value::as_array).map_or(0, |a| {
                    a.iter()
                        .filter(|q| q.get("inlineData").is_some() || q.get("fileData").is_some())
                        .count()
                }) as u32;
                // A masking record: the output Gemini CLI wrote in its place.
                // An output that merely mentions the tag is content (Gemini
                // CLI skips it when it counts; `masking_facts`).
                let is_masked = gc::is_masked_record(fr);
                if is_masked && !self.originals.contains(&id) {
                    self.diagnostics.push(Diagnostic {
                        line,
                        byte_offset: 0,
                        message: format!(
                            "the output of {} is masked and the file holds no original of it: shown as already cleared",
                            crate::sanitize::line(&id)
                        ),
                    });
                }
                if !is_masked {
                    self.originals.insert(id.clone());
                }
                self.pending.push(masking::pending(p, fr, is_masked));
                self.b.result(ToolResult {
                    id,
                    name: fr.get("name").and_then(Value::as_str).map(str::to_string),
                    msg: idx,
                    chars,
                    media,
                    est_tokens: GEMINI.est_tokens(GEMINI.text_tokens.of(chars), media as u64),
                    is_error: response.and_then(|r| r.get("error")).is_some(),
                    // Gemini CLI knows no other placeholder (reference §2.2).
                    already_cleared: is_masked,
                    line,
                    part: j,
                    media_mime: None,
                    memory_bodies: Vec::new(),
                    plain: false,
                    size_unknown: false,
                    source: None,
                });
            }
        }
    }

    /// A response record's usage; a count of the wrong shape is warned
    /// about (once per record line) and the usage is unknown.
    fn usage_of(&mut self, id: &str, r: &Value, line: usize) -> Option<Usage> {
        for text in count_warnings(r.get("tokens"), &TOKEN_FIELDS, &format!("response {id}")) {
            self.b.s.warnings.push(SessionWarning {
                id: super::claude::fields::MALFORMED,
                line: Some(line),
                text,
            });
        }
        usage(r.get("tokens"))
    }

    /// A response: its request sends history `h`. `at` is where the
    /// record's line is, when it parsed from there as is.
    fn respond(&mut self, id: &str, r: &Value, line: usize, at: Option<(u64, usize)>) {
        let (parts, _) = model_content(r);
        let ts = r.get("timestamp").and_then(Value::as_str);
        let usage = self.usage_of(id, r, line);
        let src = at.map(|(offset, len)| (offset, len, model_body as MakeBody));
        let idx = self.b.assistant(AssistantRecord {
            part: body(Role::Assistant, &parts, src),
            ts,
            line,
            response_id: None,
            request_id: None,
            model: r.get("model").and_then(Value::as_str),
            usage,
            applied_edits: None,
            context_client: None,
            parent_uuid: None,
        });
        self.parts(idx, &parts, line, 0);
        self.response_msg.insert(id.to_string(), idx);
        self.linear.push(seen(&Content {
            role: Role::Assistant,
            parts,
            ts: ts.map(str::to_string),
            line,
            src,
        }));
    }

    /// A response record written again (its `toolCalls` added): the message
    /// takes the calls while it is the last one.
    fn rewritten(&mut self, id: &str, r: &Value, line: usize, at: Option<(u64, usize)>) {
        let Some(&idx) = self.response_msg.get(id) else {
            return;
        };
        // The response is written again once its usage arrives: the last
        // copy's usage wins (chatRecordingService.ts `recordMessageTokens`).
        if let Some(u) = self.usage_of(id, r, line) {
            self.b.s.messages[idx].usage = Some(Box::new(u));
        }
        let (parts, _) = model_content(r);
        let Some(last) = self.linear.last() else {
            return;
        };
        if idx + 1 != self.b.s.messages.len() || last.shape.0 != Role::Assistant {
            return;
        }
        let before = &last.shape.1;
        let src = at.map(|(offset, len)| (offset, len, model_body as MakeBody));
        let now = Content {
            role: Role::Assistant,
            parts: parts.clone(),
            ts: None,
            line,
            src,
        };
        let after = shape(&now).1;
        if after.len() <= before.len() || after[..before.len()] != before[..] {
            return;
        }
        let old_len = last.parts;
        self.b.s.messages[idx].parts = vec![body(Role::Assistant, &parts, src)];
        // The added parts keep their place after the first ones.
        self.parts(idx, &parts[old_len..], line, old_len);
        if let Some(last) = self.linear.last_mut() {
            *last = seen(&now);
        }
    }
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => "model",
    }
}

/// The replay's state between records: the records as the harness holds
/// them, the responses seen, and whether the file is a sub-agent's.
#[derive(Default)]
struct Walk {
    records: Records,
    responded: HashSet<String>,
    subagent: bool,
}

impl Walk {
    /// One record of the file, read at `line` (as is from `src`, offset and
    /// length in the file, when Some).
    fn apply(&mut self, rp: &mut Replay, line: usize, v: Value, src: Option<(u64, usize)>) {
        rp.b.s.records += 1;
        // loadConversationRecord's order of tests.
        if let Some(to) = v.get("$rewindTo").and_then(Value::as_str) {
            let at = self.records.index.get(to).copied().unwrap_or(0);
            self.records.truncate(at);
            rp.changed_at = Some(line);
            rp.rewound = true;
        } else if let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_string) {
            let id = id.as_str();
            let is_response = v.get("type").and_then(Value::as_str) == Some("gemini")
                && v.get("model").is_some_and(Value::is_string)
                && !self.responded.contains(id);
            if is_response {
                self.responded.insert(id.to_string());
                // A copy of the record written before it had its model is no
                // part of what its request sent.
                let end = self
                    .records
                    .index
                    .get(id)
                    .copied()
                    .unwrap_or(self.records.list.len());
                self.records.bring(rp, end);
                rp.respond(id, &v, line, src);
            } else if self.responded.contains(id) && self.records.index.contains_key(id) {
                rp.rewritten(id, &v, line, src);
            }
            if self.records.set(id, Rec::new(v, src), line) && !is_response {
                rp.changed_at = Some(line);
            }
        } else if let Some(set) = v.get("$set").filter(|s| s.is_object()) {
            if let Some(sid) = set.get("sessionId").and_then(Value::as_str) {
                rp.session_id = Some(sid.to_string());
            }
            if let Some(msgs) = set.get("messages").and_then(Value::as_array) {
                self.records.rebuild(
                    msgs.iter()
                        .filter_map(|m| {
                            let id = m.get("id").and_then(Value::as_str)?;
                            Some((id.to_string(), Rec::new(m.clone(), None), line))
                        })
                        .collect(),
                );
                rp.changed_at = Some(line);
                rp.checkpointed = true;
            }
        } else if let (Some(sid), Some(_)) = (
            v.get("sessionId").and_then(Value::as_str),
            v.get("projectHash").and_then(Value::as_str),
        ) {
            rp.session_id.get_or_insert_with(|| sid.to_string());
            if rp.b.s.session_id.is_none() {
                rp.b.s.session_id = Some(sid.to_string());
            }
            self.subagent |= v.get("kind").and_then(Value::as_str) == Some("subagent");
        }
    }
}

/// The largest line buffer kept from one line to the next.
const LINE_BUFFER_KEPT: usize = 4 << 20;

/// What a Gemini CLI file is read from.
pub(super) enum Input<'a> {
    /// One whole legacy record, its text.
    Whole(&'a str),
    /// JSON Lines, read line by line from the file's position (the bytes
    /// read so far are told to `progress`).
    Lines(std::fs::File, &'a std::sync::atomic::AtomicU64),
}

/// Loads a Gemini CLI file of `format`: one whole legacy record, or JSON
/// Lines.
pub(super) fn load(path: &Path, input: Input<'_>, format: Format) -> Result<Session, LoadError> {
    let mut rp = Replay::new(path, format);
    let mut walk = Walk::default();
    // What parsing says comes first, as when every line was parsed before
    // the first was replayed.
    let mut notes: Vec<Diagnostic> = Vec::new();
    match input {
        Input::Whole(text) => {
            let items: Vec<(usize, Value)> = {
                let whole = text.trim_start_matches('\u{feff}');
                let v: Value = serde_json::from_str(whole)
                    .or_else(|e| {
                        if !super::deep::too_deep(&e) {
                            return Err(e);
                        }
                        // Deeper than serde's limit: read as `JSON.parse` reads it.
                        super::deep::parse(whole).map(|(v, n)| {
                            notes.push(super::deep::note(1, n));
                            v
                        })
                    })
                    .map_err(|e| LoadError::UnknownFormat {
                        path: path.to_path_buf(),
                        why: format!("not a Gemini CLI session: {e}"),
                    })?;
                // The whole record: its header, then each message in order.
                let mut out = vec![(1, v.clone())];
                for m in v
                    .get("messages")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.push((1, m.clone()));
                }
                out
            };
            for (line, v) in items {
                walk.apply(&mut rp, line, v, None);
            }
        }
        Input::Lines(file, progress) => {
            use std::io::{BufRead, Seek};
            let io = |source| LoadError::Io {
                path: path.to_path_buf(),
                source,
            };
            // Lines are read again through a handle of their own (without
            // one, every record stays parsed).
            walk.records.file = file.try_clone().ok();
            let reread = walk.records.file.is_some();
            let mut reader = std::io::BufReader::new(&file);
            let start = reader.stream_position().map_err(io)?;
            let mut at = start;
            let mut bytes = Vec::new();
            // Line by line: the file is never held whole (issue 41 item 5).
            for i in 0.. {
                bytes.clear();
                let n = reader.read_until(b'\n', &mut bytes).map_err(io)?;
                if n == 0 {
                    break;
                }
                let line_at = at;
                at += n as u64;
                progress.store(at - start, std::sync::atomic::Ordering::Relaxed);
                let raw = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
                // As the whole file's text split at each newline (a newline
                // never belongs to a malformed UTF-8 sequence).
                let text = String::from_utf8_lossy(raw);
                let l = text.trim_end_matches('\r');
                let l = if i == 0 {
                    l.trim_start_matches('\u{feff}')
                } else {
                    l
                };
                if l.trim().is_empty() {
                    continue;
                }
                // Where `l` is in the file, when it is the file's bytes.
                let span = (reread && matches!(text, std::borrow::Cow::Borrowed(_))).then(|| {
                    let skip = l.as_ptr() as usize - text.as_ptr() as usize;
                    (line_at + skip as u64, l.len())
                });
                // Gemini CLI itself writes a lone surrogate (its preview cuts a
                // string at 250 UTF-16 units); `JSON.parse` reads it, so the
                // line is read with it made U+FFFD, as the other loaders do.
                // The line is kept to be parsed again only when it parsed as is.
                let mut src = span;
                let parsed = serde_json::from_str::<Value>(l).or_else(|e| {
                    src = None;
                    // Deeper than serde's limit: read as `JSON.parse` reads it,
                    // with the deepest values cut (`deep`).
                    if super::deep::too_deep(&e) {
                        return super::deep::parse(l).map(|(v, n)| {
                            notes.push(super::deep::note(i + 1, n));
                            v
                        });
                    }
                    match super::surrogate::repair(l) {
                        Some((fixed, f)) => serde_json::from_str::<Value>(&fixed)
                            .inspect(|_| {
                                notes.push(Diagnostic {
                                    line: i + 1,
                                    byte_offset: 0,
                                    message: super::surrogate_note(f),
                                });
                            })
                            .map_err(|_| e),
                        None => Err(e),
                    }
                });
                // A long line's buffer is not kept for the lines after it
                // (one output may be hundreds of MB).
                if bytes.capacity() > LINE_BUFFER_KEPT {
                    bytes = Vec::new();
                }
                match parsed {
                    Ok(v) if v.is_object() => walk.apply(&mut rp, i + 1, v, src),
                    Ok(_) => notes.push(Diagnostic {
                        line: i + 1,
                        byte_offset: 0,
                        message: "not a JSON object: skipped".into(),
                    }),
                    Err(e) => notes.push(Diagnostic {
                        line: i + 1,
                        byte_offset: 0,
                        message: format!(
                            "line skipped: {} (Gemini CLI skips a line JSON.parse refuses; it reads a few that mcscope's parser refuses: numbers beyond the double range)",
                            super::json_error_text(&e)
                        ),
                    }),
                }
            }
        }
    }
    // What follows the last response is one more request's.
    let end = walk.records.list.len();
    walk.records.bring(&mut rp, end);
    let Walk {
        mut records,
        subagent,
        ..
    } = walk;
    // The bodies read back from the file are read through this handle while
    // loading (the file the session was read from, whatever its path is now).
    let file = records.file.take();
    drop(records);
    let mut diagnostics = notes;
    diagnostics.append(&mut rp.diagnostics);
    let snippets = std::mem::take(&mut rp.recorded_snippets);
    let pending = std::mem::take(&mut rp.pending);
    let sid = rp.session_id.clone();
    let mut s = rp.b.finish(diagnostics);
    s.subagent_what_if = subagent;
    let source = file
        .as_ref()
        .map(|f| crate::load::readback::Source::lent(f, &s.path));
    masking_facts(&mut s, pending, source.as_ref(), &snippets, sid.as_deref());
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41 item 5: a body read back is made of its record by moving the
    /// record's values, and is what reference §1.3 says: a content's parts (a
    /// string is one text part, an object one part), the model content of a
    /// `gemini` record, which takes its calls from `toolCalls` only when the
    /// content has no call or thought part, their results following apart.
    #[test]
    fn a_body_read_back_is_the_body_the_loader_made() {
        let contents = [
            (json!(""), json!([])),
            (json!("plain"), json!([{"text": "plain"}])),
            (
                json!(["a", {"text": "b"}, {"functionCall": {"id": "c", "name": "n", "args": {}}}]),
                json!([{"text": "a"}, {"text": "b"}, {"functionCall": {"id": "c", "name": "n", "args": {}}}]),
            ),
            (
                json!({"text": "one object"}),
                json!([{"text": "one object"}]),
            ),
            (json!(null), json!([])),
            (json!(7), json!([])),
        ];
        for (content, parts) in &contents {
            let user = json!({"type": "user", "id": "u", "content": content});
            assert_eq!(
                json!(content_parts(user.get("content"))),
                *parts,
                "{content}"
            );
            assert_eq!(
                user_body(user),
                json!({"role": "user", "parts": parts}),
                "{content}"
            );
        }
        assert_eq!(
            user_body(json!({"type": "user"})),
            json!({"role": "user", "parts": []})
        );

        let fr = |id: &str| json!({"functionResponse": {"id": id, "response": {"output": "o"}}});
        let calls = json!([
            {"id": "w", "name": "run", "args": {"command": "ls"}, "result": [fr("w"), "text"]},
            {"id": "v", "result": fr("v")},
            "not an object",
        ]);
        let call = |id: Value, name: Value, args: Value| json!({"functionCall": {"id": id, "name": name, "args": args}});
        let legacy = json!({"type": "gemini", "id": "g", "model": "m", "content": "said", "toolCalls": calls});
        let model = json!([
            {"text": "said"},
            call(json!("w"), json!("run"), json!({"command": "ls"})),
            call(json!("v"), Value::Null, json!({})),
            call(Value::Null, Value::Null, json!({})),
        ]);
        let results = json!([fr("w"), {"text": "text"}, fr("v")]);
        for (model_of, results_of) in [model_content(&legacy), owned_model_content(legacy.clone())]
        {
            assert_eq!(json!(model_of), model);
            assert_eq!(json!(results_of), results);
        }
        assert_eq!(model_body(legacy), json!({"role": "model", "parts": model}));
        // A call or a thought in the content: `toolCalls` adds nothing.
        for content in [
            json!([{"functionCall": {"id": "c", "name": "n", "args": {}}}]),
            json!([{"thought": true, "text": "t"}, {"text": "u"}]),
        ] {
            let g = json!({"type": "gemini", "content": content, "toolCalls": calls});
            assert_eq!(model_body(g), json!({"role": "model", "parts": content}));
        }
        // `toolCalls` not a list: none.
        let g = json!({"type": "gemini", "content": "x", "toolCalls": "not a list"});
        assert_eq!(
            model_body(g),
            json!({"role": "model", "parts": [{"text": "x"}]})
        );
    }
}
