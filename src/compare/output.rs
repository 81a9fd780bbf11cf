//! A comparison as JSON (schema `mcscope.compare/1`) and as a text table.

use super::*;
use serde::Serialize;

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
    cache_ttl: &'static str,
    caveats: Vec<CaveatJson<'a>>,
    rows: Vec<RowJson<'a>>,
    recommended: Option<usize>,
    skipped: Vec<SkippedJson<'a>>,
}

/// One compared session.
#[derive(Serialize)]
struct SessionJson<'a> {
    path: &'a str,
    harness: Harness,
    model: &'a Option<String>,
    requests: usize,
    price: Option<&'a Price>,
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
    per_session: Vec<PerSessionJson<'a>>,
}

#[derive(Serialize)]
struct PerSessionJson<'a> {
    path: &'a str,
    #[serde(flatten)]
    totals: TotalsJson,
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
            })
            .collect(),
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
                per_session: r
                    .per_session
                    .iter()
                    .map(|p| PerSessionJson {
                        path: &p.path,
                        totals: totals_json(&p.totals, p.delta_usd),
                    })
                    .collect(),
            })
            .collect(),
        recommended: c.recommended,
        skipped: c
            .skipped
            .iter()
            .map(|s| SkippedJson {
                path: &s.path,
                reason: s.reason,
                why: &s.why,
            })
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
pub(crate) fn text(c: &Comparison) -> String {
    use crate::numbers::fmt_int;
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
            crate::sanitize::line(&s.path),
            s.harness.name(),
            crate::sanitize::line(s.model.as_deref().unwrap_or("model unknown")),
            s.requests,
            price
        );
    }
    for s in &c.skipped {
        let _ = writeln!(
            out,
            "  skipped {}: {}",
            crate::sanitize::line(&s.path),
            crate::sanitize::line(&s.why)
        );
    }
    if !c.skipped.is_empty() {
        let _ = writeln!(
            out,
            "  skipped {} file(s): {}",
            c.skipped.len(),
            skip_counts(c)
        );
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
            crate::sanitize::joined(unknown, ", ")
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

/// How many files each reason skipped, in the order the reasons first occur:
/// `1 not_regular, 2 empty`.
fn skip_counts(c: &Comparison) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in &c.skipped {
        match counts.iter_mut().find(|(r, _)| *r == s.reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((s.reason, 1)),
        }
    }
    counts
        .iter()
        .map(|(r, n)| format!("{n} {r}"))
        .collect::<Vec<_>>()
        .join(", ")
}
