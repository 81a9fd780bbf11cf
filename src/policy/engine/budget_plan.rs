//! `budget` (SPEC §5): Claude Code's token-budget microcompact, over the view; the
//! walk itself is `policy::budget::decide`.

use super::*;

impl Engine<'_> {
    /// `budget`: past the usage gate, clear the oldest eligible results outside
    /// the last keep_recent eligible calls until the rest fits the budget
    /// (SPEC §5; the walk itself is `budget::decide`).
    pub(super) fn budget(&self, req: &Request) -> Verdict {
        let p = &self.policy;
        let keep = p.keep_for(PlanKind::Budget);
        let warning = p.budget_warning_at(req);
        let usage = self.view.last_usage;
        // Below the usage gate nothing fires: a step that reports nothing but
        // whether it fired (quiet, or the timeline's) needs no pass over the view.
        if usage.is_none_or(|u| u < warning) && (req.index < self.quiet_before || !self.detail) {
            return Verdict::none(
                self.note(req, || format!("budget: {}", gate_text(usage, warning))),
            );
        }
        let eligible_tool =
            |c: &Candidate| c.compactable && c.tool.as_deref() != Some(budget::NOT_ELIGIBLE_TOOL);
        // Ids out of the plan's reach: protected, or already cleared by it
        // (its memory: a cleared id is no longer collected).
        let gone: HashSet<&str> = self
            .view
            .cands
            .iter()
            .filter(|c| c.protected() || self.in_force(c))
            .map(|c| self.s.results[c.result].id.as_str())
            .collect();
        let ids: Vec<&str> = self
            .view
            .compactable_call_ix
            .iter()
            .map(|&c| &self.s.calls[c])
            .filter(|c| c.name != budget::NOT_ELIGIBLE_TOOL && !gone.contains(c.id.as_str()))
            .map(|c| c.id.as_str())
            .collect();
        let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
            .iter()
            .copied()
            .collect();
        let mut positions = Vec::new();
        let mut items = Vec::new();
        let mut kept = Why::new(self.wants_reasons());
        for (pos, c) in self.view.cands.iter().enumerate() {
            let r = &self.s.results[c.result];
            if !c.compactable || c.protected() || r.already_cleared || self.in_force(c) {
                continue;
            }
            if !eligible_tool(c) {
                kept.add(pos, || {
                    format!(
                        "{} results are never cleared by the budget plan",
                        budget::NOT_ELIGIBLE_TOOL
                    )
                });
                continue;
            }
            if r.is_error && !p.errors_clearable() {
                kept.add(pos, || "error result (clear_errors off)".into());
                continue;
            }
            let in_window = window.contains(r.id.as_str());
            if in_window {
                kept.add(pos, || {
                    format!(
                        "in the last {keep} eligible calls ({})",
                        self.rank_text(pos)
                    )
                });
            }
            positions.push(pos);
            items.push(budget::Item {
                tokens: r.est_tokens,
                in_window,
            });
        }
        let params = budget::Params {
            keep,
            budget_tokens: p.budget_tokens,
            min_saving: p.budget_min_saving,
            warning,
        };
        let d = budget::decide(&items, usage, &params);
        let gate = gate_text(usage, warning);
        let total = if d.pre_tokens > p.budget_tokens {
            format!(
                "{} tokens of results > {}",
                fmt_int(d.pre_tokens),
                fmt_int(p.budget_tokens)
            )
        } else {
            format!(
                "{} tokens of results ≤ {}",
                fmt_int(d.pre_tokens),
                fmt_int(p.budget_tokens)
            )
        };
        let why = format!("budget: {gate}; {total}");
        let walked: HashSet<usize> = d.walk.iter().map(|&i| positions[i]).collect();
        for (i, &pos) in positions.iter().enumerate() {
            if !items[i].in_window && !walked.contains(&pos) {
                kept.add(pos, || {
                    format!(
                        "budget: the rest fits in {} once older results are cleared ({})",
                        fmt_int(p.budget_tokens),
                        self.rank_text(pos)
                    )
                });
            }
        }
        let mut v = match d.failed {
            None => Verdict {
                fired: true,
                trigger: Some(Trigger::Budget),
                clear: d
                    .walk
                    .iter()
                    .map(|&i| {
                        let pos = positions[i];
                        (
                            pos,
                            format!("{why}; {}, not in last {keep}", self.rank_text(pos)),
                        )
                    })
                    .collect(),
                media: Vec::new(),
                strip: Vec::new(),
                media_kept: 0,
                target: None,
                note: format!("{why}; clearing saves {}", fmt_int(d.saved)),
                kept: Why::default(),
                pre_tokens: None,
            },
            Some(failed) => {
                let note = match failed {
                    budget::Failed::NoUsage | budget::Failed::Usage => format!("budget: {gate}"),
                    budget::Failed::WithinBudget => format!("{why}: nothing to clear"),
                    budget::Failed::MinSaving => format!(
                        "{why}, but clearing saves only {} < {} minimum",
                        fmt_int(d.saved),
                        fmt_int(p.budget_min_saving)
                    ),
                };
                Verdict::none(self.note(req, || note))
            }
        };
        if v.fired {
            v.kept = kept;
        }
        v.pre_tokens = Some(d.pre_tokens);
        v
    }
}

/// The budget plan's usage gate in words.
pub(super) fn gate_text(usage: Option<u64>, warning: u64) -> String {
    match usage {
        Some(u) if u >= warning => format!("usage {} ≥ {}", fmt_int(u), fmt_int(warning)),
        Some(u) => format!("usage {} < {}", fmt_int(u), fmt_int(warning)),
        None => format!("no recorded usage in the view (gate {})", fmt_int(warning)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared};
    use crate::policy::PlanKind;

    #[test]
    fn budget_fires_past_the_usage_gate_and_keeps_the_last_three() {
        let mut t = Transcript::new();
        t.prompt(0);
        // Five results of 40,000 chars = 10,000 tokens each; the last response's
        // usage 150,000 passes the 147,000 gate of 2.1.90 (no version below 2.1.21).
        for (i, id) in ["A", "B", "C", "D", "E"].iter().enumerate() {
            t.call(id, "Read", 40_000, if i == 4 { 150_000 } else { 10 });
        }
        let (s, p) = t.plan(PlanKind::Budget, |p| {
            p.budget_tokens = 20_000;
            p.budget_min_saving = 10_000;
        });
        // 50,000 tokens > 20,000: keep C, D, E; clear A (40,000 left), B (30,000 left).
        assert_eq!(p.step.trigger.map(|t| t.name()), Some("budget"));
        assert_eq!(cleared(&s, &p), ["A", "B"]);
        assert_eq!(p.step.pre_tokens, Some(50_000));
        // Below the gate nothing fires.
        let (s, p) = t.plan(PlanKind::Budget, |p| {
            p.budget_warning_tokens = Some(150_001)
        });
        assert!(!p.step.fired() && cleared(&s, &p).is_empty());
    }
}
