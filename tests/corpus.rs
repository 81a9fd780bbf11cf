//! The real transcripts in `shared/corpus/` (SPEC §1: "every one of those files must load").
//!
//! Every number checked here is computed a second time by the test itself, with a plain
//! `serde_json::Value` walk of the file that uses no mcscope code, and compared with what
//! `mcscope::load::load` returns and with what the `mcscope timeline` binary prints.
//!
//! The corpus is found at `$MCSCOPE_CORPUS`, else at `<CARGO_MANIFEST_DIR>/../shared/corpus`.
//! When it is absent the tests print a note and pass, unless `MCSCOPE_REQUIRE_CORPUS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;
use mcscope::session::{Format, Request, Role, Session};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus directory, or None (after a note) when it is absent and not required.
fn corpus_dir() -> Option<PathBuf> {
    corpus::dir()
}

/// The `*.jsonl` files of one corpus sub-directory, sorted by name.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn load_ok(path: &Path) -> Session {
    mcscope::load::load(path, None)
        .unwrap_or_else(|e| panic!("{}: load failed: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------
// The independent walk.
// ---------------------------------------------------------------------------------------

/// What a plain reading of a Claude Code transcript says (SPEC §2, as stated in the brief).
#[derive(Debug, Default)]
struct Expected {
    /// Non-blank lines that parse as JSON objects.
    records: usize,
    /// The first user/assistant record is a sidechain record: the file is a sub-agent.
    what_if: bool,
    /// user/assistant records that are not on the main thread.
    sidechain_records: usize,
    responses: usize,
    requests: usize,
    calls: usize,
    results: usize,
    /// Per request, in order: does it begin a turn (SPEC §2)?
    begins_turn: Vec<bool>,
    /// Per request: `gap_minutes` (SPEC §2, claude: within the view).
    gap_minutes: Vec<Option<f64>>,
    /// Per request: 1-based line of the response's first record (None: trailing request).
    response_line: Vec<Option<usize>>,
    /// 1-based lines of the main-thread `compact_boundary` records.
    boundaries: Vec<usize>,
}

fn objects(path: &Path) -> Vec<(usize, serde_json::Map<String, Value>)> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .filter_map(|(i, l)| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(o)) => Some((i + 1, o)),
            _ => None,
        })
        .collect()
}

fn kind(r: &serde_json::Map<String, Value>) -> &str {
    r.get("type").and_then(Value::as_str).unwrap_or("")
}

fn is_sidechain(r: &serde_json::Map<String, Value>) -> bool {
    r.get("isSidechain") == Some(&Value::Bool(true))
}

/// `message.content` when it is an array of blocks.
fn blocks(r: &serde_json::Map<String, Value>) -> &[Value] {
    r.get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn block_type(b: &Value) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

fn timestamp_ms(r: &serde_json::Map<String, Value>) -> Option<i64> {
    let s = r.get("timestamp")?.as_str()?;
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.timestamp_millis())
}

fn expected_claude(path: &Path) -> Expected {
    let recs = objects(path);
    let mut e = Expected {
        records: recs.len(),
        ..Default::default()
    };
    let what_if = recs
        .iter()
        .find(|(_, r)| matches!(kind(r), "user" | "assistant"))
        .is_some_and(|(_, r)| is_sidechain(r));
    e.what_if = what_if;
    let main = |r: &serde_json::Map<String, Value>| is_sidechain(r) == what_if;

    // The `message.id` of the last main-thread assistant record (None: no open response).
    let mut last_id: Option<&str> = None;
    // A main-thread user record since the last assistant record / boundary.
    let mut trailing_user = false;
    // Whether the last non-meta main user record held a tool_result (None: no such record).
    let mut last_user_had_result: Option<bool> = None;
    // Timestamps, within the current view: the last user/assistant record, the last assistant.
    let mut last_record_ts: Option<i64> = None;
    let mut last_assistant_ts: Option<i64> = None;

    let push_request = |e: &mut Expected,
                        line: Option<usize>,
                        last_user_had_result: Option<bool>,
                        now: Option<i64>,
                        prev: Option<i64>| {
        e.requests += 1;
        e.begins_turn.push(last_user_had_result != Some(true));
        e.gap_minutes.push(match (now, prev) {
            (Some(n), Some(p)) => Some((n - p) as f64 / 60_000.0),
            _ => None,
        });
        e.response_line.push(line);
    };

    for (line, r) in &recs {
        let k = kind(r);
        if matches!(k, "user" | "assistant") && !main(r) {
            e.sidechain_records += 1;
            continue;
        }
        match k {
            "system"
                if main(r)
                    && r.get("subtype").and_then(Value::as_str) == Some("compact_boundary") =>
            {
                e.boundaries.push(*line);
                // Nothing carries over a boundary: the view starts again.
                last_id = None;
                trailing_user = false;
                last_record_ts = None;
                last_assistant_ts = None;
            }
            "assistant" => {
                let id = r
                    .get("message")
                    .and_then(|m| m.get("id"))
                    .and_then(Value::as_str);
                let same = id.is_some() && id == last_id;
                if !same {
                    e.responses += 1;
                    push_request(
                        &mut e,
                        Some(*line),
                        last_user_had_result,
                        last_record_ts,
                        last_assistant_ts,
                    );
                }
                last_id = id;
                trailing_user = false;
                e.calls += blocks(r)
                    .iter()
                    .filter(|b| {
                        block_type(b) == Some("tool_use")
                            && b.get("id").is_some_and(Value::is_string)
                            && b.get("name").is_some_and(Value::is_string)
                    })
                    .count();
                if let Some(ts) = timestamp_ms(r) {
                    last_record_ts = Some(ts);
                    last_assistant_ts = Some(ts);
                }
            }
            "user" => {
                trailing_user = true;
                let n = blocks(r)
                    .iter()
                    .filter(|b| {
                        block_type(b) == Some("tool_result")
                            && b.get("tool_use_id").is_some_and(Value::is_string)
                    })
                    .count();
                e.results += n;
                if r.get("isMeta") != Some(&Value::Bool(true)) {
                    last_user_had_result = Some(n > 0);
                }
                if let Some(ts) = timestamp_ms(r) {
                    last_record_ts = Some(ts);
                }
            }
            _ => {}
        }
    }
    if trailing_user {
        push_request(
            &mut e,
            None,
            last_user_had_result,
            last_record_ts,
            last_assistant_ts,
        );
    }
    e
}

// ---------------------------------------------------------------------------------------
// Claude Code files.
// ---------------------------------------------------------------------------------------

const EMPTY: &str = "daaain__claude-code-log__2c5941bd-b9de-41d6-9414-221d175776f7.jsonl";
const SUMMARY_ONLY: &str = "daaain__claude-code-log__4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl";
const SPOT: &str = "marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl";
const SPOT_BOUNDARY_LINE: usize = 1256;

/// The first line of the record that produced request `r`'s response (None: trailing).
fn response_line(s: &Session, r: &Request) -> Option<usize> {
    r.response.map(|m| s.messages[m].first_line)
}

/// Per request: numbering, the response it precedes, turn start, gap; only the
/// last lacks a response; each view starts after the last boundary before it.
fn requests_match(s: &Session, e: &Expected, check: &mut impl FnMut(&str, bool, String)) {
    // Per request: numbering, the response it precedes, turn start, gap.
    for (i, r) in s.requests.iter().enumerate() {
        let at = format!("request {}", i + 1);
        check(
            &at,
            r.index == i + 1,
            format!("index {} at position {}", r.index, i + 1),
        );
        check(
            &at,
            r.view_start <= r.end && r.end <= s.messages.len(),
            format!(
                "view {}..{} of {} messages",
                r.view_start,
                r.end,
                s.messages.len()
            ),
        );
        if let Some(m) = r.response {
            check(
                &at,
                m == r.end && s.messages[m].role == Role::Assistant,
                format!("response message {m}, end {}", r.end),
            );
        }
        let Some(&want_line) = e.response_line.get(i) else {
            continue;
        };
        check(
            &format!("{at} response line"),
            response_line(s, r) == want_line,
            format!("got {:?}, expected {want_line:?}", response_line(s, r)),
        );
        check(
            &format!("{at} begins_turn"),
            r.begins_turn == e.begins_turn[i],
            format!("got {}, expected {}", r.begins_turn, e.begins_turn[i]),
        );
        let gap_ok = match (r.gap_minutes, e.gap_minutes[i]) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            _ => false,
        };
        check(
            &format!("{at} gap_minutes"),
            gap_ok,
            format!("got {:?}, expected {:?}", r.gap_minutes, e.gap_minutes[i]),
        );
    }
    // Only the last request may lack a response (the trailing one).
    for r in s.requests.iter().rev().skip(1) {
        check(
            "trailing request",
            r.response.is_some(),
            format!("request {} has no response but is not last", r.index),
        );
    }
    // Segments: one per boundary, and each request's view starts after the last
    // boundary before it.
    for r in &s.requests {
        let line = response_line(s, r).unwrap_or(usize::MAX);
        let want_segment = e.boundaries.iter().filter(|&&b| b < line).count();
        check(
            &format!("request {} segment", r.index),
            r.segment == want_segment,
            format!("got {}, expected {want_segment}", r.segment),
        );
        if want_segment == 0 {
            check(
                &format!("request {} view_start", r.index),
                r.view_start == 0,
                format!("got {}, expected 0 (no boundary before it)", r.view_start),
            );
        }
    }
}

#[test]
fn claude_code_files_load_and_match_an_independent_count() {
    let Some(dir) = corpus_dir() else { return };
    let files = jsonl_files(&dir.join("claude-code"));
    assert!(
        files.len() >= 21,
        "expected the 21 Claude Code transcripts in {}, found {}",
        dir.join("claude-code").display(),
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = file_name(path);
        let s = load_ok(path);
        let e = expected_claude(path);
        let got_responses = s.responses().count();
        eprintln!(
            "{name}: records {}/{} what_if {}/{} responses {}/{} requests {}/{} calls {}/{} \
             results {}/{} sidechain {}/{} diagnostics {} (got/expected)",
            s.records,
            e.records,
            s.subagent_what_if,
            e.what_if,
            got_responses,
            e.responses,
            s.requests.len(),
            e.requests,
            s.calls.len(),
            e.calls,
            s.results.len(),
            e.results,
            s.sidechain_records,
            e.sidechain_records,
            s.diagnostics.len(),
        );
        let mut check = |what: &str, ok: bool, detail: String| {
            if !ok {
                failures.push(format!("{name}: {what}: {detail}"));
            }
        };
        check(
            "format",
            s.format == Format::ClaudeJsonl,
            format!("{:?}", s.format),
        );
        check(
            "diagnostics",
            s.diagnostics.is_empty(),
            format!("{:?}", s.diagnostics),
        );
        let pairs = [
            ("records", s.records, e.records),
            ("responses", got_responses, e.responses),
            ("requests", s.requests.len(), e.requests),
            ("tool calls", s.calls.len(), e.calls),
            ("tool results", s.results.len(), e.results),
            (
                "sidechain records",
                s.sidechain_records,
                e.sidechain_records,
            ),
        ];
        for (what, got, want) in pairs {
            check(what, got == want, format!("got {got}, expected {want}"));
        }
        check(
            "subagent_what_if",
            s.subagent_what_if == e.what_if,
            format!("got {}, expected {}", s.subagent_what_if, e.what_if),
        );

        requests_match(&s, &e, &mut check);
    }
    assert!(
        failures.is_empty(),
        "{} discrepancies:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn empty_and_summary_only_files_are_empty_sessions() {
    let Some(dir) = corpus_dir() else { return };
    let dir = dir.join("claude-code");
    let empty = dir.join(EMPTY);
    assert_eq!(
        std::fs::metadata(&empty).expect("empty file present").len(),
        0,
        "{EMPTY} should be 0 bytes"
    );
    for (name, records) in [(EMPTY, 0), (SUMMARY_ONLY, 1)] {
        let s = load_ok(&dir.join(name));
        eprintln!(
            "{name}: format {:?} records {} requests {} diagnostics {}",
            s.format,
            s.records,
            s.requests.len(),
            s.diagnostics.len()
        );
        assert_eq!(s.format, Format::ClaudeJsonl, "{name}");
        assert_eq!(s.records, records, "{name}: records");
        assert_eq!(s.requests.len(), 0, "{name}: requests");
        assert_eq!(s.responses().count(), 0, "{name}: responses");
        assert!(s.calls.is_empty() && s.results.is_empty(), "{name}");
        assert!(!s.subagent_what_if, "{name}: not a sub-agent");
        assert!(
            s.diagnostics.is_empty(),
            "{name}: diagnostics {:?}",
            s.diagnostics
        );
    }
}

#[test]
fn spotter_compact_boundary_starts_a_new_view() {
    let Some(dir) = corpus_dir() else { return };
    let path = dir.join("claude-code").join(SPOT);
    let recs = objects(&path);
    let boundary = recs
        .iter()
        .find(|(l, _)| *l == SPOT_BOUNDARY_LINE)
        .map(|(_, r)| r)
        .expect("line 1256 is a record");
    assert_eq!(kind(boundary), "system");
    assert_eq!(
        boundary.get("subtype").and_then(Value::as_str),
        Some("compact_boundary")
    );

    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let (before, after): (Vec<&Request>, Vec<&Request>) = s
        .requests
        .iter()
        .partition(|r| response_line(&s, r).is_some_and(|l| l < SPOT_BOUNDARY_LINE));
    eprintln!(
        "{SPOT}: {} requests before line {SPOT_BOUNDARY_LINE}, {} after",
        before.len(),
        after.len()
    );
    assert!(!before.is_empty() && !after.is_empty());
    for r in &before {
        assert_eq!(r.view_start, 0, "request {} before the boundary", r.index);
        assert_eq!(r.segment, 0, "request {} before the boundary", r.index);
    }
    // The view after the boundary starts with the compact summary (line 1257).
    let view_start = after[0].view_start;
    assert!(view_start > 0, "request {}: view_start 0", after[0].index);
    assert_eq!(s.messages[view_start].role, Role::User);
    assert_eq!(s.messages[view_start].first_line, SPOT_BOUNDARY_LINE + 1);
    for r in &after {
        assert!(r.view_start > 0, "request {}: view_start 0", r.index);
        assert_eq!(r.view_start, view_start, "request {}", r.index);
        assert_eq!(r.segment, 1, "request {}", r.index);
        assert!(r.end >= r.view_start, "request {}", r.index);
    }
    // The first request after compaction: its view holds only the summary, which is a
    // prompt (a turn start), and there is no assistant record in the view yet.
    let first = after[0];
    assert_eq!(first.end, view_start + 1, "request {}", first.index);
    assert!(first.begins_turn, "request {}", first.index);
    assert_eq!(first.gap_minutes, None, "request {}", first.index);
}

// ---------------------------------------------------------------------------------------
// Qwen Code.
// ---------------------------------------------------------------------------------------

const QWEN: &str = "Piebald-AI__splitrail__qwen_code.jsonl";

#[test]
fn qwen_code_file_loads() {
    let Some(dir) = corpus_dir() else { return };
    let path = dir.join("qwen-code").join(QWEN);
    let s = load_ok(&path);
    eprintln!(
        "{QWEN}: format {:?} records {} responses {} requests {} calls {} results {} diagnostics {}",
        s.format,
        s.records,
        s.responses().count(),
        s.requests.len(),
        s.calls.len(),
        s.results.len(),
        s.diagnostics.len()
    );
    assert_eq!(s.format, Format::QwenJsonl);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.records, objects(&path).len(), "records");
    assert_eq!(s.responses().count(), 2, "responses");
    assert_eq!(s.requests.len(), 2, "requests (no trailing user content)");
    assert_eq!(s.calls.len(), 1, "tool calls");
    assert_eq!(s.calls[0].id, "call_1");
    assert_eq!(s.calls[0].name, "list_directory");
    assert_eq!(s.results.len(), 1, "tool results");
    assert_eq!(s.results[0].id, "call_1");
    assert!(
        s.results[0].is_error,
        "response.error makes the result an error"
    );
    assert!(!s.subagent_what_if);
    // Request 1 answers a typed prompt; request 2 continues the tool loop.
    assert!(s.requests[0].begins_turn);
    assert!(!s.requests[1].begins_turn);
}

// ---------------------------------------------------------------------------------------
// The binary.
// ---------------------------------------------------------------------------------------

#[test]
fn timeline_json_runs_on_every_corpus_file() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = jsonl_files(&dir.join("claude-code"));
    files.extend(jsonl_files(&dir.join("qwen-code")));
    assert!(files.len() >= 22, "found {} corpus files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = file_name(path);
        let s = load_ok(path);
        let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .arg("timeline")
            .arg(path)
            .args(["--format", "json"])
            .output()
            .expect("run mcscope");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            failures.push(format!("{name}: exit {:?}, stderr: {stderr}", out.status));
            continue;
        }
        let v: Value = match serde_json::from_slice(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: stdout is not JSON: {e}"));
                continue;
            }
        };
        let requests = v["session"]["requests"].as_u64();
        let rows = v["requests"].as_array().map(Vec::len);
        eprintln!(
            "{name}: timeline schema {} session.requests {:?} rows {:?} (loaded {})",
            v["schema"],
            requests,
            rows,
            s.requests.len()
        );
        if v["schema"] != "mcscope.timeline/1" {
            failures.push(format!("{name}: schema {}", v["schema"]));
        }
        if requests != Some(s.requests.len() as u64) {
            failures.push(format!(
                "{name}: session.requests {requests:?}, loaded {}",
                s.requests.len()
            ));
        }
        if rows != Some(s.requests.len()) {
            failures.push(format!(
                "{name}: {rows:?} timeline rows, loaded {} requests",
                s.requests.len()
            ));
        }
        if v["session"]["responses"].as_u64() != Some(s.responses().count() as u64) {
            failures.push(format!(
                "{name}: session.responses {}, loaded {}",
                v["session"]["responses"],
                s.responses().count()
            ));
        }
        if v["session"]["diagnostics"].as_array().map(Vec::len) != Some(0) {
            failures.push(format!(
                "{name}: diagnostics {}",
                v["session"]["diagnostics"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The JSONL files of the corpus's `subs`, the samples and every fixture
/// (hostile ones included: those the loader refuses are skipped by the callers).
fn corpus_samples_and_fixtures(subs: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(dir) = corpus_dir() {
        for sub in subs {
            if dir.join(sub).is_dir() {
                files.extend(jsonl_files(&dir.join(sub)));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    files.extend(jsonl_files(&root.join("sample-sessions")));
    let mut dirs = vec![root.join("tests/fixtures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                files.push(p);
            }
        }
    }
    files
}

/// What fills the window (SPEC §12 `context`, §15.17) counts each message by kind
/// from what the loader measured of its records: the same figures as reading
/// every message back and counting its blocks, in every Claude Code corpus file,
/// sample and fixture (and nearly every message is measured, not read back).
#[test]
fn s15_17_measured_kinds_agree_with_the_messages_read_back() {
    let files = corpus_samples_and_fixtures(&["claude-code"]);
    let (mut measured, mut total) = (0usize, 0usize);
    for path in files {
        let Ok(s) = mcscope::load::load(&path, None) else {
            continue;
        };
        if s.harness != mcscope::session::HarnessId::Claude {
            continue;
        }
        let read = mcscope::wire::map_messages(&s, |m, v| {
            mcscope::context::message_kinds(s.harness, s.messages[m].role, v)
        })
        .unwrap();
        for (m, want) in read.iter().enumerate() {
            total += 1;
            if let Some(got) = mcscope::context::measured(&s.messages[m]) {
                measured += 1;
                assert_eq!(
                    &got,
                    want,
                    "{} message {m} (line {})",
                    path.display(),
                    s.messages[m].first_line
                );
            }
        }
    }
    eprintln!("{measured} of {total} messages measured");
    assert!(total > 100, "only {total} messages");
    assert!(
        measured * 100 >= total * 99,
        "only {measured} of {total} messages measured"
    );
}

/// The message sizes the loader measures on the lines' bytes (for `tokens_rewritten`)
/// agree with building and writing every message, in every corpus file and sample.
#[test]
fn measured_message_sizes_agree_with_the_built_messages() {
    let files = corpus_samples_and_fixtures(&["claude-code", "qwen-code"]);
    assert!(files.len() > 20, "found only {} files", files.len());
    for path in files {
        let Ok(s) = mcscope::load::load(&path, None) else {
            continue;
        };
        let fast = mcscope::wire::message_tokens(&s, true).unwrap();
        let exact = mcscope::wire::message_tokens(&s, false).unwrap();
        for (m, (a, b)) in fast.iter().zip(&exact).enumerate() {
            assert_eq!(
                a,
                b,
                "{} message {m} (line {}): measured {a}, built {b}",
                path.display(),
                s.messages[m].first_line
            );
        }
        // With results cleared (every other one, then all): the placeholder's size.
        let Some(req) = s.requests.last() else {
            continue;
        };
        for keep_odd in [true, false] {
            let cleared = |r: usize| !keep_odd || r.is_multiple_of(2);
            let c = mcscope::wire::Clearings::rewrite_results(&cleared);
            for m in 0..s.messages.len() {
                let Some(measured) = mcscope::wire::measured_rewrite_tokens(&s, m, &cleared) else {
                    continue;
                };
                let built = mcscope::wire::wire_message_tokens(&s, req, m, &c).unwrap();
                assert_eq!(
                    measured,
                    built,
                    "{} message {m} (line {}) with results cleared",
                    path.display(),
                    s.messages[m].first_line
                );
            }
        }
    }
}
