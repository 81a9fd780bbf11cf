//! OpenCode through the real binary (SPEC §14, §15.14; `shared/reference/opencode.md`):
//! one test per rule of the reference, each named after its section, on
//! databases written here with the 1.18.33 schema (reference §1.2) and on the
//! sample `sample-sessions/opencode-build.db` (`scripts/make-opencode-sample.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/screen.rs"]
mod screen;

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

    /// Message `mid`'s `time.<field>` (`created`, `completed`).
    fn time(&self, mid: &str, field: &str) -> i64 {
        self.conn
            .query_row(
                &format!("SELECT json_extract(data, '$.time.{field}') FROM message WHERE id = ?1"),
                [mid],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// OpenCode's prune mark on the part of call `call`, written at `ms`.
    fn mark(&self, call: &str, ms: i64) {
        self.conn
            .execute(
                "UPDATE part SET data = json_set(data, '$.state.time.compacted', ?1) WHERE json_extract(data, '$.callID') = ?2",
                rusqlite::params![ms, call],
            )
            .unwrap();
    }
}

/// `plan --at k` says at every request what the timeline says there (whether
/// it fired, and why): prune's memory spans views, so a plan that starts at its
/// view would forget the marks made before it.
fn plans_agree_with_timeline(path: &str, extra: &[&str]) {
    let mut args = vec!["timeline", path, "-j"];
    args.extend_from_slice(extra);
    let t = bin::json(&args);
    for r in t["requests"].as_array().unwrap() {
        let at = r["index"].to_string();
        let mut args = vec!["plan", path, "--at", &at, "-j"];
        args.extend_from_slice(extra);
        let plan = bin::json(&args);
        assert_eq!(plan["fired"], r["fired"], "request {at}: {}", plan["note"]);
        assert_eq!(plan["note"], r["note"], "request {at}");
    }
}

/// The reason `plan --at k` gives for call `id`'s result.
fn reason(path: &str, extra: &[&str], k: usize, id: &str) -> String {
    let at = k.to_string();
    let mut args = vec!["plan", path, "--at", &at, "-j"];
    args.extend_from_slice(extra);
    let plan = bin::json(&args);
    let c = plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == id)
        .unwrap();
    c["reason"].as_str().unwrap().to_string()
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

/// Reference §1.4 "session.revert hides messages after revert.messageID"
/// until the next prompt cleans them up: the hidden messages are the session's
/// tail, left out of OpenCode's *next* request. Their requests were sent and
/// billed before the revert (SPEC §15.1's reading for a rewound branch), so
/// they stay in the timeline and in `recorded.harness_usd`, with a warning.
#[test]
fn s1_4_revert_warns_and_keeps_the_billed_requests() {
    let mut db = Db::new();
    let u1 = db.user("ses_r", "one");
    db.assistant("ses_r", &u1, json!({}), vec![text("answer one")]);
    let u2 = db.user("ses_r", "two");
    db.assistant("ses_r", &u2, json!({}), vec![text("answer two")]);
    db.session("ses_r", None, Some(json!({"messageID": u2})));
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let w = &t["session"]["warnings"];
    assert_eq!(w[0]["id"], "opencode_revert", "{w}");
    assert!(
        w[0]["text"]
            .as_str()
            .unwrap()
            .contains("leaves out 2 message(s), from that one on"),
        "{w}"
    );
    // Both answers' `cost` (0.01 each) are in OpenCode's own bill.
    let usd = t["session"]["recorded"]["harness_usd"].as_f64().unwrap();
    assert!((usd - 0.02).abs() < 1e-9, "{usd}");
    // Without the revert: the same requests, no warning.
    db.conn
        .execute("UPDATE session SET revert = NULL", [])
        .unwrap();
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    assert_eq!(t["session"]["warnings"], json!([]));
}

/// Reference §1.4 "The view starts at the last completed compaction" (1.3.2
/// `filterCompacted`): a user message with a `compaction` part whose summary
/// assistant finished; a failed summary does not move the view. The new view
/// holds the compaction's ask and the summary, and starts after the summary's
/// own request.
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
    // The summary's own request (4) is sent before the new view: the view it
    // summarizes and the compaction's ask (1.3.2 `SessionCompaction.process`).
    let w4 = wire(db.p(), &[], 4);
    assert_eq!(w4[0].1, ["old prompt"], "{w4:?}");
    assert_eq!(
        w4.last().unwrap(),
        &(
            "user".to_string(),
            vec!["What did we do so far?".to_string()]
        )
    );
    assert!(
        w4.iter().any(|(_, b)| b == &["still the old view"]),
        "{w4:?}"
    );
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

/// 1.18 `filterCompacted` (grep `if(!z.tail_start_id)break`, the binary of
/// 1.18.33): a compaction part's `tail_start_id` keeps the messages from there
/// up to the compaction verbatim, after the summary. The retained results are
/// candidates of the new view, where the prune scan meets them in their stored
/// place (before the compaction), and a prune mark on one shows in its copy.
#[test]
fn s1_4_a_compaction_s_tail_start_id_keeps_the_latest_turn_after_the_summary() {
    let mut db = Db::new();
    db.session("ses_t", None, None);
    let u1 = db.user("ses_t", "turn 1");
    db.assistant(
        "ses_t",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("a", "read", "A")],
    );
    db.assistant("ses_t", &u1, json!({}), vec![text("one")]);
    let u2 = db.user("ses_t", "turn 2");
    db.assistant(
        "ses_t",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![tool("b", "read", "B")],
    );
    db.assistant("ses_t", &u2, json!({}), vec![text("two")]);
    let n = db.next();
    let c = id("msg", n);
    db.message(
        "ses_t",
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_t",
        &c,
        n + 1,
        json!({"type": "compaction", "auto": false, "tail_start_id": u2}),
    );
    db.assistant(
        "ses_t",
        &c,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u3 = db.user("ses_t", "turn 3");
    db.assistant("ses_t", &u3, json!({}), vec![text("three")]);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // Request 5 (the summary's) sends the old view and the ask.
    let w5 = wire(db.p(), &[], 5);
    assert_eq!(w5[0].1, s(&["turn 1"]), "{w5:?}");
    // Request 6: the ask, the summary, turn 2 verbatim, then turn 3.
    let w6 = wire(db.p(), &[], 6);
    let got: Vec<(String, Vec<String>)> = w6;
    assert_eq!(
        got,
        [
            ("user".to_string(), s(&["What did we do so far?"])),
            ("assistant".into(), s(&["the summary"])),
            ("user".into(), s(&["turn 2"])),
            ("assistant".into(), s(&["use b"])),
            ("user".into(), s(&["result b"])),
            ("assistant".into(), s(&["two"])),
            ("user".into(), s(&["turn 3"])),
        ]
    );
    // Six requests: the tail is in the view again, never sent as a response.
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 6);
    // Without the tail the new view starts at the ask.
    db.conn
        .execute(
            "UPDATE part SET data = json_remove(data, '$.tail_start_id') WHERE json_extract(data, '$.type') = 'compaction'",
            [],
        )
        .unwrap();
    let w6 = wire(db.p(), &[], 6);
    assert_eq!(w6.len(), 3, "{w6:?}");
}

/// Reference §2.3 over a 1.18 retained tail: the scan reads messages in their
/// stored order, so a retained result is met before the compaction, behind the
/// summary once the summary is past two user messages, even though the view
/// sends its copy after the summary.
#[test]
fn s2_3_a_retained_tail_is_scanned_in_its_stored_place() {
    let mut db = Db::new();
    db.session("ses_r", None, None);
    let u1 = db.user("ses_r", "turn 1");
    db.assistant(
        "ses_r",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant("ses_r", &u1, json!({}), vec![text("one")]);
    let u2 = db.user("ses_r", "turn 2");
    db.assistant(
        "ses_r",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![tool("big", "bash", &out(30_000))],
    );
    db.assistant("ses_r", &u2, json!({}), vec![text("two")]);
    let n = db.next();
    let c = id("msg", n);
    db.message(
        "ses_r",
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_r",
        &c,
        n + 1,
        json!({"type": "compaction", "auto": false, "tail_start_id": u2}),
    );
    db.assistant(
        "ses_r",
        &c,
        json!({"summary": true}),
        vec![text("the summary")],
    );
    let u4 = db.user("ses_r", "turn 4");
    db.assistant(
        "ses_r",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "read", &out(40_000))],
    );
    db.assistant("ses_r", &u4, json!({}), vec![text("four")]);
    for turn in ["turn 5", "turn 6", "turn 7"] {
        let u = db.user("ses_r", turn);
        db.assistant("ses_r", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
    // Request 8 (turn 5): the scan passes turn 4's prompt and the compaction's,
    // skips the summary, counts "big" (30,000, protected) and goes on to "old"
    // in the view before: 25,000 > 20,000 marked there. At 10 (turn 7) the
    // summary is past two user messages: "new" (40,000) alone is counted, and
    // "big" is behind the summary.
    assert_eq!(
        fired,
        [
            false, false, false, false, false, false, false, true, false, false
        ]
    );
    let why = reason(db.p(), &["--policy", "prune"], 10, "big");
    assert!(why.contains("older than a compaction summary"), "{why}");
}

/// Reference §1.4 "In the wire": an `error` part is sent as its `state.error`
/// (`output-error`), a `pending` or `running` one as "[Tool execution was
/// interrupted]"; neither is a prune candidate (§2.3), and a completed one is
/// sent as its `state.output`.
#[test]
fn s1_4_error_and_unfinished_parts_in_the_wire() {
    let mut db = Db::new();
    db.session("ses_w", None, None);
    let u = db.user("ses_w", "go");
    let failed = json!({"type": "tool", "callID": "bad", "tool": "bash", "state": {"status": "error",
        "input": {"command": "false"}, "error": "exit 1: no such file", "time": {"start": T0, "end": T0 + 1}}});
    let running = json!({"type": "tool", "callID": "cut", "tool": "bash", "state": {"status": "running",
        "input": {"command": "sleep 99"}, "time": {"start": T0}}});
    db.assistant(
        "ses_w",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("ok", "read", "the text"), failed, running],
    );
    db.assistant("ses_w", &u, json!({}), vec![text("done")]);
    let w = bin::json(&["wire", db.p(), "--at", "2"]);
    let results = &w["messages"][2]["content"];
    assert_eq!(results[0]["tool_use_id"], "ok");
    assert_eq!(results[0]["content"], "the text");
    assert_eq!(results[1]["tool_use_id"], "bad");
    assert_eq!(results[1]["content"], "exit 1: no such file");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[2]["tool_use_id"], "cut");
    assert_eq!(results[2]["content"], "[Tool execution was interrupted]");
    // The calls stay beside them.
    let calls: Vec<&str> = w["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(calls, ["ok", "bad", "cut"]);

    // 1.18.33 `toModelMessages`: an interrupted tool's output so far is sent;
    // a failed response is left out of later requests (an aborted one only
    // with nothing but reasoning); a `text/plain` file part and an empty text
    // are not sent (the file's content is in a text part).
    let mut db = Db::new();
    db.session("ses_v", None, None);
    let u = db.user("ses_v", "go");
    db.part(
        "ses_v",
        &u,
        db.n + 2,
        json!({"type": "file", "mime": "text/plain", "filename": "a.txt", "url": "file:///a.txt"}),
    );
    db.part("ses_v", &u, db.n + 3, json!({"type": "text", "text": ""}));
    let stopped = json!({"type": "tool", "callID": "stopped", "tool": "bash", "state": {"status": "error",
        "input": {"command": "make"}, "error": "Tool execution aborted",
        "metadata": {"interrupted": true, "output": "compiling…"}, "time": {"start": T0, "end": T0 + 1}}});
    db.assistant("ses_v", &u, json!({"finish": "tool-calls"}), vec![stopped]);
    db.assistant(
        "ses_v",
        &u,
        json!({"finish": null, "error": {"name": "APIError", "data": {"message": "overloaded"}}}),
        vec![text("half an answer")],
    );
    db.assistant("ses_v", &u, json!({}), vec![text("done")]);
    let w = wire(db.p(), &[], 3);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(w[0], ("user".to_string(), s(&["go"])), "{w:?}");
    assert!(
        !w.iter()
            .any(|(_, b)| b.iter().any(|x| x.contains("half an answer"))),
        "{w:?}"
    );
    let body = bin::json(&["wire", db.p(), "--at", "3"]);
    assert_eq!(body["messages"][2]["content"][0]["content"], "compiling…");
}

/// Reference §2.2: a prompt sent while the loop runs joins it (1.18.33: the
/// loop reads it at its next step, `lastUser.id < lastAssistant.id` fails), so
/// no prune runs between; nor after a compaction's summary that a synthetic
/// continue follows. And the summary request sends the summarizer's prompt (no
/// tools, no system prompt in 1.18.33), so its cache break is the compaction's.
#[test]
fn s2_2_a_queued_prompt_joins_the_loop_and_the_summary_s_break_is_the_compaction_s() {
    let mut db = Db::new();
    db.session("ses_q", None, None);
    turn_one(&mut db, "ses_q");
    let u2 = db.user("ses_q", "turn 2");
    db.assistant("ses_q", &u2, json!({}), vec![text("ok")]);
    let u3 = db.user("ses_q", "turn 3");
    let a3 = db.assistant("ses_q", &u3, json!({}), vec![text("ok")]);
    // Typed while turn 3's answer was still streaming.
    let u4 = db.user("ses_q", "queued");
    let done = db.time(&a3, "completed");
    db.conn
        .execute(
            "UPDATE message SET data = json_set(data, '$.time.created', ?1) WHERE id = ?2",
            rusqlite::params![done - 1, u4],
        )
        .unwrap();
    db.assistant("ses_q", &u4, json!({}), vec![text("ok")]);
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    // Requests: 1–3 turn 1, 4 turn 2, 5 turn 3, 6 the queued prompt (same loop).
    assert_eq!(reqs.len(), 6);
    assert_eq!(reqs[5]["fired"], false, "{}", reqs[5]["note"]);
    assert!(
        reqs[5]["note"]
            .as_str()
            .unwrap()
            .contains("none ended just before")
    );
    // Not queued: loop 3 ended, and the scan takes turn 1's results.
    db.conn
        .execute(
            "UPDATE message SET data = json_set(data, '$.time.created', ?1) WHERE id = ?2",
            rusqlite::params![done + 1, u4],
        )
        .unwrap();
    let t = timeline(db.p(), &["--policy", "prune"]);
    assert_eq!(t["requests"][5]["newly_cleared"], json!(["old"]));

    // The summary request reads nothing from the cache.
    let mut db = Db::new();
    db.session("ses_s", None, None);
    let u1 = db.user("ses_s", "turn 1");
    let big = json!({"tokens": {"input": 3, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 50000}}});
    db.assistant("ses_s", &u1, big, vec![text("one")]);
    compaction(&mut db, "ses_s", false);
    let t = timeline(db.p(), &[]);
    let b = &t["requests"][1]["evidence"]["observed_break"];
    assert_eq!(b["explanations"], json!(["compaction"]), "{b}");
}

/// 1.18.33 `SessionPrompt.shellImpl`: a `!command` the user runs is stored as
/// a user message holding only a synthetic note and a response with no
/// `finish` holding the shell's part. It sends no model request; later
/// requests carry it as history.
#[test]
fn s1_4_a_shell_command_is_history_without_a_request() {
    let mut db = Db::new();
    db.session("ses_sh", None, None);
    let u1 = db.user("ses_sh", "turn 1");
    db.assistant("ses_sh", &u1, json!({}), vec![text("one")]);
    let n = db.next();
    let note = id("msg", n);
    db.message(
        "ses_sh",
        &note,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_sh",
        &note,
        n + 1,
        json!({"type": "text", "synthetic": true, "text": "The following tool was executed by the user"}),
    );
    db.assistant(
        "ses_sh",
        &note,
        json!({"finish": null, "cost": 0}),
        vec![tool("sh", "bash", "ls output")],
    );
    let u2 = db.user("ses_sh", "turn 2");
    db.assistant("ses_sh", &u2, json!({}), vec![text("two")]);
    let t = timeline(db.p(), &[]);
    assert_eq!(t["requests"].as_array().unwrap().len(), 2);
    let w = wire(db.p(), &[], 2);
    assert!(
        w.iter().any(|(_, b)| b.iter().any(|x| x == "result sh")),
        "{w:?}"
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
    // SPEC §9a: the sub-agent's responses are billed beside the main thread's.
    let sub = &main["session"]["recorded"]["subagents"];
    assert_eq!(sub["responses"], 1, "{sub}");
    assert_eq!(sub["cache_write_5m"], 100);
    assert_eq!(main["session"]["recorded"]["responses"], 1);
    assert!(child["session"]["recorded"]["subagents"].is_null());
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
/// newest rows may still be in the WAL" / SPEC §15.14, §18.22: a live
/// OpenCode holds the WAL (its `-wal` and `-shm` are regular files); mcscope
/// reads it `mode=ro` in place, sees the rows only the WAL has, and leaves
/// the database and its `-wal` as they were and creates nothing (its read
/// marks in the existing `-shm` are SQLite's lock protocol, §18.22).
#[test]
fn s1_1_a_live_wal_database_is_read_in_place() {
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
    let after = snapshot(&db.path);
    assert_eq!(
        after[..2],
        before[..2],
        "the database and its -wal unchanged"
    );
    assert_eq!(
        after
            .iter()
            .map(|(s, f)| (s, f.is_some()))
            .collect::<Vec<_>>(),
        before
            .iter()
            .map(|(s, f)| (s, f.is_some()))
            .collect::<Vec<_>>(),
        "no file created or removed beside it"
    );
    assert_eq!(
        std::fs::read_dir(db.path.parent().unwrap())
            .unwrap()
            .count(),
        3
    );
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

/// A one-part tool output of `tokens` tokens by OpenCode's `round(len/4)`.
fn out(tokens: usize) -> String {
    "x".repeat(tokens * 4)
}

/// The ids request `k` sends as the placeholder, from the wire.
fn placeholders(path: &str, extra: &[&str], k: usize) -> Vec<String> {
    let at = k.to_string();
    let mut args = vec!["wire", path, "--at", &at];
    args.extend_from_slice(extra);
    let w = bin::json(&args);
    let mut ids = Vec::new();
    for m in w["messages"].as_array().unwrap() {
        for b in m["content"].as_array().unwrap() {
            if b["type"] == "tool_result" && b["content"] == "[Old tool result content cleared]" {
                ids.push(b["tool_use_id"].as_str().unwrap().to_string());
            }
        }
    }
    ids
}

/// Reference §4, the worked example's extension: after turn 3 prune scans
/// grep (2,000, protected), bash (60,000: total 62,000 > 40,000) and read
/// (500): 60,500 > 20,000, so the bash and the read are marked; request 8,
/// the first of turn 4, sends the placeholder for both; the grep stays.
#[test]
fn s4_the_worked_example_prunes_the_bash_and_the_read() {
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<usize> = reqs
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(fired, [8]);
    assert_eq!(reqs[7]["trigger"], "prune");
    assert_eq!(reqs[7]["tokens_saved"], 60_500);
    let mut cleared: Vec<String> = reqs[7]["newly_cleared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    cleared.sort();
    assert_eq!(
        cleared,
        [
            "toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD",
            "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"
        ]
    );
    let mut wire = placeholders(SAMPLE, &["--policy", "prune"], 8);
    wire.sort();
    assert_eq!(wire, cleared);
    assert!(placeholders(SAMPLE, &["--policy", "prune"], 7).is_empty());
    // The grep is kept: within the newest 40,000 tokens.
    let plan = bin::json(&["plan", SAMPLE, "--policy", "prune", "--at", "8", "-j"]);
    let grep = plan["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_01Rc7Vn2Hs5Qw8Lm1Xk4PzTb")
        .unwrap()
        .clone();
    assert_eq!(grep["status"], "kept", "{grep}");
    assert_eq!(grep["est_tokens"], 2000, "{grep}");
    // SPEC §15.13: OpenCode's own estimate beside mcscope's.
    assert_eq!(grep["harness_tokens"], 2000, "{grep}");
    assert!(
        grep["reason"].as_str().unwrap().contains("newest 40,000"),
        "{grep}"
    );
}

/// Reference §2.2 "It runs once per finished prompt loop": never at a request
/// that continues a loop, and its marks show from the next turn's first request.
#[test]
fn s2_2_prune_runs_after_a_loop_so_it_changes_the_next_turn() {
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    for r in t["requests"].as_array().unwrap() {
        if r["begins_turn"] == false {
            assert_eq!(r["fired"], false);
            assert!(r["note"].as_str().unwrap().contains("continues one"), "{r}");
        }
    }
}

/// Reference §2.2 "once per finished prompt loop" (1.18.33: `prune` is forked
/// after the loop; a cancel interrupts the loop's fiber, so no prune follows an
/// aborted loop), and §2.3 "every user message counts", those there when the
/// loop ended: a prompt that came later (one that got no reply) is not.
#[test]
fn s2_2_no_prune_after_an_interrupted_loop_and_later_prompts_are_not_counted() {
    for aborted in [true, false] {
        let mut db = Db::new();
        db.session("ses_u", None, None);
        let u1 = db.user("ses_u", "turn 1");
        db.assistant(
            "ses_u",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(25_000))],
        );
        db.assistant(
            "ses_u",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_u", &u1, json!({}), vec![text("done")]);
        let u2 = db.user("ses_u", "turn 2");
        db.assistant("ses_u", &u2, json!({}), vec![text("ok")]);
        let u3 = db.user("ses_u", "turn 3");
        let end = if aborted {
            json!({"finish": null, "error": {"name": "MessageAbortedError", "data": {"message": "Aborted"}}})
        } else {
            json!({})
        };
        db.assistant("ses_u", &u3, end, vec![text("half")]);
        // A prompt that got no reply, then the next one.
        db.user("ses_u", "no reply");
        let u5 = db.user("ses_u", "turn 5");
        db.assistant("ses_u", &u5, json!({}), vec![text("ok")]);
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        assert_eq!(reqs.len(), 6);
        // Request 6: after loop 3 (when it finished) the scan passes turn 3's
        // prompt and turn 2's, and takes turn 1's results: "old" goes. The
        // prompt with no reply came after that loop: not counted.
        let r6 = &reqs[5];
        assert_eq!(r6["fired"], !aborted, "aborted {aborted}: {}", r6["note"]);
        if aborted {
            assert!(
                r6["note"]
                    .as_str()
                    .unwrap()
                    .contains("none ended just before"),
                "{}",
                r6["note"]
            );
        } else {
            assert_eq!(r6["newly_cleared"], json!(["old"]));
        }
    }
}

/// A compaction's user message (with its `compaction` part) and its summary
/// assistant; `failed` gives the summary an error (no new view).
fn compaction(db: &mut Db, ses: &str, failed: bool) {
    let n = db.next();
    let c = id("msg", n);
    db.message(
        ses,
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(ses, &c, n + 1, json!({"type": "compaction", "auto": true}));
    let extra = if failed {
        json!({"summary": true, "error": {"name": "APIError"}})
    } else {
        json!({"summary": true})
    };
    db.assistant(ses, &c, extra, vec![text("the summary")]);
}

/// Turn 1 of the prune tests: a 25,000-token read, then a 40,000-token bash.
fn turn_one(db: &mut Db, ses: &str) {
    let u1 = db.user(ses, "turn 1");
    db.assistant(
        ses,
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant(
        ses,
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "bash", &out(40_000))],
    );
    db.assistant(ses, &u1, json!({}), vec![text("done")]);
}

/// Reference §2.3 "Stop: at the first assistant message with summary:true":
/// any summary, a failed one too (it is still `summary: true`), ends the scan
/// once two user messages are passed: the results behind it are no longer
/// counted, so the newer ones alone stay under the protection.
#[test]
fn s2_3_a_summary_stops_the_scan_a_failed_one_too() {
    for summary in [true, false] {
        let mut db = Db::new();
        db.session("ses_f", None, None);
        let u1 = db.user("ses_f", "turn 1");
        db.assistant(
            "ses_f",
            &u1,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(25_000))],
        );
        db.assistant("ses_f", &u1, json!({}), vec![text("done")]);
        if summary {
            compaction(&mut db, "ses_f", true);
        } else {
            let u = db.user("ses_f", "a prompt in its place");
            db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
        }
        let u3 = db.user("ses_f", "turn 3");
        db.assistant(
            "ses_f",
            &u3,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_f", &u3, json!({}), vec![text("done")]);
        for turn in ["turn 4", "turn 5", "turn 6"] {
            let u = db.user("ses_f", turn);
            db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
        }
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
        // Requests 1–2 turn 1, 3 the summary (or the prompt), 4–5 turn 3,
        // 6–8 turns 4–6. At 8 the scan takes the results before turn 4's
        // prompt: "new" (40,000, protected), then "old" only without the summary.
        assert_eq!(reqs.len(), 8);
        assert_eq!(
            fired,
            [false, false, false, false, false, false, false, !summary],
            "summary {summary}"
        );
        if summary {
            let why = reason(db.p(), &["--policy", "prune"], 8, "old");
            assert!(why.contains("older than a compaction summary"), "{why}");
        }
    }
}

/// Reference §2.3: the summary stops the scan only once two user messages are
/// passed (`if (turns < 2) continue` comes first). An auto-compaction runs
/// inside the prompt loop (1.18.33: overflow found at the loop's start, the
/// compaction's user message, the summary, a synthetic continue, all one loop),
/// so no prune runs until that loop ends; then the scan passes the continue and
/// the compaction's message, skips the summary, and goes on into the view
/// before it: OpenCode marks results no later request sends. The simulation
/// does the same, and the stored mark agrees with it.
#[test]
fn s2_3_a_compaction_in_the_latest_two_turns_does_not_stop_the_scan() {
    let mut db = Db::new();
    db.session("ses_x", None, None);
    turn_one(&mut db, "ses_x");
    let u2 = db.user("ses_x", "turn 2");
    compaction(&mut db, "ses_x", false);
    let n = db.next();
    let cont = id("msg", n);
    db.message(
        "ses_x",
        &cont,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_x",
        &cont,
        n + 1,
        json!({"type": "text", "synthetic": true, "metadata": {"compaction_continue": true},
            "text": "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."}),
    );
    db.assistant("ses_x", &u2, json!({}), vec![text("ok")]);
    let u3 = db.user("ses_x", "turn 3");
    let after = db.assistant("ses_x", &u3, json!({}), vec![text("ok")]);
    let u4 = db.user("ses_x", "turn 4");
    db.assistant("ses_x", &u4, json!({}), vec![text("ok")]);
    // A plan at 7 remembers the mark made in the view before (no second one).
    plans_agree_with_timeline(db.p(), &["--policy", "prune"]);
    // Requests: 1–3 turn 1; 4 the summary (turn 2's loop begins with it); 5
    // after the continue; 6 turn 3.
    let t = timeline(db.p(), &["--policy", "prune"]);
    let reqs = t["requests"].as_array().unwrap();
    let fired: Vec<bool> = reqs.iter().map(|r| r["fired"] == true).collect();
    assert_eq!(fired, [false, false, false, false, false, true, false]);
    // The continue keeps the loop: no prune at 5.
    assert!(
        reqs[4]["note"]
            .as_str()
            .unwrap()
            .contains("none ended just before"),
        "{}",
        reqs[4]["note"]
    );
    // Nothing of the view is cleared at 6: "old" is in the view before it.
    let r6 = &reqs[5];
    assert_eq!(r6["newly_cleared"], json!([]));
    assert!(
        r6["note"]
            .as_str()
            .unwrap()
            .contains("(1 result in the view before a compaction, which no request sends)"),
        "{}",
        r6["note"]
    );
    assert_eq!(
        placeholders(db.p(), &["--policy", "prune"], 6),
        Vec::<String>::new()
    );
    // OpenCode's own mark on "old", written before request 6 began.
    db.mark("old", db.time(&after, "created") - 1);
    let t = timeline(db.p(), &[]);
    let mc = &t["requests"][5]["evidence"]["microcompact"];
    assert_eq!(mc["compacted_tool_ids"], json!(["old"]), "{mc}");
    assert_eq!(mc["agrees"], true, "{mc}");
}

/// Reference §2.4 "the mark is stored": a mark made before a compaction still
/// stops a later scan that reaches into that view, in a plan at any request as
/// in the timeline (a plan starting at its own view would forget it and mark
/// again).
#[test]
fn s2_4_marks_made_before_a_compaction_stop_the_scan_after_it() {
    let mut db = Db::new();
    db.session("ses_m", None, None);
    turn_one(&mut db, "ses_m");
    for turn in ["turn 2", "turn 3", "turn 4"] {
        let u = db.user("ses_m", turn);
        db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    }
    // Turn 5 overflows: its loop compacts and carries on.
    let u5 = db.user("ses_m", "turn 5");
    compaction(&mut db, "ses_m", false);
    let n = db.next();
    let cont = id("msg", n);
    db.message(
        "ses_m",
        &cont,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_m",
        &cont,
        n + 1,
        json!({"type": "text", "synthetic": true, "metadata": {"compaction_continue": true}, "text": "Continue"}),
    );
    db.assistant("ses_m", &u5, json!({}), vec![text("ok")]);
    let u6 = db.user("ses_m", "turn 6");
    db.assistant("ses_m", &u6, json!({}), vec![text("ok")]);
    let t = timeline(db.p(), &["--policy", "prune"]);
    let fired: Vec<usize> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| r["index"].as_u64().unwrap() as usize)
        .collect();
    // Requests 1–3 turn 1, 4–6 turns 2–4, 7 the summary, 8 after the continue,
    // 9 turn 6. "old" is marked after turn 3's loop (request 6); at 9 the scan
    // reaches into the view before the compaction and stops at that mark.
    assert_eq!(fired, [6]);
    plans_agree_with_timeline(db.p(), &["--policy", "prune"]);
}

/// Reference §2.3 "Protected turns" and "Trigger": the results of the latest
/// two turns are never candidates, the newest 40,000 tokens are kept, and it
/// marks only when strictly more than 20,000 can go.
#[test]
fn s2_3_two_turns_protected_and_the_minimum_is_strict() {
    for (older, fires) in [(20_000, false), (20_001, true)] {
        let mut db = Db::new();
        db.session("ses_p", None, None);
        let u = db.user("ses_p", "turn 1");
        // Oldest first: `older` tokens, then 40,000 (exactly the protection).
        db.assistant(
            "ses_p",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("old", "read", &out(older))],
        );
        db.assistant(
            "ses_p",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("new", "bash", &out(40_000))],
        );
        db.assistant("ses_p", &u, json!({}), vec![text("done")]);
        for turn in ["turn 2", "turn 3", "turn 4"] {
            let u = db.user("ses_p", turn);
            db.assistant("ses_p", &u, json!({}), vec![text("ok")]);
        }
        let t = timeline(db.p(), &["--policy", "prune"]);
        let reqs = t["requests"].as_array().unwrap();
        // Requests 1–3 are turn 1, 4 turn 2, 5 turn 3, 6 turn 4. At 5 (after
        // turn 2's loop) turns 2 and 1 are the latest two: nothing scanned.
        assert_eq!(reqs[4]["fired"], false);
        assert!(reqs[4]["note"].as_str().unwrap().contains("(of 0 scanned)"));
        // At 6 (after turn 3) turn 1 is scanned.
        assert_eq!(
            reqs[5]["fired"], fires,
            "older {older}: {}",
            reqs[5]["note"]
        );
        if fires {
            assert_eq!(reqs[5]["newly_cleared"], json!(["old"]));
        } else {
            assert!(
                reqs[5]["note"]
                    .as_str()
                    .unwrap()
                    .contains("20,000 tokens past")
            );
        }
    }
}

/// Reference §2.3 "Candidates": `skill` is never marked, error parts are
/// neither counted nor marked; every other tool is (MCP tools included).
#[test]
fn s2_3_skill_is_protected_and_errors_are_not_counted() {
    let mut db = Db::new();
    db.session("ses_s", None, None);
    let u = db.user("ses_s", "turn 1");
    let mut error = tool("err", "bash", "");
    error["state"] = json!({"status": "error", "input": {}, "error": out(90_000), "time": {"start": T0, "end": T0 + 1}});
    db.assistant(
        "ses_s",
        &u,
        json!({"finish": "tool-calls"}),
        vec![
            tool("sk", "skill", &out(30_000)),
            tool("mcp", "github_get_issue", &out(30_000)),
            error,
        ],
    );
    db.assistant(
        "ses_s",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("rd", "read", &out(40_000))],
    );
    db.assistant("ses_s", &u, json!({}), vec![text("done")]);
    for turn in ["turn 2", "turn 3", "turn 4"] {
        let u = db.user("ses_s", turn);
        db.assistant("ses_s", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let r = &t["requests"][5];
    // read 40,000 protected; the error not counted; the MCP result marked
    // (30,000 > 20,000); the skill never.
    assert_eq!(r["newly_cleared"], json!(["mcp"]), "{}", r["note"]);
}

/// Reference §2.3 "Stop" / §4 "A later prune stops at the compacted bash
/// part": once results are marked, a later prune does not look past them.
#[test]
fn s2_3_a_later_prune_stops_at_a_marked_part() {
    let mut db = Db::new();
    db.session("ses_m", None, None);
    let u = db.user("ses_m", "turn 1");
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("a", "read", &out(30_000))],
    );
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("b", "read", &out(45_000))],
    );
    db.assistant("ses_m", &u, json!({}), vec![text("done")]);
    let u = db.user("ses_m", "turn 2");
    db.assistant(
        "ses_m",
        &u,
        json!({"finish": "tool-calls"}),
        vec![tool("c", "read", &out(45_000))],
    );
    db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    for turn in ["turn 3", "turn 4", "turn 5"] {
        let u = db.user("ses_m", turn);
        db.assistant("ses_m", &u, json!({}), vec![text("ok")]);
    }
    let t = timeline(db.p(), &["--policy", "prune"]);
    let fired: Vec<(u64, Value)> = t["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| (r["index"].as_u64().unwrap(), r["newly_cleared"].clone()))
        .collect();
    // After turn 3 (request 7): b 45,000 > 40,000 → b and a marked (75,000).
    // After turn 4 (request 8): c alone is scanned before it stops at b:
    // 45,000 > 40,000, so c is past the protection, 45,000 > 20,000: marked.
    assert_eq!(
        fired,
        [(7, json!(["a", "b"])), (8, json!(["c"]))],
        "{}",
        serde_json::to_string_pretty(&t["requests"]).unwrap()
    );
}

/// SPEC §15.14 `auto`: prune up to 1.3.2, none from 1.14.34 (off unless the
/// user's config says `compaction.prune: true`) unless a recorded mark shows
/// it on, and a note saying why not.
#[test]
fn s15_14_auto_runs_prune_by_version_or_by_a_recorded_mark() {
    let make = |version: &str| {
        let mut db = Db::new();
        db.session("ses_v", None, None);
        db.conn
            .execute("UPDATE session SET version = ?1", [version])
            .unwrap();
        let u = db.user("ses_v", "turn 1");
        db.assistant(
            "ses_v",
            &u,
            json!({"finish": "tool-calls"}),
            vec![tool("a", "read", &out(70_000))],
        );
        db.assistant("ses_v", &u, json!({}), vec![text("done")]);
        for turn in ["turn 2", "turn 3", "turn 4"] {
            let u = db.user("ses_v", turn);
            db.assistant("ses_v", &u, json!({}), vec![text("ok")]);
        }
        db
    };
    // Requests: 1–2 turn 1, 3 turn 2, 4 turn 3, 5 turn 4 (after turn 3's loop).
    let old = make("1.3.2");
    let t = timeline(old.p(), &[]);
    assert_eq!(t["requests"][4]["plan_kind"], "prune");
    assert_eq!(t["requests"][4]["newly_cleared"], json!(["a"]));
    let new = make("1.18.33");
    let t = timeline(new.p(), &[]);
    let r = &t["requests"][4];
    assert_eq!(r["plan_kind"], Value::Null);
    assert!(
        r["note"].as_str().unwrap().contains("compaction.prune"),
        "{r}"
    );
    // SPEC §15.14 "on up to 1.3.2": earlier versions too (the reference, §3,
    // finds none in 0.5.29; SPEC wins).
    for v in ["0.5.29", "0.9.1"] {
        let t = timeline(make(v).p(), &[]);
        assert_eq!(t["requests"][4]["plan_kind"], "prune", "{v}");
    }
    // The sample is 1.18.33, but its marks prove prune was on.
    let t = timeline(SAMPLE, &[]);
    assert_eq!(t["requests"][7]["plan_kind"], "prune");
    assert_eq!(t["requests"][7]["fired"], true);
}

/// SPEC §14 evidence: a stored mark is the harness's own clearing, attached to
/// the first request whose assistant began after it, compared with the
/// simulated prune there (`agrees` / `missing` / `extra`), in
/// `recorded_cleared` and in the `recorded` baseline.
#[test]
fn s14_a_stored_mark_is_evidence_compared_with_the_simulated_prune() {
    let t = timeline(SAMPLE, &[]);
    let r = &t["requests"][7];
    let mc = &r["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "opencode_prune");
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(mc["tokens_saved"], 60_500);
    assert_eq!(r["recorded_cleared"].as_array().unwrap().len(), 2);
    // No request before 8 carries it.
    for q in &t["requests"].as_array().unwrap()[..7] {
        assert!(q["evidence"]["microcompact"].is_null());
    }
    // The baseline replays the marks.
    let b = timeline(SAMPLE, &["--policy", "recorded"]);
    assert_eq!(
        b["requests"][7]["newly_cleared"].as_array().unwrap().len(),
        2
    );
    assert_eq!(placeholders(SAMPLE, &["--policy", "recorded"], 8).len(), 2);
    // A mark on the read only: the simulated bash is `extra`… or, the
    // record's read and the plan's differ, never `agrees`.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE part SET data = json_remove(data, '$.state.time.compacted') WHERE id = 'prt_22bbc98b2001Vs2Kd8Pm5Rj1Gx'",
        [],
    )
    .unwrap();
    drop(conn);
    let t = timeline(db.to_str().unwrap(), &[]);
    let mc = &t["requests"][7]["evidence"]["microcompact"];
    assert_eq!(mc["agrees"], false, "{mc}");
    assert_eq!(
        mc["compacted_tool_ids"],
        json!(["toolu_01Hq3xK9mVb2Lw7Rt5Yz8NcD"])
    );
    let diff = [&mc["missing"], &mc["extra"]];
    assert!(
        diff.iter().any(|l| l
            .as_array()
            .unwrap()
            .contains(&json!("toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe"))),
        "{mc}"
    );
    // SPEC §15.21: `explain` names the record by its kind.
    let e = bin::json(&["explain", SAMPLE, "toolu_01Nm4Pq8Wx2Ks6Jd9Tb3LvYe", "-j"]);
    assert_eq!(
        e["records"],
        json!([{"line": 0, "kind": "opencode_prune", "request": 8}])
    );
    // A what-if setting replaces it: a plan with a higher protection clears
    // nothing, whatever the marks say.
    assert!(
        placeholders(
            SAMPLE,
            &["--policy", "prune", "--prune-protect", "10000000"],
            8
        )
        .is_empty()
    );
}

/// SPEC §15.14 / reference §5.2 (the race): prune is forked in the background
/// after a loop, so its mark may be written after the next turn's first request
/// began. The mark belongs to the first request that began after it, and is
/// compared with the simulated prune where that takes effect: the first request
/// after the loop that ran it.
#[test]
fn s15_14_a_late_mark_is_compared_at_the_turn_s_first_request() {
    let mut db = Db::new();
    db.session("ses_l", None, None);
    let u1 = db.user("ses_l", "turn 1");
    db.assistant(
        "ses_l",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("old", "read", &out(25_000))],
    );
    db.assistant(
        "ses_l",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![tool("new", "bash", &out(40_000))],
    );
    db.assistant("ses_l", &u1, json!({}), vec![text("done")]);
    for turn in ["turn 2", "turn 3"] {
        let u = db.user("ses_l", turn);
        db.assistant("ses_l", &u, json!({}), vec![text("ok")]);
    }
    let u4 = db.user("ses_l", "turn 4");
    db.assistant(
        "ses_l",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("t4", "read", "small")],
    );
    db.assistant(
        "ses_l",
        &u4,
        json!({"finish": "tool-calls"}),
        vec![tool("t5", "read", "small")],
    );
    let second = db.assistant("ses_l", &u4, json!({}), vec![text("ok")]);
    // The mark is written just before request 8 (turn 4's third) began.
    db.mark("old", db.time(&second, "created") - 1);
    let t = timeline(db.p(), &[]);
    let reqs = t["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 8);
    // The simulation marks "old" after turn 3's loop: at request 6.
    assert_eq!(
        reqs[5]["newly_cleared"],
        json!(["old"]),
        "{}",
        reqs[5]["note"]
    );
    // The record belongs to request 8 (what was really sent: 6 and 7 still
    // carried the original), and agrees with the simulation at 6.
    for r in &reqs[5..7] {
        assert!(r["evidence"]["microcompact"].is_null());
        assert_eq!(r["recorded_cleared"], json!([]));
    }
    let mc = &reqs[7]["evidence"]["microcompact"];
    assert_eq!(mc["writer"], "opencode_prune", "{mc}");
    assert_eq!(mc["agrees"], true, "{mc}");
    assert_eq!(reqs[7]["recorded_cleared"], json!(["old"]));
    // The text says where it was compared, and auto agrees there too.
    let text = bin::ok(&["evidence", db.p()]);
    assert!(
        text.contains(
            "against the prune plan (at request 6, where its simulation takes effect): agrees"
        ),
        "{text}"
    );
    assert!(
        text.contains("against the selected plan (auto): agrees"),
        "{text}"
    );
}

/// SPEC §15.13: the thresholds are parameters (`--prune-protect`,
/// `--prune-minimum`, keys `prune_protect_tokens` / `prune_minimum_tokens`),
/// defaults 40,000 and 20,000 (reference §2.5: constants in OpenCode).
#[test]
fn s2_5_the_thresholds_are_parameters_with_opencode_s_defaults() {
    let fired_at_8 = |extra: &[&str]| {
        let mut args = vec!["--policy", "prune"];
        args.extend_from_slice(extra);
        timeline(SAMPLE, &args)["requests"][7]["fired"] == true
    };
    let t = timeline(SAMPLE, &["--policy", "prune"]);
    assert_eq!(t["policy"]["prune_protect_tokens"], 40_000);
    assert_eq!(t["policy"]["prune_minimum_tokens"], 20_000);
    // 62,500 in all: all protected under 70,000.
    assert!(!fired_at_8(&["--prune-protect", "70000"]));
    // 60,500 prunable: the minimum is strict.
    assert!(!fired_at_8(&["--prune-minimum", "60500"]));
    assert!(fired_at_8(&["--prune-minimum", "60499"]));
    let t = timeline(SAMPLE, &["--policy", "prune", "--prune-protect", "70000"]);
    assert_eq!(t["policy"]["prune_protect_tokens"], 70_000);
    // A Claude session's policy has no such keys.
    let c = bin::json(&["timeline", "sample-sessions/claude-demo.jsonl", "-j"]);
    assert!(c["policy"].get("prune_protect_tokens").is_none());
}

/// SPEC §15.14 "`compare DB` compares every main session": each main session
/// is a unit (`PATH#ID`), a sub-agent session is billed in its parent's row,
/// and the prune row is the user's `compaction.prune`.
#[test]
fn s15_14_compare_a_database_compares_every_main_session() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(SAMPLE, &db).unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           SELECT 'ses_other', project_id, NULL, 'b', directory, 'Other', version, time_created, time_updated - 9 FROM session;
         INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           SELECT 'ses_kid', project_id, 'ses_dd4438cb3ffeXq3Lm9TzR2bN7c', 'k', directory, 'Kid', version, time_created, time_updated - 5
           FROM session WHERE id = 'ses_dd4438cb3ffeXq3Lm9TzR2bN7c';",
    )
    .unwrap();
    drop(conn);
    let c = bin::json(&["compare", db.to_str().unwrap(), "-j"]);
    let paths: Vec<&str> = c["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths[0].ends_with("#ses_dd4438cb3ffeXq3Lm9TzR2bN7c"));
    // The session without requests is skipped as a folder's empty file is.
    assert_eq!(c["skipped"][0]["reason"], "empty", "{}", c["skipped"]);
    let row = &c["rows"][1];
    assert_eq!(row["availability"], "user");
    assert_eq!(row["knob"], json!({"compaction.prune": true}));
}

/// The TUI at 80×24 on the sample (docs/adding-a-harness.md): request 8 under
/// `auto` shows OpenCode's prune, the bash and the read cleared, the grep kept.
#[test]
fn the_sample_at_80x24_shows_the_prune_at_request_8() {
    let opts = mcscope::cli::Opts {
        at: Some("8".into()),
        ..Default::default()
    };
    let setup = mcscope::cli::setup(Path::new(SAMPLE), &opts).unwrap();
    let mut app = mcscope::tui::app::App::session_at(setup, 8);
    app.view_mut().unwrap().wait_background();
    let lines = screen::screen(&app, 80, 24);
    let all = lines.join("\n");
    assert!(lines.iter().all(|l| l.chars().count() == 80), "{all}");
    assert!(all.contains("opencode-db"), "{all}");
    assert!(all.contains("prune"), "{all}");
    let bash = screen::row(&lines, "npm run build");
    assert!(bash.contains("cleared"), "{all}");
    let grep = screen::row(&lines, "vendor/heavy");
    assert!(grep.contains("kept"), "{all}");
}

/// Reference §1.1 (a review finding): a symlinked database is read where it
/// resolves, so the rows still only in its WAL are not missed.
#[test]
fn s1_1_a_symlinked_wal_database_keeps_its_wal_rows() {
    let mut db = Db::new();
    db.conn
        .execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
        .unwrap();
    db.session("ses_l", None, None);
    let u = db.user("ses_l", "only in the wal");
    db.assistant("ses_l", &u, json!({}), vec![text("reply")]);
    let link_dir = tempfile::tempdir().unwrap();
    let link = link_dir.path().join("link.db");
    std::os::unix::fs::symlink(&db.path, &link).unwrap();
    let w = wire(link.to_str().unwrap(), &[], 1);
    assert_eq!(w[0].1, ["only in the wal"]);
}

/// Reference §1.3 (a review finding): an assistant message whose request
/// failed (`error`, every count 0) recorded no usage: it is not a cold read.
#[test]
fn s1_3_a_failed_request_records_no_usage() {
    let mut db = Db::new();
    db.session("ses_f", None, None);
    let u = db.user("ses_f", "go");
    db.assistant("ses_f", &u, json!({}), vec![text("ok")]);
    let u = db.user("ses_f", "again");
    db.assistant(
        "ses_f",
        &u,
        json!({"error": {"name": "APIError"}, "cost": 0,
               "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
        vec![],
    );
    let t = timeline(db.p(), &[]);
    assert!(
        t["requests"][1]["evidence"]["usage"].is_null(),
        "{}",
        t["requests"][1]
    );
    assert!(t["requests"][1]["evidence"]["observed_break"].is_null());
}

/// SPEC §14 (a stored mark proves prune was on): no caveat says prune was
/// off by default on the sample, whatever plan is asked for.
#[test]
fn s15_14_a_recorded_mark_silences_the_off_by_default_caveat() {
    for kind in ["prune", "recorded", "auto"] {
        let t = timeline(SAMPLE, &["--policy", kind]);
        let ids: Vec<&str> = t["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert!(
            !ids.contains(&"opencode_prune_off_by_default"),
            "{kind}: {ids:?}"
        );
        assert!(!ids.contains(&"opencode_version_gap"), "{kind}: {ids:?}");
    }
}

/// SPEC §15.13: `compare` takes prune's thresholds for its rows too.
#[test]
fn s15_13_compare_takes_the_prune_thresholds() {
    let c = bin::json(&["compare", SAMPLE, "--prune-protect", "1000000", "-j"]);
    let rows = c["rows"].as_array().unwrap();
    let prune = rows
        .iter()
        .find(|r| r["policy"]["kind"] == "prune")
        .unwrap();
    assert_eq!(
        prune["policy"]["prune_protect_tokens"], 1_000_000,
        "{prune}"
    );
    assert_eq!(prune["cleared_results"], 0, "{prune}");
}

/// SPEC §15.19 (a review finding): a relative `$OPENCODE_DB` names a
/// database under the data folder, whose folder is refused; `:memory:` names
/// none, so the current folder is not refused for it.
#[test]
fn s15_19_a_relative_opencode_db_is_under_the_data_folder() {
    let data = tempfile::tempdir().unwrap();
    let dbdir = data.path().join("elsewhere");
    std::fs::create_dir_all(data.path().join("opencode")).unwrap();
    std::fs::create_dir_all(&dbdir).unwrap();
    let run = |envs: &[(&str, &str)], out: &std::path::Path| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"));
        c.args(["compare", SAMPLE, "-j", "-o"])
            .arg(out)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("MCSCOPE_CONFIG", "/nonexistent/c.toml")
            .env("HOME", "/home/dev");
        for (k, v) in envs {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let xdg = data.path().to_str().unwrap();
    let o = run(
        &[("XDG_DATA_HOME", xdg), ("OPENCODE_DB", "../elsewhere/o.db")],
        &dbdir.join("out.json"),
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!dbdir.join("out.json").exists());
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("ok.json");
    let o = run(&[("XDG_DATA_HOME", xdg), ("OPENCODE_DB", ":memory:")], &out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.exists());
}

/// SPEC §15.13: the header names prune's own thresholds, never the shared
/// parameters prune does not read (keep, gap, size).
#[test]
fn s15_13_the_header_names_prune_s_own_thresholds() {
    let out = bin::ok(&["timeline", SAMPLE, "--prune-protect", "30000"]);
    let head = out.lines().nth(1).unwrap();
    assert!(
        head.contains("protect 30,000 tok  minimum > 20,000"),
        "{head}"
    );
    assert!(
        !head.contains("keep_recent") && !head.contains("gap >="),
        "{head}"
    );
    // Where auto chose no plan (1.18.33, no mark): still prune's own, in the
    // text and in the TUI's header.
    let mut db = Db::new();
    db.session("ses_h", None, None);
    let u = db.user("ses_h", "go");
    db.assistant("ses_h", &u, json!({}), vec![text("ok")]);
    let out = bin::ok(&["timeline", db.p()]);
    let head = out.lines().nth(1).unwrap();
    assert!(
        head.contains("protect 40,000 tok  minimum > 20,000"),
        "{head}"
    );
    assert!(!head.contains("keep_recent"), "{head}");
    let setup = mcscope::cli::setup(Path::new(db.p()), &mcscope::cli::Opts::default()).unwrap();
    let mut app = mcscope::tui::app::App::session_at(setup, 1);
    app.view_mut().unwrap().wait_background();
    let screen = screen::screen(&app, 80, 24).join("\n");
    assert!(screen.contains("protect 40,000 tok"), "{screen}");
    assert!(!screen.contains("keep 5"), "{screen}");
}

/// Issue 41 item 2: one malformed row of *another* session (a blob as its
/// `session_id`) no longer makes the whole database unreadable: it is
/// skipped with one diagnostic.
#[test]
fn safe_io_2_a_malformed_row_of_another_session_is_skipped_with_one_diagnostic() {
    let mut db = Db::new();
    db.session("ses_a", None, None);
    let u = db.user("ses_a", "hi");
    db.assistant("ses_a", &u, json!({}), vec![text("ok")]);
    db.conn
        .execute(
            "INSERT INTO message VALUES ('msg_blob', X'00ff', 1, 1, '{}')",
            [],
        )
        .unwrap();
    db.conn
        .execute(
            "INSERT INTO part VALUES ('prt_blob', 'msg_blob', X'00ff', 1, 1, '{}')",
            [],
        )
        .unwrap();
    let t = timeline(db.p(), &[]);
    assert_eq!(t["session"]["responses"], 1);
    let d = t["session"]["diagnostics"].as_array().unwrap();
    let skipped: Vec<&Value> = d
        .iter()
        .filter(|d| d.to_string().contains("rows skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{d:?}");
    assert!(
        skipped[0]
            .to_string()
            .contains("1 message and 1 part rows skipped")
    );
}

/// Issue 41 item 4: a token count of the wrong shape (negative, a string,
/// 1e308, past u64) is never read as 0 in silence: the response's usage is
/// unknown and a `malformed_record_field` warning names the field; a part
/// whose message is missing is a diagnostic.
#[test]
fn safe_io_4_opencode_counts_of_the_wrong_shape_and_orphan_parts_are_said() {
    let mut db = Db::new();
    db.session("ses_w", None, None);
    let u = db.user("ses_w", "hi");
    let bad = common::wrong_shaped_counts();
    for (v, _) in &bad {
        db.assistant(
            "ses_w",
            &u,
            json!({"tokens": {"input": v, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
            vec![text("a")],
        );
    }
    db.assistant("ses_w", &u, json!({}), vec![text("fine")]);
    db.part("ses_w", "msg_gone", 900, tool("call_x", "bash", "out"));
    let t = timeline(db.p(), &[]);
    let s = &t["session"];
    assert_eq!(
        s["recorded"]["responses"], 1,
        "only the well-formed usage counts"
    );
    assert_eq!(s["recorded"]["input"], 3);
    let warnings = s["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), bad.len(), "{warnings:?}");
    for (w, (_, what)) in warnings.iter().zip(&bad) {
        assert_eq!(w["id"], "malformed_record_field");
        let text = w["text"].as_str().unwrap();
        assert!(text.starts_with("tokens.input of message msg_"), "{text}");
        assert!(text.contains(what), "{text}");
        assert!(
            text.ends_with("not a token count; its usage is unknown"),
            "{text}"
        );
    }
    let d = s["diagnostics"].to_string();
    assert!(
        d.contains("skipped: its message msg_gone is not in the session"),
        "{d}"
    );
}

/// Issue 41 item 2: in the ≤ 1.1 JSON tree, folders are named from file
/// names, never from ids in the JSON: a session id `ses_/../../elsewhere`
/// or an absolute message id reads nothing outside the session's own folders.
#[test]
fn safe_io_2_json_tree_ids_never_name_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("storage");
    let elsewhere = dir.path().join("elsewhere");
    let w = |p: &Path, v: Value| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    let m1 = id("msg", 1);
    let evil_msg = id("msg", 2);
    w(
        &st.join("session/global/ses_k.json"),
        json!({"id": "ses_/../../../elsewhere", "projectID": "global", "directory": "/d",
            "title": "t", "version": "1.1.65", "time": {"created": T0, "updated": T0}}),
    );
    // The session's own folder: one user message whose JSON id is absolute.
    w(
        &st.join(format!("message/ses_k/{m1}.json")),
        json!({"id": elsewhere.display().to_string(), "sessionID": "ses_k", "role": "user", "time": {"created": T0}}),
    );
    w(
        &st.join(format!("part/{m1}/{}.json", id("prt", 1))),
        json!({"id": id("prt", 1), "type": "text", "text": "mine"}),
    );
    // What the ids point at: a message and a part that are not the session's.
    w(
        &elsewhere.join(format!("{evil_msg}.json")),
        json!({"id": evil_msg, "role": "assistant", "time": {"created": T0 + 5},
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
    );
    w(
        &elsewhere.join("prt_evil.json"),
        json!({"id": "prt_evil", "type": "text", "text": "not mine"}),
    );
    // `ses_` exists, so `ses_/../..` resolves (as an attacker would arrange).
    std::fs::create_dir_all(st.join("message/ses_")).unwrap();
    let path = st.join("session/global/ses_k.json");
    let t = timeline(path.to_str().unwrap(), &[]);
    assert_eq!(t["session"]["responses"], 0, "{t}");
    assert_eq!(t["session"]["records"], 1, "{}", t["session"]);
}

/// A database with one session whose newest rows are only in its `-wal`,
/// shared without its `-shm` (what needs a private copy, SPEC §18.22), plus
/// `pad` bytes of filler; the folder it is in.
fn wal_without_shm(pad: usize) -> (tempfile::TempDir, PathBuf) {
    let mut db = Db::new();
    db.conn
        .execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE filler(b);",
        )
        .unwrap();
    db.session("ses_c", None, None);
    let u = db.user("ses_c", "only in the wal");
    db.assistant("ses_c", &u, json!({}), vec![text("ok")]);
    for _ in 0..pad / (1 << 20) {
        db.conn
            .execute("INSERT INTO filler VALUES (zeroblob(1048576))", [])
            .unwrap();
    }
    let shared = tempfile::tempdir().unwrap();
    let path = shared.path().join("opencode.db");
    std::fs::copy(&db.path, &path).unwrap();
    std::fs::copy(
        format!("{}-wal", db.path.display()),
        format!("{}-wal", path.display()),
    )
    .unwrap();
    (shared, path)
}

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Issue 41 item 2: the private copy is capped (`MCSCOPE_TMP_CAP`, else the
/// free space less 10 %): over the cap, one line naming the temp folder and
/// exit 2, and nothing is left in it; under it, the WAL's rows are read.
#[test]
fn safe_io_2_the_private_copy_is_capped_and_names_its_folder() {
    let (_shared, path) = wal_without_shm(0);
    let tmp = tempfile::tempdir().unwrap();
    let run = |cap: Option<&str>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"));
        c.args(["wire", path.to_str().unwrap(), "--at", "1"])
            .env("TMPDIR", tmp.path());
        match cap {
            Some(n) => c.env("MCSCOPE_TMP_CAP", n),
            None => c.env_remove("MCSCOPE_TMP_CAP"),
        };
        c.output().unwrap()
    };
    let out = run(Some("1000"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&tmp.path().display().to_string()), "{err}");
    assert!(err.contains("MCSCOPE_TMP_CAP"), "{err}");
    assert!(leftovers(tmp.path()).is_empty());
    // A cap that is no number is said, not ignored.
    let out = run(Some("lots"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("MCSCOPE_TMP_CAP=lots: expected a number of bytes"),
        "{err}"
    );
    let out = run(None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("only in the wal"));
    assert!(leftovers(tmp.path()).is_empty(), "removed at exit");
}

/// Issue 41 item 2: SIGTERM while the private copy exists leaves nothing in
/// `$TMPDIR` (the copy was a 291 MB leftover). The process is caught while
/// its folder exists (stopped, sent SIGTERM, continued).
#[test]
fn safe_io_2_sigterm_during_the_copy_leaves_nothing_behind() {
    let (_shared, path) = wal_without_shm(48 << 20);
    let mut caught = false;
    for _ in 0..5 {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(["timeline", path.to_str().unwrap(), "-j"])
            .env("TMPDIR", tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let kill = |sig: &str| {
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap();
        };
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_secs(20) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if !leftovers(tmp.path()).is_empty() {
                kill("-STOP");
                // Still there once stopped: the signal lands while it exists.
                caught = !leftovers(tmp.path()).is_empty();
                kill("-TERM");
                kill("-CONT");
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            leftovers(tmp.path()).is_empty(),
            "left behind: {:?} ({status:?})",
            leftovers(tmp.path())
        );
        if caught {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(15), "{status:?}");
            break;
        }
    }
    assert!(caught, "the copy was never seen alive in five runs");
}
