//! What the harness may not have run (SPEC §5 "What the harness may not have run"):
//! the caveats `plan`, `timeline` and `explain` carry in JSON and say in words, and
//! the TUI header shows in short. The texts live here, as data, and nowhere else.

use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::Harness;

/// One caveat: its JSON id, the header's short form, and the full text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caveat {
    pub id: &'static str,
    pub short: &'static str,
    pub text: &'static str,
}

pub(crate) const CLAUDE_IDLE_FLAG: Caveat = Caveat {
    id: "claude_idle_flag",
    short: "idle: remote flag, off by default",
    text: "Claude Code's time-based microcompact is switched remotely (GrowthBook \
tengu_slate_heron, default {enabled: false, gapThresholdMinutes: 60, keepRecent: 5}) and runs only \
on the interactive main thread (headless / SDK sessions never fire; an entrypoint other than cli is \
a hint); later builds (>= 2.1.156, per third-party notes) replaced it with a server-negotiated \
scheme that mcscope does not model.",
};

pub(crate) const CLAUDE_BUDGET_KILL_SWITCH: Caveat = Caveat {
    id: "claude_budget_kill_switch",
    short: "budget: off under DISABLE_MICROCOMPACT or the kill switch",
    text: "Claude Code's token-budget microcompact was off when DISABLE_MICROCOMPACT was set or the \
remote kill switch tengu_cache_plum_violet was on (on for every machine sampled in April 2026); the \
warning threshold assumes a 200k window with auto-compact on.",
};

pub(crate) const CLAUDE_CACHED_INTERNAL: Caveat = Caveat {
    id: "claude_cached_internal",
    short: "count/cache-edits: internal builds only",
    text: "Cached microcompact (count, cache-edits) exists only in Anthropic-internal builds, with \
thresholds that are not public; when claude idle fires it also resets the cached-microcompact \
state.",
};

pub(crate) const CLAUDE_CUT_FLAGS: Caveat = Caveat {
    id: "claude_cut_flags",
    short: "recorded cuts: remote defaults assumed",
    // Claude Code 2.1.332 bundle, grep
    // `Mfr="tengu_adaptive_pinwheel",Ifr="tengu_sparkling_charm",Dfr=200`.
    text: "Recorded cuts are applied assuming the remote defaults (tengu_adaptive_pinwheel on, \
tengu_sparkling_charm unset).",
};

pub(crate) const QWEN_MEMORY_PRESSURE: Caveat = Caveat {
    id: "qwen_memory_pressure",
    short: "memory-pressure pass not simulated",
    // Qwen Code 0.24.4 `compact_history` step: the pass keeps managed-memory
    // protection and is off when idle is disabled.
    text: "A memory-pressure pass (heap monitor) may clear at any moment with a zero gap, with \
managed-memory protection, and never when idle is disabled (toolResultsThresholdMinutes < 0); it also \
clears the file-read cache; it writes no record and is not simulated: a possible cause of clearings the \
plans do not explain.",
};

pub(crate) const QWEN_UNSEEN_RESTART: Caveat = Caveat {
    id: "qwen_unseen_restart",
    short: "an unseen restart leaves no record",
    text: "A restart leaves no record; idle clearing may not have happened after an unseen restart.",
};

pub(crate) const API_BETA_HEADER: Caveat = Caveat {
    id: "api_beta_header",
    short: "api: needs beta context-management-2025-06-27",
    text: "Context editing is a beta of the Messages API: the request carries the header anthropic-beta: context-management-2025-06-27. The server's edits are simulated from the documentation; the input tokens the trigger reads are the recorded prompt (plus what the server recorded clearing) where a response recorded usage, else an estimate.",
};

/// Every caveat, in the order they are listed.
pub(crate) const ALL: [Caveat; 7] = [
    CLAUDE_IDLE_FLAG,
    CLAUDE_BUDGET_KILL_SWITCH,
    CLAUDE_CACHED_INTERNAL,
    CLAUDE_CUT_FLAGS,
    QWEN_MEMORY_PRESSURE,
    QWEN_UNSEEN_RESTART,
    API_BETA_HEADER,
];

/// The caveats of a policy whose plans in force (what `auto` chose, or the kind
/// asked for) are `kinds`: claude idle → the remote flag; budget → its kill
/// switch; count or cache-edits → internal builds; any qwen plan → the
/// memory-pressure pass and unseen restarts.
pub(crate) fn caveats(policy: &Policy, kinds: &[PlanKind]) -> Vec<Caveat> {
    caveats_with(policy, kinds, false)
}

/// As [`caveats`], where `cut` says a `tool_results_cut` record is in the view
/// (SPEC §13.C `claude_cut_flags`: any claude-preset plan then applies it).
pub(crate) fn caveats_with(policy: &Policy, kinds: &[PlanKind], cut: bool) -> Vec<Caveat> {
    let has = |k: PlanKind| kinds.contains(&k);
    let wanted = |c: &Caveat| match c.id {
        "claude_idle_flag" => policy.preset == Harness::Claude && has(PlanKind::Idle),
        "claude_budget_kill_switch" => policy.preset == Harness::Claude && has(PlanKind::Budget),
        "claude_cached_internal" => {
            policy.preset == Harness::Claude
                && (has(PlanKind::Count) || policy.delivery == Delivery::CacheEdits)
        }
        "claude_cut_flags" => cut && policy.preset == Harness::Claude,
        "api_beta_header" => policy.kind == PlanKind::Api,
        _ => policy.preset == Harness::Qwen,
    };
    ALL.into_iter().filter(wanted).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(p: &Policy, kinds: &[PlanKind]) -> Vec<&'static str> {
        caveats(p, kinds).iter().map(|c| c.id).collect()
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

    /// SPEC §13.C: `claude_cut_flags` comes after `claude_cached_internal`, and
    /// only when a cut record is in the view.
    #[test]
    fn e1_cut_flags_caveat_in_its_place() {
        let mut edits = Policy::preset(Harness::Claude);
        edits.delivery = Delivery::CacheEdits;
        let with = |cut| {
            caveats_with(&edits, &[PlanKind::Idle], cut)
                .iter()
                .map(|c| c.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            with(true),
            [
                "claude_idle_flag",
                "claude_cached_internal",
                "claude_cut_flags"
            ]
        );
        assert!(!with(false).contains(&"claude_cut_flags"));
        let qwen = Policy::preset(Harness::Qwen);
        assert!(
            !caveats_with(&qwen, &[PlanKind::Idle], true)
                .iter()
                .any(|c| c.id == "claude_cut_flags")
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
}
