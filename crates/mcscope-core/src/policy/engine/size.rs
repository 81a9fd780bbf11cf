//! `size` (SPEC §5): over the threshold, clear oldest first down to the target.
//! A plain function of what the view holds (`Look`) and the policy's
//! parameters.

use super::*;
use crate::policy::params::When;

/// `size` at `req`, the view's size total being `total`: where the harness
/// runs it at this request and it is on.
pub(super) fn size<L: Look>(v: &L, p: &Policy, req: &Request, total: u64) -> Verdict {
    if let Some(r) = p.preset.asks().runs_at(req).filter(|r| !r.size) {
        return Verdict::none(Note::Size(SizeNote::NotRun(r.why_none)));
    }
    if p.preset.asks().size_off_with_idle() && p.gap_threshold_minutes < 0.0 && !p.size_explicit {
        return Verdict::none(Note::Size(SizeNote::OffWithIdle));
    }
    over_threshold(v, p, total)
}

/// Over the threshold, clear oldest first down to the target (SPEC §5).
fn over_threshold<L: Look>(v: &L, p: &Policy, total: u64) -> Verdict {
    if p.size_threshold < 0 {
        return Verdict::none(Note::Size(SizeNote::Disabled));
    }
    let threshold = p.size_threshold as u64;
    let target = if p.low_watermark {
        threshold / 2
    } else {
        threshold
    };
    if total <= threshold {
        let mut verdict = Verdict::none(Note::Size(SizeNote::Under { total, threshold }));
        verdict.target = Some(target);
        return verdict;
    }
    let keep = p.keep_for(PlanKind::Size);
    let clearable = v.size_clearable();
    let split = clearable.len().saturating_sub(keep);
    let mut kept = Why::default();
    for &q in &clearable[split..] {
        kept.insert(
            q,
            Kept::InLastClearable {
                keep,
                rank: v.rank(q),
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
            kept.insert(q, Kept::Size(SizeKept::TargetReached { target }));
            continue;
        }
        left -= v.session().results[v.cands()[q].result].chars;
        let rank = v.rank(q);
        clear.push((q, ClearReason::Size(SizeCleared { why, rank, keep })));
    }
    v.explain_unclearable(&mut kept);
    let overage = (left > target).then_some(total - left);
    Verdict {
        trigger: Some(Trigger::Size),
        clear,
        media: Vec::new(),
        strip: Vec::new(),
        media_kept: 0,
        target: Some(target),
        note: Note::Size(SizeNote::Over { why, overage }),
        kept,
        pre_tokens: None,
    }
}

/// `size` (SPEC §5): over the size threshold, oldest first.
pub(super) struct Size;

impl super::plan::Plan for Size {
    /// Its index of the view's results by position (a tracked engine's:
    /// `size_index`), where the policy may run it.
    fn state(&self, _s: &Session, _d: &Derived, p: &Policy) -> Option<PlanState> {
        PlanState::empty_where_runs::<super::size_index::SizeIndex>(p)
    }

    /// Tracked, its clearings stay in force at a turn start until it has
    /// decided again over the view as if they had lapsed
    /// (`size_turn_start`): most of them stay.
    fn at_turn_start(&self, e: &Engine<'_>) -> super::plan::AtTurnStart {
        if e.size_turn_start_defers() {
            super::plan::AtTurnStart::Defer
        } else {
            super::plan::AtTurnStart::Lapse
        }
    }

    /// `compare`'s default grid (SPEC §9): one keep, five thresholds.
    fn grid(&self, key: &str) -> Option<&'static [f64]> {
        match key {
            "keep_recent" => Some(&[5.0]),
            "size_threshold" => Some(&[100_000.0, 200_000.0, 300_000.0, 500_000.0, 800_000.0]),
            _ => None,
        }
    }

    /// `size::size` and `size_index.rs`: the keep and the threshold; the gap
    /// only under a harness whose size plan is off with idle (Qwen's
    /// settings coupling).
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("keep_recent", When::Always),
            ("gap_threshold_minutes", When::SizeNeedsIdle),
            ("size_threshold", When::Always),
        ]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Size
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, at: &super::plan::At) -> Decided {
        Decided::verdict(size(&*e, &e.policy, req, at.chars_before))
    }
}

impl std::fmt::Display for SizeWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "size: {} chars > {}; clearing oldest first down to {}",
            crate::numbers::fmt_int(self.total),
            crate::numbers::fmt_int(self.threshold),
            crate::numbers::fmt_int(self.target)
        )
    }
}

/// What the size plan said at a request (the step's note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeNote {
    /// The harness runs no size check at this send.
    NotRun(NoRun),
    /// Qwen: a negative gap turns the size check off unless its threshold is set.
    OffWithIdle,
    Disabled,
    Under {
        total: u64,
        threshold: u64,
    },
    /// Over the threshold; `overage`: what could go when it was not enough.
    Over {
        why: SizeWhy,
        overage: Option<u64>,
    },
}

impl std::fmt::Display for SizeNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        match self {
            SizeNote::NotRun(why) => write!(f, "size: {why}"),
            SizeNote::OffWithIdle => f.write_str(
                "size: off with idle (negative gap and no size threshold set: Qwen's settings coupling)",
            ),
            SizeNote::Disabled => f.write_str("size: disabled (negative threshold)"),
            SizeNote::Under { total, threshold } => {
                write!(f, "size: {} chars <= {}", fmt_int(*total), fmt_int(*threshold))
            }
            SizeNote::Over { why, overage: None } => why.fmt(f),
            SizeNote::Over {
                why,
                overage: Some(gone),
            } => write!(f, "{why}; overage: only {} chars could go", fmt_int(*gone)),
        }
    }
}

/// Outside the size plan's keep window, while over its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeCleared {
    pub why: SizeWhy,
    pub rank: Rank,
    pub keep: usize,
}

impl std::fmt::Display for SizeCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let SizeCleared { why, rank, keep } = self;
        write!(f, "{why} ({rank}, not in last {keep} clearable)")
    }
}

/// Why the size plan kept a result of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum SizeKept {
    /// The total reached the target before this result.
    TargetReached { target: u64 },
}

impl std::fmt::Display for SizeKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeKept::TargetReached { target } => write!(
                f,
                "size target {} reached",
                crate::numbers::fmt_int(*target)
            ),
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
