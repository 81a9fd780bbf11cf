//! `idle` and `forced` (SPEC §3 keep windows, §5): clear what lies outside the keep
//! window, and Qwen's media lists. Plain functions of what the view holds
//! (`Look`) and the policy's parameters.

use super::*;
use crate::policy::params::When;

/// `idle` at `req`, `gap` minutes after the last response (None: no gap
/// known): where the harness runs it at this request and the gap holds.
pub(super) fn idle<L: Look>(v: &L, p: &Policy, req: &Request, gap: Option<f64>) -> Verdict {
    if let Some(r) = p.preset.asks().runs_at(req).filter(|r| !r.idle) {
        return Verdict::none(Note::Time(TimeNote::NotRun(r.why_none)));
    }
    if p.gap_threshold_minutes < 0.0 {
        return Verdict::none(Note::Time(TimeNote::Disabled));
    }
    let threshold = p.gap_threshold_minutes;
    if !p.gap_holds(gap) {
        return Verdict::none(Note::Time(TimeNote::UnderGap { gap, threshold }));
    }
    time_based(v, p, req, Trigger::Idle, TimeWhy::Idle { gap, threshold })
}

/// `forced`: at the request it is asked for (`at`), whatever the gap.
pub(super) fn forced<L: Look>(v: &L, p: &Policy, req: &Request, at: usize) -> Verdict {
    if req.index != at {
        return Verdict::none(Note::Time(TimeNote::ForcedElsewhere { at }));
    }
    time_based(
        v,
        p,
        req,
        Trigger::Forced,
        TimeWhy::Forced { at: req.index },
    )
}

/// `idle` and `forced`: clear what lies outside the keep window (SPEC §3).
fn time_based<L: Look>(
    v: &L,
    p: &Policy,
    req: &Request,
    trigger: Trigger,
    why: TimeWhy,
) -> Verdict {
    let s = v.session();
    let kind = if trigger == Trigger::Forced {
        PlanKind::Forced
    } else {
        PlanKind::Idle
    };
    let keep = p.keep_for(kind);
    // `clearable`: the window is of clearable results (ranked by response)
    // rather than of calls (SPEC §3).
    let time = |rank, clearable| {
        ClearReason::Time(TimeCleared {
            why,
            rank,
            keep,
            clearable,
        })
    };
    let mut clear = Vec::new();
    let mut kept = Why::default();
    match p.preset.rules().rank_by {
        RankBy::Calls => {
            // The window is over call ids (calls without a result included),
            // protected ids removed: collectCompactableToolIds.
            let protected: HashSet<&str> = v
                .cands()
                .iter()
                .filter(|c| c.protected())
                .map(|c| s.results[c.result].id.as_str())
                .collect();
            let mut ids: Vec<&str> = Vec::new();
            for &c in v.compactable_calls() {
                let id = s.calls[c].id.as_str();
                if !protected.contains(id) {
                    ids.push(id);
                }
            }
            let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                .iter()
                .copied()
                .collect();
            for (q, c) in v.cands().iter().enumerate() {
                let r = &s.results[c.result];
                if !c.compactable || c.protected() || v.gone(c.result) || v.in_force(c) {
                    continue;
                }
                if window.contains(r.id.as_str()) {
                    let rank = v.rank(q);
                    kept.insert(q, Kept::InLastCalls { keep, rank });
                } else if r.is_error && !p.errors_clearable() {
                    kept.insert(q, Kept::ErrorClearErrorsOff);
                } else {
                    clear.push((q, time(v.rank(q), false)));
                }
            }
        }
        RankBy::Responses => {
            // The tool list keeps a slot for a result whose only content is
            // nested media (an image read with output ""): SPEC §5 media.
            let clearable = v.clearable(true);
            let split = clearable.len().saturating_sub(keep);
            for &q in &clearable[split..] {
                kept.insert(
                    q,
                    Kept::InLastClearable {
                        keep,
                        rank: v.rank(q),
                    },
                );
            }
            for &q in &clearable[..split] {
                clear.push((q, time(v.rank(q), true)));
            }
            v.explain_unclearable(&mut kept);
        }
    }
    let mut verdict = Verdict {
        trigger: Some(trigger),
        clear,
        target: None,
        kept,
        ..Verdict::none(Note::Time(TimeNote::Fired(why)))
    };
    media_to_clear(v, p, req, &mut verdict);
    let tokens: u64 = verdict
        .clear
        .iter()
        .map(|(q, _)| s.results[v.cands()[*q].result].est_tokens)
        .sum::<u64>()
        + v.media_tokens(&verdict);
    if tokens == 0 {
        verdict.trigger = None;
        verdict.clear.clear();
        verdict.media.clear();
        verdict.strip.clear();
        verdict.note = Note::Time(TimeNote::SavesNothing(why));
    }
    verdict
}

/// Qwen's two media lists, each with its own keep window (SPEC §5 media):
/// top-level media parts, and the nested media of results that are not
/// compactable (an MCP screenshot). Errors keep their media.
fn media_to_clear<L: Look>(v: &L, p: &Policy, req: &Request, verdict: &mut Verdict) {
    if !p.preset.asks().media_lists() {
        return;
    }
    let s = v.session();
    let keep = p.keep_for(PlanKind::Idle);
    let live: Vec<usize> = s
        .media_in(req.view_start, req.end)
        .filter(|&m| !v.media_cleared(m))
        .collect();
    let nested: Vec<usize> = v
        .cands()
        .iter()
        .filter(|c| !c.compactable && s.results[c.result].media > 0 && !v.nested_stripped(c.result))
        .map(|c| c.result)
        .collect();
    verdict.media_kept = (live.len() + nested.len()).min(keep);
    verdict.media = live[..live.len().saturating_sub(keep)].to_vec();
    verdict.strip = nested[..nested.len().saturating_sub(keep)]
        .iter()
        .copied()
        .filter(|&r| !s.results[r].is_error)
        .collect();
}

/// `idle` (SPEC §5): after the gap, all but the newest `keep_recent`.
pub(super) struct Idle;

impl super::plan::Plan for Idle {
    /// `compare`'s default grid (SPEC §9): eight keeps, eight gaps.
    fn grid(&self, key: &str) -> Option<&'static [f64]> {
        match key {
            "keep_recent" => Some(&[1.0, 2.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0]),
            "gap_threshold_minutes" => Some(&[5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0]),
            _ => None,
        }
    }

    /// The keep window (`idle::time_based`, `idle::media_to_clear`, through
    /// `Policy::keep_for`) and the gap (`idle::idle`, through
    /// `Policy::gap_holds`).
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("keep_recent", When::Always),
            ("gap_threshold_minutes", When::Always),
        ]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Idle
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, at: &super::plan::At) -> Decided {
        Decided::verdict(idle(&*e, &e.policy, req, at.gap))
    }
}

/// `forced` (SPEC §5): `idle` at the viewed request, whatever the gap.
pub(super) struct Forced;

impl super::plan::Plan for Forced {
    /// The keep window (`idle::forced`, through `Policy::keep_for`).
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[("keep_recent", When::Always)]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Forced
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(forced(&*e, &e.policy, req, e.forced_at))
    }

    fn fires_at_view(&self) -> bool {
        true
    }
}

impl std::fmt::Display for TimeWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeWhy::Idle { gap, threshold } => {
                write!(
                    f,
                    "idle: gap {} min >= {}",
                    crate::numbers::fmt_gap(*gap),
                    crate::numbers::fmt_num(*threshold)
                )
            }
            TimeWhy::Forced { at } => write!(f, "forced at request {at}"),
        }
    }
}

/// What `idle` or `forced` said at a request (the step's note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeNote {
    /// The harness does not look at the gap at this send.
    NotRun(NoRun),
    Disabled,
    UnderGap {
        gap: Option<f64>,
        threshold: f64,
    },
    ForcedElsewhere {
        at: usize,
    },
    /// `idle` or `forced` acted.
    Fired(TimeWhy),
    /// `idle` or `forced` would act, but clearing saves no tokens.
    SavesNothing(TimeWhy),
}

impl std::fmt::Display for TimeNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::{fmt_gap, fmt_num};
        match self {
            TimeNote::NotRun(why) => write!(f, "idle: {why}"),
            TimeNote::Disabled => f.write_str("idle: disabled (negative gap threshold)"),
            TimeNote::UnderGap { gap, threshold } => {
                write!(
                    f,
                    "idle: gap {} < {} min",
                    fmt_gap(*gap),
                    fmt_num(*threshold)
                )
            }
            TimeNote::ForcedElsewhere { at } => write!(f, "forced: acts at request {at} only"),
            TimeNote::Fired(why) => why.fmt(f),
            TimeNote::SavesNothing(why) => write!(f, "{why}, but nothing to clear saves tokens"),
        }
    }
}

/// Outside the keep window of `idle`/`forced`: of compactable calls
/// (Claude) or of clearable results (Qwen, `clearable`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeCleared {
    pub why: TimeWhy,
    pub rank: Rank,
    pub keep: usize,
    pub clearable: bool,
}

impl std::fmt::Display for TimeCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let TimeCleared {
            why,
            rank,
            keep,
            clearable,
        } = self;
        write!(f, "{why}; {rank}, not in last {keep}")?;
        if *clearable {
            f.write_str(" clearable")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared, three_reads};
    use crate::policy::PlanKind;

    #[test]
    fn idle_clears_outside_the_keep_window_after_the_gap() {
        let t = three_reads();
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
