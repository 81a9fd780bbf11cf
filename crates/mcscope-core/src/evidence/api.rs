//! The `api` preset's simulated edits beside what the server recorded in
//! `applied_edits` (SPEC §10, §11): per edit type, the cleared count and tokens.

use crate::numbers::fmt_int;
use crate::policy::engine::{ApiStep, EditOutcome, Step};
use crate::session::Session;
use serde_json::Value;
use std::fmt::Write as _;

/// The recorded `applied_edits` of request `k`'s response, when it has one.
pub fn recorded(s: &Session, k: usize) -> Option<&Vec<Value>> {
    let m = s.request(k)?.response?;
    s.messages[m].applied_edits.as_ref()
}

/// One edit type's figures, simulated beside recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Beside {
    pub edit_type: String,
    /// (simulated, recorded) cleared tool uses or thinking turns.
    pub cleared: (u64, u64),
    pub tokens: (u64, u64),
    pub agrees: bool,
}

/// The simulated edits against the recorded ones (None when nothing was
/// recorded): per edit type sent or recorded, the cleared count and tokens.
/// They agree when the counts match (the tokens are an estimate beside a
/// server count, so they are shown, not compared).
pub fn beside(api: &ApiStep, recorded: Option<&Vec<Value>>) -> Option<Vec<Beside>> {
    let recorded = recorded?;
    // A count that is there but is not a whole number (warned about when the
    // session was read) is unknown: shown as 0, and it never agrees.
    let count = |e: &Value| match e
        .get("cleared_tool_uses")
        .or_else(|| e.get("cleared_thinking_turns"))
    {
        None | Some(Value::Null) => Some(0),
        Some(v) => v.as_u64(),
    };
    let mut types: Vec<String> = api.edits.iter().map(|e| e.edit_type.to_string()).collect();
    for e in recorded {
        if let Some(t) = e.get("type").and_then(Value::as_str)
            && !types.iter().any(|x| x == t)
        {
            types.push(t.to_string());
        }
    }
    let out = types
        .into_iter()
        .map(|t| {
            let sim = api.edits.iter().find(|e| e.edit_type == t && e.fired);
            let rec = recorded
                .iter()
                .find(|e| e.get("type").and_then(Value::as_str) == Some(t.as_str()));
            let recorded_count = rec.map_or(Some(0), count);
            let cleared = (
                sim.map_or(0, |e| sim_count(e) as u64),
                recorded_count.unwrap_or(0),
            );
            let tokens = (
                sim.map_or(0, |e| e.cleared_input_tokens),
                rec.and_then(|e| e.get("cleared_input_tokens")?.as_u64())
                    .unwrap_or(0),
            );
            Beside {
                edit_type: t,
                cleared,
                tokens,
                agrees: recorded_count == Some(cleared.0),
            }
        })
        .collect();
    Some(out)
}

fn sim_count(e: &EditOutcome) -> usize {
    e.cleared_tool_uses
        .or(e.cleared_thinking_turns)
        .unwrap_or(0)
}

/// Whether the simulation agrees with what the server recorded at a request
/// (None when nothing was recorded).
pub fn agrees(api: &ApiStep, recorded: Option<&Vec<Value>>) -> Option<bool> {
    beside(api, recorded).map(|b| b.iter().all(|x| x.agrees))
}

/// The timeline text's cell: simulated tool uses and tokens, `|` the record.
pub fn cell(s: &Session, st: &Step) -> String {
    let Some(api) = &st.api else {
        return String::new();
    };
    let sim: (usize, u64) = api
        .edits
        .iter()
        .filter(|e| e.fired)
        .fold((0, 0), |(n, t), e| {
            (
                n + e.cleared_tool_uses.unwrap_or(0),
                t + e.cleared_input_tokens,
            )
        });
    let mut cell = format!("{} uses ~{} tok", sim.0, fmt_int(sim.1));
    if let Some(b) = beside(api, recorded(s, st.index)) {
        let uses = b
            .iter()
            .find(|x| x.edit_type == crate::policy::api::CLEAR_TOOL_USES);
        let (n, t) = uses.map_or((0, 0), |x| (x.cleared.1, x.tokens.1));
        let _ = write!(
            cell,
            " | rec {n} uses {} tok{}",
            fmt_int(t),
            if b.iter().all(|x| x.agrees) {
                " ="
            } else {
                " ≠"
            }
        );
    }
    cell
}
