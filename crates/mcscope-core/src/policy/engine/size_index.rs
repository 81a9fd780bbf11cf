//! The Claude size plan at a turn start, at the cost of what changes there.
//!
//! At a new turn every size clearing lapses (SPEC §5) and the plan decides again
//! over the whole view: clear the clearable results oldest first until the
//! total is down to the target, keeping the last `keep`. Done as the plan says,
//! that is a pass over the view (lift everything, list the clearable, clear a
//! prefix) at every turn, and a session of short turns in one long view costs
//! turns × view. Yet the new set is a prefix of the clearable results in view
//! order, and it differs from the set in force only near where the prefix ends.
//! So a tracked engine (`compare`, the TUI totals: they read what changed, never
//! which results a step re-cleared) keeps, by candidate position, the clearable
//! results' chars, tokens and counts in Fenwick trees: the prefix's end is a
//! search, and only the results on the wrong side of it change.

use super::fenwick::Fenwick;
use super::*;

/// What the index knows of one candidate position.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// Clearable but for a clearing in force and pending (see `eligible`).
    eligible: bool,
    in_force: bool,
    chars: u64,
    tokens: u64,
}

/// The index (on only for a tracked engine of the Claude size plan).
#[derive(Debug, Clone, Default)]
pub(super) struct SizeIndex {
    slots: Vec<Slot>,
    /// Over eligible positions: chars, est_tokens, and a count.
    chars: Fenwick,
    tokens: Fenwick,
    count: Fenwick,
    /// Eligible positions without a clearing in force, and with one.
    free: Fenwick,
    held: Fenwick,
    /// Σ chars of the eligible positions with a clearing in force.
    held_chars: u64,
    /// Positions with a clearing in force that are not eligible (a reused id
    /// made its result not compactable): the plan's own pass handles those.
    other_in_force: usize,
}

impl SizeIndex {
    /// Empties the index (a new view).
    fn clear(&mut self) {
        *self = SizeIndex::default();
    }

    fn put(&mut self, p: usize, slot: Slot, sign: bool) {
        let f = |t: &mut Fenwick, v: u64| if sign { t.add(p, v) } else { t.sub(p, v) };
        if slot.eligible {
            f(&mut self.chars, slot.chars);
            f(&mut self.tokens, slot.tokens);
            f(&mut self.count, 1);
            if slot.in_force {
                f(&mut self.held, 1);
                if sign {
                    self.held_chars += slot.chars;
                } else {
                    self.held_chars -= slot.chars;
                }
            } else {
                f(&mut self.free, 1);
            }
        } else if slot.in_force {
            if sign {
                self.other_in_force += 1;
            } else {
                self.other_in_force -= 1;
            }
        }
    }

    /// The free positions (clearable by the size plan, pending ones aside), in
    /// order.
    pub(super) fn free_positions(&self) -> Vec<usize> {
        SizeIndex::positions(&self.free, 0, usize::MAX)
    }

    /// The positions `p` in `from..to` whose `tree` entry is 1, in order.
    fn positions(tree: &Fenwick, from: usize, to: usize) -> Vec<usize> {
        let (a, b) = (tree.prefix(from), tree.prefix(to));
        // The k-th set position ends the first prefix that reaches k.
        (a + 1..=b)
            .filter_map(|k| tree.first_reaching(k).map(|end| end - 1))
            .collect()
    }
}

/// A deferred turn start's plan (`size_turn_start`).
pub(super) struct TurnStart {
    /// The verdict, with nothing left to clear: the clearings are made.
    pub(super) verdict: Verdict,
    /// The size total with every clearing lapsed (the step's `chars_before`).
    pub(super) total: u64,
    /// Σ est_tokens of every result the plan clears here, kept or new: the
    /// plan's own pass re-clears them all (the step's `tokens_saved`).
    pub(super) saved: u64,
    /// How many it clears (the length of the plan's own `newly_cleared`).
    pub(super) newly: usize,
}

impl Engine<'_> {
    /// Turns the index on: a tracked engine of the Claude size plan.
    pub(super) fn size_index_on(&mut self) {
        let on = self.policy.preset.asks().size_incremental() && self.policy.kind == PlanKind::Size;
        self.plans.follow::<SizeIndex>(on);
    }

    /// Empties the index for a new view.
    pub(super) fn size_index_clear(&mut self) {
        if let Some(ix) = self.plans.get_mut::<SizeIndex>() {
            ix.clear();
        }
    }

    /// Brings position `p`'s slot up to date with its candidate and clearing.
    pub(super) fn size_index_pos(&mut self, p: usize) {
        if !self.plans.follows::<SizeIndex>() {
            return;
        }
        let Some(c) = self.view.cands.get(p) else {
            return;
        };
        let r = &self.s.results[c.result];
        let slot = Slot {
            eligible: c.compactable
                && !c.protected()
                && !r.is_error
                && !self.gone(c.result)
                && r.chars > 0,
            in_force: self.cleared[c.result].is_some(),
            chars: r.chars,
            tokens: r.est_tokens,
        };
        let ix = self.plans.of::<SizeIndex>();
        if ix.slots.len() <= p {
            ix.slots.resize(p + 1, Slot::default());
        }
        let old = ix.slots[p];
        ix.put(p, old, false);
        ix.put(p, slot, true);
        ix.slots[p] = slot;
    }

    /// Rebuilds the index from the view (its positions moved: a re-sort).
    pub(super) fn size_index_rebuild(&mut self) {
        if !self.plans.follows::<SizeIndex>() {
            return;
        }
        self.plans.of::<SizeIndex>().clear();
        for p in 0..self.view.cands.len() {
            self.size_index_pos(p);
        }
    }

    /// Whether a turn start can leave the size clearings in force until the
    /// plan has decided (`size_turn_start`) instead of lifting them all first.
    pub(super) fn size_turn_start_defers(&self) -> bool {
        self.plans.follows::<SizeIndex>()
            && self
                .plans
                .get::<SizeIndex>()
                .is_some_and(|ix| ix.other_in_force == 0)
            && self.policy.size_threshold >= 0
    }

    /// The size total as if every size clearing had lapsed (a deferred turn
    /// start: they are all the index's held positions).
    pub(super) fn size_total_lapsed(&self) -> u64 {
        self.running.total + self.plans.get::<SizeIndex>().map_or(0, |ix| ix.held_chars)
    }

    /// The size plan at a turn start whose lapse was deferred, over the view
    /// as if every clearing had lapsed (`total` counts them): the results
    /// that stay cleared are left alone, the others are lifted or cleared.
    /// None when the total is not over the threshold or a result is pending,
    /// where the caller lifts everything as usual.
    pub(super) fn size_turn_start(&mut self, req: &Request, total: u64) -> Option<TurnStart> {
        let p = &self.policy;
        let threshold = u64::try_from(p.size_threshold).ok()?;
        if total <= threshold
            || !self.pending.is_empty()
            || self
                .plans
                .get::<SizeIndex>()
                .is_some_and(|ix| ix.other_in_force != 0)
        {
            return None;
        }
        let target = if p.low_watermark {
            threshold / 2
        } else {
            threshold
        };
        let keep = p.keep_for(PlanKind::Size);
        let ix = self.plans.get::<SizeIndex>()?;
        // Every eligible result is clearable once the clearings lapse (none is
        // pending at a turn start): clear the first j of them, the fewest
        // whose chars bring the total to the target, at most all but `keep`.
        let eligible = ix.count.total() as usize;
        let split = eligible.saturating_sub(keep);
        let reach = ix
            .chars
            .first_reaching(total - target)
            .map_or(eligible, |end| ix.count.prefix(end) as usize);
        let j = reach.min(split);
        // The positions before `end` hold exactly the first j eligible ones.
        let end = if j == 0 {
            0
        } else {
            ix.count.first_reaching(j as u64).unwrap_or(0)
        };
        let cleared_chars = ix.chars.prefix(end);
        let saved = ix.tokens.prefix(end);
        let lift = SizeIndex::positions(&ix.held, end, usize::MAX);
        let clear = SizeIndex::positions(&ix.free, 0, end);
        #[cfg(debug_assertions)]
        self.check_turn_start(total, target, keep, end);
        let why = SizeWhy {
            total,
            threshold,
            target,
        };
        for q in lift {
            let r = self.view.cands[q].result;
            self.set_clearing(r, None);
        }
        for q in clear {
            let r = self.view.cands[q].result;
            let reason = ClearReason::Size(SizeCleared {
                why,
                rank: self.rank(q),
                keep,
            });
            let clearing = Clearing {
                at: req.index,
                trigger: Trigger::Size,
                reason,
            };
            self.clear_result(r, clearing);
        }
        self.compact_in_force_list();
        let left = total - cleared_chars;
        let overage = (left > target).then_some(cleared_chars);
        let mut verdict = Verdict::none(Note::Size(SizeNote::Over { why, overage }));
        verdict.trigger = Some(Trigger::Size);
        verdict.target = Some(target);
        Some(TurnStart {
            verdict,
            total,
            saved,
            newly: j,
        })
    }

    /// Drops lifted and repeated entries from the list of clearings in force
    /// once they outnumber the live ones (a deferred turn start lifts without
    /// looking the list through), so the list stays as long as the set.
    fn compact_in_force_list(&mut self) {
        let live = self
            .plans
            .get::<SizeIndex>()
            .map_or(0, |ix| ix.held.total() as usize + ix.other_in_force);
        if self.lists.lapsing.len() <= 2 * live + 64 {
            return;
        }
        let cleared = &self.cleared;
        self.lists.lapsing.retain(|&r| cleared[r].is_some());
        self.lists.lapsing.sort_unstable();
        self.lists.lapsing.dedup();
    }

    /// Debug builds: the deferred turn start clears what the plan's own pass
    /// would (the candidates in order, every clearing lifted: `size`).
    #[cfg(debug_assertions)]
    fn check_turn_start(&self, total: u64, target: u64, keep: usize, end: usize) {
        // `clearable(false)` once every clearing has lapsed (nothing is pending).
        let clearable: Vec<usize> = (0..self.view.cands.len())
            .filter(|&q| {
                let c = &self.view.cands[q];
                let r = &self.s.results[c.result];
                c.compactable
                    && !c.protected()
                    && !r.is_error
                    && !self.gone(c.result)
                    && r.chars > 0
            })
            .collect();
        let split = clearable.len().saturating_sub(keep);
        let mut left = total;
        let mut want = Vec::new();
        for &q in &clearable[..split] {
            if left <= target {
                break;
            }
            left -= self.s.results[self.view.cands[q].result].chars;
            want.push(q);
        }
        let got: Vec<usize> = clearable.iter().copied().filter(|&q| q < end).collect();
        debug_assert_eq!(got, want, "size plan at a deferred turn start");
    }
}

impl super::own_state::OwnState for SizeIndex {
    const KIND: PlanKind = PlanKind::Size;
}
