//! Tuning you can see: the compare panel (`c`), the footer's simulated context
//! and the chart view (`C`), on ratatui's TestBackend, driven by the real keymap.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::{has, screen};

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::{App, Overlay};
use mcscope::tui::keymap;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::{Path, PathBuf};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn app(path: &str, kind: Option<KindArg>) -> App {
    let opts = Opts::default().with_some("--policy", kind);
    App::session(cli::setup(&sample(path), &opts).unwrap())
}

/// A key press through the real keymap.
fn press(a: &mut App, c: char) {
    let key = KeyEvent::from(KeyCode::Char(c));
    let action = keymap::action_for(key, a.in_text_input()).unwrap();
    a.update(action);
}

fn key(a: &mut App, code: KeyCode) {
    let action = keymap::action_for(KeyEvent::from(code), a.in_text_input()).unwrap();
    a.update(action);
}

fn mcscope(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(|w| w.trim_matches('│').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The CLI's table rows (`compare -v`) as words, up to the column the panel
/// does not show (KNOB): the panel shows who can set a row (AVAILABLE) too.
fn cli_rows(text: &str) -> Vec<Vec<String>> {
    let header = text.lines().find(|l| l.contains("SETTING")).unwrap();
    let cut = header[..header.find("KNOB").unwrap()].chars().count();
    text.lines()
        .skip_while(|l| !l.contains("SETTING"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| words(&l.chars().take(cut).collect::<String>()))
        .collect()
}

/// The panel's table lines (between its column titles and the recommendation).
fn panel_rows(lines: &[String]) -> Vec<Vec<String>> {
    let start = lines
        .iter()
        .position(|l| l.contains("SETTING") && l.contains("LATER USED"))
        .unwrap_or_else(|| panic!("no panel header:\n{}", lines.join("\n")));
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: "))
        .map(|l| {
            // Inside the panel's borders.
            let inside = match (l.find('│'), l.rfind('│')) {
                (Some(a), Some(b)) if a < b => &l[a + '│'.len_utf8()..b],
                _ => l.as_str(),
            };
            words(inside)
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// `c` opens the panel, which says it is computing, then shows the very rows
/// `mcscope compare` prints for the file, in its order, the recommended one
/// marked; `c` again (or Esc) closes it.
#[test]
fn c_opens_the_compare_panel_with_the_rows_of_mcscope_compare() {
    let mut a = app(DEMO, None);
    press(&mut a, 'c');
    assert!(matches!(a.view().unwrap().overlay, Some(Overlay::Compare)));
    let v = a.view_mut().unwrap();
    // The progress line, before or while the rows are counted.
    if v.compare.progress().is_some() {
        let lines = screen(&a, 160, 50);
        assert!(
            lines.iter().any(|l| l.contains("computing")
                && l.contains("settings on")
                && l.contains("lower priority")),
            "{}",
            lines.join("\n")
        );
    }
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 160, 50);
    let shown = panel_rows(&lines);
    // The CLI's table: the lines after its header, up to the blank line.
    // `-v`: every row, not a group of identical rows once (SPEC §9a).
    let text = mcscope(&["compare", DEMO, "-v"]);
    // SPEC §9a: the panel shows the recorded bill first, as the CLI does.
    let bill = text.lines().nth(1).unwrap();
    assert!(bill.starts_with("recorded: $"), "{text}");
    assert!(
        lines.iter().any(|l| l.contains(bill)),
        "{}",
        lines.join("\n")
    );
    let cli = cli_rows(&text);
    assert!(cli.len() > 40, "{text}");
    assert!(shown.len() >= 20, "{}", lines.join("\n"));
    // Every line on screen is the CLI's line of the same rank (93 rows, the
    // first 40-odd fit).
    for (i, row) in shown.iter().enumerate() {
        assert_eq!(row, &cli[i], "row {i}:\n{}", lines.join("\n"));
    }
    // SPEC §9a: the baseline (what the records prove happened) comes first,
    // outside the sort and never recommended.
    assert_eq!(shown[0][0], "0");
    assert!(
        shown[0].join(" ").contains("recorded: what happened"),
        "{:?}",
        shown[0]
    );
    assert_eq!(shown[1][0], "1*", "row 1 is recommended on the demo");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("{} settings", cli.len()))),
        "{}",
        lines.join("\n")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("recommended: row 1 (claude idle keep 1 gap 5m)"))
    );
    // SPEC §9a: who can set the selected row: the baseline is no setting;
    // the next row is the harness's remote flags.
    assert!(
        lines.iter().any(|l| l.contains("row 0: what happened")),
        "{}",
        lines.join("\n")
    );
    key(&mut a, KeyCode::Down);
    let lines = screen(&a, 160, 50);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("row 1: remote_flag: the harness decides it by remote flags")),
        "{}",
        lines.join("\n")
    );
    press(&mut a, 'c');
    assert!(a.view().unwrap().overlay.is_none());
    // Opened again: the rows at once, not computed again.
    press(&mut a, 'c');
    assert!(a.view().unwrap().compare.computed().is_some());
    key(&mut a, KeyCode::Esc);
    assert!(a.view().unwrap().overlay.is_none());
    assert!(!a.quit);
}

/// `S` sorts by the next column (its title says ▲), `A` reverses (▼); the
/// selected row stays selected.
#[test]
fn s_sorts_by_any_column_and_a_reverses() {
    let mut a = app(DEMO, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    // Select row 7 (keep 2, 523 tokens not sent; row 0 is the baseline).
    for _ in 0..7 {
        key(&mut a, KeyCode::Down);
    }
    assert_eq!(a.view().unwrap().compare.selected_row(), Some(7));
    // # → SETTING → FIRES → CLEARED → NOT SENT.
    for _ in 0..4 {
        press(&mut a, 'S');
    }
    let lines = screen(&a, 160, 50);
    assert!(
        lines.iter().any(|l| l.contains("NOT SENT ▲")),
        "{}",
        lines.join("\n")
    );
    let col = |rows: &[Vec<String>]| -> Vec<u64> {
        // NOT SENT is the 5th figure from the end of a line's words, who
        // can set the row (AVAILABLE) the last.
        rows.iter()
            .map(|r| r[r.len() - 6].replace(',', "").parse().unwrap())
            .collect()
    };
    // The baseline leads in every order (SPEC §9a); the settings follow sorted.
    let up = col(&panel_rows(&lines)[1..]);
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    assert_eq!(up[0], 0);
    press(&mut a, 'A');
    let lines = screen(&a, 160, 50);
    assert!(lines.iter().any(|l| l.contains("NOT SENT ▼")));
    assert!(panel_rows(&lines)[0].join(" ").contains("recorded"));
    let down = col(&panel_rows(&lines)[1..]);
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    // keep 1 clears the most: 836 tokens (A, B and C).
    assert_eq!(down[0], 836);
    assert_eq!(a.view().unwrap().compare.selected_row(), Some(7));
}

/// Enter applies the selected row to the main view: the header shows its
/// values marked as changed, and the footer's totals become the row's.
#[test]
fn enter_applies_a_row_and_the_header_and_footer_follow() {
    let mut a = app(DEMO, Some(KindArg::Count));
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    // Row 7: claude idle keep 2 gap 5m (the rows of the first test).
    for _ in 0..7 {
        key(&mut a, KeyCode::Down);
    }
    key(&mut a, KeyCode::Enter);
    let v = a.view_mut().unwrap();
    assert!(v.overlay.is_none());
    assert_eq!(v.policy().kind, mcscope::policy::PlanKind::Idle);
    assert_eq!(v.policy().keep_recent, Some(2));
    assert_eq!(v.policy().gap_threshold_minutes, 5.0);
    v.wait_background();
    let lines = screen(&a, 200, 50);
    let header = &lines[1];
    assert!(header.contains("plan idle*"), "{header}");
    assert!(header.contains("gap ≥ 5 min*"), "{header}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("applied compare row 7: claude idle keep 2 gap 5m")),
        "{}",
        lines.join("\n")
    );
    // The row's figures: 1 fire, 2 cleared, 523 tokens not sent.
    let totals = lines.iter().find(|l| l.starts_with("session: ")).unwrap();
    assert!(totals.contains("523 tok not sent"), "{totals}");
    assert!(totals.contains("1 fires · 2 cleared"), "{totals}");
    // The panel marks the main view's setting now.
    press(&mut a, 'c');
    let lines = screen(&a, 160, 50);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("7●") && l.contains("idle keep 2 gap 5m")),
        "{}",
        lines.join("\n")
    );
}

/// The footer's context sparkline has the simulated context beside the recorded
/// one, on the same scale: it drops where the setting keeps results out of the
/// wire, and drops further when tuning clears more.
#[test]
fn the_footer_draws_the_simulated_context_under_the_recorded_one() {
    // Idle keep 2 (the sidecar) on the demo: fires at request 6 only, 523 tokens
    // out of the wire there. Recorded P(6) = 3 + 23,391 + 0 = 23,394 (the
    // largest, so a full bar); simulated 23,394 − 523 = 22,871 → 7·22,871 /
    // 23,394 = 6.8 → the 7th of 8 bars.
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.view_mut().unwrap().wait_background();
    let lines = screen(&a, 200, 50);
    let bars = |name: &str, lines: &[String]| -> Vec<char> {
        let l = lines
            .iter()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name}:\n{}", lines.join("\n")));
        l[name.len()..].trim_end().chars().skip(1).collect()
    };
    let rec = bars("context ", &lines);
    let sim = bars("sim ctx~", &lines);
    assert_eq!(rec.len(), 6, "{rec:?}");
    assert_eq!(rec[5], '█');
    assert_eq!(sim[5], '▇', "{sim:?}");
    // Requests 1–5 keep everything: the same bars.
    assert_eq!(rec[..5], sim[..5]);
    // keep 1 clears A, B and C: 836 tokens → 22,558 → 7·22,558/23,394 = 6.75 → ▇
    // still; the figures say it, and the recorded line does not move.
    press(&mut a, '-');
    assert!(
        screen(&a, 200, 50)
            .iter()
            .any(|l| l.starts_with("sim ctx~ counting…"))
    );
    a.view_mut().unwrap().wait_background();
    let t = a.view().unwrap().totals.clone().unwrap();
    assert_eq!(t.series[5].in_wire, 836);
    assert_eq!(t.series[5].simulated(), Some(23_394 - 836));
    assert_eq!(bars("context ", &screen(&a, 200, 50)), rec);
}

/// SPEC §9 `sim_ctx`: the harness's own clearing is not subtracted twice. On the
/// budget sample under `--policy budget`, the setting that reproduces the
/// records, request 7's simulated context is its recorded P(7) = 92,363 (the
/// budget plan keeps 62,000 tokens out of the wire there, which the recorded
/// prompt already lacks): the footer's `sim ctx~` bar equals the `context` bar
/// at 7 and after, where P − in_wire alone would have dropped 62,000.
#[test]
fn t9_sim_ctx_adds_back_what_the_harness_already_cleared() {
    let mut a = app("sample-sessions/claude-budget.jsonl", Some(KindArg::Budget));
    a.view_mut().unwrap().wait_background();
    let t = a.view().unwrap().totals.clone().unwrap();
    let p7 = &t.series[6];
    assert_eq!((p7.recorded, p7.in_wire), (Some(92_363), 62_000));
    assert_eq!(p7.recorded_cleared, 62_000);
    assert_eq!(p7.simulated(), Some(92_363));
    let lines = screen(&a, 200, 50);
    let bars = |name: &str| -> Vec<char> {
        let l = lines
            .iter()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name}:\n{}", lines.join("\n")));
        l[name.len()..].trim_end().chars().skip(1).collect()
    };
    assert_eq!(bars("sim ctx~"), bars("context "));
}

/// `C` draws recorded vs simulated context per request for the current
/// setting and the recommended one, with the §8 marks of each.
#[test]
fn c_shift_draws_the_chart_of_the_current_and_the_recommended_setting() {
    let mut a = app(DEMO, Some(KindArg::Idle));
    a.view_mut().unwrap().wait_background();
    press(&mut a, 'C');
    assert!(matches!(a.view().unwrap().overlay, Some(Overlay::Chart)));
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 120, 40);
    let all = lines.join("\n");
    if std::env::var_os("SHOW").is_some() {
        println!("{all}");
    }
    assert!(all.contains("context tokens per request"), "{all}");
    assert!(all.contains("recorded P(k)"), "{all}");
    assert!(all.contains("simulated, current ~"), "{all}");
    assert!(all.contains("simulated, recommended ~"), "{all}");
    assert!(
        all.contains("current: idle keep 2 gap 60m"),
        "the sidecar's keep 2, idle's default gap:\n{all}"
    );
    assert!(
        all.contains("recommended: claude idle keep 1 gap 5m"),
        "{all}"
    );
    // The marks: both fire at request 6 (the last of six columns), where the
    // simulated cache prefix breaks too (✕ wins over ▲).
    let strip = |name: &str| -> String {
        let l = lines
            .iter()
            .find(|l| l.contains(&format!("│{name}  ")))
            .unwrap_or_else(|| panic!("no {name} strip:\n{all}"));
        l.split_once(name)
            .unwrap()
            .1
            .trim_end()
            .trim_end_matches('│')
            .trim_end()
            .to_string()
    };
    assert_eq!(strip("current").trim_start(), "✕");
    assert_eq!(strip("recommended").trim_start(), "✕");
    // The y axis spans the values drawn: from below P(1) = 3 + 4,127 + 16,894 =
    // 21,024 (the smallest) to above P(6) = 23,394 (the largest).
    let labels: Vec<u64> = lines
        .iter()
        .filter_map(|l| {
            let cell = l.split('│').nth(1)?.trim();
            (!cell.is_empty() && cell.chars().all(|c| c.is_ascii_digit() || c == ','))
                .then(|| cell.replace(',', "").parse().unwrap())
        })
        .collect();
    assert_eq!(labels.len(), 3, "{labels:?}\n{all}");
    assert!(labels[0] > 23_394 && labels[2] < 21_024, "{labels:?}");
    assert!(all.contains("request"), "{all}");
    // Braille dots of the lines are drawn.
    assert!(all.chars().any(|c| ('\u{2801}'..='\u{28FF}').contains(&c)));
    // c from the chart opens the panel; C from the panel the chart.
    press(&mut a, 'c');
    assert!(matches!(a.view().unwrap().overlay, Some(Overlay::Compare)));
    press(&mut a, 'C');
    assert!(matches!(a.view().unwrap().overlay, Some(Overlay::Chart)));
    press(&mut a, 'q');
    assert!(a.view().unwrap().overlay.is_none());
    assert!(!a.quit);
}

/// At 80×24 on a Qwen session: short column titles, the settings readable, the
/// same rows as `mcscope compare` (Qwen's grid: no count rows, no price).
#[test]
fn at_80x24_the_panel_keeps_the_settings_readable_on_a_qwen_session() {
    let q = "sample-sessions/qwen-memory/session.jsonl";
    let mut a = app(q, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 80, 24);
    let all = lines.join("\n");
    assert!(all.contains("70 settings"), "{all}");
    assert!(all.contains("no price: dollars unknown (?)"), "{all}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("# ▲") && l.contains("NOTSENT") && l.contains("ΔUSD")),
        "{all}"
    );
    let text = mcscope(&["compare", q, "-v"]);
    let cli = cli_rows(&text);
    let start = lines.iter().position(|l| l.contains("NOTSENT")).unwrap();
    let shown: Vec<Vec<String>> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: "))
        .map(|l| {
            let a = l.find('│').unwrap() + '│'.len_utf8();
            let b = l.rfind('│').unwrap();
            words(&l[a..b])
        })
        .collect();
    assert!(shown.len() >= 10, "{all}");
    // SPEC §9a, §15.15: a qwen row is the user's, with the keys to set.
    assert!(all.contains("row 0: what happened"), "{all}");
    key(&mut a, KeyCode::Down);
    let moved = screen(&a, 80, 24).join("\n");
    assert!(
        moved.contains("row 1: user: you can set it — set toolResultsThresholdMinutes=5"),
        "{moved}"
    );
    // The figures are the CLI's; the setting is the CLI's in short (`keep 1`
    // → `k1`, `gap 5m` → `g5m`), what varies first.
    for (i, row) in shown.iter().enumerate() {
        assert_eq!(
            split_row(row),
            split_row(&short_setting(&cli[i])),
            "row {i}:\n{all}"
        );
    }
}

/// A table row as (#, the setting's words sorted, the 7 figures and who can
/// set it).
fn split_row(row: &[String]) -> (String, Vec<String>, Vec<String>) {
    let n = row.len();
    let mut setting = row[1..n - 8].to_vec();
    setting.sort();
    (row[0].clone(), setting, row[n - 8..].to_vec())
}

/// Who can set a row as a narrow panel's WHO column says it.
fn short_who(available: &str) -> String {
    match available {
        "remote_flag" => "remote".into(),
        other => other.into(),
    }
}

/// The CLI's row with its setting and who can set it in the panel's short
/// form.
fn short_setting(row: &[String]) -> Vec<String> {
    let mut out = vec![row[0].clone()];
    let n = row.len();
    let mut words = row[1..n - 8].iter();
    while let Some(w) = words.next() {
        let short = match w.as_str() {
            "keep" => "k",
            "gap" => "g",
            "size" => "s",
            "trigger" => "t",
            _ => {
                out.push(w.clone());
                continue;
            }
        };
        out.push(format!("{short}{}", words.next().unwrap()));
    }
    out.extend(row[n - 8..n - 1].iter().cloned());
    out.push(short_who(&row[n - 1]));
    out
}

/// At 60 columns every row on screen names its setting differently: the
/// parameter that varies comes first, where the column is not cut.
#[test]
fn at_60_columns_no_two_rows_of_the_panel_look_alike() {
    let mut a = app(DEMO, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 60, 30);
    let all = lines.join("\n");
    let start = lines.iter().position(|l| l.contains("SETTING")).unwrap();
    let rows: Vec<String> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: "))
        .map(|l| {
            // The row without its number: what a reader tells rows apart by.
            let a = l.find('│').unwrap() + '│'.len_utf8();
            let b = l.rfind('│').unwrap();
            l[a..b].split_once(' ').unwrap().1.trim().to_string()
        })
        .collect();
    assert!(rows.len() >= 15, "{all}");
    let distinct: std::collections::HashSet<&String> = rows.iter().collect();
    assert_eq!(distinct.len(), rows.len(), "{all}");
    // The legend of the short form is on the panel.
    assert!(all.contains("k=keep g=gap"), "{all}");
}

/// SPEC §9a: the panel, like the CLI's text, shows the caveats of every kind
/// in the table under it (here the demo's idle rows' remote flag and count's
/// internal builds), where the screen has room.
#[test]
fn the_panel_lists_the_caveats_of_the_table() {
    let mut a = app(DEMO, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    let text = mcscope(&["compare", DEMO]);
    let lines = screen(&a, 200, 60);
    // Every id of the table, as the CLI prints them.
    let all = lines.join("\n");
    for id in ["claude_idle_flag", "claude_cached_internal"] {
        assert!(text.contains(&format!("caveat {id}: ")), "{text}");
        assert!(all.contains(id), "{id}:\n{all}");
    }
    assert!(all.contains("caveats of the table: "), "{all}");
    // The selected row's in full: row 1 is idle (remote flag).
    key(&mut a, KeyCode::Down);
    let lines = screen(&a, 200, 60);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("caveat claude_idle_flag: Claude Code's time-based")),
        "{}",
        lines.join("\n")
    );
    // The keys stay on the last line of the panel.
    assert!(lines.iter().any(|l| l.contains("↑/↓ select")));
}

/// At 80×24 the compare panel keeps one line for the recommendation and one
/// for the selected row: each is cut at a space with "…", never mid-word (the
/// words issue).
#[test]
fn at_80x24_the_recommendation_is_never_cut_mid_word() {
    let mut a = app(DEMO, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 80, 24);
    let rec = lines
        .iter()
        .find(|l| l.contains("recommended:"))
        .unwrap_or_else(|| panic!("{}", lines.join("\n")));
    let text = rec.trim_matches(|c: char| c == '│' || c.is_whitespace());
    assert!(text.chars().count() <= 78, "{text}");
    // The demo's recommendation is longer than the panel: cut, and the text
    // before "…" ends a word of the whole recommendation.
    let cut = text.strip_suffix('…');
    assert!(cut.is_some(), "not marked as cut: {text}");
    if let Some(cut) = cut {
        let whole = mcscope(&["compare", DEMO]);
        let words: Vec<&str> = cut.split(' ').collect();
        let last = words.last().unwrap();
        assert!(
            whole.split_whitespace().any(|w| w == *last
                || w.trim_end_matches([',', ':', '.', ';'])
                    == last.trim_end_matches([',', ':', '.', ';'])),
            "{last:?} is not a whole word:\n{text}"
        );
    }
}

/// The text inside the panel's borders at `w` columns (the panel is drawn one
/// cell in from each edge), one string per line.
fn inside_panel(lines: &[String], w: usize) -> Vec<String> {
    let at = |l: &String, x: usize| l.chars().nth(x);
    let top = lines
        .iter()
        .position(|l| at(l, 1) == Some('┌'))
        .unwrap_or_else(|| panic!("no panel:\n{}", lines.join("\n")));
    let bottom = top
        + lines[top..]
            .iter()
            .position(|l| at(l, 1) == Some('└'))
            .unwrap();
    lines[top + 1..bottom]
        .iter()
        .map(|l| l.chars().skip(2).take(w - 4).collect())
        .collect()
}

/// At 80×24 every row of the compare panel still says who can set it (the
/// words issue: the column was dropped, so an 80-column user could not see
/// that claude-size's top rows are internal): the WHO column is the CLI's
/// AVAILABLE in short, row by row; the selected row's line says it in words;
/// and no word on the panel is cut: every word shown, less a closing "…", is
/// a whole word of the same panel drawn wide.
#[test]
fn at_80x24_the_panel_says_who_can_set_each_row_and_cuts_no_word() {
    const SIZE: &str = "sample-sessions/claude-size.jsonl";
    let mut a = app(SIZE, None);
    press(&mut a, 'c');
    a.view_mut().unwrap().compare.wait();
    let lines = screen(&a, 80, 24);
    let all = lines.join("\n");
    let inside = inside_panel(&lines, 80);
    let head = inside
        .iter()
        .position(|l| l.contains("SETTING"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(words(&inside[head]).last().unwrap() == "WHO", "{all}");
    assert!(all.contains("WHO: who sets it"), "the legend:\n{all}");
    let shown: Vec<Vec<String>> = inside[head + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended"))
        .map(|l| words(l))
        .collect();
    assert!(shown.len() >= 10, "{all}");
    let cli = cli_rows(&mcscope(&["compare", SIZE, "-v"]));
    for (i, row) in shown.iter().enumerate() {
        assert_eq!(row[0], cli[i][0], "row {i}:\n{all}");
        assert_eq!(
            row.last().unwrap(),
            &short_who(cli[i].last().unwrap()),
            "row {i}:\n{all}"
        );
    }
    // The top rows (the only ones that save) are internal builds' plans.
    let who: Vec<&str> = shown.iter().map(|r| r.last().unwrap().as_str()).collect();
    assert_eq!(who[..4], ["-", "internal", "internal", "remote"], "{all}");
    // Selected, row 1 says who can set it in words.
    key(&mut a, KeyCode::Down);
    let moved = screen(&a, 80, 24);
    assert!(
        has(
            &moved,
            "row 1: internal: only in the harness's internal builds"
        ),
        "{}",
        moved.join("\n")
    );
    // No word cut, with row 0 selected and with row 1.
    cuts_no_word(&a);
    key(&mut a, KeyCode::Up);
    cuts_no_word(&a);
}

/// No word on the panel at 80×24 is cut: the panel drawn wide (every text
/// whole, the settings in words) and at 120 columns (the settings in short,
/// whole) give the words; every word at 80×24 is one of them, or one followed
/// by "…".
fn cuts_no_word(a: &App) {
    let whole: std::collections::HashSet<String> = [(250, 70), (120, 40)]
        .iter()
        .flat_map(|&(w, h)| inside_panel(&screen(a, w, h), w as usize))
        .flat_map(|l| words(&l))
        .collect();
    let lines = screen(a, 80, 24);
    for line in inside_panel(&lines, 80) {
        for word in words(&line) {
            let stem = word.strip_suffix('…').unwrap_or(&word);
            assert!(
                stem.is_empty() || whole.contains(stem),
                "{word:?} is cut in {line:?}:\n{}",
                lines.join("\n")
            );
        }
    }
}
