//! The fast path of a Claude Code line (the speed issue): the line's object
//! is walked here, the values the loader does not read (`toolUseResult`,
//! most of a `progress` record's `data`, …: half of a session's bytes) are
//! stepped over by the strict scan of `jsonlen::skip`, the kept ones are
//! taken as their text where they lie, and only `message` is handed to
//! serde_json. A line is read here only when the result is the one
//! `serde_json::from_str::<Line>` gives; anything else (a key with an
//! escape, a field twice, a value of the wrong type, a value nested past
//! the content scan's depth, any JSON serde_json would refuse) gives `None`,
//! and the caller reads the whole line with serde_json as before: the same
//! record, or the same error in the same words.
//!
//! Why each reading is serde_json's:
//! - a [`Raw`] field is serde_json's `Option<&RawValue>`: `None` for `null`,
//!   else the value's text without the whitespace around it;
//! - `parentUuid` is `Some(..)` whenever the key is there (`raw::present`);
//! - `type` is a string (borrowed where it has no escape, decoded where it
//!   has) or `null`; anything else is serde_json's type error: the exact path;
//! - `message` is read by serde_json itself, from where its value starts
//!   (the same `Msg`, the same visitors); serde_json's depth limit counts one
//!   level less there, so the line is only kept when the content scan reads
//!   the whole message content within [`MAX_DEPTH`](crate::load::jsonlen)
//!   levels, far from that limit;
//! - an unknown key's value is skipped; serde_json skips it as any JSON.

use super::records::{Line, Msg};
use crate::load::jsonlen::skip::{string_end, value_end, ws};
use crate::load::jsonlen::{self, KindRule, Measured};
use crate::load::raw::{Json, Raw, Str};
use std::borrow::Cow;

/// The fields of [`Line`] as they are spelled in the file, in its order
/// (a test holds this list to the struct's own).
pub(super) const FIELDS: [&str; 22] = [
    "type",
    "subtype",
    "isSidechain",
    "isMeta",
    "timestamp",
    "cwd",
    "message",
    "agentId",
    "replacements",
    "microcompactMetadata",
    "uuid",
    "parentUuid",
    "version",
    "requestId",
    "sessionId",
    "attachment",
    "data",
    "entrypoint",
    "apiBlockIndex",
    "joinedApiReply",
    "isCompactSummary",
    "earlierMessages",
];

/// A line read on the fast path: the record and its `message.content`
/// measured (`None` without a `message` object).
pub(super) struct Read<'a> {
    pub line: Line<'a>,
    pub measured: Option<Measured>,
}

/// The line read without serde_json's walk of it, or `None`: read it with
/// serde_json (see the module's note).
pub(super) fn read<'a>(text: &'a str, key: &str, rule: KindRule) -> Option<Read<'a>> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(b, i + 1);
    let mut line = Line::default();
    let mut measured = None;
    let mut seen = 0u32;
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let end = string_end(b, i + 1)?;
            let name = &text[i + 1..end - 1];
            if memchr::memchr(b'\\', name.as_bytes()).is_some() {
                return None;
            }
            i = ws(b, end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            let at = ws(b, i + 1);
            let field = FIELDS.iter().position(|f| *f == name);
            if let Some(f) = field {
                // serde's derive refuses a field given twice.
                if seen & (1 << f) != 0 {
                    return None;
                }
                seen |= 1 << f;
            }
            i = match field.map(|f| FIELDS[f]) {
                Some("message") if !b[at..].starts_with(b"null") => {
                    let mut it = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Msg>();
                    line.message = Some(it.next()?.ok()?);
                    // The content scan vouches for the depth (above) and
                    // gives what the loader measures anyway.
                    measured = Some(jsonlen::measure_message_at(text, at, key, Some(rule))?);
                    at + it.byte_offset()
                }
                Some(name) => {
                    let end = value_end(b, at, 1)?;
                    let value = &text[at..end];
                    let raw = (value != "null").then(|| Json::checked(value));
                    match name {
                        "type" => line.kind = kind(value)?,
                        "parentUuid" => line.parent_uuid = Some(raw),
                        // `message: null`
                        "message" => {}
                        _ => *slot(&mut line, name)? = raw,
                    }
                    end
                }
                None => value_end(b, at, 1)?,
            };
            i = ws(b, i);
            match b.get(i) {
                Some(b',') => i = ws(b, i + 1),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (ws(b, i) == b.len()).then_some(Read { line, measured })
}

/// `type` as serde_json reads an `Option<Str>`: `Some(None)` for `null`,
/// `None` for a value that is not a string (serde_json's error).
fn kind(value: &str) -> Option<Option<Str<'_>>> {
    if value == "null" {
        return Some(None);
    }
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    if memchr::memchr(b'\\', inner.as_bytes()).is_none() {
        return Some(Some(Str(Cow::Borrowed(inner))));
    }
    // Decoded as serde_json decodes it (a lone surrogate is its error).
    serde_json::from_str::<String>(value)
        .ok()
        .map(|s| Some(Str(Cow::Owned(s))))
}

/// The [`Raw`] field a key names (every field but `type`, `message` and
/// `parentUuid`).
fn slot<'r, 'a>(line: &'r mut Line<'a>, name: &str) -> Option<&'r mut Raw<'a>> {
    Some(match name {
        "subtype" => &mut line.subtype,
        "isSidechain" => &mut line.sidechain,
        "isMeta" => &mut line.meta,
        "timestamp" => &mut line.timestamp,
        "cwd" => &mut line.cwd,
        "agentId" => &mut line.agent_id,
        "replacements" => &mut line.replacements,
        "microcompactMetadata" => &mut line.microcompact,
        "uuid" => &mut line.uuid,
        "version" => &mut line.version,
        "requestId" => &mut line.request_id,
        "sessionId" => &mut line.session_id,
        "attachment" => &mut line.attachment,
        "data" => &mut line.data,
        "entrypoint" => &mut line.entrypoint,
        "apiBlockIndex" => &mut line.api_block_index,
        "joinedApiReply" => &mut line.joined_api_reply,
        "isCompactSummary" => &mut line.compact_summary,
        "earlierMessages" => &mut line.earlier_messages,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::CLAUDE;
    use proptest::prelude::*;
    use serde::de::{Error as _, Visitor};

    fn rule() -> KindRule {
        KindRule {
            text: CLAUDE.text_tokens,
            media: CLAUDE.media_tokens,
        }
    }

    const KEY: &str = "content";

    /// Whether the fast path read the line; panics where it reads it
    /// otherwise than serde_json (and the content scan after it) do.
    fn agrees(text: &str) -> bool {
        let Some(fast) = read(text, KEY, rule()) else {
            return false;
        };
        let exact: Line = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("fast path read a line serde_json refuses ({e}): {text}"));
        assert_eq!(
            format!("{:?}", fast.line),
            format!("{exact:?}"),
            "fast path read otherwise: {text}"
        );
        if let Some(m) = fast.measured {
            assert_eq!(
                Some(m),
                jsonlen::measure(text, KEY, Some(rule())),
                "content measured otherwise: {text}"
            );
        }
        true
    }

    /// The field names serde's derive gives `Line` (what it passes to
    /// `deserialize_struct`).
    fn derived_fields() -> &'static [&'static str] {
        struct Names(std::cell::Cell<&'static [&'static str]>);
        impl<'de> serde::Deserializer<'de> for &Names {
            type Error = serde::de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(Self::Error::custom("names only"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Self::Error> {
                self.0.set(fields);
                Err(Self::Error::custom("names only"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        let names = Names(std::cell::Cell::new(&[]));
        let _ = <Line as serde::Deserialize>::deserialize(&names);
        names.0.get()
    }

    #[test]
    fn the_fast_path_knows_every_field_of_the_record() {
        assert_eq!(derived_fields(), FIELDS.as_slice());
        let mut line = Line::default();
        for name in FIELDS {
            if !matches!(name, "type" | "message" | "parentUuid") {
                assert!(slot(&mut line, name).is_some(), "{name}");
            }
        }
    }

    #[test]
    fn lines_are_read_as_serde_json_reads_them_or_left_to_it() {
        let content = r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb"},{"type":"text","text":"hi"}]}"#;
        let read_fast = [
            r#"{}"#.to_string(),
            r#" { "type" : "user" , "message" : CONTENT , "uuid" : "u1" } "#.replace("CONTENT", content),
            r#"{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}],"usage":{"input_tokens":3}},"toolUseResult":{"stdout":"x\ty\u0000\ud800","n":[1,-0.5e3,true,null]}}"#.to_string(),
            r#"{"parentUuid":null,"type":null,"message":null,"isSidechain":false,"data":{"hookEvent":"SessionStart"}}"#.to_string(),
            r#"{"type":"u\u0073er","message":CONTENT}"#.replace("CONTENT", content),
            r#"{"message":["id","model",[{"type":"text","text":"x"}]],"type":"assistant"}"#.to_string(),
            r#"{"message":"text","x":1}"#.replace("\"text\"", "{}"),
        ];
        for line in &read_fast {
            assert!(agrees(line), "left to serde_json: {line}");
        }
        let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
        let deep_content = format!(
            r#"{{"type":"user","message":{{"content":[{}]}}}}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":["#.repeat(70) + &"]}".repeat(70)
        );
        let left = [
            r#"{"ty\u0070e":"user"}"#.to_string(),
            r#"{"type":"user","type":"user"}"#.to_string(),
            r#"{"type":3}"#.to_string(),
            r#"{"type":"\ud800"}"#.to_string(),
            r#"{"toolUseResult":"a\x"}"#.to_string(),
            "{\"toolUseResult\":\"a\u{1}b\"}".to_string(),
            r#"{"toolUseResult":01}"#.to_string(),
            r#"{"uuid":"a",}"#.to_string(),
            r#"{"uuid":"a"} x"#.to_string(),
            r#"{"uuid":"a"}{"uuid":"b"}"#.to_string(),
            r#"{"message":{"content":"a","content":"b"}}"#.to_string(),
            r#"{"message":"text"}"#.to_string(),
            r#"{"message":{"content":[1.5]}}"#.to_string(),
            format!(r#"{{"toolUseResult":{deep}}}"#),
            deep_content,
            r#"["type"]"#.to_string(),
            r#"{"uuid""a"}"#.to_string(),
        ];
        for line in &left {
            assert!(!agrees(line), "read on the fast path: {line}");
        }
    }

    /// Every line of the Claude Code corpus that serde_json reads is read
    /// here the same way, and nearly all of them on the fast path (else the
    /// speed it is for is gone without a word).
    #[test]
    fn corpus_lines_are_read_as_serde_json_reads_them() {
        let Some(dir) = crate::load::tests::corpus_dir() else {
            return;
        };
        let (mut lines, mut fast) = (0usize, 0usize);
        let mut files: Vec<_> = std::fs::read_dir(dir.join("claude-code"))
            .expect("corpus listing")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        assert!(!files.is_empty());
        for path in files {
            let text = std::fs::read_to_string(&path).expect("corpus file");
            for line in text.lines() {
                if serde_json::from_str::<Line>(line).is_ok() {
                    lines += 1;
                }
                fast += usize::from(agrees(line));
            }
        }
        eprintln!("fast path: {fast} of {lines} lines");
        assert!(fast * 100 >= lines * 99, "{fast} of {lines}");
    }

    fn value() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            "null",
            "true",
            "false",
            "0",
            "-1",
            "1.5",
            "1e3",
            "01",
            "\"s\"",
            "\"a\\nb\"",
            "\"\\u00e9\"",
            "\"\\ud800\"",
            "\"\\x\"",
            "\"\t\"",
            "[]",
            "{}",
            "[1,]",
            "{\"a\":[1,{}]}",
            "{\"content\":\"x\"}",
            "{\"content\":[{\"type\":\"text\",\"text\":\"t\"}]}",
            "{\"content\":[1.5]}",
            "\"assistant\"",
            "\"user\"",
            "[\"a\"]",
            "{\"a\" 1}",
            "tru",
        ])
        .prop_map(str::to_string)
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(FIELDS.to_vec()).prop_map(str::to_string),
            proptest::sample::select(vec!["toolUseResult", "slug", "ty\\u0070e", "x"])
                .prop_map(str::to_string),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn random_records_are_read_as_serde_json_reads_them(
            members in proptest::collection::vec((key(), value(), " ?", " ?"), 0..8),
            tail in proptest::sample::select(vec!["", " ", "x", ",", "}"]),
        ) {
            let body: Vec<String> = members
                .iter()
                .map(|(k, v, a, b)| format!("{a}\"{k}\"{b}:{a}{v}{b}"))
                .collect();
            let line = format!("{{{}}}{tail}", body.join(","));
            agrees(&line);
        }
    }
}
