//! `mcscope bill` (SPEC §16.R): the partition's responses gathered into rows
//! by day, month, session, project or 5-hour block, priced at each
//! response's own model row (§16.B7), with the levers a user can pull (§16.L).
//! JSON `mcscope.bill/1`; `--rows` writes `mcscope.bill_row/1` lines.

use super::causes::{Cause, Level, Response};
use crate::evidence::Ttl;
use crate::prices::{Price, usd_rounded};
use crate::session::{HarnessId, Session, UsageLine};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// `--by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum By {
    #[default]
    Day,
    Month,
    Session,
    Project,
    Block,
}

impl By {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// One billed response with what its rows need to know of its session.
#[derive(Debug, Clone)]
pub struct Billed {
    pub r: Response,
    pub session_id: String,
    pub project: String,
    pub harness: HarnessId,
    /// The file the response was read from.
    pub path: PathBuf,
    /// The response's model row; None: unpriced.
    pub price: Option<Price>,
    pub at: Option<Timestamp>,
    /// The Claude Code version of the session's main thread at this response.
    pub version: Option<String>,
    /// The session shows the plan its harness's clearing lever turns off ran
    /// (a record of it, SPEC §16.I): only then is that lever one (§16.L).
    pub clearing_ran: bool,
}

impl Billed {
    /// The response's whole recorded cost; None when unpriced (or without an
    /// output rate).
    pub fn usd(&self) -> Option<f64> {
        self.r.tally().usd(self.price.as_ref()?)
    }

    /// What (5m, 1h) tokens cost to write (B7); None when unpriced.
    pub fn write_usd(&self, t5: u64, t1: u64) -> Option<f64> {
        let p = self.price.as_ref()?;
        Some((t5 as f64 * p.write_5m + t1 as f64 * p.write_1h) / 1e6)
    }

    /// What they cost against a warm read (B7, §18.10).
    pub fn vs_read_usd(&self, t5: u64, t1: u64) -> Option<f64> {
        let p = self.price.as_ref()?;
        Some((t5 as f64 * (p.write_5m - p.read) + t1 as f64 * (p.write_1h - p.read)) / 1e6)
    }
}

/// One session's responses for the bill: partitioned (B1–B6) and described.
pub fn session_rows(
    s: &Session,
    lines: &[UsageLine],
    seen: &mut HashSet<(String, String)>,
    price: &dyn Fn(Option<&str>) -> Option<Price>,
) -> Vec<Billed> {
    let rows = super::causes::partition(s, lines, seen);
    let session_id = s
        .session_id
        .clone()
        .or_else(|| s.path.file_stem().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let project = project_of(s);
    let main_version = s.requests.iter().rev().find_map(|r| r.version.clone());
    let clearing_ran = s
        .harness
        .rules()
        .levers
        .clearing
        .as_ref()
        .is_some_and(|(kind, _)| crate::analysis::has_record(s, *kind));
    rows.into_iter()
        .map(|r| Billed {
            session_id: session_id.clone(),
            project: project.clone(),
            harness: s.harness,
            path: r.path.clone().unwrap_or_else(|| s.path.clone()),
            price: price(r.model.as_deref()),
            at: r
                .at
                .as_deref()
                .and_then(|t| t.trim().parse::<Timestamp>().ok()),
            version: r.version.clone().or_else(|| main_version.clone()),
            clearing_ran,
            r,
        })
        .collect()
}

/// SPEC §18.12: the decoded project folder (a Claude Code
/// `projects/<cwd with every other character as '-'>` folder whose name the
/// recorded `cwd` encodes), else the last component of the `cwd`, else the
/// folder the file is in.
pub fn project_of(s: &Session) -> String {
    let cwd = s.bill_marks.cwd.as_deref();
    let folder = s
        .path
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    if let (Some(cwd), Some(folder)) = (cwd, &folder) {
        let encoded: String = cwd
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        if encoded == *folder {
            return cwd.to_string();
        }
    }
    if let Some(last) = cwd.and_then(|c| Path::new(c).file_name()) {
        return last.to_string_lossy().into_owned();
    }
    folder.unwrap_or_default()
}

/// Tokens, dollars and counts of one cause in a row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CauseSum {
    pub tokens_5m: u64,
    pub tokens_1h: u64,
    pub usd: Option<f64>,
    pub events: u64,
}

/// One break of a row (SPEC §16.R BL2 `breaks[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakRow {
    pub path: String,
    pub request: Option<usize>,
    pub line: usize,
    pub at: Option<String>,
    pub cause: &'static str,
    pub explanations: Vec<&'static str>,
    pub level: Option<&'static str>,
    pub expected: Option<u64>,
    pub observed: u64,
    pub drop: u64,
    pub rewritten: u64,
    /// The write cost of the rewritten tokens (§18.10).
    pub usd: Option<f64>,
    /// What they cost more than a warm read (B7).
    pub vs_read_usd: Option<f64>,
    pub gap_minutes: Option<f64>,
    /// The record that decided the cause (`microcompact_boundary`, …) and its line.
    #[serde(skip)]
    pub marker: Option<(&'static str, usize)>,
}

/// One model's share of a row: §9a's sums and their dollars.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    pub model: String,
    pub price_prefix: Option<String>,
    pub tally: super::Tally,
    pub usd: Option<f64>,
}

/// A [`ModelRow`] as the JSON writes it: the model, its price row, then
/// §9a's `TallyJson` fields.
#[derive(Debug, Serialize)]
pub struct ModelJson<'a> {
    pub model: &'a str,
    pub price_prefix: Option<&'a str>,
    #[serde(flatten)]
    pub tally: super::TallyJson,
}

/// `unpriced: {"responses", "models"}` (§18.5).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Unpriced {
    pub responses: u64,
    pub models: Vec<String>,
}

/// SPEC §16.L's levers, by key; null where a lever does not apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Levers {
    pub avoid_ttl: Option<f64>,
    pub ttl_1h_net: Option<f64>,
    pub avoid_resume: Option<f64>,
    pub avoid_clearing: Option<f64>,
    pub avoid_tools_changed: Option<f64>,
    pub avoid_model_switch: Option<f64>,
    pub avoid_compaction: Option<f64>,
    pub avoid_unexplained: Option<f64>,
}

impl Levers {
    /// `avoidable_usd`: the levers a user can pull to save (§16.L).
    pub fn avoidable(&self) -> Option<f64> {
        let parts = [
            self.avoid_ttl,
            self.avoid_resume,
            self.avoid_clearing,
            self.avoid_tools_changed,
            self.avoid_model_switch,
        ];
        parts.iter().flatten().copied().reduce(|a, b| a + b)
    }
}

/// A row of the bill (or its totals), summed over its responses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub key: String,
    pub label: String,
    /// §9a's sums of its responses.
    pub tally: super::Tally,
    /// Σ over priced responses; None when none is priced.
    pub usd: Option<f64>,
    pub models: BTreeMap<String, ModelRow>,
    pub causes: BTreeMap<Cause, CauseSum>,
    pub breaks: Vec<BreakRow>,
    pub sessions: BTreeSet<String>,
    pub first_at: Option<Timestamp>,
    pub last_at: Option<Timestamp>,
    pub unpriced: BTreeMap<String, u64>,
    /// Raw sums the levers are made of.
    lever: LeverSums,
    harnesses: BTreeSet<HarnessId>,
    /// Session ids with a `first` response (the `first` cause's events).
    firsts: BTreeSet<String>,
    /// The versions of main-thread responses of harnesses with versioned
    /// levers (Claude Code's).
    versions: BTreeSet<Option<String>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct LeverSums {
    ttl: f64,
    ttl_1h_save: f64,
    ttl_1h_cost: f64,
    resume: f64,
    clearing: f64,
    tools: f64,
    model: f64,
    compaction: f64,
    unexplained: f64,
    /// A priced response was seen (else every lever is unknown).
    priced: bool,
    /// Responses of versions that read the harness's switch against clearing
    /// (Claude Code 2.0.0–2.1.63's `DISABLE_MICROCOMPACT`).
    clearing_applies: bool,
    /// Responses of versions that can set 1-hour writes and wrote 5-minute ones.
    ttl_settable_5m: bool,
    /// A harness whose tool list a user can keep the same.
    tools_applies: bool,
    /// Any response of a harness that records cache writes.
    writes: bool,
}

fn add_opt(a: &mut Option<f64>, b: Option<f64>) {
    if let Some(b) = b {
        *a = Some(a.unwrap_or(0.0) + b);
    }
}

impl Row {
    fn new(key: String, label: String) -> Row {
        let mut causes = BTreeMap::new();
        for c in Cause::ALL {
            causes.insert(c, CauseSum::default());
        }
        Row {
            key,
            label,
            causes,
            ..Row::default()
        }
    }

    fn add(&mut self, b: &Billed, keep_breaks: bool) {
        let r = &b.r;
        let t = r.tally();
        self.tally.add(&t);
        let usd = b.usd();
        add_opt(&mut self.usd, usd);
        let model = r
            .model
            .clone()
            .unwrap_or_else(|| "(no model recorded)".into());
        if usd.is_none() {
            let n = self.unpriced.entry(model.clone()).or_default();
            *n = n.saturating_add(1);
        }
        let m = self
            .models
            .entry(model.clone())
            .or_insert_with(|| ModelRow {
                model,
                price_prefix: b.price.as_ref().map(|p| p.prefix.clone()),
                tally: super::Tally::default(),
                usd: None,
            });
        m.tally.add(&t);
        add_opt(&mut m.usd, usd);
        self.sessions.insert(b.session_id.clone());
        if let Some(t) = b.at {
            self.first_at = Some(self.first_at.map_or(t, |f| f.min(t)));
            self.last_at = Some(self.last_at.map_or(t, |l| l.max(t)));
        }
        for c in [r.cause, Cause::Growth] {
            let (t5, t1) = r.part(c);
            let e = self.causes.entry(c).or_default();
            e.tokens_5m = e.tokens_5m.saturating_add(t5);
            e.tokens_1h = e.tokens_1h.saturating_add(t1);
            add_opt(&mut e.usd, b.write_usd(t5, t1));
            if c == Cause::Growth {
                break;
            }
        }
        if r.cause == Cause::First && self.firsts.insert(b.session_id.clone()) {
            self.causes.entry(Cause::First).or_default().events += 1;
        }
        self.harnesses.insert(b.harness);
        let writes = b.harness.rules().cache_writes;
        self.lever.writes |= writes;
        if b.price.is_some() {
            self.lever.priced = true;
        }
        let rules = &b.harness.rules().levers;
        let version = b.version.as_deref();
        if !r.subagent {
            if rules.clearing.is_some() || rules.ttl_1h.is_some() {
                self.versions.insert(b.version.clone());
            }
            if b.clearing_ran
                && rules
                    .clearing
                    .as_ref()
                    .is_some_and(|(_, l)| l.holds(version))
            {
                self.lever.clearing_applies = true;
            }
            if r.cache_write_5m > 0 && rules.ttl_1h.as_ref().is_some_and(|l| l.holds(version)) {
                self.lever.ttl_settable_5m = true;
                if let Some(p) = &b.price {
                    self.lever.ttl_1h_cost +=
                        r.cache_write_5m as f64 * (p.write_1h - p.write_5m) / 1e6;
                }
            }
            self.lever.tools_applies |= rules.tools.is_some();
        }
        if !r.is_break {
            return;
        }
        self.causes.entry(r.cause).or_default().events += 1;
        let (t5, t1) = (r.cause_5m, r.cause_1h);
        let vs_read = b.vs_read_usd(t5, t1).unwrap_or(0.0);
        match r.cause {
            Cause::Ttl => {
                self.lever.ttl += vs_read;
                let gap = r.gap_minutes.unwrap_or(0.0);
                if r.ttl == Ttl::FiveMinutes && (5.0..60.0).contains(&gap) {
                    self.lever.ttl_1h_save += vs_read;
                }
            }
            Cause::Resume => self.lever.resume += vs_read,
            Cause::Clearing
                if b.clearing_ran
                    && rules
                        .clearing
                        .as_ref()
                        .is_some_and(|(_, l)| l.holds(version)) =>
            {
                self.lever.clearing += vs_read;
            }
            Cause::ToolsChanged => self.lever.tools += vs_read,
            Cause::ModelSwitch => self.lever.model += vs_read,
            Cause::Compaction => self.lever.compaction += vs_read,
            Cause::Unexplained => self.lever.unexplained += vs_read,
            _ => {}
        }
        if keep_breaks {
            self.breaks.push(BreakRow {
                path: b.path.display().to_string(),
                request: r.request,
                line: r.line,
                at: r.at.clone(),
                cause: r.cause.name(),
                explanations: r.explanations.iter().map(|e| e.name()).collect(),
                level: r.level.map(Level::name),
                expected: r.expected,
                observed: r.cache_read,
                drop: r.drop,
                rewritten: r.rewritten(),
                usd: usd_rounded(b.write_usd(t5, t1)),
                vs_read_usd: usd_rounded(b.vs_read_usd(t5, t1)),
                gap_minutes: r.gap_minutes.map(|g| (g * 10.0).round() / 10.0),
                marker: r.marker,
            });
        }
    }

    /// §16.L's levers of the row.
    pub fn levers(&self) -> Levers {
        let l = &self.lever;
        if !l.writes || !l.priced {
            return Levers::default();
        }
        let some = |x: f64| Some(x);
        Levers {
            avoid_ttl: some(l.ttl),
            ttl_1h_net: l.ttl_settable_5m.then_some(l.ttl_1h_save - l.ttl_1h_cost),
            avoid_resume: some(l.resume),
            avoid_clearing: l.clearing_applies.then_some(l.clearing),
            avoid_tools_changed: l.tools_applies.then_some(l.tools),
            avoid_model_switch: some(l.model),
            avoid_compaction: some(l.compaction),
            avoid_unexplained: some(l.unexplained),
        }
    }

    /// The write cost of every cause (Σ causes' `usd`).
    pub fn cache_write_usd(&self) -> Option<f64> {
        let mut out = None;
        for c in self.causes.values() {
            add_opt(&mut out, c.usd);
        }
        out
    }

    /// The share of the writes no record explains: by USD, by tokens when
    /// unpriced; None for 0/0 (§18.12).
    pub fn unexplained_share(&self) -> Option<f64> {
        let u = self
            .causes
            .get(&Cause::Unexplained)
            .copied()
            .unwrap_or_default();
        match (u.usd, self.cache_write_usd()) {
            (Some(a), Some(b)) if b > 0.0 => Some(super::rate4(a / b)),
            _ => {
                let w = self.cache_write();
                (w > 0).then(|| {
                    super::rate4(u.tokens_5m.saturating_add(u.tokens_1h) as f64 / w as f64)
                })
            }
        }
    }

    pub fn hit_rate(&self) -> Option<f64> {
        self.tally.hit_rate().map(super::rate4)
    }

    /// Its cache writes, 5m and 1h.
    pub fn cache_write(&self) -> u64 {
        self.tally
            .cache_write_5m
            .saturating_add(self.tally.cache_write_1h)
    }

    pub fn unpriced(&self) -> Unpriced {
        Unpriced {
            responses: self
                .unpriced
                .values()
                .fold(0u64, |a, b| a.saturating_add(*b)),
            models: self.unpriced.keys().cloned().collect(),
        }
    }

    /// A cause's share of the row's write cost (of its tokens when unpriced).
    pub fn share(&self, tokens: u64, usd: Option<f64>) -> f64 {
        match (usd, self.cache_write_usd()) {
            (Some(a), Some(b)) if b > 0.0 => a / b,
            _ => {
                let w = self.cache_write();
                if w == 0 {
                    0.0
                } else {
                    tokens as f64 / w as f64
                }
            }
        }
    }

    /// The causes with tokens, by dollars where priced (the shares shown),
    /// else by tokens: (cause, tokens, usd).
    pub fn causes_by_size(&self) -> Vec<(Cause, u64, Option<f64>)> {
        let mut v: Vec<(Cause, u64, Option<f64>)> = self
            .causes
            .iter()
            .map(|(c, s)| (*c, s.tokens_5m.saturating_add(s.tokens_1h), s.usd))
            .filter(|(_, t, _)| *t > 0)
            .collect();
        v.sort_by(|a, b| {
            let usd = |x: &(Cause, u64, Option<f64>)| x.2.unwrap_or(0.0);
            usd(b)
                .total_cmp(&usd(a))
                .then(b.1.cmp(&a.1))
                .then(a.0.cmp(&b.0))
        });
        v
    }

    /// `writes $4.96: growth 46 % · unexplained 34 % · clearing 12 % · …`:
    /// the write cost and its `top` causes (SPEC §16.S's footer); None
    /// without writes.
    pub fn cause_words(&self, top: usize) -> Option<String> {
        let causes = self.causes_by_size();
        if causes.is_empty() {
            return None;
        }
        let usd = self
            .cache_write_usd()
            .map_or("$?".to_string(), |x| format!("${x:.2}"));
        let mut parts: Vec<String> = causes
            .iter()
            .take(top)
            .map(|(c, t, u)| format!("{} {:.0} %", c.name(), self.share(*t, *u) * 100.0))
            .collect();
        if causes.len() > top {
            parts.push("…".into());
        }
        Some(format!("writes {usd}: {}", parts.join(" · ")))
    }

    /// The harnesses of the row's responses.
    pub fn harnesses(&self) -> &BTreeSet<HarnessId> {
        &self.harnesses
    }

    /// The versions of the row's main-thread responses, where levers depend on them.
    pub fn versions(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().flatten().map(String::as_str)
    }
}

/// The bill: its rows in key order and their totals.
#[derive(Debug, Clone)]
pub struct Bill {
    pub by: By,
    pub timezone: String,
    pub since: Option<jiff::civil::Date>,
    pub until: Option<jiff::civil::Date>,
    pub caveats: Vec<&'static str>,
    pub rows: Vec<Row>,
    pub totals: Row,
}

/// What to bill: how rows are made and which days count.
pub struct Ask<'a> {
    pub by: By,
    pub tz: &'a TimeZone,
    pub since: Option<jiff::civil::Date>,
    pub until: Option<jiff::civil::Date>,
}

/// One row over every response, its breaks listed (the levers `compare`
/// and the explain page name, §18.24; the TUI's `$` panel).
pub fn total(responses: &[Billed]) -> Row {
    let mut row = Row::new(String::new(), "total".into());
    for b in responses {
        row.add(b, true);
    }
    row
}

/// Gathers billed responses into rows (BL1–BL3).
pub fn bill(responses: &[Billed], ask: &Ask<'_>, caveats: Vec<&'static str>) -> Bill {
    let day = |b: &Billed| b.at.map(|t| t.to_zoned_datetime(ask.tz.clone()).date());
    let kept: Vec<&Billed> = responses
        .iter()
        .filter(|b| {
            if ask.since.is_none() && ask.until.is_none() {
                return true;
            }
            let Some(d) = day(b) else { return false };
            ask.since.is_none_or(|s| d >= s) && ask.until.is_none_or(|u| d <= u)
        })
        .collect();
    let blocks = match ask.by {
        By::Block => blocks(&kept),
        _ => Vec::new(),
    };
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut totals = Row::new(String::new(), "total".into());
    for (i, b) in kept.iter().enumerate() {
        let (key, label) = match ask.by {
            By::Day => {
                let k = day(b).map_or("unknown".to_string(), |d| d.to_string());
                (k.clone(), k)
            }
            By::Month => {
                let k = day(b).map_or("unknown".to_string(), |d| {
                    format!("{:04}-{:02}", d.year(), d.month())
                });
                (k.clone(), k)
            }
            By::Session => (
                b.session_id.clone(),
                format!(
                    "{} {}",
                    b.session_id.chars().take(8).collect::<String>(),
                    b.project
                ),
            ),
            By::Project => (b.project.clone(), b.project.clone()),
            By::Block => {
                let k = blocks[i].clone().unwrap_or_else(|| "unknown".into());
                (k.clone(), k)
            }
        };
        rows.entry(key.clone())
            .or_insert_with(|| Row::new(key, label))
            .add(b, true);
        totals.add(b, false);
    }
    Bill {
        by: ask.by,
        timezone: ask.tz.iana_name().unwrap_or("UTC").to_string(),
        since: ask.since,
        until: ask.until,
        caveats,
        rows: rows.into_values().collect(),
        totals,
    }
}

/// ccusage's 5-hour blocks: responses by time; a block starts at the hour of
/// its first response and ends 5 hours later, or where 5 hours pass without
/// a response. The key is the block's start, RFC 3339 in UTC.
fn blocks(kept: &[&Billed]) -> Vec<Option<String>> {
    let mut order: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].at.is_some()).collect();
    order.sort_by_key(|&i| kept[i].at);
    let mut out = vec![None; kept.len()];
    let five_h = 5 * 3600;
    let mut start: Option<i64> = None;
    let mut last: Option<i64> = None;
    for i in order {
        let Some(t) = kept[i].at.map(|t| t.as_second()) else {
            continue;
        };
        let new = match (start, last) {
            (Some(s), Some(l)) => t - s >= five_h || t - l >= five_h,
            _ => true,
        };
        if new {
            start = Some(t - t.rem_euclid(3600));
        }
        last = Some(t);
        out[i] = start
            .and_then(|s| Timestamp::from_second(s).ok())
            .map(|s| s.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
    out
}

// ---- JSON -------------------------------------------------------------------

/// A row (or the totals) of `mcscope.bill/1`, fields in schema order.
#[derive(Debug, Serialize)]
pub struct RowJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'a str>,
    pub sessions: usize,
    pub responses: u64,
    pub first_at: Option<String>,
    pub last_at: Option<String>,
    pub input: u64,
    pub output: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub cache_read: u64,
    pub usd: Option<f64>,
    pub hit_rate: Option<f64>,
    pub unpriced: Unpriced,
    pub models: Vec<ModelJson<'a>>,
    pub cache_write_usd: Option<f64>,
    /// Every cause, in [`Cause::ALL`]'s order.
    pub cache_write_causes: serde_json::Map<String, serde_json::Value>,
    pub unexplained_share: Option<f64>,
    pub avoidable_usd: Option<f64>,
    pub levers: Levers,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaks: Option<&'a [BreakRow]>,
}

/// `mcscope.bill/1`.
#[derive(Debug, Serialize)]
pub struct BillJson<'a> {
    pub schema: &'static str,
    pub by: &'static str,
    pub timezone: &'a str,
    pub since: Option<String>,
    pub until: Option<String>,
    pub caveats: &'a [&'static str],
    pub rows: Vec<RowJson<'a>>,
    pub totals: RowJson<'a>,
}

fn round_levers(l: Levers) -> Levers {
    let r = usd_rounded;
    Levers {
        avoid_ttl: r(l.avoid_ttl),
        ttl_1h_net: r(l.ttl_1h_net),
        avoid_resume: r(l.avoid_resume),
        avoid_clearing: r(l.avoid_clearing),
        avoid_tools_changed: r(l.avoid_tools_changed),
        avoid_model_switch: r(l.avoid_model_switch),
        avoid_compaction: r(l.avoid_compaction),
        avoid_unexplained: r(l.avoid_unexplained),
    }
}

impl Row {
    pub fn json(&self, with_key: bool) -> RowJson<'_> {
        let levers = self.levers();
        let rfc = |t: Option<Timestamp>| t.map(|t| t.to_string());
        RowJson {
            key: with_key.then_some(self.key.as_str()),
            label: with_key.then_some(self.label.as_str()),
            sessions: self.sessions.len(),
            responses: self.tally.responses,
            first_at: rfc(self.first_at),
            last_at: rfc(self.last_at),
            input: self.tally.input,
            output: self.tally.output,
            cache_write_5m: self.tally.cache_write_5m,
            cache_write_1h: self.tally.cache_write_1h,
            cache_read: self.tally.cache_read,
            usd: usd_rounded(self.usd),
            hit_rate: self.hit_rate(),
            unpriced: self.unpriced(),
            models: self
                .models
                .values()
                .map(|m| ModelJson {
                    model: &m.model,
                    price_prefix: m.price_prefix.as_deref(),
                    tally: super::tally_json(&m.tally, m.usd),
                })
                .collect(),
            cache_write_usd: usd_rounded(self.cache_write_usd()),
            cache_write_causes: Cause::ALL
                .iter()
                .map(|c| {
                    let s = self.causes.get(c).copied().unwrap_or_default();
                    let usd = usd_rounded(s.usd).or(self.lever.priced.then_some(0.0));
                    let v = serde_json::to_value(CauseSum { usd, ..s }).unwrap_or_default();
                    (c.name().to_string(), v)
                })
                .collect(),
            unexplained_share: self.unexplained_share(),
            avoidable_usd: usd_rounded(levers.avoidable()),
            levers: round_levers(levers),
            breaks: with_key.then_some(self.breaks.as_slice()),
        }
    }
}

impl Bill {
    pub fn json(&self) -> BillJson<'_> {
        BillJson {
            schema: "mcscope.bill/1",
            by: self.by.name(),
            timezone: &self.timezone,
            since: self.since.map(|d| d.to_string()),
            until: self.until.map(|d| d.to_string()),
            caveats: &self.caveats,
            rows: self.rows.iter().map(|r| r.json(true)).collect(),
            totals: self.totals.json(false),
        }
    }
}

/// One `mcscope.bill_row/1` line: flat, so DuckDB's `read_json_auto` types it.
#[derive(Debug, Serialize)]
pub struct BillRowJson<'a> {
    pub schema: &'static str,
    pub path: String,
    pub session_id: &'a str,
    pub project: &'a str,
    pub harness: &'static str,
    pub subagent: bool,
    pub request: Option<usize>,
    pub line: usize,
    pub at: Option<&'a str>,
    pub message_id: Option<&'a str>,
    pub request_id: Option<&'a str>,
    pub version: Option<&'a str>,
    pub model: Option<&'a str>,
    pub price_prefix: Option<&'a str>,
    pub gap_minutes: Option<f64>,
    pub send_gap_minutes: Option<f64>,
    pub ttl: &'static str,
    pub ttl_by: Option<&'static str>,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub aggregated: bool,
    pub expected: Option<u64>,
    pub drop: u64,
    #[serde(rename = "break")]
    pub is_break: bool,
    pub explanations: Vec<&'static str>,
    pub level: Option<&'static str>,
    pub cause: &'static str,
    pub cause_tokens_5m: u64,
    pub cause_tokens_1h: u64,
    pub cause_usd: Option<f64>,
    pub growth_tokens_5m: u64,
    pub growth_tokens_1h: u64,
    pub growth_usd: Option<f64>,
    pub rate_write_5m: Option<f64>,
    pub rate_write_1h: Option<f64>,
    pub rate_read: Option<f64>,
    pub usd: Option<f64>,
}

impl Billed {
    /// The response as one `--rows` line. `growth` and `drift`… rows carry
    /// their tokens as the cause's where the cause is `growth`: then `cause_*`
    /// are 0 (§16.R).
    pub fn row_json(&self) -> BillRowJson<'_> {
        let r = &self.r;
        let growth_only = r.cause == Cause::Growth;
        let (c5, c1) = if growth_only {
            (0, 0)
        } else {
            (r.cause_5m, r.cause_1h)
        };
        let (g5, g1) = (r.cache_write_5m - c5, r.cache_write_1h - c1);
        let minutes = |g: Option<f64>| g.map(|g| (g * 10.0).round() / 10.0);
        BillRowJson {
            schema: "mcscope.bill_row/1",
            path: self.path.display().to_string(),
            session_id: &self.session_id,
            project: &self.project,
            harness: self.harness.name(),
            subagent: r.subagent,
            request: r.request,
            line: r.line,
            at: r.at.as_deref(),
            message_id: r.message_id.as_deref(),
            request_id: r.request_id.as_deref(),
            version: r.version.as_deref(),
            model: r.model.as_deref(),
            price_prefix: self.price.as_ref().map(|p| p.prefix.as_str()),
            gap_minutes: minutes(r.gap_minutes),
            send_gap_minutes: minutes(r.send_gap_minutes),
            ttl: r.ttl.name(),
            ttl_by: r.ttl_by,
            input: r.input,
            output: r.output,
            cache_read: r.cache_read,
            cache_write_5m: r.cache_write_5m,
            cache_write_1h: r.cache_write_1h,
            aggregated: r.aggregated,
            expected: r.expected,
            drop: r.drop,
            is_break: r.is_break,
            explanations: r.explanations.iter().map(|e| e.name()).collect(),
            level: r.level.map(Level::name),
            cause: r.cause.name(),
            cause_tokens_5m: c5,
            cause_tokens_1h: c1,
            cause_usd: usd_rounded(self.write_usd(c5, c1)),
            growth_tokens_5m: g5,
            growth_tokens_1h: g1,
            growth_usd: usd_rounded(self.write_usd(g5, g1)),
            rate_write_5m: self.price.as_ref().map(|p| p.write_5m),
            rate_write_1h: self.price.as_ref().map(|p| p.write_1h),
            rate_read: self.price.as_ref().map(|p| p.read),
            usd: usd_rounded(self.usd()),
        }
    }
}

/// The bill's caveats one session adds (SPEC §16.B6, §16.H).
pub fn session_caveats(s: &Session, rows: &[Billed]) -> Vec<&'static str> {
    let mut out = Vec::new();
    if s.harness.rules().levers.start_records
        && s.bill_marks.starts.is_empty()
        && rows
            .iter()
            .any(|b| b.r.is_break && b.r.cause == Cause::Unexplained)
    {
        out.push("resume_undetected");
    }
    if !s.harness.rules().cache_writes && !rows.is_empty() {
        out.push("no_cache_writes_recorded");
    }
    out
}

/// §18.9's order of the bill's caveats.
pub fn order_caveats(caveats: &mut [&'static str]) {
    const ORDER: [&str; 3] = [
        "plan_did_not_run",
        "resume_undetected",
        "no_cache_writes_recorded",
    ];
    caveats.sort_by_key(|c| ORDER.iter().position(|o| o == c).unwrap_or(ORDER.len()));
}

/// A caveat of the bill in words.
pub fn caveat_words(id: &str) -> &'static str {
    match id {
        "resume_undetected" => {
            "some breaks are unexplained and the session has no SessionStart record: a resume without a hook or a version change leaves no trace, so some of them may be resumes"
        }
        "no_cache_writes_recorded" => {
            "a harness here records no cache writes (Qwen Code, Gemini CLI): its bill is tokens and dollars only, with no causes"
        }
        _ => "",
    }
}

/// The levers of a row in words, each with what it would have saved (SPEC
/// §16.L; for Claude Code only §16.C's settings, in the versions shown).
/// Levers with nothing to save are left out, and so are compaction and
/// unexplained re-writes, which no setting avoids without a cost (they are
/// in the JSON's `levers`).
pub fn lever_words(row: &Row) -> Vec<String> {
    let l = row.levers();
    let mut out = Vec::new();
    let mut say = |v: Option<f64>, words: &dyn Fn(String) -> String| {
        if let Some(v) = v.filter(|v| *v >= 0.005) {
            out.push(words(format!("${v:.2}")));
        }
    };
    for h in row.harnesses() {
        let rules = h.rules();
        if let Some((_, c)) = &rules.levers.clearing {
            let to =
                c.to.map_or(String::new(), |(a, b, c)| format!(" ≤ {a}.{b}.{c}"));
            say(l.avoid_clearing, &|d| {
                format!(
                    "{} would have saved ≈ {d} of re-writes ({}{to})",
                    c.words, rules.title
                )
            });
        }
    }
    say(l.avoid_ttl, &|d| {
        format!(
            "keeping the idle gap under the cache's TTL (or starting fresh with /clear instead of returning to a long context after it) would have saved ≈ {d}"
        )
    });
    for h in row.harnesses() {
        if let Some(t) = &h.rules().levers.ttl_1h {
            say(l.ttl_1h_net, &|d| {
                format!("{} would have saved ≈ {d} net", t.words)
            });
        }
    }
    say(l.avoid_resume, &|d| {
        format!(
            "not quitting and resuming a long context while its cache was warm would have saved ≈ {d}"
        )
    });
    for h in row.harnesses() {
        if let Some(t) = h.rules().levers.tools {
            say(l.avoid_tools_changed, &|d| {
                format!("{t} would have saved ≈ {d}")
            });
        }
    }
    say(l.avoid_model_switch, &|d| {
        format!("staying on one model (no /model mid-session) would have saved ≈ {d}")
    });
    out
}
