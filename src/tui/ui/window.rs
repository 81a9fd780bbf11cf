//! What fills the window at request k (SPEC §12): the footer's stacked bar
//! (right under the sparklines, its lowest-priority line, §15.22) and the `w`
//! panel with the figures per tool and per kind. Both read the setting's
//! contexts, computed with its totals in the background.

use super::*;
use crate::context::Context;

/// One part of the window: its name, glyph, colour and tokens.
struct Part {
    name: &'static str,
    glyph: char,
    color: Color,
    tokens: u64,
}

/// The parts of a context, in the bar's order (tool results first, what the
/// transcript does not hold last). A negative `unattributed` is 0 here.
fn parts(c: &Context) -> [Part; 6] {
    let part = |name, glyph, color, tokens| Part {
        name,
        glyph,
        color,
        tokens,
    };
    [
        part(
            "tool results",
            '█',
            Color::Blue,
            c.tool_results.values().sum(),
        ),
        part("thinking", '▓', Color::Magenta, c.thinking),
        part(
            "assistant text + tool inputs",
            '▒',
            Color::Yellow,
            c.assistant_text,
        ),
        part("user text", '░', Color::Green, c.user_text),
        part("images", '▚', Color::Cyan, c.images),
        part(
            "unattributed: system prompt, tools…",
            '·',
            Color::DarkGray,
            c.unattributed.map_or(0, |u| u.max(0) as u64),
        ),
    ]
}

/// Column widths for `values` over `cells` columns, by largest remainder:
/// they add up to `cells` (0 each when every value is 0).
pub fn stacked_widths(values: &[u64], cells: usize) -> Vec<usize> {
    let total: u128 = values.iter().map(|&v| u128::from(v)).sum();
    if total == 0 {
        return vec![0; values.len()];
    }
    let exact: Vec<(usize, u128)> = values
        .iter()
        .map(|&v| {
            let x = u128::from(v) * cells as u128;
            ((x / total) as usize, x % total)
        })
        .collect();
    let mut widths: Vec<usize> = exact.iter().map(|e| e.0).collect();
    let left = cells - widths.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..values.len()).collect();
    // The largest remainders first; the first part among equals.
    order.sort_by_key(|&i| std::cmp::Reverse(exact[i].1));
    for &i in order.iter().take(left) {
        widths[i] += 1;
    }
    widths
}

/// The context of request k under the setting, once counted.
fn context_at(v: &SessionView) -> Option<&Context> {
    v.totals.as_ref()?.contexts.get(v.k.checked_sub(1)?)
}

/// The footer's `window~` line: request k's window as one stacked bar as wide
/// as the sparklines, a glyph and a colour per part (the `w` panel names them).
pub fn context_bar(v: &SessionView, width: usize, theme: Theme) -> Line<'static> {
    let label = format!("{:<w$}", "window~", w = layout::SPARK_LABEL);
    let Some(c) = context_at(v) else {
        let why = if v.totals.is_none() {
            "counting…"
        } else {
            "no request"
        };
        return Line::styled(format!("{label}{why}"), theme.fg(Color::DarkGray));
    };
    let cells = width.saturating_sub(layout::SPARK_LABEL + 1);
    let parts = parts(c);
    let values: Vec<u64> = parts.iter().map(|p| p.tokens).collect();
    let mut spans = vec![Span::raw(label)];
    for (p, w) in parts.iter().zip(stacked_widths(&values, cells)) {
        if w > 0 {
            spans.push(Span::styled(
                p.glyph.to_string().repeat(w),
                theme.fg(p.color),
            ));
        }
    }
    Line::from(spans)
}

/// The `w` panel's lines for request k.
pub fn window_lines(v: &SessionView) -> Vec<String> {
    let k = v.k;
    let n = v.setup.session.requests.len();
    let Some(c) = context_at(v) else {
        let why = if v.totals.is_none() {
            "counting the setting's figures…"
        } else {
            "no request"
        };
        return vec![format!("request {k} of {n}: {why}")];
    };
    let p = v.setup.session.recorded_prompt(k);
    let mut out = vec![match p {
        Some(p) => format!(
            "request {k} of {n} · recorded prompt P(k) {} tokens",
            fmt_int(p)
        ),
        None => format!("request {k} of {n} · no usage recorded: unattributed unknown"),
    }];
    out.push(String::new());
    // Shares of P(k) when it is known, else of what the transcript holds.
    let whole = p.unwrap_or_else(|| c.attributed()).max(1) as f64;
    let share = |t: i64| format!("{:>5.1}%", t as f64 * 100.0 / whole);
    for part in parts(c) {
        let tokens = match part.name {
            n if n.starts_with("unattributed") => c.unattributed,
            _ => Some(part.tokens as i64),
        };
        let figure = match tokens {
            Some(t) if t < 0 => format!(
                "{:>10} {}",
                format!("-{}", fmt_int(t.unsigned_abs())),
                share(t)
            ),
            Some(t) => format!("{:>10} {}", fmt_int(t as u64), share(t)),
            None => format!("{:>10}", "?"),
        };
        out.push(format!("{} {:<36}{figure}", part.glyph, part.name));
        if part.glyph == '█' {
            let mut tools: Vec<(&std::sync::Arc<str>, &u64)> = c.tool_results.iter().collect();
            // The largest first; names in order among equals.
            tools.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (tool, t) in tools {
                let name: String = sanitize::line(tool).chars().take(32).collect();
                out.push(format!(
                    "    {name:<34}{:>10} {}",
                    fmt_int(*t),
                    share(*t as i64)
                ));
            }
        }
    }
    if c.unattributed.is_some_and(|u| u < 0) {
        out.push(String::new());
        out.push("the estimates exceed the recorded prompt here".into());
    }
    out.push(String::new());
    out.push("estimates (chars / 4); a cleared result counts its placeholder".into());
    out
}

/// The `w` panel: request k's window by tool and by kind.
pub fn draw_window(f: &mut Frame, v: &SessionView, area: Rect, scroll: usize, theme: Theme) {
    let lines = window_lines(v);
    let r = centered(
        area,
        area.width.saturating_sub(4).min(70),
        (lines.len() as u16 + 2).min(area.height.saturating_sub(2)),
    );
    let page = r.height.saturating_sub(2) as usize;
    let scroll = scroll.min(lines.len().saturating_sub(page));
    let shown: Vec<Line> = lines
        .iter()
        .skip(scroll)
        .take(page)
        .map(|l| {
            let glyph = l.chars().next();
            match parts(&Context::default())
                .iter()
                .find(|p| Some(p.glyph) == glyph)
            {
                Some(p) => Line::styled(l.clone(), theme.fg(p.color)),
                None => Line::from(l.clone()),
            }
        })
        .collect();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(shown).block(
            Block::default().borders(Borders::ALL).title(
                " what fills the window (~ estimate) — w/Esc close, ←/→ request ".to_string(),
            ),
        ),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacked_widths_add_up_to_the_cells_by_largest_remainder() {
        // 10 columns for 50 / 30 / 20: exactly 5, 3, 2.
        assert_eq!(stacked_widths(&[50, 30, 20], 10), vec![5, 3, 2]);
        // 7 columns: 3.5, 2.1, 1.4 → 3, 2, 1 and one left for the largest
        // remainder (0.5).
        assert_eq!(stacked_widths(&[50, 30, 20], 7), vec![4, 2, 1]);
        assert_eq!(stacked_widths(&[0, 0], 7), vec![0, 0]);
        assert_eq!(stacked_widths(&[1, 0, 0], 3), vec![3, 0, 0]);
    }
}
