//! The words every part of mcscope shares, and nothing else: which harness and
//! format a session is, the plan kinds and deliveries, how a harness ranks its
//! results, what kind of send a request is, why no plan ran and whether the
//! harness could have run one. A leaf: it imports no module of mcscope, so any
//! module may use it without tying itself to another (`docs/architecture.md`).
//!
//! Only the names and their plain meanings live here; what a harness or a plan
//! does with them lives beside its rules (`harness/`, `policy/`).

use serde::Serialize;
use strum::VariantArray;

pub mod policy;
pub use policy::Policy;

/// Which harness code wrote a `microcompact_boundary`, told apart by `preTokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum Writer {
    /// `preTokens > 0`: the token-budget plan, written before the request it changed.
    Budget,
    /// `preTokens == 0`: cached microcompact, written after the response.
    Cached,
    /// Gemini CLI's tool-output masking, written into the file before the
    /// request it changed (SPEC §14, §15.13).
    #[strum(serialize = "gemini_mask")]
    Mask,
    /// OpenCode's own prune (`state.time.compacted`, SPEC §14, §15.13): the
    /// first request built after the mark carries the placeholder.
    #[strum(serialize = "opencode_prune")]
    Prune,
    /// Cline's context manager (SPEC §17.K.4, §18.3): its duplicate-read
    /// notices in `context_history.json` and each request's
    /// `conversationHistoryDeletedRange`.
    #[strum(serialize = "cline_context")]
    ClineContext,
}

/// The harness a session was written by (`session.harness` in the JSON).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[strum(serialize_all = "lowercase")]
#[serde(into = "&'static str")]
pub enum HarnessId {
    Claude,
    Qwen,
    Gemini,
    Opencode,
    Cline,
}

impl HarnessId {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The rules a session is read with (`preset` in the config file and the
/// sidecar, `--preset`): a harness's, or Anthropic's server-side context editing.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::EnumString, strum::VariantArray,
)]
#[strum(serialize_all = "lowercase")]
pub enum PresetId {
    Claude,
    Qwen,
    /// Anthropic's server-side context editing (SPEC §11).
    Api,
    Gemini,
    Opencode,
    Cline,
}

impl PresetId {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(into = "&'static str")]
pub enum Format {
    ClaudeJsonl,
    QwenJsonl,
    MessagesJson,
    /// Gemini CLI's JSONL chat (0.39+) and its legacy whole-file JSON (≤ 0.38).
    GeminiJsonl,
    GeminiJson,
    /// OpenCode ≥ 1.2: the SQLite database `opencode.db`.
    OpencodeDb,
    /// OpenCode ≤ 1.1: the JSON files under `storage/`.
    OpencodeJson,
    /// `opencode export`: one session as one JSON object (SPEC §17.O).
    OpencodeExport,
    /// A Cline task folder (`tasks/<id>/`, SPEC §17.K.1, §18.2).
    ClineTask,
}

impl Format {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// How a harness orders and names the results a keep window counts (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankBy {
    /// By the calls (Claude: a result takes its call's tool name and place; the
    /// keep window is over call ids, calls without a result included).
    Calls,
    /// By the responses (Qwen: a response names its own tool; the keep window
    /// is over clearable results in order).
    Responses,
}

/// What kind of send a Qwen request is (Qwen's `SendMessageType`, SPEC §2): it
/// decides which plans run there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(into = "&'static str")]
pub enum SendKind {
    ToolResult,
    UserQuery,
    Cron,
    Notification,
    Goal,
    Steer,
    Hook,
    AgentMessage,
}

impl SendKind {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The kinds that begin a turn (`begins_turn` in the JSON).
    pub fn begins_turn(self) -> bool {
        !matches!(self, SendKind::ToolResult | SendKind::AgentMessage)
    }
}

/// Names: strum's, written once (`serialize_all`); serde, clap, the sidecar and
/// the config file read them through `name()`, `FromStr` and `VARIANTS`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[strum(serialize_all = "lowercase")]
#[serde(into = "&'static str")]
pub enum PlanKind {
    Auto,
    Idle,
    /// Claude Code 2.1.285+: tool-result clearing after idle, applied by the
    /// server through a `clear_tool_uses_20250919` edit (SPEC §13.S).
    #[strum(serialize = "idle-server")]
    IdleServer,
    Forced,
    Size,
    Count,
    Budget,
    /// The `api` preset's kind: Anthropic's server-side context editing (SPEC §11).
    Api,
    /// The baseline: what the transcript proves a harness setting cleared,
    /// taken from the records, not simulated (SPEC §9a, §15.3).
    Recorded,
    /// Gemini CLI's tool-output masking (SPEC §14): before every request, the
    /// tool output past the newest 50,000 tokens is masked once 30,000 can go.
    Mask,
    /// OpenCode's `SessionCompaction.prune` (SPEC §14; reference §2).
    Prune,
    /// Cline's classic context manager (SPEC §17.K.3): duplicate file reads
    /// replaced by a notice, then half the history truncated.
    Cline,
}

impl PlanKind {
    /// `auto`: no plan of its own, the harness's choice of one at each
    /// request (SPEC §5).
    pub fn is_auto(self) -> bool {
        self == PlanKind::Auto
    }

    /// `recorded`: the baseline, what the transcript proves was cleared
    /// (SPEC §15.3); it reads no parameter.
    pub fn is_baseline(self) -> bool {
        self == PlanKind::Recorded
    }

    /// `api`: the api preset's plan, Anthropic's server-side editing (SPEC
    /// §11); the preset, its edits and its server delivery go with it.
    pub fn is_api(self) -> bool {
        self == PlanKind::Api
    }

    /// The claude cycle of SPEC §15.3 (`p`); qwen leaves out idle-server and budget.
    pub const ALL: [PlanKind; 8] = [
        PlanKind::Auto,
        PlanKind::Idle,
        PlanKind::IdleServer,
        PlanKind::Forced,
        PlanKind::Size,
        PlanKind::Count,
        PlanKind::Budget,
        PlanKind::Recorded,
    ];

    pub fn name(self) -> &'static str {
        self.into()
    }

    /// A kind by name; `api` is the `api` preset's own kind (not in `ALL`, which
    /// lists the kinds the claude and qwen presets cycle through).
    pub fn parse(s: &str) -> Option<PlanKind> {
        s.parse().ok()
    }
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(into = "&'static str")]
pub enum Delivery {
    Rewrite,
    CacheEdits,
    /// The `api` preset: the client sends `context_management`, the server edits.
    Server,
}

impl Delivery {
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<Delivery> {
        s.parse().ok()
    }
}

/// Why no plan (or not every plan) runs at a request, as data; put into words
/// in `report::words` only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRun {
    /// `auto` where the recorded version's builds have no clearing (Claude Code
    /// 2.1.64-2.1.83 and 2.1.105-2.1.284, SPEC §13.T1): the harness, and those
    /// versions by name.
    NoClearing {
        harness: HarnessId,
        versions: &'static str,
    },
    /// `auto` at a version older than every sampled build that clears (Claude
    /// Code before 2.0.0, SPEC §15.9).
    BeforeSampled {
        harness: HarnessId,
        first: &'static str,
    },
    /// `auto` chose none, with nothing more to say.
    NoPlan,
    /// `auto` would run this kind here, but the session shows it did not run
    /// (SPEC §16.I: it would have cleared where it always writes a record).
    DidNotRun(PlanKind),
    /// A request without a send, planned by a harness that runs its plans by
    /// send: it looks at the gap only where a turn begins.
    TurnOnly,
    /// A hook continuing a goal turn: nothing runs.
    GoalHook,
    /// The kind of send decides (tool results: size only; the rest none).
    Send(SendKind),
    /// Nothing to say (the baseline without records; never shown).
    Unsaid,
    /// `auto` on a harness whose plan is off unless a setting turns it on at
    /// this version, and no record shows it on (OpenCode 1.14+: `prune`).
    DefaultOff,
    /// `auto` at a version between the last sampled build with the plan on by
    /// default and the first with it off (OpenCode 1.3.3–1.14.33).
    VersionGap {
        on_until: (u64, u64, u64),
        off_from: (u64, u64, u64),
    },
    /// `auto` at a version whose clearing mcscope does not simulate (Cline's
    /// SDK versions compact with an LLM summary, SPEC §17.K.3): the harness,
    /// and those versions by name.
    Unsimulated {
        harness: HarnessId,
        versions: &'static str,
    },
}

/// `request.harness_could_run` and `request.harness_could_run_reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plausible {
    pub could_run: Option<bool>,
    pub reason: &'static str,
}

impl Plausible {
    /// Not assessed: the harness has no version table, or this plan is not one
    /// of its own (SPEC §13.P1's last row).
    pub const NOT_ASSESSED: Plausible = Plausible::of(None, "not_assessed");
    /// The baseline: the transcript proves it ran.
    pub const RECORDED: Plausible = Plausible::of(Some(true), "recorded");

    pub const fn of(could_run: Option<bool>, reason: &'static str) -> Plausible {
        Plausible { could_run, reason }
    }

    /// Whether the clearing at the request is a what-if (SPEC §13.P3).
    pub fn what_if(self) -> bool {
        self.could_run == Some(false)
    }
}

/// An enum's names in the order declared, one each (a flag's values).
pub fn names_of<T: VariantArray + Copy + Into<&'static str>>() -> Vec<&'static str> {
    T::VARIANTS.iter().map(|&v| v.into()).collect()
}

/// An enum's names in order, for messages: `a, b, c`.
pub fn names<T: VariantArray + Copy + Into<&'static str>>() -> String {
    T::VARIANTS
        .iter()
        .map(|&v| v.into())
        .collect::<Vec<&str>>()
        .join(", ")
}

/// An enum's names in order, for messages: `a, b or c`.
pub fn names_or<T: VariantArray + Copy + Into<&'static str>>() -> String {
    let all = names::<T>();
    match all.rsplit_once(", ") {
        Some((head, last)) => format!("{head} or {last}"),
        None => all,
    }
}
