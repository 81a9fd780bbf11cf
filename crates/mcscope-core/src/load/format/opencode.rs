//! OpenCode's sessions: the SQLite database of 1.2+ (`opencode.db`, several
//! sessions) and the JSON files of ≤ 1.1 (`storage/session/…/<id>.json`).
//! Neither is followed (read it again instead).

use super::super::{LoadError, opencode};
use super::{FormatLoader, Head};
use crate::session::{Format, Session};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::AtomicU64;

pub(super) struct OpencodeDb;
pub(super) struct OpencodeJson;
pub(super) struct OpencodeExport;

const NO_FOLLOW: &str = "an OpenCode session cannot be followed yet (read it again instead)";

impl FormatLoader for OpencodeDb {
    fn format(&self) -> Format {
        Format::OpencodeDb
    }

    /// SQLite: OpenCode 1.2+ keeps its sessions in one (reference §1.1).
    fn sniff_magic(&self, head: &[u8]) -> bool {
        head.starts_with(opencode::db::MAGIC)
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        drop(file);
        opencode::load_db(path, self.format(), session)
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err(NO_FOLLOW)
    }

    fn holds_sessions(&self) -> bool {
        true
    }
}

impl FormatLoader for OpencodeJson {
    fn format(&self) -> Format {
        Format::OpencodeJson
    }

    /// A pretty-printed session info file (reference §1.1).
    fn sniff_whole(&self, head: &Head<'_>) -> bool {
        head.whole().is_some_and(opencode::is_session_json)
    }

    fn read(
        &self,
        path: &Path,
        _file: File,
        _session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        opencode::load_json(path, self.format())
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err(NO_FOLLOW)
    }
}

impl FormatLoader for OpencodeExport {
    fn format(&self) -> Format {
        Format::OpencodeExport
    }

    /// An export written on one line (`opencode export | jq -c`): asked
    /// before the Messages API body, whose `messages` it also has (SPEC
    /// §17.O.1).
    fn sniff_record(&self, record: &serde_json::Map<String, serde_json::Value>) -> bool {
        record.contains_key("info")
            && opencode::export::is_export(&serde_json::Value::Object(record.clone()))
    }

    /// As `opencode export` writes it: pretty-printed, perhaps after an
    /// `Exporting session: …` line; a head too short to parse whole is read
    /// up to its first message (SPEC §17.O.1).
    fn sniff_whole(&self, head: &Head<'_>) -> bool {
        match serde_json::from_slice::<serde_json::Value>(opencode::export::json_of(head.bytes)) {
            Ok(v) => opencode::export::is_export(&v),
            Err(_) => opencode::export::head_is_export(head.bytes),
        }
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        opencode::export::load(path, file, self.format())
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err(NO_FOLLOW)
    }
}
