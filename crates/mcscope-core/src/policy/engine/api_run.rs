//! The `api` plan from one request to the next, at the cost of what changed.
//!
//! The server edits each request on its own (SPEC §11), and the plan says so by
//! reading every tool use, result and token of the view at every request and
//! clearing everything again: a body of n messages costs n² (a 40,000-message
//! body took minutes). Yet the view only grows: a request adds a few messages,
//! so the uses, each use's result tokens and the prompt's estimate can be kept
//! from the request before, and with one `clear_tool_uses` edit that clears
//! nothing but results (no excluded tools, no inputs) and ids used once, what
//! it clears is always a prefix of the uses: all but the last `keep`. A tracked
//! engine (a timeline's text, `compare`: they read what changed) keeps that
//! prefix in force and clears or lifts only where it moved.

use super::*;
use crate::policy::api::{ClearInputs, Edit, TriggerOn};

/// The carried state of the `api` plan over one view.
#[derive(Debug, Clone, Default)]
pub(super) struct ApiRun {
    pub(super) on: bool,
    facts: Option<std::sync::Arc<ApiFacts>>,
    msgs_end: usize,
    results_end: usize,
    /// Σ tokens of the view's messages (the prompt's estimate).
    tokens: u64,
    /// How many tool uses the view holds; each one's place by its id, its
    /// result in the view (at most one: ids are used once) and that result's
    /// tokens.
    uses: usize,
    use_of: HashMap<std::sync::Arc<str>, usize>,
    result_of: Vec<Option<usize>>,
    use_tokens: Vec<u64>,
    /// Results seen before their use (the use will read their tokens).
    early: HashMap<Box<str>, (usize, u64)>,
    /// The prefix the plan reads (all uses but the last `keep`) and Σ of its
    /// uses' result tokens.
    prefix: usize,
    prefix_tokens: u64,
    /// The prefix whose results are cleared in the wire now (0: none).
    in_force: usize,
    /// How many results the plan has cleared in the wire, their tokens, and
    /// what they would add to the size total (the plan's own pass reads that
    /// total with every clearing lifted).
    cleared_n: usize,
    cleared_tokens: u64,
    cleared_chars: u64,
}

/// The plan at one request by the carried state.
pub(super) struct ApiCarried {
    pub(super) verdict: Verdict,
    pub(super) step: ApiStep,
    /// What the plan's own pass lists as newly cleared: how many, and tokens.
    pub(super) newly: usize,
    pub(super) newly_tokens: u64,
}

impl<'s> Engine<'s> {
    /// Turns the carried `api` plan on where it applies (see the module).
    pub(super) fn api_run_on(&mut self) {
        let s = self.s;
        let one_edit = matches!(
            self.policy.api.edits.as_slice(),
            [Edit::ClearToolUses {
                exclude_tools,
                clear_inputs: ClearInputs::None,
                ..
            }] if exclude_tools.is_empty()
        );
        // Kind `api`: the engine read them when it was made.
        let facts = self
            .plans
            .get::<ApiState>()
            .and_then(|a| a.facts.clone())
            .filter(|f| f.msgs.len() == s.messages.len());
        let Some(facts) = facts.filter(|_| one_edit) else {
            return;
        };
        // Ids used once, each answered at most once: a use's results are its one.
        let mut seen: HashSet<&str> = HashSet::new();
        let uses_once = facts
            .msgs
            .iter()
            .flat_map(|m| &m.uses)
            .all(|u| seen.insert(&*u.id));
        let mut seen: HashSet<&str> = HashSet::new();
        let results_once = s.results.iter().all(|r| seen.insert(r.id.as_str()));
        // The session's own calls likewise, each before its result: then no
        // candidate is ever made again (`sync_view`'s dirty ids), so no
        // clearing lapses behind the carried state's back.
        let mut call_msg: HashMap<&str, usize> = HashMap::new();
        let calls_once = s
            .calls
            .iter()
            .all(|c| call_msg.insert(c.id.as_str(), c.msg).is_none());
        let answered_after = s
            .results
            .iter()
            .all(|r| call_msg.get(r.id.as_str()).is_none_or(|&m| m < r.msg));
        if uses_once && results_once && calls_once && answered_after {
            self.plans.of::<ApiState>().run = ApiRun {
                on: true,
                facts: Some(facts),
                ..ApiRun::default()
            };
        }
    }

    /// Starts the carried state over (a new view).
    pub(super) fn api_run_clear(&mut self) {
        if let Some(a) = self.plans.get_mut::<ApiState>().filter(|a| a.run.on) {
            a.run = ApiRun {
                on: true,
                facts: a.run.facts.clone(),
                ..ApiRun::default()
            };
        }
    }

    /// Whether the plan at this request is the carried one.
    pub(super) fn api_carries(&self) -> bool {
        self.policy.kind.is_api() && self.plans.get::<ApiState>().is_some_and(|a| a.run.on)
    }

    /// Takes in the messages and results the view gained.
    fn api_run_grow(&mut self, req: &Request) -> Vec<usize> {
        let s = self.s;
        let Some(facts) = self.plans.of::<ApiState>().run.facts.clone() else {
            return Vec::new();
        };
        let run = &mut self.plans.of::<ApiState>().run;
        let from = run.msgs_end.max(req.view_start);
        let to = req.end.min(facts.msgs.len());
        for m in from..to {
            run.tokens += facts.msgs[m].tokens;
            if s.messages[m].role != Role::Assistant {
                continue;
            }
            for u in &facts.msgs[m].uses {
                let i = run.uses;
                let (result, tokens) = run.early.remove(&*u.id).unzip();
                run.uses += 1;
                run.use_of.insert(u.id.clone(), i);
                run.result_of.push(result);
                run.use_tokens.push(tokens.unwrap_or(0));
            }
        }
        run.msgs_end = run.msgs_end.max(to);
        let results = s.results_in(req.view_start, req.end);
        let mut arrived = Vec::new();
        for r in run.results_end.max(results.start)..results.end {
            let res = &s.results[r];
            match run.use_of.get(res.id.as_str()) {
                Some(&i) => {
                    run.result_of[i] = Some(r);
                    run.use_tokens[i] += res.est_tokens;
                    if i < run.prefix {
                        run.prefix_tokens += res.est_tokens;
                    }
                    arrived.push(i);
                }
                None => {
                    run.early
                        .insert(res.id.as_str().into(), (r, res.est_tokens));
                }
            }
        }
        run.results_end = results.end;
        arrived
    }

    /// The `api` plan at `req` from the carried state, its clearings made:
    /// the same verdict (but for the kept reasons, which only a plan's
    /// statuses read) and step as `api`, at the cost of what changed.
    /// `lapsed`: a turn start, where the plan's own pass lifts everything
    /// first and so lists every result it clears as new.
    pub(super) fn api_carried(&mut self, req: &Request, lapsed: bool) -> ApiCarried {
        let arrived = self.api_run_grow(req);
        let spec = &self.policy.api;
        let Some(Edit::ClearToolUses {
            trigger: on,
            keep,
            clear_at_least,
            ..
        }) = spec.edits.first().cloned()
        else {
            // api_run_on admits one clear_tool_uses edit only.
            return ApiCarried {
                verdict: Verdict::none(Note::Api(ApiNote {
                    prompt: Prompt {
                        tokens: 0,
                        source: TokenSource::Estimate,
                        uses: 0,
                    },
                    edits: Vec::new(),
                })),
                step: ApiStep::default(),
                newly: 0,
                newly_tokens: 0,
            };
        };
        let run = &self.plans.of::<ApiState>().run;
        let facts_len = run.facts.as_ref().map_or(0, |f| f.msgs.len());
        let (estimate, uses) = (run.tokens, run.uses);
        let (tokens, source) = if facts_len >= req.end {
            api::input_tokens_or(self.s, req, || estimate)
        } else {
            (0, TokenSource::Estimate)
        };
        let (measured, threshold) = match on {
            TriggerOn::InputTokens(v) => (tokens, v),
            TriggerOn::ToolUses(v) => (uses as u64, v),
        };
        let holds = spec.exceeds(measured, threshold);
        let trigger = ApiTrigger {
            on,
            tokens,
            uses,
            holds,
            inclusive: spec.trigger_inclusive,
        };
        // Every use but the last `keep` (no tool is excluded).
        let prefix = uses.saturating_sub(keep as usize);
        let run = &mut self.plans.of::<ApiState>().run;
        for i in run.prefix..prefix.max(run.prefix) {
            run.prefix_tokens += run.use_tokens[i];
        }
        run.prefix = run.prefix.max(prefix);
        let cleared_tokens = run.prefix_tokens;
        let outcome =
            super::api::clear_tool_uses_outcome(trigger, prefix, cleared_tokens, clear_at_least);
        let (applies, note) = (outcome.fired, outcome.note);
        // The clearings: lift all when the edit stops applying, else clear
        // the results the prefix gained (uses past the old prefix, and new
        // results of uses within it).
        let (before_n, before_tokens, old) = (run.cleared_n, run.cleared_tokens, run.in_force);
        let result_of = |e: &mut Engine<'_>, i: usize| e.plans.of::<ApiState>().run.result_of[i];
        if !applies {
            for i in 0..old {
                if let Some(r) = result_of(self, i) {
                    self.api_lift(r);
                }
            }
            self.plans.of::<ApiState>().run.in_force = 0;
        } else {
            let reason = |i: usize| {
                ClearReason::Api(ApiCleared {
                    trigger,
                    nth: i + 1,
                    of: uses,
                    keep,
                    input_too: false,
                })
            };
            let gained = arrived.iter().copied().filter(|&i| i < old);
            for i in gained.chain(old..prefix) {
                if let Some(r) = result_of(self, i) {
                    self.api_clear(req, r, reason(i));
                }
            }
            self.plans.of::<ApiState>().run.in_force = prefix;
        }
        let run = &self.plans.of::<ApiState>().run;
        let (n, t) = (run.cleared_n, run.cleared_tokens);
        let (newly, newly_tokens) = if lapsed {
            (n, t)
        } else {
            // Nothing is lifted while the edit applies: the growth is new.
            (n.saturating_sub(before_n), t.saturating_sub(before_tokens))
        };
        let step = ApiStep {
            input_tokens: tokens,
            source,
            tool_uses: uses,
            edits: vec![outcome],
            ..ApiStep::default()
        };
        let verdict = Verdict {
            trigger: applies.then_some(Trigger::ClearToolUses),
            clear: Vec::new(),
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note: Note::Api(ApiNote {
                prompt: Prompt {
                    tokens,
                    source,
                    uses,
                },
                edits: vec![note],
            }),
            kept: Why::default(),
            pre_tokens: None,
        };
        ApiCarried {
            verdict,
            step,
            newly: if applies { newly } else { 0 },
            newly_tokens: if applies { newly_tokens } else { 0 },
        }
    }

    /// Clears result `r` where the plan's pass would (not protected, not
    /// already cleared by the harness).
    fn api_clear(&mut self, req: &Request, r: usize, reason: ClearReason) {
        let p = self.pos_of[r];
        let Some(c) = self.view.cands.get(p).filter(|c| c.result == r) else {
            return;
        };
        if c.protected() || self.gone(r) || self.cleared[r].is_some() {
            return;
        }
        let clearing = Clearing {
            at: req.index,
            trigger: Trigger::ClearToolUses,
            reason,
        };
        self.clear_result(r, clearing);
        let (tokens, chars) = (self.s.results[r].est_tokens, self.running.base[r].0);
        let run = &mut self.plans.of::<ApiState>().run;
        run.cleared_n += 1;
        run.cleared_tokens += tokens;
        run.cleared_chars += chars;
    }

    /// The size total as the plan's own pass reads it: every clearing lifted.
    pub(super) fn api_size_total(&self) -> u64 {
        self.running.total
            + self
                .plans
                .get::<ApiState>()
                .map_or(0, |a| a.run.cleared_chars)
    }

    fn api_lift(&mut self, r: usize) {
        if self.cleared[r].is_some() {
            self.set_clearing(r, None);
            let (tokens, chars) = (self.s.results[r].est_tokens, self.running.base[r].0);
            let run = &mut self.plans.of::<ApiState>().run;
            run.cleared_n -= 1;
            run.cleared_tokens -= tokens;
            run.cleared_chars -= chars;
        }
    }
}

/// The `api` plan's state (SPEC §11).
#[derive(Clone, Default)]
pub(crate) struct ApiState {
    /// Its reading of the messages, read once.
    pub(super) facts: Option<std::sync::Arc<ApiFacts>>,
    /// The plan at the last evaluated request.
    pub(super) step: Option<ApiStep>,
    /// Its state carried from request to request (a tracked engine of one
    /// `clear_tool_uses` edit: `api_run`).
    pub(super) run: ApiRun,
}

impl ApiState {
    /// Its reading of the messages (made where the api plan runs;
    /// idle-server, which reads the same facts, keeps them in its own state).
    pub(super) fn new(s: &Session, derived: &crate::derived::Derived) -> ApiState {
        ApiState {
            facts: Some(ApiFacts::of_session(s, derived)),
            ..Default::default()
        }
    }
}

/// `api` (SPEC §11): Anthropic's server-side context editing.
pub(super) struct Api;

impl super::plan::Plan for Api {
    /// Its reading of the messages where it runs, and its carried run.
    fn state(&self, s: &Session, d: &Derived, p: &Policy) -> Option<PlanState> {
        p.kind.is_api().then(|| PlanState::new(ApiState::new(s, d)))
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Api
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, at: &super::plan::At) -> Decided {
        if e.api_carries() {
            let c = e.api_carried(req, at.api_lapses);
            return Decided {
                api: Some(Box::new(c.step)),
                carried: Some((c.newly_tokens, c.newly)),
                ..Decided::verdict(c.verdict)
            };
        }
        let facts = e.plans.get::<ApiState>();
        let (verdict, step) =
            super::api::api(&*e, &e.policy, facts.and_then(|a| a.facts.as_deref()), req);
        Decided {
            api: Some(Box::new(step)),
            ..Decided::verdict(verdict)
        }
    }

    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Server]
    }

    /// Carried, it decides its whole prefix again at a turn start.
    fn at_turn_start(&self, e: &Engine<'_>) -> super::plan::AtTurnStart {
        if e.api_carries() {
            super::plan::AtTurnStart::Carry
        } else {
            super::plan::AtTurnStart::Lapse
        }
    }

    /// The server edits each request on the full history (SPEC §11), unless
    /// the run carries its decisions from request to request.
    fn afresh(&self, e: &Engine<'_>) -> bool {
        !e.api_carries()
    }

    /// It keeps by its edits' `keep` (SPEC §11).
    fn keep_at(&self, _p: &Policy, _version: Option<&str>) -> Option<u32> {
        None
    }

    /// It is the api preset's (SPEC §11): delivered by the server, on a
    /// session whose requests the server's view exists for.
    fn refuses(
        &self,
        p: &Policy,
        session: crate::session::HarnessId,
    ) -> Option<crate::policy::Refused> {
        let carries = session.rules().offers_delivery(Delivery::Server);
        (p.delivery != Delivery::Server || !carries).then_some(crate::policy::Refused::Preset)
    }

    fn refusal(&self, _: &crate::policy::Refusal) -> (String, String) {
        (
            "plan kind api takes the api preset (--preset api, or \"preset\": \"api\" in the sidecar)"
                .into(),
            "add --preset api, or choose another --policy".into(),
        )
    }
}

impl super::own_state::OwnState for ApiState {
    const KIND: PlanKind = PlanKind::Api;
}
