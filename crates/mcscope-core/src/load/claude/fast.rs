//! The fast path of a Claude Code line (the speed issue): the line's object,
//! its `message`, the message's content blocks and inputs are walked here;
//! the values the loader does not read (`toolUseResult`, a `progress`
//! record's `data`, …: half of a session's bytes) are stepped over by the
//! strict scan of `jsonlen::skip`; the kept ones are taken as their text
//! where they lie. A line is read here only when the result is the one
//! `serde_json::from_str::<Line>` gives; anything else (a key with an
//! escape, a field twice, a value of the wrong type, a number a visitor would
//! parse, a value nested past [`MAX_DEPTH`], any JSON serde_json would
//! refuse) gives `None`, and the caller reads the whole line with serde_json
//! as before: the same record, or the same error in the same words.
//! (`usage::fast_usage` does the same for `message.usage`.)
//!
//! Why each reading is serde_json's:
//! - a [`Raw`] field is serde_json's `Option<&RawValue>`: `None` for `null`,
//!   else the value's text without the whitespace around it;
//! - `parentUuid` is `Some(..)` whenever the key is there (`raw::present`);
//! - `type` is a string (borrowed where it has no escape, decoded where it
//!   has) or `null`; anything else is serde_json's type error: the exact path;
//! - `message`, its blocks and inputs are read as serde's derive and our
//!   visitors (`records.rs`) read them: a text is measured as the string
//!   serde_json would parse (a lone surrogate refused), an object content's
//!   keys as strings; nesting is bounded far below serde_json's depth limit,
//!   which counts the levels of a message walked here one less;
//! - an unknown key's value is skipped; serde_json skips it as any JSON.

use super::records::{Block, Content, Input, Line, Measure, Msg};
use crate::harness::CLAUDE;
use crate::load::builder::PLACEHOLDER;
use crate::load::jsonlen::skip::{key_end, value_end, ws};
use crate::load::jsonlen::{self, KindRule, MAX_DEPTH, Measured};
use crate::load::raw::{Json, Raw, Str};

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

const TYPE: usize = 0;
const MESSAGE: usize = 6;
const PARENT_UUID: usize = 11;

/// A line read on the fast path: the record and its `message.content`
/// measured (`None` without a `message` object).
pub(super) struct Read<'a> {
    pub line: Line<'a>,
    pub measured: Option<Measured>,
}

/// The line read without serde_json, or `None`: read it with serde_json
/// (see the module's note).
pub(super) fn read<'a>(text: &'a str, key: &str, rule: KindRule) -> Option<Read<'a>> {
    let b = text.as_bytes();
    let at = ws(b, 0);
    let mut line = Line::default();
    let mut measured = None;
    let mut seen = Seen::default();
    let end = object(text, at, |name, at| {
        let Some(f) = find(&FIELDS, name) else {
            return value_end(b, at, 1);
        };
        seen.once(f)?;
        if f == MESSAGE && b.get(at) == Some(&b'{') {
            let (msg, end) = message(text, at)?;
            line.message = Some(msg);
            // What the loader measures anyway; the exact path's depth limit
            // is far (see the module's note).
            measured = Some(jsonlen::measure_message_at(text, at, key, Some(rule))?);
            return Some(end);
        }
        let end = value_end(b, at, 1)?;
        let value = &text[at..end];
        let raw = raw(value);
        match f {
            TYPE => line.kind = string_or_null(value)?,
            PARENT_UUID => line.parent_uuid = Some(raw),
            // `null`, or serde_json's type error: a `Msg` is an object here.
            MESSAGE if raw.is_some() => return None,
            MESSAGE => {}
            _ => *slot(&mut line, f)? = raw,
        }
        Some(end)
    })?;
    (ws(b, end) == b.len()).then_some(Read { line, measured })
}

/// Where `name` is in `names`: the length and first byte are compared
/// before the rest (a record's keys are looked up by the million; most
/// lengths repeat, and a call to compare each was a tenth of the walk).
pub(super) fn find(names: &[&str], name: &str) -> Option<usize> {
    let (len, first) = (name.len(), *name.as_bytes().first()?);
    names
        .iter()
        .position(|k| k.len() == len && k.as_bytes()[0] == first && *k == name)
}

/// The fields an object gave so far: serde's derive refuses one given twice.
#[derive(Default)]
pub(super) struct Seen(u32);

impl Seen {
    pub(super) fn once(&mut self, field: usize) -> Option<()> {
        let bit = 1 << field;
        (self.0 & bit == 0).then(|| self.0 |= bit)
    }
}

/// Walks the object whose `{` is `text[at]`: `member` is given each key (one
/// without an escape: any other leaves the line to serde_json) and where its
/// value starts, and answers where the value ends. One past the `}`.
pub(super) fn object<'a>(
    text: &'a str,
    at: usize,
    mut member: impl FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = ws(b, at + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (end, plain) = key_end(b, i + 1)?;
        if !plain {
            return None;
        }
        let name = &text[i + 1..end - 1];
        i = ws(b, end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(b, member(name, ws(b, i + 1))?);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// `message`, an object, as serde's derive reads a [`Msg`] (values at
/// nesting 2).
fn message(text: &str, at: usize) -> Option<(Msg<'_>, usize)> {
    let b = text.as_bytes();
    let mut msg = Msg {
        id: None,
        model: None,
        content: None,
        usage: None,
        context_management: None,
    };
    let mut seen = Seen::default();
    let end = object(text, at, |name, at| {
        const NAMES: [&str; 5] = ["id", "model", "content", "usage", "context_management"];
        let Some(f) = find(&NAMES, name) else {
            return value_end(b, at, 2);
        };
        seen.once(f)?;
        let slot = match f {
            0 => &mut msg.id,
            1 => &mut msg.model,
            2 => {
                let (content, end) = content(text, at, 2)?;
                msg.content = content;
                return Some(end);
            }
            3 => &mut msg.usage,
            _ => &mut msg.context_management,
        };
        let end = value_end(b, at, 2)?;
        *slot = raw(&text[at..end]);
        Some(end)
    })?;
    Some((msg, end))
}

/// A kept value as `Option<&RawValue>` reads it.
pub(super) fn raw(value: &str) -> Raw<'_> {
    (value != "null").then(|| Json::checked(value))
}

/// A `content` value at nesting `depth`, as [`Content`]'s visitor reads it
/// inside an `Option`. A number is left to serde_json (it parses one, and
/// may refuse it as out of range); so is anything this walk does not read.
fn content(text: &str, at: usize, depth: usize) -> Option<(Option<Content<'_>>, usize)> {
    let b = text.as_bytes();
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(at)? {
        b'n' | b't' | b'f' => {
            let end = value_end(b, at, depth)?;
            let content = (b[at] != b'n').then_some(Content::Other);
            Some((content, end))
        }
        // Its visitor reads each key as serde_json parses a string (a lone
        // surrogate is an error): a key with an escape is left to it.
        b'{' => {
            let end = object(text, at, |_, at| value_end(b, at, depth + 1))?;
            Some((Some(Content::Other), end))
        }
        b'"' => {
            let (m, end) = text_measure(text, at)?;
            Some((Some(Content::Text(m)), end))
        }
        b'[' => {
            let mut blocks = Vec::new();
            let mut i = ws(b, at + 1);
            if b.get(i) == Some(&b']') {
                return Some((Some(Content::Blocks(blocks)), i + 1));
            }
            loop {
                let (block, end) = block(text, i, depth + 1)?;
                blocks.push(block);
                i = ws(b, end);
                match b.get(i) {
                    Some(b',') => i = ws(b, i + 1),
                    Some(b']') => return Some((Some(Content::Blocks(blocks)), i + 1)),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// One element of a content list, an object, as serde's derive reads a
/// [`Block`].
fn block(text: &str, at: usize, depth: usize) -> Option<(Block<'_>, usize)> {
    let b = text.as_bytes();
    if depth > MAX_DEPTH {
        return None;
    }
    let mut block = Block {
        kind: None,
        id: None,
        name: None,
        input: None,
        tool_use_id: None,
        content: None,
        is_error: None,
        text: None,
    };
    let mut seen = Seen::default();
    let inner = depth + 1;
    let end = object(text, at, |name, at| {
        const NAMES: [&str; 8] = [
            "type",
            "id",
            "name",
            "input",
            "tool_use_id",
            "content",
            "is_error",
            "text",
        ];
        let Some(f) = find(&NAMES, name) else {
            return value_end(b, at, inner);
        };
        seen.once(f)?;
        match f {
            // content
            5 => {
                let (content, end) = content(text, at, inner)?;
                block.content = content;
                Some(end)
            }
            // input
            3 => {
                let (input, end) = input(text, at, inner)?;
                block.input = input;
                Some(end)
            }
            // text, a string
            7 if b.get(at) == Some(&b'"') => {
                let (m, end) = text_measure(text, at)?;
                block.text = Some(m);
                Some(end)
            }
            _ => {
                let end = value_end(b, at, inner)?;
                let value = &text[at..end];
                match f {
                    0 => block.kind = string_or_null(value)?,
                    // Measured only as a string: serde_json's type error.
                    7 if value != "null" => return None,
                    7 => {}
                    1 => block.id = raw(value),
                    2 => block.name = raw(value),
                    4 => block.tool_use_id = raw(value),
                    _ => block.is_error = raw(value),
                }
                Some(end)
            }
        }
    })?;
    Some((block, end))
}

/// A `tool_use.input` as [`Input`]'s visitor reads it inside an `Option`.
fn input(text: &str, at: usize, depth: usize) -> Option<(Option<Input<'_>>, usize)> {
    let b = text.as_bytes();
    match *b.get(at)? {
        b'n' => Some((None, value_end(b, at, depth)?)),
        // Its visitor takes a string as serde_json parses one (a lone
        // surrogate is an error): measured, that is checked.
        b'"' => Some((Some(Input::default()), text_measure(text, at)?.1)),
        b'[' | b't' | b'f' => Some((Some(Input::default()), value_end(b, at, depth)?)),
        b'{' => {
            let mut input = Input::default();
            let mut summary_rank = usize::MAX;
            let end = object(text, at, |key, at| {
                let end = value_end(b, at, depth + 1)?;
                // As the visitor: the path, and for people the command, else
                // the pattern, url, query or path (the first of a kind wins;
                // a later `file_path` wins).
                let rank = find(&["command", "pattern", "url", "query", "path"], key);
                match (key, rank) {
                    ("file_path", _) => input.file_path = raw(&text[at..end]),
                    (_, Some(r)) if r < summary_rank => {
                        input.summary = raw(&text[at..end]);
                        summary_rank = r;
                    }
                    _ => {}
                }
                Some(end)
            })?;
            Some((Some(input), end))
        }
        // A number: serde_json parses it (see `content`).
        _ => None,
    }
}

/// A string value measured as [`Measure::of_text`] measures its parsed
/// text, and one past it; `None` where serde_json would not parse it.
fn text_measure(text: &str, at: usize) -> Option<(Measure, usize)> {
    let (end, units) = jsonlen::string_units(text.as_bytes(), at + 1)?;
    let literal = &text[at..end];
    let mut m = Measure {
        chars: units,
        media: 0,
        est_tokens: CLAUDE.text_tokens.of(units),
        placeholder: false,
        plain: true,
    };
    // Compared decoded only where the lengths agree (the scan has checked
    // every escape, so decoding cannot fail).
    if units == PLACEHOLDER.len() as u64 {
        m.placeholder = crate::load::raw::string(raw(literal)).as_deref() == Some(PLACEHOLDER);
    }
    Some((m, end))
}

/// A string field read as serde_json reads an `Option<Str>`: `Some(None)`
/// for `null`, `None` for a value that is not a string (serde_json's error).
fn string_or_null(value: &str) -> Option<Option<Str<'_>>> {
    if value == "null" {
        return Some(None);
    }
    // Borrowed without an escape, else decoded as serde_json decodes it (a
    // lone surrogate is its error, and `None` here).
    crate::load::raw::string(raw(value)).map(|s| Some(Str(s)))
}

/// The [`Raw`] field of [`FIELDS`]`[f]` (every field but `type`, `message`
/// and `parentUuid`).
fn slot<'r, 'a>(line: &'r mut Line<'a>, f: usize) -> Option<&'r mut Raw<'a>> {
    Some(match f {
        1 => &mut line.subtype,
        2 => &mut line.sidechain,
        3 => &mut line.meta,
        4 => &mut line.timestamp,
        5 => &mut line.cwd,
        7 => &mut line.agent_id,
        8 => &mut line.replacements,
        9 => &mut line.microcompact,
        10 => &mut line.uuid,
        12 => &mut line.version,
        13 => &mut line.request_id,
        14 => &mut line.session_id,
        15 => &mut line.attachment,
        16 => &mut line.data,
        17 => &mut line.entrypoint,
        18 => &mut line.api_block_index,
        19 => &mut line.joined_api_reply,
        20 => &mut line.compact_summary,
        21 => &mut line.earlier_messages,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(
            (FIELDS[TYPE], FIELDS[MESSAGE], FIELDS[PARENT_UUID]),
            ("type", "message", "parentUuid")
        );
        // Each field is filled where serde_json fills it.
        for name in FIELDS {
            for value in ["\"v\"", "null", "{\"a\":[1]}"] {
                let line = format!(r#"{{"{name}":{value}}}"#);
                // A type that is no string, a message that is no object:
                // serde_json's type errors.
                let fast = !matches!(
                    (name, value),
                    ("type", "{\"a\":[1]}") | ("message", "\"v\"")
                );
                assert_eq!(agrees(&line), fast, "{line}");
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
            r#"{"message":"text","x":1}"#.replace("\"text\"", "{}"),
            r#"{"type":"user","message":{"content":"[Old tool result content cleared]"}}"#.to_string(),
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"[Old tool result content cleare\u0064]"},{"type":"image","source":{}}]},{"type":"text","text":null}]}}"#.to_string(),
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"pattern":"p","command":"ls","file_path":"/a"}},{"type":"tool_use","input":"odd"},{"type":"tool_use","input":[1]},{"input":null}]}}"#.to_string(),
            r#"{"type":"user","message":{"content":true,"id":"m"}}"#.to_string(),
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
            r#"{"message":["id","model",[{"type":"text","text":"x"}]],"type":"assistant"}"#
                .to_string(),
            r#"{"message":{"content":1}}"#.to_string(),
            r#"{"message":{"content":[{"type":"tool_use","input":2}]}}"#.to_string(),
            r#"{"message":{"content":"\ud800"}}"#.to_string(),
            r#"{"message":{"content":[{"text":3}]}}"#.to_string(),
            r#"{"message":{"content":[["text"]]}}"#.to_string(),
            // An object content's keys are parsed as strings: a lone
            // surrogate there is serde_json's error.
            r#"{"message":{"content":{"\ud800":1}}}"#.to_string(),
            r#"{"message":{"content":[{"type":"tool_result","content":{"a\u0062":1}}]}}"#
                .to_string(),
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

    /// An object content's keys are parsed by serde_json as strings (its
    /// visitor's `IgnoredAny` keys go through `MapKey`): the walk leaves a key
    /// with an escape to it, whatever the content scan after it would say.
    #[test]
    fn an_object_contents_escaped_key_is_left_to_serde_json() {
        let text = r#"{"\ud800":1}"#;
        assert!(serde_json::from_str::<Content>(text).is_err());
        assert!(content(text, 0, 2).is_none());
        let plain = r#"{"a":"\ud800"}"#;
        assert!(serde_json::from_str::<Content>(plain).is_ok());
        assert!(matches!(
            content(plain, 0, 2),
            Some((Some(Content::Other), 14))
        ));
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

    /// A content value: texts (the placeholder too, and escaped), blocks of
    /// every kind the loader reads with inputs and nested results, and the
    /// values serde_json reads otherwise (numbers, lone surrogates).
    fn content_value() -> impl Strategy<Value = String> {
        let leaf = proptest::sample::select(vec![
            "null",
            "true",
            "1",
            "1e400",
            "{}",
            "{\"a\":1}",
            "{\"\\ud800\":1}",
            "{\"a\":\"\\ud800\"}",
            "[]",
            "\"[Old tool result content cleared]\"",
            "\"[Old tool result content cleared\\u005d\"",
            "\"a\\nb \\u00e9 😀\"",
            "\"\\ud800\"",
            "\"\\ud83d\\ude00\"",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(3, 24, 4, |inner| {
            let member = (
                proptest::sample::select(vec![
                    "type", "id", "name", "input", "tool_use_id", "content", "is_error", "text",
                    "other", "ty\\u0070e",
                ]),
                prop_oneof![
                    inner.clone(),
                    proptest::sample::select(vec![
                        "\"tool_result\"", "\"tool_use\"", "\"text\"", "\"image\"", "\"t1\"",
                        "{\"file_path\":\"/a\",\"command\":\"ls\",\"pattern\":\"p\",\"file_path\":null}",
                        "{\"path\":\"/p\",\"query\":\"q\",\"path\":\"/q\",\"x\":[1,{}]}",
                        "\"odd\"", "[1]", "1.5", "false",
                    ])
                    .prop_map(str::to_string),
                ],
            );
            prop_oneof![
                proptest::collection::vec(
                    proptest::collection::vec(member, 0..6).prop_map(|ms| {
                        let body: Vec<String> =
                            ms.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                        format!("{{{}}}", body.join(","))
                    }),
                    0..4,
                )
                .prop_map(|blocks| format!("[{}]", blocks.join(","))),
                inner,
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn random_messages_are_read_as_serde_json_reads_them(
            content in content_value(),
            kind in proptest::sample::select(vec!["user", "assistant", "system"]),
            extra in proptest::sample::select(vec![
                "", ",\"usage\":{\"input_tokens\":1}", ",\"id\":\"m\",\"model\":null",
                ",\"content\":1", ",\"context_management\":{\"applied_edits\":[]}", ",\"id\":1,\"id\":2",
            ]),
        ) {
            let line = format!(
                r#"{{"type":"{kind}","message":{{"role":"x","content":{content}{extra}}},"uuid":"u"}}"#
            );
            agrees(&line);
        }

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
