//! Managed-memory protection (SPEC §4): is a read inside a memory root, after
//! following symlinks? All disk access goes through [`Resolver`].

use serde::Serialize;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

mod windows;

pub use windows::WinPath;

/// Linux's MAXSYMLINKS: the most links one resolution follows.
pub const MAX_HOPS: usize = 40;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[strum(serialize_all = "lowercase")]
#[serde(into = "&'static str")]
pub enum RootKind {
    Project,
    User,
    Team,
}

impl RootKind {
    pub const ALL: [RootKind; 3] = [RootKind::Project, RootKind::User, RootKind::Team];

    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<RootKind> {
        s.parse().ok()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(into = "&'static str")]
pub enum Outcome {
    Protected,
    Outside,
    SymlinkEscape,
    UnresolvedId,
    AmbiguousId,
    Unverified,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Protected and unverified results are never cleared.
    pub fn protects(self) -> bool {
        matches!(self, Outcome::Protected | Outcome::Unverified)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Protection {
    pub outcome: Outcome,
    pub root: Option<RootKind>,
    pub resolved: Option<String>,
}

/// A recorded path after lexical normalization: a path of this machine (POSIX,
/// absolute) or a Windows path, which is compared only as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lexical {
    Posix(PathBuf),
    Windows(WinPath),
}

impl Lexical {
    /// A path given on the command line or in a sidecar (a memory root, a map's
    /// side): Windows when it has a Windows form, else absolute on this machine,
    /// a relative one taken against `base` (the directory mcscope runs in, or the
    /// sidecar's folder).
    pub fn given(s: &str, base: &Path) -> Lexical {
        match WinPath::parse(s) {
            Some(w) => Lexical::Windows(w),
            None => Lexical::Posix(normalize(&base.join(s))),
        }
    }

    /// How `resolved`, `evicted_read_paths` and the roots print it.
    pub fn display(&self) -> String {
        match self {
            Lexical::Posix(p) => p.display().to_string(),
            Lexical::Windows(w) => w.display(),
        }
    }

    /// A string equal for two spellings of one path and different otherwise
    /// (Windows paths without regard to case).
    pub fn key(&self) -> String {
        match self {
            Lexical::Posix(p) => p.display().to_string(),
            Lexical::Windows(w) => w.key(),
        }
    }

    /// As a [`PathBuf`] for the places that carry paths (a Windows path as its
    /// display text, which [`Lexical::of_path`] reads back).
    pub fn to_path_buf(&self) -> PathBuf {
        match self {
            Lexical::Posix(p) => p.clone(),
            Lexical::Windows(w) => PathBuf::from(w.display()),
        }
    }

    /// The reverse of [`to_path_buf`](Self::to_path_buf) for an absolute path.
    pub fn of_path(p: &Path) -> Lexical {
        match p.to_str().and_then(WinPath::parse) {
            Some(w) => Lexical::Windows(w),
            None => Lexical::Posix(normalize(p)),
        }
    }

    /// `self` with `parts` appended (for roots made from a folder).
    fn child(&self, parts: &[&str]) -> Lexical {
        match self {
            Lexical::Posix(p) => Lexical::Posix(parts.iter().fold(p.clone(), |p, c| p.join(c))),
            Lexical::Windows(w) => Lexical::Windows(w.join(&parts.join("\\"))),
        }
    }
}

/// A recorded path made absolute against its record's `cwd` and normalized
/// lexically, never against this machine's working directory (SPEC §4): a
/// Windows path (or a relative path recorded in a Windows `cwd`) with Windows
/// rules, anything else as Node's `path.resolve` does (a missing or relative
/// `cwd` counts from `/`).
pub fn lexical(p: &str, cwd: Option<&str>) -> Lexical {
    if let Some(w) = WinPath::parse(p) {
        return Lexical::Windows(w);
    }
    if !p.starts_with('/')
        && let Some(w) = cwd.and_then(WinPath::parse)
    {
        return Lexical::Windows(w.join(p));
    }
    Lexical::Posix(absolutize(p, cwd))
}

/// A recorded path in the form two uses of one file share (SPEC §9's
/// `later_used`): `--path-map` applied and the path normalized lexically
/// against the calling record's `cwd`, Windows paths without regard to case.
/// Pure: nothing is looked up on disk and the working directory plays no part.
pub fn comparable_path(p: &str, cwd: Option<&str>, map: &PathMap) -> String {
    map.rewrite(&lexical(p, cwd)).key()
}

/// Prefix rewrites (`--path-map FROM=TO`), compared by whole components; a
/// Windows FROM matches Windows paths without regard to case or separator.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathMap(pub Vec<(PathBuf, PathBuf)>);

impl PathMap {
    /// The longest matching prefix wins.
    pub fn apply(&self, p: &Path) -> PathBuf {
        self.rewrite(&Lexical::of_path(p)).to_path_buf()
    }

    /// [`apply`](Self::apply) on a normalized path: the longest matching FROM
    /// wins; the rest of the path is appended to its TO.
    pub fn rewrite(&self, p: &Lexical) -> Lexical {
        let mut best: Option<(usize, &PathBuf, Vec<String>)> = None;
        for (from, to) in &self.0 {
            let rest: Option<(usize, Vec<String>)> = match (Lexical::of_path(from), p) {
                (Lexical::Windows(f), Lexical::Windows(w)) => w
                    .starts_with(&f)
                    .then(|| (f.parts.len() + 1, w.parts[f.parts.len()..].to_vec())),
                (Lexical::Posix(_), Lexical::Posix(path)) => {
                    path.strip_prefix(from).ok().map(|rest| {
                        (
                            from.components().count(),
                            rest.iter()
                                .map(|c| c.to_string_lossy().into_owned())
                                .collect(),
                        )
                    })
                }
                _ => None,
            };
            if let Some((n, rest)) = rest
                && best.as_ref().is_none_or(|(m, _, _)| n > *m)
            {
                best = Some((n, to, rest));
            }
        }
        match best {
            None => p.clone(),
            Some((_, to, rest)) => {
                let parts: Vec<&str> = rest.iter().map(String::as_str).collect();
                Lexical::of_path(to).child(&parts)
            }
        }
    }
}

/// `path.resolve(cwd, p)` as Node does it: absolute, `.` and `..` folded lexically.
pub fn absolutize(p: &str, cwd: Option<&str>) -> PathBuf {
    let path = Path::new(p);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        Path::new(cwd.unwrap_or("/")).join(path)
    };
    normalize(&joined)
}

pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub path: PathBuf,
    /// More than [`MAX_HOPS`] links (a loop or a long chain): the path is unknown.
    pub too_many_links: bool,
    /// A folder on the way could not be read (permission denied): the rest of the
    /// path was appended lexically, so containment is not verified.
    pub unreadable: bool,
}

/// realpath that tolerates missing tails: the nearest existing ancestor is resolved
/// and the missing segments appended. Results are cached per path, and a clone
/// shares the cache: a `Setup` holds one, so that the protectors of every plan
/// (each keystroke's, the background jobs') ask the disk about a path once.
#[derive(Debug, Default, Clone)]
pub struct Resolver {
    cache: Arc<RwLock<HashMap<PathBuf, Resolved>>>,
    /// Whether a memory root is a folder here: asked by every protector of
    /// every plan (a `compare` grid builds one per setting per session, and
    /// asked the disk each time).
    dirs: Arc<RwLock<HashMap<PathBuf, bool>>>,
}

impl Resolver {
    /// Whether `p` is a folder on this machine, asked of the disk once.
    pub fn is_dir(&self, p: &Path) -> bool {
        if let Some(&d) = self.dirs.read().unwrap_or_else(|e| e.into_inner()).get(p) {
            return d;
        }
        let d = std::fs::metadata(p).is_ok_and(|m| m.is_dir());
        self.dirs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(p.to_path_buf(), d);
        d
    }

    pub fn resolve(&self, p: &Path) -> Resolved {
        // A poisoned lock only means another thread panicked mid-insert: the
        // map itself is still whole, so its entries are read as they are.
        if let Some(r) = self.cache.read().unwrap_or_else(|e| e.into_inner()).get(p) {
            return r.clone();
        }
        let r = resolve_uncached(p);
        self.cache
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(p.to_path_buf(), r.clone());
        r
    }
}

fn resolve_uncached(p: &Path) -> Resolved {
    let mut queue: Vec<PathBuf> = components_rev(p);
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    let mut missing = false;
    let mut unreadable = false;
    while let Some(c) = queue.pop() {
        if c.as_os_str() == ".." {
            out.pop();
            continue;
        }
        if c.as_os_str() == "." {
            continue;
        }
        let next = out.join(&c);
        if missing {
            out = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Resolved {
                        path: normalize(p),
                        too_many_links: true,
                        unreadable: false,
                    };
                }
                let Ok(target) = std::fs::read_link(&next) else {
                    out = next;
                    missing = true;
                    continue;
                };
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                queue.extend(components_rev(&target));
            }
            Ok(_) => out = next,
            // Missing from here on: append the rest lexically (SPEC §4).
            Err(e) => {
                unreadable |= e.kind() != std::io::ErrorKind::NotFound;
                out = next;
                missing = true;
            }
        }
    }
    Resolved {
        path: out,
        too_many_links: false,
        unreadable,
    }
}

/// Path components as a stack (last component first), roots dropped.
fn components_rev(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(PathBuf::from(n)),
            Component::ParentDir => Some(PathBuf::from("..")),
            _ => None,
        })
        .collect();
    v.reverse();
    v
}

#[derive(Debug, Clone)]
struct Root {
    kind: RootKind,
    lexical: PathBuf,
    resolved: PathBuf,
    exists: bool,
    /// A root given in Windows form: compared lexically, never looked up.
    windows: Option<WinPath>,
}

/// Decides protection for read results, given the roots and the path map.
#[derive(Debug, Clone)]
pub struct Protector {
    roots: Vec<Root>,
    map: PathMap,
    resolver: Resolver,
}

/// One recorded path of a call: the argument and the record's cwd.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecordedPath {
    pub path: String,
    pub cwd: Option<String>,
}

impl RecordedPath {
    /// How a plan names the path (`evicted_read_paths`): made absolute against
    /// its record's `cwd` ([`lexical`]) when the path or the `cwd` is absolute;
    /// a relative path whose record names no absolute `cwd` (Gemini CLI's
    /// records name none) as recorded, `.` and `..` folded where they can be.
    /// Resolved from `/` as [`lexical`] compares it, `build.config.ts` would
    /// read as `/build.config.ts`, a file at the root the session never read.
    pub fn display(&self) -> String {
        let cwd = self.cwd.as_deref().filter(|c| !c.is_empty());
        let rooted = |p: &str| p.starts_with('/') || WinPath::parse(p).is_some();
        if rooted(&self.path) || cwd.is_some_and(rooted) {
            return lexical(&self.path, cwd).display();
        }
        let joined = match cwd {
            Some(c) => Path::new(c).join(&self.path),
            None => PathBuf::from(&self.path),
        };
        normalize_relative(&joined).display().to_string()
    }
}

/// A relative path with `.` and `name/..` folded lexically; a `..` with
/// nothing before it to fold stays.
fn normalize_relative(p: &Path) -> PathBuf {
    let mut out: Vec<&std::ffi::OsStr> = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else {
                    out.push("..".as_ref());
                }
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

impl Protector {
    /// Roots in order project, user, team (the order they are tried).
    pub fn new(roots: &[(RootKind, PathBuf)], map: PathMap) -> Protector {
        Protector::with_resolver(roots, map, Resolver::default())
    }

    /// A protector whose disk look-ups go through `resolver` (and its cache).
    pub fn with_resolver(
        roots: &[(RootKind, PathBuf)],
        map: PathMap,
        resolver: Resolver,
    ) -> Protector {
        let mut roots: Vec<Root> = roots
            .iter()
            .map(|(kind, dir)| match Lexical::of_path(dir) {
                Lexical::Windows(w) => Root {
                    kind: *kind,
                    lexical: PathBuf::from(w.display()),
                    resolved: PathBuf::from(w.display()),
                    exists: false,
                    windows: Some(w),
                },
                Lexical::Posix(lexical) => Root {
                    kind: *kind,
                    resolved: resolver.resolve(&lexical).path,
                    exists: resolver.is_dir(&lexical),
                    lexical,
                    windows: None,
                },
            })
            .collect();
        roots.sort_by_key(|r| RootKind::ALL.iter().position(|k| *k == r.kind));
        Protector {
            roots,
            map,
            resolver,
        }
    }

    pub fn roots(&self) -> impl Iterator<Item = (RootKind, &Path, bool)> {
        self.roots
            .iter()
            .map(|r| (r.kind, r.lexical.as_path(), r.exists))
    }

    /// The outcome for a read whose id maps to `paths` in the view (SPEC §4).
    pub fn decide(&self, paths: &[RecordedPath]) -> Protection {
        let mut distinct: Vec<Lexical> = Vec::new();
        for p in paths {
            let abs = lexical(&p.path, p.cwd.as_deref());
            if !distinct.contains(&abs) {
                distinct.push(abs);
            }
        }
        if distinct.is_empty() {
            return Protection {
                outcome: Outcome::UnresolvedId,
                root: None,
                resolved: None,
            };
        }
        let checks: Vec<Check> = distinct.iter().map(|p| self.check(p)).collect();
        if checks.iter().all(|c| c.inside.is_some()) {
            let first = &checks[0];
            let lexically = checks.iter().any(|c| c.lexical_only);
            return Protection {
                outcome: if lexically {
                    Outcome::Unverified
                } else {
                    Outcome::Protected
                },
                root: first.inside,
                resolved: first.resolved.clone(),
            };
        }
        if distinct.len() > 1 {
            return Protection {
                outcome: Outcome::AmbiguousId,
                root: None,
                resolved: None,
            };
        }
        let c = &checks[0];
        match c.lexical_root {
            Some(root) => Protection {
                outcome: Outcome::SymlinkEscape,
                root: Some(root),
                resolved: c.resolved.clone(),
            },
            None => Protection {
                outcome: Outcome::Outside,
                root: None,
                resolved: c.resolved.clone(),
            },
        }
    }

    fn check(&self, abs: &Lexical) -> Check {
        let mapped = match self.map.rewrite(abs) {
            Lexical::Posix(p) => p,
            // Windows, and no map brought it here: decided lexically against the
            // roots given in Windows form, so inside is `unverified` and there is
            // no symlink to escape through.
            Lexical::Windows(w) => {
                let inside = self
                    .roots
                    .iter()
                    .find(|root| root.windows.as_ref().is_some_and(|r| w.starts_with(r)))
                    .map(|root| root.kind);
                return Check {
                    inside,
                    lexical_only: true,
                    lexical_root: None,
                    resolved: Some(w.display()),
                };
            }
        };
        let r = self.resolver.resolve(&mapped);
        let resolved = (!r.too_many_links).then(|| r.path.display().to_string());
        let mut inside = None;
        let mut lexical_only = false;
        for root in self.roots.iter().filter(|r| r.windows.is_none()) {
            if root.exists {
                if !r.too_many_links && r.path.starts_with(&root.resolved) {
                    inside = Some(root.kind);
                    // Behind an unreadable folder: decided lexically, unverified.
                    lexical_only = r.unreadable;
                    break;
                }
            } else if mapped.starts_with(&root.lexical) {
                inside = Some(root.kind);
                lexical_only = true;
                break;
            }
        }
        let lexical_root = self
            .roots
            .iter()
            .filter(|r| r.windows.is_none())
            .find(|root| mapped.starts_with(&root.lexical) || mapped.starts_with(&root.resolved))
            .map(|r| r.kind);
        Check {
            inside,
            lexical_only,
            lexical_root,
            resolved,
        }
    }
}

struct Check {
    inside: Option<RootKind>,
    lexical_only: bool,
    lexical_root: Option<RootKind>,
    resolved: Option<String>,
}

/// `<cwd>` with every non-alphanumeric character turned into `-`, as both
/// harnesses name their per-project folders.
pub fn sanitize(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The git root of a recorded cwd, looked for on this machine through the map:
/// the nearest ancestor holding `.git`; the cwd itself when there is none. A
/// Windows folder that no map brings to this machine is not looked up.
pub fn git_root(cwd: &str, map: &PathMap) -> String {
    if let Some(w) = WinPath::parse(cwd) {
        let mut p = w.clone();
        loop {
            if let Lexical::Posix(here) = map.rewrite(&Lexical::Windows(p.clone()))
                && here.join(".git").exists()
            {
                return p.display();
            }
            if p.parts.pop().is_none() {
                return w.display();
            }
        }
    }
    let recorded = normalize(Path::new(cwd));
    let mut p = recorded.as_path();
    loop {
        if map.apply(p).join(".git").exists() {
            return p.display().to_string();
        }
        match p.parent() {
            Some(parent) => p = parent,
            None => return recorded.display().to_string(),
        }
    }
}

/// The default roots of a harness for a session recorded in `cwd` (SPEC §4).
pub fn default_roots(
    harness: crate::session::HarnessId,
    cwd: Option<&str>,
    map: &PathMap,
) -> Vec<(RootKind, PathBuf)> {
    let home = harness.rules().home;
    let cwd = cwd.unwrap_or("/");
    let git = git_root(cwd, map);
    let local = home
        .local_memory_env
        .is_some_and(|var| std::env::var(var).as_deref() == Ok("1"));
    // A folder of the recorded machine, through the map (a Windows one stays Windows).
    let there =
        |dir: &str, parts: &[&str]| map.rewrite(&lexical(dir, None)).child(parts).to_path_buf();
    let project = if local {
        there(cwd, &[home.project_dir, "memory"])
    } else {
        let named_after = if home.project_by_git_root { &git } else { cwd };
        home.base()
            .join("projects")
            .join(sanitize(named_after))
            .join("memory")
    };
    vec![
        (RootKind::Project, project),
        (RootKind::User, home.base().join(home.user_memory)),
        (
            RootKind::Team,
            there(&git, &[home.project_dir, "team-memory"]),
        ),
    ]
}

#[cfg(test)]
mod tests;
