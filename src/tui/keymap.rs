//! The one table of keys: it dispatches them and it writes the help. Every input
//! the event loop reads becomes an [`Action`] here ([`key_action`], and the
//! loop's mouse and resize events), handled by `App::update`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod help;
#[cfg(test)]
use help::HELP_TEXT_WIDTH;
pub use help::{help_lines, picker_help_lines};

/// What the mouse did (`Action::Pointer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointer {
    Click,
    WheelUp,
    WheelDown,
}

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
    Command,
    CycleFilter,
    FocusNext,
    Export,
    /// The explain page of the selected result (or the explain panel's), to a file.
    ExportPage,
    Help,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    NextChange,
    PrevChange,
    NextFired,
    PrevFired,
    NextBreak,
    PrevBreak,
    NextEvidence,
    PrevEvidence,
    NextObserved,
    PrevObserved,
    ScrollLeft,
    ScrollRight,
    ToggleFolds,
    ToggleFollow,
    Copy,
    ViewContent,
    Back,
    Quit,
    /// The picker: open the selected session (a thread: as a what-if).
    Open,
    /// The picker: sort by the next key (date → size → requests).
    CycleSort,
    /// The picker: reverse the order.
    ReverseSort,
    /// The compare panel (SPEC §9): every setting's session totals.
    ComparePanel,
    /// Recorded vs simulated context per request, as a chart.
    ChartView,
    /// Compare panel: sort by the next column.
    SortNext,
    /// Compare panel: reverse the sort.
    SortReverse,
    /// What fills the window at the request shown (SPEC §12), as figures.
    WindowPanel,
    /// Where the cache-write money went (SPEC §16.S): causes and breaks.
    BillPanel,
    /// Typed text in an input line (search, `:` command, export path): not in the
    /// table, every printable key makes one while an input line is open.
    Type(char),
    /// Backspace in an input line.
    Erase,
    /// Ctrl-U in an input line: clear it, as in a shell.
    EraseLine,
    /// Enter in an input line.
    Submit,
    /// Tab in an input line: complete the command name.
    Complete,
    /// Ctrl-C: quit from anywhere, a panel open or not (and while a session loads).
    Interrupt,
    /// Ctrl-Z: give the terminal back and stop, until `fg`.
    Suspend,
    /// A key no binding names (it still closes the help).
    Unbound,
    /// The terminal's size changed to (columns, rows).
    Resize(u16, u16),
    /// The mouse at (column, row).
    Pointer(Pointer, u16, u16),
    /// F12 in debug builds: a panic, so tests can check the terminal is restored.
    DebugPanic,
}

pub struct Binding {
    pub keys: &'static [KeyCode],
    label: &'static str,
    pub action: Action,
    help: Help,
}

/// A binding's help: its words, or a parameter's step read from the table.
enum Help {
    Text(&'static str),
    /// The parameter's keys and which way the key steps it (`true`: up).
    Step(&'static crate::policy::params::Keys, bool),
}

impl Binding {
    /// The key as the help and the hint lines show it: a stepping key is the
    /// table's own character.
    pub fn label(&self) -> String {
        match self.help {
            Help::Step(k, more) => (if more { k.more } else { k.less }).to_string(),
            Help::Text(_) => self.label.to_string(),
        }
    }

    /// What the key does, in the help's words.
    pub fn help(&self) -> String {
        match self.help {
            Help::Text(t) => t.to_string(),
            Help::Step(k, more) => k.help(more),
        }
    }
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
        help: Help::Text(help),
    }
}

/// The binding of a key that steps a parameter (`more`: up) by the table's
/// `Keys`: its label and help are theirs; `keys` start with the table's key
/// and may add another for the same step (`=` for `+`).
const fn step(
    keys: &'static [KeyCode],
    table: &'static crate::policy::params::Keys,
    more: bool,
    action: Action,
) -> Binding {
    Binding {
        keys,
        label: "",
        action,
        help: Help::Step(table, more),
    }
}

use KeyCode::*;
// The keys that step a parameter, their steps and words, are its row's in
// `policy::params::PARAMS`: `step` bindings read them.
use crate::policy::params::{GAP_KEYS, KEEP_KEYS, SIZE_KEYS};

pub const KEYMAP: &[Binding] = &[
    b(&[Char('?')], "?", Action::Help, "this help (↑/↓ scroll)"),
    b(
        &[Char('q')],
        "q",
        Action::Quit,
        "quit (inside a panel: close it)",
    ),
    b(
        &[Esc],
        "Esc",
        Action::Back,
        "close panel, clear search/filter, back to list",
    ),
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
        &[Char('t')],
        "t",
        Action::NextFired,
        "next request where the plan fired ▲",
    ),
    b(
        &[Char('T')],
        "T",
        Action::PrevFired,
        "previous request where the plan fired ▲",
    ),
    b(
        &[Char('b')],
        "b",
        Action::NextBreak,
        "next simulated cache break ✕",
    ),
    b(
        &[Char('B')],
        "B",
        Action::PrevBreak,
        "previous simulated cache break ✕",
    ),
    b(
        &[Char('r')],
        "r",
        Action::NextEvidence,
        "next harness record / evidence ◇",
    ),
    b(
        &[Char('R')],
        "R",
        Action::PrevEvidence,
        "previous harness record / evidence ◇",
    ),
    b(
        &[Char('o')],
        "o",
        Action::NextObserved,
        "next observed cache break !",
    ),
    b(
        &[Char('O')],
        "O",
        Action::PrevObserved,
        "previous observed cache break !",
    ),
    b(
        &[Char(':')],
        ":",
        Action::Command,
        "command: :57 :gap 7.5 :keep 3 :explain ID",
    ),
    b(
        &[Char('p')],
        "p",
        Action::CyclePlan,
        "plan: the preset's kinds in turn, recorded last",
    ),
    b(
        &[Char('d')],
        "d",
        Action::ToggleDelivery,
        "delivery: rewrite ↔ cache-edits",
    ),
    step(
        &[Char(KEEP_KEYS.more), Char('=')],
        &KEEP_KEYS,
        true,
        Action::KeepMore,
    ),
    step(
        &[Char(KEEP_KEYS.less), Char('_')],
        &KEEP_KEYS,
        false,
        Action::KeepLess,
    ),
    step(&[Char(GAP_KEYS.more)], &GAP_KEYS, true, Action::GapUp),
    step(&[Char(GAP_KEYS.less)], &GAP_KEYS, false, Action::GapDown),
    step(&[Char(SIZE_KEYS.more)], &SIZE_KEYS, true, Action::SizeUp),
    step(&[Char(SIZE_KEYS.less)], &SIZE_KEYS, false, Action::SizeDown),
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
        "search ids, tools, paths, commands",
    ),
    b(
        &[Char('n')],
        "n",
        Action::NextChange,
        "next search match, else next diff change",
    ),
    b(
        &[Char('N')],
        "N",
        Action::PrevChange,
        "previous match, else previous change",
    ),
    b(
        &[Char('s')],
        "s",
        Action::CycleFilter,
        "filter: cleared / protected / not kept",
    ),
    b(&[Tab], "Tab", Action::FocusNext, "focus: age list ↔ diff"),
    b(&[Up, Char('k')], "↑/k", Action::Up, "select / scroll up"),
    b(
        &[Down, Char('j')],
        "↓/j",
        Action::Down,
        "select / scroll down",
    ),
    b(&[PageUp], "PgUp", Action::PageUp, "page up"),
    b(&[PageDown], "PgDn", Action::PageDown, "page down"),
    b(
        &[Char('g')],
        "g",
        Action::Top,
        "top of the list, diff or panel",
    ),
    b(
        &[Char('G')],
        "G",
        Action::Bottom,
        "bottom of the list, diff or panel",
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
        &[Char('v')],
        "v",
        Action::ViewContent,
        "view the selected result's full content",
    ),
    b(
        &[Char('y')],
        "y",
        Action::Copy,
        "copy the id (explain: its text), OSC 52",
    ),
    b(
        &[Char('f')],
        "f",
        Action::ToggleFollow,
        "follow the file; at the end, tail -f (f: stop)",
    ),
    b(
        &[Char('e')],
        "e",
        Action::Export,
        "export the wire payload as JSON",
    ),
    b(
        &[Char('E')],
        "E",
        Action::ExportPage,
        "export the result's explain page (.md/.html)",
    ),
    b(
        &[Char('c')],
        "c",
        Action::ComparePanel,
        "compare panel: every setting (Enter applies one)",
    ),
    b(
        &[Char('C')],
        "C",
        Action::ChartView,
        "chart: recorded vs simulated context",
    ),
    b(
        &[Char('w')],
        "w",
        Action::WindowPanel,
        "what fills the window here: per tool, per kind",
    ),
    b(
        &[Char('$')],
        "$",
        Action::BillPanel,
        "bill: where the cache-write money went",
    ),
    b(
        &[Char('S')],
        "S",
        Action::SortNext,
        "compare panel: sort by the next column",
    ),
    b(
        &[Char('A')],
        "A",
        Action::SortReverse,
        "compare panel: reverse the sort",
    ),
];

/// The footer's hint line, most wanted first: actions and a word each, their keys
/// taken from [`KEYMAP`].
pub const HINTS: &[(Action, &str)] = &[
    (Action::Help, "help"),
    (Action::Quit, "quit"),
    (Action::Explain, "explain"),
    (Action::CyclePlan, "plan"),
    (Action::Command, "command"),
    (Action::Search, "search"),
    (Action::NextFired, "fired"),
    (Action::NextBreak, "break"),
    (Action::NextEvidence, "record"),
    (Action::NextObserved, "observed"),
    (Action::CycleFilter, "filter"),
    (Action::ToggleDelivery, "delivery"),
    (Action::ComparePanel, "compare"),
    (Action::ChartView, "chart"),
];

/// The picker's keys: its own table, dispatched while the session list is shown
/// and written by its `?` help.
pub const PICKER_KEYMAP: &[Binding] = &[
    b(&[Char('?')], "?", Action::Help, "this help (↑/↓ scroll)"),
    b(&[Char('q')], "q", Action::Quit, "quit"),
    b(
        &[Char('/')],
        "/",
        Action::Search,
        "filter as you type (fuzzy, on every column)",
    ),
    b(
        &[Esc],
        "Esc",
        Action::Back,
        "clear the filter, close the help (never quits)",
    ),
    b(
        &[Enter],
        "Enter",
        Action::Open,
        "open the session (a sub-agent thread: as a what-if)",
    ),
    b(
        &[Char('s')],
        "s",
        Action::CycleSort,
        "sort by date → size → requests",
    ),
    b(&[Char('S')], "S", Action::ReverseSort, "reverse the order"),
    b(&[Up, Char('k')], "↑/k", Action::Up, "select up"),
    b(&[Down, Char('j')], "↓/j", Action::Down, "select down"),
    b(&[PageUp], "PgUp", Action::PageUp, "page up"),
    b(&[PageDown], "PgDn", Action::PageDown, "page down"),
    b(&[Home, Char('g')], "Home/g", Action::Top, "first session"),
    b(&[End, Char('G')], "End/G", Action::Bottom, "last session"),
];

/// The picker's hint line, most wanted first.
pub const PICKER_HINTS: &[(Action, &str)] = &[
    (Action::Search, "filter"),
    (Action::Open, "open"),
    (Action::CycleSort, "sort"),
    (Action::ReverseSort, "reverse"),
    (Action::Help, "help"),
    (Action::Quit, "quit"),
];

/// The action of a key press as the event loop reads it: on the picker's table
/// (`picker`) or the session's, with an input line open (`typing`) or not; the
/// keys outside the tables (Ctrl-C, Ctrl-Z) first, a key no table names last.
pub fn key_action(key: KeyEvent, picker: bool, typing: bool) -> Action {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        Char('c') if ctrl => return Action::Interrupt,
        Char('z') if ctrl => return Action::Suspend,
        F(12) if cfg!(debug_assertions) => return Action::DebugPanic,
        _ => {}
    }
    let found = if picker {
        picker_action_for(key, typing)
    } else {
        action_for(key, typing)
    };
    found.unwrap_or(Action::Unbound)
}

/// The action of a key while a session loads: q or Ctrl-C give up waiting (Esc
/// never quits); the rest wait.
pub fn loading_action(key: KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        Char('q') => Some(Action::Interrupt),
        Char('c') if ctrl => Some(Action::Interrupt),
        _ => None,
    }
}

/// The action a key press maps to in the picker. While its filter line is open
/// (`typing`), printable keys, Backspace and Enter edit or submit it; arrows,
/// pages and Esc keep their bindings.
pub fn picker_action_for(key: KeyEvent, typing: bool) -> Option<Action> {
    lookup(PICKER_KEYMAP, key, typing.then_some(false))
}

/// The picker's hint line, generated from [`PICKER_HINTS`] and [`PICKER_KEYMAP`].
pub fn picker_hints() -> String {
    hint_line(PICKER_HINTS, PICKER_KEYMAP)
}

/// The binding of an action in [`KEYMAP`].
pub fn binding(action: Action) -> Option<&'static Binding> {
    KEYMAP.iter().find(|b| b.action == action)
}

/// The action a key press maps to, if any. While an input line is open
/// (`typing`), printable keys, Backspace, Enter and Tab edit it.
pub fn action_for(key: KeyEvent, typing: bool) -> Option<Action> {
    lookup(KEYMAP, key, typing.then_some(true))
}

/// The short hint line of the footer, generated from [`HINTS`] and [`KEYMAP`].
pub fn hints() -> String {
    hint_line(HINTS, KEYMAP)
}

/// The action of a key in `table`. With an input line open (`typing` is
/// `Some(tab_completes)`), printable keys, Backspace and Enter (and Tab, where
/// the line completes) edit it first.
fn lookup(table: &[Binding], key: KeyEvent, typing: Option<bool>) -> Option<Action> {
    if let Some(tab_completes) = typing {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            Char(c) if !ctrl => {
                return Some(Action::Type(c));
            }
            Char('u') => return Some(Action::EraseLine),
            Backspace => return Some(Action::Erase),
            Enter => return Some(Action::Submit),
            Tab if tab_completes => return Some(Action::Complete),
            _ => {}
        }
    }
    table
        .iter()
        .find(|b| b.keys.contains(&key.code))
        .map(|b| b.action)
}

/// A hint line: each hinted action's key label and word, from its table.
fn hint_line(hints: &[(Action, &str)], table: &[Binding]) -> String {
    hints
        .iter()
        .filter_map(|(a, word)| {
            table
                .iter()
                .find(|b| b.action == *a)
                .map(|b| format!("{} {word}", b.label()))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

#[cfg(test)]
mod tests;
