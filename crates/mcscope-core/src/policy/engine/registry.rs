//! The registry of plan kinds: one line each (`auto` is none: the harness
//! chooses one of these at each request).

use super::PlanKind;
use super::plan::Plan;

/// Every plan kind's plan, one line each (`auto` is none: the harness chooses
/// one of these at each request).
pub(super) static PLANS: [&dyn Plan; 10] = [
    &super::idle::Idle,
    &super::idle::Forced,
    &super::idle_server::IdleServer,
    &super::size::Size,
    &super::count::Count,
    &super::budget_plan::Budget,
    &super::api::Api,
    &super::recorded::Recorded,
    &super::mask::Mask,
    &super::prune::Prune,
];

/// The plan of `kind` (None for `auto`, which is the harness's choice).
pub(crate) fn of(kind: PlanKind) -> Option<&'static dyn Plan> {
    PLANS.iter().copied().find(|p| p.kind() == kind)
}
