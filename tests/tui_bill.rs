//! The `$` bill panel and the cause glyphs on the marks line (SPEC §16.S), on
//! ratatui's TestBackend, driven by the real keymap.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::screen;

use mcscope::cli::{self, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::Path;

fn app(path: &str) -> App {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let mut a = App::session(cli::setup(&p, &Opts::default()).unwrap());
    a.view_mut().unwrap().wait_background();
    a
}

fn press(a: &mut App, code: KeyCode) {
    let action = keymap::action_for(KeyEvent::from(code), a.in_text_input()).unwrap();
    a.update(action);
}

/// On the demo (one observed break, the cache expired before request 6): `$`
/// shows the causes with their dollars and the break; Enter goes to request 6
/// and closes the panel; the marks line shows the break as `T` (ttl), and `?`
/// says what the glyphs mean.
#[test]
fn s16_s_the_bill_panel_lists_the_causes_and_jumps_to_a_break() {
    let mut a = app("sample-sessions/claude-demo.jsonl");
    press(&mut a, KeyCode::Home);
    assert_eq!(a.view().unwrap().k, 1);
    press(&mut a, KeyCode::Char('$'));
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Bill { .. })
    ));
    let text = screen(&a, 80, 24).join("\n");
    assert!(text.contains("where the cache-write money went"), "{text}");
    assert!(
        text.contains("cache writes 29,567 tokens = $0.30"),
        "{text}"
    );
    assert!(text.contains("T ttl"), "{text}");
    assert!(text.contains("78.0 %"), "{text}");
    // The break: request 6, cause ttl, what it re-wrote and its write cost.
    let row = text
        .lines()
        .find(|l| l.contains("T     6"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("ttl") && row.contains("23,070") && row.contains("$0.23"),
        "{row}"
    );
    press(&mut a, KeyCode::Enter);
    let v = a.view().unwrap();
    assert!(v.overlay.is_none());
    assert_eq!(v.k, 6);
    // The marks line names the break's cause.
    let wide = screen(&a, 160, 45).join("\n");
    let marks = wide.lines().find(|l| l.starts_with("marks")).unwrap();
    assert!(marks.contains('T'), "{marks}");
    assert!(!marks.contains('!'), "{marks}");
    press(&mut a, KeyCode::Char('?'));
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Help { .. })
    ));
    let help = keymap::help_lines().join("\n");
    assert!(help.contains("T ttl, R resume"), "{help}");
    assert!(
        help.contains("bill: where the cache-write money went"),
        "{help}"
    );
}

/// `$` closes it again; a session without a break says so.
#[test]
fn the_bill_panel_closes_and_says_when_there_is_no_break() {
    let mut a = app("sample-sessions/claude-size.jsonl");
    press(&mut a, KeyCode::Char('$'));
    let text = screen(&a, 80, 24).join("\n");
    assert!(text.contains("no observed cache break"), "{text}");
    assert!(text.contains("growth"), "{text}");
    press(&mut a, KeyCode::Char('$'));
    assert!(a.view().unwrap().overlay.is_none());
}
