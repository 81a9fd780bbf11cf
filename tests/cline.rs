//! Cline through the real binary (SPEC §17.K, §18.2–§18.4; Cline's classic
//! `ContextManager` as v4.0.12 has it): one test per rule, each named after
//! it, on task folders written here and on the sample
//! `sample-sessions/cline-task/` (`sample-sessions/make_cline_task.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::bin::{caveat_ids, json, ok, run};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SAMPLE: &str = "sample-sessions/cline-task";
const NOTICE: &str = "[[NOTE] This file read has been removed to save space in the context window. Refer to the latest file read for the most up to date version of this file.]";
const T0: i64 = 1_796_300_000_000;

/// A task folder under construction: the history, each request's usage
/// (tokensIn, tokensOut, cacheWrites, cacheReads), and the other files.
struct Task {
    dir: tempfile::TempDir,
    history: Vec<Value>,
    usage: Vec<(u64, u64, u64, u64)>,
    version: Option<&'static str>,
    model: &'static str,
    ui: bool,
    context: Option<Value>,
    ranges: Vec<Option<(usize, usize)>>,
    extra_ui: Vec<Value>,
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

impl Task {
    fn new() -> Task {
        let mut t = Task {
            dir: tempfile::tempdir().unwrap(),
            history: Vec::new(),
            usage: Vec::new(),
            version: Some("4.0.12"),
            model: "qwen3-coder",
            ui: true,
            context: None,
            ranges: Vec::new(),
            extra_ui: Vec::new(),
        };
        t.user(vec![text("<task>\nfix it\n</task>")]);
        t
    }

    fn user(&mut self, blocks: Vec<Value>) -> &mut Task {
        let i = self.history.len() as i64;
        self.history
            .push(json!({"role": "user", "content": blocks, "ts": T0 + i * 60_000}));
        self
    }

    /// An assistant message answering the last user message, with the
    /// usage its request recorded.
    fn answer(&mut self, t: &str, usage: (u64, u64, u64, u64)) -> &mut Task {
        let i = self.history.len() as i64;
        self.history.push(json!({
            "role": "assistant",
            "content": [text(t)],
            "ts": T0 + i * 60_000 + 5_000,
            "modelInfo": {"modelId": self.model, "providerId": "openai", "mode": "act"},
        }));
        self.usage.push(usage);
        self.ranges.push(None);
        self
    }

    /// A text-protocol result of `tool` for `arg`: `chars` characters.
    fn result(&mut self, tool: &str, arg: &str, chars: usize) -> &mut Task {
        self.user(vec![text(&format!(
            "[{tool} for '{arg}'] Result:\n{}",
            "x".repeat(chars)
        ))])
    }

    fn write(&mut self) -> PathBuf {
        let dir = self.dir.path().join("tasks").join("1796300000000");
        std::fs::create_dir_all(&dir).unwrap();
        let put = |name: &str, v: &Value| std::fs::write(dir.join(name), v.to_string()).unwrap();
        put(
            "api_conversation_history.json",
            &Value::Array(self.history.clone()),
        );
        if self.ui {
            let mut ui = vec![json!({"ts": T0, "type": "say", "say": "task", "text": "fix it"})];
            let assistants: Vec<usize> = self
                .history
                .iter()
                .enumerate()
                .filter(|(_, m)| m["role"] == "assistant")
                .map(|(i, _)| i)
                .collect();
            for (k, &a) in assistants.iter().enumerate() {
                let (tin, tout, cw, cr) = self.usage[k];
                let mut m = json!({
                    "ts": T0 + (a as i64 - 1) * 60_000 + 1_000,
                    "type": "say",
                    "say": "api_req_started",
                    "text": json!({"tokensIn": tin, "tokensOut": tout, "cacheWrites": cw, "cacheReads": cr, "cost": 0.01}).to_string(),
                    "conversationHistoryIndex": a - 1,
                });
                if let Some((x, y)) = self.ranges[k] {
                    m["conversationHistoryDeletedRange"] = json!([x, y]);
                }
                ui.push(m);
            }
            ui.extend(self.extra_ui.iter().cloned());
            put("ui_messages.json", &Value::Array(ui));
        }
        if let Some(c) = &self.context {
            put("context_history.json", c);
        }
        if let Some(v) = self.version {
            put(
                "task_metadata.json",
                &json!({"files_in_context": [], "model_usage": [{"ts": T0, "model_id": self.model, "model_provider_id": "openai", "mode": "act"}],
                    "environment_history": [{"ts": T0, "cline_version": v}]}),
            );
        }
        dir
    }

    /// The ts of request k's `api_req_started` (1-based).
    fn req_ts(&self, k: usize) -> i64 {
        let a = self
            .history
            .iter()
            .enumerate()
            .filter(|(_, m)| m["role"] == "assistant")
            .nth(k - 1)
            .unwrap()
            .0;
        T0 + (a as i64 - 1) * 60_000 + 1_000
    }
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `plan PATH --at K [EXTRA…] --format json`.
fn plan_at(path: &str, at: &str, extra: &[&str]) -> Value {
    let mut args = vec!["plan", path, "--at", at];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "json"]);
    json(&args)
}

/// The ids of a plan's candidates, in order.
fn candidate_ids(plan: &Value) -> Vec<String> {
    plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .collect()
}

/// The worked example of the sample's docstring: two reads of a file, a big
/// command output, a write with the final content, the total over 98,000 at
/// request 4.
fn worked(b_chars: usize) -> Task {
    let mut t = Task::new();
    t.answer(
        "<read_file><path>src/app.ts</path></read_file>",
        (600, 80, 1_500, 0),
    )
    .result("read_file", "src/app.ts", 100_000)
    .answer("<execute_command>", (10, 60, 25_000, 2_100))
    .result("execute_command", "npm test", b_chars)
    .answer("<read_file>", (10, 70, 50_000, 27_000))
    .result("read_file", "src/app.ts", 100_000)
    .answer("<replace_in_file>", (2, 180, 26_100, 72_400));
    let final_content = format!(
        "[replace_in_file for 'src/app.ts'] Result:\nThe content was successfully saved.\n\n<final_file_content path=\"src/app.ts\">\n{}\n</final_file_content>\n",
        "y".repeat(100_000)
    );
    t.user(vec![text(&final_content)])
        .answer("<attempt_completion>", (5, 90, 40_000, 2_000));
    t
}

/// SPEC §17.K.1: the folder, or any of its four files, is the task; a
/// folder without the history is none.
#[test]
fn k1_a_task_folder_or_any_of_its_files_is_the_task() {
    let want = json(&["timeline", SAMPLE, "--format", "json"]);
    assert_eq!(want["session"]["format"], "cline-task");
    assert_eq!(want["session"]["harness"], "cline");
    for f in [
        "api_conversation_history.json",
        "ui_messages.json",
        "context_history.json",
        "task_metadata.json",
    ] {
        let got = json(&["timeline", &format!("{SAMPLE}/{f}"), "--format", "json"]);
        assert_eq!(got["requests"], want["requests"], "{f}");
    }
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["plan", p(empty.path())]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a directory"), "{err}");
}

/// SPEC §17.K.2, §18.2: request k is the k-th `api_req_started`, with its
/// usage; P(k) = tokensIn + cacheWrites + cacheReads; a text-protocol result
/// is `cline-<message>-<block>`, its tool and path from the header.
#[test]
fn k2_requests_usage_and_candidate_ids() {
    let t = json(&["timeline", SAMPLE, "--format", "json"]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 6);
    let plan = plan_at(SAMPLE, "5", &[]);
    let ids = candidate_ids(&plan);
    assert_eq!(ids, ["cline-2-0", "cline-4-0", "cline-6-0", "cline-8-0"]);
    let c0 = &plan["candidates"][0];
    assert_eq!(c0["tool"], "read_file");
    assert_eq!(c0["path"], "src/app.ts");
    // SPEC §18.2: est_tokens = round(chars / 4).
    assert_eq!(c0["est_tokens"], 10_000);
    let e = json(&["evidence", SAMPLE, "--format", "json"]);
    let rec = &e["session"]["recorded"];
    assert_eq!(rec["responses"], 6);
    assert_eq!(rec["cache_write_5m"], 183_700);
    assert_eq!(rec["cache_read"], 192_100);
    assert_eq!(rec["harness_usd"], 0.7502);
}

/// SPEC §17.K.3 (reference §5): the previous request's total reaches the
/// limit (98,482 ≥ 98,000 at a 128,000 window): both earlier copies of
/// src/app.ts get the notice; they save under 30 %, so the history is
/// truncated to [2, 3] (half kept); `request.cline` says so.
#[test]
fn k3_the_worked_example_replaces_the_duplicate_reads_then_truncates() {
    let plan = plan_at(SAMPLE, "5", &[]);
    assert_eq!(plan["request"]["plan_kind"], "cline");
    assert_eq!(plan["fired"], true);
    assert_eq!(
        plan["request"]["cline"],
        json!({"deleted_range": [2, 3], "notices": ["cline-2-0", "cline-6-0"], "limit": 98000,
               "total": 98482, "recorded_deleted_range": [2, 3], "deleted_range_agrees": true})
    );
    let text = ok(&["plan", SAMPLE, "--at", "5"]);
    assert!(
        text.contains("2 duplicate reads replaced by the notice (18.9% of the characters); under 30 %: truncated messages [2, 3] (kept half)"),
        "{text}"
    );
    // Where it fired, why the others stay: the latest copy of the file, and
    // a command's output (no file: only a truncation takes it).
    let reason = |i: usize| {
        plan["candidates"][i]["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        reason(3).starts_with("the latest copy of its file"),
        "{}",
        reason(3)
    );
    assert!(
        reason(1).starts_with("not a file's content"),
        "{}",
        reason(1)
    );
    // Request 4: 87,480 < 98,000, nothing.
    let four = plan_at(SAMPLE, "4", &[]);
    assert_eq!(four["fired"], false);
    assert_eq!(four["request"]["cline"]["deleted_range"], Value::Null);
    // The wire reads the notice where the second read was; the first is in
    // the truncated range, which the wire leaves out.
    let wire = ok(&["wire", SAMPLE, "--at", "5"]);
    assert_eq!(wire.matches(NOTICE).count(), 1, "{wire}");
}

/// Reference §5, the first variant: the notices save 45 % ≥ 30 %, so no
/// truncation.
#[test]
fn k3_enough_saved_means_no_truncation() {
    let mut t = worked(140_000);
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    let c = &plan["request"]["cline"];
    assert_eq!(c["notices"], json!(["cline-2-0", "cline-6-0"]));
    assert_eq!(c["deleted_range"], Value::Null);
    let text = ok(&["plan", p(&dir), "--at", "5", "--policy", "cline"]);
    assert!(text.contains("30 % or more: no truncation"), "{text}");
}

/// Reference §3.1: a quarter is kept when the total is over twice the limit
/// (a 64,000 window: limit 37,000).
#[test]
fn k3_over_twice_the_limit_keeps_a_quarter() {
    let mut t = worked(400_000);
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--context-window",
        "64000",
        "--format",
        "json",
    ]);
    let c = &plan["request"]["cline"];
    assert_eq!(c["limit"], 37_000);
    // Request 2 already: 2,180 < 37,000; request 3: 27,170; request 4: 77,080 > 74,000.
    let text = ok(&[
        "timeline",
        p(&dir),
        "--policy",
        "cline",
        "--context-window",
        "64000",
    ]);
    assert!(text.contains("(kept a quarter)"), "{text}");
    // No window assumed when one is given.
    assert!(!text.contains("cline_window_assumed"), "{text}");
}

/// SPEC §18.2: `--no-dedupe` truncates without the notices (a what-if).
#[test]
fn k3_no_dedupe_is_a_what_if_without_notices() {
    let plan = json(&[
        "plan",
        SAMPLE,
        "--at",
        "5",
        "--policy",
        "cline",
        "--no-dedupe",
        "--format",
        "json",
    ]);
    assert_eq!(plan["request"]["cline"]["notices"], json!([]));
    assert_eq!(plan["request"]["cline"]["deleted_range"], json!([2, 3]));
    assert_eq!(plan["policy"]["cline_dedupe"], false);
}

/// SPEC §18.4: the window by model id, `--context-window` over it, and the
/// caveat while it is assumed.
#[test]
fn s18_4_the_window_and_its_caveat() {
    let plan = plan_at(SAMPLE, "5", &[]);
    let ids = caveat_ids(&plan);
    assert_eq!(ids, ["cline_window_assumed"]);
    // A 200,000 window: limit 160,000, nothing fires.
    let wide = json(&[
        "plan",
        SAMPLE,
        "--at",
        "5",
        "--context-window",
        "200000",
        "--format",
        "json",
    ]);
    assert_eq!(wide["fired"], false);
    assert_eq!(wide["request"]["cline"]["limit"], 160_000);
    assert_eq!(wide["caveats"], json!([]));
    assert_eq!(wide["policy"]["cline_context_window"], 200_000);
    // A claude-* model: 200,000 assumed.
    let mut t = worked(400_000);
    t.model = "claude-sonnet-4-5";
    for m in t.history.iter_mut().filter(|m| m["role"] == "assistant") {
        m["modelInfo"]["modelId"] = json!("claude-sonnet-4-5");
    }
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    assert_eq!(plan["request"]["cline"]["limit"], 160_000);
}

/// SPEC §18.4: no task_metadata.json: the classic rule runs, with the caveat;
/// an SDK version plans nothing under auto.
#[test]
fn s18_4_unknown_and_sdk_versions() {
    let mut t = worked(400_000);
    t.version = None;
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    assert_eq!(plan["request"]["plan_kind"], "cline");
    let ids = caveat_ids(&plan);
    // No record in this task: the plan did not run (SPEC §16.I), the what-if shows.
    assert_eq!(
        ids,
        [
            "cline_window_assumed",
            "cline_version_unknown",
            "plan_did_not_run"
        ]
    );
    for v in ["4.1.3", "4.0.0"] {
        let mut t = worked(400_000);
        t.version = Some(v);
        let dir = t.write();
        let plan = plan_at(p(&dir), "5", &[]);
        assert_eq!(plan["request"]["plan_kind"], Value::Null, "{v}");
        assert_eq!(plan["fired"], false, "{v}");
        assert!(
            caveat_ids(&plan).iter().any(|c| c == "cline_sdk"),
            "{v}: {plan}"
        );
    }
}

/// SPEC §18.4: a task that records a condense request summarizes where the
/// rule would truncate: the notices are simulated, the truncation is not.
#[test]
fn s18_4_auto_condense_keeps_the_notices_and_no_truncation() {
    let mut t = worked(400_000);
    t.extra_ui
        .push(json!({"ts": T0 + 999_999, "type": "ask", "ask": "condense", "text": "summary"}));
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    let c = &plan["request"]["cline"];
    assert_eq!(c["notices"], json!(["cline-2-0", "cline-6-0"]));
    assert_eq!(c["deleted_range"], Value::Null);
    assert!(caveat_ids(&plan).iter().any(|c| c == "cline_auto_condense"));
    let text = ok(&["plan", p(&dir), "--at", "5", "--policy", "cline"]);
    assert!(
        text.contains("auto-condense summarizes here instead (not simulated)"),
        "{text}"
    );
}

/// SPEC §17.K.4: `context_history.json` and the recorded range are the
/// records (writer `cline_context`), compared id for id.
#[test]
fn k4_the_records_agree_with_the_simulation() {
    let e = json(&["evidence", SAMPLE, "--format", "json"]);
    let m = &e["requests"][4]["microcompact"];
    assert_eq!(m["writer"], "cline_context");
    assert_eq!(m["compacted_tool_ids"], json!(["cline-2-0", "cline-6-0"]));
    assert_eq!(m["agrees"], true);
    assert_eq!(e["session"]["ran"], json!({"cline": true}));
    // The observed break there is the harness's own rewrite.
    let text = ok(&["evidence", SAMPLE]);
    assert!(text.contains("harness_rewrite: Cline replaced"), "{text}");
    // The baseline holds what the records prove.
    let base = json(&["plan", SAMPLE, "--policy", "recorded", "--format", "json"]);
    assert_eq!(base["cleared"], json!(["cline-2-0", "cline-6-0"]));
}

/// SPEC §16.I, §18.8: without context_history.json or a recorded range where
/// the rule would have cleared, the plan did not run; `--policy cline` still
/// shows the what-if.
#[test]
fn k4_no_record_where_it_would_clear_means_it_did_not_run() {
    let mut t = worked(400_000);
    let dir = t.write();
    let e = json(&["evidence", p(&dir), "--format", "json"]);
    assert_eq!(e["session"]["ran"], json!({"cline": false}));
    assert_eq!(
        e["session"]["ran_because"],
        json!({"cline": "no_record_where_it_would_clear"})
    );
    let forced = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    assert_eq!(forced["fired"], true);
}

/// A recorded notice the simulation does not make is `extra` of the record;
/// the recorded range against the simulated one is `deleted_range_agrees`.
#[test]
fn k4_a_record_that_differs_is_said() {
    let mut t = worked(400_000);
    let ts = t.req_ts(4);
    // Cline recorded only the first read's notice, and a range [2, 5].
    t.context = Some(json!([[2, [2, [[0, [[ts, "text", ["x"], []]]]]]]]));
    t.ranges[4] = Some((2, 5));
    let dir = t.write();
    let plan = plan_at(p(&dir), "5", &[]);
    assert_eq!(
        plan["request"]["cline"]["recorded_deleted_range"],
        json!([2, 5])
    );
    assert_eq!(plan["request"]["cline"]["deleted_range_agrees"], false);
    let e = json(&["evidence", p(&dir), "--format", "json"]);
    let m = &e["requests"][4]["microcompact"];
    assert_eq!(m["agrees"], false, "{m}");
}

/// Reference §3.2: an @-mention is a candidate `cline-<m>-<b>#<n>`, and a
/// later read of the same path makes it a duplicate.
#[test]
fn k2_mentions_are_candidates_and_duplicates() {
    let mut t = Task::new();
    t.answer("ok", (10, 10, 1_000, 0));
    t.user(vec![
        text("look at these"),
        text(&format!(
            "<file_content path=\"a.ts\">{}</file_content>\n<file_content path=\"b.ts\">{}</file_content>",
            "a".repeat(50_000),
            "b".repeat(400)
        )),
    ]);
    t.answer("<read_file>", (10, 10, 13_000, 1_000))
        .result("read_file", "a.ts", 50_000)
        .answer("done", (10, 10, 2_000, 97_000))
        .result("execute_command", "ls", 10)
        .answer("ok", (10, 10, 100, 30_000));
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "4",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    let ids = candidate_ids(&plan);
    assert_eq!(
        ids,
        ["cline-2-1#1", "cline-2-1#2", "cline-4-0", "cline-6-0"]
    );
    assert_eq!(plan["candidates"][0]["tool"], "file_mention");
    assert_eq!(plan["request"]["cline"]["notices"], json!(["cline-2-1#1"]));
}

/// Reference §3.4: a native `tool_result` in the first message after the
/// range is not sent; its id is its `tool_use` id.
#[test]
fn k3_native_results_after_the_range_are_dropped() {
    let mut t = Task::new();
    let native = |id: &str, chars: usize| json!({"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": format!("[execute_command for 'x'] Result:\n{}", "z".repeat(chars))}]});
    let call = |id: &str| json!([{"type": "tool_use", "id": id, "name": "execute_command", "input": {"command": "x"}}]);
    let push_call = |t: &mut Task, id: &str, usage| {
        t.answer("", usage);
        let last = t.history.last_mut().unwrap();
        last["content"] = call(id);
    };
    push_call(&mut t, "toolu_1", (10, 10, 1_000, 0));
    t.user(vec![native("toolu_1", 100_000)]);
    push_call(&mut t, "toolu_2", (10, 10, 25_000, 1_000));
    t.user(vec![native("toolu_2", 100_000)]);
    push_call(&mut t, "toolu_3", (10, 10, 25_000, 26_000));
    t.user(vec![native("toolu_3", 100_000)]);
    push_call(&mut t, "toolu_4", (10, 10, 25_000, 74_000));
    t.user(vec![native("toolu_4", 100)]);
    t.answer("done", (10, 10, 100, 50_000));
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    assert_eq!(plan["request"]["cline"]["deleted_range"], json!([2, 3]));
    // Message 2 (toolu_1's result) is in the range; message 4 follows it, a
    // user message: its tool_result is dropped too.
    assert_eq!(plan["cleared"], json!(["toolu_1", "toolu_2"]));
    let text = ok(&["plan", p(&dir), "--at", "5", "--policy", "cline"]);
    assert!(text.contains("truncated by Cline (range [2, 3])"), "{text}");
    assert!(
        text.contains("dropped by Cline: the first message after the range [2, 3]"),
        "{text}"
    );
}

/// Reference §2.5: without ui_messages.json, each assistant message's
/// `metrics.tokens` is its request's usage.
#[test]
fn k2_metrics_without_ui_messages() {
    let mut t = worked(400_000);
    t.ui = false;
    for (k, m) in t
        .history
        .iter_mut()
        .filter(|m| m["role"] == "assistant")
        .enumerate()
    {
        let prompt = [1_000, 30_000, 60_000, 99_000, 50_000][k];
        m["metrics"] =
            json!({"tokens": {"prompt": prompt, "completion": 100, "cached": prompt / 2}});
    }
    let dir = t.write();
    let plan = json(&[
        "plan",
        p(&dir),
        "--at",
        "5",
        "--policy",
        "cline",
        "--format",
        "json",
    ]);
    assert_eq!(plan["request"]["cline"]["total"], 99_100);
    assert_eq!(plan["fired"], true);
    // Without ui_messages.json the recorded range is unknown.
    assert_eq!(
        plan["request"]["cline"]["deleted_range_agrees"],
        Value::Null
    );
}

/// SPEC §15.2 (as every loader): a usage value of the wrong shape is a
/// warning, not a silent 0.
#[test]
fn a_usage_value_of_the_wrong_shape_is_said() {
    let mut t = worked(400_000);
    let dir = t.write();
    let ui = dir.join("ui_messages.json");
    let text = std::fs::read_to_string(&ui).unwrap().replacen(
        "\\\"tokensIn\\\":600",
        "\\\"tokensIn\\\":-600",
        1,
    );
    std::fs::write(&ui, text).unwrap();
    let e = json(&["evidence", p(&dir), "--format", "json"]);
    let w = e["session"]["warnings"].to_string();
    assert!(
        w.contains("tokensIn of ui message 2 (api_req_started) is a negative number"),
        "{w}"
    );
}

/// SPEC §18.4: a Cline 4.1+ store found where a folder is listed is one line,
/// exit 0; the tasks beside it are still read.
#[test]
fn s18_4_the_sdk_store_is_said_and_not_read() {
    let mut t = worked(400_000);
    let dir = t.write();
    let data = dir.parent().unwrap().parent().unwrap();
    std::fs::create_dir_all(data.join("db")).unwrap();
    std::fs::write(data.join("db/sessions.db"), b"").unwrap();
    let (code, out, err) = run(&["compare", p(&data.join("tasks"))]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Cline 4.1+ sessions are not read yet"),
        "{err}"
    );
    assert!(out.contains("1 session"), "{out}");
}

/// SPEC §17.K.1, §15.19: the task folders are refused as export targets.
#[test]
fn k1_the_writer_refuses_a_task_file() {
    let mut t = worked(400_000);
    let dir = t.write();
    let target = dir.join("ui_messages.json");
    let before = std::fs::read(&target).unwrap();
    let (code, _, err) = run(&["explain", SAMPLE, "cline-2-0", "-o", p(&target)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("session transcript"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), before);
}

/// Reference §3.3–§3.4: the wire of a truncated request leaves out the range
/// and reads the truncation notice in block 0 of the first assistant
/// message; the local side holds every message.
#[test]
fn k3_the_wire_leaves_out_the_range_and_carries_the_truncation_notice() {
    let wire = json(&["wire", SAMPLE, "--at", "5"]);
    let messages = wire["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7, "[0, 1, 4, 5, 6, 7, 8]");
    assert!(
        messages[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with(
                "[NOTE] Some previous conversation history with the user has been removed"
            )
    );
    assert!(
        messages[2]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[execute_command for 'npm test'] Result:")
    );
    let local = json(&["wire", SAMPLE, "--at", "5", "--side", "local"]);
    assert_eq!(local["messages"].as_array().unwrap().len(), 9);
    // Before the rule fired nothing is left out.
    let four = json(&["wire", SAMPLE, "--at", "4"]);
    assert_eq!(
        four["messages"].as_array().unwrap().len(),
        7,
        "messages 0-6"
    );
    assert!(!four.to_string().contains("[NOTE] Some previous"));
}

/// SPEC §17.K.1: the picker lists a task by its history, as Cline's: its
/// requests, its results (text-protocol and native), the `<task>` as the
/// prompt.
#[test]
fn k1_the_picker_lists_a_task_as_cline_s() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = mcscope::scan::scan(&root.join(SAMPLE).join("api_conversation_history.json"));
    assert_eq!(s.harness.name(), "cline");
    assert_eq!((s.requests, s.results), (6, 5));
    assert_eq!(
        s.prompt.as_deref(),
        Some("fix the failing test in src/app.ts")
    );
    assert!(s.error.is_none());
}

/// Hostile task files (every byte of a transcript is untrusted): values of
/// the wrong shape, indexes past any message, ranges upside down or at the
/// top of the integers, a FIFO beside the history. Each is read without a
/// panic or a hang; a file that cannot be read is one clear line, exit 2.
#[test]
fn hostile_task_files_are_read_or_refused_plainly() {
    let mut t = worked(1_000);
    let huge = u64::MAX;
    t.extra_ui.push(
        json!({"ts": "x", "type": "say", "say": "api_req_started", "text": "not json",
        "conversationHistoryIndex": huge, "conversationHistoryDeletedRange": [huge, huge]}),
    );
    t.extra_ui.push(
        json!({"say": "api_req_started", "text": "{\"tokensIn\": \"many\"}",
        "conversationHistoryIndex": 9999, "conversationHistoryDeletedRange": [7, 2]}),
    );
    t.context = Some(json!([
        [huge, [2, [[0, [[1, "text", ["x"], []]]]]]],
        "junk",
        [1, [4, "x"]]
    ]));
    let dir = t.write();
    for cmd in ["plan", "timeline", "evidence"] {
        let (code, out, err) = run(&[cmd, p(&dir), "--policy", "cline"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(!out.is_empty() && !err.contains("panicked"), "{cmd}: {err}");
    }
    let e = json(&["evidence", p(&dir), "--format", "json"]);
    assert!(
        e["session"]["diagnostics"]
            .to_string()
            .contains("context_history.json entry")
    );
    // A history that is no array, and one that is no JSON.
    for bad in [
        "{\"role\": \"user\"}",
        "[{\"role\": \"user\", \"content\": ",
    ] {
        std::fs::write(dir.join("api_conversation_history.json"), bad).unwrap();
        let (code, _, err) = run(&["plan", p(&dir)]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // A FIFO named like a task file is refused, never opened for a read that
    // would block.
    let mut t = worked(1_000);
    let dir = t.write();
    std::fs::remove_file(dir.join("ui_messages.json")).unwrap();
    let fifo = dir.join("ui_messages.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let (code, _, err) = run(&["plan", p(&dir)]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("FIFO") || err.contains("not a regular"),
            "{err}"
        );
    } else {
        eprintln!("note: mkfifo is not available here; the FIFO case is skipped");
    }
}
