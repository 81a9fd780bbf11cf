//! The registry of plan kinds: one line each (`auto` is none: the harness
//! chooses one of these at each request).

use super::plan::{Lasts, Plan};
use super::{PlanKind, Trigger};

/// Every plan kind's plan, one line each (`auto` is none: the harness chooses
/// one of these at each request).
pub(crate) static PLANS: [&dyn Plan; 11] = [
    &super::idle::Idle,
    &super::idle::Forced,
    &super::idle_server::IdleServer,
    &super::size::Size,
    &super::count::Count,
    &super::budget_plan::Budget,
    &super::api_run::Api,
    &super::recorded::Recorded,
    &super::mask::Mask,
    &super::prune::Prune,
    &super::cline::Cline,
];

/// The plan of `kind` (None for `auto`, which is the harness's choice).
pub(crate) fn of(kind: PlanKind) -> Option<&'static dyn Plan> {
    PLANS.iter().copied().find(|p| p.kind() == kind)
}

/// Each plan's state under `policy` (`Plan::state`), one slot per kind in the
/// kinds' order: the readings of the session a plan that may run needs, made
/// (or taken from `derived`) once.
pub(super) fn states(
    s: &crate::session::Session,
    derived: &crate::derived::Derived,
    policy: &crate::policy::Policy,
) -> Vec<Option<super::own_state::PlanState>> {
    <PlanKind as strum::VariantArray>::VARIANTS
        .iter()
        .map(|&k| of(k).and_then(|plan| plan.state(s, derived, policy)))
        .collect()
}

/// How long a clearing of each trigger stays in force, by trigger: the
/// answer of the plan that fires it (none says: until a turn start). The
/// engine asks at every clearing, so it keeps a copy ([`Default`] is the
/// plans' answers, made once).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastsTable([Lasts; N]);

/// How many triggers there are.
const N: usize = <Trigger as strum::VariantArray>::VARIANTS.len();

impl Default for LastsTable {
    fn default() -> LastsTable {
        static TABLE: std::sync::LazyLock<LastsTable> = std::sync::LazyLock::new(|| {
            let mut table = [Lasts::TurnStart; N];
            for (i, &trigger) in <Trigger as strum::VariantArray>::VARIANTS
                .iter()
                .enumerate()
            {
                if let Some(&(_, l)) = PLANS
                    .iter()
                    .flat_map(|p| p.lasts())
                    .find(|(t, _)| *t == trigger)
                {
                    table[i] = l;
                }
            }
            LastsTable(table)
        });
        *TABLE
    }
}

impl LastsTable {
    /// How long a clearing of `trigger` stays in force.
    #[inline]
    pub(crate) fn of(&self, trigger: Trigger) -> Lasts {
        // The variants in declaration order: a trigger's index is its
        // discriminant.
        self.0[trigger as usize]
    }
}

/// How long a clearing of `trigger` stays in force (the plans' answers).
#[cfg(test)]
pub(crate) fn lasts(trigger: Trigger) -> Lasts {
    LastsTable::default().of(trigger)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::three_reads;
    use super::super::{ByRecord, ClearReason, Clearing};
    use super::*;
    use strum::VariantArray;

    /// Each trigger's clearings last as the plan that fires it says (SPEC §5:
    /// count's and budget's over the view; §15.3: recorded boundaries over the
    /// view, an applied server edit at its request; §13.S8: idle-server's at
    /// its request; §15.13: prune's stored marks over the view); the others
    /// until a turn start.
    #[test]
    fn each_trigger_lasts_as_its_plan_says() {
        for &t in Trigger::VARIANTS {
            let want = match t {
                Trigger::Count
                | Trigger::Budget
                | Trigger::Recorded
                | Trigger::Prune
                | Trigger::Cline => Lasts::View,
                Trigger::IdleServer | Trigger::RecordedServer => Lasts::Request,
                _ => Lasts::TurnStart,
            };
            assert_eq!(lasts(t), want, "{}", t.name());
        }
    }

    /// A result an applied server edit cleared (at its request only) and a
    /// recorded boundary then cleared again (over the view) stays cleared at
    /// a turn start: the lasting clearing is the one in force.
    #[test]
    fn a_lasting_clearing_over_a_lapsing_one_survives_a_turn_start() {
        let (setup, _) = three_reads().plan(PlanKind::Recorded, |_| {});
        let mut e = setup.engine(setup.last_request());
        let r = 0;
        let clearing = |trigger, server| Clearing {
            at: 1,
            trigger,
            reason: ClearReason::Recorded(ByRecord { server }),
        };
        e.clear_result(r, clearing(Trigger::RecordedServer, true));
        e.clear_result(r, clearing(Trigger::Recorded, false));
        e.reset_lapsing();
        assert!(e.cleared[r].is_some(), "the boundary's clearing is lifted");
        // A clearing that lasts until a turn start is lifted there.
        let mut e = setup.engine(setup.last_request());
        e.clear_result(r, clearing(Trigger::Idle, false));
        e.reset_lapsing();
        assert!(e.cleared[r].is_none());
    }
}
