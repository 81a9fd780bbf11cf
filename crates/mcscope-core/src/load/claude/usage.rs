//! A response's recorded usage and server-side edits (SPEC §10), read from the
//! borrowed `message.usage` / `context_management` values; odd shapes never cost a
//! line its usage.

use super::super::raw::{self, Raw};
use super::fields::{self, Count as Recorded, Warnings};
use crate::session::{CacheCreation, Usage};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `message.usage` read as serde's derive reads a [`RawUsage`], without its
/// walk of the object (the loader's fast path, `fast`'s note): the counters
/// taken as their text, `server_tool_use` and `iterations` read by their own
/// visitors from where they start, once the strict scan has bounded their
/// depth. `None` for anything else (a key with an escape, a field twice,
/// JSON serde_json would refuse): serde_json reads it.
fn fast_usage(text: &str) -> Option<RawUsage<'_>> {
    use super::fast::{Seen, find, object, raw};
    use crate::load::jsonlen::skip::value_end;
    const NAMES: [&str; 8] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
        "cache_creation",
        "cache_deleted_input_tokens",
        "server_tool_use",
        "iterations",
    ];
    let b = text.as_bytes();
    let mut u = RawUsage::default();
    let mut seen = Seen::default();
    let end = object(text, 0, |name, at| {
        let end = value_end(b, at, 1)?;
        let Some(f) = find(&NAMES, name) else {
            return Some(end);
        };
        seen.once(f)?;
        let value = &text[at..end];
        match f {
            0 => u.input_tokens = raw(value),
            1 => u.cache_creation_input_tokens = raw(value),
            2 => u.cache_read_input_tokens = raw(value),
            3 => u.output_tokens = raw(value),
            4 => u.cache_creation = raw(value),
            5 => u.cache_deleted_input_tokens = raw(value),
            6 => u.server_tool_use = serde_json::from_str(value).ok()?,
            _ => u.iterations = serde_json::from_str(value).ok()?,
        }
        Some(end)
    })?;
    (end == text.len()).then_some(u)
}

/// `message.usage` with every counter borrowed as written: each is read by
/// [`fields::count`], so one odd counter is named in a warning instead of
/// costing the line its usage without a word.
#[derive(Deserialize, Default)]
#[cfg_attr(test, derive(Debug))]
struct RawUsage<'a> {
    #[serde(borrow, default)]
    input_tokens: Raw<'a>,
    #[serde(borrow, default)]
    cache_creation_input_tokens: Raw<'a>,
    #[serde(borrow, default)]
    cache_read_input_tokens: Raw<'a>,
    #[serde(borrow, default)]
    output_tokens: Raw<'a>,
    #[serde(borrow, default)]
    cache_creation: Raw<'a>,
    #[serde(borrow, default)]
    cache_deleted_input_tokens: Raw<'a>,
    #[serde(default)]
    server_tool_use: AnyPositive,
    #[serde(default)]
    iterations: HasCompaction,
}

#[derive(Deserialize, Default)]
struct RawCacheCreation<'a> {
    #[serde(borrow, default)]
    ephemeral_5m_input_tokens: Raw<'a>,
    #[serde(borrow, default)]
    ephemeral_1h_input_tokens: Raw<'a>,
}

/// `usage.server_tool_use`: whether any count in it is above 0 (read without
/// building a map; a value of another shape is no count).
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
struct AnyPositive(bool);

impl<'de> Deserialize<'de> for AnyPositive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyPositive;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyPositive, A::Error> {
                let mut any = false;
                while let Some((_, v)) = map.next_entry::<IgnoredAny, Count>()? {
                    any |= v.0;
                }
                Ok(AnyPositive(any))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyPositive, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyPositive(false))
            }
            fn visit_unit<E>(self) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            // Any other shape is no count: it never costs the line its usage.
            fn visit_str<E>(self, _: &str) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// One value of `server_tool_use`: true when it is a number above 0.
struct Count(bool);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = IgnoredOrNumber::deserialize(d)?;
        Ok(Count(v.0 > 0.0))
    }
}

struct IgnoredOrNumber(f64);

impl<'de> Deserialize<'de> for IgnoredOrNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IgnoredOrNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_u64<E>(self, n: u64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n as f64))
            }
            fn visit_i64<E>(self, n: i64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n as f64))
            }
            fn visit_f64<E>(self, n: f64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n))
            }
            fn visit_str<E>(self, _: &str) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_unit<E>(self) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IgnoredOrNumber, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IgnoredOrNumber, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(0.0))
            }
        }
        d.deserialize_any(V)
    }
}

/// `usage.iterations`: whether an entry has `type: "compaction"` (server-side
/// compaction ran for this response, SPEC §10).
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
struct HasCompaction(bool);

impl<'de> Deserialize<'de> for HasCompaction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Iteration<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: Option<crate::load::raw::Str<'a>>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HasCompaction;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of iterations")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HasCompaction, A::Error> {
                let mut any = false;
                while let Some(it) = seq.next_element::<raw::Json<'de>>()? {
                    any |= raw::object::<Iteration>(Some(it))
                        .is_some_and(|i| i.kind.as_deref() == Some("compaction"));
                }
                Ok(HasCompaction(any))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HasCompaction, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(HasCompaction(false))
            }
            fn visit_unit<E>(self) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            // Any other shape is no count: it never costs the line its usage.
            fn visit_str<E>(self, _: &str) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// A response's usage. A counter of the wrong shape (a float, a negative
/// number, one past u64, a string) is never read as 0: an unreadable `input`,
/// cache write, cache read or output count makes the whole usage unknown (P(k)
/// cannot be known), one inside `cache_creation` makes that object unknown, an
/// unreadable `cache_deleted_input_tokens` is unknown; each with a warning.
pub(in crate::load) fn usage(v: Raw<'_>, w: &mut Warnings) -> Option<Usage> {
    let v = v?;
    let u: RawUsage = match fast_usage(v.get()).map_or_else(|| serde_json::from_str(v.get()), Ok) {
        Ok(u) => u,
        Err(_) => {
            w.push(format!(
                "message.usage is {}, not a usage object; the response's usage is unknown",
                fields::describe(v)
            ));
            return None;
        }
    };
    const UNKNOWN: &str = "the response's usage is unknown";
    let top = [
        ("input_tokens", u.input_tokens),
        ("cache_creation_input_tokens", u.cache_creation_input_tokens),
        ("cache_read_input_tokens", u.cache_read_input_tokens),
        ("output_tokens", u.output_tokens),
    ];
    let mut counts = [0u64; 4];
    let mut readable = true;
    for (slot, (field, raw)) in counts.iter_mut().zip(top) {
        match fields::count(raw) {
            Recorded::Value(n) => *slot = n,
            Recorded::Absent => {}
            Recorded::Malformed(_) => {
                w.count(&format!("message.usage.{field}"), raw, UNKNOWN);
                readable = false;
            }
        }
    }
    let cache_creation = raw::object::<RawCacheCreation>(u.cache_creation).and_then(|c| {
        const NO_DETAIL: &str = "the cache write's 5m/1h split is unknown";
        let mut one = |field: &str, raw: Raw<'_>| match fields::count(raw) {
            Recorded::Value(n) => Some(n),
            Recorded::Absent => Some(0),
            Recorded::Malformed(_) => {
                w.count(
                    &format!("message.usage.cache_creation.{field}"),
                    raw,
                    NO_DETAIL,
                );
                None
            }
        };
        let five = one("ephemeral_5m_input_tokens", c.ephemeral_5m_input_tokens);
        let hour = one("ephemeral_1h_input_tokens", c.ephemeral_1h_input_tokens);
        Some(CacheCreation {
            ephemeral_5m_input_tokens: five?,
            ephemeral_1h_input_tokens: hour?,
        })
    });
    let cache_deleted = w.count(
        "message.usage.cache_deleted_input_tokens",
        u.cache_deleted_input_tokens,
        "the cache deletions are unknown",
    );
    if !readable {
        return None;
    }
    let [input, write, read, output] = counts;
    Some(Usage {
        input_tokens: input,
        cache_creation_input_tokens: write,
        cache_read_input_tokens: read,
        output_tokens: output,
        cache_creation,
        cache_deleted_input_tokens: cache_deleted,
        aggregated: u.server_tool_use.0,
        server_compaction: u.iterations.0,
    })
}

/// `message.context_management.applied_edits`, verbatim (unknown edit types
/// included); None when the response does not record it. The edits stay as
/// written (SPEC §10); a count in them that is not a whole number, which the
/// plans then cannot read, is warned about.
pub(super) fn applied_edits(v: Raw<'_>, w: &mut Warnings) -> Option<Vec<serde_json::Value>> {
    #[derive(Deserialize)]
    struct Cm<'a> {
        #[serde(borrow, default)]
        applied_edits: Raw<'a>,
    }
    #[derive(Deserialize)]
    struct Edit<'a> {
        #[serde(borrow, default)]
        cleared_tool_uses: Raw<'a>,
        #[serde(borrow, default)]
        cleared_input_tokens: Raw<'a>,
        #[serde(borrow, default)]
        cleared_thinking_turns: Raw<'a>,
    }
    let cm: Cm = raw::object(v)?;
    let edits = cm.applied_edits?;
    let Ok(list) = serde_json::from_str::<Vec<raw::Json<'_>>>(edits.get()) else {
        w.push(format!(
            "message.context_management.applied_edits is {}, not a list; no edits are read",
            fields::describe(edits)
        ));
        return None;
    };
    for (i, e) in list.iter().enumerate() {
        if let Some(e) = raw::object::<Edit>(Some(*e)) {
            for (field, value) in [
                ("cleared_tool_uses", e.cleared_tool_uses),
                ("cleared_input_tokens", e.cleared_input_tokens),
                ("cleared_thinking_turns", e.cleared_thinking_turns),
            ] {
                w.count(
                    &format!("message.context_management.applied_edits[{i}].{field}"),
                    value,
                    "kept as written; the plans cannot count it",
                );
            }
        }
    }
    serde_json::from_str::<Vec<serde_json::Value>>(edits.get()).ok()
}

/// `message.context_management`'s `client_*` fields (SPEC §13.E4): None when it
/// holds no `client_` key; a malformed count is unknown, with a warning.
pub(super) fn context_client(
    v: Raw<'_>,
    w: &mut Warnings,
) -> Option<crate::session::ContextClient> {
    let map: std::collections::HashMap<Cow<'_, str>, raw::Json<'_>> = raw::object(v)?;
    if !map.keys().any(|k| k.starts_with("client_")) {
        return None;
    }
    let mut count = |key: &str| {
        w.count(
            &format!("message.context_management.{key}"),
            map.get(key).copied(),
            "it is unknown",
        )
    };
    let cut_tool_uses = count("client_cut_tool_uses");
    let sent_trigger_tool_uses = count("client_sent_trigger_tool_uses");
    let sent_keep_tool_uses = count("client_sent_keep_tool_uses");
    let estimated_cleared_input_tokens = count("client_estimated_cleared_input_tokens");
    // SPEC §17.C.U6: written only when true; any other value is no record.
    let cleared_pdf_page_texts = map
        .get("client_cleared_pdf_page_texts")
        .is_some_and(|v| v.get().trim() == "true")
        .then_some(true);
    let sent_exclude_tools = map.get("client_sent_exclude_tools").and_then(|&v| {
        let ids = fields::ids(Some(v));
        match ids.unread {
            Some(0) => Some(ids.ids),
            Some(n) => {
                w.push(format!(
                    "message.context_management.client_sent_exclude_tools holds {n} entr{} that {} not a string; the list is unknown",
                    if n == 1 { "y" } else { "ies" },
                    if n == 1 { "is" } else { "are" },
                ));
                None
            }
            None if v.get().trim() == "null" => None,
            None => {
                w.push(format!(
                    "message.context_management.client_sent_exclude_tools is {}, not a list; it is unknown",
                    fields::describe(v)
                ));
                None
            }
        }
    });
    Some(crate::session::ContextClient {
        cut_tool_uses,
        sent_trigger_tool_uses,
        sent_keep_tool_uses,
        estimated_cleared_input_tokens,
        cleared_pdf_page_texts,
        sent_exclude_tools,
    })
}

#[cfg(test)]
mod fast_tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether the fast path read the usage; panics where it reads it
    /// otherwise than serde_json does.
    fn agrees(text: &str) -> bool {
        let Some(fast) = fast_usage(text) else {
            return false;
        };
        let exact: RawUsage = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("fast path read a usage serde_json refuses ({e}): {text}"));
        assert_eq!(format!("{fast:?}"), format!("{exact:?}"), "{text}");
        true
    }

    #[test]
    fn usages_are_read_as_serde_json_reads_them_or_left_to_it() {
        for fast in [
            r#"{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":0,"output_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":0},"service_tier":"standard","server_tool_use":{"web_search_requests":1},"iterations":[{"type":"compaction"}]}"#,
            r#"{"input_tokens":1.5,"output_tokens":-3,"server_tool_use":null,"iterations":null,"cache_deleted_input_tokens":"x"}"#,
            r#"{ "server_tool_use" : [1] , "iterations" : {"a":1} }"#,
            "{}",
        ] {
            assert!(agrees(fast), "{fast}");
        }
        for left in [
            r#"{"input_tokens":1,"input_tokens":2}"#,
            r#"{"input_\u0074okens":1}"#,
            r#"{"server_tool_use":{"a":"\ud800"}}"#,
            r#"{"output_tokens":01}"#,
            "[]",
            r#"{"a":1,}"#,
        ] {
            assert!(!agrees(left), "{left}");
        }
    }

    /// Every usage of the Claude Code corpus reads as serde_json reads it,
    /// nearly all on the fast path.
    #[test]
    fn corpus_usages_are_read_as_serde_json_reads_them() {
        let Some(dir) = crate::load::tests::corpus_dir() else {
            return;
        };
        let (mut all, mut fast) = (0usize, 0usize);
        for entry in std::fs::read_dir(dir.join("claude-code")).expect("corpus listing") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("corpus file");
            for line in text.lines() {
                // The usage's own text, as the line holds it.
                #[derive(Deserialize)]
                struct L<'a> {
                    #[serde(borrow)]
                    message: Option<M<'a>>,
                }
                #[derive(Deserialize)]
                struct M<'a> {
                    #[serde(borrow)]
                    usage: Option<&'a serde_json::value::RawValue>,
                }
                let Ok(L {
                    message: Some(M { usage: Some(u) }),
                }) = serde_json::from_str(line)
                else {
                    continue;
                };
                all += 1;
                fast += usize::from(agrees(u.get()));
            }
        }
        eprintln!("usage fast path: {fast} of {all}");
        assert!(all > 0 && fast * 100 >= all * 99, "{fast} of {all}");
    }

    fn value() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            "null",
            "0",
            "7",
            "1.5",
            "-3",
            "1e400",
            "18446744073709551616",
            "\"5\"",
            "true",
            "[]",
            "{}",
            "[{\"type\":\"compaction\"}]",
            "[{\"type\":1}]",
            "[1,\"a\"]",
            "{\"web_search_requests\":1,\"x\":\"y\"}",
            "{\"a\":0}",
            "{\"a\":1e400}",
            "\"\\ud800\"",
            "01",
            "{\"a\" 1}",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn random_usages_are_read_as_serde_json_reads_them(
            members in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                        "output_tokens", "cache_creation", "cache_deleted_input_tokens",
                        "server_tool_use", "iterations", "service_tier",
                    ]),
                    value(),
                ),
                0..7,
            ),
        ) {
            let body: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            agrees(&format!("{{{}}}", body.join(",")));
        }
    }
}
