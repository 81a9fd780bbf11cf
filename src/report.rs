//! What the CLI prints: the JSON schemas of SPEC §7 (field names are a contract)
//! and the text forms people paste into bug reports.

use crate::analysis::{Explain, PlanAt, Setup};
use crate::caveats::{self, Caveat};
use crate::policy::engine::{Status, Step, fmt_gap, fmt_int, fmt_num};
use crate::policy::protect::Protection;
use crate::policy::{PlanKind, Policy};
use crate::session::{Diagnostic, Session};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt::Write as _;

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
    json!({
        "kind": p.kind.name(),
        "preset": p.preset.name(),
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
    })
}

/// `policy.keep_recent` (SPEC §5): the explicit value, else the default shared by
/// the kinds in force (`plan`: the one at K; `timeline`: all of them); null when
/// there is none or they differ.
pub fn keep_recent_of(p: &Policy, kinds: &[PlanKind]) -> Option<u32> {
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
    vec![plan.step.kind]
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

/// `plan --format json` (schema `mcscope.plan/1`).
pub fn plan_json(setup: &Setup, plan: &PlanAt) -> Value {
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
    json!({
        "schema": "mcscope.plan/1",
        "session": session_json(s),
        "request": (plan.request.index > 0).then(|| json!({
            "index": plan.request.index,
            "at": plan.request.at,
            "gap_minutes": gap_json(plan.request.gap_minutes),
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
            "pre_tokens": step.pre_tokens,
            "evicted_read_paths": plan.evicted_read_paths,
            "unresolved_evicted_reads": plan.unresolved_evicted_reads,
            "cache": {
                "prefix_broken_at_message": plan.cache.prefix_broken_at_message,
                "tokens_after_break": plan.cache.tokens_after_break,
                "cache_edits_deleted": plan.cache.cache_edits_deleted,
            },
        },
    })
}

/// `timeline --format json` (schema `mcscope.timeline/1`), written as the steps
/// are computed: one request's row in memory at a time.
pub fn write_timeline_json(
    setup: &Setup,
    steps: impl Iterator<Item = Step>,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    use serde::ser::{SerializeMap, Serializer};
    use std::cell::RefCell;

    struct Rows<'a, I> {
        setup: &'a Setup,
        steps: RefCell<Option<I>>,
    }
    impl<I: Iterator<Item = Step>> Serialize for Rows<'_, I> {
        fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
            let steps = self.steps.borrow_mut().take().into_iter().flatten();
            ser.collect_seq(steps.map(|st| timeline_row(self.setup, &st)))
        }
    }
    let mut ser = serde_json::Serializer::pretty(out);
    let mut map = ser.serialize_map(Some(5))?;
    let kinds = setup.kinds_chosen();
    map.serialize_entry("schema", "mcscope.timeline/1")?;
    map.serialize_entry("session", &session_json(&setup.session))?;
    map.serialize_entry(
        "policy",
        &policy_json(&setup.policy, keep_recent_of(&setup.policy, &kinds)),
    )?;
    map.serialize_entry(
        "caveats",
        &caveats::json(&caveats::caveats(&setup.policy, &kinds)),
    )?;
    let rows = Rows {
        setup,
        steps: RefCell::new(Some(steps)),
    };
    map.serialize_entry("requests", &rows)?;
    map.end()?;
    Ok(())
}

/// One request of the timeline JSON.
fn timeline_row(setup: &Setup, st: &Step) -> Value {
    let s = &setup.session;
    let ids = |v: &[usize]| -> Vec<&str> { v.iter().map(|&r| s.results[r].id.as_str()).collect() };
    let req = &s.requests[st.index - 1];
    let evidence: Vec<&Vec<String>> = s
        .evidence
        .iter()
        .filter(|e| e.before_request == st.index)
        .map(|e| &e.compacted_tool_ids)
        .collect();
    json!({
        "index": st.index,
        "at": req.at,
        "gap_minutes": gap_json(req.gap_minutes),
        "begins_turn": req.begins_turn,
        "version": req.version,
        "silent": silent(st, req.begins_turn),
        "fired": st.fired,
        "trigger": st.trigger.map(|t| t.name()),
        "newly_cleared": ids(&st.newly_cleared),
        "cleared": ids(&st.cleared),
        "tokens_saved": st.tokens_saved,
        "tool_result_chars_after": st.chars_after,
        "note": st.note,
        "harness_evidence": evidence,
    })
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
fn table(rows: &[Vec<String>], right: &[bool]) -> String {
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
        if req.begins_turn {
            "begins a turn"
        } else {
            "continues a tool loop"
        }
    );
    if let Some(v) = &req.version {
        let _ = writeln!(out, "version {v}");
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
    if st.kind == PlanKind::Budget && !st.cleared.is_empty() {
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

pub fn timeline_text(setup: &Setup, steps: &[Step]) -> String {
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
        "WHY".into(),
    ]];
    for st in steps {
        let req = &s.requests[st.index - 1];
        rows.push(vec![
            st.index.to_string(),
            req.at.clone().unwrap_or_else(|| "?".into()),
            fmt_gap(req.gap_minutes),
            if req.begins_turn { "new" } else { "loop" }.into(),
            match st.trigger {
                Some(t) if silent(st, req.begins_turn) => format!("{} (silent)", t.name()),
                Some(t) if st.fired => t.name().into(),
                _ => "-".into(),
            },
            st.newly_cleared.len().to_string(),
            st.cleared.len().to_string(),
            fmt_int(st.tokens_saved),
            fmt_int(st.chars_after),
            st.note.clone(),
        ]);
    }
    out.push_str(&table(
        &rows,
        &[true, false, true, false, false, true, true, true, true],
    ));
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
