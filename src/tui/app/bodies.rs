//! The request's bodies, printed and diffed: here for small requests, on the
//! diff worker for big ones.

use super::*;

/// A request's bodies, printed and diffed, with the tokens the plan needs from
/// them: what the diff worker hands back.
pub(super) struct Drawn {
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
pub(super) fn draw_bodies(
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

/// A big request's bodies to build, print and diff on the diff worker.
pub(super) struct DiffJob {
    session: Arc<Session>,
    /// Where the plan says the cache prefix breaks (for `tokens_after_break`).
    broken_at: Option<usize>,
    inputs: WireInputs,
    /// The diff this job replaces, freed by the worker (two big texts to unmap,
    /// off the thread that answers keys).
    replaced: Diff,
}

/// The diff worker: builds, prints and diffs big requests, newest only (a job
/// that a newer one replaced before it started is dropped, so jobs never pile
/// up), at a lower priority than the keystrokes.
pub(super) fn diff_job() -> Job<DiffJob, Drawn> {
    Job::new("diff", || {
        // The records of the view last shown, for the session they came from.
        let mut cache = crate::wire::MessageCache::default();
        let mut cached_for: Option<Arc<Session>> = None;
        move |job: DiffJob, _: &Current| {
            let DiffJob {
                session,
                broken_at,
                inputs,
                replaced,
            } = job;
            drop(replaced);
            if !cached_for
                .as_ref()
                .is_some_and(|s| Arc::ptr_eq(s, &session))
            {
                cache = Default::default();
                cached_for = Some(session.clone());
            }
            Some(draw_bodies(&session, broken_at, &inputs, &mut cache))
        }
    })
}

impl SessionView {
    /// The bytes of the records the current request sends.
    pub(super) fn view_bytes(&self) -> usize {
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

    pub(super) fn start_diff(&mut self, inputs: WireInputs) {
        self.diff_job.request(DiffJob {
            session: self.setup.session.clone(),
            broken_at: self.plan.cache.prefix_broken_at_message,
            inputs,
            replaced: std::mem::take(&mut self.diff),
        });
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
        self.diff_job.is_pending()
    }

    pub(super) fn take_drawn(&mut self, drawn: Drawn) {
        self.diff = drawn.diff;
        if let Some(t) = drawn.tokens {
            self.plan.cache.tokens_after_break = t;
        }
    }

    pub(super) fn install_diff(&mut self, drawn: Drawn) {
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
    pub(super) fn take_diff(&mut self, wait: bool) -> bool {
        let got = if wait {
            self.diff_job.wait()
        } else {
            self.diff_job.latest()
        };
        match got {
            Some(Ok(drawn)) => self.install_diff(drawn),
            Some(Err(Lost)) => self.worker_lost(),
            None => return false,
        }
        true
    }

    /// The diff worker is gone (it panicked): say so where the diff goes, and
    /// start a new one with the next big request.
    pub(super) fn worker_lost(&mut self) {
        self.install_diff(Drawn::message(
            "the diff could not be computed: its worker thread stopped".into(),
        ));
        self.status = Some("the background diff stopped; step again to retry".into());
    }

    /// Waits for the background jobs (tests and benchmarks).
    pub fn wait_background(&mut self) {
        self.take_diff(true);
        self.wait_timeline();
        let _ = self.warm_job.wait();
    }
}
