//! How a page meant to be shared (the HTML report, later Markdown) names a
//! session file (SPEC §15.20): relative to the folder compared, else to the
//! home folder (`~/…`), else by its file name; never the absolute path, which
//! holds the user's and the project's names. `--full-paths` keeps paths as given.

use std::path::{Path, PathBuf};

/// The names a page gives session paths.
#[derive(Debug, Clone)]
pub struct PageNames {
    folder: Option<PathBuf>,
    home: Option<PathBuf>,
    full: bool,
}

impl PageNames {
    /// For a page about `compared` (a folder when `folder`, else one file).
    pub fn new(compared: &Path, folder: bool, full: bool) -> PageNames {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute());
        PageNames {
            folder: folder.then(|| compared.to_path_buf()),
            home,
            full,
        }
    }

    /// The name of `path` (as the comparison recorded it) on the page.
    pub fn name(&self, path: &str) -> String {
        if self.full {
            return path.to_string();
        }
        let p = Path::new(path);
        if let Some(rel) = self.folder.as_deref().and_then(|f| relative(p, f)) {
            return rel.display().to_string();
        }
        if let Some(rel) = self.home.as_deref().and_then(|h| relative(p, h)) {
            return if rel.as_os_str().is_empty() {
                "~".into()
            } else {
                format!("~/{}", rel.display())
            };
        }
        p.file_name()
            .map_or_else(|| "(session)".into(), |n| n.to_string_lossy().into_owned())
    }
}

/// `path` relative to `base`, compared as written (made absolute) and with
/// links resolved, whichever strips.
fn relative(path: &Path, base: &Path) -> Option<PathBuf> {
    let abs = |p: &Path| std::path::absolute(p).ok();
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    [(abs(path), abs(base)), (real(path), real(base))]
        .into_iter()
        .find_map(|(p, b)| Some(p?.strip_prefix(b?).ok()?.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_names_paths_by_the_folder_the_home_or_the_file_name() {
        let names = PageNames {
            folder: Some("/data/sessions".into()),
            home: Some("/home/ann".into()),
            full: false,
        };
        assert_eq!(names.name("/data/sessions/p/s.jsonl"), "p/s.jsonl");
        assert_eq!(
            names.name("/home/ann/.claude/projects/-x/s.jsonl"),
            "~/.claude/projects/-x/s.jsonl"
        );
        assert_eq!(names.name("/srv/other/s.jsonl"), "s.jsonl");
        let full = PageNames {
            full: true,
            ..names
        };
        assert_eq!(full.name("/srv/other/s.jsonl"), "/srv/other/s.jsonl");
    }
}
