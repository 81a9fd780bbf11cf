//! The TUI's `E` (SPEC §12): the explain panel exports its result's page,
//! Markdown or HTML by the file's extension, through the one writer and the
//! export's ask-before-replace line, driven by key presses through the real
//! keymap.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, screen};

use mcscope::cli::{self, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;

fn press(a: &mut App, code: KeyCode) {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    let action = keymap::key_action(key, false, a.in_text_input());
    a.update(action);
}

fn type_text(a: &mut App, text: &str) {
    for c in text.chars() {
        press(a, KeyCode::Char(c));
    }
}

fn status(a: &App) -> String {
    a.view().unwrap().status.clone().unwrap_or_default()
}

fn overlay(a: &App) -> Option<Overlay> {
    a.view().unwrap().overlay.clone()
}

/// `:explain toolu_A`, Enter: the explain panel.
fn open_explain(a: &mut App) {
    press(a, KeyCode::Char(':'));
    type_text(a, "explain toolu_A");
    press(a, KeyCode::Enter);
    assert!(
        matches!(overlay(a), Some(Overlay::Explain { .. })),
        "{}",
        status(a)
    );
}

/// `E` in the panel, the line emptied, `path` typed, Enter.
fn export_page_to(a: &mut App, path: &Path) {
    press(a, KeyCode::Char('E'));
    let Some(Overlay::Export(default)) = overlay(a) else {
        panic!("E opens the export line: {:?}", overlay(a));
    };
    assert_eq!(default, "s-toolu_A-explain.md");
    for _ in 0..default.chars().count() {
        press(a, KeyCode::Backspace);
    }
    type_text(a, &path.display().to_string());
    press(a, KeyCode::Enter);
}

/// SPEC §12 in the TUI: `E` writes the page (Markdown for `.md`, HTML for
/// `.html`); an existing file is replaced only after `y`; the session itself
/// is refused; `e` afterwards still exports the wire payload.
#[test]
fn e_in_the_explain_panel_exports_the_page_through_the_writer() {
    let t = tempfile::tempdir().unwrap();
    let session = t.path().join("s.jsonl");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    std::fs::copy(samples.join("claude-demo.jsonl"), &session).unwrap();
    // Its sidecar (keep 2): idle clears toolu_A at request 6.
    std::fs::copy(
        samples.join("claude-demo.mcscope.json"),
        t.path().join("s.mcscope.json"),
    )
    .unwrap();
    let mut a = App::session(cli::setup(&session, &Opts::default()).unwrap());

    // The panel says E exports; the help lists the key.
    open_explain(&mut a);
    let lines = screen(&a, 140, 40);
    assert!(has(&lines, "E: export the page"), "{}", lines.join("\n"));
    assert!(
        keymap::help_lines().iter().any(|l| l
            .trim_start()
            .starts_with("E  export the result's explain page (.md/.html)")),
        "{:?}",
        keymap::help_lines()
    );

    // A new .md file: written without a question, the page of toolu_A.
    let md = t.path().join("a.md");
    export_page_to(&mut a, &md);
    let lines = screen(&a, 140, 40);
    assert!(overlay(&a).is_none(), "{:?}", overlay(&a));
    assert!(
        status(&a).starts_with("wrote the explain page of toolu_A to"),
        "{}",
        status(&a)
    );
    assert!(!has(&lines, "export the explain page to"));
    let page = std::fs::read_to_string(&md).unwrap();
    assert!(
        page.starts_with("# mcscope explain — `toolu_A`\n"),
        "{page}"
    );
    assert!(page.contains("| requests 2–5 | · kept |"), "{page}");
    assert!(page.contains("| request 6 | ✗ cleared |"), "{page}");
    assert!(page.contains("[Old tool result content cleared]"));

    // The same file again: asked first; n keeps it, y replaces it.
    std::fs::write(&md, "keep me").unwrap();
    open_explain(&mut a);
    export_page_to(&mut a, &md);
    assert!(matches!(overlay(&a), Some(Overlay::ConfirmExport(_))));
    press(&mut a, KeyCode::Char('n'));
    assert_eq!(std::fs::read_to_string(&md).unwrap(), "keep me");
    open_explain(&mut a);
    export_page_to(&mut a, &md);
    press(&mut a, KeyCode::Char('y'));
    assert_eq!(std::fs::read_to_string(&md).unwrap(), page);

    // .html: the HTML page.
    let html = t.path().join("a.html");
    open_explain(&mut a);
    export_page_to(&mut a, &html);
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
    assert!(text.contains("<details id=\"content\">"));

    // The session itself: refused, untouched.
    let before = std::fs::read(&session).unwrap();
    open_explain(&mut a);
    export_page_to(&mut a, &session);
    assert!(status(&a).contains("refusing to write"), "{}", status(&a));
    assert_eq!(std::fs::read(&session).unwrap(), before);

    // `e` after an `E` exports the wire payload again.
    press(&mut a, KeyCode::Char('e'));
    let Some(Overlay::Export(default)) = overlay(&a) else {
        panic!("e opens the export line");
    };
    assert!(default.ends_with("-wire.json"), "{default}");
    let lines = screen(&a, 140, 40);
    assert!(has(&lines, "export the wire payload to"));
    press(&mut a, KeyCode::Esc);

    // Outside the panel, E exports the selected result's page.
    assert!(overlay(&a).is_none());
    press(&mut a, KeyCode::Char('E'));
    assert!(matches!(overlay(&a), Some(Overlay::Export(p)) if p.ends_with("-explain.md")));
}
