//! What the engine reports: each candidate's status and why, the clearings in
//! force, the `cache_edits` blocks, and the step of one request.

use super::super::protect::{Protection, RecordedPath};
use super::PlanKind;
use super::reason::{ClearReason, Note, Reason};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(into = "&'static str")]
pub enum Status {
    Kept,
    Cleared,
    Protected,
    AlreadyCleared,
    /// Replaced by a recorded `tool_results_cut` (SPEC §13.E1): a fact in every plan.
    Cut,
    ErrorKept,
    NotCompactable,
}

impl Status {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The api edits' names are the API's own type names (`crate::policy::api`'s
/// `CLEAR_TOOL_USES`, `CLEAR_THINKING`, checked by a test there).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::VariantArray,
)]
#[strum(serialize_all = "lowercase")]
#[serde(into = "&'static str")]
pub enum Trigger {
    Idle,
    Forced,
    Size,
    Count,
    Budget,
    #[strum(serialize = "idle-server")]
    IdleServer,
    /// Plan kind `recorded` (SPEC §15.3): the budget writer's boundary ids,
    /// which stay in force over the view as budget's do.
    Recorded,
    /// Plan kind `recorded`: the ids of an applied server edit, in force at
    /// its request only (as idle-server's, SPEC §13.S8).
    #[strum(serialize = "recorded")]
    RecordedServer,
    #[strum(serialize = "clear_tool_uses_20250919")]
    ClearToolUses,
    #[strum(serialize = "clear_thinking_20251015")]
    ClearThinking,
    /// Gemini CLI's tool-output masking (SPEC §15.13 `"mask"`).
    Mask,
    /// OpenCode's prune (SPEC §15.13): cumulative and permanent in the view.
    Prune,
    /// Cline's context manager (SPEC §18.2): its notices and its truncated
    /// range last for the rest of the task.
    Cline,
}

impl Trigger {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A clearing still in force: when, by what, and why.
#[derive(Debug, Clone)]
pub struct Clearing {
    pub at: usize,
    pub trigger: Trigger,
    pub reason: ClearReason,
}

/// One `cache_edits` block: created at request `at`, pinned at message `msg`.
#[derive(Debug, Clone)]
pub struct EditBlock {
    pub at: usize,
    pub msg: usize,
    pub results: Vec<usize>,
}

/// A tool result in the view of a request, with its fate there.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index into `Session::results`.
    pub result: usize,
    pub tool: Option<String>,
    pub compactable: bool,
    pub rank: Option<usize>,
    /// The first recorded path (file-path tools), for people.
    pub path: Option<String>,
    /// Command, pattern, url… for tools without a path.
    pub summary: Option<String>,
    pub paths: Vec<RecordedPath>,
    pub file_path_tool: bool,
    pub protection: Option<Protection>,
    pub pending: bool,
    pub status: Status,
    pub reason: Reason,
    pub cleared_at: Option<usize>,
    /// On a dead branch at this request (SPEC §2 rewinds, §15.1): shown, but
    /// not compactable, ranked, kept or counted.
    pub dead_branch: bool,
}

impl Candidate {
    pub(super) fn protected(&self) -> bool {
        self.protection
            .as_ref()
            .is_some_and(|p| p.outcome.protects())
    }
}

/// What happened at one request.
#[derive(Debug, Clone)]
pub struct Step {
    pub index: usize,
    /// The plan kind in force here (what `auto` chose, or the kind asked for);
    /// None where `auto` runs nothing (a Qwen notification, goal turn…).
    pub kind: Option<PlanKind>,
    /// The trigger that fired here; None where no plan fired.
    pub trigger: Option<Trigger>,
    /// Result indices newly cleared here, in rank order.
    pub newly_cleared: Vec<usize>,
    /// Result indices cleared in this request's wire (in force), in rank order.
    pub cleared: Vec<usize>,
    /// Qwen media items cleared or stripped in this request's wire, as
    /// `(message, media index)` / `(message, media count + result index)`.
    pub media_in_wire: Vec<(usize, usize)>,
    pub tokens_saved: u64,
    pub chars_before: u64,
    pub chars_after: u64,
    pub target_chars: Option<u64>,
    pub media_cleared: usize,
    pub media_kept: usize,
    /// The idle gap the plan read here: the request's, or at a Qwen hook the
    /// time since the hook checkpoint (SPEC §2).
    pub gap_minutes: Option<f64>,
    /// `budget`: Σ tokens of the eligible results (SPEC §7 `metadata.pre_tokens`).
    pub pre_tokens: Option<u64>,
    /// Why the plan fired or not (`report::words` says it in words).
    pub note: Note,
    /// The `api` plan (SPEC §11): the prompt it read and each edit's outcome.
    pub api: Option<Box<super::ApiStep>>,
    /// `idle-server` (SPEC §13.S10): the return, the edit, what the server did.
    pub idle_server: Option<Box<super::IdleServerStep>>,
    /// A tracked engine's account of what changed in the wire here (then
    /// `cleared` is empty); None from any other engine (see `Engine::tracked`).
    pub wire: Option<Box<super::WireDelta>>,
    /// Results the plan marked outside the view, which no later request
    /// sends (OpenCode's prune scanning past a compaction in the latest two
    /// turns): part of what it did, never of the wire.
    pub marked_elsewhere: Vec<usize>,
}

impl Step {
    /// Whether a plan fired here: it did exactly when it has a trigger.
    pub fn fired(&self) -> bool {
        self.trigger.is_some()
    }
}
