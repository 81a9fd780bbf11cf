//! Property 3b: the plan each kind should make by the SPEC, from the model alone.

use super::*;

/// What SPEC §5 says the plan does at request k: whether it fires, with which
/// trigger, and what it newly clears (result indices, in order).
struct Expected {
    fired: bool,
    trigger: Option<Trigger>,
    newly: Vec<usize>,
    /// The size total before the plan (size only).
    total: Option<u64>,
}

impl Expected {
    fn none() -> Expected {
        Expected {
            fired: false,
            trigger: None,
            newly: Vec::new(),
            total: None,
        }
    }
}

impl Case {
    /// est_tokens (SPEC §2): claude round(chars / 4) half up, qwen ceil(chars / 4).
    fn est_tokens(&self, r: usize) -> u64 {
        let c = self.w.m.results[r].chars;
        if self.w.sess.qwen {
            c.div_ceil(4)
        } else {
            (c + 2) / 4
        }
    }

    /// `idle` / `forced` once they are evaluated: clear outside the keep window,
    /// fire when that saves tokens.
    fn time_based(&self, k: usize, before: &HashSet<usize>, trigger: Trigger) -> Expected {
        let keep = self.keep();
        let clear: Vec<usize> = if self.qwen_preset {
            let clearable = self.clearable(k, before);
            clearable[..clearable.len().saturating_sub(keep)].to_vec()
        } else {
            let view = self.view_results(k);
            let protected_ids: HashSet<&str> = view
                .iter()
                .filter(|&&r| self.protected(k, r))
                .map(|&r| self.w.m.results[r].id.as_str())
                .collect();
            let ids: Vec<&str> = self
                .view_calls(k)
                .into_iter()
                .map(|c| &self.w.m.calls[c])
                .filter(|c| self.w.m.compactable(c.tool))
                .map(|c| c.id.as_str())
                .filter(|id| !protected_ids.contains(id))
                .collect();
            let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                .iter()
                .copied()
                .collect();
            // The claude preset clears errors too (clear_errors on by default).
            view.into_iter()
                .filter(|&r| {
                    let res = &self.w.m.results[r];
                    self.compactable(r)
                        && !self.protected(k, r)
                        && !res.placeholder
                        && !before.contains(&r)
                        && !window.contains(res.id.as_str())
                })
                .collect()
        };
        let tokens: u64 = clear.iter().map(|&r| self.est_tokens(r)).sum();
        if tokens == 0 {
            return Expected::none();
        }
        Expected {
            fired: true,
            trigger: Some(trigger),
            newly: clear,
            total: None,
        }
    }

    fn gap_holds(&self, k: usize) -> bool {
        self.req(k)
            .gap_minutes
            .is_some_and(|g| g >= self.pol.gap as f64)
    }

    fn idle(&self, k: usize, before: &HashSet<usize>) -> Expected {
        if (self.qwen_preset && !self.req(k).begins_turn) || !self.gap_holds(k) {
            return Expected::none();
        }
        self.time_based(k, before, Trigger::Idle)
    }

    fn size(&self, k: usize, before: &HashSet<usize>) -> Expected {
        let total: u64 = self
            .view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r) && !res.error && !before.contains(&r) && !res.placeholder
            })
            .map(|r| self.w.m.results[r].chars)
            .sum();
        let threshold = self.pol.size as u64;
        let target = if self.pol.low_watermark {
            threshold / 2
        } else {
            threshold
        };
        if total <= threshold {
            return Expected {
                total: Some(total),
                ..Expected::none()
            };
        }
        let clearable = self.clearable(k, before);
        let split = clearable.len().saturating_sub(self.keep());
        let mut left = total;
        let mut newly = Vec::new();
        for &r in &clearable[..split] {
            if left <= target {
                continue;
            }
            left -= self.w.m.results[r].chars;
            newly.push(r);
        }
        // Size fires over the threshold even when nothing can go (an overage).
        Expected {
            fired: true,
            trigger: Some(Trigger::Size),
            newly,
            total: Some(total),
        }
    }

    fn count(&self, k: usize, before: &HashSet<usize>) -> Expected {
        let active: Vec<usize> = self
            .view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r)
                    && !before.contains(&r)
                    && !self.protected(k, r)
                    && !res.placeholder
                    && (!res.error || !self.qwen_preset)
            })
            .collect();
        if active.len() <= self.pol.trigger as usize {
            return Expected::none();
        }
        let last_user = self.req(k).end - 1;
        let split = active.len().saturating_sub(self.keep());
        let newly: Vec<usize> = active[..split]
            .iter()
            .copied()
            .filter(|&r| self.w.m.results[r].msg != last_user)
            .collect();
        if newly.is_empty() {
            return Expected::none();
        }
        Expected {
            fired: true,
            trigger: Some(Trigger::Count),
            newly,
            total: None,
        }
    }

    fn expected(&self, k: usize, before: &HashSet<usize>) -> Expected {
        match self.pol.kind {
            KindArg::Idle => self.idle(k, before),
            KindArg::Forced => self.time_based(k, before, Trigger::Forced),
            KindArg::Size => self.size(k, before),
            KindArg::Count => self.count(k, before),
            KindArg::Auto if !self.qwen_preset => self.idle(k, before),
            // qwen: idle when a turn begins after the gap (even if it clears
            // nothing), else size.
            KindArg::Auto if self.req(k).begins_turn && self.gap_holds(k) => self.idle(k, before),
            KindArg::Auto => self.size(k, before),
            // Generated claude sessions are 2.1.88 (auto: idle); budget has its
            // own tests (tests/budget.rs, policy::budget).
            KindArg::Budget => unreachable!("the generator makes no budget policies"),
            KindArg::Api => unreachable!("the generator makes no api policies"),
            KindArg::IdleServer => unreachable!("the generator makes no idle-server policies"),
            // The baseline has its own tests (tests/baseline.rs).
            KindArg::Recorded => unreachable!("the generator makes no recorded policies"),
            // Gemini CLI's masking has its own tests (tests/gemini.rs).
            KindArg::Mask => unreachable!("the generator makes no mask policies"),
            // OpenCode's prune has its own tests (tests/opencode.rs).
            KindArg::Prune => unreachable!("the generator makes no prune policies"),
            // Cline's context manager has its own tests (tests/cline.rs).
            KindArg::Cline => unreachable!("the generator makes no cline policies"),
        }
    }
}

/// 3b. Every plan kind fires, and newly clears, exactly what SPEC §5 says.
pub(super) fn prop_exact_plans(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let newly = sorted(p.step.newly_cleared.clone());
        let before = case.in_force_before(k);
        let want = case.expected(k, &before);
        check!(
            case,
            k,
            newly == want.newly,
            "{:?}: expected newly cleared {:?}, got {:?} (in force before: {:?}; gap {:?}, begins_turn {})",
            case.pol.kind,
            case.ids(&want.newly),
            case.ids(&newly),
            case.ids(&sorted(before.iter().copied().collect())),
            case.req(k).gap_minutes,
            case.req(k).begins_turn
        );
        check!(
            case,
            k,
            p.step.fired() == want.fired && p.step.trigger == want.trigger,
            "{:?}: expected fired {} trigger {:?}, got fired {} trigger {:?}",
            case.pol.kind,
            want.fired,
            want.trigger,
            p.step.fired(),
            p.step.trigger
        );
        if let Some(total) = want.total {
            check!(
                case,
                k,
                p.step.chars_before == total,
                "size total before the plan: expected {total}, got {}",
                p.step.chars_before
            );
        }
    }
    Ok(())
}
