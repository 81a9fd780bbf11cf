//! What a plan kind reads at a request (issue 22 item 3): the view's
//! candidates, which of them a clearing or a cut has taken, and the session
//! they index, read-only. Every plan kind is a plain function of a `Look` and
//! the policy's parameters (`Engine::evaluate` calls them), with what the
//! engine carries from request to request passed in; none of them asks which
//! harness wrote the transcript.
//!
//! The engine is one `Look`: its running totals answer in constant time what
//! the provided methods find by a pass over the view, and the debug builds
//! check the two agree. A test builds another `Look` by hand (`tests` below)
//! and runs the kinds on it with no engine at all.

use super::*;

pub(super) trait Look {
    /// The session the candidates index.
    fn session(&self) -> &Session;
    /// The view's candidates, in rank order.
    fn cands(&self) -> &[Candidate];
    /// Result `r`'s position among the candidates, where the view holds it.
    fn position(&self, r: usize) -> Option<usize>;
    /// Whether a plan's clearing is in force on candidate `c`.
    fn in_force(&self, c: &Candidate) -> bool;
    /// Whether the candidates may be listed out of their stored order (a
    /// retained tail's copies): true unless the look knows they are not.
    fn stored_unsorted(&self) -> bool {
        true
    }
    /// The engine's index of what mask counts (`mask_index`), where it keeps
    /// one: None, and mask walks the view.
    fn mask_index(&self) -> Option<&dyn MaskIndexed> {
        None
    }
    /// Whether result `r` is out of every plan's reach (cleared by the harness
    /// already, or replaced by a recorded cut: SPEC §13.E1, §15.4).
    fn gone(&self, r: usize) -> bool;
    /// The view's compactable calls, by call index, in order.
    fn compactable_calls(&self) -> &[usize];
    /// How many results are ranked where the harness ranks responses
    /// (`RankBy::Responses`).
    fn ranked_responses(&self) -> usize;
    /// The recorded usage of the view's last response.
    fn last_usage(&self) -> Option<u64>;
    /// Whether a verdict says why each candidate stays (a status reads it;
    /// a lean pass, or a step that only carries the state, skips it).
    fn explains(&self) -> bool;
    /// Whether top-level media part `m` is cleared.
    fn media_cleared(&self, m: usize) -> bool;
    /// Whether result `r`'s nested media is stripped.
    fn nested_stripped(&self, r: usize) -> bool;

    /// Candidate `p`'s rank among the view's ranked results.
    fn rank(&self, p: usize) -> Rank {
        let of = match self.session().shape().rank_by {
            RankBy::Calls => self.compactable_calls().len(),
            RankBy::Responses => self.ranked_responses(),
        };
        Rank {
            rank: self.cands()[p].rank,
            of,
        }
    }

    /// Clearable (SPEC §3): unprotected, not error, not cleared, chars > 0,
    /// not pending; with `media`, nested media counts as content (idle and
    /// forced).
    fn clearable(&self, media: bool) -> Vec<usize> {
        clearable_by_pass(self, media)
    }

    /// What the size plan may clear: `clearable(false)`.
    fn size_clearable(&self) -> Vec<usize> {
        self.clearable(false)
    }

    /// The count plan's active results (SPEC §5), by position, in
    /// registration order (the order the results appear).
    fn active(&self, errors_clearable: bool) -> Vec<usize> {
        active_by_pass(self, errors_clearable)
    }

    /// How many results `active` lists.
    fn active_count(&self, errors_clearable: bool) -> usize {
        self.active(errors_clearable).len()
    }

    /// The budget plan's eligible tokens (SPEC §5): compactable results of an
    /// eligible tool, not protected, cleared or gone, errors where they may be
    /// cleared.
    fn eligible_tokens(&self, errors_clearable: bool) -> u64 {
        eligible_by_pass(self, errors_clearable)
    }

    /// Why the compactable candidates no reason has been given for stay: pending,
    /// an error, or empty (only where the look explains).
    fn explain_unclearable(&self, kept: &mut Why) {
        if !self.explains() {
            return;
        }
        let s = self.session();
        for (p, c) in self.cands().iter().enumerate() {
            let r = &s.results[c.result];
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

    /// The tokens of the media a verdict clears or strips (SPEC §2 est_tokens).
    fn media_tokens(&self, v: &Verdict) -> u64 {
        let s = self.session();
        let per = s.shape().media_tokens;
        let stripped: u64 = v.strip.iter().map(|&r| s.results[r].media as u64).sum();
        (v.media.len() as u64 + stripped) * per
    }
}

/// `Look::clearable` by a pass over the view.
fn clearable_by_pass<L: Look + ?Sized>(v: &L, media: bool) -> Vec<usize> {
    let s = v.session();
    (0..v.cands().len())
        .filter(|&p| {
            let c = &v.cands()[p];
            let r = &s.results[c.result];
            c.compactable
                && !c.protected()
                && !r.is_error
                && !v.in_force(c)
                && !v.gone(c.result)
                && (r.chars > 0 || (media && r.media > 0))
                && !c.pending
        })
        .collect()
}

/// `Look::active` by a pass over the view.
fn active_by_pass<L: Look + ?Sized>(v: &L, errors_clearable: bool) -> Vec<usize> {
    let s = v.session();
    let mut active: Vec<usize> = (0..v.cands().len())
        .filter(|&q| {
            let c = &v.cands()[q];
            let r = &s.results[c.result];
            c.compactable
                && !v.in_force(c)
                && !c.protected()
                && !v.gone(c.result)
                && (!r.is_error || errors_clearable)
        })
        .collect();
    active.sort_by_key(|&q| v.cands()[q].result);
    active
}

/// `Look::eligible_tokens` by a pass over the view.
fn eligible_by_pass<L: Look + ?Sized>(v: &L, errors_clearable: bool) -> u64 {
    let s = v.session();
    v.cands()
        .iter()
        .filter(|c| {
            let r = &s.results[c.result];
            c.compactable
                && c.tool.as_deref() != Some(budget::NOT_ELIGIBLE_TOOL)
                && !c.protected()
                && !v.gone(c.result)
                && !v.in_force(c)
                && (!r.is_error || errors_clearable)
        })
        .map(|c| s.results[c.result].est_tokens)
        .sum()
}

/// The engine reads the view it grows incrementally; its running totals
/// answer what a pass would, and the debug builds check that they do.
impl Look for Engine<'_> {
    fn session(&self) -> &Session {
        self.s
    }

    fn cands(&self) -> &[Candidate] {
        &self.view.cands
    }

    fn position(&self, r: usize) -> Option<usize> {
        let p = *self.pos_of.get(r)?;
        self.view
            .cands
            .get(p)
            .is_some_and(|c| c.result == r)
            .then_some(p)
    }

    fn in_force(&self, c: &Candidate) -> bool {
        self.cleared[c.result].is_some()
    }

    fn stored_unsorted(&self) -> bool {
        self.view.stored_unsorted
    }

    fn mask_index(&self) -> Option<&dyn MaskIndexed> {
        self.plans
            .follows::<super::mask_index::MaskIndex>()
            .then_some(self as &dyn MaskIndexed)
    }

    fn gone(&self, r: usize) -> bool {
        self.s.results[r].already_cleared || self.s.cut_at(r, self.at)
    }

    fn compactable_calls(&self) -> &[usize] {
        &self.view.compactable_call_ix
    }

    fn ranked_responses(&self) -> usize {
        self.view.response_rank
    }

    fn last_usage(&self) -> Option<u64> {
        self.view.last_usage
    }

    fn explains(&self) -> bool {
        // A quiet step (one that only carries the state) reports no status.
        self.modes.kept_wanted
    }

    fn media_cleared(&self, m: usize) -> bool {
        self.media.cleared[m]
    }

    fn nested_stripped(&self, r: usize) -> bool {
        self.media.stripped[r]
    }

    /// From the size plan's index where it is on (its free positions but the
    /// pending ones), so that a plan firing within a long turn costs what it
    /// clears rather than a pass over the view each time.
    fn size_clearable(&self) -> Vec<usize> {
        let Some(ix) = self
            .plans
            .get::<super::size_index::SizeIndex>()
            .filter(|_| self.plans.follows::<super::size_index::SizeIndex>())
        else {
            return self.clearable(false);
        };
        let mut list = ix.free_positions();
        if !self.pending.is_empty() {
            list.retain(|p| !self.pending.contains(p));
        }
        debug_assert_eq!(list, self.clearable(false), "size plan's clearable");
        list
    }

    /// The active results themselves, kept as clearings come and go.
    fn active(&self, errors_clearable: bool) -> Vec<usize> {
        debug_assert_eq!(errors_clearable, self.policy.errors_clearable());
        let active: Vec<usize> = self
            .running
            .active_set
            .iter()
            .map(|&r| self.pos_of[r])
            .collect();
        debug_assert_eq!(
            active,
            active_by_pass(self, errors_clearable),
            "active results"
        );
        active
    }

    fn active_count(&self, errors_clearable: bool) -> usize {
        debug_assert_eq!(errors_clearable, self.policy.errors_clearable());
        debug_assert_eq!(
            self.running.active,
            active_by_pass(self, errors_clearable).len(),
            "active count"
        );
        self.running.active
    }

    fn eligible_tokens(&self, errors_clearable: bool) -> u64 {
        debug_assert_eq!(errors_clearable, self.policy.errors_clearable());
        debug_assert_eq!(
            self.running.eligible_tokens,
            eligible_by_pass(self, errors_clearable),
            "eligible tokens"
        );
        self.running.eligible_tokens
    }
}

/// What the engine's mask index answers (see `mask_index`), by candidate
/// position: the outputs mask counts and that are not masked, newest first;
/// the sum of their tokens up to a result; those masking would shrink.
pub(super) trait MaskIndexed {
    fn members_newest(&self) -> Box<dyn Iterator<Item = usize> + '_>;
    fn tokens_through(&self, r: usize) -> u64;
    fn savers_through(&self, r: usize) -> Vec<usize>;
}

impl MaskIndexed for Engine<'_> {
    fn members_newest(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        Box::new(self.mask_members_newest())
    }

    fn tokens_through(&self, r: usize) -> u64 {
        self.mask_tokens_through(r)
    }

    fn savers_through(&self, r: usize) -> Vec<usize> {
        self.mask_savers_through(r)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Transcript, cleared, three_reads};
    use super::*;
    use crate::session::HarnessId;

    /// A view made by hand, with no engine: every result of the session in
    /// order, each ranked by its call, none pending or protected; `cleared`
    /// are those a clearing holds.
    struct Hand {
        s: Session,
        cands: Vec<Candidate>,
        calls: Vec<usize>,
        cleared: Vec<bool>,
    }

    impl Hand {
        fn new(t: &Transcript, cleared: &[usize]) -> Hand {
            let s = t.session();
            let cands = (0..s.results.len())
                .map(|r| Candidate {
                    result: r,
                    tool: Some(s.calls[r].name.clone()),
                    compactable: true,
                    rank: Some(r + 1),
                    path: None,
                    summary: None,
                    paths: Vec::new(),
                    file_path_tool: false,
                    protection: None,
                    pending: false,
                    status: Status::Kept,
                    reason: Reason::Unset,
                    cleared_at: None,
                    dead_branch: false,
                })
                .collect();
            let calls = (0..s.calls.len()).collect();
            let cleared = (0..s.results.len()).map(|r| cleared.contains(&r)).collect();
            Hand {
                s,
                cands,
                calls,
                cleared,
            }
        }

        fn last(&self) -> &Request {
            self.s.requests.last().unwrap()
        }

        /// The ids a verdict clears.
        fn ids(&self, v: &Verdict) -> Vec<&str> {
            v.clear
                .iter()
                .map(|(q, _)| self.s.results[self.cands[*q].result].id.as_str())
                .collect()
        }
    }

    impl Look for Hand {
        fn session(&self) -> &Session {
            &self.s
        }
        fn cands(&self) -> &[Candidate] {
            &self.cands
        }
        fn position(&self, r: usize) -> Option<usize> {
            (r < self.cands.len()).then_some(r)
        }
        fn in_force(&self, c: &Candidate) -> bool {
            self.cleared[c.result]
        }
        fn gone(&self, _r: usize) -> bool {
            false
        }
        fn compactable_calls(&self) -> &[usize] {
            &self.calls
        }
        fn ranked_responses(&self) -> usize {
            0
        }
        fn last_usage(&self) -> Option<u64> {
            Some(10)
        }
        fn explains(&self) -> bool {
            true
        }
        fn media_cleared(&self, _m: usize) -> bool {
            false
        }
        fn nested_stripped(&self, _r: usize) -> bool {
            false
        }
    }

    /// Issue 22 item 3: the kinds are functions of a view and the parameters.
    /// On a view made by hand they decide what the engine decides on the view
    /// it grew, and they read only what the view says (a clearing in force).
    #[test]
    fn the_kinds_decide_on_a_view_made_by_hand_as_in_the_engine() {
        let t = three_reads();
        let mut p = Policy::preset(HarnessId::Claude);
        p.keep_recent = Some(1);
        p.size_threshold = 500;
        let hand = Hand::new(&t, &[]);
        let req = hand.last();

        // size: 1,200 chars over 500, down to 250 keeping the last one.
        let v = size::size(&hand, &p, req, 1200);
        assert_eq!(hand.ids(&v), ["A", "B"]);
        assert!(matches!(
            v.note,
            Note::Size(SizeNote::Over {
                overage: Some(800),
                ..
            })
        ));
        let (s, plan) = t.plan(PlanKind::Size, |q| {
            q.keep_recent = Some(1);
            q.size_threshold = 500;
        });
        assert_eq!(cleared(&s, &plan), ["A", "B"]);

        // idle: the gap is given, not looked up.
        let v = idle::idle(&hand, &p, req, Some(61.0));
        assert_eq!(hand.ids(&v), ["A", "B"]);
        let (s, plan) = t.plan(PlanKind::Idle, |q| q.keep_recent = Some(1));
        assert_eq!(cleared(&s, &plan), ["A", "B"]);
        let v = idle::idle(&hand, &p, req, Some(10.0));
        assert!(v.clear.is_empty() && matches!(v.note, Note::Time(TimeNote::UnderGap { .. })));

        // forced acts only at the request it is asked for.
        assert_eq!(
            hand.ids(&idle::forced(&hand, &p, req, req.index)),
            ["A", "B"]
        );
        let v = idle::forced(&hand, &p, req, req.index + 1);
        assert!(matches!(
            v.note,
            Note::Time(TimeNote::ForcedElsewhere { .. })
        ));
    }

    #[test]
    fn a_clearing_in_force_on_the_hand_made_view_is_out_of_each_kind() {
        let t = three_reads();
        let mut p = Policy::preset(HarnessId::Claude);
        p.keep_recent = Some(1);
        p.trigger_threshold = 1;
        let hand = Hand::new(&t, &[0]);
        let req = hand.last();
        // count: B and C are active (A is cleared); past the trigger of 1, B goes.
        let v = count::count(&hand, &p, req);
        assert_eq!(hand.ids(&v), ["B"]);
        assert!(matches!(
            v.note,
            Note::Count(CountNote::Over(CountWhy { active: 2, .. }))
        ));
        // idle keeps the last call and clears only what is not cleared yet.
        assert_eq!(hand.ids(&idle::idle(&hand, &p, req, Some(61.0))), ["B"]);
        // budget under its usage gate counts the eligible tokens: B and C.
        let v = budget_plan::budget(&hand, &p, req);
        assert!(matches!(v.note, Note::Budget(BudgetNote::Gate(_))));
        assert_eq!(v.pre_tokens, Some(200));
    }
}
