//! Keystroke latency of the TUI: 1,000 actions (step, tune, switch plan), each
//! followed by a full redraw on a 200x50 TestBackend, with p50 / p99 / max.
//! Criterion reports no percentiles, so this is a plain timing loop (harness = false).
//!
//! 250 actions at each of four places in the session (the end, 3/4, 1/2, 1/4).
//! Two passes over the same script, as the event loop runs them (action, take
//! finished background work, draw):
//! - back to back: the next key comes at once (a held-down key);
//! - paced: the next key comes after the background diff of big requests has
//!   arrived; the frame that installs it (take + redraw) is timed on its own,
//!   since a key pressed meanwhile waits for it too.
//!
//! - while the compare panel computes: `c` opens the panel and Esc closes it at
//!   the start, so its rows are computed in the background (on cores − 1
//!   low-priority threads) while the back-to-back script runs; only the keys
//!   pressed while it is still computing are counted. It waits while keys
//!   arrive, so back-to-back keys hold it still: a fourth pass sets that wait
//!   to 0, so it computes all along, at its lower priority alone.
//!
//! - right after opening: `p` three times before the background work of the
//!   opening is done (the facts idle-server and api read are computed on a
//!   worker when the view opens; a key that needs them sooner waits).
//!
//! `cargo bench --bench keystrokes -- PATH` (default: the bundled size sample).
//! `MCSCOPE_BENCH_SLOW=1` prints every frame of 16 ms or more.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test and bench code: a failed unwrap is a failed run

use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap::Action;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

// A realistic mix: mostly stepping, with tuning and plan switches.
const SCRIPT: [Action; 10] = [
    Action::PrevRequest,
    Action::PrevRequest,
    Action::KeepMore,
    Action::NextRequest,
    Action::CyclePlan,
    Action::PrevRequest,
    Action::KeepLess,
    Action::GapDown,
    Action::NextRequest,
    Action::GapUp,
];

struct Run {
    /// Action + take background work + redraw.
    keys: Vec<Duration>,
    by_kind: BTreeMap<String, Vec<Duration>>,
    /// Take an arrived background diff + redraw (paced pass only).
    installs: Vec<Duration>,
    /// From the key to the background diff on screen (paced pass only).
    shown: Vec<Duration>,
    /// The compare panel's settings done and in all when the last key was timed.
    compare: Option<(u64, u64)>,
}

fn run(path: &str, paced: bool, compare: Option<Duration>) -> Run {
    let setup = cli::setup(path.as_ref(), &Opts::default()).expect("load");
    let mut app = App::session(setup);
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let theme = Theme::new(true);
    term.draw(|f| ui::draw(f, &app, theme)).unwrap();
    let slow = std::env::var_os("MCSCOPE_BENCH_SLOW").is_some();
    let mut out = Run {
        keys: Vec::with_capacity(1000),
        by_kind: BTreeMap::new(),
        installs: Vec::new(),
        shown: Vec::new(),
        compare: None,
    };
    if let Some(quiet) = compare {
        if let Some(v) = app.view() {
            v.compare.typing.set_quiet(quiet);
        }
        app.update(Action::ComparePanel);
        app.update(Action::Back);
    }
    let n = app.view().map_or(0, |v| v.setup.session.requests.len());
    for i in 0..1000 {
        // 250 actions at each of four places: the end, 3/4, 1/2 and 1/4 of the way.
        if i % 250 == 0
            && let Some(v) = app.view_mut()
        {
            let (kind, delivery) = (v.policy().kind, v.policy().delivery);
            v.set_plan(kind, delivery, (n * (4 - i / 250) / 4).max(1));
            v.wait_background();
            term.draw(|f| ui::draw(f, &app, theme)).unwrap();
        }
        let a = SCRIPT[i % SCRIPT.len()];
        let t = Instant::now();
        app.update(a);
        if let Some(v) = app.view_mut() {
            v.poll_background();
        }
        term.draw(|f| ui::draw(f, &app, theme)).unwrap();
        let d = t.elapsed();
        if slow && d.as_millis() >= 16 {
            let k = app.view().map_or(0, |v| v.k);
            eprintln!("slow: {a:?} at request {k} took {d:?}");
        }
        if compare.is_some() {
            match app.view().and_then(|v| v.compare.progress()) {
                Some(p) => out.compare = Some(p),
                // The rows arrived: the keys from here on are not under load.
                None => continue,
            }
        }
        out.keys.push(d);
        out.by_kind.entry(format!("{a:?}")).or_default().push(d);
        if paced {
            let start = t;
            while app.view().is_some_and(|v| v.diff_pending()) {
                let t = Instant::now();
                let arrived = app.view_mut().is_some_and(|v| v.poll_background());
                if arrived && !app.view().is_some_and(|v| v.diff_pending()) {
                    term.draw(|f| ui::draw(f, &app, theme)).unwrap();
                    let d = t.elapsed();
                    if slow && d.as_millis() >= 16 {
                        let k = app.view().map_or(0, |v| v.k);
                        eprintln!("slow: diff arrival at request {k} took {d:?}");
                    }
                    out.installs.push(d);
                    out.shown.push(start.elapsed());
                } else {
                    std::thread::sleep(Duration::from_micros(500));
                }
            }
        }
    }
    out
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn line(label: &str, v: &mut [Duration]) -> String {
    if v.is_empty() {
        return format!("{label}: none");
    }
    let (p50, p99) = (pct(v, 0.50), pct(v, 0.99));
    format!(
        "{label}: n={} p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        v.len(),
        ms(p50),
        ms(p99),
        ms(*v.last().unwrap())
    )
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "sample-sessions/claude-size.jsonl".into());
    let t0 = Instant::now();
    let setup = cli::setup(path.as_ref(), &Opts::default()).expect("load");
    let loaded = t0.elapsed();
    drop(setup);
    println!("session: {path}");
    println!("load {:.0} ms", ms(loaded));
    {
        let setup = cli::setup(path.as_ref(), &Opts::default()).expect("load");
        let mut app = App::session(setup);
        let opened = Instant::now();
        for _ in 0..3 {
            let t = Instant::now();
            app.update(Action::CyclePlan);
            let kind = app.view().map(|v| v.policy().kind);
            println!(
                "right after opening: p to {kind:?} at {:.0} ms took {:.2} ms",
                ms(t.duration_since(opened)),
                ms(t.elapsed())
            );
        }
    }
    for (name, paced, compare) in [
        ("back to back", false, None),
        ("paced", true, None),
        (
            "while the compare panel computes",
            false,
            Some(mcscope::tui::compare_panel::QUIET),
        ),
        (
            "while the compare panel computes, not waiting for the keys",
            false,
            Some(Duration::ZERO),
        ),
    ] {
        let mut r = run(&path, paced, compare);
        if let Some((done, total)) = r.compare {
            println!(
                "{name}: {} keys timed while the panel computed ({done}/{total} settings done by the last one)",
                r.keys.len()
            );
        }
        println!(
            "{}",
            line(
                &format!("{name}: {} actions + redraw at 200x50", r.keys.len()),
                &mut r.keys
            )
        );
        for (k, v) in &mut r.by_kind {
            println!("  {}", line(&format!("{k:<12}"), v));
        }
        if paced {
            println!(
                "  {}",
                line("background diff arrival + redraw", &mut r.installs)
            );
            println!(
                "  {}",
                line("key to background diff on screen", &mut r.shown)
            );
        }
    }
}
