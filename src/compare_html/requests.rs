//! What the page shows of what really happened (SPEC §9a, issue #24 item 6):
//! the recorded bill at the top, the evidence marks on the chart at their
//! requests (`!` observed breaks with their explanation, `◇` boundary records
//! with their ids and whether they agree, `^` compactions) and, under the
//! chart, a row per request. Every transcript byte is escaped.

use super::{Curve, escape};
use crate::analysis::Setup;
use crate::numbers::fmt_int;
use std::fmt::Write as _;

/// A `microcompact_boundary` record at a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Boundary {
    pub ids: Vec<String>,
    pub agrees: Option<bool>,
    /// The comparison in words (`agrees`, or what is missing and extra).
    pub words: String,
}

/// One request as the transcript records it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RequestRow {
    pub k: usize,
    pub at: Option<String>,
    /// P(k); None without usage.
    pub prompt: Option<u64>,
    pub hit_rate: Option<f64>,
    /// `recorded_cleared` (how many ids) and `recorded_cleared_tokens`.
    pub recorded_ids: usize,
    pub recorded_tokens: u64,
    /// The observed break: the drop in cache reads and its explanations, in
    /// the session's harness's words.
    pub observed: Option<(u64, Vec<&'static str>)>,
    pub boundaries: Vec<Boundary>,
    /// A compaction came before it (a new view segment, or the server's).
    pub compaction: bool,
}

impl RequestRow {
    fn explanation(&self) -> Option<String> {
        let (drop, why) = self.observed.as_ref()?;
        Some(format!(
            "cache break: {} tokens fewer read than expected; {}",
            fmt_int(*drop),
            why.join("; ")
        ))
    }

    fn boundary_words(&self) -> Vec<String> {
        self.boundaries
            .iter()
            .map(|b| {
                format!(
                    "boundary record naming {} [{}]: {}",
                    match b.ids.len() {
                        1 => "1 id".to_string(),
                        n => format!("{n} ids"),
                    },
                    crate::sanitize::joined(&b.ids, ", "),
                    match b.agrees {
                        None => "not compared".to_string(),
                        Some(_) => b.words.clone(),
                    }
                )
            })
            .collect()
    }
}

/// Every request of the session, with the evidence as `mcscope evidence`
/// reports it beside the session's own setting.
pub(crate) fn rows(setup: &Setup) -> Vec<RequestRow> {
    let s = &setup.session;
    let ev = crate::analysis::evidence_report(setup, setup.last_request()).evidence;
    let cleared = crate::series::recorded_cleared_all(s);
    s.requests
        .iter()
        .enumerate()
        .map(|(i, req)| {
            let k = i + 1;
            let e = ev.requests.get(i);
            let boundaries = e
                .into_iter()
                .flat_map(|e| e.microcompact.as_deref().into_iter().chain(&e.compactions))
                .map(|m| Boundary {
                    ids: m.compacted_tool_ids.clone(),
                    agrees: m.comparison.as_ref().and_then(|c| c.agrees),
                    words: m
                        .comparison
                        .as_ref()
                        .map_or_else(|| "not compared".into(), |c| c.words()),
                })
                .collect();
            let rc = cleared.get(i).cloned().unwrap_or_default();
            RequestRow {
                k,
                at: req.at.clone(),
                prompt: s.recorded_prompt(k),
                hit_rate: crate::series::hit_rate(s, k),
                recorded_ids: rc.ids.len(),
                recorded_tokens: rc.tokens,
                observed: e.and_then(|e| e.observed_break.as_ref()).map(|b| {
                    let why = b.explanations();
                    (b.drop(), why.iter().map(|x| x.words(s.harness)).collect())
                }),
                boundaries,
                compaction: s.compacted_before(i)
                    || req
                        .response
                        .and_then(|m| s.messages[m].usage.as_ref())
                        .is_some_and(|u| u.server_compaction),
            }
        })
        .collect()
}

/// The marks on the chart: for each request with evidence, a dashed line at
/// its x and a labelled glyph in its lane at the top (`!` breaks, `◇`
/// boundary records, `^` compactions), the details in a tooltip.
pub(crate) fn marks(
    rows: &[RequestRow],
    x: &dyn Fn(usize) -> f64,
    top: f64,
    bottom: f64,
) -> String {
    let mut o = String::new();
    for r in rows {
        let mut lanes: Vec<(&str, &str, Vec<String>)> = Vec::new();
        if let Some(e) = r.explanation() {
            lanes.push(("observed-break", "!", vec![e]));
        }
        if !r.boundaries.is_empty() {
            lanes.push(("boundary", "◇", r.boundary_words()));
        }
        if r.compaction {
            lanes.push((
                "compaction",
                "^",
                vec!["the conversation was compacted before this request".into()],
            ));
        }
        for (class, glyph, words) in lanes {
            let lane = match class {
                "observed-break" => 0.0,
                "boundary" => 1.0,
                _ => 2.0,
            };
            let cx = x(r.k);
            // A label at an edge of the plot stays inside it.
            let anchor = if cx > super::W - super::RIGHT - 40.0 {
                "end"
            } else if cx < super::LEFT + 40.0 {
                "start"
            } else {
                "middle"
            };
            let agrees = match (class, r.boundaries.iter().all(|b| b.agrees == Some(true))) {
                ("boundary", true) => " agrees",
                ("boundary", false) => " differs",
                _ => "",
            };
            let _ = writeln!(
                o,
                "<g class=\"mark {class}\" data-k=\"{}\"><line class=\"mark-line\" x1=\"{cx:.1}\" y1=\"{top:.1}\" x2=\"{cx:.1}\" y2=\"{bottom:.1}\"/><text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{glyph} {}{agrees}</text><title>request {}: {}</title></g>",
                r.k,
                top + 12.0 + lane * 13.0,
                r.k,
                r.k,
                escape(&words.join(" · "))
            );
        }
    }
    o
}

/// The recorded bill at the top of the page: the line text prints, then the
/// main thread's and the sub-agents' tokens side by side.
pub(crate) fn bill(recorded: &crate::bill::Recorded) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<p class=\"bill\" id=\"recorded\"><b>{}</b></p>",
        escape(&recorded.words())
    );
    if recorded.main.responses == 0 && recorded.subagents.is_none() {
        return o;
    }
    let dollars = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("${x:.2}"));
    let rate = |t: &crate::bill::Tally| {
        t.hit_rate()
            .map_or("?".to_string(), |r| format!("{:.1} %", r * 100.0))
    };
    let _ = writeln!(
        o,
        "<table id=\"bill\"><thead><tr><th class=\"setting\"></th><th>responses</th><th>input</th><th>output</th><th>cache write 5m</th><th>cache write 1h</th><th>cache read</th><th>hit rate</th><th>USD</th></tr></thead><tbody>"
    );
    let mut line = |name: &str, t: &crate::bill::Tally, usd: Option<f64>| {
        let _ = writeln!(
            o,
            "<tr data-bill=\"{name}\"><td class=\"setting\">{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            fmt_int(t.responses),
            fmt_int(t.input),
            fmt_int(t.output),
            fmt_int(t.cache_write_5m),
            fmt_int(t.cache_write_1h),
            fmt_int(t.cache_read),
            rate(t),
            dollars(usd)
        );
    };
    line("main thread", &recorded.main, recorded.usd);
    if let Some((t, usd)) = &recorded.subagents {
        line("sub-agents", t, *usd);
    }
    let _ = writeln!(o, "</tbody></table>");
    o
}

/// Longer than this, the per-request table is folded.
const FOLD: usize = 40;

/// The table under the chart: a row per request with what the transcript
/// records and what `curve` (the recommended setting, else the current one)
/// would have cleared there.
pub(crate) fn table(rows: &[RequestRow], curve: &Curve, which: &str) -> String {
    let mut o = String::new();
    let head = format!(
        "Per request: what was recorded, and what the {which} setting ({}) would have cleared",
        escape(&curve.words)
    );
    let long = rows.len() > FOLD;
    if long {
        let _ = writeln!(
            o,
            "<details id=\"per-request\"><summary>{head} — {} requests</summary>",
            rows.len()
        );
    } else {
        let _ = writeln!(o, "<h2 id=\"per-request\">{head}</h2>");
    }
    let _ = writeln!(
        o,
        "<table id=\"requests\"><thead><tr><th>request</th><th class=\"setting\">time</th><th>recorded prompt</th><th>hit rate</th><th>recorded clearing</th><th>{which} setting's clearing</th><th class=\"setting\">break, records</th></tr></thead><tbody>"
    );
    for r in rows {
        let p = curve.points.iter().find(|p| p.k == r.k);
        let recorded = match (r.recorded_ids, r.recorded_tokens) {
            (0, 0) => "-".to_string(),
            (0, t) => format!("{} tokens", fmt_int(t)),
            (n, t) => format!("{n} results, {} tokens", fmt_int(t)),
        };
        let sim = match p {
            Some(p) if p.in_wire > 0 || p.fired => format!(
                "{}{} tokens",
                if p.fired { "▲ " } else { "" },
                fmt_int(p.in_wire)
            ),
            _ => "-".into(),
        };
        let mut notes: Vec<String> = Vec::new();
        if let Some(e) = r.explanation() {
            notes.push(format!("! {e}"));
        }
        notes.extend(r.boundary_words().into_iter().map(|b| format!("◇ {b}")));
        if r.compaction {
            notes.push("^ compacted before this request".into());
        }
        let _ = writeln!(
            o,
            "<tr data-k=\"{}\"{}><td>{}</td><td class=\"setting\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"setting notes\">{}</td></tr>",
            r.k,
            if r.observed.is_some() {
                " class=\"observed-break\""
            } else {
                ""
            },
            r.k,
            // In the display zone (`-z`, else the system's), as every text shows it.
            escape(&crate::sanitize::line(
                &r.at.as_deref().map_or("-".into(), crate::zone::local)
            )),
            r.prompt.map_or("-".into(), fmt_int),
            r.hit_rate
                .map_or("-".into(), |h| format!("{:.1} %", h * 100.0)),
            recorded,
            sim,
            escape(&crate::sanitize::line(&notes.join(" · ")))
        );
    }
    let _ = writeln!(o, "</tbody></table>");
    if long {
        let _ = writeln!(o, "</details>");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(k: usize) -> RequestRow {
        RequestRow {
            k,
            prompt: Some(1000),
            ..Default::default()
        }
    }

    /// Issue #24 item 6: the marks are labelled at their requests, the
    /// transcript's ids escaped.
    #[test]
    fn marks_are_labelled_at_their_requests_and_escaped() {
        let mut a = row(2);
        a.observed = Some((
            5000,
            vec![crate::evidence::Explanation::Ttl.words(crate::vocab::HarnessId::Claude)],
        ));
        let mut b = row(3);
        b.boundaries.push(Boundary {
            ids: vec!["toolu_<x>".into()],
            agrees: Some(true),
            words: "agrees".into(),
        });
        b.compaction = true;
        let svg = marks(&[row(1), a, b], &|k| k as f64 * 10.0, 30.0, 300.0);
        assert_eq!(svg.matches("<g class=\"mark").count(), 3);
        assert!(svg.contains("class=\"mark observed-break\" data-k=\"2\""));
        assert!(svg.contains(">! 2</text><title>request 2: cache break: 5,000 tokens fewer read than expected; the cache had expired"));
        assert!(svg.contains(">◇ 3 agrees</text>"));
        assert!(svg.contains("[toolu_&lt;x&gt;]: agrees"));
        assert!(svg.contains("class=\"mark compaction\" data-k=\"3\""));
    }

    /// A long session's table is folded.
    #[test]
    fn a_long_table_is_folded() {
        let curve = Curve {
            words: "claude idle keep 1".into(),
            points: Vec::new(),
            contexts: Vec::new(),
        };
        let short: Vec<RequestRow> = (1..=3).map(row).collect();
        let t = table(&short, &curve, "recommended");
        assert!(!t.contains("<details"));
        assert_eq!(t.matches("<tr data-k=").count(), 3);
        let long: Vec<RequestRow> = (1..=FOLD + 1).map(row).collect();
        let t = table(&long, &curve, "recommended");
        assert!(t.starts_with("<details id=\"per-request\">"));
        assert_eq!(t.matches("<tr data-k=").count(), FOLD + 1);
    }
}
