//! Where the cache-write money went (SPEC §16.B): every recorded cache-write
//! token of every response in exactly one cause, 5m and 1h apart, read from
//! the records alone (never a simulated plan, §16 BL4).
//!
//! The unit is a response: a main-thread one (request k) or a sub-agent's
//! (an inline sidechain line or a sub-agent file's). Each [`Response`] carries
//! the flat facts of one `mcscope.bill_row/1` line; the reports add them up.

use crate::evidence::{self, Explanation, Ttl};
use crate::session::{Session, Usage, UsageLine};
use std::collections::HashSet;
use std::path::PathBuf;

/// A cause of cache-write tokens (SPEC §16.B4), in the order the bill's JSON
/// lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Cause {
    First,
    Growth,
    Drift,
    Compaction,
    Ttl,
    Resume,
    ModelSwitch,
    Clearing,
    ToolsChanged,
    Unexplained,
    Subagent,
}

impl Cause {
    pub const ALL: [Cause; 11] = [
        Cause::First,
        Cause::Growth,
        Cause::Drift,
        Cause::Compaction,
        Cause::Ttl,
        Cause::Resume,
        Cause::ModelSwitch,
        Cause::Clearing,
        Cause::ToolsChanged,
        Cause::Unexplained,
        Cause::Subagent,
    ];

    pub fn name(self) -> &'static str {
        self.into()
    }

    /// A break's cause (B4.3): the ones a lever or a record can answer for.
    pub fn is_break_cause(self) -> bool {
        matches!(
            self,
            Cause::Compaction
                | Cause::Ttl
                | Cause::Resume
                | Cause::ModelSwitch
                | Cause::Clearing
                | Cause::ToolsChanged
                | Cause::Unexplained
        )
    }

    /// A break's mark on the TUI's marks line (SPEC §16.S, §18.24): `T` ttl,
    /// `R` resume, `^` compaction, `✂` clearing, `⚙` tools, `M` model, `?`
    /// unexplained; `!` for any other.
    pub fn glyph(self) -> char {
        match self {
            Cause::Ttl => 'T',
            Cause::Resume => 'R',
            Cause::Compaction => '^',
            Cause::Clearing => '✂',
            Cause::ToolsChanged => '⚙',
            Cause::ModelSwitch => 'M',
            Cause::Unexplained => '?',
            _ => '!',
        }
    }

    /// The cause of a name (`Cause::name`).
    pub fn of_name(name: &str) -> Option<Cause> {
        Cause::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// The status line's word for a break's cause (SPEC §16.S, §18.24).
    pub fn status_word(self) -> &'static str {
        match self {
            Cause::ModelSwitch => "model",
            Cause::ToolsChanged => "tools",
            c => c.name(),
        }
    }
}

/// How far an unexplained break fell (SPEC §16.B4.3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Level {
    /// Nothing was read.
    Zero,
    /// The prefix fell to tools + system: R ≤ 1.3 × the smallest non-zero R
    /// so far + 2,000.
    Floor,
    Partial,
}

impl Level {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// One billed response with its cause (a `mcscope.bill_row/1` line's facts).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// A sub-agent's response (its own cache): cause `subagent`, or
    /// `compaction` for the `acompact` summarizer.
    pub subagent: bool,
    /// The main-thread request k; None for a sub-agent's.
    pub request: Option<usize>,
    /// The response's first line in its file.
    pub line: usize,
    /// The sub-agent file it came from; None: the session's own file.
    pub path: Option<PathBuf>,
    /// The response's first line's timestamp, as written.
    pub at: Option<String>,
    pub message_id: Option<String>,
    pub request_id: Option<String>,
    pub version: Option<String>,
    pub model: Option<String>,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub aggregated: bool,
    /// E(k) = R(k−1) + W(k−1); None without a k − 1.
    pub expected: Option<u64>,
    /// D(k) = max(0, E − R).
    pub drop: u64,
    pub is_break: bool,
    /// §10's explanations of a break, all that apply (empty otherwise).
    pub explanations: Vec<Explanation>,
    pub level: Option<Level>,
    pub cause: Cause,
    /// The cause's tokens; the rest of each part is `growth`.
    pub cause_5m: u64,
    pub cause_1h: u64,
    /// B5: the reported gap, and `send_gap`, minutes.
    pub gap_minutes: Option<f64>,
    pub send_gap_minutes: Option<f64>,
    pub ttl: Ttl,
    pub ttl_by: Option<&'static str>,
    /// The record that decided a `clearing` or `compaction` cause (its line),
    /// for the text.
    pub marker: Option<(&'static str, usize)>,
}

impl Response {
    /// Its tokens as §9a's sums count them.
    pub fn tally(&self) -> super::Tally {
        super::Tally {
            responses: 1,
            input: self.input,
            output: self.output,
            cache_write_5m: self.cache_write_5m,
            cache_write_1h: self.cache_write_1h,
            cache_read: self.cache_read,
        }
    }

    pub fn write(&self) -> u64 {
        self.cache_write_5m.saturating_add(self.cache_write_1h)
    }

    pub fn growth_5m(&self) -> u64 {
        self.cache_write_5m - self.cause_5m
    }

    pub fn growth_1h(&self) -> u64 {
        self.cache_write_1h - self.cause_1h
    }

    /// rewritten(k) = min(W, D) at a break (B3).
    pub fn rewritten(&self) -> u64 {
        self.cause_5m + self.cause_1h
    }

    /// (tokens, 5m, 1h) of `cause` in this response.
    pub fn part(&self, cause: Cause) -> (u64, u64) {
        let mut t = (0, 0);
        if self.cause == cause {
            t.0 += self.cause_5m;
            t.1 += self.cause_1h;
        }
        if cause == Cause::Growth {
            t.0 += self.growth_5m();
            t.1 += self.growth_1h();
        }
        t
    }
}

/// W5m and W1h of a usage (B2: the 1h part capped at W; none → all 5m).
fn split(u: &Usage) -> (u64, u64) {
    let w = u.cache_creation_input_tokens;
    let w1 = u
        .cache_creation
        .map_or(0, |c| c.ephemeral_1h_input_tokens)
        .min(w);
    (w - w1, w1)
}

/// §18.6: n tokens of a response whose writes are (w5, w1) split as n_1h =
/// ⌊n·W1h/W⌋, n_5m = n − n_1h.
fn split_n(n: u64, w5: u64, w1: u64) -> (u64, u64) {
    let w = w5 + w1;
    if w == 0 {
        return (0, 0);
    }
    let n1 = ((u128::from(n) * u128::from(w1)) / u128::from(w)) as u64;
    (n - n1, n1)
}

/// The cause a break's rewritten tokens go to (SPEC §16.B4.3): the first of
/// compaction, ttl, resume, model_switch, clearing, tools_changed that the
/// records show, else unexplained.
pub fn break_cause(f: &crate::evidence::BreakFacts) -> Cause {
    if f.compaction || f.server_compaction {
        Cause::Compaction
    } else if f.ttl {
        Cause::Ttl
    } else if f.restart {
        Cause::Resume
    } else if f.model_change {
        Cause::ModelSwitch
    } else if f.harness_rewrite
        || f.cache_edits
        || f.context_edits
        || f.client_cut
        || f.thinking_stripped
    {
        Cause::Clearing
    } else if f.tools_changed {
        Cause::ToolsChanged
    } else {
        Cause::Unexplained
    }
}

/// How far an unexplained break read R fell, against `floor`, the session's
/// smallest non-zero R so far (B4.3.7).
pub fn level(r: u64, floor: u64) -> Level {
    if r == 0 {
        Level::Zero
    } else if u128::from(r) * 10 <= u128::from(floor) * 13 + 20_000 {
        Level::Floor
    } else {
        Level::Partial
    }
}

/// §18.6: a cause's `n` tokens of a response whose writes are (w5, w1), as
/// (5m, 1h): the whole of each part when n is all of W.
pub fn split_cause(n: u64, w5: u64, w1: u64) -> (u64, u64) {
    if n == w5 + w1 {
        (w5, w1)
    } else {
        split_n(n, w5, w1)
    }
}

/// Every billed response of `s` with its cause: the main thread's (request
/// order), then its sub-agents' (inline sidechain lines, then `files`, the
/// sub-agent files' lines). `seen` holds the (`message.id`, `requestId`) pairs
/// already billed (B1: across files a pair counts once, in the first file).
pub fn partition(
    s: &Session,
    files: &[UsageLine],
    seen: &mut HashSet<(String, String)>,
) -> Vec<Response> {
    let mut out = Vec::new();
    if s.subagent_what_if {
        // A sub-agent transcript opened on its own: every response is the
        // sub-agent's.
        for req in &s.requests {
            let Some(m) = req.response.map(|m| &s.messages[m]) else {
                continue;
            };
            let Some(u) = countable(m) else { continue };
            if !fresh(seen, m.response_id.as_deref(), m.request_id.as_deref()) {
                continue;
            }
            let agent = s.path.file_stem().map(|n| n.to_string_lossy().into_owned());
            out.push(subagent_row(
                u,
                m.first_line,
                None,
                first_at(s, req.index).or_else(|| m.last_ts_text.clone()),
                (m.response_id.clone(), m.request_id.clone(), m.model.clone()),
                req.version.clone(),
                agent.as_deref(),
            ));
        }
        return out;
    }
    main_thread(s, seen, &mut out);
    let groups: Vec<(&UsageLine, &UsageLine)> = super::subagent_groups(s, files, |id, rq| {
        seen.contains(&(id.to_string(), rq.to_string()))
    });
    for (l, f) in groups {
        if let (Some(id), Some(rq)) = (&l.message_id, &l.request_id) {
            seen.insert((id.clone(), rq.clone()));
        }
        out.push(subagent_row(
            &l.usage,
            f.line,
            f.path.clone(),
            f.at.clone(),
            (l.message_id.clone(), l.request_id.clone(), l.model.clone()),
            None,
            l.agent.as_deref(),
        ));
    }
    out
}

/// Whether the pair is billed for the first time (and mark it).
fn fresh(seen: &mut HashSet<(String, String)>, id: Option<&str>, rq: Option<&str>) -> bool {
    match (id, rq) {
        (Some(id), Some(rq)) => seen.insert((id.to_string(), rq.to_string())),
        _ => true,
    }
}

fn first_at(s: &Session, k: usize) -> Option<String> {
    s.bill_marks.first_at.get(k - 1).cloned().flatten()
}

fn countable(m: &crate::session::Message) -> Option<&Usage> {
    if m.model.as_deref() == Some(crate::session::SYNTHETIC_MODEL) {
        return None;
    }
    m.usage.as_deref()
}

/// A sub-agent's response: all of W is `subagent`, or `compaction` for the
/// `acompact` summarizer (B4.1).
fn subagent_row(
    u: &Usage,
    line: usize,
    path: Option<PathBuf>,
    at: Option<String>,
    (message_id, request_id, model): (Option<String>, Option<String>, Option<String>),
    version: Option<String>,
    agent: Option<&str>,
) -> Response {
    let (w5, w1) = split(u);
    let summarizer = agent.is_some_and(|a| a.trim_start_matches("agent-").starts_with("acompact"));
    Response {
        subagent: true,
        request: None,
        line,
        path,
        at,
        message_id,
        request_id,
        version,
        model,
        input: u.input_tokens,
        output: u.output_tokens,
        cache_read: u.cache_read_input_tokens,
        cache_write_5m: w5,
        cache_write_1h: w1,
        aggregated: u.aggregated,
        expected: None,
        drop: 0,
        is_break: false,
        explanations: Vec::new(),
        level: None,
        cause: if summarizer {
            Cause::Compaction
        } else {
            Cause::Subagent
        },
        cause_5m: w5,
        cause_1h: w1,
        gap_minutes: None,
        send_gap_minutes: None,
        ttl: Ttl::FiveMinutes,
        ttl_by: None,
        marker: None,
    }
}

/// The main thread's responses (B3, B4.2–B4.4).
fn main_thread(s: &Session, seen: &mut HashSet<(String, String)>, out: &mut Vec<Response>) {
    let ev = evidence::collect(s, &mut |_, _| None);
    let ttl_all = evidence::ttl_auto_all(s);
    // k − 1: the previous non-aggregated main-thread response (its k, usage).
    let mut prev: Option<(usize, u64)> = None;
    let mut floor: Option<u64> = None;
    let mut first = true;
    for (i, req) in s.requests.iter().enumerate() {
        let k = i + 1;
        let Some(m) = req.response.map(|m| &s.messages[m]) else {
            continue;
        };
        let Some(u) = countable(m) else { continue };
        let counted = fresh(seen, m.response_id.as_deref(), m.request_id.as_deref());
        let (w5, w1) = split(u);
        let r = u.cache_read_input_tokens;
        if r > 0 {
            floor = Some(floor.map_or(r, |f| f.min(r)));
        }
        let ttl = ttl_all.get(i).copied().unwrap_or(Ttl::FiveMinutes);
        let gap = evidence::gap(s, k, prev.map(|p| p.0), ttl);
        let expected = prev.map(|p| p.1);
        let drop = expected.map_or(0, |e| e.saturating_sub(r));
        let observed = ev.requests.get(i).and_then(|e| e.observed_break.as_ref());
        let is_break = observed.is_some();
        let w = w5 + w1;
        let rewritten = w.min(drop);
        let mut row = Response {
            subagent: false,
            request: Some(k),
            line: m.first_line,
            path: None,
            at: first_at(s, k).or_else(|| m.last_ts_text.clone()),
            message_id: m.response_id.clone(),
            request_id: m.request_id.clone(),
            version: req.version.clone(),
            model: m.model.clone(),
            input: u.input_tokens,
            output: u.output_tokens,
            cache_read: r,
            cache_write_5m: w5,
            cache_write_1h: w1,
            aggregated: u.aggregated,
            expected,
            drop,
            is_break,
            explanations: Vec::new(),
            level: None,
            cause: Cause::Growth,
            cause_5m: 0,
            cause_1h: 0,
            gap_minutes: gap.minutes(),
            send_gap_minutes: gap.send,
            ttl,
            ttl_by: gap.by,
            marker: None,
        };
        let cause_tokens = if first {
            row.cause = Cause::First;
            w
        } else if let Some(b) = observed {
            row.explanations = b.explanations();
            let e = &ev.requests[i];
            let cause = break_cause(&b.facts);
            let (cause, marker) = if cause == Cause::Clearing {
                let marker = e
                    .microcompact
                    .as_ref()
                    .map(|mc| (mc.writer.record_kind(), mc.line))
                    .or_else(|| e.facts.cuts.first().map(|c| ("tool_results_cut", c.line)));
                (Cause::Clearing, marker)
            } else {
                if cause == Cause::Unexplained {
                    row.level = Some(level(r, floor.unwrap_or(r)));
                }
                (cause, None)
            };
            row.cause = cause;
            row.marker = marker;
            rewritten
        } else if drop > 0 && expected.is_some() {
            row.cause = Cause::Drift;
            rewritten
        } else {
            0
        };
        let (c5, c1) = split_cause(cause_tokens, w5, w1);
        row.cause_5m = c5;
        row.cause_1h = c1;
        if row.cause == Cause::Drift && cause_tokens == 0 {
            row.cause = Cause::Growth;
        }
        if !u.aggregated {
            prev = Some((
                k,
                u.cache_read_input_tokens
                    .saturating_add(u.cache_creation_input_tokens),
            ));
        }
        first = false;
        if counted {
            out.push(row);
        }
    }
}

#[cfg(test)]
mod tests;
