//! Why the engine did what it did, as values: the step's note, each clearing's
//! reason, each candidate's reason and each api edit's outcome. The engine only
//! records the numbers a sentence needs; the words are made when a report
//! asks (`Display`: a plan's own in its file, the shared ones in `words`), so
//! a step nobody reads costs no allocation. `Note`, `ClearReason` and `Kept`
//! hold one variant per plan with reasons of its own: a new plan adds its
//! line to each.

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

/// Why the plan fired or not at a request (the step's note): one variant
/// per plan, whose words are its own (each in the plan's file).
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// The session has no requests (an empty plan).
    NoRequests,
    /// No plan runs at this request (auto chose none, or the send runs none).
    NotRun(NoRun),
    /// `idle` or `forced`.
    Time(super::idle::TimeNote),
    Size(super::size::SizeNote),
    Count(super::count::CountNote),
    Budget(super::budget_plan::BudgetNote),
    /// `idle-server` (SPEC §13.S): the return, the edit, the server's answer.
    IdleServer(super::IdleServerWhy),
    /// The api plan: the prompt it read and each edit's outcome, in order.
    Api(super::api::ApiNote),
    /// `recorded` (SPEC §9a): what the records prove was cleared here.
    Recorded(super::RecordedWhy),
    Mask(super::mask::MaskNote),
    Prune(super::prune::PruneNote),
    Cline(super::cline::ClineNote),
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

/// Why a clearing was made (kept with it while it stays in force): one
/// variant per plan, whose words are its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClearReason {
    /// `idle` or `forced`.
    Time(super::idle::TimeCleared),
    Size(super::size::SizeCleared),
    Count(super::count::CountCleared),
    Budget(super::budget_plan::BudgetCleared),
    Recorded(super::recorded::ByRecord),
    Mask(super::mask::MaskCleared),
    Prune(super::prune::PruneCleared),
    Api(super::api::ApiCleared),
    Cline(super::cline::ClineCleared),
}

/// Why a plan that looked at a candidate kept it: the reasons several plans
/// share, then one variant per plan with reasons of its own.
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
    Size(super::size::SizeKept),
    Count(super::count::CountKept),
    Budget(super::budget_plan::BudgetKept),
    Api(super::api::ApiKept),
    Mask(super::mask::MaskKept),
    Prune(super::prune::PruneKept),
    Cline(super::cline::ClineKept),
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
