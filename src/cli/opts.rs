//! clap's arguments of the shared options ([`Opts`]) and of `compare`'s
//! (`CompareArgs`): a parameter's flag is made from its row of the table
//! (`policy::params::flags`: how it reads its value, its switch, how compare
//! takes it) and read back by key, the other flags by clap's derive; both in
//! the order `--help` lists them. A parameter added to the table is a flag of
//! every command with nothing written here (it is listed after the others).

use crate::config::KeyValue;
use crate::policy::params::{self, Compare, Flag, MAX_COUNT, Takes};
use crate::session::Format;
use crate::setup::{Given, Opts, OutputFormat, PresetArg, Read, SharedOpts};
use clap::{ArgAction, ArgMatches, Args, Command, FromArgMatches};

/// The flags of [`Opts`] that are no parameter's, by clap's derive.
#[derive(clap::Args, Debug, Clone, Default)]
struct OptsOwn {
    /// The request to look at: a number from 1, or `last`.
    #[arg(long, value_name = "K|last")]
    at: Option<String>,
    /// Harness rules to apply (default: the session's harness). `api`:
    /// Anthropic's server-side context editing, for Messages API bodies and, as a
    /// what-if, Claude Code sessions (see --api-edit).
    #[arg(long, value_parser = crate::named::named::<PresetArg>())]
    preset: Option<PresetArg>,
    /// The flags `compare` takes alike (roots, path maps, cache TTL).
    #[command(flatten)]
    shared: SharedArgs,
    /// Output format: text or json (explain also md or html: a page to share).
    #[arg(long, default_value = "text", value_parser = output_format())]
    format: OutputFormat,
    /// Print JSON: the same as --format json (and wins over --format text).
    #[arg(short = 'j', long)]
    json: bool,
    /// Override format detection.
    #[arg(long, value_parser = crate::named::named::<Format>())]
    input_format: Option<Format>,
    /// The session to read from a file that holds several (an OpenCode
    /// database): its id, e.g. `ses_dd4438cb3ffeXq3Lm9TzR2bN7c`.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
}

/// The flags [`Opts`] and `compare` take alike that are no parameter's
/// ([`SharedOpts`]).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SharedArgs {
    /// A memory root, e.g. `project=/home/me/.qwen/projects/x/memory` (repeatable).
    #[arg(long, value_name = "KIND=DIR", value_parser = crate::setup::memory_root_arg)]
    pub memory_root: Vec<String>,
    /// Rewrite a recorded path prefix before resolution (repeatable).
    #[arg(long, value_name = "FROM=TO")]
    pub path_map: Vec<String>,
    /// The prompt cache's TTL for `warm` (docs/compare.md) (auto: what the transcript's last cache write used).
    #[arg(long, value_name = "auto|5m|1h", value_parser = crate::named::named::<crate::totals::CacheTtl>())]
    pub cache_ttl: Option<crate::totals::CacheTtl>,
}

impl SharedArgs {
    /// The options they give.
    pub fn opts(&self) -> SharedOpts {
        SharedOpts {
            memory_root: self.memory_root.clone(),
            path_map: self.path_map.clone(),
            cache_ttl: self.cache_ttl,
        }
    }
}

/// `--format`'s parser: every value by its one name; the pages (`md`,
/// `html`) are `explain`'s alone, so the other commands' help does not offer
/// them (explain's says so in words).
pub fn output_format() -> impl clap::builder::TypedValueParser<Value = OutputFormat> {
    use clap::builder::{PossibleValue, TypedValueParser as _};
    let all = <OutputFormat as strum::VariantArray>::VARIANTS;
    clap::builder::PossibleValuesParser::new(
        all.iter()
            .map(|&v| PossibleValue::new(<&'static str>::from(v)).hide(v.is_page())),
    )
    .try_map(move |name: String| {
        all.iter()
            .copied()
            .find(|&v| <&'static str>::from(v) == name)
            .ok_or("not one of the values")
    })
}

/// The order `--help` lists the plan-like commands' flags in (by long name):
/// the table's where they stood when they were clap's derive.
const OPTS_ORDER: &[&[&str]] = &[
    &[
        "at",
        "policy",
        "preset",
        "api-edit",
        "api-excluded-count-toward-keep",
        "api-trigger-inclusive",
        "api-placeholder",
        "keep-recent",
        "gap-minutes",
        "min-trigger-tool-uses",
        "prune-protect",
        "prune-minimum",
        "size-threshold",
        "protect-tokens",
        "min-prunable-tokens",
        "no-protect-latest-turn",
        "no-low-watermark",
        "trigger",
        "delivery",
    ],
    SHARED_ORDER,
    &["format", "json", "input-format", "session"],
];

/// The order of `compare`'s flags in its `--help` (by long name, the
/// positional path by its id).
pub(super) const COMPARE_ORDER: &[&[&str]] = &[
    &[
        "path",
        "since",
        "until",
        "policy",
        "keep-recent",
        "gap-minutes",
        "size-threshold",
        "trigger",
        "delivery",
        "preset",
        "api-trigger",
        "api-keep",
        "api-edit",
        "no-low-watermark",
        "protect-tokens",
        "min-prunable-tokens",
        "no-protect-latest-turn",
        "prune-protect",
        "prune-minimum",
    ],
    SHARED_ORDER,
    &[
        "price-input",
        "price-write-5m",
        "price-write-1h",
        "price-read",
        "price-output",
        "format",
        "json",
        "full-paths",
        "output",
        "quiet",
        "verbose",
        "no-baseline",
    ],
];

/// The flags both orders list alike, in the middle (the budget's, the
/// switches', then [`SharedArgs`]').
const SHARED_ORDER: &[&str] = &[
    "budget-tokens",
    "budget-min-saving",
    "budget-warning",
    "protect",
    "no-protect",
    "clear-errors",
    "no-clear-errors",
    "memory-root",
    "path-map",
    "cache-ttl",
];

/// How a command takes the table's flags.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Takers {
    /// Every flag, one value each (plan, timeline, the TUI…).
    One,
    /// `compare`: its lists, and one value for every row where it takes one.
    Compare,
}

/// The argument's id: the flag's long name with underscores (the field names
/// of the derive the arguments were).
pub(super) fn id(long: &str) -> String {
    long.replace('-', "_")
}

/// The clap argument of a table flag (its help is set when the help is
/// made, `with_table_help`); None where the command does not take it.
fn table_arg(f: &Flag, takers: Takers) -> Option<clap::Arg> {
    let arg = clap::Arg::new(id(f.long)).long(f.long);
    if takers == Takers::Compare {
        match f.compare {
            Compare::List { value, .. } => {
                return Some(
                    arg.value_name(value)
                        .action(ArgAction::Set)
                        .allow_hyphen_values(matches!(f.takes, Takes::Minutes | Takes::Chars)),
                );
            }
            Compare::Same => {}
            Compare::Own | Compare::Not => return None,
        }
    }
    let set = |a: clap::Arg| a.action(ArgAction::Set);
    Some(match f.takes {
        Takes::Count => set(arg
            .value_name("N")
            .value_parser(clap::value_parser!(u32).range(..=i64::from(MAX_COUNT)))),
        Takes::Tokens => set(arg.value_name("N").value_parser(clap::value_parser!(u64))),
        Takes::Chars => set(arg
            .value_name("C")
            .allow_negative_numbers(true)
            .value_parser(clap::value_parser!(i64))),
        Takes::Minutes => set(arg
            .value_name("M")
            .allow_negative_numbers(true)
            .value_parser(crate::setup::gap_arg)),
        Takes::Named(names) => set(arg
            .value_name(id(f.long).to_uppercase())
            .value_parser(clap::builder::PossibleValuesParser::new(names()))),
        Takes::Text => set(arg.value_name("TEXT")),
        Takes::Json => arg.value_name("JSON").action(ArgAction::Append),
        Takes::On | Takes::Off => {
            let arg = arg.action(ArgAction::SetTrue);
            match f.partner {
                Some(p) => arg.overrides_with(id(p)),
                None => arg,
            }
        }
    })
}

/// `cmd` with `own`'s arguments and the table's flags `takers` takes, in
/// `order`; a table flag the order does not list follows the others.
pub(super) fn ordered(cmd: Command, own: Command, order: &[&[&str]], takers: Takers) -> Command {
    cmd.args(in_order(own, order, takers))
}

/// `own`'s arguments and the table's flags `takers` takes, in `order` (see
/// [`ordered`]), each without a place of its own: a command places them in
/// the order it is given them.
fn in_order(own: Command, order: &[&[&str]], takers: Takers) -> Vec<clap::Arg> {
    let mut args: Vec<Option<clap::Arg>> = own
        .get_arguments()
        .map(|a| Some(a.clone().display_order(None)))
        .collect();
    args.extend(params::flags().map(|f| table_arg(&f, takers)));
    let name = |a: &clap::Arg| {
        a.get_long()
            .map_or_else(|| a.get_id().to_string(), str::to_string)
    };
    let at = |name: &str| {
        order
            .iter()
            .copied()
            .flatten()
            .position(|o| *o == name)
            .unwrap_or(usize::MAX)
    };
    // Sorted by index: an argument is a large value, moved once.
    let mut keys: Vec<(usize, usize)> = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some((at(&name(a.as_ref()?)), i)))
        .collect();
    keys.sort_unstable();
    keys.into_iter()
        .filter_map(|(_, i)| args[i].take())
        .collect()
}

/// The plan-like commands' arguments, made once per run: seven commands
/// flatten them.
fn opts_args() -> &'static [clap::Arg] {
    static ARGS: std::sync::OnceLock<Vec<clap::Arg>> = std::sync::OnceLock::new();
    ARGS.get_or_init(|| {
        in_order(
            OptsOwn::augment_args(Command::new("opts")),
            OPTS_ORDER,
            Takers::One,
        )
    })
}

/// The table's flags `takers` takes one value of, as the command line gave
/// them, by key.
pub(super) fn given(m: &ArgMatches, takers: Takers) -> Given {
    let mut given = Given::default();
    for f in params::flags() {
        if takers == Takers::Compare && !matches!(f.compare, Compare::Same) {
            continue;
        }
        let id = id(f.long);
        let read = match f.takes {
            Takes::Count => m
                .try_get_one::<u32>(&id)
                .ok()
                .flatten()
                .map(|v| KeyValue::U32(*v)),
            Takes::Tokens => m
                .try_get_one::<u64>(&id)
                .ok()
                .flatten()
                .map(|v| KeyValue::U64(*v)),
            Takes::Chars => m
                .try_get_one::<i64>(&id)
                .ok()
                .flatten()
                .map(|v| KeyValue::I64(*v)),
            Takes::Minutes => m
                .try_get_one::<f64>(&id)
                .ok()
                .flatten()
                .map(|v| KeyValue::F64(*v)),
            Takes::Named(_) | Takes::Text => m
                .try_get_one::<String>(&id)
                .ok()
                .flatten()
                .map(|v| KeyValue::Str(v.clone())),
            Takes::On => m.get_flag(&id).then_some(KeyValue::Bool(true)),
            Takes::Off => m.get_flag(&id).then_some(KeyValue::Bool(false)),
            Takes::Json => {
                if let Ok(Some(texts)) = m.try_get_many::<String>(&id) {
                    given.set(f.key, Read::Json(texts.cloned().collect()));
                }
                None
            }
        };
        if let Some(v) = read {
            given.set(f.key, Read::Value(v));
        }
    }
    given
}

/// [`Opts`] as the command line gives them: clap's arguments and their
/// reading (a trait of clap on the core's type is not this crate's to write).
#[derive(Debug, Clone, Default)]
pub struct OptsArgs(pub Opts);

impl std::ops::Deref for OptsArgs {
    type Target = Opts;

    fn deref(&self) -> &Opts {
        &self.0
    }
}

impl Args for OptsArgs {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(opts_args().iter().cloned())
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for OptsArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let own = OptsOwn::from_arg_matches(m)?;
        Ok(OptsArgs(Opts {
            at: own.at,
            preset: own.preset,
            given: given(m, Takers::One),
            shared: own.shared.opts(),
            format: own.format,
            json: own.json,
            input_format: own.input_format,
            session: own.session,
        }))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}
