//! The TUI, region by region on ratatui's TestBackend, and driven by actions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, row, screen_color as screen};

mod common;

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap::{self, Action};
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;
use std::path::Path;

#[path = "tui/background.rs"]
mod background;
#[path = "tui/diff.rs"]
mod diff;
#[path = "tui/help.rs"]
mod help;
#[path = "tui/keys.rs"]
mod keys;
#[path = "tui/layout.rs"]
mod layout;
#[path = "tui/plan.rs"]
mod plan;

const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const MEMORY: &str = "sample-sessions/qwen-memory/session.jsonl";
const SIZE: &str = "sample-sessions/claude-size.jsonl";

fn sample(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn app(path: &str, kind: Option<KindArg>) -> App {
    let opts = Opts::default().with_some("--policy", kind);
    App::session(cli::setup(&sample(path), &opts).unwrap())
}

/// The age list region: from its title to the diff's title.
fn list_region(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("tool results by age"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    lines[start + 2..end]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect()
}

fn view_mut(app: &mut App) -> &mut mcscope::tui::app::SessionView {
    app.view_mut().unwrap()
}
