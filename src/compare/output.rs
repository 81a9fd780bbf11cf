//! A comparison as JSON (schema `mcscope.compare/1`) and as a text table.

use crate::prices::{self, Price};
use crate::session::HarnessId;
use crate::totals::Totals;
use mcscope_core::compare::*;
use serde::Serialize;
use std::fmt::Write as _;

/// A setting's totals (SPEC §9), fields in schema order.
#[derive(Serialize)]
struct TotalsJson {
    fires: u64,
    cleared_results: u64,
    tokens_not_sent: u64,
    cache_breaks: u64,
    tokens_rewritten: u64,
    later_used: u64,
    delta_usd: Option<f64>,
}

fn totals_json(t: &Totals, usd: Option<f64>) -> TotalsJson {
    TotalsJson {
        fires: t.fires,
        cleared_results: t.cleared_results,
        tokens_not_sent: t.tokens_not_sent,
        cache_breaks: t.cache_breaks,
        tokens_rewritten: t.tokens_rewritten,
        later_used: t.later_used,
        delta_usd: prices::usd_rounded(usd),
    }
}

/// `compare --format json` (schema `mcscope.compare/1`), fields in schema order.
#[derive(Serialize)]
pub(crate) struct CompareJson<'a> {
    schema: &'static str,
    sessions: Vec<SessionJson<'a>>,
    /// SPEC §9a: the sums over the sessions, `hit_rate` from the sums.
    recorded: crate::bill::RecordedJson,
    cache_ttl: &'static str,
    caveats: Vec<CaveatJson<'a>>,
    rows: Vec<RowJson<'a>>,
    recommended: Option<usize>,
    /// SPEC §16.H, §18.20: `{"<harness>": {"recommended", "sessions"}}`.
    recommended_by_harness: serde_json::Map<String, serde_json::Value>,
    /// SPEC §16.L, §18.24: the bill's levers over the compared sessions.
    levers: crate::bill::report::Levers,
    avoidable_usd: Option<f64>,
    skipped: Vec<SkippedJson<'a>>,
}

/// One compared session.
#[derive(Serialize)]
struct SessionJson<'a> {
    path: &'a str,
    harness: HarnessId,
    model: &'a Option<String>,
    requests: usize,
    price: Option<&'a Price>,
    recorded: crate::bill::RecordedJson,
}

#[derive(Serialize)]
struct CaveatJson<'a> {
    id: &'a str,
    text: &'a str,
}

/// One setting: its policy object, its totals, then each session's.
#[derive(Serialize)]
struct RowJson<'a> {
    policy: &'a Option<crate::report::PolicyJson>,
    #[serde(flatten)]
    totals: TotalsJson,
    /// SPEC §9a: the baseline row (what happened), the bill under the row's
    /// setting; §9a, §15.15: who can set it, and its group.
    baseline: bool,
    estimated_usd: Option<f64>,
    availability: Option<Availability>,
    knob: &'a Option<serde_json::Value>,
    same_as: Option<usize>,
    per_session: Vec<PerSessionJson<'a>>,
}

#[derive(Serialize)]
struct PerSessionJson<'a> {
    path: &'a str,
    #[serde(flatten)]
    totals: TotalsJson,
    estimated_usd: Option<f64>,
}

#[derive(Serialize)]
struct SkippedJson<'a> {
    path: &'a str,
    /// SPEC §15.2's id (`why` came first and stays: keys are never renamed).
    reason: &'a str,
    why: &'a str,
}

/// `compare --format json` (schema `mcscope.compare/1`).
pub(crate) fn json(c: &Comparison) -> CompareJson<'_> {
    CompareJson {
        schema: "mcscope.compare/1",
        sessions: c
            .sessions
            .iter()
            .map(|s| SessionJson {
                path: &s.path,
                harness: s.harness,
                model: &s.model,
                requests: s.requests,
                price: s.price.as_ref(),
                recorded: s.recorded.json(),
            })
            .collect(),
        recorded: crate::bill::RecordedJson {
            unpriced: Some(c.unpriced()),
            ..c.recorded().json()
        },
        cache_ttl: c.cache_ttl.name(),
        caveats: c
            .caveats
            .iter()
            .map(|(id, text)| CaveatJson { id, text })
            .collect(),
        rows: c
            .rows
            .iter()
            .map(|r| RowJson {
                policy: &r.policy,
                totals: totals_json(&r.totals, r.delta_usd),
                baseline: r.baseline,
                estimated_usd: prices::usd_rounded(r.estimated_usd),
                availability: r.availability,
                knob: &r.knob,
                same_as: r.same_as,
                per_session: r
                    .per_session
                    .iter()
                    .map(|p| PerSessionJson {
                        path: &p.path,
                        totals: totals_json(&p.totals, p.delta_usd),
                        estimated_usd: prices::usd_rounded(p.estimated_usd),
                    })
                    .collect(),
            })
            .collect(),
        recommended: c.recommended,
        recommended_by_harness: c
            .recommended_by_harness
            .iter()
            .map(|(h, r, n, _)| {
                (
                    h.name().to_string(),
                    serde_json::json!({"recommended": r, "sessions": n}),
                )
            })
            .collect(),
        levers: c.levers.json(false).levers,
        avoidable_usd: c.levers.json(false).avoidable_usd,
        // SPEC §15.2: the skipped files, then the sessions without a price.
        skipped: c
            .skipped
            .iter()
            .map(|s| SkippedJson {
                path: &s.path,
                reason: s.reason,
                why: &s.why,
            })
            .chain(
                skip_kinds(c)
                    .into_iter()
                    .filter(|(r, _)| *r == "unpriced")
                    .flat_map(|(reason, files)| {
                        files
                            .into_iter()
                            .map(move |(path, why)| SkippedJson { path, reason, why })
                    }),
            )
            .collect(),
    }
}

pub(super) fn usd_text(x: Option<f64>) -> String {
    match x {
        Some(x) if (x * 1e6).round() == 0.0 => "0.000000".into(),
        Some(x) => format!("{:+.6}", (x * 1e6).round() / 1e6),
        None => "?".into(),
    }
}

/// The columns of the text table (the TUI's panel and the HTML page show the same).
pub(crate) const COLUMNS: [&str; 9] = [
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
pub(crate) fn row_cells(c: &Comparison, i: usize) -> Vec<String> {
    use crate::numbers::fmt_int;
    let r = &c.rows[i];
    let mark = if Some(i) == c.recommended { "*" } else { "" };
    let setting = if r.baseline {
        // SPEC §9a: the baseline is what the records prove happened.
        "recorded: what happened".to_string()
    } else {
        format!("{} {}", r.params.preset_name(), r.params.words())
    };
    vec![
        format!("{i}{mark}"),
        setting,
        r.totals.fires.to_string(),
        r.totals.cleared_results.to_string(),
        fmt_int(r.totals.tokens_not_sent),
        r.totals.cache_breaks.to_string(),
        fmt_int(r.totals.tokens_rewritten),
        r.totals.later_used.to_string(),
        usd_text(r.delta_usd),
    ]
}

/// `compare --format text`: the recorded bill, the sessions (a folder's one
/// line per kind of skipped or unpriced session, `verbose` lists them), one
/// line per setting, the recommendation in words.
pub(crate) fn text(c: &Comparison, verbose: bool) -> String {
    // An empty result (SPEC §7: an empty folder or a window that leaves no
    // session; stderr says which, and why): nothing on stdout, no table of
    // zeros, no recommendation blaming a price. The JSON keeps its empty
    // `sessions` and rows of zero totals.
    if c.sessions.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} session{}, cache TTL {}",
        c.sessions.len(),
        if c.sessions.len() == 1 { "" } else { "s" },
        c.cache_ttl.name()
    );
    let _ = writeln!(out, "{}", c.recorded().words());
    let folder = c.sessions.len() > 1 || !c.skipped.is_empty();
    if folder && !verbose {
        if c.sessions.len() > 1 {
            let _ = writeln!(
                out,
                "  {} sessions compared (-v lists them)",
                c.sessions.len()
            );
        }
    } else {
        for s in &c.sessions {
            let _ = writeln!(out, "  {}", session_line(s));
        }
    }
    if folder {
        for (reason, files) in skip_kinds(c) {
            let _ = writeln!(out, "  {}", kind_line(reason, files.len(), verbose));
            if verbose {
                for (path, why) in files {
                    let _ = writeln!(
                        out,
                        "    {}: {}",
                        crate::sanitize::line(path),
                        crate::sanitize::line(why)
                    );
                }
            }
        }
    }
    let _ = writeln!(out);
    let mut table = crate::report::Rows::with_titles(COLUMNS.iter().chain(&["AVAILABLE", "KNOB"]));
    // A group of identical rows is printed once (SPEC §9a); `-v` prints
    // every row.
    for i in (0..c.rows.len()).filter(|&i| verbose || c.rows[i].same_as.is_none()) {
        table.push(text_cells(c, i, verbose));
    }
    out.push_str(&crate::report::table(
        &table,
        &[true, false, true, true, true, true, true, true, true],
    ));
    if !verbose {
        for (i, r) in c.rows.iter().enumerate() {
            let group = rank::members(&c.rows, i);
            if r.same_as.is_none() && rank::group_kinds(&c.rows, &group).len() > 1 {
                let _ = writeln!(
                    out,
                    "rows {i}–{}: {}",
                    group[group.len() - 1],
                    rank::group_words(&c.rows, &group)
                );
            }
        }
    }
    // SPEC §15.6: a delivery asked for under auto that a session's request
    // does not take, as `plan` refuses it.
    for (setting, why) in &c.left_out {
        let _ = writeln!(
            out,
            "left out: {}: {}",
            crate::sanitize::line(setting),
            crate::sanitize::line(why)
        );
    }
    let _ = writeln!(out);
    // SPEC §16.H: over sessions of several harnesses, one line each.
    if c.recommended_by_harness.len() > 1 {
        for (h, r, n, m) in &c.recommended_by_harness {
            let words = recommendation_for(c, *r, *m, &|row: &Row| row.params.preset == *h);
            let _ = writeln!(
                out,
                "{} ({n} session{}): {words}",
                h.rules().title,
                if *n == 1 { "" } else { "s" }
            );
        }
    } else {
        let _ = writeln!(out, "{}", recommendation_words(c));
    }
    // SPEC §16.L, §18.24: what a user can really change, from the records.
    let levers = crate::bill::report::lever_words(&c.levers);
    if !levers.is_empty() {
        let _ = writeln!(out, "Levers in the records: {}.", levers.join("; "));
    }
    let unknown = c.sessions.iter().filter(|s| s.price.is_none()).count();
    // SPEC §18.5: an unpriced session never blanks the others' dollars.
    if unknown > 0 && unknown == c.sessions.len() {
        let _ = writeln!(
            out,
            "Dollars are unknown (?) for rows over {}.",
            match unknown {
                1 => "a session without a price".to_string(),
                n => format!("{n} sessions without a price"),
            }
        );
    } else if unknown > 0 {
        let u = c.unpriced();
        let _ = writeln!(
            out,
            "Dollars leave out {} response{} of {} unpriced (give --price-* or a [prices] row).",
            u.responses,
            if u.responses == 1 { "" } else { "s" },
            crate::sanitize::joined(&u.models, ", ")
        );
    }
    // A folder names its unpriced sessions on their kind's line (`-v`), not
    // here; every other caveat of the table is said (SPEC §9a).
    for (id, text) in c
        .caveats
        .iter()
        .filter(|(id, _)| verbose || !folder || id != "price_unknown")
    {
        if id.starts_with("price") {
            let _ = writeln!(out, "note: {text}");
        } else {
            let _ = writeln!(out, "caveat {id}: {text}");
        }
    }
    let _ = writeln!(
        out,
        "Δ USD is the cost change against no clearing (negative: a saving); WARM BREAKS count cache-prefix breaks while the cache was alive; LATER USED counts cleared results the model reached for again; AVAILABLE says who can set a row (user: your settings, KNOB the keys and values; remote_flag: the harness decides remotely; internal: internal builds only; what_if: no build has it here)."
    );
    if let Some(base) = c.rows.first().filter(|r| r.baseline) {
        // SPEC §9a: what the baseline is, and the bill under each setting.
        let recorded = c.recorded();
        let _ = writeln!(
            out,
            "Row 0 is the baseline, what happened: the clearing the transcript's records prove the harness made (plan kind recorded), never recommended.{}",
            match (recorded.usd, base.delta_usd) {
                // No recorded usage: no bill to start the estimate from.
                _ if recorded.main.responses == 0 => String::new(),
                (Some(usd), Some(_)) => format!(
                    " A row's estimated bill (JSON estimated_usd) is the recorded ${usd:.2} − row 0's Δ + its own Δ."
                ),
                _ => String::new(),
            }
        );
    }
    out
}

/// Row `i`'s cells in the text table: [`row_cells`], then who can set it and
/// how; the first row of a group stands for it (`4–7`, its words say which
/// parameters differ) unless `each` row is printed.
fn text_cells(c: &Comparison, i: usize, each: bool) -> Vec<String> {
    let rows = &c.rows;
    let group = if each {
        vec![i]
    } else {
        rank::members(rows, i)
    };
    let mut cells = row_cells(c, i);
    let availability = |r: &Row| r.availability.map_or("-", Availability::name);
    if group.len() > 1 {
        let last = group[group.len() - 1];
        let mark = if c.recommended.is_some_and(|r| group.contains(&r)) {
            "*"
        } else {
            ""
        };
        cells[0] = format!("{i}–{last}{mark}");
        cells[1] = match rank::group_kinds(rows, &group) {
            // Settings of several kinds: named under the table.
            kinds if kinds.len() > 1 => format!(
                "{} settings ({}): identical, listed below",
                group.len(),
                kinds.join(", ")
            ),
            _ => rank::group_words(rows, &group),
        };
    }
    let mut shown: Vec<&str> = Vec::new();
    for &j in &group {
        if !shown.contains(&availability(&rows[j])) {
            shown.push(availability(&rows[j]));
        }
    }
    cells.push(shown.join("/"));
    cells.push(group_knob(rows, &group));
    cells
}

/// The knob of a group: each key once, its values joined by `|` where the
/// members differ.
fn group_knob(rows: &[Row], group: &[usize]) -> String {
    let knobs: Vec<&Option<serde_json::Value>> = group.iter().map(|&j| &rows[j].knob).collect();
    if knobs.iter().all(|k| *k == knobs[0]) {
        return avail::knob_words(knobs[0]);
    }
    let Some(first) = knobs[0] else {
        return "(differs)".into();
    };
    let (prefix, keys) = avail::knob_pairs(first);
    let pairs: Vec<String> = keys
        .iter()
        .map(|(key, _)| {
            let mut values: Vec<String> = Vec::new();
            for k in &knobs {
                let v = k
                    .as_ref()
                    .and_then(|k| {
                        let (_, pairs) = avail::knob_pairs(k);
                        pairs.into_iter().find(|(x, _)| x == key).map(|(_, v)| v)
                    })
                    .unwrap_or_else(|| "-".into());
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            format!("{key}={}", values.join("|"))
        })
        .collect();
    format!("{prefix}{}", pairs.join(" "))
}

/// The recommendation in words (SPEC §9a).
pub(crate) fn recommendation_words(c: &Comparison) -> String {
    recommendation_for(c, c.recommended, c.median_later_used, &|_| true)
}

/// The recommendation `i` (with the median it read) in words, the cheapest
/// row among those `keep` admits where there is none.
fn recommendation_for(
    c: &Comparison,
    recommended: Option<usize>,
    median: Option<u64>,
    keep: &dyn Fn(&Row) -> bool,
) -> String {
    use crate::numbers::fmt_int;
    let Some(i) = recommended else {
        let cheapest = c
            .rows
            .iter()
            .position(|r| !r.baseline && r.delta_usd.is_some() && keep(r));
        let cheapest = match cheapest {
            Some(j) => {
                let r = &c.rows[j];
                format!(
                    "the cheapest row, {j} ({} {}, {}), has Δ {} USD",
                    r.params.preset_name(),
                    r.params.words(),
                    r.availability.map_or("-", Availability::name),
                    usd_text(r.delta_usd)
                )
            }
            None => "no row has dollars: the model has no price; give --price-*".into(),
        };
        return format!(
            "Recommended: none — no clearing recommended: no setting you can use saves money here ({cheapest})."
        );
    };
    let r = &c.rows[i];
    let how = match r.availability {
        Some(Availability::User) => match &r.knob {
            Some(k) if r.params.kind.is_api() => {
                format!(" Set it in each request: {k}.")
            }
            Some(k) => format!(
                " Set it in {}: {k}.",
                r.params.preset.asks().settings_file()
            ),
            None => r
                .params
                .preset
                .asks()
                .by_hand(r.params.kind)
                .map_or(String::new(), |cmd| format!(" Run it yourself: {cmd}.")),
        },
        _ => format!(
            " This is a what-if: {}'s settings are remote flags, not yours to set.",
            r.params.preset.rules().title
        ),
    };
    format!(
        "Recommended: row {i} ({} {}, {}): of the settings {} that fire and save money, the first whose cleared results were reached for again no more often than their median ({}) (Δ {} USD, later used {}, {} tokens not sent, {} cache breaks while warm).{how}",
        r.params.preset_name(),
        r.params.words(),
        r.availability.map_or("-", Availability::name),
        match r.availability {
            Some(Availability::User) => "you can set",
            _ => "the harness can run (remote flags)",
        },
        median.unwrap_or(0),
        usd_text(r.delta_usd),
        r.totals.later_used,
        fmt_int(r.totals.tokens_not_sent),
        r.totals.cache_breaks,
    )
}

/// One compared session: its harness, model, requests and price.
fn session_line(s: &SessionInfo) -> String {
    let price = match &s.price {
        Some(p) => format!(
            "prices of {} (per Mtok: write 5m {}, 1h {}, read {})",
            p.prefix, p.write_5m, p.write_1h, p.read
        ),
        None => "no price: dollars unknown".into(),
    };
    format!(
        "{} ({}, {}, {} requests): {}",
        crate::sanitize::line(&s.path),
        s.harness.name(),
        crate::sanitize::line(s.model.as_deref().unwrap_or("model unknown")),
        s.requests,
        price
    )
}

/// The line of one kind: `skipped 2 files (empty)`, `1 session without a
/// price (unpriced): its dollars are unknown`.
pub(crate) fn kind_line(reason: &str, n: usize, verbose: bool) -> String {
    let list = if verbose { "" } else { " (-v lists them)" };
    match (reason, n) {
        ("unpriced", 1) => {
            format!("1 session without a price (unpriced): its dollars are unknown{list}")
        }
        ("unpriced", n) => {
            format!("{n} sessions without a price (unpriced): their dollars are unknown{list}")
        }
        (r, 1) => format!("skipped 1 file ({r}){list}"),
        (r, n) => format!("skipped {n} files ({r}){list}"),
    }
}

/// The files of each kind of skipped or unpriced session (SPEC §9a), kinds in
/// the order they first occur, unpriced last: `(reason, [(path, why)])`.
pub(crate) fn skip_kinds(c: &Comparison) -> Vec<(&str, Vec<(&str, &str)>)> {
    let mut kinds: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
    let unpriced = c.sessions.iter().filter(|s| s.price.is_none()).map(|s| {
        (
            "unpriced",
            s.path.as_str(),
            "no price for its model: its rows' dollars are unknown (its tokens are compared)",
        )
    });
    let skipped = c
        .skipped
        .iter()
        .map(|s| (s.reason, s.path.as_str(), s.why.as_str()));
    for (reason, path, why) in skipped.chain(unpriced) {
        match kinds.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, files)) => files.push((path, why)),
            None => kinds.push((reason, vec![(path, why)])),
        }
    }
    kinds
}
