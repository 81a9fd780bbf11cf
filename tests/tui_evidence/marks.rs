//! Evidence and break marks: on the footer, jumped to with r and o, themed, kept on a short screen.

use super::*;

/// The footer: from the cache verdict down.
fn footer(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("✓ cache") || l.starts_with("✕ cache"))
        .unwrap_or_else(|| panic!("no verdict:\n{}", lines.join("\n")));
    lines[start..].to_vec()
}

fn status(a: &App) -> Option<String> {
    a.view().unwrap().status.clone()
}

#[test]
fn evidence_and_observed_breaks_are_marked_on_the_footer() {
    let dir = tempfile::tempdir().unwrap();
    let a = open(&evidence_session(dir.path()), count_opts());
    let v = a.view().unwrap();
    let marks: Vec<(bool, bool)> = v.marks.iter().map(|m| (m.evidence, m.observed)).collect();
    // ◇ at 2 (budget record), 3 (cached record), 4 (cached record, applied edits);
    // ! at 3 and 4.
    assert_eq!(
        marks,
        [(false, false), (true, false), (true, true), (true, true)]
    );
    // Wide enough for the totals on one line: the footer's rows are few.
    let lines = screen(&a, 130, 40, false);
    let foot = footer(&lines);
    // One column per request, every line's cells after the same 9-column
    // label: the marks line has ◇ at 2, and at 3 and 4 the observed break
    // (before `◇`, SPEC §15.22), as its cause's glyph (§16.S): `✂` the
    // cache deletions at 3, `T` the expired cache at 4 — in the columns of
    // the cache reads 0, 40,000 (the highest: █), a little, 0.
    assert!(
        row(&foot, "marks ").starts_with("marks     ◇✂T"),
        "{foot:?}"
    );
    assert!(
        row(&foot, "cache rd").starts_with("cache rd  █▂ "),
        "{foot:?}"
    );
    // Request 4 (shown): its observed break in short, under the verdict and
    // above the recorded bill and the session totals (SPEC §15.22's order).
    assert_eq!(
        foot[1].trim_end(),
        "! observed cache break: read 0 of 41,000 expected (drop 41,000): ttl, cache_edits, context_edits"
    );
    assert!(foot[2].starts_with("recorded: "), "{foot:?}");
    assert!(foot[3].starts_with("session: "), "{foot:?}");
    // The legend says what the marks mean.
    let help = keymap::help_lines();
    assert!(help.iter().any(|l| l.contains("◇ harness evidence")));
    assert!(help.iter().any(|l| l.contains("! an observed cache break")));
}

#[test]
fn r_and_o_jump_to_the_next_and_previous_evidence_and_observed_break() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    assert_eq!(k(&a), 4);
    // R: back through 3 and 2; nothing holds evidence before 2.
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 3);
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 2);
    key(&mut a, Action::PrevEvidence);
    assert_eq!(k(&a), 2);
    assert_eq!(
        status(&a).as_deref(),
        Some("no earlier request where the transcript holds evidence")
    );
    // The observed breaks are 3 and 4 only: o from 2 goes to 3, then 4.
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 3);
    assert_eq!(status(&a), None);
    // The footer now says request 3's break: 41,000 expected, 11,000 read.
    assert!(has(
        &screen(&a, 100, 40, false),
        "! observed cache break: read 11,000 of 41,000 expected (drop 30,000): cache_edits"
    ));
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 4);
    key(&mut a, Action::NextObserved);
    assert_eq!(k(&a), 4);
    assert_eq!(
        status(&a).as_deref(),
        Some("no later request where a cache break was observed")
    );
    key(&mut a, Action::PrevObserved);
    assert_eq!(k(&a), 3);
    key(&mut a, Action::PrevObserved);
    assert_eq!(k(&a), 3, "no break before 3");
    // From the first request, r goes to 2, the first with evidence.
    key(&mut a, Action::FirstRequest);
    key(&mut a, Action::NextEvidence);
    assert_eq!(k(&a), 2);
    // Request 1 has no observed break: the footer has no line for one.
    key(&mut a, Action::FirstRequest);
    assert!(!has(&screen(&a, 100, 40, false), "observed cache break"));
    // The keys are the keymap's: r, R, o, O, and the hints name two of them.
    for (c, action) in [
        ('r', Action::NextEvidence),
        ('R', Action::PrevEvidence),
        ('o', Action::NextObserved),
        ('O', Action::PrevObserved),
    ] {
        let ev =
            ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char(c));
        assert_eq!(keymap::action_for(ev, false), Some(action));
    }
    assert!(keymap::hints().contains("r record") && keymap::hints().contains("o observed"));
}

/// The marks are the evidence `mcscope evidence` reports, request by request.
#[test]
fn the_marks_agree_with_the_evidence_report_on_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let tx = evidence_session(dir.path());
    for path in [
        tx,
        sample(BUDGET),
        sample(TODAY),
        sample("sample-sessions/claude-demo.jsonl"),
        sample(KINDS),
    ] {
        for kind in [None, Some(KindArg::Count), Some(KindArg::Idle)] {
            let opts = Opts::default().with_some("--policy", kind);
            let setup = cli::setup(&path, &opts).unwrap();
            let n = setup.session.requests.len();
            let report = mcscope::analysis::evidence_report(&setup, n);
            let a = open(&path, opts);
            let v = a.view().unwrap();
            assert_eq!(v.marks.len(), n);
            for k in 1..=n {
                let ev = report.evidence.at(k).unwrap();
                let m = v.mark(k);
                assert_eq!(m.observed, ev.observed_break.is_some(), "{path:?} {k}");
                let records = ev.microcompact.is_some() || !ev.compactions.is_empty();
                let edits = ev.applied_edits.as_ref().is_some_and(|e| !e.is_empty());
                assert_eq!(m.evidence, records || edits, "{path:?} {k}");
                // The explanations (plan_rewrite included) are the report's.
                assert_eq!(
                    v.evidence_at(k).unwrap().observed_break,
                    ev.observed_break,
                    "{path:?} {k}"
                );
            }
        }
    }
}

/// On the smallest screen the TUI draws, the footer keeps what SPEC §15.22
/// ranks first: the verdict and the observed break's first explanation, whole;
/// lower lines go whole, never cut mid-word.
#[test]
fn a_short_screen_drops_whole_lines_lowest_rank_first() {
    let a = open(
        &sample(BUDGET),
        Opts {
            at: Some("7".into()),
            ..Default::default()
        },
    );
    let wide = footer(&screen(&a, 200, 50, false));
    let words = |foot: &[String]| -> Vec<String> {
        foot.iter()
            .filter(|l| {
                !["context ", "marks ", "sim ctx~", "cache rd"]
                    .iter()
                    .any(|s| l.starts_with(s))
            })
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let all = words(&wide);
    let lines = screen(&a, ui::MIN_WIDTH, ui::MIN_HEIGHT, false);
    let foot = footer(&lines);
    let text = foot.join(" ");
    assert!(foot[0].starts_with("✕ cache prefix broken"), "{foot:?}");
    assert!(text.contains("re-written)"), "the verdict whole: {foot:?}");
    // The first explanation (plan_rewrite) with the figures before it.
    let observed = foot
        .iter()
        .position(|l| l.starts_with("! observed"))
        .unwrap();
    assert!(
        foot[observed..]
            .join(" ")
            .contains("(drop 108,300): plan_rewrite"),
        "{foot:?}"
    );
    // Every word on the small screen is a whole word of the wide one.
    for w in words(&foot) {
        assert!(all.contains(&w), "{w:?} is cut: {foot:?}");
    }
    // At 80×24 the totals, one sparkline with its marks and the hints are there too.
    let foot = footer(&screen(&a, 80, 24, false));
    for start in ["session: ", "context ", "marks ", "? help"] {
        assert!(
            foot.iter().any(|l| l.starts_with(start)),
            "{start}: {foot:?}"
        );
    }
    for w in words(&foot) {
        assert!(all.contains(&w), "{w:?} is cut: {foot:?}");
    }
}

/// The records are compared with plans run with the other options given: a change
/// of keep_recent is seen by the comparison (the evidence is made again), a step is
/// not a change (it is kept).
#[test]
fn a_parameter_change_remakes_the_comparison_and_a_step_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(&evidence_session(dir.path()), count_opts());
    let before = a.view().unwrap().evidence.clone().unwrap();
    key(&mut a, Action::PrevRequest);
    key(&mut a, Action::NextRequest);
    // Stepping reuses the evidence without the plan's part: same comparisons.
    assert_eq!(
        a.view()
            .unwrap()
            .evidence
            .as_ref()
            .unwrap()
            .evidence
            .requests,
        before.evidence.requests
    );
    // keep 2 (+): at request 3 the count plan keeps a and b, so the record's a is
    // missing from it.
    key(&mut a, Action::KeepMore);
    assert_eq!(a.view().unwrap().keep_in_force(), 2);
    let lines = explain(&mut a, "a");
    assert!(
        has(
            &lines,
            "against the count plan: missing [a] (named by the record, not cleared by the plan)"
        ),
        "{}",
        lines.join("\n")
    );
}

/// Each `[theme]` key colours its own status or mark (SPEC §8): set to
/// `#010203`, the first cell of its glyph on its line carries it (as the text
/// colour, or the background where the mark is reversed); the default palette
/// puts it nowhere on that line.
#[test]
fn each_theme_key_colours_its_own_status_or_mark() {
    use mcscope::tui::theme::Palette;
    use ratatui::style::Color;
    let dir = tempfile::tempdir().unwrap();
    let evidence = open(&evidence_session(dir.path()), count_opts());
    let demo = |kind: KindArg| {
        open(
            &sample("sample-sessions/claude-demo.jsonl"),
            Opts::default().with("--policy", kind.name()),
        )
    };
    let (count, idle) = (demo(KindArg::Count), demo(KindArg::Idle));
    let memory = open(
        &sample("sample-sessions/qwen-memory/session.jsonl"),
        Opts::default().with("--policy", "forced"),
    );
    // count with trigger 1 fires through cache_edits: ▲, the prefix kept.
    let fires = open(
        &sample("sample-sessions/claude-demo.jsonl"),
        count_opts().with("--policy", "count"),
    );
    // claude-size: the size plan breaks the prefix before the last request.
    let size = open(
        &sample("sample-sessions/claude-size.jsonl"),
        Opts::default(),
    );
    // key, session, a text on its line, the glyph whose cells take the colour
    // (None: some cell of the line).
    let cases: [(&str, &App, &str, Option<&str>); 15] = [
        ("protected", &memory, "call_proj", Some("◆")),
        ("symlink_escape", &memory, "call_leak", Some("✗")),
        ("cleared", &count, "toolu_A", Some("✗")),
        ("kept", &count, "toolu_C", Some("·")),
        ("prefix_kept", &count, "cache prefix kept", Some("✓")),
        ("prefix_broken", &idle, "cache prefix broken", Some("✕")),
        ("changed", &count, "plan count*", Some("*")),
        (
            "inserted",
            &count,
            "\"cache_reference\": \"toolu_A\"",
            Some("+"),
        ),
        ("deleted", &idle, "~ ", Some("~")),
        ("evidence", &evidence, "marks ", Some("◇")),
        ("observed_break", &evidence, "marks ", Some("✂")),
        ("fired", &fires, "marks ", Some("▲")),
        ("cache_break", &size, "marks ", Some("✕")),
        ("current", &evidence, "context ", None),
        ("current", &evidence, "marks ", None),
    ];
    let mark = Color::Rgb(1, 2, 3);
    for (key, app, needle, glyph) in cases {
        for (palette, want) in [
            (Palette::from_entries([(key, "#010203")]).unwrap(), true),
            (Palette::default(), false),
        ] {
            let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
            t.draw(|f| {
                ui::draw(
                    f,
                    app,
                    Theme {
                        color: true,
                        palette,
                    },
                )
            })
            .unwrap();
            let buf = t.backend().buffer().clone();
            let text = |y: u16| (0..120).map(|x| buf[(x, y)].symbol()).collect::<String>();
            let y = (0..40)
                .find(|&y| text(y).contains(needle))
                .unwrap_or_else(|| {
                    let all: Vec<String> = (0..40).map(text).collect();
                    panic!("{key}: no line with {needle:?}:\n{}", all.join("\n"))
                });
            let cells: Vec<_> = (0..120)
                .map(|x| &buf[(x, y)])
                .filter(|c| glyph.is_none_or(|g| c.symbol() == g))
                .collect();
            assert!(!cells.is_empty(), "{key}: no {glyph:?} in {:?}", text(y));
            let coloured = |c: &&ratatui::buffer::Cell| c.fg == mark || c.bg == mark;
            if want && glyph.is_some() {
                // The first (for `~`: the local side's).
                assert!(coloured(&cells[0]), "{key}: {:?}", text(y));
            } else {
                assert_eq!(cells.iter().any(coloured), want, "{key}: {:?}", text(y));
            }
        }
    }
}
