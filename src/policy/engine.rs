//! The timeline: one pass over the requests, evaluating the plan at each and
//! carrying the clearings still in force (SPEC §5 persistence).

use super::budget;
use super::protect::{Outcome, Protection, Protector, RecordedPath};
use super::{Delivery, PlanKind, Policy};
use crate::harness::Preset;
use crate::session::{Harness, Request, Role, SendKind, Session};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Kept,
    Cleared,
    Protected,
    AlreadyCleared,
    ErrorKept,
    NotCompactable,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Kept => "kept",
            Status::Cleared => "cleared",
            Status::Protected => "protected",
            Status::AlreadyCleared => "already_cleared",
            Status::ErrorKept => "error_kept",
            Status::NotCompactable => "not_compactable",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    Idle,
    Forced,
    Size,
    Count,
    Budget,
}

impl Trigger {
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Idle => "idle",
            Trigger::Forced => "forced",
            Trigger::Size => "size",
            Trigger::Count => "count",
            Trigger::Budget => "budget",
        }
    }
}

/// A clearing still in force: when, by what, and why.
#[derive(Debug, Clone)]
pub struct Clearing {
    pub at: usize,
    pub trigger: Trigger,
    pub reason: String,
}

/// One `cache_edits` block: created at request `at`, pinned at message `msg`.
#[derive(Debug, Clone)]
pub struct EditBlock {
    pub at: usize,
    pub msg: usize,
    pub results: Vec<usize>,
}

/// A tool result in the view of a request, with its fate there.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index into `Session::results`.
    pub result: usize,
    pub tool: Option<String>,
    pub compactable: bool,
    pub rank: Option<usize>,
    /// The first recorded path (file-path tools), for people.
    pub path: Option<String>,
    /// Command, pattern, url… for tools without a path.
    pub summary: Option<String>,
    pub paths: Vec<RecordedPath>,
    pub file_path_tool: bool,
    pub protection: Option<Protection>,
    pub pending: bool,
    pub status: Status,
    pub reason: String,
    pub cleared_at: Option<usize>,
}

impl Candidate {
    fn protected(&self) -> bool {
        self.protection
            .as_ref()
            .is_some_and(|p| p.outcome.protects())
    }
}

/// What happened at one request.
#[derive(Debug, Clone)]
pub struct Step {
    pub index: usize,
    /// The plan kind in force here (what `auto` chose, or the kind asked for);
    /// None where `auto` runs nothing (a Qwen notification, goal turn…).
    pub kind: Option<PlanKind>,
    pub fired: bool,
    pub trigger: Option<Trigger>,
    /// Result indices newly cleared here, in rank order.
    pub newly_cleared: Vec<usize>,
    /// Result indices cleared in this request's wire (in force), in rank order.
    pub cleared: Vec<usize>,
    /// Qwen media items cleared or stripped in this request's wire, as
    /// `(message, media index)` / `(message, media count + result index)`.
    pub media_in_wire: Vec<(usize, usize)>,
    pub tokens_saved: u64,
    pub chars_before: u64,
    pub chars_after: u64,
    pub target_chars: Option<u64>,
    pub media_cleared: usize,
    pub media_kept: usize,
    /// The idle gap the plan read here: the request's, or at a Qwen hook the
    /// time since the hook checkpoint (SPEC §2).
    pub gap_minutes: Option<f64>,
    /// `budget`: Σ tokens of the eligible results (SPEC §7 `metadata.pre_tokens`).
    pub pre_tokens: Option<u64>,
    /// Why the plan fired or not, in words.
    pub note: String,
}

/// The plan's verdict at one request, before it is applied.
struct Verdict {
    fired: bool,
    trigger: Option<Trigger>,
    /// Candidate positions to clear, with the reason for each.
    clear: Vec<(usize, String)>,
    media: Vec<usize>,
    /// Qwen: results (not compactable) whose nested media is stripped.
    strip: Vec<usize>,
    /// Qwen idle/forced: `min(#media + #nested-media, keep_recent)`.
    media_kept: usize,
    target: Option<u64>,
    note: String,
    /// Why particular candidates stay (in the window, pending, …).
    kept: Why,
    pre_tokens: Option<u64>,
}

/// Reasons a candidate stays, in words; written only when reasons are wanted.
#[derive(Default)]
struct Why {
    on: bool,
    map: HashMap<usize, String>,
}

impl Why {
    fn new(on: bool) -> Why {
        Why {
            on,
            map: HashMap::new(),
        }
    }

    fn add(&mut self, p: usize, why: impl FnOnce() -> String) {
        if self.on {
            self.map.insert(p, why());
        }
    }

    fn contains_key(&self, p: &usize) -> bool {
        self.map.contains_key(p)
    }

    fn get(&self, p: &usize) -> Option<&String> {
        self.map.get(p)
    }
}

impl Verdict {
    fn none(note: String) -> Verdict {
        Verdict {
            fired: false,
            trigger: None,
            clear: Vec::new(),
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note,
            kept: Why::default(),
            pre_tokens: None,
        }
    }
}

pub struct Engine<'s> {
    s: &'s Session,
    policy: Policy,
    /// Tool names follow the transcript's harness, whatever preset is applied.
    tools: &'static Preset,
    protector: Protector,
    /// The request `forced` acts at (the viewed request K).
    forced_at: usize,
    next: usize,
    /// Reasons in words for every candidate (plan, explain, TUI); the timeline
    /// needs none and skips them.
    detail: bool,
    /// With `detail`, only at this request (the one shown), when set.
    detail_at: Option<usize>,
    /// Requests before this one only carry the state forward: their steps skip
    /// what only a report of them needs (statuses, sizes after, lists).
    quiet_before: usize,
    /// Candidate positions marked pending at the last step.
    pending: Vec<usize>,
    cleared: Vec<Option<Clearing>>,
    /// Per result in the view: its chars in the size total and whether it counts
    /// as active (count plan) while no clearing is in force on it.
    base: Vec<(u64, bool)>,
    /// The size total and the number of active results, kept as clearings come
    /// and go (so a step that does not fire costs no pass over the view).
    total: u64,
    active: usize,
    /// The active results themselves, by result index (registration order), and
    /// each view result's candidate position: the count plan reads only these.
    active_set: BTreeSet<usize>,
    pos_of: Vec<usize>,
    /// The results with a clearing in force (so a reset touches only them).
    in_force_list: Vec<usize>,
    media_cleared: Vec<bool>,
    /// Per result: its nested media stripped in the wire (Qwen's nested list).
    stripped: Vec<bool>,
    /// Whether any media is cleared or stripped now (so that sessions without
    /// media never pass over the view for it).
    media_touched: bool,
    edits: Vec<EditBlock>,
    view: View<'s>,
    /// Qwen: the process segment of the last request, and the hook checkpoint
    /// (idle state that lives in the process, SPEC §2).
    process: Option<usize>,
    hook_checkpoint: Option<i64>,
}

/// The current view's candidates, grown incrementally as requests add messages.
#[derive(Default)]
struct View<'s> {
    segment: usize,
    started: bool,
    calls_end: usize,
    results_end: usize,
    by_id: HashMap<&'s str, Vec<usize>>,
    /// Compactable call → its rank (position among the view's compactable calls).
    call_rank: HashMap<usize, usize>,
    compactable_calls: Vec<&'s str>,
    /// The call indices behind `compactable_calls` (the budget plan reads names).
    compactable_call_ix: Vec<usize>,
    /// Messages of the view seen so far, and the recorded usage (input +
    /// cache_creation + cache_read + output) of the last response among them.
    msgs_end: usize,
    last_usage: Option<u64>,
    qwen_rank: usize,
    cands: Vec<Candidate>,
    keys: Vec<(usize, usize)>,
    /// The ids of the results in the view (a new call with one makes them dirty).
    result_ids: HashSet<&'s str>,
}

impl<'s> Engine<'s> {
    pub fn new(s: &'s Session, policy: Policy, protector: Protector, forced_at: usize) -> Self {
        Engine {
            s,
            tools: s.harness.rules(),
            policy,
            protector,
            forced_at,
            next: 1,
            detail: true,
            detail_at: None,
            quiet_before: 0,
            pending: Vec::new(),
            cleared: vec![None; s.results.len()],
            base: vec![(0, false); s.results.len()],
            total: 0,
            active: 0,
            active_set: BTreeSet::new(),
            pos_of: vec![0; s.results.len()],
            in_force_list: Vec::new(),
            media_cleared: vec![false; s.media.len()],
            stripped: vec![false; s.results.len()],
            media_touched: false,
            edits: Vec::new(),
            view: View::default(),
            process: None,
            hook_checkpoint: None,
        }
    }

    /// Starts at request `first` (1-based): the caller knows nothing before it
    /// matters (the start of a view).
    pub fn starting_at(mut self, first: usize) -> Self {
        self.next = first.max(1);
        self
    }

    /// Reasons in words only at request `k` (what a plan at `k` shows); the
    /// steps before `k - 1` are quiet: they carry the state and report nothing
    /// but whether they fired (a plan at `k` looks at k - 1 and k only).
    pub fn reasons_at(mut self, k: usize) -> Self {
        self.detail_at = Some(k);
        self.quiet_before = k.saturating_sub(1);
        self
    }

    /// Whether the request being evaluated gets reasons in words.
    fn wants_reasons(&self) -> bool {
        self.detail && self.detail_at.is_none_or(|k| k + 1 == self.next)
    }

    /// Every step quiet: only whether each request fired (the TUI's footer marks).
    pub fn only_fired(mut self) -> Self {
        self.detail = false;
        self.quiet_before = usize::MAX;
        self
    }

    /// Skips the reasons in words (for the timeline, which prints none).
    pub fn without_reasons(mut self) -> Self {
        self.detail = false;
        self
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The candidates of the last evaluated request, in rank order.
    pub fn candidates(&self) -> &[Candidate] {
        &self.view.cands
    }

    /// The `cache_edits` blocks sent up to the last evaluated request.
    pub fn edits(&self) -> &[EditBlock] {
        &self.edits
    }

    /// Whether result `r` is cleared in the last evaluated request's wire.
    pub fn is_cleared(&self, r: usize) -> bool {
        self.cleared.get(r).is_some_and(Option::is_some)
    }

    pub fn media_is_cleared(&self, m: usize) -> bool {
        self.media_cleared.get(m).copied().unwrap_or(false)
    }

    /// Whether result `r`'s nested media is stripped in the last request's wire.
    pub fn is_stripped(&self, r: usize) -> bool {
        self.stripped.get(r).copied().unwrap_or(false)
    }

    /// The media items cleared or stripped in `req`'s wire (see `Step`).
    fn media_in_wire(&self, req: &Request) -> Vec<(usize, usize)> {
        if !self.media_touched {
            return Vec::new();
        }
        let s = self.s;
        let media = s
            .media_in(req.view_start, req.end)
            .filter(|&m| self.media_cleared[m])
            .map(|m| (s.media[m].msg, m));
        let nested = s
            .results_in(req.view_start, req.end)
            .filter(|&r| self.stripped[r])
            .map(|r| (s.results[r].msg, s.media.len() + r));
        media.chain(nested).collect()
    }

    /// Undoes every media clearing (a new view, a restart).
    fn reset_media(&mut self) {
        if !std::mem::take(&mut self.media_touched) {
            return;
        }
        for m in self.s.media_in(0, self.s.messages.len()) {
            self.media_cleared[m] = false;
        }
        self.stripped.iter_mut().for_each(|x| *x = false);
    }

    fn reset_clearings(&mut self) {
        for r in std::mem::take(&mut self.in_force_list) {
            self.set_clearing(r, None);
        }
    }

    /// A claude turn start: the clearings that lapse there (idle, forced, size)
    /// are lifted; count deletions and budget clearings stay (SPEC §5).
    fn reset_lapsing(&mut self) {
        for r in std::mem::take(&mut self.in_force_list) {
            match self.cleared[r].as_ref().map(|c| c.trigger) {
                Some(Trigger::Count | Trigger::Budget) => self.in_force_list.push(r),
                Some(_) => self.set_clearing(r, None),
                None => {}
            }
        }
    }

    /// What result `r` adds to the size total and the active count now.
    fn contribution(&self, r: usize) -> (u64, usize) {
        match self.cleared[r] {
            Some(_) => (0, 0),
            None => (self.base[r].0, self.base[r].1 as usize),
        }
    }

    /// The one place a clearing is put in force or lifted.
    fn set_clearing(&mut self, r: usize, clearing: Option<Clearing>) {
        let (c, a) = self.contribution(r);
        self.cleared[r] = clearing;
        self.update_totals(r, c, a);
    }

    /// Moves the running totals from `r`'s old contribution to its current one.
    fn update_totals(&mut self, r: usize, old_chars: u64, old_active: usize) {
        let (c, a) = self.contribution(r);
        self.total = self.total - old_chars + c;
        self.active = self.active - old_active + a;
        if a == 1 {
            self.active_set.insert(r);
        } else {
            self.active_set.remove(&r);
        }
    }

    /// Records what a (new or re-made) candidate adds while not cleared.
    fn set_base(&mut self, c: &Candidate) {
        let r = &self.s.results[c.result];
        let chars = if c.compactable && !r.is_error && !r.already_cleared {
            r.chars
        } else {
            0
        };
        let active = c.compactable
            && !c.protected()
            && !r.already_cleared
            && (!r.is_error || self.policy.errors_clearable());
        let (old_c, old_a) = self.contribution(c.result);
        self.base[c.result] = (chars, active);
        self.update_totals(c.result, old_c, old_a);
    }

    /// Evaluates the next request; None after the last.
    pub fn step(&mut self) -> Option<Step> {
        let req = self.s.requests.get(self.next - 1)?;
        self.next += 1;
        Some(self.step_request(req))
    }

    /// Evaluates a request that is not one of the session's: the compaction's
    /// summarizing request, whose view ends at a `compact_boundary` (SPEC §10).
    pub fn step_virtual(&mut self, req: &Request) -> Step {
        self.step_request(req)
    }

    fn step_request(&mut self, req: &Request) -> Step {
        if !self.view.started || req.segment != self.view.segment {
            // Nothing planned before a compaction boundary carries over it.
            self.reset_clearings();
            self.reset_media();
            self.edits.clear();
            self.pending.clear();
            (self.total, self.active) = (0, 0);
            self.active_set.clear();
            self.view = View {
                segment: req.segment,
                started: true,
                calls_end: self.s.calls_in(req.view_start, req.view_start).start,
                results_end: self.s.results_in(req.view_start, req.view_start).start,
                msgs_end: req.view_start,
                ..View::default()
            };
        }
        // Claude rewrites only the request: at a new turn the originals go out
        // again. Count deletions and budget clearings are cumulative within the
        // view (SPEC §5).
        if self.policy.preset == Harness::Claude && req.begins_turn {
            self.reset_lapsing();
            if self.policy.kind != PlanKind::Count {
                // The request is rebuilt from the originals: only the deletions
                // still in force (budget's, under auto) are re-sent, so the wire
                // deletes exactly what the plan clears.
                let cleared = &self.cleared;
                self.edits
                    .retain(|e| e.results.iter().all(|&r| cleared[r].is_some()));
            }
        }
        if let Some(send) = &req.send
            && self.process != Some(send.process)
        {
            // A restart: Qwen rebuilds the history from the records, so every
            // clearing not stored by a compression is undone (SPEC §2).
            if self.process.is_some() {
                self.reset_clearings();
                self.reset_media();
                self.edits.clear();
            }
            self.process = Some(send.process);
            self.hook_checkpoint = None;
        }
        let gap = self.gap_at(req);
        self.sync_view(req);
        // A result that has become protected (a later call with its id reads
        // memory) is never cleared: its clearing lapses, in the plan and the wire.
        if !self.in_force_list.is_empty() {
            for p in 0..self.view.cands.len() {
                let c = &self.view.cands[p];
                if c.protected() && self.cleared[c.result].is_some() {
                    self.set_clearing(c.result, None);
                }
            }
        }
        let quiet = req.index < self.quiet_before;
        let chars_before = if quiet && !self.needs_size_total() {
            0
        } else {
            self.size_total()
        };
        let kind = self.policy.kind_at(req, gap);
        let verdict = match kind {
            Some(kind) => self.evaluate(req, kind, chars_before, gap),
            None => Verdict::none(super::send::qwen_runs(req).why_none.into()),
        };
        let trigger = verdict.trigger.unwrap_or(Trigger::Idle);
        let mut newly: Vec<usize> = Vec::new();
        for (pos, reason) in &verdict.clear {
            let r = self.view.cands[*pos].result;
            let clearing = Clearing {
                at: req.index,
                trigger,
                reason: reason.clone(),
            };
            self.set_clearing(r, Some(clearing));
            self.in_force_list.push(r);
            newly.push(*pos);
        }
        for &m in &verdict.media {
            self.media_cleared[m] = true;
        }
        for &r in &verdict.strip {
            self.stripped[r] = true;
        }
        self.media_touched |= !verdict.media.is_empty() || !verdict.strip.is_empty();
        newly.sort_unstable();
        let tokens_saved = newly
            .iter()
            .map(|&p| self.s.results[self.view.cands[p].result].est_tokens)
            .sum::<u64>()
            + self.media_tokens(&verdict);
        self.move_hook_checkpoint(req, verdict.trigger, tokens_saved);
        if self.policy.delivery == Delivery::CacheEdits
            && !newly.is_empty()
            && let Some(msg) = last_user_message(self.s, req)
        {
            self.edits.push(EditBlock {
                at: req.index,
                msg,
                results: newly.iter().map(|&p| self.view.cands[p].result).collect(),
            });
        }
        if quiet {
            return Step {
                index: req.index,
                kind,
                fired: verdict.fired,
                trigger: verdict.trigger,
                newly_cleared: Vec::new(),
                cleared: Vec::new(),
                media_in_wire: Vec::new(),
                tokens_saved: 0,
                chars_before,
                chars_after: 0,
                target_chars: verdict.target,
                media_cleared: verdict.media.len() + verdict.strip.len(),
                media_kept: verdict.media_kept,
                gap_minutes: gap,
                pre_tokens: verdict.pre_tokens,
                note: verdict.note,
            };
        }
        self.finish_statuses(req, &verdict);
        let chars_after = self.size_total();
        let cands = &self.view.cands;
        Step {
            index: req.index,
            kind,
            fired: verdict.fired,
            trigger: verdict.trigger,
            tokens_saved,
            newly_cleared: newly.iter().map(|&p| cands[p].result).collect(),
            cleared: cands
                .iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| c.result)
                .collect(),
            media_in_wire: self.media_in_wire(req),
            chars_before,
            chars_after,
            target_chars: verdict.target,
            media_cleared: verdict.media.len() + verdict.strip.len(),
            media_kept: verdict.media_kept,
            gap_minutes: gap,
            pre_tokens: verdict.pre_tokens,
            note: verdict.note,
        }
    }

    /// The gap the idle rule reads at `req`: at a Qwen hook, the time since the
    /// hook checkpoint, which starts at the last completion (SPEC §2).
    fn gap_at(&mut self, req: &Request) -> Option<f64> {
        match &req.send {
            Some(send) if send.kind == SendKind::Hook && self.policy.preset == Harness::Qwen => {
                let checkpoint = self.hook_checkpoint.or(send.completion_ms).or(req.now_ms);
                self.hook_checkpoint = checkpoint;
                Some((req.now_ms? - checkpoint?) as f64 / 60_000.0)
            }
            _ => req.gap_minutes,
        }
    }

    /// After a Qwen send: a prompt always moves the hook checkpoint to now; a cron
    /// job or a hook only when its idle or size plan saved tokens (client.ts).
    fn move_hook_checkpoint(&mut self, req: &Request, trigger: Option<Trigger>, saved: u64) {
        let Some(send) = req
            .send
            .as_ref()
            .filter(|_| self.policy.preset == Harness::Qwen)
        else {
            return;
        };
        let plan_saved = matches!(trigger, Some(Trigger::Idle | Trigger::Size)) && saved > 0;
        match send.kind {
            SendKind::UserQuery => self.hook_checkpoint = req.now_ms,
            SendKind::Cron | SendKind::Hook if plan_saved => self.hook_checkpoint = req.now_ms,
            _ => {}
        }
    }

    /// Runs to request `k` (1-based) and returns its step.
    pub fn run_to(&mut self, k: usize) -> Option<Step> {
        let mut last = None;
        while self.next <= k {
            last = Some(self.step()?);
        }
        last
    }

    /// Grows the view to the request's messages: new calls, new results, and the
    /// candidates whose id gained a call again (rare: a reused id).
    fn sync_view(&mut self, req: &Request) {
        let s = self.s;
        let calls = s.calls_in(req.view_start, req.end);
        let mut dirty: Vec<&'s str> = Vec::new();
        for c in self.view.calls_end..calls.end {
            let call = &s.calls[c];
            let entry = self.view.by_id.entry(call.id.as_str()).or_default();
            entry.push(c);
            if entry.len() > 1 || self.view.result_ids.contains(call.id.as_str()) {
                dirty.push(call.id.as_str());
            }
            if self.tools.is_compactable(&call.name) {
                let n = self.view.call_rank.len() + 1;
                self.view.call_rank.insert(c, n);
                self.view.compactable_calls.push(call.id.as_str());
                self.view.compactable_call_ix.push(c);
            }
        }
        self.view.calls_end = calls.end;
        for m in &s.messages[self.view.msgs_end.max(req.view_start)..req.end] {
            if let Some(u) = &m.usage
                && m.role == Role::Assistant
                && !m.synthetic
                && m.model.as_deref() != Some("<synthetic>")
            {
                self.view.last_usage = Some(
                    u.input_tokens
                        + u.cache_creation_input_tokens
                        + u.cache_read_input_tokens
                        + u.output_tokens,
                );
            }
        }
        self.view.msgs_end = self.view.msgs_end.max(req.end);
        let results = s.results_in(req.view_start, req.end);
        let mut unsorted = false;
        for r in self.view.results_end..results.end {
            let (key, cand) = self.make_candidate(r);
            self.set_base(&cand);
            self.pos_of[r] = self.view.cands.len();
            self.view.result_ids.insert(s.results[r].id.as_str());
            unsorted |= self.view.keys.last().is_some_and(|&k| k > key);
            self.view.keys.push(key);
            self.view.cands.push(cand);
        }
        self.view.results_end = results.end;
        if !dirty.is_empty() {
            for i in 0..self.view.cands.len() {
                let r = self.view.cands[i].result;
                if dirty.contains(&s.results[r].id.as_str()) {
                    let rank = self.view.cands[i].rank;
                    let (key, mut cand) = self.make_candidate(r);
                    if s.harness == Harness::Qwen {
                        cand.rank = rank;
                    }
                    self.set_base(&cand);
                    self.view.keys[i] = key;
                    self.view.cands[i] = cand;
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
        let last_user = last_user_message(s, req).filter(|&m| m + 1 == req.end);
        // Claude: a request that continues a tool loop; Qwen: a tool_result send.
        let continues = match &req.send {
            Some(send) => send.kind == SendKind::ToolResult,
            None => !req.begins_turn,
        };
        if let Some(m) = last_user.filter(|_| continues) {
            let mine = s.results_in(m, m + 1);
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
    fn make_candidate(&mut self, r: usize) -> ((usize, usize), Candidate) {
        let s = self.s;
        let res = &s.results[r];
        let ids = self
            .view
            .by_id
            .get(res.id.as_str())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        // A reused id: the result answers the latest call with its id before it.
        let own_call = ids
            .iter()
            .rev()
            .find(|&&c| s.calls[c].msg < res.msg)
            .or(ids.first())
            .copied();
        let tool = match s.harness {
            Harness::Claude => own_call.map(|c| s.calls[c].name.clone()),
            // A response names its own tool (canonical); one named after the
            // bridge takes the tool its calls name (SPEC §3).
            Harness::Qwen => res.name.as_deref().map(|name| {
                if Some(name) == self.tools.bridge_tool {
                    bridged_tool(s, ids).unwrap_or(name).to_string()
                } else {
                    name.to_string()
                }
            }),
        };
        let compactable = tool
            .as_deref()
            .is_some_and(|t| self.tools.is_compactable(t));
        let file_path_tool = tool
            .as_deref()
            .is_some_and(|t| self.tools.is_file_path_tool(t));
        let mut paths: Vec<RecordedPath> = ids
            .iter()
            .map(|&c| &s.calls[c])
            .filter(|c| self.tools.is_file_path_tool(&c.name))
            .filter_map(|c| {
                c.file_path.as_ref().map(|p| RecordedPath {
                    path: p.clone(),
                    cwd: c.cwd.clone(),
                })
            })
            .collect();
        if s.harness == Harness::Qwen {
            // Qwen collects a set of paths per id (SPEC §3: in order, deduplicated).
            let mut seen = HashSet::new();
            paths.retain(|p| seen.insert(p.path.clone()));
        }
        let first_call = own_call.map(|c| &s.calls[c]);
        let rank = match (compactable, s.harness) {
            (false, _) => None,
            (true, Harness::Claude) => own_call.and_then(|c| self.view.call_rank.get(&c).copied()),
            (true, Harness::Qwen) => {
                self.view.qwen_rank += 1;
                Some(self.view.qwen_rank)
            }
        };
        let protection =
            (self.policy.protect && tool.as_deref() == Some(self.tools.read_tool) && !res.is_error)
                .then(|| self.protector.decide(&paths));
        // Sort key: the call's place in the view (rank order), else the result's.
        let key = match (s.harness, own_call) {
            (Harness::Claude, Some(c)) => (c, r),
            (Harness::Claude, None) => (s.calls.partition_point(|c| c.msg < res.msg), r),
            (Harness::Qwen, _) => (r, r),
        };
        let cand = Candidate {
            result: r,
            path: paths
                .first()
                .map(|p| p.path.clone())
                .or_else(|| first_call.and_then(|c| c.file_path.clone().or(c.legacy_path.clone()))),
            summary: first_call.and_then(|c| c.summary.clone()),
            tool,
            compactable,
            rank,
            paths,
            file_path_tool,
            protection,
            pending: false,
            status: Status::Kept,
            reason: String::new(),
            cleared_at: None,
        };
        (key, cand)
    }

    fn in_force(&self, c: &Candidate) -> bool {
        self.cleared[c.result].is_some()
    }

    fn is_error(&self, c: &Candidate) -> bool {
        self.s.results[c.result].is_error
    }

    /// Whether evaluating a request needs the size total (the size plan, or auto
    /// on qwen, which may pick it).
    fn needs_size_total(&self) -> bool {
        matches!(
            (self.policy.kind, self.policy.preset),
            (PlanKind::Size, _) | (PlanKind::Auto, Harness::Qwen)
        )
    }

    /// The size total (SPEC §5): compactable, non-error, not cleared results.
    fn size_total(&self) -> u64 {
        debug_assert_eq!(self.total, self.size_total_by_pass(), "size total");
        self.total
    }

    /// The size total by a pass over the view (what `total` must equal).
    fn size_total_by_pass(&self) -> u64 {
        self.view
            .cands
            .iter()
            .filter(|c| {
                c.compactable
                    && !self.is_error(c)
                    && !self.in_force(c)
                    && !self.s.results[c.result].already_cleared
            })
            .map(|c| self.s.results[c.result].chars)
            .sum()
    }

    /// Clearable (SPEC §3): unprotected, not error, not cleared, chars > 0, not
    /// pending; with `media`, nested media counts as content (idle and forced).
    fn clearable(&self, media: bool) -> Vec<usize> {
        (0..self.view.cands.len())
            .filter(|&p| {
                let c = &self.view.cands[p];
                let r = &self.s.results[c.result];
                c.compactable
                    && !c.protected()
                    && !r.is_error
                    && !self.in_force(c)
                    && !r.already_cleared
                    && (r.chars > 0 || (media && r.media > 0))
                    && !c.pending
            })
            .collect()
    }

    fn rank_text(&self, p: usize) -> String {
        let total = match self.s.harness {
            Harness::Claude => self.view.call_rank.len(),
            Harness::Qwen => self.view.qwen_rank,
        };
        match self.view.cands[p].rank {
            Some(r) => format!("rank {r} of {total}"),
            None => "unranked".into(),
        }
    }

    /// A note in words for a step that reports (a quiet step's goes unread).
    fn note(&self, req: &Request, words: impl FnOnce() -> String) -> String {
        if req.index < self.quiet_before {
            String::new()
        } else {
            words()
        }
    }

    fn evaluate(
        &self,
        req: &Request,
        kind: PlanKind,
        chars_before: u64,
        gap: Option<f64>,
    ) -> Verdict {
        let p = &self.policy;
        let gap_holds = p.gap_holds(gap);
        let runs = (p.preset == Harness::Qwen).then(|| super::send::qwen_runs(req));
        match kind {
            PlanKind::Idle | PlanKind::Auto => {
                if let Some(r) = runs.filter(|r| !r.idle) {
                    return Verdict::none(format!("idle: {}", r.why_none));
                }
                if p.gap_threshold_minutes < 0.0 {
                    return Verdict::none("idle: disabled (negative gap threshold)".into());
                }
                if !gap_holds {
                    return Verdict::none(self.note(req, || {
                        format!(
                            "idle: gap {} < {} min",
                            fmt_gap(gap),
                            fmt_num(p.gap_threshold_minutes)
                        )
                    }));
                }
                let gap = fmt_gap(gap);
                let why = format!(
                    "idle: gap {gap} min >= {}",
                    fmt_num(p.gap_threshold_minutes)
                );
                self.time_based(req, Trigger::Idle, why)
            }
            PlanKind::Forced => {
                if req.index != self.forced_at {
                    return Verdict::none(self.note(req, || {
                        format!("forced: acts at request {} only", self.forced_at)
                    }));
                }
                self.time_based(
                    req,
                    Trigger::Forced,
                    format!("forced at request {}", req.index),
                )
            }
            PlanKind::Size => {
                if let Some(r) = runs.filter(|r| !r.size) {
                    return Verdict::none(format!("size: {}", r.why_none));
                }
                if p.preset == Harness::Qwen && p.gap_threshold_minutes < 0.0 && !p.size_explicit {
                    return Verdict::none(
                        "size: off with idle (negative gap and no size threshold set: Qwen's settings coupling)"
                            .into(),
                    );
                }
                self.size(req, chars_before)
            }
            PlanKind::Count => self.count(req),
            PlanKind::Budget => self.budget(req),
        }
    }

    /// `budget`: past the usage gate, clear the oldest eligible results outside
    /// the last keep_recent eligible calls until the rest fits the budget
    /// (SPEC §5; the walk itself is `budget::decide`).
    fn budget(&self, req: &Request) -> Verdict {
        let p = &self.policy;
        let keep = p.keep_for(PlanKind::Budget);
        let warning = p.budget_warning_at(req);
        let usage = self.view.last_usage;
        // Below the usage gate nothing fires: a step that reports nothing but
        // whether it fired (quiet, or the timeline's) needs no pass over the view.
        if usage.is_none_or(|u| u < warning) && (req.index < self.quiet_before || !self.detail) {
            return Verdict::none(
                self.note(req, || format!("budget: {}", gate_text(usage, warning))),
            );
        }
        let eligible_tool =
            |c: &Candidate| c.compactable && c.tool.as_deref() != Some(budget::NOT_ELIGIBLE_TOOL);
        // Ids out of the plan's reach: protected, or already cleared by it
        // (its memory: a cleared id is no longer collected).
        let gone: HashSet<&str> = self
            .view
            .cands
            .iter()
            .filter(|c| c.protected() || self.in_force(c))
            .map(|c| self.s.results[c.result].id.as_str())
            .collect();
        let ids: Vec<&str> = self
            .view
            .compactable_call_ix
            .iter()
            .map(|&c| &self.s.calls[c])
            .filter(|c| c.name != budget::NOT_ELIGIBLE_TOOL && !gone.contains(c.id.as_str()))
            .map(|c| c.id.as_str())
            .collect();
        let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
            .iter()
            .copied()
            .collect();
        let mut positions = Vec::new();
        let mut items = Vec::new();
        let mut kept = Why::new(self.wants_reasons());
        for (pos, c) in self.view.cands.iter().enumerate() {
            let r = &self.s.results[c.result];
            if !c.compactable || c.protected() || r.already_cleared || self.in_force(c) {
                continue;
            }
            if !eligible_tool(c) {
                kept.add(pos, || {
                    format!(
                        "{} results are never cleared by the budget plan",
                        budget::NOT_ELIGIBLE_TOOL
                    )
                });
                continue;
            }
            if r.is_error && !p.errors_clearable() {
                kept.add(pos, || "error result (clear_errors off)".into());
                continue;
            }
            let in_window = window.contains(r.id.as_str());
            if in_window {
                kept.add(pos, || {
                    format!(
                        "in the last {keep} eligible calls ({})",
                        self.rank_text(pos)
                    )
                });
            }
            positions.push(pos);
            items.push(budget::Item {
                tokens: r.est_tokens,
                in_window,
            });
        }
        let params = budget::Params {
            keep,
            budget_tokens: p.budget_tokens,
            min_saving: p.budget_min_saving,
            warning,
        };
        let d = budget::decide(&items, usage, &params);
        let gate = gate_text(usage, warning);
        let total = if d.pre_tokens > p.budget_tokens {
            format!(
                "{} tokens of results > {}",
                fmt_int(d.pre_tokens),
                fmt_int(p.budget_tokens)
            )
        } else {
            format!(
                "{} tokens of results ≤ {}",
                fmt_int(d.pre_tokens),
                fmt_int(p.budget_tokens)
            )
        };
        let why = format!("budget: {gate}; {total}");
        let walked: HashSet<usize> = d.walk.iter().map(|&i| positions[i]).collect();
        for (i, &pos) in positions.iter().enumerate() {
            if !items[i].in_window && !walked.contains(&pos) {
                kept.add(pos, || {
                    format!(
                        "budget: the rest fits in {} once older results are cleared ({})",
                        fmt_int(p.budget_tokens),
                        self.rank_text(pos)
                    )
                });
            }
        }
        let mut v = match d.failed {
            None => Verdict {
                fired: true,
                trigger: Some(Trigger::Budget),
                clear: d
                    .walk
                    .iter()
                    .map(|&i| {
                        let pos = positions[i];
                        (
                            pos,
                            format!("{why}; {}, not in last {keep}", self.rank_text(pos)),
                        )
                    })
                    .collect(),
                media: Vec::new(),
                strip: Vec::new(),
                media_kept: 0,
                target: None,
                note: format!("{why}; clearing saves {}", fmt_int(d.saved)),
                kept: Why::default(),
                pre_tokens: None,
            },
            Some(failed) => {
                let note = match failed {
                    budget::Failed::NoUsage | budget::Failed::Usage => format!("budget: {gate}"),
                    budget::Failed::WithinBudget => format!("{why}: nothing to clear"),
                    budget::Failed::MinSaving => format!(
                        "{why}, but clearing saves only {} < {} minimum",
                        fmt_int(d.saved),
                        fmt_int(p.budget_min_saving)
                    ),
                };
                Verdict::none(self.note(req, || note))
            }
        };
        if v.fired {
            v.kept = kept;
        }
        v.pre_tokens = Some(d.pre_tokens);
        v
    }

    /// `idle` and `forced`: clear what lies outside the keep window (SPEC §3).
    fn time_based(&self, req: &Request, trigger: Trigger, why: String) -> Verdict {
        let kind = if trigger == Trigger::Forced {
            PlanKind::Forced
        } else {
            PlanKind::Idle
        };
        let keep = self.policy.keep_for(kind);
        let mut clear = Vec::new();
        let mut kept = Why::new(self.wants_reasons());
        match self.policy.preset {
            Harness::Claude => {
                // The window is over call ids (calls without a result included),
                // protected ids removed: collectCompactableToolIds.
                let protected: HashSet<&str> = self
                    .view
                    .cands
                    .iter()
                    .filter(|c| c.protected())
                    .map(|c| self.s.results[c.result].id.as_str())
                    .collect();
                let mut ids: Vec<&str> = Vec::new();
                for &c in &self.view.compactable_calls {
                    if !protected.contains(c) {
                        ids.push(c);
                    }
                }
                let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                    .iter()
                    .copied()
                    .collect();
                for (p, c) in self.view.cands.iter().enumerate() {
                    let r = &self.s.results[c.result];
                    if !c.compactable || c.protected() || r.already_cleared || self.in_force(c) {
                        continue;
                    }
                    if window.contains(r.id.as_str()) {
                        kept.add(p, || {
                            format!(
                                "in the last {keep} compactable calls ({})",
                                self.rank_text(p)
                            )
                        });
                    } else if r.is_error && !self.policy.errors_clearable() {
                        kept.add(p, || "error result (clear_errors off)".into());
                    } else {
                        clear.push((
                            p,
                            format!("{why}; {}, not in last {keep}", self.rank_text(p)),
                        ));
                    }
                }
            }
            Harness::Qwen => {
                // The tool list keeps a slot for a result whose only content is
                // nested media (an image read with output ""): SPEC §5 media.
                let clearable = self.clearable(true);
                let split = clearable.len().saturating_sub(keep);
                for &p in &clearable[split..] {
                    kept.add(p, || {
                        format!(
                            "in the last {keep} clearable results ({})",
                            self.rank_text(p)
                        )
                    });
                }
                for &p in &clearable[..split] {
                    clear.push((
                        p,
                        format!("{why}; {}, not in last {keep} clearable", self.rank_text(p)),
                    ));
                }
                self.explain_unclearable(&mut kept);
            }
        }
        let mut v = Verdict {
            fired: true,
            trigger: Some(trigger),
            clear,
            target: None,
            note: why.clone(),
            kept,
            ..Verdict::none(String::new())
        };
        self.media_to_clear(req, &mut v);
        let tokens: u64 = v
            .clear
            .iter()
            .map(|(p, _)| self.s.results[self.view.cands[*p].result].est_tokens)
            .sum::<u64>()
            + self.media_tokens(&v);
        if tokens == 0 {
            v.fired = false;
            v.trigger = None;
            v.clear.clear();
            v.media.clear();
            v.strip.clear();
            v.note = format!("{why}, but nothing to clear saves tokens");
        }
        v
    }

    /// The tokens of the media a verdict clears or strips (SPEC §2 est_tokens).
    fn media_tokens(&self, v: &Verdict) -> u64 {
        let per = self.s.harness.rules().media_tokens;
        let stripped: u64 = v
            .strip
            .iter()
            .map(|&r| self.s.results[r].media as u64)
            .sum();
        (v.media.len() as u64 + stripped) * per
    }

    /// Qwen's two media lists, each with its own keep window (SPEC §5 media):
    /// top-level media parts, and the nested media of results that are not
    /// compactable (an MCP screenshot). Errors keep their media.
    fn media_to_clear(&self, req: &Request, v: &mut Verdict) {
        if self.policy.preset != Harness::Qwen {
            return;
        }
        let keep = self.policy.keep_for(PlanKind::Idle);
        let live: Vec<usize> = self
            .s
            .media_in(req.view_start, req.end)
            .filter(|&m| !self.media_cleared[m])
            .collect();
        let nested: Vec<usize> = self
            .view
            .cands
            .iter()
            .map(|c| c.result)
            .filter(|&r| {
                !self.view.cands[self.pos_of[r]].compactable
                    && self.s.results[r].media > 0
                    && !self.stripped[r]
            })
            .collect();
        v.media_kept = (live.len() + nested.len()).min(keep);
        v.media = live[..live.len().saturating_sub(keep)].to_vec();
        v.strip = nested[..nested.len().saturating_sub(keep)]
            .iter()
            .copied()
            .filter(|&r| !self.s.results[r].is_error)
            .collect();
    }

    fn explain_unclearable(&self, kept: &mut Why) {
        for (p, c) in self.view.cands.iter().enumerate() {
            let r = &self.s.results[c.result];
            if !c.compactable || kept.contains_key(&p) || self.in_force(c) {
                continue;
            }
            let why = if c.pending {
                "pending: just returned, not yet sent"
            } else if r.is_error {
                "error result: never cleared"
            } else if r.chars == 0 {
                "empty result (0 chars)"
            } else {
                continue;
            };
            kept.add(p, || why.into());
        }
    }

    /// `size`: over the threshold, clear oldest first down to the target (SPEC §5).
    fn size(&self, req: &Request, total: u64) -> Verdict {
        let p = &self.policy;
        if p.size_threshold < 0 {
            return Verdict::none("size: disabled (negative threshold)".into());
        }
        let threshold = p.size_threshold as u64;
        let target = if p.low_watermark {
            threshold / 2
        } else {
            threshold
        };
        if total <= threshold {
            let mut v = Verdict::none(self.note(req, || {
                format!("size: {} chars <= {}", fmt_int(total), fmt_int(threshold))
            }));
            v.target = Some(target);
            return v;
        }
        let keep = p.keep_for(PlanKind::Size);
        let clearable = self.clearable(false);
        let split = clearable.len().saturating_sub(keep);
        let mut kept = Why::new(self.wants_reasons());
        for &q in &clearable[split..] {
            kept.add(q, || {
                format!(
                    "in the last {keep} clearable results ({})",
                    self.rank_text(q)
                )
            });
        }
        let why = format!(
            "size: {} chars > {}; clearing oldest first down to {}",
            fmt_int(total),
            fmt_int(threshold),
            fmt_int(target)
        );
        let mut left = total;
        let mut clear = Vec::new();
        for &q in &clearable[..split] {
            if left <= target {
                kept.add(q, || format!("size target {} reached", fmt_int(target)));
                continue;
            }
            left -= self.s.results[self.view.cands[q].result].chars;
            clear.push((
                q,
                format!(
                    "{why} ({}, not in last {keep} clearable)",
                    self.rank_text(q)
                ),
            ));
        }
        self.explain_unclearable(&mut kept);
        let note = if left > target {
            format!(
                "{why}; overage: only {} chars could go",
                fmt_int(total - left)
            )
        } else {
            why
        };
        Verdict {
            fired: true,
            trigger: Some(Trigger::Size),
            clear,
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: Some(target),
            note,
            kept,
            pre_tokens: None,
        }
    }

    /// The active results (count plan) by a pass over the view, in registration
    /// order (the order the results appear).
    fn active_by_pass(&self) -> Vec<usize> {
        let p = &self.policy;
        let mut active: Vec<usize> = (0..self.view.cands.len())
            .filter(|&q| {
                let c = &self.view.cands[q];
                let r = &self.s.results[c.result];
                c.compactable
                    && !self.in_force(c)
                    && !c.protected()
                    && !r.already_cleared
                    && (!r.is_error || p.errors_clearable())
            })
            .collect();
        active.sort_by_key(|&q| self.view.cands[q].result);
        active
    }

    /// `count`: past the trigger, delete sent results outside the last keep_recent.
    fn count(&self, req: &Request) -> Verdict {
        let p = &self.policy;
        let keep = p.keep_for(PlanKind::Count);
        let trigger = p.trigger_threshold as usize;
        let n = self.active;
        if n <= trigger {
            debug_assert_eq!(n, self.active_by_pass().len(), "active count");
            return Verdict::none(
                self.note(req, || format!("count: {n} active <= trigger {trigger}")),
            );
        }
        // Positions of the active results, in registration order.
        let active: Vec<usize> = self.active_set.iter().map(|&r| self.pos_of[r]).collect();
        debug_assert_eq!(active, self.active_by_pass(), "active results");
        let last_user = last_user_message(self.s, req).filter(|&m| m + 1 == req.end);
        let split = n.saturating_sub(keep);
        let mut kept = Why::new(self.wants_reasons());
        for &q in &active[split..] {
            kept.add(q, || format!("in the last {keep} active results"));
        }
        let why = format!("count: {n} active > trigger {trigger}");
        let mut clear = Vec::new();
        for &q in &active[..split] {
            if Some(self.s.results[self.view.cands[q].result].msg) == last_user {
                kept.add(q, || {
                    "not yet sent: only results already sent can be deleted".into()
                });
            } else {
                clear.push((
                    q,
                    format!(
                        "{why}; {}, not in last {keep}, already sent",
                        self.rank_text(q)
                    ),
                ));
            }
        }
        if clear.is_empty() {
            let mut v = Verdict::none(format!("{why}, but nothing sent can be deleted"));
            v.kept = kept;
            return v;
        }
        Verdict {
            fired: true,
            trigger: Some(Trigger::Count),
            clear,
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note: why,
            kept,
            pre_tokens: None,
        }
    }

    fn finish_statuses(&mut self, req: &Request, v: &Verdict) {
        let qwen = self.policy.preset == Harness::Qwen;
        for p in 0..self.view.cands.len() {
            let c = &self.view.cands[p];
            let r = &self.s.results[c.result];
            let clearing = self.cleared[c.result].as_ref();
            let status = if !c.compactable {
                Status::NotCompactable
            } else if r.already_cleared {
                Status::AlreadyCleared
            } else if c.protected() {
                Status::Protected
            } else if clearing.is_some() {
                Status::Cleared
            } else if qwen && r.is_error {
                Status::ErrorKept
            } else {
                Status::Kept
            };
            let reason = if self.wants_reasons() {
                self.reason(p, status, req, v)
            } else {
                String::new()
            };
            let cleared_at = clearing.map(|c| c.at).filter(|_| status == Status::Cleared);
            let c = &mut self.view.cands[p];
            c.status = status;
            c.reason = reason;
            c.cleared_at = cleared_at;
        }
    }

    /// The reason for a candidate's status, in words.
    fn reason(&self, p: usize, status: Status, req: &Request, v: &Verdict) -> String {
        let c = &self.view.cands[p];
        let mut reason = match status {
            Status::NotCompactable => match &c.tool {
                Some(t) => format!("{t} results are not compactable"),
                None => "no tool call with this id in the view".into(),
            },
            Status::AlreadyCleared => "already cleared in the transcript".into(),
            Status::Protected => protection_text(c.protection.as_ref()),
            Status::Cleared => match self.cleared[c.result].as_ref() {
                Some(cl) if cl.at == req.index => cl.reason.clone(),
                Some(cl) => format!("cleared at request {}: {}", cl.at, cl.reason),
                None => String::new(),
            },
            Status::ErrorKept => "error result: qwen never clears errors".into(),
            Status::Kept => v.kept.get(&p).cloned().unwrap_or_else(|| {
                if v.fired {
                    format!("kept: {}", v.note)
                } else {
                    format!("no plan fired: {}", v.note)
                }
            }),
        };
        if let Some(pr) = &c.protection
            && !pr.outcome.protects()
        {
            reason.push_str("; ");
            reason.push_str(&protection_text(Some(pr)));
        }
        reason
    }
}

/// The tool a bridged response answers: the one tool that every call with its id
/// names. No call, calls that disagree, or an unparseable one: none (fail closed).
fn bridged_tool<'s>(s: &'s Session, calls: &[usize]) -> Option<&'s str> {
    let first = &s.calls[*calls.first()?];
    let agree = calls
        .iter()
        .all(|&c| !s.calls[c].unparseable && s.calls[c].name == first.name);
    agree.then_some(first.name.as_str())
}

/// The budget plan's usage gate in words.
fn gate_text(usage: Option<u64>, warning: u64) -> String {
    match usage {
        Some(u) if u >= warning => format!("usage {} ≥ {}", fmt_int(u), fmt_int(warning)),
        Some(u) => format!("usage {} < {}", fmt_int(u), fmt_int(warning)),
        None => format!("no recorded usage in the view (gate {})", fmt_int(warning)),
    }
}

/// The last user message of a request's view (where new edits and pending results are).
pub fn last_user_message(s: &Session, req: &Request) -> Option<usize> {
    (req.view_start..req.end)
        .rev()
        .find(|&m| s.messages[m].role == Role::User)
}

pub fn protection_text(p: Option<&Protection>) -> String {
    let Some(p) = p else {
        return "protection off".into();
    };
    let root = p.root.map(|r| r.name()).unwrap_or("?");
    let resolved = p.resolved.as_deref().unwrap_or("?");
    match p.outcome {
        Outcome::Protected => format!("protected: inside the {root} memory root ({resolved})"),
        Outcome::Unverified => {
            format!("protected, unverified: the {root} root does not exist here; decided lexically")
        }
        Outcome::SymlinkEscape => {
            format!("symlink escape: inside the {root} root by name, resolves to {resolved}")
        }
        Outcome::Outside => format!("outside every memory root ({resolved})"),
        Outcome::UnresolvedId => "unresolved id: no file path recorded for this id".into(),
        Outcome::AmbiguousId => "ambiguous id: several paths recorded for this id".into(),
    }
}

pub fn fmt_gap(g: Option<f64>) -> String {
    g.map(fmt_num).unwrap_or_else(|| "none".into())
}

/// A number with at most two decimals, trailing zeros dropped.
pub fn fmt_num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
