//! A sidecar value of the wrong type, named by its key path and line (SPEC
//! §7a). The sidecar's policy keys are flattened into it, which hides the key
//! from serde's message and its position from serde_json's: the offending
//! entry is found by reading each one alone, and its line by a scan of the text.

use super::Sidecar;
use crate::config::PolicyKeys;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `line 2: keep_recent: expected a whole number, 0 or more, found "three"`
/// for the first entry of `object` (the sidecar's text parsed) that does not
/// read; None when each reads alone (the caller keeps serde's message).
pub(super) fn name(text: &str, object: &Map<String, Value>) -> Option<String> {
    let (path, message) = first_bad(object)?;
    let key = path.join(".");
    let words = crate::config::type_error(&key, &message).unwrap_or(format!("{key}: {message}"));
    let keys: Vec<&str> = path.iter().map(String::as_str).collect();
    Some(match key_line(text, &keys) {
        Some(line) => format!("line {line}: {words}"),
        None => words,
    })
}

/// The key path of the first entry that does not read alone, with serde's message.
fn first_bad(object: &Map<String, Value>) -> Option<(Vec<String>, String)> {
    for (key, value) in object {
        let one = |k: &str, v: &Value| Map::from_iter([(k.to_string(), v.clone())]);
        let Err(e) = Sidecar::deserialize(Value::Object(one(key, value))) else {
            continue;
        };
        // A table: the entry inside it that does not read, where there is one.
        let inner = match (key.as_str(), value) {
            ("memory_roots" | "path_map", Value::Object(m)) => m
                .iter()
                .find_map(|(k, v)| String::deserialize(v).err().map(|e| (k, e.to_string()))),
            (table, Value::Object(m)) if crate::harness::by_name(table).is_ok() => {
                m.iter().find_map(|(k, v)| {
                    PolicyKeys::deserialize(Value::Object(one(k, v)))
                        .err()
                        .map(|e| (k, e.to_string()))
                })
            }
            _ => None,
        };
        return Some(match inner {
            Some((k, message)) => (vec![key.clone(), k.clone()], message),
            // The helpers' messages start with the key: serde's part after it.
            None => {
                let message = e.to_string();
                let message = message
                    .strip_prefix(&format!("{key}: "))
                    .map(str::to_string)
                    .unwrap_or(message);
                (vec![key.clone()], message.replacen(", got ", ", found ", 1))
            }
        });
    }
    None
}

/// The line of the key at `path` (object keys from the top) in JSON `text`:
/// a scan that skips strings and tracks the key in force at each depth.
fn key_line(text: &str, path: &[&str]) -> Option<usize> {
    let b = text.as_bytes();
    let mut keys: Vec<Option<&str>> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'{' | b'[' => keys.push(None),
            b'}' | b']' => {
                keys.pop();
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let end = i.min(b.len());
                let mut j = end + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < b.len()
                    && b[j] == b':'
                    && let (Some(word), Some(slot)) = (text.get(start..end), keys.last_mut())
                {
                    *slot = Some(word);
                    if keys.len() == path.len()
                        && keys.iter().zip(path).all(|(k, p)| *k == Some(*p))
                    {
                        return Some(line);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(text: &str) -> Option<String> {
        let v: Map<String, Value> = serde_json::from_str(text).unwrap();
        name(text, &v)
    }

    #[test]
    fn the_key_path_and_its_line_are_named() {
        assert_eq!(
            named("{\"cache_ttl\": \"5m\",\n \"gap_threshold_minutes\": \"soon\"}").as_deref(),
            Some("line 2: gap_threshold_minutes: expected a number, found \"soon\"")
        );
        // The same key at the top and in a preset table: each by its own line.
        let t = "{\"qwen\": {\n  \"keep_recent\": 1},\n \"keep_recent\": -2}";
        assert_eq!(
            named(t).as_deref(),
            Some("line 3: keep_recent: expected a whole number, 0 or more, found -2")
        );
        let t = "{\"keep_recent\": 1,\n \"qwen\": {\n  \"keep_recent\": true}}";
        assert_eq!(
            named(t).as_deref(),
            Some("line 3: qwen.keep_recent: expected a whole number, 0 or more, found true")
        );
        let t = "{\"memory_roots\": {\"user\": \"/m\",\n \"project\": 3}}";
        assert_eq!(
            named(t).as_deref(),
            Some("line 2: memory_roots.project: expected a string, found 3")
        );
        assert_eq!(named("{\"keep_recent\": 1}"), None);
    }
}
