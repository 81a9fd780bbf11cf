//! `timeline`: one row per request, streamed as JSON (schema
//! `mcscope.timeline/1`) or as a text table with the setting's totals.

use super::*;

/// `timeline --format json` (schema `mcscope.timeline/1`), written as the steps
/// are computed: one request's row in memory at a time.
///
/// `evidence` is the session's evidence without `plan_rewrite`, which each row
/// adds from its own step and the one before it (SPEC §10, §9 `break[k]`).
pub fn write_timeline_json(
    setup: &Setup,
    mut steps: impl Iterator<Item = Step> + Send,
    evidence: &SessionEvidence,
    facts: &SessionFacts,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    /// Steps rendered per batch: enough to keep every core busy, few enough
    /// that memory stays flat on a long session.
    const BATCH: usize = 256;
    // Written as serde_json's pretty printer writes the whole document: each
    // value is printed alone and indented for its depth.
    let mut out = out;
    let head = [
        ("schema", json!("mcscope.timeline/1")),
        ("session", serde_json::to_value(session_json_billed(setup))?),
        ("policy", serde_json::to_value(kinds::policy_all(setup))?),
        (
            "caveats",
            serde_json::to_value(caveats_json(setup.caveats_all()))?,
        ),
    ];
    out.write_all(b"{")?;
    for (key, value) in &head {
        write!(out, "\n  {}: ", Value::from(*key))?;
        crate::sanitize::json_pretty_nested(&mut out, value, b"\n  ")?;
        out.write_all(b",")?;
    }
    let records = records_by_request(&setup.session);
    let harness = crate::series::recorded_cleared_all(&setup.session);
    let records = (records, harness);
    out.write_all(b"\n  \"requests\": [")?;
    // The step before the batch (its predecessor's wire, for the prefix break).
    let mut prev: Option<Step> = None;
    let mut batch: Vec<Step> = steps.by_ref().take(BATCH).collect();
    let mut first = true;
    // What fills each request's window, running from request to request.
    let mut context = crate::context::ContextRun::new(setup);
    while !batch.is_empty() {
        let contexts: Vec<_> = batch.iter().map(|st| context.next(st)).collect();
        // The engine steps on while the batch's rows are rendered in parallel.
        let (next, rows) = rayon::join(
            || steps.by_ref().take(BATCH).collect::<Vec<Step>>(),
            || {
                let rendered = Rendered {
                    setup,
                    evidence,
                    facts,
                    records: &records,
                };
                rendered.rows(prev.as_ref(), &batch, &contexts)
            },
        );
        for row in rows? {
            out.write_all(if first { b"\n    " } else { b",\n    " })?;
            out.write_all(&row)?;
            first = false;
        }
        prev = batch.pop();
        batch = next;
    }
    out.write_all(if first { b"]\n}" } else { b"\n  ]\n}" })?;
    Ok(())
}

/// What every row of the timeline reads beside its own step.
struct Rendered<'a> {
    setup: &'a Setup,
    evidence: &'a SessionEvidence,
    facts: &'a SessionFacts,
    records: &'a Records,
}

impl Rendered<'_> {
    /// The rows of `batch` as pretty JSON indented for their place in the timeline
    /// document (two levels down), with each request's `context`.
    fn rows(
        &self,
        prev: Option<&Step>,
        batch: &[Step],
        contexts: &[crate::context::Context],
    ) -> std::io::Result<Vec<Vec<u8>>> {
        use rayon::prelude::*;
        let Rendered {
            setup,
            evidence,
            facts,
            records,
        } = *self;
        let s = &setup.session;
        (0..batch.len())
            .into_par_iter()
            .map(|i| {
                let st = &batch[i];
                let req = &s.requests[st.index - 1];
                let before = if i == 0 { prev } else { batch.get(i - 1) }
                    .filter(|p| s.requests[p.index - 1].segment == req.segment);
                let mut ev = evidence.at(st.index).cloned().unwrap_or_default();
                let brk = || {
                    let wired = before.map_or(analysis::Wired::NONE, Step::wired);
                    analysis::prefix_break(s, req, wired, st.wired()).is_some()
                };
                analysis::beside_plan(setup, &mut ev, req, st, brk);
                let f = totals::figures(setup, facts, before, st)?;
                let mut text = Vec::with_capacity(1024);
                crate::sanitize::json_pretty_nested(
                    &mut text,
                    &timeline_row(setup, st, &ev, &f, records, &contexts[i]),
                    b"\n    ",
                )?;
                Ok(text)
            })
            .collect()
    }
}

/// The session's `microcompact_boundary` records by the request they come
/// before (indices into `Session::evidence`, in file order): each row looks up
/// its own instead of scanning every record.
/// Beside them, what the harness itself kept out of each request's wire (SPEC
/// §9a `recorded_cleared`, index k − 1).
type Records = (
    std::collections::HashMap<usize, Vec<usize>>,
    Vec<crate::series::RecordedCleared>,
);

fn records_by_request(s: &Session) -> std::collections::HashMap<usize, Vec<usize>> {
    let mut out: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (i, e) in s.evidence.iter().enumerate() {
        out.entry(e.before_request).or_default().push(i);
    }
    out
}

/// A list of result ids, written as the ids' strings.
struct Ids<'a>(&'a Session, &'a [usize]);

impl Serialize for Ids<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.1.iter().map(|&r| self.0.results[r].id.as_str()))
    }
}

/// One request of the timeline JSON (SPEC §7, §9, §10), fields in schema order.
#[derive(Serialize)]
struct TimelineRow<'a> {
    index: usize,
    at: &'a Option<String>,
    gap_minutes: Option<Num>,
    send_kind: Option<SendKind>,
    begins_turn: bool,
    version: &'a Option<String>,
    #[serde(flatten)]
    kinds: kinds::RequestKindsJson,
    silent: bool,
    fired: bool,
    trigger: Option<&'static str>,
    newly_cleared: Ids<'a>,
    cleared: Ids<'a>,
    /// The ids a recorded cut replaced in this request's wire (SPEC §13.E1).
    cut: Vec<String>,
    tokens_saved: u64,
    tool_result_chars_after: u64,
    note: String,
    harness_evidence: Vec<&'a Vec<String>>,
    evidence: RequestEvidenceJson<'a>,
    /// The api preset's edits at this request (SPEC §11); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    api: Option<api::ApiJson<'a>>,
    /// SPEC §13.S10, per request (null unless idle-server is in force).
    idle_server: Option<kinds::IdleServerJson>,
    /// SPEC §18.3: present where the plan in force is Cline's.
    #[serde(skip_serializing_if = "Option::is_none")]
    cline: Option<Value>,
    in_wire_tokens: u64,
    cache_break: bool,
    tokens_rewritten: u64,
    warm: bool,
    cache_gap: Option<Num>,
    /// SPEC §9a: ids the transcript proves the harness kept out of k's wire.
    recorded_cleared: &'a [String],
    recorded_cleared_tokens: u64,
    /// SPEC §9: P(k) + `recorded_cleared_tokens` − `in_wire_tokens` (null without usage).
    sim_ctx: Option<u64>,
    /// SPEC §9a: R(k) / P(k), four decimals.
    hit_rate: Option<f64>,
    /// What fills the window (SPEC §12, §15.17).
    context: &'a crate::context::Context,
}

fn timeline_row<'a>(
    setup: &'a Setup,
    st: &'a Step,
    ev: &'a RequestEvidence,
    f: &RequestFigures,
    records: &'a Records,
    context: &'a crate::context::Context,
) -> TimelineRow<'a> {
    let s = &setup.session;
    let req = &s.requests[st.index - 1];
    let (records, harness) = records;
    let cleared = &harness[st.index - 1];
    let point = crate::series::Point {
        k: st.index,
        recorded: s.recorded_prompt(st.index),
        in_wire: f.in_wire_tokens,
        recorded_cleared: cleared.tokens,
        ..Default::default()
    };
    TimelineRow {
        index: st.index,
        at: &req.at,
        gap_minutes: gap_json(st.gap_minutes),
        send_kind: send_kind(req),
        begins_turn: req.begins_turn,
        version: &req.version,
        kinds: kinds::request_kinds(setup, req, st.kind),
        silent: silent(st, req.begins_turn),
        fired: st.fired(),
        trigger: st.trigger.map(|t| t.name()),
        newly_cleared: Ids(s, &st.newly_cleared),
        cleared: Ids(s, &st.cleared),
        cut: super::plan::cut_ids(s, req),
        tokens_saved: st.tokens_saved,
        tool_result_chars_after: st.chars_after,
        note: st.note.to_string(),
        harness_evidence: records
            .get(&st.index)
            .into_iter()
            .flatten()
            .map(|&i| &s.evidence[i].compacted_tool_ids)
            .collect(),
        evidence: ev.json(),
        api: api::json(setup, st),
        idle_server: st.idle_server.as_deref().map(kinds::idle_server_json),
        cline: mcscope_core::policy::engine::cline_request_json(s, st.index, &st.note),
        in_wire_tokens: f.in_wire_tokens,
        cache_break: f.cache_break(),
        tokens_rewritten: f.tokens_rewritten,
        warm: f.warm,
        cache_gap: gap_json(f.cache_gap),
        recorded_cleared: &cleared.ids,
        recorded_cleared_tokens: cleared.tokens,
        sim_ctx: point.simulated(),
        hit_rate: crate::series::hit_rate(s, st.index),
        context,
    }
}

/// `timeline --format text`: one line per request with its cache column (SPEC
/// §9: `broken` while warm, `kept`, `cold`), then the setting's totals;
/// `forced` acts at request `forced_at`. The steps come from a tracked engine
/// (`analysis::tracked_steps`): a row needs the counts and figures of what is
/// cleared, never its list, so a row costs what changed at its request.
pub fn timeline_text(setup: &Setup, forced_at: usize, facts: &SessionFacts) -> String {
    let t = timeline_parts(setup, forced_at, facts);
    let mut out = t.head;
    super::table_to(&mut out, &t.rows, TIMELINE_RIGHT);
    out.push_str(&t.totals);
    out.push_str(&t.tail);
    out
}

/// Which of the timeline table's columns are right-aligned.
pub const TIMELINE_RIGHT: &[bool] = &[
    true, false, true, false, false, true, true, true, true, false,
];

/// The parts of [`timeline_text`], for `timeline --follow`, which prints the
/// head once, then new rows in the first rows' columns and the totals again.
pub struct TimelineParts {
    /// The header lines and the blank line under them.
    pub head: String,
    /// The table's rows, its column titles first (laid out by `table`).
    pub rows: super::Rows,
    /// The totals line.
    pub totals: String,
    /// What follows it: incomplete figures, the harness evidence, one a line.
    pub tail: String,
}

/// [`timeline_text`] in parts.
pub fn timeline_parts(setup: &Setup, forced_at: usize, facts: &SessionFacts) -> TimelineParts {
    let s = &setup.session;
    let mut out = String::new();
    header(
        setup,
        &setup.kinds_chosen(),
        kinds::policy_all(setup).keep_recent(),
        &setup.caveats_all(),
        &mut out,
    );
    let _ = writeln!(out);
    let head = std::mem::take(&mut out);
    let mut titles = vec![
        "REQ",
        "AT",
        "GAP MIN",
        "TURN",
        "FIRED",
        "NEW",
        "IN WIRE",
        "~SAVED",
        "CHARS AFTER",
        "CACHE",
        "WHY",
    ];
    let api_col = setup.policy.kind.is_api();
    if api_col {
        titles.insert(10, "EDITS sim | recorded");
    }
    let mut rows = super::Rows::with_titles(titles);
    let mut acc = totals::Accumulator::new(s);
    let mut failed: Option<std::io::Error> = None;
    let mut prev: Option<Step> = None;
    for step in analysis::tracked_steps(setup, forced_at) {
        let st = &step;
        let req = &s.requests[st.index - 1];
        let before = prev
            .as_ref()
            .filter(|p| p.index + 1 == st.index && s.requests[p.index - 1].segment == req.segment);
        let cache = match totals::figures(setup, facts, before, st) {
            Ok(f) => {
                acc.add(setup, facts, st, &f);
                f.cache_word().to_string()
            }
            Err(e) => {
                failed.get_or_insert(e);
                "?".into()
            }
        };
        let mut row = vec![
            st.index.to_string(),
            req.at.as_deref().map_or("?".into(), crate::zone::local),
            fmt_gap(st.gap_minutes),
            match &req.send {
                Some(send) => send.kind.name().into(),
                None if req.begins_turn => "new".into(),
                None => "loop".into(),
            },
            match st.trigger {
                Some(t) if silent(st, req.begins_turn) => format!("{} (silent)", t.name()),
                // SPEC §13.P3: a clearing the build could not have made.
                Some(t) if st.fired() && setup.what_if_at(req, st.kind) => {
                    format!("{} (what-if)", t.name())
                }
                Some(t) if st.fired() => t.name().into(),
                _ => "-".into(),
            },
            st.wire
                .as_ref()
                .map_or(st.newly_cleared.len(), |w| w.newly)
                .to_string(),
            st.wire
                .as_ref()
                .map_or(st.cleared.len(), |w| w.count)
                .to_string(),
            fmt_int(st.tokens_saved),
            fmt_int(st.chars_after),
            cache,
            st.note.to_string(),
        ];
        if api_col {
            row.insert(10, crate::evidence::api::cell(s, st));
        }
        rows.push(row);
        prev = Some(step);
    }
    let t = &acc.totals;
    let _ = writeln!(
        out,
        "totals: {} fires, {} results cleared, {} tokens not sent, {} cache breaks while warm re-writing {} tokens, {} cleared results used again later (cache TTL {})",
        t.fires,
        t.cleared_results,
        fmt_int(t.tokens_not_sent),
        t.cache_breaks,
        fmt_int(t.tokens_rewritten),
        t.later_used,
        facts.cache_ttl.name(),
    );
    let totals = std::mem::take(&mut out);
    if let Some(e) = failed {
        let _ = writeln!(
            out,
            "cache figures incomplete: the records could not be read back: {e}"
        );
    }
    for e in &s.evidence {
        if e.pruned {
            // SPEC §14: the harness's stored prune marks (OpenCode's), not a record line.
            let _ = writeln!(
                out,
                "harness evidence: {}'s prune marks (state.time.compacted) first sent at request {} cleared [{}]",
                s.harness.rules().title,
                e.before_request,
                sanitize::joined(&e.compacted_tool_ids, ", ")
            );
            continue;
        }
        // SPEC §14: Gemini CLI's masking, written into the file; else the
        // harness's own record kind.
        let (record, did) = if e.mask {
            ("masking recorded", "masked")
        } else {
            (s.harness.rules().words.records, "cleared")
        };
        let _ = writeln!(
            out,
            "harness evidence: {record}{} before request {} {did} [{}]",
            super::at_line(e.line),
            e.before_request,
            sanitize::joined(&e.compacted_tool_ids, ", ")
        );
    }
    TimelineParts {
        head,
        rows,
        totals,
        tail: out,
    }
}
