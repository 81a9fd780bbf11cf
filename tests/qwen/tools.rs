//! SPEC §3 for Qwen: compactable tools, their names, bridged calls, errors, search_memory; §7.

use super::*;

fn tool_of(s: &mcscope::analysis::Setup, p: &mcscope::analysis::PlanAt, id: &str) -> String {
    p.candidates
        .iter()
        .find(|c| s.session.results[c.result].id == id)
        .and_then(|c| c.tool.clone())
        .unwrap_or_default()
}

/// §3 table: eleven compactable tools — web_search, skill and search_memory
/// results are candidates like read_file's.
#[test]
fn s3_eleven_compactable_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("look things up", 0.0);
    for (id, tool) in [
        ("c1", "web_search"),
        ("c2", "skill"),
        ("c3", "search_memory"),
        ("c4", "read_file"),
    ] {
        q.calls(&[(id, tool, json!({"query": "x"}))])
            .result(id, tool, &"r".repeat(400));
    }
    q.answer("done").prompt("again", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["c1", "c2", "c3"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["c4"]);
}

/// §3 "qwen tool names": legacy aliases (exact), then any case of a known name;
/// display names and other names are not compactable.
#[test]
fn s3_canonical_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    for (id, name) in [
        ("a1", "search_file_content"),
        ("a2", "replace"),
        ("a3", "Read_File"),
        ("a4", "ReadFile"),
        ("a5", "Replace"),
        ("a6", "run_shell_command"),
    ] {
        q.calls(&[(id, name, json!({}))])
            .result(id, name, &"o".repeat(400));
    }
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(tool_of(&s, &p, "a1"), "grep_search");
    assert_eq!(tool_of(&s, &p, "a2"), "edit");
    assert_eq!(tool_of(&s, &p, "a3"), "read_file");
    assert_eq!(status(&s, &p, "a4"), Status::NotCompactable);
    assert_eq!(status(&s, &p, "a5"), Status::NotCompactable);
    assert_eq!(ids(&s, &p, Status::Cleared), ["a1", "a2", "a3"]);
    assert_eq!(ids(&s, &p, Status::Kept), ["a6"]);
}

/// §3 "qwen bridged calls": a `tool_call` response takes the tool its calls name
/// when they agree; disagreeing calls, an unparseable call or no call at all
/// fail closed (not_compactable). Bridged paths protect like direct ones.
#[test]
fn s3_bridged_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    let bridged = |tool: serde_json::Value, path: &str| json!({"name": tool, "arguments": {"file_path": path}});
    // Agreeing: one bridged read_file.
    q.calls(&[("b1", "tool_call", bridged(json!("read_file"), "/repo/a.ts"))])
        .response(
            json!({"id": "b1", "name": "tool_call", "response": {"output": "x".repeat(400)}}),
        );
    // Disagreeing: the same id bridged to two tools.
    q.calls(&[
        ("b2", "tool_call", bridged(json!("read_file"), "/repo/b.ts")),
        (
            "b2",
            "tool_call",
            bridged(json!("run_shell_command"), "/repo/b.ts"),
        ),
    ])
    .response(json!({"id": "b2", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // Unparseable sibling: args.name is not a string.
    q.calls(&[
        ("b3", "tool_call", bridged(json!("read_file"), "/repo/c.ts")),
        ("b3", "tool_call", bridged(json!(7), "/repo/c.ts")),
    ])
    .response(json!({"id": "b3", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // No call with its id.
    q.response(json!({"id": "b4", "name": "tool_call", "response": {"output": "x".repeat(400)}}));
    // A response not named tool_call uses its own name, whatever the call says.
    q.calls(&[("b5", "tool_call", bridged(json!("Read_File"), "/repo/e.ts"))])
        .response(
            json!({"id": "b5", "name": "grep_search", "response": {"output": "x".repeat(400)}}),
        );
    q.calls(&[("b6", "run_shell_command", json!({"command": "ls"}))])
        .result("b6", "run_shell_command", &"y".repeat(400));
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(tool_of(&s, &p, "b1"), "read_file");
    for id in ["b2", "b3", "b4"] {
        assert_eq!(status(&s, &p, id), Status::NotCompactable, "{id}");
    }
    assert_eq!(tool_of(&s, &p, "b5"), "grep_search");
    assert_eq!(ids(&s, &p, Status::Cleared), ["b1", "b5"]);
    // The bridged read's path is its arguments.file_path.
    let c = p
        .candidates
        .iter()
        .find(|c| s.session.results[c.result].id == "b1")
        .unwrap();
    assert_eq!(c.path.as_deref(), Some("/repo/a.ts"));
}

/// §3 "Errors": any `error` key is an error to Qwen, `"error": null` included.
#[test]
fn s3_error_null_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    q.prompt("go", 0.0);
    q.calls(&[("e1", "run_shell_command", json!({"command": "x"}))])
        .response(json!({"id": "e1", "name": "run_shell_command", "response": {"output": "o".repeat(400), "error": null}}));
    q.shell("e2", 400).shell("e3", 400);
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(status(&s, &p, "e1"), Status::ErrorKept);
    assert_eq!(ids(&s, &p, Status::Cleared), ["e2"]);
}

/// §3 "search_memory results ... clearing one evicts the memory bodies it
/// carried, minus bodies that remaining results still cover". The output shape
/// is not in the recorded examples: it is built from the SPEC's rule.
#[test]
fn s3_search_memory_evicts_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Qwen::default();
    let out = |mode: &str, refs: &[(&str, i64)]| {
        json!({"mode": mode, "results": refs.iter()
            .map(|(r, t)| json!({"memoryRef": r, "mtimeMs": t, "body": "..."}))
            .collect::<Vec<_>>()})
        .to_string()
    };
    q.prompt("recall", 0.0);
    q.calls(&[("s1", "search_memory", json!({"query": "a"}))])
        .result(
            "s1",
            "search_memory",
            &out("search", &[("mem/a.md", 1), ("mem/b.md", 2)]),
        );
    q.calls(&[("s2", "search_memory", json!({"query": "b"}))])
        .result("s2", "search_memory", &out("list", &[("mem/c.md", 3)]));
    q.calls(&[("s3", "search_memory", json!({"query": "b"}))])
        .result("s3", "search_memory", &out("fetch", &[("mem/b.md", 2)]));
    q.answer("ok").prompt("next", 0.0);
    let s = setup(&q.write(dir.path(), "s.jsonl"), forced());
    let p = last(&s);
    assert_eq!(ids(&s, &p, Status::Cleared), ["s1", "s2"]);
    // s1's b.md is still covered by s3 (kept); s2's mode is "list".
    assert_eq!(
        p.evicted_memory_bodies,
        [("mem/a.md".to_string(), json!(1))]
    );
    let protection = p
        .candidates
        .iter()
        .find(|c| s.session.results[c.result].id == "s1")
        .unwrap()
        .protection
        .clone();
    assert!(protection.is_none(), "search_memory is never protected");
}

/// §7 `evicted_read_paths` (qwen): only a kept write_file vouches for a path; a
/// kept read_file of the same path does not.
#[test]
fn s7_only_a_kept_write_file_vouches() {
    let dir = tempfile::tempdir().unwrap();
    let run = |last_tool: &str| {
        let mut q = Qwen::default();
        q.prompt("go", 0.0).read("r1", "/repo/a.ts");
        q.calls(&[(
            "w1",
            last_tool,
            json!({"file_path": "/repo/a.ts", "content": "x"}),
        )])
        .result("w1", last_tool, &"ok ".repeat(100));
        q.answer("done").prompt("next", 0.0);
        let s = setup(
            &q.write(dir.path(), &format!("{last_tool}.jsonl")),
            forced(),
        );
        last(&s).evicted_read_paths
    };
    assert!(run("write_file").is_empty());
    assert_eq!(run("read_file"), ["/repo/a.ts"]);
    assert_eq!(run("edit"), ["/repo/a.ts"]);
}
