//! SPEC §12 "What fills the window" and §15.17: worked figures on a small
//! session, and the running figures against each request's wire body built
//! whole (`analysis::wire_at`) on the samples.

use crate::analysis::{self, Setup};
use crate::context::*;
use crate::policy::PlanKind;
use crate::session::{HarnessId, Role};
use crate::setup::Opts;
use crate::wire::Side;
use serde_json::Value;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../sample-sessions")
        .join(p)
}

fn setup_of(path: &Path, opts: &Opts) -> Setup {
    crate::setup::setup(path, opts).unwrap()
}

/// Every request's context from a lean engine (lists) and a tracked one
/// (deltas): the two must agree.
fn contexts(setup: &Setup) -> Vec<Context> {
    let forced_at = setup.last_request();
    let mut lean = ContextRun::new(setup);
    let a: Vec<Context> = analysis::timeline_steps(setup, forced_at)
        .map(|st| lean.next(&st))
        .collect();
    let mut tracked = ContextRun::new(setup);
    let b: Vec<Context> = analysis::tracked_steps(setup, forced_at)
        .map(|st| tracked.next(&st))
        .collect();
    assert_eq!(a, b, "lean and tracked steps give the same context");
    a
}

/// A Claude Code session written line by line (uuid chain, timestamps).
fn claude_file(dir: &Path, messages: &[(&str, serde_json::Value)]) -> PathBuf {
    let mut lines = Vec::new();
    let mut parent = serde_json::Value::Null;
    for (i, (kind, message)) in messages.iter().enumerate() {
        let uuid = format!("u{i}");
        lines.push(
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
                "cwd": "/repo", "version": "2.1.90", "sessionId": "s",
                "timestamp": format!("2026-07-01T10:{:02}:00.000Z", i),
                "message": message})
            .to_string(),
        );
        parent = json!(uuid);
    }
    let path = dir.join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The worked session: every block kind, three requests (figures in the
/// first test).
fn worked(dir: &Path) -> PathBuf {
    claude_file(
        dir,
        &[
            // "hello world!": 12 → 3 (user_text).
            ("user", json!({"role": "user", "content": "hello world!"})),
            (
                "assistant",
                json!({"id": "m1", "role": "assistant", "model": "claude-test",
                "content": [
                    // 8 → 2 and 10 → 3: thinking 5 (§15.17: redacted_thinking is thinking).
                    {"type": "thinking", "thinking": "abcdefgh", "signature": "s"},
                    {"type": "redacted_thinking", "data": "xxxxxxxxxx"},
                    // 4 → 1, and the input {"file_path":"/a"}: 18 → 5 (§15.17: assistant_text).
                    {"type": "text", "text": "done"},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}}],
                "usage": {"input_tokens": 5000, "output_tokens": 1}}),
            ),
            (
                "user",
                json!({"role": "user", "content": [
                // 400 → 100 under Read; an image 2000; "ok": 2 → 1 (user_text).
                {"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "text", "text": "ok"}]}),
            ),
            (
                "assistant",
                // "fine": 4 → 1, and the input {"command":"ls"}: 16 → 4.
                json!({"id": "m2", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "fine"},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}}],
                "usage": {"input_tokens": 9000, "output_tokens": 1}}),
            ),
            // 40 → 10 under Bash.
            (
                "user",
                json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t2", "content": "y".repeat(40)}]}),
            ),
            (
                "assistant",
                json!({"id": "m3", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "end"}],
                "usage": {"input_tokens": 9500, "output_tokens": 1}}),
            ),
        ],
    )
}

/// SPEC §12, §15.17 worked: every block kind lands in its bucket by §2's
/// estimate (Claude: round(len/4) per block, 2000 per image).
#[test]
fn spec_12_context_worked_figures_by_block_kind() {
    let dir = tempfile::tempdir().unwrap();
    let path = worked(dir.path());
    let c = contexts(&setup_of(&path, &Opts::default()));
    assert_eq!(c.len(), 3);
    assert_eq!(
        c[0],
        Context {
            user_text: 3,
            // P(1) = 5000 − 3.
            unattributed: Some(4997),
            ..Default::default()
        }
    );
    let want = Context {
        tool_results: BTreeMap::from([("Read".into(), 100)]),
        thinking: 5,
        assistant_text: 6,
        user_text: 4,
        images: 2000,
        // P(2) = 9000 − (100 + 5 + 6 + 4 + 2000).
        unattributed: Some(6885),
    };
    assert_eq!(c[1], want);
    // Request 3 adds "fine" and the Bash input (1 + 4) and its result (10):
    // P(3) = 9500 − (100 + 10 + 5 + 11 + 4 + 2000).
    assert_eq!(
        c[2].tool_results,
        BTreeMap::from([("Bash".into(), 10), ("Read".into(), 100)])
    );
    assert_eq!((c[2].assistant_text, c[2].user_text), (11, 4));
    assert_eq!(c[2].unattributed, Some(9500 - 2130));
    // Forced at request 3 keeping 1: the Read result reads the placeholder,
    // 33 characters → 8 tokens, under its tool.
    let forced = Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "1");
    let c = contexts(&setup_of(&path, &forced));
    assert_eq!(c[2].tool_results["Read"], 8);
    assert_eq!(c[2].unattributed, Some(9500 - 2130 + 100 - 8));
    // Deleted by a count plan's cache edits, the result counts nothing.
    let edits = Opts::default()
        .with("--policy", "count")
        .with("--keep-recent", "1")
        .with("--trigger", "1")
        .with("--delivery", "cache-edits");
    let c = contexts(&setup_of(&path, &edits));
    assert_eq!(c[2].tool_results["Read"], 0);
}

/// SPEC §15.17: `unattributed` may be negative (the estimate exceeds the
/// recorded prompt), and is null without usage.
#[test]
fn spec_15_17_unattributed_negative_and_null_without_usage() {
    let dir = tempfile::tempdir().unwrap();
    let path = claude_file(
        dir.path(),
        &[
            ("user", json!({"role": "user", "content": "x".repeat(4000)})),
            (
                "assistant",
                json!({"id": "m1", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "a"}],
                "usage": {"input_tokens": 600, "output_tokens": 1}}),
            ),
            ("user", json!({"role": "user", "content": "again"})),
        ],
    );
    let c = contexts(&setup_of(&path, &Opts::default()));
    // 4000 characters → 1000 tokens against P = 600.
    assert_eq!(c[0].unattributed, Some(-400));
    // The trailing request has no response, so no usage.
    assert_eq!(c[1].unattributed, None);
    assert_eq!(c[1].user_text, 1000 + 1);
}

/// What the test reads a wire body's messages as: §2's estimate of each tool
/// result as it is in the body, the rest by `message_kinds`.
fn from_body(setup: &Setup, k: usize) -> Context {
    let s = &setup.session;
    let h = s.harness;
    let body = analysis::wire_at(setup, k, Side::Wire).unwrap();
    let shape = h.rules().wire;
    let tool_of = |id: &str| -> String {
        let r = s.results.iter().position(|r| r.id == id).unwrap();
        let facts = ContextFacts::of_session(s, &setup.derived);
        facts.tools[facts.tool_of[r]].to_string()
    };
    let mut c = Context::default();
    for m in body[shape.messages].as_array().unwrap() {
        let role = if m["role"] == shape.user_role {
            Role::User
        } else {
            Role::Assistant
        };
        let (k, _) = message_kinds(h, role, m);
        c.thinking += k.thinking;
        c.assistant_text += k.assistant_text;
        c.user_text += k.user_text;
        c.images += k.images;
        for b in m[shape.content].as_array().into_iter().flatten() {
            if !crate::wire::is_tool_result(h, b) {
                // A cleared Qwen media part reads its placeholder: under images.
                if let Some(t) = b["text"].as_str()
                    && t.starts_with("[Old inline media cleared")
                {
                    c.user_text -= text_tokens(h, t);
                    c.images += text_tokens(h, t);
                }
                continue;
            }
            let (id, tokens) = match h {
                HarnessId::Claude | HarnessId::Opencode | HarnessId::Cline => {
                    let t = match &b["content"] {
                        Value::String(t) => text_tokens(h, t),
                        Value::Array(parts) => parts
                            .iter()
                            .map(|p| match p["type"].as_str() {
                                Some("text") => text_tokens(h, p["text"].as_str().unwrap()),
                                Some("image" | "document") => 2000,
                                _ => 0,
                            })
                            .sum(),
                        _ => 0,
                    };
                    (b["tool_use_id"].as_str().unwrap(), t)
                }
                HarnessId::Qwen | HarnessId::Gemini => {
                    let r = &b["functionResponse"];
                    let out = r["response"]["output"].as_str().unwrap_or("");
                    let media = r["parts"].as_array().map_or(0, |p| {
                        p.iter()
                            .filter(|p| {
                                p.get("inlineData").is_some() || p.get("fileData").is_some()
                            })
                            .count() as u64
                    });
                    (
                        r["id"].as_str().unwrap(),
                        text_tokens(h, out) + 1600 * media,
                    )
                }
            };
            *c.tool_results.entry(tool_of(id).into()).or_default() += tokens;
        }
    }
    c.unattributed = s
        .recorded_prompt(k)
        .map(|p| p as i64 - c.attributed() as i64);
    c
}

/// SPEC §12: the running figures are those of each request's wire body, built
/// whole, for every sample and several settings (Qwen's functionResponse parts
/// and media, the api preset's server view, a forced Qwen plan's thoughts).
#[test]
fn spec_12_context_is_the_wire_body_by_kind_on_the_samples() {
    let idle = |keep: u32, gap: f64| {
        Opts::default()
            .with("--policy", "idle")
            .with("--keep-recent", &keep.to_string())
            .with("--gap-minutes", &gap.to_string())
    };
    let forced = Opts::default()
        .with("--policy", "forced")
        .with("--keep-recent", "1");
    let cases: Vec<(&str, Opts)> = vec![
        ("claude-demo.jsonl", Opts::default()),
        ("claude-demo.jsonl", idle(1, 1.0)),
        ("claude-size.jsonl", Opts::default()),
        ("claude-budget.jsonl", Opts::default()),
        ("qwen-memory/today.jsonl", Opts::default()),
        ("qwen-memory/today.jsonl", idle(0, 1.0)),
        ("qwen-memory/session.jsonl", Opts::default()),
        ("qwen-memory/session.jsonl", forced.clone()),
        ("api-agent.json", Opts::default()),
    ];
    let mut cleared_somewhere = 0;
    for (file, opts) in cases {
        let setup = setup_of(&sample(file), &opts);
        let got = contexts(&setup);
        assert_eq!(got.len(), setup.session.requests.len(), "{file}");
        for (i, c) in got.iter().enumerate() {
            // A forced plan acts at the request it is asked for: the last here.
            if opts.given.kind() == Some(PlanKind::Forced) && i + 1 < got.len() {
                continue;
            }
            assert_eq!(
                *c,
                from_body(&setup, i + 1),
                "{file} {opts:?} request {}",
                i + 1
            );
        }
        cleared_somewhere += got
            .windows(2)
            .filter(|w| w[1].tool_results.values().sum::<u64>() < w[0].tool_results.values().sum())
            .count();
    }
    // The settings clear something somewhere: the placeholders are checked.
    assert!(cleared_somewhere >= 3, "{cleared_somewhere}");
}

/// SPEC §11 with §12: under the api preset the server's view is what fills
/// the window: cleared thinking goes, a cleared tool input reads `{}`, a
/// cleared result the server's placeholder — each request against its body.
#[test]
fn spec_12_api_server_view_clears_thinking_and_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let path = worked(dir.path());
    let opts = Opts { preset: Some(crate::config::Preset::Api), ..Opts::default().with("--api-edit", &json!({"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 0}})
                .to_string()).with("--api-edit", &json!({"type": "clear_tool_uses_20250919",
                   "trigger": {"type": "input_tokens", "value": 100},
                   "keep": {"type": "tool_uses", "value": 1},
                   "clear_tool_inputs": true})
            .to_string()) };
    let setup = setup_of(&path, &opts);
    let got = contexts(&setup);
    for (i, c) in got.iter().enumerate() {
        assert_eq!(*c, from_body(&setup, i + 1), "request {}", i + 1);
    }
    // Request 3: the Read result and its input are cleared (keep 1 keeps the
    // Bash use); the input {"file_path":"/a"} (5) reads {} (1).
    let plain = contexts(&setup_of(&path, &Opts::default()));
    assert!(
        got[2].tool_results["Read"] < plain[2].tool_results["Read"],
        "{:?}",
        got[2]
    );
    assert_eq!(got[2].assistant_text, plain[2].assistant_text - 5 + 1);
    // Keeping no thinking turn, the server drops m1's thinking (5).
    assert_eq!((plain[2].thinking, got[2].thinking), (5, 0));
}
