//! Qwen Code chat records (`~/.qwen/projects/<root>/chats/<session>.jsonl`).
//! See `shared/reference/qwen-code-jsonl.md`.

use super::RecordSink;
use super::builder::{AssistantRecord, Builder, UserRecord};
use super::raw::{self, Raw};
use crate::session::{Diagnostic, Format, Part, Role, Session, ToolCall, ToolResult, Usage};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::path::Path;

/// Qwen counts 1600 tokens per inline media part.
pub const MEDIA_TOKENS: u64 = 1600;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Raw<'a>,
    #[serde(borrow, default)]
    subtype: Raw<'a>,
    #[serde(rename = "isSidechain", borrow, default)]
    sidechain: Raw<'a>,
    #[serde(borrow, default)]
    timestamp: Raw<'a>,
    #[serde(borrow, default)]
    cwd: Raw<'a>,
    #[serde(borrow, default)]
    model: Raw<'a>,
    #[serde(borrow, default)]
    message: Raw<'a>,
    #[serde(rename = "usageMetadata", borrow, default)]
    usage: Raw<'a>,
    #[serde(rename = "systemPayload", borrow, default)]
    payload: Raw<'a>,
    #[serde(borrow, default)]
    version: Raw<'a>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, default)]
    role: Raw<'a>,
    #[serde(borrow, default)]
    parts: Raw<'a>,
}

#[derive(Deserialize)]
struct PartFields<'a> {
    #[serde(rename = "functionCall", borrow, default)]
    call: Raw<'a>,
    #[serde(rename = "functionResponse", borrow, default)]
    response: Raw<'a>,
    #[serde(rename = "inlineData", borrow, default)]
    inline_data: Raw<'a>,
}

#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    name: Raw<'a>,
    #[serde(borrow, default)]
    args: Raw<'a>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(borrow, default)]
    file_path: Raw<'a>,
    #[serde(borrow, default)]
    absolute_path: Raw<'a>,
    #[serde(borrow, default)]
    command: Raw<'a>,
    #[serde(borrow, default)]
    pattern: Raw<'a>,
    #[serde(borrow, default)]
    url: Raw<'a>,
    #[serde(borrow, default)]
    query: Raw<'a>,
    #[serde(borrow, default)]
    path: Raw<'a>,
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    name: Raw<'a>,
    #[serde(borrow, default)]
    response: Raw<'a>,
    #[serde(borrow, default)]
    parts: Raw<'a>,
}

#[derive(Deserialize)]
struct ResponseBody<'a> {
    #[serde(borrow, default)]
    output: Raw<'a>,
    #[serde(borrow, default)]
    error: Raw<'a>,
}

#[derive(Deserialize)]
struct InlineData<'a> {
    #[serde(rename = "mimeType", borrow, default)]
    mime: Raw<'a>,
}

#[derive(Deserialize, Default)]
struct RawUsage {
    #[serde(rename = "promptTokenCount", default)]
    prompt: Option<u64>,
    #[serde(rename = "candidatesTokenCount", default)]
    candidates: Option<u64>,
    #[serde(rename = "cachedContentTokenCount", default)]
    cached: Option<u64>,
}

#[derive(Clone)]
pub struct Sink {
    b: Builder,
    what_if: Option<bool>,
}

impl Sink {
    pub fn new(path: &Path) -> Sink {
        Sink {
            b: Builder::new(path, Format::QwenJsonl),
            what_if: None,
        }
    }
}

/// One part of a message, as plans see it.
pub enum PartRec {
    Call(ToolCall),
    Result(ToolResult),
    Media(String),
}

/// A parsed line with the Qwen Code `version` that wrote it (SPEC §7
/// `request.version`) and whether it is a sidechain's.
pub struct Tagged {
    pub rec: Rec,
    version: Option<String>,
    sidechain: bool,
}

/// What one line contributes, owned, so lines can be parsed in parallel.
pub enum Rec {
    Message {
        kind: Kind,
        sidechain: bool,
        ts: Option<String>,
        model: Option<String>,
        usage: Option<Usage>,
        parts: Vec<PartRec>,
        has_tool_result: bool,
    },
    Compression {
        sidechain: bool,
        ts: Option<String>,
        entries: Vec<(Role, serde_json::Value, Vec<PartRec>)>,
    },
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
}

impl RecordSink for Sink {
    type Rec = Tagged;

    fn parse(text: &str) -> Result<Tagged, String> {
        let rec: Line = serde_json::from_str(text).map_err(super::json_error)?;
        let kind = raw::string(rec.kind);
        let sidechain = raw::is_true(rec.sidechain);
        let ts = raw::owned(rec.timestamp);
        let cwd = raw::owned(rec.cwd);
        let version = raw::owned(rec.version);
        let parsed = match kind.as_deref().unwrap_or("") {
            k @ ("user" | "tool_result" | "assistant") => {
                let content: Content =
                    raw::object(rec.message).ok_or("record without a message object")?;
                let parts = parts(&raw::elements(content.parts), cwd.as_deref());
                let has_tool_result = parts.iter().any(|p| matches!(p, PartRec::Result(_)));
                let assistant = k == "assistant";
                Rec::Message {
                    kind: if assistant {
                        Kind::Assistant
                    } else {
                        Kind::User
                    },
                    sidechain,
                    ts,
                    model: raw::owned(rec.model),
                    usage: if assistant { usage(rec.usage) } else { None },
                    parts,
                    has_tool_result,
                }
            }
            "system" if raw::string(rec.subtype).as_deref() == Some("chat_compression") => {
                Rec::Compression {
                    sidechain,
                    ts,
                    entries: compressed_history(rec.payload, cwd.as_deref()),
                }
            }
            _ => Rec::Other,
        };
        Ok(Tagged {
            rec: parsed,
            version,
            sidechain,
        })
    }

    fn apply(&mut self, tagged: Tagged, line: usize, offset: u64, len: usize) {
        let Tagged {
            rec,
            version,
            sidechain,
        } = tagged;
        self.apply_rec(rec, line, offset, len);
        // After the record: a response's own version is not "before" its request.
        if version.is_some() && sidechain == self.what_if.unwrap_or(false) {
            self.b.version(version);
        }
    }

    fn finish(self, diagnostics: Vec<Diagnostic>) -> Session {
        let what_if = self.what_if == Some(true);
        let mut s = self.b.finish(diagnostics);
        s.subagent_what_if = what_if;
        s
    }
}

impl Sink {
    fn apply_rec(&mut self, rec: Rec, line: usize, offset: u64, len: usize) {
        self.b.s.records += 1;
        match rec {
            Rec::Message {
                kind,
                sidechain,
                ts,
                model,
                usage,
                parts,
                has_tool_result,
            } => {
                if self.what_if.is_none() {
                    self.what_if = Some(sidechain);
                }
                if sidechain != self.what_if.unwrap_or(false) {
                    self.b.s.sidechain_records += 1;
                    return;
                }
                let part = Part::Record { offset, len };
                let idx = match kind {
                    Kind::User => self.b.user(UserRecord {
                        part,
                        ts: ts.as_deref(),
                        line,
                        is_meta: false,
                        has_tool_result,
                    }),
                    // Each Qwen assistant record is one response (SPEC §2).
                    Kind::Assistant => self.b.assistant(AssistantRecord {
                        part,
                        ts: ts.as_deref(),
                        line,
                        response_id: None,
                        model,
                        usage,
                    }),
                };
                self.push_parts(idx, parts, line);
            }
            Rec::Compression {
                sidechain,
                ts,
                entries,
            } => {
                if sidechain != self.what_if.unwrap_or(false) {
                    return;
                }
                // The view restarts with the record's compressedHistory (SPEC §2).
                self.b.begin_segment();
                for (role, value, parts) in entries {
                    let idx =
                        self.b
                            .inline(role, Part::Inline(Box::new(value)), ts.as_deref(), line);
                    self.push_parts(idx, parts, line);
                }
            }
            Rec::Other => {}
        }
    }
}

impl Sink {
    fn push_parts(&mut self, idx: usize, parts: Vec<PartRec>, line: usize) {
        for p in parts {
            match p {
                PartRec::Call(mut c) => {
                    c.msg = idx;
                    self.b.call(c);
                }
                PartRec::Result(mut r) => {
                    r.msg = idx;
                    r.line = line;
                    self.b.result(r);
                }
                PartRec::Media(mime) => self.b.media(idx, mime),
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
        out.push((role, value, parts(&raw::elements(content.parts), cwd)));
    }
    out
}

/// The calls, results and top-level media of one message's parts (message index
/// and line are filled in when applied).
fn parts(parts: &[&RawValue], cwd: Option<&str>) -> Vec<PartRec> {
    let mut out = Vec::new();
    for p in parts {
        let text = p.get();
        let rec = part(text, cwd).or_else(|| {
            // A part that repeats a key is read as the wire builder reads it (the
            // last value wins), so that both count the same parts.
            let keyed = ["\"functionCall\"", "\"functionResponse\"", "\"inlineData\""];
            if !keyed.iter().any(|k| text.contains(k)) {
                return None;
            }
            let v = serde_json::from_str::<serde_json::Value>(text).ok()?;
            part(&v.to_string(), cwd)
        });
        out.extend(rec);
    }
    out
}

/// One part as plans see it: a call, a result, top-level media, or nothing.
fn part(text: &str, cwd: Option<&str>) -> Option<PartRec> {
    let f = serde_json::from_str::<PartFields>(text).ok()?;
    if let Some(call) = raw::object::<Call>(f.call) {
        let (Some(id), Some(name)) = (raw::owned(call.id), raw::owned(call.name)) else {
            return None;
        };
        let args: Option<Args> = raw::object(call.args);
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
            file_path,
            legacy_path,
            summary,
            cwd: cwd.map(str::to_string),
        }));
    } else if let Some(resp) = raw::object::<Response>(f.response) {
        let id = raw::owned(resp.id)?;
        let body: Option<ResponseBody> = raw::object(resp.response);
        let output = body.as_ref().and_then(|b| b.output);
        let chars = raw::utf16_len(output).unwrap_or(0);
        let media = raw::elements(resp.parts)
            .iter()
            .filter(|p| {
                serde_json::from_str::<PartFields>(p.get()).is_ok_and(|f| f.inline_data.is_some())
            })
            .count() as u32;
        return Some(PartRec::Result(ToolResult {
            id,
            name: raw::owned(resp.name),
            msg: 0,
            chars,
            media,
            est_tokens: chars.div_ceil(4) + MEDIA_TOKENS * media as u64,
            is_error: body
                .as_ref()
                .is_some_and(|b| !raw::is_null_or_absent(b.error)),
            already_cleared: raw::is_placeholder(output),
            line: 0,
        }));
    } else if let Some(data) = raw::object::<InlineData>(f.inline_data) {
        let mime = raw::owned(data.mime).unwrap_or_else(|| "application/octet-stream".into());
        return Some(PartRec::Media(mime));
    }
    None
}

fn usage(v: Raw<'_>) -> Option<Usage> {
    let u: RawUsage = serde_json::from_str(v?.get()).ok()?;
    let cached = u.cached.unwrap_or(0);
    Some(Usage {
        input_tokens: u.prompt.unwrap_or(0).saturating_sub(cached),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
        output_tokens: u.candidates.unwrap_or(0),
    })
}
