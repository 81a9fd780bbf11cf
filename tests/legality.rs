//! One legality check (issue 22 item 5): `Policy::check` decides which plans a
//! session's harness can run, and `setup`, the TUI and `compare`'s grid all ask
//! it. Each hole the TUI had (a state setup refuses) is driven here through the
//! real keymap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/screen.rs"]
mod screen;

use common::bin;
use mcscope::cli::{self, Opts};
use mcscope::policy::{Delivery, PlanKind};
use mcscope::tui::app::App;
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::Path;

const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const QWEN: &str = "sample-sessions/qwen-memory/session.jsonl";
const OPENCODE: &str = "sample-sessions/opencode-build.db";
const GEMINI: &str = "sample-sessions/gemini-build.jsonl";

fn open(path: &str) -> App {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    App::session(cli::setup(&path, &Opts::default()).unwrap())
}

/// Keys through the real keymap, as a user types them.
fn keys(a: &mut App, text: &str) {
    for c in text.chars() {
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        let action = keymap::action_for(KeyEvent::from(code), a.in_text_input())
            .unwrap_or_else(|| panic!("no action for {c:?}"));
        a.update(action);
    }
}

fn status(a: &App) -> String {
    a.view().unwrap().status.clone().unwrap_or_default()
}

/// `:delivery server` on a claude idle plan used to show results cleared while
/// the wire kept them (setup refuses it): now the TUI refuses it too, with
/// setup's words, and the plan in force stays.
#[test]
fn tui_refuses_delivery_server_on_an_idle_plan_as_setup_does() {
    let mut a = open(DEMO);
    keys(&mut a, ":policy idle\n");
    assert_eq!(a.view().unwrap().policy().kind, PlanKind::Idle);
    keys(&mut a, ":delivery server\n");
    let p = a.view().unwrap().policy();
    assert_eq!(p.delivery, Delivery::Rewrite);
    assert_eq!(
        status(&a),
        "refused: delivery server is the api preset's (--preset api)"
    );
    // The binary refuses the same plan with the same sentence.
    let (code, _, err) = bin::run(&["plan", DEMO, "--policy", "idle", "--delivery", "server"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("delivery server is the api preset's (--preset api)"),
        "{err}"
    );
    // A typed refusal carries a line saying what would work.
    assert!(
        err.ends_with(
            "\n  tip: --delivery rewrite keeps this plan; --preset api runs the server's edits\n"
        ),
        "{err}"
    );
}

/// `:delivery cache-edits` under budget was tuned to (budget is rewrite only).
#[test]
fn tui_refuses_cache_edits_under_budget() {
    let mut a = open(DEMO);
    keys(&mut a, ":policy budget\n");
    assert_eq!(a.view().unwrap().policy().kind, PlanKind::Budget);
    keys(&mut a, ":delivery cache-edits\n");
    assert_eq!(a.view().unwrap().policy().delivery, Delivery::Rewrite);
    assert!(
        status(&a)
            .starts_with("refused: the budget plan is Claude Code's token-budget microcompact"),
        "{}",
        status(&a)
    );
    // `d` asks the same check.
    keys(&mut a, "d");
    assert_eq!(a.view().unwrap().policy().delivery, Delivery::Rewrite);
    assert!(
        status(&a).starts_with("refused: the budget plan"),
        "{}",
        status(&a)
    );
}

/// `:policy api` on a session without the api preset was tuned to.
#[test]
fn tui_refuses_plan_kind_api_without_the_api_preset() {
    let mut a = open(DEMO);
    let before = a.view().unwrap().policy().kind;
    keys(&mut a, ":policy api\n");
    assert_eq!(a.view().unwrap().policy().kind, before);
    assert!(
        status(&a).starts_with("refused: plan kind api takes the api preset"),
        "{}",
        status(&a)
    );
}

/// A qwen session: idle-server, budget and cache-edits are Claude Code's.
#[test]
fn tui_refuses_claude_plans_on_a_qwen_session() {
    let mut a = open(QWEN);
    let before = a.view().unwrap().policy().clone();
    keys(&mut a, ":policy idle-server\n");
    assert_eq!(
        status(&a),
        "refused: idle-server is Claude Code's plan: it takes the claude preset"
    );
    keys(&mut a, ":policy budget\n");
    assert!(
        status(&a).starts_with("refused: the budget plan"),
        "{}",
        status(&a)
    );
    keys(&mut a, "d");
    assert_eq!(
        status(&a),
        "refused: cache-edits delivery is Claude Code's cached microcompact; qwen sessions are sent with rewrite"
    );
    assert_eq!(a.view().unwrap().policy(), &before);
    // What qwen runs is still tuned to.
    keys(&mut a, ":policy size\n");
    assert_eq!(a.view().unwrap().policy().kind, PlanKind::Size);
    assert_eq!(status(&a), "");
}

/// The tip says what would work on this session: a qwen session is never
/// offered the api preset, which cannot take it.
#[test]
fn the_tip_fits_the_session_s_harness() {
    let (code, _, err) = bin::run(&["plan", QWEN, "--policy", "idle", "--delivery", "server"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.ends_with("\n  tip: --delivery rewrite keeps this plan\n"),
        "{err}"
    );
    let (_, _, err) = bin::run(&["plan", DEMO, "--policy", "idle", "--delivery", "server"]);
    assert!(
        err.contains("--preset api runs the server's edits"),
        "{err}"
    );
}

/// SPEC §6, §11: cache-edits and the server's edits are Claude's. OpenCode's
/// body is Messages-shaped, but OpenCode sends neither (its row offers rewrite
/// only), so neither is simulated on its sessions, nor offered in a tip.
#[test]
fn only_claude_sessions_take_cache_edits_or_the_api_preset() {
    for (path, name) in [(OPENCODE, "opencode"), (GEMINI, "gemini"), (QWEN, "qwen")] {
        let (code, _, err) = bin::run(&["plan", path, "--delivery", "cache-edits"]);
        assert_eq!(code, 2, "{path}: {err}");
        assert!(
            err.contains(&format!("{name} sessions are sent with rewrite")),
            "{err}"
        );
        let (code, _, err) = bin::run(&["plan", path, "--preset", "api"]);
        assert_eq!(code, 2, "{path}: {err}");
        assert!(
            err.contains(&format!(
                "{name} sessions are not sent that way (use --preset {name})"
            )),
            "{err}"
        );
        // The message says what would work: no tip.
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        let (code, _, err) = bin::run(&["plan", path, "--policy", "auto", "--delivery", "server"]);
        assert_eq!(code, 2, "{path}: {err}");
        assert!(
            err.contains(&format!("{name} sessions are sent with rewrite"))
                && !err.contains("--preset api"),
            "{err}"
        );
    }
    let (code, _, err) = bin::run(&[
        "plan",
        DEMO,
        "--policy",
        "count",
        "--delivery",
        "cache-edits",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// `p` walks only the kinds the harness offers, each one legal.
#[test]
fn p_cycles_through_legal_plans_only() {
    for (path, n) in [(DEMO, 8), (QWEN, 6)] {
        let mut a = open(path);
        let mut seen = Vec::new();
        for _ in 0..n {
            keys(&mut a, "p");
            assert!(!status(&a).starts_with("refused"), "{path}: {}", status(&a));
            seen.push(a.view().unwrap().policy().kind);
        }
        let unique: std::collections::BTreeSet<_> = seen.iter().map(|k| k.name()).collect();
        assert_eq!(unique.len(), n, "{path}: {seen:?}");
    }
}

/// `compare` leaves out what setup refuses: a delivery list with `server` gives
/// no idle row delivered by the server.
#[test]
fn compare_grid_leaves_out_what_setup_refuses() {
    let v = bin::json(&[
        "compare",
        DEMO,
        "--policy",
        "idle,budget",
        "--delivery",
        "rewrite,server,cache-edits",
        "--keep-recent",
        "5",
        "--format",
        "json",
    ]);
    let rows: Vec<(String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["baseline"] != true)
        .map(|r| {
            (
                r["policy"]["kind"].as_str().unwrap().to_string(),
                r["policy"]["delivery"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("idle", "rewrite"),
        ("idle", "cache-edits"),
        ("budget", "rewrite"),
    ]
    .iter()
    .map(|(k, d)| (k.to_string(), d.to_string()))
    .collect();
    assert_eq!(rows, want);
    // Each row left is one the binary plans.
    for (kind, delivery) in &rows {
        let (code, _, err) = bin::run(&["plan", DEMO, "--policy", kind, "--delivery", delivery]);
        assert_eq!(code, 0, "{kind} {delivery}: {err}");
    }
}

/// Issue 22 item 4: every changed value is starred in the header, trigger and
/// the low watermark included (they were shown unmarked or not at all).
#[test]
fn the_header_stars_trigger_and_shows_where_the_low_watermark_came_from() {
    let mut a = open(DEMO);
    keys(&mut a, ":policy count\n:trigger 4\n");
    assert_eq!(a.view().unwrap().policy().trigger_threshold, 4);
    let lines = screen::screen(&a, 160, 40);
    assert!(lines[1].contains("trigger 4*"), "{}", lines[1]);
    assert!(!lines[1].contains("low watermark"), "{}", lines[1]);
    // Off by flag: shown, with the flag's mark.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO);
    let opts = Opts::default().with("--no-low-watermark", "");
    let a = App::session(cli::setup(&path, &opts).unwrap());
    let lines = screen::screen(&a, 160, 40);
    assert!(lines[1].contains("low watermark off*"), "{}", lines[1]);
}

/// At 80x24 a refusal longer than a line is shown whole: its second line
/// stays, and other footer lines give way (it answers the key just pressed).
#[test]
fn a_long_refusal_is_whole_at_80x24() {
    // The OpenCode sample's footer is full (an observed break, the recorded
    // bill, the totals): the refusal's second line stays all the same.
    for path in [QWEN, OPENCODE] {
        let mut a = open(path);
        // The footer as a user sees it: the totals and the bill computed.
        a.view_mut().unwrap().wait_background();
        keys(&mut a, "d");
        let lines = screen::screen(&a, 80, 24);
        let at = lines
            .iter()
            .position(|l| l.starts_with("refused: cache-edits delivery"))
            .unwrap_or_else(|| panic!("{}", lines.join("\n")));
        assert!(
            lines
                .get(at + 1)
                .is_some_and(|l| l.trim().ends_with("sent with rewrite")),
            "{path}:\n{}",
            lines.join("\n")
        );
    }
}

/// SPEC §15.6: under auto, a delivery asked for applies to the kinds that take
/// it, and `plan` refuses one a request's chosen kind does not take. `d` on a
/// session whose auto runs budget (rewrite only) or idle-server (server only)
/// used to move to cache-edits anyway, and `compare` listed the setting; now
/// both refuse it with plan's words (`Policy::check_requests`).
#[test]
fn auto_with_a_delivery_a_request_s_kind_refuses_is_refused_everywhere() {
    for (path, kind) in [
        ("sample-sessions/claude-budget.jsonl", "budget"),
        ("sample-sessions/claude-idle-server.jsonl", "idle-server"),
    ] {
        let mut a = open(path);
        assert_eq!(a.view().unwrap().policy().kind, PlanKind::Auto);
        assert_eq!(a.view().unwrap().policy().delivery, Delivery::Rewrite);
        keys(&mut a, "d");
        assert_eq!(
            a.view().unwrap().policy().delivery,
            Delivery::Rewrite,
            "{path}: the plan in force stays"
        );
        let why = format!(
            "auto runs {kind} there (Claude Code {}), which does not take delivery cache-edits",
            if kind == "budget" {
                "2.1.17"
            } else {
                "2.1.332"
            }
        );
        let said = status(&a);
        assert!(
            said.starts_with("refused: request ") && said.ends_with(&why),
            "{said}"
        );
        // plan refuses it with the same words, and a tip of what would work.
        let (code, _, err) = bin::run(&["plan", path, "--delivery", "cache-edits"]);
        assert_eq!(code, 2, "{err}");
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].ends_with(&why), "{err}");
        assert_eq!(
            lines[1],
            "  tip: leave out --delivery (auto gives each kind its own), or give --policy one kind"
        );
        // compare leaves it out of its rows and says why under the table.
        let args = [
            "compare",
            path,
            "--policy",
            "auto",
            "--delivery",
            "rewrite,cache-edits",
        ];
        let (code, out, err) = bin::run(&args);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.lines()
                .any(|l| l.starts_with("left out: auto cache-edits: ") && l.ends_with(&why)),
            "{out}"
        );
        let (code, out, err) = bin::run(&[&args[..], &["--format", "json"]].concat());
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        for row in v["rows"].as_array().unwrap() {
            let p = &row["policy"];
            assert!(
                !(p["kind"] == "auto" && p["delivery"] == "cache-edits"),
                "{path}: {row}"
            );
        }
    }
}

/// Issue 22 item 4: every value the header shows is marked where it was set
/// or changed: the budget plan's three numbers (given by flags here), the
/// error-clearing switch, and each value of an api edit by itself (`+` tunes
/// keep alone, so only keep is starred; the trigger keeps the sidecar's mark).
#[test]
fn the_header_marks_the_budget_the_error_switch_and_each_api_value() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-budget.jsonl");
    let mut opts = Opts::default();
    opts.given.read("--budget-tokens", "12345").unwrap();
    opts.given.read("--budget-min-saving", "777").unwrap();
    opts.given.read("--clear-errors", "").unwrap();
    let a = App::session(cli::setup(&path, &opts).unwrap());
    let mut a = a;
    // The request where auto runs budget (the sample's last).
    keys(&mut a, "G");
    let lines = screen::screen(&a, 160, 40);
    assert!(
        screen::has(&lines, "budget 12,345* (min 777*, gate "),
        "{lines:#?}"
    );
    assert!(screen::has(&lines, "errors cleared*"), "{lines:#?}");
    // Unset, the budget's numbers and the switch carry no mark.
    let mut b = open("sample-sessions/claude-budget.jsonl");
    keys(&mut b, "G");
    let lines = screen::screen(&b, 160, 40);
    assert!(
        screen::has(&lines, "budget 40,000 (min 20,000, gate 135,000)"),
        "{lines:#?}"
    );
    assert!(!screen::has(&lines, "errors "), "{lines:#?}");

    let mut c = open("sample-sessions/api-agent.json");
    let lines = screen::screen(&c, 160, 40);
    assert!(
        screen::has(&lines, "clear_tool_uses > 30,000 tokˢ"),
        "{lines:#?}"
    );
    assert!(screen::has(&lines, "keep 5ˢ"), "{lines:#?}");
    keys(&mut c, "+");
    let lines = screen::screen(&c, 160, 40);
    assert!(screen::has(&lines, "keep 6*"), "{lines:#?}");
    assert!(
        screen::has(&lines, "clear_tool_uses > 30,000 tokˢ"),
        "{lines:#?}"
    );
    assert!(screen::has(&lines, "at least 5,000ˢ"), "{lines:#?}");
}

/// Issue 22 item 6: the api preset's and the baseline's refusals are typed
/// (`UsageError::ApiKindOnly`, `ApiDelivery`, `BaselineParams`) and, as every
/// plan refusal, carry a tip of what would work; the messages are as before.
#[test]
fn the_api_preset_s_and_the_baseline_s_refusals_say_what_would_work() {
    const API: &str = "sample-sessions/api-agent.json";
    for (args, said, tip) in [
        (
            vec!["plan", API, "--preset", "api", "--policy", "idle"],
            "the api preset runs the api plan only (got --policy idle)",
            "  tip: leave out --policy: the api preset runs the api plan",
        ),
        (
            vec!["plan", API, "--preset", "api", "--delivery", "rewrite"],
            "the api preset's edits are applied by the server: its delivery is server (got rewrite)",
            "  tip: leave out --delivery: the api preset's is server",
        ),
        (
            vec!["plan", DEMO, "--policy", "recorded", "--keep-recent", "3"],
            "it takes no plan parameters (got --keep-recent)",
            "  tip: leave out the plan flags, or give --policy another kind to tune",
        ),
    ] {
        let (code, out, err) = bin::run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {err}");
        assert!(lines[0].ends_with(said), "{args:?}: {err}");
        assert_eq!(lines[1], tip, "{args:?}");
    }
}

/// A delivery a sidecar gave is refused as one the flag gave, and the tip
/// names where it came from, not a `--delivery` the user never typed.
#[test]
fn a_tip_names_the_sidecar_s_delivery_as_the_sidecar_s() {
    let dir = tempfile::tempdir().unwrap();
    for (sample, sidecar, tip) in [
        (
            "sample-sessions/claude-idle-server.jsonl",
            r#"{"delivery": "cache-edits"}"#,
            "  tip: leave out the \"delivery\" of the sidecar or the config file (auto gives each kind its own), or give --policy one kind",
        ),
        (
            "sample-sessions/api-agent.json",
            r#"{"preset": "api", "delivery": "rewrite"}"#,
            "  tip: leave out the \"delivery\" of the sidecar or the config file: the api preset's is server",
        ),
    ] {
        let name = Path::new(sample).file_name().unwrap().to_str().unwrap();
        let path = dir.path().join(name);
        std::fs::copy(sample, &path).unwrap();
        let stem = name.rsplit_once('.').unwrap().0;
        std::fs::write(dir.path().join(format!("{stem}.mcscope.json")), sidecar).unwrap();
        let (code, _, err) = bin::run(&["plan", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert_eq!(lines[1], tip, "{sample}");
    }
}
