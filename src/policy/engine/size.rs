//! `size` (SPEC §5): over the threshold, clear oldest first down to the target.

use super::*;

impl Engine<'_> {
    /// `size`: over the threshold, clear oldest first down to the target (SPEC §5).
    pub(super) fn size(&self, total: u64) -> Verdict {
        let p = &self.policy;
        if p.size_threshold < 0 {
            return Verdict::none(Note::SizeDisabled);
        }
        let threshold = p.size_threshold as u64;
        let target = if p.low_watermark {
            threshold / 2
        } else {
            threshold
        };
        if total <= threshold {
            let mut v = Verdict::none(Note::SizeUnder { total, threshold });
            v.target = Some(target);
            return v;
        }
        let keep = p.keep_for(PlanKind::Size);
        let clearable = self.size_clearable();
        let split = clearable.len().saturating_sub(keep);
        let mut kept = Why::new();
        for &q in &clearable[split..] {
            kept.insert(
                q,
                Kept::InLastClearable {
                    keep,
                    rank: self.rank(q),
                },
            );
        }
        let why = SizeWhy {
            total,
            threshold,
            target,
        };
        let mut left = total;
        let mut clear = Vec::new();
        for &q in &clearable[..split] {
            if left <= target {
                kept.insert(q, Kept::SizeTargetReached { target });
                continue;
            }
            left -= self.s.results[self.view.cands[q].result].chars;
            let rank = self.rank(q);
            clear.push((q, ClearReason::Size { why, rank, keep }));
        }
        self.explain_unclearable(&mut kept);
        let overage = (left > target).then_some(total - left);
        Verdict {
            trigger: Some(Trigger::Size),
            clear,
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: Some(target),
            note: Note::Size { why, overage },
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
    fn size_clears_oldest_first_down_to_half_the_threshold() {
        let mut t = Transcript::new();
        t.prompt(0);
        for id in ["A", "B", "C", "D"] {
            t.call(id, "Read", 3000, 10);
        }
        t.answer().prompt(1).answer();
        // 12,000 chars > 10,000: clear oldest first to 5,000 (keep the last 1).
        let (s, p) = t.plan(PlanKind::Size, |p| {
            p.size_threshold = 10_000;
            p.keep_recent = Some(1);
        });
        assert_eq!(p.step.trigger.map(|t| t.name()), Some("size"));
        assert_eq!(cleared(&s, &p), ["A", "B", "C"]);
        assert_eq!((p.step.chars_before, p.step.chars_after), (12_000, 3_000));
        assert_eq!(p.step.target_chars, Some(5_000));
        // Without the low watermark the target is the threshold: one goes.
        let (s, p) = t.plan(PlanKind::Size, |p| {
            p.size_threshold = 10_000;
            p.low_watermark = false;
            p.keep_recent = Some(1);
        });
        assert_eq!(cleared(&s, &p), ["A"]);
    }
}
