//! Issue 41 item 2 (SPEC §18.22): how a database is opened from what lies
//! beside it, that nothing is ever written beside it, that a FIFO `-wal`
//! cannot block, that the private copy is private and removed, and that a
//! path reaches SQLite byte for byte.

use super::*;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A WAL-mode database at `path` with `n` rows in `t`, its newest rows left
/// in the `-wal` (no checkpoint); the writer connection is returned open.
fn live_db(path: &Path, n: i64) -> Connection {
    let c = Connection::open(path).unwrap();
    c.pragma_update(None, "journal_mode", "wal").unwrap();
    c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    c.execute_batch("CREATE TABLE t(x)").unwrap();
    for i in 0..n {
        c.execute("INSERT INTO t VALUES (?1)", [i]).unwrap();
    }
    c
}

fn count(db: &Db) -> i64 {
    db.conn
        .query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))
        .unwrap()
}

/// `open` on another thread, failed after 20 s instead of hanging the suite.
fn open_bounded(path: &Path) -> Result<Db, LoadError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(open(&p).map(|db| {
            let n = count(&db);
            (db, n)
        }));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(r) => r.map(|(db, _)| db),
        Err(_) => panic!("open blocked on {}", path.display()),
    }
}

#[test]
fn safe_io_2_the_mode_follows_what_lies_beside_the_database() {
    use Side::{Missing, Other, Regular};
    let fifo = Other("a FIFO");
    for wal_mode in [true, false] {
        assert_eq!(mode(wal_mode, Missing, Missing, Missing), Mode::Immutable);
        assert_eq!(mode(wal_mode, Regular, Regular, Missing), Mode::ReadOnly);
        assert_eq!(mode(wal_mode, Regular, Missing, Missing), Mode::Copy);
        assert_eq!(mode(wal_mode, Missing, Regular, Missing), Mode::Copy);
        assert_eq!(mode(wal_mode, fifo, Regular, Missing), Mode::Copy);
        assert_eq!(
            mode(wal_mode, Regular, Other("a character device"), Missing),
            Mode::Copy
        );
        assert_eq!(mode(wal_mode, Regular, Regular, fifo), Mode::Copy);
    }
    // A rollback journal beside a rollback-mode file: read in place when it
    // is a file, never opened else. Beside a WAL database it is stale: the
    // file alone is read, immutable (mode=ro would create a -wal and -shm).
    assert_eq!(mode(false, Missing, Missing, Regular), Mode::ReadOnly);
    assert_eq!(mode(false, Missing, Missing, fifo), Mode::Copy);
    assert_eq!(mode(true, Missing, Missing, Regular), Mode::Immutable);
    assert_eq!(mode(true, Missing, Missing, fifo), Mode::Immutable);
}

#[test]
fn safe_io_2_in_place_reads_create_nothing_beside_the_database() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("opencode.db");
    // Live: both side files exist, mode=ro in place.
    let writer = live_db(&path, 3);
    let before = names(t.path());
    assert_eq!(
        before,
        ["opencode.db", "opencode.db-shm", "opencode.db-wal"]
    );
    let db = open(&path).unwrap();
    assert_eq!(count(&db), 3);
    drop(db);
    assert_eq!(names(t.path()), before);
    // Closed: OpenCode folded the WAL in and removed both: immutable=1.
    drop(writer);
    assert_eq!(names(t.path()), ["opencode.db"]);
    let db = open(&path).unwrap();
    assert_eq!(count(&db), 3);
    drop(db);
    assert_eq!(names(t.path()), ["opencode.db"]);
}

#[test]
fn safe_io_2_a_fifo_wal_cannot_block_and_is_named() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("opencode.db");
    drop(live_db(&path, 2));
    let wal = t.path().join("opencode.db-wal");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&wal)
            .status()
            .unwrap()
            .success()
    );
    let db = open_bounded(&path).unwrap();
    assert_eq!(count(&db), 2);
    assert_eq!(db.notes.len(), 1, "{:?}", db.notes);
    assert!(
        db.notes[0].contains("is not a regular file (a FIFO)"),
        "{:?}",
        db.notes
    );
    assert_eq!(names(t.path()), ["opencode.db", "opencode.db-wal"]);
}

#[test]
fn safe_io_2_a_wal_without_its_shm_is_read_from_a_private_copy_then_removed() {
    let t = tempfile::tempdir().unwrap();
    let live = t.path().join("live");
    std::fs::create_dir(&live).unwrap();
    let writer = live_db(&live.join("opencode.db"), 5);
    // What a user shares: the database and its -wal, no -shm.
    let shared = t.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    for f in ["opencode.db", "opencode.db-wal"] {
        std::fs::copy(live.join(f), shared.join(f)).unwrap();
    }
    drop(writer);
    let path = shared.join("opencode.db");
    let db = open(&path).unwrap();
    // The rows still in the -wal are read too.
    assert_eq!(count(&db), 5);
    let copy = db._copy.as_ref().unwrap().path().to_path_buf();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&copy), 0o700);
    assert_eq!(mode(&copy.join("opencode.db")), 0o600);
    assert_eq!(mode(&copy.join("opencode.db-wal")), 0o600);
    assert_eq!(names(&shared), ["opencode.db", "opencode.db-wal"]);
    drop(db);
    assert!(!copy.exists(), "the private copy is removed");
    assert_eq!(names(&shared), ["opencode.db", "opencode.db-wal"]);
}

#[test]
fn safe_io_2_a_path_reaches_sqlite_as_bytes() {
    let t = tempfile::tempdir().unwrap();
    // A folder whose name is not UTF-8, and a look-alike beside it named as
    // a lossy conversion would name it.
    let odd = t
        .path()
        .join(std::ffi::OsString::from_vec(b"s\xffx?#%".to_vec()));
    let lossy = t.path().join("s\u{fffd}x?#%");
    for (dir, rows) in [(&odd, 4), (&lossy, 1)] {
        std::fs::create_dir(dir).unwrap();
        drop(live_db(&dir.join("opencode.db"), rows));
    }
    let db = open(&odd.join("opencode.db")).unwrap();
    assert_eq!(count(&db), 4);
    assert!(
        uri_path(&odd).contains("s%FFx%3F%23%25"),
        "{}",
        uri_path(&odd)
    );
}

/// The reviewer's case: a WAL database with a stale `-journal` beside it and
/// no `-wal` or `-shm` is read without creating either.
#[test]
fn safe_io_2_a_wal_database_with_a_stale_journal_creates_nothing_beside_it() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("opencode.db");
    drop(live_db(&path, 3));
    std::fs::write(t.path().join("opencode.db-journal"), b"").unwrap();
    assert_eq!(names(t.path()), ["opencode.db", "opencode.db-journal"]);
    let db = open(&path).unwrap();
    assert_eq!(count(&db), 3);
    drop(db);
    assert_eq!(names(t.path()), ["opencode.db", "opencode.db-journal"]);
}
