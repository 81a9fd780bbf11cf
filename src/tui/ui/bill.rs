//! The `$` panel (SPEC §16.S): where the session's cache-write money went —
//! one bar per cause in USD (5-minute writes `█`, 1-hour `▓`) — and the
//! observed breaks under it: request, time, gap, cause, re-written, USD; Enter
//! jumps to the one selected.

use super::*;
use crate::bill::causes::Cause;

/// The panel's lines: the causes (with `bar` cells of bar), then the header
/// of the breaks; the breaks' own lines are [`break_lines`].
pub fn bill_lines(v: &SessionView, bar: usize) -> Vec<String> {
    let Some(t) = &v.totals else {
        return vec!["counting the bill…".into()];
    };
    let row = &t.bill;
    let w = row.cache_write();
    let usd = |x: Option<f64>| x.map_or("$?".to_string(), |x| format!("${x:.2}"));
    let mut out = vec![format!(
        "cache writes {} tokens = {} · recorded {}",
        fmt_int(w),
        usd(row.cache_write_usd()),
        usd(row.usd)
    )];
    out.push(String::new());
    let causes = row.causes_by_size();
    if causes.is_empty() {
        out.push("no response recorded a cache write".into());
    }
    for (c, tokens, u) in causes {
        let share = row.share(tokens, u);
        let s = row.causes.get(&c).copied().unwrap_or_default();
        let cells = (share * bar as f64).round() as usize;
        let ones = if tokens == 0 {
            0
        } else {
            (cells as u128 * u128::from(s.tokens_1h) / u128::from(tokens)) as usize
        };
        let bar_text = format!(
            "{}{}{}",
            "█".repeat(cells - ones),
            "▓".repeat(ones),
            " ".repeat(bar.saturating_sub(cells))
        );
        // Only a break's cause has a mark on the marks line.
        let glyph = if c.is_break_cause() { c.glyph() } else { ' ' };
        out.push(format!(
            "{glyph} {:<13} {bar_text} {:>8} {:>5.1} %",
            c.name(),
            usd(u),
            share * 100.0
        ));
    }
    out.push(String::new());
    out.push(format!(
        "  {:>5}  {:<8}  {:>7}  {:<13} {:>10} {:>8}",
        "req", "time", "gap", "cause", "re-written", "USD"
    ));
    out
}

/// One line per observed break of the session's own file.
pub fn break_lines(v: &SessionView) -> Vec<(usize, String)> {
    v.bill_breaks()
        .into_iter()
        .filter_map(|b| {
            let k = b.request?;
            let time =
                b.at.as_deref()
                    .map(crate::zone::local)
                    .and_then(|s| {
                        s.split(' ')
                            .nth(1)
                            .map(|t| t.chars().take(8).collect::<String>())
                    })
                    .unwrap_or_else(|| "?".into());
            let gap = b.gap_minutes.map_or("?".into(), |g| format!("{g:.1}m"));
            let glyph = Cause::of_name(b.cause).map_or('!', Cause::glyph);
            let usd = b.usd.map_or("$?".to_string(), |x| format!("${x:.2}"));
            Some((
                k,
                format!(
                    "{glyph} {k:>5}  {time:<8}  {gap:>7}  {:<13} {:>10} {usd:>8}",
                    b.cause,
                    fmt_int(b.rewritten)
                ),
            ))
        })
        .collect()
}

/// The `$` panel.
pub fn draw_bill(f: &mut Frame, v: &SessionView, area: Rect, selected: usize, theme: Theme) {
    let width = area.width.saturating_sub(4).min(76);
    let bar = (width as usize).saturating_sub(45).clamp(8, 30);
    let head = bill_lines(v, bar);
    let breaks = break_lines(v);
    let height = (head.len() + breaks.len().max(1) + 2) as u16;
    let r = centered(area, width, height.min(area.height.saturating_sub(2)));
    let page = (r.height as usize).saturating_sub(2 + head.len()).max(1);
    let selected = selected.min(breaks.len().saturating_sub(1));
    let first = selected.saturating_sub(page.saturating_sub(1));
    let mut lines: Vec<Line> = head
        .iter()
        .map(|l| {
            let rest: String = l.chars().skip(2).collect();
            let cause = Cause::ALL
                .iter()
                .find(|c| rest.starts_with(&format!("{} ", c.name())));
            match cause {
                Some(Cause::Unexplained) => Line::styled(l.clone(), theme.fg(Color::Red)),
                Some(Cause::Ttl) => Line::styled(l.clone(), theme.fg(Color::Yellow)),
                Some(Cause::Growth | Cause::Drift) => {
                    Line::styled(l.clone(), theme.fg(Color::DarkGray))
                }
                Some(_) => Line::styled(l.clone(), theme.fg(Color::Magenta)),
                None => Line::from(l.clone()),
            }
        })
        .collect();
    if breaks.is_empty() {
        lines.push(Line::from("  no observed cache break"));
    }
    for (i, (_, l)) in breaks.iter().enumerate().skip(first).take(page) {
        let style = if i == selected {
            theme.emph(theme.palette.current)
        } else {
            Style::default()
        };
        lines.push(Line::styled(l.clone(), style));
    }
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" where the cache-write money went — ↑/↓ break, Enter go, $ close "),
        ),
        r,
    );
}
