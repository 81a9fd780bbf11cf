//! Engine states saved along the replays behind the TUI's plans, so that the plan
//! at a request resumes from a state near it instead of replaying its view from
//! the start (one turn of 3,000 tool calls is one view of 3,000 requests).
//!
//! A plan at request k runs the engine quietly (state only) from the first
//! request of k's view up to k - 2, then reports k - 1 and k. The state after the
//! quiet steps up to c - 1 is the same for every k > c under the same policy and
//! the same start, since `forced` acts only at k: that state is what is saved,
//! at requests that are multiples of [`EVERY`], and only on replays longer than
//! that. States are kept per policy, so stepping back and forth, and tuning a
//! value and back, reuse them; a policy never planned before replays once.

use super::Setup;
use crate::policy::Policy;
use crate::policy::engine::Engine;
use crate::session::Session;
use self_cell::self_cell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Requests between two saved states: a plan replays at most this many quiet
/// steps past the state it resumes from.
pub(super) const EVERY: usize = 64;

/// States kept at once (the oldest used goes first). A state holds its view's
/// candidates, so this bounds the memory to about that many views.
pub(super) const KEPT: usize = 48;

/// And at most about this many bytes in all: a state also holds tables sized to
/// the whole session (a 200 MB session's are megabytes each).
pub(super) const BUDGET: usize = 64 << 20;

struct Saved<'s> {
    policy: Policy,
    /// The request the run started at (the view's first, `Setup::first_for`).
    first: usize,
    /// The request the state evaluates next.
    next: usize,
    /// `Engine::approx_bytes` of the copy.
    bytes: usize,
    engine: Engine<'s>,
}

/// The saved states, most recently used last.
struct States<'s>(VecDeque<Saved<'s>>);

self_cell!(
    struct Cell {
        owner: Arc<Session>,
        #[not_covariant]
        dependent: States,
    }
);

/// Saved engine states shared by a setup and its clones; off by default (a
/// one-shot CLI plan would only pay for copies it never reads back).
#[derive(Clone, Default)]
pub struct Checkpoints(Option<Arc<Mutex<Inner>>>);

struct Inner {
    cell: Option<Cell>,
    /// The bytes the states may hold in all ([`BUDGET`]).
    budget: usize,
    /// Plans that resumed from a saved state.
    resumed: usize,
}

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Checkpoints(on)"
        } else {
            "Checkpoints(off)"
        })
    }
}

impl Checkpoints {
    /// Checkpoints that save and resume (the TUI's).
    pub fn on() -> Checkpoints {
        Checkpoints::with_budget(BUDGET)
    }

    /// Checkpoints whose states hold at most about `budget` bytes in all.
    pub fn with_budget(budget: usize) -> Checkpoints {
        Checkpoints(Some(Arc::new(Mutex::new(Inner {
            cell: None,
            budget,
            resumed: 0,
        }))))
    }

    /// How many plans resumed from a saved state so far.
    pub fn resumed(&self) -> usize {
        self.0
            .as_ref()
            .map_or(0, |m| m.lock().unwrap_or_else(|e| e.into_inner()).resumed)
    }

    /// How many states are saved now (for tests and benchmarks).
    pub fn len(&self) -> usize {
        let Some(m) = &self.0 else { return 0 };
        let guard = m.lock().unwrap_or_else(|e| e.into_inner());
        guard
            .cell
            .as_ref()
            .map_or(0, |c| c.with_dependent(|_, states| states.0.len()))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` with the engine for request `k` of `setup` (k >= 1) standing at
    /// request k - 1 at the latest: a saved state when one fits, else a new
    /// engine at the start of k's view. `f` gets a `save` hook that the quiet
    /// replay calls after each step.
    pub(super) fn with_engine<T>(
        &self,
        setup: &Setup,
        k: usize,
        f: impl for<'s> FnOnce(&'s Session, Engine<'s>, &mut dyn FnMut(&Engine<'s>)) -> T,
    ) -> T {
        let first = setup.first_for(k);
        let Some(m) = &self.0 else {
            let engine = setup.engine(k).starting_at(first);
            return f(&setup.session, engine, &mut |_| {});
        };
        let mut guard = m.lock().unwrap_or_else(|e| e.into_inner());
        let inner = &mut *guard;
        // A new session (a followed file that grew): its states start over.
        if inner
            .cell
            .as_ref()
            .is_some_and(|c| !Arc::ptr_eq(c.borrow_owner(), &setup.session))
        {
            inner.cell = None;
        }
        let (resumed, budget) = (&mut inner.resumed, inner.budget);
        let cell = inner
            .cell
            .get_or_insert_with(|| Cell::new(setup.session.clone(), |_| States(VecDeque::new())));
        cell.with_dependent_mut(|session, states| {
            let found = states
                .0
                .iter()
                .enumerate()
                .filter(|(_, x)| {
                    x.first == first && x.next < k && x.next > first && x.policy == setup.policy
                })
                .max_by_key(|(_, x)| x.next)
                .map(|(i, _)| i);
            let engine = match found.and_then(|i| states.0.remove(i)) {
                Some(hit) => {
                    let engine = hit.engine.clone().resumed_for(k);
                    *resumed += 1;
                    // Most recently used last: it is evicted last.
                    states.0.push_back(hit);
                    engine
                }
                None => Engine::new(
                    session,
                    &setup.derived,
                    setup.policy.clone(),
                    setup.protector(),
                    k,
                )
                .starting_at(first),
            };
            f(session, engine, &mut |e| {
                save(states, e, setup, (first, k), budget)
            })
        })
    }
}

/// Saves `e`'s state when it is one worth keeping for later plans of `k`'s view.
fn save<'s>(
    states: &mut States<'s>,
    e: &Engine<'s>,
    setup: &Setup,
    (first, k): (usize, usize),
    budget: usize,
) {
    let next = e.next_request();
    // Only quiet states (k - 1 is reported), at the multiples of EVERY in the
    // last two spans before k (a step back or forth, a tune and back land near),
    // once each: a copy costs a view.
    if !next.is_multiple_of(EVERY) || next + 1 > k || next + 2 * EVERY < k || next <= first {
        return;
    }
    if states
        .0
        .iter()
        .any(|x| x.next == next && x.first == first && x.policy == setup.policy)
    {
        return;
    }
    let bytes = e.approx_bytes();
    if bytes > budget / 2 {
        return;
    }
    while states.0.len() >= KEPT || states.0.iter().map(|x| x.bytes).sum::<usize>() + bytes > budget
    {
        states.0.pop_front();
    }
    states.0.push_back(Saved {
        policy: setup.policy.clone(),
        first,
        next,
        bytes,
        engine: e.clone(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PlanKind;
    use crate::policy::engine::testkit::Transcript;

    impl Checkpoints {
        /// The bytes the saved states hold.
        fn bytes(&self) -> usize {
            let Some(m) = &self.0 else { return 0 };
            let guard = m.lock().unwrap_or_else(|e| e.into_inner());
            guard.cell.as_ref().map_or(0, |c| {
                c.with_dependent(|_, states| states.0.iter().map(|x| x.bytes).sum())
            })
        }
    }

    /// One 300-call turn under idle, with checkpoints of `budget`.
    fn setup(budget: usize) -> Setup {
        let mut t = Transcript::new();
        t.prompt(0);
        for i in 0..300 {
            t.call(&format!("t{i}"), "Read", 500, 1000);
        }
        let (mut setup, _) = t.plan(PlanKind::Idle, |_| {});
        setup.checkpoints = Checkpoints::with_budget(budget);
        setup
    }

    #[test]
    fn the_states_stay_within_their_budget() {
        // Room for all: the two spans before the last request are saved.
        let s = setup(BUDGET);
        let n = s.last_request();
        crate::analysis::plan_and_inputs(&s, n).unwrap();
        assert_eq!(s.checkpoints.len(), 2);
        let two = s.checkpoints.bytes();
        assert!(two > 2 * 192 * size_of::<crate::policy::engine::Candidate>());

        // Room for 1.75 times those two: a second policy's two push the oldest out.
        let mut s = setup(two * 7 / 4);
        crate::analysis::plan_and_inputs(&s, n).unwrap();
        s.policy.keep_recent = Some(9);
        crate::analysis::plan_and_inputs(&s, n).unwrap();
        assert_eq!(s.checkpoints.len(), 3);
        assert!(s.checkpoints.bytes() <= two * 7 / 4);

        // A state over half the budget is not worth a copy.
        let s = setup(two / 2);
        crate::analysis::plan_and_inputs(&s, n).unwrap();
        assert_eq!(s.checkpoints.len(), 0);
    }
}
