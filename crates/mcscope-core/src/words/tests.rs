//! Every reason the engine records reads as the sentence the reports printed
//! when the engine wrote them itself (the golden outputs hold the same words).

use super::*;
use crate::policy::engine::*;
use crate::policy::engine::{BudgetWhy, Gate, NoRun, SizeWhy, TimeWhy};
use crate::policy::engine::{Status, TokenSource};
use crate::policy::protect::RootKind;

fn rank(r: usize, of: usize) -> Rank {
    Rank { rank: Some(r), of }
}

const IDLE: TimeWhy = TimeWhy::Idle {
    gap: Some(61.5),
    threshold: 60.0,
};
const SIZE: SizeWhy = SizeWhy {
    total: 12_000,
    threshold: 10_000,
    target: 5_000,
};
const COUNT: CountWhy = CountWhy {
    active: 5,
    trigger: 2,
};
const GATE: Gate = Gate {
    usage: Some(150_000),
    warning: 147_000,
};
const BUDGET: BudgetWhy = BudgetWhy {
    gate: GATE,
    pre_tokens: 50_000,
    budget: 20_000,
};
const TOKENS: ApiTrigger = ApiTrigger {
    on: TriggerOn::InputTokens(1000),
    tokens: 1200,
    uses: 7,
    holds: true,
    inclusive: false,
};

#[test]
fn step_notes_read_as_before() {
    let cases: Vec<(Note, &str)> = vec![
        (Note::NoRequests, "the session has no requests"),
        (
            Note::NotRun(NoRun::GoalHook),
            "a hook continuing a goal turn: Qwen runs no microcompaction here",
        ),
        (
            Note::Time(TimeNote::NotRun(NoRun::TurnOnly)),
            "idle: qwen looks at the gap only when a turn begins",
        ),
        (
            Note::Time(TimeNote::Disabled),
            "idle: disabled (negative gap threshold)",
        ),
        (
            Note::Time(TimeNote::UnderGap {
                gap: Some(12.25),
                threshold: 60.0,
            }),
            "idle: gap 12.25 < 60 min",
        ),
        (
            Note::Time(TimeNote::UnderGap {
                gap: None,
                threshold: 5.5,
            }),
            "idle: gap none < 5.5 min",
        ),
        (
            Note::Time(TimeNote::ForcedElsewhere { at: 7 }),
            "forced: acts at request 7 only",
        ),
        (
            Note::Time(TimeNote::Fired(IDLE)),
            "idle: gap 61.5 min >= 60",
        ),
        (
            Note::Time(TimeNote::Fired(TimeWhy::Forced { at: 3 })),
            "forced at request 3",
        ),
        (
            Note::Time(TimeNote::SavesNothing(IDLE)),
            "idle: gap 61.5 min >= 60, but nothing to clear saves tokens",
        ),
        (
            Note::Size(SizeNote::NotRun(NoRun::TurnOnly)),
            "size: qwen looks at the gap only when a turn begins",
        ),
        (
            Note::Size(SizeNote::OffWithIdle),
            "size: off with idle (negative gap and no size threshold set: Qwen's settings coupling)",
        ),
        (
            Note::Size(SizeNote::Disabled),
            "size: disabled (negative threshold)",
        ),
        (
            Note::Size(SizeNote::Under {
                total: 9_500,
                threshold: 10_000,
            }),
            "size: 9,500 chars <= 10,000",
        ),
        (
            Note::Size(SizeNote::Over {
                why: SIZE,
                overage: None,
            }),
            "size: 12,000 chars > 10,000; clearing oldest first down to 5,000",
        ),
        (
            Note::Size(SizeNote::Over {
                why: SIZE,
                overage: Some(3_000),
            }),
            "size: 12,000 chars > 10,000; clearing oldest first down to 5,000; overage: only 3,000 chars could go",
        ),
        (
            Note::Count(CountNote::Under(CountWhy {
                active: 2,
                trigger: 2,
            })),
            "count: 2 active <= trigger 2",
        ),
        (
            Note::Count(CountNote::Over(COUNT)),
            "count: 5 active > trigger 2",
        ),
        (
            Note::Count(CountNote::NothingSent(COUNT)),
            "count: 5 active > trigger 2, but nothing sent can be deleted",
        ),
    ];
    read_as(cases);
}

/// Budget and api notes (the rest are in `step_notes_read_as_before`).
#[test]
fn budget_and_api_notes_read_as_before() {
    let cases: Vec<(Note, &str)> = vec![
        (
            Note::Budget(BudgetNote::Gate(Gate {
                usage: Some(1_000),
                warning: 147_000,
            })),
            "budget: usage 1,000 < 147,000",
        ),
        (
            Note::Budget(BudgetNote::Gate(Gate {
                usage: None,
                warning: 147_000,
            })),
            "budget: no recorded usage in the view (gate 147,000)",
        ),
        (
            Note::Budget(BudgetNote::Fired {
                why: BUDGET,
                saved: 20_000,
            }),
            "budget: usage 150,000 ≥ 147,000; 50,000 tokens of results > 20,000; clearing saves 20,000",
        ),
        (
            Note::Budget(BudgetNote::Within(BudgetWhy {
                pre_tokens: 20_000,
                ..BUDGET
            })),
            "budget: usage 150,000 ≥ 147,000; 20,000 tokens of results ≤ 20,000: nothing to clear",
        ),
        (
            Note::Budget(BudgetNote::MinSaving {
                why: BUDGET,
                saved: 5_000,
                min: 20_000,
            }),
            "budget: usage 150,000 ≥ 147,000; 50,000 tokens of results > 20,000, but clearing saves only 5,000 < 20,000 minimum",
        ),
        (
            Note::Api(ApiNote {
                prompt: Prompt {
                    tokens: 1200,
                    source: TokenSource::Recorded,
                    uses: 1,
                },
                edits: vec![
                    EditNote::Thinking {
                        turns: 2,
                        keep: Some(1),
                    },
                    EditNote::NotFired {
                        trigger: ApiTrigger {
                            holds: false,
                            ..TOKENS
                        },
                    },
                ],
            }),
            "api: 1,200 input tokens (recorded), 1 tool use; clear_thinking_20251015: cleared the thinking of 2 turns, keeping the last 1; clear_tool_uses_20250919: not fired: 1,200 input tokens <= trigger 1,000",
        ),
        (
            Note::Api(ApiNote {
                prompt: Prompt {
                    tokens: 0,
                    source: TokenSource::Estimate,
                    uses: 0,
                },
                edits: Vec::new(),
            }),
            "api: 0 input tokens (estimate), 0 tool uses; ",
        ),
    ];
    read_as(cases);
}

/// Why no plan runs, by the version's row and by the kind of send (data in
/// the engine, words here).
#[test]
fn no_run_reads_by_version_and_send() {
    use crate::session::{HarnessId, SendKind};
    read_as(vec![
        (
            Note::NotRun(NoRun::NoClearing {
                harness: HarnessId::Claude,
                versions: "2.1.105-2.1.284",
            }),
            "auto: no plan (Claude Code 2.1.105-2.1.284 has no client-side tool-result clearing)",
        ),
        (
            Note::NotRun(NoRun::BeforeSampled {
                harness: HarnessId::Claude,
                first: "2.0.0",
            }),
            "auto: no plan (Claude Code before 2.0.0: no sampled build clears)",
        ),
        (Note::NotRun(NoRun::NoPlan), "auto: no plan"),
        (
            Note::Time(TimeNote::NotRun(NoRun::Send(SendKind::ToolResult))),
            "idle: tool results: Qwen runs only the size check here",
        ),
        (
            Note::NotRun(NoRun::Send(SendKind::Goal)),
            "a goal turn: Qwen runs no microcompaction here",
        ),
        (
            Note::NotRun(NoRun::VersionGap {
                on_until: (1, 3, 2),
                off_from: (1, 14, 34),
            }),
            "auto: no plan (the version lies between 1.3.2, prune on by default, and 1.14.34, off; unsampled)",
        ),
    ]);
}

/// The harnesses answer why auto planned nothing with data their version
/// tables hold: Claude Code's rows without clearing, its first sampled build,
/// OpenCode's unsampled gap; the words read as they did when they were typed.
#[test]
fn the_harness_s_no_plan_reads_as_before() {
    use crate::session::{HarnessId, Request};
    let at = |h: HarnessId, v: &str| {
        let req = Request {
            version: Some(v.into()),
            ..Request::empty(2)
        };
        Note::NotRun(h.asks().no_plan(&req)).to_string()
    };
    assert_eq!(
        at(HarnessId::Claude, "2.1.70"),
        "auto: no plan (Claude Code 2.1.64-2.1.83 has no client-side tool-result clearing)"
    );
    assert_eq!(
        at(HarnessId::Claude, "2.1.200"),
        "auto: no plan (Claude Code 2.1.105-2.1.284 has no client-side tool-result clearing)"
    );
    assert_eq!(
        at(HarnessId::Claude, "1.0.5"),
        "auto: no plan (Claude Code before 2.0.0: no sampled build clears)"
    );
    assert_eq!(at(HarnessId::Claude, "nightly"), "auto: no plan");
    assert_eq!(
        at(HarnessId::Opencode, "1.10.0"),
        "auto: no plan (the version lies between 1.3.2, prune on by default, and 1.14.34, off; unsampled)"
    );
}

fn read_as(cases: Vec<(Note, &str)>) {
    for (note, want) in cases {
        assert_eq!(note.to_string(), want, "{note:?}");
    }
}

#[test]
fn clearing_reasons_read_as_before() {
    let cases: Vec<(ClearReason, &str)> = vec![
        (
            ClearReason::Time(TimeCleared {
                why: IDLE,
                rank: rank(2, 9),
                keep: 5,
                clearable: false,
            }),
            "idle: gap 61.5 min >= 60; rank 2 of 9, not in last 5",
        ),
        (
            ClearReason::Time(TimeCleared {
                why: TimeWhy::Forced { at: 4 },
                rank: rank(1, 3),
                keep: 1,
                clearable: true,
            }),
            "forced at request 4; rank 1 of 3, not in last 1 clearable",
        ),
        (
            ClearReason::Size(SizeCleared {
                why: SIZE,
                rank: Rank { rank: None, of: 4 },
                keep: 1,
            }),
            "size: 12,000 chars > 10,000; clearing oldest first down to 5,000 (unranked, not in last 1 clearable)",
        ),
        (
            ClearReason::Count(CountCleared {
                why: COUNT,
                rank: rank(1, 5),
                keep: 2,
            }),
            "count: 5 active > trigger 2; rank 1 of 5, not in last 2, already sent",
        ),
        (
            ClearReason::Budget(BudgetCleared {
                why: BUDGET,
                rank: rank(1, 5),
                keep: 3,
            }),
            "budget: usage 150,000 ≥ 147,000; 50,000 tokens of results > 20,000; rank 1 of 5, not in last 3",
        ),
        (
            ClearReason::Api(ApiCleared {
                trigger: TOKENS,
                nth: 2,
                of: 7,
                keep: 3,
                input_too: false,
            }),
            "clear_tool_uses_20250919: 1,200 input tokens > trigger 1,000; tool use 2 of 7, not in the last 3",
        ),
        (
            ClearReason::Api(ApiCleared {
                trigger: ApiTrigger {
                    on: TriggerOn::ToolUses(5),
                    inclusive: true,
                    ..TOKENS
                },
                nth: 1,
                of: 7,
                keep: 3,
                input_too: true,
            }),
            "clear_tool_uses_20250919: 7 tool uses >= trigger 5; tool use 1 of 7, not in the last 3; input cleared too",
        ),
    ];
    for (why, want) in cases {
        assert_eq!(why.to_string(), want, "{why:?}");
    }
}

#[test]
fn kept_reasons_read_as_before() {
    let cases: Vec<(Kept, &str)> = vec![
        (
            Kept::InLastCalls {
                keep: 5,
                rank: rank(7, 9),
            },
            "in the last 5 compactable calls (rank 7 of 9)",
        ),
        (Kept::ErrorClearErrorsOff, "error result (clear_errors off)"),
        (
            Kept::InLastClearable {
                keep: 1,
                rank: rank(3, 3),
            },
            "in the last 1 clearable results (rank 3 of 3)",
        ),
        (Kept::Pending, "pending: just returned, not yet sent"),
        (Kept::ErrorNeverCleared, "error result: never cleared"),
        (Kept::Empty, "empty result (0 chars)"),
        (
            Kept::Size(SizeKept::TargetReached { target: 5_000 }),
            "size target 5,000 reached",
        ),
        (
            Kept::Count(CountKept::InLastActive { keep: 2 }),
            "in the last 2 active results",
        ),
        (
            Kept::Count(CountKept::NotYetSent),
            "not yet sent: only results already sent can be deleted",
        ),
        (
            Kept::Budget(BudgetKept::NotEligible),
            "PowerShell results are never cleared by the budget plan",
        ),
        (
            Kept::Budget(BudgetKept::InLastEligible {
                keep: 3,
                rank: rank(4, 5),
            }),
            "in the last 3 eligible calls (rank 4 of 5)",
        ),
        (
            Kept::Budget(BudgetKept::RestFits {
                budget: 20_000,
                rank: rank(2, 5),
            }),
            "budget: the rest fits in 20,000 once older results are cleared (rank 2 of 5)",
        ),
        (
            Kept::Api(ApiKept::Excluded {
                tool: "memory".into(),
            }),
            "memory is in exclude_tools: never cleared",
        ),
        (
            Kept::Api(ApiKept::InWindow {
                keep: 3,
                excluded_counted: true,
            }),
            "in the last 3 tool uses",
        ),
        (
            Kept::Api(ApiKept::InWindow {
                keep: 3,
                excluded_counted: false,
            }),
            "in the last 3 tool uses (excluded tools not counted)",
        ),
        (
            Kept::Api(ApiKept::Edit(EditNote::TooLittle {
                trigger: TOKENS,
                tokens: 700,
                at_least: 701,
            })),
            "clear_tool_uses_20250919: 1,200 input tokens > trigger 1,000, but would clear 700 input tokens < clear_at_least 701: nothing applied",
        ),
    ];
    for (kept, want) in cases {
        assert_eq!(kept.to_string(), want, "{kept:?}");
    }
}

#[test]
fn api_edit_notes_read_as_before() {
    let cases: Vec<(EditNote, &str)> = vec![
        (
            EditNote::NotFired {
                trigger: ApiTrigger {
                    on: TriggerOn::ToolUses(3),
                    uses: 1,
                    holds: false,
                    inclusive: true,
                    ..TOKENS
                },
            },
            "clear_tool_uses_20250919: not fired: 1 tool use < trigger 3",
        ),
        (
            EditNote::Applied {
                trigger: TOKENS,
                uses: 4,
                tokens: 2_400,
            },
            "clear_tool_uses_20250919: 1,200 input tokens > trigger 1,000: cleared 4 tool uses, 2,400 input tokens (estimate)",
        ),
        (
            EditNote::Applied {
                trigger: TOKENS,
                uses: 1,
                tokens: 100,
            },
            "clear_tool_uses_20250919: 1,200 input tokens > trigger 1,000: cleared 1 tool use, 100 input tokens (estimate)",
        ),
        (
            EditNote::Thinking {
                turns: 1,
                keep: Some(2),
            },
            "clear_thinking_20251015: cleared the thinking of 1 turn, keeping the last 2",
        ),
        (
            EditNote::Thinking {
                turns: 0,
                keep: None,
            },
            "clear_thinking_20251015: keep all: nothing cleared",
        ),
    ];
    for (note, want) in cases {
        assert_eq!(note.to_string(), want, "{note:?}");
    }
}

mod candidates;
