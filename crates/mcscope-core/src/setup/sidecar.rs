//! The session sidecar (`SESSION.mcscope.json`): its policy keys, roots, path
//! map and cache TTL, read beside the session.

use super::UsageError;
use crate::config;
use crate::load::sidecar_path;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A session sidecar: the JSON `policy` keys plus roots and path map, read as
/// typed fields (the keys are [`config::PolicyKeys`], flattened).
#[derive(Deserialize, Debug, Default)]
pub struct Sidecar {
    /// SPEC §9: `auto`, `5m` or `1h` (not part of `policy`).
    #[serde(default, deserialize_with = "cache_ttl")]
    pub cache_ttl: Option<String>,
    #[serde(default, deserialize_with = "memory_roots")]
    pub memory_roots: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "path_map")]
    pub path_map: BTreeMap<String, String>,
    #[serde(flatten)]
    pub keys: config::PolicyKeys,
    /// What is neither of the above nor a policy key (an error naming it).
    #[serde(flatten)]
    unknown: BTreeMap<String, serde_json::Value>,
}

/// A table of names, its errors prefixed with its key.
fn table<'de, D: Deserializer<'de>>(key: &str, d: D) -> Result<BTreeMap<String, String>, D::Error> {
    BTreeMap::deserialize(d).map_err(|e| D::Error::custom(format!("{key}: {e}")))
}

fn memory_roots<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    table("memory_roots", d)
}

fn path_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    table("path_map", d)
}

/// `cache_ttl`: a string or null (its value is checked with the config's).
fn cache_ttl<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s)),
        other => Err(D::Error::custom(format!(
            "cache_ttl: expected a string, got {other}"
        ))),
    }
}

impl Sidecar {
    /// Reads a sidecar's JSON: the roots and the path map, and every other key a
    /// policy key (an unknown one is an error naming it and the keys there are).
    pub fn parse(text: &str) -> Result<Sidecar, String> {
        // Read as an object first: a syntax error or a non-object says where.
        let v: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let sidecar = match Sidecar::deserialize(serde_json::Value::Object(v.clone())) {
            Ok(s) => s,
            // A value of the wrong type: named by its key and line (SPEC §7a).
            Err(e) => return Err(super::key_error::name(text, &v).unwrap_or(e.to_string())),
        };
        if let Some((key, value)) = sidecar.unknown.into_iter().next() {
            // serde's own message for the key, listing the policy keys.
            let one = serde_json::Map::from_iter([(key, value)]);
            return Err(
                serde_json::from_value::<config::PolicyKeys>(serde_json::Value::Object(one))
                    .err()
                    .map_or_else(|| "unknown key".into(), |e| e.to_string()),
            );
        }
        Ok(Sidecar {
            unknown: BTreeMap::new(),
            ..sidecar
        })
    }
}

/// A sidecar read, and the folder its relative directories are taken against.
pub(crate) type Found = Option<(Sidecar, PathBuf)>;

pub fn read_sidecar(session: &Path) -> Result<Found, UsageError> {
    read_sidecar_noting(session).map(|(found, _)| found)
}

/// As [`read_sidecar`], with a note when a sidecar beside the session was
/// ignored: one that is not a regular file (a FIFO would block the read, a
/// device never end), or is over the 1 MB cap (SPEC §15.25). The file was not
/// asked for by name, so it is left out with a diagnostic, not an error.
pub(crate) fn read_sidecar_noting(session: &Path) -> Result<(Found, Option<String>), UsageError> {
    use crate::load::regular::{OpenError, SMALL_FILE_CAP, read_capped_text};
    let path = sidecar_path(session);
    let text = match read_capped_text(&path, SMALL_FILE_CAP) {
        Ok(t) => t,
        Err(e) if e.not_found() => return Ok((None, None)),
        Err(e @ (OpenError::NotRegular(_) | OpenError::TooBig(_))) => {
            let note = format!("{}: sidecar ignored: {e}", path.display());
            return Ok((None, Some(note)));
        }
        Err(e) => return Err(UsageError::io(&path, e)),
    };
    let sidecar = Sidecar::parse(&text).map_err(|e| UsageError::BadSidecar {
        path: path.display().to_string(),
        why: e.to_string(),
    })?;
    // Relative directories in a sidecar are relative to the sidecar's folder.
    // A bare file name's parent is the empty path: the current folder.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::path::absolute(dir).map_err(|e| UsageError::io(&path, e))?;
    Ok((Some((sidecar, dir)), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_reads_typed_keys_and_names_what_it_cannot_read() {
        let s = Sidecar::parse(
            r#"{"keep_recent": 2, "delivery": "rewrite", "cache_ttl": "5m",
                "memory_roots": {"project": "mem"}, "path_map": {"D:\\w": "/w"},
                "qwen": {"keep_recent": 1}}"#,
        )
        .unwrap();
        assert_eq!(s.keys.get("keep_recent"), Some(&config::KeyValue::U32(2)));
        assert_eq!(
            s.keys.get("delivery"),
            Some(&config::KeyValue::Str("rewrite".into()))
        );
        assert_eq!(
            s.keys.for_preset("qwen").unwrap().get("keep_recent"),
            Some(&config::KeyValue::U32(1))
        );
        assert_eq!(s.cache_ttl.as_deref(), Some("5m"));
        assert_eq!(s.memory_roots["project"], "mem");
        assert_eq!(s.path_map["D:\\w"], "/w");
        let e = Sidecar::parse(r#"{"keep_recnt": 3}"#).unwrap_err();
        assert!(
            e.starts_with("unknown field `keep_recnt`, expected one of `kind`, `keep_recent`"),
            "{e}"
        );
        let e = Sidecar::parse(r#"{"keep_recent": "three"}"#).unwrap_err();
        assert_eq!(
            e,
            "line 1: keep_recent: expected a whole number, 0 or more, found \"three\""
        );
        let e = Sidecar::parse(r#"{"memory_roots": 5}"#).unwrap_err();
        assert_eq!(
            e,
            "line 1: memory_roots: expected a table of names, found 5"
        );
        let e = Sidecar::parse(r#"{"cache_ttl": 5}"#).unwrap_err();
        assert_eq!(e, "line 1: cache_ttl: expected a string, found 5");
        let e = Sidecar::parse("[]").unwrap_err();
        assert!(
            e.starts_with("invalid type: sequence, expected a map"),
            "{e}"
        );
    }

    #[test]
    fn sidecar_replaces_the_extension() {
        assert_eq!(
            sidecar_path(Path::new("a/claude-demo.jsonl")),
            PathBuf::from("a/claude-demo.mcscope.json")
        );
        assert_eq!(
            sidecar_path(Path::new("body.json")),
            PathBuf::from("body.mcscope.json")
        );
    }
}
