//! Claude Code session transcripts (`~/.claude/projects/<cwd>/<session>.jsonl`).
//! See `shared/reference/claude-code-jsonl.md` for the record shapes.
//!
//! Each line is read in one pass: typed structs borrow what they keep, and tool
//! outputs are measured by visitors as the parser meets them, never copied.

use super::RecordSink;
use super::builder::{AssistantRecord, Builder, PLACEHOLDER, UserRecord};
use super::raw::{self, Raw};
use crate::session::{
    Diagnostic, Evidence, Format, Part, PieceLen, Session, SessionWarning, ToolCall, ToolResult,
    Usage,
};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use crate::harness::CLAUDE;

mod fast;
mod records;
use records::*;

/// A parsed line with what every record may carry: the Claude Code `version`
/// that wrote it (SPEC §7 `request.version`) and whether it is a sidechain's.
pub(super) struct Tagged {
    pub rec: Rec,
    /// The written size of `message.content` (user and assistant records),
    /// and of each tool result's content in it.
    piece: Option<PieceLen>,
    kinds: Option<Box<crate::session::PartKinds>>,
    result_sizes: Box<[Option<u64>]>,
    pub(super) version: Option<raw::Small>,
    /// `sessionId` (kept until the session has one).
    session_id: Option<raw::Small>,
    entrypoint: Option<raw::Small>,
    pub(super) sidechain: bool,
    /// Fields of the record that could not be read as written (the record is
    /// kept; SPEC §15.2 `session.warnings`).
    warnings: Vec<String>,
    /// The record's `uuid`, and its `parentUuid` when it has the key (the
    /// inner None: null, or not a string).
    uuid: Option<raw::Small>,
    parent: Option<Option<raw::Small>>,
    /// `uuid` and `parentUuid` (SPEC §2 rewinds).
    link: (Option<super::branches::Key>, Option<super::branches::Key>),
    /// An assistant record with a numeric `apiBlockIndex` or
    /// `joinedApiReply: true`: what a return after idle needs before it.
    return_anchor: bool,
    /// A `user`, `attachment`, `system` or `progress` record's timestamp (ms):
    /// SPEC §16.B5's now for the next response.
    pub(super) send_ms: Option<i64>,
    /// A `SessionStart` hook record's `hookName` (SPEC §16.B6; "" when absent).
    pub(super) session_start: Option<String>,
}

/// What one line contributes, owned, so lines can be parsed in parallel.
pub(super) enum Rec {
    User {
        sidechain: bool,
        meta: bool,
        ts: Option<raw::Small>,
        results: Vec<ResultRec>,
        has_tool_result: bool,
        /// A compact summary's kept calls (SPEC §17.C.U4).
        earlier: Vec<crate::harness::claude_pdf::EarlierCall>,
    },
    /// Boxed: the largest by far (its short texts are kept in place), and
    /// every line's record is as large as the largest. A batch holds a few
    /// thousand records; most lines are progress records.
    Assistant(Box<Response>),
    Boundary {
        sidechain: bool,
    },
    Evidence {
        sidechain: bool,
        ids: Vec<String>,
        ids_complete: bool,
        budget_writer: bool,
        pre_tokens: Option<u64>,
        tokens_saved: Option<u64>,
        uuid: Option<String>,
    },
    Replacements {
        agent: bool,
        items: Vec<(String, String)>,
    },
    /// A `tool_results_cut`, `thinking_stripped` or resume-note attachment.
    Attachment {
        sidechain: bool,
        what: attach::Attachment,
    },
    Other,
}

/// An assistant line: one record of a response.
pub(super) struct Response {
    pub(super) sidechain: bool,
    pub(super) ts: Option<raw::Small>,
    pub(super) id: Option<raw::Small>,
    request_id: Option<raw::Small>,
    pub(super) model: Option<raw::Small>,
    pub(super) usage: Option<Usage>,
    pub(super) applied_edits: Option<Vec<serde_json::Value>>,
    context_client: Option<Box<crate::session::ContextClient>>,
    parent_uuid: Option<raw::Small>,
    cwd: Option<raw::Small>,
    pub(super) calls: Vec<CallRec>,
}

pub(super) struct ResultRec {
    id: String,
    measure: Measure,
    is_error: bool,
}

pub(super) struct CallRec {
    id: String,
    pub(super) name: String,
    file_path: Option<String>,
    summary: Option<String>,
}

#[derive(Clone)]
pub(super) struct Sink {
    b: Builder,
    /// None until the first user/assistant record says which thread is "main".
    what_if: Option<bool>,
    /// `content-replacement` records: the text the model saw instead (SPEC §2).
    replacements: HashMap<String, String>,
    /// Every `uuid` of the file, and the first record's `parentUuid` that has
    /// the key (line, value): SPEC §15.2's test for a partial transcript.
    uuids: std::collections::HashSet<String>,
    first_parent: Option<(usize, Option<String>)>,
    parent_seen: bool,
    /// Some line is an assistant record a return can follow (SPEC §13.S1).
    return_anchor: bool,
    /// Only these lines (1-based) are read: one inline sub-agent thread, opened
    /// from the picker as a what-if.
    only: Option<std::sync::Arc<std::collections::HashSet<usize>>>,
    /// A `message_pdf_reads` row not yet in the messages: it goes in before
    /// the next response (a later row before then supersedes it, SPEC
    /// §17.C.U2).
    pending_pdf: Option<attach::PendingPdf>,
}

impl Sink {
    /// A sink for the records of `format`: Claude Code's own, or inline
    /// messages of another format that are Messages API bodies (a body's
    /// messages; OpenCode's rows, rebuilt as the body it sends).
    pub(super) fn for_format(path: &Path, format: Format) -> Sink {
        Sink {
            b: Builder::new(path, format),
            what_if: None,
            replacements: HashMap::new(),
            uuids: Default::default(),
            first_parent: None,
            parent_seen: false,
            only: None,
            return_anchor: false,
            pending_pdf: None,
        }
    }

    /// A message in the view that is no response (another format's rebuilt
    /// history: OpenCode's compaction prompt and summary at the head of the
    /// view they start).
    pub(super) fn inline(&mut self, role: crate::session::Role, part: Part, ts: Option<&str>) {
        let line = self.b.s.records + 1;
        self.b.inline(role, part, ts, line);
    }

    /// A record of a message that is in the view again without being sent
    /// again (OpenCode's retained tail after a compaction): an assistant
    /// record is a message of the view with its calls, not a response.
    pub(super) fn apply_inline(&mut self, tagged: Tagged, line: usize, part: Part) {
        let Rec::Assistant(r) = tagged.rec else {
            self.apply_part(tagged, line, part);
            return;
        };
        let Response { ts, cwd, calls, .. } = *r;
        self.b.s.records += 1;
        let idx = self
            .b
            .inline(crate::session::Role::Assistant, part, ts.as_deref(), line);
        self.calls(idx, calls, cwd.as_deref());
    }

    /// A message's tool calls, registered on message `idx`.
    fn calls(&mut self, idx: usize, calls: Vec<CallRec>, cwd: Option<&str>) {
        for c in calls {
            self.b.call(ToolCall {
                id: c.id,
                name: c.name,
                msg: idx,
                file_path: c.file_path,
                legacy_path: None,
                summary: c.summary,
                cwd: cwd.map(str::to_string),
                unparseable: false,
            });
        }
    }

    /// (requests, results) made so far.
    pub(super) fn made(&self) -> (usize, usize) {
        (self.b.s.requests.len(), self.b.s.results.len())
    }

    /// A sink that reads only `lines` of the file: an inline sub-agent thread, whose
    /// sidechain records then make it a what-if.
    pub(super) fn only_lines(
        path: &Path,
        format: Format,
        lines: std::collections::HashSet<usize>,
    ) -> Sink {
        Sink {
            only: Some(std::sync::Arc::new(lines)),
            ..Sink::for_format(path, format)
        }
    }

    fn is_main(&mut self, sidechain: bool, message: bool) -> bool {
        if message && self.what_if.is_none() {
            // A sub-agent file holds only sidechain records: plan it as a what-if.
            self.what_if = Some(sidechain);
        }
        sidechain == self.what_if.unwrap_or(false)
    }
}

impl Tagged {
    /// What the scan measured of the record's content (the caller keeps it
    /// with the content it measured).
    pub(in crate::load) fn take_measure(&mut self) -> crate::session::InlineMeasure {
        crate::session::InlineMeasure {
            piece: self.piece,
            result_sizes: std::mem::take(&mut self.result_sizes),
            kinds: self.kinds.take(),
        }
    }
}

impl RecordSink for Sink {
    type Rec = Tagged;

    fn parse(text: &str) -> Result<Tagged, String> {
        let rule = super::jsonlen::KindRule {
            text: CLAUDE.text_tokens,
            media: CLAUDE.media_tokens,
        };
        // The fast path, else serde_json over the whole line (`fast`'s note).
        let (rec, fast_measured) = match fast::read(text, CLAUDE.wire.content, rule) {
            Some(r) => (r.line, Some(r.measured)),
            None => (
                serde_json::from_str::<Line>(text).map_err(super::json_error)?,
                None,
            ),
        };
        let sidechain = raw::is_true(rec.sidechain);
        let ts = raw::small(rec.timestamp);
        let version = raw::small(rec.version);
        let entrypoint = raw::small(rec.entrypoint);
        let return_anchor = rec.kind.as_deref() == Some("assistant")
            && (rec.api_block_index.is_some_and(|v| {
                v.get()
                    .starts_with(|c: char| c == '-' || c.is_ascii_digit())
            }) || raw::is_true(rec.joined_api_reply));
        let mut w = Warnings::default();
        let kind = rec.kind.as_deref().unwrap_or("");
        let send_ms = match kind {
            "user" | "attachment" | "system" | "progress" => {
                raw::string(rec.timestamp).and_then(|t| raw::timestamp_ms(&t))
            }
            _ => None,
        };
        let session_start = match kind {
            "progress" => session_start(rec.data),
            "attachment" => session_start(rec.attachment),
            _ => None,
        };
        let parsed = match kind {
            "user" => {
                let msg = rec.message.ok_or("user record without a message object")?;
                let mut results = Vec::new();
                let mut has_tool_result = false;
                if let Some(Content::Blocks(blocks)) = msg.content {
                    for b in blocks {
                        if b.kind.as_deref() != Some("tool_result") {
                            continue;
                        }
                        let Some(id) = raw::owned(b.tool_use_id) else {
                            w.push(format!(
                                "a tool_result's tool_use_id is {}, not a string; the result is left out",
                                b.tool_use_id.map_or("absent".into(), fields::describe)
                            ));
                            continue;
                        };
                        has_tool_result = true;
                        results.push(ResultRec {
                            id,
                            measure: measure(b.content),
                            is_error: raw::is_true(b.is_error),
                        });
                    }
                }
                // Parsed only on a compact summary that has the key.
                let earlier = match rec.earlier_messages {
                    Some(e) if raw::is_true(rec.compact_summary) => {
                        crate::harness::claude_pdf::earlier_calls(
                            true,
                            serde_json::from_str::<serde_json::Value>(e.get())
                                .ok()
                                .as_ref(),
                        )
                    }
                    _ => Vec::new(),
                };
                Rec::User {
                    sidechain,
                    meta: raw::is_true(rec.meta),
                    ts,
                    results,
                    has_tool_result,
                    earlier,
                }
            }
            "assistant" => {
                let msg = rec
                    .message
                    .ok_or("assistant record without a message object")?;
                let mut calls = Vec::new();
                if let Some(Content::Blocks(blocks)) = msg.content {
                    for b in blocks {
                        if b.kind.as_deref() != Some("tool_use") {
                            continue;
                        }
                        let (Some(id), Some(name)) = (raw::owned(b.id), raw::owned(b.name)) else {
                            let (field, v) = match raw::owned(b.id) {
                                None => ("id", b.id),
                                Some(_) => ("name", b.name),
                            };
                            w.push(format!(
                                "a tool_use's {field} is {}, not a string; the call is left out",
                                v.map_or("absent".into(), fields::describe)
                            ));
                            continue;
                        };
                        let input = b.input.unwrap_or_default();
                        calls.push(CallRec {
                            id,
                            name,
                            file_path: raw::owned(input.file_path),
                            summary: raw::owned(input.summary),
                        });
                    }
                }
                Rec::Assistant(Box::new(Response {
                    sidechain,
                    ts,
                    id: raw::small(msg.id),
                    request_id: raw::small(rec.request_id),
                    model: raw::small(msg.model),
                    usage: usage(msg.usage, &mut w),
                    applied_edits: applied_edits(msg.context_management, &mut w),
                    context_client: usage::context_client(msg.context_management, &mut w)
                        .map(Box::new),
                    parent_uuid: raw::small(rec.parent_uuid.flatten()),
                    cwd: raw::small(rec.cwd),
                    calls,
                }))
            }
            "system" => match raw::string(rec.subtype).as_deref() {
                Some("compact_boundary") => Rec::Boundary { sidechain },
                Some("microcompact_boundary") => {
                    boundary(rec.microcompact, rec.uuid, sidechain, &mut w)
                }
                _ => Rec::Other,
            },
            "attachment" => attach::attachment(
                rec.attachment,
                attach::Context {
                    uuid: raw::owned(rec.uuid),
                    ts: raw::owned(rec.timestamp),
                    cwd: raw::owned(rec.cwd),
                },
                sidechain,
                &mut w,
            ),
            "content-replacement" => Rec::Replacements {
                agent: !raw::is_null_or_absent(rec.agent_id),
                items: raw::elements(rec.replacements)
                    .iter()
                    .filter_map(|r| serde_json::from_str::<Replacement>(r.get()).ok())
                    .filter_map(|r| Some((raw::owned(r.tool_use_id)?, raw::owned(r.text)?)))
                    .collect(),
            },
            _ => Rec::Other,
        };
        let (piece, result_sizes, kinds) = match parsed {
            Rec::User { .. } | Rec::Assistant(_) => {
                let measured = match fast_measured {
                    Some(m) => m,
                    None => super::jsonlen::measure(text, CLAUDE.wire.content, Some(rule)),
                };
                match measured {
                    Some(m) => (
                        Some(m.piece),
                        m.results.into_boxed_slice(),
                        m.kinds.map(Box::new),
                    ),
                    None => (None, Box::default(), None),
                }
            }
            _ => (None, Box::default(), None),
        };
        Ok(Tagged {
            rec: parsed,
            piece,
            result_sizes,
            kinds,
            version,
            session_id: raw::small(rec.session_id),
            entrypoint,
            sidechain,
            warnings: w.0,
            uuid: raw::small(rec.uuid),
            parent: rec.parent_uuid.map(raw::small),
            link: (
                super::branches::key(rec.uuid),
                super::branches::key(rec.parent_uuid.flatten()),
            ),
            return_anchor,
            send_ms,
            session_start,
        })
    }

    fn apply(&mut self, mut rec: Tagged, line: usize, offset: u64, len: usize) {
        // Every line counts (idle-server's facts read the whole file).
        self.return_anchor |= rec.return_anchor;
        if self.only.as_ref().is_some_and(|only| !only.contains(&line)) {
            return;
        }
        let piece = rec.piece;
        let result_sizes = std::mem::take(&mut rec.result_sizes);
        let kinds = rec.kinds.take();
        self.apply_part(
            rec,
            line,
            Part::Record {
                offset,
                len,
                piece,
                result_sizes,
                kinds,
            },
        );
    }

    fn finish(mut self, diagnostics: Vec<Diagnostic>) -> Session {
        self.flush_pdf();
        // A replacement stands for the whole content of every result with that id.
        if !self.replacements.is_empty() {
            for r in &mut self.b.s.results {
                if let Some(text) = self.replacements.get(&r.id) {
                    let m = Measure::of_text(text);
                    r.chars = m.chars;
                    r.media = 0;
                    r.est_tokens = m.est_tokens;
                    r.already_cleared = m.placeholder;
                    r.plain = true;
                }
            }
        }
        let mut s = self.b.finish(diagnostics);
        s.subagent_what_if = self.what_if == Some(true);
        s.return_anchor = self.return_anchor;
        attach::decide_cuts(&mut s);
        attach::partial_transcript(&mut s, self.first_parent.as_ref(), self.parent_seen);
        s
    }
}

impl Sink {
    /// Applies a parsed record whose content lives in `part`.
    pub(super) fn apply_part(&mut self, tagged: Tagged, line: usize, part: Part) {
        let Tagged {
            rec,
            version,
            session_id,
            entrypoint,
            sidechain,
            warnings,
            uuid,
            parent,
            link,
            send_ms,
            session_start,
            ..
        } = tagged;
        // Only the first parentUuid's target is looked for: uuids are kept
        // until it is known, then compared with it (a million lines keep none).
        if self.first_parent.is_none()
            && let Some(p) = parent
        {
            self.parent_seen = p.as_ref().is_some_and(|p| self.uuids.contains(p.as_str()));
            self.uuids = Default::default();
            self.first_parent = Some((line, p.map(|p| p.as_str().to_string())));
        }
        if let Some(u) = uuid {
            match &self.first_parent {
                None => {
                    self.uuids.insert(u.as_str().to_string());
                }
                Some((_, Some(p))) if !self.parent_seen => self.parent_seen = p == u.as_str(),
                Some(_) => {}
            }
        }
        self.apply_rec(rec, line, part);
        if self.is_main(sidechain, false) {
            if send_ms.is_some() {
                self.b.last_send_ms = send_ms;
            }
            if let Some(name) = session_start {
                self.b.s.bill_marks.starts.push((line, name));
            }
        }
        if self.b.s.session_id.is_none() && session_id.is_some() && self.is_main(sidechain, false) {
            self.b.s.session_id = session_id.map(|s| s.as_str().to_string());
        }
        if self.is_main(sidechain, false) {
            self.b.link(link.0, link.1);
        }
        // Only the thread that is planned: a sub-agent's odd field misleads nothing.
        if !warnings.is_empty() && self.is_main(sidechain, false) {
            self.b
                .s
                .warnings
                .extend(warnings.into_iter().map(|text| SessionWarning {
                    id: fields::MALFORMED,
                    line: Some(line),
                    text,
                }));
        }
        // After the record: a response's own version is not "before" its request.
        if self.is_main(sidechain, false) {
            self.b.version(version.as_ref().map(raw::Small::as_str));
            self.b
                .entrypoint(entrypoint.as_ref().map(raw::Small::as_str));
        }
    }

    fn apply_rec(&mut self, rec: Rec, line: usize, part: Part) {
        self.b.s.records += 1;
        match rec {
            Rec::User {
                sidechain,
                meta,
                ts,
                results,
                has_tool_result,
                earlier,
            } => {
                if !self.is_main(sidechain, true) {
                    self.b.s.sidechain_records += 1;
                    return;
                }
                if !earlier.is_empty() {
                    self.earlier_pairs(earlier, ts.as_deref(), line);
                }
                let idx = self.b.user(UserRecord {
                    part,
                    ts: ts.as_deref(),
                    line,
                    is_meta: meta,
                    has_tool_result,
                });
                for r in results {
                    self.b.result(ToolResult {
                        id: r.id,
                        name: None,
                        msg: idx,
                        chars: r.measure.chars,
                        media: r.measure.media,
                        est_tokens: r.measure.est_tokens,
                        is_error: r.is_error,
                        already_cleared: r.measure.placeholder,
                        line,
                        part: 0,
                        media_mime: None,
                        memory_bodies: Vec::new(),
                        plain: r.measure.plain,
                        size_unknown: false,
                        source: None,
                    });
                }
            }
            Rec::Assistant(r) => {
                let Response {
                    sidechain,
                    ts,
                    id,
                    request_id,
                    model,
                    usage,
                    applied_edits,
                    context_client,
                    parent_uuid,
                    cwd,
                    calls,
                } = *r;
                if !self.is_main(sidechain, true) {
                    self.b.s.sidechain_records += 1;
                    self.b.s.sidechain_calls += calls.len();
                    // Billed, never simulated (SPEC §9a).
                    if let Some(usage) = usage {
                        self.b.s.sidechain_usage.push(crate::session::UsageLine {
                            message_id: id.map(|t| t.to_string()),
                            request_id: request_id.map(|t| t.to_string()),
                            model: model.map(|t| t.to_string()),
                            usage,
                            at: ts.map(|t| t.to_string()),
                            line,
                            agent: None,
                            path: None,
                        });
                    }
                    return;
                }
                // A PDF row waiting goes in before a new response.
                if !self.b.joins_response(id.as_deref()) {
                    self.flush_pdf();
                }
                let idx = self.b.assistant(AssistantRecord {
                    part,
                    ts: ts.as_deref(),
                    line,
                    response_id: id.as_deref(),
                    request_id: request_id.as_deref(),
                    model: model.as_deref(),
                    usage,
                    applied_edits,
                    context_client: context_client.map(|c| *c),
                    parent_uuid: parent_uuid.as_deref(),
                });
                if self.b.s.bill_marks.cwd.is_none() {
                    self.b.s.bill_marks.cwd = cwd.as_deref().map(str::to_string);
                }
                self.calls(idx, calls, cwd.as_deref());
            }
            Rec::Boundary { sidechain } => {
                if self.is_main(sidechain, false) {
                    self.flush_pdf();
                    self.b.begin_segment();
                }
            }
            Rec::Evidence {
                sidechain,
                ids,
                ids_complete,
                budget_writer,
                pre_tokens,
                tokens_saved,
                uuid,
            } => {
                if self.is_main(sidechain, false) {
                    // While loading, every request made so far has a response
                    // (the trailing one is added at the end).
                    let after_request = self.b.s.requests.len();
                    self.b.s.evidence.push(Evidence {
                        line,
                        before_request: after_request + 1,
                        compacted_tool_ids: ids,
                        ids_complete,
                        budget_writer,
                        pre_tokens,
                        tokens_saved,
                        uuid,
                        after_request,
                        segment: self.b.segment(),
                        mask: false,
                        pruned: false,
                        context_edit: false,
                    });
                }
            }
            Rec::Replacements { agent, items } => {
                if agent == self.what_if.unwrap_or(false) {
                    self.replacements.extend(items);
                }
            }
            Rec::Attachment { sidechain, what } => self.attachment(sidechain, what, line),
            Rec::Other => {}
        }
    }
}

/// A `SessionStart` hook's `hookName` ("" when it has none) in a `progress`
/// record's `data` or an `attachment` (SPEC §16.B6); None for any other
/// value. Only a value that mentions the event is parsed again.
fn session_start(v: Raw<'_>) -> Option<String> {
    let text = v?.get();
    // One searcher for every line: `memmem::find` builds its own each call,
    // which cost more than the search on a progress record's short `data`.
    static EVENT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"SessionStart"));
    EVENT.find(text.as_bytes())?;
    let hook: Hook = raw::object(v)?;
    (raw::string(hook.event).as_deref() == Some("SessionStart"))
        .then(|| raw::owned(hook.name).unwrap_or_default())
}

/// Measures a `tool_result.content`: a string, or text / image / document blocks.
pub(super) fn measure(content: Option<Content<'_>>) -> Measure {
    match content {
        Some(Content::Text(m)) => m,
        Some(Content::Blocks(blocks)) => {
            let mut m = Measure::default();
            let mut texts = 0;
            let mut all_placeholders = true;
            m.plain = true;
            for b in blocks {
                m.plain &= matches!(b.kind.as_deref(), Some("text" | "image"));
                match b.kind.as_deref() {
                    Some("text") => {
                        let t = b.text.unwrap_or_default();
                        m.chars += t.chars;
                        m.est_tokens += t.est_tokens;
                        texts += 1;
                        all_placeholders &= t.placeholder;
                    }
                    Some("image") | Some("document") => {
                        m.media += 1;
                        m.est_tokens += CLAUDE.media_tokens;
                    }
                    _ => {}
                }
            }
            m.placeholder = texts == 1 && all_placeholders && m.media == 0;
            m
        }
        _ => Measure::default(),
    }
}

/// A `microcompact_boundary`'s metadata: what can be read is kept, and each
/// field that cannot is unknown with a warning. Its ids are then incomplete, so
/// its comparison with a plan never says `agrees` (SPEC §10).
fn boundary(meta: Raw<'_>, uuid: Raw<'_>, sidechain: bool, w: &mut Warnings) -> Rec {
    #[derive(Deserialize, Default)]
    struct Meta<'a> {
        #[serde(rename = "compactedToolIds", borrow, default)]
        compacted_tool_ids: Raw<'a>,
        #[serde(rename = "preTokens", borrow, default)]
        pre_tokens: Raw<'a>,
        #[serde(rename = "tokensSaved", borrow, default)]
        tokens_saved: Raw<'a>,
    }
    let m = match meta.map(|m| serde_json::from_str::<Meta>(m.get())) {
        Some(Ok(m)) => m,
        other => {
            w.push(format!(
                "microcompactMetadata is {}, not an object; its ids and counts are unknown",
                match (other, meta) {
                    (Some(Err(_)), Some(m)) => fields::describe(m),
                    _ => "absent".into(),
                }
            ));
            Meta::default()
        }
    };
    let ids = fields::ids(m.compacted_tool_ids);
    match (ids.unread, m.compacted_tool_ids) {
        (Some(0), _) => {}
        (Some(n), _) => w.push(format!(
            "microcompactMetadata.compactedToolIds holds {n} entr{} that {} not a string; the string ids are kept, the record's list is incomplete",
            if n == 1 { "y" } else { "ies" },
            if n == 1 { "is" } else { "are" },
        )),
        (None, v) => w.push(format!(
            "microcompactMetadata.compactedToolIds is {}, not a list; the record's ids are unknown",
            v.map_or("absent".into(), fields::describe)
        )),
    }
    Rec::Evidence {
        sidechain,
        budget_writer: fields::positive_number(m.pre_tokens),
        ids_complete: ids.unread == Some(0),
        ids: ids.ids,
        pre_tokens: w.count(
            "microcompactMetadata.preTokens",
            m.pre_tokens,
            "it is unknown",
        ),
        tokens_saved: w.count(
            "microcompactMetadata.tokensSaved",
            m.tokens_saved,
            "it is unknown",
        ),
        uuid: raw::owned(uuid),
    }
}

pub mod attach;
pub(in crate::load) mod fields;
mod usage;

pub(super) use self::usage::usage;
use fields::Warnings;
use usage::applied_edits;

#[cfg(test)]
mod tests;
