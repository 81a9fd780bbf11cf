//! What Cline's context manager reads of one history message (reference §3.2,
//! v4.0.12 `ContextManager.ts`): the text-protocol result headers, the final
//! content of a write, the @-mentioned files, and the characters it counts.

use serde_json::Value;

/// `^\[([^\s]+) for '([^']+)'\] Result:` (reference §3.2): the tool and its
/// argument (the path for file tools).
pub(super) fn header(text: &str) -> Option<(&str, &str, usize)> {
    let rest = text.strip_prefix('[')?;
    let tool_end = rest.find(|c: char| c.is_whitespace() || c == ']')?;
    let tool = &rest[..tool_end];
    if tool.is_empty() {
        return None;
    }
    let rest = rest[tool_end..].strip_prefix(" for '")?;
    let arg_end = rest.find('\'')?;
    let arg = &rest[..arg_end];
    if arg.is_empty() {
        return None;
    }
    let tail = rest[arg_end..].strip_prefix("'] Result:")?;
    let len = text.len() - tail.len();
    Some((tool, arg, len))
}

/// Any text-protocol result header, with or without an argument (`[tool]
/// Result:`, `[tool for 'x'] Result:`): a tool result mcscope lists.
pub(super) fn any_header(text: &str) -> Option<(&str, Option<&str>, usize)> {
    if let Some((tool, arg, len)) = header(text) {
        return Some((tool, Some(arg), len));
    }
    let rest = text.strip_prefix('[')?;
    let tool_end = rest.find(|c: char| c.is_whitespace() || c == ']')?;
    let tool = &rest[..tool_end];
    let tail = rest[tool_end..].strip_prefix("] Result:")?;
    (!tool.is_empty()).then(|| (tool, None, text.len() - tail.len()))
}

/// A block's text as the rule reads it (`getTextFromBlock`: a text block's
/// `text`, a `tool_result`'s string content or its first block's `text`).
pub(super) fn block_text(b: &Value) -> Option<&str> {
    match b.get("type").and_then(Value::as_str) {
        Some("text") => b.get("text").and_then(Value::as_str),
        Some("tool_result") => match b.get("content") {
            Some(Value::String(s)) => Some(s),
            Some(Value::Array(a)) => a
                .first()
                .and_then(|x| x.get("text"))
                .and_then(Value::as_str),
            _ => None,
        },
        _ => None,
    }
}

/// The characters the rule counts of a block (reference §3.2 "percentSaved":
/// a text block's text, a base64 image's data; UTF-16 units, as JavaScript's
/// `length`); None: a block it does not count.
pub(super) fn counted(b: &Value) -> Option<u64> {
    match b.get("type").and_then(Value::as_str) {
        Some("text" | "tool_result") => block_text(b).map(utf16),
        Some("image") => {
            let src = b.get("source")?;
            (src.get("type").and_then(Value::as_str) == Some("base64"))
                .then(|| src.get("data").and_then(Value::as_str).map(utf16))
                .flatten()
        }
        _ => None,
    }
}

/// UTF-16 code units of `s` (JavaScript's `length`).
pub(super) fn utf16(s: &str) -> u64 {
    s.chars().map(|c| c.len_utf16() as u64).sum()
}

/// `<final_file_content path="…">…</final_file_content>` in `text`: the
/// byte span of its inner content (reference §3.2 ALTER_FILE_TOOL).
pub(super) fn final_content(text: &str) -> Option<(usize, usize)> {
    const OPEN: &str = "<final_file_content path=\"";
    const CLOSE: &str = "</final_file_content>";
    let open = text.find(OPEN)?;
    let after_path = open + OPEN.len() + text[open + OPEN.len()..].find('"')?;
    let start = after_path + text[after_path..].find('>')? + 1;
    let end = start + text[start..].find(CLOSE)?;
    Some((start, end))
}

/// Each `<file_content path="P">…</file_content>` of `text` (reference §3.2
/// FILE_MENTION, `/<file_content path="([^"]*)">([\s\S]*?)<\/file_content>/g`):
/// its path and the byte spans of the whole match and of its inner content.
pub(super) fn mentions(text: &str) -> Vec<Mention<'_>> {
    const OPEN: &str = "<file_content path=\"";
    const CLOSE: &str = "</file_content>";
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find(OPEN) {
        let open = at + i;
        let path_start = open + OPEN.len();
        let Some(q) = text[path_start..].find('"') else {
            break;
        };
        let path_end = path_start + q;
        if !text[path_end..].starts_with("\">") {
            at = path_end;
            continue;
        }
        let inner_start = path_end + 2;
        let Some(c) = text[inner_start..].find(CLOSE) else {
            break;
        };
        let inner_end = inner_start + c;
        out.push(Mention {
            path: &text[path_start..path_end],
            whole: (open, inner_end + CLOSE.len()),
            inner: (inner_start, inner_end),
        });
        at = inner_end + CLOSE.len();
    }
    out
}

/// One @-mentioned file in a block's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mention<'a> {
    pub path: &'a str,
    pub whole: (usize, usize),
    pub inner: (usize, usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §3.2: the header, with the result in the same block.
    #[test]
    fn k2_text_protocol_headers() {
        let t = "[read_file for 'src/app.ts'] Result:\nbody";
        assert_eq!(
            header(t),
            Some((
                "read_file",
                "src/app.ts",
                "[read_file for 'src/app.ts'] Result:".len()
            ))
        );
        assert_eq!(header("[attempt_completion] Result:\nx"), None);
        assert_eq!(
            any_header("[attempt_completion] Result:\nx").map(|h| (h.0, h.1)),
            Some(("attempt_completion", None))
        );
        assert_eq!(header("no header"), None);
        assert_eq!(header("[read file for 'x'] Result:"), None);
    }

    /// Reference §3.2: several mentions in one block, each with its path.
    #[test]
    fn k2_mentions_and_final_content() {
        let t = "see <file_content path=\"a.ts\">AAA</file_content> and <file_content path=\"b.ts\">B</file_content>";
        let m = mentions(t);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].path, &t[m[0].inner.0..m[0].inner.1]), ("a.ts", "AAA"));
        assert_eq!((m[1].path, &t[m[1].inner.0..m[1].inner.1]), ("b.ts", "B"));
        let w = "saved.\n<final_file_content path=\"src/app.ts\">\nNEW\n</final_file_content>\n";
        let (s, e) = final_content(w).unwrap();
        assert_eq!(&w[s..e], "\nNEW\n");
        assert_eq!(utf16("é😀"), 3);
    }
}
