//! Records nested deeper than serde_json's recursion limit (128): Gemini CLI
//! reads them (`JSON.parse` has no such limit), and the Claude loader reads
//! them where the depth is in a field it does not descend into. A loader that
//! parses whole records reads such a line again here, building its value only
//! [`KEPT`] levels deep: a container deeper is skipped as it is read
//! (serde_json skips a value with a loop, not a recursion) and stands as a
//! short placeholder. No deep value is ever built, so nothing later — a copy,
//! the wire's writer, a drop, even of a half-read line that turns out
//! malformed — walks that deep on a thread's small stack.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::Cell;

/// The level below the record's root at which a container is replaced (the
/// root's own fields are level 1).
pub(crate) const KEPT: usize = 64;

/// What a container nested too deep is replaced by.
pub(crate) const PLACEHOLDER: &str = "[nested deeper than 64 levels: not read]";

/// Whether a parse failed only because of serde_json's recursion limit.
pub(crate) fn too_deep(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

/// The diagnostic of a line read this way, `n` containers replaced.
pub(crate) fn note(line: usize, n: usize) -> crate::session::Diagnostic {
    crate::session::Diagnostic {
        line,
        byte_offset: 0,
        message: format!(
            "nested deeper than {KEPT} levels: read, with {n} value(s) that deep shown as {PLACEHOLDER:?} (their size is not measured)"
        ),
    }
}

/// `text` parsed with each container deeper than [`KEPT`] levels replaced
/// by [`PLACEHOLDER`]; how many were replaced.
pub(crate) fn parse(text: &str) -> Result<(Value, usize), serde_json::Error> {
    let cut = Cell::new(0);
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Capped {
        depth: 0,
        cut: &cut,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((v, cut.get()))
}

/// A value built at `depth` below the root.
#[derive(Clone, Copy)]
struct Capped<'a> {
    depth: usize,
    cut: &'a Cell<usize>,
}

impl Capped<'_> {
    fn deeper(self) -> Self {
        Capped {
            depth: self.depth + 1,
            ..self
        }
    }

    /// A container past the kept levels: its contents skipped, unbuilt.
    fn placeholder(self) -> Value {
        self.cut.set(self.cut.get() + 1);
        Value::String(PLACEHOLDER.into())
    }
}

impl<'de> DeserializeSeed<'de> for Capped<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Capped<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.depth >= KEPT {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(self.placeholder());
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.deeper())? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.depth >= KEPT {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(self.placeholder());
        }
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(self.deeper())?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
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
        // Below the root: "x" at level 1, arrays down to level 63, and the
        // container at level 64 is the placeholder.
        let mut at = &v["x"];
        let mut levels = 1;
        while let Some(a) = at.as_array() {
            at = &a[0];
            levels += 1;
        }
        assert_eq!(levels, KEPT);
        assert_eq!(at, PLACEHOLDER);
        // The same values as serde's own parse where the depth allows it.
        let shallow = r#"{"a":[1,-2,3.5,"s",true,null,{"b":{}}],"c":{"d":[]}}"#;
        assert_eq!(
            parse(shallow).unwrap(),
            (serde_json::from_str::<Value>(shallow).unwrap(), 0)
        );
        // Trailing text is still an error.
        assert!(parse(&format!("{line} x")).is_err());
    }

    /// The reviewer's case: a line a million levels deep that turns out
    /// malformed after it (trailing junk, a bad sibling) must be an error,
    /// never a stack overflow while a half-built value is dropped.
    #[test]
    fn safe_io_4_a_million_levels_then_junk_is_an_error_not_a_crash() {
        let deep = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
        for line in [
            format!(r#"{{"x":{deep}}} junk"#),
            format!(r#"{{"x":{deep},"y": }}"#),
        ] {
            assert!(parse(&line).is_err());
        }
        let (_, n) = parse(&format!(r#"{{"x":{deep}}}"#)).unwrap();
        assert_eq!(n, 1);
    }
}
