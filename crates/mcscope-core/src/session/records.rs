//! What a transcript records of the harness's own doings beyond its messages:
//! clearing records, cuts, stripped thinking, resume notes (SPEC §10, §13.E).

use serde::Serialize;

/// A Claude `microcompact_boundary` record: what the harness itself cleared.
/// Where it belongs (SPEC §10) is decided by `evidence::attach` from where it sits.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    pub line: usize,
    /// The request this record precedes (1-based), if any.
    pub before_request: usize,
    pub compacted_tool_ids: Vec<String>,
    /// Whether every entry of `compactedToolIds` was a string (false: the list
    /// holds other values, or is not a list): a comparison is then never `agrees`.
    pub ids_complete: bool,
    /// `preTokens > 0` as written (a malformed positive number included): the
    /// budget writer's record, else the cached writer's.
    pub budget_writer: bool,
    /// `microcompactMetadata.preTokens` (> 0: the budget plan wrote it; 0: cached
    /// microcompact) and `tokensSaved`, as recorded.
    pub pre_tokens: Option<u64>,
    pub tokens_saved: Option<u64>,
    /// The record's own `uuid` (the next response's first record names it as parent).
    pub uuid: Option<String>,
    /// The last request whose response began before the record (0: none).
    pub after_request: usize,
    /// The view segment the record sits in (a later compaction boundary starts another).
    pub segment: usize,
    /// A Gemini CLI masking the file records (its checkpoint), not a Claude
    /// boundary: compared with the `mask` plan (SPEC §14).
    pub mask: bool,
    /// OpenCode's prune marked these results (`state.time.compacted`, SPEC
    /// §14): like a budget writer's boundary (`budget_writer` is set too), but
    /// compared with the simulated `prune`.
    pub pruned: bool,
    /// The harness's own context manager edited these results (Cline's
    /// `context_history.json` notices, SPEC §17.K.4): compared with the
    /// simulated `cline`.
    pub context_edit: bool,
}

/// A Claude `tool_results_cut` attachment (SPEC §13.E1): results Claude Code
/// itself replaced by a stand-in. Its outcome is decided once the session is
/// loaded (`load::claude::cuts`): which ids it replaced, and why not the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CutRecord {
    pub line: usize,
    /// The request it is attached to: the first whose response comes after it
    /// (None: no request follows it).
    pub request: Option<usize>,
    pub segment: usize,
    /// `callIds` as recorded (its string entries; none when it is not a list).
    pub call_ids: Vec<String>,
    pub ids_listed: bool,
    /// `standIn`, when it is a string.
    pub stand_in: Option<String>,
    pub rough_tokens: Option<u64>,
    /// `cause` as recorded: None absent or null.
    pub cause: Option<String>,
    /// The ids it replaced at its request, in record order.
    pub applied: Vec<String>,
    /// The ids it did not, with the reason (SPEC §13.E1's reason ids).
    pub not_applied: Vec<(String, &'static str)>,
}

/// Where a result stands cut (SPEC §13.E1): the record that gave its stand-in
/// and the first request whose wire carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutMark {
    /// Index into `Session::cuts`.
    pub record: usize,
    pub at: usize,
}

/// A Claude `thinking_stripped` attachment (SPEC §13.E2): from its request on,
/// the thinking of every assistant message before it is left out of the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkingStrip {
    pub line: usize,
    pub request: Option<usize>,
    pub segment: usize,
    /// Messages `..before_msg` lie before the record.
    pub before_msg: usize,
    pub scope: Option<String>,
    pub cause: Option<String>,
}

/// A `critical_system_reminder` that says the chat resumed after a long pause
/// (SPEC §13.E3): a marker of a return, attached to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumeNote {
    pub line: usize,
    pub request: Option<usize>,
}
