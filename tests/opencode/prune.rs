//! When prune runs (reference §2.2, §2.5, §4): after a finished loop, the worked example.

use super::*;

/// Reference §2.2: a prompt sent while the loop runs joins it (1.18.33: the
/// loop reads it at its next step, `lastUser.id < lastAssistant.id` fails), so
/// no prune runs between; nor after a compaction's summary that a synthetic
/// continue follows. And the summary request sends the summarizer's prompt (no
/// tools, no system prompt in 1.18.33), so its cache break is the compaction's.
#[test]
fn s2_2_a_queued_prompt_joins_the_loop_and_the_summary_s_break_is_the_compaction_s() {
    let mut db = Db::new();
    db.session("ses_q", None, None);
    turn_one(&mut db, "ses_q");
    let u2 = db.user("ses_q", "turn 2");
    db.assistant("ses_q", &u2, json!({}), vec![text("ok")]);
    let u3 = db.user("ses_q", "turn 3");
    let a3 = db.assistant("ses_q", &u3, json!({}), vec![text("ok")]);
    // Typed while turn 3's answer was still streaming.
    let u4 = db.user("ses_q", "queued");
    let done = db.time(&a3, "completed");
    db.conn
        .execute(
            "UPDATE message SET data = json_set(data, '$.time.created', ?1) WHERE id = ?2",
            rusqlite::params![done - 1, u4],
        )
        .unwrap();
    db.assistant("ses_q", &u4, json!({}), vec![text("ok")]);
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    // Requests: 1–3 turn 1, 4 turn 2, 5 turn 3, 6 the queued prompt (same loop).
    assert_eq!(reqs.len(), 6);
    assert_eq!(reqs[5]["fired"], false, "{}", reqs[5]["note"]);
    assert!(
        reqs[5]["note"]
            .as_str()
            .unwrap()
            .contains("none ended just before")
    );
    // Not queued: loop 3 ended, and the scan takes turn 1's results.
    db.conn
        .execute(
            "UPDATE message SET data = json_set(data, '$.time.created', ?1) WHERE id = ?2",
            rusqlite::params![done + 1, u4],
        )
        .unwrap();
    let t = timeline(db.p(), &["--policy", "prune"]);
    assert_eq!(t["requests"][5]["newly_cleared"], json!(["old"]));

    // The summary request reads nothing from the cache.
    let mut db = Db::new();
    db.session("ses_s", None, None);
    let u1 = db.user("ses_s", "turn 1");
    let big = json!({"tokens": {"input": 3, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 50000}}});
    db.assistant("ses_s", &u1, big, vec![text("one")]);
    compaction(&mut db, "ses_s", false);
    let t = timeline(db.p(), &[]);
    let b = &t["requests"][1]["evidence"]["observed_break"];
    assert_eq!(b["explanations"], json!(["compaction"]), "{b}");
}

/// Reference §4, the worked example's extension: after turn 3 prune scans
/// grep (2,000, protected), bash (60,000: total 62,000 > 40,000) and read
/// (500): 60,500 > 20,000, so the bash and the read are marked; request 8,
/// the first of turn 4, sends the placeholder for both; the grep stays.
#[test]
fn s4_the_worked_example_prunes_the_bash_and_the_read() {
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<usize> = reqs
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(fired, [8]);
    assert_eq!(reqs[7]["trigger"], "prune");
    assert_eq!(reqs[7]["tokens_saved"], 60_500);
    let mut cleared: Vec<String> = reqs[7]["newly_cleared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    cleared.sort();
    assert_eq!(
        cleared,
        [
            "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD",
            "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"
        ]
    );
    let mut wire = placeholders(SAMPLE, &["--policy", "prune"], 8);
    wire.sort();
    assert_eq!(wire, cleared);
    assert!(placeholders(SAMPLE, &["--policy", "prune"], 7).is_empty());
    // The grep is kept: within the newest 40,000 tokens.
    let plan = bin::json(&["plan", SAMPLE, "--policy", "prune", "--at", "8", "-j"]);
    let grep = plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_01Rc7Vn2Hs5Qw8Lm1Xk4PzTb")
        .unwrap()
        .clone();
    assert_eq!(grep["status"], "kept", "{grep}");
    assert_eq!(grep["est_tokens"], 2000, "{grep}");
    // SPEC §15.13: OpenCode's own estimate beside mcscope's.
    assert_eq!(grep["harness_tokens"], 2000, "{grep}");
    assert!(
        grep["reason"].as_str().unwrap().contains("newest 40,000"),
        "{grep}"
    );
}

/// Reference §2.2 "It runs once per finished prompt loop": never at a request
/// that continues a loop, and its marks show from the next turn's first request.
#[test]
fn s2_2_prune_runs_after_a_loop_so_it_changes_the_next_turn() {
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    for r in t["requests"].as_array().unwrap() {
        if r["begins_turn"] == false {
            assert_eq!(r["fired"], false);
            assert!(r["note"].as_str().unwrap().contains("continues one"), "{r}");
        }
    }
}

/// Reference §2.2 "once per finished prompt loop" (1.18.33: `prune` is forked
/// after the loop; a cancel interrupts the loop's fiber, so no prune follows an
/// aborted loop), and §2.3 "every user message counts", those there when the
/// loop ended: a prompt that came later (one that got no reply) is not.
#[test]
fn s2_2_no_prune_after_an_interrupted_loop_and_later_prompts_are_not_counted() {
    for aborted in [true, false] {
        let mut db = Db::new();
        db.session("ses_u", None, None);
        let u1 = db.user("ses_u", "turn 1");
        db.assistant(
            "ses_u",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(25_000))],
        );
        db.assistant(
            "ses_u",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_u", &u1, json!({}), vec![text("done")]);
        let u2 = db.user("ses_u", "turn 2");
        db.assistant("ses_u", &u2, json!({}), vec![text("ok")]);
        let u3 = db.user("ses_u", "turn 3");
        let end = if aborted {
            json!({"finish": null, "error": {"name": "MessageAbortedError", "data": {"message": "Aborted"}}})
        } else {
            json!({})
        };
        db.assistant("ses_u", &u3, end, vec![text("half")]);
        // A prompt that got no reply, then the next one.
        db.user("ses_u", "no reply");
        let u5 = db.user("ses_u", "turn 5");
        db.assistant("ses_u", &u5, json!({}), vec![text("ok")]);
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        assert_eq!(reqs.len(), 6);
        // Request 6: after loop 3 (when it finished) the scan passes turn 3's
        // prompt and turn 2's, and takes turn 1's results: "old" goes. The
        // prompt with no reply came after that loop: not counted.
        let r6 = &reqs[5];
        assert_eq!(r6["fired"], !aborted, "aborted {aborted}: {}", r6["note"]);
        if aborted {
            assert!(
                r6["note"]
                    .as_str()
                    .unwrap()
                    .contains("none ended just before"),
                "{}",
                r6["note"]
            );
        } else {
            assert_eq!(r6["newly_cleared"], json!(["old"]));
        }
    }
}

/// SPEC §15.13: the thresholds are parameters (`--prune-protect`,
/// `--prune-minimum`, keys `prune_protect_tokens` / `prune_minimum_tokens`),
/// defaults 40,000 and 20,000 (reference §2.5: constants in OpenCode).
#[test]
fn s2_5_the_thresholds_are_parameters_with_opencode_s_defaults() {
    let fired_at_8 = |extra: &[&str]| {
        let mut args = vec!["--policy", "prune"];
        args.extend_from_slice(extra);
        timeline(SAMPLE, &args)["requests"][7]["fired"] == true
    };
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    assert_eq!(t["policy"]["prune_protect_tokens"], 40_000);
    assert_eq!(t["policy"]["prune_minimum_tokens"], 20_000);
    // 62,500 in all: all protected under 70,000.
    assert!(!fired_at_8(&["--prune-protect", "70000"]));
    // 60,500 prunable: the minimum is strict.
    assert!(!fired_at_8(&["--prune-minimum", "60500"]));
    assert!(fired_at_8(&["--prune-minimum", "60499"]));
    let t = timeline(SAMPLE, &["--policy", "prune", "--prune-protect", "70000"]);
    assert_eq!(t["policy"]["prune_protect_tokens"], 70_000);
    // A Claude session's policy has no such keys.
    let c = bin::json(&["timeline", "sample-sessions/claude-demo.jsonl", "-j"]);
    assert!(c["policy"].get("prune_protect_tokens").is_none());
}
