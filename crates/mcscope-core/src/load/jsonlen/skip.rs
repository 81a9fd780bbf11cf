//! Where a JSON value ends, checked as strictly as serde_json checks a value
//! it skips (`Deserializer::ignore_value`), or more strictly: the loader's
//! fast path (`load::claude::fast`) steps over the values it does not keep
//! with this scan instead of serde_json's, and hands every line this scan
//! cannot vouch for to serde_json whole. So a value is accepted here only if
//! serde_json accepts it too; where this scan is stricter (nesting deeper than
//! [`MAX_DEPTH`]), the line simply takes the exact path.
//!
//! What serde_json accepts, from its reader (1.0.154, `de.rs` `ignore_value`,
//! `ignore_integer`, `ignore_decimal`, `ignore_exponent`; `read.rs`
//! `ignore_str`, `ignore_escape`): the four whitespace bytes; `null`, `true`
//! and `false` as written; a number `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`;
//! a string without a raw byte below 0x20 whose escapes are `\"`, `\\`, `\/`,
//! `\b`, `\f`, `\n`, `\r`, `\t` or `\u` and four hex digits (a lone surrogate
//! is skipped without a word); arrays and objects with string keys, no
//! trailing comma, nested without limit. The line is UTF-8 already.
//!
//! Strings are scanned 64 bytes a step with the masks of `blocks`; only an
//! escape is looked at on its own, to check the character after it.

use super::{MAX_DEPTH, blocks};

/// The JSON whitespace bytes (serde_json's `parse_whitespace`).
#[inline]
pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(i) {
        i += 1;
    }
    i
}

/// One past the end of the JSON value that starts at `b[at]` (no whitespace
/// before it), at nesting `depth` (1 for a value of the line's object, as
/// the content scan counts). `None` for anything serde_json would refuse,
/// and for nesting deeper than [`MAX_DEPTH`].
pub(crate) fn value_end(b: &[u8], at: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(at)? {
        b'"' => string_end(b, at + 1),
        open @ (b'{' | b'[') => {
            let close = if open == b'{' { b'}' } else { b']' };
            let mut i = ws(b, at + 1);
            if b.get(i) == Some(&close) {
                return Some(i + 1);
            }
            loop {
                if open == b'{' {
                    if b.get(i) != Some(&b'"') {
                        return None;
                    }
                    i = ws(b, string_end(b, i + 1)?);
                    if b.get(i) != Some(&b':') {
                        return None;
                    }
                    i = ws(b, i + 1);
                }
                i = ws(b, value_end(b, i, depth + 1)?);
                match *b.get(i)? {
                    b',' => i = ws(b, i + 1),
                    c if c == close => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b't' => literal(b, at, b"true"),
        b'f' => literal(b, at, b"false"),
        b'n' => literal(b, at, b"null"),
        b'-' | b'0'..=b'9' => number_end(b, at),
        _ => None,
    }
}

fn literal(b: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    let end = at + word.len();
    (b.get(at..end)? == word).then_some(end)
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// A number as serde_json's `ignore_integer` and what follows it read one.
fn number_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + usize::from(b.get(at) == Some(&b'-'));
    match *b.get(i)? {
        // Only one leading zero, and no digit after it.
        b'0' => {
            i += 1;
            if let Some(b'0'..=b'9') = b.get(i) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let end = digits(b, i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let end = digits(b, i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some(i)
}

/// One past the closing quote of the string whose first character is
/// `b[start]` (after its opening quote); `None` for a raw control character,
/// a bad escape or no closing quote.
pub(crate) fn string_end(b: &[u8], start: usize) -> Option<usize> {
    short_end(b, start).or_else(|| long_end(b, start))
}

/// As [`string_end`], and whether the string is free of escapes (a key
/// with one is left to serde_json, which decodes it).
pub(crate) fn key_end(b: &[u8], start: usize) -> Option<(usize, bool)> {
    if let Some(end) = short_end(b, start) {
        return Some((end, true));
    }
    let end = long_end(b, start)?;
    Some((end, memchr::memchr(b'\\', &b[start..end]).is_none()))
}

/// Keys, ids and short texts end within 16 bytes without an escape: one
/// step. None for any other string (the caller looks further).
#[inline]
fn short_end(b: &[u8], start: usize) -> Option<usize> {
    let m = blocks::masks16(b.get(start..)?.first_chunk::<16>()?);
    let first = m.quote.trailing_zeros();
    (m.quote != 0 && (m.backslash | m.control) & ((1u64 << first) - 1) == 0)
        .then(|| start + first as usize + 1)
}

fn long_end(b: &[u8], start: usize) -> Option<usize> {
    let mut carry = 0;
    let mut at = start;
    loop {
        let rest = b.get(at..)?;
        let m = blocks::masks_at(rest);
        let escaped = blocks::escaped(m.backslash, &mut carry);
        let quotes = m.quote & !escaped;
        let inside = blocks::before_first(quotes);
        if m.control & inside != 0 {
            return None;
        }
        let mut esc = escaped & inside;
        while esc != 0 {
            let p = at + esc.trailing_zeros() as usize;
            esc &= esc - 1;
            // Past the end (a backslash last): no closing quote either.
            let c = *b.get(p)?;
            if c == b'u' {
                b.get(p + 1..p + 5)?
                    .iter()
                    .all(u8::is_ascii_hexdigit)
                    .then_some(())?;
            } else if !ESCAPES[usize::from(c)] {
                return None;
            }
        }
        if quotes != 0 {
            return Some(at + quotes.trailing_zeros() as usize + 1);
        }
        if rest.len() <= 64 {
            return None;
        }
        at += 64;
    }
}

/// The characters a backslash may escape besides `u`, as a table: one load
/// instead of a branch per kind.
const ESCAPES: [bool; 256] = {
    let mut t = [false; 256];
    let ok = *b"\"\\/bfnrt";
    let mut i = 0;
    while i < ok.len() {
        t[ok[i] as usize] = true;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// serde_json's own verdict on a value standing alone: what it skips in
    /// a record's unread field (`IgnoredAny`) is what this scan must not
    /// accept more of.
    fn serde_accepts(text: &str) -> bool {
        serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    }

    fn ours(text: &str) -> bool {
        value_end(text.as_bytes(), 0, 1) == Some(text.len())
    }

    #[test]
    fn accepts_what_serde_json_accepts_and_ends_where_the_value_ends() {
        for v in [
            r#""""#,
            r#""a\"b\\c\/d\b\f\n\r\t\u00e9\uD83D\uDE00\ud800 lone""#,
            "0",
            "-0",
            "-0.5e+10",
            "12E3",
            "1.25",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            r#"{"a":[1,{"b":null}],"c":"}"}"#,
            "[ 1 , 2 ,\t\"x\" \r\n]",
            r#"{"k" : "v" , "k" : 2}"#,
        ] {
            assert!(serde_accepts(v), "{v}");
            assert!(ours(v), "{v}");
            let tail = format!("{v}, 1");
            assert_eq!(value_end(tail.as_bytes(), 0, 1), Some(v.len()), "{v}");
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for v in [
            r#""\x""#,
            r#""\u12g4""#,
            r#""\u12""#,
            "\"a\u{1}b\"",
            "\"a\tb\"",
            r#""open"#,
            r#""ends with \""#,
            "01",
            "-",
            "-a",
            "1.",
            "1.e3",
            "1e",
            "1e+",
            ".5",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "[1 2]",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            "{1:2}",
            "{a:1}",
            "[",
            "{",
            "]",
            "NaN",
            "'s'",
        ] {
            assert!(!serde_accepts(v), "{v}");
            assert!(!ours(v), "{v}");
        }
    }

    #[test]
    fn nesting_deeper_than_the_content_scan_reads_is_left_to_serde_json() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(ours(&deep));
        let deeper = format!("[{deep}]");
        assert!(serde_accepts(&deeper));
        assert!(!ours(&deeper));
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{1,40}",
            "[é€😀\u{1}\u{7f}]{1,3}",
            proptest::sample::select(vec![
                "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\uD83D",
                "\\x", "\\u12", "\\u12G4", "\\", "\"", "\t", "{", "}", "[", "]", ",", ":", "0",
                "-", "1.5", "e", "true", "nul", " ",
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Never more than serde_json accepts; where it accepts a shallow
        /// value, so does this scan.
        #[test]
        fn agrees_with_serde_json(pieces in proptest::collection::vec(piece(), 0..30), quoted in any::<bool>()) {
            let body: String = pieces.concat();
            let text = if quoted { format!("\"{body}\"") } else { body };
            let serde = serde_accepts(&text);
            let start = ws(text.as_bytes(), 0);
            let mine = value_end(text.as_bytes(), start, 1).map(|e| ws(text.as_bytes(), e) == text.len());
            if mine == Some(true) {
                prop_assert!(serde, "accepted what serde_json refuses: {:?}", text);
            }
            if serde && start < text.len() {
                prop_assert_eq!(mine, Some(true), "refused what serde_json accepts: {:?}", text);
            }
        }
    }
}
