//! OpenCode (SPEC §14, §15.13–14; `shared/reference/opencode.md`): its row of
//! facts and its answers to the engine. Upstream: `sst/opencode`
//! `packages/opencode/src/session/compaction.ts` (`prune`), `session/message-v2.ts`
//! (`toModelMessages`), `util/token.ts` (`Token.estimate`), read in the published
//! binaries 1.0.0–1.18.33 (reference §1–§3).

use super::caveat::{At, Rule, Template, distinct, when};
use super::*;
use crate::vocab::NoRun;

/// OpenCode 1.18.33 (reference §1.3, §1.4, §2).
pub(crate) static OPENCODE: Preset = Preset {
    harness: HarnessId::Opencode,
    name: "opencode",
    title: "OpenCode",
    words: Words {
        records: "opencode_prune",
        rewrite: "OpenCode pruned old tool outputs (its prune marks, state.time.compacted), which breaks the prefix",
        // Reference §2: prune skips a part whose state is not `completed`.
        error_kept: Some(
            "error result: OpenCode's prune never clears a tool part that ended in an error",
        ),
        folders: "OpenCode's database ($OPENCODE_DB, else opencode.db in $XDG_DATA_HOME/opencode or ~/.local/share/opencode)",
    },
    server_preset: false,
    // Reference §1.1: SQLite from 1.2.0, JSON files under `storage/` up to 1.1.x;
    // §6: `opencode export`, one session as one JSON object.
    formats: &[
        Format::OpencodeDb,
        Format::OpencodeJson,
        Format::OpencodeExport,
    ],
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
    // Reference §1.3: `tokens.cache.write` is recorded per assistant message.
    cache_writes: true,
    levers: Levers::NONE,
    offers: Offers {
        recorded_kinds: &[RecordedKind {
            kind: PlanKind::Prune,
            record: "no tool part carries time.compacted",
            off: "compaction.prune: false, or a version that prunes only when asked",
        }],
        grid_kinds: &[PlanKind::Prune],
        api_grid: false,
        kinds: &[PlanKind::Auto, PlanKind::Prune, PlanKind::Recorded],
        // The harness rewrites its own history; it sends no edits.
        deliveries: &[Delivery::Rewrite],
        caveats: &CAVEATS,
    },
    tools: Tools {
        // Reference §2.3: every completed tool is a candidate, MCP tools included;
        // only `skill` is protected (`PRUNE_PROTECTED_TOOLS`, 1.1.65+).
        compactable: &[],
        read_tool: "read",
        // Reference §1.3: these tools' inputs name a file in `filePath` (the loader
        // copies it to the call's path).
        file_path_tools: &["read", "edit", "write"],
        shell_tools: &["bash"],
        aliases: &[],
        bridge_tool: None,
        // Reference §2.3: `error` parts are never candidates.
        errors_clearable: false,
        vouchers: Vouchers::AnyStaying,
        memory_search_tool: None,
        every_tool: true,
        exempt: PRUNE_PROTECTED_TOOLS,
    },
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
    // `$OPENCODE_DB` names the database itself (SPEC §15.19 refuses its folder
    // and the data folders: `export/refused.rs`). The sessions are in the
    // database, not in a `projects` folder (`Harness::databases`). OpenCode has
    // no managed memory.
    home: Home {
        base_env: "OPENCODE_DB",
        base_dir: DATA_UNDER_HOME,
        user_memory: "memory",
        project_dir: ".opencode",
        project_by_git_root: false,
        local_memory_env: None,
        list_env: false,
        home_bases: &[DATA_UNDER_HOME],
        env_is_home: false,
        // The ≤ 1.1 JSON tree (reference §1.1); the database is listed apart.
        sessions: "storage",
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
    beta_header: None,
};

/// OpenCode's prune thresholds (reference §2.1: `PRUNE_PROTECT = 40_000`,
/// `PRUNE_MINIMUM = 20_000` in `session/compaction.ts`, constants in every
/// version, no config key or variable).
pub const PRUNE_PROTECT: u64 = 40_000;
pub const PRUNE_MINIMUM: u64 = 20_000;

/// The tools `prune` never clears (reference §2.3: `PRUNE_PROTECTED_TOOLS`).
pub(super) const PRUNE_PROTECTED_TOOLS: &[&str] = &["skill"];

/// OpenCode's answers.
pub(super) struct Opencode;

impl Harness for Opencode {
    fn facts(&self) -> &'static Preset {
        &OPENCODE
    }

    /// SPEC §15.14: `prune` up to 1.3.2 (on unless `compaction.prune: false`),
    /// none from 1.3.3 (off unless `true`), and wherever a recorded mark shows
    /// it on (`Request::plan_recorded`).
    fn auto_kind(&self, _policy: &Policy, req: &Request, _gap: Option<f64>) -> Option<PlanKind> {
        match prune_default(req) {
            PruneDefault::On => Some(PlanKind::Prune),
            _ => None,
        }
    }

    fn auto_kinds(&self) -> &'static [PlanKind] {
        &[PlanKind::Prune]
    }

    fn auto_words(&self) -> String {
        "opencode prune up to 1.3.2 and wherever the session records a prune mark, else nothing"
            .into()
    }

    fn no_plan(&self, req: &Request) -> NoRun {
        match prune_default(req) {
            PruneDefault::Gap => NoRun::VersionGap {
                on_until: PRUNE_ON_UNTIL,
                off_from: PRUNE_OFF_FROM,
            },
            _ => NoRun::DefaultOff,
        }
    }
}

impl ForUsers for Opencode {
    /// `prune` is the user's `compaction.prune` at the default thresholds
    /// (SPEC §15.13); other thresholds no OpenCode build has (constants).
    fn availability(&self, policy: &Policy, _s: &Session) -> Availability {
        match policy.kind {
            PlanKind::Prune | PlanKind::Auto if default_thresholds(policy) => Availability::User,
            _ => Availability::WhatIf,
        }
    }

    /// Reference §1.5: the user's `opencode.json`.
    fn settings_file(&self) -> &'static str {
        "OpenCode's opencode.json"
    }

    fn knob(&self, policy: &Policy) -> Option<serde_json::Value> {
        (policy.kind == PlanKind::Prune && default_thresholds(policy))
            .then(|| serde_json::json!({"compaction.prune": true}))
    }

    /// Reference §1.1: `$OPENCODE_DB` (absolute, or relative to the data
    /// folder; `:memory:` is no file), else `<data>/opencode.db`, where `<data>`
    /// is `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode`. (The channel
    /// databases of dev builds, `opencode-<channel>.db`, are not looked for.)
    fn databases(&self) -> Vec<PathBuf> {
        let db = std::env::var_os("OPENCODE_DB").filter(|v| !v.is_empty());
        databases_from(db.map(PathBuf::from), &data_folder())
    }

    /// Reference §1.1: the data folder the environment names (the one under
    /// `$HOME` is the row's `home_bases`, refused all the same).
    fn data_folders(&self) -> Vec<PathBuf> {
        vec![data_folder()]
    }
}

/// The data folder under `$HOME` (xdg-basedir's default for `$XDG_DATA_HOME`).
const DATA_UNDER_HOME: &str = ".local/share/opencode";

/// OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
fn data_folder() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(|d| PathBuf::from(d).join("opencode"))
        .unwrap_or_else(|| home().join(DATA_UNDER_HOME))
}

fn default_thresholds(policy: &Policy) -> bool {
    policy.prune_protect_tokens == PRUNE_PROTECT && policy.prune_minimum_tokens == PRUNE_MINIMUM
}

/// Whether prune runs by default at a request's version (reference §3, SPEC
/// §15.14), or a recorded mark shows it on for the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PruneDefault {
    /// ≤ 1.3.2 (on unless `compaction.prune: false`), or a mark is recorded.
    On,
    /// 1.14.34+, or a version that cannot be read: off unless `true` [?].
    Off,
    /// 1.3.3–1.14.33: unsampled; taken as off (SPEC §15.14).
    Gap,
}

/// The last version with prune on by default (SPEC §15.14).
const PRUNE_ON_UNTIL: (u64, u64, u64) = (1, 3, 2);
/// The first sampled version with it off.
const PRUNE_OFF_FROM: (u64, u64, u64) = (1, 14, 34);

/// [`PruneDefault`] at `req` (a session that records a prune mark has
/// `plan_recorded` on every request, set by the loader).
fn prune_default(req: &Request) -> PruneDefault {
    if req.plan_recorded {
        return PruneDefault::On;
    }
    let Some(v) = req.version.as_deref().and_then(version) else {
        return PruneDefault::Off;
    };
    // SPEC §15.14: "on up to 1.3.2", every earlier version included (the
    // reference, §3, finds no prune in 0.5.29 and does not narrow where it
    // came; SPEC wins).
    match v {
        v if v <= PRUNE_ON_UNTIL => PruneDefault::On,
        v if v < PRUNE_OFF_FROM => PruneDefault::Gap,
        _ => PruneDefault::Off,
    }
}

/// `X.Y.Z` as integers, a `-…` suffix ignored (SPEC §15.9); None otherwise.
fn version(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.split('-').next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let (x, y, z) = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some((x, y, z))
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

pub(crate) const OPENCODE_SANITIZED: Template = Template {
    id: "opencode_sanitized",
    short: "export sanitized: sizes unknown, nothing planned",
    // Reference §6.6: `--sanitize` replaces each completed output with
    // `[redacted:tool-output:<partID>]`, keeping `state.time.compacted`.
    text: "This export was written with opencode export --sanitize: every tool output reads [redacted:tool-output:…], so the sizes prune decides by are unknown; the recorded marks are shown, and no plan clears anything.",
};

pub(crate) const OPENCODE_REDACTED_OUTPUTS: Template = Template {
    id: "opencode_redacted_outputs",
    short: "export redacted: estimates low",
    // Reference §6.5 exception 2: the publisher's secret filter shortened outputs.
    text: "Outputs in this export carry REDACTED where the tool that published it removed secrets, so they are shorter than OpenCode measured them and the estimates are low: near prune's 40,000 / 20,000 thresholds the simulation can leave parts OpenCode marked.",
};

/// OpenCode's caveats (SPEC §14, §15.14; an export's, §17.O.5 and §17.O.7,
/// after them as §18.9 orders).
pub(super) static CAVEATS: [Rule; 5] = [
    // Where a plan of OpenCode's is in question: auto chose none at a
    // 1.14.34+ (or unreadable) version, or prune is asked for there.
    Rule::by(OPENCODE_PRUNE_OFF_BY_DEFAULT, |a, t| {
        let off = |x: &At<'_>| {
            let late = x
                .version
                .and_then(claude_version::parse)
                .is_none_or(|v| v >= (1, 14, 34));
            late && !x.marked && (x.kind.is_none() || !a.auto())
        };
        when(a.at.iter().any(off), t)
    }),
    Rule::on_kind(OPENCODE_PRUNE_ENV, PlanKind::Prune),
    Rule::by(OPENCODE_VERSION_GAP, |a, t| {
        if !a.auto() {
            return None;
        }
        let gap = distinct(a.at, |x| {
            if x.marked {
                return None;
            }
            let v = x.version?;
            claude_version::parse(v)
                .filter(|&n| n > (1, 3, 2) && n < (1, 14, 34))
                .map(|_| v)
        });
        (!gap.is_empty()).then(|| t.text.replace("{X}", &gap.join(", ")))
    }),
    Rule::by(OPENCODE_SANITIZED, |a, t| {
        when(a.at.iter().any(|x| x.sanitized), t)
    }),
    Rule::by(OPENCODE_REDACTED_OUTPUTS, |a, t| {
        when(a.at.iter().any(|x| x.redacted_differs), t)
    }),
];

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

    /// SPEC §15.14: on up to 1.3.2 (earlier versions too), a gap to 1.14.33,
    /// off from 1.14.34; a recorded mark turns it on.
    #[test]
    fn s3_prune_is_on_by_default_up_to_1_3_2() {
        let at = |v: &str| {
            let mut r = Request::empty(1);
            r.version = Some(v.into());
            prune_default(&r)
        };
        assert_eq!(at("0.5.29"), PruneDefault::On);
        assert_eq!(at("1.0.0"), PruneDefault::On);
        assert_eq!(at("1.3.2"), PruneDefault::On);
        assert_eq!(at("1.3.3"), PruneDefault::Gap);
        assert_eq!(at("1.14.33"), PruneDefault::Gap);
        assert_eq!(at("1.14.34"), PruneDefault::Off);
        assert_eq!(at("1.18.33-beta"), PruneDefault::Off);
        assert_eq!(at("v1.2"), PruneDefault::Off);
        let mut r = Request::empty(1);
        r.version = Some("1.18.33".into());
        r.plan_recorded = true;
        assert_eq!(prune_default(&r), PruneDefault::On);
    }
}
