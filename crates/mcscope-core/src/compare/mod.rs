//! `mcscope compare` (SPEC §9): a grid of settings run over one session or every
//! main-thread session under a folder, one row of totals per setting, sorted,
//! with the recommended row. Each session is loaded once; its settings run in
//! parallel over the facts they share ([`SessionFacts`]).
//! `grid` makes the settings from the lists, `output` prints the comparison as
//! JSON and text.

pub mod avail;
mod baseline;
mod grid;
pub mod rank;

pub use avail::Availability;
pub use grid::{Lists, Params, grid, parse_list};
pub use rank::sort_and_recommend;

use crate::analysis::Setup;
use crate::policy::{Delivery, PlanKind, Policy};
use crate::prices::{self, Price, PriceFlags};
use crate::session::{HarnessId, Session};
use crate::totals::{self, CacheTtl, SessionFacts, Totals};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One session's share of a row.
#[derive(Debug, Clone)]
pub struct PerSession {
    pub path: String,
    pub totals: Totals,
    pub delta_usd: Option<f64>,
    /// SPEC §9a: the session's recorded `usd` − the baseline's `delta_usd` +
    /// this `delta_usd` (None when any is unknown).
    pub estimated_usd: Option<f64>,
}

/// One setting's totals over the sessions of its preset.
#[derive(Debug, Clone)]
pub struct Row {
    pub params: Params,
    /// The §7 policy object (of the first session the setting ran on; under
    /// `auto`, over every session, SPEC §15.6).
    pub policy: Option<crate::policy_json::PolicyJson>,
    pub totals: Totals,
    /// None when any session's dollars are unknown.
    pub delta_usd: Option<f64>,
    pub per_session: Vec<PerSession>,
    /// SPEC §9a: the row of what the transcript proves happened (first, never
    /// sorted, grouped or recommended; no availability).
    pub baseline: bool,
    /// SPEC §9a, §15.15: who can set it over every session (None: the baseline).
    pub availability: Option<Availability>,
    /// The settings keys and values that set it, or None.
    pub knob: Option<serde_json::Value>,
    /// SPEC §15.15: the index of the first row of its group of identical rows.
    pub same_as: Option<usize>,
    /// Σ of the sessions' `estimated_usd` (None when any is unknown).
    pub estimated_usd: Option<f64>,
    /// Why a session refused it (`Policy::check_requests`: a delivery asked
    /// for under auto that a request's chosen kind does not take): left out,
    /// as the grid leaves out what `Policy::check` refuses, and named under
    /// the table.
    pub refused: Option<String>,
}

impl Row {
    /// A row of `params` with no session yet.
    pub fn new(params: Params) -> Row {
        Row {
            refused: None,
            params,
            policy: None,
            totals: Totals::default(),
            delta_usd: None,
            per_session: Vec::new(),
            baseline: false,
            availability: None,
            knob: None,
            same_as: None,
            estimated_usd: None,
        }
    }
}

/// One compared session.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub path: String,
    pub harness: HarnessId,
    pub model: Option<String>,
    pub requests: usize,
    pub price: Option<Price>,
    /// SPEC §9a: what the session's responses recorded, priced by `price`.
    pub recorded: crate::bill::Recorded,
}

#[derive(Debug, Clone, Default)]
pub struct Comparison {
    pub sessions: Vec<SessionInfo>,
    pub cache_ttl: CacheTtl,
    pub caveats: Vec<(String, String)>,
    /// Sorted (SPEC §9).
    pub rows: Vec<Row>,
    pub recommended: Option<usize>,
    /// SPEC §16.H, §18.20: per harness present, the recommendation over its
    /// rows alone, its session count and the median `later_used` it read, in
    /// harness order.
    pub recommended_by_harness: Vec<(HarnessId, Option<usize>, usize, Option<u64>)>,
    /// SPEC §16.L, §18.24: the levers over the compared sessions' recorded
    /// responses (the bill's), never a simulated plan's.
    pub levers: crate::bill::report::Row,
    /// The median `later_used` the recommendation read.
    pub median_later_used: Option<u64>,
    /// Files under a folder that were not compared, with why.
    pub skipped: Vec<Skipped>,
    /// Settings a session refused, left out of the rows: the setting and why
    /// (text output only).
    pub left_out: Vec<(String, String)>,
}

/// A folder's file that was not compared.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub path: String,
    /// SPEC §15.2's id: `not_regular`, `utf16`, `subagent`, `empty`,
    /// `summary_only`; `unreadable` and `bad_setup` for what the list lacks.
    pub reason: &'static str,
    /// The same in words.
    pub why: String,
}

/// A setting's totals over one loaded session, and its dollars.
pub fn run_setting(
    setup: &Setup,
    facts: &SessionFacts,
    price: Option<&Price>,
) -> std::io::Result<(Totals, Option<f64>)> {
    let t = totals::session_totals(setup, facts)?;
    let usd = price.map(|p| prices::delta_usd(p, &t.cost));
    Ok((t, usd))
}

/// Adds `t` to a row.
fn add_to(row: &mut Row, path: &str, t: Totals, usd: Option<f64>, first: bool) {
    row.totals.add(&t);
    // SPEC §18.5: an unpriced session's Δ is null and left out of the sum.
    row.delta_usd = match (first, row.delta_usd, usd) {
        (true, _, u) => u,
        (false, Some(a), Some(b)) => Some(a + b),
        (false, a, b) => a.or(b),
    };
    row.per_session.push(PerSession {
        path: path.to_string(),
        totals: t,
        delta_usd: usd,
        estimated_usd: None,
    });
}

/// Whether a folder's file is a session to compare: not a sub-agent's file.
fn is_subagent_file(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == "subagents")
        || p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

/// Every `*.jsonl` under `dir`, recursively, and every folder that is one
/// session (a Cline task: its history), sorted by path.
pub fn session_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let p = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if (p.extension().is_some_and(|e| e == "jsonl") && !is_subagent_file(&p))
                || crate::load::format::stands_for_folder(&p)
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// What `compare` was asked.
pub struct Request<'a> {
    pub lists: &'a Lists,
    pub cache_ttl: CacheTtl,
    pub prices: PriceFlags,
    /// Makes the setup of one loaded session (sidecar, flags).
    pub setup: &'a (dyn Fn(Session, &Path) -> Result<Setup, String> + Sync),
    /// Called with (done, total) units of work as they finish.
    pub progress: &'a (dyn Fn(u64, u64) + Sync),
    /// Whether the baseline row leads the rows (`--no-baseline`: not; it
    /// still runs, for every row's `estimated_usd`).
    pub baseline: bool,
}

/// One session's outcome: its facts for the output and each setting's totals
/// (grid index of its preset, policy, totals, dollars).
struct Outcome {
    info: SessionInfo,
    caveats: Vec<(String, String)>,
    runs: Vec<Run>,
    /// The baseline's policy, totals and dollars (SPEC §9a).
    baseline: (Policy, Totals, Option<f64>),
    /// The session's responses with their causes (SPEC §16.B): the levers.
    bill: Vec<crate::bill::report::Billed>,
}

/// One setting over one session: grid index, policy, totals, dollars, and
/// who can set it there (SPEC §9a).
struct Run {
    i: usize,
    policy: Policy,
    /// Under `auto`, the session's `policy` object (SPEC §15.6) and whether
    /// auto chose a kind at any of its requests.
    auto_policy: Option<(crate::policy_json::PolicyJson, bool)>,
    totals: Totals,
    usd: Option<f64>,
    avail: (Availability, Option<serde_json::Value>),
    /// Why the session refuses the setting (`Policy::check_requests`): not run.
    refused: Option<String>,
}

/// Loads one session and runs its preset's settings over it in parallel;
/// Ok(Err((reason, why))) when a folder's file is skipped.
fn run_session(
    path: &Path,
    folder: bool,
    grids: &[(HarnessId, Vec<Params>)],
    req: &Request<'_>,
    tick: &(dyn Fn() + Sync),
) -> Result<Result<Outcome, Skip>, String> {
    let shown = path.display().to_string();
    let session = match crate::load::load(path, None) {
        Ok(s) => s,
        Err(e) if folder => {
            // A FIFO or device is refused by the load, never opened for reading.
            return Ok(Err((
                e.skip_reason().unwrap_or("unreadable"),
                e.to_string(),
            )));
        }
        Err(e) => return Err(e.to_string()),
    };
    if folder && (session.requests.is_empty() || session.subagent_what_if) {
        return Ok(Err(if session.subagent_what_if {
            ("subagent", "a sub-agent thread".into())
        } else if session.records == 0 {
            ("empty", "no requests (empty or summary-only)".into())
        } else {
            ("summary_only", "no requests (empty or summary-only)".into())
        }));
    }
    let setup = match (req.setup)(session, path) {
        Ok(s) => s,
        Err(e) if folder => return Ok(Err(("bad_setup", e))),
        Err(e) => return Err(e),
    };
    run_setup(&setup, shown, grids, req, tick, None).map(Ok)
}

/// Runs a loaded session's preset's settings over it in parallel.
fn run_setup(
    setup: &Setup,
    shown: String,
    grids: &[(HarnessId, Vec<Params>)],
    req: &Request<'_>,
    tick: &(dyn Fn() + Sync),
    pause: Option<totals::Pause>,
) -> Result<Outcome, String> {
    let s = &setup.session;
    let preset = setup.policy.preset;
    let grid: &[Params] = grids
        .iter()
        .find(|(p, _)| *p == preset)
        .map_or(&[], |(_, g)| g.as_slice());
    let model = totals::session_model(s);
    let mut caveats = Vec::new();
    let price =
        match prices::price_with(model.as_deref(), &req.prices, &setup.settings.config.prices) {
            Ok(p) => {
                if let Some(text) = prices::caveat(&p) {
                    caveats.push(("price_long_prompts".into(), text.into()));
                }
                Some(p)
            }
            Err(note) => {
                caveats.push(("price_unknown".into(), format!("{shown}: {note}")));
                None
            }
        };
    let lines = crate::load::subagents::usage_lines(s);
    let recorded = crate::bill::recorded(s, &lines, price.as_ref());
    let config_prices = &setup.settings.config.prices;
    let price_of = |m: Option<&str>| prices::price_with(m, &req.prices, config_prices).ok();
    let bill = crate::bill::report::session_rows(s, &lines, &mut Default::default(), &price_of);
    // SPEC §13.C: recorded cuts are facts in every row of a claude session.
    if s.cuts.iter().any(|c| c.request.is_some()) {
        for c in crate::caveats::of_cuts(preset) {
            caveats.push((c.id.into(), c.text));
        }
    }
    let mut facts = SessionFacts::new(s, req.cache_ttl);
    facts.pause = pause;
    // SPEC §9a: who can set a row reads its kind and delivery, once each.
    let mut availability: Vec<((PlanKind, Delivery), Availability)> = Vec::new();
    for params in grid {
        let key = (params.kind, params.delivery);
        if !availability.iter().any(|(k, _)| *k == key) {
            availability.push((key, avail::availability(&params.apply(&setup.policy), s)));
        }
    }
    // The grid's settings and, last, the baseline (SPEC §9a), in parallel.
    let base_params = Params::baseline(preset);
    let mut runs = grid
        .par_iter()
        .chain(rayon::iter::once(&base_params))
        .enumerate()
        .map(|(i, params)| {
            let mut one = setup.clone();
            one.policy = params.apply(&setup.policy);
            let key = (params.kind, params.delivery);
            let a = availability
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(Availability::WhatIf, |(_, a)| *a);
            let avail = avail::with_knob(a, &one.policy);
            // A delivery the lists asked for under auto that a request's
            // chosen kind does not take: setup would refuse it (SPEC §15.6).
            let asked = req.lists.delivery.is_some().then_some(one.policy.delivery);
            if let Err(e) = one.policy.check_requests(&s.requests, asked) {
                if i < grid.len() {
                    tick();
                }
                return Ok(Run {
                    i,
                    policy: one.policy,
                    auto_policy: None,
                    totals: Totals::default(),
                    usd: None,
                    avail,
                    refused: Some(format!("{shown}: {e}")),
                });
            }
            let auto_policy = one.policy.kind.is_auto().then(|| {
                (
                    crate::policy_json::policy_all(&one),
                    !one.kinds_chosen().is_empty(),
                )
            });
            let out = run_setting(&one, &facts, price.as_ref()).map(|(totals, usd)| Run {
                i,
                policy: one.policy,
                auto_policy,
                totals,
                usd,
                avail,
                refused: None,
            });
            if i < grid.len() {
                tick();
            }
            out
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| format!("{shown}: {e}"))?;
    let baseline = runs
        .pop()
        .map(|r| (r.policy, r.totals, r.usd))
        .ok_or_else(|| format!("{shown}: the baseline did not run"))?;
    Ok(Outcome {
        info: SessionInfo {
            path: shown,
            harness: s.harness,
            model,
            requests: s.requests.len(),
            price,
            recorded,
        },
        caveats,
        runs,
        baseline,
        bill,
    })
}

/// Compares the settings over `files` (one file, or a folder's sessions: then
/// sub-agent threads, empty and summary-only files are skipped). Sessions run
/// in parallel too, in batches, so a folder is streamed, not held.
pub fn compare(files: &[PathBuf], folder: bool, req: &Request<'_>) -> Result<Comparison, String> {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    compare_units(&names, req, &|i, grids, tick| {
        run_session(&files[i], folder, grids, req, tick)
    })
}

/// Compares the settings over every main session of the database at `path`
/// (SPEC §15.14: `compare DB`), each named `PATH#ID`, as a folder's sessions
/// (a session without requests is skipped); sub-agent sessions are billed in
/// their parent's row, not compared.
pub fn compare_database(path: &Path, req: &Request<'_>) -> Result<Comparison, String> {
    let units = database_units(path)?;
    let names: Vec<String> = units.iter().map(|(_, _, n)| n.clone()).collect();
    compare_units(&names, req, &|i, grids, tick| {
        let (db, id, name) = &units[i];
        run_db_session(db, id, name, grids, req, tick)
    })
}

/// The main sessions of a database as units: (database, session id, `PATH#ID`).
fn database_units(path: &Path) -> Result<Vec<(PathBuf, String, String)>, String> {
    Ok(crate::load::database_sessions(path)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|s| s.parent_id.is_none())
        .map(|s| {
            let name = format!("{}#{}", path.display(), s.id);
            (path.to_path_buf(), s.id, name)
        })
        .collect())
}

/// One session of a database, compared as a folder's session is.
fn run_db_session(
    path: &Path,
    id: &str,
    name: &str,
    grids: &[(HarnessId, Vec<Params>)],
    req: &Request<'_>,
    tick: &(dyn Fn() + Sync),
) -> Result<Result<Outcome, Skip>, String> {
    let progress = std::sync::atomic::AtomicU64::new(0);
    let session = match crate::load::load_session(path, None, Some(id), &progress) {
        Ok(s) => s,
        Err(e) => return Ok(Err(("unreadable", e.to_string()))),
    };
    if session.requests.is_empty() {
        return Ok(Err(("empty", "no requests".into())));
    }
    let setup = match (req.setup)(session, path) {
        Ok(s) => s,
        Err(e) => return Ok(Err(("bad_setup", e))),
    };
    run_setup(&setup, name.to_string(), grids, req, tick, None).map(Ok)
}

/// `compare` without PATH (SPEC §7a, §15.14): the harness folders' session
/// files and every main session of the harnesses' databases, as one folder.
pub fn compare_with_databases(
    files: &[PathBuf],
    databases: &[PathBuf],
    req: &Request<'_>,
) -> Result<Comparison, String> {
    let mut units = Vec::new();
    for db in databases {
        units.extend(database_units(db)?);
    }
    let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    names.extend(units.iter().map(|(_, _, n)| n.clone()));
    compare_units(
        &names,
        req,
        &|i, grids, tick| match i.checked_sub(files.len()) {
            None => run_session(&files[i], true, grids, req, tick),
            Some(u) => {
                let (db, id, name) = &units[u];
                run_db_session(db, id, name, grids, req, tick)
            }
        },
    )
}

/// Compares the settings over one session already loaded and set up (the TUI's
/// compare panel, `compare --format html`): the same rows as [`compare`] on its
/// file. `pause` is called before each request of each setting (the TUI's
/// panel waits there while keys arrive).
pub fn compare_loaded(
    setup: &Setup,
    req: &Request<'_>,
    pause: Option<totals::Pause>,
) -> Result<Comparison, String> {
    let shown = setup.session.path.display().to_string();
    compare_units(std::slice::from_ref(&shown), req, &|_, grids, tick| {
        run_setup(setup, shown.clone(), grids, req, tick, pause.clone()).map(Ok)
    })
}

/// Why a folder's file is skipped: SPEC §15.2's reason id, and in words.
type Skip = (&'static str, String);

/// One unit of [`compare_units`]: runs session `i` of the list.
type RunUnit<'a> = dyn Fn(
        usize,
        &[(HarnessId, Vec<Params>)],
        &(dyn Fn() + Sync),
    ) -> Result<Result<Outcome, Skip>, String>
    + Sync
    + 'a;

/// The rows over the sessions `run` yields, one per name.
fn compare_units(
    names: &[String],
    req: &Request<'_>,
    run: &RunUnit<'_>,
) -> Result<Comparison, String> {
    let mut cmp = Comparison {
        cache_ttl: req.cache_ttl,
        ..Default::default()
    };
    let grids: Vec<(HarnessId, Vec<Params>)> = <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .copied()
        .map(|h| (h, grid(h, req.lists)))
        .collect();
    let mut rows: Vec<Vec<Row>> = grids
        .iter()
        .map(|(_, g)| g.iter().map(|params| Row::new(params.clone())).collect())
        .collect();
    // Under auto, per row: whether a session so far had a request where auto
    // chose a kind (None: no session yet).
    let mut auto_chose: Vec<Vec<Option<bool>>> = rows.iter().map(|r| vec![None; r.len()]).collect();
    let mut caveat_ids: Vec<String> = Vec::new();
    // One baseline row for every harness, listed under the registry's first.
    let mut base = Row::new(Params::baseline(grids[0].0));
    let mut billed: Vec<crate::bill::report::Billed> = Vec::new();
    base.baseline = true;
    // One file: a unit per setting; a folder: a unit per session.
    let single = names.len() == 1;
    let total = if single {
        grids.iter().map(|(_, g)| g.len()).max().unwrap_or(1) as u64
    } else {
        names.len() as u64
    };
    let ticks = std::sync::atomic::AtomicU64::new(0);
    let tick = || {
        if single {
            let d = ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            (req.progress)(d, total);
        }
    };
    let batch = rayon::current_num_threads().max(1) * 2;
    let mut done = 0;
    let units: Vec<usize> = (0..names.len()).collect();
    for chunk in units.chunks(batch) {
        let outcomes: Vec<Result<Result<Outcome, Skip>, String>> =
            chunk.par_iter().map(|&i| run(i, &grids, &tick)).collect();
        for (&i, out) in chunk.iter().zip(outcomes) {
            let path = &names[i];
            done += 1;
            if !single {
                (req.progress)(done, total);
            }
            let o = match out? {
                Ok(o) => o,
                Err((reason, why)) => {
                    cmp.skipped.push(Skipped {
                        path: path.clone(),
                        reason,
                        why,
                    });
                    continue;
                }
            };
            let g = grids
                .iter()
                .position(|(h, _)| Some(*h) == o.runs.first().map(|r| r.policy.preset))
                .unwrap_or(0);
            for run in o.runs {
                let i = run.i;
                add_run(
                    &mut rows[g][i],
                    &mut auto_chose[g][i],
                    run,
                    &o.info.path,
                    &mut caveat_ids,
                    &mut cmp.caveats,
                );
            }
            let (policy, t, usd) = o.baseline;
            let first = base.per_session.is_empty();
            if first {
                base.params = Params::of(&policy);
                base.policy = Some(crate::policy_json::policy_json(&policy, None));
            }
            add_to(&mut base, &o.info.path, t, usd, first);
            for c in o.caveats {
                if !cmp.caveats.contains(&c) {
                    cmp.caveats.push(c);
                }
            }
            cmp.sessions.push(o.info);
            billed.extend(o.bill);
        }
    }
    cmp.levers = crate::bill::report::total(&billed);
    cmp.sessions.sort_by(|a, b| a.path.cmp(&b.path));
    // No session at all (an empty folder or date window, SPEC §7a): the claude
    // grid's rows with zero totals, so a script reads the same shape.
    let none = cmp.sessions.is_empty();
    cmp.left_out = rows
        .iter()
        .flatten()
        .filter_map(|r| Some((r.params.words(), r.refused.clone()?)))
        .collect();
    let rows = grid_rows(rows, &grids, none);
    let (rows, recommended, median) = sort_and_recommend(rows);
    if base.policy.is_none() {
        let policy = base.params.apply(&Policy::preset(base.params.preset));
        base.policy = Some(crate::policy_json::policy_json(&policy, None));
    }
    cmp.rows = baseline::with_baseline(rows, base, &cmp.sessions, req.baseline);
    cmp.recommended = recommended.map(|i| i + usize::from(req.baseline));
    cmp.median_later_used = median;
    // SPEC §16.H: one recommendation per harness, over its own rows.
    for h in <HarnessId as strum::VariantArray>::VARIANTS {
        let n = cmp.sessions.iter().filter(|s| s.harness == *h).count();
        if n == 0 {
            continue;
        }
        let (r, m) = rank::recommend(&cmp.rows, |r| !r.baseline && r.params.preset == *h);
        cmp.recommended_by_harness.push((*h, r, n, m));
    }
    Ok(cmp)
}

/// One setting's run over a session added to its row: its availability,
/// its `policy` object (under auto merged over the sessions, SPEC §15.6), its
/// caveats (each once in `caveats`) and its totals. `seen`: whether a session
/// so far had a request where auto chose a kind (None: no session yet).
fn add_run(
    row: &mut Row,
    seen: &mut Option<bool>,
    run: Run,
    path: &str,
    caveat_ids: &mut Vec<String>,
    caveats: &mut Vec<(String, String)>,
) {
    let Run {
        i: _,
        policy,
        auto_policy,
        totals: t,
        usd,
        avail,
        refused,
    } = run;
    if let Some(why) = refused {
        row.refused.get_or_insert(why);
        return;
    }
    let first = row.per_session.is_empty();
    let (a, knob) = avail::combine(row.availability.map(|a| (a, row.knob.take())), avail);
    row.availability = Some(a);
    row.knob = knob;
    if let Some((json, chose)) = auto_policy {
        // SPEC §15.6: auto's values over every session's requests
        // where it chose a kind; sessions where it chose none
        // count only when no session had one.
        row.policy = Some(match (row.policy.take(), *seen) {
            (Some(prev), Some(had)) if had == chose => {
                crate::policy_json::policy_merged(prev, &json)
            }
            (Some(prev), Some(true)) => prev,
            _ => json,
        });
        *seen = Some(seen.unwrap_or(false) || chose);
    } else if first {
        row.policy = Some(crate::policy_json::policy_json(
            &policy,
            crate::policy_json::keep_recent_of(&policy, &[policy.kind]),
        ));
    }
    for c in crate::caveats::caveats(&policy, &[policy.kind], &[]) {
        if !caveat_ids.iter().any(|x| x == c.id) {
            caveat_ids.push(c.id.into());
            caveats.push((c.id.into(), c.text));
        }
    }
    add_to(row, path, t, usd, first);
}

/// The grids' rows that a session ran, each with its `policy` object; with
/// no session at all (`none`: an empty folder or date window, SPEC §7a) the
/// first grid's rows with zero totals, so a script reads the same shape.
fn grid_rows(rows: Vec<Vec<Row>>, grids: &[(HarnessId, Vec<Params>)], none: bool) -> Vec<Row> {
    rows.into_iter()
        .enumerate()
        .flat_map(|(g, rs)| rs.into_iter().map(move |r| (g, r)))
        .filter(|(g, r)| r.refused.is_none() && (!r.per_session.is_empty() || (none && *g == 0)))
        .map(|(g, mut r)| {
            if r.policy.is_none() {
                let policy = r.params.apply(&Policy::preset(grids[g].0));
                let keep = crate::policy_json::keep_recent_of(&policy, &[policy.kind]);
                r.policy = Some(crate::policy_json::policy_json(&policy, keep));
            }
            r
        })
        .collect()
}

impl Comparison {
    /// The recorded bill over every compared session (SPEC §9a).
    pub fn recorded(&self) -> crate::bill::Recorded {
        let mut sum = crate::bill::Recorded {
            usd: None,
            break_usd: None,
            ..crate::bill::Recorded::zero()
        };
        for s in &self.sessions {
            sum.add(&s.recorded);
        }
        // Nothing to sum: a known zero (an empty folder).
        if self.sessions.is_empty() {
            sum.usd = Some(0.0);
            sum.break_usd = Some(0.0);
        }
        sum
    }

    /// SPEC §18.5: the responses of sessions without a price, left out of
    /// every dollar sum, and their models.
    pub fn unpriced(&self) -> crate::bill::report::Unpriced {
        let mut out = crate::bill::report::Unpriced::default();
        for s in self.sessions.iter().filter(|s| s.price.is_none()) {
            let sub = s.recorded.subagents.map_or(0, |(t, _)| t.responses);
            out.responses += s.recorded.main.responses + sub;
            let m = s
                .model
                .clone()
                .unwrap_or_else(|| "(no model recorded)".into());
            if !out.models.contains(&m) {
                out.models.push(m);
            }
        }
        out.models.sort();
        out
    }
}

#[cfg(test)]
mod tests;
