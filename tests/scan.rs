//! The picker's light scan (`mcscope::scan`) against the full loader, on every real
//! transcript of `shared/corpus/`: the same requests and tool results, the same
//! sub-agent verdict, and the rows a user reads (prompt, project, marks).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/corpus.rs"]
mod corpus;
use mcscope::scan::{self, Kind};
use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    corpus::dir()
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

#[test]
fn each_inline_thread_loads_on_its_own_as_a_what_if() {
    let Some(dir) = corpus_dir() else { return };
    // CCLV (Claude Code 1.0.61): one inline Task thread, lines 13-17 of the file.
    let cclv = dir.join("claude-code/Brads3290__cclogviewer__example.jsonl");
    let s = scan::scan(&cclv);
    assert_eq!(s.threads.len(), 1);
    assert_eq!(s.threads[0].lines, vec![13, 14, 15, 16, 17]);
    assert!(
        s.threads[0]
            .prompt
            .as_deref()
            .unwrap()
            .starts_with("List all files in the current directory")
    );
    let mut threads = 0;
    for p in sessions(&dir) {
        let s = scan::scan(&p);
        let whole = mcscope::load::load(&p, None).unwrap();
        for t in &s.threads {
            threads += 1;
            let lines = t.lines.iter().copied().collect();
            let what_if = mcscope::load::load_thread(&p, lines, &Default::default()).unwrap();
            assert!(what_if.subagent_what_if, "{} thread {}", p.display(), t.n);
            assert_eq!(
                (what_if.requests.len(), what_if.results.len()),
                (t.requests, t.results),
                "{} thread {}",
                p.display(),
                t.n
            );
            assert_eq!(what_if.sidechain_records, 0, "only the thread's lines read");
        }
        // Every sidechain record of a main file is in one of its threads.
        if !s.threads.is_empty() {
            let listed: usize = s.threads.iter().map(|t| t.lines.len()).sum();
            assert!(listed >= whole.sidechain_records, "{}", p.display());
        }
    }
    assert!(threads >= 3, "{threads} threads in the corpus");
}
