//! `mcscope explain`'s outputs beyond text and JSON: the page per answer
//! (SPEC §12, `--format md|html`) and `-o FILE` for every format, written
//! through the one writer.

use super::{OutputFormat, UsageError};
use crate::analysis::{self, Explain, Setup};
use crate::report::{self, page::PageFormat};
use std::path::Path;

/// The page of `e` as `format` (`md` or `html`), sanitized whole: the same
/// bytes go to stdout and to `-o` files. `full_paths`: name the session by its
/// path as given, not `~/…`.
pub fn explain_page(setup: &Setup, e: &Explain, format: OutputFormat, full_paths: bool) -> String {
    let layout = match format {
        OutputFormat::Html => PageFormat::Html,
        _ => PageFormat::Md,
    };
    report::page::render(setup, e, &analysis::evidence(setup), layout, full_paths)
}

/// Refuses `-o FILE` before any work when it names the session, its sidecar,
/// the config or a harness folder (the write checks again).
pub fn check_output(output: Option<&Path>, session: &Path) -> Result<(), UsageError> {
    if let Some(out) = crate::export::to_file(output) {
        crate::export::check(out, &reading(session))?;
    }
    Ok(())
}

/// `out` to `-o FILE` through the one writer (nothing left to print, and a line
/// on stderr saying where), or back to be printed (no `-o`, or `-o -`).
pub fn emit(output: Option<&Path>, session: &Path, out: String) -> Result<String, UsageError> {
    let Some(file) = crate::export::to_file(output) else {
        return Ok(out);
    };
    crate::export::write(file, &reading(session), out.as_bytes())?;
    eprintln!("mcscope: wrote {}", crate::sanitize::path(file));
    Ok(String::new())
}

/// What explain reads: the session, its sidecar, the config.
fn reading(session: &Path) -> crate::export::Reading {
    crate::export::Reading::config().session(session)
}
