//! Claude Code version by version in the JSON (SPEC §13.J, §15.6): each
//! request's `version_row`, `plan_kind` and plausibility, the `policy` object's
//! values as the kinds in force used them, and `idle_server` (§13.S10).

use super::*;
use crate::policy::engine::IdleServerStep;
use crate::policy::version::VersionRow;
use crate::session::Request;

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
        version_row: setup
            .session
            .harness
            .rules()
            .versioned
            .then(|| VersionRow::of(req.version.as_deref()).name()),
        plan_kind: kind,
        harness_could_run: pl.could_run,
        harness_could_run_reason: pl.reason,
    }
}

/// The policy values one request's kind used (SPEC §15.6).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Used {
    keep: Option<u32>,
    gap: f64,
    min_trigger: Option<u32>,
    delivery: Delivery,
}

fn used_at(p: &Policy, req: Option<&Request>, kind: PlanKind) -> Used {
    match kind {
        PlanKind::IdleServer => {
            let keep = p
                .keep_recent
                .unwrap_or_else(|| {
                    crate::policy::idle_server::default_keep(req.and_then(|r| r.version.as_deref()))
                })
                .max(1);
            Used {
                keep: Some(keep),
                gap: if p.gap_explicit {
                    p.gap_threshold_minutes
                } else {
                    crate::policy::idle_server::GAP_MINUTES
                },
                min_trigger: Some(
                    p.min_trigger_tool_uses
                        .unwrap_or(keep + crate::policy::idle_server::MIN_TRIGGER_OVER_KEEP),
                ),
                delivery: Delivery::Server,
            }
        }
        PlanKind::Api => Used {
            keep: None,
            gap: p.gap_threshold_minutes,
            min_trigger: p.min_trigger_tool_uses,
            delivery: p.delivery,
        },
        k => Used {
            keep: Some(p.keep_recent.unwrap_or(k.default_keep())),
            gap: p.gap_threshold_minutes,
            min_trigger: p.min_trigger_tool_uses,
            // auto's kinds other than idle-server are delivered as asked.
            delivery: p.delivery,
        },
    }
}

/// The `policy` object over `at` (request, kind in force): each value the
/// explicit one, else the one every request with a kind used, else null
/// (SPEC §5, §15.6). With no request at all, the kinds `kinds` decide.
pub fn policy_over(setup: &Setup, at: &[(&Request, Option<PlanKind>)]) -> PolicyJson {
    let p = &setup.policy;
    if p.kind == PlanKind::Recorded {
        return policy_json(p, None);
    }
    let used: Vec<Used> = if setup.session.requests.is_empty() || at.is_empty() {
        setup
            .kinds_chosen()
            .iter()
            .map(|&k| used_at(p, None, k))
            .collect()
    } else {
        at.iter()
            .filter_map(|&(r, k)| k.map(|k| used_at(p, Some(r), k)))
            .collect()
    };
    let same = |f: &dyn Fn(&Used) -> Option<String>| -> bool {
        used.windows(2).all(|w| f(&w[0]) == f(&w[1]))
    };
    let first = used.first();
    let mut json = policy_json(p, None);
    json.keep_recent = match p.keep_recent {
        Some(k) if p.kind != PlanKind::Api => Some(k),
        _ => first
            .filter(|_| same(&|u| u.keep.map(|k| k.to_string())))
            .and_then(|u| u.keep),
    };
    // Requests where auto chose no kind at all: the values are null (§15.6).
    let none_chosen = used.is_empty() && !at.is_empty() && !setup.session.requests.is_empty();
    if !p.gap_explicit {
        json.gap_threshold_minutes = match first {
            Some(u) if same(&|u| Some(u.gap.to_string())) => Some(number(u.gap)),
            Some(_) => None,
            None if none_chosen => None,
            None => Some(number(p.gap_threshold_minutes)),
        };
    }
    json.min_trigger_tool_uses = match p.min_trigger_tool_uses {
        Some(m) => Some(m),
        None => first
            .filter(|_| same(&|u| u.min_trigger.map(|m| m.to_string())))
            .and_then(|u| u.min_trigger),
    };
    json.delivery = match first {
        Some(u) if same(&|u| Some(u.delivery.name().to_string())) => Some(u.delivery),
        Some(_) => None,
        None if none_chosen => None,
        None => Some(p.delivery),
    };
    json
}

/// The policy of `plan` at request K (a session without requests: its kinds).
pub fn policy_at(setup: &Setup, req: &Request, kind: Option<PlanKind>) -> PolicyJson {
    if req.index == 0 {
        return policy_over(setup, &[]);
    }
    policy_over(setup, &[(req, kind)])
}

/// The policy of `timeline` and `evidence`: every request with auto's choice.
pub fn policy_all(setup: &Setup) -> PolicyJson {
    let at: Vec<(&Request, Option<PlanKind>)> = setup
        .session
        .requests
        .iter()
        .map(|r| (r, setup.policy.kind_at(r, r.gap_minutes)))
        .collect();
    policy_over(setup, &at)
}

/// SPEC §13.S10's `idle_server` object.
#[derive(Serialize, Debug)]
pub struct IdleServerJson {
    return_index: Option<usize>,
    return_at: Option<String>,
    idle_minutes: Option<Num>,
    clearable: usize,
    since_return: usize,
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
        clearable: d.clearable,
        since_return: d.since_return,
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
