//! Each candidate's fate in the wire of the request, and its reason.

use super::*;

impl Engine<'_> {
    pub(super) fn finish_statuses(&mut self, req: &Request, v: &Verdict) {
        // A harness that never clears an error keeps it as `error_kept`.
        let errors_kept = !self.policy.preset.rules().tools.errors_clearable;
        for p in 0..self.view.cands.len() {
            let c = &self.view.cands[p];
            let r = &self.s.results[c.result];
            let clearing = self.clearing(c.result);
            // SPEC §15.4: already_cleared, cut, protected, cleared, error_kept,
            // kept (a cut MCP result is `cut`). A result of a tool the plans
            // never clear and no cut replaced stays `not_compactable`, as before
            // (tests/properties.rs P1 holds that order).
            let cut = self.s.cut_at(c.result, req.index);
            let status = if !c.compactable && !cut {
                Status::NotCompactable
            } else if r.already_cleared {
                Status::AlreadyCleared
            } else if cut {
                Status::Cut
            } else if c.protected() {
                Status::Protected
            } else if clearing.is_some() {
                Status::Cleared
            } else if errors_kept && r.is_error {
                Status::ErrorKept
            } else {
                Status::Kept
            };
            let reason = self.reason(p, status, req, v);
            let cleared_at = clearing.map(|c| c.at).filter(|_| status == Status::Cleared);
            let c = &mut self.view.cands[p];
            c.status = status;
            c.reason = reason;
            c.cleared_at = cleared_at;
        }
    }

    /// The reason for a candidate's status (its protection, when it does not
    /// protect, is said beside it: see `report::words`).
    pub(super) fn reason(&self, p: usize, status: Status, req: &Request, v: &Verdict) -> Reason {
        let c = &self.view.cands[p];
        match status {
            Status::NotCompactable => Reason::NotCompactable,
            Status::AlreadyCleared => Reason::AlreadyCleared,
            Status::Cut => Reason::Cut {
                at: self.s.cut_mark(c.result).map_or(req.index, |m| m.at),
            },
            Status::Protected => Reason::Protected,
            Status::Cleared => match self.clearing(c.result) {
                Some(cl) => Reason::Cleared {
                    earlier: (cl.at != req.index).then_some(cl.at),
                    why: cl.reason,
                },
                None => Reason::Unset,
            },
            Status::ErrorKept => Reason::ErrorKept(self.policy.preset),
            Status::Kept => match v.kept.get(&p) {
                Some(k) => Reason::Kept(k.clone()),
                None => Reason::KeptByPlan { fired: v.fired() },
            },
        }
    }
}
