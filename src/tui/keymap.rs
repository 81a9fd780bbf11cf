//! The one table of keys: it dispatches them and it writes the help. Every input
//! the event loop reads becomes an [`Action`] here ([`key_action`], and the
//! loop's mouse and resize events), handled by `App::update`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    /// Typed text in an input line (search, `:` command, export path): not in the
    /// table, every printable key makes one while an input line is open.
    Type(char),
    /// Backspace in an input line.
    Erase,
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
        match key.code {
            Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Some(Action::Type(c));
            }
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

/// The help: every binding of the keymap, the `:` commands, then a legend of the
/// glyphs and marks.
pub fn help_lines() -> Vec<String> {
    let mut lines: Vec<String> = KEYMAP
        .iter()
        .map(|b| format!("{:>6}  {}", b.label(), b.help()))
        .collect();
    lines.push(format!(
        "{:>6}  quit from anywhere; Ctrl-Z suspends",
        "Ctrl-C"
    ));
    lines.push(String::new());
    lines.extend(command_and_kind_lines());
    lines.push(String::new());
    lines.push("Legend: statuses in the age list".into());
    use crate::policy::Status;
    for (st, what) in [
        (Status::Kept, "sent as recorded"),
        (Status::Cleared, "replaced by the placeholder"),
        (Status::Protected, "managed memory, never cleared"),
        (Status::AlreadyCleared, "the transcript already cleared it"),
        (Status::Cut, "cut by Claude Code (recorded)"),
        (Status::ErrorKept, "an error result, kept"),
        (Status::NotCompactable, "a tool the plans never clear"),
    ] {
        lines.push(format!(
            "  {} {:<16} {what}",
            crate::report::glyph(st),
            st.name()
        ));
    }
    lines.push("  ↗ symlink escape: the path leaves the root".into());
    lines.push("  ? unresolved or ambiguous id".into());
    lines.push(String::new());
    lines.push("Legend: the footer's marks line, under the".into());
    lines.push("  request's own column (one column may hold".into());
    lines.push("  several requests: the first mark listed wins)".into());
    lines.push("  ! an observed cache break".into());
    lines.push("  ✕ the simulated cache prefix broke here".into());
    lines.push("  ◇ harness evidence in the transcript".into());
    lines.push("  ^ a compaction before this request".into());
    lines.push("  ▲ a plan fired at this request".into());
    lines.push("  the request shown is highlighted on every line".into());
    lines.push("  sim ctx~ the simulated context: recorded prompt".into());
    lines.push("           size − tokens cleared (an estimate)".into());
    lines.push(String::new());
    lines.push("Legend: the diff and the header".into());
    lines.push("  - removed  + added  ~ changed (left: local,".into());
    lines.push("    right: wire); ⋯ n unchanged lines ⋯ is a fold".into());
    lines.push("  * a parameter set by a flag or changed here".into());
    lines.push("  ˢ set by the session's sidecar (.mcscope.json)".into());
    lines.push("  ᶜ set by the configuration file".into());
    lines
}

/// The widest line of the help's text: whole in the panel on the smallest screen
/// the TUI draws (`ui::MIN_WIDTH`), as the keymap's own lines are.
const HELP_TEXT_WIDTH: usize = 56;

/// The help's `:` commands and plan kinds, made from the parameter table and
/// the harness registry: a command or a harness added there is listed here.
fn command_and_kind_lines() -> Vec<String> {
    use crate::policy::params::PARAMS;
    use crate::policy::{Delivery, PlanKind};
    let indented = |text: &str| -> Vec<String> {
        crate::tui::layout::wrap(text, HELP_TEXT_WIDTH - 2)
            .into_iter()
            .map(|l| format!("  {l}"))
            .collect()
    };
    let mut lines = vec!["Commands (:), a unique prefix of an id is enough:".to_string()];
    let mut commands = vec![":57".to_string(), ":explain KuPA".to_string()];
    for p in PARAMS {
        let Some(command) = p.command else { continue };
        let value = match (p.key, p.set.as_ref().and_then(|s| s.e_g)) {
            (_, Some(e_g)) => e_g.to_string(),
            ("kind", None) => "KIND".into(),
            ("delivery", None) => {
                let names: Vec<&str> = <Delivery as strum::VariantArray>::VARIANTS
                    .iter()
                    .map(|d| d.name())
                    .collect();
                names.join("|")
            }
            _ => "VALUE".into(),
        };
        commands.push(format!(":{command} {value}"));
    }
    // A command and its value stay on one line.
    let mut line = String::new();
    for c in commands {
        if line.chars().count() + 2 + c.chars().count() > HELP_TEXT_WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str("  ");
        line.push_str(&c);
    }
    lines.push(line);
    lines.push("  (Tab completes a command name)".into());
    lines.push(String::new());
    lines.push("Plan kinds (p, :policy KIND), each preset's in turn:".into());
    for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
        let kinds: Vec<&str> = h.rules().kinds.iter().map(|k| k.name()).collect();
        lines.extend(indented(&format!("{}: {}", h.name(), kinds.join(" "))));
    }
    let api = crate::harness::PresetId::SERVER;
    let kinds: Vec<&str> = api.rules().kinds.iter().map(|k| k.name()).collect();
    lines.extend(indented(&format!(
        "{} (--preset api): {}",
        api.name(),
        kinds.join(" ")
    )));
    lines.push(format!(
        "{}, the harness's own choice at each request:",
        PlanKind::Auto.name()
    ));
    for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
        lines.extend(indented(&h.asks().auto_words()));
    }
    lines
}

/// The picker's help: its keymap table, then what the marks mean.
pub fn picker_help_lines() -> Vec<String> {
    let mut lines: Vec<String> = PICKER_KEYMAP
        .iter()
        .map(|b| format!("{:>6}  {}", b.label(), b.help()))
        .collect();
    lines.push(format!("{:>6}  quit from anywhere", "Ctrl-C"));
    lines.push(String::new());
    lines.push("Columns: date modified, harness, project (the".into());
    lines.push("  session's cwd, else its folder name decoded),".into());
    lines.push("  requests, tool results, size, first prompt".into());
    lines.push(String::new());
    lines.push("Marks in the prompt column:".into());
    lines.push("  [sub-agent]     a sub-agent transcript: a what-if".into());
    lines.push("  ↳ sub-agent n   an inline sub-agent thread of the".into());
    lines.push("                  session above: Enter opens it alone".into());
    lines.push("  [empty] [summary only] [no messages]  nothing to".into());
    lines.push("                  plan: always listed last".into());
    lines.push("  …               not read yet (filled in as read)".into());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help lists every `:` command of the parameter table, each preset's
    /// `p` cycle and each harness's `auto`, as the table and the registry say
    /// them (it once listed Claude's and Qwen's only).
    #[test]
    fn the_help_s_commands_and_kinds_come_from_the_table_and_the_registry() {
        let lines = help_lines();
        assert!(lines.iter().all(|l| l.chars().count() <= HELP_TEXT_WIDTH));
        let flat = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        for c in crate::policy::params::commands() {
            assert!(flat.contains(&format!(":{c} ")), ":{c}: {flat}");
        }
        assert!(flat.contains(":mask-protect 30000") && flat.contains(":keep 3"));
        for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
            let kinds: Vec<&str> = h.rules().kinds.iter().map(|k| k.name()).collect();
            let cycle = format!("{}: {}", h.name(), kinds.join(" "));
            assert!(flat.contains(&cycle), "{cycle}");
            assert!(flat.contains(&h.asks().auto_words()), "{}", h.name());
        }
        assert!(flat.contains("opencode: auto prune recorded"));
        assert!(flat.contains("api (--preset api): api recorded"));
    }

    /// Each parameter a key steps: its label and words come from the table's
    /// keys and step, and read in the help as they always did.
    #[test]
    fn the_keys_that_step_a_parameter_are_the_table_s() {
        let mut found = 0;
        for p in crate::policy::params::PARAMS {
            let Some(k) = p.keys else { continue };
            for (key, more) in [(k.more, true), (k.less, false)] {
                let b = KEYMAP
                    .iter()
                    .find(|b| b.keys[0] == Char(key))
                    .unwrap_or_else(|| panic!("{}: no key {key}", p.key));
                assert_eq!(b.label(), key.to_string(), "{}", p.key);
                assert_eq!(b.help(), k.help(more), "{}", p.key);
                found += 1;
            }
        }
        assert_eq!(found, 6);
        let help = help_lines();
        for line in [
            "     +  keep_recent + 1 (api: keep)",
            "     -  keep_recent - 1 (api: keep)",
            "     ]  gap threshold + 5 min",
            "     [  gap threshold - 5 min",
            "     }  size threshold + 50,000 chars",
            "     {  size threshold - 50,000 chars",
        ] {
            assert!(help.iter().any(|l| l == line), "{line:?} not in the help");
        }
    }

    #[test]
    fn every_key_maps_to_one_action() {
        for table in [KEYMAP, PICKER_KEYMAP] {
            let mut seen = std::collections::HashSet::new();
            for binding in table {
                for k in binding.keys {
                    assert!(seen.insert(format!("{k:?}")), "{k:?} bound twice");
                }
            }
        }
    }

    #[test]
    fn keys_outside_the_tables_become_actions_too() {
        let key = |c, m| KeyEvent::new(c, m);
        let (none, ctrl) = (KeyModifiers::NONE, KeyModifiers::CONTROL);
        for (picker, typing) in [(false, false), (false, true), (true, false), (true, true)] {
            let at = |k| key_action(k, picker, typing);
            assert_eq!(at(key(Char('c'), ctrl)), Action::Interrupt);
            assert_eq!(at(key(Char('z'), ctrl)), Action::Suspend);
            assert_eq!(at(key(Insert, none)), Action::Unbound);
        }
        // A printable key types while an input line is open, else is its binding.
        assert_eq!(
            key_action(key(Char('q'), none), false, true),
            Action::Type('q')
        );
        assert_eq!(key_action(key(Char('q'), none), false, false), Action::Quit);
        assert_eq!(key_action(key(Enter, none), true, false), Action::Open);
        assert_eq!(key_action(key(Enter, none), true, true), Action::Submit);
        assert_eq!(
            key_action(key(Char('x'), none), true, false),
            Action::Unbound
        );
        // While a session loads only q and Ctrl-C do anything.
        assert_eq!(
            loading_action(key(Char('q'), none)),
            Some(Action::Interrupt)
        );
        assert_eq!(
            loading_action(key(Char('c'), ctrl)),
            Some(Action::Interrupt)
        );
        assert_eq!(loading_action(key(Esc, none)), None);
    }

    #[test]
    fn the_picker_types_into_its_filter_only_after_slash() {
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(picker_action_for(key(Char('q')), false), Some(Action::Quit));
        assert_eq!(
            picker_action_for(key(Char('q')), true),
            Some(Action::Type('q'))
        );
        assert_eq!(
            picker_action_for(key(Char('s')), false),
            Some(Action::CycleSort)
        );
        assert_eq!(picker_action_for(key(Enter), false), Some(Action::Open));
        assert_eq!(picker_action_for(key(Enter), true), Some(Action::Submit));
        assert_eq!(picker_action_for(key(Esc), true), Some(Action::Back));
        assert_eq!(picker_action_for(key(Down), true), Some(Action::Down));
        assert_eq!(
            picker_hints(),
            "/ filter  Enter open  s sort  S reverse  ? help  q quit"
        );
    }
}
