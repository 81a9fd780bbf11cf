//! `count` (SPEC §5): past the trigger, delete sent results outside the last
//! keep_recent. A plain function of what the view holds (`Look`) and the
//! policy's parameters.

use super::*;
use crate::policy::params::When;

/// `count`: past the trigger, delete sent results outside the last keep_recent.
pub(super) fn count<L: Look>(v: &L, p: &Policy, req: &Request) -> Verdict {
    let s = v.session();
    let keep = p.keep_for(PlanKind::Count);
    let trigger = p.trigger_threshold as usize;
    let n = v.active_count(p.errors_clearable());
    let why = CountWhy { active: n, trigger };
    if n <= trigger {
        return Verdict::none(Note::Count(CountNote::Under(why)));
    }
    // Positions of the active results, in registration order.
    let active = v.active(p.errors_clearable());
    let last_user = last_user_message(s, req).filter(|&m| m + 1 == req.end);
    let split = n.saturating_sub(keep);
    let mut kept = Why::default();
    for &q in &active[split..] {
        kept.insert(q, Kept::Count(CountKept::InLastActive { keep }));
    }
    let mut clear = Vec::new();
    for &q in &active[..split] {
        if Some(s.results[v.cands()[q].result].msg) == last_user {
            kept.insert(q, Kept::Count(CountKept::NotYetSent));
        } else {
            let rank = v.rank(q);
            clear.push((q, ClearReason::Count(CountCleared { why, rank, keep })));
        }
    }
    if clear.is_empty() {
        let mut verdict = Verdict::none(Note::Count(CountNote::NothingSent(why)));
        verdict.kept = kept;
        return verdict;
    }
    Verdict {
        trigger: Some(Trigger::Count),
        clear,
        media: Vec::new(),
        strip: Vec::new(),
        media_kept: 0,
        target: None,
        note: Note::Count(CountNote::Over(why)),
        kept,
        pre_tokens: None,
    }
}

/// `count` (SPEC §5): past the trigger, the sent results but the newest.
pub(super) struct Count;

impl super::plan::Plan for Count {
    /// Its clearings last over the view (or it reads the request before).
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::View
    }

    /// Cached microcompact's own cache edits where the session's requests can
    /// carry them (Claude Code's), else rewrite; the default grid runs both.
    fn default_delivery(&self, edits: bool) -> Delivery {
        if edits {
            Delivery::CacheEdits
        } else {
            Delivery::Rewrite
        }
    }

    fn grid_deliveries(&self, edits: bool) -> Vec<Delivery> {
        if edits {
            vec![Delivery::Rewrite, Delivery::CacheEdits]
        } else {
            vec![Delivery::Rewrite]
        }
    }

    /// `compare`'s default grid (SPEC §9): three keeps, four triggers.
    fn grid(&self, key: &str) -> Option<&'static [f64]> {
        match key {
            "keep_recent" => Some(&[2.0, 5.0, 10.0]),
            "trigger_threshold" => Some(&[5.0, 10.0, 20.0, 40.0]),
            _ => None,
        }
    }

    /// `count::count`: the keep and the trigger.
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("keep_recent", When::Always),
            ("trigger_threshold", When::Always),
        ]
    }

    /// Count's deletions are cumulative over the view (SPEC §5).
    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[(Trigger::Count, super::plan::Lasts::View)]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Count
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(count(&*e, &e.policy, req))
    }

    /// Claude Code's cached microcompact writes a `microcompact_boundary`
    /// without `preTokens` (SPEC §10).
    fn writes(&self) -> Option<crate::vocab::Writer> {
        Some(crate::vocab::Writer::Cached)
    }

    /// Its deletions are cumulative within the view (SPEC §5).
    fn edits_outlive_turns(&self) -> bool {
        true
    }
}

impl std::fmt::Display for CountWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "count: {} active > trigger {}",
            self.active, self.trigger
        )
    }
}

/// What the count plan said at a request (the step's note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CountNote {
    Under(CountWhy),
    Over(CountWhy),
    NothingSent(CountWhy),
}

impl std::fmt::Display for CountNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CountNote::Under(CountWhy { active, trigger }) => {
                write!(f, "count: {active} active <= trigger {trigger}")
            }
            CountNote::Over(why) => why.fmt(f),
            CountNote::NothingSent(why) => write!(f, "{why}, but nothing sent can be deleted"),
        }
    }
}

/// Past the trigger, outside the keep window, already sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountCleared {
    pub why: CountWhy,
    pub rank: Rank,
    pub keep: usize,
}

impl std::fmt::Display for CountCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let CountCleared { why, rank, keep } = self;
        write!(f, "{why}; {rank}, not in last {keep}, already sent")
    }
}

/// Why the count plan kept a result of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum CountKept {
    InLastActive { keep: usize },
    NotYetSent,
}

impl std::fmt::Display for CountKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CountKept::InLastActive { keep } => write!(f, "in the last {keep} active results"),
            CountKept::NotYetSent => {
                f.write_str("not yet sent: only results already sent can be deleted")
            }
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
