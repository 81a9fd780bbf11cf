//! The evidence of Claude Code's newer records (SPEC §13.E): the
//! `tool_results_cut` records with what each replaced (E1), the
//! `thinking_stripped` record (E2), the resume note (E3) and the recorded half
//! of `idle_server` read from `message.context_management` (E4).

use crate::session::{ContextClient, CutRecord, Request, Session};
use serde::Serialize;
use serde_json::Value;

/// The edit type whose `applied_edits` entry records a server clearing.
pub const CLEAR_TOOL_USES: &str = "clear_tool_uses_20250919";

/// What the transcript records at one request beyond §10's fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// The `tool_results_cut` records attached here, in file order.
    pub cuts: Vec<CutRecord>,
    /// The last `thinking_stripped` record attached here: (scope, cause).
    pub thinking_stripped: Option<Box<(Option<String>, Option<String>)>>,
    pub resumed_after_pause: bool,
    /// The recorded half of `idle_server` (E4), when the response records one.
    /// This and the other rare facts are boxed: a long session holds one row
    /// per request, and most rows have none.
    pub idle_recorded: Option<Box<IdleRecorded>>,
    /// The simulated half (E4): the `idle-server` plan at this request, filled
    /// in beside the plans (`analysis::evidence`) where a record asks.
    pub idle_simulated: Option<Box<IdleSimulated>>,
}

impl RequestFacts {
    pub fn is_empty(&self) -> bool {
        self.cuts.is_empty()
            && self.thinking_stripped.is_none()
            && !self.resumed_after_pause
            && self.idle_recorded.is_none()
    }

    /// `client_cut` (§13.E4): a cut record attached here, or the response says
    /// the client cut results.
    pub fn client_cut(&self) -> bool {
        !self.cuts.is_empty()
            || self
                .idle_recorded
                .as_ref()
                .and_then(|r| r.client_cut_tool_uses)
                .is_some_and(|n| n > 0)
    }
}

/// `idle_server.recorded` (SPEC §13.E4), fields in schema order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IdleRecorded {
    pub cleared_tool_uses: Option<u64>,
    pub cleared_input_tokens: Option<u64>,
    pub client_cut_tool_uses: Option<u64>,
    pub client_sent_trigger_tool_uses: Option<u64>,
    pub client_sent_keep_tool_uses: Option<u64>,
    pub client_estimated_cleared_input_tokens: Option<u64>,
    /// SPEC §17.C.U6: true when recorded, else null (written only when true).
    pub client_cleared_pdf_page_texts: Option<bool>,
    /// SPEC §17.C.U6: the excluded tools the client sent, as recorded.
    pub client_sent_exclude_tools: Option<Vec<String>>,
}

impl IdleRecorded {
    /// A response's record of the after-idle edit: a `clear_tool_uses` entry in
    /// `applied_edits` or any `client_*` key; None otherwise.
    pub fn of(applied: Option<&[Value]>, client: Option<&ContextClient>) -> Option<IdleRecorded> {
        let entry = applied
            .unwrap_or(&[])
            .iter()
            .find(|e| e.get("type").and_then(Value::as_str) == Some(CLEAR_TOOL_USES));
        if entry.is_none() && client.is_none() {
            return None;
        }
        let n = |k: &str| entry.and_then(|e| e.get(k)).and_then(Value::as_u64);
        let c = client.cloned().unwrap_or_default();
        Some(IdleRecorded {
            cleared_tool_uses: n("cleared_tool_uses"),
            cleared_input_tokens: n("cleared_input_tokens"),
            client_cut_tool_uses: c.cut_tool_uses,
            client_sent_trigger_tool_uses: c.sent_trigger_tool_uses,
            client_sent_keep_tool_uses: c.sent_keep_tool_uses,
            client_estimated_cleared_input_tokens: c.estimated_cleared_input_tokens,
            client_cleared_pdf_page_texts: c.cleared_pdf_page_texts,
            client_sent_exclude_tools: c.sent_exclude_tools,
        })
    }
}

/// `idle_server.simulated` (SPEC §13.E4): the `idle-server` plan at the
/// request. `trigger` and `keep` are the values sent (None when not sent);
/// the cleared figures are 0 when the server applied nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IdleSimulated {
    pub sent: bool,
    pub trigger: Option<u64>,
    pub keep: Option<u64>,
    pub cleared_tool_uses: u64,
    pub cleared_input_tokens: u64,
    /// SPEC §17.C.U6: the bundle's `clearsPdfPageTexts` where the edit is
    /// sent (`To.length>0&&!rn.has(Ae)`): PDF rows with a read before the
    /// return, and `Read` not excluded.
    pub clears_pdf_page_texts: bool,
    /// S3's list at the request (compared with a recorded
    /// `client_sent_exclude_tools`; not printed).
    #[serde(skip)]
    pub exclude_tools: Vec<String>,
}

/// The two names Claude Code always adds to `exclude_tools` (SPEC §13.A3,
/// read `zE="GetTask"`, `bo="Poll"`): left out on both sides before a
/// recorded list is compared (SPEC §17.C.U6).
pub const ALWAYS_EXCLUDED: [&str; 2] = ["GetTask", "Poll"];

/// E4's comparison: `agrees` (None without a record) and the fields that
/// differ, in the order `cleared_tool_uses`, `trigger`, `keep`,
/// `clears_pdf_page_texts`, `exclude_tools`. A recorded `cleared_tool_uses`
/// of null counts as 0; each `client_sent_*` and
/// `client_cleared_pdf_page_texts` is compared only when recorded (the
/// excluded tools sorted, §13.A3's two names left out on both sides); the
/// token figures are never compared (both estimates).
pub fn idle_agreement(
    recorded: Option<&IdleRecorded>,
    simulated: Option<&IdleSimulated>,
) -> (Option<bool>, Vec<&'static str>) {
    let (Some(r), Some(sim)) = (recorded, simulated) else {
        return (None, Vec::new());
    };
    let mut differs = Vec::new();
    if r.cleared_tool_uses.unwrap_or(0) != sim.cleared_tool_uses {
        differs.push("cleared_tool_uses");
    }
    if r.client_sent_trigger_tool_uses
        .is_some_and(|t| Some(t) != sim.trigger)
    {
        differs.push("trigger");
    }
    if r.client_sent_keep_tool_uses
        .is_some_and(|k| Some(k) != sim.keep)
    {
        differs.push("keep");
    }
    if r.client_cleared_pdf_page_texts
        .is_some_and(|c| c != sim.clears_pdf_page_texts)
    {
        differs.push("clears_pdf_page_texts");
    }
    fn listed(tools: &[String]) -> Vec<&str> {
        let mut v: Vec<&str> = tools
            .iter()
            .map(String::as_str)
            .filter(|t| !ALWAYS_EXCLUDED.contains(t))
            .collect();
        v.sort_unstable();
        v
    }
    if r.client_sent_exclude_tools
        .as_deref()
        .is_some_and(|t| listed(t) != listed(&sim.exclude_tools))
    {
        differs.push("exclude_tools");
    }
    (Some(differs.is_empty()), differs)
}

/// The facts of every request (index k − 1).
pub fn collect_facts(s: &Session) -> Vec<RequestFacts> {
    let mut out = vec![RequestFacts::default(); s.requests.len()];
    let slot = |k: Option<usize>| k.and_then(|k| k.checked_sub(1));
    for c in &s.cuts {
        if let Some(f) = slot(c.request).and_then(|i| out.get_mut(i)) {
            f.cuts.push(c.clone());
        }
    }
    for t in &s.thinking_strips {
        if let Some(f) = slot(t.request).and_then(|i| out.get_mut(i)) {
            f.thinking_stripped = Some(Box::new((t.scope.clone(), t.cause.clone())));
        }
    }
    for r in &s.resume_notes {
        if let Some(f) = slot(r.request).and_then(|i| out.get_mut(i)) {
            f.resumed_after_pause = true;
        }
    }
    for (i, req) in s.requests.iter().enumerate() {
        out[i].idle_recorded = response_record(s, req).map(Box::new);
    }
    out
}

fn response_record(s: &Session, req: &Request) -> Option<IdleRecorded> {
    let m = &s.messages[req.response?];
    IdleRecorded::of(m.applied_edits.as_deref(), m.context_client.as_deref())
}

/// One `tool_results_cut` entry of the evidence object (SPEC §13.E1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CutJson<'a> {
    pub call_ids: &'a [String],
    pub stand_in: Option<&'a str>,
    pub rough_tokens: Option<u64>,
    pub cause: Option<&'a str>,
    pub applied: &'a [String],
    pub not_applied: Vec<NotAppliedJson<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotAppliedJson<'a> {
    pub id: &'a str,
    pub reason: &'static str,
}

/// `thinking_stripped` of the evidence object (SPEC §13.E2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StripJson<'a> {
    pub scope: Option<&'a str>,
    pub cause: Option<&'a str>,
}

/// `idle_server` of the evidence object (SPEC §13.E4): the record, the
/// simulated `idle-server` plan beside it, and whether they agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IdleServerJson<'a> {
    pub recorded: Option<&'a IdleRecorded>,
    pub simulated: Option<&'a IdleSimulated>,
    pub agrees: Option<bool>,
    pub differs: Vec<&'static str>,
}

/// The keys §13.E and §13.J add to the evidence object, flattened into it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactsJson<'a> {
    pub tool_results_cut: Vec<CutJson<'a>>,
    pub thinking_stripped: Option<StripJson<'a>>,
    pub resumed_after_pause: bool,
    pub idle_server: IdleServerJson<'a>,
}

impl Default for FactsJson<'_> {
    fn default() -> Self {
        FactsJson {
            tool_results_cut: Vec::new(),
            thinking_stripped: None,
            resumed_after_pause: false,
            idle_server: IdleServerJson {
                recorded: None,
                simulated: None,
                agrees: None,
                differs: Vec::new(),
            },
        }
    }
}

impl RequestFacts {
    pub fn json(&self) -> FactsJson<'_> {
        FactsJson {
            tool_results_cut: self
                .cuts
                .iter()
                .map(|c| CutJson {
                    call_ids: &c.call_ids,
                    stand_in: c.stand_in.as_deref(),
                    rough_tokens: c.rough_tokens,
                    cause: c.cause.as_deref(),
                    applied: &c.applied,
                    not_applied: c
                        .not_applied
                        .iter()
                        .map(|(id, reason)| NotAppliedJson { id, reason })
                        .collect(),
                })
                .collect(),
            thinking_stripped: self
                .thinking_stripped
                .as_deref()
                .map(|(scope, cause)| StripJson {
                    scope: scope.as_deref(),
                    cause: cause.as_deref(),
                }),
            resumed_after_pause: self.resumed_after_pause,
            idle_server: {
                let (agrees, differs) = idle_agreement(
                    self.idle_recorded.as_deref(),
                    self.idle_simulated.as_deref(),
                );
                IdleServerJson {
                    recorded: self.idle_recorded.as_deref(),
                    simulated: self.idle_simulated.as_deref(),
                    agrees,
                    differs,
                }
            },
        }
    }
}
