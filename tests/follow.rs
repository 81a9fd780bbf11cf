//! Files that grow while open: only appended bytes are read, a partial last line
//! waits for its end, truncation or replacement starts over with a notice.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::Claude;
use mcscope::load::{Change, Follower};
use std::io::Write;

/// Waits for the TUI's follow to read the new lines (the file is looked at
/// every 500 ms at most).
fn read_new_lines(view: &mut mcscope::tui::app::SessionView) {
    let start = std::time::Instant::now();
    while !view.poll_follow() {
        assert!(
            start.elapsed().as_secs() < 10,
            "the new lines were never read"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn lines(c: &Claude) -> Vec<String> {
    c.lines.clone()
}

#[test]
fn appended_lines_are_read_and_a_partial_line_waits() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok");
    let all = lines(&c);
    let path = t.path().join("s.jsonl");
    // The first three records, then half of the fourth (still being written).
    let (head, rest) = all.split_at(3);
    let mut f = std::fs::File::create(&path).unwrap();
    for l in head {
        writeln!(f, "{l}").unwrap();
    }
    let fourth = &rest[0];
    let (a, b) = fourth.split_at(fourth.len() / 2);
    write!(f, "{a}").unwrap();
    f.flush().unwrap();

    let mut follow = Follower::open(&path, None).unwrap();
    let s = follow.session();
    assert_eq!(s.records, 3);
    assert!(
        s.diagnostics.is_empty(),
        "a partial line is not damage: {:?}",
        s.diagnostics
    );
    assert_eq!(follow.poll().unwrap(), Change::Unchanged);

    // The rest of the fourth line and the remaining records arrive.
    writeln!(f, "{b}").unwrap();
    for l in &rest[1..] {
        writeln!(f, "{l}").unwrap();
    }
    f.flush().unwrap();
    assert_eq!(follow.poll().unwrap(), Change::Grew(rest.len()));
    let grown = follow.session();
    let full = mcscope::load::load(&path, None).unwrap();
    assert_eq!(grown.records, full.records);
    assert_eq!(grown.requests.len(), full.requests.len());
    assert_eq!(grown.results.len(), full.results.len());
    assert!(grown.diagnostics.is_empty());
}

#[test]
fn truncation_and_replacement_start_over_with_a_notice() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).bash("A", 100).answer("ok");
    let path = t.path().join("s.jsonl");
    c.write(t.path(), "s.jsonl");
    let mut follow = Follower::open(&path, None).unwrap();
    let before = follow.session().records;

    // Truncated to its first line.
    std::fs::write(&path, format!("{}\n", c.lines[0])).unwrap();
    match follow.poll().unwrap() {
        Change::Restarted(why) => assert!(why.contains("shorter"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(follow.session().records, 1);

    // Replaced by another file (log rotation: a new inode under the same name).
    let other = t.path().join("new.jsonl");
    let mut d = Claude::default();
    d.prompt("hello", 0.0)
        .answer("hi")
        .prompt("more", 1.0)
        .answer("ok");
    std::fs::write(&other, d.lines.join("\n") + "\n").unwrap();
    std::fs::rename(&other, &path).unwrap();
    match follow.poll().unwrap() {
        Change::Restarted(why) => assert!(why.contains("replaced"), "{why}"),
        other => panic!("{other:?}"),
    }
    let s = follow.session();
    assert_eq!(s.records, 4);
    assert_eq!(s.requests.len(), 2, "the new file's two answers");
    assert!(
        s.results.is_empty(),
        "nothing of the old file ({before} records) is left"
    );
}

#[test]
fn the_cli_follows_a_growing_timeline() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).bash("A", 100).answer("ok");
    let path = c.write(t.path(), "s.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args([
            "timeline",
            path.to_str().unwrap(),
            "--follow",
            "--interval-ms",
            "50",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut line = String::new();
    // The first rows: requests 1 and 2.
    while !seen
        .iter()
        .any(|l: &String| l.trim_start().starts_with("2 "))
    {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "{seen:?}");
        seen.push(line.clone());
    }
    let mut more = Claude::default();
    more.prompt("again", 1.0).answer("done");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    for l in &more.lines {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    // Request 3 arrives as a new row.
    loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "{seen:?}");
        seen.push(line.clone());
        if line.trim_start().starts_with("3 ") {
            break;
        }
    }
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn a_followed_file_asks_the_disk_about_paths_again() {
    // A memory root that does not exist when the TUI opens, then becomes a link
    // to a folder: a read under it that arrives later is protected, as a fresh
    // `mcscope plan` would say — the paths are resolved anew after new lines.
    use mcscope::policy::engine::Status;
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::Action;
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let real = base.join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("b.md"), "remember").unwrap();
    let mem = base.join("mem");
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .read("A", mem.join("a.md").to_str().unwrap())
        .bash("Z", 10);
    let path = c.write(&base, "s.jsonl");
    let mut opts = mcscope::setup::Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "1");
    opts.given.read("--protect", "").unwrap();
    opts.shared.memory_root = vec![format!("project={}", mem.display())];
    let setup = common::setup(&path, opts.clone());
    let mut app = App::session(setup);
    app.update(Action::ToggleFollow);

    std::os::unix::fs::symlink(&real, &mem).unwrap();
    c.read("B", mem.join("b.md").to_str().unwrap())
        .bash("Y", 10);
    std::fs::write(&path, c.lines.join("\n") + "\n").unwrap();
    let view = app.view_mut().unwrap();
    read_new_lines(view);
    view.set_plan(
        mcscope::policy::PlanKind::Forced,
        view.policy().delivery,
        view.setup.last_request(),
    );
    let fresh = common::plan(&common::setup(&path, opts), view.setup.last_request());
    let status = |p: &mcscope::analysis::PlanAt, s: &mcscope::session::Session| {
        p.candidates
            .iter()
            .find(|c| s.results[c.result].id == "B")
            .map(|c| c.status)
    };
    assert_eq!(status(&fresh, &view.setup.session), Some(Status::Protected));
    assert_eq!(
        status(&view.plan, &view.setup.session),
        Some(Status::Protected),
        "the followed view agrees with a fresh plan"
    );
}

/// A followed session that grows is planned as a fresh `mcscope` would plan
/// the whole file: what a run derives from its session once (idle-server's
/// reading of the records, the context, the api facts) is read again for the
/// grown session, not kept from the first one.
#[test]
fn a_followed_session_is_planned_on_what_it_now_holds() {
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::Action;
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions/claude-idle-server.jsonl");
    let text = std::fs::read_to_string(&sample).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("s.jsonl");
    // The first half, then the rest (with the return after the idle gap).
    std::fs::write(&path, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    let mut app = App::session(common::setup(&path, Default::default()));
    app.update(Action::ToggleFollow);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let view = app.view_mut().unwrap();
    read_new_lines(view);
    let fresh = common::setup(&path, Default::default());
    let n = fresh.session.requests.len();
    assert_eq!(view.setup.session.requests.len(), n);
    let followed: Vec<_> = mcscope::analysis::timeline_steps(&view.setup, n)
        .map(|st| (st.index, st.trigger, st.newly_cleared, st.idle_server))
        .collect();
    let whole: Vec<_> = mcscope::analysis::timeline_steps(&fresh, n)
        .map(|st| (st.index, st.trigger, st.newly_cleared, st.idle_server))
        .collect();
    assert!(
        whole.iter().any(|(_, t, _, _)| t.is_some()),
        "idle-server fires in the whole file"
    );
    assert_eq!(followed, whole);
}
