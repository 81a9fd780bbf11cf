//! Small readers over borrowed JSON (`&RawValue`), so that big strings are measured
//! where they lie instead of being copied.

use serde_json::value::RawValue;
use std::borrow::Cow;

pub(crate) type Raw<'a> = Option<Json<'a>>;

/// A JSON value's text where it lies in the line, checked to be one JSON
/// value: read by serde_json (as its `&RawValue`), or by the strict scan of
/// the fast path (`load::jsonlen::skip`), which accepts nothing serde_json
/// refuses. In an `Option` (a [`Raw`]) a `null` reads as `None`, as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Json<'a>(&'a str);

impl<'a> Json<'a> {
    /// The value's text, as written.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// A value the strict scan checked (`load::jsonlen::skip`).
    pub(crate) fn checked(text: &'a str) -> Json<'a> {
        Json(text)
    }
}

/// A test's value: checked by serde_json, kept for the test's life.
#[cfg(test)]
pub(crate) fn test_json(text: &str) -> Json<'static> {
    let v = serde_json::value::RawValue::from_string(text.to_string()).expect("test JSON");
    Json(Box::leak(v).get())
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Json<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de RawValue as serde::Deserialize>::deserialize(d).map(|v| Json(v.get()))
    }
}

/// The string a raw JSON value holds, or None when it is not a string.
pub(crate) fn string<'a>(v: Raw<'a>) -> Option<Cow<'a, str>> {
    let v = v?;
    let text = v.get();
    if !text.starts_with('"') {
        return None;
    }
    // Without a backslash the literal is its own text (borrow it; no error path,
    // which would format the whole string into a message).
    if text.len() >= 2 && memchr::memchr(b'\\', text.as_bytes()).is_none() {
        return Some(Cow::Borrowed(&text[1..text.len() - 1]));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

/// Whether a raw value is the placeholder string, compared without decoding.
pub(crate) fn is_placeholder(v: Raw<'_>) -> bool {
    v.is_some_and(|v| {
        let t = v.get();
        t.len() == super::PLACEHOLDER.len() + 2 && &t[1..t.len() - 1] == super::PLACEHOLDER
    })
}

/// A key that was there, whatever its value (`null` included): serde reads a
/// `null` into `Option` as `None`, which would make it look absent.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Present(pub bool);

impl<'de> serde::Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Present(true))
    }
}

/// For `#[serde(deserialize_with)]`: Some when the key is there, whatever its
/// value (`null` included), so a present `null` is told from an absent key.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Raw<'de>>, D::Error> {
    Ok(Some(<Raw<'de> as serde::Deserialize>::deserialize(d)?))
}

/// A string field borrowed from the line where it has no escape. serde's own
/// `Cow<str>` borrows only when it is the field's whole type; inside an
/// `Option` it allocated a `String` for every record's `type` and every
/// block's. It accepts exactly what a `String` accepts, with the same error.
#[cfg_attr(test, derive(Debug))]
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Str<'de>;
            // As `String`'s visitor says it, so a wrong value's error reads
            // the same.
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_string(V)
    }
}

/// A record's short text (a uuid, a session id, a version), kept in place
/// when it fits and on the heap only when it does not. Most lines of a Claude
/// Code transcript carry the same four or five of these and nothing else the
/// loader keeps; a `String` each was most of the load's allocations, made on
/// the threads that parse and freed on the one that applies (BENCHMARKS.md,
/// "Fewer allocations per line").
#[derive(Clone)]
pub(crate) enum Small {
    /// Up to [`Small::INLINE`] bytes of UTF-8 (the first `len`).
    Inline {
        len: u8,
        bytes: [u8; Small::INLINE],
    },
    Heap(Box<str>),
}

impl Small {
    /// A canonical uuid (36 bytes) fits with room to spare (a copied
    /// session's ids carry a suffix), and the whole value is 48 bytes.
    pub(crate) const INLINE: usize = 46;

    pub(crate) fn new(text: Cow<'_, str>) -> Small {
        match text {
            Cow::Borrowed(t) if t.len() <= Small::INLINE => {
                let mut bytes = [0; Small::INLINE];
                bytes[..t.len()].copy_from_slice(t.as_bytes());
                Small::Inline {
                    len: t.len() as u8,
                    bytes,
                }
            }
            Cow::Borrowed(t) => Small::Heap(t.into()),
            // Decoded already (it had an escape): keep that allocation.
            Cow::Owned(t) => Small::Heap(t.into_boxed_str()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            // Whole UTF-8 text copied in, cut at its own end: a char
            // boundary, so this never fails.
            Small::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Small::Heap(t) => t,
        }
    }
}

impl std::ops::Deref for Small {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// Equal texts are equal, wherever each is kept.
impl PartialEq for Small {
    fn eq(&self, other: &Small) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Small {}

impl std::fmt::Debug for Small {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The string a raw JSON value holds as a [`Small`], or None when it is not a
/// string.
pub(crate) fn small(v: Raw<'_>) -> Option<Small> {
    string(v).map(Small::new)
}

pub(crate) fn owned(v: Raw<'_>) -> Option<String> {
    string(v).map(Cow::into_owned)
}

pub(crate) fn is_true(v: Raw<'_>) -> bool {
    v.is_some_and(|v| v.get() == "true")
}

pub(crate) fn is_null_or_absent(v: Raw<'_>) -> bool {
    v.is_none_or(|v| v.get() == "null")
}

/// UTF-16 code units of the string a JSON string literal decodes to, counted on the
/// escaped text (what JavaScript's `.length` gives). None when `v` is not a string.
pub(crate) fn utf16_len(v: Raw<'_>) -> Option<u64> {
    let text = v?.get().as_bytes();
    if text.len() < 2 || text[0] != b'"' {
        return None;
    }
    Some(utf16_len_of_escaped(&text[1..text.len() - 1]))
}

/// Counts on escaped JSON string bytes: an escape is one unit (`\uD83D\uDE00` is two
/// escapes, two units, as in UTF-16); a 4-byte UTF-8 sequence is two units.
pub(crate) fn utf16_len_of_escaped(b: &[u8]) -> u64 {
    let mut n = 0u64;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            i += if b.get(i + 1) == Some(&b'u') { 6 } else { 2 };
            n += 1;
        } else if c < 0x80 {
            // Fast path for runs of plain ASCII without escapes.
            let run = b[i..]
                .iter()
                .position(|&x| x >= 0x80 || x == b'\\')
                .unwrap_or(b.len() - i);
            n += run as u64;
            i += run;
        } else if c >= 0xF0 {
            n += 2;
            i += 4;
        } else if c >= 0xE0 {
            n += 1;
            i += 3;
        } else {
            n += 1;
            i += 2;
        }
    }
    n
}

/// UTF-16 length of a decoded string.
pub(crate) fn utf16_len_str(s: &str) -> u64 {
    // One unit per character, two for a four-byte sequence: counted on the
    // bytes (every byte but a continuation byte starts a character), in
    // byte-wide lanes (at most 2 per byte: 127 bytes fit a u8) that the
    // compiler turns into wide vector adds.
    s.as_bytes()
        .chunks(127)
        .map(|chunk| {
            let lane = chunk.iter().fold(0u8, |n, &b| {
                n + u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0)
            });
            u64::from(lane)
        })
        .sum()
}

/// The elements of a raw JSON array (empty when not an array or not parseable).
pub(crate) fn elements<'a>(v: Raw<'a>) -> Vec<Json<'a>> {
    match v {
        Some(v) if v.get().starts_with('[') => {
            serde_json::from_str::<Vec<Json<'a>>>(v.get()).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// Parses a raw object into a borrowed struct; None when it is not that shape.
pub(crate) fn object<'a, T: serde::Deserialize<'a>>(v: Raw<'a>) -> Option<T> {
    let v = v?;
    if !v.get().starts_with('{') {
        return None;
    }
    serde_json::from_str::<T>(v.get()).ok()
}

/// Parses a timestamp into milliseconds since the epoch.
pub fn timestamp_ms(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod utf16_tests {
    #[test]
    fn counts_utf16_units_as_chars_do() {
        let long = "aé€😀\n".repeat(100);
        for s in ["", "abc", "é", "€", "😀", "a😀b", long.as_str()] {
            let want: u64 = s.chars().map(|c| c.len_utf16() as u64).sum();
            assert_eq!(super::utf16_len_str(s), want, "{s:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Json<'static> {
        test_json(s)
    }

    #[test]
    fn utf16_counts_match_javascript_length() {
        for (json, expect) in [
            (r#""abc""#, 3),
            (r#""a\nb""#, 3),
            (r#""é""#, 1),
            (r#""日本""#, 2),
            (r#""😀""#, 2),
            (r#""\ud83d\ude00""#, 2),
            (r#""\u001b[1m""#, 4),
            (r#""""#, 0),
        ] {
            let r = raw(json);
            assert_eq!(utf16_len(Some(r)), Some(expect), "{json}");
            let s: String = serde_json::from_str(json).unwrap();
            assert_eq!(utf16_len_str(&s), expect, "{json}");
        }
        assert_eq!(utf16_len(Some(raw("12"))), None);
    }

    #[test]
    fn strings_borrow_when_unescaped() {
        let r = raw(r#""plain""#);
        assert!(matches!(string(Some(r)), Some(Cow::Borrowed("plain"))));
        let r = raw(r#""a\"b""#);
        assert_eq!(string(Some(r)).as_deref(), Some("a\"b"));
        assert_eq!(string(Some(raw("3"))), None);
    }

    /// `Str` reads what a `String` reads, borrows where it can, and a value of
    /// another kind fails with the very message a `String` gives (a damaged
    /// line's diagnostic quotes it).
    #[test]
    fn a_borrowed_str_reads_as_a_string_does() {
        #[derive(serde::Deserialize)]
        struct Borrowed<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: Option<Str<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Owned {
            #[serde(rename = "type", default)]
            kind: Option<String>,
        }
        for line in [
            r#"{"type":"progress"}"#,
            r#"{"type":"pro\u0067ress"}"#,
            r#"{"type":"a\"b"}"#,
            r#"{"type":null}"#,
            r#"{}"#,
            r#"{"type":5}"#,
            r#"{"type":-1.5}"#,
            r#"{"type":true}"#,
            r#"{"type":[1]}"#,
            r#"{"type":{"a":1}}"#,
            r#"{"type":"x"#,
        ] {
            let b = serde_json::from_str::<Borrowed>(line)
                .map(|b| b.kind.map(|k| k.to_string()))
                .map_err(|e| e.to_string());
            let o = serde_json::from_str::<Owned>(line)
                .map(|o| o.kind)
                .map_err(|e| e.to_string());
            assert_eq!(b, o, "{line}");
        }
        let b: Borrowed = serde_json::from_str(r#"{"type":"progress"}"#).unwrap();
        assert!(matches!(b.kind, Some(Str(Cow::Borrowed("progress")))));
    }

    /// A `Small` is its text, in place or on the heap, escapes decoded.
    #[test]
    fn a_small_text_is_its_text() {
        let long = format!("\"{}\"", "u".repeat(Small::INLINE + 1));
        let fits = format!("\"{}\"", "é".repeat(Small::INLINE / 2));
        for json in [
            r#""""#,
            r#""2.1.39""#,
            r#""258c7280-ae70-4798-800f-63464d01a85d-c12""#,
            r#""a\nb\u00e9""#,
            long.as_str(),
            fits.as_str(),
        ] {
            let r = raw(json);
            let want: String = serde_json::from_str(json).unwrap();
            let got = small(Some(r)).unwrap();
            assert_eq!(got.as_str(), want, "{json}");
            assert_eq!(got, Small::new(Cow::Borrowed(want.as_str())), "{json}");
            assert_eq!(
                matches!(got, Small::Inline { .. }),
                want.len() <= Small::INLINE && !json.contains('\\'),
                "{json}"
            );
        }
        assert!(small(Some(raw("7"))).is_none());
    }

    #[test]
    fn timestamps_parse_to_ms() {
        assert_eq!(timestamp_ms("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(timestamp_ms("not a time"), None);
    }
}
