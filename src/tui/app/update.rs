//! The view's half of `update(Action)`: keys on the session, and keys while a
//! panel is open.

use super::*;
use crate::policy::params::{GAP_KEYS, KEEP_KEYS, SIZE_KEYS};
use crate::tui::{keymap, layout};

impl SessionView {
    pub(super) fn update(&mut self, action: Action) {
        // The compare panel's background work waits while keys arrive.
        self.compare.key_pressed();
        if let Some(stage) = self.demo {
            match action {
                Action::NextRequest if stage + 1 < crate::tui::demo::STAGES.len() => {
                    return self.demo_stage(stage + 1);
                }
                Action::NextRequest | Action::Back => {
                    self.demo = None;
                    self.status = Some("end of the demo: every key works now (? for help)".into());
                    return;
                }
                Action::PrevRequest => {
                    return self.demo_stage(stage.saturating_sub(1));
                }
                _ => {}
            }
        }
        if self.overlay.is_some() {
            return self.update_overlay(action);
        }
        let n = self.setup.session.requests.len();
        match action {
            Action::NextRequest if self.k < n => self.step_to(self.k + 1),
            Action::PrevRequest if self.k > 1 => self.step_to(self.k - 1),
            Action::FirstRequest if n > 0 => self.step_to(1),
            Action::LastRequest => self.step_to(n),
            Action::CyclePlan
            | Action::ToggleDelivery
            | Action::KeepMore
            | Action::KeepLess
            | Action::GapUp
            | Action::GapDown
            | Action::SizeUp
            | Action::SizeDown
            | Action::ToggleProtect => self.update_plan(action),
            Action::Explain => self.explain_selected(),
            Action::Search => self.overlay = Some(Overlay::Search(String::new())),
            Action::Command => self.overlay = Some(Overlay::Command(String::new())),
            Action::Export => {
                self.page_export = None;
                self.overlay = Some(Overlay::Export(self.default_export_path()));
            }
            Action::ExportPage => self.export_selected_page(),
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::ComparePanel => compare::open(self),
            Action::ChartView => compare::open_chart(self),
            Action::WindowPanel => self.overlay = Some(Overlay::Window { scroll: 0 }),
            Action::BillPanel => {
                // The break at or after the request shown is selected first.
                let at = self
                    .bill_breaks()
                    .iter()
                    .position(|b| b.request.is_some_and(|k| k >= self.k))
                    .unwrap_or(0);
                self.overlay = Some(Overlay::Bill { selected: at });
            }
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::List => Focus::Diff,
                    Focus::Diff => Focus::List,
                }
            }
            Action::CycleFilter => {
                self.filter = self.filter.next();
                self.fix_selection();
                self.scroll_diff_to_selected();
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::NextChange
            | Action::PrevChange
            | Action::NextFired
            | Action::PrevFired
            | Action::NextBreak
            | Action::PrevBreak
            | Action::NextEvidence
            | Action::PrevEvidence
            | Action::NextObserved
            | Action::PrevObserved => self.update_moves(action),
            Action::ScrollLeft => self.hscroll = self.hscroll.saturating_sub(8),
            Action::ScrollRight => self.hscroll += 8,
            Action::ToggleFollow => self.toggle_follow(),
            Action::Copy => match self.selected_id() {
                // The id as shown: a newline or control character in a
                // recorded id never reaches the clipboard (paste-jacking).
                Some(id) => self.copy(crate::sanitize::clipboard(&id).into_owned()),
                None => self.status = Some("no result selected".into()),
            },
            Action::ViewContent => self.view_content(),
            Action::ToggleFolds => {
                self.unfold_all = !self.unfold_all;
                self.refold();
            }
            // Esc with no panel: clear the search, then the filter (App::update
            // handles the rest: back to the session list, or nothing).
            Action::Back => {
                if self.search.take().is_some() {
                    self.status = Some("search cleared: n/N step through diff changes".into());
                } else if self.filter != Filter::All {
                    self.filter = Filter::All;
                    self.fix_selection();
                }
            }
            _ => {}
        }
    }

    /// A key that tunes the plan (each through `tune`, so through
    /// `Policy::check`).
    fn update_plan(&mut self, action: Action) {
        match action {
            // Through every kind in the table's order (auto → idle → idle-server → forced → size →
            // count → budget → recorded), back to the first.
            // The api preset: api → recorded → api (SPEC §15.3); its recorded
            // keeps delivery server, which tells it from the other presets'.
            Action::CyclePlan => self.tune(|p| {
                let kind = p.next_kind();
                p.set_kind(kind).map(|s| tune::settled_words(s).into())
            }),
            // Rewrite ↔ cache-edits; what the harness or the kind cannot take
            // is refused by `Policy::check` in `tune`.
            Action::ToggleDelivery => self.tune(|p| match p.next_delivery() {
                Some(d) => {
                    p.delivery = d;
                    None
                }
                None => Some("the server makes these edits (delivery server only)".into()),
            }),
            Action::KeepMore | Action::KeepLess if self.setup.policy.kind.is_api() => {
                // SPEC §11: +/- edit the first clear_tool_uses edit's keep.value.
                let more = action == Action::KeepMore;
                self.tune(|p| match p.api.first_tool_uses_keep() {
                    Some(keep) => {
                        let step = u64::from(KEEP_KEYS.step);
                        *keep = if more {
                            *keep + step
                        } else {
                            keep.saturating_sub(step)
                        };
                        None
                    }
                    None => {
                        Some("no clear_tool_uses edit to tune (add one with --api-edit)".into())
                    }
                })
            }
            Action::KeepMore => {
                // From the value in force at K: an explicit value from now on.
                let keep = self.keep_in_force() as u32;
                self.tune(|p| {
                    p.keep_recent = Some(keep + KEEP_KEYS.step);
                    None
                })
            }
            Action::KeepLess => {
                let keep = self.keep_in_force() as u32;
                self.tune(|p| {
                    p.keep_recent = Some(keep.saturating_sub(KEEP_KEYS.step).max(1));
                    None
                })
            }
            Action::GapUp => self.tune(|p| {
                p.gap_threshold_minutes =
                    (p.gap_threshold_minutes.max(0.0) + f64::from(GAP_KEYS.step)).floor();
                None
            }),
            Action::GapDown => self.tune(|p| {
                p.gap_threshold_minutes = (p.gap_threshold_minutes - f64::from(GAP_KEYS.step))
                    .max(0.0)
                    .floor();
                None
            }),
            Action::SizeUp => self.tune(|p| {
                p.size_threshold = p.size_threshold.max(0) + i64::from(SIZE_KEYS.step);
                p.size_explicit = true;
                None
            }),
            Action::SizeDown => self.tune(|p| {
                p.size_threshold = (p.size_threshold - i64::from(SIZE_KEYS.step)).max(0);
                p.size_explicit = true;
                None
            }),
            Action::ToggleProtect => self.tune(|p| {
                p.protect = !p.protect;
                None
            }),
            _ => {}
        }
    }

    /// A key that moves the selection or jumps along the requests.
    fn update_moves(&mut self, action: Action) {
        match action {
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-10),
            Action::PageDown => self.move_by(10),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::NextChange | Action::PrevChange => {
                let forward = action == Action::NextChange;
                match self.search.clone() {
                    Some(q) => self.find(&q, if forward { 1 } else { -1 }),
                    None => self.jump_change(forward),
                }
            }
            Action::NextFired => self.jump_mark(true, |m| m.fired, "the plan fired"),
            Action::PrevFired => self.jump_mark(false, |m| m.fired, "the plan fired"),
            Action::NextBreak => self.jump_mark(true, |m| m.broke, "the simulated cache broke"),
            Action::PrevBreak => self.jump_mark(false, |m| m.broke, "the simulated cache broke"),
            Action::NextEvidence => {
                self.jump_mark(true, |m| m.evidence, "the transcript holds evidence")
            }
            Action::PrevEvidence => {
                self.jump_mark(false, |m| m.evidence, "the transcript holds evidence")
            }
            Action::NextObserved => {
                self.jump_mark(true, |m| m.observed, "a cache break was observed")
            }
            Action::PrevObserved => {
                self.jump_mark(false, |m| m.observed, "a cache break was observed")
            }
            _ => {}
        }
    }

    /// A key while a panel is open: Esc and q close it; the rest is the panel's.
    pub(super) fn update_overlay(&mut self, action: Action) {
        let Some(o) = &mut self.overlay else { return };
        match (o, action) {
            (Overlay::ConfirmExport(path), a) => {
                // Only a y replaces the file: Enter, n, Esc or any other key keeps it.
                let path = std::mem::take(path);
                self.overlay = None;
                self.confirm_export(path, matches!(a, Action::Type('y' | 'Y')));
            }
            (Overlay::Search(_), Action::Back) => {
                self.overlay = None;
                self.search = None;
            }
            (_, Action::Back | Action::Quit) => self.overlay = None,
            (Overlay::Compare, a) => compare::on_key(self, a),
            (Overlay::Chart, a) => compare::on_chart_key(self, a),
            (Overlay::Bill { selected }, a) => {
                let selected = *selected;
                self.bill_key(selected, a);
            }
            (Overlay::Window { scroll }, a) => match a {
                Action::Up => *scroll = scroll.saturating_sub(1),
                Action::Down => *scroll += 1,
                Action::Top => *scroll = 0,
                a => self.window_key(a),
            },
            (Overlay::Help { scroll }, a) => {
                let (width, lines) = (layout::HELP_WIDTH, keymap::help_lines().len());
                let max = layout::panel_max_scroll(self.size, width, lines);
                let page = layout::panel_page(self.size, width, lines);
                *scroll = match a {
                    Action::Up => scroll.saturating_sub(1),
                    Action::Down => *scroll + 1,
                    Action::PageUp => scroll.saturating_sub(page),
                    Action::PageDown => *scroll + page,
                    Action::Top | Action::FirstRequest => 0,
                    Action::Bottom | Action::LastRequest => max,
                    // Any other key closes the help.
                    _ => {
                        self.overlay = None;
                        return;
                    }
                }
                .min(max);
            }
            (Overlay::Explain { explain, .. }, Action::ExportPage) => {
                let explain = explain.clone();
                self.open_page_export(explain);
            }
            (Overlay::Explain { explain, .. }, Action::Copy) => {
                let text = crate::report::explain_text(&self.setup, explain);
                self.copy(crate::sanitize::text_owned(text));
            }
            (Overlay::Content { lines, scroll, .. }, a) => {
                let max = lines.len().saturating_sub(1);
                *scroll = match a {
                    Action::Down => *scroll + 1,
                    Action::Up => scroll.saturating_sub(1),
                    Action::PageDown => *scroll + 20,
                    Action::PageUp => scroll.saturating_sub(20),
                    Action::Top => 0,
                    Action::Bottom => max,
                    _ => *scroll,
                }
                .min(max);
                if a == Action::ViewContent {
                    self.overlay = None;
                }
            }
            (Overlay::Explain { scroll, explain }, a) => match a {
                Action::Down => *scroll = (*scroll + 1).min(explain.rows.len()),
                Action::Up => *scroll = scroll.saturating_sub(1),
                Action::PageDown => *scroll = (*scroll + 10).min(explain.rows.len()),
                Action::PageUp => *scroll = scroll.saturating_sub(10),
                Action::Top => *scroll = 0,
                Action::Bottom => *scroll = explain.rows.len().saturating_sub(1),
                Action::Explain => self.overlay = None,
                _ => {}
            },
            (Overlay::Search(q) | Overlay::Command(q) | Overlay::Export(q), a) => match a {
                Action::Type(c) => {
                    q.push(c);
                    if let Some(Overlay::Search(q)) = &self.overlay {
                        let q = q.clone();
                        self.find(&q, 0);
                    }
                }
                Action::Erase => {
                    q.pop();
                }
                Action::EraseLine => {
                    q.clear();
                    if let Some(Overlay::Search(q)) = &self.overlay {
                        let q = q.clone();
                        self.find(&q, 0);
                    }
                }
                Action::Complete => {
                    if let Some(Overlay::Command(q)) = &mut self.overlay {
                        let (text, note) = complete(q);
                        *q = text;
                        self.status = note;
                    }
                }
                Action::Submit => self.submit(),
                _ => {}
            },
        }
    }

    /// A key on the bill panel (`$`): ↑/↓ (and ←/→) choose a break, Enter
    /// goes to its request and closes the panel, `$` closes it.
    fn bill_key(&mut self, selected: usize, a: Action) {
        let breaks: Vec<usize> = self
            .bill_breaks()
            .iter()
            .filter_map(|b| b.request)
            .collect();
        let last = breaks.len().saturating_sub(1);
        let next = match a {
            Action::Up | Action::PrevRequest => selected.saturating_sub(1),
            Action::Down | Action::NextRequest => (selected + 1).min(last),
            Action::Explain | Action::Submit => {
                if let Some(&k) = breaks.get(selected) {
                    self.overlay = None;
                    self.step_to(k);
                }
                return;
            }
            Action::BillPanel => {
                self.overlay = None;
                return;
            }
            _ => selected,
        };
        self.overlay = Some(Overlay::Bill { selected: next });
    }

    /// A key on the window panel (`w`) besides its scrolling: `w` closes it;
    /// ←/→, Home and End step through the requests as on the view, the panel
    /// following.
    fn window_key(&mut self, a: Action) {
        let n = self.setup.session.requests.len();
        match a {
            Action::WindowPanel => self.overlay = None,
            Action::NextRequest if self.k < n => self.step_to(self.k + 1),
            Action::PrevRequest if self.k > 1 => self.step_to(self.k - 1),
            Action::FirstRequest if n > 0 => self.step_to(1),
            Action::LastRequest => self.step_to(n),
            _ => {}
        }
    }
}
