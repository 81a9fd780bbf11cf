//! `mcscope demo`: the bundled claude-demo session with captions that walk through
//! cached microcompaction, then the idle/rewrite contrast. `→` advances.
//!
//! Data only: each stage says what the view should show ([`Stage::request_of`],
//! its plan, selection and wire text); the view applies it
//! (`SessionView::demo_stage`), so this module depends on nothing of the app.

use crate::policy::{Delivery, PlanKind};

/// The screen region a caption talks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    List,
    /// The diff, about its right side (the wire payload).
    Diff,
    /// The diff, about its left side (the local request).
    LocalSide,
    Footer,
}

pub struct Stage {
    pub title: &'static str,
    pub pain: &'static str,
    /// The caption; `{compactable}` stands for the preset table's list.
    text: &'static str,
    pub region: Region,
    pub kind: PlanKind,
    pub delivery: Delivery,
    /// Request to show: 0 = the last.
    request: usize,
    /// The result to select.
    pub select: &'static str,
    /// Scroll the diff to the first wire line containing this text.
    pub show: Option<&'static str>,
}

/// The bundled session (also `sample-sessions/claude-demo.jsonl`).
pub const SESSION: &str = include_str!("../../sample-sessions/claude-demo.jsonl");

pub const STAGES: &[Stage] = &[
    Stage {
        title: "1. Collect the candidates, in call order",
        pain: "which tools can be cleared?",
        text: "Every tool result of the request is listed. Results of compactable tools ({compactable}) are candidates, ranked by the order of their calls: rank 1 is the oldest.",
        region: Region::List,
        kind: PlanKind::Count,
        delivery: Delivery::CacheEdits,
        request: 4,
        select: "toolu_A",
        show: None,
    },
    Stage {
        title: "2. Register them and decide which sent results to delete",
        pain: "age is order, not time",
        text: "At request 5 four results are active, more than the trigger (3): every one outside the last 2 goes — \
               toolu_A and toolu_B. The count plan never looks at the clock.",
        region: Region::List,
        kind: PlanKind::Count,
        delivery: Delivery::CacheEdits,
        request: 5,
        select: "toolu_B",
        show: None,
    },
    Stage {
        title: "3. The local transcript is unchanged: only the deletion intent is recorded",
        pain: "only results already sent can be deleted",
        text: "toolu_D's result is still pending at request 5 (the server has not cached it yet), so it could not \
               be deleted even outside the keep window. The left side, the local request, keeps every result.",
        // The caption sits above the diff, whose left side it talks about.
        region: Region::LocalSide,
        kind: PlanKind::Count,
        delivery: Delivery::CacheEdits,
        request: 5,
        select: "toolu_D",
        show: None,
    },
    Stage {
        title: "4. The wire payload: cache_edits and cache_reference",
        pain: "the UI shows no change but tokens went away",
        text: "On the right, the request as sent: a cache_edits block deletes toolu_A and toolu_B from the server's \
               cache, pinned in the message where it was first sent; every earlier tool_result carries a \
               cache_reference. The content is unchanged: this plan keeps the prefix; the footer's break is the \
               pause's (ttl).",
        region: Region::Diff,
        kind: PlanKind::Count,
        delivery: Delivery::CacheEdits,
        request: 0,
        select: "toolu_A",
        show: Some("\"cache_edits\""),
    },
    Stage {
        title: "5. The contrast: idle clearing by rewrite",
        pain: "a 75-minute pause and a rewritten prompt: what did it cost?",
        text: "Claude's time-based clearing fires after 75.5 idle minutes: toolu_A and toolu_B become \
               [Old tool result content cleared] in the wire, so the prompt differs from message 2 on (the \
               footer's ✕ verdict). But the pause had already let the cache expire (the observed break's \
               first explanation: ttl), so the rewrite broke nothing that was still warm (0 warm breaks): the cost is the \
               re-write of the prompt after message 2, not a break.",
        region: Region::Footer,
        kind: PlanKind::Idle,
        delivery: Delivery::Rewrite,
        request: 0,
        select: "toolu_A",
        show: Some("[Old tool result content cleared]"),
    },
];

impl Stage {
    /// The caption, with the harness facts it names read from the preset table.
    pub fn text(&self) -> String {
        self.text.replace(
            "{compactable}",
            &crate::harness::CLAUDE.tools.compactable.join(", "),
        )
    }

    /// The request the stage shows in a session of `n` requests.
    pub fn request_of(&self, n: usize) -> usize {
        if self.request == 0 {
            n
        } else {
            self.request.min(n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_caption_names_every_compactable_tool() {
        let text = STAGES[0].text();
        for tool in crate::harness::CLAUDE.tools.compactable {
            assert!(text.contains(tool), "{tool} missing from {text}");
        }
    }

    #[test]
    fn the_stages_go_in_request_order() {
        let n = 6;
        let ks: Vec<usize> = STAGES.iter().map(|s| s.request_of(n)).collect();
        assert!(ks.windows(2).all(|w| w[0] <= w[1]), "{ks:?}");
    }

    #[test]
    fn a_stage_shows_its_request_or_the_last() {
        // Stage 1 shows request 4; stage 2 request 5, or the last of a
        // shorter session; stage 4 the last.
        assert_eq!(STAGES[0].request_of(7), 4);
        assert_eq!(STAGES[3].request_of(7), 7);
        assert_eq!(STAGES[1].request_of(7), 5);
        assert_eq!(STAGES[1].request_of(3), 3);
    }
}
