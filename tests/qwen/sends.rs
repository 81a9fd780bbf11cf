//! SPEC §2 for Qwen: send kinds, odd inputs, hook checkpoints, process segments and gaps.

use super::*;

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
