//! The normalized session (SPEC §2): main-thread messages, responses grouped by
//! `message.id`, requests, view segments, tool calls and tool results.
//!
//! The model keeps only what plans need (ids, names, paths, sizes, timestamps)
//! plus where each message's records live in the file, so that the wire builder
//! can re-read just the records it shows. Nothing here holds a whole transcript.

use serde::Serialize;
use std::path::PathBuf;

pub use crate::vocab::{Format, HarnessId, RankBy, SendKind};

mod groups;
mod records;
pub use groups::{IdTable, Masking, Turns};
pub use records::{CutMark, CutRecord, Evidence, ResumeNote, ThinkingStrip};

/// The model Claude Code writes on responses it made up itself (errors): not
/// the API's, so neither usage nor a model to price (SPEC §10).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// A line that could not be used, with where it was. Loading always goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub line: usize,
    pub byte_offset: u64,
    pub message: String,
}

/// The `session.warnings` id of a file cut from a longer session (SPEC §15.2).
pub const PARTIAL_TRANSCRIPT: &str = "partial_transcript";

/// Something the transcript says that mcscope could not read as written (SPEC
/// §15.2 `session.warnings`): unlike a [`Diagnostic`], the record is kept and
/// only the field is unknown. `id` is stable (`malformed_record_field`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionWarning {
    pub id: &'static str,
    pub line: Option<usize>,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// What the content value of one record is, for joining records into a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceLen {
    /// No content key, a `null`, or a `message` that is not an object.
    Missing,
    /// A string: its written length, quotes included.
    Str(u64),
    /// An array: how many elements, and the written length of all of them
    /// (brackets and commas excluded).
    Arr { count: u64, elements: u64 },
    /// Anything else (an object, a number, a boolean): its written length.
    Other(u64),
}

/// What one record's content holds by kind (SPEC §15.17), each block by SPEC
/// §2's estimate; its tool results are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartKinds {
    /// Text blocks, a string content, and blocks of no known kind (written as
    /// JSON): the message's role says whose text it is.
    pub text: u64,
    pub thinking: u64,
    /// `tool_use` inputs, written as JSON (the assistant's text).
    pub inputs: u64,
    /// Images and documents.
    pub images: u64,
    /// Each tool use's id and the tokens of its input, in block order.
    pub uses: Vec<(Box<str>, u64)>,
    /// What the api preset reads of the same content (SPEC §11, `MsgFacts`).
    pub api: ApiPiece,
}

/// What the api preset (SPEC §11) reads of one record's content, measured
/// while loading so that its facts need no record read back: every block's
/// tokens by SPEC §2's rule (a tool result's content too, and its parts
/// block by block) and the thinking blocks. Each tool use's id and input
/// tokens are [`PartKinds::uses`]; its name is the session's call's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApiPiece {
    pub tokens: u64,
    pub thinking_blocks: u32,
    /// The content is a string (one text block where pieces join).
    pub string: bool,
}

/// Where a piece of a message's content comes from, so the wire can be rebuilt.
#[derive(Debug, Clone)]
pub enum Part {
    /// A whole JSONL record: its `message` holds the content.
    Record {
        offset: u64,
        len: usize,
        /// The written size of the record's content, measured while loading
        /// (`None`: the wire builder measures it the exact way).
        piece: Option<PieceLen>,
        /// The written size of each `tool_result` block's `content` (Claude),
        /// in block order, measured with `piece`.
        result_sizes: Box<[Option<u64>]>,
        /// The content by kind, measured with `piece` (Claude; `None`: what
        /// fills the window reads the record back).
        kinds: Option<Box<PartKinds>>,
    },
    /// Content given inline (Qwen `compressedHistory` entries, messages-json bodies,
    /// Gemini CLI and OpenCode messages): a `{role, content}` or `{role, parts}`
    /// object.
    Inline(Inline),
}

impl Part {
    /// The written size of the content, measured while loading.
    pub fn piece(&self) -> Option<PieceLen> {
        match self {
            Part::Record { piece, .. } => *piece,
            Part::Inline(i) => i.measure()?.piece,
        }
    }

    /// The written size of each `tool_result` block's `content`, in block
    /// order (empty where nothing was measured).
    pub fn result_sizes(&self) -> &[Option<u64>] {
        match self {
            Part::Record { result_sizes, .. } => result_sizes,
            Part::Inline(i) => i.measure().map_or(&[], |m| &m.result_sizes),
        }
    }

    /// The content by kind, measured while loading.
    pub fn kinds(&self) -> Option<&PartKinds> {
        match self {
            Part::Record { kinds, .. } => kinds.as_deref(),
            Part::Inline(i) => i.measure()?.kinds.as_deref(),
        }
    }
}

/// An inline body, kept as its compact JSON text and parsed when read: a tree
/// of `serde_json::Value`s is several times the size of its text, and a long
/// session holds one body per message (issue 41 item 5).
#[derive(Debug, Clone)]
pub struct Inline(InlineForm, Option<Box<InlineMeasure>>);

/// What the Claude loader measured of an inline body's content on its text, as
/// it measures a record's (see [`Part::Record`]).
#[derive(Debug, Clone)]
pub struct InlineMeasure {
    pub piece: Option<PieceLen>,
    pub result_sizes: Box<[Option<u64>]>,
    pub kinds: Option<Box<PartKinds>>,
}

#[derive(Debug, Clone)]
enum InlineForm {
    /// Compact JSON text this type wrote from a value.
    Text(Box<str>),
    /// A body nested deeper than serde_json parses back (its recursion limit
    /// is 128 levels): kept as the tree it is.
    Tree(Box<serde_json::Value>),
    /// A body made from one line of the session's file (offset, length),
    /// which parsed as is when it was loaded: read back and made again by the
    /// loader's `make` whenever it is read, as a Claude Code record is.
    Line {
        offset: u64,
        len: u32,
        make: MakeBody,
    },
    /// A body made from rows of the session's database (OpenCode's message
    /// row and its part rows, by `rowid`): the `record`-th record the loader
    /// makes of them, made again whenever it is read. `len` and `hash` are
    /// its compact text's when it was loaded: a body the rows no longer make
    /// is never shown as this one.
    Rows {
        rows: Box<[i64]>,
        record: u8,
        len: u32,
        hash: u64,
    },
}

/// Where an inline body that is not held is made again from rows of the
/// session's database (see [`Inline::from_rows`]).
#[derive(Debug, Clone, Copy)]
pub struct RowsBody<'a> {
    /// The message row first, then its part rows, by `rowid`.
    pub rows: &'a [i64],
    /// Which of the records the rows make.
    pub record: usize,
    /// Its compact text's length and hash (the loader's) when it was loaded.
    pub len: usize,
    pub hash: u64,
}

/// What makes a message body of the JSON of the line it is read back from
/// (a loader's conversion, see [`Inline::from_line`]).
pub type MakeBody = fn(serde_json::Value) -> serde_json::Value;

/// Nesting above which a body stays a tree (well under serde_json's limit).
const INLINE_TEXT_DEPTH: usize = 100;

impl Inline {
    /// A body kept as the compact text of `v` (a tree where `v` nests too deep
    /// to be parsed back).
    pub fn new(v: serde_json::Value) -> Inline {
        let text = v.to_string();
        Inline::written(v, text, None)
    }

    /// A body whose compact text the caller has written already (`text` is
    /// `v.to_string()`), with its content by kind as the Claude loader
    /// measured it on that text (its written size, each tool result's, its
    /// content by kind), so sizes, what fills the window and the api plan's
    /// facts need not read it back.
    pub(crate) fn written(
        v: serde_json::Value,
        text: String,
        measure: Option<InlineMeasure>,
    ) -> Inline {
        let form = match depth_over(&v, INLINE_TEXT_DEPTH) {
            false => InlineForm::Text(text.into_boxed_str()),
            true => InlineForm::Tree(Box::new(v)),
        };
        Inline(form, measure.map(Box::new))
    }

    /// A body that is `make` of the JSON on bytes `offset..offset + len` of
    /// the session's file, a line that parsed as is when it was loaded: the
    /// body is not held, it is read back when asked for (issue 41 item 5).
    /// A line longer than 4 GiB is not one (`None`: the caller keeps the body).
    pub(crate) fn from_line(offset: u64, len: usize, make: MakeBody) -> Option<Inline> {
        let len = u32::try_from(len).ok()?;
        Some(Inline(InlineForm::Line { offset, len, make }, None))
    }

    /// A body that is record `record` of what the loader makes of database
    /// rows `rows` (see [`InlineForm::Rows`]), whose compact text is `len`
    /// bytes long and hashes (by the loader's hash) to `hash`: the text is
    /// not kept. Where it cannot be one (a text over 4 GiB, a record past
    /// 255), the measure is given back: the caller keeps the body.
    pub(crate) fn from_rows(
        rows: Box<[i64]>,
        record: usize,
        (len, hash): (usize, u64),
        measure: Option<InlineMeasure>,
    ) -> Result<Inline, Option<InlineMeasure>> {
        let (Ok(record), Ok(len)) = (u8::try_from(record), u32::try_from(len)) else {
            return Err(measure);
        };
        let form = InlineForm::Rows {
            rows,
            record,
            len,
            hash,
        };
        Ok(Inline(form, measure.map(Box::new)))
    }

    /// Where the body is made again, when it is made from database rows
    /// (`load::readback::inline_body` makes it).
    pub fn rows(&self) -> Option<RowsBody<'_>> {
        match &self.0 {
            InlineForm::Rows {
                rows,
                record,
                len,
                hash,
            } => Some(RowsBody {
                rows,
                record: usize::from(*record),
                len: *len as usize,
                hash: *hash,
            }),
            _ => None,
        }
    }

    /// What the loader measured of the content, when it did.
    pub fn measure(&self) -> Option<&InlineMeasure> {
        self.1.as_deref()
    }

    /// Where the body is read back from, when it is not held: the span of
    /// the session's file (offset, length) and what makes the body of the
    /// JSON there (`load::readback::inline_body` reads it).
    pub fn line(&self) -> Option<(u64, usize, MakeBody)> {
        match self.0 {
            InlineForm::Line { offset, len, make } => Some((offset, len as usize, make)),
            _ => None,
        }
    }

    /// The body as a value, for a body held in memory (a body read back from
    /// the file, [`Inline::line`], or made again from database rows,
    /// [`Inline::rows`], is read by `load::readback::inline_body`, the one
    /// way every reader takes: here it is Null).
    pub fn value(&self) -> serde_json::Value {
        match &self.0 {
            // Text this type wrote from a value, nested less than the limit:
            // it parses back to that value.
            InlineForm::Text(t) => serde_json::from_str(t).unwrap_or_default(),
            InlineForm::Tree(v) => (**v).clone(),
            InlineForm::Line { .. } | InlineForm::Rows { .. } => serde_json::Value::Null,
        }
    }
}

/// Whether `v` nests more than `limit` levels of arrays and objects.
fn depth_over(v: &serde_json::Value, limit: usize) -> bool {
    use serde_json::Value;
    // A walk with its own stack: a deep value is what it looks for.
    let mut todo: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = todo.pop() {
        match v {
            Value::Array(a) if d < limit => todo.extend(a.iter().map(|c| (c, d + 1))),
            Value::Object(m) if d < limit => todo.extend(m.values().map(|c| (c, d + 1))),
            Value::Array(_) | Value::Object(_) => return true,
            _ => {}
        }
    }
    false
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    /// Claude `cache_creation`: the 5-minute and 1-hour writes (None without the object).
    pub cache_creation: Option<CacheCreation>,
    /// Claude `cache_deleted_input_tokens` (cumulative; cached microcompact), when recorded.
    pub cache_deleted_input_tokens: Option<u64>,
    /// Claude `server_tool_use` with a count > 0: the usage sums internal calls (SPEC §10).
    pub aggregated: bool,
    /// Claude `iterations` holds a `"compaction"` entry: the server compacted the prompt.
    pub server_compaction: bool,
}

impl Usage {
    /// The prompt size P = input + cache writes + cache reads. Saturating: the
    /// counters are the transcript's, and three near 2^64 must not wrap.
    pub fn prompt(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// The context after the response: P + output (saturating, as [`Usage::prompt`]).
    pub fn context(&self) -> u64 {
        self.prompt().saturating_add(self.output_tokens)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheCreation {
    pub ephemeral_5m_input_tokens: u64,
    pub ephemeral_1h_input_tokens: u64,
}

#[derive(Debug, Clone)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
    /// View segment: 0 before the first compaction boundary, +1 after each.
    pub segment: usize,
    pub first_line: usize,
    /// Timestamp (ms since the epoch) of the message's last record that had one.
    pub last_ts: Option<i64>,
    pub last_ts_text: Option<String>,
    /// Assistant only: `message.id` (Claude) that grouped its lines.
    pub response_id: Option<String>,
    /// Assistant only: the Claude `requestId` of the group's last line that had
    /// one (SPEC §9a: a response is counted once by `message.id` + `requestId`).
    pub request_id: Option<String>,
    pub model: Option<String>,
    /// Boxed, as `context_client`: a long session holds tens of thousands of
    /// messages; a user message has neither, and few have the second (issue
    /// 41 item 5).
    pub usage: Option<Box<Usage>>,
    /// Claude `message.context_management.applied_edits` of the last line of the
    /// response that had it, verbatim (SPEC §10); None when no line had it.
    pub applied_edits: Option<Vec<serde_json::Value>>,
    /// Claude `message.context_management`'s `client_*` fields of the last line
    /// of the response that had any (SPEC §13.E4); None when no line had one.
    pub context_client: Option<Box<ContextClient>>,
    /// `parentUuid` of the message's first record (checks a budget boundary, §10).
    pub first_parent_uuid: Option<String>,
    /// True for messages rebuilt from a Qwen `compressedHistory` (not responses).
    pub synthetic: bool,
}

/// One response recorded outside the main thread (an inline sidechain's, or a
/// sub-agent file's): what SPEC §9a's recorded bill totals as `subagents`.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageLine {
    /// `message.id` and `requestId`: lines sharing both are one response.
    pub message_id: Option<String>,
    pub request_id: Option<String>,
    pub model: Option<String>,
    pub usage: Usage,
    /// The line's `timestamp` as written (SPEC §16.R BL1).
    pub at: Option<String>,
    /// 1-based line in its file (0: unknown).
    pub line: usize,
    /// `agentId` of the line, else of the file's name (`agent-<id>`): SPEC
    /// §16.B4.1's `acompact` summarizer.
    pub agent: Option<String>,
    /// The sub-agent file it was read from; None: the session's own file.
    pub path: Option<std::path::PathBuf>,
}

/// The client's own fields in `message.context_management` (Claude Code
/// 2.1.321+, SPEC §13.E4), as recorded; a malformed count is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextClient {
    pub cut_tool_uses: Option<u64>,
    pub sent_trigger_tool_uses: Option<u64>,
    pub sent_keep_tool_uses: Option<u64>,
    pub estimated_cleared_input_tokens: Option<u64>,
    /// `client_cleared_pdf_page_texts: true` (2.1.333+, SPEC §17.C.U6):
    /// Some(true) when recorded true, None otherwise (written only when true).
    pub cleared_pdf_page_texts: Option<bool>,
    /// `client_sent_exclude_tools`, as recorded (2.1.321+, SPEC §17.C.U6).
    pub sent_exclude_tools: Option<Vec<String>>,
}

/// A `tool_use` block / `functionCall` part.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub msg: usize,
    /// `input.file_path` / `args.file_path`, as recorded.
    pub file_path: Option<String>,
    /// Pre-0.13 Qwen `absolute_path`: shown, never protects.
    pub legacy_path: Option<String>,
    /// A short summary of the input for people: command, pattern, url, query.
    pub summary: Option<String>,
    pub cwd: Option<String>,
    /// Qwen: a bridged `tool_call` whose `args.name` is not a string (SPEC §3):
    /// a result answering it is never compactable.
    pub unparseable: bool,
}

/// A `tool_result` block / `functionResponse` part.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub id: String,
    /// Qwen: the response's own `name`. Claude: None (the call names the tool).
    pub name: Option<String>,
    pub msg: usize,
    /// UTF-16 code units of its text (SPEC §2).
    pub chars: u64,
    /// Images and documents (Claude) / inline media parts (Qwen).
    pub media: u32,
    pub est_tokens: u64,
    pub is_error: bool,
    pub already_cleared: bool,
    pub line: usize,
    /// Qwen: the part's place among its message's parts, and the mime type of the
    /// first media part nested in it (`functionResponse.parts`).
    pub part: usize,
    pub media_mime: Option<String>,
    /// Qwen `search_memory`-style outputs (`mode` `fetch` or `search`): the
    /// `{memoryRef, mtimeMs}` bodies they carry, in order.
    pub memory_bodies: Vec<(String, serde_json::Value)>,
    /// Claude: the content is a string, or only `text` and `image` blocks (a
    /// recorded cut may replace only such a result, SPEC §13.E1 condition 3).
    pub plain: bool,
    /// Its size is not in the transcript (a PDF page-text read, SPEC
    /// §17.C.U3, §18.17): `chars` and `est_tokens` are 0, and it adds 0 to
    /// every sum.
    pub size_unknown: bool,
    /// Where the pair comes from when it is not a block of the transcript's
    /// messages: `earlier_messages` (a compact summary's kept call, SPEC
    /// §17.C.U4); None otherwise.
    pub source: Option<&'static str>,
}

/// Top-level inline media in a Qwen message (not inside a functionResponse).
#[derive(Debug, Clone)]
pub struct Media {
    pub msg: usize,
    /// The part's place among the message's parts (as the wire sends them).
    pub part: usize,
    pub mime: String,
}

/// A Qwen request's send (SPEC §2): its kind and what the idle rule reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Send {
    pub kind: SendKind,
    /// A hook whose nearest earlier non-hook request is a goal turn: no plan runs.
    pub after_goal: bool,
    /// The last completion before now(k) in this process segment (ms).
    pub completion_ms: Option<i64>,
    /// Process segment (a `version` change starts one: a restart).
    pub process: usize,
    /// Something the transcript cannot settle, in words (an unknown subtype).
    pub note: Option<String>,
}

/// The point just before a response (or the trailing unanswered user content).
#[derive(Debug, Clone)]
pub struct Request {
    pub index: usize,
    /// The response this request produced; None for the trailing request.
    pub response: Option<usize>,
    /// Messages `view_start..end` are sent.
    pub view_start: usize,
    pub end: usize,
    pub segment: usize,
    pub at: Option<String>,
    pub now_ms: Option<i64>,
    pub gap_minutes: Option<f64>,
    pub begins_turn: bool,
    /// Qwen sessions: the kind of send; None for Claude and messages-json.
    pub send: Option<Send>,
    /// The `version` of the last main-thread record that carries one before
    /// this request (SPEC §7 `request.version`; `auto` and `budget` read it).
    pub version: Option<String>,
    /// The `entrypoint` of the last main-thread record that carries one before
    /// this request (SPEC §13.P: `cli` is the interactive terminal).
    pub entrypoint: Option<String>,
    /// Messages of `view_start..end` on a dead branch at this request (SPEC §2
    /// rewinds, §15.1): not inputs, no rank, keep slot or size. Empty in a file
    /// without a rewind or fork.
    pub dead: Vec<std::ops::Range<usize>>,
    /// The session records the harness running its own plan (OpenCode's prune
    /// marks, SPEC §15.14): `auto` runs it whatever the version's default.
    pub plan_recorded: bool,
}

impl Request {
    /// Request `index` over no messages: no response, no time, a turn start
    /// (the plan of a session without requests, and a base for tests).
    pub fn empty(index: usize) -> Request {
        Request {
            index,
            response: None,
            view_start: 0,
            end: 0,
            segment: 0,
            at: None,
            now_ms: None,
            gap_minutes: None,
            begins_turn: true,
            send: None,
            version: None,
            entrypoint: None,
            dead: Vec::new(),
            plan_recorded: false,
        }
    }

    /// Whether the request continues a tool loop (sends the results of the
    /// calls of the reply before it): as the session's send records say where
    /// it has them (a `tool_result` send), else every request that does not
    /// begin a turn.
    pub fn continues_tool_loop(&self) -> bool {
        match &self.send {
            Some(send) => send.kind == SendKind::ToolResult,
            None => !self.begins_turn,
        }
    }

    /// Whether message `m` sits on a dead branch at this request.
    pub fn is_dead(&self, m: usize) -> bool {
        self.dead.iter().any(|r| r.contains(&m))
    }

    /// The place of message `m` (of the view) in the request's body: the
    /// messages before it in the view, dead ones left out (SPEC §15.1: the
    /// body is the chain alone).
    pub fn wire_pos(&self, m: usize) -> usize {
        let dead_before: usize = self
            .dead
            .iter()
            .map(|r| r.start.max(self.view_start)..r.end.min(m))
            .map(|r| r.len())
            .sum();
        m.saturating_sub(self.view_start) - dead_before
    }
}

/// What the API preset (SPEC §11) reads of each message beyond the model:
/// SPEC §2's token estimate of its blocks, its thinking, and its tool uses'
/// inputs. Made on first use (`policy::engine`), from what the loader
/// measured of each record, and read back where it measured not all.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ApiFacts {
    pub msgs: Vec<MsgFacts>,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct MsgFacts {
    /// Every block: text, thinking, `tool_use` input as JSON, `tool_result`,
    /// images and documents at 2000.
    pub tokens: u64,
    pub thinking_tokens: u64,
    pub thinking_blocks: usize,
    pub uses: Vec<UseFact>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UseFact {
    /// Shared, so a plan carrying the uses of a view keeps its ids without
    /// copying them.
    pub id: std::sync::Arc<str>,
    pub name: String,
    pub input_tokens: u64,
}

#[derive(Debug, Clone)]
pub struct Session {
    pub path: PathBuf,
    pub format: Format,
    pub harness: HarnessId,
    /// Per call, where a result's recorded paths are a set (SPEC §3: Qwen
    /// Code and Gemini CLI collect each id's paths in order, deduplicated):
    /// the latest earlier call with the same id that names the same file,
    /// so a view that holds both counts the path once. Found once at load
    /// (`load::normalize`): deduplicating per result per request copied
    /// every path. Empty where paths are a list.
    pub path_repeats: Vec<Option<usize>>,
    /// Lines that parsed as JSON records (every type).
    pub records: usize,
    pub sidechain_records: usize,
    /// Tool calls in those records: left out of the simulation too.
    pub sidechain_calls: usize,
    /// The usage of those records' responses, one entry per line with usage in
    /// file order (SPEC §9a: billed, never simulated).
    pub sidechain_usage: Vec<UsageLine>,
    /// The first `sessionId` a main-thread record carries (Claude).
    pub session_id: Option<String>,
    /// A sub-agent transcript opened on its own, planned as a what-if.
    pub subagent_what_if: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// Records kept with a field that could not be read (SPEC §15.2).
    pub warnings: Vec<SessionWarning>,
    pub messages: Vec<Message>,
    pub calls: Vec<ToolCall>,
    pub results: Vec<ToolResult>,
    pub media: Vec<Media>,
    pub requests: Vec<Request>,
    pub evidence: Vec<Evidence>,
    /// Claude `tool_results_cut` records, in file order (SPEC §13.E1).
    pub cuts: Vec<CutRecord>,
    /// Per result, where it stands cut; empty when no record cut anything.
    pub cut: Vec<Option<CutMark>>,
    /// `thinking_stripped` records and resume notes (SPEC §13.E2, E3).
    pub thinking_strips: Vec<ThinkingStrip>,
    pub resume_notes: Vec<ResumeNote>,
    /// The model named by the body (messages-json) or the last response.
    pub model: Option<String>,
    /// What the harness itself says the responses cost, summed (OpenCode's
    /// `cost` per assistant message, SPEC §15.14); None when it records none.
    pub harness_usd: Option<f64>,
    /// Whether some record may anchor a return after idle (SPEC §13.S1: an
    /// assistant record with a numeric `apiBlockIndex` or `joinedApiReply:
    /// true`). Without one, idle-server finds no return, so its facts are not
    /// read back from the file. True unless a loader says otherwise.
    pub return_anchor: bool,
    /// The tool ids by number, made on first use and shared by every plan.
    pub id_table: std::sync::OnceLock<std::sync::Arc<IdTable>>,
    /// Per result, the harness's own token estimate (Gemini CLI's
    /// `estimateTokenCountSync`; OpenCode's, what its prune counts; None: a
    /// null response, never counted). Empty for harnesses without one.
    pub harness_tokens: Vec<Option<u64>>,
    /// What the harness writes over an output it masks (Gemini CLI's).
    pub masking: Masking,
    /// View segments that begin at a rewind, not at a compaction (Gemini
    /// CLI's `$rewindTo` starts the view again from what it keeps).
    pub rewind_segments: Vec<usize>,
    /// The harness's own turns, where its plan counts by them (OpenCode's).
    pub turns: Turns,
    /// What an OpenCode export says of itself (SPEC §17.O.5, §17.O.7); None
    /// for every other file.
    pub export: Option<ExportFacts>,
    /// What the bill reads of a Claude transcript beside its messages (SPEC
    /// §16.B5, §16.B6, §16.R BL1).
    pub bill_marks: BillMarks,
    /// What a harness's loader records beyond this model, read back by type
    /// by that harness's own plan and evidence (a Cline task's facts).
    pub own: OwnFacts,
    /// The session records the harness summarizing its history where its
    /// plan would truncate (Cline's auto-condense, SPEC §18.4).
    pub condensed: bool,
}

/// A harness's own facts of a session (see [`Session::own`]): one value of
/// the loader's type, shared by every copy of the session.
#[derive(Clone, Default)]
pub struct OwnFacts(Option<std::sync::Arc<dyn std::any::Any + std::marker::Send + Sync>>);

impl OwnFacts {
    /// Facts of type `T`.
    pub fn of<T: std::any::Any + std::marker::Send + Sync>(facts: T) -> OwnFacts {
        OwnFacts(Some(std::sync::Arc::new(facts)))
    }

    /// The facts, where they are of type `T`.
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.as_deref().and_then(|a| a.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for OwnFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "OwnFacts(..)"
        } else {
            "OwnFacts(None)"
        })
    }
}

/// What the cache-write bill reads of a Claude Code transcript beside its
/// messages. Filled by the Claude loader; empty for other formats (the bill
/// then falls back to `Request::now_ms` and the response's last timestamp).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BillMarks {
    /// Per request (index k − 1): SPEC §16.B5's now(k), the timestamp of the
    /// last main-thread `user`, `attachment`, `system` or `progress` record
    /// before the response.
    pub sent_ms: Vec<Option<i64>>,
    /// Per request: the timestamp of the response's first line, as written
    /// (SPEC §16.R BL1: the row a response belongs to).
    pub first_at: Vec<Option<String>>,
    /// Main-thread `SessionStart` hook records (SPEC §16.B6): their line and
    /// `hookName` as written (possibly empty).
    pub starts: Vec<(usize, String)>,
    /// The `cwd` of the first main-thread response (SPEC §18.12's project).
    pub cwd: Option<String>,
}

/// What an `opencode export` file says of itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportFacts {
    /// `--sanitize` wrote it: the outputs' sizes are unknown (SPEC §17.O.5).
    pub sanitized: bool,
    /// Its publisher replaced parts of outputs with `REDACTED` (§17.O.7).
    pub redacted_outputs: bool,
}

impl Session {
    /// P(k): the prompt size request `k`'s response recorded (input + cache
    /// writes + cache reads; for Qwen the loader keeps input = P − R and no
    /// writes).
    pub fn recorded_prompt(&self, k: usize) -> Option<u64> {
        let req = self.request(k)?;
        let u = self.messages.get(req.response?)?.usage.as_ref()?;
        Some(u.prompt())
    }

    /// Whether request index `i` (0-based) is the first of a view that a
    /// compaction began: a later segment than the request before it, unless
    /// a rewind began it.
    pub fn compacted_before(&self, i: usize) -> bool {
        i > 0
            && i < self.requests.len()
            && self.requests[i].segment != self.requests[i - 1].segment
            && !self.rewind_segments.contains(&self.requests[i].segment)
    }

    /// Whether a `tool_results_cut` record is in the view of request `at`, or
    /// (None) of any request (SPEC §13.C `claude_cut_flags`; the union over the
    /// requests).
    pub fn cut_in_view(&self, at: Option<usize>) -> bool {
        self.cuts.iter().any(|c| match (c.request, at) {
            (Some(_), None) => true,
            (Some(k), Some(at)) => {
                k <= at && self.request(at).is_some_and(|r| r.segment == c.segment)
            }
            (None, _) => false,
        })
    }

    pub fn empty(path: PathBuf, format: Format) -> Session {
        Session {
            path,
            format,
            harness: format.harness(),
            path_repeats: Vec::new(),
            records: 0,
            sidechain_records: 0,
            sidechain_calls: 0,
            sidechain_usage: Vec::new(),
            session_id: None,
            subagent_what_if: false,
            diagnostics: Vec::new(),
            warnings: Vec::new(),
            messages: Vec::new(),
            calls: Vec::new(),
            results: Vec::new(),
            media: Vec::new(),
            requests: Vec::new(),
            evidence: Vec::new(),
            cuts: Vec::new(),
            cut: Vec::new(),
            thinking_strips: Vec::new(),
            resume_notes: Vec::new(),
            model: None,
            harness_usd: None,
            id_table: std::sync::OnceLock::new(),
            harness_tokens: Vec::new(),
            masking: Masking::default(),
            rewind_segments: Vec::new(),
            turns: Turns::default(),
            return_anchor: true,
            export: None,
            bill_marks: BillMarks::default(),
            own: OwnFacts::default(),
            condensed: false,
        }
    }

    /// Where result `r` is stored: the result it repeats (see
    /// `result_copies`), else itself.
    pub fn stored(&self, r: usize) -> usize {
        if self.turns.result_copies.is_empty() {
            return r;
        }
        self.turns.result_copies.get(&r).copied().unwrap_or(r)
    }

    /// Whether a loop of the harness ended just before request `k` (1-based):
    /// with the response of request `k − 1` (see `loop_ends`).
    pub fn loop_ended_before(&self, k: usize) -> bool {
        k >= 2 && self.turns.loop_ends.get(k - 2).copied().unwrap_or(false)
    }

    /// Responses: the assistant messages that were real responses, in order.
    pub fn responses(&self) -> impl Iterator<Item = &Message> {
        self.messages
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.synthetic)
    }

    /// Index range into `results` of the results in messages `start..end`.
    pub fn results_in(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        range_by_msg(&self.results, |r| r.msg, start, end)
    }

    /// The end of `results_in(_, end)` found by walking on from `from`, an
    /// index no further than it: a view that grows request by request pays
    /// for its new results only (no search over the whole session).
    pub fn results_end_from(&self, from: usize, end: usize) -> usize {
        walk_by_msg(&self.results, |r| r.msg, from, end)
    }

    /// The same for `calls_in`.
    pub fn calls_end_from(&self, from: usize, end: usize) -> usize {
        walk_by_msg(&self.calls, |c| c.msg, from, end)
    }

    /// The tool ids by number (made once, then shared).
    ///
    /// Its maps hash with foldhash (as `fasthash::FastMap` does; the session
    /// names no module but the shared words): one entry per call and result
    /// id, where SipHash was most of the table's cost on a large session.
    pub fn ids(&self) -> std::sync::Arc<IdTable> {
        self.id_table
            .get_or_init(|| {
                type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
                let mut number: FastMap<&str, u32> = FastMap::default();
                fn of<'a>(number: &mut FastMap<&'a str, u32>, id: &'a str) -> u32 {
                    let n = number.len() as u32;
                    *number.entry(id).or_insert(n)
                }
                let call = self
                    .calls
                    .iter()
                    .map(|c| of(&mut number, c.id.as_str()))
                    .collect();
                let result = self
                    .results
                    .iter()
                    .map(|r| of(&mut number, r.id.as_str()))
                    .collect();
                let mut name_number = FastMap::default();
                let call_name = self
                    .calls
                    .iter()
                    .map(|c| of(&mut name_number, c.name.as_str()))
                    .collect();
                let mut names = vec![String::new(); name_number.len()];
                for (name, n) in name_number {
                    names[n as usize] = name.to_string();
                }
                let user = self.messages.iter().map(|m| m.role == Role::User).collect();
                let usage_context = self
                    .messages
                    .iter()
                    .map(|m| {
                        m.usage
                            .as_deref()
                            .filter(|_| {
                                m.role == Role::Assistant
                                    && !m.synthetic
                                    && m.model.as_deref() != Some(SYNTHETIC_MODEL)
                            })
                            .map(Usage::context)
                    })
                    .collect();
                let mut version_number = FastMap::default();
                let version = self
                    .requests
                    .iter()
                    .map(|q| {
                        q.version
                            .as_deref()
                            .map_or(u32::MAX, |v| of(&mut version_number, v))
                    })
                    .collect();
                std::sync::Arc::new(IdTable {
                    call,
                    result,
                    len: number.len(),
                    call_name,
                    names,
                    user,
                    usage_context,
                    version,
                })
            })
            .clone()
    }

    /// Index range into `calls` of the calls in messages `start..end`.
    pub fn calls_in(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        range_by_msg(&self.calls, |c| c.msg, start, end)
    }

    pub fn media_in(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        range_by_msg(&self.media, |m| m.msg, start, end)
    }

    /// Where result `r` stands cut by a recorded `tool_results_cut`, if it does.
    pub fn cut_mark(&self, r: usize) -> Option<CutMark> {
        self.cut.get(r).copied().flatten()
    }

    /// Whether result `r` is cut in the wire of request `k` (SPEC §13.E1).
    pub fn cut_at(&self, r: usize, k: usize) -> bool {
        self.cut_mark(r).is_some_and(|m| m.at <= k)
    }

    /// The stand-in a cut result reads in the wire (SPEC §13.E1).
    pub fn cut_stand_in(&self, r: usize) -> Option<&str> {
        let m = self.cut_mark(r)?;
        self.cuts.get(m.record)?.stand_in.as_deref()
    }

    /// Request `index` (1-based), if the session has it.
    pub fn request(&self, index: usize) -> Option<&Request> {
        index.checked_sub(1).and_then(|i| self.requests.get(i))
    }
}

/// Items are stored in message order, so a view is a contiguous range.
fn walk_by_msg<T>(items: &[T], msg: impl Fn(&T) -> usize, from: usize, end: usize) -> usize {
    let mut i = from.min(items.len());
    while i < items.len() && msg(&items[i]) < end {
        i += 1;
    }
    i
}

fn range_by_msg<T>(
    items: &[T],
    msg: impl Fn(&T) -> usize,
    start: usize,
    end: usize,
) -> std::ops::Range<usize> {
    let lo = items.partition_point(|x| msg(x) < start);
    let hi = items.partition_point(|x| msg(x) < end);
    lo..hi.max(lo)
}

#[cfg(test)]
mod tests;
