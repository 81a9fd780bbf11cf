//! The HTML report is meant to be shared (SPEC §15.20, issue 21 item 6): it
//! names sessions relative to the folder compared or to the home folder
//! (`~/…`), never by an absolute path holding the user's and the project's
//! names, unless `--full-paths`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn demo_into(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO), &p).unwrap();
    p
}

fn html(home: &Path, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("compare")
        .args(args)
        .args(["--format", "html", "--quiet"])
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("MCSCOPE_CONFIG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_html_report_names_sessions_without_absolute_paths() {
    let t = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(t.path()).unwrap();
    let abs = home.display().to_string();
    let session = demo_into(
        &home.join(".claude/projects/-home-ann-secret-app"),
        "s.jsonl",
    );

    // One session under the home folder: ~/….
    let page = html(&home, &[session.as_os_str()]);
    assert!(!page.contains(&abs), "an absolute path in the page");
    assert!(
        page.contains("~/.claude/projects/-home-ann-secret-app/s.jsonl"),
        "{page}"
    );

    // --full-paths keeps the path as given.
    let page = html(&home, &[session.as_os_str(), "--full-paths".as_ref()]);
    assert!(page.contains(&session.display().to_string()));

    // A folder: relative to it, the skipped files too.
    let work = home.join("work");
    demo_into(&work.join("a"), "one.jsonl");
    demo_into(&work.join("b"), "two.jsonl");
    std::fs::write(work.join("b/empty.jsonl"), "").unwrap();
    let page = html(&home, &[work.as_os_str()]);
    assert!(!page.contains(&abs), "an absolute path in the page");
    for name in ["a/one.jsonl", "b/two.jsonl", "b/empty.jsonl"] {
        assert!(page.contains(name), "{name} not in the page");
    }

    // A session outside the home folder: its file name.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = demo_into(elsewhere.path(), "far.jsonl");
    let page = html(&home, &[outside.as_os_str()]);
    assert!(
        !page.contains(&elsewhere.path().display().to_string()),
        "an absolute path in the page"
    );
    assert!(page.contains("far.jsonl"));
}

#[test]
fn explain_accepts_full_paths() {
    let t = tempfile::tempdir().unwrap();
    let session = demo_into(t.path(), "s.jsonl");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .arg("explain")
            .arg(&session)
            .arg("toolu_A")
            .args(extra)
            .output()
            .unwrap()
    };
    let plain = run(&[]);
    let full = run(&["--full-paths"]);
    assert!(plain.status.success(), "{plain:?}");
    assert!(full.status.success(), "{full:?}");
    // Text keeps the path as given either way.
    assert_eq!(plain.stdout, full.stdout);
}
