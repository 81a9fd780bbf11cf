use super::*;

fn parts(list: &[Value]) -> Vec<(String, Value)> {
    list.iter().map(|p| ("p".to_string(), p.clone())).collect()
}

/// Reference §2.2 (1.18.33 `SessionPrompt.run`): when a loop ends with a
/// response, so that prune runs after it.
#[test]
fn s2_2_which_response_ends_a_loop() {
    let at = |finish: Value, error: Value| {
        json!({"role": "assistant", "finish": finish, "error": error,
                "time": {"created": 100, "completed": 200}})
    };
    let user = |created: i64| json!({"role": "user", "time": {"created": created}});
    let prompt = parts(&[json!({"type": "text", "text": "next"})]);
    let cont = parts(&[
        json!({"type": "text", "text": "Continue", "synthetic": true,
            "metadata": {"compaction_continue": true}}),
    ]);
    let shell_note = parts(&[json!({"type": "text", "synthetic": true, "text": SUBTASK_NOTE})]);
    let auto_compaction = parts(&[json!({"type": "compaction", "auto": true})]);
    let later = user(300);
    let ends = |m: &Value, own: &[(String, Value)], next: Option<(&Value, &[(String, Value)])>| {
        Ends {
            m,
            parts: own,
            compaction: None,
            next: next.map(|(u, p)| (created_of(u), p)),
            bare_end: None,
        }
        .ends_loop()
    };
    let ok = at(json!("stop"), Value::Null);
    // A finished answer, then a prompt written after it: the loop ended.
    assert!(ends(&ok, &[], Some((&later, &prompt))));
    assert!(ends(&ok, &[], None));
    // A `!command` after it: the prune had run already.
    assert!(ends(&ok, &[], Some((&later, &shell_note))));
    // A step that asked for tools, or an unknown finish: it goes on.
    assert!(!ends(
        &at(json!("tool-calls"), Value::Null),
        &[],
        Some((&later, &prompt))
    ));
    assert!(!ends(&at(json!("unknown"), Value::Null), &[], None));
    // `finish: stop` with a tool part to answer still goes on (`fe`).
    let tool = parts(&[json!({"type": "tool", "state": {"status": "completed"}})]);
    assert!(!ends(&ok, &tool, None));
    // A prompt written while it streamed joins the loop; so do the
    // continue and an overflow's compaction message.
    assert!(!ends(&ok, &[], Some((&user(150), &prompt))));
    assert!(!ends(&ok, &[], Some((&later, &cont))));
    assert!(!ends(&ok, &[], Some((&later, &auto_compaction))));
    // A failed step stops the loop; an abort interrupts it (no prune); a
    // rejected permission stops it.
    assert!(ends(
        &at(Value::Null, json!({"name": "APIError"})),
        &[],
        Some((&later, &prompt))
    ));
    assert!(!ends(
        &at(Value::Null, json!({"name": "MessageAbortedError"})),
        &[],
        None
    ));
    let refused = parts(&[json!({"type": "tool", "state": {"status": "error",
            "error": "The user rejected permission to use this specific tool call."}})]);
    assert!(ends(
        &at(json!("tool-calls"), Value::Null),
        &refused,
        Some((&later, &prompt))
    ));
    // An auto-compaction's summary after an overflow: the prompt is posted
    // again and the loop goes on; a manual one ends it.
    let summary = at(json!("stop"), Value::Null);
    let overflowed = json!({"type": "compaction", "auto": true, "overflow": true});
    let manual = json!({"type": "compaction", "auto": false});
    let with = |c: &Value| {
        Ends {
            m: &summary,
            parts: &[],
            compaction: Some(c),
            next: Some((created_of(&later), &prompt)),
            bare_end: None,
        }
        .ends_loop()
    };
    assert!(!with(&overflowed));
    assert!(with(&manual));
    // No `finish` recorded by the build: a following user message ends it.
    let bare = json!({"role": "assistant", "time": {"created": 100, "completed": 200}});
    let bare_ends = |end| {
        Ends {
            m: &bare,
            parts: &[],
            compaction: None,
            next: None,
            bare_end: Some(end),
        }
        .ends_loop()
    };
    assert!(bare_ends(true));
    assert!(!bare_ends(false));
    // A `!command`'s own response sends no request.
    assert!(shell_run(&bare, &shell_note));
    assert!(!shell_run(&ok, &shell_note));
    assert!(!shell_run(&bare, &prompt));
}
