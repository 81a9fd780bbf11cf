//! What mcscope reads of a Cline task beyond the shared session model
//! (`Session::own`): what its context manager counts and may replace, per
//! history message, each request's recorded usage and range, and the edits
//! `context_history.json` records. Its plan (`policy/engine/cline.rs`) and
//! its evidence read it back by type.

/// Reference §2.3: `EditType` (v4.0.12 `ContextManager.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// 2 READ_FILE_TOOL: a `read_file` result.
    Read,
    /// 3 ALTER_FILE_TOOL: a `write_to_file` / `replace_in_file` result's final content.
    Alter,
    /// 4 FILE_MENTION: an @-mentioned file's content.
    Mention,
}

impl EditKind {
    /// The number `context_history.json` writes for it.
    pub fn number(self) -> u64 {
        match self {
            EditKind::Read => 2,
            EditKind::Alter => 3,
            EditKind::Mention => 4,
        }
    }
}

/// One message of `api_conversation_history.json`.
#[derive(Debug, Clone, Default)]
pub struct HistMessage {
    pub user: bool,
    /// The session's message it is part of.
    pub msg: usize,
    /// Per content block, the characters the rule counts (reference §3.2:
    /// text, and base64 image data); None: a block it does not count.
    pub blocks: Vec<Option<u64>>,
}

/// A place the rule may replace with its notice (reference §3.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// History message and block.
    pub hist: usize,
    pub block: usize,
    pub kind: EditKind,
    /// The path as the header or the tag writes it (compared as a string).
    pub path: String,
    /// The result it clears (index into `Session::results`).
    pub result: usize,
    /// The characters the replacement saves in its block (negative where
    /// the notice is longer than what it replaces).
    pub saved: i64,
}

/// One request as Cline recorded it (its `api_req_started`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskRequest {
    /// The history's length when it was sent (the new user message included):
    /// reference §3.3's `apiMessages.length`.
    pub sent: usize,
    /// The previous request's total (tokensIn + tokensOut + cacheWrites +
    /// cacheReads), what the trigger reads (reference §3.1); None: there is
    /// no previous request, or it has no usage.
    pub prev_total: Option<u64>,
    /// The previous request's `ts`: the timestamp of the edits it triggered.
    pub prev_ts: Option<i64>,
    /// The model id, for the window (SPEC §18.4).
    pub model: Option<String>,
    /// The recorded `conversationHistoryDeletedRange` (inclusive).
    pub deleted_range: Option<(usize, usize)>,
}

/// One update of `context_history.json` (reference §2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedEdit {
    pub hist: usize,
    /// The message's `EditType` number (0 the truncation notice).
    pub kind: u64,
    pub block: usize,
    /// The `ts` of the request whose usage triggered it.
    pub ts: i64,
    /// FILE_MENTION: the paths replaced in the block so far.
    pub paths: Vec<String>,
    /// Its place among the block's updates (the last one wins).
    pub last: bool,
}

/// Everything the Cline loader gathers beside the session.
#[derive(Debug, Clone, Default)]
pub struct TaskFacts {
    pub history: Vec<HistMessage>,
    /// Every place the rule may replace, in history order.
    pub occurrences: Vec<Occurrence>,
    /// Per result: its history message, and whether it is a native
    /// `tool_result` block (removed after a truncated range, reference §3.4).
    pub result_hist: Vec<usize>,
    pub result_native: Vec<bool>,
    /// Per request (index k − 1).
    pub requests: Vec<TaskRequest>,
    /// `context_history.json`'s updates, in file order; None: the file is absent.
    pub edits: Option<Vec<RecordedEdit>>,
    /// The task has its `ui_messages.json` (the recorded ranges are known).
    pub has_ui: bool,
    /// The task records an auto-condense summary (`summarize_task`, SPEC §18.4).
    pub condensed: bool,
}
