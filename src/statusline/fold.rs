//! The running state of the live line: every main-thread record folded in
//! file order, so that the bytes appended later continue it exactly where a
//! cold read of the whole file would be (the state is what the cache keeps).
//!
//! It follows the loader's grouping (a response is the assistant records that
//! share the last response's id, within a segment) and §10's break rule with
//! `crate::evidence`'s own pieces (`is_break`, `BreakFacts`, `Ttl`,
//! `UsageEvidence`); only the explanations that need no simulated plan apply
//! (`plan_rewrite` never does).
//!
//! The latest response stays open (`open`): a later line of its group, or a
//! cached-writer `microcompact_boundary` written after it, still changes it, so
//! it is counted only when the next response begins, or on a copy for the answer.

use crate::bill::causes::{self, Cause};
use crate::evidence::{BreakFacts, SYNTHETIC_MODEL, Ttl, UsageEvidence, is_break};
use crate::load::{Live, LiveLine};
use crate::session::Usage;
use serde::{Deserialize, Serialize};

/// What the line shows, before wording.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub ctx_tokens: Option<u64>,
    pub hit_rate: Option<f64>,
    pub compactions: u64,
    pub recorded_clearings: u64,
    pub last_break: Option<Break>,
    /// SPEC §16.S: the main thread's cache writes by cause and model (5m,
    /// 1h tokens), priced where they are worded.
    pub writes: Vec<Writes>,
    /// Whether the last observed break is the latest response's.
    pub break_is_latest: bool,
    /// The largest recorded prompt (input + cache read + write): a session
    /// past 200,000 tokens has the 1M window (§16.S, §18.11).
    pub max_prompt: u64,
    /// The last response's send time, its TTL, what the next request may read
    /// and its model: "cold in 3m" (§16.S).
    pub cold: Option<Cold>,
}

/// The last observed break: the response's recorded time, its first
/// explanation, and its cause with what it re-wrote (SPEC §16.S).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Break {
    pub at: Option<String>,
    pub at_ms: Option<i64>,
    pub explanation: String,
    pub cause: String,
    pub model: Option<String>,
    pub tokens_5m: u64,
    pub tokens_1h: u64,
}

/// Written tokens of one cause and model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Writes {
    pub cause: String,
    pub model: Option<String>,
    pub tokens_5m: u64,
    pub tokens_1h: u64,
}

/// When the cache of the last write goes cold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Cold {
    pub sent_ms: Option<i64>,
    pub one_hour: bool,
    pub next_tokens: u64,
    pub model: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Fold {
    /// Whether the main thread is the sidechain (a sub-agent's own file), as the
    /// loader decides it from the first user or assistant record.
    what_if: Option<bool>,
    segment: u64,
    compactions: u64,
    budget_boundaries: u64,
    /// `tool_results_cut` records of the main thread (SPEC §15.18).
    cut_records: u64,
    edit_responses: u64,
    /// Σ over committed countable responses (§9a's bill, main thread).
    input: u64,
    cache_write: u64,
    cache_read: u64,
    /// P of the last committed countable response.
    ctx: Option<u64>,
    tail: Tail,
    open: Option<Open>,
    /// `open` may still take lines of its group (a compaction ends that).
    mergeable: bool,
    /// A budget-writer boundary of this segment waits for the next response
    /// (after a compaction it belongs to the compaction instead).
    pending_budget: bool,
    /// A cut record was read since the last response began.
    pending_cut: bool,
    /// k − 1 for the break rule: the last countable, non-aggregated response.
    prev: Option<Prev>,
    /// The TTL of the last cache write (`ttl_auto`).
    last_write: Option<OneHour>,
    /// The last recorded cumulative `cache_deleted_input_tokens`.
    deleted: Option<u64>,
    last_break: Option<Break>,
    /// SPEC §16.B5's now for the next response: the last main-thread user,
    /// attachment, system or progress record's time.
    last_send: Option<i64>,
    /// The `version` of the last main-thread record that carried one.
    last_version: Option<String>,
    /// A SessionStart hook (resume, startup, clear) since the last response
    /// began (§16.B6), and a `thinking_stripped` record (a clearing).
    pending_start: bool,
    pending_strip: bool,
    /// The main thread's writes by cause (§16.B4), the smallest non-zero
    /// read so far, and the responses committed.
    writes: Vec<Writes>,
    floor: Option<u64>,
    responses: u64,
    /// The response the last break was at (`responses` then).
    break_at: u64,
    max_prompt: u64,
}

type OneHour = bool;

/// The last message of the view, whose time is the next request's `now`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
enum Tail {
    /// No message in the view (the start, or just after a compaction).
    #[default]
    None,
    User(Option<i64>),
    /// The open response.
    Response,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Open {
    id: Option<String>,
    segment: u64,
    /// `cache_gap` at this request, in minutes.
    gap_minutes: Option<f64>,
    last_ts: Option<i64>,
    last_ts_text: Option<String>,
    model: Option<String>,
    usage: Option<LiveUsage>,
    /// The response's `applied_edits` (from the last record that has them):
    /// whether non-empty, and whether they cleared tool results.
    edits: Option<(bool, bool)>,
    /// A `microcompact_boundary` of the cached writer is attached to this
    /// request; one of the budget writer (`harness_rewrite`, SPEC §10).
    microcompact: bool,
    harness_rewrite: bool,
    /// A `tool_results_cut` record came before this response (`client_cut`).
    client_cut: bool,
    /// §16.B5's now for this response, and the last assistant record before it.
    send_ms: Option<i64>,
    last_assistant: Option<i64>,
    /// The version before the response, and whether a process started since
    /// the last one (a SessionStart hook) or thinking was stripped.
    version: Option<String>,
    restart: bool,
    strip: bool,
    /// It called `ToolSearch`.
    tool_search: bool,
}

/// The parts of [`Usage`] the line needs, in a form the cache can keep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct LiveUsage {
    input: u64,
    cache_write: u64,
    cache_read: u64,
    /// None without a `cache_creation` object.
    write_1h: Option<u64>,
    deleted: Option<u64>,
    aggregated: bool,
    server_compaction: bool,
}

impl LiveUsage {
    fn of(u: &Usage) -> LiveUsage {
        LiveUsage {
            input: u.input_tokens,
            cache_write: u.cache_creation_input_tokens,
            cache_read: u.cache_read_input_tokens,
            write_1h: u.cache_creation.map(|c| c.ephemeral_1h_input_tokens),
            deleted: u.cache_deleted_input_tokens,
            aggregated: u.aggregated,
            server_compaction: u.server_compaction,
        }
    }

    fn evidence(&self) -> UsageEvidence {
        UsageEvidence {
            input: self.input,
            cache_write: Some(self.cache_write),
            cache_read: self.cache_read,
            cache_write_1h: self.write_1h,
            cache_deleted: self.deleted,
            aggregated: self.aggregated,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Prev {
    segment: u64,
    expected_next: u64,
    model: Option<String>,
    send_ms: Option<i64>,
    version: Option<String>,
    tool_search: bool,
}

impl Fold {
    /// Folds one parsed line in.
    pub(crate) fn feed(&mut self, line: LiveLine) {
        let LiveLine {
            rec,
            sidechain,
            version,
            send_ms,
            session_start,
        } = line;
        let main = |f: &Fold| sidechain == f.what_if.unwrap_or(false);
        // A process start after the session's first response (SPEC §16.B6).
        if main(self)
            && (self.responses > 0 || self.open.is_some())
            && session_start.is_some_and(|n| crate::evidence::RESTART_HOOKS.contains(&n.as_str()))
        {
            self.pending_start = true;
        }
        self.feed_rec(rec);
        if main(self) {
            if send_ms.is_some() {
                self.last_send = send_ms;
            }
            // After the record: a response's own version is not "before" it.
            if version.is_some() {
                self.last_version = version;
            }
        }
    }

    fn feed_rec(&mut self, rec: Live) {
        match rec {
            Live::User { sidechain, ts } => {
                if self.is_main(sidechain, true) {
                    // Consecutive user records are one message; its last record's time counts.
                    self.tail = Tail::User(ts.as_deref().and_then(crate::load::raw::timestamp_ms));
                }
            }
            Live::Assistant {
                sidechain,
                ts,
                id,
                model,
                usage,
                applied_edits,
                tool_search,
            } => {
                if self.is_main(sidechain, true) {
                    self.assistant(ts, id, model, usage, applied_edits);
                    if let Some(open) = &mut self.open {
                        open.tool_search |= tool_search;
                    }
                }
            }
            Live::Compaction { sidechain } => {
                if self.is_main(sidechain, false) {
                    self.segment += 1;
                    self.compactions += 1;
                    self.tail = Tail::None;
                    self.mergeable = false;
                    self.pending_budget = false;
                }
            }
            Live::Microcompact {
                sidechain,
                budget_writer,
            } => {
                if !self.is_main(sidechain, false) {
                    return;
                }
                if budget_writer {
                    // Written before the request it changed.
                    self.budget_boundaries += 1;
                    self.pending_budget = true;
                } else if let Some(open) = &mut self.open {
                    // Cached: written after the response to the request it changed.
                    open.microcompact = true;
                }
            }
            Live::Cut { sidechain } => {
                if self.is_main(sidechain, false) {
                    self.cut_records += 1;
                    self.pending_cut = true;
                }
            }
            Live::Strip { sidechain } => {
                if self.is_main(sidechain, false) {
                    self.pending_strip = true;
                }
            }
            Live::Other => {}
        }
    }

    /// The answer for everything folded so far.
    pub(crate) fn answer(&self) -> Answer {
        let mut done = self.clone();
        done.commit();
        let denominator = done
            .input
            .saturating_add(done.cache_write)
            .saturating_add(done.cache_read);
        Answer {
            ctx_tokens: done.ctx,
            hit_rate: (denominator > 0)
                .then(|| round4(done.cache_read as f64 / denominator as f64)),
            compactions: done.compactions,
            recorded_clearings: done
                .budget_boundaries
                .saturating_add(done.cut_records)
                .saturating_add(done.edit_responses),
            break_is_latest: done.last_break.is_some() && done.break_at == done.responses,
            last_break: done.last_break,
            writes: done.writes.clone(),
            max_prompt: done.max_prompt,
            cold: done.prev.as_ref().map(|p| Cold {
                sent_ms: p.send_ms,
                one_hour: done.last_write == Some(true),
                next_tokens: p.expected_next,
                model: p.model.clone(),
            }),
        }
    }

    fn is_main(&mut self, sidechain: bool, message: bool) -> bool {
        if message && self.what_if.is_none() {
            self.what_if = Some(sidechain);
        }
        sidechain == self.what_if.unwrap_or(false)
    }

    fn assistant(
        &mut self,
        ts: Option<String>,
        id: Option<String>,
        model: Option<String>,
        usage: Option<Usage>,
        applied_edits: Option<Vec<serde_json::Value>>,
    ) {
        let ts_ms = ts.as_deref().and_then(crate::load::raw::timestamp_ms);
        let merge =
            self.mergeable && id.is_some() && self.open.as_ref().is_some_and(|o| o.id == id);
        if !merge {
            let now = match self.tail {
                Tail::None => None,
                Tail::User(t) => t,
                Tail::Response => self.open.as_ref().and_then(|o| o.last_ts),
            };
            let last_assistant = self.open.as_ref().and_then(|o| o.last_ts);
            let gap_minutes = match (now, last_assistant) {
                (Some(now), Some(last)) => Some((now - last) as f64 / 60_000.0),
                _ => None,
            };
            self.commit();
            let segment = self.segment;
            let harness_rewrite = std::mem::take(&mut self.pending_budget);
            let client_cut = std::mem::take(&mut self.pending_cut);
            let restart = std::mem::take(&mut self.pending_start);
            let strip = std::mem::take(&mut self.pending_strip);
            self.open = Some(Open {
                id,
                segment,
                gap_minutes,
                last_ts: None,
                last_ts_text: None,
                model: None,
                usage: None,
                edits: None,
                microcompact: false,
                harness_rewrite,
                client_cut,
                send_ms: self.last_send,
                last_assistant,
                version: self.last_version.clone(),
                restart,
                strip,
                tool_search: false,
            });
            self.tail = Tail::Response;
            self.mergeable = true;
        }
        if let Some(open) = &mut self.open {
            // The group's last record decides the time, and the last that has
            // each field decides it (as the loader does).
            open.last_ts = ts_ms;
            open.last_ts_text = ts_ms.and(ts);
            if let Some(u) = usage {
                open.usage = Some(LiveUsage::of(&u));
            }
            if model.is_some() {
                open.model = model;
            }
            if let Some(e) = applied_edits {
                open.edits = Some((!e.is_empty(), clears_tool_results(&e)));
            }
        }
    }

    /// Counts the open response and lets it go (SPEC §10's pass over the
    /// responses, one step); what the next request needs of it was taken first.
    fn commit(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        if open.edits.is_some_and(|(_, clears)| clears) {
            self.edit_responses += 1;
        }
        let countable = open.model.as_deref() != Some(SYNTHETIC_MODEL);
        let Some(raw) = open.usage.filter(|_| countable) else {
            return;
        };
        let u = raw.evidence();
        self.input = self.input.saturating_add(u.input);
        self.cache_write = self.cache_write.saturating_add(raw.cache_write);
        self.cache_read = self.cache_read.saturating_add(u.cache_read);
        self.ctx = Some(u.prompt());
        self.max_prompt = self.max_prompt.max(u.prompt());
        let ttl = match self.last_write {
            Some(true) => Ttl::OneHour,
            _ => Ttl::FiveMinutes,
        };
        let deleted_grew = u
            .cache_deleted
            .is_some_and(|now| now > self.deleted.unwrap_or(0));
        if u.cache_deleted.is_some() {
            self.deleted = u.cache_deleted;
        }
        if raw.cache_write > 0 {
            self.last_write = Some(raw.write_1h.is_some_and(|h| h > 0));
        }
        if u.cache_read > 0 {
            self.floor = Some(self.floor.map_or(u.cache_read, |f| f.min(u.cache_read)));
        }
        // SPEC §16.B2: W and its 1-hour part (capped at W).
        let w = raw.cache_write;
        let w1 = raw.write_1h.unwrap_or(0).min(w);
        let w5 = w - w1;
        let first = self.responses == 0;
        self.responses += 1;
        let mut cause = if first { Cause::First } else { Cause::Growth };
        let mut rewritten = if first { w } else { 0 };
        if !u.aggregated {
            if let Some(p) = &self.prev {
                let minutes = |a: Option<i64>, b: Option<i64>| Some((a? - b?) as f64 / 60_000.0);
                // SPEC §16.B5: the larger of cache_gap and send_gap, both
                // from the last send record before the response.
                let reaches = |g: Option<f64>| g.is_some_and(|g| g >= ttl.minutes());
                let ttl_gap = reaches(minutes(open.send_ms, open.last_assistant))
                    || reaches(minutes(open.send_ms, p.send_ms));
                let drop = p.expected_next.saturating_sub(u.cache_read);
                if is_break(p.expected_next, u.cache_read) {
                    let facts = BreakFacts {
                        compaction: p.segment != open.segment,
                        server_compaction: raw.server_compaction,
                        model_change: match (&p.model, &open.model) {
                            (Some(a), Some(b)) => a != b,
                            _ => false,
                        },
                        ttl: ttl_gap,
                        plan_rewrite: false,
                        harness_rewrite: open.harness_rewrite,
                        cache_edits: open.microcompact || deleted_grew,
                        context_edits: open.edits.is_some_and(|(any, _)| any),
                        client_cut: open.client_cut,
                        restart: open.restart
                            || matches!((&p.version, &open.version), (Some(a), Some(b)) if a != b),
                        tools_changed: p.tool_search,
                        thinking_stripped: open.strip,
                    };
                    cause = causes::break_cause(&facts);
                    rewritten = w.min(drop);
                    let (t5, t1) = causes::split_cause(rewritten, w5, w1);
                    self.break_at = self.responses;
                    self.last_break = Some(Break {
                        at: open.last_ts_text.clone(),
                        at_ms: open.last_ts,
                        explanation: facts
                            .explanations()
                            .first()
                            .map_or("unexplained", |e| e.name())
                            .to_string(),
                        cause: cause.status_word().to_string(),
                        model: open.model.clone(),
                        tokens_5m: t5,
                        tokens_1h: t1,
                    });
                } else if drop > 0 {
                    cause = Cause::Drift;
                    rewritten = w.min(drop);
                }
            }
            self.prev = Some(Prev {
                segment: open.segment,
                expected_next: u.expected_next(),
                model: open.model.clone(),
                send_ms: open.send_ms,
                version: open.version.clone(),
                tool_search: open.tool_search,
            });
        }
        let (c5, c1) = causes::split_cause(rewritten, w5, w1);
        self.add_writes(cause, &open.model, c5, c1);
        self.add_writes(Cause::Growth, &open.model, w5 - c5, w1 - c1);
    }

    fn add_writes(&mut self, cause: Cause, model: &Option<String>, t5: u64, t1: u64) {
        if t5 == 0 && t1 == 0 {
            return;
        }
        let name = cause.name();
        match self
            .writes
            .iter_mut()
            .find(|w| w.cause == name && w.model == *model)
        {
            Some(w) => {
                w.tokens_5m = w.tokens_5m.saturating_add(t5);
                w.tokens_1h = w.tokens_1h.saturating_add(t1);
            }
            None => self.writes.push(Writes {
                cause: name.to_string(),
                model: model.clone(),
                tokens_5m: t5,
                tokens_1h: t1,
            }),
        }
    }
}

/// `applied_edits` that cleared tool results: a `clear_tool_uses_20250919`
/// edit that cleared at least one (`[]`, or only thinking cleared, is no
/// clearing of results).
fn clears_tool_results(edits: &[serde_json::Value]) -> bool {
    edits.iter().any(|e| {
        e.get("type").and_then(|t| t.as_str()) == Some("clear_tool_uses_20250919")
            && e.get("cleared_tool_uses")
                .and_then(serde_json::Value::as_u64)
                .is_some_and(|n| n > 0)
    })
}

/// Four decimals (SPEC §15.17).
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
