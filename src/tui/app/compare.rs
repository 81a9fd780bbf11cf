//! The compare panel and the chart on the view: opening them, their keys, and
//! Enter, which applies a row's setting (the panel's state and its background
//! computation are `tui::compare_panel`).

use super::*;

/// `c`: opens the panel (computing its rows if needed).
pub(super) fn open(v: &mut SessionView) {
    v.compare.start(&v.setup);
    v.overlay = Some(Overlay::Compare);
}

/// `C`: opens the chart (the recommended row needs the comparison).
pub(super) fn open_chart(v: &mut SessionView) {
    v.compare.start(&v.setup);
    v.overlay = Some(Overlay::Chart);
}

/// A key while the panel is open (Esc and q closed it before).
pub(super) fn on_key(v: &mut SessionView, action: Action) {
    let p = &mut v.compare;
    match action {
        Action::Up => p.move_by(-1),
        Action::Down => p.move_by(1),
        Action::PageUp => p.move_by(-10),
        Action::PageDown => p.move_by(10),
        Action::Top | Action::FirstRequest => p.move_by(isize::MIN / 2),
        Action::Bottom | Action::LastRequest => p.move_by(isize::MAX / 2),
        Action::SortNext => p.resort(|p| {
            p.sort = p.sort.next();
            p.descending = false;
        }),
        Action::SortReverse => p.resort(|p| p.descending = !p.descending),
        Action::ComparePanel => v.overlay = None,
        Action::ChartView => v.overlay = Some(Overlay::Chart),
        Action::Explain | Action::Submit => apply_selected(v),
        _ => {}
    }
}

/// A key while the chart is open.
pub(super) fn on_chart_key(v: &mut SessionView, action: Action) {
    match action {
        Action::ChartView => v.overlay = None,
        Action::ComparePanel => v.overlay = Some(Overlay::Compare),
        _ => {}
    }
}

/// Enter: the selected row's setting becomes the main view's; the panel closes.
fn apply_selected(v: &mut SessionView) {
    let (Some(i), Some(c)) = (v.compare.selected_row(), v.compare.computed()) else {
        return;
    };
    let row = &c.comparison.rows[i];
    let policy = row.params.apply(&c.base);
    let words = format!("{} {}", row.params.preset.name(), row.params.words());
    v.overlay = None;
    v.tune(|p| {
        *p = policy;
        Some(format!("applied compare row {i}: {words}"))
    });
}
