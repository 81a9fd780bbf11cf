//! Reading a message back from the transcript as the API sees it: the loader
//! keeps where each message's records are, and these read just those bytes
//! (for a database, OpenCode's, which rows make it, and these make it again).
//! The wire builds bodies from them; plans that need a message's content read
//! it here too, so neither depends on the other.

use crate::load;
use crate::session::{HarnessId, Inline, Part, Role, Session};
use serde_json::{Map, Value, json};

/// Where messages are read back from: the session's file, and for a session
/// of a database (OpenCode's), a connection to it, opened when a body is
/// first made again from its rows.
pub struct Source<'a> {
    file: Handle<'a>,
    path: std::path::PathBuf,
    db: std::cell::OnceCell<Result<load::opencode::db::Db, String>>,
    remade: std::cell::RefCell<load::opencode::Remade>,
}

enum Handle<'a> {
    Own(std::fs::File),
    Lent(&'a std::fs::File),
}

impl<'a> Source<'a> {
    /// A source reading through `file`, already open at `path` (a loader's
    /// own handle, while it loads).
    pub fn lent(file: &'a std::fs::File, path: &std::path::Path) -> Source<'a> {
        Source {
            file: Handle::Lent(file),
            path: path.to_path_buf(),
            db: std::cell::OnceCell::new(),
            remade: Default::default(),
        }
    }

    /// The session's file.
    pub fn file(&self) -> &std::fs::File {
        match &self.file {
            Handle::Own(f) => f,
            Handle::Lent(f) => f,
        }
    }

    /// The session's database, opened read-only in place (never a private
    /// copy: the rows must be the ones the load read), once per source.
    fn db(&self) -> std::io::Result<&rusqlite::Connection> {
        self.db
            .get_or_init(|| {
                load::opencode::db::open_in_place(&self.path).map_err(|e| e.to_string())
            })
            .as_ref()
            .map(|db| &db.conn)
            .map_err(|e| std::io::Error::other(e.clone()))
    }
}

/// The session's file, opened to read messages back: only while it is still
/// a regular file (a FIFO put in its place since the load would block the
/// read for ever), and never waiting to open (`regular::open_regular`).
pub fn open_session(s: &Session) -> std::io::Result<Source<'static>> {
    Ok(Source {
        file: Handle::Own(load::regular::open_regular_io(&s.path)?),
        path: s.path.clone(),
        db: std::cell::OnceCell::new(),
        remade: Default::default(),
    })
}

/// Every message of the session as the API sees it, in order, one at a time.
pub fn each_message(s: &Session, mut f: impl FnMut(usize, Value)) -> std::io::Result<()> {
    let file = open_session(s)?;
    for m in 0..s.messages.len() {
        f(m, message_from(&file, s, m)?);
    }
    Ok(())
}

/// `f` of messages `ids` (in their order) as the API sees them, read back
/// one after the other; stops at the first that cannot be read.
pub fn each_of(s: &Session, ids: &[usize], mut f: impl FnMut(usize, Value)) -> std::io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let file = open_session(s)?;
    for &m in ids {
        f(m, message_from(&file, s, m)?);
    }
    Ok(())
}

/// `f` of every message of the session as the API sees it, read on every core
/// (chunks of messages, each with its own file handle), in message order.
pub fn map_messages<T: Send>(
    s: &Session,
    f: impl Fn(usize, &Value) -> T + Sync,
) -> std::io::Result<Vec<T>> {
    let ids: Vec<usize> = (0..s.messages.len()).collect();
    map_these(s, &ids, f)
}

/// As [`map_messages`], of messages `ids` only, in their order.
pub fn map_these<T: Send>(
    s: &Session,
    ids: &[usize],
    f: impl Fn(usize, &Value) -> T + Sync,
) -> std::io::Result<Vec<T>> {
    use rayon::prelude::*;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let chunks: Vec<std::io::Result<Vec<T>>> = ids
        .par_chunks(256)
        .map(|chunk| {
            let file = open_session(s)?;
            chunk
                .iter()
                .map(|&m| message_from(&file, s, m).map(|v| f(m, &v)))
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(ids.len());
    for c in chunks {
        out.extend(c?);
    }
    Ok(out)
}

/// One message as the API sees it: Claude `{role, content}`, Qwen `{role, parts}`.
pub(crate) fn message_from(file: &Source<'_>, s: &Session, m: usize) -> std::io::Result<Value> {
    let msg = &s.messages[m];
    let mut pieces: Vec<Value> = Vec::new();
    let shape = s.harness.rules().wire;
    let key = shape.content;
    for part in &msg.parts {
        let mut value = match part {
            Part::Record { offset, len, .. } => {
                // Only `message` is read: the rest (toolUseResult…) is skipped unparsed.
                #[derive(serde::Deserialize)]
                struct Record {
                    #[serde(default)]
                    message: Value,
                }
                let bytes = load::read_span(file.file(), *offset, *len)?;
                match serde_json::from_slice::<Record>(&bytes) {
                    Ok(r) => r.message,
                    // Deeper than serde's recursion limit, or changed since loading:
                    // show the message as unreadable rather than fail the request.
                    Err(e) => {
                        unreadable_message(s.harness, msg.first_line, &load::json_error_text(&e))
                    }
                }
            }
            Part::Inline(v) => match inline_body(v, Some(file))? {
                Ok(v) => v,
                // Made of a database's rows: there is no line to name.
                Err(e) if v.rows().is_some() => s.harness.dialect().text_body(format!(
                    "[mcscope: the message could not be read back: {e}]"
                )),
                // Changed since loading: unreadable, as a record is.
                Err(e) => unreadable_message(s.harness, msg.first_line, &e),
            },
        };
        // The value is this call's own: its content is moved out, not copied.
        pieces.push(value.get_mut(key).map_or(Value::Null, Value::take));
    }
    let role = match msg.role {
        Role::User => shape.user_role,
        Role::Assistant => shape.assistant_role,
    };
    let content = if pieces.len() == 1 && pieces[0].is_string() {
        pieces.pop().unwrap_or(Value::Null)
    } else {
        let mut blocks = Vec::new();
        for p in pieces {
            match p {
                Value::Array(a) => blocks.extend(a),
                Value::String(text) if s.harness.dialect().string_is_text_block() => {
                    blocks.push(json!({"type": "text", "text": text}))
                }
                Value::Null => {}
                other => blocks.push(other),
            }
        }
        Value::Array(blocks)
    };
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    out.insert(key.into(), content);
    Ok(Value::Object(out))
}

/// An inline body as a value: parsed from its text, read back from `from`'s
/// file when the loader did not hold it ([`Inline::line`]), or made again
/// from rows of its database ([`Inline::rows`]); `from` is the caller's
/// source (`None` where there is none to read). The outer error is the
/// read's; the inner one, in words, says the bytes no longer parse or the
/// rows no longer make that body (the session changed since it was loaded),
/// which a caller shows as an unreadable message, as it does a Claude Code
/// record's.
pub fn inline_body(
    body: &Inline,
    from: Option<&Source<'_>>,
) -> std::io::Result<Result<Value, String>> {
    let no_source = || std::io::Error::other("no file to read the message back from");
    if let Some(rows) = body.rows() {
        let from = from.ok_or_else(no_source)?;
        let db = from.db()?;
        return Ok(load::opencode::remake(
            db,
            rows,
            &mut from.remade.borrow_mut(),
        ));
    }
    let Some((offset, len, make)) = body.line() else {
        return Ok(Ok(body.value()));
    };
    let file = from.ok_or_else(no_source)?;
    let bytes = load::read_span(file.file(), offset, len)?;
    let value = serde_json::from_slice(&bytes);
    // The line's bytes go before the body is made of its value.
    drop(bytes);
    Ok(value.map(make).map_err(|e| load::json_error_text(&e)))
}

/// The first body of message `m` (an inline one: Gemini CLI's messages,
/// kept as text or read back from `file`, the session's file), or Null where
/// it cannot be read.
pub fn message_body(s: &Session, file: Option<&Source<'_>>, m: usize) -> Value {
    match s.messages[m].parts.first() {
        Some(Part::Inline(v)) => match inline_body(v, file) {
            Ok(Ok(v)) => v,
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// The `parts` element of result `r` in the loaded session (Gemini CLI), or
/// Null.
pub fn result_part(s: &Session, file: Option<&Source<'_>>, r: usize) -> Value {
    let res = &s.results[r];
    crate::harness::gemini_cli::part_of(&message_body(s, file, res.msg), res.part)
}

/// A stand-in for a record the wire builder could not read back.
fn unreadable_message(harness: HarnessId, line: usize, why: &str) -> Value {
    let text = format!("[mcscope: the record near line {line} could not be read back: {why}]");
    harness.dialect().text_body(text)
}
