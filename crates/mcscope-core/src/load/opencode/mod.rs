//! OpenCode sessions (SPEC §14, §15.14; `shared/reference/opencode.md`): the
//! SQLite database of 1.2+ (`opencode.db`) and the JSON files of ≤ 1.1
//! (`storage/session/<project>/<session>.json`).
//!
//! Both hold the same objects (reference §1.2–§1.3): a session, its messages
//! and their parts, each ordered by id (ids are time-ordered, §1.2). Each
//! message becomes the Messages API body OpenCode's `toModelMessages` sends for
//! an Anthropic model (§1.4): a user message's text; an assistant message's
//! text, reasoning and tool calls, followed by a user message holding the tool
//! results (a tool part is the call and its result in one row). Those bodies go
//! through the Claude reader as inline messages, so that one request is made
//! per assistant message (§1.4: "request k is assistant message k").

mod build;
pub(crate) use build::{Remade, remake};
pub mod db;
pub(crate) mod export;
mod json;

use super::LoadError;
use crate::session::{Format, Session};
use serde_json::Value;
use std::path::Path;

/// One OpenCode session as stored (reference §1.2 `session`, §1.3 `Session.Info`).
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub id: String,
    /// Set on a sub-agent (`task`) session: planned as a what-if (SPEC §2).
    pub parent_id: Option<String>,
    pub title: String,
    /// The OpenCode version that created the session (SPEC §14 `request.version`).
    pub version: Option<String>,
    pub directory: Option<String>,
    pub time_created: Option<i64>,
    pub time_updated: Option<i64>,
    /// `revert`: `{messageID, partID?, …}` (reference §1.4).
    pub revert: Option<Value>,
    /// Its assistant messages (requests) and tool parts, for the picker.
    pub requests: usize,
    pub tools: usize,
}

/// One message or part row: its id, its message (parts) and its `data`.
#[derive(Debug, Clone)]
pub(super) struct Row {
    pub id: Box<str>,
    pub message_id: Option<Box<str>>,
    pub data: RowData,
}

/// The two tables of rows a session is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Message,
    Part,
}

impl Row {
    /// The row's data as a JSON object, or why it is skipped; a row left in
    /// the database (a row of `table`) is read from `stored`.
    pub(super) fn read(&self, stored: Option<&Stored<'_>>, table: Table) -> Result<Value, String> {
        self.data.read_at(&self.id, stored, table)
    }
}

/// A row's `data`: read already, kept as the database's text until it is read
/// (a long session's parts as trees of values are several times their text:
/// issue 41 item 5), or not readable (why, in words).
#[derive(Debug, Clone)]
pub(super) enum RowData {
    Read(Box<Value>),
    Text(Box<str>),
    /// A row left in the database (at its `rowid`), read from there again
    /// when the build reads it, within the load's one read transaction: a
    /// long session's rows held as text are as large as the database (issue
    /// 41 item 5).
    Stored(i64),
    Bad(Box<str>),
}

impl From<Result<Value, String>> for RowData {
    fn from(r: Result<Value, String>) -> Self {
        match r {
            Ok(v) => RowData::Read(Box::new(v)),
            Err(e) => RowData::Bad(e.into()),
        }
    }
}

impl RowData {
    /// The data as a JSON object, or why the row is skipped.
    /// (A row left in the database is read by [`Row::read`].)
    pub(super) fn read(&self) -> Result<Value, String> {
        match self {
            RowData::Read(v) => Ok((**v).clone()),
            RowData::Text(t) => object(t),
            RowData::Stored(_) => Err("the row is no longer at hand".into()),
            RowData::Bad(e) => Err(e.to_string()),
        }
    }

    /// As [`RowData::read`]; a row left in the database (the row `id` of
    /// `table`) is read from `stored`, and must still be that row (a table
    /// may name a column of its own `rowid`, which then need not be unique).
    pub(super) fn read_at(
        &self,
        id: &str,
        stored: Option<&Stored<'_>>,
        table: Table,
    ) -> Result<Value, String> {
        match (self, stored) {
            (RowData::Stored(rowid), Some(db)) => match read_row(db.conn, table, *rowid)? {
                (read, data) if *read == *id => Ok(data),
                _ => Err("its rowid no longer names it".into()),
            },
            (data, _) => data.read(),
        }
    }
}

/// Whether a row's `data` text is a part of `kind`: read only when the text
/// could name the kind (written plainly, or with a `\u` escape).
pub(super) fn names_kind(text: &str, kind: &str) -> bool {
    (text.contains(kind) || text.contains("\\u"))
        && object(text).is_ok_and(|p| p.get("type").and_then(Value::as_str) == Some(kind))
}

/// A column's bytes as text, as [`String::from_utf8_lossy`] reads them (a
/// byte that is not UTF-8 read as U+FFFD), checked first by the faster
/// whole-string test.
fn lossy(t: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(t) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(t),
    }
}

/// The database the load reads, for the rows it left there
/// ([`RowData::Stored`]): read by `rowid`, within the load's read
/// transaction, so every read sees the rows the first did.
pub(super) struct Stored<'a> {
    conn: &'a rusqlite::Connection,
    /// The database is read in place, so its rows can be read again after
    /// the load: the bodies are made again from them when read
    /// ([`remake`]), not held.
    in_place: bool,
    /// A part row left here is a `step-start` (see `Store::rows`).
    step_start: bool,
}

/// Row `rowid` of `table`: its id and its `data` as a
/// JSON object, or why it cannot be read.
fn read_row(
    conn: &rusqlite::Connection,
    table: Table,
    rowid: i64,
) -> Result<(String, Value), String> {
    let again = |e: rusqlite::Error| format!("cannot read the row again: {e}");
    let sql = match table {
        Table::Message => "SELECT id, data FROM message WHERE rowid = ?1",
        Table::Part => "SELECT id, data FROM part WHERE rowid = ?1",
    };
    let mut stmt = conn.prepare_cached(sql).map_err(again)?;
    stmt.query_row([rowid], |r| {
        let id = match r.get_ref(0)? {
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                String::from_utf8_lossy(t).into_owned()
            }
            _ => String::new(),
        };
        Ok(match r.get_ref(1)? {
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                object(&lossy(t)).map(|v| (id, v))
            }
            _ => Err("`data` is not text".into()),
        })
    })
    .map_err(again)?
}

/// A row's `data` text as a JSON object.
fn object(text: &str) -> Result<Value, String> {
    serde_json::from_str::<Value>(text)
        .map_err(super::json_error)
        .and_then(|v| {
            if v.is_object() {
                Ok(v)
            } else {
                Err("`data` is not a JSON object".into())
            }
        })
}

/// Loads one session of the database at `path`: `want` names it (`--session
/// ID`); without it the database must hold exactly one session.
/// `format` is the database's (what `session.format` prints).
pub(in crate::load) fn load_db(
    path: &Path,
    format: Format,
    want: Option<&str>,
) -> Result<Session, LoadError> {
    let db = db::open(path)?;
    // A small page cache: every row is read once in order, then each again
    // by rowid, so only the tables' inner pages are worth keeping.
    let _ = db.conn.pragma_update(None, "cache_size", -512);
    // One read transaction: every row the load reads, and each part row it
    // reads again, is of the same state of a live database.
    let tx = db
        .conn
        .unchecked_transaction()
        .map_err(|e| db::sqlite_error(path, &e))?;
    let store = Store::check(path, &tx)?;
    let sessions = store.sessions()?;
    let info = choose(path, &sessions, want)?;
    let (messages, _) = store.rows(&info.id, false)?;
    let (parts, step_start) = store.rows(&info.id, true)?;
    let stored = Stored {
        conn: &tx,
        in_place: db.in_place(),
        step_start,
    };
    let mut s = build::session(path, format, info.clone(), messages, parts, Some(&stored));
    s.diagnostics
        .extend(
            db.notes
                .iter()
                .chain(&store.skipped_rows())
                .map(|m| crate::session::Diagnostic {
                    line: 0,
                    byte_offset: 0,
                    message: m.clone(),
                }),
        );
    // SPEC §9a: the sub-agent (`task`) sessions' responses are billed beside
    // the main thread, never simulated (reference §1.3: `parent_id`; a
    // sub-agent's own sub-agents too).
    let mut todo = vec![info.id.clone()];
    let mut seen = std::collections::HashSet::new();
    while let Some(parent) = todo.pop() {
        for child in sessions
            .iter()
            .filter(|c| c.parent_id.as_deref() == Some(parent.as_str()))
        {
            if !seen.insert(child.id.clone()) {
                continue;
            }
            todo.push(child.id.clone());
            for row in store.rows(&child.id, false)?.0 {
                let Ok(m) = row.read(Some(&stored), Table::Message) else {
                    continue;
                };
                if m.get("role").and_then(Value::as_str) != Some("assistant") {
                    continue;
                }
                let Some(usage) = build::usage_of(&m) else {
                    continue;
                };
                s.sidechain_records += 1;
                s.sidechain_usage.push(crate::session::UsageLine {
                    message_id: Some(row.id.into()),
                    request_id: None,
                    model: m.get("modelID").and_then(Value::as_str).map(str::to_string),
                    usage,
                    at: None,
                    line: 0,
                    agent: Some(child.id.clone()),
                    path: None,
                });
            }
        }
    }
    Ok(s)
}

/// The sessions of the database at `path`, newest first (the picker, the
/// listing of an exit 2).
pub fn db_sessions(path: &Path) -> Result<Vec<SessionInfo>, LoadError> {
    let db = db::open(path)?;
    Store::check(path, &db.conn)?.sessions()
}

/// Loads the ≤ 1.1 session whose `storage/session/<project>/<id>.json` is `path`.
pub(in crate::load) fn load_json(path: &Path, format: Format) -> Result<Session, LoadError> {
    json::load(path, format)
}

/// Whether `v` (a whole JSON file) is a ≤ 1.1 session info object.
pub fn is_session_json(v: &Value) -> bool {
    v.get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.starts_with("ses_"))
        && v.get("projectID").is_some()
        && v.get("time").is_some_and(Value::is_object)
}

/// The session `want` names, or the only one; else an exit 2 listing them.
fn choose(
    path: &Path,
    sessions: &[SessionInfo],
    want: Option<&str>,
) -> Result<SessionInfo, LoadError> {
    let list = || listing(sessions);
    match want {
        Some(id) => sessions
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| LoadError::Sessions {
                path: path.to_path_buf(),
                why: format!("no session {id:?} in this database"),
                list: list(),
            }),
        None if sessions.len() == 1 => Ok(sessions[0].clone()),
        None if sessions.is_empty() => {
            Err(db::error(path, "the OpenCode database holds no session"))
        }
        None => Err(LoadError::Sessions {
            path: path.to_path_buf(),
            why: format!(
                "{} sessions in this database; choose one with --session ID",
                sessions.len()
            ),
            list: list(),
        }),
    }
}

/// The sessions as lines: id, what it is, title, version, last update.
pub fn listing(sessions: &[SessionInfo]) -> String {
    sessions
        .iter()
        .map(|s| {
            let when = s
                .time_updated
                .and_then(chrono::DateTime::from_timestamp_millis)
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_else(|| "?".into());
            let kind = match &s.parent_id {
                Some(p) => format!(" (sub-agent of {p})"),
                None => String::new(),
            };
            format!(
                "  {}  {}  {}{}  [{}]",
                s.id,
                when,
                crate::sanitize::line(&s.title),
                kind,
                s.version.as_deref().unwrap_or("?")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tables the loader reads, checked once (reference §1.2).
struct Store<'a> {
    path: &'a Path,
    conn: &'a rusqlite::Connection,
    session_cols: Vec<String>,
}

impl<'a> Store<'a> {
    /// The schema must have `session`, `message` and `part` with the columns
    /// the loader reads; anything else is an unknown schema (exit 2).
    fn check(path: &'a Path, conn: &'a rusqlite::Connection) -> Result<Store<'a>, LoadError> {
        let sq = |e: rusqlite::Error| db::sqlite_error(path, &e);
        let session_cols = db::columns(conn, "session").map_err(sq)?;
        let need: [(&str, &[&str]); 3] = [
            ("session", &["id"]),
            ("message", &["id", "session_id", "data"]),
            ("part", &["id", "message_id", "session_id", "data"]),
        ];
        for (table, cols) in need {
            let have = db::columns(conn, table).map_err(sq)?;
            let missing: Vec<&str> = cols
                .iter()
                .copied()
                .filter(|c| !have.iter().any(|h| h == c))
                .collect();
            if have.is_empty() || !missing.is_empty() {
                return Err(db::error(
                    path,
                    format!(
                        "an SQLite database of an unknown schema: {} (mcscope reads OpenCode 1.2+ `opencode.db`: tables session, message, part)",
                        if have.is_empty() {
                            format!("no table `{table}`")
                        } else {
                            format!("table `{table}` lacks {}", missing.join(", "))
                        }
                    ),
                ));
            }
        }
        Ok(Store {
            path,
            conn,
            session_cols,
        })
    }

    /// Every session, newest first.
    fn sessions(&self) -> Result<Vec<SessionInfo>, LoadError> {
        let sq = |e: rusqlite::Error| db::sqlite_error(self.path, &e);
        let col = |c: &str| {
            if self.session_cols.iter().any(|h| h == c) {
                format!("\"{c}\"")
            } else {
                "NULL".to_string()
            }
        };
        let sql = format!(
            "SELECT id, {}, {}, {}, {}, {}, {}, {} FROM session",
            col("parent_id"),
            col("title"),
            col("version"),
            col("directory"),
            col("time_created"),
            col("time_updated"),
            col("revert"),
        );
        let mut stmt = self.conn.prepare(&sql).map_err(sq)?;
        let text = |r: &rusqlite::Row, i| -> rusqlite::Result<Option<String>> {
            Ok(match r.get_ref(i)? {
                rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
                _ => None,
            })
        };
        let int = |r: &rusqlite::Row, i| -> rusqlite::Result<Option<i64>> {
            Ok(match r.get_ref(i)? {
                rusqlite::types::ValueRef::Integer(n) => Some(n),
                rusqlite::types::ValueRef::Real(x) => Some(x as i64),
                _ => None,
            })
        };
        let rows = stmt
            .query_map([], |r| {
                Ok(SessionInfo {
                    id: text(r, 0)?.unwrap_or_default(),
                    parent_id: text(r, 1)?,
                    title: text(r, 2)?.unwrap_or_default(),
                    version: text(r, 3)?,
                    directory: text(r, 4)?,
                    time_created: int(r, 5)?,
                    time_updated: int(r, 6)?,
                    revert: text(r, 7)?.and_then(|t| serde_json::from_str(&t).ok()),
                    requests: 0,
                    tools: 0,
                })
            })
            .map_err(sq)?;
        let mut out: Vec<SessionInfo> = rows.collect::<Result<_, _>>().map_err(sq)?;
        // The picker's counts: a row whose `data` is no JSON counts as neither.
        // A row of another session that is malformed (a blob or number as
        // its `session_id`) is no reason to refuse the database: it counts
        // for no session (`skipped_rows` says so once).
        let counts = |sql: &str| -> Result<std::collections::HashMap<String, usize>, LoadError> {
            let mut stmt = self.conn.prepare(sql).map_err(sq)?;
            let rows = stmt
                .query_map([], |r| {
                    let key = match r.get_ref(0)? {
                        rusqlite::types::ValueRef::Text(t) => {
                            Some(String::from_utf8_lossy(t).into_owned())
                        }
                        _ => None,
                    };
                    let n = match r.get_ref(1)? {
                        rusqlite::types::ValueRef::Integer(n) => n,
                        _ => 0,
                    };
                    Ok((key, n))
                })
                .map_err(sq)?;
            let mut out = std::collections::HashMap::new();
            for row in rows {
                let (key, n) = row.map_err(sq)?;
                if let Some(k) = key {
                    out.insert(k, usize::try_from(n).unwrap_or(0));
                }
            }
            Ok(out)
        };
        let requests = counts(
            "SELECT session_id, COUNT(*) FROM message WHERE CASE WHEN json_valid(data) THEN json_extract(data, '$.role') = 'assistant' END GROUP BY session_id",
        )?;
        let tools = counts(
            "SELECT session_id, COUNT(*) FROM part WHERE CASE WHEN json_valid(data) THEN json_extract(data, '$.type') = 'tool' END GROUP BY session_id",
        )?;
        for s in &mut out {
            s.requests = requests.get(&s.id).copied().unwrap_or(0);
            s.tools = tools.get(&s.id).copied().unwrap_or(0);
        }
        out.sort_by(|a, b| {
            b.time_updated
                .cmp(&a.time_updated)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(out)
    }

    /// One line naming the message and part rows whose `session_id` is not
    /// text: read for no session, the database still read. Empty when there
    /// are none.
    fn skipped_rows(&self) -> Vec<String> {
        let n = |table: &str| -> i64 {
            self.conn
                .query_row(
                    &format!("SELECT COUNT(*) FROM {table} WHERE typeof(session_id) != 'text'"),
                    [],
                    |r| r.get(0),
                )
                .unwrap_or(0)
        };
        let (m, p) = (n("message"), n("part"));
        if m + p == 0 {
            return Vec::new();
        }
        vec![format!(
            "{m} message and {p} part rows skipped: their session_id is not text (malformed rows; no session can own them)"
        )]
    }

    /// The messages (or parts) of session `id`, ordered by id (reference §1.2:
    /// "order messages and parts by id; this matches the loop's own order").
    /// A row is left in the database where its table has rowids (OpenCode's
    /// do; [`RowData::Stored`]). Also whether one of the part rows left there
    /// is a `step-start` ([`names_kind`], looked at until one is found: the
    /// build asks only whether the session records any).
    fn rows(&self, id: &str, parts: bool) -> Result<(Vec<Row>, bool), LoadError> {
        let sq = |e: rusqlite::Error| db::sqlite_error(self.path, &e);
        let (with_rowid, without) = if parts {
            (
                "SELECT id, message_id, data, rowid FROM part WHERE session_id = ?1 ORDER BY message_id, id",
                "SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id",
            )
        } else {
            (
                "SELECT id, NULL, data, rowid FROM message WHERE session_id = ?1 ORDER BY id",
                "SELECT id, NULL, data FROM message WHERE session_id = ?1 ORDER BY id",
            )
        };
        // A table without rowids, or with a column of its own named `rowid`
        // (neither is OpenCode's): its rows are kept.
        let table = if parts { "part" } else { "message" };
        let shadowed = db::columns(self.conn, table)
            .map_err(sq)?
            .iter()
            .any(|c| c.eq_ignore_ascii_case("rowid"));
        let mut stmt = match self.conn.prepare(with_rowid) {
            Ok(stmt) if !shadowed => stmt,
            _ => self.conn.prepare(without).map_err(sq)?,
        };
        let mut step_start = false;
        let rows = stmt
            .query_map([id], |r| {
                let text = |i| -> rusqlite::Result<Option<Box<str>>> {
                    Ok(match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                            Some(lossy(t).into())
                        }
                        _ => None,
                    })
                };
                let rowid = match r.get_ref(3) {
                    Ok(rusqlite::types::ValueRef::Integer(rowid)) => Some(rowid),
                    _ => None,
                };
                // Read when the build reads the row (`Row::read`).
                let data = match r.get_ref(2)? {
                    rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                        let t = lossy(t);
                        match rowid {
                            Some(rowid) => {
                                step_start = step_start || (parts && names_kind(&t, "step-start"));
                                RowData::Stored(rowid)
                            }
                            None => RowData::Text(t.into()),
                        }
                    }
                    _ => RowData::Bad("`data` is not text".into()),
                };
                Ok(Row {
                    id: text(0)?.unwrap_or_default(),
                    message_id: text(1)?,
                    data,
                })
            })
            .map_err(sq)?;
        let rows = rows.collect::<Result<_, _>>().map_err(sq)?;
        Ok((rows, step_start))
    }
}
