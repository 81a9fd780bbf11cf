//! The `api` preset in the reports (SPEC §11): the per-request `api` object, the
//! simulated edits beside the recorded `applied_edits` (§10), and their text.

use crate::analysis::Setup;
use crate::evidence::api::{agrees, beside, recorded};
use crate::numbers::fmt_int;
use crate::policy::Policy;
use crate::policy::engine::Step;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// The per-request `api` object (SPEC §11), fields in schema order.
#[derive(Serialize)]
pub struct ApiJson<'a> {
    edits: Vec<EditJson<'a>>,
    /// The response's `applied_edits` as the transcript recorded them (the
    /// server's own objects, passed through untyped).
    recorded: Option<&'a Vec<Value>>,
    input_tokens: u64,
    input_tokens_source: &'static str,
    tool_uses: usize,
    beside_recorded: Option<Vec<BesideJson>>,
    agrees: Option<bool>,
}

/// What one configured edit did at the request.
#[derive(Serialize)]
struct EditJson<'a> {
    #[serde(rename = "type")]
    edit_type: &'a str,
    fired: bool,
    cleared_tool_uses: Option<usize>,
    cleared_input_tokens: u64,
    cleared_thinking_turns: Option<usize>,
}

/// One edit type simulated beside the response's recorded `applied_edits`.
#[derive(Serialize)]
struct BesideJson {
    #[serde(rename = "type")]
    edit_type: String,
    simulated_cleared: u64,
    recorded_cleared: u64,
    simulated_cleared_input_tokens: u64,
    recorded_cleared_input_tokens: u64,
    agrees: bool,
}

/// The per-request `api` object: `{"edits", "recorded"}` plus the prompt read
/// and the comparison.
pub fn json<'a>(setup: &'a Setup, st: &'a Step) -> Option<ApiJson<'a>> {
    let api = st.api.as_ref()?;
    let recorded = recorded(&setup.session, st.index);
    let edits = api
        .edits
        .iter()
        .map(|e| EditJson {
            edit_type: e.edit_type,
            fired: e.fired,
            cleared_tool_uses: e.cleared_tool_uses,
            cleared_input_tokens: e.cleared_input_tokens,
            cleared_thinking_turns: e.cleared_thinking_turns,
        })
        .collect();
    let beside_recorded = beside(api, recorded).map(|b| {
        b.into_iter()
            .map(|x| BesideJson {
                edit_type: x.edit_type,
                simulated_cleared: x.cleared.0,
                recorded_cleared: x.cleared.1,
                simulated_cleared_input_tokens: x.tokens.0,
                recorded_cleared_input_tokens: x.tokens.1,
                agrees: x.agrees,
            })
            .collect()
    });
    Some(ApiJson {
        edits,
        recorded,
        input_tokens: api.input_tokens,
        input_tokens_source: api.source.name(),
        tool_uses: api.tool_uses,
        beside_recorded,
        agrees: agrees(api, recorded),
    })
}

/// The header's policy lines for the api preset.
pub fn header(p: &Policy, out: &mut String) {
    let _ = writeln!(
        out,
        "policy: api (preset api)  delivery server  placeholder {:?}",
        p.api.placeholder
    );
    for e in p.api.edits_json() {
        let _ = writeln!(out, "edit: {e}");
    }
    let _ = writeln!(
        out,
        "readings: excluded tools {} toward keep; trigger {}; clear_at_least against every token cleared at the request",
        if p.api.excluded_count_toward_keep {
            "count"
        } else {
            "do not count"
        },
        if p.api.trigger_inclusive {
            ">= (inclusive)"
        } else {
            "> (strict)"
        },
    );
}

/// The plan text's lines: the prompt read, then each edit beside the record.
pub fn plan_lines(setup: &Setup, st: &Step, out: &mut String) {
    let Some(api) = &st.api else {
        return;
    };
    let recorded = recorded(&setup.session, st.index);
    let _ = writeln!(
        out,
        "prompt: {} input tokens ({}), {} tool uses",
        fmt_int(api.input_tokens),
        api.source.name(),
        api.tool_uses
    );
    let beside = beside(api, recorded);
    for e in &api.edits {
        let what = match (e.cleared_tool_uses, e.cleared_thinking_turns) {
            (Some(n), _) => format!("{n} tool uses"),
            (None, Some(n)) => format!("{n} thinking turns"),
            _ => String::new(),
        };
        let rec = beside
            .as_ref()
            .and_then(|b| b.iter().find(|x| x.edit_type == e.edit_type))
            .map_or("recorded: none".to_string(), |x| {
                format!(
                    "recorded: {} cleared, {} tokens ({})",
                    x.cleared.1,
                    fmt_int(x.tokens.1),
                    if x.agrees { "agrees" } else { "differs" }
                )
            });
        let _ = writeln!(
            out,
            "  {}  {}  simulated: {what}, ~{} tokens  |  {rec}",
            e.edit_type,
            if e.fired { "fired" } else { "not fired" },
            fmt_int(e.cleared_input_tokens),
        );
    }
    if let Some(r) = recorded.filter(|_| beside.is_none() || api.edits.is_empty()) {
        let list: Vec<String> = r.iter().map(Value::to_string).collect();
        let _ = writeln!(
            out,
            "  recorded applied_edits: [{}]",
            crate::sanitize::joined(list, ", ")
        );
    }
}

/// `evidence`'s tally for the api preset: the requests whose response recorded
/// `applied_edits`, and those where the simulation agrees with the record.
pub fn agreement_counts(setup: &Setup) -> (usize, usize) {
    if !setup.policy.kind.is_api() {
        return (0, 0);
    }
    let mut recorded_n = 0;
    let mut agree_n = 0;
    for st in crate::analysis::timeline_steps(setup, setup.last_request()) {
        let Some(api) = &st.api else { continue };
        if let Some(ok) = agrees(api, recorded(&setup.session, st.index)) {
            recorded_n += 1;
            agree_n += usize::from(ok);
        }
    }
    (recorded_n, agree_n)
}

/// The counts `evidence --format json` adds for the api preset: responses that
/// recorded `applied_edits`, and those the simulation agrees with.
#[derive(Serialize)]
pub struct CountsJson {
    api_recorded: usize,
    api_agrees: usize,
}

/// The counts as `evidence --format json` adds them (api preset only).
pub fn counts_json(setup: &Setup) -> Option<CountsJson> {
    if !setup.policy.kind.is_api() {
        return None;
    }
    let (api_recorded, api_agrees) = agreement_counts(setup);
    Some(CountsJson {
        api_recorded,
        api_agrees,
    })
}

/// The same in words, for `evidence`'s text.
pub fn counts_text(setup: &Setup, out: &mut String) {
    if !setup.policy.kind.is_api() {
        return;
    }
    let (n, ok) = agreement_counts(setup);
    let _ = writeln!(
        out,
        "api: {n} response(s) recorded applied_edits; the simulated edits agree with {ok} (cleared tool uses and thinking turns compared; tokens are an estimate beside the server's count)"
    );
}
