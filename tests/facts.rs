//! What the Claude transcript proves (SPEC §13.E, §15.4): recorded
//! `tool_results_cut` records applied as facts in every plan's view and wire,
//! stripped thinking, the resume note, the recorded half of `idle_server`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::{Claude, ids, plan, status};
use mcscope::analysis;
use mcscope::policy::engine::Status;
use mcscope::setup::Opts;
use mcscope::wire::Side;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const STAND_IN: &str = "[Old tool result content cleared]";

fn mcscope(args: &[&str], path: &Path) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .arg(path)
        .output()
        .expect("run mcscope");
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn json_of(args: &[&str], path: &Path) -> Value {
    let (out, code) = mcscope(args, path);
    assert_eq!(code, 0, "mcscope {args:?}: {out}");
    serde_json::from_str(&out).unwrap()
}

/// Six results, then a return 70 minutes later whose cut names five of them and
/// one id no call holds:
/// - `t1` Bash, 2,000 chars: cut (compactable, longer than the 33-unit stand-in);
/// - `t2` Read, 20 × 21 chars: cut;
/// - `te` Bash error, 500 chars: not cut (`error`);
/// - `ts` Bash "ok" (2 units ≤ 33): not cut (`not_shorter`);
/// - `tm` an MCP tool, 600 chars: cut (MCP tools are eligible without a cause);
/// - `td` Bash with a `document` block: not cut (`content_kind`);
/// - `tx`: no call in the view (`not_in_view`).
///
/// Requests: 1–6 are the responses holding each call (their results follow),
/// 7 the answer (with a thinking block; it reads 50,000 from the cache), 8 the
/// answer after the return: the cut, a `thinking_stripped` record (unless
/// `strip` is false) and the resume note belong to it; its response reads 0
/// from the cache (a break: E = 50,000 + 0) and records that the client cut 3
/// results and sent no edit.
fn cut_session(dir: &Path) -> PathBuf {
    cut_session_with(dir, true)
}

fn cut_session_with(dir: &Path, strip: bool) -> PathBuf {
    let mut c = Claude::default();
    c.version("2.1.332");
    c.prompt("look around", 0.0)
        .bash("t1", 2000)
        .read("t2", "/repo/a.rs")
        .call("te", "Bash", json!({"command": "false"}))
        .result_full("te", json!("e".repeat(500)), true, 0.0)
        .call("ts", "Bash", json!({"command": "true"}))
        .result("ts", "ok")
        .call("tm", "mcp__srv__lookup", json!({"q": "x"}))
        .result("tm", &"m".repeat(600))
        .call("td", "Bash", json!({"command": "cat a.pdf"}))
        .result_full(
            "td",
            json!([{"type": "text", "text": "d".repeat(300)},
                   {"type": "document", "source": {"type": "text", "data": "x"}}]),
            false,
            0.0,
        )
        .thinking_answer(
            "let me think",
            "done",
            json!({"usage": {"input_tokens": 10, "cache_read_input_tokens": 50000, "output_tokens": 5}}),
        )
        .cut(&["t1", "t2", "te", "ts", "tm", "td", "tx"], STAND_IN, 70.0);
    if strip {
        c.attachment(
            json!({"type": "thinking_stripped", "scope": "all", "cause": "return_after_idle"}),
            0.0,
        );
    }
    c.attachment(
        json!({"type": "critical_system_reminder",
               "content": "This chat has resumed after a long pause. Tool results may be stale."}),
        0.0,
    )
    .prompt("back again", 0.0)
    .thinking_answer(
        "again",
        "hello again",
        json!({"usage": {"input_tokens": 60000, "cache_read_input_tokens": 0, "output_tokens": 5},
               "context_management": {"applied_edits": [], "client_cut_tool_uses": 3,
                                      "client_estimated_cleared_input_tokens": 800}}),
    );
    c.write(
        dir,
        if strip {
            "cut.jsonl"
        } else {
            "cut-nostrip.jsonl"
        },
    )
}

fn setup_of(path: &Path) -> analysis::Setup {
    common::setup(path, Opts::default())
}

/// SPEC §13.E1: the map in force at request k is built from the records before
/// response k; before the record nothing is cut.
#[test]
fn e1_map_in_force_only_from_the_records_request() {
    let dir = tempfile::tempdir().unwrap();
    let setup = setup_of(&cut_session(dir.path()));
    assert_eq!(setup.session.requests.len(), 8);
    let p7 = plan(&setup, 7);
    assert!(ids(&setup, &p7, Status::Cut).is_empty());
    let p8 = plan(&setup, 8);
    assert_eq!(ids(&setup, &p8, Status::Cut), ["t1", "t2", "tm"]);
}

/// SPEC §13.E1 conditions 2–4 and the view: an error, a short result, a
/// document and an id no call holds are not cut.
#[test]
fn e1_2_error_result_is_not_cut() {
    let dir = tempfile::tempdir().unwrap();
    let setup = setup_of(&cut_session(dir.path()));
    let p8 = plan(&setup, 8);
    assert_ne!(status(&setup, &p8, "te"), Status::Cut);
    assert_ne!(status(&setup, &p8, "ts"), Status::Cut);
    assert_ne!(status(&setup, &p8, "td"), Status::Cut);
    let rec = &setup.session.cuts[0];
    assert_eq!(rec.request, Some(8));
    assert_eq!(rec.applied, ["t1", "t2", "tm"]);
    assert_eq!(
        rec.not_applied,
        [
            ("te".to_string(), "error"),
            ("ts".to_string(), "not_shorter"),
            ("td".to_string(), "content_kind"),
            ("tx".to_string(), "not_in_view"),
        ]
    );
}

/// SPEC §15.4: a cut MCP result has status `cut`, not `not_compactable`; a cut
/// result is never `cleared`, `kept` or `protected`, only in `cut`.
#[test]
fn e1_cut_precedes_every_status_but_already_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    // forced at 8 clears everything it can: the cut results stay cut.
    let v = json_of(
        &[
            "plan",
            "--policy",
            "forced",
            "--keep-recent",
            "1",
            "--at",
            "8",
            "--format",
            "json",
        ],
        &path,
    );
    assert_eq!(v["cut"], json!(["t1", "t2", "tm"]));
    for list in ["cleared", "kept", "protected"] {
        for id in ["t1", "t2", "tm"] {
            assert!(
                !v[list].as_array().unwrap().contains(&json!(id)),
                "{id} in {list}"
            );
        }
    }
    let cand = |id: &str| {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool_use_id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(cand("tm")["status"], "cut");
    assert_eq!(
        cand("t1")["cut"],
        json!({"stand_in": STAND_IN, "cause": null, "at": 8})
    );
    assert_eq!(cand("ts")["cut"], Value::Null);
    assert!(
        cand("t1")["reason"]
            .as_str()
            .unwrap()
            .contains("cut by Claude Code (recorded)")
    );
    // The plan cleared the others; the cut ones are not its saving.
    let saved: u64 = ["te", "ts"]
        .iter()
        .map(|id| cand(id)["est_tokens"].as_u64().unwrap())
        .sum();
    assert!(v["cleared"].as_array().unwrap().contains(&json!("te")));
    let in_wire = v["metadata"]["in_wire_tokens"].as_u64().unwrap();
    assert!(in_wire >= saved, "{in_wire} < {saved}");
    let cut_tokens = cand("t1")["est_tokens"].as_u64().unwrap();
    let all: u64 = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "cleared")
        .map(|c| c["est_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(in_wire, all, "in_wire_tokens counts cleared results only");
    assert!(cut_tokens > 0);
}

/// SPEC §13.E1: never counted in the size total.
#[test]
fn e1_cut_results_leave_the_size_total() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    let v7 = json_of(
        &["plan", "--policy", "size", "--at", "7", "--format", "json"],
        &path,
    );
    let v8 = json_of(
        &["plan", "--policy", "size", "--at", "8", "--format", "json"],
        &path,
    );
    let before7 = v7["metadata"]["tool_result_chars_before"].as_u64().unwrap();
    let before8 = v8["metadata"]["tool_result_chars_before"].as_u64().unwrap();
    // t1 (2,000) and t2 (20 × 23) leave the total; tm was never in it (MCP).
    assert_eq!(before7 - before8, 2000 + 460);
}

/// SPEC §13.E1, §15.4: the stand-in is in the wire of the record's request and
/// every later one, on both sides (a recorded fact, not the plan's clearing).
#[test]
fn e1_stand_in_in_both_wires_from_the_records_request() {
    let dir = tempfile::tempdir().unwrap();
    let setup = setup_of(&cut_session(dir.path()));
    let content_of = |body: &Value, id: &str| -> Value {
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|b| b["tool_use_id"] == id)
            .map(|b| b["content"].clone())
            .unwrap()
    };
    for side in [Side::Wire, Side::Local] {
        let b8 = analysis::wire_at(&setup, 8, side).unwrap();
        assert_eq!(content_of(&b8, "t1"), json!(STAND_IN));
        assert_eq!(content_of(&b8, "tm"), json!(STAND_IN));
        assert_eq!(content_of(&b8, "ts"), json!("ok"));
        let b7 = analysis::wire_at(&setup, 7, side).unwrap();
        assert_eq!(content_of(&b7, "t1"), json!("x".repeat(2000)));
    }
}

/// SPEC §15.4: a difference only recorded facts make is never break[k].
#[test]
fn e1_cut_alone_is_no_plan_break() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    // A plan that never fires: the wire differs from request 7's only by the cut.
    let v = json_of(
        &[
            "plan",
            "--policy",
            "idle",
            "--gap-minutes",
            "1000",
            "--at",
            "8",
            "--format",
            "json",
        ],
        &path,
    );
    assert_eq!(v["fired"], false);
    assert_eq!(
        v["metadata"]["cache"]["prefix_broken_at_message"],
        Value::Null
    );
    let t = json_of(&["timeline", "--format", "json"], &path);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs[7]["cut"], json!(["t1", "t2", "tm"]));
    assert_eq!(reqs[6]["cut"], json!([]));
}

/// SPEC §13.C: `claude_cut_flags` when a cut record is in the view at K; the
/// timeline lists the union over the requests.
#[test]
fn e1_cut_flags_caveat_where_a_record_is_in_view() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    let ids_of = common::bin::caveat_ids;
    let at = |k: &str| json_of(&["plan", "--at", k, "--format", "json"], &path);
    assert!(ids_of(&at("8")).contains(&"claude_cut_flags".to_string()));
    assert!(!ids_of(&at("7")).contains(&"claude_cut_flags".to_string()));
    let t = json_of(&["timeline", "--format", "json"], &path);
    assert!(ids_of(&t).contains(&"claude_cut_flags".to_string()));
    let (text, _) = mcscope(&["plan", "--at", "8"], &path);
    assert!(
        text.contains("cut by Claude Code (recorded): [t1, t2, tm]"),
        "{text}"
    );
}

/// SPEC §13.E1 evidence: the record at its request, with what it applied and
/// why not the rest; E2, E3 and the recorded half of E4 beside it; the counts.
#[test]
fn e1_evidence_lists_applied_and_not_applied_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    let v = json_of(&["evidence", "--format", "json"], &path);
    let r8 = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["index"] == 8)
        .unwrap();
    assert_eq!(
        r8["tool_results_cut"],
        json!([{"call_ids": ["t1", "t2", "te", "ts", "tm", "td", "tx"], "stand_in": STAND_IN,
                "rough_tokens": 1000, "cause": null, "applied": ["t1", "t2", "tm"],
                "not_applied": [{"id": "te", "reason": "error"}, {"id": "ts", "reason": "not_shorter"},
                                {"id": "td", "reason": "content_kind"}, {"id": "tx", "reason": "not_in_view"}]}])
    );
    // E2, E3.
    assert_eq!(
        r8["thinking_stripped"],
        json!({"scope": "all", "cause": "return_after_idle"})
    );
    assert_eq!(r8["resumed_after_pause"], true);
    // E4: applied_edits [] with client_cut_tool_uses: the client cut, no edit
    // (SPEC §17.C.U6's keys null: neither recorded).
    assert_eq!(
        r8["idle_server"],
        json!({"recorded": {"cleared_tool_uses": null, "cleared_input_tokens": null,
                            "client_cut_tool_uses": 3, "client_sent_trigger_tool_uses": null,
                            "client_sent_keep_tool_uses": null,
                            "client_estimated_cleared_input_tokens": 800,
                            "client_cleared_pdf_page_texts": null,
                            "client_sent_exclude_tools": null},
               "simulated": {"sent": false, "trigger": null, "keep": null,
                             "cleared_tool_uses": 0, "cleared_input_tokens": 0,
                             "clears_pdf_page_texts": false},
               "agrees": true, "differs": []})
    );
    // §13.E4: client_cut explains the break, after context_edits (none here).
    assert_eq!(
        r8["observed_break"]["explanations"],
        json!(["ttl", "client_cut"])
    );
    let c = &v["counts"];
    assert_eq!(c["client_cut"], 1);
    assert_eq!(c["harness_rewrite"], 0);
    assert_eq!(c["tool_results_cut"], 1);
    assert_eq!(c["thinking_stripped"], 1);
    assert_eq!(c["resumed_after_pause"], 1);
    // E4: the cut stops the edit (`cut_by_client`), so both say 0 cleared.
    assert_eq!(c["idle_server_agrees"], 1);
    assert_eq!(c["absent"], 0);
    // Earlier requests carry the empty §13.J keys.
    let r7 = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["index"] == 7)
        .unwrap();
    assert_eq!(r7["tool_results_cut"], json!([]));
    assert_eq!(r7["thinking_stripped"], Value::Null);
    assert_eq!(r7["resumed_after_pause"], false);
    let (text, _) = mcscope(&["evidence"], &path);
    assert!(text.contains("client_cut: cut by the client"), "{text}");
}

/// SPEC §13.E2: from its request on, the thinking of every earlier assistant
/// message is left out of both wires; without the record it stays.
#[test]
fn e2_thinking_stripped_from_its_request_on() {
    let dir = tempfile::tempdir().unwrap();
    let thinking_in = |path: &Path, k: usize, side: Side| -> bool {
        let setup = setup_of(path);
        let body = analysis::wire_at(&setup, k, side).unwrap();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .any(|b| b["type"] == "thinking")
    };
    let with = cut_session(dir.path());
    let without = cut_session_with(dir.path(), false);
    for side in [Side::Wire, Side::Local] {
        assert!(!thinking_in(&with, 8, side), "stripped at 8");
        assert!(thinking_in(&without, 8, side), "kept without the record");
    }
}

/// SPEC §10: a budget-writer boundary explains a break as `harness_rewrite`
/// (the harness rewrote old results), never as `cache_edits`.
#[test]
fn harness_rewrite_explains_a_budget_boundary_break() {
    use common::evidence::{Tx, usage};
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.prompt(0.0)
        .response("m1", 0.1, usage(40_000, 0, 0), Some("a"), json!({}))
        .result("a", 0.2)
        .boundary(0.25, 140_000, 30_000, &["a"])
        .response("m2", 0.3, usage(40_000, 0, 0), None, json!({}));
    let path = tx.write(dir.path());
    let v = json_of(&["evidence", "--format", "json"], &path);
    let r2 = &v["requests"][1];
    assert_eq!(r2["index"], 2);
    assert_eq!(r2["microcompact"]["writer"], "budget");
    assert_eq!(
        r2["observed_break"]["explanations"],
        json!(["harness_rewrite"])
    );
    assert_eq!(v["counts"]["harness_rewrite"], 1);
    assert_eq!(v["counts"]["cache_edits"], 0);
}

/// SPEC §15.2: a file whose first record with a parentUuid names a parent it
/// does not hold is partial; a record's ids no tool_use holds are `absent`
/// there, `missing` in a whole file.
#[test]
fn partial_transcript_moves_unheld_ids_to_absent() {
    use common::evidence::{Tx, usage};
    let build = |partial: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut tx = Tx::default();
        let first = if partial {
            json!({"parentUuid": "u-before-the-file",
                   "message": {"role": "user", "content": "go on"}})
        } else {
            json!({"message": {"role": "user", "content": "go on"}})
        };
        tx.rec("user", 0.0, first)
            .response("m1", 0.1, usage(40_000, 0, 0), Some("a"), json!({}))
            .result("a", 0.2)
            .boundary(0.25, 140_000, 30_000, &["a", "zz"])
            .response("m2", 0.3, usage(1000, 40_000, 0), None, json!({}));
        let path = tx.write(dir.path());
        (json_of(&["evidence", "--format", "json"], &path), dir)
    };
    let (whole, _d1) = build(false);
    assert_eq!(whole["session"]["warnings"], json!([]));
    let mc = &whole["requests"][1]["microcompact"];
    assert_eq!(mc["missing"], json!(["a", "zz"]));
    assert_eq!(mc["absent"], json!([]));

    let (part, _d2) = build(true);
    assert_eq!(
        part["session"]["warnings"],
        json!([{"id": "partial_transcript", "line": 1,
                "text": "the file starts mid-session: results before it are unknown"}])
    );
    let mc = &part["requests"][1]["microcompact"];
    assert_eq!(mc["missing"], json!(["a"]));
    assert_eq!(mc["absent"], json!(["zz"]));
    assert_eq!(mc["agrees"], false, "a is still missing");
    assert_eq!(part["counts"]["absent"], 1);
}

/// SPEC §15.21: explain lists the records naming the id first, says whether a
/// call holds it, gives each request's `cut`; an id only a record names answers
/// from the record (tool and path null, no requests, exit 0).
#[test]
fn explain_lists_records_and_answers_an_id_only_a_record_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_session(dir.path());
    let explain = |id: &str, json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcscope"));
        cmd.arg("explain").arg(&path).arg(id);
        if json {
            cmd.args(["--format", "json"]);
        }
        let out = cmd.output().unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            out.status.code().unwrap_or(-1),
        )
    };
    let (out, code) = explain("t1", true);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["records"],
        json!([{"line": 16, "kind": "tool_results_cut", "request": 8}])
    );
    assert_eq!(v["call_in_file"], true);
    let rows = v["requests"].as_array().unwrap();
    let last = rows.last().unwrap();
    assert_eq!(last["index"], 8);
    assert_eq!(last["status"], "cut");
    assert_eq!(last["cut"]["at"], 8);
    assert_eq!(rows[rows.len() - 2]["cut"], Value::Null);
    // tx: no call, no result, only the record names it.
    let (out, code) = explain("tx", true);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tool_use_id"], "tx");
    assert_eq!(v["tool"], Value::Null);
    assert_eq!(v["path"], Value::Null);
    assert_eq!(v["requests"], json!([]));
    assert_eq!(v["call_in_file"], false);
    assert_eq!(v["records"][0]["kind"], "tool_results_cut");
    // The text says the records first.
    let (text, code) = explain("t1", false);
    assert_eq!(code, 0);
    let rec = text
        .find("◇ tool_results_cut at line 16 belongs to request 8")
        .unwrap();
    let table = text.find("REQ").unwrap();
    assert!(rec < table, "{text}");
    // An id nothing names is still exit 2.
    assert_eq!(explain("nothing-names-this", true).1, 2);
}

/// SPEC §13.E1, §15.2: a cut record with fields of the wrong shape is kept with
/// a warning; a stand-in over 200 UTF-16 units makes every id `stand_in_invalid`;
/// an unknown cause cuts nothing.
#[test]
fn e1_malformed_cut_fields_are_kept_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.version("2.1.332");
    c.prompt("go", 0.0)
        .bash("t1", 2000)
        .answer("done")
        .attachment(
            json!({"type": "tool_results_cut", "callIds": "t1", "standIn": 7,
                   "roughTokens": -1}),
            70.0,
        )
        .cut(&["t1"], &"s".repeat(201), 0.0)
        .attachment(
            json!({"type": "tool_results_cut", "callIds": ["t1"], "standIn": "[cut]",
                   "cause": "some_future_cause"}),
            0.0,
        )
        .prompt("back", 0.0)
        .answer("hi");
    let path = c.write(dir.path(), "bad-cut.jsonl");
    let v = json_of(&["evidence", "--format", "json"], &path);
    let warnings: Vec<String> = v["session"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("attachment.callIds is a string"))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("attachment.standIn is a number"))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("attachment.roughTokens"))
    );
    let last = v["requests"].as_array().unwrap().last().unwrap().clone();
    let cuts = last["tool_results_cut"].as_array().unwrap();
    assert_eq!(cuts.len(), 3, "every record is kept");
    assert_eq!(cuts[0]["call_ids"], json!([]));
    assert_eq!(
        cuts[1]["not_applied"],
        json!([{"id": "t1", "reason": "stand_in_invalid"}])
    );
    assert_eq!(
        cuts[2]["not_applied"],
        json!([{"id": "t1", "reason": "tool_not_eligible"}])
    );
    let p = json_of(&["plan", "--format", "json"], &path);
    assert_eq!(p["cut"], json!([]));
}

/// SPEC §15.2 in words (the words issue): where every id a record names lies
/// before the file's first line, the text never says "agrees" over nothing,
/// and the selected plan's comparison reads the same (`absent`, not
/// `missing`): both say the ids cannot be compared.
#[test]
fn ids_before_the_first_line_are_said_to_be_not_comparable() {
    use common::evidence::{Tx, usage};
    let dir = tempfile::tempdir().unwrap();
    let mut tx = Tx::default();
    tx.rec(
        "user",
        0.0,
        json!({"parentUuid": "u-before-the-file",
               "message": {"role": "user", "content": "go on"}}),
    )
    .response("m1", 0.1, usage(40_000, 0, 0), Some("a"), json!({}))
    .result("a", 0.2)
    .boundary(0.25, 140_000, 30_000, &["y", "zz"])
    .response("m2", 0.3, usage(1000, 40_000, 0), None, json!({}));
    let path = tx.write(dir.path());
    let j = json_of(&["evidence", "--format", "json"], &path);
    let mc = &j["requests"][1]["microcompact"];
    assert_eq!(mc["absent"], json!(["y", "zz"]));
    assert_eq!(mc["missing"], json!([]));
    let (text, code) = mcscope(&["evidence", "--policy", "idle"], &path);
    assert_eq!(code, 0);
    let said = "2 ids named before this file's first line cannot be compared [y, zz]";
    assert!(
        text.contains(&format!(
            "against the budget plan: {said}: nothing to agree or disagree with"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("against the selected plan (idle): {said}")),
        "{text}"
    );
    assert!(
        !text.contains("agrees") && !text.contains("missing ["),
        "{text}"
    );
}
