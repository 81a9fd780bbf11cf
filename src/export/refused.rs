//! The folders mcscope never writes into (SPEC §1, §7a, §15.19): every
//! harness's base folder, where its transcripts live. One function on purpose,
//! so that the list can move into a harness registry without being copied.

use std::path::{Path, PathBuf};

/// Every refused root, as the environment names it (not yet resolved). More
/// than one harness setting may point somewhere: all of them are refused, the
/// defaults under `$HOME` included when a variable moves the base elsewhere
/// (refusing one folder too many costs nothing; writing into a transcript
/// folder loses data).
pub(crate) fn refused_roots() -> Vec<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let home = var("HOME").map(PathBuf::from);
    let under_home = |rel: &str| home.as_ref().map(|h| h.join(rel));
    let mut roots = Vec::new();
    // Every harness of the registry: the bases its sessions are read from
    // (§7a), and the home defaults even when a variable moves them.
    for &h in <crate::session::Harness as strum::VariantArray>::VARIANTS {
        let home_dir = h.rules().home;
        roots.extend(home_dir.bases());
        roots.extend(home_dir.home_bases_under(home.as_deref()));
    }
    // Gemini CLI.
    roots.extend(var("GEMINI_CLI_HOME").map(|h| PathBuf::from(h).join(".gemini")));
    roots.extend(under_home(".gemini"));
    // OpenCode: its data folder, and the folder of a database named by variable.
    roots.extend(var("XDG_DATA_HOME").map(|d| PathBuf::from(d).join("opencode")));
    roots.extend(under_home(".local/share/opencode"));
    // The folder of each database a harness names, as the harness resolves it
    // (OpenCode: a relative `$OPENCODE_DB` is under its data folder;
    // `:memory:` is no file).
    for &h in <crate::session::Harness as strum::VariantArray>::VARIANTS {
        roots.extend(
            h.asks()
                .databases()
                .iter()
                .filter_map(|db| db.parent().map(std::path::Path::to_path_buf))
                .filter(|p| !p.as_os_str().is_empty()),
        );
    }
    roots
}

/// The refused root that `dest` (an absolute path whose folder is resolved)
/// lies under, each root compared as written and with its links resolved.
pub(crate) fn refused_root_of(dest: &Path) -> Option<PathBuf> {
    refused_roots().into_iter().find(|root| {
        let lexical = std::path::absolute(root).unwrap_or_else(|_| root.clone());
        let resolved = std::fs::canonicalize(root).ok();
        dest.starts_with(&lexical) || resolved.is_some_and(|r| dest.starts_with(r))
    })
}
