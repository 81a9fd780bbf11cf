//! Lone surrogate escapes, read the way Node and Python read them.
//!
//! Node's `JSON.stringify` writes a string cut in the middle of a surrogate
//! pair as `"\ud83d"`; JavaScript and Python parse it back, serde_json (rightly,
//! for UTF-8 strings) refuses it, which would make the whole record vanish. A
//! line that fails to parse is therefore repaired once: each lone surrogate
//! escape becomes `\ufffd` (U+FFFD, the replacement character). The escape has
//! the same six bytes, so every offset and length measured on the line stays
//! true, and a record read again from the file is repaired the same way.

use memchr::memmem;

/// Whether `bytes` hold a `\u` escape that might be a surrogate (`\ud…`/`\uD…`):
/// the cheap test that gates the repair.
pub fn may_hold_surrogates(bytes: &[u8]) -> bool {
    memmem::find(bytes, b"\\ud").is_some() || memmem::find(bytes, b"\\uD").is_some()
}

/// What a repair replaced: how many escapes, and where the first one was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixed {
    pub count: usize,
    /// Byte offset of the first replaced escape's backslash.
    pub first: usize,
}

/// Replaces each lone surrogate escape in JSON text by `\ufffd`, in place; None
/// when there was none. A high surrogate followed by a low one is a pair and
/// kept; an escaped backslash (`\\ud83d`) is no escape.
pub fn repair_in_place(bytes: &mut [u8]) -> Option<Fixed> {
    let mut fixed: Option<Fixed> = None;
    let mut note = |at: usize| {
        let f = fixed.get_or_insert(Fixed {
            count: 0,
            first: at,
        });
        f.count += 1;
    };
    let mut i = 0;
    // `get`: a backslash that ends the text leaves `i` past its end.
    while let Some(at) = bytes.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let at = i + at;
        if bytes.get(at + 1) != Some(&b'u') {
            // `\"`, `\\`, `\n`…: two bytes, whatever the second.
            i = at + 2;
            continue;
        }
        let Some(unit) = hex4(bytes, at + 2) else {
            i = at + 2;
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                let low = (bytes.get(at + 6) == Some(&b'\\') && bytes.get(at + 7) == Some(&b'u'))
                    .then(|| hex4(bytes, at + 8))
                    .flatten();
                if low.is_some_and(|l| (0xDC00..=0xDFFF).contains(&l)) {
                    i = at + 12;
                    continue;
                }
                replace(bytes, at);
                note(at);
            }
            0xDC00..=0xDFFF => {
                replace(bytes, at);
                note(at);
            }
            _ => {}
        }
        i = at + 6;
    }
    fixed
}

/// As [`repair_in_place`] on a copy of `text`; None when nothing was replaced.
pub fn repair(text: &str) -> Option<(String, Fixed)> {
    if !may_hold_surrogates(text.as_bytes()) {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    let fixed = repair_in_place(&mut bytes)?;
    // Only ASCII hex digits were rewritten: the text is still UTF-8.
    String::from_utf8(bytes).ok().map(|s| (s, fixed))
}

fn replace(bytes: &mut [u8], at: usize) {
    bytes[at + 2..at + 6].copy_from_slice(b"fffd");
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let h = bytes.get(at..at + 4)?;
    h.iter().try_fold(0u32, |n, &b| {
        let d = (b as char).to_digit(16)?;
        Some(n * 16 + d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(s: &str) -> (String, usize) {
        repair(s).map_or_else(|| (s.to_string(), 0), |(t, f)| (t, f.count))
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        for (input, want, n) in [
            (r#""a\ud83d""#, r#""a\ufffd""#, 1),
            (r#""\uDC00x""#, r#""\ufffdx""#, 1),
            (r#""\ud83d\ude00""#, r#""\ud83d\ude00""#, 0),
            (r#""\ud83d\ud83d\ude00""#, r#""\ufffd\ud83d\ude00""#, 1),
            (r#""\ud83d\u0041""#, r#""\ufffd\u0041""#, 1),
            (r#""\\ud83d""#, r#""\\ud83d""#, 0),
            (r#""\\\ud83d""#, r#""\\\ufffd""#, 1),
            (r#""\ude00\ud83d""#, r#""\ufffd\ufffd""#, 2),
            (r#""\ud8""#, r#""\ud8""#, 0),
            (r#""\ud83d"#, r#""\ufffd"#, 1),
            // A text that ends in a backslash (the fuzzer's surrogate-1).
            (r#""\ud83d x\"#, r#""\ufffd x\"#, 1),
        ] {
            assert_eq!(fixed(input), (want.to_string(), n), "{input}");
        }
        assert_eq!(repair(r#"x"\ud83d"#).map(|(_, f)| f.first), Some(2));
        // What serde_json then reads: U+FFFD where the lone half was.
        let (text, _) = fixed(r#"{"t":"x\ud83dy"}"#);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["t"], "x\u{fffd}y");
    }
}
