//! Why the engine did what it did, as values: the step's note, each clearing's
//! reason, each candidate's reason and each api edit's outcome. The engine only
//! records the numbers a sentence needs; the words are made at the edge
//! (`report::words`), so a step nobody reads costs no allocation.

use super::TokenSource;
use crate::policy::api::TriggerOn;
pub use crate::vocab::NoRun;

/// A candidate's place among the view's ranked results (`rank 3 of 7`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// None: not ranked (not compactable, or no call).
    pub rank: Option<usize>,
    pub of: usize,
}

/// What `idle` or `forced` read when it acted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeWhy {
    /// The gap reached the threshold.
    Idle { gap: Option<f64>, threshold: f64 },
    /// `forced` at the viewed request.
    Forced { at: usize },
}

/// The size plan over its threshold: the total, the threshold and the target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeWhy {
    pub total: u64,
    pub threshold: u64,
    pub target: u64,
}

/// The count plan's reading: active results and the trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountWhy {
    pub active: usize,
    pub trigger: usize,
}

/// The budget plan's usage gate: the last recorded usage and the warning level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    pub usage: Option<u64>,
    pub warning: u64,
}

/// The budget plan past its gate: the eligible tokens against the budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetWhy {
    pub gate: Gate,
    pub pre_tokens: u64,
    pub budget: u64,
}

/// A `clear_tool_uses` trigger's reading (SPEC §11).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApiTrigger {
    pub on: TriggerOn,
    pub tokens: u64,
    pub uses: usize,
    /// Whether the trigger holds, and whether it holds at equality.
    pub holds: bool,
    pub inclusive: bool,
}

/// The prompt the api plan read: its input tokens, their source, its tool uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prompt {
    pub tokens: u64,
    pub source: TokenSource,
    pub uses: usize,
}

/// What one api edit did at a request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EditNote {
    /// `clear_tool_uses`: the trigger does not hold.
    NotFired { trigger: ApiTrigger },
    /// `clear_tool_uses`: it would clear fewer tokens than `clear_at_least`.
    TooLittle {
        trigger: ApiTrigger,
        tokens: u64,
        at_least: u64,
    },
    /// `clear_tool_uses` applied.
    Applied {
        trigger: ApiTrigger,
        uses: usize,
        tokens: u64,
    },
    /// `clear_thinking`: the turns whose thinking went (keep None: keep all).
    Thinking { turns: usize, keep: Option<u64> },
}

/// Why the plan fired or not at a request (the step's note).
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// The session has no requests (an empty plan).
    NoRequests,
    /// No plan runs at this request (auto chose none, or the send runs none).
    NotRun(NoRun),
    /// The harness does not look at the gap at this send.
    IdleNotRun(NoRun),
    IdleDisabled,
    IdleUnderGap {
        gap: Option<f64>,
        threshold: f64,
    },
    ForcedElsewhere {
        at: usize,
    },
    /// `idle` or `forced` acted.
    Time(TimeWhy),
    /// `idle` or `forced` would act, but clearing saves no tokens.
    TimeSavesNothing(TimeWhy),
    /// The harness runs no size check at this send.
    SizeNotRun(NoRun),
    /// Qwen: a negative gap turns the size check off unless its threshold is set.
    SizeOffWithIdle,
    SizeDisabled,
    SizeUnder {
        total: u64,
        threshold: u64,
    },
    /// Over the threshold; `overage`: what could go when it was not enough.
    Size {
        why: SizeWhy,
        overage: Option<u64>,
    },
    CountUnder(CountWhy),
    Count(CountWhy),
    CountNothingSent(CountWhy),
    /// Below the usage gate (or no usage recorded).
    BudgetGate(Gate),
    Budget {
        why: BudgetWhy,
        saved: u64,
    },
    BudgetWithin(BudgetWhy),
    BudgetMinSaving {
        why: BudgetWhy,
        saved: u64,
        min: u64,
    },
    /// `idle-server` (SPEC §13.S): the return, the edit, the server's answer.
    IdleServer(super::IdleServerWhy),
    /// The api plan: the prompt it read and each edit's outcome, in order.
    Api {
        prompt: Prompt,
        edits: Vec<EditNote>,
    },
    /// `recorded` (SPEC §9a): what the records prove was cleared here.
    Recorded(super::RecordedWhy),
    /// `mask` (SPEC §14): the prunable tokens past the protected window, and
    /// the least that lets it mask; `masked` how many it masked.
    MaskUnder(MaskWhy),
    Mask {
        why: MaskWhy,
        masked: usize,
        saved: u64,
    },
    /// `prune` (OpenCode): it runs after a loop ends, so not at a request that
    /// continues one.
    PruneMidLoop,
    /// `prune` ran after the last loop and marked results.
    Prune {
        why: PruneWhy,
        /// How many of the marked results are outside the view (no request
        /// sends them: `Step::marked_elsewhere`).
        elsewhere: usize,
    },
    /// `prune` ran, and what it could free was not over the minimum.
    PruneUnder(PruneWhy),
}

/// What `mask` weighed at a request (Gemini CLI `toolOutputMaskingService.ts`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskWhy {
    /// The harness's tokens of the outputs past the protected window.
    pub prunable: u64,
    pub min_prunable: u64,
    pub protect: u64,
}

/// What OpenCode's prune counted (reference §2.3): the estimates of the
/// candidates it scanned (`total`), of those past the protection (`pruned`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PruneWhy {
    pub total: u64,
    pub pruned: u64,
    pub protect: u64,
    pub minimum: u64,
}

/// Why a clearing was made (kept with it while it stays in force).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClearReason {
    /// Outside the keep window of `idle`/`forced`: of compactable calls
    /// (Claude) or of clearable results (Qwen, `clearable`).
    Time {
        why: TimeWhy,
        rank: Rank,
        keep: usize,
        clearable: bool,
    },
    Size {
        why: SizeWhy,
        rank: Rank,
        keep: usize,
    },
    Count {
        why: CountWhy,
        rank: Rank,
        keep: usize,
    },
    Budget {
        why: BudgetWhy,
        rank: Rank,
        keep: usize,
    },
    /// `recorded` (SPEC §9a): a record proves the harness cleared it — a
    /// budget writer's boundary, or (`server`) an applied server edit whose
    /// ids idle-server's simulation names.
    Recorded { server: bool },
    /// `mask`: past the newest `protect` tokens of tool output, in a batch of
    /// at least `min_prunable`: its tokens and the masked part's.
    Mask {
        why: MaskWhy,
        tokens: u64,
        masked_tokens: u64,
    },
    /// `prune`: past the newest `protect` tokens of tool output, and the
    /// whole prunable set was over the minimum (reference §2.3).
    Prune { why: PruneWhy, newer: u64 },
    /// `clear_tool_uses`: the `nth` use of `of`, outside the last `keep`.
    Api {
        trigger: ApiTrigger,
        nth: usize,
        of: usize,
        keep: u64,
        input_too: bool,
    },
}

/// Why a plan that looked at a candidate kept it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// Claude `idle`/`forced`: in the window of compactable calls.
    InLastCalls {
        keep: usize,
        rank: Rank,
    },
    /// An error result while `clear_errors` is off.
    ErrorClearErrorsOff,
    /// In the window of clearable results.
    InLastClearable {
        keep: usize,
        rank: Rank,
    },
    Pending,
    ErrorNeverCleared,
    Empty,
    SizeTargetReached {
        target: u64,
    },
    InLastActive {
        keep: usize,
    },
    NotYetSent,
    /// The budget plan never clears this tool's results.
    BudgetNotEligible,
    InLastEligible {
        keep: usize,
        rank: Rank,
    },
    BudgetRestFits {
        budget: u64,
        rank: Rank,
    },
    /// The api plan: the use's tool is excluded (the name as the use has it).
    ApiExcluded {
        tool: String,
    },
    /// The api plan: in the keep window (excluded tools counted or not).
    ApiInWindow {
        keep: u64,
        excluded_counted: bool,
    },
    /// The api plan: the edit that did not apply.
    ApiEdit(EditNote),
    /// `mask`: among the newest `protect` tokens of tool output (`within`
    /// counted so far, this one included).
    MaskProtected {
        within: u64,
        protect: u64,
    },
    /// `mask`: the latest content of the history is skipped
    /// (`protectLatestTurn`), or the output is the one this request sends.
    MaskLatest,
    /// `mask`: the output this request sends: not in the history yet.
    MaskSending,
    /// `mask`: prunable, but the batch is under the least.
    MaskBatchUnder(MaskWhy),
    /// `mask`: the masked part would not be smaller (`savings <= 0`).
    MaskNoSaving {
        tokens: u64,
        masked_tokens: u64,
    },
    /// `prune`: within the newest `protect` tokens of tool output (`total`
    /// counted with it, newest first).
    PruneProtected {
        total: u64,
        protect: u64,
    },
    /// `prune`: in the latest two turns, which it never scans.
    PruneLatestTurns,
    /// `prune`: older than a result it marked before (its scan stops there).
    PruneBehindMark,
    /// `prune`: older than a compaction summary (its scan stops there).
    PruneBehindSummary,
}

/// Why a candidate has its status at a request.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Reason {
    /// Not yet decided (a candidate of a step that reports no statuses).
    #[default]
    Unset,
    /// The tool is not compactable, or no call has the id.
    NotCompactable,
    AlreadyCleared,
    /// Replaced by Claude Code's recorded cut from request `at` on (SPEC §13.E1).
    Cut {
        at: usize,
    },
    /// Protected: the candidate's protection says how.
    Protected,
    /// Cleared here, or (`earlier`) at an earlier request whose clearing stays.
    Cleared {
        earlier: Option<usize>,
        why: ClearReason,
    },
    /// An error result the harness never clears (its words: its row's
    /// `words.error_kept`).
    ErrorKept(crate::vocab::HarnessId),
    Kept(Kept),
    /// Kept for no reason of its own: the step's note says what the plan did.
    KeptByPlan {
        fired: bool,
    },
}
