//! The session view at request k: opening it, replanning, following the file,
//! stepping, scrolling the diff and keeping the selection.

use super::*;
use crate::harness::Dialect;

impl SessionView {
    pub fn new(setup: Setup) -> SessionView {
        let k = setup.last_request();
        SessionView::at(setup, k)
    }

    /// The view at request `k` (1-based; 0 for a session without requests).
    pub fn at(mut setup: Setup, k: usize) -> SessionView {
        let k = k.min(setup.last_request());
        // Every key re-plans near the last one: resume from saved engine states.
        setup.checkpoints = analysis::Checkpoints::on();
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
            timeline_job: timeline_job(),
            warm_job: Job::new("warm", || {
                |setup: Setup, _: &Current| {
                    setup.warm();
                    Some(())
                }
            }),
            diff_job: diff_job(),
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
            size: DEFAULT_SIZE,
            clipboard: None,
            page_export: None,
            landing: Landing::FirstChange,
            messages: Default::default(),
            follow: None,
            demo: None,
            compare: Default::default(),
        };
        v.status = v.setup.settings.config_notice.clone();
        v.replan(true);
        // The first switch to another plan kind would otherwise read the
        // whole file back while its key waits (idle-server's and api's facts).
        v.warm_job.request(v.setup.clone());
        v.land();
        v
    }

    pub fn policy(&self) -> &Policy {
        &self.setup.policy
    }

    /// The `keep_recent` the plan in force at K uses (explicit, else its kind's default).
    pub fn keep_in_force(&self) -> usize {
        if let Some(keep) = self.setup.policy.api.first_keep()
            && self.setup.policy.kind.is_api()
        {
            return keep as usize;
        }
        self.setup.policy.keep_in_force(self.plan.step.kind)
    }

    /// Recomputes the plan, the diff and (when needed) the timeline.
    pub(super) fn replan(&mut self, timeline: bool) {
        let k = self.k;
        // A plan that fires at the viewed request has a timeline of its own there.
        if timeline || self.setup.policy.kind.fires_at_view() {
            self.start_timeline();
        }
        self.diff_job.forget();
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

    pub(super) fn toggle_follow(&mut self) {
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
    /// The parameters and the selection are kept, and the request unless it
    /// was the last: then the new last one is shown.
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
            // The last state stays on screen; the follow goes on, so a file that
            // comes back under the name is read afresh.
            crate::load::Change::Deleted => {
                self.status = Some(
                    "the followed file was deleted: showing what was read before (f stops following)"
                        .into(),
                );
                return true;
            }
            crate::load::Change::Grew(n) => format!("{n} new line(s) read"),
            crate::load::Change::Restarted(why) => why,
        };
        // At the last request the view follows new ones as they arrive (as
        // `tail -f` does); elsewhere it keeps its request.
        let at_end = self.k == self.setup.session.requests.len();
        let session = f.session();
        self.setup.replace_session(session);
        // New lines may name paths whose links changed since the disk was last
        // asked: ask again, as a fresh `mcscope plan` would.
        self.setup.resolver = Default::default();
        self.messages = Default::default();
        self.evidence_base = None;
        let n = self.setup.session.requests.len();
        self.k = if at_end {
            n
        } else {
            self.k.min(n).max(n.min(1))
        };
        self.replan(true);
        // The new session's facts are new too (`replace_session`).
        self.warm_job.request(self.setup.clone());
        self.status = Some(format!("{notice}; {n} requests"));
        true
    }

    pub(super) fn refold(&mut self) {
        self.items = if self.unfold_all {
            (0..self.diff.rows.len()).map(Item::Row).collect()
        } else {
            diff::fold(&self.diff.rows, CONTEXT, &self.expanded)
        };
    }

    /// Scrolls the diff where `landing` says, now or when the diff arrives.
    pub(super) fn land_on(&mut self, landing: Landing) {
        self.landing = landing;
        self.land();
    }

    pub(super) fn land(&mut self) {
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

    /// Puts the view in the state the demo's `stage` talks about.
    pub fn demo_stage(&mut self, stage: usize) {
        let Some(st) = crate::tui::demo::STAGES.get(stage) else {
            return;
        };
        let k = st.request_of(self.setup.session.requests.len());
        self.set_plan(st.kind, st.delivery, k);
        // The header's "changed" marks are for tuning, not for the tour's own steps.
        self.opened_with = self.setup.policy.clone();
        self.select_id(st.select);
        if let Some(text) = st.show {
            self.show_wire_text(text);
        }
        self.demo = Some(stage);
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

    pub(super) fn step_to(&mut self, k: usize) {
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

    pub(super) fn move_by(&mut self, delta: isize) {
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

    pub(super) fn jump_change(&mut self, forward: bool) {
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

    pub(super) fn candidate_index(&self, id: &str) -> Option<usize> {
        self.plan
            .candidates
            .iter()
            .position(|c| self.setup.session.results[c.result].id == id)
    }

    /// Selecting a result scrolls the diff to it (its result block on the wire side).
    pub fn scroll_diff_to_selected(&mut self) {
        let Some(id) = self.selected_id() else { return };
        let dialect = self.setup.session.harness.dialect();
        let key = match dialect {
            Dialect::Anthropic => format!("\"tool_use_id\": \"{id}\""),
            Dialect::Gemini => format!("\"id\": \"{id}\""),
        };
        let d = &self.diff;
        let rows = d.rows.iter().enumerate().filter(|(_, r)| {
            d.right_line(r)
                .or(d.left_line(r))
                .is_some_and(|t| t.contains(&key))
        });
        // Claude names the id once per result; Qwen's call comes before its response.
        let row = match dialect {
            Dialect::Anthropic => rows.map(|(i, _)| i).next(),
            Dialect::Gemini => rows.map(|(i, _)| i).next_back(),
        };
        if let Some(row) = row {
            self.show_row(row);
        }
    }

    /// Which parameters differ from those the session was opened with (their
    /// keys in the parameter table).
    pub fn changed(&self) -> Vec<&'static str> {
        crate::policy::params::changed(&self.opened_with, &self.setup.policy)
    }
}
