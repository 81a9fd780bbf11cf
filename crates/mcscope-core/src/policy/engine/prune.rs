//! `prune` (SPEC §14, §15.13–14): OpenCode's `SessionCompaction.prune`, as
//! `shared/reference/opencode.md` §2 gives it (`sst/opencode`
//! `packages/opencode/src/session/compaction.ts` @`31e22f65`, the same as the
//! 1.18.33 binary).
//!
//! OpenCode runs it once after each prompt loop (§2.2), so its marks change
//! the requests of the next loop: here it is decided at the first request
//! after a loop ended (`Session::loop_ended_before`), over the messages that
//! loop had (up to its last response). It scans newest → oldest
//! (§2.3), skipping the latest two turns (`turns < 2`, every user message
//! counted), stops at a summary past them and at the first result it marked
//! before (`break loop`), counts `round(len/4)` of each
//! completed, non-`skill` result's output, protects the newest
//! `PRUNE_PROTECT` tokens and marks the rest when they are more than
//! `PRUNE_MINIMUM`. The marks are stored: cumulative and permanent in the view.

use super::*;
use crate::policy::params::When;

/// What prune keeps across views: OpenCode stores its marks, and a scan that
/// passes a compaction inside the latest two turns goes on into the view
/// before it (reference §2.3: the summary stops the scan only once two user
/// messages are passed).
#[derive(Debug, Clone, Default)]
pub(super) struct Memory {
    /// Per stored result: its estimate when prune counts it (completed, not
    /// `skill`), else None; read once, for the scan past the view.
    pub(super) seen: Vec<Option<u64>>,
    /// Per result: a simulated prune marked it (stored: it lasts).
    pub(super) marked: Vec<bool>,
    /// The results the last prune marked outside the view (`Step::marked_elsewhere`).
    pub(super) elsewhere: Vec<usize>,
}

/// §2.3 "Candidates": a completed part (errors, pending and running ones
/// are neither counted nor marked), never `skill`.
fn counted<L: Look>(look: &L, c: &Candidate) -> bool {
    !look.session().results[c.result].is_error
        && c.compactable
        && !c.protected()
        && !look.gone(c.result)
}

/// `prune` at `req` (see the module's note): the verdict on the view, and
/// the results it marks outside the view. `memory` is what the prunes before
/// it stored.
pub(super) fn prune<L: Look>(
    look: &L,
    p: &Policy,
    memory: &Memory,
    req: &Request,
) -> (Verdict, Vec<usize>) {
    let s = look.session();
    // §2.2: it runs when a prompt loop ends, so its marks are in force
    // from the next request; no loop ended before one that continues a
    // loop, or after an interrupted one.
    if !s.loop_ended_before(req.index) {
        return (Verdict::none(Note::Prune(PruneNote::MidLoop)), Vec::new());
    }
    let (protect, minimum) = (p.prune_protect_tokens, p.prune_minimum_tokens);
    // §2.3 "Protected turns": every user message counts (a prompt, a
    // compaction's, a synthetic continue, one that got no reply). The scan
    // ran when the last loop ended, with the response of request k − 1:
    // of the user messages before that response, it passes the newest
    // (turns = 1) and the one before it (turns = 2) before it takes
    // results, so the candidates are the results before that second one.
    // (A prompt that came after it, this loop's own or one that got no
    // reply, was not there yet.)
    let users = &s.turns.user_messages;
    let before = users.partition_point(|&(requests, _)| requests + 1 < req.index);
    let second = before.checked_sub(2);
    let boundary = second.map_or(0, |i| users[i].1);
    // §2.3 "Stop": at the newest summary the scan reaches, one before that
    // second user message (failed summaries too). A compaction inside the
    // latest two turns does not stop it: it goes on into the view before.
    let stop = second
        .and_then(|i| s.turns.summaries.iter().rev().find(|&&(u, _)| u <= i))
        .map_or(0, |&(_, r)| r);
    // Where each candidate is stored: a retained tail's copy comes after
    // the summary in the view, but its part is before the compaction.
    let stored = |pos: usize| s.stored(look.cands()[pos].result);
    // Newest first: by message, then by part (results are stored in order;
    // the view lists them so, unless a retained tail repeats some).
    // A view in stored order is walked as it is, newest first, and a lean
    // scan costs what it reads (it stops at the first part marked before),
    // not the view; only a view with a retained tail's copies is sorted.
    let n = look.cands().len();
    let mut sorted: Vec<usize> = Vec::new();
    if look.stored_unsorted() {
        sorted = (0..n).rev().collect();
        if !sorted.is_sorted_by_key(|&pos| std::cmp::Reverse(stored(pos))) {
            sorted.sort_unstable_by_key(|&pos| std::cmp::Reverse(stored(pos)));
        }
    }
    let order: Box<dyn Iterator<Item = usize> + '_> = if look.stored_unsorted() {
        Box::new(sorted.iter().copied())
    } else {
        Box::new((0..n).rev())
    };
    // A lean engine keeps no reasons: the scan ends where OpenCode's does.
    let lean = !look.explains();
    // The oldest stored place the view holds: the scan goes on below it.
    let oldest = if look.stored_unsorted() {
        sorted.last().copied()
    } else {
        (n > 0).then_some(0)
    };
    let view_first = oldest.map_or(s.results_in(req.view_start, req.view_start).start, |p| {
        stored(p)
    });
    let mut kept = Why::default();
    let mut total = 0u64;
    let mut pruned = 0u64;
    let mut marked: Vec<(usize, u64)> = Vec::new();
    let mut stopped = false;
    for pos in order {
        let c = &look.cands()[pos];
        let at = stored(pos);
        if at >= boundary {
            if !lean {
                kept.insert(pos, Kept::Prune(PruneKept::LatestTurns));
            }
            continue;
        }
        if !counted(look, c) {
            continue;
        }
        if lean && (stopped || at < stop) {
            break;
        }
        if at < stop {
            kept.insert(pos, Kept::Prune(PruneKept::BehindSummary));
            continue;
        }
        if stopped {
            kept.insert(pos, Kept::Prune(PruneKept::BehindMark));
            continue;
        }
        // §2.3 "Stop": at the first part a previous prune marked (a
        // retained copy of one it marked before the compaction too).
        if look.in_force(c) || memory.marked.get(at).copied().unwrap_or(false) {
            stopped = true;
            continue;
        }
        // §2.3 "Tokens": `Token.estimate(part.state.output)`.
        let estimate = s.results[c.result].est_tokens;
        let newer = total;
        total += estimate;
        if total <= protect {
            if !lean {
                kept.insert(pos, Kept::Prune(PruneKept::Protected { total, protect }));
            }
            continue;
        }
        pruned += estimate;
        marked.push((pos, newer));
    }
    // The scan goes on past the view's start into the views before it,
    // down to the stop, with what those views' candidates were.
    let mut elsewhere = Vec::new();
    if !stopped && stop < view_first.min(boundary) && !memory.seen.is_empty() {
        for r in (stop..view_first.min(boundary)).rev() {
            let Some(estimate) = memory.seen[r] else {
                continue;
            };
            if memory.marked[r] {
                break;
            }
            total += estimate;
            if total <= protect {
                continue;
            }
            pruned += estimate;
            elsewhere.push(r);
        }
    }
    let why = PruneWhy {
        total,
        pruned,
        protect,
        minimum,
    };
    // §2.3 "Trigger": strictly more than the minimum.
    if pruned <= minimum {
        let mut v = Verdict::none(Note::Prune(PruneNote::Under(why)));
        v.kept = kept;
        return (v, Vec::new());
    }
    let mut clear: Vec<(usize, ClearReason)> = marked
        .into_iter()
        .map(|(pos, newer)| (pos, ClearReason::Prune(PruneCleared { why, newer })))
        .collect();
    clear.sort_unstable_by_key(|&(pos, _)| pos);
    let verdict = Verdict {
        trigger: Some(Trigger::Prune),
        clear,
        media: Vec::new(),
        strip: Vec::new(),
        media_kept: 0,
        target: None,
        note: Note::Prune(PruneNote::Marked {
            why,
            elsewhere: elsewhere.len(),
        }),
        kept,
        pre_tokens: None,
    };
    (verdict, elsewhere)
}

/// `prune` (SPEC §14): OpenCode's prune, decided where a loop ended.
pub(super) struct Prune;

impl super::plan::Plan for Prune {
    /// What it keeps across views (its marks), where the policy may run it.
    fn state(&self, _s: &Session, _d: &Derived, p: &Policy) -> Option<PlanState> {
        PlanState::empty_where_runs::<Memory>(p)
    }

    /// What a header shows of its own parameters, in order (SPEC §15.13).
    fn shown(&self, p: &Policy) -> Option<Vec<crate::policy::params::Shown>> {
        use crate::numbers::fmt_int;
        use crate::policy::params;
        Some(vec![
            params::shown(
                "prune_protect_tokens",
                "protect ",
                fmt_int(p.prune_protect_tokens),
                " tok",
            ),
            params::shown(
                "prune_minimum_tokens",
                "minimum > ",
                fmt_int(p.prune_minimum_tokens),
                "",
            ),
        ])
    }

    /// Its marks are stored over views, and its scan reaches into the view
    /// before a compaction.
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::Session
    }

    /// Its own thresholds (`prune.rs`), none of the shared ones.
    /// OpenCode marks a pruned part (`state.time.compacted`, SPEC §14).
    fn writes(&self) -> Option<crate::vocab::Writer> {
        Some(crate::vocab::Writer::Prune)
    }

    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("prune_protect_tokens", When::Always),
            ("prune_minimum_tokens", When::Always),
        ]
    }

    /// Prune's marks are stored: cumulative and permanent in the view (SPEC §15.13).
    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[(Trigger::Prune, super::plan::Lasts::View)]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Prune
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(e.prune_step(req))
    }
}

/// What OpenCode's prune said at a request (the step's note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PruneNote {
    /// It runs after a loop ends, so not at a request that continues one.
    MidLoop,
    /// It ran after the last loop and marked results.
    Marked {
        why: PruneWhy,
        /// How many of the marked results are outside the view (no request
        /// sends them: `Step::marked_elsewhere`).
        elsewhere: usize,
    },
    /// It ran, and what it could free was not over the minimum.
    Under(PruneWhy),
}

impl std::fmt::Display for PruneNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::{fmt_int, plural};
        match self {
            PruneNote::MidLoop => {
                f.write_str("prune: runs when a prompt loop ends; none ended just before this request (it continues one, or the last was interrupted)")
            }
            PruneNote::Marked { why, elsewhere } => {
                write!(
                    f,
                    "prune: {} tokens past the newest {} > {}: marked",
                    fmt_int(why.pruned),
                    fmt_int(why.protect),
                    fmt_int(why.minimum)
                )?;
                if *elsewhere > 0 {
                    write!(
                        f,
                        " ({} in the view before a compaction, which no request sends)",
                        plural(*elsewhere, "result")
                    )?;
                }
                Ok(())
            }
            PruneNote::Under(why) => write!(
                f,
                "prune: {} tokens past the newest {} (of {} scanned) ≤ {}: nothing marked",
                fmt_int(why.pruned),
                fmt_int(why.protect),
                fmt_int(why.total),
                fmt_int(why.minimum)
            ),
        }
    }
}

/// Past the newest `protect` tokens of tool output, the whole prunable set
/// over the minimum (reference §2.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PruneCleared {
    pub why: PruneWhy,
    pub newer: u64,
}

impl std::fmt::Display for PruneCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        write!(
            f,
            "prune: past the newest {} tokens of tool output ({} newer than it); {} prunable > {}",
            fmt_int(self.why.protect),
            fmt_int(self.newer),
            fmt_int(self.why.pruned),
            fmt_int(self.why.minimum)
        )
    }
}

/// Why prune kept a result.
#[derive(Debug, Clone, PartialEq)]
pub enum PruneKept {
    /// Within the newest `protect` tokens of tool output (`total` counted
    /// with it, newest first).
    Protected { total: u64, protect: u64 },
    /// In the latest two turns, which it never scans.
    LatestTurns,
    /// Older than a result it marked before (its scan stops there).
    BehindMark,
    /// Older than a compaction summary (its scan stops there).
    BehindSummary,
}

impl std::fmt::Display for PruneKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        match self {
            PruneKept::Protected { total, protect } => write!(
                f,
                "in the newest {} tokens of tool output ({} counted with it)",
                fmt_int(*protect),
                fmt_int(*total)
            ),
            PruneKept::LatestTurns => {
                f.write_str("in the latest two turns (prune never scans them)")
            }
            PruneKept::BehindMark => {
                f.write_str("older than a result prune marked before (its scan stops there)")
            }
            PruneKept::BehindSummary => {
                f.write_str("older than a compaction summary (prune's scan stops there)")
            }
        }
    }
}

impl super::own_state::OwnState for Memory {
    const KIND: PlanKind = PlanKind::Prune;
}
