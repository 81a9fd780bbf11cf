//! "What fills the window" (SPEC §12) on the page: the recommended (else the
//! current) setting's wire per request as a stacked area.

use super::{BOTTOM, Charts, H, LEFT, RIGHT, TOP, W, escape};
use crate::context::Context;
use crate::numbers::fmt_int;
use std::fmt::Write as _;

/// The colours of the context layers: the tools take turns through the first
/// six; thinking, the assistant's text, the user's text, images and the rest
/// have their own.
const TOOL_COLOURS: [&str; 6] = [
    "#4e79a7", "#59a14f", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
];
const KIND_COLOURS: [(&str, &str); 5] = [
    ("thinking", "#b07aa1"),
    ("assistant_text", "#f28e2b"),
    ("user_text", "#e15759"),
    ("images", "#ff9da7"),
    ("unattributed", "#d9d9d9"),
];

/// The layers of the context chart, bottom first: each tool (in name order,
/// as `timeline --format json` lists them), then the kinds; a value per
/// request (a negative `unattributed`, or none, draws as 0).
fn context_layers(contexts: &[Context]) -> Vec<(String, &'static str, Vec<u64>)> {
    let mut tools: Vec<&str> = contexts
        .iter()
        .flat_map(|c| c.tool_results.keys().map(|k| &**k))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    let mut layers: Vec<(String, &'static str, Vec<u64>)> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let values = contexts
                .iter()
                .map(|c| c.tool_results.get(*t).copied().unwrap_or(0))
                .collect();
            (
                format!("tool_results.{t}"),
                TOOL_COLOURS[i % TOOL_COLOURS.len()],
                values,
            )
        })
        .collect();
    for (kind, colour) in KIND_COLOURS {
        let values = contexts
            .iter()
            .map(|c| match kind {
                "thinking" => c.thinking,
                "assistant_text" => c.assistant_text,
                "user_text" => c.user_text,
                "images" => c.images,
                _ => c.unattributed.map_or(0, |u| u.max(0) as u64),
            })
            .collect();
        layers.push((kind.to_string(), colour, values));
    }
    layers
}

/// "What fills the window" (SPEC §12): the recommended setting's (else the
/// current one's) wire at every request as a stacked area, one layer per
/// tool and per kind, each with its values per request in `data-values`.
pub(super) fn context_section(ch: &Charts) -> String {
    let curve = ch.recommended.as_ref().unwrap_or(&ch.current);
    let which = if ch.recommended.is_some() {
        "recommended"
    } else {
        "current"
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<h2>What fills the window: {which} setting</h2>\n<p>Per request, the wire of <b>{}</b> by what it holds: tool results per tool (a cleared result counts its placeholder), thinking, the assistant's text (tool-use inputs included), the user's text, images — estimates (characters / 4, images at a fixed size) — and <i>unattributed</i>: the recorded prompt size P(k) less their sum (the system prompt, tool definitions, anything the transcript does not hold; drawn as 0 when the estimates exceed P(k)). P(k) is what the harness really sent, so where this setting keeps more out of the wire than the harness did, <i>unattributed</i> holds that difference too. The same figures as <code>timeline --format json</code>'s <code>context</code>.</p>",
        escape(&curve.words)
    );
    let layers = context_layers(&curve.contexts);
    let n = curve.contexts.len().max(1);
    let totals: Vec<u64> = (0..curve.contexts.len())
        .map(|i| layers.iter().map(|(_, _, v)| v[i]).sum())
        .collect();
    let hi = totals.iter().copied().max().unwrap_or(0).max(1) as f64;
    let x = |k: usize| {
        if n <= 1 {
            LEFT + (W - LEFT - RIGHT) / 2.0
        } else {
            LEFT + (k - 1) as f64 * (W - LEFT - RIGHT) / (n - 1) as f64
        }
    };
    let y = |v: u64| H - BOTTOM - v as f64 * (H - TOP - BOTTOM) / hi;
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"context-chart\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"what fills the window per request, stacked\">"
    );
    let (x0, x1, y1) = (LEFT, W - RIGHT, H - BOTTOM);
    let _ = writeln!(
        o,
        "<line class=\"axis\" x1=\"{x0}\" y1=\"{y1}\" x2=\"{x1}\" y2=\"{y1}\"/><line class=\"axis\" x1=\"{x0}\" y1=\"{TOP}\" x2=\"{x0}\" y2=\"{y1}\"/>"
    );
    for v in [0, hi as u64 / 2, hi as u64] {
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y(v) + 4.0,
            fmt_int(v)
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
    let mut below = vec![0u64; curve.contexts.len()];
    let mut legend = String::new();
    for (name, colour, values) in &layers {
        let shown = escape(&crate::sanitize::line(name));
        let top: Vec<u64> = below.iter().zip(values).map(|(b, v)| b + v).collect();
        let mut d = String::new();
        for (i, t) in top.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                x(i + 1),
                y(*t)
            );
        }
        for (i, b) in below.iter().enumerate().rev() {
            let _ = write!(d, "L{:.1},{:.1} ", x(i + 1), y(*b));
        }
        d.push('Z');
        let list: Vec<String> = values.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "<path class=\"ctx-area\" data-layer=\"{shown}\" data-values=\"{}\" fill=\"{colour}\" d=\"{d}\"><title>{shown}</title></path>",
            list.join(" ")
        );
        let _ = write!(
            legend,
            "<span class=\"swatch\" style=\"background:{colour}\"></span>{shown} "
        );
        below = top;
    }
    o.push_str("</svg>\n");
    let _ = writeln!(o, "<p class=\"legend\">{}</p>", legend.trim_end());
    o
}

#[cfg(test)]
mod tests {
    use super::super::Curve;
    use super::*;

    /// SPEC §12: the stacked area has a layer per tool (name order) and per
    /// kind, each with a value per request; a negative `unattributed` is 0.
    #[test]
    fn spec_12_context_chart_stacks_a_layer_per_tool_and_kind() {
        use std::collections::BTreeMap;
        let contexts = vec![
            Context {
                tool_results: BTreeMap::from([("Read".into(), 100)]),
                thinking: 5,
                unattributed: Some(-3),
                ..Default::default()
            },
            Context {
                tool_results: BTreeMap::from([("Read".into(), 8), ("Bash".into(), 10)]),
                user_text: 4,
                unattributed: Some(50),
                ..Default::default()
            },
        ];
        let ch = Charts {
            current: Curve {
                words: "idle keep 2".into(),
                points: Vec::new(),
                contexts: Vec::new(),
            },
            recommended: Some(Curve {
                words: "idle keep 1".into(),
                points: Vec::new(),
                contexts,
            }),
            requests: Vec::new(),
        };
        let html = context_section(&ch);
        assert!(html.contains("What fills the window: recommended setting"));
        let layers: Vec<(&str, &str)> = html
            .split("<path class=\"ctx-area\" data-layer=\"")
            .skip(1)
            .map(|c| {
                let name = &c[..c.find('"').unwrap()];
                let at = c.find("data-values=\"").unwrap() + 13;
                (name, &c[at..at + c[at..].find('"').unwrap()])
            })
            .collect();
        assert_eq!(
            layers,
            vec![
                ("tool_results.Bash", "0 10"),
                ("tool_results.Read", "100 8"),
                ("thinking", "5 0"),
                ("assistant_text", "0 0"),
                ("user_text", "0 4"),
                ("images", "0 0"),
                ("unattributed", "0 50"),
            ]
        );
    }
}
