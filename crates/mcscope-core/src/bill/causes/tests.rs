//! SPEC §16.B on sessions built line by line: each test names its rule.

use super::*;
use crate::evidence::tests::{Tx, usage};
use serde_json::json;

fn rows(tx: &Tx) -> Vec<Response> {
    partition(&tx.session(), &[], &mut HashSet::new())
}

fn one_hour(input: u64, write: u64, w1: u64, read: u64) -> serde_json::Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": write,
           "cache_read_input_tokens": read, "output_tokens": 5,
           "cache_creation": {"ephemeral_5m_input_tokens": write - w1, "ephemeral_1h_input_tokens": w1}})
}

/// A session of three turns: the first writes 20,000, the second reads them.
fn warm() -> Tx {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 20_000, 0), None)
        .prompt(1.0)
        .response("m2", 1.1, usage(10, 1_000, 20_000), None);
    tx
}

#[test]
fn b2_b4_2_the_first_response_is_first_and_the_rest_growth() {
    let r = rows(&warm());
    assert_eq!(
        (r[0].cause, r[0].cause_5m, r[0].growth_5m()),
        (Cause::First, 20_000, 0)
    );
    assert_eq!(
        (r[1].cause, r[1].growth_5m(), r[1].expected),
        (Cause::Growth, 1_000, Some(20_000))
    );
}

#[test]
fn b4_4_a_drop_below_the_break_threshold_is_drift() {
    let mut tx = warm();
    // E = 21,000; R = 20,000: D = 1,000 < 2,000, no break.
    tx.prompt(2.0)
        .response("m3", 2.1, usage(10, 3_000, 20_000), None);
    let r = rows(&tx);
    assert!(!r[2].is_break);
    assert_eq!(
        (r[2].cause, r[2].cause_5m, r[2].growth_5m()),
        (Cause::Drift, 1_000, 2_000)
    );
}

#[test]
fn b3_b4_3_7_a_break_no_record_explains_is_unexplained_with_its_level() {
    let mut tx = warm();
    // E = 21,000, R = 0: zero.
    tx.prompt(2.0)
        .response("m3", 2.1, usage(10, 21_000, 0), None);
    let r = rows(&tx);
    assert!(r[2].is_break);
    assert_eq!(
        (r[2].cause, r[2].level),
        (Cause::Unexplained, Some(Level::Zero))
    );
    assert_eq!(r[2].rewritten(), 21_000);
    // R = 20,000 then a fall to 15,000 of E = 40,000: ≤ 1.3 × 15,000 + 2,000 → floor.
    let mut tx = warm();
    tx.prompt(2.0)
        .response("m3", 2.1, usage(10, 19_000, 21_000), None)
        .prompt(3.0)
        .response("m4", 3.1, usage(10, 26_000, 15_000), None);
    let r = rows(&tx);
    assert_eq!(
        (r[3].cause, r[3].level),
        (Cause::Unexplained, Some(Level::Floor))
    );
    // A fall to 30,000 of E = 60,000 with a floor of 20,000: partial.
    let mut tx = warm();
    tx.prompt(2.0)
        .response("m3", 2.1, usage(10, 39_000, 21_000), None)
        .prompt(3.0)
        .response("m4", 3.1, usage(10, 31_000, 30_000), None);
    let r = rows(&tx);
    assert_eq!(
        (r[3].cause, r[3].level),
        (Cause::Unexplained, Some(Level::Partial))
    );
    // W < D: only W is rewritten.
    assert_eq!((r[3].drop, r[3].rewritten()), (30_000, 30_000));
}

#[test]
fn b4_3_order_compaction_before_ttl_before_resume() {
    // A compaction after an hour's gap: compaction wins.
    let mut tx = warm();
    tx.compact(80.0)
        .prompt(80.0)
        .response("m3", 80.1, usage(10, 5_000, 0), None);
    let r = rows(&tx);
    assert_eq!(r[2].cause, Cause::Compaction);
    assert!(r[2].explanations.contains(&Explanation::Ttl));
    // An hour's gap with a resume hook: ttl wins (the cache was cold anyway).
    let mut tx = warm();
    tx.rec(
        "progress",
        79.0,
        json!({"data": {"type": "hook_progress", "hookEvent": "SessionStart", "hookName": "SessionStart:resume"}}),
    )
    .prompt(80.0)
    .response("m3", 80.1, usage(10, 21_000, 0), None);
    let r = rows(&tx);
    assert_eq!(r[2].cause, Cause::Ttl);
    assert_eq!(
        r[2].explanations,
        vec![Explanation::Ttl, Explanation::Restart]
    );
}

#[test]
fn b6_a_session_start_hook_or_a_version_change_is_a_resume() {
    for hook in [
        "SessionStart:resume",
        "SessionStart:startup",
        "SessionStart:clear",
    ] {
        let mut tx = warm();
        tx.rec(
            "attachment",
            2.0,
            json!({"attachment": {"type": "hook_success", "hookEvent": "SessionStart", "hookName": hook}}),
        )
        .prompt(2.0)
        .response("m3", 2.1, usage(10, 21_000, 0), None);
        assert_eq!(rows(&tx)[2].cause, Cause::Resume, "{hook}");
    }
    // §18.24: an empty hookName is no resume; `:compact` is no marker.
    for hook in ["", "SessionStart:compact"] {
        let mut tx = warm();
        tx.rec(
            "progress",
            2.0,
            json!({"data": {"hookEvent": "SessionStart", "hookName": hook}}),
        )
        .prompt(2.0)
        .response("m3", 2.1, usage(10, 21_000, 0), None);
        assert_eq!(rows(&tx)[2].cause, Cause::Unexplained, "{hook:?}");
    }
    // A version change between the two responses.
    let mut tx = warm();
    tx.prompt(2.0)
        .response("m3", 2.1, usage(10, 21_000, 0), None);
    let n = tx.lines.len();
    tx.lines[n - 2]["version"] = json!("2.1.18");
    tx.lines[n - 1]["version"] = json!("2.1.18");
    assert_eq!(rows(&tx)[2].cause, Cause::Resume);
}

#[test]
fn b5_the_send_gap_finds_an_expiry_after_a_long_streamed_answer() {
    // Response 2 streams for 4 minutes (its last record at 5.0); the next
    // prompt comes at 7.0: 2 minutes after the last assistant record, but 6
    // minutes after the send before response 2 (at 1.0).
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 20_000, 0), None)
        .prompt(1.0)
        .response("m2", 1.1, usage(10, 1_000, 20_000), None)
        .response("m2", 5.0, usage(10, 1_000, 20_000), None)
        .prompt(7.0)
        .response("m3", 7.1, usage(10, 21_000, 0), None);
    let r = rows(&tx);
    assert_eq!(r[2].cause, Cause::Ttl);
    assert_eq!(r[2].ttl_by, Some("send_gap"));
    assert_eq!(r[2].send_gap_minutes, Some(6.0));
    assert_eq!(r[2].gap_minutes, Some(6.0));
}

#[test]
fn b4_3_5_a_clearing_record_and_b4_3_6_a_tool_search() {
    let mut tx = warm();
    tx.boundary(2.0, 30_000, 5_000, &["t1"])
        .prompt(2.0)
        .response("m3", 2.1, usage(10, 21_000, 0), None);
    let r = rows(&tx);
    assert_eq!(r[2].cause, Cause::Clearing);
    // ToolSearch in response 2: the next request's tools changed.
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 20_000, 0), None)
        .prompt(1.0)
        .response("m2", 1.1, usage(10, 1_000, 20_000), Some("ts1"));
    let n = tx.lines.len();
    tx.lines[n - 1]["message"]["content"][0]["name"] = json!("ToolSearch");
    tx.result("ts1", 1.2)
        .response("m3", 1.3, usage(10, 21_000, 0), None);
    let r = rows(&tx);
    assert_eq!(r[2].cause, Cause::ToolsChanged);
    assert_eq!(r[2].explanations, vec![Explanation::ToolsChanged]);
}

#[test]
fn b4_3_model_switch() {
    let mut tx = warm();
    tx.prompt(2.0).response_with(
        "m3",
        2.1,
        usage(10, 21_000, 0),
        None,
        json!({"model": "claude-sonnet-4-5"}),
    );
    assert_eq!(rows(&tx)[2].cause, Cause::ModelSwitch);
}

#[test]
fn s18_6_a_cause_splits_by_the_responses_1h_share() {
    // W = 30,000 of which 10,000 1h; E = 21,000, R = 0: rewritten 21,000 →
    // 1h ⌊21,000·10,000/30,000⌋ = 7,000, 5m 14,000; growth the rest.
    let mut tx = warm();
    tx.prompt(2.0)
        .response("m3", 2.1, one_hour(10, 30_000, 10_000, 0), None);
    let r = rows(&tx);
    assert_eq!((r[2].cause_5m, r[2].cause_1h), (14_000, 7_000));
    assert_eq!((r[2].growth_5m(), r[2].growth_1h()), (6_000, 3_000));
}

#[test]
fn b1_a_response_repeated_in_a_later_file_counts_once() {
    let mut tx = warm();
    for (i, l) in tx.lines.iter_mut().enumerate() {
        l["requestId"] = json!(format!("req_{i}"));
    }
    let s = tx.session();
    let mut seen = HashSet::new();
    assert_eq!(partition(&s, &[], &mut seen).len(), 2);
    assert_eq!(partition(&s, &[], &mut seen).len(), 0);
}

#[test]
fn b4_1_sub_agent_lines_are_subagent_and_the_acompact_agent_compaction() {
    let s = warm().session();
    let line = |agent: &str, id: &str| UsageLine {
        message_id: Some(id.into()),
        request_id: Some("r".into()),
        model: Some("claude-opus-4-5".into()),
        usage: crate::session::Usage {
            cache_creation_input_tokens: 4_000,
            ..Default::default()
        },
        at: None,
        line: 3,
        agent: Some(agent.into()),
        path: None,
    };
    let r = partition(
        &s,
        &[line("a881341", "x1"), line("acompact-fffbd0", "x2")],
        &mut HashSet::new(),
    );
    assert_eq!((r[2].cause, r[2].cause_5m), (Cause::Subagent, 4_000));
    assert_eq!(r[3].cause, Cause::Compaction);
}
