//! The view of a request: its candidates (tool, rank, paths, protection), grown
//! as requests add messages, and the running totals the plans read.

use super::*;

impl<'s> Engine<'s> {
    /// Grows the view to the request's messages: new calls, new results, and the
    /// candidates whose id gained a call again (rare: a reused id).
    pub(super) fn sync_view(&mut self, req: &Request) {
        let s = self.s;
        // The view grows: walk on from where it ended (its start was searched
        // for once, when it began).
        let calls_end = s.calls_end_from(self.view.calls_end, req.end);
        let mut dirty: Vec<u32> = Vec::new();
        for c in self.view.calls_end..calls_end {
            let call = &s.calls[c];
            let id = self.ids.call[c];
            let (with_id, has_result) = self.id_slots.add_call(id, c);
            if with_id > 1 || has_result {
                dirty.push(id);
            }
            // A call on a dead branch takes no rank or keep slot (SPEC §15.1).
            let name = &self.ids.names[self.ids.call_name[c] as usize];
            if self.tools.is_compactable(name) && !req.is_dead(call.msg) {
                self.view.compactable_call_ix.push(c);
            }
        }
        self.view.calls_end = calls_end;
        // The session's table of the usage a view counts (`IdTable`).
        for i in self.view.msgs_end.max(req.view_start)..req.end {
            if let Some(u) = self.ids.usage_context[i]
                && !req.is_dead(i)
            {
                self.view.last_usage = Some(u);
            }
        }
        self.view.msgs_end = self.view.msgs_end.max(req.end);
        let results_end = s.results_end_from(self.view.results_end, req.end);
        let mut unsorted = false;
        for r in self.view.results_end..results_end {
            let (key, cand) = self.make_candidate(r);
            self.set_base(&cand);
            self.pos_of[r] = self.view.cands.len();
            self.id_slots.add_result(self.ids.result[r]);
            unsorted |= self.view.keys.last().is_some_and(|&k| k > key);
            self.view.keys.push(key);
            if let Some(prev) = self.view.cands.last() {
                self.view.stored_unsorted |= s.stored(prev.result) > s.stored(cand.result);
            }
            self.view.cands.push(cand);
            self.size_index_pos(self.view.cands.len() - 1);
            self.mask_index_result(r);
        }
        self.view.results_end = results_end;
        if !dirty.is_empty() {
            for i in 0..self.view.cands.len() {
                let r = self.view.cands[i].result;
                if dirty.contains(&self.ids.result[r]) {
                    // Its status may change with it (see `tracked`).
                    self.touch(r);
                    let rank = self.view.cands[i].rank;
                    let (key, mut cand) = self.make_candidate(r);
                    // A response keeps its place in the order of responses.
                    if s.shape().rank_by == RankBy::Responses {
                        cand.rank = rank;
                    }
                    self.set_base(&cand);
                    // A result that has become protected (a later call with its
                    // id reads memory) is never cleared: its clearing lapses, in
                    // the plan and the wire. Protection is decided only here and
                    // for a new result (which has no clearing yet), so no other
                    // candidate needs looking at.
                    if cand.protected() && self.cleared[r].is_some() {
                        self.set_clearing(r, None);
                    }
                    self.view.keys[i] = key;
                    self.view.cands[i] = cand;
                    self.size_index_pos(i);
                    self.mask_index_result(r);
                    unsorted = true;
                }
            }
        }
        if unsorted {
            let mut pairs: Vec<((usize, usize), Candidate)> = std::mem::take(&mut self.view.keys)
                .into_iter()
                .zip(std::mem::take(&mut self.view.cands))
                .collect();
            pairs.sort_by_key(|p| p.0);
            (self.view.keys, self.view.cands) = pairs.into_iter().unzip();
            for (p, c) in self.view.cands.iter().enumerate() {
                self.pos_of[c.result] = p;
            }
            self.view.stored_unsorted = !self.view.cands.is_sorted_by_key(|c| s.stored(c.result));
            // Positions moved: the size plan's index is rebuilt (rare).
            self.size_index_rebuild();
        }
        // Pending: the results of the request's last message, when it is the user
        // message that answers the calls (not a new turn). Only those change.
        for p in self.pending.drain(..) {
            if let Some(c) = self.view.cands.get_mut(p) {
                c.pending = false;
            }
        }
        if unsorted {
            // Positions moved: clear every mark (rare: a reused id or an orphan).
            for c in &mut self.view.cands {
                c.pending = false;
            }
        }
        // `last_user_message` when it is the request's last message, read
        // from the session's table of roles.
        let last_user = req
            .end
            .checked_sub(1)
            .filter(|&m| m >= req.view_start && self.ids.user[m]);
        if let Some(m) = last_user.filter(|_| req.continues_tool_loop()) {
            // The request's last message: its results end the view's.
            let mut start = results_end;
            while start > 0 && s.results[start - 1].msg >= m {
                start -= 1;
            }
            let mine = start..results_end;
            // The message's results are among the newest: look from the end.
            for (p, c) in self.view.cands.iter_mut().enumerate().rev() {
                if mine.contains(&c.result) {
                    c.pending = true;
                    self.pending.push(p);
                }
                if c.result < mine.start && self.pending.len() == mine.len() {
                    break;
                }
            }
        }
    }

    /// A result's candidate: its call, tool, rank, paths and protection.
    pub(super) fn make_candidate(&mut self, r: usize) -> ((usize, usize), Candidate) {
        let s = self.s;
        let res = &s.results[r];
        let ids = self.id_slots.calls(self.ids.result[r]);
        // A reused id: the result answers the latest call with its id before it.
        let own_call = ids
            .iter()
            .rev()
            .find(|&&c| s.calls[c].msg < res.msg)
            .or(ids.first())
            .copied();
        let rank_by = s.shape().rank_by;
        let tool = match rank_by {
            RankBy::Calls => {
                own_call.map(|c| self.ids.names[self.ids.call_name[c] as usize].as_str())
            }
            // A response names its own tool (canonical); one named after the
            // bridge takes the tool its calls name (SPEC §3).
            RankBy::Responses => res.name.as_deref().map(|name| {
                if Some(name) == self.tools.tools.bridge_tool {
                    bridged_tool(s, ids).unwrap_or(name)
                } else {
                    name
                }
            }),
        };
        // A result on a dead branch (SPEC §15.1) is listed, never a candidate
        // of a plan: no rank, keep slot, size or protection.
        let dead = self.view.dead.iter().any(|d| d.contains(&res.msg));
        let compactable = !dead && tool.is_some_and(|t| self.tools.is_compactable(t));
        let file_path_tool = tool.is_some_and(|t| self.tools.is_file_path_tool(t));
        let protects = !dead
            && self.policy.protect
            && tool == Some(self.tools.tools.read_tool)
            && !res.is_error;
        // A lean engine's candidates are read for their fate, never shown: it
        // keeps no paths or summary but what protection reads (copying and
        // freeing them for every result of every setting is most of a step).
        let lean = !self.modes.statuses;
        // Where paths are a set (SPEC §3: in order, deduplicated), a call
        // whose path an earlier call of the view named adds none.
        let calls_start = self.view.calls_start;
        let repeated = |c: usize| {
            s.path_repeats
                .get(c)
                .copied()
                .flatten()
                .is_some_and(|p| p >= calls_start)
        };
        let mut paths: Vec<RecordedPath> = ids
            .iter()
            .take(if lean && !protects { 0 } else { usize::MAX })
            .filter(|&&c| !repeated(c))
            .map(|&c| &s.calls[c])
            .filter(|c| self.tools.is_file_path_tool(&c.name))
            .filter_map(|c| {
                c.file_path.as_ref().map(|p| RecordedPath {
                    path: p.clone(),
                    cwd: c.cwd.clone(),
                })
            })
            .collect();
        let first_call = own_call.map(|c| &s.calls[c]);
        let rank = match (compactable, rank_by) {
            (false, _) => None,
            (true, RankBy::Calls) => own_call.and_then(|c| self.view.call_rank(c)),
            (true, RankBy::Responses) => {
                self.view.response_rank += 1;
                Some(self.view.response_rank)
            }
        };
        let protection = protects.then(|| self.protector.decide(&paths));
        if lean {
            paths = Vec::new();
        }
        // Sort key: the call's place in the view (rank order), else the result's.
        let key = match (rank_by, own_call) {
            (RankBy::Calls, Some(c)) => (c, r),
            (RankBy::Calls, None) => (s.calls.partition_point(|c| c.msg < res.msg), r),
            (RankBy::Responses, _) => (r, r),
        };
        let cand = Candidate {
            result: r,
            path: if lean {
                None
            } else {
                paths.first().map(|p| p.path.clone()).or_else(|| {
                    first_call.and_then(|c| c.file_path.clone().or(c.legacy_path.clone()))
                })
            },
            summary: if lean {
                None
            } else {
                first_call.and_then(|c| c.summary.clone())
            },
            // A lean engine keeps only what a plan reads of it (the budget
            // plan's one tool): a copy of every name was an allocation per
            // result of every setting.
            tool: tool
                .filter(|&t| !lean || t == budget::NOT_ELIGIBLE_TOOL)
                .map(str::to_string),
            compactable,
            rank,
            paths,
            file_path_tool,
            protection,
            pending: false,
            status: Status::Kept,
            reason: Reason::Unset,
            cleared_at: None,
            dead_branch: dead,
        };
        (key, cand)
    }

    pub(super) fn is_error(&self, c: &Candidate) -> bool {
        self.s.results[c.result].is_error
    }

    /// Whether evaluating a request needs the size total (the size plan, or auto
    /// where the harness's auto may pick it: one that runs plans by send).
    pub(super) fn needs_size_total(&self) -> bool {
        match self.policy.kind {
            PlanKind::Size => true,
            PlanKind::Auto => self.policy.preset.auto_may(PlanKind::Size),
            _ => false,
        }
    }

    /// The size total (SPEC §5): compactable, non-error, not cleared results.
    pub(super) fn size_total(&self) -> u64 {
        debug_assert_eq!(self.running.total, self.size_total_by_pass(), "size total");
        self.running.total
    }

    /// The size total by a pass over the view (what `total` must equal).
    pub(super) fn size_total_by_pass(&self) -> u64 {
        self.view
            .cands
            .iter()
            .filter(|c| {
                c.compactable && !self.is_error(c) && !self.in_force(c) && !self.gone(c.result)
            })
            .map(|c| self.s.results[c.result].chars)
            .sum()
    }
}

/// The tool a bridged response answers: the one tool that every call with its id
/// names. No call, calls that disagree, or an unparseable one: none (fail closed).
pub(super) fn bridged_tool<'s>(s: &'s Session, calls: &[usize]) -> Option<&'s str> {
    let first = &s.calls[*calls.first()?];
    let agree = calls
        .iter()
        .all(|&c| !s.calls[c].unparseable && s.calls[c].name == first.name);
    agree.then_some(first.name.as_str())
}
