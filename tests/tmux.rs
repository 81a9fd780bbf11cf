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

#[path = "tmux/panels.rs"]
mod panels;
#[path = "tmux/picker.rs"]
mod picker;
#[path = "tmux/small_screen.rs"]
mod small_screen;
#[path = "tmux/terminal.rs"]
mod terminal;

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

fn row<'a>(rows: &'a [String], needle: &str) -> &'a str {
    rows.iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{}", rows.join("\n")))
}

/// The footer's line of marks (`marks    ` and a glyph per column).
fn marks_line(screen: &[String]) -> Option<&String> {
    screen.iter().find(|l| l.starts_with("marks "))
}
