//! The TUI's background work: one worker thread per [`Job`], newest request
//! only, at a lower priority than the thread that answers keys.
//!
//! `request(input)` hands the worker an input (an older one it has not started
//! is dropped, so requests never pile up); `latest()` takes the output of the
//! newest request once it has arrived; `is_pending()` says one is on its way. A
//! worker can ask [`Current::still`] whether its request is still the newest and
//! stop early. A worker that panics is reported once as [`Lost`]; the next
//! request starts a new one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};

/// The name prefix of the TUI's background threads (their panics leave the
/// terminal to the UI).
pub const BACKGROUND: &str = "mcscope-bg-";

/// Background work (the diff worker, the footer's timeline, the compare panel)
/// yields the cores to the thread that answers keystrokes.
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's own id only changes its nice value.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// Whether the request a worker is computing is still the newest.
pub(crate) struct Current {
    generation: u64,
    newest: Arc<AtomicU64>,
}

impl Current {
    /// False once a newer request came: the work is pointless, stop early.
    pub(crate) fn still(&self) -> bool {
        self.newest.load(Ordering::Relaxed) == self.generation
    }
}

/// The worker thread stopped (it panicked, or could not start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lost;

/// What one worker thread runs: an input to an output (None: it stopped early).
type Work<In, Out> = Box<dyn FnMut(In, &Current) -> Option<Out> + Send>;

/// Makes a worker's function, once per thread (its state, e.g. a cache, lives
/// in the closure and is fresh after a lost worker).
type Make<In, Out> = Arc<dyn Fn() -> Work<In, Out> + Send + Sync>;

/// A background job: a worker thread started at the first request.
pub(crate) struct Job<In, Out> {
    name: &'static str,
    make: Make<In, Out>,
    worker: Option<Worker<In, Out>>,
    /// The generation of the newest request, shared with the worker.
    newest: Arc<AtomicU64>,
    /// The generation whose output is awaited.
    pending: Option<u64>,
}

impl<In, Out> std::fmt::Debug for Job<In, Out> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("name", &self.name)
            .field("pending", &self.pending)
            .finish()
    }
}

/// What the worker thread is handed: a request, or something to drop.
enum Msg<In> {
    Request(u64, In),
    /// An earlier output the TUI replaced (see [`Job::discard`]): receiving
    /// it is dropping it.
    Discard {
        _old: Box<dyn Send>,
    },
}

struct Worker<In, Out> {
    jobs: Sender<Msg<In>>,
    done: Receiver<(u64, Out)>,
}

impl<In: Send + 'static, Out: Send + 'static> Job<In, Out> {
    /// A job whose threads are named `mcscope-bg-{name}` and run `make()`'s
    /// function on every request.
    pub(crate) fn new<W>(
        name: &'static str,
        make: impl Fn() -> W + Send + Sync + 'static,
    ) -> Job<In, Out>
    where
        W: FnMut(In, &Current) -> Option<Out> + Send + 'static,
    {
        Job {
            name,
            make: Arc::new(move || Box::new(make()) as Work<In, Out>),
            worker: None,
            newest: Default::default(),
            pending: None,
        }
    }

    /// Hands `input` to the worker; the output of any earlier request will not be
    /// returned.
    pub(crate) fn request(&mut self, input: In) {
        let generation = self.newest.load(Ordering::Relaxed) + 1;
        self.newest.store(generation, Ordering::Relaxed);
        self.pending = Some(generation);
        let worker = self
            .worker
            .get_or_insert_with(|| spawn(self.name, self.make.clone(), self.newest.clone()));
        // A worker that is gone drops its receiver: `latest` reports it.
        let _ = worker.jobs.send(Msg::Request(generation, input));
    }

    /// Drops `old` (what the TUI keeps of an earlier output and replaces) on
    /// the worker thread, which allocated it: freeing a block another thread
    /// allocated takes that thread's allocator lock, block by block, and the
    /// worker is then allocating for the newest request. Without a worker it
    /// is dropped here.
    pub(crate) fn discard<T: Send + 'static>(&self, old: T) {
        if let Some(worker) = &self.worker {
            // A worker that is gone hands `old` back in the error: dropped here.
            let _ = worker.jobs.send(Msg::Discard {
                _old: Box::new(old),
            });
        }
    }

    /// Whether the newest request's output is on its way.
    pub(crate) fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Forgets the newest request: its output, when it comes, is not returned
    /// (the worker sees it replaced: one that asks stops early, and what it
    /// made is dropped there).
    pub(crate) fn forget(&mut self) {
        if self.pending.take().is_some() {
            self.newest.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The newest request's output once it has arrived (once), or the worker lost.
    pub(crate) fn latest(&mut self) -> Option<Result<Out, Lost>> {
        self.take(false)
    }

    /// Waits for the newest request's output (tests, benchmarks, and what needs
    /// it now); None when nothing is pending.
    pub(crate) fn wait(&mut self) -> Option<Result<Out, Lost>> {
        self.take(true)
    }

    fn take(&mut self, block: bool) -> Option<Result<Out, Lost>> {
        let awaited = self.pending?;
        let Some(worker) = &self.worker else {
            self.pending = None;
            return Some(Err(Lost));
        };
        loop {
            let next = if block {
                worker.done.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                worker.done.try_recv()
            };
            match next {
                Ok((g, out)) if g == awaited => {
                    self.pending = None;
                    return Some(Ok(out));
                }
                // An output for a request replaced meanwhile.
                Ok(_) => {}
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    self.pending = None;
                    self.worker = None;
                    return Some(Err(Lost));
                }
            }
        }
    }
}

fn spawn<In: Send + 'static, Out: Send + 'static>(
    name: &str,
    make: Make<In, Out>,
    newest: Arc<AtomicU64>,
) -> Worker<In, Out> {
    let (jobs, job_rx) = std::sync::mpsc::channel::<Msg<In>>();
    let (done_tx, done) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("{BACKGROUND}{name}"))
        .spawn(move || {
            lower_priority();
            let mut work = make();
            while let Ok(msg) = job_rx.recv() {
                let Msg::Request(mut generation, mut input) = msg else {
                    continue;
                };
                // Newest only: the inputs a newer one replaced are dropped here,
                // off the thread that answers keys (and so are discarded outputs).
                while let Ok(newer) = job_rx.try_recv() {
                    if let Msg::Request(g, i) = newer {
                        (generation, input) = (g, i);
                    }
                }
                let current = Current {
                    generation,
                    newest: newest.clone(),
                };
                let Some(out) = work(input, &current) else {
                    continue;
                };
                // An output a newer request replaced while it was computed is
                // dropped here: the thread that answers keys would throw it
                // away too, and freeing what another thread allocated (a whole
                // timeline's marks, evidence and per-request totals) takes that
                // thread's allocator lock at every block, while it allocates
                // for the newer request.
                if !current.still() {
                    continue;
                }
                if done_tx.send((generation, out)).is_err() {
                    return;
                }
            }
        });
    // A thread that cannot start drops its channels: `latest` says it is lost.
    drop(spawned);
    Worker { jobs, done }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn only_the_newest_request_is_returned() {
        // The worker doubles its input; a gate holds it on the first request.
        let (gate_tx, gate_rx) = channel::<()>();
        let gate = std::sync::Mutex::new(Some(gate_rx));
        let mut job: Job<u32, u32> = Job::new("test-newest", move || {
            let gate = gate.lock().unwrap().take();
            move |n, _: &Current| {
                if let Some(g) = &gate {
                    let _ = g.recv();
                }
                Some(n * 2)
            }
        });
        assert!(!job.is_pending());
        assert_eq!(job.latest(), None, "nothing requested: nothing to take");
        job.request(1);
        job.request(2);
        job.request(3);
        assert!(job.is_pending());
        gate_tx.send(()).unwrap();
        gate_tx.send(()).unwrap();
        drop(gate_tx);
        // Whatever the worker computed for 1 (or 2), only 3's output comes back.
        assert_eq!(job.wait(), Some(Ok(6)));
        assert!(!job.is_pending());
        assert_eq!(job.latest(), None, "taken once");
    }

    #[test]
    fn a_worker_sees_when_its_request_is_replaced() {
        let (started_tx, started) = channel::<()>();
        let (go_tx, go) = channel::<()>();
        let pair = std::sync::Mutex::new(Some((started_tx, go)));
        let mut job: Job<u32, bool> = Job::new("test-current", move || {
            let pair = pair.lock().unwrap().take();
            move |n, current: &Current| {
                if let (Some((s, g)), 1) = (&pair, n) {
                    let _ = s.send(());
                    let _ = g.recv();
                }
                Some(current.still())
            }
        });
        job.request(1);
        started.recv().unwrap();
        job.forget();
        job.request(2);
        go_tx.send(()).unwrap();
        // Request 1 saw it was replaced (its output is dropped); 2 was current.
        assert_eq!(job.wait(), Some(Ok(true)));
    }

    /// Says which thread dropped it.
    struct Dropped(std::sync::mpsc::Sender<Option<String>>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self
                .0
                .send(std::thread::current().name().map(str::to_string));
        }
    }

    #[test]
    fn a_replaced_output_is_dropped_on_the_worker() {
        let (started_tx, started) = channel::<()>();
        let (go_tx, go) = channel::<()>();
        let (dropped_tx, dropped) = channel();
        let state = std::sync::Mutex::new(Some((started_tx, go, dropped_tx)));
        let mut job: Job<u32, Option<Dropped>> = Job::new("test-replaced", move || {
            let state = state.lock().unwrap().take();
            move |n, _: &Current| match (&state, n) {
                (Some((s, g, d)), 1) => {
                    let _ = s.send(());
                    let _ = g.recv();
                    Some(Some(Dropped(d.clone())))
                }
                _ => Some(None),
            }
        });
        job.request(1);
        started.recv().unwrap();
        job.request(2);
        go_tx.send(()).unwrap();
        assert!(matches!(job.wait(), Some(Ok(None))));
        // Request 1's output was made after 2 replaced it: the worker dropped it.
        assert_eq!(
            dropped.recv().unwrap().as_deref(),
            Some("mcscope-bg-test-replaced")
        );
    }

    #[test]
    fn what_the_tui_discards_is_dropped_on_the_worker() {
        let mut job: Job<u32, u32> = Job::new("test-discard", || |n, _: &Current| Some(n));
        let (tx, rx) = channel();
        // No worker yet: dropped at once, here.
        job.discard(Dropped(tx.clone()));
        assert_eq!(
            rx.recv().unwrap(),
            std::thread::current().name().map(str::to_string)
        );
        job.request(1);
        assert_eq!(job.wait(), Some(Ok(1)));
        job.discard(Dropped(tx));
        assert_eq!(
            rx.recv().unwrap().as_deref(),
            Some("mcscope-bg-test-discard")
        );
    }

    #[test]
    fn a_worker_that_panics_is_lost_once_and_the_next_request_starts_another() {
        let mut job: Job<u32, u32> = Job::new("test-lost", || {
            |n, _: &Current| {
                assert!(n != 0, "zero");
                Some(n)
            }
        });
        job.request(0);
        assert_eq!(job.wait(), Some(Err(Lost)));
        assert!(!job.is_pending());
        assert_eq!(job.wait(), None);
        job.request(5);
        assert_eq!(job.wait(), Some(Ok(5)));
    }
}
