//! Sections 4–7: reused tool ids, results before calls, odd timestamps, wrong JSON types.

use super::*;

// ---- 4. Duplicated tool ids ----

#[test]
fn duplicated_tool_ids_list_both_results() {
    let path = fixture("duplicate-ids.jsonl");
    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty());
    let ids: Vec<&str> = s.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["toolu_DUP", "toolu_DUP", "toolu_OK"]);
    let calls: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(calls, ["toolu_DUP", "toolu_DUP", "toolu_OK"]);
    assert_eq!(s.requests.len(), 5);

    let (_t, base) = canonical_tempdir();
    // Without protection: idle fires after the 89.6-minute gap, keeps the last
    // call (toolu_OK) and clears both results of the reused id.
    let (_, opts) = memory_opts(&base, false);
    let setup = setup_ok(&path, opts);
    exercise(&setup, true);
    let p = plan(&setup, 5);
    assert!(p.step.fired());
    assert_eq!(p.candidates.len(), 3, "one candidate per result");
    assert_eq!(
        common::ids(&setup, &p, Status::Cleared),
        ["toolu_DUP", "toolu_DUP"]
    );
    assert_eq!(common::ids(&setup, &p, Status::Kept), ["toolu_OK"]);
    let ranks: Vec<Option<usize>> = p.candidates.iter().map(|c| c.rank).collect();
    assert_eq!(ranks, [Some(1), Some(2), Some(3)]);

    // With protection: the reused id maps to a memory file and a source file.
    // At request 2 only the first call is in the view (protected); from request 3
    // on the id has two paths (ambiguous), for both results.
    let (_, opts) = memory_opts(&base, true);
    let setup = setup_ok(&path, opts);
    let p2 = plan(&setup, 2);
    assert_eq!(
        protection(&setup, &p2, "toolu_DUP").outcome,
        Outcome::Protected
    );
    let p5 = plan(&setup, 5);
    let f = fates(&setup, &p5, "toolu_DUP");
    assert_eq!(f.len(), 2);
    for (st, outcome, _) in &f {
        assert_eq!(*outcome, Some(Outcome::AmbiguousId));
        assert_eq!(*st, Status::Cleared);
    }

    let out = run_bin(&[
        OsStr::new("plan"),
        path.as_os_str(),
        OsStr::new("--policy"),
        OsStr::new("idle"),
        OsStr::new("--keep-recent"),
        OsStr::new("1"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    let v = json_ok(&out, "plan");
    assert_eq!(v["cleared"], json!(["toolu_DUP", "toolu_DUP"]));
    let out = run_bin(&[
        OsStr::new("explain"),
        path.as_os_str(),
        OsStr::new("toolu_DUP"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    json_ok(&out, "explain");
}

// ---- 5. A tool_result before its tool_use ----

#[test]
fn a_result_before_its_call_is_not_compactable_until_the_call_is_in_the_view() {
    let path = fixture("result-before-use.jsonl");
    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.requests.len(), 5);
    let setup = setup_ok(&path, opts_idle(1));
    exercise(&setup, true);

    // Requests 1 and 2: no call with that id in the view yet.
    for k in [1, 2] {
        let p = plan(&setup, k);
        let f = fates(&setup, &p, "toolu_EARLY");
        assert_eq!(f.len(), 1, "request {k}");
        assert_eq!(f[0].0, Status::NotCompactable, "request {k}");
        assert!(
            f[0].2.contains("no tool call with this id in the view"),
            "request {k}: {:?}",
            f[0].2
        );
    }
    // Request 5: the call is in the view now. The harness clears by id, so the
    // orphan follows its id: both results share one fate.
    let p = plan(&setup, 5);
    assert!(p.step.fired());
    let f = fates(&setup, &p, "toolu_EARLY");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].0, f[1].0);
    assert_eq!(f[0].0, Status::Cleared);
    assert_eq!(common::ids(&setup, &p, Status::Kept), ["toolu_LATE"]);

    // Qwen names the tool on the response itself: an orphan read is a candidate
    // at once, and with no call in the view it has no path (unresolved_id).
    let dir = tempfile::tempdir().unwrap();
    let mut q = common::Qwen::default();
    q.prompt("go", 0.0)
        .result("call_1", "read_file", "orphan contents")
        .answer("odd")
        .prompt("again", 90.0)
        .read("call_1", "/repo/src/a.ts")
        .answer("ok");
    let qpath = q.write(dir.path(), "qwen.jsonl");
    let setup = setup_ok(&qpath, Opts::default());
    exercise(&setup, true);
    let p = plan(&setup, 1);
    assert_eq!(
        protection(&setup, &p, "call_1").outcome,
        Outcome::UnresolvedId
    );
}

// ---- 6. Missing, future, backwards and non-RFC 3339 timestamps ----

#[test]
fn odd_timestamps_give_null_or_negative_gaps_that_never_fire() {
    let path = fixture("timestamps.jsonl");
    let s = load_ok(&path);
    assert!(s.diagnostics.is_empty(), "timestamps are never diagnostics");
    assert_eq!(s.requests.len(), 8);
    let gaps: Vec<Option<f64>> = s.requests.iter().map(|r| r.gap_minutes).collect();
    // 1: no assistant before it; 2: the only assistant before it has no timestamp.
    assert_eq!(gaps[0], None);
    assert_eq!(gaps[1], None);
    // 3: the assistant before it claims the year 2999: a huge negative gap.
    assert!(gaps[2].is_some_and(|g| g < -500_000_000.0), "{:?}", gaps[2]);
    // 4: the tool result was written an hour "before" its call.
    assert!(
        gaps[3].is_some_and(|g| (g + 60.2).abs() < 0.01),
        "{:?}",
        gaps[3]
    );
    // 5: now(5) is a timestamp without an offset (not RFC 3339): missing.
    assert_eq!(gaps[4], None);
    assert_eq!(s.requests[4].at, None);
    // 6: now(6) is in 2999: a huge positive gap (file order, never time order).
    assert!(gaps[5].is_some_and(|g| g > 500_000_000.0), "{:?}", gaps[5]);
    // 7: now(7) is the number 12: missing.
    assert_eq!(gaps[6], None);
    assert_eq!(s.requests[6].at, None);

    // Idle with a 0-minute threshold: a null or negative gap never fires.
    let mut opts = opts_idle(1);
    opts.given.read("--gap-minutes", "0.0").unwrap();
    let setup = setup_ok(&path, opts);
    exercise(&setup, true);
    let steps = {
        let s = setup.clone();
        within("timeline", move || analysis::timeline(&s, 8))
    };
    for k in [1, 2, 3, 4, 5, 7] {
        assert!(
            !steps[k - 1].fired(),
            "request {k} (gap {:?}) fired: {}",
            gaps[k - 1],
            steps[k - 1].note
        );
    }
    assert!(steps[5].fired(), "request 6: {}", steps[5].note);

    let out = run_bin(&[
        OsStr::new("timeline"),
        path.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    let v = json_ok(&out, "timeline");
    let json_gaps: Vec<Value> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["gap_minutes"].clone())
        .collect();
    for k in [1, 2, 5, 7] {
        assert_eq!(json_gaps[k - 1], Value::Null, "request {k}");
    }
}

/// Claude Code computes the gap from the last assistant message's own timestamp
/// (`new Date(lastAssistant.timestamp)`; NaN never fires). When that record's
/// timestamp is unreadable the gap is unknown: null, and idle must not fire.
#[test]
fn a_missing_last_assistant_timestamp_makes_the_gap_null() {
    let path = fixture("timestamps.jsonl");
    let s = load_ok(&path);
    // Request 8 follows line 14, an assistant record stamped in RFC 2822.
    assert_eq!(s.requests[7].gap_minutes, None);
    let setup = setup_ok(&path, opts_idle(1));
    let p = plan(&setup, 8);
    assert!(!p.step.fired(), "{}", p.step.note);
}

// ---- 7. Numbers where strings belong ----

#[test]
fn wrong_json_types_are_a_diagnostic_or_ignored_never_a_panic() {
    let path = fixture("wrong-types.jsonl");
    let s = load_ok(&path);
    // A diagnostic for the line (the record is skipped whole):
    //  4: "type": 5                       13: "message": 5
    // 14: a content block with "type": 5  15: a text block with "text": 5
    // 17: "type": ["user"]
    assert_diagnostics_at(&s, &path, &[4, 13, 14, 15, 17]);
    for d in &s.diagnostics {
        assert!(d.message.contains("invalid type"), "{d:?}");
    }
    assert_eq!(s.records, 20 - 5);
    // Ignored (the field reads as absent):
    // 5: "file_path": 3 → a call without a path; 7: "cwd": false → no cwd;
    // 11: tool_use "id": 7 and "name": 9 → no call; "usage": "lots" → no usage.
    let calls: Vec<(&str, Option<&str>, Option<&str>)> = s
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.file_path.as_deref(), c.cwd.as_deref()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "toolu_R1",
                Some("/home/dev/shop/src/a.ts"),
                Some("/home/dev/shop")
            ),
            ("toolu_R2", None, Some("/home/dev/shop")),
            ("toolu_R3", Some("src/c.ts"), None),
            ("toolu_R4", None, Some("/home/dev/shop")),
        ]
    );
    // 10: "tool_use_id": 7 → that block is no result; "content": 5 → 0 chars;
    // "is_error": "yes" → not an error.
    let results: Vec<(&str, u64, bool)> = s
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.chars, r.is_error))
        .collect();
    assert_eq!(
        results,
        [
            ("toolu_R1", 100, false),
            ("toolu_R2", 100, false),
            ("toolu_R3", 100, false),
            ("toolu_R4", 0, false),
        ]
    );
    // 8: "timestamp": 12 → missing: request 4 (whose last user record it is) has
    // no time and no gap.
    assert_eq!(s.requests[3].at, None);
    assert_eq!(s.requests[3].gap_minutes, None);
    // 12: "isSidechain": "true" is not `true` → main thread.
    assert_eq!(s.sidechain_records, 0);

    let (_t, base) = canonical_tempdir();
    let (_, opts) = memory_opts(&base, true);
    let setup = setup_ok(&path, opts);
    exercise(&setup, true);
    let p = common::last(&setup);
    assert_eq!(
        protection(&setup, &p, "toolu_R2").outcome,
        Outcome::UnresolvedId
    );
    // A relative path with no usable cwd is resolved against "/".
    let r3 = protection(&setup, &p, "toolu_R3");
    assert_eq!(r3.outcome, Outcome::Outside);
    assert_eq!(r3.resolved.as_deref(), Some("/src/c.ts"));

    // Qwen reads `type` leniently: a numeric type is an ignored record (no
    // diagnostic); a numeric `message` is a diagnostic.
    let qpath = fixture("wrong-types-qwen.jsonl");
    let q = load_ok(&qpath);
    assert_eq!(q.format.name(), "qwen-jsonl");
    assert_diagnostics_at(&q, &qpath, &[7]);
    assert_eq!(q.records, 8);
    let qcalls: Vec<(&str, Option<&str>)> = q
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.file_path.as_deref()))
        .collect();
    // functionCall "id": 7 → no call; "file_path": 3 → no path.
    assert_eq!(qcalls, [("call_1", None), ("call_3", Some("src/a.ts"))]);
    // functionResponse "id": 7 → no result; "name": 7 → no name (SPEC §3: a
    // response uses its own name, and one that is not a string is never
    // compactable); "output": 5 → 0 chars.
    let qres: Vec<(&str, Option<&str>, u64)> = q
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.name.as_deref(), r.chars))
        .collect();
    assert_eq!(
        qres,
        [("call_1", Some("read_file"), 0), ("call_3", None, 4)]
    );
    let setup = setup_ok(&qpath, Opts::default());
    exercise(&setup, true);
    let p = common::last(&setup);
    assert_eq!(common::status(&setup, &p, "call_3"), Status::NotCompactable);
    assert_eq!(
        p.candidates
            .iter()
            .find(|c| setup.session.results[c.result].id == "call_3")
            .and_then(|c| c.tool.clone()),
        None
    );
    assert_eq!(
        protection(&setup, &p, "call_1").outcome,
        Outcome::UnresolvedId
    );
}
