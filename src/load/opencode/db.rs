//! Opening OpenCode's SQLite database without ever writing beside it (SPEC
//! §15.14, reference §1.1–§1.2).
//!
//! OpenCode runs the database in WAL mode, so a live OpenCode keeps
//! `opencode.db-wal` and `opencode.db-shm` next to it, and a reader of a WAL
//! database writes its read marks into the `-shm` file (and creates it when it
//! is missing). So: a database whose header says WAL (or that has a `-wal`
//! or `-shm` beside it) is copied, with its `-wal`, to a
//! temporary folder and the copy is read (the newest rows still in the WAL
//! included); any other database is opened `mode=ro` in place, which takes only
//! a shared lock and creates no file.

use super::super::LoadError;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// The first bytes of every SQLite 3 database.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// An open database: the connection, and the temporary copy it reads (kept
/// alive as long as the connection).
pub struct Db {
    pub conn: Connection,
    _copy: Option<tempfile::TempDir>,
}

/// A database that cannot be read, in words (exit 2, never a panic).
pub(super) fn error(path: &Path, why: impl Into<String>) -> LoadError {
    LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// The words for a SQLite error: busy, not a database, corrupt, or as SQLite says it.
pub(super) fn sqlite_error(path: &Path, e: &rusqlite::Error) -> LoadError {
    use rusqlite::ErrorCode;
    let why = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            "the OpenCode database is busy (locked by a writer); try again in a moment".to_string()
        }
        Some(ErrorCode::NotADatabase) => {
            "not an SQLite database (an OpenCode database was expected)".to_string()
        }
        Some(ErrorCode::DatabaseCorrupt) => {
            "the OpenCode database is corrupt (SQLite: database disk image is malformed)"
                .to_string()
        }
        _ => format!("cannot read the OpenCode database: {e}"),
    };
    error(path, why)
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Opens `path` read-only (see the module's note).
pub fn open(path: &Path) -> Result<Db, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    // SQLite keeps `-wal` and `-shm` beside the database's real file: a
    // symlinked database is read where it resolves, so its WAL is not missed.
    let real = std::fs::canonicalize(path).map_err(io)?;
    let path = real.as_path();
    let mut head = [0u8; 100];
    let n = read_head(path, &mut head).map_err(io)?;
    if n < MAGIC.len() || &head[..MAGIC.len()] != MAGIC {
        return Err(error(path, "not an SQLite database"));
    }
    // Bytes 18 and 19: the write and read format versions, 2 for WAL.
    let wal_mode = n >= 20 && (head[18] == 2 || head[19] == 2);
    // A `-journal` (rollback mode) is no reason to copy: a writer holds its
    // lock (the read below waits, then says busy), or the journal is hot and
    // SQLite refuses to read without rolling it back (an error, exit 2).
    let beside = ["-wal", "-shm"].iter().any(|s| sidecar(path, s).exists());
    let (conn, copy) = if wal_mode || beside {
        let dir = tempfile::Builder::new()
            .prefix("mcscope-opencode-")
            .tempdir()
            .map_err(io)?;
        let copy = dir.path().join("opencode.db");
        // The WAL first: a checkpoint between the two copies then only moves
        // frames the copied WAL still holds into the database.
        let wal = sidecar(path, "-wal");
        if wal.exists() {
            std::fs::copy(&wal, sidecar(&copy, "-wal")).map_err(io)?;
        }
        std::fs::copy(path, &copy).map_err(io)?;
        // The copy is ours: opened read-write so that SQLite may replay the WAL
        // into its own `-shm` in the temporary folder.
        let conn = Connection::open_with_flags(
            &copy,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| sqlite_error(path, &e))?;
        (conn, Some(dir))
    } else {
        let uri = format!("file:{}?mode=ro", uri_path(path));
        let conn = Connection::open_with_flags(
            uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| sqlite_error(path, &e))?;
        (conn, None)
    };
    conn.busy_timeout(std::time::Duration::from_millis(1500))
        .map_err(|e| sqlite_error(path, &e))?;
    // `query_only`: no statement of this connection may write, even to the copy.
    conn.pragma_update(None, "query_only", true)
        .map_err(|e| sqlite_error(path, &e))?;
    Ok(Db { conn, _copy: copy })
}

fn read_head(path: &Path, head: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut f = super::super::regular::open_regular(path).map_err(|e| match e {
        super::super::regular::OpenError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..])? {
            0 => break,
            got => n += got,
        }
    }
    Ok(n)
}

/// A path in a `file:` URI: `%`, `?` and `#` escaped (SQLite's URI rules).
fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for c in abs.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// The columns of `table` (empty when there is no such table).
pub(super) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(1))?;
    rows.collect()
}
