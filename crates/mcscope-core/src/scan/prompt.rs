//! The first prompt of a session in words: a slash command by its name, the
//! text on one line.

use super::*;

pub(super) fn trim(mut b: &[u8]) -> &[u8] {
    while let [rest @ .., last] = b
        && last.is_ascii_whitespace()
    {
        b = rest;
    }
    while let [first, rest @ ..] = b
        && first.is_ascii_whitespace()
    {
        b = rest;
    }
    b
}

/// A JSON string's text (None: the value is absent or not a string).
pub(crate) use crate::load::raw::string as str_of;

pub(super) enum Prompt {
    Typed(String),
    Command(String),
}

/// The prompt a user typed, on one line; a slash command as `/name args`; None
/// for the harness's own text (caveats, command output, reminders, interrupts).
pub(super) fn prompt_of(text: &str) -> Option<Prompt> {
    let t = text.trim_start();
    if t.starts_with("<command-") {
        let name = between(t, "<command-name>", "</command-name>")?;
        let args = between(t, "<command-args>", "</command-args>").unwrap_or("");
        let name = if name.starts_with('/') {
            name.to_string()
        } else {
            format!("/{name}")
        };
        return Some(Prompt::Command(one_line(&format!("{name} {args}"))));
    }
    const HARNESS: &[&str] = &[
        "<local-command-",
        "<ide_",
        "<system-reminder>",
        "<bash-",
        "<user-prompt-submit-hook>",
        "Caveat:",
        "[Request interrupted",
        "This session is being continued",
    ];
    if t.is_empty() || HARNESS.iter().any(|h| t.starts_with(h)) {
        return None;
    }
    Some(Prompt::Typed(one_line(t)))
}

pub(super) fn between<'a>(t: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = t.find(open)? + open.len();
    let end = t[start..].find(close)? + start;
    Some(t[start..end].trim())
}

/// Whitespace runs (newlines included) as one space, at most [`PROMPT_MAX`] chars.
fn one_line(t: &str) -> String {
    let mut out = String::new();
    for (i, word) in t.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() >= PROMPT_MAX {
            return out.chars().take(PROMPT_MAX).collect();
        }
    }
    out
}
