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

fn arb_call() -> impl Strategy<Value = GenCall> {
    (
        0u8..10,
        0u8..6,
        prop_oneof![1 => Just(0usize), 2 => 1usize..=40, 4 => 41usize..=3000],
        0u8..4,
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.15, any::<u8>()),
        prop_oneof![4 => Just(0u8), 1 => 1u8..=90],
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(tool, path, size, charset, error, placeholder, reuse, delay, missing)| GenCall {
                tool,
                path,
                size,
                charset,
                error,
                placeholder: placeholder && !error,
                reuse,
                delay,
                missing,
            },
        )
}

fn arb_step() -> impl Strategy<Value = GenStep> {
    (
        prop_oneof![3 => vec(arb_call(), 1..=1), 1 => vec(arb_call(), 2..=3)],
        any::<bool>(),
    )
        .prop_map(|(calls, interleave)| GenStep { calls, interleave })
}

fn arb_turn() -> impl Strategy<Value = GenTurn> {
    (
        0u8..=120,
        vec(arb_step(), 0..=4),
        prop::bool::weighted(0.75),
    )
        .prop_map(|(gap, mut steps, answer)| {
            // At most 6 tool calls per turn.
            while steps.iter().map(|s| s.calls.len()).sum::<usize>() > 6 {
                let last = steps.last_mut().unwrap();
                last.calls.pop();
                if last.calls.is_empty() {
                    steps.pop();
                }
            }
            GenTurn { gap, steps, answer }
        })
}

fn arb_session(harness: Option<bool>) -> impl Strategy<Value = GenSession> {
    let qwen = match harness {
        Some(q) => Just(q).boxed(),
        None => any::<bool>().boxed(),
    };
    (
        qwen,
        vec(arb_turn(), 1..=6),
        prop::option::weighted(0.3, 0u8..=120),
        prop::option::weighted(0.5, any::<u8>()),
    )
        .prop_map(|(qwen, turns, trailing, boundary)| GenSession {
            qwen,
            turns,
            trailing,
            boundary,
        })
}

fn arb_policy(
    cache_edits: Option<bool>,
    kinds: &'static [KindArg],
) -> impl Strategy<Value = GenPolicy> {
    let ce = match cache_edits {
        Some(c) => Just(c).boxed(),
        None => any::<bool>().boxed(),
    };
    (
        proptest::sample::select(kinds),
        0u32..=6,
        0u32..=90,
        prop_oneof![0i64..=3000, 0i64..=20000],
        any::<bool>(),
        0u32..=8,
        ce,
        any::<bool>(),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(
                kind,
                keep,
                gap,
                size,
                low_watermark,
                trigger,
                cache_edits,
                protect,
                cross_preset,
            )| {
                GenPolicy {
                    kind,
                    keep,
                    gap,
                    size,
                    low_watermark,
                    trigger,
                    cache_edits,
                    protect,
                    cross_preset,
                }
            },
        )
}

const ALL_KINDS: &[KindArg] = &[
    KindArg::Auto,
    KindArg::Idle,
    KindArg::Forced,
    KindArg::Size,
    KindArg::Count,
];
const TIME_KINDS: &[KindArg] = &[KindArg::Auto, KindArg::Idle, KindArg::Forced];

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

impl Model {
    fn new(qwen: bool) -> Model {
        Model {
            qwen,
            t: common::T0,
            seg_start: vec![0],
            ..Model::default()
        }
    }

    fn segment(&self) -> usize {
        self.seg_start.len() - 1
    }

    /// One record written `minutes` after the previous one (as the builders do).
    fn tick(&mut self, minutes: f64) -> i64 {
        self.t += (minutes * 60_000.0) as i64 + 1000;
        self.t
    }

    /// A compact_boundary record: the view of later requests starts after it.
    fn boundary(&mut self) {
        self.tick(0.0);
        self.seg_start.push(self.msgs.len());
    }

    /// A user-role record: joins the previous user message of the same segment.
    fn user(&mut self, is_prompt: bool, minutes: f64) -> usize {
        let ts = self.tick(minutes);
        let segment = self.segment();
        match self.msgs.last_mut() {
            Some(m) if m.user && m.segment == segment => {
                m.last_is_prompt = is_prompt;
                m.last_ts = ts;
            }
            _ => self.msgs.push(MMsg {
                user: true,
                segment,
                last_ts: ts,
                last_is_prompt: is_prompt,
            }),
        }
        self.msgs.len() - 1
    }

    /// The first line of a new response.
    fn assistant(&mut self) -> usize {
        let ts = self.tick(0.0);
        let segment = self.segment();
        self.msgs.push(MMsg {
            user: false,
            segment,
            last_ts: ts,
            last_is_prompt: false,
        });
        self.msgs.len() - 1
    }

    /// Another line of response `a` (same `message.id`).
    fn assistant_line(&mut self, a: usize) {
        let ts = self.tick(0.0);
        self.msgs[a].last_ts = ts;
    }

    fn finish(&mut self) {
        let mut ends: Vec<usize> = (0..self.msgs.len())
            .filter(|&i| !self.msgs[i].user)
            .collect();
        if self.msgs.last().is_some_and(|m| m.user) {
            ends.push(self.msgs.len());
        }
        self.reqs = ends.into_iter().map(|end| self.request(end)).collect();
    }

    /// The request that sends messages before `end` (SPEC §2).
    fn request(&self, end: usize) -> MReq {
        let before = &self.msgs[end - 1];
        let view_start = self.seg_start[before.segment];
        // claude: the last response in the view; qwen: anywhere earlier.
        let from = if self.qwen { 0 } else { view_start };
        let prev = (from..end)
            .rev()
            .find(|&i| !self.msgs[i].user)
            .map(|i| self.msgs[i].last_ts);
        MReq {
            view_start,
            end,
            segment: before.segment,
            begins_turn: before.last_is_prompt,
            gap_minutes: prev.map(|p| (before.last_ts - p) as f64 / 60_000.0),
        }
    }

    fn compactable(&self, tool: &str) -> bool {
        let list = if self.qwen {
            QWEN_COMPACTABLE
        } else {
            CLAUDE_COMPACTABLE
        };
        list.contains(&tool)
    }

    fn read_tool(&self) -> &'static str {
        if self.qwen { "read_file" } else { "Read" }
    }

    fn file_path_tool(&self, tool: &str) -> bool {
        let list = if self.qwen {
            QWEN_FILE_PATH
        } else {
            CLAUDE_FILE_PATH
        };
        list.contains(&tool)
    }
}

fn claude_tool(t: u8) -> &'static str {
    match t {
        0..=3 => "Read",
        4 | 5 => "Bash",
        6 => "Grep",
        7 => "Edit",
        8 => "TodoWrite",
        _ => "mcp__x",
    }
}

fn qwen_tool(t: u8) -> &'static str {
    match t {
        0..=3 | 7 => "read_file",
        4 | 5 => "run_shell_command",
        6 => "grep_search",
        _ => "todo_write",
    }
}

fn input(tool: &str, path: Option<&str>) -> Value {
    match tool {
        "Read" | "read_file" => json!({"file_path": path}),
        "Edit" => json!({"file_path": path, "old_string": "a", "new_string": "b"}),
        "Bash" | "run_shell_command" => json!({"command": "make test"}),
        "Grep" | "grep_search" => json!({"pattern": "fn main"}),
        "TodoWrite" | "todo_write" => json!({"todos": []}),
        _ => json!({"q": "x"}),
    }
}

/// Paths inside the memory root (existing, missing, through `..`), escaping it by
/// `..`, absolute elsewhere, and relative to the record's cwd (`/repo`).
fn path_for(kind: u8, n: usize, mem: &Path) -> String {
    let mem = mem.display();
    match kind % 6 {
        0 => format!("{mem}/note{n}.md"),
        1 => format!("{mem}/sub/missing{n}.md"),
        2 => format!("{mem}/sub/../note{n}.md"),
        3 => format!("{mem}/../outside{n}.md"),
        4 => format!("/repo/src/f{n}.rs"),
        _ => format!("src/f{n}.rs"),
    }
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

fn content_of(call: &GenCall) -> String {
    let unit = match call.charset % 4 {
        0 => "x",
        1 => "ab\n",
        2 => "é",
        _ => "😀",
    };
    let mut s = String::new();
    let mut units = 0;
    for ch in unit.chars().cycle() {
        let w = ch.len_utf16();
        if units + w > call.size {
            break;
        }
        s.push(ch);
        units += w;
    }
    s
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

fn opts_of(pol: &GenPolicy, qwen: bool, mem: &Path) -> Opts {
    Opts {
        policy: Some(pol.kind),
        preset: Some(if qwen != pol.cross_preset {
            PresetArg::Qwen
        } else {
            PresetArg::Claude
        }),
        keep_recent: Some(pol.keep),
        gap_minutes: Some(pol.gap as f64),
        size_threshold: Some(pol.size),
        no_low_watermark: !pol.low_watermark,
        trigger: Some(pol.trigger),
        delivery: Some(if pol.cache_edits && !qwen {
            DeliveryArg::CacheEdits
        } else {
            DeliveryArg::Rewrite
        }),
        shared: mcscope::cli::SharedOpts {
            protect: pol.protect,
            no_protect: !pol.protect,
            memory_root: vec![format!("project={}", mem.display())],
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The policy the command line builds from `opts_of(pol)` (checked on the first
/// policy of every session, which goes through `cli::setup`).
fn policy_of(pol: &GenPolicy, qwen: bool) -> Policy {
    let qwen_preset = qwen != pol.cross_preset;
    let mut p = Policy::preset(if qwen_preset {
        HarnessId::Qwen
    } else {
        HarnessId::Claude
    });
    p.kind = match pol.kind {
        KindArg::Auto => PlanKind::Auto,
        KindArg::Idle => PlanKind::Idle,
        KindArg::Forced => PlanKind::Forced,
        KindArg::Size => PlanKind::Size,
        KindArg::Count => PlanKind::Count,
        KindArg::Budget => PlanKind::Budget,
        KindArg::IdleServer => PlanKind::IdleServer,
        KindArg::Api => PlanKind::Api,
        KindArg::Recorded => PlanKind::Recorded,
        KindArg::Mask => PlanKind::Mask,
        KindArg::Prune => PlanKind::Prune,
    };
    p.keep_recent = Some(pol.keep);
    p.gap_threshold_minutes = pol.gap as f64;
    // The gap is always given as a flag here.
    p.gap_explicit = true;
    p.size_threshold = pol.size;
    // The size threshold is always given as a flag here.
    p.size_explicit = true;
    p.low_watermark = pol.low_watermark;
    p.trigger_threshold = pol.trigger;
    p.delivery = if pol.cache_edits && !qwen {
        Delivery::CacheEdits
    } else {
        Delivery::Rewrite
    };
    p.protect = pol.protect;
    p
}

/// Writes the session and plans it with each policy. Loading a session costs
/// most of a case in debug builds, so one load serves several policies: the
/// first goes through `cli::setup`, the others share its session and roots.
fn cases(sess: GenSession, pols: Vec<GenPolicy>) -> Result<Vec<Case>, TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let mem = base.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    for n in 0..40 {
        std::fs::write(mem.join(format!("note{n}.md")), "memory").unwrap();
    }
    let (lines, mut m) = if sess.qwen {
        write_qwen(&sess, &mem)
    } else {
        write_claude(&sess, &mem)
    };
    m.finish();
    let path = base.join("session.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let qwen = sess.qwen;
    let w = Rc::new(Written {
        _dir: dir,
        sess,
        mem,
        lines,
        m,
    });
    let first = common::setup(&path, opts_of(&pols[0], qwen, &w.mem));
    let mut out = Vec::new();
    for pol in pols {
        let setup = Setup {
            policy: policy_of(&pol, qwen),
            ..first.clone()
        };
        out.push(Case {
            w: w.clone(),
            qwen_preset: qwen != pol.cross_preset,
            pol,
            setup,
            timeline: OnceCell::new(),
        });
    }
    let c = &out[0];
    check!(
        c,
        0,
        first.policy == c.setup.policy,
        "cli::setup built {:?}, expected {:?}",
        first.policy,
        c.setup.policy
    );
    for c in &out {
        c.sanity()?;
    }
    Ok(out)
}

impl Case {
    fn context(&self) -> String {
        let mut out = format!(
            "policy: {:?}\n  (generated: {:?})\nmemory root (project): {}\nsession {:?}\n",
            self.setup.policy,
            self.pol,
            self.w.mem.display(),
            self.w.sess
        );
        out.push_str("JSONL (strings over 100 chars abbreviated; parentUuid/isSidechain/userType/sessionId/version/uuid/cwd dropped):\n");
        for (i, l) in self.w.lines.iter().enumerate() {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                for k in [
                    "parentUuid",
                    "isSidechain",
                    "userType",
                    "sessionId",
                    "version",
                    "uuid",
                    "cwd",
                ] {
                    o.remove(k);
                }
            }
            abbreviate(&mut v);
            out.push_str(&format!("{:>3}: {v}\n", i + 1));
        }
        out
    }

    fn n(&self) -> usize {
        self.w.m.reqs.len()
    }

    fn req(&self, k: usize) -> &MReq {
        &self.w.m.reqs[k - 1]
    }

    fn plan(&self, k: usize) -> Result<PlanAt, TestCaseError> {
        analysis::plan_at(&self.setup, k)
            .map_err(|e| TestCaseError::fail(format!("plan_at({k}): {e}\n{}", self.context())))
    }

    fn wire(&self, k: usize, side: Side) -> Result<Value, TestCaseError> {
        analysis::wire_at(&self.setup, k, side).map_err(|e| {
            TestCaseError::fail(format!("wire_at({k}, {side:?}): {e}\n{}", self.context()))
        })
    }

    /// Result indices in the view of request k, in file order.
    fn view_results(&self, k: usize) -> Vec<usize> {
        let q = self.req(k);
        (0..self.w.m.results.len())
            .filter(|&r| (q.view_start..q.end).contains(&self.w.m.results[r].msg))
            .collect()
    }

    fn view_calls(&self, k: usize) -> Vec<usize> {
        let q = self.req(k);
        (0..self.w.m.calls.len())
            .filter(|&c| (q.view_start..q.end).contains(&self.w.m.calls[c].msg))
            .collect()
    }

    fn compactable(&self, r: usize) -> bool {
        self.w.m.compactable(self.w.m.results[r].tool)
    }

    /// SPEC §4 on the model: a non-error read result whose id's file-path-tool calls
    /// in the view all name a path inside the memory root.
    fn protected(&self, k: usize, r: usize) -> bool {
        let res = &self.w.m.results[r];
        if !self.pol.protect || res.tool != self.w.m.read_tool() || res.error {
            return false;
        }
        let paths: Vec<PathBuf> = self
            .view_calls(k)
            .into_iter()
            .map(|c| &self.w.m.calls[c])
            .filter(|c| c.id == res.id && self.w.m.file_path_tool(c.tool))
            .filter_map(|c| c.path.as_deref())
            .map(|p| lexical(p, "/repo"))
            .collect();
        !paths.is_empty() && paths.iter().all(|p| p.starts_with(&self.w.mem))
    }

    fn pending(&self, k: usize, r: usize) -> bool {
        let q = self.req(k);
        !q.begins_turn && self.w.m.results[r].msg + 1 == q.end
    }

    /// Whether request j starts with no clearing in force (SPEC §5 persistence).
    fn resets(&self, j: usize) -> bool {
        j == 1
            || self.req(j).segment != self.req(j - 1).segment
            || (!self.qwen_preset && self.req(j).begins_turn && self.pol.kind != KindArg::Count)
    }

    /// The results whose clearing is in force when request k's plan starts, from
    /// the timeline's `newly_cleared` and the persistence rules.
    fn in_force_before(&self, k: usize) -> HashSet<usize> {
        let steps = self
            .timeline
            .get_or_init(|| analysis::timeline(&self.setup, 0));
        let mut set = HashSet::new();
        for j in 1..=k {
            if self.resets(j) {
                set.clear();
            }
            if j == k {
                break;
            }
            set.extend(steps[j - 1].newly_cleared.iter().copied());
        }
        set
    }

    /// Clearable (SPEC §3): unprotected, not error, not cleared, chars > 0, not pending.
    fn clearable(&self, k: usize, before: &HashSet<usize>) -> Vec<usize> {
        self.view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r)
                    && !self.protected(k, r)
                    && !res.error
                    && !before.contains(&r)
                    && !res.placeholder
                    && res.chars > 0
                    && !self.pending(k, r)
            })
            .collect()
    }

    fn keep(&self) -> usize {
        self.pol.keep.max(1) as usize
    }

    fn ids(&self, rs: &[usize]) -> Vec<&str> {
        rs.iter()
            .map(|&r| self.w.m.results[r].id.as_str())
            .collect()
    }

    /// The session as loaded agrees with the model (requests, results): every
    /// other check maps engine indices to the model through this.
    fn sanity(&self) -> Result<(), TestCaseError> {
        let s = &self.setup.session;
        check!(
            self,
            0,
            s.diagnostics.is_empty(),
            "diagnostics: {:?}",
            s.diagnostics
        );
        type Shape = (usize, usize, usize, bool, Option<f64>);
        let got: Vec<Shape> = s
            .requests
            .iter()
            .map(|r| (r.view_start, r.end, r.segment, r.begins_turn, r.gap_minutes))
            .collect();
        let want: Vec<Shape> = self
            .w
            .m
            .reqs
            .iter()
            .map(|r| (r.view_start, r.end, r.segment, r.begins_turn, r.gap_minutes))
            .collect();
        check!(
            self,
            0,
            got == want,
            "requests (view_start, end, segment, begins_turn, gap_minutes): expected {want:?}, got {got:?}"
        );
        let got: Vec<(&str, usize, bool, bool, u64)> = s
            .results
            .iter()
            .map(|r| (r.id.as_str(), r.msg, r.is_error, r.already_cleared, r.chars))
            .collect();
        let want: Vec<(&str, usize, bool, bool, u64)> = self
            .w
            .m
            .results
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.msg,
                    r.error,
                    r.placeholder,
                    if r.placeholder {
                        utf16(PLACEHOLDER)
                    } else {
                        r.chars
                    },
                )
            })
            .collect();
        check!(
            self,
            0,
            got == want,
            "results (id, msg, error, already_cleared, chars): expected {want:?}, got {got:?}"
        );
        Ok(())
    }
}

fn abbreviate(v: &mut Value) {
    match v {
        Value::String(s) if s.chars().count() > 100 => {
            let head: String = s.chars().take(12).collect();
            *s = format!("{head}…<{} UTF-16 units>", utf16(s));
        }
        Value::Array(a) => a.iter_mut().for_each(abbreviate),
        Value::Object(o) => o.values_mut().for_each(abbreviate),
        _ => {}
    }
}

/// Picks the id of a call: fresh, or one of an earlier response (never twice in
/// one response).
fn next_id(
    call: &GenCall,
    earlier: &[String],
    this_step: &[String],
    fresh: &mut usize,
    prefix: &str,
) -> String {
    if let Some(x) = call.reuse
        && !earlier.is_empty()
    {
        let id = &earlier[x as usize % earlier.len()];
        if !this_step.contains(id) {
            return id.clone();
        }
    }
    *fresh += 1;
    format!("{prefix}{fresh:02}")
}

fn write_claude(sess: &GenSession, mem: &Path) -> (Vec<String>, Model) {
    let mut c = Claude::default();
    let mut m = Model::new(false);
    let mut fresh = 0;
    let mut earlier: Vec<String> = Vec::new();
    let boundary = sess.boundary_turn();
    for (ti, turn) in sess.turns.iter().enumerate() {
        if Some(ti) == boundary {
            c.boundary();
            m.boundary();
            m.user(true, 0.0);
        }
        c.prompt(&format!("prompt {ti}"), turn.gap as f64);
        m.user(true, turn.gap as f64);
        for (si, step) in turn.steps.iter().enumerate() {
            let a = m.msgs.len();
            let mut calls: Vec<(String, &'static str, Value)> = Vec::new();
            let mut this_step: Vec<String> = Vec::new();
            for call in &step.calls {
                let id = next_id(call, &earlier, &this_step, &mut fresh, "toolu_");
                this_step.push(id.clone());
                let tool = claude_tool(call.tool);
                let path = matches!(tool, "Read" | "Edit")
                    .then(|| path_for(call.path, m.calls.len(), mem));
                calls.push((id.clone(), tool, input(tool, path.as_deref())));
                m.calls.push(MCall {
                    id,
                    tool,
                    path,
                    msg: a,
                });
            }
            let msg_id = format!("msg_{ti}_{si}");
            let interleave = step.interleave && calls.len() > 1;
            if !interleave {
                let refs: Vec<(&str, &str, Value)> = calls
                    .iter()
                    .map(|(i, t, v)| (i.as_str(), *t, v.clone()))
                    .collect();
                c.calls(&msg_id, &refs);
                assert_eq!(m.assistant(), a);
                for _ in 1..calls.len() {
                    m.assistant_line(a);
                }
            }
            for (j, (call, (id, tool, inp))) in step.calls.iter().zip(&calls).enumerate() {
                if interleave {
                    c.calls(&msg_id, &[(id.as_str(), *tool, inp.clone())]);
                    if j == 0 {
                        assert_eq!(m.assistant(), a);
                    } else {
                        m.assistant_line(a);
                    }
                }
                if call.missing && j > 0 {
                    continue;
                }
                let content = if call.placeholder {
                    PLACEHOLDER.to_string()
                } else {
                    content_of(call)
                };
                c.result_full(id, json!(content), call.error, call.delay as f64);
                let u = m.user(false, call.delay as f64);
                m.results.push(MRes {
                    id: id.clone(),
                    tool,
                    chars: utf16(&content),
                    error: call.error,
                    placeholder: call.placeholder,
                    msg: u,
                });
            }
            for id in this_step {
                if !earlier.contains(&id) {
                    earlier.push(id);
                }
            }
        }
        if turn.answer || ti + 1 < sess.turns.len() {
            c.answer(&format!("answer {ti}"));
            m.assistant();
        }
    }
    if let Some(g) = sess.trailing {
        c.prompt("and now?", g as f64);
        m.user(true, g as f64);
    }
    (c.lines, m)
}

fn write_qwen(sess: &GenSession, mem: &Path) -> (Vec<String>, Model) {
    let mut q = Qwen::default();
    let mut m = Model::new(true);
    let mut fresh = 0;
    let mut earlier: Vec<String> = Vec::new();
    for (ti, turn) in sess.turns.iter().enumerate() {
        q.prompt(&format!("prompt {ti}"), turn.gap as f64);
        m.user(true, turn.gap as f64);
        for step in &turn.steps {
            let a = m.msgs.len();
            let mut calls: Vec<(String, &'static str, Value)> = Vec::new();
            let mut this_step: Vec<String> = Vec::new();
            for call in &step.calls {
                let id = next_id(call, &earlier, &this_step, &mut fresh, "call_");
                this_step.push(id.clone());
                let tool = qwen_tool(call.tool);
                let path = (tool == "read_file").then(|| path_for(call.path, m.calls.len(), mem));
                calls.push((id.clone(), tool, input(tool, path.as_deref())));
                m.calls.push(MCall {
                    id,
                    tool,
                    path,
                    msg: a,
                });
            }
            let refs: Vec<(&str, &str, Value)> = calls
                .iter()
                .map(|(i, t, v)| (i.as_str(), *t, v.clone()))
                .collect();
            q.calls(&refs);
            assert_eq!(m.assistant(), a);
            for (j, (call, (id, tool, _))) in step.calls.iter().zip(&calls).enumerate() {
                if call.missing && j > 0 {
                    continue;
                }
                let chars = if call.error {
                    q.error(id, tool, "boom: the tool failed");
                    0
                } else if call.placeholder {
                    q.result(id, tool, PLACEHOLDER);
                    utf16(PLACEHOLDER)
                } else {
                    let content = content_of(call);
                    q.result(id, tool, &content);
                    utf16(&content)
                };
                let u = m.user(false, 0.0);
                m.results.push(MRes {
                    id: id.clone(),
                    tool,
                    chars,
                    error: call.error,
                    placeholder: call.placeholder,
                    msg: u,
                });
            }
            for id in this_step {
                if !earlier.contains(&id) {
                    earlier.push(id);
                }
            }
        }
        if turn.answer || ti + 1 < sess.turns.len() {
            q.answer(&format!("answer {ti}"));
            m.assistant();
        }
    }
    if let Some(g) = sess.trailing {
        q.prompt("and now?", g as f64);
        m.user(true, g as f64);
    }
    (q.lines, m)
}

// ---------------------------------------------------------------------------
// Wire helpers
// ---------------------------------------------------------------------------

fn body_messages(body: &Value, qwen: bool) -> Option<&Vec<Value>> {
    body.get(if qwen { "contents" } else { "messages" })
        .and_then(Value::as_array)
}

/// A message's blocks, a string content read as one text block.
fn blocks_of(msg: &Value, qwen: bool) -> Vec<Value> {
    let content = &msg[if qwen { "parts" } else { "content" }];
    match content {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

fn is_result_block(b: &Value, qwen: bool) -> bool {
    if qwen {
        b.get("functionResponse").is_some_and(Value::is_object)
    } else {
        b.get("type").and_then(Value::as_str) == Some("tool_result")
    }
}

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v
}

// ---------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------

/// 1. Every candidate has one status; the status lists partition the candidates,
///    which are exactly the view's tool results, one each.
fn prop_statuses_partition(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let got = sorted(p.candidates.iter().map(|c| c.result).collect());
        let want = case.view_results(k);
        check!(
            case,
            k,
            got == want,
            "candidates must be the view's results, once each: expected {want:?}, got {got:?}"
        );
        let mut listed: HashMap<String, usize> = HashMap::new();
        let mut total = 0;
        for st in STATUSES {
            let list = p.ids_with(s, st);
            let expect: Vec<String> = p
                .candidates
                .iter()
                .filter(|c| c.status == st)
                .map(|c| s.results[c.result].id.clone())
                .collect();
            check!(
                case,
                k,
                list == expect,
                "ids_with({st:?}) = {list:?}, but the candidates with that status are {expect:?}"
            );
            total += list.len();
            for id in list {
                *listed.entry(id).or_default() += 1;
            }
        }
        let mut per_id: HashMap<String, usize> = HashMap::new();
        for c in &p.candidates {
            *per_id.entry(s.results[c.result].id.clone()).or_default() += 1;
        }
        check!(
            case,
            k,
            total == p.candidates.len() && listed == per_id,
            "status lists cover {total} entries {listed:?}, candidates are {} {per_id:?}",
            p.candidates.len()
        );
        let cleared = case.ids(&p.step.cleared);
        let listed_cleared = p.ids_with(s, Status::Cleared);
        check!(
            case,
            k,
            cleared == listed_cleared,
            "step.cleared {cleared:?} differs from the `cleared` list {listed_cleared:?}"
        );
        // The statuses the model decides on its own (precedence, SPEC §5).
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let want: Option<Status> = if !case.compactable(r) {
                Some(Status::NotCompactable)
            } else if res.placeholder {
                Some(Status::AlreadyCleared)
            } else if case.protected(k, r) {
                Some(Status::Protected)
            } else {
                None
            };
            match want {
                Some(st) => check!(
                    case,
                    k,
                    c.status == st,
                    "result {} ({}): expected status {st:?}, got {:?}",
                    res.id,
                    res.tool,
                    c.status
                ),
                None => check!(
                    case,
                    k,
                    matches!(c.status, Status::Kept | Status::Cleared | Status::ErrorKept)
                        && (c.status != Status::ErrorKept || (case.qwen_preset && res.error)),
                    "result {} ({}, error {}): status {:?} is not possible here",
                    res.id,
                    res.tool,
                    res.error,
                    c.status
                ),
            }
        }
    }
    Ok(())
}

/// 2. Protection is decided as the model says, and a protected candidate is never
///    cleared, in force or newly.
fn prop_protected_never_cleared(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let applies = case.pol.protect && res.tool == case.w.m.read_tool() && !res.error;
            check!(
                case,
                k,
                c.protection.is_some() == applies,
                "result {} ({}, error {}): protection {:?}, expected it {}",
                res.id,
                res.tool,
                res.error,
                c.protection,
                if applies { "decided" } else { "null" }
            );
            let protects = c.protection.as_ref().is_some_and(|p| p.outcome.protects());
            let want = case.protected(k, r);
            check!(
                case,
                k,
                protects == want,
                "result {}: protection {:?}, expected protected = {want}",
                res.id,
                c.protection
            );
            if protects {
                check!(
                    case,
                    k,
                    c.status != Status::Cleared
                        && !p.step.cleared.contains(&r)
                        && !p.step.newly_cleared.contains(&r),
                    "protected result {} is cleared (status {:?}, in force {}, newly {})",
                    res.id,
                    c.status,
                    p.step.cleared.contains(&r),
                    p.step.newly_cleared.contains(&r)
                );
            }
        }
    }
    Ok(())
}

/// 3. idle / forced / auto: nothing in the keep window is newly cleared.
fn prop_keep_window(case: &Case) -> Result<(), TestCaseError> {
    let keep = case.keep();
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let newly = sorted(p.step.newly_cleared.clone());
        let before = case.in_force_before(k);
        if case.qwen_preset {
            // Idle and size (what qwen's auto runs) share the clearable window.
            let clearable = case.clearable(k, &before);
            let window = &clearable[clearable.len().saturating_sub(keep)..];
            let hit: Vec<usize> = newly
                .iter()
                .copied()
                .filter(|r| window.contains(r))
                .collect();
            check!(
                case,
                k,
                hit.is_empty(),
                "qwen keep window (last {keep} clearable) {:?}; newly cleared {:?} hits {:?}",
                case.ids(window),
                case.ids(&newly),
                case.ids(&hit)
            );
            let outside: Vec<usize> = newly
                .iter()
                .copied()
                .filter(|r| !clearable.contains(r))
                .collect();
            check!(
                case,
                k,
                outside.is_empty(),
                "qwen clears only clearable results {:?}; newly cleared {:?} includes {:?}",
                case.ids(&clearable),
                case.ids(&newly),
                case.ids(&outside)
            );
        } else {
            let view = case.view_results(k);
            let protected_ids: HashSet<&str> = view
                .iter()
                .filter(|&&r| case.protected(k, r))
                .map(|&r| case.w.m.results[r].id.as_str())
                .collect();
            let call_ids: Vec<&str> = case
                .view_calls(k)
                .into_iter()
                .map(|c| &case.w.m.calls[c])
                .filter(|c| case.w.m.compactable(c.tool))
                .map(|c| c.id.as_str())
                .filter(|id| !protected_ids.contains(id))
                .collect();
            let window: HashSet<&str> = call_ids[call_ids.len().saturating_sub(keep)..]
                .iter()
                .copied()
                .collect();
            let hit: Vec<&str> = case
                .ids(&newly)
                .into_iter()
                .filter(|id| window.contains(id))
                .collect();
            check!(
                case,
                k,
                hit.is_empty(),
                "claude keep window (last {keep} of compactable call ids {call_ids:?}) = {window:?}; \
                 newly cleared {:?} hits {hit:?}",
                case.ids(&newly)
            );
            for &r in &newly {
                let res = &case.w.m.results[r];
                check!(
                    case,
                    k,
                    view.contains(&r)
                        && case.compactable(r)
                        && !case.protected(k, r)
                        && !res.placeholder
                        && !before.contains(&r),
                    "newly cleared {} must be a compactable, unprotected, not yet cleared result \
                     of the view",
                    res.id
                );
            }
        }
    }
    Ok(())
}

/// What SPEC §5 says the plan does at request k: whether it fires, with which
/// trigger, and what it newly clears (result indices, in order).
struct Expected {
    fired: bool,
    trigger: Option<Trigger>,
    newly: Vec<usize>,
    /// The size total before the plan (size only).
    total: Option<u64>,
}

impl Expected {
    fn none() -> Expected {
        Expected {
            fired: false,
            trigger: None,
            newly: Vec::new(),
            total: None,
        }
    }
}

impl Case {
    /// est_tokens (SPEC §2): claude round(chars / 4) half up, qwen ceil(chars / 4).
    fn est_tokens(&self, r: usize) -> u64 {
        let c = self.w.m.results[r].chars;
        if self.w.sess.qwen {
            c.div_ceil(4)
        } else {
            (c + 2) / 4
        }
    }

    /// `idle` / `forced` once they are evaluated: clear outside the keep window,
    /// fire when that saves tokens.
    fn time_based(&self, k: usize, before: &HashSet<usize>, trigger: Trigger) -> Expected {
        let keep = self.keep();
        let clear: Vec<usize> = if self.qwen_preset {
            let clearable = self.clearable(k, before);
            clearable[..clearable.len().saturating_sub(keep)].to_vec()
        } else {
            let view = self.view_results(k);
            let protected_ids: HashSet<&str> = view
                .iter()
                .filter(|&&r| self.protected(k, r))
                .map(|&r| self.w.m.results[r].id.as_str())
                .collect();
            let ids: Vec<&str> = self
                .view_calls(k)
                .into_iter()
                .map(|c| &self.w.m.calls[c])
                .filter(|c| self.w.m.compactable(c.tool))
                .map(|c| c.id.as_str())
                .filter(|id| !protected_ids.contains(id))
                .collect();
            let window: HashSet<&str> = ids[ids.len().saturating_sub(keep)..]
                .iter()
                .copied()
                .collect();
            // The claude preset clears errors too (clear_errors on by default).
            view.into_iter()
                .filter(|&r| {
                    let res = &self.w.m.results[r];
                    self.compactable(r)
                        && !self.protected(k, r)
                        && !res.placeholder
                        && !before.contains(&r)
                        && !window.contains(res.id.as_str())
                })
                .collect()
        };
        let tokens: u64 = clear.iter().map(|&r| self.est_tokens(r)).sum();
        if tokens == 0 {
            return Expected::none();
        }
        Expected {
            fired: true,
            trigger: Some(trigger),
            newly: clear,
            total: None,
        }
    }

    fn gap_holds(&self, k: usize) -> bool {
        self.req(k)
            .gap_minutes
            .is_some_and(|g| g >= self.pol.gap as f64)
    }

    fn idle(&self, k: usize, before: &HashSet<usize>) -> Expected {
        if (self.qwen_preset && !self.req(k).begins_turn) || !self.gap_holds(k) {
            return Expected::none();
        }
        self.time_based(k, before, Trigger::Idle)
    }

    fn size(&self, k: usize, before: &HashSet<usize>) -> Expected {
        let total: u64 = self
            .view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r) && !res.error && !before.contains(&r) && !res.placeholder
            })
            .map(|r| self.w.m.results[r].chars)
            .sum();
        let threshold = self.pol.size as u64;
        let target = if self.pol.low_watermark {
            threshold / 2
        } else {
            threshold
        };
        if total <= threshold {
            return Expected {
                total: Some(total),
                ..Expected::none()
            };
        }
        let clearable = self.clearable(k, before);
        let split = clearable.len().saturating_sub(self.keep());
        let mut left = total;
        let mut newly = Vec::new();
        for &r in &clearable[..split] {
            if left <= target {
                continue;
            }
            left -= self.w.m.results[r].chars;
            newly.push(r);
        }
        // Size fires over the threshold even when nothing can go (an overage).
        Expected {
            fired: true,
            trigger: Some(Trigger::Size),
            newly,
            total: Some(total),
        }
    }

    fn count(&self, k: usize, before: &HashSet<usize>) -> Expected {
        let active: Vec<usize> = self
            .view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r)
                    && !before.contains(&r)
                    && !self.protected(k, r)
                    && !res.placeholder
                    && (!res.error || !self.qwen_preset)
            })
            .collect();
        if active.len() <= self.pol.trigger as usize {
            return Expected::none();
        }
        let last_user = self.req(k).end - 1;
        let split = active.len().saturating_sub(self.keep());
        let newly: Vec<usize> = active[..split]
            .iter()
            .copied()
            .filter(|&r| self.w.m.results[r].msg != last_user)
            .collect();
        if newly.is_empty() {
            return Expected::none();
        }
        Expected {
            fired: true,
            trigger: Some(Trigger::Count),
            newly,
            total: None,
        }
    }

    fn expected(&self, k: usize, before: &HashSet<usize>) -> Expected {
        match self.pol.kind {
            KindArg::Idle => self.idle(k, before),
            KindArg::Forced => self.time_based(k, before, Trigger::Forced),
            KindArg::Size => self.size(k, before),
            KindArg::Count => self.count(k, before),
            KindArg::Auto if !self.qwen_preset => self.idle(k, before),
            // qwen: idle when a turn begins after the gap (even if it clears
            // nothing), else size.
            KindArg::Auto if self.req(k).begins_turn && self.gap_holds(k) => self.idle(k, before),
            KindArg::Auto => self.size(k, before),
            // Generated claude sessions are 2.1.88 (auto: idle); budget has its
            // own tests (tests/budget.rs, policy::budget).
            KindArg::Budget => unreachable!("the generator makes no budget policies"),
            KindArg::Api => unreachable!("the generator makes no api policies"),
            KindArg::IdleServer => unreachable!("the generator makes no idle-server policies"),
            // The baseline has its own tests (tests/baseline.rs).
            KindArg::Recorded => unreachable!("the generator makes no recorded policies"),
            // Gemini CLI's masking has its own tests (tests/gemini.rs).
            KindArg::Mask => unreachable!("the generator makes no mask policies"),
            // OpenCode's prune has its own tests (tests/opencode.rs).
            KindArg::Prune => unreachable!("the generator makes no prune policies"),
        }
    }
}

/// 3b. Every plan kind fires, and newly clears, exactly what SPEC §5 says.
fn prop_exact_plans(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let newly = sorted(p.step.newly_cleared.clone());
        let before = case.in_force_before(k);
        let want = case.expected(k, &before);
        check!(
            case,
            k,
            newly == want.newly,
            "{:?}: expected newly cleared {:?}, got {:?} (in force before: {:?}; gap {:?}, begins_turn {})",
            case.pol.kind,
            case.ids(&want.newly),
            case.ids(&newly),
            case.ids(&sorted(before.iter().copied().collect())),
            case.req(k).gap_minutes,
            case.req(k).begins_turn
        );
        check!(
            case,
            k,
            p.step.fired() == want.fired && p.step.trigger == want.trigger,
            "{:?}: expected fired {} trigger {:?}, got fired {} trigger {:?}",
            case.pol.kind,
            want.fired,
            want.trigger,
            p.step.fired(),
            p.step.trigger
        );
        if let Some(total) = want.total {
            check!(
                case,
                k,
                p.step.chars_before == total,
                "size total before the plan: expected {total}, got {}",
                p.step.chars_before
            );
        }
    }
    Ok(())
}

/// 4. cache-edits: the wire is the local body plus cache_reference / cache_control
///    keys and cache_edits / "." blocks, message by message.
fn prop_cache_edits_keep_content(case: &Case) -> Result<(), TestCaseError> {
    let strip = |b: &Value| -> Value {
        let mut b = b.clone();
        if let Some(o) = b.as_object_mut() {
            o.remove("cache_reference");
            o.remove("cache_control");
        }
        b
    };
    for k in 1..=case.n() {
        let local = case.wire(k, Side::Local)?;
        let wire = case.wire(k, Side::Wire)?;
        let (Some(lm), Some(wm)) = (body_messages(&local, false), body_messages(&wire, false))
        else {
            fail!(case, k, "bodies without messages");
        };
        check!(
            case,
            k,
            lm.len() == wm.len(),
            "local has {} messages, wire {}",
            lm.len(),
            wm.len()
        );
        for (i, (l, w)) in lm.iter().zip(wm).enumerate() {
            let lb = blocks_of(l, false);
            let wb: Vec<Value> = blocks_of(w, false)
                .iter()
                .map(strip)
                .filter(|b| b["type"] != "cache_edits")
                .filter(|b| *b != json!({"type": "text", "text": "."}))
                .collect();
            check!(
                case,
                k,
                lb == wb && l["role"] == w["role"],
                "message {i}: the wire changes more than cache blocks and keys\nlocal: {l}\nwire:  {w}"
            );
            let lr: Vec<&Value> = lb.iter().filter(|b| is_result_block(b, false)).collect();
            let wr: Vec<Value> = blocks_of(w, false)
                .into_iter()
                .filter(|b| is_result_block(b, false))
                .collect();
            let same = lr.len() == wr.len()
                && lr.iter().zip(&wr).all(|(a, b)| {
                    a["content"] == b["content"] && a["tool_use_id"] == b["tool_use_id"]
                });
            check!(
                case,
                k,
                same,
                "message {i}: tool_result contents differ\nlocal: {l}\nwire:  {w}"
            );
        }
    }
    Ok(())
}

/// 4c. cache-edits, the added pieces (SPEC §6): one `cache_control`, in the last
///     message; `cache_reference` = the id on every tool_result strictly before
///     the last message and nowhere else; `cache_edits` blocks only in user
///     messages, never naming an id twice; under `count` (deletions cumulative in
///     the view) they name exactly the ids cleared in the request's wire.
fn prop_cache_edits_shape(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let wire = case.wire(k, Side::Wire)?;
        let msgs = body_messages(&wire, false).cloned().unwrap_or_default();
        let last = msgs.len().saturating_sub(1);
        let mut controls = Vec::new();
        let mut refs: Vec<String> = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            let user = m["role"] == "user";
            for (j, b) in blocks_of(m, false).iter().enumerate() {
                if let Some(cc) = b.get("cache_control") {
                    controls.push((i, j, cc.clone()));
                }
                let want_ref = (is_result_block(b, false) && user && i < last)
                    .then(|| b["tool_use_id"].clone());
                check!(
                    case,
                    k,
                    b.get("cache_reference").cloned() == want_ref,
                    "message {i} block {j}: cache_reference {:?}, expected {want_ref:?}\nmessage: {m}",
                    b.get("cache_reference")
                );
                if b["type"] == "cache_edits" {
                    let edits = b["edits"].as_array().cloned().unwrap_or_default();
                    check!(
                        case,
                        k,
                        user && !edits.is_empty(),
                        "message {i}: a cache_edits block must be non-empty and in a user message: {m}"
                    );
                    for e in edits {
                        let id = e["cache_reference"].as_str().unwrap_or("?").to_string();
                        check!(
                            case,
                            k,
                            e["type"] == "delete" && !refs.contains(&id),
                            "message {i}: bad or repeated delete {e}; earlier deletes {refs:?}"
                        );
                        refs.push(id);
                    }
                }
            }
        }
        check!(
            case,
            k,
            controls.len() == 1
                && controls[0].0 == last
                && controls[0].2 == json!({"type": "ephemeral"}),
            "expected one cache_control {{type: ephemeral}} in the last message ({last}); got {controls:?}"
        );
        if case.pol.kind == KindArg::Count {
            let mut want: Vec<String> = p
                .step
                .cleared
                .iter()
                .map(|&r| s.results[r].id.clone())
                .collect();
            want.sort();
            want.dedup();
            refs.sort();
            check!(
                case,
                k,
                refs == want,
                "count: the wire deletes {refs:?}, but the ids cleared in the wire are {want:?}"
            );
        }
    }
    Ok(())
}

/// 4b. rewrite: the wire is the local body with exactly the results of the
///     plan's `cleared` list replaced by the placeholder.
fn prop_rewrite_matches_plan(case: &Case) -> Result<(), TestCaseError> {
    let qwen = case.w.sess.qwen;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let local = case.wire(k, Side::Local)?;
        let wire = case.wire(k, Side::Wire)?;
        let q = case.req(k);
        let mut expect = local.clone();
        let key = if qwen { "contents" } else { "messages" };
        let part_key = if qwen { "parts" } else { "content" };
        for m in q.view_start..q.end {
            let rs: Vec<usize> = (0..case.w.m.results.len())
                .filter(|&r| case.w.m.results[r].msg == m)
                .collect();
            let Some(blocks) = expect[key][m - q.view_start][part_key].as_array_mut() else {
                check!(
                    case,
                    k,
                    rs.is_empty(),
                    "message {} holds results but no blocks",
                    m - q.view_start
                );
                continue;
            };
            let mut i = 0;
            for b in blocks.iter_mut().filter(|b| is_result_block(b, qwen)) {
                check!(
                    case,
                    k,
                    i < rs.len(),
                    "message {}: more result blocks than results",
                    m - q.view_start
                );
                if p.step.cleared.contains(&rs[i]) {
                    if qwen {
                        b["functionResponse"]["response"] = json!({"output": PLACEHOLDER});
                    } else {
                        b["content"] = json!(PLACEHOLDER);
                    }
                }
                i += 1;
            }
            check!(
                case,
                k,
                i == rs.len(),
                "message {}: {i} result blocks for {} results",
                m - q.view_start,
                rs.len()
            );
        }
        check!(
            case,
            k,
            wire == expect,
            "rewrite wire differs from local + placeholders for cleared {:?}\nexpected: {expect}\nwire:     {wire}",
            case.ids(&p.step.cleared)
        );
    }
    Ok(())
}

/// 5. Both bodies are valid JSON that round-trips, with model and messages /
///    contents; the local body holds the view's messages.
fn prop_bodies_valid(case: &Case) -> Result<(), TestCaseError> {
    let qwen = case.w.sess.qwen;
    for k in 1..=case.n() {
        let q = case.req(k);
        let mut counts = Vec::new();
        for side in [Side::Local, Side::Wire] {
            let body = case.wire(k, side)?;
            let text = serde_json::to_string(&body).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            check!(case, k, back == body, "{side:?} body does not round-trip");
            check!(
                case,
                k,
                body.get("model").is_some(),
                "{side:?} body has no model: {body}"
            );
            let Some(msgs) = body_messages(&body, qwen) else {
                fail!(
                    case,
                    k,
                    "{side:?} body has no {}: {body}",
                    if qwen { "contents" } else { "messages" }
                );
            };
            for (i, m) in msgs.iter().enumerate() {
                let want = match (i % 2 == 0, qwen) {
                    (true, _) => "user",
                    (false, false) => "assistant",
                    (false, true) => "model",
                };
                check!(
                    case,
                    k,
                    m["role"] == want,
                    "{side:?} message {i} has role {}, expected {want} (alternating from user)",
                    m["role"]
                );
            }
            counts.push(msgs.len());
        }
        let view = q.end - q.view_start;
        check!(
            case,
            k,
            counts[0] == view && counts[1] == view,
            "the view has {view} messages; local body {}, wire body {}",
            counts[0],
            counts[1]
        );
    }
    Ok(())
}

/// 6. Qwen preset: errors are error_kept, never cleared; already_cleared results
///    (any preset) are never cleared.
fn prop_errors_and_already_cleared(case: &Case) -> Result<(), TestCaseError> {
    let s = &case.setup.session;
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let cleared = p.ids_with(s, Status::Cleared);
        for c in &p.candidates {
            let r = c.result;
            let res = &case.w.m.results[r];
            let in_cleared = p.step.cleared.contains(&r) || p.step.newly_cleared.contains(&r);
            if case.qwen_preset && res.error && case.compactable(r) {
                check!(
                    case,
                    k,
                    c.status == Status::ErrorKept && !in_cleared,
                    "qwen error result {} has status {:?} (cleared {in_cleared})",
                    res.id,
                    c.status
                );
            }
            if res.placeholder && case.compactable(r) {
                check!(
                    case,
                    k,
                    c.status == Status::AlreadyCleared && !in_cleared,
                    "already-cleared result {} has status {:?} (cleared {in_cleared}); cleared list {cleared:?}",
                    res.id,
                    c.status
                );
            }
        }
    }
    Ok(())
}

/// 7. Persistence: the timeline and the plan agree on what is new at k, and what
///    is cleared in k's wire is what was in force plus what is new.
fn prop_persistence(case: &Case) -> Result<(), TestCaseError> {
    for k in 1..=case.n() {
        let p = case.plan(k)?;
        let forced;
        let steps = if case.pol.kind == KindArg::Forced {
            forced = analysis::timeline(&case.setup, k);
            &forced
        } else {
            case.timeline
                .get_or_init(|| analysis::timeline(&case.setup, 0))
        };
        let newly = sorted(p.step.newly_cleared.clone());
        let tl = sorted(steps[k - 1].newly_cleared.clone());
        check!(
            case,
            k,
            tl == newly,
            "timeline says newly cleared {:?}, plan_at says {:?}",
            case.ids(&tl),
            case.ids(&newly)
        );
        check!(
            case,
            k,
            p.step.fired() || newly.is_empty(),
            "the plan did not fire but newly cleared {:?}",
            case.ids(&newly)
        );
        let before = case.in_force_before(k);
        let want: Vec<usize> = sorted(
            before
                .union(&newly.iter().copied().collect())
                .copied()
                .filter(|&r| !case.protected(k, r) && !case.w.m.results[r].placeholder)
                .collect(),
        );
        let got = sorted(p.step.cleared.clone());
        check!(
            case,
            k,
            got == want,
            "cleared in the wire: expected (in force {:?} + newly {:?}) = {:?}, got {:?}",
            case.ids(&sorted(before.iter().copied().collect())),
            case.ids(&newly),
            case.ids(&want),
            case.ids(&got)
        );
    }
    Ok(())
}

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

/// SPEC §9: every request's figures as `compare` and `timeline` compute them
/// equal `plan --at k`'s, and the setting's totals are their sums. `forced`
/// acts at the last request in a timeline and at K in `plan --at K`: its
/// figures agree at the last request only, so only there are they compared.
fn prop_totals_are_sums_of_plans(case: &Case) -> Result<(), TestCaseError> {
    use mcscope::totals::{self, CacheTtl, SessionFacts};
    let setup = &case.setup;
    let s = &setup.session;
    let facts = SessionFacts::new(s, CacheTtl::Auto);
    let mut rows = Vec::new();
    totals::each_request(setup, &facts, setup.last_request(), |st, f| {
        rows.push((st.clone(), f.clone()));
        Ok(())
    })
    .unwrap();
    let (mut fires, mut not_sent, mut breaks, mut rewritten) = (0, 0, 0, 0);
    let mut ever: HashSet<usize> = HashSet::new();
    for (st, f) in &rows {
        let k = st.index;
        if setup.policy.kind == PlanKind::Forced && k != setup.last_request() {
            continue;
        }
        let plan = analysis::plan_at(setup, k).unwrap();
        let cleared: Vec<usize> = plan
            .candidates
            .iter()
            .filter(|c| c.status == Status::Cleared)
            .map(|c| c.result)
            .collect();
        let in_wire: u64 = cleared.iter().map(|&r| s.results[r].est_tokens).sum();
        check!(
            case,
            k,
            f.in_wire_tokens == in_wire,
            "in_wire_tokens {} != plan's {in_wire}",
            f.in_wire_tokens
        );
        check!(
            case,
            k,
            f.break_at == plan.cache.prefix_broken_at_message,
            "break {:?} != plan's {:?}",
            f.break_at,
            plan.cache.prefix_broken_at_message
        );
        check!(
            case,
            k,
            f.tokens_rewritten == plan.cache.tokens_after_break,
            "tokens_rewritten {} != plan's tokens_after_break {}",
            f.tokens_rewritten,
            plan.cache.tokens_after_break
        );
        fires += u64::from(plan.step.fired());
        not_sent += in_wire;
        if f.break_at.is_some() && f.warm {
            breaks += 1;
            rewritten += plan.cache.tokens_after_break;
        }
        ever.extend(cleared);
    }
    if setup.policy.kind != PlanKind::Forced {
        let t = totals::session_totals(setup, &facts).unwrap();
        let got = (
            t.fires,
            t.cleared_results,
            t.tokens_not_sent,
            t.cache_breaks,
            t.tokens_rewritten,
        );
        let want = (fires, ever.len() as u64, not_sent, breaks, rewritten);
        check!(
            case,
            0,
            got == want,
            "totals {got:?} != sums over plan --at k {want:?}"
        );
    }
    Ok(())
}
