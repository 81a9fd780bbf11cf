//! OpenCode's `opencode export` JSON through the real binary (SPEC §17.O, §18.15,
//! §18.16; reference §6): the reference's worked example, the two real exports of
//! the corpus, and hand-made variants (a sanitized export, a subtask, an aborted
//! request, a leading `Exporting session:` line, a `.jsonl` name, REDACTED ids).

use super::*;

#[path = "../common/corpus.rs"]
mod corpus;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/opencode-export/worked-example.template.json")
}

/// Reference §6.8's export with its outputs filled in (§1.5: `@@O1@@` 2,000
/// chars, `@@O2@@` 239,999, `@@O4@@` the 30 jest lines).
fn worked_example() -> Value {
    let o4: String = (1..=30)
        .map(|i| format!("{:<39}\n", format!("// jest option {i:02}")))
        .collect();
    let text = std::fs::read_to_string(fixture())
        .unwrap()
        .replace("@@O1@@", &"a".repeat(2_000))
        .replace("@@O2@@", &"b".repeat(239_999))
        .replace("@@O4@@", &o4.replace('\n', "\\n"));
    serde_json::from_str(&text).unwrap()
}

/// Writes `v` pretty-printed as `opencode export` does, under `name`.
fn write(dir: &tempfile::TempDir, name: &str, head: &str, v: &Value) -> String {
    let p = dir.path().join(name);
    std::fs::write(
        &p,
        format!("{head}{}\n", serde_json::to_string_pretty(v).unwrap()),
    )
    .unwrap();
    p.to_str().unwrap().to_string()
}

fn evidence(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["evidence", path, "-j"];
    args.extend_from_slice(extra);
    bin::json(&args)
}

fn caveat_ids(t: &Value) -> Vec<String> {
    t["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// The prune record's comparison with the prune plan (its request, and the
/// ids missing from and extra to the plan).
fn prune_record(e: &Value) -> (u64, bool, Vec<String>) {
    let (k, mc) = e["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| Some((r["index"].as_u64()?, r["microcompact"].as_object()?.clone())))
        .expect("a prune record");
    let missing = mc["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    (k, mc["agrees"] == json!(true), missing)
}

/// SPEC §17.O.1–2 on reference §6.8: detected as an export (not a Messages
/// API body), 7 requests with their prompts, the two marks of the prune after
/// turn 3 sent as the placeholder from R7 on, and the simulation agrees.
#[test]
fn s17_o_the_worked_example_reads_as_the_reference_says() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "export.json", "", &worked_example());
    let t = timeline(&p, &[]);
    assert_eq!(t["session"]["format"], "opencode-export");
    assert_eq!(t["session"]["harness"], "opencode");
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 7);
    let prompts: Vec<u64> = reqs
        .iter()
        .map(|r| {
            let u = &r["evidence"]["usage"];
            u["input"].as_u64().unwrap()
                + u["cache_write"].as_u64().unwrap()
                + u["cache_read"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(
        prompts,
        [9_123, 9_764, 69_914, 70_053, 70_055, 70_386, 10_963]
    );
    // The marks belong to R7, and prune's simulation marks the same two there.
    let e = evidence(&p, &[]);
    let (k, agrees, missing) = prune_record(&e);
    assert_eq!((k, agrees, missing), (7, true, vec![]));
    assert_eq!(
        reqs[6]["newly_cleared"],
        json!([
            "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD",
            "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"
        ])
    );
    assert_eq!(placeholders(&p, &[], 7).len(), 2);
    assert!(placeholders(&p, &[], 6).is_empty());
    assert!(
        !caveat_ids(&t)
            .iter()
            .any(|c| c.starts_with("opencode_sanitized"))
    );
}

/// SPEC §17.O.1: sniffed on content: under a `.jsonl` name (as Entire stores
/// it), after the `Exporting session:` line a `2>&1` leaves, on one line, and
/// the head of a file too long to parse whole; `--input-format
/// opencode-export` forces it.
#[test]
fn s17_o1_an_export_is_sniffed_on_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let v = worked_example();
    for (name, head) in [
        ("full.jsonl", ""),
        (
            "stderr.json",
            "Exporting session: ses_2d9f3a1c8ffeHq7Rt2Lm5Wx9Zb\n",
        ),
    ] {
        let p = write(&dir, name, head, &v);
        let t = timeline(&p, &[]);
        assert_eq!(t["session"]["format"], "opencode-export", "{name}");
        assert_eq!(t["requests"].as_array().unwrap().len(), 7, "{name}");
    }
    let one = dir.path().join("one.txt");
    std::fs::write(&one, serde_json::to_string(&v).unwrap()).unwrap();
    let t = timeline(one.to_str().unwrap(), &[]);
    assert_eq!(t["session"]["format"], "opencode-export");
    let forced = timeline(
        one.to_str().unwrap(),
        &["--input-format", "opencode-export"],
    );
    assert_eq!(forced["session"]["format"], "opencode-export");
    // A file longer than the sniff's head (1 MiB): read up to its first message.
    let mut big = v.clone();
    big["messages"][2]["parts"][1]["state"]["output"] = json!("c".repeat(1_500_000));
    let p = write(&dir, "big.json", "", &big);
    assert!(std::fs::metadata(&p).unwrap().len() > 1 << 20);
    let t = timeline(&p, &[]);
    assert_eq!(t["session"]["format"], "opencode-export");
    assert_eq!(t["requests"].as_array().unwrap().len(), 7);
}

/// SPEC §17.O.3: array order is the truth. With every id `REDACTED` (as the
/// tools that publish exports leave them), the same requests, the same marks
/// and the same agreement; the calls take `REDACTED`, `REDACTED#2`, ….
#[test]
fn s17_o3_redacted_ids_change_nothing_but_the_names() {
    let mut v = worked_example();
    for m in v["messages"].as_array_mut().unwrap() {
        m["info"]["id"] = json!("REDACTED");
        if m["info"].get("parentID").is_some() {
            m["info"]["parentID"] = json!("REDACTED");
        }
        for p in m["parts"].as_array_mut().unwrap() {
            p["id"] = json!("REDACTED");
            p["messageID"] = json!("REDACTED");
            if p.get("callID").is_some() {
                p["callID"] = json!("REDACTED");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "redacted.json", "", &v);
    let t = timeline(&p, &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 7);
    assert_eq!(
        t["requests"][6]["newly_cleared"],
        json!(["REDACTED", "REDACTED#2"])
    );
    let (k, agrees, _) = prune_record(&evidence(&p, &[]));
    assert_eq!((k, agrees), (7, true));
}

/// SPEC §17.O.2, §18.15: a subtask's execution (a lone `task` part, no
/// `step-start`) is no request but is in the history; an aborted request (a
/// `step-start`, no `step-finish`, `MessageAbortedError`) is a request whose
/// usage is unknown.
#[test]
fn s17_o2_subtasks_are_no_request_and_an_aborted_one_has_no_usage() {
    let mut v = worked_example();
    let msgs = v["messages"].as_array_mut().unwrap();
    let user = |t: i64, text: &str| {
        json!({"info": {"role": "user", "time": {"created": t}, "id": format!("msg_9{t}")},
               "parts": [{"type": "text", "text": text, "id": format!("prt_9{t}")}]})
    };
    let t0 = 1_796_207_300_000i64;
    msgs.push(json!({"info": {"role": "user", "time": {"created": t0}, "id": "msg_a1"},
        "parts": [{"type": "subtask", "prompt": "review", "description": "review", "agent": "general", "id": "prt_a1"}]}));
    msgs.push(json!({"info": {"role": "assistant", "time": {"created": t0 + 10, "completed": t0 + 20},
            "parentID": "msg_a1", "modelID": "claude-sonnet-4-5", "finish": "tool-calls", "cost": 0,
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}, "id": "msg_a2"},
        "parts": [{"type": "tool", "callID": "toolu_task", "tool": "task",
            "state": {"status": "completed", "input": {"prompt": "review"}, "output": "looks fine",
                      "time": {"start": t0 + 11, "end": t0 + 19}}, "id": "prt_a2"}]}));
    msgs.push(user(
        t0 + 30,
        "Summarize the task tool output above and continue with your task.",
    ));
    msgs.push(json!({"info": {"role": "assistant", "time": {"created": t0 + 40}, "parentID": format!("msg_9{}", t0 + 30),
            "modelID": "claude-sonnet-4-5", "error": {"name": "MessageAbortedError", "data": {}},
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}, "id": "msg_a4"},
        "parts": [{"type": "step-start", "id": "prt_a4"}]}));
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "subtask.json", "", &v);
    let t = timeline(&p, &[]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(
        reqs.len(),
        8,
        "the subtask's execution is no request; the aborted one is"
    );
    assert_eq!(
        reqs[7]["evidence"]["usage"],
        Value::Null,
        "its usage is unknown"
    );
    // The subtask's result is in the aborted request's history.
    let wire = bin::json(&["wire", &p, "--at", "8", "-j"]);
    assert!(wire.to_string().contains("looks fine"));
}

/// SPEC §17.O.5, §18.16: a sanitized export (`--sanitize`): the marks are
/// shown, not compared; `--policy prune` clears nothing, exit 0; the caveat.
#[test]
fn s17_o5_a_sanitized_export_plans_nothing() {
    let mut v = worked_example();
    for m in v["messages"].as_array_mut().unwrap() {
        for p in m["parts"].as_array_mut().unwrap() {
            if p["type"] == "tool" {
                let id = p["id"].as_str().unwrap().to_string();
                p["state"]["output"] = json!(format!("[redacted:tool-output:{id}]"));
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "sanitized.json", "", &v);
    let (code, out, _) = bin::run(&["timeline", &p, "-j", "--policy", "prune"]);
    assert_eq!(code, 0);
    let t: Value = serde_json::from_str(&out).unwrap();
    assert!(caveat_ids(&t).contains(&"opencode_sanitized".to_string()));
    assert!(
        t["requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["newly_cleared"] == json!([]))
    );
    let e = evidence(&p, &["--policy", "prune"]);
    let mc = &e["requests"][6]["microcompact"];
    assert_eq!(
        mc["compacted_tool_ids"].as_array().unwrap().len(),
        2,
        "the marks are shown"
    );
    assert_eq!(mc["agrees"], Value::Null, "never compared");
}

/// SPEC §18.16 on the corpus: `…3c-ef55468ff7-0` agrees with its 52 marks
/// exactly; on `…37-364f83fa16-0` the rule gives 37 of 39, the two newest
/// marked parts `missing`, with `opencode_redacted_outputs` (the publisher's
/// filter shortened newer outputs; the rule is not bent to match).
#[test]
fn s18_16_the_shared_exports_agree_or_say_why_not() {
    let Some(c3) = corpus::file("opencode/dayhaysoos__nimbus__3c-ef55468ff7-0-full.json") else {
        return;
    };
    let Some(c37) = corpus::file("opencode/dayhaysoos__nimbus__37-364f83fa16-0-full.json") else {
        return;
    };
    let (c3, c37) = (c3.to_str().unwrap(), c37.to_str().unwrap());
    let t = timeline(c3, &[]);
    assert_eq!(t["session"]["format"], "opencode-export");
    assert_eq!(t["requests"].as_array().unwrap().len(), 73);
    assert!(!caveat_ids(&t).contains(&"opencode_redacted_outputs".to_string()));
    let e = evidence(c3, &[]);
    let (_, agrees, missing) = prune_record(&e);
    assert!(agrees && missing.is_empty());
    assert_eq!(
        e["requests"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|r| r["microcompact"]["compacted_tool_ids"].as_array())
            .unwrap()
            .len(),
        52
    );
    // 150 messages, 122 assistant: 119 requests (3 subtask executions).
    let t = timeline(c37, &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 119);
    assert!(caveat_ids(&t).contains(&"opencode_redacted_outputs".to_string()));
    let e = evidence(c37, &[]);
    let (_, agrees, missing) = prune_record(&e);
    assert!(!agrees);
    let marked: Vec<String> = e["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| r["microcompact"]["compacted_tool_ids"].as_array())
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(marked.len(), 39);
    // The two newest marked parts (the marks run oldest to newest).
    assert_eq!(missing, marked[37..].to_vec());
}

/// SPEC §17.O.6, §18.16 `evidence.pending_prune`: an export taken after turn 3
/// ended but before OpenCode's prune wrote (its marks absent) is not said to
/// disagree: the marks prune would write are "predicted, not yet recorded".
/// With the marks written after its last request, nothing is pending; nor
/// after turn 4, where the scan stops at the mark.
#[test]
fn s17_o6_marks_a_file_was_taken_too_early_for_are_pending() {
    let whole = worked_example();
    let mut early = whole.clone();
    // Messages up to R6's (turn 3's answer), the marks not yet written.
    early["messages"].as_array_mut().unwrap().truncate(9);
    let mut unmarked = early.clone();
    for m in unmarked["messages"].as_array_mut().unwrap() {
        for p in m["parts"].as_array_mut().unwrap() {
            if let Some(t) = p.pointer_mut("/state/time").and_then(Value::as_object_mut) {
                t.remove("compacted");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "early.json", "", &unmarked);
    let e = evidence(&p, &[]);
    let mut pending: Vec<String> = serde_json::from_value(e["pending_prune"].clone()).unwrap();
    pending.sort();
    assert_eq!(
        pending,
        [
            "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD",
            "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"
        ]
    );
    let text = bin::ok(&["evidence", &p]);
    assert!(text.contains("predicted, not yet recorded"), "{text}");
    // Written after the last request: recorded, nothing pending.
    let p = write(&dir, "marked.json", "", &early);
    assert_eq!(evidence(&p, &[])["pending_prune"], json!([]));
    let p = write(&dir, "whole.json", "", &whole);
    assert_eq!(evidence(&p, &[])["pending_prune"], json!([]));
    // Another harness has no such key.
    let claude = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/claude-demo.jsonl");
    assert!(
        evidence(claude.to_str().unwrap(), &[])
            .get("pending_prune")
            .is_none()
    );
}
