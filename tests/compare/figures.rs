//! SPEC §9's figures against `plan --at k`: on the samples, the corpus and a session by hand.

use super::*;

fn settings(claude: bool) -> Vec<Opts> {
    let o = |policy: KindArg,
             keep: Option<u32>,
             gap: Option<f64>,
             size: Option<i64>,
             trigger: Option<u32>,
             delivery: Option<DeliveryArg>| {
        Opts::default()
            .with("--policy", policy.name())
            .with_some("--keep-recent", keep)
            .with_some("--gap-minutes", gap)
            .with_some("--size-threshold", size)
            .with_some("--trigger", trigger)
            .with_some("--delivery", delivery)
    };
    let mut v = vec![
        Opts::default(),
        o(KindArg::Idle, Some(1), Some(0.0), None, None, None),
        o(KindArg::Idle, Some(2), Some(5.0), None, None, None),
        o(KindArg::Size, Some(1), None, Some(2000), None, None),
        o(
            KindArg::Count,
            Some(2),
            None,
            None,
            Some(3),
            Some(DeliveryArg::Rewrite),
        ),
    ];
    if claude {
        v.push(o(
            KindArg::Count,
            Some(1),
            None,
            None,
            Some(2),
            Some(DeliveryArg::CacheEdits),
        ));
        v.push(o(KindArg::Budget, None, None, None, None, None));
    }
    v
}

/// Every request's §9 figures, and the setting's totals, against `plan --at k`.
fn agree(path: &Path) -> usize {
    let mut checked = 0;
    let claude = !path.to_string_lossy().contains("qwen");
    for opts in settings(claude) {
        let setup = common::setup(path, opts.clone());
        let s = &setup.session;
        let facts = SessionFacts::new(s, CacheTtl::Auto);
        let mut by_plan = totals::Totals::default();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut rows = Vec::new();
        totals::each_request(&setup, &facts, setup.last_request(), |st, f| {
            rows.push((st.clone(), f.clone()));
            Ok(())
        })
        .unwrap();
        assert_eq!(rows.len(), s.requests.len());
        for (st, f) in &rows {
            let k = st.index;
            let plan = analysis::plan_at(&setup, k).unwrap();
            let cleared: Vec<usize> = plan
                .candidates
                .iter()
                .filter(|c| c.status == Status::Cleared)
                .map(|c| c.result)
                .collect();
            let in_wire: u64 = cleared.iter().map(|&r| s.results[r].est_tokens).sum();
            let ctx = format!("{} {:?} at {k}", path.display(), setup.policy);
            assert_eq!(f.in_wire_tokens, in_wire, "in_wire_tokens {ctx}");
            assert_eq!(
                f.break_at, plan.cache.prefix_broken_at_message,
                "break {ctx}"
            );
            assert_eq!(
                f.tokens_rewritten, plan.cache.tokens_after_break,
                "tokens_rewritten {ctx}"
            );
            // warm: cache_gap < the TTL, from the evidence module's figures.
            let gap = mcscope::evidence::cache_gap(s, k);
            let ttl = mcscope::evidence::ttl_auto(s, k);
            assert_eq!(
                f.warm,
                k > 1 && gap.is_some_and(|g| g < ttl.minutes()),
                "warm {ctx}"
            );
            by_plan.fires += u64::from(plan.step.fired());
            by_plan.tokens_not_sent += in_wire;
            if plan.cache.prefix_broken_at_message.is_some() && f.warm {
                by_plan.cache_breaks += 1;
                by_plan.tokens_rewritten += plan.cache.tokens_after_break;
            }
            for r in cleared {
                if seen.insert(r) {
                    by_plan.cleared_results += 1;
                }
            }
            checked += 1;
        }
        let t = totals::session_totals(&setup, &facts).unwrap();
        assert_eq!(
            (
                t.fires,
                t.cleared_results,
                t.tokens_not_sent,
                t.cache_breaks,
                t.tokens_rewritten
            ),
            (
                by_plan.fires,
                by_plan.cleared_results,
                by_plan.tokens_not_sent,
                by_plan.cache_breaks,
                by_plan.tokens_rewritten
            ),
            "totals {} {:?}",
            path.display(),
            setup.policy
        );
    }
    checked
}

#[test]
fn figures_agree_with_plan_at_every_request_on_the_samples() {
    let samples = [
        "sample-sessions/claude-demo.jsonl",
        "sample-sessions/claude-budget.jsonl",
        "sample-sessions/claude-size.jsonl",
        "sample-sessions/qwen-memory/session.jsonl",
        "sample-sessions/qwen-memory/today.jsonl",
    ];
    let n: usize = samples.iter().map(|p| agree(&root().join(p))).sum();
    assert!(n > 50, "only {n} requests checked");
}

#[test]
fn figures_agree_with_plan_at_every_request_on_corpus_files() {
    let files = [
        "qwen-code/Piebald-AI__splitrail__qwen_code.jsonl",
        "claude-code/marot__spotter__short.jsonl",
        "claude-code/Brads3290__cclogviewer__example.jsonl",
        "claude-code/d-kimuson__claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "claude-code/daaain__claude-code-log__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
    ];
    for f in files {
        if let Some(p) = corpus(f) {
            agree(&p);
        }
    }
}

/// A session built by hand: prompt at 0; a Read of /repo/a.ts and a Bash `make
/// test`; a 3-minute pause; a 70-minute pause; then the model reads ./a.ts again
/// (cwd /repo) and runs ` make test ` again, and then `make test\n` once more.
fn hand_session(dir: &Path, one_hour: bool) -> PathBuf {
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    c.calls(
        "m1",
        &[
            ("t1", "Read", json!({"file_path": "/repo/a.ts"})),
            ("t2", "Bash", json!({"command": "make test"})),
        ],
    );
    c.result("t1", &"a".repeat(400)); // 100 tokens
    c.result("t2", &"b".repeat(800)); // 200 tokens
    let usage = if one_hour {
        json!({"input_tokens": 10, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 0,
               "output_tokens": 5, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000}})
    } else {
        json!({"input_tokens": 10, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 0,
               "output_tokens": 5, "cache_creation": {"ephemeral_5m_input_tokens": 5000, "ephemeral_1h_input_tokens": 0}})
    };
    c.answer("ok");
    let mut last: Value = serde_json::from_str(c.lines.last().unwrap()).unwrap();
    last["message"]["usage"] = usage;
    last["message"]["model"] = json!("claude-sonnet-4-5");
    *c.lines.last_mut().unwrap() = last.to_string();
    c.prompt("more", 3.0);
    c.answer("fine");
    c.prompt("again", 70.0);
    c.calls(
        "m4",
        &[
            ("t3", "Read", json!({"file_path": "a.ts"})),
            ("t4", "Bash", json!({"command": " make test "})),
        ],
    );
    c.result("t3", &"x".repeat(40)); // 10 tokens
    c.result("t4", &"y".repeat(40));
    c.calls("m5", &[("t5", "Bash", json!({"command": "make test\n"}))]);
    c.result("t5", "z");
    c.answer("done");
    c.write(dir, "hand.jsonl")
}

#[test]
fn warm_and_cold_at_the_ttl_edge_and_later_used_by_path_and_by_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = hand_session(dir.path(), false);
    let setup = common::setup(
        &path,
        Opts::default()
            .with("--policy", "idle")
            .with("--keep-recent", "1")
            .with("--gap-minutes", "60.0"),
    );
    let s = &setup.session;
    let facts = SessionFacts::new(s, CacheTtl::Auto);
    let mut rows = Vec::new();
    totals::each_request(&setup, &facts, setup.last_request(), |st, f| {
        rows.push((st.clone(), f.clone()));
        Ok(())
    })
    .unwrap();
    // Requests: 1 prompt, 2 after the results, 3 after 3 min (< 5m: warm),
    // 4 after 70 min (cold; idle fires), 5 and 6 after the later calls.
    let warm: Vec<bool> = rows.iter().map(|(_, f)| f.warm).collect();
    assert_eq!(warm, vec![false, true, true, false, true, true]);
    assert_eq!(rows[2].1.ttl, Ttl::FiveMinutes);
    // With a 1h cache write, ttl_auto says 1h: the 70-minute pause is still cold,
    // and a forced 1h makes it so too; a forced 5m TTL turns the 3-minute gap
    // warm and would make a 6-minute one cold.
    assert!(totals::is_warm(3, Some(3.0), Ttl::FiveMinutes));
    assert!(!totals::is_warm(3, Some(5.0), Ttl::FiveMinutes));
    assert!(totals::is_warm(3, Some(59.999), Ttl::OneHour));
    assert!(!totals::is_warm(3, Some(60.0), Ttl::OneHour));
    assert!(!totals::is_warm(1, Some(0.0), Ttl::OneHour));
    assert!(!totals::is_warm(2, None, Ttl::OneHour));
    // Idle fires at 4 and clears t1 (keep 1 keeps the newest, t2):
    let t = totals::session_totals(&setup, &facts).unwrap();
    // (The steps `compare` sums say what entered the wire, not a list of
    // what was newly cleared.)
    let wire_at_4 = rows[3].0.wire.as_ref().unwrap();
    let cleared_at_4: Vec<&str> = wire_at_4
        .added
        .iter()
        .map(|&r| s.results[r].id.as_str())
        .collect();
    assert_eq!(cleared_at_4, vec!["t1"]);
    assert_eq!(wire_at_4.newly, 1);
    // t1 (/repo/a.ts) is read again as a.ts from cwd /repo at response 4: used later.
    assert_eq!(t.later_used, 1);
    // The break at 4 is cold: no warm cache break, nothing re-written counts.
    assert!(rows[3].1.cache_break() && !rows[3].1.warm);
    assert_eq!((t.cache_breaks, t.tokens_rewritten), (0, 0));
    // Gap 0: idle fires everywhere it can.
    let setup = common::setup(
        &path,
        Opts::default()
            .with("--policy", "idle")
            .with("--keep-recent", "1")
            .with("--gap-minutes", "0.0"),
    );
    let facts = SessionFacts::new(&setup.session, CacheTtl::Auto);
    let t = totals::session_totals(&setup, &facts).unwrap();
    // Gap 0: t1 goes at request 2 (and again after each turn start), t2 and t3
    // first at 5, t4 at 6 (t5 kept). later_used, once per result at its first
    // clearing: t1 by path (a.ts read at response 4), t2 by command (`make
    // test\n` at response 5, the same after trimming); t3 (a.ts, first cleared
    // at 5) is not read at or after response 5, and t4 nothing follows.
    assert_eq!(t.cleared_results, 4);
    assert_eq!(t.later_used, 2);
    agree(&path);
    // 1h TTL: the cache write says 1h, so request 4 after 70 min is still cold
    // but a 1h TTL keeps the 3-minute gap warm.
    std::fs::create_dir_all(dir.path().join("h")).unwrap();
    let path1 = hand_session(&dir.path().join("h"), true);
    let setup1 = common::setup(&path1, Opts::default());
    let facts1 = SessionFacts::new(&setup1.session, CacheTtl::Auto);
    assert_eq!(facts1.ttl[2], Ttl::OneHour);
    assert_eq!(facts1.warm, vec![false, true, true, false, true, true]);
    let forced5 = SessionFacts::new(&setup1.session, CacheTtl::FiveMinutes);
    assert_eq!(forced5.ttl[2], Ttl::FiveMinutes);
}
