//! The wire of one request from its plan: what it needs, owned (so it can be
//! built later or on another thread), and the prefix it breaks.

use super::*;

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
    /// Messages the plan leaves out of the wire (Cline's truncated range).
    pub dropped: Vec<std::ops::Range<usize>>,
    /// Text blocks the plan rewrites in the wire (Cline's truncation notice).
    pub texts: Vec<(usize, usize, &'static str)>,
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
            dropped: Vec::new(),
            texts: Vec::new(),
            server: None,
        }
    }

    /// The engine's state at `request`, taken out of it.
    pub(super) fn of(setup: &Setup, engine: &Engine<'_>, request: &Request) -> WireInputs {
        let s = &setup.session;
        let fired_forced = setup.policy.kind.fires_at_view()
            && engine
                .candidates()
                .iter()
                .any(|c| c.cleared_at == Some(request.index));
        WireInputs {
            request: request.clone(),
            // idle-server's edit is the server's whatever the delivery asked.
            delivery: if engine.idle_server_step().is_some_and(|i| i.sent()) {
                Delivery::Server
            } else {
                setup.policy.delivery
            },
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
            server: server_edits(setup, engine.api_step())
                .or_else(|| idle_server_edits(engine.idle_server_step())),
            dropped: engine.dropped_messages(),
            texts: engine.wire_texts(),
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
            dropped: &self.dropped,
            texts: &self.texts,
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
    setup.checkpoints.with_engine(setup, k, |s, engine, save| {
        plan_from(setup, s, engine, save, k)
    })
}

/// `plan_and_inputs` from an engine standing at or before request k - 1 (a new
/// one at the start of k's view, or a saved state), saving states on the way.
fn plan_from<'s>(
    setup: &Setup,
    s: &'s Session,
    mut engine: Engine<'s>,
    save: &mut dyn FnMut(&Engine<'s>),
    k: usize,
) -> std::io::Result<(PlanAt, WireInputs)> {
    // The quiet steps, up to k - 2, each a state a later plan may resume from.
    while engine.next_request() + 1 < k {
        if engine.carry().is_none() {
            break;
        }
        save(&engine);
    }
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
    if setup.policy.delivery == Delivery::CacheEdits && s.harness.dialect().has_cache_edits() {
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
        .filter(|c| match rules.tools.vouchers {
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
                // Absolute where the record's `cwd` makes it so; a relative
                // path as recorded where no `cwd` is known (Gemini CLI).
                evicted_read_paths.push(p.display());
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
    if !setup.policy.kind.is_api() {
        // idle-server's are its step's (`idle_server_edits`).
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

/// The edit `idle-server` sent at a request (SPEC §13.S10): the local side
/// carries it in `context_management`; the server view has the placeholder.
fn idle_server_edits(
    step: Option<&crate::policy::engine::IdleServerStep>,
) -> Option<wire::ServerEdits> {
    let step = step.filter(|i| i.sent())?;
    Some(wire::ServerEdits {
        edits: step.edits_json(),
        placeholder: crate::harness::CLEARED.to_string(),
        thinking: Default::default(),
        inputs: Default::default(),
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
/// (SPEC §6 `rewrite`, §9 `break[k]`): [`prefix_break_message`]'s message, as
/// its place in the body (dead branches left out, SPEC §15.1).
pub fn prefix_break(
    s: &Session,
    request: &Request,
    before: Wired<'_>,
    now: Wired<'_>,
) -> Option<usize> {
    prefix_break_message(s, request, before, now).map(|m| request.wire_pos(m))
}

/// Where step `st`'s wire breaks the prefix of the step before it (`before`,
/// `Wired::NONE` in another view): from what changed where the step was
/// tracked, else from its lists.
pub fn step_break(s: &Session, request: &Request, before: Wired<'_>, st: &Step) -> Option<usize> {
    match &st.wire {
        Some(w) => prefix_break_tracked(s, request, w, before, st.wired()),
        None => prefix_break(s, request, before, st.wired()),
    }
}

/// [`prefix_break`] for a tracked step (`Engine::tracked`), from what changed
/// in its wire (`w`) instead of the two lists of what is cleared there: the
/// same answer at the cost of the change. `before` and `now` give the media
/// and the server's edits, as [`prefix_break`] reads them.
pub(crate) fn prefix_break_tracked(
    s: &Session,
    request: &Request,
    w: &crate::policy::engine::WireDelta,
    before: Wired<'_>,
    now: Wired<'_>,
) -> Option<usize> {
    // A result a recorded cut replaced here is in neither wire's list there.
    let results = w
        .added
        .iter()
        .chain(&w.removed)
        .filter(|&&r| !s.cut_at(r, request.index))
        .map(|&r| s.results[r].msg);
    let media = |w: Wired<'_>| -> HashSet<(usize, usize)> { w.media.iter().copied().collect() };
    let server = |w: Wired<'_>| -> HashSet<(usize, usize)> { w.server.iter().copied().collect() };
    results
        .chain(media(now).symmetric_difference(&media(before)).map(|m| m.0))
        .chain(
            server(now)
                .symmetric_difference(&server(before))
                .map(|m| m.0),
        )
        .min()
        .map(|m| request.wire_pos(m))
}

/// The first message of the view (its index in the session) holding a result
/// cleared in request `request`'s wire and not in `before`, or the other way
/// round. `before` is what was cleared in the previous request's wire (empty
/// when it lay in another view).
pub fn prefix_break_message(
    s: &Session,
    request: &Request,
    before: Wired<'_>,
    now: Wired<'_>,
) -> Option<usize> {
    // A result a recorded cut replaced here is the same in every plan's wire and
    // in the reference: what it read before is no break of the plan (SPEC §15.4).
    let results = |w: Wired<'_>| -> HashSet<usize> {
        w.cleared
            .iter()
            .copied()
            .filter(|&r| !s.cut_at(r, request.index))
            .collect()
    };
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
    first.filter(|&m| m >= request.view_start)
}

/// A recorded path as compared: made absolute against its record's `cwd`
/// (from `/` without one); two spellings of one Windows path are one path.
fn path_key(p: &crate::policy::protect::RecordedPath) -> String {
    crate::policy::protect::lexical(&p.path, p.cwd.as_deref()).key()
}

/// The content of the tool result `id` as request `k`'s body holds it, as
/// recorded (`Side::Local`) or as sent (`Side::Wire`: the placeholder where a
/// plan cleared it) (text; other blocks as their JSON). An error when the body
/// does not hold it (a plan that deletes results, or a view without it).
pub fn result_content(setup: &Setup, k: usize, id: &str, side: Side) -> Result<String, String> {
    let s = &setup.session;
    // An output the transcript holds only masked, whose original the harness
    // saved apart (Gemini CLI's tool-outputs/): the original is what was lost.
    if side == Side::Local
        && let Some(text) = s
            .results
            .iter()
            .enumerate()
            .filter(|(_, r)| r.id == id)
            .find_map(|(i, _)| s.masking.saved_originals.get(&i))
    {
        return Ok(format!(
            "[the transcript holds this output masked; the original Gemini CLI saved under tool-outputs/:]\n{text}"
        ));
    }
    let body = super::wire_at(setup, k, side).map_err(|e| e.to_string())?;
    let content = crate::harness::result_content(&body, id).ok_or("not in this request's body")?;
    Ok(match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("text").and_then(|t| t.as_str()) {
                Some(t) => t.to_string(),
                None => serde_json::to_string_pretty(b).unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    })
}
