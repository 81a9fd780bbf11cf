//! SPEC §9: the whole-session figures agree with `plan --at k` at every k, the
//! formulas give the figures worked out by hand, and `mcscope compare` answers
//! through the real binary on a file and on a folder.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::Claude;
use mcscope::analysis;
use mcscope::cli::{DeliveryArg, KindArg, Opts};
use mcscope::evidence::Ttl;
use mcscope::policy::engine::Status;
use mcscope::totals::{self, CacheTtl, SessionFacts};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus(name: &str) -> Option<PathBuf> {
    corpus::file(name)
}

fn settings(claude: bool) -> Vec<Opts> {
    let o = |policy, keep, gap: Option<f64>, size: Option<i64>, trigger, delivery| Opts {
        policy: Some(policy),
        keep_recent: keep,
        gap_minutes: gap,
        size_threshold: size,
        trigger,
        delivery,
        ..Default::default()
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
        Opts {
            policy: Some(KindArg::Idle),
            keep_recent: Some(1),
            gap_minutes: Some(60.0),
            ..Default::default()
        },
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
        Opts {
            policy: Some(KindArg::Idle),
            keep_recent: Some(1),
            gap_minutes: Some(0.0),
            ..Default::default()
        },
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

fn mcscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

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
/// which reads keep (the table's `read_by`): each row runs its own keep, and
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
