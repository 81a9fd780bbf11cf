//! The size of a record's `message.<content>` as the wire builder would write
//! it, measured on the line's own bytes while the loader has them in memory.
//!
//! The wire builder (`wire::message_from`) reads a record back, parses its
//! `message` into a `serde_json::Value` and writes it compactly; the token
//! estimate is a quarter of that text's UTF-16 length. Building the value for
//! every message of a 200 MB session costs as much as loading it, so the loader
//! measures the content here instead: whitespace is dropped, escapes are counted
//! as serde_json writes them back, and any input whose written form this scan
//! cannot be sure of (a fraction or exponent, `-0`, very long integers, a
//! duplicate key, an escaped key, deep nesting, lone surrogates) gives `None`:
//! the caller then builds that message the slow, exact way.

use crate::harness::TextTokens;
use crate::session::PieceLen as Piece;
use crate::session::{PartKinds, PieceLen};
use memchr::memchr2;

mod blocks;
pub(crate) mod skip;
mod string;

/// Deeper than this, serde_json's recursion limit may refuse the value: let the
/// exact path decide.
pub(crate) const MAX_DEPTH: usize = 100;

/// Measures `message.<key>` of one JSONL line (a JSON object). `None` when the
/// line holds something this scan does not reproduce exactly.
pub(crate) fn content_piece(line: &str, key: &str) -> Option<Piece> {
    content_sizes(line, key).map(|(p, _)| p)
}

/// As [`content_piece`], with the written size of each Claude `tool_result`
/// block's `content` in block order (`None`: the block has no `content`), so a
/// rewrite that clears some of them is measured without building the message.
pub(crate) fn content_sizes(line: &str, key: &str) -> Option<(Piece, Vec<Option<u64>>)> {
    let m = measure(line, key, None)?;
    Some((m.piece, m.results))
}

/// What the scan of one record's content found.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Measured {
    pub piece: PieceLen,
    /// As [`content_sizes`]'s second value.
    pub results: Vec<Option<u64>>,
    /// The content by kind (Messages API blocks), when asked and sure.
    pub kinds: Option<PartKinds>,
}

/// How to count a Messages API content by kind (SPEC §15.17): the harness's
/// text estimate and what one image or document counts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindRule {
    pub text: TextTokens,
    pub media: u64,
}

/// As [`content_sizes`]; with `kinds`, the content by kind as
/// `context::message_kinds` counts a Messages API message's blocks (`None`
/// where the scan is not sure: an escaped `tool_use` id).
pub(crate) fn measure(line: &str, key: &str, kinds: Option<KindRule>) -> Option<Measured> {
    run(line, 0, kinds, |s| scan_line(s, key))
}

/// As [`measure`], with the line's `message` value known to start at
/// `line[at]`: what `measure` gives when that is the line's first `message`
/// key and no key before it has an escape or a value nested deeper than
/// [`MAX_DEPTH`] (the fast path checks both).
pub(crate) fn measure_message_at(
    line: &str,
    at: usize,
    key: &str,
    kinds: Option<KindRule>,
) -> Option<Measured> {
    run(line, at, kinds, |s| s.message(key))
}

fn run(
    line: &str,
    at: usize,
    kinds: Option<KindRule>,
    scan: impl FnOnce(&mut Scan<'_>) -> Option<Piece>,
) -> Option<Measured> {
    // The objects' key lists are kept for the thread's next line: made
    // afresh, they were several allocations a record.
    thread_local! {
        static KEYS: std::cell::Cell<Vec<Vec<u64>>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut s = Scan {
        b: line.as_bytes(),
        i: at,
        keys: KEYS.take(),
        results: Vec::new(),
        decoded: 0,
        kinds: kinds.map(|rule| (rule, Some(PartKinds::default()))),
    };
    let piece = scan(&mut s);
    // A list grown for one huge object is not held for the rest.
    let mut keys = std::mem::take(&mut s.keys);
    keys.retain(|k| k.capacity() <= 256);
    keys.truncate(32);
    KEYS.set(keys);
    let piece = piece?;
    let kinds = match s.kinds {
        // A record without content counts nothing.
        Some((_, k)) => k,
        None => None,
    };
    // Held for the session's life: no room for more uses than it has.
    let kinds = kinds.map(|mut k| {
        k.uses.shrink_to_fit();
        k
    });
    Some(Measured {
        piece,
        results: s.results,
        kinds,
    })
}

/// One past the closing quote of the string whose first character is
/// `b[start]`, and its parsed UTF-16 length (escapes decoded); `None` where
/// serde_json would not parse it into a `str` (a raw control character, a
/// bad escape, a lone surrogate) or it does not end.
pub(crate) fn string_units(b: &[u8], start: usize) -> Option<(usize, u64)> {
    string::measure(b, start).map(|(end, _, parsed)| (end, parsed))
}

fn scan_line(s: &mut Scan<'_>, key: &str) -> Option<Piece> {
    s.ws();
    s.expect(b'{')?;
    if s.seek(b"message", 1)? {
        s.message(key)
    } else {
        Some(Piece::Missing)
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    /// Hashes of the keys of each open object, to spot duplicates.
    keys: Vec<Vec<u64>>,
    /// The written size of each `tool_result` block's `content`, in order.
    results: Vec<Option<u64>>,
    /// The UTF-16 length of the last string read, as parsed (escapes decoded).
    decoded: u64,
    /// The rule and what the content holds by kind (`None` once unsure).
    kinds: Option<(KindRule, Option<PartKinds>)>,
}

/// What a content block says about itself, noted while it is measured.
#[derive(Default)]
struct Block<'a> {
    tool_result: bool,
    id_is_string: bool,
    content: Option<u64>,
    /// The raw `type` value.
    ty: Option<&'a [u8]>,
    /// The parsed UTF-16 length of `text`, `thinking` and `data` where each is
    /// a string (serde's `as_str`; anything else reads as empty).
    text: u64,
    thinking: u64,
    data: u64,
    /// The written length of `input`.
    input: Option<u64>,
    /// The raw `id` value.
    id: Option<&'a [u8]>,
    /// SPEC §2's tokens of a `tool_result`'s `content` as the api preset
    /// reads it: a string's text, an array's elements each as a block, else 0.
    api_content: u64,
}

/// SPEC §2's tokens of one content element as the api preset reads it
/// (`policy::engine::api`'s `block_tokens`): text, thinking and redacted
/// thinking their parsed text, a `tool_use` its input as written, a
/// `tool_result` its content, an image or document the media figure, and
/// anything else (an element that is not an object too) its written form.
fn api_tokens(rule: &KindRule, block: Option<&Block<'_>>, written: u64) -> u64 {
    let of = |units| rule.text.of(units);
    let Some(b) = block else {
        return of(written);
    };
    match b.ty {
        Some(b"\"text\"") => of(b.text),
        Some(b"\"thinking\"") => of(b.thinking),
        Some(b"\"redacted_thinking\"") => of(b.data),
        Some(b"\"tool_use\"") => of(b.input.unwrap_or(0)),
        Some(b"\"tool_result\"") => b.api_content,
        Some(b"\"image\"" | b"\"document\"") => rule.media,
        _ => of(written),
    }
}

impl Scan<'_> {
    /// Counts one content element by kind, as `Dialect::block` reads it: a
    /// tool result is left out, text and thinking count their parsed text, a
    /// `tool_use` its input as written, an image or document the media
    /// figure, and anything else (an element that is not an object too) its
    /// whole written form as text. `written` is the element's written length.
    fn count(&mut self, block: Option<&Block<'_>>, written: u64) {
        let Some((rule, Some(k))) = &mut self.kinds else {
            return;
        };
        let of = |units| rule.text.of(units);
        let Some(b) = block else {
            k.text += of(written);
            return;
        };
        if b.tool_result && b.id_is_string {
            return;
        }
        match b.ty {
            Some(b"\"text\"") => k.text += of(b.text),
            Some(b"\"thinking\"") => k.thinking += of(b.thinking),
            Some(b"\"redacted_thinking\"") => k.thinking += of(b.data),
            Some(b"\"tool_use\"") => {
                let id = match b.id {
                    Some(raw) if raw.contains(&b'\\') => {
                        // Unescaping the id is the exact path's.
                        self.kinds = Some((*rule, None));
                        return;
                    }
                    Some([b'"', id @ .., b'"']) => std::str::from_utf8(id).unwrap_or_default(),
                    _ => "",
                };
                let t = b.input.map_or(0, of);
                k.inputs += t;
                k.uses.push((id.into(), t));
            }
            Some(b"\"image\"" | b"\"document\"") => k.images += rule.media,
            _ => k.text += of(written),
        }
    }

    /// Counts one content element as the api preset reads it (see [`ApiPiece`](crate::session::ApiPiece)).
    fn count_api(&mut self, block: Option<&Block<'_>>, written: u64) {
        let Some((rule, Some(k))) = &mut self.kinds else {
            return;
        };
        k.api.tokens += api_tokens(rule, block, written);
        if let Some(b"\"thinking\"" | b"\"redacted_thinking\"") = block.and_then(|b| b.ty) {
            k.api.thinking_blocks += 1;
        }
    }
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.i += 1;
        }
    }

    /// The `message` value: finds `key` in it and measures its value.
    fn message(&mut self, key: &str) -> Option<Piece> {
        if self.peek()? != b'{' {
            // `get` on a non-object finds nothing; still check it is plain JSON.
            self.skip_value(1)?;
            return Some(Piece::Missing);
        }
        self.i += 1;
        if self.seek(key.as_bytes(), 2)? {
            self.piece()
        } else {
            Some(Piece::Missing)
        }
    }

    /// Walks the keys of the object whose `{` was just read up to `key`:
    /// true with its value next, false at the object's end without it; None
    /// at a key with escapes (it might spell `key`: `\u006dessage`) or
    /// anything else this scan does not read. Other values are skipped at
    /// `depth`.
    fn seek(&mut self, key: &[u8], depth: usize) -> Option<bool> {
        self.ws();
        if self.peek()? == b'}' {
            return Some(false);
        }
        loop {
            let (k, escaped) = self.key()?;
            if escaped {
                return None;
            }
            self.ws();
            self.expect(b':')?;
            self.ws();
            if k == key {
                return Some(true);
            }
            self.skip_value(depth)?;
            self.ws();
            match self.next()? {
                b',' => self.ws(),
                b'}' => return Some(false),
                _ => return None,
            }
        }
    }

    /// The content value itself.
    fn piece(&mut self) -> Option<Piece> {
        match self.peek()? {
            b'n' => {
                self.literal(b"null")?;
                Some(Piece::Missing)
            }
            b'"' => {
                let written = self.string()?;
                let decoded = self.decoded;
                if let Some((rule, Some(k))) = &mut self.kinds {
                    // A string content is one text (the Messages API's text block).
                    k.text += rule.text.of(decoded);
                    k.api.tokens += rule.text.of(decoded);
                    k.api.string = true;
                }
                Some(Piece::Str(written))
            }
            b'[' => {
                self.i += 1;
                self.ws();
                let (mut count, mut elements) = (0, 0);
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(Piece::Arr { count, elements });
                }
                loop {
                    let mut block = Block::default();
                    let object = self.peek()? == b'{';
                    let written = self.value_noting(3, Some(&mut block))?;
                    elements += written;
                    if block.tool_result && block.id_is_string {
                        self.results.push(block.content);
                    }
                    self.count(object.then_some(&block), written);
                    self.count_api(object.then_some(&block), written);
                    count += 1;
                    self.ws();
                    match self.next()? {
                        b',' => self.ws(),
                        b']' => return Some(Piece::Arr { count, elements }),
                        _ => return None,
                    }
                }
            }
            _ => {
                // Any other content is one block of the message.
                let mut block = Block::default();
                let object = self.peek()? == b'{';
                let written = self.value_noting(2, Some(&mut block))?;
                self.count(object.then_some(&block), written);
                self.count_api(object.then_some(&block), written);
                Some(Piece::Other(written))
            }
        }
    }

    /// The written length of any value.
    fn value(&mut self, depth: usize) -> Option<u64> {
        self.value_noting(depth, None)
    }

    /// The written length of any value; of an object, what `note` asks is noted.
    fn value_noting(&mut self, depth: usize, mut note: Option<&mut Block<'a>>) -> Option<u64> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string(),
            b'{' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(2);
                }
                let mut seen = self.keys.pop().unwrap_or_default();
                seen.clear();
                let mut len = 1;
                let out = loop {
                    let Some((k, escaped)) = self.key() else {
                        break None;
                    };
                    if escaped {
                        break None;
                    }
                    let h = hash(k);
                    if seen.contains(&h) {
                        // A duplicate (or a hash collision): the exact path decides.
                        break None;
                    }
                    seen.push(h);
                    // The key, its quotes and the colon.
                    let Some(units) = plain_units(k) else {
                        break None;
                    };
                    len += units + 3;
                    self.ws();
                    if self.expect(b':').is_none() {
                        break None;
                    }
                    self.ws();
                    let at = self.i;
                    // A block's `content` array: each element is a block the
                    // api preset counts (a tool result's parts).
                    let rule = self.kinds.as_ref().map(|(rule, _)| *rule);
                    let parts = match rule {
                        Some(rule)
                            if note.is_some() && k == b"content" && self.peek() == Some(b'[') =>
                        {
                            match self.api_array(depth + 1, &rule) {
                                Some((v, tokens)) => Some((v, tokens)),
                                None => break None,
                            }
                        }
                        _ => None,
                    };
                    let v = match parts {
                        Some((v, _)) => v,
                        None => match self.value(depth + 1) {
                            Some(v) => v,
                            None => break None,
                        },
                    };
                    if let Some(block) = note.as_deref_mut() {
                        let b: &'a [u8] = self.b;
                        let raw = &b[at..self.i];
                        let text = if raw.starts_with(b"\"") {
                            self.decoded
                        } else {
                            0
                        };
                        match k {
                            b"type" if raw.starts_with(b"\"") && raw.contains(&b'\\') => {
                                break None;
                            }
                            b"type" => {
                                block.tool_result = raw == b"\"tool_result\"";
                                block.ty = Some(raw);
                            }
                            b"tool_use_id" => block.id_is_string = raw.starts_with(b"\""),
                            b"content" => {
                                block.content = Some(v);
                                block.api_content = match (parts, rule) {
                                    (Some((_, tokens)), _) => tokens,
                                    (None, Some(rule)) if raw.starts_with(b"\"") => {
                                        rule.text.of(text)
                                    }
                                    _ => 0,
                                };
                            }
                            b"text" => block.text = text,
                            b"thinking" => block.thinking = text,
                            b"data" => block.data = text,
                            b"input" => block.input = Some(v),
                            b"id" => block.id = Some(raw),
                            _ => {}
                        }
                    }
                    len += v;
                    self.ws();
                    match self.next() {
                        Some(b',') => {
                            len += 1;
                            self.ws();
                        }
                        Some(b'}') => break Some(len + 1),
                        _ => break None,
                    }
                };
                self.keys.push(seen);
                out
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(2);
                }
                let mut len = 1;
                loop {
                    len += self.value(depth + 1)?;
                    self.ws();
                    match self.next()? {
                        b',' => {
                            len += 1;
                            self.ws();
                        }
                        b']' => return Some(len + 1),
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true").map(|()| 4),
            b'f' => self.literal(b"false").map(|()| 5),
            b'n' => self.literal(b"null").map(|()| 4),
            _ => self.integer(),
        }
    }

    /// An array whose elements the api preset counts each as a block (a
    /// `tool_result`'s `content`): its written length and their tokens.
    fn api_array(&mut self, depth: usize, rule: &KindRule) -> Option<(u64, u64)> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some((2, 0));
        }
        let (mut len, mut tokens) = (1, 0);
        loop {
            let mut block = Block::default();
            let object = self.peek()? == b'{';
            let written = self.value_noting(depth + 1, Some(&mut block))?;
            tokens += api_tokens(rule, object.then_some(&block), written);
            len += written;
            self.ws();
            match self.next()? {
                b',' => {
                    len += 1;
                    self.ws();
                }
                b']' => return Some((len + 1, tokens)),
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// An integer serde_json writes back unchanged; `None` for anything else.
    fn integer(&mut self) -> Option<u64> {
        let start = self.i;
        if self.peek()? == b'-' {
            self.i += 1;
        }
        let digits = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        let n = self.i - digits;
        let first = *self.b.get(digits)?;
        // No digits, a leading zero, `-0`, or long enough to leave i64/u64.
        if n == 0 || n > 18 || (first == b'0' && (n > 1 || digits > start)) {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        Some((self.i - start) as u64)
    }

    /// A key: its raw bytes (between the quotes) and whether it holds escapes.
    fn key(&mut self) -> Option<(&'a [u8], bool)> {
        self.expect(b'"')?;
        let start = self.i;
        if let Some(end) = string::short_end(self.b, start) {
            self.i = end + 1;
            let b: &'a [u8] = self.b;
            return Some((&b[start..end], false));
        }
        let mut escaped = false;
        loop {
            let at = self.i + memchr2(b'"', b'\\', self.b.get(self.i..)?)?;
            if self.b[at] == b'"' {
                self.i = at + 1;
                let b: &'a [u8] = self.b;
                return Some((&b[start..at], escaped));
            }
            escaped = true;
            self.i = at + 2;
        }
    }

    /// Skips a value without measuring it (outside the content).
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.key().map(|_| ()),
            b'{' | b'[' => {
                let close = if self.peek()? == b'{' { b'}' } else { b']' };
                self.i += 1;
                self.ws();
                if self.peek()? == close {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    if close == b'}' {
                        self.key()?;
                        self.ws();
                        self.expect(b':')?;
                        self.ws();
                    }
                    self.skip_value(depth + 1)?;
                    self.ws();
                    match self.next()? {
                        b',' => self.ws(),
                        c if c == close => return Some(()),
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => {
                // Numbers outside the content are never written back.
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// A string's written length in UTF-16 units, quotes included.
    /// Its parsed length (escapes decoded) is left in `decoded`.
    fn string(&mut self) -> Option<u64> {
        self.expect(b'"')?;
        let (end, written, parsed) = string::measure(self.b, self.i)?;
        self.i = end;
        self.decoded = parsed;
        Some(written)
    }
}

/// UTF-16 units of a run of unescaped string bytes: one per character, two for
/// a four-byte sequence. A raw control character is not valid JSON: `None`.
fn plain_units(run: &[u8]) -> Option<u64> {
    let mut units = 0u64;
    let mut control = false;
    // Counted in byte-wide lanes (at most 2 per byte: 127 bytes fit a u8), which
    // the compiler turns into wide vector adds.
    for chunk in run.chunks(127) {
        let mut lane = 0u8;
        let mut low = 0u8;
        for &b in chunk {
            lane += u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0);
            low |= u8::from(b < 0x20);
        }
        units += u64::from(lane);
        control |= low != 0;
    }
    (!control).then_some(units)
}

/// FNV-1a: enough to tell the few keys of one object apart.
fn hash(k: &[u8]) -> u64 {
    k.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the exact path writes: the compact JSON of the parsed value.
    fn exact(v: &Value) -> u64 {
        v.to_string().encode_utf16().count() as u64
    }

    fn check(line: &str, key: &str) {
        let v: Value = serde_json::from_str(line).expect("test line is JSON");
        let content = v.get("message").and_then(|m| m.get(key)).cloned();
        let want = match content {
            None | Some(Value::Null) => Piece::Missing,
            Some(s @ Value::String(_)) => Piece::Str(exact(&s)),
            Some(Value::Array(a)) => Piece::Arr {
                count: a.len() as u64,
                elements: a.iter().map(exact).sum(),
            },
            Some(other) => Piece::Other(exact(&other)),
        };
        assert_eq!(content_piece(line, key), Some(want), "{line}");
    }

    #[test]
    fn measures_as_serde_json_writes_back() {
        for line in [
            r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
            r#"{"a" : [1, {"x": "}"}], "message" : { "role":"user", "content" : [ {"type":"text","text":"a\nb\u0041\/\"\\ \u00e9 \u001f \u0008 é 😀 \ud83d\ude00"} , {"k":-12,"t":true,"f":false,"n":null,"o":{}, "e":[]} ] } }"#,
            r#"{"message":{"content":null}}"#,
            r#"{"message":"text"}"#,
            r#"{"message":{"role":"user"}}"#,
            r#"{"uuid":"x"}"#,
            r#"{"message":{"content":{"a":1}}}"#,
            r#"{"message":{"content":[]}}"#,
            r#"{"message":{"content":["s", 0, [1,[2]]]}}"#,
            r#"{"toolUseResult":{"stdout":"\" message"},"message":{"content":"\u007f"}}"#,
        ] {
            check(line, "content");
        }
        check(
            r#"{"message":{"role":"user","parts":[{"text":"x"}]},"content":"no"}"#,
            "parts",
        );
    }

    #[test]
    fn notes_each_tool_results_content_size() {
        let line = r#"{"message":{"content":[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t1","content":"ab\n"},{"tool_use_id":"t2","type":"tool_result"},{"type":"tool_result","tool_use_id":3,"content":"x"},{"content":[{"type":"text","text":"é"}],"type":"tool_result","tool_use_id":"t4"}]}}"#;
        let (_, sizes) = content_sizes(line, "content").unwrap();
        // "ab\n" is 6 units written; t2 has no content; id 3 is no result;
        // [{"type":"text","text":"é"}] is 28: 1 + 1 + 6 + 1 + 6 + 1 + 6 + 1 + 3 + 1 + 1.
        assert_eq!(sizes, vec![Some(6), None, Some(28)]);
        let escaped = r#"{"message":{"content":[{"type":"tool_r\u0065sult","tool_use_id":"t","content":"x"}]}}"#;
        assert_eq!(content_sizes(escaped, "content"), None);
    }

    #[test]
    fn leaves_uncertain_values_to_the_exact_path() {
        for line in [
            r#"{"message":{"content":[{"x":1.5}]}}"#,
            r#"{"message":{"content":[{"x":1e3}]}}"#,
            r#"{"message":{"content":[-0]}}"#,
            r#"{"message":{"content":[12345678901234567890]}}"#,
            r#"{"message":{"content":[{"a":1,"a":2}]}}"#,
            r#"{"message":{"content":[{"\u0061":1}]}}"#,
            r#"{"m\u0065ssage":{"content":"x"}}"#,
            r#"{"\u006dessage":{"content":"x"}}"#,
            r#"{"message":{"content":"\ud800"}}"#,
            r#"{"message":{"content":"\udc00x"}}"#,
            r#"{"message":{"content":"a"#,
        ] {
            assert_eq!(content_piece(line, "content"), None, "{line}");
        }
        let deep = format!(
            r#"{{"message":{{"content":{}1{}}}}}"#,
            "[".repeat(150),
            "]".repeat(150)
        );
        assert_eq!(content_piece(&deep, "content"), None);
    }

    /// What `context::message_kinds` counts of the line's message read back
    /// (as a user's and as an assistant's message).
    pub(super) fn kinds_read_back(line: &str) -> Option<PartKinds> {
        use crate::context::message_kinds;
        use crate::session::{HarnessId, Role};
        let v: Value = serde_json::from_str(line).ok()?;
        let content = v
            .get("message")
            .and_then(|m| m.get("content"))
            .cloned()
            .unwrap_or(Value::Null);
        let content = match content {
            s @ Value::String(_) => s,
            Value::Array(a) => Value::Array(a),
            Value::Null => Value::Array(vec![]),
            other => Value::Array(vec![other]),
        };
        let string = content.is_string();
        let msg = serde_json::json!({"role": "user", "content": content});
        let f = crate::session::MsgFacts::of(&msg);
        let api = crate::session::ApiPiece {
            tokens: f.tokens,
            thinking_blocks: f.thinking_blocks as u32,
            string,
        };
        assert_eq!(f.thinking_tokens, {
            let (user, _) = message_kinds(HarnessId::Claude, Role::User, &msg);
            user.thinking
        });
        let (user, ux) = message_kinds(HarnessId::Claude, Role::User, &msg);
        let (asst, _) = message_kinds(HarnessId::Claude, Role::Assistant, &msg);
        let uses: Vec<(Box<str>, u64)> = ux.uses;
        let inputs: u64 = uses.iter().map(|(_, t)| t).sum();
        assert_eq!(user.thinking, asst.thinking);
        Some(PartKinds {
            text: user.user_text,
            thinking: user.thinking,
            inputs,
            images: user.images,
            uses,
            api,
        })
        .inspect(|k| assert_eq!(asst.assistant_text, k.text + k.inputs, "{line}"))
    }

    pub(super) fn rule() -> KindRule {
        KindRule {
            text: crate::harness::CLAUDE.text_tokens,
            media: crate::harness::CLAUDE.media_tokens,
        }
    }

    #[test]
    fn counts_each_block_by_kind_as_the_message_read_back() {
        for line in [
            r#"{"message":{"role":"user","content":"hello there, a\nb \u00e9 \ud83d\ude00 é"}}"#,
            r#"{"message":{"content":[{"type":"text","text":"abcdefgh\"\\\/\u0001"},{"type":"thinking","thinking":"think think","signature":"xyz"},{"type":"redacted_thinking","data":"AAAA BBBB"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a/b.rs","limit":20}},{"input":{},"type":"tool_use","id":"t2"},{"type":"tool_use","id":5},{"type":"tool_use","id":"t3","input":null}]}}"#,
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"big output"},{"type":"tool_result","tool_use_id":7,"content":"not a result: counted whole"},{"type":"image","source":{"type":"base64","data":"AAAA"}},{"type":"document"}]}}"#,
            r#"{"message":{"content":["a string element",5,null,true,[1,2],{"type":5,"text":"x"},{"no":"type"},{"type":"text","text":7},{"type":"server_tool_use","id":"s","input":{"q":"x"}}]}}"#,
            r#"{"message":{"content":{"type":"text","text":"an object content"}}}"#,
            r#"{"message":{"content":{"type":"tool_result","tool_use_id":"t","content":"x"}}}"#,
            r#"{"message":{"content":42}}"#,
            r#"{"message":{"content":null}}"#,
            r#"{"message":{"role":"user"}}"#,
            r#"{"uuid":"x"}"#,
            r#"{"message":{"content":[]}}"#,
            // What the api preset reads of a tool result: its content, parts
            // block by block (nested ones too), else nothing.
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"part one \u00e9"},{"type":"image","source":{}},"a string part",{"type":"tool_result","content":[{"type":"thinking","thinking":"deep"},{"type":"redacted_thinking","data":"xx"},{"type":"tool_use","input":{"a":[1,2]}}]},{"what":"else"},7]},{"type":"tool_result","tool_use_id":"t2","content":{"type":"text","text":"an object: 0"}},{"type":"tool_result","tool_use_id":"t3","content":12},{"type":"tool_result","tool_use_id":"t4"},{"type":"tool_result","tool_use_id":"t5","content":[]}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"a","name":"Read","input":{}},{"type":"tool_use","id":"b","name":5,"input":{"x":"y"}},{"type":"tool_use","id":"c"},{"type":"thinking","thinking":"t"},{"type":"redacted_thinking","data":"d"},{"type":"redacted_thinking"}]}}"#,
        ] {
            let m = measure(line, "content", Some(rule())).expect("measured");
            assert_eq!(m.kinds, kinds_read_back(line), "{line}");
        }
    }

    /// The api preset counts with the rule the Claude loader measures with
    /// (`MsgFacts` from the measured pieces rests on it).
    #[test]
    fn the_api_preset_counts_as_the_claude_loader_measures() {
        let api = crate::harness::PresetId::SERVER.rules();
        assert_eq!(api.text_tokens, crate::harness::CLAUDE.text_tokens);
        assert_eq!(api.media_tokens, crate::harness::CLAUDE.media_tokens);
    }

    #[test]
    fn an_escaped_tool_use_id_is_left_to_the_exact_path() {
        let line = r#"{"message":{"content":[{"type":"tool_use","id":"t\u0031","input":{}}]}}"#;
        let m = measure(line, "content", Some(rule())).expect("measured");
        assert_eq!(m.kinds, None);
        // The sizes stay the scan's.
        assert!(matches!(m.piece, Piece::Arr { count: 1, .. }));
        let plain = r#"{"message":{"content":[{"type":"tool_use","id":"t1","input":{}}]}}"#;
        let k = measure(plain, "content", Some(rule())).and_then(|m| m.kinds);
        assert_eq!(k.map(|k| k.uses), Some(vec![("t1".into(), 1)]));
    }
}

/// Generated contents: what the scan measures by kind, the api preset's
/// reading included, is what reading the message back counts, wherever the
/// scan is sure.
#[cfg(test)]
mod generated {
    use super::tests::{kinds_read_back, rule};
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            prop::sample::select(vec![
                "",
                "plain",
                "a \"quoted\" é",
                "tab\there\n",
                "😀 x",
                "\u{1}"
            ])
            .prop_map(|s| json!(s)),
            (-5i64..100_000).prop_map(|n| json!(n)),
            any::<bool>().prop_map(|b| json!(b)),
            Just(Value::Null),
        ]
    }

    fn block(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
        let ty = prop::sample::select(vec![
            Some("text"),
            Some("thinking"),
            Some("redacted_thinking"),
            Some("tool_use"),
            Some("tool_result"),
            Some("image"),
            Some("document"),
            Some("server_tool_use"),
            None,
        ]);
        let keys = [
            "text",
            "thinking",
            "data",
            "input",
            "id",
            "name",
            "tool_use_id",
            "content",
        ];
        let fields = prop::collection::vec(
            (
                prop::sample::select(keys.to_vec()),
                prop_oneof![
                    leaf(),
                    inner.clone(),
                    prop::collection::vec(inner, 0..3).prop_map(Value::Array)
                ],
            ),
            0..5,
        );
        (ty, fields).prop_map(|(ty, fields)| {
            let mut m = Map::new();
            if let Some(t) = ty {
                m.insert("type".into(), json!(t));
            }
            for (k, v) in fields {
                m.insert(k.into(), v);
            }
            Value::Object(m)
        })
    }

    fn content() -> impl Strategy<Value = Value> {
        let blocks = leaf().prop_recursive(3, 24, 4, |inner| block(inner.boxed()).boxed());
        prop_oneof![
            leaf(),
            prop::collection::vec(blocks.clone(), 0..5).prop_map(Value::Array),
            blocks,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn measured_kinds_are_the_read_back_ones(c in content()) {
            let line = serde_json::to_string(&json!({"message": {"role": "user", "content": c}})).unwrap();
            if let Some(k) = measure(&line, "content", Some(rule())).and_then(|m| m.kinds) {
                prop_assert_eq!(Some(k), kinds_read_back(&line), "{}", line);
            }
        }
    }
}
