//! `mcscope explain`'s outputs beyond text and JSON: the page per answer
//! (SPEC §12, `--format md|html`) and `-o FILE` for every format, written
//! through the one writer.

use super::{OutputFormat, UsageError};
use crate::analysis::{self, Explain, Setup};
use crate::page_paths::PageNames;
use crate::report;
use std::path::Path;

/// The page of `e` as `format` (`md` or `html`), sanitized whole: the same
/// bytes go to stdout and to `-o` files. `full_paths`: name the session by its
/// path as given, not `~/…`.
pub fn explain_page(setup: &Setup, e: &Explain, format: OutputFormat, full_paths: bool) -> String {
    let evidence = analysis::evidence(setup);
    let names = PageNames::new(&setup.session.path, false, full_paths);
    let page = report::page::build(setup, e, &evidence, &names);
    let out = match format {
        OutputFormat::Html => report::page::page_html(&page),
        _ => report::page::page_md(&page),
    };
    crate::sanitize::text_owned(out)
}

/// Refuses `-o FILE` before any work when it names the session, its sidecar,
/// the config or a harness folder (the write checks again).
pub fn check_output(output: Option<&Path>, session: &Path) -> Result<(), UsageError> {
    if let Some(out) = output {
        crate::export::check(out, &reading(session))
            .map_err(|e| UsageError::Message(e.to_string()))?;
    }
    Ok(())
}

/// `out` to `-o FILE` through the one writer (nothing left to print, and a line
/// on stderr saying where), or back to be printed.
pub fn emit(output: Option<&Path>, session: &Path, out: String) -> Result<String, UsageError> {
    let Some(file) = output else {
        return Ok(out);
    };
    crate::export::write(file, &reading(session), out.as_bytes())
        .map_err(|e| UsageError::Message(e.to_string()))?;
    eprintln!("mcscope: wrote {}", crate::sanitize::path(file));
    Ok(String::new())
}

/// What explain reads: the session, its sidecar, the config.
fn reading(session: &Path) -> crate::export::Reading {
    crate::export::Reading::config().session(session)
}
