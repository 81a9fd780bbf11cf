//! The side-by-side diff: local request (left) against the wire payload (right).

use super::*;

pub fn draw_diff(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let focused = v.focus == Focus::Diff;
    // The api preset (SPEC §11): the client sends the edits, the server edits.
    let sides = if v.policy().kind == crate::policy::PlanKind::Api {
        "client request (left) vs server view after the edits (right)"
    } else {
        "local request (left) vs wire payload (right)"
    };
    if v.diff_pending() {
        let block = Block::default()
            .borders(Borders::TOP)
            .title(format!(" {sides} — computing the diff in the background… "));
        f.render_widget(block, area);
        return;
    }
    let changes = v.diff.changes.len();
    let title = format!(
        " {sides} — {changes} change{}{} — n/N jump, </> scroll, z fold ",
        if changes == 1 { "" } else { "s" },
        if v.diff.coarse {
            ", coarse (time budget)"
        } else {
            ""
        }
    );
    let inner = region(f, area, title, focused, theme);
    let half = inner.width.saturating_sub(1) / 2;
    let lines: Vec<Line> = v
        .items
        .iter()
        .skip(v.diff_top)
        .take(inner.height as usize)
        .map(|item| match *item {
            Item::Fold { len, .. } => Line::styled(
                format!(
                    "{:^width$}",
                    format!("⋯ {len} unchanged lines ⋯"),
                    width = inner.width as usize
                ),
                theme.fg(Color::DarkGray),
            ),
            Item::Row(r) => diff_line(&v.diff, &v.diff.rows[r], half as usize, v.hscroll, theme),
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

pub(super) fn diff_line(
    diff: &Diff,
    row: &Row,
    half: usize,
    hscroll: usize,
    theme: Theme,
) -> Line<'static> {
    let (del, ins) = (theme.palette.deleted, theme.palette.inserted);
    let (lstyle, rstyle, lmark, rmark) = match row.kind {
        Kind::Equal => (Style::default(), Style::default(), ' ', ' '),
        Kind::Delete => (theme.fg(del), Style::default(), '-', ' '),
        Kind::Insert => (Style::default(), theme.fg(ins), ' ', '+'),
        Kind::Change => (theme.fg(del), theme.fg(ins), '~', '~'),
    };
    let mut spans = side_spans(
        row.left.as_ref().zip(diff.left_line(row)),
        half,
        hscroll,
        lmark,
        lstyle,
        theme.emph(del),
    );
    spans.push(Span::raw("│"));
    spans.extend(side_spans(
        row.right.as_ref().zip(diff.right_line(row)),
        half,
        hscroll,
        rmark,
        rstyle,
        theme.emph(ins),
    ));
    Line::from(spans)
}

/// One half of a diff row: gutter (line number + mark) and the text window.
pub(super) fn side_spans(
    side: Option<(&Side, &str)>,
    width: usize,
    hscroll: usize,
    mark: char,
    style: Style,
    emph: Style,
) -> Vec<Span<'static>> {
    let gutter = 6;
    let text_w = width.saturating_sub(gutter);
    let Some((side, text)) = side else {
        return vec![Span::raw(" ".repeat(width))];
    };
    let chars: Vec<char> = text.chars().collect();
    let start = hscroll.min(chars.len());
    let end = (start + text_w).min(chars.len());
    let mut spans = vec![Span::styled(
        format!("{:>4}{mark} ", side.no % 100_000),
        style,
    )];
    let (es, ee) = side.emph.unwrap_or((usize::MAX, usize::MAX));
    let mut cur = String::new();
    let mut cur_emph = false;
    for (i, ch) in chars[start..end].iter().enumerate() {
        let at = start + i;
        let is_emph = at >= es && at < ee;
        if is_emph != cur_emph && !cur.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut cur),
                if cur_emph { emph } else { style },
            ));
        }
        cur_emph = is_emph;
        cur.push(*ch);
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, if cur_emph { emph } else { style }));
    }
    let used = gutter + (end - start);
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
}
