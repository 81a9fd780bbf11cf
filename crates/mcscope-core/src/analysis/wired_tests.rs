//! The evidence pass's tracked breaks (`analysis::wired`) against the lean engine's, over runs set up as the CLI sets them up.

use crate::analysis::wired::*;
use crate::policy::PlanKind;
use crate::policy::engine::Step;
use crate::setup::Opts;
use std::path::Path;
use strum::VariantArray;

/// Each request's prefix break from a tracked engine's changes
/// (`prefix_break_tracked`, what the evidence pass reads) is the one the
/// two lists of a lean engine give (`prefix_break`), and each step says it
/// fired and newly cleared what the lean step says, on every sample under
/// every kind its harness can run (cuts, prune marks, masks, the size
/// plan's turn starts and the api preset's server edits included).
#[test]
fn the_tracked_break_is_the_listed_break_on_every_sample() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample-sessions");
    let samples = [
        "api-agent.json",
        "claude-budget.jsonl",
        "claude-cut.jsonl",
        "claude-demo.jsonl",
        "claude-idle-server.jsonl",
        "claude-size.jsonl",
        "gemini-build-masked.jsonl",
        "gemini-build.jsonl",
        "opencode-build.db",
        "qwen-memory/session.jsonl",
        "qwen-memory/today.jsonl",
    ];
    let mut compared = 0;
    for name in samples {
        for &kind in PlanKind::VARIANTS {
            let opts = Opts::default().with("--policy", kind.name());
            // A kind the harness cannot run is refused: nothing to compare.
            let Ok(setup) = crate::setup::setup(&dir.join(name), &opts) else {
                continue;
            };
            let s = &setup.session;
            let k = setup.last_request();
            // Each step's break against the step before it in its view: a
            // tracked step's from its changes, a lean step's from its lists.
            let breaks = |steps: &mut dyn Iterator<Item = Step>| {
                let mut prev: Option<Step> = None;
                let mut out = Vec::new();
                for st in steps {
                    let req = &s.requests[st.index - 1];
                    let before = prev
                        .as_ref()
                        .filter(|p| s.requests[p.index - 1].segment == req.segment)
                        .map_or(Wired::NONE, Step::wired);
                    out.push(step_break(s, req, before, &st));
                    prev = Some(st);
                }
                out
            };
            let listed = breaks(&mut crate::analysis::timeline_steps(&setup, k));
            let mut engine = setup.engine(k).tracked().listing_newly();
            let tracked = breaks(&mut std::iter::from_fn(|| engine.step()));
            // And what each step says it did (the evidence reads it).
            let said = |st: Step| {
                let why = (st.kind, st.trigger, st.tokens_saved);
                (st.index, why, st.newly_cleared, st.marked_elsewhere)
            };
            let lean: Vec<_> = crate::analysis::timeline_steps(&setup, k)
                .map(said)
                .collect();
            let mut engine = setup.engine(k).tracked().listing_newly();
            let listing: Vec<_> = std::iter::from_fn(|| engine.step()).map(said).collect();
            assert_eq!(listing, lean, "{name} under {}: the steps", kind.name());
            assert_eq!(tracked, listed, "{name} under {}", kind.name());
            compared += usize::from(listed.iter().any(Option::is_some));
        }
    }
    assert!(compared >= 10, "breaks were compared ({compared} settings)");
}
