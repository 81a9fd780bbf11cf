//! `--help` and `--version` are output like any other (issue 21 item 6,
//! SPEC §7a): to a full disk they exit 2 with one line saying why; into a
//! pipe already closed they are quiet success.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![cfg(target_os = "linux")]

mod common;

use std::process::{Command, Stdio};

const ASKS: [&[&str]; 4] = [&["--help"], &["-V"], &["--version"], &["compare", "--help"]];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
}

#[test]
fn help_and_version_to_a_full_disk_exit_2_with_one_line() {
    for args in ASKS {
        let Some((_dir, full)) = common::bin::full_device() else {
            return;
        };
        let out = bin().args(args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(
            err.starts_with("mcscope: cannot write the output:") && err.contains("No space"),
            "{args:?}: {err:?}"
        );
    }
}

#[test]
fn help_and_version_into_a_closed_pipe_are_quiet_success() {
    for args in ASKS {
        // The reading end is gone before mcscope starts: its first write fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = bin()
            .args(args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn help_still_prints_and_a_usage_error_is_still_exit_2() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage:"));
    let out = bin().arg("--no-such-flag").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-such-flag"));
    assert!(out.stdout.is_empty());
}

/// The top help and the unknown-format refusal name every harness of the
/// registry (they named Claude Code and Qwen Code only, long after Gemini CLI
/// and OpenCode loaded).
#[test]
fn the_help_and_the_unknown_format_refusal_name_every_harness() {
    let titles = ["Claude Code", "Qwen Code", "Gemini CLI", "OpenCode"];
    let out = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "hello\nworld\n").unwrap();
    let out = bin().arg("plan").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown format"), "{err}");
    for t in titles {
        assert!(help.contains(t), "--help lacks {t}:\n{help}");
        assert!(err.contains(t), "the refusal lacks {t}: {err}");
    }
}
