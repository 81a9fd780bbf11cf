//! The TUI's evidence (SPEC §10), Qwen send kinds and media (SPEC §2, §5) on
//! ratatui's TestBackend, and the keys that jump between evidence and observed
//! cache breaks, driven through the keymap's actions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, row, screen_color as screen};

mod common;

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::{App, Filter, ListRow, Overlay};
use mcscope::tui::keymap::{self, Action};
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const BUDGET: &str = "sample-sessions/claude-budget.jsonl";
const TODAY: &str = "sample-sessions/qwen-memory/today.jsonl";
const KINDS: &str = "tests/fixtures/qwen/send-kinds.jsonl";
const MEDIA: &str = "tests/fixtures/qwen/media.jsonl";

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The session at `path` opened as `mcscope PATH [opts]` opens it (`--at`
/// included), its background work done.
fn open(path: &Path, opts: Opts) -> App {
    let setup = cli::setup(path, &opts).unwrap();
    let k = cli::request_index(&setup.session, opts.at.as_deref()).unwrap();
    let mut a = App::session_at(setup, k);
    a.view_mut().unwrap().wait_background();
    a
}

/// The header: the lines above the age list's title.
fn header(lines: &[String]) -> Vec<String> {
    let end = lines
        .iter()
        .position(|l| l.contains("tool results by age"))
        .unwrap();
    lines[..end].to_vec()
}

/// The age list's rows: from below its column titles to the diff's title.
fn list_region(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains("tool results by age"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap();
    lines[start + 2..end]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect()
}

/// The footer: from the cache verdict down.
fn footer(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("✓ cache") || l.starts_with("✕ cache"))
        .unwrap_or_else(|| panic!("no verdict:\n{}", lines.join("\n")));
    lines[start..].to_vec()
}

fn key(a: &mut App, action: Action) {
    a.update(action);
    a.view_mut().unwrap().wait_background();
}

fn k(a: &App) -> usize {
    a.view().unwrap().k
}

fn status(a: &App) -> Option<String> {
    a.view().unwrap().status.clone()
}

// A Claude transcript with evidence: `common::evidence::evidence_session`.
use common::evidence::*;

/// count's trigger 1 and keep 1: the plan the cached records are compared with.
fn count_opts() -> Opts {
    Opts {
        trigger: Some(1),
        keep_recent: Some(1),
        ..Default::default()
    }
}

#[test]
fn evidence_and_observed_breaks_are_marked_on_the_footer() {
    let dir = tempfile::tempdir().unwrap();
    let a = open(&evidence_session(dir.path()), count_opts());
    let v = a.view().unwrap();
    let marks: Vec<(bool, bool)> = v.marks.iter().map(|m| (m.evidence, m.observed)).collect();
    // ◇ at 2 (budget record), 3 (cached record), 4 (cached record, applied edits);
    // ! at 3 and 4.
    assert_eq!(
        marks,
        [(false, false), (true, false), (true, true), (true, true)]
    );
    // Wide enough for the totals on one line: the footer's rows are few.
    let lines = screen(&a, 130, 40, false);
    let foot = footer(&lines);
    // One column per request, every line's cells after the same 9-column
    // label: the marks line has ◇ at 2, and at 3 and 4 the observed break
    // (`!` comes before `◇`, SPEC §15.22) — in the columns of the cache reads
    // 0, 40,000 (the highest: █), a little, 0.
    assert!(
        row(&foot, "marks ").starts_with("marks     ◇!!"),
        "{foot:?}"
    );
    assert!(
        row(&foot, "cache rd").starts_with("cache rd  █▂ "),
        "{foot:?}"
    );
    // Request 4 (shown): its observed break in short, under the verdict and
    // above the recorded bill and the session totals (SPEC §15.22's order).
    assert_eq!(
        foot[1].trim_end(),
        "! observed cache break: read 0 of 41,000 expected (drop 41,000): ttl, cache_edits, context_edits"
    );
    assert!(foot[2].starts_with("recorded: "), "{foot:?}");
    assert!(foot[3].starts_with("session: "), "{foot:?}");
    // The legend says what the marks mean.
    let help = keymap::help_lines();
    assert!(help.iter().any(|l| l.contains("◇ harness evidence")));
    assert!(help.iter().any(|l| l.contains("! an observed cache break")));
}

#[test]
fn r_and_o_jump_to_the_next_and_previous_evidence_and_observed_break() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    assert_eq!(k(&a), 4);
    // R: back through 3 and 2; nothing holds evidence before 2.
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 3);
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 2);
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 2);
    assert_eq!(
        status(&a).as_deref(),
        Some("no earlier request where the transcript holds evidence")
    );
    // The observed breaks are 3 and 4 only: o from 2 goes to 3, then 4.
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 3);
    assert_eq!(status(&a), None);
    // The footer now says request 3's break: 41,000 expected, 11,000 read.
    assert!(has(
        &screen(&a, 100, 40, false),
        "! observed cache break: read 11,000 of 41,000 expected (drop 30,000): cache_edits"
    ));
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 4);
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 4);
    assert_eq!(
        status(&a).as_deref(),
        Some("no later request where a cache break was observed")
    );
    key(&mut a, Action::PrevObserved);
    assert_eq!(k(&a), 3);
    key(&mut a, Action::PrevObserved);
    assert_eq!(k(&a), 3, "no break before 3");
    // From the first request, r goes to 2, the first with evidence.
    key(&mut a, Action::FirstRequest);
    key(&mut a, Action::NextEvidence);
    assert_eq!(k(&a), 2);
    // Request 1 has no observed break: the footer has no line for one.
    key(&mut a, Action::FirstRequest);
    assert!(!has(&screen(&a, 100, 40, false), "observed cache break"));
    // The keys are the keymap's: r, R, o, O, and the hints name two of them.
    for (c, action) in [
        ('r', Action::NextEvidence),
        ('R', Action::PrevEvidence),
        ('o', Action::NextObserved),
        ('O', Action::PrevObserved),
    ] {
        let ev =
            ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char(c));
        assert_eq!(keymap::action_for(ev, false), Some(action));
    }
    assert!(keymap::hints().contains("r record") && keymap::hints().contains("o observed"));
}

/// The marks are the evidence `mcscope evidence` reports, request by request.
#[test]
fn the_marks_agree_with_the_evidence_report_on_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let tx = evidence_session(dir.path());
    for path in [
        tx,
        sample(BUDGET),
        sample(TODAY),
        sample("sample-sessions/claude-demo.jsonl"),
        sample(KINDS),
    ] {
        for kind in [None, Some(KindArg::Count), Some(KindArg::Idle)] {
            let opts = Opts {
                policy: kind,
                ..Default::default()
            };
            let setup = cli::setup(&path, &opts).unwrap();
            let n = setup.session.requests.len();
            let report = mcscope::analysis::evidence_report(&setup, n);
            let a = open(&path, opts);
            let v = a.view().unwrap();
            assert_eq!(v.marks.len(), n);
            for k in 1..=n {
                let ev = report.evidence.at(k).unwrap();
                let m = v.mark(k);
                assert_eq!(m.observed, ev.observed_break.is_some(), "{path:?} {k}");
                let records = ev.microcompact.is_some() || !ev.compactions.is_empty();
                let edits = ev.applied_edits.as_ref().is_some_and(|e| !e.is_empty());
                assert_eq!(m.evidence, records || edits, "{path:?} {k}");
                // The explanations (plan_rewrite included) are the report's.
                assert_eq!(
                    v.evidence_at(k).unwrap().observed_break,
                    ev.observed_break,
                    "{path:?} {k}"
                );
            }
        }
    }
}

fn explain(a: &mut App, id: &str) -> Vec<String> {
    let v = a.view_mut().unwrap();
    v.run_command(&format!("explain {id}"));
    assert!(matches!(v.overlay, Some(Overlay::Explain { .. })));
    screen(a, 140, 50, false)
}

#[test]
fn the_explain_panel_shows_the_records_that_name_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    // a: named by the cached record on line 8, request 3's; the count plan newly clears
    // a there (agrees); the selected plan (auto: budget on 2.1.17, usage far below the
    // gate) clears nothing there, so a is missing from it.
    let lines = explain(&mut a, "a");
    assert!(
        has(
            &lines,
            "◇ microcompact_boundary at line 8 (cached writer) belongs to request 3"
        ),
        "{}",
        lines.join("\n")
    );
    assert!(has(&lines, "cleared [a (this)]"));
    assert!(has(&lines, "pre_tokens 0  tokens_saved 2,000"));
    assert!(has(&lines, "against the count plan: agrees"));
    assert!(has(
        &lines,
        "against the selected plan (auto): missing [a] (named by the record, not cleared by the plan)"
    ));
    a.update(Action::Back);
    // c: line 12's record, request 4's, where count newly clears b instead.
    let lines = explain(&mut a, "c");
    assert!(has(
        &lines,
        "◇ microcompact_boundary at line 12 (cached writer) belongs to request 4"
    ));
    assert!(has(&lines, "pre_tokens 0  tokens_saved 1,000"));
    assert!(
        has(
            &lines,
            "against the count plan: missing [c] (named by the record, not cleared by the plan); extra [b]"
        ),
        "{}",
        lines.join("\n")
    );
    a.update(Action::Back);
    // b: no record names it.
    let lines = explain(&mut a, "b");
    assert!(
        !has(&lines, "microcompact_boundary"),
        "{}",
        lines.join("\n")
    );
    // With count selected, the writer's plan is the selected one: said once.
    let mut a = open(
        &evidence_session(dir.path()),
        Opts {
            policy: Some(KindArg::Count),
            ..count_opts()
        },
    );
    let lines = explain(&mut a, "a");
    assert!(has(&lines, "against the count plan: agrees"));
    assert!(!has(&lines, "against the selected plan"));
}

/// The bundled budget sample: its record on line 19 names three results at request 7,
/// which the budget plan (auto on 2.1.x) reproduces: the panel says so.
#[test]
fn the_budget_samples_record_shows_in_the_explain_panel() {
    let mut a = open(&sample(BUDGET), Opts::default());
    let first = "toolu_01qH7HZN50jZIuWJeHd3PBLK";
    let lines = explain(&mut a, first);
    assert!(has(
        &lines,
        "◇ microcompact_boundary at line 19 (budget writer) belongs to request 7"
    ));
    assert!(has(
        &lines,
        &format!(
            "cleared [{first} (this), toolu_01L7S8L1jAUCfpbbl5zHey6U, toolu_01DqkmUrEG7dgciyZUtEndMC]"
        )
    ));
    assert!(has(&lines, "pre_tokens 122,000  tokens_saved 62,000"));
    assert!(has(&lines, "against the budget plan: agrees"));
    // At 80×24 the record's line still shows (it sits above the rows, which scroll).
    a.resize(80, 24);
    let small = screen(&a, 80, 24, false);
    assert!(
        has(&small, "◇ microcompact_boundary at line 19"),
        "{}",
        small.join("\n")
    );
}

/// Four Bash results of 80,000 chars (20,000 tokens each) in one turn, an answer
/// whose recorded usage is 150,000, then a new prompt: the budget plan fires at the
/// turn start (2.1.88's gate 147,000; clearing A leaves 60,000, saving 20,000, the
/// minimum), where no record is expected.
fn turn_start_session(dir: &Path) -> PathBuf {
    let mut c = common::Claude::default();
    c.prompt("build and test everything", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 80_000);
    }
    c.answer("all green");
    for line in &mut c.lines {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["type"] == "assistant" && v["message"]["content"][0]["type"] == "text" {
            v["message"]["usage"] = json!({"input_tokens": 5, "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": 150_000 - 1005 - 20, "output_tokens": 20});
            *line = v.to_string();
        }
    }
    c.prompt("thanks; and the docs?", 3.0);
    c.answer("the docs build too");
    c.write(dir, "s.jsonl")
}

#[test]
fn a_silent_budget_firing_is_said_in_the_header_and_the_explain_panel() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Opts {
        policy: Some(KindArg::Budget),
        ..Default::default()
    };
    let mut a = open(&turn_start_session(dir.path()), opts);
    assert_eq!(k(&a), 6);
    assert!(a.view().unwrap().mark(6).silent);
    let lines = screen(&a, 120, 40, false);
    let head = header(&lines).join(" ");
    assert!(
        head.contains("silent: budget fired at a turn start"),
        "{head}"
    );
    // A's explain: cleared at 6, with the note on that row only.
    let lines = explain(&mut a, "A");
    let at = lines
        .iter()
        .position(|l| l.contains("   6  ✗ cleared"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(
        lines[at + 1..]
            .iter()
            .take(3)
            .any(|l| l.contains("silent: budget fired at a turn start")),
        "{}",
        lines.join("\n")
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("silent: budget fired"))
            .count(),
        1
    );
    // Request 5 (a tool loop) does not fire: no note in its header.
    a.update(Action::Back);
    key(&mut a, Action::PrevRequest);
    assert!(
        !header(&screen(&a, 120, 40, false))
            .join(" ")
            .contains("silent")
    );
}

#[test]
fn qwen_send_kinds_and_their_notes_are_in_the_header_within_80_columns() {
    // today.jsonl request 5: a notification two hours after request 4.
    let a = open(
        &sample(TODAY),
        Opts {
            at: Some("5".into()),
            ..Default::default()
        },
    );
    let lines = screen(&a, 80, 24, false);
    let head = header(&lines);
    assert!(
        head[0].contains("request 5/6") && head[0].contains("notification"),
        "{head:?}"
    );
    // "notification: notification or teammate message: Qwen runs no microcompaction
    // here" is 82 chars: wrapped to a second line, nothing cut.
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(
            "notification: notification or teammate message: Qwen runs no microcompaction here"
        ),
        "{head:?}"
    );
    // The caveats' line wraps too: its end is on screen.
    assert!(joined.contains("leaves no record"), "{head:?}");
    // send-kinds.jsonl: request 11's unknown subtype, request 7's hook.
    let a = open(
        &sample(KINDS),
        Opts {
            at: Some("11".into()),
            ..Default::default()
        },
    );
    let head = header(&screen(&a, 80, 30, false));
    assert!(head[0].contains("user_query"), "{head:?}");
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("note: unknown input subtype mystery_kind: treated as a prompt"),
        "{head:?}"
    );
    let a = open(
        &sample(KINDS),
        Opts {
            at: Some("7".into()),
            ..Default::default()
        },
    );
    let head = header(&screen(&a, 80, 30, false));
    assert!(head[0].contains("hook"), "{head:?}");
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("no input recorded: assumed a hook continuation"),
        "{head:?}"
    );
}

#[test]
fn the_explain_panel_says_the_send_kind_where_it_decides_the_fate() {
    let mut a = open(&sample(TODAY), Opts::default());
    let lines = explain(&mut a, "call_main");
    // Requests 2–4 send tool results: Qwen runs only size there (the result stays).
    let tool_rows = lines
        .iter()
        .filter(|l| l.contains("tool_result: tool results: Qwen runs only the size check here"))
        .count();
    assert_eq!(tool_rows, 3, "{}", lines.join("\n"));
    // Request 5, the notification: its words are said once (its reason has them).
    assert_eq!(
        lines
            .iter()
            .filter(|l| l
                .contains("notification or teammate message: Qwen runs no microcompaction here"))
            .count(),
        1,
        "{}",
        lines.join("\n")
    );
    // Request 6, the prompt that cleared it: no send-kind line.
    assert!(!has(&lines, "user_query:"), "{}", lines.join("\n"));
}

#[test]
fn sub_agent_records_left_out_are_counted_in_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("look", 0.0).read("t1", "/repo/a.rs").answer("ok");
    let path = c.write(dir.path(), "s.jsonl");
    // Two sub-agent records (isSidechain: true) appended.
    let mut text = std::fs::read_to_string(&path).unwrap();
    for n in 0..2 {
        let mut v: Value = serde_json::from_str(&c.lines[0]).unwrap();
        v["isSidechain"] = json!(true);
        v["uuid"] = json!(format!("side-{n}"));
        text.push_str(&v.to_string());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let a = open(&path, Opts::default());
    assert_eq!(a.view().unwrap().setup.session.sidechain_records, 2);
    let head = header(&screen(&a, 120, 40, false)).join(" ");
    assert!(
        head.contains("2 sub-agent records (0 tool calls) left out of the simulation"),
        "{head}"
    );
    // Without any, nothing is said.
    let a = open(&sample(BUDGET), Opts::default());
    assert!(
        !header(&screen(&a, 120, 40, false))
            .join(" ")
            .contains("sub-agent")
    );
}

#[test]
fn qwen_media_entries_are_listed_with_their_own_status_in_message_order() {
    // forced with keep 1: the pasted image (message 0, part 1) and m1's nested
    // screenshot are cleared, the PDF (part 2) and m2's screenshot (the last) kept.
    let opts = Opts {
        policy: Some(KindArg::Forced),
        keep_recent: Some(1),
        ..Default::default()
    };
    let mut a = open(&sample(MEDIA), opts);
    let lines = screen(&a, 120, 40, false);
    assert!(
        has(&lines, "tool results by age (4 + 4 media)"),
        "{}",
        lines.join("\n")
    );
    let list = list_region(&lines);
    let order: Vec<&str> = list
        .iter()
        .map(|l| {
            let l = l.as_str();
            [
                "image/png (message 0, part 1)",
                "application/pdf (message 0, part 2)",
                " r1 ",
                " m1 ",
                "image/jpeg in m1's result",
                " m2 ",
                "image/jpeg in m2's result",
                " r2 ",
            ]
            .into_iter()
            .find(|n| l.contains(n))
            .unwrap_or(l)
        })
        .collect();
    assert_eq!(
        order,
        [
            "image/png (message 0, part 1)",
            "application/pdf (message 0, part 2)",
            " r1 ",
            " m1 ",
            "image/jpeg in m1's result",
            " m2 ",
            "image/jpeg in m2's result",
            " r2 ",
        ],
        "{list:?}"
    );
    // Glyph and word: readable without colour.
    assert!(row(&list, "image/png").contains("✗ media_cleared"));
    assert!(row(&list, "application/pdf").contains("· kept"));
    assert!(row(&list, "in m1's result").contains("✗ media_cleared"));
    assert!(row(&list, "in m2's result").contains("· kept"));
    // ↓ moves between results only: from r1 to m1, skipping no result, landing on none
    // of the media rows.
    a.view_mut().unwrap().select_id("r1");
    a.update(Action::Down);
    assert_eq!(a.view().unwrap().selected_id().as_deref(), Some("m1"));
    // The cleared filter (s): r1 and the two cleared media entries.
    a.update(Action::CycleFilter);
    let v = a.view().unwrap();
    assert_eq!(v.filter, Filter::Cleared);
    let rows = v.rows();
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r, ListRow::Media(_)))
            .count(),
        2
    );
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r, ListRow::Result(_)))
            .count(),
        1
    );
    let lines = screen(&a, 120, 40, false);
    assert!(
        has(&lines, "(1 of 4 + 2 of 4 media, cleared only, Esc clears)"),
        "{}",
        lines.join("\n")
    );
    let list = list_region(&lines);
    assert_eq!(list.len(), 3, "{list:?}");
    assert!(!has(&list, "application/pdf"));
    // The protected filter shows no media entry.
    a.update(Action::CycleFilter);
    assert_eq!(a.view().unwrap().filter, Filter::Protected);
    assert!(
        a.view()
            .unwrap()
            .rows()
            .iter()
            .all(|r| matches!(r, ListRow::Result(_)))
    );
}

/// On the smallest screen the TUI draws, the footer keeps what SPEC §15.22
/// ranks first: the verdict and the observed break's first explanation, whole;
/// lower lines go whole, never cut mid-word.
#[test]
fn a_short_screen_drops_whole_lines_lowest_rank_first() {
    let a = open(
        &sample(BUDGET),
        Opts {
            at: Some("7".into()),
            ..Default::default()
        },
    );
    let wide = footer(&screen(&a, 200, 50, false));
    let words = |foot: &[String]| -> Vec<String> {
        foot.iter()
            .filter(|l| {
                !["context ", "marks ", "sim ctx~", "cache rd"]
                    .iter()
                    .any(|s| l.starts_with(s))
            })
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let all = words(&wide);
    let lines = screen(&a, ui::MIN_WIDTH, ui::MIN_HEIGHT, false);
    let foot = footer(&lines);
    let text = foot.join(" ");
    assert!(foot[0].starts_with("✕ cache prefix broken"), "{foot:?}");
    assert!(text.contains("re-written)"), "the verdict whole: {foot:?}");
    // The first explanation (plan_rewrite) with the figures before it.
    let observed = foot
        .iter()
        .position(|l| l.starts_with("! observed"))
        .unwrap();
    assert!(
        foot[observed..]
            .join(" ")
            .contains("(drop 108,300): plan_rewrite"),
        "{foot:?}"
    );
    // Every word on the small screen is a whole word of the wide one.
    for w in words(&foot) {
        assert!(all.contains(&w), "{w:?} is cut: {foot:?}");
    }
    // At 80×24 the totals, one sparkline with its marks and the hints are there too.
    let foot = footer(&screen(&a, 80, 24, false));
    for start in ["session: ", "context ", "marks ", "? help"] {
        assert!(
            foot.iter().any(|l| l.starts_with(start)),
            "{start}: {foot:?}"
        );
    }
    for w in words(&foot) {
        assert!(all.contains(&w), "{w:?} is cut: {foot:?}");
    }
}

/// The records are compared with plans run with the other options given: a change
/// of keep_recent is seen by the comparison (the evidence is made again), a step is
/// not a change (it is kept).
#[test]
fn a_parameter_change_remakes_the_comparison_and_a_step_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    let before = a.view().unwrap().evidence.clone().unwrap();
    key(&mut a, Action::PrevRequest);
    key(&mut a, Action::NextRequest);
    // Stepping reuses the evidence without the plan's part: same comparisons.
    assert_eq!(
        a.view()
            .unwrap()
            .evidence
            .as_ref()
            .unwrap()
            .evidence
            .requests,
        before.evidence.requests
    );
    // keep 2 (+): at request 3 the count plan keeps a and b, so the record's a is
    // missing from it.
    key(&mut a, Action::KeepMore);
    assert_eq!(a.view().unwrap().keep_in_force(), 2);
    let lines = explain(&mut a, "a");
    assert!(
        has(
            &lines,
            "against the count plan: missing [a] (named by the record, not cleared by the plan)"
        ),
        "{}",
        lines.join("\n")
    );
}

/// Each `[theme]` key colours its own status or mark (SPEC §8): set to
/// `#010203`, the first cell of its glyph on its line carries it (as the text
/// colour, or the background where the mark is reversed); the default palette
/// puts it nowhere on that line.
#[test]
fn each_theme_key_colours_its_own_status_or_mark() {
    use mcscope::tui::theme::Palette;
    use ratatui::style::Color;
    let dir = tempfile::tempdir().unwrap();
    let evidence = open(&evidence_session(dir.path()), count_opts());
    let demo = |kind| {
        open(
            &sample("sample-sessions/claude-demo.jsonl"),
            Opts {
                policy: Some(kind),
                ..Default::default()
            },
        )
    };
    let (count, idle) = (demo(KindArg::Count), demo(KindArg::Idle));
    let memory = open(
        &sample("sample-sessions/qwen-memory/session.jsonl"),
        Opts {
            policy: Some(KindArg::Forced),
            ..Default::default()
        },
    );
    // count with trigger 1 fires through cache_edits: ▲, the prefix kept.
    let fires = open(
        &sample("sample-sessions/claude-demo.jsonl"),
        Opts {
            policy: Some(KindArg::Count),
            ..count_opts()
        },
    );
    // claude-size: the size plan breaks the prefix before the last request.
    let size = open(
        &sample("sample-sessions/claude-size.jsonl"),
        Opts::default(),
    );
    // key, session, a text on its line, the glyph whose cells take the colour
    // (None: some cell of the line).
    let cases: [(&str, &App, &str, Option<&str>); 15] = [
        ("protected", &memory, "call_proj", Some("◆")),
        ("symlink_escape", &memory, "call_leak", Some("✗")),
        ("cleared", &count, "toolu_A", Some("✗")),
        ("kept", &count, "toolu_C", Some("·")),
        ("prefix_kept", &count, "cache prefix kept", Some("✓")),
        ("prefix_broken", &idle, "cache prefix broken", Some("✕")),
        ("changed", &count, "plan count*", Some("*")),
        (
            "inserted",
            &count,
            "\"cache_reference\": \"toolu_A\"",
            Some("+"),
        ),
        ("deleted", &idle, "~ ", Some("~")),
        ("evidence", &evidence, "marks ", Some("◇")),
        ("observed_break", &evidence, "marks ", Some("!")),
        ("fired", &fires, "marks ", Some("▲")),
        ("cache_break", &size, "marks ", Some("✕")),
        ("current", &evidence, "context ", None),
        ("current", &evidence, "marks ", None),
    ];
    let mark = Color::Rgb(1, 2, 3);
    for (key, app, needle, glyph) in cases {
        for (palette, want) in [
            (Palette::from_entries([(key, "#010203")]).unwrap(), true),
            (Palette::default(), false),
        ] {
            let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
            t.draw(|f| {
                ui::draw(
                    f,
                    app,
                    Theme {
                        color: true,
                        palette,
                    },
                )
            })
            .unwrap();
            let buf = t.backend().buffer().clone();
            let text = |y: u16| (0..120).map(|x| buf[(x, y)].symbol()).collect::<String>();
            let y = (0..40)
                .find(|&y| text(y).contains(needle))
                .unwrap_or_else(|| {
                    let all: Vec<String> = (0..40).map(text).collect();
                    panic!("{key}: no line with {needle:?}:\n{}", all.join("\n"))
                });
            let cells: Vec<_> = (0..120)
                .map(|x| &buf[(x, y)])
                .filter(|c| glyph.is_none_or(|g| c.symbol() == g))
                .collect();
            assert!(!cells.is_empty(), "{key}: no {glyph:?} in {:?}", text(y));
            let coloured = |c: &&ratatui::buffer::Cell| c.fg == mark || c.bg == mark;
            if want && glyph.is_some() {
                // The first (for `~`: the local side's).
                assert!(coloured(&cells[0]), "{key}: {:?}", text(y));
            } else {
                assert_eq!(cells.iter().any(coloured), want, "{key}: {:?}", text(y));
            }
        }
    }
}

/// SPEC §15.21: the explain panel shows a recorded cut that names the result
/// above its fate, with what it did to it.
#[test]
fn the_explain_panel_shows_the_cut_record_above_the_simulation() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-cut.jsonl");
    let mut a = open(&path, Opts::default());
    let lines = explain(&mut a, "toolu_R1");
    let record = lines
        .iter()
        .position(|l| l.contains("◇ tool_results_cut at line 14 belongs to request 7"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(has(&lines, "cut by Claude Code (recorded): its stand-in"));
    let fate = lines
        .iter()
        .position(|l| l.contains("◌ cut"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(record < fate, "the record comes above the simulation");
    a.update(Action::Back);
    let lines = explain(&mut a, "toolu_E1");
    assert!(
        has(&lines, "not applied here: error"),
        "{}",
        lines.join("\n")
    );
}

/// Issue 42 item 4: the explain panel speaks of a Gemini CLI masking and of
/// OpenCode's prune marks in their own words (never `microcompact_boundary`,
/// a line 0 or `pre_tokens`).
#[test]
fn the_explain_panel_names_gemini_and_opencode_records_in_their_own_words() {
    let mut a = open(
        &sample("sample-sessions/gemini-build-masked.jsonl"),
        Opts::default(),
    );
    let lines = explain(&mut a, "read_file__read_file_1796030106117_0");
    let text = lines.join("\n");
    assert!(
        has(
            &lines,
            "◇ masking recorded at line 32 (gemini_mask) belongs to request 4"
        ),
        "{text}"
    );
    assert!(
        has(
            &lines,
            "masked [read_file__read_file_1796030106117_0 (this)"
        ),
        "{text}"
    );
    assert!(has(&lines, "against the mask plan:"), "{text}");
    assert!(
        !text.contains("microcompact_boundary") && !text.contains("pre_tokens"),
        "{text}"
    );

    let mut a = open(
        &sample("sample-sessions/opencode-build.db"),
        Opts::default(),
    );
    let lines = explain(&mut a, "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD");
    let text = lines.join("\n");
    assert!(
        has(
            &lines,
            "◇ OpenCode's prune marks (state.time.compacted) belong to request 8"
        ),
        "{text}"
    );
    assert!(has(&lines, "OpenCode's estimate 60,500"), "{text}");
    assert!(has(&lines, "against the prune plan:"), "{text}");
    assert!(
        !text.contains("microcompact_boundary") && !text.contains("pre_tokens"),
        "{text}"
    );
}
