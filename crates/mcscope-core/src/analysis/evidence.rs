//! The transcript's evidence (SPEC §10) beside the plans: what a boundary
//! record's writer implies was cleared, and the evidence report.

use super::*;

/// What the plan a clearing record's writer implies newly cleared where
/// the record belongs (SPEC §10, §14): each writer's own plan
/// (`Writer::plan_kind`: `cached` records against `count`, `budget` against
/// `budget`, on the compaction's summarizing request for a record before a
/// `compact_boundary`, Gemini CLI's masking against `mask`, OpenCode's marks
/// against `prune`), each run with the other
/// options given and evaluated once over the whole timeline when a record first
/// asks. Where there is nothing to simulate on, it answers None.
pub struct Simulator<'a> {
    setup: &'a Setup,
    /// Each plan kind asked for, once: the ids it newly clears (index k − 1).
    newly: Vec<(PlanKind, Vec<Vec<String>>)>,
}

impl<'a> Simulator<'a> {
    pub fn new(setup: &'a Setup) -> Simulator<'a> {
        Simulator {
            setup,
            newly: Vec::new(),
        }
    }

    pub fn simulate(&mut self, writer: Writer, at: SimAt) -> Option<Vec<String>> {
        // A sanitized export's sizes are unknown: its marks are shown, never
        // compared (SPEC §17.O.5).
        if self.setup.session.export.is_some_and(|x| x.sanitized) {
            return None;
        }
        let kind = writer.plan_kind()?;
        match at {
            SimAt::Request(k) => {
                let at = match self.newly.iter().position(|(x, _)| *x == kind) {
                    Some(at) => at,
                    None => {
                        self.newly.push((kind, newly_cleared_by(self.setup, kind)));
                        self.newly.len() - 1
                    }
                };
                self.newly[at].1.get(k.checked_sub(1)?).cloned()
            }
            // SPEC §10: a budget record before a compaction is compared on its
            // summarizing request; no other writer writes one there.
            SimAt::BeforeCompaction(k) => before_compaction(self.setup, kind, k),
        }
    }
}

/// SPEC §17.O.6, §18.16 `evidence.pending_prune`: OpenCode runs prune when a
/// prompt loop ends, a few seconds after it; a file taken (an export, a copy
/// of the database) before the prune after its last loop wrote has none of
/// its marks. The ids prune marks then, by the simulation, where the file
/// records no mark after its last request: predicted, not yet recorded. None
/// for a harness without prune; empty where nothing is pending.
pub fn pending_prune(setup: &Setup) -> Option<Vec<String>> {
    let next = next_request(&setup.session)?;
    let Ok(next) = next else {
        return Some(Vec::new());
    };
    let mut copy: Session = (*setup.session).clone();
    copy.requests.push(next);
    prune_at_the_end(setup, &copy)
}

/// As [`pending_prune`], on a setup the caller owns: where no one else holds
/// the session, the request the next prompt would make is added to the
/// session itself for the run and taken away after it (a copy of a long
/// session is most of its memory: issue 41 item 5); else on a copy. Nothing
/// the session keeps depends on its requests (its id table is of its calls
/// and results), and the setup's derived facts are not read: the run reads
/// its own.
pub fn pending_prune_owned(setup: &mut Setup) -> Option<Vec<String>> {
    let next = next_request(&setup.session)?;
    let Ok(next) = next else {
        return Some(Vec::new());
    };
    let Some(s) = std::sync::Arc::get_mut(&mut setup.session) else {
        return pending_prune(setup);
    };
    // One place more, not twice as many (the list is as long as it needs).
    s.requests.reserve_exact(1);
    s.requests.push(next);
    let ids = prune_at_the_end(setup, &setup.session);
    if let Some(s) = std::sync::Arc::get_mut(&mut setup.session) {
        s.requests.pop();
    }
    ids
}

/// The request the next prompt would make (Err: none is pending; None: the
/// harness has no prune), as [`pending_prune`] says.
fn next_request(s: &Session) -> Option<Result<Request, ()>> {
    if !s.harness.rules().offers(PlanKind::Prune) {
        return None;
    }
    let n = s.requests.len();
    let recorded = s.evidence.iter().any(|e| e.pruned && e.before_request > n);
    if n == 0 || recorded || !s.loop_ended_before(n + 1) || s.export.is_some_and(|x| x.sanitized) {
        return Some(Err(()));
    }
    // The request the next prompt would make: the view as it stands at the
    // file's end; prune counts only the user messages before its last loop.
    let last = &s.requests[n - 1];
    Some(Ok(Request {
        index: n + 1,
        response: None,
        view_start: last.view_start,
        end: s.messages.len(),
        segment: last.segment,
        at: None,
        now_ms: None,
        gap_minutes: None,
        begins_turn: true,
        send: None,
        version: last.version.clone(),
        entrypoint: last.entrypoint.clone(),
        dead: Vec::new(),
        plan_recorded: last.plan_recorded,
    }))
}

/// The ids prune marks at the last request of `next` (the session with the
/// next prompt's request added).
fn prune_at_the_end(setup: &Setup, next: &Session) -> Option<Vec<String>> {
    let derived = crate::derived::Derived::default();
    let mut engine = Engine::new(
        next,
        &derived,
        simulated(setup, PlanKind::Prune),
        setup.protector(),
        next.requests.len(),
    )
    .newly_only();
    let st = std::iter::from_fn(|| engine.step()).last()?;
    let mut ids = ids_of(next, &st.newly_cleared);
    ids.extend(ids_of(next, &st.marked_elsewhere));
    Some(ids)
}

/// The plan `kind` (with the other options given; a kind that takes one
/// delivery only, budget's rewrite, runs with it) at
/// every request: the ids it newly clears (index k − 1).
fn newly_cleared_by(setup: &Setup, kind: PlanKind) -> Vec<Vec<String>> {
    let s = &setup.session;
    let mut engine = Engine::new(
        s,
        &setup.derived,
        simulated(setup, kind),
        setup.protector(),
        setup.last_request(),
    )
    .newly_only();
    // What a record names is everything the harness's plan marked, the
    // results outside the view too (`Step::marked_elsewhere`).
    std::iter::from_fn(|| engine.step())
        .map(|st| {
            let mut ids = ids_of(s, &st.newly_cleared);
            ids.extend(ids_of(s, &st.marked_elsewhere));
            ids
        })
        .collect()
}

fn simulated(setup: &Setup, kind: PlanKind) -> Policy {
    let mut policy = setup.policy.clone();
    policy.kind = kind;
    if let Some(d) = kind.only_delivery() {
        policy.delivery = d;
    }
    policy
}

fn ids_of(s: &Session, results: &[usize]) -> Vec<String> {
    results.iter().map(|&r| s.results[r].id.clone()).collect()
}

/// The plan `kind` (budget's, the one writer of a record there) on the
/// compaction's summarizing request: the view of the request before the
/// `compact_boundary` that precedes request `k`, grown to the boundary (its
/// last response and any results after it).
fn before_compaction(setup: &Setup, kind: PlanKind, k: usize) -> Option<Vec<String>> {
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
        &setup.derived,
        simulated(setup, kind),
        setup.protector(),
        before.index,
    )
    .newly_only();
    engine.run_to(before.index)?;
    let step = engine.step_virtual(&summarizing);
    Some(ids_of(s, &step.newly_cleared))
}

/// The session's evidence (SPEC §10) without the selected plan's part: the
/// boundary comparisons are made; `plan_rewrite` is added by the caller, who
/// knows the plan's prefix breaks.
pub fn evidence(setup: &Setup) -> SessionEvidence {
    let mut sim = Simulator::new(setup);
    let mut ev = crate::evidence::collect(&setup.session, &mut |w, at| sim.simulate(w, at));
    idle_server_beside(setup, &mut ev);
    ev
}

/// E4's simulated half at every request (SPEC §13.E4, §13.J: an object at
/// every request): the `idle-server` plan run with `engine::e4_policy`, whatever
/// `--policy` selects. A file that is not a Claude Code transcript, or has no
/// reply a return could follow (SPEC §13.S1), has no return to find, so
/// nothing is sent there and no plan needs running.
fn idle_server_beside(setup: &Setup, ev: &mut SessionEvidence) {
    let s = &setup.session;
    let not_sent = crate::evidence::facts::IdleSimulated::default();
    if !crate::load::format::of(s.format).return_facts() || !s.return_anchor {
        for r in &mut ev.requests {
            r.facts.idle_simulated = Some(Box::new(not_sent.clone()));
        }
        return;
    }
    let mut engine = Engine::new(
        s,
        &setup.derived,
        crate::policy::engine::e4_policy(&setup.policy, setup.session.harness),
        setup.protector(),
        s.requests.len(),
    )
    .newly_only();
    for r in &mut ev.requests {
        if engine.step().is_none() {
            break;
        }
        r.facts.idle_simulated = Some(Box::new(engine.idle_server_step().map_or(
            not_sent.clone(),
            |st| {
                let sent = st.sent();
                crate::evidence::facts::IdleSimulated {
                    sent,
                    trigger: st.decision.trigger.filter(|_| sent),
                    keep: st.decision.keep.filter(|_| sent),
                    cleared_tool_uses: if st.applied {
                        st.cleared_tool_uses as u64
                    } else {
                        0
                    },
                    cleared_input_tokens: if st.applied {
                        st.cleared_input_tokens
                    } else {
                        0
                    },
                    clears_pdf_page_texts: sent && st.decision.pdf.clears_page_texts,
                    exclude_tools: st.decision.exclude_tools.clone(),
                }
            },
        )));
    }
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
/// only where a break was observed) and the harness could have run the plan
/// there (SPEC §15.10), and a
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
        // SPEC §15.10: a what-if plan (the build had no such code path, or
        // a sub-agent's file, §13.S9) explains nothing that happened.
        let brk = matches!(setup.policy.delivery, Delivery::Rewrite | Delivery::Server)
            && !setup.what_if_at(req, st.kind)
            && brk();
        ev.observed_break = Some(b.with_plan_rewrite(brk));
    }
    if st.fired() && st.kind.is_some_and(PlanKind::shows_unrecorded) {
        ev.budget_fired(req.begins_turn, ids_of(&setup.session, &st.newly_cleared));
    }
}

/// Evidence with the selected plan beside it, for `mcscope evidence`.
#[derive(Debug, Clone)]
pub struct EvidenceReport {
    pub evidence: SessionEvidence,
    /// The selected plan's newly cleared ids at each request a record is
    /// compared at (`evidence::compared_at`).
    pub selected_newly: std::collections::BTreeMap<usize, Vec<String>>,
    /// SPEC §16.I: whether each record-writing plan kind ran.
    pub ran: Vec<super::Ran>,
}

/// The session's evidence with `plan_rewrite` from the selected plan (one pass
/// of its timeline, made only when a break or a record needs it).
pub fn evidence_report(setup: &Setup, forced_at: usize) -> EvidenceReport {
    let mut ev = evidence(setup);
    let mut selected_newly = std::collections::BTreeMap::new();
    // A kind whose firing without a record is evidence needs its timeline.
    let needed = setup.policy.may_run(PlanKind::shows_unrecorded)
        || ev
            .requests
            .iter()
            .any(|r| r.observed_break.is_some() || r.microcompact.is_some());
    if needed {
        selected_newly =
            beside_timeline(setup, forced_at, &mut ev, |_, _, _| true).unwrap_or_default();
    }
    EvidenceReport {
        evidence: ev,
        selected_newly,
        ran: super::ran(setup),
    }
}

/// One pass of the selected plan's timeline beside the evidence `ev` (SPEC §10):
/// `plan_rewrite` and the record comparisons filled in, and the plan's newly
/// cleared ids at each request that holds a record (`EvidenceReport`). `each`
/// sees every step with its request's evidence and whether its wire breaks the
/// simulated prefix (asked on demand, computed once); it returns false to stop
/// the pass (None).
pub fn beside_timeline(
    setup: &Setup,
    forced_at: usize,
    ev: &mut SessionEvidence,
    mut each: impl FnMut(&Step, &crate::evidence::RequestEvidence, &dyn Fn() -> bool) -> bool,
) -> Option<std::collections::BTreeMap<usize, Vec<String>>> {
    let s = &setup.session;
    let mut selected_newly = std::collections::BTreeMap::new();
    // Where each record is compared with a simulation (SPEC §15.14: a prune
    // mark at the first request of its turn).
    let compared: std::collections::BTreeSet<usize> = ev
        .requests
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.microcompact.as_ref().map(|m| (i + 1, m.writer)))
        .map(|(k, w)| crate::evidence::compared_at(s, w, k))
        .collect();
    let mut prev: Option<Step> = None;
    // A tracked engine: each step says what changed in its wire, so a long
    // view's cumulative clearings (prune's, count's) are not listed and
    // compared whole at every request.
    let mut engine = setup.engine(forced_at).tracked().listing_newly();
    for st in std::iter::from_fn(move || engine.step()) {
        let k = st.index;
        let req = &s.requests[k - 1];
        let before = prev
            .as_ref()
            .filter(|p| s.requests[p.index - 1].segment == req.segment)
            .map_or(Wired::NONE, Step::wired);
        let broke = std::cell::OnceCell::new();
        let brk = || *broke.get_or_init(|| super::wired::step_break(s, req, before, &st).is_some());
        let Some(r) = ev.requests.get_mut(k - 1) else {
            break;
        };
        beside_plan(setup, r, req, &st, brk);
        if compared.contains(&k) {
            selected_newly.insert(
                k,
                st.newly_cleared
                    .iter()
                    .chain(&st.marked_elsewhere)
                    .map(|&i| s.results[i].id.clone())
                    .collect(),
            );
        }
        if !each(&st, r, &brk) {
            return None;
        }
        prev = Some(st);
    }
    Some(selected_newly)
}
