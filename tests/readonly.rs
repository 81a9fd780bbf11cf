//! mcscope never changes what it reads: every command and the TUI leave each sample
//! and corpus session's size, mtime and bytes as they were. And the CLI behaves in
//! pipes: no escape codes, quiet on a closed pipe.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;
use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap::Action;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sessions() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "claude-demo.jsonl",
        "claude-size.jsonl",
        "qwen-memory/session.jsonl",
    ]
    .iter()
    .map(|p| root().join("sample-sessions").join(p))
    .collect();
    // Without a corpus (a fresh clone), the samples only.
    v.extend(corpus::jsonl_files());
    v.sort();
    v
}

/// Size, mtime and the bytes themselves; and the folder's listing (no sidecar or
/// temp file left beside the session).
fn fingerprint(p: &Path) -> (u64, std::time::SystemTime, Vec<u8>, Vec<String>) {
    let m = std::fs::metadata(p).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    (
        m.len(),
        m.modified().unwrap(),
        std::fs::read(p).unwrap(),
        names,
    )
}

fn mcscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

#[test]
fn no_command_and_no_tui_action_changes_a_session() {
    for path in sessions() {
        let before = fingerprint(&path);
        let p = path.to_str().unwrap();
        let commands = [
            vec!["plan", p, "--format", "json"],
            vec!["plan", p, "--policy", "count", "--delivery", "rewrite"],
            vec!["timeline", p, "--format", "json"],
            vec!["timeline", p, "--policy", "size"],
            vec!["wire", p],
            vec!["wire", p, "--side", "local"],
            vec!["explain", p, "toolu_A"],
            vec!["evidence", p, "--format", "json"],
            vec!["evidence", p],
        ];
        // The commands run at once (each reads the session on its own), so a
        // debug build's runs share the cores.
        let outputs: Vec<std::process::Output> = std::thread::scope(|scope| {
            let runs: Vec<_> = commands
                .iter()
                .map(|args| scope.spawn(move || mcscope(args)))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for (args, out) in commands.iter().zip(&outputs) {
            assert!(matches!(out.status.code(), Some(0 | 2)), "{args:?}");
        }
        // No escape codes when stdout is a pipe, whatever the output.
        for o in &outputs {
            assert!(
                !o.stdout.contains(&0x1b),
                "escape codes in piped output of {p}"
            );
        }
        // The TUI, driven by actions, following the file, exporting elsewhere.
        if let Ok(setup) = cli::setup(&path, &Opts::default().with("--policy", "idle")) {
            let mut app = App::session(setup);
            for a in [
                Action::ToggleFollow,
                Action::FirstRequest,
                Action::NextRequest,
                Action::CyclePlan,
                Action::ToggleDelivery,
                Action::KeepMore,
                Action::ToggleProtect,
                Action::Explain,
                Action::Back,
                Action::LastRequest,
            ] {
                app.update(a);
            }
            let t = tempfile::tempdir().unwrap();
            let v = app.view_mut().unwrap();
            v.poll_follow();
            v.export(&t.path().join("out.json")).unwrap();
            assert!(
                v.export(&path).is_err(),
                "export over the session is refused"
            );
        }
        assert!(before == fingerprint(&path), "{} changed", path.display());
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let big = tempfile::tempdir().unwrap();
    // A timeline long enough to fill the pipe.
    let src = std::fs::read_to_string(root().join("sample-sessions/claude-demo.jsonl")).unwrap();
    let path = big.path().join("long.jsonl");
    std::fs::write(&path, src.repeat(300)).unwrap();
    for format in ["text", "json"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(["timeline", path.to_str().unwrap(), "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then close our end (as `| head -1` does).
        let mut stdout = child.stdout.take().unwrap();
        let mut buf = [0u8; 64];
        std::io::Read::read(&mut stdout, &mut buf).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert!(
            out.stderr.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn errors_name_the_path_and_the_cause() {
    let t = tempfile::tempdir().unwrap();
    let unreadable = t.path().join("not-a-session.png");
    std::fs::write(&unreadable, b"\x89PNG\r\n\x1a\n\0\0\0").unwrap();
    for (args, cause) in [
        (
            vec!["plan".to_string(), unreadable.display().to_string()],
            "unknown format",
        ),
        (
            vec![
                "plan".into(),
                t.path().join("missing.jsonl").display().to_string(),
            ],
            "No such file",
        ),
        (
            vec!["timeline".into(), t.path().display().to_string()],
            "directory",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&args[1]) && err.contains(cause), "{err}");
        assert!(out.stdout.is_empty());
    }
}
