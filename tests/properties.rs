//! Property tests (SPEC §2–§6): random Claude and Qwen sessions under random
//! policies, checked at every request against an independent model of the
//! session that the test builds while it writes the transcript.
//!
//! Sessions: 1–6 turns; each a prompt after 0–120 min, 0–6 tool calls (one per
//! response, or 2–3 parallel, Claude sometimes interleaving results between the
//! response's lines), compactable and other tools, results of 0–3000 UTF-16
//! units, errors, placeholders, reused ids, now and then a parallel call left
//! without a result; an answer (the last turn may end in pending results); maybe
//! a trailing prompt; maybe a Claude compact_boundary between turns. Read paths
//! point inside a memory root (a temp dir; the files exist), through `..`, out of
//! it, or elsewhere. Policies: every kind, keep 0–6, gap 0–90, size 0–20000, low
//! watermark, trigger 0–8, rewrite / cache-edits (Claude), protection on/off,
//! sometimes the other harness's preset.
//!
//! The model knows, for every request, its view, whether it begins a turn, its
//! gap, which results are pending, which read results lie inside the memory root,
//! the keep windows, and what each plan kind clears. The only engine output fed
//! back into the checks is the timeline's `newly_cleared` list, to know which
//! clearings are in force when a request starts (`Case::in_force_before`, which
//! applies the persistence rules of SPEC §5 itself).
//!
//! Properties 1–6 are the ones asked for (1 and 2 also check the statuses and
//! protection outcomes the model decides on its own); 3b, 4b, 4c and 7 go
//! further: exact plans, the rewrite wire, the cache-edits blocks, persistence.
//!
//! A failure prints the message (expected vs actual), the request, the policy,
//! the generated session (a Debug value that replays through the `common`
//! builders) and its JSONL lines (long strings abbreviated, builder boilerplate
//! keys dropped). `PROPTEST_CASES=N` searches N sessions per property instead of
//! 16.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::{Claude, Qwen};
use mcscope::analysis::{self, PlanAt, Setup};
use mcscope::cli::{DeliveryArg, KindArg, Opts, PresetArg};
use mcscope::policy::engine::{Status, Step, Trigger};
use mcscope::policy::{Delivery, PlanKind, Policy};
use mcscope::session::HarnessId;
use mcscope::wire::Side;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Value, json};
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

const PLACEHOLDER: &str = "[Old tool result content cleared]";

const CLAUDE_COMPACTABLE: &[&str] = &[
    "Read",
    "Bash",
    "PowerShell",
    "Grep",
    "Glob",
    "WebSearch",
    "WebFetch",
    "Edit",
    "Write",
];
const QWEN_COMPACTABLE: &[&str] = &[
    "read_file",
    "run_shell_command",
    "grep_search",
    "glob",
    "web_fetch",
    "web_search",
    "read_mcp_resource",
    "edit",
    "write_file",
    "skill",
    "search_memory",
];
const CLAUDE_FILE_PATH: &[&str] = &["Read", "Edit", "Write"];
const QWEN_FILE_PATH: &[&str] = &["read_file", "edit", "write_file"];

const STATUSES: [Status; 6] = [
    Status::Kept,
    Status::Cleared,
    Status::Protected,
    Status::AlreadyCleared,
    Status::ErrorKept,
    Status::NotCompactable,
];

/// 16 sessions × `POLICIES` policies per property: loading a session costs
/// ~0.1 s in a debug build, which bounds the file to well under a minute.
/// `PROPTEST_CASES=N` runs N sessions instead (a deeper search).
fn config() -> ProptestConfig {
    let deep = std::env::var("PROPTEST_CASES").is_ok();
    ProptestConfig {
        cases: if deep {
            ProptestConfig::default().cases
        } else {
            16
        },
        // Counterexamples are reported by hand, not written next to the tests.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Generated sessions and policies
// ---------------------------------------------------------------------------

/// One tool call and its result.
#[derive(Debug, Clone)]
struct GenCall {
    /// 0–3 read, 4–5 shell, 6 grep, 7 Edit (qwen: read_file), 8 todo, 9 mcp (qwen: todo).
    tool: u8,
    /// Which kind of path a file-path tool gets (see `path_for`).
    path: u8,
    /// UTF-16 units of the result text (0–3000).
    size: usize,
    charset: u8,
    error: bool,
    /// The result is the placeholder (already cleared in the transcript).
    placeholder: bool,
    /// Reuse an id of an earlier response (picked modulo the ids so far).
    reuse: Option<u8>,
    /// Claude: minutes between the call and its result.
    delay: u8,
    /// No result is written (an interrupted parallel call: its id stays a call
    /// without a result). Only for a call after the first of its response.
    missing: bool,
}

#[derive(Debug, Clone)]
struct GenStep {
    calls: Vec<GenCall>,
    /// Claude, parallel calls: each result is written right after its tool_use
    /// line, between the lines of the response (as Claude Code does).
    interleave: bool,
}

#[derive(Debug, Clone)]
struct GenTurn {
    /// Minutes before the prompt.
    gap: u8,
    /// Responses with tool calls: one call (sequential) or 2–3 (parallel).
    steps: Vec<GenStep>,
    /// Only the last turn may go without an answer (its results then trail).
    answer: bool,
}

#[derive(Debug, Clone)]
struct GenSession {
    qwen: bool,
    turns: Vec<GenTurn>,
    /// A prompt without answer at the end, after this many minutes.
    trailing: Option<u8>,
    /// Claude: a compact_boundary before turn `1 + b % (turns - 1)`.
    boundary: Option<u8>,
}

impl GenSession {
    fn boundary_turn(&self) -> Option<usize> {
        match self.boundary {
            Some(b) if !self.qwen && self.turns.len() >= 2 => {
                Some(1 + b as usize % (self.turns.len() - 1))
            }
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
struct GenPolicy {
    kind: KindArg,
    keep: u32,
    gap: u32,
    size: i64,
    low_watermark: bool,
    trigger: u32,
    /// Claude sessions only (qwen sessions are always sent with rewrite).
    cache_edits: bool,
    protect: bool,
    /// Apply the other harness's preset.
    cross_preset: bool,
}

// ---------------------------------------------------------------------------
// The independent model of a written session
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct MMsg {
    user: bool,
    segment: usize,
    /// Timestamp (ms) of the message's last record.
    last_ts: i64,
    /// User messages: the last record is a prompt (not a tool result).
    last_is_prompt: bool,
}

#[derive(Debug, Clone)]
struct MCall {
    id: String,
    tool: &'static str,
    path: Option<String>,
    msg: usize,
}

#[derive(Debug, Clone)]
struct MRes {
    id: String,
    /// The tool of its own call (qwen: its own `name`, the same here).
    tool: &'static str,
    chars: u64,
    error: bool,
    placeholder: bool,
    msg: usize,
}

#[derive(Debug, Clone)]
struct MReq {
    view_start: usize,
    end: usize,
    segment: usize,
    begins_turn: bool,
    gap_minutes: Option<f64>,
}

#[derive(Debug, Default)]
struct Model {
    qwen: bool,
    /// The builders' clock: every record is 1 s plus its gap after the previous.
    t: i64,
    msgs: Vec<MMsg>,
    seg_start: Vec<usize>,
    calls: Vec<MCall>,
    results: Vec<MRes>,
    reqs: Vec<MReq>,
}

/// `path.resolve(cwd, p)`: absolute, `.` and `..` folded lexically.
fn lexical(p: &str, cwd: &str) -> PathBuf {
    let joined = Path::new(cwd).join(p);
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(x) => out.push(x),
            _ => {}
        }
    }
    out
}

fn utf16(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

// ---------------------------------------------------------------------------
// One case: the written session, its model, and its setup
// ---------------------------------------------------------------------------

/// A written session and its model, shared by the policies it is planned with.
struct Written {
    _dir: tempfile::TempDir,
    sess: GenSession,
    mem: PathBuf,
    lines: Vec<String>,
    m: Model,
}

/// One session under one policy.
struct Case {
    w: Rc<Written>,
    pol: GenPolicy,
    setup: Setup,
    qwen_preset: bool,
    /// The timeline with `forced` acting nowhere (what came before any request).
    timeline: OnceCell<Vec<Step>>,
}

/// Fails the property with the message, the request and the whole case.
macro_rules! check {
    ($case:expr, $k:expr, $cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(TestCaseError::fail(format!(
                "{}\n--- at request {} of {}\n{}",
                format!($($fmt)+),
                $k,
                $case.w.m.reqs.len(),
                $case.context()
            )));
        }
    };
}

/// Fails the property unconditionally (see `check!`).
macro_rules! fail {
    ($case:expr, $k:expr, $($fmt:tt)+) => {
        return Err(TestCaseError::fail(format!(
            "{}\n--- at request {} of {}\n{}",
            format!($($fmt)+),
            $k,
            $case.w.m.reqs.len(),
            $case.context()
        )))
    };
}

#[path = "properties/case.rs"]
mod case;
#[path = "properties/expected.rs"]
mod expected;
#[path = "properties/generate.rs"]
mod generate;
#[path = "properties/persistence.rs"]
mod persistence;
#[path = "properties/statuses.rs"]
mod statuses;
#[path = "properties/transcript.rs"]
mod transcript;
#[path = "properties/wire.rs"]
mod wire;

use case::cases;
use expected::prop_exact_plans;
use generate::{ALL_KINDS, TIME_KINDS, arb_policy, arb_session};
use persistence::{
    prop_errors_and_already_cleared, prop_persistence, prop_totals_are_sums_of_plans,
};
use statuses::{prop_keep_window, prop_protected_never_cleared, prop_statuses_partition};
use transcript::{write_claude, write_qwen};
use wire::{
    prop_bodies_valid, prop_cache_edits_keep_content, prop_cache_edits_shape,
    prop_rewrite_matches_plan,
};

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v
}

// ---------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------

/// Policies planned per generated session (one load serves them all).
const POLICIES: usize = 6;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn p1_statuses_partition_the_candidates(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_statuses_partition(&case)?;
        }
    }

    #[test]
    fn p2_protected_results_are_never_cleared(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES).prop_map(|ps| {
            // Mostly on; the last one off (then no protection may be decided).
            let n = ps.len();
            ps.into_iter()
                .enumerate()
                .map(|(i, p)| GenPolicy { protect: i + 1 < n, ..p })
                .collect::<Vec<_>>()
        }),
    ) {
        for case in cases(sess, pols)? {
            prop_protected_never_cleared(&case)?;
        }
    }

    #[test]
    fn p3_keep_window_is_never_newly_cleared(
        sess in arb_session(None),
        pols in vec(arb_policy(None, TIME_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_keep_window(&case)?;
        }
    }

    #[test]
    fn p3b_plans_fire_and_clear_exactly_as_the_spec_says(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_exact_plans(&case)?;
        }
    }

    #[test]
    fn p4_cache_edits_leave_the_local_content(
        sess in arb_session(Some(false)),
        pols in vec(arb_policy(Some(true), ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_cache_edits_keep_content(&case)?;
        }
    }

    #[test]
    fn p4c_cache_edits_blocks_follow_the_spec(
        sess in arb_session(Some(false)),
        pols in vec(arb_policy(Some(true), ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_cache_edits_shape(&case)?;
        }
    }

    #[test]
    fn p4b_rewrite_replaces_exactly_the_cleared_results(
        sess in arb_session(None),
        pols in vec(arb_policy(Some(false), ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_rewrite_matches_plan(&case)?;
        }
    }

    #[test]
    fn p5_bodies_are_valid_and_hold_the_view(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_bodies_valid(&case)?;
        }
    }

    #[test]
    fn p6_qwen_errors_and_already_cleared_stay(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_errors_and_already_cleared(&case)?;
        }
    }

    #[test]
    fn p7_clearings_persist_as_the_spec_says(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_persistence(&case)?;
        }
    }

    #[test]
    fn p8_session_totals_are_the_sums_of_the_plans(
        sess in arb_session(None),
        pols in vec(arb_policy(None, ALL_KINDS), POLICIES),
    ) {
        for case in cases(sess, pols)? {
            prop_totals_are_sums_of_plans(&case)?;
        }
    }
}
