//! Gemini CLI's tool-output masking: planned, tuned, recorded, and compared with the plan.

use super::*;

#[test]
fn reference_4_request_4_masks_read_file_and_the_shell_output() {
    let t = json(&["timeline", BUILD, "--policy", "mask", "-j"]);
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
    let p = json(&["plan", BUILD, "--at", "4", "--policy", "mask", "-j"]);
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
    let w = json(&["wire", BUILD, "--at", "5", "--policy", "mask"]);
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
    let t = json(&[
        "timeline",
        BUILD,
        "--policy",
        "mask",
        "--protect-tokens",
        "1000",
        "-j",
    ]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs[2]["fired"], false);
    assert_eq!(ids(&reqs[3]["newly_cleared"]), [F1, F2]);
    assert_eq!(t["policy"]["mask_protect_tokens"], 1000);
    // The flag moves the plan: with 100 protected and 500 the least, F1 (518)
    // crosses alone and is masked at request 3 already.
    let low = json(&[
        "timeline",
        BUILD,
        "--policy",
        "mask",
        "--protect-tokens",
        "100",
        "--min-prunable-tokens",
        "500",
        "-j",
    ]);
    assert_eq!(ids(&low["requests"][2]["newly_cleared"]), [F1]);
    // protectLatestTurn off adds only model contents to the scan: the same.
    let off = json(&[
        "timeline",
        BUILD,
        "--policy",
        "mask",
        "--no-protect-latest-turn",
        "-j",
    ]);
    assert_eq!(
        off["requests"][3]["newly_cleared"],
        reqs[3]["newly_cleared"]
    );
    assert_eq!(off["policy"]["mask_protect_latest_turn"], false);
    // A batch under the least masks nothing.
    let under = json(&[
        "timeline",
        BUILD,
        "--policy",
        "mask",
        "--min-prunable-tokens",
        "70000",
        "-j",
    ]);
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
    let t = json(&[
        "timeline",
        session.to_str().unwrap(),
        "--policy",
        "mask",
        "-j",
    ]);
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
    let on = json(&["timeline", &p, "--policy", "mask", "-j"]);
    assert_eq!(on["requests"].as_array().unwrap().len(), 2);
    assert_eq!(on["requests"][1]["fired"], false, "{}", on["requests"][1]);
    let off = json(&[
        "timeline",
        &p,
        "--policy",
        "mask",
        "--no-protect-latest-turn",
        "-j",
    ]);
    assert_eq!(ids(&off["requests"][1]["newly_cleared"]), ["c1"]);
}

/// SPEC §16.I, §18.1: the unmasked sample records no masking where the mask
/// plan would have masked (request 4): the plan did not run there, so `auto`
/// plans nothing, says why, and `--policy mask` still shows the what-if; the
/// masked copy records it, so auto runs it.
#[test]
fn s16_i_a_mask_that_left_no_record_did_not_run() {
    let t = json(&["timeline", BUILD, "-j"]);
    let reqs = t["requests"].as_array().unwrap();
    assert!(
        reqs.iter()
            .all(|r| r["plan_kind"].is_null() && r["fired"] == false)
    );
    assert!(
        reqs[3]["note"]
            .as_str()
            .unwrap()
            .contains("the mask plan did not run")
    );
    assert_eq!(reqs[3]["harness_could_run_reason"], "did_not_run");
    let ids_of: Vec<&str> = t["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    // The masking's remote-flags caveat is the plan's: none runs here.
    assert_eq!(ids_of, ["plan_did_not_run"]);
    assert!(
        t["caveats"][0]["text"]
            .as_str()
            .unwrap()
            .contains("would have cleared 2 results at request 4")
    );
    let e = json(&["evidence", BUILD, "-j"]);
    assert_eq!(e["session"]["ran"], json!({"mask": false}));
    assert_eq!(
        e["session"]["ran_because"],
        json!({"mask": "no_record_where_it_would_clear"})
    );
    let m = json(&["evidence", MASKED, "-j"]);
    assert_eq!(m["session"]["ran"], json!({"mask": true}));
    assert_eq!(m["session"]["ran_because"], json!({"mask": "record"}));
    let masked = json(&["timeline", MASKED, "-j"]);
    assert_eq!(masked["requests"][3]["plan_kind"], "mask");
}

/// Issue 41 item 5: the snippet Gemini CLI would write over each maskable
/// output is made when a wire is written, not held for every result of the
/// session (21 MB at 16,000 requests); only the texts the file itself
/// recorded are kept. The wire still carries the snippet, saved path and all.
#[test]
fn snippets_are_made_when_the_wire_is_written_and_only_recorded_ones_are_held() {
    let setup = common::setup(std::path::Path::new(BUILD), mcscope::setup::Opts::default());
    let s = &setup.session;
    let maskable = s.masking.tokens.iter().filter(|&&t| t != u64::MAX).count();
    assert!(maskable >= 3, "{maskable} maskable outputs");
    assert!(s.masking.recorded.is_empty(), "the file records no masking");
    let r = s.results.iter().position(|r| r.id == F2).unwrap();
    let file = mcscope::load::readback::open_session(s).unwrap();
    let part = mcscope::load::readback::result_part(s, Some(&file), r);
    let text = mcscope::harness::gemini_cli::masked_text(s, r, &part).unwrap();
    assert!(text.starts_with("<tool_output_masked>"), "{text}");
    assert!(text.contains("Full output available at: "), "{text}");
    let wire = serde_json::to_string(&json(&[
        "wire", BUILD, "--at", "4", "--policy", "mask", "-j",
    ]))
    .unwrap();
    assert!(
        wire.contains(&serde_json::to_string(&*text).unwrap()[1..40]),
        "the wire writes it"
    );
}
