//! SPEC §5 for Qwen: where idle and size run, the settings' coupling, and the media lists.

use super::*;

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
    let s = setup(&path, opts().with("--size-threshold", "100"));
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
        opts().with("--size-threshold", "1000"),
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
    let size = |size: Option<i64>| {
        opts()
            .with("--policy", "size")
            .with("--gap-minutes", "-1.0")
            .with_some("--size-threshold", size)
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
        opts()
            .with("--policy", "size")
            .with("--size-threshold", "1"),
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
