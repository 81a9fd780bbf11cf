//! One seam for every harness (issue 22 item 1): outside `src/harness/`, no
//! source file names a harness or preset variant; the engine asks the harness
//! through its facts and its `Harness`. Test code (a `#[cfg(test)]` module, a
//! `tests.rs` or `testkit.rs`) may name them.
//!
//! One seam for every transcript format (issue 22 item 2): outside
//! `src/load/format/` (one `FormatLoader` per variant), `src/vocab/` (the
//! enum) and the harness rows (`src/harness/`: the formats each harness
//! writes), no source file names a `Format` variant; the loaders are asked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcscope::harness::{self, HarnessId, PresetId};
use mcscope::session::Format;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "seam/format.rs"]
mod format;
#[path = "seam/harnesses.rs"]
mod harnesses;
#[path = "seam/layers.rs"]
mod layers;
#[path = "seam/plan_kinds.rs"]
mod plan_kinds;

/// Every harness and preset variant's name, read from the enums themselves, so
/// a harness added to the registry is counted without a change here.
fn variants() -> Vec<String> {
    let mut out: Vec<String> = <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| format!("{h:?}"))
        .chain(
            <PresetId as strum::VariantArray>::VARIANTS
                .iter()
                .map(|p| format!("{p:?}")),
        )
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The code of a source file that is not test code: up to its first
/// `#[cfg(test)]` (modules of tests come last in this crate).
fn non_test_code(path: &Path, text: &str) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    // A file of tests: `tests.rs`, `*_tests.rs`, or anything in a `tests` or
    // `*_tests` folder (the binary's checks of the core, `src/core_tests/`).
    let tests = |n: &str| n == "tests" || n.ends_with("_tests");
    if tests(name.trim_end_matches(".rs"))
        || name == "testkit.rs"
        || path
            .components()
            .any(|c| c.as_os_str().to_str().is_some_and(tests))
    {
        return None;
    }
    Some(
        text.split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .to_string(),
    )
}

/// The two source folders: the core's (`crates/mcscope-core/src`) and the
/// binary's (`src`); a file's path is read relative to its own (`harness/…`).
fn src_roots() -> [PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("crates/mcscope-core/src"), root.join("src")]
}

/// Every Rust file of both source folders, sorted by path.
fn source_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for r in src_roots() {
        rust_files(&r, &mut files);
    }
    files.sort();
    files
}

/// A file's path relative to its source folder.
fn rel_of(f: &Path) -> PathBuf {
    src_roots()
        .iter()
        .find_map(|r| f.strip_prefix(r).ok())
        .unwrap()
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}
