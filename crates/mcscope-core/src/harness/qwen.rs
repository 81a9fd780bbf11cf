//! Qwen Code (SPEC §2–§5): its row of facts, where it runs its plans (by the
//! kind of send, not by whether a turn begins: `core/client.ts`), and the
//! settings that set them. Upstream: `packages/core/src/services/
//! microcompaction/microcompact.ts`, `memory/paths.ts`, `tools/tool-names.ts`.

use super::caveat::{Rule, Template};
use super::*;
use crate::session::SendKind;
use crate::vocab::NoRun;
use serde_json::{Map, Value, json};

/// Qwen Code: `packages/core/src/services/microcompaction/microcompact.ts`,
/// `memory/paths.ts`, `tools/tool-names.ts`.
pub(crate) static QWEN: Preset = Preset {
    harness: HarnessId::Qwen,
    name: "qwen",
    title: "Qwen Code",
    // Qwen Code writes no record of a clearing (reference §2).
    words: Words {
        records: "clearing",
        rewrite: "the harness rewrote old results, which breaks the prefix",
        // microcompact.ts skips a result whose response is an error.
        error_kept: Some("error result: qwen never clears errors"),
        folders: "Qwen Code's projects under $QWEN_RUNTIME_DIR or ~/.qwen",
    },
    server_preset: false,
    formats: &[Format::QwenJsonl],
    dialect: Dialect::Gemini,
    // microcompact.ts: the keep window is over the clearable tool responses in
    // order; a response names its own tool (SPEC §3).
    rank_by: RankBy::Responses,
    // microcompact.ts collects a set of paths per id (SPEC §3).
    dedup_paths: true,
    // client.ts: the last completion of the process, across a compression (SPEC §2).
    gap_from: GapFrom::LastReply,
    // Only a `rewind` / `branch_checkpoint` record makes a branch (SPEC §2).
    unmarked_forks: false,
    // The loader keeps input = P − R and R; Qwen records no cache writes (SPEC §10).
    cache_writes: false,
    levers: Levers::NONE,
    offers: Offers {
        recorded_kinds: &[],
        grid_kinds: &[PlanKind::Idle, PlanKind::Size],
        api_grid: false,
        // No idle-server or budget: Claude Code's plans (SPEC §15.3).
        kinds: &[
            PlanKind::Auto,
            PlanKind::Idle,
            PlanKind::Forced,
            PlanKind::Size,
            PlanKind::Count,
            PlanKind::Recorded,
        ],
        // The harness rewrites its own history; it sends no edits.
        deliveries: &[Delivery::Rewrite],
        caveats: &CAVEATS,
    },
    tools: Tools {
        // microcompact.ts (main, September 2026): eleven tools.
        compactable: &[
            "read_file",
            "run_shell_command",
            "grep_search",
            "glob",
            "web_fetch",
            "web_search",
            "read_mcp_resource",
            "edit",
            "write_file",
            "skill",
            "search_memory",
        ],
        read_tool: "read_file",
        file_path_tools: &["read_file", "edit", "write_file"],
        shell_tools: &["run_shell_command"],
        // tools/tool-names.ts legacy aliases.
        aliases: &[
            ("search_file_content", "grep_search"),
            ("replace", "edit"),
            ("task", "agent"),
        ],
        // client.ts: deferred tools are called through `tool_call`.
        bridge_tool: Some("tool_call"),
        errors_clearable: false,
        // microcompact.ts: only a kept write_file re-establishes a path.
        vouchers: Vouchers::KeptTools(&["write_file"]),
        memory_search_tool: Some("search_memory"),
        every_tool: false,
        exempt: &[],
    },
    media_tokens: 1600,
    text_tokens: TextTokens::CeilQuarter,
    wire: WireShape {
        messages: "contents",
        content: "parts",
        user_role: "user",
        assistant_role: "model",
    },
    home: Home {
        base_env: "QWEN_RUNTIME_DIR",
        base_dir: ".qwen",
        user_memory: "memories",
        project_dir: ".qwen",
        project_by_git_root: true,
        local_memory_env: Some("QWEN_CODE_MEMORY_LOCAL"),
        list_env: false,
        home_bases: &[".qwen"],
        env_is_home: false,
        sessions: "projects",
    },
    defaults: Defaults {
        keep_recent: 5,
        gap_threshold_minutes: 60.0,
        size_threshold: 500_000,
        low_watermark: true,
        trigger_threshold: 10,
        protect: true,
        clear_errors: false,
    },
    placeholder: CLEARED,
    beta_header: None,
};

/// Which of Qwen's automatic plans run at a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    pub idle: bool,
    pub size: bool,
    /// Why nothing (or only size) runs.
    pub why_none: NoRun,
}

/// The plans Qwen runs at `req`. A request without a send (a Claude transcript
/// planned with the qwen preset) runs idle when a turn begins and size always.
pub fn qwen_runs(req: &Request) -> Runs {
    let Some(send) = &req.send else {
        return Runs {
            idle: req.begins_turn,
            size: true,
            why_none: NoRun::TurnOnly,
        };
    };
    match send.kind {
        SendKind::UserQuery | SendKind::Cron | SendKind::Hook if !send.after_goal => Runs {
            idle: true,
            size: true,
            why_none: NoRun::Unsaid,
        },
        SendKind::Hook => Runs {
            idle: false,
            size: false,
            why_none: NoRun::GoalHook,
        },
        SendKind::ToolResult => Runs {
            idle: false,
            size: true,
            why_none: NoRun::Send(SendKind::ToolResult),
        },
        kind => Runs {
            idle: false,
            size: false,
            why_none: NoRun::Send(kind),
        },
    }
}

/// A number as a settings file holds it: whole values without a fraction.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// Qwen Code's answers.
pub(super) struct Qwen;

impl Harness for Qwen {
    fn facts(&self) -> &'static Preset {
        &QWEN
    }

    /// SPEC §5: `idle` where Qwen runs it and the gap holds, else `size` where
    /// Qwen runs that, else none (a notification, a goal turn…).
    fn auto_kind(&self, policy: &Policy, req: &Request, gap: Option<f64>) -> Option<PlanKind> {
        let runs = qwen_runs(req);
        if runs.idle && policy.gap_holds(gap) {
            Some(PlanKind::Idle)
        } else if runs.size {
            Some(PlanKind::Size)
        } else {
            None
        }
    }

    fn auto_kinds(&self) -> &'static [PlanKind] {
        &[PlanKind::Idle, PlanKind::Size]
    }

    /// microcompact.ts: two more keep windows, over media (SPEC §5 media).
    fn media_lists(&self) -> bool {
        true
    }

    /// microcompact.ts: the size check is off while idle is, unless set (SPEC §5).
    fn size_off_with_idle(&self) -> bool {
        true
    }

    /// `/compress-fast` drops thought parts (SPEC §5 forced).
    fn forced_drops_thoughts(&self) -> bool {
        true
    }

    fn auto_words(&self) -> String {
        "qwen by the kind of send: idle after the gap at a prompt, cron job or hook, else size where Qwen runs it, nothing at notifications and goal turns".into()
    }

    fn runs_at(&self, req: &Request) -> Option<Runs> {
        Some(qwen_runs(req))
    }

    fn no_plan(&self, req: &Request) -> NoRun {
        qwen_runs(req).why_none
    }

    /// client.ts: at a hook the gap runs from the hook checkpoint, which starts
    /// at the last completion (SPEC §2).
    fn idle_gap(&self, req: &Request, checkpoint: &mut Option<i64>) -> Option<f64> {
        match &req.send {
            Some(send) if send.kind == SendKind::Hook => {
                *checkpoint = checkpoint.or(send.completion_ms).or(req.now_ms);
                Some((req.now_ms? - (*checkpoint)?) as f64 / 60_000.0)
            }
            _ => req.gap_minutes,
        }
    }

    /// client.ts: a prompt always moves the hook checkpoint to now; a cron job
    /// or a hook only when its idle or size plan saved tokens.
    fn after_send(&self, req: &Request, plan_saved: bool, checkpoint: &mut Option<i64>) {
        match req.send.as_ref().map(|s| s.kind) {
            Some(SendKind::UserQuery) => *checkpoint = req.now_ms,
            Some(SendKind::Cron | SendKind::Hook) if plan_saved => *checkpoint = req.now_ms,
            _ => {}
        }
    }

    /// client.ts: the hook checkpoint outlives a compression within a process;
    /// it is known at a prompt (which sets it) or where the process began.
    fn replay_from(&self, requests: &[Request], first: usize) -> usize {
        let process = |i: usize| requests[i - 1].send.as_ref().map(|x| x.process);
        let mut first = first;
        while first > 1
            && process(first - 1) == process(first)
            && requests[first - 1].send.as_ref().map(|x| x.kind) != Some(SendKind::UserQuery)
        {
            first -= 1;
        }
        first
    }
}

impl ForUsers for Qwen {
    /// `/compress-fast` is a command the user runs; idle, size and auto are
    /// `settings.json` keys; the rest no Qwen build has.
    fn availability(&self, policy: &Policy, _s: &Session) -> Availability {
        match policy.kind {
            PlanKind::Idle | PlanKind::Size | PlanKind::Auto | PlanKind::Forced => {
                Availability::User
            }
            _ => Availability::WhatIf,
        }
    }

    /// `/compress-fast` runs the forced clearing (SPEC §5 `forced`).
    fn by_hand(&self, kind: PlanKind) -> Option<&'static str> {
        (kind == PlanKind::Forced).then_some("/compress-fast")
    }

    fn settings_file(&self) -> &'static str {
        "Qwen Code's settings.json"
    }

    /// Qwen Code's `settings.json` keys the kind reads.
    fn knob(&self, policy: &Policy) -> Option<Value> {
        let (gap, size) = match policy.kind {
            PlanKind::Idle => (true, false),
            PlanKind::Size => (false, true),
            PlanKind::Auto => (true, true),
            _ => return None,
        };
        let mut knob = Map::new();
        if gap {
            knob.insert(
                "toolResultsThresholdMinutes".into(),
                number(policy.gap_threshold_minutes),
            );
        }
        let keep = policy.keep_recent.unwrap_or(policy.kind.default_keep());
        knob.insert("toolResultsNumToKeep".into(), json!(keep));
        if size {
            knob.insert(
                "toolResultsTotalCharsThreshold".into(),
                json!(policy.size_threshold),
            );
        }
        Some(Value::Object(knob))
    }
}

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

/// Qwen Code's caveats (SPEC §5), shown on every plan of its sessions.
pub(super) static CAVEATS: [Rule; 2] = [
    Rule::always(QWEN_MEMORY_PRESSURE),
    Rule::always(QWEN_UNSEEN_RESTART),
];
