//! How a database becomes requests (reference §1.2–§1.4): order, reverts, views, parts, usage.

use super::*;

/// Reference §1.2 "Order messages and parts by id": rows written out of order
/// (a tool part updated last, a message inserted late) are read in id order.
#[test]
fn s1_2_messages_and_parts_are_ordered_by_id() {
    let mut db = Db::new();
    db.session("ses_a", None, None);
    let u = db.user("ses_a", "first");
    let n = db.next();
    let a = id("msg", n);
    // Parts inserted last-first: the rows' order is not the ids'.
    db.part("ses_a", &a, n + 3, text("after the call"));
    db.part("ses_a", &a, n + 2, tool("call_b", "read", "B"));
    db.part("ses_a", &a, n + 1, tool("call_a", "read", "A"));
    db.message(
        "ses_a",
        &a,
        json!({"role": "assistant", "time": {"created": T0 + n}, "parentID": u, "finish": "tool-calls",
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
    );
    // A later user message inserted before an earlier one.
    let late = db.next();
    let early_n = db.next();
    let early = id("msg", late);
    db.message(
        "ses_a",
        &id("msg", early_n),
        json!({"role": "assistant", "time": {"created": T0 + early_n}, "parentID": early}),
    );
    db.message(
        "ses_a",
        &early,
        json!({"role": "user", "time": {"created": T0 + late}}),
    );
    db.part("ses_a", &early, late + 1, text("second"));
    let w = wire(db.p(), &[], 2);
    assert_eq!(
        w,
        [
            ("user".into(), vec!["first".to_string()]),
            (
                "assistant".into(),
                vec![
                    "use call_a".into(),
                    "use call_b".into(),
                    "after the call".into()
                ]
            ),
            (
                "user".into(),
                vec![
                    "result call_a".into(),
                    "result call_b".into(),
                    "second".into()
                ]
            ),
        ]
    );
}

/// Reference §1.4 "Request k is assistant message k": the sample's eight
/// assistant messages are eight requests; a request after a prompt begins a
/// turn, one after tool results continues the loop.
#[test]
fn s1_4_one_request_per_assistant_message() {
    let t = timeline(SAMPLE, &[]);
    assert_eq!(t["session"]["format"], "opencode-db");
    assert_eq!(t["session"]["harness"], "opencode");
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 8);
    let turns: Vec<bool> = reqs.iter().map(|r| r["begins_turn"] == true).collect();
    assert_eq!(
        turns,
        [true, false, false, false, true, true, false, true],
        "R1 and the prompts of turns 2, 3, 4 begin turns"
    );
    // SPEC §14: request.version is the session's recorded version.
    assert!(reqs.iter().all(|r| r["version"] == "1.18.33"));
    // Request 4 sends the three results of turn 1, whole (nothing is marked
    // before R8: the stored text is what was sent).
    let w = wire(SAMPLE, &[], 4);
    assert_eq!(w.len(), 7);
    let body = bin::json(&["wire", SAMPLE, "--at", "4"]);
    let bash = &body["messages"][4]["content"][0];
    assert_eq!(bash["tool_use_id"], "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe");
    assert_eq!(bash["content"].as_str().unwrap().len(), 239_999);
}

/// Reference §1.4 "session.revert hides messages after revert.messageID"
/// until the next prompt cleans them up: the hidden messages are the session's
/// tail, left out of OpenCode's *next* request. Their requests were sent and
/// billed before the revert (SPEC §15.1's reading for a rewound branch), so
/// they stay in the timeline and in `recorded.harness_usd`, with a warning.
#[test]
fn s1_4_revert_warns_and_keeps_the_billed_requests() {
    let mut db = Db::new();
    let u1 = db.user("ses_r", "one");
    db.assistant("ses_r", &u1, json!({}), vec![text("answer one")]);
    let u2 = db.user("ses_r", "two");
    db.assistant("ses_r", &u2, json!({}), vec![text("answer two")]);
    db.session("ses_r", None, Some(json!({"messageID": u2})));
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let w = &t["session"]["warnings"];
    assert_eq!(w[0]["id"], "opencode_revert", "{w}");
    assert!(
        w[0]["text"]
            .as_str()
            .unwrap()
            .contains("leaves out 2 message(s), from that one on"),
        "{w}"
    );
    // Both answers' `cost` (0.01 each) are in OpenCode's own bill.
    let usd = t["session"]["recorded"]["harness_usd"].as_f64().unwrap();
    assert!((usd - 0.02).abs() < 1e-9, "{usd}");
    // Without the revert: the same requests, no warning.
    db.conn
        .execute("UPDATE session SET revert = NULL", [])
        .unwrap();
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    assert_eq!(t["session"]["warnings"], json!([]));
}

/// Reference §1.4 "The view starts at the last completed compaction" (1.3.2
/// `filterCompacted`): a user message with a `compaction` part whose summary
/// assistant finished; a failed summary does not move the view. The new view
/// holds the compaction's ask and the summary, and starts after the summary's
/// own request.
#[test]
fn s1_4_the_view_starts_at_the_last_completed_compaction() {
    let mut db = Db::new();
    db.session("ses_c", None, None);
    let u1 = db.user("ses_c", "old prompt");
    db.assistant("ses_c", &u1, json!({}), vec![text("old answer")]);
    // A compaction that failed: no new view.
    let n = db.next();
    let c1 = id("msg", n);
    db.message(
        "ses_c",
        &c1,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_c",
        &c1,
        n + 1,
        json!({"type": "compaction", "auto": true}),
    );
    db.assistant(
        "ses_c",
        &c1,
        json!({"summary": true, "error": {"name": "APIError"}}),
        vec![text("half a summary")],
    );
    let u2 = db.user("ses_c", "still the old view");
    db.assistant("ses_c", &u2, json!({}), vec![text("ok")]);
    assert_eq!(wire(db.p(), &[], 3)[0].1, ["old prompt"]);
    // A completed one: later requests send from it on.
    let n = db.next();
    let c2 = id("msg", n);
    db.message(
        "ses_c",
        &c2,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_c",
        &c2,
        n + 1,
        json!({"type": "compaction", "auto": true}),
    );
    db.assistant(
        "ses_c",
        &c2,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u3 = db.user("ses_c", "new prompt");
    db.assistant("ses_c", &u3, json!({}), vec![text("fine")]);
    // The summary's own request (4) is sent before the new view: the view it
    // summarizes and the compaction's ask (1.3.2 `SessionCompaction.process`).
    let w4 = wire(db.p(), &[], 4);
    assert_eq!(w4[0].1, ["old prompt"], "{w4:?}");
    assert_eq!(
        w4.last().unwrap(),
        &(
            "user".to_string(),
            vec!["What did we do so far?".to_string()]
        )
    );
    assert!(
        w4.iter().any(|(_, b)| b == &["still the old view"]),
        "{w4:?}"
    );
    let w = wire(db.p(), &[], 5);
    assert_eq!(
        w,
        [
            ("user".into(), vec!["What did we do so far?".to_string()]),
            ("assistant".into(), vec!["the summary".into()]),
            ("user".into(), vec!["new prompt".into()]),
        ]
    );
}

/// 1.18 `filterCompacted` (grep `if(!z.tail_start_id)break`, the binary of
/// 1.18.33): a compaction part's `tail_start_id` keeps the messages from there
/// up to the compaction verbatim, after the summary. The retained results are
/// candidates of the new view, where the prune scan meets them in their stored
/// place (before the compaction), and a prune mark on one shows in its copy.
#[test]
fn s1_4_a_compaction_s_tail_start_id_keeps_the_latest_turn_after_the_summary() {
    let mut db = Db::new();
    db.session("ses_t", None, None);
    let u1 = db.user("ses_t", "turn 1");
    db.assistant(
        "ses_t",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("a", "read", "A")],
    );
    db.assistant("ses_t", &u1, json!({}), vec![text("one")]);
    let u2 = db.user("ses_t", "turn 2");
    db.assistant(
        "ses_t",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![tool("b", "read", "B")],
    );
    db.assistant("ses_t", &u2, json!({}), vec![text("two")]);
    let n = db.next();
    let c = id("msg", n);
    db.message(
        "ses_t",
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_t",
        &c,
        n + 1,
        json!({"type": "compaction", "auto": false, "tail_start_id": u2}),
    );
    db.assistant(
        "ses_t",
        &c,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u3 = db.user("ses_t", "turn 3");
    db.assistant("ses_t", &u3, json!({}), vec![text("three")]);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // Request 5 (the summary's) sends the old view and the ask.
    let w5 = wire(db.p(), &[], 5);
    assert_eq!(w5[0].1, s(&["turn 1"]), "{w5:?}");
    // Request 6: the ask, the summary, turn 2 verbatim, then turn 3.
    let w6 = wire(db.p(), &[], 6);
    let got: Vec<(String, Vec<String>)> = w6;
    assert_eq!(
        got,
        [
            ("user".to_string(), s(&["What did we do so far?"])),
            ("assistant".into(), s(&["the summary"])),
            ("user".into(), s(&["turn 2"])),
            ("assistant".into(), s(&["use b"])),
            ("user".into(), s(&["result b"])),
            ("assistant".into(), s(&["two"])),
            ("user".into(), s(&["turn 3"])),
        ]
    );
    // Six requests: the tail is in the view again, never sent as a response.
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 6);
    // Without the tail the new view starts at the ask.
    db.conn
        .execute(
            "UPDATE part SET data = json_remove(data, '$.tail_start_id') WHERE json_extract(data, '$.type') = 'compaction'",
            [],
        )
        .unwrap();
    let w6 = wire(db.p(), &[], 6);
    assert_eq!(w6.len(), 3, "{w6:?}");
}

/// Reference §1.4 "In the wire": an `error` part is sent as its `state.error`
/// (`output-error`), a `pending` or `running` one as "[Tool execution was
/// interrupted]"; neither is a prune candidate (§2.3), and a completed one is
/// sent as its `state.output`.
#[test]
fn s1_4_error_and_unfinished_parts_in_the_wire() {
    let mut db = Db::new();
    db.session("ses_w", None, None);
    let u = db.user("ses_w", "go");
    let failed = json!({"type": "tool", "callID": "bad", "tool": "bash", "state": {"status": "error",
        "input": {"command": "false"}, "error": "exit 1: no such file", "time": {"start": T0, "end": T0 + 1}}});
    let running = json!({"type": "tool", "callID": "cut", "tool": "bash", "state": {"status": "running",
        "input": {"command": "sleep 99"}, "time": {"start": T0}}});
    db.assistant(
        "ses_w",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("ok", "read", "the text"), failed, running],
    );
    db.assistant("ses_w", &u, json!({}), vec![text("done")]);
    let w = bin::json(&["wire", db.p(), "--at", "2"]);
    let results = &w["messages"][2]["content"];
    assert_eq!(results[0]["tool_use_id"], "ok");
    assert_eq!(results[0]["content"], "the text");
    assert_eq!(results[1]["tool_use_id"], "bad");
    assert_eq!(results[1]["content"], "exit 1: no such file");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[2]["tool_use_id"], "cut");
    assert_eq!(results[2]["content"], "[Tool execution was interrupted]");
    // The calls stay beside them.
    let calls: Vec<&str> = w["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(calls, ["ok", "bad", "cut"]);

    // 1.18.33 `toModelMessages`: an interrupted tool's output so far is sent;
    // a failed response is left out of later requests (an aborted one only
    // with nothing but reasoning); a `text/plain` file part and an empty text
    // are not sent (the file's content is in a text part).
    let mut db = Db::new();
    db.session("ses_v", None, None);
    let u = db.user("ses_v", "go");
    db.part(
        "ses_v",
        &u,
        db.n + 2,
        json!({"type": "file", "mime": "text/plain", "filename": "a.txt", "url": "file:///a.txt"}),
    );
    db.part("ses_v", &u, db.n + 3, json!({"type": "text", "text": ""}));
    let stopped = json!({"type": "tool", "callID": "stopped", "tool": "bash", "state": {"status": "error",
        "input": {"command": "make"}, "error": "Tool execution aborted",
        "metadata": {"interrupted": true, "output": "compiling…"}, "time": {"start": T0, "end": T0 + 1}}});
    db.assistant("ses_v", &u, json!({"finish": "tool-calls"}), vec![stopped]);
    db.assistant(
        "ses_v",
        &u,
        json!({"finish": null, "error": {"name": "APIError", "data": {"message": "overloaded"}}}),
        vec![text("half an answer")],
    );
    db.assistant("ses_v", &u, json!({}), vec![text("done")]);
    let w = wire(db.p(), &[], 3);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(w[0], ("user".to_string(), s(&["go"])), "{w:?}");
    assert!(
        !w.iter()
            .any(|(_, b)| b.iter().any(|x| x.contains("half an answer"))),
        "{w:?}"
    );
    let body = bin::json(&["wire", db.p(), "--at", "3"]);
    assert_eq!(body["messages"][2]["content"][0]["content"], "compiling…");
}

/// 1.18.33 `SessionPrompt.shellImpl`: a `!command` the user runs is stored as
/// a user message holding only a synthetic note and a response with no
/// `finish` holding the shell's part. It sends no model request; later
/// requests carry it as history.
#[test]
fn s1_4_a_shell_command_is_history_without_a_request() {
    let mut db = Db::new();
    db.session("ses_sh", None, None);
    let u1 = db.user("ses_sh", "turn 1");
    db.assistant("ses_sh", &u1, json!({}), vec![text("one")]);
    let n = db.next();
    let note = id("msg", n);
    db.message(
        "ses_sh",
        &note,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_sh",
        &note,
        n + 1,
        json!({"type": "text", "synthetic": true, "text": "The following tool was executed by the user"}),
    );
    db.assistant(
        "ses_sh",
        &note,
        json!({"finish": null, "cost": 0}),
        vec![tool("sh", "bash", "ls output")],
    );
    let u2 = db.user("ses_sh", "turn 2");
    db.assistant("ses_sh", &u2, json!({}), vec![text("two")]);
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let w = wire(db.p(), &[], 2);
    assert!(
        w.iter().any(|(_, b)| b.iter().any(|x| x == "result sh")),
        "{w:?}"
    );
}

/// Reference §1.3 `parentID` / §5.7: a sub-agent (`task`) session is planned
/// as a what-if (SPEC §2).
#[test]
fn s1_3_a_sub_agent_session_is_a_what_if() {
    let mut db = Db::new();
    db.session("ses_main", None, None);
    db.session("ses_child", Some("ses_main"), None);
    let u = db.user("ses_main", "go");
    db.assistant("ses_main", &u, json!({}), vec![text("done")]);
    let c = db.user("ses_child", "sub task");
    db.assistant("ses_child", &c, json!({}), vec![text("sub done")]);
    let main = timeline(db.p(), &["--session", "ses_main"]);
    assert_eq!(main["session"]["subagent_what_if"], false);
    let child = timeline(db.p(), &["--session", "ses_child"]);
    assert_eq!(child["session"]["subagent_what_if"], true);
    // SPEC §9a: the sub-agent's responses are billed beside the main thread's.
    let sub = &main["session"]["recorded"]["subagents"];
    assert_eq!(sub["responses"], 1, "{sub}");
    assert_eq!(sub["cache_write_5m"], 100);
    assert_eq!(main["session"]["recorded"]["responses"], 1);
    assert!(child["session"]["recorded"]["subagents"].is_null());
    assert_eq!(
        wire(db.p(), &["--session", "ses_child"], 1)[0].1,
        ["sub task"]
    );
}

/// Reference §1.3 `tokens` and `cost` / SPEC §14, §15.14: each assistant
/// message's usage is a response's (input, cache writes and reads, output with
/// the reasoning tokens), and `recorded.harness_usd` is the sum of OpenCode's
/// own `cost`, beside mcscope's price.
#[test]
fn s1_3_tokens_and_cost_are_the_recorded_bill() {
    let r = &timeline(SAMPLE, &[])["session"]["recorded"];
    assert_eq!(r["responses"], 8);
    // Σ over the sample's eight messages (scripts/make-opencode-sample.py).
    assert_eq!(r["input"], 27);
    assert_eq!(r["output"], 456);
    assert_eq!(r["cache_write_5m"], 148_160);
    assert_eq!(r["cache_read"], 242_430);
    assert_eq!(r["harness_usd"], 0.4914);
    assert!(r["usd"].as_f64().is_some(), "claude-sonnet-4-5 has a price");
    // Reasoning tokens count as output; a message without `tokens` has no usage.
    let mut db = Db::new();
    db.session("ses_t", None, None);
    let u = db.user("ses_t", "think");
    db.assistant(
        "ses_t",
        &u,
        json!({"cost": 0.25, "tokens": {"input": 5, "output": 7, "reasoning": 11, "cache": {"read": 13, "write": 17}}}),
        vec![text("a")],
    );
    db.assistant(
        "ses_t",
        &u,
        json!({"cost": 0.5, "tokens": null}),
        vec![text("b")],
    );
    let r = &timeline(db.p(), &[])["session"]["recorded"];
    assert_eq!(r["responses"], 1);
    assert_eq!(
        (
            &r["input"],
            &r["output"],
            &r["cache_read"],
            &r["cache_write_5m"]
        ),
        (&json!(5), &json!(18), &json!(13), &json!(17))
    );
    assert_eq!(r["harness_usd"], 0.75);
    // A harness that records no cost has no such key.
    let c = bin::json(&["timeline", "sample-sessions/claude-demo.jsonl", "-j"]);
    assert!(c["session"]["recorded"].get("harness_usd").is_none());
}

/// Reference §1.3 (a review finding): an assistant message whose request
/// failed (`error`, every count 0) recorded no usage: it is not a cold read.
#[test]
fn s1_3_a_failed_request_records_no_usage() {
    let mut db = Db::new();
    db.session("ses_f", None, None);
    let u = db.user("ses_f", "go");
    db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
    let u = db.user("ses_f", "again");
    db.assistant(
        "ses_f",
        &u,
        json!({"error": {"name": "APIError"}, "cost": 0,
               "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
        vec![],
    );
    let t = timeline(db.p(), &[]);
    assert!(
        t["requests"][1]["evidence"]["usage"].is_null(),
        "{}",
        t["requests"][1]
    );
    assert!(t["requests"][1]["evidence"]["observed_break"].is_null());
}

/// Issue 41 item 5: parts are read from their text when the build walks their
/// message, not all at once. What a reader sees is unchanged: rows that do not
/// read are said in row order (messages, then parts: the database's rows come
/// by message, then id), then the parts of no
/// message of the session, then what the walk found; a `step-start` whose type
/// is written with an escape still tells that the session records steps (so
/// an assistant message without one is no request).
#[test]
fn parts_read_as_they_are_walked_are_said_as_before() {
    let mut db = Db::new();
    db.session("ses_r", None, None);
    let u = db.user("ses_r", "hi");
    let raw_part = |db: &Db, mid: &str, n: i64, data: &str| {
        db.conn
            .execute(
                "INSERT INTO part VALUES (?1, ?2, 'ses_r', ?3, ?3, ?4)",
                rusqlite::params![id("prt", n), mid, T0 + n, data],
            )
            .unwrap();
    };
    let a1 = db.assistant("ses_r", &u, json!({}), vec![text("one")]);
    raw_part(&db, &a1, 15, r#"{"type":"st\u0065p-start"}"#);
    raw_part(&db, &a1, 16, "{not json");
    raw_part(&db, &u, 17, "[1]");
    // A second response without a step-start: no request of its own.
    db.assistant("ses_r", &u, json!({}), vec![text("two")]);
    db.part("ses_r", "msg_gone", 900, text("orphan"));
    raw_part(&db, "msg_gone2", 901, "x");
    db.conn
        .execute(
            "INSERT INTO message VALUES ('msg_bad', 'ses_r', ?1, ?1, 'oops')",
            rusqlite::params![T0],
        )
        .unwrap();
    let t = timeline(db.p(), &[]);
    let s = &t["session"];
    assert_eq!(t["requests"].as_array().unwrap().len(), 1, "{t}");
    let said: Vec<String> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    let prt = |n| id("prt", n);
    assert_eq!(
        said,
        vec![
            "message msg_bad skipped: invalid JSON at column 1: expected value".to_string(),
            format!("part {} skipped: `data` is not a JSON object", prt(17)),
            format!(
                "part {} skipped: invalid JSON at column 2: key must be a string",
                prt(16)
            ),
            format!(
                "part {} skipped: invalid JSON at column 1: expected value",
                prt(901)
            ),
            format!(
                "part {} skipped: its message msg_gone is not in the session",
                prt(900)
            ),
        ],
        "{said:#?}"
    );
}
