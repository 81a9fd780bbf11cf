//! Rewinds and branches (SPEC §2 "Rewinds and branches", §15.1): the messages of
//! request k are the `parentUuid` chain from the record just before response k;
//! records on a dead branch take no rank, keep slot or size, and are marked
//! `dead branch`. Files without a rewind or fork keep the file order exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![allow(clippy::single_range_in_vec_init)] // a list of dead message ranges

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/screen.rs"]
mod screen;

use mcscope::session::Session;
use serde_json::{Value, json};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A transcript written record by record with explicit `uuid` / `parentUuid`.
struct Tx {
    lines: Vec<String>,
    minute: i64,
}

impl Tx {
    fn new() -> Tx {
        Tx {
            lines: Vec::new(),
            minute: 0,
        }
    }

    fn ts(&mut self) -> String {
        self.minute += 1;
        format!("2026-05-20T10:{:02}:00.000Z", self.minute)
    }

    /// A Claude Code record.
    fn claude(&mut self, uuid: &str, parent: Option<&str>, kind: &str, message: Value) -> &mut Tx {
        let ts = self.ts();
        self.lines.push(
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": "/repo", "sessionId": "s", "version": "2.1.90", "type": kind,
                "message": message, "uuid": uuid, "timestamp": ts})
            .to_string(),
        );
        self
    }

    fn c_prompt(&mut self, uuid: &str, parent: Option<&str>, text: &str) -> &mut Tx {
        self.claude(
            uuid,
            parent,
            "user",
            json!({"role": "user", "content": text}),
        )
    }

    fn c_use(&mut self, uuid: &str, parent: &str, msg: &str, id: &str, tool: &str) -> &mut Tx {
        let input = if tool == "Read" {
            json!({"file_path": format!("/repo/{id}.rs")})
        } else {
            json!({"command": "make"})
        };
        self.claude(
            uuid,
            Some(parent),
            "assistant",
            json!({"id": msg, "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}),
        )
    }

    fn c_text(&mut self, uuid: &str, parent: &str, msg: &str) -> &mut Tx {
        self.claude(
            uuid,
            Some(parent),
            "assistant",
            json!({"id": msg, "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}),
        )
    }

    fn c_result(&mut self, uuid: &str, parent: &str, id: &str, chars: usize) -> &mut Tx {
        self.claude(
            uuid,
            Some(parent),
            "user",
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                "content": "x".repeat(chars)}]}),
        )
    }

    /// A Qwen Code record.
    fn qwen(&mut self, uuid: &str, parent: Option<&str>, kind: &str, extra: Value) -> &mut Tx {
        let ts = self.ts();
        let mut rec = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "timestamp": ts, "type": kind, "cwd": "/p", "version": "0.20.0"});
        for (k, v) in extra.as_object().unwrap() {
            rec[k] = v.clone();
        }
        self.lines.push(rec.to_string());
        self
    }

    fn q_prompt(&mut self, uuid: &str, parent: Option<&str>, text: &str) -> &mut Tx {
        self.qwen(
            uuid,
            parent,
            "user",
            json!({"message": {"role": "user", "parts": [{"text": text}]}}),
        )
    }

    fn q_call(&mut self, uuid: &str, parent: &str, id: &str) -> &mut Tx {
        self.qwen(
            uuid,
            Some(parent),
            "assistant",
            json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": [
                {"functionCall": {"id": id, "name": "run_shell_command", "args": {"command": "make"}}}]},
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 5}}),
        )
    }

    fn q_text(&mut self, uuid: &str, parent: &str) -> &mut Tx {
        self.qwen(
            uuid,
            Some(parent),
            "assistant",
            json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": [{"text": "done"}]},
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 5}}),
        )
    }

    fn q_result(&mut self, uuid: &str, parent: &str, id: &str, chars: usize) -> &mut Tx {
        self.qwen(
            uuid,
            Some(parent),
            "tool_result",
            json!({"message": {"role": "user", "parts": [{"functionResponse": {"id": id,
                "name": "run_shell_command", "response": {"output": "x".repeat(chars)}}}]},
                "toolCallResult": {"callId": id, "status": "success"}}),
        )
    }

    fn q_system(&mut self, uuid: &str, parent: &str, subtype: &str, payload: Value) -> &mut Tx {
        self.qwen(
            uuid,
            Some(parent),
            "system",
            json!({"subtype": subtype, "systemPayload": payload}),
        )
    }

    fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, self.lines.join("\n") + "\n").unwrap();
        p
    }
}

fn load(p: &Path) -> Session {
    mcscope::load::load(p, None).unwrap()
}

fn dead(s: &Session) -> Vec<Vec<Range<usize>>> {
    s.requests.iter().map(|r| r.dead.clone()).collect()
}

fn plan_json(p: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("plan")
        .arg(p)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cand<'a>(plan: &'a Value, id: &str) -> &'a Value {
    plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no candidate {id} in {plan}"))
}

/// A Claude session rewound after its first turn: prompt p2 and its tool loop
/// (messages 4..8) are a dead branch once p2' (same parent) is sent.
fn claude_fork(dir: &Path) -> PathBuf {
    Tx::new()
        .c_prompt("c1", None, "p1")
        .c_use("c2", "c1", "msg_1", "t1", "Read")
        .c_result("c3", "c2", "t1", 400)
        .c_text("c4", "c3", "msg_2")
        .c_prompt("c5", Some("c4"), "p2")
        .c_use("c6", "c5", "msg_3", "t2", "Bash")
        .c_result("c7", "c6", "t2", 800)
        .c_text("c8", "c7", "msg_4")
        .c_prompt("c9", Some("c4"), "p2 again, differently")
        .c_use("c10", "c9", "msg_5", "t3", "Bash")
        .c_result("c11", "c10", "t3", 1200)
        .c_text("c12", "c11", "msg_6")
        .write(dir, "claude-fork.jsonl")
}

/// SPEC §15.1: a Claude `/rewind` fork; every response is still a request in
/// file order, and the dead branch is left out from the request after the fork on.
#[test]
fn s15_1_claude_fork_marks_the_abandoned_branch_dead() {
    let dir = tempfile::tempdir().unwrap();
    let s = load(&claude_fork(dir.path()));
    assert_eq!(s.requests.len(), 6, "every response is a request");
    let none: Vec<Range<usize>> = Vec::new();
    assert_eq!(
        dead(&s),
        vec![
            none.clone(),
            none.clone(),
            none.clone(),
            none,
            vec![4..8],
            vec![4..8]
        ]
    );
    // Usage is kept on the dead responses (they were sent and billed).
    assert!(s.messages[5].usage.is_some() && s.messages[7].usage.is_some());
}

/// SPEC §15.1: a dead result takes no rank, keep slot or size, and the JSON
/// and the text say `dead branch`.
#[test]
fn s15_1_dead_branch_takes_no_rank_keep_slot_or_size() {
    let dir = tempfile::tempdir().unwrap();
    let p = claude_fork(dir.path());
    let plan = plan_json(
        &p,
        &["--at", "6", "--policy", "forced", "--keep-recent", "1"],
    );
    let t2 = cand(&plan, "t2");
    assert_eq!(t2["dead_branch"], true);
    assert_eq!(t2["rank"], Value::Null);
    assert_ne!(t2["status"], "cleared");
    assert_eq!(cand(&plan, "t1")["rank"], 1);
    assert_eq!(cand(&plan, "t1")["dead_branch"], false);
    // t3 is the second compactable call of the live chain, and the one slot.
    assert_eq!(cand(&plan, "t3")["rank"], 2);
    assert_eq!(cand(&plan, "t3")["status"], "kept");
    assert_eq!(cand(&plan, "t1")["status"], "cleared");
    // Size counts the live results only: 400 + 1200.
    assert_eq!(plan["metadata"]["tool_result_chars_before"], 1600);
    // Before the fork the branch was live: t2 ranked and counted.
    let before = plan_json(
        &p,
        &["--at", "4", "--policy", "forced", "--keep-recent", "1"],
    );
    assert_eq!(cand(&before, "t2")["rank"], 2);
    assert_eq!(cand(&before, "t2")["dead_branch"], false);
    let text = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["plan", "--at", "6", "--color", "never"])
        .arg(&p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let line = text.lines().find(|l| l.contains("t2")).expect("t2 listed");
    assert!(line.contains("dead branch"), "{text}");
}

/// SPEC §15.1: not forks — parallel tool calls (the next tool_use line and the
/// first result share a parent, one `message.id`), a split response (two lines
/// of one `message.id` with the same parent), several `parentUuid: null` roots.
#[test]
fn s15_1_parallel_results_split_responses_and_roots_are_not_forks() {
    let dir = tempfile::tempdir().unwrap();
    let parallel = Tx::new()
        .c_prompt("c1", None, "p1")
        .c_use("c2", "c1", "msg_1", "t1", "Read")
        .c_use("c3", "c2", "msg_1", "t2", "Bash")
        .c_result("c4", "c2", "t1", 100)
        .c_result("c5", "c3", "t2", 100)
        .c_text("c6", "c4", "msg_2")
        .write(dir.path(), "parallel.jsonl");
    let split = Tx::new()
        .c_prompt("c1", None, "p1")
        .c_text("c2", "c1", "msg_1")
        .c_use("c3", "c1", "msg_1", "t1", "Bash")
        .c_result("c4", "c3", "t1", 100)
        .c_prompt("c5", Some("c2"), "and?")
        .c_text("c6", "c4", "msg_2")
        .c_text("c7", "c5", "msg_3")
        .write(dir.path(), "split.jsonl");
    let roots = Tx::new()
        .c_prompt("c1", None, "p1")
        .c_use("c2", "c1", "msg_1", "t1", "Bash")
        .c_result("c3", "c2", "t1", 100)
        .c_text("c4", "c3", "msg_2")
        .c_prompt("c5", None, "p2")
        .c_use("c6", "c5", "msg_3", "t2", "Bash")
        .c_result("c7", "c6", "t2", 100)
        .c_text("c8", "c7", "msg_4")
        .write(dir.path(), "roots.jsonl");
    for p in [parallel, split, roots] {
        let s = load(&p);
        assert!(!s.requests.is_empty());
        assert!(
            s.requests.iter().all(|r| r.dead.is_empty()),
            "{}: {:?}",
            p.display(),
            dead(&s)
        );
    }
}

/// A Qwen session with a `/rewind` to after the first turn (SPEC §2).
fn qwen_rewind(dir: &Path, subtype: &str) -> PathBuf {
    Tx::new()
        .q_prompt("q1", None, "p1")
        .q_call("q2", "q1", "k1")
        .q_result("q3", "q2", "k1", 400)
        .q_text("q4", "q3")
        .q_prompt("q5", Some("q4"), "p2")
        .q_call("q6", "q5", "k2")
        .q_result("q7", "q6", "k2", 800)
        .q_text("q8", "q7")
        .q_system("q9", "q4", subtype, json!({"truncatedCount": 4}))
        .q_prompt("q10", Some("q9"), "p2 again")
        .q_call("q11", "q10", "k3")
        .q_result("q12", "q11", "k3", 1200)
        .q_text("q13", "q12")
        .write(dir, &format!("qwen-{subtype}.jsonl"))
}

/// SPEC §2: Qwen's `rewind` record; the rewound turn is dead from the next request.
#[test]
fn s2_rewind_qwen_rewind_record_leaves_the_old_turn_dead() {
    let dir = tempfile::tempdir().unwrap();
    let p = qwen_rewind(dir.path(), "rewind");
    let s = load(&p);
    assert_eq!(s.requests.len(), 6);
    let d = dead(&s);
    assert!(d[..4].iter().all(Vec::is_empty), "{d:?}");
    assert_eq!(d[4..], [vec![4..8], vec![4..8]]);
    let plan = plan_json(
        &p,
        &["--at", "6", "--policy", "forced", "--keep-recent", "1"],
    );
    assert_eq!(cand(&plan, "k2")["dead_branch"], true);
    assert_eq!(cand(&plan, "k2")["rank"], Value::Null);
    assert_eq!(cand(&plan, "k3")["rank"], 2);
}

/// SPEC §2: a `branch_checkpoint` file follows the chain too; a linear one (the
/// checkpoint after an end_turn, a title re-appended off the tail) loses nothing.
#[test]
fn s2_rewind_qwen_branch_checkpoint_follows_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let s = load(&qwen_rewind(dir.path(), "branch_checkpoint"));
    assert_eq!(dead(&s)[5], vec![4..8]);
    let linear = Tx::new()
        .q_prompt("q1", None, "p1")
        .q_call("q2", "q1", "k1")
        .q_result("q3", "q2", "k1", 400)
        .q_text("q4", "q3")
        .q_system(
            "q5",
            "q4",
            "branch_checkpoint",
            json!({"v": 1, "startExclusiveRecordUuid": "q1", "assistantRecordUuid": "q4"}),
        )
        .q_system("q6", "q5", "custom_title", json!({"customTitle": "t"}))
        .q_prompt("q7", Some("q5"), "p2")
        .q_call("q8", "q7", "k2")
        .q_result("q9", "q8", "k2", 400)
        .q_text("q10", "q9")
        .write(dir.path(), "linear.jsonl");
    let s = load(&linear);
    assert_eq!(s.requests.len(), 4);
    assert!(
        s.requests.iter().all(|r| r.dead.is_empty()),
        "{:?}",
        dead(&s)
    );
}

/// Whether a transcript holds a rewind, read independently of the loader (SPEC
/// §15.1): a Qwen `rewind` / `branch_checkpoint` record, or two Claude
/// `user`/`assistant` records with one `parentUuid`, each with a
/// `user`/`assistant` descendant, not of one response (`message.id`; a tool
/// result belongs to the response holding its call).
fn has_fork(p: &Path) -> bool {
    let recs: Vec<Value> = std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|r: &Value| r["isSidechain"] != true)
        .collect();
    if recs.iter().any(|r| {
        r["type"] == "system" && (r["subtype"] == "rewind" || r["subtype"] == "branch_checkpoint")
    }) {
        return true;
    }
    let ua = |r: &Value| r["type"] == "user" || r["type"] == "assistant";
    let mut call_msg = std::collections::HashMap::new();
    for r in &recs {
        for b in r["message"]["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_use" {
                call_msg.insert(b["id"].clone(), r["message"]["id"].clone());
            }
        }
    }
    let group = |r: &Value| -> Value {
        if r["type"] == "assistant" {
            return r["message"]["id"].clone();
        }
        let blocks = r["message"]["content"].as_array();
        blocks
            .into_iter()
            .flatten()
            .find_map(|b| call_msg.get(&b["tool_use_id"]).cloned())
            .unwrap_or(Value::Null)
    };
    let parent_of: std::collections::HashMap<&Value, &Value> = recs
        .iter()
        .map(|r| (&r["uuid"], &r["parentUuid"]))
        .collect();
    // Records with a user/assistant descendant: walk up from every u/a record.
    let mut below = std::collections::HashSet::new();
    for r in recs.iter().filter(|r| ua(r)) {
        let mut at = &r["parentUuid"];
        let mut steps = 0;
        while at.is_string() && below.insert(at.clone()) && steps < recs.len() {
            at = parent_of.get(at).copied().unwrap_or(&Value::Null);
            steps += 1;
        }
    }
    let mut kids: std::collections::HashMap<&Value, Vec<Value>> = Default::default();
    for r in recs.iter().filter(|r| ua(r) && r["parentUuid"].is_string()) {
        if below.contains(&r["uuid"]) {
            kids.entry(&r["parentUuid"]).or_default().push(group(r));
        }
    }
    kids.values().any(|g| {
        g.iter()
            .enumerate()
            .any(|(i, a)| g[i + 1..].iter().any(|b| a.is_null() || a != b))
    })
}

/// SPEC §2: without a fork the chain and the file order are the same, on every
/// corpus file and sample (their JSON is unchanged: see `scripts/golden.sh`);
/// a corpus file with a real `/rewind` fork has a dead branch.
#[test]
fn s2_rewind_files_without_a_fork_keep_the_file_order() {
    let mut files = corpus::jsonl_files();
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-sessions")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            files.push(p);
        }
    }
    assert!(!files.is_empty());
    let mut dead_files = 0;
    for p in &files {
        let s = load(p);
        let none = s.requests.iter().all(|r| r.dead.is_empty());
        // A fork may leave nothing dead (local slash commands answered side by
        // side inside one user message), but no fork never does.
        assert!(none || has_fork(p), "{}: {:?}", p.display(), dead(&s));
        dead_files += usize::from(!none);
    }
    // The corpus holds one real `/rewind` (claude-code-log 03eb5929): its
    // abandoned turns are dead.
    if let Some(p) = files
        .iter()
        .find(|p| p.to_string_lossy().contains("03eb5929"))
    {
        let s = load(p);
        assert!(s.requests.iter().any(|r| !r.dead.is_empty()));
        assert!(dead_files >= 1);
    }
}

/// SPEC §2, §8: the TUI's age list marks a result on a dead branch; stepping
/// back with the keymap's `←` to a request before the rewind, it is live again.
#[test]
fn s15_1_tui_list_marks_dead_branch() {
    use mcscope::cli::{self, Opts};
    use mcscope::tui::app::App;
    use mcscope::tui::keymap;
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let dir = tempfile::tempdir().unwrap();
    let p = claude_fork(dir.path());
    let opts = Opts {
        at: Some("6".into()),
        ..Default::default()
    };
    let setup = cli::setup(&p, &opts).unwrap();
    let mut a = App::session_at(setup, 6);
    a.view_mut().unwrap().wait_background();
    let lines = screen::screen(&a, 160, 40);
    assert!(screen::row(&lines, "t2").contains("dead branch"));
    assert!(!screen::row(&lines, "t3").contains("dead branch"));
    let left = keymap::action_for(KeyEvent::from(KeyCode::Left), false).unwrap();
    for _ in 0..2 {
        a.update(left);
        a.view_mut().unwrap().wait_background();
    }
    assert_eq!(a.view().unwrap().k, 4);
    let lines = screen::screen(&a, 160, 40);
    assert!(!screen::has(&lines, "dead branch"), "{}", lines.join("\n"));
}

/// `mcscope wire PATH --at K --side S --json` (the body of request K).
fn wire_json(p: &Path, k: &str, side: &str, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["wire"])
        .arg(p)
        .args(["--at", k, "--side", side])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// SPEC §15.1: the messages of request k are the chain alone: after the fork,
/// neither body holds the abandoned prompt p2 or its tool loop, and the prefix
/// break is counted in the body without them.
#[test]
fn s15_1_the_wire_after_a_fork_holds_the_chain_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = claude_fork(dir.path());
    for side in ["local", "wire"] {
        let body = wire_json(&p, "6", side, &[]);
        let text = body.to_string();
        assert!(!text.contains("\"t2\""), "{side}: {text}");
        assert!(!text.contains("\"p2\""), "{side}: {text}");
        assert!(text.contains("p2 again, differently"), "{side}: {text}");
        // p1, use t1, result t1, text, p2', use t3, result t3: 7 messages.
        assert_eq!(body["messages"].as_array().unwrap().len(), 7, "{side}");
    }
    // Before the fork the branch was live and sent.
    let body = wire_json(&p, "4", "local", &[]);
    assert!(body.to_string().contains("\"t2\""));
    // forced keep 1 at 6 clears t1, in message 3 of the body (index 2).
    let plan = plan_json(
        &p,
        &["--at", "6", "--policy", "forced", "--keep-recent", "1"],
    );
    assert_eq!(plan["metadata"]["cache"]["prefix_broken_at_message"], 2);
    // The rewritten tokens from there are the body's, dead branch left out,
    // and the timeline (SPEC §9's figures) counts the same.
    let after = plan["metadata"]["cache"]["tokens_after_break"]
        .as_u64()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .arg("timeline")
        .arg(&p)
        .args(["--policy", "forced", "--keep-recent", "1", "--json"])
        .output()
        .unwrap();
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        t["requests"][5]["tokens_rewritten"].as_u64().unwrap(),
        after
    );
    let body = wire_json(
        &p,
        "6",
        "wire",
        &["--policy", "forced", "--keep-recent", "1"],
    );
    let from_t1: usize = body["messages"].as_array().unwrap()[2..]
        .iter()
        .map(|m| {
            let n: usize = m.to_string().encode_utf16().count();
            n.div_ceil(4)
        })
        .sum();
    assert_eq!(after as usize, from_t1);
}
