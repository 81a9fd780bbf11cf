//! Every harness fact in one table (SPEC §2–§6): what a harness is, as data.
//!
//! Loaders, plans, protection, the wire and the demo read these rows; adding a
//! tool, an alias or a harness is an edit here. Each fact names its source.

use crate::session::Harness;
use std::path::PathBuf;

/// The placeholder both harnesses write over a cleared tool result.
/// Claude Code 2.1.88 `microCompact.ts` and Qwen Code `microcompact.ts`.
pub(crate) const CLEARED: &str = "[Old tool result content cleared]";

/// How a harness estimates the tokens of a result's text (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextTokens {
    /// `Math.round(len / 4)` per text block (Claude Code `roughTokenCountEstimation`).
    RoundQuarter,
    /// `Math.ceil(len / 4)` (Qwen Code).
    CeilQuarter,
}

impl TextTokens {
    pub fn of(self, utf16_len: u64) -> u64 {
        match self {
            TextTokens::RoundQuarter => (utf16_len + 2) / 4,
            TextTokens::CeilQuarter => utf16_len.div_ceil(4),
        }
    }
}

/// The shape of a request body (SPEC §6): Messages API or Gemini `contents`.
#[derive(Debug, Clone, Copy)]
pub struct WireShape {
    /// The body's key for its message list.
    pub messages: &'static str,
    /// A message's key for its blocks / parts.
    pub content: &'static str,
    pub user_role: &'static str,
    pub assistant_role: &'static str,
}

/// Where a harness keeps its files and its managed memory (SPEC §4).
#[derive(Debug, Clone, Copy)]
pub struct Home {
    /// The variable that moves the base folder, and the folder under `$HOME` otherwise.
    pub base_env: &'static str,
    pub base_dir: &'static str,
    /// The user memory root, under the base.
    pub user_memory: &'static str,
    /// The harness's folder in a project: `<git root>/<dir>/team-memory` is the team
    /// root, `<project>/<dir>/memory` the local project root.
    pub project_dir: &'static str,
    /// Whether the project root is named after the git root (Qwen) or the cwd (Claude).
    pub project_by_git_root: bool,
    /// The variable that moves the project memory into `<project>/<team_dir>/memory`.
    pub local_memory_env: Option<&'static str>,
}

impl Home {
    /// The base folder: `$<base_env>` when set and not empty, else `~/<base_dir>`.
    /// A comma-separated list (ccusage's habit for several Claude installs, SPEC
    /// §7a) names its first entry: one base holds the memory of one install.
    pub fn base(&self) -> PathBuf {
        std::env::var_os(self.base_env)
            .and_then(|v| {
                let v = v.to_string_lossy().into_owned();
                v.split(',')
                    .map(str::trim)
                    .find(|d| !d.is_empty())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(|| home().join(self.base_dir))
    }
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// The default plan parameters of a preset (SPEC §5 table).
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    pub keep_recent: u32,
    pub gap_threshold_minutes: f64,
    pub size_threshold: i64,
    pub low_watermark: bool,
    pub trigger_threshold: u32,
    /// Qwen protects managed memory; Claude Code has no such rule (a what-if).
    pub protect: bool,
    /// Claude's time-based clearing clears errors too; Qwen never does.
    pub clear_errors: bool,
}

/// Which results still vouch for a path whose read was evicted (SPEC §7
/// `evicted_read_paths`): the path is not reported as lost while one stays.
#[derive(Debug, Clone, Copy)]
pub enum Vouchers {
    /// Any file-path result that stays (kept, protected, error kept).
    AnyStaying,
    /// Only a kept, already sent result of these tools (Qwen: a `write_file`).
    KeptTools(&'static [&'static str]),
}

/// Everything mcscope knows about one harness.
#[derive(Debug)]
pub struct Preset {
    pub harness: Harness,
    pub name: &'static str,
    /// Tools whose results plans may clear.
    pub compactable: &'static [&'static str],
    /// The tool whose results managed-memory protection looks at.
    pub read_tool: &'static str,
    /// Tools whose calls name a file in `file_path`.
    pub file_path_tools: &'static [&'static str],
    /// Shell tools: their calls name a command (`input.command` / `args.command`),
    /// what SPEC §9 `later_used` compares for them.
    pub shell_tools: &'static [&'static str],
    /// Legacy tool names and what they stand for now (exact, case-sensitive).
    pub aliases: &'static [(&'static str, &'static str)],
    /// Whether names match the known tools case-insensitively (`Read_File` is
    /// `read_file`); the harness then compares canonical names only.
    pub names_fold_case: bool,
    /// The model-facing tool that bridges a deferred tool: its call names the
    /// target in `args.name` and `args.arguments`.
    pub bridge_tool: Option<&'static str>,
    /// Whether error results can be cleared at all (Claude's `clear_errors`
    /// option); Qwen never clears an error (`microcompact.ts`).
    pub errors_clearable: bool,
    pub vouchers: Vouchers,
    /// The tool whose results carry managed-memory bodies (`{memoryRef,
    /// mtimeMs}`): clearing one evicts them (SPEC §3).
    pub memory_search_tool: Option<&'static str>,
    /// Tokens counted per image or document in a result.
    pub media_tokens: u64,
    pub text_tokens: TextTokens,
    pub wire: WireShape,
    pub home: Home,
    pub defaults: Defaults,
    /// What a cleared tool result reads in the wire.
    pub placeholder: &'static str,
    /// Every tool's results may be cleared (the API's server-side edits know no
    /// compactable list; `exclude_tools` is a parameter, SPEC §11).
    pub every_tool: bool,
    /// The beta header a request needs for this preset's delivery, if any.
    pub beta_header: Option<&'static str>,
}

impl Preset {
    pub fn is_compactable(&self, tool: &str) -> bool {
        self.every_tool || self.compactable.contains(&tool)
    }

    pub fn is_file_path_tool(&self, tool: &str) -> bool {
        self.file_path_tools.contains(&tool)
    }

    /// The canonical name of a recorded tool name (SPEC §3): legacy aliases
    /// first (exact), then a case-insensitive match against the known tools and
    /// the bridge; anything else (display names, the empty string) stays as it is
    /// and is never compactable.
    pub fn canonical<'a>(&self, name: &'a str) -> &'a str
    where
        'static: 'a,
    {
        if name.is_empty() {
            return name;
        }
        if let Some((_, to)) = self.aliases.iter().find(|(from, _)| *from == name) {
            return to;
        }
        if self.names_fold_case {
            let known = self.compactable.iter().chain(self.bridge_tool.iter());
            if let Some(k) = known.into_iter().find(|k| k.eq_ignore_ascii_case(name)) {
                return k;
            }
        }
        name
    }

    /// The estimated tokens of a result: its text plus its media (SPEC §2).
    pub fn est_tokens(&self, text_tokens: u64, media: u64) -> u64 {
        text_tokens + self.media_tokens * media
    }
}

/// Claude Code 2.1.88: `services/compact/microCompact.ts` (COMPACTABLE_TOOLS, token
/// estimate, IMAGE_MAX_TOKEN_SIZE), `utils/messages.ts`, `services/api/claude.ts`.
pub(crate) static CLAUDE: Preset = CLAUDE_FACTS;

/// Claude's row as a constant, so that the `api` row can share its facts.
const CLAUDE_FACTS: Preset = Preset {
    harness: Harness::Claude,
    name: "claude",
    compactable: &[
        "Read",
        "Bash",
        "PowerShell",
        "Grep",
        "Glob",
        "WebSearch",
        "WebFetch",
        "Edit",
        "Write",
    ],
    read_tool: "Read",
    file_path_tools: &["Read", "Edit", "Write"],
    shell_tools: &["Bash", "PowerShell"],
    aliases: &[],
    names_fold_case: false,
    bridge_tool: None,
    errors_clearable: true,
    vouchers: Vouchers::AnyStaying,
    memory_search_tool: None,
    media_tokens: 2000,
    text_tokens: TextTokens::RoundQuarter,
    wire: WireShape {
        messages: "messages",
        content: "content",
        user_role: "user",
        assistant_role: "assistant",
    },
    home: Home {
        base_env: "CLAUDE_CONFIG_DIR",
        base_dir: ".claude",
        user_memory: "memory",
        project_dir: ".claude",
        project_by_git_root: false,
        local_memory_env: None,
    },
    // timeBasedMCConfig.ts: gapThresholdMinutes 60, keepRecent 5.
    defaults: Defaults {
        keep_recent: 5,
        gap_threshold_minutes: 60.0,
        size_threshold: 500_000,
        low_watermark: true,
        trigger_threshold: 10,
        protect: false,
        clear_errors: true,
    },
    placeholder: CLEARED,
    every_tool: false,
    beta_header: None,
};

/// Qwen Code: `packages/core/src/services/microcompaction/microcompact.ts`,
/// `memory/paths.ts`, `tools/tool-names.ts`.
pub(crate) static QWEN: Preset = Preset {
    harness: Harness::Qwen,
    name: "qwen",
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
    names_fold_case: true,
    // client.ts: deferred tools are called through `tool_call`.
    bridge_tool: Some("tool_call"),
    errors_clearable: false,
    // microcompact.ts: only a kept write_file re-establishes a path.
    vouchers: Vouchers::KeptTools(&["write_file"]),
    memory_search_tool: Some("search_memory"),
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
    every_tool: false,
    beta_header: None,
};

/// Anthropic's server-side context editing (SPEC §11; Anthropic docs "Context
/// editing"): the Messages API shape, every tool clearable, the result replaced
/// by a placeholder, and the beta header the request carries. Loaded sessions
/// stay Claude-shaped (`messages-json` bodies, Claude Code transcripts).
pub(crate) static API: Preset = Preset {
    harness: Harness::Claude,
    name: "api",
    compactable: &[],
    every_tool: true,
    placeholder: CLEARED,
    beta_header: Some("context-management-2025-06-27"),
    ..CLAUDE_FACTS
};

/// Every preset, in the order the UI lists them.
#[cfg(test)]
pub(crate) static ALL: [&Preset; 2] = [&CLAUDE, &QWEN];

impl Harness {
    /// The harness's row of the table.
    pub fn rules(self) -> &'static Preset {
        match self {
            Harness::Claude => &CLAUDE,
            Harness::Qwen => &QWEN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_estimates_follow_each_harness() {
        // Claude rounds half up per text block; Qwen takes the ceiling.
        assert_eq!(TextTokens::RoundQuarter.of(6), 2);
        assert_eq!(TextTokens::RoundQuarter.of(5), 1);
        assert_eq!(TextTokens::CeilQuarter.of(5), 2);
        assert_eq!(CLAUDE.est_tokens(3, 1), 2003);
        assert_eq!(QWEN.est_tokens(3, 2), 3203);
    }

    #[test]
    fn qwen_names_are_canonical_aliases_then_any_case() {
        assert_eq!(QWEN.canonical("search_file_content"), "grep_search");
        assert_eq!(QWEN.canonical("replace"), "edit");
        assert_eq!(QWEN.canonical("task"), "agent");
        assert_eq!(QWEN.canonical("Read_File"), "read_file");
        assert_eq!(QWEN.canonical("TOOL_CALL"), "tool_call");
        // Aliases are exact: another case is no alias (and no known tool).
        assert_eq!(QWEN.canonical("Replace"), "Replace");
        // Display names are not tool names.
        assert_eq!(QWEN.canonical("ReadFile"), "ReadFile");
        assert_eq!(QWEN.canonical(""), "");
        // Claude compares names as recorded.
        assert_eq!(CLAUDE.canonical("read"), "read");
        for t in ["web_search", "skill", "search_memory"] {
            assert!(QWEN.is_compactable(t), "{t}");
        }
        assert_eq!(QWEN.compactable.len(), 11);
    }

    #[test]
    fn each_row_is_its_harness() {
        for p in ALL {
            assert_eq!(p.harness.rules().name, p.name);
            assert_eq!(p.harness.name(), p.name);
            assert!(p.is_compactable(p.read_tool));
            assert!(p.file_path_tools.iter().all(|t| p.is_compactable(t)));
        }
    }
}
