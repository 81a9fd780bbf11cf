//! Properties 1–3: statuses partition the candidates, protection holds, the keep window stays.

use super::*;

/// 1. Every candidate has one status; the status lists partition the candidates,
///    which are exactly the view's tool results, one each.
pub(super) fn prop_statuses_partition(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let got = sorted(p.candidates.iter().map(|c| c.result).collect());
        let want = case.view_results(k);
        check!(
            case,
            k,
            got == want,
            "candidates must be the view's results, once each: expected {want:?}, got {got:?}"
        );
        let mut listed: HashMap<String, usize> = HashMap::new();
        let mut total = 0;
        for st in STATUSES {
            let list = p.ids_with(s, st);
            let expect: Vec<String> = p
                .candidates
                .iter()
                .filter(|c| c.status == st)
                .map(|c| s.results[c.result].id.clone())
                .collect();
            check!(
                case,
                k,
                list == expect,
                "ids_with({st:?}) = {list:?}, but the candidates with that status are {expect:?}"
            );
            total += list.len();
            for id in list {
                *listed.entry(id).or_default() += 1;
            }
        }
        let mut per_id: HashMap<String, usize> = HashMap::new();
        for c in &p.candidates {
            *per_id.entry(s.results[c.result].id.clone()).or_default() += 1;
        }
        check!(
            case,
            k,
            total == p.candidates.len() && listed == per_id,
            "status lists cover {total} entries {listed:?}, candidates are {} {per_id:?}",
            p.candidates.len()
        );
        let cleared = case.ids(&p.step.cleared);
        let listed_cleared = p.ids_with(s, Status::Cleared);
        check!(
            case,
            k,
            cleared == listed_cleared,
            "step.cleared {cleared:?} differs from the `cleared` list {listed_cleared:?}"
        );
        // The statuses the model decides on its own (precedence, SPEC §5).
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let want: Option<Status> = if !case.compactable(r) {
                Some(Status::NotCompactable)
            } else if res.placeholder {
                Some(Status::AlreadyCleared)
            } else if case.protected(k, r) {
                Some(Status::Protected)
            } else {
                None
            };
            match want {
                Some(st) => check!(
                    case,
                    k,
                    c.status == st,
                    "result {} ({}): expected status {st:?}, got {:?}",
                    res.id,
                    res.tool,
                    c.status
                ),
                None => check!(
                    case,
                    k,
                    matches!(c.status, Status::Kept | Status::Cleared | Status::ErrorKept)
                        && (c.status != Status::ErrorKept || (case.qwen_preset && res.error)),
                    "result {} ({}, error {}): status {:?} is not possible here",
                    res.id,
                    res.tool,
                    res.error,
                    c.status
                ),
            }
        }
    }
    Ok(())
}

/// 2. Protection is decided as the model says, and a protected candidate is never
///    cleared, in force or newly.
pub(super) fn prop_protected_never_cleared(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let applies = case.pol.protect && res.tool == case.w.m.read_tool() && !res.error;
            check!(
                case,
                k,
                c.protection.is_some() == applies,
                "result {} ({}, error {}): protection {:?}, expected it {}",
                res.id,
                res.tool,
                res.error,
                c.protection,
                if applies { "decided" } else { "null" }
            );
            let protects = c.protection.as_ref().is_some_and(|p| p.outcome.protects());
            let want = case.protected(k, r);
            check!(
                case,
                k,
                protects == want,
                "result {}: protection {:?}, expected protected = {want}",
                res.id,
                c.protection
            );
            if protects {
                check!(
                    case,
                    k,
                    c.status != Status::Cleared
                        && !p.step.cleared.contains(&r)
                        && !p.step.newly_cleared.contains(&r),
                    "protected result {} is cleared (status {:?}, in force {}, newly {})",
                    res.id,
                    c.status,
                    p.step.cleared.contains(&r),
                    p.step.newly_cleared.contains(&r)
                );
            }
        }
    }
    Ok(())
}

/// 3. idle / forced / auto: nothing in the keep window is newly cleared.
pub(super) fn prop_keep_window(case: &Case) -> Result<(), TestCaseError> {
    let keep = case.keep();
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let newly = sorted(p.step.newly_cleared.clone());
        let before = case.in_force_before(k);
        if case.qwen_preset {
            // Idle and size (what qwen's auto runs) share the clearable window.
            let clearable = case.clearable(k, &before);
            let window = &clearable[clearable.len().saturating_sub(keep)..];
            let hit: Vec<usize> = newly
                .iter()
                .copied()
                .filter(|r| window.contains(r))
                .collect();
            check!(
                case,
                k,
                hit.is_empty(),
                "qwen keep window (last {keep} clearable) {:?}; newly cleared {:?} hits {:?}",
                case.ids(window),
                case.ids(&newly),
                case.ids(&hit)
            );
            let outside: Vec<usize> = newly
                .iter()
                .copied()
                .filter(|r| !clearable.contains(r))
                .collect();
            check!(
                case,
                k,
                outside.is_empty(),
                "qwen clears only clearable results {:?}; newly cleared {:?} includes {:?}",
                case.ids(&clearable),
                case.ids(&newly),
                case.ids(&outside)
            );
        } else {
            let view = case.view_results(k);
            let protected_ids: HashSet<&str> = view
                .iter()
                .filter(|&&r| case.protected(k, r))
                .map(|&r| case.w.m.results[r].id.as_str())
                .collect();
            let call_ids: Vec<&str> = case
                .view_calls(k)
                .into_iter()
                .map(|c| &case.w.m.calls[c])
                .filter(|c| case.w.m.compactable(c.tool))
                .map(|c| c.id.as_str())
                .filter(|id| !protected_ids.contains(id))
                .collect();
            let window: HashSet<&str> = call_ids[call_ids.len().saturating_sub(keep)..]
                .iter()
                .copied()
                .collect();
            let hit: Vec<&str> = case
                .ids(&newly)
                .into_iter()
                .filter(|id| window.contains(id))
                .collect();
            check!(
                case,
                k,
                hit.is_empty(),
                "claude keep window (last {keep} of compactable call ids {call_ids:?}) = {window:?}; \
                 newly cleared {:?} hits {hit:?}",
                case.ids(&newly)
            );
            for &r in &newly {
                let res = &case.w.m.results[r];
                check!(
                    case,
                    k,
                    view.contains(&r)
                        && case.compactable(r)
                        && !case.protected(k, r)
                        && !res.placeholder
                        && !before.contains(&r),
                    "newly cleared {} must be a compactable, unprotected, not yet cleared result \
                     of the view",
                    res.id
                );
            }
        }
    }
    Ok(())
}
