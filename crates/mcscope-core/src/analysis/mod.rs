//! The questions both the CLI and the TUI ask of a session: the plan at a request,
//! the timeline, the fate of one result, the wire of a request. Plain functions.
//! Here: the setup, the plan at a request, the timeline, explain; `wired` the
//! wire of a request from its plan, `evidence` the transcript's evidence beside
//! the plans.

mod checkpoints;
mod evidence;
mod ran;
pub mod wired;

pub use ran::{Ran, has_record, ran, ran_every_request};

pub use checkpoints::Checkpoints;

pub use evidence::{
    EvidenceReport, Simulator, beside_plan, beside_timeline, evidence, evidence_at,
    evidence_report, pending_prune, pending_prune_owned,
};
pub use wired::{
    WireInputs, Wired, plan_and_inputs, prefix_break, prefix_break_message, result_content,
};

use crate::caveats;
use crate::evidence::{SessionEvidence, SimAt, Writer};
use crate::policy::engine::{Candidate, EditBlock, Engine, Note, Status, Step};
use crate::policy::plausible::Plausible;
use crate::policy::protect::{PathMap, Protector, Resolver, RootKind};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::{Request, Session};
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
    /// The disk's answers about paths, shared by every plan of this setup (and
    /// its clones): a keystroke's plan does not ask about a path again.
    pub resolver: Resolver,
    /// Engine states saved along replays (the TUI turns them on).
    pub checkpoints: Checkpoints,
    /// What plans and the context read back from the session once, shared
    /// by this setup's clones (every setting of a run).
    pub derived: std::sync::Arc<crate::derived::Derived>,
}

impl Setup {
    /// A setup of `session` under `policy` alone: no memory roots, no path map,
    /// the default settings (tests and fuzz targets; the CLI and the TUI get
    /// theirs from `setup::setup`).
    pub fn new(session: Session, policy: Policy) -> Setup {
        Setup {
            session: std::sync::Arc::new(session),
            policy,
            roots: Vec::new(),
            path_map: PathMap::default(),
            settings: Default::default(),
            resolver: Default::default(),
            checkpoints: Default::default(),
            derived: Default::default(),
        }
    }

    /// The same setup over `session` (a followed file that grew): what the run
    /// derived from the session before (idle-server's reading of the records,
    /// the context, the api facts) goes with it.
    pub fn replace_session(&mut self, session: Session) {
        self.session = std::sync::Arc::new(session);
        self.derived = Default::default();
    }

    pub fn protector(&self) -> Protector {
        Protector::with_resolver(&self.roots, self.path_map.clone(), self.resolver.clone())
    }

    /// Computes, once per session, what every plan kind the `p` key reaches
    /// reads of the session (idle-server's reading of the records, the api
    /// facts: each a pass over every record), so that the first switch to
    /// one does not wait for it. Run on a worker when a view opens: facts
    /// another thread is computing are waited for, never computed twice.
    pub fn warm(&self) {
        for &kind in self.policy.preset.rules().offers.kinds {
            let mut policy = self.policy.clone();
            policy.set_kind(kind);
            if policy.check(self.session.harness).is_ok() {
                crate::policy::engine::warm(&self.session, &self.derived, &policy);
            }
        }
    }

    /// An engine whose `forced` plan acts at request `k`.
    pub fn engine(&self, k: usize) -> Engine<'_> {
        Engine::new(
            &self.session,
            &self.derived,
            self.policy.clone(),
            self.protector(),
            k,
        )
    }

    /// An engine for request `k` that starts at the first request of k's view:
    /// nothing planned before a compaction boundary carries over it, so the
    /// requests before it need not be evaluated.
    pub fn engine_for(&self, k: usize) -> Engine<'_> {
        self.engine(k).starting_at(self.first_for(k))
    }

    /// The request an engine for request `k` starts at (see `engine_for`).
    pub fn first_for(&self, k: usize) -> usize {
        use crate::policy::engine::Replay;
        let kind = self.policy.kind;
        // A plan whose marks outlive a view (OpenCode's prune), asked for or
        // one `auto` may run: from the first request.
        if self.policy.may_run(|k| k.replay() == Replay::Session) {
            return 1;
        }
        let s = &self.session;
        let segment = s.request(k).map(|r| r.segment);
        let mut first = s.requests.partition_point(|r| Some(r.segment) < segment) + 1;
        // A plan whose clearings all lapse at a request that begins a turn
        // (Claude's but count's, budget's, idle-server's and the baseline's):
        // the last such request before k is as good a start (k - 1 is still
        // evaluated, for the cache-break comparison).
        let all_lapse = match kind {
            // auto runs budget by version: one version string is read once.
            PlanKind::Auto => {
                let mut last: Option<(Option<&str>, bool)> = None;
                s.requests[first - 1..k.min(s.requests.len())]
                    .iter()
                    .all(|r| match last {
                        Some((v, lapses)) if v == r.version.as_deref() => lapses,
                        _ => {
                            let lapses = self
                                .policy
                                .kind_at(r, r.gap_minutes)
                                .is_none_or(|k| k.replay() == Replay::Turn);
                            last = Some((r.version.as_deref(), lapses));
                            lapses
                        }
                    })
            }
            k => k.replay() == Replay::Turn,
        };
        let asks = self.policy.preset.asks();
        if all_lapse
            && let Some(turn) = (first..k)
                .rev()
                .find(|&i| asks.lapses(&s.requests[i - 1]).turn_start)
        {
            first = turn;
        }
        // A checkpoint the idle gap reads may outlive a compression: start
        // where the harness knows it.
        asks.replay_from(&s.requests, first)
    }

    /// The plan kinds in force over the session's requests (what `auto` chose at
    /// each, or the kind asked for), each once, in `PlanKind::ALL` order.
    pub fn kinds_chosen(&self) -> Vec<PlanKind> {
        if !self.policy.kind.is_auto() {
            return vec![self.policy.kind];
        }
        let every = <PlanKind as strum::VariantArray>::VARIANTS;
        let mut seen = vec![false; every.len()];
        for r in &self.session.requests {
            if let Some(k) = self.policy.kind_at(r, r.gap_minutes) {
                seen[every.iter().position(|&x| x == k).unwrap_or(0)] = true;
            }
        }
        every
            .iter()
            .copied()
            .zip(seen)
            .filter_map(|(k, on)| on.then_some(k))
            .collect()
    }

    pub fn last_request(&self) -> usize {
        self.session.requests.len()
    }

    /// SPEC §13.P at `req` under the plan kind in force there.
    pub fn plausible(&self, req: &Request, kind: Option<PlanKind>) -> Plausible {
        crate::policy::plausible::at(&self.policy, &self.session, req, kind)
    }

    /// Whether a clearing at `req` is a what-if in words (SPEC §13.P3): the
    /// build had no code path for `kind`, or the file is a sub-agent's, which
    /// no harness clears (§2, §13.S9). The JSON's `harness_could_run` stays
    /// §13.P1's table.
    pub fn what_if_at(&self, req: &Request, kind: Option<PlanKind>) -> bool {
        self.session.subagent_what_if || self.plausible(req, kind).what_if()
    }

    /// What the caveats read of the whole session, once (not per request:
    /// a pass over the results at every request made a long session's
    /// caveats cost requests × results).
    fn session_marks(&self) -> SessionMarks {
        let s = &self.session;
        SessionMarks {
            // An older format records no version; a masking it holds (a
            // recorded one, or outputs the file holds masked) proves the plan
            // on (SPEC §15.12). Asked only of such files.
            unversioned: s.harness.rules().formats.first() != Some(&s.format)
                && !s.evidence.iter().any(|e| e.mask)
                && !s.results.iter().any(|r| r.already_cleared),
            marked: s.evidence.iter().any(|e| e.pruned || e.mask),
            sanitized: s.export.is_some_and(|x| x.sanitized),
            condensed: s.condensed,
            redacted_differs: s.export.is_some_and(|x| x.redacted_outputs && !x.sanitized)
                && self
                    .derived
                    .get_or_init(|| {
                        let ev = evidence::evidence(self);
                        RedactedDiffers(ev.requests.iter().any(|r| {
                            r.microcompact
                                .as_ref()
                                .and_then(|m| m.comparison.as_ref())
                                .is_some_and(|c| !c.missing.is_empty() || !c.extra.is_empty())
                        }))
                    })
                    .0,
        }
    }

    /// What the caveats read at `req` (SPEC §13.C), the kind in force `kind`.
    fn caveat_at<'a>(
        &self,
        req: &'a Request,
        kind: Option<PlanKind>,
        idle: IdleMarks,
        marks: SessionMarks,
    ) -> caveats::At<'a> {
        caveats::At {
            kind,
            version: req.version.as_deref(),
            plausible: self.plausible(req, kind),
            idle_server_sent: idle.sent,
            pdf_page_texts: idle.pdf_page_texts,
            unversioned: marks.unversioned,
            marked: marks.marked,
            sanitized: marks.sanitized,
            redacted_differs: marks.redacted_differs,
            condensed: marks.condensed,
        }
    }

    /// The caveats of the plan at request `k` alone (`plan`, the TUI), from its
    /// step; a session without requests lists those of the kinds chosen.
    pub fn caveats_at(&self, req: &Request, step: &Step) -> Vec<caveats::Caveat> {
        if req.index == 0 {
            return caveats::caveats(&self.policy, &self.kinds_chosen(), &[]);
        }
        let kinds: Vec<PlanKind> = step.kind.into_iter().collect();
        let idle = step
            .idle_server
            .as_deref()
            .map(IdleMarks::of)
            .unwrap_or_default();
        caveats::caveats_with(
            &self.policy,
            &kinds,
            &[self.caveat_at(req, step.kind, idle, self.session_marks())],
            self.session.cut_in_view(Some(req.index)),
        )
    }

    /// The caveats of every request (SPEC §13.C: `timeline`, `evidence`,
    /// `explain`, `compare` list the union).
    pub fn caveats_all(&self) -> Vec<caveats::Caveat> {
        let idle = self.idle_server_marks();
        let marks = self.session_marks();
        let at: Vec<caveats::At<'_>> = self
            .session
            .requests
            .iter()
            .map(|r| {
                let kind = self.policy.kind_at(r, r.gap_minutes);
                let i = idle.get(&r.index).copied().unwrap_or_default();
                self.caveat_at(r, kind, i, marks)
            })
            .collect();
        caveats::caveats_with(
            &self.policy,
            &self.kinds_chosen(),
            &at,
            self.session.cut_in_view(None),
        )
    }

    /// What the caveats read of `idle-server` at the requests where it
    /// sends its edit or meets a page-text PDF row (one lean pass, made only
    /// when the plan is in force somewhere).
    fn idle_server_marks(&self) -> std::collections::HashMap<usize, IdleMarks> {
        if !self.kinds_chosen().iter().any(|k| k.reports_sends()) {
            return Default::default();
        }
        let mut engine = self.engine(self.last_request()).lean();
        std::iter::from_fn(|| engine.step())
            .filter_map(|st| Some((st.index, IdleMarks::of(st.idle_server.as_ref()?))))
            .filter(|(_, m)| m.sent || m.pdf_page_texts)
            .collect()
    }
}

/// What the caveats read of `idle-server` at one request (SPEC §13.C,
/// §17.C.U7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct IdleMarks {
    sent: bool,
    pdf_page_texts: bool,
}

impl IdleMarks {
    fn of(st: &crate::policy::engine::IdleServerStep) -> IdleMarks {
        IdleMarks {
            sent: st.sent(),
            pdf_page_texts: st.decision.pdf.page_text_row,
        }
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
            request: Request::empty(0),
            step: Step {
                index: 0,
                kind: None,
                trigger: None,
                newly_cleared: Vec::new(),
                marked_elsewhere: Vec::new(),
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
                note: Note::NoRequests,
                api: None,
                idle_server: None,
                wire: None,
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
    if !setup.policy.preset.asks().media_lists() {
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
    let Some(tool) = setup.policy.preset.rules().tools.memory_search_tool else {
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

/// One step per request; `forced` acts at request `forced_at`.
pub fn timeline(setup: &Setup, forced_at: usize) -> Vec<Step> {
    timeline_steps(setup, forced_at).collect()
}

/// The timeline's steps one at a time.
pub fn timeline_steps(setup: &Setup, forced_at: usize) -> impl Iterator<Item = Step> + '_ {
    let mut engine = setup.engine(forced_at).lean();
    std::iter::from_fn(move || engine.step())
}

/// The timeline's steps from a tracked engine (`Engine::tracked`): each says
/// what changed in the wire instead of listing what is cleared there, for a
/// pass that sums a setting (`totals::each_request`).
pub fn tracked_steps(setup: &Setup, forced_at: usize) -> impl Iterator<Item = Step> + '_ {
    let mut engine = setup.engine(forced_at).tracked();
    std::iter::from_fn(move || engine.step())
}

/// Whether a plan fired at each request, and nothing else: each step carries the
/// state only, so this costs little more than the clearings themselves.
pub fn fired_marks(setup: &Setup, forced_at: usize) -> impl Iterator<Item = bool> + '_ {
    let mut engine = setup.engine(forced_at);
    std::iter::from_fn(move || engine.carry().map(|t| t.is_some()))
}

/// The fate of the result(s) with one id at every request whose view holds it.
#[derive(Debug, Clone)]
pub struct Explain {
    pub tool_use_id: String,
    pub tool: Option<String>,
    pub path: Option<String>,
    pub first_cleared_at: Option<usize>,
    pub rows: Vec<ExplainRow>,
    /// The harness's records that name the id, in file order (SPEC §15.21).
    pub records: Vec<RecordRef>,
    /// Whether a `tool_use` of the file holds the id.
    pub call_in_file: bool,
}

/// A record of the transcript that names a result (SPEC §15.21 `records`):
/// its line, its kind, and the request it belongs to (None: attached nowhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    pub line: usize,
    pub kind: &'static str,
    pub request: Option<usize>,
}

/// The records that name `id`: `microcompact_boundary` records (by where
/// §10 attaches them) and `tool_results_cut` records (§13.E1), in file order.
pub fn records_naming(s: &Session, id: &str) -> Vec<RecordRef> {
    let (attached, _) = crate::evidence::attach(s);
    let mut out: Vec<RecordRef> = s
        .evidence
        .iter()
        .enumerate()
        .filter(|(_, e)| e.compacted_tool_ids.iter().any(|x| x == id))
        .map(|(i, e)| RecordRef {
            line: e.line,
            kind: crate::evidence::Writer::of_record(e).record_kind(),
            request: attached.iter().find(|a| a.0 == i).map(|a| match a.2 {
                crate::evidence::Target::Request(k) | crate::evidence::Target::Compaction(k) => k,
            }),
        })
        .collect();
    out.extend(
        s.cuts
            .iter()
            .filter(|c| c.call_ids.iter().any(|x| x == id))
            .map(|c| RecordRef {
                line: c.line,
                kind: "tool_results_cut",
                request: c.request,
            }),
    );
    out.sort_by_key(|r| r.line);
    out
}

#[derive(Debug, Clone)]
pub struct ExplainRow {
    pub index: usize,
    pub status: Status,
    /// The candidate here (its reason, tool and protection) and the step's
    /// note: `report::words::explain_reason` says why in words.
    pub candidate: Candidate,
    pub note: Note,
    /// The api preset: the request's edits, simulated beside the record.
    pub edits_here: Option<String>,
    /// SPEC §13.P at the request (§15.21: explain says it per request).
    pub plausible: Plausible,
}

pub fn explain(setup: &Setup, id: &str, forced_at: usize) -> Option<Explain> {
    let s = &setup.session;
    let records = records_naming(s, id);
    let mut out = Explain {
        tool_use_id: id.to_string(),
        tool: None,
        path: None,
        first_cleared_at: None,
        rows: Vec::new(),
        call_in_file: s.calls.iter().any(|c| c.id == id),
        records,
    };
    if !s.results.iter().any(|r| r.id == id) {
        // An id only a record names answers from the record (SPEC §15.21).
        return (!out.records.is_empty()).then_some(out);
    }
    let mut engine = setup.engine(forced_at);
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
            candidate: c.clone(),
            edits_here: step
                .api
                .as_ref()
                .map(|_| crate::evidence::api::cell(s, &step)),
            plausible: setup.plausible(&s.requests[step.index - 1], step.kind),
            note: step.note,
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

/// What the caveats read of the whole session (see `Setup::session_marks`).
#[derive(Debug, Clone, Copy)]
struct SessionMarks {
    unversioned: bool,
    marked: bool,
    sanitized: bool,
    redacted_differs: bool,
    condensed: bool,
}

/// Whether an export's prune marks differ from the simulation where its
/// outputs carry the publisher's `REDACTED` (SPEC §17.O.7): worked out once
/// per run, on such files only.
struct RedactedDiffers(bool);

#[cfg(test)]
mod wired_tests;
