//! What mcscope reads, and how (issue 21 items 3 and 5): only regular files, small
//! files with a cap, the picker's light pass over a bounded prefix, lone
//! surrogates, a byte-order mark and UTF-16 as Node and Python would see them,
//! and a NUL run of any length in bounded memory.
//!
//! Every input is generated here, in a temp dir (FIFOs with `mkfifo`, sparse files
//! with `set_len`, symlinks to `/dev/zero`); every run of the binary is under a
//! deadline, so a hang (a FIFO opened for reading blocks for ever) fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;

use serde_json::Value;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The deadline for one run (generous for debug builds on a small machine).
const LIMIT: Duration = Duration::from_secs(60);

/// Runs the binary with `args` (and `env`) under the deadline: on timeout the
/// child is killed and the test fails.
fn run_env<S: AsRef<OsStr>>(args: &[S], env: &[(&str, &OsStr)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    cmd.args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("MCSCOPE_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-mcscope-test")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let what: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let what = format!("mcscope {}", what.join(" "));
    let mut child = cmd.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: did not finish within {LIMIT:?} (hang?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    run_env(args, &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 2 with one line naming `path` and holding `needle`.
fn refused(o: &Output, path: &Path, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&path.display().to_string()),
        "names the path: {err}"
    );
    assert!(err.contains(needle), "says {needle:?}: {err}");
}

fn json_ok(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success(), "mkfifo {}", path.display());
}

/// One line of a Claude Code transcript.
fn record(kind: &str, n: usize, message: Value) -> String {
    let v = serde_json::json!({
        "parentUuid": if n > 1 { Value::String(format!("u{}", n - 1)) } else { Value::Null },
        "isSidechain": false, "type": kind, "uuid": format!("u{n}"), "sessionId": "s",
        "timestamp": format!("2026-01-01T00:00:0{n}.000Z"), "cwd": "/r", "version": "2.1.88",
        "message": message,
    });
    v.to_string()
}

/// A prompt, a Read call, its result (`content`: raw JSON text), and a reply.
fn session_lines(content: &str) -> Vec<String> {
    let result = record(
        "user",
        3,
        serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "CONTENT"}]}),
    )
    .replace("\"CONTENT\"", content);
    vec![
        record(
            "user",
            1,
            serde_json::json!({"role": "user", "content": "task one"}),
        ),
        record(
            "assistant",
            2,
            serde_json::json!({"id": "m1", "role": "assistant", "model": "claude-x",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}),
        ),
        result,
        record(
            "assistant",
            4,
            serde_json::json!({"id": "m2", "role": "assistant", "model": "claude-x",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}),
        ),
    ]
}

fn write_session(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, session_lines("\"file text\"").join("\n") + "\n").unwrap();
    p
}

fn ids(plan: &Value, key: &str) -> Vec<String> {
    plan[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

// ---- 1. Only regular files are read ----------------------------------------

#[test]
fn a_fifo_or_device_given_as_the_session_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let zero = dir.path().join("zero.jsonl");
    symlink("/dev/zero", &zero).unwrap();
    for path in [&fifo, &zero] {
        for cmd in ["plan", "timeline", "evidence"] {
            refused(
                &run(&[OsStr::new(cmd), path.as_os_str()]),
                path,
                "not a regular file",
            );
        }
    }
    refused(
        &run(&[OsStr::new("plan"), OsStr::new("/dev/null")]),
        Path::new("/dev/null"),
        "not a regular file (a character device)",
    );
    // The TUI says so before it takes the terminal.
    refused(&run(&[&fifo]), &fifo, "not a regular file (a FIFO)");
    // A symlink to a regular session is still read.
    let real = write_session(dir.path(), "real.jsonl");
    let link = dir.path().join("link.jsonl");
    symlink(&real, &link).unwrap();
    let plan = json_ok(&run(&[
        OsStr::new("plan"),
        link.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]));
    assert_eq!(ids(&plan, "kept"), ["toolu_1"]);
}

#[test]
fn a_sidecar_beside_the_session_that_is_no_regular_file_is_ignored_with_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_session(dir.path(), "s.jsonl");
    let side = dir.path().join("s.mcscope.json");
    for make in ["fifo", "zero"] {
        let _ = std::fs::remove_file(&side);
        match make {
            "fifo" => mkfifo(&side),
            _ => symlink("/dev/zero", &side).unwrap(),
        }
        let plan = json_ok(&run(&[
            OsStr::new("plan"),
            s.as_os_str(),
            OsStr::new("--format"),
            OsStr::new("json"),
        ]));
        let diags = plan["session"]["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{make}: {diags:?}");
        let m = diags[0]["message"].as_str().unwrap();
        assert!(
            m.contains("s.mcscope.json") && m.contains("sidecar ignored: not a regular file"),
            "{make}: {m}"
        );
        assert_eq!(ids(&plan, "kept"), ["toolu_1"]);
    }
}

#[test]
fn a_folder_skips_what_is_no_regular_file_and_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = write_session(dir.path(), "a.jsonl");
    symlink(&real, dir.path().join("b-link.jsonl")).unwrap();
    mkfifo(&dir.path().join("c-pipe.jsonl"));
    symlink("/dev/zero", dir.path().join("d-zero.jsonl")).unwrap();
    let text = session_lines("\"x\"").join("\n") + "\n";
    let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(dir.path().join("e-utf16.jsonl"), utf16).unwrap();

    let c = json_ok(&run(&[
        OsStr::new("compare"),
        dir.path().as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]));
    let reasons: Vec<(String, String)> = c["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = Path::new(s["path"].as_str().unwrap()).file_name().unwrap();
            (
                name.to_string_lossy().into_owned(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("c-pipe.jsonl".to_string(), "not_regular".to_string()),
            ("d-zero.jsonl".into(), "not_regular".into()),
            ("e-utf16.jsonl".into(), "utf16".into()),
            // SPEC §15.2: compared, but without a price (their model is not in the table).
            ("a.jsonl".into(), "unpriced".into()),
            ("b-link.jsonl".into(), "unpriced".into()),
        ]
    );
    // `why` stays beside the new `reason` (keys are added, never renamed).
    assert!(
        c["skipped"][0]["why"]
            .as_str()
            .unwrap()
            .contains("not a regular file")
    );
    // The session and the symlink to it are compared.
    assert_eq!(c["sessions"].as_array().unwrap().len(), 2);
    let text = stdout(&run(&[OsStr::new("compare"), dir.path().as_os_str()]));
    // One line per kind with its count (SPEC §9a), no file named.
    for line in [
        "  skipped 2 files (not_regular) (-v lists them)\n",
        "  skipped 1 file (utf16) (-v lists them)\n",
    ] {
        assert!(text.contains(line), "{text}");
    }
    assert!(!text.contains("c-pipe.jsonl"), "{text}");

    // "is a directory": the listing names sessions and counts the rest, unopened.
    let o = run(&[OsStr::new("plan"), dir.path().as_os_str()]);
    refused(&o, dir.path(), "is a directory; give one session file");
    assert!(
        stderr(&o).contains("; 2 not regular files skipped"),
        "{}",
        stderr(&o)
    );
}

// ---- 2. Size caps ----------------------------------------------------------

#[test]
fn a_config_named_by_the_variable_is_refused_when_no_regular_file_or_over_1_mb() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_session(dir.path(), "s.jsonl");
    let fifo = dir.path().join("config.fifo");
    mkfifo(&fifo);
    let big = dir.path().join("big.toml");
    let mut text = "#".repeat(1 << 20);
    text.push('\n');
    std::fs::write(&big, &text).unwrap();
    let exact = dir.path().join("exact.toml");
    std::fs::write(&exact, &text[1..]).unwrap();
    let args = [OsStr::new("plan"), s.as_os_str()];
    for (config, needle) in [
        (fifo.as_path(), "not a regular file (a FIFO)"),
        (
            Path::new("/dev/zero"),
            "not a regular file (a character device)",
        ),
        (big.as_path(), "larger than 1 MB"),
    ] {
        let o = run_env(&args, &[("MCSCOPE_CONFIG", config.as_os_str())]);
        refused(&o, config, needle);
    }
    // Exactly 1 MB is within the cap.
    let o = run_env(&args, &[("MCSCOPE_CONFIG", exact.as_os_str())]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_sidecar_over_1_mb_beside_the_session_is_ignored_with_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_session(dir.path(), "s.jsonl");
    let side = dir.path().join("s.mcscope.json");
    // keep_recent 0 would clear toolu_1 under forced: kept means it was not read.
    let pad = " ".repeat(1 << 20);
    std::fs::write(&side, format!("{{\"keep_recent\": 0{pad}}}")).unwrap();
    let args = [
        OsStr::new("plan"),
        s.as_os_str(),
        OsStr::new("--policy"),
        OsStr::new("forced"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ];
    let plan = json_ok(&run(&args));
    let diags = plan["session"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let m = diags[0]["message"].as_str().unwrap();
    assert!(m.contains("sidecar ignored: larger than 1 MB"), "{m}");
    assert_ne!(plan["policy"]["keep_recent"], 0, "{}", plan["policy"]);
    // The same sidecar within the cap is read.
    std::fs::write(&side, "{\"keep_recent\": 0}").unwrap();
    let plan = json_ok(&run(&args));
    assert_eq!(plan["policy"]["keep_recent"], 0, "{}", plan["policy"]);
    assert!(
        plan["session"]["diagnostics"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

// ---- 3. The picker's light pass -------------------------------------------

#[test]
fn the_picker_reads_a_bounded_prefix_of_a_sparse_file_and_never_a_device() {
    use mcscope::tui::app::App;
    use mcscope::tui::picker::{self, Gate, Picker};
    let dir = tempfile::tempdir().unwrap();
    // A session, then 8 GiB of holes (NULs, no newline).
    let sparse = dir.path().join("sparse.jsonl");
    let mut f = std::fs::File::create(&sparse).unwrap();
    f.write_all((session_lines("\"x\"").join("\n") + "\n").as_bytes())
        .unwrap();
    f.set_len(8 << 30).unwrap();
    drop(f);
    write_session(dir.path(), "plain.jsonl");
    symlink("/dev/zero", dir.path().join("zero.jsonl")).unwrap();

    let listing = mcscope::load::list_folder(dir.path()).unwrap();
    assert_eq!(listing.not_regular, [dir.path().join("zero.jsonl")]);
    assert_eq!(listing.sessions.len(), 2);
    let title = picker::with_skipped("sessions".into(), listing.not_regular.len());
    let mut app = App::with_picker(Picker::scanning(title, listing.sessions, Gate::default()));
    let deadline = Instant::now() + LIMIT;
    loop {
        app.poll_picker();
        let mcscope::tui::app::Screen::Picker(p) = &app.screen else {
            panic!("not the picker")
        };
        if p.scanned == 2 {
            break;
        }
        assert!(Instant::now() < deadline, "the light pass did not finish");
        std::thread::sleep(Duration::from_millis(20));
    }
    let lines = screen::screen(&app, 200, 30);
    let row = screen::row(&lines, "[summary from the first 256 MB]");
    assert!(
        row.contains("[summary from the first 256 MB] task one"),
        "{row}"
    );
    let plain = lines
        .iter()
        .filter(|l| l.contains("task one"))
        .find(|l| !l.contains("[summary"))
        .unwrap_or_else(|| panic!("the plain session's row:\n{}", lines.join("\n")));
    assert!(!plain.contains("MB]"), "{plain}");
    assert!(
        screen::has(&lines, "1 not a regular file, skipped"),
        "{}",
        lines.join("\n")
    );
    // Read directly, the device is a row with its error, not read at all.
    let s = mcscope::scan::scan(&dir.path().join("zero.jsonl"));
    assert_eq!(
        s.error.as_deref(),
        Some("not a regular file (a character device)")
    );
}

#[test]
fn the_light_pass_passes_over_a_line_longer_than_its_cap() {
    let mut text = session_lines("\"x\"")[..2].join("\n") + "\n";
    text.push_str(&format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
        "a".repeat(mcscope::scan::LINE_CAP)
    ));
    text.push_str(&session_lines("\"x\"")[2..].join("\n"));
    text.push('\n');
    let s = mcscope::scan::scan_reader(
        Path::new("long.jsonl"),
        text.len() as u64,
        std::time::SystemTime::UNIX_EPOCH,
        text.as_bytes(),
    );
    assert_eq!(s.note.as_deref(), Some("1 line over 16 MB not read"));
    assert_eq!((s.requests, s.results), (2, 1));
    assert_eq!(s.prompt.as_deref(), Some("task one"));
}

// ---- 4. Read what Node and Python read -------------------------------------

#[test]
fn a_lone_surrogate_is_read_as_u_fffd_and_the_record_kept() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content, chars) in [
        // A string cut mid-emoji by JSON.stringify, and a lone low half in a block.
        ("high.jsonl", r#""cut \ud83d here""#, 10),
        ("low.jsonl", r#"[{"type":"text","text":"x\udc00y"}]"#, 3),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, session_lines(content).join("\n") + "\n").unwrap();
        let plan = json_ok(&run(&[
            OsStr::new("plan"),
            p.as_os_str(),
            OsStr::new("--format"),
            OsStr::new("json"),
        ]));
        assert_eq!(
            ids(&plan, "kept"),
            ["toolu_1"],
            "{name}: the result is kept"
        );
        assert_eq!(plan["candidates"][0]["chars"], chars, "{name}");
        let diags = plan["session"]["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{name}: {diags:?}");
        assert_eq!(diags[0]["line"], 3);
        let offset = std::fs::read(&p)
            .unwrap()
            .split_inclusive(|&b| b == b'\n')
            .take(2)
            .map(<[u8]>::len)
            .sum::<usize>();
        assert_eq!(diags[0]["byte_offset"], offset as u64);
        let m = diags[0]["message"].as_str().unwrap();
        assert!(m.contains("lone surrogate") && m.contains("U+FFFD"), "{m}");
        // The body sent is the same reading.
        let o = run(&[OsStr::new("wire"), p.as_os_str()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains('\u{fffd}'), "{}", stdout(&o));
    }
}

#[test]
fn a_byte_order_mark_is_skipped_and_utf16_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = session_lines("\"file text\"").join("\n") + "\n";
    let bom = dir.path().join("bom.jsonl");
    std::fs::write(&bom, [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat()).unwrap();
    let plan = json_ok(&run(&[
        OsStr::new("plan"),
        bom.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]));
    assert!(
        plan["session"]["diagnostics"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(plan["session"]["records"], 4);
    assert_eq!(ids(&plan, "kept"), ["toolu_1"]);
    let o = run(&[OsStr::new("wire"), bom.as_os_str()]);
    assert!(
        stdout(&o).contains("task one"),
        "the first record is read back"
    );

    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, bytes) in [
        ("bom16.jsonl", [b"\xFF\xFE".as_slice(), &le].concat()),
        ("le.jsonl", le.clone()),
        ("be.jsonl", be),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        refused(&run(&[OsStr::new("plan"), p.as_os_str()]), &p, "UTF-16");
    }
}

// ---- 5. A NUL run of any length -------------------------------------------

#[test]
fn a_multi_gigabyte_nul_run_is_one_diagnostic_with_its_byte_range() {
    let dir = tempfile::tempdir().unwrap();
    let lines = session_lines("\"file text\"");
    let p = dir.path().join("nul.jsonl");
    let mut f = std::fs::File::create(&p).unwrap();
    let head = format!("{}\n{}\n", lines[0], lines[1]);
    f.write_all(head.as_bytes()).unwrap();
    // 3 GiB of NULs (holes: no disk), then a newline and the rest of the session.
    let run_len: u64 = 3 << 30;
    let start = head.len() as u64;
    f.set_len(start + run_len).unwrap();
    use std::io::Seek;
    f.seek(std::io::SeekFrom::End(0)).unwrap();
    f.write_all(format!("\n{}\n{}\n", lines[2], lines[3]).as_bytes())
        .unwrap();
    drop(f);
    // `wire` reads the run too: it runs meanwhile, on the other core.
    let (plan, o) = std::thread::scope(|scope| {
        let wire = scope.spawn(|| run(&[OsStr::new("wire"), p.as_os_str()]));
        let plan = run(&[
            OsStr::new("plan"),
            p.as_os_str(),
            OsStr::new("--format"),
            OsStr::new("json"),
        ]);
        (plan, wire.join().unwrap())
    });
    let plan = json_ok(&plan);
    let diags = plan["session"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["line"], 3);
    assert_eq!(diags[0]["byte_offset"], start);
    let m = diags[0]["message"].as_str().unwrap();
    let want = format!(
        "{run_len} NUL byte(s) at bytes {start} to {} of the file",
        start + run_len
    );
    assert!(m.contains(&want), "{m}");
    // Every record around it is read: the result after the run, and both replies.
    assert_eq!(plan["session"]["records"], 4);
    assert_eq!(plan["session"]["requests"], 2);
    assert_eq!(ids(&plan, "kept"), ["toolu_1"]);
    assert!(stdout(&o).contains("file text"), "read back after the run");
}

// ---- Read back, followed, beside: a session swapped for a FIFO -------------

/// `f` on a thread of its own, under a deadline: None when it did not end
/// (a read that blocks for ever fails the test instead of hanging it).
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).ok()
}

/// Issue 41 item 2: a session whose file is swapped for a FIFO after it was
/// loaded is never read back through the FIFO (a Claude Code record, a Gemini
/// CLI line read back): every reader opens the path only while it is a regular
/// file, without waiting, and says what it found instead.
#[test]
fn issue_41_2_a_session_swapped_for_a_fifo_is_never_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let claude = write_session(dir.path(), "claude.jsonl");
    let gemini = dir.path().join("session-g.jsonl");
    let lines = [
        serde_json::json!({"sessionId": "g", "projectHash": "h", "startTime": "2026-01-01T00:00:00.000Z",
                           "lastUpdated": "2026-01-01T00:00:00.000Z", "kind": "main"}),
        serde_json::json!({"id": "u1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user",
                           "content": [{"text": "hello"}]}),
        serde_json::json!({"id": "g1", "timestamp": "2026-01-01T00:00:02.000Z", "type": "gemini",
                           "content": "hi", "model": "gemini-2.5-pro",
                           "tokens": {"input": 10, "output": 1, "cached": 0, "thoughts": 0, "tool": 0, "total": 11}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&gemini, text).unwrap();
    for path in [claude, gemini] {
        let s = mcscope::load::load(&path, None).unwrap();
        let mut bodies = Vec::new();
        mcscope::load::readback::each_message(&s, |_, v| bodies.push(v)).unwrap();
        assert!(
            !bodies.is_empty(),
            "{} reads back before the swap",
            path.display()
        );
        std::fs::remove_file(&path).unwrap();
        mkfifo(&path);
        let read = within(move || {
            mcscope::load::readback::each_message(&s, |_, _| {}).map_err(|e| e.to_string())
        });
        let Some(read) = read else {
            panic!("{}: reading back blocked on the FIFO", path.display());
        };
        let err = read.unwrap_err();
        assert!(err.contains("not a regular file (a FIFO)"), "{err}");
    }
}

/// Issue 41 item 2: following a session (`timeline --follow`, the TUI's live
/// view) opens it at every poll: a FIFO given, or put in the session's place
/// while it is followed, is an error at once, never a poll that blocks.
#[test]
fn issue_41_2_a_followed_session_swapped_for_a_fifo_never_blocks_a_poll() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("given.jsonl");
    mkfifo(&fifo);
    let opened = within(move || {
        mcscope::load::Follower::open(&fifo, None)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    let err = opened
        .expect("opening a FIFO to follow blocked")
        .unwrap_err();
    assert!(err.contains("not a regular file (a FIFO)"), "{err}");

    let path = write_session(dir.path(), "followed.jsonl");
    let mut f = mcscope::load::Follower::open(&path, None).unwrap();
    std::fs::remove_file(&path).unwrap();
    mkfifo(&path);
    let polled = within(move || f.poll().map(|_| ()).map_err(|e| e.to_string()));
    let err = polled.expect("a poll blocked on the FIFO").unwrap_err();
    assert!(err.contains("not a regular file (a FIFO)"), "{err}");
}

/// Issue 41 item 2: the idle-server plan reads the session's file once more
/// for the records a return may follow (SPEC §13.S); a file swapped for a
/// FIFO since the load is then no such record, never a read that blocks.
#[test]
fn issue_41_2_the_idle_server_facts_never_read_a_fifo_put_in_the_session_s_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idle-server.jsonl");
    std::fs::copy("sample-sessions/claude-idle-server.jsonl", &path).unwrap();
    let setup = mcscope::setup::setup(&path, &mcscope::setup::Opts::default()).unwrap();
    let last = setup.session.requests.len();
    assert!(
        setup.session.return_anchor,
        "the sample has records a return follows"
    );
    std::fs::remove_file(&path).unwrap();
    mkfifo(&path);
    let planned = within(move || {
        mcscope::analysis::plan_at(&setup, last)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    assert!(planned.is_some(), "the plan blocked on the FIFO");
}
