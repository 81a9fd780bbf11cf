//! Saved engine states (`analysis::Checkpoints`, which the TUI turns on) give the
//! very plans a replay from the view's start gives: at every request, stepping
//! back and forth, jumping, and after a tune and back, under every plan kind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Claude, Qwen};
use mcscope::analysis::{self, Checkpoints, PlanAt, Setup, WireInputs};
use mcscope::policy::{Delivery, PlanKind};
use mcscope::setup::Opts;
use serde_json::json;
use std::path::Path;

/// What a user could see of a plan and its wire, in a comparable form.
fn seen(plan: &PlanAt, inputs: &WireInputs) -> String {
    let sorted = |s: &std::collections::HashSet<usize>| {
        let mut v: Vec<usize> = s.iter().copied().collect();
        v.sort_unstable();
        v
    };
    format!(
        "{plan:?}\ncleared {:?} media {:?} stripped {:?} edits {:?} drop {} server {:?}",
        sorted(&inputs.cleared),
        sorted(&inputs.media_cleared),
        sorted(&inputs.stripped),
        inputs.edits,
        inputs.drop_thoughts,
        inputs.server
    )
}

/// One turn of `n` calls (reads, big shell outputs, an error), with idle pauses
/// of 70 minutes inside it so that idle, size, count and budget all fire.
fn long_turn(dir: &Path, n: usize) -> std::path::PathBuf {
    let mut c = Claude::default();
    c.prompt("go through every file", 0.0);
    for i in 0..n {
        let id = format!("t{i}");
        let minutes = if i % 97 == 50 { 70.0 } else { 0.0 };
        match i % 5 {
            0 => {
                c.call(
                    &id,
                    "Read",
                    json!({"file_path": format!("/repo/src/f{i}.rs")}),
                );
                c.result_full(&id, json!("line\n".repeat(200 + i)), false, minutes)
            }
            1 => {
                c.call(&id, "Bash", json!({"command": "make"}));
                c.result_full(&id, json!("x".repeat(4000 + 7 * i)), i % 31 == 1, minutes)
            }
            _ => {
                c.call(&id, "Grep", json!({"pattern": format!("p{i}")}));
                c.result_full(&id, json!("match\n".repeat(50)), false, minutes)
            }
        };
    }
    c.answer("done");
    c.write(dir, "long-turn.jsonl")
}

fn with_checkpoints(setup: &Setup) -> Setup {
    let mut on = setup.clone();
    on.checkpoints = Checkpoints::on();
    on
}

/// Plans `ks` in order on a setup with checkpoints and on one without, and
/// asserts they agree; returns how many states were saved at the end. The
/// replayed reference is computed once per request (a sweep back and one forth
/// ask for the same request twice); the resumed side is planned every time, in
/// order, since that order is what the saved states see.
fn agree(off: &Setup, on: &Setup, ks: &[usize]) -> usize {
    let mut replayed: std::collections::HashMap<usize, String> = Default::default();
    for &k in ks {
        let want = replayed.entry(k).or_insert_with(|| {
            let (p0, i0) = analysis::plan_and_inputs(off, k).unwrap();
            seen(&p0, &i0)
        });
        let (p1, i1) = analysis::plan_and_inputs(on, k).unwrap();
        assert_eq!(
            &seen(&p1, &i1),
            want,
            "plan at request {k} under {:?} differs when resumed from a saved state",
            off.policy.kind
        );
    }
    on.checkpoints.len()
}

/// Back from the end one request at a time, then a jump, forth, and a far jump.
fn script(n: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = (n.saturating_sub(150)..=n).rev().collect();
    ks.extend([
        n / 2,
        n / 2 + 1,
        n / 2 - 1,
        n / 2 + 70,
        n,
        3,
        2,
        1,
        n - 64,
        n - 63,
    ]);
    ks.retain(|&k| k >= 1);
    ks
}

/// One test per plan kind (`PlanKind::ALL`, checked below), so that the
/// harness runs the kinds on every core: a replay over a long view in a debug
/// build is what the time of this file goes to.
macro_rules! each_kind {
    ($list:ident, $check:ident: $($kind:ident => $name:ident),* $(,)?) => {
        const $list: &[PlanKind] = &[$(PlanKind::$kind),*];
        $(
            #[test]
            fn $name() {
                $check(PlanKind::$kind);
            }
        )*
    };
}

each_kind!(EVERY_KIND, resumed_equals_replayed:
    Auto => resumed_plans_equal_replayed_plans_under_auto,
    Idle => resumed_plans_equal_replayed_plans_under_idle,
    IdleServer => resumed_plans_equal_replayed_plans_under_idle_server,
    Forced => resumed_plans_equal_replayed_plans_under_forced,
    Size => resumed_plans_equal_replayed_plans_under_size,
    Count => resumed_plans_equal_replayed_plans_under_count,
    Budget => resumed_plans_equal_replayed_plans_under_budget,
    Recorded => resumed_plans_equal_replayed_plans_under_recorded,
);

#[test]
fn the_per_kind_tests_name_every_plan_kind() {
    assert_eq!(EVERY_KIND, PlanKind::ALL);
    assert_eq!(QWEN_KINDS, PlanKind::ALL);
    assert_eq!(MULTI_TURN_KINDS, PlanKind::ALL);
}

/// Resumed plans equal replayed plans under every plan kind (one test each,
/// above): a 400-call turn, stepped back, jumped and stepped forth.
fn resumed_equals_replayed(kind: PlanKind) {
    let dir = tempfile::tempdir().unwrap();
    let path = long_turn(dir.path(), 400);
    let base = common::setup(&path, Opts::default());
    let n = base.last_request();
    assert!(n > 400, "one request per call: {n}");
    let mut off = base.clone();
    off.policy.kind = kind;
    off.policy.keep_recent = Some(3);
    let on = with_checkpoints(&off);
    let saved = agree(&off, &on, &script(n));
    assert!(
        saved > 0,
        "{kind:?}: a 400-request view replayed, yet no state was saved"
    );
}

each_kind!(QWEN_KINDS, qwen_resumed_equals_replayed:
    Auto => qwen_resumed_plans_equal_replayed_plans_under_auto,
    Idle => qwen_resumed_plans_equal_replayed_plans_under_idle,
    IdleServer => qwen_resumed_plans_equal_replayed_plans_under_idle_server,
    Forced => qwen_resumed_plans_equal_replayed_plans_under_forced,
    Size => qwen_resumed_plans_equal_replayed_plans_under_size,
    Count => qwen_resumed_plans_equal_replayed_plans_under_count,
    Budget => qwen_resumed_plans_equal_replayed_plans_under_budget,
    Recorded => qwen_resumed_plans_equal_replayed_plans_under_recorded,
);

fn qwen_resumed_equals_replayed(kind: PlanKind) {
    // Qwen's engine starts at the prompt that set the hook checkpoint: one
    // prompt, then 300 calls, with an idle pause inside.
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go through every file", 0.0);
    for i in 0..300 {
        let id = format!("c{i}");
        if i % 3 == 0 {
            q.read(&id, &format!("/repo/src/f{i}.rs"));
        } else {
            q.shell(&id, 3000 + 11 * i);
        }
        if i == 150 {
            q.record("system", 90.0, json!({"subtype": "ui_telemetry"}));
        }
    }
    q.answer("done");
    let path = q.write(dir.path(), "qwen-long.jsonl");
    let base = common::setup(&path, Opts::default());
    let n = base.last_request();
    assert!(n > 300, "{n} requests");
    let mut off = base.clone();
    off.policy.kind = kind;
    let on = with_checkpoints(&off);
    let saved = agree(&off, &on, &script(n));
    assert!(saved > 0, "{kind:?}: nothing saved on a 300-request view");
}

#[test]
fn a_tune_and_back_resumes_and_still_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_turn(dir.path(), 300);
    let off = common::setup(&path, Opts::default());
    let n = off.last_request();
    let mut on = with_checkpoints(&off);
    agree(&off, &on, &[n, n - 1]);
    let saved = on.checkpoints.len();
    assert_eq!(
        saved, 2,
        "the last two multiples of 64 before {n} are saved"
    );

    // A tune: a new policy replays (and saves its own states), the old stay.
    let mut tuned = off.clone();
    tuned.policy.keep_recent = Some(1);
    on.policy = tuned.policy.clone();
    agree(&tuned, &on, &[n, n - 2]);
    assert_eq!(
        on.checkpoints.len(),
        4,
        "the tuned policy's states beside the first's"
    );

    // And back: the first policy's states serve again, none added.
    on.policy = off.policy.clone();
    let before = on.checkpoints.resumed();
    agree(&off, &on, &[n - 3, n]);
    assert_eq!(on.checkpoints.len(), 4);
    assert_eq!(on.checkpoints.resumed(), before + 2, "both plans resumed");
}

#[test]
fn a_short_view_saves_nothing() {
    // The bundled sample's views are short: no state is worth a copy.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let off = common::setup(&path, Opts::default());
    let on = with_checkpoints(&off);
    let ks: Vec<usize> = (1..=off.last_request()).rev().collect();
    assert_eq!(agree(&off, &on, &ks), 0);
}

#[test]
fn the_tui_plans_resume_from_saved_states() {
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::Action;
    let dir = tempfile::tempdir().unwrap();
    let path = long_turn(dir.path(), 300);
    let setup = common::setup(&path, Opts::default());
    let n = setup.last_request();
    let mut app = App::session(setup.clone());
    fn view(app: &App) -> &mcscope::tui::app::SessionView {
        app.view().unwrap()
    }
    assert_eq!(view(&app).k, n);
    assert_eq!(
        view(&app).setup.checkpoints.len(),
        2,
        "the first plan saved two states"
    );
    for _ in 0..3 {
        app.update(Action::PrevRequest);
    }
    assert_eq!(
        view(&app).setup.checkpoints.resumed(),
        3,
        "each step back resumed"
    );
    // `+` then `-` sets an explicit keep (a policy of its own, though it keeps
    // as many as the default): three policies, two states each.
    app.update(Action::KeepMore);
    app.update(Action::KeepLess);
    assert_eq!(view(&app).setup.checkpoints.len(), 6);
    // Tuning back and forth from here resumes every plan.
    let before = view(&app).setup.checkpoints.resumed();
    for _ in 0..3 {
        app.update(Action::KeepMore);
        app.update(Action::KeepLess);
    }
    let v = view(&app);
    assert_eq!(v.k, n - 3);
    assert_eq!(
        v.setup.checkpoints.resumed(),
        before + 6,
        "each policy's states serve again"
    );
    assert_eq!(v.setup.checkpoints.len(), 6);
    // What the view shows is the plan a replay gives.
    let (replayed, _) = analysis::plan_and_inputs(&setup, n - 3).unwrap();
    assert_eq!(format!("{:?}", v.plan), format!("{replayed:?}"));
}

each_kind!(MULTI_TURN_KINDS, agree_across_turns:
    Auto => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_auto,
    Idle => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_idle,
    IdleServer => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_idle_server,
    Forced => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_forced,
    Size => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_size,
    Count => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_count,
    Budget => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_budget,
    Recorded => resumed_plans_agree_across_turns_a_compaction_and_both_deliveries_under_recorded,
);

fn agree_across_turns(kind: PlanKind) {
    // Four turns of 90 calls with idle pauses, a compaction after the third:
    // the engine starts at the last turn start (or the boundary) before k, and
    // cache edits accumulate across the three turns before the boundary. (Six
    // turns with the compaction after the fourth failed, kind for kind, under
    // the same resume that skips a request, and took about three times as
    // long: the count-like kinds replay from the boundary. With the compaction
    // after the second, `size` no longer caught that broken resume.)
    let dir = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    for t in 0..4 {
        c.prompt("go", if t % 2 == 0 { 70.0 } else { 1.0 });
        for i in 0..90 {
            let id = format!("t{t}_{i}");
            let minutes = if i % 41 == 20 { 70.0 } else { 0.0 };
            if i % 4 == 0 {
                c.call(
                    &id,
                    "Read",
                    json!({"file_path": format!("/repo/src/f{}.rs", i % 13)}),
                );
                c.result_full(&id, json!("line\n".repeat(200 + i)), false, minutes);
            } else {
                c.call(&id, "Bash", json!({"command": "make"}));
                c.result_full(&id, json!("x".repeat(4000 + 7 * i)), i % 31 == 1, minutes);
            }
        }
        c.answer("done");
        if t == 2 {
            c.boundary();
        }
    }
    let path = c.write(dir.path(), "multi.jsonl");
    let base = common::setup(&path, Opts::default());
    let n = base.last_request();
    let mut ks: Vec<usize> = (1..=n).rev().collect();
    ks.extend((1..=n).step_by(7));
    for delivery in [Delivery::Rewrite, Delivery::CacheEdits] {
        let mut off = base.clone();
        (off.policy.kind, off.policy.delivery) = (kind, delivery);
        off.policy.keep_recent = Some(3);
        let on = with_checkpoints(&off);
        agree(&off, &on, &ks);
        assert!(
            on.checkpoints.resumed() > 0,
            "{kind:?} {delivery:?}: nothing resumed"
        );
    }
}

#[test]
fn resumed_plans_agree_under_the_api_preset() {
    // The api plan is stateless per request (SPEC §11): a resumed one still reads
    // the same prompt and edits. Three turns of 50 calls: the trigger (30,000
    // tokens, about 28 results) fires in the first, and the view (the whole
    // session) spans two saved states, so both are resumed from; each api step
    // reads its whole view, and 150 calls a turn took a minute and a half.
    let dir = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    for t in 0..3 {
        c.prompt("go", 1.0);
        for i in 0..50 {
            let id = format!("t{t}_{i}");
            c.call(&id, "Bash", json!({"command": "make"}));
            c.result_full(&id, json!("x".repeat(4000 + 7 * i)), false, 0.0);
        }
        c.answer("done");
    }
    let path = c.write(dir.path(), "api.jsonl");
    let opts = Opts { preset: Some(mcscope::setup::PresetArg::Api), ..Opts::default().with("--api-edit", r#"{"type":"clear_thinking_20251015"}"#).with("--api-edit", r#"{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":30000},"keep":{"type":"tool_uses","value":5},"clear_at_least":{"type":"input_tokens","value":5000}}"#) };
    let off = common::setup(&path, opts);
    assert_eq!(off.policy.kind, PlanKind::Api);
    let on = with_checkpoints(&off);
    let n = off.last_request();
    let mut ks: Vec<usize> = (1..=n).rev().collect();
    ks.extend((1..=n).step_by(5));
    agree(&off, &on, &ks);
    assert!(on.checkpoints.resumed() > 0);
    assert!(n > 2 * 64, "{n} requests: two saved states");
}

/// The first `p` to idle-server (or api) does not read every message back
/// while its key waits (issue 43: 0.4–0.7 s on a 200 MB session): when a view
/// opens, a worker computes what every plan kind `p` reaches reads of the
/// session (`Setup::warm`), and the key finds it done.
#[test]
fn a_view_that_opens_computes_what_every_plan_kind_reads_on_a_worker() {
    use mcscope::session::ApiFacts;
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::Action;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    let mut setup = common::setup(&path, Opts::default());
    // Opened under idle, whose plan reads none of it.
    setup.policy.set_kind(PlanKind::Idle);
    let derived = setup.derived.clone();
    let mut app = App::session(setup);
    app.view_mut().unwrap().wait_background();
    let facts = derived.get_or_init::<ApiFacts>(|| {
        panic!("the api facts were left for the key that switches to idle-server")
    });
    assert!(!facts.msgs.is_empty());
    app.update(Action::CyclePlan);
    let v = app.view().unwrap();
    assert_eq!(v.policy().kind, PlanKind::IdleServer);
    assert!(
        std::sync::Arc::ptr_eq(
            &facts,
            &ApiFacts::of_session(&v.setup.session, &v.setup.derived)
        ),
        "the switch read the facts the worker computed"
    );
}
