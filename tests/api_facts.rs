//! Issue 43: the facts idle-server and the api plan read of every message
//! (SPEC §11's estimate of each block, the thinking, each tool use) come from
//! what the Claude loader measured while it read the file; only the messages
//! it could not measure whole are read back. Whatever the path, they are the
//! facts reading every message back gives: on every corpus transcript, the
//! bundled samples, and a session of hostile shapes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use mcscope::session::ApiFacts;
use mcscope::setup::Opts;
use std::path::{Path, PathBuf};

fn agree(path: &Path) -> usize {
    let setup = common::setup(path, Opts::default());
    let s = &setup.session;
    let measured = ApiFacts::of_session(s, &setup.derived);
    let read_back = ApiFacts::read_back(s);
    assert_eq!(
        measured.msgs.len(),
        read_back.msgs.len(),
        "{}",
        path.display()
    );
    for (m, (a, b)) in measured.msgs.iter().zip(&read_back.msgs).enumerate() {
        assert_eq!(a, b, "{} message {m}", path.display());
    }
    s.messages.len()
}

#[test]
fn the_measured_api_facts_are_the_read_back_ones_on_every_claude_transcript() {
    let mut files: Vec<PathBuf> = corpus::jsonl_files()
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "claude-code"))
        .collect();
    files.extend(corpus::claude_samples());
    let mut messages = 0;
    for f in &files {
        messages += agree(f);
    }
    assert!(messages > 100, "{messages} messages compared");
}

/// Lines the scan is unsure of (a duplicate key), uses the loader names
/// otherwise (an escaped name) or leaves out (a name that is not a string),
/// strings and odd blocks: each message's facts are still the read-back ones.
#[test]
fn messages_the_scan_is_unsure_of_are_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::Claude::default();
    c.prompt("go", 0.0);
    c.call(
        "t1",
        "Read",
        serde_json::json!({"file_path": "/a", "x": 1.5}),
    );
    c.result_full(
        "t1",
        serde_json::json!([{"type": "text", "text": "part"}, {"type": "image"}]),
        false,
        0.0,
    );
    c.call("t2", "Bash", serde_json::json!({"command": "ls"}));
    c.result_full("t2", serde_json::json!("plain output"), false, 0.0);
    c.answer("done");
    let path = c.write(dir.path(), "odd.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    // An escaped tool name, an escaped key and a duplicate key.
    text = text.replacen("\"name\":\"Bash\"", "\"name\":\"B\\u0061sh\"", 1);
    assert!(text.contains("B\\u0061sh"), "the name was escaped");
    text.push_str(
        r#"{"type":"assistant","uuid":"z1","parentUuid":null,"timestamp":"2026-01-01T00:10:00Z","message":{"id":"m9","role":"assistant","content":[{"type":"thinking","thinking":"x","thinking":"y"},{"type":"text","text":"t\u00e9"}]}}"#,
    );
    text.push('\n');
    // A use whose name is not a string: the loader leaves its call out.
    text.push_str(
        r#"{"type":"assistant","uuid":"z2","parentUuid":"z1","timestamp":"2026-01-01T00:11:00Z","message":{"id":"m10","role":"assistant","content":[{"type":"tool_use","id":"t9","name":5,"input":{}},{"type":"tool_use","id":"t10","name":"Read","input":{"file_path":"/b"}}]}}"#,
    );
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    assert!(agree(&path) >= 4);
}

/// Issue 43 item 1 / issue 41 item 5: a Messages API body's messages are kept
/// as text and measured as the Claude loader measures a record's content, so
/// nothing reads them back for their facts, what fills the window or their
/// sizes. Whatever the path, every figure is the one reading the message back
/// gives: on the bundled body and on one of odd shapes (a duplicate key, an
/// escaped name, a name that is not a string, a string content, images).
#[test]
fn a_messages_api_body_is_measured_as_its_messages_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd-body.json");
    std::fs::write(
        &odd,
        r#"{"model":"claude-sonnet-4-5","messages":[
 {"role":"user","content":"go"},
 {"role":"assistant","content":[{"type":"thinking","thinking":"x","thinking":"y"},{"type":"tool_use","id":"t1","name":"Re\u0061d","input":{"file_path":"/a","n":1.5}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"part é"},{"type":"image","source":{"type":"base64","data":"AA=="}}]}]},
 {"role":"assistant","content":[{"type":"tool_use","id":"t2","name":5,"input":{}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"plain"},{"type":"tool_result","tool_use_id":"t2"}]},
 {"role":"assistant","content":[{"type":"text","text":"done"}]}
]}"#
        .replace('\n', ""),
    )
    .unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/api-agent.json");
    let mut measured = 0;
    for path in [sample, odd] {
        assert!(agree(&path) >= 6, "{}", path.display());
        measured += all_agree(&path);
    }
    assert!(measured >= 10, "only {measured} messages measured");
}

/// Issue 41 item 5: an OpenCode database's bodies are made again from its
/// rows when read, so what the loader measured of each record's content is
/// kept with its body; every figure is still the one reading the message back
/// gives (the bundled database, and every OpenCode export of the corpus,
/// whose bodies are held).
#[test]
fn an_opencode_session_is_measured_as_its_messages_read_back() {
    let mut paths =
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/opencode-build.db")];
    if let Some(dir) = corpus::dir() {
        let mut exports: Vec<PathBuf> = std::fs::read_dir(dir.join("opencode"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        exports.sort();
        paths.extend(exports);
    }
    for path in paths {
        assert!(agree(&path) >= 6, "{}", path.display());
        let s = mcscope::load::load(&path, None).unwrap();
        let n = all_agree(&path);
        assert!(
            n * 10 >= s.messages.len() * 9,
            "{}: only {n} of {} messages measured",
            path.display(),
            s.messages.len()
        );
    }
}

/// Each measured figure of the session at `path` against the one its
/// messages read back give: what fills the window, the sizes, the sizes of
/// a rewrite; how many messages were measured.
fn all_agree(path: &Path) -> usize {
    let mut measured = 0;
    {
        let s = mcscope::load::load(path, None).unwrap();
        let read = mcscope::wire::map_messages(&s, |m, v| {
            mcscope::context::message_kinds(s.harness, s.messages[m].role, v)
        })
        .unwrap();
        for (m, want) in read.iter().enumerate() {
            if let Some(got) = mcscope::context::measured(&s.messages[m]) {
                measured += 1;
                assert_eq!(&got, want, "{} message {m}", path.display());
            }
        }
        let fast = mcscope::wire::message_tokens(&s, true).unwrap();
        let exact = mcscope::wire::message_tokens(&s, false).unwrap();
        assert_eq!(fast, exact, "{}", path.display());
        let req = s.requests.last().unwrap();
        for keep_odd in [true, false] {
            let cleared = |r: usize| !keep_odd || r.is_multiple_of(2);
            let c = mcscope::wire::Clearings::rewrite_results(&cleared);
            for m in 0..s.messages.len() {
                let Some(got) = mcscope::wire::measured_rewrite_tokens(&s, m, &cleared) else {
                    continue;
                };
                let built = mcscope::wire::wire_message_tokens(&s, req, m, &c).unwrap();
                assert_eq!(got, built, "{} message {m}", path.display());
            }
        }
    }
    measured
}
