//! `mcscope statusline` through the real binary, fed the JSON Claude Code sends
//! a status-line command (SPEC §12, §15.18): the line and its JSON, the exit-0
//! cases, the window, `MCSCOPE_NOW`, the cache (an appended session continued
//! equals a cold read), and the corpus against `mcscope evidence`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::evidence::{Tx, iso_min, usage};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// What Claude Code sends (its status-line docs), for `transcript` and `model_id`.
fn claude_stdin(transcript: &Path, model_id: &str) -> String {
    json!({
        "hook_event_name": "Status",
        "session_id": "abc123",
        "transcript_path": transcript,
        "cwd": "/r",
        "model": {"id": model_id, "display_name": "Opus"},
        "workspace": {"current_dir": "/r", "project_dir": "/r"},
        "version": "2.1.17",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.01, "total_duration_ms": 45000}
    })
    .to_string()
}

/// A fake home with its own cache folder: nothing of the user's is read or written.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }
    fn cache_files(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(self.cache().join("mcscope")) {
            Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }
    fn run(&self, stdin: &str, args: &[&str]) -> Output {
        self.run_env(stdin, args, &[])
    }
    fn run_env(&self, stdin: &str, args: &[&str], env: &[(&str, &OsStr)]) -> Output {
        std::fs::create_dir_all(self.home()).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcscope"));
        cmd.arg("statusline")
            .args(args)
            .env("HOME", self.home())
            .env("XDG_CACHE_HOME", self.cache())
            .env("MCSCOPE_NOW", iso_min(60.0))
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
    fn json(&self, transcript: &Path) -> Value {
        let out = self.run(
            &claude_stdin(transcript, "claude-opus-4-5"),
            &["--format", "json"],
        );
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    }
    fn line(&self, transcript: &Path, model: &str) -> String {
        let out = self.run(&claude_stdin(transcript, model), &[]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

/// SPEC §10's evidence session (common::evidence) up to request 4: a budget
/// record before m2, a break at m3 (cache deletions grew), a 9.5-minute gap
/// and a break at m4 (ttl), with a clearing `applied_edits`.
fn session() -> Tx {
    common::evidence::evidence_tx()
}

fn lines(tx: &Tx, dir: &Path) -> Vec<String> {
    let p = tx.write(dir);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::remove_file(p).unwrap();
    text.lines().map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_line_and_its_json_give_the_sessions_figures() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let p = session().write(dir.path());
    let mut v = home.json(&p);
    let cost = v.as_object_mut().unwrap().remove("cost").unwrap();
    // P of m4 = 5 + 41,000 + 0; R / (input + W + R) over the four responses:
    // 51,000 / (20 + 112,000 + 51,000) = 0.312844… → four decimals.
    assert_eq!(
        v,
        json!({
            "ctx_tokens": 41_005,
            "window_tokens": 200_000,
            "hit_rate": 0.3128,
            "compactions": 0,
            "recorded_clearings": 2,
            "last_break": {"at": iso_min(10.1), "minutes_ago": 49, "explanation": "ttl"}
        })
    );
    // SPEC §16.S: the causes are the bill's (the whole loader's partition,
    // another path through the same records), the last break's cost its
    // re-written tokens at the write rate; the TTL ran out long ago.
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["bill", p.to_str().unwrap(), "--by", "session", "-j"])
        .env("HOME", home.home())
        .output()
        .unwrap();
    let bill: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &bill["rows"][0];
    for (cause, c) in row["cache_write_causes"].as_object().unwrap() {
        assert_eq!(cost["causes"][cause], c["usd"], "{cause}");
    }
    assert_eq!(cost["session_write_usd"], row["cache_write_usd"]);
    let b = row["breaks"].as_array().unwrap().last().unwrap();
    assert_eq!(
        cost["last_break"],
        json!({"cause": b["cause"], "usd": b["usd"]})
    );
    assert_eq!(cost["last_break"]["cause"], "ttl");
    assert_eq!(cost["ttl_left_s"], 0);
    // Within 80 columns (§18.11): the zero count, the word microcompacts
    // and the hit rate go, and the break clause, which `⟳` already says
    // (the last break is the latest response's); the cost words stay.
    let line = home.line(&p, "claude-opus-4-5");
    assert_eq!(
        line,
        "ctx 41k/200k · 2 · ⟳ $0.26 ttl · cold · next prompt re-writes 41k ≈ $0.26\n"
    );
    assert!(line.trim_end().chars().count() <= 80);
}

#[test]
fn a_1m_model_has_a_million_token_window_and_no_model_none() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let p = session().write(dir.path());
    assert!(
        home.line(&p, "claude-sonnet-4-5[1m]")
            .starts_with("ctx 41k/1M · ")
    );
    let out = home.run(&json!({"transcript_path": p}).to_string(), &["-j"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["window_tokens"], Value::Null);
    let out = home.run(&json!({"transcript_path": p}).to_string(), &[]);
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("ctx 41k · "), "{line}");
    assert!(!line.contains("41k/"), "{line}");
}

#[test]
fn mcscope_now_sets_the_minutes_ago() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let p = session().write(dir.path());
    // m4, the last break, was at minute 10.1.
    for (now, minutes) in [(10.1, 0), (25.5, 15), (130.2, 120), (5.0, 0)] {
        let out = home.run_env(
            &claude_stdin(&p, "m"),
            &["-j"],
            &[("MCSCOPE_NOW", iso_min(now).as_ref())],
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["last_break"]["minutes_ago"], minutes, "now {now}");
    }
}

#[test]
fn bad_input_and_unreadable_transcripts_print_nothing_and_exit_0() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let unreadable = session().write(dir.path());
    let locked = dir.path().join("locked.jsonl");
    std::fs::rename(&unreadable, &locked).unwrap();
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let missing = dir.path().join("missing.jsonl");
    let cases: Vec<String> = vec![
        String::new(),
        "not json".into(),
        "[1, 2]".into(),
        json!({"session_id": "x"}).to_string(),
        json!({"transcript_path": 7}).to_string(),
        json!({"transcript_path": ""}).to_string(),
        claude_stdin(&missing, "m"),
        claude_stdin(dir.path(), "m"),
        claude_stdin(&fifo, "m"),
        claude_stdin(Path::new("/dev/zero"), "m"),
    ];
    for stdin in &cases {
        for args in [&[][..], &["-j"][..]] {
            let out = home.run(stdin, args);
            assert!(out.status.success(), "{stdin}: {out:?}");
            assert!(out.stdout.is_empty(), "{stdin}: {out:?}");
        }
    }
    // Root reads any file: the unreadable case is only one when permissions hold.
    let out = home.run(&claude_stdin(&locked, "m"), &[]);
    assert!(out.status.success(), "{out:?}");
}

/// The session written in steps (a partial line among them), each call
/// continuing the cache, against a cold read (a fresh cache) of the same bytes.
#[test]
fn a_session_appended_in_steps_reads_as_a_cold_read_would() {
    let dir = tempfile::tempdir().unwrap();
    let mut tx = session();
    // The appended part brings a compaction and a break after it.
    tx.boundary(10.3, 90_000, 20_000, &["b"])
        .prompt(11.0)
        .rec(
            "system",
            11.1,
            json!({"subtype": "compact_boundary", "content": "Conversation compacted",
                   "compactMetadata": {"trigger": "auto", "preTokens": 80_000}}),
        )
        .prompt(11.2)
        .response("m5", 11.3, usage(2000, 5000, 2000), None, json!({}))
        .prompt(11.5)
        .response("m6", 11.6, usage(100, 7000, 2000), None, json!({}));
    let all = lines(&tx, dir.path());
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, "").unwrap();
    let warm = Home::new();
    let mut written = String::new();
    let mut seen = Vec::new();
    // Steps of 1, 2, 3… lines, the last of each step cut in two once.
    let mut i = 0;
    let mut step = 1;
    while i < all.len() {
        let end = (i + step).min(all.len());
        for (j, l) in all[i..end].iter().enumerate() {
            if j == end - i - 1 && step % 2 == 0 {
                let (a, b) = l.split_at(l.len() / 2);
                append(&p, a);
                written.push_str(a);
                assert_eq!(warm.json(&p), Home::new().json(&p), "mid-line at {}", i + j);
                append(&p, b);
                written.push_str(b);
            } else {
                append(&p, l);
                written.push_str(l);
            }
        }
        let continued = warm.json(&p);
        assert_eq!(continued, Home::new().json(&p), "after line {end}");
        // Nothing appended: the same answer from the cache alone.
        assert_eq!(warm.json(&p), continued);
        seen.push(continued);
        i = end;
        step += 1;
    }
    assert_eq!(written, all.concat());
    let last = seen.last().unwrap();
    assert_eq!(last["compactions"], 1);
    // Two budget records and m4's applied_edits.
    assert_eq!(last["recorded_clearings"], 3);
    assert_eq!(last["last_break"]["explanation"], "compaction");
    // m6: 5 + 100 + 7,000.
    assert_eq!(last["ctx_tokens"], 7105);
    // The warm run kept one entry, and it describes the whole file.
    assert_eq!(warm.cache_files().len(), 1);
}

fn append(p: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn a_shrunk_replaced_or_rewritten_file_is_read_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new();
    let full = lines(&session(), dir.path());
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, full.concat()).unwrap();
    let whole = home.json(&p);
    // Shrunk to the first three requests: m4's ttl break is gone.
    let cut = full.iter().position(|l| l.contains("\"m4\"")).unwrap();
    std::fs::write(&p, full[..cut].concat()).unwrap();
    let shrunk = home.json(&p);
    assert_eq!(shrunk, Home::new().json(&p));
    assert_ne!(shrunk, whole);
    assert_eq!(shrunk["last_break"]["explanation"], "cache_edits");
    // Replaced by another file (a new inode) that is longer than the cached offset.
    let other = dir.path().join("other.jsonl");
    let mut rewritten = full.clone();
    rewritten[0] = rewritten[0].replace("go on", "go on!");
    rewritten.push(full[0].clone());
    std::fs::write(&other, rewritten.concat()).unwrap();
    std::fs::rename(&other, &p).unwrap();
    assert_eq!(home.json(&p), Home::new().json(&p));
    // Rewritten in place, same inode, longer: the first line changed.
    let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    let changed = full[..cut].concat().replace("\"m1\"", "\"n1\"");
    f.write_all(changed.as_bytes()).unwrap();
    drop(f);
    assert_eq!(home.json(&p), Home::new().json(&p));
}

#[test]
fn a_cache_folder_under_a_harness_folder_is_not_written() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let p = session().write(dir.path());
    let claude_cache = home.home().join(".claude/cache");
    std::fs::create_dir_all(home.home().join(".claude")).unwrap();
    let out = home.run_env(
        &claude_stdin(&p, "m"),
        &[],
        &[("XDG_CACHE_HOME", claude_cache.as_os_str())],
    );
    assert!(out.status.success());
    // A model id that is no `claude-*` one has no window (§18.11).
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("ctx 41k · ")
    );
    assert!(!claude_cache.exists(), "wrote under ~/.claude");
    // The default folder (~/.cache) is used when the variable is unset.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    let mut child = cmd
        .arg("statusline")
        .env("HOME", home.home())
        .env_remove("XDG_CACHE_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(claude_stdin(&p, "m").as_bytes())
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    assert_eq!(
        std::fs::read_dir(home.home().join(".cache/mcscope"))
            .unwrap()
            .count(),
        1
    );
}

/// Every main corpus session: the figures `mcscope evidence` reports (the
/// last response's P, the hit rate over its usage, the last observed break
/// with its first explanation that needs no plan).
#[test]
fn the_corpus_agrees_with_evidence() {
    let Some(corpus) = corpus::dir() else {
        return;
    };
    let rd = std::fs::read_dir(corpus.join("claude-code")).unwrap();
    let home = Home::new();
    let mut checked = 0;
    for e in rd {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".jsonl") || name.contains("agent-") {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(["evidence", "--format", "json"])
            .arg(&p)
            .env("HOME", home.home())
            .output()
            .unwrap();
        if !out.status.success() {
            continue;
        }
        let ev: Value = serde_json::from_slice(&out.stdout).unwrap();
        let reqs = ev["requests"].as_array().unwrap();
        let usages: Vec<&Value> = reqs.iter().filter(|r| !r["usage"].is_null()).collect();
        let p_of = |u: &Value| {
            u["input"].as_u64().unwrap()
                + u["cache_write"].as_u64().unwrap_or(0)
                + u["cache_read"].as_u64().unwrap()
        };
        let sum = |k: &str| -> u64 {
            usages
                .iter()
                .map(|r| r["usage"][k].as_u64().unwrap_or(0))
                .sum()
        };
        let denominator = sum("input") + sum("cache_write") + sum("cache_read");
        let live = home.json(&p);
        assert_eq!(
            live["ctx_tokens"],
            usages
                .last()
                .map_or(Value::Null, |r| json!(p_of(&r["usage"]))),
            "{name}"
        );
        let hit = (denominator > 0)
            .then(|| (sum("cache_read") as f64 / denominator as f64 * 10_000.0).round() / 10_000.0);
        assert_eq!(live["hit_rate"], json!(hit), "{name}");
        let last = reqs
            .iter()
            .rev()
            .find_map(|r| r["observed_break"].as_object());
        let first = last.map(|b| {
            b["explanations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap())
                .find(|e| *e != "plan_rewrite")
                .unwrap_or("unexplained")
                .to_string()
        });
        assert_eq!(
            live["last_break"]["explanation"]
                .as_str()
                .map(str::to_string),
            first,
            "{name}"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} corpus sessions checked");
}

/// SPEC §15.18: a `tool_results_cut` record counts as a recorded clearing (the
/// cut sample has one, and its reply's `applied_edits: []` clears nothing).
#[test]
fn a_cut_record_is_a_recorded_clearing() {
    let home = Home::new();
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-cut.jsonl");
    let v = home.json(&p);
    assert_eq!(v["recorded_clearings"], 1, "{v}");
    assert_eq!(v["compactions"], 0);
}

/// SPEC §16.S: before the TTL of the last write runs out, the line says how
/// long is left and the JSON the seconds.
#[test]
fn s16_s_cold_in_minutes_while_the_cache_is_warm() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let p = session().write(dir.path());
    let now = iso_min(11.0);
    let env = [("MCSCOPE_NOW", std::ffi::OsStr::new(&now))];
    let out = home.run_env(&claude_stdin(&p, "claude-opus-4-5"), &["-j"], &env);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let left = v["cost"]["ttl_left_s"].as_i64().unwrap();
    assert!(left > 0, "{v}");
    let out = home.run_env(&claude_stdin(&p, "claude-opus-4-5"), &[], &env);
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.contains(&format!("cold in {}m", (left + 59) / 60)),
        "{line}"
    );
    assert!(line.trim_end().chars().count() <= 80, "{line}");
}
