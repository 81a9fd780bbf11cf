//! The TUI shows the plan: marks, stepping and tuning, explain, flags, auto's choice, the CLI's.

use super::*;

#[test]
fn demo_count_marks_a_and_b_deleted_and_shows_cache_edits_on_the_right_only() {
    let mut a = app(DEMO, Some(KindArg::Count));
    let lines = screen(&a, 120, 40, true);
    // Header: session, request, plan with the sidecar's parameters.
    assert!(lines[0].contains("claude-demo.jsonl") && lines[0].contains("request 6/6"));
    assert!(
        lines[1].contains("plan count")
            && lines[1].contains("keep 2")
            && lines[1].contains("cache-edits")
    );
    assert!(
        lines[2].contains("not public"),
        "count thresholds are guesses: {}",
        lines[2]
    );
    let list = list_region(&lines);
    assert_eq!(list.len(), 4);
    assert!(row(&list, "toolu_A").contains("✗ cleared"));
    assert!(row(&list, "toolu_B").contains("✗ cleared"));
    assert!(row(&list, "toolu_C").contains("· kept"));
    assert!(row(&list, "toolu_D").contains("· kept"));
    // The cache_edits block is in the wire payload only: scroll the diff to it.
    let v = view_mut(&mut a);
    let r = v
        .diff
        .rows
        .iter()
        .position(|r| {
            v.diff
                .right_line(r)
                .is_some_and(|t| t.contains("cache_edits"))
        })
        .expect("a cache_edits row");
    assert!(
        v.diff.rows[r].left.is_none(),
        "inserted: nothing on the left"
    );
    v.show_row(r);
    let lines = screen(&a, 120, 40, true);
    let l = row(&lines, "\"cache_edits\"");
    let col = l.chars().position(|c| c == '│').unwrap();
    let cut = l.chars().take(col).collect::<String>();
    assert!(!cut.contains("cache_edits"), "left half: {cut}");
    // cache_reference is visible too, on the right.
    let v = view_mut(&mut a);
    let r = v
        .diff
        .rows
        .iter()
        .position(|r| {
            v.diff
                .right_line(r)
                .is_some_and(|t| t.contains("cache_reference"))
        })
        .unwrap();
    v.show_row(r);
    let lines = screen(&a, 120, 40, true);
    assert!(row(&lines, "\"cache_reference\"").contains('+'));
    // Footer: metadata and the sparkline marks where the plan fired (computed in
    // the background).
    view_mut(&mut a).wait_background();
    let lines = screen(&a, 120, 40, true);
    assert!(lines.iter().any(|l| l.starts_with("context ")));
    assert!(row(&lines, "marks ").contains('▲'));
}

#[test]
fn memory_forced_shows_roots_and_the_escape_target() {
    let a = app(MEMORY, Some(KindArg::Forced));
    let lines = screen(&a, 200, 40, true);
    let list = list_region(&lines);
    assert!(row(&list, "call_proj").contains("◆ protected (project)"));
    assert!(row(&list, "call_user").contains("◆ protected (user)"));
    assert!(row(&list, "call_team").contains("◆ protected (team)"));
    let leak = row(&list, "call_leak");
    assert!(
        leak.contains("✗ cleared") && leak.contains("symlink escape →"),
        "{leak}"
    );
    assert!(leak.contains("tree/home/dev/secrets/notes.md"), "{leak}");
    assert!(row(&list, "call_src").contains("✗ cleared"));
}

#[test]
fn stepping_cycling_and_tuning_replan_at_once() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    let cleared = |a: &App| -> Vec<String> {
        let v = a.view().unwrap();
        v.plan
            .ids_with(&v.setup.session, mcscope::policy::Status::Cleared)
    };
    assert_eq!(cleared(&a), ["toolu_A", "toolu_B"]);
    // keep_recent 2 → 3: toolu_B comes back, and the header marks the change.
    a.update(Action::KeepMore);
    assert_eq!(cleared(&a), ["toolu_A"]);
    let lines = screen(&a, 120, 40, true);
    assert!(lines[1].contains("keep 3*"), "{}", lines[1]);
    a.update(Action::KeepLess);
    assert_eq!(cleared(&a), ["toolu_A", "toolu_B"]);
    // The gap threshold past 75.5 minutes: nothing fires.
    for _ in 0..4 {
        a.update(Action::GapUp);
    }
    assert_eq!(a.view().unwrap().policy().gap_threshold_minutes, 80.0);
    assert!(cleared(&a).is_empty());
    for _ in 0..4 {
        a.update(Action::GapDown);
    }
    // Step back: request 5 is in the tool loop, 3 s after the last answer.
    a.update(Action::PrevRequest);
    assert_eq!(a.view().unwrap().k, 5);
    assert!(cleared(&a).is_empty());
    a.update(Action::LastRequest);
    a.update(Action::FirstRequest);
    assert_eq!(a.view().unwrap().k, 1);
    a.update(Action::NextRequest);
    assert_eq!(a.view().unwrap().k, 2);
    a.update(Action::LastRequest);
    // p cycles (claude) auto → idle → idle-server → forced → size → count → budget
    // → recorded → auto (SPEC §15.3); idle-server is delivered by the server, the
    // next kind goes back to rewrite.
    let kinds: Vec<(&str, &str)> = (0..8)
        .map(|_| {
            a.update(Action::CyclePlan);
            let p = a.view().unwrap().policy();
            (p.kind.name(), p.delivery.name())
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("idle-server", "server"),
            ("forced", "rewrite"),
            ("size", "rewrite"),
            ("count", "rewrite"),
            ("budget", "rewrite"),
            ("recorded", "rewrite"),
            ("auto", "rewrite"),
            ("idle", "rewrite")
        ]
    );
    // d switches delivery: the cache_edits block appears under count.
    for _ in 0..4 {
        a.update(Action::CyclePlan);
    }
    assert!(
        a.view().unwrap().wire_json().contains("cache_edits")
            == (a.view().unwrap().policy().delivery.name() == "cache-edits")
    );
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "cache-edits");
    assert!(v.wire_json().contains("\"cache_edits\""));
    assert!(!v.local_json().contains("cache_edits"));
    a.update(Action::ToggleDelivery);
    assert!(!a.view().unwrap().wire_json().contains("cache_edits"));
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("[Old tool result content cleared]")
    );
    // m toggles protection.
    let before = a.view().unwrap().policy().protect;
    a.update(Action::ToggleProtect);
    assert_ne!(a.view().unwrap().policy().protect, before);
    // Size threshold steps.
    a.update(Action::SizeDown);
    assert_eq!(a.view().unwrap().policy().size_threshold, 450_000);
    a.update(Action::SizeUp);
    assert_eq!(a.view().unwrap().policy().size_threshold, 500_000);
}

#[test]
fn qwen_delivery_toggle_explains_instead() {
    let mut a = app(MEMORY, Some(KindArg::Forced));
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "rewrite");
    assert!(v.status.as_deref().unwrap().contains("Claude"));
}

#[test]
fn explain_shows_the_fate_at_every_request() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.update(Action::Explain);
    let lines = screen(&a, 120, 40, true);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("first vanished from the wire at request 6"))
    );
    assert!(row(&lines, "▶   6").contains("idle: gap 75.5 min >= 60; rank 1 of 4, not in last 2"));
    a.update(Action::Back);
    assert!(a.view().unwrap().overlay.is_none());
    assert!(!a.quit, "Esc closes the panel first");
}

/// The TUI shows the very plan `mcscope plan` prints, for every sample, plan and request.
#[test]
fn tui_agrees_with_the_cli_on_every_sample_and_request() {
    for path in [DEMO, MEMORY, SIZE] {
        for (kind, name) in [
            (KindArg::Idle, "idle"),
            (KindArg::Forced, "forced"),
            (KindArg::Size, "size"),
            (KindArg::Count, "count"),
        ] {
            let mut a = app(path, Some(kind));
            a.update(Action::FirstRequest);
            let n = a.view().unwrap().setup.session.requests.len();
            for k in 1..=n {
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
                    .args([
                        "plan",
                        path,
                        "--policy",
                        name,
                        "--at",
                        &k.to_string(),
                        "--format",
                        "json",
                    ])
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .output()
                    .unwrap();
                let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
                let lines = screen(&a, 200, 60, false);
                let list = list_region(&lines);
                let cands = cli["candidates"].as_array().unwrap();
                assert_eq!(list.len(), cands.len(), "{path} {name} @{k}");
                for (line, c) in list.iter().zip(cands) {
                    let id = c["tool_use_id"].as_str().unwrap();
                    let status = c["status"].as_str().unwrap();
                    assert!(
                        line.contains(id) && line.contains(status),
                        "{path} {name} @{k}: {line} vs {id} {status}"
                    );
                }
                a.update(Action::NextRequest);
            }
        }
    }
}

#[test]
fn p_reaches_budget_and_the_header_says_what_auto_chose_and_its_caveats() {
    const BUDGET: &str = "sample-sessions/claude-budget.jsonl";
    let mut a = app(BUDGET, None);
    a.update(Action::LastRequest);
    for _ in 0..3 {
        a.update(Action::PrevRequest);
    }
    assert_eq!(a.view().unwrap().k, 7);
    let cleared = |a: &App| -> Vec<String> {
        let v = a.view().unwrap();
        v.plan
            .ids_with(&v.setup.session, mcscope::policy::Status::Cleared)
    };
    // auto on a 2.1.17 session runs budget: the header names it, with budget's keep 3
    // and the kill-switch caveat in short.
    let lines = screen(&a, 160, 40, true);
    assert!(lines[1].contains("plan auto → budget"), "{}", lines[1]);
    assert!(lines[1].contains("keep 3"), "{}", lines[1]);
    assert!(
        row(&lines, "may not have run:").contains("budget: off under DISABLE_MICROCOMPACT"),
        "{}",
        lines.join("\n")
    );
    let by_auto = cleared(&a);
    assert_eq!(by_auto.len(), 3);
    // p: idle (keep 5, its own caveat), forced, size, count, then budget again.
    a.update(Action::CyclePlan);
    let lines = screen(&a, 160, 40, true);
    assert!(
        lines[1].contains("plan idle*") && lines[1].contains("keep 5"),
        "{}",
        lines[1]
    );
    assert!(row(&lines, "may not have run:").contains("idle: remote flag"));
    let kinds: Vec<&str> = (0..5)
        .map(|_| {
            a.update(Action::CyclePlan);
            a.view().unwrap().policy().kind.name()
        })
        .collect();
    assert_eq!(kinds, ["idle-server", "forced", "size", "count", "budget"]);
    view_mut(&mut a).wait_background();
    let v = a.view().unwrap();
    assert_eq!(
        v.policy().delivery.name(),
        "rewrite",
        "budget is rewrite only"
    );
    assert_eq!(cleared(&a), by_auto);
    assert_eq!(
        v.wire_json()
            .matches("[Old tool result content cleared]")
            .count(),
        3
    );
    // d refuses under budget, with a word why.
    a.update(Action::ToggleDelivery);
    let v = a.view().unwrap();
    assert_eq!(v.policy().delivery.name(), "rewrite");
    // The words are setup's (one legality check, `Policy::check`).
    assert!(
        v.status
            .as_deref()
            .unwrap()
            .contains("it takes the claude preset and rewrite delivery"),
        "{:?}",
        v.status
    );
    // + from budget's default 3 makes it an explicit 4.
    a.update(Action::KeepMore);
    assert_eq!(a.view().unwrap().policy().keep_recent, Some(4));
}

/// `mcscope FILE --at 3 --keep-recent 1 --policy count`: the TUI loads through
/// `tui::load_session`, as the binary does, and every plan flag applies.
#[test]
fn every_plan_flag_applies_to_the_tui_at_included() {
    let opts = Opts {
        at: Some("3".into()),
        ..Opts::default()
            .with("--keep-recent", "1")
            .with("--policy", "count")
    };
    let progress = std::sync::atomic::AtomicU64::new(0);
    let (setup, at) = mcscope::tui::load_session(&sample(DEMO), &opts, &progress).unwrap();
    let k = at.unwrap();
    assert_eq!(k, 3);
    let cli_plan = mcscope::analysis::plan_at(&setup, 3).unwrap();
    let a = App::session_at(setup, k);
    let lines = screen(&a, 120, 40, true);
    assert!(lines[0].contains("request 3/6"), "{}", lines[0]);
    assert!(
        lines[1].contains("plan count") && lines[1].contains("keep 1"),
        "{}",
        lines[1]
    );
    let v = a.view().unwrap();
    assert_eq!(v.plan.step.newly_cleared, cli_plan.step.newly_cleared);
    assert_eq!(v.plan.step.cleared, cli_plan.step.cleared);
    // An --at the session does not have is the CLI's error, word for word.
    let opts = Opts {
        at: Some("57".into()),
        ..Default::default()
    };
    let (_, at) = mcscope::tui::load_session(&sample(DEMO), &opts, &progress).unwrap();
    assert_eq!(
        at.unwrap_err().to_string(),
        "--at 57: the session has requests 1..=6"
    );
}

/// The footer's marks are the plan's own verdicts at every request.
#[test]
fn timeline_marks_agree_with_the_plan_at_every_request() {
    for path in [DEMO, MEMORY, SIZE] {
        for kind in [
            KindArg::Idle,
            KindArg::Forced,
            KindArg::Size,
            KindArg::Count,
        ] {
            for delivery in [cli::DeliveryArg::Rewrite, cli::DeliveryArg::CacheEdits] {
                let opts = Opts::default()
                    .with("--policy", kind.name())
                    .with("--delivery", delivery.name());
                let Ok(setup) = cli::setup(&sample(path), &opts) else {
                    continue; // cache-edits on qwen
                };
                let n = setup.session.requests.len();
                for k in 1..=n {
                    let marks: Vec<_> = mcscope::tui::app::timeline_marks(&setup, k).collect();
                    let plan = mcscope::analysis::plan_at(&setup, k).unwrap();
                    let m = marks[k - 1];
                    assert_eq!(m.fired, plan.step.fired(), "{path} {kind:?} {k}");
                    assert_eq!(
                        m.broke,
                        plan.cache.prefix_broken_at_message.is_some(),
                        "{path} {kind:?} {delivery:?} {k}"
                    );
                }
            }
        }
    }
}

/// SPEC §13.P3 in the explain panel: on 2.1.332 the `idle` plan (2.1.84–2.1.104
/// only) is a what-if, and the panel says so instead of "first vanished".
#[test]
fn explain_panel_labels_a_what_if_clearing() {
    let mut a = app(
        "sample-sessions/claude-idle-server.jsonl",
        Some(KindArg::Idle),
    );
    // The first row is TodoWrite (never cleared); the next is toolu_01.
    a.update(Action::Down);
    a.update(Action::Explain);
    let lines = screen(&a, 160, 50, true);
    assert!(
        has(
            &lines,
            "what-if: would first vanish from the simulated wire at request 35"
        ),
        "{}",
        lines.join("\n")
    );
    assert!(!has(&lines, "first vanished from the wire"));
    assert!(row(&lines, "  35  ").contains("cleared (what-if)"));
}
