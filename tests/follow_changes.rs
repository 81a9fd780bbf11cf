//! Follow mode sees what growth alone does not show (issue 21 item 6): a file
//! rewritten in place to the same size is read again, and a deleted file is
//! said once — `timeline --follow` stops with exit 2, the TUI keeps what it
//! showed and says why.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::Claude;
use mcscope::load::{Change, Follower};
use std::io::{Seek, SeekFrom, Write};
use std::time::{Duration, Instant};

/// Overwrites `bytes` at `at` in place (same inode, same size).
fn patch(path: &std::path::Path, at: u64, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(bytes).unwrap();
}

fn session_file(dir: &std::path::Path) -> (Claude, std::path::PathBuf) {
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("AAAA", 100)
        .bash("BBBB", 100)
        .bash("CCCC", 100)
        .answer("ok");
    let path = c.write(dir, "s.jsonl");
    (c, path)
}

fn ids(f: &Follower) -> Vec<String> {
    f.session().results.iter().map(|r| r.id.clone()).collect()
}

#[test]
fn a_same_size_rewrite_of_the_first_line_is_read_again() {
    let t = tempfile::tempdir().unwrap();
    let (c, path) = session_file(t.path());
    let mut f = Follower::open(&path, None).unwrap();
    assert_eq!(f.poll().unwrap(), Change::Unchanged);
    let len = std::fs::metadata(&path).unwrap().len();
    // The first prompt's text changes, nothing else (and maybe not the mtime:
    // the check is on the bytes already read).
    let at = c.lines[0].find("\"go\"").unwrap() as u64;
    patch(&path, at, b"\"GO\"");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len);
    match f.poll().unwrap() {
        Change::Restarted(why) => assert!(why.contains("rewritten in place"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(f.poll().unwrap(), Change::Unchanged);
}

#[test]
fn a_same_size_rewrite_in_the_middle_with_a_new_mtime_is_read_again() {
    let t = tempfile::tempdir().unwrap();
    let (c, path) = session_file(t.path());
    let mut f = Follower::open(&path, None).unwrap();
    assert_eq!(ids(&f), ["AAAA", "BBBB", "CCCC"]);
    // BBBB becomes QQQQ in its call and its result: same size, same inode,
    // first line and last bytes unchanged.
    let text = c.lines.join("\n") + "\n";
    let patched = text.replace("BBBB", "QQQQ");
    assert_eq!(patched.len(), text.len());
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    patch(&path, 0, patched.as_bytes());
    // The clock moved on since the last look (file times are coarse).
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime + Duration::from_secs(2))
        .unwrap();
    match f.poll().unwrap() {
        Change::Restarted(why) => assert!(why.contains("rewritten in place"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(ids(&f), ["AAAA", "QQQQ", "CCCC"]);
    // A file that only grows is still read on from where it was.
    let mut more = Claude::default();
    more.prompt("again", 1.0).answer("done");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    for l in &more.lines {
        writeln!(file, "{l}").unwrap();
    }
    drop(file);
    assert_eq!(f.poll().unwrap(), Change::Grew(2));
}

#[test]
fn a_deleted_file_is_said_once_and_what_was_read_is_kept() {
    let t = tempfile::tempdir().unwrap();
    let (c, path) = session_file(t.path());
    let mut f = Follower::open(&path, None).unwrap();
    let records = f.session().records;
    std::fs::remove_file(&path).unwrap();
    assert_eq!(f.poll().unwrap(), Change::Deleted);
    assert_eq!(f.poll().unwrap(), Change::Unchanged, "said once");
    assert_eq!(f.session().records, records);
    // Back under the same name: read from the start.
    std::fs::write(&path, c.lines[..2].join("\n") + "\n").unwrap();
    assert!(matches!(f.poll().unwrap(), Change::Restarted(_)));
    assert_eq!(f.session().records, 2);
}

#[test]
fn timeline_follow_stops_with_exit_2_when_the_file_is_deleted() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let t = tempfile::tempdir().unwrap();
    let (_, path) = session_file(t.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("timeline")
        .arg(&path)
        .args(["--follow", "--interval-ms", "50"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // The first row is out: the file is being followed.
    while !line.trim_start().starts_with("1 ") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0);
    }
    std::fs::remove_file(&path).unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("timeline --follow went on after the file was deleted");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("deleted"), "{err}");
}

#[test]
fn the_tui_keeps_its_last_state_when_the_followed_file_is_deleted() {
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::Action;
    let t = tempfile::tempdir().unwrap();
    let (_, path) = session_file(t.path());
    let mut app = App::session(common::setup(&path, Default::default()));
    app.update(Action::ToggleFollow);
    let n = app.view().unwrap().setup.session.requests.len();
    std::fs::remove_file(&path).unwrap();
    let view = app.view_mut().unwrap();
    let start = Instant::now();
    while !view.poll_follow() {
        assert!(start.elapsed() < Duration::from_secs(10), "never noticed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = view.status.clone().unwrap();
    assert!(status.contains("deleted"), "{status}");
    assert!(
        view.following(),
        "still following, for a file that comes back"
    );
    assert_eq!(view.setup.session.requests.len(), n, "the last state kept");
    // It goes on: keys work, the screen draws, nothing quits.
    app.update(Action::PrevRequest);
    app.update(Action::NextRequest);
    assert!(!app.quit);
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    term.draw(|f| mcscope::tui::ui::draw(f, &app, mcscope::tui::ui::Theme::new(false)))
        .unwrap();
    let buf = term.backend().buffer().clone();
    let screen: String = (0..40)
        .flat_map(|y| (0..120).map(move |x| (x, y)))
        .map(|(x, y)| buf[(x, y)].symbol().to_string())
        .collect();
    assert!(screen.contains("deleted"), "the footer says so");
}
