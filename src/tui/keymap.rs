//! The one table of keys: it dispatches them and it writes the help.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    NextRequest,
    PrevRequest,
    FirstRequest,
    LastRequest,
    CyclePlan,
    ToggleDelivery,
    KeepMore,
    KeepLess,
    GapUp,
    GapDown,
    SizeUp,
    SizeDown,
    ToggleProtect,
    Explain,
    Search,
    FocusNext,
    Export,
    Help,
    Up,
    Down,
    PageUp,
    PageDown,
    NextChange,
    PrevChange,
    ScrollLeft,
    ScrollRight,
    ToggleFolds,
    ToggleFollow,
    Back,
    Quit,
}

pub struct Binding {
    pub keys: &'static [KeyCode],
    pub label: &'static str,
    pub action: Action,
    pub help: &'static str,
}

const fn b(
    keys: &'static [KeyCode],
    label: &'static str,
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        label,
        action,
        help,
    }
}

use KeyCode::*;

pub const KEYMAP: &[Binding] = &[
    b(
        &[Right, Char('l')],
        "→/l",
        Action::NextRequest,
        "next request",
    ),
    b(
        &[Left, Char('h')],
        "←/h",
        Action::PrevRequest,
        "previous request",
    ),
    b(&[Home], "Home", Action::FirstRequest, "first request"),
    b(&[End], "End", Action::LastRequest, "last request"),
    b(
        &[Char('p')],
        "p",
        Action::CyclePlan,
        "cycle plan kind (auto … budget)",
    ),
    b(
        &[Char('d')],
        "d",
        Action::ToggleDelivery,
        "delivery: rewrite ↔ cache-edits",
    ),
    b(
        &[Char('+'), Char('=')],
        "+",
        Action::KeepMore,
        "keep_recent + 1",
    ),
    b(
        &[Char('-'), Char('_')],
        "-",
        Action::KeepLess,
        "keep_recent - 1",
    ),
    b(&[Char(']')], "]", Action::GapUp, "gap threshold + 5 min"),
    b(&[Char('[')], "[", Action::GapDown, "gap threshold - 5 min"),
    b(
        &[Char('}')],
        "}",
        Action::SizeUp,
        "size threshold + 50,000 chars",
    ),
    b(
        &[Char('{')],
        "{",
        Action::SizeDown,
        "size threshold - 50,000 chars",
    ),
    b(
        &[Char('m')],
        "m",
        Action::ToggleProtect,
        "memory protection on/off",
    ),
    b(
        &[Enter],
        "Enter",
        Action::Explain,
        "explain the selected result",
    ),
    b(
        &[Char('/')],
        "/",
        Action::Search,
        "search ids, tools, paths",
    ),
    b(&[Tab], "Tab", Action::FocusNext, "focus: age list ↔ diff"),
    b(
        &[Char('e')],
        "e",
        Action::Export,
        "export the wire payload as JSON",
    ),
    b(&[Char('?')], "?", Action::Help, "this help"),
    b(&[Up, Char('k')], "↑/k", Action::Up, "select / scroll up"),
    b(
        &[Down, Char('j')],
        "↓/j",
        Action::Down,
        "select / scroll down",
    ),
    b(&[PageUp], "PgUp", Action::PageUp, "page up"),
    b(&[PageDown], "PgDn", Action::PageDown, "page down"),
    b(&[Char('n')], "n", Action::NextChange, "diff: next change"),
    b(
        &[Char('N')],
        "N",
        Action::PrevChange,
        "diff: previous change",
    ),
    b(&[Char('<')], "<", Action::ScrollLeft, "diff: scroll left"),
    b(&[Char('>')], ">", Action::ScrollRight, "diff: scroll right"),
    b(
        &[Char('z')],
        "z",
        Action::ToggleFolds,
        "diff: fold / unfold unchanged runs",
    ),
    b(
        &[Esc],
        "Esc",
        Action::Back,
        "close panel / back to the session list / quit",
    ),
    b(&[Char('q')], "q", Action::Quit, "quit"),
];

/// The action a key press maps to, if any.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == Char('c') {
        return Some(Action::Quit);
    }
    KEYMAP
        .iter()
        .find(|b| b.keys.contains(&key.code))
        .map(|b| b.action)
}

/// The short hint line of the footer.
pub fn hints() -> &'static str {
    "←/→ request  p plan  d delivery  +/- keep  [/] gap  {/} size  m protect  Enter explain  / search  ? help  q quit"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_maps_to_one_action() {
        let mut seen = std::collections::HashSet::new();
        for binding in KEYMAP {
            for k in binding.keys {
                assert!(seen.insert(format!("{k:?}")), "{k:?} bound twice");
            }
        }
    }
}
