//! A string's lengths, 64 bytes a step: where it ends, its UTF-16 length as
//! serde_json writes it back, and as parsed (escapes decoded). A tool
//! result's text has an escape every dozen bytes or so; finding each with a
//! search of its own was most of the scan's time (the speed issue).
//!
//! Each block's quotes, backslashes and UTF-8 lead bytes become bit masks;
//! the escaped characters come from the backslash runs without a branch
//! (`blocks::escaped`); the plain bytes are counted by `popcnt`. Only an
//! escape is looked at on its own, for its units: two written and one parsed
//! for `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, one and one for `\/`, and
//! for `\u` what serde_json writes back for the character.

use super::blocks;

/// The lengths of the string whose first character is `s[start]` (after its
/// opening quote): one past its closing quote, its written UTF-16 units
/// (quotes included) and its parsed ones. `None` for what serde_json would
/// not read (a raw control character, a bad escape, a lone surrogate) or
/// an unterminated string.
pub(super) fn measure(s: &[u8], start: usize) -> Option<(usize, u64, u64)> {
    // Most strings (keys, ids, short texts) end within 16 bytes without an
    // escape: one step.
    if let Some(b) = s.get(start..).and_then(<[u8]>::first_chunk::<16>) {
        let m = blocks::masks16(b);
        if m.quote != 0 {
            let first = m.quote.trailing_zeros();
            let plain = (1u64 << first) - 1;
            if (m.backslash | m.control) & plain == 0 {
                let units = u64::from((plain & !m.continuation).count_ones())
                    + u64::from((plain & m.four).count_ones());
                return Some((start + first as usize + 1, units + 2, units));
            }
        }
    }
    long(s, start)
}

/// Where a string with no escape ends within 16 bytes of `start` (its
/// closing quote's index); None for any other (the caller looks further).
#[inline]
pub(super) fn short_end(s: &[u8], start: usize) -> Option<usize> {
    let m = blocks::masks16(s.get(start..)?.first_chunk::<16>()?);
    let first = m.quote.trailing_zeros();
    (m.quote != 0 && m.backslash & ((1u64 << first) - 1) == 0).then(|| start + first as usize)
}

fn long(s: &[u8], start: usize) -> Option<(usize, u64, u64)> {
    let (mut plain, mut written, mut parsed) = (0u64, 2u64, 0u64);
    // Hex digits of `\u` escapes, counted as plain bytes by the masks.
    let mut hex = 0u64;
    // The `u` of a surrogate pair's low half, read with its high half.
    let mut low_u = usize::MAX;
    let mut carry = 0;
    let mut at = start;
    loop {
        let rest = s.get(at..)?;
        let m = blocks::masks_at(rest);
        let escaped = blocks::escaped(m.backslash, &mut carry);
        // A run of odd length that ends the block escapes the next one's
        // first byte: its last backslash starts an escape here.
        let starts = (escaped >> 1) | (carry << 63);
        let quotes = m.quote & !escaped;
        let inside = blocks::before_first(quotes);
        if m.control & inside != 0 {
            return None;
        }
        let bytes = inside & !escaped & !starts;
        plain += u64::from((bytes & !m.continuation).count_ones())
            + u64::from((bytes & m.four).count_ones());
        let mut esc = escaped & inside;
        while esc != 0 {
            let p = at + esc.trailing_zeros() as usize;
            esc &= esc - 1;
            if p == low_u {
                continue;
            }
            let (w, one) = match *s.get(p)? {
                b'u' => {
                    hex += 4;
                    let code = hex4(s, p + 1)?;
                    if HIGH.contains(&code) {
                        if s.get(p + 5..p + 7)? != b"\\u" || !LOW.contains(&hex4(s, p + 7)?) {
                            return None;
                        }
                        hex += 4;
                        low_u = p + 6;
                        (2, 2)
                    } else {
                        code_units(code)?
                    }
                }
                c => escape_units(c)?,
            };
            written += w;
            parsed += one;
        }
        if quotes != 0 {
            let plain = plain - hex;
            let end = at + quotes.trailing_zeros() as usize + 1;
            return Some((end, plain + written, plain + parsed));
        }
        if rest.len() <= 64 {
            return None;
        }
        at += 64;
    }
}

/// A surrogate pair's halves.
const HIGH: std::ops::RangeInclusive<u32> = 0xD800..=0xDBFF;
const LOW: std::ops::RangeInclusive<u32> = 0xDC00..=0xDFFF;

/// The (written, parsed) UTF-16 units of a one-character escape `\c`.
fn escape_units(c: u8) -> Option<(u64, u64)> {
    match c {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some((2, 1)),
        b'/' => Some((1, 1)),
        _ => None,
    }
}

/// The (written, parsed) units of `\uXXXX` standing alone (not a surrogate
/// pair's): serde_json writes `\b`, `\t`, `\n`, `\f`, `\r`, `\"` and `\\`
/// as two, another control character as `\u00XX`, anything else as itself.
fn code_units(code: u32) -> Option<(u64, u64)> {
    match code {
        0xD800..=0xDFFF => None,
        0x08 | 0x09 | 0x0A | 0x0C | 0x0D | 0x22 | 0x5C => Some((2, 1)),
        0..0x20 => Some((6, 1)),
        _ => Some((1, 1)),
    }
}

/// Four hex digits at `s[i..]`.
fn hex4(s: &[u8], i: usize) -> Option<u32> {
    s.get(i..i + 4)?.iter().try_fold(0u32, |v, &b| {
        let d = (b as char).to_digit(16)?;
        Some(v << 4 | d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lengths as the scan measured them before, a search per escape:
    /// the reference.
    fn by_search(s: &[u8], start: usize) -> Option<(usize, u64, u64)> {
        let mut i = start;
        let (mut plain, mut written, mut parsed) = (0, 2, 0);
        loop {
            let rest = s.get(i..)?;
            let at = memchr::memchr2(b'"', b'\\', rest)?;
            plain += super::super::plain_units(&rest[..at])?;
            i += at + 1;
            if rest[at] == b'"' {
                return Some((i, plain + written, plain + parsed));
            }
            let c = *s.get(i)?;
            i += 1;
            let (units, one) = if c == b'u' {
                let code = hex4(s, i)?;
                i += 4;
                if HIGH.contains(&code) {
                    if s.get(i..i + 2)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(s, i + 2)?;
                    i += 6;
                    if !LOW.contains(&low) {
                        return None;
                    }
                    (2, 2)
                } else {
                    code_units(code)?
                }
            } else {
                escape_units(c)?
            };
            written += units;
            parsed += one;
        }
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{1,40}",
            "[é€😀\u{1}\u{7f}]{1,4}",
            proptest::sample::select(vec![
                "\\\"",
                "\\\\",
                "\\/",
                "\\b",
                "\\f",
                "\\n",
                "\\r",
                "\\t",
                "\\u0041",
                "\\u00e9",
                "\\u001f",
                "\\u0008",
                "\\u0022",
                "\\u005C",
                "\\ud83d\\ude00",
                "\\uD83D\\uDE00",
                "\\ud83d",
                "\\ude00",
                "\\ud83d\\u0041",
                "\\x",
                "\\u12",
                "\\",
                "\"",
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn blocks_measure_as_the_search_did(
            pieces in proptest::collection::vec(piece(), 0..40),
            lead in 0usize..70,
            close in any::<bool>(),
        ) {
            let body: String = pieces.concat();
            let text = format!("{}\"{body}{}", " ".repeat(lead), if close { "\"," } else { "" });
            let b = text.as_bytes();
            prop_assert_eq!(measure(b, lead + 1), by_search(b, lead + 1), "{:?}", text);
        }
    }

    #[test]
    fn a_short_key_ends_at_its_first_quote_unless_an_escape_comes_first() {
        let line = br#"{"message":{"k\"ey":1},"tail":"0123456789abcdef"}"#;
        assert_eq!(short_end(line, 2), Some(9));
        assert_eq!(short_end(line, 13), None, "an escape before the quote");
        assert_eq!(short_end(b"\"abc\"", 1), None, "fewer than 16 bytes left");
    }

    #[test]
    fn strings_that_cross_block_edges_measure_as_the_search_did() {
        for n in 0..140 {
            for tail in [
                "\\\"",
                "\\\\",
                "\\n",
                "\\u00e9",
                "\\ud83d\\ude00",
                "é",
                "😀",
                "\\\\\\\"",
            ] {
                let text = format!("\"{}{}\"", "a".repeat(n), tail.repeat(9));
                let b = text.as_bytes();
                assert_eq!(measure(b, 1), by_search(b, 1), "{n} {tail}");
                let cut = &b[..b.len() - 1];
                assert_eq!(measure(cut, 1), None, "{n} {tail} unterminated");
            }
        }
    }
}
