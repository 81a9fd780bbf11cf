//! `mcscope compare` through the real binary: rows of a file and a folder, auto rows, the sidecar.

use super::*;

#[test]
fn compare_on_a_sample_prints_sorted_rows_and_the_recommendation() {
    let v = json_of(&[
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(v["schema"], "mcscope.compare/1");
    assert_eq!(v["cache_ttl"], "auto");
    let rows = v["rows"].as_array().unwrap();
    // 93 and, since SPEC §15.23, claude's idle-server keep {5, 12, 24, 64};
    // the baseline first (SPEC §9a), outside the sort.
    assert_eq!(rows.len(), 98, "the baseline and the default claude grid");
    assert_eq!(rows[0]["baseline"], true);
    assert_eq!(rows[0]["policy"]["kind"], "recorded");
    let rows = &rows[1..];
    assert_eq!(v["sessions"][0]["price"]["prefix"], "claude-opus-4-6");
    for key in [
        "policy",
        "fires",
        "cleared_results",
        "tokens_not_sent",
        "cache_breaks",
        "tokens_rewritten",
        "later_used",
        "delta_usd",
        "per_session",
    ] {
        assert!(rows[0].get(key).is_some(), "rows[].{key}");
    }
    let usd: Vec<f64> = rows
        .iter()
        .map(|r| r["delta_usd"].as_f64().unwrap())
        .collect();
    assert!(
        usd.windows(2).all(|w| w[0] <= w[1]),
        "sorted by dollars: {usd:?}"
    );
    // The demo's idle keep 1 at 75.5 minutes clears 836 tokens at a cold request
    // whose last cache write was a 1-hour one (ttl_auto: 1h): 836 × 10 (opus-4-6
    // 1h write) / 1e6 = 0.00836 saved.
    let first = &rows[0];
    assert_eq!(first["tokens_not_sent"], 836);
    assert_eq!(first["delta_usd"].as_f64().unwrap(), -0.00836);
    // A 5-minute TTL asked for: 836 × 6.25 / 1e6 = 0.005225.
    let v5 = json_of(&[
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--cache-ttl",
        "5m",
        "--format",
        "json",
    ]);
    assert_eq!(v5["cache_ttl"], "5m");
    assert_eq!(v5["rows"][1]["delta_usd"].as_f64().unwrap(), -0.005225);
    assert_eq!(v["recommended"], 1);

    // One setting by lists; the same figures as the one-file timeline.
    let v = json_of(&[
        "compare",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1,2",
        "--gap-minutes",
        "60",
        "--format",
        "json",
    ]);
    let rows = &v["rows"].as_array().unwrap()[1..];
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["policy"]["keep_recent"], 1);
    let tl = json_of(&[
        "timeline",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "60",
        "--format",
        "json",
    ]);
    let not_sent: u64 = tl["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["in_wire_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(rows[0]["tokens_not_sent"].as_u64().unwrap(), not_sent);
    for key in [
        "in_wire_tokens",
        "cache_break",
        "tokens_rewritten",
        "warm",
        "cache_gap",
    ] {
        assert!(
            tl["requests"][0].get(key).is_some(),
            "timeline requests[].{key}"
        );
    }

    let (code, text, _) = mcscope(&["compare", "sample-sessions/claude-demo.jsonl", "--quiet"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("Recommended: row 1 (claude idle keep 1"),
        "{text}"
    );
    assert!(text.contains("median"), "{text}");
}

#[test]
fn compare_on_a_folder_sums_its_sessions_and_skips_sub_agents() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("proj-a");
    let b = dir.path().join("proj-b/deeper");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(b.join("subagents")).unwrap();
    let demo = root().join("sample-sessions/claude-demo.jsonl");
    std::fs::copy(&demo, a.join("one.jsonl")).unwrap();
    std::fs::copy(
        root().join("sample-sessions/claude-size.jsonl"),
        b.join("two.jsonl"),
    )
    .unwrap();
    std::fs::copy(&demo, b.join("subagents/agent-x.jsonl")).unwrap();
    std::fs::write(a.join("empty.jsonl"), "").unwrap();
    let args = |p: &str| {
        vec![
            "compare".to_string(),
            p.to_string(),
            "--policy".into(),
            "idle,size".into(),
            "--keep-recent".into(),
            "1,3".into(),
            "--gap-minutes".into(),
            "0".into(),
            "--size-threshold".into(),
            "2000".into(),
            "--format".into(),
            "json".into(),
            "--quiet".into(),
        ]
    };
    let run = |p: &Path| {
        let a = args(&p.display().to_string());
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        json_of(&a)
    };
    let folder = run(dir.path());
    let sessions: Vec<&str> = folder["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert!(
        sessions
            .iter()
            .all(|s| !s.contains("subagents") && !s.contains("empty"))
    );
    let one = run(&a.join("one.jsonl"));
    let two = run(&b.join("two.jsonl"));
    let find = |v: &Value, policy: &Value| -> Value {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["policy"]["kind"] == policy["kind"]
                    && r["policy"]["keep_recent"] == policy["keep_recent"]
            })
            .unwrap()
            .clone()
    };
    let rows = folder["rows"].as_array().unwrap();
    // The baseline and the four settings; the baseline sums like any row.
    assert_eq!(rows.len(), 5);
    for r in rows {
        let (x, y) = (find(&one, &r["policy"]), find(&two, &r["policy"]));
        for key in [
            "fires",
            "cleared_results",
            "tokens_not_sent",
            "cache_breaks",
            "tokens_rewritten",
            "later_used",
        ] {
            assert_eq!(
                r[key].as_u64().unwrap(),
                x[key].as_u64().unwrap() + y[key].as_u64().unwrap(),
                "{key} of {}",
                r["policy"]
            );
        }
        let sum = x["delta_usd"].as_f64().unwrap() + y["delta_usd"].as_f64().unwrap();
        assert!((r["delta_usd"].as_f64().unwrap() - sum).abs() < 2e-6);
        assert_eq!(r["per_session"].as_array().unwrap().len(), 2);
    }
    let (code, text, _) = mcscope(&[
        "compare",
        &dir.path().display().to_string(),
        "--policy",
        "idle",
        "--quiet",
    ]);
    assert_eq!(code, 0);
    assert!(text.starts_with("2 sessions"), "{text}");
    // SPEC §9a: no idle setting fires at gap 60 here, and a setting that never
    // fires is never recommended.
    assert!(
        text.contains("no clearing recommended: no setting you can use saves money here"),
        "{text}"
    );
}

/// SPEC §15.6: an `auto` row's `policy` holds what the kinds auto chose used,
/// over every session of the row; a value they differ on, or that one of them
/// does not read, is null.
#[test]
fn s15_6_an_auto_row_s_policy_is_what_auto_s_kinds_used_over_every_session() {
    let auto_row = |path: &Path| -> Value {
        let p = path.to_str().unwrap();
        let v = json_of(&["compare", p, "--policy", "auto", "--format", "json"]);
        let rows = v["rows"].as_array().unwrap();
        let auto: Vec<&Value> = rows
            .iter()
            .filter(|r| r["policy"]["kind"] == "auto")
            .collect();
        assert_eq!(auto.len(), 1, "{v}");
        auto[0]["policy"].clone()
    };
    let budget = root().join("sample-sessions/claude-budget.jsonl");
    let server = root().join("sample-sessions/claude-idle-server.jsonl");
    // Budget alone (2.1.14–2.1.22): its keep 3 and its values; it reads no
    // gap, size or trigger.
    let one = auto_row(&budget);
    for (key, want) in [
        ("keep_recent", json!(3)),
        ("gap_threshold_minutes", Value::Null),
        ("size_threshold", Value::Null),
        ("trigger_threshold", Value::Null),
        ("budget_tokens", json!(40000)),
        ("budget_min_saving", json!(20000)),
        ("budget_warning_tokens", json!(135000)),
        ("min_trigger_tool_uses", Value::Null),
        ("delivery", json!("rewrite")),
    ] {
        assert_eq!(one[key], want, "{key}: {one}");
    }
    // With an idle-server session: keep 3 and 12, budget's values read by
    // one kind only, delivery rewrite and server.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&budget, dir.path().join("a.jsonl")).unwrap();
    std::fs::copy(&server, dir.path().join("b.jsonl")).unwrap();
    let both = auto_row(dir.path());
    for key in [
        "keep_recent",
        "gap_threshold_minutes",
        "budget_tokens",
        "budget_warning_tokens",
        "min_trigger_tool_uses",
        "delivery",
    ] {
        assert_eq!(both[key], Value::Null, "{key}: {both}");
    }
}

#[test]
fn an_unknown_model_has_null_dollars_and_says_so() {
    let v = json_of(&[
        "compare",
        "sample-sessions/qwen-memory/session.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(v["sessions"][0]["price"], Value::Null);
    assert_eq!(v["rows"][1]["delta_usd"], Value::Null);
    assert!(
        v["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "price_unknown")
    );
    let v = json_of(&[
        "compare",
        "sample-sessions/qwen-memory/session.jsonl",
        "--policy",
        "idle",
        "--price-input",
        "1",
        "--price-write-5m",
        "1.25",
        "--price-write-1h",
        "2",
        "--price-read",
        "0.1",
        "--format",
        "json",
    ]);
    assert_eq!(v["sessions"][0]["price"]["write_5m"], 1.25);
    assert!(v["rows"][1]["delta_usd"].is_number());
}

#[test]
fn the_sidecar_sets_the_cache_ttl_and_timeline_text_shows_the_cache_column() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("demo.jsonl");
    std::fs::copy(root().join("sample-sessions/claude-demo.jsonl"), &copy).unwrap();
    std::fs::write(
        dir.path().join("demo.mcscope.json"),
        r#"{"cache_ttl": "5m"}"#,
    )
    .unwrap();
    let p = copy.display().to_string();
    let v = json_of(&[
        "compare",
        &p,
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "60",
        "--format",
        "json",
    ]);
    assert_eq!(v["cache_ttl"], "5m");
    // 836 tokens not sent at a cold request, 5-minute write rate 6.25 → -0.005225.
    assert_eq!(v["rows"][1]["delta_usd"].as_f64().unwrap(), -0.005225);
    // The flag wins over the sidecar.
    let v = json_of(&[
        "compare",
        &p,
        "--policy",
        "idle",
        "--cache-ttl",
        "1h",
        "--format",
        "json",
    ]);
    assert_eq!(v["cache_ttl"], "1h");

    let (code, text, err) = mcscope(&[
        "timeline",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "60",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("CACHE"), "{text}");
    // Request 1 is cold, 2..5 follow within seconds (kept), 6 after 75 minutes is cold.
    let cache: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| l.split_whitespace().nth(11).unwrap())
        .collect();
    assert_eq!(
        cache,
        vec!["cold", "kept", "kept", "kept", "kept", "cold"],
        "{text}"
    );
    assert!(
        text.contains(
            "totals: 1 fires, 3 results cleared, 836 tokens not sent, 0 cache breaks while warm"
        ),
        "{text}"
    );
    let plan = json_of(&[
        "plan",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "idle",
        "--keep-recent",
        "1",
        "--gap-minutes",
        "60",
        "--format",
        "json",
    ]);
    assert_eq!(plan["metadata"]["in_wire_tokens"], 836);
}

/// SPEC §9 and issue 22 item 4: `--keep-recent` multiplies the budget plan,
/// which reads keep (its plan's `reads`): each row runs its own keep, and
/// the rows differ where the keep does.
#[test]
fn keep_recent_multiplies_the_budget_plan_that_reads_it() {
    let v = common::bin::json(&[
        "compare",
        "sample-sessions/claude-budget.jsonl",
        "--policy",
        "budget",
        "--keep-recent",
        "2,5",
        "--format",
        "json",
    ]);
    let rows: Vec<&serde_json::Value> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["policy"]["kind"] == "budget")
        .collect();
    let mut keeps: Vec<u64> = rows
        .iter()
        .map(|r| r["policy"]["keep_recent"].as_u64().unwrap())
        .collect();
    keeps.sort_unstable();
    assert_eq!(keeps, [2, 5]);
    assert_ne!(rows[0]["cleared_results"], rows[1]["cleared_results"]);
}
