//! The picker's light scan (`mcscope::scan`) against the full loader, on every real
//! transcript of `shared/corpus/`: the same requests and tool results, the same
//! sub-agent verdict, and the rows a user reads (prompt, project, marks).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use mcscope::scan::{self, Kind};
use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MCSCOPE_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    };
    if dir.join("claude-code").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("MCSCOPE_REQUIRE_CORPUS").as_deref() != Ok("1"),
        "corpus not found at {} (MCSCOPE_REQUIRE_CORPUS=1)",
        dir.display()
    );
    eprintln!("note: corpus not found at {}: skipped", dir.display());
    None
}

fn sessions(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["claude-code", "qwen-code"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_scan_counts_what_the_loader_builds_for_every_corpus_file() {
    let Some(dir) = corpus_dir() else { return };
    let files = sessions(&dir);
    assert!(files.len() >= 22, "{} files", files.len());
    let mut bad = Vec::new();
    for p in &files {
        let s = scan::scan(p);
        let full = mcscope::load::load(p, None).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let got = (s.requests, s.results, s.kind == Kind::SubAgent);
        let want = (
            full.requests.len(),
            full.results.len(),
            full.subagent_what_if,
        );
        if got != want {
            bad.push(format!("{name}: scan {got:?}, loader {want:?}"));
        }
        assert_eq!(s.harness, full.harness, "{name}");
        if full.messages.is_empty() {
            assert!(s.kind.is_blank(), "{name}: {:?}", s.kind);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
