//! Whole-session figures of one setting (SPEC §9): per request `in_wire_tokens`,
//! `break`, `rewritten_tokens`, `warm`, `cache_gap`, and their session totals,
//! all from the engine's steps (the same ones `plan --at k` reads).
//!
//! What does not depend on the setting (the cache gap and TTL per request, the
//! `later_used` index, every message's estimated tokens) is [`SessionFacts`],
//! built once per session and shared by every setting run over it.

use crate::analysis::{self, Setup, Wired};
use crate::evidence::{self, Ttl};
use crate::policy::Delivery;
use crate::policy::engine::{Step, unattributed_tokens};
use crate::prices::CostTokens;
use crate::session::Session;
use crate::wire::{self, Clearings};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

pub use crate::prices::CacheTtl;

impl CacheTtl {
    /// The TTL at request k: as asked, or §10's `ttl_auto(k)`.
    pub fn at(self, s: &Session, k: usize) -> Ttl {
        match self {
            CacheTtl::Auto => evidence::ttl_auto(s, k),
            CacheTtl::FiveMinutes => Ttl::FiveMinutes,
            CacheTtl::OneHour => Ttl::OneHour,
        }
    }
}

/// `warm[k]`: request k > 1 with a known gap shorter than the TTL.
pub fn is_warm(k: usize, gap: Option<f64>, ttl: Ttl) -> bool {
    k > 1 && gap.is_some_and(|g| g < ttl.minutes())
}

/// What a `later_used` check compares: a normalized file path or a command.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Path(String),
    Command(String),
}

/// What `later_used` compares for call `c` (SPEC §9): a file-path tool's path
/// after `--path-map` and lexical normalization against the call's `cwd`, a
/// shell tool's command trimmed; None for any other call.
pub fn later_key(setup: &Setup, c: &crate::session::ToolCall) -> Option<Key> {
    let rules = setup.policy.preset.rules();
    let name = rules.canonical(&c.name);
    if rules.is_file_path_tool(name) {
        c.file_path.as_deref().map(|p| {
            let abs = crate::policy::protect::absolutize(p, c.cwd.as_deref());
            Key::Path(setup.path_map.apply(&abs).display().to_string())
        })
    } else if rules.tools.shell_tools.contains(&name) {
        c.summary
            .as_deref()
            .map(|cmd| Key::Command(cmd.trim().to_string()))
    } else {
        None
    }
}

/// For each result, the key its call names, and for each key the last message
/// holding a call that names it (SPEC §9 `later_used`).
#[derive(Debug, Default)]
struct LaterIndex {
    key_of_result: Vec<Option<usize>>,
    last_msg: Vec<usize>,
}

impl LaterIndex {
    fn new(setup: &Setup) -> LaterIndex {
        let s = &setup.session;
        let mut keys: HashMap<Key, usize> = HashMap::new();
        let mut last_msg: Vec<usize> = Vec::new();
        let mut key_of_call: Vec<Option<usize>> = Vec::with_capacity(s.calls.len());
        for c in &s.calls {
            let id = later_key(setup, c).map(|k| {
                let next = keys.len();
                let id = *keys.entry(k).or_insert(next);
                if id == last_msg.len() {
                    last_msg.push(c.msg);
                }
                last_msg[id] = last_msg[id].max(c.msg);
                id
            });
            key_of_call.push(id);
        }
        let mut calls_by_id: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in s.calls.iter().enumerate() {
            calls_by_id.entry(c.id.as_str()).or_default().push(i);
        }
        // A result answers the last call with its id before it.
        let key_of_result = s
            .results
            .iter()
            .map(|r| {
                let calls = calls_by_id.get(r.id.as_str())?;
                let c = calls.iter().rev().find(|&&c| s.calls[c].msg <= r.msg)?;
                key_of_call[*c]
            })
            .collect();
        LaterIndex {
            key_of_result,
            last_msg,
        }
    }

    /// Whether a call in a response at or after request `k` names result `r`'s key.
    fn used_after(&self, s: &Session, r: usize, k: usize) -> bool {
        let Some(Some(key)) = self.key_of_result.get(r) else {
            return false;
        };
        let Some(resp) = s.request(k).and_then(|q| q.response) else {
            return false;
        };
        self.last_msg[*key] >= resp
    }
}

/// The state of one message in a rewritten wire: results cleared, results
/// stripped, media cleared, thoughts dropped.
type MessageState = (usize, Vec<usize>, Vec<usize>, Vec<usize>, bool);

/// Estimated tokens of messages as sent: the recorded figure of every message
/// (one pass over the file, on first need), and the figures of changed
/// messages, each built once whatever setting asks.
#[derive(Debug, Default)]
struct TokenCache {
    /// Prefix sums of the recorded messages' tokens.
    local: OnceLock<Result<Vec<u64>, String>>,
    changed: Mutex<HashMap<MessageState, u64>>,
    /// `wire::measured_rewrite_table`, made on first need.
    measured: OnceLock<(Vec<Option<u64>>, Vec<i64>)>,
}

impl TokenCache {
    fn prefix(&self, s: &Session) -> std::io::Result<&[u64]> {
        let r = self.local.get_or_init(|| {
            wire::local_message_tokens(s)
                .map(|t| {
                    let mut acc = Vec::with_capacity(t.len() + 1);
                    acc.push(0);
                    let mut sum = 0;
                    for x in t {
                        sum += x;
                        acc.push(sum);
                    }
                    acc
                })
                .map_err(|e| e.to_string())
        });
        r.as_deref().map_err(|e| std::io::Error::other(e.clone()))
    }

    /// `wire::measured_rewrite_tokens` of message `m` with the results
    /// `cleared` (its own, sorted) cleared, from the table: two small reads
    /// a result instead of the message's records.
    fn measured(&self, s: &Session, m: usize, cleared: &[usize]) -> Option<u64> {
        let (base, delta) = self
            .measured
            .get_or_init(|| wire::measured_rewrite_table(s));
        let mut written = (*base.get(m)?)? as i64;
        let mut last = None;
        for &r in cleared {
            if last.replace(r) != Some(r) {
                written += delta[r];
            }
        }
        let t = (written as u64).div_ceil(4);
        debug_assert_eq!(
            Some(t),
            wire::measured_rewrite_tokens(s, m, &|r| cleared.contains(&r)),
            "measured rewrite from the table"
        );
        Some(t)
    }

    fn changed(
        &self,
        s: &Session,
        req: &crate::session::Request,
        st: MessageState,
    ) -> std::io::Result<u64> {
        let (m, cleared, stripped, media, drop_thoughts) = &st;
        let result_cleared = |r: usize| cleared.contains(&r);
        // Claude's rewrite only clears results: measured, not built, and
        // cheaper to measure again than to look up in the memo (a map that
        // grows with the session, locked by every setting at once).
        let measured = (stripped.is_empty() && media.is_empty() && !drop_thoughts)
            .then(|| self.measured(s, *m, cleared))
            .flatten();
        if let Some(t) = measured {
            return Ok(t);
        }
        if let Ok(memo) = self.changed.lock()
            && let Some(&t) = memo.get(&st)
        {
            return Ok(t);
        }
        let result_stripped = |r: usize| stripped.contains(&r);
        let media_cleared = |x: usize| media.contains(&x);
        let t = wire::wire_message_tokens(
            s,
            req,
            *m,
            &Clearings {
                delivery: Delivery::Rewrite,
                result_cleared: &result_cleared,
                result_stripped: &result_stripped,
                media_cleared: &media_cleared,
                edits: &[],
                drop_thoughts: *drop_thoughts,
                server: None,
                dropped: &[],
                texts: &[],
            },
        )?;
        if let Ok(mut memo) = self.changed.lock() {
            memo.insert(st, t);
        }
        Ok(t)
    }
}

/// Per-request facts of a session that no setting changes.
#[derive(Debug)]
pub struct SessionFacts {
    pub cache_ttl: CacheTtl,
    /// Index k − 1: `cache_gap(k)`, the TTL at k, `warm[k]`.
    pub cache_gap: Vec<Option<f64>>,
    pub ttl: Vec<Ttl>,
    pub warm: Vec<bool>,
    later: OnceLock<LaterIndex>,
    tokens: TokenCache,
    /// Called before each request of a setting is figured: background work
    /// (the TUI's compare panel) waits there while the user is typing.
    pub pause: Option<Pause>,
}

/// A hook that may block a background computation for a while.
#[derive(Clone)]
pub struct Pause(pub std::sync::Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for Pause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pause")
    }
}

impl SessionFacts {
    pub fn new(s: &Session, cache_ttl: CacheTtl) -> SessionFacts {
        let n = s.requests.len();
        let cache_gap: Vec<Option<f64>> = (1..=n).map(|k| evidence::cache_gap(s, k)).collect();
        let ttl: Vec<Ttl> = match cache_ttl {
            CacheTtl::Auto => evidence::ttl_auto_all(s),
            _ => (1..=n).map(|k| cache_ttl.at(s, k)).collect(),
        };
        let warm = (1..=n)
            .map(|k| is_warm(k, cache_gap[k - 1], ttl[k - 1]))
            .collect();
        SessionFacts {
            cache_ttl,
            cache_gap,
            ttl,
            warm,
            later: OnceLock::new(),
            tokens: TokenCache::default(),
            pause: None,
        }
    }

    fn later(&self, setup: &Setup) -> &LaterIndex {
        self.later.get_or_init(|| LaterIndex::new(setup))
    }
}

/// The §9 figures of one request under one setting.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestFigures {
    pub index: usize,
    pub in_wire_tokens: u64,
    /// `break[k]`: where k's wire first differs from k − 1's (view-relative).
    pub break_at: Option<usize>,
    /// `rewritten_tokens[k]` (not gated by warmth).
    pub tokens_rewritten: u64,
    pub warm: bool,
    pub cache_gap: Option<f64>,
    pub ttl: Ttl,
}

impl RequestFigures {
    pub fn cache_break(&self) -> bool {
        self.break_at.is_some()
    }

    /// The text timeline's cache column.
    pub fn cache_word(&self) -> &'static str {
        match (self.cache_break(), self.warm) {
            (true, true) => "broken",
            (_, false) => "cold",
            (false, true) => "kept",
        }
    }
}

/// Request `st.index`'s figures; `prev` is the step of request k − 1 when it
/// lay in the same view (what `plan --at k` compares with).
pub fn figures(
    setup: &Setup,
    facts: &SessionFacts,
    prev: Option<&Step>,
    st: &Step,
) -> std::io::Result<RequestFigures> {
    let s = &setup.session;
    let k = st.index;
    let req = &s.requests[k - 1];
    let cache_edits =
        setup.policy.delivery == Delivery::CacheEdits && s.harness.dialect().has_cache_edits();
    if let Some(w) = &st.wire {
        return figures_tracked(setup, facts, st, w, cache_edits);
    }
    // The baseline's applied edit whose ids are unknown keeps its recorded
    // tokens out all the same (SPEC §15.5).
    let in_wire_tokens = st
        .cleared
        .iter()
        .map(|&r| s.results[r].est_tokens)
        .sum::<u64>()
        + unattributed_tokens(&st.note);
    // The same lists as k − 1's (most requests): nothing differs, no break.
    let unchanged = prev
        .is_some_and(|p| p.cleared == st.cleared && p.media_in_wire == st.media_in_wire)
        || (prev.is_none() && st.cleared.is_empty() && st.media_in_wire.is_empty());
    let break_msg = if cache_edits || unchanged {
        None
    } else {
        analysis::prefix_break_message(s, req, prev.map_or(Wired::NONE, Step::wired), st.wired())
    };
    let break_at = break_msg.map(|m| req.wire_pos(m));
    let tokens_rewritten = match break_msg {
        Some(m) => tokens_after(setup, facts, st, m)?,
        None => 0,
    };
    Ok(RequestFigures {
        index: k,
        in_wire_tokens,
        break_at,
        tokens_rewritten,
        warm: facts.warm[k - 1],
        cache_gap: facts.cache_gap[k - 1],
        ttl: facts.ttl[k - 1],
    })
}

/// `figures` from a tracked engine's step (`Engine::tracked`), which says
/// what changed since request k − 1 instead of listing every result cleared:
/// the same figures, at the cost of what changed. Its engine stepped k − 1
/// just before, so the change is against k − 1's wire when it lay in the same
/// view and against nothing otherwise (the results of an earlier view are not
/// in the delta), as `figures` compares.
fn figures_tracked(
    setup: &Setup,
    facts: &SessionFacts,
    st: &Step,
    w: &crate::policy::engine::WireDelta,
    cache_edits: bool,
) -> std::io::Result<RequestFigures> {
    let s = &setup.session;
    let k = st.index;
    let req = &s.requests[k - 1];
    let break_msg = if cache_edits {
        None
    } else {
        // The first message of the view holding a result cleared in one wire
        // and not the other (`analysis::prefix_break_message`).
        w.added
            .iter()
            .chain(&w.removed)
            .map(|&r| s.results[r].msg)
            .filter(|&m| m >= req.view_start)
            .min()
    };
    let break_at = break_msg.map(|m| req.wire_pos(m));
    let tokens_rewritten = match break_msg {
        Some(m) => tokens_after_in(setup, facts, st, &w.tail, &[], m)?,
        None => 0,
    };
    Ok(RequestFigures {
        index: k,
        in_wire_tokens: w.tokens + unattributed_tokens(&st.note),
        break_at,
        tokens_rewritten,
        warm: facts.warm[k - 1],
        cache_gap: facts.cache_gap[k - 1],
        ttl: facts.ttl[k - 1],
    })
}

/// Σ of the wire's message tokens from message `from` (absolute) to the end of
/// request `st.index`: `tokens_after_break` without building the body. Recorded
/// figures for the messages the wire leaves alone, and each changed message
/// built on its own.
fn tokens_after(
    setup: &Setup,
    facts: &SessionFacts,
    st: &Step,
    from: usize,
) -> std::io::Result<u64> {
    tokens_after_in(setup, facts, st, &st.cleared, &st.media_in_wire, from)
}

/// `tokens_after` over the given results cleared and media changed in the
/// wire (those from `from` on are read; others may be given).
fn tokens_after_in(
    setup: &Setup,
    facts: &SessionFacts,
    st: &Step,
    cleared: &[usize],
    media_in_wire: &[(usize, usize)],
    from: usize,
) -> std::io::Result<u64> {
    let s = &setup.session;
    let req = &s.requests[st.index - 1];
    let prefix = facts.tokens.prefix(s)?;
    let mut total = prefix[req.end] - prefix[from.min(req.end)];
    // Messages on a dead branch are not in the body (SPEC §15.1).
    for r in &req.dead {
        let (a, b) = (r.start.max(from), r.end.min(req.end));
        if a < b {
            total -= prefix[b] - prefix[a];
        }
    }
    // Forced on Qwen drops thoughts from every model turn where it cleared.
    // (A tracked step lists nothing newly cleared but says whether it did.)
    let cleared_here = st
        .wire
        .as_ref()
        .map_or(!st.newly_cleared.is_empty(), |w| w.newly > 0);
    let drop_thoughts = setup.policy.kind.fires_at_view()
        && s.harness.asks().forced_drops_thoughts()
        && cleared_here;
    // Per changed message: results cleared, results stripped, media cleared.
    type Changes = (Vec<usize>, Vec<usize>, Vec<usize>);
    let mut changed: std::collections::BTreeMap<usize, Changes> = std::collections::BTreeMap::new();
    for &r in cleared {
        let m = s.results[r].msg;
        if m >= from && m < req.end {
            changed.entry(m).or_default().0.push(r);
        }
    }
    for &(m, x) in media_in_wire {
        if m >= from && m < req.end {
            let e = changed.entry(m).or_default();
            if x < s.media.len() {
                e.2.push(x);
            } else {
                e.1.push(x - s.media.len());
            }
        }
    }
    if drop_thoughts {
        for m in from..req.end {
            if s.messages[m].role == crate::session::Role::Assistant {
                changed.entry(m).or_default();
            }
        }
    }
    changed.retain(|&m, _| !req.is_dead(m));
    for (m, (mut cleared, mut stripped, mut media)) in changed {
        cleared.sort_unstable();
        stripped.sort_unstable();
        media.sort_unstable();
        let local = prefix[m + 1] - prefix[m];
        let wire = facts
            .tokens
            .changed(s, req, (m, cleared, stripped, media, drop_thoughts))?;
        total = total - local + wire;
    }
    Ok(total)
}

/// A setting's totals over one session (SPEC §9), with the token sums its
/// `delta_usd` needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub fires: u64,
    pub cleared_results: u64,
    pub tokens_not_sent: u64,
    pub cache_breaks: u64,
    pub tokens_rewritten: u64,
    pub later_used: u64,
    pub cost: CostTokens,
}

impl Totals {
    pub fn add(&mut self, o: &Totals) {
        self.fires += o.fires;
        self.cleared_results += o.cleared_results;
        self.tokens_not_sent += o.tokens_not_sent;
        self.cache_breaks += o.cache_breaks;
        self.tokens_rewritten += o.tokens_rewritten;
        self.later_used += o.later_used;
        self.cost.add(&o.cost);
    }
}

/// Sums the figures of a session's requests, in order.
#[derive(Debug)]
pub struct Accumulator {
    pub totals: Totals,
    seen: Vec<bool>,
}

impl Accumulator {
    pub fn new(s: &Session) -> Accumulator {
        Accumulator {
            totals: Totals::default(),
            seen: vec![false; s.results.len()],
        }
    }

    /// Adds request `st.index`: its figures, and the results cleared for the
    /// first time there (with whether the model reached for them again).
    pub fn add(&mut self, setup: &Setup, facts: &SessionFacts, st: &Step, f: &RequestFigures) {
        let s = &setup.session;
        let t = &mut self.totals;
        t.fires += u64::from(st.fired());
        t.tokens_not_sent += f.in_wire_tokens;
        if f.cache_break() && f.warm {
            t.cache_breaks += 1;
            t.tokens_rewritten += f.tokens_rewritten;
        }
        t.cost.add(&CostTokens::request(
            f.tokens_rewritten,
            f.in_wire_tokens,
            f.warm,
            f.ttl == Ttl::OneHour,
        ));
        // A result first in a wire's cleared set enters it there: a tracked
        // step names only those.
        let entered = st.wire.as_ref().map_or(&st.cleared, |w| &w.added);
        for &r in entered {
            if !std::mem::replace(&mut self.seen[r], true) {
                t.cleared_results += 1;
                if facts.later(setup).used_after(s, r, st.index) {
                    t.later_used += 1;
                }
            }
        }
    }
}

/// The steps of a setting over the session with their figures, one at a time
/// (what `timeline` prints and `compare` sums).
pub fn each_request(
    setup: &Setup,
    facts: &SessionFacts,
    forced_at: usize,
    mut f: impl FnMut(&Step, &RequestFigures) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let s = &setup.session;
    let mut prev: Option<Step> = None;
    for st in analysis::tracked_steps(setup, forced_at) {
        if let Some(p) = &facts.pause {
            (p.0)();
        }
        let req = &s.requests[st.index - 1];
        let before = prev
            .as_ref()
            .filter(|p| s.requests[p.index - 1].segment == req.segment);
        let fig = figures(setup, facts, before, &st)?;
        f(&st, &fig)?;
        prev = Some(st);
    }
    Ok(())
}

/// A setting's totals over one session.
pub fn session_totals(setup: &Setup, facts: &SessionFacts) -> std::io::Result<Totals> {
    let mut acc = Accumulator::new(&setup.session);
    each_request(setup, facts, setup.last_request(), |st, f| {
        acc.add(setup, facts, st, f);
        Ok(())
    })?;
    Ok(acc.totals)
}

/// The model whose prices apply (SPEC §9): the last main-thread response's
/// `message.model` that is not `<synthetic>` (the body's, for messages-json).
pub fn session_model(s: &Session) -> Option<String> {
    s.messages
        .iter()
        .rev()
        .filter(|m| m.role == crate::session::Role::Assistant && !m.synthetic)
        .filter_map(|m| m.model.as_deref())
        .find(|m| *m != crate::session::SYNTHETIC_MODEL)
        .map(str::to_string)
        .or_else(|| {
            s.model
                .clone()
                .filter(|m| m != crate::session::SYNTHETIC_MODEL)
        })
}
