//! Records nested deeper than serde_json's recursion limit (128): Gemini CLI
//! reads them (`JSON.parse` has no such limit), and the Claude loader reads
//! them where the depth is in a field it does not descend into. A loader that
//! parses whole records reads such a line again here, without the limit and
//! on a stack that grows as it goes (`serde_stacker`), then replaces each
//! value nested deeper than [`KEPT`] levels by a short placeholder, so that
//! nothing later (a copy, the wire's writer, a drop) walks that deep on a
//! thread's small stack. The replaced values are taken apart without
//! recursion.

use serde::Deserialize;
use serde_json::Value;

/// Levels kept below the record's root; a value deeper is replaced.
pub(crate) const KEPT: usize = 64;

/// What a value nested too deep is replaced by.
pub(crate) const PLACEHOLDER: &str = "[nested deeper than 64 levels: not read]";

/// Whether a parse failed only because of serde_json's recursion limit.
pub(crate) fn too_deep(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

/// The diagnostic of a line read this way, `n` values replaced.
pub(crate) fn note(line: usize, n: usize) -> crate::session::Diagnostic {
    crate::session::Diagnostic {
        line,
        byte_offset: 0,
        message: format!(
            "nested deeper than {KEPT} levels: read, with {n} value(s) that deep shown as {PLACEHOLDER:?} (their size is not measured)"
        ),
    }
}

/// `text` parsed without the recursion limit, each value deeper than
/// [`KEPT`] replaced by [`PLACEHOLDER`]; how many were replaced.
pub(crate) fn parse(text: &str) -> Result<(Value, usize), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut v = Value::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    let mut cut = Vec::new();
    prune(&mut v, 0, &mut cut);
    let n = cut.len();
    take_apart(cut);
    Ok((v, n))
}

/// Replaces the children of `v` deeper than [`KEPT`]; the recursion is at
/// most [`KEPT`] levels.
fn prune(v: &mut Value, depth: usize, cut: &mut Vec<Value>) {
    let children: Box<dyn Iterator<Item = &mut Value>> = match v {
        Value::Array(a) => Box::new(a.iter_mut()),
        Value::Object(o) => Box::new(o.values_mut()),
        _ => return,
    };
    for child in children {
        if !matches!(child, Value::Array(_) | Value::Object(_)) {
            continue;
        }
        if depth + 1 >= KEPT {
            cut.push(std::mem::replace(child, Value::String(PLACEHOLDER.into())));
        } else {
            prune(child, depth + 1, cut);
        }
    }
}

/// Drops deep values without recursing: each container is emptied onto a
/// stack before it goes.
fn take_apart(mut stack: Vec<Value>) {
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_io_4_a_record_nested_10000_deep_is_read_and_cut_at_64() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let line = format!(r#"{{"id":"r1","type":"user","content":[{{"text":"hi"}}],"x":{deep}}}"#);
        let e = serde_json::from_str::<Value>(&line).unwrap_err();
        assert!(too_deep(&e), "{e}");
        let (v, n) = parse(&line).unwrap();
        assert_eq!(n, 1);
        assert_eq!(v["id"], "r1");
        assert_eq!(v["content"][0]["text"], "hi");
        // 63 arrays kept below "x", then the placeholder.
        let mut at = &v["x"];
        let mut levels = 0;
        while let Some(a) = at.as_array() {
            at = &a[0];
            levels += 1;
        }
        assert_eq!(levels, KEPT - 1);
        assert_eq!(at, PLACEHOLDER);
        // Trailing text is still an error.
        assert!(parse(&format!("{line} x")).is_err());
    }
}
