//! Plan kind `recorded`, the baseline (SPEC §9a "The baseline row", §15.3,
//! §15.4, §15.5): what the transcript's records prove the harness cleared,
//! through the real binary (`plan`, `timeline`, `evidence`, `explain`,
//! `compare`) and the TUI's real keymap.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;

mod common;

use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use serde_json::Value;
use std::path::{Path, PathBuf};

const BUDGET: &str = "sample-sessions/claude-budget.jsonl";
const IDLE_SERVER: &str = "sample-sessions/claude-idle-server.jsonl";
const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const QWEN: &str = "sample-sessions/qwen-memory/session.jsonl";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mcscope(args: &[&str]) -> (i32, String, String) {
    common::bin::run(args)
}

fn json(args: &[&str]) -> Value {
    common::bin::json(args)
}

fn ids(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

/// P(k): the recorded prompt (input + cache writes + cache reads, SPEC §10).
fn prompt(r: &Value) -> u64 {
    let u = &r["evidence"]["usage"];
    ["input", "cache_write", "cache_read"]
        .iter()
        .map(|k| u[k].as_u64().unwrap())
        .sum()
}

fn usd(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// SPEC §15.3: the baseline's policy object names its kind and the session's
/// preset; every other field is null.
fn assert_baseline_policy(p: &Value, preset: &str) {
    let p = p.as_object().unwrap();
    assert_eq!(p["kind"], "recorded");
    assert_eq!(p["preset"], preset);
    for (k, v) in p {
        if k != "kind" && k != "preset" {
            assert!(v.is_null(), "policy.{k} is {v}, not null");
        }
    }
}

/// SPEC §9a baseline, §15.3: on the 2.1.17 sample whose token-budget
/// `microcompact_boundary` names three ids before request 7, `timeline --policy
/// recorded` clears exactly those ids from request 7 on, fires there alone
/// (`trigger: "recorded"`), and its simulated context is the recorded prompt at
/// every request: what it keeps out is what the harness kept out.
#[test]
fn t9a_baseline_reproduces_the_budget_boundary_and_sim_ctx_is_the_recorded_prompt() {
    let tl = json(&[
        "timeline", BUDGET, "--policy", "recorded", "--format", "json",
    ]);
    assert_baseline_policy(&tl["policy"], "claude");
    assert_eq!(tl["session"]["warnings"], serde_json::json!([]));
    let reqs = tl["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 10);
    let boundary = ids(&reqs[6]["recorded_cleared"]);
    assert_eq!(boundary.len(), 3, "the boundary's three ids");
    for r in reqs {
        let k = r["index"].as_u64().unwrap();
        assert_eq!(r["plan_kind"], "recorded", "request {k}");
        assert_eq!(r["harness_could_run"], true);
        assert_eq!(r["harness_could_run_reason"], "recorded");
        assert_eq!(r["fired"], k == 7, "request {k}");
        let trigger = if k == 7 { "recorded" } else { "" };
        assert_eq!(r["trigger"].as_str().unwrap_or(""), trigger, "request {k}");
        // The ids in force are the boundary's, from its request on.
        let cleared = ids(&r["cleared"]);
        if k < 7 {
            assert!(cleared.is_empty(), "request {k}: {cleared:?}");
        } else {
            assert_eq!(cleared, boundary, "request {k}");
        }
        // 62,000 tokens (the record's tokensSaved) out of each wire from 7 on.
        let out = if k < 7 { 0 } else { 62_000 };
        assert_eq!(r["in_wire_tokens"], out, "request {k}");
        assert_eq!(r["recorded_cleared_tokens"], out, "request {k}");
        // SPEC §9: for the setting that reproduces the records, sim_ctx = P(k).
        assert_eq!(r["sim_ctx"].as_u64().unwrap(), prompt(r), "request {k}");
    }
    assert_eq!(reqs[6]["cache_break"], true);

    // At the last request the ids are still cleared, since request 7 (not since
    // the turn that began at 8: they do not lapse at a turn start).
    let last = json(&["plan", BUDGET, "--policy", "recorded", "--format", "json"]);
    let mut seen = 0;
    for c in last["candidates"].as_array().unwrap() {
        if boundary.contains(&c["tool_use_id"].as_str().unwrap()) {
            assert_eq!(c["status"], "cleared");
            assert_eq!(c["cleared_at"], 7, "{c}");
            seen += 1;
        }
    }
    assert_eq!(seen, 3);
    // plan --at 7 says the same, with the reason in words.
    let plan = json(&[
        "plan", BUDGET, "--at", "7", "--policy", "recorded", "--format", "json",
    ]);
    assert_eq!(ids(&plan["cleared"]), boundary);
    assert_eq!(plan["request"]["plan_kind"], "recorded");
    assert_eq!(plan["metadata"]["in_wire_tokens"], 62_000);
    assert!(
        plan["note"]
            .as_str()
            .unwrap()
            .contains("3 ids of the harness's microcompact boundaries in force (3 added here)"),
        "{}",
        plan["note"]
    );
}

/// SPEC §9a baseline: `compare`'s first row is the baseline, `"baseline": true`
/// (every other row false), and its dollars follow §9 by hand: the sample's
/// cache writes are 1-hour ones, so request 7's warm re-write costs its
/// tokens_rewritten × (10 − 0.5) and the 62,000 tokens kept out of the four
/// warm requests 7–10 save 4 × 62,000 × 0.5 (claude-opus-4-5, per Mtok).
/// Every row's `estimated_usd` is the recorded usd − the baseline's Δ + its own.
#[test]
fn t9a_compare_json_leads_with_the_baseline_and_estimates_every_row() {
    let tl = json(&[
        "timeline", BUDGET, "--policy", "recorded", "--format", "json",
    ]);
    let rewritten = tl["requests"][6]["tokens_rewritten"].as_u64().unwrap();
    let c = json(&["compare", BUDGET, "--format", "json", "-q"]);
    let rows = c["rows"].as_array().unwrap();
    let base = &rows[0];
    assert_eq!(base["baseline"], true);
    assert_baseline_policy(&base["policy"], "claude");
    assert!(rows[1..].iter().all(|r| r["baseline"] == false));
    assert!(
        rows[1..].iter().all(|r| r["policy"]["kind"] != "recorded"),
        "the baseline is one row"
    );
    assert_eq!(base["fires"], 1);
    assert_eq!(base["cleared_results"], 3);
    assert_eq!(base["tokens_not_sent"], 4 * 62_000);
    assert_eq!(base["cache_breaks"], 1);
    assert_eq!(base["tokens_rewritten"], rewritten);
    let by_hand = (rewritten as f64 * (10.0 - 0.5) - 4.0 * 62_000.0 * 0.5) / 1e6;
    assert!(
        (usd(&base["delta_usd"]) - by_hand).abs() < 1e-6,
        "{} vs {by_hand}",
        base["delta_usd"]
    );
    // Never recommended; the recommendation indexes rows with the baseline at 0.
    // (SPEC §9a's rule may recommend nothing here: then null.)
    if let Some(rec) = c["recommended"].as_u64() {
        let rec = rec as usize;
        assert!(rec >= 1);
        assert_eq!(rows[rec]["baseline"], false);
    }
    // The rows after the baseline are sorted by dollars.
    let deltas: Vec<f64> = rows[1..].iter().map(|r| usd(&r["delta_usd"])).collect();
    assert!(deltas.windows(2).all(|w| w[0] <= w[1]), "{deltas:?}");
    // estimated_usd: the bill under each setting (SPEC §9a).
    let recorded = usd(&c["sessions"][0]["recorded"]["usd"]);
    let b = usd(&base["delta_usd"]);
    assert!((usd(&base["estimated_usd"]) - recorded).abs() < 2e-6);
    for r in rows {
        let want = recorded - b + usd(&r["delta_usd"]);
        assert!(
            (usd(&r["estimated_usd"]) - want).abs() < 2e-6,
            "{}: {} vs {want}",
            r["policy"],
            r["estimated_usd"]
        );
        let per = &r["per_session"][0];
        assert_eq!(per["estimated_usd"], r["estimated_usd"]);
    }

    // --no-baseline leaves it out of the rows (the estimates stay).
    let c2 = json(&["compare", BUDGET, "--format", "json", "-q", "--no-baseline"]);
    let rows2 = c2["rows"].as_array().unwrap();
    assert_eq!(rows2.len(), rows.len() - 1);
    assert!(rows2.iter().all(|r| r["baseline"] == false));
    assert_eq!(rows2[0]["estimated_usd"], rows[1]["estimated_usd"]);
    // The same recommendation, one row up (none stays none).
    assert_eq!(
        c2["recommended"].as_u64(),
        c["recommended"].as_u64().map(|r| r - 1)
    );

    // Text: the baseline row first, labelled as what happened.
    let (code, text, err) = mcscope(&["compare", BUDGET, "-q"]);
    assert_eq!(code, 0, "{err}");
    let first = text
        .lines()
        .skip_while(|l| !l.contains("SETTING"))
        .nth(1)
        .unwrap();
    assert!(
        first.trim_start().starts_with("0  recorded: what happened"),
        "{text}"
    );
    assert!(
        text.contains("Row 0 is the baseline, what happened")
            && text.contains("the recorded $2.11 − row 0's Δ + its own Δ"),
        "{text}"
    );
}

/// SPEC §9a baseline, §15.5: on the 2.1.332 sample the server's applied edit at
/// request 35 names no ids; idle-server's simulation with the version's
/// defaults clears 20, as many as the record's `cleared_tool_uses`, so the
/// baseline clears those 20 ids there and at 36 (the edit recorded again), no
/// warning, and its sim_ctx is the recorded prompt at the edit.
#[test]
fn t15_5_applied_edits_take_the_ids_of_idle_server_when_the_counts_agree() {
    let tl = json(&[
        "timeline",
        IDLE_SERVER,
        "--policy",
        "recorded",
        "--format",
        "json",
    ]);
    assert_eq!(tl["session"]["warnings"], serde_json::json!([]));
    let reqs = tl["requests"].as_array().unwrap();
    let sim = json(&[
        "plan",
        IDLE_SERVER,
        "--at",
        "35",
        "--policy",
        "idle-server",
        "--format",
        "json",
    ]);
    let server = ids(&sim["cleared"]);
    assert_eq!(server.len(), 20);
    let r35 = &reqs[34];
    assert_eq!(ids(&r35["cleared"]), server);
    assert_eq!(r35["fired"], true);
    assert_eq!(r35["trigger"], "recorded");
    assert_eq!(r35["in_wire_tokens"], 30_000);
    assert_eq!(r35["recorded_cleared_tokens"], 30_000);
    assert_eq!(r35["sim_ctx"].as_u64().unwrap(), prompt(r35));
    // Request 36 records the same clearing: in force, not fired again.
    assert_eq!(ids(&reqs[35]["cleared"]), server);
    assert_eq!(reqs[35]["fired"], false);
    for r in &reqs[..34] {
        assert!(ids(&r["cleared"]).is_empty());
        assert_eq!(r["fired"], false);
    }
    // The options given to other kinds never reach the baseline's simulation:
    // a sidecar's keep would change idle-server's count, not the baseline's.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("s.jsonl");
    std::fs::copy(root().join(IDLE_SERVER), &copy).unwrap();
    std::fs::write(dir.path().join("s.mcscope.json"), r#"{"keep_recent": 2}"#).unwrap();
    let p = copy.display().to_string();
    let side = json(&["timeline", &p, "--policy", "recorded", "--format", "json"]);
    assert_eq!(ids(&side["requests"][34]["cleared"]), server);
    assert_eq!(side["session"]["warnings"], serde_json::json!([]));
}

/// SPEC §15.5: where the counts differ (the record says 19, the simulation
/// clears 20) the ids are unknown: none are cleared, `session.warnings` holds
/// `baseline_edit_ids_unknown`, the baseline's `in_wire_tokens` is the recorded
/// `cleared_input_tokens`, and so its sim_ctx is P(k).
#[test]
fn t15_5_a_count_mismatch_warns_and_counts_the_recorded_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("mismatch.jsonl");
    let text = std::fs::read_to_string(root().join(IDLE_SERVER)).unwrap();
    let edited = text.replace("\"cleared_tool_uses\":20,", "\"cleared_tool_uses\":19,");
    assert_eq!(edited.matches("\"cleared_tool_uses\":19,").count(), 2);
    std::fs::write(&copy, edited).unwrap();
    let p = copy.display().to_string();
    let tl = json(&["timeline", &p, "--policy", "recorded", "--format", "json"]);
    let warnings = tl["session"]["warnings"].as_array().unwrap();
    let ours: Vec<&Value> = warnings
        .iter()
        .filter(|w| w["id"] == "baseline_edit_ids_unknown")
        .collect();
    assert_eq!(ours.len(), 2, "{warnings:?}");
    assert!(ours[0]["text"].as_str().unwrap().starts_with("request 35:"));
    assert!(ours[0]["text"].as_str().unwrap().contains("clears 20"));
    assert!(ours[0]["line"].is_u64());
    let reqs = tl["requests"].as_array().unwrap();
    for r in &reqs[34..] {
        assert!(ids(&r["cleared"]).is_empty(), "no ids");
        assert_eq!(r["in_wire_tokens"], 30_000);
        assert_eq!(r["sim_ctx"].as_u64().unwrap(), prompt(r));
    }
    assert_eq!(reqs[34]["fired"], true);
    assert_eq!(reqs[35]["fired"], false);
    // The other kinds say nothing of it; plan and evidence carry the warning too.
    let other = json(&[
        "timeline",
        &p,
        "--policy",
        "idle-server",
        "--format",
        "json",
    ]);
    assert!(
        other["session"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["id"] != "baseline_edit_ids_unknown")
    );
    for sub in ["plan", "evidence"] {
        let v = json(&[sub, &p, "--policy", "recorded", "--format", "json"]);
        assert!(
            v["session"]["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["id"] == "baseline_edit_ids_unknown"),
            "{sub}"
        );
    }
    // compare's baseline keeps 2 × 30,000 tokens out all the same.
    let c = json(&["compare", &p, "--format", "json", "-q"]);
    assert_eq!(c["rows"][0]["tokens_not_sent"], 60_000);
    assert_eq!(c["rows"][0]["cleared_results"], 0);
}

/// SPEC §9a: a session with no recorded clearing has a baseline of zeros, and
/// every row's `estimated_usd` is the recorded `usd` + its `delta_usd`.
#[test]
fn t9a_no_recorded_clearing_gives_a_baseline_of_zeros() {
    let c = json(&["compare", DEMO, "--format", "json", "-q"]);
    let rows = c["rows"].as_array().unwrap();
    let base = &rows[0];
    assert_eq!(base["baseline"], true);
    for k in [
        "fires",
        "cleared_results",
        "tokens_not_sent",
        "cache_breaks",
        "tokens_rewritten",
        "later_used",
    ] {
        assert_eq!(base[k], 0, "{k}");
    }
    assert_eq!(usd(&base["delta_usd"]), 0.0);
    let recorded = usd(&c["sessions"][0]["recorded"]["usd"]);
    for r in rows {
        let want = recorded + usd(&r["delta_usd"]);
        assert!(
            (usd(&r["estimated_usd"]) - want).abs() < 2e-6,
            "{}",
            r["policy"]
        );
    }
    // Unknown dollars (a Qwen session has no price): estimated_usd is null.
    let q = json(&["compare", QWEN, "--format", "json", "-q"]);
    assert_eq!(q["rows"][0]["baseline"], true);
    assert_baseline_policy(&q["rows"][0]["policy"], "qwen");
    assert!(
        q["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["estimated_usd"].is_null())
    );
}

/// SPEC §15.3: plan parameters with `--policy recorded` are exit 2 with a
/// sentence that says why; `recorded` in a compare list is exit 2.
#[test]
fn t15_3_plan_parameters_with_recorded_are_refused() {
    for (flag, value) in [
        ("--keep-recent", "3"),
        ("--gap-minutes", "30"),
        ("--size-threshold", "1000"),
        ("--trigger", "4"),
        ("--delivery", "rewrite"),
        ("--api-edit", r#"{"type":"clear_tool_uses_20250919"}"#),
    ] {
        for sub in ["plan", "timeline", "evidence"] {
            let (code, out, err) = mcscope(&[sub, BUDGET, "--policy", "recorded", flag, value]);
            assert_eq!(code, 2, "{sub} {flag}: {out}{err}");
            assert!(
                err.contains("takes no plan parameters") && err.contains(flag),
                "{sub} {flag}: {err}"
            );
        }
    }
    let (code, _, err) = mcscope(&[
        "explain",
        BUDGET,
        "toolu_01qH7HZN50jZIuWJeHd3PBLK",
        "--policy",
        "recorded",
        "--keep-recent",
        "2",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = mcscope(&["compare", BUDGET, "--policy", "idle,recorded", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("recorded is the baseline"), "{err}");
    // Without parameters every subcommand takes it.
    for sub in ["plan", "timeline", "evidence"] {
        let (code, _, err) = mcscope(&[sub, BUDGET, "--policy", "recorded"]);
        assert_eq!(code, 0, "{sub}: {err}");
    }
    let (code, out, err) = mcscope(&[
        "explain",
        BUDGET,
        "toolu_01qH7HZN50jZIuWJeHd3PBLK",
        "--policy",
        "recorded",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("microcompact boundary of the harness names it"),
        "{out}"
    );
}

/// A key press through the real keymap.
fn press(a: &mut App, c: char) {
    let key = KeyEvent::from(KeyCode::Char(c));
    let action = keymap::action_for(key, a.in_text_input()).unwrap();
    a.update(action);
}

/// SPEC §15.3: `p` ends each preset's cycle with `recorded`, and the header
/// shows it; on the budget sample it clears the boundary's three ids at the
/// last request.
#[test]
fn t15_3_p_cycles_to_recorded_and_the_header_shows_it() {
    let open = |p: &str| {
        App::session(
            cli::setup(
                &Path::new(env!("CARGO_MANIFEST_DIR")).join(p),
                &Opts::default(),
            )
            .unwrap(),
        )
    };
    let mut a = open(BUDGET);
    let mut seen = Vec::new();
    for _ in 0..8 {
        press(&mut a, 'p');
        seen.push(a.view().unwrap().policy().kind.name());
    }
    assert_eq!(
        seen,
        [
            "idle",
            "idle-server",
            "forced",
            "size",
            "count",
            "budget",
            "recorded",
            "auto"
        ]
    );
    for _ in 0..7 {
        press(&mut a, 'p');
    }
    assert_eq!(a.view().unwrap().policy().kind.name(), "recorded");
    a.view_mut().unwrap().wait_background();
    let lines = screen::screen(&a, 160, 40);
    assert!(lines[1].contains("plan recorded* (claude)"), "{}", lines[1]);
    // No parameter is shown: the baseline reads none.
    assert!(
        lines[1].contains("what the records prove the harness cleared")
            && !lines[1].contains("keep"),
        "{}",
        lines[1]
    );
    let wire = a.view().unwrap().wire_json();
    assert_eq!(wire.matches("[Old tool result content cleared]").count(), 3);
    // `:policy recorded` from idle-server (delivered by the server) is the
    // claude preset's baseline still.
    a.view_mut().unwrap().run_command(":policy idle-server");
    a.view_mut().unwrap().run_command(":policy recorded");
    let p = a.view().unwrap().policy();
    assert_eq!((p.kind.name(), p.preset_name()), ("recorded", "claude"));

    // qwen: auto → idle → forced → size → count → recorded → auto.
    let mut q = open(QWEN);
    let kinds: Vec<&str> = (0..6)
        .map(|_| {
            press(&mut q, 'p');
            q.view().unwrap().policy().kind.name()
        })
        .collect();
    assert_eq!(
        kinds,
        ["idle", "forced", "size", "count", "recorded", "auto"]
    );

    // api: api → recorded → api, the preset kept.
    let opts = Opts {
        preset: Some(cli::PresetArg::Api),
        ..Default::default()
    };
    let mut api =
        App::session(cli::setup(&root().join("sample-sessions/api-agent.json"), &opts).unwrap());
    press(&mut api, 'p');
    assert_eq!(api.view().unwrap().policy().kind.name(), "recorded");
    assert_eq!(api.view().unwrap().policy().preset_name(), "api");
    press(&mut api, 'p');
    assert_eq!(api.view().unwrap().policy().kind.name(), "api");
    // `:policy recorded` there is the api preset's baseline too.
    api.view_mut().unwrap().run_command(":policy recorded");
    let p = api.view().unwrap().policy();
    assert_eq!((p.kind.name(), p.preset_name()), ("recorded", "api"));
}

/// SPEC §15.4: recorded cuts are facts in every row (status `cut`), never part
/// of the baseline's clearing: on the cut sample the baseline clears nothing
/// and its figures are zeros, while plan shows the three cut results as `cut`.
#[test]
fn t15_4_recorded_cuts_stay_facts_outside_the_baseline() {
    let plan = json(&[
        "plan",
        "sample-sessions/claude-cut.jsonl",
        "--policy",
        "recorded",
        "--format",
        "json",
    ]);
    assert_eq!(ids(&plan["cut"]).len(), 3);
    assert!(ids(&plan["cleared"]).is_empty());
    assert_eq!(plan["metadata"]["in_wire_tokens"], 0);
    let c = json(&[
        "compare",
        "sample-sessions/claude-cut.jsonl",
        "--format",
        "json",
        "-q",
    ]);
    let base = &c["rows"][0];
    assert_eq!(base["baseline"], true);
    assert_eq!(base["tokens_not_sent"], 0);
    assert_eq!(base["cleared_results"], 0);
    assert_eq!(usd(&base["delta_usd"]), 0.0);
    assert_eq!(
        base["estimated_usd"], c["sessions"][0]["recorded"]["usd"],
        "zeros: the bill as recorded"
    );
}

/// SPEC §15.3: the sidecar (and the config file, which reads the same keys)
/// takes kind `recorded` as it takes the other kinds.
#[test]
fn t15_3_a_sidecar_selects_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("b.jsonl");
    std::fs::copy(root().join(BUDGET), &copy).unwrap();
    std::fs::write(dir.path().join("b.mcscope.json"), r#"{"kind": "recorded"}"#).unwrap();
    let p = copy.display().to_string();
    let tl = json(&["timeline", &p, "--format", "json"]);
    assert_baseline_policy(&tl["policy"], "claude");
    assert_eq!(tl["requests"][6]["trigger"], "recorded");
    // A flag still wins over it.
    let idle = json(&["timeline", &p, "--policy", "idle", "--format", "json"]);
    assert_eq!(idle["policy"]["kind"], "idle");
}
