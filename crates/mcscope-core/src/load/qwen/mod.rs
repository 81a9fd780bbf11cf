//! Qwen Code chat records (`~/.qwen/projects/<root>/chats/<session>.jsonl`).
//! See `shared/reference/qwen-code-jsonl.md`.

use super::RecordSink;
use super::builder::{AssistantRecord, Builder, UserRecord};
use super::claude::fields::{self, Warnings};
use super::raw::{self, Raw};
use crate::session::{
    Diagnostic, Format, Part, Role, Send, SendKind, Session, SessionWarning, ToolCall, ToolResult,
    Usage,
};
use serde::Deserialize;
use std::path::Path;

use crate::harness::QWEN;

mod send;

use send::is_api_completion;

mod records;
use records::*;

#[derive(Clone)]
pub(super) struct Sink {
    b: Builder,
    what_if: Option<bool>,
    send: SendState,
    /// The message the last user-role record went to, and its parts so far.
    msg_parts: (usize, usize),
}

/// What the send kind, now(k) and the idle gap of the next request read (SPEC §2).
#[derive(Clone, Default)]
struct SendState {
    last_version: Option<String>,
    process: usize,
    /// The last assistant record or API response / error telemetry in this
    /// process segment (ms).
    last_completion: Option<i64>,
    /// The last record of any type: its timestamp, and the completion before it.
    last_record: Option<(Option<i64>, Option<String>, Option<i64>)>,
    /// The user-role records since the last assistant record, in the view.
    inputs: Vec<SeenInput>,
    /// Whether the last response held a functionCall.
    last_response_called: bool,
    last_non_hook: Option<SendKind>,
}

#[derive(Clone)]
struct SeenInput {
    input: Input,
    ts_ms: Option<i64>,
    ts: Option<String>,
    completion_before: Option<i64>,
}

/// A user-role record as the send rules see it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Input {
    pub tool_result: bool,
    pub subtype: Option<String>,
    pub delivered: bool,
}

impl Sink {
    pub(super) fn new(path: &Path, format: Format) -> Sink {
        Sink {
            b: Builder::new(path, format),
            what_if: None,
            send: SendState::default(),
            msg_parts: (usize::MAX, 0),
        }
    }
}

/// The base fields every record carries that the send rules read.
pub(super) struct Head {
    sidechain: bool,
    ts: Option<String>,
    version: Option<String>,
    forked: bool,
    /// `uuid` and `parentUuid`, and whether the record is a `rewind` or
    /// `branch_checkpoint` (SPEC §2 rewinds).
    link: (Option<super::branches::Key>, Option<super::branches::Key>),
    rewind: bool,
}

/// One part of a message, as plans see it.
pub(super) enum PartRec {
    Call(ToolCall),
    Result(ToolResult),
    /// Top-level media: its place among the record's parts, and its mime type.
    Media(usize, String),
}

/// What one line contributes, owned, so lines can be parsed in parallel.
pub(super) enum Rec {
    Message {
        kind: Kind,
        head: Head,
        model: Option<String>,
        usage: Option<Usage>,
        parts: Vec<PartRec>,
        /// How many parts the record's message holds (for the parts' places).
        part_count: usize,
        has_tool_result: bool,
        /// The written size of `message.parts`.
        piece: Option<crate::session::PieceLen>,
        input: Input,
        /// Fields that could not be read as written (SPEC §15.2).
        warnings: Vec<String>,
    },
    Compression {
        head: Head,
        entries: Vec<(Role, serde_json::Value, Vec<PartRec>)>,
    },
    /// Any other record: its time counts for a hook's now(k); an API response or
    /// error telemetry record is a completion.
    Other { head: Head, completion: bool },
    /// `realtime_message` records are never in model history, nor a time (SPEC
    /// §2); only their link is kept, for a chain that runs through one.
    Dropped(Head),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    User,
    Assistant,
}

impl RecordSink for Sink {
    type Rec = Rec;

    fn parse(text: &str) -> Result<Rec, String> {
        let rec: Line = serde_json::from_str(text).map_err(super::json_error)?;
        let kind = raw::string(rec.kind);
        let subtype = raw::owned(rec.subtype);
        let head = Head {
            sidechain: raw::is_true(rec.sidechain),
            ts: raw::owned(rec.timestamp),
            version: raw::owned(rec.version),
            forked: !raw::is_null_or_absent(rec.forked),
            link: (
                super::branches::key(rec.uuid),
                super::branches::key(rec.parent_uuid),
            ),
            rewind: kind.as_deref() == Some("system")
                && matches!(subtype.as_deref(), Some("rewind" | "branch_checkpoint")),
        };
        let cwd = raw::owned(rec.cwd);
        let mut warnings = Warnings::default();
        if subtype.as_deref() == Some("realtime_message") {
            return Ok(Rec::Dropped(head));
        }
        Ok(match kind.as_deref().unwrap_or("") {
            k @ ("user" | "tool_result" | "assistant") => {
                let content: Content =
                    raw::object(rec.message).ok_or("record without a message object")?;
                let elements = raw::elements(content.parts);
                let parts = parts(&elements, cwd.as_deref(), &mut warnings);
                let has_tool_result = parts.iter().any(|p| matches!(p, PartRec::Result(_)));
                let assistant = k == "assistant";
                Rec::Message {
                    kind: if assistant {
                        Kind::Assistant
                    } else {
                        Kind::User
                    },
                    head,
                    model: raw::owned(rec.model),
                    usage: if assistant {
                        usage(rec.usage, &mut warnings)
                    } else {
                        None
                    },
                    parts,
                    part_count: elements.len(),
                    has_tool_result,
                    piece: super::jsonlen::content_piece(text, crate::harness::QWEN.wire.content),
                    input: Input {
                        tool_result: k == "tool_result",
                        subtype,
                        delivered: raw::is_true(rec.delivered),
                    },
                    warnings: warnings.0,
                }
            }
            "system" if subtype.as_deref() == Some("chat_compression") => Rec::Compression {
                head,
                entries: compressed_history(rec.payload, cwd.as_deref()),
            },
            "system" if subtype.as_deref() == Some("ui_telemetry") => Rec::Other {
                head,
                completion: is_api_completion(rec.payload),
            },
            _ => Rec::Other {
                head,
                completion: false,
            },
        })
    }

    fn apply(&mut self, rec: Rec, line: usize, offset: u64, len: usize) {
        self.b.s.records += 1;
        let head = match &rec {
            Rec::Message { head, .. } | Rec::Compression { head, .. } | Rec::Other { head, .. } => {
                head
            }
            Rec::Dropped(head) => {
                if head.sidechain == self.what_if.unwrap_or(false) {
                    self.b.link(head.link.0, head.link.1);
                }
                return;
            }
        };
        if matches!(rec, Rec::Message { .. }) && self.what_if.is_none() {
            self.what_if = Some(head.sidechain);
        }
        if head.sidechain != self.what_if.unwrap_or(false) {
            if let Rec::Message {
                parts,
                usage,
                model,
                ..
            } = &rec
            {
                // Billed, never simulated (SPEC §9a): each assistant record is one response.
                if let Some(u) = usage {
                    self.b.s.sidechain_usage.push(crate::session::UsageLine {
                        message_id: None,
                        request_id: None,
                        model: model.clone(),
                        usage: u.clone(),
                        at: None,
                        line: 0,
                        agent: None,
                        path: None,
                    });
                }
                self.b.s.sidechain_records += 1;
                self.b.s.sidechain_calls += parts
                    .iter()
                    .filter(|p| matches!(p, PartRec::Call(_)))
                    .count();
            }
            return;
        }
        let ts_ms = head.ts.as_deref().and_then(raw::timestamp_ms);
        let ts_text = ts_ms.and(head.ts.clone());
        let version = head.version.clone();
        let link = head.link;
        self.b.tree.marked |= head.rewind;
        self.send.enter(head);
        let completion_before = self.send.last_completion;
        match rec {
            Rec::Message {
                kind,
                head,
                model,
                usage,
                parts,
                part_count,
                has_tool_result,
                piece,
                input,
                warnings,
            } => {
                self.b
                    .s
                    .warnings
                    .extend(warnings.into_iter().map(|text| SessionWarning {
                        id: fields::MALFORMED,
                        line: Some(line),
                        text,
                    }));
                let ts = head.ts;
                let part = Part::Record {
                    offset,
                    len,
                    piece,
                    result_sizes: Box::default(),
                    kinds: None,
                };
                let idx = match kind {
                    Kind::User => {
                        self.send.inputs.push(SeenInput {
                            input,
                            ts_ms,
                            ts: ts.clone(),
                            completion_before,
                        });
                        self.b.user(UserRecord {
                            part,
                            ts: ts.as_deref(),
                            line,
                            is_meta: false,
                            has_tool_result,
                        })
                    }
                    // Each Qwen assistant record is one response (SPEC §2).
                    Kind::Assistant => {
                        let send = self.send.next_request();
                        let called = parts.iter().any(|p| matches!(p, PartRec::Call(_)));
                        let idx = self.b.assistant(AssistantRecord {
                            part,
                            ts: ts.as_deref(),
                            line,
                            response_id: None,
                            request_id: None,
                            model: model.as_deref(),
                            usage,
                            applied_edits: None,
                            context_client: None,
                            parent_uuid: None,
                        });
                        self.send.stamp(self.b.s.requests.last_mut(), send);
                        self.send.last_response_called = called;
                        self.send.last_completion = ts_ms;
                        idx
                    }
                };
                // A message's parts follow on from its earlier records' parts.
                let offset = match self.msg_parts {
                    (m, n) if m == idx => n,
                    _ => 0,
                };
                self.msg_parts = (idx, offset + part_count);
                self.push_parts(idx, parts, line, offset);
            }
            Rec::Compression { head, entries } => {
                // The view restarts with the record's compressedHistory (SPEC §2).
                self.b.begin_segment();
                self.send.inputs.clear();
                for (role, value, parts) in entries {
                    let idx = self.b.inline(
                        role,
                        Part::Inline(crate::session::Inline::new(value)),
                        head.ts.as_deref(),
                        line,
                    );
                    self.push_parts(idx, parts, line, 0);
                }
            }
            Rec::Other { completion, .. } => {
                if completion {
                    self.send.last_completion = ts_ms;
                }
            }
            Rec::Dropped(_) => {}
        }
        self.b.link(link.0, link.1);
        self.send.last_record = Some((ts_ms, ts_text, completion_before));
        // After the record: a response's own version is not "before" its request.
        self.b.version(version.as_deref());
    }

    fn finish(mut self, diagnostics: Vec<Diagnostic>) -> Session {
        let what_if = self.what_if == Some(true);
        let before = self.b.s.requests.len();
        let send = self.send.next_request();
        let mut s = self.b.finish(diagnostics);
        if s.requests.len() > before {
            self.send.stamp(s.requests.last_mut(), send);
        }
        s.subagent_what_if = what_if;
        s
    }
}

impl Sink {
    fn push_parts(&mut self, idx: usize, parts: Vec<PartRec>, line: usize, offset: usize) {
        for p in parts {
            match p {
                PartRec::Call(mut c) => {
                    c.msg = idx;
                    self.b.call(c);
                }
                PartRec::Result(mut r) => {
                    r.msg = idx;
                    r.line = line;
                    r.part += offset;
                    self.b.result(r);
                }
                PartRec::Media(at, mime) => self.b.media(idx, offset + at, mime),
            }
        }
    }
}

fn compressed_history(
    payload: Raw<'_>,
    cwd: Option<&str>,
) -> Vec<(Role, serde_json::Value, Vec<PartRec>)> {
    #[derive(Deserialize)]
    struct Payload<'a> {
        #[serde(rename = "compressedHistory", borrow, default)]
        history: Raw<'a>,
    }
    let Some(payload) = raw::object::<Payload>(payload) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in raw::elements(payload.history) {
        let Ok(content) = serde_json::from_str::<Content>(entry.get()) else {
            continue;
        };
        let role = match raw::string(content.role).as_deref() {
            Some("model") => Role::Assistant,
            _ => Role::User,
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(entry.get()) else {
            continue;
        };
        // The history repeats parts the file held before: warned about there.
        let mut repeated = Warnings::default();
        let parts = parts(&raw::elements(content.parts), cwd, &mut repeated);
        out.push((role, value, parts));
    }
    out
}

/// The calls, results and top-level media of one message's parts (message index
/// and line are filled in when applied).
fn parts(parts: &[raw::Json<'_>], cwd: Option<&str>, w: &mut Warnings) -> Vec<PartRec> {
    let mut out = Vec::new();
    for (at, p) in parts.iter().enumerate() {
        let text = p.get();
        // The warnings of the reading that counts: the fallback's when it runs.
        let mut first = Warnings::default();
        let mut again = None;
        let rec = part(text, cwd, &mut first).or_else(|| {
            // A part that repeats a key is read as the wire builder reads it (the
            // last value wins), so that both count the same parts.
            let keyed = [
                "\"functionCall\"",
                "\"functionResponse\"",
                "\"inlineData\"",
                "\"fileData\"",
            ];
            if !keyed.iter().any(|k| text.contains(k)) {
                return None;
            }
            let v = serde_json::from_str::<serde_json::Value>(text).ok()?;
            let mut second = Warnings::default();
            let rec = part(&v.to_string(), cwd, &mut second);
            again = Some(second);
            rec
        });
        w.0.extend(again.unwrap_or(first).0);
        out.extend(rec.map(|r| match r {
            PartRec::Result(mut res) => {
                res.part = at;
                PartRec::Result(res)
            }
            PartRec::Media(_, mime) => PartRec::Media(at, mime),
            call => call,
        }));
    }
    out
}

/// One part as plans see it: a call, a result, top-level media, or nothing.
/// Qwen Code's name for a recorded tool name (SPEC §3, `tools/tool-names.ts`):
/// a legacy alias's name now (exact), else the known tool of that name in any
/// case (`Read_File` is `read_file`); anything else (display names, the empty
/// string) stays as it is and is never compactable.
pub(crate) fn tool_name(name: &str) -> &str {
    let name = QWEN.canonical(name);
    QWEN.known_ignoring_case(name).unwrap_or(name)
}

fn part(text: &str, cwd: Option<&str>, w: &mut Warnings) -> Option<PartRec> {
    let f = serde_json::from_str::<PartFields>(text).ok()?;
    if let Some(call) = raw::object::<Call>(f.call) {
        let (Some(id), Some(name)) = (raw::owned(call.id), raw::owned(call.name)) else {
            let (field, v) = match raw::owned(call.id) {
                None => ("id", call.id),
                Some(_) => ("name", call.name),
            };
            w.push(format!(
                "a functionCall's {field} is {}, not a string; the call is left out",
                v.map_or("absent".into(), fields::describe)
            ));
            return None;
        };
        let mut name = tool_name(&name).to_string();
        let mut args: Option<Args> = raw::object(call.args);
        let mut unparseable = false;
        if Some(name.as_str()) == QWEN.tools.bridge_tool {
            // A bridged deferred tool (SPEC §3): the call is its target, with the
            // target's arguments (none when they are not an object).
            match args.as_ref().and_then(|a| raw::string(a.name)) {
                Some(target) => {
                    name = tool_name(&target).to_string();
                    args = args.and_then(|a| raw::object(a.arguments));
                }
                None => {
                    unparseable = true;
                    args = None;
                }
            }
        }
        let (file_path, legacy_path, summary) = match &args {
            Some(a) => (
                raw::owned(a.file_path),
                raw::owned(a.absolute_path),
                [a.command, a.pattern, a.url, a.query, a.path]
                    .into_iter()
                    .find_map(raw::owned),
            ),
            None => (None, None, None),
        };
        return Some(PartRec::Call(ToolCall {
            id,
            name,
            msg: 0,
            // Qwen reads only a non-empty `file_path`.
            file_path: file_path.filter(|p| !p.is_empty()),
            legacy_path,
            summary,
            cwd: cwd.map(str::to_string),
            unparseable,
        }));
    } else if let Some(resp) = raw::object::<Response>(f.response) {
        let Some(id) = raw::owned(resp.id) else {
            w.push(format!(
                "a functionResponse's id is {}, not a string; the result is left out",
                resp.id.map_or("absent".into(), fields::describe)
            ));
            return None;
        };
        let body: Option<ResponseBody> = raw::object(resp.response);
        let output = body.as_ref().and_then(|b| b.output);
        let chars = raw::utf16_len(output).unwrap_or(0);
        // Media nested in the response (an image read, an MCP screenshot).
        let nested: Vec<String> = raw::elements(resp.parts)
            .iter()
            .filter_map(|p| media_mime(&serde_json::from_str::<PartFields>(p.get()).ok()?))
            .collect();
        let media = nested.len() as u32;
        return Some(PartRec::Result(ToolResult {
            id,
            name: raw::string(resp.name).map(|n| tool_name(&n).to_string()),
            msg: 0,
            chars,
            media,
            est_tokens: QWEN.est_tokens(QWEN.text_tokens.of(chars), media as u64),
            is_error: body.as_ref().is_some_and(|b| b.error.0),
            already_cleared: raw::is_placeholder(output),
            line: 0,
            part: 0,
            media_mime: nested.into_iter().next(),
            memory_bodies: memory_bodies(output),
            plain: false,
            size_unknown: false,
            source: None,
        }));
    } else if let Some(mime) = media_mime(&f) {
        return Some(PartRec::Media(0, mime));
    }
    None
}

/// The memory bodies an output names: when the output is JSON with `mode`
/// `fetch` or `search`, every `{memoryRef, mtimeMs}` object in it. (The output's
/// shape is not in the recorded examples; this follows SPEC §3's rule.)
fn memory_bodies(output: Raw<'_>) -> Vec<(String, serde_json::Value)> {
    let Some(text) = output.map(|o| o.get()) else {
        return Vec::new();
    };
    if memchr::memmem::find(text.as_bytes(), b"memoryRef").is_none() {
        return Vec::new();
    }
    let Some(inner) = raw::string(output) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&inner) else {
        return Vec::new();
    };
    if !matches!(
        v.get("mode").and_then(|m| m.as_str()),
        Some("fetch" | "search")
    ) {
        return Vec::new();
    }
    fn walk(v: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                if let (Some(r), Some(t)) = (
                    m.get("memoryRef").and_then(|r| r.as_str()),
                    m.get("mtimeMs"),
                ) && t.is_number()
                {
                    out.push((r.to_string(), t.clone()));
                }
                m.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&v, &mut out);
    out
}

/// A response's usage; a counter of the wrong shape makes it unknown, with a
/// warning (as the Claude loader does).
fn usage(v: Raw<'_>, w: &mut Warnings) -> Option<Usage> {
    let v = v?;
    let Ok(u) = serde_json::from_str::<RawUsage>(v.get()) else {
        w.push(format!(
            "usageMetadata is {}, not a usage object; the response's usage is unknown",
            fields::describe(v)
        ));
        return None;
    };
    const UNKNOWN: &str = "the response's usage is unknown";
    let mut readable = true;
    let mut one = |field: &str, raw: Raw<'_>| {
        let n = w.count(&format!("usageMetadata.{field}"), raw, UNKNOWN);
        readable &= n.is_some() || fields::count(raw) == fields::Count::Absent;
        n.unwrap_or(0)
    };
    let prompt = one("promptTokenCount", u.prompt);
    let cached = one("cachedContentTokenCount", u.cached);
    let output = one("candidatesTokenCount", u.candidates);
    readable.then(|| Usage {
        input_tokens: prompt.saturating_sub(cached),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
        output_tokens: output,
        ..Usage::default()
    })
}
