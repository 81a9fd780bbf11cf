//! Work off the key loop: a growing file followed, big requests diffed and counted, redraws.

use super::*;

#[test]
fn following_a_growing_file_keeps_the_place_and_the_parameters() {
    use std::io::Write;
    let t = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(sample(DEMO)).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let path = t.path().join("live.jsonl");
    // All but the last two records (the last prompt's answer comes later).
    std::fs::write(&path, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let opts = Opts::default()
        .with("--policy", "idle")
        .with("--keep-recent", "2");
    let mut a = App::session(cli::setup(&path, &opts).unwrap());
    a.update(Action::PrevRequest);
    a.update(Action::KeepMore);
    let n = a.view().unwrap().setup.session.requests.len();
    let k = a.view().unwrap().k;
    a.update(Action::ToggleFollow);
    assert!(a.view().unwrap().following());
    let lines_screen = screen(&a, 120, 40, true);
    assert!(lines_screen[0].contains("following"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{}", lines[lines.len() - 1]).unwrap();
    drop(f);
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(view_mut(&mut a).poll_follow());
    let v = a.view().unwrap();
    assert_eq!(v.k, k, "the place is kept");
    assert_eq!(v.policy().keep_recent, Some(3), "the parameters are kept");
    assert!(v.setup.session.requests.len() >= n);
    assert!(v.status.as_deref().unwrap().contains("new line"));
    a.update(Action::ToggleFollow);
    assert!(!a.view().unwrap().following());
}

/// The demo with toolu_A's result grown to `chars` characters, written in `dir`.
fn grown_demo(dir: &Path, chars: usize) -> std::path::PathBuf {
    let src = std::fs::read_to_string(sample(DEMO)).unwrap();
    let big = "x".repeat(chars);
    let grown: Vec<String> = src
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["message"]["content"][0]["tool_use_id"] == "toolu_A" {
                v["message"]["content"][0]["content"] = Value::String(big.clone());
            }
            v.to_string()
        })
        .collect();
    let path = dir.join("big.jsonl");
    std::fs::write(&path, grown.join("\n") + "\n").unwrap();
    path
}

#[test]
fn a_big_request_is_diffed_in_the_background() {
    let t = tempfile::tempdir().unwrap();
    let path = grown_demo(t.path(), 1_500_000);
    let opts = Opts::default()
        .with("--policy", "idle")
        .with("--keep-recent", "2");
    let mut a = App::session(cli::setup(&path, &opts).unwrap());
    assert!(a.view().unwrap().diff_pending());
    let lines = screen(&a, 120, 40, true);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("computing the diff in the background"))
    );
    // The list is there at once; the diff follows.
    assert!(row(&list_region(&lines), "toolu_A").contains("cleared"));
    view_mut(&mut a).wait_background();
    let v = a.view().unwrap();
    assert!(!v.diff_pending());
    assert!(v.wire_json().contains("[Old tool result content cleared]"));
    assert!(!v.diff.changes.is_empty());
}

/// A big request's plan is shown at once; the tokens its cache break re-writes come
/// with the diff from the background, and then agree with `mcscope plan`.
#[test]
fn a_big_request_counts_the_rewritten_tokens_in_the_background() {
    let t = tempfile::tempdir().unwrap();
    let path = grown_demo(t.path(), 400_000);
    let opts = Opts::default()
        .with("--policy", "idle")
        .with("--keep-recent", "1");
    let setup = cli::setup(&path, &opts).unwrap();
    let n = setup.session.requests.len();
    let mut a = App::session(setup.clone());
    a.update(Action::FirstRequest);
    let (mut broken, mut counting) = (0, 0);
    for k in 1..=n {
        let cli = mcscope::analysis::plan_at(&setup, k).unwrap();
        let v = view_mut(&mut a);
        assert_eq!(v.k, k);
        if let Some(m) = cli.cache.prefix_broken_at_message {
            broken += 1;
            if v.diff_pending() {
                counting += 1;
                let footer = screen(&a, 200, 60, false).join("\n");
                assert!(
                    footer.contains(&format!(
                        "cache prefix broken at message {m} (tokens re-written: counting…)"
                    )),
                    "@{k}: {footer}"
                );
            }
        }
        view_mut(&mut a).wait_background();
        let v = a.view().unwrap();
        assert_eq!(v.plan.cache, cli.cache, "@{k}");
        if let Some(m) = cli.cache.prefix_broken_at_message {
            let footer = screen(&a, 200, 60, false).join("\n");
            let want = format!(
                "cache prefix broken at message {m} (~{} tokens re-written)",
                mcscope::numbers::fmt_int(cli.cache.tokens_after_break)
            );
            assert!(footer.contains(&want), "@{k}: {want}\n{footer}");
        }
        a.update(Action::NextRequest);
    }
    assert!(broken > 0, "the scenario breaks the cache prefix somewhere");
    assert!(
        counting > 0,
        "and on a request big enough for the background"
    );
}

/// Ticks until background work arrives (a deadline, no timing asserted).
fn tick_until_changed(a: &mut App) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !a.tick() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn the_screen_is_redrawn_after_an_action_a_resize_or_background_work_not_on_a_tick() {
    let mut a = app(DEMO, Some(KindArg::Count));
    assert!(a.needs_redraw(), "the first frame");
    view_mut(&mut a).wait_background();
    a.drawn();
    // A poll tick with nothing arrived draws nothing.
    for _ in 0..3 {
        assert!(!a.tick());
        assert!(!a.needs_redraw());
    }
    // A handled key.
    a.update(Action::Down);
    assert!(a.needs_redraw());
    a.drawn();
    // A resize to the size the app has already changes nothing; another does.
    let (w, h) = a.size;
    a.update(Action::Resize(w, h));
    assert!(!a.needs_redraw());
    a.update(Action::Resize(w + 20, h + 6));
    assert!(a.needs_redraw());
    assert_eq!(a.view().unwrap().size, (w + 20, h + 6));
    a.drawn();
    // Tuning starts the footer's timeline in the background: drawn for the key,
    // then again when the marks arrive, and then no more.
    a.update(Action::KeepMore);
    assert!(a.needs_redraw());
    a.drawn();
    tick_until_changed(&mut a);
    assert!(a.needs_redraw(), "the marks arrived");
    assert!(!a.view().unwrap().marks.is_empty());
    a.drawn();
    assert!(!a.tick());
    assert!(!a.needs_redraw());
    // The mouse, Ctrl-Z and a key no binding names are actions too.
    a.update(Action::Pointer(
        mcscope::tui::app::Pointer::WheelDown,
        10,
        12,
    ));
    assert!(a.needs_redraw());
    a.drawn();
    a.update(Action::Suspend);
    assert_eq!(a.take_effects(), vec![mcscope::tui::app::Effect::Suspend]);
    assert!(
        a.needs_redraw(),
        "the terminal comes back cleared: drawn again"
    );
    a.drawn();
    a.update(Action::Unbound);
    assert!(a.needs_redraw());
    assert!(!a.quit);
    a.update(Action::Interrupt);
    assert!(a.quit, "Ctrl-C quits");
}
