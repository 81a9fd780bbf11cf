//! Every rule of SPEC §2–§5 on small synthetic sessions, through the library API
//! that both the CLI and the TUI use.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::*;
use mcscope::cli::{DeliveryArg, KindArg, Opts, PresetArg};
use mcscope::policy::engine::{Status, Trigger};
use mcscope::policy::protect::Outcome;
use serde_json::json;

fn opts(kind: KindArg, keep: u32) -> Opts {
    Opts {
        policy: Some(kind),
        keep_recent: Some(keep),
        ..Default::default()
    }
}

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
fn claude_idle_clears_outside_the_call_window_and_needs_the_gap() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .read("A", "/r/a")
        .read("B", "/r/b")
        .bash("C", 400)
        .answer("ok");
    c.prompt("later", 59.0).answer("fine");
    let path = c.write(t.path(), "s.jsonl");
    let s = setup(&path, opts(KindArg::Idle, 1));
    let p = last(&s);
    assert!(!p.step.fired(), "59 min is under the 60 min threshold");
    assert_eq!(ids(&s, &p, Status::Cleared), Vec::<String>::new());

    let mut o = opts(KindArg::Idle, 1);
    o.gap_minutes = Some(30.0);
    let s = setup(&path, o);
    let p = last(&s);
    assert!(p.step.fired());
    assert_eq!(p.step.trigger, Some(Trigger::Idle));
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["C"]);
    // Only newly cleared work counts as saved.
    assert!(p.step.tokens_saved > 0);

    // A negative threshold disables idle.
    let mut o = opts(KindArg::Idle, 1);
    o.gap_minutes = Some(-1.0);
    assert!(!last(&setup(&path, o)).step.fired());
}

#[test]
fn claude_window_counts_calls_without_results_and_clears_pending() {
    // A long-running parallel call pair: results arrive 70 minutes later, in a tool loop.
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .calls(
            "m1",
            &[
                ("X", "Bash", json!({"command": "a"})),
                ("Y", "Bash", json!({"command": "b"})),
            ],
        )
        .result_full("X", json!("x".repeat(100)), false, 70.0)
        .result("Y", &"y".repeat(100))
        .answer("done");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = plan(&s, 2);
    assert!(!p.request.begins_turn);
    assert!(p.candidates.iter().all(|c| c.pending));
    // Claude clears pending results too: only Y (the last call) stays.
    assert_eq!(ids(&s, &p, Status::Cleared), ["X"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["Y"]);

    // A call still without a result takes a window slot.
    let mut c = Claude::default();
    c.prompt("go", 0.0).bash("A", 100).bash("B", 100);
    c.call("Z", "Bash", json!({"command": "z"}));
    c.prompt("hello?", 90.0).answer("sorry");
    let s = setup(&c.write(t.path(), "s2.jsonl"), opts(KindArg::Idle, 2));
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["B"]);
}

#[test]
fn claude_rewrite_clearings_last_until_the_next_turn() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok");
    // Request 4 begins a turn after 90 minutes: idle fires; 5 continues the loop.
    c.prompt("again", 90.0).bash("C", 100).answer("ok");
    // Request 6 begins a turn a minute later: originals are sent again.
    c.prompt("more", 1.0).answer("ok");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p4 = plan(&s, 4);
    assert!(p4.step.fired());
    assert_eq!(ids(&s, &p4, Status::Cleared), ["A"]);
    let p5 = plan(&s, 5);
    assert!(!p5.step.fired());
    assert_eq!(
        ids(&s, &p5, Status::Cleared),
        ["A"],
        "still in force in the tool loop"
    );
    assert_eq!(p5.candidates[0].cleared_at, Some(4));
    let p6 = plan(&s, 6);
    assert_eq!(ids(&s, &p6, Status::Cleared), Vec::<String>::new());
}

#[test]
fn qwen_clearings_last_for_the_rest_of_the_session() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("A", 100)
        .shell("B", 100)
        .answer("ok");
    q.prompt("again", 90.0).answer("ok");
    q.prompt("more", 1.0).answer("ok");
    let s = setup(&q.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = plan(&s, 4);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    let p = plan(&s, 5);
    assert!(!p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
}

#[test]
fn qwen_idle_is_evaluated_only_when_a_turn_begins() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).shell("A", 100).shell("B", 100);
    q.calls(&[("C", "run_shell_command", json!({"command": "sleep"}))]);
    q.rec_result_late("C", 90.0);
    q.answer("ok");
    let s = setup(&q.write(t.path(), "s.jsonl"), opts(KindArg::Idle, 1));
    let p = plan(&s, 4);
    assert!(!p.request.begins_turn);
    assert!(p.request.gap_minutes.unwrap() >= 90.0);
    assert!(!p.step.fired());
}

trait LateResult {
    fn rec_result_late(&mut self, id: &str, minutes: f64) -> &mut Self;
}

impl LateResult for Qwen {
    fn rec_result_late(&mut self, id: &str, minutes: f64) -> &mut Self {
        // A tool that ran for `minutes`: its result record comes that much later.
        self.prompt("", minutes);
        let last = self.lines.pop().unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&last).unwrap();
        v["type"] = json!("tool_result");
        v["message"] = json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": "z".repeat(50)}}}]});
        self.lines.push(v.to_string());
        self
    }
}

#[test]
fn qwen_forced_excludes_pending_and_protected_results_take_no_window_slot() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let mem = base.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    let memfile = mem.join("topic.md");
    std::fs::write(&memfile, "x").unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("A", 100)
        .read("M", memfile.to_str().unwrap())
        .shell("B", 100)
        .shell("P", 100);
    let mut o = opts(KindArg::Forced, 1);
    o.shared.memory_root = vec![format!("project={}", mem.display())];
    let s = setup(&q.write(&base, "s.jsonl"), o);
    let p = last(&s);
    assert!(!p.request.begins_turn);
    assert_eq!(
        status(&s, &p, "P"),
        Status::Kept,
        "pending: not committed history"
    );
    assert!(p.candidates.iter().find(|c| c.pending).is_some());
    assert_eq!(status(&s, &p, "M"), Status::Protected);
    // keep_recent 1 keeps B (the last clearable), not the protected read.
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["B", "P"]);
    let m = p
        .candidates
        .iter()
        .find(|c| c.tool.as_deref() == Some("read_file"))
        .unwrap();
    let pr = m.protection.as_ref().unwrap();
    assert_eq!(pr.outcome, Outcome::Protected);
}

#[test]
fn forced_acts_only_at_the_viewed_request() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok")
        .prompt("x", 1.0)
        .answer("y");
    let s = setup(&c.write(t.path(), "s.jsonl"), opts(KindArg::Forced, 1));
    let p = plan(&s, 3);
    assert!(p.step.fired());
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
    let steps = mcscope::analysis::timeline(&s, 3);
    let fired: Vec<usize> = steps
        .iter()
        .filter(|s| s.fired())
        .map(|s| s.index)
        .collect();
    assert_eq!(fired, [3]);
}

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
    o.shared.no_clear_errors = true;
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
    o.size_threshold = Some(500);
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
    o.size_threshold = Some(1000);
    let s = setup(&path, o.clone());
    let p = last(&s);
    assert!(p.step.fired());
    assert_eq!(p.step.target_chars, Some(500));
    // 1200 > 1000; to reach 500: A, B, C go (D is the keep window).
    assert_eq!(ids(&s, &p, Status::Cleared), ["A", "B", "C"]);
    assert_eq!(p.step.chars_after, 300);

    o.no_low_watermark = true;
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
    o.size_threshold = Some(100);
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
    o.trigger = Some(3);
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
    o.trigger = Some(1);
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
    o.shared.protect = true;
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
fn qwen_auto_picks_idle_at_an_idle_turn_and_size_otherwise() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("A", 400)
        .shell("B", 400)
        .answer("ok");
    q.prompt("soon", 1.0).shell("C", 400).answer("ok");
    q.prompt("later", 90.0).answer("ok");
    let mut o = Opts {
        keep_recent: Some(1),
        size_threshold: Some(1000),
        ..Default::default()
    };
    o.policy = Some(KindArg::Auto);
    let s = setup(&q.write(t.path(), "s.jsonl"), o);
    // Request 5 continues a tool loop with 1200 chars: size.
    let p = plan(&s, 5);
    assert!(!p.request.begins_turn);
    assert_eq!(p.step.trigger, Some(Trigger::Size));
    // Request 6 begins a turn after 90 min: idle.
    let p = plan(&s, 6);
    assert_eq!(p.step.trigger, Some(Trigger::Idle));
}

#[test]
fn claude_preset_can_protect_as_a_what_if() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let mem = base.join("m");
    std::fs::create_dir_all(&mem).unwrap();
    let mut c = Claude::default();
    let f = mem.join("note.md");
    c.prompt("go", 0.0)
        .read("M", f.to_str().unwrap())
        .bash("A", 100)
        .bash("B", 100)
        .answer("ok")
        .prompt("x", 90.0)
        .answer("y");
    let path = c.write(&base, "s.jsonl");
    let s = setup(&path, opts(KindArg::Idle, 1));
    assert!(!s.policy.protect, "off by default for claude");
    assert_eq!(ids(&s, &last(&s), Status::Cleared), ["M", "A"]);
    let mut o = opts(KindArg::Idle, 1);
    o.shared.protect = true;
    o.shared.memory_root = vec![format!("team={}", mem.display())];
    let s = setup(&path, o);
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Protected), ["M"]);
    assert_eq!(ids(&s, &p, Status::Cleared), ["A"]);
}

#[test]
fn cache_edits_is_refused_for_qwen_sessions() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0).answer("ok");
    let path = q.write(t.path(), "s.jsonl");
    let o = Opts {
        delivery: Some(DeliveryArg::CacheEdits),
        ..Default::default()
    };
    let e = mcscope::cli::setup(&path, &o).unwrap_err().to_string();
    assert!(e.contains("cache-edits"), "{e}");
    // A qwen count plan defaults to rewrite.
    let s = setup(&path, opts(KindArg::Count, 1));
    assert_eq!(s.policy.delivery, mcscope::policy::Delivery::Rewrite);
}

#[test]
fn preset_can_differ_from_the_harness() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0).answer("ok");
    let o = Opts {
        preset: Some(PresetArg::Qwen),
        ..Default::default()
    };
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    assert_eq!(s.policy.preset, mcscope::session::HarnessId::Qwen);
    assert!(s.policy.protect);
}

#[test]
fn claude_idle_resets_at_a_turn_start_whatever_the_delivery() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0)
        .bash("a", 100)
        .bash("b", 100)
        .bash("c", 100)
        .answer("ok");
    c.prompt("later", 70.0).bash("d", 100).answer("ok");
    c.prompt("soon", 1.0).answer("ok");
    let mut o = opts(KindArg::Idle, 2);
    o.delivery = Some(DeliveryArg::CacheEdits);
    let s = setup(&c.write(t.path(), "s.jsonl"), o);
    let p = last(&s);
    assert!(p.request.begins_turn);
    assert!(ids(&s, &p, Status::Cleared).is_empty());
    // ... and the wire deletes nothing either (the request is rebuilt from the originals).
    let k = s.session.requests.len();
    let wire = mcscope::analysis::wire_at(&s, k, mcscope::wire::Side::Wire).unwrap();
    assert!(!wire.to_string().contains("cache_edits"));
    // While the clearing was in force, its block was in the wire.
    let fired = mcscope::analysis::timeline(&s, k)
        .iter()
        .position(|st| st.fired())
        .unwrap()
        + 1;
    let wire = mcscope::analysis::wire_at(&s, fired, mcscope::wire::Side::Wire).unwrap();
    assert!(wire.to_string().contains("cache_edits"));
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
    o.trigger = Some(2);
    let s = setup(&path, o.clone());
    assert!(ids(&s, &last(&s), Status::Cleared).contains(&"E".to_string()));
    o.shared.no_clear_errors = true;
    let s = setup(&path, o);
    let p = last(&s);
    assert!(!ids(&s, &p, Status::Cleared).contains(&"E".to_string()));
    assert_eq!(status(&s, &p, "E"), Status::Kept);
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
    o.trigger = Some(1);
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

/// A plan at any request equals the timeline's step there (the plan may start its
/// engine later than request 1: it must not matter).
#[test]
fn plan_at_every_request_matches_the_timeline() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for sample in [
        "claude-demo.jsonl",
        "claude-size.jsonl",
        "qwen-memory/session.jsonl",
    ] {
        for kind in [KindArg::Idle, KindArg::Size, KindArg::Count, KindArg::Auto] {
            let o = Opts {
                policy: Some(kind),
                keep_recent: Some(1),
                gap_minutes: Some(0.0),
                size_threshold: Some(2000),
                trigger: Some(1),
                ..Default::default()
            };
            let s = setup(&root.join("sample-sessions").join(sample), o);
            let n = s.session.requests.len();
            let steps = mcscope::analysis::timeline(&s, n);
            for k in 1..=n {
                let p = plan(&s, k);
                assert_eq!(
                    p.step.cleared,
                    steps[k - 1].cleared,
                    "{sample} {kind:?} @{k}"
                );
                assert_eq!(
                    p.step.newly_cleared,
                    steps[k - 1].newly_cleared,
                    "{sample} {kind:?} @{k}"
                );
                assert_eq!(
                    p.step.fired(),
                    steps[k - 1].fired(),
                    "{sample} {kind:?} @{k}"
                );
            }
        }
    }
}
