//! Gemini CLI's files as the harness reads them (reference §1): requests, rewinds, calls, usage.

use super::*;

#[test]
fn reference_1_4_each_response_with_a_model_is_a_request() {
    let t = json(&["timeline", BUILD, "-j"]);
    assert_eq!(t["session"]["format"], "gemini-jsonl");
    assert_eq!(t["session"]["harness"], "gemini");
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 5);
    // Requests 2-4 continue the tool loop; 1 and 5 begin turns.
    let turns: Vec<bool> = reqs
        .iter()
        .map(|r| r["begins_turn"].as_bool().unwrap())
        .collect();
    assert_eq!(turns, [true, false, false, false, true]);
    // SPEC §15.12: Gemini CLI records no version.
    assert!(
        reqs.iter()
            .all(|r| r["version"].is_null() && r["version_row"].is_null())
    );
}

#[test]
fn spec_15_12_usage_input_less_cached_plus_tool_output_plus_thoughts() {
    let (_d, p) = file(
        "session-x.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "hi"),
            gemini("g1", "2026-11-30T09:00:02.000Z", "hello"),
        ],
    );
    let t = json(&["timeline", &p, "-j"]);
    let u = &t["requests"][0]["evidence"]["usage"];
    // input 100 − cached 40 + tool 3; no cache writes.
    assert_eq!(u["input"], 63, "{u}");
    assert_eq!(u["cache_read"], 40, "{u}");
    assert!(u["cache_write"].is_null(), "{u}");
    // Output 10 + thoughts 5 (the recorded bill, SPEC §9a).
    let rec = &t["session"]["recorded"];
    assert_eq!(rec["output"], 15, "{rec}");
}

/// Two prompts and replies, a `$rewindTo` the second prompt, a new prompt.
fn rewound() -> [Value; 8] {
    [
        header(),
        user("u1", "2026-11-30T09:00:01.000Z", "first"),
        gemini("g1", "2026-11-30T09:00:02.000Z", "one"),
        user("u2", "2026-11-30T09:00:03.000Z", "second"),
        gemini("g2", "2026-11-30T09:00:04.000Z", "two"),
        json!({"$rewindTo": "u2"}),
        user("u3", "2026-11-30T09:00:05.000Z", "instead"),
        gemini("g3", "2026-11-30T09:00:06.000Z", "three"),
    ]
}

#[test]
fn reference_1_2_a_rewind_deletes_from_its_message_on() {
    let (_d, p) = file("session-r.jsonl", &rewound());
    let w = json(&["wire", &p, "--at", "3"]);
    let texts: Vec<&str> = w["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .collect();
    // The third request sends the chain without the rewound prompt and reply.
    assert_eq!(texts, ["first", "one", "instead"]);
}

#[test]
fn reference_1_3_tool_calls_come_from_the_rewritten_response() {
    // The 0.39-0.43 layout: results only in the response's toolCalls.
    let mut g = gemini("g1", "2026-11-30T09:00:02.000Z", "");
    g["toolCalls"] = json!([{"id": "c1", "name": "read_file", "args": {"file_path": "a.txt"},
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "AAAA"}}}],
        "status": "success"}]);
    let (_d, p) = file(
        "session-t.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "read a"),
            gemini("g1", "2026-11-30T09:00:02.000Z", ""),
            g,
            gemini("g2", "2026-11-30T09:00:03.000Z", "done"),
        ],
    );
    let plan = json(&["plan", &p, "--at", "2", "-j"]);
    let c = &plan["candidates"][0];
    assert_eq!(c["tool_use_id"], "c1");
    assert_eq!(c["tool"], "read_file");
    assert_eq!(c["path"], "a.txt");
    // ⌊(9 + len({"output":"AAAA"}) = 17) / 4⌋ = 6.
    assert_eq!(c["harness_tokens"], 6);
}

#[test]
fn spec_15_12_a_masked_output_without_its_original_is_already_cleared() {
    let masked = json!([{"functionResponse": {"id": "c9", "name": "read_file",
        "response": {"output": "<tool_output_masked>\nx\n</tool_output_masked>"}}}]);
    let call = json!([{"functionCall": {"id": "c9", "name": "read_file", "args": {}}}]);
    let (_d, p) = file(
        "session-m.jsonl",
        &[
            header(),
            json!({"$set": {"messages": [
                {"id": "a", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [{"text": "go"}]},
                {"id": "b", "timestamp": "2026-11-30T09:00:00.000Z", "type": "gemini", "content": call, "thoughts": [], "tokens": null},
                {"id": "c", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": masked}]}}),
            gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
        ],
    );
    let plan = json(&["plan", &p, "-j"]);
    assert_eq!(plan["candidates"][0]["status"], "already_cleared");
    let diags = plan["session"]["diagnostics"].as_array().unwrap();
    assert!(
        diags
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("no original")),
        "{diags:?}"
    );
}

#[test]
fn spec_15_12_a_legacy_json_file_runs_mask_with_a_caveat() {
    let record = json!({"sessionId": "s-2", "projectHash": "h", "startTime": "2026-03-01T09:00:00.000Z",
        "lastUpdated": "2026-03-01T09:00:00.000Z", "messages": [
            user("u1", "2026-03-01T09:00:01.000Z", "hi"),
            gemini("g1", "2026-03-01T09:00:02.000Z", "hello")]});
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("session-2026-03-01T09-00-s2.json");
    std::fs::write(&p, serde_json::to_string_pretty(&record).unwrap()).unwrap();
    let t = json(&["timeline", p.to_str().unwrap(), "-j"]);
    assert_eq!(t["session"]["format"], "gemini-json");
    assert_eq!(t["requests"].as_array().unwrap().len(), 1);
    let caveats: Vec<&str> = t["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(caveats, ["gemini_version_unknown", "gemini_remote_flags"]);
    // A legacy file that holds a masked output records a masking: no caveat
    // about the version (SPEC §15.12).
    let mut masked = record.clone();
    masked["messages"].as_array_mut().unwrap().push(
        json!({"id": "u2", "timestamp": "2026-03-01T09:00:03.000Z",
        "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "read_file",
        "response": {"output": "<tool_output_masked>\nx\n</tool_output_masked>"}}}]}),
    );
    std::fs::write(&p, serde_json::to_string_pretty(&masked).unwrap()).unwrap();
    let t = json(&["timeline", p.to_str().unwrap(), "-j"]);
    assert_eq!(t["caveats"][0]["id"], "gemini_remote_flags");
    assert_eq!(t["caveats"].as_array().unwrap().len(), 1);
    // A JSONL session shows only the remote-flags caveat (the masked copy:
    // the unmasked one adds that masking did not run, SPEC §16.I).
    let t = json(&["timeline", MASKED, "-j"]);
    assert_eq!(t["caveats"][0]["id"], "gemini_remote_flags");
    assert_eq!(t["caveats"].as_array().unwrap().len(), 1);
}

#[test]
fn reference_1_2_a_subagent_file_is_a_what_if() {
    let mut h = header();
    h["kind"] = json!("subagent");
    let (_d, p) = file(
        "sub.jsonl",
        &[
            h,
            user("u1", "2026-11-30T09:00:01.000Z", "task"),
            gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
        ],
    );
    let t = json(&["timeline", &p, "-j"]);
    assert_eq!(t["session"]["subagent_what_if"], true);
}

/// Reference §1.3: a compression's checkpoint changes the history: a new
/// view starts from it (what it says is all the later requests send).
#[test]
fn reference_1_3_a_compression_checkpoint_starts_a_new_view() {
    let snapshot = json!({"$set": {"messages": [
        {"id": "e", "timestamp": "2026-11-30T09:10:00.000Z", "type": "user", "content": [{"text": "<state_snapshot>summary</state_snapshot>"}]},
        {"id": "f", "timestamp": "2026-11-30T09:10:00.000Z", "type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}], "thoughts": [], "tokens": null}]}});
    let (_d, p) = file(
        "session-c.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "first"),
            gemini("g1", "2026-11-30T09:00:02.000Z", "one"),
            json!({"$set": {"sessionId": "s-1b"}}),
            snapshot,
            user("u2", "2026-11-30T09:10:01.000Z", "next"),
            gemini("g2", "2026-11-30T09:10:02.000Z", "two"),
        ],
    );
    let w = json(&["wire", &p, "--at", "2"]);
    let texts: Vec<&str> = w["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "<state_snapshot>summary</state_snapshot>",
            "Got it. Thanks for the additional context!",
            "next"
        ]
    );
}

/// Reference §1.3: a response is written again once its usage arrives (its
/// first copy's `tokens` null): the last copy's usage is the response's.
#[test]
fn reference_1_3_the_usage_of_the_last_copy_wins() {
    let mut first = gemini("g1", "2026-11-30T09:00:02.000Z", "answer");
    first["tokens"] = Value::Null;
    let (_d, p) = file(
        "session-u.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "hello"),
            first,
            gemini("g1", "2026-11-30T09:00:02.000Z", "answer"),
            json!({"$set": {"lastUpdated": "2026-11-30T09:00:03.000Z"}}),
        ],
    );
    let t = json(&["timeline", &p, "-j"]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 1);
    assert_eq!(t["requests"][0]["evidence"]["usage"]["input"], 63);
}

/// Reference §1.2: a `$rewindTo` starts the view again from what it keeps;
/// that is no compaction (an observed break there is not explained by one).
#[test]
fn reference_1_2_a_rewind_is_no_compaction() {
    let (_d, p) = file(
        "session-w.jsonl",
        &rewound().map(|mut l| {
            // A warm cache that reads nothing after the rewind: a break.
            let cached = match l["id"].as_str() {
                Some("g2") => 5000,
                Some("g3") => 0,
                _ => 0,
            };
            if l["type"] == "gemini" {
                l["tokens"] = json!({"input": 6000, "output": 10, "cached": cached, "thoughts": 0, "tool": 0, "total": 6010});
            }
            l
        }),
    );
    let e = json(&["evidence", &p, "-j"]);
    let b = &e["requests"][2]["observed_break"];
    let ex = b["explanations"]
        .as_array()
        .expect("a break at the request after the rewind");
    assert!(!ex.contains(&json!("compaction")), "{b}");
}

/// A session of every way a Gemini CLI message is made: a prompt, a legacy
/// response whose `toolCalls` carry their results (the result turn depends
/// on the other records), a modern call and its result in a user record, and
/// a compression checkpoint's messages.
fn every_kind_of_message() -> [Value; 10] {
    let legacy = json!([{"id": "c1", "name": "read_file", "args": {"file_path": "a.ts"},
        "result": [{"functionResponse": {"id": "c1", "name": "read_file",
                    "response": {"output": "legacy out"}}}]}]);
    let mut modern = gemini("g2", "2026-11-30T09:00:04.000Z", "");
    modern["content"] = json!([{"functionCall": {"id": "c2", "name": "run_shell_command",
                                                   "args": {"command": "ls"}}}]);
    let result = json!({"id": "u2", "timestamp": "2026-11-30T09:00:05.000Z", "type": "user",
        "content": [{"functionResponse": {"id": "c2", "name": "run_shell_command",
                     "response": {"output": "modern out"}}}]});
    let snapshot = json!({"$set": {"messages": [
        {"id": "e", "timestamp": "2026-11-30T09:10:00.000Z", "type": "user", "content": [{"text": "summary"}]},
        {"id": "f", "timestamp": "2026-11-30T09:10:00.000Z", "type": "gemini", "content": [{"text": "Got it."}], "thoughts": [], "tokens": null}]}});
    [
        header(),
        user("u1", "2026-11-30T09:00:01.000Z", "first"),
        with_calls("g1", "2026-11-30T09:00:02.000Z", legacy),
        modern,
        result,
        gemini("g3", "2026-11-30T09:00:06.000Z", "done"),
        snapshot,
        user("u3", "2026-11-30T09:10:01.000Z", "next"),
        gemini("g4", "2026-11-30T09:10:02.000Z", "two"),
        json!({"$set": {"lastUpdated": "2026-11-30T09:10:03.000Z"}}),
    ]
}

/// The first text of a body's parts, else its first output, else its first
/// call's name.
fn what(body: &Value) -> String {
    let parts = body["parts"].as_array().cloned().unwrap_or_default();
    parts
        .iter()
        .find_map(|p| {
            p["text"]
                .as_str()
                .or(p["functionResponse"]["response"]["output"].as_str())
                .or(p["functionCall"]["name"].as_str())
        })
        .unwrap_or("")
        .to_string()
}

/// Issue 41 item 5: a message made of one line of the file alone is not held
/// in memory: its body is read back from that line whenever a wire, the
/// masking facts or a page reads it, and reads as the line says. A body that
/// is no one line's (a legacy result turn, a checkpoint's message) is held.
#[test]
fn issue_41_5_message_bodies_are_read_back_from_their_lines() {
    use mcscope::session::Part;
    let (_d, p) = file("session-r.jsonl", &every_kind_of_message());
    let setup = common::setup(std::path::Path::new(&p), mcscope::setup::Opts::default());
    let s = &setup.session;
    let mut seen = Vec::new();
    mcscope::load::readback::each_message(s, |m, body| {
        let Some(Part::Inline(i)) = s.messages[m].parts.first() else {
            panic!("message {m} is no inline body");
        };
        seen.push((what(&body), i.line().is_some()));
    })
    .unwrap();
    let read_back = |t: &str| (t.to_string(), true);
    let held = |t: &str| (t.to_string(), false);
    assert_eq!(
        seen,
        [
            read_back("first"),
            read_back("read_file"),
            held("legacy out"),
            read_back("run_shell_command"),
            read_back("modern out"),
            read_back("done"),
            held("summary"),
            held("Got it."),
            read_back("next"),
            read_back("two"),
        ]
    );
    // What the wire sends of them, read back: the first view's last request.
    let w = json(&["wire", &p, "--at", "3"]);
    assert_eq!(
        w["contents"],
        json!([
            {"role": "user", "parts": [{"text": "first"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "read_file", "args": {"file_path": "a.ts"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "legacy out"}}}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c2", "name": "run_shell_command", "args": {"command": "ls"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "c2", "name": "run_shell_command", "response": {"output": "modern out"}}}]},
        ])
    );
}

/// Issue 41 item 5: a line read back that no longer parses (the file changed
/// since it was loaded) shows as a message that could not be read back, as a
/// Claude Code record does: never a wrong body, never a panic.
#[test]
fn issue_41_5_a_line_changed_since_loading_reads_as_unreadable() {
    let (_d, p) = file("session-x.jsonl", &every_kind_of_message());
    let setup = common::setup(std::path::Path::new(&p), mcscope::setup::Opts::default());
    // The prompt's line, the same length, no longer JSON.
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replacen("\"first\"", "\"first{", 1)).unwrap();
    let mut bodies = Vec::new();
    mcscope::load::readback::each_message(&setup.session, |_, body| bodies.push(body)).unwrap();
    let said = what(&bodies[0]);
    assert!(
        said.starts_with("[mcscope: the record near line 2 could not be read back: "),
        "{said}"
    );
    assert_eq!(
        what(&bodies[1]),
        "read_file",
        "the other lines read as before"
    );
}
