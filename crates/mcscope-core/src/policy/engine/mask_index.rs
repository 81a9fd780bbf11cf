//! Gemini CLI's mask at the cost of what is not masked yet.
//!
//! Done as Gemini CLI does it, mask walks every output of the history at
//! every request, newest first, and a long session costs requests × results.
//! But the walk only reads each output's own tokens: newest first until the
//! sum passes `protect`, then every older one is prunable. So the engine keeps,
//! by result index (the order of (message, part), which the walk follows),
//! the outputs mask may count and that are not masked: their tokens in a
//! Fenwick tree, the outputs themselves, and those that masking would shrink.
//! A request then walks only the newest outputs up to the protection's end,
//! sums the prunable ones with one prefix sum, and, when it masks, visits only
//! the outputs it masks. The plan itself (`mask::mask`) asks for these; the
//! debug builds check them against a pass over the view.

use super::fenwick::Fenwick;
use super::*;

/// The index (on where mask may run and the session's results are in
/// (message, part) order).
#[derive(Debug, Clone, Default)]
pub(super) struct MaskIndex {
    /// Per result: its tokens while it is a member (counted, not masked).
    member: Vec<Option<u64>>,
    tokens: Fenwick,
    free: BTreeSet<usize>,
    /// Members whose masked part is smaller than they are.
    savers: BTreeSet<usize>,
}

impl MaskIndex {
    /// Empties it for a new view, at the cost of its members (every member
    /// is in `free`).
    fn clear(&mut self) {
        for r in std::mem::take(&mut self.free) {
            if let Some(t) = self.member.get_mut(r).and_then(Option::take) {
                self.tokens.sub(r, t);
            }
        }
        self.savers.clear();
    }
}

impl Engine<'_> {
    /// Turns the index on for a session whose results are registered in
    /// (message, part) order and that carries the harness's own token counts
    /// (Gemini CLI's).
    pub(super) fn mask_index_on(&mut self) {
        let s = self.s;
        let p = &self.policy;
        let mask_may_run =
            p.kind == PlanKind::Mask || (p.kind.is_auto() && p.preset.auto_may(PlanKind::Mask));
        let on = mask_may_run
            && !s.harness_tokens.is_empty()
            && s.results.is_sorted_by_key(|r| (r.msg, r.part));
        self.plans.follow::<MaskIndex>(on);
        if on {
            self.plans.of::<MaskIndex>().member = vec![None; s.results.len()];
        }
    }

    pub(super) fn mask_index_clear(&mut self) {
        if let Some(ix) = self.plans.get_mut::<MaskIndex>() {
            ix.clear();
        }
    }

    /// Brings result `r`'s membership up to date with its candidate and its
    /// clearing: a member is in the view, counted by mask, and not cleared.
    pub(super) fn mask_index_result(&mut self, r: usize) {
        if !self.plans.follows::<MaskIndex>() {
            return;
        }
        let s = self.s;
        let want = self
            .position(r)
            .map(|p| &self.view.cands[p])
            .filter(|c| {
                !c.dead_branch
                    && c.compactable
                    && !s.results[r].already_cleared
                    && self.cleared[r].is_none()
            })
            .and_then(|_| s.harness_tokens.get(r).copied().flatten());
        let ix = self.plans.of::<MaskIndex>();
        let Some(slot) = ix.member.get_mut(r) else {
            return;
        };
        if *slot == want {
            return;
        }
        if let Some(t) = slot.take() {
            ix.tokens.sub(r, t);
            ix.free.remove(&r);
            ix.savers.remove(&r);
        }
        if let Some(t) = want {
            ix.tokens.add(r, t);
            ix.free.insert(r);
            if t > s.masking.tokens.get(r).copied().unwrap_or(u64::MAX) {
                ix.savers.insert(r);
            }
        }
        *slot = want;
    }

    /// The members, newest first (as positions), while `keep_going` says so.
    pub(super) fn mask_members_newest(&self) -> impl Iterator<Item = usize> + '_ {
        self.plans
            .get::<MaskIndex>()
            .into_iter()
            .flat_map(|ix| ix.free.iter().rev())
            .filter_map(|&r| self.position(r))
    }

    /// Σ tokens of the members with a result index up to `r` (inclusive).
    pub(super) fn mask_tokens_through(&self, r: usize) -> u64 {
        self.plans
            .get::<MaskIndex>()
            .map_or(0, |ix| ix.tokens.prefix(r + 1))
    }

    /// The members up to `r` (inclusive) that masking shrinks, newest first,
    /// as positions.
    pub(super) fn mask_savers_through(&self, r: usize) -> Vec<usize> {
        self.plans
            .get::<MaskIndex>()
            .into_iter()
            .flat_map(|ix| ix.savers.range(..=r).rev())
            .filter_map(|&r| self.position(r))
            .collect()
    }
}

impl super::own_state::OwnState for MaskIndex {
    const KIND: PlanKind = PlanKind::Mask;
}
