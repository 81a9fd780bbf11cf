//! The docs live in the repository and say what the code does:
//! - README.md and docs/*.md never point outside the repository (`../shared`), and
//!   every relative link names a file that exists (and a heading it has);
//! - docs/json.md lists every field the binary prints on the bundled samples, and
//!   every field it lists for the shared objects is one the binary prints;
//! - docs/tui.md names every key of the TUI's two keymap tables;
//! - docs/compare.md gives the default grid's values as the table holds them;
//! - docs/config.md names every key the config file and the sidecar accept, and
//!   each parameter of the table with its flag and each harness's default.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "docs/json_md.rs"]
mod json_md;
#[path = "docs/links.rs"]
mod links;
#[path = "docs/tables.rs"]
mod tables;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The first-column fields (`…`) of every table row, per heading of a page.
fn sections(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut heading = String::new();
    for line in text.lines() {
        if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim().to_string();
            out.entry(heading.clone()).or_default();
            continue;
        }
        let Some(cell) = line.strip_prefix("| `") else {
            continue;
        };
        if let Some(end) = cell.find('`') {
            out.entry(heading.clone())
                .or_default()
                .insert(cell[..end].to_string());
        }
    }
    out
}

/// The fields of the section whose heading holds `needle`.
fn section<'a>(all: &'a BTreeMap<String, BTreeSet<String>>, needle: &str) -> &'a BTreeSet<String> {
    all.iter()
        .find(|(h, _)| h.contains(needle))
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("docs/json.md has no section {needle:?}"))
}

/// One corpus locator (`tests/common/corpus.rs`) for every test: a test that looks
/// for the corpus by its own path ignores `MCSCOPE_CORPUS` and
/// `MCSCOPE_REQUIRE_CORPUS`, and can pass in CI having checked nothing.
#[test]
fn every_test_finds_the_corpus_through_the_one_locator() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    // Built from parts, so that this test does not find itself.
    let needle = ["shared", "corpus"].join("/");
    let mut offenders = Vec::new();
    // Every test file, its topics' folders included (`tests/opencode/…`);
    // `tests/common/` holds the locator itself.
    let mut files = Vec::new();
    let mut dirs = vec![dir.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p != dir.join("common") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 100, "{} test files", files.len());
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(&needle) {
                offenders.push(format!("{}:{}", p.display(), i + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "use tests/common/corpus.rs: {offenders:?}"
    );
}

/// The cell of `line` (a Markdown table row) at `n`, trimmed.
fn cell(line: &str, n: usize) -> &str {
    let c = line.split(" | ").nth(n).unwrap_or_default().trim();
    c.trim_end_matches('|').trim()
}
