//! What the transcript proves a harness setting kept out of each request's
//! wire (SPEC §9a): the budget writer's `microcompact_boundary` ids in force,
//! and the server's applied `clear_tool_uses_20250919` edits. Read by the
//! timeline's `recorded_cleared` and by plan kind `recorded`, the baseline
//! (SPEC §9a "The baseline row", §15.3–§15.5).

use crate::session::Session;
use std::collections::{HashMap, HashSet};

/// The API's type name of the edit whose applications the baseline counts.
const CLEAR_TOOL_USES: &str = "clear_tool_uses_20250919";

/// What the transcript proves a harness setting kept out of request k's wire
/// (SPEC §9a): `recorded_cleared` and `recorded_cleared_tokens`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedCleared {
    /// The ids of the budget writer's `microcompact_boundary` records still in
    /// force in k's view, in record order.
    pub ids: Vec<String>,
    /// Σ their results' `est_tokens` + the `cleared_input_tokens` of k's
    /// `applied_edits` of type `clear_tool_uses_20250919`.
    pub tokens: u64,
    /// The result each id of `ids` stands for (its last one in k's view).
    pub results: Vec<usize>,
    /// How many of `ids` a record attached to k added (SPEC §15.3 `fired`).
    pub added: usize,
    /// k's applied `clear_tool_uses_20250919` edits, summed: `(cleared_tool_uses,
    /// cleared_input_tokens)`; None when k's response records none.
    pub edit: Option<(u64, u64)>,
}

impl RecordedCleared {
    /// Whether k's response records the server clearing tool uses.
    pub(crate) fn edit_cleared(&self) -> bool {
        self.edit.is_some_and(|(uses, _)| uses > 0)
    }
}

/// The applied `clear_tool_uses_20250919` edits of request `k`'s response,
/// summed (see [`RecordedCleared::edit`]).
fn applied_edit(s: &Session, req: &crate::session::Request) -> Option<(u64, u64)> {
    let edits = req
        .response
        .and_then(|m| s.messages[m].applied_edits.as_deref())?;
    let mut out: Option<(u64, u64)> = None;
    for e in edits {
        if e.get("type").and_then(|t| t.as_str()) == Some(CLEAR_TOOL_USES) {
            let n = |k: &str| e.get(k).and_then(|t| t.as_u64()).unwrap_or(0);
            let (uses, tokens) = out.get_or_insert((0, 0));
            *uses = uses.saturating_add(n("cleared_tool_uses"));
            *tokens = tokens.saturating_add(n("cleared_input_tokens"));
        }
    }
    out
}

/// Whether any response of the session records the server clearing tool uses.
pub fn any_edit_cleared(s: &Session) -> bool {
    s.requests
        .iter()
        .any(|r| applied_edit(s, r).is_some_and(|(uses, _)| uses > 0))
}

/// [`RecordedCleared`] of every request (index k − 1). A budget record is in
/// force at k from the request it is attached to (§10: the first whose
/// response follows it) while k is in the same view segment; an id counts
/// where a result of that id is in k's view (its last one there).
pub fn recorded_cleared_all(s: &Session) -> Vec<RecordedCleared> {
    let records: Vec<&crate::session::Evidence> =
        s.evidence.iter().filter(|e| e.budget_writer).collect();
    let mut results: HashMap<&str, Vec<usize>> = HashMap::new();
    if !records.is_empty() {
        let named: HashSet<&str> = records
            .iter()
            .flat_map(|e| e.compacted_tool_ids.iter().map(String::as_str))
            .collect();
        for (i, r) in s.results.iter().enumerate() {
            if named.contains(r.id.as_str()) {
                results.entry(r.id.as_str()).or_default().push(i);
            }
        }
    }
    s.requests
        .iter()
        .map(|req| {
            let mut out = RecordedCleared::default();
            let mut seen: HashSet<&str> = HashSet::new();
            for e in records
                .iter()
                .filter(|e| e.segment == req.segment && e.before_request <= req.index)
            {
                for id in &e.compacted_tool_ids {
                    if seen.contains(id.as_str()) {
                        continue;
                    }
                    let last = results.get(id.as_str()).and_then(|rs| {
                        rs.iter().rev().find(|&&r| {
                            let m = s.results[r].msg;
                            m >= req.view_start && m < req.end
                        })
                    });
                    if let Some(&r) = last {
                        seen.insert(id.as_str());
                        out.ids.push(id.clone());
                        out.results.push(r);
                        out.added += usize::from(e.before_request == req.index);
                        out.tokens = out.tokens.saturating_add(s.results[r].est_tokens);
                    }
                }
            }
            out.edit = applied_edit(s, req);
            if let Some((_, t)) = out.edit {
                out.tokens = out.tokens.saturating_add(t);
            }
            out
        })
        .collect()
}
