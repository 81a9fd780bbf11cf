//! What the CLI prints: the JSON schemas of SPEC §7 (field names are a contract)
//! and the text forms people paste into bug reports. Here: the JSON pieces every
//! form shares (session, policy, roots); one file per subcommand (`plan`,
//! `timeline`, `evidence`, `explain`), `text` for what every text form shares
//! (header, tables, glyphs), `api` for the api preset's edits.

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
mod evidence;
mod explain;
mod plan;
mod text;
mod timeline;
pub mod words;

pub use evidence::{evidence_json, evidence_text};
pub use explain::{explain_json, explain_text};
pub use plan::{plan_json, plan_text};
pub use text::{glyph, left_out, table, turn_words};
use text::{header, shorten};
pub use timeline::{timeline_text, write_timeline_json};

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
    step.fired() && step.trigger == Some(crate::policy::Trigger::Budget) && begins_turn
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

/// A Qwen request's send kind (SPEC §2); null for other sessions.
fn send_kind(req: &crate::session::Request) -> Value {
    req.send
        .as_ref()
        .map_or(Value::Null, |s| json!(s.kind.name()))
}
