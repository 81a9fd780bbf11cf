//! What a new user trips on first (issue 14), through the real binary: a bare file
//! name with a sidecar, output errors, the TUI off a terminal, `timeline --follow`
//! on a session that has no requests yet.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::Claude;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE");
    c
}

#[test]
fn a_bare_file_name_reads_its_sidecar() {
    // `cd sample-sessions && mcscope plan claude-demo.jsonl`: the sidecar's folder is
    // the current one (its parent is the empty path).
    let out = bin()
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions"))
        .args(["plan", "claude-demo.jsonl", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // claude-demo.mcscope.json says keep_recent 2 and trigger_threshold 3 (the
    // claude preset's own values are 5 and 10): the sidecar was read.
    assert_eq!(v["policy"]["keep_recent"], 2, "{v}");
    assert_eq!(v["policy"]["trigger_threshold"], 3, "{v}");
}

#[test]
#[cfg(target_os = "linux")]
fn a_failed_write_is_an_error_and_a_closed_pipe_is_not() {
    // A full disk (a `/dev/full`-like node of the test's own): every write
    // fails with "no space left on device".
    for args in [
        &["timeline", DEMO, "--format", "json"][..],
        &["timeline", DEMO][..],
        &["plan", DEMO, "--format", "json"][..],
    ] {
        let Some((_dir, full)) = common::bin::full_device() else {
            break;
        };
        let out = bin().args(args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("mcscope: cannot write the output:") && err.lines().count() == 1,
            "{args:?}: one line saying why: {err:?}"
        );
    }
    // `| head` that stopped reading: quiet success.
    for args in [
        &["timeline", DEMO, "--format", "json"][..],
        &["plan", DEMO][..],
    ] {
        let mut child = bin()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Reads a child's stdout on a thread; the text so far on demand.
fn collect(mut r: impl Read + Send + 'static) -> std::sync::Arc<std::sync::Mutex<String>> {
    let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let t = text.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            t.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

fn wait_for(what: &str, ok: impl Fn() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn follow_prints_the_header_once_and_rebuilds_only_when_the_file_grew() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    let path = c.write(dir.path(), "s.jsonl");
    let mut child = bin()
        .args(["timeline", path.to_str().unwrap(), "--follow"])
        .args(["--interval-ms", "10"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let text = collect(child.stdout.take().unwrap());
    let header = "REQ  AT";
    wait_for("the header", || text.lock().unwrap().contains(header));
    // Thirty ticks and more with nothing appended: the header stays alone.
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        text.lock().unwrap().matches(header).count(),
        1,
        "{}",
        text.lock().unwrap()
    );
    // Nothing appended, nothing rebuilt: a sidecar that appears now (broken) is not
    // read until the file grows.
    std::fs::write(dir.path().join("s.mcscope.json"), "{").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the session was rebuilt although nothing was appended"
    );
    // The file grows: the session is rebuilt, the sidecar read, and its error reported.
    let before = c.lines.len();
    c.bash("A", 100).answer("ok");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    for l in &c.lines[before..] {
        writeln!(f, "{l}").unwrap();
    }
    f.flush().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the grown file was not read");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("bad sidecar"), "{err}");
}

#[test]
fn off_a_terminal_the_tui_prints_one_line_and_exits_2() {
    // `mcscope FILE </dev/null`, `mcscope FILE | head`, `mcscope demo </dev/null`,
    // `mcscope sample-sessions | cat`: stdin or stdout (here both) is no terminal.
    for args in [&[DEMO][..], &["demo"][..], &["sample-sessions"][..]] {
        let out = bin()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err:?}");
        assert!(
            err.starts_with("mcscope: not a terminal: use `mcscope plan`")
                && err.contains("timeline")
                && err.contains("explain"),
            "{args:?}: {err:?}"
        );
        // Nothing reaches the pipe: no escape codes, no alternate screen.
        assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
    }
    // A missing file is still reported as such first.
    let out = bin()
        .arg("sample-sessions/nope.jsonl")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.jsonl"));
}

fn explain_json(id: &str) -> (Option<i32>, String, String) {
    let out = bin()
        .args(["explain", DEMO, id, "--format", "json"])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn explain_takes_a_unique_id_prefix_and_lists_the_matches_of_an_ambiguous_one() {
    let (code, full, err) = explain_json("toolu_B");
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&full).unwrap();
    assert_eq!(v["tool_use_id"], "toolu_B");
    // `B` alone: a prefix of the id without the harness's `toolu_`; the very same output.
    let (code, short, err) = explain_json("B");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(short, full);
    // `toolu_` names all four: an error that lists them, exit 2.
    let (code, out, err) = explain_json("toolu_");
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert_eq!(
        err.trim_end(),
        format!(
            "mcscope: {DEMO}: id prefix \"toolu_\" is ambiguous: 4 match (toolu_A, toolu_B, toolu_C, toolu_D)"
        )
    );
    // No match: the error it always was.
    let (code, _, err) = explain_json("toolu_Z");
    assert_eq!(code, Some(2));
    assert!(err.contains("no tool result with id \"toolu_Z\""), "{err}");
}

#[test]
fn help_says_what_every_option_does_and_ends_with_three_examples() {
    let out = bin().arg("--help").output().unwrap();
    let top = String::from_utf8_lossy(&out.stdout).into_owned();
    let tail: Vec<&str> = top.trim_end().lines().rev().take(4).collect();
    assert_eq!(tail[3], "Examples:", "{top}");
    assert!(
        tail[..3]
            .iter()
            .all(|l| l.trim_start().starts_with("mcscope "))
    );
    for sub in ["plan", "timeline", "explain", "wire"] {
        let out = bin().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        for line in text.lines().filter(|l| l.trim_start().starts_with('-')) {
            let words = line.trim().split_once("  ").map(|(_, w)| w.trim());
            assert!(
                words.is_some_and(|w| !w.is_empty()),
                "{sub} --help: an option without a word: {line:?}"
            );
        }
    }
    let out = bin().args(["plan", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("default auto, the harness's own choice"),
        "{text}"
    );
    assert!(
        text.contains("the most recent N (default per plan kind: 5"),
        "{text}"
    );
}

/// The flags compare shares with plan are declared once: compare's help says
/// what each does in plan's words (it said nothing before).
#[test]
fn compare_help_explains_the_flags_it_shares_with_plan_in_the_same_words() {
    let help = |sub: &str| {
        let out = bin().args([sub, "--help"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (plan, compare) = (help("plan"), help("compare"));
    // The words clap prints after a flag: its line's tail, or the next line.
    let words = |text: &str, flag: &str| -> String {
        let lines: Vec<&str> = text.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing:\n{text}"));
        match lines[i].trim().split_once("  ") {
            Some((_, w)) if !w.trim().is_empty() => w.trim().to_string(),
            _ => lines[i + 1].trim().to_string(),
        }
    };
    for flag in [
        "--budget-tokens",
        "--budget-min-saving",
        "--budget-warning",
        "--protect",
        "--no-protect",
        "--clear-errors",
        "--no-clear-errors",
        "--memory-root",
        "--path-map",
        "--cache-ttl",
    ] {
        let w = words(&compare, flag);
        assert!(!w.is_empty(), "compare {flag} says nothing:\n{compare}");
        assert!(
            plan.contains(w.trim_end_matches(" [possible values: auto, 5m, 1h]")),
            "compare {flag} says {w:?}, which plan --help does not:\n{plan}"
        );
    }
    assert!(
        words(&compare, "--budget-tokens").starts_with("Budget plan: the tool-result tokens"),
        "{compare}"
    );
}

/// A value clap refuses is answered with the valid names, the names the JSON,
/// the sidecar and the config file use.
#[test]
fn a_bad_value_lists_the_names_the_json_uses() {
    let demo = "sample-sessions/claude-demo.jsonl";
    let run = |args: &[&str]| {
        let out = bin()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(&["plan", demo, "--policy", "bogus"]);
    assert!(
        e.contains(
            "[possible values: auto, idle, idle-server, forced, size, count, budget, api, recorded, mask, prune, cline]"
        ),
        "{e}"
    );
    let e = run(&["plan", demo, "--delivery", "fast"]);
    assert!(
        e.contains("[possible values: rewrite, cache-edits, server]"),
        "{e}"
    );
    let e = run(&["wire", demo, "--side", "both"]);
    assert!(e.contains("[possible values: wire, local]"), "{e}");
    let e = run(&["plan", demo, "--input-format", "csv"]);
    assert!(
        e.contains(
            "[possible values: claude-jsonl, qwen-jsonl, messages-json, gemini-jsonl, gemini-json, opencode-db, opencode-json, opencode-export, cline-task]"
        ),
        "{e}"
    );
    // The names serde writes: the JSON of the same session reads them back.
    let out = bin()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "plan",
            demo,
            "--policy",
            "count",
            "--delivery",
            "cache-edits",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policy"]["kind"], "count");
    assert_eq!(v["policy"]["delivery"], "cache-edits");
    assert_eq!(v["session"]["format"], "claude-jsonl");
}

/// Sub-agent records are never silently absent: the plan text (and the TUI
/// header, tests/tui_evidence.rs) say how many records and tool calls were left out.
#[test]
fn the_plan_text_says_what_sub_agent_work_was_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let rec = |v: serde_json::Value| v.to_string();
    let lines = [
        rec(
            serde_json::json!({"type": "user", "isSidechain": false, "uuid": "u1",
            "timestamp": "2026-07-01T10:00:00.000Z", "message": {"role": "user", "content": "go"}}),
        ),
        rec(
            serde_json::json!({"type": "assistant", "isSidechain": true, "uuid": "s1",
            "timestamp": "2026-07-01T10:00:01.000Z", "message": {"id": "ms", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
                        {"type": "tool_use", "id": "t2", "name": "Grep", "input": {"pattern": "x"}}]}}),
        ),
        rec(
            serde_json::json!({"type": "user", "isSidechain": true, "uuid": "s2",
            "timestamp": "2026-07-01T10:00:02.000Z", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"}]}}),
        ),
        rec(
            serde_json::json!({"type": "assistant", "isSidechain": false, "uuid": "a1",
            "timestamp": "2026-07-01T10:00:03.000Z", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "text", "text": "done"}]}}),
        ),
    ];
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = bin().arg("plan").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("2 sub-agent records (2 tool calls) left out of the simulation"),
        "{text}"
    );
}

/// Issue 41 item 4: `plan … >&-` (stdout closed when mcscope starts) is an
/// error, exit 2 with one line; with nothing to print (`-o FILE`) it is not.
#[test]
fn safe_io_4_a_closed_stdout_is_an_error() {
    for args in [
        "plan sample-sessions/claude-demo.jsonl",
        "timeline sample-sessions/claude-demo.jsonl --format json",
        "timeline sample-sessions/claude-demo.jsonl",
        "--help",
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("\"$0\" {args} >&-"))
            .arg(env!("CARGO_BIN_EXE_mcscope"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {err}");
        assert_eq!(
            err.trim_end(),
            "mcscope: cannot write the output: stdout is closed",
            "{args}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("\"$0\" compare sample-sessions/claude-demo.jsonl --quiet -o \"$1\" >&-")
        .arg(env!("CARGO_BIN_EXE_mcscope"))
        .arg(dir.path().join("r.txt"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
