//! The session picker as a user meets it: generated folders of sessions, drawn on a
//! TestBackend at 80 and 200 columns, driven through the real keymap, with the
//! background scan held by its test hook (`picker::Gate`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{row, screen};

use mcscope::cli::Opts;
use mcscope::tui::app::App;
use mcscope::tui::keymap::{self, Action, PICKER_KEYMAP};
use mcscope::tui::picker::{Gate, Picker, Row};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// A key through the picker's keymap, as the event loop dispatches it.
fn press(app: &mut App, code: KeyCode) {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    let picker = matches!(app.screen, mcscope::tui::app::Screen::Picker(_));
    app.update(keymap::key_action(key, picker, app.in_text_input()));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

fn picker(app: &App) -> &Picker {
    match &app.screen {
        mcscope::tui::app::Screen::Picker(p) => p,
        _ => panic!("not the picker"),
    }
}

/// Writes `text` at `dir/name`, modified `age` seconds before a fixed instant.
fn write(dir: &Path, name: &str, text: &str, age: u64) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000 - age);
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(t)
        .unwrap();
    p
}

fn user(text: &str, extra: &str) -> String {
    format!(
        "{{\"type\":\"user\",{extra}\"message\":{{\"role\":\"user\",\"content\":{}}}}}\n",
        serde_json::to_string(text).unwrap()
    )
}

fn assistant(id: &str, extra: &str) -> String {
    format!(
        "{{\"type\":\"assistant\",{extra}\"message\":{{\"id\":\"{id}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}]}}}}\n"
    )
}

fn result(id: &str) -> String {
    format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":\"x\"}}]}}}}\n"
    )
}

/// Polls the picker until `done` or 20 s pass.
fn poll_until(app: &mut App, what: &str, done: impl Fn(&Picker) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        app.poll_picker();
        if done(picker(app)) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn two_thousand_sessions_show_at_once_and_keys_work_while_the_scan_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("-srv-work-app");
    for i in 0..2000u64 {
        // Session i was modified i seconds ago: s0000 is the newest.
        let text = user(&format!("task number {i:04}"), "") + &assistant("m1", "");
        write(&proj, &format!("s{i:04}.jsonl"), &text, i);
    }
    let files = mcscope::load::list_sessions(dir.path()).unwrap();
    assert_eq!(files.len(), 2000);
    const N: usize = 40;
    let gate = Gate::pause_after(N);
    let mut app = App::with_picker(Picker::scanning("sessions".into(), files, gate.clone()));
    // Every file is a row before a single one is read.
    assert_eq!(picker(&app).rows.len(), 2000);
    poll_until(&mut app, "the first N files", |p| p.scanned == N);
    // Held: no more arrive.
    std::thread::sleep(Duration::from_millis(100));
    app.poll_picker();
    assert_eq!(
        picker(&app).scanned,
        N,
        "the hook holds the scan after N files"
    );

    let lines = screen(&app, 120, 30);
    assert!(
        lines[0].contains("2000 sessions, reading 40/2000"),
        "{}",
        lines[0]
    );
    assert!(row(&lines, "task number 0000").starts_with("▶ "));
    assert!(row(&lines, "task number 0001").contains("/srv/work/app"));
    // Row 41 onwards: not read yet, still listed (date, project, size) with "…".
    let unread = lines.iter().filter(|l| l.trim_end().ends_with('…')).count();
    assert_eq!(unread, 0, "within the first 26 rows all were read");
    press(&mut app, KeyCode::End);
    let lines = screen(&app, 120, 30);
    let last = row(&lines, "▶ ");
    assert!(
        last.trim_end().ends_with("…"),
        "the oldest is not read yet: {last}"
    );
    assert!(last.contains("/srv/work/app"), "{last}");

    // Keys while held: move, sort, filter, help.
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(picker(&app).selected, 2);
    assert!(row(&screen(&app, 120, 30), "▶ ").contains("task number 0002"));
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "number 0017");
    let lines = screen(&app, 120, 30);
    assert!(
        row(&lines, "▶ ").contains("task number 0017"),
        "{}",
        lines.join("\n")
    );
    assert!(row(&lines, "filter: number 0017").contains("of 2000"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(picker(&app).rows.len(), 2000, "Esc clears the filter");
    press(&mut app, KeyCode::Char('?'));
    assert!(
        screen(&app, 120, 30)
            .iter()
            .any(|l| l.contains("picker keys"))
    );
    press(&mut app, KeyCode::Esc);
    assert!(picker(&app).help.is_none());
    assert!(!app.quit);

    gate.release();
    poll_until(&mut app, "all 2000 files", |p| p.scanned == 2000);
    let p = picker(&app);
    assert!(p.entries.iter().all(|e| e.summary.is_some()));
    assert!(!p.scanning_now());
    let lines = screen(&app, 120, 30);
    assert!(lines[0].contains("2000 sessions") && !lines[0].contains("reading"));
    press(&mut app, KeyCode::End);
    let lines = screen(&app, 120, 30);
    assert!(
        row(&lines, "▶ ").contains("task number 1999"),
        "{}",
        lines.join("\n")
    );
}

/// A folder like `~/.claude/projects`: a project folder holding an ordinary
/// session, a session with an inline sub-agent thread, a sub-agent file, an empty
/// and a summary-only file (the two newest), and a session whose records name
/// their cwd.
fn projects() -> (tempfile::TempDir, Vec<(PathBuf, u64, SystemTime)>) {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("-srv-work-app");
    write(&app, "empty.jsonl", "", 0);
    write(
        &app,
        "summary.jsonl",
        "{\"type\":\"summary\",\"summary\":\"Old title\",\"leafUuid\":\"x\"}\n",
        1,
    );
    let plain = user(
        "Caveat: The messages below were generated by the user while running local commands.",
        "\"isMeta\":true,",
    ) + &user(
        "<command-name>/clear</command-name>\n<command-message>clear</command-message>",
        "",
    ) + &user(
        "Why does the login page render blank after the last deploy of the billing service?",
        "",
    ) + &assistant("m1", "")
        + &assistant("m1", "")
        + &result("t1")
        + &assistant("m2", "")
        + &result("t2")
        + &assistant("m3", "");
    write(&app, "plain.jsonl", &plain, 2);
    let threaded = user("Summarise the repo", "\"uuid\":\"a\",\"parentUuid\":null,")
        + &assistant("m1", "\"uuid\":\"b\",\"parentUuid\":\"a\",")
        + &user(
            "List the files under src",
            "\"isSidechain\":true,\"uuid\":\"s1\",\"parentUuid\":null,",
        )
        + &assistant(
            "m2",
            "\"isSidechain\":true,\"uuid\":\"s2\",\"parentUuid\":\"s1\",",
        )
        + &assistant("m3", "\"uuid\":\"c\",\"parentUuid\":\"b\",");
    write(&app, "threaded.jsonl", &threaded, 3);
    // A Claude Code 2.0 sub-agent file: its records carry its session's id.
    let sub = assistant(
        "m9",
        "\"isSidechain\":true,\"agentId\":\"c8d9\",\"sessionId\":\"threaded\",",
    );
    write(&app, "agent-c8d9b115.jsonl", &sub, 4);
    let billing = user(
        "Add retries to the invoice job",
        "\"cwd\":\"/srv/work/billing-service\",",
    ) + &assistant("m1", "");
    write(
        &dir.path().join("-srv-work-billing-service"),
        "b.jsonl",
        &billing,
        5,
    );
    let files = mcscope::load::list_sessions(dir.path()).unwrap();
    (dir, files)
}

fn scanned_app(files: Vec<(PathBuf, u64, SystemTime)>) -> App {
    let mut app = App::with_picker(Picker::scanning("projects".into(), files, Gate::default()));
    poll_until(&mut app, "every file", |p| !p.scanning_now());
    app
}

#[test]
fn columns_at_200_show_everything_a_row_knows() {
    let (dir, files) = projects();
    let app = scanned_app(files);
    let lines = screen(&app, 200, 20);
    let root = dir.path().display().to_string();
    assert!(
        lines[1].contains("date")
            && lines[1].contains("harness")
            && lines[1].contains("project")
            && lines[1].contains("req")
            && lines[1].contains("res")
            && lines[1].contains("size")
            && lines[1].contains("first prompt"),
        "{}",
        lines[1]
    );
    let plain = row(&lines, "Why does the login page");
    // The whole prompt fits at 200 columns; the caveat and /clear were skipped.
    assert!(plain.contains("billing service?"), "{plain}");
    assert!(
        plain.contains("claude") && plain.contains("/srv/work/app"),
        "{plain}"
    );
    // 4 responses (m1 twice is one), 2 tool results.
    assert!(plain.contains("   3    2 "), "{plain}");
    // The long date at 200 columns: 1_900_000_000 - 2 s is 2030-03-17 (local time).
    let date = chrono::DateTime::<chrono::Local>::from(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000 - 2),
    )
    .format("%Y-%m-%d %H:%M")
    .to_string();
    assert!(plain.contains(&date), "{plain} lacks {date}");
    // The records' cwd beats the lossy folder name.
    assert!(row(&lines, "Add retries").contains("/srv/work/billing-service"));
    // Marks.
    assert!(row(&lines, "[sub-agent]").contains("(no prompt)"));
    assert!(
        row(&lines, "[sub-agent]").contains("claude"),
        "date, harness and size stay"
    );
    assert!(row(&lines, "Summarise the repo").contains("[1 sub-agent thread]"));
    let thread = row(&lines, "↳ sub-agent 1");
    assert!(
        thread.contains("[what-if] List the files under src"),
        "{thread}"
    );
    assert!(
        thread.contains("   1    0 "),
        "one request, no results: {thread}"
    );
    // No row repeats the folder's absolute path.
    let rows = &lines[2..lines.len() - 2];
    assert!(
        rows.iter().all(|l| !l.contains(&root)),
        "{}",
        rows.join("\n")
    );
    // The empty and summary-only files (the newest two) are the last rows.
    let listed: Vec<&String> = rows.iter().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        listed.len(),
        7,
        "6 files and 1 thread:\n{}",
        lines.join("\n")
    );
    assert!(listed[5].contains("[empty]"), "{}", listed[5]);
    assert!(listed[6].contains("[summary only]"), "{}", listed[6]);
    // The thread sits right under its session, then the session's sub-agent file.
    let at = listed
        .iter()
        .position(|l| l.contains("Summarise the repo"))
        .unwrap();
    assert!(listed[at + 1].contains("↳ sub-agent 1"));
    assert!(
        listed[at + 2].contains("↳ c8d9b115") && listed[at + 2].contains("[sub-agent]"),
        "{}",
        listed[at + 2]
    );
    // The selection's path is shown once, under the list.
    assert!(
        lines[lines.len() - 2].contains("-srv-work-app/plain.jsonl"),
        "{}",
        lines[lines.len() - 2]
    );
}

#[test]
fn columns_at_80_shorten_the_date_project_and_prompt() {
    let (_dir, files) = projects();
    let app = scanned_app(files);
    let lines = screen(&app, 80, 16);
    let plain = row(&lines, "Why does the login");
    assert!(plain.chars().count() <= 80);
    // Short date (month-day), the project cut from the left, the prompt cut with "…".
    let date = chrono::DateTime::<chrono::Local>::from(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000 - 2),
    )
    .format("%m-%d %H:%M ")
    .to_string();
    assert!(plain.contains(&date), "{plain} lacks {date}");
    assert!(!plain.contains("2030-"), "{plain}");
    assert!(plain.trim_end().ends_with('…'), "{plain}");
    assert!(!plain.contains("billing service?"), "{plain}");
    // The project cut from the left, on a folder boundary when one fits.
    assert!(row(&lines, "Add retries").contains("…lling-service"));
    assert!(plain.contains("/srv/work/app"));
    // Counts and marks still there at 80.
    assert!(plain.contains("   3    2 "), "{plain}");
    assert!(row(&lines, "[empty]").contains("0B"));
    assert!(row(&lines, "↳ sub-agent 1").contains("[what-if]"));
    // The hints come from the picker's keymap.
    assert_eq!(lines[15].trim_end(), keymap::picker_hints());
}

#[test]
fn a_thread_row_opens_the_thread_alone_as_a_what_if() {
    let (_dir, files) = projects();
    let mut app = scanned_app(files);
    let rows = picker(&app).rows.clone();
    let at = rows
        .iter()
        .position(|r| matches!(r, Row::Thread(..)))
        .unwrap();
    for _ in 0..at {
        press(&mut app, KeyCode::Down);
    }
    press(&mut app, KeyCode::Enter);
    let target = app.take_open().expect("Enter asks to open the selection");
    let (n, lines) = target.thread.clone().expect("a thread");
    assert_eq!((n, lines), (1, vec![3, 4]), "its lines of threaded.jsonl");
    let (setup, _) =
        mcscope::tui::load_target(&target, &Opts::default(), &Default::default()).unwrap();
    assert!(setup.session.subagent_what_if);
    assert_eq!(setup.session.requests.len(), 1);
    assert_eq!(setup.session.sidechain_records, 0);
    let k = setup.last_request();
    app.open(setup, k);
    assert!(app.view().is_some());
    // Esc goes back to the same picker, the thread still selected.
    app.update(Action::Back);
    assert_eq!(picker(&app).selected, at);
}

#[test]
fn every_picker_binding_is_in_its_help_and_dispatches_its_action() {
    let (_dir, files) = projects();
    let mut app = scanned_app(files);
    press(&mut app, KeyCode::Char('?'));
    let lines = screen(&app, 100, 40);
    for b in PICKER_KEYMAP {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&b.label()) && l.contains(&b.help())),
            "the help lacks {:?}:\n{}",
            b.action,
            lines.join("\n")
        );
        for k in b.keys {
            let key = KeyEvent::new(*k, KeyModifiers::NONE);
            assert_eq!(keymap::picker_action_for(key, false), Some(b.action));
        }
    }
    // Any key closes it; q then quits.
    press(&mut app, KeyCode::Char('x'));
    assert!(picker(&app).help.is_none());
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn sort_keys_reorder_and_blank_files_stay_last() {
    let (_dir, files) = projects();
    let mut app = scanned_app(files);
    let firsts = |app: &App| -> Vec<String> {
        screen(app, 200, 20)[2..9]
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect()
    };
    press(&mut app, KeyCode::Char('s'));
    let lines = screen(&app, 200, 20);
    assert!(lines[0].contains("sort: size ↓"), "{}", lines[0]);
    // Biggest first: plain.jsonl is the largest file.
    assert!(firsts(&app)[0].contains("Why does the login page"));
    press(&mut app, KeyCode::Char('s'));
    assert!(screen(&app, 200, 20)[0].contains("sort: requests ↓"));
    assert!(
        firsts(&app)[0].contains("Why does the login page"),
        "3 requests"
    );
    press(&mut app, KeyCode::Char('S'));
    assert!(screen(&app, 200, 20)[0].contains("sort: requests ↑"));
    let f = firsts(&app);
    assert!(
        f[5].contains("[empty]") || f[5].contains("[summary only]"),
        "{f:?}"
    );
    assert!(
        f[6].contains("[empty]") || f[6].contains("[summary only]"),
        "{f:?}"
    );
}

#[test]
fn a_filter_that_matches_a_sub_agent_file_shows_it_under_its_session() {
    let (_dir, files) = projects();
    let mut app = scanned_app(files);
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "c8d9b115");
    let lines = screen(&app, 200, 20);
    let listed: Vec<&String> = lines[2..18]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(listed.len(), 2, "{}", lines.join("\n"));
    assert!(
        listed[0].contains("Summarise the repo"),
        "its session, for context"
    );
    assert!(listed[1].contains("↳ c8d9b115"));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let t = app.take_open().unwrap();
    assert!(t.path.ends_with("agent-c8d9b115.jsonl") && t.thread.is_none());
}

#[test]
fn a_click_selects_the_row_under_it_and_the_wheel_scrolls() {
    use mcscope::tui::app::Pointer;
    let (_dir, files) = projects();
    let mut app = scanned_app(files);
    let lines = screen(&app, 120, 30);
    // Screen row 4 is the third row of the list (title, column titles, then rows).
    app.mouse(Pointer::Click, 10, 4, (120, 30));
    assert_eq!(picker(&app).selected, 2);
    assert!(row(&screen(&app, 120, 30), "▶ ").contains(lines[4][2..].trim_end()));
    app.mouse(Pointer::WheelDown, 10, 10, (120, 30));
    assert_eq!(picker(&app).selected, 5, "the wheel moves 3 rows");
    // The column titles are no row.
    app.mouse(Pointer::Click, 10, 1, (120, 30));
    assert_eq!(picker(&app).selected, 5);
}

/// Ticks until the picker's scan brings something (a deadline, no timing asserted).
fn tick_until_changed(app: &mut App) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !app.tick() {
        assert!(Instant::now() < deadline, "timed out waiting for the scan");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn the_picker_is_redrawn_when_its_scan_moves_on_and_not_while_it_is_held() {
    let (_dir, files) = projects();
    assert!(files.len() >= 2);
    // The worker summarises the first file, then waits.
    let gate = Gate::pause_after(1);
    let mut app = App::with_picker(Picker::scanning("projects".into(), files, gate.clone()));
    assert!(app.needs_redraw(), "the first frame");
    app.drawn();
    tick_until_changed(&mut app);
    assert_eq!(picker(&app).scanned, 1);
    assert!(app.needs_redraw(), "a summary arrived");
    app.drawn();
    // Held: ticks bring nothing, nothing is drawn.
    for _ in 0..5 {
        assert!(!app.tick());
    }
    assert!(!app.needs_redraw());
    gate.release();
    tick_until_changed(&mut app);
    assert!(app.needs_redraw(), "the scan moved on");
    // A key is drawn at once; an unbound key too (it may close the help).
    app.drawn();
    app.update(Action::Down);
    assert!(app.needs_redraw());
    app.drawn();
    app.update(Action::Unbound);
    assert!(app.needs_redraw());
}

/// A picker with no sessions says where to start: the guided tour and the samples.
#[test]
fn an_empty_picker_points_at_the_demo_and_the_samples() {
    let app = App::picker("an empty folder".into(), Vec::new());
    for width in [80, 200] {
        let lines = screen(&app, width, 24).join("\n");
        assert!(lines.contains("mcscope demo"), "{lines}");
        if width == 200 {
            assert!(lines.contains("sample-sessions/"), "{lines}");
        }
    }
}

/// At 80×24 the title line keeps the session count and the sort (a long title
/// of several harness folders is cut in its middle), and the harness column is
/// as wide as `opencode`, so an OpenCode row lines up with a Claude row.
#[test]
fn at_80_the_title_keeps_its_count_and_an_opencode_row_lines_up() {
    let (_dir, files) = projects();
    let title = "/home/someone/.claude/projects + /home/someone/.qwen/projects + /home/someone/.gemini/tmp + /home/someone/.local/share/opencode/opencode.db".to_string();
    let mut p = Picker::scanning(title, files, Gate::default());
    let db = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/opencode-build.db");
    let sessions = mcscope::load::database_sessions(&db).unwrap();
    let format = mcscope::load::sniff(&db).unwrap();
    p.add_database(&db, format, &sessions);
    let mut app = App::with_picker(p);
    poll_until(&mut app, "every file", |p| !p.scanning_now());
    let lines = screen(&app, 80, 24);
    let head = lines[0].trim_end();
    let n = picker(&app).entries.len();
    assert!(head.chars().count() <= 80, "{head}");
    assert!(head.contains(&format!("{n} sessions")), "{head}");
    assert!(head.contains("sort: "), "{head}");
    assert!(head.contains('…'), "the title is cut: {head}");
    // The harness column: `opencode` whole, the next column where a Claude row has it.
    let oc = lines[2..]
        .iter()
        .find(|l| l.contains(" opencode "))
        .expect("an OpenCode row")
        .as_str();
    let claude = row(&lines, "Why does the login");
    let col = |l: &str, word: &str| {
        l.char_indices()
            .find(|(i, _)| l[*i..].starts_with(word))
            .map(|(i, _)| l[..i].chars().count())
    };
    let after = |l: &str, word: &str| col(l, word).map(|c| c + word.chars().count() + 1);
    assert_eq!(col(oc, "opencode"), col(claude, "claude"), "{oc}\n{claude}");
    let next = |l: &str, from: usize| l.chars().nth(from);
    let (a, b) = (
        after(oc, "opencode").unwrap(),
        after(claude, "claude").unwrap() + 2,
    );
    assert_eq!(
        a, b,
        "the project column starts at one place:\n{oc}\n{claude}"
    );
    assert!(next(oc, a - 1) == Some(' ') && next(claude, b - 1) == Some(' '));
}
