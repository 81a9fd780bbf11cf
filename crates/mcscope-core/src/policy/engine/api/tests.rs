//! The api plan's parameters, each on a hand-built Messages API body whose
//! figures are worked out here (SPEC §11).

use crate::analysis::{PlanAt, Setup, plan_and_inputs};
use crate::policy::api::parse_edits;
use crate::policy::engine::{ApiKept, EditNote, Kept, Reason};
use crate::policy::{Policy, Status};
use crate::wire::Side;
use serde_json::{Value, json};

/// A body: a prompt ("go": 1 token), then one call per tool (`Read` unless
/// named), each answered by a result of `chars` x's; the last results are the
/// trailing request. With `thinking`, each call's message opens with a thinking
/// block of 40 chars (10 tokens).
struct Body {
    tools: Vec<&'static str>,
    chars: usize,
    thinking: bool,
    /// (call index, usage input tokens, applied_edits) recorded on a response.
    usage: Vec<(usize, u64, Value)>,
}

impl Body {
    fn reads(n: usize) -> Body {
        Body {
            tools: vec!["Read"; n],
            chars: 400,
            thinking: false,
            usage: Vec::new(),
        }
    }

    fn json(&self) -> Value {
        let mut messages = vec![json!({"role": "user", "content": "go"})];
        for (i, tool) in self.tools.iter().enumerate() {
            let mut content = Vec::new();
            if self.thinking {
                content.push(
                    json!({"type": "thinking", "thinking": "y".repeat(40), "signature": "s"}),
                );
            }
            content.push(
                json!({"type": "tool_use", "id": format!("t{i}"), "name": tool,
                                "input": {"file_path": format!("/r/{i}")}}),
            );
            let mut a = json!({"role": "assistant", "content": content});
            if let Some((_, input, edits)) = self.usage.iter().find(|u| u.0 == i) {
                a["usage"] = json!({"input_tokens": input, "output_tokens": 1});
                a["context_management"] = json!({"applied_edits": edits});
            }
            messages.push(a);
            messages.push(json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("t{i}"), "content": "x".repeat(self.chars)}]}));
        }
        json!({"model": "claude-test", "messages": messages})
    }

    /// The api plan at request `k` (None: the last) with these edits.
    fn plan(&self, edits: Value, k: Option<usize>, tune: impl FnOnce(&mut Policy)) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("body.json");
        std::fs::write(&path, self.json().to_string()).unwrap();
        let session = crate::load::load(&path, None).unwrap();
        let mut policy = Policy::api_preset();
        policy.api.edits = parse_edits(edits.as_array().unwrap()).unwrap();
        tune(&mut policy);
        let setup = Setup::new(session, policy);
        let k = k.unwrap_or(setup.last_request());
        let (plan, inputs) = plan_and_inputs(&setup, k).unwrap();
        let server = inputs.body(&setup.session, Side::Wire).unwrap();
        let client = inputs.body(&setup.session, Side::Local).unwrap();
        Run {
            _dir: dir,
            setup,
            plan,
            server,
            client,
        }
    }
}

struct Run {
    _dir: tempfile::TempDir,
    setup: Setup,
    plan: PlanAt,
    server: Value,
    client: Value,
}

impl Run {
    fn cleared(&self) -> Vec<String> {
        self.plan.ids_with(&self.setup.session, Status::Cleared)
    }
    fn edit(&self, i: usize) -> &crate::policy::engine::EditOutcome {
        &self.plan.step.api.as_ref().unwrap().edits[i]
    }
    fn tokens(&self) -> (u64, &'static str) {
        let a = self.plan.step.api.as_ref().unwrap();
        (a.input_tokens, a.source.name())
    }
}

fn ids(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("t{i}")).collect()
}

fn tool_uses(trigger: Value, keep: u64) -> Value {
    json!([{"type": "clear_tool_uses_20250919", "trigger": trigger,
            "keep": {"type": "tool_uses", "value": keep}}])
}

// Ten reads: the prompt 1 token, each call's input {"file_path":"/r/N"} (20
// chars) 5 tokens, each result 400 chars = 100 tokens: 1 + 10 × 105 = 1051,
// estimated at the trailing request (no response recorded there).

#[test]
fn the_trigger_by_input_tokens_is_strict_and_keep_spares_the_newest() {
    let body = Body::reads(10);
    let run = body.plan(
        tool_uses(json!({"type": "input_tokens", "value": 1000}), 3),
        None,
        |_| {},
    );
    assert_eq!(run.tokens(), (1051, "estimate"));
    assert!(run.plan.step.fired());
    assert_eq!(
        run.plan.step.trigger.map(|t| t.name()),
        Some("clear_tool_uses_20250919")
    );
    // All but the last 3 of 10: t0..t6, 7 × 100 tokens.
    assert_eq!(run.cleared(), ids(0..7));
    assert_eq!(run.edit(0).cleared_tool_uses, Some(7));
    assert_eq!(run.edit(0).cleared_input_tokens, 700);
    // At the threshold itself the strict reading does not fire...
    let at = body.plan(
        tool_uses(json!({"type": "input_tokens", "value": 1051}), 3),
        None,
        |_| {},
    );
    assert!(!at.plan.step.fired());
    assert!(at.cleared().is_empty());
    assert_eq!(at.edit(0).cleared_tool_uses, Some(0));
    // ...and --api-trigger-inclusive does.
    let inclusive = body.plan(
        tool_uses(json!({"type": "input_tokens", "value": 1051}), 3),
        None,
        |p| p.api.trigger_inclusive = true,
    );
    assert_eq!(inclusive.cleared(), ids(0..7));
}

#[test]
fn the_trigger_by_tool_uses_counts_the_requests_uses() {
    let body = Body::reads(10);
    // 10 uses: not more than 10...
    let run = body.plan(
        tool_uses(json!({"type": "tool_uses", "value": 10}), 2),
        None,
        |_| {},
    );
    assert!(!run.plan.step.fired());
    // ...but more than 9: all but the last 2.
    let run = body.plan(
        tool_uses(json!({"type": "tool_uses", "value": 9}), 2),
        None,
        |_| {},
    );
    assert_eq!(run.cleared(), ids(0..8));
    // Request 6 (before response 6, the call t5) holds t0..t4 and their
    // results: 5 uses > 4, keep 2 clears t0..t2.
    let run = body.plan(
        tool_uses(json!({"type": "tool_uses", "value": 4}), 2),
        Some(6),
        |_| {},
    );
    assert_eq!(run.plan.step.api.as_ref().unwrap().tool_uses, 5);
    assert_eq!(run.cleared(), ids(0..3));
}

#[test]
fn keep_zero_clears_every_use_and_keep_all_clears_none() {
    let body = Body::reads(10);
    let trig = || json!({"type": "tool_uses", "value": 0});
    assert_eq!(
        body.plan(tool_uses(trig(), 0), None, |_| {}).cleared(),
        ids(0..10)
    );
    let all = body.plan(tool_uses(trig(), 10), None, |_| {});
    assert!(all.cleared().is_empty());
    assert!(
        !all.plan.step.fired(),
        "nothing to clear: the edit does not apply"
    );
}

#[test]
fn excluded_tools_stay_and_by_default_do_not_count_toward_keep() {
    let mut body = Body::reads(10);
    body.tools[8] = "memory";
    let edits = json!([{"type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": 0},
        "keep": {"type": "tool_uses", "value": 3}, "exclude_tools": ["memory"]}]);
    // Counted: t0..t7 and t9; the last 3 of those are t6, t7, t9: t0..t5 go.
    let run = body.plan(edits.clone(), None, |_| {});
    assert_eq!(run.cleared(), ids(0..6));
    let t8 = run
        .plan
        .candidates
        .iter()
        .find(|c| run.setup.session.results[c.result].id == "t8")
        .unwrap();
    assert_eq!(t8.status, Status::Kept);
    assert_eq!(
        t8.reason,
        Reason::Kept(Kept::Api(ApiKept::Excluded {
            tool: "memory".into()
        }))
    );
    // Counted toward keep: the window is t7, t8, t9, so t6 goes too.
    let run = body.plan(edits, None, |p| p.api.excluded_count_toward_keep = true);
    assert_eq!(run.cleared(), ids(0..7));
}

#[test]
fn clear_at_least_blocks_a_clearing_too_small() {
    let body = Body::reads(10);
    let edits = |least: u64| {
        json!([{"type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 1000},
            "keep": {"type": "tool_uses", "value": 3},
            "clear_at_least": {"type": "input_tokens", "value": least}}])
    };
    // Seven results of 100 tokens: 700 < 701, nothing applied.
    let run = body.plan(edits(701), None, |_| {});
    assert!(!run.plan.step.fired());
    assert!(run.cleared().is_empty());
    assert_eq!(run.edit(0).cleared_tool_uses, Some(0));
    assert!(matches!(
        run.edit(0).note,
        EditNote::TooLittle {
            tokens: 700,
            at_least: 701,
            ..
        }
    ));
    assert_eq!(body.plan(edits(700), None, |_| {}).cleared(), ids(0..7));
}

#[test]
fn clear_tool_inputs_empties_the_inputs_and_counts_their_tokens() {
    let body = Body::reads(10);
    let edits = json!([{"type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 1000},
        "keep": {"type": "tool_uses", "value": 3}, "clear_tool_inputs": true}]);
    let run = body.plan(edits, None, |_| {});
    // 7 results × 100 + 7 inputs × 5.
    assert_eq!(run.edit(0).cleared_input_tokens, 735);
    let server = &run.server["messages"];
    assert_eq!(server[1]["content"][0]["input"], json!({}));
    assert_eq!(
        server[2]["content"][0]["content"],
        "[Old tool result content cleared]"
    );
    // The newest three keep their inputs and results.
    assert_eq!(
        server[19]["content"][0]["input"],
        json!({"file_path": "/r/9"})
    );
    assert_eq!(server[20]["content"][0]["content"], "x".repeat(400));
    // The client's request is unchanged and carries the edits.
    assert_eq!(
        run.client["messages"][1]["content"][0]["input"],
        json!({"file_path": "/r/0"})
    );
    assert_eq!(
        run.client["context_management"]["edits"][0]["clear_tool_inputs"],
        json!(true)
    );
    assert!(run.server.get("context_management").is_none());
    // A list clears only the inputs of the tools named.
    let edits = json!([{"type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 1000},
        "keep": {"type": "tool_uses", "value": 3}, "clear_tool_inputs": ["Bash"]}]);
    assert_eq!(
        body.plan(edits, None, |_| {}).edit(0).cleared_input_tokens,
        700
    );
}

#[test]
fn clear_thinking_drops_all_but_the_last_turns_that_think() {
    let mut body = Body::reads(4);
    body.thinking = true;
    let edits = json!([{"type": "clear_thinking_20251015",
        "keep": {"type": "thinking_turns", "value": 1}},
        {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 10}}]);
    let run = body.plan(edits, None, |_| {});
    // Four turns think; the last one keeps its 10 tokens of thinking.
    assert_eq!(run.edit(0).cleared_thinking_turns, Some(3));
    assert_eq!(run.edit(0).cleared_input_tokens, 30);
    assert!(!run.edit(1).fired);
    assert_eq!(
        run.plan.step.trigger.map(|t| t.name()),
        Some("clear_thinking_20251015")
    );
    let server = &run.server["messages"];
    assert_eq!(server[1]["content"][0]["type"], "tool_use");
    assert_eq!(server[7]["content"][0]["type"], "thinking");
    assert!(run.cleared().is_empty());
    // "all" keeps every thinking block.
    let all = body.plan(
        json!([{"type": "clear_thinking_20251015", "keep": "all"}]),
        None,
        |_| {},
    );
    assert!(!all.plan.step.fired());
    assert_eq!(all.edit(0).cleared_thinking_turns, Some(0));
}

#[test]
fn recorded_usage_and_cleared_tokens_are_the_prompt() {
    let mut body = Body::reads(10);
    // Response 5 (the call t4) recorded 900 input tokens after the server
    // cleared 150: the prompt was 1050.
    body.usage.push((
        4,
        900,
        json!([{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2, "cleared_input_tokens": 150}]),
    ));
    let trig = |v: u64| tool_uses(json!({"type": "input_tokens", "value": v}), 2);
    let run = body.plan(trig(1049), Some(5), |_| {});
    assert_eq!(run.tokens(), (1050, "recorded"));
    // Request 5 (the response is the call t4) holds t0..t3 and their
    // results: t0 and t1 go (keep 2).
    assert_eq!(run.cleared(), ids(0..2));
    assert_eq!(run.edit(0).cleared_tool_uses, Some(2));
    assert!(!body.plan(trig(1050), Some(5), |_| {}).plan.step.fired());
}

#[test]
fn stateless_edits_are_new_only_where_the_server_view_changed() {
    let mut body = Body::reads(10);
    let edits = || tool_uses(json!({"type": "tool_uses", "value": 0}), 3);
    // Request 10 (before the call t9) holds t0..t8: t0..t5 cleared. The
    // trailing request 11 holds t9 too: t6 is new, and the server view breaks
    // at its result's message (index 14: the prompt, then two per call).
    let k10 = body.plan(edits(), Some(10), |_| {});
    assert_eq!(k10.cleared(), ids(0..6));
    let k11 = body.plan(edits(), None, |_| {});
    assert_eq!(k11.cleared(), ids(0..7));
    let newly: Vec<&str> = k11
        .plan
        .step
        .newly_cleared
        .iter()
        .map(|&r| k11.setup.session.results[r].id.as_str())
        .collect();
    assert_eq!(newly, ["t6"]);
    assert_eq!(k11.plan.cache.prefix_broken_at_message, Some(14));
    // When t9 is an excluded tool, request 11 clears what request 10 did: the
    // server view is the same, nothing is new and the cached prefix holds.
    body.tools[9] = "memory";
    let edits = json!([{"type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": 0},
        "keep": {"type": "tool_uses", "value": 3}, "exclude_tools": ["memory"]}]);
    let k11 = body.plan(edits, None, |_| {});
    assert_eq!(k11.cleared(), ids(0..6));
    assert!(k11.plan.step.fired());
    assert!(k11.plan.step.newly_cleared.is_empty());
    assert_eq!(k11.plan.cache.prefix_broken_at_message, None);
}

#[test]
fn clearing_thinking_moves_the_cache_break_to_the_last_turn_that_kept_it() {
    let mut body = Body::reads(4);
    body.thinking = true;
    let edits = || json!([{"type": "clear_thinking_20251015"}]);
    // Request 4 (before the call t3) holds the turns at messages 1, 3, 5: the
    // last one keeps its thinking. The trailing request 5 adds message 7, so
    // message 5 loses its thinking there: the server view first differs at 5.
    let k4 = body.plan(edits(), Some(4), |_| {});
    assert_eq!(k4.plan.step.api.as_ref().unwrap().thinking_cleared, [1, 3]);
    let k5 = body.plan(edits(), None, |_| {});
    assert_eq!(
        k5.plan.step.api.as_ref().unwrap().thinking_cleared,
        [1, 3, 5]
    );
    assert_eq!(k5.plan.cache.prefix_broken_at_message, Some(5));
    // The client re-sends every thinking block; the server view drops them.
    assert_eq!(k5.client["messages"][5]["content"][0]["type"], "thinking");
    assert_eq!(k5.server["messages"][5]["content"][0]["type"], "tool_use");
}

#[test]
fn the_messages_are_read_once_per_session_and_measured_by_the_rule() {
    use crate::policy::engine::ApiFacts;
    let run = Body::reads(3).plan(
        tool_uses(json!({"type": "tool_uses", "value": 9}), 3),
        None,
        |_| {},
    );
    // The plan has read them; every later plan of the session shares them.
    let a = ApiFacts::of_session(&run.setup.session, &run.setup.derived);
    let b = ApiFacts::of_session(&run.setup.session, &run.setup.derived);
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    // "go" (2 chars) 1 token; a call's input {"file_path":"/r/0"} 20 chars, 5
    // tokens; a result of 400 chars, 100.
    assert_eq!(a.msgs.len(), 7);
    assert_eq!(a.msgs[0].tokens, 1);
    assert_eq!(a.msgs[1].tokens, 5);
    assert_eq!(a.msgs[1].uses[0].input_tokens, 5);
    assert_eq!(a.msgs[1].uses[0].name, "Read");
    assert_eq!(a.msgs[2].tokens, 100);
}
