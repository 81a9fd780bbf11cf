//! The session screen at the sizes people have (80×24) and wider, on ratatui's
//! TestBackend: the footer's marks under their request on every sparkline line
//! (SPEC §15.22), a header that keeps every value and its mark, a footer that
//! drops whole lines instead of cutting words. The real binary in tmux:
//! tests/tmux.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;
use screen::screen;

mod common;
use common::evidence::{Tx, usage};

use mcscope::cli::{self, KindArg, Opts};
use mcscope::tui::app::App;
use mcscope::tui::ui::{self, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The label every footer line starts with (`context  `, `marks    `).
const LABEL: usize = 9;

/// 250 requests, more than the columns of an 80- or 120-column footer: a
/// steady cache, idle gaps of 70 minutes before requests 41, 121 and 201 (the
/// idle plan fires, the rewrite breaks the prefix, the expired cache is an
/// observed break), and microcompact records before requests 60 and 61.
fn long_session(dir: &Path) -> PathBuf {
    let mut tx = Tx::default();
    let mut min = 0.0;
    let mut read = 0;
    for i in 1..=250u64 {
        min += if [41, 121, 201].contains(&i) {
            70.0
        } else {
            1.0
        };
        if i == 1 || [41, 121, 201].contains(&i) {
            tx.prompt(min);
        }
        if [60, 61].contains(&i) {
            tx.boundary(min, 0, 500, &[&format!("c{}", i - 2)]);
        }
        if i == 150 {
            // A compaction: a new view segment from request 150 on (`^`).
            tx.rec(
                "system",
                min,
                json!({"subtype": "compact_boundary", "content": "Conversation compacted",
                    "compactMetadata": {"trigger": "auto", "preTokens": 1000}}),
            );
            tx.rec(
                "user",
                min,
                json!({"isCompactSummary": true, "message": {"role": "user",
                    "content": "This session is being continued from a previous conversation."}}),
            );
        }
        tx.response(
            &format!("m{i}"),
            min + 0.1,
            usage(1000, read, 0),
            Some(&format!("c{i}")),
            json!({}),
        );
        tx.result(&format!("c{i}"), min + 0.2);
        read += 1000;
        if [40, 120, 200].contains(&i) {
            read = 0;
        }
    }
    tx.write(dir)
}

fn open(path: &Path, opts: Opts) -> App {
    let setup = cli::setup(path, &opts).unwrap();
    let k = cli::request_index(&setup.session, opts.at.as_deref()).unwrap();
    let mut a = App::session_at(setup, k);
    a.view_mut().unwrap().wait_background();
    a
}

/// The glyph SPEC §15.22 puts in a column holding requests `ks`: the first of
/// `! ✕ ◇ ^ ▲` one of them holds.
fn expected_glyph(a: &App, ks: &[usize]) -> char {
    let v = a.view().unwrap();
    let s = &v.setup.session;
    let m: Vec<_> = ks.iter().map(|&k| v.mark(k)).collect();
    let compaction = ks.iter().any(|&k| {
        let r = &s.requests[k - 1];
        (k > 1 && r.segment != s.requests[k - 2].segment)
            || r.response
                .and_then(|i| s.messages[i].usage.as_ref())
                .is_some_and(|u| u.server_compaction)
    });
    if m.iter().any(|m| m.observed) {
        // SPEC §16.S: the first break's cause's glyph, from the bill's own
        // partition of the session.
        let causes = mcscope::bill::causes::partition(s, &[], &mut Default::default());
        ks.iter()
            .find_map(|&k| {
                causes
                    .iter()
                    .find(|r| r.request == Some(k) && r.is_break)
                    .map(|r| r.cause.glyph())
            })
            .unwrap_or('!')
    } else if m.iter().any(|m| m.broke) {
        '✕'
    } else if m.iter().any(|m| m.evidence) {
        '◇'
    } else if compaction {
        '^'
    } else if m.iter().any(|m| m.fired) {
        '▲'
    } else {
        ' '
    }
}

/// The screen's cells, and whether each is drawn reversed (the request shown,
/// under NO_COLOR).
fn cells(a: &App, w: u16, h: u16) -> Vec<Vec<(String, bool)>> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ui::draw(f, a, Theme::new(false))).unwrap();
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| {
                    let c = &buf[(x, y)];
                    (
                        c.symbol().to_string(),
                        c.modifier.contains(Modifier::REVERSED),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_mark_of_request_k_is_in_k_s_column_at_80_120_and_200_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    for (policy, at) in [
        (KindArg::Idle, "41"),
        (KindArg::Idle, "61"),
        (KindArg::Count, "200"),
    ] {
        let a = open(
            &path,
            Opts {
                at: Some(at.into()),
                ..Opts::default().with("--policy", policy.name())
            },
        );
        let n = a.view().unwrap().setup.session.requests.len();
        assert!(n > 200, "{n}");
        let k: usize = at.parse().unwrap();
        for (w, h) in [(80, 24), (120, 40), (200, 50)] {
            let lines = screen(&a, w, h);
            let grid = cells(&a, w, h);
            let cols = n.min(w as usize - LABEL - 1);
            let y = lines.iter().position(|l| l.starts_with("marks ")).unwrap();
            let marks: Vec<char> = lines[y].chars().skip(LABEL).collect();
            // Every column shows the first glyph of the requests it holds,
            // request k in column ⌊(k−1)·W/N⌋.
            for (c, &glyph) in marks.iter().enumerate().take(cols) {
                let ks: Vec<usize> = (1..=n).filter(|k| (k - 1) * cols / n == c).collect();
                assert_eq!(
                    glyph,
                    expected_glyph(&a, &ks),
                    "{policy:?} at {w} columns, column {c} (requests {ks:?}):\n{}",
                    lines[y]
                );
            }
            assert!(marks[cols..].iter().all(|&c| c == ' '), "{}", lines[y]);
            // Glyphs are there to be misplaced: the break (its cause: ttl),
            // the records, the compaction.
            for g in ['T', '◇', '^'] {
                assert!(marks.contains(&g), "{g} at {w}: {}", lines[y]);
            }
            // The request shown is highlighted in the same column on every
            // sparkline line and on the marks line.
            let col = LABEL + (k - 1) * cols / n;
            for start in ["context ", "marks ", "sim ctx~", "cache rd"] {
                let Some(y) = lines.iter().position(|l| l.starts_with(start)) else {
                    continue;
                };
                let lit: Vec<usize> = (0..w as usize).filter(|&x| grid[y][x].1).collect();
                assert_eq!(lit, [col], "{start} at {w} columns:\n{}", lines[y]);
            }
        }
    }
}

/// The footer's words at 80 columns are whole words of the footer at 200: a
/// line that does not fit goes on the next line, or goes whole.
#[test]
fn at_80_columns_the_footer_and_header_cut_no_word_and_the_header_keeps_every_value() {
    let a = open(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl"),
        Opts::default().with("--policy", "idle"),
    );
    let words = |lines: &[String], from: &str, to: Option<&str>| -> Vec<String> {
        let start = lines.iter().position(|l| l.starts_with(from)).unwrap();
        let end = to
            .and_then(|t| lines.iter().position(|l| l.contains(t)))
            .unwrap_or(lines.len());
        lines[start..end]
            .iter()
            .filter(|l| {
                !["context ", "marks ", "sim ctx~", "cache rd"]
                    .iter()
                    .any(|s| l.starts_with(s))
            })
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let wide = screen(&a, 200, 50);
    let narrow = screen(&a, 80, 24);
    let all = words(&wide, "✕ cache", None);
    let foot = words(&narrow, "✕ cache", None);
    for w in &foot {
        assert!(all.contains(w), "{w:?} is cut:\n{}", narrow.join("\n"));
    }
    // The observed break's first explanation and the verdict, whole.
    for whole in ["ttl,", "re-written)", "warm", "plan_rewrite"] {
        assert!(
            foot.iter().any(|w| w == whole),
            "{whole}:\n{}",
            narrow.join("\n")
        );
    }
    // The header: every value of the wide header, with its mark, at 80.
    let head = |lines: &[String]| words(lines, "claude-demo.jsonl", Some("tool results by age"));
    let (wide_head, narrow_head) = (head(&wide), head(&narrow));
    for w in &wide_head {
        assert!(
            narrow_head.contains(w),
            "{w:?} lost at 80:\n{}",
            narrow.join("\n")
        );
    }
    for w in ["2ˢ", "rewrite", "protect", "off", "claude-jsonl"] {
        assert!(
            narrow_head.iter().any(|x| x == w),
            "{w}:\n{}",
            narrow.join("\n")
        );
    }
    // No row of the screen is wider than the screen, and the header's rows are
    // all drawn (the list's title comes after them).
    assert!(narrow.iter().all(|l| l.chars().count() == 80));
}

/// The help explains the raised source marks and `^`.
#[test]
fn the_help_explains_the_source_marks_and_the_compaction_mark() {
    let help = mcscope::tui::keymap::help_lines();
    for needle in [
        "ˢ set by the session's sidecar",
        "ᶜ set by the configuration file",
        "^ a compaction",
    ] {
        assert!(
            help.iter().any(|l| l.contains(needle)),
            "{needle}: {help:?}"
        );
    }
    assert!(help.iter().all(|l| l.chars().count() <= 64), "{help:?}");
}

/// The demo at 80×24 and 120×40: every stage's caption whole in its box (its
/// text and its hint), the box beside the region it talks about, not over it,
/// and the stages in request order.
#[test]
fn the_demo_s_captions_are_whole_and_beside_their_region_at_80x24_and_120x40() {
    use mcscope::tui::demo::{Region, STAGES};
    use mcscope::tui::keymap::Action;
    use ratatui::layout::Rect;
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        let t = tempfile::tempdir().unwrap();
        let mut a = mcscope::tui::demo_app(t.path()).unwrap();
        let mut requests = Vec::new();
        for (i, st) in STAGES.iter().enumerate() {
            let lines = screen(&a, w, h);
            let v = a.view().unwrap();
            requests.push(v.k);
            let [_, list, diff, footer] =
                mcscope::tui::layout::regions(Rect::new(0, 0, w, h), v.shape(w));
            let target = match st.region {
                Region::List => list,
                Region::Diff | Region::LocalSide => diff,
                Region::Footer => footer,
            };
            let top = lines
                .iter()
                .position(|l| l.contains("┌ mcscope demo"))
                .unwrap();
            // The box's columns: from its ┌ to its ┐.
            let row: Vec<char> = lines[top].chars().collect();
            let x0 = row.iter().position(|&c| c == '┌').unwrap();
            let x1 = row.iter().position(|&c| c == '┐').unwrap();
            let bottom = top
                + lines[top..]
                    .iter()
                    .position(|l| l.chars().nth(x0) == Some('└'))
                    .unwrap();
            let inside: Vec<String> = lines[top + 1..bottom]
                .iter()
                .map(|l| {
                    let c: String = l.chars().skip(x0 + 1).take(x1 - x0 - 1).collect();
                    c.trim().to_string()
                })
                .collect();
            let text = inside.join(" ");
            let want: String = st.text().split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                text.contains(&want),
                "{w}×{h} stage {i}:\n{}",
                lines.join("\n")
            );
            assert!(text.contains(st.title));
            let hint = format!(
                "→ next  ← back  Esc leave the demo   ({}/{})",
                i + 1,
                STAGES.len()
            );
            assert!(
                inside.contains(&hint),
                "{w}×{h} stage {i}:\n{}",
                lines.join("\n")
            );
            let (y0, y1) = (target.y as usize, (target.y + target.height) as usize);
            assert!(
                bottom < y0 || top >= y1,
                "{w}×{h} stage {i}: the caption (rows {top}–{bottom}) covers its region (rows {y0}–{y1}):\n{}",
                lines.join("\n")
            );
            a.update(Action::NextRequest);
        }
        assert!(requests.windows(2).all(|p| p[0] <= p[1]), "{requests:?}");
    }
}

/// `f` at the last request is `tail -f`: each new request is shown as it
/// arrives; at an earlier request the view keeps its place (tests/tui.rs).
#[test]
fn f_at_the_last_request_follows_the_new_ones() {
    use mcscope::tui::keymap::Action;
    use std::io::Write;
    let t = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl"),
    )
    .unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let path = t.path().join("live.jsonl");
    // All but the last prompt and its answer: 5 requests.
    let cut = lines.len() - 2;
    std::fs::write(&path, lines[..cut].join("\n") + "\n").unwrap();
    let mut a = App::session(cli::setup(&path, &Opts::default()).unwrap());
    assert_eq!(a.view().unwrap().k, 5);
    a.update(Action::ToggleFollow);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{}", lines[cut..].join("\n")).unwrap();
    drop(f);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !a.view_mut().unwrap().poll_follow() {
        assert!(
            std::time::Instant::now() < deadline,
            "the growth was never seen"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let v = a.view().unwrap();
    assert_eq!(v.setup.session.requests.len(), 6);
    assert_eq!(v.k, 6, "the view follows to the new last request");
    assert!(screen(&a, 80, 24)[0].contains("request 6/6"));
}
