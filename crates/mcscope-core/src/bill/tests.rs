//! SPEC §9a "Recorded totals": worked figures by hand, and the once-per-response
//! rule across a main file and its sub-agent files.

use super::*;
use serde_json::{Value, json};
use std::path::Path;

/// A Claude record of session `sid` (`side`: an inline sidechain's).
fn rec(sid: &str, n: usize, kind: &str, side: bool, extra: Value) -> Value {
    let mut r = json!({"parentUuid": null, "isSidechain": side, "type": kind,
        "uuid": format!("u-{n}"), "timestamp": format!("2026-11-02T10:{:02}:00.000Z", n),
        "sessionId": sid, "version": "2.1.17", "cwd": "/r"});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r
}

fn prompt(sid: &str, n: usize, side: bool) -> Value {
    rec(
        sid,
        n,
        "user",
        side,
        json!({"message": {"role": "user", "content": "go"}}),
    )
}

/// One line of response `id` / request `rq` with this usage.
fn resp(sid: &str, n: usize, side: bool, id: &str, rq: &str, usage: Value) -> Value {
    rec(
        sid,
        n,
        "assistant",
        side,
        json!({"requestId": rq, "message": {"id": id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}],
            "usage": usage}}),
    )
}

/// Usage: input, output, 5-minute write, 1-hour write, read.
fn usage(input: u64, output: u64, w5: u64, w1: u64, read: u64) -> Value {
    json!({"input_tokens": input, "output_tokens": output,
        "cache_creation_input_tokens": w5 + w1, "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}})
}

fn write(p: &Path, lines: &[Value]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(p, text.join("\n") + "\n").unwrap();
}

fn sonnet() -> Price {
    crate::prices::lookup("claude-sonnet-4-5").unwrap() // 3 / 3.75 / 6 / 0.30 / 15
}

/// SPEC §9a: usd = (input·in + output·out + w5·5m + w1·1h + read·r) / 1e6,
/// hit_rate = R / (input + W + R), worked by hand.
#[test]
fn t9a_recorded_usd_and_hit_rate_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s1.jsonl");
    write(
        &main,
        &[
            prompt("s1", 1, false),
            // Response a is written as two lines (one per content block): the
            // last line's usage is the response's.
            resp("s1", 2, false, "msg_a", "req_a", usage(1, 1, 0, 0, 0)),
            resp("s1", 3, false, "msg_a", "req_a", usage(100, 50, 1000, 0, 0)),
            prompt("s1", 4, false),
            resp(
                "s1",
                5,
                false,
                "msg_b",
                "req_b",
                usage(10, 20, 0, 200, 1000),
            ),
        ],
    );
    let s = crate::load::load(&main, None).unwrap();
    let r = recorded(&s, &[], Some(&sonnet()));
    assert_eq!(
        r.main,
        Tally {
            responses: 2,
            input: 110,
            output: 70,
            cache_write_5m: 1000,
            cache_write_1h: 200,
            cache_read: 1000,
        }
    );
    // 110·3 + 70·15 + 1000·3.75 + 200·6 + 1000·0.30 = 330 + 1050 + 3750 + 1200
    // + 300 = 6630 → $0.00663.
    assert!((r.usd.unwrap() - 0.006_63).abs() < 1e-12);
    // 1000 / (110 + 1200 + 1000) = 0.43290… → 0.4329.
    let j = serde_json::to_value(r.json()).unwrap();
    assert_eq!(j["hit_rate"], json!(0.4329));
    assert_eq!(j["usd"], json!(0.00663));
    assert_eq!(j["observed_breaks"], json!(0));
    assert_eq!(j["break_usd"], json!(0.0));
    assert_eq!(j["subagents"], Value::Null);
    // No price: no dollars, the tokens stay.
    let r = recorded(&s, &[], None);
    assert_eq!((r.usd, r.break_usd, r.main.responses), (None, None, 2));
    // A price row without an output rate has no recorded usd.
    let no_output = Price {
        output: None,
        ..sonnet()
    };
    assert_eq!(recorded(&s, &[], Some(&no_output)).usd, None);
}

/// SPEC §9a: an observed break costs drop·(write(k) − read) against a warm read.
#[test]
fn t9a_break_usd_is_the_drop_at_the_write_rate_less_the_read_rate() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s2.jsonl");
    write(
        &main,
        &[
            prompt("s2", 1, false),
            resp("s2", 2, false, "m1", "q1", usage(5, 1, 10_000, 0, 0)),
            prompt("s2", 3, false),
            // Expected 10,000 read, observed 0: a break dropping 10,000.
            resp("s2", 4, false, "m2", "q2", usage(5, 1, 10_000, 0, 0)),
        ],
    );
    let s = crate::load::load(&main, None).unwrap();
    let r = recorded(&s, &[], Some(&sonnet()));
    assert_eq!(r.observed_breaks, 1);
    // 10,000 × (3.75 − 0.30) / 1e6 = 0.0345 (the last write was 5-minute).
    assert!((r.break_usd.unwrap() - 0.0345).abs() < 1e-12);
    assert_eq!(
        r.words(),
        "recorded: $0.08 · hit rate 0.0 % · 1 observed break, $0.03"
    );
}

/// SPEC §9a: a response is counted once by message.id + requestId, also across
/// a main file and its sub-agent files; sub-agents are totalled beside the main
/// thread, and only files whose sessionId is the session's count.
#[test]
fn t9a_one_response_once_across_main_and_subagent_files() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s3.jsonl");
    write(
        &main,
        &[
            prompt("s3", 1, false),
            resp("s3", 2, false, "m1", "q1", usage(100, 10, 0, 0, 0)),
            // An inline sidechain response (Claude Code 1.0): billed as a sub-agent's.
            prompt("s3", 3, true),
            resp("s3", 4, true, "side1", "qs1", usage(7, 1, 0, 0, 0)),
            prompt("s3", 5, false),
            resp("s3", 6, false, "m2", "q2", usage(200, 20, 0, 0, 0)),
            // The same response written again later (a resumed session): once.
            prompt("s3", 7, false),
            resp("s3", 8, false, "m2", "q2", usage(200, 20, 0, 0, 0)),
        ],
    );
    // Claude Code 2.1's sub-agent file: it repeats main's m2 (not counted again)
    // and holds its own response a1 in two lines (the last line's usage).
    write(
        &dir.path().join("s3/subagents/agent-x.jsonl"),
        &[
            prompt("s3", 1, true),
            resp("s3", 2, true, "m2", "q2", usage(200, 20, 0, 0, 0)),
            resp("s3", 3, true, "a1", "qa1", usage(1, 1, 0, 0, 0)),
            resp("s3", 4, true, "a1", "qa1", usage(30, 3, 0, 0, 40)),
        ],
    );
    // Claude Code 2.0's sibling file of this session, and one of another session.
    write(
        &dir.path().join("agent-y.jsonl"),
        &[
            prompt("s3", 1, true),
            resp("s3", 2, true, "y1", "qy1", usage(4, 4, 0, 0, 0)),
            // The inline sidechain's response again: once.
            resp("s3", 3, true, "side1", "qs1", usage(7, 1, 0, 0, 0)),
        ],
    );
    write(
        &dir.path().join("agent-z.jsonl"),
        &[
            prompt("other", 1, true),
            resp("other", 2, true, "z1", "qz1", usage(999, 9, 0, 0, 0)),
        ],
    );
    let s = crate::load::load(&main, None).unwrap();
    let files = crate::load::subagents::files(&s);
    let names: Vec<_> = files
        .iter()
        .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "agent-y.jsonl",
            "agent-z.jsonl",
            "s3/subagents/agent-x.jsonl"
        ]
    );
    let lines = crate::load::subagents::usage_lines(&s);
    let r = recorded(&s, &lines, Some(&sonnet()));
    assert_eq!(
        (r.main.responses, r.main.input, r.main.output),
        (2, 300, 30)
    );
    let (sub, usd) = r.subagents.unwrap();
    // side1 (7), y1 (4), a1 (30, read 40); z1 is another session's.
    assert_eq!(
        sub,
        Tally {
            responses: 3,
            input: 41,
            output: 8,
            cache_write_5m: 0,
            cache_write_1h: 0,
            cache_read: 40,
        }
    );
    // 41·3 + 8·15 + 40·0.30 = 123 + 120 + 12 = 255 → $0.000255.
    assert!((usd.unwrap() - 0.000_255).abs() < 1e-12);
    // The headline hit rate is the main thread's (0 reads), the sub-agents' their own.
    let j = serde_json::to_value(r.json()).unwrap();
    assert_eq!(j["hit_rate"], json!(0.0));
    assert_eq!(j["subagents"]["hit_rate"], json!(0.4938));
    assert_eq!(j["subagents"].as_object().unwrap().len(), 8);
}

/// A folder's `recorded` is the sum; dollars unknown when any session's are.
#[test]
fn t9a_folder_sums_recompute_the_hit_rate() {
    let a = Recorded {
        main: Tally {
            responses: 1,
            input: 100,
            cache_read: 100,
            ..Default::default()
        },
        usd: Some(1.0),
        observed_breaks: 1,
        break_usd: Some(0.5),
        subagents: None,
        harness_usd: None,
    };
    let mut sum = Recorded::zero();
    sum.add(&a);
    sum.add(&Recorded {
        main: Tally {
            responses: 1,
            cache_read: 800,
            ..Default::default()
        },
        ..a.clone()
    });
    assert_eq!(sum.main.responses, 2);
    // 900 / 1000, not the mean of 0.5 and 1.
    assert_eq!(sum.main.hit_rate(), Some(0.9));
    assert_eq!((sum.usd, sum.observed_breaks), (Some(2.0), 2));
    // SPEC §18.5: an unpriced bill is left out of the dollars, never blanks them.
    sum.add(&Recorded {
        usd: None,
        ..a.clone()
    });
    assert_eq!(sum.usd, Some(2.0));
    assert_eq!(sum.break_usd, Some(1.5));
    // The harness's own figure (OpenCode's `cost`) sums over those that have one.
    assert_eq!(sum.harness_usd, None);
    sum.add(&Recorded {
        harness_usd: Some(0.25),
        ..a.clone()
    });
    sum.add(&Recorded {
        harness_usd: Some(0.5),
        ..a.clone()
    });
    assert_eq!(sum.harness_usd, Some(0.75));
}
