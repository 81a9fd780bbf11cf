//! `mcscope compare`: its flags (each setting a comma-separated list) and the
//! run that sets up every session, compares and prints.

use super::opts;
use super::{Opts, OutputFormat, PresetArg, UsageError, cache_ttl, setup_from};
use crate::policy::{Delivery, PlanKind, params};
use crate::session::Session;
use crate::setup::{Given, Read};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// `compare --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareFormat {
    #[default]
    Text,
    Json,
    Html,
}

/// `mcscope compare PATH`: the setting flags take comma-separated lists.
/// clap's arguments of the table's flags are made from its rows
/// (`cli::opts`): each list compare takes by key, the flags it takes one value
/// of as [`Given`]; the others are [`CompareOwn`]'s, by clap's derive.
#[derive(Debug, Clone, Default)]
pub struct CompareArgs {
    pub own: CompareOwn,
    /// The text given for each parameter compare takes a list of, by key.
    pub lists: Vec<(&'static str, String)>,
    /// The parameters compare takes one value of, for every row.
    pub given: Given,
}

/// The `--price-*` flags of `compare` and `bill`: rates that override the
/// price table's row (USD per million tokens).
#[derive(Args, Debug, Clone, Default)]
pub struct PriceArgs {
    /// USD per million input tokens (overrides the price table's row).
    #[arg(long, value_name = "USD", value_parser = crate::setup::price_arg)]
    pub price_input: Option<f64>,
    #[arg(long = "price-write-5m", value_name = "USD", value_parser = crate::setup::price_arg)]
    pub price_write_5m: Option<f64>,
    #[arg(long = "price-write-1h", value_name = "USD", value_parser = crate::setup::price_arg)]
    pub price_write_1h: Option<f64>,
    #[arg(long, value_name = "USD", value_parser = crate::setup::price_arg)]
    pub price_read: Option<f64>,
    /// USD per million output tokens (the recorded bill's `output` rate).
    #[arg(long, value_name = "USD", value_parser = crate::setup::price_arg)]
    pub price_output: Option<f64>,
}

impl PriceArgs {
    pub fn flags(&self) -> crate::prices::PriceFlags {
        crate::prices::PriceFlags {
            input: self.price_input,
            write_5m: self.price_write_5m,
            write_1h: self.price_write_1h,
            read: self.price_read,
            output: self.price_output,
        }
    }
}

/// `compare`'s flags that are no parameter's of the table.
#[derive(Args, Debug, Clone, Default)]
pub struct CompareOwn {
    /// A session, or a folder of sessions (none: the harnesses' session
    /// folders, as the picker reads them).
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub dates: super::Dates,
    #[arg(long, value_parser = crate::named::named::<PresetArg>())]
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
    #[command(flatten)]
    pub shared: opts::SharedArgs,
    #[command(flatten)]
    pub prices: PriceArgs,
    /// html: one self-contained page (the table, and for one session the chart
    /// of recorded vs simulated context per request).
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Print JSON: the same as --format json (and wins over --format).
    #[arg(short = 'j', long)]
    pub json: bool,
    /// html: name sessions by their paths as given (default: relative to the
    /// folder compared or to the home folder, `~/…`, so that the page can be
    /// shared; text and JSON always keep the paths as given).
    #[arg(long)]
    pub full_paths: bool,
    /// Write the output to FILE instead of stdout (`-o -`: stdout). Only a
    /// regular file or a new name: never a device, a FIFO, a session
    /// transcript or a file under a harness's folders.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar and no notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// A folder: list every compared, skipped and unpriced session (without
    /// it, one line per kind with a count).
    #[arg(long, short)]
    pub verbose: bool,
    /// Leave out the baseline row (what the records prove happened, plan kind
    /// recorded), which otherwise comes first.
    #[arg(long)]
    pub no_baseline: bool,
}

impl CompareArgs {
    /// The output asked for: `-j`/`--json` wins over `--format`.
    pub fn output_format(&self) -> CompareFormat {
        if self.own.json {
            CompareFormat::Json
        } else {
            self.own.format
        }
    }

    /// The text given for the list of the parameter of `key`.
    fn list_text(&self, key: &str) -> Option<&str> {
        self.lists
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| t.as_str())
    }

    /// The options every compared session is set up with (no lists).
    /// Every field is named (no `..Default::default()`): a flag added to
    /// [`Opts`] does not compile until compare says what it does with it.
    fn opts(&self) -> Opts {
        let own = &self.own;
        let api_lists = own.api_trigger.is_some() || own.api_keep.is_some();
        // The plan settings compare takes one value of: the same for every row
        // (the grid's come per row).
        let mut given = self.given.clone();
        if !own.api_edit.is_empty() {
            given.set(
                params::by_flag("api-edit").map_or("api_edits", |p| p.key),
                Read::Json(own.api_edit.clone()),
            );
        }
        Opts {
            // The request comes from the grid, per row.
            at: None,
            preset: if api_lists {
                Some(PresetArg::SERVER)
            } else {
                own.preset
            },
            given,
            shared: own.shared.opts(),
            format: match self.output_format() {
                CompareFormat::Json => OutputFormat::Json,
                CompareFormat::Text | CompareFormat::Html => OutputFormat::Text,
            },
            json: false,
            input_format: None,
            // SPEC §15.14: `compare DB` compares every main session.
            session: None,
        }
    }

    fn lists(&self) -> Result<crate::compare::Lists, UsageError> {
        use crate::compare::parse_list;
        use crate::config::KeyValue;
        use params::Takes;
        fn list<T>(
            flag: &str,
            v: Option<&str>,
            one: impl Fn(&str) -> Option<T>,
        ) -> Result<Option<Vec<T>>, UsageError> {
            v.map(|t| parse_list(flag, t, one))
                .transpose()
                .map_err(UsageError::List)
        }
        // A parameter's list is named by its flag in `policy::params`.
        let flag = |key| params::by_key(key).map_or(key, params::Param::long);
        let policy = list(flag("kind"), self.list_text("kind"), PlanKind::parse)?;
        if policy
            .as_ref()
            .is_some_and(|l| l.iter().any(|k| k.is_baseline()))
        {
            // SPEC §15.3: the baseline is always there; --no-baseline removes it.
            return Err(UsageError::RecordedListed);
        }
        let delivery = list(
            flag("delivery"),
            self.list_text("delivery"),
            Delivery::parse,
        )?;
        // Each numeric parameter's list, each value read as its row's flag
        // reads one (NaN or an infinity is no gap; negative ones disable, as
        // with plan).
        let mut values = Vec::new();
        for (row, _) in params::axes() {
            let one = |x: &str| -> Option<KeyValue> {
                match row.takes {
                    Takes::Count => x.parse().ok().map(KeyValue::U32),
                    Takes::Tokens => x.parse().ok().map(KeyValue::U64),
                    Takes::Chars => x.parse().ok().map(KeyValue::I64),
                    Takes::Minutes => x
                        .parse()
                        .ok()
                        .filter(|g: &f64| g.is_finite())
                        .map(KeyValue::F64),
                    Takes::Named(_) | Takes::Text | Takes::Json | Takes::On | Takes::Off => None,
                }
            };
            if let Some(l) = list(row.long(), self.list_text(row.key), one)? {
                values.push((row.key, l));
            }
        }
        Ok(crate::compare::Lists {
            policy,
            delivery,
            values,
            api_trigger: list("api-trigger", self.own.api_trigger.as_deref(), |x| {
                x.parse().ok()
            })?,
            api_keep: list("api-keep", self.own.api_keep.as_deref(), |x| x.parse().ok())?,
        })
    }
}

/// clap's arguments of `compare`: [`CompareOwn`]'s by the derive, the table's
/// flags from their rows (`opts::ordered`), in its `--help`'s order.
impl clap::Args for CompareArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        opts::ordered(
            cmd,
            CompareOwn::augment_args(clap::Command::new("compare")),
            opts::COMPARE_ORDER,
            opts::Takers::Compare,
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        <Self as clap::Args>::augment_args(cmd)
    }
}

impl clap::FromArgMatches for CompareArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let own = CompareOwn::from_arg_matches(m)?;
        // The text of each list compare takes, by the row's key.
        let lists = params::flags()
            .filter(|f| matches!(f.compare, params::Compare::List { .. }))
            .filter_map(|f| {
                let text = m.try_get_one::<String>(&opts::id(f.long)).ok().flatten()?;
                Some((f.key, text.clone()))
            })
            .collect();
        Ok(CompareArgs {
            own,
            lists,
            given: opts::given(m, opts::Takers::Compare),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// `mcscope compare`: the comparison printed as text or JSON; a progress bar on
/// stderr when it runs longer than half a second on a terminal.
pub fn run_compare(args: &CompareArgs) -> Result<String, UsageError> {
    use crate::compare;
    use std::io::IsTerminal;
    let lists = args.lists()?;
    let opts = args.opts();
    let format = args.output_format();
    let window = args.own.dates.window();
    let given = args.own.path.as_deref();
    let (files, folder, looked_in) = match given {
        Some(p) if p.is_dir() => (
            {
                say_unread(&[p.to_path_buf()]);
                compare::session_files(p).map_err(|e| UsageError::io(p, e))?
            },
            true,
            p.display().to_string(),
        ),
        // SPEC §15.14: `compare DB` compares every main session of a database,
        // as a folder's sessions.
        Some(p) if crate::load::sniff(p).is_some_and(crate::load::holds_sessions) => {
            (vec![p.to_path_buf()], true, p.display().to_string())
        }
        Some(p) => (vec![p.to_path_buf()], false, String::new()),
        None => harness_sessions()?,
    };
    let database = folder && given.is_some_and(|p| !p.is_dir());
    if !folder && window.is_set() {
        return Err(UsageError::WindowNeedsFolder);
    }
    let files = window.keep(files, |p| p.as_path());
    // A folder's page names sessions relative to it; the harness folders', to home.
    let path: PathBuf = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from),
    };
    let names_folder = folder && given.is_some();
    // Refused before the work, not after it: `-o` never names an input or a
    // harness folder (the write checks again).
    let reading = crate::export::Reading::config().sessions(&files);
    let output = crate::export::to_file(args.own.output.as_deref());
    if let Some(out) = output {
        crate::export::check(out, &reading)?;
    }
    let cache_ttl = match &args.own.shared.cache_ttl {
        Some(_) => cache_ttl(&path, &opts)?,
        None if folder => crate::totals::CacheTtl::Auto,
        None => cache_ttl(&path, &opts)?,
    };
    let setup = |s: Session, p: &Path| setup_from(s, p, &opts).map_err(|e| e.to_string());
    let started = std::time::Instant::now();
    let bar: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();
    let show = !args.own.quiet && std::io::stderr().is_terminal();
    let progress = |done: u64, total: u64| {
        if !show || started.elapsed() < std::time::Duration::from_millis(500) {
            return;
        }
        let b = bar.get_or_init(|| progress_bar(total));
        b.set_position(done.min(total));
    };
    let req = compare::Request {
        lists: &lists,
        cache_ttl,
        prices: args.own.prices.flags(),
        setup: &setup,
        progress: &progress,
        baseline: !args.own.no_baseline,
    };
    // The HTML page of one session charts it: loaded once for the rows and the chart.
    let mut charts = None;
    let result = if format == CompareFormat::Html && !folder {
        crate::load::load(&path, None)
            .map_err(|e| e.to_string())
            .and_then(|s| setup(s, &path))
            .and_then(|one| {
                let c = compare::compare_loaded(&one, &req, None)?;
                charts = Some(crate::compare_html::charts(&one, &c)?);
                Ok(c)
            })
    } else if database {
        compare::compare_database(&path, &req)
    } else if given.is_none() {
        compare::compare_with_databases(&files, &harness_databases(), &req)
    } else {
        compare::compare(&files, folder, &req)
    };
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    let c = result.map_err(UsageError::Compare)?;
    notes(&c, args, folder, &window, &looked_in);
    let out = render(&c, format, charts.as_ref(), &path, names_folder, args);
    match output {
        Some(file) => {
            crate::export::write(file, &reading, out.as_bytes())?;
            if !args.own.quiet {
                eprintln!("mcscope: wrote {}", crate::sanitize::path(file));
            }
            Ok(String::new())
        }
        None => Ok(out),
    }
}

/// The progress bar of a long comparison on a terminal.
fn progress_bar(total: u64) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "comparing {bar:30} {percent:>3}% {elapsed} (eta {eta})",
    ) {
        b.set_style(style);
    }
    b
}

/// The notes on stderr (none with `--quiet`): one line per kind of skipped
/// file, or one per file with `-v`; and for a folder with no session, why.
fn notes(
    c: &crate::compare::Comparison,
    args: &CompareArgs,
    folder: bool,
    window: &crate::zone::Window,
    looked_in: &str,
) {
    use crate::compare;
    if !args.own.quiet {
        // One line per kind of skipped file (SPEC §9a); `-v` names each.
        for (reason, files) in compare::skip_kinds(c) {
            if reason == "unpriced" {
                continue;
            }
            if args.own.verbose {
                for (path, why) in files {
                    let line = format!("skipped {path}: {why}");
                    eprintln!("mcscope: {}", crate::sanitize::line(&line));
                }
            } else {
                let line = compare::kind_line(reason, files.len(), false);
                eprintln!("mcscope: {}", crate::sanitize::line(&line));
            }
        }
    }
    // An empty folder, or a window that leaves no session, is an empty result
    // (SPEC §7a, §15.19): a cron job over a new HOME succeeds, and says why.
    if folder && c.sessions.is_empty() && !args.own.quiet {
        let within = match window.is_set() {
            true => format!(" {}", window.words()),
            false => String::new(),
        };
        let line = format!("no main-thread session with requests{within} under {looked_in}");
        eprintln!("mcscope: {}", crate::sanitize::line(&line));
    }
}

/// The comparison as the format asked for, sanitized.
fn render(
    c: &crate::compare::Comparison,
    format: CompareFormat,
    charts: Option<&crate::compare_html::Charts>,
    path: &Path,
    names_folder: bool,
    args: &CompareArgs,
) -> String {
    use crate::compare;
    match format {
        CompareFormat::Json => {
            let mut s = crate::sanitize::json_pretty(&compare::json(c));
            s.push('\n');
            s
        }
        // Shown on a terminal or opened from a file later: sanitized either way.
        CompareFormat::Text => crate::sanitize::text_owned(compare::text(c, args.own.verbose)),
        CompareFormat::Html => crate::sanitize::text_owned(crate::compare_html::html(
            c,
            charts,
            &crate::page_paths::PageNames::new(path, names_folder, args.own.full_paths),
        )),
    }
}

/// `compare` without PATH: the sessions of every harness session folder that
/// exists (SPEC §7a), the harnesses' databases that exist (OpenCode's), and
/// the places looked in, for the note when none has one.
pub(super) fn harness_sessions() -> Result<(Vec<PathBuf>, bool, String), UsageError> {
    let folders = crate::harness::session_folders();
    say_unread(&folders);
    let mut files = Vec::new();
    for dir in folders.iter().filter(|d| d.is_dir()) {
        files.extend(crate::compare::session_files(dir).map_err(|e| UsageError::io(dir, e))?);
    }
    let databases = harness_databases();
    let named: Vec<String> = folders
        .iter()
        .chain(&databases)
        .map(|d| d.display().to_string())
        .collect();
    Ok((files, true, named.join(" or ")))
}

/// One line on stderr for each store of sessions in or beside `folders`
/// that mcscope does not read (Cline 4.1+'s, SPEC §18.4): said, exit 0.
pub fn say_unread(folders: &[PathBuf]) {
    for line in crate::load::format::unread_stores(folders) {
        eprintln!("mcscope: {}", crate::sanitize::line(&line));
    }
}

/// Every database a harness keeps its sessions in, where it exists.
pub(super) fn harness_databases() -> Vec<PathBuf> {
    <crate::session::HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .flat_map(|h| h.asks().databases())
        .filter(|p| p.is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each list `compare` takes for a parameter is read, and refused, under
    /// the table's flag: every row that says compare takes a list.
    #[test]
    fn the_parameters_lists_are_named_by_the_table_s_flags() {
        let mut read = 0;
        for p in params::PARAMS {
            if !matches!(p.compare, params::Compare::List { .. }) {
                continue;
            }
            let args = CompareArgs {
                lists: vec![(p.key, "nothing-valid".to_string())],
                ..CompareArgs::default()
            };
            let e = args.lists().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{} \"nothing-valid\"", p.flag)),
                "{e}"
            );
            read += 1;
        }
        assert_eq!(read, 6);
    }
}
