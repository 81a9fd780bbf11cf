//! Keys and the mouse: search, filters, jumps, the command line, esc and q, y, clicks, the picker.

use super::*;

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
    let setup = cli::setup(&sample(DEMO), &Opts::default().with("--policy", "idle")).unwrap();
    let e = mcscope::analysis::explain(&setup, "toolu_B", 6).unwrap();
    assert_eq!(text, mcscope::report::explain_text(&setup, &e));
    assert!(a.view().unwrap().overlay.is_some(), "the panel stays open");
    // The sequence: ESC ] 52 ; c ; base64 BEL ("toolu_A" is dG9vbHVfQQ==).
    assert_eq!(mcscope::tui::osc52("toolu_A"), "\x1b]52;c;dG9vbHVfQQ==\x07");
    assert_eq!(mcscope::tui::osc52("ab"), "\x1b]52;c;YWI=\x07");
    assert_eq!(mcscope::tui::osc52(""), "\x1b]52;c;\x07");
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
