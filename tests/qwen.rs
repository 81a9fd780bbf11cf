//! Qwen Code as it is today (SPEC §2, §3, §5): one test per rule, named after the
//! SPEC bullet it checks, on sessions written with the real record shapes
//! (`shared/reference/qwen-code-jsonl.md`, "Additions").
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::{Qwen, ids, last, plan, setup, status};
use mcscope::cli::Opts;
use mcscope::policy::engine::Status;
use serde_json::json;

fn opts() -> Opts {
    Opts {
        keep_recent: Some(1),
        ..Opts::default()
    }
}

fn forced() -> Opts {
    Opts {
        policy: Some(mcscope::cli::KindArg::Forced),
        ..opts()
    }
}

fn tool_of(s: &mcscope::analysis::Setup, p: &mcscope::analysis::PlanAt, id: &str) -> String {
    p.candidates
        .iter()
        .find(|c| s.session.results[c.result].id == id)
        .and_then(|c| c.tool.clone())
        .unwrap_or_default()
}

/// §3 table: eleven compactable tools — web_search, skill and search_memory
/// results are candidates like read_file's.
#[test]
fn s3_eleven_compactable_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("look things up", 0.0);
    for (id, tool) in [
        ("c1", "web_search"),
        ("c2", "skill"),
        ("c3", "search_memory"),
        ("c4", "read_file"),
    ] {
        q.calls(&[(id, tool, json!({"query": "x"}))])
            .result(id, tool, &"r".repeat(400));
    }
    q.answer("done").prompt("again", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1", "c2", "c3"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["c4"]);
}

/// §3 "qwen tool names": legacy aliases (exact), then any case of a known name;
/// display names and other names are not compactable.
#[test]
fn s3_canonical_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    for (id, name) in [
        ("a1", "search_file_content"),
        ("a2", "replace"),
        ("a3", "Read_File"),
        ("a4", "ReadFile"),
        ("a5", "Replace"),
        ("a6", "run_shell_command"),
    ] {
        q.calls(&[(id, name, json!({}))])
            .result(id, name, &"o".repeat(400));
    }
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(tool_of(&s, &p, "a1"), "grep_search");
    assert_eq!(tool_of(&s, &p, "a2"), "edit");
    assert_eq!(tool_of(&s, &p, "a3"), "read_file");
    assert_eq!(status(&s, &p, "a4"), Status::NotCompactable);
    assert_eq!(status(&s, &p, "a5"), Status::NotCompactable);
    assert_eq!(ids(&s, &p, Status::Cleared), ["a1", "a2", "a3"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["a6"]);
}

/// §3 "qwen bridged calls": a `tool_call` response takes the tool its calls name
/// when they agree; disagreeing calls, an unparseable call or no call at all
/// fail closed (not_compactable). Bridged paths protect like direct ones.
#[test]
fn s3_bridged_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    let bridged = |tool: serde_json::Value, path: &str| json!({"name": tool, "arguments": {"file_path": path}});
    // Agreeing: one bridged read_file.
    q.calls(&[("b1", "tool_call", bridged(json!("read_file"), "/repo/a.ts"))])
        .response(
            json!({"id": "b1", "name": "tool_call", "response": {"output": "x".repeat(400)}}),
        );
    // Disagreeing: the same id bridged to two tools.
    q.calls(&[
        ("b2", "tool_call", bridged(json!("read_file"), "/repo/b.ts")),
        (
            "b2",
            "tool_call",
            bridged(json!("run_shell_command"), "/repo/b.ts"),
        ),
    ])
    .response(json!({"id": "b2", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // Unparseable sibling: args.name is not a string.
    q.calls(&[
        ("b3", "tool_call", bridged(json!("read_file"), "/repo/c.ts")),
        ("b3", "tool_call", bridged(json!(7), "/repo/c.ts")),
    ])
    .response(json!({"id": "b3", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // No call with its id.
    q.response(json!({"id": "b4", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // A response not named tool_call uses its own name, whatever the call says.
    q.calls(&[("b5", "tool_call", bridged(json!("Read_File"), "/repo/e.ts"))])
        .response(
            json!({"id": "b5", "name": "grep_search", "response": {"output": "x".repeat(400)}}),
        );
    q.calls(&[("b6", "run_shell_command", json!({"command": "ls"}))])
        .result("b6", "run_shell_command", &"y".repeat(400));
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(tool_of(&s, &p, "b1"), "read_file");
    for id in ["b2", "b3", "b4"] {
        assert_eq!(status(&s, &p, id), Status::NotCompactable, "{id}");
    }
    assert_eq!(tool_of(&s, &p, "b5"), "grep_search");
    assert_eq!(ids(&s, &p, Status::Cleared), ["b1", "b5"]);
    // The bridged read's path is its arguments.file_path.
    let c = p
        .candidates
        .iter()
        .find(|c| s.session.results[c.result].id == "b1")
        .unwrap();
    assert_eq!(c.path.as_deref(), Some("/repo/a.ts"));
}

/// §3 "Errors": any `error` key is an error to Qwen, `"error": null` included.
#[test]
fn s3_error_null_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    q.calls(&[("e1", "run_shell_command", json!({"command": "x"}))])
        .response(json!({"id": "e1", "name": "run_shell_command", "response": {"output": "o".repeat(400), "error": null}}));
    q.shell("e2", 400).shell("e3", 400);
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(status(&s, &p, "e1"), Status::ErrorKept);
    assert_eq!(ids(&s, &p, Status::Cleared), ["e2"]);
}

fn kinds(s: &mcscope::analysis::Setup) -> Vec<&'static str> {
    s.session
        .requests
        .iter()
        .map(|r| r.send.as_ref().map_or("-", |x| x.kind.name()))
        .collect()
}

fn idle(gap: f64) -> Opts {
    Opts {
        policy: Some(mcscope::cli::KindArg::Idle),
        gap_minutes: Some(gap),
        ..opts()
    }
}

/// §2 send-kind table: every kind, from the inputs since the last response.
#[test]
fn s2_send_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0); // 1 user_query
    q.calls(&[("c1", "read_file", json!({"file_path": "/repo/a"}))])
        .result("c1", "read_file", "x"); // 2 tool_result
    q.answer("done");
    q.input("cron", "nightly", 5.0); // 3 cron
    q.answer("ok");
    q.record(
        "user",
        1.0,
        json!({"subtype": "notification", "deliveredTurn": true,
               "message": {"role": "user", "parts": [{"text": "<task-notification/>"}]}}),
    ); // 4 notification
    q.answer("noted");
    q.input("goal_runtime", "continue the goal", 1.0); // 5 goal
    q.answer("goal step");
    q.input("mid_turn_user_message", "steer", 1.0); // 6 steer (no call before)
    q.answer("steered");
    q.answer("hook continuation"); // 7 hook (no input at all)
    q.input("agent_message", "review done", 1.0); // 8 agent_message
    q.answer("thanks");
    q.record(
        "tool_result",
        0.0,
        json!({"subtype": "code_mode_tool_result", "message": {"role": "user", "parts": [
            {"functionResponse": {"id": "x9", "name": "exec", "response": {"output": "1"}}}]}}),
    ); // 9 tool_result (any subtype)
    q.answer("ran");
    q.input("mystery", "what is this", 1.0); // 10 unknown subtype: a prompt
    q.answer("hm");
    let s = setup(&q.write(dir.path(), "s.jsonl"), opts());
    assert_eq!(
        kinds(&s),
        [
            "user_query",
            "tool_result",
            "cron",
            "notification",
            "goal",
            "steer",
            "hook",
            "agent_message",
            "tool_result",
            "user_query"
        ]
    );
    let note = s.session.requests[9].send.as_ref().unwrap().note.clone();
    assert_eq!(
        note.as_deref(),
        Some("unknown input subtype mystery: treated as a prompt")
    );
    // begins_turn for every kind but tool_result and agent_message.
    let turns: Vec<bool> = s.session.requests.iter().map(|r| r.begins_turn).collect();
    assert_eq!(
        turns,
        [
            true, false, true, true, true, true, true, false, false, true
        ]
    );
}

/// §2 "Odd inputs": a prompt after cancelled tools is a prompt; mid-turn text
/// after a response with a call goes with the tool results; an undelivered
/// notification never decides; mid-turn text rides along with a prompt.
#[test]
fn s2_odd_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    q.calls(&[("c1", "run_shell_command", json!({"command": "sleep"}))])
        .result("c1", "run_shell_command", "cancelled")
        .prompt("never mind, do this", 0.0); // 2: prompt after cancelled tools
    q.calls(&[("c2", "run_shell_command", json!({"command": "ls"}))])
        .input("mid_turn_user_message", "save logs", 0.0); // 3: mid-turn after a call
    q.answer("ok");
    q.record(
        "user",
        1.0,
        json!({"subtype": "notification",
               "message": {"role": "user", "parts": [{"text": "<task-notification/>"}]}}),
    )
    .prompt("and now?", 0.0); // 4: the prompt decides, not the notification
    q.answer("fine");
    q.record(
        "user",
        1.0,
        json!({"subtype": "notification",
               "message": {"role": "user", "parts": [{"text": "<task-notification/>"}]}}),
    ); // 5: only an undelivered notification: no rule matches
    q.answer("fine");
    let s = setup(&q.write(dir.path(), "s.jsonl"), opts());
    assert_eq!(
        kinds(&s),
        [
            "user_query",
            "user_query",
            "tool_result",
            "user_query",
            "agent_message"
        ]
    );
}

/// §2 "realtime_message records are dropped": not inputs, not messages, no time.
#[test]
fn s2_realtime_messages_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).answer("hi");
    q.input("realtime_message", "open the README", 90.0);
    q.record(
        "assistant",
        0.0,
        json!({"subtype": "realtime_message", "message": {"role": "model", "parts": [{"text": "sure"}]}}),
    );
    q.prompt("next", 0.0).answer("ok");
    let s = setup(&q.write(dir.path(), "s.jsonl"), opts());
    assert_eq!(s.session.requests.len(), 2);
    assert_eq!(kinds(&s), ["user_query", "user_query"]);
    // The gap runs from the last real response, across the dropped records.
    let g = s.session.requests[1].gap_minutes.unwrap();
    assert!(g > 90.0, "{g}");
}

/// §5 "idle ... qwen: user_query, cron and hook requests": a notification two
/// hours later and a mid-turn steer never fire idle; a prompt does.
#[test]
fn s5_idle_runs_only_where_qwen_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("done");
    q.record(
        "user",
        120.0,
        json!({"subtype": "notification", "deliveredTurn": true,
               "message": {"role": "user", "parts": [{"text": "<task-notification/>"}]}}),
    )
    .answer("noted"); // 4
    q.input("mid_turn_user_message", "steer", 120.0)
        .answer("steered"); // 5
    q.input("goal_runtime", "go on", 120.0).answer("goal"); // 6
    q.prompt("back", 120.0).answer("hi"); // 7
    let path = q.write(dir.path(), "s.jsonl");
    let s = setup(&path, idle(60.0));
    for k in 4..=6 {
        let p = plan(&s, k);
        assert!(!p.step.fired(), "request {k}: {}", p.step.note);
        assert!(
            p.step.note.to_string().contains("runs no microcompaction"),
            "{}",
            p.step.note
        );
    }
    let p = plan(&s, 7);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1"]);
    // auto: nothing at all at a notification, even over the size threshold.
    let s = setup(
        &path,
        Opts {
            size_threshold: Some(100),
            ..opts()
        },
    );
    assert!(!plan(&s, 4).step.fired());
    assert_eq!(plan(&s, 7).step.trigger.map(|t| t.name()), Some("idle"));
}

/// §5 "size ... and tool_result requests": size runs at a tool_result send, idle
/// does not (auto picks size there).
#[test]
fn s5_size_runs_at_tool_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .calls(&[("c3", "run_shell_command", json!({"command": "make"}))]);
    q.result("c3", "run_shell_command", &"y".repeat(800));
    q.answer("done");
    let s = setup(
        &q.write(dir.path(), "s.jsonl"),
        Opts {
            size_threshold: Some(1000),
            ..opts()
        },
    );
    // Request 4 sends c3's result: size fires, c3 is pending (just returned).
    let p = plan(&s, 4);
    assert_eq!(
        s.session.requests[3].send.as_ref().unwrap().kind.name(),
        "tool_result"
    );
    assert_eq!(p.step.trigger.map(|t| t.name()), Some("size"));
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1"]);
    let c3 = p
        .candidates
        .iter()
        .find(|c| s.session.results[c.result].id == "c3")
        .unwrap();
    assert!(c3.pending);
}

/// §2 "hook checkpoint": a hook's gap runs from the checkpoint (the last
/// completion when null) to now(k), the last record before the response (the
/// hook's own text is not recorded: the response before); it moves only when a
/// plan saved tokens, so a chain of hooks longer than the threshold fires idle.
#[test]
fn s2_hook_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("step 1"); // 1..3
    // Hook continuations (two responses in a row), each 25 minutes after the last.
    for (i, _) in (4..=8).enumerate() {
        q.record(
            "assistant",
            25.0,
            json!({"message": {"role": "model", "parts": [{"text": format!("step {}", i + 2)}]}}),
        );
    }
    let s = setup(&q.write(dir.path(), "s.jsonl"), idle(60.0));
    assert_eq!(&kinds(&s)[3..], ["hook", "hook", "hook", "hook", "hook"]);
    // now(k) is response k-1; the checkpoint is the prompt's now(1).
    let gaps: Vec<f64> = (4..=8)
        .map(|k| plan(&s, k).request.gap_minutes.unwrap().round())
        .collect();
    assert_eq!(gaps, [0.0, 25.0, 50.0, 75.0, 25.0]);
    assert!(!plan(&s, 6).step.fired());
    let p = plan(&s, 7);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1"]);
    // The checkpoint moved to now(7): request 8 is 25 minutes on.
    assert!(!plan(&s, 8).step.fired());
    // Under the claude preset the gap is the plain one: response k-1 to k-2.
    let s = setup(
        &dir.path().join("s.jsonl"),
        Opts {
            preset: Some(mcscope::cli::PresetArg::Claude),
            ..idle(60.0)
        },
    );
    assert_eq!(plan(&s, 7).request.gap_minutes.unwrap().round(), 25.0);
}

/// §5 "not a hook whose nearest earlier non-hook request is a goal".
#[test]
fn s5_no_plan_at_a_hook_after_a_goal_turn() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("a");
    q.input("goal_runtime", "go on", 1.0).answer("goal");
    q.record(
        "assistant",
        120.0,
        json!({"message": {"role": "model", "parts": [{"text": "after"}]}}),
    );
    let s = setup(&q.write(dir.path(), "s.jsonl"), idle(60.0));
    assert_eq!(kinds(&s)[3..], ["goal", "hook"]);
    assert!(s.session.requests[4].send.as_ref().unwrap().after_goal);
    let p = plan(&s, 5);
    assert!(!p.step.fired(), "{}", p.step.note);
}

/// §2 "process segments": after a version change idle cannot fire at the first
/// request, and clearings not stored by a compression are undone.
#[test]
fn s2_process_segments() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("a"); // 1..3
    q.prompt("later", 120.0).answer("b"); // 4: idle fires, clears c1
    q.version = "0.16.0".into();
    q.prompt("after a restart", 120.0).answer("c"); // 5: new process, no completion
    q.prompt("again", 120.0).answer("d"); // 6: fires again
    let path = q.write(dir.path(), "s.jsonl");
    let s = setup(&path, idle(60.0));
    let p = plan(&s, 4);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1"]);
    let p = plan(&s, 5);
    assert_eq!(p.request.gap_minutes, None);
    assert!(!p.step.fired());
    // The restart rebuilt the history: c1 is back in the wire.
    assert!(ids(&s, &p, Status::Cleared).is_empty());
    let p = plan(&s, 6);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1"]);
    // A /branch copy with another version starts no segment.
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("a");
    q.version = "0.14.0".into();
    q.record(
        "user",
        120.0,
        json!({"forkedFrom": {"sessionId": "old", "messageUuid": "m"},
               "message": {"role": "user", "parts": [{"text": "copied"}]}}),
    );
    q.answer("b");
    let s = setup(&q.write(dir.path(), "b.jsonl"), idle(60.0));
    assert!(plan(&s, 4).step.fired());
}

/// §2 "now(k)" and "gap": from API telemetry too, and never from the telemetry of
/// the response itself.
#[test]
fn s2_gap_from_completions() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    let telemetry = |name: &str| json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": {"event.name": name}}});
    q.prompt("go", 0.0).answer("a");
    q.record("system", 30.0, telemetry("qwen-code.api_error")); // a failed call: a completion
    q.prompt("retry", 45.0); // 45 min after the error, 75 after the answer
    q.record("system", 0.0, telemetry("qwen-code.api_response")); // response 2's own
    q.answer("b");
    let s = setup(&q.write(dir.path(), "s.jsonl"), idle(60.0));
    let g = s.session.requests[1].gap_minutes.unwrap();
    assert!((g - 45.0).abs() < 0.1, "{g}");
}

/// §3 "Pending" (qwen): only the tool results of a tool_result send; §5 settings
/// coupling: a negative gap without a size threshold turns size off too.
#[test]
fn s5_settings_coupling() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("c1", 800)
        .shell("c2", 800)
        .answer("a");
    q.prompt("next", 1.0).answer("b");
    let path = q.write(dir.path(), "s.jsonl");
    let size = |size: Option<i64>| Opts {
        policy: Some(mcscope::cli::KindArg::Size),
        gap_minutes: Some(-1.0),
        size_threshold: size,
        ..opts()
    };
    let s = setup(&path, size(None));
    let p = last(&s);
    assert!(!p.step.fired());
    assert!(
        p.step.note.to_string().contains("settings coupling"),
        "{}",
        p.step.note
    );
    let s = setup(&path, size(Some(1000)));
    assert!(last(&s).step.fired());
}

/// The plan at a hook after a compression reads the checkpoint set before it
/// (the plan at k equals the timeline's step k).
#[test]
fn s2_hook_checkpoint_outlives_a_compression() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).shell("c1", 800).shell("c2", 800);
    q.record(
        "system",
        0.0,
        json!({"subtype": "chat_compression", "systemPayload": {"info": {"compressionStatus": 1},
               "compressedHistory": [{"role": "user", "parts": [{"text": "summary"}]},
                                     {"role": "model", "parts": [{"text": "ack"}]}]}}),
    );
    q.answer("after the compression");
    q.shell("c3", 800).shell("c4", 800).answer("x");
    for _ in 0..3 {
        q.record(
            "assistant",
            30.0,
            json!({"message": {"role": "model", "parts": [{"text": "hook"}]}}),
        );
    }
    let s = setup(&q.write(dir.path(), "s.jsonl"), idle(60.0));
    let timeline = mcscope::analysis::timeline(&s, s.session.requests.len());
    for st in &timeline {
        let p = plan(&s, st.index);
        assert_eq!(p.step.gap_minutes, st.gap_minutes, "request {}", st.index);
        assert_eq!(p.step.fired(), st.fired(), "request {}", st.index);
    }
    assert!(timeline.iter().any(|st| st.fired()));
}

fn image(mime: &str) -> serde_json::Value {
    json!({"inlineData": {"mimeType": mime, "data": "iVBORw0KGgo="}})
}

/// §5 "Qwen media": three lists with their own keep windows — an image read
/// (output "") keeps a slot in the tool list and is cleared with its parts; an
/// MCP screenshot loses its nested parts and keeps its response; pasted images
/// (inlineData or fileData) become a text placeholder.
#[test]
fn s5_media_lists() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.record(
        "user",
        0.0,
        json!({"message": {"role": "user", "parts": [
            {"text": "look at these"}, image("image/png"),
            {"fileData": {"mimeType": "image/jpeg", "fileUri": "file:///tmp/b.jpg"}}]}}),
    );
    q.calls(&[("r1", "read_file", json!({"file_path": "/repo/pic.png"}))])
        .response(
            json!({"id": "r1", "name": "read_file", "response": {"output": ""},
                         "parts": [image("image/png")]}),
        );
    for id in ["m1", "m2"] {
        q.calls(&[(id, "mcp__browser__screenshot", json!({}))])
            .response(json!({"id": id, "name": "mcp__browser__screenshot",
                             "response": {"output": "screenshot taken"},
                             "parts": [image("image/jpeg")]}));
    }
    q.read("r2", "/repo/a.ts");
    q.answer("done").prompt("and now?", 0.0);
    let path = q.write(dir.path(), "s.jsonl");
    let s = setup(&path, forced());
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["r1"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["r2"]);
    assert_eq!(status(&s, &p, "m1"), Status::NotCompactable);
    // Tokens: r1 is 0 chars + 1600 for its image; m1's strip 1600; the first
    // pasted image 1600 (keep 1 of the two pasted ones).
    assert_eq!(p.step.tokens_saved, 1600 * 3);
    assert_eq!(p.step.media_kept, 1);
    let entries: Vec<(&str, Option<&str>, bool)> = p
        .media
        .iter()
        .map(|m| (m.list, m.tool_use_id.as_deref(), m.cleared))
        .collect();
    assert_eq!(
        entries,
        [
            ("media", None, true),
            ("media", None, false),
            ("nested", Some("m1"), true),
            ("nested", Some("m2"), false)
        ]
    );
    assert_eq!((p.media[0].message_index, p.media[0].part_index), (0, 1));
    assert_eq!((p.media[1].message_index, p.media[1].part_index), (0, 2));
    // The wire.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args([
            "wire",
            path.to_str().unwrap(),
            "--policy",
            "forced",
            "--keep-recent",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts = |m: usize| body["contents"][m]["parts"].clone();
    assert_eq!(
        parts(0)[1],
        json!({"text": "[Old inline media cleared: image/png]"})
    );
    assert_eq!(parts(0)[2]["fileData"]["mimeType"], "image/jpeg");
    let r1 = &parts(2)[0]["functionResponse"];
    assert_eq!(
        r1["response"],
        json!({"output": "[Old tool result content cleared]"})
    );
    assert!(r1.get("parts").is_none());
    let m1 = &parts(4)[0]["functionResponse"];
    assert_eq!(m1["response"], json!({"output": "screenshot taken"}));
    assert!(m1.get("parts").is_none());
    let m2 = &parts(6)[0]["functionResponse"];
    assert!(m2.get("parts").is_some());
    // Size never counts, keeps or clears media.
    let s = setup(
        &path,
        Opts {
            policy: Some(mcscope::cli::KindArg::Size),
            size_threshold: Some(1),
            ..opts()
        },
    );
    let p = last(&s);
    assert!(p.media.iter().all(|m| !m.cleared));
    assert_eq!(p.step.media_kept, 0);
    assert_eq!(status(&s, &p, "r1"), Status::Kept);
}

/// §5 "media alone can make idle fire".
#[test]
fn s5_media_alone_fires_idle() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    for _ in 0..2 {
        q.record(
            "user",
            0.0,
            json!({"message": {"role": "user", "parts": [{"text": "see"}, image("image/png")]}}),
        )
        .answer("seen");
    }
    q.prompt("later", 90.0).answer("ok");
    let s = setup(&q.write(dir.path(), "s.jsonl"), idle(60.0));
    let p = last(&s);
    assert!(p.step.fired(), "{}", p.step.note);
    assert_eq!(p.step.tokens_saved, 1600);
    assert_eq!(p.media.iter().filter(|m| m.cleared).count(), 1);
    // The prefix breaks at the first message that changed.
    assert_eq!(p.cache.prefix_broken_at_message, Some(0));
}

/// §3 "search_memory results ... clearing one evicts the memory bodies it
/// carried, minus bodies that remaining results still cover". The output shape
/// is not in the recorded examples: it is built from the SPEC's rule.
#[test]
fn s3_search_memory_evicts_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    let out = |mode: &str, refs: &[(&str, i64)]| {
        json!({"mode": mode, "results": refs.iter()
            .map(|(r, t)| json!({"memoryRef": r, "mtimeMs": t, "body": "..."}))
            .collect::<Vec<_>>()})
        .to_string()
    };
    q.prompt("recall", 0.0);
    q.calls(&[("s1", "search_memory", json!({"query": "a"}))])
        .result(
            "s1",
            "search_memory",
            &out("search", &[("mem/a.md", 1), ("mem/b.md", 2)]),
        );
    q.calls(&[("s2", "search_memory", json!({"query": "b"}))])
        .result("s2", "search_memory", &out("list", &[("mem/c.md", 3)]));
    q.calls(&[("s3", "search_memory", json!({"query": "b"}))])
        .result("s3", "search_memory", &out("fetch", &[("mem/b.md", 2)]));
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["s1", "s2"]);
    // s1's b.md is still covered by s3 (kept); s2's mode is "list".
    assert_eq!(
        p.evicted_memory_bodies,
        [("mem/a.md".to_string(), json!(1))]
    );
    let protection = p
        .candidates
        .iter()
        .find(|c| s.session.results[c.result].id == "s1")
        .unwrap()
        .protection
        .clone();
    assert!(protection.is_none(), "search_memory is never protected");
}

/// §7 `evicted_read_paths` (qwen): only a kept write_file vouches for a path; a
/// kept read_file of the same path does not.
#[test]
fn s7_only_a_kept_write_file_vouches() {
    let dir = tempfile::tempdir().unwrap();
    let run = |last_tool: &str| {
        let mut q = Qwen::default();
        q.prompt("go", 0.0).read("r1", "/repo/a.ts");
        q.calls(&[(
            "w1",
            last_tool,
            json!({"file_path": "/repo/a.ts", "content": "x"}),
        )])
        .result("w1", last_tool, &"ok ".repeat(100));
        q.answer("done").prompt("next", 0.0);
        let s = setup(
            &q.write(dir.path(), &format!("{last_tool}.jsonl")),
            forced(),
        );
        last(&s).evicted_read_paths
    };
    assert!(run("write_file").is_empty());
    assert_eq!(run("read_file"), ["/repo/a.ts"]);
    assert_eq!(run("edit"), ["/repo/a.ts"]);
}
