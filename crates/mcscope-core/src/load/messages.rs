//! One Anthropic Messages API request body: `{model?, system?, tools?, messages:[…]}`.
//! Its requests are its assistant messages plus the trailing user message (SPEC §6).
//! Each message is read as a Claude record would be, by the Claude loader.

use super::claude;
use super::{LoadError, RecordSink};
use crate::session::{Format, Part, Session};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::path::Path;

pub(super) fn load(path: &Path, mut file: File, format: Format) -> Result<Session, LoadError> {
    let unknown = |why: String| LoadError::UnknownFormat {
        path: path.to_path_buf(),
        why,
    };
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    // A byte-order mark is no part of the body (SPEC §1: skipped).
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut body: Value =
        serde_json::from_str(body).map_err(|e| unknown(format!("not a Messages API body: {e}")))?;
    // The text is parsed: it is not held beside its values.
    drop(text);
    let messages = match body.get_mut("messages").map(Value::take) {
        Some(Value::Array(m)) => m,
        _ => {
            return Err(unknown(
                "not a Messages API body: no `messages` array".into(),
            ));
        }
    };
    let mut sink = claude::Sink::for_format(path, format);
    let mut diagnostics = Vec::new();
    // Each message is moved into its part, never copied: a long body is held
    // once.
    for (i, m) in messages.into_iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let kind = if role == "assistant" {
            "assistant"
        } else {
            "user"
        };
        // The body's text is written once: for the record the Claude reader
        // parses (which measures its content by kind) and for its part.
        let text = m.to_string();
        let record = format!(r#"{{"type":"{kind}","message":{text}}}"#);
        match claude::Sink::parse(&record) {
            Ok(mut rec) => {
                let measure = rec.take_measure();
                let body = crate::session::Inline::written(m, text, Some(measure));
                sink.apply_part(rec, i + 1, Part::Inline(body))
            }
            Err(message) => diagnostics.push(crate::session::Diagnostic {
                line: i + 1,
                byte_offset: 0,
                message: format!("message {} skipped: {message}", i + 1),
            }),
        }
    }
    let mut s = sink.finish(diagnostics);
    if let Some(model) = body.get("model").and_then(Value::as_str) {
        s.model = Some(model.to_string());
    }
    Ok(s)
}
