use super::*;

/// The engine marks the last message's results pending only where a
/// request continues a tool loop: the send records decide where the
/// session has them (Qwen), the turn start elsewhere.
#[test]
fn a_tool_loop_is_the_send_record_s_or_not_a_turn_start() {
    let mut r = Request::empty(2);
    assert!(!r.continues_tool_loop(), "a turn start");
    r.begins_turn = false;
    assert!(r.continues_tool_loop());
    let send = |kind| Send {
        kind,
        after_goal: false,
        completion_ms: None,
        process: 0,
        note: None,
    };
    r.send = Some(send(SendKind::UserQuery));
    assert!(!r.continues_tool_loop(), "the record says a prompt");
    r.send = Some(send(SendKind::ToolResult));
    r.begins_turn = true;
    assert!(r.continues_tool_loop(), "the record says tool results");
}

/// Issue 41 item 5: an inline body is kept as text and reads back as the value
/// it was made from, escapes, numbers and key order included; one nested past
/// what serde_json parses back stays the tree it is.
#[test]
fn an_inline_body_reads_back_as_the_value_it_was_made_from() {
    let v = serde_json::json!({
        "role": "user",
        "parts": [{"text": "a \"quoted\" é 😀 \u{1b}[1m"}, {"n": [0, -7, 1.5e300, 18446744073709551615u64, 0.1]}],
        "z": null,
        "a": {"b": true}
    });
    let b = Inline::new(v.clone());
    assert_eq!(b.value(), v);
    assert_eq!(b.value().to_string(), v.to_string(), "key order kept");
    assert!(matches!(b.0, InlineForm::Text(_)));
    assert!(b.measure().is_none());

    let mut deep = serde_json::json!("leaf");
    for _ in 0..200 {
        deep = serde_json::json!([deep]);
    }
    assert!(serde_json::from_str::<serde_json::Value>(&deep.to_string()).is_err());
    let b = Inline::new(deep.clone());
    assert!(matches!(b.0, InlineForm::Tree(_)));
    assert_eq!(b.value(), deep);
    // Where the walk draws the line.
    let mut at = serde_json::json!(1);
    for _ in 0..INLINE_TEXT_DEPTH {
        at = serde_json::json!({"k": at});
    }
    assert!(!depth_over(&at, INLINE_TEXT_DEPTH));
    assert!(depth_over(&serde_json::json!([at]), INLINE_TEXT_DEPTH));
}
