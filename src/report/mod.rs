//! What the CLI prints: the JSON schemas of SPEC §7 (field names are a contract)
//! and the text forms people paste into bug reports. Here: the JSON pieces every
//! form shares (session, policy, roots); one file per subcommand (`plan`,
//! `timeline`, `evidence`, `explain`), `text` for what every text form shares
//! (header, tables, glyphs), `api` for the api preset's edits.

use crate::analysis::{self, EvidenceReport, Explain, PlanAt, Setup};
use crate::caveats::Caveat;
use crate::evidence::{Explanation, RequestEvidence, RequestEvidenceJson, SessionEvidence};
use crate::numbers::{fmt_gap, fmt_int, fmt_num};
use crate::policy::PlanKind;
use crate::policy::engine::{Status, Step};
use crate::policy::protect::{Protection, RootKind};
use crate::sanitize;
use crate::session::{Diagnostic, SendKind, Session, SessionWarning};
use crate::totals::{self, RequestFigures, SessionFacts};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt::Write as _;

pub mod api;
mod bill;
pub use bill::bill_text;
mod evidence;
mod explain;
pub mod kinds;
pub mod page;
mod plan;
mod text;
mod timeline;
pub use mcscope_core::policy_json::{Num, PolicyJson, keep_recent_of, number, policy_json};
pub use mcscope_core::words;

pub use evidence::{evidence_json, evidence_text};
pub use explain::{explain_json, explain_text, fate_line, row_status};
pub use plan::{plan_json, plan_text};
pub use text::{Rows, column_widths, glyph, left_out, table, table_in, table_to, turn_words};
use text::{header, shorten};
pub use timeline::{
    TIMELINE_RIGHT, TimelineParts, timeline_parts, timeline_text, write_timeline_json,
};

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
    /// SPEC §15.2: records kept with a field that could not be read (`[]` when none).
    pub warnings: &'a [SessionWarning],
    /// SPEC §15.16: the recorded bill (`plan`, `timeline`, `evidence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<crate::bill::RecordedJson>,
    /// SPEC §16.I, §18.8 (`evidence` only): per record-writing plan kind of
    /// the harness, whether it ran, and why that answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_because: Option<serde_json::Map<String, serde_json::Value>>,
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
        warnings: &s.warnings,
        recorded: None,
        ran: None,
        ran_because: None,
    }
}

/// [`session_json_billed`] with what ran (SPEC §16.I): `evidence`'s.
pub fn session_json_ran<'a>(setup: &'a Setup, ran: &[crate::analysis::Ran]) -> SessionJson<'a> {
    let ran_map = ran
        .iter()
        .map(|r| (r.kind.name().to_string(), serde_json::json!(r.ran)))
        .collect();
    let because = ran
        .iter()
        .map(|r| (r.kind.name().to_string(), serde_json::json!(r.because)))
        .collect();
    SessionJson {
        ran: Some(ran_map),
        ran_because: Some(because),
        ..session_json_billed(setup)
    }
}

/// [`session_json`] with the session's recorded bill (SPEC §9a, §15.16), priced
/// by the table and the configuration's rows.
pub fn session_json_billed(setup: &Setup) -> SessionJson<'_> {
    SessionJson {
        recorded: Some(crate::bill::of_setup(setup, &Default::default()).json()),
        ..session_json(&setup.session)
    }
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

/// A gap in minutes, to the millisecond (null: none).
fn gap_json(g: Option<f64>) -> Option<Num> {
    g.map(|g| number((g * 1000.0).round() / 1000.0))
}

/// One caveat of the `caveats` list (SPEC §5).
#[derive(Serialize)]
struct CaveatJson {
    id: &'static str,
    text: String,
}

/// The caveats, as the JSON lists them.
fn caveats_json(list: Vec<Caveat>) -> Vec<CaveatJson> {
    list.into_iter()
        .map(|c| CaveatJson {
            id: c.id,
            text: c.text,
        })
        .collect()
}

/// The `protection` object: the memory roots in force and the path map.
#[derive(Serialize)]
struct RootsJson {
    memory_roots: Vec<RootJson>,
    path_map: Vec<PathMapJson>,
}

#[derive(Serialize)]
struct RootJson {
    root: RootKind,
    dir: String,
    exists: bool,
}

#[derive(Serialize)]
struct PathMapJson {
    from: String,
    to: String,
}

fn roots_json(setup: &Setup) -> RootsJson {
    RootsJson {
        memory_roots: setup
            .protector()
            .roots()
            .map(|(root, dir, exists)| RootJson {
                root,
                dir: dir.display().to_string(),
                exists,
            })
            .collect(),
        path_map: setup
            .path_map
            .0
            .iter()
            .map(|(f, t)| PathMapJson {
                from: f.display().to_string(),
                to: t.display().to_string(),
            })
            .collect(),
    }
}

/// A Qwen request's send kind (SPEC §2); null for other sessions.
fn send_kind(req: &crate::session::Request) -> Option<SendKind> {
    req.send.as_ref().map(|s| s.kind)
}

/// Where a record sits, for a sentence: ` at line N`, or nothing for a record
/// that has no line (a database's row, a task's side file: OpenCode's marks,
/// Cline's context_history.json).
pub(crate) fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(" at line {line}")
    }
}
