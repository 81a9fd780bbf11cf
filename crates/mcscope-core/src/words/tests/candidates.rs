//! A candidate's reason, its protection and an explain row, in words.

use super::*;

fn candidate(tool: Option<&str>, reason: Reason, outcome: Option<Outcome>) -> Candidate {
    Candidate {
        result: 0,
        tool: tool.map(str::to_string),
        compactable: true,
        rank: Some(1),
        path: None,
        summary: None,
        paths: Vec::new(),
        file_path_tool: true,
        protection: outcome.map(|outcome| Protection {
            outcome,
            root: Some(RootKind::User),
            resolved: Some("/home/u/.claude/memory/a.md".into()),
        }),
        pending: false,
        status: Status::Kept,
        reason,
        cleared_at: None,
        dead_branch: false,
    }
}

#[test]
fn candidate_reasons_read_as_before() {
    let note = Note::Time(TimeNote::UnderGap {
        gap: Some(3.0),
        threshold: 60.0,
    });
    let count = ClearReason::Count(CountCleared {
        why: COUNT,
        rank: rank(1, 5),
        keep: 2,
    });
    let cases: Vec<(Candidate, &str)> = vec![
        (candidate(Some("Read"), Reason::Unset, None), ""),
        (
            candidate(Some("Task"), Reason::NotCompactable, None),
            "Task results are not compactable",
        ),
        (
            candidate(None, Reason::NotCompactable, None),
            "no tool call with this id in the view",
        ),
        (
            candidate(Some("Read"), Reason::AlreadyCleared, None),
            "already cleared in the transcript",
        ),
        (
            candidate(Some("Read"), Reason::Protected, Some(Outcome::Protected)),
            "protected: inside the user memory root (/home/u/.claude/memory/a.md)",
        ),
        (
            candidate(
                Some("Read"),
                Reason::Cleared {
                    earlier: None,
                    why: count,
                },
                None,
            ),
            "count: 5 active > trigger 2; rank 1 of 5, not in last 2, already sent",
        ),
        (
            candidate(
                Some("Read"),
                Reason::Cleared {
                    earlier: Some(4),
                    why: count,
                },
                None,
            ),
            "cleared at request 4: count: 5 active > trigger 2; rank 1 of 5, not in last 2, already sent",
        ),
        (
            candidate(
                Some("read_file"),
                Reason::ErrorKept(crate::session::HarnessId::Qwen),
                None,
            ),
            "error result: qwen never clears errors",
        ),
        (
            candidate(
                Some("bash"),
                Reason::ErrorKept(crate::session::HarnessId::Opencode),
                None,
            ),
            "error result: OpenCode's prune never clears a tool part that ended in an error",
        ),
        (
            candidate(Some("Read"), Reason::Kept(Kept::Pending), None),
            "pending: just returned, not yet sent",
        ),
        (
            candidate(Some("Read"), Reason::KeptByPlan { fired: true }, None),
            "kept: idle: gap 3 < 60 min",
        ),
        (
            candidate(Some("Read"), Reason::KeptByPlan { fired: false }, None),
            "no plan fired: idle: gap 3 < 60 min",
        ),
        // A protection that does not protect is said after the reason.
        (
            candidate(
                Some("Read"),
                Reason::KeptByPlan { fired: false },
                Some(Outcome::Outside),
            ),
            "no plan fired: idle: gap 3 < 60 min; outside every memory root (/home/u/.claude/memory/a.md)",
        ),
    ];
    for (c, want) in cases {
        assert_eq!(reason(&c, &note), want, "{:?}", c.reason);
    }
}

#[test]
fn protections_read_as_before() {
    let p = |outcome| {
        candidate(Some("Read"), Reason::Protected, Some(outcome))
            .protection
            .unwrap()
    };
    assert_eq!(protection_text(None), "protection off");
    let cases = [
        (
            Outcome::Protected,
            "protected: inside the user memory root (/home/u/.claude/memory/a.md)",
        ),
        (
            Outcome::Unverified,
            "protected, unverified: the user root does not exist here; decided lexically",
        ),
        (
            Outcome::SymlinkEscape,
            "symlink escape: inside the user root by name, resolves to /home/u/.claude/memory/a.md",
        ),
        (
            Outcome::Outside,
            "outside every memory root (/home/u/.claude/memory/a.md)",
        ),
        (
            Outcome::UnresolvedId,
            "unresolved id: no file path recorded for this id",
        ),
        (
            Outcome::AmbiguousId,
            "ambiguous id: several paths recorded for this id",
        ),
    ];
    for (outcome, want) in cases {
        assert_eq!(protection_text(Some(&p(outcome))), want);
    }
}

#[test]
fn an_explain_row_says_the_api_edits_beside_the_reason() {
    let row = |edits_here: Option<&str>| ExplainRow {
        index: 3,
        status: Status::Kept,
        candidate: candidate(Some("Read"), Reason::Kept(Kept::Empty), None),
        note: Note::NoRequests,
        edits_here: edits_here.map(str::to_string),
        plausible: crate::policy::plausible::Plausible {
            could_run: None,
            reason: "not_assessed",
        },
    };
    assert_eq!(explain_reason(&row(None)), "empty result (0 chars)");
    assert_eq!(
        explain_reason(&row(Some("sim 1 | rec 1"))),
        "empty result (0 chars) [edits here: sim 1 | rec 1]"
    );
}

/// SPEC §9a baseline, §15.5: the `recorded` plan's note and reasons in words.
#[test]
fn t9a_recorded_notes_say_what_the_records_prove() {
    use crate::policy::engine::{RecordedEdit, RecordedWhy};
    let why = |boundary_ids, added, edit| {
        Note::Recorded(RecordedWhy {
            boundary_ids,
            added,
            edit,
        })
        .to_string()
    };
    assert_eq!(why(0, 0, None), "recorded: no recorded clearing in force");
    assert_eq!(
        why(3, 3, None),
        "recorded: 3 ids of the harness's microcompact boundaries in force (3 added here)"
    );
    assert_eq!(
        why(1, 0, None),
        "recorded: 1 id of the harness's microcompact boundaries in force"
    );
    let edit = |simulated| RecordedEdit {
        cleared_tool_uses: 20,
        cleared_input_tokens: 30_000,
        simulated,
    };
    assert_eq!(
        why(0, 0, Some(edit(Some(20)))),
        "recorded: the server cleared 20 tool uses (30,000 tokens) as recorded, ids as idle-server's simulation names them"
    );
    assert_eq!(
        why(2, 0, Some(edit(Some(19)))),
        "recorded: 2 ids of the harness's microcompact boundaries in force; the server cleared 20 tool uses (30,000 tokens) as recorded, ids unknown (idle-server's simulation clears 19): its tokens counted as not sent"
    );
    assert!(why(0, 0, Some(edit(None))).contains("simulation applies nothing here"));
    assert_eq!(
        ClearReason::Recorded(ByRecord { server: false }).to_string(),
        "recorded: a microcompact boundary of the harness names it"
    );
    assert!(
        ClearReason::Recorded(ByRecord { server: true })
            .to_string()
            .starts_with("recorded: the server's applied clear_tool_uses edit")
    );
}
