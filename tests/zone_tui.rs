//! The TUI's times in the display zone (SPEC §7a): the picker's date column
//! and the header's request time agree with the timeline's text, and `--color
//! never` draws no colour whatever the environment says. One test: the zone is
//! process-wide.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use mcscope::color::ColorChoice;
use mcscope::tui::app::App;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use std::time::{Duration, UNIX_EPOCH};

fn lines(app: &App, w: u16, h: u16, theme: Theme) -> (Vec<String>, bool) {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ui::draw(f, app, theme)).unwrap();
    let buf = t.backend().buffer().clone();
    let coloured = buf.content().iter().any(|c| c.fg != Color::Reset);
    let text = (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect();
    (text, coloured)
}

#[test]
fn the_picker_and_the_header_show_the_display_zone_and_never_means_no_colour() {
    mcscope::zone::set_display(mcscope::zone::parse_zone("Europe/Berlin").unwrap());
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    // 2026-02-14T21:28:40Z: 22:28 in Berlin.
    let modified = UNIX_EPOCH + Duration::from_secs(1_771_104_520);
    let picker = App::picker("here".into(), vec![(demo.clone(), 100, modified)]);
    let (text, _) = lines(&picker, 140, 20, Theme::new(false));
    assert!(
        text.iter().any(|l| l.contains("2026-02-14 22:28 CET")),
        "{}",
        text.join("\n")
    );
    let setup = mcscope::setup::setup(&demo, &Default::default()).unwrap();
    let app = App::session(setup);
    let palette = mcscope::theme::Palette::default();
    let (text, coloured) = lines(
        &app,
        160,
        30,
        Theme::with_choice(palette, ColorChoice::Never),
    );
    assert!(text[0].contains("2026-04-02 12:29:55 CEST"), "{}", text[0]);
    assert!(!coloured, "--color never draws no colour");
    let (_, coloured) = lines(
        &app,
        160,
        30,
        Theme::with_choice(palette, ColorChoice::Always),
    );
    assert!(coloured, "--color always draws colour");
}
