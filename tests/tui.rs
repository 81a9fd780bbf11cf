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

const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const MEMORY: &str = "sample-sessions/qwen-memory/session.jsonl";
const SIZE: &str = "sample-sessions/claude-size.jsonl";

fn sample(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn app(path: &str, kind: Option<KindArg>) -> App {
    let opts = Opts {
        policy: kind,
        ..Default::default()
    };
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

#[test]
fn demo_count_marks_a_and_b_deleted_and_shows_cache_edits_on_the_right_only() {
    let mut a = app(DEMO, Some(KindArg::Count));
    let lines = screen(&a, 120, 40, true);
    // Header: session, request, plan with the sidecar's parameters.
    assert!(lines[0].contains("claude-demo.jsonl") && lines[0].contains("request 6/6"));
    assert!(
        lines[1].contains("plan count")
            && lines[1].contains("keep 2")
            && lines[1].contains("cache-edits")
    );
    assert!(
        lines[2].contains("not public"),
        "count thresholds are guesses: {}",
        lines[2]
    );
    let list = list_region(&lines);
    assert_eq!(list.len(), 4);
    assert!(row(&list, "toolu_A").contains("✗ cleared"));
    assert!(row(&list, "toolu_B").contains("✗ cleared"));
    assert!(row(&list, "toolu_C").contains("· kept"));
    assert!(row(&list, "toolu_D").contains("· kept"));
    // The cache_edits block is in the wire payload only: scroll the diff to it.
    let v = view_mut(&mut a);
    let r = v
        .diff
        .rows
        .iter()
        .position(|r| {
            v.diff
                .right_line(r)
                .is_some_and(|t| t.contains("cache_edits"))
        })
        .expect("a cache_edits row");
    assert!(
        v.diff.rows[r].left.is_none(),
        "inserted: nothing on the left"
    );
    v.show_row(r);
    let lines = screen(&a, 120, 40, true);
    let l = row(&lines, "\"cache_edits\"");
    let col = l.chars().position(|c| c == '│').unwrap();
    let cut = l.chars().take(col).collect::<String>();
    assert!(!cut.contains("cache_edits"), "left half: {cut}");
    // cache_reference is visible too, on the right.
    let v = view_mut(&mut a);
    let r = v
        .diff
        .rows
        .iter()
        .position(|r| {
            v.diff
                .right_line(r)
                .is_some_and(|t| t.contains("cache_reference"))
        })
        .unwrap();
    v.show_row(r);
    let lines = screen(&a, 120, 40, true);
    assert!(row(&lines, "\"cache_reference\"").contains('+'));
    // Footer: metadata and the sparkline marks where the plan fired (computed in
    // the background).
    view_mut(&mut a).wait_background();
    let lines = screen(&a, 120, 40, true);
    assert!(lines.iter().any(|l| l.starts_with("context ")));
    assert!(row(&lines, "marks ").contains('▲'));
}

#[test]
fn memory_forced_shows_roots_and_the_escape_target() {
    let a = app(MEMORY, Some(KindArg::Forced));
    let lines = screen(&a, 200, 40, true);
    let list = list_region(&lines);
    assert!(row(&list, "call_proj").contains("◆ protected (project)"));
    assert!(row(&list, "call_user").contains("◆ protected (user)"));
    assert!(row(&list, "call_team").contains("◆ protected (team)"));
    let leak = row(&list, "call_leak");
    assert!(
        leak.contains("✗ cleared") && leak.contains("symlink escape →"),
        "{leak}"
    );
    assert!(leak.contains("tree/home/dev/secrets/notes.md"), "{leak}");
    assert!(row(&list, "call_src").contains("✗ cleared"));
}

#[test]
fn stepping_cycling_and_tuning_replan_at_once() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    let cleared = |a: &App| -> Vec<String> {
        let v = a.view().unwrap();
        v.plan
            .ids_with(&v.setup.session, mcscope::policy::Status::Cleared)
    };
    assert_eq!(cleared(&a), ["toolu_A", "toolu_B"]);
    // keep_recent 2 → 3: toolu_B comes back, and the header marks the change.
    a.update(Action::KeepMore);
    assert_eq!(cleared(&a), ["toolu_A"]);
    let lines = screen(&a, 120, 40, true);
    assert!(lines[1].contains("keep 3*"), "{}", lines[1]);
    a.update(Action::KeepLess);
    assert_eq!(cleared(&a), ["toolu_A", "toolu_B"]);
    // The gap threshold past 75.5 minutes: nothing fires.
    for _ in 0..4 {
        a.update(Action::GapUp);
    }
    assert_eq!(a.view().unwrap().policy().gap_threshold_minutes, 80.0);
    assert!(cleared(&a).is_empty());
    for _ in 0..4 {
        a.update(Action::GapDown);
    }
    // Step back: request 5 is in the tool loop, 3 s after the last answer.
    a.update(Action::PrevRequest);
    assert_eq!(a.view().unwrap().k, 5);
    assert!(cleared(&a).is_empty());
    a.update(Action::LastRequest);
    a.update(Action::FirstRequest);
    assert_eq!(a.view().unwrap().k, 1);
    a.update(Action::NextRequest);
    assert_eq!(a.view().unwrap().k, 2);
    a.update(Action::LastRequest);
    // p cycles (claude) auto → idle → idle-server → forced → size → count → budget
    // → recorded → auto (SPEC §15.3); idle-server is delivered by the server, the
    // next kind goes back to rewrite.
    let kinds: Vec<(&str, &str)> = (0..8)
        .map(|_| {
            a.update(Action::CyclePlan);
            let p = a.view().unwrap().policy();
            (p.kind.name(), p.delivery.name())
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("idle-server", "server"),
            ("forced", "rewrite"),
            ("size", "rewrite"),
            ("count", "rewrite"),
            ("budget", "rewrite"),
            ("recorded", "rewrite"),
            ("auto", "rewrite"),
            ("idle", "rewrite")
        ]
    );
    // d switches delivery: the cache_edits block appears under count.
    for _ in 0..4 {
        a.update(Action::CyclePlan);
    }
    assert!(
        a.view().unwrap().wire_json().contains("cache_edits")
            == (a.view().unwrap().policy().delivery.name() == "cache-edits")
    );
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "cache-edits");
    assert!(v.wire_json().contains("\"cache_edits\""));
    assert!(!v.local_json().contains("cache_edits"));
    a.update(Action::ToggleDelivery);
    assert!(!a.view().unwrap().wire_json().contains("cache_edits"));
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("[Old tool result content cleared]")
    );
    // m toggles protection.
    let before = a.view().unwrap().policy().protect;
    a.update(Action::ToggleProtect);
    assert_ne!(a.view().unwrap().policy().protect, before);
    // Size threshold steps.
    a.update(Action::SizeDown);
    assert_eq!(a.view().unwrap().policy().size_threshold, 450_000);
    a.update(Action::SizeUp);
    assert_eq!(a.view().unwrap().policy().size_threshold, 500_000);
}

#[test]
fn qwen_delivery_toggle_explains_instead() {
    let mut a = app(MEMORY, Some(KindArg::Forced));
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "rewrite");
    assert!(v.status.as_deref().unwrap().contains("Claude"));
}

#[test]
fn explain_shows_the_fate_at_every_request() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Explain);
    let lines = screen(&a, 120, 40, true);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("first vanished from the wire at request 6"))
    );
    assert!(row(&lines, "▶   6").contains("idle: gap 75.5 min >= 60; rank 1 of 4, not in last 2"));
    a.update(Action::Back);
    assert!(a.view().unwrap().overlay.is_none());
    assert!(!a.quit, "Esc closes the panel first");
}

#[test]
fn selecting_a_result_scrolls_the_diff_to_it() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Down);
    a.update(Action::Down);
    let lines = screen(&a, 120, 40, true);
    let diff_start = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    assert!(
        lines[diff_start..]
            .iter()
            .take(6)
            .any(|l| l.contains("\"tool_use_id\": \"toolu_C\""))
    );
}

#[test]
fn search_selects_by_id_tool_or_path() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Search);
    for c in "server".chars() {
        assert!(a.input(c));
    }
    assert!(a.submit(), "Enter closes the search panel");
    assert!(a.view().unwrap().overlay.is_none());
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_D"));
    a.update(Action::Search);
    for c in "grep".chars() {
        a.input(c);
    }
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_B"));
    a.update(Action::Back);
    a.update(Action::Search);
    for c in "nothing-like-this".chars() {
        a.input(c);
    }
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .contains("no result matches")
    );
}

#[test]
fn export_writes_the_wire_atomically_and_never_over_the_input() {
    let t = tempfile::tempdir().unwrap();
    let copy = t.path().join("s.jsonl");
    std::fs::copy(sample(DEMO), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let opts = Opts {
        policy: Some(KindArg::Count),
        keep_recent: Some(2),
        trigger: Some(3),
        ..Default::default()
    };
    let mut a = App::session(cli::setup(&copy, &opts).unwrap());
    a.update(Action::Export);
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Export(_))
    ));
    let target = t.path().join("out.json");
    if let Some(Overlay::Export(p)) = &mut view_mut(&mut a).overlay {
        *p = target.display().to_string();
    }
    assert!(a.submit());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(written.to_string().contains("cache_edits"));
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .starts_with("wrote")
    );
    // Refuses the input itself.
    let e = view_mut(&mut a).export(&copy).unwrap_err();
    assert!(e.to_string().contains("refusing"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    // No temp files left behind.
    let names: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// Every action in turn: a new variant does not compile here until it is listed.
fn after(a: Action) -> Option<Action> {
    use Action::*;
    Some(match a {
        NextRequest => PrevRequest,
        PrevRequest => FirstRequest,
        FirstRequest => LastRequest,
        LastRequest => CyclePlan,
        CyclePlan => ToggleDelivery,
        ToggleDelivery => KeepMore,
        KeepMore => KeepLess,
        KeepLess => GapUp,
        GapUp => GapDown,
        GapDown => SizeUp,
        SizeUp => SizeDown,
        SizeDown => ToggleProtect,
        ToggleProtect => Explain,
        Explain => Search,
        Search => Command,
        Command => CycleFilter,
        CycleFilter => FocusNext,
        FocusNext => Export,
        Export => ExportPage,
        ExportPage => Help,
        Help => Up,
        Up => Down,
        Down => PageUp,
        PageUp => PageDown,
        PageDown => Top,
        Top => Bottom,
        Bottom => NextChange,
        NextChange => PrevChange,
        PrevChange => NextFired,
        NextFired => PrevFired,
        PrevFired => NextBreak,
        NextBreak => PrevBreak,
        PrevBreak => NextEvidence,
        NextEvidence => PrevEvidence,
        PrevEvidence => NextObserved,
        NextObserved => PrevObserved,
        PrevObserved => ScrollLeft,
        ScrollLeft => ScrollRight,
        ScrollRight => ToggleFolds,
        ToggleFolds => ToggleFollow,
        ToggleFollow => Copy,
        Copy => ViewContent,
        ViewContent => Back,
        Back => Quit,
        Quit => ComparePanel,
        ComparePanel => ChartView,
        ChartView => SortNext,
        SortNext => SortReverse,
        SortReverse => WindowPanel,
        WindowPanel => return None,
        // Typed text: made by any key while an input line is open, not by the table.
        Type(_) | Erase | Submit | Complete => return None,
        // The picker's own (its table, `keymap::PICKER_KEYMAP`).
        Open | CycleSort | ReverseSort => return None,
        // The event loop's, outside the tables: Ctrl-C, Ctrl-Z (named in the
        // help's last lines), a key no table names, the terminal and the mouse.
        Interrupt | Suspend | Unbound | Resize(..) | Pointer(..) | DebugPanic => return None,
    })
}

/// The help at `w`×`h`, scrolled from top to bottom with ↓: every line it shows.
fn help_seen(w: u16, h: u16) -> Vec<String> {
    let mut a = app(DEMO, None);
    a.resize(w, h);
    a.update(Action::Help);
    let mut seen: Vec<String> = Vec::new();
    for _ in 0..200 {
        let lines = screen(&a, w, h, true);
        // The panel fits: its top and bottom borders are on screen.
        assert!(lines.iter().any(|l| l.contains("┌") && l.contains("keys")));
        assert!(
            lines.iter().any(|l| l.contains("└")),
            "{}",
            lines.join("\n")
        );
        for l in lines {
            if !seen.contains(&l) {
                seen.push(l);
            }
        }
        a.update(Action::Down);
        assert!(a.view().unwrap().overlay.is_some(), "↓ scrolls, not closes");
    }
    seen
}

#[test]
fn every_action_has_a_key_and_a_line_in_the_help() {
    let mut actions = vec![Action::NextRequest];
    while let Some(next) = after(*actions.last().unwrap()) {
        actions.push(next);
    }
    assert!(actions.len() >= 40, "{actions:?}");
    let seen = help_seen(120, 40);
    for a in actions {
        let b = keymap::binding(a).unwrap_or_else(|| panic!("{a:?} has no key"));
        assert!(!b.keys.is_empty(), "{a:?}");
        assert!(
            seen.iter()
                .any(|l| l.contains(&b.help()) && l.contains(&b.label())),
            "the help lacks {a:?} ({:?})",
            b.help()
        );
        // The key dispatches that very action.
        let key = ratatui::crossterm::event::KeyEvent::from(b.keys[0]);
        assert_eq!(keymap::action_for(key, false), Some(a));
    }
    // f follows the file (it was bound to nothing).
    let f =
        ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('f'));
    assert_eq!(keymap::action_for(f, false), Some(Action::ToggleFollow));
}

#[test]
fn help_scrolls_to_its_end_and_fits_every_accepted_size() {
    let all = keymap::help_lines();
    // The legend of glyphs and of §8's marks is part of it.
    for needle in [
        "✗ cleared",
        "◆ protected",
        "▲ a plan fired",
        "✕ the simulated cache prefix broke",
        "◇ harness evidence",
        "! an observed cache break",
        "Esc",
        "q",
        "next search match",
    ] {
        assert!(
            all.iter().any(|l| l.contains(needle)),
            "help lacks {needle:?}"
        );
    }
    // 80×24 (the issue's size) and the smallest screen the TUI draws.
    for (w, h) in [(80, 24), (ui::MIN_WIDTH, ui::MIN_HEIGHT)] {
        let seen = help_seen(w, h);
        for line in &all {
            let line = line.trim_end();
            assert!(
                line.is_empty() || seen.iter().any(|l| l.contains(line)),
                "at {w}×{h} the help never shows {line:?}"
            );
        }
    }
    // PgDn, G and g; Esc and q close the help without quitting; any other key closes it.
    let mut a = app(DEMO, None);
    a.resize(80, 24);
    a.update(Action::Help);
    a.update(Action::Bottom);
    let bottom = screen(&a, 80, 24, true);
    assert!(has(&bottom, all.last().unwrap()), "G shows the last line");
    assert!(has(&bottom, &format!("of {} ", all.len())));
    a.update(Action::Top);
    assert!(has(&screen(&a, 80, 24, true), "1–"));
    a.update(Action::PageDown);
    assert!(!has(&screen(&a, 80, 24, true), " 1–"));
    a.update(Action::Quit);
    assert!(
        a.view().unwrap().overlay.is_none() && !a.quit,
        "q closes the help"
    );
    a.update(Action::Help);
    a.update(Action::Back);
    assert!(a.view().unwrap().overlay.is_none() && !a.quit);
    a.update(Action::Help);
    a.update(Action::Unbound);
    assert!(
        a.view().unwrap().overlay.is_none(),
        "any other key closes it"
    );
    // Every help line fits the narrowest panel (MIN_WIDTH - 2 wide, borders inside).
    for l in &all {
        assert!(
            l.chars().count() <= ui::MIN_WIDTH as usize - 4,
            "too wide for {}: {l:?}",
            ui::MIN_WIDTH
        );
    }
}

#[test]
fn a_small_terminal_gets_one_line() {
    let a = app(DEMO, None);
    let lines = screen(&a, 59, 20, true);
    assert!(lines[0].starts_with("terminal too small: 59x20"));
    assert!(lines[1..].iter().all(|l| l.trim().is_empty()));
    let lines = screen(&a, 80, 15, true);
    assert!(lines[0].starts_with("terminal too small"));
    let lines = screen(&a, 60, 16, true);
    assert!(lines[0].contains("claude-demo.jsonl"));
}

#[test]
fn no_color_keeps_the_meaning_in_glyphs() {
    let a = app(DEMO, Some(KindArg::Idle));
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| ui::draw(f, &a, Theme::new(false))).unwrap();
    let buf = t.backend().buffer();
    for cell in buf.content() {
        assert_eq!(
            cell.fg,
            ratatui::style::Color::Reset,
            "a colour with NO_COLOR"
        );
        assert_eq!(cell.bg, ratatui::style::Color::Reset);
    }
    let lines = screen(&a, 120, 40, false);
    assert!(row(&lines, "toolu_A").contains("✗ cleared"));
}

#[test]
fn picker_opens_and_esc_goes_back() {
    let dir = sample("sample-sessions");
    let sessions = mcscope::load::list_sessions(&dir).unwrap();
    assert!(sessions.len() >= 3);
    let mut a = App::picker(dir.display().to_string(), sessions);
    let lines = screen(&a, 120, 30, true);
    assert!(lines[0].contains("newest first"));
    let picked = a.picked().unwrap();
    let setup = cli::setup(&picked, &Opts::default()).unwrap();
    let k = setup.last_request();
    a.open(setup, k);
    assert!(a.view().is_some());
    a.update(Action::Back);
    assert!(a.view().is_none() && !a.quit, "back to the picker");
    a.update(Action::Back);
    assert!(!a.quit, "Esc at the top level does nothing");
    a.update(Action::Quit);
    assert!(a.quit, "q quits");
}

/// The TUI shows the very plan `mcscope plan` prints, for every sample, plan and request.
#[test]
fn tui_agrees_with_the_cli_on_every_sample_and_request() {
    for path in [DEMO, MEMORY, SIZE] {
        for (kind, name) in [
            (KindArg::Idle, "idle"),
            (KindArg::Forced, "forced"),
            (KindArg::Size, "size"),
            (KindArg::Count, "count"),
        ] {
            let mut a = app(path, Some(kind));
            a.update(Action::FirstRequest);
            let n = a.view().unwrap().setup.session.requests.len();
            for k in 1..=n {
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
                    .args([
                        "plan",
                        path,
                        "--policy",
                        name,
                        "--at",
                        &k.to_string(),
                        "--format",
                        "json",
                    ])
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .output()
                    .unwrap();
                let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
                let lines = screen(&a, 200, 60, false);
                let list = list_region(&lines);
                let cands = cli["candidates"].as_array().unwrap();
                assert_eq!(list.len(), cands.len(), "{path} {name} @{k}");
                for (line, c) in list.iter().zip(cands) {
                    let id = c["tool_use_id"].as_str().unwrap();
                    let status = c["status"].as_str().unwrap();
                    assert!(
                        line.contains(id) && line.contains(status),
                        "{path} {name} @{k}: {line} vs {id} {status}"
                    );
                }
                a.update(Action::NextRequest);
            }
        }
    }
}

#[test]
fn demo_walks_through_the_stages_and_points_at_each_region() {
    use mcscope::tui::demo::{Region, STAGES};
    let t = tempfile::tempdir().unwrap();
    let mut a = mcscope::tui::demo_app(t.path()).unwrap();
    let mut seen = Vec::new();
    for (i, st) in STAGES.iter().enumerate() {
        let lines = screen(&a, 120, 40, true);
        let text = lines.join("\n");
        assert!(text.contains(st.title), "stage {i}: {text}");
        assert!(text.contains(&format!("({}/{})", i + 1, STAGES.len())));
        let pointer = match st.region {
            Region::List => "▲ the age list above",
            Region::Diff => "▼ the wire payload below, right side",
            Region::Footer => "▼ the footer below",
        };
        assert!(
            text.contains(pointer),
            "stage {i} points at {:?}",
            st.region
        );
        seen.push(text);
        a.update(Action::NextRequest);
    }
    // Stage 2 is request 5, where count deleted A and B.
    assert!(seen[1].contains("request 5/6"));
    // Stage 4 shows the cache_edits block; stage 5 the placeholder and the broken prefix.
    assert!(seen[3].contains("\"type\": \"cache_edits\""));
    assert!(seen[4].contains("[Old tool result content cleare"));
    assert!(seen[4].contains("cache prefix broken at message 2"));
    // After the last stage the demo ends and every key works.
    let v = a.view().unwrap();
    assert!(v.demo.is_none());
    assert!(v.status.as_deref().unwrap().contains("end of the demo"));
    a.update(Action::PrevRequest);
    assert_eq!(a.view().unwrap().k, 5);
}

#[test]
fn following_a_growing_file_keeps_the_place_and_the_parameters() {
    use std::io::Write;
    let t = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(sample(DEMO)).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let path = t.path().join("live.jsonl");
    // All but the last two records (the last prompt's answer comes later).
    std::fs::write(&path, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let opts = Opts {
        policy: Some(KindArg::Idle),
        keep_recent: Some(2),
        ..Default::default()
    };
    let mut a = App::session(cli::setup(&path, &opts).unwrap());
    a.update(Action::PrevRequest);
    a.update(Action::KeepMore);
    let n = a.view().unwrap().setup.session.requests.len();
    let k = a.view().unwrap().k;
    a.update(Action::ToggleFollow);
    assert!(a.view().unwrap().following());
    let lines_screen = screen(&a, 120, 40, true);
    assert!(lines_screen[0].contains("following"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{}", lines[lines.len() - 1]).unwrap();
    drop(f);
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(view_mut(&mut a).poll_follow());
    let v = a.view().unwrap();
    assert_eq!(v.k, k, "the place is kept");
    assert_eq!(v.policy().keep_recent, Some(3), "the parameters are kept");
    assert!(v.setup.session.requests.len() >= n);
    assert!(v.status.as_deref().unwrap().contains("new line"));
    a.update(Action::ToggleFollow);
    assert!(!a.view().unwrap().following());
}

/// The demo with toolu_A's result grown to `chars` characters, written in `dir`.
fn grown_demo(dir: &Path, chars: usize) -> std::path::PathBuf {
    let src = std::fs::read_to_string(sample(DEMO)).unwrap();
    let big = "x".repeat(chars);
    let grown: Vec<String> = src
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["message"]["content"][0]["tool_use_id"] == "toolu_A" {
                v["message"]["content"][0]["content"] = Value::String(big.clone());
            }
            v.to_string()
        })
        .collect();
    let path = dir.join("big.jsonl");
    std::fs::write(&path, grown.join("\n") + "\n").unwrap();
    path
}

#[test]
fn a_big_request_is_diffed_in_the_background() {
    let t = tempfile::tempdir().unwrap();
    let path = grown_demo(t.path(), 1_500_000);
    let opts = Opts {
        policy: Some(KindArg::Idle),
        keep_recent: Some(2),
        ..Default::default()
    };
    let mut a = App::session(cli::setup(&path, &opts).unwrap());
    assert!(a.view().unwrap().diff_pending());
    let lines = screen(&a, 120, 40, true);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("computing the diff in the background"))
    );
    // The list is there at once; the diff follows.
    assert!(row(&list_region(&lines), "toolu_A").contains("cleared"));
    view_mut(&mut a).wait_background();
    let v = a.view().unwrap();
    assert!(!v.diff_pending());
    assert!(v.wire_json().contains("[Old tool result content cleared]"));
    assert!(!v.diff.changes.is_empty());
}

/// A big request's plan is shown at once; the tokens its cache break re-writes come
/// with the diff from the background, and then agree with `mcscope plan`.
#[test]
fn a_big_request_counts_the_rewritten_tokens_in_the_background() {
    let t = tempfile::tempdir().unwrap();
    let path = grown_demo(t.path(), 400_000);
    let opts = Opts {
        policy: Some(KindArg::Idle),
        keep_recent: Some(1),
        ..Default::default()
    };
    let setup = cli::setup(&path, &opts).unwrap();
    let n = setup.session.requests.len();
    let mut a = App::session(setup.clone());
    a.update(Action::FirstRequest);
    let (mut broken, mut counting) = (0, 0);
    for k in 1..=n {
        let cli = mcscope::analysis::plan_at(&setup, k).unwrap();
        let v = view_mut(&mut a);
        assert_eq!(v.k, k);
        if let Some(m) = cli.cache.prefix_broken_at_message {
            broken += 1;
            if v.diff_pending() {
                counting += 1;
                let footer = screen(&a, 200, 60, false).join("\n");
                assert!(
                    footer.contains(&format!(
                        "cache prefix broken at message {m} (tokens re-written: counting…)"
                    )),
                    "@{k}: {footer}"
                );
            }
        }
        view_mut(&mut a).wait_background();
        let v = a.view().unwrap();
        assert_eq!(v.plan.cache, cli.cache, "@{k}");
        if let Some(m) = cli.cache.prefix_broken_at_message {
            let footer = screen(&a, 200, 60, false).join("\n");
            let want = format!(
                "cache prefix broken at message {m} (~{} tokens re-written)",
                mcscope::numbers::fmt_int(cli.cache.tokens_after_break)
            );
            assert!(footer.contains(&want), "@{k}: {want}\n{footer}");
        }
        a.update(Action::NextRequest);
    }
    assert!(broken > 0, "the scenario breaks the cache prefix somewhere");
    assert!(
        counting > 0,
        "and on a request big enough for the background"
    );
}

#[test]
fn p_reaches_budget_and_the_header_says_what_auto_chose_and_its_caveats() {
    const BUDGET: &str = "sample-sessions/claude-budget.jsonl";
    let mut a = app(BUDGET, None);
    a.update(Action::LastRequest);
    for _ in 0..3 {
        a.update(Action::PrevRequest);
    }
    assert_eq!(a.view().unwrap().k, 7);
    let cleared = |a: &App| -> Vec<String> {
        let v = a.view().unwrap();
        v.plan
            .ids_with(&v.setup.session, mcscope::policy::Status::Cleared)
    };
    // auto on a 2.1.17 session runs budget: the header names it, with budget's keep 3
    // and the kill-switch caveat in short.
    let lines = screen(&a, 160, 40, true);
    assert!(lines[1].contains("plan auto → budget"), "{}", lines[1]);
    assert!(lines[1].contains("keep 3"), "{}", lines[1]);
    assert!(
        row(&lines, "may not have run:").contains("budget: off under DISABLE_MICROCOMPACT"),
        "{}",
        lines.join("\n")
    );
    let by_auto = cleared(&a);
    assert_eq!(by_auto.len(), 3);
    // p: idle (keep 5, its own caveat), forced, size, count, then budget again.
    a.update(Action::CyclePlan);
    let lines = screen(&a, 160, 40, true);
    assert!(
        lines[1].contains("plan idle*") && lines[1].contains("keep 5"),
        "{}",
        lines[1]
    );
    assert!(row(&lines, "may not have run:").contains("idle: remote flag"));
    let kinds: Vec<&str> = (0..5)
        .map(|_| {
            a.update(Action::CyclePlan);
            a.view().unwrap().policy().kind.name()
        })
        .collect();
    assert_eq!(kinds, ["idle-server", "forced", "size", "count", "budget"]);
    view_mut(&mut a).wait_background();
    let v = a.view().unwrap();
    assert_eq!(
        v.policy().delivery.name(),
        "rewrite",
        "budget is rewrite only"
    );
    assert_eq!(cleared(&a), by_auto);
    assert_eq!(
        v.wire_json()
            .matches("[Old tool result content cleared]")
            .count(),
        3
    );
    // d refuses under budget, with a word why.
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "rewrite");
    // The words are setup's (one legality check, `Policy::check`).
    assert!(
        v.status
            .as_deref()
            .unwrap()
            .contains("it takes the claude preset and rewrite delivery"),
        "{:?}",
        v.status
    );
    // + from budget's default 3 makes it an explicit 4.
    a.update(Action::KeepMore);
    assert_eq!(a.view().unwrap().policy().keep_recent, Some(4));
}

/// `mcscope FILE --at 3 --keep-recent 1 --policy count`: the TUI loads through
/// `tui::load_session`, as the binary does, and every plan flag applies.
#[test]
fn every_plan_flag_applies_to_the_tui_at_included() {
    let opts = Opts {
        at: Some("3".into()),
        keep_recent: Some(1),
        policy: Some(KindArg::Count),
        ..Default::default()
    };
    let progress = std::sync::atomic::AtomicU64::new(0);
    let (setup, at) = mcscope::tui::load_session(&sample(DEMO), &opts, &progress).unwrap();
    let k = at.unwrap();
    assert_eq!(k, 3);
    let cli_plan = mcscope::analysis::plan_at(&setup, 3).unwrap();
    let a = App::session_at(setup, k);
    let lines = screen(&a, 120, 40, true);
    assert!(lines[0].contains("request 3/6"), "{}", lines[0]);
    assert!(
        lines[1].contains("plan count") && lines[1].contains("keep 1"),
        "{}",
        lines[1]
    );
    let v = a.view().unwrap();
    assert_eq!(v.plan.step.newly_cleared, cli_plan.step.newly_cleared);
    assert_eq!(v.plan.step.cleared, cli_plan.step.cleared);
    // An --at the session does not have is the CLI's error, word for word.
    let opts = Opts {
        at: Some("57".into()),
        ..Default::default()
    };
    let (_, at) = mcscope::tui::load_session(&sample(DEMO), &opts, &progress).unwrap();
    assert_eq!(
        at.unwrap_err().to_string(),
        "--at 57: the session has requests 1..=6"
    );
}

/// The diff region's rows on screen: from its title to the footer.
fn diff_region(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.starts_with("✓ cache") || l.starts_with("✕ cache"))
        .unwrap_or(lines.len());
    lines[start + 1..end].to_vec()
}

#[test]
fn switching_to_count_opens_the_diff_on_the_cache_edits_block() {
    // Opened under idle (rewrite), then p p p to count: the sidecar-free delivery
    // default for count on Claude is cache-edits, but a tune keeps the delivery, so
    // d switches it. The diff must open on the block, not at line 1.
    let mut a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 80, 24, true);
    assert!(
        diff_region(&lines)
            .iter()
            .any(|l| l.contains("~") && l.contains("\"content\": \"[Old tool r")),
        "idle opens on a placeholder:\n{}",
        lines.join("\n")
    );
    // idle → idle-server → forced → size → count (SPEC §13.S).
    for _ in 0..4 {
        a.update(Action::CyclePlan);
    }
    assert_eq!(a.view().unwrap().policy().kind.name(), "count");
    a.update(Action::ToggleDelivery);
    assert_eq!(a.view().unwrap().policy().delivery.name(), "cache-edits");
    let lines = screen(&a, 80, 24, true);
    assert!(
        has(&diff_region(&lines), "\"cache_edits\""),
        "{}",
        lines.join("\n")
    );
    // SPEC §13.P3: no external build has cached microcompact: the TUI says what-if.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("may not have run:") && l.contains("what-if")),
        "{}",
        lines.join("\n")
    );
    // Opening a session under count / cache-edits lands there too.
    let a = app(DEMO, Some(KindArg::Count));
    let lines = screen(&a, 80, 24, true);
    assert!(
        has(&diff_region(&lines), "\"cache_edits\""),
        "{}",
        lines.join("\n")
    );
}

#[test]
fn esc_closes_clears_and_goes_back_but_never_quits_and_q_closes_a_panel_first() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    // Top level, nothing to close: Esc does nothing.
    a.update(Action::Back);
    assert!(!a.quit && a.view().is_some());
    // A panel: q closes it, the program stays.
    a.update(Action::Explain);
    assert!(matches!(
        a.view().unwrap().overlay,
        Some(Overlay::Explain { .. })
    ));
    a.update(Action::Quit);
    assert!(a.view().unwrap().overlay.is_none() && !a.quit);
    // A search kept with Enter: Esc clears it (n/N go back to diff changes).
    a.update(Action::Search);
    for c in "toolu".chars() {
        a.input(c);
    }
    a.submit();
    assert_eq!(a.view().unwrap().search.as_deref(), Some("toolu"));
    a.update(Action::Back);
    assert_eq!(a.view().unwrap().search, None);
    assert!(!a.quit);
    // A filter: Esc clears it.
    a.update(Action::CycleFilter);
    assert_ne!(a.view().unwrap().filter, mcscope::tui::app::Filter::All);
    a.update(Action::Back);
    assert_eq!(a.view().unwrap().filter, mcscope::tui::app::Filter::All);
    assert!(!a.quit);
    // Nothing left: q quits.
    a.update(Action::Quit);
    assert!(a.quit);
}

#[test]
fn status_filters_show_only_their_results_and_say_how_many() {
    // Idle at request 6: toolu_A and toolu_B cleared, C and D kept (4 results).
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::CycleFilter);
    let lines = screen(&a, 120, 40, true);
    assert!(
        has(&lines, "tool results by age (2 of 4, cleared only"),
        "{}",
        lines.join("\n")
    );
    let list = list_region(&lines);
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.iter().all(|l| l.contains("✗ cleared")), "{list:?}");
    // The selection stays on a shown result and moves among them only.
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_A"));
    a.update(Action::Down);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_B"));
    a.update(Action::Down);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_B"));
    // Protected / escapes: none here. Not kept: the two cleared ones again.
    a.update(Action::CycleFilter);
    let lines = screen(&a, 120, 40, true);
    assert!(has(&lines, "(0 of 4, protected / escapes only"));
    a.update(Action::CycleFilter);
    assert!(has(&screen(&a, 120, 40, true), "(2 of 4, not kept only"));
    a.update(Action::CycleFilter);
    assert!(has(&screen(&a, 120, 40, true), "tool results by age (4)"));
    // On the memory sample, protected / escapes shows the three roots and the leak.
    let mut m = app(MEMORY, Some(KindArg::Forced));
    m.update(Action::CycleFilter);
    m.update(Action::CycleFilter);
    let v = m.view().unwrap();
    let shown: Vec<String> = v
        .visible()
        .iter()
        .map(|&i| {
            v.setup.session.results[v.plan.candidates[i].result]
                .id
                .clone()
        })
        .collect();
    assert_eq!(shown, ["call_proj", "call_user", "call_team", "call_leak"]);
}

#[test]
fn n_and_shift_n_step_through_search_matches_while_a_search_is_active() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Search);
    for c in "toolu_".chars() {
        a.input(c);
    }
    a.submit();
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_A"));
    let lines = screen(&a, 120, 40, true);
    assert!(
        has(&lines, "search \"toolu_\": n/N next/previous match"),
        "the footer says what n/N do: {}",
        lines.join("\n")
    );
    a.update(Action::NextChange);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_B"));
    a.update(Action::NextChange);
    a.update(Action::NextChange);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_D"));
    a.update(Action::NextChange);
    assert_eq!(
        a.view().unwrap().selected_id().as_deref(),
        Some("toolu_A"),
        "wraps"
    );
    a.update(Action::PrevChange);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_D"));
    // Cleared: n jumps between diff changes again and the selection stays.
    a.update(Action::Back);
    let top = a.view().unwrap().diff_top;
    a.update(Action::NextChange);
    let v = a.view().unwrap();
    assert_eq!(v.selected_id().as_deref(), Some("toolu_D"));
    assert!(v.diff_top != top || v.status.is_some());
    assert!(!has(&screen(&a, 120, 40, true), "search \"toolu_\""));
}

#[test]
fn jumps_go_to_the_requests_where_the_plan_fired_or_the_cache_broke() {
    // Count on the demo fires at request 5 only; through cache_edits the prefix
    // never breaks, through rewrite it breaks at 5.
    let mut a = app(DEMO, Some(KindArg::Count));
    assert_eq!(a.view().unwrap().k, 6);
    a.update(Action::PrevFired);
    assert_eq!(a.view().unwrap().k, 5);
    a.update(Action::PrevFired);
    assert_eq!(a.view().unwrap().k, 5);
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .contains("no earlier request where the plan fired")
    );
    a.update(Action::Top);
    a.update(Action::FirstRequest);
    a.update(Action::NextBreak);
    assert_eq!(a.view().unwrap().k, 1, "cache-edits keeps the prefix");
    a.update(Action::NextFired);
    assert_eq!(a.view().unwrap().k, 5);
    a.update(Action::ToggleDelivery);
    a.update(Action::FirstRequest);
    a.update(Action::NextBreak);
    assert_eq!(a.view().unwrap().k, 5, "rewrite breaks it where it fired");
    a.update(Action::LastRequest);
    a.update(Action::PrevBreak);
    assert_eq!(a.view().unwrap().k, 5);
    // The footer marks the break with ✕.
    view_mut(&mut a).wait_background();
    assert!(row(&screen(&a, 120, 40, true), "marks ").contains('✕'));
}

/// The footer's marks are the plan's own verdicts at every request.
#[test]
fn timeline_marks_agree_with_the_plan_at_every_request() {
    for path in [DEMO, MEMORY, SIZE] {
        for kind in [
            KindArg::Idle,
            KindArg::Forced,
            KindArg::Size,
            KindArg::Count,
        ] {
            for delivery in [cli::DeliveryArg::Rewrite, cli::DeliveryArg::CacheEdits] {
                let opts = Opts {
                    policy: Some(kind),
                    delivery: Some(delivery),
                    ..Default::default()
                };
                let Ok(setup) = cli::setup(&sample(path), &opts) else {
                    continue; // cache-edits on qwen
                };
                let n = setup.session.requests.len();
                for k in 1..=n {
                    let marks: Vec<_> = mcscope::tui::app::timeline_marks(&setup, k).collect();
                    let plan = mcscope::analysis::plan_at(&setup, k).unwrap();
                    let m = marks[k - 1];
                    assert_eq!(m.fired, plan.step.fired(), "{path} {kind:?} {k}");
                    assert_eq!(
                        m.broke,
                        plan.cache.prefix_broken_at_message.is_some(),
                        "{path} {kind:?} {delivery:?} {k}"
                    );
                }
            }
        }
    }
}

fn command(a: &mut App, line: &str) {
    a.update(Action::Command);
    for c in line.chars() {
        a.update(Action::Type(c));
    }
    a.update(Action::Submit);
}

#[test]
fn the_command_line_jumps_tunes_and_explains() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    command(&mut a, "3");
    assert_eq!(a.view().unwrap().k, 3);
    assert!(screen(&a, 120, 40, true)[0].contains("request 3/6"));
    command(&mut a, "57");
    assert_eq!(a.view().unwrap().k, 3);
    assert_eq!(
        a.view().unwrap().status.as_deref(),
        Some(":57: the session has requests 1..=6")
    );
    command(&mut a, "gap 7.5");
    assert_eq!(a.view().unwrap().policy().gap_threshold_minutes, 7.5);
    command(&mut a, "keep 3");
    assert_eq!(a.view().unwrap().policy().keep_recent, Some(3));
    command(&mut a, "size 300000");
    assert_eq!(a.view().unwrap().policy().size_threshold, 300_000);
    command(&mut a, "trigger 4");
    assert_eq!(a.view().unwrap().policy().trigger_threshold, 4);
    command(&mut a, "policy count");
    assert_eq!(a.view().unwrap().policy().kind.name(), "count");
    let lines = screen(&a, 120, 40, true);
    assert!(
        lines[1].contains("plan count*") && lines[1].contains("keep 3*"),
        "{}",
        lines[1]
    );
    // Bad values say what was expected and change nothing.
    command(&mut a, "gap soon");
    let v = a.view().unwrap();
    assert_eq!(v.policy().gap_threshold_minutes, 7.5);
    assert_eq!(
        v.status.as_deref(),
        Some(":gap \"soon\": expected minutes, e.g. :gap 7.5 (negative disables)")
    );
    command(&mut a, "keep 0");
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .contains("1 or more")
    );
    command(&mut a, "policy sometimes");
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .contains("expected one of auto, idle, idle-server, forced, size, count")
    );
    command(&mut a, "frobnicate 3");
    assert!(
        a.view()
            .unwrap()
            .status
            .as_deref()
            .unwrap()
            .contains("no such command")
    );
    // A unique id prefix, with or without the harness's `toolu_` (at request 6,
    // where toolu_C is in the list).
    command(&mut a, "6");
    command(&mut a, "explain C");
    let v = a.view().unwrap();
    match &v.overlay {
        Some(Overlay::Explain { explain, .. }) => assert_eq!(explain.tool_use_id, "toolu_C"),
        other => panic!("{other:?}"),
    }
    assert_eq!(v.selected_id().as_deref(), Some("toolu_C"));
    a.update(Action::Back);
    command(&mut a, "explain toolu_");
    let status = a.view().unwrap().status.clone().unwrap();
    assert!(
        status.contains("ambiguous") && status.contains("toolu_A, toolu_B, toolu_C, toolu_D"),
        "{status}"
    );
    // Completion of command names.
    a.update(Action::Command);
    a.update(Action::Type('e'));
    a.update(Action::Complete);
    match &a.view().unwrap().overlay {
        Some(Overlay::Command(c)) => assert_eq!(c, "explain "),
        other => panic!("{other:?}"),
    }
    assert!(has(&screen(&a, 120, 40, true), ":explain ▏"));
    a.update(Action::Back);
    assert_eq!(
        mcscope::tui::app::complete("t"),
        ("trigger ".to_string(), None)
    );
    let (text, note) = mcscope::tui::app::complete("");
    assert_eq!(text, "");
    assert!(note.unwrap().contains("policy  keep  gap  size  trigger"));
    // Typed text goes through the keymap as actions while the line is open.
    let colon =
        ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('q'));
    assert_eq!(keymap::action_for(colon, true), Some(Action::Type('q')));
    assert_eq!(keymap::action_for(colon, false), Some(Action::Quit));
}

#[test]
fn in_the_demo_esc_leaves_the_tour_and_q_quits() {
    let t = tempfile::tempdir().unwrap();
    let mut a = mcscope::tui::demo_app(t.path()).unwrap();
    a.update(Action::Back);
    assert!(a.view().unwrap().demo.is_none() && !a.quit);
    let mut a = mcscope::tui::demo_app(t.path()).unwrap();
    a.update(Action::Quit);
    assert!(a.quit);
}

#[test]
fn y_copies_the_id_or_the_explain_text_through_osc_52() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Down);
    a.update(Action::Copy);
    let v = view_mut(&mut a);
    assert_eq!(v.clipboard.take().as_deref(), Some("toolu_B"));
    assert!(v.status.as_deref().unwrap().contains("copied toolu_B"));
    // In the explain panel: the explain text, as `mcscope explain` prints it.
    a.update(Action::Explain);
    a.update(Action::Copy);
    let text = view_mut(&mut a).clipboard.take().unwrap();
    let setup = cli::setup(
        &sample(DEMO),
        &Opts {
            policy: Some(KindArg::Idle),
            ..Default::default()
        },
    )
    .unwrap();
    let e = mcscope::analysis::explain(&setup, "toolu_B", 6).unwrap();
    assert_eq!(text, mcscope::report::explain_text(&setup, &e));
    assert!(a.view().unwrap().overlay.is_some(), "the panel stays open");
    // The sequence: ESC ] 52 ; c ; base64 BEL ("toolu_A" is dG9vbHVfQQ==).
    assert_eq!(mcscope::tui::osc52("toolu_A"), "\x1b]52;c;dG9vbHVfQQ==\x07");
    assert_eq!(mcscope::tui::osc52("ab"), "\x1b]52;c;YWI=\x07");
    assert_eq!(mcscope::tui::osc52(""), "\x1b]52;c;\x07");
}

#[test]
fn v_shows_the_full_content_the_wire_lost() {
    // Idle at request 6 cleared toolu_A (a 40-line Read of src/config.ts).
    let mut a = app(DEMO, Some(KindArg::Idle));
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_A"));
    a.update(Action::ViewContent);
    let lines = screen(&a, 100, 30, true);
    assert!(has(&lines, "toolu_A  Read"), "{}", lines.join("\n"));
    assert!(has(&lines, "1→import path from \"node:path\";"));
    assert!(has(&lines, "line 1 of 40"), "{}", lines.join("\n"));
    a.update(Action::Bottom);
    let lines = screen(&a, 100, 30, true);
    assert!(has(&lines, "line 40 of 40"));
    assert!(has(&lines, "40→"));
    a.update(Action::Back);
    assert!(a.view().unwrap().overlay.is_none() && !a.quit);
    // Qwen: the functionResponse's output.
    let mut m = app(MEMORY, Some(KindArg::Forced));
    m.update(Action::ViewContent);
    let lines = screen(&m, 120, 40, true);
    assert!(
        has(&lines, "name: App architecture"),
        "{}",
        lines.join("\n")
    );
}

#[test]
fn a_click_selects_a_row_or_focuses_a_region_and_the_wheel_scrolls_what_is_under_it() {
    use mcscope::tui::app::{Focus, Pointer};
    let mut a = app(DEMO, Some(KindArg::Idle));
    let size = (120, 40);
    let lines = screen(&a, size.0, size.1, true);
    let y = lines.iter().position(|l| l.contains("toolu_C")).unwrap() as u16;
    a.mouse(Pointer::Click, 10, y, size);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_C"));
    assert_eq!(a.view().unwrap().focus, Focus::List);
    // The wheel over the diff scrolls the diff, the list keeps focus and selection.
    let diff_y = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap() as u16
        + 3;
    let top = a.view().unwrap().diff_top;
    a.mouse(Pointer::WheelDown, 10, diff_y, size);
    let v = a.view().unwrap();
    assert_eq!(v.diff_top, top + 3);
    assert_eq!(v.focus, Focus::List);
    assert_eq!(v.selected_id().as_deref(), Some("toolu_C"));
    // The wheel over the list moves the selection.
    a.mouse(Pointer::WheelUp, 10, y, size);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("toolu_A"));
    // A click in the diff focuses it.
    a.mouse(Pointer::Click, 10, diff_y, size);
    assert_eq!(a.view().unwrap().focus, Focus::Diff);
    // With the help open, the wheel scrolls the help.
    a.resize(80, 24);
    a.update(Action::Help);
    a.mouse(Pointer::WheelDown, 40, 12, (80, 24));
    match a.view().unwrap().overlay {
        Some(Overlay::Help { scroll }) => assert_eq!(scroll, 3),
        ref other => panic!("{other:?}"),
    }
}

/// At 80×24 the key verdicts keep their place: the header's request, gap and turn
/// kind, the file name of a path (cut from the left), the cache verdict first in
/// the footer, with a glyph that keeps it under NO_COLOR.
#[test]
fn at_80x24_the_verdicts_stay_on_screen() {
    let a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 80, 24, false);
    assert!(
        lines[0].contains("request 6/6")
            && lines[0].contains("gap 75.5 min")
            && lines[0].contains("new turn"),
        "{}",
        lines[0]
    );
    let list = list_region(&lines);
    assert!(
        row(&list, "toolu_A").contains("/src/config.ts "),
        "{list:?}"
    );
    assert!(
        row(&list, "toolu_D").contains("/src/server.ts "),
        "{list:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("✕ cache prefix broken at message 2")),
        "{}",
        lines.join("\n")
    );
    // Kept, in green with colour: count through cache_edits keeps the prefix.
    let a = app(DEMO, Some(KindArg::Count));
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| ui::draw(f, &a, Theme::new(true))).unwrap();
    let buf = t.backend().buffer().clone();
    let y = (0..24)
        .find(|&y| buf[(0, y)].symbol() == "✓")
        .expect("a kept verdict");
    assert_eq!(buf[(0, y)].fg, ratatui::style::Color::Green);
    assert!(
        (0..20)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect::<String>()
            .starts_with("✓ cache prefix kept")
    );
}

/// Long ids (`toolu_01…`, 30 chars) at 80 columns: each shows its unique tail, so
/// the path keeps room for its file name.
#[test]
fn at_80_columns_an_id_shrinks_to_its_unique_tail_before_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("look", 0.0)
        .read(
            "toolu_01AbCdEfGhIjKlMnOpQrSt11",
            "/home/dev/project/src/server/handlers/orders.rs",
        )
        .read(
            "toolu_01AbCdEfGhIjKlMnOpQrSt22",
            "/home/dev/project/src/server/handlers/users.rs",
        )
        .answer("ok");
    let path = c.write(dir.path(), "s.jsonl");
    let a = App::session(cli::setup(&path, &Opts::default()).unwrap());
    let lines = screen(&a, 80, 24, true);
    let list = list_region(&lines);
    // The last char tells them apart; six are shown at least (with "…").
    // The path, too long for the room, is cut from the left: its file name shows.
    let orders = row(&list, "…QrSt11");
    assert!(
        orders.contains("…") && orders.contains("/handlers/orders.rs "),
        "{list:?}"
    );
    assert!(!orders.contains("/home/dev"), "{list:?}");
    assert!(
        row(&list, "…QrSt22").contains("/handlers/users.rs "),
        "{list:?}"
    );
    assert!(!has(&lines, "toolu_01AbCd"), "{list:?}");
    // Wide, the whole id.
    let lines = screen(&a, 200, 40, true);
    assert!(has(&list_region(&lines), "toolu_01AbCdEfGhIjKlMnOpQrSt11"));
    assert_eq!(
        ui::unique_tail(&[
            "toolu_01AbCdEfGhIjKlMnOpQrSt11",
            "toolu_01AbCdEfGhIjKlMnOpQrSt22"
        ]),
        1
    );
    assert_eq!(ui::unique_tail(&["ab12", "cd22", "ef32"]), 2);
    assert_eq!(
        ui::unique_tail(&["x_A", "x_B", "x_A"]),
        1,
        "a repeated id is one id"
    );
}

/// The footer's second line: the session totals of the current setting (SPEC §8,
/// §9), the same figures `mcscope compare` gives for it, counted again after a
/// change; at 80×24 the verdict, the totals, one sparkline and the hints stay.
#[test]
fn the_footer_shows_the_session_totals_of_the_setting() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    view_mut(&mut a).wait_background();
    let t = a.view().unwrap().totals.clone().expect("totals counted");
    // Idle on the demo (keep 2 from the sidecar): fires once, clears A and B.
    assert_eq!((t.totals.fires, t.totals.cleared_results), (1, 2));
    let lines = screen(&a, 200, 50, true);
    let line = lines
        .iter()
        .find(|l| l.starts_with("session: "))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(line.contains("1 fires · 2 cleared"), "{line}");
    assert!(line.contains("Δ $"), "{line}");
    // A change: counting until the background job reports, then the new figures.
    a.update(Action::KeepLess);
    assert!(has(&screen(&a, 200, 50, true), "session: counting…"));
    view_mut(&mut a).wait_background();
    let t = a.view().unwrap().totals.clone().unwrap();
    assert_eq!(t.totals.cleared_results, 3, "keep 1 clears A, B and C");
    // The same as the compare row of this setting.
    let setup = a.view().unwrap().setup.clone();
    assert_eq!(mcscope::tui::app::setting_totals(&setup), Some(t));
    // 80×24: the verdict first, the totals second.
    let lines = screen(&a, 80, 24, false);
    let footer: Vec<&String> = lines
        .iter()
        .skip_while(|l| !(l.starts_with("✓ cache") || l.starts_with("✕ cache")))
        .collect();
    assert!(footer.len() >= 3, "{}", lines.join("\n"));
    // SPEC §15.22: the verdict, the observed break's explanation, the recorded
    // bill (SPEC §9a: what `compare` prints first), then the totals.
    let recorded = footer
        .iter()
        .position(|l| l.starts_with("recorded: "))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert_eq!(
        footer[recorded].trim_end(),
        "recorded: $0.37 · hit rate 77.8 % · 1 observed break, $0.22"
    );
    assert!(
        footer[1..recorded]
            .iter()
            .all(|l| l.starts_with("! observed") || l.starts_with("  ")),
        "{}",
        lines.join("\n")
    );
    let totals = footer.iter().position(|l| l.starts_with("session: "));
    assert_eq!(totals, Some(recorded + 1), "{}", lines.join("\n"));
}

/// Ticks until background work arrives (a deadline, no timing asserted).
fn tick_until_changed(a: &mut App) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !a.tick() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn the_screen_is_redrawn_after_an_action_a_resize_or_background_work_not_on_a_tick() {
    let mut a = app(DEMO, Some(KindArg::Count));
    assert!(a.needs_redraw(), "the first frame");
    view_mut(&mut a).wait_background();
    a.drawn();
    // A poll tick with nothing arrived draws nothing.
    for _ in 0..3 {
        assert!(!a.tick());
        assert!(!a.needs_redraw());
    }
    // A handled key.
    a.update(Action::Down);
    assert!(a.needs_redraw());
    a.drawn();
    // A resize to the size the app has already changes nothing; another does.
    let (w, h) = a.size;
    a.update(Action::Resize(w, h));
    assert!(!a.needs_redraw());
    a.update(Action::Resize(w + 20, h + 6));
    assert!(a.needs_redraw());
    assert_eq!(a.view().unwrap().size, (w + 20, h + 6));
    a.drawn();
    // Tuning starts the footer's timeline in the background: drawn for the key,
    // then again when the marks arrive, and then no more.
    a.update(Action::KeepMore);
    assert!(a.needs_redraw());
    a.drawn();
    tick_until_changed(&mut a);
    assert!(a.needs_redraw(), "the marks arrived");
    assert!(!a.view().unwrap().marks.is_empty());
    a.drawn();
    assert!(!a.tick());
    assert!(!a.needs_redraw());
    // The mouse, Ctrl-Z and a key no binding names are actions too.
    a.update(Action::Pointer(
        mcscope::tui::app::Pointer::WheelDown,
        10,
        12,
    ));
    assert!(a.needs_redraw());
    a.drawn();
    a.update(Action::Suspend);
    assert_eq!(a.take_effects(), vec![mcscope::tui::app::Effect::Suspend]);
    assert!(
        a.needs_redraw(),
        "the terminal comes back cleared: drawn again"
    );
    a.drawn();
    a.update(Action::Unbound);
    assert!(a.needs_redraw());
    assert!(!a.quit);
    a.update(Action::Interrupt);
    assert!(a.quit, "Ctrl-C quits");
}

/// A list scrolled to its end: a click lands on the row drawn under the pointer
/// (not the row that would be there unscrolled); the header and the footer take
/// no clicks.
#[test]
fn a_click_on_a_scrolled_list_selects_the_row_drawn_there_and_header_and_footer_ignore_it() {
    use mcscope::tui::app::{Focus, Pointer};
    // claude-size at 80×24: 8 results, the list's region at most 24·2/5 = 9
    // rows (fewer when the header takes two rows more), so at the last result
    // the first ones are scrolled off.
    let mut a = app(SIZE, None);
    let size = (80, 24);
    a.resize(size.0, size.1);
    a.update(Action::Bottom);
    let lines = screen(&a, size.0, size.1, true);
    let titles = lines.iter().position(|l| l.starts_with("rank")).unwrap();
    assert!(!lines[titles + 1].starts_with("1 "), "{}", lines.join("\n"));
    let tail = |l: &str| {
        l.split('…')
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let second = tail(&lines[titles + 1]);
    // The diff first, so that a click that hits nothing visibly keeps it.
    let diff_y = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap() as u16
        + 2;
    a.mouse(Pointer::Click, 10, diff_y, size);
    assert_eq!(a.view().unwrap().focus, Focus::Diff);
    for y in [0, 1, size.1 - 1, size.1 - 4] {
        a.mouse(Pointer::Click, 10, y, size);
        let v = a.view().unwrap();
        assert_eq!(v.focus, Focus::Diff, "a click on row {y}");
        assert!(v.selected_id().unwrap().ends_with("EtRKZG"));
    }
    // The column titles focus the list and select nothing.
    a.mouse(Pointer::Click, 10, titles as u16, size);
    let v = a.view().unwrap();
    assert_eq!(v.focus, Focus::List);
    assert!(v.selected_id().unwrap().ends_with("EtRKZG"));
    // The first row drawn (not rank 1): the click selects it, not the next one.
    a.mouse(Pointer::Click, 10, titles as u16 + 1, size);
    let id = a.view().unwrap().selected_id().unwrap();
    assert!(id.ends_with(&second), "{id} is not …{second}");
    let rank: usize = lines[titles + 1]
        .split(' ')
        .next()
        .and_then(|r| r.parse().ok())
        .unwrap();
    assert_eq!(
        a.view().unwrap().rows()[rank - 1],
        mcscope::tui::app::ListRow::Result(a.view().unwrap().selected)
    );
}

/// SPEC §13.P3 in the explain panel: on 2.1.332 the `idle` plan (2.1.84–2.1.104
/// only) is a what-if, and the panel says so instead of "first vanished".
#[test]
fn explain_panel_labels_a_what_if_clearing() {
    let mut a = app(
        "sample-sessions/claude-idle-server.jsonl",
        Some(KindArg::Idle),
    );
    // The first row is TodoWrite (never cleared); the next is toolu_01.
    a.update(Action::Down);
    a.update(Action::Explain);
    let lines = screen(&a, 160, 50, true);
    assert!(
        has(
            &lines,
            "what-if: would first vanish from the simulated wire at request 35"
        ),
        "{}",
        lines.join("\n")
    );
    assert!(!has(&lines, "first vanished from the wire"));
    assert!(row(&lines, "  35  ").contains("cleared (what-if)"));
}
