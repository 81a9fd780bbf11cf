//! The header: session, request, gap and send kind, policy with the source of each value, notes and caveats.

use super::*;
use crate::tui::app::{HeaderPiece, Tone};

pub fn draw_header(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    // The rows come from the view (`SessionView::header_rows`), so the layout
    // makes room for as many as are drawn: every value keeps its mark, on a
    // second row when one does not hold them.
    let style = |p: &HeaderPiece| match p.tone {
        Tone::Name => Style::default().add_modifier(Modifier::BOLD),
        Tone::Plain => Style::default(),
        Tone::Changed => theme.emph(theme.palette.changed),
        Tone::Following => theme.fg(Color::Green),
        Tone::Diagnostics => theme.fg(Color::Yellow),
    };
    let mut lines: Vec<Line> = v
        .header_rows(area.width)
        .iter()
        .map(|row| {
            Line::from(
                row.iter()
                    .map(|p| Span::styled(p.text.clone(), style(p)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    for note in v.header_note_lines(area.width) {
        lines.push(Line::styled(note, theme.fg(Color::Magenta)));
    }
    f.render_widget(Paragraph::new(lines), area);
}
