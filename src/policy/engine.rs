//! The timeline: one pass over the requests, evaluating the plan at each and
//! carrying the clearings still in force (SPEC §5 persistence).

use super::protect::{Outcome, Protection, Protector, RecordedPath};
use super::{Delivery, PlanKind, Policy, Tools};
use crate::session::{Harness, Request, Role, Session};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

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
}

impl Trigger {
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Idle => "idle",
            Trigger::Forced => "forced",
            Trigger::Size => "size",
            Trigger::Count => "count",
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
    pub fired: bool,
    pub trigger: Option<Trigger>,
    /// Result indices newly cleared here, in rank order.
    pub newly_cleared: Vec<usize>,
    /// Result indices cleared in this request's wire (in force), in rank order.
    pub cleared: Vec<usize>,
    pub tokens_saved: u64,
    pub chars_before: u64,
    pub chars_after: u64,
    pub target_chars: Option<u64>,
    pub media_cleared: usize,
    pub media_kept: usize,
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
    target: Option<u64>,
    note: String,
    /// Why particular candidates stay (in the window, pending, …).
    kept: HashMap<usize, String>,
}

impl Verdict {
    fn none(note: String) -> Verdict {
        Verdict {
            fired: false,
            trigger: None,
            clear: Vec::new(),
            media: Vec::new(),
            target: None,
            note,
            kept: HashMap::new(),
        }
    }
}

pub struct Engine<'s> {
    s: &'s Session,
    policy: Policy,
    tools: Tools,
    protector: Protector,
    /// The request `forced` acts at (the viewed request K).
    forced_at: usize,
    next: usize,
    segment: usize,
    cleared: Vec<Option<Clearing>>,
    media_cleared: Vec<bool>,
    edits: Vec<EditBlock>,
    candidates: Vec<Candidate>,
}

impl<'s> Engine<'s> {
    pub fn new(s: &'s Session, policy: Policy, protector: Protector, forced_at: usize) -> Self {
        Engine {
            s,
            tools: Tools::of(s.harness),
            policy,
            protector,
            forced_at,
            next: 1,
            segment: 0,
            cleared: vec![None; s.results.len()],
            media_cleared: vec![false; s.media.len()],
            edits: Vec::new(),
            candidates: Vec::new(),
        }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The candidates of the last evaluated request, in rank order.
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// The `cache_edits` blocks sent up to the last evaluated request.
    pub fn edits(&self) -> &[EditBlock] {
        &self.edits
    }

    /// Whether result `r` is cleared in the last evaluated request's wire.
    pub fn is_cleared(&self, r: usize) -> bool {
        self.cleared.get(r).is_some_and(Option::is_some)
    }

    pub fn clearing(&self, r: usize) -> Option<&Clearing> {
        self.cleared.get(r).and_then(Option::as_ref)
    }

    pub fn media_is_cleared(&self, m: usize) -> bool {
        self.media_cleared.get(m).copied().unwrap_or(false)
    }

    /// Evaluates the next request; None after the last.
    pub fn step(&mut self) -> Option<Step> {
        let req = self.s.requests.get(self.next - 1)?;
        self.next += 1;
        if req.segment != self.segment {
            // Nothing planned before a compaction boundary carries over it.
            self.segment = req.segment;
            self.cleared.iter_mut().for_each(|c| *c = None);
            self.media_cleared.iter_mut().for_each(|c| *c = false);
            self.edits.clear();
        }
        // Claude rewrites only the request: at a new turn the originals go out
        // again. Count deletions are cumulative within the view (SPEC §5).
        if self.policy.preset == Harness::Claude
            && req.begins_turn
            && self.policy.kind != PlanKind::Count
        {
            self.cleared.iter_mut().for_each(|c| *c = None);
        }
        self.candidates = self.build_candidates(req);
        let chars_before = self.size_total();
        let verdict = self.evaluate(req, chars_before);
        let trigger = verdict.trigger.unwrap_or(Trigger::Idle);
        let mut newly: Vec<usize> = Vec::new();
        for (pos, reason) in &verdict.clear {
            let r = self.candidates[*pos].result;
            self.cleared[r] = Some(Clearing {
                at: req.index,
                trigger,
                reason: reason.clone(),
            });
            newly.push(*pos);
        }
        for &m in &verdict.media {
            self.media_cleared[m] = true;
        }
        newly.sort_unstable();
        if self.policy.delivery == Delivery::CacheEdits
            && !newly.is_empty()
            && let Some(msg) = last_user_message(self.s, req)
        {
            self.edits.push(EditBlock {
                at: req.index,
                msg,
                results: newly.iter().map(|&p| self.candidates[p].result).collect(),
            });
        }
        self.finish_statuses(req, &verdict);
        let chars_after = self.size_total();
        let media = self.s.media_in(req.view_start, req.end);
        let media_kept = media.clone().filter(|&m| !self.media_cleared[m]).count();
        Some(Step {
            index: req.index,
            fired: verdict.fired,
            trigger: verdict.trigger,
            tokens_saved: newly
                .iter()
                .map(|&p| self.s.results[self.candidates[p].result].est_tokens)
                .sum::<u64>()
                + verdict.media.len() as u64 * crate::load::QWEN_MEDIA_TOKENS,
            newly_cleared: newly.iter().map(|&p| self.candidates[p].result).collect(),
            cleared: self
                .candidates
                .iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| c.result)
                .collect(),
            chars_before,
            chars_after,
            target_chars: verdict.target,
            media_cleared: verdict.media.len(),
            media_kept,
            note: verdict.note,
        })
    }

    /// Runs to request `k` (1-based) and returns its step.
    pub fn run_to(&mut self, k: usize) -> Option<Step> {
        let mut last = None;
        while self.next <= k {
            last = Some(self.step()?);
        }
        last
    }

    fn build_candidates(&self, req: &Request) -> Vec<Candidate> {
        let s = self.s;
        let calls = s.calls_in(req.view_start, req.end);
        let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
        // Rank: the call's position among the view's compactable calls.
        let mut call_rank: HashMap<usize, usize> = HashMap::new();
        for c in calls.clone() {
            let call = &s.calls[c];
            by_id.entry(call.id.as_str()).or_default().push(c);
            if self.tools.is_compactable(&call.name) {
                let n = call_rank.len() + 1;
                call_rank.insert(c, n);
            }
        }
        let last_user = last_user_message(s, req).filter(|&m| m + 1 == req.end);
        let mut out = Vec::new();
        let mut qwen_rank = 0;
        let mut keys = Vec::new();
        for r in s.results_in(req.view_start, req.end) {
            let res = &s.results[r];
            let ids = by_id.get(res.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
            // A reused id: the result answers the latest call with its id before it.
            let own_call = ids
                .iter()
                .rev()
                .find(|&&c| s.calls[c].msg < res.msg)
                .or(ids.first())
                .copied();
            let tool = match s.harness {
                Harness::Claude => own_call.map(|c| s.calls[c].name.clone()),
                Harness::Qwen => res
                    .name
                    .clone()
                    .or_else(|| own_call.map(|c| s.calls[c].name.clone())),
            };
            let compactable = tool
                .as_deref()
                .is_some_and(|t| self.tools.is_compactable(t));
            let file_path_tool = tool
                .as_deref()
                .is_some_and(|t| self.tools.is_file_path_tool(t));
            let paths: Vec<RecordedPath> = ids
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
            let first_call = own_call.map(|c| &s.calls[c]);
            let rank = match (compactable, s.harness) {
                (false, _) => None,
                (true, Harness::Claude) => own_call.and_then(|c| call_rank.get(&c).copied()),
                (true, Harness::Qwen) => {
                    qwen_rank += 1;
                    Some(qwen_rank)
                }
            };
            let protection =
                (self.policy.protect && tool.as_deref() == Some(self.tools.read) && !res.is_error)
                    .then(|| self.protector.decide(&paths));
            // Sort key: the call's place in the view (rank order), else the result's.
            let key = match (s.harness, own_call) {
                (Harness::Claude, Some(c)) => (c, r),
                (Harness::Claude, None) => (s.calls.partition_point(|c| c.msg < res.msg), r),
                (Harness::Qwen, _) => (r, r),
            };
            keys.push(key);
            out.push(Candidate {
                result: r,
                path: paths.first().map(|p| p.path.clone()).or_else(|| {
                    first_call.and_then(|c| c.file_path.clone().or(c.legacy_path.clone()))
                }),
                summary: first_call.and_then(|c| c.summary.clone()),
                tool,
                compactable,
                rank,
                paths,
                file_path_tool,
                protection,
                pending: !req.begins_turn && Some(res.msg) == last_user,
                status: Status::Kept,
                reason: String::new(),
                cleared_at: None,
            });
        }
        let mut order: Vec<usize> = (0..out.len()).collect();
        order.sort_by_key(|&i| keys[i]);
        let mut slots: Vec<Option<Candidate>> = out.into_iter().map(Some).collect();
        order.into_iter().filter_map(|i| slots[i].take()).collect()
    }

    fn in_force(&self, c: &Candidate) -> bool {
        self.cleared[c.result].is_some()
    }

    fn is_error(&self, c: &Candidate) -> bool {
        self.s.results[c.result].is_error
    }

    /// The size total (SPEC §5): compactable, non-error, not cleared results.
    fn size_total(&self) -> u64 {
        self.candidates
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

    /// Clearable (SPEC §3): unprotected, not error, not cleared, chars > 0, not pending.
    fn clearable(&self) -> Vec<usize> {
        (0..self.candidates.len())
            .filter(|&p| {
                let c = &self.candidates[p];
                let r = &self.s.results[c.result];
                c.compactable
                    && !c.protected()
                    && !r.is_error
                    && !self.in_force(c)
                    && !r.already_cleared
                    && r.chars > 0
                    && !c.pending
            })
            .collect()
    }

    fn rank_text(&self, p: usize) -> String {
        let total = self
            .candidates
            .iter()
            .filter_map(|c| c.rank)
            .max()
            .unwrap_or(0);
        match self.candidates[p].rank {
            Some(r) => format!("rank {r} of {total}"),
            None => "unranked".into(),
        }
    }

    fn evaluate(&self, req: &Request, chars_before: u64) -> Verdict {
        let p = &self.policy;
        let gap_holds = p.gap_threshold_minutes >= 0.0
            && req
                .gap_minutes
                .is_some_and(|g| g >= p.gap_threshold_minutes);
        let kind = match (p.kind, p.preset) {
            (PlanKind::Auto, Harness::Claude) => PlanKind::Idle,
            (PlanKind::Auto, Harness::Qwen) if req.begins_turn && gap_holds => PlanKind::Idle,
            (PlanKind::Auto, Harness::Qwen) => PlanKind::Size,
            (k, _) => k,
        };
        match kind {
            PlanKind::Idle | PlanKind::Auto => {
                if p.preset == Harness::Qwen && !req.begins_turn {
                    return Verdict::none(
                        "idle: qwen looks at the gap only when a turn begins".into(),
                    );
                }
                let gap = fmt_gap(req.gap_minutes);
                if p.gap_threshold_minutes < 0.0 {
                    return Verdict::none("idle: disabled (negative gap threshold)".into());
                }
                if !gap_holds {
                    return Verdict::none(format!(
                        "idle: gap {gap} < {} min",
                        fmt_num(p.gap_threshold_minutes)
                    ));
                }
                let why = format!(
                    "idle: gap {gap} min >= {}",
                    fmt_num(p.gap_threshold_minutes)
                );
                self.time_based(req, Trigger::Idle, why)
            }
            PlanKind::Forced => {
                if req.index != self.forced_at {
                    return Verdict::none(format!(
                        "forced: acts at request {} only",
                        self.forced_at
                    ));
                }
                self.time_based(
                    req,
                    Trigger::Forced,
                    format!("forced at request {}", req.index),
                )
            }
            PlanKind::Size => self.size(chars_before),
            PlanKind::Count => self.count(req),
        }
    }

    /// `idle` and `forced`: clear what lies outside the keep window (SPEC §3).
    fn time_based(&self, req: &Request, trigger: Trigger, why: String) -> Verdict {
        let keep = self.policy.keep();
        let mut clear = Vec::new();
        let mut kept = HashMap::new();
        match self.policy.preset {
            Harness::Claude => {
                // The window is over call ids (calls without a result included),
                // protected ids removed: collectCompactableToolIds.
                let protected: HashSet<&str> = self
                    .candidates
                    .iter()
                    .filter(|c| c.protected())
                    .map(|c| self.s.results[c.result].id.as_str())
                    .collect();
                let mut ids: Vec<&str> = Vec::new();
                for c in self.compactable_calls(req) {
                    if !protected.contains(c) {
                        ids.push(c);
                    }
                }
                let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                    .iter()
                    .copied()
                    .collect();
                for (p, c) in self.candidates.iter().enumerate() {
                    let r = &self.s.results[c.result];
                    if !c.compactable || c.protected() || r.already_cleared || self.in_force(c) {
                        continue;
                    }
                    if window.contains(r.id.as_str()) {
                        kept.insert(
                            p,
                            format!(
                                "in the last {keep} compactable calls ({})",
                                self.rank_text(p)
                            ),
                        );
                    } else if r.is_error && !self.policy.errors_clearable() {
                        kept.insert(p, "error result (clear_errors off)".into());
                    } else {
                        clear.push((
                            p,
                            format!("{why}; {}, not in last {keep}", self.rank_text(p)),
                        ));
                    }
                }
            }
            Harness::Qwen => {
                let clearable = self.clearable();
                let split = clearable.len().saturating_sub(keep);
                for &p in &clearable[split..] {
                    kept.insert(
                        p,
                        format!(
                            "in the last {keep} clearable results ({})",
                            self.rank_text(p)
                        ),
                    );
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
        let media = self.media_to_clear(req);
        let tokens: u64 = clear
            .iter()
            .map(|(p, _)| self.s.results[self.candidates[*p].result].est_tokens)
            .sum::<u64>()
            + media.len() as u64 * crate::load::QWEN_MEDIA_TOKENS;
        if tokens == 0 {
            let mut v = Verdict::none(format!(
                "{}: {why}, but nothing to clear saves tokens",
                trigger.name()
            ));
            v.kept = kept;
            return v;
        }
        Verdict {
            fired: true,
            trigger: Some(trigger),
            clear,
            media,
            target: None,
            note: why,
            kept,
        }
    }

    /// Qwen's separate keep window for top-level inline media.
    fn media_to_clear(&self, req: &Request) -> Vec<usize> {
        if self.policy.preset != Harness::Qwen {
            return Vec::new();
        }
        let live: Vec<usize> = self
            .s
            .media_in(req.view_start, req.end)
            .filter(|&m| !self.media_cleared[m])
            .collect();
        let split = live.len().saturating_sub(self.policy.keep());
        live[..split].to_vec()
    }

    fn compactable_calls(&self, req: &Request) -> Vec<&str> {
        self.s
            .calls_in(req.view_start, req.end)
            .map(|c| &self.s.calls[c])
            .filter(|c| self.tools.is_compactable(&c.name))
            .map(|c| c.id.as_str())
            .collect()
    }

    fn explain_unclearable(&self, kept: &mut HashMap<usize, String>) {
        for (p, c) in self.candidates.iter().enumerate() {
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
            kept.insert(p, why.into());
        }
    }

    /// `size`: over the threshold, clear oldest first down to the target (SPEC §5).
    fn size(&self, total: u64) -> Verdict {
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
            let mut v = Verdict::none(format!(
                "size: {} chars <= {}",
                fmt_int(total),
                fmt_int(threshold)
            ));
            v.target = Some(target);
            return v;
        }
        let keep = p.keep();
        let clearable = self.clearable();
        let split = clearable.len().saturating_sub(keep);
        let mut kept = HashMap::new();
        for &q in &clearable[split..] {
            kept.insert(
                q,
                format!(
                    "in the last {keep} clearable results ({})",
                    self.rank_text(q)
                ),
            );
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
                kept.insert(q, format!("size target {} reached", fmt_int(target)));
                continue;
            }
            left -= self.s.results[self.candidates[q].result].chars;
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
            target: Some(target),
            note,
            kept,
        }
    }

    /// `count`: past the trigger, delete sent results outside the last keep_recent.
    fn count(&self, req: &Request) -> Verdict {
        let p = &self.policy;
        let keep = p.keep();
        let mut active: Vec<usize> = (0..self.candidates.len())
            .filter(|&q| {
                let c = &self.candidates[q];
                let r = &self.s.results[c.result];
                c.compactable
                    && !self.in_force(c)
                    && !c.protected()
                    && !r.already_cleared
                    && (!r.is_error || p.errors_clearable())
            })
            .collect();
        // Registration order: the order the results appear.
        active.sort_by_key(|&q| self.candidates[q].result);
        let n = active.len();
        let trigger = p.trigger_threshold as usize;
        if n <= trigger {
            return Verdict::none(format!("count: {n} active <= trigger {trigger}"));
        }
        let last_user = last_user_message(self.s, req).filter(|&m| m + 1 == req.end);
        let split = n.saturating_sub(keep);
        let mut kept = HashMap::new();
        for &q in &active[split..] {
            kept.insert(q, format!("in the last {keep} active results"));
        }
        let why = format!("count: {n} active > trigger {trigger}");
        let mut clear = Vec::new();
        for &q in &active[..split] {
            if Some(self.s.results[self.candidates[q].result].msg) == last_user {
                kept.insert(
                    q,
                    "not yet sent: only results already sent can be deleted".into(),
                );
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
            target: None,
            note: why,
            kept,
        }
    }

    fn finish_statuses(&mut self, req: &Request, v: &Verdict) {
        let qwen = self.policy.preset == Harness::Qwen;
        for p in 0..self.candidates.len() {
            let c = &self.candidates[p];
            let r = &self.s.results[c.result];
            let clearing = self.cleared[c.result].as_ref();
            let (status, mut reason) = if !c.compactable {
                let why = match &c.tool {
                    Some(t) => format!("{t} results are not compactable"),
                    None => "no tool call with this id in the view".into(),
                };
                (Status::NotCompactable, why)
            } else if r.already_cleared {
                (
                    Status::AlreadyCleared,
                    "already cleared in the transcript".to_string(),
                )
            } else if c.protected() {
                (Status::Protected, protection_text(c.protection.as_ref()))
            } else if let Some(cl) = clearing {
                let reason = if cl.at == req.index {
                    cl.reason.clone()
                } else {
                    format!("cleared at request {}: {}", cl.at, cl.reason)
                };
                (Status::Cleared, reason)
            } else if qwen && r.is_error {
                (
                    Status::ErrorKept,
                    "error result: qwen never clears errors".into(),
                )
            } else {
                let why = v.kept.get(&p).cloned().unwrap_or_else(|| {
                    if v.fired {
                        format!("kept: {}", v.note)
                    } else {
                        format!("no plan fired: {}", v.note)
                    }
                });
                (Status::Kept, why)
            };
            if let Some(pr) = &c.protection
                && !pr.outcome.protects()
            {
                reason.push_str("; ");
                reason.push_str(&protection_text(Some(pr)));
            }
            let cleared_at = clearing.map(|c| c.at);
            let c = &mut self.candidates[p];
            c.status = status;
            c.reason = reason;
            c.cleared_at = if status == Status::Cleared {
                cleared_at
            } else {
                None
            };
        }
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
