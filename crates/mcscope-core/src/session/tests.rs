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
