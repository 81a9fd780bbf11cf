//! The README and the docs cannot drift: every command block of README.md and of
//! every page of docs/ that shows output (a fenced block whose lines start with
//! `$ mcscope …`, each followed by what it prints) is run again with the real
//! binary, in the crate's folder, and compared with what the page shows. An example
//! moved from the README into docs/ stays checked.
//!
//! - A block is compared whole: every line, in order, nothing left out (trailing
//!   spaces aside, which editors strip).
//! - A command whose line ends with a comment holding `abridged` (`# abridged`,
//!   `# abridged: long paths shortened`) shows only some of what it prints: each
//!   line it keeps must appear in the output, in order. In such a block a line of
//!   only `…` (or `...`) marks left-out lines, `…` inside a line stands for text
//!   left out of it, and runs of spaces count as one (the columns of a table close
//!   up when rows are left out).
//! - `$MCSCOPE_CORPUS` in a command is the corpus (tests/common/corpus.rs); without
//!   it the example is skipped with a note (a failure under
//!   `MCSCOPE_REQUIRE_CORPUS=1`).
//!
//! The binary runs with no configuration file (`MCSCOPE_CONFIG` names a file that
//! does not exist), a fresh `HOME` and no harness folders from the environment, so
//! what the README shows is what a new user sees.
//!
//! The README is a front page of at most 250 lines: the two commands, what mcscope
//! shows, the three questions, each harness with its sample, a few examples, the
//! crates and the tests; everything else lives in docs/.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One `$ mcscope …` line of a page with the output it shows.
#[derive(Debug)]
struct Example {
    /// The page's line of the command (1-based), for messages.
    line: usize,
    /// The command as written, continuation lines joined, comment removed.
    command: String,
    abridged: bool,
    shown: Vec<String>,
}

/// A page of the repository by its path in it.
fn page(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// README.md, then every page of docs/ by name.
fn pages() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut docs: Vec<String> = std::fs::read_dir(&dir)
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    let mut pages = vec!["README.md".to_string()];
    pages.extend(docs);
    pages
}

/// The examples of every fenced block that holds a `$ mcscope` line.
fn examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with("```") {
            i += 1;
            continue;
        }
        // A fenced block: its lines up to the closing fence.
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        let block = &lines[start..end.min(lines.len())];
        if block.iter().any(|l| l.starts_with("$ mcscope")) {
            out.extend(block_examples(block, start + 1));
        }
        i = end + 1;
    }
    out
}

/// A command block's examples; `first_line` is the page's line of `block[0]`.
fn block_examples(block: &[&str], first_line: usize) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut j = 0;
    assert!(
        block[0].starts_with("$ "),
        "line {first_line}: a command block starts with its `$ mcscope` line"
    );
    while j < block.len() {
        let line = block[j];
        if let Some(cmd) = line.strip_prefix("$ ") {
            // The command, continued while a line ends with `\`.
            let mut command = cmd.to_string();
            while command.trim_end().ends_with('\\') && j + 1 < block.len() {
                let cut = command.trim_end().len() - 1;
                command.truncate(cut);
                j += 1;
                command.push(' ');
                command.push_str(block[j].trim());
            }
            let (command, comment) = split_comment(&command);
            out.push(Example {
                line: first_line + j,
                command: command.trim().to_string(),
                abridged: comment.is_some_and(|c| c.contains("abridged")),
                shown: Vec::new(),
            });
        } else if let Some(ex) = out.last_mut() {
            ex.shown.push(line.trim_end().to_string());
        }
        j += 1;
    }
    out
}

/// A command and its shell comment (` # …` outside quotes), if any.
fn split_comment(cmd: &str) -> (String, Option<String>) {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in cmd.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => {
                return (cmd[..i].to_string(), Some(cmd[i..].to_string()));
            }
            None => {}
        }
        prev = c;
    }
    (cmd.to_string(), None)
}

/// Shell words: single quotes literal, double quotes and bare words with
/// `$MCSCOPE_CORPUS` expanded, a backslash outside quotes escaping the next
/// character.
fn words(cmd: &str, corpus: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    let expand = |w: &mut String| {
        if w.contains("$MCSCOPE_CORPUS") {
            *w = w.replace("$MCSCOPE_CORPUS", corpus);
        }
    };
    let mut pending = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    word.push(d);
                }
            }
            '"' => {
                in_word = true;
                pending.clear();
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                    pending.push(d);
                }
                expand(&mut pending);
                word.push_str(&pending);
            }
            '\\' => {
                in_word = true;
                if let Some(d) = chars.next() {
                    word.push(d);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    expand(&mut word);
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        expand(&mut word);
        out.push(word);
    }
    out
}

/// What the command prints to someone at a terminal: stdout, then stderr.
fn run(args: &[String], home: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("MCSCOPE_CONFIG", home.join("no-config.toml"))
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("QWEN_RUNTIME_DIR")
        .env_remove("QWEN_CODE_MEMORY_LOCAL")
        .env("NO_COLOR", "1")
        // README examples show UTC times (the display zone is the system's).
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .expect("run mcscope");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Runs of whitespace as one space, ends trimmed.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether an output line is the abridged `shown` line: spaces squeezed, `…`
/// standing for any text (itself included).
fn matches_abridged(shown: &str, line: &str) -> bool {
    let (shown, line) = (squeeze(shown), squeeze(line));
    let pieces: Vec<&str> = shown.split('…').collect();
    if pieces.len() == 1 {
        return shown == line;
    }
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

fn is_elision(line: &str) -> bool {
    matches!(line.trim(), "…" | "...")
}

/// None when the output is what the example shows, else why not.
fn check(ex: &Example, actual: &[String]) -> Option<String> {
    if !ex.abridged {
        let shown: Vec<&str> = ex.shown.iter().map(String::as_str).collect();
        let mut shown = shown;
        while shown.last().is_some_and(|l| l.is_empty()) {
            shown.pop();
        }
        if shown.iter().any(|l| is_elision(l)) {
            return Some(
                "the block leaves lines out (a `…` line) but its command does not say `# abridged`"
                    .into(),
            );
        }
        let n = shown.len().max(actual.len());
        for k in 0..n {
            let (s, a) = (shown.get(k).copied(), actual.get(k).map(String::as_str));
            if s != a {
                return Some(format!(
                    "output line {}: the page shows {:?}, the binary prints {:?}",
                    k + 1,
                    s.unwrap_or("<nothing>"),
                    a.unwrap_or("<nothing>")
                ));
            }
        }
        return None;
    }
    let mut from = 0;
    for s in ex.shown.iter().filter(|l| !is_elision(l) && !l.is_empty()) {
        match actual[from..].iter().position(|a| matches_abridged(s, a)) {
            Some(at) => from += at + 1,
            None => {
                return Some(format!(
                    "the kept line {s:?} is not in the output (after output line {from})"
                ));
            }
        }
    }
    None
}

#[test]
fn every_command_block_of_the_readme_and_the_docs_prints_what_it_shows() {
    let mut all: Vec<(String, Example)> = Vec::new();
    for rel in pages() {
        let found = examples(&page(&rel));
        // The README keeps a few short examples on the front page; finding none
        // means this reader lost them, not that the README is right.
        if rel == "README.md" {
            assert!(
                found.len() >= 3,
                "README.md: found only {} command blocks",
                found.len()
            );
        }
        all.extend(found.into_iter().map(|ex| (rel.clone(), ex)));
    }
    // The README and the docs show a dozen and more commands with their output.
    assert!(all.len() >= 10, "found only {} command blocks", all.len());
    let home = tempfile::tempdir().expect("a temp HOME");
    let corpus_dir = corpus::location();
    let corpus_str = corpus_dir.to_string_lossy().into_owned();
    let mut failures = Vec::new();
    for (rel, ex) in &all {
        let args = words(&ex.command, &corpus_str);
        assert_eq!(
            args.first().map(String::as_str),
            Some("mcscope"),
            "{rel}:{}: a `$` line runs mcscope",
            ex.line
        );
        if ex.command.contains("$MCSCOPE_CORPUS") {
            let needed: Vec<PathBuf> = args
                .iter()
                .filter_map(|a| a.strip_prefix(corpus_str.as_str()))
                .map(|rel| PathBuf::from(rel.trim_start_matches('/')))
                .collect();
            if needed
                .iter()
                .any(|rel| corpus::file(&rel.to_string_lossy()).is_none())
            {
                eprintln!("note: {rel}:{} needs the corpus; skipped", ex.line);
                continue;
            }
        }
        let actual = run(&args[1..], home.path());
        if let Some(why) = check(ex, &actual) {
            failures.push(format!(
                "{rel}:{}: `{}`{}\n  {why}\n  the binary prints:\n{}",
                ex.line,
                ex.command,
                if ex.abridged { " (abridged)" } else { "" },
                actual
                    .iter()
                    .map(|l| format!("    {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples drifted:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

/// The most lines the README may hold: past it, material belongs in a page of docs/.
const README_MAX_LINES: usize = 250;

#[test]
fn the_readme_is_a_front_page_of_at_most_250_lines() {
    let lines = page("README.md").lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; a front page holds at most {README_MAX_LINES}: move reference material into docs/ and link it"
    );
}

#[test]
fn the_reader_finds_commands_comments_and_abridged_blocks() {
    let text = "intro\n```\n$ mcscope plan a.jsonl --policy idle\nline one\n\n```\n\
                ```sh\nmcscope not shown\n```\n\
                ```\n$ mcscope plan 'b c.jsonl' \\\n    --memory-root 'user=C:\\x'   # abridged: short\n…\n  kept  row\n$ mcscope timeline x # two\nrow\n```\n";
    let ex = examples(text);
    assert_eq!(ex.len(), 3, "{ex:?}");
    assert_eq!(ex[0].command, "mcscope plan a.jsonl --policy idle");
    assert_eq!(ex[0].line, 3);
    assert!(!ex[0].abridged);
    assert_eq!(ex[0].shown, ["line one", ""]);
    assert!(ex[1].abridged);
    assert_eq!(
        words(&ex[1].command, "/c"),
        [
            "mcscope",
            "plan",
            "b c.jsonl",
            "--memory-root",
            "user=C:\\x"
        ]
    );
    assert!(!ex[2].abridged);
    assert_eq!(
        words("mcscope evidence \"$MCSCOPE_CORPUS\"/a/b.jsonl", "/corpus"),
        ["mcscope", "evidence", "/corpus/a/b.jsonl"]
    );
}

#[test]
fn whole_blocks_must_match_exactly_and_abridged_ones_in_order() {
    let ex = |abridged, shown: &[&str]| Example {
        line: 1,
        command: "mcscope x".into(),
        abridged,
        shown: shown.iter().map(|s| s.to_string()).collect(),
    };
    let out: Vec<String> = ["head", "  1  a   kept", "  2  b   cleared", "tail"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // Whole: one line missing, one extra, or one changed is drift.
    assert!(
        check(
            &ex(
                false,
                &["head", "  1  a   kept", "  2  b   cleared", "tail"]
            ),
            &out
        )
        .is_none()
    );
    assert!(check(&ex(false, &["head", "  1  a   kept", "tail"]), &out).is_some());
    assert!(
        check(
            &ex(
                false,
                &["head", "  1  a   kept", "  2  b   cleared", "tail", "x"]
            ),
            &out
        )
        .is_some()
    );
    assert!(check(&ex(false, &["head", "…", "tail"]), &out).is_some());
    // Abridged: kept lines in order, spaces squeezed, `…` as left-out text.
    assert!(check(&ex(true, &["head", "…", "2 b cleared"]), &out).is_none());
    assert!(check(&ex(true, &["  2  b…", "tail"]), &out).is_none());
    assert!(check(&ex(true, &["tail", "head"]), &out).is_some());
    assert!(check(&ex(true, &["  3  c   kept"]), &out).is_some());
}
