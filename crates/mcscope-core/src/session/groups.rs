//! The session's groups of facts that one harness's rules read (Gemini CLI's
//! masking, OpenCode's turns) and the ids numbered once.

/// What a harness writes over an output it masks, by result (Gemini CLI's
/// `<tool_output_masked>`): empty for harnesses without masking.
#[derive(Debug, Clone, Default)]
pub struct Masking {
    /// The estimate of the masked part (u64::MAX: never masked).
    pub tokens: Vec<u64>,
    /// The snippet the file itself recorded over a result (a masking
    /// record's text); the others are made when a wire is written
    /// (`harness::gemini_cli::masked_text`), from the two facts below.
    pub recorded: std::collections::HashMap<usize, String>,
    /// The project's temporary folder the snippets name.
    pub project_tmp: String,
    /// The session id the snippets' folder names.
    pub session_id: Option<String>,
    /// Originals the harness saved apart from the transcript (Gemini CLI's
    /// `tool-outputs/`), for an output the file holds only masked: what `v`
    /// shows (read only inside the session's own folder tree).
    pub saved_originals: std::collections::HashMap<usize, String>,
}

/// The harness's own turn structure, where its plan counts by it (OpenCode's
/// prune): empty for harnesses whose plans do not ask.
#[derive(Debug, Clone, Default)]
pub struct Turns {
    /// Each of the harness's own user messages, in order, as (requests made
    /// before it, results before it): OpenCode's prune counts turns by them,
    /// every one (a prompt, a compaction's, a synthetic continue, one that got
    /// no reply), where the normalized messages merge neighbours.
    pub user_messages: Vec<(usize, usize)>,
    /// The harness's compaction summaries, failed ones too, as (user messages
    /// before, results before): where OpenCode's prune scan stops (an
    /// assistant message with `summary: true`).
    pub summaries: Vec<(usize, usize)>,
    /// Results a later view repeats (OpenCode 1.18's retained tail after a
    /// compaction), each with the result it repeats: the same stored part.
    pub result_copies: std::collections::HashMap<usize, usize>,
    /// Per request, whether the harness's agent loop ended with its response
    /// (OpenCode runs prune then, so the next request is where its marks take
    /// effect).
    pub loop_ends: Vec<bool>,
    /// The requests that are a compaction's own summary request (OpenCode):
    /// they send the summarizer's prompt, so a cache break there is the
    /// compaction's.
    pub summary_requests: Vec<usize>,
}

/// Every tool id of the session numbered once: calls and results with the
/// same id have the same number (`0..len`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdTable {
    /// The number of `calls[i]`'s id.
    pub call: Vec<u32>,
    /// The number of `results[i]`'s id.
    pub result: Vec<u32>,
    pub len: usize,
    /// `calls[i].name` by number (`names[call_name[i]]`): a session has few
    /// tool names, so a plan reading a call's name reads one of a few
    /// strings that stay in the cache, not the call's own copy.
    pub call_name: Vec<u32>,
    pub names: Vec<String>,
    /// Per message, what a view growing over it reads, kept apart from the
    /// message (several cache lines each, which every setting read again):
    /// whether it is a user message, and the context its recorded usage
    /// reports where a view counts it (a response, not synthetic), else None.
    pub user: Vec<bool>,
    pub usage_context: Vec<Option<u64>>,
    /// Per request, its `version` by number (equal numbers, equal versions;
    /// `u32::MAX`: none), so that a plan noting a new process compares
    /// numbers, not each request's own copy of the string.
    pub version: Vec<u32>,
}
