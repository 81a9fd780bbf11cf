//! Claude Code's caveats (SPEC §13.C): what its sessions may not have run, each
//! with the rule that shows it. The order is §13.C's table (SPEC §15.8).

use super::caveat::{Ask, At, Rule, Template, distinct, when};
use super::claude_version::{self as version, VersionRow};
use crate::vocab::{Delivery, PlanKind};

pub(crate) const CLAUDE_IDLE_FLAG: Template = Template {
    id: "claude_idle_flag",
    short: "idle: remote flag, off by default; 2.1.84-2.1.104 only",
    text: "Claude Code's time-based microcompact (2.1.84–2.1.104 only) is switched remotely \
(GrowthBook tengu_slate_heron, default {enabled: false, gapThresholdMinutes: 60, keepRecent: 5}) \
and runs only on the interactive main thread; it was removed in 2.1.105.",
};

pub(crate) const CLAUDE_IDLE_SERVER_FLAG: Template = Template {
    id: "claude_idle_server_flag",
    short: "idle-server: remote flag, off by default",
    text: "Claude Code 2.1.285+ clears tool results after idle only when the remote flag \
tengu_zany_pike (2.1.285–2.1.309) / tengu_jiggly_blossom (2.1.310+) is on (default off; \
shadow plans but sends nothing); the transcript does not record the flag, and, from 2.1.333, \
page-text PDF clearing (tengu_lucid_heron, default on) until a reply records \
client_cleared_pdf_page_texts.",
};

pub(crate) const CLAUDE_IDLE_SERVER_ACTIVITY: Template = Template {
    id: "claude_idle_server_activity",
    short: "idle-server: terminal activity not recorded",
    text: "Claude Code does not count a pause as idle when the terminal logged activity during \
it; that activity is not in the transcript, so a simulated return may not have been one.",
};

pub(crate) const CLAUDE_IDLE_SERVER_OFFSET: Template = Template {
    id: "claude_idle_server_offset",
    short: "idle-server: offset assumes no citations or nudges",
    text: "The sent trigger and keep assume no search-result citations and no empty-reply \
nudges since the return (Claude Code adds them to its offset); the served keep \
(tengu_partitioned_eclipse, 12–64) is not recorded before 2.1.321.",
};

pub(crate) const CLAUDE_IDLE_SERVER_REFUSED: Template = Template {
    id: "claude_idle_server_refused",
    short: "idle-server: a model may refuse the edit",
    text: "A model that answers 400 \"does not support the clear_tool_uses_20250919 context \
management strategy\" stops the edit for the rest of the process; such a refusal is recorded only \
as an API error.",
};

pub(crate) const CLAUDE_CONTEXT_HINT: Template = Template {
    id: "claude_context_hint",
    short: "2.1.110+: context-hint clearing not recorded",
    text: "From 2.1.110 a server \"context hint\" (flag tengu_hazel_osprey, default off, \
interactive main thread only) can make Claude Code clear all but the last 5 compactable results \
after a 422/424 answer and retry, as <persisted-output> file pointers (seen in 2.1.332; 2.1.110 \
used the placeholder only) or the placeholder; nothing is written to the transcript, so mcscope \
cannot see or simulate it.",
};

pub(crate) const CLAUDE_AUTO_NONE: Template = Template {
    id: "claude_auto_none",
    short: "auto: this version has no clearing",
    text: "Claude Code {rows} has no client-side tool-result clearing and sends no clearing edit: \
auto plans nothing here.",
};

pub(crate) const CLAUDE_VERSION_UNSAMPLED: Template = Template {
    id: "claude_version_unsampled",
    short: "version not sampled: nearest row used",
    text: "Version {X} was not sampled (nearest sampled builds: {A} and {B}); mcscope uses the \
row of the table that contains {X}.",
};

pub(crate) const CLAUDE_VERSION_UNKNOWN: Template = Template {
    id: "claude_version_unknown",
    short: "no usable version: auto assumes idle",
    text: "No usable Claude Code version is recorded: auto assumes the client-side idle plan, as \
earlier contracts did.",
};

pub(crate) const CLAUDE_BUDGET_KILL_SWITCH: Template = Template {
    id: "claude_budget_kill_switch",
    short: "budget: off under DISABLE_MICROCOMPACT or the kill switch",
    text: "Claude Code's token-budget microcompact was off when DISABLE_MICROCOMPACT was set or the \
remote kill switch tengu_cache_plum_violet was on (on for every machine sampled in April 2026); the \
warning threshold assumes a 200k window with auto-compact on. It is present only up to 2.1.63.",
};

pub(crate) const CLAUDE_CACHED_INTERNAL: Template = Template {
    id: "claude_cached_internal",
    short: "count/cache-edits: internal builds only",
    text: "Cached microcompact (cache_edits / cache_reference) exists only in \
Anthropic-internal builds: the strings occur 0 times in external bundles from 2.1.156 on (earlier, \
dead code behind if(false)), so these plans are what-ifs for internal builds.",
};

pub(crate) const CLAUDE_CUT_FLAGS: Template = Template {
    id: "claude_cut_flags",
    short: "recorded cuts: remote defaults assumed",
    // Claude Code 2.1.332 bundle, grep
    // `Mfr="tengu_adaptive_pinwheel",Ifr="tengu_sparkling_charm",Dfr=200`.
    text: "Recorded cuts are applied assuming the remote defaults (tengu_adaptive_pinwheel on, \
tengu_sparkling_charm unset).",
};

pub(crate) const CLAUDE_IDLE_SERVER_HOST_PAUSES: Template = Template {
    id: "claude_idle_server_host_pauses",
    short: "idle-server: host pauses not recorded (2.1.336+)",
    // SPEC §17.C.U5; 2.1.337 bundle, grep
    // `function ufs(e,t){let n=t-e;for(let[o,r]of wgt()?.pauses??[])if(e<o&&o<=t)n-=r;return n}`
    // (no writer of `told` in the published 2.1.336–2.1.337 builds).
    text: "From 2.1.336 Claude Code subtracts pauses reported by its host (for example a sleeping \
machine or a suspended remote session) from the idle gap before it decides that a return happened. \
Published builds never receive such reports, so mcscope uses the plain gap; a session run inside a \
host that reports pauses may have had a shorter gap than the transcript shows, and then a simulated \
return may not have been one. The pauses are not in the transcript.",
};

pub(crate) const CLAUDE_PDF_PAGE_TEXTS: Template = Template {
    id: "claude_pdf_page_texts",
    short: "idle-server: PDF page-text sizes unknown (2.1.333+)",
    // SPEC §17.C.U3, U7; 2.1.337 bundle, grep
    // `_n.push({sentName:Ae,tokens:0,clearedInput:void 0,citableContent:void 0,callId:fnn(Ts.uuid,Sr),pageTexts:{row:Ts,reference:us}})`
    // and `var vtt=Symbol("pageTexts")` (the text is never written).
    text: "PDF page text attached to a message is clearable from 2.1.333 (remote flag \
tengu_lucid_heron, default on), but its text is not in the transcript: mcscope counts each read as \
a clearable Read result of unknown size (0 toward clear_at_least), assumes it was still in memory \
(a resumed process no longer holds it and then neither sends nor clears it), and assumes it held no \
marker lines.",
};

pub(crate) const CLAUDE_NOT_PLAUSIBLE: Template = Template {
    id: "claude_not_plausible",
    short: "what-if",
    text: "This Claude Code build / entrypoint has no code path for plan {X} (reason {R}): the \
clearing shown is a what-if, not what happened.",
};

/// Claude Code's caveats in the order they are listed, with when each shows
/// (§17.C's appended after §13.C's table, as §18.9 orders them).
pub(crate) static CAVEATS: [Rule; 15] = [
    Rule::on_kind(CLAUDE_IDLE_FLAG, PlanKind::Idle),
    Rule::on_kind(CLAUDE_IDLE_SERVER_FLAG, PlanKind::IdleServer),
    Rule::on_kind(CLAUDE_IDLE_SERVER_ACTIVITY, PlanKind::IdleServer),
    Rule::by(CLAUDE_IDLE_SERVER_OFFSET, |a, t| {
        when(a.at.iter().any(|x| x.idle_server_sent), t)
    }),
    Rule::on_kind(CLAUDE_IDLE_SERVER_REFUSED, PlanKind::IdleServer),
    Rule::by(CLAUDE_CONTEXT_HINT, |a, t| {
        let hint = |x: &At<'_>| x.version.and_then(version::parse) >= Some((2, 1, 110));
        when(a.at.iter().any(hint), t)
    }),
    Rule::by(CLAUDE_AUTO_NONE, |a, _| {
        a.auto().then(|| auto_none_text(a.at)).flatten()
    }),
    Rule::by(CLAUDE_VERSION_UNSAMPLED, |a, _| {
        (a.auto() || a.has(PlanKind::IdleServer))
            .then(|| unsampled_text(a.at))
            .flatten()
    }),
    Rule::by(CLAUDE_VERSION_UNKNOWN, |a, t| {
        let unknown = a.at.iter().any(|x| VersionRow::of(x.version).is_unknown());
        when(a.auto() && unknown, t)
    }),
    Rule::on_kind(CLAUDE_BUDGET_KILL_SWITCH, PlanKind::Budget),
    Rule::by(CLAUDE_CACHED_INTERNAL, |a, t| {
        when(
            a.has(PlanKind::Count) || a.policy.delivery == Delivery::CacheEdits,
            t,
        )
    }),
    Rule::by(CLAUDE_CUT_FLAGS, |a, t| when(a.cut, t)),
    Rule::by(CLAUDE_NOT_PLAUSIBLE, |a: &Ask<'_>, _| {
        not_plausible_text(a.at)
    }),
    // SPEC §17.C.U7: at 2.1.333+ a page-text PDF row lies before the return.
    Rule::by(CLAUDE_PDF_PAGE_TEXTS, |a, t| {
        when(a.at.iter().any(|x| x.pdf_page_texts), t)
    }),
    // SPEC §17.C.U5: `idle-server` runs at a version of 2.1.336 or later.
    Rule::by(CLAUDE_IDLE_SERVER_HOST_PAUSES, |a, t| {
        let paused = |x: &At<'_>| {
            x.kind == Some(PlanKind::IdleServer)
                && x.version.and_then(version::parse) >= Some((2, 1, 336))
        };
        when(a.at.iter().any(paused), t)
    }),
];

/// `claude_auto_none`: the no-plan rows auto met, as the table names them.
fn auto_none_text(at: &[At<'_>]) -> Option<String> {
    let rows = distinct(at, |a| {
        let row = VersionRow::of(a.version);
        (a.kind.is_none() && row.is_auto_none()).then_some(row)
    });
    if rows.is_empty() {
        return None;
    }
    let mut rows = rows;
    rows.sort_by_key(|r| *r != VersionRow::NoneEarly);
    let words: Vec<&str> = rows
        .iter()
        .map(|r| match r {
            VersionRow::NoneEarly => "2.1.64–2.1.83 (sampled 2.1.70–2.1.80)",
            _ => "2.1.105–2.1.284",
        })
        .collect();
    Some(CLAUDE_AUTO_NONE.text.replace("{rows}", &words.join(" / ")))
}

/// `claude_version_unsampled`: one sentence per unsampled version read.
fn unsampled_text(at: &[At<'_>]) -> Option<String> {
    let versions = distinct(at, |a| {
        version::unsampled(a.version).map(|n| (a.version.unwrap_or_default(), n))
    });
    let said: Vec<String> = versions
        .iter()
        .map(|(x, (a, b))| {
            CLAUDE_VERSION_UNSAMPLED
                .text
                .replace("{X}", x)
                .replace("{A}", a)
                .replace("{B}", b)
        })
        .collect();
    (!said.is_empty()).then(|| said.join(" "))
}

/// `claude_not_plausible`: one sentence per (plan, reason) whose clearing is a what-if.
fn not_plausible_text(at: &[At<'_>]) -> Option<String> {
    let pairs = distinct(at, |a| {
        a.plausible
            .what_if()
            .then(|| (a.kind.map_or("none", PlanKind::name), a.plausible.reason))
    });
    let said: Vec<String> = pairs
        .iter()
        .map(|(x, r)| {
            CLAUDE_NOT_PLAUSIBLE
                .text
                .replace("{X}", x)
                .replace("{R}", r)
        })
        .collect();
    (!said.is_empty()).then(|| said.join(" "))
}
