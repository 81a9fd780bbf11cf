//! The picker in a real terminal: a folder's sessions, the fuzzy filter, days and zones.

use super::*;

/// `request N/M` somewhere in the line, as (N, M).
fn request_of(line: &str) -> Option<(u32, u32)> {
    line.match_indices("request ").find_map(|(i, m)| {
        let rest = &line[i + m.len()..];
        let (n, rest) = rest.split_once('/')?;
        let m: String = rest.chars().take_while(char::is_ascii_digit).collect();
        Some((n.parse().ok()?, m.parse().ok()?))
    })
}

#[test]
fn directory_picker_opens_a_session_and_comes_back() {
    let Some(t) = Tmux::start("picker", 120, 40) else {
        return;
    };
    t.type_line("mcscope sample-sessions");
    t.wait_text("newest first");
    // The demo's row, once the background scan has read it: its first prompt.
    let s = t.wait_text("Does src/config.ts hard-code the port");
    assert!(
        s.iter()
            .any(|l| l.contains("/home/dev/shop") && l.contains("Does src/config.ts")),
        "claude-demo.jsonl not listed with its project:\n{}",
        s.join("\n")
    );

    t.key("Enter");
    let s = t.wait("a session screen with a request N/N header", |s| {
        header(s).is_some_and(|h| h.iter().any(|l| request_of(l).is_some_and(|(n, m)| n == m)))
    });
    assert!(!has(&s, "newest first"), "{}", s.join("\n"));

    t.key("Escape");
    let s = t.wait_text("newest first");
    assert!(!has(&s, AGE_LIST), "{}", s.join("\n"));

    t.key("q");
    t.assert_shell_back();
}

/// The picker's fuzzy filter in the real binary: `/`, then each typed key narrows the
/// rows at once; Enter opens the match, Esc comes back to the filtered list, and Esc
/// again clears the filter.
#[test]
fn typing_a_filter_in_the_picker_narrows_the_rows_as_you_type() {
    let Some(t) = Tmux::start("pickfilter", 100, 30) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("-srv-work-app");
    std::fs::create_dir_all(&proj).unwrap();
    for (name, prompt) in [
        ("a.jsonl", "Rename the zebra module"),
        ("b.jsonl", "Fix the flaky login test"),
        ("c.jsonl", "Write the release notes"),
    ] {
        let text = format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{prompt}\"}}}}\n\
             {{\"type\":\"assistant\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}]}}}}\n"
        );
        std::fs::write(proj.join(name), text).unwrap();
    }
    let path = dir.path().display().to_string();
    assert!(!path.contains('\''), "temp path with a quote: {path}");
    t.type_line(&format!("mcscope '{path}'"));
    // The picker fills its rows as its background pass reads the files: all
    // three are waited for (one on screen did not mean the others were yet,
    // under a loaded machine).
    let rows = [
        "Write the release notes",
        "Rename the zebra module",
        "Fix the flaky login test",
    ];
    t.wait("the three sessions listed", |s| {
        rows.iter().all(|r| has(s, r))
    });

    t.key("/");
    t.wait_text("filter: ▏");
    // Each key narrows the list as it is typed: "zeb" already leaves one row.
    for k in ["z", "e", "b"] {
        t.key(k);
    }
    let s = t.wait_text("filter: zeb▏  1 of 3");
    assert!(has(&s, "Rename the zebra module"), "{}", s.join("\n"));
    assert!(
        !has(&s, "Fix the flaky login test") && !has(&s, "Write the release notes"),
        "{}",
        s.join("\n")
    );
    // Backspace widens it again ("ze" still only matches the zebra).
    t.key("BSpace");
    t.wait_text("filter: ze▏");

    // Enter opens the match; Esc comes back to the picker, the filter kept.
    t.key("Enter");
    t.wait("the session screen", |s| header(s).is_some());
    t.key("Escape");
    let s = t.wait_text("filter: ze (1 of 3, Esc clears)");
    assert!(!has(&s, "Write the release notes"), "{}", s.join("\n"));
    t.key("Escape");
    let s = t.wait_text("Write the release notes");
    assert!(has(&s, "Fix the flaky login test") && !has(&s, "filter:"));

    t.key("q");
    t.assert_shell_back();
}

/// `--since`/`--until` and `-z` in the TUI as well as the CLI: the picker over the
/// samples keeps the one session whose first record is on that day, and the
/// session's header shows its time in the zone asked for.
#[test]
fn the_picker_keeps_the_days_asked_for_and_shows_times_in_the_zone() {
    let Some(t) = Tmux::start("since", 120, 30) else {
        return;
    };
    t.type_line("mcscope --since 20260402 --until 2026-04-02 -z Europe/Berlin sample-sessions");
    let screen = t.wait_text("Does src/config.ts hard-code");
    assert!(has(&screen, " 1 session "), "{}", screen.join("\n"));
    assert!(!has(&screen, "flaky"), "{}", screen.join("\n"));
    t.key("Enter");
    // claude-demo's last request, 10:29:55 UTC, is 12:29:55 in Berlin (CEST).
    let screen = t.wait_header("6/6");
    assert!(
        has(&screen, "2026-04-02 12:29:55 CEST"),
        "{}",
        screen.join("\n")
    );
    t.key("q");
    t.assert_shell_back();
}
