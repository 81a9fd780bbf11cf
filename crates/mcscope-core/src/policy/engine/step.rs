//! One request of the timeline: the view brought up to it, the plan in force
//! asked for its decision, its clearings put in force, and the step reported.

use super::plan::AtTurnStart;
use super::*;

impl<'s> Engine<'s> {
    /// Evaluates the next request; None after the last.
    pub fn step(&mut self) -> Option<Step> {
        let req = self.s.requests.get(self.next - 1)?;
        self.next += 1;
        Some(self.step_request(req, false))
    }

    /// Evaluates the next request only to carry its state forward: what fired
    /// there (None after the last). Nothing only a report of the step needs is
    /// made (statuses, sizes after, lists).
    pub fn carry(&mut self) -> Option<Option<Trigger>> {
        let req = self.s.requests.get(self.next - 1)?;
        self.next += 1;
        Some(self.step_request(req, true).trigger)
    }

    /// Evaluates a request that is not one of the session's: the compaction's
    /// summarizing request, whose view ends at a `compact_boundary` (SPEC §10).
    pub fn step_virtual(&mut self, req: &Request) -> Step {
        self.step_request(req, false)
    }

    /// `quiet`: the step only carries the state (see `carry`).
    /// A new view (a compaction boundary, or a rewind's live branch): nothing
    /// planned before it carries over it.
    fn start_view(&mut self, req: &Request) {
        // Nothing planned before a compaction boundary carries over it. A
        // rewind builds the view again from the live branch: what it
        // dropped leaves its ranks, keep slots and sizes (SPEC §15.1).
        self.reset_clearings();
        self.reset_media();
        self.edits.clear();
        self.pending.clear();
        (
            self.running.total,
            self.running.active,
            self.running.eligible_tokens,
        ) = (0, 0, 0);
        self.running.active_set.clear();
        self.mask_index_clear();
        // A view built again after a rewind meets its results anew.
        for r in self.s.results_in(req.view_start, req.end) {
            self.running.base[r] = (0, false, 0);
        }
        self.size_index_clear();
        self.api_run_clear();
        self.id_slots.clear();
        // The lists of the view before keep their room, and the first view
        // takes room for every result it can meet: grown a push at a time, they
        // were copied over and over, once per setting of a grid.
        let results_start = self.s.results_in(req.view_start, req.view_start).start;
        let room = self.s.results.len() - results_start;
        let mut cands = std::mem::take(&mut self.view.cands);
        let mut keys = std::mem::take(&mut self.view.keys);
        let mut compactable_call_ix = std::mem::take(&mut self.view.compactable_call_ix);
        cands.clear();
        keys.clear();
        compactable_call_ix.clear();
        cands.reserve(room);
        keys.reserve(room);
        self.view = View {
            segment: req.segment,
            started: true,
            calls_start: self.s.calls_in(req.view_start, req.view_start).start,
            calls_end: self.s.calls_in(req.view_start, req.view_start).start,
            results_end: results_start,
            msgs_end: req.view_start,
            dead: req.dead.clone(),
            cands,
            keys,
            compactable_call_ix,
            ..View::default()
        };
    }

    /// A send from a new process (a restart): the history is rebuilt from the
    /// records, so every clearing not stored by a compression is undone.
    fn new_send_process(&mut self, req: &Request) {
        if let Some(send) = &req.send
            && self.process.segment != Some(send.process)
        {
            // A restart: Qwen rebuilds the history from the records, so every
            // clearing not stored by a compression is undone (SPEC §2).
            if self.process.segment.is_some() {
                self.reset_clearings();
                self.reset_media();
                self.edits.clear();
            }
            self.process.segment = Some(send.process);
            self.process.hook_checkpoint = None;
        }
    }

    /// Puts a verdict's clearings, media and strips in force at `req`; the
    /// view positions of those that were not in force before, in order.
    fn put_in_force(
        &mut self,
        req: &Request,
        verdict: &Verdict,
        was_cleared: &HashSet<usize>,
    ) -> Vec<usize> {
        let trigger = verdict.trigger.unwrap_or(Trigger::Idle);
        let mut newly: Vec<usize> = Vec::new();
        for (pos, reason) in &verdict.clear {
            let r = self.view.cands[*pos].result;
            if self.gone(r) {
                // A recorded cut stands: the plan never clears it again.
                continue;
            }
            let clearing = Clearing {
                at: req.index,
                trigger: match reason {
                    ClearReason::Recorded(ByRecord { server: true }) => Trigger::RecordedServer,
                    ClearReason::Recorded(ByRecord { server: false }) => Trigger::Recorded,
                    _ => trigger,
                },
                reason: *reason,
            };
            self.clear_result(r, clearing);
            if !was_cleared.contains(&r) {
                newly.push(*pos);
            }
        }
        for &m in &verdict.media {
            self.media.cleared[m] = true;
        }
        for &r in &verdict.strip {
            self.media.stripped[r] = true;
        }
        self.media.touched |= !verdict.media.is_empty() || !verdict.strip.is_empty();
        newly.sort_unstable();
        newly
    }

    /// The plan in force at `req` decides (a deferred turn start has decided
    /// already); its api and idle-server steps are kept for the next request.
    fn decide(
        &mut self,
        req: &Request,
        kind: Option<PlanKind>,
        turn_start: Option<size_index::TurnStart>,
        chars_before: u64,
        gap: Option<f64>,
        api_lapses: bool,
    ) -> Decided {
        let at = plan::At {
            chars_before,
            gap,
            api_lapses,
        };
        let decided = match (kind, turn_start) {
            // A plan that made its clearings itself says what its own pass
            // would list as new: (tokens, how many).
            (_, Some(t)) => Decided {
                carried: Some((t.saved, t.newly)),
                ..Decided::verdict(t.verdict)
            },
            (Some(kind), None) => match registry::of(kind) {
                Some(p) => p.decide(self, req, &at),
                // `auto` is the harness's choice of a kind; none left: idle's.
                None => registry::of(PlanKind::Idle).map_or_else(
                    || Decided::verdict(Verdict::none(Note::NotRun(NoRun::NoPlan))),
                    |p| p.decide(self, req, &at),
                ),
            },
            (None, None) => {
                // SPEC §16.I: auto's kind here is one the session shows did not run.
                let asks = self.policy.preset.asks();
                let why = match asks.auto_kind(&self.policy, req, req.gap_minutes) {
                    Some(k) if self.policy.did_not_run.iter().any(|d| d.0 == k) => {
                        NoRun::DidNotRun(k)
                    }
                    _ => asks.no_plan(req),
                };
                Decided::verdict(Verdict::none(Note::NotRun(why)))
            }
        };
        // Only the api kind decides by the api plan (auto never chooses it).
        if self.policy.kind.is_api()
            && let Some(api) = self.plans.get_mut::<super::api_run::ApiState>()
        {
            api.step = decided.api.as_deref().cloned();
        }
        if let Some(idle) = self.plans.get_mut::<super::idle_server::IdleServerState>() {
            idle.applied_prev =
                decided.idle_server.as_ref().is_some_and(|i| i.applied) || decided.recorded_applied;
            idle.step = decided.idle_server.as_deref().cloned();
        }
        decided
    }

    /// The step's `cleared` list: from the statuses where the engine reports
    /// them, else the results cleared in the wire where it lists them.
    fn cleared_of_step(&mut self, req: &Request, verdict: &Verdict, untracked: bool) -> Vec<usize> {
        if self.modes.statuses {
            self.finish_statuses(req, verdict);
            self.view
                .cands
                .iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| c.result)
                .collect()
        } else if self.modes.cleared_list && untracked {
            self.cleared_in_wire()
        } else {
            Vec::new()
        }
    }

    fn step_request(&mut self, req: &Request, quiet: bool) -> Step {
        self.track_begin();
        if !self.view.started || req.segment != self.view.segment || req.dead != self.view.dead {
            self.start_view(req);
        }
        // Claude rewrites only the request: at a new turn the originals go out
        // again. Count deletions and budget clearings are cumulative within the
        // view (SPEC §5): how long each clearing lasts is its plan's answer.
        // idle-server's clearings are the server's at one request (SPEC §13.S8).
        let lifted = self.lift_idle_server();
        let lapses = self.policy.preset.asks().lapses(req);
        let turn_start = lapses.turn_start;
        // The plan asked for (none for auto) says what its clearings do at a
        // turn start: lapse, stay until it has decided (the tracked size
        // plan), or stay carried (an api plan that decides its whole prefix).
        let plan = registry::of(self.policy.kind);
        let at_turn = match plan {
            Some(p) if turn_start => p.at_turn_start(self),
            _ => AtTurnStart::Lapse,
        };
        let deferred = turn_start && at_turn == AtTurnStart::Defer;
        let api_lapses = turn_start && at_turn == AtTurnStart::Carry;
        if turn_start && at_turn == AtTurnStart::Lapse {
            self.reset_lapsing();
            if !plan.is_some_and(|p| p.edits_outlive_turns()) {
                // The request is rebuilt from the originals: only the deletions
                // still in force (budget's, under auto) are re-sent, so the wire
                // deletes exactly what the plan clears.
                let cleared = &self.cleared;
                self.edits
                    .retain(|e| e.results.iter().all(|&r| cleared[r].is_some()));
            }
        }
        if lapses.new_version {
            self.new_process(req);
        }
        // The session's send records mark a restart (Qwen's): the history is
        // rebuilt from the records whatever the preset simulated (SPEC §2).
        self.new_send_process(req);
        // The server edits each request statelessly, on the full history (SPEC
        // §11): what request k-1's server view cleared is not carried; it only
        // tells which clearings are new here.
        let was_cleared: HashSet<usize> = if plan.is_some_and(|p| p.afresh(self)) {
            let before = self
                .lists
                .lapsing
                .iter()
                .chain(&self.lists.lasting)
                .copied()
                .collect();
            self.reset_clearings();
            before
        } else {
            lifted
        };
        let gap = self.gap_at(req);
        self.apply_cuts(req.index);
        self.sync_view(req);
        // A deferred turn start: the plan decides over the view as if every
        // clearing had lapsed; where it cannot say at the cost of the change,
        // they lapse now, as they would have before the view grew.
        let mut turn_start = None;
        if deferred {
            turn_start = self.size_turn_start(req, self.size_total_lapsed());
            if turn_start.is_none() {
                self.reset_lapsing();
            }
        }
        let chars_before = if let Some(t) = &turn_start {
            t.total
        } else if self.api_carries() {
            self.api_size_total()
        } else if quiet && !self.needs_size_total() {
            0
        } else {
            self.size_total()
        };
        let kind = self.policy.kind_at(req, gap);
        self.modes.kept_wanted = self.modes.statuses && !quiet;
        let Decided {
            verdict,
            api,
            idle_server,
            carried,
            ..
        } = self.decide(req, kind, turn_start, chars_before, gap, api_lapses);
        let newly = self.put_in_force(req, &verdict, &was_cleared);
        // A deferred turn start re-clears every result it leaves cleared, as
        // the plan's own pass would, without listing them.
        let tokens_saved = carried.map_or_else(
            || {
                newly
                    .iter()
                    .map(|&p| self.s.results[self.view.cands[p].result].est_tokens)
                    .sum::<u64>()
            },
            |(saved, _)| saved,
        ) + self.media_tokens(&verdict);
        let newly_count = carried.map_or(newly.len(), |(_, n)| n);
        self.move_hook_checkpoint(req, verdict.trigger, tokens_saved);
        // A tracked engine keeps no edit blocks: nothing reads them from its
        // steps (their figures under cache edits need no body).
        if self.policy.delivery == Delivery::CacheEdits
            && !self.tracker.on
            && !newly.is_empty()
            && let Some(msg) = last_user_message(self.s, req)
        {
            self.edits.push(EditBlock {
                at: req.index,
                msg,
                results: newly.iter().map(|&p| self.view.cands[p].result).collect(),
            });
        }
        let mut wire = self.track_end(req, !quiet);
        if let Some(w) = &mut wire {
            w.newly = newly_count;
        }
        if quiet {
            let decided = Decided {
                verdict,
                api,
                idle_server,
                carried,
                recorded_applied: false,
            };
            return quiet_step(req, kind, decided, chars_before, gap);
        }
        let cleared = self.cleared_of_step(req, &verdict, wire.is_none());
        let chars_after = self.size_total();
        let cands = &self.view.cands;
        Step {
            index: req.index,
            kind,
            trigger: verdict.trigger,
            tokens_saved,
            // A tracked step says what changed instead (see `WireDelta`),
            // unless asked for them too (`listing_newly`).
            newly_cleared: if wire.is_some() && !self.modes.newly_listed {
                Vec::new()
            } else {
                newly.iter().map(|&p| cands[p].result).collect()
            },
            cleared,
            media_in_wire: self.media_in_wire(req),
            chars_before,
            chars_after,
            target_chars: verdict.target,
            media_cleared: verdict.media.len() + verdict.strip.len(),
            media_kept: verdict.media_kept,
            gap_minutes: gap,
            pre_tokens: verdict.pre_tokens,
            note: verdict.note,
            api,
            idle_server,
            wire: wire.map(Box::new),
            marked_elsewhere: self
                .plans
                .get_mut::<super::prune::Memory>()
                .map(|m| std::mem::take(&mut m.elsewhere))
                .unwrap_or_default(),
        }
    }

    /// The results whose status is `Cleared` (see `finish_statuses`), in
    /// candidate order, from the clearings in force alone.
    fn cleared_in_wire(&self) -> Vec<usize> {
        let mut pos: Vec<usize> = self
            .lists
            .lapsing
            .iter()
            .chain(&self.lists.lasting)
            .filter(|&&r| self.cleared[r].is_some())
            .map(|&r| self.pos_of[r])
            .filter(|&p| {
                let c = &self.view.cands[p];
                c.compactable && !c.protected() && !self.gone(c.result)
            })
            .collect();
        pos.sort_unstable();
        pos.dedup();
        pos.into_iter().map(|p| self.view.cands[p].result).collect()
    }

    /// The gap the idle rule reads at `req`, as the harness measures it (Qwen:
    /// at a hook, from the hook checkpoint, SPEC §2).
    fn gap_at(&mut self, req: &Request) -> Option<f64> {
        let asks = self.policy.preset.asks();
        asks.idle_gap(req, &mut self.process.hook_checkpoint)
    }

    /// After a send, the harness moves the checkpoint the idle gap reads.
    fn move_hook_checkpoint(&mut self, req: &Request, trigger: Option<Trigger>, saved: u64) {
        let plan_saved = matches!(trigger, Some(Trigger::Idle | Trigger::Size)) && saved > 0;
        let asks = self.policy.preset.asks();
        asks.after_send(req, plan_saved, &mut self.process.hook_checkpoint);
    }

    /// Runs to request `k` (1-based) and returns its step: the requests before
    /// it only carry the state (a plan at `k` reads `run_to(k - 1)` and then
    /// `step()`, so it looks at k - 1 and k in full).
    pub fn run_to(&mut self, k: usize) -> Option<Step> {
        while self.next < k {
            self.carry()?;
        }
        if self.next == k { self.step() } else { None }
    }
}

/// A quiet step (what only carries the state): the verdict's figures, no lists.
fn quiet_step(
    req: &Request,
    kind: Option<PlanKind>,
    d: Decided,
    chars_before: u64,
    gap: Option<f64>,
) -> Step {
    let v = d.verdict;
    Step {
        index: req.index,
        kind,
        trigger: v.trigger,
        newly_cleared: Vec::new(),
        cleared: Vec::new(),
        media_in_wire: Vec::new(),
        tokens_saved: 0,
        chars_before,
        chars_after: 0,
        target_chars: v.target,
        media_cleared: v.media.len() + v.strip.len(),
        media_kept: v.media_kept,
        gap_minutes: gap,
        pre_tokens: v.pre_tokens,
        note: v.note,
        api: d.api,
        idle_server: d.idle_server,
        wire: None,
        marked_elsewhere: Vec::new(),
    }
}
