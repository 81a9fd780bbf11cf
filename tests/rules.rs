//! Every rule of SPEC §2–§5 on small synthetic sessions, through the library API
//! that both the CLI and the TUI use.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::*;
use mcscope::cli::{KindArg, Opts, PresetArg};
use mcscope::policy::engine::{Status, Trigger};
use mcscope::policy::protect::Outcome;
use serde_json::json;

#[path = "rules/eligibility.rs"]
mod eligibility;
#[path = "rules/presets.rs"]
mod presets;
#[path = "rules/requests.rs"]
mod requests;
#[path = "rules/timing.rs"]
mod timing;

fn opts(kind: KindArg, keep: u32) -> Opts {
    Opts::default()
        .with("--policy", kind.name())
        .with("--keep-recent", &keep.to_string())
}

/// A plan at any request equals the timeline's step there (the plan may start its
/// engine later than request 1: it must not matter).
#[test]
fn plan_at_every_request_matches_the_timeline() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for sample in [
        "claude-demo.jsonl",
        "claude-size.jsonl",
        "qwen-memory/session.jsonl",
    ] {
        for kind in [KindArg::Idle, KindArg::Size, KindArg::Count, KindArg::Auto] {
            let o = Opts::default()
                .with("--policy", kind.name())
                .with("--keep-recent", "1")
                .with("--gap-minutes", "0.0")
                .with("--size-threshold", "2000")
                .with("--trigger", "1");
            let s = setup(&root.join("sample-sessions").join(sample), o);
            let n = s.session.requests.len();
            let steps = mcscope::analysis::timeline(&s, n);
            for k in 1..=n {
                let p = plan(&s, k);
                assert_eq!(
                    p.step.cleared,
                    steps[k - 1].cleared,
                    "{sample} {kind:?} @{k}"
                );
                assert_eq!(
                    p.step.newly_cleared,
                    steps[k - 1].newly_cleared,
                    "{sample} {kind:?} @{k}"
                );
                assert_eq!(
                    p.step.fired(),
                    steps[k - 1].fired(),
                    "{sample} {kind:?} @{k}"
                );
            }
        }
    }
}
