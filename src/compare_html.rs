//! `mcscope compare PATH --format html`: one self-contained page (no network,
//! no JavaScript) with the table of settings and, for one session, the chart of
//! recorded vs simulated context per request (SPEC §9) for the current setting
//! and the recommended one, as inline SVG written here.

mod context;
mod requests;

use crate::analysis::Setup;
use crate::compare::{self, Comparison};
use crate::context::Context;
use crate::numbers::fmt_int;
use crate::page_paths::PageNames;
use crate::policy::Policy;
use crate::series::Point;
use crate::totals::SessionFacts;
use std::fmt::Write as _;

/// One setting's line on the chart: its words and its points.
#[derive(Debug, Clone)]
pub(crate) struct Curve {
    pub words: String,
    pub points: Vec<Point>,
    /// What fills the window at each request (SPEC §12 `context`).
    pub contexts: Vec<Context>,
}

/// The chart of one session: the current setting and the recommended one.
#[derive(Debug, Clone)]
pub(crate) struct Charts {
    pub current: Curve,
    pub recommended: Option<Curve>,
    /// Every request as the transcript records it, with its evidence.
    pub requests: Vec<requests::RequestRow>,
}

/// The chart of a loaded session: its own setting and the comparison's
/// recommended row.
pub(crate) fn charts(setup: &Setup, c: &Comparison) -> Result<Charts, String> {
    let facts = SessionFacts::new(&setup.session, c.cache_ttl);
    let curve = |policy: Policy, words: String| -> Result<Curve, String> {
        let mut one = setup.clone();
        one.policy = policy;
        let series = crate::series::series(&one, &facts).map_err(|e| e.to_string())?;
        Ok(Curve {
            words,
            points: series.points,
            contexts: series.contexts,
        })
    };
    let name = |r: &compare::Row| format!("{} {}", r.params.preset.name(), r.params.words());
    // The current setting in the table's words when it is one of the rows.
    let words = c
        .rows
        .iter()
        .find(|r| r.params.apply(&setup.policy) == setup.policy)
        .map(name)
        .unwrap_or_else(|| {
            let p = compare::Params::of(&setup.policy);
            format!("{} {}", p.preset.name(), p.words())
        });
    let current = curve(setup.policy.clone(), words)?;
    let recommended = match c.recommended {
        Some(i) => {
            let r = &c.rows[i];
            Some(curve(r.params.apply(&setup.policy), name(r))?)
        }
        None => None,
    };
    Ok(Charts {
        current,
        recommended,
        requests: requests::rows(setup),
    })
}

pub(crate) use crate::sanitize::html_escape as escape;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1b1b1b;background:#fff;max-width:1200px}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.4em 0 .4em}
p,li{line-height:1.45}.muted{color:#666}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.92em}
th,td{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:right;white-space:nowrap}
th{background:#f4f4f4;position:sticky;top:0}td.setting,th.setting{text-align:left}
tr.recommended td{background:#e8f6ec;font-weight:600}tr.baseline td{background:#eef3fb;font-style:italic}tr.current td{outline:1px solid #2f7ed8}
svg{max-width:100%;height:auto;border:1px solid #e3e3e3;background:#fcfcfc}
svg text{font-family:system-ui,sans-serif;font-size:12px;fill:#333}
.recorded{stroke:#2f7ed8;fill:none;stroke-width:1.5}.sim-current{stroke:#1e9e4a;fill:none;stroke-width:1.5}
.sim-recommended{stroke:#b43cb4;fill:none;stroke-width:1.5;stroke-dasharray:5 3}
circle.pt{stroke:none}circle.recorded{fill:#2f7ed8}circle.sim-current{fill:#1e9e4a}circle.sim-recommended{fill:#b43cb4}
path.fired{fill:#e0a800;stroke:none}path.break{stroke:#d62828;stroke-width:2;fill:none}
.axis{stroke:#888;stroke-width:1}
.legend{font-size:.9em}.key{display:inline-block;width:22px;height:0;border-top:3px solid;margin:0 6px 3px 14px;vertical-align:middle}
.legend .key:first-child{margin-left:0}
g.mark line{stroke-dasharray:2 3;stroke-width:1}g.observed-break line{stroke:#d62828}g.observed-break text,b.observed-break{fill:#d62828;color:#d62828;font-weight:700}
g.boundary line{stroke:#6a4c93}g.boundary text,b.boundary{fill:#6a4c93;color:#6a4c93}g.compaction line{stroke:#c05621}g.compaction text,b.compaction{fill:#c05621;color:#c05621}
#requests td.notes{white-space:normal;max-width:420px;overflow-wrap:anywhere;text-align:left}tr.observed-break td{background:#fdecec}
polyline.recorded{stroke-width:2.5}path.ctx-area{stroke:#fff;stroke-width:.5}.swatch{display:inline-block;width:12px;height:12px;margin:0 4px -1px 12px}";

/// The page, naming sessions as `names` says (a page is meant to be shared:
/// no absolute path unless asked, SPEC §15.20).
pub(crate) fn html(c: &Comparison, charts: Option<&Charts>, names: &PageNames) -> String {
    let c = &named(c, names);
    let mut o = String::new();
    let title = match c.sessions.as_slice() {
        [one] => one.path.clone(),
        many => format!("{} sessions", many.len()),
    };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>mcscope compare — {}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(o, "<h1>mcscope compare — {}</h1>", escape(&title));
    // SPEC §9a: the recorded bill first, the sub-agents' beside it.
    o.push_str(&requests::bill(&c.recorded()));
    let _ = writeln!(o, "<ul class=\"sessions\">");
    for s in &c.sessions {
        let price = match &s.price {
            Some(p) => format!(
                "prices of {} (USD per million tokens: write 5m {}, 1h {}, read {})",
                p.prefix, p.write_5m, p.write_1h, p.read
            ),
            None => "no price: dollars unknown".into(),
        };
        let _ = writeln!(
            o,
            "<li>{} ({}, {}, {} requests): {}</li>",
            escape(&s.path),
            s.harness.name(),
            escape(s.model.as_deref().unwrap_or("model unknown")),
            s.requests,
            escape(&price)
        );
    }
    // One line per kind of skipped or unpriced session, with a count, and
    // each under it (a page is read, not scrolled past).
    for (reason, files) in compare::skip_kinds(c) {
        let _ = writeln!(
            o,
            "<li class=\"muted\">{}<ul>",
            escape(&compare::kind_line(reason, files.len(), true))
        );
        for (path, why) in files {
            let _ = writeln!(o, "<li>{}: {}</li>", escape(path), escape(why));
        }
        let _ = writeln!(o, "</ul></li>");
    }
    let _ = writeln!(o, "</ul><p>Cache TTL: {}.</p>", c.cache_ttl.name());
    match charts {
        Some(ch) => {
            let _ = writeln!(
                o,
                "<h2>Context per request: recorded vs simulated</h2>\n<p>Simulated context = the recorded prompt size P(k) + what the harness had already kept out of it (<code>recorded_cleared_tokens</code>) − the tokens the setting keeps out of the wire at k (<code>in_wire_tokens</code>): an estimate. Current setting: <b>{}</b>; recommended: <b>{}</b>.</p>",
                escape(&ch.current.words),
                escape(ch.recommended.as_ref().map_or("none", |r| r.words.as_str()))
            );
            o.push_str(&svg(ch));
            let _ = writeln!(
                o,
                "<p class=\"legend\"><span class=\"key\" style=\"border-color:#2f7ed8\"></span>recorded P(k) \
                 <span class=\"key\" style=\"border-color:#1e9e4a\"></span>simulated, current: {} \
                 <span class=\"key\" style=\"border-color:#b43cb4;border-top-style:dashed\"></span>simulated, recommended: {} \
                 <span style=\"color:#e0a800\">▲</span> the plan fired \
                 <span style=\"color:#d62828\">✕</span> the simulated cache prefix broke \
                 <b class=\"observed-break\">!</b> an observed cache break (recorded) \
                 <b class=\"boundary\">◇</b> a boundary record (recorded: its ids, and whether the setting's clearing agrees) \
                 <b class=\"compaction\">^</b> a compaction</p>",
                escape(&ch.current.words),
                escape(ch.recommended.as_ref().map_or("none", |r| r.words.as_str()))
            );
            let (rec, which) = match &ch.recommended {
                Some(r) => (r, "recommended"),
                None => (&ch.current, "current"),
            };
            o.push_str(&requests::table(&ch.requests, rec, which));
            o.push_str(&context::context_section(ch));
        }
        None => {
            let _ = writeln!(
                o,
                "<p class=\"muted\">The per-request chart is drawn for one session; this page compares {} sessions.</p>",
                c.sessions.len()
            );
        }
    }
    let _ = writeln!(o, "<h2>Settings ({} rows)</h2>", c.rows.len());
    let _ = write!(o, "<table id=\"settings\"><thead><tr>");
    for (j, h) in compare::COLUMNS.iter().enumerate() {
        let class = if j == 1 { " class=\"setting\"" } else { "" };
        let _ = write!(o, "<th{class}>{}</th>", escape(h));
    }
    // SPEC §9a: who can set each row and how; §15.15 its group.
    let _ = write!(
        o,
        "<th class=\"setting\">AVAILABLE</th><th class=\"setting\">KNOB</th><th>SAME AS</th>"
    );
    let _ = writeln!(o, "</tr></thead><tbody>");
    let current = charts.map(|ch| ch.current.words.as_str());
    for i in 0..c.rows.len() {
        let cells = compare::row_cells(c, i);
        let mut class = Vec::new();
        if Some(i) == c.recommended {
            class.push("recommended");
        }
        // SPEC §9a: the baseline row, what happened, set apart.
        if c.rows[i].baseline {
            class.push("baseline");
        }
        if current == Some(cells[1].as_str()) {
            class.push("current");
        }
        let _ = write!(o, "<tr data-row=\"{i}\" class=\"{}\">", class.join(" "));
        for (j, cell) in cells.iter().enumerate() {
            let class = if j == 1 { " class=\"setting\"" } else { "" };
            let _ = write!(o, "<td{class}>{}</td>", escape(cell));
        }
        let r = &c.rows[i];
        let _ = write!(
            o,
            "<td class=\"setting availability\">{}</td><td class=\"setting knob\">{}</td><td class=\"same-as\">{}</td>",
            r.availability.map_or("-", |a| a.name()),
            escape(&r.knob.as_ref().map_or("-".into(), |k| k.to_string())),
            r.same_as.map_or(String::new(), |j| j.to_string())
        );
        let _ = writeln!(o, "</tr>");
    }
    let _ = writeln!(o, "</tbody></table>");
    // The text form's notes: the recommendation in words, unknown dollars, prices.
    let text = compare::text(c, false);
    let notes = text
        .lines()
        .skip_while(|l| !(l.starts_with("Recommended:") || l.starts_with("No recommendation")));
    for l in notes {
        let _ = writeln!(o, "<p>{}</p>", escape(l));
    }
    let _ = writeln!(
        o,
        "<p class=\"muted\">Made by mcscope {} (<code>mcscope compare --format html</code>); the same rows as <code>--format json</code>.</p>\n</body></html>",
        env!("CARGO_PKG_VERSION")
    );
    o
}

/// The comparison with every session path renamed for the page (the list,
/// the skipped files, the rows' shares and the notes all read these).
fn named(c: &Comparison, names: &PageNames) -> Comparison {
    let mut c = c.clone();
    for s in &mut c.sessions {
        s.path = names.name(&s.path);
    }
    for s in &mut c.skipped {
        s.path = names.name(&s.path);
    }
    for r in &mut c.rows {
        for s in &mut r.per_session {
            s.path = names.name(&s.path);
        }
    }
    c
}

const W: f64 = 960.0;
const H: f64 = 380.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 50.0;

/// The chart as inline SVG: one polyline and one point per request for the
/// recorded context and each setting's simulated one; ▲ where a setting fired,
/// ✕ where its simulated cache prefix broke.
pub(crate) fn svg(ch: &Charts) -> String {
    let n = ch.current.points.len().max(1);
    let curves: Vec<(&str, &Curve)> = std::iter::once(("sim-current", &ch.current))
        .chain(ch.recommended.as_ref().map(|r| ("sim-recommended", r)))
        .collect();
    let recorded: Vec<(usize, u64)> = ch
        .current
        .points
        .iter()
        .filter_map(|p| p.recorded.map(|r| (p.k, r)))
        .collect();
    let values = recorded.iter().map(|&(_, v)| v).chain(
        curves
            .iter()
            .flat_map(|(_, c)| c.points.iter().filter_map(Point::simulated)),
    );
    let (lo, hi) = values.fold((u64::MAX, 0u64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo > hi {
        (0, 1)
    } else {
        (lo, hi.max(lo + 1))
    };
    let pad = ((hi - lo) as f64 * 0.05).max(1.0);
    let (ylo, yhi) = ((lo as f64 - pad).max(0.0), hi as f64 + pad);
    let x = |k: usize| {
        if n <= 1 {
            LEFT + (W - LEFT - RIGHT) / 2.0
        } else {
            LEFT + (k - 1) as f64 * (W - LEFT - RIGHT) / (n - 1) as f64
        }
    };
    let y = |v: u64| TOP + (yhi - v as f64) * (H - TOP - BOTTOM) / (yhi - ylo);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"recorded vs simulated context tokens per request\">"
    );
    // Axes and their labels.
    let (x0, x1, y0, y1) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
    let _ = writeln!(
        o,
        "<line class=\"axis\" x1=\"{x0}\" y1=\"{y1}\" x2=\"{x1}\" y2=\"{y1}\"/><line class=\"axis\" x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\"/>"
    );
    for v in [ylo, (ylo + yhi) / 2.0, yhi] {
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y(v as u64) + 4.0,
            fmt_int(v as u64)
        );
    }
    for k in [1, n.div_ceil(2).max(1), n] {
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{k}</text>",
            x(k),
            H - BOTTOM + 18.0
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">request</text><text x=\"{LEFT}\" y=\"{:.1}\">tokens</text>",
        (x0 + x1) / 2.0,
        H - 12.0,
        TOP - 10.0
    );
    // Lines, then one point per request with its figures in a tooltip.
    let line = |o: &mut String, class: &str, pts: &[(usize, u64)]| {
        let d: Vec<String> = pts
            .iter()
            .map(|&(k, v)| format!("{:.1},{:.1}", x(k), y(v)))
            .collect();
        let _ = writeln!(
            o,
            "<polyline class=\"{class}\" points=\"{}\"/>",
            d.join(" ")
        );
    };
    // The evidence marks behind everything, at their requests.
    o.push_str(&requests::marks(&ch.requests, &x, y0, y1));
    for (class, c) in &curves {
        let pts: Vec<(usize, u64)> = c
            .points
            .iter()
            .filter_map(|p| p.simulated().map(|v| (p.k, v)))
            .collect();
        line(&mut o, class, &pts);
    }
    for (class, c) in &curves {
        for p in &c.points {
            let Some(v) = p.simulated() else { continue };
            let _ = writeln!(
                o,
                "<circle class=\"pt {class}\" data-series=\"{class}\" data-k=\"{}\" data-tokens=\"{v}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\"><title>request {}: simulated {} ({} tokens cleared){}{}</title></circle>",
                p.k,
                x(p.k),
                y(v),
                p.k,
                fmt_int(v),
                fmt_int(p.in_wire),
                if p.fired { ", the plan fired" } else { "" },
                if p.broke {
                    ", the cache prefix broke"
                } else {
                    ""
                },
            );
            let (cx, cy) = (x(p.k), y(v));
            if p.fired {
                let _ = writeln!(
                    o,
                    "<path class=\"fired\" data-series=\"{class}\" data-k=\"{}\" d=\"M{cx:.1} {:.1} l5 9 h-10 z\"/>",
                    p.k,
                    cy - 14.0
                );
            }
            if p.broke {
                let _ = writeln!(
                    o,
                    "<path class=\"break\" data-series=\"{class}\" data-k=\"{}\" d=\"M{:.1} {:.1} l8 8 m0 -8 l-8 8\"/>",
                    p.k,
                    cx - 4.0,
                    cy + 6.0
                );
            }
        }
    }
    // The recorded context last: on top of the simulated lines, never hidden
    // under the recommended one.
    line(&mut o, "recorded", &recorded);
    for &(k, v) in &recorded {
        let _ = writeln!(
            o,
            "<circle class=\"pt recorded\" data-series=\"recorded\" data-k=\"{k}\" data-tokens=\"{v}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\"><title>request {k}: recorded {}</title></circle>",
            x(k),
            y(v),
            fmt_int(v)
        );
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_in_paths_and_words() {
        assert_eq!(
            escape("a<b>&\"c\""),
            "a&lt;b&gt;&amp;&quot;c&quot;".to_string()
        );
    }

    #[test]
    fn the_chart_has_a_point_per_request_and_marks_where_it_fired_and_broke() {
        let pts = |fire: usize| -> Vec<Point> {
            (1..=4)
                .map(|k| Point {
                    k,
                    recorded: Some(1000 * k as u64),
                    in_wire: if k >= fire { 300 } else { 0 },
                    recorded_cleared: 0,
                    fired: k == fire,
                    broke: k == fire,
                    warm: true,
                })
                .collect()
        };
        let ch = Charts {
            current: Curve {
                words: "idle keep 2".into(),
                points: pts(3),
                contexts: Vec::new(),
            },
            recommended: Some(Curve {
                words: "idle keep 1 <x>".into(),
                points: pts(2),
                contexts: Vec::new(),
            }),
            requests: Vec::new(),
        };
        let s = svg(&ch);
        // 4 recorded + 4 current + 4 recommended points.
        assert_eq!(s.matches("<circle class=\"pt").count(), 12);
        // Request 3 of the current setting: 3,000 − 300 = 2,700.
        assert!(s.contains("data-series=\"sim-current\" data-k=\"3\" data-tokens=\"2700\""));
        // The recommended fired at 2: 2,000 − 300.
        assert!(s.contains("data-series=\"sim-recommended\" data-k=\"2\" data-tokens=\"1700\""));
        assert_eq!(s.matches("<path class=\"fired\" data-series").count(), 2);
        assert_eq!(s.matches("<path class=\"break\" data-series").count(), 2);
        assert!(s.contains(
            "request 3: simulated 2,700 (300 tokens cleared), the plan fired, the cache prefix broke"
        ));
    }
}
