//! The footer's timeline: the marks of every request, the session's evidence
//! beside the plan and the setting's totals, computed on another thread.

use super::*;

/// What the timeline job computes the marks from: the setup, the request
/// (the forced plan fires there), and the evidence without the plan's part when
/// it can be reused.
pub(super) struct TimelineInput {
    setup: Setup,
    k: usize,
    base: Option<(Policy, Arc<crate::evidence::SessionEvidence>)>,
}

/// The footer's timeline: the marks and the evidence of a whole timeline,
/// computed on another thread. A newer change makes a job pointless: it stops
/// at the next request (so jobs never pile up and take the cores from the
/// keystrokes).
pub(super) fn timeline_job() -> Job<TimelineInput, Marked> {
    Job::new("timeline", || {
        |input: TimelineInput, current: &Current| {
            let TimelineInput { setup, k, base } = input;
            let base = base
                .unwrap_or_else(|| (setup.policy.clone(), Arc::new(analysis::evidence(&setup))));
            if !current.still() {
                return None;
            }
            let (marks, report) = evidence_marks(&setup, k, &base.1, || current.still())?;
            let named = Arc::new(named_ids(&report.evidence));
            let totals = if current.still() {
                setting_totals(&setup)
            } else {
                None
            };
            Some(Marked {
                marks,
                evidence: Arc::new(report),
                named,
                base,
                totals,
            })
        }
    })
}

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
    /// What the session's responses recorded (SPEC §9a), whatever the setting.
    pub recorded: crate::bill::Recorded,
    /// Where its cache-write money went (SPEC §16.S: the footer's recorded
    /// line names the top causes, `$` opens its panel), from the records alone.
    pub bill: crate::bill::report::Row,
    /// What fills every request's window (SPEC §12: the footer's context bar, `w`).
    pub contexts: Vec<crate::context::Context>,
}

/// The session totals of `setup`'s setting (computed in the background).
pub fn setting_totals(setup: &Setup) -> Option<SettingTotals> {
    let facts = crate::totals::SessionFacts::new(&setup.session, setup.settings.cache_ttl);
    let crate::series::Series {
        points: series,
        contexts,
        totals,
    } = crate::series::series(setup, &facts).ok()?;
    let model = crate::totals::session_model(&setup.session);
    let price = crate::prices::price_with(
        model.as_deref(),
        &Default::default(),
        &setup.settings.config.prices,
    )
    .ok();
    let delta_usd = price
        .as_ref()
        .map(|p| crate::prices::delta_usd(p, &totals.cost));
    let lines = crate::load::subagents::usage_lines(&setup.session);
    let recorded = crate::bill::recorded(&setup.session, &lines, price.as_ref());
    let prices = &setup.settings.config.prices;
    let price_of = |m: Option<&str>| crate::prices::price_with(m, &Default::default(), prices).ok();
    let billed = crate::bill::report::session_rows(
        &setup.session,
        &lines,
        &mut Default::default(),
        &price_of,
    );
    let bill = crate::bill::report::total(&billed);
    Some(SettingTotals {
        totals,
        delta_usd,
        series,
        recorded,
        bill,
        contexts,
    })
}

/// Whether request `st`'s wire breaks the simulated cache prefix (SPEC §6: under
/// `rewrite`, the first message whose clearings differ from the previous
/// request's, when it is in the view — the rule `analysis::plan_and_inputs`
/// applies to one request); `prev` is the step before it.
pub(super) fn broke_at(
    setup: &Setup,
    prev: Option<&crate::policy::engine::Step>,
    st: &crate::policy::engine::Step,
) -> bool {
    let s = &setup.session;
    if setup.policy.delivery == Delivery::CacheEdits && s.harness.dialect().has_cache_edits() {
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
            .as_deref()
            .into_iter()
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
    let mut marks = Vec::with_capacity(s.requests.len());
    // Under Claude's cache edits nothing is rewritten: no simulated break.
    let edits =
        setup.policy.delivery == Delivery::CacheEdits && s.harness.dialect().has_cache_edits();
    let selected_newly = analysis::beside_timeline(setup, forced_at, &mut ev, |st, r, broke| {
        let req = &s.requests[st.index - 1];
        marks.push(Mark {
            fired: st.fired(),
            broke: !edits && broke(),
            silent: crate::report::silent(st, req.begins_turn),
            evidence: holds_evidence(r),
            observed: r.observed_break.is_some(),
        });
        current()
    })?;
    Some((
        marks,
        analysis::EvidenceReport {
            evidence: ev,
            selected_newly,
            // The marks' evidence: what ran is the evidence command's.
            ran: Vec::new(),
        },
    ))
}

impl SessionView {
    /// Recomputes the footer's fired marks on another thread: a whole timeline
    /// may take longer than a keystroke may.
    pub(super) fn start_timeline(&mut self) {
        // The totals are the setting's: counted again after every change. The
        // old ones (a map per request) go to the worker that made them.
        if let Some(old) = self.totals.take() {
            self.timeline_job.discard(old);
        }
        let setup = self.setup.clone();
        // The evidence without the plan's part depends on the parameters only
        // through the plans its records are compared with: made once per session
        // (and set of parameters, when it has records), not at every step.
        let records = !setup.session.evidence.is_empty();
        let base = self
            .evidence_base
            .clone()
            .filter(|(p, _)| !records || *p == setup.policy);
        // A thread that cannot start: the marks stay as they were.
        self.timeline_job.request(TimelineInput {
            setup,
            k: self.k,
            base,
        });
    }

    pub(super) fn poll_timeline(&mut self) -> bool {
        match self.timeline_job.latest() {
            Some(Ok(marks)) => {
                self.set_marks(marks);
                true
            }
            // The job stopped: the marks stay as they were.
            Some(Err(Lost)) | None => false,
        }
    }

    /// Waits for the footer's marks.
    pub(super) fn wait_timeline(&mut self) {
        if let Some(Ok(marks)) = self.timeline_job.wait() {
            self.set_marks(marks);
        }
    }

    pub(super) fn set_marks(&mut self, marked: Marked) {
        // What they replace was made on the timeline's worker: it is dropped
        // there (`Job::discard`), not on the thread that answers keys.
        let old = (
            std::mem::replace(&mut self.marks, marked.marks),
            self.evidence.replace(marked.evidence),
            std::mem::replace(&mut self.named, marked.named),
            self.evidence_base.replace(marked.base),
            std::mem::replace(&mut self.totals, marked.totals),
        );
        self.timeline_job.discard(old);
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

    /// The next (or previous) request whose mark `pick` holds; the marks are
    /// computed in the background, and waited for here.
    pub(super) fn jump_mark(&mut self, forward: bool, pick: fn(&Mark) -> bool, what: &str) {
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
}
