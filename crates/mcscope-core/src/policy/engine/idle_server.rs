//! `idle-server` in the engine (SPEC §13.S): the decision of
//! `harness::claude_idle_server` at each request and, when the edit is sent, what the
//! server clears — §11's `clear_tool_uses_20250919` pass over the whole request
//! (S7). The server is stateless: nothing carries but "applied at k − 1" (S6).

use super::*;
use crate::harness::claude_idle_server::{self as rule, Decision, Params, RecFact};
use crate::policy::api::{ClearInputs, Edit, TriggerOn};
use crate::policy::params::When;
use std::sync::Arc;

/// The plan at one request, as SPEC §13.S10's `idle_server` object says it.
#[derive(Debug, Clone, PartialEq)]
pub struct IdleServerStep {
    pub decision: Decision,
    pub params: Params,
    /// The first request whose messages hold the return record.
    pub return_index: Option<usize>,
    /// |U|: the tool uses of the request (every tool).
    pub tool_uses: usize,
    pub applied: bool,
    /// `below_trigger` / `below_clear_at_least` when sent and not applied.
    pub not_applied_because: Option<&'static str>,
    /// The server's whole set (S7; §15.4: cut and already-cleared included).
    pub cleared_tool_uses: usize,
    pub cleared_input_tokens: u64,
    /// The S5 edit (None without a plan); sent only when `sent`.
    pub edit: Option<Edit>,
    /// The request holds thinking blocks: `clear_thinking_20251015` with
    /// `keep: "all"` goes first (S10).
    pub thinking: bool,
}

impl IdleServerStep {
    pub fn sent(&self) -> bool {
        self.decision.is_sent()
    }

    /// The edits the client sends at the request (S10's local side).
    pub fn edits_json(&self) -> Vec<serde_json::Value> {
        let Some(edit) = self.edit.as_ref().filter(|_| self.sent()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if self.thinking {
            out.push(
                serde_json::json!({"type": crate::policy::api::CLEAR_THINKING, "keep": "all"}),
            );
        }
        out.push(edit.to_json());
        out
    }
}

/// Whether an engine of `policy` over `s` may run `idle-server` at some request.
pub(super) fn may_run(policy: &Policy, s: &Session) -> bool {
    // A preset whose auto may choose idle-server: its own plan.
    let its_own = policy.preset.auto_may(PlanKind::IdleServer);
    match policy.kind {
        PlanKind::IdleServer => true,
        // The baseline names an applied edit's ids by idle-server (SPEC §15.5).
        PlanKind::Recorded if its_own => crate::policy::recorded::any_edit_cleared(s),
        PlanKind::Auto if its_own => s.requests.iter().any(|r| {
            policy.preset.asks().auto_kind(policy, r, r.gap_minutes) == Some(PlanKind::IdleServer)
        }),
        _ => false,
    }
}

/// The facts of the session's main-thread records (an unreadable file: none,
/// so no return is ever found).
pub(super) fn facts_of(s: &Session, derived: &crate::derived::Derived) -> Arc<Vec<RecFact>> {
    derived.get_or_init(|| {
        // No record a return could follow: no return, nothing to read.
        if !crate::load::format::of(s.format).return_facts() || !s.return_anchor {
            return Vec::new();
        }
        // Only while the path is still a regular file (a FIFO put in its
        // place since the load would block the read for ever).
        let text = crate::load::regular::open_regular_io(&s.path)
            .and_then(|mut f| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut f, &mut text).map(|_| text)
            })
            .unwrap_or_default();
        rule::read_facts(&text, s.subagent_what_if)
    })
}

/// The parameters at `req` (S4) under `policy`: explicit values win, else by
/// version.
pub(super) fn params(policy: &Policy, req: &Request) -> Params {
    // The baseline runs it with the version's defaults, never the
    // command's options (SPEC §15.5).
    let defaults;
    let p = if policy.kind.is_baseline() {
        defaults = Policy::preset(policy.preset);
        &defaults
    } else {
        policy
    };
    use super::plan::Plan;
    let version = req.version.as_deref();
    let keep = IdleServer.keep_at(p, version).unwrap_or(1);
    let min_trigger = IdleServer.own_value("min_trigger_tool_uses", p, version);
    Params {
        keep,
        min_trigger: min_trigger.map_or(u32::MAX, |m| u32::try_from(m).unwrap_or(u32::MAX)),
        gap_minutes: IdleServer.gap(p),
    }
}

/// The first request whose messages hold the record at `line`: the first
/// of the view whose response starts after it.
fn request_holding(s: &Session, req: &Request, line: usize) -> Option<usize> {
    let first = s.requests.partition_point(|r| r.segment < req.segment);
    s.requests[first..req.index]
        .iter()
        .find(|r| r.response.is_none_or(|m| s.messages[m].first_line > line))
        .map(|r| r.index)
}

/// What `idle-server` reads at a request besides the view and the policy:
/// what the engine carries along the requests.
pub(super) struct Carried<'a> {
    /// The records of the request's view up to its response.
    pub(super) recs: &'a [RecFact],
    /// S1's return there (the engine walks it on from request to request).
    pub(super) ret: Option<rule::Return>,
    /// Without one, a pause past the gap that did not count (S1's anchor).
    pub(super) unanchored: Option<f64>,
    /// Whether the edit applied at the request before (S6).
    pub(super) applied_before: bool,
    /// The api plan's reading of the messages (S7's pass).
    pub(super) api: Option<&'a ApiFacts>,
}

/// `idle-server` at `req` with `params` (`params`): S1–S6, then S7 through
/// §11's pass when sent.
pub(super) fn idle_server<L: Look>(
    look: &L,
    p: &Policy,
    req: &Request,
    params: Params,
    carried: Carried<'_>,
) -> (Verdict, IdleServerStep) {
    let s = look.session();
    let mut decision = rule::decide_after(
        carried.recs,
        req.version.as_deref(),
        &params,
        carried.applied_before,
        carried.ret,
    );
    if decision.ret.is_none() {
        // A file with no anchored reply at all is not walked (its records are
        // not read back): the request's own pause past the gap is the one
        // that did not count.
        decision.unanchored = carried.unanchored.or_else(|| {
            (!s.return_anchor)
                .then_some(req.gap_minutes)
                .flatten()
                .filter(|&g| g > params.gap_minutes)
        });
    }
    let edit = decision
        .trigger
        .zip(decision.keep)
        .map(|(t, k)| Edit::ClearToolUses {
            trigger: TriggerOn::ToolUses(t),
            keep: k,
            clear_at_least: Some(rule::CLEAR_AT_LEAST),
            exclude_tools: decision.exclude_tools.clone(),
            clear_inputs: ClearInputs::None,
        });
    let return_index = decision
        .ret
        .as_ref()
        .and_then(|r| request_holding(s, req, r.line));
    let mut step = IdleServerStep {
        decision,
        params,
        return_index,
        tool_uses: 0,
        applied: false,
        not_applied_because: None,
        cleared_tool_uses: 0,
        cleared_input_tokens: 0,
        edit: edit.clone(),
        thinking: false,
    };
    let (Some(edit), true) = (edit, step.sent()) else {
        let note = Note::IdleServer(IdleServerWhy::of(&step));
        return (Verdict::none(note), step);
    };
    // Read only where the edit is sent (a pass over the view).
    step.thinking = carried.api.is_some_and(|f| {
        (req.view_start..req.end.min(f.msgs.len())).any(|m| f.msgs[m].thinking_blocks > 0)
    });
    let (mut verdict, api) =
        api::api_with(look, p, carried.api, req, std::slice::from_ref(&edit), true);
    step.tool_uses = api.tool_uses;
    if let Some(o) = api.edits.first() {
        step.applied = o.fired;
        step.cleared_tool_uses = o.cleared_tool_uses.unwrap_or(0);
        step.cleared_input_tokens = o.cleared_input_tokens;
        step.not_applied_because = match o.note {
            _ if o.fired => None,
            EditNote::NotFired { .. } => Some("below_trigger"),
            _ => Some("below_clear_at_least"),
        };
    }
    verdict.trigger = step.applied.then_some(Trigger::IdleServer);
    if !step.applied {
        verdict.clear.clear();
    }
    // Error results stay when errors may not be cleared (S7, §3).
    if !p.errors_clearable() {
        verdict
            .clear
            .retain(|&(q, _)| !s.results[look.cands()[q].result].is_error);
    }
    verdict.note = Note::IdleServer(IdleServerWhy::of(&step));
    (verdict, step)
}

/// What `idle-server` did at a request, for its note (`report::words`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleServerWhy {
    pub idle_minutes: Option<f64>,
    pub clearable: usize,
    pub trigger: Option<u64>,
    pub keep: Option<u64>,
    pub sent: Result<rule::SentBecause, rule::NotSent>,
    pub tool_uses: usize,
    pub applied: bool,
    pub not_applied_because: Option<&'static str>,
    pub cleared: usize,
    pub tokens: u64,
    /// No return: the minutes of a pause past the gap that did not count.
    pub unanchored: Option<f64>,
    /// SPEC §17.C.U2–U3: page-text PDF reads among the clearable results,
    /// and whether a PDF row excludes `Read`.
    pub pdf_reads: usize,
    pub pdf_excludes_read: bool,
}

impl IdleServerWhy {
    fn of(st: &IdleServerStep) -> IdleServerWhy {
        let d = &st.decision;
        IdleServerWhy {
            idle_minutes: d.ret.as_ref().map(|r| r.idle_minutes),
            clearable: d.clearable,
            trigger: d.trigger,
            keep: d.keep,
            sent: d.sent,
            tool_uses: st.tool_uses,
            applied: st.applied,
            not_applied_because: st.not_applied_because,
            cleared: st.cleared_tool_uses,
            tokens: st.cleared_input_tokens,
            unanchored: d.unanchored,
            pdf_reads: d.pdf.clearable,
            pdf_excludes_read: d.pdf.excludes_read,
        }
    }
}

/// The policy of E4's simulation (SPEC §13.E4, §15.11): `idle-server` with
/// the version's defaults, except `--min-trigger-tool-uses`, and
/// `--keep-recent` / `--gap-minutes` only when `--policy` is `idle-server` or
/// `auto`: run beside whatever plan `given` selects on a session of `harness`.
pub fn e4_policy(given: &Policy, harness: crate::session::HarnessId) -> Policy {
    let mut p = Policy::preset(harness);
    p.kind = PlanKind::IdleServer;
    p.delivery = Delivery::Server;
    p.protect = given.protect;
    p.clear_errors = given.clear_errors;
    p.min_trigger_tool_uses = given.min_trigger_tool_uses;
    if given.kind == PlanKind::IdleServer || given.kind.is_auto() {
        p.keep_recent = given.keep_recent;
        if given.gap_explicit {
            p.gap_threshold_minutes = given.gap_threshold_minutes;
            p.gap_explicit = true;
        }
    }
    p
}

/// `idle-server` (SPEC §13.S): the server's clearing after idle.
pub(super) struct IdleServer;

impl super::plan::Plan for IdleServer {
    /// Its reading of the records, where it may run.
    fn state(&self, s: &Session, d: &Derived, p: &Policy) -> Option<PlanState> {
        Some(PlanState::new(IdleServerState::new(s, d, may_run(p, s))))
    }

    /// Its own gap, Claude Code's constant, unless one is given (SPEC §13.S1).
    fn own_gap(&self) -> Option<f64> {
        Some(rule::GAP_MINUTES)
    }

    fn keep_words(&self, named: bool) -> Option<String> {
        Some(rule::keep_by_version(named))
    }

    /// Its clearings last over the view (or it reads the request before).
    fn replay(&self) -> super::plan::Replay {
        super::plan::Replay::View
    }

    /// The server applies its edit (SPEC §13.S): its delivery is server.
    fn settles(&self) -> Option<super::plan::Settles> {
        Some(super::plan::Settles {
            delivery: Delivery::Server,
            always: true,
            words: "idle-server: the server applies the edit (delivery server)",
        })
    }

    /// `compare`'s default grid (SPEC §9, §15.23): the served keep is 12–64
    /// (SPEC §13.C); the gap is Claude Code's own.
    fn grid(&self, key: &str) -> Option<&'static [f64]> {
        match key {
            "keep_recent" => Some(&[5.0, 12.0, 24.0, 64.0]),
            "gap_threshold_minutes" => Some(&[crate::harness::claude_idle_server::GAP_MINUTES]),
            _ => None,
        }
    }

    /// `idle_server::params`: the keep (by version when none is given), the
    /// explicit gap (else its own 65) and the least trigger.
    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("keep_recent", When::Always),
            ("gap_threshold_minutes", When::Always),
            ("min_trigger_tool_uses", When::Always),
        ]
    }

    /// The server's edit of one request (SPEC §13.S8).
    fn lasts(&self) -> &'static [(Trigger, super::plan::Lasts)] {
        &[(Trigger::IdleServer, super::plan::Lasts::Request)]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::IdleServer
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        let (verdict, step) = e.idle_server(req);
        Decided {
            idle_server: Some(Box::new(step)),
            ..Decided::verdict(verdict)
        }
    }

    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Server]
    }

    /// The keep by version where none is given (SPEC §13.S4), at least 1.
    fn keep_at(&self, p: &Policy, version: Option<&str>) -> Option<u32> {
        Some(
            p.keep_recent
                .unwrap_or_else(|| rule::default_keep(version))
                .max(1),
        )
    }

    fn keeps_by_version(&self) -> bool {
        true
    }

    fn reports_sends(&self) -> bool {
        true
    }

    /// The least trigger: the keep + 15 where none is given (SPEC §13.S4).
    fn own_value(&self, key: &str, p: &Policy, version: Option<&str>) -> Option<u64> {
        let keep = self.keep_at(p, version)?;
        (key == "min_trigger_tool_uses").then(|| {
            u64::from(
                p.min_trigger_tool_uses
                    .unwrap_or(keep.saturating_add(rule::MIN_TRIGGER_OVER_KEEP)),
            )
        })
    }

    /// It is Claude Code's, and the server applies its edit (SPEC §13.S).
    fn refuses(
        &self,
        p: &Policy,
        _session: crate::session::HarnessId,
    ) -> Option<crate::policy::Refused> {
        use crate::policy::Refused;
        if !p.preset.rules().offers(self.kind()) {
            Some(Refused::Preset)
        } else if !self.deliveries().contains(&p.delivery) {
            Some(Refused::Delivery)
        } else {
            None
        }
    }

    fn refusal(&self, r: &crate::policy::Refusal) -> (String, String) {
        match r.why {
            crate::policy::Refused::Preset => {
                let owner = crate::harness::owner_of(self.kind());
                (
                    format!(
                        "idle-server is {}'s plan: it takes the {} preset",
                        owner.title, owner.name
                    ),
                    "idle runs the client's time-based clearing on any preset".into(),
                )
            }
            crate::policy::Refused::Delivery => (
                format!(
                    "idle-server's edit is applied by the server: its delivery is server (got {})",
                    r.delivery.name()
                ),
                "give --delivery server, or leave the delivery out: idle-server's is server".into(),
            ),
        }
    }
}

impl std::fmt::Display for IdleServerWhy {
    /// SPEC §13.S in words: the return, the edit and what the server did.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::harness::claude_idle_server::{NotSent, SentBecause};
        let Some(idle) = self.idle_minutes else {
            return match self.unanchored {
                // SPEC §13.S1: a pause counts only after a reply Claude Code
                // anchored (`apiBlockIndex`, or `joinedApiReply` from 2.1.310).
                Some(m) => write!(
                    f,
                    "idle-server: no return: the {} min pause followed a reply with no apiBlockIndex or joinedApiReply, which Claude Code does not count as idle",
                    crate::numbers::fmt_gap(Some(m))
                ),
                None => {
                    f.write_str("idle-server: no return (no prompt after more than the idle gap)")
                }
            };
        };
        write!(
            f,
            "idle-server: return after {} min idle, {} clearable results",
            crate::numbers::fmt_gap(Some(idle)),
            self.clearable
        )?;
        // SPEC §17.C.U2–U3: what the PDF rows did to S2 / S3.
        match self.pdf_reads {
            0 => {}
            1 => f.write_str(" (1 of them a PDF page text of unknown size)")?,
            n => write!(f, " ({n} of them PDF page texts of unknown size)")?,
        }
        if self.pdf_excludes_read {
            f.write_str(" (Read excluded for a PDF read row)")?;
        }
        let (t, k) = match (self.trigger, self.keep) {
            (Some(t), Some(k)) => (t, k),
            _ => return f.write_str("; too few for an edit (clearable - 3 must exceed keep and reach the minimum trigger)"),
        };
        match self.sent {
            Err(NotSent::CutByClient) => {
                return write!(
                    f,
                    "; not sent (trigger {t}, keep {k}): the client cut tool results after the return"
                );
            }
            Err(_) => {
                return write!(
                    f,
                    "; not sent (trigger {t}, keep {k}): the last response does not show the server cleared"
                );
            }
            Ok(SentBecause::FirstAfterReturn) => {
                write!(f, "; sent (first request after the return)")?
            }
            Ok(SentBecause::ServerClearedRecorded) => {
                write!(f, "; sent (the last response recorded a clearing)")?
            }
            Ok(SentBecause::ServerClearedSimulated) => {
                write!(f, "; sent (the server cleared at the request before)")?
            }
        }
        write!(f, " trigger {t} tool uses, keep {k}; ")?;
        match self.not_applied_because {
            None if self.applied => write!(
                f,
                "the server cleared {} tool uses (~{} tokens)",
                self.cleared,
                crate::numbers::fmt_int(self.tokens)
            ),
            Some("below_trigger") => write!(
                f,
                "{} tool uses <= {t}: the server clears nothing",
                self.tool_uses
            ),
            _ => write!(
                f,
                "it would clear fewer than {} tokens (clear_at_least): nothing applied",
                crate::numbers::fmt_int(crate::harness::claude_idle_server::CLEAR_AT_LEAST)
            ),
        }
    }
}

/// `idle-server`'s state (SPEC §13.S).
#[derive(Clone, Default)]
pub(crate) struct IdleServerState {
    /// Its reading of the records, read once when the plan may run.
    pub(super) facts: Option<std::sync::Arc<Vec<crate::harness::claude_idle_server::RecFact>>>,
    /// Its reading of the messages (the api plan's facts: a reply's blocks).
    pub(super) api: Option<std::sync::Arc<super::api::ApiFacts>>,
    /// Whether it applied at the last request.
    pub(super) applied_prev: bool,
    /// The plan at the last evaluated request.
    pub(super) step: Option<IdleServerStep>,
    /// S1's walk carried along the view (`idle_server::idle_walk`), keyed by
    /// the view's first record, the version and the gap.
    pub(super) walk: IdleWalk,
}

impl IdleServerState {
    /// Its reading of the records, where it may run.
    pub(super) fn new(s: &Session, derived: &crate::derived::Derived, may_run: bool) -> Self {
        IdleServerState {
            facts: may_run.then(|| facts_of(s, derived)),
            api: may_run.then(|| super::api::ApiFacts::of_session(s, derived)),
            ..Default::default()
        }
    }
}

/// See `IdleServerState::walk` (a lock: the verdicts are computed through `&self`).
pub(crate) type IdleWalk = std::sync::Arc<
    std::sync::Mutex<
        Option<(
            (Option<usize>, Option<String>, u64),
            crate::harness::claude_idle_server::Walk,
        )>,
    >,
>;

impl super::own_state::OwnState for IdleServerState {
    const KIND: PlanKind = PlanKind::IdleServer;
}
