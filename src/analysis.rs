//! The questions both the CLI and the TUI ask of a session: the plan at a request,
//! the timeline, the fate of one result, the wire of a request. Plain functions.

use crate::evidence::{SessionEvidence, SimAt, Writer};
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
    /// Where each setting came from, and the configuration file's other keys.
    pub settings: crate::config::Settings,
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
                            let lapses =
                                self.policy.kind_at(r, r.gap_minutes) != Some(PlanKind::Budget);
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
        // Qwen's hook checkpoint outlives a compression within a process: start
        // where it is known, at a prompt (which sets it) or where the process began.
        if self.policy.preset == crate::session::Harness::Qwen {
            let process = |i: usize| s.requests[i - 1].send.as_ref().map(|x| x.process);
            while first > 1
                && process(first - 1) == process(first)
                && s.requests[first - 1].send.as_ref().map(|x| x.kind)
                    != Some(crate::session::SendKind::UserQuery)
            {
                first -= 1;
            }
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
            if let Some(k) = self.policy.kind_at(r, r.gap_minutes) {
                seen[PlanKind::ALL.iter().position(|&x| x == k).unwrap_or(0)] = true;
            }
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
    /// Qwen media entries of the request, in message order (SPEC §5 media).
    pub media: Vec<MediaEntry>,
    /// Memory bodies evicted by newly cleared `search_memory` results (SPEC §3).
    pub evicted_memory_bodies: Vec<(String, serde_json::Value)>,
}

/// A media entry of a Qwen request: a top-level media part, or a result of a
/// tool that is not compactable with media nested in it.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaEntry {
    /// Place in the wire's message list, and among the message's parts.
    pub message_index: usize,
    pub part_index: usize,
    /// `media` or `nested`.
    pub list: &'static str,
    pub tool_use_id: Option<String>,
    pub mime: String,
    pub cleared: bool,
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
                send: None,
                version: None,
            },
            step: Step {
                index: 0,
                kind: None,
                fired: false,
                trigger: None,
                newly_cleared: Vec::new(),
                cleared: Vec::new(),
                media_in_wire: Vec::new(),
                tokens_saved: 0,
                chars_before: 0,
                chars_after: 0,
                target_chars: None,
                media_cleared: 0,
                media_kept: 0,
                gap_minutes: None,
                pre_tokens: None,
                note: "the session has no requests".into(),
                api: None,
            },
            candidates: Vec::new(),
            cache: CacheEffect::default(),
            evicted_read_paths: Vec::new(),
            unresolved_evicted_reads: 0,
            media: Vec::new(),
            evicted_memory_bodies: Vec::new(),
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

/// The media entries of a request under the qwen preset, in message order.
fn media_entries(
    setup: &Setup,
    engine: &Engine<'_>,
    req: &Request,
    candidates: &[Candidate],
) -> Vec<MediaEntry> {
    let s = &setup.session;
    if setup.policy.preset != Harness::Qwen {
        return Vec::new();
    }
    let top = s.media_in(req.view_start, req.end).map(|m| MediaEntry {
        message_index: s.media[m].msg - req.view_start,
        part_index: s.media[m].part,
        list: "media",
        tool_use_id: None,
        mime: s.media[m].mime.clone(),
        cleared: engine.media_is_cleared(m),
    });
    let nested = candidates
        .iter()
        .filter(|c| !c.compactable && s.results[c.result].media > 0)
        .map(|c| {
            let r = &s.results[c.result];
            MediaEntry {
                message_index: r.msg - req.view_start,
                part_index: r.part,
                list: "nested",
                tool_use_id: Some(r.id.clone()),
                mime: r.media_mime.clone().unwrap_or_default(),
                cleared: engine.is_stripped(c.result),
            }
        });
    let mut all: Vec<MediaEntry> = top.chain(nested).collect();
    all.sort_by_key(|e| (e.message_index, e.part_index));
    all
}

/// The `{memoryRef, mtimeMs}` bodies that newly cleared memory-search results
/// carried, minus those a result still in the wire covers (SPEC §3).
fn evicted_memory_bodies(
    setup: &Setup,
    candidates: &[Candidate],
    newly: &HashSet<usize>,
) -> Vec<(String, serde_json::Value)> {
    let s = &setup.session;
    let Some(tool) = setup.policy.preset.rules().memory_search_tool else {
        return Vec::new();
    };
    let searches = || {
        candidates
            .iter()
            .filter(move |c| c.tool.as_deref() == Some(tool))
    };
    let covered: Vec<&(String, serde_json::Value)> = searches()
        .filter(|c| c.status != Status::Cleared && !s.results[c.result].already_cleared)
        .flat_map(|c| &s.results[c.result].memory_bodies)
        .collect();
    let mut out: Vec<(String, serde_json::Value)> = Vec::new();
    for c in searches().filter(|c| newly.contains(&c.result)) {
        for b in &s.results[c.result].memory_bodies {
            if !covered.contains(&b) && !out.contains(b) {
                out.push(b.clone());
            }
        }
    }
    out
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
    /// Qwen results whose nested media is stripped in this request's wire.
    pub stripped: HashSet<usize>,
    pub edits: Vec<EditBlock>,
    pub drop_thoughts: bool,
    /// Delivery `server` (the `api` preset): the edits sent and what they change.
    pub server: Option<wire::ServerEdits>,
}

impl WireInputs {
    /// The inputs of request 0 (a session without requests): nothing to send.
    pub fn empty(delivery: Delivery) -> WireInputs {
        WireInputs {
            request: PlanAt::empty().request,
            delivery,
            cleared: HashSet::new(),
            media_cleared: HashSet::new(),
            stripped: HashSet::new(),
            edits: Vec::new(),
            drop_thoughts: false,
            server: None,
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
            stripped: s
                .results_in(request.view_start, request.end)
                .filter(|&r| engine.is_stripped(r))
                .collect(),
            edits: engine.edits().to_vec(),
            drop_thoughts: fired_forced,
            server: server_edits(setup, engine.api_step()),
        }
    }

    fn with_clearings<T>(&self, f: impl FnOnce(&Clearings<'_>) -> T) -> T {
        let result_cleared = |r: usize| self.cleared.contains(&r);
        let media_cleared = |m: usize| self.media_cleared.contains(&m);
        let result_stripped = |r: usize| self.stripped.contains(&r);
        f(&Clearings {
            delivery: self.delivery,
            result_cleared: &result_cleared,
            result_stripped: &result_stripped,
            media_cleared: &media_cleared,
            edits: &self.edits,
            drop_thoughts: self.drop_thoughts,
            server: self.server.as_ref(),
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
    let same_view = k > 1 && s.requests[k - 2].segment == s.requests[k - 1].segment;
    let prev = prev.filter(|_| same_view);
    let step = engine
        .step()
        .ok_or_else(|| std::io::Error::other("no such request"))?;
    let mut request = s.requests[k - 1].clone();
    // The gap the plan read (a Qwen hook's runs from its checkpoint).
    request.gap_minutes = step.gap_minutes;
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
        cache.prefix_broken_at_message = prefix_break(
            s,
            &request,
            prev.as_ref().map_or(Wired::NONE, Step::wired),
            step.wired(),
        );
    }

    // Paths still vouched for by a result that stays in the wire with one path
    // (only looked at when a read was evicted here).
    let evicted_reads = candidates
        .iter()
        .any(|c| newly.contains(&c.result) && c.file_path_tool && !c.paths.is_empty());
    let rules = setup.policy.preset.rules();
    let vouched: HashSet<String> = candidates
        .iter()
        .filter(|_| evicted_reads)
        .filter(|c| match rules.vouchers {
            crate::harness::Vouchers::AnyStaying => matches!(
                c.status,
                Status::Kept | Status::Protected | Status::ErrorKept
            ),
            crate::harness::Vouchers::KeptTools(tools) => {
                c.status == Status::Kept
                    && !c.pending
                    && c.tool.as_deref().is_some_and(|t| tools.contains(&t))
            }
        })
        .filter(|c| c.paths.len() == 1)
        .map(|c| path_key(&c.paths[0]))
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
            let key = path_key(p);
            if !vouched.contains(&key) && listed.insert(key) {
                evicted_read_paths.push(abs_path(p));
            }
        }
    }
    let media = media_entries(setup, &engine, &request, &candidates);
    let evicted_memory_bodies = evicted_memory_bodies(setup, &candidates, &newly);
    let inputs = WireInputs::of(setup, &engine, &request);
    let plan = PlanAt {
        request,
        step,
        candidates,
        cache,
        evicted_read_paths,
        unresolved_evicted_reads,
        media,
        evicted_memory_bodies,
    };
    Ok((plan, inputs))
}

/// The server's edits at a request under delivery `server` (SPEC §11).
fn server_edits(
    setup: &Setup,
    api: Option<&crate::policy::engine::ApiStep>,
) -> Option<wire::ServerEdits> {
    if setup.policy.delivery != Delivery::Server {
        return None;
    }
    let spec = &setup.policy.api;
    Some(wire::ServerEdits {
        edits: spec.edits_json(),
        placeholder: spec.placeholder.clone(),
        thinking: api
            .map(|a| a.thinking_cleared.iter().copied().collect())
            .unwrap_or_default(),
        inputs: api
            .map(|a| a.inputs_cleared.iter().map(|(_, id)| id.clone()).collect())
            .unwrap_or_default(),
    })
}

/// What a request's wire changed from the transcript: the results cleared and the
/// Qwen media items cleared or stripped, as `(message, item)`.
#[derive(Debug, Clone, Copy)]
pub struct Wired<'a> {
    pub cleared: &'a [usize],
    pub media: &'a [(usize, usize)],
    /// The `api` server view's other changes (thinking, inputs), as (message, item).
    pub server: &'a [(usize, usize)],
}

impl Wired<'_> {
    /// Nothing changed (the request before the first of a view).
    pub const NONE: Wired<'static> = Wired {
        cleared: &[],
        media: &[],
        server: &[],
    };
}

impl Step {
    pub fn wired(&self) -> Wired<'_> {
        Wired {
            cleared: &self.cleared,
            media: &self.media_in_wire,
            server: self.api.as_ref().map_or(&[], |a| &a.changed),
        }
    }
}

/// Where request `request`'s wire stops matching what the request before it sent
/// (SPEC §6 `rewrite`, §9 `break[k]`): the first message, counted from the view's
/// start, holding a result cleared in one and not the other. `before` is what was
/// cleared in the previous request's wire (empty when it lay in another view).
pub fn prefix_break(
    s: &Session,
    request: &Request,
    before: Wired<'_>,
    now: Wired<'_>,
) -> Option<usize> {
    let results = |w: Wired<'_>| -> HashSet<usize> { w.cleared.iter().copied().collect() };
    let media = |w: Wired<'_>| -> HashSet<(usize, usize)> { w.media.iter().copied().collect() };
    let server = |w: Wired<'_>| -> HashSet<(usize, usize)> { w.server.iter().copied().collect() };
    let first = results(now)
        .symmetric_difference(&results(before))
        .map(|&r| s.results[r].msg)
        .chain(media(now).symmetric_difference(&media(before)).map(|m| m.0))
        .chain(
            server(now)
                .symmetric_difference(&server(before))
                .map(|m| m.0),
        )
        .min();
    first
        .filter(|&m| m >= request.view_start)
        .map(|m| m - request.view_start)
}

/// What the plans a `microcompact_boundary`'s writer implies newly cleared where
/// the record belongs (SPEC §10): `cached` records against the `count` plan,
/// `budget` records against the `budget` plan (on the compaction's summarizing
/// request for a record before a `compact_boundary`), each run with the other
/// options given and evaluated once over the whole timeline when a record first
/// asks. Where there is nothing to simulate on, it answers None.
pub struct Simulator<'a> {
    setup: &'a Setup,
    count: Option<Vec<Vec<String>>>,
    budget: Option<Vec<Vec<String>>>,
}

impl<'a> Simulator<'a> {
    pub fn new(setup: &'a Setup) -> Simulator<'a> {
        Simulator {
            setup,
            count: None,
            budget: None,
        }
    }

    pub fn simulate(&mut self, writer: Writer, at: SimAt) -> Option<Vec<String>> {
        let setup = self.setup;
        match (writer, at) {
            (Writer::Cached, SimAt::Request(k)) => {
                let count = self
                    .count
                    .get_or_insert_with(|| newly_cleared_by(setup, PlanKind::Count));
                count.get(k.checked_sub(1)?).cloned()
            }
            (Writer::Cached, SimAt::BeforeCompaction(_)) => None,
            (Writer::Budget, SimAt::Request(k)) => {
                let budget = self
                    .budget
                    .get_or_insert_with(|| newly_cleared_by(setup, PlanKind::Budget));
                budget.get(k.checked_sub(1)?).cloned()
            }
            (Writer::Budget, SimAt::BeforeCompaction(k)) => budget_before_compaction(setup, k),
        }
    }
}

/// The plan `kind` (with the other options given; budget runs by rewrite) at
/// every request: the ids it newly clears (index k − 1).
fn newly_cleared_by(setup: &Setup, kind: PlanKind) -> Vec<Vec<String>> {
    let s = &setup.session;
    let mut engine = Engine::new(
        s,
        simulated(setup, kind),
        setup.protector(),
        setup.last_request(),
    )
    .without_reasons();
    std::iter::from_fn(|| engine.step())
        .map(|st| ids_of(s, &st.newly_cleared))
        .collect()
}

fn simulated(setup: &Setup, kind: PlanKind) -> Policy {
    let mut policy = setup.policy.clone();
    policy.kind = kind;
    if kind == PlanKind::Budget {
        policy.delivery = Delivery::Rewrite;
    }
    policy
}

fn ids_of(s: &Session, results: &[usize]) -> Vec<String> {
    results.iter().map(|&r| s.results[r].id.clone()).collect()
}

/// The budget plan on the compaction's summarizing request: the view of the
/// request before the `compact_boundary` that precedes request `k`, grown to the
/// boundary (its last response and any results after it).
fn budget_before_compaction(setup: &Setup, k: usize) -> Option<Vec<String>> {
    let s = &setup.session;
    let after = s.request(k)?;
    let before = s.request(k.checked_sub(1)?)?;
    if before.segment == after.segment {
        return None;
    }
    // The boundary lies right before the first message of k's view.
    let end = s
        .messages
        .iter()
        .position(|m| m.segment == after.segment)
        .unwrap_or(after.view_start);
    let summarizing = Request {
        index: before.index,
        response: None,
        end,
        send: None,
        ..before.clone()
    };
    let mut engine = Engine::new(
        s,
        simulated(setup, PlanKind::Budget),
        setup.protector(),
        before.index,
    )
    .without_reasons();
    engine.run_to(before.index)?;
    let step = engine.step_virtual(&summarizing);
    Some(ids_of(s, &step.newly_cleared))
}

/// The session's evidence (SPEC §10) without the selected plan's part: the
/// boundary comparisons are made; `plan_rewrite` is added by the caller, who
/// knows the plan's prefix breaks.
pub fn evidence(setup: &Setup) -> SessionEvidence {
    let mut sim = Simulator::new(setup);
    crate::evidence::collect(&setup.session, &mut |w, at| sim.simulate(w, at))
}

/// Request K's evidence beside its plan: `plan_rewrite` from the plan's own
/// prefix break (None for a session without requests).
pub fn evidence_at(setup: &Setup, plan: &PlanAt) -> Option<crate::evidence::RequestEvidence> {
    let mut ev = evidence(setup)
        .requests
        .get(plan.request.index.checked_sub(1)?)?
        .clone();
    let brk = || plan.cache.prefix_broken_at_message.is_some();
    beside_plan(setup, &mut ev, &plan.request, &plan.step, brk);
    Some(ev)
}

/// Sets a request's evidence beside the selected plan's step there (SPEC §10):
/// `plan_rewrite` when its wire broke the prefix by rewriting (`brk`, asked
/// only where a break was observed), and a
/// `budget` firing without a record (silent at a turn start, else shown as a
/// record with `writer: null`).
pub fn beside_plan(
    setup: &Setup,
    ev: &mut crate::evidence::RequestEvidence,
    req: &Request,
    st: &Step,
    brk: impl FnOnce() -> bool,
) {
    if let Some(b) = ev.observed_break.take() {
        let brk = matches!(setup.policy.delivery, Delivery::Rewrite | Delivery::Server) && brk();
        ev.observed_break = Some(b.with_plan_rewrite(brk));
    }
    if st.fired && st.kind == Some(PlanKind::Budget) {
        ev.budget_fired(req.begins_turn, ids_of(&setup.session, &st.newly_cleared));
    }
}

/// Evidence with the selected plan beside it, for `mcscope evidence`.
#[derive(Debug, Clone)]
pub struct EvidenceReport {
    pub evidence: SessionEvidence,
    /// The selected plan's newly cleared ids at each request that holds a record.
    pub selected_newly: std::collections::BTreeMap<usize, Vec<String>>,
}

/// The session's evidence with `plan_rewrite` from the selected plan (one pass
/// of its timeline, made only when a break or a record needs it).
pub fn evidence_report(setup: &Setup, forced_at: usize) -> EvidenceReport {
    let s = &setup.session;
    let mut ev = evidence(setup);
    let mut selected_newly = std::collections::BTreeMap::new();
    let may_budget = matches!(setup.policy.kind, PlanKind::Budget)
        || (setup.policy.kind == PlanKind::Auto && setup.policy.preset == Harness::Claude);
    let needed = may_budget
        || ev
            .requests
            .iter()
            .any(|r| r.observed_break.is_some() || r.microcompact.is_some());
    if needed {
        let mut prev: Option<Step> = None;
        for st in timeline_steps(setup, forced_at) {
            let k = st.index;
            let req = &s.requests[k - 1];
            let r = &mut ev.requests[k - 1];
            let before = prev
                .as_ref()
                .filter(|p| s.requests[p.index - 1].segment == req.segment)
                .map_or(Wired::NONE, Step::wired);
            let brk = || prefix_break(s, req, before, st.wired()).is_some();
            beside_plan(setup, r, req, &st, brk);
            if r.microcompact.is_some() {
                selected_newly.insert(
                    k,
                    st.newly_cleared
                        .iter()
                        .map(|&i| s.results[i].id.clone())
                        .collect(),
                );
            }
            prev = Some(st);
        }
    }
    EvidenceReport {
        evidence: ev,
        selected_newly,
    }
}

fn abs_path(p: &crate::policy::protect::RecordedPath) -> String {
    crate::policy::protect::lexical(&p.path, p.cwd.as_deref()).display()
}

/// The same for comparing: two spellings of one Windows path are one path.
fn path_key(p: &crate::policy::protect::RecordedPath) -> String {
    crate::policy::protect::lexical(&p.path, p.cwd.as_deref()).key()
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
        // The api preset: the request's edits, simulated beside the record.
        let reason = match &step.api {
            Some(_) => format!(
                "{} [edits here: {}]",
                c.reason,
                crate::evidence::api::cell(s, &step)
            ),
            None => c.reason.clone(),
        };
        out.rows.push(ExplainRow {
            index: step.index,
            status: c.status,
            reason,
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
