//! The one corpus locator every test uses: the real transcripts other projects
//! published, at `$MCSCOPE_CORPUS`, else at `<CARGO_MANIFEST_DIR>/../shared/corpus`.
//!
//! A fresh clone has no corpus beside it: a test that needs it prints one note and
//! passes. Under `MCSCOPE_REQUIRE_CORPUS=1` (set by `.ci/run`) a missing corpus or
//! corpus file is a failure, so CI can never pass having checked nothing.
//!
//! Included with `#[path = "common/corpus.rs"] mod corpus;`.
#![allow(dead_code)]

use std::path::PathBuf;

fn required() -> bool {
    std::env::var("MCSCOPE_REQUIRE_CORPUS").as_deref() == Ok("1")
}

/// Where the corpus is looked for.
pub fn location() -> PathBuf {
    match std::env::var_os("MCSCOPE_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    }
}

/// The corpus folder (with its `claude-code/` part), or None after a note.
pub fn dir() -> Option<PathBuf> {
    let dir = location();
    if dir.join("claude-code").is_dir() {
        return Some(dir);
    }
    assert!(
        !required(),
        "corpus not found at {} (MCSCOPE_REQUIRE_CORPUS=1)",
        dir.display()
    );
    eprintln!("note: corpus not found at {}; skipped", dir.display());
    None
}

/// One corpus file by its path inside the corpus, or None after a note.
pub fn file(rel: &str) -> Option<PathBuf> {
    let path = location().join(rel);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        !required(),
        "corpus file not found at {} (MCSCOPE_REQUIRE_CORPUS=1)",
        path.display()
    );
    eprintln!("note: corpus file not found at {}; skipped", path.display());
    None
}

/// The `*.jsonl` files of every sub-folder of the corpus, sorted; empty (after a
/// note) without a corpus.
pub fn jsonl_files() -> Vec<PathBuf> {
    let Some(dir) = dir() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for sub in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        if !sub.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The bundled Claude Code samples (`sample-sessions/`, in the repository:
/// there with or without a corpus).
pub fn claude_samples() -> Vec<PathBuf> {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    [
        "claude-budget.jsonl",
        "claude-cut.jsonl",
        "claude-demo.jsonl",
        "claude-idle-server.jsonl",
        "claude-size.jsonl",
    ]
    .iter()
    .map(|name| samples.join(name))
    .collect()
}
