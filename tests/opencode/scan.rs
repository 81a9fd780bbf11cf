//! Prune's scan (reference §2.3–§2.4): protected turns, candidates, and where it stops.

use super::*;

/// `plan --at k` says at every request what the timeline says there (whether
/// it fired, and why): prune's memory spans views, so a plan that starts at its
/// view would forget the marks made before it.
fn plans_agree_with_timeline(path: &str, extra: &[&str]) {
    let mut args = vec!["timeline", path, "-j"];
    args.extend_from_slice(extra);
    let t = bin::json(&args);
    for r in t["requests"].as_array().unwrap() {
        let at = r["index"].to_string();
        let mut args = vec!["plan", path, "--at", &at, "-j"];
        args.extend_from_slice(extra);
        let plan = bin::json(&args);
        assert_eq!(plan["fired"], r["fired"], "request {at}: {}", plan["note"]);
        assert_eq!(plan["note"], r["note"], "request {at}");
    }
}

/// Reference §2.3 over a 1.18 retained tail: the scan reads messages in their
/// stored order, so a retained result is met before the compaction, behind the
/// summary once the summary is past two user messages, even though the view
/// sends its copy after the summary.
#[test]
fn s2_3_a_retained_tail_is_scanned_in_its_stored_place() {
    let mut db = Db::new();
    db.session("ses_r", None, None);
    let u1 = db.user("ses_r", "turn 1");
    db.assistant(
        "ses_r",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant("ses_r", &u1, json!({}), vec![text("one")]);
    let u2 = db.user("ses_r", "turn 2");
    db.assistant(
        "ses_r",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![tool("big", "bash", &out(30_000))],
    );
    db.assistant("ses_r", &u2, json!({}), vec![text("two")]);
    let n = db.next();
    let c = id("msg", n);
    db.message(
        "ses_r",
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_r",
        &c,
        n + 1,
        json!({"type": "compaction", "auto": false, "tail_start_id": u2}),
    );
    db.assistant(
        "ses_r",
        &c,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u4 = db.user("ses_r", "turn 4");
    db.assistant(
        "ses_r",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "read", &out(40_000))],
    );
    db.assistant("ses_r", &u4, json!({}), vec![text("four")]);
    for turn in ["turn 5", "turn 6", "turn 7"] {
        let u = db.user("ses_r", turn);
        db.assistant("ses_r", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
    // Request 8 (turn 5): the scan passes turn 4's prompt and the compaction's,
    // skips the summary, counts "big" (30,000, protected) and goes on to "old"
    // in the view before: 25,000 > 20,000 marked there. At 10 (turn 7) the
    // summary is past two user messages: "new" (40,000) alone is counted, and
    // "big" is behind the summary.
    assert_eq!(
        fired,
        [
            false, false, false, false, false, false, false, true, false, false
        ]
    );
    let why = reason(db.p(), &["--policy", "prune"], 10, "big");
    assert!(why.contains("older than a compaction summary"), "{why}");
}

/// Reference §2.3 "Stop: at the first assistant message with summary:true":
/// any summary, a failed one too (it is still `summary: true`), ends the scan
/// once two user messages are passed: the results behind it are no longer
/// counted, so the newer ones alone stay under the protection.
#[test]
fn s2_3_a_summary_stops_the_scan_a_failed_one_too() {
    for summary in [true, false] {
        let mut db = Db::new();
        db.session("ses_f", None, None);
        let u1 = db.user("ses_f", "turn 1");
        db.assistant(
            "ses_f",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(25_000))],
        );
        db.assistant("ses_f", &u1, json!({}), vec![text("done")]);
        if summary {
            compaction(&mut db, "ses_f", true);
        } else {
            let u = db.user("ses_f", "a prompt in its place");
            db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
        }
        let u3 = db.user("ses_f", "turn 3");
        db.assistant(
            "ses_f",
            &u3,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_f", &u3, json!({}), vec![text("done")]);
        for turn in ["turn 4", "turn 5", "turn 6"] {
            let u = db.user("ses_f", turn);
            db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
        }
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
        // Requests 1–2 turn 1, 3 the summary (or the prompt), 4–5 turn 3,
        // 6–8 turns 4–6. At 8 the scan takes the results before turn 4's
        // prompt: "new" (40,000, protected), then "old" only without the summary.
        assert_eq!(reqs.len(), 8);
        assert_eq!(
            fired,
            [false, false, false, false, false, false, false, !summary],
            "summary {summary}"
        );
        if summary {
            let why = reason(db.p(), &["--policy", "prune"], 8, "old");
            assert!(why.contains("older than a compaction summary"), "{why}");
        }
    }
}

/// Reference §2.3: the summary stops the scan only once two user messages are
/// passed (`if (turns < 2) continue` comes first). An auto-compaction runs
/// inside the prompt loop (1.18.33: overflow found at the loop's start, the
/// compaction's user message, the summary, a synthetic continue, all one loop),
/// so no prune runs until that loop ends; then the scan passes the continue and
/// the compaction's message, skips the summary, and goes on into the view
/// before it: OpenCode marks results no later request sends. The simulation
/// does the same, and the stored mark agrees with it.
#[test]
fn s2_3_a_compaction_in_the_latest_two_turns_does_not_stop_the_scan() {
    let mut db = Db::new();
    db.session("ses_x", None, None);
    turn_one(&mut db, "ses_x");
    let u2 = db.user("ses_x", "turn 2");
    compaction(&mut db, "ses_x", false);
    let n = db.next();
    let cont = id("msg", n);
    db.message(
        "ses_x",
        &cont,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_x",
        &cont,
        n + 1,
        json!({"type": "text", "synthetic": true, "metadata": {"compaction_continue": true},
            "text": "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."}),
    );
    db.assistant("ses_x", &u2, json!({}), vec![text("ok")]);
    let u3 = db.user("ses_x", "turn 3");
    let after = db.assistant("ses_x", &u3, json!({}), vec![text("ok")]);
    let u4 = db.user("ses_x", "turn 4");
    db.assistant("ses_x", &u4, json!({}), vec![text("ok")]);
    // A plan at 7 remembers the mark made in the view before (no second one).
    plans_agree_with_timeline(db.p(), &["--policy", "prune"]);
    // Requests: 1–3 turn 1; 4 the summary (turn 2's loop begins with it); 5
    // after the continue; 6 turn 3.
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
    assert_eq!(fired, [false, false, false, false, false, true, false]);
    // The continue keeps the loop: no prune at 5.
    assert!(
        reqs[4]["note"]
            .as_str()
            .unwrap()
            .contains("none ended just before"),
        "{}",
        reqs[4]["note"]
    );
    // Nothing of the view is cleared at 6: "old" is in the view before it.
    let r6 = &reqs[5];
    assert_eq!(r6["newly_cleared"], json!([]));
    assert!(
        r6["note"]
            .as_str()
            .unwrap()
            .contains("(1 result in the view before a compaction, which no request sends)"),
        "{}",
        r6["note"]
    );
    assert_eq!(
        placeholders(db.p(), &["--policy", "prune"], 6),
        Vec::<String>::new()
    );
    // OpenCode's own mark on "old", written before request 6 began.
    db.mark("old", db.time(&after, "created") - 1);
    let t = timeline(db.p(), &[]);
    let mc = &t["requests"][5]["evidence"]["microcompact"];
    assert_eq!(mc["compacted_tool_ids"], json!(["old"]), "{mc}");
    assert_eq!(mc["agrees"], true, "{mc}");
}

/// Reference §2.4 "the mark is stored": a mark made before a compaction still
/// stops a later scan that reaches into that view, in a plan at any request as
/// in the timeline (a plan starting at its own view would forget it and mark
/// again).
#[test]
fn s2_4_marks_made_before_a_compaction_stop_the_scan_after_it() {
    let mut db = Db::new();
    db.session("ses_m", None, None);
    turn_one(&mut db, "ses_m");
    for turn in ["turn 2", "turn 3", "turn 4"] {
        let u = db.user("ses_m", turn);
        db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    }
    // Turn 5 overflows: its loop compacts and carries on.
    let u5 = db.user("ses_m", "turn 5");
    compaction(&mut db, "ses_m", false);
    let n = db.next();
    let cont = id("msg", n);
    db.message(
        "ses_m",
        &cont,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_m",
        &cont,
        n + 1,
        json!({"type": "text", "synthetic": true, "metadata": {"compaction_continue": true}, "text": "Continue"}),
    );
    db.assistant("ses_m", &u5, json!({}), vec![text("ok")]);
    let u6 = db.user("ses_m", "turn 6");
    db.assistant("ses_m", &u6, json!({}), vec![text("ok")]);
    let t = timeline(db.p(), &["--policy", "prune"]);
    let fired: Vec<usize> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap() as usize)
        .collect();
    // Requests 1–3 turn 1, 4–6 turns 2–4, 7 the summary, 8 after the continue,
    // 9 turn 6. "old" is marked after turn 3's loop (request 6); at 9 the scan
    // reaches into the view before the compaction and stops at that mark.
    assert_eq!(fired, [6]);
    plans_agree_with_timeline(db.p(), &["--policy", "prune"]);
}

/// Reference §2.3 "Protected turns" and "Trigger": the results of the latest
/// two turns are never candidates, the newest 40,000 tokens are kept, and it
/// marks only when strictly more than 20,000 can go.
#[test]
fn s2_3_two_turns_protected_and_the_minimum_is_strict() {
    for (older, fires) in [(20_000, false), (20_001, true)] {
        let mut db = Db::new();
        db.session("ses_p", None, None);
        let u = db.user("ses_p", "turn 1");
        // Oldest first: `older` tokens, then 40,000 (exactly the protection).
        db.assistant(
            "ses_p",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(older))],
        );
        db.assistant(
            "ses_p",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_p", &u, json!({}), vec![text("done")]);
        for turn in ["turn 2", "turn 3", "turn 4"] {
            let u = db.user("ses_p", turn);
            db.assistant("ses_p", &u, json!({}), vec![text("ok")]);
        }
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        // Requests 1–3 are turn 1, 4 turn 2, 5 turn 3, 6 turn 4. At 5 (after
        // turn 2's loop) turns 2 and 1 are the latest two: nothing scanned.
        assert_eq!(reqs[4]["fired"], false);
        assert!(reqs[4]["note"].as_str().unwrap().contains("(of 0 scanned)"));
        // At 6 (after turn 3) turn 1 is scanned.
        assert_eq!(
            reqs[5]["fired"], fires,
            "older {older}: {}",
            reqs[5]["note"]
        );
        if fires {
            assert_eq!(reqs[5]["newly_cleared"], json!(["old"]));
        } else {
            assert!(
                reqs[5]["note"]
                    .as_str()
                    .unwrap()
                    .contains("20,000 tokens past")
            );
        }
    }
}

/// Reference §2.3 "Candidates": `skill` is never marked, error parts are
/// neither counted nor marked; every other tool is (MCP tools included).
#[test]
fn s2_3_skill_is_protected_and_errors_are_not_counted() {
    let mut db = Db::new();
    db.session("ses_s", None, None);
    let u = db.user("ses_s", "turn 1");
    let mut error = tool("err", "bash", "");
    error["state"] = json!({"status": "error", "input": {}, "error": out(90_000), "time": {"start": T0, "end": T0 + 1}});
    db.assistant(
        "ses_s",
        &u,
        json!({"finish": "tool-calls"}),
        vec![
            tool("sk", "skill", &out(30_000)),
            tool("mcp", "github_get_issue", &out(30_000)),
            error,
        ],
    );
    db.assistant(
        "ses_s",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("rd", "read", &out(40_000))],
    );
    db.assistant("ses_s", &u, json!({}), vec![text("done")]);
    for turn in ["turn 2", "turn 3", "turn 4"] {
        let u = db.user("ses_s", turn);
        db.assistant("ses_s", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let r = &t["requests"][5];
    // read 40,000 protected; the error not counted; the MCP result marked
    // (30,000 > 20,000); the skill never.
    assert_eq!(r["newly_cleared"], json!(["mcp"]), "{}", r["note"]);
}

/// Reference §2.3 "Stop" / §4 "A later prune stops at the compacted bash
/// part": once results are marked, a later prune does not look past them.
#[test]
fn s2_3_a_later_prune_stops_at_a_marked_part() {
    let mut db = Db::new();
    db.session("ses_m", None, None);
    let u = db.user("ses_m", "turn 1");
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("a", "read", &out(30_000))],
    );
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("b", "read", &out(45_000))],
    );
    db.assistant("ses_m", &u, json!({}), vec![text("done")]);
    let u = db.user("ses_m", "turn 2");
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("c", "read", &out(45_000))],
    );
    db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    for turn in ["turn 3", "turn 4", "turn 5"] {
        let u = db.user("ses_m", turn);
        db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let fired: Vec<(u64, Value)> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| (r["index"].as_u64().unwrap(), r["newly_cleared"].clone()))
        .collect();
    // After turn 3 (request 7): b 45,000 > 40,000 → b and a marked (75,000).
    // After turn 4 (request 8): c alone is scanned before it stops at b:
    // 45,000 > 40,000, so c is past the protection, 45,000 > 20,000: marked.
    assert_eq!(
        fired,
        [(7, json!(["a", "b"])), (8, json!(["c"]))],
        "{}",
        serde_json::to_string_pretty(&t["requests"]).unwrap()
    );
}
