//! Claude Code's JSON Lines transcript: streamed record by record.

use super::super::{LoadError, Reader, Tail, claude, stream};
use super::{FormatLoader, LightSeen};
use crate::session::{Format, Session};
use serde_json::{Map, Value};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicU64;

pub(super) struct ClaudeJsonl;

impl FormatLoader for ClaudeJsonl {
    fn format(&self) -> Format {
        Format::ClaudeJsonl
    }

    /// A `message` with `content` (and, asked last, anything else JSON).
    fn sniff_record(&self, record: &Map<String, Value>) -> bool {
        record
            .get("message")
            .is_some_and(|m| m.get("content").is_some())
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        stream(
            path,
            file,
            claude::Sink::for_format(path, self.format()),
            progress,
        )
    }

    fn follow(&self, path: &Path) -> Result<Box<dyn Tail>, &'static str> {
        Ok(Box::new(Reader::new(claude::Sink::for_format(
            path,
            self.format(),
        ))))
    }

    fn listed(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "jsonl")
    }

    /// Any file the light pass saw no other format's records in.
    fn light_claims(&self, _seen: &LightSeen, _path: &Path) -> bool {
        true
    }

    fn subagent_files(&self) -> bool {
        true
    }

    fn return_facts(&self) -> bool {
        true
    }
}

/// Loads one inline sub-agent thread of a Claude Code file: only `lines` of it.
pub(in crate::load) fn load_thread(
    path: &Path,
    file: File,
    lines: std::collections::HashSet<usize>,
    progress: &AtomicU64,
) -> Result<Session, LoadError> {
    let sink = claude::Sink::only_lines(path, ClaudeJsonl.format(), lines);
    stream(path, file, sink, progress)
}
