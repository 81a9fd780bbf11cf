//! Claude Code, version by version (SPEC §2–§5, §13): its row of facts and its
//! answers to the engine. Upstream: Claude Code 2.1.88 `services/compact/
//! microCompact.ts`, `timeBasedMCConfig.ts`, `utils/messages.ts`,
//! `services/api/claude.ts`, and the published bundles up to 2.1.332 for the
//! version rows (`claude_version.rs`) and the idle-server rule (`claude_idle_server.rs`).

use super::claude_version::VersionRow;
use super::*;

/// Claude Code 2.1.88: `services/compact/microCompact.ts` (COMPACTABLE_TOOLS, token
/// estimate, IMAGE_MAX_TOKEN_SIZE), `utils/messages.ts`, `services/api/claude.ts`.
pub static CLAUDE: Preset = CLAUDE_FACTS;

/// Claude's row as a constant, so that the `api` row can share its facts.
pub(super) const CLAUDE_FACTS: Preset = Preset {
    harness: HarnessId::Claude,
    name: "claude",
    title: "Claude Code",
    words: Words {
        records: "microcompact_boundary",
        rewrite: "the harness rewrote old results (a budget microcompact_boundary), which breaks the prefix",
        error_kept: None,
        folders: "Claude Code's projects under each base ($CLAUDE_CONFIG_DIR, a comma-separated list, else ~/.claude and ~/.config/claude)",
    },
    server_preset: false,
    formats: &[Format::ClaudeJsonl, Format::MessagesJson],
    dialect: Dialect::Anthropic,
    // microCompact.ts `collectCompactableToolIds`: the keep window is over the
    // ids of the calls; a result takes its call's tool and place (SPEC §3).
    rank_by: RankBy::Calls,
    dedup_paths: false,
    // timeBasedMC: the last assistant message of the post-compaction messages (SPEC §2).
    gap_from: GapFrom::LastReplyInView,
    // SPEC §15.1: a fork of the parentUuid tree of this shape is a rewind.
    unmarked_forks: true,
    // Messages API usage: cache_creation_input_tokens (and its 1-hour part).
    cache_writes: true,
    // SPEC §16.C: read in the published bundles 2.1.22 … 2.1.337.
    levers: Levers {
        start_records: true,
        clearing: Some((
            PlanKind::Budget,
            VersionedLever {
                words: "DISABLE_MICROCOMPACT",
                from: (2, 0, 0),
                to: Some((2, 1, 63)),
            },
        )),
        ttl_1h: Some(VersionedLever {
            words: "1-hour cache writes (CLAUDE_CODE_PROMPT_CACHE_TTL=1h from 2.1.285, ENABLE_PROMPT_CACHING_1H=1 from 2.1.200, in the shell)",
            from: (2, 1, 200),
            to: None,
        }),
        tools: Some(
            "tools loaded up front (MCP servers connected before the first prompt, no ToolSearch mid-session)",
        ),
        switches: &[
            (
                PlanKind::Budget,
                VersionedLever {
                    words: "DISABLE_MICROCOMPACT=1 in the shell turns the budget plan off",
                    from: (2, 0, 0),
                    to: Some((2, 1, 63)),
                },
            ),
            (
                PlanKind::IdleServer,
                VersionedLever {
                    words: "DISABLE_GROWTHBOOK=1 in the shell (CLAUDE_CODE_DISABLE_FEATURE_FLAGS=1 from 2.1.337) gives every remote flag its code default, so the idle-server edit is never sent; other flagged features revert too",
                    from: (2, 1, 285),
                    to: None,
                },
            ),
        ],
    },
    offers: Offers {
        recorded_kinds: &[
            RecordedKind {
                kind: PlanKind::Budget,
                record: "no microcompact_boundary was written",
                off: "DISABLE_MICROCOMPACT, or the remote kill switch",
            },
            RecordedKind {
                kind: PlanKind::IdleServer,
                record: "no response recorded applied_edits or client_* fields",
                off: "its remote flags off, DISABLE_GROWTHBOOK or CLAUDE_CODE_DISABLE_FEATURE_FLAGS, or a model that refused the edit",
            },
        ],
        // SPEC §15.23: claude's grid holds idle-server for sessions of every version.
        grid_kinds: &[
            PlanKind::Idle,
            PlanKind::IdleServer,
            PlanKind::Size,
            PlanKind::Count,
        ],
        api_grid: true,
        // In the order of the TUI's `p` cycle, the baseline last (SPEC §15.3):
        // Claude Code's cycle is every kind but the other harnesses' own.
        kinds: &PlanKind::ALL,
        // SPEC §5: cached microcompact sends `cache_edits` (count); SPEC §13.S:
        // idle-server and the api preset send the server's clearing edit.
        deliveries: &[Delivery::Rewrite, Delivery::CacheEdits, Delivery::Server],
        // SPEC §13.C, in its table's order (§15.8).
        caveats: &super::claude_caveats::CAVEATS,
    },
    tools: Tools {
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
        bridge_tool: None,
        errors_clearable: true,
        vouchers: Vouchers::AnyStaying,
        memory_search_tool: None,
        every_tool: false,
        exempt: &[],
    },
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
        list_env: true,
        home_bases: &[".claude", ".config/claude"],
        env_is_home: false,
        sessions: "projects",
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
    beta_header: None,
};

/// Claude Code's answers.
pub(super) struct Claude;

impl Harness for Claude {
    fn facts(&self) -> &'static Preset {
        &CLAUDE
    }

    /// mcscope's size what-if for Claude runs at every request: it is decided
    /// request by request and may defer at a turn start
    /// (policy/engine/size_index.rs).
    fn size_incremental(&self) -> bool {
        true
    }

    /// The kind of the version's row of SPEC §13.T1 (none in the rows without
    /// clearing).
    fn auto_kind(&self, _policy: &Policy, req: &Request, _gap: Option<f64>) -> Option<PlanKind> {
        // A Qwen session's version is Qwen Code's, not Claude Code's: under the
        // claude preset it is no usable version.
        let v = req
            .send
            .is_none()
            .then_some(req.version.as_deref())
            .flatten();
        VersionRow::of(v).auto_kind()
    }

    /// The kinds of the version table's rows.
    fn auto_kinds(&self) -> &'static [PlanKind] {
        &[PlanKind::Budget, PlanKind::Idle, PlanKind::IdleServer]
    }

    /// Made from the version table itself, so the help follows its rows.
    fn auto_words(&self) -> String {
        let rows = [
            VersionRow::Budget,
            VersionRow::NoneEarly,
            VersionRow::Idle,
            VersionRow::NoneLate,
            VersionRow::IdleServerKeep5,
            VersionRow::IdleServer310,
            VersionRow::IdleServer333,
            VersionRow::IdleServer334,
            VersionRow::IdleServer336,
        ];
        let each: Vec<String> = rows
            .iter()
            .map(|r| {
                let kind = r.auto_kind().map_or("nothing", PlanKind::name);
                format!("{kind} on {}", r.name())
            })
            .collect();
        format!(
            "claude by the recorded Claude Code version: {}, nothing before 2.0.0, {} without a usable version",
            each.join(", "),
            VersionRow::Unknown
                .auto_kind()
                .map_or("nothing", PlanKind::name),
        )
    }

    fn no_plan(&self, req: &Request) -> crate::vocab::NoRun {
        use crate::vocab::NoRun;
        match VersionRow::of(req.version.as_deref()) {
            row @ (VersionRow::NoneEarly | VersionRow::NoneLate) => NoRun::NoClearing {
                harness: HarnessId::Claude,
                versions: row.name(),
            },
            // The first version of the first row that clears.
            VersionRow::Before2 => NoRun::BeforeSampled {
                harness: HarnessId::Claude,
                first: VersionRow::Budget
                    .name()
                    .split('-')
                    .next()
                    .unwrap_or_default(),
            },
            _ => NoRun::NoPlan,
        }
    }

    /// SPEC §5 "Persistence": Claude rewrites only the request; at a turn start
    /// the originals are sent again. SPEC §15.9: a change of the recorded
    /// version is a new process.
    fn lapses(&self, req: &Request) -> Lapses {
        Lapses {
            turn_start: req.begins_turn,
            new_version: true,
        }
    }

    fn could_run(
        &self,
        policy: &Policy,
        s: &Session,
        req: &Request,
        kind: Option<PlanKind>,
    ) -> crate::vocab::Plausible {
        super::claude_plausible::could_run(policy, s, req, kind)
    }

    fn version_row(&self, req: &Request) -> Option<&'static str> {
        Some(VersionRow::of(req.version.as_deref()).name())
    }
}

impl ForUsers for Claude {
    /// Claude Code's count plan (cached microcompact) is internal: its values
    /// were never published (SPEC §5).
    fn kind_note(&self, kind: PlanKind) -> Option<&'static str> {
        (kind == PlanKind::Count).then_some(
            "count plan: Claude's real trigger and keep values are not public; these are guesses",
        )
    }

    /// A claude row is `what_if` on a session where §13.P is false for its kind
    /// at every request. It reads only the kind, the delivery and the preset.
    fn availability(&self, policy: &Policy, s: &Session) -> Availability {
        let base = match policy.kind {
            _ if policy.delivery == crate::vocab::Delivery::CacheEdits => Availability::Internal,
            PlanKind::Count => Availability::Internal,
            PlanKind::Forced | PlanKind::Size => Availability::WhatIf,
            _ => Availability::RemoteFlag,
        };
        let kind = (!policy.kind.is_auto()).then_some(policy.kind);
        let never = || {
            !s.requests.is_empty()
                && kind.is_some()
                && s.requests
                    .iter()
                    .all(|r| super::plausible_at(policy, s, r, kind).what_if())
        };
        match base {
            Availability::RemoteFlag if never() => Availability::WhatIf,
            b => b,
        }
    }
}
