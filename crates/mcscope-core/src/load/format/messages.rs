//! One Anthropic Messages API request body (`{model?, system?, tools?,
//! messages}`): read whole; a body does not grow.

use super::super::{LoadError, messages};
use super::{FormatLoader, Head};
use crate::session::{Format, Session};
use serde_json::{Map, Value};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicU64;

pub(super) struct MessagesJson;

impl FormatLoader for MessagesJson {
    fn format(&self) -> Format {
        Format::MessagesJson
    }

    /// A `messages` array and no `type` (a record has one).
    /// A wire export is a Messages API body.
    fn mcscope_writes(&self) -> bool {
        true
    }

    fn sniff_record(&self, record: &Map<String, Value>) -> bool {
        record.get("messages").is_some_and(|m| m.is_array()) && record.get("type").is_none()
    }

    /// A pretty-printed body spans many lines: a `.json` name, or a head
    /// that is one object with a `messages` array.
    fn sniff_whole(&self, head: &Head<'_>) -> bool {
        head.path.extension().is_some_and(|e| e == "json")
            || head
                .whole()
                .is_some_and(|v| v.get("messages").is_some_and(|m| m.is_array()))
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        messages::load(path, file, self.format())
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err("a Messages API body is one request; it cannot be followed")
    }
}
