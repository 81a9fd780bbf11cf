//! The side-by-side diff: local request (left) against the wire payload (right).

use super::*;

pub fn draw_diff(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let focused = v.focus == Focus::Diff;
    // The api preset (SPEC §11): the client sends the edits, the server edits.
    let sides = if v.policy().kind.is_api() {
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
    // Only the window is copied (a line of a big request can be megabytes): the
    // characters before it are skipped, none after it are read.
    let mut spans = vec![Span::styled(
        format!("{:>4}{mark} ", side.no % 100_000),
        style,
    )];
    let (es, ee) = side.emph.unwrap_or((usize::MAX, usize::MAX));
    let mut cur = String::new();
    let mut cur_emph = false;
    let mut shown = 0;
    for (i, ch) in text.chars().skip(hscroll).take(text_w).enumerate() {
        let at = hscroll + i;
        let is_emph = at >= es && at < ee;
        if is_emph != cur_emph && !cur.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut cur),
                if cur_emph { emph } else { style },
            ));
        }
        cur_emph = is_emph;
        cur.push(ch);
        shown += 1;
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, if cur_emph { emph } else { style }));
    }
    let used = gutter + shown;
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_one_megabyte_line_yields_only_its_window() {
        // 1 MB of digits 0-9 repeating; a half 46 columns wide: a gutter of 6
        // (line number and mark), a window of 40 characters.
        let line: String = (0..1 << 20)
            .map(|i| char::from(b'0' + (i % 10) as u8))
            .collect();
        let side = Side {
            no: 7,
            span: 0..line.len(),
            emph: Some((1_000_003, 1_000_005)),
        };
        let (style, emph) = (Style::default(), Style::default().bold());
        let spans = side_spans(Some((&side, &line)), 46, 1_000_000, '~', style, emph);
        // No span holds more than the window, and the row is exactly its width.
        assert!(spans.iter().all(|s| s.content.chars().count() <= 40));
        assert_eq!(text_of(&spans).chars().count(), 46);
        // The gutter, then characters 1,000,000.. (1,000,000 % 10 = 0), the
        // changed span 1,000,003..1,000,005 emphasised on its own.
        assert_eq!(spans[0].content, "   7~ ");
        assert_eq!(spans[1].content, "012");
        assert_eq!((spans[2].content.as_ref(), spans[2].style), ("34", emph));
        assert_eq!(spans[3].content.chars().count(), 35);
        assert!(spans[3].content.starts_with("56789"));
        assert_eq!(spans.len(), 4);
        // Scrolled past the end: the gutter and blanks.
        let spans = side_spans(Some((&side, &line)), 46, 2 << 20, ' ', style, emph);
        assert_eq!(text_of(&spans), format!("   7  {}", " ".repeat(40)));
    }
}
