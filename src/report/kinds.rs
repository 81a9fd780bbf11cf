//! Claude Code version by version in the JSON (SPEC §13.J, §15.6): each
//! request's `version_row`, `plan_kind` and plausibility, the `policy` object's
//! values as the kinds in force used them, and `idle_server` (§13.S10).

use super::*;
use crate::policy::engine::IdleServerStep;
use crate::session::Request;

pub use mcscope_core::policy_json::{explicit, policy_all, policy_at, policy_merged, policy_over};

/// The §13.J fields of a request (flattened into `request` / `requests[]`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RequestKindsJson {
    pub version_row: Option<&'static str>,
    pub plan_kind: Option<PlanKind>,
    pub harness_could_run: Option<bool>,
    pub harness_could_run_reason: &'static str,
}

/// `request`'s §13.J fields at `req`, the kind in force `kind`.
pub fn request_kinds(setup: &Setup, req: &Request, kind: Option<PlanKind>) -> RequestKindsJson {
    let pl = setup.plausible(req, kind);
    RequestKindsJson {
        version_row: setup.session.harness.asks().version_row(req),
        plan_kind: kind,
        harness_could_run: pl.could_run,
        harness_could_run_reason: pl.reason,
    }
}

/// SPEC §13.S10's `idle_server` object.
#[derive(Serialize, Debug)]
pub struct IdleServerJson {
    return_index: Option<usize>,
    return_at: Option<String>,
    idle_minutes: Option<Num>,
    /// Null without a return in the view (SPEC §15.26: no N without one).
    clearable: Option<usize>,
    since_return: Option<usize>,
    trigger: Option<u64>,
    keep: Option<u64>,
    min_trigger: u32,
    sent: bool,
    sent_because: Option<&'static str>,
    not_sent_because: Option<&'static str>,
    tool_uses: usize,
    applied: bool,
    not_applied_because: Option<&'static str>,
    cleared_tool_uses: usize,
    cleared_input_tokens: u64,
    edit: Option<Value>,
}

pub fn idle_server_json(st: &IdleServerStep) -> IdleServerJson {
    let d = &st.decision;
    IdleServerJson {
        return_index: st.return_index,
        return_at: d.ret.as_ref().and_then(|r| r.ts_text.clone()),
        idle_minutes: d.ret.as_ref().and_then(|r| gap_json(Some(r.idle_minutes))),
        clearable: d.ret.as_ref().map(|_| d.clearable),
        since_return: d.ret.as_ref().map(|_| d.since_return),
        trigger: d.trigger,
        keep: d.keep,
        min_trigger: st.params.min_trigger,
        sent: st.sent(),
        sent_because: d.sent.ok().map(Into::into),
        not_sent_because: d.sent.err().map(Into::into),
        tool_uses: st.tool_uses,
        applied: st.applied,
        not_applied_because: st.not_applied_because,
        cleared_tool_uses: st.cleared_tool_uses,
        cleared_input_tokens: st.cleared_input_tokens,
        edit: st.edit.as_ref().map(|e| e.to_json()),
    }
}
