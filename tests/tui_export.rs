//! The TUI's export (`e`), driven by key presses through the real keymap: a
//! file that exists is replaced only after a `y`; the session itself is
//! refused; the file written has the usual mode.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, screen};

use mcscope::cli::{self, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn press(a: &mut App, code: KeyCode) {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    let action = keymap::key_action(key, false, a.in_text_input());
    a.update(action);
}

/// `e`, the export line emptied, `path` typed, Enter.
fn export_to(a: &mut App, path: &Path) {
    press(a, KeyCode::Char('e'));
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Export(_))
    ));
    for _ in 0..200 {
        press(a, KeyCode::Backspace);
    }
    for c in path.display().to_string().chars() {
        press(a, KeyCode::Char(c));
    }
    press(a, KeyCode::Enter);
}

fn status(a: &App) -> String {
    a.view().unwrap().status.clone().unwrap_or_default()
}

fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
}

#[test]
fn export_asks_before_replacing_a_file_and_only_y_replaces_it() {
    let t = tempfile::tempdir().unwrap();
    let session = t.path().join("s.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl"),
        &session,
    )
    .unwrap();
    // A sibling transcript: mcscope does not read it, but it is someone's data.
    let sibling = t.path().join("other.jsonl");
    std::fs::write(&sibling, "{\"keep\": \"me\"}\n").unwrap();
    let opts = Opts::default().with("--policy", "count");
    let mut a = App::session(cli::setup(&session, &opts).unwrap());

    // Enter asks; the screen says so; n keeps the file.
    export_to(&mut a, &sibling);
    assert!(
        matches!(a.view().unwrap().overlay, Some(Overlay::ConfirmExport(_))),
        "{}",
        status(&a)
    );
    let lines = screen(&a, 120, 40);
    assert!(has(&lines, "replace it?"), "{}", lines.join("\n"));
    press(&mut a, KeyCode::Char('n'));
    assert!(a.view().unwrap().overlay.is_none());
    assert!(status(&a).contains("kept"), "{}", status(&a));
    assert_eq!(
        std::fs::read_to_string(&sibling).unwrap(),
        "{\"keep\": \"me\"}\n"
    );

    // Esc and Enter keep it too.
    for key in [KeyCode::Esc, KeyCode::Enter] {
        export_to(&mut a, &sibling);
        press(&mut a, key);
        assert!(a.view().unwrap().overlay.is_none());
        assert_eq!(
            std::fs::read_to_string(&sibling).unwrap(),
            "{\"keep\": \"me\"}\n"
        );
    }

    // y replaces it, with the wire payload and the usual mode.
    std::fs::set_permissions(&sibling, std::fs::Permissions::from_mode(0o600)).unwrap();
    export_to(&mut a, &sibling);
    press(&mut a, KeyCode::Char('y'));
    assert!(status(&a).starts_with("wrote"), "{}", status(&a));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sibling).unwrap()).unwrap();
    assert!(written["messages"].is_array(), "{written}");
    let mode = std::fs::metadata(&sibling).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask(), "{mode:o}");

    // A new file is written without a question.
    let fresh = t.path().join("fresh.json");
    export_to(&mut a, &fresh);
    assert!(a.view().unwrap().overlay.is_none());
    assert!(status(&a).starts_with("wrote"), "{}", status(&a));
    assert!(fresh.exists());

    // The session itself, or a hard link to it: refused, never asked.
    let before = std::fs::read(&session).unwrap();
    let hard = t.path().join("hard.json");
    std::fs::hard_link(&session, &hard).unwrap();
    for target in [&session, &hard] {
        export_to(&mut a, target);
        assert!(a.view().unwrap().overlay.is_none());
        assert!(status(&a).contains("refusing to write"), "{}", status(&a));
    }
    assert_eq!(std::fs::read(&session).unwrap(), before);

    let mut names: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["fresh.json", "hard.json", "other.jsonl", "s.jsonl"],
        "no temp file left"
    );
}

/// Issue 41 item 1, through the real keymap: `e` to a FIFO (and to another
/// session's transcript) is refused on the status line, in the TUI's words
/// (no `-o -` advice, which means nothing there), and the target is left
/// as it is.
#[test]
fn safe_io_1_export_to_a_fifo_or_a_transcript_is_refused_and_left() {
    use std::os::unix::fs::FileTypeExt;
    let t = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let session = t.path().join("s.jsonl");
    std::fs::copy(&sample, &session).unwrap();
    let other = t.path().join("other.jsonl");
    std::fs::copy(&sample, &other).unwrap();
    let pipe = t.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap()
            .success()
    );
    let mut a = App::session(cli::setup(&session, &Opts::default()).unwrap());
    a.view_mut().unwrap().wait_background();
    export_to(&mut a, &pipe);
    let s = status(&a);
    assert!(
        s.starts_with("export failed: ")
            && s.ends_with("refusing to write: it is not a regular file (a FIFO)"),
        "{s}"
    );
    assert!(
        std::fs::symlink_metadata(&pipe)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let before = std::fs::read(&other).unwrap();
    export_to(&mut a, &other);
    let s = status(&a);
    assert!(s.contains("it is a session transcript"), "{s}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

/// Ctrl-U clears an input line, as in a shell (renaming an export took ~90
/// Backspaces): the export path, the search and the command line.
#[test]
fn ctrl_u_clears_the_line_being_typed() {
    let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let mut a = App::session(cli::setup(&session, &Opts::default()).unwrap());
    let ctrl_u = |a: &mut App| {
        let key = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
        let action = keymap::key_action(key, false, a.in_text_input());
        a.update(action);
    };
    for open in ['e', '/', ':'] {
        press(&mut a, KeyCode::Char(open));
        for c in "some/typed text".chars() {
            press(&mut a, KeyCode::Char(c));
        }
        ctrl_u(&mut a);
        let line = match &a.view().unwrap().overlay {
            Some(Overlay::Export(q) | Overlay::Search(q) | Overlay::Command(q)) => q.clone(),
            other => panic!("{open}: the line closed: {other:?}"),
        };
        assert_eq!(line, "", "{open}: Ctrl-U leaves {line:?}");
        press(&mut a, KeyCode::Char('x'));
        match &a.view().unwrap().overlay {
            Some(Overlay::Export(q) | Overlay::Search(q) | Overlay::Command(q)) => {
                assert_eq!(q, "x", "{open}")
            }
            other => panic!("{open}: {other:?}"),
        }
        press(&mut a, KeyCode::Esc);
    }
}
