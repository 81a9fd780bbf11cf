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
pub fn has_record(s: &Session, kind: PlanKind) -> bool {
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
        // Cline's edits, or a recorded deleted range (SPEC §17.K.4).
        PlanKind::Cline => {
            s.evidence.iter().any(|e| e.context_edit) || s.requests.iter().any(|r| r.plan_recorded)
        }
        _ => false,
    }
}

/// The answer for every record-writing kind of the session's harness, in the
/// harness's order.
pub fn ran(setup: &Setup) -> Vec<Ran> {
    ran_with(setup, true)
}

/// The same answers from a pass over every request (what [`ran`] did before
/// it stopped early); the tests hold the two together.
pub fn ran_every_request(setup: &Setup) -> Vec<Ran> {
    ran_with(setup, false)
}

/// As [`ran`]; `stop_early`: the pass stops after the last request where
/// `auto` chooses a kind still open. Which kind `auto` runs at a request is
/// the preset's choice from the request and its gap alone, and the engine's
/// gap is the request's own under every preset whose `auto` may choose a
/// record-writing kind (only Qwen Code's moves a checkpoint, and its `auto`
/// chooses idle or size): after that request no step can answer for the
/// kind. A long session whose newer kind (idle-server) no request of its
/// version chooses was stepped to its end for nothing, a whole engine pass
/// (7 % of a timeline's instructions). The tests hold the two to the same
/// answers.
fn ran_with(setup: &Setup, stop_early: bool) -> Vec<Ran> {
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
    // Only where auto chooses one of them at some request (no pass otherwise),
    // and up to the last such request of each.
    let mut last = vec![0usize; out.len()];
    for r in &s.requests {
        if let Some(k) = auto.policy.kind_at(r, r.gap_minutes)
            && let Some(&i) = open.iter().find(|&&i| out[i].kind == k)
        {
            last[i] = r.index;
        }
    }
    if open.iter().all(|&i| last[i] == 0) {
        return out;
    }
    let mut engine = auto.engine(s.requests.len());
    let mut stepped = 0;
    loop {
        let done = |j: usize| out[j].ran.is_some() || (stop_early && stepped >= last[j]);
        if open.iter().all(|&j| done(j)) {
            break;
        }
        let Some(st) = engine.step() else { break };
        stepped = st.index;
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
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::tests::{Tx, usage};
    use crate::policy::Policy;
    use serde_json::json;

    /// A Claude Code 2.1.17 session of five big results whose usage passes
    /// the budget's warning threshold at its fourth response: the budget plan
    /// fires at the request after it, which begins a turn or continues the
    /// tool loop.
    fn session(prompt_before_fire: bool) -> Tx {
        let big = |tx: &mut Tx, id: &str, min: f64| {
            tx.rec(
                "user",
                min,
                json!({"message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(160_000)}]}}),
            );
        };
        let mut tx = Tx::default();
        tx.prompt(0.0);
        // Two more before them: the budget keeps the last three.
        tx.response("a1", 0.01, usage(10, 2_000, 0), Some("b1"));
        big(&mut tx, "b1", 0.02);
        tx.response("a2", 0.03, usage(10, 2_000, 2_000), Some("b2"));
        big(&mut tx, "b2", 0.04);
        tx.response("m1", 0.1, usage(10, 5_000, 4_000), Some("c1"));
        big(&mut tx, "c1", 0.2);
        tx.response("m2", 0.3, usage(10, 40_000, 5_000), Some("c2"));
        big(&mut tx, "c2", 0.4);
        tx.response("m3", 0.5, usage(10, 40_000, 45_000), Some("c3"));
        big(&mut tx, "c3", 0.6);
        if prompt_before_fire {
            // The reply ends the turn; the usage crossing comes with it and
            // the next request begins a turn: a silent fire (§18.7).
            tx.response("m4", 0.7, usage(10, 60_000, 85_000), None);
            tx.prompt(1.0);
            tx.response("m5", 1.1, usage(10, 1_000, 145_000), None);
        } else {
            // The crossing comes mid-loop: the next request continues it.
            tx.response("m4", 0.7, usage(10, 60_000, 85_000), Some("c4"));
            tx.result("c4", 0.8);
            tx.response("m5", 0.9, usage(10, 1_000, 145_000), None);
        }
        for l in &mut tx.lines {
            l["version"] = json!("2.1.17");
        }
        tx
    }

    fn ran_of(tx: &Tx) -> Ran {
        let setup = Setup::new(
            tx.session(),
            Policy::preset(crate::session::HarnessId::Claude),
        );
        ran(&setup)[0]
    }

    /// §16.I, §18.8: no microcompact_boundary where the budget plan clears
    /// mid-loop: it did not run, at that request.
    #[test]
    fn s16_i_a_fire_without_its_record_is_did_not_run() {
        let r = ran_of(&session(false));
        assert_eq!(r.kind, PlanKind::Budget);
        assert_eq!(
            (r.ran, r.because),
            (Some(false), "no_record_where_it_would_clear")
        );
        assert!(r.would_clear.is_some_and(|(_, n)| n > 0), "{r:?}");
    }

    /// §18.7: a fire at a turn start is silent (Claude Code's prompt-suggestion
    /// fork clears first, without a record): it proves nothing.
    #[test]
    fn s18_7_a_silent_fire_is_no_evidence() {
        let tx = session(true);
        let r = ran_of(&tx);
        assert_eq!((r.ran, r.because), (None, "never_fired"), "{r:?}");
        // The plan does fire there, at the turn start.
        let policy = Policy {
            kind: PlanKind::Budget,
            ..Policy::preset(crate::session::HarnessId::Claude)
        };
        let setup = Setup::new(tx.session(), policy);
        let n = setup.session.requests.len();
        let mut engine = setup.engine(n);
        let mut fires = Vec::new();
        while let Some(st) = engine.step() {
            if !st.newly_cleared.is_empty() {
                fires.push((st.index, setup.session.requests[st.index - 1].begins_turn));
            }
        }
        assert!(!fires.is_empty() && fires.iter().all(|f| f.1), "{fires:?}");
    }

    /// §18.8: a record of the writer anywhere in the file: it ran.
    #[test]
    fn s18_8_a_record_means_it_ran() {
        let mut tx = session(false);
        tx.boundary(0.75, 150_000, 30_000, &["c1"]);
        let r = ran_of(&tx);
        assert_eq!((r.ran, r.because), (Some(true), "record"));
    }
}
