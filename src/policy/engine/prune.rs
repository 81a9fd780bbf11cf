//! `prune` (SPEC §14, §15.13–14): OpenCode's `SessionCompaction.prune`, as
//! `shared/reference/opencode.md` §2 gives it (`sst/opencode`
//! `packages/opencode/src/session/compaction.ts` @`31e22f65`, the same as the
//! 1.18.33 binary).
//!
//! OpenCode runs it once after each prompt loop (§2.2), so its marks change
//! the requests of the next turn: here it is decided at the first request of a
//! turn, over the messages before that turn's prompt. It scans newest → oldest
//! (§2.3), skipping the latest two turns (`turns < 2`), stops at the first
//! result it marked before (`break loop`), counts `round(len/4)` of each
//! completed, non-`skill` result's output, protects the newest
//! `PRUNE_PROTECT` tokens and marks the rest when they are more than
//! `PRUNE_MINIMUM`. The marks are stored: cumulative and permanent in the view.

use super::*;

impl Engine<'_> {
    /// `prune` at `req` (see the module's note).
    pub(super) fn prune(&self, req: &Request) -> Verdict {
        // §2.2: it runs when a loop ends; a request that continues the loop
        // comes before that.
        if !req.begins_turn {
            return Verdict::none(Note::PruneMidLoop);
        }
        let p = &self.policy;
        let (protect, minimum) = (p.prune_protect_tokens, p.prune_minimum_tokens);
        // §2.3 "Protected turns": every user message counts (a prompt, a
        // compaction's, a synthetic continue, one that got no reply). The scan
        // ran when the last loop ended, before `req`'s own prompt: of the user
        // messages before that one, it passes the newest (turns = 1) and the
        // one before it (turns = 2) before it takes results, so the candidates
        // are the results before that second one. The view starts at the last
        // compaction, where the scan stops too.
        let users = &self.s.user_messages;
        let before = users.partition_point(|&(requests, _)| requests < req.index);
        let boundary = before.checked_sub(3).map_or(0, |i| users[i].1);
        let mut order: Vec<usize> = (0..self.view.cands.len()).collect();
        // Newest first: by message, then by part (results are stored in order).
        order.sort_unstable_by_key(|&pos| std::cmp::Reverse(self.view.cands[pos].result));
        let mut kept = Why::new();
        let mut total = 0u64;
        let mut pruned = 0u64;
        let mut marked: Vec<(usize, u64)> = Vec::new();
        let mut stopped = false;
        for pos in order {
            let c = &self.view.cands[pos];
            let r = &self.s.results[c.result];
            if c.result >= boundary {
                kept.insert(pos, Kept::PruneLatestTurns);
                continue;
            }
            // §2.3 "Candidates": completed parts only (errors, pending and
            // running ones are neither counted nor marked), `skill` never.
            if r.is_error || !c.compactable || c.protected() || self.gone(c.result) {
                continue;
            }
            if stopped {
                kept.insert(pos, Kept::PruneBehindMark);
                continue;
            }
            // §2.3 "Stop": at the first part a previous prune marked.
            if self.in_force(c) {
                stopped = true;
                continue;
            }
            // §2.3 "Tokens": `Token.estimate(part.state.output)`.
            let estimate = r.est_tokens;
            let newer = total;
            total += estimate;
            if total <= protect {
                kept.insert(pos, Kept::PruneProtected { total, protect });
                continue;
            }
            pruned += estimate;
            marked.push((pos, newer));
        }
        let why = PruneWhy {
            total,
            pruned,
            protect,
            minimum,
        };
        // §2.3 "Trigger": strictly more than the minimum.
        if pruned <= minimum {
            let mut v = Verdict::none(Note::PruneUnder(why));
            v.kept = kept;
            return v;
        }
        let mut clear: Vec<(usize, ClearReason)> = marked
            .into_iter()
            .map(|(pos, newer)| (pos, ClearReason::Prune { why, newer }))
            .collect();
        clear.sort_unstable_by_key(|&(pos, _)| pos);
        Verdict {
            trigger: Some(Trigger::Prune),
            clear,
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note: Note::Prune(why),
            kept,
            pre_tokens: None,
        }
    }
}
