//! mcscope: parse the command line, run one subcommand, print, exit 0 or 2.

use clap::error::ErrorKind;
use mcscope::analysis;
use mcscope::cli::{self, Cli, Command, OutputFormat, UsageError};
use mcscope::report;
use mcscope::sanitize;
use mcscope::totals::SessionFacts;
use std::io::Write;
use std::process::ExitCode;

/// Whether stdout was closed when mcscope started (`mcscope plan … >&-`).
/// Rust's runtime puts `/dev/null` in a closed standard descriptor's place
/// before `main` runs, where every write would vanish with exit 0; so the
/// descriptor is looked at earlier, by a constructor the loader runs before
/// `main` (ELF `.init_array`), and a command with something to print says it
/// cannot (exit 2) instead.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array")]
static PROBE_STDOUT: extern "C" fn() = {
    extern "C" fn probe() {
        // SAFETY: F_GETFD only reads the descriptor's flags; -1 (EBADF) means
        // no descriptor 1 is open.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
    probe
};

/// Ok while there is a stdout to print to (an error: it was closed at start).
fn stdout_open() -> std::io::Result<()> {
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(std::io::Error::other("stdout is closed"));
    }
    Ok(())
}

/// One glibc malloc arena per processor, not glibc's eight per processor (BENCHMARKS.md,
/// issue 41 item 5; measured on 16,000-request sessions): each thread that
/// allocates (the JSONL reader's, rayon's) would get an arena of its own, and
/// what it frees stays resident there after the load (7–10 MB of peak RSS
/// beside a heap of about 60 MB). One arena for every thread saved a little
/// more, but rayon's threads then waited on its lock (1.33x the CPU of a
/// 200 MB timeline); a fixed 1 MiB mmap threshold saved 9 MB more on
/// `evidence`, but mapped a fresh buffer for every session of a folder (the
/// bill by day over 400 sessions: 0.15 s of system time became 0.7 s).
///
/// Set first thing in `main`, before any thread starts; no output changes.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn tune_malloc() {
    let arenas = std::thread::available_parallelism().map_or(1, |n| n.get().min(64)) as i32;
    // SAFETY: mallopt only sets tunables of glibc's allocator, here before
    // any other thread exists. A refusal (0) leaves glibc's default, which
    // costs only memory.
    unsafe {
        let _ = libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

fn main() -> ExitCode {
    tune_malloc();
    let code = run_main();
    // A database copy a background load still holds (the TUI quit while it
    // read) is removed here: that thread's destructors never run.
    mcscope::load::opencode::db::remove_private_copies();
    code
}

fn run_main() -> ExitCode {
    // Backtraces only when asked for: users get one line naming the path and cause.
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        let _ = color_eyre::config::HookBuilder::default()
            .display_env_section(false)
            .install();
    } else {
        let _ = color_eyre::install();
    }
    // One parse, of the command line as `--help` shows it: each parameter's
    // flag carries the help its row of the table makes (`cli::command`).
    let first = std::env::args_os().nth(1);
    let parsed = cli::command_for(first.as_deref())
        .try_get_matches()
        .and_then(|mut m| <Cli as clap::FromArgMatches>::from_arg_matches_mut(&mut m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return clap_output(&e),
    };
    match run(cli) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            let printed = if text.is_empty() {
                Ok(())
            } else {
                stdout_open().and_then(|_| out.write_all(text.as_bytes()))
            };
            match quiet_pipe(printed.and_then(|_| out.flush())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    complain(&e);
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            complain(&e);
            ExitCode::from(2)
        }
    }
}

/// An error line on stderr. Messages name paths and ids from the transcript, so
/// they are shown as a text view (SPEC §15.20): nothing raw reaches the terminal.
fn complain(e: &UsageError) {
    eprintln!("mcscope: {}", sanitize::text(&e.to_string()));
    if let Some(hint) = e.hint() {
        eprintln!("  tip: {}", sanitize::text(&hint));
    }
}

/// What clap prints itself: `--help` and `--version` are output like any
/// other (a full disk is exit 2 with one line; a closed pipe quiet success);
/// a usage error is clap's message and status.
fn clap_output(e: &clap::Error) -> ExitCode {
    if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    match quiet_pipe(
        stdout_open()
            .and_then(|_| e.print())
            .and_then(|_| std::io::stdout().flush()),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            complain(&err);
            ExitCode::from(2)
        }
    }
}

/// What `run` prints: text outputs are sanitized as a whole at this edge (the
/// reports escape one-line fields themselves; this pass is the guarantee that no
/// control byte of a transcript reaches the terminal), JSON is already escaped by
/// its printer and must keep its exact bytes.
fn run(cli: Cli) -> Result<String, UsageError> {
    use std::io::IsTerminal;
    // SPEC §7a: the text reports obey --color, NO_COLOR and FORCE_COLOR as
    // the TUI does (the bill paints its own causes).
    let color = mcscope::color::wanted_here(cli.color, std::io::stdout().is_terminal());
    Ok(match run_command(cli)? {
        Printed::Text(text) if color => mcscope::color::paint_report(&sanitize::text_owned(text)),
        Printed::Text(text) => sanitize::text_owned(text),
        Printed::Painted(out) if color => mcscope::color::paint_report(&out),
        Printed::Painted(out) | Printed::Escaped(out) => out,
    })
}

enum Printed {
    /// A text form: sanitized here.
    Text(String),
    /// Already escaped by its printer: JSON (exact bytes), or `compare`'s text and
    /// HTML (sanitized where they are made, since they also go to `-o` files).
    Escaped(String),
    /// A text report already escaped, printed on stdout: coloured where
    /// colour is on (`compare`'s and `explain`'s text).
    Painted(String),
}

fn run_command(cli: Cli) -> Result<Printed, UsageError> {
    use Printed::{Escaped, Text};
    // `-z`: the zone every text output, the TUI and HTML show times in.
    if let Some(tz) = &cli.timezone {
        mcscope::zone::set_display(tz.clone());
    }
    let Some(command) = cli.command else {
        // `--no-mouse`, else the config file's `mouse` (a bad file: the TUI says so).
        let config_mouse = mcscope::config::load().ok().and_then(|c| c.mouse);
        let launch = mcscope::tui::Launch {
            mouse: !cli.no_mouse && config_mouse != Some(false),
            color: cli.color,
            window: cli.dates.window(),
        };
        mcscope::tui::run(cli.path.as_deref(), &cli.opts, &launch)?;
        return Ok(Text(String::new()));
    };
    Ok(match command {
        Command::Plan { path, opts } => {
            let setup = cli::setup(&path, &opts)?;
            let k = cli::request_index(&setup.session, opts.at.as_deref())?;
            let plan = analysis::plan_at(&setup, k).map_err(|e| io_error(&path, e))?;
            let printed = match only_explain_pages(opts.output_format(), "plan")? {
                OutputFormat::Json => {
                    let evidence = analysis::evidence_at(&setup, &plan);
                    let printed =
                        json_streamed(report::plan_json(&setup, &plan, evidence.as_ref()))?;
                    left_to_the_exit(evidence);
                    printed
                }
                _ => Text(report::plan_text(&setup, &plan)),
            };
            left_to_the_exit((setup, plan));
            printed
        }
        Command::Timeline {
            path,
            follow: true,
            interval_ms,
            opts,
        } => {
            follow_timeline(&path, &opts, interval_ms)?;
            Text(String::new())
        }
        Command::Timeline { path, opts, .. } => timeline(&path, &opts)?,
        Command::Explain {
            path,
            tool_id,
            opts,
            full_paths,
            output,
        } => explain(&path, &tool_id, &opts, full_paths, output.as_deref())?,
        Command::Evidence { path, opts } => {
            let mut setup = cli::setup(&path, &opts)?;
            let forced_at = cli::request_index(&setup.session, opts.at.as_deref())?;
            let format = only_explain_pages(opts.output_format(), "evidence")?;
            // Before the report: its run and the report's never hold memory at once.
            let pending = analysis::pending_prune_owned(&mut setup);
            let r = analysis::evidence_report(&setup, forced_at);
            let printed = match format {
                OutputFormat::Json => json_streamed(report::evidence_json(&setup, &r, pending))?,
                _ => Text(report::evidence_text(&setup, &r, pending)),
            };
            left_to_the_exit((setup, r));
            printed
        }
        Command::Config {
            print: _,
            path,
            opts,
        } => match path {
            Some(path) => {
                let setup = cli::setup(&path, &opts)?;
                Text(mcscope::config::describe(&setup.policy, &setup.settings))
            }
            None => {
                let config = mcscope::config::load()?;
                Text(mcscope::config::describe_presets(&config))
            }
        },
        // Sanitized by compare itself: its text and HTML go to `-o` files too.
        Command::Compare(args) => {
            let out = cli::run_compare(&args)?;
            let to_stdout = args
                .own
                .output
                .as_deref()
                .is_none_or(|o| o == std::path::Path::new("-"));
            if to_stdout && args.output_format() == cli::CompareFormat::Text {
                Printed::Painted(out)
            } else {
                Escaped(out)
            }
        }
        // Sanitized by bill itself (its NDJSON lines too).
        Command::Bill(args) => {
            use std::io::IsTerminal;
            let color = mcscope::color::wanted_here(cli.color, std::io::stdout().is_terminal());
            Escaped(cli::run_bill(&args, color)?)
        }
        Command::Statusline { format, json } => {
            // Capped: the bar sends a small object; a status line never fails it.
            let mut stdin = Vec::new();
            let _ = std::io::Read::read_to_end(
                &mut std::io::Read::take(std::io::stdin().lock(), 1 << 20),
                &mut stdin,
            );
            let json = json || only_explain_pages(format, "statusline")? == OutputFormat::Json;
            let out = mcscope::statusline::run(&stdin, json);
            if json { Escaped(out) } else { Text(out) }
        }
        Command::Demo => {
            mcscope::tui::run_demo(cli.color)?;
            Text(String::new())
        }
        Command::Completions { shell } => {
            use clap_complete::Shell;
            let shell = match shell {
                cli::ShellArg::Bash => Shell::Bash,
                cli::ShellArg::Zsh => Shell::Zsh,
                cli::ShellArg::Fish => Shell::Fish,
                cli::ShellArg::Elvish => Shell::Elvish,
                cli::ShellArg::Powershell => Shell::PowerShell,
            };
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cli::command(), "mcscope", &mut out);
            Text(String::from_utf8_lossy(&out).into_owned())
        }
        Command::Wire { path, side, opts } => {
            let setup = cli::setup(&path, &opts)?;
            let k = cli::request_index(&setup.session, opts.at.as_deref())?;
            let printed = json(analysis::wire_at(&setup, k, side).map_err(|e| io_error(&path, e))?);
            left_to_the_exit(setup);
            printed
        }
    })
}

/// `format`, unless it is a page (`md`, `html`), which only `explain` prints:
/// exit 2 with a sentence.
fn only_explain_pages(
    format: OutputFormat,
    command: &'static str,
) -> Result<OutputFormat, UsageError> {
    if format.is_page() {
        let name: &'static str = format.into();
        return Err(UsageError::PageFormat {
            format: name,
            command,
        });
    }
    Ok(format)
}

/// A write to stdout: a closed pipe (`| head`) is quiet success, any other
/// failure (a full disk, `>/dev/full`) is an error to report, as ripgrep does.
fn quiet_pipe(r: std::io::Result<()>) -> Result<(), UsageError> {
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(UsageError::Output(e.to_string()))
        }
        _ => Ok(()),
    }
}

/// Like [`quiet_pipe`], but says whether the reader is still there.
fn still_read(r: std::io::Result<()>) -> Result<bool, UsageError> {
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        r => quiet_pipe(r).map(|_| true),
    }
}

fn io_error(path: &std::path::Path, e: std::io::Error) -> UsageError {
    UsageError::io(path, e)
}

/// `timeline --follow`: print the timeline, then each request as the file grows.
/// The session is rebuilt only when the file changed, and the header printed once
/// (again only when the file starts over).
fn follow_timeline(
    path: &std::path::Path,
    opts: &cli::Opts,
    interval_ms: u64,
) -> Result<(), UsageError> {
    use mcscope::load::{Change, Follower};
    let mut follower = Follower::open(path, cli::input_format(opts))?;
    // Rows printed so far and the columns they were laid out in; None until
    // the header is out. Later rows keep those columns, so they stay under
    // the column titles however wide a new cell is.
    let mut printed: Option<(usize, Vec<usize>)> = None;
    let mut tail_printed: std::collections::HashSet<String> = Default::default();
    let mut changed = true;
    quiet_pipe(stdout_open())?;
    let mut out = std::io::stdout();
    loop {
        if changed {
            let setup = cli::setup_from(follower.session(), path, opts)?;
            let n = setup.session.requests.len();
            if printed.as_ref().is_none_or(|(p, _)| n > *p) {
                let facts = SessionFacts::new(&setup.session, setup.settings.cache_ttl);
                let t = report::timeline_parts(&setup, n, &facts);
                let text = match &printed {
                    // The first time: what `timeline` prints.
                    None => {
                        let mut widths = report::column_widths(&t.rows);
                        // Room for what later rows may hold where the first
                        // rows were narrow (no fire yet, no warm break yet).
                        let room = |title: &str| match title {
                            "REQ" => 5,
                            "AT" => 24,
                            "FIRED" => "budget (silent)".len(),
                            "IN WIRE" => 7,
                            "~SAVED" => 9,
                            "CACHE" => "broken".len(),
                            _ => 0,
                        };
                        if !t.rows.is_empty() {
                            for (w, title) in widths.iter_mut().zip(t.rows.row(0).cells()) {
                                *w = (*w).max(room(title));
                            }
                        }
                        let text = format!(
                            "{}{}{}{}",
                            t.head,
                            report::table_in(&t.rows, report::TIMELINE_RIGHT, &widths),
                            t.totals,
                            t.tail
                        );
                        printed = Some((n, widths));
                        tail_printed = t.tail.lines().map(str::to_string).collect();
                        text
                    }
                    // Then the new rows in the first columns, the totals of the
                    // whole file so far, and the evidence lines not printed yet.
                    Some((p, widths)) => {
                        let mut new = report::Rows::default();
                        for r in t.rows.iter().skip(1).filter(|r| {
                            r.get(0)
                                .and_then(|c| c.parse::<usize>().ok())
                                .is_some_and(|i| i > *p)
                        }) {
                            new.push(r.cells());
                        }
                        let mut text = report::table_in(&new, report::TIMELINE_RIGHT, widths);
                        text.push_str(&t.totals);
                        for l in t.tail.lines() {
                            if tail_printed.insert(l.to_string()) {
                                text.push_str(l);
                                text.push('\n');
                            }
                        }
                        printed = Some((n, widths.clone()));
                        text
                    }
                };
                for l in text.lines() {
                    if !still_read(writeln!(out, "{}", sanitize::text(l)))? {
                        return Ok(());
                    }
                }
                if !still_read(out.flush())? {
                    return Ok(());
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(interval_ms));
        changed = match follower.poll() {
            Ok(Change::Restarted(why)) => {
                let line = format!("{}: {why}", path.display());
                eprintln!("mcscope: {}", sanitize::line(&line));
                printed = None;
                true
            }
            Ok(Change::Deleted) => {
                return Err(UsageError::Deleted {
                    path: path.display().to_string(),
                });
            }
            Ok(Change::Grew(_)) => true,
            Ok(Change::Unchanged) => false,
            Err(e) => return Err(UsageError::io(path, e)),
        };
    }
}

/// JSON as printed: pretty, escaped, one newline.
fn json(v: impl serde::Serialize) -> Printed {
    let mut s = sanitize::json_pretty(&v);
    s.push('\n');
    Printed::Escaped(s)
}

/// [`json`]'s bytes written to stdout as they are made: a long session's
/// report never sits in memory whole beside the session (issue 41 item 5's
/// peak RSS). A closed stdout or a write error is the same error as when
/// `main` prints a [`Printed`].
fn json_streamed(v: impl serde::Serialize) -> Result<Printed, UsageError> {
    quiet_pipe(stdout_open())?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    quiet_pipe(
        sanitize::json_pretty_to(&mut out, &v)
            .map_err(std::io::Error::from)
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.flush()),
    )?;
    Ok(Printed::Escaped(String::new()))
}

/// `timeline`: JSON streamed to stdout, or the text table.
/// A one-shot command's session and what was made of it, once its output is
/// made: the process ends soon after, and freeing a long session's many
/// allocations one by one would only delay the exit (glibc's malloc sorts
/// every freed block into its bins). Nothing they hold is a file, a folder
/// or a lock to give back (the OpenCode loader's private copy is removed
/// when the load ends).
fn left_to_the_exit<T>(made: T) {
    std::mem::forget(made);
}

fn timeline(path: &std::path::Path, opts: &cli::Opts) -> Result<Printed, UsageError> {
    use Printed::{Escaped, Text};
    let setup = cli::setup(path, opts)?;
    let forced_at = cli::request_index(&setup.session, opts.at.as_deref())?;
    Ok(
        match only_explain_pages(opts.output_format(), "timeline")? {
            OutputFormat::Json => {
                // Streamed: a long session's timeline never sits in memory whole.
                quiet_pipe(stdout_open())?;
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                let steps = analysis::timeline_steps(&setup, forced_at);
                let evidence = analysis::evidence(&setup);
                let facts = SessionFacts::new(&setup.session, setup.settings.cache_ttl);
                quiet_pipe(
                    report::write_timeline_json(&setup, steps, &evidence, &facts, &mut out)
                        .and_then(|_| out.write_all(b"\n"))
                        .and_then(|_| out.flush()),
                )?;
                left_to_the_exit((setup, evidence, facts));
                Escaped(String::new())
            }
            _ => {
                let facts = SessionFacts::new(&setup.session, setup.settings.cache_ttl);
                let text = report::timeline_text(&setup, forced_at, &facts);
                left_to_the_exit((setup, facts));
                Text(text)
            }
        },
    )
}

/// `explain`: one result's fate, in text, JSON or a page, to stdout or `-o`.
fn explain(
    path: &std::path::Path,
    tool_id: &str,
    opts: &cli::Opts,
    full_paths: bool,
    output: Option<&std::path::Path>,
) -> Result<Printed, UsageError> {
    cli::check_output(output, path)?;
    let setup = cli::setup(path, opts)?;
    let forced_at = cli::request_index(&setup.session, opts.at.as_deref())?;
    // An id only a record names resolves too and is answered from the
    // records (SPEC §15.21), in every format.
    let tool_id = cli::resolve_id(&setup.session, tool_id).map_err(|e| e.in_session(path))?;
    let e = analysis::explain(&setup, &tool_id, forced_at).ok_or_else(|| {
        UsageError::UnknownId {
            id: tool_id.clone(),
        }
        .in_session(path)
    })?;
    // Escaped here whatever the format: the same bytes may go to `-o`.
    let out = match opts.output_format() {
        OutputFormat::Json => {
            let mut s = sanitize::json_pretty(&report::explain_json(&setup, &e));
            s.push('\n');
            s
        }
        OutputFormat::Text => sanitize::text_owned(report::explain_text(&setup, &e)),
        page => cli::explain_page(&setup, &e, page, full_paths),
    };
    let text = opts.output_format() == OutputFormat::Text;
    let out = cli::emit(output, path, out)?;
    // On stdout, a text page is coloured where colour is on; a file never is.
    Ok(if text && !out.is_empty() {
        Printed::Painted(out)
    } else {
        Printed::Escaped(out)
    })
}
