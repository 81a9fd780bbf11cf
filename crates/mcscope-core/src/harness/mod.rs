//! The one seam every harness plugs in at (SPEC §2–§6, §13): what a harness is,
//! as data, and the few things the engine must ask it.
//!
//! Each harness has a file (`claude.rs`, `qwen.rs`, `gemini_cli.rs`, `opencode.rs`,
//! and the api preset's `api.rs`) holding its row of
//! facts ([`Preset`]) and its answers to [`Harness`]; the body dialects they share
//! sit beside them (`anthropic.rs`: `tool_result` blocks and their placeholder,
//! `cache_edits` and what the server's edits do to a block; `gemini.rs`:
//! `functionResponse` parts, media and thought parts). Loaders, plans,
//! protection, the wire and the reports read these rows and never name a
//! harness: outside this folder no source file does (`tests/seam.rs` counts).
//! `docs/adding-a-harness.md` is the recipe. Each fact names its source.

use crate::session::{Request, Session};
use crate::vocab::Policy;
pub use crate::vocab::{Delivery, Format, HarnessId, PlanKind, Plausible, PresetId, RankBy};
use serde::Serialize;
use std::path::PathBuf;

pub mod anthropic;
mod api;
pub mod caveat;
mod claude;
pub mod claude_budget;
mod claude_caveats;
pub mod claude_idle_server;
pub mod claude_pdf;
mod claude_plausible;
pub mod claude_version;
mod cline;
mod dialect;
pub mod gemini;
pub mod gemini_cli;
mod home;
mod opencode;
mod qwen;
pub(crate) use dialect::CLEARED;
pub use dialect::{Dialect, TextTokens, WireShape};
use home::home;
pub use home::{Home, folders_help, session_databases, session_folders};

pub use claude::CLAUDE;
pub use cline::{
    DUPLICATE_READ_NOTICE as CLINE_NOTICE, MENTION_TOOL as CLINE_MENTION_TOOL,
    TRUNCATION_NOTICE as CLINE_TRUNCATION_NOTICE, max_allowed_size as cline_limit,
    window_of_model as cline_window,
};
pub(crate) use gemini_cli::GEMINI;
pub use gemini_cli::{MASK_MIN_PRUNABLE_TOKENS, MASK_PROTECT_TOKENS};
pub use opencode::{PRUNE_MINIMUM, PRUNE_PROTECT};
pub(crate) use qwen::QWEN;
pub use qwen::{Runs, qwen_runs};

/// SPEC §13.P1's table, first matching rule: `kind` is the plan in force at
/// `req` (auto's choice; None: none). The baseline is what the transcript
/// proves ran (SPEC §15.3); every other plan is the session's harness's answer
/// ([`Harness::could_run`]).
pub fn plausible_at(
    policy: &Policy,
    s: &Session,
    req: &Request,
    kind: Option<PlanKind>,
) -> Plausible {
    if kind.is_some_and(PlanKind::is_baseline) {
        return Plausible::RECORDED;
    }
    // SPEC §18.8: auto plans nothing here because the session shows the plan
    // it would run did not run.
    if kind.is_none()
        && policy.kind.is_auto()
        && let Some(k) = policy.preset.asks().auto_kind(policy, req, req.gap_minutes)
        && policy.did_not_run.iter().any(|d| d.0 == k)
    {
        return Plausible::of(None, "did_not_run");
    }
    s.harness.asks().could_run(policy, s, req, kind)
}

/// How a transcript names, orders and prices its tool results (SPEC §2, §3):
/// facts of the records the harness writes, not of the plan run on them, so
/// they are settled once at load and a plan reads them from the session,
/// whatever preset it applies (the `api` preset on a Claude Code file
/// included).
#[derive(Debug, Clone, Copy)]
pub struct ResultShape {
    /// Whether a result takes its tool and its place from its call (Claude
    /// Code, OpenCode), or names its own tool and ranks in the order of the
    /// results (Qwen Code, Gemini CLI).
    pub rank_by: RankBy,
    /// The tokens one image or document in a result counts (SPEC §2
    /// `est_tokens`; a plan that clears media counts them so).
    pub media_tokens: u64,
    /// The tool table the records' names belong to: which tools are
    /// compactable, name a file or read memory, and the bridge whose
    /// responses take the tool their calls name.
    pub tools: &'static Preset,
}

impl ResultShape {
    /// The shape of the results that `harness` writes.
    pub fn of(harness: HarnessId) -> ResultShape {
        let rules = harness.rules();
        ResultShape {
            rank_by: rules.rank_by,
            media_tokens: rules.media_tokens,
            tools: rules,
        }
    }
}

impl Session {
    /// How the transcript names, orders and prices its results (see
    /// [`ResultShape`]): what plans read instead of asking the harness,
    /// derived from the harness that wrote it.
    pub fn shape(&self) -> ResultShape {
        ResultShape::of(self.harness)
    }
}

impl Format {
    /// The harness that writes files of this format.
    pub fn harness(self) -> HarnessId {
        HarnessId::of_format(self)
    }
}

impl HarnessId {
    /// What the engine asks the harness (its facts are `rules()`).
    pub fn asks(self) -> &'static dyn Harness {
        match self {
            HarnessId::Claude => &claude::Claude,
            HarnessId::Qwen => &qwen::Qwen,
            HarnessId::Gemini => &gemini_cli::GeminiCli,
            HarnessId::Opencode => &opencode::Opencode,
            HarnessId::Cline => &cline::Cline,
        }
    }

    /// The harness's row of the table.
    pub fn rules(self) -> &'static Preset {
        self.asks().facts()
    }

    /// Whether `auto` under the harness's rules may choose `kind` at some request.
    pub fn auto_may(self, kind: PlanKind) -> bool {
        self.asks().auto_kinds().contains(&kind)
    }

    /// The body dialect of its requests.
    pub fn dialect(self) -> Dialect {
        self.rules().dialect
    }

    /// The harness that writes files of `format`.
    pub fn of_format(format: Format) -> HarnessId {
        <HarnessId as strum::VariantArray>::VARIANTS
            .iter()
            .copied()
            .find(|h| h.rules().formats.contains(&format))
            .unwrap_or(HarnessId::Claude)
    }
}

impl PresetId {
    /// Anthropic's server-side editing: the preset of kind `api`.
    pub const SERVER: PresetId = PresetId::Api;

    /// The preset's row.
    pub fn rules(self) -> &'static Preset {
        self.asks().facts()
    }

    pub fn asks(self) -> &'static dyn Harness {
        match self {
            PresetId::Claude => &claude::Claude,
            PresetId::Qwen => &qwen::Qwen,
            PresetId::Api => &api::Api,
            PresetId::Gemini => &gemini_cli::GeminiCli,
            PresetId::Opencode => &opencode::Opencode,
            PresetId::Cline => &cline::Cline,
        }
    }

    /// The harness whose sessions the preset plans.
    pub fn harness(self) -> HarnessId {
        self.rules().harness
    }

    /// Whether the preset is Anthropic's server-side editing (kind `api`).
    pub fn is_server(self) -> bool {
        self.rules().server_preset
    }
}

/// The harness whose plan `kind` is: the first of the registry whose row
/// offers it (idle-server's and budget's: Claude Code's), for a refusal to name.
pub fn owner_of(kind: PlanKind) -> &'static Preset {
    first_row(|r| r.offers(kind))
}

/// The harness that sends `delivery` (cache-edits: Claude Code's), the first of
/// the registry whose row offers it, for a refusal to name.
pub fn delivery_owner(delivery: Delivery) -> &'static Preset {
    first_row(|r| r.offers_delivery(delivery))
}

/// The first harness row of the registry that `holds` (every kind and
/// delivery a refusal names is some harness's; Claude Code's if none were).
fn first_row(holds: impl Fn(&Preset) -> bool) -> &'static Preset {
    <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| h.rules())
        .find(|r| holds(r))
        .unwrap_or(HarnessId::Claude.rules())
}

/// Every harness's title, for people: `Claude Code, Qwen Code, Gemini CLI or OpenCode`.
pub fn titles() -> String {
    let all: Vec<&str> = <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| h.rules().title)
        .collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => all.join(""),
    }
}

/// The registry: a preset by its name, or a clear error naming those there are.
pub fn by_name(name: &str) -> Result<PresetId, UnknownHarness> {
    name.parse().map_err(|_| UnknownHarness(name.to_string()))
}

/// A name no harness answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownHarness(pub String);

impl std::fmt::Display for UnknownHarness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown harness {:?} (known: {})",
            self.0,
            <PresetId as strum::VariantArray>::VARIANTS
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// What the engine asks a harness beyond its facts (SPEC §2, §5, §13); the
/// harness's id is [`HarnessId`], its answers [`HarnessId::asks`].
pub trait Harness: ForUsers + Sync {
    /// The harness's row of facts.
    fn facts(&self) -> &'static Preset;

    /// The plan `auto` runs at `req` under `policy` (gap: the idle gap there);
    /// None: none runs.
    fn auto_kind(&self, policy: &Policy, req: &Request, gap: Option<f64>) -> Option<PlanKind>;

    /// Every kind [`Harness::auto_kind`] may choose, whatever the request.
    fn auto_kinds(&self) -> &'static [PlanKind];

    /// What [`Harness::auto_kind`] chooses, in words for `--policy`'s help,
    /// starting with the preset's name (`claude by the recorded version: …`).
    fn auto_words(&self) -> String;

    /// Which of the automatic plans the harness runs at `req` at all (Qwen runs
    /// them by the kind of send); None: every plan may run.
    fn runs_at(&self, _req: &Request) -> Option<Runs> {
        None
    }

    /// Why no plan runs at `req` (auto chose none), as data.
    fn no_plan(&self, req: &Request) -> crate::vocab::NoRun;

    /// What lapses before `req` (SPEC §2, §5, §15.9); nothing by default.
    fn lapses(&self, _req: &Request) -> Lapses {
        Lapses::default()
    }

    /// The gap the idle rule reads at `req`: by default the recorded one.
    /// `checkpoint` is the time the harness carries for it since its process
    /// began (None: not yet set; a restart unsets it), which it may set.
    fn idle_gap(&self, req: &Request, _checkpoint: &mut Option<i64>) -> Option<f64> {
        req.gap_minutes
    }

    /// Moves the checkpoint [`Harness::idle_gap`] reads once `req` was sent;
    /// `plan_saved`: its idle or size plan saved tokens.
    fn after_send(&self, _req: &Request, _plan_saved: bool, _checkpoint: &mut Option<i64>) {}

    /// Where a replay that starts at request `first` (1-based) must start
    /// instead, so that the checkpoint [`Harness::idle_gap`] reads is known
    /// there (a checkpoint may outlive a compression); by default `first`.
    fn replay_from(&self, _requests: &[Request], first: usize) -> usize {
        first
    }

    /// Could the build that wrote `s` have run `kind` (the plan in force at
    /// `req`; None: none) under `policy`? (SPEC §13.P.) Asked of the session's
    /// harness for every plan but the baseline; not assessed by default.
    fn could_run(
        &self,
        _policy: &Policy,
        _s: &Session,
        _req: &Request,
        _kind: Option<PlanKind>,
    ) -> crate::vocab::Plausible {
        crate::vocab::Plausible::NOT_ASSESSED
    }

    /// Whether the idle plan keeps two more windows, over media parts: the
    /// top-level ones and those nested in results it may not clear (Qwen's two
    /// media lists, SPEC §5 media); no media windows by default.
    fn media_lists(&self) -> bool {
        false
    }

    /// Whether the size plan is off while idle is (`gap < 0`) unless size is
    /// given (Qwen's settings coupling, SPEC §5); never by default.
    fn size_off_with_idle(&self) -> bool {
        false
    }

    /// Whether mcscope may decide the size plan incrementally, request by
    /// request, deferring a turn start's lapse until it decides (the size
    /// plan runs at every request); a whole pass by default.
    fn size_incremental(&self) -> bool {
        false
    }

    /// Whether a forced clearing also drops every thought part of the view
    /// (Qwen's `/compress-fast`, SPEC §5 forced); never by default.
    fn forced_drops_thoughts(&self) -> bool {
        false
    }

    /// The row of the harness's version table `req` falls in, by name
    /// (`request.version_row`, SPEC §13.J); None: the harness has none.
    fn version_row(&self, _req: &Request) -> Option<&'static str> {
        None
    }
}

/// What a harness offers its users, apart from what the engine asks
/// ([`Harness`]): who can set a compared setting and where, what to run by
/// hand, a warning while a kind is planned, where its data lives.
pub trait ForUsers {
    /// A warning the TUI header carries while `kind` is planned on one of the
    /// harness's sessions (Claude's count values are guesses).
    fn kind_note(&self, _kind: PlanKind) -> Option<&'static str> {
        None
    }

    /// Who can set `policy` on `s` (SPEC §9a, §15.15).
    fn availability(&self, policy: &Policy, s: &Session) -> Availability;

    /// The settings keys and values that set `policy` where a user can.
    fn knob(&self, _policy: &Policy) -> Option<serde_json::Value> {
        None
    }

    /// What a user runs to apply plan `kind` by hand where no setting sets it
    /// (Qwen's `forced`: `/compress-fast`); None: nothing.
    fn by_hand(&self, _kind: PlanKind) -> Option<&'static str> {
        None
    }

    /// Where a user sets the settings `knob` names, in words.
    fn settings_file(&self) -> &'static str {
        "the harness's settings"
    }

    /// The databases the harness keeps its sessions in, as the environment
    /// names them (OpenCode's `opencode.db`); none for a harness of files.
    fn databases(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The folders the harness keeps its data in beside its bases, as the
    /// environment names them and under `$HOME` (OpenCode's data folder); the
    /// writer refuses them too (SPEC §1, §15.19).
    fn data_folders(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// What a content block is, for counting a context by kind (SPEC §15.17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block<'a> {
    /// Text of the message's role.
    Text(&'a str),
    Thinking(&'a str),
    /// A tool call: its input (arguments) as JSON, and its id where the call
    /// block carries one (a `tool_use`).
    Call {
        id: Option<&'a str>,
        input: String,
    },
    /// An image or a document; the text a cleared one reads where the harness
    /// clears media apart (Qwen's parts).
    Media {
        placeholder: Option<String>,
    },
    /// A block of no known kind: its JSON counts as the role's text.
    Other,
}

/// The content of the tool result `id` in a request body of either dialect
/// (a `tool_result` block's `content`, a `functionResponse`'s output).
pub fn result_content<'a>(v: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => anthropic::result_content(m, id)
            .or_else(|| gemini::result_content(m, id))
            .or_else(|| m.values().find_map(|x| result_content(x, id))),
        serde_json::Value::Array(a) => a.iter().find_map(|x| result_content(x, id)),
        _ => None,
    }
}

/// What lapses before a request under a harness's rules ([`Harness::lapses`]).
/// (A restart the transcript's own send records mark, Qwen's, undoes every
/// clearing not stored whatever the preset: that is the session's fact, SPEC §2.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lapses {
    /// The request is rebuilt from the originals (a turn start): the
    /// clearings that lapse do.
    pub turn_start: bool,
    /// A change of the recorded version is a new process: budget clearings
    /// lapse (Claude, SPEC §15.9).
    pub new_version: bool,
}

/// A row's `"availability"` (SPEC §9a, §15.15): from the most to the least
/// reachable, so that the least reachable of a folder's sessions is the greatest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Availability {
    /// The user can set it (qwen's `settings.json`, the api request's own
    /// `context_management`).
    User,
    /// The harness decides it remotely (Claude Code's flags).
    RemoteFlag,
    /// Only in the harness's internal builds (claude `count`, `cache-edits`).
    Internal,
    /// No build of the harness has it here.
    WhatIf,
}

impl Availability {
    pub fn name(self) -> &'static str {
        match self {
            Availability::User => "user",
            Availability::RemoteFlag => "remote_flag",
            Availability::Internal => "internal",
            Availability::WhatIf => "what_if",
        }
    }

    /// The value in words (the TUI panel's line for the selected row).
    pub fn words(self) -> &'static str {
        match self {
            Availability::User => "user: you can set it",
            Availability::RemoteFlag => "remote_flag: the harness decides it by remote flags",
            Availability::Internal => "internal: only in the harness's internal builds",
            Availability::WhatIf => "what_if: no build of the harness has it here",
        }
    }
}

/// The harness's own words (each row's, beside its rules).
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// What its clearing records are called (SPEC §15.21's record kinds); a
    /// harness that writes none says what it would count.
    pub records: &'static str,
    /// An observed cache break its own recorded rewrite explains
    /// (`harness_rewrite`, SPEC §10).
    pub rewrite: &'static str,
    /// An error result it never clears (`error_kept`; None where every error
    /// may be cleared).
    pub error_kept: Option<&'static str>,
    /// Where mcscope finds its sessions without a PATH (`--help`; kept true
    /// to `home` and `databases` by a test).
    pub folders: &'static str,
}

/// The default plan parameters of a preset (SPEC §5 table).
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    pub keep_recent: u32,
    pub gap_threshold_minutes: f64,
    pub size_threshold: i64,
    pub low_watermark: bool,
    pub trigger_threshold: u32,
    /// Qwen protects managed memory; Claude Code has no such rule (a what-if).
    pub protect: bool,
    /// Claude's time-based clearing clears errors too; Qwen never does.
    pub clear_errors: bool,
}

/// Which results still vouch for a path whose read was evicted (SPEC §7
/// `evicted_read_paths`): the path is not reported as lost while one stays.
#[derive(Debug, Clone, Copy)]
pub enum Vouchers {
    /// Any file-path result that stays (kept, protected, error kept).
    AnyStaying,
    /// Only a kept, already sent result of these tools (Qwen: a `write_file`).
    KeptTools(&'static [&'static str]),
}

/// Which earlier reply the idle gap is measured from (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapFrom {
    /// The last assistant message of the current view (Claude).
    LastReplyInView,
    /// The last assistant message of the file (Qwen: a compression keeps it).
    LastReply,
}

/// Everything mcscope knows about one harness.
#[derive(Debug)]
pub struct Preset {
    pub harness: HarnessId,
    pub name: &'static str,
    /// The harness's name for people (`Claude Code`): messages name it.
    pub title: &'static str,
    /// Anthropic's server-side editing (kind `api`, delivery `server`).
    pub server_preset: bool,
    /// The transcript formats the harness writes.
    pub formats: &'static [Format],
    pub dialect: Dialect,
    pub rank_by: RankBy,
    /// A result's recorded paths are a set (in order, deduplicated).
    pub dedup_paths: bool,
    pub gap_from: GapFrom,
    /// A fork of the record tree is a rewind though no record marks it (Claude,
    /// SPEC §15.1); otherwise only a marked rewind is one (Qwen's `rewind`).
    pub unmarked_forks: bool,
    /// Responses record cache writes (and 1-hour writes).
    pub cache_writes: bool,
    /// What a user of the harness can set against each cause of cache-write
    /// money (SPEC §16.L, §16.C): only these are named as levers.
    pub levers: Levers,
    /// What the harness offers: its plan kinds, deliveries, default grid and caveats.
    pub offers: Offers,
    /// What the reports say of the harness's own records and rules: a
    /// sentence about one harness comes from its row, never another's.
    pub words: Words,
    /// The tools by name: which results the plans may clear, which read files,
    /// which run commands, the legacy names, the bridge of deferred tools.
    pub tools: Tools,
    /// Tokens counted per image or document in a result.
    pub media_tokens: u64,
    pub text_tokens: TextTokens,
    pub wire: WireShape,
    pub home: Home,
    pub defaults: Defaults,
    /// What a cleared tool result reads in the wire.
    pub placeholder: &'static str,
    /// The beta header a request needs for this preset's delivery, if any.
    pub beta_header: Option<&'static str>,
}

/// The levers a user of a harness can pull against cache-write money (part
/// of its [`Preset`]; SPEC §16.L). Behaviour levers (keep the gap under the
/// TTL, no resume of a warm context, no model switch) hold for every harness
/// that records cache writes; these are the harness's own settings.
#[derive(Debug)]
pub struct Levers {
    /// Every process start leaves a record (Claude Code's SessionStart
    /// hooks): a session with unexplained breaks and none is told that a
    /// resume may hide among them (`resume_undetected`).
    pub start_records: bool,
    /// The switch that turns the harness's clearing plan off, in the
    /// versions it exists in, with that plan's kind (a lever only where the
    /// session shows the plan ran, SPEC §16.L).
    pub clearing: Option<(PlanKind, VersionedLever)>,
    /// The setting for 1-hour cache writes.
    pub ttl_1h: Option<VersionedLever>,
    /// What to do so that the tool list stays the same (a harness that loads
    /// tools mid-session).
    pub tools: Option<&'static str>,
    /// The settings that turn one of its plans off, by plan kind (the explain
    /// page names the one that cleared a result, SPEC §16 item 3).
    pub switches: &'static [(PlanKind, VersionedLever)],
}

/// A setting that exists in some versions of a harness.
#[derive(Debug)]
pub struct VersionedLever {
    /// What to set, in words (`DISABLE_MICROCOMPACT`).
    pub words: &'static str,
    /// The first and last version that read it (None: every later one).
    pub from: (u32, u32, u32),
    pub to: Option<(u32, u32, u32)>,
}

impl VersionedLever {
    /// Whether `version` (as recorded) reads the setting.
    pub fn holds(&self, version: Option<&str>) -> bool {
        let Some(v) = version.and_then(claude_version::parse) else {
            return false;
        };
        v >= self.from && self.to.is_none_or(|to| v <= to)
    }
}

impl Levers {
    /// A harness with no settings of its own against cache-write money.
    pub const NONE: Levers = Levers {
        start_records: false,
        clearing: None,
        ttl_1h: None,
        tools: None,
        switches: &[],
    };
}

/// A harness's tools by name (part of its [`Preset`]).
#[derive(Debug)]
pub struct Tools {
    /// Tools whose results plans may clear.
    pub compactable: &'static [&'static str],
    /// The tool whose results managed-memory protection looks at.
    pub read_tool: &'static str,
    /// Tools whose calls name a file in `file_path`.
    pub file_path_tools: &'static [&'static str],
    /// Shell tools: their calls name a command (`input.command` / `args.command`),
    /// what SPEC §9 `later_used` compares for them.
    pub shell_tools: &'static [&'static str],
    /// Legacy tool names and what they stand for now (exact, case-sensitive).
    pub aliases: &'static [(&'static str, &'static str)],
    /// The model-facing tool that bridges a deferred tool: its call names the
    /// target in `args.name` and `args.arguments`.
    pub bridge_tool: Option<&'static str>,
    /// Whether error results can be cleared at all (Claude's `clear_errors`
    /// option); Qwen never clears an error (`microcompact.ts`).
    pub errors_clearable: bool,
    pub vouchers: Vouchers,
    /// The tool whose results carry managed-memory bodies (`{memoryRef,
    /// mtimeMs}`): clearing one evicts them (SPEC §3).
    pub memory_search_tool: Option<&'static str>,
    /// Every tool's results may be cleared (the API's server-side edits know no
    /// compactable list; `exclude_tools` is a parameter, SPEC §11).
    pub every_tool: bool,
    /// With `every_tool`, the tools whose results are never cleared all the
    /// same (Gemini CLI's `EXEMPT_TOOLS`, OpenCode's `PRUNE_PROTECTED_TOOLS`).
    pub exempt: &'static [&'static str],
}

/// What a harness offers (part of its [`Preset`]).
#[derive(Debug)]
pub struct Offers {
    /// Plan kinds `compare` tries by default (SPEC §9, §15.23), and whether an
    /// `--api-*` list gives the api grid.
    pub grid_kinds: &'static [PlanKind],
    pub api_grid: bool,
    /// Plan kinds the harness offers (the TUI's `p` cycle; setup refuses others).
    pub kinds: &'static [PlanKind],
    /// The deliveries the harness's requests can carry, read from the row of a
    /// session's harness (`Policy::check`): rewrite always; Claude's cache
    /// edits and the server's clearing edit (SPEC §5, §11, §13.S).
    pub deliveries: &'static [Delivery],
    /// The caveats the harness shows, in the order they are listed, each with
    /// the rule that shows it (SPEC §13.C, §5, §11, §14).
    pub caveats: &'static [crate::harness::caveat::Rule],
    /// The plan kinds that leave a record whenever they clear (SPEC §16.I,
    /// §18.8): a session that holds none of a kind's records where the plan
    /// would have cleared shows the plan did not run.
    pub recorded_kinds: &'static [RecordedKind],
}

/// A plan kind that writes a record whenever it clears, in the harness's words.
#[derive(Debug)]
pub struct RecordedKind {
    pub kind: PlanKind,
    /// The record it writes ("no microcompact_boundary was written").
    pub record: &'static str,
    /// What turns it off.
    pub off: &'static str,
}

impl Preset {
    pub fn is_compactable(&self, tool: &str) -> bool {
        (self.tools.every_tool && !self.tools.exempt.contains(&tool))
            || self.tools.compactable.contains(&tool)
    }

    pub fn is_file_path_tool(&self, tool: &str) -> bool {
        self.tools.file_path_tools.contains(&tool)
    }

    /// The canonical name of a recorded tool name (SPEC §3): a legacy alias's
    /// name now (exact); anything else stays as it is.
    pub fn canonical<'a>(&self, name: &'a str) -> &'a str
    where
        'static: 'a,
    {
        match self.tools.aliases.iter().find(|(from, _)| *from == name) {
            Some((_, to)) => to,
            None => name,
        }
    }

    /// The known tool (one plans may clear, or the bridge) whose name is
    /// `name` but for case, for a loader whose harness matches names so
    /// (`Read_File` is `read_file`).
    pub fn known_ignoring_case(&self, name: &str) -> Option<&'static str> {
        let known = self
            .tools
            .compactable
            .iter()
            .chain(self.tools.bridge_tool.iter());
        known
            .into_iter()
            .find(|k| k.eq_ignore_ascii_case(name))
            .copied()
    }

    /// The estimated tokens of a result: its text plus its media (SPEC §2).
    pub fn est_tokens(&self, text_tokens: u64, media: u64) -> u64 {
        text_tokens + self.media_tokens * media
    }

    /// Whether the harness offers plan kind `kind`.
    pub fn offers_delivery(&self, delivery: Delivery) -> bool {
        self.offers.deliveries.contains(&delivery)
    }

    pub fn offers(&self, kind: PlanKind) -> bool {
        self.offers.kinds.contains(&kind)
    }

    /// The kinds it offers, named and joined, for a refusal that lists them.
    pub fn kind_names(&self) -> String {
        let names: Vec<&str> = self.offers.kinds.iter().map(|k| k.name()).collect();
        names.join(", ")
    }
}

/// Every harness's row, in the registry's order (tests).
#[cfg(test)]
pub(crate) static ALL: [&Preset; 5] = [&CLAUDE, &QWEN, &GEMINI, &opencode::OPENCODE, &cline::CLINE];

#[cfg(test)]
mod tests;
