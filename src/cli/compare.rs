//! `mcscope compare`: its flags (each setting a comma-separated list) and the
//! run that sets up every session, compares and prints.

use super::{Opts, OutputFormat, PresetArg, SharedOpts, UsageError, cache_ttl, setup_from};
use crate::policy::{Delivery, PlanKind, params};
use crate::session::Session;
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
#[derive(Args, Debug, Clone, Default)]
pub struct CompareArgs {
    /// A session, or a folder of sessions (none: the harnesses' session
    /// folders, as the picker reads them).
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub dates: super::Dates,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "KIND,…")]
    pub policy: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N,…")]
    pub keep_recent: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "M,…", allow_hyphen_values = true)]
    pub gap_minutes: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "C,…", allow_hyphen_values = true)]
    pub size_threshold: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N,…")]
    pub trigger: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "rewrite|cache-edits,…")]
    pub delivery: Option<String>,
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
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long)]
    pub no_low_watermark: bool,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub protect_tokens: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub min_prunable_tokens: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long)]
    pub no_protect_latest_turn: bool,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub prune_protect: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub prune_minimum: Option<u64>,
    #[command(flatten)]
    pub shared: SharedOpts,
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
        if self.json {
            CompareFormat::Json
        } else {
            self.format
        }
    }

    /// The options every compared session is set up with (no lists).
    /// Every field is named (no `..Default::default()`): a flag added to
    /// [`Opts`] does not compile until compare says what it does with it.
    fn opts(&self) -> Opts {
        let api_lists = self.api_trigger.is_some() || self.api_keep.is_some();
        Opts {
            // The request and the plan settings come from the grid, per row.
            at: None,
            policy: None,
            preset: if api_lists {
                Some(PresetArg::SERVER)
            } else {
                self.preset
            },
            api_edit: self.api_edit.clone(),
            api_excluded_count_toward_keep: false,
            api_trigger_inclusive: false,
            api_placeholder: None,
            keep_recent: None,
            gap_minutes: None,
            min_trigger_tool_uses: None,
            prune_protect: self.prune_protect,
            prune_minimum: self.prune_minimum,
            size_threshold: None,
            // The thresholds of mask and prune: one value for every row.
            protect_tokens: self.protect_tokens,
            min_prunable_tokens: self.min_prunable_tokens,
            no_protect_latest_turn: self.no_protect_latest_turn,
            no_low_watermark: self.no_low_watermark,
            trigger: None,
            delivery: None,
            shared: self.shared.clone(),
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
        fn list<T>(
            flag: &str,
            v: &Option<String>,
            one: impl Fn(&str) -> Option<T>,
        ) -> Result<Option<Vec<T>>, UsageError> {
            v.as_deref()
                .map(|t| parse_list(flag, t, one))
                .transpose()
                .map_err(UsageError::List)
        }
        // A parameter's list is named by its flag in `policy::params`.
        let flag = |key| params::by_key(key).map_or(key, params::Param::long);
        let policy = list(flag("kind"), &self.policy, PlanKind::parse)?;
        if policy
            .as_ref()
            .is_some_and(|l| l.contains(&PlanKind::Recorded))
        {
            // SPEC §15.3: the baseline is always there; --no-baseline removes it.
            return Err(UsageError::RecordedListed);
        }
        Ok(crate::compare::Lists {
            policy,
            keep_recent: list(flag("keep_recent"), &self.keep_recent, |x| x.parse().ok())?,
            // NaN or an infinity is no gap (negative ones disable, as with plan).
            gap_minutes: list(flag("gap_threshold_minutes"), &self.gap_minutes, |x| {
                x.parse().ok().filter(|g: &f64| g.is_finite())
            })?,
            size_threshold: list(flag("size_threshold"), &self.size_threshold, |x| {
                x.parse().ok()
            })?,
            trigger: list(flag("trigger_threshold"), &self.trigger, |x| x.parse().ok())?,
            delivery: list(flag("delivery"), &self.delivery, Delivery::parse)?,
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
    let format = args.output_format();
    let window = args.dates.window();
    let given = args.path.as_deref();
    let (files, folder, looked_in) = match given {
        Some(p) if p.is_dir() => (
            compare::session_files(p).map_err(|e| UsageError::io(p, e))?,
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
    let output = crate::export::to_file(args.output.as_deref());
    if let Some(out) = output {
        crate::export::check(out, &reading)?;
    }
    let cache_ttl = match &args.shared.cache_ttl {
        Some(_) => cache_ttl(&path, &opts)?,
        None if folder => crate::totals::CacheTtl::Auto,
        None => cache_ttl(&path, &opts)?,
    };
    let setup = |s: Session, p: &Path| setup_from(s, p, &opts).map_err(|e| e.to_string());
    let started = std::time::Instant::now();
    let bar: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();
    let show = !args.quiet && std::io::stderr().is_terminal();
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
        prices: crate::prices::PriceFlags {
            input: args.price_input,
            write_5m: args.price_write_5m,
            write_1h: args.price_write_1h,
            read: args.price_read,
            output: args.price_output,
        },
        setup: &setup,
        progress: &progress,
        baseline: !args.no_baseline,
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
            if !args.quiet {
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
    if !args.quiet {
        // One line per kind of skipped file (SPEC §9a); `-v` names each.
        for (reason, files) in compare::skip_kinds(c) {
            if reason == "unpriced" {
                continue;
            }
            if args.verbose {
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
    if folder && c.sessions.is_empty() && !args.quiet {
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
        CompareFormat::Text => crate::sanitize::text_owned(compare::text(c, args.verbose)),
        CompareFormat::Html => crate::sanitize::text_owned(crate::compare_html::html(
            c,
            charts,
            &crate::page_paths::PageNames::new(path, names_folder, args.full_paths),
        )),
    }
}

/// `compare` without PATH: the sessions of every harness session folder that
/// exists (SPEC §7a), the harnesses' databases that exist (OpenCode's), and
/// the places looked in, for the note when none has one.
fn harness_sessions() -> Result<(Vec<PathBuf>, bool, String), UsageError> {
    let folders = crate::harness::session_folders();
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

/// Every database a harness keeps its sessions in, where it exists.
fn harness_databases() -> Vec<PathBuf> {
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
            let mut args = CompareArgs::default();
            let bad = Some("nothing-valid".to_string());
            match p.key {
                "kind" => args.policy = bad,
                "keep_recent" => args.keep_recent = bad,
                "gap_threshold_minutes" => args.gap_minutes = bad,
                "size_threshold" => args.size_threshold = bad,
                "trigger_threshold" => args.trigger = bad,
                "delivery" => args.delivery = bad,
                other => panic!("{other}: a list compare does not read"),
            }
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
