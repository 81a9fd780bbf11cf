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
    Other,
}

/// The line parsed as the loader parses it (lone surrogates repaired as it
/// does); None for a line the loader would skip.
pub fn live_record(text: &str) -> Option<Live> {
    let tagged = match <Sink as RecordSink>::parse(text) {
        Ok(t) => t,
        Err(_) => {
            let (fixed, _) = super::surrogate::repair(text)?;
            <Sink as RecordSink>::parse(&fixed).ok()?
        }
    };
    Some(match tagged.rec {
        Rec::User { sidechain, ts, .. } => Live::User { sidechain, ts },
        Rec::Assistant {
            sidechain,
            ts,
            id,
            model,
            usage,
            applied_edits,
            ..
        } => Live::Assistant {
            sidechain,
            ts,
            id,
            model,
            usage,
            applied_edits,
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
        Rec::Replacements { .. } | Rec::Attachment { .. } | Rec::Other => Live::Other,
    })
}
