//! OpenCode ≤ 1.1: one JSON file per object under `<data>/storage/` (reference
//! §1.1): `session/<project>/<session>.json`, `message/<session>/<message>.json`,
//! `part/<message>/<part>.json`; the same objects as the database's `data`, with
//! their `id`, `sessionID` and `messageID` back in them.

use super::super::{LoadError, regular};
use super::{Row, SessionInfo};
use crate::session::{Format, Session};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A part or message file above this is not read (a tool output is cut at
/// production to 51,200 bytes by default, reference §2.7).
const CAP: u64 = 256 << 20;

pub(super) fn load(path: &Path, format: Format) -> Result<Session, LoadError> {
    let unknown = |why: String| LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why,
    };
    let info: Value = read(path).map_err(|e| unknown(format!("not an OpenCode session: {e}")))?;
    if !super::is_session_json(&info) {
        return Err(unknown(
            "not an OpenCode session file (storage/session/<project>/<id>.json)".into(),
        ));
    }
    let id = info
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    // storage/session/<project>/<id>.json → storage/
    let storage = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let text = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_string);
    let session = SessionInfo {
        id: id.clone(),
        parent_id: text("parentID"),
        title: text("title").unwrap_or_default(),
        version: text("version"),
        directory: text("directory"),
        time_created: info.pointer("/time/created").and_then(Value::as_i64),
        time_updated: info.pointer("/time/updated").and_then(Value::as_i64),
        revert: info.get("revert").filter(|v| v.is_object()).cloned(),
        requests: 0,
        tools: 0,
    };
    let messages = rows(&storage.join("message").join(&id), None);
    let mut parts = Vec::new();
    for m in &messages {
        parts.extend(rows(&storage.join("part").join(&m.id), Some(&m.id)));
    }
    Ok(super::build::session(
        path, format, session, messages, parts,
    ))
}

fn read(path: &Path) -> Result<Value, String> {
    let bytes = regular::read_capped(path, CAP).map_err(|e| e.to_string())?;
    serde_json::from_slice(&bytes).map_err(super::super::json_error)
}

/// The objects of one folder, by file name (the id): a missing folder has none.
fn rows(dir: &Path, message_id: Option<&str>) -> Vec<Row> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let data = read(&p).and_then(|v| {
                if v.is_object() {
                    Ok(v)
                } else {
                    Err("not a JSON object".into())
                }
            });
            let id = data
                .as_ref()
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_str))
                .map_or(stem, str::to_string);
            Row {
                id,
                message_id: message_id.map(str::to_string),
                data,
            }
        })
        .collect()
}
