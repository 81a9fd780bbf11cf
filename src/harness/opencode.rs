//! OpenCode (SPEC §14, §15.13–14; `shared/reference/opencode.md`): its row of
//! facts and its answers to the engine. Upstream: `sst/opencode`
//! `packages/opencode/src/session/compaction.ts` (`prune`), `session/message-v2.ts`
//! (`toModelMessages`), `util/token.ts` (`Token.estimate`), read in the published
//! binaries 1.0.0–1.18.33 (reference §1–§3).

use super::*;
use crate::policy::engine::NoRun;

/// OpenCode 1.18.33 (reference §1.3, §1.4, §2).
pub(crate) static OPENCODE: Preset = Preset {
    harness: Harness::Opencode,
    name: "opencode",
    server_preset: false,
    // Reference §1.1: SQLite from 1.2.0, JSON files under `storage/` up to 1.1.x.
    formats: &[Format::OpencodeDb, Format::OpencodeJson],
    // Reference §1.4: `toModelMessages` turns a completed tool part into an AI SDK
    // tool call and result, which the provider adapter sends as `tool_use` /
    // `tool_result` blocks for Anthropic models (the common provider, and the
    // reference's example). The prune placeholder replaces the result's output
    // string, the call stays: what the Anthropic dialect's `clear_block` does.
    dialect: Dialect::Anthropic,
    // A tool part is the call and its result in one row (reference §1.3): the
    // result takes its call's tool and place.
    rank_by: RankBy::Calls,
    dedup_paths: false,
    gap_from: GapFrom::LastReplyInView,
    // Parts and messages are rows ordered by id: no record tree, no forks.
    unmarked_forks: false,
    // Reference §2.4: the mark is stored; every later request sends the
    // placeholder (cumulative and permanent, like qwen).
    turn_start_lapses: false,
    version_restart_lapses: false,
    hook_gap: false,
    media_lists: false,
    auto_may_size: false,
    size_needs_idle: false,
    size_tracked: false,
    forced_drops_thoughts: false,
    versioned: false,
    // Reference §1.3: `tokens.cache.write` is recorded per assistant message.
    cache_writes: true,
    grid_kinds: &[],
    api_grid: false,
    kinds: &[PlanKind::Auto, PlanKind::Recorded],
    caveats: &[],
    // Reference §2.3: every completed tool is a candidate, MCP tools included;
    // only `skill` is protected (`PRUNE_PROTECTED_TOOLS`, 1.1.65+).
    compactable: &[],
    read_tool: "read",
    // Reference §1.3: these tools' inputs name a file in `filePath` (the loader
    // copies it to the call's path).
    file_path_tools: &["read", "edit", "write"],
    shell_tools: &["bash"],
    aliases: &[],
    names_fold_case: false,
    bridge_tool: None,
    // Reference §2.3: `error` parts are never candidates.
    errors_clearable: false,
    vouchers: Vouchers::AnyStaying,
    memory_search_tool: None,
    media_tokens: 2000,
    // Reference §2.3: `Math.max(0, Math.round(output.length / 4))` on the output
    // string (UTF-16 units, half up): the same as Claude's per text block, and a
    // result's content is one string here.
    text_tokens: TextTokens::RoundQuarter,
    wire: WireShape {
        messages: "messages",
        content: "content",
        user_role: "user",
        assistant_role: "assistant",
    },
    // Reference §1.1: `$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`;
    // `$OPENCODE_DB` names the database itself (SPEC §15.19 refuses its folder:
    // `export/refused.rs`). OpenCode has no managed memory.
    home: Home {
        base_env: "OPENCODE_DATA_DIR",
        base_dir: ".local/share/opencode",
        user_memory: "memory",
        project_dir: ".opencode",
        project_by_git_root: false,
        local_memory_env: None,
        list_env: false,
        home_bases: &[".local/share/opencode"],
    },
    defaults: Defaults {
        keep_recent: 5,
        gap_threshold_minutes: 60.0,
        size_threshold: 500_000,
        low_watermark: true,
        trigger_threshold: 10,
        protect: false,
        clear_errors: false,
    },
    // Reference §2.4: 1.18.33 grep `N.state.time.compacted?"[Old tool result content cleared]"`.
    placeholder: CLEARED,
    every_tool: true,
    except_tools: PRUNE_PROTECTED_TOOLS,
    beta_header: None,
};

/// The tools `prune` never clears (reference §2.3: `PRUNE_PROTECTED_TOOLS`).
pub(super) const PRUNE_PROTECTED_TOOLS: &[&str] = &["skill"];

/// OpenCode's answers.
pub(super) struct Opencode;

impl Rules for Opencode {
    fn facts(&self) -> &'static Preset {
        &OPENCODE
    }

    /// No plan is simulated yet (the `prune` kind is issue #29 item 2).
    fn auto_kind(&self, _policy: &Policy, _req: &Request, _gap: Option<f64>) -> Option<PlanKind> {
        None
    }

    fn no_plan(&self, _req: &Request) -> NoRun {
        NoRun::Unsaid
    }

    fn availability(&self, _policy: &Policy, _s: &Session) -> Availability {
        Availability::WhatIf
    }

    /// Reference §1.1: `$OPENCODE_DB` (absolute, or relative to the data
    /// folder; `:memory:` is no file), else `<data>/opencode.db`, where `<data>`
    /// is `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode`. (The channel
    /// databases of dev builds, `opencode-<channel>.db`, are not looked for.)
    fn databases(&self) -> Vec<PathBuf> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let data = var("XDG_DATA_HOME")
            .map(|d| PathBuf::from(d).join("opencode"))
            .unwrap_or_else(|| home().join(".local/share/opencode"));
        databases_from(var("OPENCODE_DB").map(PathBuf::from), &data)
    }
}

/// [`Opencode::databases`] for a given `$OPENCODE_DB` and data folder.
fn databases_from(db: Option<PathBuf>, data: &std::path::Path) -> Vec<PathBuf> {
    match db {
        Some(db) if db.as_os_str() == ":memory:" => Vec::new(),
        Some(db) if db.is_absolute() => vec![db],
        Some(db) => vec![data.join(db)],
        None => vec![data.join("opencode.db")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §1.1: 1.18.33 `G4()` (`OPENCODE_DB`, else `<data>/opencode.db`).
    #[test]
    fn s1_1_the_database_is_where_opencode_puts_it() {
        let data = std::path::Path::new("/d/opencode");
        assert_eq!(databases_from(None, data), [data.join("opencode.db")]);
        assert_eq!(
            databases_from(Some("/x/o.db".into()), data),
            [PathBuf::from("/x/o.db")]
        );
        assert_eq!(
            databases_from(Some("rel.db".into()), data),
            [data.join("rel.db")]
        );
        assert!(databases_from(Some(":memory:".into()), data).is_empty());
        // Every tool is prunable but `skill` (reference §2.3).
        assert!(OPENCODE.is_compactable("bash") && OPENCODE.is_compactable("mcp_x_y"));
        assert!(!OPENCODE.is_compactable("skill"));
    }
}
