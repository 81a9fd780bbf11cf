//! The TUI's layers point one way (DESIGN.md: "nothing below imports from
//! above"): `ui` draws and may read `app`; the state — `app`, the picker, the
//! comparison panel — never asks the drawing code anything. What both need
//! (the screen's geometry, the helps' lines) lives below them, in `layout` and
//! `keymap`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

/// The state's sources: everything under src/tui/app/, the picker (and its
/// folder) and the comparison panel.
fn state_sources() -> Vec<PathBuf> {
    let tui = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = vec![tui.join("picker.rs"), tui.join("compare_panel.rs")];
    let mut dirs = vec![tui.join("app"), tui.join("picker")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files
}

/// Whether `line` (its code, not a `//` comment) names the `ui` module: `ui::…`,
/// `…::ui`, or `ui` in a `use` list.
fn names_ui(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let bytes: Vec<char> = code.chars().collect();
    let is_use = starts_use(code);
    (0..bytes.len()).any(|i| {
        if bytes[i..].iter().take(2).collect::<String>() != "ui" {
            return false;
        }
        let before = if i == 0 { None } else { Some(bytes[i - 1]) };
        let after = bytes.get(i + 2).copied();
        if before.is_some_and(ident) || after.is_some_and(ident) {
            return false;
        }
        let rest: String = bytes[i + 2..].iter().collect();
        let head: String = bytes[..i].iter().collect();
        rest.starts_with("::") || head.ends_with("::") || is_use
    })
}

/// Whether a line begins a `use` statement (any visibility).
fn starts_use(line: &str) -> bool {
    let t = line.trim_start();
    ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The file's lines with each `use` statement that rustfmt broke over several
/// lines joined into one, numbered by its first line.
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        match out.last_mut() {
            Some((_, joined)) if open => {
                joined.push(' ');
                joined.push_str(code.trim());
            }
            _ => out.push((n + 1, line.to_string())),
        }
        if starts_use(code) || open {
            open = !code.contains(';');
        }
    }
    out
}

#[test]
fn a_use_list_over_several_lines_is_read_whole() {
    let text = "use crate::tui::{\n    keymap,\n    ui,\n};\nlet x = 1;\n";
    let joined = statements(text);
    assert_eq!(joined[0].0, 1);
    assert!(names_ui(&joined[0].1), "{joined:?}");
    assert_eq!(joined[1], (5, "let x = 1;".to_string()));
}

#[test]
fn the_check_finds_each_way_of_naming_ui() {
    for hit in [
        "let r = crate::tui::ui::regions(area, v);",
        "    super::ui::picker_help_lines().len()",
        "use super::ui;",
        "use crate::tui::{keymap, ui};",
        "use super::super::ui::Theme;",
        "let t = ui::Theme::new(true);",
    ] {
        assert!(names_ui(hit), "missed {hit:?}");
    }
    for miss in [
        "// the ui:: module draws this",
        "let gui::x = build_ui::y;",
        "use crate::tui::layout; // not ui::",
        "let ui_rows = quit + fluid;",
    ] {
        assert!(!names_ui(miss), "flagged {miss:?}");
    }
}

#[test]
fn the_state_never_imports_the_drawing_code() {
    let files = state_sources();
    // The check reads real files: app's several, the picker, the panel.
    assert!(files.len() >= 10, "{files:?}");
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in statements(&text) {
            if names_ui(&line) {
                hits.push(format!("{}:{}: {}", f.display(), n, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "app, picker and compare_panel must not use ui (put shared geometry in \
         tui::layout, shared text in tui::keymap):\n{}",
        hits.join("\n")
    );
}
