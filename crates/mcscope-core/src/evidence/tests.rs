use super::*;
use serde_json::json;

/// The JSON forms: counts, and a request's evidence object.
mod json;

pub(crate) const T0: i64 = 1_780_000_000_000;

/// What a JSON struct writes, as a value to index.
fn value(x: impl Serialize) -> Value {
    serde_json::to_value(x).unwrap()
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A Claude transcript written line by line, with explicit times (minutes
/// after T0) so gaps are figures the test states.
#[derive(Default)]
pub(crate) struct Tx {
    pub(crate) lines: Vec<Value>,
    n: usize,
}

impl Tx {
    pub(crate) fn rec(&mut self, kind: &str, min: f64, extra: Value) -> &mut Self {
        self.n += 1;
        let mut r = json!({"parentUuid": null, "isSidechain": false, "type": kind,
            "uuid": format!("u-{}", self.n), "timestamp": iso(T0 + (min * 60_000.0) as i64),
            "sessionId": "s", "version": "2.1.17", "cwd": "/r"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        self.lines.push(r);
        self
    }
    pub(crate) fn prompt(&mut self, min: f64) -> &mut Self {
        self.rec(
            "user",
            min,
            json!({"message": {"role": "user", "content": "go"}}),
        )
    }
    pub(crate) fn result(&mut self, id: &str, min: f64) -> &mut Self {
        self.rec(
            "user",
            min,
            json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(400)}]}}),
        )
    }
    /// A response with this usage (and, when given, a tool call).
    pub(crate) fn response(
        &mut self,
        id: &str,
        min: f64,
        usage: Value,
        call: Option<&str>,
    ) -> &mut Self {
        self.response_with(id, min, usage, call, json!({}))
    }
    pub(crate) fn response_with(
        &mut self,
        id: &str,
        min: f64,
        usage: Value,
        call: Option<&str>,
        msg_extra: Value,
    ) -> &mut Self {
        let content = match call {
            Some(c) => {
                json!([{"type": "tool_use", "id": c, "name": "Bash", "input": {"command": "ls"}}])
            }
            None => json!([{"type": "text", "text": "ok"}]),
        };
        let mut message = json!({"id": id, "type": "message", "role": "assistant",
            "model": "claude-opus-4-5", "content": content, "usage": usage});
        for (k, v) in msg_extra.as_object().unwrap() {
            message[k] = v.clone();
        }
        self.rec("assistant", min, json!({ "message": message }))
    }
    pub(crate) fn compact(&mut self, min: f64) -> &mut Self {
        self.rec(
            "system",
            min,
            json!({"subtype": "compact_boundary", "content": "Conversation compacted"}),
        );
        self.rec(
            "user",
            min,
            json!({"isCompactSummary": true,
            "message": {"role": "user", "content": "This session is being continued"}}),
        )
    }
    pub(crate) fn boundary(&mut self, min: f64, pre: u64, saved: u64, ids: &[&str]) -> &mut Self {
        self.rec(
            "system",
            min,
            json!({"subtype": "microcompact_boundary", "content": "Context microcompacted",
            "microcompactMetadata": {"trigger": "auto", "preTokens": pre, "tokensSaved": saved,
                "compactedToolIds": ids, "clearedAttachmentUUIDs": []}}),
        )
    }
    /// Makes the last record's parent the record before it (as Claude Code does).
    pub(crate) fn chain_last(&mut self) -> &mut Self {
        let n = self.lines.len();
        let parent = self.lines[n - 2]["uuid"].clone();
        self.lines[n - 1]["parentUuid"] = parent;
        self
    }
    pub(crate) fn session(&self) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        std::fs::write(&p, text.join("\n") + "\n").unwrap();
        crate::load::load(&p, None).unwrap()
    }
}

pub(crate) fn usage(input: u64, write: u64, read: u64) -> Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": write,
           "cache_read_input_tokens": read, "output_tokens": 5})
}

fn no_sim(_: Writer, _: SimAt) -> Option<Vec<String>> {
    None
}

fn evidence(tx: &Tx) -> SessionEvidence {
    collect(&tx.session(), &mut no_sim)
}

fn names(b: &ObservedBreak) -> Vec<&'static str> {
    b.explanations().iter().map(|e| e.name()).collect()
}

#[test]
fn the_threshold_is_five_percent_and_two_thousand_tokens() {
    // E = 100,000: 95,000 is exactly 95 % (not below): no break; 94,999 is.
    assert!(!is_break(100_000, 95_000));
    assert!(is_break(100_000, 94_999));
    // E = 40,000: 95 % is 38,000, but 40,000 − 38,001 = 1,999 < 2,000.
    assert!(!is_break(40_000, 38_001));
    // 38,000 drops exactly 2,000 but is not below 95 % (38,000 = 0.95·E).
    assert!(!is_break(40_000, 38_000));
    assert!(is_break(40_000, 37_999));
    // Small prompts never break: E = 1,500 drops to 0, only 1,500 tokens.
    assert!(!is_break(1_500, 0));
    assert!(!is_break(0, 0));
}

#[test]
fn usage_is_per_response_from_the_last_line_and_prompt_size_adds_up() {
    let mut tx = Tx::default();
    tx.prompt(0.0);
    // Two lines of one response: the last line's usage counts.
    tx.response("m1", 0.1, usage(1, 1, 1), Some("t1"))
        .response(
            "m1",
            0.2,
            json!({"input_tokens": 3, "cache_creation_input_tokens": 1000,
            "cache_read_input_tokens": 20000, "output_tokens": 9,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000},
            "cache_deleted_input_tokens": 0}),
            None,
        )
        .result("t1", 0.3);
    let ev = evidence(&tx);
    let u = ev.requests[0].usage.as_ref().unwrap();
    assert_eq!(
        u,
        &UsageEvidence {
            input: 3,
            cache_write: Some(1000),
            cache_read: 20000,
            cache_write_1h: Some(1000),
            cache_deleted: Some(0),
            aggregated: false,
        }
    );
    assert_eq!(u.prompt(), 3 + 1000 + 20000);
    // The trailing request (tool result not yet answered) has no usage.
    assert_eq!(ev.requests.len(), 2);
    assert!(ev.requests[1].is_empty());
}

#[test]
fn a_drop_is_a_break_with_expected_r_plus_w() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 30_000, 50_000), Some("t1"))
        .result("t1", 0.2)
        // E = 50,000 + 30,000 = 80,000; R = 60,000 < 76,000, drop 20,000.
        .response("m2", 0.3, usage(10, 20_000, 60_000), Some("t2"))
        .result("t2", 0.4)
        // E = 60,000 + 20,000 = 80,000; R = 79,000: no break.
        .response("m3", 0.5, usage(10, 100, 79_000), None);
    let ev = evidence(&tx);
    assert!(ev.requests[0].observed_break.is_none());
    let b = ev.requests[1].observed_break.as_ref().unwrap();
    assert_eq!((b.expected, b.observed, b.drop()), (80_000, 60_000, 20_000));
    assert_eq!(names(b), ["unexplained"]);
    assert_eq!(
        value(b.json())["explanations"],
        json!(["unexplained"]),
        "the JSON lists the words' keys"
    );
    assert!(ev.requests[2].observed_break.is_none());
}

#[test]
fn aggregated_and_synthetic_responses_are_skipped_as_k_minus_1() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 50_000), Some("t1"))
        .result("t1", 0.2)
        // Aggregated: R = 500,000 (summed internal calls): flagged, not compared.
        .response(
            "m2",
            0.3,
            json!({"input_tokens": 1, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 500_000,
            "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0}}),
            Some("t2"),
        )
        .result("t2", 0.4)
        .response_with(
            "m3",
            0.5,
            usage(0, 0, 0),
            Some("t3"),
            json!({"model": "<synthetic>"}),
        )
        .result("t3", 0.6)
        // Compared with m1 (E = 50,000), not m2's 500,000 nor the synthetic 0.
        .response("m4", 0.7, usage(10, 0, 49_000), None);
    let ev = evidence(&tx);
    let agg = ev.requests[1].usage.as_ref().unwrap();
    assert!(agg.aggregated);
    assert!(ev.requests[1].observed_break.is_none());
    assert!(
        ev.requests[2].usage.is_none(),
        "a <synthetic> response has no usage"
    );
    assert!(
        ev.requests[3].observed_break.is_none(),
        "49,000 ≥ 0.95·50,000"
    );
    // Had m2 been k − 1, 49,000 against 500,000 would have been a break.
    assert!(is_break(500_000, 49_000));
}

#[test]
fn ttl_is_five_minutes_unless_the_last_write_was_one_hour() {
    let one_hour = json!({"input_tokens": 1, "cache_creation_input_tokens": 5000,
        "cache_read_input_tokens": 50_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000}});
    let five_min = json!({"input_tokens": 1, "cache_creation_input_tokens": 5000,
        "cache_read_input_tokens": 50_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 5000, "ephemeral_1h_input_tokens": 0}});
    for (write, ttl) in [(one_hour, Ttl::OneHour), (five_min, Ttl::FiveMinutes)] {
        let mut tx = Tx::default();
        tx.prompt(0.0)
            .response("m1", 0.0, write, None)
            // 10 minutes later: the prompt; R fell to 0 (E = 55,000).
            .prompt(10.0)
            .response("m2", 10.1, usage(10, 55_000, 0), None)
            // 70 minutes after m2, whose write (without a cache_creation
            // object) is the last one: 5m.
            .prompt(80.1)
            .response("m3", 80.2, usage(10, 0, 0), None);
        let s = tx.session();
        assert_eq!(ttl_auto(&s, 2), ttl, "the write of response 1 decides");
        assert_eq!(
            ttl_auto(&s, 3),
            Ttl::FiveMinutes,
            "no cache_creation object → 5m"
        );
        assert_eq!(ttl_auto(&s, 1), Ttl::FiveMinutes, "no earlier write → 5m");
        // cache_gap(2) = 10 − 0 = 10 minutes.
        assert!((cache_gap(&s, 2).unwrap() - 10.0).abs() < 1e-9);
        let ev = collect(&s, &mut no_sim);
        let b = ev.requests[1].observed_break.as_ref().unwrap();
        // 10 min ≥ 5 min: ttl; 10 < 60: not with a 1-hour write.
        assert_eq!(
            b.facts.ttl,
            ttl == Ttl::FiveMinutes,
            "{ttl:?}: {:?}",
            names(b)
        );
        let b3 = ev.requests[2].observed_break.as_ref().unwrap();
        assert!(b3.facts.ttl, "70 minutes ≥ 5 minutes");
    }
}

#[test]
fn cache_gap_ignores_compaction_boundaries() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 1.0, usage(10, 10_000, 0), None)
        .compact(2.0)
        .prompt(8.0)
        .response("m2", 8.5, usage(10, 10_000, 0), None);
    let s = tx.session();
    // now(2) = 8.0; the last assistant record before it is m1 at 1.0, even though
    // a compaction lies between (gap_minutes, within the view, is null).
    assert!((cache_gap(&s, 2).unwrap() - 7.0).abs() < 1e-9);
    assert_eq!(s.requests[1].gap_minutes, None);
    // Request 1 has no assistant record before it.
    assert_eq!(cache_gap(&s, 1), None);
    let ev = collect(&s, &mut no_sim);
    let b = ev.requests[1].observed_break.as_ref().unwrap();
    assert_eq!(
        names(b),
        ["compaction", "ttl"],
        "7 min ≥ 5 min and a compaction between"
    );
}

#[test]
fn model_change_server_compaction_and_context_edits_explain_in_order() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 50_000), Some("t1"))
        .result("t1", 0.2)
        .response_with(
            "m2",
            0.3,
            json!({"input_tokens": 10, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 10_000,
            "iterations": [{"type": "compaction", "input_tokens": 1}, {"type": "message"}]}),
            Some("t2"),
            json!({"model": "claude-sonnet-4-5",
            "context_management": {"applied_edits": [
                {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2, "cleared_input_tokens": 9000},
                {"type": "new_edit_type_2027", "whatever": 1}]}}),
        )
        .result("t2", 0.4)
        // Same model again, edits configured but none applied: [] is no explanation.
        .response_with(
            "m3",
            0.5,
            usage(10, 0, 0),
            None,
            json!({"model": "claude-sonnet-4-5",
            "context_management": {"applied_edits": []}}),
        );
    let ev = evidence(&tx);
    let b = ev.requests[1].observed_break.as_ref().unwrap();
    assert_eq!(
        names(b),
        ["server_compaction", "model_change", "context_edits"]
    );
    // Unknown edit types are kept verbatim.
    let edits = ev.requests[1].applied_edits.as_ref().unwrap();
    assert_eq!(
        edits[1],
        json!({"type": "new_edit_type_2027", "whatever": 1})
    );
    assert_eq!(ev.requests[2].applied_edits, Some(vec![]));
    assert_eq!(ev.requests[0].applied_edits, None);
    // m3: E = 10,000, R = 0: a break nothing in the transcript explains.
    assert_eq!(
        names(ev.requests[2].observed_break.as_ref().unwrap()),
        ["unexplained"]
    );
}

#[test]
fn plan_rewrite_is_added_where_the_plan_breaks_the_prefix() {
    let b = ObservedBreak {
        expected: 80_000,
        observed: 0,
        facts: BreakFacts {
            ttl: true,
            cache_edits: true,
            ..BreakFacts::default()
        },
    };
    assert_eq!(names(&b), ["ttl", "cache_edits"]);
    let b = b.with_plan_rewrite(true);
    assert_eq!(names(&b), ["ttl", "plan_rewrite", "cache_edits"]);
    assert_eq!(names(&b.with_plan_rewrite(false)), ["ttl", "cache_edits"]);
}

#[test]
fn cache_deletions_that_grew_explain_a_break() {
    let del = |read: u64, deleted: u64| {
        json!({"input_tokens": 10, "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": read, "cache_deleted_input_tokens": deleted})
    };
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, del(50_000, 1000), Some("t1"))
        .result("t1", 0.2)
        // Deleted grew 1,000 → 9,000: the harness deleted cached results.
        .response("m2", 0.3, del(40_000, 9000), Some("t2"))
        .result("t2", 0.4)
        // Stayed at 9,000: a drop with no deletion.
        .response("m3", 0.5, del(30_000, 9000), None);
    let ev = evidence(&tx);
    assert_eq!(
        names(ev.requests[1].observed_break.as_ref().unwrap()),
        ["cache_edits"]
    );
    assert_eq!(
        names(ev.requests[2].observed_break.as_ref().unwrap()),
        ["unexplained"]
    );
}

#[test]
fn a_budget_record_attaches_to_the_next_response_and_checks_its_parent() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 150_000), Some("t1"))
        .result("t1", 0.2)
        .boundary(0.3, 65_398, 45_149, &["t1"])
        .response("m2", 0.4, usage(10, 0, 100_000), None)
        .chain_last();
    let s = tx.session();
    let (attached, warnings) = attach(&s);
    assert_eq!(attached, vec![(0, Writer::Budget, Target::Request(2))]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let ev = collect(&s, &mut no_sim);
    let mc = ev.requests[1].microcompact.as_ref().unwrap();
    assert_eq!(mc.writer, Writer::Budget);
    assert_eq!(
        (mc.pre_tokens, mc.tokens_saved),
        (Some(65_398), Some(45_149))
    );
    // No budget plan in this build: no comparison, and none made up.
    assert_eq!(mc.comparison, None);
    assert_eq!(value(mc.json())["agrees"], Value::Null);
    // E = 150,000 → 100,000: the record explains the break. SPEC §10: the
    // budget writer's boundary is `harness_rewrite` (it rewrote results, the
    // prefix breaks), never `cache_edits`.
    assert_eq!(
        names(ev.requests[1].observed_break.as_ref().unwrap()),
        ["harness_rewrite"]
    );

    // The same record whose next response is not its child: attached, warned.
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 1000), Some("t1"))
        .result("t1", 0.2)
        .boundary(0.3, 65_398, 45_149, &["t1"])
        .prompt(0.35)
        .response("m2", 0.4, usage(10, 0, 1000), None)
        .chain_last();
    let (attached, warnings) = attach(&tx.session());
    assert_eq!(attached, vec![(0, Writer::Budget, Target::Request(2))]);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].message.contains("not the record's uuid u-4"),
        "{}",
        warnings[0].message
    );
}

#[test]
fn a_budget_record_before_a_compaction_goes_to_compactions() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 1000), Some("t1"))
        .result("t1", 0.2)
        .boundary(0.3, 150_000, 30_000, &["t1"])
        .compact(0.4)
        .prompt(0.5)
        .response("m2", 0.6, usage(10, 0, 1000), None);
    let s = tx.session();
    let (attached, _) = attach(&s);
    assert_eq!(attached, vec![(0, Writer::Budget, Target::Compaction(2))]);
    let mut asked = Vec::new();
    let ev = collect(&s, &mut |w, at| {
        asked.push((w, at));
        None
    });
    assert_eq!(
        asked,
        [(Writer::Budget, SimAt::BeforeCompaction(2))],
        "compared on the view before the boundary"
    );
    assert!(ev.requests[1].microcompact.is_none());
    assert_eq!(ev.requests[1].compactions.len(), 1);
    assert_eq!(ev.requests[1].compactions[0].compacted_tool_ids, ["t1"]);
}

#[test]
fn a_cached_record_attaches_to_the_response_before_it_and_compares_with_count() {
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(10, 0, 1000), Some("t1"))
        .result("t1", 0.2)
        .response("m2", 0.3, usage(10, 0, 1000), Some("t2"))
        .boundary(0.35, 0, 4000, &["t1", "tX"])
        .result("t2", 0.4)
        .response("m3", 0.5, usage(10, 0, 1000), None);
    let s = tx.session();
    let (attached, warnings) = attach(&s);
    assert_eq!(attached, vec![(0, Writer::Cached, Target::Request(2))]);
    assert!(warnings.is_empty());
    // The count plan newly cleared t1 and t0 at request 2.
    let ev = collect(&s, &mut |w, at| {
        assert_eq!((w, at), (Writer::Cached, SimAt::Request(2)));
        Some(vec!["t0".to_string(), "t1".to_string()])
    });
    let mc = ev.requests[1].microcompact.as_ref().unwrap();
    assert_eq!(
        mc.comparison,
        Some(Comparison {
            agrees: Some(false),
            incomplete: false,
            missing: vec!["tX".into()],
            extra: vec!["t0".into()],
            absent: vec![],
            named: 2,
        })
    );
    assert_eq!(value(mc.json())["writer"], "cached");
}

#[test]
fn records_with_nothing_to_attach_to_are_warned_about() {
    let mut tx = Tx::default();
    tx.boundary(0.0, 0, 100, &["a"])
        .prompt(0.1)
        .response("m1", 0.2, usage(1, 0, 0), None)
        .prompt(0.3)
        .boundary(0.4, 140_000, 30_000, &["b"]);
    let s = tx.session();
    let (attached, warnings) = attach(&s);
    assert!(attached.is_empty());
    assert_eq!(warnings.len(), 2);
    assert!(warnings[0].message.contains("no response before it"));
    assert!(warnings[1].message.contains("no response follows it"));
}

#[test]
fn comparison_lists_missing_in_record_order_and_extra_in_plan_order() {
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        compare(&ids(&["a", "b"]), &ids(&["a", "b"])),
        Comparison {
            agrees: Some(true),
            incomplete: false,
            missing: vec![],
            extra: vec![],
            absent: vec![],
            named: 2,
        }
    );
    let c = compare(&ids(&["c", "a", "b"]), &ids(&["d", "a", "e"]));
    assert_eq!(c.agrees, Some(false));
    assert_eq!(c.missing, ids(&["c", "b"]));
    assert_eq!(c.extra, ids(&["d", "e"]));
    // Order alone does not matter.
    assert_eq!(
        compare(&ids(&["b", "a"]), &ids(&["a", "b"])).agrees,
        Some(true)
    );
}

#[test]
fn an_incomplete_id_list_never_agrees() {
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // The readable ids match: unknown, not agrees (an entry mcscope could not
    // read may be anything).
    let c = compare_ids(&ids(&["a"]), false, &ids(&["a"]));
    assert_eq!((c.agrees, c.incomplete), (None, true));
    assert!(c.words().starts_with("unknown: "), "{}", c.words());
    // The plan cleared one more: it may be the unreadable entry, still unknown.
    assert_eq!(
        compare_ids(&ids(&["a"]), false, &ids(&["a", "b"])).agrees,
        None
    );
    // A readable id the plan did not clear disagrees whatever the rest holds.
    let c = compare_ids(&ids(&["a", "z"]), false, &ids(&["a"]));
    assert_eq!(c.agrees, Some(false));
    assert_eq!(c.missing, ids(&["z"]));
    // No list at all: nothing named, nothing proven.
    assert_eq!(compare_ids(&[], false, &[]).agrees, None);
}

#[test]
fn the_break_rule_holds_at_u64_scale() {
    // 2,000 tokens out of 1.3e18 is far above 95 %: no break (E·95 passes 2^64).
    let e = 1_300_000_000_000_000_000u64;
    assert!(!is_break(e, e - 2000));
    assert!(is_break(e, e / 2));
    assert!(!is_break(u64::MAX, u64::MAX - 1));
    assert!(is_break(u64::MAX, 0));
    let u = UsageEvidence {
        input: u64::MAX,
        cache_write: Some(u64::MAX),
        cache_read: u64::MAX,
        cache_write_1h: None,
        cache_deleted: None,
        aggregated: false,
    };
    assert_eq!((u.prompt(), u.expected_next()), (u64::MAX, u64::MAX));
}

#[test]
fn a_budget_firing_without_a_record_is_silent_at_a_turn_and_extra_elsewhere() {
    let ids = vec!["t1".to_string(), "t2".to_string()];
    let mut at_turn = RequestEvidence::default();
    assert!(at_turn.budget_fired(true, ids.clone()), "silent");
    assert_eq!(value(at_turn.json())["microcompact"], Value::Null);
    let mut in_loop = RequestEvidence::default();
    assert!(!in_loop.budget_fired(false, ids.clone()));
    assert_eq!(
        value(in_loop.json())["microcompact"],
        json!({"writer": null, "compacted_tool_ids": [], "pre_tokens": null,
               "tokens_saved": null, "agrees": false, "missing": [], "extra": ["t1", "t2"],
               "absent": []})
    );
    // A record is there: it is what the JSON shows, and nothing is silent.
    let mut recorded = RequestEvidence {
        microcompact: Some(Box::new(Microcompact {
            writer: Writer::Budget,
            line: 9,
            compacted_tool_ids: ids.clone(),
            ids_complete: true,
            pre_tokens: Some(140_000),
            tokens_saved: Some(30_000),
            comparison: None,
        })),
        ..Default::default()
    };
    assert!(!recorded.budget_fired(true, ids));
    assert_eq!(value(recorded.json())["microcompact"]["writer"], "budget");
}

#[test]
fn qwen_usage_reads_prompt_and_cached_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("q.jsonl");
    let rec = |i: usize, kind: &str, extra: Value| {
        let mut r = json!({"uuid": format!("q{i}"), "parentUuid": null, "sessionId": "s",
            "timestamp": iso(T0 + i as i64 * 1000), "type": kind, "cwd": "/r", "version": "0.15.6"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r.to_string()
    };
    let lines = [
        rec(
            1,
            "user",
            json!({"message": {"role": "user", "parts": [{"text": "hi"}]}}),
        ),
        rec(
            2,
            "assistant",
            json!({"model": "qwen3", "message": {"role": "model", "parts": [{"text": "a"}]},
            "usageMetadata": {"promptTokenCount": 14210, "cachedContentTokenCount": 13824}}),
        ),
        rec(
            3,
            "user",
            json!({"message": {"role": "user", "parts": [{"text": "more"}]}}),
        ),
        // E = R(k−1) = 13,824 (no writes): R = 2,000 is a break of 11,824.
        rec(
            4,
            "assistant",
            json!({"model": "qwen3", "message": {"role": "model", "parts": [{"text": "b"}]},
            "usageMetadata": {"promptTokenCount": 16002, "cachedContentTokenCount": 2000}}),
        ),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let s = crate::load::load(&p, None).unwrap();
    let ev = collect(&s, &mut no_sim);
    let u = ev.requests[0].usage.as_ref().unwrap();
    assert_eq!(
        value(u),
        json!({"input": 386, "cache_write": null, "cache_read": 13824,
               "cache_write_1h": null, "cache_deleted": null, "aggregated": false})
    );
    assert_eq!(u.prompt(), 14210);
    let b = ev.requests[1].observed_break.as_ref().unwrap();
    assert_eq!((b.expected, b.observed, b.drop()), (13_824, 2000, 11_824));
    assert_eq!(ttl_auto(&s, 2), Ttl::FiveMinutes);
}
