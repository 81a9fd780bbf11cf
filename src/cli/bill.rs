//! `mcscope bill` (SPEC §16.R): where the cache-write money went, by day,
//! month, session, project or 5-hour block; its flags and the run that loads
//! every session, partitions its writes and prints.

use super::UsageError;
use crate::bill::report::{self, Billed, By};
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// `bill --by`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ByArg {
    #[default]
    Day,
    Month,
    Session,
    Project,
    Block,
}

impl From<ByArg> for By {
    fn from(b: ByArg) -> By {
        match b {
            ByArg::Day => By::Day,
            ByArg::Month => By::Month,
            ByArg::Session => By::Session,
            ByArg::Project => By::Project,
            ByArg::Block => By::Block,
        }
    }
}

/// `mcscope bill [PATH|DIR]`.
#[derive(Args, Debug, Clone, Default)]
pub struct BillArgs {
    /// A session, a folder of sessions or an OpenCode database (none: every
    /// harness's session folders and databases).
    pub path: Option<PathBuf>,
    /// One row per day (as ccusage daily), month, session, project, or 5-hour
    /// block (from the first response of each block, as ccusage blocks).
    #[arg(long, value_enum, default_value_t = ByArg::Day)]
    pub by: ByArg,
    /// Only responses of DATE or later (YYYYMMDD or YYYY-MM-DD): each
    /// response's day is its first line's, in the display time zone.
    #[arg(long, value_name = "DATE", value_parser = crate::zone::parse_date)]
    pub since: Option<jiff::civil::Date>,
    /// Only responses of DATE or earlier (inclusive).
    #[arg(long, value_name = "DATE", value_parser = crate::zone::parse_date)]
    pub until: Option<jiff::civil::Date>,
    /// One line per model under each row.
    #[arg(short = 'b', long)]
    pub breakdown: bool,
    /// One JSON line per response (`mcscope.bill_row/1`, flat for DuckDB's
    /// read_json_auto) instead of the report.
    #[arg(long)]
    pub rows: bool,
    /// Print JSON (`mcscope.bill/1`).
    #[arg(short = 'j', long)]
    pub json: bool,
    #[command(flatten)]
    pub prices: super::compare::PriceArgs,
    /// No notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// One session's billed responses and the caveats it adds, or why it did not load.
type Loaded = Result<(Vec<Billed>, Vec<&'static str>), String>;

/// A unit to load: a session file, or one session of a database.
enum Unit {
    File(PathBuf),
    Db(PathBuf, String),
}

/// `mcscope bill`: the bill as text, JSON or NDJSON rows.
pub fn run_bill(args: &BillArgs, color: bool) -> Result<String, UsageError> {
    let given = args.path.as_deref();
    let (files, databases, looked_in) = match given {
        Some(p) if p.is_dir() => (
            {
                super::compare::say_unread(&[p.to_path_buf()]);
                crate::compare::session_files(p).map_err(|e| UsageError::io(p, e))?
            },
            Vec::new(),
            p.display().to_string(),
        ),
        Some(p) if crate::load::sniff(p).is_some_and(crate::load::holds_sessions) => {
            (Vec::new(), vec![p.to_path_buf()], p.display().to_string())
        }
        Some(p) => (vec![p.to_path_buf()], Vec::new(), p.display().to_string()),
        None => {
            let (files, _, looked) = super::compare::harness_sessions()?;
            (files, super::compare::harness_databases(), looked)
        }
    };
    let mut units: Vec<Unit> = files.into_iter().map(Unit::File).collect();
    for db in &databases {
        let sessions = crate::load::database_sessions(db).map_err(|e| UsageError::io(db, e))?;
        units.extend(
            sessions
                .into_iter()
                .filter(|s| s.parent_id.is_none())
                .map(|s| Unit::Db(db.clone(), s.id)),
        );
    }
    let config = crate::config::load()?;
    let flags = args.prices.flags();
    let price = |m: Option<&str>| crate::prices::price_with(m, &flags, &config.prices).ok();
    let single = units.len() == 1 && given.is_some_and(|p| !p.is_dir());
    // Each session partitioned on its own (in parallel); a response met again
    // in a later file (path order) is billed once, in the first (§16.B1).
    let loaded: Vec<Loaded> = units
        .par_iter()
        .map(|u| {
            let progress = std::sync::atomic::AtomicU64::new(0);
            let s = match u {
                Unit::File(p) => crate::load::load(p, None),
                Unit::Db(p, id) => crate::load::load_session(p, None, Some(id), &progress),
            }
            .map_err(|e| e.to_string())?;
            let lines = crate::load::subagents::usage_lines(&s);
            let rows = report::session_rows(&s, &lines, &mut HashSet::new(), &price);
            let caveats = report::session_caveats(&s, &rows);
            Ok((rows, caveats))
        })
        .collect();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut responses = Vec::new();
    let mut caveats: Vec<&'static str> = Vec::new();
    for (u, r) in units.iter().zip(loaded) {
        match r {
            Ok((rows, cav)) => {
                for c in cav {
                    if !caveats.contains(&c) {
                        caveats.push(c);
                    }
                }
                responses.extend(rows.into_iter().filter(|b| {
                    match (&b.r.message_id, &b.r.request_id) {
                        (Some(id), Some(rq)) => seen.insert((id.clone(), rq.clone())),
                        _ => true,
                    }
                }));
            }
            Err(e) if single => {
                let path = match u {
                    Unit::File(p) | Unit::Db(p, _) => p,
                };
                return Err(UsageError::Compare(format!(
                    "{}: {e}",
                    crate::sanitize::path(path)
                )));
            }
            Err(e) => {
                if !args.quiet {
                    let path: &Path = match u {
                        Unit::File(p) | Unit::Db(p, _) => p,
                    };
                    let line = format!("skipped {}: {e}", path.display());
                    eprintln!("mcscope: {}", crate::sanitize::line(&line));
                }
            }
        }
    }
    report::order_caveats(&mut caveats);
    if args.rows {
        let mut out = String::new();
        for b in &responses {
            out.push_str(&crate::sanitize::json_line(&b.row_json()));
            out.push('\n');
        }
        return Ok(out);
    }
    let tz = crate::zone::display();
    let ask = report::Ask {
        by: args.by.into(),
        tz: &tz,
        since: args.since,
        until: args.until,
    };
    let bill = report::bill(&responses, &ask, caveats);
    if args.json {
        let mut s = crate::sanitize::json_pretty(&bill.json());
        s.push('\n');
        return Ok(s);
    }
    if bill.rows.is_empty() && !args.quiet {
        let within = match (args.since, args.until) {
            (None, None) => String::new(),
            _ => format!(
                " {}",
                crate::zone::Window {
                    since: args.since,
                    until: args.until
                }
                .words()
            ),
        };
        let line = format!("no response with recorded usage{within} under {looked_in}");
        eprintln!("mcscope: {}", crate::sanitize::line(&line));
    }
    // Each transcript string in it is sanitized where it is written (the
    // colour codes are mcscope's own).
    Ok(crate::report::bill_text(&bill, args.breakdown, color))
}
