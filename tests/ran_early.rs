//! SPEC §16.I's "what ran" stops its pass after the last request where `auto`
//! chooses a kind still open (issue 43: the pass stepped a long session to its
//! end for a kind no request of its version chooses). Stopping there must not
//! change one answer: on every corpus session, the bundled samples, and copies
//! of a corpus session whose version changes half way (so one kind stops
//! being chosen while the other is still open), the early pass gives what the
//! pass over every request gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use mcscope::analysis::{ran, ran_every_request};
use mcscope::setup::Opts;
use std::path::{Path, PathBuf};

fn same(path: &Path) -> usize {
    let setup = common::setup(path, Opts::default());
    let early = ran(&setup);
    let whole = ran_every_request(&setup);
    assert_eq!(early, whole, "{}", path.display());
    early.len()
}

#[test]
fn what_ran_stops_early_with_the_answers_of_a_whole_pass() {
    let mut files: Vec<PathBuf> = corpus::jsonl_files();
    if let Some(dir) = corpus::dir() {
        for f in std::fs::read_dir(dir.join("opencode"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "json") {
                files.push(f.path());
            }
        }
    }
    files.extend(corpus::claude_samples());
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    for name in [
        "gemini-build.jsonl",
        "gemini-build-masked.jsonl",
        "opencode-build.db",
        "cline-task",
        "api-agent.json",
    ] {
        files.push(samples.join(name));
    }
    let mut kinds = 0;
    for f in &files {
        kinds += same(f);
    }
    // The samples alone give 14 (two kinds for each Claude Code sample).
    assert!(kinds >= 14, "{kinds} answers compared");
}

/// A long corpus session written again with its version changed half way:
/// before, a version whose `auto` runs idle-server; after, one whose `auto`
/// runs the budget plan; and the other way round. The early pass stops at a
/// different place in each, and answers as the whole pass does.
#[test]
fn what_ran_stops_early_where_the_version_changes() {
    let Some(src) =
        corpus::file("claude-code/marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    else {
        return;
    };
    let text = std::fs::read_to_string(&src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    for (name, first, second) in [
        ("new-then-old.jsonl", "2.1.336", "2.1.39"),
        ("old-then-new.jsonl", "2.1.39", "2.1.336"),
    ] {
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            let mut v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) => {
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
            };
            if v.get("version").is_some() {
                let version = if i < lines.len() / 2 { first } else { second };
                v["version"] = serde_json::json!(version);
            }
            out.push_str(&v.to_string());
            out.push('\n');
        }
        let path = dir.path().join(name);
        std::fs::write(&path, out).unwrap();
        assert_eq!(same(&path), 2, "{name}");
    }
}
