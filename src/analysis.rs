//! The questions both the CLI and the TUI ask of a session: the plan at a request,
//! the timeline, the fate of one result, the wire of a request. Plain functions.

use crate::policy::engine::{Candidate, EditBlock, Engine, Status, Step};
use crate::policy::protect::{PathMap, Protector, RootKind};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::{Harness, Request, Session};
use crate::wire::{self, Clearings, Side};
use std::collections::HashSet;
use std::path::PathBuf;

/// A loaded session with the parameters to plan it with. Cloning shares the
/// session (a background job can plan it while the TUI goes on).
#[derive(Debug, Clone)]
pub struct Setup {
    pub session: std::sync::Arc<Session>,
    pub policy: Policy,
    pub roots: Vec<(RootKind, PathBuf)>,
    pub path_map: PathMap,
}

impl Setup {
    pub fn protector(&self) -> Protector {
        Protector::new(&self.roots, self.path_map.clone())
    }

    /// An engine whose `forced` plan acts at request `k`.
    pub fn engine(&self, k: usize) -> Engine<'_> {
        Engine::new(&self.session, self.policy.clone(), self.protector(), k)
    }

    /// An engine for request `k` that starts at the first request of k's view:
    /// nothing planned before a compaction boundary carries over it, so the
    /// requests before it need not be evaluated.
    pub fn engine_for(&self, k: usize) -> Engine<'_> {
        let s = &self.session;
        let segment = s.request(k).map(|r| r.segment);
        let mut first = s.requests.partition_point(|r| Some(r.segment) < segment) + 1;
        // Claude's clearings (but count's and budget's) all lapse at a request
        // that begins a turn: the last such request before k is as good a start
        // (k - 1 is still evaluated, for the cache-break comparison).
        let all_lapse = match self.policy.kind {
            PlanKind::Count | PlanKind::Budget => false,
            // auto runs budget by version: one version string is read once.
            PlanKind::Auto => {
                let mut last: Option<(Option<&str>, bool)> = None;
                s.requests[first - 1..k.min(s.requests.len())]
                    .iter()
                    .all(|r| match last {
                        Some((v, lapses)) if v == r.version.as_deref() => lapses,
                        _ => {
                            let lapses = self.policy.kind_at(r) != PlanKind::Budget;
                            last = Some((r.version.as_deref(), lapses));
                            lapses
                        }
                    })
            }
            _ => true,
        };
        if self.policy.preset == crate::session::Harness::Claude
            && all_lapse
            && let Some(turn) = (first..k).rev().find(|&i| s.requests[i - 1].begins_turn)
        {
            first = turn;
        }
        self.engine(k).starting_at(first).reasons_at(k)
    }

    /// The plan kinds in force over the session's requests (what `auto` chose at
    /// each, or the kind asked for), each once, in `PlanKind::ALL` order.
    pub fn kinds_chosen(&self) -> Vec<PlanKind> {
        if self.policy.kind != PlanKind::Auto {
            return vec![self.policy.kind];
        }
        let mut seen = [false; PlanKind::ALL.len()];
        for r in &self.session.requests {
            let k = self.policy.kind_at(r);
            seen[PlanKind::ALL.iter().position(|&x| x == k).unwrap_or(0)] = true;
        }
        PlanKind::ALL
            .into_iter()
            .zip(seen)
            .filter_map(|(k, on)| on.then_some(k))
            .collect()
    }

    pub fn last_request(&self) -> usize {
        self.session.requests.len()
    }
}

/// Cache effects of a request's wire (SPEC §6).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CacheEffect {
    /// `rewrite`: the first message whose content differs from what the previous
    /// request sent for it (where the cached prefix stops matching).
    pub prefix_broken_at_message: Option<usize>,
    pub tokens_after_break: u64,
    /// `cache-edits`: the ids deleted by this request's new block.
    pub cache_edits_deleted: Vec<String>,
}

/// The plan at one request, with everything the report shows.
#[derive(Debug, Clone)]
pub struct PlanAt {
    pub request: Request,
    pub step: Step,
    pub candidates: Vec<Candidate>,
    pub cache: CacheEffect,
    pub evicted_read_paths: Vec<String>,
    pub unresolved_evicted_reads: usize,
}

impl PlanAt {
    /// The plan of a session without requests: nothing to send, nothing cleared.
    pub fn empty() -> PlanAt {
        PlanAt {
            request: Request {
                index: 0,
                response: None,
                view_start: 0,
                end: 0,
                segment: 0,
                at: None,
                now_ms: None,
                gap_minutes: None,
                begins_turn: true,
                version: None,
            },
            step: Step {
                index: 0,
                kind: PlanKind::Auto,
                fired: false,
                trigger: None,
                newly_cleared: Vec::new(),
                cleared: Vec::new(),
                tokens_saved: 0,
                chars_before: 0,
                chars_after: 0,
                target_chars: None,
                media_cleared: 0,
                media_kept: 0,
                pre_tokens: None,
                note: "the session has no requests".into(),
            },
            candidates: Vec::new(),
            cache: CacheEffect::default(),
            evicted_read_paths: Vec::new(),
            unresolved_evicted_reads: 0,
        }
    }

    pub fn ids_with(&self, s: &Session, status: Status) -> Vec<String> {
        self.candidates
            .iter()
            .filter(|c| c.status == status)
            .map(|c| s.results[c.result].id.clone())
            .collect()
    }
}

/// The plan at request `k` (1-based; `forced` acts there).
pub fn plan_at(setup: &Setup, k: usize) -> std::io::Result<PlanAt> {
    if k == 0 {
        return Ok(PlanAt::empty());
    }
    let (mut plan, inputs) = plan_and_inputs(setup, k)?;
    if plan.cache.prefix_broken_at_message.is_some() {
        let body = inputs.body(&setup.session, Side::Wire)?;
        plan.fill_tokens(&body);
    }
    Ok(plan)
}

impl PlanAt {
    /// `tokens_after_break` from the wire body of this request: the one part of
    /// a plan that needs the records read back (the TUI does it off its thread).
    pub fn fill_tokens(&mut self, wire_body: &serde_json::Value) {
        if let Some(at) = self.cache.prefix_broken_at_message {
            self.cache.tokens_after_break = wire::tokens_from(wire_body, at);
        }
    }
}

/// What the wire of one request needs from its plan, owned: it can be built
/// later, or on another thread, without the engine.
#[derive(Debug, Clone)]
pub struct WireInputs {
    pub request: Request,
    pub delivery: Delivery,
    /// Results (indices into `Session::results`) cleared in this request's wire.
    pub cleared: HashSet<usize>,
    /// Qwen inline media cleared in this request's wire.
    pub media_cleared: HashSet<usize>,
    pub edits: Vec<EditBlock>,
    pub drop_thoughts: bool,
}

impl WireInputs {
    /// The inputs of request 0 (a session without requests): nothing to send.
    pub fn empty(delivery: Delivery) -> WireInputs {
        WireInputs {
            request: PlanAt::empty().request,
            delivery,
            cleared: HashSet::new(),
            media_cleared: HashSet::new(),
            edits: Vec::new(),
            drop_thoughts: false,
        }
    }

    /// The engine's state at `request`, taken out of it.
    fn of(setup: &Setup, engine: &Engine<'_>, request: &Request) -> WireInputs {
        let s = &setup.session;
        let fired_forced = setup.policy.kind == PlanKind::Forced
            && engine
                .candidates()
                .iter()
                .any(|c| c.cleared_at == Some(request.index));
        WireInputs {
            request: request.clone(),
            delivery: setup.policy.delivery,
            cleared: s
                .results_in(request.view_start, request.end)
                .filter(|&r| engine.is_cleared(r))
                .collect(),
            media_cleared: s
                .media_in(request.view_start, request.end)
                .filter(|&m| engine.media_is_cleared(m))
                .collect(),
            edits: engine.edits().to_vec(),
            drop_thoughts: fired_forced,
        }
    }

    fn with_clearings<T>(&self, f: impl FnOnce(&Clearings<'_>) -> T) -> T {
        let result_cleared = |r: usize| self.cleared.contains(&r);
        let media_cleared = |m: usize| self.media_cleared.contains(&m);
        f(&Clearings {
            delivery: self.delivery,
            result_cleared: &result_cleared,
            media_cleared: &media_cleared,
            edits: &self.edits,
            drop_thoughts: self.drop_thoughts,
        })
    }

    /// The body as sent (`Side::Wire`) or as recorded (`Side::Local`).
    pub fn body(&self, s: &Session, side: Side) -> std::io::Result<serde_json::Value> {
        self.with_clearings(|c| wire::build(s, &self.request, side, c))
    }
}

impl WireInputs {
    /// Both bodies printed as pretty JSON, and the wire's estimated tokens from
    /// message `from` (`tokens_after_break` when the cache prefix breaks there).
    pub fn print(
        &self,
        s: &Session,
        cache: &mut wire::MessageCache,
        from: Option<usize>,
    ) -> std::io::Result<(String, String, Option<u64>)> {
        self.with_clearings(|c| wire::print_both(s, &self.request, c, cache, from))
    }
}

/// The plan at `k` (k >= 1), all but `tokens_after_break` (which needs the wire
/// body: see `PlanAt::fill_tokens`), and what its wire needs.
pub fn plan_and_inputs(setup: &Setup, k: usize) -> std::io::Result<(PlanAt, WireInputs)> {
    if k == 0 {
        return Ok((PlanAt::empty(), WireInputs::empty(setup.policy.delivery)));
    }
    let s = &setup.session;
    let mut engine = setup.engine_for(k);
    let prev = if k > 1 { engine.run_to(k - 1) } else { None };
    let prev_cleared: Option<HashSet<usize>> = prev
        .filter(|_| s.requests[k - 2].segment == s.requests[k - 1].segment)
        .map(|p| p.cleared.into_iter().collect());
    let step = engine
        .step()
        .ok_or_else(|| std::io::Error::other("no such request"))?;
    let request = s.requests[k - 1].clone();
    let candidates = engine.candidates().to_vec();
    let newly: HashSet<usize> = step.newly_cleared.iter().copied().collect();

    let mut cache = CacheEffect::default();
    if setup.policy.delivery == Delivery::CacheEdits && s.harness == Harness::Claude {
        cache.cache_edits_deleted = engine
            .edits()
            .iter()
            .filter(|e| e.at == k)
            .flat_map(|e| e.results.iter().map(|&r| s.results[r].id.clone()))
            .collect();
    } else {
        let now: HashSet<usize> = step.cleared.iter().copied().collect();
        let before = prev_cleared.unwrap_or_default();
        let changed = now.symmetric_difference(&before);
        let first = changed.map(|&r| s.results[r].msg).min();
        if let Some(msg) = first.filter(|&m| m >= request.view_start) {
            cache.prefix_broken_at_message = Some(msg - request.view_start);
        }
    }

    // Paths still vouched for by a result that stays in the wire with one path
    // (only looked at when a read was evicted here).
    let evicted_reads = candidates
        .iter()
        .any(|c| newly.contains(&c.result) && c.file_path_tool && !c.paths.is_empty());
    let vouched: HashSet<String> = candidates
        .iter()
        .filter(|_| evicted_reads)
        .filter(|c| {
            matches!(
                c.status,
                Status::Kept | Status::Protected | Status::ErrorKept
            )
        })
        .filter(|c| c.paths.len() == 1)
        .map(|c| abs_path(&c.paths[0]))
        .collect();
    let mut evicted_read_paths = Vec::new();
    let mut listed: HashSet<String> = HashSet::new();
    let mut unresolved_evicted_reads = 0;
    for c in candidates
        .iter()
        .filter(|c| newly.contains(&c.result) && c.file_path_tool)
    {
        if c.paths.is_empty() {
            unresolved_evicted_reads += 1;
        }
        for p in &c.paths {
            let p = abs_path(p);
            if !vouched.contains(&p) && listed.insert(p.clone()) {
                evicted_read_paths.push(p);
            }
        }
    }
    let inputs = WireInputs::of(setup, &engine, &request);
    let plan = PlanAt {
        request,
        step,
        candidates,
        cache,
        evicted_read_paths,
        unresolved_evicted_reads,
    };
    Ok((plan, inputs))
}

fn abs_path(p: &crate::policy::protect::RecordedPath) -> String {
    crate::policy::protect::absolutize(&p.path, p.cwd.as_deref())
        .display()
        .to_string()
}

/// One step per request; `forced` acts at request `forced_at`.
pub fn timeline(setup: &Setup, forced_at: usize) -> Vec<Step> {
    timeline_steps(setup, forced_at).collect()
}

/// The timeline's steps one at a time (no reasons in words: it prints none).
pub fn timeline_steps(setup: &Setup, forced_at: usize) -> impl Iterator<Item = Step> + '_ {
    let mut engine = setup.engine(forced_at).without_reasons();
    std::iter::from_fn(move || engine.step())
}

/// Whether a plan fired at each request, and nothing else: each step carries the
/// state only, so this costs little more than the clearings themselves.
pub fn fired_marks(setup: &Setup, forced_at: usize) -> impl Iterator<Item = bool> + '_ {
    let mut engine = setup.engine(forced_at).only_fired();
    std::iter::from_fn(move || engine.step().map(|s| s.fired))
}

/// The fate of the result(s) with one id at every request whose view holds it.
#[derive(Debug, Clone)]
pub struct Explain {
    pub tool_use_id: String,
    pub tool: Option<String>,
    pub path: Option<String>,
    pub first_cleared_at: Option<usize>,
    pub rows: Vec<ExplainRow>,
}

#[derive(Debug, Clone)]
pub struct ExplainRow {
    pub index: usize,
    pub status: Status,
    pub reason: String,
}

pub fn explain(setup: &Setup, id: &str, forced_at: usize) -> Option<Explain> {
    let s = &setup.session;
    if !s.results.iter().any(|r| r.id == id) {
        return None;
    }
    let mut engine = setup.engine(forced_at);
    let mut out = Explain {
        tool_use_id: id.to_string(),
        tool: None,
        path: None,
        first_cleared_at: None,
        rows: Vec::new(),
    };
    while let Some(step) = engine.step() {
        let Some(c) = engine
            .candidates()
            .iter()
            .find(|c| s.results[c.result].id == id)
        else {
            continue;
        };
        out.tool = out.tool.take().or(c.tool.clone());
        out.path = out.path.take().or(c.path.clone()).or(c.summary.clone());
        if c.status == Status::Cleared && out.first_cleared_at.is_none() {
            out.first_cleared_at = Some(step.index);
        }
        out.rows.push(ExplainRow {
            index: step.index,
            status: c.status,
            reason: c.reason.clone(),
        });
    }
    Some(out)
}

/// The body of request `k` as sent (`Side::Wire`) or as recorded (`Side::Local`).
pub fn wire_at(setup: &Setup, k: usize, side: Side) -> std::io::Result<serde_json::Value> {
    if k == 0 {
        return WireInputs::empty(setup.policy.delivery).body(&setup.session, side);
    }
    let mut engine = setup.engine_for(k);
    engine.run_to(k);
    let request = &setup.session.requests[k - 1];
    WireInputs::of(setup, &engine, request).body(&setup.session, side)
}
