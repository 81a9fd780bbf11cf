//! Evidence (SPEC §10): what the transcript says really happened — usage per
//! response, observed prompt-cache breaks and what explains them, the
//! `microcompact_boundary` records and the request (or compaction) each describes,
//! and the server's `applied_edits` — set beside the simulation, never mixed into it.
//!
//! Everything here is a plain function of the loaded [`Session`]. The two inputs
//! that need a plan are passed in: whether the selected plan breaks the cache
//! prefix at a request (`ObservedBreak::with_plan_rewrite`), and what a plan newly
//! cleared where a record says the harness cleared (the `simulate` hook of
//! [`collect`]).

pub mod api;
pub mod facts;
mod session;

pub(crate) use session::usage_walk;
pub use session::{Counts, Held, PARTIAL_TRANSCRIPT, Target, attach, collect, compared_at, counts};

use crate::session::{HarnessId, Message, Request, Role, Session, Usage};
use serde::Serialize;
use serde_json::Value;

mod comparison;
pub use comparison::{Comparison, compare, compare_ids};

/// Claude Code's own detector (services/api/promptCacheBreakDetection.ts): a break
/// is a read below 95 % of what was expected, by at least 2,000 tokens.
pub const BREAK_RATIO_PERCENT: u64 = 95;
pub const BREAK_MIN_DROP: u64 = 2000;

/// The model Claude Code writes on responses it made up itself (errors).
pub use crate::session::SYNTHETIC_MODEL;

pub use crate::vocab::Writer;

impl Writer {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The plan kind whose clearings a record of this writer is compared with:
    /// the plan that says it writes such records (`Plan::writes`; every
    /// writer is one plan's).
    pub fn plan_kind(self) -> Option<crate::policy::PlanKind> {
        crate::policy::PlanKind::writing(self)
    }

    /// [`Writer::plan_kind`]'s name.
    pub fn plan(self) -> &'static str {
        self.plan_kind().map_or("", crate::policy::PlanKind::name)
    }

    /// The record's kind as `explain` names it (SPEC §15.21).
    pub fn record_kind(self) -> &'static str {
        match self {
            Writer::Budget | Writer::Cached => "microcompact_boundary",
            Writer::Mask => "gemini_mask",
            Writer::Prune => "opencode_prune",
            Writer::ClineContext => "cline_context",
        }
    }

    pub fn of(pre_tokens: Option<u64>) -> Writer {
        if pre_tokens.unwrap_or(0) > 0 {
            Writer::Budget
        } else {
            Writer::Cached
        }
    }

    /// The writer of a loaded record: `preTokens > 0` as written, so a malformed
    /// positive `preTokens` (unknown as a count) still names the budget writer.
    pub fn of_record(e: &crate::session::Evidence) -> Writer {
        if e.mask {
            Writer::Mask
        } else if e.context_edit {
            Writer::ClineContext
        } else if e.pruned {
            Writer::Prune
        } else if e.budget_writer {
            Writer::Budget
        } else {
            Writer::of(e.pre_tokens)
        }
    }
}

/// The prompt cache's lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
pub enum Ttl {
    #[strum(serialize = "5m")]
    FiveMinutes,
    #[strum(serialize = "1h")]
    OneHour,
}

impl Ttl {
    pub fn minutes(self) -> f64 {
        match self {
            Ttl::FiveMinutes => 5.0,
            Ttl::OneHour => 60.0,
        }
    }

    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The `usage` object of the evidence JSON (SPEC §10), fields in schema order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsageEvidence {
    pub input: u64,
    /// W: Claude `cache_creation_input_tokens`; null for Qwen (it records no writes).
    pub cache_write: Option<u64>,
    /// R.
    pub cache_read: u64,
    pub cache_write_1h: Option<u64>,
    pub cache_deleted: Option<u64>,
    pub aggregated: bool,
}

impl UsageEvidence {
    pub fn of(harness: HarnessId, u: &Usage) -> UsageEvidence {
        if harness.rules().cache_writes {
            UsageEvidence {
                input: u.input_tokens,
                cache_write: Some(u.cache_creation_input_tokens),
                cache_read: u.cache_read_input_tokens,
                cache_write_1h: u.cache_creation.map(|c| c.ephemeral_1h_input_tokens),
                cache_deleted: u.cache_deleted_input_tokens,
                aggregated: u.aggregated,
            }
        } else {
            // The loader keeps input = P − R and R (SPEC §10).
            UsageEvidence {
                input: u.input_tokens,
                cache_write: None,
                cache_read: u.cache_read_input_tokens,
                cache_write_1h: None,
                cache_deleted: None,
                aggregated: false,
            }
        }
    }

    /// The prompt size P = input + W + R.
    /// Saturating: the counters are the transcript's and may be near 2^64.
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_write.unwrap_or(0))
            .saturating_add(self.cache_read)
    }

    /// What the next response may expect to read from the cache: R + W (Claude),
    /// R (Qwen, whose W is null).
    pub fn expected_next(&self) -> u64 {
        self.cache_read
            .saturating_add(self.cache_write.unwrap_or(0))
    }
}

/// Why an observed break may have happened, in the SPEC's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Explanation {
    Compaction,
    ServerCompaction,
    ModelChange,
    Ttl,
    PlanRewrite,
    HarnessRewrite,
    CacheEdits,
    ContextEdits,
    ClientCut,
    Restart,
    ToolsChanged,
    Unexplained,
}

impl Explanation {
    /// Every explanation, in the order they are listed (SPEC §10, §16.B6,
    /// §18.24: `restart` and `tools_changed` after `client_cut`).
    pub const ALL: [Explanation; 12] = [
        Explanation::Compaction,
        Explanation::ServerCompaction,
        Explanation::ModelChange,
        Explanation::Ttl,
        Explanation::PlanRewrite,
        Explanation::HarnessRewrite,
        Explanation::CacheEdits,
        Explanation::ContextEdits,
        Explanation::ClientCut,
        Explanation::Restart,
        Explanation::ToolsChanged,
        Explanation::Unexplained,
    ];

    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The explanation in words, for a session of `harness`: the harness's
    /// own rewrite in its own words.
    pub fn words(self, harness: crate::vocab::HarnessId) -> &'static str {
        match self {
            Explanation::Compaction => "the conversation was compacted before this request",
            Explanation::ServerCompaction => "the server compacted the prompt (usage.iterations)",
            Explanation::ModelChange => "the model changed",
            Explanation::Ttl => "the cache had expired (gap at or above its TTL)",
            Explanation::PlanRewrite => {
                "what-if: the selected plan would rewrite old results here (a simulated prefix break, not a record)"
            }
            Explanation::HarnessRewrite => harness.rules().words.rewrite,
            Explanation::CacheEdits => {
                "cache deletions that keep the prefix (a cached microcompact_boundary, from an internal build, or cache_deleted_input_tokens grew)"
            }
            Explanation::ContextEdits => "the server applied context edits (applied_edits)",
            Explanation::ClientCut => {
                "cut by the client: Claude Code replaced old results itself (tool_results_cut or client_cut_tool_uses)"
            }
            Explanation::Restart => {
                "the harness was started again (a SessionStart hook record, a version change, or a new process segment)"
            }
            Explanation::ToolsChanged => {
                "the tool list changed: the response before called ToolSearch, which loads tools into later requests"
            }
            Explanation::Unexplained => {
                "not explained by the transcript (system prompt, tools, betas or server-side eviction are not recorded)"
            }
        }
    }
}

/// What the transcript holds around one observed break, one flag per explanation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BreakFacts {
    pub compaction: bool,
    pub server_compaction: bool,
    pub model_change: bool,
    pub ttl: bool,
    pub plan_rewrite: bool,
    pub harness_rewrite: bool,
    pub cache_edits: bool,
    pub context_edits: bool,
    pub client_cut: bool,
    /// SPEC §16.B6: a process start between the two responses.
    pub restart: bool,
    /// SPEC §16.B4.3.6: response k − 1 called `ToolSearch`.
    pub tools_changed: bool,
    /// SPEC §16.B4.3.5 beside §10's flags: a `thinking_stripped` record.
    pub thinking_stripped: bool,
}

impl BreakFacts {
    /// Every explanation that applies, in order; `unexplained` appended when
    /// no record explains the break (SPEC §18.14, §15.26: the selected plan's
    /// simulated rewrite is listed, as a what-if, but explains nothing that
    /// happened).
    pub fn explanations(&self) -> Vec<Explanation> {
        let flags = [
            (self.compaction, Explanation::Compaction),
            (self.server_compaction, Explanation::ServerCompaction),
            (self.model_change, Explanation::ModelChange),
            (self.ttl, Explanation::Ttl),
            (self.plan_rewrite, Explanation::PlanRewrite),
            (self.harness_rewrite, Explanation::HarnessRewrite),
            (self.cache_edits, Explanation::CacheEdits),
            (self.context_edits, Explanation::ContextEdits),
            (self.client_cut, Explanation::ClientCut),
            (self.restart, Explanation::Restart),
            (self.tools_changed, Explanation::ToolsChanged),
        ];
        let mut out: Vec<Explanation> = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        if out.iter().all(|e| *e == Explanation::PlanRewrite) {
            out.push(Explanation::Unexplained);
        }
        out
    }
}

/// A drop in cache reads the harness's own detector would call a break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedBreak {
    pub expected: u64,
    pub observed: u64,
    pub facts: BreakFacts,
}

/// The cache read a break lost: what was expected less what was read.
pub(crate) fn lost(expected: u64, observed: u64) -> u64 {
    expected.saturating_sub(observed)
}

impl ObservedBreak {
    pub fn drop(&self) -> u64 {
        lost(self.expected, self.observed)
    }

    /// The same break with the selected plan's simulated prefix break at this
    /// request (SPEC §9 `break[k]`; never under cache-edits delivery).
    pub fn with_plan_rewrite(mut self, plan_break: bool) -> ObservedBreak {
        self.facts.plan_rewrite = plan_break;
        self
    }

    pub fn explanations(&self) -> Vec<Explanation> {
        self.facts.explanations()
    }

    pub fn json(&self) -> BreakJson {
        BreakJson {
            expected: self.expected,
            observed: self.observed,
            drop: self.drop(),
            explanations: self.explanations().iter().map(|e| e.name()).collect(),
        }
    }
}

/// The `observed_break` object of the evidence JSON (SPEC §10), fields in
/// schema order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BreakJson {
    pub expected: u64,
    pub observed: u64,
    pub drop: u64,
    /// [`Explanation`] names, in the SPEC's order.
    pub explanations: Vec<&'static str>,
}

/// Whether reading `observed` tokens where `expected` were expected is a break:
/// R < 0.95·E and E − R ≥ 2000, in u128 so that the ratio holds for any
/// recorded counts (E·95 passes 2^64 from E ≈ 1.9e17).
pub fn is_break(expected: u64, observed: u64) -> bool {
    u128::from(observed) * 100 < u128::from(expected) * u128::from(BREAK_RATIO_PERCENT)
        && expected.saturating_sub(observed) >= BREAK_MIN_DROP
}

/// Where a simulation is asked what it newly cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimAt {
    /// At request k.
    Request(usize),
    /// On the view just before the compaction boundary that precedes request k
    /// (the compaction's summarizing request, which is not a main-thread request).
    BeforeCompaction(usize),
}

/// One `microcompact_boundary` record where it belongs, with its comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Microcompact {
    pub writer: Writer,
    pub line: usize,
    pub compacted_tool_ids: Vec<String>,
    /// Every `compactedToolIds` entry was read (see [`compare_ids`]).
    pub ids_complete: bool,
    pub pre_tokens: Option<u64>,
    pub tokens_saved: Option<u64>,
    /// Against the plan the writer implies; None when that plan is not available
    /// to this build (the `simulate` hook answered None).
    pub comparison: Option<Comparison>,
}

impl Microcompact {
    /// The record's ids against what a plan newly cleared here.
    pub fn compare_with(&self, simulated: &[String]) -> Comparison {
        compare_ids(&self.compacted_tool_ids, self.ids_complete, simulated)
    }

    pub fn json(&self) -> MicrocompactJson<'_> {
        let c = self.comparison.as_ref();
        MicrocompactJson {
            writer: Some(self.writer.name()),
            compacted_tool_ids: &self.compacted_tool_ids,
            pre_tokens: self.pre_tokens,
            tokens_saved: self.tokens_saved,
            agrees: c.and_then(|c| c.agrees),
            missing: c.map(|c| c.missing.as_slice()),
            extra: c.map(|c| c.extra.as_slice()),
            absent: c.map_or(&[], |c| c.absent.as_slice()),
        }
    }
}

/// The `microcompact` object (and each of `compactions`) of the evidence JSON
/// (SPEC §10), fields in schema order. `agrees`, `missing` and `extra` are null
/// when the record was not compared; `writer` is null for a budget firing with
/// no record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MicrocompactJson<'a> {
    pub writer: Option<&'static str>,
    pub compacted_tool_ids: &'a [String],
    pub pre_tokens: Option<u64>,
    pub tokens_saved: Option<u64>,
    pub agrees: Option<bool>,
    pub missing: Option<&'a [String]>,
    pub extra: Option<&'a [String]>,
    /// SPEC §15.2: always a list (`[]` unless a partial file's record names ids
    /// no `tool_use` of the file holds).
    pub absent: &'a [String],
}

/// The §10 `evidence` object of one request, fields in schema order; its
/// `Default` is the empty object (every key null, `compactions` empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RequestEvidenceJson<'a> {
    pub usage: Option<&'a UsageEvidence>,
    pub observed_break: Option<BreakJson>,
    pub microcompact: Option<MicrocompactJson<'a>>,
    pub compactions: Vec<MicrocompactJson<'a>>,
    /// The response's `applied_edits` as the transcript recorded them: the
    /// server's own objects, passed through untyped.
    pub applied_edits: Option<&'a [Value]>,
    /// SPEC §13.E / §13.J: `tool_results_cut`, `thinking_stripped`,
    /// `resumed_after_pause`, `idle_server`.
    #[serde(flatten)]
    pub facts: facts::FactsJson<'a>,
}

/// The evidence of one request (SPEC §10 `evidence` object).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestEvidence {
    pub usage: Option<UsageEvidence>,
    pub observed_break: Option<ObservedBreak>,
    /// Boxed, as most requests have none: a long session holds one evidence
    /// row per request.
    pub microcompact: Option<Box<Microcompact>>,
    pub compactions: Vec<Microcompact>,
    pub applied_edits: Option<Vec<Value>>,
    /// The budget plan fired here without a record: the ids it newly cleared.
    pub unrecorded_budget: Option<Vec<String>>,
    /// What Claude Code's newer records say about this request (SPEC §13.E).
    pub facts: facts::RequestFacts,
}

impl RequestEvidence {
    /// The boundary records attached here that name `id`: the request's own
    /// `microcompact_boundary` (false), then those carried by the compaction
    /// before it (true).
    pub fn boundaries_naming<'a>(
        &'a self,
        id: &'a str,
    ) -> impl Iterator<Item = (&'a Microcompact, bool)> + 'a {
        let own = self.microcompact.iter().map(|m| (&**m, false));
        own.chain(self.compactions.iter().map(|m| (m, true)))
            .filter(move |(m, _)| m.compacted_tool_ids.iter().any(|x| x == id))
    }

    /// SPEC §10: the plan that ran here is `budget` and it fired, newly clearing
    /// `ids`. With a record attached nothing changes. Without one, at a request
    /// that begins a turn Claude Code's prompt-suggestion fork usually ran it
    /// first, so no record is expected: returns true (`silent`) and `microcompact`
    /// stays null; elsewhere the missing record is shown as `microcompact` with
    /// `writer: null` and the ids as `extra`.
    pub fn budget_fired(&mut self, begins_turn: bool, ids: Vec<String>) -> bool {
        if self.microcompact.is_some() {
            return false;
        }
        if begins_turn {
            return true;
        }
        self.unrecorded_budget = Some(ids);
        false
    }

    pub fn is_empty(&self) -> bool {
        self.usage.is_none()
            && self.unrecorded_budget.is_none()
            && self.observed_break.is_none()
            && self.microcompact.is_none()
            && self.compactions.is_empty()
            && self.applied_edits.is_none()
            && self.facts.is_empty()
    }

    pub fn json(&self) -> RequestEvidenceJson<'_> {
        RequestEvidenceJson {
            usage: self.usage.as_ref(),
            observed_break: self.observed_break.as_ref().map(ObservedBreak::json),
            microcompact: match (&self.microcompact, &self.unrecorded_budget) {
                (Some(m), _) => Some(m.json()),
                // The budget plan fired with no record: the ids it cleared are
                // all `extra`.
                (None, Some(ids)) => Some(MicrocompactJson {
                    writer: None,
                    compacted_tool_ids: &[],
                    pre_tokens: None,
                    tokens_saved: None,
                    agrees: Some(false),
                    missing: Some(&[]),
                    extra: Some(ids),
                    absent: &[],
                }),
                (None, None) => None,
            },
            compactions: self.compactions.iter().map(Microcompact::json).collect(),
            applied_edits: self.applied_edits.as_deref(),
            facts: self.facts.json(),
        }
    }

    /// The empty evidence object (a session without requests).
    pub fn empty_json() -> RequestEvidenceJson<'static> {
        RequestEvidenceJson::default()
    }
}

/// Something about a record that did not check out (not a damaged line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub message: String,
}

/// The evidence of every request of a session.
#[derive(Debug, Clone, Default)]
pub struct SessionEvidence {
    /// Index k − 1 holds request k's evidence.
    pub requests: Vec<RequestEvidence>,
    pub warnings: Vec<Warning>,
}

impl SessionEvidence {
    pub fn at(&self, k: usize) -> Option<&RequestEvidence> {
        k.checked_sub(1).and_then(|i| self.requests.get(i))
    }
}

// ---- per response -------------------------------------------------------------

/// Response k's message, when request k has one.
fn response<'s>(s: &'s Session, req: &Request) -> Option<&'s Message> {
    req.response.map(|m| &s.messages[m])
}

/// Response k's usage as evidence, unless the response is `<synthetic>` or
/// recorded none.
pub fn usage(s: &Session, k: usize) -> Option<UsageEvidence> {
    let m = response(s, s.request(k)?)?;
    countable(m).map(|u| UsageEvidence::of(s.harness, u))
}

fn countable(m: &Message) -> Option<&Usage> {
    if m.model.as_deref() == Some(SYNTHETIC_MODEL) {
        return None;
    }
    m.usage.as_deref()
}

/// `ttl_auto(k)`: the TTL of the last cache write at or before response k − 1
/// (1h when that response wrote 1-hour tokens, else 5m; none → 5m).
pub fn ttl_auto(s: &Session, k: usize) -> Ttl {
    if !s.harness.rules().cache_writes {
        return Ttl::FiveMinutes;
    }
    s.requests[..k.saturating_sub(1).min(s.requests.len())]
        .iter()
        .rev()
        .filter_map(|r| response(s, r).and_then(countable))
        .find(|u| u.cache_creation_input_tokens > 0)
        .map_or(Ttl::FiveMinutes, ttl_of_write)
}

/// `ttl_auto(k)` for every request k (index k − 1), in one forward pass: a
/// session without cache writes would make `ttl_auto` look back over every
/// earlier request at each request.
pub fn ttl_auto_all(s: &Session) -> Vec<Ttl> {
    let mut out = Vec::with_capacity(s.requests.len());
    let mut last = Ttl::FiveMinutes;
    for r in &s.requests {
        out.push(last);
        if s.harness.rules().cache_writes
            && let Some(u) = response(s, r).and_then(countable)
            && u.cache_creation_input_tokens > 0
        {
            last = ttl_of_write(u);
        }
    }
    out
}

fn ttl_of_write(u: &Usage) -> Ttl {
    match u.cache_creation {
        Some(c) if c.ephemeral_1h_input_tokens > 0 => Ttl::OneHour,
        _ => Ttl::FiveMinutes,
    }
}

/// `cache_gap(k)` in minutes (SPEC §9): now(k) minus the timestamp of the last
/// main-thread assistant record before request k anywhere in the file
/// (compaction boundaries do not matter); None when either is unknown.
pub fn cache_gap(s: &Session, k: usize) -> Option<f64> {
    let req = s.request(k)?;
    let now = req.now_ms?;
    let last = s.messages[..req.end]
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.synthetic)?
        .last_ts?;
    Some((now - last) as f64 / 60_000.0)
}

/// SPEC §16.B5's now(k): the timestamp of the last main-thread `user`,
/// `attachment`, `system` or `progress` record before response k (where the
/// loader marked it; else §9's now(k)).
pub fn sent_ms(s: &Session, k: usize) -> Option<i64> {
    let marked = k
        .checked_sub(1)
        .and_then(|i| s.bill_marks.sent_ms.get(i).copied().flatten());
    marked.or_else(|| s.request(k)?.now_ms)
}

/// SPEC §16.B5's gap before response k (k − 1 = `prev`, the comparison's
/// previous response) against `ttl`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gap {
    /// `cache_gap(k)` measured from B5's now(k), minutes.
    pub cache: Option<f64>,
    /// `send_gap(k)` = now(k) − now(k − 1), minutes.
    pub send: Option<f64>,
    /// The measure that reaches the TTL (`cache_gap` when both do, §18.13).
    pub by: Option<&'static str>,
}

impl Gap {
    /// The gap reported: the larger of the two.
    pub fn minutes(&self) -> Option<f64> {
        match (self.cache, self.send) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// B5's gap of response k.
pub fn gap(s: &Session, k: usize, prev: Option<usize>, ttl: Ttl) -> Gap {
    let now = sent_ms(s, k);
    let minutes = |a: i64, b: i64| (a - b) as f64 / 60_000.0;
    let cache = (|| {
        let req = s.request(k)?;
        let last = s.messages[..req.end.min(s.messages.len())]
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant && !m.synthetic)?
            .last_ts?;
        Some(minutes(now?, last))
    })();
    let send = (|| Some(minutes(now?, sent_ms(s, prev?)?)))();
    let reaches = |g: Option<f64>| g.is_some_and(|g| g >= ttl.minutes());
    let by = if reaches(cache) {
        Some("cache_gap")
    } else if reaches(send) {
        Some("send_gap")
    } else {
        None
    };
    Gap { cache, send, by }
}

/// The `hookName`s of a SessionStart record that start a process (SPEC
/// §16.B6; `:compact` is a compaction's, an empty name is none).
pub const RESTART_HOOKS: [&str; 3] = [
    "SessionStart:resume",
    "SessionStart:startup",
    "SessionStart:clear",
];

/// Whether a process started between response `prev` (its first line) and
/// response k (its first line): a SessionStart hook record, a change of
/// `version` (SPEC §16.B6), or a new Qwen process segment (§10).
pub fn restarted(s: &Session, prev: usize, k: usize) -> bool {
    let (Some(p), Some(r)) = (s.request(prev), s.request(k)) else {
        return false;
    };
    if let (Some(a), Some(b)) = (&p.send, &r.send)
        && a.process != b.process
    {
        return true;
    }
    if let (Some(a), Some(b)) = (&p.version, &r.version)
        && a != b
    {
        return true;
    }
    let line = |q: &Request| q.response.map(|m| s.messages[m].first_line);
    let (Some(from), Some(to)) = (line(p), line(r)) else {
        return false;
    };
    s.bill_marks
        .starts
        .iter()
        .any(|(l, name)| *l > from && *l < to && RESTART_HOOKS.contains(&name.as_str()))
}

/// Whether response `k` called `ToolSearch` (SPEC §16.B4.3.6: the next
/// request's tool list changed, claude-code#91514).
pub fn called_tool_search(s: &Session, k: usize) -> bool {
    let Some(m) = s.request(k).and_then(|r| r.response) else {
        return false;
    };
    s.calls.iter().any(|c| c.msg == m && c.name == "ToolSearch")
}

#[cfg(test)]
pub(crate) mod tests;
