//! Hostile input (SPEC §1, reference "Oddities" 5): damaged lines become one
//! diagnostic each, with the right line and byte offset, and everything else loads.
//!
//! The fixtures in `tests/fixtures/hostile/` are built by `make.py` there from
//! `sample-sessions/claude-demo.jsonl` (15 lines, tool results toolu_A..toolu_D).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use mcscope::load::{LoadError, load};
use mcscope::session::Session;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    manifest().join("tests/fixtures/hostile").join(name)
}

fn demo() -> PathBuf {
    manifest().join("sample-sessions/claude-demo.jsonl")
}

fn load_ok(path: &Path) -> Session {
    match load(path, None) {
        Ok(s) => s,
        Err(e) => panic!("{} did not load: {e}", path.display()),
    }
}

/// Byte offset of the start of each line (index 0 = line 1), splitting on `\n`
/// only, as a JSONL reader must. A final line without a newline still counts.
fn line_starts(bytes: &[u8]) -> Vec<u64> {
    let mut starts = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        starts.push(at as u64);
        match bytes[at..].iter().position(|&b| b == b'\n') {
            Some(i) => at += i + 1,
            None => break,
        }
    }
    starts
}

/// The bytes of line `n` (1-based), without its line end.
fn line_bytes(bytes: &[u8], n: usize) -> &[u8] {
    let starts = line_starts(bytes);
    let start = starts[n - 1] as usize;
    let end = starts.get(n).map_or(bytes.len(), |&e| e as usize);
    let mut line = &bytes[start..end];
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// One expected diagnostic: its line, and words of which the message must
/// hold at least one (case-insensitive).
struct Expect {
    line: usize,
    any_of: &'static [&'static str],
}

/// Exactly one diagnostic per damaged line, in file order, at the right line and
/// byte offset (computed here from the file's bytes), saying what is wrong.
fn check_diagnostics(s: &Session, path: &Path, expected: &[Expect]) {
    let bytes = std::fs::read(path).unwrap();
    let starts = line_starts(&bytes);
    let got: Vec<(usize, u64)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line, d.byte_offset))
        .collect();
    let want: Vec<(usize, u64)> = expected
        .iter()
        .map(|e| (e.line, starts[e.line - 1]))
        .collect();
    assert_eq!(
        got,
        want,
        "{}: (line, byte_offset) of the diagnostics; got {:#?}",
        path.display(),
        s.diagnostics
    );
    for (d, e) in s.diagnostics.iter().zip(expected) {
        let m = d.message.to_lowercase();
        assert!(
            e.any_of.iter().any(|w| m.contains(&w.to_lowercase())),
            "{}: line {}: message {:?} should mention one of {:?}",
            path.display(),
            d.line,
            d.message,
            e.any_of
        );
    }
}

/// Every tool result points at a line of the file that really holds it.
fn check_result_lines(s: &Session, path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    for r in &s.results {
        let needle = format!("\"tool_use_id\":\"{}\"", r.id);
        assert!(
            find(line_bytes(&bytes, r.line), needle.as_bytes()).is_some(),
            "{}: result {} claims line {}, which does not hold it",
            path.display(),
            r.id,
            r.line
        );
    }
}

/// The surviving results are exactly `ids`, measured as in the undamaged demo.
fn check_results(s: &Session, ids: &[&str]) {
    let got: Vec<&str> = s.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(got, ids, "tool results that survived");
    let demo = load_ok(&demo());
    for r in &s.results {
        let d = demo.results.iter().find(|d| d.id == r.id).unwrap();
        assert_eq!(
            (r.chars, r.est_tokens, r.media, r.is_error),
            (d.chars, d.est_tokens, d.media, d.is_error),
            "result {} measured differently from the undamaged demo",
            r.id
        );
    }
}

fn check_calls(s: &Session, ids: &[&str]) {
    let got: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(got, ids, "tool calls that survived");
}

const TRUNCATED: &[&str] = &["truncated"];
const NUL: &[&str] = &["NUL"];
const UTF8: &[&str] = &["UTF-8"];

#[test]
fn the_demo_itself_is_clean() {
    let s = load_ok(&demo());
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.records, 15);
    assert_eq!(s.requests.len(), 6);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
}

#[test]
fn truncated_last_line() {
    let path = fixture("truncated-last-line.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    assert_ne!(
        bytes.last(),
        Some(&b'\n'),
        "fixture must end without a newline"
    );
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[Expect {
            line: 11,
            any_of: TRUNCATED,
        }],
    );
    // The cut line is toolu_D's result; its call (line 10) is intact.
    assert_eq!(s.records, 10);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C"]);
    check_result_lines(&s, &path);
    assert_eq!(s.requests.len(), 4);
}

#[test]
fn glued_records() {
    let path = fixture("glued-records.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[
            // `{"type":"pr-link",…,"prNu{"parentUuid":…}`: a stub, then a record.
            Expect {
                line: 5,
                any_of: &["json", "expected", "truncated", "glued"],
            },
            // `{…}{…}`: two whole records on one line.
            Expect {
                line: 7,
                any_of: &["trailing", "glued", "two records", "more than one"],
            },
        ],
    );
    // The offsets are where the damage starts.
    let stub = find(&bytes, b"{\"type\":\"pr-link\"").unwrap() as u64;
    assert_eq!(s.diagnostics[0].byte_offset, stub);
    // A damaged line is skipped whole: nothing is recovered from inside it
    // (toolu_A's result, toolu_B's result and toolu_C's call are lost).
    assert_eq!(s.records, 12);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_D"]);
    check_results(&s, &["toolu_C", "toolu_D"]);
    check_result_lines(&s, &path);
}

#[test]
fn nul_run() {
    let path = fixture("nul-run.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[
            Expect {
                line: 7,
                any_of: NUL,
            },
            Expect {
                line: 9,
                any_of: NUL,
            },
        ],
    );
    let run = find(&bytes, &[0u8; 200]).unwrap() as u64;
    assert_eq!(s.diagnostics[0].byte_offset, run);
    assert_eq!(line_bytes(&bytes, 7), &[0u8; 200][..]);
    assert_eq!(s.records, 13);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_D"]);
    check_result_lines(&s, &path);
}

#[test]
fn nul_run_as_the_first_line() {
    // Crash damage at the very start must not make the file an unknown format.
    let path = fixture("nul-first-line.jsonl");
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[Expect {
            line: 1,
            any_of: NUL,
        }],
    );
    assert_eq!(s.diagnostics[0].byte_offset, 0);
    assert_eq!(s.records, 15);
    assert_eq!(s.requests.len(), 6);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_result_lines(&s, &path);
}

#[test]
fn invalid_utf8() {
    let path = fixture("invalid-utf8.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[Expect {
            line: 9,
            any_of: UTF8,
        }],
    );
    assert!(find(line_bytes(&bytes, 9), &[0xff, 0xfe]).is_some());
    assert_eq!(s.records, 14);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_D"]);
    check_result_lines(&s, &path);
}

#[test]
fn malformed_mid_file() {
    let path = fixture("malformed-mid.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(line_bytes(&bytes, 7), b"{\"type\":\"user\", oops");
    assert_eq!(line_bytes(&bytes, 11), b"[1,2]");
    assert_eq!(line_bytes(&bytes, 14), b"42");
    let s = load_ok(&path);
    check_diagnostics(
        &s,
        &path,
        &[
            Expect {
                line: 7,
                any_of: &["json", "expected", "key must be a string"],
            },
            // A JSON array is not a record.
            Expect {
                line: 11,
                any_of: &["array", "object", "sequence"],
            },
            // Nor is a bare number.
            Expect {
                line: 14,
                any_of: &["number", "integer", "object"],
            },
        ],
    );
    // Lines that are not JSON objects are not records.
    assert_eq!(s.records, 15);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_result_lines(&s, &path);
    assert_eq!(s.requests.len(), 6);
}

#[test]
fn summary_only_is_an_empty_session() {
    let s = load_ok(&fixture("summary-only.jsonl"));
    assert_eq!(s.format.name(), "claude-jsonl");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.requests.len(), 0);
    assert_eq!(s.records, 3);
    assert!(s.results.is_empty() && s.calls.is_empty());
}

#[test]
fn empty_file_is_an_empty_session() {
    let path = fixture("empty.jsonl");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    let s = load_ok(&path);
    assert_eq!(s.format.name(), "claude-jsonl");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.requests.len(), 0);
    assert_eq!(s.records, 0);
}

#[test]
fn blank_lines_and_crlf() {
    let path = fixture("blank-lines.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    assert!(find(&bytes, b"}\r\n\r\n").is_some());
    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.records, 15);
    assert_eq!(s.requests.len(), 6);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    // Blank lines still count: line numbers are the file's.
    check_result_lines(&s, &path);
    let demo = load_ok(&demo());
    assert_ne!(
        s.results.iter().map(|r| r.line).collect::<Vec<_>>(),
        demo.results.iter().map(|r| r.line).collect::<Vec<_>>()
    );
}

#[test]
fn a_valid_five_megabyte_line() {
    const N: usize = 5_000_000;
    let mut f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    let call = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/dev/shop",
        "sessionId": "5b1e7c3a-94d2-4f6e-8a0b-2c7d91e4f3a8", "version": "2.1.88", "gitBranch": "main",
        "message": {"model": "claude-opus-4-6", "id": "msg_big", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_BIG", "name": "Bash",
                "input": {"command": "yes | head -c 5000000"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0, "output_tokens": 20}},
        "type": "assistant", "uuid": "a0000000-0000-4000-8000-000000000001",
        "timestamp": "2026-04-02T09:14:05.000Z"
    });
    let result = serde_json::json!({
        "parentUuid": "a0000000-0000-4000-8000-000000000001", "isSidechain": false,
        "userType": "external", "cwd": "/home/dev/shop",
        "sessionId": "5b1e7c3a-94d2-4f6e-8a0b-2c7d91e4f3a8", "version": "2.1.88", "gitBranch": "main",
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_BIG", "type": "tool_result",
            "content": "y".repeat(N), "is_error": false}]},
        "uuid": "a0000000-0000-4000-8000-000000000002", "timestamp": "2026-04-02T09:14:09.000Z"
    });
    writeln!(f, "{call}").unwrap();
    writeln!(f, "{result}").unwrap();
    f.flush().unwrap();
    assert!(std::fs::metadata(f.path()).unwrap().len() > N as u64);
    let s = load_ok(f.path());
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.records, 2);
    assert_eq!(s.results.len(), 1);
    assert_eq!(s.results[0].id, "toolu_BIG");
    assert_eq!(s.results[0].chars, 5_000_000);
    assert_eq!(s.results[0].line, 2);
    // The trailing tool result is the next request the harness would send.
    assert_eq!(s.requests.len(), 2);

    let out = mcscope(&[
        "timeline".as_ref(),
        f.path().as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn missing_file_and_directory_are_load_errors() {
    let missing = fixture("no-such-session.jsonl");
    assert!(matches!(load(&missing, None), Err(LoadError::Io { .. })));
    let dir = fixture("");
    assert!(matches!(load(&dir, None), Err(LoadError::Directory { .. })));
}

// ---- the real binary ----

fn mcscope(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run mcscope")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every fixture, with the lines of its expected diagnostics.
const FIXTURES: &[(&str, &[usize])] = &[
    ("truncated-last-line.jsonl", &[11]),
    ("glued-records.jsonl", &[5, 7]),
    ("nul-run.jsonl", &[7, 9]),
    ("nul-first-line.jsonl", &[1]),
    ("invalid-utf8.jsonl", &[9]),
    ("malformed-mid.jsonl", &[7, 11, 14]),
    ("summary-only.jsonl", &[]),
    ("empty.jsonl", &[]),
    ("blank-lines.jsonl", &[]),
];

#[test]
fn timeline_json_reports_the_diagnostics_of_every_fixture() {
    let mut failures = Vec::new();
    for &(name, lines) in FIXTURES {
        let path = fixture(name);
        let starts = line_starts(&std::fs::read(&path).unwrap());
        let out = mcscope(&[
            "timeline".as_ref(),
            path.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{name}: panic: {err}");
        if out.status.code() != Some(0) {
            failures.push(format!(
                "{name}: exit {:?}: {}",
                out.status.code(),
                err.trim()
            ));
            continue;
        }
        let v: Value = serde_json::from_slice(&out.stdout).expect("timeline JSON");
        let diags = v["session"]["diagnostics"]
            .as_array()
            .expect("session.diagnostics");
        let got: Vec<(u64, u64)> = diags
            .iter()
            .map(|d| {
                assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()));
                (
                    d["line"].as_u64().unwrap(),
                    d["byte_offset"].as_u64().unwrap(),
                )
            })
            .collect();
        let want: Vec<(u64, u64)> = lines.iter().map(|&l| (l as u64, starts[l - 1])).collect();
        if got != want {
            failures.push(format!("{name}: diagnostics {got:?}, want {want:?}"));
        }
        if lines.is_empty() && name != "blank-lines.jsonl" {
            assert_eq!(v["session"]["requests"], 0, "{name}");
            assert_eq!(v["requests"].as_array().map(Vec::len), Some(0), "{name}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_subcommand_panics_on_any_fixture() {
    let runs: &[&[&str]] = &[
        &["timeline"],
        &["timeline", "--preset", "qwen"],
        &["plan", "--format", "json"],
        &["plan", "--policy", "count", "--format", "json"],
        &["plan", "--delivery", "cache-edits", "--format", "json"],
        &[
            "plan", "--policy", "forced", "--at", "1", "--format", "json",
        ],
        &["wire"],
        &["explain", "toolu_D"],
    ];
    for &(name, _) in FIXTURES {
        let path = fixture(name);
        for run in runs {
            let mut args: Vec<&std::ffi::OsStr> = vec![run[0].as_ref()];
            args.push(path.as_os_str());
            args.extend(run[1..].iter().map(std::ffi::OsStr::new));
            let out = mcscope(&args);
            let err = stderr(&out);
            assert!(
                !err.contains("panicked") && matches!(out.status.code(), Some(0 | 2)),
                "{name} {run:?}: exit {:?}: {err}",
                out.status.code()
            );
            if out.status.code() == Some(2) {
                assert_eq!(err.lines().count(), 1, "{name} {run:?}: {err}");
            }
        }
    }
}

#[test]
fn missing_path_exits_2_with_one_line() {
    let path = manifest().join("tests/fixtures/hostile/does-not-exist.jsonl");
    let out = mcscope(&["timeline".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "stderr: {err:?}");
    assert!(err.ends_with('\n'));
    assert!(err.contains(&path.display().to_string()), "stderr: {err:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn directory_exits_2_with_one_line() {
    let path = manifest().join("tests/fixtures/hostile");
    let out = mcscope(&["timeline".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "stderr: {err:?}");
    assert!(err.contains(&path.display().to_string()), "stderr: {err:?}");

    let empty = tempfile::tempdir().unwrap();
    let out = mcscope(&["plan".as_ref(), empty.path().as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "stderr: {err:?}");
    assert!(err.contains(&empty.path().display().to_string()));
}

/// A diagnostic for line 5 must not say "at line 1 column 77": serde_json counts
/// lines within the one-line text it was given, which is always line 1.
#[test]
fn messages_do_not_contradict_the_line_number() {
    let mut bad = Vec::new();
    for &(name, _) in FIXTURES {
        // (A fixture that does not load at all is reported by its own test.)
        let Ok(s) = load(&fixture(name), None) else {
            continue;
        };
        for d in &s.diagnostics {
            let Some(at) = d.message.find("at line ") else {
                continue;
            };
            let n: String = d.message[at + 8..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if n.parse::<usize>().ok() != Some(d.line) {
                bad.push(format!("{name}: line {}: {:?}", d.line, d.message));
            }
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

/// A file of many read batches (8 MB each): the demo's records spread through 30 MB
/// of summary lines, with damaged lines in several batches. Line numbers, byte
/// offsets, results and the bodies read back are the same as in one small batch.
#[test]
fn damaged_lines_across_many_read_batches() {
    let demo_bytes = std::fs::read(demo()).unwrap();
    let demo_lines: Vec<&[u8]> = demo_bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let filler = format!(
        "{{\"type\":\"summary\",\"summary\":\"{}\",\"leafUuid\":\"x\"}}\n",
        "s".repeat(1_000)
    );
    let mut out: Vec<u8> = Vec::new();
    let mut line = 0;
    let mut damaged = Vec::new();
    for (i, l) in demo_lines.iter().enumerate() {
        // About 2 MB of filler before each demo record: 15 records, 30 MB.
        for _ in 0..2_000 {
            out.extend_from_slice(filler.as_bytes());
            line += 1;
        }
        if i % 4 == 1 {
            out.extend_from_slice(b"{\"type\":\"user\",\"message\":\0\0\0\n");
            line += 1;
            damaged.push(Expect { line, any_of: NUL });
            out.extend_from_slice(b"{\"type\":\"summary\",\"summary\":\"\xff\xfe\"}\n");
            line += 1;
            damaged.push(Expect { line, any_of: UTF8 });
        }
        out.extend_from_slice(l);
        out.push(b'\n');
        line += 1;
    }
    assert!(out.len() > 3 * (8 << 20));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spread.jsonl");
    std::fs::write(&path, &out).unwrap();

    let s = load_ok(&path);
    check_diagnostics(&s, &path, &damaged);
    check_calls(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_results(&s, &["toolu_A", "toolu_B", "toolu_C", "toolu_D"]);
    check_result_lines(&s, &path);
    let small = load_ok(&demo());
    assert_eq!(s.requests.len(), small.requests.len());
    // Every record is read back from its offset: the bodies equal the demo's.
    let opts = mcscope::cli::Opts::default();
    let small = mcscope::cli::setup(&demo(), &opts).unwrap();
    let mut big = mcscope::cli::setup(&path, &opts).unwrap();
    // The same parameters (the demo has a sidecar with its own).
    big.policy = small.policy.clone();
    for k in 1..=small.session.requests.len() {
        for side in [mcscope::wire::Side::Local, mcscope::wire::Side::Wire] {
            let a = mcscope::analysis::wire_at(&big, k, side).unwrap();
            let b = mcscope::analysis::wire_at(&small, k, side).unwrap();
            assert_eq!(a, b, "request {k} {side:?}");
        }
    }
}
