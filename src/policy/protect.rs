//! Managed-memory protection (SPEC §4): is a read inside a memory root, after
//! following symlinks? All disk access goes through [`Resolver`].

use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Linux's MAXSYMLINKS: the most links one resolution follows.
pub const MAX_HOPS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RootKind {
    Project,
    User,
    Team,
}

impl RootKind {
    pub const ALL: [RootKind; 3] = [RootKind::Project, RootKind::User, RootKind::Team];

    pub fn name(self) -> &'static str {
        match self {
            RootKind::Project => "project",
            RootKind::User => "user",
            RootKind::Team => "team",
        }
    }

    pub fn parse(s: &str) -> Option<RootKind> {
        RootKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
        match self {
            Outcome::Protected => "protected",
            Outcome::Outside => "outside",
            Outcome::SymlinkEscape => "symlink_escape",
            Outcome::UnresolvedId => "unresolved_id",
            Outcome::AmbiguousId => "ambiguous_id",
            Outcome::Unverified => "unverified",
        }
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

/// A Windows absolute path (SPEC §4: `X:\…`, `X:/…` or `\\server\share\…`), kept
/// as text and normalized lexically with Windows rules: `\` and `/` both separate,
/// `.` and `..` are folded (never above the drive or share), and comparisons ignore
/// case. It is never looked up on this machine.
#[derive(Debug, Clone)]
pub struct WinPath {
    /// `C:` (the drive letter upper-cased) or `\\server\share`.
    root: String,
    parts: Vec<String>,
}

impl WinPath {
    /// The normalized Windows path `s` names, when `s` is a Windows absolute path.
    /// `\\?\C:\…` and `\\?\UNC\server\share\…` (long-path forms) are accepted too.
    pub fn parse(s: &str) -> Option<WinPath> {
        let is_sep = |c: char| c == '\\' || c == '/';
        if let Some(rest) = s
            .strip_prefix("\\\\?\\")
            .or_else(|| s.strip_prefix("\\\\.\\"))
        {
            return match rest.get(..4) {
                Some(unc) if unc.eq_ignore_ascii_case("UNC\\") => {
                    WinPath::parse(&format!("\\\\{}", &rest[4..]))
                }
                _ => WinPath::parse(rest),
            };
        }
        let b = s.as_bytes();
        if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && is_sep(b[2] as char) {
            let root = format!("{}:", (b[0] as char).to_ascii_uppercase());
            return Some(WinPath::with_parts(root, &s[3..]));
        }
        let rest = s.strip_prefix("\\\\")?;
        let mut it = rest.split(is_sep).filter(|c| !c.is_empty());
        let server = it.next()?;
        let root = match it.next() {
            Some(share) => format!("\\\\{server}\\{share}"),
            None => format!("\\\\{server}"),
        };
        let tail: Vec<&str> = it.collect();
        Some(WinPath::with_parts(root, &tail.join("\\")))
    }

    fn with_parts(root: String, rel: &str) -> WinPath {
        let mut w = WinPath {
            root,
            parts: Vec::new(),
        };
        w.push(rel);
        w
    }

    /// Appends a relative path with Windows rules (`.`/`..` folded); a path that
    /// begins with one separator starts again at the drive (or share) root.
    fn push(&mut self, rel: &str) {
        if rel.starts_with(['\\', '/']) {
            self.parts.clear();
        }
        for c in rel.split(['\\', '/']) {
            match c {
                "" | "." => {}
                ".." => {
                    self.parts.pop();
                }
                c => self.parts.push(c.to_string()),
            }
        }
    }

    /// `rel` resolved against this path, as Node's `path.win32.resolve` does.
    pub fn join(&self, rel: &str) -> WinPath {
        if let Some(abs) = WinPath::parse(rel) {
            return abs;
        }
        let mut w = self.clone();
        w.push(rel);
        w
    }

    /// Whether `base` is this path or one of its ancestors, comparing whole
    /// components without regard to case.
    pub fn starts_with(&self, base: &WinPath) -> bool {
        same_name(&self.root, &base.root)
            && self.parts.len() >= base.parts.len()
            && self
                .parts
                .iter()
                .zip(&base.parts)
                .all(|(a, b)| same_name(a, b))
    }

    /// The readable normalized form: drive letter upper-case, `\` separators,
    /// components as recorded (`c:/users/dev/./a/../b.md` → `C:\users\dev\b.md`).
    pub fn display(&self) -> String {
        let mut s = self.root.clone();
        if self.parts.is_empty() && !self.root.starts_with('\\') {
            s.push('\\');
        }
        for p in &self.parts {
            s.push('\\');
            s.push_str(p);
        }
        s
    }

    /// The form two spellings of one path share: [`display`](Self::display) lower-cased.
    pub fn key(&self) -> String {
        self.display().to_lowercase()
    }
}

impl PartialEq for WinPath {
    fn eq(&self, other: &WinPath) -> bool {
        self.key() == other.key()
    }
}

impl Eq for WinPath {}

fn same_name(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
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
/// and the missing segments appended. Results are cached per path.
#[derive(Debug, Default)]
pub struct Resolver {
    cache: RefCell<HashMap<PathBuf, Resolved>>,
}

impl Resolver {
    pub fn resolve(&self, p: &Path) -> Resolved {
        if let Some(r) = self.cache.borrow().get(p) {
            return r.clone();
        }
        let r = resolve_uncached(p);
        self.cache.borrow_mut().insert(p.to_path_buf(), r.clone());
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
#[derive(Debug)]
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

impl Protector {
    /// Roots in order project, user, team (the order they are tried).
    pub fn new(roots: &[(RootKind, PathBuf)], map: PathMap) -> Protector {
        let resolver = Resolver::default();
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
                    exists: std::fs::metadata(&lexical).is_ok_and(|m| m.is_dir()),
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

/// The harness base folders (SPEC §4).
pub fn claude_base() -> PathBuf {
    crate::harness::CLAUDE.home.base()
}

pub fn qwen_base() -> PathBuf {
    crate::harness::QWEN.home.base()
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
    harness: crate::session::Harness,
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
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn rp(p: &str) -> RecordedPath {
        RecordedPath {
            path: p.into(),
            cwd: Some("/work".into()),
        }
    }

    #[test]
    fn absolutize_folds_like_node_path_resolve() {
        assert_eq!(
            absolutize("a/./b/../c", Some("/w")),
            PathBuf::from("/w/a/c")
        );
        assert_eq!(absolutize("/x/../../y", None), PathBuf::from("/y"));
    }

    #[test]
    fn path_map_matches_whole_components_longest_first() {
        let m = PathMap(vec![
            ("/home/dev".into(), "/t/a".into()),
            ("/home/dev/app".into(), "/t/b".into()),
        ]);
        assert_eq!(
            m.apply(Path::new("/home/dev/app/x")),
            PathBuf::from("/t/b/x")
        );
        assert_eq!(
            m.apply(Path::new("/home/devil/x")),
            PathBuf::from("/home/devil/x")
        );
        assert_eq!(m.apply(Path::new("/home/dev")), PathBuf::from("/t/a"));
    }

    #[test]
    fn outcomes_follow_symlinks_and_compare_components() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let mem = base.join("mem");
        std::fs::create_dir_all(mem.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/secret.md"), "x").unwrap();
        std::fs::write(mem.join("a.md"), "x").unwrap();
        symlink("../outside/secret.md", mem.join("leak.md")).unwrap();
        std::fs::create_dir_all(base.join("mem2")).unwrap();
        // a link from elsewhere into the root counts as inside
        symlink(mem.join("a.md"), base.join("outside/in.md")).unwrap();
        let p = Protector::new(&[(RootKind::Project, mem.clone())], PathMap::default());
        let s = |x: &Path| x.display().to_string();

        let r = p.decide(&[rp(&s(&mem.join("a.md")))]);
        assert_eq!(
            (r.outcome, r.root),
            (Outcome::Protected, Some(RootKind::Project))
        );
        // a file not yet written inside the root is still inside
        let r = p.decide(&[rp(&s(&mem.join("sub/new.md")))]);
        assert_eq!(r.outcome, Outcome::Protected);
        let r = p.decide(&[rp(&s(&mem.join("leak.md")))]);
        assert_eq!(r.outcome, Outcome::SymlinkEscape);
        assert_eq!(r.resolved, Some(s(&base.join("outside/secret.md"))));
        let r = p.decide(&[rp(&s(&base.join("outside/in.md")))]);
        assert_eq!(r.outcome, Outcome::Protected);
        // "mem2" shares a string prefix with "mem" but not a component
        let r = p.decide(&[rp(&s(&base.join("mem2/x.md")))]);
        assert_eq!(r.outcome, Outcome::Outside);
        let r = p.decide(&[]);
        assert_eq!(r.outcome, Outcome::UnresolvedId);
        let r = p.decide(&[
            rp(&s(&mem.join("a.md"))),
            rp(&s(&base.join("outside/secret.md"))),
        ]);
        assert_eq!(r.outcome, Outcome::AmbiguousId);
        // two spellings of one path are one path
        let r = p.decide(&[rp(&s(&mem.join("a.md"))), rp(&s(&mem.join("sub/../a.md")))]);
        assert_eq!(r.outcome, Outcome::Protected);
    }

    #[test]
    fn missing_root_is_decided_lexically_and_flagged() {
        let p = Protector::new(
            &[(RootKind::User, PathBuf::from("/nonexistent-mcscope/mem"))],
            PathMap::default(),
        );
        let r = p.decide(&[rp("/nonexistent-mcscope/mem/x.md")]);
        assert_eq!(
            (r.outcome, r.root),
            (Outcome::Unverified, Some(RootKind::User))
        );
        assert!(r.outcome.protects());
    }

    #[test]
    fn link_loops_stop_after_forty_hops() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        symlink(base.join("b"), base.join("a")).unwrap();
        symlink(base.join("a"), base.join("b")).unwrap();
        let r = Resolver::default().resolve(&base.join("a/x"));
        assert!(r.too_many_links);
        // a chain of 41 links is over the limit, 40 is not
        std::fs::write(base.join("end"), "x").unwrap();
        let mut prev = base.join("end");
        for i in 0..41 {
            let l = base.join(format!("l{i}"));
            symlink(&prev, &l).unwrap();
            prev = l;
        }
        assert!(
            !Resolver::default()
                .resolve(&base.join("l39"))
                .too_many_links
        );
        assert!(
            Resolver::default()
                .resolve(&base.join("l40"))
                .too_many_links
        );
    }

    fn win(p: &str, cwd: &str) -> RecordedPath {
        RecordedPath {
            path: p.into(),
            cwd: Some(cwd.into()),
        }
    }

    const WCWD: &str = "C:\\Users\\dev\\app";

    // Rule 1: the three Windows forms, and what is not one.
    #[test]
    fn windows_absolute_paths_have_three_forms() {
        for p in [
            "C:\\Users\\dev",
            "c:/users/dev",
            "D:\\",
            "\\\\server\\share\\memory",
            "\\\\?\\C:\\x",
        ] {
            assert!(WinPath::parse(p).is_some(), "{p}");
        }
        for p in [
            "/home/dev",
            "src\\main.rs",
            "C:",
            "C:foo",
            "..\\x",
            "1:\\x",
            "",
        ] {
            assert!(WinPath::parse(p).is_none(), "{p}");
        }
        assert_eq!(
            WinPath::parse("\\\\?\\UNC\\srv\\sh\\a").unwrap().display(),
            "\\\\srv\\sh\\a"
        );
        // A Windows path is Windows whatever the cwd; a relative one is Windows in a Windows cwd.
        assert!(matches!(
            lexical("c:/x", Some("/home")),
            Lexical::Windows(_)
        ));
        assert!(matches!(
            lexical("src/a.rs", Some(WCWD)),
            Lexical::Windows(_)
        ));
        assert!(matches!(
            lexical("src/a.rs", Some("/home")),
            Lexical::Posix(_)
        ));
    }

    // Rule 2: the map applies first; a Windows FROM matches either separator, any case.
    #[test]
    fn path_map_matches_windows_paths_without_case_or_separator() {
        let m = PathMap(vec![(
            "D:\\oh-my-posh".into(),
            "/home/me/oh-my-posh".into(),
        )]);
        let to = Lexical::Posix("/home/me/oh-my-posh/src/a.go".into());
        for p in [
            "d:/OH-MY-POSH/src/a.go",
            "D:\\oh-my-posh\\src\\a.go",
            "D:/oh-my-posh/x/../src/a.go",
        ] {
            assert_eq!(m.rewrite(&lexical(p, None)), to, "{p}");
        }
        // relative to a Windows cwd the map rewrites
        assert_eq!(m.rewrite(&lexical("src\\a.go", Some("d:\\Oh-My-Posh"))), to);
        // whole components only, and `..` leaving the FROM leaves the map
        let sibling = m.rewrite(&lexical("D:\\oh-my-posh2\\a.go", None));
        assert_eq!(sibling.display(), "D:\\oh-my-posh2\\a.go");
        let above = m.rewrite(&lexical("..\\b.go", Some("D:\\oh-my-posh")));
        assert_eq!(above.display(), "D:\\b.go");
        // a mapped Windows path is then checked on this machine, symlinks and all
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("mem")).unwrap();
        let map = PathMap(vec![(
            "C:/Users/dev/.claude/memory".into(),
            base.join("mem"),
        )]);
        let p = Protector::new(&[(RootKind::User, base.join("mem"))], map);
        let r = p.decide(&[win("c:\\USERS\\dev\\.claude\\memory\\notes.md", WCWD)]);
        assert_eq!(
            (r.outcome, r.root, r.resolved),
            (
                Outcome::Protected,
                Some(RootKind::User),
                Some(base.join("mem/notes.md").display().to_string())
            )
        );
    }

    // Rule 3: an unmapped Windows path is normalized and compared lexically.
    #[test]
    fn unmapped_windows_paths_are_compared_lexically_with_windows_roots() {
        let p = Protector::new(
            &[
                (RootKind::Project, PathBuf::from("/nonexistent-mcscope/mem")),
                (
                    RootKind::User,
                    PathBuf::from("C:\\Users\\dev\\.claude\\memory"),
                ),
            ],
            PathMap::default(),
        );
        // inside: any case, either separator, `.`/`..` folded, relative to the cwd
        for path in [
            "c:/users/dev/.claude/memory/notes.md",
            "C:\\Users\\dev\\app\\..\\.claude\\.\\MEMORY\\notes.md",
            "..\\.claude\\memory\\notes.md",
        ] {
            let r = p.decide(&[win(path, WCWD)]);
            assert_eq!(
                (r.outcome, r.root),
                (Outcome::Unverified, Some(RootKind::User)),
                "{path}"
            );
            assert!(r.outcome.protects());
        }
        // two spellings of one file are one path, not ambiguous
        let r = p.decide(&[
            win("c:/users/dev/.claude/memory/notes.md", WCWD),
            win("C:\\Users\\Dev\\.claude\\memory\\notes.md", WCWD),
        ]);
        assert_eq!(r.outcome, Outcome::Unverified);
        // outside: a sibling sharing the root's text, `..` past the root, another drive, UNC
        for path in [
            "C:\\Users\\dev\\.claude\\memory-old\\notes.md",
            "C:\\Users\\dev\\.claude\\memory\\..\\secret.md",
            "D:\\Users\\dev\\.claude\\memory\\notes.md",
            "\\\\server\\share\\memory\\notes.md",
            "src\\main.rs",
        ] {
            let r = p.decide(&[win(path, WCWD)]);
            assert_eq!((r.outcome, r.root), (Outcome::Outside, None), "{path}");
        }
        // a Windows path is never inside a root of this machine, even one whose
        // text it would land in if it were joined to a working directory
        let here = std::env::current_dir().unwrap();
        let p = Protector::new(&[(RootKind::Project, here.clone())], PathMap::default());
        let r = p.decide(&[win("C:\\x.md", WCWD)]);
        assert_eq!(r.outcome, Outcome::Outside);
        assert_eq!(r.resolved.as_deref(), Some("C:\\x.md"));
        // `\foo` in a Windows cwd starts at the drive's root; `/foo` is this machine's
        assert_eq!(lexical("\\x.md", Some(WCWD)).display(), "C:\\x.md");
        assert_eq!(lexical("/x.md", Some(WCWD)), Lexical::Posix("/x.md".into()));
        // `..` never climbs above the drive
        assert_eq!(lexical("..\\..\\..\\..\\y", Some(WCWD)).display(), "C:\\y");
    }

    // Rule 4: a relative root is taken against the base only when it is not Windows.
    #[test]
    fn given_roots_in_windows_form_are_not_joined_to_the_base() {
        let base = Path::new("/run/here");
        assert_eq!(
            Lexical::given("C:\\Users\\me\\.claude\\projects\\x\\memory", base).display(),
            "C:\\Users\\me\\.claude\\projects\\x\\memory"
        );
        assert_eq!(Lexical::given("c:/a/./b/../m", base).display(), "C:\\a\\m");
        assert_eq!(Lexical::given("mem/../m2", base).display(), "/run/here/m2");
        assert_eq!(Lexical::given("/abs/m", base).display(), "/abs/m");
        // a Windows root is reported as not existing on this machine
        let p = Protector::new(
            &[(RootKind::Team, PathBuf::from("c:/a/m"))],
            PathMap::default(),
        );
        let roots: Vec<(RootKind, String, bool)> = p
            .roots()
            .map(|(k, d, e)| (k, d.display().to_string(), e))
            .collect();
        assert_eq!(roots, [(RootKind::Team, "C:\\a\\m".to_string(), false)]);
    }

    // Rule 6: the readable normalized Windows form.
    #[test]
    fn windows_paths_display_with_backslashes_and_an_upper_case_drive() {
        assert_eq!(
            lexical("c:/users/dev/./.claude/memory/notes.md", None).display(),
            "C:\\users\\dev\\.claude\\memory\\notes.md"
        );
        assert_eq!(lexical("d:/", None).display(), "D:\\");
        assert_eq!(
            lexical("\\\\Server\\Share/a/../b", None).display(),
            "\\\\Server\\Share\\b"
        );
        assert_eq!(
            lexical("src/./lib.rs", Some(WCWD)).display(),
            "C:\\Users\\dev\\app\\src\\lib.rs"
        );
    }

    // SPEC §9's later_used: one key for two spellings of one file.
    #[test]
    fn comparable_paths_fold_spelling_case_and_the_map() {
        let none = PathMap::default();
        let k = |p: &str, cwd: &str| comparable_path(p, Some(cwd), &none);
        assert_eq!(
            k("src\\main.rs", WCWD),
            k("c:/users/DEV/app/src/main.rs", "D:\\x")
        );
        assert_eq!(k("src\\main.rs", WCWD), "c:\\users\\dev\\app\\src\\main.rs");
        assert_ne!(k("src\\main.rs", WCWD), k("src\\lib.rs", WCWD));
        // POSIX paths keep their case, and fold `..` against the cwd
        assert_eq!(k("../b/x.rs", "/w/a"), "/w/b/x.rs");
        assert_ne!(k("/w/X.rs", "/"), k("/w/x.rs", "/"));
        // the map brings a Windows and a POSIX spelling together
        let m = PathMap(vec![("C:\\Users\\dev\\app".into(), "/home/me/app".into())]);
        assert_eq!(
            comparable_path("SRC/main.rs", Some("c:/users/dev/app"), &m),
            comparable_path("/home/me/app/SRC/main.rs", Some("/"), &m)
        );
        assert_eq!(comparable_path("a.rs", None, &m), "/a.rs");
    }

    #[test]
    fn default_roots_of_a_windows_cwd_stay_windows() {
        let roots = default_roots(
            crate::session::Harness::Claude,
            Some(WCWD),
            &PathMap::default(),
        );
        let team = &roots.iter().find(|(k, _)| *k == RootKind::Team).unwrap().1;
        assert_eq!(
            team.display().to_string(),
            "C:\\Users\\dev\\app\\.claude\\team-memory"
        );
        let project = &roots
            .iter()
            .find(|(k, _)| *k == RootKind::Project)
            .unwrap()
            .1;
        assert!(
            project.ends_with("projects/C--Users-dev-app/memory"),
            "{project:?}"
        );
    }

    #[test]
    fn sanitize_replaces_non_alphanumerics() {
        assert_eq!(sanitize("/home/dev/my.app"), "-home-dev-my-app");
    }
}
