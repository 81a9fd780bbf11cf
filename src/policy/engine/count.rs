//! `count` (SPEC §5): past the trigger, delete sent results outside the last keep_recent.

use super::*;

impl Engine<'_> {
    /// The active results (count plan) by a pass over the view, in registration
    /// order (the order the results appear).
    pub(super) fn active_by_pass(&self) -> Vec<usize> {
        let p = &self.policy;
        let mut active: Vec<usize> = (0..self.view.cands.len())
            .filter(|&q| {
                let c = &self.view.cands[q];
                let r = &self.s.results[c.result];
                c.compactable
                    && !self.in_force(c)
                    && !c.protected()
                    && !self.gone(c.result)
                    && (!r.is_error || p.errors_clearable())
            })
            .collect();
        active.sort_by_key(|&q| self.view.cands[q].result);
        active
    }

    /// `count`: past the trigger, delete sent results outside the last keep_recent.
    pub(super) fn count(&self, req: &Request) -> Verdict {
        let p = &self.policy;
        let keep = p.keep_for(PlanKind::Count);
        let trigger = p.trigger_threshold as usize;
        let n = self.active;
        let why = CountWhy { active: n, trigger };
        if n <= trigger {
            debug_assert_eq!(n, self.active_by_pass().len(), "active count");
            return Verdict::none(Note::CountUnder(why));
        }
        // Positions of the active results, in registration order.
        let active: Vec<usize> = self.active_set.iter().map(|&r| self.pos_of[r]).collect();
        debug_assert_eq!(active, self.active_by_pass(), "active results");
        let last_user = last_user_message(self.s, req).filter(|&m| m + 1 == req.end);
        let split = n.saturating_sub(keep);
        let mut kept = Why::new();
        for &q in &active[split..] {
            kept.insert(q, Kept::InLastActive { keep });
        }
        let mut clear = Vec::new();
        for &q in &active[..split] {
            if Some(self.s.results[self.view.cands[q].result].msg) == last_user {
                kept.insert(q, Kept::NotYetSent);
            } else {
                let rank = self.rank(q);
                clear.push((q, ClearReason::Count { why, rank, keep }));
            }
        }
        if clear.is_empty() {
            let mut v = Verdict::none(Note::CountNothingSent(why));
            v.kept = kept;
            return v;
        }
        Verdict {
            trigger: Some(Trigger::Count),
            clear,
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note: Note::Count(why),
            kept,
            pre_tokens: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared};
    use crate::policy::PlanKind;

    #[test]
    fn count_deletes_sent_results_past_the_trigger() {
        let mut t = Transcript::new();
        t.prompt(0);
        for id in ["A", "B", "C", "D"] {
            t.call(id, "Read", 40, 10);
        }
        t.answer();
        // Request 4 (C's result just returned): A, B, C active > trigger 2; all but
        // the last 1 go once sent, so A and B. Deletions are cumulative: at the
        // last request C and D are active, 2 <= 2, nothing more.
        let (s, p) = t.plan(PlanKind::Count, |p| {
            p.trigger_threshold = 2;
            p.keep_recent = Some(1);
        });
        assert!(!p.step.fired());
        assert_eq!(cleared(&s, &p), ["A", "B"]);
        // At the trigger, nothing.
        let (s, p) = t.plan(PlanKind::Count, |p| {
            p.trigger_threshold = 4;
            p.keep_recent = Some(1);
        });
        assert!(cleared(&s, &p).is_empty());
    }
}
