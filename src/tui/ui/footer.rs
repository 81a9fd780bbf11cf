//! The footer: the cache verdict, the session totals, sparklines with their marks, the hints.

use super::*;

/// The session totals of the current setting in one line (SPEC §9).
pub fn totals_line(v: &SessionView) -> String {
    let Some(t) = &v.totals else {
        return "session: counting…".into();
    };
    let s = &t.totals;
    let usd = match t.delta_usd {
        Some(x) => format!("Δ ${x:+.4}"),
        None => "Δ $? (no price)".into(),
    };
    // Most telling first: at 80 columns the line is cut from the right.
    format!(
        "session: {usd} · {} tok not sent · {} warm breaks ({} re-written) · {} used later · {} fires · {} cleared",
        fmt_int(s.tokens_not_sent),
        s.cache_breaks,
        fmt_int(s.tokens_rewritten),
        s.later_used,
        s.fires,
        s.cleared_results,
    )
}

pub fn draw_footer(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let st = &v.plan.step;
    let cache = &v.plan.cache;
    let cache_text = match (&cache.prefix_broken_at_message, v.policy().delivery) {
        // The tokens come from the wire body, built with the diff.
        (Some(m), _) if v.diff_pending() => {
            format!("cache prefix broken at message {m} (tokens re-written: counting…)")
        }
        (Some(m), _) => format!(
            "cache prefix broken at message {m} (~{} tokens re-written)",
            fmt_int(cache.tokens_after_break)
        ),
        (None, Delivery::CacheEdits) if !cache.cache_edits_deleted.is_empty() => {
            format!(
                "cache prefix kept; cache_edits deletes {}",
                crate::sanitize::joined(&cache.cache_edits_deleted, ", ")
            )
        }
        _ => "cache prefix kept".into(),
    };
    // The cache verdict comes first (SPEC §8: it survives 80×24), coloured and
    // with a glyph that carries it under NO_COLOR.
    let verdict = if cache.prefix_broken_at_message.is_some() {
        Span::styled(
            format!("✕ {cache_text}"),
            theme.fg(theme.palette.prefix_broken),
        )
    } else {
        Span::styled(
            format!("✓ {cache_text}"),
            theme.fg(theme.palette.prefix_kept),
        )
    };
    let meta = format!(
        "  ·  chars {} → {}{}  ·  newly cleared {} (~{} tokens saved, estimate)",
        fmt_int(st.chars_before),
        fmt_int(st.chars_after),
        st.target_chars
            .map(|t| format!(" (target {})", fmt_int(t)))
            .unwrap_or_default(),
        st.newly_cleared.len(),
        fmt_int(st.tokens_saved),
    );
    let width = area.width.saturating_sub(10) as usize;
    let s = &v.setup.session;
    let context: Vec<u64> = s
        .requests
        .iter()
        .map(|r| {
            r.response
                .and_then(|m| s.messages[m].usage.as_ref())
                .map(crate::session::Usage::prompt)
                .unwrap_or(0)
        })
        .collect();
    let cache_read: Vec<u64> = s
        .requests
        .iter()
        .map(|r| {
            r.response
                .and_then(|m| s.messages[m].usage.as_ref())
                .map(|u| u.cache_read_input_tokens)
                .unwrap_or(0)
        })
        .collect();
    // The marks, none while they are computed in the background.
    let none;
    let marks: &[crate::tui::app::Mark] = if v.marks.len() == s.requests.len() {
        &v.marks
    } else {
        none = vec![crate::tui::app::Mark::default(); s.requests.len()];
        &none
    };
    // Each line with its rank: when the screen is too short for all, the
    // lowest go first (SPEC §8: the verdict, then one sparkline, the hints).
    let mut lines: Vec<(u8, Line)> = vec![(0, Line::from(vec![verdict, Span::raw(meta)]))];
    // The whole session under this setting (SPEC §9), second at 80×24.
    lines.push((1, Line::styled(totals_line(v), theme.fg(Color::Yellow))));
    if let Some(line) = v.observed_line() {
        lines.push((4, Line::styled(line, theme.fg(Color::Red))));
    }
    // Both context lines on the recorded scale: tuning lowers the simulated one.
    let scale = context.iter().copied().max().unwrap_or(0);
    lines.push((
        2,
        spark_line_scaled(
            "context ",
            &context,
            scale,
            width,
            v.k,
            theme.fg(Color::Blue),
            &[],
            theme,
        ),
    ));
    lines.push((
        3,
        match simulated_context(v) {
            Some(sim) => spark_line_scaled(
                "sim ctx~",
                &sim,
                scale,
                width,
                v.k,
                theme.fg(Color::Green),
                &[],
                theme,
            ),
            None => Line::styled("sim ctx~ counting…", theme.fg(Color::DarkGray)),
        },
    ));
    // An observed cache break (!) sits on the cache reads' own line.
    lines.push((
        5,
        spark_line(
            "cache rd",
            &cache_read,
            width,
            v.k,
            theme.fg(Color::Cyan),
            marks,
            theme,
        ),
    ));
    lines.push((6, fired_line(&plan_marks(marks, width, v.k), theme)));
    lines.push((
        7,
        Line::styled(
            format!("records {}", evidence_marks(marks, width, v.k)),
            theme.fg(theme.palette.evidence),
        ),
    ));
    let hint = v.status.clone().unwrap_or_else(|| match &v.search {
        Some(q) => format!("search {q:?}: n/N next/previous match, Esc clears"),
        None => keymap::hints(),
    });
    lines.push((1, Line::styled(hint, theme.fg(Color::DarkGray))));
    while lines.len() > area.height as usize
        && let Some(worst) = lines
            .iter()
            .enumerate()
            .max_by_key(|(_, (rank, _))| *rank)
            .map(|(i, _)| i)
    {
        lines.remove(worst);
    }
    let lines: Vec<Line> = lines.into_iter().map(|(_, l)| l).collect();
    f.render_widget(Paragraph::new(lines), area);
}

/// Buckets of requests → one column each (the max of the bucket).
pub(super) fn buckets(n: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    if n == 0 || width == 0 {
        return Vec::new();
    }
    let cols = n.min(width);
    (0..cols)
        .map(|c| (c * n / cols)..((c + 1) * n / cols).max(c * n / cols + 1))
        .collect()
}

/// The simulated context of the current setting at every request (SPEC §9:
/// recorded P(k) − `in_wire_tokens[k]`, an estimate; 0 without usage); None
/// while the totals are counted.
pub fn simulated_context(v: &SessionView) -> Option<Vec<u64>> {
    let t = v.totals.as_ref()?;
    Some(
        t.series
            .iter()
            .map(|p| p.simulated().unwrap_or(0))
            .collect(),
    )
}

/// A sparkline of `values`, one column per bucket of requests; a bucket where
/// `bang` marks an observed cache break shows `!` instead of its bar.
pub(super) fn spark_line(
    label: &str,
    values: &[u64],
    width: usize,
    k: usize,
    style: Style,
    bang: &[crate::tui::app::Mark],
    theme: Theme,
) -> Line<'static> {
    let max = values.iter().copied().max().unwrap_or(0);
    spark_line_scaled(label, values, max, width, k, style, bang, theme)
}

/// [`spark_line`] with the full bar at `max` (so two lines share a scale).
#[allow(clippy::too_many_arguments)]
pub(super) fn spark_line_scaled(
    label: &str,
    values: &[u64],
    max: u64,
    width: usize,
    k: usize,
    style: Style,
    bang: &[crate::tui::app::Mark],
    theme: Theme,
) -> Line<'static> {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = max.max(1);
    let mut spans = vec![Span::raw(format!("{label} "))];
    for b in buckets(values.len(), width) {
        let v = values[b.clone()].iter().copied().max().unwrap_or(0);
        let marked = b.clone().any(|i| bang.get(i).is_some_and(|m| m.observed));
        let ch = if marked {
            '!'
        } else if v == 0 {
            ' '
        } else {
            BARS[((v.min(max) * 7) / max) as usize]
        };
        let here = b.contains(&(k.saturating_sub(1)));
        spans.push(Span::styled(
            ch.to_string(),
            if here {
                theme.emph(theme.palette.current)
            } else if marked {
                theme
                    .fg(theme.palette.observed_break)
                    .add_modifier(Modifier::BOLD)
            } else {
                style
            },
        ));
    }
    Line::from(spans)
}

/// The footer's `fired` line: `▲` in the theme's `fired` colour, `✕` in its
/// `cache_break` colour.
fn fired_line(marks: &str, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::raw("fired   ")];
    for ch in marks.chars() {
        let style = match ch {
            '▲' => theme.fg(theme.palette.fired),
            '✕' => theme.fg(theme.palette.cache_break),
            _ => Style::default(),
        };
        spans.push(Span::styled(ch.to_string(), style));
    }
    Line::from(spans)
}

/// ✕ where the simulated cache broke, ▲ where a plan fired without breaking it,
/// ^ under the request shown.
pub(super) fn plan_marks(marks: &[crate::tui::app::Mark], width: usize, k: usize) -> String {
    buckets(marks.len(), width)
        .into_iter()
        .map(|b| {
            if marks[b.clone()].iter().any(|m| m.broke) {
                '✕'
            } else if marks[b.clone()].iter().any(|m| m.fired) {
                '▲'
            } else if b.contains(&(k.saturating_sub(1))) {
                '^'
            } else {
                ' '
            }
        })
        .collect()
}

/// ◇ where the transcript holds harness evidence (SPEC §10), ^ under the request
/// shown.
pub(super) fn evidence_marks(marks: &[crate::tui::app::Mark], width: usize, k: usize) -> String {
    buckets(marks.len(), width)
        .into_iter()
        .map(|b| {
            if marks[b.clone()].iter().any(|m| m.evidence) {
                '◇'
            } else if b.contains(&(k.saturating_sub(1))) {
                '^'
            } else {
                ' '
            }
        })
        .collect()
}
