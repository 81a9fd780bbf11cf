//! What budget takes: Claude's preset and rewrite only, its flags and sidecar keys, its caveats.

use super::*;

#[test]
fn budget_is_claude_preset_and_rewrite_only() {
    for args in [
        &[
            "plan",
            SAMPLE,
            "--policy",
            "budget",
            "--delivery",
            "cache-edits",
        ][..],
        &["plan", SAMPLE, "--policy", "budget", "--preset", "qwen"],
        &["timeline", MEMORY, "--policy", "budget"],
    ] {
        let (code, out, err) = mcscope(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        // The refusal, then one line saying what would work.
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(
            lines[0].contains("budget") && lines[0].contains("rewrite"),
            "{err}"
        );
        assert_eq!(
            lines[1], "  tip: budget runs with --preset claude and --delivery rewrite",
            "{err}"
        );
    }
}

#[test]
fn flags_and_sidecar_set_the_parameters() {
    let at7 = |extra: &[&str]| {
        let mut args = vec!["plan", SAMPLE, "--policy", "budget", "--at", "7"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        json(&args)
    };
    let ids = strs(&at7(&[])["cleared"]);
    // Budget 80,000: 122,000 → 100,000 (first) → 76,000 (second) ≤ 80,000: stop; 46,000 saved.
    let p = at7(&["--budget-tokens", "80000"]);
    assert_eq!(p["policy"]["budget_tokens"], 80_000);
    assert_eq!(newly_cleared(&p), ids[..2]);
    assert_eq!(p["metadata"]["tokens_saved"], 46_000);
    // The gate one above the recorded 138,439: no fire, and the note says which gate.
    let p = at7(&["--budget-warning", "138440"]);
    assert_eq!(p["policy"]["budget_warning_tokens"], 138_440);
    assert_eq!(p["fired"], false);
    assert_eq!(p["note"], "budget: usage 138,439 < 138,440");
    assert_eq!(
        p["metadata"]["pre_tokens"], 122_000,
        "computed even when it does not fire"
    );
    // The minimum saving one above 62,000: no fire; at 62,000 it fires.
    let p = at7(&["--budget-min-saving", "62001"]);
    assert_eq!(p["fired"], false);
    assert!(
        p["note"]
            .as_str()
            .unwrap()
            .ends_with("but clearing saves only 62,000 < 62,001 minimum"),
        "{}",
        p["note"]
    );
    assert_eq!(at7(&["--budget-min-saving", "62000"])["fired"], true);
    // keep 5: only the first result is outside the window; it alone saves 22,000.
    let p = at7(&["--keep-recent", "5"]);
    assert_eq!(p["policy"]["keep_recent"], 5);
    assert_eq!(newly_cleared(&p), ids[..1]);

    // The same keys in a sidecar.
    let t = tempfile::tempdir().unwrap();
    let copy = t.path().join("s.jsonl");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE), &copy).unwrap();
    std::fs::write(
        t.path().join("s.mcscope.json"),
        json!({"kind": "budget", "budget_tokens": 80000, "budget_min_saving": 1000,
               "budget_warning_tokens": 100000})
        .to_string(),
    )
    .unwrap();
    let p = json(&[
        "plan",
        copy.to_str().unwrap(),
        "--at",
        "6",
        "--format",
        "json",
    ]);
    assert_eq!(p["policy"]["kind"], "budget");
    assert_eq!(p["policy"]["budget_warning_tokens"], 100_000);
    // Request 6 (usage 118,368 ≥ 100,000): five results, 108,000 tokens; keep the last 3;
    // the first (22,000) → 86,000 > 80,000 → the second (24,000) → 62,000: 46,000 saved.
    assert_eq!(p["fired"], true, "{}", p["note"]);
    assert_eq!(p["metadata"]["pre_tokens"], 108_000);
    assert_eq!(newly_cleared(&p), ids[..2]);
}

#[test]
fn text_forms_say_the_caveats() {
    let (code, plan, _) = mcscope(&["plan", SAMPLE, "--at", "7"]);
    assert_eq!(code, 0);
    assert!(plan.contains("policy: auto -> budget"), "{plan}");
    assert!(
        plan.contains("caveat (claude_budget_kill_switch): "),
        "{plan}"
    );
    assert!(plan.contains("tengu_cache_plum_violet"));
    assert!(plan.contains("pre_tokens"));
    assert!(plan.contains("<persisted-output>"));
    let (_, tl, _) = mcscope(&["timeline", SAMPLE, "--policy", "idle"]);
    assert!(tl.contains("caveat (claude_idle_flag): "), "{tl}");
    assert!(tl.contains("tengu_slate_heron"));
    let (_, q, _) = mcscope(&["timeline", MEMORY]);
    assert!(
        q.contains("caveat (qwen_memory_pressure)") && q.contains("caveat (qwen_unseen_restart)")
    );
}

/// SPEC §15.6: an explicit delivery under auto applies to the kinds that take
/// it; budget takes rewrite only, so cache-edits on a 2.1.17 session is exit 2
/// naming the first request where auto runs budget. `--policy budget` says the same.
#[test]
fn auto_with_cache_edits_on_a_budget_version_is_exit_2_naming_the_request() {
    let (code, _, err) = mcscope(&["plan", SAMPLE, "--delivery", "cache-edits", "--at", "10"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("request 1: auto runs budget there (Claude Code 2.1.17)")
            && err.contains("delivery cache-edits"),
        "{err}"
    );
    // Under auto the delivery rewrite is budget's own: accepted.
    let (code, _, err) = mcscope(&["plan", SAMPLE, "--delivery", "rewrite", "--at", "10"]);
    assert_eq!(code, 0, "{err}");
}
