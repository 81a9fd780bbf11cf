//! A page per answer (SPEC §12, §15.20, §15.25): `mcscope explain PATH ID
//! --format md|html [-o FILE]` through the real binary. The Markdown is parsed
//! as GitHub would (pulldown-cmark with tables): its status table holds one row
//! per run of identical requests and its fences hold the content; a hostile id
//! and content (backticks, `</details>`, `<script>`, escape sequences, a pipe)
//! never make markup; the HTML is loaded in headless Chromium (with
//! `MCSCOPE_REQUIRE_CHROMIUM=1`, as tests/compare_html.rs); `-o` refuses a
//! transcript and a harness folder.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::Claude;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The hostile id: a backtick run, a table pipe, markup, an escape sequence.
const ID: &str = "toolu_`|x|`</details><script>alert(1)</script>\u{1b}[2J";

/// The hostile content: a longer backtick run than any fence would pick by
/// default, the end of the HTML fold, a script, a terminal escape, and enough
/// to be cut at 4,000 characters.
fn content() -> String {
    format!(
        "````` not a fence end\n</details><script>alert('x')</script>\n| a | b |\n\u{1b}]52;c;cm0=\u{7}\n{}",
        "z".repeat(4_500)
    )
}

/// A session where `ID` (a Read of /repo/a.rs) is kept by idle for ten
/// requests in the loop (gap under a minute: ten identical rows), then cleared
/// by idle after a 70-minute gap (keep 1), after which the model reads the same
/// file again (later_used) and runs `make`.
fn session(dir: &Path) -> PathBuf {
    let mut c = Claude::default();
    c.prompt("look at a.rs", 0.0)
        .call(ID, "Read", json!({"file_path": "/repo/a.rs"}))
        .result(ID, &content());
    for i in 0..9 {
        c.bash(&format!("toolu_b{i}"), 100);
    }
    c.answer("done").prompt("again", 70.0);
    c.calls(
        "msg_again",
        &[
            ("toolu_r2", "Read", json!({"file_path": "/repo/a.rs"})),
            ("toolu_m", "Bash", json!({"command": "make"})),
        ],
    )
    .result("toolu_r2", "again")
    .result("toolu_m", "ok");
    c.write(dir, "s.jsonl")
}

fn mcscope(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("MCSCOPE_CONFIG")
        .env("TZ", "UTC")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn ok(args: &[&str], home: &Path) -> String {
    let out = mcscope(args, home);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The page's parts as GitHub reads them.
#[derive(Default, Debug)]
struct Md {
    heading: String,
    /// Every table's rows (the header first), each row's cells' text.
    tables: Vec<Vec<Vec<String>>>,
    /// Fenced code blocks: (info string, text).
    fences: Vec<(String, String)>,
    html: Vec<String>,
    text: String,
}

fn parse(md: &str) -> Md {
    let mut out = Md::default();
    let (mut in_heading, mut in_fence, mut in_cell) = (false, false, false);
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match ev {
            Event::Start(Tag::Heading { .. }) if out.heading.is_empty() => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::Table(_)) => out.tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                out.tables.last_mut().unwrap().push(Vec::new())
            }
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                let row = out.tables.last_mut().unwrap().last_mut().unwrap();
                row.push(String::new());
            }
            Event::End(TagEnd::TableCell) => in_cell = false,
            Event::Start(Tag::CodeBlock(kind)) => {
                in_fence = true;
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.to_string(),
                    CodeBlockKind::Indented => "(indented)".into(),
                };
                out.fences.push((info, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => in_fence = false,
            Event::Html(h) | Event::InlineHtml(h) => out.html.push(h.to_string()),
            Event::Text(t) | Event::Code(t) => {
                if in_heading {
                    out.heading.push_str(&t);
                }
                if in_fence {
                    out.fences.last_mut().unwrap().1.push_str(&t);
                } else if in_cell {
                    let row = out.tables.last_mut().unwrap().last_mut().unwrap();
                    row.last_mut().unwrap().push_str(&t);
                }
                out.text.push_str(&t);
            }
            Event::SoftBreak | Event::HardBreak => out.text.push(' '),
            _ => {}
        }
    }
    out
}

/// The id and the content as the page shows them: sanitized (§15.20).
fn shown_id() -> String {
    mcscope::sanitize::line(ID).into_owned()
}

/// SPEC §12, §15.25: the Markdown page in §12's order renders on GitHub: the
/// heading is the id as text, the status table folds runs of identical rows
/// ("requests 2–11: kept"), the placeholder and the content are fenced (the
/// content cut at 4,000 scalar values in a fence longer than its longest
/// backtick run, the count left out said), later_used names the new Read.
#[test]
fn t12_markdown_page_renders_with_its_table_and_fences() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let s = s.to_str().unwrap();
    let args = [
        "explain",
        s,
        ID,
        "--format",
        "md",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
    ];
    let md = ok(&args, dir.path());
    let page = parse(&md);
    assert_eq!(page.heading, format!("mcscope explain — {}", shown_id()));
    // The only HTML is the page's own footer.
    assert_eq!(page.html, ["<sub>", "</sub>"]);
    // §12's order.
    let at = |needle: &str| {
        md.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    };
    assert!(at("**Session**") < at("## Verdict"));
    assert!(at("## Verdict") < at("## Status at every request"));
    assert!(at("## Status at every request") < at("## Where it first left the wire"));
    assert!(at("## Where it first left the wire") < at("## Original content"));
    // The session by its path relative to HOME (the temp folder here).
    assert!(
        page.text
            .contains("Session ~/s.jsonl — claude, version 2.1.88"),
        "{}",
        page.text
    );
    assert!(!md.contains(&dir.path().display().to_string()));
    // One table: the header, then one row per run.
    assert_eq!(page.tables.len(), 1);
    let table = &page.tables[0];
    assert_eq!(table[0], ["Requests", "Status", "Reason"]);
    assert!(table.iter().all(|r| r.len() == 3), "{table:?}");
    let rows = &table[1..];
    assert_eq!(rows.len(), 3, "{table:?}");
    assert_eq!(rows[0][0], "requests 2–11");
    assert_eq!(rows[0][1], "· kept");
    assert!(
        rows[0][2].starts_with("no plan fired: idle: gap"),
        "{rows:?}"
    );
    assert_eq!(rows[1][0], "request 12");
    assert_eq!(rows[1][1], "✗ cleared");
    assert_eq!(rows[2][0], "request 13");
    assert!(
        rows[2][2].starts_with("cleared at request 12: "),
        "{rows:?}"
    );
    // The same table as explain --format json, folded.
    let j: serde_json::Value = serde_json::from_str(&ok(
        &[
            "explain",
            s,
            ID,
            "--format",
            "json",
            "--policy",
            "idle",
            "--keep-recent",
            "1",
        ],
        dir.path(),
    ))
    .unwrap();
    let reqs = j["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 12);
    assert!(reqs[..10].iter().all(|r| r["status"] == "kept"));
    assert_eq!(reqs[10]["status"], "cleared");
    assert_eq!(reqs[10]["reason"].as_str().unwrap(), rows[1][2]);
    // The placeholder, then the content cut at 4,000 in a 6-backtick fence.
    assert_eq!(page.fences.len(), 2);
    assert_eq!(page.fences[0].1, "[Old tool result content cleared]\n");
    let shown = mcscope::sanitize::text_owned(content());
    let total = shown.chars().count();
    let cut: String = shown.chars().take(4_000).collect();
    assert_eq!(page.fences[1], ("text".to_string(), format!("{cut}\n")));
    assert!(md.contains("\n``````text\n"), "one backtick more than five");
    assert!(md.contains(&format!(
        "{} more characters left out: the page shows the first 4,000 of {}",
        total - 4_000,
        mcscope::numbers::fmt_int(total as u64)
    )));
    // The next calls and later_used.
    assert!(
        page.text
            .contains("request 12: Read /repo/a.rs — the same path or command")
    );
    assert!(page.text.contains("request 12: Bash make"));
    assert!(page.text.contains(
        "later_used: yes — at request 12 the model called Read on the same path or command again."
    ));
    // Nothing raw reaches the file (§15.20).
    assert!(!md.contains('\u{1b}') && !md.contains('\u{7}'));
}

/// SPEC §12: a page without `-o` goes to stdout; with it, through the one
/// writer, the same bytes; the HTML holds no script and nothing to fetch, and
/// the hostile `</details>` and `<script>` stay text.
#[test]
fn t12_html_page_is_self_contained_and_escapes_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let s = s.to_str().unwrap();
    let page = dir.path().join("page.html");
    let base = [
        "explain",
        s,
        ID,
        "--format",
        "html",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
    ];
    let stdout = ok(&base, dir.path());
    let mut with_o = base.to_vec();
    with_o.extend(["-o", page.to_str().unwrap()]);
    assert_eq!(ok(&with_o, dir.path()), "");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html, stdout);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("<script"),
        "no script, the hostile one escaped"
    );
    assert!(!html.contains("http") && !html.contains(" src=") && !html.contains(" href="));
    assert_eq!(html.matches("<details").count(), 1);
    assert_eq!(html.matches("</details>").count(), 1);
    assert!(
        html.contains("&lt;/details&gt;&lt;script&gt;alert(&#39;x&#39;)")
            || html.contains("&lt;/details&gt;&lt;script&gt;alert('x')")
    );
    assert_eq!(html.matches("<tr data-from=").count(), 3);
    assert!(
        html.contains("<tr data-from=\"2\" data-to=\"11\"><td class=\"req\">requests 2–11</td>")
    );
    assert!(!html.contains('\u{1b}'));
}

/// The HTML page in a real browser: the DOM has the folded table, the content
/// folded in one `<details>` holding the hostile text as text, and no script
/// element.
#[test]
fn t12_html_page_in_headless_chromium() {
    if std::env::var("MCSCOPE_REQUIRE_CHROMIUM").as_deref() != Ok("1") {
        eprintln!(
            "explain_page: the browser check skipped (set MCSCOPE_REQUIRE_CHROMIUM=1 with Debian's chromium installed to run it)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let page = dir.path().join("page.html");
    ok(
        &[
            "explain",
            s.to_str().unwrap(),
            ID,
            "--format",
            "html",
            "--policy",
            "idle",
            "--keep-recent",
            "1",
            "-o",
            page.to_str().unwrap(),
        ],
        dir.path(),
    );
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (MCSCOPE_REQUIRE_CHROMIUM=1)");
    assert!(out.status.success(), "{out:?}");
    let dom = String::from_utf8(out.stdout).unwrap();
    assert!(!dom.contains("<script"));
    assert_eq!(dom.matches("<details").count(), 1);
    assert_eq!(dom.matches("</details>").count(), 1);
    let rows: Vec<&str> = dom.split("<tr data-from=").skip(1).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0].contains("requests 2–11") && rows[0].contains("· kept"));
    assert!(rows[1].contains("request 12") && rows[1].contains("✗ cleared"));
    let fold = &dom[dom.find("<details").unwrap()..dom.find("</details>").unwrap()];
    assert!(fold.contains("&lt;/details&gt;&lt;script&gt;"));
    assert!(
        fold.contains(&"z".repeat(4_500)),
        "the whole content, folded"
    );
    assert!(dom.contains("later_used: yes"));
}

/// SPEC §7a, §15.19: `-o` never names the session (nor a link to it) nor a
/// harness folder; refused before any work, exit 2, the file untouched.
#[test]
fn t12_o_refuses_the_transcript_and_a_harness_folder() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let before = std::fs::read(&s).unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink(&s, &link).unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/projects")).unwrap();
    let harness = dir.path().join(".claude/projects/page.md");
    for (target, why) in [
        (&s, "which mcscope is reading"),
        (&link, "which mcscope is reading"),
        (&harness, "a harness's session folder"),
    ] {
        for format in ["md", "html", "text", "json"] {
            let out = mcscope(
                &[
                    "explain",
                    s.to_str().unwrap(),
                    ID,
                    "--format",
                    format,
                    "-o",
                    target.to_str().unwrap(),
                ],
                dir.path(),
            );
            assert_eq!(out.status.code(), Some(2), "{target:?} {format}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("refusing to write") && err.contains(why),
                "{err}"
            );
        }
    }
    assert_eq!(std::fs::read(&s).unwrap(), before);
    assert!(!harness.exists());
}

/// The pages are explain's: plan, timeline, evidence and statusline refuse
/// `--format md|html` with a sentence and exit 2.
#[test]
fn t12_only_explain_prints_pages() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let s = s.to_str().unwrap();
    for cmd in ["plan", "timeline", "evidence"] {
        let out = mcscope(&[cmd, s, "--format", "html"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("pages (md, html) are explain's"),
            "{cmd}: {err}"
        );
    }
}

/// SPEC §12: the verdict names the records of the transcript that name the
/// id, with their line numbers, before the plan's fate.
#[test]
fn t12_the_verdict_lists_the_records_naming_the_id_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let s = common::evidence::evidence_session(dir.path());
    let md = ok(
        &[
            "explain",
            s.to_str().unwrap(),
            "a",
            "--format",
            "md",
            "--policy",
            "count",
            "--trigger",
            "1",
            "--keep-recent",
            "1",
        ],
        dir.path(),
    );
    let text = std::fs::read_to_string(&s).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("microcompact_boundary") && l.contains("[\"a\"]"))
        .unwrap()
        + 1;
    let page = parse(&md);
    let record = format!(
        "line {line}, microcompact_boundary (request 3): Claude Code recorded clearing it (cached writer; the only id it names), a record that belongs to request 3; against the count plan: agrees"
    );
    assert!(page.text.contains(&record), "{record}\n{md}");
    assert!(
        md.find(&format!("line {line}")).unwrap() < md.find("Under the selected plan").unwrap()
    );
}

/// SPEC §12 and §13.E1: a recorded cut is in the verdict, first, as what the
/// transcript proves (on the bundled sample: toolu_R1 is cut from the return on,
/// toolu_E1 is an error the cut leaves alone).
#[test]
fn e1_the_page_lists_the_cut_record_with_its_fate() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-cut.jsonl");
    let text = std::fs::read_to_string(&sample).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("\"tool_results_cut\""))
        .unwrap()
        + 1;
    let md = ok(
        &[
            "explain",
            sample.to_str().unwrap(),
            "toolu_R1",
            "--format",
            "md",
        ],
        dir.path(),
    );
    let page = parse(&md);
    let want = format!("line {line}, tool_results_cut (request ");
    assert!(page.text.contains(&want), "{want}\n{md}");
    assert!(
        page.text
            .contains("the model saw its stand-in from request"),
        "{md}"
    );
    assert!(page.text.find(&want).unwrap() < page.text.find("Under the selected plan").unwrap());
    let md = ok(
        &[
            "explain",
            sample.to_str().unwrap(),
            "toolu_E1",
            "--format",
            "md",
        ],
        dir.path(),
    );
    assert!(
        parse(&md).text.contains("not applied to it (error)"),
        "{md}"
    );
}

/// SPEC §12: an id that only a record names (no result, its call not in the
/// file) still gets a page from the records, saying the call is not in the file.
#[test]
fn t12_an_id_only_a_record_names_gets_a_page_from_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let s = common::evidence::evidence_session(dir.path());
    let text = std::fs::read_to_string(&s).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("microcompact_boundary") && l.contains("[\"x\"]"))
        .unwrap()
        + 1;
    for format in ["md", "html"] {
        let page = ok(
            &["explain", s.to_str().unwrap(), "x", "--format", format],
            dir.path(),
        );
        assert!(page.contains("its call is not in the file"), "{page}");
        assert!(
            page.contains(&format!("line {line}, microcompact")),
            "{page}"
        );
        assert!(page.contains("No request's view holds it"), "{page}");
    }
    // An id nothing names is still an error.
    let out = mcscope(
        &["explain", s.to_str().unwrap(), "nothing", "--format", "md"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
}

/// SPEC §15.20: a page names the session `~/…` (relative to HOME), never by
/// its absolute path, unless `--full-paths`.
#[test]
fn s15_20_a_page_names_the_session_under_home_unless_full_paths() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let s = s.to_str().unwrap();
    for format in ["md", "html"] {
        let page = ok(&["explain", s, ID, "--format", format], dir.path());
        assert!(!page.contains(s), "{format}: no absolute path");
        let full = ok(
            &["explain", s, ID, "--format", format, "--full-paths"],
            dir.path(),
        );
        let shown = match format {
            "md" => s.replace('_', "\\_"),
            _ => s.to_string(),
        };
        assert!(full.contains(&shown), "{format}: {shown}");
    }
}

/// The words issue: on the budget sample the plan shows the placeholder where
/// Claude Code sent a `<persisted-output>` pointer, as `plan` notes; the page
/// says that and never "the model saw instead" there. Elsewhere (idle on the
/// demo) the model did see the placeholder.
#[test]
fn the_page_says_what_budget_really_sent() {
    let home = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let budget = root.join("sample-sessions/claude-budget.jsonl");
    let md = ok(
        &[
            "explain",
            budget.to_str().unwrap(),
            "toolu_01qH7HZN50jZIuWJeHd3PBLK",
            "--format",
            "md",
        ],
        home.path(),
    );
    assert!(md.contains("At request 7, in its place"), "{md}");
    assert!(md.contains("persisted-output"), "{md}");
    assert!(!md.contains("the model saw instead"), "{md}");
    let demo = root.join("sample-sessions/claude-demo.jsonl");
    let md = ok(
        &[
            "explain",
            demo.to_str().unwrap(),
            "toolu_A",
            "--format",
            "md",
        ],
        home.path(),
    );
    assert!(md.contains("At request 6, the model saw instead:"), "{md}");
}
