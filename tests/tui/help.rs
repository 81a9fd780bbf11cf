//! The help: every action has a key and a line, and it scrolls to its end at every size.

use super::*;

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
        WindowPanel => BillPanel,
        BillPanel => return None,
        // Typed text: made by any key while an input line is open, not by the table.
        Type(_) | Erase | EraseLine | Submit | Complete => return None,
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
    // 80×24 (the size) and the smallest screen the TUI draws.
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
