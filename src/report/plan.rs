//! `plan`: one request's plan as JSON (schema `mcscope.plan/1`) and as text.

use super::*;

/// `plan --format json` (schema `mcscope.plan/1`), fields in schema order.
#[derive(Serialize)]
pub struct PlanJson<'a> {
    schema: &'static str,
    session: SessionJson<'a>,
    request: Option<PlanRequestJson<'a>>,
    policy: PolicyJson,
    caveats: Vec<CaveatJson>,
    protection: RootsJson,
    fired: bool,
    trigger: Option<&'static str>,
    evidence: RequestEvidenceJson<'a>,
    note: String,
    candidates: Vec<CandidateJson<'a>>,
    cleared: Vec<String>,
    kept: Vec<String>,
    protected: Vec<String>,
    /// The ids a recorded `tool_results_cut` replaced in K's wire, in message
    /// order (SPEC §13.E1): facts, in every plan.
    cut: Vec<String>,
    metadata: MetadataJson<'a>,
    /// The api preset's edits at this request (SPEC §11); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    api: Option<api::ApiJson<'a>>,
    /// SPEC §13.S10: present when the plan in force at K is `idle-server`.
    #[serde(skip_serializing_if = "Option::is_none")]
    idle_server: Option<kinds::IdleServerJson>,
}

/// The `request` object: the request K the plan is at.
#[derive(Serialize)]
struct PlanRequestJson<'a> {
    index: usize,
    at: &'a Option<String>,
    gap_minutes: Option<Num>,
    send_kind: Option<SendKind>,
    begins_turn: bool,
    messages: usize,
    version: &'a Option<String>,
    #[serde(flatten)]
    kinds: kinds::RequestKindsJson,
    silent: bool,
    /// SPEC §18.3: present where the plan in force is Cline's.
    #[serde(skip_serializing_if = "Option::is_none")]
    cline: Option<Value>,
}

/// One candidate of the plan: the result, its status and why.
#[derive(Serialize)]
struct CandidateJson<'a> {
    tool_use_id: &'a str,
    tool: &'a Option<String>,
    rank: Option<usize>,
    chars: u64,
    est_tokens: u64,
    /// The harness's own estimate where it decides by one (SPEC §15.13).
    harness_tokens: Option<u64>,
    media: u32,
    path: &'a Option<String>,
    input: &'a Option<String>,
    is_error: bool,
    pending: bool,
    status: &'static str,
    reason: String,
    cleared_at: Option<usize>,
    /// `{stand_in, cause, at}` when a recorded cut replaced it (SPEC §13.J).
    cut: Option<CutJson<'a>>,
    protection: &'a Option<Protection>,
    dead_branch: bool,
    /// SPEC §17.C.U3, §18.17: a PDF page-text read, whose size the
    /// transcript does not hold (`chars` and `est_tokens` 0); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    size_unknown: bool,
    /// SPEC §17.C.U4: `earlier_messages` for a compact summary's kept call;
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
}

/// `candidates[].cut` (SPEC §13.J): the stand-in, the record's cause, and the
/// first request it was cut at.
#[derive(Serialize)]
pub(super) struct CutJson<'a> {
    stand_in: &'a str,
    cause: Option<&'a str>,
    at: usize,
}

impl<'a> CutJson<'a> {
    /// Result `r`'s cut as of request `k`, if it stands cut there.
    pub(super) fn of(s: &'a crate::session::Session, r: usize, k: usize) -> Option<CutJson<'a>> {
        let m = s.cut_mark(r).filter(|m| m.at <= k)?;
        let rec = s.cuts.get(m.record)?;
        Some(CutJson {
            stand_in: rec.stand_in.as_deref()?,
            cause: rec.cause.as_deref(),
            at: m.at,
        })
    }
}

/// The ids cut in request `req`'s wire, in message order (SPEC §13.E1).
pub(super) fn cut_ids(s: &crate::session::Session, req: &crate::session::Request) -> Vec<String> {
    if s.cut.is_empty() {
        return Vec::new();
    }
    s.results_in(req.view_start, req.end)
        .filter(|&r| s.cut_at(r, req.index))
        .map(|r| s.results[r].id.clone())
        .collect()
}

/// The plan's `metadata` object.
#[derive(Serialize)]
struct MetadataJson<'a> {
    tool_result_chars_before: u64,
    tool_result_chars_after: u64,
    target_chars: Option<u64>,
    tools_cleared: usize,
    tools_kept: usize,
    media_cleared: usize,
    media_kept: usize,
    tokens_saved: u64,
    in_wire_tokens: u64,
    pre_tokens: Option<u64>,
    evicted_read_paths: &'a [String],
    unresolved_evicted_reads: usize,
    media: Vec<MediaJson<'a>>,
    evicted_memory_bodies: Vec<MemoryBodyJson<'a>>,
    cache: CacheJson<'a>,
}

/// A Qwen media entry of the request (SPEC §5 media).
#[derive(Serialize)]
struct MediaJson<'a> {
    message_index: usize,
    part_index: usize,
    list: &'static str,
    tool_use_id: &'a Option<String>,
    mime: &'a str,
    status: &'static str,
}

/// A memory body a newly cleared `search_memory` result evicted (SPEC §3).
#[derive(Serialize)]
struct MemoryBodyJson<'a> {
    #[serde(rename = "memoryRef")]
    memory_ref: &'a str,
    #[serde(rename = "mtimeMs")]
    mtime_ms: &'a Value,
}

/// What the plan does to the prompt cache at the request.
#[derive(Serialize)]
struct CacheJson<'a> {
    prefix_broken_at_message: Option<usize>,
    tokens_after_break: u64,
    cache_edits_deleted: &'a [String],
}

/// `plan --format json` (schema `mcscope.plan/1`), with request K's evidence (§10).
pub fn plan_json<'a>(
    setup: &'a Setup,
    plan: &'a PlanAt,
    evidence: Option<&'a RequestEvidence>,
) -> PlanJson<'a> {
    let s = &setup.session;
    let candidates = plan
        .candidates
        .iter()
        .map(|c| {
            let r = &s.results[c.result];
            CandidateJson {
                tool_use_id: &r.id,
                tool: &c.tool,
                rank: c.rank,
                chars: r.chars,
                est_tokens: r.est_tokens,
                harness_tokens: s.harness_tokens.get(c.result).copied().flatten(),
                media: r.media,
                path: &c.path,
                input: &c.summary,
                is_error: r.is_error,
                pending: c.pending,
                status: c.status.name(),
                reason: words::reason(c, &plan.step.note),
                cleared_at: c.cleared_at,
                cut: CutJson::of(s, c.result, plan.request.index),
                protection: &c.protection,
                dead_branch: c.dead_branch,
                size_unknown: r.size_unknown,
                source: r.source,
            }
        })
        .collect();
    let step = &plan.step;
    let count = |st: Status| plan.candidates.iter().filter(|c| c.status == st).count();
    let req = &plan.request;
    PlanJson {
        schema: "mcscope.plan/1",
        session: session_json_billed(setup),
        request: (req.index > 0).then(|| PlanRequestJson {
            index: req.index,
            at: &req.at,
            gap_minutes: gap_json(req.gap_minutes),
            send_kind: send_kind(req),
            begins_turn: req.begins_turn,
            messages: req.end - req.view_start,
            version: &req.version,
            kinds: kinds::request_kinds(setup, req, step.kind),
            silent: silent(step, req.begins_turn),
            cline: mcscope_core::policy::engine::cline_request_json(s, req.index, &step.note),
        }),
        policy: kinds::policy_at(setup, req, step.kind),
        caveats: caveats_json(setup.caveats_at(req, step)),
        protection: roots_json(setup),
        fired: step.fired(),
        trigger: step.trigger.map(|t| t.name()),
        // No request: the empty evidence object (RequestEvidence::empty_json).
        evidence: evidence.map(RequestEvidence::json).unwrap_or_default(),
        note: step.note.to_string(),
        candidates,
        cleared: plan.ids_with(s, Status::Cleared),
        kept: plan.ids_with(s, Status::Kept),
        protected: plan.ids_with(s, Status::Protected),
        cut: cut_ids(s, req),
        metadata: MetadataJson {
            tool_result_chars_before: step.chars_before,
            tool_result_chars_after: step.chars_after,
            target_chars: step.target_chars,
            tools_cleared: step.newly_cleared.len(),
            tools_kept: count(Status::Kept),
            media_cleared: step.media_cleared,
            media_kept: step.media_kept,
            tokens_saved: step.tokens_saved,
            in_wire_tokens: plan
                .candidates
                .iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| s.results[c.result].est_tokens)
                .sum::<u64>()
                + crate::policy::engine::unattributed_tokens(&step.note),
            pre_tokens: step.pre_tokens,
            evicted_read_paths: &plan.evicted_read_paths,
            unresolved_evicted_reads: plan.unresolved_evicted_reads,
            media: plan
                .media
                .iter()
                .map(|m| MediaJson {
                    message_index: m.message_index,
                    part_index: m.part_index,
                    list: m.list,
                    tool_use_id: &m.tool_use_id,
                    mime: &m.mime,
                    status: if m.cleared { "media_cleared" } else { "kept" },
                })
                .collect(),
            evicted_memory_bodies: plan
                .evicted_memory_bodies
                .iter()
                .map(|(r, t)| MemoryBodyJson {
                    memory_ref: r,
                    mtime_ms: t,
                })
                .collect(),
            cache: CacheJson {
                prefix_broken_at_message: plan.cache.prefix_broken_at_message,
                tokens_after_break: plan.cache.tokens_after_break,
                cache_edits_deleted: &plan.cache.cache_edits_deleted,
            },
        },
        api: api::json(setup, step),
        idle_server: step.idle_server.as_deref().map(kinds::idle_server_json),
    }
}

pub fn plan_text(setup: &Setup, plan: &PlanAt) -> String {
    let s = &setup.session;
    let mut out = String::new();
    header(
        setup,
        &plan_kinds(setup, plan),
        kinds::policy_at(setup, &plan.request, plan.step.kind).keep_recent(),
        &setup.caveats_at(&plan.request, &plan.step),
        &mut out,
    );
    let req = &plan.request;
    if req.index == 0 {
        let _ = writeln!(out, "no requests: the session has no main-thread messages");
        return out;
    }
    let _ = writeln!(
        out,
        "request {}/{}  at {}  {}  {}",
        req.index,
        s.requests.len(),
        sanitize::line(&req.at.as_deref().map_or("?".into(), crate::zone::local)),
        crate::numbers::gap_words(req.gap_minutes),
        turn_words(req)
    );
    if let Some(v) = &req.version {
        let _ = writeln!(out, "version {}", sanitize::line(v));
    }
    let pl = setup.plausible(req, plan.step.kind);
    if pl.what_if() {
        let _ = writeln!(
            out,
            "what-if: this {} build / entrypoint has no code path for plan {} (reason {}): the clearing shown did not happen",
            setup.session.harness.rules().title,
            plan.step.kind.map_or("none", PlanKind::name),
            pl.reason
        );
    }
    if let Some(note) = req.send.as_ref().and_then(|s| s.note.as_deref()) {
        let _ = writeln!(out, "note: {}", sanitize::line(note));
    }
    let st = &plan.step;
    let _ = writeln!(
        out,
        "fired: {}  {}",
        match st.trigger {
            Some(t) if st.fired() => t.name(),
            _ => "no",
        },
        st.note
    );
    api::plan_lines(setup, st, &mut out);
    let _ = writeln!(out);
    out.push_str(&candidates_table(plan, &st.note, s));
    let _ = writeln!(out);
    summary_lines(setup, plan, &mut out);
    out
}

/// The table of the request's tool results: rank, id, tool, size, status,
/// path or input, and the reason in words.
fn candidates_table(
    plan: &PlanAt,
    note: &crate::policy::engine::Note,
    s: &crate::session::Session,
) -> String {
    let mut rows = super::Rows::with_titles([
        "RANK",
        "ID",
        "TOOL",
        "CHARS",
        "~TOKENS",
        "STATUS",
        "PATH / INPUT",
        "REASON",
    ]);
    for c in &plan.candidates {
        let r = &s.results[c.result];
        let mut status = format!("{} {}", glyph(c.status), c.status.name());
        if let Some(pr) = &c.protection
            && pr.outcome.name() != c.status.name()
        {
            status.push_str(&format!(" ({})", pr.outcome.name()));
        }
        if c.dead_branch {
            status.push_str(" (dead branch)");
        }
        rows.push([
            c.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
            r.id.clone(),
            c.tool.clone().unwrap_or_else(|| "?".into()),
            // A PDF page text's size is not in the transcript (SPEC §17.C.U3).
            if r.size_unknown {
                "?".into()
            } else {
                fmt_int(r.chars)
            },
            if r.size_unknown {
                "?".into()
            } else {
                fmt_int(r.est_tokens)
            },
            status,
            shorten(c.path.as_deref().or(c.summary.as_deref()).unwrap_or(""), 48),
            words::reason(c, note),
        ]);
    }
    table(&rows, &[true, false, false, true, true])
}

/// Under the table: what the plan saved, the ids by fate, the cache, and
/// the reads it evicted.
fn summary_lines(setup: &Setup, plan: &PlanAt, out: &mut String) {
    let s = &setup.session;
    let (st, req) = (&plan.step, &plan.request);
    let _ = writeln!(
        out,
        "newly cleared {} (~{} tokens saved, an estimate)  tool result chars {} -> {}{}",
        st.newly_cleared.len(),
        fmt_int(st.tokens_saved),
        fmt_int(st.chars_before),
        fmt_int(st.chars_after),
        st.target_chars
            .map(|t| format!("  (size target {})", fmt_int(t)))
            .unwrap_or_default()
    );
    if let Some(pre) = st.pre_tokens {
        let _ = writeln!(
            out,
            "budget: {} tokens of eligible results before (pre_tokens, an estimate)",
            fmt_int(pre)
        );
    }
    if silent(st, req.begins_turn) {
        let _ = writeln!(
            out,
            "silent: budget fired at a turn start; Claude Code's prompt-suggestion fork usually ran it at the end of the previous turn, so no microcompact_boundary record is expected"
        );
    }
    if let Some(note) = st.kind.and_then(PlanKind::placeholder_note)
        && !st.cleared.is_empty()
    {
        let _ = writeln!(out, "{note}");
    }
    let ids = |status| sanitize::joined(plan.ids_with(s, status), ", ");
    let _ = writeln!(out, "cleared in the wire: [{}]", ids(Status::Cleared));
    let _ = writeln!(out, "kept: [{}]", ids(Status::Kept));
    let _ = writeln!(out, "protected: [{}]", ids(Status::Protected));
    let cut = cut_ids(s, req);
    if !cut.is_empty() {
        let _ = writeln!(
            out,
            "cut by Claude Code (recorded): [{}]",
            sanitize::joined(&cut, ", ")
        );
    }
    match (
        &plan.cache.prefix_broken_at_message,
        plan.cache.cache_edits_deleted.is_empty(),
    ) {
        (Some(m), _) => {
            let _ = writeln!(
                out,
                "cache: prefix broken at message {m} (~{} tokens re-written)",
                fmt_int(plan.cache.tokens_after_break)
            );
        }
        (None, false) => {
            let _ = writeln!(
                out,
                "cache: prefix intact; cache_edits deletes [{}]",
                sanitize::joined(&plan.cache.cache_edits_deleted, ", ")
            );
        }
        (None, true) => {
            let _ = writeln!(out, "cache: prefix intact");
        }
    }
    if !plan.evicted_read_paths.is_empty() {
        let _ = writeln!(
            out,
            "evicted read paths: {}",
            sanitize::joined(&plan.evicted_read_paths, ", ")
        );
    }
    if plan.unresolved_evicted_reads > 0 {
        let _ = writeln!(
            out,
            "evicted reads without a path: {}",
            plan.unresolved_evicted_reads
        );
    }
}
