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
    // Folders are named from file names, never from JSON (an id could be
    // `/elsewhere` or `ses_/../x`): the session's messages are in the folder
    // named as its own file.
    let folder = path
        .file_stem()
        .filter(|s| single_component(s))
        .ok_or_else(|| unknown("not an OpenCode session file name".into()))?
        .to_os_string();
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
    let listed = rows(&storage.join("message").join(&folder), None);
    let mut parts = Vec::new();
    for (stem, m) in &listed {
        parts.extend(
            rows(&storage.join("part").join(stem), Some(&m.id))
                .into_iter()
                .map(|(_, p)| p),
        );
    }
    let messages = listed.into_iter().map(|(_, m)| m).collect();
    Ok(super::build::session(
        path, format, session, messages, parts, None,
    ))
}

fn read(path: &Path) -> Result<Value, String> {
    let bytes = regular::read_capped(path, CAP).map_err(|e| e.to_string())?;
    serde_json::from_slice(&bytes).map_err(super::super::json_error)
}

/// Whether a file stem may name a folder: one plain path component (no `/`,
/// not `.` or `..`, not empty).
fn single_component(stem: &std::ffi::OsStr) -> bool {
    let mut c = Path::new(stem).components();
    matches!(
        (c.next(), c.next()),
        (Some(std::path::Component::Normal(_)), None)
    )
}

/// The objects of one folder, by file name (the id), each with its file's
/// stem (the name of its own folder of parts): a missing folder has none.
fn rows(dir: &Path, message_id: Option<&str>) -> Vec<(std::ffi::OsString, Row)> {
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
        .filter_map(|p| {
            let os_stem = p
                .file_stem()
                .filter(|s| single_component(s))?
                .to_os_string();
            let stem = os_stem.to_string_lossy().into_owned();
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
            Some((
                os_stem,
                Row {
                    id: id.into(),
                    message_id: message_id.map(Box::from),
                    data: data.into(),
                },
            ))
        })
        .collect()
}
