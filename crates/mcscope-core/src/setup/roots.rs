//! The path map and the memory roots of a run (SPEC §4): the config file's, the
//! sidecar's and the flags', each layer over the one below.

use super::*;

/// The path map and the memory roots: the config file's (relative to its
/// folder, `~/` to home), the sidecar's (relative to it), the flags' (to the
/// working directory), each layer over the one below.
pub(super) fn paths_and_roots(
    session: &Session,
    preset: HarnessId,
    opts: &Opts,
    config: &Config,
    side: Option<&Sidecar>,
    side_dir: &Path,
) -> Result<(PathMap, Vec<(RootKind, PathBuf)>), UsageError> {
    let (path_map, memory_root) = (&opts.shared.path_map, &opts.shared.memory_root);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    // The config file's relative directories are relative to its folder, `~/` to home.
    let config_dir = config
        .path
        .as_ref()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| cwd.clone());
    let home_of = |dir: &str| -> String {
        match (dir.strip_prefix("~/"), std::env::var_os("HOME")) {
            (Some(rest), Some(home)) => Path::new(&home).join(rest).display().to_string(),
            _ => dir.to_string(),
        }
    };
    let mut map = Vec::new();
    for (from, to) in &config.path_map {
        map.push((map_from(from), given(&home_of(to), &config_dir)));
    }
    if let Some(s) = side {
        for (from, to) in &s.path_map {
            map.push((map_from(from), given(to, side_dir)));
        }
    }
    for m in path_map {
        let (from, to) = m
            .split_once('=')
            .ok_or_else(|| UsageError::bad(format!("--path-map {m:?}"), "expected FROM=TO"))?;
        let from = map_from(from);
        map.retain(|(f, _)| !same_from(f, &from));
        map.push((from, given(to, &cwd)));
    }
    let path_map = PathMap(map);

    let session_cwd = session.calls.iter().find_map(|c| c.cwd.clone());
    let mut roots = protect::default_roots(preset, session_cwd.as_deref(), &path_map);
    let mut set_root = |kind: RootKind, dir: PathBuf| {
        roots.retain(|(k, _)| *k != kind);
        roots.push((kind, dir));
    };
    for (kind, dir) in &config.memory_roots {
        if let Some(kind) = RootKind::parse(kind) {
            set_root(kind, given(&home_of(dir), &config_dir));
        }
    }
    if let Some(s) = side {
        for (kind, dir) in &s.memory_roots {
            let kind = RootKind::parse(kind).ok_or_else(|| {
                UsageError::bad(
                    "sidecar",
                    format!(
                        "unknown memory root {kind:?} ({})",
                        config::names::<RootKind>()
                    ),
                )
            })?;
            set_root(kind, given(dir, side_dir));
        }
    }
    for r in memory_root {
        let (kind, dir) = r.split_once('=').ok_or_else(|| {
            UsageError::bad(
                format!("--memory-root {r:?}"),
                format!(
                    "expected {}=DIR",
                    config::names::<RootKind>().replace(", ", "|")
                ),
            )
        })?;
        let kind = RootKind::parse(kind).ok_or_else(|| {
            UsageError::bad(
                format!("--memory-root {r:?}"),
                format!("unknown root {kind:?} ({})", config::names::<RootKind>()),
            )
        })?;
        config::check_dir(dir)
            .map_err(|e| UsageError::bad(format!("--memory-root {r:?}"), e.to_string()))?;
        set_root(kind, given(dir, &cwd));
    }
    roots.sort_by_key(|(k, _)| RootKind::ALL.iter().position(|x| x == k));
    Ok((path_map, roots))
}

/// A directory given by a flag or the sidecar: a Windows path as its normalized
/// Windows form (never joined to `base`), else absolute on this machine, a
/// relative one taken against `base` (SPEC §4).
pub(super) fn given(dir: &str, base: &Path) -> PathBuf {
    protect::Lexical::given(dir, base).to_path_buf()
}

/// The FROM side of a path map: a Windows path normalized (so `d:/x/` and
/// `D:\x` are one FROM), anything else as written.
pub(super) fn map_from(from: &str) -> PathBuf {
    match protect::WinPath::parse(from) {
        Some(w) => PathBuf::from(w.display()),
        None => PathBuf::from(from),
    }
}

/// Whether two FROM sides name one prefix (a flag replaces the sidecar's).
pub(super) fn same_from(a: &Path, b: &Path) -> bool {
    match (
        a.to_str().and_then(protect::WinPath::parse),
        b.to_str().and_then(protect::WinPath::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}
