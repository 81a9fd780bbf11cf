//! What fills the window (SPEC §12, §15.17): per request, the selected
//! setting's wire split by what it holds — tool results per tool, thinking,
//! the assistant's text (tool-use inputs included), the user's text, images —
//! each by SPEC §2's estimate, and what the recorded prompt P(k) holds beyond
//! them (`unattributed`: the system prompt, tool definitions, anything the
//! transcript does not hold).
//!
//! Computed as the timeline steps: the messages' figures are read once per
//! session ([`ContextFacts`]), and [`ContextRun`] adds what each request's view
//! gained and what its wire clears, so a request costs what changed at it (and
//! the list of what is cleared, which a lean step carries anyway).

use crate::harness::{Block, RankBy};
use crate::policy::engine::Step;
use crate::policy::{Delivery, PlanKind};
use crate::session::{HarnessId, Role, Session};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Request k's window, by kind (SPEC §12 `context`), fields in schema order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Context {
    /// Σ est_tokens of the tool results in the wire, by tool (a cleared result
    /// counts its placeholder; a result whose call is not found is `unknown`).
    pub tool_results: BTreeMap<Arc<str>, u64>,
    /// Thinking blocks (`redacted_thinking` included; Qwen `thought` parts).
    pub thinking: u64,
    /// The assistant's text and its tool-use inputs (written as JSON).
    pub assistant_text: u64,
    /// The user's text (prompts, meta and summary records; any other block).
    pub user_text: u64,
    /// Images and documents outside tool results (a cleared Qwen media part
    /// counts its placeholder text here).
    pub images: u64,
    /// P(k) − the sum of the above (may be negative); None without usage.
    pub unattributed: Option<i64>,
}

impl Context {
    /// The sum of every attributed figure.
    pub fn attributed(&self) -> u64 {
        self.tool_results.values().sum::<u64>()
            + self.thinking
            + self.assistant_text
            + self.user_text
            + self.images
    }
}

/// One message's figures by kind (its tool results are counted apart, from
/// the loader's `est_tokens`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kinds {
    pub thinking: u64,
    pub assistant_text: u64,
    pub user_text: u64,
    pub images: u64,
}

impl Kinds {
    fn add(&mut self, o: &Kinds) {
        self.thinking += o.thinking;
        self.assistant_text += o.assistant_text;
        self.user_text += o.user_text;
        self.images += o.images;
    }

    fn minus(&self, o: &Kinds) -> Kinds {
        Kinds {
            thinking: self.thinking - o.thinking,
            assistant_text: self.assistant_text - o.assistant_text,
            user_text: self.user_text - o.user_text,
            images: self.images - o.images,
        }
    }
}

/// What one message holds beyond its kinds: what the `api` server view and
/// Qwen's media clearing change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MsgExtra {
    /// Each tool use's id and the tokens of its input (in the session's
    /// figures, only for a message read back: a message the loader measured
    /// keeps them in its parts).
    pub uses: Vec<(Box<str>, u64)>,
    /// Each top-level media part's placeholder tokens, in part order (Qwen).
    pub media_placeholders: Vec<u64>,
}

/// The session's figures, read once: every message's kinds as prefix sums,
/// and each result's tool.
#[derive(Debug, Clone, Default)]
pub struct ContextFacts {
    /// `prefix[m]` = Σ kinds of messages `0..m`.
    prefix: Vec<Kinds>,
    extra: Vec<MsgExtra>,
    /// The tool of each result, as an index into `tools`.
    pub tool_of: Vec<usize>,
    pub tools: Vec<Arc<str>>,
}

impl ContextFacts {
    /// The facts of `s`, read back from its records once and kept in the
    /// run's `derived`.
    pub fn of_session(s: &Session, derived: &crate::derived::Derived) -> Arc<ContextFacts> {
        let f = derived.get_or_init(|| ContextFacts::read(s));
        // Facts of another length are another session's: read again.
        if f.extra.len() == s.messages.len() {
            f
        } else {
            Arc::new(ContextFacts::read(s))
        }
    }

    /// Each message's kinds as the loader measured its records; a message it
    /// could not measure (an inline part it did not measure, a value the
    /// scan is unsure of) is
    /// read back, and one that cannot be read back counts nothing.
    fn read(s: &Session) -> ContextFacts {
        let mut kinds = Vec::with_capacity(s.messages.len());
        let mut extra = Vec::with_capacity(s.messages.len());
        let mut unread = Vec::new();
        for (m, msg) in s.messages.iter().enumerate() {
            let (k, x) = match measured_kinds(msg) {
                Some(k) => (k, MsgExtra::default()),
                None => {
                    unread.push(m);
                    Default::default()
                }
            };
            kinds.push(k);
            extra.push(x);
        }
        let read = crate::load::readback::map_these(s, &unread, |m, v| {
            message_kinds(s.harness, s.messages[m].role, v)
        })
        .unwrap_or_else(|_| vec![Default::default(); unread.len()]);
        for (m, (k, x)) in unread.into_iter().zip(read) {
            kinds[m] = k;
            extra[m] = x;
        }
        ContextFacts::new(s, &kinds, extra)
    }

    fn new(s: &Session, kinds: &[Kinds], extra: Vec<MsgExtra>) -> ContextFacts {
        let mut prefix = Vec::with_capacity(kinds.len() + 1);
        let mut sum = Kinds::default();
        prefix.push(sum);
        for k in kinds {
            sum.add(k);
            prefix.push(sum);
        }
        let (tool_of, tools) = tools_of_results(s);
        ContextFacts {
            prefix,
            extra,
            tool_of,
            tools,
        }
    }

    fn kinds_in(&self, start: usize, end: usize) -> Kinds {
        match (self.prefix.get(end), self.prefix.get(start)) {
            (Some(e), Some(b)) if end >= start => e.minus(b),
            _ => Kinds::default(),
        }
    }
}

/// A message's kinds from what the loader measured of each of its records,
/// when it measured them all: what [`message_kinds`] counts of the message
/// read back (its parts' blocks joined in order, a string one text block).
pub fn measured(msg: &crate::session::Message) -> Option<(Kinds, MsgExtra)> {
    let k = measured_kinds(msg)?;
    let mut x = MsgExtra::default();
    for part in &msg.parts {
        x.uses.extend(part.kinds()?.uses.iter().cloned());
    }
    Some((k, x))
}

/// As [`measured`], without the tool uses: the session's figures leave them
/// in the parts (see `ContextRun::use_tokens`); a copy of every id of every
/// message was most of reading them.
fn measured_kinds(msg: &crate::session::Message) -> Option<Kinds> {
    let mut k = Kinds::default();
    for part in &msg.parts {
        let p = part.kinds()?;
        match msg.role {
            Role::User => k.user_text += p.text,
            Role::Assistant => k.assistant_text += p.text,
        }
        k.assistant_text += p.inputs;
        k.thinking += p.thinking;
        k.images += p.images;
    }
    Some(k)
}

/// Each result's tool: Claude, the name of the latest call with its id before
/// it (else the first); Qwen, the response's own name (a bridged one, the
/// tool its calls name), else its call's.
fn tools_of_results(s: &Session) -> (Vec<usize>, Vec<Arc<str>>) {
    let mut calls: crate::fasthash::FastMap<&str, Vec<usize>> = Default::default();
    for (i, c) in s.calls.iter().enumerate() {
        calls.entry(c.id.as_str()).or_default().push(i);
    }
    let mut names: crate::fasthash::FastMap<&str, usize> = Default::default();
    let mut tools = Vec::new();
    let mut tool_of = Vec::with_capacity(s.results.len());
    for r in &s.results {
        let ids = calls.get(r.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let call = ids
            .iter()
            .rev()
            .find(|&&c| s.calls[c].msg < r.msg)
            .or(ids.first())
            .map(|&c| s.calls[c].name.as_str());
        let bridge = s.shape().tools.tools.bridge_tool;
        let name = match (s.shape().rank_by, r.name.as_deref()) {
            (RankBy::Calls, _) | (RankBy::Responses, None) => call,
            // A response named after the bridge answers the tool its calls name
            // (SPEC §3, as the plans read it).
            (RankBy::Responses, Some(n)) if Some(n) == bridge => {
                let agree = ids.iter().all(|&c| s.calls[c].name == s.calls[ids[0]].name);
                call.filter(|_| agree).or(Some(n))
            }
            (RankBy::Responses, named) => named,
        }
        .unwrap_or("unknown");
        let next = tools.len();
        let t = *names.entry(name).or_insert(next);
        if t == next {
            tools.push(Arc::from(name));
        }
        tool_of.push(t);
    }
    (tool_of, tools)
}

/// SPEC §2's estimate of a text of the harness.
pub fn text_tokens(h: HarnessId, text: &str) -> u64 {
    h.rules()
        .text_tokens
        .of(crate::load::raw::utf16_len_str(text))
}

/// One message's kinds (SPEC §15.17): its tool results are left out (the
/// loader's `est_tokens` counts them); a tool use's input, written as JSON,
/// is the assistant's text; a block of no known kind counts its JSON under
/// the role's text.
pub fn message_kinds(h: HarnessId, role: Role, msg: &Value) -> (Kinds, MsgExtra) {
    let mut k = Kinds::default();
    let mut x = MsgExtra::default();
    let text_of = |k: &mut Kinds, t: u64| match role {
        Role::User => k.user_text += t,
        Role::Assistant => k.assistant_text += t,
    };
    let media = h.rules().media_tokens;
    match msg.get(h.rules().wire.content) {
        Some(Value::String(t)) => text_of(&mut k, text_tokens(h, t)),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                if crate::wire::is_tool_result(h, b) {
                    continue;
                }
                match h.dialect().block(b) {
                    Block::Text(t) => text_of(&mut k, text_tokens(h, t)),
                    Block::Thinking(t) => k.thinking += text_tokens(h, t),
                    Block::Call { id, input } => {
                        let t = text_tokens(h, &input);
                        k.assistant_text += t;
                        if let Some(id) = id {
                            x.uses.push((id.into(), t));
                        }
                    }
                    Block::Media { placeholder } => {
                        k.images += media;
                        if let Some(ph) = placeholder {
                            x.media_placeholders.push(text_tokens(h, &ph));
                        }
                    }
                    Block::Other => text_of(&mut k, text_tokens(h, &b.to_string())),
                }
            }
        }
        _ => {}
    }
    (k, x)
}

/// The setting's wire as the steps go: what the view holds, running, and what
/// the wire clears of it. Feed it every step of one engine, in order.
pub struct ContextRun<'a> {
    s: &'a Session,
    facts: Arc<ContextFacts>,
    delivery: Delivery,
    /// What a cleared result reads in this wire, in tokens.
    placeholder: u64,
    /// The view the running sums cover: messages `view_start..end`.
    view_start: usize,
    end: usize,
    /// Σ est_tokens of the view's results by tool, and how many there are.
    base: Vec<u64>,
    count: Vec<usize>,
    /// A tracked engine's cleared set (`Step::wire`), and what it takes off
    /// each tool.
    in_set: Vec<bool>,
    tracked_off: Vec<i64>,
}

impl<'a> ContextRun<'a> {
    pub fn new(setup: &'a crate::analysis::Setup) -> ContextRun<'a> {
        let s = &setup.session;
        let facts = ContextFacts::of_session(s, &setup.derived);
        let delivery = setup.policy.delivery;
        let dialect = s.harness.dialect();
        let placeholder = match delivery {
            // The cached microcompact deletes the result from the server's cache.
            Delivery::CacheEdits if dialect.has_cache_edits() => 0,
            Delivery::Server if dialect.has_server_view() => {
                text_tokens(s.harness, &setup.policy.api.placeholder)
            }
            _ => text_tokens(s.harness, s.harness.rules().placeholder),
        };
        let tools = facts.tools.len();
        ContextRun {
            s,
            facts,
            delivery,
            placeholder,
            view_start: usize::MAX,
            end: 0,
            base: vec![0; tools],
            count: vec![0; tools],
            in_set: vec![false; s.results.len()],
            tracked_off: vec![0; tools],
        }
    }

    /// What result `r` being cleared takes off its tool.
    fn off(&self, r: usize) -> i64 {
        self.s.results[r].est_tokens as i64 - self.placeholder as i64
    }

    /// Request `st.index`'s window.
    pub fn next(&mut self, st: &Step) -> Context {
        let s = self.s;
        let req = &s.requests[st.index - 1];
        let new_view = req.view_start != self.view_start || req.end < self.end;
        if new_view {
            self.view_start = req.view_start;
            self.end = req.view_start;
            self.base.iter_mut().for_each(|t| *t = 0);
            self.count.iter_mut().for_each(|t| *t = 0);
            self.tracked_off.iter_mut().for_each(|t| *t = 0);
            self.in_set.iter_mut().for_each(|b| *b = false);
        }
        for r in s.results_in(self.end, req.end) {
            let t = self.facts.tool_of[r];
            self.base[t] += s.results[r].est_tokens;
            self.count[t] += 1;
        }
        self.end = req.end;
        let in_view = |r: usize| (req.view_start..req.end).contains(&s.results[r].msg);
        // What the wire clears, by tool.
        let mut off = match &st.wire {
            Some(w) => {
                for &r in &w.added {
                    if in_view(r) && !self.in_set[r] {
                        self.in_set[r] = true;
                        self.tracked_off[self.facts.tool_of[r]] += self.off(r);
                    }
                }
                for &r in &w.removed {
                    if self.in_set[r] {
                        self.in_set[r] = false;
                        self.tracked_off[self.facts.tool_of[r]] -= self.off(r);
                    }
                }
                self.tracked_off.clone()
            }
            None => {
                let mut off = vec![0i64; self.facts.tools.len()];
                for &r in st.cleared.iter().filter(|&&r| in_view(r)) {
                    off[self.facts.tool_of[r]] += self.off(r);
                }
                off
            }
        };
        let mut kinds = self.facts.kinds_in(req.view_start, req.end);
        self.media(st, &mut kinds, &mut off);
        self.server(st, &mut kinds);
        if s.harness.asks().forced_drops_thoughts()
            && st.kind.is_some_and(PlanKind::fires_at_view)
            && newly(st) > 0
        {
            // `/compress-fast` drops every thought part of the view.
            kinds.thinking = 0;
        }
        let mut tool_results = BTreeMap::new();
        for (t, &sum) in self.base.iter().enumerate() {
            if self.count[t] > 0 {
                tool_results.insert(
                    self.facts.tools[t].clone(),
                    (sum as i64 - off[t]).max(0) as u64,
                );
            }
        }
        let mut c = Context {
            tool_results,
            thinking: kinds.thinking,
            assistant_text: kinds.assistant_text,
            user_text: kinds.user_text,
            images: kinds.images,
            unattributed: None,
        };
        c.unattributed = s
            .recorded_prompt(st.index)
            .map(|p| p as i64 - c.attributed() as i64);
        c
    }

    /// Qwen media in the wire: a cleared top-level part reads its placeholder
    /// (under images), a result's stripped nested media goes.
    fn media(&self, st: &Step, kinds: &mut Kinds, off: &mut [i64]) {
        let s = self.s;
        let media = s.shape().media_tokens;
        for &(msg, item) in &st.media_in_wire {
            if item < s.media.len() {
                let first = s.media_in(msg, msg + 1).start;
                let ph = self.facts.extra[msg]
                    .media_placeholders
                    .get(item - first)
                    .copied()
                    .unwrap_or(0);
                kinds.images = (kinds.images + ph).saturating_sub(media);
            } else {
                let r = item - s.media.len();
                let cleared = match &st.wire {
                    Some(_) => self.in_set[r],
                    None => st.cleared.contains(&r),
                };
                if !cleared {
                    off[self.facts.tool_of[r]] += (media * u64::from(s.results[r].media)) as i64;
                }
            }
        }
    }

    /// The `api` server view: cleared thinking goes, a cleared input reads `{}`.
    fn server(&self, st: &Step, kinds: &mut Kinds) {
        let (Some(api), Delivery::Server, true) = (
            &st.api,
            self.delivery,
            self.s.harness.dialect().has_server_view(),
        ) else {
            return;
        };
        let facts = &self.facts;
        for &m in &api.thinking_cleared {
            kinds.thinking -= facts.kinds_in(m, m + 1).thinking.min(kinds.thinking);
        }
        let empty = text_tokens(self.s.harness, "{}");
        for (m, id) in &api.inputs_cleared {
            let input = self.use_tokens(*m, id);
            if let Some(t) = input {
                kinds.assistant_text = (kinds.assistant_text + empty).saturating_sub(t);
            }
        }
    }
}

impl ContextRun<'_> {
    /// The input tokens of message `m`'s tool use `id`: from its parts where
    /// the loader measured every one (as [`measured`] reads it), else from
    /// what reading it back found.
    fn use_tokens(&self, m: usize, id: &str) -> Option<u64> {
        let parts = &self.s.messages.get(m)?.parts;
        let find =
            |uses: &[(Box<str>, u64)]| uses.iter().find(|(u, _)| &**u == id).map(|(_, t)| *t);
        if parts.iter().all(|p| p.kinds().is_some()) {
            parts
                .iter()
                .filter_map(|p| p.kinds())
                .find_map(|k| find(&k.uses))
        } else {
            find(&self.facts.extra.get(m)?.uses)
        }
    }
}

/// How many results the plan cleared at this step.
fn newly(st: &Step) -> usize {
    st.wire.as_ref().map_or(st.newly_cleared.len(), |w| w.newly)
}

#[cfg(test)]
mod tests;
