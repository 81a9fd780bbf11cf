//! Stored prune marks as evidence (SPEC §14, §15.14): auto's choice, the simulation, late marks.

use super::*;

/// SPEC §15.14 `auto`: prune up to 1.3.2, none from 1.14.34 (off unless the
/// user's config says `compaction.prune: true`) unless a recorded mark shows
/// it on, and a note saying why not.
#[test]
fn s15_14_auto_runs_prune_by_version_or_by_a_recorded_mark() {
    let make = |version: &str, size: usize| {
        let mut db = Db::new();
        db.session("ses_v", None, None);
        db.conn
            .execute("UPDATE session SET version = ?1", [version])
            .unwrap();
        let u = db.user("ses_v", "turn 1");
        db.assistant(
            "ses_v",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("a", "read", &out(size))],
        );
        db.assistant("ses_v", &u, json!({}), vec![text("done")]);
        for turn in ["turn 2", "turn 3", "turn 4"] {
            let u = db.user("ses_v", turn);
            db.assistant("ses_v", &u, json!({}), vec![text("ok")]);
        }
        db
    };
    // Requests: 1–2 turn 1, 3 turn 2, 4 turn 3, 5 turn 4 (after turn 3's loop).
    // A small output prune never clears: auto runs it by the version.
    let old = make("1.3.2", 100);
    let t = timeline(old.p(), &[]);
    assert_eq!(t["requests"][4]["plan_kind"], "prune");
    assert_eq!(t["requests"][4]["fired"], false);
    // A big one it would clear at request 5, and no part records a mark:
    // prune did not run (SPEC §16.I wins over §15.14, §18.1), so auto plans
    // nothing, and --policy prune shows the what-if.
    let big = make("1.3.2", 70_000);
    let t = timeline(big.p(), &[]);
    let r = &t["requests"][4];
    assert_eq!(r["plan_kind"], Value::Null);
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("the prune plan did not run"),
        "{r}"
    );
    let ids: Vec<&str> = t["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"plan_did_not_run"), "{ids:?}");
    let what_if = timeline(big.p(), &["--policy", "prune"]);
    assert_eq!(what_if["requests"][4]["newly_cleared"], json!(["a"]));
    let new = make("1.18.33", 70_000);
    let t = timeline(new.p(), &[]);
    let r = &t["requests"][4];
    assert_eq!(r["plan_kind"], Value::Null);
    assert!(
        r["note"].as_str().unwrap().contains("compaction.prune"),
        "{r}"
    );
    // SPEC §15.14 "on up to 1.3.2": earlier versions too (the reference, §3,
    // finds none in 0.5.29; SPEC wins).
    for v in ["0.5.29", "0.9.1"] {
        let t = timeline(make(v, 100).p(), &[]);
        assert_eq!(t["requests"][4]["plan_kind"], "prune", "{v}");
    }
    // The sample is 1.18.33, but its marks prove prune was on.
    let t = timeline(SAMPLE, &[]);
    assert_eq!(t["requests"][7]["plan_kind"], "prune");
    assert_eq!(t["requests"][7]["fired"], true);
}

/// SPEC §14 evidence: a stored mark is the harness's own clearing, attached to
/// the first request whose assistant began after it, compared with the
/// simulated prune there (`agrees` / `missing` / `extra`), in
/// `recorded_cleared` and in the `recorded` baseline.
#[test]
fn s14_a_stored_mark_is_evidence_compared_with_the_simulated_prune() {
    let t = timeline(SAMPLE, &[]);
    let r = &t["requests"][7];
    let mc = &r["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "opencode_prune");
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(mc["tokens_saved"], 60_500);
    assert_eq!(r["recorded_cleared"].as_array().unwrap().len(), 2);
    // No request before 8 carries it.
    for q in &t["requests"].as_array().unwrap()[..7] {
        assert!(q["evidence"]["microcompact"].is_null());
    }
    // The baseline replays the marks.
    let b = timeline(SAMPLE, &["--policy", "recorded"]);
    assert_eq!(
        b["requests"][7]["newly_cleared"].as_array().unwrap().len(),
        2
    );
    assert_eq!(placeholders(SAMPLE, &["--policy", "recorded"], 8).len(), 2);
    // A mark on the read only: the simulated bash is `extra`… or, the
    // record's read and the plan's differ, never `agrees`.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE part SET data = json_remove(data, '$.state.time.compacted') WHERE id = 'prt_22bbc98b2001Vs2Kd8Pm5Rj1Gx'",
        [],
    )
    .unwrap();
    drop(conn);
    let t = timeline(db.to_str().unwrap(), &[]);
    let mc = &t["requests"][7]["evidence"]["microcompact"];
    assert_eq!(mc["agrees"], false, "{mc}");
    assert_eq!(
        mc["compacted_tool_ids"],
        json!(["toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD"])
    );
    let diff = [&mc["missing"], &mc["extra"]];
    assert!(
        diff.iter().any(|l| l
            .as_array()
            .unwrap()
            .contains(&json!("toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"))),
        "{mc}"
    );
    // SPEC §15.21: `explain` names the record by its kind.
    let e = bin::json(&["explain", SAMPLE, "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe", "-j"]);
    assert_eq!(
        e["records"],
        json!([{"line": 0, "kind": "opencode_prune", "request": 8}])
    );
    // A what-if setting replaces it: a plan with a higher protection clears
    // nothing, whatever the marks say.
    assert!(
        placeholders(
            SAMPLE,
            &["--policy", "prune", "--prune-protect", "10000000"],
            8
        )
        .is_empty()
    );
}

/// SPEC §15.14 / reference §5.2 (the race): prune is forked in the background
/// after a loop, so its mark may be written after the next turn's first request
/// began. The mark belongs to the first request that began after it, and is
/// compared with the simulated prune where that takes effect: the first request
/// after the loop that ran it.
#[test]
fn s15_14_a_late_mark_is_compared_at_the_turn_s_first_request() {
    let mut db = Db::new();
    db.session("ses_l", None, None);
    let u1 = db.user("ses_l", "turn 1");
    db.assistant(
        "ses_l",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant(
        "ses_l",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "bash", &out(40_000))],
    );
    db.assistant("ses_l", &u1, json!({}), vec![text("done")]);
    for turn in ["turn 2", "turn 3"] {
        let u = db.user("ses_l", turn);
        db.assistant("ses_l", &u, json!({}), vec![text("ok")]);
    }
    let u4 = db.user("ses_l", "turn 4");
    db.assistant(
        "ses_l",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("t4", "read", "small")],
    );
    db.assistant(
        "ses_l",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("t5", "read", "small")],
    );
    let second = db.assistant("ses_l", &u4, json!({}), vec![text("ok")]);
    // The mark is written just before request 8 (turn 4's third) began.
    db.mark("old", db.time(&second, "created") - 1);
    let t = timeline(db.p(), &[]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 8);
    // The simulation marks "old" after turn 3's loop: at request 6.
    assert_eq!(
        reqs[5]["newly_cleared"],
        json!(["old"]),
        "{}",
        reqs[5]["note"]
    );
    // The record belongs to request 8 (what was really sent: 6 and 7 still
    // carried the original), and agrees with the simulation at 6.
    for r in &reqs[5..7] {
        assert!(r["evidence"]["microcompact"].is_null());
        assert_eq!(r["recorded_cleared"], json!([]));
    }
    let mc = &reqs[7]["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "opencode_prune", "{mc}");
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(reqs[7]["recorded_cleared"], json!(["old"]));
    // The text says where it was compared, and auto agrees there too.
    let text = bin::ok(&["evidence", db.p()]);
    assert!(
        text.contains(
            "against the prune plan (at request 6, where its simulation takes effect): agrees"
        ),
        "{text}"
    );
    assert!(
        text.contains("against the selected plan (auto): agrees"),
        "{text}"
    );
}

/// SPEC §14 (a stored mark proves prune was on): no caveat says prune was
/// off by default on the sample, whatever plan is asked for.
#[test]
fn s15_14_a_recorded_mark_silences_the_off_by_default_caveat() {
    for kind in ["prune", "recorded", "auto"] {
        let t = timeline(SAMPLE, &["--policy", kind]);
        let ids: Vec<&str> = t["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert!(
            !ids.contains(&"opencode_prune_off_by_default"),
            "{kind}: {ids:?}"
        );
        assert!(!ids.contains(&"opencode_version_gap"), "{kind}: {ids:?}");
    }
}
