//! The mouse on the screen: which region, which row (`Action::Pointer`).

use super::*;
use crate::tui::layout;

impl App {
    /// The mouse at (`col`, `row`): a click selects the row under it or focuses
    /// the region; the wheel scrolls the region under it (or the open panel).
    pub(super) fn pointer(&mut self, m: Pointer, col: u16, row: u16) {
        let size = self.size;
        use ratatui::layout::{Position, Rect};
        let area = Rect::new(0, 0, size.0, size.1);
        let at = Position::new(col, row);
        let steps = |a: Action| -> Vec<Action> { vec![a; 3] };
        match &mut self.screen {
            Screen::Picker(p) => match m {
                Pointer::WheelUp => steps(Action::Up).into_iter().for_each(|a| self.update(a)),
                Pointer::WheelDown => steps(Action::Down).into_iter().for_each(|a| self.update(a)),
                // The title line and the column titles, the rows, the selection's
                // path and the hint line.
                Pointer::Click => p.click(row, size.1.saturating_sub(4) as usize),
            },
            Screen::Session(v) => {
                if v.overlay.is_some() {
                    match m {
                        Pointer::WheelUp => steps(Action::Up).into_iter().for_each(|a| v.update(a)),
                        Pointer::WheelDown => {
                            steps(Action::Down).into_iter().for_each(|a| v.update(a))
                        }
                        Pointer::Click => {}
                    }
                    return;
                }
                let [_, list, diff, _] = layout::regions(area, v.shape(size.0));
                let region = if list.contains(at) {
                    Focus::List
                } else if diff.contains(at) {
                    Focus::Diff
                } else {
                    return;
                };
                match m {
                    Pointer::Click => {
                        v.focus = region;
                        // The list: its title, its column titles, then the rows.
                        let first = list.y + 2;
                        if region == Focus::List && row >= first {
                            let height = list.height.saturating_sub(2) as usize;
                            let top = layout::list_top(v.selected_row(), height);
                            if let Some(&ListRow::Result(i)) =
                                v.rows().get(top + (row - first) as usize)
                            {
                                v.selected = i;
                                v.scroll_diff_to_selected();
                            }
                        }
                    }
                    Pointer::WheelUp | Pointer::WheelDown => {
                        // Scroll the region under the pointer, whatever has the focus.
                        let focus = std::mem::replace(&mut v.focus, region);
                        let delta = if m == Pointer::WheelUp { -3 } else { 3 };
                        v.move_by(delta);
                        v.focus = focus;
                    }
                }
            }
        }
    }
}
