//! The TUI's evidence (SPEC §10), Qwen send kinds and media (SPEC §2, §5) on
//! ratatui's TestBackend, and the keys that jump between evidence and observed
//! cache breaks, driven through the keymap's actions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, row, screen_color as screen};

mod common;

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::{App, Filter, ListRow, Overlay};
use mcscope::tui::keymap::{self, Action};
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[path = "tui_evidence/explain_panel.rs"]
mod explain_panel;
#[path = "tui_evidence/header.rs"]
mod header;
#[path = "tui_evidence/marks.rs"]
mod marks;

const BUDGET: &str = "sample-sessions/claude-budget.jsonl";
const TODAY: &str = "sample-sessions/qwen-memory/today.jsonl";
const KINDS: &str = "tests/fixtures/qwen/send-kinds.jsonl";

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The session at `path` opened as `mcscope PATH [opts]` opens it (`--at`
/// included), its background work done.
fn open(path: &Path, opts: Opts) -> App {
    let setup = cli::setup(path, &opts).unwrap();
    let k = cli::request_index(&setup.session, opts.at.as_deref()).unwrap();
    let mut a = App::session_at(setup, k);
    a.view_mut().unwrap().wait_background();
    a
}

/// The header: the lines above the age list's title.
fn header(lines: &[String]) -> Vec<String> {
    let end = lines
        .iter()
        .position(|l| l.contains("tool results by age"))
        .unwrap();
    lines[..end].to_vec()
}

fn key(a: &mut App, action: Action) {
    a.update(action);
    a.view_mut().unwrap().wait_background();
}

fn k(a: &App) -> usize {
    a.view().unwrap().k
}

// A Claude transcript with evidence: `common::evidence::evidence_session`.
use common::evidence::*;

/// count's trigger 1 and keep 1: the plan the cached records are compared with.
fn count_opts() -> Opts {
    Opts::default()
        .with("--trigger", "1")
        .with("--keep-recent", "1")
}

fn explain(a: &mut App, id: &str) -> Vec<String> {
    let v = a.view_mut().unwrap();
    v.run_command(&format!("explain {id}"));
    assert!(matches!(v.overlay, Some(Overlay::Explain { .. })));
    screen(a, 140, 50, false)
}
