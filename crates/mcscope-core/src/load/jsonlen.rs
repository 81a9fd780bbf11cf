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

use crate::session::PieceLen as Piece;
use memchr::memchr2;

/// Deeper than this, serde_json's recursion limit may refuse the value: let the
/// exact path decide.
const MAX_DEPTH: usize = 100;

/// Measures `message.<key>` of one JSONL line (a JSON object). `None` when the
/// line holds something this scan does not reproduce exactly.
pub(crate) fn content_piece(line: &str, key: &str) -> Option<Piece> {
    content_sizes(line, key).map(|(p, _)| p)
}

/// As [`content_piece`], with the written size of each Claude `tool_result`
/// block's `content` in block order (`None`: the block has no `content`), so a
/// rewrite that clears some of them is measured without building the message.
pub(crate) fn content_sizes(line: &str, key: &str) -> Option<(Piece, Vec<Option<u64>>)> {
    let mut s = Scan {
        b: line.as_bytes(),
        i: 0,
        keys: Vec::new(),
        results: Vec::new(),
    };
    let piece = scan_line(&mut s, key)?;
    Some((piece, s.results))
}

fn scan_line(s: &mut Scan<'_>, key: &str) -> Option<Piece> {
    s.ws();
    s.expect(b'{')?;
    s.ws();
    if s.peek()? == b'}' {
        return Some(Piece::Missing);
    }
    loop {
        let (k, escaped) = s.key()?;
        s.ws();
        s.expect(b':')?;
        s.ws();
        if k == b"message" {
            if escaped {
                return None;
            }
            return s.message(key);
        }
        if escaped {
            // An escaped key might spell `message` (`\u006dessage` too).
            return None;
        }
        s.skip_value(1)?;
        s.ws();
        match s.next()? {
            b',' => s.ws(),
            b'}' => return Some(Piece::Missing),
            _ => return None,
        }
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    /// Hashes of the keys of each open object, to spot duplicates.
    keys: Vec<Vec<u64>>,
    /// The written size of each `tool_result` block's `content`, in order.
    results: Vec<Option<u64>>,
}

/// What a content block says about itself, noted while it is measured.
#[derive(Default)]
struct Block {
    tool_result: bool,
    id_is_string: bool,
    content: Option<u64>,
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
        self.ws();
        if self.peek()? == b'}' {
            return Some(Piece::Missing);
        }
        loop {
            let (k, escaped) = self.key()?;
            if escaped {
                return None;
            }
            self.ws();
            self.expect(b':')?;
            self.ws();
            if k == key.as_bytes() {
                return self.piece();
            }
            self.skip_value(2)?;
            self.ws();
            match self.next()? {
                b',' => self.ws(),
                b'}' => return Some(Piece::Missing),
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
            b'"' => Some(Piece::Str(self.string()?)),
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
                    elements += self.value_noting(3, Some(&mut block))?;
                    if block.tool_result && block.id_is_string {
                        self.results.push(block.content);
                    }
                    count += 1;
                    self.ws();
                    match self.next()? {
                        b',' => self.ws(),
                        b']' => return Some(Piece::Arr { count, elements }),
                        _ => return None,
                    }
                }
            }
            _ => Some(Piece::Other(self.value(2)?)),
        }
    }

    /// The written length of any value.
    fn value(&mut self, depth: usize) -> Option<u64> {
        self.value_noting(depth, None)
    }

    /// The written length of any value; of an object, what `note` asks is noted.
    fn value_noting(&mut self, depth: usize, mut note: Option<&mut Block>) -> Option<u64> {
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
                    let Some(v) = self.value(depth + 1) else {
                        break None;
                    };
                    if let Some(block) = note.as_deref_mut() {
                        let raw = &self.b[at..self.i];
                        match k {
                            b"type" if raw.starts_with(b"\"") && raw.contains(&b'\\') => {
                                break None;
                            }
                            b"type" => block.tool_result = raw == b"\"tool_result\"",
                            b"tool_use_id" => block.id_is_string = raw.starts_with(b"\""),
                            b"content" => block.content = Some(v),
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
    fn string(&mut self) -> Option<u64> {
        self.expect(b'"')?;
        let mut len = 2;
        loop {
            let rest = self.b.get(self.i..)?;
            let at = memchr2(b'"', b'\\', rest)?;
            len += plain_units(&rest[..at])?;
            self.i += at + 1;
            if rest[at] == b'"' {
                return Some(len);
            }
            len += match self.next()? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                b'/' => 1,
                b'u' => {
                    let c = self.hex4()?;
                    match c {
                        0xD800..=0xDBFF => {
                            self.literal(b"\\u")?;
                            let low = self.hex4()?;
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return None;
                            }
                            2
                        }
                        0xDC00..=0xDFFF => return None,
                        0x08 | 0x09 | 0x0A | 0x0C | 0x0D | 0x22 | 0x5C => 2,
                        0..0x20 => 6,
                        _ => 1,
                    }
                }
                _ => return None,
            };
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.b.get(self.i..self.i + 4)?;
        let s = std::str::from_utf8(h).ok()?;
        let v = u32::from_str_radix(s, 16).ok()?;
        self.i += 4;
        Some(v)
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
}
