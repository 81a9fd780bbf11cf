//! The screen's geometry: where the session screen's regions lie, which row of
//! the age list is on top, where a scrolling panel (the helps) sits and how far
//! it scrolls. Plain functions of sizes and counts, so that `ui` draws in these
//! places and `app` finds the mouse and pages the help in the same ones, without
//! either asking the other (`app` never imports `ui`).

use ratatui::layout::{Constraint, Layout, Rect};

/// What the session screen's regions depend on besides the screen's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Rows of the header's own two lines (more when one does not fit).
    pub header_rows: usize,
    /// Lines of notes under the header's two lines (already wrapped).
    pub header_notes: usize,
    /// Entries of the age list: tool results and media.
    pub entries: usize,
    /// Whether the footer carries the observed cache break's line.
    pub observed: bool,
}

/// The session screen's four regions (header, age list, diff, footer) on
/// `area`: where they are drawn, and where the mouse finds them.
pub fn regions(area: Rect, s: Shape) -> [Rect; 4] {
    let header = (s.header_rows + s.header_notes) as u16;
    let mut list = (s.entries as u16 + 3).min(area.height * 2 / 5).max(5);
    // The verdict, the recorded bill, the totals, four sparkline lines, the
    // hints and the window bar (SPEC §15.22), and the observed break's line.
    let mut footer = 9 + s.observed as u16;
    // A short screen (80×24 with notes): the list gives up rows first, down to
    // three results, then the footer one (it drops its least line), so that
    // the diff keeps its title and three rows.
    let want = |list: u16, footer: u16| header + list + footer + 4;
    while want(list, footer) > area.height && list > 5 {
        list -= 1;
    }
    while want(list, footer) > area.height && footer > 7 {
        footer -= 1;
    }
    Layout::vertical([
        Constraint::Length(header),
        Constraint::Length(list),
        Constraint::Min(1),
        Constraint::Length(footer),
    ])
    .areas(area)
}

/// Columns every footer line gives its label (`context  `, `marks    `): the
/// sparklines' cells and the marks under them start at the same column.
pub const SPARK_LABEL: usize = 9;

/// The requests each column of a sparkline `width` cells wide holds, for `n`
/// requests: the line is `min(n, width)` columns `W` wide and request k is in
/// column ⌊(k−1)·W/N⌋ (SPEC §15.22), so every line that uses this puts request
/// k in the same column.
pub fn spark_columns(n: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    let w = n.min(width);
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(w);
    for i in 0..n {
        let c = i * w / n;
        match out.get_mut(c) {
            Some(r) => r.end = i + 1,
            None => out.push(i..i + 1),
        }
    }
    out
}

/// The column (0-based, after the label) of request `k` (1-based) of `n` on a
/// sparkline `width` cells wide.
pub fn spark_column(k: usize, n: usize, width: usize) -> Option<usize> {
    let w = n.min(width);
    (k >= 1 && k <= n && w > 0).then(|| (k - 1) * w / n)
}

/// Pieces `widths` wide, in order, packed into lines of at most `width`
/// columns: `sep` columns between two pieces on a line, `indent` before each
/// line after the first. A piece is never split: one wider than a line has a
/// line of its own. Returns each line's range of pieces.
pub fn pack(
    widths: &[usize],
    sep: usize,
    indent: usize,
    width: usize,
) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut used = 0;
    for (i, &w) in widths.iter().enumerate() {
        let fits = out.last().is_some_and(|_| used + sep + w <= width);
        match out.last_mut() {
            Some(r) if fits => {
                r.end = i + 1;
                used += sep + w;
            }
            _ => {
                used = if out.is_empty() { w } else { indent + w };
                out.push(i..i + 1);
            }
        }
    }
    out
}

/// The first row the age list shows when `height` rows fit and the selection
/// is row `at`: the selection stays on screen, at the bottom once it has to.
pub fn list_top(at: usize, height: usize) -> usize {
    at.saturating_sub(height.saturating_sub(1))
}

/// A `w`×`h` rectangle centred on `area` (cut to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The session help's widest panel.
pub const HELP_WIDTH: u16 = 66;
/// The picker help's widest panel.
pub const PICKER_HELP_WIDTH: u16 = 70;

/// A bordered panel of `lines` lines, at most `width` columns wide, centred on
/// `area` with a column and a row to spare on each side.
pub fn panel(area: Rect, width: u16, lines: usize) -> Rect {
    centered(
        area,
        area.width.saturating_sub(2).min(width),
        (lines as u16 + 2).min(area.height.saturating_sub(2)),
    )
}

/// Lines of such a panel visible at once on a screen of `size` (columns, rows).
pub fn panel_page(size: (u16, u16), width: u16, lines: usize) -> usize {
    let r = panel(Rect::new(0, 0, size.0, size.1), width, lines);
    r.height.saturating_sub(2).max(1) as usize
}

/// How far such a panel scrolls on a screen of `size`: its last line at the bottom.
pub fn panel_max_scroll(size: (u16, u16), width: u16, lines: usize) -> usize {
    lines.saturating_sub(panel_page(size, width, lines))
}

/// `text` in at most `width` chars: whole when it fits, else the words that
/// fit and "…" (a word is never cut, unless the first alone is too long).
pub fn cut_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    let mut out = String::new();
    for word in text.split(' ') {
        let sep = usize::from(!out.is_empty());
        if out.chars().count() + sep + word.chars().count() > room {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    let out = out.trim_end();
    if out.is_empty() {
        // One word wider than the room: nothing whole fits.
        return text.chars().take(room).chain(['…']).collect();
    }
    format!("{out}…")
}

/// `text` cut into lines of at most `width` chars, at spaces where it can (a
/// continuation is indented by two).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let room = if out.is_empty() { width } else { width - 2 };
        let len = line.chars().count();
        let wlen = word.chars().count();
        if len > 0 && len + 1 + wlen > room {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        // A word longer than a line is cut.
        while line.chars().count() > if out.is_empty() { width } else { width - 2 } {
            let at = if out.is_empty() { width } else { width - 2 };
            let head: String = line.chars().take(at).collect();
            let tail: String = line.chars().skip(at).collect();
            out.push(head);
            line = tail;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("  {l}") })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_words_cuts_at_a_space_never_mid_word() {
        assert_eq!(cut_words("C chart  Esc close", 18), "C chart  Esc close");
        assert_eq!(cut_words("C chart  Esc close", 14), "C chart  Esc…");
        assert_eq!(cut_words("C chart  Esc close", 12), "C chart…");
        assert_eq!(
            cut_words("t5 k2 cache-edits count claude", 22),
            "t5 k2 cache-edits…"
        );
        assert_eq!(cut_words("internal", 5), "inte…");
        for w in 1..40 {
            assert!(cut_words("a bb ccc dddd eeeee", w).chars().count() <= w.max(1));
        }
    }

    #[test]
    fn the_regions_stack_header_list_diff_footer() {
        // 120×40, 3 entries and no notes: header 2, list 3 + 3 = 6 (under 40·2/5
        // = 16, over 5), footer 9, the diff the rest: 40 - 2 - 6 - 9 = 23.
        let area = Rect::new(0, 0, 120, 40);
        let s = Shape {
            header_rows: 2,
            header_notes: 0,
            entries: 3,
            observed: false,
        };
        let [h, l, d, f] = regions(area, s);
        assert_eq!((h.y, h.height), (0, 2));
        assert_eq!((l.y, l.height), (2, 6));
        assert_eq!((d.y, d.height), (8, 23));
        assert_eq!((f.y, f.height), (31, 9));
        assert!([h, l, d, f].iter().all(|r| r.width == 120));
        // Two note lines, 30 entries and an observed break: header 4, list capped
        // at 16, footer 10, diff 40 - 4 - 16 - 10 = 10.
        let s = Shape {
            header_rows: 2,
            header_notes: 2,
            entries: 30,
            observed: true,
        };
        let [h, l, d, f] = regions(area, s);
        assert_eq!((h.height, l.y, l.height), (4, 4, 16));
        assert_eq!((d.y, d.height), (20, 10));
        assert_eq!((f.y, f.height), (30, 10));
        // No entries: the list keeps 5 rows.
        let s = Shape {
            header_rows: 2,
            header_notes: 0,
            entries: 0,
            observed: false,
        };
        assert_eq!(regions(area, s)[1].height, 5);
    }

    #[test]
    fn request_k_is_in_column_k_minus_1_times_w_over_n() {
        // 10 requests on 4 columns: ⌊(k−1)·4/10⌋ = 0 0 0 1 1 2 2 2 3 3.
        assert_eq!(spark_columns(10, 4), [0..3, 3..5, 5..8, 8..10]);
        let cols: Vec<usize> = (1..=10).filter_map(|k| spark_column(k, 10, 4)).collect();
        assert_eq!(cols, [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
        // Fewer requests than cells: one column each.
        assert_eq!(spark_columns(3, 70), [0..1, 1..2, 2..3]);
        assert_eq!(spark_column(3, 3, 70), Some(2));
        assert_eq!(spark_column(0, 3, 70), None);
        assert!(spark_columns(0, 70).is_empty());
    }

    #[test]
    fn pack_keeps_pieces_whole_and_indents_the_rest() {
        // 10 columns, 2 between pieces, 2 before a continuation: 4+2+4 fits; the
        // third starts a line of 2+4; a piece of 12 has a line of its own.
        assert_eq!(pack(&[4, 4, 4, 12, 1], 2, 2, 10), [0..2, 2..3, 3..4, 4..5]);
        assert!(pack(&[], 2, 2, 10).is_empty());
    }

    #[test]
    fn the_list_scrolls_only_to_keep_the_selection_shown() {
        // 4 rows fit: rows 0..=3 show from the top; row 9 puts 6..=9 on screen.
        assert_eq!(list_top(0, 4), 0);
        assert_eq!(list_top(3, 4), 0);
        assert_eq!(list_top(4, 4), 1);
        assert_eq!(list_top(9, 4), 6);
        // No room at all: the selection is the top.
        assert_eq!(list_top(9, 0), 9);
    }

    #[test]
    fn a_panel_pages_by_its_inner_height_and_scrolls_to_its_last_line() {
        // 80×24, 60 lines, at most 66 wide: 78 → 66 wide, 62 → 22 tall, centred
        // at (7, 1); 20 lines inside; it scrolls 60 - 20 = 40.
        let r = panel(Rect::new(0, 0, 80, 24), 66, 60);
        assert_eq!(r, Rect::new(7, 1, 66, 22));
        assert_eq!(panel_page((80, 24), 66, 60), 20);
        assert_eq!(panel_max_scroll((80, 24), 66, 60), 40);
        // 10 lines on 120×40: 12 tall, all shown, no scrolling.
        assert_eq!(panel(Rect::new(0, 0, 120, 40), 66, 10).height, 12);
        assert_eq!(panel_page((120, 40), 66, 10), 10);
        assert_eq!(panel_max_scroll((120, 40), 66, 10), 0);
        // A screen too short for any line still pages by one.
        assert_eq!(panel_page((80, 3), 66, 60), 1);
    }

    #[test]
    fn wrap_breaks_at_spaces_and_indents_the_rest() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "  cc"]);
        // Continuations have width - 2 = 3 chars: a long word is cut.
        assert_eq!(wrap("abcdefgh", 5), ["abcde", "  fgh"]);
        assert_eq!(wrap("", 5), [""]);
    }
}
