//! One Claude Code line as `mcscope statusline` folds it: parsed by the
//! loader's own record types, so that usage, `applied_edits` and boundaries
//! read exactly as `evidence` reads them (the status line keeps a running state
//! instead of a whole session, see `crate::statusline`).

use super::RecordSink;
use super::claude::{Rec, Sink};
use crate::session::Usage;

/// What a line contributes to the live line.
#[derive(Debug)]
pub enum Live {
    User {
        sidechain: bool,
        ts: Option<String>,
    },
    Assistant {
        sidechain: bool,
        ts: Option<String>,
        id: Option<String>,
        model: Option<String>,
        usage: Option<Usage>,
        applied_edits: Option<Vec<serde_json::Value>>,
        /// The response called `ToolSearch` (SPEC §16.B4.3.6).
        tool_search: bool,
    },
    /// A `compact_boundary`.
    Compaction {
        sidechain: bool,
    },
    /// A `microcompact_boundary`, with its writer (`preTokens > 0`: budget).
    Microcompact {
        sidechain: bool,
        budget_writer: bool,
    },
    /// A `tool_results_cut` attachment (SPEC §15.18 counts it as a clearing).
    Cut {
        sidechain: bool,
    },
    /// A `thinking_stripped` attachment (SPEC §16.B4.3.5: a clearing).
    Strip {
        sidechain: bool,
    },
    Other,
}

/// A line as the live line folds it: its record, and what every record may
/// carry (SPEC §16.B5, §16.B6).
#[derive(Debug)]
pub struct LiveLine {
    pub rec: Live,
    pub sidechain: bool,
    /// The Claude Code `version` that wrote it.
    pub version: Option<String>,
    /// A `user`, `attachment`, `system` or `progress` record's time (ms).
    pub send_ms: Option<i64>,
    /// A `SessionStart` hook record's `hookName`.
    pub session_start: Option<String>,
}

/// The line parsed as the loader parses it (lone surrogates repaired as it
/// does); None for a line the loader would skip.
pub fn live_record(text: &str) -> Option<LiveLine> {
    let tagged = match <Sink as RecordSink>::parse(text) {
        Ok(t) => t,
        Err(_) => {
            let (fixed, _) = super::surrogate::repair(text)?;
            <Sink as RecordSink>::parse(&fixed).ok()?
        }
    };
    let rec = match tagged.rec {
        Rec::User { sidechain, ts, .. } => Live::User {
            sidechain,
            ts: ts.map(|t| t.to_string()),
        },
        Rec::Assistant(r) => Live::Assistant {
            sidechain: r.sidechain,
            ts: r.ts.map(|t| t.to_string()),
            id: r.id.map(|t| t.to_string()),
            model: r.model.map(|t| t.to_string()),
            tool_search: r.calls.iter().any(|c| c.name == "ToolSearch"),
            usage: r.usage,
            applied_edits: r.applied_edits,
        },
        Rec::Boundary { sidechain } => Live::Compaction { sidechain },
        Rec::Evidence {
            sidechain,
            budget_writer,
            pre_tokens,
            ..
        } => Live::Microcompact {
            sidechain,
            // As `evidence::Writer::of_record` tells the writers apart.
            budget_writer: budget_writer || pre_tokens.unwrap_or(0) > 0,
        },
        Rec::Attachment {
            sidechain,
            what: super::claude::attach::Attachment::Cut { .. },
        } => Live::Cut { sidechain },
        Rec::Attachment {
            sidechain,
            what: super::claude::attach::Attachment::Strip { .. },
        } => Live::Strip { sidechain },
        Rec::Replacements { .. } | Rec::Attachment { .. } | Rec::Other => Live::Other,
    };
    Some(LiveLine {
        rec,
        sidechain: tagged.sidechain,
        version: tagged.version.map(|v| v.to_string()),
        send_ms: tagged.send_ms,
        session_start: tagged.session_start,
    })
}
