//! How a transcript becomes responses, requests and views, and how tool ids are matched.

use super::*;

#[test]
fn responses_group_by_message_id_even_with_results_between_lines() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).calls(
        "msg_1",
        &[
            ("a", "Read", json!({"file_path": "/r/a"})),
            ("b", "Read", json!({"file_path": "/r/b"})),
        ],
    );
    // Interleave: move the first result between the two tool_use lines.
    let second_call = c.lines.pop().unwrap();
    c.result("a", "A");
    c.lines.push(second_call);
    c.result("b", "B").answer("done");
    let s = setup(&c.write(t.path(), "s.jsonl"), Opts::default());
    assert_eq!(s.session.responses().count(), 2);
    assert_eq!(s.session.requests.len(), 2);
    // Both results form one user message, sent by request 2.
    let r2 = &s.session.requests[1];
    assert!(!r2.begins_turn);
    assert_eq!(r2.end - r2.view_start, 3);
}

#[test]
fn missing_response_ids_make_one_response_per_line() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).answer("one");
    let mut v: serde_json::Value = serde_json::from_str(&c.lines[1]).unwrap();
    v["message"].as_object_mut().unwrap().remove("id");
    c.lines[1] = v.to_string();
    let l = c.lines[1].clone();
    c.lines.push(l);
    let s = setup(&c.write(t.path(), "s.jsonl"), Opts::default());
    assert_eq!(s.session.responses().count(), 2);
}

#[test]
fn trailing_user_content_is_one_more_request() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).answer("ok").prompt("and now?", 1.0);
    let s = setup(&c.write(t.path(), "s.jsonl"), Opts::default());
    assert_eq!(s.session.requests.len(), 2);
    assert!(s.session.requests[1].response.is_none());
    assert!(s.session.requests[1].begins_turn);
}

#[test]
fn compaction_boundaries_start_a_new_view() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok");
    c.boundary();
    c.prompt("after", 90.0).bash("C", 100).answer("ok");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let r = &s.session.requests[3];
    assert!(r.view_start > 0);
    // The gap is measured within the view: no assistant since the boundary.
    assert_eq!(r.gap_minutes, None);
    let p = plan(&s, 4);
    assert!(p.candidates.is_empty(), "A and B are before the boundary");
    assert!(!p.step.fired());
}

#[test]
fn ambiguous_and_unresolved_ids() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .call("R", "Read", json!({"file_path": "/r/one"}))
        .call("R", "Read", json!({"file_path": "/r/two"}))
        .result("R", "text")
        .call("N", "Read", json!({"offset": 3}))
        .result("N", "text")
        .bash("Z", 10)
        .answer("ok");
    let mut o = opts(KindArg::Forced, 1);
    o.given.read("--protect", "").unwrap();
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    let p = last(&s);
    let outcome = |id: &str| {
        p.candidates
            .iter()
            .find(|c| s.session.results[c.result].id == id)
            .and_then(|c| c.protection.clone())
            .map(|p| p.outcome)
    };
    assert_eq!(outcome("R"), Some(Outcome::AmbiguousId));
    assert_eq!(outcome("N"), Some(Outcome::UnresolvedId));
    // Eviction metadata: N has no path.
    assert_eq!(p.unresolved_evicted_reads, 1);
    assert_eq!(p.evicted_read_paths, ["/r/one", "/r/two"]);
}

#[test]
fn a_reused_id_ranks_by_its_own_call() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("X", 100)
        .bash("Y", 100)
        .bash("X", 100)
        .bash("Z", 100)
        .answer("ok")
        .prompt("later", 90.0);
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = last(&s);
    let ranks: Vec<(String, Option<usize>)> = p
        .candidates
        .iter()
        .map(|c| (s.session.results[c.result].id.clone(), c.rank))
        .collect();
    assert_eq!(
        ranks,
        [
            ("X".to_string(), Some(1)),
            ("Y".to_string(), Some(2)),
            ("X".to_string(), Some(3)),
            ("Z".to_string(), Some(4))
        ]
    );
    assert_eq!(ids(&s, &p, Status::Cleared), ["X", "Y", "X"]);
}

#[test]
fn qwen_compressed_history_entries_are_their_own_messages() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).shell("old", 100).answer("ok");
    let compression = json!({"uuid": "c", "parentUuid": null, "sessionId": "s", "timestamp": "2026-05-20T11:02:44.771Z",
    "type": "system", "cwd": "/repo", "version": "0.15.6", "subtype": "chat_compression",
    "systemPayload": {"info": {"compressionStatus": 1}, "compressedHistory": [
        {"role": "user", "parts": [{"text": "summary"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "h1", "name": "run_shell_command", "args": {"command": "a"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "h1", "name": "run_shell_command", "response": {"output": "hhhh"}}}]}
    ]}});
    q.lines.push(compression.to_string());
    q.prompt("next", 1.0)
        .shell("n1", 100)
        .shell("n2", 100)
        .answer("ok");
    let mut o = opts(KindArg::Count, 1);
    o.given.read("--trigger", "1").unwrap();
    let s = setup(&q.write(t.path(), "s.jsonl"), o);
    // The first request after the compression sends h1 (from the history) and the prompt.
    let first_after = s
        .session
        .requests
        .iter()
        .find(|r| r.segment == 1)
        .unwrap()
        .index;
    let p = plan(&s, first_after + 1);
    assert_eq!(
        ids(&s, &p, Status::Cleared),
        ["h1"],
        "h1 was sent before: not pending"
    );
    assert!(
        !p.candidates
            .iter()
            .any(|c| s.session.results[c.result].id == "old")
    );
}
