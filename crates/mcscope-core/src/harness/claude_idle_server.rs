//! `idle-server` (SPEC §13.S): Claude Code 2.1.285+'s tool-result clearing after
//! idle. After a pause of more than 65 minutes the client sends a
//! `clear_tool_uses_20250919` edit and the server clears. Here, as plain data
//! and functions: the facts of each record the rule reads (S1–S3, S5, S6), read
//! back from the transcript once, and the decision at one request — the return,
//! the clearable results, the excluded tools, the edit and whether it is sent.
//! What the server then clears (S7) is the `api` machinery (`engine::api`).

use super::CLAUDE;
use super::claude_pdf::{self as pdf, PdfRow, PdfRule};
use super::claude_version::{self as version, VersionRow};
use serde_json::Value;

/// The gap Claude Code waits for: `minIdleSeconds:3900` (65 minutes).
pub const GAP_MINUTES: f64 = 65.0;
/// `triggerToolUsesBelowCount:3`: the trigger is the clearable count less 3.
pub const BELOW_COUNT: usize = 3;
/// The minimum trigger is keep + 15 (`minTriggerToolUses:n6+15`).
pub const MIN_TRIGGER_OVER_KEEP: u32 = 15;
/// `clearAtLeastTokens`: the API's value (`gfo=20000`).
pub const CLEAR_AT_LEAST: u64 = 20_000;
/// Before the return a result must hold 64 UTF-16 units; after it 48 UTF-8 bytes.
pub const MIN_UNITS_BEFORE: u64 = 64;
pub const MIN_BYTES_AFTER: u64 = 48;
/// The prefix of Claude Code's container tools (2.1.310+).
const CONTAINER: &str = "mcp__container__";
/// What a refused tool use's result starts with.
const DENIED: &str = "The user doesn't want to proceed with this tool use.";

/// `--min-trigger-tool-uses`'s help: the rule's version and count, held to
/// the version table and [`BELOW_COUNT`] by a test.
pub const MIN_TRIGGER_ABOUT: &str = "idle-server: the least trigger it sends; Claude Code 2.1.285+ sends \
its edit only when the clearable results less 3 reach it";

/// The first version whose keep is 12 (S4).
pub const KEEP_12_FROM: (u32, u32, u32) = (2, 1, 310);

/// Keep *K* by version (S4): 5 for 2.1.285–2.1.309, else 12 (2.1.310+, unknown).
pub fn default_keep(v: Option<&str>) -> u32 {
    match VersionRow::of(v) {
        VersionRow::IdleServer310
        | VersionRow::IdleServer333
        | VersionRow::IdleServer334
        | VersionRow::IdleServer336
        | VersionRow::Unknown => 12,
        _ if v
            .and_then(version::parse)
            .is_some_and(|x| x >= KEEP_12_FROM) =>
        {
            12
        }
        _ => 5,
    }
}

/// The keep by version in words for the help: `idle-server 5 before 2.1.310
/// and 12 from it` (`named`: the version is said as `Claude Code 2.1.310`).
pub fn keep_by_version(named: bool) -> String {
    let (a, b, c) = KEEP_12_FROM;
    let from = format!("{a}.{b}.{c}");
    let before = format!("{a}.{b}.{}", c - 1);
    let name = if named { "Claude Code " } else { "" };
    format!(
        "idle-server {} before {name}{from} and {} from it",
        default_keep(Some(&before)),
        default_keep(Some(&from)),
    )
}

/// One `tool_result` block of a user record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultFact {
    pub id: String,
    /// UTF-16 units and UTF-8 bytes of its text (a string, or its `text` blocks).
    pub units: u64,
    pub bytes: u64,
    /// An `image` or `document` block.
    pub media: bool,
    /// A block other than `text` / `image`.
    pub other: bool,
    /// `is_error: true` with the refusal text.
    pub denied: bool,
}

/// What the rule reads of one main-thread record, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecFact {
    pub line: usize,
    pub assistant: bool,
    /// Assistant: `message.id` (the lines of one response share it).
    pub msg_id: Option<String>,
    /// Takes part in the idle walk (S1).
    pub counted: bool,
    pub ts_ms: Option<i64>,
    pub ts_text: Option<String>,
    /// A user record whose content is a string or holds no `tool_result`.
    pub prompt_like: bool,
    /// Assistant: a numeric `apiBlockIndex`, and `joinedApiReply: true`.
    pub api_block: bool,
    pub joined: bool,
    /// Assistant: its `tool_use` blocks, (id, name).
    pub uses: Vec<(String, String)>,
    /// User: its `tool_result` blocks.
    pub results: Vec<ResultFact>,
    /// User: `holdsPersonsWords: true` or a `userFeedback` key.
    pub persons_words: bool,
    /// Assistant: whether its `message.context_management` proves a clearing
    /// edit was sent, and then whether it cleared (S6 "recorded").
    pub shows_cleared: Option<bool>,
    /// A `tool_results_cut` record without `cause` (S6: the client cut).
    pub client_cut: bool,
    /// Assistant: a real reply (SPEC §17.C.U2: not virtual, not
    /// `<synthetic>`, a block that is neither thinking nor empty text).
    pub real: bool,
    /// Assistant: `context_management.client_cleared_pdf_page_texts: true`
    /// (SPEC §17.C.U6).
    pub pdf_cleared: bool,
    /// A `message_pdf_reads` attachment row (SPEC §17.C.U2).
    pub pdf: Option<PdfRow>,
    /// User, a compact summary: the valid `call` entries of its
    /// `earlierMessages` (SPEC §17.C.U4), as uses and their results.
    pub earlier_uses: Vec<(String, String)>,
    pub earlier_results: Vec<ResultFact>,
}

/// Reads the facts of every main-thread record of a Claude JSONL file (`sidechain`:
/// the thread planned; a sub-agent file is all sidechain).
pub fn read_facts(text: &str, sidechain: bool) -> Vec<RecFact> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            != sidechain
        {
            continue;
        }
        if let Some(f) = fact_of(&v, i + 1) {
            out.push(f);
        }
    }
    out
}

fn is_true(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// UTF-16 units, UTF-8 bytes, media, other blocks of a result's content.
fn measure(content: Option<&Value>) -> (u64, u64, bool, bool) {
    match content {
        Some(Value::String(t)) => (
            t.encode_utf16().count() as u64,
            t.len() as u64,
            false,
            false,
        ),
        Some(Value::Array(blocks)) => {
            let (mut u, mut b, mut media, mut other) = (0, 0, false, false);
            for blk in blocks {
                match blk.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let t = blk.get("text").and_then(Value::as_str).unwrap_or_default();
                        u += t.encode_utf16().count() as u64;
                        b += t.len() as u64;
                    }
                    Some("image") => media = true,
                    Some("document") => {
                        media = true;
                        other = true;
                    }
                    _ => other = true,
                }
            }
            (u, b, media, other)
        }
        _ => (0, 0, false, false),
    }
}

fn fact_of(v: &Value, line: usize) -> Option<RecFact> {
    let ts_text = v
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_string);
    let ts_ms = ts_text
        .as_deref()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map(|t| t.as_millisecond());
    let mut f = RecFact {
        line,
        ts_ms,
        ts_text,
        ..RecFact::default()
    };
    let msg = v.get("message");
    match v.get("type").and_then(Value::as_str)? {
        "assistant" => {
            f.assistant = true;
            f.msg_id = msg
                .and_then(|m| m.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let model = msg.and_then(|m| m.get("model")).and_then(Value::as_str);
            f.counted =
                model != Some(crate::session::SYNTHETIC_MODEL) && !is_true(v, "isApiErrorMessage");
            f.api_block = v.get("apiBlockIndex").is_some_and(Value::is_number);
            f.joined = is_true(v, "joinedApiReply");
            if let Some(Value::Array(blocks)) = msg.and_then(|m| m.get("content")) {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                        let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default();
                        f.uses.push((s("id").to_string(), s("name").to_string()));
                    }
                }
            }
            let cm = msg.and_then(|m| m.get("context_management"));
            f.shows_cleared = cm.and_then(shows_cleared);
            f.pdf_cleared = cm
                .and_then(|c| c.get("client_cleared_pdf_page_texts"))
                .and_then(Value::as_bool)
                == Some(true);
            f.real = pdf::real_reply(v);
        }
        "user" => {
            let skip = [
                "isMeta",
                "ephemeral",
                "isVirtual",
                "isVisibleInTranscriptOnly",
            ]
            .iter()
            .any(|k| is_true(v, k))
                || is_true(v, "isCompactSummary")
                || v.get("toolDenialKind").and_then(Value::as_str) == Some("interrupted");
            f.counted = !skip;
            f.persons_words = is_true(v, "holdsPersonsWords") || v.get("userFeedback").is_some();
            let content = msg.and_then(|m| m.get("content"));
            match content {
                Some(Value::String(_)) => f.prompt_like = true,
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                            continue;
                        }
                        let (units, bytes, media, other) = measure(b.get("content"));
                        let error = is_true(b, "is_error");
                        let denied = error
                            && b.get("content")
                                .and_then(Value::as_str)
                                .is_some_and(|t| t.starts_with(DENIED));
                        f.results.push(ResultFact {
                            id: b
                                .get("tool_use_id")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            units,
                            bytes,
                            media,
                            other,
                            denied,
                        });
                    }
                    f.prompt_like = f.results.is_empty();
                }
                _ => {}
            }
            for c in pdf::earlier_calls(is_true(v, "isCompactSummary"), v.get("earlierMessages")) {
                let (units, bytes, media, other) = measure(Some(&Value::String(c.text)));
                f.earlier_results.push(ResultFact {
                    id: c.id.clone(),
                    units,
                    bytes,
                    media,
                    other,
                    denied: false,
                });
                f.earlier_uses.push((c.id, c.name));
            }
        }
        // `{"type": "attachment", "attachment": {"type": "tool_results_cut", …}}`
        // (SPEC §13.E1); without `cause` the client cut the results itself.
        "attachment" => {
            let a = v.get("attachment");
            f.client_cut = a.and_then(|a| a.get("type")).and_then(Value::as_str)
                == Some("tool_results_cut")
                && a.and_then(|a| a.get("cause")).is_none_or(Value::is_null);
            f.pdf = PdfRow::of_record(v);
        }
        _ => {}
    }
    Some(f)
}

/// S6 "recorded": whether `context_management` proves an edit was sent (a
/// `client_sent_…` key, or a `clear_tool_uses_20250919` entry of
/// `applied_edits`), and then whether one cleared something.
fn shows_cleared(cm: &Value) -> Option<bool> {
    let obj = cm.as_object()?;
    let clearing = |e: &&Value| {
        e.get("type").and_then(Value::as_str) == Some(crate::vocab::policy::CLEAR_TOOL_USES)
    };
    let applied: Vec<&Value> = obj
        .get("applied_edits")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(clearing).collect())
        .unwrap_or_default();
    let sent = !applied.is_empty() || obj.keys().any(|k| k.starts_with("client_sent_"));
    sent.then(|| {
        applied.iter().any(|e| {
            e.get("cleared_tool_uses")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                > 0
        })
    })
}

/// Whether a tool is compactable for the rule (S2): the claude list, plus the
/// same names behind `mcp__container__` from 2.1.310.
pub fn compactable(name: &str, v: Option<&str>) -> bool {
    if CLAUDE.is_compactable(name) {
        return true;
    }
    let containers = v.and_then(version::parse).is_none_or(|x| x >= (2, 1, 310));
    containers
        && name
            .strip_prefix(CONTAINER)
            .is_some_and(|rest| CLAUDE.is_compactable(rest))
}

/// `^[a-zA-Z0-9_-]{1,128}$`.
fn listable(name: &str) -> bool {
    pdf::charset(name)
}

/// The parameters at one request (S4): keep, minimum trigger, gap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub keep: u32,
    pub min_trigger: u32,
    pub gap_minutes: f64,
}

/// The return of S1.
#[derive(Debug, Clone, PartialEq)]
pub struct Return {
    /// Its place among the facts, its line, time and the idle minutes before it.
    pub at: usize,
    pub line: usize,
    pub ts_text: Option<String>,
    pub idle_minutes: f64,
}

/// Why the edit is not sent (S10 `not_sent_because`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum NotSent {
    NoReturn,
    TooFewResults,
    ServerStopped,
    CutByClient,
}

/// Why it is sent (S10 `sent_because`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum SentBecause {
    FirstAfterReturn,
    ServerClearedRecorded,
    ServerClearedSimulated,
}

/// S1–S6 at one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub ret: Option<Return>,
    /// *N*, *S* (S2, S5).
    pub clearable: usize,
    pub since_return: usize,
    /// The values sent (or that would be; None without a plan).
    pub trigger: Option<u64>,
    pub keep: Option<u64>,
    pub exclude_tools: Vec<String>,
    pub sent: Result<SentBecause, NotSent>,
    /// Without a return: the idle minutes of a pause past the gap that did
    /// not count, the reply before it having no `apiBlockIndex` or
    /// `joinedApiReply` (S1). Words only.
    pub unanchored: Option<f64>,
    /// The PDF reads before the return (SPEC §17.C.U2–U3).
    pub pdf: PdfDecision,
}

/// What §17.C's PDF rules decided at a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PdfDecision {
    /// Page-text reads counted in *N* (U3).
    pub clearable: usize,
    /// The bundle's `clearsPdfPageTexts` (`To.length>0&&!rn.has(Ae)`): rows
    /// with a read before the return, and `Read` not excluded (U6).
    pub clears_page_texts: bool,
    /// 2.1.333+: a row holding a page-text read lies before the return
    /// (caveat `claude_pdf_page_texts`, U7).
    pub page_text_row: bool,
    /// `Read` is excluded on account of PDF rows (U2a / U2b).
    pub excludes_read: bool,
    /// The page-text path at the request (U3, U6): None before 2.1.333.
    pub path_on: Option<bool>,
}

impl Decision {
    pub fn is_sent(&self) -> bool {
        self.sent.is_ok()
    }
}

/// S1's walk over a view's records, carried from request to request (the
/// records of request k + 1's view extend request k's): the last return so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    /// The records walked so far.
    pub next: usize,
    pub ret: Option<Return>,
    /// The last pause past the gap before a prompt that is no return because
    /// the reply before it had neither `apiBlockIndex` nor `joinedApiReply`
    /// (S1): its idle minutes, so that the words name the real reason.
    pub unanchored: Option<f64>,
    latest: Option<i64>,
    anchored: bool,
}

impl Walk {
    /// Walks `recs[self.next..]` (S1), recorded with version `v`, gap `gap_minutes`.
    pub fn advance(&mut self, recs: &[RecFact], v: Option<&str>, gap_minutes: f64) {
        let joined_counts = v.and_then(version::parse).is_none_or(|x| x >= (2, 1, 310));
        let gap_ms = (gap_minutes * 60_000.0).round() as i64;
        for (i, r) in recs.iter().enumerate().skip(self.next) {
            let Some(ts) = r.ts_ms.filter(|_| r.counted) else {
                continue;
            };
            if gap_minutes >= 0.0
                && r.prompt_like
                && let Some(l) = self.latest
                && ts - l > gap_ms
            {
                let idle_minutes = (ts - l) as f64 / 60_000.0;
                if self.anchored {
                    self.ret = Some(Return {
                        at: i,
                        line: r.line,
                        ts_text: r.ts_text.clone(),
                        idle_minutes,
                    });
                } else {
                    self.unanchored = Some(idle_minutes);
                }
            }
            self.latest = Some(self.latest.map_or(ts, |l| l.max(ts)));
            if r.assistant {
                self.anchored = r.api_block || (joined_counts && r.joined);
            }
        }
        self.next = self.next.max(recs.len());
    }
}

/// The decision at a request whose view holds `recs` up to the first line of
/// its response, recorded with version `v`; `applied_before`: the plan applied
/// at the request before (S6 "simulated").
pub fn decide(recs: &[RecFact], v: Option<&str>, p: &Params, applied_before: bool) -> Decision {
    let mut walk = Walk::default();
    walk.advance(recs, v, p.gap_minutes);
    let mut d = decide_after(recs, v, p, applied_before, walk.ret);
    if d.ret.is_none() {
        d.unanchored = walk.unanchored;
    }
    d
}

/// S2–S6 once S1's walk found `ret` (the last return of `recs`, if any).
pub fn decide_after(
    recs: &[RecFact],
    v: Option<&str>,
    p: &Params,
    applied_before: bool,
    ret: Option<Return>,
) -> Decision {
    // No return: no edit, and nothing else to read (the common case).
    let Some(ret) = ret else {
        return Decision {
            ret: None,
            clearable: 0,
            since_return: 0,
            trigger: None,
            keep: None,
            exclude_tools: Vec::new(),
            sent: Err(NotSent::NoReturn),
            unanchored: None,
            pdf: PdfDecision::default(),
        };
    };
    let rule = PdfRule::of(v);
    // U4: from 2.1.333 a compact summary's kept calls are uses and results.
    let earlier = rule.from_333();
    let uses_of = |r| uses_of(r, earlier);
    let results_of = |r| results_of(r, earlier);
    // S3: the excluded tools.
    let mut names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for r in recs {
        for (id, name) in uses_of(r) {
            names.entry(id.as_str()).or_insert(name.as_str());
        }
    }
    let mut exclude: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for r in recs {
        for (_, name) in uses_of(r) {
            if !compactable(name, v) && listable(name) {
                exclude.insert(name.clone());
            }
        }
        for res in results_of(r) {
            if let Some(&name) = names.get(res.id.as_str())
                && compactable(name, v)
                && (res.denied || r.persons_words)
            {
                exclude.insert(name.to_string());
            }
        }
    }
    // U2, U3: PDF rows exclude `Read`, or their page-text reads are clearable.
    let mut pdf = pdf_rows(recs, ret.at, rule);
    if pdf.excludes_read {
        exclude.insert(pdf::READ.to_string());
    }
    let clearable_tool = |name: &str| compactable(name, v) && !exclude.contains(name);
    let exclude_tools: Vec<String> = exclude.iter().cloned().collect();
    // `clearsPdfPageTexts`: rows before the return and `Read` not excluded.
    pdf.clears_page_texts &= clearable_tool(pdf::READ);
    if !pdf.clears_page_texts {
        pdf.clearable = 0;
    }
    // S2 and S5's S: each call once, by its first use and its first result.
    let mut use_at: std::collections::HashMap<&str, (usize, &str)> = Default::default();
    for (i, r) in recs.iter().enumerate() {
        for (id, name) in uses_of(r) {
            use_at.entry(id.as_str()).or_insert((i, name.as_str()));
        }
    }
    let mut seen: std::collections::HashSet<&str> = Default::default();
    // U3: each page-text read of a qualifying row is one result, whatever
    // its size (pushed with `tokens:0`).
    let (mut n, mut s) = (pdf.clearable, 0);
    for (i, r) in recs.iter().enumerate() {
        for res in results_of(r) {
            let Some(&(u, name)) = use_at.get(res.id.as_str()) else {
                continue;
            };
            if !seen.insert(res.id.as_str()) || !clearable_tool(name) {
                continue;
            }
            if i < ret.at && u < ret.at && (res.units >= MIN_UNITS_BEFORE || res.media) {
                n += 1;
            } else if i > ret.at
                && u > ret.at
                && !res.other
                && (res.bytes >= MIN_BYTES_AFTER || res.media)
            {
                s += 1;
            }
        }
    }
    // S5: a plan only when T0 > K and T0 >= the minimum trigger.
    let t0 = (n as u64).saturating_sub(BELOW_COUNT as u64);
    let plan = n >= BELOW_COUNT && t0 > p.keep as u64 && t0 >= p.min_trigger as u64;
    let (trigger, keep) = if plan {
        (Some(t0 + s as u64), Some(p.keep as u64 + s as u64))
    } else {
        (None, None)
    };
    // S6: sent at the first request after the return; later while the last
    // response shows the server cleared; never after a client cut.
    let after = &recs[ret.at + 1..];
    let sent = if !plan {
        Err(NotSent::TooFewResults)
    } else if after.iter().any(|r| r.client_cut) {
        Err(NotSent::CutByClient)
    } else {
        match last_response_shows(after) {
            None => Ok(SentBecause::FirstAfterReturn),
            Some(shows) => match shows {
                Some(true) => Ok(SentBecause::ServerClearedRecorded),
                Some(false) => Err(NotSent::ServerStopped),
                None if applied_before => Ok(SentBecause::ServerClearedSimulated),
                None => Err(NotSent::ServerStopped),
            },
        }
    };
    Decision {
        ret: Some(ret),
        clearable: n,
        since_return: s,
        trigger,
        keep,
        exclude_tools,
        sent,
        unanchored: None,
        pdf,
    }
}

/// A record's tool uses, a compact summary's kept calls first when they
/// count (SPEC §17.C.U4: `[...Gos(Ts), ...content]`).
fn uses_of(r: &RecFact, earlier: bool) -> impl Iterator<Item = &(String, String)> {
    let extra: &[(String, String)] = if earlier { &r.earlier_uses } else { &[] };
    extra.iter().chain(r.uses.iter())
}

/// A record's tool results, likewise.
fn results_of(r: &RecFact, earlier: bool) -> impl Iterator<Item = &ResultFact> {
    let extra: &[ResultFact] = if earlier { &r.earlier_results } else { &[] };
    extra.iter().chain(r.results.iter())
}

/// SPEC §17.C.U2–U3 at a request whose view holds `recs`, the return at
/// `ret`: whether `Read` is excluded on account of PDF rows, the page-text
/// reads that are clearable, and the page-text path.
fn pdf_rows(recs: &[RecFact], ret: usize, rule: PdfRule) -> PdfDecision {
    let mut out = PdfDecision::default();
    if rule == PdfRule::None || !recs.iter().any(|r| r.pdf.is_some()) {
        return out;
    }
    // Superseded: a later row follows with no real reply in between.
    let mut live: Vec<(usize, &PdfRow)> = Vec::new();
    let mut last: Option<(usize, &PdfRow)> = None;
    for (i, r) in recs.iter().enumerate() {
        if r.real {
            live.extend(last.take());
        }
        if let Some(row) = &r.pdf {
            last = Some((i, row));
        }
    }
    live.extend(last);
    live.retain(|(_, row)| row.has_reads());
    if rule == PdfRule::AnyRowExcludes {
        // U2a: any row with a read, before or after the return.
        out.excludes_read = !live.is_empty();
        return out;
    }
    // U2b: the rows before the return (after it, a row excludes `Read` only
    // for marker lines in its page text, assumed absent: 13.A U-3).
    let before: Vec<&PdfRow> = live
        .iter()
        .filter(|(i, _)| *i < ret)
        .map(|(_, row)| *row)
        .collect();
    let on = path_on(&recs[(ret + 1).min(recs.len())..]);
    out.path_on = Some(on);
    out.page_text_row = before.iter().any(|row| row.page_texts().next().is_some());
    if before.is_empty() {
        return out;
    }
    if on && before.iter().all(|row| row.qualifies(rule)) {
        out.clears_page_texts = true;
        out.clearable = before.iter().map(|row| row.reads.len()).sum();
    } else {
        out.excludes_read = true;
    }
    out
}

/// SPEC §17.C.U3 / U6, §18.17(c): the page-text path at a request, from
/// the replies after the return (`after`): the first that records
/// `client_cleared_pdf_page_texts: true` fixes it on, the first that proves
/// an edit was sent without it fixes it off; before either, the remote flag
/// `tengu_lucid_heron`'s default (on).
fn path_on(after: &[RecFact]) -> bool {
    after
        .iter()
        .filter(|r| r.assistant)
        .find_map(|r| {
            if r.pdf_cleared {
                Some(true)
            } else {
                r.shows_cleared.map(|_| false)
            }
        })
        .unwrap_or(true)
}

/// The last response of `recs`, if any: what the last of its lines that has a
/// `context_management` shows (S6), None inside when none has one.
fn last_response_shows(recs: &[RecFact]) -> Option<Option<bool>> {
    let end = recs.iter().rposition(|r| r.assistant)?;
    let id = &recs[end].msg_id;
    Some(
        recs[..=end]
            .iter()
            .rev()
            .take_while(|r| r.assistant && (id.is_none() || &r.msg_id == id))
            .find_map(|r| r.shows_cleared),
    )
}

#[cfg(test)]
mod tests;
