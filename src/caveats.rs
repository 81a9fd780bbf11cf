//! What the harness may not have run (SPEC §5 "What the harness may not have run"):
//! the caveats `plan`, `timeline` and `explain` carry in JSON and say in words, and
//! the TUI header shows in short. The texts live here, as data, and nowhere else.

use crate::harness::claude_version::{self as version, VersionRow};
use crate::policy::plausible::Plausible;
use crate::policy::{Delivery, PlanKind, Policy};

/// One caveat as listed: its JSON id, the header's short form, and the full
/// text (SPEC §15.8: placeholders filled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caveat {
    pub id: &'static str,
    pub short: &'static str,
    pub text: String,
}

/// A caveat's fixed parts: its text is a template where `{}`-free texts are
/// the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Template {
    pub id: &'static str,
    pub short: &'static str,
    pub text: &'static str,
}

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
shadow plans but sends nothing); the transcript does not record the flag.",
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

pub(crate) const CLAUDE_NOT_PLAUSIBLE: Template = Template {
    id: "claude_not_plausible",
    short: "what-if",
    text: "This Claude Code build / entrypoint has no code path for plan {X} (reason {R}): the \
clearing shown is a what-if, not what happened.",
};

pub(crate) const QWEN_MEMORY_PRESSURE: Template = Template {
    id: "qwen_memory_pressure",
    short: "memory-pressure pass not simulated",
    // Qwen Code 0.24.4 `compact_history` step: the pass keeps managed-memory
    // protection and is off when idle is disabled.
    text: "A memory-pressure pass (heap monitor) may clear at any moment with a zero gap, with \
managed-memory protection, and never when idle is disabled (toolResultsThresholdMinutes < 0); it also \
clears the file-read cache; it writes no record and is not simulated: a possible cause of clearings the \
plans do not explain.",
};

pub(crate) const QWEN_UNSEEN_RESTART: Template = Template {
    id: "qwen_unseen_restart",
    short: "an unseen restart leaves no record",
    text: "A restart leaves no record; idle clearing may not have happened after an unseen restart.",
};

pub(crate) const GEMINI_VERSION_UNKNOWN: Template = Template {
    id: "gemini_version_unknown",
    short: "version unknown: masking may have been off",
    // Reference §3: masking came in 0.29 (off by default), on by default from
    // 0.30 and always on from 0.37; the .json layout is 0.38 and older.
    text: "This legacy .json session (Gemini CLI 0.38 or older) records no version and no masking: masking \
did not exist before 0.29, was off by default in 0.29 and could be switched off up to 0.36, so the simulated \
mask may never have run.",
};

pub(crate) const GEMINI_REMOTE_FLAGS: Template = Template {
    id: "gemini_remote_flags",
    short: "thresholds may be remote flags",
    // Reference §2.7: flags 45758817-9 override the thresholds for Code Assist
    // users; since 0.41 the settings are ignored.
    text: "Gemini CLI takes the masking thresholds from remote flags (45758817-9) for Google-login users, or \
GEMINI_EXP; the file does not record them. The defaults (50,000 protected, 30,000 prunable, latest turn \
protected) are what API-key users get.",
};

pub(crate) const API_BETA_HEADER: Template = Template {
    id: "api_beta_header",
    short: "api: needs beta context-management-2025-06-27",
    text: "Context editing is a beta of the Messages API: the request carries the header anthropic-beta: context-management-2025-06-27. The server's edits are simulated from the documentation; the input tokens the trigger reads are the recorded prompt (plus what the server recorded clearing) where a response recorded usage, else an estimate.",
};

pub(crate) const OPENCODE_PRUNE_OFF_BY_DEFAULT: Template = Template {
    id: "opencode_prune_off_by_default",
    short: "prune: off unless compaction.prune is true (1.14.34+)",
    // Reference §2.5: 1.14.34–1.18.33 `if (!cfg.compaction?.prune) return`.
    text: "From OpenCode 1.14.34 prune runs only when the user's opencode.json sets compaction.prune: true (off by default); the setting lives in the user's config, not in the database, so only a stored mark (state.time.compacted) shows it was on.",
};

pub(crate) const OPENCODE_PRUNE_ENV: Template = Template {
    id: "opencode_prune_env",
    short: "prune: OPENCODE_DISABLE_PRUNE not recorded",
    // Reference §2.5: the variable turns prune off on every version.
    text: "OPENCODE_DISABLE_PRUNE turns prune off on every version, and plugins (experimental.chat.messages.transform) may rewrite tool outputs per request; neither leaves a trace in the database.",
};

pub(crate) const OPENCODE_VERSION_GAP: Template = Template {
    id: "opencode_version_gap",
    short: "prune: version between 1.3.2 (on) and 1.14.34 (off)",
    // Reference §3, §5.1: the default flipped between the sampled 1.3.2 and 1.14.34.
    text: "OpenCode {X} lies between 1.3.2 (prune on unless compaction.prune: false) and 1.14.34 (off unless true), where the default flipped (probably PR #19459); auto takes it as off.",
};

/// Every caveat, in the order they are listed (SPEC §15.8: §13.C's table,
/// then the qwen ids, then the api preset's, then §14's: Gemini CLI's and
/// OpenCode's).
pub(crate) const ALL: [Template; 21] = [
    CLAUDE_IDLE_FLAG,
    CLAUDE_IDLE_SERVER_FLAG,
    CLAUDE_IDLE_SERVER_ACTIVITY,
    CLAUDE_IDLE_SERVER_OFFSET,
    CLAUDE_IDLE_SERVER_REFUSED,
    CLAUDE_CONTEXT_HINT,
    CLAUDE_AUTO_NONE,
    CLAUDE_VERSION_UNSAMPLED,
    CLAUDE_VERSION_UNKNOWN,
    CLAUDE_BUDGET_KILL_SWITCH,
    CLAUDE_CACHED_INTERNAL,
    CLAUDE_CUT_FLAGS,
    CLAUDE_NOT_PLAUSIBLE,
    QWEN_MEMORY_PRESSURE,
    QWEN_UNSEEN_RESTART,
    API_BETA_HEADER,
    GEMINI_VERSION_UNKNOWN,
    GEMINI_REMOTE_FLAGS,
    OPENCODE_PRUNE_OFF_BY_DEFAULT,
    OPENCODE_PRUNE_ENV,
    OPENCODE_VERSION_GAP,
];

/// What the caveats read of one request (SPEC §13.C: "when the condition holds
/// at K"; `timeline`, `evidence` and `compare` give every request).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct At<'a> {
    /// The plan kind in force (auto's choice; None: none).
    pub kind: Option<PlanKind>,
    /// The version read (SPEC §13.T1).
    pub version: Option<&'a str>,
    pub plausible: Plausible,
    /// `idle-server` sent its edit here (SPEC §13.S6).
    pub idle_server_sent: bool,
    /// The session is in a harness's older format, which tells no version,
    /// and records no clearing that would prove the plan on (SPEC §15.12).
    pub unversioned: bool,
    /// The session records the harness's own clearing (OpenCode's prune
    /// marks, Gemini CLI's masking): the plan was on, whatever the version.
    pub marked: bool,
}

/// The caveats of a policy whose plans in force are `kinds` (what `auto` chose,
/// or the kind asked for), with what each request in `at` holds (SPEC §13.C,
/// §5): each caveat once, in the order of [`ALL`], its placeholders filled.
pub(crate) fn caveats(policy: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<Caveat> {
    caveats_with(policy, kinds, at, false)
}

/// As [`caveats`], where `cut` says a `tool_results_cut` record is in the view
/// (SPEC §13.C `claude_cut_flags`: any claude-preset plan then applies it).
pub(crate) fn caveats_with(
    policy: &Policy,
    kinds: &[PlanKind],
    at: &[At<'_>],
    cut: bool,
) -> Vec<Caveat> {
    let has = |k: PlanKind| kinds.contains(&k);
    // Each harness (and the api preset) shows its own caveats.
    let shows = |id: &str| policy.asks().facts().caveats.contains(&id);
    let auto = policy.kind == PlanKind::Auto;
    let row = |a: &At<'_>| VersionRow::of(a.version);
    let mut out = Vec::new();
    for t in &ALL {
        if !shows(t.id) {
            continue;
        }
        let plain = || Some(t.text.to_string());
        let text: Option<String> = match t.id {
            "claude_idle_flag" => has(PlanKind::Idle).then(plain).flatten(),
            "claude_idle_server_flag"
            | "claude_idle_server_activity"
            | "claude_idle_server_refused" => has(PlanKind::IdleServer).then(plain).flatten(),
            "claude_idle_server_offset" => {
                at.iter().any(|a| a.idle_server_sent).then(plain).flatten()
            }
            "claude_context_hint" => at
                .iter()
                .any(|a| a.version.and_then(version::parse) >= Some((2, 1, 110)))
                .then(plain)
                .flatten(),
            "claude_auto_none" if auto => auto_none_text(at),
            "claude_version_unsampled" if (auto || has(PlanKind::IdleServer)) => unsampled_text(at),
            "claude_version_unknown" if auto => {
                at.iter().any(|a| row(a).is_unknown()).then(plain).flatten()
            }
            "claude_budget_kill_switch" => has(PlanKind::Budget).then(plain).flatten(),
            "claude_cached_internal" => (has(PlanKind::Count)
                || policy.delivery == Delivery::CacheEdits)
                .then(plain)
                .flatten(),
            "claude_cut_flags" => cut.then(plain).flatten(),
            "claude_not_plausible" => not_plausible_text(at),
            "qwen_memory_pressure" | "qwen_unseen_restart" => plain(),
            "api_beta_header" => plain(),
            "gemini_version_unknown" => at.iter().any(|a| a.unversioned).then(plain).flatten(),
            "gemini_remote_flags" => has(PlanKind::Mask).then(plain).flatten(),
            // Where a plan of OpenCode's is in question: auto chose none at a
            // 1.14.34+ (or unreadable) version, or prune is asked for there.
            "opencode_prune_off_by_default" => at
                .iter()
                .any(|a| {
                    let late = a
                        .version
                        .and_then(version::parse)
                        .is_none_or(|v| v >= (1, 14, 34));
                    late && !a.marked && (a.kind.is_none() || !auto)
                })
                .then(plain)
                .flatten(),
            "opencode_prune_env" => has(PlanKind::Prune).then(plain).flatten(),
            "opencode_version_gap" if auto => {
                let gap = distinct(at, |a| {
                    if a.marked {
                        return None;
                    }
                    let v = a.version?;
                    version::parse(v)
                        .filter(|&n| n > (1, 3, 2) && n < (1, 14, 34))
                        .map(|_| v)
                });
                (!gap.is_empty()).then(|| OPENCODE_VERSION_GAP.text.replace("{X}", &gap.join(", ")))
            }
            _ => None,
        };
        if let Some(text) = text {
            out.push(Caveat {
                id: t.id,
                short: t.short,
                text,
            });
        }
    }
    out
}

/// Each distinct value of `f` over `at` (None left out), in order of first sight.
fn distinct<'a, T: PartialEq>(at: &[At<'a>], f: impl Fn(&At<'a>) -> Option<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for v in at.iter().filter_map(f) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Harness;

    fn ids(p: &Policy, kinds: &[PlanKind]) -> Vec<&'static str> {
        caveats(p, kinds, &[]).iter().map(|c| c.id).collect()
    }

    #[test]
    fn each_plan_names_its_caveat() {
        let claude = Policy::preset(Harness::Claude);
        assert_eq!(ids(&claude, &[PlanKind::Idle]), ["claude_idle_flag"]);
        assert_eq!(
            ids(&claude, &[PlanKind::Budget]),
            ["claude_budget_kill_switch"]
        );
        assert_eq!(
            ids(&claude, &[PlanKind::Idle, PlanKind::Budget]),
            ["claude_idle_flag", "claude_budget_kill_switch"]
        );
        assert_eq!(ids(&claude, &[PlanKind::Count]), ["claude_cached_internal"]);
        assert!(ids(&claude, &[PlanKind::Size]).is_empty());
        assert!(ids(&claude, &[]).is_empty());
        let mut edits = claude.clone();
        edits.delivery = Delivery::CacheEdits;
        assert_eq!(
            ids(&edits, &[PlanKind::Idle]),
            ["claude_idle_flag", "claude_cached_internal"]
        );
        let qwen = Policy::preset(Harness::Qwen);
        assert_eq!(
            ids(&qwen, &[PlanKind::Idle]),
            ["qwen_memory_pressure", "qwen_unseen_restart"]
        );
        // The api preset names its beta header and nothing of Claude Code's.
        assert_eq!(
            ids(&Policy::api_preset(), &[PlanKind::Api]),
            ["api_beta_header"]
        );
    }

    #[test]
    fn ids_are_unique_and_texts_say_something() {
        for (i, c) in ALL.iter().enumerate() {
            assert!(ALL[i + 1..].iter().all(|d| d.id != c.id));
            assert!(c.text.len() > 40 && !c.short.is_empty());
        }
    }

    /// SPEC §5: the memory-pressure pass keeps managed-memory protection (the
    /// caveat once said the opposite).
    #[test]
    fn the_memory_pressure_pass_is_said_to_protect_memory() {
        let t = QWEN_MEMORY_PRESSURE.text;
        assert!(t.contains("with managed-memory protection") && !t.contains("without"));
        assert!(t.contains("never when idle is disabled"));
    }

    fn at(kind: Option<PlanKind>, version: Option<&str>) -> At<'_> {
        At {
            kind,
            version,
            plausible: Plausible {
                could_run: None,
                reason: "no_plan",
            },
            idle_server_sent: false,
            unversioned: false,
            marked: false,
        }
    }

    fn listed(p: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<(&'static str, String)> {
        caveats(p, kinds, at)
            .into_iter()
            .map(|c| (c.id, c.text))
            .collect()
    }

    /// SPEC §13.T2 / §13.C: auto in a no-plan row says claude_auto_none, and
    /// from 2.1.110 the context hint.
    #[test]
    fn t2_auto_none_and_the_context_hint() {
        let auto = Policy::preset(Harness::Claude);
        let got = listed(&auto, &[], &[at(None, Some("2.1.200"))]);
        let ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ["claude_context_hint", "claude_auto_none"]);
        assert!(
            got[1]
                .1
                .starts_with("Claude Code 2.1.105–2.1.284 has no client-side")
        );
        // 2.1.70: the early row, and no hint (before 2.1.110).
        let got = listed(&auto, &[], &[at(None, Some("2.1.70"))]);
        assert_eq!(got.len(), 1);
        assert!(got[0].1.contains("2.1.64–2.1.83 (sampled 2.1.70–2.1.80)"));
        // Both rows over a timeline: one caveat naming both.
        let both = [at(None, Some("2.1.70")), at(None, Some("2.1.120"))];
        let got = listed(&auto, &[], &both);
        let none = got
            .iter()
            .find(|(id, _)| *id == "claude_auto_none")
            .unwrap();
        assert!(none.1.contains("2.1.80) / 2.1.105–2.1.284"), "{}", none.1);
    }

    /// SPEC §13.T3 / §15.9: unknown and before-2.0.0 say claude_version_unknown.
    #[test]
    fn t3_unknown_and_before_2_say_version_unknown() {
        let auto = Policy::preset(Harness::Claude);
        let idle = [PlanKind::Idle];
        let ids = |a: &[At<'_>], kinds: &[PlanKind]| -> Vec<&'static str> {
            caveats(&auto, kinds, a).iter().map(|c| c.id).collect()
        };
        assert_eq!(
            ids(&[at(Some(PlanKind::Idle), None)], &idle),
            ["claude_idle_flag", "claude_version_unknown"]
        );
        assert_eq!(
            ids(&[at(None, Some("1.0.128"))], &[]),
            ["claude_version_unknown"]
        );
        // An explicit kind does not claim auto's reading.
        let named = Policy {
            kind: PlanKind::Idle,
            ..auto.clone()
        };
        assert_eq!(
            caveats(&named, &idle, &[at(Some(PlanKind::Idle), None)])
                .iter()
                .map(|c| c.id)
                .collect::<Vec<_>>(),
            ["claude_idle_flag"]
        );
    }

    /// SPEC §13.T4: an unsampled version names its nearest sampled builds.
    #[test]
    fn t4_unsampled_names_the_neighbours() {
        let auto = Policy::preset(Harness::Claude);
        let got = listed(&auto, &[], &[at(None, Some("2.1.66"))]);
        let (_, text) = got
            .iter()
            .find(|(id, _)| *id == "claude_version_unsampled")
            .unwrap();
        assert_eq!(
            text,
            "Version 2.1.66 was not sampled (nearest sampled builds: 2.1.63 and 2.1.70); mcscope uses the row of the table that contains 2.1.66."
        );
    }

    /// SPEC §13.C / §15.8: every claude id at once comes in the table's order,
    /// with X and R filled in claude_not_plausible.
    #[test]
    fn c_order_is_the_tables() {
        let mut p = Policy::preset(Harness::Claude);
        p.delivery = Delivery::CacheEdits;
        let kinds = [
            PlanKind::Idle,
            PlanKind::IdleServer,
            PlanKind::Budget,
            PlanKind::Count,
        ];
        let mut sent = at(Some(PlanKind::IdleServer), Some("2.1.305"));
        sent.idle_server_sent = true;
        let mut what_if = at(Some(PlanKind::Idle), Some("2.1.88"));
        what_if.plausible = Plausible {
            could_run: Some(false),
            reason: "not_interactive",
        };
        let all = [sent, what_if, at(None, Some("2.1.200")), at(None, None)];
        let got = listed(&p, &kinds, &all);
        let ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            ids,
            [
                "claude_idle_flag",
                "claude_idle_server_flag",
                "claude_idle_server_activity",
                "claude_idle_server_offset",
                "claude_idle_server_refused",
                "claude_context_hint",
                "claude_auto_none",
                "claude_version_unsampled",
                "claude_version_unknown",
                "claude_budget_kill_switch",
                "claude_cached_internal",
                "claude_not_plausible",
            ]
        );
        assert_eq!(
            got.last().unwrap().1,
            "This Claude Code build / entrypoint has no code path for plan idle (reason not_interactive): the clearing shown is a what-if, not what happened."
        );
        // The old idle text (a server-negotiated scheme from 2.1.156) is gone.
        assert!(
            got.iter()
                .all(|(_, t)| !t.contains("2.1.156, per third-party"))
        );
        // The api preset lists none of Claude Code's (SPEC §15.10).
        assert_eq!(
            ids_of(&Policy::api_preset(), &[PlanKind::Api], &all),
            ["api_beta_header"]
        );
    }

    fn ids_of(p: &Policy, kinds: &[PlanKind], at: &[At<'_>]) -> Vec<&'static str> {
        caveats(p, kinds, at).iter().map(|c| c.id).collect()
    }
}
