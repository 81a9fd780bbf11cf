//! The `budget` plan (SPEC §5): Claude Code's token-budget microcompact, through the real
//! binary. The `microcompact_boundary` records it is checked against are read here with
//! serde_json, independently of mcscope's loader: the sample's (computed by hand by
//! `sample-sessions/make_claude_budget.py`) and the real one in the corpus.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::Claude;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const SAMPLE: &str = "sample-sessions/claude-budget.jsonl";
const MEMORY: &str = "sample-sessions/qwen-memory/session.jsonl";

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

fn json(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// The ids newly cleared at the plan's request, in rank order (plan JSON).
fn newly_cleared(plan: &Value) -> Vec<String> {
    let k = &plan["request"]["index"];
    plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "cleared" && &c["cleared_at"] == k)
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .collect()
}

fn caveat_ids(v: &Value) -> Vec<String> {
    v["caveats"]
        .as_array()
        .unwrap_or_else(|| panic!("no caveats: {v}"))
        .iter()
        .map(|c| {
            assert!(c["text"].as_str().unwrap().len() > 40, "{c}");
            c["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// A budget-writer `microcompact_boundary` read with serde_json alone, and the request
/// it changed: the one whose response comes right after it (responses are counted as
/// distinct `message.id`s of main-thread assistant records, in file order).
struct Record {
    request: usize,
    pre_tokens: u64,
    tokens_saved: u64,
    ids: Vec<String>,
}

fn budget_records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut responses = 0;
    let mut last_id: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["isSidechain"] == true {
            continue;
        }
        if v["type"] == "assistant" {
            let id = v["message"]["id"].as_str().map(str::to_string);
            if id.is_none() || id != last_id {
                responses += 1;
            }
            last_id = id;
        }
        let md = &v["microcompactMetadata"];
        if v["subtype"] == "microcompact_boundary" && md["preTokens"].as_u64().unwrap_or(0) > 0 {
            out.push(Record {
                request: responses + 1,
                pre_tokens: md["preTokens"].as_u64().unwrap(),
                tokens_saved: md["tokensSaved"].as_u64().unwrap(),
                ids: strs(&md["compactedToolIds"]),
            });
        }
    }
    out
}

/// `plan --policy budget --at K` reproduces the record id for id, in order.
fn check_reproduced(path: &str, r: &Record) -> Value {
    let k = r.request.to_string();
    let p = json(&[
        "plan", path, "--policy", "budget", "--at", &k, "--format", "json",
    ]);
    assert_eq!(p["fired"], true, "{path} at {k}: {}", p["note"]);
    assert_eq!(p["trigger"], "budget");
    assert_eq!(newly_cleared(&p), r.ids, "{path} at {k}");
    p
}

#[test]
fn sample_record_is_reproduced_by_plan_budget() {
    let recs = budget_records(&Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE));
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    // The script's figures, by hand: six results of 22,000 / 24,000 / 16,000 (an error) /
    // 26,000 / 20,000 / 14,000 tokens = 122,000; keep the last 3; clearing the first three
    // leaves 60,000 (still > 40,000, but the rest is the keep window): 62,000 saved.
    assert_eq!(
        (r.request, r.pre_tokens, r.tokens_saved),
        (7, 122_000, 62_000)
    );
    let p = check_reproduced(SAMPLE, r);
    assert_eq!(p["metadata"]["pre_tokens"], r.pre_tokens);
    assert_eq!(p["metadata"]["tokens_saved"], r.tokens_saved);
    assert_eq!(p["request"]["version"], "2.1.17");
    assert_eq!(p["request"]["silent"], false, "a tool-loop request");
    assert_eq!(p["policy"]["kind"], "budget");
    assert_eq!(p["policy"]["keep_recent"], 3, "budget's own default");
    assert_eq!(p["policy"]["budget_tokens"], 40_000);
    assert_eq!(p["policy"]["budget_min_saving"], 20_000);
    assert_eq!(
        p["policy"]["budget_warning_tokens"],
        Value::Null,
        "by version"
    );
    assert_eq!(caveat_ids(&p), ["claude_budget_kill_switch"]);
    // The error result (the race-detector run) is cleared like any other.
    let err = p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["is_error"] == true)
        .unwrap();
    assert_eq!(err["status"], "cleared");
    let reason = p["candidates"][0]["reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "budget: usage 138,439 ≥ 135,000; 122,000 tokens of results > 40,000; rank 1 of 6, not in last 3"
    );
    // auto picks budget on a 2.1.17 session, with the same outcome.
    let a = json(&["plan", SAMPLE, "--at", "7", "--format", "json"]);
    assert_eq!(a["policy"]["kind"], "auto");
    assert_eq!(a["trigger"], "budget");
    assert_eq!(
        a["policy"]["keep_recent"], 3,
        "the default of the kind auto chose"
    );
    assert_eq!(newly_cleared(&a), r.ids);
}

#[test]
fn sample_timeline_fires_once_and_the_clearing_outlives_the_turn() {
    let t = json(&["timeline", SAMPLE, "--policy", "budget", "--format", "json"]);
    let rows = t["requests"].as_array().unwrap();
    let fired: Vec<u64> = rows
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(fired, [7], "usage 118,368 at request 6 is under the gate");
    assert!(
        rows[5]["note"]
            .as_str()
            .unwrap()
            .contains("118,368 < 135,000")
    );
    let ids = strs(&rows[6]["newly_cleared"]);
    // Request 8 begins a turn (idle clearings would lapse there): budget's stay, to the end.
    assert_eq!(rows[7]["begins_turn"], true);
    for r in &rows[7..] {
        assert_eq!(strs(&r["cleared"]), ids, "request {}", r["index"]);
        assert_eq!(r["silent"], false);
    }
    assert_eq!(t["policy"]["keep_recent"], 3);
    assert_eq!(caveat_ids(&t), ["claude_budget_kill_switch"]);
    assert!(rows.iter().all(|r| r["version"] == "2.1.17"));
    // The wire of request 10 still carries the placeholder for the first cleared result.
    let (code, wire, _) = mcscope(&["wire", SAMPLE, "--policy", "budget", "--at", "10"]);
    assert_eq!(code, 0);
    assert_eq!(
        wire.matches("[Old tool result content cleared]").count(),
        3,
        "three results replaced"
    );
}

/// The real record at line 343 of a Claude Code 2.1.17 session (SPEC §10's example).
#[test]
fn corpus_record_is_reproduced_by_plan_budget() {
    let Some(path) = corpus::file("claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl") else {
        return;
    };
    let recs = budget_records(&path);
    assert_eq!(recs.len(), 1, "one budget record in this session");
    let r = &recs[0];
    assert_eq!(r.ids.len(), 7);
    let p = check_reproduced(path.to_str().unwrap(), r);
    // The token figures agree too (est_tokens of the recorded contents).
    assert_eq!(p["metadata"]["pre_tokens"], r.pre_tokens);
    assert_eq!(p["metadata"]["tokens_saved"], r.tokens_saved);
    assert!(
        p["candidates"][1]["reason"]
            .as_str()
            .unwrap()
            .starts_with("budget: usage 135,887 ≥ 135,000; 65,398 tokens of results > 40,000;")
    );
    // It fires nowhere else in the session (the compaction later resets the memory).
    let t = json(&[
        "timeline",
        path.to_str().unwrap(),
        "--policy",
        "budget",
        "--format",
        "json",
    ]);
    let fired: Vec<usize> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["fired"] == true)
        .map(|x| x["index"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(fired, [r.request]);
}

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

// ---- built sessions -----------------------------------------------------------

/// Sets the recorded usage of the response with this `message.id` to `total` tokens.
fn set_usage(c: &mut Claude, msg_id: &str, total: u64) {
    for line in &mut c.lines {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["message"]["id"] == msg_id {
            v["message"]["usage"] = json!({"input_tokens": 5, "cache_creation_input_tokens": 1000,
                                           "cache_read_input_tokens": total - 1005 - 20,
                                           "output_tokens": 20});
            *line = v.to_string();
        }
    }
}

/// Every record's `version` set to `v` (None: removed).
fn set_version(c: &mut Claude, v: Option<&str>) {
    for line in &mut c.lines {
        let mut r: Value = serde_json::from_str(line).unwrap();
        if let Some(o) = r.as_object_mut() {
            match v {
                Some(v) => {
                    o.insert("version".into(), json!(v));
                }
                None => {
                    o.remove("version");
                }
            }
        }
        *line = r.to_string();
    }
}

/// Four Bash results of 80,000 chars (20,000 tokens each) in one turn, an answer
/// whose recorded usage is `usage`, then a new prompt and its answer.
fn turn_start_session(usage: u64) -> Claude {
    let mut c = Claude::default();
    c.prompt("build and test everything", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 80_000);
    }
    c.answer("all green");
    let answer_id = c
        .lines
        .iter()
        .rev()
        .find_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["message"]["id"].as_str().map(str::to_string)
        })
        .unwrap();
    set_usage(&mut c, &answer_id, usage);
    c.prompt("thanks; and the docs?", 3.0);
    c.answer("the docs build too");
    c
}

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

/// SPEC §9a per request, §9 `sim_ctx`: under `--policy budget` the sample's
/// record at request 7 (three ids, 62,000 estimated tokens) is in force from 7
/// on, so `sim_ctx` = P(k) + 62,000 − in_wire_tokens = P(k): request 7's is
/// its recorded 92,363. `hit_rate` = R(k) / P(k), four decimals.
#[test]
fn t9a_timeline_carries_recorded_cleared_and_sim_ctx() {
    let t = json(&["timeline", SAMPLE, "--policy", "budget", "--format", "json"]);
    let rows = t["requests"].as_array().unwrap();
    let r7 = &rows[6];
    assert_eq!(r7["index"], json!(7));
    let record = &budget_records(Path::new(SAMPLE))[0];
    assert_eq!(strs(&r7["recorded_cleared"]), record.ids);
    assert_eq!(r7["recorded_cleared_tokens"], json!(62_000));
    assert_eq!(r7["in_wire_tokens"], json!(62_000));
    let u = &r7["evidence"]["usage"];
    let p = u["input"].as_u64().unwrap()
        + u["cache_write"].as_u64().unwrap()
        + u["cache_read"].as_u64().unwrap();
    assert_eq!(p, 92_363);
    assert_eq!(r7["sim_ctx"], json!(92_363));
    let hit = (u["cache_read"].as_u64().unwrap() as f64 / p as f64 * 1e4).round() / 1e4;
    assert_eq!(r7["hit_rate"], json!(hit));
    // Before the record nothing is recorded as cleared, and sim_ctx is P(k).
    assert_eq!(rows[5]["recorded_cleared"], json!([]));
    assert_eq!(rows[5]["recorded_cleared_tokens"], json!(0));
    // Under a setting that clears nothing, the harness's clearing is added back:
    // sim_ctx = P(7) + 62,000, the context the session would have had.
    let t = json(&[
        "timeline",
        SAMPLE,
        "--policy",
        "size",
        "--size-threshold",
        "-1",
        "--format",
        "json",
    ]);
    let r7 = &t["requests"][6];
    assert_eq!(r7["in_wire_tokens"], json!(0));
    assert_eq!(r7["sim_ctx"], json!(92_363 + 62_000));
}
