//! `recorded` in the engine (SPEC §9a "The baseline row", §15.3–§15.5): the
//! cleared set at request k is taken from the records, not simulated — the
//! budget writer's boundary ids in force in k's view (in force over the view,
//! as budget's clearings are), plus the ids of k's applied
//! `clear_tool_uses_20250919` edit as idle-server's simulation with the
//! version's defaults names them, when its count agrees with the record's
//! `cleared_tool_uses` (in force at k only, as the server's are). Recorded
//! cuts are facts in every plan (`gone`), never part of this set (§15.4).

use super::*;

/// An applied server edit at a request, as the baseline read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordedEdit {
    /// The record's `cleared_tool_uses` and `cleared_input_tokens`.
    pub cleared_tool_uses: u64,
    pub cleared_input_tokens: u64,
    /// idle-server's whole set at k with the version's defaults (None: it
    /// applied nothing there).
    pub simulated: Option<usize>,
}

impl RecordedEdit {
    /// Whether the simulation names the record's ids (its count agrees).
    pub fn ids_known(&self) -> bool {
        self.simulated
            .is_some_and(|n| n as u64 == self.cleared_tool_uses)
    }
}

/// What `recorded` read at a request (its note).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordedWhy {
    /// The budget writer's boundary ids in force in k's view, and how many of
    /// them a record attached to k added.
    pub boundary_ids: usize,
    pub added: usize,
    /// k's applied server edit that cleared tool uses.
    pub edit: Option<RecordedEdit>,
}

/// The tokens a `recorded` step keeps out of the wire without knowing which
/// results they are: the recorded `cleared_input_tokens` of an applied edit
/// whose ids are unknown (SPEC §15.5: the baseline's `in_wire_tokens[k]` there).
pub fn unattributed_tokens(note: &Note) -> u64 {
    match note {
        Note::Recorded(RecordedWhy { edit: Some(e), .. }) if !e.ids_known() => {
            e.cleared_input_tokens
        }
        _ => 0,
    }
}

/// `recorded` at `req`, from what the baseline read of the records
/// (`facts`, per request; None where it reads none), with idle-server's
/// simulation at `req` where an applied edit asks for it: the verdict, and
/// whether that simulation applied here (what its S6 reads at the next
/// request).
pub(super) fn recorded<L: Look>(
    look: &L,
    facts: Option<&[crate::policy::recorded::RecordedCleared]>,
    req: &Request,
    idle_server: impl FnOnce() -> (Verdict, IdleServerStep),
) -> (Verdict, bool) {
    let Some(facts) = facts else {
        return (Verdict::none(Note::NotRun(NoRun::Unsaid)), false);
    };
    let rc = &facts[req.index - 1];

    let mut clear: Vec<(usize, ClearReason)> = Vec::new();
    for &r in &rc.results {
        let Some(pos) = look.position(r) else {
            continue;
        };
        if !look.gone(r) && !look.in_force(&look.cands()[pos]) {
            clear.push((pos, ClearReason::Recorded(ByRecord { server: false })));
        }
    }
    let mut applied = false;
    let mut edit = None;
    let mut edit_fired = false;
    if let Some((uses, tokens)) = rc.edit.filter(|&(uses, _)| uses > 0) {
        let (v, st) = idle_server();
        applied = st.applied;
        let e = RecordedEdit {
            cleared_tool_uses: uses,
            cleared_input_tokens: tokens,
            simulated: st.applied.then_some(st.cleared_tool_uses),
        };
        if e.ids_known() {
            for (pos, _) in v.clear {
                if !look.in_force(&look.cands()[pos]) && !clear.iter().any(|&(p, _)| p == pos) {
                    clear.push((pos, ClearReason::Recorded(ByRecord { server: true })));
                }
            }
        }
        // The first request of a run of server clearings adds its ids.
        let prev = (req.index >= 2)
            .then(|| &facts[req.index - 2])
            .filter(|_| look.session().requests[req.index - 2].segment == req.segment);
        edit_fired = !prev.is_some_and(|p| p.edit_cleared());
        edit = Some(e);
    }
    clear.sort_unstable_by_key(|&(p, _)| p);
    let mut v = Verdict::none(Note::Recorded(RecordedWhy {
        boundary_ids: rc.ids.len(),
        added: rc.added,
        edit,
    }));
    v.trigger = (rc.added > 0 || edit_fired).then_some(Trigger::Recorded);
    v.clear = clear;
    (v, applied)
}

/// `recorded` (SPEC §9a, §15.3): what the transcript proves was cleared.
pub(super) struct Recorded;

impl super::plan::Plan for Recorded {
    /// Its reading of the records, where it runs.
    fn state(&self, s: &Session, _d: &Derived, p: &Policy) -> Option<PlanState> {
        Some(PlanState::new(RecordedState::new(s, p)))
    }

    /// Its clearings last over the view (or it reads the request before).
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::View
    }

    /// The budget writer's boundary ids stay in force over the view as
    /// budget's do; an applied server edit's, at its request only (SPEC §15.3).
    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[
            (Trigger::Recorded, super::plan::Lasts::View),
            (Trigger::RecordedServer, super::plan::Lasts::Request),
        ]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Recorded
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        let facts = e
            .plans
            .get::<RecordedState>()
            .and_then(|r| r.0.as_deref())
            .map(|f| &f[..]);
        let (verdict, applied) = recorded(&*e, facts, req, || e.idle_server(req));
        Decided {
            recorded_applied: applied,
            ..Decided::verdict(verdict)
        }
    }

    /// It replays what any delivery recorded.
    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Rewrite, Delivery::CacheEdits, Delivery::Server]
    }
}

impl std::fmt::Display for RecordedWhy {
    /// SPEC §9a's baseline in words: what the records prove was cleared.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.boundary_ids == 0 && self.edit.is_none() {
            return f.write_str("recorded: no recorded clearing in force");
        }
        f.write_str("recorded: ")?;
        if self.boundary_ids > 0 {
            write!(
                f,
                "{} id{} of the harness's microcompact boundaries in force",
                self.boundary_ids,
                if self.boundary_ids == 1 { "" } else { "s" }
            )?;
            if self.added > 0 {
                write!(f, " ({} added here)", self.added)?;
            }
        }
        let Some(e) = self.edit else {
            return Ok(());
        };
        if self.boundary_ids > 0 {
            f.write_str("; ")?;
        }
        write!(
            f,
            "the server cleared {} tool uses ({} tokens) as recorded",
            e.cleared_tool_uses,
            crate::numbers::fmt_int(e.cleared_input_tokens)
        )?;
        match e.simulated {
            _ if e.ids_known() => f.write_str(", ids as idle-server's simulation names them"),
            Some(n) => write!(
                f,
                ", ids unknown (idle-server's simulation clears {n}): its tokens counted as not sent"
            ),
            None => f.write_str(
                ", ids unknown (idle-server's simulation applies nothing here): its tokens counted as not sent",
            ),
        }
    }
}

/// `recorded` (SPEC §9a): a record proves the harness cleared it — a budget
/// writer's boundary, or (`server`) an applied server edit whose ids
/// idle-server's simulation names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ByRecord {
    pub server: bool,
}

impl std::fmt::Display for ByRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.server {
            "recorded: the server's applied clear_tool_uses edit (ids as idle-server's simulation names them)"
        } else {
            "recorded: a microcompact boundary of the harness names it"
        })
    }
}

/// `recorded`'s reading of the records (SPEC §9a), per request, read once
/// when the plan is `recorded`.
#[derive(Clone, Default)]
pub(crate) struct RecordedState(
    pub(super) Option<std::sync::Arc<Vec<crate::policy::recorded::RecordedCleared>>>,
);

impl RecordedState {
    pub(super) fn new(s: &Session, policy: &Policy) -> RecordedState {
        RecordedState(
            (policy.kind.is_baseline())
                .then(|| crate::policy::recorded::recorded_cleared_all(s).into()),
        )
    }
}

impl super::own_state::OwnState for RecordedState {
    const KIND: PlanKind = PlanKind::Recorded;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SPEC §15.5: an applied edit's ids are known when idle-server's whole
    /// set has the record's count; otherwise its recorded tokens are kept out
    /// of the wire without ids.
    #[test]
    fn t15_5_unknown_ids_keep_the_recorded_tokens_out() {
        let edit = |simulated| RecordedEdit {
            cleared_tool_uses: 20,
            cleared_input_tokens: 30_000,
            simulated,
        };
        let note = |e| {
            Note::Recorded(RecordedWhy {
                boundary_ids: 0,
                added: 0,
                edit: Some(e),
            })
        };
        assert!(edit(Some(20)).ids_known());
        assert_eq!(unattributed_tokens(&note(edit(Some(20)))), 0);
        for e in [edit(Some(19)), edit(None)] {
            assert!(!e.ids_known());
            assert_eq!(unattributed_tokens(&note(e)), 30_000);
        }
        assert_eq!(unattributed_tokens(&Note::NoRequests), 0);
    }
}
