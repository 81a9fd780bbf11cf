//! The command line (SPEC §7): the subcommands and their flags. What the flags
//! set up (the merge of preset ← config file ← sidecar ← flags, `--at`, tool
//! ids) is [`crate::setup`], clap-free and shared with the TUI; it is re-exported
//! here under its old paths.

mod bill;
mod compare;
pub use bill::{BillArgs, run_bill};
mod explain;
pub mod opts;

pub use crate::setup::{
    DeliveryArg, InputFormatArg, KindArg, Opts, OutputFormat, PresetArg, SharedOpts, Sidecar,
    UsageError, cache_ttl, directory_error, input_format, read_sidecar, request_index, resolve_id,
    setup, setup_from, setup_with_config, setup_with_progress, sidecar_path,
};
pub use compare::{CompareArgs, CompareFormat, CompareOwn, run_compare, say_unread};
pub use explain::{check_output, emit, explain_page};

pub use crate::color::ColorChoice;
pub use crate::named::named;
use crate::wire::Side;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The top help's paragraph: the harnesses and plan kinds from the registry.
fn long_about() -> String {
    let kinds: Vec<&str> = <crate::policy::PlanKind as strum::VariantArray>::VARIANTS
        .iter()
        .filter(|k| !k.is_auto() && !k.is_baseline())
        .map(|k| k.name())
        .collect();
    format!(
        "mcscope loads a {} session transcript (or one Messages API body), \
simulates the harness's microcompaction plans ({}), \
and shows which tool results were cleared, which were protected, and what the wire payload sent.",
        crate::harness::titles(),
        kinds.join(", ")
    )
}

#[derive(Parser, Debug)]
#[command(
    name = "mcscope",
    version,
    about = "See what microcompaction did to a coding agent's conversation",
    long_about = long_about(),
    after_help = "Examples:\n  \
mcscope ~/.claude/projects/-home-me-app/SESSION.jsonl     the TUI on one session (? for its keys)\n  \
mcscope plan SESSION.jsonl --at 57 --policy count          what request 57 sent, and why\n  \
mcscope explain SESSION.jsonl KuPA                         why one result vanished (a unique id prefix)"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    // Its help names every harness's folders, from the registry.
    #[arg(help = crate::harness::folders_help())]
    pub path: Option<PathBuf>,
    /// TUI: leave the mouse to the terminal (its own selection and copy work;
    /// clicks and the wheel do not reach mcscope). Default: mouse captured.
    #[arg(long)]
    pub no_mouse: bool,
    /// The picker: only the sessions of these days.
    #[command(flatten)]
    pub dates: Dates,
    /// The time zone of the times shown in text, the TUI and HTML, an IANA
    /// name (default: the system's, TZ honoured); JSON keeps the recorded UTC
    /// times.
    #[arg(short = 'z', long = "timezone", value_name = "IANA", global = true, value_parser = crate::zone::parse_zone)]
    pub timezone: Option<jiff::tz::TimeZone>,
    /// Colour: auto (on a terminal, unless NO_COLOR is set or FORCE_COLOR
    /// asks for it), always or never; the flag wins over both variables.
    #[arg(long, value_enum, value_name = "WHEN", global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(flatten)]
    pub opts: opts::OptsArgs,
}

/// `--since`/`--until`: the days of the sessions a folder offers (the picker,
/// `compare DIR`), read from each session's first record with a timestamp.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Dates {
    /// Only sessions that start on DATE or later (YYYYMMDD or YYYY-MM-DD, in
    /// the display time zone).
    #[arg(long, value_name = "DATE", value_parser = crate::zone::parse_date)]
    pub since: Option<jiff::civil::Date>,
    /// Only sessions that start on DATE or earlier (inclusive).
    #[arg(long, value_name = "DATE", value_parser = crate::zone::parse_date)]
    pub until: Option<jiff::civil::Date>,
}

impl Dates {
    pub fn window(&self) -> crate::zone::Window {
        crate::zone::Window {
            since: self.since,
            until: self.until,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The plan at one request: every candidate with its status and the reason.
    Plan {
        path: PathBuf,
        #[command(flatten)]
        opts: opts::OptsArgs,
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
        opts: opts::OptsArgs,
    },
    /// The fate of one tool result at every request, with reasons;
    /// `--format md|html` prints it as a page to share (docs/pages.md).
    Explain {
        path: PathBuf,
        /// A tool result id, or a unique prefix of one (`toolu_01KuPA`, or `KuPA`
        /// without the harness's `toolu_01`).
        tool_id: String,
        /// Pages (`--format md|html`) name the session by its path as given,
        /// not relative to the home folder (`~/…`); text and JSON always keep
        /// the path as given.
        #[arg(long)]
        full_paths: bool,
        /// Write the output to FILE instead of stdout (`-o -`: stdout). Only a
        /// regular file or a new name: never a device, a FIFO, a session
        /// transcript or a file under a harness's folders.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        opts: opts::OptsArgs,
    },
    /// The wire payload of a request, as JSON.
    Wire {
        path: PathBuf,
        /// `wire` (what the harness sends) or `local` (the request as recorded).
        #[arg(long, value_parser = named::<Side>(), default_value = "wire")]
        side: Side,
        #[command(flatten)]
        opts: opts::OptsArgs,
    },
    /// What the transcript says really happened (docs/evidence.md): usage per response,
    /// observed cache breaks and what explains them, the harness's
    /// microcompact_boundary records against the plans, the server's applied edits.
    Evidence {
        path: PathBuf,
        #[command(flatten)]
        opts: opts::OptsArgs,
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
        opts: opts::OptsArgs,
    },
    /// Totals of a grid of settings over a session or a folder of sessions (docs/compare.md): what each saved, what it cost in cache writes, what it took that the model needed later.
    Compare(CompareArgs),
    /// Where the cache-write money went (docs/bill.md): every recorded cache
    /// write in one cause (growth, ttl, compaction, clearing, resume, …), by
    /// day, month, session, project or 5-hour block, with the levers you can
    /// pull.
    Bill(BillArgs),
    /// One line for Claude Code's status bar, from the status-line JSON on
    /// stdin: context size and window, hit rate, compactions, recorded
    /// clearings, the last observed cache break (bad input prints nothing).
    Statusline {
        /// text (the line) or json (SPEC §15.18's object).
        #[arg(long, default_value = "text", value_parser = opts::output_format())]
        format: OutputFormat,
        /// Print JSON: the same as --format json.
        #[arg(short = 'j', long)]
        json: bool,
    },
    /// A guided tour of cached microcompaction on the bundled demo session.
    Demo,
    /// A shell completion script, printed to stdout.
    Completions {
        #[arg(value_enum)]
        shell: ShellArg,
    },
}

/// The command line as it parses and as `--help` and the completions show it:
/// clap's derive, with each parameter's flag given the help its row of
/// [`crate::policy::params::PARAMS`] makes (what it sets, the values it takes,
/// its default per harness read from the harness's preset), in every
/// subcommand that takes it; `compare`'s in its words for a list.
pub fn command() -> clap::Command {
    command_for(None)
}

/// [`command`] for a run whose first argument is `first`: where it names a
/// subcommand (not `help`), the top level's own flags, which only a run
/// without a subcommand takes and shows, keep the derive's help (the status
/// line, run at every prompt, builds no help of the table's at all).
pub fn command_for(first: Option<&std::ffi::OsStr>) -> clap::Command {
    use clap::CommandFactory;
    let cli = Cli::command();
    let runs_a_subcommand = first
        .and_then(|f| f.to_str())
        .is_some_and(|f| f != "help" && cli.find_subcommand(f).is_some());
    // Each command's flags get their help when clap builds that command (its
    // `defer`): a run builds only the command it runs; `--help` and the
    // completions build them all.
    let cli = if runs_a_subcommand {
        cli
    } else {
        cli.defer(|c| with_table_help(c, false))
    };
    cli.mut_subcommands(|s| {
        if s.get_name() == "compare" {
            s.defer(|c| with_table_help(c, true))
        } else {
            s.defer(|c| with_table_help(c, false))
        }
    })
}

/// Each table flag of `cmd` (one command, not its subcommands) given its
/// help, in place (the order of the arguments, which the completions follow,
/// is kept).
fn with_table_help(cmd: clap::Command, compare: bool) -> clap::Command {
    use crate::policy::params;
    cmd.mut_args(|a| {
        let help = a.get_long().and_then(|long| match params::by_flag(long) {
            Some(p) if compare => p.compare_help(),
            Some(p) => Some(p.help()),
            None => params::other_flag_help(long),
        });
        match help {
            Some(help) => a.help(help),
            None => a,
        }
    })
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

/// `wire --side`: [`Side`] by its one name.
pub use crate::wire::Side as SideArg;

#[cfg(test)]
mod params_tests;

#[cfg(test)]
mod tests {
    use super::*;

    use crate::policy::{Delivery, PlanKind};
    use crate::session::Format;
    use crate::totals::CacheTtl;
    use clap::builder::TypedValueParser;

    /// One name per value, read alike by clap, serde and `FromStr`.
    fn one_name<T>(all: &[T])
    where
        T: strum::VariantArray
            + Copy
            + PartialEq
            + std::fmt::Debug
            + Into<&'static str>
            + Send
            + Sync
            + 'static,
    {
        let parser = named::<T>();
        let names: Vec<String> = parser
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        let declared: Vec<&str> = all.iter().map(|&v| v.into()).collect();
        assert_eq!(
            names, declared,
            "clap lists the values in the order declared"
        );
        let cmd = clap::Command::new("t");
        for &v in all {
            let name: &'static str = v.into();
            let read = parser.parse_ref(&cmd, None, std::ffi::OsStr::new(name));
            assert_eq!(read.unwrap(), v, "{name}");
        }
        let bad = parser.parse_ref(&cmd, None, std::ffi::OsStr::new("no-such-value"));
        assert!(bad.is_err());
    }

    #[test]
    fn clap_serde_and_from_str_read_one_name_per_value() {
        one_name(<PlanKind as strum::VariantArray>::VARIANTS);
        one_name(<Delivery as strum::VariantArray>::VARIANTS);
        one_name(<Format as strum::VariantArray>::VARIANTS);
        one_name(<PresetArg as strum::VariantArray>::VARIANTS);
        one_name(<CacheTtl as strum::VariantArray>::VARIANTS);
        one_name(<Side as strum::VariantArray>::VARIANTS);
        let parser = opts::output_format();
        let shown: Vec<String> = parser
            .possible_values()
            .unwrap()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(shown, ["text", "json"], "the pages are explain's alone");
        let cmd = clap::Command::new("t");
        for &v in <OutputFormat as strum::VariantArray>::VARIANTS {
            let name: &'static str = v.into();
            let read = parser.parse_ref(&cmd, None, std::ffi::OsStr::new(name));
            assert_eq!(read.unwrap(), v, "{name}");
        }
        for k in <PlanKind as strum::VariantArray>::VARIANTS {
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
            assert_eq!(k.name().parse::<PlanKind>().unwrap(), *k);
        }
        for d in <Delivery as strum::VariantArray>::VARIANTS {
            assert_eq!(serde_json::to_value(d).unwrap(), d.name());
            assert_eq!(Delivery::parse(d.name()), Some(*d));
        }
        assert_eq!(Delivery::CacheEdits.name(), "cache-edits");
        assert_eq!(CacheTtl::FiveMinutes.name(), "5m");
        assert_eq!(Format::MessagesJson.name(), "messages-json");
    }

    #[test]
    fn help_lists_the_values_in_the_order_declared() {
        let names: Vec<String> = named::<PlanKind>()
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "auto",
                "idle",
                "idle-server",
                "forced",
                "size",
                "count",
                "budget",
                "api",
                "recorded",
                "mask",
                "prune",
                "cline"
            ]
        );
        let sides: Vec<String> = named::<Side>()
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(sides, ["wire", "local"]);
    }
}
