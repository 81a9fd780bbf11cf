//! Opening only what is safe to read: regular files, read with a bound.
//!
//! A FIFO blocks `open` until a writer comes, and a device (`/dev/zero`) never
//! ends: either, named as a transcript, sidecar or config, would hang mcscope or
//! fill its memory. So every file is opened with `O_NONBLOCK` (an open that can
//! never wait) and the *opened handle* is checked with `fstat`: a symlink is
//! followed to what it names, and a swap between a check and the open is
//! impossible. Small files (sidecars, the config) are then read through
//! `take(cap + 1)`, so an oversized one costs at most `cap + 1` bytes.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The cap for a sidecar or the configuration file (SPEC §15.25).
pub const SMALL_FILE_CAP: u64 = 1 << 20;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A FIFO, socket, device or directory: what it is, in words.
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    /// Larger than the cap (bytes).
    #[error("larger than {} MB (the cap for this file)", .0 >> 20)]
    TooBig(u64),
}

impl OpenError {
    /// Whether the file does not exist (a missing sidecar or config is no error).
    pub fn not_found(&self) -> bool {
        matches!(self, OpenError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Opens `path` for reading only if it is (or a symlink leads to) a regular file.
pub fn open_regular(path: &Path) -> Result<File, OpenError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        // Reads of a regular file never block, O_NONBLOCK or not.
        return Ok(file);
    }
    Err(OpenError::NotRegular(describe(kind)))
}

/// [`open_regular`] as an I/O result: a file that is no regular file is an
/// error of its own kind, in words (a missing file stays `NotFound`).
pub fn open_regular_io(path: &Path) -> std::io::Result<File> {
    open_regular(path).map_err(|e| match e {
        OpenError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })
}

/// What a non-regular file is, for the message.
pub fn describe(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

/// Reads a small regular file whole, refusing one over `cap` bytes; the read
/// stops at `cap + 1` bytes whatever the file claims its size is.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, OpenError> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(OpenError::TooBig(cap));
    }
    Ok(bytes)
}

/// As [`read_capped`], as text (invalid UTF-8 is an error naming where).
pub fn read_capped_text(path: &Path, cap: u64) -> Result<String, OpenError> {
    let bytes = read_capped(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        OpenError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_and_files_read() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            open_regular(Path::new("/dev/zero")),
            Err(OpenError::NotRegular("a character device"))
        ));
        assert!(matches!(
            open_regular(dir.path()),
            Err(OpenError::NotRegular("a directory"))
        ));
        let f = dir.path().join("a.toml");
        std::fs::write(&f, "x = 1\n").unwrap();
        assert_eq!(read_capped_text(&f, 6).unwrap(), "x = 1\n");
        assert!(matches!(read_capped(&f, 5), Err(OpenError::TooBig(5))));
        assert!(
            open_regular(&dir.path().join("none"))
                .unwrap_err()
                .not_found()
        );
    }
}
