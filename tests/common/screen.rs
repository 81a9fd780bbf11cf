//! The screen as a user sees it: the app drawn on a TestBackend, read back as
//! lines of text. Included by the TUI test files with `#[path]`.
#![allow(dead_code)]

use mcscope::tui::app::App;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The app drawn at `w`×`h` without colour, as lines of text.
pub fn screen(app: &App, w: u16, h: u16) -> Vec<String> {
    screen_color(app, w, h, false)
}

/// The app drawn at `w`×`h`, with colour or not, as lines of text.
pub fn screen_color(app: &App, w: u16, h: u16, color: bool) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    t.draw(|f| ui::draw(f, app, Theme::new(color)))
        .expect("the app draws");
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

/// The first line holding `needle` (a failed test when there is none).
pub fn row<'a>(lines: &'a [String], needle: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}:\n{}", lines.join("\n")))
}

/// Whether any line holds `needle`.
pub fn has(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}
