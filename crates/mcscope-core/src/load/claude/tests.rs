use super::*;
use crate::session::CacheCreation;

fn m(json: &str) -> Measure {
    measure(serde_json::from_str::<Option<Content>>(json).unwrap())
}

#[test]
fn measures_strings_blocks_and_media() {
    let x = m(r#""abcdef""#);
    assert_eq!((x.chars, x.est_tokens, x.media), (6, 2, 0));
    let x = m(
        r#"[{"type":"text","text":"ab"},{"type":"text","text":"abcdef"},{"type":"image","source":{}}]"#,
    );
    // round(2/4)=1 (half up), round(6/4)=2, +2000 for the image
    assert_eq!((x.chars, x.est_tokens, x.media), (8, 2003, 1));
    assert!(m(r#""[Old tool result content cleared]""#).placeholder);
    assert!(m(r#"[{"type":"text","text":"[Old tool result content cleared]"}]"#).placeholder);
    assert!(!m(r#""something else""#).placeholder);
    // Escapes and astral characters count as JavaScript does.
    assert_eq!(m(r#""a\n😀\u00e9""#).chars, 5);
}

fn u(json: &str) -> Usage {
    let raw = raw::test_json(json);
    let mut w = Warnings::default();
    let u = usage(Some(raw), &mut w).expect("usage");
    assert!(w.0.is_empty(), "{:?}", w.0);
    u
}

#[test]
fn usage_keeps_cache_detail_aggregation_and_server_compaction() {
    let x = u(
        r#"{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":50000,
        "output_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":200,"ephemeral_1h_input_tokens":1000},
        "cache_deleted_input_tokens":4000,
        "server_tool_use":{"web_search_requests":0,"web_fetch_requests":2},
        "iterations":[{"type":"message","input_tokens":1},{"type":"compaction"}]}"#,
    );
    assert_eq!(
        (
            x.input_tokens,
            x.cache_creation_input_tokens,
            x.cache_read_input_tokens
        ),
        (3, 1200, 50000)
    );
    assert_eq!(
        x.cache_creation,
        Some(CacheCreation {
            ephemeral_5m_input_tokens: 200,
            ephemeral_1h_input_tokens: 1000
        })
    );
    assert_eq!(x.cache_deleted_input_tokens, Some(4000));
    assert!(x.aggregated, "a web fetch count of 2");
    assert!(x.server_compaction);
    // Zero counts, message-only iterations, no cache_creation object.
    let x = u(r#"{"input_tokens":1,"server_tool_use":{"web_search_requests":0},"iterations":[]}"#);
    assert!(!x.aggregated && !x.server_compaction);
    assert_eq!(
        (x.cache_creation, x.cache_deleted_input_tokens),
        (None, None)
    );
    // Odd shapes are no counts, and never cost the line its usage.
    let x = u(
        r#"{"input_tokens":9,"server_tool_use":"n/a","iterations":[1,null,{"type":"compaction"}]}"#,
    );
    assert_eq!(x.input_tokens, 9);
    assert!(!x.aggregated && x.server_compaction);
    let x =
        u(r#"{"input_tokens":9,"server_tool_use":{"a":"5","b":[1],"c":{"d":3}},"iterations":{}}"#);
    assert!(!x.aggregated && !x.server_compaction);
}

#[test]
fn applied_edits_are_kept_verbatim_and_absent_is_none() {
    let raw = raw::test_json;
    let v = raw(
        r#"{"applied_edits":[{"type":"clear_thinking_20251015","cleared_thinking_turns":2,"cleared_input_tokens":900},{"type":"future","x":[1]}]}"#,
    );
    let mut w = Warnings::default();
    let e = applied_edits(Some(v), &mut w).unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(e[1], serde_json::json!({"type": "future", "x": [1]}));
    assert_eq!(
        applied_edits(Some(raw(r#"{"applied_edits":[]}"#)), &mut w),
        Some(vec![])
    );
    assert_eq!(applied_edits(Some(raw("{}")), &mut w), None);
    assert_eq!(applied_edits(Some(raw("null")), &mut w), None);
    assert_eq!(applied_edits(None, &mut w), None);
    assert!(w.0.is_empty(), "{:?}", w.0);
}

#[test]
fn inputs_keep_the_path_and_a_summary() {
    let b: Block = serde_json::from_str(
        r#"{"type":"tool_use","id":"x","name":"Grep","input":{"path":"/r","pattern":"p","old_string":"big"}}"#,
    )
    .unwrap();
    let i = b.input.unwrap();
    assert!(i.file_path.is_none());
    assert_eq!(raw::owned(i.summary).as_deref(), Some("p"));
    let b: Block =
        serde_json::from_str(r#"{"type":"tool_use","id":"x","name":"X","input":"odd"}"#).unwrap();
    assert!(b.input.unwrap().summary.is_none());
}

#[test]
fn an_unreadable_counter_is_unknown_with_a_warning_never_zero() {
    let raw = raw::test_json;
    let read = |s: &str| {
        let mut w = Warnings::default();
        let u = usage(Some(raw(s)), &mut w);
        (u, w.0)
    };
    // A float, a negative and an over-u64 top counter: the usage is unknown.
    for bad in ["1.5", "-3", "18446744073709551616"] {
        let (u, w) = read(&format!(
            r#"{{"input_tokens":{bad},"cache_read_input_tokens":9}}"#
        ));
        assert_eq!(u, None, "{bad}");
        assert_eq!(w.len(), 1, "{bad}: {w:?}");
        assert!(w[0].starts_with("message.usage.input_tokens is "), "{w:?}");
    }
    // u64-scale counts that fit are read as written.
    let (u, w) = read(r#"{"input_tokens":18446744073709551615,"output_tokens":1}"#);
    assert_eq!(u.map(|u| u.input_tokens), Some(u64::MAX));
    assert!(w.is_empty());
    // Inside cache_creation or cache_deleted: only that part is unknown.
    let (u, w) = read(
        r#"{"input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":2.5},"cache_deleted_input_tokens":"x"}"#,
    );
    let u = u.expect("usage kept");
    assert_eq!(
        (
            u.input_tokens,
            u.cache_creation,
            u.cache_deleted_input_tokens
        ),
        (3, None, None)
    );
    assert_eq!(w.len(), 2, "{w:?}");
    // Not an object at all.
    let (u, w) = read(r#""n/a""#);
    assert_eq!((u, w.len()), (None, 1));
    // A count in applied_edits the plans cannot read: kept as written, warned about.
    let mut w = Warnings::default();
    let e = applied_edits(
        Some(raw(
            r#"{"applied_edits":[{"type":"clear_tool_uses_20250919","cleared_tool_uses":1.5}]}"#,
        )),
        &mut w,
    );
    assert_eq!(e.map(|e| e.len()), Some(1));
    assert_eq!(w.0.len(), 1, "{:?}", w.0);
}
