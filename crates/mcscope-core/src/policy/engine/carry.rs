//! What the engine carries to the plans that read more than the view at one
//! request (issue 22 item 3: the plans themselves, `idle_server::idle_server`
//! and `prune::prune`, are plain functions of the view, the parameters and
//! this carried state): idle-server's records of the view, S1's walk and
//! whether its edit applied before (SPEC §13.S); prune's stored marks (SPEC
//! §14, reference `opencode.md` §2.3).

use super::idle_server::{Carried, IdleServerState, idle_server, params};
use super::prune::{Memory, prune};
use super::*;
use crate::harness::claude_idle_server::{self as rule, RecFact};

impl Engine<'_> {
    /// `idle-server` at `req`, with what the engine carries to it: the
    /// records of the view, S1's walk, and whether it applied before.
    pub(super) fn idle_server(&self, req: &Request) -> (Verdict, IdleServerStep) {
        let params = params(&self.policy, req);
        let recs = self.idle_recs(req);
        let (ret, unanchored) = self.idle_walk(req, recs, params.gap_minutes);
        let carried = Carried {
            recs,
            ret,
            unanchored,
            applied_before: self
                .plans
                .get::<IdleServerState>()
                .is_some_and(|i| i.applied_prev),
            api: self
                .plans
                .get::<IdleServerState>()
                .and_then(|i| i.api.as_deref()),
        };
        idle_server(self, &self.policy, req, params, carried)
    }

    /// The records of `req`'s view up to the first line of its response.
    fn idle_recs(&self, req: &Request) -> &[RecFact] {
        let Some(facts) = self
            .plans
            .get::<IdleServerState>()
            .and_then(|i| i.facts.as_deref())
        else {
            return &[];
        };
        let s = self.s;
        let lo = s
            .messages
            .get(req.view_start)
            .map_or(usize::MAX, |m| m.first_line);
        let hi = req
            .response
            .and_then(|m| s.messages.get(m))
            .map_or(usize::MAX, |m| m.first_line);
        let from = facts.partition_point(|f| f.line < lo);
        let to = facts.partition_point(|f| f.line < hi);
        &facts[from..to.max(from)]
    }

    /// S1's return at `req`, walking on from the request before when its view
    /// is the same (start, version, gap), else from the view's start.
    fn idle_walk(
        &self,
        req: &Request,
        recs: &[RecFact],
        gap: f64,
    ) -> (Option<rule::Return>, Option<f64>) {
        let key = (
            recs.first().map(|r| r.line),
            req.version.clone(),
            gap.to_bits(),
        );
        let Some(state) = self.plans.get::<IdleServerState>() else {
            return (None, None);
        };
        let mut cache = state.walk.lock().unwrap_or_else(|e| e.into_inner());
        let walk = match cache.as_mut() {
            Some((k, w)) if *k == key && w.next <= recs.len() => w,
            _ => &mut cache.insert((key, rule::Walk::default())).1,
        };
        walk.advance(recs, req.version.as_deref(), gap);
        (walk.ret.clone(), walk.unanchored)
    }

    /// Lifts the clearings `idle-server` made at the request before (the server
    /// decides each request anew, S8): the results lifted.
    pub(super) fn lift_idle_server(&mut self) -> HashSet<usize> {
        // An engine that never runs idle-server (nor the baseline's use of it)
        // has none of its clearings (and the scan below would cost a pass over
        // the view at every request).
        let table = self.lists.lasts;
        let server = |c: &InForce| table.of(c.trigger) == super::plan::Lasts::Request;
        if self
            .plans
            .get::<IdleServerState>()
            .is_none_or(|i| i.facts.is_none())
            || !self
                .lists
                .lapsing
                .iter()
                .any(|&r| self.cleared[r].as_ref().is_some_and(server))
        {
            return HashSet::new();
        }
        let mut lifted = HashSet::new();
        let mut keep = Vec::new();
        for r in std::mem::take(&mut self.lists.lapsing) {
            match self.cleared[r].as_ref().map(|c| c.trigger) {
                Some(t) if table.of(t) == super::plan::Lasts::Request => {
                    self.set_clearing(r, None);
                    lifted.insert(r);
                }
                _ => keep.push(r),
            }
        }
        self.lists.lapsing = keep;
        lifted
    }
}

impl Engine<'_> {
    /// `prune` at `req`, remembered: what it marks (stored, so a later scan
    /// stops there, in this view or from the next one).
    pub(super) fn prune_step(&mut self, req: &Request) -> Verdict {
        let n = self.s.results.len();
        // Taken out while the plan reads the engine, and put back.
        let mut memory = std::mem::take(self.plans.of::<Memory>());
        if memory.seen.len() != n {
            memory.seen = self.stored_candidates();
            memory.marked = vec![false; n];
        }
        let (verdict, elsewhere) = prune(self, &self.policy, &memory, req);
        for &(pos, _) in &verdict.clear {
            memory.marked[self.s.stored(self.view.cands[pos].result)] = true;
        }
        for &r in &elsewhere {
            memory.marked[r] = true;
        }
        memory.elsewhere = elsewhere;
        *self.plans.of::<Memory>() = memory;
        verdict
    }

    /// `cline` at `req` (`cline.rs`), its memory carried.
    pub(super) fn cline_step(&mut self, req: &Request) -> Verdict {
        let mut memory = std::mem::take(self.plans.of::<super::cline::Memory>());
        let verdict = super::cline::cline(self, &self.policy, &mut memory, req);
        *self.plans.of::<super::cline::Memory>() = memory;
        verdict
    }

    /// Every stored result's estimate where prune counts it (§2.3: a
    /// completed part, not `skill`), from the session: a copy a retained tail
    /// repeats is its stored part's, so it has none of its own.
    fn stored_candidates(&self) -> Vec<Option<u64>> {
        let ids = &self.ids;
        let mut tool_of: Vec<Option<u32>> = vec![None; ids.len];
        for (c, &id) in ids.call.iter().enumerate() {
            tool_of[id as usize] = Some(ids.call_name[c]);
        }
        self.s
            .results
            .iter()
            .enumerate()
            .map(|(r, res)| {
                let tool = tool_of[ids.result[r] as usize].map(|t| ids.names[t as usize].as_str());
                let counted = self.s.stored(r) == r
                    && !res.is_error
                    && !res.already_cleared
                    && tool.is_some_and(|t| self.tools.is_compactable(t));
                counted.then_some(res.est_tokens)
            })
            .collect()
    }
}
