//! Qwen Code's JSON Lines transcript: streamed record by record.

use super::super::{LoadError, Reader, Tail, qwen, stream};
use super::{FormatLoader, LightSeen};
use crate::session::{Format, Session};
use serde_json::{Map, Value};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicU64;

pub(super) struct QwenJsonl;

impl FormatLoader for QwenJsonl {
    fn format(&self) -> Format {
        Format::QwenJsonl
    }

    /// A `message` with a `parts` array.
    fn sniff_record(&self, record: &Map<String, Value>) -> bool {
        record
            .get("message")
            .is_some_and(|m| m.get("parts").is_some_and(Value::is_array))
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        stream(path, file, qwen::Sink::new(path, self.format()), progress)
    }

    fn follow(&self, path: &Path) -> Result<Box<dyn Tail>, &'static str> {
        Ok(Box::new(Reader::new(qwen::Sink::new(path, self.format()))))
    }

    fn listed(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "jsonl")
    }

    /// A message with `parts`; or no message at all in a file under Qwen's
    /// folder.
    fn light_claims(&self, seen: &LightSeen, path: &Path) -> bool {
        // Under Qwen's base folder (`~/.qwen`), as its harness row names it.
        let base = self.format().harness().rules().home.base_dir;
        let in_tree = path.components().any(|c| c.as_os_str() == base);
        seen.message_parts || (!seen.messages && in_tree)
    }
}
