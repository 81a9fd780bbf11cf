//! The command line (SPEC §7): the subcommands and their flags. What the flags
//! set up (the merge of preset ← config file ← sidecar ← flags, `--at`, tool
//! ids) is [`crate::setup`], clap-free and shared with the TUI; it is re-exported
//! here under its old paths.

mod compare;

pub use crate::setup::{
    DeliveryArg, InputFormatArg, KindArg, Opts, OutputFormat, PresetArg, Sidecar, UsageError,
    cache_ttl, directory_error, input_format, read_sidecar, request_index, resolve_id, setup,
    setup_from, setup_with_config, setup_with_progress, sidecar_path,
};
pub use compare::{CompareArgs, CompareFormat, run_compare};

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "mcscope",
    version,
    about = "See what microcompaction did to a coding agent's conversation",
    long_about = "mcscope loads a Claude Code or Qwen Code session transcript (or one Messages API body), \
simulates the harness's microcompaction plans (idle gap, forced, size budget, count with cache_edits), \
and shows which tool results were cleared, which were protected, and what the wire payload sent.",
    after_help = "Examples:\n  \
mcscope ~/.claude/projects/-home-me-app/SESSION.jsonl     the TUI on one session (? for its keys)\n  \
mcscope plan SESSION.jsonl --at 57 --policy count          what request 57 sent, and why\n  \
mcscope explain SESSION.jsonl KuPA                         why one result vanished (a unique id prefix)"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A session file or a folder of sessions to open in the TUI (none: the
    /// sessions under ~/.claude/projects and ~/.qwen/projects).
    pub path: Option<PathBuf>,
    /// TUI: leave the mouse to the terminal (its own selection and copy work;
    /// clicks and the wheel do not reach mcscope). Default: mouse captured.
    #[arg(long)]
    pub no_mouse: bool,
    #[command(flatten)]
    pub opts: Opts,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The plan at one request: every candidate with its status and the reason.
    Plan {
        path: PathBuf,
        #[command(flatten)]
        opts: Opts,
    },
    /// One plan summary per request.
    Timeline {
        path: PathBuf,
        /// Keep reading the file as it grows and print each new request.
        #[arg(long)]
        follow: bool,
        /// How often to look at a followed file.
        #[arg(long, value_name = "MS", default_value_t = 500)]
        interval_ms: u64,
        #[command(flatten)]
        opts: Opts,
    },
    /// The fate of one tool result at every request, with reasons.
    Explain {
        path: PathBuf,
        /// A tool result id, or a unique prefix of one (`toolu_01KuPA`, or `KuPA`
        /// without the harness's `toolu_01`).
        tool_id: String,
        #[command(flatten)]
        opts: Opts,
    },
    /// The wire payload of a request, as JSON.
    Wire {
        path: PathBuf,
        /// `wire` (what the harness sends) or `local` (the request as recorded).
        #[arg(long, value_enum, default_value_t = SideArg::Wire)]
        side: SideArg,
        #[command(flatten)]
        opts: Opts,
    },
    /// What the transcript says really happened (SPEC §10): usage per response,
    /// observed cache breaks and what explains them, the harness's
    /// microcompact_boundary records against the plans, the server's applied edits.
    Evidence {
        path: PathBuf,
        #[command(flatten)]
        opts: Opts,
    },
    /// The settings mcscope runs with, merged (flags > sidecar > config file >
    /// preset defaults), each with where it came from. With PATH, that session's
    /// (its sidecar and the flags given); without, each preset's from the config.
    Config {
        /// Print the merged settings (the only action).
        #[arg(long)]
        print: bool,
        path: Option<PathBuf>,
        #[command(flatten)]
        opts: Opts,
    },
    /// Totals of a grid of settings over a session or a folder of sessions (SPEC §9): what each saved, what it cost in cache writes, what it took that the model needed later.
    Compare(CompareArgs),
    /// A guided tour of cached microcompaction on the bundled demo session.
    Demo,
    /// A shell completion script, printed to stdout.
    Completions {
        #[arg(value_enum)]
        shell: ShellArg,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideArg {
    Wire,
    Local,
}

/// The flags shared by every subcommand: clap's side of [`Opts`] (the help of
/// each flag is here; [`Opts`] is what the setup reads).
#[derive(Args, Debug, Clone, Default)]
struct OptsArgs {
    /// The request to look at: a number from 1, or `last`.
    #[arg(long, value_name = "K|last")]
    at: Option<String>,
    /// The plan kind (default: auto, the harness's own choice at each request:
    /// claude budget on Claude Code 2.0.0–2.1.87 by the recorded version, else
    /// idle; qwen by the kind of send: idle after the gap at a prompt, cron job or
    /// hook, else size where Qwen runs it, nothing at notifications and goal turns).
    #[arg(long, value_enum)]
    policy: Option<KindArg>,
    /// Harness rules to apply (default: the session's harness). `api`:
    /// Anthropic's server-side context editing, for Messages API bodies and, as a
    /// what-if, Claude Code sessions (see --api-edit).
    #[arg(long, value_enum)]
    preset: Option<PresetArg>,
    /// api preset: one `context_management` edit, the API's own JSON object
    /// (repeatable, in the order sent), e.g. '{"type":"clear_tool_uses_20250919",
    /// "trigger":{"type":"input_tokens","value":30000},"keep":{"type":"tool_uses",
    /// "value":5},"clear_at_least":{"type":"input_tokens","value":5000},
    /// "exclude_tools":["memory"]}' or '{"type":"clear_thinking_20251015"}'
    /// (default: one clear_tool_uses_20250919 with the documented defaults).
    #[arg(long = "api-edit", value_name = "JSON")]
    api_edit: Vec<String>,
    /// api preset, a reading the documentation leaves open: excluded tools' uses
    /// count toward `keep` (default: they do not).
    #[arg(long)]
    api_excluded_count_toward_keep: bool,
    /// api preset, a reading the documentation leaves open: the trigger fires at
    /// >= its value (default: strictly >).
    #[arg(long)]
    api_trigger_inclusive: bool,
    /// api preset, a reading the documentation leaves open: what a cleared
    /// result reads in the server view (default: [Old tool result content
    /// cleared]). clear_at_least is always compared with every token the edit
    /// clears at the request (the server is stateless).
    #[arg(long, value_name = "TEXT")]
    api_placeholder: Option<String>,
    /// Results kept outside the plan: the most recent N (default per plan kind: 5,
    /// budget 3).
    #[arg(long, value_name = "N")]
    keep_recent: Option<u32>,
    /// Idle gap threshold in minutes (negative disables).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    gap_minutes: Option<f64>,
    /// Size threshold in chars (negative disables).
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    size_threshold: Option<i64>,
    /// Clear down to the threshold instead of half of it.
    #[arg(long)]
    no_low_watermark: bool,
    /// Count plan: active results before deletions start.
    #[arg(long, value_name = "N")]
    trigger: Option<u32>,
    /// How clearings reach the API (default: cache-edits for claude count,
    /// server for the api preset, else rewrite).
    #[arg(long, value_enum)]
    delivery: Option<DeliveryArg>,
    /// Budget plan: the tool-result tokens it clears down to (default 40000).
    #[arg(long, value_name = "N")]
    budget_tokens: Option<u64>,
    /// Budget plan: the least saving that lets it fire (default 20000).
    #[arg(long, value_name = "N")]
    budget_min_saving: Option<u64>,
    /// Budget plan: the recorded usage it waits for (default by version:
    /// 135000 up to Claude Code 2.1.20, 147000 from 2.1.21 or with no version).
    #[arg(long = "budget-warning", value_name = "N")]
    budget_warning: Option<u64>,
    /// Protect managed-memory reads (default on for qwen, off for claude).
    #[arg(long, overrides_with = "no_protect")]
    protect: bool,
    /// Do not protect managed-memory reads.
    #[arg(long, overrides_with = "protect")]
    no_protect: bool,
    /// Claude preset: error results may be cleared (default on).
    #[arg(long, overrides_with = "no_clear_errors")]
    clear_errors: bool,
    /// Claude preset: keep error results.
    #[arg(long, overrides_with = "clear_errors")]
    no_clear_errors: bool,
    /// A memory root, e.g. `project=/home/me/.qwen/projects/x/memory` (repeatable).
    #[arg(long, value_name = "KIND=DIR")]
    memory_root: Vec<String>,
    /// Rewrite a recorded path prefix before resolution (repeatable).
    #[arg(long, value_name = "FROM=TO")]
    path_map: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
    /// Override format detection.
    #[arg(long, value_enum)]
    input_format: Option<InputFormatArg>,
    /// The prompt cache's TTL for SPEC §9 `warm` (auto: what the transcript's last cache write used).
    #[arg(long, value_name = "auto|5m|1h", value_parser = ["auto", "5m", "1h"])]
    cache_ttl: Option<String>,
}

impl From<OptsArgs> for Opts {
    fn from(a: OptsArgs) -> Opts {
        let OptsArgs {
            at,
            policy,
            preset,
            api_edit,
            api_excluded_count_toward_keep,
            api_trigger_inclusive,
            api_placeholder,
            keep_recent,
            gap_minutes,
            size_threshold,
            no_low_watermark,
            trigger,
            delivery,
            budget_tokens,
            budget_min_saving,
            budget_warning,
            protect,
            no_protect,
            clear_errors,
            no_clear_errors,
            memory_root,
            path_map,
            format,
            input_format,
            cache_ttl,
        } = a;
        Opts {
            at,
            policy,
            preset,
            api_edit,
            api_excluded_count_toward_keep,
            api_trigger_inclusive,
            api_placeholder,
            keep_recent,
            gap_minutes,
            size_threshold,
            no_low_watermark,
            trigger,
            delivery,
            budget_tokens,
            budget_min_saving,
            budget_warning,
            protect,
            no_protect,
            clear_errors,
            no_clear_errors,
            memory_root,
            path_map,
            format,
            input_format,
            cache_ttl,
        }
    }
}

// `Opts` is clap-free; the command line reaches it through `OptsArgs`, so a
// subcommand flattens `Opts` as before.
impl clap::FromArgMatches for Opts {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        OptsArgs::from_arg_matches(m).map(Opts::from)
    }

    /// mcscope parses each command line once, never on top of earlier values:
    /// an update reads the options afresh.
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for Opts {
    fn group_id() -> Option<clap::Id> {
        OptsArgs::group_id()
    }

    fn augment_args(cmd: clap::Command) -> clap::Command {
        OptsArgs::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        OptsArgs::augment_args_for_update(cmd)
    }
}

/// A clap value enum for a setup enum: its variants and their names on the
/// command line, in the order the help lists them.
macro_rules! value_enum {
    ($t:ident { $($v:ident => $name:literal),* $(,)? }) => {
        impl ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                &[$(Self::$v),*]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(match self {
                    $(Self::$v => $name),*
                }))
            }
        }
    };
}

value_enum!(OutputFormat { Text => "text", Json => "json" });
value_enum!(KindArg {
    Auto => "auto",
    Idle => "idle",
    Forced => "forced",
    Size => "size",
    Count => "count",
    Budget => "budget",
    Api => "api",
});
value_enum!(PresetArg { Claude => "claude", Qwen => "qwen", Api => "api" });
value_enum!(DeliveryArg {
    Rewrite => "rewrite",
    CacheEdits => "cache-edits",
    Server => "server",
});
value_enum!(InputFormatArg {
    ClaudeJsonl => "claude-jsonl",
    QwenJsonl => "qwen-jsonl",
    MessagesJson => "messages-json",
});
