//! Qwen Code as it is today (SPEC §2, §3, §5): one test per rule, named after the
//! SPEC bullet it checks, on sessions written with the real record shapes
//! (`shared/reference/qwen-code-jsonl.md`, "Additions").
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::{Qwen, ids, last, plan, setup, status};
use mcscope::cli::Opts;
use mcscope::policy::engine::Status;
use serde_json::json;

#[path = "qwen/plans.rs"]
mod plans;
#[path = "qwen/sends.rs"]
mod sends;
#[path = "qwen/tools.rs"]
mod tools;

fn opts() -> Opts {
    Opts::default().with("--keep-recent", "1")
}

fn forced() -> Opts {
    opts().with("--policy", "forced")
}

fn kinds(s: &mcscope::analysis::Setup) -> Vec<&'static str> {
    s.session
        .requests
        .iter()
        .map(|r| r.send.as_ref().map_or("-", |x| x.kind.name()))
        .collect()
}

fn idle(gap: f64) -> Opts {
    opts()
        .with("--policy", "idle")
        .with("--gap-minutes", &gap.to_string())
}
