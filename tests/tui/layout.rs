//! What each size shows: a small terminal, NO_COLOR, 80×24 verdicts, ids, totals, the demo.

use super::*;

#[test]
fn a_small_terminal_gets_one_line() {
    let a = app(DEMO, None);
    let lines = screen(&a, 59, 20, true);
    assert!(lines[0].starts_with("terminal too small: 59x20"));
    assert!(lines[1..].iter().all(|l| l.trim().is_empty()));
    let lines = screen(&a, 80, 15, true);
    assert!(lines[0].starts_with("terminal too small"));
    let lines = screen(&a, 60, 16, true);
    assert!(lines[0].contains("claude-demo.jsonl"));
}

#[test]
fn no_color_keeps_the_meaning_in_glyphs() {
    let a = app(DEMO, Some(KindArg::Idle));
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| ui::draw(f, &a, Theme::new(false))).unwrap();
    let buf = t.backend().buffer();
    for cell in buf.content() {
        assert_eq!(
            cell.fg,
            ratatui::style::Color::Reset,
            "a colour with NO_COLOR"
        );
        assert_eq!(cell.bg, ratatui::style::Color::Reset);
    }
    let lines = screen(&a, 120, 40, false);
    assert!(row(&lines, "toolu_A").contains("✗ cleared"));
}

#[test]
fn demo_walks_through_the_stages_and_points_at_each_region() {
    use mcscope::tui::demo::{Region, STAGES};
    let t = tempfile::tempdir().unwrap();
    let mut a = mcscope::tui::demo_app(t.path()).unwrap();
    let mut seen = Vec::new();
    for (i, st) in STAGES.iter().enumerate() {
        let lines = screen(&a, 120, 40, true);
        let text = lines.join("\n");
        assert!(text.contains(st.title), "stage {i}: {text}");
        assert!(text.contains(&format!("({}/{})", i + 1, STAGES.len())));
        let pointer = match st.region {
            Region::List => "▲ the age list above",
            Region::Diff => "▼ the wire payload below, right side",
            Region::LocalSide => "▼ the local request below, left side",
            Region::Footer => "▼ the footer below",
        };
        assert!(
            text.contains(pointer),
            "stage {i} points at {:?}",
            st.region
        );
        seen.push(text);
        a.update(Action::NextRequest);
    }
    // The words issue: stage 4 never says the prefix stays intact above an
    // observed break; it says the break is the recorded expiry.
    let four = STAGES[3].text();
    assert!(!four.contains("stays intact"), "{four}");
    assert!(
        four.contains("this plan keeps the prefix; the footer's break is the pause's (ttl)"),
        "{four}"
    );
    // Stage 3 talks about the diff's left side from above it.
    assert_eq!(STAGES[2].region, Region::LocalSide);
    // Stage 2 is request 5, where count deleted A and B.
    assert!(seen[1].contains("request 5/6"));
    // Stage 4 shows the cache_edits block; stage 5 the placeholder and the broken prefix.
    assert!(seen[3].contains("\"type\": \"cache_edits\""));
    assert!(seen[4].contains("[Old tool result content cleare"));
    assert!(seen[4].contains("cache prefix broken at message 2"));
    // After the last stage the demo ends and every key works.
    let v = a.view().unwrap();
    assert!(v.demo.is_none());
    assert!(v.status.as_deref().unwrap().contains("end of the demo"));
    a.update(Action::PrevRequest);
    assert_eq!(a.view().unwrap().k, 5);
}

/// At 80×24 the key verdicts keep their place: the header's request, gap and turn
/// kind, the file name of a path (cut from the left), the cache verdict first in
/// the footer, with a glyph that keeps it under NO_COLOR.
#[test]
fn at_80x24_the_verdicts_stay_on_screen() {
    let a = app(DEMO, Some(KindArg::Idle));
    let lines = screen(&a, 80, 24, false);
    assert!(
        lines[0].contains("request 6/6")
            && lines[0].contains("gap 75.5 min")
            && lines[0].contains("new turn"),
        "{}",
        lines[0]
    );
    let list = list_region(&lines);
    assert!(
        row(&list, "toolu_A").contains("/src/config.ts "),
        "{list:?}"
    );
    assert!(
        row(&list, "toolu_D").contains("/src/server.ts "),
        "{list:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("✕ cache prefix broken at message 2")),
        "{}",
        lines.join("\n")
    );
    // Kept, in green with colour: count through cache_edits keeps the prefix.
    let a = app(DEMO, Some(KindArg::Count));
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| ui::draw(f, &a, Theme::new(true))).unwrap();
    let buf = t.backend().buffer().clone();
    let y = (0..24)
        .find(|&y| buf[(0, y)].symbol() == "✓")
        .expect("a kept verdict");
    assert_eq!(buf[(0, y)].fg, ratatui::style::Color::Green);
    assert!(
        (0..20)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect::<String>()
            .starts_with("✓ cache prefix kept")
    );
}

/// Long ids (`toolu_01…`, 30 chars) at 80 columns: each shows its unique tail, so
/// the path keeps room for its file name.
#[test]
fn at_80_columns_an_id_shrinks_to_its_unique_tail_before_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("look", 0.0)
        .read(
            "toolu_01AbCdEfGhIjKlMnOpQrSt11",
            "/home/dev/project/src/server/handlers/orders.rs",
        )
        .read(
            "toolu_01AbCdEfGhIjKlMnOpQrSt22",
            "/home/dev/project/src/server/handlers/users.rs",
        )
        .answer("ok");
    let path = c.write(dir.path(), "s.jsonl");
    let a = App::session(cli::setup(&path, &Opts::default()).unwrap());
    let lines = screen(&a, 80, 24, true);
    let list = list_region(&lines);
    // The last char tells them apart; six are shown at least (with "…").
    // The path, too long for the room, is cut from the left: its file name shows.
    let orders = row(&list, "…QrSt11");
    assert!(
        orders.contains("…") && orders.contains("/handlers/orders.rs "),
        "{list:?}"
    );
    assert!(!orders.contains("/home/dev"), "{list:?}");
    assert!(
        row(&list, "…QrSt22").contains("/handlers/users.rs "),
        "{list:?}"
    );
    assert!(!has(&lines, "toolu_01AbCd"), "{list:?}");
    // Wide, the whole id.
    let lines = screen(&a, 200, 40, true);
    assert!(has(&list_region(&lines), "toolu_01AbCdEfGhIjKlMnOpQrSt11"));
    assert_eq!(
        ui::unique_tail(&[
            "toolu_01AbCdEfGhIjKlMnOpQrSt11",
            "toolu_01AbCdEfGhIjKlMnOpQrSt22"
        ]),
        1
    );
    assert_eq!(ui::unique_tail(&["ab12", "cd22", "ef32"]), 2);
    assert_eq!(
        ui::unique_tail(&["x_A", "x_B", "x_A"]),
        1,
        "a repeated id is one id"
    );
}

/// The footer's second line: the session totals of the current setting (SPEC §8,
/// §9), the same figures `mcscope compare` gives for it, counted again after a
/// change; at 80×24 the verdict, the totals, one sparkline and the hints stay.
#[test]
fn the_footer_shows_the_session_totals_of_the_setting() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    view_mut(&mut a).wait_background();
    let t = a.view().unwrap().totals.clone().expect("totals counted");
    // Idle on the demo (keep 2 from the sidecar): fires once, clears A and B.
    assert_eq!((t.totals.fires, t.totals.cleared_results), (1, 2));
    let lines = screen(&a, 200, 50, true);
    let line = lines
        .iter()
        .find(|l| l.starts_with("session: "))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert!(line.contains("1 fires · 2 cleared"), "{line}");
    assert!(line.contains("Δ $"), "{line}");
    // A change: counting until the background job reports, then the new figures.
    a.update(Action::KeepLess);
    assert!(has(&screen(&a, 200, 50, true), "session: counting…"));
    view_mut(&mut a).wait_background();
    let t = a.view().unwrap().totals.clone().unwrap();
    assert_eq!(t.totals.cleared_results, 3, "keep 1 clears A, B and C");
    // The same as the compare row of this setting.
    let setup = a.view().unwrap().setup.clone();
    assert_eq!(mcscope::tui::app::setting_totals(&setup), Some(t));
    // 80×24: the verdict first, the totals second.
    let lines = screen(&a, 80, 24, false);
    let footer: Vec<&String> = lines
        .iter()
        .skip_while(|l| !(l.starts_with("✓ cache") || l.starts_with("✕ cache")))
        .collect();
    assert!(footer.len() >= 3, "{}", lines.join("\n"));
    // SPEC §15.22: the verdict, the observed break's explanation, the recorded
    // bill (SPEC §9a: what `compare` prints first), then the totals.
    let recorded = footer
        .iter()
        .position(|l| l.starts_with("recorded: "))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    assert_eq!(
        footer[recorded].trim_end(),
        "recorded: $0.37 · hit rate 77.8 % · 1 observed break, $0.22"
    );
    assert!(
        footer[1..recorded]
            .iter()
            .all(|l| l.starts_with("! observed") || l.starts_with("  ")),
        "{}",
        lines.join("\n")
    );
    let totals = footer.iter().position(|l| l.starts_with("session: "));
    assert_eq!(totals, Some(recorded + 1), "{}", lines.join("\n"));
}
