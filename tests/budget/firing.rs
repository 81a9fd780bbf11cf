//! Built sessions: budget at a turn start, its memory across turns, and what it may not clear.

use super::*;

#[test]
fn firing_at_a_turn_start_is_silent() {
    // Requests: 1 prompt, 2–5 the results of A–D, 6 the new prompt (begins a turn), whose
    // view's last usage is the answer's 150,000 ≥ 147,000 (2.1.88: the later threshold).
    // Eligible A–D = 80,000 tokens; keep B, C, D; clearing A leaves 60,000: saves 20,000,
    // exactly the minimum. Requests 2–5 see usage 115 and do not fire.
    let t = tempfile::tempdir().unwrap();
    let path = turn_start_session(150_000).write(t.path(), "s.jsonl");
    let path = path.to_str().unwrap();
    let tl = json(&["timeline", path, "--policy", "budget", "--format", "json"]);
    let rows = tl["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for r in &rows[..5] {
        assert_eq!(r["fired"], false, "request {}", r["index"]);
        assert_eq!(r["silent"], false);
    }
    assert_eq!(rows[5]["begins_turn"], true);
    assert_eq!(rows[5]["fired"], true);
    assert_eq!(rows[5]["silent"], true);
    assert_eq!(strs(&rows[5]["newly_cleared"]), ["A"]);
    let p = json(&["plan", path, "--policy", "budget", "--format", "json"]);
    assert_eq!(p["request"]["silent"], true);
    assert_eq!(p["request"]["version"], "2.1.88");
    let (_, text, _) = mcscope(&["plan", path, "--policy", "budget"]);
    assert!(
        text.contains("silent: budget fired at a turn start"),
        "{text}"
    );
    // One token under 2.1.88's gate: nothing fires anywhere.
    let under = turn_start_session(146_999).write(t.path(), "u.jsonl");
    let p = json(&[
        "plan",
        under.to_str().unwrap(),
        "--policy",
        "budget",
        "--format",
        "json",
    ]);
    assert_eq!(p["fired"], false);
    assert_eq!(p["note"], "budget: usage 146,999 < 147,000");
    assert_eq!(p["request"]["silent"], false);
    // An explicit gate holds at exactly the recorded usage.
    let p = json(&[
        "plan",
        path,
        "--policy",
        "budget",
        "--budget-warning",
        "150000",
        "--format",
        "json",
    ]);
    assert_eq!(p["fired"], true);
    let p = json(&[
        "plan",
        path,
        "--policy",
        "budget",
        "--budget-warning",
        "150001",
        "--format",
        "json",
    ]);
    assert_eq!(p["fired"], false);
}

#[test]
fn memory_is_cumulative_across_a_turn_start_and_reset_by_a_compaction() {
    // Results of 4,000 chars (1,000 tokens); budget 1,500, min saving 500, keep 2, and a gate
    // of 100 that the builder's usage (115) always passes.
    //  1 prompt · 2 A → [A] 1,000 ≤ 1,500 · 3 B → [A B] 2,000, both kept: saves 0
    //  4 C → [A B C], keep B C: A (2,000 left) fires · 5 D → [B C D] (A cleared is no longer
    //  counted), keep C D: B (2,000 left) fires · 6 new prompt: [C D] both kept, no fire, and
    //  A, B stay cleared · compaction · 7 summary + prompt: no usage in the view, nothing
    //  cleared · 8 E · 9 F · 10 G → [E F G], keep F G: E fires; A and B are long gone.
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 4_000);
    }
    c.answer("done");
    c.prompt("and again", 1.0);
    c.answer("ok");
    c.boundary();
    c.prompt("continue", 0.0);
    for id in ["E", "F", "G"] {
        c.bash(id, 4_000);
    }
    c.answer("done again");
    let t = tempfile::tempdir().unwrap();
    let path = c.write(t.path(), "s.jsonl");
    let tl = json(&[
        "timeline",
        path.to_str().unwrap(),
        "--policy",
        "budget",
        "--budget-tokens",
        "1500",
        "--budget-min-saving",
        "500",
        "--budget-warning",
        "100",
        "--keep-recent",
        "2",
        "--format",
        "json",
    ]);
    let rows = tl["requests"].as_array().unwrap();
    let col = |key: &str| -> Vec<Vec<String>> { rows.iter().map(|r| strs(&r[key])).collect() };
    let v = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let e: Vec<String> = Vec::new();
    assert_eq!(
        col("newly_cleared"),
        [
            e.clone(),
            e.clone(),
            e.clone(),
            v(&["A"]),
            v(&["B"]),
            e.clone(),
            e.clone(),
            e.clone(),
            e.clone(),
            v(&["E"])
        ]
    );
    assert_eq!(
        col("cleared"),
        [
            e.clone(),
            e.clone(),
            e.clone(),
            v(&["A"]),
            v(&["A", "B"]),
            v(&["A", "B"]),
            e.clone(),
            e.clone(),
            e.clone(),
            v(&["E"])
        ]
    );
    assert_eq!(rows[5]["begins_turn"], true);
    let notes: Vec<&str> = rows.iter().map(|r| r["note"].as_str().unwrap()).collect();
    assert!(
        notes[1].contains("1,000 tokens of results ≤ 1,500"),
        "{}",
        notes[1]
    );
    assert!(
        notes[2].ends_with("clearing saves only 0 < 500 minimum"),
        "{}",
        notes[2]
    );
    assert!(
        notes[6].contains("no recorded usage in the view"),
        "{}",
        notes[6]
    );
    // At request 5 the pre_tokens are B + C + D: the cleared A is not counted again.
    let p = json(&[
        "plan",
        path.to_str().unwrap(),
        "--policy",
        "budget",
        "--budget-tokens",
        "1500",
        "--budget-min-saving",
        "500",
        "--budget-warning",
        "100",
        "--keep-recent",
        "2",
        "--at",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(p["metadata"]["pre_tokens"], 3_000);
    assert_eq!(p["metadata"]["tokens_saved"], 1_000);
    // Idle, by contrast, lapses at the turn start (SPEC §5 persistence).
    let idle = json(&[
        "plan",
        path.to_str().unwrap(),
        "--policy",
        "idle",
        "--gap-minutes",
        "0",
        "--at",
        "6",
        "--format",
        "json",
    ]);
    assert_eq!(idle["policy"]["keep_recent"], 5, "idle's own default");
    assert_eq!(idle["metadata"]["pre_tokens"], Value::Null);
}

#[test]
fn protected_reads_and_powershell_are_not_eligible() {
    // M: a Read of a memory file (2,000 tokens, protected with --protect); P: PowerShell
    // (2,000 tokens, never eligible); A–D: Bash, 1,000 tokens each. Gate 100, budget 1,500,
    // min saving 500, keep 2. Were M counted, request 2 would already see 2,000 > 1,500.
    //  2 M → [] · 3 P → [] · 4 A → [A] 1,000 · 5 B → [A B] both kept · 6 C → keep B C, A goes
    //  7 D → [B C D] = 3,000, keep C D: B goes (2,000 left; the walk stops at C, in the window).
    let t = tempfile::tempdir().unwrap();
    let mem = t.path().join("mem");
    std::fs::create_dir(&mem).unwrap();
    let notes = mem.join("notes.md");
    std::fs::write(&notes, "remember").unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    c.call("M", "Read", json!({"file_path": notes.to_str().unwrap()}))
        .result("M", &"m".repeat(8_000));
    c.call("P", "PowerShell", json!({"command": "Get-ChildItem"}))
        .result("P", &"p".repeat(8_000));
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 4_000);
    }
    c.answer("done");
    let path = c.write(t.path(), "s.jsonl");
    let root = format!("project={}", mem.display());
    let args = |extra: &[&str]| {
        let mut a = vec![
            "timeline",
            path.to_str().unwrap(),
            "--policy",
            "budget",
            "--budget-tokens",
            "1500",
            "--budget-min-saving",
            "500",
            "--budget-warning",
            "100",
            "--keep-recent",
            "2",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let tl = args(&["--protect", "--memory-root", &root]);
    let newly: Vec<Vec<String>> = tl["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| strs(&r["newly_cleared"]))
        .collect();
    let e: Vec<String> = Vec::new();
    assert_eq!(
        newly,
        [
            e.clone(),
            e.clone(),
            e.clone(),
            e.clone(),
            e.clone(),
            vec!["A".to_string()],
            vec!["B".to_string()]
        ]
    );
    let mut plan_args = vec![
        "plan",
        path.to_str().unwrap(),
        "--policy",
        "budget",
        "--budget-tokens",
        "1500",
        "--budget-min-saving",
        "500",
        "--budget-warning",
        "100",
        "--keep-recent",
        "2",
        "--protect",
        "--memory-root",
        &root,
        "--format",
        "json",
    ];
    let p = json(&plan_args);
    assert_eq!(
        p["metadata"]["pre_tokens"], 3_000,
        "B + C + D; not M, not P"
    );
    assert_eq!(strs(&p["protected"]), ["M"]);
    let ps = p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == "P")
        .unwrap();
    assert_eq!(ps["status"], "kept");
    assert!(
        ps["reason"].as_str().unwrap().contains("PowerShell"),
        "{ps}"
    );
    // Without protection M is eligible: at request 2 its 2,000 tokens are over the budget
    // (but it is in the keep window), and at the end it is the oldest and goes first.
    plan_args.retain(|a| *a != "--protect");
    plan_args.push("--no-protect");
    let p = json(&plan_args);
    assert!(
        strs(&p["cleared"]).contains(&"M".to_string()),
        "{}",
        p["cleared"]
    );
}
