//! OpenCode through the real binary (SPEC §14, §15.14; `shared/reference/opencode.md`):
//! one test per rule of the reference, each named after its section, on
//! databases written here with the 1.18.33 schema (reference §1.2) and on the
//! sample `sample-sessions/opencode-build.db` (`scripts/make-opencode-sample.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::bin;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SAMPLE: &str = "sample-sessions/opencode-build.db";
const T0: i64 = 1_796_030_102_000;

/// Reference §1.2: the 1.18.33 tables mcscope reads (other columns left out).
const SCHEMA: &str = "
CREATE TABLE `session` ( `id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL,
  `cost` real DEFAULT 0 NOT NULL, `revert` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL );
CREATE TABLE `message` ( `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL );
CREATE TABLE `part` ( `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL );
";

/// A database under construction: messages and parts with ids made like
/// OpenCode's (reference §1.2: time-ordered hex, then a tail).
struct Db {
    conn: Connection,
    path: PathBuf,
    _dir: tempfile::TempDir,
    n: i64,
}

fn id(prefix: &str, n: i64) -> String {
    format!("{prefix}_{:012x}Tail{n:010}", (T0 + n) * 4096 + 1)
}

impl Db {
    fn new() -> Db {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        Db {
            conn,
            path,
            _dir: dir,
            n: 0,
        }
    }

    fn session(&self, id: &str, parent: Option<&str>, revert: Option<Value>) {
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, time_created, time_updated)
                 VALUES (?1, 'p', ?2, 's', '/home/dev/proj', ?3, '1.18.33', ?4, ?5, ?5)",
                rusqlite::params![id, parent, format!("title of {id}"), revert.map(|r| r.to_string()), T0],
            )
            .unwrap();
    }

    fn next(&mut self) -> i64 {
        self.n += 10;
        self.n
    }

    /// A user message with one text part; its id.
    fn user(&mut self, ses: &str, text: &str) -> String {
        let n = self.next();
        let mid = id("msg", n);
        self.message(
            ses,
            &mid,
            json!({"role": "user", "time": {"created": T0 + n}}),
        );
        self.part(ses, &mid, n + 1, json!({"type": "text", "text": text}));
        mid
    }

    /// An assistant message (a request) with `parts`; its id.
    fn assistant(&mut self, ses: &str, parent: &str, extra: Value, parts: Vec<Value>) -> String {
        let n = self.next();
        let mid = id("msg", n);
        let mut data = json!({"role": "assistant", "time": {"created": T0 + n, "completed": T0 + n + 5},
            "parentID": parent, "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build",
            "agent": "build", "cost": 0.01, "finish": "stop",
            "tokens": {"input": 3, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 100}}});
        for (k, v) in extra.as_object().unwrap() {
            data[k] = v.clone();
        }
        self.message(ses, &mid, data);
        for (i, p) in parts.into_iter().enumerate() {
            self.part(ses, &mid, n + 1 + i as i64, p);
        }
        mid
    }

    fn message(&self, ses: &str, mid: &str, data: Value) {
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![mid, ses, T0, data.to_string()],
            )
            .unwrap();
    }

    fn part(&self, ses: &str, mid: &str, n: i64, data: Value) {
        self.conn
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![id("prt", n), mid, ses, T0 + n, data.to_string()],
            )
            .unwrap();
    }

    fn p(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

fn tool(call: &str, name: &str, output: &str) -> Value {
    json!({"type": "tool", "callID": call, "tool": name, "state": {"status": "completed",
        "input": {"filePath": format!("/home/dev/proj/{call}.ts")}, "output": output, "title": call,
        "metadata": {}, "time": {"start": T0, "end": T0 + 1}}})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// The messages request `k` sends, as (role, [block type or text]).
fn wire(path: &str, extra: &[&str], k: usize) -> Vec<(String, Vec<String>)> {
    let at = k.to_string();
    let mut args = vec!["wire", path, "--at", &at];
    args.extend_from_slice(extra);
    let w = bin::json(&args);
    w["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let blocks = m["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| match b["type"].as_str().unwrap() {
                    "text" => b["text"].as_str().unwrap().to_string(),
                    "tool_use" => format!("use {}", b["id"].as_str().unwrap()),
                    "tool_result" => format!("result {}", b["tool_use_id"].as_str().unwrap()),
                    other => other.to_string(),
                })
                .collect();
            (m["role"].as_str().unwrap().to_string(), blocks)
        })
        .collect()
}

fn timeline(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["timeline", path, "-j"];
    args.extend_from_slice(extra);
    bin::json(&args)
}

/// Reference §1.2 "Order messages and parts by id": rows written out of order
/// (a tool part updated last, a message inserted late) are read in id order.
#[test]
fn s1_2_messages_and_parts_are_ordered_by_id() {
    let mut db = Db::new();
    db.session("ses_a", None, None);
    let u = db.user("ses_a", "first");
    let n = db.next();
    let a = id("msg", n);
    // Parts inserted last-first: the rows' order is not the ids'.
    db.part("ses_a", &a, n + 3, text("after the call"));
    db.part("ses_a", &a, n + 2, tool("call_b", "read", "B"));
    db.part("ses_a", &a, n + 1, tool("call_a", "read", "A"));
    db.message(
        "ses_a",
        &a,
        json!({"role": "assistant", "time": {"created": T0 + n}, "parentID": u, "finish": "tool-calls",
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
    );
    // A later user message inserted before an earlier one.
    let late = db.next();
    let early_n = db.next();
    let early = id("msg", late);
    db.message(
        "ses_a",
        &id("msg", early_n),
        json!({"role": "assistant", "time": {"created": T0 + early_n}, "parentID": early}),
    );
    db.message(
        "ses_a",
        &early,
        json!({"role": "user", "time": {"created": T0 + late}}),
    );
    db.part("ses_a", &early, late + 1, text("second"));
    let w = wire(db.p(), &[], 2);
    assert_eq!(
        w,
        [
            ("user".into(), vec!["first".to_string()]),
            (
                "assistant".into(),
                vec![
                    "use call_a".into(),
                    "use call_b".into(),
                    "after the call".into()
                ]
            ),
            (
                "user".into(),
                vec![
                    "result call_a".into(),
                    "result call_b".into(),
                    "second".into()
                ]
            ),
        ]
    );
}

/// Reference §1.4 "Request k is assistant message k": the sample's eight
/// assistant messages are eight requests; a request after a prompt begins a
/// turn, one after tool results continues the loop.
#[test]
fn s1_4_one_request_per_assistant_message() {
    let t = timeline(SAMPLE, &[]);
    assert_eq!(t["session"]["format"], "opencode-db");
    assert_eq!(t["session"]["harness"], "opencode");
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 8);
    let turns: Vec<bool> = reqs.iter().map(|r| r["begins_turn"] == true).collect();
    assert_eq!(
        turns,
        [true, false, false, false, true, true, false, true],
        "R1 and the prompts of turns 2, 3, 4 begin turns"
    );
    // SPEC §14: request.version is the session's recorded version.
    assert!(reqs.iter().all(|r| r["version"] == "1.18.33"));
    // Request 4 sends the three results of turn 1, whole (nothing is marked
    // before R8: the stored text is what was sent).
    let w = wire(SAMPLE, &[], 4);
    assert_eq!(w.len(), 7);
    let body = bin::json(&["wire", SAMPLE, "--at", "4"]);
    let bash = &body["messages"][4]["content"][0];
    assert_eq!(bash["tool_use_id"], "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe");
    assert_eq!(bash["content"].as_str().unwrap().len(), 239_999);
}

/// Reference §1.4 "session.revert hides messages after revert.messageID":
/// the reverted message and those after it are left out, with a warning.
#[test]
fn s1_4_revert_leaves_out_the_reverted_messages() {
    let mut db = Db::new();
    let u1 = db.user("ses_r", "one");
    db.assistant("ses_r", &u1, json!({}), vec![text("answer one")]);
    let u2 = db.user("ses_r", "two");
    db.assistant("ses_r", &u2, json!({}), vec![text("answer two")]);
    db.session("ses_r", None, Some(json!({"messageID": u2})));
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 1);
    let w = &t["session"]["warnings"];
    assert_eq!(w[0]["id"], "opencode_revert", "{w}");
    // Without the revert both turns are there.
    db.conn
        .execute("UPDATE session SET revert = NULL", [])
        .unwrap();
    assert_eq!(
        timeline(db.p(), &[])["requests"].as_array().unwrap().len(),
        2
    );
}

/// Reference §1.4 "The view starts at the last completed compaction" (1.3.2
/// `filterCompacted`): a user message with a `compaction` part whose summary
/// assistant finished; a failed summary does not move the view.
#[test]
fn s1_4_the_view_starts_at_the_last_completed_compaction() {
    let mut db = Db::new();
    db.session("ses_c", None, None);
    let u1 = db.user("ses_c", "old prompt");
    db.assistant("ses_c", &u1, json!({}), vec![text("old answer")]);
    // A compaction that failed: no new view.
    let n = db.next();
    let c1 = id("msg", n);
    db.message(
        "ses_c",
        &c1,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_c",
        &c1,
        n + 1,
        json!({"type": "compaction", "auto": true}),
    );
    db.assistant(
        "ses_c",
        &c1,
        json!({"summary": true, "error": {"name": "APIError"}}),
        vec![text("half a summary")],
    );
    let u2 = db.user("ses_c", "still the old view");
    db.assistant("ses_c", &u2, json!({}), vec![text("ok")]);
    assert_eq!(wire(db.p(), &[], 3)[0].1, ["old prompt"]);
    // A completed one: later requests send from it on.
    let n = db.next();
    let c2 = id("msg", n);
    db.message(
        "ses_c",
        &c2,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_c",
        &c2,
        n + 1,
        json!({"type": "compaction", "auto": true}),
    );
    db.assistant(
        "ses_c",
        &c2,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u3 = db.user("ses_c", "new prompt");
    db.assistant("ses_c", &u3, json!({}), vec![text("fine")]);
    let w = wire(db.p(), &[], 5);
    assert_eq!(
        w,
        [
            ("user".into(), vec!["What did we do so far?".to_string()]),
            ("assistant".into(), vec!["the summary".into()]),
            ("user".into(), vec!["new prompt".into()]),
        ]
    );
}

/// Reference §1.3 `parentID` / §5.7: a sub-agent (`task`) session is planned
/// as a what-if (SPEC §2).
#[test]
fn s1_3_a_sub_agent_session_is_a_what_if() {
    let mut db = Db::new();
    db.session("ses_main", None, None);
    db.session("ses_child", Some("ses_main"), None);
    let u = db.user("ses_main", "go");
    db.assistant("ses_main", &u, json!({}), vec![text("done")]);
    let c = db.user("ses_child", "sub task");
    db.assistant("ses_child", &c, json!({}), vec![text("sub done")]);
    let main = timeline(db.p(), &["--session", "ses_main"]);
    assert_eq!(main["session"]["subagent_what_if"], false);
    let child = timeline(db.p(), &["--session", "ses_child"]);
    assert_eq!(child["session"]["subagent_what_if"], true);
    assert_eq!(
        wire(db.p(), &["--session", "ses_child"], 1)[0].1,
        ["sub task"]
    );
}

/// SPEC §15.14 `--session ID`: without it a database of several sessions is
/// exit 2 listing them; an unknown id is exit 2 too; every subcommand takes it.
#[test]
fn s15_14_session_chooses_one_session_of_a_database() {
    let mut db = Db::new();
    db.session("ses_one", None, None);
    db.session("ses_two", None, None);
    let u = db.user("ses_one", "one");
    db.assistant("ses_one", &u, json!({}), vec![text("a")]);
    let u = db.user("ses_two", "two");
    db.assistant("ses_two", &u, json!({}), vec![text("b")]);
    db.assistant("ses_two", &u, json!({}), vec![text("c")]);
    for cmd in ["plan", "timeline", "evidence", "wire"] {
        let (code, out, err) = bin::run(&[cmd, db.p()]);
        assert_eq!(code, 2, "{cmd}: {out}");
        assert!(
            err.contains("2 sessions in this database; choose one with --session ID"),
            "{err}"
        );
        assert!(err.contains("ses_one") && err.contains("ses_two"), "{err}");
        let (code, _, err) = bin::run(&[cmd, db.p(), "--session", "ses_two"]);
        assert_eq!(code, 0, "{cmd}: {err}");
    }
    let t = timeline(db.p(), &["--session", "ses_two"]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let (code, _, err) = bin::run(&["plan", db.p(), "--session", "ses_nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no session \"ses_nope\""), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A file's bytes and mtime, None when it does not exist.
type FileState = Option<(Vec<u8>, std::time::SystemTime)>;

/// The database's files: bytes and mtime of each, and which exist beside it.
fn snapshot(db: &Path) -> Vec<(String, FileState)> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|s| {
            let p = PathBuf::from(format!("{}{s}", db.display()));
            let f = std::fs::read(&p)
                .ok()
                .map(|b| (b, std::fs::metadata(&p).unwrap().modified().unwrap()));
            (s.to_string(), f)
        })
        .collect()
}

/// Reference §1.1 / SPEC §15.14 "opened mode=ro": a database in rollback mode
/// is read in place, and nothing beside it is created or changed.
#[test]
fn s1_1_a_database_is_read_without_writing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let before = snapshot(&db);
    assert!(before[1].1.is_none() && before[2].1.is_none());
    bin::json(&["timeline", db.to_str().unwrap(), "-j"]);
    assert_eq!(snapshot(&db), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// Reference §1.1 "The database runs in WAL mode … with a live writer the
/// newest rows may still be in the WAL" / SPEC §15.14: a live OpenCode holds
/// the WAL; mcscope reads a copy, sees the rows only the WAL has, and leaves
/// the database, its `-wal` and its `-shm` as they were.
#[test]
fn s1_1_a_live_wal_database_is_read_from_a_copy() {
    let mut db = Db::new();
    db.conn
        .execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
        .unwrap();
    db.session("ses_w", None, None);
    let u = db.user("ses_w", "in the wal");
    db.assistant("ses_w", &u, json!({}), vec![text("also in the wal")]);
    // The writer stays open (a live OpenCode): the rows are only in the WAL.
    let before = snapshot(&db.path);
    assert!(before[1].1.is_some(), "a -wal beside the database");
    let w = wire(db.p(), &[], 1);
    assert_eq!(w[0].1, ["in the wal"]);
    assert_eq!(snapshot(&db.path), before, "nothing beside it changed");
    // The writer still owns it: it can write on.
    let u = db.user("ses_w", "written after the read");
    assert!(!u.is_empty());
}

/// A database that cannot be read is one line and exit 2, never a panic:
/// corrupt, not SQLite at all, or of a schema mcscope does not know.
#[test]
fn a_corrupt_or_unknown_database_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&corrupt, bytes).unwrap();
    let (code, out, err) = bin::run(&["timeline", corrupt.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty());
    assert!(err.starts_with("mcscope: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Half a real database: its pages cut off.
    let half = dir.path().join("half.db");
    let sample = std::fs::read(SAMPLE).unwrap();
    std::fs::write(&half, &sample[..sample.len() / 3]).unwrap();
    let (code, _, err) = bin::run(&["plan", half.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Another program's database.
    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (id text, body text);")
        .unwrap();
    let (code, _, err) = bin::run(&["plan", other.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown schema") && err.contains("no table `session`"),
        "{err}"
    );
}

/// A database locked by a writer (rollback mode, exclusive lock held) is
/// "busy", exit 2, after a short wait.
#[test]
fn a_busy_database_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let writer = Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE session SET title = 'x';",
        )
        .unwrap();
    let (code, _, err) = bin::run(&["plan", db.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("busy"), "{err}");
    drop(writer);
}

/// Reference §1.1 (≤ 1.1): the same session as JSON files under `storage/`.
#[test]
fn s1_1_the_json_tree_of_1_1_is_read_like_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("storage");
    let w = |rel: &str, v: Value| {
        let p = st.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    let ses = "ses_j";
    let (m1, m2, m3) = (id("msg", 1), id("msg", 2), id("msg", 3));
    w(
        &format!("session/global/{ses}.json"),
        json!({"id": ses, "projectID": "global", "slug": "s", "directory": "/d", "title": "t",
            "version": "1.1.65", "time": {"created": T0, "updated": T0}}),
    );
    w(
        &format!("message/{ses}/{m1}.json"),
        json!({"id": m1, "sessionID": ses, "role": "user", "time": {"created": T0}}),
    );
    w(
        &format!("part/{m1}/{}.json", id("prt", 1)),
        json!({"id": id("prt", 1), "sessionID": ses, "messageID": m1, "type": "text", "text": "hi"}),
    );
    for (m, n) in [(&m2, 2), (&m3, 3)] {
        w(
            &format!("message/{ses}/{m}.json"),
            json!({"id": m, "sessionID": ses, "role": "assistant", "parentID": m1,
                "time": {"created": T0 + n}, "finish": "tool-calls",
                "tokens": {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
        );
        let p = id("prt", n * 10);
        let mut part = tool(&format!("call_{n}"), "bash", "out");
        part["id"] = json!(p);
        part["messageID"] = json!(m);
        w(&format!("part/{m}/{p}.json"), part);
    }
    let path = st.join(format!("session/global/{ses}.json"));
    let t = timeline(path.to_str().unwrap(), &[]);
    assert_eq!(t["session"]["format"], "opencode-json");
    // Two assistant messages, and the results of the last one still to send
    // (the loop stopped before its next step): a trailing request.
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 3);
    assert_eq!(t["session"]["responses"], 2);
    assert_eq!(t["requests"][1]["version"], "1.1.65");
    let w2 = wire(path.to_str().unwrap(), &[], 2);
    assert_eq!(w2[2].1, ["result call_2"]);
}

/// Reference §1.3 `tokens` and `cost` / SPEC §14, §15.14: each assistant
/// message's usage is a response's (input, cache writes and reads, output with
/// the reasoning tokens), and `recorded.harness_usd` is the sum of OpenCode's
/// own `cost`, beside mcscope's price.
#[test]
fn s1_3_tokens_and_cost_are_the_recorded_bill() {
    let r = &timeline(SAMPLE, &[])["session"]["recorded"];
    assert_eq!(r["responses"], 8);
    // Σ over the sample's eight messages (scripts/make-opencode-sample.py).
    assert_eq!(r["input"], 27);
    assert_eq!(r["output"], 456);
    assert_eq!(r["cache_write_5m"], 148_160);
    assert_eq!(r["cache_read"], 242_430);
    assert_eq!(r["harness_usd"], 0.4914);
    assert!(r["usd"].as_f64().is_some(), "claude-sonnet-4-5 has a price");
    // Reasoning tokens count as output; a message without `tokens` has no usage.
    let mut db = Db::new();
    db.session("ses_t", None, None);
    let u = db.user("ses_t", "think");
    db.assistant(
        "ses_t",
        &u,
        json!({"cost": 0.25, "tokens": {"input": 5, "output": 7, "reasoning": 11, "cache": {"read": 13, "write": 17}}}),
        vec![text("a")],
    );
    db.assistant(
        "ses_t",
        &u,
        json!({"cost": 0.5, "tokens": null}),
        vec![text("b")],
    );
    let r = &timeline(db.p(), &[])["session"]["recorded"];
    assert_eq!(r["responses"], 1);
    assert_eq!(
        (
            &r["input"],
            &r["output"],
            &r["cache_read"],
            &r["cache_write_5m"]
        ),
        (&json!(5), &json!(18), &json!(13), &json!(17))
    );
    assert_eq!(r["harness_usd"], 0.75);
    // A harness that records no cost has no such key.
    let c = bin::json(&["timeline", "sample-sessions/claude-demo.jsonl", "-j"]);
    assert!(c["session"]["recorded"].get("harness_usd").is_none());
}

/// SPEC §15.14 / issue #29 item 1: `mcscope opencode.db` opens a picker of the
/// database's sessions (newest first, a sub-agent session under its parent,
/// counts from the rows), and Enter opens the chosen one (`--session ID`).
#[test]
fn s15_14_a_database_opens_a_picker_of_its_sessions() {
    use mcscope::tui::picker::{Picker, Row};
    let mut db = Db::new();
    db.session("ses_old", None, None);
    db.session("ses_sub", Some("ses_old"), None);
    db.session("ses_new", None, None);
    db.conn
        .execute(
            "UPDATE session SET time_updated = time_updated + 100 WHERE id = 'ses_new'",
            [],
        )
        .unwrap();
    let u = db.user("ses_old", "old");
    db.assistant(
        "ses_old",
        &u,
        json!({}),
        vec![tool("c1", "read", "x"), text("a")],
    );
    db.assistant("ses_old", &u, json!({}), vec![text("b")]);
    let u = db.user("ses_sub", "sub");
    db.assistant("ses_sub", &u, json!({}), vec![text("c")]);
    let u = db.user("ses_new", "new");
    db.assistant("ses_new", &u, json!({}), vec![text("d")]);
    let format = mcscope::load::sniff(&db.path).unwrap();
    assert!(mcscope::load::holds_sessions(format));
    let sessions = mcscope::load::database_sessions(&db.path).unwrap();
    let mut p = Picker::of_database("db".into(), &db.path, format, &sessions);
    let ids: Vec<String> = p
        .rows
        .iter()
        .map(|r| match *r {
            Row::File(i) => p.entries[i].session.clone().unwrap(),
            Row::Thread(..) => panic!("no threads in a database"),
        })
        .collect();
    assert_eq!(ids, ["ses_new", "ses_old", "ses_sub"]);
    let old = p
        .entries
        .iter()
        .position(|e| e.session.as_deref() == Some("ses_old"))
        .unwrap();
    let sub = p
        .entries
        .iter()
        .position(|e| e.session.as_deref() == Some("ses_sub"))
        .unwrap();
    assert_eq!(p.parent_of(sub), Some(old));
    let s = p.entries[old].summary.as_ref().unwrap();
    assert_eq!((s.requests, s.results), (2, 1));
    assert_eq!(s.prompt.as_deref(), Some("title of ses_old"));
    p.selected = 1;
    let t = p.target().unwrap();
    assert_eq!(t.session.as_deref(), Some("ses_old"));
    // What Enter loads: that session.
    let (setup, _) = mcscope::tui::load_target(
        &t,
        &mcscope::cli::Opts::default(),
        &std::sync::atomic::AtomicU64::new(0),
    )
    .unwrap();
    assert_eq!(setup.session.session_id.as_deref(), Some("ses_old"));
    assert_eq!(setup.session.requests.len(), 2);
}
