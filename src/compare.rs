//! `mcscope compare` (SPEC §9): a grid of settings run over one session or every
//! main-thread session under a folder, one row of totals per setting, sorted,
//! with the recommended row. Each session is loaded once; its settings run in
//! parallel over the facts they share ([`SessionFacts`]).

use crate::analysis::Setup;
use crate::policy::{Delivery, PlanKind, Policy};
use crate::prices::{self, Price, PriceFlags};
use crate::session::{Harness, Session};
use crate::totals::{self, CacheTtl, SessionFacts, Totals};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The comma-separated lists of the command line; None: not given.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub policy: Option<Vec<PlanKind>>,
    pub keep_recent: Option<Vec<u32>>,
    pub gap_minutes: Option<Vec<f64>>,
    pub size_threshold: Option<Vec<i64>>,
    pub trigger: Option<Vec<u32>>,
    pub delivery: Option<Vec<Delivery>>,
    /// The api preset (SPEC §11): the first clear_tool_uses edit's trigger
    /// value and keep value.
    pub api_trigger: Option<Vec<u64>>,
    pub api_keep: Option<Vec<u64>>,
}

impl Lists {
    fn any(&self) -> bool {
        self.api_trigger.is_some()
            || self.api_keep.is_some()
            || self.policy.is_some()
            || self.keep_recent.is_some()
            || self.gap_minutes.is_some()
            || self.size_threshold.is_some()
            || self.trigger.is_some()
            || self.delivery.is_some()
    }
}

/// Parses `a,b,c` with `one`; a bad item names itself.
pub fn parse_list<T>(
    flag: &str,
    text: &str,
    one: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    text.split(',')
        .map(str::trim)
        .map(|x| one(x).ok_or_else(|| format!("--{flag} {text:?}: cannot read {x:?}")))
        .collect()
}

/// One setting of the grid: the parameters it sets (None: the session's own).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub preset: Harness,
    pub kind: PlanKind,
    pub keep_recent: Option<u32>,
    pub gap_minutes: Option<f64>,
    pub size_threshold: Option<i64>,
    pub trigger: Option<u32>,
    pub delivery: Delivery,
    /// The api preset's first clear_tool_uses edit: trigger value, keep value.
    pub api_trigger: Option<u64>,
    pub api_keep: Option<u64>,
}

/// Which list parameters a kind reads: keep, gap, size, trigger.
fn uses(kind: PlanKind) -> (bool, bool, bool, bool) {
    match kind {
        PlanKind::Idle => (true, true, false, false),
        PlanKind::Size => (true, false, true, false),
        PlanKind::Count => (true, false, false, true),
        PlanKind::Forced => (true, false, false, false),
        PlanKind::Auto => (true, true, true, false),
        PlanKind::Budget | PlanKind::Api => (false, false, false, false),
    }
}

/// The setting grid for sessions of `preset` (SPEC §9): the default grid when no
/// list is given; otherwise the cross product of the lists, a kind multiplied
/// only by the parameters it reads (a parameter without a list keeps the
/// session's value). Settings a preset cannot run (cache-edits on qwen, budget
/// off rewrite) are left out.
pub fn grid(preset: Harness, lists: &Lists) -> Vec<Params> {
    let claude = preset == Harness::Claude;
    if lists.api_trigger.is_some() || lists.api_keep.is_some() {
        return if claude { api_grid(lists) } else { Vec::new() };
    }
    let default = !lists.any();
    let kinds: Vec<PlanKind> = match &lists.policy {
        Some(k) => k.clone(),
        None if claude => vec![PlanKind::Idle, PlanKind::Size, PlanKind::Count],
        None => vec![PlanKind::Idle, PlanKind::Size],
    };
    let opt = |v: &Option<Vec<u32>>| -> Vec<Option<u32>> {
        v.as_ref()
            .map_or(vec![None], |v| v.iter().copied().map(Some).collect())
    };
    let mut out = Vec::new();
    for kind in kinds {
        if kind == PlanKind::Count && !claude && default {
            continue;
        }
        let (uk, ug, us, ut) = uses(kind);
        let keeps: Vec<Option<u32>> = match (default, kind) {
            (true, PlanKind::Idle) => [1, 2, 3, 5, 8, 10, 15, 20].map(Some).to_vec(),
            (true, PlanKind::Size) => vec![Some(5)],
            (true, PlanKind::Count) => [2, 5, 10].map(Some).to_vec(),
            _ if uk => opt(&lists.keep_recent),
            _ => vec![None],
        };
        let gaps: Vec<Option<f64>> = match (default, ug) {
            (true, true) => [5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0]
                .map(Some)
                .to_vec(),
            (false, true) => lists
                .gap_minutes
                .as_ref()
                .map_or(vec![None], |v| v.iter().copied().map(Some).collect()),
            _ => vec![None],
        };
        let sizes: Vec<Option<i64>> = match (default, us) {
            (true, true) => [100_000, 200_000, 300_000, 500_000, 800_000]
                .map(Some)
                .to_vec(),
            (false, true) => lists
                .size_threshold
                .as_ref()
                .map_or(vec![None], |v| v.iter().copied().map(Some).collect()),
            _ => vec![None],
        };
        let triggers: Vec<Option<u32>> = match (default, ut) {
            (true, true) => [5, 10, 20, 40].map(Some).to_vec(),
            (false, true) => opt(&lists.trigger),
            _ => vec![None],
        };
        let deliveries: Vec<Delivery> = match &lists.delivery {
            Some(d) => d.clone(),
            None if kind == PlanKind::Count && claude => {
                vec![Delivery::Rewrite, Delivery::CacheEdits]
            }
            None => vec![Delivery::Rewrite],
        };
        for &delivery in &deliveries {
            if delivery == Delivery::CacheEdits && !claude {
                continue;
            }
            if kind == PlanKind::Budget && (delivery != Delivery::Rewrite || !claude) {
                continue;
            }
            for &keep_recent in &keeps {
                for &gap_minutes in &gaps {
                    for &size_threshold in &sizes {
                        for &trigger in &triggers {
                            out.push(Params {
                                preset,
                                kind,
                                keep_recent,
                                gap_minutes,
                                size_threshold,
                                trigger,
                                delivery,
                                api_trigger: None,
                                api_keep: None,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// The api preset's grid: its trigger values × its keep values (a list not
/// given keeps the session's edit), each run on the claude-shaped sessions.
fn api_grid(lists: &Lists) -> Vec<Params> {
    let opt = |v: &Option<Vec<u64>>| -> Vec<Option<u64>> {
        v.as_ref()
            .map_or(vec![None], |v| v.iter().copied().map(Some).collect())
    };
    let mut out = Vec::new();
    for api_trigger in opt(&lists.api_trigger) {
        for api_keep in opt(&lists.api_keep) {
            out.push(Params {
                preset: Harness::Claude,
                kind: PlanKind::Api,
                keep_recent: None,
                gap_minutes: None,
                size_threshold: None,
                trigger: None,
                delivery: Delivery::Server,
                api_trigger,
                api_keep,
            });
        }
    }
    out
}

impl Params {
    /// The setting a policy is, with the parameters its kind reads.
    pub fn of(p: &Policy) -> Params {
        let (uk, ug, us, ut) = uses(p.kind);
        Params {
            preset: p.preset,
            kind: p.kind,
            keep_recent: p.keep_recent.filter(|_| uk),
            gap_minutes: ug.then_some(p.gap_threshold_minutes),
            size_threshold: us.then_some(p.size_threshold),
            trigger: ut.then_some(p.trigger_threshold),
            delivery: p.delivery,
            api_trigger: (p.kind == PlanKind::Api)
                .then(|| p.api.first_trigger())
                .flatten(),
            api_keep: (p.kind == PlanKind::Api)
                .then(|| p.api.first_keep())
                .flatten(),
        }
    }

    /// The session's policy with this setting's parameters.
    pub fn apply(&self, base: &Policy) -> Policy {
        let mut p = base.clone();
        if self.kind == PlanKind::Api {
            p.kind = PlanKind::Api;
            p.delivery = Delivery::Server;
            p.protect = false;
            p.api.tune_first_tool_uses(self.api_trigger, self.api_keep);
            return p;
        }
        p.kind = self.kind;
        p.delivery = self.delivery;
        if let Some(k) = self.keep_recent {
            p.keep_recent = Some(k);
        }
        if let Some(g) = self.gap_minutes {
            p.gap_threshold_minutes = g;
        }
        if let Some(s) = self.size_threshold {
            p.size_threshold = s;
            p.size_explicit = true;
        }
        if let Some(t) = self.trigger {
            p.trigger_threshold = t;
        }
        p
    }

    /// The preset's name as the text form shows it (`api` for its rows).
    pub fn preset_name(&self) -> &'static str {
        if self.kind == PlanKind::Api {
            "api"
        } else {
            self.preset.name()
        }
    }

    /// The setting in words, for the text form.
    pub fn words(&self) -> String {
        if self.kind == PlanKind::Api {
            // The preset's name says api; its edit's values follow.
            let mut w = Vec::new();
            if let Some(t) = self.api_trigger {
                w.push(format!("trigger {t}"));
            }
            if let Some(k) = self.api_keep {
                w.push(format!("keep {k}"));
            }
            return w.join(" ");
        }
        let mut w = self.kind.name().to_string();
        if let Some(k) = self.keep_recent {
            let _ = write!(w, " keep {k}");
        }
        if let Some(g) = self.gap_minutes {
            let _ = write!(w, " gap {g}m");
        }
        if let Some(s) = self.size_threshold {
            let _ = write!(w, " size {s}");
        }
        if let Some(t) = self.trigger {
            let _ = write!(w, " trigger {t}");
        }
        if self.delivery != Delivery::Rewrite || self.kind == PlanKind::Count {
            let _ = write!(w, " {}", self.delivery.name());
        }
        w
    }
}

/// One session's share of a row.
#[derive(Debug, Clone)]
pub struct PerSession {
    pub path: String,
    pub totals: Totals,
    pub delta_usd: Option<f64>,
}

/// One setting's totals over the sessions of its preset.
#[derive(Debug, Clone)]
pub struct Row {
    pub params: Params,
    /// The §7 policy object (of the first session the setting ran on).
    pub policy: Option<Value>,
    pub totals: Totals,
    /// None when any session's dollars are unknown.
    pub delta_usd: Option<f64>,
    pub per_session: Vec<PerSession>,
}

/// One compared session.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub path: String,
    pub harness: Harness,
    pub model: Option<String>,
    pub requests: usize,
    pub price: Option<Price>,
}

#[derive(Debug, Clone, Default)]
pub struct Comparison {
    pub sessions: Vec<SessionInfo>,
    pub cache_ttl: CacheTtl,
    pub caveats: Vec<(String, String)>,
    /// Sorted (SPEC §9).
    pub rows: Vec<Row>,
    pub recommended: Option<usize>,
    /// The median `later_used` the recommendation read.
    pub median_later_used: Option<u64>,
    /// Files under a folder that were not compared, with why.
    pub skipped: Vec<(String, String)>,
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
    row.delta_usd = match (first, row.delta_usd, usd) {
        (true, _, u) => u,
        (false, Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
    row.per_session.push(PerSession {
        path: path.to_string(),
        totals: t,
        delta_usd: usd,
    });
}

/// Whether a folder's file is a session to compare: not a sub-agent's file.
fn is_subagent_file(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == "subagents")
        || p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

/// Every `*.jsonl` under `dir`, recursively, sorted by path.
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
            } else if p.extension().is_some_and(|e| e == "jsonl") && !is_subagent_file(&p) {
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
}

/// One session's outcome: its facts for the output and each setting's totals
/// (grid index of its preset, policy, totals, dollars).
struct Outcome {
    info: SessionInfo,
    caveats: Vec<(String, String)>,
    runs: Vec<(usize, Policy, Totals, Option<f64>)>,
}

/// Loads one session and runs its preset's settings over it in parallel;
/// Ok(Err(why)) when a folder's file is skipped.
fn run_session(
    path: &Path,
    folder: bool,
    grids: &[(Harness, Vec<Params>)],
    req: &Request<'_>,
    tick: &(dyn Fn() + Sync),
) -> Result<Result<Outcome, String>, String> {
    let shown = path.display().to_string();
    let session = match crate::load::load(path, None) {
        Ok(s) => s,
        Err(e) if folder => return Ok(Err(e.to_string())),
        Err(e) => return Err(e.to_string()),
    };
    if folder && (session.requests.is_empty() || session.subagent_what_if) {
        return Ok(Err(if session.subagent_what_if {
            "a sub-agent thread".into()
        } else {
            "no requests (empty or summary-only)".into()
        }));
    }
    let setup = match (req.setup)(session, path) {
        Ok(s) => s,
        Err(e) if folder => return Ok(Err(e)),
        Err(e) => return Err(e),
    };
    run_setup(&setup, shown, grids, req, tick, None).map(Ok)
}

/// Runs a loaded session's preset's settings over it in parallel.
fn run_setup(
    setup: &Setup,
    shown: String,
    grids: &[(Harness, Vec<Params>)],
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
    let mut facts = SessionFacts::new(s, req.cache_ttl);
    facts.pause = pause;
    let runs = grid
        .par_iter()
        .enumerate()
        .map(|(i, params)| {
            let mut one = setup.clone();
            one.policy = params.apply(&setup.policy);
            let out = run_setting(&one, &facts, price.as_ref()).map(|(t, u)| (i, one.policy, t, u));
            tick();
            out
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| format!("{shown}: {e}"))?;
    Ok(Outcome {
        info: SessionInfo {
            path: shown,
            harness: s.harness,
            model,
            requests: s.requests.len(),
            price,
        },
        caveats,
        runs,
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

/// One unit of [`compare_units`]: runs session `i` of the list.
type RunUnit<'a> = dyn Fn(
        usize,
        &[(Harness, Vec<Params>)],
        &(dyn Fn() + Sync),
    ) -> Result<Result<Outcome, String>, String>
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
    let grids: Vec<(Harness, Vec<Params>)> = [Harness::Claude, Harness::Qwen]
        .into_iter()
        .map(|h| (h, grid(h, req.lists)))
        .collect();
    let mut rows: Vec<Vec<Row>> = grids
        .iter()
        .map(|(_, g)| {
            g.iter()
                .map(|params| Row {
                    params: params.clone(),
                    policy: None,
                    totals: Totals::default(),
                    delta_usd: None,
                    per_session: Vec::new(),
                })
                .collect()
        })
        .collect();
    let mut caveat_ids: Vec<String> = Vec::new();
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
        let outcomes: Vec<Result<Result<Outcome, String>, String>> =
            chunk.par_iter().map(|&i| run(i, &grids, &tick)).collect();
        for (&i, out) in chunk.iter().zip(outcomes) {
            let path = &names[i];
            done += 1;
            if !single {
                (req.progress)(done, total);
            }
            let o = match out? {
                Ok(o) => o,
                Err(why) => {
                    cmp.skipped.push((path.clone(), why));
                    continue;
                }
            };
            let g = grids
                .iter()
                .position(|(h, _)| Some(*h) == o.runs.first().map(|r| r.1.preset))
                .unwrap_or(0);
            for (i, policy, t, usd) in o.runs {
                let row = &mut rows[g][i];
                let first = row.per_session.is_empty();
                if first {
                    row.policy = Some(crate::report::policy_json(
                        &policy,
                        crate::report::keep_recent_of(&policy, &[policy.kind]),
                    ));
                }
                for c in crate::caveats::caveats(&policy, &[policy.kind]) {
                    if !caveat_ids.iter().any(|x| x == c.id) {
                        caveat_ids.push(c.id.into());
                        cmp.caveats.push((c.id.into(), c.text.into()));
                    }
                }
                add_to(row, &o.info.path, t, usd, first);
            }
            for c in o.caveats {
                if !cmp.caveats.contains(&c) {
                    cmp.caveats.push(c);
                }
            }
            cmp.sessions.push(o.info);
        }
    }
    cmp.sessions.sort_by(|a, b| a.path.cmp(&b.path));
    let rows: Vec<Row> = rows
        .into_iter()
        .flatten()
        .filter(|r| !r.per_session.is_empty())
        .collect();
    let (rows, recommended, median) = sort_and_recommend(rows);
    cmp.rows = rows;
    cmp.recommended = recommended;
    cmp.median_later_used = median;
    Ok(cmp)
}

/// Rows sorted by `delta_usd` ascending (null last), `later_used` ascending,
/// `tokens_not_sent` descending, then grid order; `recommended` is the first
/// row whose `later_used` is not above the median (the lower middle of an even
/// count).
pub fn sort_and_recommend(mut rows: Vec<Row>) -> (Vec<Row>, Option<usize>, Option<u64>) {
    // A stable sort keeps grid order among equals.
    rows.sort_by(|a, b| {
        let usd = match (a.delta_usd, b.delta_usd) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        usd.then(a.totals.later_used.cmp(&b.totals.later_used))
            .then(b.totals.tokens_not_sent.cmp(&a.totals.tokens_not_sent))
    });
    let mut used: Vec<u64> = rows.iter().map(|r| r.totals.later_used).collect();
    used.sort_unstable();
    let median = used
        .get(used.len().saturating_sub(1) / 2)
        .copied()
        .filter(|_| !used.is_empty());
    let recommended = median.and_then(|m| rows.iter().position(|r| r.totals.later_used <= m));
    (rows, recommended, median)
}

fn totals_json(t: &Totals, usd: Option<f64>) -> serde_json::Map<String, Value> {
    let v = json!({
        "fires": t.fires,
        "cleared_results": t.cleared_results,
        "tokens_not_sent": t.tokens_not_sent,
        "cache_breaks": t.cache_breaks,
        "tokens_rewritten": t.tokens_rewritten,
        "later_used": t.later_used,
        "delta_usd": prices::usd_json(usd),
    });
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// `compare --format json` (schema `mcscope.compare/1`).
pub fn json(c: &Comparison) -> Value {
    let rows: Vec<Value> = c
        .rows
        .iter()
        .map(|r| {
            let mut m = serde_json::Map::new();
            m.insert("policy".into(), r.policy.clone().unwrap_or(Value::Null));
            m.extend(totals_json(&r.totals, r.delta_usd));
            let per: Vec<Value> = r
                .per_session
                .iter()
                .map(|p| {
                    let mut m = serde_json::Map::new();
                    m.insert("path".into(), json!(p.path));
                    m.extend(totals_json(&p.totals, p.delta_usd));
                    Value::Object(m)
                })
                .collect();
            m.insert("per_session".into(), Value::Array(per));
            Value::Object(m)
        })
        .collect();
    json!({
        "schema": "mcscope.compare/1",
        "sessions": c.sessions.iter().map(|s| json!({
            "path": s.path,
            "harness": s.harness.name(),
            "model": s.model,
            "requests": s.requests,
            "price": prices::price_json(s.price.as_ref()),
        })).collect::<Vec<_>>(),
        "cache_ttl": c.cache_ttl.name(),
        "caveats": c.caveats.iter().map(|(id, text)| json!({"id": id, "text": text})).collect::<Vec<_>>(),
        "rows": rows,
        "recommended": c.recommended,
        "skipped": c.skipped.iter().map(|(p, why)| json!({"path": p, "why": why})).collect::<Vec<_>>(),
    })
}

pub fn usd_text(x: Option<f64>) -> String {
    match x {
        Some(x) if (x * 1e6).round() == 0.0 => "0.000000".into(),
        Some(x) => format!("{:+.6}", (x * 1e6).round() / 1e6),
        None => "?".into(),
    }
}

/// The columns of the text table (the TUI's panel and the HTML page show the same).
pub const COLUMNS: [&str; 9] = [
    "#",
    "SETTING",
    "FIRES",
    "CLEARED",
    "NOT SENT",
    "WARM BREAKS",
    "RE-WRITTEN",
    "LATER USED",
    "Δ USD",
];

/// Row `i`'s cells under [`COLUMNS`] (`*` marks the recommended row).
pub fn row_cells(c: &Comparison, i: usize) -> Vec<String> {
    use crate::policy::engine::fmt_int;
    let r = &c.rows[i];
    let mark = if Some(i) == c.recommended { "*" } else { "" };
    vec![
        format!("{i}{mark}"),
        format!("{} {}", r.params.preset_name(), r.params.words()),
        r.totals.fires.to_string(),
        r.totals.cleared_results.to_string(),
        fmt_int(r.totals.tokens_not_sent),
        r.totals.cache_breaks.to_string(),
        fmt_int(r.totals.tokens_rewritten),
        r.totals.later_used.to_string(),
        usd_text(r.delta_usd),
    ]
}

/// `compare --format text`: one line per setting, the recommendation in words.
pub fn text(c: &Comparison) -> String {
    use crate::policy::engine::fmt_int;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} session{}, cache TTL {}",
        c.sessions.len(),
        if c.sessions.len() == 1 { "" } else { "s" },
        c.cache_ttl.name()
    );
    for s in &c.sessions {
        let price = match &s.price {
            Some(p) => format!(
                "prices of {} (per Mtok: write 5m {}, 1h {}, read {})",
                p.prefix, p.write_5m, p.write_1h, p.read
            ),
            None => "no price: dollars unknown".into(),
        };
        let _ = writeln!(
            out,
            "  {} ({}, {}, {} requests): {}",
            s.path,
            s.harness.name(),
            s.model.as_deref().unwrap_or("model unknown"),
            s.requests,
            price
        );
    }
    for (p, why) in &c.skipped {
        let _ = writeln!(out, "  skipped {p}: {why}");
    }
    let _ = writeln!(out);
    let mut table = vec![COLUMNS.map(String::from).to_vec()];
    table.extend((0..c.rows.len()).map(|i| row_cells(c, i)));
    out.push_str(&crate::report::table(
        &table,
        &[true, false, true, true, true, true, true, true],
    ));
    let _ = writeln!(out);
    match (c.recommended, c.median_later_used) {
        (Some(i), Some(m)) => {
            let r = &c.rows[i];
            let why = match r.delta_usd {
                Some(_) => "it has the largest saving",
                None => {
                    "dollars unknown, it comes first by results used again, then by tokens not sent"
                }
            };
            let _ = writeln!(
                out,
                "Recommended: row {i} ({} {}): of the settings whose cleared results were reached for again no more often than the median of all rows ({m}), {why} (Δ {} USD, later used {}, {} tokens not sent, {} cache breaks while warm).",
                r.params.preset_name(),
                r.params.words(),
                usd_text(r.delta_usd),
                r.totals.later_used,
                fmt_int(r.totals.tokens_not_sent),
                r.totals.cache_breaks,
            );
        }
        _ => {
            let _ = writeln!(out, "No recommendation: no setting ran.");
        }
    }
    let unknown: Vec<&str> = c
        .sessions
        .iter()
        .filter(|s| s.price.is_none())
        .map(|s| s.path.as_str())
        .collect();
    if !unknown.is_empty() {
        let _ = writeln!(
            out,
            "Dollars are unknown (?) for rows over sessions without a price: {}",
            unknown.join(", ")
        );
    }
    for (_, text) in c.caveats.iter().filter(|(id, _)| id.starts_with("price")) {
        let _ = writeln!(out, "note: {text}");
    }
    let _ = writeln!(
        out,
        "Δ USD is the cost change against no clearing (negative: a saving); WARM BREAKS count cache-prefix breaks while the cache was alive; LATER USED counts cleared results the model reached for again."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize, usd: Option<f64>, later: u64, not_sent: u64) -> Row {
        Row {
            params: Params {
                preset: Harness::Claude,
                kind: PlanKind::Idle,
                keep_recent: Some(i as u32),
                gap_minutes: None,
                size_threshold: None,
                trigger: None,
                delivery: Delivery::Rewrite,
                api_trigger: None,
                api_keep: None,
            },
            policy: None,
            totals: Totals {
                later_used: later,
                tokens_not_sent: not_sent,
                ..Default::default()
            },
            delta_usd: usd,
            per_session: Vec::new(),
        }
    }

    fn keeps(rows: &[Row]) -> Vec<u32> {
        rows.iter()
            .map(|r| r.params.keep_recent.unwrap_or(0))
            .collect()
    }

    #[test]
    fn api_lists_make_their_cross_product_for_claude_shaped_sessions_only() {
        let lists = Lists {
            api_trigger: Some(vec![50_000, 100_000, 150_000]),
            api_keep: Some(vec![3, 5, 10]),
            ..Default::default()
        };
        let g = grid(Harness::Claude, &lists);
        assert_eq!(g.len(), 9);
        assert!(
            g.iter()
                .all(|p| p.kind == PlanKind::Api && p.delivery == Delivery::Server)
        );
        assert_eq!((g[1].api_trigger, g[1].api_keep), (Some(50_000), Some(5)));
        assert_eq!(
            format!("{} {}", g[1].preset_name(), g[1].words()),
            "api trigger 50000 keep 5"
        );
        assert!(grid(Harness::Qwen, &lists).is_empty());
        // Applied: the first clear_tool_uses edit takes both values.
        let p = g[1].apply(&Policy::preset(Harness::Claude));
        assert_eq!(p.kind, PlanKind::Api);
        assert_eq!(
            p.api.edits_json()[0],
            json!({"type": "clear_tool_uses_20250919",
                   "trigger": {"type": "input_tokens", "value": 50000},
                   "keep": {"type": "tool_uses", "value": 5}})
        );
    }

    #[test]
    fn rows_sort_by_dollars_then_later_used_then_tokens_then_grid_order() {
        let rows = vec![
            row(0, None, 0, 10),
            row(1, Some(-1.0), 3, 10),
            row(2, Some(-2.0), 5, 10),
            row(3, Some(-1.0), 1, 10),
            row(4, Some(-1.0), 1, 99),
            row(5, Some(-1.0), 1, 99),
        ];
        let (sorted, _, _) = sort_and_recommend(rows);
        // -2 first; among -1: later 1 before 3, and 99 tokens before 10; 4 before 5
        // (grid order); null last.
        assert_eq!(keeps(&sorted), vec![2, 4, 5, 3, 1, 0]);
    }

    #[test]
    fn the_recommendation_reads_the_lower_median_of_an_even_count() {
        // later_used 5, 4, 2, 1 (sorted by dollars): sorted values 1 2 4 5, the
        // lower middle is 2 → the first row with later_used <= 2 is keep 2.
        let rows = vec![
            row(0, Some(-4.0), 5, 0),
            row(1, Some(-3.0), 4, 0),
            row(2, Some(-2.0), 2, 0),
            row(3, Some(-1.0), 1, 0),
        ];
        let (sorted, rec, median) = sort_and_recommend(rows);
        assert_eq!(median, Some(2));
        assert_eq!(rec, Some(2));
        assert_eq!(sorted[2].params.keep_recent, Some(2));
        // Odd count: 5, 4, 1 → median 4 → row 1.
        let rows = vec![
            row(0, Some(-4.0), 5, 0),
            row(1, Some(-3.0), 4, 0),
            row(2, Some(-1.0), 1, 0),
        ];
        let (_, rec, median) = sort_and_recommend(rows);
        assert_eq!((rec, median), (Some(1), Some(4)));
        assert_eq!(sort_and_recommend(Vec::new()).1, None);
    }

    #[test]
    fn the_default_grid_multiplies_only_what_a_kind_reads() {
        let g = grid(Harness::Claude, &Lists::default());
        let count = |k: PlanKind| g.iter().filter(|p| p.kind == k).count();
        assert_eq!(count(PlanKind::Idle), 64);
        assert_eq!(count(PlanKind::Size), 5);
        // count: 3 keeps × 4 triggers × 2 deliveries.
        assert_eq!(count(PlanKind::Count), 24);
        assert!(
            g.iter()
                .filter(|p| p.kind == PlanKind::Idle)
                .all(|p| p.size_threshold.is_none() && p.trigger.is_none())
        );
        let q = grid(Harness::Qwen, &Lists::default());
        assert_eq!(q.len(), 69);
        // Lists: idle × keep {2, 5} × gap {30}; size takes keep but not the gap.
        let lists = Lists {
            policy: Some(vec![PlanKind::Idle, PlanKind::Size]),
            keep_recent: Some(vec![2, 5]),
            gap_minutes: Some(vec![30.0]),
            ..Default::default()
        };
        let g = grid(Harness::Claude, &lists);
        assert_eq!(g.len(), 4);
        assert!(
            g.iter()
                .filter(|p| p.kind == PlanKind::Size)
                .all(|p| p.gap_minutes.is_none())
        );
        // cache-edits is never run on qwen.
        let lists = Lists {
            policy: Some(vec![PlanKind::Count]),
            delivery: Some(vec![Delivery::Rewrite, Delivery::CacheEdits]),
            ..Default::default()
        };
        assert_eq!(grid(Harness::Qwen, &lists).len(), 1);
        assert_eq!(grid(Harness::Claude, &lists).len(), 2);
    }

    #[test]
    fn a_row_with_an_unknown_session_has_no_dollars() {
        let mut r = row(0, None, 0, 0);
        add_to(&mut r, "a", Totals::default(), Some(-1.0), true);
        add_to(&mut r, "b", Totals::default(), Some(-0.5), false);
        assert_eq!(r.delta_usd, Some(-1.5));
        add_to(&mut r, "c", Totals::default(), None, false);
        assert_eq!(r.delta_usd, None);
        add_to(&mut r, "d", Totals::default(), Some(-0.5), false);
        assert_eq!(r.delta_usd, None);
        assert_eq!(r.per_session.len(), 4);
    }
}
