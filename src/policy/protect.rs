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

/// Prefix rewrites (`--path-map FROM=TO`), compared by whole components.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathMap(pub Vec<(PathBuf, PathBuf)>);

impl PathMap {
    /// The longest matching prefix wins.
    pub fn apply(&self, p: &Path) -> PathBuf {
        let best = self
            .0
            .iter()
            .filter(|(from, _)| p.starts_with(from))
            .max_by_key(|(from, _)| from.components().count());
        match best {
            Some((from, to)) => match p.strip_prefix(from) {
                Ok(rest) if rest.as_os_str().is_empty() => to.clone(),
                Ok(rest) => to.join(rest),
                Err(_) => p.to_path_buf(),
            },
            None => p.to_path_buf(),
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
            .map(|(kind, dir)| {
                let lexical = normalize(dir);
                Root {
                    kind: *kind,
                    resolved: resolver.resolve(&lexical).path,
                    exists: std::fs::metadata(&lexical).is_ok_and(|m| m.is_dir()),
                    lexical,
                }
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
        let mut distinct: Vec<PathBuf> = Vec::new();
        for p in paths {
            let abs = absolutize(&p.path, p.cwd.as_deref());
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

    fn check(&self, abs: &Path) -> Check {
        let mapped = self.map.apply(abs);
        let r = self.resolver.resolve(&mapped);
        let resolved = (!r.too_many_links).then(|| r.path.display().to_string());
        let mut inside = None;
        let mut lexical_only = false;
        for root in &self.roots {
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
/// the nearest ancestor holding `.git`; the cwd itself when there is none.
pub fn git_root(cwd: &str, map: &PathMap) -> String {
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
    let project = if local {
        map.apply(Path::new(cwd))
            .join(home.project_dir)
            .join("memory")
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
            map.apply(Path::new(&git))
                .join(home.project_dir)
                .join("team-memory"),
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

    #[test]
    fn sanitize_replaces_non_alphanumerics() {
        assert_eq!(sanitize("/home/dev/my.app"), "-home-dev-my-app");
    }
}
