//! What a user names on the command line or in the TUI: a request (`--at`), a
//! tool result id (or a unique prefix of one), a session file rather than a folder.

use super::UsageError;
use crate::load;
use crate::session::Session;
use std::path::Path;

/// The request index `--at` names, checked against the session (0: it has none).
pub fn request_index(session: &Session, at: Option<&str>) -> Result<usize, UsageError> {
    let n = session.requests.len();
    let k = match at {
        None | Some("last") => n,
        Some(s) => s.parse::<usize>().map_err(|_| {
            UsageError::bad(format!("--at {s:?}"), "expected a request number or `last`")
        })?,
    };
    if n == 0 {
        // An empty session is valid (SPEC §1): request 0 stands for "none".
        return Ok(0);
    }
    if k == 0 || k > n {
        return Err(UsageError::NoRequest { at: k, n });
    }
    Ok(k)
}

/// The prefixes harnesses give every id (`toolu_01…`, `call_…`): an id may be
/// named without them.
const ID_PREFIXES: &[&str] = &["toolu_01", "toolu_", "call_"];

/// The tool result id `q` names: the id itself, or a prefix of exactly one id —
/// of the id as written or without its harness prefix (`KuPA` for
/// `toolu_01KuPA…`). An ambiguous prefix is an error listing the matches.
pub fn resolve_id(session: &Session, q: &str) -> Result<String, UsageError> {
    // An exact id first, the empty one included: a transcript may hold `"id": ""`,
    // and a result that can be cleared can be explained.
    // Ids the harness's records name are explained too, even without a result
    // (SPEC §15.21).
    let named = || {
        session
            .evidence
            .iter()
            .flat_map(|e| e.compacted_tool_ids.iter())
            .chain(session.cuts.iter().flat_map(|c| c.call_ids.iter()))
            .map(String::as_str)
    };
    if session.results.iter().any(|r| r.id == q) || named().any(|id| id == q) {
        return Ok(q.to_string());
    }
    if q.is_empty() {
        // Otherwise "" is a prefix of every id: ask for one.
        return Err(UsageError::NoId);
    }
    let matches = |id: &str| {
        id.starts_with(q)
            || ID_PREFIXES
                .iter()
                .any(|p| id.strip_prefix(p).is_some_and(|rest| rest.starts_with(q)))
    };
    let mut found: Vec<&str> = session
        .results
        .iter()
        .map(|r| r.id.as_str())
        .chain(named())
        .filter(|id| matches(id))
        .collect();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [] => Err(UsageError::UnknownId { id: q.to_string() }),
        [one] => Ok(one.to_string()),
        many => {
            let shown: Vec<&str> = many.iter().take(8).copied().collect();
            Err(UsageError::AmbiguousId {
                prefix: q.to_string(),
                count: many.len(),
                shown: format!(
                    "{}{}",
                    crate::sanitize::joined(&shown, ", "),
                    if many.len() > shown.len() {
                        ", …"
                    } else {
                        ""
                    }
                ),
            })
        }
    }
}

/// A directory given where one session is needed: say so and list the newest.
pub fn directory_error(path: &Path) -> UsageError {
    let found = load::list_folder(path).unwrap_or_default();
    // FIFOs and devices named `*.jsonl` are never opened: only counted.
    let skipped = match found.not_regular.len() {
        0 => String::new(),
        1 => "; 1 not a regular file skipped".into(),
        n => format!("; {n} not regular files skipped"),
    };
    let listing = found.sessions;
    if listing.is_empty() {
        return UsageError::EmptyDirectory {
            path: path.display().to_string(),
            skipped,
        };
    }
    let names: Vec<String> = listing
        .iter()
        .take(5)
        .map(|(p, _, _)| crate::sanitize::path(p))
        .collect();
    UsageError::Directory {
        path: path.display().to_string(),
        newest: names.join(", "),
        skipped,
    }
}
