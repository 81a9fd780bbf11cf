//! What the CLI prints: the JSON schemas of SPEC §7 (field names are a contract)
//! and the text forms people paste into bug reports. Here: the JSON pieces every
//! form shares (session, policy, roots); one file per subcommand (`plan`,
//! `timeline`, `evidence`, `explain`), `text` for what every text form shares
//! (header, tables, glyphs), `api` for the api preset's edits.

use crate::analysis::{self, EvidenceReport, Explain, PlanAt, Setup};
use crate::caveats::Caveat;
use crate::evidence::{Explanation, RequestEvidence, RequestEvidenceJson, SessionEvidence};
use crate::numbers::{fmt_gap, fmt_int, fmt_num};
use crate::policy::engine::{Status, Step};
use crate::policy::protect::{Protection, RootKind};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::sanitize;
use crate::session::{Diagnostic, SendKind, Session, SessionWarning};
use crate::totals::{self, RequestFigures, SessionFacts};
use serde::Serialize;
use serde_json::{Value, json};
use std::fmt::Write as _;

pub mod api;
mod evidence;
mod explain;
pub mod kinds;
pub mod page;
mod plan;
mod text;
mod timeline;
pub use mcscope_core::words;

pub use evidence::{evidence_json, evidence_text};
pub use explain::{explain_json, explain_text, fate_line, row_status};
pub use plan::{plan_json, plan_text};
pub use text::{column_widths, glyph, left_out, table, table_in, turn_words};
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

/// The `policy` object (SPEC §7), fields in schema order; the api preset's
/// keys follow (absent otherwise).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PolicyJson {
    pub kind: PlanKind,
    pub preset: &'static str,
    pub keep_recent: Option<u32>,
    pub gap_threshold_minutes: Option<Num>,
    /// Null, as every field but `kind` and `preset`, under plan kind
    /// `recorded` (SPEC §15.3).
    pub size_threshold: Option<i64>,
    pub low_watermark: Option<bool>,
    pub trigger_threshold: Option<u32>,
    pub delivery: Option<Delivery>,
    pub protect: Option<bool>,
    pub clear_errors: Option<bool>,
    pub budget_tokens: Option<u64>,
    pub budget_min_saving: Option<u64>,
    pub budget_warning_tokens: Option<u64>,
    /// `idle-server`'s least trigger (SPEC §13.J: null unless it runs or was given).
    pub min_trigger_tool_uses: Option<u32>,
    /// OpenCode's prune thresholds (SPEC §15.13): only for a preset that
    /// offers `prune` (absent elsewhere; null under `recorded`).
    #[serde(flatten)]
    pub prune: Option<PrunePolicyJson>,
    #[serde(flatten)]
    pub api: Option<api::PolicyApiJson>,
    /// `mask`'s keys (SPEC §15.13), for a preset that offers it.
    #[serde(flatten)]
    pub mask: Option<MaskPolicyJson>,
}

/// `prune`'s keys of the `policy` object (SPEC §15.13).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PrunePolicyJson {
    pub prune_protect_tokens: Option<u64>,
    pub prune_minimum_tokens: Option<u64>,
}

/// `mask`'s keys of the `policy` object (SPEC §15.13).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MaskPolicyJson {
    pub mask_protect_tokens: Option<u64>,
    pub mask_min_prunable_tokens: Option<u64>,
    pub mask_protect_latest_turn: Option<bool>,
}

/// The `policy` object: gap thresholds print as integers when they are whole;
/// `keep_recent` as [`keep_recent_of`] says.
pub fn policy_json(p: &Policy, keep_recent: Option<u32>) -> PolicyJson {
    if p.kind == PlanKind::Recorded {
        // The baseline is read from the records: no parameter (SPEC §15.3).
        return PolicyJson {
            kind: p.kind,
            preset: p.preset_name(),
            keep_recent: None,
            gap_threshold_minutes: None,
            size_threshold: None,
            low_watermark: None,
            trigger_threshold: None,
            delivery: None,
            protect: None,
            clear_errors: None,
            budget_tokens: None,
            budget_min_saving: None,
            budget_warning_tokens: None,
            min_trigger_tool_uses: None,
            // A harness's own keys are there, null, as every other (SPEC §15.3).
            prune: p
                .preset
                .rules()
                .offers(PlanKind::Prune)
                .then_some(PrunePolicyJson {
                    prune_protect_tokens: None,
                    prune_minimum_tokens: None,
                }),
            api: None,
            mask: p
                .preset
                .rules()
                .offers(PlanKind::Mask)
                .then_some(MaskPolicyJson {
                    mask_protect_tokens: None,
                    mask_min_prunable_tokens: None,
                    mask_protect_latest_turn: None,
                }),
        };
    }
    let prunes = p.preset.rules().offers(PlanKind::Prune);
    PolicyJson {
        kind: p.kind,
        preset: p.preset_name(),
        keep_recent,
        gap_threshold_minutes: Some(number(p.gap_threshold_minutes)),
        size_threshold: Some(p.size_threshold),
        low_watermark: Some(p.low_watermark),
        trigger_threshold: Some(p.trigger_threshold),
        delivery: Some(p.delivery),
        protect: Some(p.protect),
        clear_errors: Some(p.clear_errors),
        budget_tokens: Some(p.budget_tokens),
        budget_min_saving: Some(p.budget_min_saving),
        budget_warning_tokens: p.budget_warning_tokens,
        min_trigger_tool_uses: p.min_trigger_tool_uses,
        prune: prunes.then_some(PrunePolicyJson {
            prune_protect_tokens: Some(p.prune_protect_tokens),
            prune_minimum_tokens: Some(p.prune_minimum_tokens),
        }),
        api: api::policy_keys(p),
        mask: p
            .preset
            .rules()
            .offers(PlanKind::Mask)
            .then_some(MaskPolicyJson {
                mask_protect_tokens: Some(p.mask_protect_tokens),
                mask_min_prunable_tokens: Some(p.mask_min_prunable_tokens),
                mask_protect_latest_turn: Some(p.mask_protect_latest_turn),
            }),
    }
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
    // idle-server keeps by version (SPEC §13.S4).
    if kinds.contains(&PlanKind::IdleServer) {
        return None;
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

/// A figure as the reports print it: a whole number as an integer.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum Num {
    Int(i64),
    Float(f64),
}

fn number(x: f64) -> Num {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Num::Int(x as i64)
    } else {
        Num::Float(x)
    }
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
