//! The engine's state, grouped by what owns it: each plan's, and each concern of
//! the view's.

use super::*;

/// Per result in the view, while no clearing is in force on it: its chars in
/// the size total, whether it counts as active (count plan), and its tokens
/// among the budget plan's eligible results; and their sums, kept as clearings
/// come and go (so a step that does not fire costs no pass over the view).
#[derive(Clone, Default)]
pub(super) struct Running {
    pub(super) base: Vec<(u64, bool, u64)>,
    pub(super) total: u64,
    pub(super) active: usize,
    pub(super) eligible_tokens: u64,
    /// The active results themselves, by result index (registration order):
    /// the count plan reads only these.
    pub(super) active_set: BTreeSet<usize>,
}

/// The results with a clearing in force: those that lapse at a Claude turn
/// start, and those that outlast it (count's, budget's), kept apart so that a
/// turn start looks only at those that lapse (a count plan's deletions pile up
/// over a view).
#[derive(Clone, Default)]
pub(super) struct InForceLists {
    pub(super) lapsing: Vec<usize>,
    pub(super) lasting: Vec<usize>,
    /// Which list a clearing goes on, by its trigger: the plans' answers.
    pub(super) lasts: super::registry::LastsTable,
}

/// Media cleared, and nested media stripped (Qwen's nested list), per item.
#[derive(Clone, Default)]
pub(super) struct MediaState {
    pub(super) cleared: Vec<bool>,
    pub(super) stripped: Vec<bool>,
    /// Whether any media is cleared or stripped now (so that sessions without
    /// media never pass over the view for it).
    pub(super) touched: bool,
}

/// Qwen: the process segment of the last request, and the hook checkpoint
/// (idle state that lives in the process, SPEC §2).
#[derive(Clone, Default)]
pub(super) struct Process {
    pub(super) segment: Option<usize>,
    pub(super) hook_checkpoint: Option<i64>,
}

/// What a step reports.
#[derive(Clone)]
pub(super) struct Modes {
    /// Whether a step sets every candidate's status and reason (a plan reads
    /// them); a timeline reads only the step, so it skips that pass over the
    /// view, which would make a long session quadratic (see `lean`).
    pub(super) statuses: bool,
    /// Whether a step lists every result cleared in its wire (`Step::cleared`);
    /// off for a pass that reads only what each step newly cleared.
    pub(super) cleared_list: bool,
    /// Whether this step's verdict must say why each candidate was kept (a
    /// step that reports statuses): else a plan may skip those words.
    pub(super) kept_wanted: bool,
    /// Whether a tracked step lists what it newly cleared all the same.
    pub(super) newly_listed: bool,
}

/// Each plan's own state, its type in the plan's file: one line per plan
/// that keeps any, made by [`PlanStates::new`] for the plans the policy may
/// run (the others' stay empty).
#[derive(Clone)]
pub(super) struct PlanStates<'s> {
    /// The size plan's clearable results by position (a tracked engine of
    /// the Claude size plan: `size_index`).
    pub(super) size_index: size_index::SizeIndex,
    pub(super) mask_index: mask_index::MaskIndex,
    pub(super) api: api_run::ApiState<'s>,
    pub(super) idle_server: idle_server::IdleServerState,
    pub(super) recorded: recorded::RecordedState,
    /// What OpenCode's prune keeps across views.
    pub(super) prune: prune::Memory,
}

impl<'s> PlanStates<'s> {
    /// Each plan's state under `policy`: the readings of the session a plan
    /// that may run needs, made (or taken from `derived`) once.
    pub(super) fn new(s: &'s Session, derived: &Derived, policy: &Policy) -> PlanStates<'s> {
        let idle_server = idle_server::may_run(policy, s);
        PlanStates {
            size_index: Default::default(),
            mask_index: Default::default(),
            api: api_run::ApiState::new(s, derived, policy, idle_server),
            idle_server: idle_server::IdleServerState::new(s, derived, idle_server),
            recorded: recorded::RecordedState::new(s, policy),
            prune: Default::default(),
        }
    }
}

/// The recorded cuts (SPEC §13.E1) by the request they take effect at, `(at,
/// result)` sorted, with how many of them are behind us: a cut result is, from
/// then on, as good as already cleared (never cleared again, never counted,
/// no keep slot).
#[derive(Clone)]
pub(super) struct Cuts {
    pub(super) list: std::sync::Arc<[(usize, usize)]>,
    pub(super) done: usize,
}

/// The `version` of the last request evaluated that recorded one (a new one
/// is a new process, SPEC §15.9), and its number where it came from a request
/// of the session (`IdTable::version`).
#[derive(Clone, Default)]
pub(super) struct LastVersion {
    pub(super) text: Option<String>,
    pub(super) number: Option<u32>,
}
