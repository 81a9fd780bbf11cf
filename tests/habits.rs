//! The habits users bring from ccusage, claude-code-log and ripgrep (SPEC §7a),
//! through the real binary: `-j`, `--since`/`--until`, `-z`, the session
//! folders, empty results, and bad config or sidecar values named by key.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary with a clean environment for what these tests pin: a home of
/// the test's own (no sessions of the machine), no config, `TZ` as given.
fn mcscope(home: &Path, tz: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(root())
        .env("HOME", home)
        .env("TZ", tz)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("QWEN_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("MCSCOPE_CONFIG")
        .output()
        .expect("mcscope runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// The demo session with its day moved: `2026-04-02T09:…` becomes `day` at `hour`.
fn demo_on(dir: &Path, name: &str, day: &str, hour: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join(DEMO)).unwrap();
    let text = text
        .replace("2026-04-02T09:", &format!("{day}T{hour}:"))
        .replace("2026-04-02T10:", &format!("{day}T{hour}:"));
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn session_paths(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let p = s["path"].as_str().unwrap();
            Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn dash_j_is_format_json_on_every_command_that_prints_json_and_wins_over_text() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for cmd in [
        vec!["plan", DEMO],
        vec!["timeline", DEMO],
        vec!["explain", DEMO, "toolu_A"],
        vec!["evidence", DEMO],
        vec!["compare", DEMO],
    ] {
        let long: Vec<&str> = cmd.iter().copied().chain(["--format", "json"]).collect();
        let want = json(&mcscope(h, "UTC", &long));
        for flag in [&["-j"][..], &["--json"], &["-j", "--format", "text"]] {
            let args: Vec<&str> = cmd.iter().copied().chain(flag.iter().copied()).collect();
            assert_eq!(json(&mcscope(h, "UTC", &args)), want, "{args:?}");
        }
    }
}

#[test]
fn text_shows_times_in_the_display_zone_with_its_abbreviation_and_json_keeps_utc() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let berlin = stdout(&mcscope(
        h,
        "UTC",
        &["timeline", DEMO, "-z", "Europe/Berlin"],
    ));
    assert!(
        berlin.contains("  1  2026-04-02 11:14:03 CEST "),
        "{berlin}"
    );
    // The default is the system's zone, TZ honoured.
    let tokyo = stdout(&mcscope(h, "Asia/Tokyo", &["plan", DEMO]));
    assert!(tokyo.contains("at 2026-04-02 19:29:55 JST "), "{tokyo}");
    let utc = stdout(&mcscope(h, "UTC", &["evidence", DEMO]));
    assert!(
        utc.contains("! request 6 at 2026-04-02 10:29:55 UTC:"),
        "{utc}"
    );
    // JSON keeps the recorded strings, whatever the zone.
    let v = json(&mcscope(
        h,
        "UTC",
        &["timeline", DEMO, "-j", "-z", "Europe/Berlin"],
    ));
    assert_eq!(v["requests"][0]["at"], "2026-04-02T09:14:03.118Z");
    let bad = mcscope(h, "UTC", &["plan", DEMO, "-z", "Mars/Olympus"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("unknown time zone \"Mars/Olympus\""),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn since_and_until_keep_the_days_of_a_folder_in_the_display_zone() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = tempfile::tempdir().unwrap();
    demo_on(dir.path(), "a/early.jsonl", "2026-02-10", "09");
    // 23:xx UTC on the 13th: the 14th in Berlin.
    demo_on(dir.path(), "b/late.jsonl", "2026-02-13", "23");
    demo_on(dir.path(), "c/later.jsonl", "2026-02-20", "09");
    let d = dir.path().to_str().unwrap();
    let names = |tz: &str, extra: &[&str]| {
        let args: Vec<&str> = ["compare", d, "-j", "-q", "-z", tz]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        session_paths(&json(&mcscope(h, "UTC", &args)))
    };
    assert_eq!(names("UTC", &[]).len(), 3);
    assert_eq!(
        names("UTC", &["--since", "20260213", "--until", "2026-02-13"]),
        ["late.jsonl"]
    );
    assert!(
        names(
            "Europe/Berlin",
            &["--since", "20260213", "--until", "2026-02-13"]
        )
        .is_empty()
    );
    assert_eq!(
        names("Europe/Berlin", &["--since", "2026-02-14"]),
        ["late.jsonl", "later.jsonl"]
    );
    assert_eq!(names("UTC", &["--until", "2026-02-10"]), ["early.jsonl"]);
    for bad in ["2026-02-30", "14/02/2026", "soon"] {
        let o = mcscope(h, "UTC", &["compare", d, "--since", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("YYYY") || stderr(&o).contains("not a date"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn an_empty_folder_or_window_is_an_empty_success_for_compare_and_exit_2_elsewhere() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let o = mcscope(h, "UTC", &["compare", e, "-j"]);
    let v = json(&o);
    assert_eq!(v["sessions"], serde_json::json!([]));
    let rows = v["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r["fires"] == 0 && r["tokens_not_sent"] == 0),
        "{v}"
    );
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no main-thread session") && err.contains(e),
        "{err}"
    );
    // A window that leaves nothing: the same, and the note says which days.
    let o = mcscope(
        h,
        "UTC",
        &["compare", "sample-sessions", "--since", "2099-01-01"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("from 2099-01-01"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // The text is an empty result: no table of zeros, no price blamed.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.is_empty(), "{out}");
    let o = mcscope(h, "UTC", &["compare", e]);
    assert!(
        o.status.success() && o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // Any other subcommand: still exit 2 (SPEC §15.19).
    for cmd in ["plan", "timeline", "evidence"] {
        assert_eq!(mcscope(h, "UTC", &[cmd, e]).status.code(), Some(2), "{cmd}");
    }
    // The picker opens empty and says so (off a terminal it then stops there).
    let o = mcscope(h, "UTC", &[e]);
    let err = stderr(&o);
    assert!(
        err.contains("no sessions under") && err.contains("mcscope demo"),
        "{err}"
    );
    assert!(err.contains("not a terminal"), "{err}");
}

#[test]
fn without_a_path_compare_reads_every_claude_base_and_the_qwen_base() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    demo_on(h, ".claude/projects/-a/one.jsonl", "2026-02-10", "09");
    demo_on(
        h,
        ".config/claude/projects/-b/two.jsonl",
        "2026-02-11",
        "09",
    );
    let names = session_paths(&json(&mcscope(h, "UTC", &["compare", "-j", "-q"])));
    assert_eq!(names, ["one.jsonl", "two.jsonl"]);
    // A comma-separated CLAUDE_CONFIG_DIR replaces the home folders.
    let other = tempfile::tempdir().unwrap();
    let x = other.path().join("x");
    let y = other.path().join("y");
    demo_on(&x, "projects/-c/three.jsonl", "2026-02-12", "09");
    demo_on(&y, "projects/-d/four.jsonl", "2026-02-12", "10");
    let list = format!("{}, {}", x.display(), y.display());
    let o = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["compare", "-j", "-q"])
        .env("HOME", h)
        .env("TZ", "UTC")
        .env("CLAUDE_CONFIG_DIR", &list)
        .env("QWEN_RUNTIME_DIR", other.path().join("qwen"))
        .env_remove("MCSCOPE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert_eq!(session_paths(&json(&o)), ["four.jsonl", "three.jsonl"]);
    // And the writer refuses each of them.
    let o = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["compare", "-q", "-o"])
        .arg(y.join("out.txt"))
        .current_dir(root())
        .arg(DEMO)
        .env("HOME", h)
        .env("CLAUDE_CONFIG_DIR", &list)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!y.join("out.txt").exists());
    // No session anywhere: the picker names every folder it looked in.
    let bare = tempfile::tempdir().unwrap();
    let o = mcscope(bare.path(), "UTC", &[]);
    let err = stderr(&o);
    for f in [
        ".claude/projects",
        ".config/claude/projects",
        ".qwen/projects",
    ] {
        assert!(err.contains(f), "{f}: {err}");
    }
}

#[test]
fn a_bad_config_or_sidecar_value_names_the_file_the_line_the_key_and_the_type() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let config = h.join("config.toml");
    std::fs::write(&config, "[policy]\ngap_threshold_minutes = \"soon\"\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["plan", DEMO])
        .current_dir(root())
        .env("MCSCOPE_CONFIG", &config)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        format!(
            "mcscope: {}: line 2: policy.gap_threshold_minutes: expected a number, found \"soon\"",
            config.display()
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    std::fs::copy(root().join(DEMO), &session).unwrap();
    let sidecar = dir.path().join("s.mcscope.json");
    std::fs::write(
        &sidecar,
        "{\"keep_recent\": 2,\n \"qwen\": {\"trigger_threshold\": \"ten\"}}",
    )
    .unwrap();
    let o = mcscope(h, "UTC", &["plan", session.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        format!(
            "mcscope: {}: bad sidecar: line 2: qwen.trigger_threshold: expected a whole number, 0 or more, found \"ten\"",
            sidecar.display()
        )
    );
}

/// A comma-separated `$CLAUDE_CONFIG_DIR` (ccusage's habit) names its first entry
/// as the base of the memory roots, never the whole list as one folder.
#[test]
fn a_comma_separated_claude_config_dir_gives_the_memory_roots_of_its_first_entry() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args([
            "plan",
            "sample-sessions/claude-demo.jsonl",
            "--protect",
            "-j",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "CLAUDE_CONFIG_DIR",
            "/tmp/first-install, /tmp/second-install",
        )
        .env_remove("MCSCOPE_CONFIG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dirs: Vec<&str> = v["protection"]["memory_roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["dir"].as_str().unwrap())
        .collect();
    assert!(dirs.contains(&"/tmp/first-install/memory"), "{dirs:?}");
    assert!(
        dirs.contains(&"/tmp/first-install/projects/-home-dev-shop/memory"),
        "{dirs:?}"
    );
    assert!(!dirs.iter().any(|d| d.contains(',')), "{dirs:?}");
}

/// SPEC §7a (the words issue): `--color always` and `FORCE_COLOR` colour the
/// text reports too, not only the TUI — mcscope's own marks, never a file
/// (`-o`) and never JSON; `--color never`, `NO_COLOR` and a pipe leave them
/// plain.
#[test]
fn the_text_reports_obey_color_and_force_color() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcscope"));
        c.args(args)
            .current_dir(root())
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR");
        for (k, v) in env {
            c.env(k, v);
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    let demo = "sample-sessions/claude-demo.jsonl";
    for cmd in [
        vec!["plan", demo],
        vec!["timeline", demo],
        vec!["evidence", demo],
        vec!["explain", demo, "toolu_A"],
        vec!["compare", demo, "-q"],
        vec!["config", "--print"],
    ] {
        let plain = run(&cmd, &[]);
        assert!(!plain.contains('\x1b'), "{cmd:?} in a pipe: {plain}");
        let mut always = cmd.clone();
        always.extend(["--color", "always"]);
        let painted = run(&always, &[]);
        assert!(
            painted.contains("\x1b["),
            "{cmd:?} --color always: {painted}"
        );
        // The same text under the colour.
        let stripped: String = {
            let mut out = String::new();
            let mut rest = painted.as_str();
            while let Some(i) = rest.find('\x1b') {
                out.push_str(&rest[..i]);
                let end = rest[i..].find('m').unwrap();
                rest = &rest[i + end + 1..];
            }
            out.push_str(rest);
            out
        };
        assert_eq!(stripped, plain, "{cmd:?}");
        let forced = run(&cmd, &[("FORCE_COLOR", "1")]);
        assert!(forced.contains("\x1b["), "{cmd:?} FORCE_COLOR=1");
        let both = run(&cmd, &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]);
        assert!(!both.contains('\x1b'), "{cmd:?} NO_COLOR wins");
        let mut never = cmd.clone();
        never.extend(["--color", "never"]);
        assert!(
            !run(&never, &[("FORCE_COLOR", "1")]).contains('\x1b'),
            "{cmd:?}"
        );
    }
    // JSON and files are never painted.
    let j = run(
        &["plan", demo, "--format", "json", "--color", "always"],
        &[],
    );
    assert!(!j.contains('\x1b'));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.txt");
    run(
        &[
            "explain",
            demo,
            "toolu_A",
            "-o",
            out.to_str().unwrap(),
            "--color",
            "always",
        ],
        &[],
    );
    assert!(!std::fs::read_to_string(&out).unwrap().contains('\x1b'));
}
