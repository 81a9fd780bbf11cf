//! Claude Code 2.1.310–2.1.337's PDF reads and `earlierMessages` in the
//! `idle-server` plan (SPEC §17.C.U2–U4, U6, U7, §18.17) through the real
//! binary, over the hand-written sessions of `tests/fixtures/claude-pdf/`
//! (made by `make.py` beside them, whose docstring has the arithmetic these
//! tests check). Each test names its rule.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use serde_json::{Value, json};

/// The row's first page-text read; its second is `-1` (SPEC §18.17(e)).
const ROW: &str = "toolu_pdfread_aaaaaaaa000040008000000000000001";
const ROW_2: &str = "toolu_pdfread_aaaaaaaa000040008000000000000001-1";

fn file(name: &str) -> String {
    format!("tests/fixtures/claude-pdf/{name}.jsonl")
}

/// `cmd` on fixture `name` as JSON, with `extra` arguments.
fn json(cmd: &str, name: &str, extra: &[&str]) -> Value {
    let f = file(name);
    let mut args = vec![cmd, f.as_str(), "--format", "json"];
    args.extend_from_slice(extra);
    common::bin::json(&args)
}

use common::bin::{caveat_ids, request_at as at, strings};

fn idle_server_plan(name: &str) -> Value {
    json("plan", name, &["--policy", "idle-server"])
}

fn candidate<'a>(p: &'a Value, id: &str) -> Option<&'a Value> {
    p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == id)
}

fn pdf_ids(p: &Value) -> Vec<String> {
    p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .filter(|id| id.starts_with("toolu_pdfread_"))
        .collect()
}

/// SPEC §17.C.U2a: in 2.1.310–2.1.332 a row with a read, before the return
/// or after it, excludes `Read` as a whole.
#[test]
fn u2a_a_pdf_read_row_excludes_read() {
    // Example 2: the 16 Read and the 2 page texts leave N = 8 + 4.
    let p = json("plan", "ex2-332", &[]);
    assert_eq!(p["request"]["version_row"], "2.1.310-2.1.332");
    let is = &p["idle_server"];
    assert_eq!(is["clearable"], 12);
    assert_eq!(is["not_sent_because"], "too_few_results");
    // With enough Bash results for an edit: Read is in exclude_tools, and no
    // Read result (nor a page text) is cleared.
    let p = idle_server_plan("u2a-plan");
    let is = &p["idle_server"];
    assert_eq!(
        (is["clearable"].clone(), is["trigger"].clone()),
        (json!(34), json!(31))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["Read", "TodoWrite"]));
    assert_eq!(
        (is["tool_uses"].clone(), is["cleared_tool_uses"].clone()),
        (json!(52), json!(22))
    );
    assert_eq!(is["cleared_input_tokens"], 28600);
    for c in p["candidates"].as_array().unwrap() {
        if c["tool"] == "Read" {
            assert_eq!(c["status"], "kept", "{c}");
        }
    }
    // A row that came with the return prompt, after the return: still U2a.
    let p = idle_server_plan("after-return-332");
    assert_eq!(p["idle_server"]["clearable"], 12);
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
}

/// SPEC §17.C.U2 "Superseded rows", §18.17(a): a row followed by another
/// with no real reply between them is ignored, here taken back by a
/// `"reads": []` row, which itself counts as no row: Read stays clearable,
/// and the superseded reads are not in the wire.
#[test]
fn u2a_a_superseded_row_counts_for_nothing() {
    let p = idle_server_plan("superseded");
    let is = &p["idle_server"];
    assert_eq!(is["clearable"], 30);
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
    assert!(pdf_ids(&p).is_empty());
    let (code, wire, _) = common::bin::run(&["wire", &file("superseded"), "--side", "local"]);
    assert_eq!(code, 0);
    assert!(!wire.contains("toolu_pdfread_"));
}

/// SPEC §17.C.U2b, §18.17(b): from 2.1.333 a `document` read in a row
/// before the return excludes Read (example 2); the document read is no
/// pair, the page-text read beside it is.
#[test]
fn u2b_a_document_read_excludes_read() {
    let p = json("plan", "ex2-document", &[]);
    assert_eq!(p["request"]["version_row"], "2.1.336+");
    assert_eq!(p["idle_server"]["clearable"], 12);
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
    assert_eq!(pdf_ids(&p), [ROW]);
}

/// SPEC §17.C.U2b: 2.1.333 counts a row only when it holds exactly one
/// page-text read; a row of two excludes Read (example 2).
#[test]
fn u2b_2_1_333_counts_a_row_of_one_read_only() {
    let p = json("plan", "ex2-333-two", &[]);
    assert_eq!(p["request"]["version_row"], "2.1.333");
    assert_eq!(p["idle_server"]["clearable"], 12);
    let p = idle_server_plan("ex2-333-one");
    let is = &p["idle_server"];
    assert_eq!(is["clearable"], 30);
    assert_eq!(
        (is["trigger"].clone(), is["keep"].clone()),
        (json!(27), json!(12))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
    assert_eq!(pdf_ids(&p), [ROW]);
}

/// SPEC §17.C.U2b: after the return a row excludes Read only for marker
/// lines in its page text (assumed absent, 13.A U-3): a `document` row there
/// leaves Read clearable from 2.1.333. Its page-text read is a tool use the
/// server counts (U = 33) but not a clearable result.
#[test]
fn u2b_a_row_after_the_return_leaves_read_clearable() {
    let p = idle_server_plan("after-return-337-document");
    let is = &p["idle_server"];
    assert_eq!(
        (is["clearable"].clone(), is["since_return"].clone()),
        (json!(30), json!(0))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
    assert_eq!(
        (is["tool_uses"].clone(), is["cleared_tool_uses"].clone()),
        (json!(33), json!(19))
    );
    assert_eq!(is["cleared_input_tokens"], 24700);
    assert_eq!(candidate(&p, ROW).unwrap()["status"], "kept");
}

/// SPEC §17.C.U3, §18.17(d): each page-text read of a qualifying row before
/// the return is one clearable `Read` result, a pair at the row's place:
/// `chars` and `est_tokens` 0 with `size_unknown: true` (example 1).
#[test]
fn u3_page_text_reads_are_clearable_read_results_of_unknown_size() {
    let p = json("plan", "ex1-n28", &[]);
    assert_eq!(p["idle_server"]["clearable"], 28);
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
    for (id, path) in [(ROW, "/w/a.pdf"), (ROW_2, "/w/b.pdf")] {
        let c = candidate(&p, id).unwrap();
        assert_eq!(c["tool"], "Read");
        assert_eq!(c["path"], path);
        assert_eq!(
            (c["chars"].clone(), c["est_tokens"].clone()),
            (json!(0), json!(0))
        );
        assert_eq!(c["size_unknown"], true);
        assert!(c.get("source").is_none());
    }
    // Every other candidate leaves the key out.
    let others = p["candidates"].as_array().unwrap().iter();
    assert!(
        others
            .filter(|c| !c["tool_use_id"]
                .as_str()
                .unwrap()
                .starts_with("toolu_pdfread_"))
            .all(|c| c.get("size_unknown").is_none())
    );
    // Two more Read results: the edit, and the server counts the two
    // synthetic uses (U = 32); the PDF reads are the last uses, so kept.
    let t = json("timeline", "ex1-n30", &[]);
    let is = &at(&t, 32)["idle_server"];
    assert_eq!(is["clearable"], 30);
    assert_eq!(
        (is["trigger"].clone(), is["keep"].clone()),
        (json!(27), json!(12))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
    assert_eq!(is["sent_because"], "first_after_return");
    assert_eq!(
        (is["tool_uses"].clone(), is["cleared_tool_uses"].clone()),
        (json!(32), json!(18))
    );
    assert_eq!(is["cleared_input_tokens"], 23400);
    // The text says the sizes are unknown.
    let (_, text, _) = common::bin::run(&["plan", &file("ex1-n28")]);
    assert!(text.contains("28 clearable results (2 of them PDF page texts of unknown size)"));
    let row = text.lines().find(|l| l.contains(ROW_2)).unwrap();
    assert!(row.contains("Read           ?        ?"), "{row}");
}

/// SPEC §17.C.U3 "The wire", §18.17(d): the pair is in the wire as Claude
/// Code renders it (a `Read` use with the file's path, its result), the
/// server clears it like any Read, and it adds 0 to the tokens.
#[test]
fn u3_the_server_clears_page_texts_like_any_read() {
    let p = idle_server_plan("u3-cleared");
    let is = &p["idle_server"];
    assert_eq!(
        (
            is["cleared_tool_uses"].clone(),
            is["cleared_input_tokens"].clone()
        ),
        (json!(18), json!(20800))
    );
    let cleared = strings(&p["cleared"]);
    assert_eq!(cleared[..2], [ROW, ROW_2]);
    assert_eq!(candidate(&p, ROW).unwrap()["status"], "cleared");
    let body = |side: &str| {
        common::bin::json(&[
            "wire",
            &file("u3-cleared"),
            "--policy",
            "idle-server",
            "--side",
            side,
        ])
    };
    let local = body("local");
    let m = &local["messages"];
    assert_eq!(
        m[1]["content"][0],
        json!({"type": "tool_use", "id": ROW, "name": "Read", "input": {"file_path": "/w/a.pdf"}})
    );
    assert_eq!(m[2]["content"][1]["tool_use_id"], ROW_2);
    assert!(
        m[2]["content"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("PDF file read: /w/a.pdf")
    );
    let wire = body("wire");
    assert_eq!(
        wire["messages"][2]["content"][0]["content"],
        "[Old tool result content cleared]"
    );
}

/// SPEC §17.C.U4 (example 3): from 2.1.333 a compact summary's kept calls
/// are tool uses and results at the summary's place: `toolu_01A` (3,000
/// chars) is clearable, `toolu_01B` ("ok") is not but the server clears it,
/// `toolu_01C` puts TodoWrite in `exclude_tools`; in 2.1.332 the plan does
/// not read them.
#[test]
fn u4_earlier_messages_calls_count_from_2_1_333() {
    let p = idle_server_plan("u4-earlier-337");
    let is = &p["idle_server"];
    assert_eq!(is["clearable"], 30);
    assert_eq!(
        (is["trigger"].clone(), is["keep"].clone()),
        (json!(27), json!(12))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
    assert_eq!(
        (is["tool_uses"].clone(), is["cleared_tool_uses"].clone()),
        (json!(32), json!(19))
    );
    assert_eq!(is["cleared_input_tokens"], 22851);
    for (id, status) in [
        ("toolu_01A", "cleared"),
        ("toolu_01B", "cleared"),
        ("toolu_01C", "not_compactable"),
    ] {
        let c = candidate(&p, id).unwrap();
        assert_eq!(c["source"], "earlier_messages", "{id}");
        assert_eq!(c["status"], status, "{id}");
    }
    assert_eq!(candidate(&p, "toolu_01A").unwrap()["chars"], 3000);
    let p = idle_server_plan("u4-earlier-332");
    assert_eq!(p["idle_server"]["clearable"], 29);
    assert_eq!(p["idle_server"]["not_sent_because"], "too_few_results");
    // The pairs are in the wire whatever the version.
    assert_eq!(
        candidate(&p, "toolu_01A").unwrap()["source"],
        "earlier_messages"
    );
}

/// SPEC §17.C.U6: `client_cleared_pdf_page_texts` and
/// `client_sent_exclude_tools` are recorded and compared with the
/// simulation's `clears_pdf_page_texts` and S3 list; the recorded `true`
/// keeps the path on for the return's later requests.
#[test]
fn u6_the_recorded_pdf_clearing_agrees_and_keeps_the_path_on() {
    let v = json("evidence", "ex1-n30", &[]);
    let e = &at(&v, 32)["idle_server"];
    assert_eq!(e["recorded"]["client_cleared_pdf_page_texts"], true);
    assert_eq!(
        e["recorded"]["client_sent_exclude_tools"],
        json!(["TodoWrite"])
    );
    assert_eq!(e["simulated"]["clears_pdf_page_texts"], true);
    assert_eq!(
        (e["agrees"].clone(), e["differs"].clone()),
        (json!(true), json!([]))
    );
    // Before the return nothing is recorded, and nothing is sent.
    let e = &at(&v, 10)["idle_server"];
    assert_eq!(e["recorded"], Value::Null);
    assert_eq!(e["simulated"]["clears_pdf_page_texts"], false);
    let t = json("timeline", "ex1-n30", &[]);
    let is = &at(&t, 33)["idle_server"];
    assert_eq!(is["sent_because"], "server_cleared_recorded");
    assert_eq!(is["clearable"], 30);
    assert_eq!(is["edit"]["exclude_tools"], json!(["TodoWrite"]));
}

/// SPEC §17.C.U6, §18.17(c): a reply that proves an edit was sent without
/// `client_cleared_pdf_page_texts` fixes the path off for the later
/// requests of the return (U2a applies); at the return itself mcscope
/// assumed the flag's default, which the record contradicts.
#[test]
fn u6_a_proven_edit_without_the_key_fixes_the_path_off() {
    let v = json("evidence", "u6-path-off", &[]);
    let e = &at(&v, 54)["idle_server"];
    assert_eq!(e["recorded"]["client_cleared_pdf_page_texts"], Value::Null);
    assert_eq!(
        e["recorded"]["client_sent_exclude_tools"],
        json!(["Read", "TodoWrite"])
    );
    assert_eq!(e["simulated"]["trigger"], 49);
    assert_eq!(e["simulated"]["clears_pdf_page_texts"], true);
    assert_eq!(e["agrees"], false);
    assert_eq!(
        e["differs"],
        json!(["cleared_tool_uses", "trigger", "exclude_tools"])
    );
    let e = &at(&v, 55)["idle_server"];
    assert_eq!(e["simulated"]["clears_pdf_page_texts"], false);
    assert_eq!(
        (e["agrees"].clone(), e["differs"].clone()),
        (json!(true), json!([]))
    );
    let t = json("timeline", "u6-path-off", &[]);
    let is = &at(&t, 55)["idle_server"];
    assert_eq!(
        (is["clearable"].clone(), is["trigger"].clone()),
        (json!(34), json!(31))
    );
    assert_eq!(is["edit"]["exclude_tools"], json!(["Read", "TodoWrite"]));
    assert_eq!(is["sent_because"], "server_cleared_recorded");
    assert_eq!(at(&v, 54)["idle_server"]["simulated"]["keep"], 12);
}

/// SPEC §17.C.U7, §18.9: `claude_pdf_page_texts` where a page-text row lies
/// before the return at 2.1.333+, after §13.C's table and before
/// `claude_idle_server_host_pauses`; never at 2.1.332 nor without a row.
#[test]
fn u7_the_pdf_caveat_in_its_place() {
    let p = json("plan", "ex1-n30", &[]);
    let ids = caveat_ids(&p);
    assert_eq!(
        ids,
        [
            "claude_idle_server_flag",
            "claude_idle_server_activity",
            "claude_idle_server_offset",
            "claude_idle_server_refused",
            "claude_context_hint",
            "claude_pdf_page_texts",
            "claude_idle_server_host_pauses",
        ]
    );
    assert!(
        p["caveats"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("until a reply records client_cleared_pdf_page_texts.")
    );
    // 2.1.333 with a row that excludes Read still had page texts before
    // the return.
    assert!(
        caveat_ids(&json("plan", "ex2-333-two", &[])).contains(&"claude_pdf_page_texts".into())
    );
    for name in ["ex2-332", "u4-earlier-337", "after-return-337-document"] {
        let ids = caveat_ids(&idle_server_plan(name));
        assert!(
            !ids.contains(&"claude_pdf_page_texts".into()),
            "{name}: {ids:?}"
        );
    }
    // timeline and evidence list the union over the requests.
    let t = json("timeline", "ex1-n28", &[]);
    assert!(caveat_ids(&t).contains(&"claude_pdf_page_texts".into()));
}
