//! Which results a plan may clear (errors, cleared, not compactable, vouched) and size and count.

use super::*;

#[test]
fn errors_qwen_never_clears_claude_by_config_size_never() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).shell("A", 100);
    q.calls(&[("E", "run_shell_command", json!({"command": "false"}))])
        .error("E", "run_shell_command", "boom");
    q.shell("B", 100)
        .answer("ok")
        .prompt("later", 90.0)
        .answer("ok");
    let s = setup(&q.write(t.path(), "q.jsonl"), opts(KindArg::Idle, 1));
    let p = last(&s);
    assert_eq!(status(&s, &p, "E"), Status::ErrorKept);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);

    let mut c = Claude::default();
    c.prompt("go", 0.0).bash("A", 100);
    c.call("E", "Bash", json!({"command": "false"}))
        .result_full(
            "E",
            json!("<tool_use_error>boom</tool_use_error>"),
            true,
            0.0,
        );
    c.bash("B", 100)
        .answer("ok")
        .prompt("later", 90.0)
        .answer("ok");
    let path = c.write(t.path(), "c.jsonl");
    let s = setup(&path, opts(KindArg::Idle, 1));
    let p = last(&s);
    assert_eq!(
        ids(&s, &p, Status::Cleared),
        ["A", "E"],
        "claude clears errors by default"
    );
    let mut o = opts(KindArg::Idle, 1);
    o.given.read("--no-clear-errors", "").unwrap();
    let s = setup(&path, o);
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    assert_eq!(status(&s, &p, "E"), Status::Kept);

    // size neither counts nor clears errors, in either preset.
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    c.call("E", "Bash", json!({"command": "false"}))
        .result_full("E", json!("e".repeat(5000)), true, 0.0);
    c.bash("A", 300)
        .bash("B", 300)
        .answer("ok")
        .prompt("x", 1.0)
        .answer("y");
    let mut o = opts(KindArg::Size, 1);
    o.given.read("--size-threshold", "500").unwrap();
    let s = setup(&c.write(t.path(), "c2.jsonl"), o);
    let p = last(&s);
    assert_eq!(p.step.chars_before, 600);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    assert_eq!(status(&s, &p, "E"), Status::Kept);
}

#[test]
fn size_clears_oldest_first_down_to_the_low_watermark_or_the_threshold() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("A", 300)
        .bash("B", 300)
        .bash("C", 300)
        .bash("D", 300)
        .answer("ok")
        .prompt("next", 1.0)
        .answer("ok");
    let path = c.write(t.path(), "s.jsonl");
    let mut o = opts(KindArg::Size, 1);
    o.given.read("--size-threshold", "1000").unwrap();
    let s = setup(&path, o.clone());
    let p = last(&s);
    assert!(p.step.fired());
    assert_eq!(p.step.target_chars, Some(500));
    // 1200 > 1000; to reach 500: A, B, C go (D is the keep window).
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B", "C"]);
    assert_eq!(p.step.chars_after, 300);

    o.given.read("--no-low-watermark", "").unwrap();
    let s = setup(&path, o);
    let p = last(&s);
    assert_eq!(p.step.target_chars, Some(1000));
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    assert_eq!(p.step.chars_after, 900);
}

#[test]
fn size_fires_as_an_overage_when_only_protected_results_remain() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let mem = base.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    for i in 0..3 {
        let f = mem.join(format!("t{i}.md"));
        std::fs::write(&f, "x").unwrap();
        q.read(&format!("M{i}"), f.to_str().unwrap());
    }
    q.answer("ok").prompt("next", 1.0).answer("ok");
    let mut o = opts(KindArg::Size, 1);
    o.given.read("--size-threshold", "100").unwrap();
    o.shared.memory_root = vec![format!("user={}", mem.display())];
    let s = setup(&q.write(&base, "s.jsonl"), o);
    let p = last(&s);
    assert!(p.step.fired(), "an overage still fires");
    assert_eq!(p.step.trigger, Some(Trigger::Size));
    assert!(p.step.newly_cleared.is_empty());
    assert_eq!(ids(&s, &p, Status::Protected), ["M0", "M1", "M2"]);
    assert_eq!(
        p.step.chars_after, p.step.chars_before,
        "protected results still count"
    );
    assert!(p.step.note.to_string().contains("overage"));
}

#[test]
fn count_deletes_only_sent_results_cumulatively() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    for id in ["A", "B", "C", "D", "E"] {
        c.bash(id, 100);
    }
    c.answer("ok");
    let mut o = opts(KindArg::Count, 2);
    o.given.read("--trigger", "3").unwrap();
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    assert_eq!(s.policy.delivery, mcscope::policy::Delivery::CacheEdits);
    // Request 5 sends D's result for the first time: A, B active and sent → deleted.
    let p = plan(&s, 5);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B"]);
    assert_eq!(p.cache.cache_edits_deleted, ["A", "B"]);
    // Request 6: C, D, E active (3, not > 3): nothing new, A and B stay deleted.
    let p = plan(&s, 6);
    assert!(!p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["C", "D", "E"]);
}

#[test]
fn count_never_deletes_a_result_not_yet_sent() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).calls(
        "m1",
        &[
            ("A", "Bash", json!({"command": "a"})),
            ("B", "Bash", json!({"command": "b"})),
            ("C", "Bash", json!({"command": "c"})),
        ],
    );
    c.result("A", "a")
        .result("B", "b")
        .result("C", "c")
        .answer("ok");
    let mut o = opts(KindArg::Count, 1);
    o.given.read("--trigger", "1").unwrap();
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    let p = plan(&s, 2);
    assert!(!p.step.fired(), "all three are in the last user message");
    assert!(ids(&s, &p, Status::Cleared).is_empty());
}

#[test]
fn already_cleared_results_are_never_counted_or_cleared_again() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .call("A", "Bash", json!({"command": "a"}))
        .result("A", "[Old tool result content cleared]")
        .bash("B", 100)
        .bash("C", 100)
        .answer("ok")
        .prompt("x", 90.0)
        .answer("y");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = last(&s);
    assert_eq!(status(&s, &p, "A"), Status::AlreadyCleared);
    assert_eq!(ids(&s, &p, Status::Cleared), ["B"]);
    assert_eq!(p.step.chars_before, 200);
}

#[test]
fn not_compactable_results_are_listed_but_never_cleared() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .call("T", "TodoWrite", json!({"todos": []}))
        .result("T", "ok")
        .bash("B", 100)
        .bash("C", 100)
        .answer("ok")
        .prompt("x", 90.0)
        .answer("y");
    // An orphan result whose call is not in the view.
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = last(&s);
    assert_eq!(status(&s, &p, "T"), Status::NotCompactable);
    assert_eq!(
        p.candidates
            .iter()
            .find(|c| c.tool.as_deref() == Some("TodoWrite"))
            .unwrap()
            .rank,
        None
    );
    assert_eq!(ids(&s, &p, Status::Cleared), ["B"]);
}

#[test]
fn evicted_read_paths_skip_paths_a_kept_result_vouches_for() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .read("A", "/r/same")
        .read("B", "/r/other")
        .read("C", "/r/same")
        .answer("ok")
        .prompt("x", 90.0)
        .answer("y");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B"]);
    assert_eq!(p.evicted_read_paths, ["/r/other"]);
}

#[test]
fn count_honours_clear_errors_under_claude() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    c.call("E", "Bash", json!({"command": "false"}))
        .result_full("E", json!("boom"), true, 0.0);
    for id in ["a", "b", "c", "d"] {
        c.bash(id, 10);
    }
    c.answer("ok");
    let path = c.write(t.path(), "s.jsonl");
    let mut o = opts(KindArg::Count, 2);
    o.given.read("--trigger", "2").unwrap();
    let s = setup(&path, o.clone());
    assert!(ids(&s, &last(&s), Status::Cleared).contains(&"E".to_string()));
    o.given.read("--no-clear-errors", "").unwrap();
    let s = setup(&path, o);
    let p = last(&s);
    assert!(!ids(&s, &p, Status::Cleared).contains(&"E".to_string()));
    assert_eq!(status(&s, &p, "E"), Status::Kept);
}
