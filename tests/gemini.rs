//! Gemini CLI (SPEC §14, §15.12–13; the reference's sections, as the issue
//! asks): its files as the harness reads them, its tool-output masking, what
//! the file records of it, through the real binary. The samples are made by
//! `sample-sessions/make_gemini_build.py` from the reference's worked example.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

#[path = "common/screen.rs"]
mod screen;

mod common;

use common::bin::{json, ok, run};
use serde_json::{Value, json};

const BUILD: &str = "sample-sessions/gemini-build.jsonl";
const MASKED: &str = "sample-sessions/gemini-build-masked.jsonl";
const F1: &str = "read_file__read_file_1796030106117_0";
const F2: &str = "run_shell_command__run_shell_command_1796030109874_0";
const F3: &str = "grep_search__grep_search_1796030158702_0";

/// The TUI on session `path` at request `k` (None: the last), its
/// background work done.
fn app_at(path: &std::path::Path, k: Option<usize>) -> mcscope::tui::app::App {
    use mcscope::cli::{self, Opts};
    let opts = Opts {
        at: k.map(|k| k.to_string()),
        ..Default::default()
    };
    let setup = cli::setup(path, &opts).unwrap();
    let k = cli::request_index(&setup.session, opts.at.as_deref()).unwrap();
    let mut a = mcscope::tui::app::App::session_at(setup, k);
    a.view_mut().unwrap().wait_background();
    a
}

/// One key through the real keymap.
fn press(a: &mut mcscope::tui::app::App, c: char) {
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let action =
        mcscope::tui::keymap::action_for(KeyEvent::from(KeyCode::Char(c)), a.in_text_input())
            .unwrap();
    a.update(action);
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A Gemini CLI file written in a temporary folder (line by line).
fn file(name: &str, lines: &[Value]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    let p = p.display().to_string();
    (dir, p)
}

fn header() -> Value {
    json!({"sessionId": "s-1", "projectHash": "h", "startTime": "2026-11-30T09:00:00.000Z",
           "lastUpdated": "2026-11-30T09:00:00.000Z", "kind": "main"})
}

fn user(id: &str, ts: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": ts, "type": "user", "content": [{"text": text}]})
}

fn gemini(id: &str, ts: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": ts, "type": "gemini", "content": text, "thoughts": [],
           "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 3, "total": 118},
           "model": "gemini-2.5-pro"})
}

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
fn reference_4_request_4_masks_read_file_and_the_shell_output() {
    let t = json(&["timeline", BUILD, "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    for (k, r) in reqs.iter().enumerate() {
        assert_eq!(r["plan_kind"], "mask", "request {}", k + 1);
        assert_eq!(r["fired"], k == 3, "request {}", k + 1);
    }
    assert_eq!(reqs[3]["trigger"], "mask");
    assert_eq!(ids(&reqs[3]["newly_cleared"]), [F1, F2]);
    // The masking lasts (reference §2.5); the two-hour pause changes nothing.
    assert_eq!(ids(&reqs[4]["cleared"]), [F1, F2]);
    assert!(ids(&reqs[4]["newly_cleared"]).is_empty());
}

#[test]
fn reference_2_3_the_harness_s_own_tokens_beside_mcscope_s() {
    let p = json(&["plan", BUILD, "--at", "4", "-j"]);
    let cands = p["candidates"].as_array().unwrap();
    let of = |id: &str| cands.iter().find(|c| c["tool_use_id"] == id).unwrap();
    assert_eq!(of(F1)["harness_tokens"], 518);
    assert_eq!(of(F2)["harness_tokens"], 61_015);
    assert_eq!(of(F3)["harness_tokens"], 2031);
    assert_eq!(of(F1)["est_tokens"], 500);
    assert_eq!(of(F1)["status"], "cleared");
    assert_eq!(of(F2)["status"], "cleared");
    // F3 is what request 4 sends: not yet in the history masking reads.
    assert_eq!(of(F3)["status"], "kept");
    assert!(
        of(F3)["reason"]
            .as_str()
            .unwrap()
            .contains("sent by this request")
    );
    // SPEC §15.13: null for a harness without its own estimate.
    let c = json(&["plan", "sample-sessions/claude-demo.jsonl", "-j"]);
    assert!(c["candidates"][0]["harness_tokens"].is_null());
}

#[test]
fn reference_2_4_the_wire_holds_the_harness_s_masked_snippet() {
    let w = json(&["wire", BUILD, "--at", "5"]);
    let contents = w["contents"].as_array().unwrap();
    let outputs: Vec<&str> = contents
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| p["functionResponse"]["response"]["output"].as_str())
        .collect();
    assert_eq!(outputs.len(), 3);
    // F1: the head and tail of the pretty JSON; F2: the shell's sections.
    assert!(outputs[0].starts_with("<tool_output_masked>\n{\n  \"output\": \"export const opt01"));
    assert_eq!(outputs[0].chars().count(), 751);
    assert!(outputs[1].contains("... [3980 lines omitted] ..."));
    assert!(outputs[1].ends_with("_xxxxx.txt\n</tool_output_masked>"));
    assert_eq!(outputs[1].chars().count(), 1518);
    // The folder is the one the session's context names.
    assert!(outputs[1].contains(
        "Full output available at: /home/dev/.gemini/tmp/proj/tool-outputs/session-6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b/run_shell_command_"
    ));
    assert!(outputs[2].starts_with("src/mod_0037.ts"));
}

#[test]
fn reference_4_variants_protection_1000_and_latest_turn_off() {
    // GEMINI_EXP flag 45758817 = 1000: request 3 keeps F1 (518 <= 1000);
    // request 4 masks F2 and F1 (61,533 prunable).
    let t = json(&["timeline", BUILD, "--protect-tokens", "1000", "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs[2]["fired"], false);
    assert_eq!(ids(&reqs[3]["newly_cleared"]), [F1, F2]);
    assert_eq!(t["policy"]["mask_protect_tokens"], 1000);
    // The flag moves the plan: with 100 protected and 500 the least, F1 (518)
    // crosses alone and is masked at request 3 already.
    let low = json(&[
        "timeline",
        BUILD,
        "--protect-tokens",
        "100",
        "--min-prunable-tokens",
        "500",
        "-j",
    ]);
    assert_eq!(ids(&low["requests"][2]["newly_cleared"]), [F1]);
    // protectLatestTurn off adds only model contents to the scan: the same.
    let off = json(&["timeline", BUILD, "--no-protect-latest-turn", "-j"]);
    assert_eq!(
        off["requests"][3]["newly_cleared"],
        reqs[3]["newly_cleared"]
    );
    assert_eq!(off["policy"]["mask_protect_latest_turn"], false);
    // A batch under the least masks nothing.
    let under = json(&["timeline", BUILD, "--min-prunable-tokens", "70000", "-j"]);
    assert!(
        under["requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["fired"] == false)
    );
}

#[test]
fn spec_15_13_policy_keys_from_a_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    std::fs::copy(BUILD, &session).unwrap();
    std::fs::write(
        dir.path().join("s.mcscope.json"),
        r#"{"mask_protect_tokens": 100, "mask_min_prunable_tokens": 500}"#,
    )
    .unwrap();
    let t = json(&["timeline", session.to_str().unwrap(), "-j"]);
    assert_eq!(t["policy"]["mask_protect_tokens"], 100);
    assert_eq!(t["policy"]["mask_min_prunable_tokens"], 500);
    // The sidecar moves the plan: F1 (518) passes the newest 100 tokens and
    // is masked at request 3 (the defaults wait for request 4); F2 at 4.
    assert_eq!(ids(&t["requests"][2]["newly_cleared"]), [F1]);
    assert_eq!(ids(&t["requests"][3]["newly_cleared"]), [F2]);
}

#[test]
fn spec_14_a_recorded_masking_is_evidence_that_agrees_with_the_plan() {
    let t = json(&["timeline", MASKED, "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    // The loader kept the originals: the simulation masks them at 4, as recorded.
    assert_eq!(ids(&reqs[3]["newly_cleared"]), [F1, F2]);
    let mc = &reqs[3]["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "gemini_mask");
    assert_eq!(ids(&mc["compacted_tool_ids"]), [F1, F2]);
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(mc["absent"], json!([]));
    // Recorded once: the later request holds no second record.
    assert!(reqs[4]["evidence"]["microcompact"].is_null());
    let text = ok(&["evidence", MASKED]);
    assert!(text.contains("masking recorded at line 32"), "{text}");
    assert!(text.contains("against the mask plan: agrees"), "{text}");
}

#[test]
fn spec_15_3_the_baseline_replays_the_recorded_masking() {
    let t = json(&["timeline", MASKED, "--policy", "recorded", "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs[3]["trigger"], "recorded");
    assert_eq!(ids(&reqs[3]["newly_cleared"]), [F1, F2]);
    assert_eq!(ids(&reqs[4]["cleared"]), [F1, F2]);
    // Without a recorded masking the baseline clears nothing.
    let none = json(&["timeline", BUILD, "--policy", "recorded", "-j"]);
    assert!(
        none["requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["fired"] == false)
    );
    // Plans the harness does not have are refused (the p cycle is auto, mask, recorded).
    let (code, _, err) = run(&["plan", BUILD, "--policy", "idle"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not one of the gemini preset's (auto, mask, recorded)"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "plan",
        "sample-sessions/claude-demo.jsonl",
        "--policy",
        "mask",
    ]);
    assert_eq!(code, 2, "{err}");
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
    // A JSONL session shows only the remote-flags caveat.
    let t = json(&["timeline", BUILD, "-j"]);
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

/// SPEC §15.3: the gemini `p` cycle is `auto → mask → recorded`, pressed
/// through the real keymap; at 80×24 the header shows mask's own parameters
/// whole, and the wire holds the harness's masked snippet.
#[test]
fn t15_3_the_p_cycle_and_the_header_at_80x24() {
    let mut a = app_at(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MASKED),
        Some(4),
    );
    let lines = screen::screen(&a, 80, 24);
    let head = lines[..4].join("\n");
    assert!(head.contains("plan auto → mask (gemini)"), "{head}");
    assert!(head.contains("protect 50,000 tok"), "{head}");
    assert!(head.contains("prunable ≥ 30,000"), "{head}");
    assert!(head.contains("latest turn skipped"), "{head}");
    assert!(!head.contains("keep") && !head.contains("gap ≥"), "{head}");
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    let mut seen = Vec::new();
    for _ in 0..3 {
        press(&mut a, 'p');
        seen.push(a.view().unwrap().policy().kind.name());
    }
    assert_eq!(seen, ["mask", "recorded", "auto"]);
}

fn with_calls(id: &str, ts: &str, calls: Value) -> Value {
    let mut g = gemini(id, ts, "");
    g["toolCalls"] = calls;
    g
}

fn big(n: usize) -> String {
    "x".repeat(n)
}

/// Reference §1.3 (0.39–0.43): results only in `toolCalls[].result`; masking
/// writes each response again with the masked result. That is a recorded
/// masking too, and the originals stay.
#[test]
fn reference_1_3_a_masking_of_the_0_39_layout_is_recorded() {
    let call = |id: &str, out: &str| {
        json!([{"id": id, "name": "run_shell_command", "args": {"command": "make"},
            "result": [{"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": out}}}],
            "status": "success"}])
    };
    // Two outputs of 240,000 chars: 60,000+ tokens each.
    let (a, b) = (big(240_000), big(240_000));
    let masked = "<tool_output_masked>\nx\n\nOutput too large. Full output available at: /h/.gemini/tmp/p/tool-outputs/session-s-1/run_shell_command_c1_ab12c.txt\n</tool_output_masked>";
    let (_d, p) = file(
        "session-l.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "build twice"),
            gemini("g1", "2026-11-30T09:00:02.000Z", ""),
            with_calls("g1", "2026-11-30T09:00:02.000Z", call("c1", &a)),
            gemini("g2", "2026-11-30T09:00:03.000Z", ""),
            with_calls("g2", "2026-11-30T09:00:03.000Z", call("c2", &b)),
            // Before request 3: g1 written again with its result masked.
            with_calls("g1", "2026-11-30T09:00:02.000Z", call("c1", masked)),
            gemini("g3", "2026-11-30T09:00:04.000Z", "done"),
        ],
    );
    let t = json(&["timeline", &p, "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 3);
    let mc = &reqs[2]["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "gemini_mask", "{mc}");
    assert_eq!(ids(&mc["compacted_tool_ids"]), ["c1"]);
    // The simulation masks c1 at 3 as well: c1 crosses 50,000 by itself;
    // c2 is what request 3 sends, not yet in the history.
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(ids(&reqs[2]["newly_cleared"]), ["c1"]);
    // The original stayed: the wire of the transcript side holds it whole.
    let local = ok(&["wire", &p, "--at", "3", "--side", "local"]);
    assert!(local.contains(&a));
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

/// The picker's light pass tells a Gemini CLI file apart and counts it as
/// the loader does (reference §1.2–§1.4): requests, results once by id, the
/// first prompt past the session context; a sub-agent header marks it.
#[test]
fn reference_1_2_the_picker_s_row_of_a_gemini_file() {
    use mcscope::scan::{Kind, scan};
    for p in [BUILD, MASKED] {
        let row = scan(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p));
        assert_eq!(row.harness.name(), "gemini", "{p}");
        assert_eq!((row.requests, row.results), (5, 3), "{p}");
        assert_eq!(row.kind, Kind::Session, "{p}");
        assert!(
            row.prompt
                .as_deref()
                .unwrap()
                .starts_with("Why is npm run build so slow?")
        );
    }
    let mut h = header();
    h["kind"] = json!("subagent");
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/myproj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let p = chats.join("session-x.jsonl");
    let lines = [
        h,
        user("u1", "2026-11-30T09:00:01.000Z", "task"),
        gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
    ];
    std::fs::write(
        &p,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let row = scan(&p);
    assert_eq!(row.kind, Kind::SubAgent);
    assert_eq!(row.project, "myproj");
    assert_eq!(row.requests, 1);
}

/// Reference §2.6: `v` shows the original Gemini CLI saved under
/// `tool-outputs/` for an output the file holds only masked, read only inside
/// the session's own `tool-outputs` folder: a snippet naming a path out of it
/// (`..`, a symlink) is never followed.
#[test]
fn reference_2_6_v_shows_the_saved_original_and_nothing_outside() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join(".gemini/tmp/proj");
    let saved = tmp.join("tool-outputs/session-s-1");
    std::fs::create_dir_all(&saved).unwrap();
    std::fs::create_dir_all(tmp.join("chats")).unwrap();
    std::fs::write(
        saved.join("read_file_c1_ab12c.txt"),
        serde_json::to_string_pretty(&json!({"output": "THE ORIGINAL TEXT"})).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("secret.txt"), "{\"output\": \"SECRET\"}").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), saved.join("link_c3_x.txt")).unwrap();
    let snippet = |rel: &str| {
        format!(
            "<tool_output_masked>\nx\n\nOutput too large. Full output available at: /other/machine/.gemini/tmp/proj/tool-outputs/{rel}\n</tool_output_masked>"
        )
    };
    let masked = |id: &str, rel: &str| json!({"functionResponse": {"id": id, "name": "read_file", "response": {"output": snippet(rel)}}});
    let calls = json!([
        {"functionCall": {"id": "c1", "name": "read_file", "args": {}}},
        {"functionCall": {"id": "c2", "name": "read_file", "args": {}}},
        {"functionCall": {"id": "c3", "name": "read_file", "args": {}}}]);
    let lines = [
        header(),
        json!({"$set": {"messages": [
            {"id": "a", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [{"text": "go"}]},
            {"id": "b", "timestamp": "2026-11-30T09:00:00.000Z", "type": "gemini", "content": calls, "thoughts": [], "tokens": null},
            {"id": "c", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [
                masked("c1", "session-s-1/read_file_c1_ab12c.txt"),
                masked("c2", "session-s-1/../../../../secret.txt"),
                masked("c3", "session-s-1/link_c3_x.txt")]}]}}),
        gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
    ];
    let path = tmp.join("chats/session-2026-11-30T09-00-s1.jsonl");
    std::fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let mut a = app_at(&path, Some(1));
    let mut shown = Vec::new();
    for i in 0..3 {
        press(&mut a, 'v');
        shown.push(screen::screen(&a, 120, 30).join("\n"));
        press(&mut a, 'q');
        if i < 2 {
            press(&mut a, 'j');
        }
    }
    for (i, s) in shown.iter().enumerate() {
        // Each view is titled with its result's id.
        assert!(s.contains(&format!("c{}  read_file", i + 1)), "{s}");
    }
    assert!(shown[0].contains("THE ORIGINAL TEXT"), "{}", shown[0]);
    for s in &shown[1..] {
        assert!(!s.contains("SECRET"), "{s}");
        assert!(s.contains("tool_output_masked"), "{s}");
    }
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

/// SPEC §15.13 through the TUI: `:mask-protect` and `:mask-min` tune the
/// masking's thresholds, the header marks them changed, and the plan follows
/// (reference §4's variant: protection 1,000 masks at request 4 as well).
#[test]
fn spec_15_13_the_mask_thresholds_tuned_with_colon_commands() {
    let mut a = app_at(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(BUILD),
        Some(3),
    );
    // At request 3 nothing is masked with the defaults.
    assert!(
        !a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    a.view_mut().unwrap().run_command(":mask-min 100");
    a.view_mut().unwrap().run_command(":mask-protect 100");
    a.view_mut().unwrap().wait_background();
    let head = screen::screen(&a, 80, 24)[..4].join("\n");
    assert!(head.contains("protect 100* tok"), "{head}");
    assert!(head.contains("prunable ≥ 100*"), "{head}");
    // F1 (518) is now past the newest 100 tokens: masked at request 3.
    assert!(
        a.view()
            .unwrap()
            .wire_json()
            .contains("<tool_output_masked>")
    );
    a.view_mut().unwrap().run_command(":mask-min lots");
    let lines = screen::screen(&a, 80, 24).join("\n");
    assert!(lines.contains("expected tokens"), "{lines}");
}

/// Reference §2.4 (a generic preview cut at 250 UTF-16 units can split a
/// pair): Gemini CLI then writes a lone surrogate escape, which `JSON.parse`
/// reads. The line is kept (the half read as U+FFFD, with a diagnostic), so
/// the masking it records is still seen.
#[test]
fn reference_2_4_a_lone_surrogate_in_a_masked_line_keeps_the_record() {
    let text = MASKED_TEXT();
    assert!(text.contains("<tool_output_masked>"));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("session-s.jsonl");
    // Put a lone high surrogate escape into the masked snippet of read_file.
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if l.contains("\"$set\":{\"messages\"") {
                l.replacen(
                    "<tool_output_masked>\\n{",
                    "<tool_output_masked>\\n\\ud83d{",
                    1,
                )
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let t = json(&["timeline", p.to_str().unwrap(), "-j"]);
    let mc = &t["requests"][3]["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "gemini_mask", "{mc}");
    assert_eq!(ids(&mc["compacted_tool_ids"]), [F1, F2]);
    let diags = t["session"]["diagnostics"].as_array().unwrap();
    assert!(
        diags
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("U+FFFD")),
        "{diags:?}"
    );
}

#[allow(non_snake_case)]
fn MASKED_TEXT() -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MASKED)).unwrap()
}

/// SPEC §14 (a recorded clearing is treated like Claude's budget-writer
/// boundary) and §15.21: the observed break where Gemini CLI masked is
/// `harness_rewrite` too, and `explain` names the record `gemini_mask`.
#[test]
fn spec_14_a_recorded_masking_explains_the_break_and_names_its_record() {
    let e = json(&["evidence", MASKED, "-j"]);
    let ex = &e["requests"][3]["observed_break"]["explanations"];
    assert_eq!(ex, &json!(["plan_rewrite", "harness_rewrite"]), "{ex}");
    let x = json(&["explain", MASKED, F2, "-j"]);
    assert_eq!(
        x["records"],
        json!([{"line": 32, "kind": "gemini_mask", "request": 4}])
    );
    assert!(ok(&["evidence", MASKED]).contains("1 gemini_mask record(s)"));
}

/// SPEC §15.3: plan parameters given with `recorded` are exit 2 (the mask
/// thresholds included), and its policy object holds mask's keys, null.
#[test]
fn spec_15_3_recorded_takes_no_mask_threshold_and_prints_them_null() {
    for flag in [
        &["--protect-tokens", "5"][..],
        &["--min-prunable-tokens", "5"][..],
        &["--no-protect-latest-turn"][..],
    ] {
        let mut args = vec!["timeline", MASKED, "--policy", "recorded"];
        args.extend_from_slice(flag);
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{flag:?}: {err}");
    }
    let t = json(&["timeline", MASKED, "--policy", "recorded", "-j"]);
    for k in [
        "mask_protect_tokens",
        "mask_min_prunable_tokens",
        "mask_protect_latest_turn",
    ] {
        assert!(
            t["policy"][k].is_null() && t["policy"].get(k).is_some(),
            "{k}: {}",
            t["policy"]
        );
    }
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

/// The picker counts the results of the 0.39–0.43 layout, which live only
/// in the responses' `toolCalls`.
#[test]
fn reference_1_3_the_picker_counts_results_of_tool_calls() {
    let mut g = gemini("g1", "2026-11-30T09:00:02.000Z", "");
    g["toolCalls"] = json!([{"id": "c1", "name": "read_file", "args": {},
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "A"}}}]}]);
    let (_d, p) = file(
        "session-k.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "read"),
            g,
            gemini("g2", "2026-11-30T09:00:03.000Z", "ok"),
        ],
    );
    let row = mcscope::scan::scan(std::path::Path::new(&p));
    assert_eq!((row.requests, row.results), (2, 1));
}

/// Reference §1.1 (≤ 0.38: one `.json` record per session): the picker lists
/// `chats/session-*.json` and counts it; a record longer than the format
/// sniff's head (pretty-printed, over 1 MB) still loads as Gemini CLI's.
#[test]
fn reference_1_1_legacy_json_files_in_the_picker_and_when_large() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/old/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let big = "z".repeat(1_200_000);
    let record = json!({"sessionId": "s-3", "projectHash": "h", "startTime": "2026-03-01T09:00:00.000Z",
        "lastUpdated": "2026-03-01T09:00:00.000Z", "messages": [
            user("u1", "2026-03-01T09:00:01.000Z", &big),
            gemini("g1", "2026-03-01T09:00:02.000Z", "hello")]});
    let p = chats.join("session-2026-03-01T09-00-s3.json");
    std::fs::write(&p, serde_json::to_string_pretty(&record).unwrap()).unwrap();
    let listed = mcscope::load::list_sessions(&dir.path().join(".gemini/tmp")).unwrap();
    assert!(listed.iter().any(|(f, _, _)| f == &p), "{listed:?}");
    let row = mcscope::scan::scan(&p);
    assert_eq!(row.harness.name(), "gemini");
    assert_eq!(row.requests, 1);
    assert_eq!(row.project, "old");
    let t = json(&["timeline", p.to_str().unwrap(), "-j"]);
    assert_eq!(t["session"]["format"], "gemini-json");
    assert_eq!(t["requests"].as_array().unwrap().len(), 1);
}

/// Reference §5.1: `protectLatestTurn` matters when the history ends with a
/// user content, here tool results left by a turn the user interrupted with a
/// new prompt. On, those results are skipped; off, they are scanned (61,000
/// tokens: past the protection alone) and masked.
#[test]
fn reference_5_1_protect_latest_turn_skips_results_that_end_the_history() {
    let out = big(244_000);
    let call = json!([{"id": "c1", "name": "read_file", "args": {"file_path": "big.txt"},
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": out}}}],
        "status": "success"}]);
    let results = json!({"id": "r1", "timestamp": "2026-11-30T09:00:03.000Z", "type": "user",
        "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": out}}}]});
    let (_d, p) = file(
        "session-i.jsonl",
        &[
            header(),
            user("u1", "2026-11-30T09:00:01.000Z", "read it"),
            gemini("g1", "2026-11-30T09:00:02.000Z", ""),
            with_calls("g1", "2026-11-30T09:00:02.000Z", call),
            results,
            user("u2", "2026-11-30T09:00:04.000Z", "stop, do something else"),
            gemini("g2", "2026-11-30T09:00:05.000Z", "ok"),
        ],
    );
    let on = json(&["timeline", &p, "-j"]);
    assert_eq!(on["requests"].as_array().unwrap().len(), 2);
    assert_eq!(on["requests"][1]["fired"], false, "{}", on["requests"][1]);
    let off = json(&["timeline", &p, "--no-protect-latest-turn", "-j"]);
    assert_eq!(ids(&off["requests"][1]["newly_cleared"]), ["c1"]);
}

/// Issue 41 item 4: an output that merely mentions `<tool_output_masked` is
/// content, not a masking record: it is kept (not "already cleared") and,
/// as Gemini CLI's own `isAlreadyMasked` skips it, never masked or counted;
/// a real masked output (it starts with the tag) is still a record.
#[test]
fn safe_io_4_a_mention_of_the_masking_tag_is_content() {
    let mention = json!([{"functionResponse": {"id": "c9", "name": "read_file",
        "response": {"output": format!("{}: wrap it in <tool_output_masked> tags", big(4000))}}}]);
    let call = json!([{"functionCall": {"id": "c9", "name": "read_file", "args": {}}}]);
    let (_d, p) = file(
        "session-n.jsonl",
        &[
            header(),
            json!({"$set": {"messages": [
                {"id": "a", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": [{"text": "go"}]},
                {"id": "b", "timestamp": "2026-11-30T09:00:00.000Z", "type": "gemini", "content": call, "thoughts": [], "tokens": null},
                {"id": "c", "timestamp": "2026-11-30T09:00:00.000Z", "type": "user", "content": mention}]}}),
            gemini("g1", "2026-11-30T09:00:02.000Z", "ok"),
            user("u2", "2026-11-30T09:00:03.000Z", "next"),
            gemini("g2", "2026-11-30T09:00:04.000Z", "done"),
        ],
    );
    let args = |p: &str| -> Vec<String> {
        [
            "plan",
            p,
            "-j",
            "--policy",
            "mask",
            "--protect-tokens",
            "0",
            "--min-prunable-tokens",
            "0",
            "--no-protect-latest-turn",
        ]
        .map(String::from)
        .to_vec()
    };
    let plan = json(&args(&p).iter().map(String::as_str).collect::<Vec<_>>());
    let c = &plan["candidates"][0];
    assert_ne!(c["status"], "already_cleared", "{c}");
    assert_ne!(c["status"], "cleared", "{c}");
    let diags = plan["session"]["diagnostics"].to_string();
    assert!(!diags.contains("no original"), "{diags}");
    // The same output without the tag is masked under these settings.
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("<tool_output_masked> tags", "tags");
    std::fs::write(&p, text).unwrap();
    let plan = json(&args(&p).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        plan["candidates"][0]["status"], "cleared",
        "{}",
        plan["candidates"][0]
    );
}

/// Issue 41 item 4: a Gemini CLI token count of the wrong shape (negative, a
/// string, 1e308, past u64) is never read as 0: the response's usage is
/// unknown and a `malformed_record_field` warning names the field.
#[test]
fn safe_io_4_gemini_counts_of_the_wrong_shape_are_warned_not_0() {
    let bad = common::wrong_shaped_counts();
    let mut lines = vec![header(), user("u1", "2026-11-30T09:00:01.000Z", "hi")];
    for (i, (v, _)) in bad.iter().enumerate() {
        let mut g = gemini(&format!("g{i}"), "2026-11-30T09:00:02.000Z", "hello");
        g["tokens"]["input"] = v.clone();
        lines.push(g);
        lines.push(user(&format!("u{i}x"), "2026-11-30T09:00:03.000Z", "more"));
    }
    lines.push(gemini("gok", "2026-11-30T09:00:09.000Z", "fine"));
    let (_d, p) = file("session-w.jsonl", &lines);
    let t = json(&["timeline", &p, "-j"]);
    let s = &t["session"];
    assert_eq!(s["recorded"]["responses"], 1, "{}", s["recorded"]);
    let w = s["warnings"].as_array().unwrap();
    assert_eq!(w.len(), bad.len(), "{w:?}");
    for (w, (_, what)) in w.iter().zip(&bad) {
        assert_eq!(w["id"], "malformed_record_field");
        let text = w["text"].as_str().unwrap();
        assert!(text.starts_with("tokens.input of response g"), "{text}");
        assert!(text.contains(what), "{text}");
    }
}

/// Issue 41 item 4: a record nested past serde's 128 levels (`JSON.parse`
/// reads it; the Claude loader reads such depth in the fields it skips) is
/// read, not dropped: its values deeper than 64 levels are shown as a
/// placeholder, with a diagnostic, and the request it holds plans and sends.
#[test]
fn safe_io_4_a_record_nested_past_128_levels_is_read() {
    let deep = "[".repeat(5_000) + &"]".repeat(5_000);
    let call =
        json!([{"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"x": "DEEP"}}}]);
    let mut g = with_calls("g1", "2026-11-30T09:00:02.000Z", json!([]));
    g["content"] = call;
    let lines = [
        header(),
        user("u1", "2026-11-30T09:00:01.000Z", "go"),
        g,
        json!({"id": "u2", "timestamp": "2026-11-30T09:00:03.000Z", "type": "user",
               "content": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                            "response": {"output": "ok"}}}]}),
        gemini("g2", "2026-11-30T09:00:04.000Z", "done"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("session-deep.jsonl");
    let text: String = lines
        .iter()
        .map(|l| format!("{}\n", l.to_string().replace("\"DEEP\"", &deep)))
        .collect();
    std::fs::write(&p, text).unwrap();
    let p = p.display().to_string();
    let t = json(&["timeline", &p, "-j"]);
    assert_eq!(t["session"]["requests"], 2, "{}", t["session"]);
    let d = t["session"]["diagnostics"].to_string();
    assert!(d.contains("nested deeper than 64 levels: read"), "{d}");
    assert!(d.contains("\"line\":3"), "{d}");
    let w = json(&["wire", &p, "--at", "2"]);
    assert!(
        w.to_string()
            .contains("nested deeper than 64 levels: not read")
    );
}
