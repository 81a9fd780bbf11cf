//! The kind of each Qwen send and what its idle rule reads (SPEC §2): the inputs
//! since the last response, the deciding input, now(k), the last completion, and
//! process segments.

use super::super::raw::{self, Raw};
use super::{Head, Input, Send, SendKind, SendState};
use serde::Deserialize;

/// `systemPayload` of a `ui_telemetry` record: only the event's name matters.
#[derive(Deserialize)]
struct Telemetry<'a> {
    #[serde(rename = "uiEvent", borrow, default)]
    ui_event: Raw<'a>,
}

#[derive(Deserialize)]
struct UiEvent<'a> {
    #[serde(rename = "event.name", borrow, default)]
    dotted: Raw<'a>,
    #[serde(borrow, default)]
    event: Raw<'a>,
}

#[derive(Deserialize)]
struct EventName<'a> {
    #[serde(borrow, default)]
    name: Raw<'a>,
}

impl SendState {
    /// A record arrives: a `version` change (not on a `/branch` copy) is a restart,
    /// which starts a process segment with no completion.
    pub(super) fn enter(&mut self, head: &Head) {
        if let Some(v) = &head.version {
            if !head.forked && self.last_version.as_ref().is_some_and(|last| last != v) {
                self.process += 1;
                self.last_completion = None;
            }
            self.last_version = Some(v.clone());
        }
    }

    /// The send of the request that the next response answers (SPEC §2).
    pub(super) fn next_request(&mut self) -> (Send, Option<i64>, Option<String>) {
        let (kind, note) = send_kind(
            &self.inputs.iter().map(|i| &i.input).collect::<Vec<_>>(),
            self.last_response_called,
        );
        let after_goal = kind == SendKind::Hook && self.last_non_hook == Some(SendKind::Goal);
        if kind != SendKind::Hook {
            self.last_non_hook = Some(kind);
        }
        // now(k): the deciding input (a prompt, a cron job), the last record of any
        // type (a hook), else the last input; the completion is the one before it.
        let deciding = deciding_input(&self.inputs.iter().map(|i| &i.input).collect::<Vec<_>>());
        let (now, text, completion) = match kind {
            SendKind::UserQuery | SendKind::Cron => {
                let i = &self.inputs[deciding.unwrap_or(0)];
                (i.ts_ms, i.ts.clone(), i.completion_before)
            }
            SendKind::Hook => self.last_record.clone().unwrap_or_default(),
            _ => match self.inputs.last() {
                Some(i) => (i.ts_ms, i.ts.clone(), i.completion_before),
                None => (None, None, None),
            },
        };
        self.inputs.clear();
        (
            Send {
                kind,
                after_goal,
                completion_ms: completion,
                process: self.process,
                note,
            },
            now,
            text,
        )
    }

    /// Puts a send on the request just made.
    pub(super) fn stamp(
        &self,
        req: Option<&mut crate::session::Request>,
        (send, now, text): (Send, Option<i64>, Option<String>),
    ) {
        let Some(req) = req else { return };
        req.now_ms = now;
        req.at = now.and(text);
        req.gap_minutes = match (now, send.completion_ms) {
            (Some(now), Some(prev)) => Some((now - prev) as f64 / 60_000.0),
            _ => None,
        };
        req.begins_turn = send.kind.begins_turn();
        req.send = Some(send);
    }
}

/// Subtypes that never decide a send (they ride along with another input).
fn rides_along(i: &Input) -> bool {
    matches!(
        i.subtype.as_deref(),
        Some("mid_turn_user_message" | "agent_mention" | "agent_message")
    ) || (i.subtype.as_deref() == Some("notification") && !i.delivered)
}

/// The deciding input: the last one that is not a rider (SPEC §2).
fn deciding_input(inputs: &[&Input]) -> Option<usize> {
    inputs.iter().rposition(|i| !rides_along(i))
}

/// The send kind of a request from its inputs (SPEC §2 table, first rule that
/// matches), with a note when the transcript cannot settle it.
pub(super) fn send_kind(
    inputs: &[&Input],
    last_response_called: bool,
) -> (SendKind, Option<String>) {
    if let Some(d) = deciding_input(inputs).map(|p| inputs[p]) {
        if d.tool_result {
            return (SendKind::ToolResult, None);
        }
        return match d.subtype.as_deref() {
            None => (SendKind::UserQuery, None),
            Some("cron") => (SendKind::Cron, None),
            Some("notification") => (SendKind::Notification, None),
            Some("goal_runtime") => (SendKind::Goal, None),
            Some(other) => (
                SendKind::UserQuery,
                Some(format!(
                    "unknown input subtype {other}: treated as a prompt"
                )),
            ),
        };
    }
    if inputs.is_empty() {
        return (SendKind::Hook, None);
    }
    let only = |subtypes: &[&str]| {
        inputs
            .iter()
            .all(|i| i.subtype.as_deref().is_some_and(|s| subtypes.contains(&s)))
    };
    if only(&["mid_turn_user_message"]) {
        // Text queued during tool execution goes out with the tool results.
        return if last_response_called {
            (SendKind::ToolResult, None)
        } else {
            (SendKind::Steer, None)
        };
    }
    (SendKind::AgentMessage, None)
}

/// Whether a `ui_telemetry` payload records an API response or an API error.
pub(super) fn is_api_completion(payload: Raw<'_>) -> bool {
    let Some(t) = raw::object::<Telemetry>(payload) else {
        return false;
    };
    let Some(ev) = raw::object::<UiEvent>(t.ui_event) else {
        return false;
    };
    let name = raw::string(ev.dotted)
        .or_else(|| raw::object::<EventName>(ev.event).and_then(|e| raw::string(e.name)));
    matches!(
        name.as_deref(),
        Some("qwen-code.api_response" | "qwen-code.api_error")
    )
}
