//! OpenCode's `opencode export` JSON (SPEC §17.O; reference §6): one object
//! `{"info": Session, "messages": [{"info": Message, "parts": [Part]}]}`, how
//! OpenCode users share a session. Each export message is one `message` row
//! and each part one `part` row of the database (§17.O.2), so the export goes
//! through the same builder as the database: one model, one planner.
//!
//! The array order is the truth (§17.O.3): the tools that publish exports
//! replace ids with `REDACTED`, so ids are never sorted or joined on. Where the
//! ids do not already keep the array's order, each row is keyed by its place.

use super::super::LoadError;
use super::{Row, SessionInfo};
use crate::session::{Format, Session};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// An export above this is not read (the largest real one is 2.3 MB).
const CAP: u64 = 1 << 30;

/// What `opencode export` writes to stderr, which a file made with `2>&1`
/// starts with (reference §6.1).
const EXPORTING: &[u8] = b"Exporting session:";

/// The JSON of an export file: a leading `Exporting session: …` line and a
/// byte-order mark are skipped.
pub(crate) fn json_of(bytes: &[u8]) -> &[u8] {
    let bytes = crate::load::encoding::strip_bom(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let rest = &bytes[start..];
    if rest.starts_with(EXPORTING) {
        return memchr::memchr(b'\n', rest).map_or(&[][..], |i| &rest[i + 1..]);
    }
    rest
}

/// SPEC §17.O.1: the session `info` of an export: an object with a string
/// `version`, a number `time.created`, and no `role`.
fn is_session_info(info: &Value) -> bool {
    info.is_object()
        && info.get("version").is_some_and(Value::is_string)
        && info.pointer("/time/created").is_some_and(Value::is_number)
        && info.get("role").is_none()
}

/// SPEC §17.O.1: one element of `messages`: an object with an object `info`
/// whose `role` is `user` or `assistant`, an array `parts`, and no `role` or
/// `content` of its own.
fn is_message(m: &Value) -> bool {
    m.get("info").is_some_and(|i| {
        matches!(
            i.get("role").and_then(Value::as_str),
            Some("user" | "assistant")
        )
    }) && m.get("parts").is_some_and(Value::is_array)
        && m.get("role").is_none()
        && m.get("content").is_none()
}

/// Whether `v` (a whole JSON value) is an export (SPEC §17.O.1): asked before
/// any "has a `messages` array" rule.
pub fn is_export(v: &Value) -> bool {
    v.get("info").is_some_and(is_session_info)
        && v.get("messages")
            .and_then(Value::as_array)
            .is_some_and(|ms| ms.iter().all(is_message))
}

/// Whether the first bytes of a file too big to parse whole begin an export:
/// `{` then `"info"` (checked whole), then `"messages": [` and its first
/// element, checked where the head holds it all (`opencode export` writes
/// `info` first).
pub(crate) fn head_is_export(head: &[u8]) -> bool {
    let b = json_of(head);
    let ws = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let key = |i: usize, name: &[u8]| -> Option<usize> {
        let end = i + name.len() + 2;
        let quoted = b.get(i..end)?;
        (quoted.first() == Some(&b'"')
            && &quoted[1..quoted.len() - 1] == name
            && quoted.last() == Some(&b'"'))
        .then_some(())?;
        let i = ws(end);
        (b.get(i) == Some(&b':')).then(|| ws(i + 1))
    };
    let value_at = |i: usize| {
        let mut s = serde_json::Deserializer::from_slice(&b[i..]).into_iter::<Value>();
        match s.next() {
            Some(Ok(v)) => Some(Ok((v, i + s.byte_offset()))),
            Some(Err(e)) if e.is_eof() => Some(Err(())),
            _ => None,
        }
    };
    let check = || -> Option<bool> {
        let i = ws(0);
        (b.get(i) == Some(&b'{')).then_some(())?;
        let i = key(ws(i + 1), b"info")?;
        let Ok((info, i)) = value_at(i)? else {
            return Some(false);
        };
        if !is_session_info(&info) {
            return Some(false);
        }
        let i = ws(i);
        (b.get(i) == Some(&b',')).then_some(())?;
        let i = key(ws(i + 1), b"messages")?;
        (b.get(i) == Some(&b'[')).then_some(())?;
        let i = ws(i + 1);
        if b.get(i) == Some(&b']') {
            return Some(true);
        }
        Some(match value_at(i)? {
            Ok((first, _)) => is_message(&first),
            // The first message runs past the head: `info` decided.
            Err(()) => true,
        })
    };
    check().unwrap_or(false)
}

/// Reads an export into the session the database's rows of it would make.
pub(crate) fn load(path: &Path, file: std::fs::File, format: Format) -> Result<Session, LoadError> {
    use std::io::Read;
    let unknown = |why: String| LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why,
    };
    let mut bytes = Vec::new();
    file.take(CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > CAP {
        return Err(unknown(format!("an OpenCode export over {} bytes", CAP)));
    }
    let v: Value = serde_json::from_slice(json_of(&bytes)).map_err(|e| {
        unknown(format!(
            "not an OpenCode export: {}",
            super::super::json_error(e)
        ))
    })?;
    if !is_export(&v) {
        return Err(unknown(
            "not an OpenCode export ({\"info\": session, \"messages\": [{\"info\", \"parts\"}]})"
                .into(),
        ));
    }
    let (info, messages, parts) = rows(&v);
    let mut s = super::build::session(path, format, info, messages, parts, None);
    let facts = crate::session::ExportFacts {
        sanitized: sanitized(&v),
        redacted_outputs: redacted_outputs(&v),
    };
    if facts.sanitized {
        // The sizes are unknown (SPEC §17.O.5): 0 in every sum, so no plan
        // finds anything to clear.
        for r in &mut s.results {
            r.chars = 0;
            r.est_tokens = 0;
        }
        for t in s.harness_tokens.iter_mut().flatten() {
            *t = 0;
        }
    }
    s.export = Some(facts);
    Ok(s)
}

/// The export as the database's rows (§17.O.2–3): the session, its messages
/// keyed so that id order is array order, and their parts likewise, each tool
/// part with a call id of its own.
fn rows(v: &Value) -> (SessionInfo, Vec<Row>, Vec<Row>) {
    let info = &v["info"];
    let msgs: &[Value] = v["messages"].as_array().map_or(&[], Vec::as_slice);
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    // Message keys: the ids where they are unique and in array order already.
    let ids: Vec<Option<String>> = msgs.iter().map(|m| text(&m["info"], "id")).collect();
    let key_of = keys(&ids);
    // An original id that names one message only.
    let mut named: HashMap<&str, Option<usize>> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        if let Some(id) = id {
            named
                .entry(id.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
        }
    }
    let unique = |id: Option<&str>| id.and_then(|id| named.get(id).copied().flatten());
    let mut messages = Vec::with_capacity(msgs.len());
    let mut parts = Vec::new();
    let mut calls: HashMap<String, usize> = HashMap::new();
    let mut last_user = None;
    for (i, m) in msgs.iter().enumerate() {
        let mut data = m["info"].clone();
        let role = data.get("role").and_then(Value::as_str).map(str::to_string);
        if role.as_deref() == Some("assistant") {
            // The turn it answers: the message its `parentID` names where that
            // is one message before it, else the last user message before it.
            let named = unique(data.get("parentID").and_then(Value::as_str)).filter(|&p| p < i);
            if let Some(p) = named.or(last_user) {
                data["parentID"] = Value::String(key_of[p].clone());
            }
        }
        if role.as_deref() == Some("user") {
            last_user = Some(i);
        }
        data["id"] = Value::String(key_of[i].clone());
        let list: &[Value] = m["parts"].as_array().map_or(&[], Vec::as_slice);
        let part_ids: Vec<Option<String>> = list.iter().map(|p| text(p, "id")).collect();
        let part_keys = keys(&part_ids);
        for (j, p) in list.iter().enumerate() {
            let mut p = p.clone();
            if p.get("type").and_then(Value::as_str) == Some("tool") {
                p["callID"] = Value::String(call_id(&p, i, j, &mut calls));
            }
            if p.is_object() {
                p["messageID"] = Value::String(key_of[i].clone());
                p["id"] = Value::String(part_keys[j].clone());
            }
            parts.push(Row {
                id: part_keys[j].clone().into(),
                message_id: Some(key_of[i].clone().into()),
                data: if p.is_object() {
                    super::RowData::Read(Box::new(p))
                } else {
                    super::RowData::Bad("not a JSON object".into())
                },
            });
        }
        messages.push(Row {
            id: key_of[i].clone().into(),
            message_id: None,
            data: super::RowData::Read(Box::new(data)),
        });
    }
    let revert = info.get("revert").filter(|r| r.is_object()).and_then(|r| {
        let mut r = r.clone();
        let m = unique(r.get("messageID").and_then(Value::as_str))?;
        r["messageID"] = Value::String(key_of[m].clone());
        Some(r)
    });
    let session = SessionInfo {
        id: text(info, "id").unwrap_or_default(),
        parent_id: text(info, "parentID"),
        title: text(info, "title").unwrap_or_default(),
        version: text(info, "version"),
        directory: text(info, "directory"),
        time_created: info.pointer("/time/created").and_then(Value::as_i64),
        time_updated: info.pointer("/time/updated").and_then(Value::as_i64),
        revert,
        requests: 0,
        tools: 0,
    };
    (session, messages, parts)
}

/// Keys that sort in array order: the ids themselves where every one is
/// there, unique and ascending; else each place with its id beside it
/// (`000012-REDACTED`).
fn keys(ids: &[Option<String>]) -> Vec<String> {
    let ordered = ids.iter().all(Option::is_some)
        && ids
            .windows(2)
            .all(|w| matches!((&w[0], &w[1]), (Some(a), Some(b)) if a < b));
    ids.iter()
        .enumerate()
        .map(|(i, id)| match (ordered, id) {
            (true, Some(id)) => id.clone(),
            (_, id) => format!("{i:06}-{}", id.as_deref().unwrap_or("")),
        })
        .collect()
}

/// SPEC §17.O.3: a tool part's id is its `callID`, else its part id, else
/// `part-<message index>-<part index>` (from 0); a repeated one gets `#2`,
/// `#3`, … in array order.
fn call_id(p: &Value, m: usize, j: usize, seen: &mut HashMap<String, usize>) -> String {
    let given = |k: &str| {
        p.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let id = given("callID")
        .or_else(|| given("id"))
        .unwrap_or_else(|| format!("part-{m}-{j}"));
    let n = seen.entry(id.clone()).or_insert(0);
    *n += 1;
    if *n == 1 { id } else { format!("{id}#{n}") }
}

/// The completed tool parts' outputs.
fn outputs(v: &Value) -> impl Iterator<Item = &str> {
    v["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["parts"].as_array().into_iter().flatten())
        .filter(|p| {
            p.get("type").and_then(Value::as_str) == Some("tool")
                && p.pointer("/state/status").and_then(Value::as_str) == Some("completed")
        })
        .filter_map(|p| p.pointer("/state/output").and_then(Value::as_str))
}

/// SPEC §17.O.5: `opencode export --sanitize` (1.18+) wrote it: a completed
/// output reads `[redacted:tool-output:<id>]`.
fn sanitized(v: &Value) -> bool {
    outputs(v).any(|o| {
        o.strip_prefix("[redacted:tool-output:")
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|id| !id.is_empty() && !id.contains(']'))
    })
}

/// SPEC §17.O.7: the publisher's filter replaced parts of some outputs with
/// `REDACTED` (they are shorter than OpenCode measured them).
fn redacted_outputs(v: &Value) -> bool {
    outputs(v).any(|o| o.contains("REDACTED"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn s17_o1_an_export_is_told_from_a_messages_body() {
        let export = json!({"info": {"id": "ses_1", "version": "1.2.26", "time": {"created": 1}},
            "messages": [{"info": {"role": "user", "id": "msg_1"}, "parts": []}]});
        assert!(is_export(&export));
        let empty = json!({"info": {"version": "1.2.26", "time": {"created": 1}}, "messages": []});
        assert!(is_export(&empty), "an empty export is an empty session");
        let body = json!({"model": "claude", "messages": [{"role": "user", "content": "hi"}]});
        assert!(!is_export(&body));
        let role = json!({"info": {"version": "1", "time": {"created": 1}, "role": "user"}, "messages": []});
        assert!(!is_export(&role), "a message's info is no session info");
        let mixed = json!({"info": {"version": "1", "time": {"created": 1}},
            "messages": [{"info": {"role": "user"}, "parts": [], "content": "x"}]});
        assert!(!is_export(&mixed));
    }

    #[test]
    fn s17_o1_a_leading_exporting_line_and_a_cut_head_are_read() {
        let text = "Exporting session: ses_1\n{\n  \"info\": {\"id\": \"ses_1\", \"version\": \"1.2.26\", \"time\": {\"created\": 1}},\n  \"messages\": [\n    {\"info\": {\"role\": \"user\"}, \"parts\": [{\"type\": \"text\", \"text\": \"a long";
        assert!(
            head_is_export(text.as_bytes()),
            "the first message runs past the head"
        );
        let whole: Value = serde_json::from_slice(json_of(
            b"Exporting session: x\r\n{\"info\": {\"version\": \"1\", \"time\": {\"created\": 2}}, \"messages\": []}",
        ))
        .unwrap();
        assert!(is_export(&whole));
        let body =
            "{\n  \"model\": \"x\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"";
        assert!(!head_is_export(body.as_bytes()));
        let wrong = "{\n  \"info\": {\"version\": \"1\", \"time\": {\"created\": 1}},\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"x\"},";
        assert!(!head_is_export(wrong.as_bytes()));
    }

    #[test]
    fn s17_o3_array_order_is_the_truth_and_every_call_has_an_id_of_its_own() {
        let v = json!({"info": {"id": "ses_1", "version": "1.2.26", "time": {"created": 1}},
            "messages": [
                {"info": {"role": "user", "id": "REDACTED"}, "parts": [{"type": "text", "text": "a", "id": "prt_b"}]},
                {"info": {"role": "assistant", "id": "REDACTED", "parentID": "REDACTED"}, "parts": [
                    {"type": "tool", "callID": "REDACTED", "id": "prt_z"},
                    {"type": "tool", "callID": "REDACTED", "id": "prt_a"},
                    {"type": "tool", "id": "prt_c"},
                    {"type": "tool"}]},
                {"info": {"role": "user", "id": "msg_0"}, "parts": []}]});
        let (_, messages, parts) = rows(&v);
        let ids: Vec<&str> = messages.iter().map(|r| &*r.id).collect();
        assert_eq!(ids, ["000000-REDACTED", "000001-REDACTED", "000002-msg_0"]);
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ids, "keys sort in array order");
        let assistant = messages[1].data.read().unwrap();
        assert_eq!(
            assistant["parentID"], "000000-REDACTED",
            "the last user message before it"
        );
        let read: Vec<Value> = parts.iter().filter_map(|p| p.data.read().ok()).collect();
        let calls: Vec<&str> = read
            .iter()
            .filter_map(|p| p.get("callID")?.as_str())
            .collect();
        assert_eq!(calls, ["REDACTED", "REDACTED#2", "prt_c", "part-1-3"]);
        let part_keys: Vec<&str> = parts[1..].iter().map(|p| &*p.id).collect();
        assert_eq!(
            part_keys,
            ["000000-prt_z", "000001-prt_a", "000002-prt_c", "000003-"]
        );
    }

    #[test]
    fn s17_o5_a_sanitized_export_is_known_by_its_outputs() {
        let tool = |out: &str| {
            json!({"info": {"version": "1.18.34", "time": {"created": 1}}, "messages": [
                {"info": {"role": "assistant"}, "parts": [
                    {"type": "tool", "state": {"status": "completed", "output": out}}]}]})
        };
        assert!(sanitized(&tool("[redacted:tool-output:prt_1]")));
        assert!(!sanitized(&tool("[redacted:tool-output:]")));
        assert!(!sanitized(&tool(
            "cat: [redacted:tool-output:prt_1] and more"
        )));
        assert!(redacted_outputs(&tool("key=REDACTED")));
        assert!(!redacted_outputs(&tool("plain")));
    }
}
