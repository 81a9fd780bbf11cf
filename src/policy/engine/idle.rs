//! `idle` and `forced` (SPEC §3 keep windows, §5): clear what lies outside the keep
//! window, and Qwen's media lists.

use super::*;

impl Engine<'_> {
    /// `idle` and `forced`: clear what lies outside the keep window (SPEC §3).
    pub(super) fn time_based(&self, req: &Request, trigger: Trigger, why: String) -> Verdict {
        let kind = if trigger == Trigger::Forced {
            PlanKind::Forced
        } else {
            PlanKind::Idle
        };
        let keep = self.policy.keep_for(kind);
        let mut clear = Vec::new();
        let mut kept = Why::new(self.wants_reasons());
        match self.policy.preset {
            Harness::Claude => {
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
                    if !c.compactable || c.protected() || r.already_cleared || self.in_force(c) {
                        continue;
                    }
                    if window.contains(r.id.as_str()) {
                        kept.add(p, || {
                            format!(
                                "in the last {keep} compactable calls ({})",
                                self.rank_text(p)
                            )
                        });
                    } else if r.is_error && !self.policy.errors_clearable() {
                        kept.add(p, || "error result (clear_errors off)".into());
                    } else {
                        clear.push((
                            p,
                            format!("{why}; {}, not in last {keep}", self.rank_text(p)),
                        ));
                    }
                }
            }
            Harness::Qwen => {
                // The tool list keeps a slot for a result whose only content is
                // nested media (an image read with output ""): SPEC §5 media.
                let clearable = self.clearable(true);
                let split = clearable.len().saturating_sub(keep);
                for &p in &clearable[split..] {
                    kept.add(p, || {
                        format!(
                            "in the last {keep} clearable results ({})",
                            self.rank_text(p)
                        )
                    });
                }
                for &p in &clearable[..split] {
                    clear.push((
                        p,
                        format!("{why}; {}, not in last {keep} clearable", self.rank_text(p)),
                    ));
                }
                self.explain_unclearable(&mut kept);
            }
        }
        let mut v = Verdict {
            fired: true,
            trigger: Some(trigger),
            clear,
            target: None,
            note: why.clone(),
            kept,
            ..Verdict::none(String::new())
        };
        self.media_to_clear(req, &mut v);
        let tokens: u64 = v
            .clear
            .iter()
            .map(|(p, _)| self.s.results[self.view.cands[*p].result].est_tokens)
            .sum::<u64>()
            + self.media_tokens(&v);
        if tokens == 0 {
            v.fired = false;
            v.trigger = None;
            v.clear.clear();
            v.media.clear();
            v.strip.clear();
            v.note = format!("{why}, but nothing to clear saves tokens");
        }
        v
    }

    /// The tokens of the media a verdict clears or strips (SPEC §2 est_tokens).
    pub(super) fn media_tokens(&self, v: &Verdict) -> u64 {
        let per = self.s.harness.rules().media_tokens;
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
        if self.policy.preset != Harness::Qwen {
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
        for (p, c) in self.view.cands.iter().enumerate() {
            let r = &self.s.results[c.result];
            if !c.compactable || kept.contains_key(&p) || self.in_force(c) {
                continue;
            }
            let why = if c.pending {
                "pending: just returned, not yet sent"
            } else if r.is_error {
                "error result: never cleared"
            } else if r.chars == 0 {
                "empty result (0 chars)"
            } else {
                continue;
            };
            kept.add(p, || why.into());
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
