//! The snapshot net (issue 42 item 6), laid before the core is moved: every
//! text output of every sample (`plan`, `timeline`, `evidence`, `compare`,
//! and `explain` of its first result), and the TUI's whole screen at 80×24
//! and 160×45, each held by an insta snapshot in `tests/snapshots/`. A change
//! to any of them fails here and shows the difference; a change meant is
//! reviewed with `cargo insta review` (or `INSTA_UPDATE=always cargo test
//! --test snapshots` and a read of the diff) before it is committed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;

mod common;

use common::bin::run;
use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;

/// Every bundled sample, as a user names it from the repository.
const SAMPLES: [&str; 11] = [
    "sample-sessions/api-agent.json",
    "sample-sessions/claude-budget.jsonl",
    "sample-sessions/claude-cut.jsonl",
    "sample-sessions/claude-demo.jsonl",
    "sample-sessions/claude-idle-server.jsonl",
    "sample-sessions/claude-size.jsonl",
    "sample-sessions/gemini-build-masked.jsonl",
    "sample-sessions/gemini-build.jsonl",
    "sample-sessions/opencode-build.db",
    "sample-sessions/qwen-memory/today.jsonl",
    "sample-sessions/cline-task",
];

/// A snapshot's name for `sample` (its file name without the folders).
fn name(sample: &str) -> String {
    sample
        .trim_start_matches("sample-sessions/")
        .replace(['/', '.'], "_")
}

/// What a user sees of one command: its exit status, stdout and stderr.
fn shown(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    // Paths resolved from the checkout (a memory root) hold its folder: not
    // part of what is held.
    format!(
        "$ mcscope {}\nexit {code}\n--- stdout\n{out}--- stderr\n{err}",
        args.join(" ")
    )
    .replace(env!("CARGO_MANIFEST_DIR"), "<ROOT>")
}

/// The first result id of `sample`, as `plan` lists its candidates.
fn first_result(sample: &str) -> Option<String> {
    let (_, out, _) = run(&["plan", sample, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).ok()?;
    v["candidates"][0]["tool_use_id"]
        .as_str()
        .map(str::to_string)
}

#[test]
fn every_text_output_of_every_sample() {
    for sample in SAMPLES {
        for cmd in ["plan", "timeline", "evidence", "compare"] {
            insta::assert_snapshot!(
                format!("{cmd}__{}", name(sample)),
                shown(&[cmd, sample, "-z", "UTC"])
            );
        }
        // The cache-write bill of the session (SPEC §16.R's session text).
        insta::assert_snapshot!(
            format!("bill__{}", name(sample)),
            shown(&["bill", sample, "--by", "session", "-b", "-z", "UTC"])
        );
        if let Some(id) = first_result(sample) {
            insta::assert_snapshot!(
                format!("explain__{}", name(sample)),
                shown(&["explain", sample, &id, "-z", "UTC"])
            );
        }
    }
}

/// The bill of the whole samples folder by day (its table, where the money
/// went, the levers and the note on harnesses without cache writes).
#[test]
fn the_bill_of_the_samples_by_day() {
    insta::assert_snapshot!(
        "bill_by_day__sample-sessions",
        shown(&["bill", "sample-sessions", "-q", "-z", "UTC"])
    );
}

#[test]
fn the_whole_screen_of_every_sample_at_80x24_and_160x45() {
    mcscope::zone::set_display(jiff::tz::TimeZone::UTC);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for sample in SAMPLES {
        let setup = cli::setup(&root.join(sample), &Opts::default()).unwrap();
        let mut app = App::session(setup);
        app.view_mut().unwrap().wait_background();
        for (w, h) in [(80u16, 24u16), (160, 45)] {
            let lines = screen::screen(&app, w, h);
            // The session's path as this checkout names it is not part of
            // what is held.
            let text = lines
                .join("\n")
                .replace(&root.display().to_string(), "<ROOT>");
            insta::assert_snapshot!(format!("screen_{w}x{h}__{}", name(sample)), text);
        }
    }
}
