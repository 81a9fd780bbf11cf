//! TUI state and `update(Action)`: no drawing, no terminal. Tests drive it directly.

use super::keymap::Action;
use crate::analysis::{self, Explain, PlanAt, Setup, WireInputs};
use crate::diff::{self, Diff, Item};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::{Harness, Session};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The marks and the evidence of a whole timeline, computed on another thread,
/// tagged with the generation of the parameters they were computed for.
type TimelineJob = std::sync::mpsc::Receiver<(u64, Marked)>;

/// What the footer marks at one request: a plan fired (▲), the simulated cache
/// prefix broke (✕), the transcript holds harness evidence (◇: a
/// `microcompact_boundary` attached to it or to the compaction before it, or
/// non-empty `applied_edits`), a cache break was observed (!).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    pub fired: bool,
    pub broke: bool,
    pub evidence: bool,
    pub observed: bool,
    /// The budget plan fired at a turn start: no record is expected (SPEC §10 `silent`).
    pub silent: bool,
}

/// What the background timeline job hands back: the marks of every request and
/// the session's evidence set beside the selected plan (SPEC §10).
pub struct Marked {
    pub marks: Vec<Mark>,
    pub evidence: Arc<analysis::EvidenceReport>,
    /// The requests whose records (or unrecorded budget firing) name each id.
    pub named: Arc<std::collections::HashMap<String, Vec<usize>>>,
    /// The evidence before the selected plan's part, for the parameters it was
    /// made with: the next job reuses it while they stay the same.
    base: (Policy, Arc<crate::evidence::SessionEvidence>),
    /// The session totals of the setting (SPEC §9), with its dollars when the
    /// model has a price.
    pub totals: Option<SettingTotals>,
}

/// The whole session under the current setting (SPEC §9), for the footer.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingTotals {
    pub totals: crate::totals::Totals,
    pub delta_usd: Option<f64>,
    /// Every request's recorded and simulated context (the footer's sparklines, the chart).
    pub series: Vec<crate::series::Point>,
}

/// The session totals of `setup`'s setting (computed in the background).
pub fn setting_totals(setup: &Setup) -> Option<SettingTotals> {
    let facts = crate::totals::SessionFacts::new(&setup.session, setup.settings.cache_ttl);
    let (series, totals) = crate::series::series(setup, &facts).ok()?;
    let model = crate::totals::session_model(&setup.session);
    let price = crate::prices::price_with(
        model.as_deref(),
        &Default::default(),
        &setup.settings.config.prices,
    )
    .ok();
    let delta_usd = price.map(|p| crate::prices::delta_usd(&p, &totals.cost));
    Some(SettingTotals {
        totals,
        delta_usd,
        series,
    })
}

/// A request's bodies, printed and diffed, with the tokens the plan needs from
/// them: what the diff worker hands back.
struct Drawn {
    /// The diff, holding both printed bodies.
    diff: Diff,
    /// `tokens_after_break`, when the bodies could be read.
    tokens: Option<u64>,
}

impl Drawn {
    /// Both sides say `text` (instead of a diff that could not be made).
    fn message(text: String) -> Drawn {
        Drawn {
            diff: diff::diff(text.clone(), text, DIFF_BUDGET),
            tokens: None,
        }
    }
}

/// Reads, builds, prints and diffs a request's bodies (with the view's records
/// cached between requests): the expensive half of a step.
fn draw_bodies(
    s: &Session,
    broken_at: Option<usize>,
    inputs: &WireInputs,
    cache: &mut crate::wire::MessageCache,
) -> Drawn {
    match inputs.print(s, cache, broken_at) {
        Ok((local, wire, tokens)) => Drawn {
            diff: diff::diff(local, wire, DIFF_BUDGET),
            tokens,
        },
        // The file changed or vanished under us: say so, keep the plan.
        Err(e) => Drawn::message(format!("cannot read the records: {e}")),
    }
}

/// One thread that builds, prints and diffs big requests, newest job only: a job
/// that a newer one replaced before it started is dropped, so jobs never pile up.
/// It runs at a lower priority than the keystrokes.
struct DiffWorker {
    jobs: std::sync::mpsc::Sender<DiffJob>,
    done: std::sync::mpsc::Receiver<(u64, Drawn)>,
}

struct DiffJob {
    generation: u64,
    session: Arc<Session>,
    /// Where the plan says the cache prefix breaks (for `tokens_after_break`).
    broken_at: Option<usize>,
    inputs: WireInputs,
    /// The diff this job replaces, freed by the worker (two big texts to unmap,
    /// off the thread that answers keys).
    replaced: Diff,
}

impl DiffWorker {
    fn spawn() -> DiffWorker {
        let (jobs, job_rx) = std::sync::mpsc::channel::<DiffJob>();
        let (done_tx, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name(format!("{BACKGROUND}diff"))
            .spawn(move || {
                lower_priority();
                // The records of the view last shown, for the session they came from.
                let mut cache = crate::wire::MessageCache::default();
                let mut cached_for: Option<Arc<Session>> = None;
                while let Ok(mut job) = job_rx.recv() {
                    while let Ok(newer) = job_rx.try_recv() {
                        job = newer;
                    }
                    drop(std::mem::take(&mut job.replaced));
                    if !cached_for
                        .as_ref()
                        .is_some_and(|s| Arc::ptr_eq(s, &job.session))
                    {
                        cache = Default::default();
                        cached_for = Some(job.session.clone());
                    }
                    let drawn = draw_bodies(&job.session, job.broken_at, &job.inputs, &mut cache);
                    if done_tx.send((job.generation, drawn)).is_err() {
                        return;
                    }
                }
            });
        // A thread that cannot start drops its channel: the view says so.
        drop(spawned);
        DiffWorker { jobs, done }
    }
}

/// The name prefix of the TUI's background threads (their panics leave the
/// terminal to the UI).
pub const BACKGROUND: &str = "mcscope-bg-";

/// Background work (the diff worker, the footer's timeline) yields the cores to
/// the thread that answers keystrokes.
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's own id only changes its nice value.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// Requests whose records add up to more than this (256 KB) are diffed in the background,
/// so that no keystroke waits for a big diff.
pub const BACKGROUND_DIFF_BYTES: usize = 256 << 10;

/// How long one diff may take before it settles for a coarser result.
pub const DIFF_BUDGET: Duration = Duration::from_millis(50);
/// Unchanged lines shown around each change before a run folds.
pub const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Diff,
}

/// A panel over the session view.
#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Explain {
        explain: Explain,
        scroll: usize,
    },
    Search(String),
    /// The `:` command line.
    Command(String),
    /// A result's full original content (`v`), by lines.
    Content {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Export(String),
    /// The compare panel (`c`); its state is `SessionView::compare`.
    Compare,
    /// Recorded vs simulated context per request (`C`).
    Chart,
}

/// Which results the age list shows (`s` cycles, Esc clears).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Filter {
    #[default]
    All,
    Cleared,
    /// Protected, or a symlink escape (cleared although its path looked protected).
    Protected,
    /// Everything but a plain kept result.
    NotKept,
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Cleared => "cleared only",
            Filter::Protected => "protected / escapes only",
            Filter::NotKept => "not kept only",
        }
    }

    fn next(self) -> Filter {
        match self {
            Filter::All => Filter::Cleared,
            Filter::Cleared => Filter::Protected,
            Filter::Protected => Filter::NotKept,
            Filter::NotKept => Filter::All,
        }
    }

    pub fn shows(self, c: &crate::policy::engine::Candidate) -> bool {
        use crate::policy::Status;
        match self {
            Filter::All => true,
            Filter::Cleared => c.status == Status::Cleared,
            Filter::Protected => {
                c.status == Status::Protected
                    || c.protection.as_ref().is_some_and(|p| {
                        p.outcome == crate::policy::protect::Outcome::SymlinkEscape
                    })
            }
            Filter::NotKept => c.status != Status::Kept,
        }
    }
}

impl Filter {
    /// Whether a Qwen media entry shows: its status is `media_cleared` or `kept`.
    pub fn shows_media(self, e: &analysis::MediaEntry) -> bool {
        match self {
            Filter::All => true,
            Filter::Cleared | Filter::NotKept => e.cleared,
            Filter::Protected => false,
        }
    }
}

/// A row of the age list: a result (an index into `plan.candidates`), or a Qwen
/// media entry (an index into `plan.media`) in its place in message order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRow {
    Result(usize),
    Media(usize),
}

/// The `:` commands, for completion and the help.
pub const COMMANDS: &[&str] = &[
    "gap", "keep", "size", "trigger", "policy", "delivery", "explain",
];

/// Where the diff scrolls to when its text (re)arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Landing {
    /// The selected result's block.
    Selected,
    /// The first change that matters (a `cache_edits` block, a placeholder).
    FirstChange,
}

pub use super::picker::Picker;

/// One open session: its plan at the current request and everything shown.
pub struct SessionView {
    pub setup: Setup,
    /// The parameters it was opened with: the header marks what changed.
    pub opened_with: Policy,
    pub k: usize,
    pub plan: PlanAt,
    /// The footer's marks at each request (request k is `marks[k - 1]`),
    /// computed in the background after each change: empty until they arrive.
    pub marks: Vec<Mark>,
    /// The session's evidence beside the selected plan (SPEC §10), computed with
    /// the marks: None until it arrives.
    pub evidence: Option<Arc<analysis::EvidenceReport>>,
    /// The requests whose records name each tool id (with `evidence`): the
    /// explain panel looks its id up instead of going through every request.
    pub named: Arc<std::collections::HashMap<String, Vec<usize>>>,
    /// The evidence without the plan's part, and the parameters it was made with.
    evidence_base: Option<(Policy, Arc<crate::evidence::SessionEvidence>)>,
    /// The session totals of the current setting (None while they are counted).
    pub totals: Option<SettingTotals>,
    timeline_job: Option<(u64, TimelineJob)>,
    diff_worker: Option<DiffWorker>,
    /// The generation whose diff the worker is computing, if any.
    diff_job: Option<u64>,
    /// The generation of the newest timeline job: older ones stop early.
    latest: std::sync::Arc<std::sync::atomic::AtomicU64>,
    generation: u64,
    pub diff: Diff,
    pub items: Vec<Item>,
    pub expanded: HashSet<usize>,
    pub unfold_all: bool,
    pub diff_top: usize,
    pub hscroll: usize,
    pub selected: usize,
    pub focus: Focus,
    pub overlay: Option<Overlay>,
    pub status: Option<String>,
    /// The search that `n`/`N` repeat, until Esc clears it.
    pub search: Option<String>,
    pub filter: Filter,
    /// The terminal's size (columns, rows): how far the help scrolls.
    pub size: (u16, u16),
    /// Text for the terminal's clipboard (`y`), taken by the event loop.
    pub clipboard: Option<String>,
    landing: Landing,
    /// The local messages read so far for the current view.
    messages: crate::wire::MessageCache,
    /// Following the file as it grows (`f`), and when it was last looked at.
    follow: Option<(crate::load::Follower, std::time::Instant)>,
    /// The guided demo's current stage (`mcscope demo`).
    pub demo: Option<usize>,
    /// The compare panel's rows, computed in the background (`c`).
    pub compare: super::compare_panel::ComparePanel,
}

/// Whether request `st`'s wire breaks the simulated cache prefix (SPEC §6: under
/// `rewrite`, the first message whose clearings differ from the previous
/// request's, when it is in the view — the rule `analysis::plan_and_inputs`
/// applies to one request); `prev` is the step before it.
fn broke_at(
    setup: &Setup,
    prev: Option<&crate::policy::engine::Step>,
    st: &crate::policy::engine::Step,
) -> bool {
    let s = &setup.session;
    if setup.policy.delivery == Delivery::CacheEdits && s.harness == Harness::Claude {
        return false;
    }
    let req = &s.requests[st.index - 1];
    let before = prev
        .filter(|p| s.requests[p.index - 1].segment == req.segment)
        .map_or(analysis::Wired::NONE, |p| p.wired());
    analysis::prefix_break(s, req, before, st.wired()).is_some()
}

/// The footer's plan marks at every request: where a plan fired, and where the
/// simulated cache prefix broke.
pub fn timeline_marks(setup: &Setup, forced_at: usize) -> impl Iterator<Item = Mark> + '_ {
    let mut prev: Option<crate::policy::engine::Step> = None;
    analysis::timeline_steps(setup, forced_at).map(move |st| {
        let broke = broke_at(setup, prev.as_ref(), &st);
        let mark = Mark {
            fired: st.fired(),
            broke,
            ..Default::default()
        };
        prev = Some(st);
        mark
    })
}

/// Whether a request's evidence holds harness evidence (◇): a
/// `microcompact_boundary` attached to it or to the compaction before it, or
/// non-empty `applied_edits`.
pub fn holds_evidence(ev: &crate::evidence::RequestEvidence) -> bool {
    ev.microcompact.is_some()
        || !ev.compactions.is_empty()
        || ev.applied_edits.as_ref().is_some_and(|e| !e.is_empty())
}

/// The requests whose `microcompact_boundary` records (attached to them or to
/// the compaction before them) or unrecorded budget firing name each id, in order.
pub fn named_ids(
    ev: &crate::evidence::SessionEvidence,
) -> std::collections::HashMap<String, Vec<usize>> {
    let mut out: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (i, r) in ev.requests.iter().enumerate() {
        let ids = r
            .microcompact
            .iter()
            .chain(&r.compactions)
            .flat_map(|m| &m.compacted_tool_ids)
            .chain(r.unrecorded_budget.iter().flatten());
        for id in ids {
            let ks = out.entry(id.clone()).or_default();
            if ks.last() != Some(&(i + 1)) {
                ks.push(i + 1);
            }
        }
    }
    out
}

/// Every mark of the footer and the session's evidence beside the selected plan,
/// in one pass of its timeline (`base`: the evidence without the plan's part,
/// `analysis::evidence`). None when `current` says a newer job replaced this one.
pub fn evidence_marks(
    setup: &Setup,
    forced_at: usize,
    base: &crate::evidence::SessionEvidence,
    current: impl Fn() -> bool,
) -> Option<(Vec<Mark>, analysis::EvidenceReport)> {
    let s = &setup.session;
    let mut ev = base.clone();
    let mut selected_newly = std::collections::BTreeMap::new();
    let mut marks = Vec::with_capacity(s.requests.len());
    let mut prev: Option<crate::policy::engine::Step> = None;
    for st in analysis::timeline_steps(setup, forced_at) {
        if !current() {
            return None;
        }
        let k = st.index;
        let req = &s.requests[k - 1];
        let broke = broke_at(setup, prev.as_ref(), &st);
        let mut mark = Mark {
            fired: st.fired(),
            broke,
            silent: crate::report::silent(&st, req.begins_turn),
            ..Default::default()
        };
        if let Some(r) = ev.requests.get_mut(k - 1) {
            analysis::beside_plan(setup, r, req, &st, || broke);
            if r.microcompact.is_some() {
                selected_newly.insert(
                    k,
                    st.newly_cleared
                        .iter()
                        .map(|&i| s.results[i].id.clone())
                        .collect(),
                );
            }
            mark.evidence = holds_evidence(r);
            mark.observed = r.observed_break.is_some();
        }
        marks.push(mark);
        prev = Some(st);
    }
    Some((
        marks,
        analysis::EvidenceReport {
            evidence: ev,
            selected_newly,
        },
    ))
}

/// The content of the tool result `id` as request `k`'s local body holds it
/// (text; other blocks as their JSON).
pub fn result_content(setup: &Setup, k: usize, id: &str) -> Result<String, String> {
    let body = analysis::wire_at(setup, k, crate::wire::Side::Local).map_err(|e| e.to_string())?;
    fn find<'a>(v: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("type").and_then(|t| t.as_str()) == Some("tool_result")
                    && m.get("tool_use_id").and_then(|t| t.as_str()) == Some(id)
                {
                    return Some(m.get("content").unwrap_or(&serde_json::Value::Null));
                }
                if let Some(fr) = m.get("functionResponse")
                    && fr.get("id").and_then(|t| t.as_str()) == Some(id)
                {
                    let r = fr.get("response").unwrap_or(&serde_json::Value::Null);
                    return Some(r.get("output").unwrap_or(r));
                }
                m.values().find_map(|x| find(x, id))
            }
            serde_json::Value::Array(a) => a.iter().find_map(|x| find(x, id)),
            _ => None,
        }
    }
    let content = find(&body, id).ok_or("not in this request's body")?;
    Ok(match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("text").and_then(|t| t.as_str()) {
                Some(t) => t.to_string(),
                None => serde_json::to_string_pretty(b).unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    })
}

/// Tab on the `:` line: the command name completed when one fits (with a space),
/// else as far as the candidates agree, and a note naming them.
pub fn complete(line: &str) -> (String, Option<String>) {
    if line.contains(char::is_whitespace) {
        return (line.to_string(), None);
    }
    let found: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| c.starts_with(line))
        .collect();
    match found.as_slice() {
        [] => (
            line.to_string(),
            Some(format!("no command starts with {line:?}")),
        ),
        [one] => (format!("{one} "), None),
        many => {
            let mut common = many[0].to_string();
            for c in &many[1..] {
                while !c.starts_with(&common) {
                    common.pop();
                }
            }
            (common, Some(many.join("  ")))
        }
    }
}

/// What the mouse did (`App::mouse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointer {
    Click,
    WheelUp,
    WheelDown,
}

pub enum Screen {
    Picker(Box<Picker>),
    Session(Box<SessionView>),
}

pub struct App {
    pub screen: Screen,
    /// The picker to go back to with Esc, when the session was opened from one.
    pub back: Option<Box<Picker>>,
    pub quit: bool,
    /// What the picker asked to open, for the caller to load ([`App::take_open`]).
    pub open_request: Option<super::picker::Target>,
}

impl App {
    pub fn session(setup: Setup) -> App {
        let k = setup.last_request();
        App::session_at(setup, k)
    }

    /// A session shown at request `k` (`--at`).
    pub fn session_at(setup: Setup, k: usize) -> App {
        App {
            screen: Screen::Session(Box::new(SessionView::at(setup, k))),
            back: None,
            quit: false,
            open_request: None,
        }
    }

    /// The session list, summarised in the background.
    pub fn picker(title: String, sessions: Vec<(PathBuf, u64, SystemTime)>) -> App {
        App::with_picker(Picker::scanning(title, sessions, Default::default()))
    }

    pub fn with_picker(picker: Picker) -> App {
        App {
            screen: Screen::Picker(Box::new(picker)),
            back: None,
            quit: false,
            open_request: None,
        }
    }

    /// The picker's rows that the background scan has summarised since the last
    /// tick (also while a session is open over it).
    pub fn poll_picker(&mut self) -> bool {
        match &mut self.screen {
            Screen::Picker(p) => p.poll(),
            Screen::Session(_) => self.back.as_mut().is_some_and(|p| p.poll()),
        }
    }

    /// What the picker asked to open, once.
    pub fn take_open(&mut self) -> Option<super::picker::Target> {
        self.open_request.take()
    }

    pub fn view(&self) -> Option<&SessionView> {
        match &self.screen {
            Screen::Session(v) => Some(v),
            Screen::Picker(_) => None,
        }
    }

    pub fn view_mut(&mut self) -> Option<&mut SessionView> {
        match &mut self.screen {
            Screen::Session(v) => Some(v),
            Screen::Picker(_) => None,
        }
    }

    /// The one place state changes.
    pub fn update(&mut self, action: Action) {
        match &mut self.screen {
            Screen::Picker(p) => match p.update(action) {
                Some(super::picker::Outcome::Quit) => self.quit = true,
                Some(super::picker::Outcome::Open(t)) => self.open_request = Some(t),
                None => {}
            },
            Screen::Session(v) => {
                if v.overlay.is_none() {
                    match action {
                        Action::Quit => {
                            self.quit = true;
                            return;
                        }
                        // Esc with nothing to close or clear: back to the session list,
                        // if there is one; at the top level nothing.
                        Action::Back
                            if v.demo.is_none()
                                && v.search.is_none()
                                && v.filter == Filter::All =>
                        {
                            if let Some(p) = self.back.take() {
                                self.screen = Screen::Picker(p);
                            }
                            return;
                        }
                        _ => {}
                    }
                }
                v.update(action);
            }
        }
    }

    /// A mouse event at (`col`, `row`) on a screen of `size`: a click selects the
    /// row under it or focuses the region; the wheel scrolls the region under it
    /// (or the open panel).
    pub fn mouse(&mut self, m: Pointer, col: u16, row: u16, size: (u16, u16)) {
        use ratatui::layout::{Position, Rect};
        let area = Rect::new(0, 0, size.0, size.1);
        let at = Position::new(col, row);
        let steps = |a: Action| -> Vec<Action> { vec![a; 3] };
        match &mut self.screen {
            Screen::Picker(p) => match m {
                Pointer::WheelUp => steps(Action::Up).into_iter().for_each(|a| self.update(a)),
                Pointer::WheelDown => steps(Action::Down).into_iter().for_each(|a| self.update(a)),
                // The title line and the column titles, the rows, the selection's
                // path and the hint line.
                Pointer::Click => p.click(row, size.1.saturating_sub(4) as usize),
            },
            Screen::Session(v) => {
                if v.overlay.is_some() {
                    match m {
                        Pointer::WheelUp => steps(Action::Up).into_iter().for_each(|a| v.update(a)),
                        Pointer::WheelDown => {
                            steps(Action::Down).into_iter().for_each(|a| v.update(a))
                        }
                        Pointer::Click => {}
                    }
                    return;
                }
                let [_, list, diff, _] = super::ui::regions(area, v);
                let region = if list.contains(at) {
                    Focus::List
                } else if diff.contains(at) {
                    Focus::Diff
                } else {
                    return;
                };
                match m {
                    Pointer::Click => {
                        v.focus = region;
                        // The list: its title, its column titles, then the rows.
                        let first = list.y + 2;
                        if region == Focus::List && row >= first {
                            let height = list.height.saturating_sub(2) as usize;
                            let top = super::ui::list_top(v, height);
                            if let Some(&ListRow::Result(i)) =
                                v.rows().get(top + (row - first) as usize)
                            {
                                v.selected = i;
                                v.scroll_diff_to_selected();
                            }
                        }
                    }
                    Pointer::WheelUp | Pointer::WheelDown => {
                        // Scroll the region under the pointer, whatever has the focus.
                        let focus = std::mem::replace(&mut v.focus, region);
                        let delta = if m == Pointer::WheelUp { -3 } else { 3 };
                        v.move_by(delta);
                        v.focus = focus;
                    }
                }
            }
        }
    }

    /// The terminal's size, for what scrolls by pages.
    pub fn resize(&mut self, width: u16, height: u16) {
        if let Some(v) = self.view_mut() {
            v.size = (width, height);
        }
    }

    /// The picker's selection, to be opened by the caller (loading may take a while).
    pub fn picked(&self) -> Option<PathBuf> {
        match &self.screen {
            Screen::Picker(p) => p.target().map(|t| t.path),
            Screen::Session(_) => None,
        }
    }

    /// Opens a loaded session from the picker at request `k`; Esc comes back to it.
    pub fn open(&mut self, setup: Setup, k: usize) {
        let view = Screen::Session(Box::new(SessionView::at(setup, k)));
        if let Screen::Picker(p) = std::mem::replace(&mut self.screen, view) {
            self.back = Some(p);
        }
    }

    /// Typed text for an input panel (search, command, export path). True when
    /// consumed.
    pub fn input(&mut self, c: char) -> bool {
        self.typed(Action::Type(c))
    }

    pub fn backspace(&mut self) -> bool {
        self.typed(Action::Erase)
    }

    pub fn submit(&mut self) -> bool {
        self.typed(Action::Submit)
    }

    fn typed(&mut self, a: Action) -> bool {
        if !self.in_text_input() {
            return false;
        }
        self.update(a);
        true
    }

    /// A key no binding names: it still closes the help ("any other key closes").
    pub fn unbound_key(&mut self) {
        if let Screen::Picker(p) = &mut self.screen {
            p.help = None;
        }
        if let Some(v) = self.view_mut()
            && matches!(v.overlay, Some(Overlay::Help { .. }))
        {
            v.overlay = None;
        }
    }

    pub fn in_text_input(&self) -> bool {
        if let Screen::Picker(p) = &self.screen {
            return p.typing && p.help.is_none();
        }
        self.view().is_some_and(|v| {
            matches!(
                v.overlay,
                Some(Overlay::Search(_) | Overlay::Export(_) | Overlay::Command(_))
            )
        })
    }
}

impl SessionView {
    pub fn new(setup: Setup) -> SessionView {
        let k = setup.last_request();
        SessionView::at(setup, k)
    }

    /// The view at request `k` (1-based; 0 for a session without requests).
    pub fn at(setup: Setup, k: usize) -> SessionView {
        let k = k.min(setup.last_request());
        let mut v = SessionView {
            opened_with: setup.policy.clone(),
            setup,
            k,
            plan: PlanAt::empty(),
            marks: Vec::new(),
            evidence: None,
            totals: None,
            named: Default::default(),
            evidence_base: None,
            timeline_job: None,
            diff_worker: None,
            diff_job: None,
            latest: Default::default(),
            generation: 0,
            diff: Diff::default(),
            items: Vec::new(),
            expanded: HashSet::new(),
            unfold_all: false,
            diff_top: 0,
            hscroll: 0,
            selected: 0,
            focus: Focus::List,
            overlay: None,
            status: None,
            search: None,
            filter: Filter::All,
            size: (80, 24),
            clipboard: None,
            landing: Landing::FirstChange,
            messages: Default::default(),
            follow: None,
            demo: None,
            compare: Default::default(),
        };
        v.status = v.setup.settings.config_notice.clone();
        v.replan(true);
        v.land();
        v
    }

    pub fn policy(&self) -> &Policy {
        &self.setup.policy
    }

    /// The `keep_recent` the plan in force at K uses (explicit, else its kind's default).
    pub fn keep_in_force(&self) -> usize {
        if let Some(keep) = self.setup.policy.api.first_keep()
            && self.setup.policy.kind == PlanKind::Api
        {
            return keep as usize;
        }
        let kind = self.plan.step.kind.unwrap_or(PlanKind::Idle);
        self.setup.policy.keep_for(kind)
    }

    /// Recomputes the plan, the diff and (when needed) the timeline.
    fn replan(&mut self, timeline: bool) {
        let k = self.k;
        if timeline || self.setup.policy.kind == PlanKind::Forced {
            self.start_timeline();
        }
        self.diff_job = None;
        // The plan needs no records read: only the bodies do, and big ones are
        // built on the diff worker so that no keystroke waits for them.
        let (plan, inputs) = analysis::plan_and_inputs(&self.setup, k).unwrap_or_else(|_| {
            (
                PlanAt::empty(),
                WireInputs::empty(self.setup.policy.delivery),
            )
        });
        self.plan = plan;
        if self.view_bytes() > BACKGROUND_DIFF_BYTES {
            self.start_diff(inputs);
        } else {
            let drawn = draw_bodies(
                &self.setup.session,
                self.plan.cache.prefix_broken_at_message,
                &inputs,
                &mut self.messages,
            );
            self.take_drawn(drawn);
        }
        self.refold();
        self.selected = self
            .selected
            .min(self.plan.candidates.len().saturating_sub(1));
        self.diff_top = self.diff_top.min(self.items.len().saturating_sub(1));
    }

    fn toggle_follow(&mut self) {
        if self.follow.take().is_some() {
            self.status = Some("stopped following the file".into());
            return;
        }
        let s = &self.setup.session;
        match crate::load::Follower::open(&s.path, Some(s.format)) {
            Ok(f) => {
                self.follow = Some((f, std::time::Instant::now()));
                self.status =
                    Some("following: appended lines are read as they arrive (f stops)".into());
            }
            Err(e) => self.status = Some(format!("cannot follow: {e}")),
        }
    }

    pub fn following(&self) -> bool {
        self.follow.is_some()
    }

    /// Looks at a followed file (at most every 500 ms); true when it changed.
    /// The place (request, selection) and the parameters are kept.
    pub fn poll_follow(&mut self) -> bool {
        let Some((f, last)) = &mut self.follow else {
            return false;
        };
        if last.elapsed() < std::time::Duration::from_millis(500) {
            return false;
        }
        *last = std::time::Instant::now();
        let change = match f.poll() {
            Ok(c) => c,
            Err(e) => {
                self.status = Some(format!("following stopped: {e}"));
                self.follow = None;
                return true;
            }
        };
        let notice = match change {
            crate::load::Change::Unchanged => return false,
            crate::load::Change::Grew(n) => format!("{n} new line(s) read"),
            crate::load::Change::Restarted(why) => why,
        };
        let session = f.session();
        self.setup.session = std::sync::Arc::new(session);
        self.messages = Default::default();
        self.evidence_base = None;
        let n = self.setup.session.requests.len();
        self.k = self.k.min(n).max(n.min(1));
        self.replan(true);
        self.status = Some(format!("{notice}; {n} requests"));
        true
    }

    /// Recomputes the footer's fired marks on another thread: a whole timeline
    /// may take longer than a keystroke may.
    fn start_timeline(&mut self) {
        // The totals are the setting's: counted again after every change.
        self.totals = None;
        self.generation += 1;
        let generation = self.generation;
        // A newer change makes this job pointless: it stops at the next request
        // (so jobs never pile up and take the cores from the keystrokes).
        self.latest
            .store(generation, std::sync::atomic::Ordering::Relaxed);
        let latest = self.latest.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let setup = self.setup.clone();
        let k = self.k;
        // The evidence without the plan's part depends on the parameters only
        // through the plans its records are compared with: made once per session
        // (and set of parameters, when it has records), not at every step.
        let records = !setup.session.evidence.is_empty();
        let base = self
            .evidence_base
            .clone()
            .filter(|(p, _)| !records || *p == setup.policy);
        // A thread that cannot start drops `tx`: the marks stay as they were.
        let _ = std::thread::Builder::new()
            .name(format!("{BACKGROUND}timeline"))
            .spawn(move || {
                lower_priority();
                let current = || latest.load(std::sync::atomic::Ordering::Relaxed) == generation;
                let base = base.unwrap_or_else(|| {
                    (setup.policy.clone(), Arc::new(analysis::evidence(&setup)))
                });
                if !current() {
                    return;
                }
                let Some((marks, report)) = evidence_marks(&setup, k, &base.1, current) else {
                    return;
                };
                let named = Arc::new(named_ids(&report.evidence));
                let totals = if current() {
                    setting_totals(&setup)
                } else {
                    None
                };
                let _ = tx.send((
                    generation,
                    Marked {
                        marks,
                        evidence: Arc::new(report),
                        named,
                        base,
                        totals,
                    },
                ));
            });
        self.timeline_job = Some((generation, rx));
    }

    /// The bytes of the records the current request sends.
    fn view_bytes(&self) -> usize {
        let s = &self.setup.session;
        let Some(req) = s.request(self.k) else {
            return 0;
        };
        s.messages[req.view_start..req.end]
            .iter()
            .flat_map(|m| &m.parts)
            .map(|p| match p {
                crate::session::Part::Record { len, .. } => *len,
                crate::session::Part::Inline(_) => 0,
            })
            .sum()
    }

    fn start_diff(&mut self, inputs: WireInputs) {
        self.generation += 1;
        let generation = self.generation;
        let worker = self.diff_worker.get_or_insert_with(DiffWorker::spawn);
        let _ = worker.jobs.send(DiffJob {
            generation,
            session: self.setup.session.clone(),
            broken_at: self.plan.cache.prefix_broken_at_message,
            inputs,
            replaced: std::mem::take(&mut self.diff),
        });
        self.diff_job = Some(generation);
    }

    /// The local request as printed (empty while the background prints it).
    pub fn local_json(&self) -> &str {
        &self.diff.left
    }

    /// The wire payload as printed (empty while the background prints it).
    pub fn wire_json(&self) -> &str {
        &self.diff.right
    }

    /// Whether the diff is still being computed in the background.
    pub fn diff_pending(&self) -> bool {
        self.diff_job.is_some()
    }

    fn take_drawn(&mut self, drawn: Drawn) {
        self.diff = drawn.diff;
        if let Some(t) = drawn.tokens {
            self.plan.cache.tokens_after_break = t;
        }
    }

    fn install_diff(&mut self, drawn: Drawn) {
        self.take_drawn(drawn);
        self.refold();
        self.land();
    }

    /// Takes background results when they are ready; true when something changed.
    pub fn poll_background(&mut self) -> bool {
        self.take_diff(false) | self.poll_timeline() | self.compare.poll()
    }

    /// Installs the awaited diff when the worker has it (waiting for it with
    /// `wait`), or says the worker is gone; true when either happened.
    fn take_diff(&mut self, wait: bool) -> bool {
        use std::sync::mpsc::TryRecvError;
        let (Some(awaited), Some(worker)) = (self.diff_job, &self.diff_worker) else {
            return false;
        };
        let got = loop {
            let next = if wait {
                worker.done.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                worker.done.try_recv()
            };
            match next {
                Ok((g, drawn)) if g == awaited => break Ok(drawn),
                Ok(_) => {}
                Err(e) => break Err(e),
            }
        };
        match got {
            Ok(drawn) => {
                self.diff_job = None;
                self.install_diff(drawn);
            }
            Err(TryRecvError::Empty) => return false,
            Err(TryRecvError::Disconnected) => self.worker_lost(),
        }
        true
    }

    fn poll_timeline(&mut self) -> bool {
        let Some((generation, rx)) = &self.timeline_job else {
            return false;
        };
        match rx.try_recv() {
            Ok((g, marks)) if g == *generation => {
                self.set_marks(marks);
                self.timeline_job = None;
                true
            }
            Ok(_) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                self.timeline_job = None;
                false
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => false,
        }
    }

    /// The diff worker is gone (it panicked): say so where the diff goes, and
    /// start a new one with the next big request.
    fn worker_lost(&mut self) {
        self.diff_job = None;
        self.diff_worker = None;
        self.install_diff(Drawn::message(
            "the diff could not be computed: its worker thread stopped".into(),
        ));
        self.status = Some("the background diff stopped; step again to retry".into());
    }

    /// Waits for the background jobs (tests and benchmarks).
    pub fn wait_background(&mut self) {
        self.take_diff(true);
        self.wait_timeline();
    }

    /// Waits for the footer's marks.
    fn wait_timeline(&mut self) {
        if let Some((generation, rx)) = self.timeline_job.take()
            && let Ok((g, marks)) = rx.recv()
            && g == generation
        {
            self.set_marks(marks);
        }
    }

    fn set_marks(&mut self, marked: Marked) {
        self.marks = marked.marks;
        self.evidence = Some(marked.evidence);
        self.named = marked.named;
        self.evidence_base = Some(marked.base);
        self.totals = marked.totals;
    }

    /// Request `k`'s marks (none while they are computed).
    pub fn mark(&self, k: usize) -> Mark {
        k.checked_sub(1)
            .and_then(|i| self.marks.get(i))
            .copied()
            .unwrap_or_default()
    }

    /// Request `k`'s evidence beside the selected plan, once it has arrived.
    pub fn evidence_at(&self, k: usize) -> Option<&crate::evidence::RequestEvidence> {
        self.evidence.as_ref().and_then(|e| e.evidence.at(k))
    }

    fn refold(&mut self) {
        self.items = if self.unfold_all {
            (0..self.diff.rows.len()).map(Item::Row).collect()
        } else {
            diff::fold(&self.diff.rows, CONTEXT, &self.expanded)
        };
    }

    pub(crate) fn tune(&mut self, f: impl FnOnce(&mut Policy) -> Option<String>) {
        let msg = f(&mut self.setup.policy);
        self.status = msg;
        self.replan(true);
        self.fix_selection();
        self.land_on(Landing::FirstChange);
    }

    /// Scrolls the diff where `landing` says, now or when the diff arrives.
    fn land_on(&mut self, landing: Landing) {
        self.landing = landing;
        self.land();
    }

    fn land(&mut self) {
        if self.diff_pending() {
            return;
        }
        match self.landing {
            Landing::Selected => self.scroll_diff_to_selected(),
            Landing::FirstChange => match self.first_change_that_matters() {
                Some(row) => self.show_row(row),
                None => self.scroll_diff_to_selected(),
            },
        }
    }

    /// The first changed row showing a `cache_edits` block, else the first with a
    /// placeholder, else the first change.
    pub fn first_change_that_matters(&self) -> Option<usize> {
        let d = &self.diff;
        let changed = |needle: &'static str| {
            d.rows.iter().position(|r| {
                r.kind != diff::Kind::Equal && d.right_line(r).is_some_and(|t| t.contains(needle))
            })
        };
        changed("\"cache_edits\"")
            .or_else(|| changed(crate::load::PLACEHOLDER))
            .or_else(|| d.changes.first().copied())
    }

    fn update(&mut self, action: Action) {
        // The compare panel's background work waits while keys arrive.
        self.compare.key_pressed();
        if let Some(stage) = self.demo {
            match action {
                Action::NextRequest if stage + 1 < super::demo::STAGES.len() => {
                    return super::demo::apply(self, stage + 1);
                }
                Action::NextRequest | Action::Back => {
                    self.demo = None;
                    self.status = Some("end of the demo: every key works now (? for help)".into());
                    return;
                }
                Action::PrevRequest => return super::demo::apply(self, stage.saturating_sub(1)),
                _ => {}
            }
        }
        if self.overlay.is_some() {
            return self.update_overlay(action);
        }
        let n = self.setup.session.requests.len();
        match action {
            Action::NextRequest if self.k < n => self.step_to(self.k + 1),
            Action::PrevRequest if self.k > 1 => self.step_to(self.k - 1),
            Action::FirstRequest if n > 0 => self.step_to(1),
            Action::LastRequest => self.step_to(n),
            // Through every kind in the table's order (auto → idle → forced → size →
            // count), back to the first.
            Action::CyclePlan => self.tune(|p| {
                if p.kind == PlanKind::Api {
                    return Some(
                        "the api preset runs one plan kind, api: tune its edits with +/- (keep) or --api-edit"
                            .into(),
                    );
                }
                p.kind = next_kind(p.kind, p.preset);
                // budget is rewrite only (SPEC §5).
                (p.kind == PlanKind::Budget && p.delivery != Delivery::Rewrite).then(|| {
                    p.delivery = Delivery::Rewrite;
                    "budget rewrites the request: delivery set to rewrite".into()
                })
            }),
            Action::ToggleDelivery => {
                let qwen = self.setup.session.harness == Harness::Qwen;
                self.tune(|p| {
                    if qwen {
                        return Some(
                            "cache-edits is Claude's cached microcompact; Qwen sends rewrites"
                                .into(),
                        );
                    }
                    if p.kind == PlanKind::Budget {
                        return Some("the budget plan rewrites the request (rewrite only)".into());
                    }
                    p.delivery = match p.delivery {
                        Delivery::Rewrite => Delivery::CacheEdits,
                        Delivery::CacheEdits => Delivery::Rewrite,
                        Delivery::Server => {
                            return Some("the api preset's edits are made by the server".into());
                        }
                    };
                    None
                })
            }
            Action::KeepMore | Action::KeepLess if self.setup.policy.kind == PlanKind::Api => {
                // SPEC §11: +/- edit the first clear_tool_uses edit's keep.value.
                let more = action == Action::KeepMore;
                self.tune(|p| match p.api.first_tool_uses_keep() {
                    Some(keep) => {
                        *keep = if more {
                            *keep + 1
                        } else {
                            keep.saturating_sub(1)
                        };
                        None
                    }
                    None => Some("no clear_tool_uses edit to tune (add one with --api-edit)".into()),
                })
            }
            Action::KeepMore => {
                // From the value in force at K: an explicit value from now on.
                let keep = self.keep_in_force() as u32;
                self.tune(|p| {
                    p.keep_recent = Some(keep + 1);
                    None
                })
            }
            Action::KeepLess => {
                let keep = self.keep_in_force() as u32;
                self.tune(|p| {
                    p.keep_recent = Some(keep.saturating_sub(1).max(1));
                    None
                })
            }
            Action::GapUp => self.tune(|p| {
                p.gap_threshold_minutes = (p.gap_threshold_minutes.max(0.0) + 5.0).floor();
                None
            }),
            Action::GapDown => self.tune(|p| {
                p.gap_threshold_minutes = (p.gap_threshold_minutes - 5.0).max(0.0).floor();
                None
            }),
            Action::SizeUp => self.tune(|p| {
                p.size_threshold = p.size_threshold.max(0) + 50_000;
                p.size_explicit = true;
                None
            }),
            Action::SizeDown => self.tune(|p| {
                p.size_threshold = (p.size_threshold - 50_000).max(0);
                p.size_explicit = true;
                None
            }),
            Action::ToggleProtect => self.tune(|p| {
                p.protect = !p.protect;
                None
            }),
            Action::Explain => self.explain_selected(),
            Action::Search => self.overlay = Some(Overlay::Search(String::new())),
            Action::Command => self.overlay = Some(Overlay::Command(String::new())),
            Action::Export => self.overlay = Some(Overlay::Export(self.default_export_path())),
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::ComparePanel => super::compare_panel::open(self),
            Action::ChartView => super::compare_panel::open_chart(self),
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::List => Focus::Diff,
                    Focus::Diff => Focus::List,
                }
            }
            Action::CycleFilter => {
                self.filter = self.filter.next();
                self.fix_selection();
                self.scroll_diff_to_selected();
            }
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-10),
            Action::PageDown => self.move_by(10),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::NextChange | Action::PrevChange => {
                let forward = action == Action::NextChange;
                match self.search.clone() {
                    Some(q) => self.find(&q, if forward { 1 } else { -1 }),
                    None => self.jump_change(forward),
                }
            }
            Action::NextFired => self.jump_mark(true, |m| m.fired, "the plan fired"),
            Action::PrevFired => self.jump_mark(false, |m| m.fired, "the plan fired"),
            Action::NextBreak => self.jump_mark(true, |m| m.broke, "the simulated cache broke"),
            Action::PrevBreak => self.jump_mark(false, |m| m.broke, "the simulated cache broke"),
            Action::NextEvidence => {
                self.jump_mark(true, |m| m.evidence, "the transcript holds evidence")
            }
            Action::PrevEvidence => {
                self.jump_mark(false, |m| m.evidence, "the transcript holds evidence")
            }
            Action::NextObserved => {
                self.jump_mark(true, |m| m.observed, "a cache break was observed")
            }
            Action::PrevObserved => {
                self.jump_mark(false, |m| m.observed, "a cache break was observed")
            }
            Action::ScrollLeft => self.hscroll = self.hscroll.saturating_sub(8),
            Action::ScrollRight => self.hscroll += 8,
            Action::ToggleFollow => self.toggle_follow(),
            Action::Copy => match self.selected_id() {
                Some(id) => self.copy(id),
                None => self.status = Some("no result selected".into()),
            },
            Action::ViewContent => self.view_content(),
            Action::ToggleFolds => {
                self.unfold_all = !self.unfold_all;
                self.refold();
            }
            // Esc with no panel: clear the search, then the filter (App::update
            // handles the rest: back to the session list, or nothing).
            Action::Back => {
                if self.search.take().is_some() {
                    self.status = Some("search cleared: n/N step through diff changes".into());
                } else if self.filter != Filter::All {
                    self.filter = Filter::All;
                    self.fix_selection();
                }
            }
            _ => {}
        }
    }

    /// A key while a panel is open: Esc and q close it; the rest is the panel's.
    fn update_overlay(&mut self, action: Action) {
        let Some(o) = &mut self.overlay else { return };
        match (o, action) {
            (Overlay::Search(_), Action::Back) => {
                self.overlay = None;
                self.search = None;
            }
            (_, Action::Back | Action::Quit) => self.overlay = None,
            (Overlay::Compare, a) => super::compare_panel::on_key(self, a),
            (Overlay::Chart, a) => super::compare_panel::on_chart_key(self, a),
            (Overlay::Help { scroll }, a) => {
                let max = super::ui::help_max_scroll(self.size);
                let page = super::ui::help_page(self.size);
                *scroll = match a {
                    Action::Up => scroll.saturating_sub(1),
                    Action::Down => *scroll + 1,
                    Action::PageUp => scroll.saturating_sub(page),
                    Action::PageDown => *scroll + page,
                    Action::Top | Action::FirstRequest => 0,
                    Action::Bottom | Action::LastRequest => max,
                    // Any other key closes the help.
                    _ => {
                        self.overlay = None;
                        return;
                    }
                }
                .min(max);
            }
            (Overlay::Explain { explain, .. }, Action::Copy) => {
                let text = crate::report::explain_text(&self.setup, explain);
                self.copy(text);
            }
            (Overlay::Content { lines, scroll, .. }, a) => {
                let max = lines.len().saturating_sub(1);
                *scroll = match a {
                    Action::Down => *scroll + 1,
                    Action::Up => scroll.saturating_sub(1),
                    Action::PageDown => *scroll + 20,
                    Action::PageUp => scroll.saturating_sub(20),
                    Action::Top => 0,
                    Action::Bottom => max,
                    _ => *scroll,
                }
                .min(max);
                if a == Action::ViewContent {
                    self.overlay = None;
                }
            }
            (Overlay::Explain { scroll, explain }, a) => match a {
                Action::Down => *scroll = (*scroll + 1).min(explain.rows.len()),
                Action::Up => *scroll = scroll.saturating_sub(1),
                Action::PageDown => *scroll = (*scroll + 10).min(explain.rows.len()),
                Action::PageUp => *scroll = scroll.saturating_sub(10),
                Action::Top => *scroll = 0,
                Action::Bottom => *scroll = explain.rows.len().saturating_sub(1),
                Action::Explain => self.overlay = None,
                _ => {}
            },
            (Overlay::Search(q) | Overlay::Command(q) | Overlay::Export(q), a) => match a {
                Action::Type(c) => {
                    q.push(c);
                    if let Some(Overlay::Search(q)) = &self.overlay {
                        let q = q.clone();
                        self.find(&q, 0);
                    }
                }
                Action::Erase => {
                    q.pop();
                }
                Action::Complete => {
                    if let Some(Overlay::Command(q)) = &mut self.overlay {
                        let (text, note) = complete(q);
                        *q = text;
                        self.status = note;
                    }
                }
                Action::Submit => self.submit(),
                _ => {}
            },
        }
    }

    /// Sets the plan kind, delivery and request at once (the demo's stages).
    pub fn set_plan(&mut self, kind: PlanKind, delivery: Delivery, k: usize) {
        self.setup.policy.kind = kind;
        self.setup.policy.delivery = delivery;
        self.k = k;
        self.replan(true);
    }

    pub fn select_id(&mut self, id: &str) {
        if let Some(i) = self.candidate_index(id) {
            self.selected = i;
            self.scroll_diff_to_selected();
        }
    }

    /// Scrolls the diff to the first wire-side line containing `text`.
    pub fn show_wire_text(&mut self, text: &str) {
        let row = self
            .diff
            .rows
            .iter()
            .position(|r| self.diff.right_line(r).is_some_and(|t| t.contains(text)));
        if let Some(row) = row {
            self.show_row(row);
        }
    }

    fn step_to(&mut self, k: usize) {
        if k == self.k || k == 0 {
            return;
        }
        let id = self.selected_id();
        self.k = k;
        self.landing = Landing::Selected;
        self.replan(false);
        // Keep the same result selected when it is still in the view.
        if let Some(id) = id
            && let Some(i) = self.candidate_index(&id)
        {
            self.selected = i;
        }
        self.scroll_diff_to_selected();
    }

    fn move_by(&mut self, delta: isize) {
        match self.focus {
            Focus::List => {
                let visible = self.visible();
                if visible.is_empty() {
                    return;
                }
                let here = visible
                    .iter()
                    .position(|&i| i == self.selected)
                    .unwrap_or(0) as isize;
                let to = here
                    .saturating_add(delta)
                    .clamp(0, visible.len() as isize - 1);
                self.selected = visible[to as usize];
                self.scroll_diff_to_selected();
            }
            Focus::Diff => {
                let n = self.items.len();
                self.diff_top = (self.diff_top as isize)
                    .saturating_add(delta)
                    .clamp(0, n.saturating_sub(1) as isize)
                    as usize;
            }
        }
    }

    fn jump_change(&mut self, forward: bool) {
        let current_row = match self.items.get(self.diff_top) {
            Some(Item::Row(r)) => *r,
            Some(Item::Fold { start, .. }) => *start,
            None => 0,
        };
        let target = if forward {
            self.diff.changes.iter().find(|&&c| c > current_row)
        } else {
            self.diff.changes.iter().rev().find(|&&c| c < current_row)
        };
        match target {
            Some(&row) => self.show_row(row),
            None => self.status = Some("no more changes".into()),
        }
    }

    /// Scrolls the diff so `row` is at the top, unfolding it if it was folded.
    pub fn show_row(&mut self, row: usize) {
        if let Some(fold_start) = self.items.iter().find_map(|it| match *it {
            Item::Fold { start, len } if (start..start + len).contains(&row) => Some(start),
            _ => None,
        }) {
            self.expanded.insert(fold_start);
            self.refold();
        }
        if let Some(i) = self.items.iter().position(|it| *it == Item::Row(row)) {
            self.diff_top = i.saturating_sub(2);
        }
        // Bring the changed span into view when it starts far to the right.
        let emph = self
            .diff
            .rows
            .get(row)
            .and_then(|r| r.right.as_ref().or(r.left.as_ref()))
            .and_then(|s| s.emph);
        self.hscroll = match emph {
            Some((start, _)) if start > 40 => start - 24,
            _ => 0,
        };
    }

    pub fn selected_id(&self) -> Option<String> {
        self.plan
            .candidates
            .get(self.selected)
            .map(|c| self.setup.session.results[c.result].id.clone())
    }

    fn candidate_index(&self, id: &str) -> Option<usize> {
        self.plan
            .candidates
            .iter()
            .position(|c| self.setup.session.results[c.result].id == id)
    }

    /// Selecting a result scrolls the diff to it (its result block on the wire side).
    pub fn scroll_diff_to_selected(&mut self) {
        let Some(id) = self.selected_id() else { return };
        let key = match self.setup.session.harness {
            Harness::Claude => format!("\"tool_use_id\": \"{id}\""),
            Harness::Qwen => format!("\"id\": \"{id}\""),
        };
        let d = &self.diff;
        let rows = d.rows.iter().enumerate().filter(|(_, r)| {
            d.right_line(r)
                .or(d.left_line(r))
                .is_some_and(|t| t.contains(&key))
        });
        // Claude names the id once per result; Qwen's call comes before its response.
        let row = match self.setup.session.harness {
            Harness::Claude => rows.map(|(i, _)| i).next(),
            Harness::Qwen => rows.map(|(i, _)| i).next_back(),
        };
        if let Some(row) = row {
            self.show_row(row);
        }
    }

    fn explain_selected(&mut self) {
        let Some(id) = self.selected_id() else {
            self.status = Some("no result selected".into());
            return;
        };
        if let Some(explain) = analysis::explain(&self.setup, &id, self.k) {
            self.overlay = Some(Overlay::Explain { explain, scroll: 0 });
        }
    }

    fn default_export_path(&self) -> String {
        let stem = self
            .setup
            .session
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "session".into());
        format!("{stem}-request{}-wire.json", self.k)
    }

    /// Enter in an input line: keep the search (n/N repeat it), run the command,
    /// or write the export.
    fn submit(&mut self) {
        match self.overlay.take() {
            Some(Overlay::Search(q)) => {
                if q.is_empty() {
                    self.search = None;
                } else {
                    self.find(&q, 0);
                    self.search = Some(q);
                }
            }
            Some(Overlay::Command(c)) => self.run_command(&c),
            Some(Overlay::Export(path)) => {
                self.status = Some(match self.export(Path::new(&path)) {
                    Ok(p) => format!(
                        "wrote the wire payload of request {} to {}",
                        self.k,
                        p.display()
                    ),
                    Err(e) => format!("export failed: {e}"),
                });
            }
            other => self.overlay = other,
        }
    }

    /// Runs a `:` command: a request number, or a name and a value.
    pub fn run_command(&mut self, line: &str) {
        let line = line.trim().trim_start_matches(':').trim();
        if line.is_empty() {
            return;
        }
        let n = self.setup.session.requests.len();
        if line.chars().all(|c| c.is_ascii_digit()) {
            match line.parse::<usize>() {
                Ok(k) if (1..=n).contains(&k) => {
                    self.step_to(k);
                    self.status = None;
                }
                _ if n == 0 => self.status = Some(format!(":{line}: the session has no requests")),
                _ => self.status = Some(format!(":{line}: the session has requests 1..={n}")),
            }
            return;
        }
        let (name, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = value.trim();
        let matches: Vec<&str> = COMMANDS
            .iter()
            .copied()
            .filter(|c| c.starts_with(name))
            .collect();
        let cmd = match matches.as_slice() {
            [c] => *c,
            _ if COMMANDS.contains(&name) => name,
            [] => {
                self.status = Some(format!(
                    ":{name}: no such command (a request number, or {})",
                    COMMANDS.join(", ")
                ));
                return;
            }
            many => {
                self.status = Some(format!(":{name}: which one? {}", many.join(", ")));
                return;
            }
        };
        let bad = |what: &str| Some(format!(":{cmd} {value:?}: {what}"));
        let msg: Option<String> = match cmd {
            "gap" => match value.parse::<f64>() {
                Ok(m) if m.is_finite() => {
                    self.tune(|p| {
                        p.gap_threshold_minutes = m;
                        None
                    });
                    return;
                }
                _ => bad("expected minutes, e.g. :gap 7.5 (negative disables)"),
            },
            "keep" => match value.parse::<u32>() {
                Ok(k) if k >= 1 => {
                    self.tune(|p| {
                        p.keep_recent = Some(k);
                        None
                    });
                    return;
                }
                _ => bad("expected a count of 1 or more, e.g. :keep 3"),
            },
            "size" => match value.replace(['_', ','], "").parse::<i64>() {
                Ok(c) => {
                    self.tune(|p| {
                        p.size_threshold = c;
                        p.size_explicit = true;
                        None
                    });
                    return;
                }
                _ => bad("expected chars, e.g. :size 300000 (negative disables)"),
            },
            "trigger" => match value.parse::<u32>() {
                Ok(t) => {
                    self.tune(|p| {
                        p.trigger_threshold = t;
                        None
                    });
                    return;
                }
                _ => bad("expected a count, e.g. :trigger 4"),
            },
            "policy" => match PlanKind::parse(value) {
                Some(PlanKind::Budget) if self.setup.policy.preset != Harness::Claude => {
                    bad("budget is Claude Code's plan: the claude preset only")
                }
                Some(kind) => {
                    self.tune(|p| {
                        p.kind = kind;
                        // budget is rewrite only (SPEC §5).
                        (kind == PlanKind::Budget && p.delivery != Delivery::Rewrite).then(|| {
                            p.delivery = Delivery::Rewrite;
                            "budget rewrites the request: delivery set to rewrite".into()
                        })
                    });
                    return;
                }
                None => Some(format!(
                    ":{cmd} {value:?}: expected one of {}",
                    PlanKind::ALL.map(|k| k.name()).join(", ")
                )),
            },
            "delivery" => match Delivery::parse(value) {
                Some(_) if self.setup.session.harness == Harness::Qwen => {
                    Some("cache-edits is Claude's cached microcompact; Qwen sends rewrites".into())
                }
                Some(d) => {
                    self.tune(|p| {
                        p.delivery = d;
                        None
                    });
                    return;
                }
                None => bad("expected rewrite or cache-edits"),
            },
            "explain" => match crate::setup::resolve_id(&self.setup.session, value) {
                Ok(id) => {
                    self.select_id(&id);
                    match analysis::explain(&self.setup, &id, self.k) {
                        Some(explain) => {
                            self.overlay = Some(Overlay::Explain { explain, scroll: 0 });
                            None
                        }
                        None => Some(format!("no tool result with id {id:?}")),
                    }
                }
                Err(e) => Some(format!(":explain: {e}")),
            },
            _ => None,
        };
        self.status = msg;
    }

    /// Selects the next result (in the list as filtered) that matches `q` in its id,
    /// tool, path or command: from the selection itself (`dir` 0, as you type),
    /// after it (1) or before it (-1), wrapping around.
    pub fn find(&mut self, q: &str, dir: isize) {
        if q.is_empty() {
            return;
        }
        let q = q.to_lowercase();
        let visible = self.visible();
        let n = visible.len();
        if n == 0 {
            self.status = Some(format!("no result matches {q:?}"));
            return;
        }
        let here = visible
            .iter()
            .position(|&i| i == self.selected)
            .unwrap_or(0) as isize;
        let hit = (0..n as isize)
            .map(|step| {
                let off = if dir < 0 { -step - 1 } else { step + dir };
                visible[(here + off).rem_euclid(n as isize) as usize]
            })
            .find(|&i| {
                let c = &self.plan.candidates[i];
                let r = &self.setup.session.results[c.result];
                [
                    Some(&r.id),
                    c.tool.as_ref(),
                    c.path.as_ref(),
                    c.summary.as_ref(),
                ]
                .into_iter()
                .flatten()
                .any(|s| s.to_lowercase().contains(&q))
            });
        match hit {
            Some(i) => {
                self.selected = i;
                self.status = None;
                self.scroll_diff_to_selected();
            }
            None => self.status = Some(format!("no result matches {q:?}")),
        }
    }

    /// Selects the first result at or after the selection (after, when `next`) that
    /// matches `q`.
    pub fn search(&mut self, q: &str, next: bool) {
        self.find(q, next as isize);
    }

    /// Puts `text` on the clipboard (the event loop sends it with OSC 52).
    fn copy(&mut self, text: String) {
        let what = if text.contains('\n') {
            format!("{} lines", text.lines().count())
        } else {
            text.clone()
        };
        self.status = Some(format!(
            "copied {what} (OSC 52: to the terminal's clipboard)"
        ));
        self.clipboard = Some(text);
    }

    /// Opens the selected result's full content as the local request holds it:
    /// what the model lost when it was cleared.
    fn view_content(&mut self) {
        let Some(id) = self.selected_id() else {
            self.status = Some("no result selected".into());
            return;
        };
        match result_content(&self.setup, self.k, &id) {
            Ok(text) => {
                let c = &self.plan.candidates[self.selected];
                let title = format!(
                    "{id}  {}  {}",
                    c.tool.as_deref().unwrap_or("?"),
                    c.path.as_deref().or(c.summary.as_deref()).unwrap_or("")
                );
                self.overlay = Some(Overlay::Content {
                    title,
                    lines: text.lines().map(str::to_string).collect(),
                    scroll: 0,
                });
            }
            Err(e) => self.status = Some(format!("cannot show {id}: {e}")),
        }
    }

    /// The candidates the age list shows (indices into `plan.candidates`).
    pub fn visible(&self) -> Vec<usize> {
        (0..self.plan.candidates.len())
            .filter(|&i| self.filter.shows(&self.plan.candidates[i]))
            .collect()
    }

    /// The age list's rows as filtered: the results in their order, with the Qwen
    /// media entries (SPEC §5: top-level media, and the nested media of tools
    /// that are not compactable, right after their result) in message order.
    pub fn rows(&self) -> Vec<ListRow> {
        let s = &self.setup.session;
        let start = self.plan.request.view_start;
        let media: Vec<(usize, (usize, usize))> = self
            .plan
            .media
            .iter()
            .enumerate()
            .filter(|(_, e)| self.filter.shows_media(e))
            .map(|(i, e)| (i, (e.message_index, e.part_index)))
            .collect();
        let mut out = Vec::with_capacity(self.plan.candidates.len() + media.len());
        let mut next = 0;
        for i in self.visible() {
            let r = &s.results[self.plan.candidates[i].result];
            let at = (r.msg.saturating_sub(start), r.part);
            while next < media.len() && media[next].1 < at {
                out.push(ListRow::Media(media[next].0));
                next += 1;
            }
            out.push(ListRow::Result(i));
            while next < media.len() && media[next].1 == at {
                out.push(ListRow::Media(media[next].0));
                next += 1;
            }
        }
        out.extend(media[next..].iter().map(|m| ListRow::Media(m.0)));
        out
    }

    /// Keeps the selection on a shown result (the first, when it is filtered out).
    fn fix_selection(&mut self) {
        let visible = self.visible();
        if !visible.contains(&self.selected) {
            self.selected = visible.first().copied().unwrap_or(0);
        }
    }

    /// The next (or previous) request whose mark `pick` holds; the marks are
    /// computed in the background, and waited for here.
    fn jump_mark(&mut self, forward: bool, pick: fn(&Mark) -> bool, what: &str) {
        self.wait_timeline();
        let marks: Vec<Mark> = (1..=self.setup.session.requests.len())
            .map(|k| self.mark(k))
            .collect();
        // Request k is marks[k - 1].
        let target = if forward {
            (self.k..marks.len()).find(|&i| pick(&marks[i]))
        } else {
            (0..self.k.saturating_sub(1))
                .rev()
                .find(|&i| pick(&marks[i]))
        };
        match target {
            Some(i) => {
                self.step_to(i + 1);
                self.status = None;
            }
            None => {
                self.status = Some(format!(
                    "no {} request where {what}",
                    if forward { "later" } else { "earlier" }
                ))
            }
        }
    }

    /// Writes the wire payload atomically (temp file + rename); never over the input
    /// or into the harness folders.
    pub fn export(&mut self, path: &Path) -> std::io::Result<PathBuf> {
        // A diff still computing in the background holds the wire text.
        self.wait_background();
        let path = std::path::absolute(path)?;
        let input = std::fs::canonicalize(&self.setup.session.path)?;
        let dir = path
            .parent()
            .ok_or_else(|| std::io::Error::other("no folder to write into"))?;
        let dir_real = std::fs::canonicalize(dir)?;
        let target = dir_real.join(path.file_name().unwrap_or_default());
        if target == input || std::fs::canonicalize(&target).is_ok_and(|t| t == input) {
            return Err(std::io::Error::other(
                "refusing to overwrite the session being read",
            ));
        }
        for base in [
            crate::policy::protect::claude_base(),
            crate::policy::protect::qwen_base(),
        ] {
            if std::fs::canonicalize(&base).is_ok_and(|b| dir_real.starts_with(b)) {
                return Err(std::io::Error::other(format!(
                    "refusing to write under the harness folder {}",
                    base.display()
                )));
            }
        }
        let mut tmp = tempfile::NamedTempFile::new_in(&dir_real)?;
        std::io::Write::write_all(&mut tmp, self.wire_json().as_bytes())?;
        std::io::Write::write_all(&mut tmp, b"\n")?;
        tmp.persist(&target).map_err(|e| e.error)?;
        Ok(target)
    }

    /// Which parameters differ from those the session was opened with.
    pub fn changed(&self) -> Vec<&'static str> {
        let (a, b) = (&self.opened_with, &self.setup.policy);
        let mut out = Vec::new();
        if a.kind != b.kind {
            out.push("kind");
        }
        if a.api != b.api {
            out.push("api_edits");
        }
        if a.keep_recent != b.keep_recent {
            out.push("keep_recent");
        }
        if a.gap_threshold_minutes != b.gap_threshold_minutes {
            out.push("gap");
        }
        if a.size_threshold != b.size_threshold {
            out.push("size");
        }
        if a.delivery != b.delivery {
            out.push("delivery");
        }
        if a.protect != b.protect {
            out.push("protect");
        }
        out
    }
}

/// `p`: claude auto → idle → forced → size → count → budget → auto; qwen the same
/// without budget (SPEC §5).
pub fn next_kind(kind: PlanKind, preset: Harness) -> PlanKind {
    match kind {
        PlanKind::Auto => PlanKind::Idle,
        PlanKind::Idle => PlanKind::Forced,
        PlanKind::Forced => PlanKind::Size,
        PlanKind::Size => PlanKind::Count,
        PlanKind::Count if preset == Harness::Claude => PlanKind::Budget,
        PlanKind::Count | PlanKind::Budget => PlanKind::Auto,
        // The api preset has one kind (SPEC §5).
        PlanKind::Api => PlanKind::Api,
    }
}
