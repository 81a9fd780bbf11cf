//! The private folder a database copy lives in (SPEC §18.22): under
//! `$TMPDIR`, mode 0700 with files 0600 (no other local user can read a
//! session while it exists), removed when dropped, and removed by a signal
//! thread on SIGINT, SIGTERM and SIGHUP before the signal takes its usual
//! course (so an interrupted read leaves no copy behind).

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The folders alive now, for the signal thread to remove.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// A private temporary folder, removed on drop.
pub(super) struct Folder {
    dir: PathBuf,
    parent: PathBuf,
}

impl Folder {
    /// The folder is listed for the signal thread before it exists and stays
    /// listed until it is gone, so a signal at any moment removes it.
    pub(super) fn new() -> std::io::Result<Folder> {
        use std::hash::{BuildHasher, Hasher};
        use std::os::unix::fs::DirBuilderExt;
        install_handler();
        let parent = std::env::temp_dir();
        let mut last = None;
        for _ in 0..64 {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(std::process::id());
            let dir = parent.join(format!("mcscope-opencode-{:016x}", h.finish()));
            listed(|live| live.push(dir.clone()));
            // mkdir makes a new folder or fails: never an existing one, never
            // through a link planted at the name.
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {
                    let folder = Folder { dir, parent };
                    // The mode as asked, whatever the umask made of it.
                    std::fs::set_permissions(&folder.dir, std::fs::Permissions::from_mode(0o700))?;
                    return Ok(folder);
                }
                Err(e) => {
                    listed(|live| live.retain(|p| p != &dir));
                    if e.kind() != std::io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
    }

    pub(super) fn path(&self) -> &Path {
        &self.dir
    }

    /// The folder it was made in (`$TMPDIR`), for messages.
    pub(super) fn parent(&self) -> &Path {
        &self.parent
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        // Gone first, unlisted after: a signal in between removes nothing more.
        let _ = std::fs::remove_dir_all(&self.dir);
        listed(|live| live.retain(|p| p != &self.dir));
    }
}

/// `f` on the list of live folders (a poisoned lock's list is still whole).
fn listed(f: impl FnOnce(&mut Vec<PathBuf>)) {
    match LIVE.lock() {
        Ok(mut live) => f(&mut live),
        Err(p) => f(&mut p.into_inner()),
    }
}

/// Creates `path` empty with mode 0600 (never an existing file).
pub(super) fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// The most a copy in `dir` may take: `MCSCOPE_TMP_CAP` bytes when set, else
/// the free space there less 10 %.
pub(super) fn cap(dir: &Path) -> Result<u64, String> {
    if let Some(v) = std::env::var_os("MCSCOPE_TMP_CAP") {
        let text = v.to_string_lossy();
        return text.trim().parse::<u64>().map_err(|_| {
            format!(
                "MCSCOPE_TMP_CAP={}: expected a number of bytes",
                crate::sanitize::line(&text)
            )
        });
    }
    Ok(match rustix::fs::statvfs(dir) {
        Ok(s) => {
            let free = s.f_bavail.saturating_mul(s.f_frsize);
            free - free / 10
        }
        Err(_) => u64::MAX,
    })
}

/// Once per process: a thread that, on SIGINT, SIGTERM or SIGHUP, removes
/// every live folder, then lets the signal do what it would have done.
fn install_handler() {
    HANDLER.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        // A signal the process was started ignoring (`nohup`, a background
        // job of a script) stays ignored.
        let wanted: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter(|&s| !ignored(s))
            .collect();
        let Ok(mut signals) = signal_hook::iterator::Signals::new(wanted) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("mcscope-tmp-cleanup".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    remove_live();
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
    });
}

pub(super) fn remove_live() {
    let dirs = match LIVE.lock() {
        Ok(mut live) => std::mem::take(&mut *live),
        Err(p) => std::mem::take(&mut *p.into_inner()),
    };
    for d in dirs {
        // The reading thread may be adding a file as the folder goes: try
        // again while something is left.
        for _ in 0..8 {
            if std::fs::remove_dir_all(&d).is_ok() || !d.exists() {
                break;
            }
        }
    }
}

/// Whether `sig` is ignored now (SIG_IGN inherited from the parent).
#[allow(unsafe_code)]
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: with a null new action, sigaction only writes the current one
    // into `old`, a zeroed plain C struct it owns for the call.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}
