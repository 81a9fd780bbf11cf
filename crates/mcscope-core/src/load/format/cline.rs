//! Cline's task folders (SPEC §17.K.1): a folder `tasks/<taskId>/` or any of
//! its four files is the task. Not followed (read it again instead).

use super::super::{LoadError, cline};
use super::FormatLoader;
use crate::session::{Format, Session};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

pub(super) struct ClineTask;

impl FormatLoader for ClineTask {
    fn format(&self) -> Format {
        Format::ClineTask
    }

    /// One of a task's files by its name (reference §1: `GlobalFileNames`),
    /// holding JSON, in a folder that holds the history: the history is an
    /// array on one line, which no record stage reads.
    fn sniff_name(&self, path: &Path, head: &[u8]) -> bool {
        let json = crate::load::encoding::strip_bom(head)
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'[' || b == b'{');
        json && cline::task_dir(path).is_some()
    }

    fn folder_session(&self, dir: &Path) -> Option<PathBuf> {
        let file = dir.join(cline::HISTORY);
        (dir.is_dir() && file.is_file()).then_some(file)
    }

    fn read(
        &self,
        path: &Path,
        file: File,
        _session: Option<&str>,
        _progress: &AtomicU64,
    ) -> Result<Session, LoadError> {
        drop(file);
        cline::load(path, self.format())
    }

    fn follow(&self, _path: &Path) -> Result<Box<dyn super::super::Tail>, &'static str> {
        Err("a Cline task cannot be followed yet (read it again instead)")
    }

    /// Cline 4.1+ keeps its sessions in the SDK's store, `<data>/db/sessions.db`
    /// beside `<data>/sessions/` (v4.1.12 `sdk/packages/shared/src/storage/
    /// paths.ts`: `resolveDbDataDir`, `resolveSessionDataDir`), which is not
    /// read yet (SPEC §18.4). Asked of a data folder and of its `tasks`.
    fn unread_store(&self, dir: &Path) -> Option<String> {
        let data = match dir.file_name() {
            Some(n) if n == "tasks" => dir.parent()?,
            _ => dir,
        };
        let db = data.join("db").join("sessions.db");
        db.is_file().then(|| {
            format!(
                "Cline 4.1+ sessions are not read yet ({} holds them)",
                db.display()
            )
        })
    }

    /// The picker and `compare` list a task by its history.
    fn listed(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == cline::HISTORY)
    }
}
