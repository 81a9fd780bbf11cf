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
