//! The engine's reasons in words: the one place a `Note`, a `Reason`, a
//! `ClearReason`, a `Kept` or an `EditNote` becomes a sentence. The reports and
//! the TUI call these; the engine never does (it records only the numbers).

use crate::analysis::ExplainRow;
use crate::harness::claude_budget::NOT_ELIGIBLE_TOOL;
use crate::numbers::{fmt_gap, fmt_int, fmt_num};
use crate::policy::api::{CLEAR_THINKING, CLEAR_TOOL_USES, TriggerOn};
use crate::policy::engine::{
    ApiTrigger, Candidate, ClearReason, CountWhy, EditNote, Kept, Note, Prompt, Rank, Reason,
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

impl Display for ClearReason {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ClearReason::Time {
                why,
                rank,
                keep,
                clearable,
            } => {
                write!(f, "{why}; {rank}, not in last {keep}")?;
                if *clearable {
                    f.write_str(" clearable")?;
                }
                Ok(())
            }
            ClearReason::Size { why, rank, keep } => {
                write!(f, "{why} ({rank}, not in last {keep} clearable)")
            }
            ClearReason::Count { why, rank, keep } => {
                write!(f, "{why}; {rank}, not in last {keep}, already sent")
            }
            ClearReason::Budget { why, rank, keep } => {
                write!(f, "{why}; {rank}, not in last {keep}")
            }
            ClearReason::Recorded { server: false } => {
                f.write_str("recorded: a microcompact boundary of the harness names it")
            }
            ClearReason::Recorded { server: true } => f.write_str(
                "recorded: the server's applied clear_tool_uses edit (ids as idle-server's simulation names them)",
            ),
            ClearReason::Mask {
                why,
                tokens,
                masked_tokens,
            } => write!(
                f,
                "{why} (>= {}); masked: {} tokens -> {}",
                fmt_int(why.min_prunable),
                fmt_int(*tokens),
                fmt_int(*masked_tokens)
            ),
            ClearReason::Prune { why, newer } => write!(
                f,
                "prune: past the newest {} tokens of tool output ({} newer than it); {} prunable > {}",
                fmt_int(why.protect),
                fmt_int(*newer),
                fmt_int(why.pruned),
                fmt_int(why.minimum)
            ),
            ClearReason::Api {
                trigger,
                nth,
                of,
                keep,
                input_too,
            } => write!(
                f,
                "{CLEAR_TOOL_USES}: {trigger}; tool use {nth} of {of}, not in the last {keep}{}",
                if *input_too {
                    "; input cleared too"
                } else {
                    ""
                }
            ),
        }
    }
}

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
            Kept::SizeTargetReached { target } => {
                write!(f, "size target {} reached", fmt_int(*target))
            }
            Kept::InLastActive { keep } => write!(f, "in the last {keep} active results"),
            Kept::NotYetSent => {
                f.write_str("not yet sent: only results already sent can be deleted")
            }
            Kept::BudgetNotEligible => write!(
                f,
                "{NOT_ELIGIBLE_TOOL} results are never cleared by the budget plan"
            ),
            Kept::InLastEligible { keep, rank } => {
                write!(f, "in the last {keep} eligible calls ({rank})")
            }
            Kept::BudgetRestFits { budget, rank } => write!(
                f,
                "budget: the rest fits in {} once older results are cleared ({rank})",
                fmt_int(*budget)
            ),
            Kept::ApiExcluded { tool } => write!(f, "{tool} is in exclude_tools: never cleared"),
            Kept::ApiInWindow {
                keep,
                excluded_counted: true,
            } => write!(f, "in the last {keep} tool uses"),
            Kept::ApiInWindow {
                keep,
                excluded_counted: false,
            } => write!(
                f,
                "in the last {keep} tool uses (excluded tools not counted)"
            ),
            Kept::ApiEdit(e) => e.fmt(f),
            Kept::MaskProtected { within, protect } => write!(
                f,
                "in the newest {} tokens of tool output ({} so far)",
                fmt_int(*protect),
                fmt_int(*within)
            ),
            Kept::MaskLatest => {
                f.write_str("in the latest content: not scanned (protectLatestTurn)")
            }
            Kept::MaskSending => {
                f.write_str("sent by this request: not in the history masking reads")
            }
            Kept::MaskBatchUnder(why) => write!(
                f,
                "prunable, but {} tokens < the {} least",
                fmt_int(why.prunable),
                fmt_int(why.min_prunable)
            ),
            Kept::MaskNoSaving {
                tokens,
                masked_tokens,
            } => write!(
                f,
                "the masked text ({} tokens) is not smaller than the output ({})",
                fmt_int(*masked_tokens),
                fmt_int(*tokens)
            ),
            Kept::PruneProtected { total, protect } => write!(
                f,
                "in the newest {} tokens of tool output ({} counted with it)",
                fmt_int(*protect),
                fmt_int(*total)
            ),
            Kept::PruneLatestTurns => {
                f.write_str("in the latest two turns (prune never scans them)")
            }
            Kept::PruneBehindMark => {
                f.write_str("older than a result prune marked before (its scan stops there)")
            }
            Kept::PruneBehindSummary => {
                f.write_str("older than a compaction summary (prune's scan stops there)")
            }
        }
    }
}

/// `1 tool use`, `2 tool uses`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
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
