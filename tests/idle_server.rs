//! `idle-server` (SPEC §13.S) and auto on a Claude Code 2.1.332 session through
//! the real binary: the sample `claude-idle-server.jsonl` (made by
//! `sample-sessions/make_claude_idle_server.py`, whose docstring has the
//! arithmetic these tests check), its `idle_server` JSON, its wire, and the
//! delivery and parameter rules.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use serde_json::{Value, json};

const SAMPLE: &str = "sample-sessions/claude-idle-server.jsonl";

fn mcscope(args: &[&str]) -> (i32, String, String) {
    common::bin::run(args)
}

use common::bin::{caveat_ids, request_at as evidence_at, strings};

fn json(args: &[&str]) -> Value {
    common::bin::json(args)
}

/// SPEC §13.S1–S7, S10 at the return's request (35): the edit, the server's
/// clearing, the policy object and the caveats; auto runs idle-server on 2.1.332.
#[test]
fn s10_the_return_request_sends_the_edit_and_the_server_clears() {
    let p = json(&["plan", SAMPLE, "--at", "35", "--format", "json"]);
    let req = &p["request"];
    assert_eq!(req["version_row"], "2.1.310-2.1.332");
    assert_eq!(req["plan_kind"], "idle-server");
    assert_eq!(req["harness_could_run"], true);
    assert_eq!(req["harness_could_run_reason"], "ok");
    assert_eq!(p["fired"], true);
    assert_eq!(p["trigger"], "idle-server");
    let is = &p["idle_server"];
    assert_eq!(is["return_index"], 35);
    assert_eq!(is["idle_minutes"], 71);
    assert_eq!(
        (is["clearable"].clone(), is["since_return"].clone()),
        (json!(32), json!(0))
    );
    assert_eq!(
        (is["trigger"].clone(), is["keep"].clone()),
        (json!(29), json!(12))
    );
    assert_eq!(is["min_trigger"], 27);
    assert_eq!(is["sent"], true);
    assert_eq!(is["sent_because"], "first_after_return");
    assert_eq!(is["not_sent_because"], Value::Null);
    assert_eq!(is["tool_uses"], 33);
    assert_eq!(is["applied"], true);
    assert_eq!(is["cleared_tool_uses"], 20);
    assert_eq!(is["cleared_input_tokens"], 30000);
    assert_eq!(
        is["edit"],
        json!({"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 29},
               "keep": {"type": "tool_uses", "value": 12},
               "clear_at_least": {"type": "input_tokens", "value": 20000},
               "exclude_tools": ["TodoWrite"]})
    );
    // The 20 oldest compactable results, in rank order; TodoWrite is never cleared.
    let cleared = strings(&p["cleared"]);
    let want: Vec<String> = (1..=20).map(|n| format!("toolu_{n:02}")).collect();
    assert_eq!(cleared, want);
    assert_eq!(p["policy"]["kind"], "auto");
    assert_eq!(p["policy"]["keep_recent"], 12);
    assert_eq!(p["policy"]["gap_threshold_minutes"], 65);
    assert_eq!(p["policy"]["min_trigger_tool_uses"], 27);
    assert_eq!(p["policy"]["delivery"], "server");
    assert_eq!(
        caveat_ids(&p),
        [
            "claude_idle_server_flag",
            "claude_idle_server_activity",
            "claude_idle_server_offset",
            "claude_idle_server_refused",
            "claude_context_hint",
        ]
    );
}

/// SPEC §13.S6, S8: the next request is sent because the response recorded a
/// clearing; the keep grows by the one result after the return; the same
/// results stay cleared (nothing newly cleared).
#[test]
fn s6_the_next_request_is_sent_on_the_recorded_clearing() {
    let t = json(&["timeline", SAMPLE, "--format", "json"]);
    let reqs = t["requests"].as_array().unwrap();
    let r36 = &reqs[35];
    assert_eq!(
        r36["idle_server"]["sent_because"],
        "server_cleared_recorded"
    );
    assert_eq!(r36["idle_server"]["since_return"], 1);
    assert_eq!(r36["idle_server"]["trigger"], 30);
    assert_eq!(r36["idle_server"]["keep"], 13);
    assert_eq!(strings(&r36["cleared"]).len(), 20);
    assert_eq!(strings(&r36["newly_cleared"]).len(), 0);
    // Before the return: idle-server is in force but has no return.
    assert_eq!(reqs[10]["plan_kind"], "idle-server");
    assert_eq!(reqs[10]["idle_server"]["not_sent_because"], "no_return");
    assert_eq!(reqs[10]["fired"], false);
    assert_eq!(reqs[34]["idle_server"]["sent"], true);
}

/// SPEC §13.S4 / S5: an explicit minimum trigger above N − 3 leaves no edit
/// (`too_few_results`), and the kind in force is still idle-server (§15.7).
#[test]
fn s4_min_trigger_tool_uses_is_a_flag_and_a_sidecar_key() {
    let p = json(&[
        "plan",
        SAMPLE,
        "--at",
        "35",
        "--policy",
        "idle-server",
        "--min-trigger-tool-uses",
        "30",
        "--format",
        "json",
    ]);
    assert_eq!(p["fired"], false);
    assert_eq!(p["request"]["plan_kind"], "idle-server");
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
    assert_eq!(p["policy"]["min_trigger_tool_uses"], 30);
    assert_eq!(p["policy"]["kind"], "idle-server");
    assert_eq!(p["policy"]["delivery"], "server");
    // The same from a sidecar.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(SAMPLE, &path).unwrap();
    std::fs::write(
        dir.path().join("s.mcscope.json"),
        r#"{"kind": "idle-server", "min_trigger_tool_uses": 30}"#,
    )
    .unwrap();
    let p = json(&[
        "plan",
        path.to_str().unwrap(),
        "--at",
        "35",
        "--format",
        "json",
    ]);
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
    assert_eq!(p["policy"]["kind"], "idle-server");
}

/// SPEC §13.S: delivery is always server; anything else is exit 2 with a sentence.
#[test]
fn idle_server_takes_delivery_server_only() {
    for d in ["rewrite", "cache-edits"] {
        let (code, _, err) = mcscope(&["plan", SAMPLE, "--policy", "idle-server", "--delivery", d]);
        assert_eq!(code, 2, "{d}");
        assert!(
            err.contains("idle-server's edit is applied by the server: its delivery is server"),
            "{err}"
        );
    }
    let (code, _, err) = mcscope(&[
        "plan",
        SAMPLE,
        "--policy",
        "idle-server",
        "--delivery",
        "server",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// SPEC §13.S10 / §11: the local side carries the edit in
/// `context_management`; the server view has the placeholder.
#[test]
fn s10_the_wire_sends_the_edit_and_the_server_view_clears() {
    let (code, local, err) = mcscope(&["wire", SAMPLE, "--at", "35", "--side", "local"]);
    assert_eq!(code, 0, "{err}");
    let local: Value = serde_json::from_str(&local).unwrap();
    let edits = &local["context_management"]["edits"];
    assert_eq!(edits[0]["type"], "clear_tool_uses_20250919");
    assert_eq!(edits[0]["trigger"]["value"], 29);
    let (_, wire, _) = mcscope(&["wire", SAMPLE, "--at", "35"]);
    assert!(wire.contains("[Old tool result content cleared]"));
    let (_, text, _) = mcscope(&["plan", SAMPLE, "--at", "35"]);
    assert!(
        text.contains("idle-server: return after 71 min idle"),
        "{text}"
    );
}

/// SPEC §13.E4: the recorded `applied_edits` beside the simulated `idle-server`
/// plan at the same request; both responses of the sample agree (20 results
/// cleared; the trigger and keep are the values sent).
#[test]
fn e4_the_sample_s_applied_edits_agree_with_the_simulation() {
    let v = json(&["evidence", SAMPLE, "--format", "json"]);
    let r35 = &evidence_at(&v, 35)["idle_server"];
    assert_eq!(
        r35["simulated"],
        json!({"sent": true, "trigger": 29, "keep": 12, "cleared_tool_uses": 20,
               "cleared_input_tokens": 30000, "clears_pdf_page_texts": false})
    );
    assert_eq!(r35["agrees"], true);
    assert_eq!(r35["differs"], json!([]));
    assert_eq!(evidence_at(&v, 36)["idle_server"]["simulated"]["keep"], 13);
    // §13.J: the simulated half is an object at every request, a record or not.
    let r10 = &evidence_at(&v, 10)["idle_server"];
    assert_eq!(r10["recorded"], Value::Null);
    assert_eq!(
        r10["simulated"],
        json!({"sent": false, "trigger": null, "keep": null, "cleared_tool_uses": 0,
               "cleared_input_tokens": 0, "clears_pdf_page_texts": false})
    );
    assert_eq!(r10["agrees"], Value::Null);
    assert_eq!(v["counts"]["idle_server_agrees"], 2);
    assert_eq!(v["counts"]["idle_server_differs"], 0);
    let (code, text, _) = mcscope(&["evidence", SAMPLE]);
    assert_eq!(code, 0);
    assert!(
        text.contains("the simulated idle-server plan sends trigger 29 keep 12 and the server clears 20: agrees"),
        "{text}"
    );
}

/// SPEC §15.11: E4's simulation runs with the version's defaults whatever
/// `--policy` selects; `--keep-recent` counts only under `idle-server` or
/// `auto`, and `--min-trigger-tool-uses` always.
#[test]
fn e4_15_11_the_simulation_takes_keep_only_under_idle_server_or_auto() {
    // Another kind's keep does not reach the simulation.
    let v = json(&[
        "evidence",
        SAMPLE,
        "--policy",
        "idle",
        "--keep-recent",
        "25",
        "--format",
        "json",
    ]);
    let r35 = &evidence_at(&v, 35)["idle_server"];
    assert_eq!(r35["simulated"]["keep"], 12);
    assert_eq!(r35["agrees"], true);
    // Under idle-server it does: keep 14 (minimum 29 = N − 3) leaves fewer
    // than 20 cleared.
    let v = json(&[
        "evidence",
        SAMPLE,
        "--policy",
        "idle-server",
        "--keep-recent",
        "14",
        "--format",
        "json",
    ]);
    let r35 = &evidence_at(&v, 35)["idle_server"];
    assert_eq!(r35["simulated"]["keep"], 14);
    assert!(r35["simulated"]["cleared_tool_uses"].as_u64().unwrap() < 20);
    assert_eq!(r35["agrees"], false);
    assert_eq!(r35["differs"], json!(["cleared_tool_uses"]));
    assert_eq!(v["counts"]["idle_server_differs"], 2);
    // The minimum trigger counts under any kind: above N − 3, nothing is sent.
    let v = json(&[
        "evidence",
        SAMPLE,
        "--policy",
        "idle",
        "--min-trigger-tool-uses",
        "40",
        "--format",
        "json",
    ]);
    let r35 = &evidence_at(&v, 35)["idle_server"];
    assert_eq!(r35["simulated"]["sent"], false);
    assert_eq!(r35["simulated"]["cleared_tool_uses"], 0);
    assert_eq!(r35["differs"], json!(["cleared_tool_uses"]));
}

/// SPEC §13.E4: each recorded `client_sent_*` value is compared with the value
/// the simulation sent; the token figures never are.
#[test]
fn e4_client_sent_values_that_differ_are_named() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE))
            .unwrap();
    let from = r#""cleared_tool_uses":20,"cleared_input_tokens":30000}]}"#;
    assert_eq!(text.matches(from).count(), 2, "the sample changed");
    // Response 35 says it sent trigger 31 (the simulation sent 29) and keep
    // 12, and estimated other tokens than the server.
    let edited = text.replacen(
        from,
        r#""cleared_tool_uses":20,"cleared_input_tokens":29000}],"client_sent_trigger_tool_uses":31,"client_sent_keep_tool_uses":12,"client_estimated_cleared_input_tokens":1}"#,
        1,
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, edited).unwrap();
    let v = json(&["evidence", path.to_str().unwrap(), "--format", "json"]);
    let r35 = &evidence_at(&v, 35)["idle_server"];
    assert_eq!(r35["recorded"]["client_sent_trigger_tool_uses"], 31);
    assert_eq!(r35["agrees"], false);
    assert_eq!(r35["differs"], json!(["trigger"]));
    assert_eq!(v["counts"]["idle_server_agrees"], 1);
    assert_eq!(v["counts"]["idle_server_differs"], 1);
}

/// SPEC §13.S7: `clear_at_least` sums only results that are neither a
/// placeholder already nor a recorded cut. A cut record before the return
/// replaces the 8 oldest results (8 × 1,500 tokens): the other 12 the server
/// would clear hold 18,000 tokens, below 20,000, so nothing is applied (the cut
/// ones counted, the sum would have been 30,000 and the edit applied).
#[test]
fn s7_clear_at_least_leaves_out_recorded_cuts() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE))
            .unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines
        .iter()
        .position(|l| l.contains(r#""tool_use_id":"toolu_08""#))
        .unwrap();
    let prev: Value = serde_json::from_str(&lines[at]).unwrap();
    let cut_ids: Vec<String> = (1..=8).map(|n| format!("toolu_{n:02}")).collect();
    let cut = json!({"parentUuid": prev["uuid"], "isSidechain": false, "type": "attachment",
        "uuid": "cafe0000-0000-4000-8000-000000000001", "timestamp": prev["timestamp"],
        "sessionId": prev["sessionId"], "version": "2.1.332",
        "attachment": {"type": "tool_results_cut", "callIds": cut_ids,
                       "standIn": "[Old tool result content cleared]", "roughTokens": 12000}});
    lines.insert(at + 1, cut.to_string());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let p = json(&[
        "plan",
        path.to_str().unwrap(),
        "--at",
        "35",
        "--format",
        "json",
    ]);
    let is = &p["idle_server"];
    assert_eq!(is["sent"], true);
    assert_eq!(is["applied"], false);
    assert_eq!(is["not_applied_because"], "below_clear_at_least");
    assert_eq!(p["cleared"], json!([]));
    assert_eq!(strings(&p["cut"]).len(), 8);
}

/// SPEC §13.P3: `explain` never presents a clearing the build could not make
/// as what happened: on 2.1.332, `idle` (2.1.84–2.1.104 only) is a what-if.
#[test]
fn p3_explain_labels_a_what_if_clearing() {
    let (code, text, _) = mcscope(&[
        "explain",
        SAMPLE,
        "toolu_01",
        "--policy",
        "idle",
        "--gap-minutes",
        "30",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("what-if: would first vanish from the simulated wire at request 35"),
        "{text}"
    );
    assert!(!text.contains("first vanished from the wire"), "{text}");
    assert!(text.contains(" 35  ✗ cleared (what-if)"), "{text}");
    // Where the build had the code path, it reads as before.
    let (_, text, _) = mcscope(&["explain", SAMPLE, "toolu_01"]);
    assert!(
        text.contains("first vanished from the wire at request 35"),
        "{text}"
    );
    assert!(!text.contains("(what-if)"), "{text}");
}

/// SPEC §13.S9 (with §2): sub-agents never run `idle-server`. A sub-agent's
/// file is planned as a what-if: its clearings are labelled so in the
/// timeline and `explain`, and explain no observed break (`plan_rewrite`).
#[test]
fn s9_a_sub_agent_file_reads_as_a_what_if() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent-a1b2c3.jsonl");
    std::fs::write(
        &path,
        text.replace(
            r#""isSidechain":false"#,
            r#""isSidechain":true,"agentId":"a1b2c3""#,
        ),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let (code, t, _) = mcscope(&["timeline", p]);
    assert_eq!(code, 0);
    assert!(t.contains("idle-server (what-if)"), "{t}");
    let (_, e, _) = mcscope(&["explain", p, "toolu_01"]);
    assert!(e.contains("what-if: would first vanish"), "{e}");
    assert!(e.contains("a sub-agent's transcript"), "{e}");
    let v = json(&["evidence", p, "--format", "json"]);
    let r35 = evidence_at(&v, 35);
    assert_eq!(
        r35["observed_break"]["explanations"],
        json!(["ttl", "context_edits"])
    );
    // The main thread's file: the plan explains the break.
    let v = json(&["evidence", SAMPLE, "--format", "json"]);
    assert_eq!(
        evidence_at(&v, 35)["observed_break"]["explanations"],
        json!(["ttl", "plan_rewrite", "context_edits"])
    );
}

/// SPEC §15.6 in the text header: under auto, the keep idle-server used when
/// every request's version gave it the same one (12 on 2.1.332), as the JSON.
#[test]
fn the_text_header_names_the_keep_idle_server_used() {
    for cmd in ["plan", "timeline", "evidence"] {
        let (code, text, _) = mcscope(&[cmd, SAMPLE]);
        assert_eq!(code, 0);
        assert!(
            text.contains(
                "policy: auto -> idle-server (preset claude)  keep_recent 12  gap >= 65 min"
            ),
            "{cmd}: {text}"
        );
    }
}

/// SPEC §13.S1: a return needs a reply with a numeric `apiBlockIndex` or, from
/// 2.1.310, `joinedApiReply: true` before it. The loader notes whether any
/// record has one (`Session::return_anchor`), so a file without one skips
/// reading idle-server's facts; a file with `joinedApiReply` alone still finds
/// its return.
#[test]
fn s1_a_file_with_joined_replies_only_still_finds_its_return() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let joined = dir.path().join("joined.jsonl");
    std::fs::write(
        &joined,
        text.replace(r#""apiBlockIndex":0"#, r#""joinedApiReply":true"#),
    )
    .unwrap();
    let none = dir.path().join("none.jsonl");
    std::fs::write(&none, text.replace(r#""apiBlockIndex":0,"#, "")).unwrap();
    assert!(mcscope::load::load(&joined, None).unwrap().return_anchor);
    assert!(!mcscope::load::load(&none, None).unwrap().return_anchor);
    let p = json(&[
        "plan",
        joined.to_str().unwrap(),
        "--at",
        "35",
        "--format",
        "json",
    ]);
    assert_eq!(p["idle_server"]["sent"], true);
    assert_eq!(p["idle_server"]["cleared_tool_uses"], 20);
    let p = json(&[
        "plan",
        none.to_str().unwrap(),
        "--at",
        "35",
        "--format",
        "json",
    ]);
    assert_eq!(p["idle_server"]["not_sent_because"], "no_return");
}

/// The sample's records with every `version` read as `v`.
fn at_version(dir: &tempfile::TempDir, v: &str) -> String {
    let text = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .replace("\"version\":\"2.1.332\"", &format!("\"version\":\"{v}\""));
    assert!(text.contains(&format!("\"version\":\"{v}\"")));
    let p = dir.path().join(format!("s-{v}.jsonl"));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// SPEC §17.C.U0, U1, U5: 2.1.333–2.1.337 are sampled; the old `2.1.310+` row
/// is four (auto runs `idle-server`, keep 12, in each); from 2.1.336 the
/// caveat says the idle gap may have been shorter by host pauses.
#[test]
fn s17_c_u1_u5_the_rows_from_2_1_333_and_the_host_pauses_caveat() {
    let dir = tempfile::tempdir().unwrap();
    for (v, row, pauses) in [
        ("2.1.332", "2.1.310-2.1.332", false),
        ("2.1.333", "2.1.333", false),
        ("2.1.335", "2.1.334-2.1.335", false),
        ("2.1.336", "2.1.336+", true),
        ("2.1.337", "2.1.336+", true),
        ("2.1.400", "2.1.336+", true),
    ] {
        let p = at_version(&dir, v);
        let plan = json(&["plan", &p, "--at", "35", "--format", "json"]);
        assert_eq!(plan["request"]["version_row"], row, "{v}");
        assert_eq!(plan["request"]["plan_kind"], "idle-server", "{v}");
        assert_eq!(plan["idle_server"]["keep"], 12, "{v}");
        let ids = caveat_ids(&plan);
        assert_eq!(
            ids.contains(&"claude_idle_server_host_pauses".to_string()),
            pauses,
            "{v}: {ids:?}"
        );
        // Sampled up to 2.1.337; past it, the nearest sampled build is named.
        let unsampled = ids.contains(&"claude_version_unsampled".to_string());
        assert_eq!(unsampled, v == "2.1.400", "{v}");
    }
    let p = at_version(&dir, "2.1.400");
    let t = json(&["timeline", &p, "-j"]);
    let text = t["caveats"].to_string();
    assert!(text.contains("newer than 2.1.337"), "{text}");
}

/// SPEC §15.26: with no return in the view, `idle_server.clearable` and
/// `since_return` are null (no N without a return), `not_sent_because`
/// `no_return`.
#[test]
fn s15_26_without_a_return_clearable_is_null() {
    let p = json(&["plan", SAMPLE, "--at", "2", "--format", "json"]);
    let is = &p["idle_server"];
    assert_eq!(is["return_index"], Value::Null);
    assert_eq!(is["not_sent_because"], "no_return");
    assert_eq!(is["clearable"], Value::Null);
    assert_eq!(is["since_return"], Value::Null);
    // With the return, numbers (the return's request).
    let p = json(&["plan", SAMPLE, "--at", "35", "--format", "json"]);
    assert_eq!(p["idle_server"]["clearable"], 32);
}

/// SPEC §13.S1 in words (the words issue): on `claude-cut.jsonl` request 7
/// comes 80 minutes after the last reply, which has no `apiBlockIndex` or
/// `joinedApiReply`: the note names that, not a missing prompt.
#[test]
fn s1_the_note_names_the_missing_anchor() {
    let p = json(&[
        "plan",
        "sample-sessions/claude-cut.jsonl",
        "--at",
        "7",
        "--format",
        "json",
    ]);
    let note = p["note"].as_str().unwrap();
    assert!(
        note.contains("the 80 min pause followed a reply with no apiBlockIndex or joinedApiReply"),
        "{note}"
    );
    assert!(
        !note.contains("no prompt after more than the idle gap"),
        "{note}"
    );
    assert_eq!(p["idle_server"]["not_sent_because"], "no_return");
}
