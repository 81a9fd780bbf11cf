//! What a user did that mcscope cannot do, as data: each kind of refusal is a
//! variant holding what its message names (a path, a flag, a request), its
//! one-line message is its `Display`, and [`UsageError::hint`] the line that
//! says what would work, where the message does not already say it. Printed by
//! `main` as `mcscope: MESSAGE` and `  tip: HINT`; exit status 2.

use crate::config::ConfigError;
use crate::load::LoadError;
use crate::policy::Illegal;
use std::path::Path;

/// A user-facing error (see the module's note).
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The config file could not be read or holds a bad value.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `-o FILE` refused or failed (the session, its sidecar, the config or a
    /// harness folder; a full disk).
    #[error(transparent)]
    Write(#[from] crate::export::WriteError),
    /// A plan the session's harness cannot run (`Policy::check`).
    #[error("{path}: {why}")]
    Illegal { path: String, why: Illegal },
    /// A preset name (in the sidecar or the config file) no harness has.
    #[error("{from}: unknown preset {name:?} ({})", crate::config::names::<crate::config::Preset>())]
    UnknownPreset { from: &'static str, name: String },
    /// The api preset on a session its harness does not send as Messages API
    /// requests (the message names the preset that fits).
    #[error(
        "{path}: the api preset simulates Anthropic's server-side context editing of Messages API requests; {own} sessions are not sent that way (use --preset {own})",
        own = .own.name()
    )]
    ApiNotSent {
        path: String,
        own: crate::harness::HarnessId,
    },
    /// The api preset with a `--policy` of another kind.
    #[error("{path}: the api preset runs the api plan only (got --policy {})", .kind.name())]
    ApiKindOnly {
        path: String,
        kind: crate::policy::PlanKind,
    },
    /// The api preset with a delivery other than the server's.
    #[error(
        "{path}: the api preset's edits are applied by the server: its delivery is server (got {})",
        .delivery.name()
    )]
    ApiDelivery {
        path: String,
        delivery: crate::policy::Delivery,
        /// The delivery came from `--delivery` (else a sidecar or the config).
        by_flag: bool,
    },
    /// The baseline (`recorded`) given plan parameters, by their flags.
    #[error(
        "{path}: plan kind recorded is what the transcript proves the harness cleared, read from its records: it takes no plan parameters (got {})",
        .flags.join(", ")
    )]
    BaselineParams { path: String, flags: Vec<String> },
    /// `auto` with a delivery that the kind it runs at a request does not take.
    #[error("{path}: {why}")]
    AutoDelivery {
        path: String,
        why: crate::policy::AutoRefuses,
        /// The delivery came from `--delivery` (else a sidecar or the config).
        by_flag: bool,
    },
    /// A value that does not parse or is out of range: `what` names where it
    /// was given (`--at "x"`, `sidecar`, the config file), `why` what it expected.
    #[error("{what}: {why}")]
    BadValue { what: String, why: String },
    /// `--gap-minutes` out of range: the range check's own sentence follows
    /// the flag's value.
    #[error("--gap-minutes {0}")]
    BadGap(String),
    /// A sidecar that does not parse or holds a bad value.
    #[error("{path}: bad sidecar: {why}")]
    BadSidecar { path: String, why: String },
    /// `--at K` past the session's last request.
    #[error("--at {at}: the session has requests 1..={n}")]
    NoRequest { at: usize, n: usize },
    /// `explain` with an empty id.
    #[error("give a tool result id (a unique prefix is enough)")]
    NoId,
    /// No result (and no record) has this id or prefix.
    #[error("no tool result with id {id:?}")]
    UnknownId { id: String },
    /// A prefix of several ids: how many, and the first few.
    #[error("id prefix {prefix:?} is ambiguous: {count} match ({shown})")]
    AmbiguousId {
        prefix: String,
        count: usize,
        /// The first matches, joined, with `, …` when there are more.
        shown: String,
    },
    /// An error about the session at `path` (an id it does not hold).
    #[error("{path}: {error}")]
    InSession {
        path: String,
        error: Box<UsageError>,
    },
    /// A file or folder that could not be read.
    #[error("{path}: {error}")]
    Io { path: String, error: String },
    /// A session path that is a FIFO, a device, a socket.
    #[error("{path}: not a regular file ({what}); give a session file")]
    NotRegular { path: String, what: String },
    /// A folder given where one session is needed, with its newest sessions.
    #[error("{path}: is a directory; give one session file, e.g. {newest}{skipped}")]
    Directory {
        path: String,
        newest: String,
        /// `; N not regular files skipped`, or empty.
        skipped: String,
    },
    /// A folder without sessions given where one session is needed.
    #[error("{path}: is a directory without sessions (*.jsonl){skipped}")]
    EmptyDirectory { path: String, skipped: String },
    /// `--since`/`--until` with one session file.
    #[error("--since/--until choose among the sessions of a folder; give a folder (or no PATH)")]
    WindowNeedsFolder,
    /// A page format (`md`, `html`) asked of a command that prints none.
    #[error(
        "--format {format}: {command} prints text or json; pages (md, html) are explain's (mcscope explain PATH ID --format {format})"
    )]
    PageFormat {
        format: &'static str,
        command: &'static str,
    },
    /// The followed file is gone.
    #[error("{path}: the followed file was deleted; stopped following")]
    Deleted { path: String },
    /// The TUI without a terminal on stdin and stdout.
    #[error(
        "not a terminal: use `mcscope plan`, `timeline`, `explain`, `evidence`, `compare` or `wire` to print (the TUI needs a terminal on stdin and stdout)"
    )]
    NotATerminal,
    /// The terminal failed (raw mode, a read, a draw).
    #[error("terminal: {0}")]
    Terminal(String),
    /// The demo's own session could not be written.
    #[error("demo: {0}")]
    Demo(String),
    /// stdout failed other than by a closed pipe (a full disk).
    #[error("cannot write the output: {0}")]
    Output(String),
    /// A `compare` list (`--policy idle,size`) with a value that does not read:
    /// the list parser's sentence names the flag and the value.
    #[error("{0}")]
    List(String),
    /// A session `compare` could not load or set up: the worker's sentence,
    /// which names the session's path.
    #[error("{0}")]
    Compare(String),
    /// `compare`'s `recorded` in `--policy`: the baseline is its first row.
    #[error(
        "--policy: recorded is the baseline, always the first row (--no-baseline leaves it out): it is not a setting to list"
    )]
    RecordedListed,
    /// The thread loading a session panicked.
    #[error("{path}: the loader panicked")]
    LoaderPanicked { path: String },
}

/// Where a delivery a tip asks to leave out was given.
fn delivery_given(by_flag: bool) -> &'static str {
    if by_flag {
        "--delivery"
    } else {
        "the \"delivery\" of the sidecar or the config file"
    }
}

impl UsageError {
    /// What would work instead, in one line (None: the message says it).
    pub fn hint(&self) -> Option<String> {
        match self {
            UsageError::Illegal { why, .. } => Some(why.hint()),
            UsageError::InSession { error, .. } => error.hint(),
            UsageError::ApiKindOnly { .. } => {
                Some("leave out --policy: the api preset runs the api plan".into())
            }
            UsageError::ApiDelivery { by_flag, .. } => Some(format!(
                "leave out {}: the api preset's is server",
                delivery_given(*by_flag)
            )),
            UsageError::BaselineParams { .. } => {
                Some("leave out the plan flags, or give --policy another kind to tune".into())
            }
            UsageError::AutoDelivery { by_flag, .. } => Some(format!(
                "leave out {} (auto gives each kind its own), or give --policy one kind",
                delivery_given(*by_flag)
            )),
            UsageError::LoaderPanicked { .. } => Some(
                "this is a bug in mcscope: please report it with the session's first lines".into(),
            ),
            // A bad value in the config file or a sidecar is one line (SPEC §7),
            // and so is bad input and a bad id (SPEC §1; `bad_usage_exits_2_with_one_line`):
            // their messages name what would work themselves.
            UsageError::Load(_)
            | UsageError::NoId
            | UsageError::UnknownId { .. }
            | UsageError::AmbiguousId { .. }
            | UsageError::Config(_)
            | UsageError::Write(_)
            | UsageError::UnknownPreset { .. }
            | UsageError::ApiNotSent { .. }
            | UsageError::BadValue { .. }
            | UsageError::BadGap(_)
            | UsageError::BadSidecar { .. }
            | UsageError::NoRequest { .. }
            | UsageError::Io { .. }
            | UsageError::NotRegular { .. }
            | UsageError::Directory { .. }
            | UsageError::EmptyDirectory { .. }
            | UsageError::WindowNeedsFolder
            | UsageError::PageFormat { .. }
            | UsageError::Deleted { .. }
            | UsageError::NotATerminal
            | UsageError::Terminal(_)
            | UsageError::Demo(_)
            | UsageError::Output(_)
            | UsageError::List(_)
            | UsageError::Compare(_)
            | UsageError::RecordedListed => None,
        }
    }

    /// A file or folder at `path` that could not be read.
    pub fn io(path: &Path, error: impl std::fmt::Display) -> UsageError {
        UsageError::Io {
            path: path.display().to_string(),
            error: error.to_string(),
        }
    }

    /// A value given at `what` that does not hold.
    pub fn bad(what: impl Into<String>, why: impl Into<String>) -> UsageError {
        UsageError::BadValue {
            what: what.into(),
            why: why.into(),
        }
    }

    /// This error, said of the session at `path`.
    pub fn in_session(self, path: &Path) -> UsageError {
        UsageError::InSession {
            path: path.display().to_string(),
            error: Box::new(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each refusal reads as the sentence it was before it became a variant
    /// (tests and users match on them), with the path first where it has one.
    #[test]
    fn variants_say_the_sentences_users_know() {
        let p = Path::new("/s/a.jsonl");
        assert_eq!(
            UsageError::io(p, "No such file or directory").to_string(),
            "/s/a.jsonl: No such file or directory"
        );
        assert_eq!(
            UsageError::NoRequest { at: 9, n: 4 }.to_string(),
            "--at 9: the session has requests 1..=4"
        );
        assert_eq!(
            UsageError::bad("--at \"x\"", "expected a request number or `last`").to_string(),
            "--at \"x\": expected a request number or `last`"
        );
        assert_eq!(
            UsageError::UnknownId { id: "t".into() }
                .in_session(p)
                .to_string(),
            "/s/a.jsonl: no tool result with id \"t\""
        );
        assert_eq!(
            UsageError::NotATerminal.to_string(),
            "not a terminal: use `mcscope plan`, `timeline`, `explain`, `evidence`, `compare` or \
             `wire` to print (the TUI needs a terminal on stdin and stdout)"
        );
        assert_eq!(
            UsageError::PageFormat {
                format: "md",
                command: "plan"
            }
            .to_string(),
            "--format md: plan prints text or json; pages (md, html) are explain's \
             (mcscope explain PATH ID --format md)"
        );
    }

    /// The api kind asked for without the api preset.
    fn api_without_preset() -> Illegal {
        let p = crate::policy::Policy {
            kind: crate::policy::PlanKind::Api,
            ..crate::policy::Policy::preset(crate::session::HarnessId::Claude)
        };
        Illegal::Plan(crate::policy::Refusal::of(
            &p,
            crate::policy::Refused::Preset,
        ))
    }

    /// The hint travels with an error said of a session; bad input and a bad
    /// id stay one line.
    #[test]
    fn hints_say_what_would_work_where_the_message_does_not() {
        let p = Path::new("a.jsonl");
        let illegal = UsageError::Illegal {
            path: "a.jsonl".into(),
            why: api_without_preset(),
        };
        let hint = illegal
            .hint()
            .expect("an illegal plan says what would work");
        let wrapped = UsageError::Illegal {
            path: "a.jsonl".into(),
            why: api_without_preset(),
        }
        .in_session(p);
        assert_eq!(wrapped.hint(), Some(hint));
        assert_eq!(
            UsageError::UnknownId { id: "t".into() }
                .in_session(p)
                .hint(),
            None
        );
        assert_eq!(UsageError::WindowNeedsFolder.hint(), None);
        assert_eq!(UsageError::NoRequest { at: 9, n: 4 }.hint(), None);
        assert!(
            UsageError::LoaderPanicked { path: "a".into() }
                .hint()
                .is_some()
        );
    }
}
