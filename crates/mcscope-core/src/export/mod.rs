//! The one writer of every file mcscope writes (`compare -o`, `explain -o`,
//! the TUI's export, the status line's cache): only a regular file it may
//! replace or a new name, never over a file it is reading, never over a
//! transcript, never under a harness's folders, and atomically (SPEC §1, §7a,
//! §15.19, §18.21).
//!
//! A target is refused when it (or what its symlink resolves to) exists and is
//! not a regular file (a device such as `/dev/null`, a FIFO, a socket, a
//! folder), when it is, or links to, a file being read (the sessions, their
//! sidecars, the config), when it sniffs as a harness's transcript (a Messages
//! API body, which mcscope itself writes, may be replaced), or when it lies
//! under a refused root ([`refused::refused_roots`]). The bytes go to a temp
//! file in the target's own folder, which is then renamed over the target: a
//! full disk or any other failure leaves the old file whole. Just before the
//! rename the target is looked at again: a new name is created only if it is
//! still free (no rename over a node that appeared meanwhile), and a replaced
//! file must still be the regular file that was checked. The file gets the
//! usual mode, 0666 less the umask (tempfile's own default, 0600, would hide a
//! report meant to be shared).

mod refused;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file was not written: one line naming the target and the cause.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{target}: refusing to write: {why}")]
    Refused { target: PathBuf, why: String },
    #[error("{target}: cannot write: {source}")]
    Io {
        target: PathBuf,
        source: std::io::Error,
    },
}

/// The files mcscope is reading while it writes: a target must be none of them.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    files: Vec<PathBuf>,
}

impl Reading {
    /// The config file, wherever mcscope looks for it.
    pub fn config() -> Reading {
        Reading {
            files: crate::config::default_path().into_iter().collect(),
        }
    }

    /// Adds a session and its sidecar.
    pub fn session(mut self, path: &Path) -> Reading {
        self.files.push(path.to_path_buf());
        self.files.push(crate::load::sidecar_path(path));
        self
    }

    pub fn sessions<'a>(self, paths: impl IntoIterator<Item = &'a PathBuf>) -> Reading {
        paths.into_iter().fold(self, |r, p| r.session(p))
    }
}

/// Where `target` would be written: the final file, its folder's links
/// resolved (and the target's own, when it is a link to a file), or why not.
pub fn check(target: &Path, reading: &Reading) -> Result<PathBuf, WriteError> {
    let refuse = |why: String| WriteError::Refused {
        target: target.to_path_buf(),
        why,
    };
    let io = |source| WriteError::Io {
        target: target.to_path_buf(),
        source,
    };
    let dest = destination(target).map_err(io)?;
    if let Some(root) = refused::refused_root_of(&dest) {
        return Err(refuse(format!(
            "it is under {}, a harness's session folder (mcscope never writes there)",
            root.display()
        )));
    }
    if let Ok(meta) = std::fs::metadata(&dest) {
        if meta.is_dir() {
            return Err(refuse("it is a folder".into()));
        }
        if !meta.is_file() {
            return Err(refuse(format!(
                "it is not a regular file ({}){CLI_HINT}",
                crate::load::regular::describe(meta.file_type())
            )));
        }
        if let Some(read) = reading.files.iter().find(|f| same_file(&meta, f)) {
            let link = std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink());
            let what = if link {
                "a symlink to"
            } else if std::fs::canonicalize(read).is_ok_and(|r| r == dest) {
                "the file"
            } else {
                "a hard link to"
            };
            return Err(refuse(format!(
                "it is {what} {}, which mcscope is reading",
                read.display()
            )));
        }
        match crate::load::transcript_format(&dest) {
            Ok(Some(format)) => {
                return Err(refuse(format!(
                    "it is a session transcript ({} {}); mcscope never writes over one",
                    format.harness().rules().title,
                    format.name()
                )));
            }
            Ok(None) => {}
            Err(why) => return Err(refuse(why)),
        }
    }
    Ok(dest)
}

/// What the command line adds to a refusal of a device or FIFO: its way to
/// print anyway (the TUI's prompt leaves it out, see [`WriteError::in_tui`]).
const CLI_HINT: &str = "; use `-o -` and redirect";

impl WriteError {
    /// The message as the TUI's export line shows it: without the command
    /// line's `-o -` advice, which means nothing there.
    pub fn in_tui(&self) -> String {
        self.to_string().replace(CLI_HINT, "")
    }
}

/// The file `-o` names, or None for `-o -` (stdout) and no `-o`.
pub fn to_file(output: Option<&Path>) -> Option<&Path> {
    output.filter(|p| p.as_os_str() != "-")
}

/// Whether mcscope may create (and then write in) the folder `dir`: it is
/// not under a refused root, judged on the part of it that exists with its
/// links resolved (the rest cannot be a link yet). Unresolvable: no.
pub fn may_create_folder(dir: &Path) -> bool {
    let Ok(abs) = std::path::absolute(dir) else {
        return false;
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
            return false;
        };
        rest.push(name);
        existing = parent;
    }
    let Ok(mut resolved) = std::fs::canonicalize(existing) else {
        return false;
    };
    resolved.extend(rest.iter().rev());
    refused::refused_root_of(&resolved).is_none() && refused::refused_root_of(&abs).is_none()
}

/// Writes `bytes` to `target` atomically once [`check`] allows it; the file
/// written (links resolved).
pub fn write(target: &Path, reading: &Reading, bytes: &[u8]) -> Result<PathBuf, WriteError> {
    write_with(target, reading, |out| out.write_all(bytes))
}

/// As [`write`], with the content written by `fill` (a test can make it fail).
pub fn write_with(
    target: &Path,
    reading: &Reading,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<PathBuf, WriteError> {
    let dest = check(target, reading)?;
    let io = |source| WriteError::Io {
        target: target.to_path_buf(),
        source,
    };
    // What is there now: nothing, or the regular file `check` allowed; and
    // checked again, so that the file whose identity is held is one that was
    // checked (a swap between the two is caught at the rename).
    let before = identity(&dest).map_err(io)?;
    if check(target, reading)? != dest {
        return Err(WriteError::Refused {
            target: target.to_path_buf(),
            why: "it changed while mcscope was writing (it is left as it is)".into(),
        });
    }
    let dir = dest.parent().unwrap_or(Path::new("/"));
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcscope-")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(io)?;
    // Dropping the temp file on any error removes it; the target is untouched.
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut out).map_err(io)?;
        out.flush().map_err(io)?;
    }
    // On disk before the rename: a crash leaves the old file or the new one.
    tmp.as_file().sync_all().map_err(io)?;
    let changed = || WriteError::Refused {
        target: target.to_path_buf(),
        why: "it changed while mcscope was writing (it is left as it is)".into(),
    };
    match before {
        // A new name: created only if still free (never a rename over a node
        // that appeared since the check).
        None => match tmp.persist_noclobber(&dest) {
            Ok(f) => f,
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => return Err(changed()),
            // A file system that can neither rename without replacing nor
            // hard-link (some FUSE and shared folders): a plain rename, the
            // name looked at once more just before.
            Err(e) => {
                if identity(&dest).map_err(io)?.is_some() {
                    return Err(changed());
                }
                e.file.persist(&dest).map_err(|e| io(e.error))?
            }
        },
        Some(id) => {
            if identity(&dest).map_err(io)? != Some(id) {
                return Err(changed());
            }
            tmp.persist(&dest).map_err(|e| io(e.error))?
        }
    };
    Ok(dest)
}

/// The device, inode and change time of the regular file at `dest` (not
/// following a link), None when nothing is there; anything else there is an
/// error.
fn identity(dest: &Path) -> std::io::Result<Option<(u64, u64, i64, i64)>> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_file() => Ok(Some((m.dev(), m.ino(), m.ctime(), m.ctime_nsec()))),
        Ok(m) => Err(std::io::Error::other(format!(
            "it is not a regular file ({})",
            crate::load::regular::describe(m.file_type())
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The file a write to `target` replaces or creates: its folder resolved
/// (it must exist), and the target itself resolved when it is a link.
fn destination(target: &Path) -> std::io::Result<PathBuf> {
    let abs = std::path::absolute(target)?;
    if let Ok(meta) = std::fs::symlink_metadata(&abs)
        && meta.file_type().is_symlink()
    {
        // Written through: the link stays, its file gets the new bytes.
        return std::fs::canonicalize(&abs).map_err(|e| {
            std::io::Error::new(e.kind(), format!("a symlink to a missing file ({e})"))
        });
    }
    let name = abs
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name to write"))?;
    let dir = abs.parent().unwrap_or(Path::new("/"));
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("its folder: {e}")))?;
    Ok(dir.join(name))
}

/// True when `path` is the file `meta` describes (same device and inode: the
/// file itself, a hard link, or what a symlink points at).
fn same_file(meta: &std::fs::Metadata, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
}

#[cfg(test)]
mod tests;
