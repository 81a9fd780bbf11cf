//! Idle, window and forced plans: when they fire and how long their clearings last.

use super::*;

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
    o.given.read("--gap-minutes", "30.0").unwrap();
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
    o.given.read("--gap-minutes", "-1.0").unwrap();
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
fn qwen_auto_picks_idle_at_an_idle_turn_and_size_otherwise() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0)
        .shell("A", 400)
        .shell("B", 400)
        .answer("ok");
    q.prompt("soon", 1.0).shell("C", 400).answer("ok");
    q.prompt("later", 90.0).answer("ok");
    let mut o = Opts::default()
        .with("--keep-recent", "1")
        .with("--size-threshold", "1000");
    o.given.read("--policy", "auto").unwrap();
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
    o.given.read("--delivery", "cache-edits").unwrap();
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
