//! `api` (SPEC §11): Anthropic's server-side context editing. The server edits
//! each request statelessly, on the full history the client re-sends: nothing
//! carries from one request to the next.

use super::*;
use crate::derived::Derived;
use crate::policy::api::{Edit, TriggerOn};
pub(super) use crate::session::{ApiFacts, MsgFacts, UseFact};
use serde_json::Value;
use std::sync::Arc;

impl ApiFacts {
    /// The facts of every message of the session, read back from its records
    /// once and kept in the run's `derived`, so that every plan of it shares
    /// them (a message that cannot be read counts nothing).
    pub fn of_session(s: &Session, derived: &Derived) -> Arc<ApiFacts> {
        let f = derived.get_or_init(|| ApiFacts::read(s));
        // Facts of another length are another session's (followed files are
        // new sessions): read again, and the first kept.
        if f.msgs.len() == s.messages.len() {
            f
        } else {
            Arc::new(ApiFacts::read(s))
        }
    }

    /// Each message's facts from what the loader measured of its records
    /// ([`ApiPiece`](crate::session::ApiPiece)); the messages it did not
    /// measure whole (an inline part it did not measure, a record its scan
    /// was unsure of) are read back.
    fn read(s: &Session) -> ApiFacts {
        let mut msgs = Vec::with_capacity(s.messages.len());
        let mut back = Vec::new();
        for m in 0..s.messages.len() {
            msgs.push(MsgFacts::measured(s, m).unwrap_or_else(|| {
                back.push(m);
                MsgFacts::default()
            }));
        }
        let _ = crate::load::readback::each_of(s, &back, |m, v| msgs[m] = MsgFacts::of(&v));
        ApiFacts { msgs }
    }

    /// Every message's facts read back from its records (the exact path the
    /// measured facts are tested against).
    pub fn read_back(s: &Session) -> ApiFacts {
        let mut msgs = vec![MsgFacts::default(); s.messages.len()];
        let _ = crate::load::readback::each_message(s, |m, v| msgs[m] = MsgFacts::of(&v));
        ApiFacts { msgs }
    }
}

impl MsgFacts {
    /// The facts of message `m` from what the loader measured of each of its
    /// records, as `of` reads the message the records join into, each tool
    /// use named by the session's call of the same id; None where a part was
    /// not measured, a string piece joins others in a dialect that does not
    /// make it a text block, or the message's calls are not its uses one for
    /// one (a use the loader left out, an id or name that is not a string).
    fn measured(s: &Session, m: usize) -> Option<MsgFacts> {
        let msg = &s.messages[m];
        let text_blocks = s.harness.dialect().string_is_text_block();
        let mut f = MsgFacts::default();
        let mut calls = s.calls[s.calls_in(m, m + 1)].iter();
        for part in &msg.parts {
            let k = part.kinds()?;
            if k.api.string && msg.parts.len() > 1 && !text_blocks {
                return None;
            }
            f.tokens += k.api.tokens;
            f.thinking_tokens += k.thinking;
            f.thinking_blocks += k.api.thinking_blocks as usize;
            for (id, input_tokens) in &k.uses {
                let call = calls.next().filter(|c| *c.id == **id)?;
                f.uses.push(UseFact {
                    id: Arc::from(&**id),
                    name: call.name.clone(),
                    input_tokens: *input_tokens,
                });
            }
        }
        calls.next().is_none().then_some(f)
    }

    /// The facts of one `{role, content}` message.
    pub fn of(msg: &Value) -> MsgFacts {
        let mut f = MsgFacts::default();
        match msg.get("content") {
            Some(Value::String(t)) => f.tokens = text_tokens(t),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    let t = block_tokens(b);
                    f.tokens += t;
                    match b.get("type").and_then(Value::as_str) {
                        Some("thinking" | "redacted_thinking") => {
                            f.thinking_tokens += t;
                            f.thinking_blocks += 1;
                        }
                        Some("tool_use") => f.uses.push(UseFact {
                            id: str_of(b, "id").into(),
                            name: str_of(b, "name"),
                            input_tokens: t,
                        }),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        f
    }
}

fn str_of(b: &Value, key: &str) -> String {
    b.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The api preset's row: Anthropic's server-side editing.
fn server_row() -> &'static crate::harness::Preset {
    crate::harness::PresetId::SERVER.rules()
}

fn text_tokens(t: &str) -> u64 {
    server_row()
        .text_tokens
        .of(crate::load::raw::utf16_len_str(t))
}

/// SPEC §2's rule for one block of a request.
fn block_tokens(b: &Value) -> u64 {
    let text = |k: &str| text_tokens(b.get(k).and_then(Value::as_str).unwrap_or_default());
    match b.get("type").and_then(Value::as_str) {
        Some("text") => text("text"),
        Some("thinking") => text("thinking"),
        Some("redacted_thinking") => text("data"),
        Some("tool_use") => text_tokens(&b.get("input").map(Value::to_string).unwrap_or_default()),
        Some("tool_result") => match b.get("content") {
            Some(Value::String(t)) => text_tokens(t),
            Some(Value::Array(parts)) => parts.iter().map(block_tokens).sum(),
            _ => 0,
        },
        Some("image" | "document") => server_row().media_tokens,
        _ => text_tokens(&b.to_string()),
    }
}

/// Where a request's input tokens come from (SPEC §11: always labelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum TokenSource {
    /// The recorded prompt P(k) plus the recorded `cleared_input_tokens`.
    Recorded,
    #[default]
    Estimate,
}

impl TokenSource {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// What one configured edit did at a request.
#[derive(Debug, Clone, PartialEq)]
pub struct EditOutcome {
    pub edit_type: &'static str,
    pub fired: bool,
    /// `clear_tool_uses` only.
    pub cleared_tool_uses: Option<usize>,
    pub cleared_input_tokens: u64,
    /// `clear_thinking` only.
    pub cleared_thinking_turns: Option<usize>,
    pub note: EditNote,
}

/// The api plan at one request: the prompt it read and what each edit did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiStep {
    pub input_tokens: u64,
    pub source: TokenSource,
    pub tool_uses: usize,
    pub edits: Vec<EditOutcome>,
    /// Assistant messages whose thinking the server drops.
    pub thinking_cleared: Vec<usize>,
    /// Tool uses whose input the server clears: (message, id).
    pub inputs_cleared: Vec<(usize, String)>,
    /// What the server view changes besides results, as (message, item), for
    /// the cache prefix comparison: a message's thinking (item 0) and a use's
    /// input (item 1 + its place among the message's uses).
    pub changed: Vec<(usize, usize)>,
}

/// What the edits of one request read and build, in the order they are sent.
struct Pass<'a> {
    /// The request's messages that have facts.
    msgs: std::ops::Range<usize>,
    facts: &'a ApiFacts,
    uses: Vec<(usize, usize, &'a UseFact)>,
    result_tokens: HashMap<&'a str, u64>,
    step: ApiStep,
    /// Why each tool use's results stay, by use id (the first reason wins).
    kept: HashMap<&'a str, Kept>,
    /// Tool use ids whose results are cleared, with the reason.
    cleared_ids: HashMap<&'a str, ClearReason>,
    /// The first edit that applied.
    trigger: Option<Trigger>,
}

/// The prompt's input tokens at `req`: the recorded P(k) plus what the
/// server recorded clearing, else the estimate over every block.
fn input_tokens(s: &Session, req: &Request, facts: &ApiFacts) -> (u64, TokenSource) {
    input_tokens_or(s, req, || {
        facts.msgs[req.view_start..req.end]
            .iter()
            .map(|f| f.tokens)
            .sum()
    })
}

/// The same with the estimate given (the carried plan keeps its sum).
pub(super) fn input_tokens_or(
    s: &Session,
    req: &Request,
    estimate: impl FnOnce() -> u64,
) -> (u64, TokenSource) {
    // Aggregated usage sums internal calls and `<synthetic>` responses are
    // not the API's (SPEC §10): those requests are estimated.
    let recorded = req.response.map(|m| &s.messages[m]).and_then(|m| {
        if m.model.as_deref() == Some(crate::session::SYNTHETIC_MODEL) {
            return None;
        }
        let u = m.usage.as_ref().filter(|u| !u.aggregated)?;
        // Saturating: every figure here is the transcript's own.
        let cleared = m
            .applied_edits
            .iter()
            .flatten()
            .filter_map(|e| e.get("cleared_input_tokens")?.as_u64())
            .fold(0u64, u64::saturating_add);
        Some(u.prompt().saturating_add(cleared))
    });
    match recorded {
        Some(p) => (p, TokenSource::Recorded),
        None => (estimate(), TokenSource::Estimate),
    }
}

/// `api`: every configured edit, in the order sent, on the request as sent.
pub(super) fn api<L: Look>(
    look: &L,
    p: &Policy,
    facts: Option<&ApiFacts>,
    req: &Request,
) -> (Verdict, ApiStep) {
    api_with(look, p, facts, req, &p.api.edits, false)
}

/// `edits`, in the order sent, on the request as sent (the `api` plan's
/// own edits, or the one `idle-server` sends, SPEC §13.S7). `server_s7`:
/// `clear_at_least` counts only results that are neither a placeholder
/// already nor a recorded cut (S7); they still count among the uses.
pub(super) fn api_with<L: Look>(
    look: &L,
    p: &Policy,
    facts: Option<&ApiFacts>,
    req: &Request,
    edits: &[Edit],
    server_s7: bool,
) -> (Verdict, ApiStep) {
    let empty = ApiFacts::default();
    let facts: &ApiFacts = facts.unwrap_or(&empty);
    let s = look.session();
    let (tokens, source) = if facts.msgs.len() >= req.end {
        input_tokens(s, req, facts)
    } else {
        (0, TokenSource::Estimate)
    };
    let msgs = req.view_start..req.end.min(facts.msgs.len());
    // The request's tool uses, oldest first: (message, place among its uses).
    let uses: Vec<(usize, usize, &UseFact)> = msgs
        .clone()
        .filter(|&m| s.messages[m].role == Role::Assistant)
        .flat_map(|m| {
            facts.msgs[m]
                .uses
                .iter()
                .enumerate()
                .map(move |(i, u)| (m, i, u))
        })
        .collect();
    // Each result's tokens, by id (a reused id sums its results).
    let mut result_tokens: HashMap<&str, u64> = HashMap::new();
    for r in s.results_in(req.view_start, req.end) {
        let tokens = if server_s7 && look.gone(r) {
            0
        } else {
            s.results[r].est_tokens
        };
        *result_tokens.entry(s.results[r].id.as_str()).or_default() += tokens;
    }
    let mut pass = Pass {
        msgs,
        facts,
        step: ApiStep {
            input_tokens: tokens,
            source,
            tool_uses: uses.len(),
            ..ApiStep::default()
        },
        uses,
        result_tokens,
        kept: HashMap::new(),
        cleared_ids: HashMap::new(),
        trigger: None,
    };
    for edit in edits {
        match edit {
            Edit::ClearThinking { keep } => clear_thinking(s, &mut pass, *keep),
            Edit::ClearToolUses { .. } => clear_tool_uses(p, &mut pass, edit),
        }
    }
    let mut clear: Vec<(usize, ClearReason)> = Vec::new();
    let mut kept = Why::default();
    if !pass.cleared_ids.is_empty() || !pass.kept.is_empty() {
        for (q, c) in look.cands().iter().enumerate() {
            let r = &s.results[c.result];
            if let Some(why) = pass.cleared_ids.get(r.id.as_str())
                && !c.protected()
                && !look.gone(c.result)
            {
                clear.push((q, *why));
            }
            // Every result of a kept use stays for the use's reason.
            if let Some(why) = pass.kept.get(r.id.as_str()) {
                kept.insert(q, why.clone());
            }
        }
    }
    let note = Note::Api(ApiNote {
        prompt: Prompt {
            tokens,
            source,
            uses: pass.uses.len(),
        },
        edits: pass.step.edits.iter().map(|e| e.note).collect(),
    });
    let verdict = Verdict {
        trigger: pass.trigger,
        clear,
        media: Vec::new(),
        strip: Vec::new(),
        media_kept: 0,
        target: None,
        note,
        kept,
        pre_tokens: None,
    };
    (verdict, pass.step)
}

/// `clear_thinking_20251015`: the thinking of every assistant turn before
/// the last `keep` turns that think is dropped (None: keep all).
fn clear_thinking(s: &Session, pass: &mut Pass<'_>, keep: Option<u64>) {
    let facts = pass.facts;
    let with: Vec<usize> = pass
        .msgs
        .clone()
        .filter(|&m| {
            s.messages[m].role == Role::Assistant
                && facts.msgs[m].thinking_blocks > 0
                && !pass.step.thinking_cleared.contains(&m)
        })
        .collect();
    let n = keep.map_or(with.len(), |k| k as usize).min(with.len());
    let gone = &with[..with.len() - n];
    let fired = !gone.is_empty();
    pass.step.edits.push(EditOutcome {
        edit_type: crate::policy::api::CLEAR_THINKING,
        fired,
        cleared_tool_uses: None,
        cleared_input_tokens: gone.iter().map(|&m| facts.msgs[m].thinking_tokens).sum(),
        cleared_thinking_turns: Some(gone.len()),
        note: EditNote::Thinking {
            turns: gone.len(),
            keep,
        },
    });
    pass.step.thinking_cleared.extend_from_slice(gone);
    pass.step.changed.extend(gone.iter().map(|&m| (m, 0)));
    if fired && pass.trigger.is_none() {
        pass.trigger = Some(Trigger::ClearThinking);
    }
}

/// `clear_tool_uses_20250919`: past the trigger, every use but the most
/// recent `keep` and the excluded tools' loses its result (and its input
/// when asked), unless that clears fewer tokens than `clear_at_least`.
fn clear_tool_uses(p: &Policy, pass: &mut Pass<'_>, edit: &Edit) {
    let Edit::ClearToolUses {
        trigger: on,
        keep,
        clear_at_least,
        exclude_tools,
        clear_inputs,
    } = edit
    else {
        return;
    };
    let spec = &p.api;
    let uses = &pass.uses;
    let tokens = pass.step.input_tokens;
    let (measured, threshold) = match on {
        TriggerOn::InputTokens(v) => (tokens, *v),
        TriggerOn::ToolUses(v) => (uses.len() as u64, *v),
    };
    let holds = spec.exceeds(measured, threshold);
    let trigger = ApiTrigger {
        on: *on,
        tokens,
        uses: uses.len(),
        holds,
        inclusive: spec.trigger_inclusive,
    };
    let excluded = |u: &UseFact| exclude_tools.contains(&u.name);
    // The keep window: the most recent `keep` uses, excluded tools counted
    // only when the reading says so.
    let counted: Vec<usize> = (0..uses.len())
        .filter(|&i| spec.excluded_count_toward_keep || !excluded(uses[i].2))
        .collect();
    let window: HashSet<usize> = counted[counted.len().saturating_sub(*keep as usize)..]
        .iter()
        .copied()
        .collect();
    let clear: Vec<usize> = (0..uses.len())
        .filter(|&i| {
            !window.contains(&i)
                && !excluded(uses[i].2)
                && !pass.cleared_ids.contains_key(&*uses[i].2.id)
        })
        .collect();
    let input_cleared = |u: &UseFact| clear_inputs.covers(&u.name);
    let cleared_tokens: u64 = clear
        .iter()
        .map(|&i| {
            let u = uses[i].2;
            pass.result_tokens.get(&*u.id).copied().unwrap_or(0)
                + if input_cleared(u) { u.input_tokens } else { 0 }
        })
        .sum();
    let outcome = clear_tool_uses_outcome(trigger, clear.len(), cleared_tokens, *clear_at_least);
    let (applies, note) = (outcome.fired, outcome.note);
    pass.step.edits.push(outcome);
    let excluded_counted = spec.excluded_count_toward_keep;
    for (i, &(m, place, u)) in uses.iter().enumerate() {
        if excluded(u) {
            keep_use(&mut pass.kept, u, || {
                Kept::Api(ApiKept::Excluded {
                    tool: u.name.clone(),
                })
            });
        } else if window.contains(&i) {
            keep_use(&mut pass.kept, u, || {
                Kept::Api(ApiKept::InWindow {
                    keep: *keep,
                    excluded_counted,
                })
            });
        } else if !applies {
            keep_use(&mut pass.kept, u, || Kept::Api(ApiKept::Edit(note)));
        } else if !pass.cleared_ids.contains_key(&*u.id) {
            let why = ClearReason::Api(ApiCleared {
                trigger,
                nth: i + 1,
                of: uses.len(),
                keep: *keep,
                input_too: input_cleared(u),
            });
            pass.cleared_ids.insert(&*u.id, why);
            if input_cleared(u) {
                pass.step.inputs_cleared.push((m, u.id.to_string()));
                pass.step.changed.push((m, 1 + place));
            }
        }
    }
    if applies && pass.trigger.is_none() {
        pass.trigger = Some(Trigger::ClearToolUses);
    }
}

/// Gives use `u` (every result with its id) a reason to stay; the first wins.
fn keep_use<'a>(kept: &mut HashMap<&'a str, Kept>, u: &'a UseFact, why: impl FnOnce() -> Kept) {
    kept.entry(&*u.id).or_insert_with(why);
}

/// What a `clear_tool_uses` edit did at a request, once the trigger was read and
/// the uses it would clear counted (`uses`, `tokens`): it applies when the
/// trigger holds, something is to be cleared and that clears at least
/// `clear_at_least` (SPEC §11). One rule for the per-request pass and the
/// incremental one (`api_run`).
pub(super) fn clear_tool_uses_outcome(
    trigger: ApiTrigger,
    uses: usize,
    tokens: u64,
    clear_at_least: Option<u64>,
) -> EditOutcome {
    let too_little = clear_at_least.filter(|&least| tokens < least);
    let applies = trigger.holds && uses > 0 && too_little.is_none();
    let note = if !trigger.holds {
        EditNote::NotFired { trigger }
    } else if let Some(least) = too_little {
        EditNote::TooLittle {
            trigger,
            tokens,
            at_least: least,
        }
    } else {
        EditNote::Applied {
            trigger,
            uses,
            tokens,
        }
    };
    EditOutcome {
        edit_type: crate::policy::api::CLEAR_TOOL_USES,
        fired: applies,
        cleared_tool_uses: Some(if applies { uses } else { 0 }),
        cleared_input_tokens: if applies { tokens } else { 0 },
        cleared_thinking_turns: None,
        note,
    }
}

/// The api plan's note: the prompt it read and each edit's outcome, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiNote {
    pub prompt: Prompt,
    pub edits: Vec<EditNote>,
}

impl std::fmt::Display for ApiNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "api: {}; ", self.prompt)?;
        for (i, e) in self.edits.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            e.fmt(f)?;
        }
        Ok(())
    }
}

/// `clear_tool_uses`: the `nth` use of `of`, outside the last `keep`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApiCleared {
    pub trigger: ApiTrigger,
    pub nth: usize,
    pub of: usize,
    pub keep: u64,
    pub input_too: bool,
}

impl std::fmt::Display for ApiCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ApiCleared {
            trigger,
            nth,
            of,
            keep,
            input_too,
        } = self;
        write!(
            f,
            "{}: {trigger}; tool use {nth} of {of}, not in the last {keep}{}",
            crate::policy::api::CLEAR_TOOL_USES,
            if *input_too {
                "; input cleared too"
            } else {
                ""
            }
        )
    }
}

/// Why the api plan kept a tool use.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiKept {
    /// The use's tool is excluded (the name as the use has it).
    Excluded { tool: String },
    /// In the keep window (excluded tools counted or not).
    InWindow { keep: u64, excluded_counted: bool },
    /// The edit that did not apply.
    Edit(EditNote),
}

impl std::fmt::Display for ApiKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiKept::Excluded { tool } => write!(f, "{tool} is in exclude_tools: never cleared"),
            ApiKept::InWindow {
                keep,
                excluded_counted: true,
            } => write!(f, "in the last {keep} tool uses"),
            ApiKept::InWindow {
                keep,
                excluded_counted: false,
            } => write!(
                f,
                "in the last {keep} tool uses (excluded tools not counted)"
            ),
            ApiKept::Edit(e) => e.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests;
