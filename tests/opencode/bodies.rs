//! Issue 41 item 5: a database's message bodies are not held after the load;
//! each is made again from its message row and part rows when it is read, and
//! only its compact text's length and hash are kept, so a body the rows no
//! longer make is shown as unreadable, never as the one loaded.

use super::*;
use mcscope::session::Part;

/// A session of every shape a body is made of: prompts, tool calls that
/// completed, failed and were cut off, a compaction with a retained tail
/// (its messages fed again after the summary), and a turn after it.
fn every_shape() -> Db {
    let mut db = Db::new();
    db.session("ses_b", None, None);
    let u1 = db.user("ses_b", "turn 1");
    let failed = json!({"type": "tool", "callID": "bad", "tool": "bash", "state": {"status": "error",
        "input": {"command": "false"}, "error": "exit 1", "time": {"start": T0, "end": T0 + 1}}});
    let running = json!({"type": "tool", "callID": "cut", "tool": "bash", "state": {"status": "running",
        "input": {"command": "sleep 9"}, "time": {"start": T0}}});
    db.assistant(
        "ses_b",
        &u1,
        json!({"finish": "tool-calls"}),
        vec![
            json!({"type": "step-start"}),
            tool("a", "read", "A \u{1b}[31m ünï"),
            failed,
            running,
        ],
    );
    db.assistant(
        "ses_b",
        &u1,
        json!({}),
        vec![json!({"type": "step-start"}), text("one")],
    );
    let u2 = db.user("ses_b", "turn 2");
    db.assistant(
        "ses_b",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![json!({"type": "step-start"}), tool("b", "read", "B")],
    );
    db.assistant(
        "ses_b",
        &u2,
        json!({}),
        vec![json!({"type": "step-start"}), text("two")],
    );
    let n = db.next();
    let c = id("msg", n);
    db.message(
        "ses_b",
        &c,
        json!({"role": "user", "time": {"created": T0 + n}}),
    );
    db.part(
        "ses_b",
        &c,
        n + 1,
        json!({"type": "compaction", "auto": false, "tail_start_id": u2}),
    );
    db.assistant(
        "ses_b",
        &c,
        json!({"summary": true}),
        vec![json!({"type": "step-start"}), text("the summary")],
    );
    let u3 = db.user("ses_b", "turn 3");
    db.assistant(
        "ses_b",
        &u3,
        json!({}),
        vec![json!({"type": "step-start"}), text("three")],
    );
    db
}

/// Every message of the loaded session `s` as the API sees it, read back now.
fn read_all(s: &mcscope::session::Session) -> Vec<Value> {
    let mut out = Vec::new();
    mcscope::load::readback::each_message(s, |_, v| out.push(v)).unwrap();
    out
}

/// Every message as the API sees it, read back.
fn bodies(path: &Path) -> (usize, Vec<Value>) {
    let s = mcscope::load::load(path, None).unwrap();
    let remade = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::Inline(b) if b.rows().is_some()))
        .count();
    (remade, read_all(&s))
}

/// The same database read through a private copy (a `-wal` beside it and no
/// `-shm`, SPEC §18.22), whose rows are gone after the load: its bodies are
/// held as they were made.
fn held_copy(db: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    std::fs::copy(db, &path).unwrap();
    std::fs::write(dir.path().join("opencode.db-wal"), b"").unwrap();
    (dir, path)
}

/// Every body made again from its rows is the one the load made, on a
/// session of every shape and on the bundled sample; only a database read in
/// place is read again (a private copy's bodies are held).
#[test]
fn issue_41_5_every_body_made_again_from_its_rows_is_the_one_the_load_made() {
    let db = every_shape();
    let (_keep, copy) = held_copy(&db.path);
    let (remade, again) = bodies(&db.path);
    let (held, kept) = bodies(&copy);
    assert!(remade >= 12, "{remade} bodies made again from their rows");
    assert_eq!(held, 0, "a private copy's bodies are held");
    assert_eq!(again, kept);
    // The retained tail and the compaction's head are in the view again.
    let said = serde_json::to_string(&again).unwrap();
    for text in [
        "What did we do so far?",
        "the summary",
        "exit 1",
        "A \u{1b}[31m ünï",
    ] {
        assert!(
            said.contains(&serde_json::to_string(text).unwrap()[1..]),
            "{text}"
        );
    }
    // The wire of every request, through the binary, in place and held.
    for k in 1..=6 {
        assert_eq!(
            wire(db.p(), &[], k),
            wire(copy.to_str().unwrap(), &[], k),
            "request {k}"
        );
    }
    let sample = Path::new(SAMPLE);
    let (_keep, copy) = held_copy(sample);
    let (remade, again) = bodies(sample);
    assert!(remade > 0);
    assert_eq!(again, bodies(&copy).1);
}

/// A part row whose body changed since the load reads as a message that
/// could not be read back; a prune mark OpenCode writes into an old part
/// (`state.time.compacted`) changes no body, which reads as before.
#[test]
fn issue_41_5_a_row_changed_since_loading_reads_as_unreadable() {
    let db = every_shape();
    let s = mcscope::load::load(&db.path, None).unwrap();
    let before = read_all(&s);
    db.mark("a", T0 + 99);
    let after = read_all(&s);
    assert_eq!(after, before, "a prune mark changes no body");
    db.conn
        .execute(
            "UPDATE part SET data = json_set(data, '$.state.output', 'changed') WHERE json_extract(data, '$.callID') = 'b'",
            [],
        )
        .unwrap();
    let changed = read_all(&s);
    let unreadable: Vec<usize> = (0..changed.len())
        .filter(|&m| changed[m] != before[m])
        .collect();
    assert!(!unreadable.is_empty());
    for m in unreadable {
        let said = serde_json::to_string(&changed[m]).unwrap();
        assert!(
            said.contains("could not be read back: the database changed since loading"),
            "message {m}: {said}"
        );
        assert!(
            !said.contains("changed\"}"),
            "never the changed body: {said}"
        );
    }
}

/// The database swapped for a FIFO after the load: reading a body back is
/// an error at once, never a read that blocks.
#[test]
fn issue_41_5_a_database_swapped_for_a_fifo_is_never_read_back() {
    let db = every_shape();
    let s = mcscope::load::load(&db.path, None).unwrap();
    std::fs::remove_file(&db.path).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&db.path)
        .status()
        .unwrap();
    assert!(made.success());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let read = mcscope::load::readback::each_message(&s, |_, _| {}).map_err(|e| e.to_string());
        let _ = tx.send(read);
    });
    let read = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("reading back blocked on the FIFO");
    let err = read.unwrap_err();
    assert!(err.contains("not a regular file (a FIFO)"), "{err}");
}

/// Through the TUI's real keymap: the wire panel shows the bodies made again
/// from the rows as the held ones, and after a row changed, stepping to a
/// request whose view holds it shows that message as unreadable.
#[test]
fn issue_41_5_the_tui_shows_bodies_made_again_from_their_rows() {
    use mcscope::tui::app::App;
    use mcscope::tui::keymap::{self, Action};
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let db = every_shape();
    let (_keep, copy) = held_copy(&db.path);
    let open = |p: &Path| {
        let setup = mcscope::cli::setup(p, &mcscope::cli::Opts::default()).unwrap();
        let mut a = App::session(setup);
        a.view_mut().unwrap().wait_background();
        a
    };
    let mut a = open(&db.path);
    let held = open(&copy);
    let v = a.view().unwrap();
    assert_eq!(v.k, 6, "the last request");
    assert_eq!(v.local_json(), held.view().unwrap().local_json());
    assert_eq!(v.wire_json(), held.view().unwrap().wire_json());
    for text in ["What did we do so far?", "the summary", "turn 3"] {
        assert!(v.local_json().contains(text), "{text}");
    }
    let lines = screen::screen(&a, 160, 45);
    assert!(
        lines.iter().any(|l| l.contains("turn 3")),
        "{}",
        lines.join("\n")
    );
    // Call `a`'s output changes; request 5's view holds it.
    db.conn
        .execute(
            "UPDATE part SET data = json_set(data, '$.state.output', 'changed') WHERE json_extract(data, '$.callID') = 'a'",
            [],
        )
        .unwrap();
    let action = keymap::action_for(KeyEvent::from(KeyCode::Char('h')), false).unwrap();
    assert_eq!(action, Action::PrevRequest);
    a.update(action);
    a.view_mut().unwrap().wait_background();
    let v = a.view().unwrap();
    assert_eq!(v.k, 5);
    assert!(
        v.local_json()
            .contains("could not be read back: the database changed since loading"),
        "{}",
        v.local_json()
    );
    assert!(!v.local_json().contains("\"changed\""));
}

/// A database whose tables have no rowids (not OpenCode's schema, but a
/// valid SQLite one): its rows are read and kept as before, its bodies held,
/// and it reads as the same session.
#[test]
fn issue_41_5_tables_without_rowids_keep_their_rows_and_bodies() {
    let db = every_shape();
    let (_keep, path) = copied_into(&db, &SCHEMA.replace(" );", " ) WITHOUT ROWID;"), "");
    let conn = Connection::open(&path).unwrap();
    assert!(
        conn.prepare("SELECT rowid FROM part").is_err(),
        "a table without rowids"
    );
    let (remade, without) = bodies(&path);
    assert_eq!(remade, 0, "held");
    assert_eq!(without, bodies(&db.path).1);
}

/// A live OpenCode (a WAL database its writer holds open) still writes the
/// last turn: a running tool's part becomes a completed one. That turn's
/// bodies are held, so they read as they were loaded; the earlier turns'
/// are made again from their rows.
#[test]
fn issue_41_5_the_last_turn_of_a_live_session_is_held() {
    let mut db = Db::new();
    db.conn
        .execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
        .unwrap();
    db.session("ses_l", None, None);
    let u1 = db.user("ses_l", "turn 1");
    db.assistant(
        "ses_l",
        &u1,
        json!({}),
        vec![json!({"type": "step-start"}), tool("done", "read", "D")],
    );
    let u2 = db.user("ses_l", "turn 2");
    let running = json!({"type": "tool", "callID": "live", "tool": "bash", "state": {"status": "running",
        "input": {"command": "sleep 9"}, "time": {"start": T0}}});
    db.assistant(
        "ses_l",
        &u2,
        json!({"finish": "tool-calls"}),
        vec![json!({"type": "step-start"}), running],
    );
    let s = mcscope::load::load(&db.path, None).unwrap();
    let held: Vec<bool> = s
        .messages
        .iter()
        .map(|m| {
            m.parts
                .iter()
                .all(|p| matches!(p, Part::Inline(b) if b.rows().is_none()))
        })
        .collect();
    // Turn 1 (its prompt, the response, the results) made again; turn 2 held.
    assert_eq!(held, [false, false, false, true, true]);
    let before = read_all(&s);
    // OpenCode finishes the tool: its part row is written again.
    db.conn
        .execute(
            "UPDATE part SET data = json_set(data, '$.state.status', 'completed', '$.state.output', 'slept') WHERE json_extract(data, '$.callID') = 'live'",
            [],
        )
        .unwrap();
    let after = read_all(&s);
    assert_eq!(after, before, "every body reads as loaded");
    let said = serde_json::to_string(&after).unwrap();
    assert!(said.contains("Tool execution was interrupted"), "{said}");
    assert!(!said.contains("could not be read back"), "{said}");
}

/// A table with a column of its own named `rowid` (valid SQLite, not
/// OpenCode's schema), which then need not name one row: its rows are kept,
/// and it reads as the same session.
#[test]
fn issue_41_5_a_column_named_rowid_is_never_taken_for_the_row() {
    let db = every_shape();
    let schema = SCHEMA.replace(
        "`data` text NOT NULL );",
        "`data` text NOT NULL, `rowid` integer );",
    );
    let (_keep, path) = copied_into(&db, &schema, ", 1");
    let conn = Connection::open(&path).unwrap();
    let ones: i64 = conn
        .query_row("SELECT count(*) FROM part WHERE rowid = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(ones > 1, "every part's own `rowid` is 1");
    let (remade, shadowed) = bodies(&path);
    assert_eq!(remade, 0, "held");
    assert_eq!(shadowed, bodies(&db.path).1);
    let s = mcscope::load::load(&path, None).unwrap();
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

/// `db`'s rows copied into a new database of `schema`, each message and part
/// row with `extra` (SQL) after its columns.
fn copied_into(db: &Db, schema: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(schema).unwrap();
    conn.execute_batch(&format!(
        "ATTACH '{}' AS src; INSERT INTO session SELECT * FROM src.session;
         INSERT INTO message SELECT *{extra} FROM src.message; INSERT INTO part SELECT *{extra} FROM src.part;",
        db.path.display()
    ))
    .unwrap();
    (dir, path)
}
