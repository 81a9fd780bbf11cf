//! Request bodies (SPEC §6): the local request as recorded, and the wire payload
//! after microcompaction, delivered by `rewrite` or by `cache-edits`.
//!
//! Records are re-read from the file here, one message at a time, so the session
//! model never holds their content.//!
//! Here: building a body and reading its messages back; `edit` what a plan does
//! to the messages (rewrite, cache edits, the server's view), `tokens` their
//! estimated sizes.

mod edit;
mod tokens;

pub use crate::harness::anthropic::insert_after_tool_results;
use edit::{apply, apply_recorded};
use tokens::tokens_of;
pub use tokens::{
    local_message_tokens, measured_rewrite_table, measured_rewrite_tokens, message_tokens,
    tokens_from, wire_message_tokens,
};

use crate::harness::Dialect;
use crate::policy::Delivery;
use crate::policy::engine::EditBlock;
use crate::session::{HarnessId, PieceLen, Request, Role, Session};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashSet;

/// In the order `wire --side` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum Side {
    /// What the harness sends.
    Wire,
    /// The request as the transcript holds it: no clearing at all.
    Local,
}

/// What the wire builder needs from a plan at one request.
pub struct Clearings<'a> {
    pub delivery: Delivery,
    /// Whether result `i` (index into `Session::results`) is cleared in this wire.
    pub result_cleared: &'a dyn Fn(usize) -> bool,
    /// Whether result `i`'s nested media (`functionResponse.parts`) is stripped.
    pub result_stripped: &'a dyn Fn(usize) -> bool,
    pub media_cleared: &'a dyn Fn(usize) -> bool,
    /// `cache_edits` blocks created up to this request.
    pub edits: &'a [EditBlock],
    /// Qwen `/compress-fast` drops thought parts from the wire.
    pub drop_thoughts: bool,
    /// Delivery `server` (the `api` preset): what the server's edits change.
    pub server: Option<&'a ServerEdits>,
    /// Messages the plan leaves out of the wire (Cline's truncated range):
    /// the wire side only, after every edit.
    pub dropped: &'a [std::ops::Range<usize>],
    /// Text blocks the plan rewrites in the wire: (message, block, text)
    /// (Cline's truncation notice on its first assistant message).
    pub texts: &'a [(usize, usize, &'static str)],
}

impl<'a> Clearings<'a> {
    /// A `rewrite` wire whose only change is the results `cleared` says
    /// cleared (no media, edits, dropped messages or texts).
    pub fn rewrite_results(cleared: &'a dyn Fn(usize) -> bool) -> Clearings<'a> {
        fn never(_: usize) -> bool {
            false
        }
        Clearings {
            delivery: Delivery::Rewrite,
            result_cleared: cleared,
            result_stripped: &never,
            media_cleared: &never,
            edits: &[],
            drop_thoughts: false,
            server: None,
            dropped: &[],
            texts: &[],
        }
    }
}

/// What the `api` preset sends and what the server does with it (SPEC §11).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerEdits {
    /// `context_management.edits`, as the client sends them.
    pub edits: Vec<Value>,
    /// What a cleared result reads in the server view.
    pub placeholder: String,
    /// Assistant messages whose thinking blocks the server drops.
    pub thinking: HashSet<usize>,
    /// Tool uses whose input the server clears.
    pub inputs: HashSet<String>,
}

impl ServerEdits {
    fn context_management(&self) -> Value {
        json!({"edits": self.edits})
    }
}

/// Builds the body of request `req`.
pub fn build(s: &Session, req: &Request, side: Side, c: &Clearings<'_>) -> std::io::Result<Value> {
    let messages = read_messages(s, req)?;
    let mut owned: Vec<Cow<'_, Value>> = messages.into_iter().map(Cow::Owned).collect();
    // Recorded facts (cuts, stripped thinking) are in both sides (SPEC §15.4).
    apply_recorded(s, req, &mut owned);
    let mut dropped: &[std::ops::Range<usize>] = &[];
    if side == Side::Wire {
        apply(s, req, &mut owned, c);
        dropped = c.dropped;
    }
    drop_messages(req, dropped, &mut owned);
    let messages: Vec<Value> = owned.into_iter().map(Cow::into_owned).collect();
    let mut out = body(s, messages);
    // The client's request carries the edits; the server view is what the
    // model is given after them.
    if let (Side::Local, Some(server)) = (side, c.server) {
        out["context_management"] = server.context_management();
    }
    Ok(out)
}

/// Leaves out of a view's messages (index 0 = `req.view_start`) those on a
/// dead branch and those a plan drops from the wire (`dropped`, message
/// ranges of the session: Cline's truncated range), in one pass over the
/// view's own indices.
fn drop_messages<T>(req: &Request, dropped: &[std::ops::Range<usize>], messages: &mut Vec<T>) {
    if dropped.is_empty() {
        return drop_dead(req, messages);
    }
    let mut i = 0;
    messages.retain(|_| {
        let m = req.view_start + i;
        i += 1;
        !req.is_dead(m) && !dropped.iter().any(|r| r.contains(&m))
    });
}

/// Leaves out of a view's messages (index 0 = `req.view_start`) those on a
/// dead branch at the request: after a rewind the harness sends the chain
/// alone (SPEC §2, §15.1). Applied last, as every edit places by view index.
fn drop_dead<T>(req: &Request, messages: &mut Vec<T>) {
    if req.dead.is_empty() {
        return;
    }
    let mut i = 0;
    messages.retain(|_| {
        let keep = !req.is_dead(req.view_start + i);
        i += 1;
        keep
    });
}

use crate::load::readback::message_from;
pub use crate::load::readback::{each_message, map_messages};

/// The local messages of one view, as read so far (stepping through a session
/// reads each record once).
#[derive(Debug, Default)]
pub struct MessageCache {
    view_start: usize,
    messages: Vec<Value>,
}

impl MessageCache {
    /// The request's local messages, read as needed and lent out.
    fn slice(&mut self, s: &Session, req: &Request) -> std::io::Result<&[Value]> {
        if self.view_start != req.view_start {
            self.view_start = req.view_start;
            self.messages.clear();
        }
        let have = self.view_start + self.messages.len();
        if have < req.end {
            let file = crate::load::readback::open_session(s)?;
            for m in have..req.end {
                self.messages.push(message_from(&file, s, m)?);
            }
        }
        Ok(&self.messages[..req.end - req.view_start])
    }
}

/// Both bodies of `req` printed as pretty JSON (as `to_string_pretty` prints the
/// bodies `build` gives, with invisible characters escaped), and the wire's estimated tokens from message `from`:
/// what the TUI shows. The local side is printed from the cache, not copied.
pub fn print_both(
    s: &Session,
    req: &Request,
    c: &Clearings<'_>,
    cache: &mut MessageCache,
    tokens_from_message: Option<usize>,
) -> std::io::Result<(String, String, Option<u64>)> {
    let cached = cache.slice(s, req)?;
    // Borrowed: only the messages the recorded facts or the plan change are copied.
    let mut local: Vec<Cow<'_, Value>> = cached.iter().map(Cow::Borrowed).collect();
    apply_recorded(s, req, &mut local);
    let mut wire = local.clone();
    apply(s, req, &mut wire, c);
    drop_dead(req, &mut local);
    // Cline's truncated range: the wire side only.
    drop_messages(req, c.dropped, &mut wire);
    let tokens = tokens_from_message.map(|at| tokens_of(wire.get(at..).unwrap_or(&[])));
    let model = s.model.clone().map(Value::String).unwrap_or(Value::Null);
    let context_management = c.server.map(ServerEdits::context_management);
    // For a screen: every invisible or control character escaped (§15.20).
    let local = crate::sanitize::json_pretty_visible(&BodyRef {
        harness: s.harness,
        model: &model,
        messages: &local,
        context_management: context_management.as_ref(),
    });
    let wire = crate::sanitize::json_pretty_visible(&BodyRef {
        harness: s.harness,
        model: &model,
        messages: &wire,
        context_management: None,
    });
    Ok((local, wire, tokens))
}

/// A body over borrowed messages; serializes as `body` builds it.
struct BodyRef<'a, M: serde::Serialize> {
    harness: HarnessId,
    model: &'a Value,
    messages: &'a [M],
    /// The `api` preset's local side: `context_management` after the messages.
    context_management: Option<&'a Value>,
}

impl<M: serde::Serialize> serde::Serialize for BodyRef<'_, M> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(None)?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry(self.harness.rules().wire.messages, self.messages)?;
        if let Some(cm) = self.context_management {
            map.serialize_entry("context_management", cm)?;
        }
        map.end()
    }
}

fn body(s: &Session, messages: Vec<Value>) -> Value {
    let model = s.model.clone().map(Value::String).unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("model".into(), model);
    out.insert(
        s.harness.rules().wire.messages.into(),
        Value::Array(messages),
    );
    Value::Object(out)
}

/// The messages of a request's view, read from the file (kept open) in order.
fn read_messages(s: &Session, req: &Request) -> std::io::Result<Vec<Value>> {
    let file = crate::load::readback::open_session(s)?;
    (req.view_start..req.end)
        .map(|m| message_from(&file, s, m))
        .collect()
}

/// Whether a content block is a tool result as the loaders count them.
pub fn is_tool_result(harness: HarnessId, block: &Value) -> bool {
    harness.dialect().is_tool_result(block)
}

pub(crate) use crate::harness::gemini::{is_top_level_media, media_placeholder};

#[cfg(test)]
mod tests {
    use super::tokens::json_utf16_len;
    use super::*;

    #[test]
    fn tokens_count_utf16_units_of_the_compact_json() {
        // {"a":"é😀"}: 6 ASCII + é (1 unit) + 😀 (2 units) + 2 = 11 units → 3 tokens.
        let v = json!({"a": "é😀"});
        assert_eq!(
            json_utf16_len(&v),
            crate::load::raw::utf16_len_str(&v.to_string())
        );
        assert_eq!(json_utf16_len(&v), 11);
        assert_eq!(tokens_of(&[v.clone(), v]), 6);
    }

    #[test]
    fn media_placeholders_clean_the_mime_as_qwen_does() {
        let ph = |v: Value| media_placeholder(&v);
        assert_eq!(
            ph(json!({"inlineData": {"mimeType": " image/\r\n\tpng [x] "}})),
            "[Old inline media cleared: image/ png x]"
        );
        assert_eq!(
            ph(json!({"fileData": {"mimeType": "application/pdf"}})),
            "[Old inline media cleared: application/pdf]"
        );
        assert_eq!(
            ph(json!({"inlineData": {}})),
            "[Old inline media cleared: application/octet-stream]"
        );
        let long = "a".repeat(200);
        assert_eq!(
            ph(json!({"inlineData": {"mimeType": long}})),
            format!("[Old inline media cleared: {}]", "a".repeat(128))
        );
    }

    #[test]
    fn a_printed_wire_copies_only_the_messages_the_plan_changes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../sample-sessions/claude-demo.jsonl");
        let s = crate::load::load(&path, None).unwrap();
        let req = s.requests.last().unwrap().clone();
        let target = s.results_in(req.view_start, req.end).next().unwrap();
        let cleared = |r: usize| r == target;
        let c = Clearings::rewrite_results(&cleared);
        let local = read_messages(&s, &req).unwrap();
        let mut wire: Vec<Cow<'_, Value>> = local.iter().map(Cow::Borrowed).collect();
        apply(&s, &req, &mut wire, &c);
        let owned: Vec<usize> = (0..wire.len())
            .filter(|&i| matches!(wire[i], Cow::Owned(_)))
            .collect();
        assert_eq!(owned, vec![s.results[target].msg - req.view_start]);
        assert!(
            wire[owned[0]]
                .to_string()
                .contains(crate::load::PLACEHOLDER)
        );
        // And the printed body is the one `build` gives.
        let mut cache = MessageCache::default();
        let (_, printed, _) = print_both(&s, &req, &c, &mut cache, None).unwrap();
        let built = build(&s, &req, Side::Wire, &c).unwrap();
        assert_eq!(printed, serde_json::to_string_pretty(&built).unwrap());
    }

    #[test]
    fn edits_go_after_the_last_tool_result_with_a_dot_when_last() {
        let mut c = vec![json!({"type": "tool_result", "tool_use_id": "a"})];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c[1]["type"], "cache_edits");
        assert_eq!(c[2], json!({"type": "text", "text": "."}));

        let mut c = vec![
            json!({"type": "tool_result", "tool_use_id": "a"}),
            json!({"type": "text", "text": "go on"}),
        ];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c.len(), 3);
        assert_eq!(c[1]["type"], "cache_edits");

        let mut c = vec![
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b"}),
        ];
        insert_after_tool_results(&mut c, json!({"type": "cache_edits"}));
        assert_eq!(c[1]["type"], "cache_edits");
        assert_eq!(c[2]["text"], "b");
    }
}
