//! Opening OpenCode's SQLite database without ever writing beside it, without
//! ever hanging, and without leaving a copy of it readable by others (SPEC
//! §15.14, §18.22, reference §1.1–§1.2).
//!
//! OpenCode runs the database in WAL mode: a live OpenCode keeps
//! `opencode.db-wal` and `opencode.db-shm` next to it. How it is opened
//! depends on what is beside it (SPEC §18.22):
//!
//! - neither: `immutable=1`, which reads the file alone and never opens or
//!   creates a `-wal`, `-shm` or lock (a database in rollback mode with a
//!   regular `-journal` beside it: `mode=ro`, see [`mode`]);
//! - both, as regular files: `mode=ro` in place (SQLite writes its read marks
//!   into the existing `-shm`, its lock protocol, not a content write);
//! - anything else (a FIFO or device named `-wal`, a missing `-shm`): a
//!   private copy. The database file is copied through SQLite's backup API
//!   from an `immutable=1` connection (which never opens the `-wal`, so a FIFO
//!   there cannot block); a `-wal` that is a regular file is then read, within
//!   the cap, into the copy's own `-wal`, so its newest rows are read too.
//!   The copy lives in a folder of its own under `$TMPDIR` (mode 0700, files
//!   0600), is capped at `$TMPDIR`'s free space less 10 % (or
//!   `MCSCOPE_TMP_CAP` bytes), and is removed when the connection is dropped,
//!   on any error, at exit, and on SIGINT, SIGTERM or SIGHUP (`private`).
//!
//! Every side file is looked at with the same regular-file check as any input
//! before SQLite may open it, and the path reaches SQLite as bytes: in a
//! `file:` URI each byte that is not plain ASCII is percent-escaped, so a
//! name that is not UTF-8 opens that very file.

mod private;

use super::super::LoadError;
use rusqlite::{Connection, OpenFlags};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Removes every private copy still on disk (at exit: a copy a background
/// thread still holds is not dropped when the process ends).
pub fn remove_private_copies() {
    private::remove_live();
}

/// The first bytes of every SQLite 3 database.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// An open database: the connection, the private copy it reads (removed when
/// this is dropped), and what could not be read of it, in words.
pub struct Db {
    pub conn: Connection,
    pub notes: Vec<String>,
    _copy: Option<private::Folder>,
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

/// What is at a side file's place (a link followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Missing,
    Regular,
    /// A FIFO, device, socket, folder or dangling link: never opened.
    Other(&'static str),
}

fn side(path: &Path) -> Side {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Side::Missing,
        Err(_) => Side::Other("unreadable"),
        Ok(_) => match std::fs::metadata(path) {
            Ok(m) if m.is_file() => Side::Regular,
            Ok(m) => Side::Other(super::super::regular::describe(m.file_type())),
            Err(_) => Side::Other("a link to nothing"),
        },
    }
}

/// How [`open`] reads a database, from what lies beside it (SPEC §18.22).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Immutable,
    ReadOnly,
    Copy,
}

/// `wal_mode`: the header says WAL (OpenCode's databases). A WAL database
/// with no side files is read `immutable=1`: `mode=ro` would create a `-wal`
/// and `-shm` beside it. A rollback `-journal` beside a database in rollback
/// mode (any SQLite file may be named) keeps a writer's lock meaningful: that
/// file is read `mode=ro`, which waits for the writer and then says busy, or
/// refuses a hot journal, where `immutable=1` would read a half-written file.
fn mode(wal_mode: bool, wal: Side, shm: Side, journal: Side) -> Mode {
    match (wal, shm, journal) {
        (Side::Missing, Side::Missing, _) if wal_mode => Mode::Immutable,
        (Side::Missing, Side::Missing, Side::Missing) => Mode::Immutable,
        (Side::Missing, Side::Missing, Side::Regular) => Mode::ReadOnly,
        (Side::Regular, Side::Regular, Side::Missing | Side::Regular) => Mode::ReadOnly,
        _ => Mode::Copy,
    }
}

/// Opens `path` read-only (see the module's note).
pub fn open(path: &Path) -> Result<Db, LoadError> {
    open_as(path, true)
}

/// As [`open`], only in place: where a private copy would be needed, an
/// error (a message made again from its rows must be made of the rows the
/// load read, never of a copy taken again).
pub fn open_in_place(path: &Path) -> Result<Db, LoadError> {
    open_as(path, false)
}

impl Db {
    /// Whether the database is read in place (not through a private copy,
    /// which is removed when this is dropped).
    pub fn in_place(&self) -> bool {
        self._copy.is_none()
    }
}

fn open_as(path: &Path, copy: bool) -> Result<Db, LoadError> {
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
    let wal = side(&sidecar(path, "-wal"));
    let shm = side(&sidecar(path, "-shm"));
    let journal = side(&sidecar(path, "-journal"));
    // Bytes 18 and 19: the write and read format versions, 2 for WAL.
    let wal_mode = n >= 20 && (head[18] == 2 || head[19] == 2);
    let (conn, copy, notes) = match mode(wal_mode, wal, shm, journal) {
        Mode::Immutable => (open_uri(path, "immutable=1")?, None, Vec::new()),
        Mode::ReadOnly => (open_uri(path, "mode=ro")?, None, Vec::new()),
        Mode::Copy if !copy => {
            return Err(error(
                path,
                "the database can no longer be read in place (a -wal beside it without a -shm, or one that is not a regular file)",
            ));
        }
        Mode::Copy => {
            let (conn, folder, notes) = private_copy(path, wal)?;
            (conn, Some(folder), notes)
        }
    };
    conn.busy_timeout(std::time::Duration::from_millis(1500))
        .map_err(|e| sqlite_error(path, &e))?;
    // `query_only`: no statement of this connection may write, even to the copy.
    conn.pragma_update(None, "query_only", true)
        .map_err(|e| sqlite_error(path, &e))?;
    Ok(Db {
        conn,
        notes,
        _copy: copy,
    })
}

/// A read-only connection to `path` through a `file:` URI with `query`.
fn open_uri(path: &Path, query: &str) -> Result<Connection, LoadError> {
    let uri = format!("file:{}?{query}", uri_path(path));
    Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sqlite_error(path, &e))
}

/// The private copy of `path` (see the module's note), opened.
fn private_copy(
    path: &Path,
    wal: Side,
) -> Result<(Connection, private::Folder, Vec<String>), LoadError> {
    let folder = private::Folder::new().map_err(|e| LoadError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(e.kind(), format!("a private temporary folder: {e}")),
    })?;
    let wal_path = sidecar(path, "-wal");
    let wal_len = match wal {
        Side::Regular => std::fs::metadata(&wal_path).map(|m| m.len()).unwrap_or(0),
        _ => 0,
    };
    let db_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let cap = private::cap(folder.path()).map_err(|why| error(path, why))?;
    let too_big = |need: u64| {
        error(
            path,
            format!(
                "the database needs a private copy of {} MB in {} (there is a -wal but not both side files, or one is not a regular file), more than the {} MB allowed there (free space less 10 %, or MCSCOPE_TMP_CAP bytes); point TMPDIR at a folder with room",
                need.div_ceil(1 << 20),
                folder.parent().display(),
                cap >> 20
            ),
        )
    };
    if db_len.saturating_add(wal_len) > cap {
        return Err(too_big(db_len.saturating_add(wal_len)));
    }
    let copy = folder.path().join("opencode.db");
    let in_copy = |e: std::io::Error| LoadError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            e.kind(),
            format!("copying it into {}: {e}", folder.parent().display()),
        ),
    };
    private::create_private(&copy).map_err(in_copy)?;
    {
        let source = open_uri(path, "immutable=1")?;
        let mut dest = Connection::open_with_flags(
            &copy,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| sqlite_error(path, &e))?;
        let backup = rusqlite::backup::Backup::new(&source, &mut dest)
            .map_err(|e| sqlite_error(path, &e))?;
        backup
            .run_to_completion(256, std::time::Duration::ZERO, None)
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DiskFull) => too_big(db_len),
                _ => sqlite_error(path, &e),
            })?;
    }
    let mut notes = Vec::new();
    match wal {
        // What is left of the cap after the database's copy (the -wal may
        // have grown since it was measured).
        Side::Regular => copy_wal(&wal_path, &sidecar(&copy, "-wal"), cap.saturating_sub(db_len))
            .map_err(in_copy)?,
        Side::Missing => {}
        Side::Other(what) => notes.push(format!(
            "{} is not a regular file ({what}): not read, so rows OpenCode had not yet moved into the database are missing",
            wal_path.display()
        )),
    }
    // The copy is ours: opened read-write so that SQLite may replay the WAL
    // into its own `-shm`, inside the private folder.
    let conn = Connection::open_with_flags(
        &copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sqlite_error(path, &e))?;
    Ok((conn, folder, notes))
}

/// The bytes of a regular `-wal` into the copy's own, within `cap`.
fn copy_wal(from: &Path, to: &Path, cap: u64) -> std::io::Result<()> {
    use std::io::Read;
    let file = open_regular(from)?;
    let mut out = private::create_private(to)?;
    let n = std::io::copy(&mut file.take(cap), &mut out)?;
    if n >= cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "the -wal is larger than the cap",
        ));
    }
    out.sync_all()
}

fn read_head(path: &Path, head: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut f = open_regular(path)?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..])? {
            0 => break,
            got => n += got,
        }
    }
    Ok(n)
}

/// `path` opened only if it is a regular file (see `load::regular`), its
/// refusal as an I/O error.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use super::super::regular::{OpenError, open_regular};
    open_regular(path).map_err(|e| match e {
        OpenError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })
}

/// A path in a `file:` URI, byte for byte: every byte but unreserved ASCII
/// and `/` percent-escaped (SQLite decodes `%HH` to the byte), so a name
/// that is not UTF-8 reaches SQLite exactly.
fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for &b in abs.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
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

#[cfg(test)]
mod tests;
