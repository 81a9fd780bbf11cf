//! What a step changed in the wire, kept as it happens: a pass that sums a
//! setting over a session (`totals::each_request`) reads each request's change
//! from the one before instead of the whole list of results cleared, which
//! grows with the view (a count plan's deletions pile up).

use super::*;

/// The results that entered or left the wire's cleared set at one step, and
/// what a prefix break needs of the set now (see `Engine::tracked`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WireDelta {
    /// Results cleared in this request's wire and not in the previous one's
    /// (every one of them at the first request of a view).
    pub added: Vec<usize>,
    /// Results cleared in the previous request's wire and not in this one's,
    /// that lie in this request's view (those of an earlier view are left out:
    /// a new view is compared with nothing).
    pub removed: Vec<usize>,
    /// Σ est_tokens of the results cleared in this request's wire.
    pub tokens: u64,
    /// How many results the plan cleared here (its `newly_cleared`, which a
    /// tracked step does not list: a size plan re-clears most of the view at
    /// every turn start).
    pub newly: usize,
    /// How many results are cleared in this request's wire (`Step::cleared`'s
    /// length, which a tracked step does not list either).
    pub count: usize,
    /// The results cleared in this request's wire from the first message
    /// `added` or `removed` names to the request's end, in (message, result)
    /// order: what the tokens after a prefix break read. Empty when nothing
    /// changed.
    pub tail: Vec<usize>,
}

/// The engine's side of the tracking: results touched at the current step
/// with whether they were in the wire's cleared set before it.
#[derive(Debug, Clone, Default)]
pub(super) struct Tracker {
    pub(super) on: bool,
    step: usize,
    stamp: Vec<usize>,
    touched: Vec<(usize, bool)>,
    tokens: u64,
    /// The wire's cleared set, as (message, result).
    set: BTreeSet<(usize, usize)>,
}

impl<'s> Engine<'s> {
    /// A lean engine that leaves `Step::cleared` and `Step::newly_cleared`
    /// empty and says instead what changed at each step (`Step::wire`, with
    /// how many results are cleared and how many newly), and keeps no edit
    /// blocks (nothing reads them from its steps), where it can: in a session
    /// without media (Qwen's media changes the wire too), and under the `api`
    /// plan only when no edit clears thinking or tool inputs (which change the
    /// server view beyond results). Elsewhere every step carries the full
    /// lists, as a lean engine's do. Decided once, so that every step of the
    /// engine speaks the same way. Its size plan decides a turn start at the
    /// cost of the change (`size_index`) and its api plan carries its state
    /// from request to request (`api_run`).
    pub fn tracked(mut self) -> Self {
        self.modes.statuses = false;
        let s = self.s;
        // The api plan changes more than results where it clears thinking or
        // tool inputs; otherwise its wire changes as any plan's.
        let api_results_only = self.policy.api.edits.iter().all(|e| match e {
            crate::policy::api::Edit::ClearToolUses { clear_inputs, .. } => {
                *clear_inputs == crate::policy::api::ClearInputs::None
            }
            crate::policy::api::Edit::ClearThinking { .. } => false,
        });
        if (!self.policy.kind.is_api() || api_results_only)
            && s.media.is_empty()
            && s.results.iter().all(|r| r.media == 0)
        {
            self.tracker.on = true;
            self.tracker.stamp = vec![0; s.results.len()];
            self.size_index_on();
            if self.policy.kind.is_api() {
                self.api_run_on();
            }
        }
        self
    }

    /// Whether result `r` counts among the wire's cleared results now (the
    /// status pass's `Cleared`, see `finish_statuses`).
    fn in_wire_cleared(&self, r: usize) -> bool {
        self.cleared[r].is_some()
            && self
                .view
                .cands
                .get(self.pos_of[r])
                .is_some_and(|c| c.result == r && c.compactable && !c.protected() && !self.gone(r))
    }

    /// Notes result `r` as touched at this step, before it changes.
    pub(super) fn touch(&mut self, r: usize) {
        if !self.tracker.on || self.tracker.stamp[r] == self.tracker.step {
            return;
        }
        self.tracker.stamp[r] = self.tracker.step;
        let was = self.in_wire_cleared(r);
        self.tracker.touched.push((r, was));
    }

    /// Opens a step for tracking.
    pub(super) fn track_begin(&mut self) {
        self.tracker.step += 1;
        self.tracker.touched.clear();
    }

    /// Closes a step: the running set and sum follow what changed, and the
    /// delta is made when the step is to carry one.
    pub(super) fn track_end(&mut self, req: &Request, want: bool) -> Option<WireDelta> {
        if !self.tracker.on {
            return None;
        }
        let s = self.s;
        let mut delta = WireDelta::default();
        let touched = std::mem::take(&mut self.tracker.touched);
        for &(r, was) in &touched {
            let now = self.in_wire_cleared(r);
            if was == now {
                continue;
            }
            let key = (s.results[r].msg, r);
            if now {
                self.tracker.tokens += s.results[r].est_tokens;
                self.tracker.set.insert(key);
                delta.added.push(r);
            } else {
                self.tracker.tokens -= s.results[r].est_tokens;
                self.tracker.set.remove(&key);
                if key.0 >= req.view_start {
                    delta.removed.push(r);
                }
            }
        }
        self.tracker.touched = touched;
        if !want {
            return None;
        }
        delta.added.sort_unstable();
        delta.removed.sort_unstable();
        delta.tokens = self.tracker.tokens;
        delta.count = self.tracker.set.len();
        let first = delta
            .added
            .iter()
            .chain(&delta.removed)
            .map(|&r| s.results[r].msg)
            .min();
        if let Some(m) = first {
            delta.tail = self
                .tracker
                .set
                .range((m, 0)..(req.end, 0))
                .map(|&(_, r)| r)
                .collect();
        }
        Some(delta)
    }
}
