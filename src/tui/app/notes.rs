//! What the session screen says beyond its figures, as far as the layout
//! depends on it: the header's notes (how many lines they wrap to) and the
//! footer's observed cache break line (whether there is one). `ui` draws them;
//! `shape` tells `layout` (and so the mouse) how much room they take.

use super::*;
use crate::tui::layout::{self, Shape};

/// The `silent` budget note (SPEC §10), in short.
pub const SILENT: &str = "silent: budget fired at a turn start; Claude Code's prompt-suggestion fork usually ran it at the end of the previous turn, so no microcompact_boundary record is expected";

impl SessionView {
    /// What the regions of the screen depend on at `width` columns.
    pub fn shape(&self, width: u16) -> Shape {
        Shape {
            header_rows: self.header_rows(width).len(),
            header_notes: self.header_note_lines(width).len(),
            entries: self.plan.candidates.len() + self.plan.media.len(),
            observed: self.observed_line().is_some(),
        }
    }

    /// The header's notes wrapped to `width` columns: what `layout::regions` makes room for.
    pub fn header_note_lines(&self, width: u16) -> Vec<String> {
        self.header_notes()
            .iter()
            .flat_map(|n| layout::wrap(n, width.max(20) as usize))
            .collect()
    }

    /// Warnings the header carries on a line of their own.
    pub fn header_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(note) = self
            .setup
            .session
            .harness
            .asks()
            .kind_note(self.policy().kind)
        {
            notes.push(note.into());
        }
        if self.setup.session.subagent_what_if {
            notes.push("sub-agent transcript, planned as a what-if: the harnesses never microcompact sub-agents".into());
        }
        let s = &self.setup.session;
        if s.sidechain_records > 0 {
            notes.push(crate::report::left_out(s));
        }
        // A Qwen request: what its send kind runs, and what the transcript cannot settle.
        if let Some(send) = &self.plan.request.send {
            notes.push(format!(
                "{}: {}",
                send.kind.name(),
                crate::report::words::send_words(send.kind)
            ));
            if let Some(note) = &send.note {
                notes.push(format!("note: {note}"));
            }
        }
        if crate::report::silent(&self.plan.step, self.plan.request.begins_turn) {
            notes.push(SILENT.into());
        }
        // What the harness may not have run (SPEC §5), in short.
        let caveats: Vec<&str> = self
            .setup
            .caveats_at(&self.plan.request, &self.plan.step)
            .iter()
            .map(|c| c.short)
            .collect();
        if !caveats.is_empty() {
            notes.push(format!("may not have run: {}", caveats.join(" · ")));
        }
        notes
    }

    /// The observed cache break at the request shown, in short: expected, observed,
    /// drop and the explanations' names (SPEC §10).
    pub fn observed_line(&self) -> Option<String> {
        let b = self.evidence_at(self.k)?.observed_break.as_ref()?;
        let why: Vec<String> = b
            .explanations()
            .iter()
            .map(|x| match x {
                crate::evidence::Explanation::PlanRewrite => format!("{} (what-if)", x.name()),
                _ => x.name().to_string(),
            })
            .collect();
        Some(format!(
            "! observed cache break: read {} of {} expected (drop {}): {}",
            crate::numbers::fmt_int(b.observed),
            crate::numbers::fmt_int(b.expected),
            crate::numbers::fmt_int(b.drop()),
            why.join(", ")
        ))
    }
}
