//! The command line (SPEC §7): subcommands, shared policy flags, and the merge of
//! preset defaults ← sidecar ← flags.

use crate::analysis::Setup;
use crate::config::{self, Config, Source};
use crate::load::{self, LoadError};
use crate::policy::protect::{self, PathMap, RootKind};
use crate::policy::{Delivery, PlanKind, Policy};
use crate::session::{Format, Harness, Session};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindArg {
    Auto,
    Idle,
    Forced,
    Size,
    Count,
    Budget,
    // The api preset's kind (implies `--preset api`).
    Api,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetArg {
    Claude,
    Qwen,
    // Anthropic's server-side context editing (SPEC §11).
    Api,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryArg {
    Rewrite,
    CacheEdits,
    // The api preset: the client sends the edits, the server applies them.
    Server,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormatArg {
    ClaudeJsonl,
    QwenJsonl,
    MessagesJson,
}

/// The flags shared by every subcommand.
#[derive(Args, Debug, Clone, Default)]
pub struct Opts {
    /// The request to look at: a number from 1, or `last`.
    #[arg(long, value_name = "K|last")]
    pub at: Option<String>,
    /// The plan kind (default: auto, the harness's own choice at each request:
    /// claude budget on Claude Code 2.0.0–2.1.87 by the recorded version, else
    /// idle; qwen by the kind of send: idle after the gap at a prompt, cron job or
    /// hook, else size where Qwen runs it, nothing at notifications and goal turns).
    #[arg(long, value_enum)]
    pub policy: Option<KindArg>,
    /// Harness rules to apply (default: the session's harness). `api`:
    /// Anthropic's server-side context editing, for Messages API bodies and, as a
    /// what-if, Claude Code sessions (see --api-edit).
    #[arg(long, value_enum)]
    pub preset: Option<PresetArg>,
    /// api preset: one `context_management` edit, the API's own JSON object
    /// (repeatable, in the order sent), e.g. '{"type":"clear_tool_uses_20250919",
    /// "trigger":{"type":"input_tokens","value":30000},"keep":{"type":"tool_uses",
    /// "value":5},"clear_at_least":{"type":"input_tokens","value":5000},
    /// "exclude_tools":["memory"]}' or '{"type":"clear_thinking_20251015"}'
    /// (default: one clear_tool_uses_20250919 with the documented defaults).
    #[arg(long = "api-edit", value_name = "JSON")]
    pub api_edit: Vec<String>,
    /// api preset, a reading the documentation leaves open: excluded tools' uses
    /// count toward `keep` (default: they do not).
    #[arg(long)]
    pub api_excluded_count_toward_keep: bool,
    /// api preset, a reading the documentation leaves open: the trigger fires at
    /// >= its value (default: strictly >).
    #[arg(long)]
    pub api_trigger_inclusive: bool,
    /// api preset, a reading the documentation leaves open: what a cleared
    /// result reads in the server view (default: [Old tool result content
    /// cleared]). clear_at_least is always compared with every token the edit
    /// clears at the request (the server is stateless).
    #[arg(long, value_name = "TEXT")]
    pub api_placeholder: Option<String>,
    /// Results kept outside the plan: the most recent N (default per plan kind: 5,
    /// budget 3).
    #[arg(long, value_name = "N")]
    pub keep_recent: Option<u32>,
    /// Idle gap threshold in minutes (negative disables).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub gap_minutes: Option<f64>,
    /// Size threshold in chars (negative disables).
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub size_threshold: Option<i64>,
    /// Clear down to the threshold instead of half of it.
    #[arg(long)]
    pub no_low_watermark: bool,
    /// Count plan: active results before deletions start.
    #[arg(long, value_name = "N")]
    pub trigger: Option<u32>,
    /// How clearings reach the API (default: cache-edits for claude count,
    /// server for the api preset, else rewrite).
    #[arg(long, value_enum)]
    pub delivery: Option<DeliveryArg>,
    /// Budget plan: the tool-result tokens it clears down to (default 40000).
    #[arg(long, value_name = "N")]
    pub budget_tokens: Option<u64>,
    /// Budget plan: the least saving that lets it fire (default 20000).
    #[arg(long, value_name = "N")]
    pub budget_min_saving: Option<u64>,
    /// Budget plan: the recorded usage it waits for (default by version:
    /// 135000 up to Claude Code 2.1.20, 147000 from 2.1.21 or with no version).
    #[arg(long = "budget-warning", value_name = "N")]
    pub budget_warning: Option<u64>,
    /// Protect managed-memory reads (default on for qwen, off for claude).
    #[arg(long, overrides_with = "no_protect")]
    pub protect: bool,
    /// Do not protect managed-memory reads.
    #[arg(long, overrides_with = "protect")]
    pub no_protect: bool,
    /// Claude preset: error results may be cleared (default on).
    #[arg(long, overrides_with = "no_clear_errors")]
    pub clear_errors: bool,
    /// Claude preset: keep error results.
    #[arg(long, overrides_with = "clear_errors")]
    pub no_clear_errors: bool,
    /// A memory root, e.g. `project=/home/me/.qwen/projects/x/memory` (repeatable).
    #[arg(long, value_name = "KIND=DIR")]
    pub memory_root: Vec<String>,
    /// Rewrite a recorded path prefix before resolution (repeatable).
    #[arg(long, value_name = "FROM=TO")]
    pub path_map: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Override format detection.
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormatArg>,
    /// The prompt cache's TTL for SPEC §9 `warm` (auto: what the transcript's last cache write used).
    #[arg(long, value_name = "auto|5m|1h", value_parser = ["auto", "5m", "1h"])]
    pub cache_ttl: Option<String>,
}

/// `compare --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareFormat {
    #[default]
    Text,
    Json,
    Html,
}

/// `mcscope compare PATH`: the setting flags take comma-separated lists.
#[derive(Args, Debug, Clone, Default)]
pub struct CompareArgs {
    pub path: PathBuf,
    /// Plan kinds, e.g. idle,size,count (default: the SPEC §9 grid).
    #[arg(long, value_name = "KIND,…")]
    pub policy: Option<String>,
    #[arg(long, value_name = "N,…")]
    pub keep_recent: Option<String>,
    #[arg(long, value_name = "M,…", allow_hyphen_values = true)]
    pub gap_minutes: Option<String>,
    #[arg(long, value_name = "C,…", allow_hyphen_values = true)]
    pub size_threshold: Option<String>,
    #[arg(long, value_name = "N,…")]
    pub trigger: Option<String>,
    #[arg(long, value_name = "rewrite|cache-edits,…")]
    pub delivery: Option<String>,
    #[arg(long, value_enum)]
    pub preset: Option<PresetArg>,
    /// api preset: trigger values of the first clear_tool_uses edit, e.g.
    /// 50000,100000,150000 (implies --preset api; the grid is the cross product
    /// with --api-keep).
    #[arg(long, value_name = "N,…")]
    pub api_trigger: Option<String>,
    /// api preset: keep values of the first clear_tool_uses edit, e.g. 3,5,10.
    #[arg(long, value_name = "N,…")]
    pub api_keep: Option<String>,
    /// api preset: the edits each setting starts from (as plan's --api-edit).
    #[arg(long = "api-edit", value_name = "JSON")]
    pub api_edit: Vec<String>,
    #[arg(long)]
    pub no_low_watermark: bool,
    #[arg(long, value_name = "N")]
    pub budget_tokens: Option<u64>,
    #[arg(long, value_name = "N")]
    pub budget_min_saving: Option<u64>,
    #[arg(long = "budget-warning", value_name = "N")]
    pub budget_warning: Option<u64>,
    #[arg(long, overrides_with = "no_protect")]
    pub protect: bool,
    #[arg(long, overrides_with = "protect")]
    pub no_protect: bool,
    #[arg(long, overrides_with = "no_clear_errors")]
    pub clear_errors: bool,
    #[arg(long, overrides_with = "clear_errors")]
    pub no_clear_errors: bool,
    #[arg(long, value_name = "KIND=DIR")]
    pub memory_root: Vec<String>,
    #[arg(long, value_name = "FROM=TO")]
    pub path_map: Vec<String>,
    #[arg(long, value_name = "auto|5m|1h", value_parser = ["auto", "5m", "1h"])]
    pub cache_ttl: Option<String>,
    /// USD per million input tokens (overrides the price table's row).
    #[arg(long, value_name = "USD")]
    pub price_input: Option<f64>,
    #[arg(long = "price-write-5m", value_name = "USD")]
    pub price_write_5m: Option<f64>,
    #[arg(long = "price-write-1h", value_name = "USD")]
    pub price_write_1h: Option<f64>,
    #[arg(long, value_name = "USD")]
    pub price_read: Option<f64>,
    /// html: one self-contained page (the table, and for one session the chart
    /// of recorded vs simulated context per request).
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Write the output to FILE instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar and no notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl CompareArgs {
    /// The options every compared session is set up with (no lists).
    fn opts(&self) -> Opts {
        let api_lists = self.api_trigger.is_some() || self.api_keep.is_some();
        Opts {
            preset: if api_lists {
                Some(PresetArg::Api)
            } else {
                self.preset
            },
            api_edit: self.api_edit.clone(),
            no_low_watermark: self.no_low_watermark,
            budget_tokens: self.budget_tokens,
            budget_min_saving: self.budget_min_saving,
            budget_warning: self.budget_warning,
            protect: self.protect,
            no_protect: self.no_protect,
            clear_errors: self.clear_errors,
            no_clear_errors: self.no_clear_errors,
            memory_root: self.memory_root.clone(),
            path_map: self.path_map.clone(),
            cache_ttl: self.cache_ttl.clone(),
            format: match self.format {
                CompareFormat::Json => OutputFormat::Json,
                CompareFormat::Text | CompareFormat::Html => OutputFormat::Text,
            },
            ..Default::default()
        }
    }

    fn lists(&self) -> Result<crate::compare::Lists, UsageError> {
        use crate::compare::parse_list;
        fn list<T>(
            flag: &str,
            v: &Option<String>,
            one: impl Fn(&str) -> Option<T>,
        ) -> Result<Option<Vec<T>>, UsageError> {
            v.as_deref()
                .map(|t| parse_list(flag, t, one))
                .transpose()
                .map_err(UsageError::Message)
        }
        Ok(crate::compare::Lists {
            policy: list("policy", &self.policy, PlanKind::parse)?,
            keep_recent: list("keep-recent", &self.keep_recent, |x| x.parse().ok())?,
            gap_minutes: list("gap-minutes", &self.gap_minutes, |x| x.parse().ok())?,
            size_threshold: list("size-threshold", &self.size_threshold, |x| x.parse().ok())?,
            trigger: list("trigger", &self.trigger, |x| x.parse().ok())?,
            delivery: list("delivery", &self.delivery, Delivery::parse)?,
            api_trigger: list("api-trigger", &self.api_trigger, |x| x.parse().ok())?,
            api_keep: list("api-keep", &self.api_keep, |x| x.parse().ok())?,
        })
    }
}

/// `mcscope compare`: the comparison printed as text or JSON; a progress bar on
/// stderr when it runs longer than half a second on a terminal.
pub fn run_compare(args: &CompareArgs) -> Result<String, UsageError> {
    use crate::compare;
    use std::io::IsTerminal;
    let lists = args.lists()?;
    let opts = args.opts();
    let folder = args.path.is_dir();
    if let Some(out) = &args.output
        && std::fs::canonicalize(out).ok() == std::fs::canonicalize(&args.path).ok()
        && out.exists()
    {
        return Err(err(format!(
            "{}: -o names the session itself; give another file",
            out.display()
        )));
    }
    let files = if folder {
        compare::session_files(&args.path)
            .map_err(|e| err(format!("{}: {e}", args.path.display())))?
    } else {
        vec![args.path.clone()]
    };
    let cache_ttl = match &args.cache_ttl {
        Some(_) => cache_ttl(&args.path, &opts)?,
        None if folder => crate::totals::CacheTtl::Auto,
        None => cache_ttl(&args.path, &opts)?,
    };
    let setup = |s: Session, p: &Path| setup_from(s, p, &opts).map_err(|e| e.to_string());
    let started = std::time::Instant::now();
    let bar: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();
    let show = !args.quiet && std::io::stderr().is_terminal();
    let progress = |done: u64, total: u64| {
        if !show || started.elapsed() < std::time::Duration::from_millis(500) {
            return;
        }
        let b = bar.get_or_init(|| {
            let b = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "comparing {bar:30} {percent:>3}% {elapsed} (eta {eta})",
            ) {
                b.set_style(style);
            }
            b
        });
        b.set_position(done.min(total));
    };
    let req = compare::Request {
        lists: &lists,
        cache_ttl,
        prices: crate::prices::PriceFlags {
            input: args.price_input,
            write_5m: args.price_write_5m,
            write_1h: args.price_write_1h,
            read: args.price_read,
        },
        setup: &setup,
        progress: &progress,
    };
    // The HTML page of one session charts it: loaded once for the rows and the chart.
    let mut charts = None;
    let result = if args.format == CompareFormat::Html && !folder {
        crate::load::load(&args.path, None)
            .map_err(|e| e.to_string())
            .and_then(|s| setup(s, &args.path))
            .and_then(|one| {
                let c = compare::compare_loaded(&one, &req, None)?;
                charts = Some(crate::compare_html::charts(&one, &c)?);
                Ok(c)
            })
    } else {
        compare::compare(&files, folder, &req)
    };
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    let c = result.map_err(UsageError::Message)?;
    if !args.quiet {
        for (p, why) in &c.skipped {
            eprintln!("mcscope: skipped {p}: {why}");
        }
    }
    if folder && c.sessions.is_empty() {
        return Err(err(format!(
            "{}: no main-thread session with requests under this folder",
            args.path.display()
        )));
    }
    let out = match args.format {
        CompareFormat::Json => {
            let mut s = serde_json::to_string_pretty(&compare::json(&c)).unwrap_or_default();
            s.push('\n');
            s
        }
        CompareFormat::Text => compare::text(&c),
        CompareFormat::Html => crate::compare_html::html(&c, charts.as_ref()),
    };
    match &args.output {
        Some(file) => {
            std::fs::write(file, out).map_err(|e| err(format!("{}: {e}", file.display())))?;
            if !args.quiet {
                eprintln!("mcscope: wrote {}", file.display());
            }
            Ok(String::new())
        }
        None => Ok(out),
    }
}

/// A session sidecar: the JSON `policy` keys plus roots and path map.
#[derive(Debug, Default)]
pub struct Sidecar {
    pub keys: config::PolicyKeys,
    /// SPEC §9: `auto`, `5m` or `1h` (not part of `policy`).
    pub cache_ttl: Option<String>,
    pub memory_roots: BTreeMap<String, String>,
    pub path_map: BTreeMap<String, String>,
}

impl Sidecar {
    /// Reads a sidecar's JSON: the roots and the path map, and every other key a
    /// policy key (an unknown one is an error naming it).
    pub fn parse(text: &str) -> Result<Sidecar, String> {
        let mut v: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut table = |key: &str| -> Result<BTreeMap<String, String>, String> {
            v.remove(key)
                .map(serde_json::from_value)
                .transpose()
                .map(Option::unwrap_or_default)
                .map_err(|e| format!("{key}: {e}"))
        };
        let memory_roots = table("memory_roots")?;
        let path_map = table("path_map")?;
        let cache_ttl = match v.remove("cache_ttl") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s),
            Some(other) => return Err(format!("cache_ttl: expected a string, got {other}")),
        };
        let keys: config::PolicyKeys =
            serde_json::from_value(serde_json::Value::Object(v)).map_err(|e| e.to_string())?;
        Ok(Sidecar {
            keys,
            memory_roots,
            path_map,
            cache_ttl,
        })
    }
}

/// `claude-demo.jsonl` → `claude-demo.mcscope.json`.
pub fn sidecar_path(session: &Path) -> PathBuf {
    let stem = session
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".jsonl")
        .or_else(|| stem.strip_suffix(".json"))
        .unwrap_or(&stem)
        .to_string();
    session.with_file_name(format!("{stem}.mcscope.json"))
}

/// A user-facing error: one line naming the path and the cause; exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{0}")]
    Message(String),
}

fn err(msg: impl Into<String>) -> UsageError {
    UsageError::Message(msg.into())
}

pub fn read_sidecar(session: &Path) -> Result<Option<(Sidecar, PathBuf)>, UsageError> {
    let path = sidecar_path(session);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(format!("{}: {e}", path.display()))),
    };
    let sidecar =
        Sidecar::parse(&text).map_err(|e| err(format!("{}: bad sidecar: {e}", path.display())))?;
    // Relative directories in a sidecar are relative to the sidecar's folder.
    // A bare file name's parent is the empty path: the current folder.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::path::absolute(dir).map_err(|e| err(format!("{}: {e}", path.display())))?;
    Ok(Some((sidecar, dir)))
}

/// Loads the session and merges preset ← sidecar ← flags into a [`Setup`].
pub fn setup(path: &Path, opts: &Opts) -> Result<Setup, UsageError> {
    setup_with_progress(path, opts, &std::sync::atomic::AtomicU64::new(0))
}

/// As [`setup`], reporting the bytes loaded so far in `progress`.
pub fn setup_with_progress(
    path: &Path,
    opts: &Opts,
    progress: &std::sync::atomic::AtomicU64,
) -> Result<Setup, UsageError> {
    if path.is_dir() {
        return Err(directory_error(path));
    }
    let session = load::load_with_progress(path, input_format(opts), progress)?;
    setup_from(session, path, opts)
}

/// The format `--input-format` names, if any.
pub fn input_format(opts: &Opts) -> Option<Format> {
    opts.input_format.map(|f| match f {
        InputFormatArg::ClaudeJsonl => Format::ClaudeJsonl,
        InputFormatArg::QwenJsonl => Format::QwenJsonl,
        InputFormatArg::MessagesJson => Format::MessagesJson,
    })
}

/// Merges preset ← sidecar ← flags for a session already loaded from `path`.
pub fn setup_from(session: Session, path: &Path, opts: &Opts) -> Result<Setup, UsageError> {
    let config = config::load().map_err(|e| err(e.to_string()))?;
    setup_with_config(session, path, opts, config)
}

/// As [`setup_from`], with the configuration file already read (the TUI goes on
/// with the defaults when it cannot use the file, and says so).
pub fn setup_with_config(
    session: Session,
    path: &Path,
    opts: &Opts,
    config: Config,
) -> Result<Setup, UsageError> {
    let sidecar = read_sidecar(path)?;
    let (side, side_dir) = match &sidecar {
        Some((s, d)) => (Some(s), d.clone()),
        None => (None, PathBuf::from(".")),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let recorded = side
        .and_then(|s| s.keys.preset.as_deref())
        .map(|p| ("sidecar", p))
        .or_else(|| config.policy.preset.as_deref().map(|p| ("config", p)));
    // Flags win: a --policy or --delivery the api preset cannot take leaves a
    // sidecar's or the config file's api preset for the session's own.
    let flag_leaves_api = opts.policy.is_some_and(|k| k != KindArg::Api)
        || opts.delivery.is_some_and(|d| d != DeliveryArg::Server);
    let api = match (opts.preset, recorded) {
        (Some(p), _) => p == PresetArg::Api,
        (None, _) if opts.policy == Some(KindArg::Api) => true,
        (None, Some((_, "api"))) => !flag_leaves_api,
        _ => false,
    };
    let preset = match (opts.preset, recorded) {
        (Some(PresetArg::Claude), _) => Harness::Claude,
        (Some(PresetArg::Qwen), _) => Harness::Qwen,
        (Some(PresetArg::Api), _) => Harness::Claude,
        (None, _) if api => Harness::Claude,
        (None, Some((_, "claude"))) => Harness::Claude,
        (None, Some((_, "qwen"))) => Harness::Qwen,
        (None, Some((_, "api"))) => session.harness,
        (None, Some((from, other))) => {
            return Err(err(format!("{from}: unknown preset {other:?}")));
        }
        (None, None) => session.harness,
    };
    if api && session.harness == Harness::Qwen {
        return Err(err(format!(
            "{}: the api preset simulates Anthropic's server-side context editing of Messages API requests; a qwen session is not sent that way (use --preset qwen)",
            path.display()
        )));
    }
    let mut p = if api {
        Policy::api_preset()
    } else {
        Policy::preset(preset)
    };
    let preset_name = if api { "api" } else { preset.name() };
    // Layers, lowest first: the config file's [policy], its [policy.<preset>],
    // the sidecar (flags come last, below).
    let mut sources = std::collections::BTreeMap::new();
    let mut delivery_set = false;
    let config_where = config
        .path
        .as_ref()
        .map_or("config".to_string(), |c| c.display().to_string());
    let mut layers = vec![(&config.policy, Source::Config)];
    if let Some(k) = config.policy.for_preset(preset_name) {
        layers.push((k, Source::Config));
    }
    if let Some(s) = side {
        layers.push((&s.keys, Source::Sidecar));
    }
    for (keys, source) in layers {
        delivery_set |= config::apply(&mut p, keys, source, &mut sources).map_err(|e| {
            let at = match source {
                Source::Sidecar => "sidecar".to_string(),
                _ => config_where.clone(),
            };
            err(format!("{at}: {e}"))
        })?;
    }
    let flagged = [
        ("kind", opts.policy.is_some()),
        ("budget_tokens", opts.budget_tokens.is_some()),
        ("budget_min_saving", opts.budget_min_saving.is_some()),
        ("budget_warning_tokens", opts.budget_warning.is_some()),
        ("keep_recent", opts.keep_recent.is_some()),
        ("gap_threshold_minutes", opts.gap_minutes.is_some()),
        ("size_threshold", opts.size_threshold.is_some()),
        ("low_watermark", opts.no_low_watermark),
        ("trigger_threshold", opts.trigger.is_some()),
        ("protect", opts.protect || opts.no_protect),
        ("clear_errors", opts.clear_errors || opts.no_clear_errors),
        ("delivery", opts.delivery.is_some()),
        ("api_edits", !opts.api_edit.is_empty()),
        (
            "api_excluded_count_toward_keep",
            opts.api_excluded_count_toward_keep,
        ),
        ("api_trigger_inclusive", opts.api_trigger_inclusive),
        ("api_placeholder", opts.api_placeholder.is_some()),
    ];
    for (key, set) in flagged {
        if set {
            sources.insert(key, Source::Flag);
        }
    }
    if let Some(k) = opts.policy {
        p.kind = match k {
            KindArg::Auto => PlanKind::Auto,
            KindArg::Idle => PlanKind::Idle,
            KindArg::Forced => PlanKind::Forced,
            KindArg::Size => PlanKind::Size,
            KindArg::Count => PlanKind::Count,
            KindArg::Budget => PlanKind::Budget,
            KindArg::Api => PlanKind::Api,
        };
    }
    if !opts.api_edit.is_empty() {
        let list = opts
            .api_edit
            .iter()
            .map(|t| {
                serde_json::from_str(t).map_err(|e| err(format!("--api-edit {t:?}: not JSON: {e}")))
            })
            .collect::<Result<Vec<serde_json::Value>, _>>()?;
        p.api.edits =
            crate::policy::api::parse_edits(&list).map_err(|e| err(format!("--api-edit: {e}")))?;
    }
    p.api.excluded_count_toward_keep |= opts.api_excluded_count_toward_keep;
    p.api.trigger_inclusive |= opts.api_trigger_inclusive;
    if let Some(t) = &opts.api_placeholder {
        p.api.placeholder = t.clone();
    }
    p.budget_tokens = opts.budget_tokens.unwrap_or(p.budget_tokens);
    p.budget_min_saving = opts.budget_min_saving.unwrap_or(p.budget_min_saving);
    p.budget_warning_tokens = opts.budget_warning.or(p.budget_warning_tokens);
    p.keep_recent = opts.keep_recent.or(p.keep_recent);
    p.gap_threshold_minutes = opts.gap_minutes.unwrap_or(p.gap_threshold_minutes);
    p.size_threshold = opts.size_threshold.unwrap_or(p.size_threshold);
    p.size_explicit |= opts.size_threshold.is_some();
    if opts.no_low_watermark {
        p.low_watermark = false;
    }
    p.trigger_threshold = opts.trigger.unwrap_or(p.trigger_threshold);
    if opts.protect {
        p.protect = true;
    }
    if opts.no_protect {
        p.protect = false;
    }
    if opts.clear_errors {
        p.clear_errors = true;
    }
    if opts.no_clear_errors {
        p.clear_errors = false;
    }
    if api {
        // The api preset runs its own kind, delivered by the server (SPEC §11).
        if p.kind != PlanKind::Api && opts.policy.is_some() {
            return Err(err(format!(
                "{}: the api preset runs the api plan only (got --policy {})",
                path.display(),
                p.kind.name()
            )));
        }
        p.kind = PlanKind::Api;
        if delivery_set && p.delivery != Delivery::Server || flag_leaves_api {
            return Err(err(format!(
                "{}: the api preset's edits are applied by the server: its delivery is server (got {})",
                path.display(),
                opts.delivery.map_or(p.delivery.name(), |d| match d {
                    DeliveryArg::Rewrite => "rewrite",
                    DeliveryArg::CacheEdits => "cache-edits",
                    DeliveryArg::Server => "server",
                })
            )));
        }
        p.delivery = Delivery::Server;
    } else if p.kind == PlanKind::Api {
        return Err(err(format!(
            "{}: plan kind api takes the api preset (--preset api, or \"preset\": \"api\" in the sidecar)",
            path.display()
        )));
    }
    match opts.delivery {
        _ if api => {}
        Some(DeliveryArg::Rewrite) => p.delivery = Delivery::Rewrite,
        Some(DeliveryArg::CacheEdits) => p.delivery = Delivery::CacheEdits,
        Some(DeliveryArg::Server) => p.delivery = Delivery::Server,
        None if !delivery_set => {
            // cache_edits is Claude's mechanism: the default for count on Claude.
            p.delivery = if p.kind == PlanKind::Count && session.harness == Harness::Claude {
                Delivery::CacheEdits
            } else {
                Delivery::Rewrite
            };
        }
        None => {}
    }
    if !api && p.delivery == Delivery::Server {
        return Err(err(format!(
            "{}: delivery server is the api preset's (--preset api)",
            path.display()
        )));
    }
    if p.kind == PlanKind::Budget
        && (p.preset != Harness::Claude || p.delivery != Delivery::Rewrite)
    {
        return Err(err(format!(
            "{}: the budget plan is Claude Code's token-budget microcompact: it takes the claude preset and rewrite delivery (got preset {}, delivery {})",
            path.display(),
            p.preset.name(),
            p.delivery.name()
        )));
    }
    if p.delivery == Delivery::CacheEdits && session.harness != Harness::Claude {
        return Err(err(format!(
            "{}: cache-edits delivery is Claude's cached microcompact; a {} session is sent with rewrite",
            path.display(),
            session.harness.name()
        )));
    }

    // The config file's relative directories are relative to its folder, `~/` to home.
    let config_dir = config
        .path
        .as_ref()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| cwd.clone());
    let home_of = |dir: &str| -> String {
        match (dir.strip_prefix("~/"), std::env::var_os("HOME")) {
            (Some(rest), Some(home)) => Path::new(&home).join(rest).display().to_string(),
            _ => dir.to_string(),
        }
    };
    let mut map = Vec::new();
    for (from, to) in &config.path_map {
        map.push((map_from(from), given(&home_of(to), &config_dir)));
    }
    if let Some(s) = side {
        for (from, to) in &s.path_map {
            map.push((map_from(from), given(to, &side_dir)));
        }
    }
    for m in &opts.path_map {
        let (from, to) = m
            .split_once('=')
            .ok_or_else(|| err(format!("--path-map {m:?}: expected FROM=TO")))?;
        let from = map_from(from);
        map.retain(|(f, _)| !same_from(f, &from));
        map.push((from, given(to, &cwd)));
    }
    let path_map = PathMap(map);

    let session_cwd = session.calls.iter().find_map(|c| c.cwd.clone());
    let mut roots = protect::default_roots(preset, session_cwd.as_deref(), &path_map);
    let mut set_root = |kind: RootKind, dir: PathBuf| {
        roots.retain(|(k, _)| *k != kind);
        roots.push((kind, dir));
    };
    for (kind, dir) in &config.memory_roots {
        if let Some(kind) = RootKind::parse(kind) {
            set_root(kind, given(&home_of(dir), &config_dir));
        }
    }
    if let Some(s) = side {
        for (kind, dir) in &s.memory_roots {
            let kind = RootKind::parse(kind).ok_or_else(|| {
                err(format!(
                    "sidecar: unknown memory root {kind:?} (project, user, team)"
                ))
            })?;
            set_root(kind, given(dir, &side_dir));
        }
    }
    for r in &opts.memory_root {
        let (kind, dir) = r.split_once('=').ok_or_else(|| {
            err(format!(
                "--memory-root {r:?}: expected project|user|team=DIR"
            ))
        })?;
        let kind = RootKind::parse(kind).ok_or_else(|| {
            err(format!(
                "--memory-root {r:?}: unknown root {kind:?} (project, user, team)"
            ))
        })?;
        set_root(kind, given(dir, &cwd));
    }
    roots.sort_by_key(|(k, _)| RootKind::ALL.iter().position(|x| x == k));
    Ok(Setup {
        session: std::sync::Arc::new(session),
        policy: p,
        roots,
        path_map,
        settings: config::Settings {
            cache_ttl: resolve_cache_ttl(
                opts.cache_ttl.as_deref(),
                side.and_then(|s| s.cache_ttl.as_deref()),
                config.cache_ttl.as_deref(),
            )?,
            sources,
            config,
            sidecar_path: sidecar.map(|_| sidecar_path(path)),
            config_notice: None,
        },
    })
}

/// A directory given by a flag or the sidecar: a Windows path as its normalized
/// Windows form (never joined to `base`), else absolute on this machine, a
/// relative one taken against `base` (SPEC §4).
fn given(dir: &str, base: &Path) -> PathBuf {
    protect::Lexical::given(dir, base).to_path_buf()
}

/// The FROM side of a path map: a Windows path normalized (so `d:/x/` and
/// `D:\x` are one FROM), anything else as written.
fn map_from(from: &str) -> PathBuf {
    match protect::WinPath::parse(from) {
        Some(w) => PathBuf::from(w.display()),
        None => PathBuf::from(from),
    }
}

/// Whether two FROM sides name one prefix (a flag replaces the sidecar's).
fn same_from(a: &Path, b: &Path) -> bool {
    match (
        a.to_str().and_then(protect::WinPath::parse),
        b.to_str().and_then(protect::WinPath::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The cache TTL for SPEC §9 `warm` of the session at `path` (a folder: the flag,
/// else auto). Set up sessions carry theirs in `Setup::settings`.
pub fn cache_ttl(path: &Path, opts: &Opts) -> Result<crate::totals::CacheTtl, UsageError> {
    let sidecar = match path.is_dir() {
        true => None,
        false => read_sidecar(path)?.and_then(|(s, _)| s.cache_ttl),
    };
    let config = config::load().map_err(|e| err(e.to_string()))?;
    resolve_cache_ttl(
        opts.cache_ttl.as_deref(),
        sidecar.as_deref(),
        config.cache_ttl.as_deref().filter(|_| !path.is_dir()),
    )
}

/// `cache_ttl`: the flag, else the sidecar's, else the config file's, else auto.
fn resolve_cache_ttl(
    flag: Option<&str>,
    sidecar: Option<&str>,
    config: Option<&str>,
) -> Result<crate::totals::CacheTtl, UsageError> {
    use crate::totals::CacheTtl;
    let parse = |from: &str, t: &str| {
        CacheTtl::parse(t).ok_or_else(|| err(format!("{from} {t:?}: expected auto, 5m or 1h")))
    };
    match (flag, sidecar, config) {
        (Some(t), _, _) => parse("--cache-ttl", t),
        (None, Some(t), _) => parse("sidecar: cache_ttl", t),
        (None, None, Some(t)) => parse("config: cache_ttl", t),
        (None, None, None) => Ok(CacheTtl::Auto),
    }
}

/// The request index `--at` names, checked against the session (0: it has none).
pub fn request_index(session: &Session, at: Option<&str>) -> Result<usize, UsageError> {
    let n = session.requests.len();
    let k = match at {
        None | Some("last") => n,
        Some(s) => s
            .parse::<usize>()
            .map_err(|_| err(format!("--at {s:?}: expected a request number or `last`")))?,
    };
    if n == 0 {
        // An empty session is valid (SPEC §1): request 0 stands for "none".
        return Ok(0);
    }
    if k == 0 || k > n {
        return Err(err(format!("--at {k}: the session has requests 1..={n}")));
    }
    Ok(k)
}

/// The prefixes harnesses give every id (`toolu_01…`, `call_…`): an id may be
/// named without them.
const ID_PREFIXES: &[&str] = &["toolu_01", "toolu_", "call_"];

/// The tool result id `q` names: the id itself, or a prefix of exactly one id —
/// of the id as written or without its harness prefix (`KuPA` for
/// `toolu_01KuPA…`). An ambiguous prefix is an error listing the matches.
pub fn resolve_id(session: &Session, q: &str) -> Result<String, UsageError> {
    if q.is_empty() {
        return Err(err("give a tool result id (a unique prefix is enough)"));
    }
    if session.results.iter().any(|r| r.id == q) {
        return Ok(q.to_string());
    }
    let matches = |id: &str| {
        id.starts_with(q)
            || ID_PREFIXES
                .iter()
                .any(|p| id.strip_prefix(p).is_some_and(|rest| rest.starts_with(q)))
    };
    let mut found: Vec<&str> = session
        .results
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| matches(id))
        .collect();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [] => Err(err(format!("no tool result with id {q:?}"))),
        [one] => Ok(one.to_string()),
        many => {
            let shown: Vec<&str> = many.iter().take(8).copied().collect();
            Err(err(format!(
                "id prefix {q:?} is ambiguous: {} match ({}{})",
                many.len(),
                shown.join(", "),
                if many.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            )))
        }
    }
}

/// A directory given where one session is needed: say so and list the newest.
pub fn directory_error(path: &Path) -> UsageError {
    let listing = load::list_sessions(path).unwrap_or_default();
    if listing.is_empty() {
        return err(format!(
            "{}: is a directory without sessions (*.jsonl)",
            path.display()
        ));
    }
    let names: Vec<String> = listing
        .iter()
        .take(5)
        .map(|(p, _, _)| p.display().to_string())
        .collect();
    err(format!(
        "{}: is a directory; give one session file, e.g. {}",
        path.display(),
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_replaces_the_extension() {
        assert_eq!(
            sidecar_path(Path::new("a/claude-demo.jsonl")),
            PathBuf::from("a/claude-demo.mcscope.json")
        );
        assert_eq!(
            sidecar_path(Path::new("body.json")),
            PathBuf::from("body.mcscope.json")
        );
    }
}
