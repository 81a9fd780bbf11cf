//! Every string that came from a transcript is attacker-controlled text: a tool
//! result, a `file_path` the model wrote, an id, a model name. Before one reaches a
//! terminal, the clipboard or a page it goes through here (SPEC §15.20), so that an
//! escape sequence can never retitle the terminal, write the clipboard (OSC 52),
//! plant a link (OSC 8) or clear the screen, a C1 byte is never taken as CSI, and a
//! bidi override or zero-width character cannot make `safe<U+202E>txt.exe`
//! read as `safeexe.txt`.
//!
//! - C0 controls but tab and newline, DEL, and C1 (U+0080–U+009F) become visible
//!   escapes: `\e` for ESC, `\xNN` for the rest of C0 and DEL, `\u{9b}` for C1;
//! - in one-line fields (ids, names, paths, models, list rows) newline is escaped
//!   too (`\n`), so one field can never forge a line of output;
//! - the invisible format characters of §15.20 become `⟨U+202E⟩`; a zero-width
//!   joiner between two emoji is kept (it builds one picture, 👩‍💻).
//!
//! The functions are idempotent (what they return needs no escaping) and borrow
//! when nothing needs escaping, which is nearly always.

use std::borrow::Cow;
use std::fmt::Write as _;

/// [`text`] of an owned string, without a copy when nothing needs escaping.
pub fn text_owned(s: String) -> String {
    match text(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(clean) => clean,
    }
}

/// A one-line field (an id, a tool name, a path, a model, a list row): newline and
/// carriage return are escaped with the other controls; tab is kept (§15.20).
pub fn line(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Line)
}

/// A multi-line view (a result's content, a whole text report): newlines and tabs
/// stay, every other control and invisible character is made visible.
pub fn text(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Text)
}

/// What goes on the clipboard: one line with no control character at all, tab
/// included, so a paste can never carry a command line the screen did not show.
pub fn clipboard(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Clipboard)
}

/// Whether `c` is one of the invisible format characters §15.20 shows as
/// `⟨U+XXXX⟩`: the Arabic letter mark, zero-width space/joiners and the marks,
/// the bidi embeddings, overrides and isolates, the word joiner and invisible
/// operators, and the byte order mark.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061C}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{FEFF}')
}

/// The characters JSON output escapes as `\uXXXX` beyond what JSON itself must
/// (§15.20): C1 controls, bidi embeddings and overrides, bidi isolates, and DEL
/// (the one control character JSON lets through). The value is unchanged for a
/// JSON reader; the raw bytes never reach a terminal that shows the JSON.
pub fn json_escapes(c: char) -> bool {
    matches!(c, '\u{7F}'..='\u{9F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Line,
    Text,
    Clipboard,
}

fn needs_escape(c: char, mode: Mode) -> bool {
    match c {
        '\n' => mode != Mode::Text,
        '\t' => mode == Mode::Clipboard,
        c if (c as u32) < 0x20 || ('\u{7F}'..='\u{9F}').contains(&c) => true,
        c => is_invisible(c),
    }
}

fn clean(s: &str, mode: Mode) -> Cow<'_, str> {
    // The fast path: plain text (nearly all of it) is borrowed as it is. A ZWJ
    // between emoji is the one character that may be found here and still kept.
    let Some(first) = s
        .char_indices()
        .find(|&(i, c)| needs_escape(c, mode) && !kept_joiner(s, i, c))
        .map(|(i, _)| i)
    else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for (i, c) in s[first..].char_indices() {
        let i = first + i;
        if !needs_escape(c, mode) || kept_joiner(s, i, c) {
            out.push(c);
            continue;
        }
        match c {
            '\u{1B}' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) <= 0x7F => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0x9F => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => {
                let _ = write!(out, "⟨U+{:04X}⟩", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// A zero-width joiner at byte `i` of `s` with an emoji on each side (an emoji's
/// variation selector or skin tone counts as part of it) is kept.
fn kept_joiner(s: &str, i: usize, c: char) -> bool {
    if c != '\u{200D}' {
        return false;
    }
    let before = s[..i].chars().next_back();
    let after = s[i + c.len_utf8()..].chars().next();
    before.is_some_and(|b| is_emoji(b) || b == '\u{FE0F}') && after.is_some_and(is_emoji)
}

/// The pictographic blocks a ZWJ sequence is built from (Unicode's
/// Extended_Pictographic lies in these blocks), skin tones included.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{00A9}' | '\u{00AE}' | '\u{203C}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
        | '\u{2194}'..='\u{21AA}'
        | '\u{231A}'..='\u{23FF}'
        | '\u{2600}'..='\u{27BF}'
        | '\u{2934}'..='\u{2935}'
        | '\u{2B05}'..='\u{2B55}'
        | '\u{1F000}'..='\u{1FAFF}')
}

/// One-line fields joined by `sep`: a list of ids or paths on one line.
pub fn joined<S: AsRef<str>>(items: impl IntoIterator<Item = S>, sep: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&line(item.as_ref()));
    }
    out
}

/// A path as a one-line field.
pub fn path(p: &std::path::Path) -> String {
    line(&p.to_string_lossy()).into_owned()
}

/// Pretty JSON as serde_json prints it, with the characters of [`json_escapes`]
/// written as `\uXXXX` (§15.20): the same values for any JSON reader.
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> String {
    pretty_with(value, json_escapes)
}

/// Pretty JSON for a screen (the TUI's request bodies): every character a text
/// view would make visible is written as `\uXXXX` too (zero-width and other
/// invisible characters, DEL), so the JSON shown is both valid and visible.
pub fn json_pretty_visible<T: serde::Serialize + ?Sized>(value: &T) -> String {
    pretty_with(value, |c| json_escapes(c) || is_invisible(c))
}

fn pretty_with<T: serde::Serialize + ?Sized>(value: &T, escape: fn(char) -> bool) -> String {
    let mut out = Vec::with_capacity(1024);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SafeJson::new(escape, b"\n"));
    // Writing to a Vec fails only when the value refuses to serialize, which
    // the report types never do; that prints nothing, as `to_string_pretty` did.
    if value.serialize(&mut ser).is_err() {
        out.clear();
    }
    // serde_json writes UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

/// One line of JSON (NDJSON), with [`json_pretty`]'s escapes.
pub fn json_line<T: serde::Serialize + ?Sized>(value: &T) -> String {
    struct Compact;
    impl serde_json::ser::Formatter for Compact {
        fn write_string_fragment<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            fragment: &str,
        ) -> std::io::Result<()> {
            let mut from = 0;
            for (i, c) in fragment.char_indices() {
                if json_escapes(c) {
                    w.write_all(&fragment.as_bytes()[from..i])?;
                    write!(w, "\\u{:04x}", c as u32)?;
                    from = i + c.len_utf8();
                }
            }
            w.write_all(&fragment.as_bytes()[from..])
        }
    }
    let mut out = Vec::with_capacity(512);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Compact);
    if value.serialize(&mut ser).is_err() {
        out.clear();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// [`json_pretty`] into a writer.
pub fn json_pretty_to<W: std::io::Write, T: serde::Serialize + ?Sized>(
    out: W,
    value: &T,
) -> serde_json::Result<()> {
    json_pretty_nested(out, value, b"\n")
}

/// [`json_pretty`] into a writer, as a value nested inside a larger pretty
/// document: every line break is `newline` (a newline and the padding of the
/// value's depth), so the value reads as if the whole document were printed.
pub fn json_pretty_nested<W: std::io::Write, T: serde::Serialize + ?Sized>(
    out: W,
    value: &T,
    newline: &[u8],
) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, SafeJson::new(json_escapes, newline));
    value.serialize(&mut ser)
}

/// serde_json's pretty layout (two spaces a level), with the `escape`
/// characters written as `\uXXXX` in strings and each line break written as
/// `newline`. serde_json hands a string to the formatter in fragments that need
/// no JSON escape; those are the only place the extra escapes can be needed.
/// Every character escaped is in the Basic Multilingual Plane.
struct SafeJson<'a> {
    escape: fn(char) -> bool,
    newline: &'a [u8],
    depth: usize,
    has_value: bool,
}

impl<'a> SafeJson<'a> {
    fn new(escape: fn(char) -> bool, newline: &'a [u8]) -> Self {
        SafeJson {
            escape,
            newline,
            depth: 0,
            has_value: false,
        }
    }

    /// A line break and the padding of the current depth.
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        const PAD: &[u8] = b"                                                                ";
        if comma {
            w.write_all(b",")?;
        }
        w.write_all(self.newline)?;
        let mut n = self.depth * 2;
        while n > 0 {
            let k = n.min(PAD.len());
            w.write_all(&PAD[..k])?;
            n -= k;
        }
        Ok(())
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, c: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(c)
    }
}

impl serde_json::ser::Formatter for SafeJson<'_> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // Every character escaped is DEL or beyond: a fragment of printable
        // ASCII (nearly every one: ids, names, times) is written whole.
        let wide = fragment
            .as_bytes()
            .iter()
            .fold(0u8, |a, &b| a | b.wrapping_add(1))
            & 0x80;
        if wide == 0 {
            return w.write_all(fragment.as_bytes());
        }
        let mut from = 0;
        for (i, c) in fragment.char_indices() {
            if (self.escape)(c) {
                w.write_all(&fragment.as_bytes()[from..i])?;
                write!(w, "\\u{:04x}", c as u32)?;
                from = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[from..])
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `s` for HTML text and attribute values: with `&`, `<`, `>` and `"` escaped.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(line("toolu_01ABC /src/main.rs"), Cow::Borrowed(_)));
        assert!(matches!(text("a\n\tb"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_become_visible() {
        // OSC 52 (clipboard), OSC 0 (title), CSI clear screen, a C1 CSI, DEL.
        let hostile =
            "\u{1b}]52;c;cm0gLXJmIH4=\u{07}x\u{1b}]0;PWNED\u{1b}\\\u{1b}[2J\u{9b}31m\u{7f}";
        let shown = line(hostile);
        assert_eq!(
            shown,
            "\\e]52;c;cm0gLXJmIH4=\\x07x\\e]0;PWNED\\e\\\\e[2J\\u{9b}31m\\x7f"
        );
        assert!(!shown.chars().any(|c| c.is_control()));
    }

    #[test]
    fn newline_is_escaped_in_one_line_fields_only() {
        let id = "toolu_01ABC\ncurl x | sh\n";
        assert_eq!(line(id), "toolu_01ABC\\ncurl x | sh\\n");
        assert_eq!(text(id), id);
        assert_eq!(line("a\tb\r"), "a\tb\\r");
        assert_eq!(clipboard("a\tb\nc"), "a\\tb\\nc");
    }

    #[test]
    fn invisible_characters_are_named() {
        assert_eq!(line("safe\u{202E}txt.exe"), "safe⟨U+202E⟩txt.exe");
        assert_eq!(
            line("a\u{200B}b\u{FEFF}\u{2066}"),
            "a⟨U+200B⟩b⟨U+FEFF⟩⟨U+2066⟩"
        );
        assert_eq!(text("\u{061C}\u{2064}"), "⟨U+061C⟩⟨U+2064⟩");
    }

    #[test]
    fn a_joiner_between_emoji_is_kept() {
        let coder = "👩\u{200D}💻";
        assert_eq!(line(coder), coder);
        let heart_fire = "❤\u{FE0F}\u{200D}🔥";
        assert_eq!(line(heart_fire), heart_fire);
        assert_eq!(line("a\u{200D}b"), "a⟨U+200D⟩b");
        assert_eq!(line("👩\u{200D}"), "👩⟨U+200D⟩");
    }

    #[test]
    fn idempotent() {
        let hostile = "\u{1b}[31m\u{202E}x\ny\u{9b}\u{0}";
        for f in [line, text, clipboard] {
            let once = f(hostile).into_owned();
            assert_eq!(f(&once), once);
        }
    }

    #[test]
    fn json_escapes_c1_and_bidi_and_keeps_the_value() {
        let v = serde_json::json!({"id": "a\u{9b}b\u{202E}c\u{2066}\"\u{1b}é", "n": [1, 2]});
        let printed = json_pretty(&v);
        assert!(
            printed.contains(r#""a\u009bb\u202ec\u2066\"\u001bé""#),
            "{printed}"
        );
        assert!(!printed.chars().any(|c| c.is_control() && c != '\n'));
        let back: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, v);
        // Layout exactly as serde_json's own pretty printer.
        let plain = serde_json::json!({"a": [1, {"b": "x"}], "c": {}});
        assert_eq!(
            json_pretty(&plain),
            serde_json::to_string_pretty(&plain).unwrap()
        );
    }

    #[test]
    fn json_escape_set() {
        assert!(json_escapes('\u{9b}') && json_escapes('\u{202E}') && json_escapes('\u{2069}'));
        assert!(!json_escapes('\u{200B}') && !json_escapes('é'));
    }
}
