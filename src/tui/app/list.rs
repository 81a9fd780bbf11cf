//! The age list: which results it shows (the filter, the Qwen media rows) and
//! the search through them.

use super::*;

/// Which results the age list shows (`s` cycles, Esc clears).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Filter {
    #[default]
    All,
    Cleared,
    /// Protected, or a symlink escape (cleared although its path looked protected).
    Protected,
    /// Everything but a plain kept result.
    NotKept,
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Cleared => "cleared only",
            Filter::Protected => "protected / escapes only",
            Filter::NotKept => "not kept only",
        }
    }

    pub(super) fn next(self) -> Filter {
        match self {
            Filter::All => Filter::Cleared,
            Filter::Cleared => Filter::Protected,
            Filter::Protected => Filter::NotKept,
            Filter::NotKept => Filter::All,
        }
    }

    pub fn shows(self, c: &crate::policy::engine::Candidate) -> bool {
        use crate::policy::Status;
        match self {
            Filter::All => true,
            Filter::Cleared => c.status == Status::Cleared,
            Filter::Protected => {
                c.status == Status::Protected
                    || c.protection.as_ref().is_some_and(|p| {
                        p.outcome == crate::policy::protect::Outcome::SymlinkEscape
                    })
            }
            Filter::NotKept => c.status != Status::Kept,
        }
    }
}

impl Filter {
    /// Whether a Qwen media entry shows: its status is `media_cleared` or `kept`.
    pub fn shows_media(self, e: &analysis::MediaEntry) -> bool {
        match self {
            Filter::All => true,
            Filter::Cleared | Filter::NotKept => e.cleared,
            Filter::Protected => false,
        }
    }
}

/// A row of the age list: a result (an index into `plan.candidates`), or a Qwen
/// media entry (an index into `plan.media`) in its place in message order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRow {
    Result(usize),
    Media(usize),
}

impl SessionView {
    /// Selects the next result (in the list as filtered) that matches `q` in its id,
    /// tool, path or command: from the selection itself (`dir` 0, as you type),
    /// after it (1) or before it (-1), wrapping around.
    pub fn find(&mut self, q: &str, dir: isize) {
        if q.is_empty() {
            return;
        }
        let q = q.to_lowercase();
        let visible = self.visible();
        let n = visible.len();
        if n == 0 {
            self.status = Some(format!("no result matches {q:?}"));
            return;
        }
        let here = visible
            .iter()
            .position(|&i| i == self.selected)
            .unwrap_or(0) as isize;
        let hit = (0..n as isize)
            .map(|step| {
                let off = if dir < 0 { -step - 1 } else { step + dir };
                visible[(here + off).rem_euclid(n as isize) as usize]
            })
            .find(|&i| {
                let c = &self.plan.candidates[i];
                let r = &self.setup.session.results[c.result];
                [
                    Some(&r.id),
                    c.tool.as_ref(),
                    c.path.as_ref(),
                    c.summary.as_ref(),
                ]
                .into_iter()
                .flatten()
                .any(|s| s.to_lowercase().contains(&q))
            });
        match hit {
            Some(i) => {
                self.selected = i;
                self.status = None;
                self.scroll_diff_to_selected();
            }
            None => self.status = Some(format!("no result matches {q:?}")),
        }
    }

    /// Selects the first result at or after the selection (after, when `next`) that
    /// matches `q`.
    pub fn search(&mut self, q: &str, next: bool) {
        self.find(q, next as isize);
    }

    /// The candidates the age list shows (indices into `plan.candidates`).
    pub fn visible(&self) -> Vec<usize> {
        (0..self.plan.candidates.len())
            .filter(|&i| self.filter.shows(&self.plan.candidates[i]))
            .collect()
    }

    /// The age list's rows as filtered: the results in their order, with the Qwen
    /// media entries (SPEC §5: top-level media, and the nested media of tools
    /// that are not compactable, right after their result) in message order.
    pub fn rows(&self) -> Vec<ListRow> {
        let s = &self.setup.session;
        let start = self.plan.request.view_start;
        let media: Vec<(usize, (usize, usize))> = self
            .plan
            .media
            .iter()
            .enumerate()
            .filter(|(_, e)| self.filter.shows_media(e))
            .map(|(i, e)| (i, (e.message_index, e.part_index)))
            .collect();
        let mut out = Vec::with_capacity(self.plan.candidates.len() + media.len());
        let mut next = 0;
        for i in self.visible() {
            let r = &s.results[self.plan.candidates[i].result];
            let at = (r.msg.saturating_sub(start), r.part);
            while next < media.len() && media[next].1 < at {
                out.push(ListRow::Media(media[next].0));
                next += 1;
            }
            out.push(ListRow::Result(i));
            while next < media.len() && media[next].1 == at {
                out.push(ListRow::Media(media[next].0));
                next += 1;
            }
        }
        out.extend(media[next..].iter().map(|m| ListRow::Media(m.0)));
        out
    }

    /// The selection's place among `rows()` (the first row when it is not shown).
    pub fn selected_row(&self) -> usize {
        self.rows()
            .iter()
            .position(|r| *r == ListRow::Result(self.selected))
            .unwrap_or(0)
    }

    /// Keeps the selection on a shown result (the first, when it is filtered out).
    pub(super) fn fix_selection(&mut self) {
        let visible = self.visible();
        if !visible.contains(&self.selected) {
            self.selected = visible.first().copied().unwrap_or(0);
        }
    }
}
