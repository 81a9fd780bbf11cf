//! The `api` preset in the TUI (SPEC §8, §11), driven through the real keymap:
//! the server view on the right, `p` staying on api, `+`/`-` tuning the first
//! clear_tool_uses edit's keep, and the explain panel with the edits beside.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::screen;

use mcscope::cli::{self, Opts};
use mcscope::policy::Status;
use mcscope::tui::app::App;
use mcscope::tui::keymap::{self, Action};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::Path;

const SAMPLE: &str = "sample-sessions/api-agent.json";

fn app() -> App {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE);
    App::session(cli::setup(&path, &Opts::default()).unwrap())
}

/// Presses `c` as the terminal would send it: the keymap decides the action.
fn press(a: &mut App, c: char) -> Action {
    press_code(a, KeyCode::Char(c))
}

fn press_code(a: &mut App, code: KeyCode) -> Action {
    let action = keymap::action_for(KeyEvent::from(code), false)
        .unwrap_or_else(|| panic!("{code:?} has no action"));
    a.update(action);
    a.view_mut().unwrap().wait_background();
    action
}

fn cleared(a: &App) -> usize {
    let v = a.view().unwrap();
    v.plan.ids_with(&v.setup.session, Status::Cleared).len()
}

#[test]
fn the_right_side_is_the_server_view_and_keys_tune_keep() {
    let mut a = app();
    a.view_mut().unwrap().wait_background();
    let v = a.view().unwrap();
    assert_eq!(v.k, 28);
    // The sample's last request: 21 of its 30 tool uses cleared (keep 5, the
    // memory tool's 4 excluded).
    assert_eq!(cleared(&a), 21);
    // Left: the client's request with its edits; right: the server view.
    assert!(v.local_json().contains("\"context_management\""));
    assert!(!v.wire_json().contains("\"context_management\""));
    assert!(v.wire_json().contains("[Old tool result content cleared]"));
    assert!(!v.local_json().contains("[Old tool result content cleared]"));
    let lines = screen(&a, 160, 45);
    assert!(
        lines[1].contains("plan api (api)")
            && lines[1].contains("clear_tool_uses > 30,000 tok")
            && lines[1].contains("keep 5ˢ")
            && lines[1].contains("exclude memory")
            && lines[1].contains("server"),
        "{}",
        lines[1]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("client request (left) vs server view after the edits (right)")),
        "{}",
        lines.join("\n")
    );
    // p: api → recorded (the baseline, SPEC §15.3) → api, and says so.
    assert_eq!(press(&mut a, 'p'), Action::CyclePlan);
    let v = a.view().unwrap();
    assert_eq!(v.policy().kind.name(), "recorded");
    assert!(
        v.status
            .as_deref()
            .unwrap()
            .contains("recorded: what the transcript proves")
    );
    press(&mut a, 'p');
    assert_eq!(a.view().unwrap().policy().kind.name(), "api");
    // + keeps one more tool use: 20 cleared; - twice: keep 4, 22 cleared.
    assert_eq!(press(&mut a, '+'), Action::KeepMore);
    assert_eq!(a.view().unwrap().policy().api.first_keep(), Some(6));
    assert_eq!(cleared(&a), 20);
    let lines = screen(&a, 160, 45);
    assert!(lines[1].contains("keep 6*"), "{}", lines[1]);
    press(&mut a, '-');
    press(&mut a, '-');
    assert_eq!(a.view().unwrap().policy().api.first_keep(), Some(4));
    assert_eq!(cleared(&a), 22);
    // The wire follows: the client's edit now says keep 4.
    assert!(a.view().unwrap().local_json().contains("\"value\": 4"));
}

#[test]
fn explain_shows_the_edits_beside_each_request() {
    let mut a = app();
    a.view_mut().unwrap().wait_background();
    // The oldest non-memory result (rank 3): select it and explain.
    press(&mut a, 'j');
    press(&mut a, 'j');
    let action = press_code(&mut a, KeyCode::Enter);
    assert_eq!(action, Action::Explain);
    let lines = screen(&a, 200, 60);
    let text = lines.join("\n");
    assert!(
        text.contains("first vanished from the wire at request 14"),
        "{text}"
    );
    assert!(text.contains("[edits here: 8 uses ~7,029 tok]"), "{text}");
}
