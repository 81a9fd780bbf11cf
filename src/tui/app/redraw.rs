//! Whether the screen needs drawing: only when something shown changed — an
//! action handled, background work arrived, the terminal resized, the picker's
//! scan or the compare panel's computation moved on — not on every poll tick.

use super::*;

/// What the screen shows of work still running, beside its results: the
/// compare panel's settings done, and whether it waits for the keys to stop.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Progress {
    compare: Option<(u64, u64)>,
    waiting_for_keys: bool,
}

impl App {
    /// Takes what the background has finished (the picker's scan, the diff, the
    /// footer's timeline, the compare panel, a followed file's new lines); true
    /// when something shown changed, and the next frame is then needed.
    pub fn tick(&mut self) -> bool {
        let mut changed = self.poll_picker();
        if let Some(v) = self.view_mut() {
            changed |= v.poll_background();
            changed |= v.poll_follow();
        }
        let progress = self.view().map_or_else(Progress::default, |v| Progress {
            compare: v.compare.progress(),
            waiting_for_keys: v.compare.waiting_for_keys(),
        });
        changed |= progress != std::mem::replace(&mut self.progress, progress);
        self.dirty |= changed;
        changed
    }

    /// Whether the screen is out of date: something changed since [`App::drawn`].
    pub fn needs_redraw(&self) -> bool {
        self.dirty
    }

    /// The screen shows the state as it is.
    pub fn drawn(&mut self) {
        self.dirty = false;
    }
}
