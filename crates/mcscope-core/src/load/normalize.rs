//! The one step every loader's session goes through (issue 22 item 2): what
//! a plan reads of the transcript's results and cannot derive cheaply at each
//! request is settled here, so that no plan asks which harness it runs (the
//! rest, rank order and media cost, is `Session::shape`).

use crate::session::Session;
use std::collections::HashMap;

/// Where a result's paths are a set, settles which calls repeat a path of an
/// earlier call with their id.
pub(crate) fn normalize(mut s: Session) -> Session {
    s.path_repeats = if s.harness.rules().dedup_paths {
        path_repeats(&s)
    } else {
        Vec::new()
    };
    // The load grew these by doubling; a long session keeps them to the end,
    // so the unused half is given back before the plans allocate theirs.
    s.messages.shrink_to_fit();
    s.calls.shrink_to_fit();
    s.results.shrink_to_fit();
    s.requests.shrink_to_fit();
    s.evidence.shrink_to_fit();
    s
}

/// Per call, the latest earlier call with the same id that names the same
/// file (both calls of a file-path tool): the view that holds both lists the
/// path once, at the earlier (SPEC §3: in order, deduplicated). A view is a
/// run of calls, so a repeat counts there exactly when the call it repeats
/// lies in the view too.
fn path_repeats(s: &Session) -> Vec<Option<usize>> {
    let tools = s.shape().tools;
    let mut last: HashMap<(&str, &str), usize> = HashMap::new();
    s.calls
        .iter()
        .enumerate()
        .map(|(c, call)| {
            let path = call
                .file_path
                .as_deref()
                .filter(|_| tools.is_file_path_tool(&call.name))?;
            last.insert((call.id.as_str(), path), c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::analysis::{Setup, plan_at};
    use crate::harness::RankBy;
    use crate::policy::Policy;
    use serde_json::{Value, json};

    /// A Qwen Code chat: one response calls `read_file` twice with id `r`
    /// (the same file), once with id `s` (that file too) and once more with
    /// `r` on another file; every call is answered.
    fn qwen_lines() -> Vec<Value> {
        let rec = |n: usize, kind: &str, message: Value| {
            json!({"uuid": format!("q{n}"), "parentUuid": null, "sessionId": "s",
                "timestamp": format!("2026-05-20T10:00:{n:02}.000Z"), "type": kind,
                "cwd": "/repo", "version": "0.15.6", "message": message})
        };
        let read = |id: &str, path: &str| json!({"functionCall": {"id": id, "name": "read_file", "args": {"file_path": path}}});
        let answer = |id: &str| {
            json!({"functionResponse": {"id": id, "name": "read_file",
                "response": {"output": "text"}}})
        };
        vec![
            rec(
                1,
                "user",
                json!({"role": "user", "parts": [{"text": "go"}]}),
            ),
            rec(
                2,
                "assistant",
                json!({"role": "model", "parts": [
                read("r", "/repo/a"), read("s", "/repo/a"), read("r", "/repo/a"),
                read("r", "/repo/b")]}),
            ),
            rec(
                3,
                "user",
                json!({"role": "user", "parts": [
                answer("r"), answer("s"), answer("r"), answer("r")]}),
            ),
            rec(
                4,
                "assistant",
                json!({"role": "model", "parts": [{"text": "done"}]}),
            ),
        ]
    }

    fn load(lines: &[Value], name: &str) -> (tempfile::TempDir, crate::session::Session) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n") + "\n").unwrap();
        let s = crate::load::load(&path, None).unwrap();
        (dir, s)
    }

    /// Each candidate's paths, as the engine listed them.
    fn paths_of(plan: &crate::analysis::PlanAt) -> Vec<Vec<&str>> {
        plan.candidates
            .iter()
            .map(|c| c.paths.iter().map(|p| p.path.as_str()).collect())
            .collect()
    }

    /// The loader settles what the engine once asked Qwen's rules: results
    /// rank in their own order, and each id's paths are a set, the repeat of
    /// a path under the same id pointing at the call that named it first.
    #[test]
    fn a_qwen_transcript_s_results_rank_by_themselves_and_their_paths_are_a_set() {
        let (dir, s) = load(&qwen_lines(), "s.jsonl");
        assert_eq!(s.shape().rank_by, RankBy::Responses);
        assert_eq!(s.shape().media_tokens, 1600);
        // Calls: r /a, s /a, r /a (repeats call 0), r /b.
        assert_eq!(s.path_repeats, [None, None, Some(0), None]);
        // A format's own loader, called as a library would, normalizes too.
        let path = dir.path().join("s.jsonl");
        let file = std::fs::File::open(&path).unwrap();
        let progress = std::sync::atomic::AtomicU64::new(0);
        let direct = crate::load::format::of(s.format)
            .load(&path, file, None, &progress)
            .unwrap();
        assert_eq!(direct.path_repeats, s.path_repeats);
        // The engine lists each of `r`'s paths once, in order.
        let setup = Setup::new(
            s,
            Policy::preset(crate::session::Format::QwenJsonl.harness()),
        );
        let plan = plan_at(&setup, setup.last_request()).unwrap();
        let paths = paths_of(&plan);
        assert_eq!(paths[0], ["/repo/a", "/repo/b"]);
        assert_eq!(paths[1], ["/repo/a"]);
        let ranks: Vec<Option<usize>> = plan.candidates.iter().map(|c| c.rank).collect();
        assert_eq!(ranks, [Some(1), Some(2), Some(3), Some(4)]);
    }

    /// A repeat counts only where the call it repeats is in the view: after a
    /// compression, a call that names the file an earlier view's call of its
    /// id named lists the path again.
    #[test]
    fn a_repeat_of_a_call_before_the_view_lists_its_path() {
        let mut lines = qwen_lines();
        lines.push(json!({"uuid": "c", "parentUuid": null, "sessionId": "s",
            "timestamp": "2026-05-20T10:00:05.000Z", "type": "system", "cwd": "/repo",
            "version": "0.15.6", "subtype": "chat_compression",
            "systemPayload": {"info": {"compressionStatus": 1}, "compressedHistory": [
                {"role": "user", "parts": [{"text": "summary"}]},
                {"role": "model", "parts": [{"text": "ok"}]}]}}));
        let rec = |n: usize, kind: &str, message: Value| {
            json!({"uuid": format!("q{n}"), "parentUuid": null, "sessionId": "s",
                "timestamp": format!("2026-05-20T10:00:{n:02}.000Z"), "type": kind,
                "cwd": "/repo", "version": "0.15.6", "message": message})
        };
        lines.extend([
            rec(
                6,
                "user",
                json!({"role": "user", "parts": [{"text": "again"}]}),
            ),
            rec(
                7,
                "assistant",
                json!({"role": "model", "parts": [{"functionCall":
                {"id": "r", "name": "read_file", "args": {"file_path": "/repo/a"}}}]}),
            ),
            rec(
                8,
                "user",
                json!({"role": "user", "parts": [{"functionResponse":
                {"id": "r", "name": "read_file", "response": {"output": "text"}}}]}),
            ),
            rec(
                9,
                "assistant",
                json!({"role": "model", "parts": [{"text": "done"}]}),
            ),
        ]);
        let (_dir, s) = load(&lines, "s.jsonl");
        // The new call repeats call 2 (the last of `r` on /repo/a before it).
        assert_eq!(s.path_repeats[4], Some(2));
        let setup = Setup::new(
            s,
            Policy::preset(crate::session::Format::QwenJsonl.harness()),
        );
        let plan = plan_at(&setup, setup.last_request()).unwrap();
        let paths = paths_of(&plan);
        assert_eq!(paths, [["/repo/a"]]);
    }

    /// A Claude Code transcript's results take their call's place, and a
    /// result's paths are a list: nothing is marked as a repeat.
    #[test]
    fn a_claude_transcript_s_results_rank_by_their_calls_with_paths_as_a_list() {
        let rec = |n: usize, kind: &str, message: Value| {
            json!({"type": kind, "uuid": format!("u{n}"), "isSidechain": false, "cwd": "/repo",
                "version": "2.1.90", "timestamp": format!("2026-07-01T00:00:{n:02}.000Z"),
                "message": message})
        };
        let lines = [
            rec(1, "user", json!({"role": "user", "content": "go"})),
            rec(
                2,
                "assistant",
                json!({"id": "m1", "role": "assistant", "model": "claude-test",
                "content": [
                    {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/repo/a"}},
                    {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/repo/a"}}],
                "usage": {"input_tokens": 10, "output_tokens": 1}}),
            ),
        ];
        let (_dir, s) = load(&lines, "c.jsonl");
        assert_eq!(s.shape().rank_by, RankBy::Calls);
        assert_eq!(s.shape().media_tokens, 2000);
        assert!(s.path_repeats.is_empty());
    }
}
