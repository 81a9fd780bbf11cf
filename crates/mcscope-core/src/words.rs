//! The engine's reasons in words. A plan's own notes, clearing reasons and
//! keeping reasons are said in the plan's file (`TimeNote`, `MaskKept`…);
//! here are the shared ones (a candidate's `Reason`, the `Kept` reasons several
//! plans give, protection, records) and the one `Display` of `Note`,
//! `ClearReason` and `Kept` that hands each variant to its plan's words. The
//! reports and the TUI call these; the engine never does (it records only the
//! numbers).

use crate::analysis::ExplainRow;
use crate::numbers::{fmt_int, plural};
use crate::policy::api::{CLEAR_THINKING, CLEAR_TOOL_USES, TriggerOn};
use crate::policy::engine::{
    ApiTrigger, Candidate, ClearReason, EditNote, Kept, Note, Prompt, Rank, Reason,
};
use crate::policy::protect::{Outcome, Protection};
use std::fmt::{self, Display, Formatter};

mod notes;

/// A candidate's reason in words: `note` is the step's (a candidate kept for
/// no reason of its own says what the plan did). A protection that does not
/// protect is said after the reason.
pub fn reason(c: &Candidate, note: &Note) -> String {
    let mut out = match &c.reason {
        Reason::Unset => String::new(),
        Reason::NotCompactable => match &c.tool {
            Some(t) => format!("{t} results are not compactable"),
            None => "no tool call with this id in the view".into(),
        },
        Reason::AlreadyCleared => "already cleared in the transcript".into(),
        Reason::Cut { at } => format!("cut by Claude Code (recorded) at request {at}"),
        Reason::Protected => protection_text(c.protection.as_ref()),
        Reason::Cleared { earlier: None, why } => why.to_string(),
        Reason::Cleared {
            earlier: Some(at),
            why,
        } => format!("cleared at request {at}: {why}"),
        Reason::ErrorKept(h) => h
            .rules()
            .words
            .error_kept
            .unwrap_or("error result: kept")
            .into(),
        Reason::Kept(k) => k.to_string(),
        Reason::KeptByPlan { fired: true } => format!("kept: {note}"),
        Reason::KeptByPlan { fired: false } => format!("no plan fired: {note}"),
    };
    if let Some(pr) = &c.protection
        && !pr.outcome.protects()
    {
        out.push_str("; ");
        out.push_str(&protection_text(Some(pr)));
    }
    out
}

/// An explain row's reason in words, with the api preset's edits beside it.
/// " (at request j, where its simulation takes effect)" when a record at
/// request `k` is compared with the simulation at another request `j`.
pub fn at_other(j: usize, k: usize) -> String {
    if j == k {
        String::new()
    } else {
        format!(" (at request {j}, where its simulation takes effect)")
    }
}

pub fn explain_reason(r: &ExplainRow) -> String {
    let why = reason(&r.candidate, &r.note);
    match &r.edits_here {
        Some(edits) => format!("{why} [edits here: {edits}]"),
        None => why,
    }
}

/// A protection decision in words (`protection off` without one).
pub fn protection_text(p: Option<&Protection>) -> String {
    let Some(p) = p else {
        return "protection off".into();
    };
    let root = p.root.map(|r| r.name()).unwrap_or("?");
    let resolved = p.resolved.as_deref().unwrap_or("?");
    match p.outcome {
        Outcome::Protected => format!("protected: inside the {root} memory root ({resolved})"),
        Outcome::Unverified => {
            format!("protected, unverified: the {root} root does not exist here; decided lexically")
        }
        Outcome::SymlinkEscape => {
            format!("symlink escape: inside the {root} root by name, resolves to {resolved}")
        }
        Outcome::Outside => format!("outside every memory root ({resolved})"),
        Outcome::UnresolvedId => "unresolved id: no file path recorded for this id".into(),
        Outcome::AmbiguousId => "ambiguous id: several paths recorded for this id".into(),
    }
}

/// A Qwen send kind in words, for people: what the transcript shows and what
/// Qwen runs there.
/// Who recorded clearing a result (the session's harness) and how, by the
/// record's writer (the page's line).
pub fn recorded_by(harness: crate::session::HarnessId, writer: crate::evidence::Writer) -> String {
    use crate::evidence::Writer;
    let how = match writer {
        Writer::Mask => "masking",
        Writer::Prune => "pruning",
        Writer::ClineContext => "replacing",
        Writer::Budget | Writer::Cached => "clearing",
    };
    format!("{} recorded {how} it", harness.rules().title)
}

/// A clearing record of the transcript and the request it belongs to
/// (`place`), as `evidence` lists it (SPEC §10, §14).
pub fn record_line(
    harness: crate::session::HarnessId,
    m: &crate::evidence::Microcompact,
    place: &str,
) -> String {
    use crate::evidence::Writer;
    let ids = crate::sanitize::joined(&m.compacted_tool_ids, ", ");
    let tokens = |t: Option<u64>| t.map_or("none".into(), fmt_int);
    match m.writer {
        // SPEC §14: Gemini CLI writes its masking into the file.
        Writer::Mask => format!(
            "masking recorded at line {} (gemini_mask: the harness's own mask) belongs to {place}: masked [{ids}]",
            m.line
        ),
        Writer::Prune => format!(
            "{title}'s prune marks (state.time.compacted) belong to {place}: cleared [{ids}]; {title}'s estimate {}",
            tokens(m.tokens_saved),
            title = harness.rules().title,
        ),
        Writer::ClineContext => format!(
            "{}'s notices (context_history.json) belong to {place}: replaced [{ids}]",
            harness.rules().title,
        ),
        Writer::Budget | Writer::Cached => format!(
            "microcompact_boundary at line {} ({} writer{}) belongs to {place}: cleared [{ids}]; pre_tokens {}, tokens_saved {}",
            m.line,
            m.writer.name(),
            // SPEC §13.E5: no external build writes the cached record.
            if m.writer == Writer::Cached {
                ", from an internal build"
            } else {
                ""
            },
            tokens(m.pre_tokens),
            tokens(m.tokens_saved),
        ),
    }
}

/// The explain panel's lines for a clearing record (`place` its request),
/// `ids` its ids as the panel shortens them: what [`record_line`] says, a line
/// a part.
pub fn record_lines(
    harness: crate::session::HarnessId,
    m: &crate::evidence::Microcompact,
    place: &str,
    ids: &str,
) -> Vec<String> {
    use crate::evidence::Writer;
    let tokens = |t: Option<u64>| t.map_or("none".into(), fmt_int);
    let title = harness.rules().title;
    match m.writer {
        Writer::Mask => vec![
            format!(
                "◇ masking recorded at line {} (gemini_mask) belongs to {place}",
                m.line
            ),
            format!("  masked [{ids}]"),
        ],
        Writer::ClineContext => vec![
            format!("◇ {title}'s notices (context_history.json) belong to {place}"),
            format!("  replaced [{ids}]"),
        ],
        Writer::Prune => vec![
            format!("◇ {title}'s prune marks (state.time.compacted) belong to {place}"),
            format!("  cleared [{ids}]"),
            format!("  {title}'s estimate {}", tokens(m.tokens_saved)),
        ],
        Writer::Budget | Writer::Cached => vec![
            format!(
                "◇ microcompact_boundary at line {} ({} writer) belongs to {place}",
                m.line,
                m.writer.name()
            ),
            format!("  cleared [{ids}]"),
            format!(
                "  pre_tokens {}  tokens_saved {}",
                tokens(m.pre_tokens),
                tokens(m.tokens_saved)
            ),
        ],
    }
}

pub fn send_words(kind: crate::session::SendKind) -> &'static str {
    use crate::session::SendKind;
    match kind {
        SendKind::ToolResult => "tool results: Qwen runs only the size check here",
        SendKind::UserQuery => "a prompt: Qwen runs idle, then size",
        SendKind::Cron => "a cron job: Qwen runs idle, then size",
        SendKind::Notification => {
            "notification or teammate message: Qwen runs no microcompaction here"
        }
        SendKind::Goal => "a goal turn: Qwen runs no microcompaction here",
        SendKind::Steer => {
            "steering input: Qwen runs no microcompaction here (if a Stop hook blocked here, Qwen ran the hook rule)"
        }
        SendKind::Hook => {
            "no input recorded: assumed a hook continuation; Qwen runs idle and size from the hook checkpoint"
        }
        SendKind::AgentMessage => "agent messages: Qwen runs no microcompaction here",
    }
}

impl Display for Rank {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.rank {
            Some(r) => write!(f, "rank {r} of {}", self.of),
            None => f.write_str("unranked"),
        }
    }
}

/// A clearing's reason: its plan's words (each in the plan's file).
impl Display for ClearReason {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ClearReason::Time(c) => c.fmt(f),
            ClearReason::Size(c) => c.fmt(f),
            ClearReason::Count(c) => c.fmt(f),
            ClearReason::Budget(c) => c.fmt(f),
            ClearReason::Recorded(c) => c.fmt(f),
            ClearReason::Mask(c) => c.fmt(f),
            ClearReason::Cline(c) => c.fmt(f),
            ClearReason::Prune(c) => c.fmt(f),
            ClearReason::Api(c) => c.fmt(f),
        }
    }
}

/// Why a candidate was kept: the shared reasons here, a plan's own in its
/// file.
impl Display for Kept {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Kept::InLastCalls { keep, rank } => {
                write!(f, "in the last {keep} compactable calls ({rank})")
            }
            Kept::ErrorClearErrorsOff => f.write_str("error result (clear_errors off)"),
            Kept::InLastClearable { keep, rank } => {
                write!(f, "in the last {keep} clearable results ({rank})")
            }
            Kept::Pending => f.write_str("pending: just returned, not yet sent"),
            Kept::ErrorNeverCleared => f.write_str("error result: never cleared"),
            Kept::Empty => f.write_str("empty result (0 chars)"),
            Kept::Size(k) => k.fmt(f),
            Kept::Count(k) => k.fmt(f),
            Kept::Budget(k) => k.fmt(f),
            Kept::Api(k) => k.fmt(f),
            Kept::Mask(k) => k.fmt(f),
            Kept::Prune(k) => k.fmt(f),
            Kept::Cline(k) => k.fmt(f),
        }
    }
}

impl Display for Prompt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} input tokens ({}), {}",
            fmt_int(self.tokens),
            self.source.name(),
            plural(self.uses, "tool use")
        )
    }
}

impl Display for ApiTrigger {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let op = match (self.holds, self.inclusive) {
            (true, false) => ">",
            (true, true) => ">=",
            (false, false) => "<=",
            (false, true) => "<",
        };
        match self.on {
            TriggerOn::InputTokens(v) => write!(
                f,
                "{} input tokens {op} trigger {}",
                fmt_int(self.tokens),
                fmt_int(v)
            ),
            TriggerOn::ToolUses(v) => {
                write!(f, "{} {op} trigger {v}", plural(self.uses, "tool use"))
            }
        }
    }
}

impl Display for EditNote {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            EditNote::NotFired { trigger } => {
                write!(f, "{CLEAR_TOOL_USES}: not fired: {trigger}")
            }
            EditNote::TooLittle {
                trigger,
                tokens,
                at_least,
            } => write!(
                f,
                "{CLEAR_TOOL_USES}: {trigger}, but would clear {} input tokens < clear_at_least {}: nothing applied",
                fmt_int(*tokens),
                fmt_int(*at_least)
            ),
            EditNote::Applied {
                trigger,
                uses,
                tokens,
            } => write!(
                f,
                "{CLEAR_TOOL_USES}: {trigger}: cleared {}, {} input tokens (estimate)",
                plural(*uses, "tool use"),
                fmt_int(*tokens)
            ),
            EditNote::Thinking {
                turns,
                keep: Some(k),
            } => write!(
                f,
                "{CLEAR_THINKING}: cleared the thinking of {}, keeping the last {k}",
                plural(*turns, "turn")
            ),
            EditNote::Thinking { keep: None, .. } => {
                write!(f, "{CLEAR_THINKING}: keep all: nothing cleared")
            }
        }
    }
}

#[cfg(test)]
mod tests;
