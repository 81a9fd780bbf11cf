//! The database file (reference §1.1): read in place, WAL, symlinks, corrupt and busy, JSON tree.

use super::*;

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
