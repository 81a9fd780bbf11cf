//! Properties 6–8: errors and cleared results stay, clearings persist, totals are sums.

use super::*;

/// 6. Qwen preset: errors are error_kept, never cleared; already_cleared results
///    (any preset) are never cleared.
pub(super) fn prop_errors_and_already_cleared(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let cleared = p.ids_with(s, Status::Cleared);
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let in_cleared = p.step.cleared.contains(&r) || p.step.newly_cleared.contains(&r);
            if case.qwen_preset && res.error && case.compactable(r) {
                check!(
                    case,
                    k,
                    c.status == Status::ErrorKept && !in_cleared,
                    "qwen error result {} has status {:?} (cleared {in_cleared})",
                    res.id,
                    c.status
                );
            }
            if res.placeholder && case.compactable(r) {
                check!(
                    case,
                    k,
                    c.status == Status::AlreadyCleared && !in_cleared,
                    "already-cleared result {} has status {:?} (cleared {in_cleared}); cleared list {cleared:?}",
                    res.id,
                    c.status
                );
            }
        }
    }
    Ok(())
}

/// 7. Persistence: the timeline and the plan agree on what is new at k, and what
///    is cleared in k's wire is what was in force plus what is new.
pub(super) fn prop_persistence(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let forced;
        let steps = if case.pol.kind == KindArg::Forced {
            forced = analysis::timeline(&case.setup, k);
            &forced
        } else {
            case.timeline
                .get_or_init(|| analysis::timeline(&case.setup, 0))
        };
        let newly = sorted(p.step.newly_cleared.clone());
        let tl = sorted(steps[k - 1].newly_cleared.clone());
        check!(
            case,
            k,
            tl == newly,
            "timeline says newly cleared {:?}, plan_at says {:?}",
            case.ids(&tl),
            case.ids(&newly)
        );
        check!(
            case,
            k,
            p.step.fired() || newly.is_empty(),
            "the plan did not fire but newly cleared {:?}",
            case.ids(&newly)
        );
        let before = case.in_force_before(k);
        let want: Vec<usize> = sorted(
            before
                .union(&newly.iter().copied().collect())
                .copied()
                .filter(|&r| !case.protected(k, r) && !case.w.m.results[r].placeholder)
                .collect(),
        );
        let got = sorted(p.step.cleared.clone());
        check!(
            case,
            k,
            got == want,
            "cleared in the wire: expected (in force {:?} + newly {:?}) = {:?}, got {:?}",
            case.ids(&sorted(before.iter().copied().collect())),
            case.ids(&newly),
            case.ids(&want),
            case.ids(&got)
        );
    }
    Ok(())
}

/// SPEC §9: every request's figures as `compare` and `timeline` compute them
/// equal `plan --at k`'s, and the setting's totals are their sums. `forced`
/// acts at the last request in a timeline and at K in `plan --at K`: its
/// figures agree at the last request only, so only there are they compared.
pub(super) fn prop_totals_are_sums_of_plans(case: &Case) -> Result<(), TestCaseError> {
    use mcscope::totals::{self, CacheTtl, SessionFacts};
    let setup = &case.setup;
    let s = &setup.session;
    let facts = SessionFacts::new(s, CacheTtl::Auto);
    let mut rows = Vec::new();
    totals::each_request(setup, &facts, setup.last_request(), |st, f| {
        rows.push((st.clone(), f.clone()));
        Ok(())
    })
    .unwrap();
    let (mut fires, mut not_sent, mut breaks, mut rewritten) = (0, 0, 0, 0);
    let mut ever: HashSet<usize> = HashSet::new();
    for (st, f) in &rows {
        let k = st.index;
        if setup.policy.kind == PlanKind::Forced && k != setup.last_request() {
            continue;
        }
        let plan = analysis::plan_at(setup, k).unwrap();
        let cleared: Vec<usize> = plan
            .candidates
            .iter()
            .filter(|c| c.status == Status::Cleared)
            .map(|c| c.result)
            .collect();
        let in_wire: u64 = cleared.iter().map(|&r| s.results[r].est_tokens).sum();
        check!(
            case,
            k,
            f.in_wire_tokens == in_wire,
            "in_wire_tokens {} != plan's {in_wire}",
            f.in_wire_tokens
        );
        check!(
            case,
            k,
            f.break_at == plan.cache.prefix_broken_at_message,
            "break {:?} != plan's {:?}",
            f.break_at,
            plan.cache.prefix_broken_at_message
        );
        check!(
            case,
            k,
            f.tokens_rewritten == plan.cache.tokens_after_break,
            "tokens_rewritten {} != plan's tokens_after_break {}",
            f.tokens_rewritten,
            plan.cache.tokens_after_break
        );
        fires += u64::from(plan.step.fired());
        not_sent += in_wire;
        if f.break_at.is_some() && f.warm {
            breaks += 1;
            rewritten += plan.cache.tokens_after_break;
        }
        ever.extend(cleared);
    }
    if setup.policy.kind != PlanKind::Forced {
        let t = totals::session_totals(setup, &facts).unwrap();
        let got = (
            t.fires,
            t.cleared_results,
            t.tokens_not_sent,
            t.cache_breaks,
            t.tokens_rewritten,
        );
        let want = (fires, ever.len() as u64, not_sent, breaks, rewritten);
        check!(
            case,
            0,
            got == want,
            "totals {got:?} != sums over plan --at k {want:?}"
        );
    }
    Ok(())
}
