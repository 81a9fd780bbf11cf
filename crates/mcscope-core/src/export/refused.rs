//! The folders mcscope never writes into (SPEC §1, §7a, §15.19): every
//! harness's base folder, where its transcripts live, as the harness registry
//! names them (`Home` and `Harness::data_folders` / `databases`).

use std::path::{Path, PathBuf};

/// Every refused root, as the environment names it (not yet resolved). More
/// than one harness setting may point somewhere: all of them are refused, the
/// defaults under `$HOME` included when a variable moves the base elsewhere
/// (refusing one folder too many costs nothing; writing into a transcript
/// folder loses data).
pub(crate) fn refused_roots() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let mut roots = Vec::new();
    // Every harness of the registry: the bases its sessions are read from
    // (§7a), the home defaults even when a variable moves them, its other data
    // folders, and the folder of each database it names, as the harness
    // resolves it (`:memory:` is no file).
    for &h in <crate::session::HarnessId as strum::VariantArray>::VARIANTS {
        let home_dir = h.rules().home;
        roots.extend(home_dir.bases());
        roots.extend(home_dir.home_bases_under(home.as_deref()));
        roots.extend(h.asks().data_folders());
        roots.extend(
            h.asks()
                .databases()
                .iter()
                .filter_map(|db| db.parent().map(Path::to_path_buf))
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
