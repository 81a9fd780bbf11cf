//! What ran (SPEC §16.I, §18.7, §18.8): a plan whose harness writes a record
//! whenever it clears either left its record in the file or did not run. For
//! each such plan kind of the session's harness: `ran` is true where a record
//! of its writer is in the file; false where `auto` (the session's own
//! parameters) clears at least one result with a fire that is not silent, at a
//! request whose view the file holds whole, and the file holds no record of
//! it; null otherwise.

use super::Setup;
use crate::evidence::Writer;
use crate::policy::PlanKind;
use crate::session::Session;

/// One record-writing plan kind's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ran {
    pub kind: PlanKind,
    pub ran: Option<bool>,
    /// `record`, `no_record_where_it_would_clear`, `never_fired` or `partial_file`.
    pub because: &'static str,
    /// Where `auto` would have cleared without a record: (request, results).
    pub would_clear: Option<(usize, usize)>,
}

/// Whether the file holds a record of the writer of `kind`.
fn has_record(s: &Session, kind: PlanKind) -> bool {
    match kind {
        // Only the budget writer's boundaries (a cached writer's are another plan's).
        PlanKind::Budget => s
            .evidence
            .iter()
            .any(|e| !e.mask && !e.pruned && Writer::of_record(e) == Writer::Budget),
        // The server's `applied_edits` (an empty list, which 2.0.42 writes
        // with no such plan, is none) or the client's `client_*` fields.
        PlanKind::IdleServer => s.responses().any(|m| {
            m.applied_edits.as_ref().is_some_and(|e| !e.is_empty()) || m.context_client.is_some()
        }),
        PlanKind::Mask => s.evidence.iter().any(|e| e.mask),
        PlanKind::Prune => s.evidence.iter().any(|e| e.pruned),
        _ => false,
    }
}

/// The answer for every record-writing kind of the session's harness, in the
/// harness's order.
pub fn ran(setup: &Setup) -> Vec<Ran> {
    let s = &setup.session;
    let kinds = s.harness.rules().offers.recorded_kinds;
    let mut out: Vec<Ran> = kinds
        .iter()
        .map(|r| Ran {
            kind: r.kind,
            ran: None,
            because: "never_fired",
            would_clear: None,
        })
        .collect();
    let mut open: Vec<usize> = Vec::new();
    for (i, r) in out.iter_mut().enumerate() {
        if has_record(s, r.kind) {
            r.ran = Some(true);
            r.because = "record";
        } else {
            open.push(i);
        }
    }
    // Kinds without a record: does `auto` clear with them anywhere?
    if open.is_empty() || s.requests.is_empty() {
        return out;
    }
    let partial = s
        .warnings
        .iter()
        .any(|w| w.id == crate::session::PARTIAL_TRANSCRIPT);
    let mut auto = setup.clone();
    auto.policy.kind = PlanKind::Auto;
    auto.policy.did_not_run = Vec::new();
    // Only where auto chooses one of them at some request (no pass otherwise).
    let chosen = s.requests.iter().any(|r| {
        auto.policy
            .kind_at(r, r.gap_minutes)
            .is_some_and(|k| open.iter().any(|&i| out[i].kind == k))
    });
    if !chosen {
        return out;
    }
    let mut engine = auto.engine(s.requests.len());
    while let Some(st) = engine.step() {
        let Some(kind) = st.kind else { continue };
        let Some(&i) = open.iter().find(|&&i| out[i].kind == kind) else {
            continue;
        };
        if st.newly_cleared.is_empty() || out[i].ran.is_some() {
            continue;
        }
        let begins_turn = s.requests[st.index - 1].begins_turn;
        // §18.7: only a fire that is not silent (budget at a turn start, where
        // the prompt-suggestion fork clears first without a record).
        let silent = st.trigger == Some(crate::policy::Trigger::Budget) && begins_turn;
        if silent {
            continue;
        }
        if partial && st.index == 1 {
            out[i].because = "partial_file";
            continue;
        }
        out[i].ran = Some(false);
        out[i].because = "no_record_where_it_would_clear";
        out[i].would_clear = Some((st.index, st.newly_cleared.len()));
        if open.iter().all(|&j| out[j].ran.is_some()) {
            break;
        }
    }
    out
}
