//! The engine's state, grouped by what owns it: each plan's, and each concern of
//! the view's.

use super::own_state::{OwnState, PlanState};
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

/// Each plan's own state, boxed, in one slot per plan kind (the plans that
/// keep none leave theirs empty): a plan's file reads its own by its type.
pub(super) struct PlanStates {
    slots: Vec<Option<PlanState>>,
    /// The kinds whose state follows the view now, a bit each: an index the
    /// engine keeps up to date at every change of a result in the view
    /// (asked there, so a bit rather than a look into the box).
    following: u64,
}

// A bit per kind in `following`.
const _: () = assert!(<PlanKind as strum::VariantArray>::VARIANTS.len() <= 64);

impl Clone for PlanStates {
    fn clone(&self) -> PlanStates {
        PlanStates {
            slots: self
                .slots
                .iter()
                .map(|held| held.as_ref().and_then(|h| (h.copy)(&*h.state)))
                .collect(),
            following: self.following,
        }
    }
}

impl PlanStates {
    /// The plans' states, one slot per kind in the kinds' order
    /// (`registry::states`).
    pub(super) fn new(slots: Vec<Option<PlanState>>) -> PlanStates {
        PlanStates {
            slots,
            following: 0,
        }
    }

    /// Whether the state of `T`'s plan follows the view now.
    #[inline]
    pub(super) fn follows<T: OwnState>(&self) -> bool {
        (self.following >> (T::KIND as u32)) & 1 == 1
    }

    /// Makes the state of `T`'s plan follow the view, or stop.
    pub(super) fn follow<T: OwnState>(&mut self, on: bool) {
        let bit = 1u64 << (T::KIND as u32);
        if on {
            self.following |= bit;
        } else {
            self.following &= !bit;
        }
    }

    /// The state of `T`'s plan.
    #[inline]
    pub(super) fn get<T: OwnState>(&self) -> Option<&T> {
        self.slots
            .get(T::KIND as usize)?
            .as_ref()?
            .state
            .downcast_ref()
    }

    /// The state of `T`'s plan, to change, where the plan made one.
    #[inline]
    pub(super) fn get_mut<T: OwnState>(&mut self) -> Option<&mut T> {
        self.slots
            .get_mut(T::KIND as usize)?
            .as_mut()?
            .state
            .downcast_mut()
    }

    /// The state of `T`'s plan, to change: made empty first where the plan
    /// made none.
    #[inline]
    pub(super) fn of<T: OwnState + Default>(&mut self) -> &mut T {
        let i = T::KIND as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        let slot = &mut self.slots[i];
        if !slot.as_ref().is_some_and(|h| h.state.is::<T>()) {
            *slot = Some(PlanState::new(T::default()));
        }
        match slot.as_mut().and_then(|h| h.state.downcast_mut()) {
            Some(state) => state,
            None => unreachable!("the slot was just made a {}", std::any::type_name::<T>()),
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
