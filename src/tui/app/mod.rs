//! TUI state and `update(Action)`: no drawing, no terminal. Tests drive it directly.
//!
//! `mod.rs` holds the state (`App`, `SessionView`) and the app-level
//! `update`; the view's behaviour is spread by concern: `view` (the plan at
//! request k, stepping, scrolling), `update` (actions on the view and its
//! panels), `tune` (parameters and `:` commands), `list` (the age list, its
//! filter and search), `marks` (the footer's timeline), `bodies` (the
//! printed request bodies and their diff), `panels` (explain, content, export),
//! `compare` (the compare panel's and the chart's keys), `pointer` (the mouse),
//! `redraw` (whether a frame is needed). What needs the terminal (load a
//! session, copy, suspend) comes back as [`Effect`]s for the event loop.

mod bodies;
mod compare;
mod header;
mod list;
mod marks;
mod notes;
mod panels;
mod pointer;
mod redraw;
mod tune;
mod update;
mod view;

use bodies::{DiffJob, Drawn, diff_job, draw_bodies};
pub use header::{GROUP_SEP, Group, Piece as HeaderPiece, Tone, source_mark};
pub use list::{Filter, ListRow};
pub use marks::{
    Mark, Marked, SettingTotals, evidence_marks, holds_evidence, named_ids, setting_totals,
    timeline_marks,
};
use marks::{TimelineInput, timeline_job};
pub use notes::SILENT;
pub use tune::{COMMANDS, complete};

use super::keymap::Action;
pub use super::keymap::Pointer;
use crate::analysis::{self, Explain, PlanAt, Setup, WireInputs};
use crate::diff::{self, Diff, Item};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::Session;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub use crate::tui::background::BACKGROUND;
use crate::tui::background::{Current, Job, Lost};

/// Requests whose records add up to more than this (256 KB) are diffed in the background,
/// so that no keystroke waits for a big diff.
pub const BACKGROUND_DIFF_BYTES: usize = 256 << 10;

/// The size a view assumes until the terminal says its own.
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// How long one diff may take before it settles for a coarser result (the
/// header then says "coarse"). Debug builds, which the tests run, are many
/// times slower and share a loaded machine: there a deadline would make the
/// rows a test reads depend on the load, so they wait longer.
pub const DIFF_BUDGET: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(2)
} else {
    Duration::from_millis(50)
};
/// Unchanged lines shown around each change before a run folds.
pub const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Diff,
}

/// A panel over the session view.
#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Explain {
        explain: Explain,
        scroll: usize,
    },
    Search(String),
    /// The `:` command line.
    Command(String),
    /// A result's full original content (`v`), by lines.
    Content {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Export(String),
    /// The export line's file exists: replace it? (y replaces, any other key keeps it).
    ConfirmExport(String),
    /// The compare panel (`c`); its state is `SessionView::compare`.
    Compare,
    /// Recorded vs simulated context per request (`C`).
    Chart,
    /// What fills the window at the request shown (`w`, SPEC §12), scrolled.
    Window {
        scroll: usize,
    },
    /// Where the cache-write money went (`$`, SPEC §16.S): the break selected.
    Bill {
        selected: usize,
    },
}

/// Where the diff scrolls to when its text (re)arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Landing {
    /// The selected result's block.
    Selected,
    /// The first change that matters (a `cache_edits` block, a placeholder).
    FirstChange,
}

pub use super::picker::Picker;

/// One open session: its plan at the current request and everything shown.
pub struct SessionView {
    pub setup: Setup,
    /// The parameters it was opened with: the header marks what changed.
    pub opened_with: Policy,
    pub k: usize,
    pub plan: PlanAt,
    /// The footer's marks at each request (request k is `marks[k - 1]`),
    /// computed in the background after each change: empty until they arrive.
    pub marks: Vec<Mark>,
    /// The session's evidence beside the selected plan (SPEC §10), computed with
    /// the marks: None until it arrives.
    pub evidence: Option<Arc<analysis::EvidenceReport>>,
    /// The requests whose records name each tool id (with `evidence`): the
    /// explain panel looks its id up instead of going through every request.
    pub named: Arc<std::collections::HashMap<String, Vec<usize>>>,
    /// The evidence without the plan's part, and the parameters it was made with.
    evidence_base: Option<(Policy, Arc<crate::evidence::SessionEvidence>)>,
    /// The session totals of the current setting (None while they are counted).
    pub totals: Option<SettingTotals>,
    /// The footer's marks, the evidence and the totals, on another thread.
    timeline_job: Job<TimelineInput, Marked>,
    /// What every plan kind `p` reaches reads of the session, computed on
    /// another thread when the view opens (`Setup::warm`).
    warm_job: Job<Setup, ()>,
    /// Big requests' bodies, printed and diffed on another thread.
    diff_job: Job<DiffJob, Drawn>,
    pub diff: Diff,
    pub items: Vec<Item>,
    pub expanded: HashSet<usize>,
    pub unfold_all: bool,
    pub diff_top: usize,
    pub hscroll: usize,
    pub selected: usize,
    pub focus: Focus,
    pub overlay: Option<Overlay>,
    pub status: Option<String>,
    /// The search that `n`/`N` repeat, until Esc clears it.
    pub search: Option<String>,
    pub filter: Filter,
    /// The terminal's size (columns, rows): how far the help scrolls.
    pub size: (u16, u16),
    /// Text for the terminal's clipboard (`y`), taken by the event loop.
    pub clipboard: Option<String>,
    /// The result whose page the export line writes (`E`); None: the line
    /// writes the wire payload (`e`).
    pub page_export: Option<Explain>,
    landing: Landing,
    /// The local messages read so far for the current view.
    messages: crate::wire::MessageCache,
    /// Following the file as it grows (`f`), and when it was last looked at.
    follow: Option<(crate::load::Follower, std::time::Instant)>,
    /// The guided demo's current stage (`mcscope demo`).
    pub demo: Option<usize>,
    /// The compare panel's rows, computed in the background (`c`).
    pub compare: super::compare_panel::ComparePanel,
}

pub enum Screen {
    Picker(Box<Picker>),
    Session(Box<SessionView>),
}

pub struct App {
    pub screen: Screen,
    /// The picker to go back to with Esc, when the session was opened from one.
    pub back: Option<Box<Picker>>,
    pub quit: bool,
    /// What the picker asked to open, for the caller to load ([`App::take_open`]).
    pub open_request: Option<super::picker::Target>,
    /// The terminal's size (columns, rows), from `Action::Resize`.
    pub size: (u16, u16),
    /// Ctrl-Z asked to give the terminal back (the event loop does it).
    suspend: bool,
    /// Something shown changed since the last frame ([`App::needs_redraw`]).
    dirty: bool,
    /// The background progress last seen by [`App::tick`].
    progress: redraw::Progress,
}

/// What `update` asks of the terminal, which the event loop owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Load what the picker opened.
    Open(super::picker::Target),
    /// Put the text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Give the terminal back and stop (Ctrl-Z).
    Suspend,
}

impl App {
    pub fn session(setup: Setup) -> App {
        let k = setup.last_request();
        App::session_at(setup, k)
    }

    /// A session shown at request `k` (`--at`).
    pub fn session_at(setup: Setup, k: usize) -> App {
        App::with_screen(Screen::Session(Box::new(SessionView::at(setup, k))))
    }

    /// The session list, summarised in the background.
    pub fn picker(title: String, sessions: Vec<(PathBuf, u64, SystemTime)>) -> App {
        App::with_picker(Picker::scanning(title, sessions, Default::default()))
    }

    pub fn with_picker(picker: Picker) -> App {
        App::with_screen(Screen::Picker(Box::new(picker)))
    }

    fn with_screen(screen: Screen) -> App {
        App {
            screen,
            back: None,
            quit: false,
            open_request: None,
            size: DEFAULT_SIZE,
            suspend: false,
            dirty: true,
            progress: Default::default(),
        }
    }

    /// The picker's rows that the background scan has summarised since the last
    /// tick (also while a session is open over it).
    pub fn poll_picker(&mut self) -> bool {
        match &mut self.screen {
            Screen::Picker(p) => p.poll(),
            Screen::Session(_) => self.back.as_mut().is_some_and(|p| p.poll()),
        }
    }

    /// What the picker asked to open, once.
    pub fn take_open(&mut self) -> Option<super::picker::Target> {
        self.open_request.take()
    }

    /// What the last actions asked of the terminal, once each.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        let mut out = Vec::new();
        if std::mem::take(&mut self.suspend) {
            out.push(Effect::Suspend);
        }
        if let Some(t) = self.take_open() {
            out.push(Effect::Open(t));
        }
        if let Some(text) = self.view_mut().and_then(|v| v.clipboard.take()) {
            out.push(Effect::Copy(text));
        }
        out
    }

    /// The terminal's size: the view scrolls its pages by it.
    fn set_size(&mut self, width: u16, height: u16) {
        self.size = (width, height);
        if let Some(v) = self.view_mut() {
            v.size = (width, height);
        }
    }

    pub fn view(&self) -> Option<&SessionView> {
        match &self.screen {
            Screen::Session(v) => Some(v),
            Screen::Picker(_) => None,
        }
    }

    pub fn view_mut(&mut self) -> Option<&mut SessionView> {
        match &mut self.screen {
            Screen::Session(v) => Some(v),
            Screen::Picker(_) => None,
        }
    }

    /// The one place state changes: every input the event loop reads comes here
    /// as an action.
    pub fn update(&mut self, action: Action) {
        // Whatever the action did, the next frame shows it (a resize to the same
        // size changes nothing).
        self.dirty |= !matches!(action, Action::Resize(w, h) if (w, h) == self.size);
        match action {
            Action::Interrupt => {
                self.quit = true;
                return;
            }
            Action::Suspend => {
                self.suspend = true;
                return;
            }
            Action::Unbound => return self.unbound_key(),
            Action::Resize(w, h) => return self.set_size(w, h),
            Action::Pointer(m, col, row) => return self.pointer(m, col, row),
            Action::DebugPanic => panic!("mcscope: debug panic trigger (F12)"),
            _ => {}
        }
        match &mut self.screen {
            Screen::Picker(p) => match p.update(action) {
                Some(super::picker::Outcome::Quit) => self.quit = true,
                Some(super::picker::Outcome::Open(t)) => self.open_request = Some(t),
                None => {}
            },
            Screen::Session(v) => {
                if v.overlay.is_none() {
                    match action {
                        Action::Quit => {
                            self.quit = true;
                            return;
                        }
                        // Esc with nothing to close or clear: back to the session list,
                        // if there is one; at the top level nothing.
                        Action::Back
                            if v.demo.is_none()
                                && v.search.is_none()
                                && v.filter == Filter::All =>
                        {
                            if let Some(p) = self.back.take() {
                                self.screen = Screen::Picker(p);
                            }
                            return;
                        }
                        _ => {}
                    }
                }
                v.update(action);
            }
        }
    }

    /// A mouse event at (`col`, `row`) on a screen of `size` (tests: the event
    /// loop sends both as actions).
    pub fn mouse(&mut self, m: Pointer, col: u16, row: u16, size: (u16, u16)) {
        self.update(Action::Resize(size.0, size.1));
        self.update(Action::Pointer(m, col, row));
    }

    /// The terminal's size, for what scrolls by pages (as `Action::Resize`).
    pub fn resize(&mut self, width: u16, height: u16) {
        self.update(Action::Resize(width, height));
    }

    /// The picker's selection, to be opened by the caller (loading may take a while).
    pub fn picked(&self) -> Option<PathBuf> {
        match &self.screen {
            Screen::Picker(p) => p.target().map(|t| t.path),
            Screen::Session(_) => None,
        }
    }

    /// Opens a loaded session from the picker at request `k`; Esc comes back to it.
    pub fn open(&mut self, setup: Setup, k: usize) {
        let mut view = SessionView::at(setup, k);
        view.size = self.size;
        self.dirty = true;
        let view = Screen::Session(Box::new(view));
        if let Screen::Picker(p) = std::mem::replace(&mut self.screen, view) {
            self.back = Some(p);
        }
    }

    /// Typed text for an input panel (search, command, export path). True when
    /// consumed.
    pub fn input(&mut self, c: char) -> bool {
        self.typed(Action::Type(c))
    }

    pub fn backspace(&mut self) -> bool {
        self.typed(Action::Erase)
    }

    pub fn submit(&mut self) -> bool {
        self.typed(Action::Submit)
    }

    fn typed(&mut self, a: Action) -> bool {
        if !self.in_text_input() {
            return false;
        }
        self.update(a);
        true
    }

    /// A key no binding names: it still closes the help ("any other key closes").
    fn unbound_key(&mut self) {
        if let Screen::Picker(p) = &mut self.screen {
            p.help = None;
        }
        if let Some(v) = self.view_mut()
            && matches!(v.overlay, Some(Overlay::Help { .. }))
        {
            v.overlay = None;
        }
    }

    pub fn in_text_input(&self) -> bool {
        if let Screen::Picker(p) = &self.screen {
            return p.typing && p.help.is_none();
        }
        self.view().is_some_and(|v| {
            matches!(
                v.overlay,
                Some(
                    Overlay::Search(_)
                        | Overlay::Export(_)
                        | Overlay::Command(_)
                        | Overlay::ConfirmExport(_)
                )
            )
        })
    }
}
