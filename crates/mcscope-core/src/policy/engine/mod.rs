//! The timeline: one pass over the requests, evaluating the plan at each and
//! carrying the clearings still in force (SPEC §5 persistence).

use super::protect::{Protector, RecordedPath};
use super::{Delivery, PlanKind, Policy};
use crate::derived::Derived;
use crate::harness::Preset;
use crate::harness::RankBy;
use crate::harness::claude_budget as budget;
use crate::session::{Request, Role, Session};
use std::collections::{BTreeSet, HashMap, HashSet};

mod api;
mod api_run;
mod budget_plan;
mod carry;
mod cline;
mod count;
mod cuts;
mod fenwick;
mod idle;
mod idle_server;
mod ids;
mod look;
mod mask;
mod mask_index;
mod own_state;
pub(crate) mod plan;
mod prune;
mod reason;
mod recorded;
pub(crate) mod registry;
mod size;
mod size_index;
mod state;
mod status;
mod step;
mod tracked;
mod types;
mod view;

use api::ApiFacts;
pub use api::{ApiCleared, ApiKept, ApiNote, ApiStep, EditOutcome, TokenSource};
pub use budget_plan::{BudgetCleared, BudgetKept, BudgetNote};
pub use cline::{
    ClineCleared, ClineKept, ClineNote, ClineState, Fired as ClineFired,
    request_json as cline_request_json,
};
pub use count::{CountCleared, CountKept, CountNote};
pub use idle::{TimeCleared, TimeNote};
pub use idle_server::{IdleServerStep, IdleServerWhy, e4_policy};
use look::Look;
pub use mask::{MaskCleared, MaskKept, MaskNote};
use own_state::PlanState;
pub(crate) use plan::Decided;
pub use plan::{DEFAULT_KEEP, Replay, Settles};
pub use prune::{PruneCleared, PruneKept, PruneNote};
pub use reason::{
    ApiTrigger, BudgetWhy, ClearReason, CountWhy, EditNote, Gate, Kept, MaskWhy, NoRun, Note,
    Prompt, PruneWhy, Rank, Reason, SizeWhy, TimeWhy,
};
pub use recorded::ByRecord;
pub use recorded::{RecordedEdit, RecordedWhy, unattributed_tokens};
pub use size::{SizeCleared, SizeKept, SizeNote};
use state::{Cuts, InForceLists, LastVersion, MediaState, Modes, PlanStates, Process, Running};
pub use tracked::WireDelta;
pub use types::{Candidate, Clearing, EditBlock, Status, Step, Trigger};

/// The plan's verdict at one request, before it is applied.
struct Verdict {
    /// The trigger that fired; None: nothing fired.
    trigger: Option<Trigger>,
    /// Candidate positions to clear, with the reason for each.
    clear: Vec<(usize, ClearReason)>,
    media: Vec<usize>,
    /// Qwen: results (not compactable) whose nested media is stripped.
    strip: Vec<usize>,
    /// Qwen idle/forced: `min(#media + #nested-media, keep_recent)`.
    media_kept: usize,
    target: Option<u64>,
    note: Note,
    /// Why particular candidates stay (in the window, pending, …), by position.
    kept: Why,
    pre_tokens: Option<u64>,
}

/// Reasons candidates stay, by candidate position.
type Why = crate::fasthash::FastMap<usize, Kept>;

/// A clearing in force as the engine keeps it per result: the request it was
/// made at and its trigger (8 bytes; its reason is `Engine::reasons`).
#[derive(Debug, Clone, Copy)]
struct InForce {
    at: u32,
    trigger: Trigger,
}

impl Verdict {
    fn none(note: Note) -> Verdict {
        Verdict {
            trigger: None,
            clear: Vec::new(),
            media: Vec::new(),
            strip: Vec::new(),
            media_kept: 0,
            target: None,
            note,
            kept: Why::default(),
            pre_tokens: None,
        }
    }

    fn fired(&self) -> bool {
        self.trigger.is_some()
    }
}

#[derive(Clone)]
pub struct Engine<'s> {
    s: &'s Session,
    policy: Policy,
    /// Tool names follow the transcript (`Session::shape`), whatever preset
    /// is applied, but for the api preset's, which knows every tool.
    tools: &'static Preset,
    protector: Protector,
    /// The request `forced` acts at (the viewed request K).
    forced_at: usize,
    next: usize,
    /// Candidate positions marked pending at the last step.
    pending: Vec<usize>,
    /// Per result, the clearing in force on it, compactly (when and by what):
    /// this is read at every step, and the full record (96 bytes a result)
    /// made a large session's state outgrow the cache.
    cleared: Vec<Option<InForce>>,
    /// Each clearing's reason, kept apart: only a status reads it (see
    /// `finish_statuses`), so a lean engine keeps none (empty).
    reasons: Vec<Option<ClearReason>>,
    /// What the view's results add up to while no clearing holds them.
    running: Running,
    /// Each view result's candidate position.
    pos_of: Vec<usize>,
    /// The results with a clearing in force, by whether it lapses at a turn
    /// start (so a reset touches only them).
    lists: InForceLists,
    media: MediaState,
    edits: Vec<EditBlock>,
    view: View,
    /// The session's tool ids by number, and the view's calls and results
    /// per id (`ids`).
    ids: std::sync::Arc<crate::session::IdTable>,
    id_slots: ids::IdSlots,
    /// Qwen: idle state that lives in the process (SPEC §2).
    process: Process,
    /// What a step reports (`lean`, `newly_only`).
    modes: Modes,
    /// What changed in the wire at each step, when asked (`tracked`).
    tracker: tracked::Tracker,
    /// Each plan's own state (`PlanStates`).
    plans: PlanStates,
    /// The request being evaluated, and the recorded cuts (SPEC §13.E1).
    at: usize,
    cuts: Cuts,
    /// The version of the last request that recorded one (SPEC §15.9).
    version: LastVersion,
}

/// The current view's candidates, grown incrementally as requests add messages.
#[derive(Default, Clone)]
struct View {
    segment: usize,
    started: bool,
    calls_end: usize,
    results_end: usize,
    /// The view's compactable calls by call index, in order: a compactable
    /// call's rank is its place here plus one (`View::call_rank`).
    compactable_call_ix: Vec<usize>,
    /// Messages of the view seen so far, and the recorded usage (input +
    /// cache_creation + cache_read + output) of the last response among them.
    msgs_end: usize,
    last_usage: Option<u64>,
    /// The rank of the last result under `RankBy::Responses` (one per
    /// response, in order).
    response_rank: usize,
    /// The view's first call: a call repeats a path of the view when the
    /// call it repeats is this one or later (`Session::path_repeats`).
    calls_start: usize,
    cands: Vec<Candidate>,
    keys: Vec<(usize, usize)>,
    /// Whether some candidate is stored before the one listed ahead of it
    /// (a retained tail's copy): prune then sorts the view, else walks it.
    stored_unsorted: bool,
    /// The messages on a dead branch the view was built with (SPEC §2 rewinds).
    dead: Vec<std::ops::Range<usize>>,
}

impl View {
    /// Compactable call `c`'s rank (its position among the view's compactable
    /// calls), found in the ordered list of them: a map per setting hashed
    /// every call again.
    fn call_rank(&self, c: usize) -> Option<usize> {
        self.compactable_call_ix
            .binary_search(&c)
            .ok()
            .map(|i| i + 1)
    }
}

/// Computes into `derived` what the plans of `policy` read of the session
/// (idle-server's reading of the records, the api facts), as building an
/// engine would, without the engine: a plan kind planned later finds them.
pub fn warm(s: &Session, derived: &Derived, policy: &Policy) {
    drop(registry::states(s, derived, policy));
}

impl<'s> Engine<'s> {
    /// An engine over `s` under `policy`, reading what `derived` holds of the
    /// session (and adding what it lacks).
    pub fn new(
        s: &'s Session,
        derived: &Derived,
        policy: Policy,
        protector: Protector,
        forced_at: usize,
    ) -> Self {
        let mut e = Engine {
            s,
            // The api preset clears every tool's results (SPEC §11).
            tools: if policy.kind.is_api() {
                crate::harness::PresetId::SERVER.rules()
            } else {
                s.shape().tools
            },
            plans: PlanStates::new(registry::states(s, derived, &policy)),
            policy,
            protector,
            forced_at,
            next: 1,
            pending: Vec::new(),
            cleared: vec![None; s.results.len()],
            reasons: Vec::new(),
            running: Running {
                base: vec![(0, false, 0); s.results.len()],
                ..Default::default()
            },
            pos_of: vec![0; s.results.len()],
            lists: InForceLists::default(),
            media: MediaState {
                cleared: vec![false; s.media.len()],
                stripped: vec![false; s.results.len()],
                touched: false,
            },
            edits: Vec::new(),
            view: View::default(),
            ids: s.ids(),
            id_slots: ids::IdSlots::new(s.ids().len),
            process: Process::default(),
            modes: Modes {
                statuses: true,
                cleared_list: true,
                kept_wanted: true,
                newly_listed: false,
            },
            tracker: Default::default(),
            at: 0,
            cuts: Cuts {
                list: {
                    let mut v: Vec<(usize, usize)> = (0..s.cut.len())
                        .filter_map(|r| s.cut_mark(r).map(|m| (m.at, r)))
                        .collect();
                    v.sort_unstable();
                    v.into()
                },
                done: 0,
            },
            version: LastVersion::default(),
        };
        e.mask_index_on();
        e
    }

    /// A lean engine (see `lean`) whose steps leave `Step::cleared` empty: a
    /// count plan's deletions pile up over a view, so listing them at every
    /// request would cost the view's length each time.
    pub fn newly_only(mut self) -> Self {
        self.modes.statuses = false;
        self.modes.cleared_list = false;
        self
    }

    /// A tracked engine (`tracked`) whose steps list what they newly cleared
    /// as a lean engine's do (the evidence beside the timeline names them),
    /// still saying what changed in the wire instead of everything cleared
    /// there. Its plans decide as a lean engine's: the size plan's deferred
    /// turn start and the carried `api` plan list only what they changed, so
    /// they are off.
    pub fn listing_newly(mut self) -> Self {
        self.modes.newly_listed = true;
        self.plans.follow::<size_index::SizeIndex>(false);
        if let Some(api) = self.plans.get_mut::<api_run::ApiState>() {
            api.run = Default::default();
        }
        self
    }

    /// The same engine for a pass that reads only its steps (a timeline, a
    /// comparison): `candidates()` keeps no statuses, and a step costs what
    /// changed at its request rather than a pass over the whole view.
    pub fn lean(mut self) -> Self {
        self.modes.statuses = false;
        self
    }

    /// Starts at request `first` (1-based): the caller knows nothing before it
    /// matters (the start of a view).
    pub fn starting_at(mut self, first: usize) -> Self {
        self.next = first.max(1);
        self
    }

    /// The same engine, now answering for request `k` (its `forced` plan acts
    /// there): a state saved at a request before k - 1, resumed
    /// (`analysis::Checkpoints`).
    pub fn resumed_for(mut self, k: usize) -> Self {
        self.forced_at = k;
        self
    }

    /// About how many bytes a copy of this engine holds: its per-result and
    /// per-media tables (sized to the session) and its view's candidates. An
    /// estimate, for a cache to bound itself by (`analysis::Checkpoints`).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let results = self.cleared.len() * (size_of::<Option<InForce>>() + size_of::<usize>() + 2)
            + self.reasons.len() * size_of::<Option<ClearReason>>()
            + self.running.base.len() * 24;
        let media = self.media.cleared.len();
        // The view's calls and results per id number (`ids`).
        let ids = self.ids.len * (size_of::<usize>() + size_of::<u32>() + 1);
        // A candidate, its strings and its places in the view's maps.
        let cands = self.view.cands.len() * (size_of::<Candidate>() + 160);
        results + media + ids + cands
    }

    /// The request the next `step` evaluates (1-based).
    pub fn next_request(&self) -> usize {
        self.next
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The `api` plan at the last evaluated request (None for other kinds).
    pub fn api_step(&self) -> Option<&ApiStep> {
        self.plans
            .get::<api_run::ApiState>()
            .and_then(|a| a.step.as_ref())
    }

    /// `idle-server` at the last evaluated request (None where it is not in force).
    pub fn idle_server_step(&self) -> Option<&IdleServerStep> {
        self.plans
            .get::<idle_server::IdleServerState>()
            .and_then(|i| i.step.as_ref())
    }

    /// The messages the plans leave out of the last evaluated request's wire
    /// (Cline's truncated range), as ranges of the session's messages.
    pub fn dropped_messages(&self) -> Vec<std::ops::Range<usize>> {
        registry::PLANS
            .iter()
            .flat_map(|p| p.dropped(self))
            .collect()
    }

    /// The text blocks the plans rewrite in the last evaluated request's wire
    /// (Cline's truncation notice): (message, block, text).
    pub fn wire_texts(&self) -> Vec<(usize, usize, &'static str)> {
        registry::PLANS
            .iter()
            .flat_map(|p| p.wire_texts(self))
            .collect()
    }

    /// The candidates of the last evaluated request, in rank order.
    pub fn candidates(&self) -> &[Candidate] {
        &self.view.cands
    }

    /// The `cache_edits` blocks sent up to the last evaluated request.
    pub fn edits(&self) -> &[EditBlock] {
        &self.edits
    }

    /// Whether result `r` is cleared in the last evaluated request's wire.
    pub fn is_cleared(&self, r: usize) -> bool {
        self.cleared.get(r).is_some_and(Option::is_some)
    }

    pub fn media_is_cleared(&self, m: usize) -> bool {
        self.media.cleared.get(m).copied().unwrap_or(false)
    }

    /// Whether result `r`'s nested media is stripped in the last request's wire.
    pub fn is_stripped(&self, r: usize) -> bool {
        self.media.stripped.get(r).copied().unwrap_or(false)
    }

    /// The media items cleared or stripped in `req`'s wire (see `Step`).
    fn media_in_wire(&self, req: &Request) -> Vec<(usize, usize)> {
        if !self.media.touched {
            return Vec::new();
        }
        let s = self.s;
        let media = s
            .media_in(req.view_start, req.end)
            .filter(|&m| self.media.cleared[m])
            .map(|m| (s.media[m].msg, m));
        let nested = s
            .results_in(req.view_start, req.end)
            .filter(|&r| self.media.stripped[r])
            .map(|r| (s.results[r].msg, s.media.len() + r));
        media.chain(nested).collect()
    }

    /// Undoes every media clearing (a new view, a restart).
    fn reset_media(&mut self) {
        if !std::mem::take(&mut self.media.touched) {
            return;
        }
        for m in self.s.media_in(0, self.s.messages.len()) {
            self.media.cleared[m] = false;
        }
        self.media.stripped.iter_mut().for_each(|x| *x = false);
    }

    fn reset_clearings(&mut self) {
        for r in std::mem::take(&mut self.lists.lapsing) {
            self.set_clearing(r, None);
        }
        for r in std::mem::take(&mut self.lists.lasting) {
            self.set_clearing(r, None);
        }
    }

    /// A claude turn start: the clearings that lapse there (idle, forced, size)
    /// are lifted; count deletions and budget clearings stay (SPEC §5).
    fn reset_lapsing(&mut self) {
        for r in std::mem::take(&mut self.lists.lapsing) {
            // One cleared again by a lasting plan is on that list: it stays.
            if let Some(c) = &self.cleared[r]
                && self.lists.lasts.of(c.trigger) != plan::Lasts::View
            {
                self.set_clearing(r, None);
            }
        }
    }

    /// A new Claude Code process (SPEC §15.9: the recorded `version` changed):
    /// the budget plan's remembered ids are forgotten, so they go out again.
    fn new_process(&mut self, req: &Request) {
        // A request of the session has its version by number (`IdTable`): the
        // same number as the last one's, the same version.
        let number = req
            .index
            .checked_sub(1)
            .filter(|&i| self.s.requests.get(i).is_some_and(|q| std::ptr::eq(q, req)))
            .map(|i| self.ids.version[i]);
        if number.is_some() && number == self.version.number {
            return;
        }
        let Some(now) = req.version.as_deref() else {
            return;
        };
        self.version.number = number;
        if self.version.text.as_deref() == Some(now) {
            return;
        }
        if self.version.text.is_some() {
            let (budget, other): (Vec<usize>, Vec<usize>) = std::mem::take(&mut self.lists.lasting)
                .into_iter()
                .partition(|&r| {
                    self.cleared[r]
                        .as_ref()
                        .is_some_and(|c| c.trigger == Trigger::Budget)
                });
            self.lists.lasting = other;
            for r in budget {
                self.set_clearing(r, None);
            }
        }
        self.version.text = Some(now.to_string());
    }

    /// Puts a clearing in force and lists it with those of its kind.
    fn clear_result(&mut self, r: usize, clearing: Clearing) {
        let lasting = self.lists.lasts.of(clearing.trigger) == plan::Lasts::View;
        self.set_clearing(r, Some(clearing));
        if lasting {
            self.lists.lasting.push(r);
        } else {
            self.lists.lapsing.push(r);
        }
    }

    /// What result `r` adds to the size total, the active count and the
    /// eligible tokens now.
    fn contribution(&self, r: usize) -> (u64, usize, u64) {
        match self.cleared[r] {
            Some(_) => (0, 0, 0),
            None => (
                self.running.base[r].0,
                self.running.base[r].1 as usize,
                self.running.base[r].2,
            ),
        }
    }

    /// The clearing in force on result `r`, whole (its reason where the
    /// engine keeps reasons: one that reports statuses).
    fn clearing(&self, r: usize) -> Option<Clearing> {
        let c = self.cleared[r]?;
        Some(Clearing {
            at: c.at as usize,
            trigger: c.trigger,
            reason: self.reasons.get(r).copied().flatten()?,
        })
    }

    /// The one place a clearing is put in force or lifted.
    fn set_clearing(&mut self, r: usize, clearing: Option<Clearing>) {
        self.touch(r);
        let old = self.contribution(r);
        if self.modes.statuses {
            if self.reasons.is_empty() {
                self.reasons = vec![None; self.cleared.len()];
            }
            self.reasons[r] = clearing.as_ref().map(|c| c.reason);
        }
        self.cleared[r] = clearing.map(|c| InForce {
            // A session of 2^32 requests cannot be loaded: the index fits.
            at: u32::try_from(c.at).unwrap_or(u32::MAX),
            trigger: c.trigger,
        });
        self.update_totals(r, old);
        if self.plans.follows::<size_index::SizeIndex>()
            && self
                .view
                .cands
                .get(self.pos_of[r])
                .is_some_and(|c| c.result == r)
        {
            self.size_index_pos(self.pos_of[r]);
        }
    }

    /// Moves the running totals from `r`'s old contribution to its current one.
    fn update_totals(&mut self, r: usize, (old_chars, old_active, old_tokens): (u64, usize, u64)) {
        let (c, a, t) = self.contribution(r);
        self.running.total = self.running.total - old_chars + c;
        self.running.active = self.running.active - old_active + a;
        self.running.eligible_tokens = self.running.eligible_tokens - old_tokens + t;
        if a == 1 {
            self.running.active_set.insert(r);
        } else {
            self.running.active_set.remove(&r);
        }
        self.mask_index_result(r);
    }

    /// Records what a (new or re-made) candidate adds while not cleared.
    fn set_base(&mut self, c: &Candidate) {
        let r = &self.s.results[c.result];
        let gone = self.gone(c.result);
        let chars = if c.compactable && !r.is_error && !gone {
            r.chars
        } else {
            0
        };
        let active = c.compactable
            && !c.protected()
            && !gone
            && (!r.is_error || self.policy.errors_clearable());
        // The budget plan's eligible results: the active ones but its one tool.
        let tokens = if active && c.tool.as_deref() != Some(budget::NOT_ELIGIBLE_TOOL) {
            r.est_tokens
        } else {
            0
        };
        let old = self.contribution(c.result);
        self.running.base[c.result] = (chars, active, tokens);
        self.update_totals(c.result, old);
    }
}

/// The last user message of a request's view (where new edits and pending results are).
pub fn last_user_message(s: &Session, req: &Request) -> Option<usize> {
    (req.view_start..req.end)
        .rev()
        .find(|&m| s.messages[m].role == Role::User)
}

/// A small Claude Code session for the plan kinds' unit tests.
#[cfg(test)]
pub(crate) mod testkit;
