//! The compare panel (`c`, SPEC §9): the rows `mcscope compare` prints for the
//! loaded session, computed in the background, sortable by any column; Enter
//! applies a row's setting to the main view. Also the state of the chart view
//! (`C`), which draws the recommended row's context next to the current one.
//! The keys on the panel are the view's (`app::compare`): this module knows
//! nothing of the app.
//!
//! The rows come from `compare::compare_loaded` (the CLI's own grid, sort and
//! recommendation) on a rayon pool of one thread fewer than the machine has cores
//! (at least one), each thread at a lower priority (the TUI's other background
//! threads' `lower_priority`), so the thread that answers keys keeps a core;
//! and it waits while keys arrive (until [`QUIET`] after the last one), so a
//! typing user shares no core with it at all (on two cores that are one
//! physical core's hyper-threads, a lower priority alone is not enough).

use super::background::{BACKGROUND, Current, Job, Lost, lower_priority};
use crate::analysis::Setup;
use crate::compare::{self, Comparison, Row};
use crate::policy::Policy;
use crate::series::Point;
use crate::session::Session;
use std::cmp::Ordering;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

/// How long after the last key the comparison goes on.
pub const QUIET: Duration = Duration::from_millis(150);

/// When the last key was pressed, shared with the comparison's threads.
#[derive(Debug)]
pub struct Typing {
    epoch: Instant,
    /// Milliseconds from `epoch` to the last key, plus one (0: none yet).
    last: AtomicU64,
    /// How long after the last key the computation waits, in milliseconds
    /// ([`QUIET`]; the keystroke benchmark sets 0 to measure the priority alone).
    quiet_ms: AtomicU64,
}

impl Default for Typing {
    fn default() -> Typing {
        Typing {
            epoch: Instant::now(),
            last: AtomicU64::new(0),
            quiet_ms: AtomicU64::new(QUIET.as_millis() as u64),
        }
    }
}

impl Typing {
    pub fn pressed(&self) {
        let ms = self.epoch.elapsed().as_millis() as u64 + 1;
        self.last.store(ms, AtomicOrdering::Relaxed);
    }

    /// How long since the last key (forever when none was pressed).
    pub fn quiet_for(&self) -> Duration {
        match self.last.load(AtomicOrdering::Relaxed) {
            0 => Duration::MAX,
            ms => self
                .epoch
                .elapsed()
                .saturating_sub(Duration::from_millis(ms - 1)),
        }
    }

    /// How long after the last key the computation waits.
    pub fn quiet(&self) -> Duration {
        Duration::from_millis(self.quiet_ms.load(AtomicOrdering::Relaxed))
    }

    pub fn set_quiet(&self, d: Duration) {
        self.quiet_ms
            .store(d.as_millis() as u64, AtomicOrdering::Relaxed);
    }

    /// Blocks until no key came for [`Typing::quiet`].
    pub fn wait_quiet(&self) {
        loop {
            let (quiet, want) = (self.quiet_for(), self.quiet());
            if quiet >= want {
                return;
            }
            std::thread::sleep((want - quiet).min(Duration::from_millis(25)));
        }
    }
}

/// A column of the panel, in `compare::COLUMNS` order, then who can set the
/// row (the CLI's AVAILABLE, SPEC §9a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Column {
    /// The row's place in `compare`'s own order (Δ USD, later used, tokens).
    #[default]
    Rank,
    Setting,
    Fires,
    Cleared,
    NotSent,
    WarmBreaks,
    Rewritten,
    LaterUsed,
    Usd,
    /// Who can set the row: `user`, `remote_flag`, `internal`, `what_if`.
    Available,
}

impl Column {
    pub const ALL: [Column; 10] = [
        Column::Rank,
        Column::Setting,
        Column::Fires,
        Column::Cleared,
        Column::NotSent,
        Column::WarmBreaks,
        Column::Rewritten,
        Column::LaterUsed,
        Column::Usd,
        Column::Available,
    ];

    /// Its position in `compare::COLUMNS` (AVAILABLE follows them).
    pub fn index(self) -> usize {
        Column::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    pub fn title(self) -> &'static str {
        match self {
            // The CLI text's title for the column after Δ USD.
            Column::Available => "AVAILABLE",
            _ => compare::COLUMNS[self.index()],
        }
    }

    pub fn next(self) -> Column {
        Column::ALL[(self.index() + 1) % Column::ALL.len()]
    }

    /// Rows `a` and `b` (indices into `c.rows`) in this column's ascending
    /// order; ties keep `compare`'s order. Unknown dollars sort last.
    fn cmp(self, c: &Comparison, a: usize, b: usize) -> Ordering {
        let (x, y): (&Row, &Row) = (&c.rows[a], &c.rows[b]);
        let (s, t) = (&x.totals, &y.totals);
        let by = match self {
            Column::Rank => Ordering::Equal,
            Column::Setting => compare::row_cells(c, a)[1].cmp(&compare::row_cells(c, b)[1]),
            Column::Fires => s.fires.cmp(&t.fires),
            Column::Cleared => s.cleared_results.cmp(&t.cleared_results),
            Column::NotSent => s.tokens_not_sent.cmp(&t.tokens_not_sent),
            Column::WarmBreaks => s.cache_breaks.cmp(&t.cache_breaks),
            Column::Rewritten => s.tokens_rewritten.cmp(&t.tokens_rewritten),
            Column::LaterUsed => s.later_used.cmp(&t.later_used),
            Column::Usd => match (x.delta_usd, y.delta_usd) {
                (Some(p), Some(q)) => p.total_cmp(&q),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            Column::Available => x.availability.cmp(&y.availability),
        };
        by.then(a.cmp(&b))
    }
}

/// What the background job hands back.
#[derive(Debug)]
pub struct Computed {
    pub comparison: Comparison,
    /// The policy the rows' settings were applied to (Enter applies a row to it).
    pub base: Policy,
    /// The recommended row's per-request points (the chart view).
    pub recommended: Option<Vec<Point>>,
}

/// Where the computation stands.
#[derive(Debug, Default)]
pub enum State {
    /// Not started (the panel was never opened).
    #[default]
    Idle,
    /// Running: settings done of total.
    Computing {
        done: Arc<AtomicU64>,
        total: Arc<AtomicU64>,
    },
    Ready(Box<Computed>),
    Failed(String),
}

/// What the comparison job computes from: the session and its setting, where to
/// count the settings done, and when to pause for the keys.
pub struct CompareInput {
    setup: Setup,
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
    threads: usize,
    typing: Arc<Typing>,
}

/// The comparison, on a rayon pool of `threads` low-priority threads built for
/// each request.
fn compare_job() -> Job<CompareInput, Result<Computed, String>> {
    Job::new("compare", || {
        |input: CompareInput, _: &Current| {
            let CompareInput {
                setup,
                done,
                total,
                threads,
                typing,
            } = input;
            let pause = crate::totals::Pause(Arc::new(move || typing.wait_quiet()));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("{BACKGROUND}compare-{i}"))
                .start_handler(|_| lower_priority())
                .build();
            Some(match pool {
                Ok(pool) => pool.install(|| compute(&setup, &done, &total, Some(pause))),
                Err(e) => Err(format!("no thread pool: {e}")),
            })
        }
    })
}

/// The compare panel's state (kept while the panel is closed: opening it again
/// shows the rows at once).
#[derive(Debug)]
pub struct ComparePanel {
    pub state: State,
    /// The session the rows are for: a followed file that grew is compared again.
    session: Option<Arc<Session>>,
    pub sort: Column,
    pub descending: bool,
    /// The selected line (an index into [`ComparePanel::order`]).
    pub selected: usize,
    /// The threads the computation runs on.
    pub threads: usize,
    /// The last key: the computation waits while keys arrive.
    pub typing: Arc<Typing>,
    job: Job<CompareInput, Result<Computed, String>>,
}

impl Default for ComparePanel {
    fn default() -> ComparePanel {
        ComparePanel {
            state: State::Idle,
            session: None,
            sort: Column::default(),
            descending: false,
            selected: 0,
            threads: 0,
            typing: Default::default(),
            job: compare_job(),
        }
    }
}

/// One fewer than the cores, at least one.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}

/// Every row of the default grid over `setup`'s session, and the recommended
/// row's points; `done`/`total` count the settings as they finish.
pub fn compute(
    setup: &Setup,
    done: &AtomicU64,
    total: &AtomicU64,
    pause: Option<crate::totals::Pause>,
) -> Result<Computed, String> {
    let lists = compare::Lists::default();
    let unused = |_: Session, _: &std::path::Path| -> Result<Setup, String> {
        Err("the compare panel compares the loaded session only".into())
    };
    // One unit per setting of the session's own grid (compare's own total is
    // the larger of the two presets' grids).
    total.store(
        compare::grid(setup.policy.preset, &lists).len() as u64,
        AtomicOrdering::Relaxed,
    );
    let progress = |d: u64, _: u64| done.store(d, AtomicOrdering::Relaxed);
    let req = compare::Request {
        lists: &lists,
        cache_ttl: setup.settings.cache_ttl,
        prices: Default::default(),
        setup: &unused,
        progress: &progress,
        baseline: true,
    };
    let comparison = compare::compare_loaded(setup, &req, pause.clone())?;
    let recommended = match comparison.recommended {
        Some(i) => {
            let mut one = setup.clone();
            one.policy = comparison.rows[i].params.apply(&setup.policy);
            let mut facts = crate::totals::SessionFacts::new(&one.session, one.settings.cache_ttl);
            facts.pause = pause;
            Some(
                crate::series::series(&one, &facts)
                    .map_err(|e| e.to_string())?
                    .points,
            )
        }
        None => None,
    };
    Ok(Computed {
        comparison,
        base: setup.policy.clone(),
        recommended,
    })
}

impl ComparePanel {
    /// Starts computing the rows for `setup`'s session, unless they are (being)
    /// computed for it already.
    pub fn start(&mut self, setup: &Setup) {
        let same = self
            .session
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, &setup.session));
        if same && matches!(self.state, State::Computing { .. } | State::Ready(_)) {
            return;
        }
        self.session = Some(setup.session.clone());
        self.selected = 0;
        self.threads = threads();
        let done = Arc::new(AtomicU64::new(0));
        let total = Arc::new(AtomicU64::new(
            compare::grid(setup.policy.preset, &Default::default()).len() as u64,
        ));
        self.job.request(CompareInput {
            setup: setup.clone(),
            done: done.clone(),
            total: total.clone(),
            threads: self.threads,
            typing: self.typing.clone(),
        });
        self.state = State::Computing { done, total };
    }

    /// A key was pressed: the computation waits until keys stop for [`QUIET`].
    pub fn key_pressed(&self) {
        self.typing.pressed();
    }

    /// Whether the computation is waiting for the keys to stop.
    pub fn waiting_for_keys(&self) -> bool {
        matches!(self.state, State::Computing { .. })
            && self.typing.quiet_for() < self.typing.quiet()
    }

    /// Takes the finished rows; true when something changed.
    pub fn poll(&mut self) -> bool {
        let got = self.job.latest();
        self.arrived(got)
    }

    /// Waits for the rows (tests and benchmarks).
    pub fn wait(&mut self) {
        let got = self.job.wait();
        self.arrived(got);
    }

    fn arrived(&mut self, got: Option<Result<Result<Computed, String>, Lost>>) -> bool {
        if !matches!(self.state, State::Computing { .. }) {
            return false;
        }
        self.state = match got {
            Some(Ok(Ok(c))) => State::Ready(Box::new(c)),
            Some(Ok(Err(e))) => State::Failed(e),
            // The thread could not start, or it ended.
            Some(Err(Lost)) => State::Failed("the comparison stopped: its thread ended".into()),
            None => return false,
        };
        true
    }

    /// Settings done and in all, while computing.
    pub fn progress(&self) -> Option<(u64, u64)> {
        match &self.state {
            State::Computing { done, total, .. } => Some((
                done.load(AtomicOrdering::Relaxed),
                total.load(AtomicOrdering::Relaxed),
            )),
            _ => None,
        }
    }

    pub fn computed(&self) -> Option<&Computed> {
        match &self.state {
            State::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// The rows (indices into the comparison's rows) in the panel's sort order.
    pub fn order(&self) -> Vec<usize> {
        let Some(c) = self.computed() else {
            return Vec::new();
        };
        let c = &c.comparison;
        let mut order: Vec<usize> = (0..c.rows.len()).collect();
        order.sort_by(|&a, &b| {
            let o = self.sort.cmp(c, a, b);
            // The baseline (what happened) leads in every order (SPEC §9a).
            let base = c.rows[b].baseline.cmp(&c.rows[a].baseline);
            base.then(if self.descending { o.reverse() } else { o })
        });
        order
    }

    /// The selected row (an index into the comparison's rows).
    pub fn selected_row(&self) -> Option<usize> {
        self.order().get(self.selected).copied()
    }

    pub fn move_by(&mut self, delta: isize) {
        let n = self.computed().map_or(0, |c| c.comparison.rows.len());
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(n.saturating_sub(1));
    }

    /// Sorts by another column (or direction), keeping the selected row selected.
    pub fn resort(&mut self, f: impl FnOnce(&mut ComparePanel)) {
        let row = self.selected_row();
        f(self);
        if let Some(row) = row {
            self.selected = self.order().iter().position(|&r| r == row).unwrap_or(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PlanKind;
    use crate::session::HarnessId;
    use crate::totals::Totals;

    fn row(keep: u32, fires: u64, usd: Option<f64>) -> Row {
        let mut r = Row::new(compare::Params {
            values: vec![("keep_recent", crate::config::KeyValue::U32(keep))],
            ..compare::Params::of_kind(HarnessId::Claude, PlanKind::Idle)
        });
        r.totals = Totals {
            fires,
            ..Default::default()
        };
        r.delta_usd = usd;
        r
    }

    fn panel(rows: Vec<Row>) -> ComparePanel {
        ComparePanel {
            state: State::Ready(Box::new(Computed {
                comparison: Comparison {
                    rows,
                    ..Default::default()
                },
                base: Policy::preset(HarnessId::Claude),
                recommended: None,
            })),
            ..Default::default()
        }
    }

    #[test]
    fn the_computation_waits_until_keys_stop() {
        let t = Typing::default();
        assert_eq!(t.quiet_for(), Duration::MAX, "no key yet: no wait");
        let start = Instant::now();
        t.wait_quiet();
        assert!(start.elapsed() < QUIET);
        t.pressed();
        assert!(t.quiet_for() < QUIET);
        let start = Instant::now();
        t.wait_quiet();
        // It returned only once QUIET had passed since the key.
        assert!(start.elapsed() >= QUIET - Duration::from_millis(2));
        assert!(t.quiet_for() >= QUIET);
    }

    #[test]
    fn sorting_by_a_column_and_reversing_it_keeps_the_selected_row() {
        // Rows in compare's order: fires 3, 1, 2; dollars -1, unknown, -3.
        let mut p = panel(vec![
            row(1, 3, Some(-1.0)),
            row(2, 1, None),
            row(3, 2, Some(-3.0)),
        ]);
        assert_eq!(p.order(), vec![0, 1, 2]);
        p.selected = 1; // row 1
        p.resort(|p| p.sort = Column::Fires);
        // By fires ascending: 1 (row 1), 2 (row 2), 3 (row 0).
        assert_eq!(p.order(), vec![1, 2, 0]);
        assert_eq!(p.selected_row(), Some(1));
        p.resort(|p| p.descending = true);
        assert_eq!(p.order(), vec![0, 2, 1]);
        assert_eq!(p.selected_row(), Some(1));
        // Dollars ascending: -3, -1, unknown last.
        p.resort(|p| {
            p.sort = Column::Usd;
            p.descending = false;
        });
        assert_eq!(p.order(), vec![2, 0, 1]);
        // Who can set it: the user's rows first, internal builds' last.
        if let State::Ready(c) = &mut p.state {
            use compare::Availability;
            let who = [
                Availability::Internal,
                Availability::User,
                Availability::RemoteFlag,
            ];
            for (r, a) in c.comparison.rows.iter_mut().zip(who) {
                r.availability = Some(a);
            }
        }
        p.resort(|p| p.sort = Column::Available);
        assert_eq!(p.order(), vec![1, 2, 0]);
        assert_eq!(Column::Available.title(), "AVAILABLE");
        // S walks the columns and comes back to the rank.
        let mut c = Column::Rank;
        for _ in 0..Column::ALL.len() {
            c = c.next();
        }
        assert_eq!(c, Column::Rank);
    }
}
