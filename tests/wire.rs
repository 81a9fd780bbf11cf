//! Wire payloads (SPEC §6): rewrite and cache-edits delivery, pinned blocks, the
//! "." rule, the local side, and Messages API bodies as input.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::*;
use mcscope::analysis::wire_at;
use mcscope::cli::{KindArg, Opts};
use mcscope::wire::Side;
use serde_json::{Value, json};

fn count_opts(keep: u32, trigger: u32) -> Opts {
    Opts::default()
        .with("--policy", "count")
        .with("--keep-recent", &keep.to_string())
        .with("--trigger", &trigger.to_string())
}

fn edit_blocks(body: &Value) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (i, m) in body["messages"].as_array().unwrap().iter().enumerate() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "cache_edits" {
                let refs = b["edits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["cache_reference"].as_str().unwrap().to_string())
                    .collect();
                out.push((i, refs));
            }
        }
    }
    out
}

#[test]
fn pinned_blocks_are_resent_at_their_original_index() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    for id in ["A", "B", "C", "D"] {
        c.bash(id, 50);
    }
    c.answer("ok");
    let s = setup(&c.write(t.path(), "s.jsonl"), count_opts(1, 1));
    // Request 3 first sends B: A goes. Request 4 first sends C: B goes. And so on.
    let w3 = wire_at(&s, 3, Side::Wire).unwrap();
    assert_eq!(edit_blocks(&w3), [(4, vec!["A".to_string()])]);
    let w5 = wire_at(&s, 5, Side::Wire).unwrap();
    assert_eq!(
        edit_blocks(&w5),
        [
            (4, vec!["A".to_string()]),
            (6, vec!["B".to_string()]),
            (8, vec!["C".to_string()])
        ]
    );
    // The block sits right after the message's tool_result, followed by "." when last;
    // the pinned message is byte-identical to what request 3 sent, but for cache_reference.
    let m4 = w5["messages"][4]["content"].as_array().unwrap();
    assert_eq!(m4[0]["type"], "tool_result");
    assert_eq!(m4[1]["type"], "cache_edits");
    assert_eq!(m4[2], json!({"type": "text", "text": "."}));
    let m4_then = w3["messages"][4]["content"].as_array().unwrap();
    assert_eq!(m4_then[1], m4[1]);
    assert_eq!(m4_then[2]["text"], ".");
    // At request 3 message 4 was the last: cache_control went on its last block
    // before the edits were inserted (addCacheBreakpoints marks, then inserts).
    assert_eq!(m4_then[0]["cache_control"], json!({"type": "ephemeral"}));
    assert!(m4_then[2].get("cache_control").is_none());
    assert!(m4_then[0].get("cache_reference").is_none());
    assert_eq!(m4[0]["cache_reference"], "B");
}

#[test]
fn rewrite_keeps_ids_and_is_error_and_local_is_untouched() {
    let t = tempfile::tempdir().unwrap();
    let mut c = Claude::default();
    c.prompt("go", 0.0);
    c.call("E", "Bash", json!({"command": "false"}))
        .result_full("E", json!([{"type": "text", "text": "boom"}]), true, 0.0);
    c.bash("B", 50).answer("ok").prompt("later", 90.0);
    let path = c.write(t.path(), "s.jsonl");
    let s = setup(
        &path,
        Opts::default()
            .with("--policy", "idle")
            .with("--keep-recent", "1"),
    );
    let k = s.session.requests.len();
    let wire = wire_at(&s, k, Side::Wire).unwrap();
    let local = wire_at(&s, k, Side::Local).unwrap();
    let e = &wire["messages"][2]["content"][0];
    assert_eq!(e["tool_use_id"], "E");
    assert_eq!(e["is_error"], true);
    assert_eq!(e["content"], "[Old tool result content cleared]");
    assert_eq!(
        local["messages"][2]["content"][0]["content"][0]["text"],
        "boom"
    );
    // The trailing prompt is sent as recorded: a string.
    assert_eq!(
        local["messages"].as_array().unwrap().last().unwrap()["content"],
        "later"
    );
    assert_eq!(wire["model"], "claude-test");
    // Only the cleared block differs.
    let differing = (0..wire["messages"].as_array().unwrap().len())
        .filter(|&i| wire["messages"][i] != local["messages"][i])
        .count();
    assert_eq!(differing, 1);
}

#[test]
fn messages_json_bodies_are_sessions() {
    let t = tempfile::tempdir().unwrap();
    let body = json!({
        "model": "claude-x",
        "system": "be brief",
        "messages": [
            {"role": "user", "content": "look"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "A", "name": "Read", "input": {"file_path": "/a"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "A", "content": "aaaa"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "B", "name": "Bash", "input": {"command": "ls"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "B", "content": "bbbb"}]}
        ]
    });
    let path = t.path().join("body.json");
    std::fs::write(&path, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    let s = setup(
        &path,
        Opts::default()
            .with("--policy", "forced")
            .with("--keep-recent", "1"),
    );
    assert_eq!(s.session.format, mcscope::session::Format::MessagesJson);
    // Two assistant messages plus the trailing user message.
    assert_eq!(s.session.requests.len(), 3);
    let p = last(&s);
    assert_eq!(
        ids(&s, &p, mcscope::policy::Status::Cleared),
        ["A"],
        "forced clears outside the window"
    );
    let local = wire_at(&s, 3, Side::Local).unwrap();
    assert_eq!(local["messages"], body["messages"]);
    assert_eq!(local["model"], "claude-x");
}

#[test]
fn qwen_inline_media_has_its_own_keep_window() {
    let t = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("look at these", 0.0);
    // Add two images to the prompt record, top-level inline media.
    let mut v: Value = serde_json::from_str(&q.lines[0]).unwrap();
    v["message"]["parts"].as_array_mut().unwrap().extend([
        json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}}),
        json!({"inlineData": {"mimeType": "image/jpeg", "data": "BBBB"}}),
    ]);
    q.lines[0] = v.to_string();
    q.shell("A", 100).shell("B", 100).answer("ok");
    let s = setup(
        &q.write(t.path(), "s.jsonl"),
        Opts::default()
            .with("--policy", "forced")
            .with("--keep-recent", "1"),
    );
    let p = last(&s);
    assert_eq!(p.step.media_cleared, 1);
    assert_eq!(p.step.media_kept, 1);
    let wire = wire_at(&s, s.session.requests.len(), Side::Wire).unwrap();
    let parts = &wire["contents"][0]["parts"];
    assert_eq!(
        parts[1],
        json!({"text": "[Old inline media cleared: image/png]"})
    );
    assert_eq!(parts[2]["inlineData"]["mimeType"], "image/jpeg");
}

/// What the TUI prints (the local side straight from the message cache) is what
/// `to_string_pretty` prints of the bodies `mcscope wire` builds, and its token count
/// is `tokens_from` of the wire body: on every sample and corpus session, at every
/// request, under each plan and delivery, with one cache stepping through.
#[test]
fn printed_bodies_equal_the_built_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = [
        "claude-demo.jsonl",
        "claude-size.jsonl",
        "qwen-memory/session.jsonl",
    ]
    .iter()
    .map(|f| root.join("sample-sessions").join(f))
    .collect();
    let corpus = corpus::location();
    // Without a corpus (a fresh clone), the samples only.
    files.extend(corpus::jsonl_files());
    // Two threads take the files in turn, the largest first, so that a debug
    // build's passes share the cores (a panic in either fails the test).
    files.sort_by_key(|f| std::cmp::Reverse(std::fs::metadata(f).map_or(0, |m| m.len())));
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let (files, corpus, next) = (&files, &corpus, &next);
            scope.spawn(move || {
                while let Some(path) =
                    files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    printed_bodies_of(path, corpus);
                }
            });
        }
    });
    assert!(files.len() >= 3);
}

fn printed_bodies_of(path: &std::path::Path, corpus: &std::path::Path) {
    use mcscope::analysis::plan_and_inputs;
    use mcscope::cli::DeliveryArg;
    for (kind, delivery) in [
        (KindArg::Forced, DeliveryArg::Rewrite),
        (KindArg::Count, DeliveryArg::CacheEdits),
    ] {
        let o = Opts::default()
            .with("--policy", kind.name())
            .with("--delivery", delivery.name())
            .with("--keep-recent", "1")
            .with("--trigger", "2");
        let Ok(s) = mcscope::cli::setup(path, &o) else {
            continue; // cache-edits on a qwen session is refused
        };
        let mut cache = Default::default();
        let n = s.session.requests.len();
        // Every request of the samples; every tenth of the corpus (debug builds).
        let step = if path.starts_with(corpus) { 10 } else { 1 };
        for k in (1..=n).filter(|k| k % step == 0 || *k == n) {
            let (plan, inputs) = plan_and_inputs(&s, k).unwrap();
            let at = plan.cache.prefix_broken_at_message.or(Some(k % 3));
            let (l, w, tokens) = inputs.print(&s.session, &mut cache, at).unwrap();
            let bl = inputs.body(&s.session, Side::Local).unwrap();
            let bw = inputs.body(&s.session, Side::Wire).unwrap();
            let what = format!("{} {kind:?} @{k}", path.display());
            // The bodies as the TUI shows them: invisible characters escaped,
            // the same JSON values.
            assert_eq!(l, mcscope::sanitize::json_pretty_visible(&bl), "{what}");
            assert_eq!(w, mcscope::sanitize::json_pretty_visible(&bw), "{what}");
            assert_eq!(serde_json::from_str::<serde_json::Value>(&w).unwrap(), bw);
            let want = at.map(|a| mcscope::wire::tokens_from(&bw, a));
            assert_eq!(tokens, want, "{what}");
        }
    }
}
