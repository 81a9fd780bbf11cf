//! Record fields read the way a careful reader reads untrusted numbers and id
//! lists: a value of the wrong shape is never taken as 0 or as "none" without a
//! word. The readers say what they found, and the loaders keep the record, make
//! the field unknown and attach a warning (SPEC §15.2 `session.warnings`).
//!
//! Shared by the Claude and Qwen loaders (it lives here so that the loader's
//! module list stays as it is).

use super::super::raw::{self, Raw};

/// The `id` of every warning these readers give (SPEC §15.2).
pub(in crate::load) const MALFORMED: &str = "malformed_record_field";

/// A token counter as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::load) enum Count {
    /// Absent or `null`: not recorded.
    Absent,
    Value(u64),
    /// Anything but a whole number from 0 to 2^64 − 1, described in words.
    Malformed(String),
}

/// Reads a counter: only a plain JSON integer that fits in a u64 counts. A
/// float (`1.5`, `100.0`), a negative number or one past u64 (which JSON parsers
/// read as a float) is malformed rather than rounded, clamped or dropped.
pub(in crate::load) fn count(v: Raw<'_>) -> Count {
    let Some(v) = v else {
        return Count::Absent;
    };
    let text = v.get().trim();
    if text == "null" {
        return Count::Absent;
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<u64>() {
            Ok(n) => Count::Value(n),
            Err(_) => Count::Malformed(format!("{} (past 2^64 - 1)", short_number(text))),
        };
    }
    Count::Malformed(describe(v))
}

/// A token count in a parsed record (the Gemini CLI and OpenCode loaders):
/// absent or null is none; only a whole number from 0 to 2^64 − 1 is a
/// count; anything else is described in words (a number is shown, text is
/// not), never read as 0.
pub(in crate::load) fn count_value(v: Option<&serde_json::Value>) -> Result<Option<u64>, String> {
    use serde_json::Value;
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_i64()) {
            (Some(x), _) => Ok(Some(x)),
            (None, Some(neg)) => Err(format!("a negative number ({neg})")),
            _ => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                let text = short_number(&n.to_string());
                if x < 0.0 {
                    Err(format!("a negative number ({text})"))
                } else if x.fract() == 0.0 && x >= 18_446_744_073_709_551_615.0 {
                    Err(format!("a number past 2^64 ({text})"))
                } else {
                    Err(format!("a fractional number ({text})"))
                }
            }
        },
        Some(Value::String(_)) => Err("a string".into()),
        Some(Value::Bool(_)) => Err("a boolean".into()),
        Some(Value::Array(_)) => Err("an array".into()),
        Some(Value::Object(_)) => Err("an object".into()),
    }
}

/// The counts of a parsed record's `tokens` (JSON pointers into it, `fields`)
/// that are of the wrong shape: one warning each, the record named by
/// `whose` (`response r1`, `message msg_1`); a `tokens` that is no object,
/// one warning. The Gemini CLI and OpenCode loaders make that usage unknown.
pub(in crate::load) fn count_warnings(
    tokens: Option<&serde_json::Value>,
    fields: &[&str],
    whose: &str,
) -> Vec<String> {
    let whose = crate::sanitize::line(whose);
    match tokens {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(t) if !t.is_object() => {
            vec![format!(
                "tokens of {whose} is not an object; its usage is unknown"
            )]
        }
        Some(t) => fields
            .iter()
            .filter_map(|p| {
                count_value(t.pointer(p)).err().map(|what| {
                    format!(
                        "tokens.{} of {whose} is {what}, not a token count; its usage is unknown",
                        p.trim_start_matches('/').replace('/', ".")
                    )
                })
            })
            .collect(),
    }
}

/// Whether any of those counts is of the wrong shape (the usage is unknown).
pub(in crate::load) fn counts_malformed(tokens: &serde_json::Value, fields: &[&str]) -> bool {
    fields
        .iter()
        .any(|p| count_value(tokens.pointer(p)).is_err())
}

/// What a value of the wrong shape is, in words. Numbers are ASCII and shown
/// (shortened); strings and containers are named by kind only, so no text of
/// the transcript is repeated.
pub(in crate::load) fn describe(v: raw::Json<'_>) -> String {
    let text = v.get().trim();
    match text.bytes().next() {
        Some(b'"') => "a string".into(),
        Some(b'{') => "an object".into(),
        Some(b'[') => "an array".into(),
        Some(b't' | b'f') => "a boolean".into(),
        Some(b'n') => "null".into(),
        Some(b'-') => format!("a negative number ({})", short_number(text)),
        _ if text.contains(['.', 'e', 'E']) => {
            format!("a fractional number ({})", short_number(text))
        }
        _ if text.parse::<u64>().is_err() => {
            format!("a number past 2^64 ({})", short_number(text))
        }
        _ => format!("a number ({})", short_number(text)),
    }
}

fn short_number(text: &str) -> String {
    const MAX: usize = 32;
    if text.len() <= MAX {
        text.to_string()
    } else {
        // A JSON number is ASCII: any byte is a char boundary.
        format!("{}…", &text[..MAX])
    }
}

/// Whether a value is a number above 0 as written, a malformed one included:
/// `preTokens > 0` tells a budget record from a cached one (SPEC §10), and
/// `1.5` or `2e19` is above 0 even though it is no token count.
pub(in crate::load) fn positive_number(v: Raw<'_>) -> bool {
    let Some(text) = v.map(|v| v.get().trim()) else {
        return false;
    };
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b))
}

/// A list of ids as recorded (`compactedToolIds`): the string ids in order, and
/// how many entries were not strings (None when the value is not a list at all).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(in crate::load) struct Ids {
    pub ids: Vec<String>,
    /// Entries that are not strings; None: the list itself could not be read.
    pub unread: Option<usize>,
}

pub(in crate::load) fn ids(v: Raw<'_>) -> Ids {
    let Some(list) = v.filter(|v| v.get().trim_start().starts_with('[')) else {
        return Ids {
            ids: Vec::new(),
            unread: None,
        };
    };
    let elements = raw::elements(Some(list));
    let ids: Vec<String> = elements
        .iter()
        .filter_map(|e| raw::owned(Some(*e)))
        .collect();
    Ids {
        unread: Some(elements.len() - ids.len()),
        ids,
    }
}

/// Collects warnings for one record: `field: what it was; what mcscope did`.
#[derive(Debug, Default)]
pub(in crate::load) struct Warnings(pub Vec<String>);

impl Warnings {
    /// The counter's value; a malformed one is warned about and unknown.
    pub(in crate::load) fn count(&mut self, field: &str, v: Raw<'_>, then: &str) -> Option<u64> {
        match count(v) {
            Count::Absent => None,
            Count::Value(n) => Some(n),
            Count::Malformed(what) => {
                self.0
                    .push(format!("{field} is {what}, not a token count; {then}"));
                None
            }
        }
    }

    pub(in crate::load) fn push(&mut self, text: String) {
        self.0.push(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> raw::Json<'static> {
        raw::test_json(s)
    }

    #[test]
    fn only_whole_numbers_that_fit_are_counts() {
        let c = |s: &str| count(Some(raw(s)));
        assert_eq!(c("0"), Count::Value(0));
        assert_eq!(c("18446744073709551615"), Count::Value(u64::MAX));
        assert_eq!(count(None), Count::Absent);
        assert_eq!(c("null"), Count::Absent);
        for bad in [
            "1.5",
            "100.0",
            "-3",
            "18446744073709551616",
            "1e3",
            "\"5\"",
            "[]",
            "true",
        ] {
            assert!(matches!(c(bad), Count::Malformed(_)), "{bad}");
        }
        assert_eq!(
            c("18446744073709551616"),
            Count::Malformed("18446744073709551616 (past 2^64 - 1)".into())
        );
        assert_eq!(c("-3"), Count::Malformed("a negative number (-3)".into()));
        // A string's text is never repeated.
        assert_eq!(
            c("\"\\u001b]52;c;x\\u0007\""),
            Count::Malformed("a string".into())
        );
    }

    #[test]
    fn positive_numbers_as_written() {
        let p = |s: &str| positive_number(Some(raw(s)));
        for yes in ["1", "0.5", "2e19", "18446744073709551616", "100.0"] {
            assert!(p(yes), "{yes}");
        }
        for no in ["0", "0.0", "0e5", "-3", "\"5\"", "null", "[1]"] {
            assert!(!p(no), "{no}");
        }
        assert!(!positive_number(None));
    }

    #[test]
    fn id_lists_keep_the_strings_and_count_the_rest() {
        let l = |s: &str| ids(Some(raw(s)));
        assert_eq!(
            l(r#"["a", 5, "b", null, {"x":1}]"#),
            Ids {
                ids: vec!["a".into(), "b".into()],
                unread: Some(3)
            }
        );
        assert_eq!(l(r#"[]"#).unread, Some(0));
        assert_eq!(l(r#""a""#).unread, None);
        assert_eq!(ids(None).unread, None);
    }
}
