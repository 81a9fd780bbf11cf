//! Cline (SPEC §17.K, §18.2–§18.4; `reference/cline.md`): its row of facts
//! and its answers to the engine. Upstream: `cline/cline` at tag v4.0.12, the
//! last release of the classic engine: `apps/vscode/src/core/context/
//! context-management/ContextManager.ts` (the rule), `context-window-utils.ts`
//! (the limit), `core/prompts/responses.ts` (the notices), `core/storage/
//! disk.ts` (the task files).

use super::caveat::{At, Rule, Template, when};
use super::*;
use crate::vocab::NoRun;

/// `formatResponse.duplicateFileReadNotice()` (v4.0.12 `core/prompts/responses.ts`):
/// what replaces every copy of a file's content but the latest.
pub const DUPLICATE_READ_NOTICE: &str = "[[NOTE] This file read has been removed to save space in the context window. Refer to the latest file read for the most up to date version of this file.]";

/// `formatResponse.contextTruncationNotice()` (v4.0.12): what block 0 of the
/// first assistant message reads once the history is truncated.
pub const TRUNCATION_NOTICE: &str = "[NOTE] Some previous conversation history with the user has been removed to maintain optimal context window length. The initial user task has been retained for continuity, while intermediate conversation history has been removed. Keep this in mind as you continue assisting the user. Pay special attention to the user's latest messages.";

/// Cline v4.0.12 (reference §1–§4).
pub(crate) static CLINE: Preset = Preset {
    harness: HarnessId::Cline,
    name: "cline",
    title: "Cline",
    words: Words {
        records: "cline_context",
        rewrite: "Cline replaced duplicate file reads with its notice or truncated the history (context_history.json, conversationHistoryDeletedRange), which breaks the prefix",
        error_kept: None,
        folders: "Cline's task folders (tasks/<id>/ under $CLINE_DATA_DIR, $CLINE_DIR/data, ~/.cline/data, or the extension's global storage: ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev, ~/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev, ~/.config/Windsurf/User/globalStorage/saoudrizwan.claude-dev, ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev, ~/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev, ~/Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev)",
    },
    server_preset: false,
    // Reference §1: `tasks/<taskId>/api_conversation_history.json` and its
    // siblings (`GlobalFileNames`, v4.0.12 `core/storage/disk.ts`).
    formats: &[Format::ClineTask],
    // Reference §2.1: the history is Anthropic `MessageParam`s.
    dialect: Dialect::Anthropic,
    // The loader gives each result a call of its own (a native `tool_use`,
    // else the text-protocol header's tool and path): a result takes its
    // call's tool and place.
    rank_by: RankBy::Calls,
    dedup_paths: false,
    gap_from: GapFrom::LastReplyInView,
    unmarked_forks: false,
    // Reference §2.2: `cacheWrites` per `api_req_started`.
    cache_writes: true,
    levers: Levers::NONE,
    offers: Offers {
        // Reference §2.3, §3.2–§3.3: every notice and the truncation notice
        // are written to `context_history.json` when the rule fires.
        recorded_kinds: &[RecordedKind {
            kind: PlanKind::Cline,
            record: "no edit in context_history.json and no conversationHistoryDeletedRange",
            off: "auto-condense (useAutoCondense) summarizes instead, or the task's context_history.json was not kept",
        }],
        grid_kinds: &[PlanKind::Cline],
        api_grid: false,
        // SPEC §18.2: the `p` cycle auto → cline → recorded.
        kinds: &[PlanKind::Auto, PlanKind::Cline, PlanKind::Recorded],
        // Cline rewrites its own history; it sends no edits.
        deliveries: &[Delivery::Rewrite],
        caveats: &CAVEATS,
    },
    tools: Tools {
        // Reference §3.3: a truncation drops every kind of result; §3.2's
        // notices replace only file contents (the plan's own rule).
        compactable: &[],
        read_tool: "read_file",
        // Reference §3.2: reads, writes with their final content, @-mentions.
        file_path_tools: &[
            "read_file",
            "write_to_file",
            "replace_in_file",
            MENTION_TOOL,
        ],
        shell_tools: &["execute_command"],
        aliases: &[],
        bridge_tool: None,
        errors_clearable: true,
        vouchers: Vouchers::AnyStaying,
        memory_search_tool: None,
        every_tool: true,
        exempt: &[],
    },
    media_tokens: 2000,
    // SPEC §18.2: §2's claude rule.
    text_tokens: TextTokens::RoundQuarter,
    wire: WireShape {
        messages: "messages",
        content: "content",
        user_role: "user",
        assistant_role: "assistant",
    },
    // Reference §1: the CLI's data folder (`$CLINE_DATA_DIR`, else
    // `$CLINE_DIR/data`, else `~/.cline/data`, v4.1.12 `legacy-state-reader.ts`
    // `resolveDataDir`), and VS Code's global storage of the extension
    // `saoudrizwan.claude-dev` and of its forks [inf]. Cline has no managed
    // memory.
    home: Home {
        base_env: "CLINE_DATA_DIR",
        base_dir: ".cline/data",
        user_memory: "memory",
        project_dir: ".clinerules",
        project_by_git_root: false,
        local_memory_env: None,
        list_env: false,
        home_bases: HOME_BASES,
        env_is_home: false,
        sessions: "tasks",
    },
    defaults: Defaults {
        keep_recent: 5,
        gap_threshold_minutes: 60.0,
        size_threshold: 500_000,
        low_watermark: true,
        trigger_threshold: 10,
        protect: false,
        clear_errors: true,
    },
    // Reference §3.2: what a replaced file read reads.
    placeholder: DUPLICATE_READ_NOTICE,
    beta_header: None,
};

/// The tool name mcscope gives an @-mention's file content (`<file_content
/// path="…">` in a user message, reference §3.2 FILE_MENTION).
pub const MENTION_TOOL: &str = "file_mention";

/// The bases under `$HOME` (reference §1): the CLI's, then the global storage
/// of VS Code and of two forks [inf] on Linux and macOS (any other folder is
/// given as PATH, or as `$CLINE_DATA_DIR`).
const HOME_BASES: &[&str] = &[
    ".cline/data",
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev",
    ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev",
    ".config/Windsurf/User/globalStorage/saoudrizwan.claude-dev",
    "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev",
    "Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev",
    "Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev",
];

/// Cline's answers.
pub(super) struct Cline;

/// The versions of the SDK engine (reference §0): v4.0.0 and v4.1.0 on.
fn sdk(version: Option<&str>) -> bool {
    version
        .and_then(claude_version::parse)
        .is_some_and(|v| v == (4, 0, 0) || v >= (4, 1, 0))
}

/// Where the SDK versions are named.
const SDK_VERSIONS: &str = "4.0.0 and 4.1+";

impl Harness for Cline {
    fn facts(&self) -> &'static Preset {
        &CLINE
    }

    /// SPEC §17.K.3, §18.4: the classic engine's context manager on ≤ 3.89.2
    /// and 4.0.1–4.0.12 (a version unknown included); none on the SDK's.
    fn auto_kind(&self, _policy: &Policy, req: &Request, _gap: Option<f64>) -> Option<PlanKind> {
        (!sdk(req.version.as_deref())).then_some(PlanKind::Cline)
    }

    fn auto_kinds(&self) -> &'static [PlanKind] {
        &[PlanKind::Cline]
    }

    fn auto_words(&self) -> String {
        "cline its context manager on the classic versions (up to 3.89.2, 4.0.1-4.0.12), nothing on the SDK's (4.0.0, 4.1+)"
            .into()
    }

    fn no_plan(&self, _req: &Request) -> NoRun {
        NoRun::Unsimulated {
            harness: HarnessId::Cline,
            versions: SDK_VERSIONS,
        }
    }
}

impl ForUsers for Cline {
    /// The rule is on in every classic version and reads the model's window
    /// (the user's choice of model, or `openAiModelInfo.contextWindow`);
    /// turning the notices off no build can (reference §4).
    fn availability(&self, policy: &Policy, _s: &Session) -> Availability {
        match policy.kind {
            PlanKind::Cline | PlanKind::Auto if policy.cline_dedupe => Availability::User,
            _ => Availability::WhatIf,
        }
    }

    /// Reference §4: the model (and its window) and auto-condense are in
    /// Cline's settings.
    fn settings_file(&self) -> &'static str {
        "Cline's settings (the model and its context window)"
    }

    /// Reference §1: `$CLINE_DIR/data`, the CLI's data folder when
    /// `$CLINE_DATA_DIR` is unset (the row's base reads the latter).
    fn data_folders(&self) -> Vec<PathBuf> {
        std::env::var_os("CLINE_DIR")
            .filter(|v| !v.is_empty())
            .map(|d| PathBuf::from(d).join("data"))
            .into_iter()
            .collect()
    }
}

/// The limit of Cline's rule for a window `w` (reference §3.1, v4.0.12
/// `context-window-utils.ts` `getContextWindowInfo`).
pub fn max_allowed_size(w: u64) -> u64 {
    match w {
        64_000 => 37_000,
        128_000 => 98_000,
        200_000 => 160_000,
        // `Math.max(contextWindow - 40_000, contextWindow * 0.8)`: the 0.8·W
        // side is a float; a limit is compared with integer totals, so its
        // ceiling is the least total that reaches it.
        w => w.saturating_sub(40_000).max((w * 4).div_ceil(5)),
    }
}

/// SPEC §18.4: the window of a model id (`claude-*`: 200,000, 1,000,000 with
/// `[1m]`; any other: 128,000, Cline's fallback).
pub fn window_of_model(model: Option<&str>) -> u64 {
    match model {
        Some(m) if m.contains("[1m]") => 1_000_000,
        Some(m) if m.starts_with("claude-") || m.contains("/claude-") => 200_000,
        _ => 128_000,
    }
}

pub(crate) const CLINE_WINDOW_ASSUMED: Template = Template {
    id: "cline_window_assumed",
    short: "cline: context window taken from the model id",
    // SPEC §18.4; reference §3.1: the window is the model info's, which the
    // task files do not record.
    text: "Cline's limit comes from the model's context window, which the task does not record: mcscope takes 200,000 for claude-* model ids (1,000,000 with [1m]) and 128,000 (Cline's fallback) for any other; give --context-window for the window the model really had.",
};

pub(crate) const CLINE_VERSION_UNKNOWN: Template = Template {
    id: "cline_version_unknown",
    short: "cline: version unknown, classic rule assumed",
    // Reference §2.4: `environment_history[].cline_version` in
    // task_metadata.json is the only place a task records its version.
    text: "The task has no task_metadata.json, the only file that records Cline's version: mcscope runs the classic context manager (every task folder written before 2026-07-30 is classic).",
};

pub(crate) const CLINE_SDK: Template = Template {
    id: "cline_sdk",
    short: "cline: SDK version, compaction not simulated",
    // Reference §0: v4.0.0 and v4.1+ run the SDK's compaction at 90 % of the
    // window with an LLM summary.
    text: "Cline 4.0.0 and 4.1+ manage the context with the SDK's compaction (at 90 % of the window, an LLM summary), which mcscope does not simulate: auto plans nothing at those requests.",
};

pub(crate) const CLINE_AUTO_CONDENSE: Template = Template {
    id: "cline_auto_condense",
    short: "cline: auto-condense on, summary not simulated",
    // Reference §4: with useAutoCondense the notices are the same, and a
    // summary request replaces the truncation.
    text: "This task ran with auto-condense (it records a summarize_task request): Cline writes the same duplicate-read notices, then summarizes the history instead of truncating it; mcscope simulates the notices and not the summary.",
};

/// Cline's caveats (SPEC §18.9's order).
pub(super) static CAVEATS: [Rule; 4] = [
    Rule::by(CLINE_WINDOW_ASSUMED, |a, t| {
        when(
            a.has(PlanKind::Cline) && a.policy.cline_context_window.is_none(),
            t,
        )
    }),
    Rule::by(CLINE_VERSION_UNKNOWN, |a, t| {
        when(
            a.at.iter()
                .any(|x: &At<'_>| x.kind == Some(PlanKind::Cline) && x.version.is_none()),
            t,
        )
    }),
    Rule::by(CLINE_SDK, |a, t| {
        when(a.at.iter().any(|x| sdk(x.version)), t)
    }),
    Rule::by(CLINE_AUTO_CONDENSE, |a, t| {
        when(a.at.iter().any(|x| x.condensed), t)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §3.1: `getContextWindowInfo`'s table.
    #[test]
    fn k3_the_limit_of_each_window() {
        assert_eq!(max_allowed_size(64_000), 37_000);
        assert_eq!(max_allowed_size(128_000), 98_000);
        assert_eq!(max_allowed_size(200_000), 160_000);
        assert_eq!(max_allowed_size(1_000_000), 960_000);
        assert_eq!(max_allowed_size(32_000), 25_600);
        assert_eq!(max_allowed_size(100_000), 80_000);
        assert_eq!(max_allowed_size(300_000), 260_000);
    }

    /// SPEC §18.4: the window by model id.
    #[test]
    fn s18_4_the_window_of_a_model() {
        assert_eq!(window_of_model(Some("claude-sonnet-4-5")), 200_000);
        assert_eq!(window_of_model(Some("claude-sonnet-4-5[1m]")), 1_000_000);
        assert_eq!(window_of_model(Some("anthropic/claude-opus-4")), 200_000);
        assert_eq!(window_of_model(Some("gpt-5")), 128_000);
        assert_eq!(window_of_model(None), 128_000);
    }

    /// Reference §0: the SDK versions plan nothing under auto.
    #[test]
    fn k3_auto_runs_cline_on_the_classic_versions_only() {
        let p = Policy::preset(HarnessId::Cline);
        let at = |v: Option<&str>| {
            let mut r = Request::empty(1);
            r.version = v.map(str::to_string);
            Cline.auto_kind(&p, &r, None)
        };
        assert_eq!(at(Some("3.89.2")), Some(PlanKind::Cline));
        assert_eq!(at(Some("4.0.12")), Some(PlanKind::Cline));
        assert_eq!(at(None), Some(PlanKind::Cline));
        assert_eq!(at(Some("4.0.0")), None);
        assert_eq!(at(Some("4.1.3")), None);
    }
}
