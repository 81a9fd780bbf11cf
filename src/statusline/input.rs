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

/// The context window (SPEC §15.18, §16.S, §18.11): 1,000,000 where the
/// model id holds `[1m]` or a recorded prompt of the session passed 200,000
/// tokens; 200,000 for another `claude-*` id; else unknown.
pub(crate) fn window(model_id: Option<&str>, max_prompt: u64) -> Option<u64> {
    if model_id.is_some_and(|id| id.contains("[1m]")) || max_prompt > 200_000 {
        Some(1_000_000)
    } else if model_id.is_some_and(|id| id.starts_with("claude-")) {
        Some(200_000)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::window;

    /// SPEC §18.11: 1M with `[1m]` or a recorded prompt past 200,000 (never a
    /// fill above its window); 200,000 for another `claude-*` id; else none.
    #[test]
    fn s18_11_the_window_from_the_id_and_the_recorded_prompts() {
        assert_eq!(window(Some("claude-sonnet-4-5[1m]"), 0), Some(1_000_000));
        assert_eq!(window(Some("claude-opus-4-5"), 356_000), Some(1_000_000));
        assert_eq!(window(Some("claude-opus-4-5"), 200_000), Some(200_000));
        assert_eq!(window(Some("gpt-5"), 10), None);
        assert_eq!(window(None, 10), None);
        assert_eq!(window(None, 250_000), Some(1_000_000));
    }
}
