//! Inputs found by the fuzz targets (`fuzz/`, see `fuzz/README.md`), replayed
//! through the same path as their target: written as `input.jsonl` in a fresh
//! directory (no sidecar), loaded with format detection, planned with every kind
//! and delivery. Each must load, plan and build its wires without a panic or an
//! error, with the documented diagnostics and exit status.
//!
//! A test that asserts a behaviour the program does not have yet is `#[ignore]`d
//! with the finding's name; `cargo test -- --ignored` runs it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use mcscope::analysis;
use mcscope::cli::{self, KindArg, Opts};
use mcscope::policy::Delivery;
use mcscope::policy::engine::Status;
use mcscope::session::HarnessId;
use mcscope::wire::Side;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fuzz harness (it depends on mcscope and serde_json only): the replay uses
/// the target's own parameters.
#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture's bytes written where the fuzz target writes its input.
fn as_input(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.jsonl");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(manifest().join("tests/fixtures/fuzz").join(name)).unwrap()
}

/// The `pipeline` target's options, from the fuzz harness itself.
fn pipeline_opts() -> Opts {
    harness::base_opts()
}

/// The ids the `cache_edits` blocks of a Claude wire delete.
fn deleted_in_wire(wire: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for m in wire["messages"].as_array().into_iter().flatten() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "cache_edits" {
                for e in b["edits"].as_array().into_iter().flatten() {
                    out.insert(e["cache_reference"].as_str().unwrap_or("").to_string());
                }
            }
        }
    }
    out
}

/// Every saved fuzz input goes through the `pipeline` target's own checks: it
/// loads, and every plan kind and delivery plans it, runs its timeline and builds
/// its wires at the first and last request, with the target's invariants.
#[test]
fn every_fuzz_input_loads_plans_and_builds_wires_without_panic() {
    let dir = manifest().join("tests/fixtures/fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        seen += 1;
        let bytes = std::fs::read(&path).unwrap();
        let (_d, input) = as_input(&bytes);
        cli::setup(&input, &pipeline_opts())
            .unwrap_or_else(|e| panic!("{}: did not load: {e}", path.display()));
        harness::pipeline(&input, &bytes);
    }
    assert!(seen >= 7, "fixtures missing in {}", dir.display());
}

/// The harness's checks of the counts a summary shows can fail: a session whose
/// counts disagree (tampered after loading a seed) is refused, each by its own
/// assertion.
#[test]
fn the_harness_refuses_session_counts_that_disagree() {
    use mcscope::session::{Role, Session};
    let refused = |seed: &str, tamper: &dyn Fn(&mut Session), want: &str| {
        let bytes = std::fs::read(manifest().join("fuzz/seeds/handmade").join(seed)).unwrap();
        let (_d, input) = as_input(&bytes);
        let s = mcscope::load::load(&input, None).unwrap();
        harness::check_session(&s, &bytes);
        let mut t = s.clone();
        tamper(&mut t);
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            harness::check_session(&t, &bytes)
        }))
        .expect_err(want);
        let msg = err
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| err.downcast_ref::<&str>().map(|m| m.to_string()))
            .unwrap_or_default();
        assert!(msg.contains(want), "{want}: {msg}");
    };
    let claude = "claude-features.jsonl";
    refused(
        claude,
        &|s| s.sidechain_records = s.records + 1,
        "sidechain records of",
    );
    refused(
        claude,
        &|s| s.records = s.sidechain_records + s.responses().count() - 1,
        "main-thread records",
    );
    refused(claude, &|s| s.records += 1_000, "records in");
    refused(
        claude,
        &|s| {
            s.messages.retain(|m| m.role != Role::Assistant);
            s.records = s.sidechain_records;
            s.subagent_what_if = true;
        },
        "a what-if with no main-thread record",
    );
    let body = "messages-body.json";
    refused(
        body,
        &|s| {
            s.sidechain_records = 1;
            s.records += 1;
        },
        "sidechain records in a body",
    );
    refused(body, &|s| s.subagent_what_if = true, "sub-agent what-if");
}

/// Runs the CLI; returns (exit status, stdout, stderr).
fn run(args: &[&str], input: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg(args[0])
        .arg(input)
        .args(&args[1..])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// pipeline-1: the minimised input loads as claude-jsonl with one diagnostic per
/// damaged line (line 1: not JSON; line 5: bytes 0x7f…, not an object), and the
/// CLI plans and wires it with exit status 0.
#[test]
fn pipeline_1_loads_with_two_diagnostics_and_exit_0() {
    let (_d, input) = as_input(&fixture("pipeline-1.bin"));
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.format, mcscope::session::Format::ClaudeJsonl);
    let lines: Vec<usize> = s.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![1, 5]);
    assert_eq!(s.diagnostics[0].byte_offset, 0);
    assert_eq!(s.requests.len(), 5);
    let flags = [
        "--policy",
        "idle",
        "--gap-minutes",
        "0",
        "--keep-recent",
        "2",
        "--delivery",
        "cache-edits",
    ];
    for sub in ["plan", "timeline", "wire", "evidence"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .arg(sub)
            .arg(&input)
            .args(flags)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{sub}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The plan at each request and that request's wire must agree on what is
/// deleted: with `cache-edits`, the ids the wire's `cache_edits` blocks delete are
/// exactly the results the plan reports `cleared`.
fn assert_cache_edits_match_plan(input: &Path, opts: &Opts) {
    let setup = cli::setup(input, opts).unwrap();
    assert_eq!(setup.policy.delivery, Delivery::CacheEdits);
    for k in 1..=setup.last_request() {
        let plan = analysis::plan_at(&setup, k).unwrap();
        let cleared: BTreeSet<String> = plan
            .ids_with(&setup.session, Status::Cleared)
            .into_iter()
            .collect();
        let wire = analysis::wire_at(&setup, k, Side::Wire).unwrap();
        assert_eq!(
            deleted_in_wire(&wire),
            cleared,
            "request {k}: the wire deletes what the plan does not clear (kept: {:?})",
            plan.ids_with(&setup.session, Status::Kept)
        );
    }
}

/// pipeline-1 (found by the `pipeline` target): with `--policy idle --delivery
/// cache-edits`, a result deleted by a `cache_edits` block during a tool loop is
/// reported `kept` again at the next request that begins a turn (Claude's
/// clearings lapse there, SPEC §5), but that request's wire still re-sends the
/// pinned block deleting it (SPEC §6). Request 5 of the fixture: plan `cleared:
/// []`, `kept: [toolu_D]`; wire `{"type":"cache_edits","edits":[{"type":"delete",
/// "cache_reference":"toolu_D"}]}`.
#[test]
fn pipeline_1_cache_edits_wire_deletes_only_what_the_plan_clears() {
    let (_d, input) = as_input(&fixture("pipeline-1.bin"));
    let opts = pipeline_opts().with("--delivery", "cache-edits");
    assert_cache_edits_match_plan(&input, &opts);
}

/// pipeline-1 on the demo session: the idle plan with gap 0 deletes toolu_A..C
/// one by one during the tool loop; the last prompt is recorded with an earlier
/// timestamp (timestamps can go backwards, SPEC §2), so at request 6 the gap is
/// negative and idle does not fire: the plan keeps all four results, while the
/// wire of request 6 still carries the three pinned `cache_edits` deletions.
#[test]
fn pipeline_1_on_the_demo_session() {
    let demo =
        std::fs::read_to_string(manifest().join("sample-sessions/claude-demo.jsonl")).unwrap();
    let moved = demo.replace(
        "\"timestamp\":\"2026-04-02T10:29:55.476Z\"",
        "\"timestamp\":\"2026-04-02T08:00:00.000Z\"",
    );
    assert_ne!(demo, moved);
    let (_d, input) = as_input(moved.as_bytes());
    let opts = Opts::default()
        .with("--policy", "idle")
        .with("--gap-minutes", "0.0")
        .with("--keep-recent", "1")
        .with("--delivery", "cache-edits");
    assert_cache_edits_match_plan(&input, &opts);
}

/// pipeline-2 / pipeline-3: the record loads (no diagnostic), so its request
/// must have a wire. Today `wire` exits 2: the loader skips ignored fields
/// without serde_json's checks, the wire builder re-parses the record with them.
fn assert_every_request_has_a_wire(name: &str) {
    let (_d, input) = as_input(&fixture(name));
    let s = mcscope::load::load(&input, None).unwrap();
    for k in 1..=s.requests.len() {
        let (code, _, err) = run(&["wire", "--at", &k.to_string()], &input);
        assert_eq!(code, Some(0), "{name}: wire --at {k}: {err}");
    }
}

/// pipeline-2: line 2 is a `user` record with an ignored field nested 200 deep
/// (`"junk": [[[…]]]`); line 3 is cut off. The file loads as claude-jsonl with
/// one diagnostic (line 3) and the plan runs (exit 0).
#[test]
fn pipeline_2_loads_with_one_diagnostic() {
    let (_d, input) = as_input(&fixture("pipeline-2.bin"));
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.format, mcscope::session::Format::ClaudeJsonl);
    let lines: Vec<usize> = s.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![3]);
    assert_eq!(s.requests.len(), 1);
    assert_eq!(run(&["plan"], &input).0, Some(0));
}

#[test]
fn pipeline_2_every_request_has_a_wire() {
    assert_every_request_has_a_wire("pipeline-2.bin");
}

/// pipeline-3: `{"type": "user", "ime":"\ud800p","message":{"ole": "er"}}` — a
/// lone surrogate escape in a field the loader ignores. Loads with no diagnostic.
#[test]
fn pipeline_3_loads_without_diagnostics() {
    let (_d, input) = as_input(&fixture("pipeline-3.bin"));
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.format, mcscope::session::Format::ClaudeJsonl);
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.requests.len(), 1);
    assert_eq!(run(&["plan"], &input).0, Some(0));
}

#[test]
fn pipeline_3_every_request_has_a_wire() {
    assert_every_request_has_a_wire("pipeline-3.bin");
}

/// The tool-result blocks the wire builder sees in each user message are the
/// results the loader registered there (else `rewrite` clears the wrong block).
fn assert_loader_and_wire_agree_on_results(input: &Path) {
    let setup = cli::setup(input, &Opts::default()).unwrap();
    let s = &setup.session;
    let n = setup.last_request();
    let wire = analysis::wire_at(&setup, n, Side::Local).unwrap();
    let req = &s.requests[n - 1];
    let key = if s.harness == HarnessId::Claude {
        "messages"
    } else {
        "contents"
    };
    let parts = if s.harness == HarnessId::Claude {
        "content"
    } else {
        "parts"
    };
    for (i, msg) in wire[key].as_array().unwrap().iter().enumerate() {
        let m = req.view_start + i;
        let in_wire = msg[parts]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|b| mcscope::wire::is_tool_result(s.harness, b))
                    .count()
            })
            .unwrap_or(0);
        assert_eq!(s.results_in(m, m + 1).len(), in_wire, "message {i}");
    }
}

/// pipeline-4: a Qwen part that repeats the key `functionResponse`. Loads.
#[test]
fn pipeline_4_loads() {
    let (_d, input) = as_input(&fixture("pipeline-4.bin"));
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.format, mcscope::session::Format::QwenJsonl);
    assert!(s.diagnostics.is_empty());
    assert_eq!(run(&["plan"], &input).0, Some(0));
}

#[test]
fn pipeline_4_loader_and_wire_agree_on_results() {
    let (_d, input) = as_input(&fixture("pipeline-4.bin"));
    assert_loader_and_wire_agree_on_results(&input);
}

fn jsonl(records: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for r in records {
        out.push_str(&r.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

/// The function responses of a Qwen wire: (id, output).
fn qwen_outputs(body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in body["contents"].as_array().into_iter().flatten() {
        for p in m["parts"].as_array().into_iter().flatten() {
            if let Some(r) = p.get("functionResponse") {
                out.push((
                    r["id"].as_str().unwrap_or("").to_string(),
                    r["response"]["output"].as_str().unwrap_or("").to_string(),
                ));
            }
        }
    }
    out
}

/// pipeline-4 made visible: parts [c1 (key repeated), c2], then c3. The loader
/// reads c1's part as the wire builder does (the last value wins), so `forced`
/// with keep 1 clears c1 and c2, and the wire replaces exactly those two.
#[test]
fn pipeline_4_rewrite_clears_the_block_the_plan_clears() {
    use serde_json::json;
    let resp = |id: &str, o: &str| json!({"functionResponse": {"id": id, "name": "read_file", "response": {"output": o}}});
    let dup = format!(
        r#"{{"type":"tool_result","timestamp":"2026-01-01T00:02:00.000Z","message":{{"role":"user","parts":[{{"functionResponse":{{"id":"c1","name":"read_file","response":{{"output":"{a}"}}}},"functionResponse":{{"id":"c1","name":"read_file","response":{{"output":"{a}"}}}}}},{c2}]}}}}"#,
        a = "a".repeat(80),
        c2 = resp("c2", &"b".repeat(80))
    );
    let mut text = String::from_utf8(jsonl(&[
        json!({"type": "user", "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "parts": [{"text": "go"}]}}),
        json!({"type": "assistant", "timestamp": "2026-01-01T00:01:00.000Z", "message": {"role": "model", "parts": [
            {"functionCall": {"id": "c1", "name": "read_file", "args": {"file_path": "/a"}}},
            {"functionCall": {"id": "c2", "name": "read_file", "args": {"file_path": "/b"}}}]}}),
    ]))
    .unwrap();
    text.push_str(&dup);
    text.push('\n');
    text.push_str(&String::from_utf8(jsonl(&[
        json!({"type": "assistant", "timestamp": "2026-01-01T00:03:00.000Z", "message": {"role": "model", "parts": [{"functionCall": {"id": "c3", "name": "read_file", "args": {"file_path": "/c"}}}]}}),
        json!({"type": "tool_result", "timestamp": "2026-01-01T00:04:00.000Z", "message": {"role": "user", "parts": [resp("c3", &"c".repeat(90))]}}),
        json!({"type": "assistant", "timestamp": "2026-01-01T00:05:00.000Z", "message": {"role": "model", "parts": [{"text": "ok"}]}}),
        json!({"type": "user", "timestamp": "2026-01-01T00:09:00.000Z", "message": {"role": "user", "parts": [{"text": "again"}]}}),
    ])).unwrap());
    let (_d, input) = as_input(text.as_bytes());
    let opts = Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "1");
    let setup = cli::setup(&input, &opts).unwrap();
    let n = setup.last_request();
    let plan = analysis::plan_at(&setup, n).unwrap();
    assert_eq!(plan.ids_with(&setup.session, Status::Cleared), ["c1", "c2"]);
    let wire = analysis::wire_at(&setup, n, Side::Wire).unwrap();
    let outputs = qwen_outputs(&wire);
    let placeholder = mcscope::load::PLACEHOLDER;
    assert!(
        outputs.iter().any(|(id, o)| id == "c2" && o == placeholder),
        "{outputs:?}"
    );
    assert!(
        outputs.iter().any(|(id, o)| id == "c1" && o == placeholder),
        "{outputs:?}"
    );
    assert!(
        !outputs.iter().any(|(id, o)| id == "c3" && o == placeholder),
        "{outputs:?}"
    );
}

/// pipeline-5: a Qwen model turn holds a function response marked
/// `thought: true` (c3). `forced` (keep 2) clears c1 and c2 and keeps c3 and c4;
/// the wire drops c3's part with the thoughts, so a result the plan keeps is
/// not sent at all.
#[test]
fn pipeline_5_forced_sends_every_result_it_keeps() {
    let (_d, input) = as_input(&fixture("pipeline-5.bin"));
    let opts = Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "2");
    let setup = cli::setup(&input, &opts).unwrap();
    let n = setup.last_request();
    let plan = analysis::plan_at(&setup, n).unwrap();
    let kept = plan.ids_with(&setup.session, Status::Kept);
    assert_eq!(kept, vec!["c3".to_string(), "c4".to_string()]);
    let wire = analysis::wire_at(&setup, n, Side::Wire).unwrap();
    let sent: Vec<String> = qwen_outputs(&wire).into_iter().map(|(id, _)| id).collect();
    for id in kept {
        assert!(
            sent.contains(&id),
            "{id} is kept but not in the wire: {sent:?}"
        );
    }
}

/// pipeline-6: the minimised input loads as qwen-jsonl with one diagnostic per
/// damaged line and plans with exit 0.
#[test]
fn pipeline_6_loads_with_five_diagnostics() {
    let (_d, input) = as_input(&fixture("pipeline-6.bin"));
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.format, mcscope::session::Format::QwenJsonl);
    let lines: Vec<usize> = s.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![1, 3, 6, 9, 12]);
    assert_eq!(run(&["plan", "--policy", "size"], &input).0, Some(0));
}

/// No result the plan reports protected (or kept) is the placeholder in the wire.
fn assert_wire_placeholders_are_cleared(input: &Path, opts: &Opts) {
    let setup = cli::setup(input, opts).unwrap();
    let s = &setup.session;
    for k in 1..=setup.last_request() {
        let plan = analysis::plan_at(&setup, k).unwrap();
        let wire = analysis::wire_at(&setup, k, Side::Wire).unwrap();
        let local = analysis::wire_at(&setup, k, Side::Local).unwrap();
        let placeholder = mcscope::load::PLACEHOLDER;
        let w = qwen_outputs(&wire);
        let l = qwen_outputs(&local);
        // Result i of the view, in order: the wire and the local side list the same.
        let view: Vec<usize> = s
            .results_in(plan.request.view_start, plan.request.end)
            .collect();
        assert_eq!(w.len(), view.len());
        for ((r, (id, out)), (_, orig)) in view.iter().zip(&w).zip(&l) {
            if out == placeholder && orig != placeholder {
                let c = plan.candidates.iter().find(|c| c.result == *r).unwrap();
                assert_eq!(
                    c.status,
                    Status::Cleared,
                    "request {k}: {id} is the placeholder in the wire but {} in the plan",
                    c.status.name()
                );
            }
        }
    }
}

#[test]
fn pipeline_6_fixture_protected_results_are_not_cleared_in_the_wire() {
    let (_d, input) = as_input(&fixture("pipeline-6.bin"));
    assert_wire_placeholders_are_cleared(&input, &pipeline_opts_with(KindArg::Size));
}

fn pipeline_opts_with(kind: KindArg) -> Opts {
    pipeline_opts().with("--policy", kind.name())
}

/// pipeline-6, readable: call_0 is a `read_file` recorded with the legacy
/// `absolute_path` (protects nothing), so `size` (threshold 60, keep 1) clears
/// its result at request 4. At request 5 a new call reuses the id `call_0` with
/// `file_path` in project memory: the plan now reports the first result
/// `protected` (and counts its 40 chars as present), while the wire still sends
/// it as `[Old tool result content cleared]` (Qwen clearings persist).
#[test]
fn pipeline_6_reused_call_id() {
    use serde_json::json;
    let mut recs =
        vec![json!({"type": "user", "message": {"role": "user", "parts": [{"text": "go"}]}})];
    let mut add = |id: &str, tool: &str, args: Value, out: String| {
        recs.push(json!({"type": "assistant", "message": {"role": "model", "parts": [{"functionCall": {"id": id, "name": tool, "args": args}}]}}));
        recs.push(json!({"type": "tool_result", "message": {"role": "user", "parts": [{"functionResponse": {"id": id, "name": tool, "response": {"output": out}}}]}}));
    };
    add(
        "call_0",
        "read_file",
        json!({"absolute_path": "/mem/project/notes.md"}),
        "a".repeat(40),
    );
    add(
        "call_1",
        "run_shell_command",
        json!({"command": "ls"}),
        "b".repeat(40),
    );
    add(
        "call_2",
        "run_shell_command",
        json!({"command": "pwd"}),
        "c".repeat(40),
    );
    add(
        "call_0",
        "read_file",
        json!({"file_path": "/mem/project/notes.md"}),
        "d".repeat(4),
    );
    recs.push(
        json!({"type": "assistant", "message": {"role": "model", "parts": [{"text": "done"}]}}),
    );
    for (i, r) in recs.iter_mut().enumerate() {
        r["timestamp"] = json!(format!("2026-01-01T00:{:02}:00.000Z", i + 1));
    }
    let (_d, input) = as_input(&jsonl(&recs));
    let opts = Opts {
        shared: mcscope::cli::SharedOpts {
            memory_root: vec!["project=/mem/project".into()],
            ..Default::default()
        },
        ..Opts::default()
            .with("--policy", "size")
            .with("--size-threshold", "60")
            .with("--keep-recent", "1")
    };
    assert_wire_placeholders_are_cleared(&input, &opts);
}

/// surrogate-1 (the `surrogate` target, in 1 s): a line that fails to parse, holds
/// a `\ud…` escape and ends in a backslash sent the repair one byte past the end
/// (a panic while loading: a cut-off last line can end that way). Generated here.
#[test]
fn surrogate_1_a_failed_line_ending_in_a_backslash_is_one_diagnostic() {
    let line = br#"{"type":"user","message":{"role":"user","content":"cut \ud83d x\"#;
    harness::fuzz_surrogate(line);
    harness::fuzz_load(line, mcscope::session::Format::ClaudeJsonl);
    let (_d, input) = as_input(line);
    let s = mcscope::load::load(&input, None).unwrap();
    assert_eq!(s.records, 0);
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
    assert!(
        s.diagnostics[0].message.contains("truncated last line"),
        "{}",
        s.diagnostics[0].message
    );
}
