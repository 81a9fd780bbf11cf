//! The recorded version decides: auto's row, per-request versions, thresholds, a new process.

use super::*;

/// A one-turn session (three Bash results) whose records carry `version`.
fn versioned(v: Option<&str>) -> Claude {
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    for id in ["A", "B", "C"] {
        c.bash(id, 400);
    }
    c.answer("done");
    set_version(&mut c, v);
    c
}

/// SPEC §13.T1–T3 and §15.9: auto runs the kind of the version's row; the
/// rows without clearing and versions before 2.0.0 run nothing.
#[test]
fn t1_auto_chooses_by_version_row() {
    let t = tempfile::tempdir().unwrap();
    for (i, (version, row, kind)) in [
        (Some("2.0.0"), "2.0.0-2.1.63", Some("budget")),
        (Some("2.1.17"), "2.0.0-2.1.63", Some("budget")),
        (Some("2.1.63"), "2.0.0-2.1.63", Some("budget")),
        (Some("2.1.70"), "2.1.64-2.1.83", None),
        (Some("2.1.87"), "2.1.84-2.1.104", Some("idle")),
        (Some("2.1.88"), "2.1.84-2.1.104", Some("idle")),
        (Some("2.1.114"), "2.1.105-2.1.284", None),
        (Some("1.0.128"), "before-2.0.0", None),
        (None, "unknown", Some("idle")),
    ]
    .into_iter()
    .enumerate()
    {
        let path = versioned(version).write(t.path(), &format!("v{i}.jsonl"));
        let p = json(&["plan", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(p["request"]["version"], json!(version));
        assert_eq!(p["request"]["version_row"], row, "{version:?}");
        assert_eq!(p["request"]["plan_kind"], json!(kind), "{version:?}");
        let (keep, caveats): (Value, &[&str]) = match (kind, version) {
            (Some("budget"), _) => (json!(3), &["claude_budget_kill_switch"]),
            (Some(_), None) => (json!(5), &["claude_idle_flag", "claude_version_unknown"]),
            (Some(_), _) => (json!(5), &["claude_idle_flag"]),
            (None, Some("2.1.114")) => (Value::Null, &["claude_context_hint", "claude_auto_none"]),
            (None, Some("1.0.128")) => (Value::Null, &["claude_version_unknown"]),
            (None, _) => (Value::Null, &["claude_auto_none"]),
        };
        assert_eq!(p["policy"]["keep_recent"], keep, "{version:?}");
        assert_eq!(caveat_ids(&p), caveats, "{version:?}");
        assert_eq!(
            p["metadata"]["pre_tokens"].is_null(),
            kind != Some("budget"),
            "{version:?}"
        );
        if kind.is_none() {
            // SPEC §13.T2: the no-plan outcome.
            assert_eq!(p["fired"], false);
            assert_eq!(p["trigger"], Value::Null);
            assert_eq!(p["metadata"]["tokens_saved"], 0);
            assert_eq!(p["request"]["harness_could_run"], Value::Null);
            assert_eq!(p["request"]["harness_could_run_reason"], "no_plan");
            // SPEC §15.6: no kind chosen at K: the values it would use are null.
            assert_eq!(p["policy"]["gap_threshold_minutes"], Value::Null);
            assert_eq!(p["policy"]["delivery"], Value::Null);
            assert_eq!(p["policy"]["min_trigger_tool_uses"], Value::Null);
        }
        // An explicit keep_recent is printed whatever kind runs.
        let p = json(&[
            "plan",
            path.to_str().unwrap(),
            "--keep-recent",
            "4",
            "--format",
            "json",
        ]);
        assert_eq!(p["policy"]["keep_recent"], 4);
    }
}

#[test]
fn version_is_per_request_and_mixed_auto_has_no_single_keep() {
    // Turn 1 on 2.1.63 (auto: budget), turn 2 on 2.1.88 after an upgrade (auto: idle).
    let mut c = versioned(Some("2.1.63"));
    let mut later = Claude::default();
    later.prompt("after the upgrade", 90.0);
    later.answer("hi");
    set_version(&mut later, Some("2.1.88"));
    c.lines.extend(later.lines);
    let t = tempfile::tempdir().unwrap();
    let path = c.write(t.path(), "mixed.jsonl");
    let path = path.to_str().unwrap();
    let tl = json(&["timeline", path, "--format", "json"]);
    let versions: Vec<&str> = tl["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["version"].as_str().unwrap())
        .collect();
    // Request 5 is the new prompt: the last record before it is its own 2.1.88 prompt.
    assert_eq!(versions, ["2.1.63", "2.1.63", "2.1.63", "2.1.63", "2.1.88"]);
    let kinds: Vec<&str> = tl["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["plan_kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["budget", "budget", "budget", "budget", "idle"]);
    assert_eq!(
        tl["policy"]["keep_recent"],
        Value::Null,
        "budget 3 and idle 5"
    );
    assert_eq!(
        caveat_ids(&tl),
        ["claude_idle_flag", "claude_budget_kill_switch"]
    );
    let first = json(&["plan", path, "--at", "1", "--format", "json"]);
    assert_eq!(first["policy"]["keep_recent"], 3);
    let last = json(&["plan", path, "--format", "json"]);
    assert_eq!(last["policy"]["keep_recent"], 5);
    let e = json(&["explain", path, "A", "--format", "json"]);
    assert_eq!(
        caveat_ids(&e),
        ["claude_idle_flag", "claude_budget_kill_switch"]
    );
}

#[test]
fn the_warning_threshold_follows_the_version() {
    // Usage 140,000: over 2.1.20's 135,000, under 2.1.21's (and no version's) 147,000.
    let t = tempfile::tempdir().unwrap();
    for (i, (version, fires)) in [
        (Some("2.1.20"), true),
        (Some("2.1.21"), false),
        (None, false),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = turn_start_session(140_000);
        set_version(&mut c, version);
        let path = c.write(t.path(), &format!("w{i}.jsonl"));
        let p = json(&[
            "plan",
            path.to_str().unwrap(),
            "--policy",
            "budget",
            "--format",
            "json",
        ]);
        assert_eq!(p["fired"], fires, "{version:?}: {}", p["note"]);
    }
}

#[test]
fn qwen_requests_carry_their_version_and_qwen_caveats() {
    // Every record of the qwen sample says 0.15.6 (counted here from the file itself).
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(MEMORY)).unwrap();
    let versions: std::collections::BTreeSet<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["version"].as_str().map(str::to_string))
        .collect();
    assert_eq!(versions.len(), 1);
    let v = versions.into_iter().next().unwrap();
    let t = json(&["timeline", MEMORY, "--format", "json"]);
    for r in t["requests"].as_array().unwrap() {
        assert_eq!(r["version"], v.as_str());
        assert_eq!(r["silent"], false);
    }
    assert_eq!(
        caveat_ids(&t),
        ["qwen_memory_pressure", "qwen_unseen_restart"]
    );
    let p = json(&["plan", MEMORY, "--format", "json"]);
    assert_eq!(p["request"]["version"], v.as_str());
    assert_eq!(p["metadata"]["pre_tokens"], Value::Null);
}

/// SPEC §15.9: a change of the recorded version is a new process: budget's
/// remembered ids are forgotten there and the originals go out again.
#[test]
fn a_new_version_forgets_budgets_remembered_ids() {
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    // From the prompt of request 8 (10:16:35) on, the records say 2.1.18.
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut r: Value = serde_json::from_str(l).unwrap();
            let late = r["timestamp"]
                .as_str()
                .is_some_and(|t| t >= "2026-02-03T10:16");
            if late && r.get("version").is_some() {
                r["version"] = json!("2.1.18");
            }
            r.to_string()
        })
        .collect();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("upgraded.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let tl = json(&["timeline", path.to_str().unwrap(), "--format", "json"]);
    let reqs = tl["requests"].as_array().unwrap();
    let cleared = |k: usize| strs(&reqs[k - 1]["cleared"]).len();
    assert_eq!(reqs[7]["version"], "2.1.18");
    assert_eq!(cleared(7), 3, "budget fired at 7");
    assert_eq!((cleared(8), cleared(10)), (0, 0), "forgotten from 8 on");
    // The same session on one version remembers them (the sample itself).
    let tl = json(&["timeline", SAMPLE, "--format", "json"]);
    assert_eq!(strs(&tl["requests"][9]["cleared"]).len(), 3);
}
