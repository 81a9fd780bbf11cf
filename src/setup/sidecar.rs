//! The session sidecar (`SESSION.mcscope.json`): its policy keys, roots, path
//! map and cache TTL, read beside the session.

use super::{UsageError, err};
use crate::config;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A session sidecar: the JSON `policy` keys plus roots and path map.
#[derive(Debug, Default)]
pub struct Sidecar {
    pub keys: config::PolicyKeys,
    /// SPEC §9: `auto`, `5m` or `1h` (not part of `policy`).
    pub cache_ttl: Option<String>,
    pub memory_roots: BTreeMap<String, String>,
    pub path_map: BTreeMap<String, String>,
}

impl Sidecar {
    /// Reads a sidecar's JSON: the roots and the path map, and every other key a
    /// policy key (an unknown one is an error naming it).
    pub fn parse(text: &str) -> Result<Sidecar, String> {
        let mut v: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut table = |key: &str| -> Result<BTreeMap<String, String>, String> {
            v.remove(key)
                .map(serde_json::from_value)
                .transpose()
                .map(Option::unwrap_or_default)
                .map_err(|e| format!("{key}: {e}"))
        };
        let memory_roots = table("memory_roots")?;
        let path_map = table("path_map")?;
        let cache_ttl = match v.remove("cache_ttl") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s),
            Some(other) => return Err(format!("cache_ttl: expected a string, got {other}")),
        };
        let keys: config::PolicyKeys =
            serde_json::from_value(serde_json::Value::Object(v)).map_err(|e| e.to_string())?;
        Ok(Sidecar {
            keys,
            memory_roots,
            path_map,
            cache_ttl,
        })
    }
}

/// `claude-demo.jsonl` → `claude-demo.mcscope.json`.
pub fn sidecar_path(session: &Path) -> PathBuf {
    let stem = session
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".jsonl")
        .or_else(|| stem.strip_suffix(".json"))
        .unwrap_or(&stem)
        .to_string();
    session.with_file_name(format!("{stem}.mcscope.json"))
}

pub fn read_sidecar(session: &Path) -> Result<Option<(Sidecar, PathBuf)>, UsageError> {
    let path = sidecar_path(session);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(format!("{}: {e}", path.display()))),
    };
    let sidecar =
        Sidecar::parse(&text).map_err(|e| err(format!("{}: bad sidecar: {e}", path.display())))?;
    // Relative directories in a sidecar are relative to the sidecar's folder.
    // A bare file name's parent is the empty path: the current folder.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::path::absolute(dir).map_err(|e| err(format!("{}: {e}", path.display())))?;
    Ok(Some((sidecar, dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
