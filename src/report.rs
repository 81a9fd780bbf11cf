//! What the CLI prints: the JSON schemas of SPEC §7 (field names are a contract)
//! and the text forms people paste into bug reports.

use crate::analysis::{self, EvidenceReport, Explain, PlanAt, Setup};
use crate::caveats::{self, Caveat};
use crate::evidence::{Explanation, RequestEvidence, SessionEvidence};
use crate::policy::engine::{Status, Step, fmt_gap, fmt_int, fmt_num};
use crate::policy::protect::Protection;
use crate::policy::{PlanKind, Policy};
use crate::session::{Diagnostic, Session};
use crate::totals::{self, RequestFigures, SessionFacts};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt::Write as _;

pub mod api;

#[derive(Serialize)]
pub struct SessionJson<'a> {
    pub path: String,
    pub format: &'static str,
    pub harness: &'static str,
    pub records: usize,
    pub requests: usize,
    pub responses: usize,
    pub sidechain_records: usize,
    pub subagent_what_if: bool,
    pub diagnostics: &'a [Diagnostic],
}

pub fn session_json(s: &Session) -> SessionJson<'_> {
    SessionJson {
        path: s.path.display().to_string(),
        format: s.format.name(),
        harness: s.harness.name(),
        records: s.records,
        requests: s.requests.len(),
        responses: s.responses().count(),
        sidechain_records: s.sidechain_records,
        subagent_what_if: s.subagent_what_if,
        diagnostics: &s.diagnostics,
    }
}

/// The `policy` object: gap thresholds print as integers when they are whole;
/// `keep_recent` as [`keep_recent_of`] says.
pub fn policy_json(p: &Policy, keep_recent: Option<u32>) -> Value {
    let mut v = json!({
        "kind": p.kind.name(),
        "preset": p.preset_name(),
        "keep_recent": keep_recent,
        "gap_threshold_minutes": number(p.gap_threshold_minutes),
        "size_threshold": p.size_threshold,
        "low_watermark": p.low_watermark,
        "trigger_threshold": p.trigger_threshold,
        "delivery": p.delivery.name(),
        "protect": p.protect,
        "clear_errors": p.clear_errors,
        "budget_tokens": p.budget_tokens,
        "budget_min_saving": p.budget_min_saving,
        "budget_warning_tokens": p.budget_warning_tokens,
    });
    api::policy_keys(p, &mut v);
    v
}

/// `policy.keep_recent` (SPEC §5): the explicit value, else the default shared by
/// the kinds in force (`plan`: the one at K; `timeline`: all of them); null when
/// there is none or they differ.
pub fn keep_recent_of(p: &Policy, kinds: &[PlanKind]) -> Option<u32> {
    // The api preset keeps by its edits' `keep` (SPEC §11: null).
    if p.kind == PlanKind::Api {
        return None;
    }
    if p.keep_recent.is_some() {
        return p.keep_recent;
    }
    let first = kinds.first()?.default_keep();
    kinds
        .iter()
        .all(|k| k.default_keep() == first)
        .then_some(first)
}

/// The kind in force at the plan's request (none for a session without requests
/// under `auto`).
fn plan_kinds(setup: &Setup, plan: &PlanAt) -> Vec<PlanKind> {
    if plan.request.index == 0 {
        return setup.kinds_chosen();
    }
    plan.step.kind.into_iter().collect()
}

/// Whether the plan that ran at a request is `budget` and fired at a turn start:
/// the harness's prompt-suggestion fork usually cleared first, without a record.
pub fn silent(step: &Step, begins_turn: bool) -> bool {
    step.fired && step.trigger == Some(crate::policy::Trigger::Budget) && begins_turn
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

fn gap_json(g: Option<f64>) -> Value {
    g.map(|g| number((g * 1000.0).round() / 1000.0))
        .unwrap_or(Value::Null)
}

fn protection_json(p: &Option<Protection>) -> Value {
    match p {
        None => Value::Null,
        Some(p) => json!({
            "outcome": p.outcome.name(),
            "root": p.root.map(|r| r.name()),
            "resolved": p.resolved,
        }),
    }
}

fn roots_json(setup: &Setup) -> Value {
    let protector = setup.protector();
    let roots: Vec<Value> = protector
        .roots()
        .map(|(kind, dir, exists)| json!({"root": kind.name(), "dir": dir.display().to_string(), "exists": exists}))
        .collect();
    let map: Vec<Value> = setup
        .path_map
        .0
        .iter()
        .map(|(f, t)| json!({"from": f.display().to_string(), "to": t.display().to_string()}))
        .collect();
    json!({"memory_roots": roots, "path_map": map})
}

/// `plan --format json` (schema `mcscope.plan/1`), with request K's evidence (§10).
pub fn plan_json(setup: &Setup, plan: &PlanAt, evidence: Option<&RequestEvidence>) -> Value {
    let s = &setup.session;
    let candidates: Vec<Value> = plan
        .candidates
        .iter()
        .map(|c| {
            let r = &s.results[c.result];
            json!({
                "tool_use_id": r.id,
                "tool": c.tool,
                "rank": c.rank,
                "chars": r.chars,
                "est_tokens": r.est_tokens,
                "media": r.media,
                "path": c.path,
                "input": c.summary,
                "is_error": r.is_error,
                "pending": c.pending,
                "status": c.status.name(),
                "reason": c.reason,
                "cleared_at": c.cleared_at,
                "protection": protection_json(&c.protection),
            })
        })
        .collect();
    let step = &plan.step;
    let count = |st: Status| plan.candidates.iter().filter(|c| c.status == st).count();
    let kinds = plan_kinds(setup, plan);
    let mut out = json!({
        "schema": "mcscope.plan/1",
        "session": session_json(s),
        "request": (plan.request.index > 0).then(|| json!({
            "index": plan.request.index,
            "at": plan.request.at,
            "gap_minutes": gap_json(plan.request.gap_minutes),
            "send_kind": send_kind(&plan.request),
            "begins_turn": plan.request.begins_turn,
            "messages": plan.request.end - plan.request.view_start,
            "version": plan.request.version,
            "silent": silent(step, plan.request.begins_turn),
        })),
        "policy": policy_json(&setup.policy, keep_recent_of(&setup.policy, &kinds)),
        "caveats": caveats::json(&caveats::caveats(&setup.policy, &kinds)),
        "protection": roots_json(setup),
        "fired": step.fired,
        "trigger": step.trigger.map(|t| t.name()),
        "evidence": evidence.map_or_else(RequestEvidence::empty_json, RequestEvidence::json),
        "note": step.note,
        "candidates": candidates,
        "cleared": plan.ids_with(s, Status::Cleared),
        "kept": plan.ids_with(s, Status::Kept),
        "protected": plan.ids_with(s, Status::Protected),
        "metadata": {
            "tool_result_chars_before": step.chars_before,
            "tool_result_chars_after": step.chars_after,
            "target_chars": step.target_chars,
            "tools_cleared": step.newly_cleared.len(),
            "tools_kept": count(Status::Kept),
            "media_cleared": step.media_cleared,
            "media_kept": step.media_kept,
            "tokens_saved": step.tokens_saved,
            "in_wire_tokens": plan.candidates.iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| s.results[c.result].est_tokens)
                .sum::<u64>(),
            "pre_tokens": step.pre_tokens,
            "evicted_read_paths": plan.evicted_read_paths,
            "unresolved_evicted_reads": plan.unresolved_evicted_reads,
            "media": plan.media.iter().map(|m| json!({
                "message_index": m.message_index,
                "part_index": m.part_index,
                "list": m.list,
                "tool_use_id": m.tool_use_id,
                "mime": m.mime,
                "status": if m.cleared { "media_cleared" } else { "kept" },
            })).collect::<Vec<_>>(),
            "evicted_memory_bodies": plan.evicted_memory_bodies.iter()
                .map(|(r, t)| json!({"memoryRef": r, "mtimeMs": t}))
                .collect::<Vec<_>>(),
            "cache": {
                "prefix_broken_at_message": plan.cache.prefix_broken_at_message,
                "tokens_after_break": plan.cache.tokens_after_break,
                "cache_edits_deleted": plan.cache.cache_edits_deleted,
            },
        },
    });
    if let (Some(a), Value::Object(m)) = (api::json(setup, step), &mut out) {
        m.insert("api".into(), a);
    }
    out
}

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
    const BATCH: usize = 512;
    // Written as serde_json's pretty printer writes the whole document: each
    // value is printed alone and indented for its depth.
    let mut out = out;
    let kinds = setup.kinds_chosen();
    let head = [
        ("schema", json!("mcscope.timeline/1")),
        (
            "session",
            serde_json::to_value(session_json(&setup.session))?,
        ),
        (
            "policy",
            policy_json(&setup.policy, keep_recent_of(&setup.policy, &kinds)),
        ),
        (
            "caveats",
            caveats::json(&caveats::caveats(&setup.policy, &kinds)),
        ),
    ];
    out.write_all(b"{")?;
    for (key, value) in &head {
        write!(out, "\n  {}: ", Value::from(*key))?;
        serde_json::to_writer_pretty(Indented::new(&mut out, b"\n  "), value)?;
        out.write_all(b",")?;
    }
    out.write_all(b"\n  \"requests\": [")?;
    // The step before the batch (its predecessor's wire, for the prefix break).
    let mut prev: Option<Step> = None;
    let mut batch: Vec<Step> = steps.by_ref().take(BATCH).collect();
    let mut first = true;
    while !batch.is_empty() {
        // The engine steps on while the batch's rows are rendered in parallel.
        let (next, rows) = rayon::join(
            || steps.by_ref().take(BATCH).collect::<Vec<Step>>(),
            || render_rows(setup, evidence, facts, prev.as_ref(), &batch),
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

/// The rows of `batch` as pretty JSON indented for their place in the timeline
/// document (two levels down).
fn render_rows(
    setup: &Setup,
    evidence: &SessionEvidence,
    facts: &SessionFacts,
    prev: Option<&Step>,
    batch: &[Step],
) -> std::io::Result<Vec<Vec<u8>>> {
    use rayon::prelude::*;
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
            serde_json::to_writer_pretty(
                Indented::new(&mut text, b"\n    "),
                &timeline_row(setup, st, &ev, &f),
            )?;
            Ok(text)
        })
        .collect()
}

/// A writer that indents pretty JSON by a fixed depth: every newline it is
/// given becomes `newline` (a newline and the padding). JSON strings hold no
/// raw newline, so only the printer's own line breaks are touched.
struct Indented<'a, W> {
    out: W,
    newline: &'a [u8],
}

impl<'a, W: std::io::Write> Indented<'a, W> {
    fn new(out: W, newline: &'a [u8]) -> Self {
        Indented { out, newline }
    }
}

impl<W: std::io::Write> std::io::Write for Indented<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.out.write_all(&rest[..i])?;
            self.out.write_all(self.newline)?;
            rest = &rest[i + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A Qwen request's send kind (SPEC §2); null for other sessions.
fn send_kind(req: &crate::session::Request) -> Value {
    req.send
        .as_ref()
        .map_or(Value::Null, |s| json!(s.kind.name()))
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
    gap_minutes: Value,
    send_kind: Value,
    begins_turn: bool,
    version: &'a Option<String>,
    silent: bool,
    fired: bool,
    trigger: Option<&'static str>,
    newly_cleared: Ids<'a>,
    cleared: Ids<'a>,
    tokens_saved: u64,
    tool_result_chars_after: u64,
    note: &'a str,
    harness_evidence: Vec<&'a Vec<String>>,
    evidence: Value,
    /// The api preset's edits at this request (SPEC §11); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    api: Option<Value>,
    in_wire_tokens: u64,
    cache_break: bool,
    tokens_rewritten: u64,
    warm: bool,
    cache_gap: Value,
}

fn timeline_row<'a>(
    setup: &'a Setup,
    st: &'a Step,
    ev: &RequestEvidence,
    f: &RequestFigures,
) -> TimelineRow<'a> {
    let s = &setup.session;
    let req = &s.requests[st.index - 1];
    TimelineRow {
        index: st.index,
        at: &req.at,
        gap_minutes: gap_json(st.gap_minutes),
        send_kind: send_kind(req),
        begins_turn: req.begins_turn,
        version: &req.version,
        silent: silent(st, req.begins_turn),
        fired: st.fired,
        trigger: st.trigger.map(|t| t.name()),
        newly_cleared: Ids(s, &st.newly_cleared),
        cleared: Ids(s, &st.cleared),
        tokens_saved: st.tokens_saved,
        tool_result_chars_after: st.chars_after,
        note: &st.note,
        harness_evidence: s
            .evidence
            .iter()
            .filter(|e| e.before_request == st.index)
            .map(|e| &e.compacted_tool_ids)
            .collect(),
        evidence: ev.json(),
        api: api::json(setup, st),
        in_wire_tokens: f.in_wire_tokens,
        cache_break: f.cache_break(),
        tokens_rewritten: f.tokens_rewritten,
        warm: f.warm,
        cache_gap: gap_json(f.cache_gap),
    }
}

/// The requests of a session that hold evidence, with their index.
fn evidence_rows(r: &EvidenceReport) -> Vec<(usize, &RequestEvidence)> {
    r.evidence
        .requests
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_empty())
        .map(|(i, e)| (i + 1, e))
        .collect()
}

/// `evidence --format json` (schema `mcscope.evidence/1`, SPEC §10).
pub fn evidence_json(setup: &Setup, r: &EvidenceReport) -> Value {
    let rows = evidence_rows(r);
    let requests: Vec<Value> = rows
        .iter()
        .map(|(k, e)| {
            let mut v = json!({"index": k});
            if let (Value::Object(m), Value::Object(body)) = (&mut v, e.json()) {
                m.extend(body);
            }
            v
        })
        .collect();
    let warnings: Vec<Value> = r
        .evidence
        .warnings
        .iter()
        .map(|w| json!({"line": w.line, "message": w.message}))
        .collect();
    let mut counts = crate::evidence::counts(&rows);
    api::counts_json(setup, &mut counts);
    json!({
        "schema": "mcscope.evidence/1",
        "session": session_json(&setup.session),
        "policy": policy_json(&setup.policy, keep_recent_of(&setup.policy, &setup.kinds_chosen())),
        "caveats": caveats::json(&caveats::caveats(&setup.policy, &setup.kinds_chosen())),
        "requests": requests,
        "counts": counts,
        "warnings": warnings,
    })
}

/// `evidence` as text: the observed breaks with their explanations in words, the
/// harness's boundary records with their comparisons, the server's edits.
pub fn evidence_text(setup: &Setup, r: &EvidenceReport) -> String {
    let s = &setup.session;
    let mut out = String::new();
    header(setup, &setup.kinds_chosen(), &mut out);
    let rows = evidence_rows(r);
    let responses = rows.iter().filter(|(_, e)| e.usage.is_some()).count();
    let breaks = rows
        .iter()
        .filter(|(_, e)| e.observed_break.is_some())
        .count();
    let records = rows
        .iter()
        .map(|(_, e)| e.microcompact.iter().count() + e.compactions.len())
        .sum::<usize>();
    let _ = writeln!(
        out,
        "evidence: {responses} responses with usage, {breaks} observed cache break(s), {records} microcompact_boundary record(s)"
    );
    let at = |k: usize| {
        s.request(k)
            .and_then(|q| q.at.clone())
            .unwrap_or_else(|| "?".into())
    };
    for (k, e) in &rows {
        if let Some(b) = &e.observed_break {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "! request {k} at {}: cache read {} where {} were expected (drop {} tokens)",
                at(*k),
                fmt_int(b.observed),
                fmt_int(b.expected),
                fmt_int(b.drop())
            );
            for x in b.explanations() {
                let _ = writeln!(out, "    {}: {}", x.name(), x.words());
            }
        }
        let records = e.microcompact.iter().map(|m| (m, false));
        for (m, before_compaction) in records.chain(e.compactions.iter().map(|m| (m, true))) {
            let _ = writeln!(out);
            let place = if before_compaction {
                format!("the compaction before request {k}")
            } else {
                format!("request {k}")
            };
            let _ = writeln!(
                out,
                "◇ microcompact_boundary at line {} ({} writer) belongs to {place}: cleared [{}]; pre_tokens {}, tokens_saved {}",
                m.line,
                m.writer.name(),
                m.compacted_tool_ids.join(", "),
                m.pre_tokens.map_or("none".into(), fmt_int),
                m.tokens_saved.map_or("none".into(), fmt_int),
            );
            let _ = writeln!(
                out,
                "    against the {} plan: {}",
                m.writer.plan(),
                match &m.comparison {
                    Some(c) => c.words(),
                    None => "not compared: no request to simulate it on".into(),
                }
            );
            let selected = setup.policy.kind.name();
            if !before_compaction
                && selected != m.writer.plan()
                && let Some(ids) = r.selected_newly.get(k)
            {
                let c = crate::evidence::compare(&m.compacted_tool_ids, ids);
                let _ = writeln!(
                    out,
                    "    against the selected plan ({selected}): {}",
                    c.words()
                );
            }
        }
        if let Some(edits) = e.applied_edits.as_ref().filter(|v| !v.is_empty()) {
            let list: Vec<String> = edits.iter().map(Value::to_string).collect();
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "request {k}: the server applied context edits: {}",
                list.join(", ")
            );
        }
    }
    if breaks > 0 {
        let _ = writeln!(out);
        let counts = crate::evidence::counts(&rows);
        let tally: Vec<String> = Explanation::ALL
            .iter()
            .filter(|x| counts[x.name()].as_u64().unwrap_or(0) > 0)
            .map(|x| format!("{} {}", x.name(), counts[x.name()]))
            .collect();
        let _ = writeln!(out, "breaks by explanation: {}", tally.join(", "));
    }
    api::counts_text(setup, &mut out);
    for w in &r.evidence.warnings {
        let _ = writeln!(out, "warning: line {}: {}", w.line, w.message);
    }
    out
}

/// `explain --format json` (schema `mcscope.explain/1`).
pub fn explain_json(setup: &Setup, e: &Explain) -> Value {
    let rows: Vec<Value> = e
        .rows
        .iter()
        .map(|r| json!({"index": r.index, "status": r.status.name(), "reason": r.reason}))
        .collect();
    json!({
        "schema": "mcscope.explain/1",
        "tool_use_id": e.tool_use_id,
        "tool": e.tool,
        "path": e.path,
        "first_cleared_at": e.first_cleared_at,
        "caveats": caveats::json(&caveats::caveats(&setup.policy, &setup.kinds_chosen())),
        "requests": rows,
    })
}

// ---- text forms -------------------------------------------------------------

/// The header of every text form; `kinds` are the plan kinds in force (the
/// caveats and the default keep_recent follow them).
fn header(setup: &Setup, kinds: &[PlanKind], out: &mut String) {
    let s = &setup.session;
    let p = &setup.policy;
    let _ = writeln!(
        out,
        "{}  ({}, {} records, {} requests{})",
        s.path.display(),
        s.format.name(),
        s.records,
        s.requests.len(),
        if s.diagnostics.is_empty() {
            String::new()
        } else {
            format!(", {} diagnostics", s.diagnostics.len())
        }
    );
    if s.subagent_what_if {
        let _ = writeln!(
            out,
            "note: a sub-agent transcript, planned as a what-if: the harnesses never microcompact sub-agents"
        );
    }
    if s.sidechain_records > 0 {
        let _ = writeln!(out, "note: {}", left_out(s));
    }
    if p.kind == PlanKind::Api {
        api::header(p, out);
    } else {
        let _ = writeln!(
            out,
            "policy: {}{} (preset {})  keep_recent {}  gap >= {} min  size > {}{}  trigger {}  delivery {}  protect {}",
            p.kind.name(),
            match kinds {
                [k] if p.kind == PlanKind::Auto => format!(" -> {}", k.name()),
                [_, ..] if p.kind == PlanKind::Auto => format!(
                    " -> {}",
                    kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join("/")
                ),
                _ => String::new(),
            },
            p.preset.name(),
            match keep_recent_of(p, kinds) {
                Some(k) => k.to_string(),
                None => "by kind (idle 5, budget 3)".into(),
            },
            fmt_num(p.gap_threshold_minutes),
            p.size_threshold,
            if p.low_watermark {
                " (low watermark)"
            } else {
                ""
            },
            p.trigger_threshold,
            p.delivery.name(),
            if p.protect { "on" } else { "off" },
        );
    }
    if kinds.contains(&PlanKind::Budget) {
        let warning = match p.budget_warning_tokens {
            Some(w) => fmt_int(w),
            None => "by version (135,000 up to 2.1.20, else 147,000)".into(),
        };
        let _ = writeln!(
            out,
            "budget: {} tokens, min saving {}, usage gate {}",
            fmt_int(p.budget_tokens),
            fmt_int(p.budget_min_saving),
            warning
        );
    }
    let files: Vec<String> = [
        ("sidecar", &setup.settings.sidecar_path),
        ("config", &setup.settings.config.path),
    ]
    .iter()
    .filter_map(|(what, p)| p.as_ref().map(|p| format!("{what} {}", p.display())))
    .collect();
    if !files.is_empty() {
        let _ = writeln!(out, "settings read from: {}", files.join(", "));
    }
    caveats_text(&caveats::caveats(p, kinds), out);
    for d in &s.diagnostics {
        let _ = writeln!(
            out,
            "diagnostic: line {} (byte {}): {}",
            d.line, d.byte_offset, d.message
        );
    }
}

/// The caveats in words, one a line.
fn caveats_text(list: &[Caveat], out: &mut String) {
    for c in list {
        let _ = writeln!(out, "caveat ({}): {}", c.id, c.text);
    }
}

/// A table with aligned columns; the last column is left unpadded.
pub fn table(rows: &[Vec<String>], right: &[bool]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i] - c.chars().count();
            if i + 1 == r.len() {
                line.push_str(c);
            } else if right.get(i).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The glyph that marks a status, readable without colour.
pub fn glyph(st: Status) -> &'static str {
    match st {
        Status::Kept => "·",
        Status::Cleared => "✗",
        Status::Protected => "◆",
        Status::AlreadyCleared => "○",
        Status::ErrorKept => "!",
        Status::NotCompactable => "-",
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.replace('\n', " ");
    }
    let tail: String = s
        .chars()
        .rev()
        .take(max - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{}", tail.replace('\n', " "))
}

/// What kind of request this is, in words: a Qwen send kind, else turn or loop.
pub fn turn_words(req: &crate::session::Request) -> String {
    match &req.send {
        Some(send) => format!("{}: {}", send.kind.name(), send.kind.words()),
        None if req.begins_turn => "begins a turn".into(),
        None => "continues a tool loop".into(),
    }
}

/// Sub-agent records are never silently absent (SPEC §2): how many records and
/// tool calls the simulation left out, and why.
pub fn left_out(s: &Session) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    format!(
        "{} sub-agent record{} ({} tool call{}) left out of the simulation: the harnesses never microcompact sub-agents",
        fmt_int(s.sidechain_records as u64),
        plural(s.sidechain_records),
        fmt_int(s.sidechain_calls as u64),
        plural(s.sidechain_calls)
    )
}

pub fn plan_text(setup: &Setup, plan: &PlanAt) -> String {
    let s = &setup.session;
    let mut out = String::new();
    header(setup, &plan_kinds(setup, plan), &mut out);
    let req = &plan.request;
    if req.index == 0 {
        let _ = writeln!(out, "no requests: the session has no main-thread messages");
        return out;
    }
    let _ = writeln!(
        out,
        "request {}/{}  at {}  gap {} min  {}",
        req.index,
        s.requests.len(),
        req.at.as_deref().unwrap_or("?"),
        fmt_gap(req.gap_minutes),
        turn_words(req)
    );
    if let Some(v) = &req.version {
        let _ = writeln!(out, "version {v}");
    }
    if let Some(note) = req.send.as_ref().and_then(|s| s.note.as_deref()) {
        let _ = writeln!(out, "note: {note}");
    }
    let st = &plan.step;
    let _ = writeln!(
        out,
        "fired: {}  {}",
        match st.trigger {
            Some(t) if st.fired => t.name(),
            _ => "no",
        },
        st.note
    );
    api::plan_lines(setup, st, &mut out);
    let _ = writeln!(out);
    let mut rows = vec![vec![
        "RANK".to_string(),
        "ID".into(),
        "TOOL".into(),
        "CHARS".into(),
        "~TOKENS".into(),
        "STATUS".into(),
        "PATH / INPUT".into(),
        "REASON".into(),
    ]];
    for c in &plan.candidates {
        let r = &s.results[c.result];
        let mut status = format!("{} {}", glyph(c.status), c.status.name());
        if let Some(pr) = &c.protection
            && pr.outcome.name() != c.status.name()
        {
            status.push_str(&format!(" ({})", pr.outcome.name()));
        }
        rows.push(vec![
            c.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
            r.id.clone(),
            c.tool.clone().unwrap_or_else(|| "?".into()),
            fmt_int(r.chars),
            fmt_int(r.est_tokens),
            status,
            shorten(c.path.as_deref().or(c.summary.as_deref()).unwrap_or(""), 48),
            c.reason.clone(),
        ]);
    }
    out.push_str(&table(&rows, &[true, false, false, true, true]));
    let _ = writeln!(out);
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
    if st.kind == Some(PlanKind::Budget) && !st.cleared.is_empty() {
        let _ = writeln!(
            out,
            "note: Claude Code sent a <persisted-output> pointer to a saved file in place of a result cleared by budget ([Old tool result content cleared] when saving failed); the placeholder is shown"
        );
    }
    let ids = |status| plan.ids_with(s, status).join(", ");
    let _ = writeln!(out, "cleared in the wire: [{}]", ids(Status::Cleared));
    let _ = writeln!(out, "kept: [{}]", ids(Status::Kept));
    let _ = writeln!(out, "protected: [{}]", ids(Status::Protected));
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
                plan.cache.cache_edits_deleted.join(", ")
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
            plan.evicted_read_paths.join(", ")
        );
    }
    if plan.unresolved_evicted_reads > 0 {
        let _ = writeln!(
            out,
            "evicted reads without a path: {}",
            plan.unresolved_evicted_reads
        );
    }
    out
}

/// `timeline --format text`: one line per request with its cache column (SPEC
/// §9: `broken` while warm, `kept`, `cold`), then the setting's totals.
pub fn timeline_text(setup: &Setup, steps: &[Step], facts: &SessionFacts) -> String {
    let s = &setup.session;
    let mut out = String::new();
    header(setup, &setup.kinds_chosen(), &mut out);
    let _ = writeln!(out);
    let mut rows = vec![vec![
        "REQ".to_string(),
        "AT".into(),
        "GAP MIN".into(),
        "TURN".into(),
        "FIRED".into(),
        "NEW".into(),
        "IN WIRE".into(),
        "~SAVED".into(),
        "CHARS AFTER".into(),
        "CACHE".into(),
        "WHY".into(),
    ]];
    let api_col = setup.policy.kind == PlanKind::Api;
    if api_col {
        rows[0].insert(10, "EDITS sim | recorded".into());
    }
    let mut acc = totals::Accumulator::new(s);
    let mut failed: Option<std::io::Error> = None;
    for (i, st) in steps.iter().enumerate() {
        let req = &s.requests[st.index - 1];
        let before = i
            .checked_sub(1)
            .map(|j| &steps[j])
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
        rows.push(vec![
            st.index.to_string(),
            req.at.clone().unwrap_or_else(|| "?".into()),
            fmt_gap(st.gap_minutes),
            match &req.send {
                Some(send) => send.kind.name().into(),
                None if req.begins_turn => "new".into(),
                None => "loop".into(),
            },
            match st.trigger {
                Some(t) if silent(st, req.begins_turn) => format!("{} (silent)", t.name()),
                Some(t) if st.fired => t.name().into(),
                _ => "-".into(),
            },
            st.newly_cleared.len().to_string(),
            st.cleared.len().to_string(),
            fmt_int(st.tokens_saved),
            fmt_int(st.chars_after),
            cache,
            st.note.clone(),
        ]);
        if api_col && let Some(row) = rows.last_mut() {
            row.insert(10, crate::evidence::api::cell(s, st));
        }
    }
    out.push_str(&table(
        &rows,
        &[
            true, false, true, false, false, true, true, true, true, false,
        ],
    ));
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
    if let Some(e) = failed {
        let _ = writeln!(
            out,
            "cache figures incomplete: the records could not be read back: {e}"
        );
    }
    for e in &s.evidence {
        let _ = writeln!(
            out,
            "harness evidence: microcompact_boundary at line {} before request {} cleared [{}]",
            e.line,
            e.before_request,
            e.compacted_tool_ids.join(", ")
        );
    }
    out
}

pub fn explain_text(setup: &Setup, e: &Explain) -> String {
    let mut out = String::new();
    header(setup, &setup.kinds_chosen(), &mut out);
    let _ = writeln!(
        out,
        "{}  {}  {}",
        e.tool_use_id,
        e.tool.as_deref().unwrap_or("?"),
        e.path.as_deref().unwrap_or("")
    );
    let _ = writeln!(
        out,
        "{}",
        match e.first_cleared_at {
            Some(k) => format!("first vanished from the wire at request {k}"),
            None => "never cleared from the wire".into(),
        }
    );
    let _ = writeln!(out);
    let mut rows = vec![vec!["REQ".to_string(), "STATUS".into(), "REASON".into()]];
    for r in &e.rows {
        rows.push(vec![
            r.index.to_string(),
            format!("{} {}", glyph(r.status), r.status.name()),
            r.reason.clone(),
        ]);
    }
    out.push_str(&table(&rows, &[true]));
    out
}
