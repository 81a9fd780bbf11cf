//! What Claude Code sends a status-line command on stdin (its docs: a JSON
//! object with `session_id`, `transcript_path`, `cwd`, `model: {id,
//! display_name}`, `workspace`, `version`, `cost`, …). Only two fields are
//! used; anything else may be there or not.

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, PartialEq)]
pub(crate) struct Input {
    pub transcript: PathBuf,
    pub model_id: Option<String>,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    transcript_path: Option<serde_json::Value>,
    #[serde(default)]
    model: Option<serde_json::Value>,
}

/// The input, or None when it is not a JSON object naming a transcript.
pub(crate) fn parse(stdin: &[u8]) -> Option<Input> {
    let raw: Raw = serde_json::from_slice(stdin).ok()?;
    let transcript = raw
        .transcript_path?
        .as_str()
        .filter(|p| !p.is_empty())?
        .to_string();
    let model_id = raw
        .model
        .as_ref()
        .and_then(|m| m.get("id"))
        .and_then(|id| id.as_str())
        .map(str::to_string);
    Some(Input {
        transcript: PathBuf::from(transcript),
        model_id,
    })
}

/// The context window (SPEC §15.18): 1,000,000 for a model id ending `[1m]`,
/// 200,000 for any other id, unknown without one.
pub(crate) fn window(model_id: Option<&str>) -> Option<u64> {
    model_id.map(|id| {
        if id.ends_with("[1m]") {
            1_000_000
        } else {
            200_000
        }
    })
}
