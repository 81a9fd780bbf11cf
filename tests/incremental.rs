//! The shortcuts a plan at one request takes (starting at the view or turn start,
//! quiet steps before k - 1, running totals instead of passes over the view, the
//! footer's fired marks from quiet steps) change nothing: at every request the
//! plan equals the timeline's step, on long synthetic turns (both harnesses, with
//! reused ids, errors, memory reads and a compaction boundary) and on the corpus.
//! Debug builds also check every running total against a pass over the view.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::*;
use mcscope::analysis::{self, Setup};
use mcscope::cli::{DeliveryArg, KindArg, Opts};
use mcscope::policy::engine::Step;
use serde_json::json;
use std::path::{Path, PathBuf};

const KINDS: [KindArg; 5] = [
    KindArg::Auto,
    KindArg::Idle,
    KindArg::Forced,
    KindArg::Size,
    KindArg::Count,
];

fn opts(kind: KindArg, delivery: DeliveryArg, keep: u32) -> Opts {
    Opts::default()
        .with("--protect", "")
        .with("--policy", kind.name())
        .with("--delivery", delivery.name())
        .with("--keep-recent", &keep.to_string())
        .with("--gap-minutes", "3.0")
        .with("--size-threshold", "6000")
        .with("--trigger", &(keep + 2).to_string())
}

/// Every request's plan against the timeline (for `forced`, the timeline that
/// acts at that request), and the fired marks against the timeline's.
fn check(setup: &Setup, what: &str) {
    let n = setup.session.requests.len();
    let forced = setup.policy.kind == mcscope::policy::PlanKind::Forced;
    let steps = analysis::timeline(setup, n);
    let marks: Vec<bool> = analysis::fired_marks(setup, n).collect();
    let fired: Vec<bool> = steps.iter().map(|s| s.fired()).collect();
    assert_eq!(marks, fired, "{what}: fired marks");
    for k in 1..=n {
        if forced && k % 5 != 0 && k != n {
            continue; // a whole timeline per request: every fifth is enough
        }
        let want = if forced {
            analysis::timeline(setup, k)[k - 1].clone()
        } else {
            steps[k - 1].clone()
        };
        // The plan's step alone (what is compared): `plan_at` would also build
        // the wire body to count the tokens after a broken cache prefix.
        let got = analysis::plan_and_inputs(setup, k).unwrap().0.step;
        let key = |s: &mcscope::policy::engine::Step| {
            (
                s.fired(),
                s.trigger,
                s.newly_cleared.clone(),
                s.cleared.clone(),
                s.tokens_saved,
                s.chars_before,
                s.chars_after,
                s.target_chars,
                s.media_cleared,
                s.media_kept,
                s.note.clone(),
            )
        };
        assert_eq!(key(&got), key(&want), "{what} @{k}");
    }
    check_tracked(setup, &steps, what);
}

/// A tracked engine (what `compare` and the TUI totals sum) says at each step
/// only what changed in the wire: its changes add up to the timeline's list of
/// results cleared, and every request's figures and the setting's totals are
/// the ones the lists give.
fn check_tracked(setup: &Setup, steps: &[Step], what: &str) {
    use mcscope::totals::{self, CacheTtl, SessionFacts};
    let s = &setup.session;
    let n = s.requests.len();
    let facts = SessionFacts::new(s, CacheTtl::Auto);
    let tracked: Vec<Step> = analysis::tracked_steps(setup, n).collect();
    assert_eq!(tracked.len(), steps.len(), "{what}: tracked steps");
    let mut in_wire: std::collections::BTreeSet<usize> = Default::default();
    let mut acc = totals::Accumulator::new(s);
    for (i, (tr, st)) in tracked.iter().zip(steps).enumerate() {
        let k = st.index;
        let req = &s.requests[k - 1];
        let prev = i
            .checked_sub(1)
            .map(|j| &steps[j])
            .filter(|p| s.requests[p.index - 1].segment == req.segment);
        if prev.is_none() {
            in_wire.clear(); // a new view: the old one's results are not named
        }
        match &tr.wire {
            Some(w) => {
                assert!(
                    tr.cleared.is_empty(),
                    "{what} @{k}: a tracked step lists nothing"
                );
                for r in &w.removed {
                    assert!(in_wire.remove(r), "{what} @{k}: {r} removed, not in");
                }
                for &r in &w.added {
                    assert!(in_wire.insert(r), "{what} @{k}: {r} added twice");
                }
                let mut want = st.cleared.clone();
                want.sort_unstable();
                assert_eq!(
                    in_wire.iter().copied().collect::<Vec<_>>(),
                    want,
                    "{what} @{k}"
                );
            }
            None => assert_eq!(tr.cleared, st.cleared, "{what} @{k}: untracked list"),
        }
        // A tracked step lists nothing newly cleared (a size plan re-clears
        // most of the view at each turn start) but says whether it cleared,
        // and what that saved.
        match &tr.wire {
            Some(w) => {
                assert!(tr.newly_cleared.is_empty(), "{what} @{k}: newly listed");
                assert_eq!(w.newly, st.newly_cleared.len(), "{what} @{k}: newly");
                assert_eq!(w.count, st.cleared.len(), "{what} @{k}: count");
            }
            None => assert_eq!(tr.newly_cleared, st.newly_cleared, "{what} @{k}: newly"),
        }
        let key = |s: &Step| {
            (
                s.trigger,
                s.tokens_saved,
                s.chars_before,
                s.chars_after,
                s.target_chars,
                s.note.clone(),
            )
        };
        assert_eq!(key(tr), key(st), "{what} @{k}: step");
        let want = totals::figures(setup, &facts, prev, st).unwrap();
        let tr_prev = prev.map(|p| &tracked[p.index - tracked[0].index]);
        let got = totals::figures(setup, &facts, tr_prev, tr).unwrap();
        assert_eq!(got, want, "{what} @{k}: figures");
        acc.add(setup, &facts, st, &want);
    }
    let sum = totals::session_totals(setup, &facts).unwrap();
    assert_eq!(sum, acc.totals, "{what}: totals");
}

/// A long Claude session: turns of many calls with short and long gaps, reused
/// ids, an error, memory reads and a compaction boundary in the middle.
fn long_claude(dir: &Path) -> PathBuf {
    let mut c = Claude::default();
    let mem = dir.join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    let mut id = 0;
    for turn in 0..6 {
        c.prompt(
            &format!("turn {turn}"),
            if turn % 2 == 0 { 10.0 } else { 0.5 },
        );
        for i in 0..40 {
            id += 1;
            let t = format!("t{id}");
            // One id read three times: with no path (cleared mid-turn), then in
            // memory (protected: its clearing lapses), then elsewhere (ambiguous:
            // no longer protected, and the lapse stands).
            let r = format!("r{turn}");
            match i {
                7 => {
                    c.call(&r, "Read", json!({})).result(&r, &"p".repeat(700));
                }
                22 => {
                    c.read(&r, &format!("{}/kept.md", mem.display()));
                }
                28 => {
                    c.read(&r, "/repo/elsewhere.rs");
                }
                _ => {}
            }
            if i % 13 == 6 {
                // A long-running tool: the next request comes after an idle gap
                // in the middle of the turn.
                c.call(&t, "Bash", json!({"command": "sleep 240"}))
                    .result_full(&t, json!("z".repeat(500)), false, 4.0);
                continue;
            }
            match i % 7 {
                0 => c.read(&t, &format!("{}/notes-{i}.md", mem.display())),
                1 => c.read(&t, &format!("/repo/src/f{i}.rs")),
                2 => c.call(&t, "Bash", json!({"command": "make"})).result_full(
                    &t,
                    json!("e".repeat(300)),
                    true,
                    0.0,
                ),
                // Reused ids: a Bash id called again, and a memory read's id
                // reading another file (its protection becomes ambiguous).
                3 if i > 10 => c.bash(&format!("t{}", id - 7), 900),
                5 if i > 20 => c.read(&format!("t{}", id - 5), "/repo/other.rs"),
                _ => c.bash(&t, 200 + 97 * (i % 5)),
            };
        }
        c.answer("done");
        if turn == 2 {
            c.boundary();
        }
    }
    c.write(dir, "long.jsonl")
}

fn long_qwen(dir: &Path) -> PathBuf {
    let mut q = Qwen::default();
    let mut id = 0;
    for turn in 0..5 {
        q.prompt(
            &format!("turn {turn}"),
            if turn % 2 == 0 { 10.0 } else { 0.5 },
        );
        for i in 0..40 {
            id += 1;
            let t = format!("q{id}");
            match i % 5 {
                0 => q.read(&t, &format!("/repo/src/f{i}.rs")),
                1 => q.error(&t, "run_shell_command", "boom"),
                _ => q.shell(&t, 150 + 80 * (i % 4)),
            };
        }
        q.answer("done");
    }
    q.write(dir, "long.jsonl")
}

/// The scenario really has what the shortcuts must get right: plans firing in
/// the middle of a turn, and (Claude) protected reads whose protection lapses.
fn exercised(s: &Setup, name: &str) {
    use mcscope::policy::protect::Outcome;
    let steps = analysis::timeline(s, s.session.requests.len());
    let mid_turn = steps
        .iter()
        .filter(|st| st.fired() && !s.session.requests[st.index - 1].begins_turn)
        .count();
    if name == "claude" && matches!(s.policy.kind, mcscope::policy::PlanKind::Idle) {
        assert!(mid_turn > 0, "{name}: idle fires in the middle of a turn");
    }
    if name == "claude" {
        let p = plan(s, s.session.requests.len());
        let outcomes: Vec<Outcome> = p
            .candidates
            .iter()
            .filter_map(|c| c.protection.as_ref().map(|p| p.outcome))
            .collect();
        assert!(outcomes.contains(&Outcome::Protected), "{outcomes:?}");
        assert!(outcomes.contains(&Outcome::AmbiguousId), "{outcomes:?}");
    }
}

/// Both harnesses, each its own test so that the harness runs them on both cores.
#[test]
fn plans_equal_the_timeline_on_long_claude_turns() {
    long_turns("claude");
}

#[test]
fn plans_equal_the_timeline_on_long_qwen_turns() {
    long_turns("qwen");
}

fn long_turns(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = if name == "claude" {
        long_claude(dir.path())
    } else {
        let qwen_dir = dir.path().join("q");
        std::fs::create_dir_all(&qwen_dir).unwrap();
        long_qwen(&qwen_dir)
    };
    let root = format!("project={}", dir.path().join("memory").display());
    for kind in KINDS {
        for delivery in [DeliveryArg::Rewrite, DeliveryArg::CacheEdits] {
            if name == "qwen" && delivery == DeliveryArg::CacheEdits {
                continue; // Claude's alone
            }
            for keep in [1, 4] {
                let mut o = opts(kind, delivery, keep);
                o.shared.memory_root = vec![root.clone()];
                let s = setup(&path, o);
                assert!(s.session.requests.len() > 150);
                exercised(&s, name);
                check(&s, &format!("{name} {kind:?} {delivery:?} keep {keep}"));
            }
        }
    }
}

/// One test per kind, so that the harness runs them on both cores.
#[test]
fn plans_equal_the_timeline_on_the_corpus_under_idle() {
    corpus_plans(KindArg::Idle);
}

#[test]
fn plans_equal_the_timeline_on_the_corpus_under_size() {
    corpus_plans(KindArg::Size);
}

#[test]
fn plans_equal_the_timeline_on_the_corpus_under_count() {
    corpus_plans(KindArg::Count);
}

fn corpus_plans(kind: KindArg) {
    let Some(dir) = corpus::dir() else {
        return;
    };
    let mut files = 0;
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            files += 1;
            let s = setup(&f, opts(kind, DeliveryArg::Rewrite, 2));
            check(&s, &format!("{} {kind:?}", f.display()));
        }
    }
    assert!(files >= 20, "{files} corpus files");
}

/// The sample sessions under every kind, the budget plan and the api preset
/// included (which the long turns above do not reach): plans, timeline and a
/// tracked engine agree at every request.
#[test]
fn plans_equal_the_timeline_on_the_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let kinds = [
        KindArg::Auto,
        KindArg::Idle,
        KindArg::Forced,
        KindArg::Size,
        KindArg::Count,
        KindArg::Budget,
    ];
    for name in [
        "claude-demo.jsonl",
        "claude-size.jsonl",
        "claude-budget.jsonl",
        "qwen-memory/session.jsonl",
        "qwen-memory/today.jsonl",
    ] {
        let path = root.join(name);
        for kind in kinds {
            for delivery in [DeliveryArg::Rewrite, DeliveryArg::CacheEdits] {
                let qwen = name.starts_with("qwen");
                if (kind == KindArg::Budget || qwen) && delivery == DeliveryArg::CacheEdits {
                    continue; // budget rewrites; cache edits are Claude's
                }
                if kind == KindArg::Budget && qwen {
                    continue; // Claude Code's own plan
                }
                if kind == KindArg::Auto
                    && name == "claude-budget.jsonl"
                    && delivery == DeliveryArg::CacheEdits
                {
                    continue; // auto runs budget there: rewrite only (SPEC §15.6)
                }
                let mut o = opts(kind, delivery, 1);
                o.given.read("--trigger", "2").unwrap();
                check(&setup(&path, o), &format!("{name} {kind:?} {delivery:?}"));
            }
        }
    }
    // The api preset runs its own kind, tracked as a lean engine.
    let api = setup(&root.join("api-agent.json"), Opts::default());
    assert_eq!(api.policy.kind, mcscope::policy::PlanKind::Api);
    check(&api, "api-agent.json");
}

/// Many short turns in one view, the size plan over its threshold at every turn
/// start: a tracked engine decides those at the cost of what changes (debug
/// builds also check each such decision against the plan's own pass). With
/// reused ids (a result that turns not compactable while cleared, and reads
/// whose protection comes and goes), errors, empty results, a compaction
/// boundary, and turns whose prompt answers nothing.
fn short_turns(dir: &Path) -> PathBuf {
    let mut c = Claude::default();
    let mem = dir.join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    let mut id = 0;
    for turn in 0..90 {
        c.prompt(&format!("turn {turn}"), 0.5);
        for i in 0..3 {
            id += 1;
            let t = format!("s{id}");
            match (turn % 9, i) {
                (2, 0) => c.read(&t, &format!("{}/notes.md", mem.display())),
                (4, 1) if id > 12 => c.read(&format!("s{}", id - 12), "/repo/other.rs"),
                (5, 2) if id > 20 => c.call(&format!("s{}", id - 20), "TodoWrite", json!({})),
                (6, 0) => c.call(&t, "Bash", json!({"command": "make"})).result_full(
                    &t,
                    json!("e".repeat(300)),
                    true,
                    0.0,
                ),
                (7, 1) => c
                    .call(&t, "Bash", json!({"command": "true"}))
                    .result(&t, ""),
                _ => c.bash(&t, 150 + 61 * (id % 9)),
            };
        }
        c.answer("done");
        if turn == 50 {
            c.boundary();
        }
    }
    c.write(dir, "short.jsonl")
}

#[test]
fn the_size_plan_decides_each_turn_start_at_the_cost_of_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = short_turns(dir.path());
    let root = format!("project={}", dir.path().join("memory").display());
    for delivery in [DeliveryArg::Rewrite, DeliveryArg::CacheEdits] {
        for (keep, threshold, low) in [(1, 6_000, true), (4, 9_000, false), (40, 3_000, true)] {
            let mut o = opts(KindArg::Size, delivery, keep);
            o.shared.memory_root = vec![root.clone()];
            o.given
                .read("--size-threshold", &threshold.to_string())
                .unwrap();
            if !low {
                o.given.read("--no-low-watermark", "").unwrap();
            }
            let s = setup(&path, o);
            // The case at hand: the plan fires at most turn starts, and
            // clears some of what it cleared at the turn before again.
            let steps = analysis::timeline(&s, s.session.requests.len());
            let at_turns = steps
                .iter()
                .filter(|st| st.fired() && s.session.requests[st.index - 1].begins_turn)
                .count();
            assert!(at_turns > 60, "fires at {at_turns} turn starts");
            check(
                &s,
                &format!("short turns keep {keep} threshold {threshold}"),
            );
        }
    }
}

/// A Messages API body: an agent loop with a prompt every 25 uses (turn
/// starts), results of many sizes, and with `reuse` one id used twice.
///
/// 120 calls: the api plan reads its whole view at every request and a plan
/// replays the view from its start, so checking every request costs n³. At 240
/// calls (what this was) each edit gave the same notes in the same order: the
/// token triggers not fired, then applied from about the 50th request on; the
/// `clear_at_least` of 40,000 too little throughout; keep 300 clearing nothing.
fn api_body(dir: &Path, name: &str, reuse: bool) -> PathBuf {
    let mut msgs = vec![json!({"role": "user", "content": "fix every module"})];
    for c in 0..120 {
        let id = if reuse && c == 75 {
            "toolu_7".to_string()
        } else {
            format!("toolu_{c}")
        };
        let tool = ["Read", "Grep", "Bash"][c % 3];
        msgs.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": tool, "input": {"file_path": format!("/w/f{c}.py")}}]}));
        let mut content = vec![json!({"type": "tool_result", "tool_use_id": id,
            "content": format!("result {c} ") + &"y".repeat(40 + 97 * (c % 13))})];
        if c % 25 == 24 {
            content.push(json!({"type": "text", "text": format!("now part {c}")}));
        }
        msgs.push(json!({"role": "user", "content": content}));
        if c % 40 == 39 {
            msgs.push(json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}));
            msgs.push(json!({"role": "user", "content": format!("next task {c}")}));
        }
    }
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are an agent.",
        "tools": [{"name": "Read", "description": "Read", "input_schema": {"type": "object"}}],
        "messages": msgs});
    let p = dir.join(name);
    std::fs::write(&p, body.to_string()).unwrap();
    p
}

/// The `clear_tool_uses` edits the api tests below send, one at a time:
/// (trigger, value, keep, clear_at_least).
const API_EDITS: [(&str, u64, u64, Option<u64>); 4] = [
    ("input_tokens", 8_000, 3, None),
    ("input_tokens", 3_000, 1, Some(2_500)),
    ("tool_uses", 30, 10, Some(40_000)),
    ("tool_uses", 0, 300, None),
];

/// One test per edit and body, so that the harness runs them on both cores.
macro_rules! api_tests {
    ($($name:ident => ($edit:expr, $reuse:expr)),* $(,)?) => {
        const API_TESTS: &[(usize, bool)] = &[$(($edit, $reuse)),*];
        $(
            #[test]
            fn $name() {
                api_plan_carried_equals_its_pass($edit, $reuse);
            }
        )*
    };
}

api_tests!(
    the_api_plan_carried_equals_its_pass_over_8000_tokens => (0, false),
    the_api_plan_carried_equals_its_pass_over_3000_tokens_at_least_2500 => (1, false),
    the_api_plan_carried_equals_its_pass_over_30_uses_at_least_40000 => (2, false),
    the_api_plan_carried_equals_its_pass_over_0_uses_keeping_300 => (3, false),
    the_api_plan_equals_its_pass_with_a_reused_id_over_8000_tokens => (0, true),
    the_api_plan_equals_its_pass_with_a_reused_id_over_3000_tokens_at_least_2500 => (1, true),
    the_api_plan_equals_its_pass_with_a_reused_id_over_30_uses_at_least_40000 => (2, true),
    the_api_plan_equals_its_pass_with_a_reused_id_over_0_uses_keeping_300 => (3, true),
);

#[test]
fn the_api_tests_send_every_edit_to_both_bodies() {
    for edit in 0..API_EDITS.len() {
        for reuse in [false, true] {
            assert!(
                API_TESTS.contains(&(edit, reuse)),
                "edit {edit} reuse {reuse}"
            );
        }
    }
    assert_eq!(API_TESTS.len(), 2 * API_EDITS.len());
}

/// The api plan carried from request to request (one `clear_tool_uses` edit)
/// against its own pass over each request: every trigger, keep and
/// `clear_at_least`, the body with a reused id (not carried) too.
fn api_plan_carried_equals_its_pass(edit: usize, reuse: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (trigger, value, keep, least) = API_EDITS[edit];
    let mut e = json!({"type": "clear_tool_uses_20250919",
        "trigger": {"type": trigger, "value": value},
        "keep": {"type": "tool_uses", "value": keep}});
    if let Some(l) = least {
        e["clear_at_least"] = json!({"type": "input_tokens", "value": l});
    }
    let e = e.to_string();
    let path = api_body(dir.path(), &format!("body-{reuse}.json"), reuse);
    let o = Opts {
        preset: Some(mcscope::cli::PresetArg::Api),
        ..Opts::default().with("--api-edit", &e.clone())
    };
    let s = setup(&path, o);
    assert_eq!(s.policy.kind, mcscope::policy::PlanKind::Api);
    // What the body is for: the token triggers fire at some requests, not at
    // all; the other two edits never clear.
    let n = s.session.requests.len();
    let fired = analysis::timeline(&s, n)
        .iter()
        .filter(|st| st.fired())
        .count();
    if edit < 2 {
        assert!(fired > n / 4 && fired < n, "{e}: fired at {fired} of {n}");
    } else {
        assert_eq!(fired, 0, "{e}");
    }
    check(&s, &format!("api body reuse {reuse} {e}"));
}
