//! `idle` and `forced` (SPEC §3 keep windows, §5): clear what lies outside the keep
//! window, and Qwen's media lists.

use super::*;

impl Engine<'_> {
    /// `idle` and `forced`: clear what lies outside the keep window (SPEC §3).
    pub(super) fn time_based(&self, req: &Request, trigger: Trigger, why: TimeWhy) -> Verdict {
        let kind = if trigger == Trigger::Forced {
            PlanKind::Forced
        } else {
            PlanKind::Idle
        };
        let keep = self.policy.keep_for(kind);
        let mut clear = Vec::new();
        let mut kept = Why::new();
        match self.policy.preset.rules().rank_by {
            RankBy::Calls => {
                // The window is over call ids (calls without a result included),
                // protected ids removed: collectCompactableToolIds.
                let protected: HashSet<&str> = self
                    .view
                    .cands
                    .iter()
                    .filter(|c| c.protected())
                    .map(|c| self.s.results[c.result].id.as_str())
                    .collect();
                let mut ids: Vec<&str> = Vec::new();
                for &c in &self.view.compactable_calls {
                    if !protected.contains(c) {
                        ids.push(c);
                    }
                }
                let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                    .iter()
                    .copied()
                    .collect();
                for (p, c) in self.view.cands.iter().enumerate() {
                    let r = &self.s.results[c.result];
                    if !c.compactable || c.protected() || self.gone(c.result) || self.in_force(c) {
                        continue;
                    }
                    if window.contains(r.id.as_str()) {
                        let rank = self.rank(p);
                        kept.insert(p, Kept::InLastCalls { keep, rank });
                    } else if r.is_error && !self.policy.errors_clearable() {
                        kept.insert(p, Kept::ErrorClearErrorsOff);
                    } else {
                        let rank = self.rank(p);
                        let clearable = false;
                        clear.push((
                            p,
                            ClearReason::Time {
                                why,
                                rank,
                                keep,
                                clearable,
                            },
                        ));
                    }
                }
            }
            RankBy::Responses => {
                // The tool list keeps a slot for a result whose only content is
                // nested media (an image read with output ""): SPEC §5 media.
                let clearable = self.clearable(true);
                let split = clearable.len().saturating_sub(keep);
                for &p in &clearable[split..] {
                    kept.insert(
                        p,
                        Kept::InLastClearable {
                            keep,
                            rank: self.rank(p),
                        },
                    );
                }
                for &p in &clearable[..split] {
                    let (rank, clearable) = (self.rank(p), true);
                    clear.push((
                        p,
                        ClearReason::Time {
                            why,
                            rank,
                            keep,
                            clearable,
                        },
                    ));
                }
                self.explain_unclearable(&mut kept);
            }
        }
        let mut v = Verdict {
            trigger: Some(trigger),
            clear,
            target: None,
            kept,
            ..Verdict::none(Note::Time(why))
        };
        self.media_to_clear(req, &mut v);
        let tokens: u64 = v
            .clear
            .iter()
            .map(|(p, _)| self.s.results[self.view.cands[*p].result].est_tokens)
            .sum::<u64>()
            + self.media_tokens(&v);
        if tokens == 0 {
            v.trigger = None;
            v.clear.clear();
            v.media.clear();
            v.strip.clear();
            v.note = Note::TimeSavesNothing(why);
        }
        v
    }

    /// The tokens of the media a verdict clears or strips (SPEC §2 est_tokens).
    pub(super) fn media_tokens(&self, v: &Verdict) -> u64 {
        let per = self.s.shape().media_tokens;
        let stripped: u64 = v
            .strip
            .iter()
            .map(|&r| self.s.results[r].media as u64)
            .sum();
        (v.media.len() as u64 + stripped) * per
    }

    /// Qwen's two media lists, each with its own keep window (SPEC §5 media):
    /// top-level media parts, and the nested media of results that are not
    /// compactable (an MCP screenshot). Errors keep their media.
    pub(super) fn media_to_clear(&self, req: &Request, v: &mut Verdict) {
        if !self.policy.preset.rules().media_lists {
            return;
        }
        let keep = self.policy.keep_for(PlanKind::Idle);
        let live: Vec<usize> = self
            .s
            .media_in(req.view_start, req.end)
            .filter(|&m| !self.media_cleared[m])
            .collect();
        let nested: Vec<usize> = self
            .view
            .cands
            .iter()
            .map(|c| c.result)
            .filter(|&r| {
                !self.view.cands[self.pos_of[r]].compactable
                    && self.s.results[r].media > 0
                    && !self.stripped[r]
            })
            .collect();
        v.media_kept = (live.len() + nested.len()).min(keep);
        v.media = live[..live.len().saturating_sub(keep)].to_vec();
        v.strip = nested[..nested.len().saturating_sub(keep)]
            .iter()
            .copied()
            .filter(|&r| !self.s.results[r].is_error)
            .collect();
    }

    pub(super) fn explain_unclearable(&self, kept: &mut Why) {
        // Only a status reads why a candidate stays (`status::reason`): a
        // lean engine's verdicts skip this pass over the view.
        if !self.statuses {
            return;
        }
        for (p, c) in self.view.cands.iter().enumerate() {
            let r = &self.s.results[c.result];
            if !c.compactable || kept.contains_key(&p) || self.in_force(c) {
                continue;
            }
            let why = if c.pending {
                Kept::Pending
            } else if r.is_error {
                Kept::ErrorNeverCleared
            } else if r.chars == 0 {
                Kept::Empty
            } else {
                continue;
            };
            kept.insert(p, why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared};
    use crate::policy::PlanKind;

    #[test]
    fn idle_clears_outside_the_keep_window_after_the_gap() {
        let mut t = Transcript::new();
        t.prompt(0)
            .call("A", "Read", 400, 10)
            .call("B", "Bash", 400, 10)
            .call("C", "Grep", 400, 10)
            .answer();
        // 61 minutes later: over the 60-minute gap.
        t.prompt(61).answer();
        let (s, p) = t.plan(PlanKind::Idle, |p| p.keep_recent = Some(1));
        assert_eq!(p.step.trigger.map(|t| t.name()), Some("idle"));
        assert_eq!(cleared(&s, &p), ["A", "B"]);
        // 100 tokens each (400 chars / 4).
        assert_eq!(p.step.tokens_saved, 200);
        // Under the gap, nothing.
        let (s, p) = t.plan(PlanKind::Idle, |p| p.gap_threshold_minutes = 90.0);
        assert!(!p.step.fired() && cleared(&s, &p).is_empty());
    }

    #[test]
    fn forced_acts_at_the_viewed_request_whatever_the_gap() {
        let mut t = Transcript::new();
        t.prompt(0)
            .call("A", "Read", 400, 10)
            .call("B", "Read", 400, 10)
            .answer()
            .prompt(1)
            .answer();
        let (s, p) = t.plan(PlanKind::Forced, |p| p.keep_recent = Some(1));
        assert_eq!(p.step.trigger.map(|t| t.name()), Some("forced"));
        assert_eq!(cleared(&s, &p), ["A"]);
    }
}
