//! Claude Code `attachment` records that are facts about the wire (SPEC §13.E):
//! `tool_results_cut` (results the client replaced by a stand-in),
//! `thinking_stripped` (older thinking left out) and the resume note. Read with
//! the same care as other records: a field of the wrong shape is kept unknown
//! with a warning, and the record stays.
//!
//! After loading, [`decide_cuts`] settles which results each cut replaced and
//! from which request on (Claude Code 2.1.332 bundle, `Vco` / `Yco`).

use super::super::raw::{self, Raw};
use super::fields::{self, Warnings};
use super::{Rec, Sink};
use crate::harness::CLAUDE;
use crate::harness::claude_pdf::{self as pdf, EarlierCall, PdfRow};
use crate::session::{
    CutMark, CutRecord, Part, ResumeNote, Role, Session, ThinkingStrip, ToolCall, ToolResult,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;

/// The longest stand-in Claude Code accepts, in UTF-16 units (grep `Dfr=200`).
pub const STAND_IN_MAX: u64 = 200;
/// The one `cause` a cut may carry (a withdrawn MCP tool's results).
pub const WITHDRAWN: &str = "withdrawn_by_tool";
/// Tools whose results a withdrawn-tool cut may replace
/// (grep `Bts=["mcp__claude_ai__","mcp__hearthbot__"]`).
pub const WITHDRAWN_PREFIXES: [&str; 2] = ["mcp__claude_ai__", "mcp__hearthbot__"];
/// How the resume note begins (grep `bCi="This chat has resumed after a long pause`).
pub const RESUME_NOTE: &str = "This chat has resumed after a long pause.";

/// What one attachment record says, when it is one of the three.
pub(crate) enum Attachment {
    Cut {
        call_ids: Vec<String>,
        ids_listed: bool,
        stand_in: Option<String>,
        rough_tokens: Option<u64>,
        cause: Option<String>,
    },
    Strip {
        scope: Option<String>,
        cause: Option<String>,
    },
    Resume,
    /// A `message_pdf_reads` row (SPEC §17.C.U2), with the record's time and
    /// `cwd`.
    PdfReads(Box<PendingPdf>),
}

/// What an attachment record carries besides its `attachment` object.
pub(super) struct Context {
    pub uuid: Option<String>,
    pub ts: Option<String>,
    pub cwd: Option<String>,
}

/// A `message_pdf_reads` row waiting for the next response (see
/// `Sink::flush_pdf`).
#[derive(Clone)]
pub(crate) struct PendingPdf {
    row: PdfRow,
    ts: Option<String>,
    cwd: Option<String>,
    line: usize,
    segment: usize,
}

#[derive(Deserialize, Default)]
struct Raw3<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Raw<'a>,
    #[serde(rename = "callIds", borrow, default)]
    call_ids: Raw<'a>,
    #[serde(rename = "standIn", borrow, default)]
    stand_in: Raw<'a>,
    #[serde(rename = "roughTokens", borrow, default)]
    rough_tokens: Raw<'a>,
    #[serde(borrow, default)]
    cause: Raw<'a>,
    #[serde(borrow, default)]
    scope: Raw<'a>,
    #[serde(borrow, default)]
    content: Raw<'a>,
}

/// Reads an `attachment` record's `attachment` object.
pub(super) fn attachment(v: Raw<'_>, cx: Context, sidechain: bool, w: &mut Warnings) -> Rec {
    let Some(a) = raw::object::<Raw3>(v) else {
        return Rec::Other;
    };
    let what = match raw::string(a.kind).as_deref() {
        // Read whole: rare, and small but for a document's base64.
        Some(pdf::PDF_READS) => {
            let Some(row) = v
                .and_then(|v| serde_json::from_str::<Value>(v.get()).ok())
                .and_then(|a| PdfRow::of_attachment(&a, cx.uuid.as_deref()))
            else {
                return Rec::Other;
            };
            Attachment::PdfReads(Box::new(PendingPdf {
                row,
                ts: cx.ts,
                cwd: cx.cwd,
                line: 0,
                segment: 0,
            }))
        }
        Some("tool_results_cut") => {
            let ids = fields::ids(a.call_ids);
            match (ids.unread, a.call_ids) {
                (Some(0), _) => {}
                (Some(n), _) => w.push(format!(
                    "attachment.callIds holds {n} entr{} that {} not a string; the string ids are kept",
                    if n == 1 { "y" } else { "ies" },
                    if n == 1 { "is" } else { "are" },
                )),
                (None, v) => w.push(format!(
                    "attachment.callIds is {}, not a list; the cut names no result",
                    v.map_or("absent".into(), fields::describe)
                )),
            }
            let stand_in = raw::owned(a.stand_in);
            if stand_in.is_none() {
                w.push(format!(
                    "attachment.standIn is {}, not a string; the cut replaces nothing",
                    a.stand_in.map_or("absent".into(), fields::describe)
                ));
            }
            let cause = if raw::is_null_or_absent(a.cause) {
                None
            } else {
                match raw::owned(a.cause) {
                    Some(c) => Some(c),
                    None => {
                        w.push(format!(
                            "attachment.cause is {}, not a string; the cut replaces nothing",
                            a.cause.map_or("absent".into(), fields::describe)
                        ));
                        Some(String::new())
                    }
                }
            };
            Attachment::Cut {
                ids_listed: ids.unread.is_some(),
                call_ids: ids.ids,
                stand_in,
                rough_tokens: w.count("attachment.roughTokens", a.rough_tokens, "it is unknown"),
                cause,
            }
        }
        Some("thinking_stripped") => Attachment::Strip {
            scope: raw::owned(a.scope),
            cause: raw::owned(a.cause),
        },
        Some("critical_system_reminder")
            if raw::string(a.content).is_some_and(|c| c.starts_with(RESUME_NOTE)) =>
        {
            Attachment::Resume
        }
        _ => return Rec::Other,
    };
    Rec::Attachment { sidechain, what }
}

impl Sink {
    /// Keeps an attachment of the main thread, with the request it precedes.
    pub(super) fn attachment(&mut self, sidechain: bool, what: Attachment, line: usize) {
        if !self.is_main(sidechain, false) {
            return;
        }
        // While loading, every request made so far has a response.
        let request = Some(self.b.s.requests.len() + 1);
        let segment = self.b.segment();
        let s = &mut self.b.s;
        match what {
            Attachment::Cut {
                call_ids,
                ids_listed,
                stand_in,
                rough_tokens,
                cause,
            } => s.cuts.push(CutRecord {
                line,
                request,
                segment,
                call_ids,
                ids_listed,
                stand_in,
                rough_tokens,
                cause,
                applied: Vec::new(),
                not_applied: Vec::new(),
            }),
            Attachment::Strip { scope, cause } => s.thinking_strips.push(ThinkingStrip {
                line,
                request,
                segment,
                before_msg: s.messages.len(),
                scope,
                cause,
            }),
            Attachment::Resume => s.resume_notes.push(ResumeNote { line, request }),
            Attachment::PdfReads(mut row) => {
                // A later row before any response supersedes the one waiting
                // (SPEC §17.C.U2: no real reply in between).
                row.line = line;
                row.segment = segment;
                self.pending_pdf = Some(*row);
            }
        }
    }

    /// Puts the waiting PDF row in the messages (SPEC §17.C.U3, §18.17(d)):
    /// each page-text read is a `Read` `tool_use` (an assistant message) and
    /// its `tool_result` (a user message), as Claude Code's wire renders
    /// the row, ids `toolu_pdfread_…`. The page text is not in the
    /// transcript: the result holds the read's notice, and its size is
    /// unknown (0). A `document` read is never such a pair (it only
    /// excludes `Read`, U2b).
    pub(super) fn flush_pdf(&mut self) {
        let Some(p) = self.pending_pdf.take() else {
            return;
        };
        if p.segment != self.b.segment() {
            return;
        }
        let reads: Vec<(String, Option<String>, String)> = p
            .row
            .page_texts()
            .map(|(i, r)| {
                let notice = r.notice.clone().unwrap_or_default();
                (p.row.call_id(i), r.path.clone(), notice)
            })
            .collect();
        if reads.is_empty() {
            return;
        }
        let ts = self.b.ts_not_before(p.ts.as_deref());
        let uses = reads
            .iter()
            .map(|(id, path, _)| {
                json!({"type": "tool_use", "id": id, "name": pdf::READ, "input": {"file_path": path}})
            })
            .collect();
        let results = reads
            .iter()
            .map(|(id, _, notice)| json!({"type": "tool_result", "tool_use_id": id, "content": notice}))
            .collect();
        let (a, u) = self.pair_messages(uses, results, ts.as_deref(), p.line);
        for (id, path, _) in reads {
            self.b.call(ToolCall {
                id: id.clone(),
                name: pdf::READ.to_string(),
                msg: a,
                file_path: path,
                legacy_path: None,
                summary: None,
                cwd: p.cwd.clone(),
                unparseable: false,
            });
            self.b.result(ToolResult {
                id,
                name: None,
                msg: u,
                chars: 0,
                media: 0,
                est_tokens: 0,
                is_error: false,
                already_cleared: false,
                line: p.line,
                part: 0,
                media_mime: None,
                memory_bodies: Vec::new(),
                plain: true,
                size_unknown: true,
                source: None,
            });
        }
    }

    /// A compact summary's kept calls (SPEC §17.C.U4): each a `tool_use`
    /// and its `tool_result`, at the summary's place and before its own
    /// content, as the wire renders them (whatever the version: 2.1.332
    /// renders them too; only the plan's reading is by version).
    pub(super) fn earlier_pairs(&mut self, calls: Vec<EarlierCall>, ts: Option<&str>, line: usize) {
        let uses = calls
            .iter()
            .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input}))
            .collect();
        let results = calls
            .iter()
            .map(|c| json!({"type": "tool_result", "tool_use_id": c.id, "content": c.text}))
            .collect();
        let (a, u) = self.pair_messages(uses, results, ts, line);
        let cwd = self.b.s.bill_marks.cwd.clone();
        for c in calls {
            let s = |k: &str| c.input.get(k).and_then(Value::as_str).map(str::to_string);
            let summary = ["command", "pattern", "url", "query", "path"]
                .iter()
                .find_map(|k| s(k));
            let m = super::Measure::of_text(&c.text);
            self.b.call(ToolCall {
                id: c.id.clone(),
                name: c.name,
                msg: a,
                file_path: s("file_path"),
                legacy_path: None,
                summary,
                cwd: cwd.clone(),
                unparseable: false,
            });
            self.b.result(ToolResult {
                id: c.id,
                name: None,
                msg: u,
                chars: m.chars,
                media: 0,
                est_tokens: m.est_tokens,
                is_error: false,
                already_cleared: m.placeholder,
                line,
                part: 0,
                media_mime: None,
                memory_bodies: Vec::new(),
                plain: true,
                size_unknown: false,
                source: Some(pdf::EARLIER_MESSAGES),
            });
        }
    }

    /// An assistant message of `uses` and a user message of `results`, in
    /// the view and not responses: (assistant, user).
    fn pair_messages(
        &mut self,
        uses: Vec<Value>,
        results: Vec<Value>,
        ts: Option<&str>,
        line: usize,
    ) -> (usize, usize) {
        let part = |role: &str, content: Vec<Value>| {
            Part::Inline(crate::session::Inline::new(
                json!({"role": role, "content": content}),
            ))
        };
        let a = self
            .b
            .inline(Role::Assistant, part("assistant", uses), ts, line);
        // No rewind links: a pair is never on a dead branch (rare enough).
        let u = self.b.inline(Role::User, part("user", results), ts, line);
        (a, u)
    }
}

/// Whether a tool's results may be cut by a record with this cause
/// (grep `function xWt(e,n){return n===void 0?Hts(e):Bts.some(...)}`): without a
/// cause, a compactable tool or any MCP tool `mcp__<server>__<tool>` (SPEC
/// §13.A7); with `withdrawn_by_tool`, the two withdrawn-tool prefixes.
pub fn tool_eligible(tool: &str, cause: Option<&str>) -> bool {
    match cause {
        None => CLAUDE.is_compactable(tool) || is_mcp(tool),
        Some(WITHDRAWN) => WITHDRAWN_PREFIXES.iter().any(|p| tool.starts_with(p)),
        Some(_) => false,
    }
}

fn is_mcp(tool: &str) -> bool {
    tool.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .is_some_and(|(server, name)| !server.is_empty() && !name.is_empty())
}

/// Whether a record's stand-in may be used: a non-empty string of at most 200
/// UTF-16 units (grep `h.length===0||h.length>Dfr`).
fn stand_in_valid(stand_in: Option<&str>) -> Option<u64> {
    let len = raw::utf16_len_str(stand_in?);
    (len > 0 && len <= STAND_IN_MAX).then_some(len)
}

/// Settles every cut record once the session is loaded: which results it
/// replaced at its request (the first whose response comes after it), and why
/// not the others. A result stays cut in every later request of its view (the
/// map is rebuilt from the transcript on each request, resumes included).
pub(super) fn decide_cuts(s: &mut Session) {
    // Records whose request does not exist (nothing follows them) attach nowhere.
    let n = s.requests.len();
    for c in &mut s.cuts {
        c.request = c.request.filter(|&k| k <= n);
    }
    for t in &mut s.thinking_strips {
        t.request = t.request.filter(|&k| k <= n);
    }
    for r in &mut s.resume_notes {
        r.request = r.request.filter(|&k| k <= n);
    }
    if s.cuts.is_empty() {
        return;
    }
    let mut marks: Vec<Option<CutMark>> = vec![None; s.results.len()];
    // The map in force: id → (record that gave the stand-in, its length).
    let mut map: HashMap<(usize, String), (usize, u64)> = HashMap::new();
    for i in 0..s.cuts.len() {
        let rec = &s.cuts[i];
        let req = rec
            .request
            .and_then(|k| s.request(k))
            .filter(|r| r.segment == rec.segment)
            .cloned();
        let valid_len = stand_in_valid(rec.stand_in.as_deref());
        let cause = rec.cause.clone();
        let mut applied = Vec::new();
        let mut not_applied = Vec::new();
        for id in rec.call_ids.clone() {
            let Some(len) = valid_len else {
                not_applied.push((id, "stand_in_invalid"));
                continue;
            };
            if cause.as_deref().is_some_and(|c| c != WITHDRAWN) {
                // A cause Claude Code does not know: the record does not count.
                not_applied.push((id, "tool_not_eligible"));
                continue;
            }
            let Some(req) = &req else {
                not_applied.push((id, "not_in_view"));
                continue;
            };
            let (giver, len) = *map.entry((req.segment, id.clone())).or_insert((i, len));
            let results: Vec<usize> = s
                .results_in(req.view_start, req.end)
                .filter(|&r| s.results[r].id == id)
                .collect();
            let calls = s.calls_in(req.view_start, req.end);
            let tool = results.last().and_then(|&r| {
                s.calls[calls.clone()]
                    .iter()
                    .rev()
                    .find(|c| c.id == id && c.msg < s.results[r].msg)
                    .map(|c| c.name.as_str())
            });
            let reason = match (results.last(), tool) {
                (None, _) | (_, None) => Some("not_in_view"),
                (Some(_), Some(t)) if !tool_eligible(t, cause.as_deref()) => {
                    Some("tool_not_eligible")
                }
                (Some(&r), _) => {
                    let res = &s.results[r];
                    if res.is_error {
                        Some("error")
                    } else if !res.plain {
                        Some("content_kind")
                    } else if res.media == 0 && res.chars <= len {
                        Some("not_shorter")
                    } else {
                        None
                    }
                }
            };
            match reason {
                Some(why) => not_applied.push((id, why)),
                None => {
                    for &r in &results {
                        if marks[r].is_none() {
                            marks[r] = Some(CutMark {
                                record: giver,
                                at: req.index,
                            });
                        }
                    }
                    applied.push(id);
                }
            }
        }
        let rec = &mut s.cuts[i];
        rec.applied = applied;
        rec.not_applied = not_applied;
    }
    if marks.iter().any(Option::is_some) {
        s.cut = marks;
    }
}

/// SPEC §15.2: when the first record with a `parentUuid` key names a parent the
/// file does not hold, the file was cut from a longer session.
pub(super) fn partial_transcript(
    s: &mut Session,
    first_parent: Option<&(usize, Option<String>)>,
    parent_seen: bool,
) {
    if let Some((line, Some(_))) = first_parent
        && !parent_seen
    {
        s.warnings.insert(
            0,
            crate::session::SessionWarning {
                id: crate::session::PARTIAL_TRANSCRIPT,
                line: Some(*line),
                text: "the file starts mid-session: results before it are unknown".into(),
            },
        );
    }
}
