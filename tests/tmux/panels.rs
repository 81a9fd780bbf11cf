//! Keys and panels in a real terminal: help, y, f, r, the API preset, the compare panel.

use super::*;

/// At 80×24 the help scrolls (↓ and PgDn) to its last line; Esc and q close it; Esc at
/// the top level keeps the program running; `:3` jumps; `--at` applies.
#[test]
fn at_80x24_help_scrolls_to_the_end_esc_never_quits_and_the_command_line_jumps() {
    let Some(t) = Tmux::start("keys80", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO} --policy count --at 4"));
    t.wait_header("4/6");
    t.key("?");
    t.wait_text("previous request");
    // The legend's last line, reached by scrolling.
    let last = mcscope::tui::keymap::help_lines()
        .last()
        .unwrap()
        .trim()
        .to_string();
    // One ↓ per line of the help is enough to reach its end, however slowly the
    // keys are taken on a loaded machine; then the last line must show.
    for _ in 0..mcscope::tui::keymap::help_lines().len() {
        t.key("Down");
    }
    t.wait_text(&last);
    for needle in ["▲ a plan fired", "✕ the simulated cache prefix broke"] {
        t.key("g");
        t.wait_text("previous request");
        t.key("PageDown");
        let mut found = false;
        for _ in 0..10 {
            if has(&t.capture(), needle) {
                found = true;
                break;
            }
            t.key("PageDown");
        }
        assert!(found, "{needle:?} not reached with PgDn");
    }
    // q closes the help, it does not quit.
    t.key("q");
    t.wait("the help to close", |s| {
        !has(s, "previous request") && has(s, AGE_LIST)
    });
    // Esc at the top level: still running (the next key apart from it, or the
    // terminal parser reads Esc and ':' as one Alt+: key).
    t.key("Escape");
    std::thread::sleep(std::time::Duration::from_millis(300));
    t.key(":");
    t.wait_text(":▏");
    t.type_line("2");
    t.wait_header("2/6");
    t.key(":");
    t.wait_text(":▏");
    t.type_line("gap soon");
    t.wait_text("expected minutes");
    t.key("q");
    t.assert_shell_back();
}

#[test]
fn y_puts_the_selected_id_in_tmux_s_buffer() {
    let Some(t) = Tmux::start("copy", 120, 40) else {
        return;
    };
    t.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    t.type_line(&format!("mcscope {DEMO} --policy idle"));
    t.wait_header("6/6");
    t.key("Down");
    t.key("y");
    t.wait_text("copied toolu_B");
    let start = Instant::now();
    loop {
        let out = Command::new("tmux")
            .args(["-f", "/dev/null", "-u", "-L", &t.socket, "show-buffer"])
            .env_remove("TMUX")
            .output()
            .unwrap();
        if String::from_utf8_lossy(&out.stdout) == "toolu_B" {
            break;
        }
        assert!(
            start.elapsed() < TIMEOUT,
            "tmux's buffer: {:?} {:?}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(POLL);
    }
    t.key("q");
    t.assert_shell_back();
}

/// At 80×24 and 200×50 the footer's cache verdict is on screen; after `f` a file
/// that grows is followed (the header counts the new requests).
#[test]
fn the_verdict_shows_at_both_sizes_and_f_follows_a_growing_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(manifest().join(DEMO)).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let live = dir.path().join("live.jsonl");
    // All but the last prompt and its answer: 5 requests of 6.
    let cut = lines.len() - 2;
    std::fs::write(&live, lines[..cut].join("\n") + "\n").unwrap();
    for (w, h) in [(80, 24), (200, 50)] {
        let Some(t) = Tmux::start(&format!("verdict{w}"), w, h) else {
            return;
        };
        t.type_line(&format!(
            "mcscope {} --policy idle --keep-recent 2",
            live.display()
        ));
        // The whole screen, footer included (a capture can catch a frame half drawn).
        t.wait("request 5/5 with the cache verdict in the footer", |s| {
            header(s).is_some_and(|h| has(h, "request 5/5"))
                && s.iter().any(|l| l.starts_with("✓ cache prefix kept"))
        });
        t.key("f");
        t.wait_text("following");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .unwrap();
        use std::io::Write;
        writeln!(f, "{}", lines[cut..].join("\n")).unwrap();
        drop(f);
        // Followed from the last request: the view moves to the new last one
        // (`tail -f`). Request 6 comes after a 75.5-minute gap: idle clears,
        // the prefix breaks.
        let s = t.wait_header("6/6");
        let verdict = t.wait("the broken verdict", |s| {
            s.iter()
                .any(|l| l.starts_with("✕ cache prefix broken at message"))
        });
        assert!(!verdict.is_empty(), "{}", s.join("\n"));
        t.key("q");
        t.assert_shell_back();
        std::fs::write(&live, lines[..cut].join("\n") + "\n").unwrap();
    }
}

#[test]
fn r_jumps_to_the_budget_record_and_the_explain_panel_shows_it() {
    let Some(t) = Tmux::start("evidence", 120, 40) else {
        return;
    };
    t.type_line("mcscope sample-sessions/claude-budget.jsonl --at 1");
    t.wait_header("1/10");
    // The evidence arrives from the background: request 7 holds a record and
    // an observed break, so the break's mark (first of `! ✕ ◇ ^ ▲`), here
    // its cause's glyph `✂` (a clearing, SPEC §16.S), under request 7, in
    // the 7th cell after the 9-column label (one column each).
    let s = t.wait("the ✂ mark", |s| {
        marks_line(s).is_some_and(|l| l.contains('✂'))
    });
    let marks = marks_line(&s).unwrap();
    assert_eq!(
        marks.chars().skip(9).position(|c| c == '✂'),
        Some(6),
        "{marks:?}"
    );
    // r: the next request with evidence, 7, where a break was observed too.
    t.key("r");
    t.wait_header("7/10");
    // The evidence is computed in the background: wait for its line.
    t.wait_text("! observed cache break: read 30,000 of 138,300 expected (drop 108,300)");
    // Enter on the first result (toolu_…d3PBLK, the oldest, cleared by budget): the
    // record that names it.
    t.key("g");
    t.key("Enter");
    // The whole panel (a capture can catch it half drawn).
    t.wait(
        "the record, its figures and its comparison in the panel",
        |s| {
            has(
                s,
                "◇ microcompact_boundary at line 19 (budget writer) belongs to request 7",
            ) && has(s, "pre_tokens 122,000  tokens_saved 62,000")
                && has(s, "against the budget plan: agrees")
        },
    );
    t.key("Escape");
    t.wait("the panel to close", |s| !has(s, "◇ microcompact_boundary"));
    // R from 7: nothing earlier holds evidence.
    t.key("R");
    t.wait_text("no earlier request where the transcript holds evidence");
    t.key("q");
    t.assert_shell_back();
}

/// The real budget record of the corpus (Claude Code 2.1.17, line 343, request 48).
#[test]
fn on_the_corpus_r_reaches_the_real_budget_record() {
    let Some(corpus) = corpus::file("claude-code/entireio__cli__38-ecf75f2f1d-0-full.jsonl") else {
        return;
    };
    let Some(t) = Tmux::start("corpusev", 120, 40) else {
        return;
    };
    t.type_line(&format!("mcscope {} --at 1", corpus.display()));
    t.wait_header("1/142");
    t.wait("the evidence marks", |s| {
        marks_line(s).is_some_and(|l| l.contains('◇') || l.contains('✂') || l.contains('!'))
    });
    t.key("r");
    t.wait_header("48/142");
    t.key(":");
    t.wait_text(":▏");
    t.type_line("explain toolu_01Fj8LHRfhQzYgx2JqnZRRdo");
    // Both lines in one wait: a capture can fall in the middle of a frame.
    t.wait("the record and its figures in the explain panel", |s| {
        has(
            s,
            "◇ microcompact_boundary at line 343 (budget writer) belongs to request 48",
        ) && has(s, "pre_tokens 65,398  tokens_saved 45,149")
    });
    t.key("q");
    t.wait("the panel to close", |s| !has(s, "◇ microcompact_boundary"));
    t.key("q");
    t.assert_shell_back();
}

#[test]
fn the_api_preset_shows_the_server_view_and_plus_tunes_its_keep() {
    let Some(t) = Tmux::start("api", 160, 45) else {
        return;
    };
    // The sample's sidecar selects the api preset (SPEC §11).
    t.type_line("mcscope sample-sessions/api-agent.json");
    let s = t.wait_header("28/28");
    let head = header(&s).unwrap();
    assert!(
        has(head, "plan api (api)") && has(head, "keep 5ˢ"),
        "header: {head:?}"
    );
    t.wait_text("server view after the edits (right)");
    t.wait_text("[Old tool result content cleared]");
    t.key("+");
    t.wait("\"keep 6*\" in the header", |s| {
        header(s).is_some_and(|h| has(h, "keep 6*"))
    });
    // p: api → recorded → api (SPEC §15.3; its status line: tests/tui_api.rs).
    // Each step waits for its own header: the api header is already on the
    // screen before the first p, so waiting for it there passed only when the
    // capture came before the redraw.
    t.key("p");
    t.wait("the recorded plan in the header", |s| {
        header(s).is_some_and(|h| has(h, "plan recorded"))
    });
    t.key("p");
    t.wait("the api plan back in the header", |s| {
        header(s).is_some_and(|h| has(h, "plan api (api)") && has(h, "keep 6*"))
    });
    t.key("q");
    t.assert_shell_back();
}

/// The compare panel in the real binary: `c` opens it (the rows of `mcscope
/// compare`, computed in the background), ↓ and Enter apply a row, and the
/// header shows the new values marked as changed.
#[test]
fn c_opens_the_compare_panel_and_enter_applies_a_row_to_the_header() {
    let Some(t) = Tmux::start("compare", 140, 50) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO} --policy count"));
    let s = t.wait_header("6/6");
    assert!(has(header(&s).unwrap(), "plan count"), "{s:?}");
    t.key("c");
    // Row 0 is the baseline (SPEC §9a), row 1 the recommended one on the demo;
    // row 7 is idle keep 2 gap 5m.
    let s = t.wait_text("recommended: row 1 (claude idle keep 1 gap 5m)");
    assert!(has(&s, "98 settings"), "{}", s.join("\n"));
    assert!(has(&s, "recorded: what happened"), "{}", s.join("\n"));
    assert!(has(&s, "claude idle keep 2 gap 5m"), "{}", s.join("\n"));
    for _ in 0..7 {
        t.key("Down");
    }
    t.key("Enter");
    // The whole frame: the header's new values, the status line, the panel gone.
    let s = t.wait(
        "the applied setting in the header and the status line",
        |s| {
            header(s).is_some_and(|h| has(h, "plan idle*") && has(h, "gap ≥ 5 min*"))
                && has(s, "applied compare row 7")
                && !has(s, "recommended: row 1")
        },
    );
    let head = header(&s).unwrap().join("\n");
    assert!(head.contains("keep 2"), "{head}");
    t.key("q");
    t.assert_shell_back();
}
