//! Keystroke latency of the TUI: 1,000 actions (step, tune, switch plan), each
//! followed by a full redraw on a 200x50 TestBackend, with p50 / p99 / max.
//! Criterion reports no percentiles, so this is a plain timing loop (harness = false).
//!
//! `cargo bench --bench keystrokes -- PATH` (default: the bundled size sample).

use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap::Action;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "sample-sessions/claude-size.jsonl".into());
    let t0 = Instant::now();
    let setup = cli::setup(path.as_ref(), &Opts::default()).expect("load");
    let loaded = t0.elapsed();
    let mut app = App::session(setup);
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let theme = Theme { color: true };
    term.draw(|f| ui::draw(f, &app, theme)).unwrap();
    let first = t0.elapsed();
    // A realistic mix: mostly stepping, with tuning and plan switches.
    let script = [
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
    let mut times: Vec<Duration> = Vec::with_capacity(1000);
    let mut by_kind: std::collections::BTreeMap<String, Vec<Duration>> = Default::default();
    for i in 0..1000 {
        let a = script[i % script.len()];
        let t = Instant::now();
        app.update(a);
        term.draw(|f| ui::draw(f, &app, theme)).unwrap();
        let d = t.elapsed();
        if std::env::var_os("MCSCOPE_BENCH_SLOW").is_some() && d.as_millis() >= 16 {
            eprintln!(
                "slow: {a:?} at request {} took {d:?}",
                app.view().map_or(0, |v| v.k)
            );
        }
        times.push(d);
        by_kind.entry(format!("{a:?}")).or_default().push(d);
    }
    let pct = |v: &mut Vec<Duration>, p: f64| {
        v.sort();
        v[((v.len() as f64 - 1.0) * p).round() as usize]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("session: {path}");
    println!("load {:.0} ms, first frame {:.0} ms", ms(loaded), ms(first));
    let (p50, p99) = (pct(&mut times, 0.50), pct(&mut times, 0.99));
    println!(
        "1000 actions + redraw at 200x50: p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        ms(p50),
        ms(p99),
        ms(*times.last().unwrap())
    );
    for (k, mut v) in by_kind {
        let (p50, p99) = (pct(&mut v, 0.5), pct(&mut v, 0.99));
        println!(
            "  {k:<12} n={:<4} p50 {:.2} ms  p99 {:.2} ms",
            v.len(),
            ms(p50),
            ms(p99)
        );
    }
}
