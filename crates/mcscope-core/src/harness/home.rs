//! Where each harness keeps its sessions and its managed memory (SPEC §4, §7a):
//! its base folders, and the folders and databases read without a PATH.

use super::*;

/// Where a harness keeps its files and its managed memory (SPEC §4).
#[derive(Debug, Clone, Copy)]
pub struct Home {
    /// The variable that moves the base folder, and the folder under `$HOME` otherwise.
    pub base_env: &'static str,
    pub base_dir: &'static str,
    /// The user memory root, under the base.
    pub user_memory: &'static str,
    /// The harness's folder in a project: `<git root>/<dir>/team-memory` is the team
    /// root, `<project>/<dir>/memory` the local project root.
    pub project_dir: &'static str,
    /// Whether the project root is named after the git root (Qwen) or the cwd (Claude).
    pub project_by_git_root: bool,
    /// The variable that moves the project memory into `<project>/<team_dir>/memory`.
    pub local_memory_env: Option<&'static str>,
    /// Whether every comma-separated entry of `base_env` is a base of its own
    /// (several installs, ccusage's habit, SPEC §7a) rather than the first.
    pub list_env: bool,
    /// The bases under `$HOME` when `base_env` is unset.
    pub home_bases: &'static [&'static str],
    /// Whether `base_env` names a home folder that holds `base_dir` (Gemini
    /// CLI's `$GEMINI_CLI_HOME/.gemini`) rather than the base itself.
    pub env_is_home: bool,
    /// The folder of a base that holds the session files (`projects`; Gemini
    /// CLI's `tmp/<project>/chats`).
    pub sessions: &'static str,
}

impl Home {
    /// The base folder: `$<base_env>` when set and not empty, else `~/<base_dir>`.
    /// A comma-separated list (ccusage's habit for several Claude installs, SPEC
    /// §7a) names its first entry: one base holds the memory of one install.
    pub fn base(&self) -> PathBuf {
        std::env::var_os(self.base_env)
            .and_then(|v| {
                let v = v.to_string_lossy().into_owned();
                v.split(',')
                    .map(str::trim)
                    .find(|d| !d.is_empty())
                    .map(|d| self.under_env(PathBuf::from(d)))
            })
            .unwrap_or_else(|| home().join(self.base_dir))
    }
}

impl Home {
    /// Every base folder the harness's sessions may live in (SPEC §7a): the
    /// picker and `compare` read `<base>/projects` of each, and the writer
    /// refuses every one.
    pub fn bases(&self) -> Vec<PathBuf> {
        let list = std::env::var_os(self.base_env).filter(|v| !v.is_empty());
        let home = std::env::var_os("HOME").filter(|v| !v.is_empty());
        self.bases_from(list.as_deref(), home.as_deref().map(std::path::Path::new))
    }

    /// [`Home::bases`] for a given variable and home folder.
    pub fn bases_from(
        &self,
        list: Option<&std::ffi::OsStr>,
        home: Option<&std::path::Path>,
    ) -> Vec<PathBuf> {
        let listed: Vec<PathBuf> = list
            .map(|l| {
                l.to_string_lossy()
                    .split(',')
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        match listed.len() {
            0 => self.home_bases_under(home),
            _ if self.list_env => listed.into_iter().map(|d| self.under_env(d)).collect(),
            _ => listed
                .into_iter()
                .take(1)
                .map(|d| self.under_env(d))
                .collect(),
        }
    }

    /// The base a folder named by `base_env` gives.
    fn under_env(&self, dir: PathBuf) -> PathBuf {
        if self.env_is_home {
            dir.join(self.base_dir)
        } else {
            dir
        }
    }

    /// The bases under the home folder `home` (none without one).
    pub fn home_bases_under(&self, home: Option<&std::path::Path>) -> Vec<PathBuf> {
        home.map(|h| self.home_bases.iter().map(|b| h.join(b)).collect())
            .unwrap_or_default()
    }
}

/// The session folders read without a PATH (the picker, `compare`): the
/// `projects` folder of every base of every harness, in the registry's order,
/// whether or not each exists (callers read those that do and name them all).
pub fn session_folders() -> Vec<PathBuf> {
    <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        // A harness of databases keeps no folder of session files.
        .filter(|h| h.asks().databases().is_empty())
        .flat_map(|h| {
            let home = &h.rules().home;
            // The bases, and the data folders the environment names beside
            // them (Cline's `$CLINE_DIR/data`).
            home.bases()
                .into_iter()
                .chain(h.asks().data_folders())
                .map(|b| b.join(home.sessions))
        })
        .collect()
}

/// Where the sessions read without a PATH are, in words, every harness's in
/// the registry's order (`mcscope --help`).
pub fn folders_help() -> String {
    let each: Vec<&str> = <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| h.rules().words.folders)
        .collect();
    format!(
        "A session file or a folder of sessions to open in the TUI (none: {})",
        each.join("; ")
    )
}

/// The session databases read without a PATH (the picker): every harness's,
/// in the registry's order, those that exist.
pub fn session_databases() -> Vec<PathBuf> {
    <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .flat_map(|h| h.asks().databases())
        .filter(|p| p.is_file())
        .collect()
}

pub(super) fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}
