//! The page as GitHub-flavoured Markdown, pasteable into an issue (SPEC §12):
//! ids, paths and commands are code spans (what a reader copies is what was
//! recorded, SPEC §15.26), every other transcript string a backslash-escaped
//! text (no link, no HTML, no table cell it can leave); contents are fenced
//! with one backtick more than their longest backtick run and cut at 4,000
//! Unicode scalar values.

use super::*;

/// The page as Markdown.
pub fn page_md(p: &Page) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# mcscope explain — {}\n", code(&p.result.id));
    let _ = writeln!(
        o,
        "**Session** {} — {}  ",
        code(&p.session.path),
        esc(&session_words(&p.session))
    );
    let _ = writeln!(
        o,
        "**Result** {} — {}{} — {}{}\n",
        code(&p.result.id),
        esc(p.result.tool.as_deref().unwrap_or("tool unknown")),
        p.result
            .target
            .as_deref()
            .map_or(String::new(), |t| format!(" {}", code(t))),
        esc(&size_words(&p.result)),
        if p.result.call_in_file {
            ""
        } else {
            " — its call is not in the file"
        }
    );
    let _ = writeln!(o, "## Verdict\n");
    if p.records.is_empty() {
        let _ = writeln!(o, "No record of the transcript names it.\n");
    } else {
        let _ = writeln!(o, "What the transcript proves:\n");
        for r in &p.records {
            let _ = writeln!(
                o,
                "- line {}, {}{}: {}",
                r.line,
                esc(r.kind),
                r.request
                    .map_or(String::new(), |k| format!(" (request {k})")),
                esc(&r.words)
            );
        }
        o.push('\n');
    }
    let _ = writeln!(o, "{}\n", esc(&fate_words(p)));
    if let Some(w) = could_run_words(p) {
        let _ = writeln!(o, "{}\n", esc(&w));
    }
    if !p.runs.is_empty() {
        let _ = writeln!(o, "## Status at every request\n");
        let _ = writeln!(o, "| Requests | Status | Reason |\n|---|---|---|");
        for r in &p.runs {
            let _ = writeln!(
                o,
                "| {} | {} {} | {} |",
                r.requests(),
                esc(r.glyph),
                esc(r.status),
                esc(&r.reason)
            );
        }
        o.push('\n');
    }
    if let Some(f) = &p.first_cleared {
        let _ = writeln!(o, "## Where it first left the wire\n");
        let _ = writeln!(o, "{}\n", esc(&instead_words(f)));
        if let Instead::Text(t) = &f.instead {
            fenced(&mut o, t);
        }
        if f.next_calls.is_empty() {
            let _ = writeln!(o, "The model made no tool call after it.\n");
        } else {
            let _ = writeln!(o, "The model's next tool calls:\n");
            for c in &f.next_calls {
                let _ = writeln!(o, "- {}", esc(&call_words(c)));
            }
            o.push('\n');
        }
        let _ = writeln!(o, "{}\n", esc(&later_words(f)));
    }
    if !p.levers.is_empty() {
        let _ = writeln!(o, "## What you can change\n");
        for l in &p.levers {
            let _ = writeln!(o, "- {}", settings_as_code(l));
        }
        o.push('\n');
    }
    let _ = writeln!(o, "## Original content\n");
    match &p.content {
        Some(t) => fenced(&mut o, t),
        None => {
            let _ = writeln!(o, "No request's view holds it: not shown.\n");
        }
    }
    let _ = writeln!(
        o,
        "<sub>Made by mcscope {} (`mcscope explain --format md`).</sub>",
        env!("CARGO_PKG_VERSION")
    );
    o
}

/// `text` in a fenced block, cut at [`MD_CONTENT_CHARS`] scalar values with
/// the count left out said after it.
fn fenced(o: &mut String, text: &str) {
    let total = text.chars().count();
    let shown: String = text.chars().take(MD_CONTENT_CHARS).collect();
    let fence = "`".repeat(longest_backtick_run(&shown).max(2) + 1);
    let _ = writeln!(o, "{fence}text");
    o.push_str(&shown);
    if !shown.ends_with('\n') {
        o.push('\n');
    }
    let _ = writeln!(o, "{fence}\n");
    if total > MD_CONTENT_CHARS {
        let _ = writeln!(
            o,
            "_{} more characters left out: the page shows the first {} of {}._\n",
            fmt_int((total - MD_CONTENT_CHARS) as u64),
            fmt_int(MD_CONTENT_CHARS as u64),
            fmt_int(total as u64)
        );
    }
}

/// The longest run of backticks in `s`.
pub(super) fn longest_backtick_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A one-line code span: the text as recorded (control characters and line
/// breaks made visible, as everywhere a transcript string meets a screen),
/// between backtick runs one longer than its longest, padded with a space
/// where it starts or ends with a backtick or a space (CommonMark strips one).
pub(super) fn code(s: &str) -> String {
    let s = crate::sanitize::line(s);
    let fence = "`".repeat(longest_backtick_run(&s) + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A one-line text for Markdown: every ASCII punctuation character that can
/// start markup (emphasis, code, links, HTML, entities, table cells, math) is
/// backslash-escaped, so it reads as itself on GitHub.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '['
                | ']'
                | '<'
                | '>'
                | '|'
                | '!'
                | '~'
                | '&'
                | '#'
                | '{'
                | '}'
                | '('
                | ')'
                | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A lever in Markdown: each setting a user types (`DISABLE_MICROCOMPACT=1`,
/// `/clear`) in a code span, the rest escaped (SPEC §15.26: never a
/// backslash-escaped name a reader copies wrong).
fn settings_as_code(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(' ') {
        let core = word
            .trim_start_matches('(')
            .trim_end_matches(['.', ',', ';', ')']);
        let is_setting = core.len() > 2
            && (core.starts_with('/')
                || core.split('=').next().is_some_and(|n| {
                    n.len() > 2
                        && n.contains('_')
                        && n.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                }));
        if is_setting && let Some(at) = word.find(core) {
            let (head, rest) = word.split_at(at);
            let tail = &rest[core.len()..];
            out.push(format!("{}{}{}", esc(head), code(core), esc(tail)));
        } else {
            out.push(esc(word));
        }
    }
    out.join(" ")
}
