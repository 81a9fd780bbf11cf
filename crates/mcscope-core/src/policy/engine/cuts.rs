//! Recorded cuts (SPEC §13.E1) in the engine: a result a `tool_results_cut`
//! record replaced is, from the record's request on, out of every plan's reach.

use super::*;

impl Engine<'_> {
    /// The recorded cuts that take effect by request `k`: each result in the
    /// view loses any clearing and stops counting (a result not yet in the
    /// view gets its place when it enters it).
    pub(super) fn apply_cuts(&mut self, k: usize) {
        self.at = k;
        while let Some(&(at, r)) = self.cuts.list.get(self.cuts.done) {
            if at > k {
                break;
            }
            self.cuts.done += 1;
            let p = self.pos_of[r];
            let in_view =
                r < self.view.results_end && self.view.cands.get(p).is_some_and(|c| c.result == r);
            if !in_view {
                continue;
            }
            self.touch(r);
            if self.cleared[r].is_some() {
                self.set_clearing(r, None);
            }
            let cand = self.view.cands[p].clone();
            self.set_base(&cand);
            self.size_index_pos(p);
        }
    }
}
