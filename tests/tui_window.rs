//! What fills the window in the TUI (SPEC §12, §15.22): the footer's stacked
//! bar under the sparklines (its last line) and the `w` panel's figures, on
//! ratatui's TestBackend at 80 and 200 columns, driven by the real keymap, and
//! checked against `timeline --format json`'s `context`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::screen;

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use serde_json::Value;
use std::path::{Path, PathBuf};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn app(path: &str, kind: Option<KindArg>) -> App {
    let opts = Opts::default().with_some("--policy", kind);
    let mut a = App::session(cli::setup(&sample(path), &opts).unwrap());
    a.view_mut().unwrap().wait_background();
    a
}

/// A key press through the real keymap.
fn key(a: &mut App, code: KeyCode) {
    let action = keymap::action_for(KeyEvent::from(code), a.in_text_input()).unwrap();
    a.update(action);
}

fn press(a: &mut App, c: char) {
    key(a, KeyCode::Char(c));
}

fn show(lines: &[String]) -> String {
    let all = lines.join("\n");
    if std::env::var_os("SHOW").is_some() {
        println!("{all}");
    }
    all
}

/// `timeline --format json`'s context of every request.
fn cli_contexts(path: &str, args: &[&str]) -> Vec<Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["timeline", path, "--format", "json"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let tl: Value = serde_json::from_slice(&out.stdout).unwrap();
    tl["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["context"].clone())
        .collect()
}

/// The figures of one panel line: its words after the name, as numbers.
fn figure(lines: &[String], name: &str) -> String {
    let l = lines
        .iter()
        .find(|l| l.contains(&format!("│{name} ")) || l.contains(&format!("│    {name} ")))
        .unwrap_or_else(|| panic!("no {name:?} line:\n{}", lines.join("\n")));
    let inside = &l[l.find('│').unwrap() + '│'.len_utf8()..];
    let rest = &inside[inside.find(name).unwrap() + name.len()..];
    rest.split_whitespace().next().unwrap().to_string()
}

fn int(v: &Value) -> String {
    match v.as_i64() {
        Some(n) if n < 0 => format!("-{}", mcscope::numbers::fmt_int(n.unsigned_abs())),
        Some(n) => mcscope::numbers::fmt_int(n as u64),
        None => "?".into(),
    }
}

/// The panel shows `timeline --format json`'s context of the request shown.
fn assert_panel(lines: &[String], c: &Value) {
    for (tool, t) in c["tool_results"].as_object().unwrap() {
        assert_eq!(figure(lines, tool), int(t), "{tool}");
    }
    let tools: i64 = c["tool_results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    assert_eq!(figure(lines, "█ tool results"), int(&Value::from(tools)));
    assert_eq!(figure(lines, "▓ thinking"), int(&c["thinking"]));
    assert_eq!(
        figure(lines, "▒ assistant text + tool inputs"),
        int(&c["assistant_text"])
    );
    assert_eq!(figure(lines, "░ user text"), int(&c["user_text"]));
    assert_eq!(figure(lines, "▚ images"), int(&c["images"]));
    assert_eq!(
        figure(lines, "· unattributed: system prompt, tools…"),
        int(&c["unattributed"])
    );
}

/// At 200 columns the line under the footer's sparklines is request k's
/// window as one stacked bar as wide as the sparklines: its glyphs' counts are the parts of
/// `timeline --format json`'s context, by largest remainder (SPEC §12, §15.22).
#[test]
fn spec_12_footer_bar_at_200_columns_under_the_sparklines_holds_the_cli_figures() {
    let a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 200, 50);
    let all = show(&lines);
    // Right under the sparklines (the last of them is `cache rd`).
    let spark = lines
        .iter()
        .position(|l| l.starts_with("cache rd "))
        .unwrap();
    let last = spark + 1;
    assert!(lines[last].starts_with("window~  "), "{all}");
    let c = &cli_contexts(DEMO, &["--policy", "idle"])[5];
    let tools: u64 = c["tool_results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let values = [
        tools,
        c["thinking"].as_u64().unwrap(),
        c["assistant_text"].as_u64().unwrap(),
        c["user_text"].as_u64().unwrap(),
        c["images"].as_u64().unwrap(),
        c["unattributed"].as_i64().unwrap().max(0) as u64,
    ];
    // The sparklines' cells: the width less the label and one column.
    let want = mcscope::tui::ui::stacked_widths(&values, 200 - 9 - 1);
    let bar = &lines[last]["window~  ".len()..];
    for (glyph, w) in ['█', '▓', '▒', '░', '▚', '·'].iter().zip(&want) {
        assert_eq!(
            bar.chars().filter(|c| c == glyph).count(),
            *w,
            "{glyph} in {bar:?}"
        );
    }
    assert!(want[0] > 0 && want[5] > 0, "{want:?}");
    assert_eq!(want.iter().sum::<usize>(), 190);
}

/// At 80×24 the bar is the footer's line given up first (lowest priority,
/// SPEC §15.22) while the sparkline stays; `w` shows the figures there.
#[test]
fn spec_15_22_at_80_columns_the_bar_goes_first_and_w_shows_the_figures() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 80, 24);
    let all = show(&lines);
    assert!(lines.iter().any(|l| l.starts_with("context  ")), "{all}");
    assert!(!lines.iter().any(|l| l.starts_with("window~")), "{all}");
    press(&mut a, 'w');
    let lines = screen(&a, 80, 24);
    show(&lines);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("request 6 of 6 · recorded prompt P(k) 23,394 tokens"))
    );
    assert_panel(&lines, &cli_contexts(DEMO, &["--policy", "idle"])[5]);
}

/// Through the real keymap: `w` opens the panel, ←/Home step the request
/// with the panel following, `w` and Esc close it; `?` lists the key.
#[test]
fn spec_12_w_panel_through_the_keymap_follows_the_request() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    let cli = cli_contexts(DEMO, &["--policy", "idle"]);
    press(&mut a, 'w');
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Window { .. })
    ));
    assert_panel(&screen(&a, 200, 50), &cli[5]);
    key(&mut a, KeyCode::Left);
    a.view_mut().unwrap().wait_background();
    let lines = screen(&a, 200, 50);
    assert!(
        lines.iter().any(|l| l.contains("request 5 of 6")),
        "{}",
        show(&lines)
    );
    assert_panel(&lines, &cli[4]);
    // Request 6 cleared Read and Grep: their figures differ from request 5's.
    assert_ne!(cli[4]["tool_results"], cli[5]["tool_results"]);
    key(&mut a, KeyCode::Home);
    let lines = screen(&a, 200, 50);
    assert!(lines.iter().any(|l| l.contains("request 1 of 6")));
    assert_panel(&lines, &cli[0]);
    press(&mut a, 'w');
    assert!(a.view().unwrap().overlay.is_none());
    press(&mut a, 'w');
    key(&mut a, KeyCode::Esc);
    assert!(a.view().unwrap().overlay.is_none());
    // The help, from the keymap table.
    assert!(
        keymap::help_lines()
            .iter()
            .any(|l| l.contains("w") && l.contains("what fills the window")),
        "{:?}",
        keymap::help_lines()
    );
}

/// A Qwen session (functionResponse parts): the bridged reads are under
/// `read_file` in the panel, as in the CLI.
#[test]
fn spec_12_w_panel_on_a_qwen_session() {
    let path = "sample-sessions/qwen-memory/today.jsonl";
    let mut a = app(path, None);
    press(&mut a, 'w');
    let lines = screen(&a, 200, 50);
    show(&lines);
    let cli = cli_contexts(path, &[]);
    assert!(cli[5]["tool_results"].get("read_file").is_some());
    assert_panel(&lines, &cli[5]);
}
