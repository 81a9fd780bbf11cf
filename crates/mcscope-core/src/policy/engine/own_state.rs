//! A plan's own state as the engine holds it: boxed, made by the plan, read
//! back by its type (`PlanStates` in `state.rs` holds one per kind). A leaf of
//! the engine: the plans and the engine's state both name it.

use crate::policy::{PlanKind, Policy};

/// A plan's own state: a value of a type in the plan's file, made by the
/// plan (`Plan::state`) and held boxed, so the engine has no field of any
/// plan's.
pub(crate) struct PlanState {
    pub(super) state: Box<dyn std::any::Any + Send + Sync>,
    /// Copies it (an engine is cloned at checkpoints).
    pub(super) copy: fn(&(dyn std::any::Any + Send + Sync)) -> Option<PlanState>,
}

impl PlanState {
    /// An empty `T` (an index, marks), where the policy may run its plan.
    pub(crate) fn empty_where_runs<T: OwnState + Default>(policy: &Policy) -> Option<PlanState> {
        policy
            .may_run(|k| k == T::KIND)
            .then(|| PlanState::new(T::default()))
    }

    pub(crate) fn new<T: OwnState>(state: T) -> PlanState {
        PlanState {
            state: Box::new(state),
            copy: |a| a.downcast_ref::<T>().cloned().map(PlanState::new),
        }
    }
}

/// A plan's state type, and the kind whose plan owns it.
pub(crate) trait OwnState: Clone + Send + Sync + 'static {
    const KIND: PlanKind;
}
