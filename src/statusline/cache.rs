//! The status line's cache (SPEC §12): per transcript, in
//! `$XDG_CACHE_HOME/mcscope/` (else `~/.cache/mcscope/`), the offset read so
//! far, the file's identity, hashes of its first line and of the bytes just
//! before the offset, and the running [`Fold`]. A file that shrank, was
//! replaced (another inode) or rewritten (another first line or tail) is read
//! afresh. Written through the one writer, never under a harness's folder: a
//! cache folder there means no cache.

use super::fold::Fold;
use crate::load::fnv1a;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The build that wrote it: another build's state is not read.
    mcscope: String,
    path: PathBuf,
    dev: u64,
    ino: u64,
    pub offset: u64,
    /// Inside a damaged line (a NUL run, a line past the cap) at `offset`:
    /// the next read skips to its newline.
    #[serde(default)]
    pub skipping: bool,
    head: u64,
    tail: u64,
    pub fold: Fold,
}

/// Where the entry of `canonical` lives, when a cache folder may be used.
pub(crate) fn entry_path(canonical: &Path) -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    // XDG: a relative XDG_CACHE_HOME is ignored.
    let base = var("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".cache")))?;
    let dir = base.join("mcscope");
    if !crate::export::may_create_folder(&dir) {
        return None;
    }
    let key = fnv1a(canonical.as_os_str().as_encoded_bytes());
    Some(dir.join(format!("statusline-{key:016x}.json")))
}

/// The cached entry for this file, when it still describes it.
pub(crate) fn load(at: &Path, canonical: &Path, file: &File) -> Option<Entry> {
    let bytes = crate::load::regular::read_capped(at, crate::load::regular::SMALL_FILE_CAP).ok()?;
    let e: Entry = serde_json::from_slice(&bytes).ok()?;
    let meta = file.metadata().ok()?;
    let fits = e.mcscope == env!("CARGO_PKG_VERSION")
        && e.path == canonical
        && (e.dev, e.ino) == (meta.dev(), meta.ino())
        && meta.len() >= e.offset
        && marks(file, e.offset).ok()? == (e.head, e.tail);
    fits.then_some(e)
}

/// An entry for `file` read up to `offset`.
pub(crate) fn entry(
    canonical: &Path,
    file: &File,
    place: super::read::Place,
    fold: Fold,
) -> Option<Entry> {
    let meta = file.metadata().ok()?;
    let offset = place.offset;
    let (head, tail) = marks(file, offset).ok()?;
    Some(Entry {
        mcscope: env!("CARGO_PKG_VERSION").to_string(),
        path: canonical.to_path_buf(),
        dev: meta.dev(),
        ino: meta.ino(),
        offset,
        skipping: place.skipping,
        head,
        tail,
        fold,
    })
}

/// Writes the entry; a failure only costs the next call a cold read.
pub(crate) fn save(at: &Path, transcript: &Path, e: &Entry) {
    let Ok(bytes) = serde_json::to_vec(e) else {
        return;
    };
    if let Some(dir) = at.parent()
        && std::fs::create_dir_all(dir).is_err()
    {
        return;
    }
    let reading = crate::export::Reading::default().session(transcript);
    let _ = crate::export::write(at, &reading, &bytes);
}

/// Hashes of the first line (within what was read) and of the bytes just
/// before `offset`, as the follower takes them.
fn marks(file: &File, offset: u64) -> std::io::Result<(u64, u64)> {
    crate::load::content_marks(file, offset)
}
