//! A page per answer (SPEC §12): `explain --format md|html` and the TUI's `E`.
//! One self-contained page about one tool result, in §12's order: the session
//! and the result; the verdict (the records that name it, then the selected
//! plan's fate); the status table with runs of identical rows folded; what the
//! model saw where it first left the wire and the model's next tool calls; the
//! original content.
//!
//! [`Page`] is the typed answer, built here from the explain data and the
//! evidence ([`build`]); `md` and `html` only lay it out. Every string in a
//! `Page` came through the sanitizer already (one-line fields with
//! [`sanitize::line`], the contents with [`sanitize::text`]); the layouts escape
//! it for their markup.

mod html;
mod md;

pub use html::page_html;
pub use md::page_md;

use super::*;
use crate::page_paths::PageNames;
use crate::session::ToolCall;
use crate::wire::Side;

/// At most this many of the model's tool calls after the result first left
/// the wire are listed.
pub const NEXT_CALLS: usize = 5;

/// Markdown cuts the original content at this many Unicode scalar values (SPEC §15.25).
pub const MD_CONTENT_CHARS: usize = 4_000;

/// A page's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageFormat {
    Md,
    Html,
}

impl PageFormat {
    /// The layout a file name asks for: `.html`/`.htm` is HTML, anything else Markdown.
    pub fn of_path(path: &std::path::Path) -> PageFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm") => {
                PageFormat::Html
            }
            _ => PageFormat::Md,
        }
    }
}

/// The page of `e` laid out as `format` and sanitized whole (the same bytes go
/// to stdout and to files): the session named `~/…` unless `full_paths`.
pub fn render(
    setup: &Setup,
    e: &Explain,
    evidence: &SessionEvidence,
    format: PageFormat,
    full_paths: bool,
) -> String {
    let names = PageNames::new(&setup.session.path, false, full_paths);
    let page = build(setup, e, evidence, &names);
    sanitize::text_owned(match format {
        PageFormat::Md => page_md(&page),
        PageFormat::Html => page_html(&page),
    })
}

/// One tool result's page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub session: PageSession,
    pub result: PageResult,
    /// What the transcript proves: the records that name the id (first).
    pub records: Vec<PageRecord>,
    /// The selected plan in words (kind, what `auto` chose, preset, delivery).
    pub plan: String,
    /// §13.P: whether the harness could have run the plan here, when this
    /// build assesses it (None: not assessed, and the page says nothing).
    pub could_run: Option<CouldRun>,
    /// The status table, runs of identical rows folded.
    pub runs: Vec<Run>,
    /// Where it first left the wire, when it did.
    pub first_cleared: Option<FirstCleared>,
    /// The original content as the transcript holds it, when a request's view does.
    pub content: Option<String>,
    /// What a user can change (SPEC §16.L, §16.C): the setting that turns off
    /// the plan that cleared the result, where one exists in the version, and
    /// the session's levers against its cache-write money.
    pub levers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PageSession {
    /// `~/…` unless `--full-paths` (SPEC §15.20).
    pub path: String,
    pub harness: &'static str,
    /// The recorded versions in file order (`2.1.17 → 2.1.20`), None when none.
    pub version: Option<String>,
    /// The recorded entrypoint, when this build reads one.
    pub entrypoint: Option<String>,
    pub requests: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PageResult {
    pub id: String,
    pub tool: Option<String>,
    /// The file path or the command of its call.
    pub target: Option<String>,
    pub chars: Option<u64>,
    pub est_tokens: Option<u64>,
    /// Whether the call that made the result is in the file.
    pub call_in_file: bool,
}

/// A record of the transcript that names the result (SPEC §15.21's `records`).
#[derive(Debug, Clone, PartialEq)]
pub struct PageRecord {
    pub line: usize,
    /// `microcompact_boundary`, `applied_edits`, … (§15.21's kinds).
    pub kind: &'static str,
    pub request: Option<usize>,
    /// What it says, in words.
    pub words: String,
}

/// §13.P's answer at the request where the plan first cleared the result.
#[derive(Debug, Clone, PartialEq)]
pub struct CouldRun {
    pub value: Option<bool>,
    pub reason: String,
}

/// Consecutive requests with the same status and reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub from: usize,
    pub to: usize,
    pub status: &'static str,
    pub glyph: &'static str,
    pub reason: String,
}

impl Run {
    /// `request 7` or `requests 2–40`.
    pub fn requests(&self) -> String {
        if self.from == self.to {
            format!("request {}", self.from)
        } else {
            format!("requests {}–{}", self.from, self.to)
        }
    }
}

/// The request where the result first left the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstCleared {
    pub request: usize,
    /// What the model saw there instead.
    pub instead: Instead,
    /// The model's tool calls from that request's response on (at most [`NEXT_CALLS`]).
    pub next_calls: Vec<NextCall>,
    /// §9's `later_used`: the first later call that reached for the same path or
    /// command, as (request, tool).
    pub later_used: Option<(usize, String)>,
    /// What the harness really sent where the plan shows a placeholder (the
    /// plan kind's own note, as `plan` prints it: budget's `<persisted-output>`
    /// pointer).
    pub note: Option<&'static str>,
}

/// What the wire held in the result's place.
#[derive(Debug, Clone, PartialEq)]
pub enum Instead {
    /// A placeholder (or stand-in) text.
    Text(String),
    /// The body still holds the original: the delivery removes it elsewhere
    /// (`cache-edits`, the server), named here.
    Unchanged(&'static str),
    /// The body does not hold the result at all.
    Absent,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NextCall {
    /// The request whose response made the call.
    pub request: Option<usize>,
    pub tool: String,
    pub target: Option<String>,
    /// It names the same path or command as the result's call (§9 `later_used`).
    pub same: bool,
}

/// The page of `e` (the explain data of one id) under `setup`, with the
/// session's evidence, naming the session as `names` says.
pub(crate) fn build(
    setup: &Setup,
    e: &Explain,
    evidence: &SessionEvidence,
    names: &PageNames,
) -> Page {
    let s = &setup.session;
    let id = e.tool_use_id.as_str();
    let call = s.calls.iter().find(|c| c.id == id);
    let result = s.results.iter().find(|r| r.id == id);
    let line = |x: &str| sanitize::line(x).into_owned();
    let first_cleared = e
        .first_cleared_at
        .map(|k| first_cleared(setup, id, call, k));
    let content = e
        .rows
        .first()
        .and_then(|r| analysis::result_content(setup, r.index, id, Side::Local).ok())
        .map(sanitize::text_owned);
    Page {
        session: PageSession {
            path: line(&names.name(&s.path.display().to_string())),
            harness: s.harness.name(),
            version: versions(s),
            entrypoint: s
                .requests
                .iter()
                .rev()
                .find_map(|r| r.entrypoint.as_deref())
                .map(line),
            requests: s.requests.len(),
        },
        result: PageResult {
            id: line(id),
            tool: e
                .tool
                .as_deref()
                .or(result.and_then(|r| r.name.as_deref()))
                .or(call.map(|c| c.name.as_str()))
                .map(line),
            target: e
                .path
                .as_deref()
                .or(call.and_then(|c| c.file_path.as_deref().or(c.summary.as_deref())))
                .map(line),
            chars: result.map(|r| r.chars),
            est_tokens: result.map(|r| r.est_tokens),
            call_in_file: call.is_some(),
        },
        records: records(setup, id, evidence, e.first_cleared_at),
        plan: plan_words(setup),
        // §13.P at the request where it first left the wire, else at the last row.
        could_run: e
            .rows
            .iter()
            .find(|r| Some(r.index) == e.first_cleared_at)
            .or(e.rows.last())
            .map(|r| CouldRun {
                value: r.plausible.could_run,
                reason: r.plausible.reason.to_string(),
            }),
        runs: runs(e),
        first_cleared,
        content,
        levers: levers(setup, e.first_cleared_at),
    }
}

/// What a user can change: the switch of the plan that first cleared the
/// result at request `k` (a real plan of that version, not a what-if), then
/// the session's levers (the bill's, from the records).
fn levers(setup: &Setup, k: Option<usize>) -> Vec<String> {
    let s = &setup.session;
    let mut out = Vec::new();
    if let Some(req) = k.and_then(|k| s.request(k)) {
        let rules = s.harness.rules();
        let kind = setup.policy.kind_at(req, req.gap_minutes);
        let real = !crate::policy::plausible::at(&setup.policy, s, req, kind).what_if();
        let switch = rules
            .levers
            .switches
            .iter()
            .find(|(k, l)| Some(*k) == kind && l.holds(req.version.as_deref()));
        if let Some((_, l)) = switch.filter(|_| real) {
            let range = match l.to {
                Some((a, b, c)) => format!(
                    "{} {}.{}.{}–{a}.{b}.{c}",
                    rules.title, l.from.0, l.from.1, l.from.2
                ),
                None => format!(
                    "{} {}.{}.{} and later",
                    rules.title, l.from.0, l.from.1, l.from.2
                ),
            };
            out.push(format!("{} ({range}).", l.words));
        }
    }
    let lines = crate::load::subagents::usage_lines(s);
    let prices = &setup.settings.config.prices;
    let price = |m: Option<&str>| crate::prices::price_with(m, &Default::default(), prices).ok();
    let billed = crate::bill::report::session_rows(s, &lines, &mut Default::default(), &price);
    out.extend(
        crate::bill::report::lever_words(&crate::bill::report::total(&billed))
            .into_iter()
            .map(|l| format!("Against the session's cache writes: {l}.")),
    );
    out
}

/// The recorded versions, each once, in file order.
fn versions(s: &Session) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    for v in s.requests.iter().filter_map(|r| r.version.as_deref()) {
        if seen.last() != Some(&v) && !seen.contains(&v) {
            seen.push(v);
        }
    }
    (!seen.is_empty()).then(|| sanitize::joined(seen, " → "))
}

/// The selected plan in words: `auto → idle (preset claude, delivery rewrite)`.
fn plan_words(setup: &Setup) -> String {
    let p = &setup.policy;
    let chosen = setup.kinds_chosen();
    let kind = if p.kind.is_auto() {
        let names: Vec<&str> = chosen.iter().map(|k| k.name()).collect();
        match names.as_slice() {
            [] => "auto (no plan at any request)".to_string(),
            n => format!("auto → {}", n.join("/")),
        }
    } else {
        p.kind.name().to_string()
    };
    // The api kind is its own preset (as the text header says).
    let preset = if p.kind.is_api() {
        crate::harness::PresetId::SERVER.name()
    } else {
        p.preset.name()
    };
    format!("{kind} (preset {preset}, delivery {})", p.delivery.name())
}

/// The records that name `id`: each `microcompact_boundary` listing it, with
/// its comparison against its writer's plan; the server's `applied_edits` at
/// the request where the plan first cleared it (they name no ids).
fn records(
    setup: &Setup,
    id: &str,
    evidence: &SessionEvidence,
    first_cleared: Option<usize>,
) -> Vec<PageRecord> {
    let s = &setup.session;
    let mut out = Vec::new();
    for (i, ev) in evidence.requests.iter().enumerate() {
        let k = i + 1;
        for (m, before_compaction) in ev.boundaries_naming(id) {
            let place = if before_compaction {
                format!("the compaction before request {k}")
            } else {
                format!("request {k}")
            };
            let others = match m.compacted_tool_ids.len() - 1 {
                0 => "the only id it names".to_string(),
                1 => "with 1 other id".to_string(),
                n => format!("with {n} other ids"),
            };
            let against = match &m.comparison {
                Some(c) => format!("against the {} plan: {}", m.writer.plan(), c.words()),
                None => "not compared: no request to simulate it on".into(),
            };
            let who = crate::report::words::recorded_by(setup.session.harness, m.writer);
            out.push(PageRecord {
                line: m.line,
                kind: m.writer.record_kind(),
                request: Some(k),
                words: format!(
                    "{who} ({} writer; {others}), a record that belongs to {place}; {against}",
                    m.writer.name(),
                ),
            });
        }
    }
    if let Some(k) = first_cleared
        && let Some(edits) = evidence.at(k).and_then(|ev| ev.applied_edits.as_ref())
        && let Some(m) = s.request(k).and_then(|r| r.response)
    {
        let json = serde_json::to_string(edits).unwrap_or_default();
        out.push(PageRecord {
            line: s.messages[m].first_line,
            kind: "applied_edits",
            request: Some(k),
            words: format!(
                "the response to request {k} records the server's applied edits {}; they count results, they name no ids",
                sanitize::line(&json)
            ),
        });
    }
    // Recorded cuts (SPEC §13.E1): facts, whatever the plan.
    for c in s.cuts.iter().filter(|c| c.call_ids.iter().any(|x| x == id)) {
        let fate = if c.applied.iter().any(|x| x == id) {
            let at = c
                .request
                .map_or("no later request".to_string(), |k| format!("request {k}"));
            format!("the model saw its stand-in from {at} on")
        } else {
            match c.not_applied.iter().find(|(x, _)| x == id) {
                Some((_, why)) => format!("not applied to it ({why})"),
                None => "not applied to it".to_string(),
            }
        };
        out.push(PageRecord {
            line: c.line,
            kind: "tool_results_cut",
            request: c.request,
            words: format!("Claude Code recorded cutting it (tool_results_cut): {fate}"),
        });
    }
    out.sort_by_key(|r| r.line);
    out
}

/// The status table with runs of consecutive requests that read alike folded.
fn runs(e: &Explain) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for r in &e.rows {
        let reason = sanitize::line(&words::explain_reason(r)).into_owned();
        let status = r.status.name();
        match out.last_mut() {
            Some(last)
                if last.to + 1 == r.index && last.status == status && last.reason == reason =>
            {
                last.to = r.index;
            }
            _ => out.push(Run {
                from: r.index,
                to: r.index,
                status,
                glyph: glyph(r.status),
                reason,
            }),
        }
    }
    out
}

/// Where the result first left the wire (request `k`): what the wire held in
/// its place and the model's next tool calls.
fn first_cleared(setup: &Setup, id: &str, call: Option<&ToolCall>, k: usize) -> FirstCleared {
    let s = &setup.session;
    let local = analysis::result_content(setup, k, id, Side::Local).ok();
    let instead = match analysis::result_content(setup, k, id, Side::Wire) {
        Err(_) => Instead::Absent,
        Ok(w) if Some(&w) == local.as_ref() => Instead::Unchanged(setup.policy.delivery.name()),
        Ok(w) => Instead::Text(sanitize::text_owned(w)),
    };
    let key = call.and_then(|c| totals::later_key(setup, c));
    let request_of = |msg: usize| {
        s.requests
            .iter()
            .find(|r| r.response == Some(msg))
            .map(|r| r.index)
    };
    let from = s.request(k).and_then(|r| r.response);
    let later: Vec<&ToolCall> = match from {
        Some(m) => s.calls.iter().filter(|c| c.msg >= m).collect(),
        None => Vec::new(),
    };
    let same = |c: &ToolCall| key.is_some() && totals::later_key(setup, c) == key;
    let later_used = later
        .iter()
        .find(|c| same(c))
        .and_then(|c| Some((request_of(c.msg)?, sanitize::line(&c.name).into_owned())));
    let next_calls = later
        .iter()
        .take(NEXT_CALLS)
        .map(|c| NextCall {
            request: request_of(c.msg),
            tool: sanitize::line(&c.name).into_owned(),
            target: c
                .file_path
                .as_deref()
                .or(c.summary.as_deref())
                .map(|t| sanitize::line(t).into_owned()),
            same: same(c),
        })
        .collect();
    let note = s
        .request(k)
        .and_then(|req| setup.policy.kind_at(req, req.gap_minutes))
        .and_then(crate::policy::PlanKind::placeholder_note);
    FirstCleared {
        request: k,
        instead,
        next_calls,
        later_used,
        note,
    }
}

/// The verdict's second half: the selected plan's fate in words.
pub fn fate_words(p: &Page) -> String {
    let last = p.runs.last();
    match &p.first_cleared {
        Some(f) => {
            let stays = match last {
                Some(r) if r.status == "cleared" => format!(
                    " and stays out of it through request {}, the last whose view holds it",
                    r.to
                ),
                Some(r) => format!("; at request {} it is {}", r.to, r.status),
                None => String::new(),
            };
            let what_if = match &p.could_run {
                Some(c) if c.value == Some(false) => {
                    " — a what-if: the harness could not have run this plan here"
                }
                _ => "",
            };
            format!(
                "Under the selected plan, {}, it first leaves the wire at request {}{stays}{what_if}.",
                p.plan, f.request
            )
        }
        None if p.runs.is_empty() => format!(
            "Under the selected plan, {}, no request's view holds it{}.",
            p.plan,
            if p.result.call_in_file {
                ""
            } else {
                ": its call is not in the file"
            }
        ),
        None => format!(
            "Under the selected plan, {}, it is never cleared from the wire (requests {}–{}).",
            p.plan,
            p.runs.first().map_or(0, |r| r.from),
            last.map_or(0, |r| r.to)
        ),
    }
}

/// The §13.P sentence, when the page has an answer.
pub fn could_run_words(p: &Page) -> Option<String> {
    let c = p.could_run.as_ref()?;
    Some(match c.value {
        Some(true) => format!("The harness could have run this plan here ({}).", c.reason),
        Some(false) => format!(
            "The harness could not have run this plan here ({}): what it shows is a what-if.",
            c.reason
        ),
        None => format!(
            "Whether the harness could have run it is not known ({}).",
            c.reason
        ),
    })
}

/// The result's size in words: `4,210 chars, ~1,053 tokens`.
pub fn size_words(r: &PageResult) -> String {
    match (r.chars, r.est_tokens) {
        (Some(c), Some(t)) => format!("{} chars, ~{} tokens", fmt_int(c), fmt_int(t)),
        _ => "size unknown: the result is not in the file".into(),
    }
}

/// The session's line in words: harness, version, entrypoint, requests.
pub fn session_words(s: &PageSession) -> String {
    format!(
        "{}, version {}, entrypoint {}, {} requests",
        s.harness,
        s.version.as_deref().unwrap_or("not recorded"),
        s.entrypoint.as_deref().unwrap_or("not recorded"),
        s.requests
    )
}

/// A next call in words: `request 14: Read src/a.rs (the same path)`.
pub fn call_words(c: &NextCall) -> String {
    let at = c
        .request
        .map_or_else(|| "a later record".into(), |k| format!("request {k}"));
    format!(
        "{at}: {}{}{}",
        c.tool,
        c.target
            .as_deref()
            .map_or(String::new(), |t| format!(" {t}")),
        if c.same {
            " — the same path or command"
        } else {
            ""
        }
    )
}

/// The later_used sentence (SPEC §9).
pub fn later_words(f: &FirstCleared) -> String {
    match &f.later_used {
        Some((k, tool)) => format!(
            "later_used: yes — at request {k} the model called {tool} on the same path or command again."
        ),
        None => "later_used: no — no later call names the same path or command.".into(),
    }
}

/// What the wire held instead, in words (the text itself is laid out apart).
pub fn instead_words(f: &FirstCleared) -> String {
    match &f.instead {
        // The plan shows a placeholder where the harness sent something else:
        // say so, never "the model saw" (the words issue).
        Instead::Text(_) => match f.note {
            Some(note) => format!(
                "At request {}, in its place ({}):",
                f.request,
                note.trim_start_matches("note: ")
            ),
            None => format!("At request {}, the model saw instead:", f.request),
        },
        Instead::Unchanged(delivery) => format!(
            "At request {}, the body sent still holds the original: delivery {delivery} removes it outside the body (a cache edit or the server).",
            f.request
        ),
        Instead::Absent => format!(
            "At request {}, the body sent does not hold the result at all.",
            f.request
        ),
    }
}

#[cfg(test)]
mod tests;
