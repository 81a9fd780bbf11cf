//! Issue 41 item 4 on Gemini CLI files: tag mentions, wrong-shaped counts, deep nesting.

use super::*;

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
