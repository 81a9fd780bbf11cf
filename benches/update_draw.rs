//! The TUI's update + draw path, by criterion: a step to the next request and a
//! change of keep_recent, each followed by a full redraw on a 200x50 TestBackend.
//! (Percentiles over 1,000 keystrokes on a big session: `benches/keystrokes.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test and bench code: a failed unwrap is a failed run

use criterion::{Criterion, criterion_group, criterion_main};
use mcscope::cli::{self, Opts};
use mcscope::tui::app::App;
use mcscope::tui::keymap::Action;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn bench(c: &mut Criterion) {
    for path in [
        "sample-sessions/claude-size.jsonl",
        "sample-sessions/qwen-memory/session.jsonl",
    ] {
        let setup = cli::setup(path.as_ref(), &Opts::default()).unwrap();
        let mut app = App::session(setup);
        let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
        let theme = Theme::new(true);
        let name = path.rsplit('/').next().unwrap_or(path);
        let mut back = false;
        c.bench_function(&format!("step+draw {name}"), |b| {
            b.iter(|| {
                back = !back;
                app.update(if back {
                    Action::PrevRequest
                } else {
                    Action::NextRequest
                });
                term.draw(|f| ui::draw(f, &app, theme)).unwrap();
            })
        });
        let mut more = false;
        c.bench_function(&format!("tune+draw {name}"), |b| {
            b.iter(|| {
                more = !more;
                app.update(if more {
                    Action::KeepMore
                } else {
                    Action::KeepLess
                });
                term.draw(|f| ui::draw(f, &app, theme)).unwrap();
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
